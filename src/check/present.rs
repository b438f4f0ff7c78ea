//! What a student sees: one diagnostic per bug. The engines report facts (a failing test, a
//! changed place, a search that found nothing); this pass, run on every report after the
//! gate, groups what belongs to one bug and ties its fixes to all of its diagnostics.
//!
//! - The behaviour bug (the program prints the wrong thing, an assertion fails) is shown by
//!   the failing tests' one warning (`run_tests` groups them), the mismatch with the reference
//!   when no test shows it, and one warning per place the best repair changes.
//! - Every behaviour repair is offered from every diagnostic of that bug.
//! - A front-end warning about what an expression does, at a place the best fix changes,
//!   is that fix's related information: the fix answers it.
//! - A search's intermediate notes go once a conclusion is there: a final state says one
//!   thing.

use crate::ir::{Diagnostic, Repair, Span};

use super::Report;

/// Codes of the diagnostics that show a behaviour bug (what the program does, as opposed to
/// whether it compiles).
const BEHAVIOUR_CODES: &[&str] = &[
    "test-failed",
    "reference-mismatch",
    "verified-repair",
    "repair",
    "assertion",
    "runtime-error",
    "goes-wrong",
    "wrong-state",
];

/// Notes of the reference search that a later conclusion makes redundant.
const SEARCH_NOTES: &[&str] = &["no-verified-repair"];

/// Conclusions about the program against its spec. "Not compared" and "unknown" are not:
/// beside them the reference search's own note ("it ran out of time") says what happened.
const CONCLUSIONS: &[&str] = &["no-repair", "equivalent", "equivalent-bounded", "equivalent-assuming"];

/// Why no fix is offered, most useful first: when there are several, the first is the one
/// sentence shown and the others are its related information. The verified engine's reason
/// comes before the bounded search's limits: it compared the program (retyped, say) where the
/// bounded search could not start.
const NO_FIX_REASONS: &[&str] = &["no-repair", "no-verified-repair", "not-compared", "unknown", "withdrawn"];

/// Groups `report` for the student (see the module doc).
pub fn student_view(report: &mut Report) {
    let is_behaviour = |r: &Repair| matches!(r.engine, "verified" | "mutation" | "output-text");
    // Best first: the editor's preferred fix is the first one offered at a place.
    let (mut behaviour, other): (Vec<Repair>, Vec<Repair>) =
        std::mem::take(&mut report.repairs).into_iter().partition(|r| is_behaviour(r));
    behaviour.sort_by_key(|r| std::cmp::Reverse(r.guarantee.strength()));
    // Two engines may find the same patch (the printed-text engine and the search both fix a
    // `"%d/n"`): one quick fix, the strongest.
    let mut seen: Vec<Vec<crate::ir::TextEdit>> = Vec::new();
    behaviour.retain(|r| {
        let patch = super::levels::in_text_order(&r.edits);
        let new = !seen.contains(&patch);
        seen.push(patch);
        new
    });
    if let Some(best) = behaviour.first() {
        show_changed_places(report, best);
        explain_at_changed_places(report);
        answer_front_end_warnings(report);
        // "The proof did not finish" stands only while the best fix is unproved: once a
        // proof is shown, it is history. "A fix was withdrawn" is history as soon as any fix
        // is shown: the input that refuted it joined the tests the shown fix passes, and its
        // note would name an earlier candidate beside the one offered (often a part of it).
        let proved = best.guarantee.is_proof();
        // "Could not finish comparing" is said once: by the note on the unproved fix.
        let unfinished = report.diagnostics.iter().any(|d| d.code == "proof-unfinished");
        report.diagnostics.retain(|d| {
            !SEARCH_NOTES.contains(&d.code)
                && d.code != "no-repair"
                && d.code != "withdrawn"
                && !(proved && d.code == "proof-unfinished")
                && !(unfinished && !proved && d.code == "unknown")
        });
    } else {
        if report.diagnostics.iter().any(|d| CONCLUSIONS.contains(&d.code)) {
            report.diagnostics.retain(|d| !SEARCH_NOTES.contains(&d.code));
        }
        one_reason(report);
    }
    let bug: Vec<Span> =
        report.diagnostics.iter().filter(|d| BEHAVIOUR_CODES.contains(&d.code)).map(|d| d.span).collect();
    for r in &mut behaviour {
        for span in &bug {
            if !r.fixes.contains(span) {
                r.fixes.push(*span);
            }
        }
    }
    report.repairs = other;
    report.repairs.extend(behaviour);
    one_unsupported_note(report);
    report.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
}

