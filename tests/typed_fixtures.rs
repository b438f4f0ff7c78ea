//! Typed-engine fixtures: each `fixtures/typed/NAME.c` has, snapshotted in `NAME.expected`, the
//! front end's type diagnostics with the engine's ranked quick fixes (and whether the file
//! re-checked after the fix still has that diagnostic), and the completions at every `/*|*/`
//! marker. `UPDATE_EXPECT=1 cargo test --test typed_fixtures` rewrites the snapshots.

use std::path::Path;

use mend::engines::typed;
use mend::ir::{apply_edits, Severity};
use mend::syntax::lower::lower_source;

fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let p = mend::syntax::LineIndex::new(src).position(src, offset, mend::syntax::Encoding::Utf8);
    (p.line as usize + 1, p.character as usize + 1)
}

fn render(src: &str) -> String {
    let lowered = lower_source(src);
    let tree = mend::syntax::parse(src, None);
    let mut out = String::new();
    for d in &lowered.diagnostics {
        if !typed::REPAIRED_CODES.contains(&d.code) {
            continue;
        }
        let (l, c) = line_col(src, d.span.start as usize);
        out.push_str(&format!("{l}:{c} {} [{}] {}\n", d.severity.as_str(), d.code, d.message));
        let repairs = typed::repairs(&lowered.program, &tree, src, std::slice::from_ref(d), 3);
        if repairs.is_empty() {
            out.push_str("    (no repair)\n");
        }
        for (i, r) in repairs.iter().enumerate() {
            let fixed = apply_edits(src, &r.edits);
            let after = lower_source(&fixed);
            // The fix is judged on the diagnostics left at the same place.
            let before_here = lowered.diagnostics.iter().filter(|x| x.severity <= Severity::Warning).count();
            let after_here = after.diagnostics.iter().filter(|x| x.severity <= Severity::Warning).count();
            let verdict = if after_here < before_here { "fixed" } else { "NOT FIXED" };
            let e = &r.edits[0];
            let (el, ec) = line_col(src, e.span.start as usize);
            out.push_str(&format!(
                "    {}. {} [{verdict}; edit {el}:{ec} `{}` -> `{}`]\n",
                i + 1,
                r.title,
                &src[e.span.range()],
                e.new_text
            ));
        }
    }
    for (at, _) in src.match_indices("/*|*/") {
        let (l, c) = line_col(src, at);
        let items = typed::complete(&lowered.program, src, at, 5);
        let shown: Vec<String> = items.iter().map(|i| format!("{} ({})", i.text, i.cost)).collect();
        let ty = items.first().map(|i| i.ty.as_str()).unwrap_or("-");
        out.push_str(&format!("complete {l}:{c} [{ty}]: {}\n", shown.join(", ")));
    }
    if out.is_empty() {
        out.push_str("(nothing)\n");
    }
    out
}

#[test]
fn typed_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/typed");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    names.sort();
    assert!(names.len() >= 6);
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&render(&src));
    }
}
