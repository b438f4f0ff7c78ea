//! `cargo test --release --test syntax_bench -- --ignored --nocapture` prints the incremental
//! reparse + syntax diagnostics timings (the budget: p50 < 1 ms, p99 < 5 ms for 2,000 lines).

#[test]
#[ignore]
fn incremental_2000_lines() {
    let (p50, p99) = mend::cli::bench::bench_incremental(2000, 2000);
    eprintln!("2000 lines, 2000 one-character edits, best of 3: p50 {p50:.3} ms, p99 {p99:.3} ms");
    let (p50, p99) = mend::cli::bench::bench_incremental_with(2000, 2000, 1);
    eprintln!("2000 lines, 2000 one-character edits, raw: p50 {p50:.3} ms, p99 {p99:.3} ms");
    let (p50, p99) = mend::cli::bench::bench_incremental_chars(2000, 2000, 3, &["x", "1", " ", ";", "e"]);
    eprintln!("typing only (x 1 space ; e), best of 3: p50 {p50:.3} ms, p99 {p99:.3} ms");
    let (p50, p99) = mend::cli::bench::bench_incremental_chars(2000, 2000, 3, &["{", "(", "}", ")", "\""]);
    eprintln!("brackets and quotes only, best of 3: p50 {p50:.3} ms, p99 {p99:.3} ms");
}

#[test]
#[ignore]
fn where_the_time_goes() {
    use mend::syntax::{Document, Encoding, Position};
    let src = mend::cli::bench::synthetic_source(2000);
    let mut slow = Vec::new();
    let lines = src.lines().count() as u32;
    for (k, ch) in [";", "1", "x", "{", "(", " ", "}", ")"].iter().enumerate() {
        for i in 0..60u32 {
            let base = Document::new(src.clone(), 0);
            let line = (i * 37 + k as u32 * 11) % lines;
            let pos = Position::new(line, 5);
            let (mut t1, mut t2, mut n) = (f64::INFINITY, f64::INFINITY, 0);
            for _ in 0..3 {
                let mut doc = base.clone();
                let t0 = std::time::Instant::now();
                doc.apply_change(Some((pos, pos)), ch, Encoding::Utf16).unwrap();
                t1 = t1.min(t0.elapsed().as_secs_f64() * 1000.0);
                let t = std::time::Instant::now();
                let (d, _) = mend::syntax::syntax_diagnostics(doc.tree().unwrap(), &doc.text);
                t2 = t2.min(t.elapsed().as_secs_f64() * 1000.0);
                n = d.len();
            }
            let d = vec![(); n];
            slow.push((t1 + t2, t1, t2, ch.to_string(), line, d.len()));
        }
    }
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    for s in slow.iter().take(15) {
        eprintln!("{s:?}");
    }
}

#[test]
#[ignore]
fn full_parse_2000_lines() {
    let src = mend::cli::bench::synthetic_source(2000);
    let mut best = f64::INFINITY;
    for _ in 0..10 {
        let t = std::time::Instant::now();
        std::hint::black_box(mend::syntax::parse(&src, None));
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    eprintln!("full parse of {} bytes / {} lines: {best:.3} ms", src.len(), src.lines().count());
}

#[test]
#[ignore]
fn diagnostics_on_clean_file() {
    let src = mend::cli::bench::synthetic_source(2000);
    let tree = mend::syntax::parse(&src, None);
    let mut best = f64::INFINITY;
    for _ in 0..50 {
        let t = std::time::Instant::now();
        std::hint::black_box(mend::syntax::syntax_diagnostics(&tree, &src));
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    eprintln!("syntax_diagnostics on a clean 2000-line file: {best:.4} ms");
}