/// One note per construct mend cannot analyse: the front end's ("mend cannot analyse `main`
/// yet: it uses unions …") says what every later note about the same place would (the
/// assertions not checked there, the tests not run, the reference not compared); those
/// become its related information.
fn one_unsupported_note(report: &mut Report) {
    // What follows from a construct mend cannot analyse: the tests not run, the reference not
    // compared, because of it.
    const CONSEQUENCES: &[&str] = &["unsupported", "tests", "not-compared"];
    let (notes, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
        std::mem::take(&mut report.diagnostics).into_iter().partition(|d| d.code == "unsupported");
    let mut kept: Vec<Diagnostic> = Vec::new();
    for d in notes.into_iter().chain(rest) {
        let about = |k: &Diagnostic| {
            k.code == "unsupported"
                && CONSEQUENCES.contains(&d.code)
                && (k.span == d.span || d.related.iter().any(|r| r.span == k.span))
        };
        match kept.iter().position(about) {
            Some(i) => kept[i] = kept[i].clone().with_related(d.span, d.message),
            None => kept.push(d),
        }
    }
    report.diagnostics = kept;
}

/// The reasons no fix is offered as one information diagnostic: the most useful, with the
/// others as its related information (nothing is dropped, one sentence is shown).
fn one_reason(report: &mut Report) {
    let rank = |d: &Diagnostic| NO_FIX_REASONS.iter().position(|c| *c == d.code);
    let (mut reasons, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
        std::mem::take(&mut report.diagnostics).into_iter().partition(|d| rank(d).is_some());
    report.diagnostics = rest;
    reasons.sort_by_key(|d| rank(d));
    let mut reasons = reasons.into_iter();
    if let Some(mut first) = reasons.next() {
        for other in reasons {
            first = first.with_related(other.span, other.message);
        }
        report.diagnostics.push(first);
    }
}

/// One warning per place `best` changes (both behaviour engines describe their places), where
/// no engine already explains that place (the verified engine words its own changes by region).
/// The same change at several places (`"%d"` → `"%d\n"` in each branch) is one warning, at
/// the first, with the others as its related information.
fn show_changed_places(report: &mut Report, best: &Repair) {
    let mut shown: Vec<Diagnostic> = Vec::new();
    // Each warning says what its change achieves with the others: one alone may not.
    let mut changes: Vec<&str> = best.places.iter().map(|p| p.change.as_str()).collect();
    changes.sort_unstable();
    changes.dedup();
    let effect = match changes.len() {
        0 | 1 => format!(" {}", best_effect(best)),
        2 => format!("; with the other change, this {}", best_effect(best)),
        n => format!("; with the other {} changes, this {}", n - 1, best_effect(best)),
    };
    for place in &best.places {
        let explained = report.diagnostics.iter().any(|d| {
            d.code == "verified-repair"
                && (d.span.touches(place.span) || d.related.iter().any(|r| r.span.touches(place.span)))
        });
        if explained {
            continue;
        }
        let message = format!("possible bug here: {}{effect}", place.change);
        match shown.iter_mut().find(|d| d.message == message) {
            Some(first) => {
                first.related.push(crate::ir::Related { span: place.span, message: "the same change here".into() })
            }
            None => shown.push(Diagnostic::warning("repair", place.span, message)),
        }
    }
    report.diagnostics.extend(shown);
}

/// Where a test's run goes wrong is what the fix's warning is about: one message, the run's
/// account its related information (at the warning where the fix changes that place, else
/// the first). The wrong call stays apart: it names the function and the input, at the
/// function, where no fix's warning stands.
fn explain_at_changed_places(report: &mut Report) {
    let (wrong, mut rest): (Vec<Diagnostic>, Vec<Diagnostic>) = std::mem::take(&mut report.diagnostics)
        .into_iter()
        .partition(|d| matches!(d.code, "goes-wrong" | "wrong-state"));
    let is_fix = |k: &Diagnostic| matches!(k.code, "verified-repair" | "repair");
    for d in wrong {
        // The fix's warning at the same place, else its first.
        let at = (rest.iter().position(|k| is_fix(k) && k.span.touches(d.span)))
            .or_else(|| rest.iter().position(|k| is_fix(k) && d.code == "wrong-state"));
        match at {
            Some(k) => rest[k].related.push(crate::ir::Related { span: d.span, message: d.message }),
            None => rest.push(d),
        }
    }
    report.diagnostics = rest;
}

/// Warnings of the front end about what an expression does (a string compared by address, a
/// value printed with another type's directive) that a fix's warning stands on: the fix
/// answers them, so they are its related information, not a second message for the bug.
const ANSWERED_WARNINGS: &[&str] = &["string-equality", "format", "type"];

/// Folds each of [`ANSWERED_WARNINGS`] whose place a fix's warning touches into that warning
/// (the first such): one message per bug, the front end's words kept beside it.
fn answer_front_end_warnings(report: &mut Report) {
    let (answered, mut rest): (Vec<Diagnostic>, Vec<Diagnostic>) = std::mem::take(&mut report.diagnostics)
        .into_iter()
        .partition(|d| d.severity == crate::ir::Severity::Warning && ANSWERED_WARNINGS.contains(&d.code));
    let is_fix = |k: &Diagnostic| matches!(k.code, "verified-repair" | "repair");
    for d in answered {
        match rest.iter().position(|k| is_fix(k) && k.span.touches(d.span)) {
            Some(k) => rest[k].related.push(crate::ir::Related { span: d.span, message: d.message }),
            None => rest.push(d),
        }
    }
    report.diagnostics = rest;
}

/// What applying the repair is known to achieve, in a few words.
fn best_effect(r: &Repair) -> String {
    use crate::ir::Guarantee;
    match &r.guarantee {
        Guarantee::Verified => "fixes it (proved for every input)".into(),
        Guarantee::Bounded { bound } => format!("fixes it (proved for runs of up to {})", bound.words()),
        Guarantee::VerifiedAssuming { .. } => {
            format!("fixes it (proved for {})", r.guarantee.assumed_runs().unwrap_or_default())
        }
        Guarantee::OverReals { tests } => {
            format!("makes all {tests} tests pass and fixes it over the reals (rounding not checked)")
        }
        Guarantee::Tested { tests: 1 } => "makes the test pass".into(),
        Guarantee::Tested { tests } => format!("makes all {tests} tests pass"),
        Guarantee::Syntax | Guarantee::WellTyped => "fixes it".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verified_engines_reason_is_shown_before_the_bounded_searchs_limit() {
        let at = Span { start: 0, end: 0 };
        let mut report = Report::default();
        report.diagnostics.push(Diagnostic::info("no-verified-repair", at, "mend ran out of time"));
        report.diagnostics.push(Diagnostic::info("not-compared", at, "not compared: a limit"));
        student_view(&mut report);
        assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
        let shown = &report.diagnostics[0];
        assert_eq!((shown.code, shown.message.as_str()), ("no-verified-repair", "mend ran out of time"));
        assert_eq!(shown.related.iter().map(|r| r.message.as_str()).collect::<Vec<_>>(), ["not compared: a limit"]);
    }

    #[test]
    fn a_conclusion_makes_the_verified_engines_note_redundant() {
        let at = Span { start: 0, end: 0 };
        let mut report = Report::default();
        report.diagnostics.push(Diagnostic::info("no-verified-repair", at, "mend ran out of time"));
        report.diagnostics.push(Diagnostic::info("equivalent-bounded", at, "same output up to 8 iterations"));
        student_view(&mut report);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["equivalent-bounded"]);
    }

    #[test]
    fn an_unproved_fix_says_once_that_the_comparison_did_not_finish() {
        let at = Span { start: 0, end: 0 };
        let mut report = Report::default();
        report.repairs.push(tested_fix());
        report.diagnostics.push(Diagnostic::info("proof-unfinished", at, "the fix shown passes all 3 tests; ..."));
        report.diagnostics.push(Diagnostic::info("unknown", at, "mend could not finish comparing ..."));
        student_view(&mut report);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["proof-unfinished"]);
    }

    fn tested_fix() -> Repair {
        Repair {
            title: "Fix (passes all 6 tests): `(num % 10)` → `(num * 10)` (2 places)".into(),
            engine: "mutation",
            guarantee: crate::ir::Guarantee::Tested { tests: 6 },
            edits: Vec::new(),
            places: Vec::new(),
            explanation: String::new(),
            details: String::new(),
            fixes: Vec::new(),
            reached: Vec::new(),
        }
    }

    /// The same patch found by two engines is offered once, with the stronger guarantee.
    #[test]
    fn the_same_patch_from_two_engines_is_one_fix() {
        let edit = |at: u32| crate::ir::TextEdit { span: Span { start: at, end: at + 1 }, new_text: "\\".into() };
        let mut tested = tested_fix();
        tested.edits = vec![edit(10), edit(30)];
        let mut proved = tested_fix();
        proved.engine = "output-text";
        proved.guarantee = crate::ir::Guarantee::Verified;
        proved.edits = vec![edit(30), edit(10)];
        let mut other = tested_fix();
        other.edits = vec![edit(10)];
        let mut report = Report { repairs: vec![tested, proved, other], ..Report::default() };
        student_view(&mut report);
        let kept: Vec<(&str, bool)> = report.repairs.iter().map(|r| (r.engine, r.guarantee.is_proof())).collect();
        assert_eq!(kept, [("output-text", true), ("mutation", false)]);
        assert_eq!(report.repairs[1].edits.len(), 1);
    }

    /// A candidate withdrawn on the way to the fix shown (here one of its two places) is not
    /// named beside it; with no fix shown, its note is the reason there is none.
    #[test]
    fn a_withdrawn_candidate_is_named_only_while_no_fix_is_shown() {
        let at = Span { start: 0, end: 0 };
        let withdrawn = || {
            Diagnostic::info("withdrawn", at, "mend withdrew the fix `(num % 10)` → `(num * 10)`: for input `-10` ...")
        };
        let mut report = Report::default();
        report.repairs.push(tested_fix());
        report.diagnostics.push(withdrawn());
        student_view(&mut report);
        assert!(report.diagnostics.iter().all(|d| d.code != "withdrawn"), "{:?}", report.diagnostics);

        let mut report = Report::default();
        report.diagnostics.push(withdrawn());
        student_view(&mut report);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["withdrawn"]);
    }
}
