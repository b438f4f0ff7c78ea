//! The last check before anything is published: a repair labelled above `tested` (a proof)
//! must pass every test the student can see. The engines prove under their models of C and of
//! the compare mode; a test that fails shows a gap between the model and the program, and
//! then the proof is not offered. Cheap: a few interpreter runs per proved repair, each patched
//! text checked once per analysis.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::cancel::Cancel;
use crate::ir::apply_edits;
use crate::ir::{Diagnostic, Span};
use crate::spec::compare::Compare;
use crate::spec::interp::Limits;

use super::{PreparedTest, Report, run_test, shorten};

pub(crate) struct Gate<'a> {
    text: &'a str,
    entry: &'a str,
    tests: &'a [PreparedTest],
    compare: Compare,
    limits: Limits,
    cancel: &'a Cancel,
    /// Tests the reference itself fails (their indices): they disagree with the instructor's
    /// program, so they cannot refute a repair proved against it.
    excused: Vec<usize>,
    /// Patched text → the first test it fails (its index), `None` when it passes them all.
    verdicts: Mutex<HashMap<String, Option<usize>>>,
}

impl<'a> Gate<'a> {
    pub fn new(
        text: &'a str,
        entry: &'a str,
        tests: &'a [PreparedTest],
        compare: Compare,
        limits: Limits,
        cancel: &'a Cancel,
    ) -> Self {
        Gate { text, entry, tests, compare, limits, cancel, excused: Vec::new(), verdicts: Mutex::new(HashMap::new()) }
    }

    /// The gate with the tests at `excused` left out of its check of repairs.
    pub fn excusing(self, excused: Vec<usize>) -> Self {
        Gate { excused, ..self }
    }

    /// The first visible test the patched text fails (its index); a text that does not
    /// compile fails the first.
    /// Logged once per text (a model gap worth a developer's look), not once per report.
    fn first_failure(&self, patched: String, title: &str) -> Option<usize> {
        if let Some(v) = self.verdicts.lock().expect("gate cache").get(&patched) {
            return *v;
        }
        let lowered = crate::syntax::lower::lower_source(&patched);
        let verdict = if lowered.has_errors() {
            Some(0)
        } else {
            self.tests.iter().enumerate().position(|(i, t)| {
                !self.excused.contains(&i)
                    && !run_test(&lowered.program, self.entry, t, self.compare, &self.limits, self.cancel).0
            })
        };
        // A cancelled run decides nothing (and the report is stale anyway).
        if self.cancel.is_cancelled() {
            return None;
        }
        if let Some(i) = verdict {
            tracing::warn!(target: "mend::gate", title, test = i, "a proved repair fails a visible test; withdrawn");
        }
        self.verdicts.lock().expect("gate cache").insert(patched, verdict);
        verdict
    }

