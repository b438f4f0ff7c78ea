//! Analysis of a rewritten text, its report mapped back onto the student's: the file with
//! `int ` written before every function that has no return type (C90's implicit `int`, which
//! tree-sitter cannot parse), and the file with its type errors fixed (the logic is repaired
//! on top of the type fix). Every span goes back to the student's text, and every repair
//! becomes one patch of it that includes the rewrite's own edits: the guarantee is that of the
//! proof on the final text.

use crate::ir::rewrite::Rewrite;
use crate::ir::{Diagnostic, Guarantee, Repair};
use crate::syntax::implicit_int::{self, ImplicitInt};

use super::Report;

/// `report` (of `rewrite.text`) on `original`. `also` ends each composed repair's explanation
/// with what the rewrite's edits do.
pub(super) fn map_back(rewrite: &Rewrite, original: &str, report: &Report, also: &str) -> Report {
    let mut out = report.clone();
    for d in &mut out.diagnostics {
        on_original(rewrite, d);
    }
    for r in &mut out.repairs {
        r.edits = rewrite.compose(original, &r.edits);
        for p in &mut r.places {
            p.span = rewrite.span_back(p.span);
        }
        for f in &mut r.fixes {
            *f = rewrite.span_back(*f);
        }
        if !also.is_empty() {
            r.explanation = format!("{} {also}", r.explanation).trim_start().to_string();
        }
    }
    out
}

fn on_original(rewrite: &Rewrite, d: &mut Diagnostic) {
    d.span = rewrite.span_back(d.span);
    for r in &mut d.related {
        r.span = rewrite.span_back(r.span);
    }
}

/// The functions of a text that have no return type, and the rewrite that writes `int `
/// before each.
pub(super) struct MissingInt {
    found: Vec<ImplicitInt>,
    pub rewrite: Rewrite,
    /// What the rewrite adds to a repair, in words.
    words: String,
}

impl MissingInt {
    pub fn find(text: &str) -> Option<MissingInt> {
        let found = implicit_int::find(text);
        if found.is_empty() {
            return None;
        }
        let rewrite = Rewrite::new(text, found.iter().map(ImplicitInt::edit).collect());
        let names: Vec<String> = found.iter().map(|f| format!("`{}`", f.name)).collect();
        let words = format!("It also writes the missing `int` before {}.", names.join(", "));
        Some(MissingInt { found, rewrite, words })
    }

    /// `report` (of the rewritten text) on `original`, with one warning per function without
    /// a return type and its one-click fix.
    pub fn back(&self, original: &str, report: &Report) -> Report {
        let mut report = map_back(&self.rewrite, original, report, &self.words);
        for f in &self.found {
            let name = &f.name;
            report.diagnostics.push(Diagnostic::warning(
                "implicit-int",
                f.name_span,
                format!(
                    "`{name}` has no return type: old C takes it as `int`, compilers since C99 reject it; write `int {name}`"
                ),
            ));
            report.repairs.push(Repair {
                reached: Vec::new(),
                title: format!("Add `int` before `{name}`"),
                engine: "syntax",
                guarantee: Guarantee::Syntax,
                edits: vec![f.edit()],
                places: Vec::new(),
                explanation: format!("Writes the return type C90 gives `{name}` when none is written."),
                details: String::new(),
                fixes: vec![f.name_span],
            });
        }
        report.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
        report
    }
}

/// What the program is found to do, said of the program with its type errors fixed: the
/// student's own text does not compile, so the tests and the reference ran on the fixed one.
pub(super) fn after_type_fixes(report: &mut Report, errors: usize) {
    const ABOUT_THE_PROGRAM: &[&str] = &[
        "test-failed",
        "runtime-error",
        "reference-mismatch",
        "equivalent",
        "equivalent-bounded",
        "equivalent-assuming",
        "equivalent-but-failing",
        "assertion",
        "verified",
        "bounded",
    ];
    for d in report.diagnostics.iter_mut().filter(|d| ABOUT_THE_PROGRAM.contains(&d.code)) {
        d.message = format!("with the type error{} fixed, {}", if errors > 1 { "s" } else { "" }, d.message);
    }
}
