//! Syntax diagnostics never panic and always give valid spans and applicable repairs, on
//! IntroClass files with random one-character slips (deleted or inserted punctuation).

use mend::syntax::{parse, syntax_diagnostics};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check(src: &str, stats: &mut [u32; 4]) {
    let tree = parse(src, None);
    let (diags, repairs) = syntax_diagnostics(&tree, src);
    stats[0] += 1;
    stats[1] += u32::from(!diags.is_empty());
    for d in &diags {
        if std::env::var("KINDS").is_ok() {
            eprintln!("KIND {}", d.message);
        }
        assert!(d.span.start <= d.span.end && (d.span.end as usize) <= src.len(), "{src}");
        assert!(src.is_char_boundary(d.span.start as usize) && src.is_char_boundary(d.span.end as usize));
        assert!(!d.message.is_empty());
    }
    if tree.root_node().has_error() {
        stats[3] += u32::from(diags.is_empty());
        if diags.is_empty() && std::env::var("SHOW").is_ok() {
            eprintln!("NO DIAG:\n{src}");
        }
    }
    for r in &repairs {
        assert!(diags.iter().any(|d| d.span == r.primary()), "repair without its diagnostic");
        for e in &r.edits {
            assert!((e.span.end as usize) <= src.len() && src.is_char_boundary(e.span.start as usize));
        }
        let fixed = mend::ir::apply_edits(src, &r.edits);
        let after = syntax_diagnostics(&parse(&fixed, None), &fixed).0.len();
        stats[2] += u32::from(after < diags.len());
    }
}

#[test]
fn random_slips_never_panic() {
    let Some(dir) = mend::testing::shared_data("introclass") else { return };
    let dir = dir.as_path();
    let mut files = Vec::new();
    for p in std::fs::read_dir(dir).unwrap().flatten() {
        if let Ok(subs) = std::fs::read_dir(p.path().join("submissions")) {
            files.extend(subs.flatten().map(|e| e.path()));
        }
    }
    files.sort();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut stats = [0u32; 4]; // files checked, with diagnostics, repairs that reduce diagnostics, error trees with no diagnostic
    let slips = [";", "(", ")", "{", "}", "\"", "else ", "if ", ","];
    for f in files.iter().step_by(3) {
        let Ok(src) = std::fs::read_to_string(f) else { continue };
        for _ in 0..6 {
            let mut at = (rng.next() % (src.len() as u64 + 1)) as usize;
            while !src.is_char_boundary(at) {
                at -= 1;
            }
            let mut s = src.clone();
            if rng.next().is_multiple_of(2) {
                // Delete one punctuation character near `at`.
                if let Some(i) = s[at..].find([';', '(', ')', '{', '}', '"', ',']) {
                    s.remove(at + i);
                }
            } else {
                s.insert_str(at, slips[(rng.next() % slips.len() as u64) as usize]);
            }
            check(&s, &mut stats);
        }
    }
    eprintln!(
        "{} mutants, {} with diagnostics, {} repairs that reduce the diagnostics, {} error trees without a diagnostic",
        stats[0], stats[1], stats[2], stats[3]
    );
}