    /// Withdraws from `report` every proved repair that fails a visible test (its quick fix,
    /// its hint and the change diagnostics only it explains), with one plain note; and a claim
    /// that the program as written is equivalent to the reference when one of its own tests
    /// fails.
    pub fn apply(&self, report: &mut Report, anchor: Span) {
        if self.tests.is_empty() {
            return;
        }
        let mut withdrawn = Vec::new();
        report.repairs.retain(|r| {
            if !r.guarantee.is_proof() {
                return true;
            }
            match self.first_failure(apply_edits(self.text, &r.edits), &r.title) {
                None => true,
                Some(i) => {
                    withdrawn.push((r.clone(), i));
                    false
                }
            }
        });
        for (r, i) in &withdrawn {
            let still_edited = |s: Span| report.repairs.iter().any(|o| o.edits.iter().any(|e| e.span.touches(s)));
            report.diagnostics.retain(|d| {
                let its_change = matches!(d.code, "verified-repair" | "repair")
                    && r.edits.iter().any(|e| e.span.touches(d.span))
                    && !still_edited(d.span);
                !its_change
            });
            let t = &self.tests[*i];
            report.diagnostics.push(Diagnostic::info(
                "repair-withdrawn",
                r.primary(),
                format!(
                    "mend found a fix here but it fails the test with input `{}`, so it is not offered",
                    shorten(&t.input)
                ),
            ));
        }
        // "Equivalent as written" while a visible test fails: the reference and the tests
        // disagree, or the proof's model missed something; either way the claim is not shown.
        if self.tests.iter().any(|t| !t.passed) {
            // Blame the reference only where it is known to fail a test itself.
            let reference_fails = report.diagnostics.iter().any(|d| d.code == "reference-fails");
            let why = if reference_fails {
                "mend proved your program prints what the reference prints, yet a test fails: the reference and the tests disagree, so no fix is offered"
            } else {
                "a test fails although mend's comparison found no difference from the reference: mend's model of C missed what makes it fail (a limit of mend), so it claims no proof here"
            };
            for d in report.diagnostics.iter_mut().filter(|d| matches!(d.code, "equivalent" | "equivalent-assuming")) {
                tracing::warn!(target: "mend::gate", reference_fails, "an equivalence proof while a visible test fails");
                *d = Diagnostic::info("equivalent-but-failing", anchor, why);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Repair;
    use crate::ir::{Guarantee, TextEdit};

    const TEXT: &str =
        "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); printf(\"%d\\n\", n * 3); return 0; }\n";

    fn repair(new: &str, guarantee: Guarantee) -> Repair {
        let at = TEXT.find("n * 3").unwrap() as u32;
        let span = Span { start: at, end: at + 5 };
        Repair {
            title: format!("Fix: `n * 3` → `{new}`"),
            engine: "verified",
            guarantee,
            edits: vec![TextEdit { span, new_text: new.into() }],
            explanation: String::new(),
            places: Vec::new(),
            details: String::new(),
            fixes: vec![span],
            reached: Vec::new(),
        }
    }

    /// One visible test the program as written fails.
    fn failing_test(input: &str, expected: &str) -> [PreparedTest; 1] {
        [PreparedTest {
            input: input.into(),
            expected: expected.into(),
            expected_prompt: None,
            reference_steps: None,
            passed: false,
        }]
    }

    #[test]
    fn a_proved_repair_that_fails_a_visible_test_is_withdrawn_with_a_note() {
        let tests = failing_test("3\n", "6\n");
        let cancel = Cancel::new();
        let gate = Gate::new(TEXT, "main", &tests, Compare::Exact, Limits::default(), &cancel);
        let mut report = Report::default();
        for (new, g) in [
            ("n * 2", Guarantee::Verified),
            ("n + 3", Guarantee::Bounded { bound: crate::ir::Bound::loops(5) }),
            ("n * n", Guarantee::Tested { tests: 1 }),
        ] {
            report.repairs.push(repair(new, g));
        }
        gate.apply(&mut report, Span::default());
        let titles: Vec<&str> = report.repairs.iter().map(|r| r.title.as_str()).collect();
        // `n + 3` prints 6 for 3 as well: it passes the test and stays. `n * n` is not a
        // proof: the gate leaves it to the test engine that labelled it.
        assert_eq!(titles, ["Fix: `n * 3` → `n * 2`", "Fix: `n * 3` → `n + 3`", "Fix: `n * 3` → `n * n`"]);
        let tests = failing_test("4\n", "8\n");
        let gate = Gate::new(TEXT, "main", &tests, Compare::Exact, Limits::default(), &cancel);
        gate.apply(&mut report, Span::default());
        let titles: Vec<&str> = report.repairs.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(titles, ["Fix: `n * 3` → `n * 2`", "Fix: `n * 3` → `n * n`"]);
        let note = report.diagnostics.iter().find(|d| d.code == "repair-withdrawn").expect("a note");
        assert!(note.message.contains("`4`"), "{}", note.message);
    }

    #[test]
    fn an_equivalence_claim_beside_a_failing_test_is_not_shown() {
        let tests = failing_test("3\n", "6\n");
        let cancel = Cancel::new();
        let gate = Gate::new(TEXT, "main", &tests, Compare::Exact, Limits::default(), &cancel);
        let mut report = Report::default();
        report.diagnostics.push(Diagnostic::info(
            "equivalent",
            Span::default(),
            "prints the same values as the reference for all inputs (verified)",
        ));
        report.diagnostics.push(Diagnostic::info(
            "equivalent-bounded",
            Span::default(),
            "prints the same values as the reference on runs with at most 5 loop iterations (bounded, b=5)",
        ));
        gate.apply(&mut report, Span::default());
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["equivalent-but-failing", "equivalent-bounded"]);
    }
}
