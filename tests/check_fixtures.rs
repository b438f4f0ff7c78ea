//! `check` end to end on fixtures with a spec: every `fixtures/check/**/NAME.c` (and the
//! README's example) with its mend.toml, tests and reference; the report's diagnostics and
//! test verdicts are snapshotted in `NAME.expected`.

use std::path::{Path, PathBuf};

use mend::cancel::Cancel;
use mend::check::{check, CheckOptions};

/// One-based line and byte column, through the library's own line index.
fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let p = mend::syntax::LineIndex::new(src).position(src, offset, mend::syntax::Encoding::Utf8);
    (p.line as usize + 1, p.character as usize + 1)
}

fn c_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "tests") {
            c_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "c") && !p.ends_with("reference.c") {
            out.push(p);
        }
    }
}

pub fn render(src: &str, report: &mend::check::Report) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let (l, c) = line_col(src, d.span.start as usize);
        out.push_str(&format!("{l}:{c} {} [{}] {}\n", d.severity.as_str(), d.code, d.message));
    }
    for r in &report.repairs {
        out.push_str(&format!("repair ({}): {}\n", r.guarantee.label(), r.title));
    }
    let passed = report.tests.iter().filter(|t| t.passed).count();
    out.push_str(&format!("tests: {passed}/{} passed\n", report.tests.len()));
    out
}

#[test]
fn check_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    c_files(&root.join("fixtures/check"), &mut files);
    c_files(&root.join("examples"), &mut files);
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let report = check(Some(&f), &src, &CheckOptions::default(), &Cancel::new());
        expect_test::expect_file![f.with_extension("expected")].assert_eq(&render(&src, &report));
    }
}
