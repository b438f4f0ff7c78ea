//! Snapshot tests: `fixtures/syntax/NAME.c` → `fixtures/syntax/NAME.expected`
//! (`UPDATE_EXPECT=1 cargo test --test syntax_fixtures` rewrites them).

use mend::syntax::{Encoding, LineIndex, parse, syntax_diagnostics};
use std::fmt::Write;

fn render(src: &str) -> String {
    let tree = parse(src, None);
    let (diags, repairs) = syntax_diagnostics(&tree, src);
    let index = LineIndex::new(src);
    let pos = |o: u32| {
        let p = index.position(src, o as usize, Encoding::Utf16);
        format!("{}:{}", p.line + 1, p.character + 1)
    };
    let mut out = String::new();
    if diags.is_empty() {
        out.push_str("no diagnostics\n");
    }
    for d in &diags {
        assert_eq!(d.code, "syntax");
        assert_eq!(d.severity, mend::ir::Severity::Error);
        writeln!(out, "{}-{} {}: {}", pos(d.span.start), pos(d.span.end), d.severity.as_str(), d.message).unwrap();
        writeln!(out, "    | {}", &src[d.span.range()]).unwrap();
        for r in &d.related {
            writeln!(out, "    related {}-{}: {}", pos(r.span.start), pos(r.span.end), r.message).unwrap();
        }
    }
    for r in &repairs {
        assert_eq!(r.engine, "syntax");
        assert_eq!(r.guarantee, mend::patch::Guarantee::Syntax);
        let fixed = mend::patch::apply_edits(src, &r.edits);
        let after = syntax_diagnostics(&parse(&fixed, None), &fixed).0.len();
        writeln!(out, "repair for {}: {} ({} diagnostics after)", pos(r.fixes.start), r.title, after).unwrap();
        for e in &r.edits {
            writeln!(out, "    {}-{} → {:?}", pos(e.span.start), pos(e.span.end), e.new_text).unwrap();
        }
    }
    out
}

#[test]
fn fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "{} fixtures", names.len());
    for c in names {
        let src = std::fs::read_to_string(&c).unwrap();
        let expected = c.with_extension("expected");
        expect_test::expect_file![expected].assert_eq(&render(&src));
    }
}
