//! `cargo test --release --test syntax_bench -- --ignored --nocapture` prints the incremental
//! reparse + syntax diagnostics timings (the budget: p50 < 1 ms, p99 < 5 ms for 2,000 lines).

#[test]
#[ignore]
fn incremental_2000_lines() {
    let (p50, p99) = mend::syntax::document::bench_incremental(2000, 2000);
    eprintln!("2000 lines, 2000 one-character edits: p50 {p50:.3} ms, p99 {p99:.3} ms");
}

#[test]
#[ignore]
fn where_the_time_goes() {
    use mend::syntax::{Document, Encoding, Position};
    let src = mend::syntax::document::synthetic_source(2000);
    let mut slow = Vec::new();
    let lines = src.lines().count() as u32;
    for (k, ch) in [";", "1", "x", "{", "(", " ", "}", ")"].iter().enumerate() {
        for i in 0..60u32 {
            let mut doc = Document::new(src.clone(), 0);
            let line = (i * 37 + k as u32 * 11) % lines;
            let pos = Position::new(line, 5);
            let t0 = std::time::Instant::now();
            doc.apply_change(Some((pos, pos)), ch, Encoding::Utf16).unwrap();
            let t1 = t0.elapsed().as_secs_f64() * 1000.0;
            let t = std::time::Instant::now();
            let (d, _) = mend::syntax::syntax_diagnostics(&doc.tree, &doc.text);
            let t2 = t.elapsed().as_secs_f64() * 1000.0;
            slow.push((t1 + t2, t1, t2, ch.to_string(), line, d.len()));
        }
    }
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    for s in slow.iter().take(15) {
        eprintln!("{s:?}");
    }
}
