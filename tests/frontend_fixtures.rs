//! Front-end fixtures: each `fixtures/frontend/NAME.c` has its diagnostics (type checker and
//! unsupported constructs) snapshotted in `NAME.expected`. `UPDATE_EXPECT=1 cargo test`
//! rewrites the snapshots; review the diff.

use std::path::Path;

use mend::syntax::lower::lower_source;

/// One-based line and byte column, through the library's own line index.
fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let p = mend::syntax::LineIndex::new(src).position(src, offset, mend::syntax::Encoding::Utf8);
    (p.line as usize + 1, p.character as usize + 1)
}

#[test]
fn frontend_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/frontend");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    names.sort();
    assert!(names.len() >= 10);
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        let lowered = lower_source(&src);
        let mut out = String::new();
        for d in &lowered.diagnostics {
            let (l1, c1) = line_col(&src, d.span.start as usize);
            let (l2, c2) = line_col(&src, d.span.end as usize);
            let text = &src[d.span.range()];
            out.push_str(&format!("{l1}:{c1}-{l2}:{c2} {} [{}] {}\n    on `{}`\n", d.severity.as_str(), d.code, d.message, text));
            for r in &d.related {
                let (l, c) = line_col(&src, r.span.start as usize);
                out.push_str(&format!("    related {l}:{c}: {}\n", r.message));
            }
        }
        if out.is_empty() {
            out.push_str("(no diagnostics)\n");
        }
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&out);
    }
}
