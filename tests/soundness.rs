//! No false guarantee. A repair offered as verified or bounded must do what it says under the
//! problem's compare mode:
//! - the pinned case (`fixtures/product/exact_sort_negated`): a repair the product once proved
//!   by comparing printed values, in a course that compares whole outputs;
//! - both development courses on a fixed sample: every proved repair `mend bench reference`
//!   offers is compiled with gcc and run on every test and on inputs generated from them,
//!   judged under each problem's mode (`bench_reference::Oracle`); and under the course's
//!   compiler flags (C-Pack's `-Wall -Wextra -Werror -ansi -pedantic`) gcc must build every
//!   repaired text of a submission it builds.

mod common;

use std::path::Path;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::check::{CheckOptions, check};
use mend::cli::bench_reference::{AtOnce, Settings};
use mend::smt::Budget;
use mend::smt::bmc::{BmcVerdict, verify_against};
use mend::spec::compare::{self, Compare};
use mend::spec::interp::{self, Limits};
use mend::syntax::flags::CompilerFlags;
use mend::syntax::lower::lower_source;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/product").join(name)
}

#[test]
fn a_repair_proved_on_values_is_not_proved_on_exact_output() {
    let dir = fixture("exact_sort_negated");
    let student = std::fs::read_to_string(dir.join("student.c")).unwrap();
    let reference = lower_source(&std::fs::read_to_string(dir.join("reference.c")).unwrap()).program;
    let repaired = student.replace("vetor[i] >= vetor[n]", "vetor[i] < vetor[n]");
    assert_ne!(repaired, student);
    let program = lower_source(&repaired).program;
    let verdict = |mode| {
        verify_against(&program, &reference, mode, "main", 5, &Budget::new(Duration::from_secs(60), Cancel::new()))
            .verdict
    };
    match verdict(Compare::Exact) {
        BmcVerdict::Violated(cex) => {
            // The input shows the difference under the mode, in the interpreter.
            let run = |p: &mend::ir::Program| {
                String::from_utf8_lossy(
                    &interp::run(p, "main", cex.stdin.as_bytes(), &Limits::default(), &Cancel::new()).output,
                )
                .into_owned()
            };
            assert!(!compare::outputs_match(&run(&reference), &run(&program), Compare::Exact), "input {:?}", cex.stdin);
        }
        other => panic!("the repaired program prints one number a line, the reference one line: {other:?}"),
    }
    // The same values: the values mode proves it (for runs within the bound).
    assert!(matches!(verdict(Compare::Values), BmcVerdict::Holds { .. }), "{:?}", verdict(Compare::Values));
}

#[test]
fn the_pinned_submission_gets_no_false_guarantee() {
    let dir = fixture("exact_sort_negated");
    let path = dir.join("student.c");
    let text = std::fs::read_to_string(&path).unwrap();
    let opts = CheckOptions { timeout: Some(Duration::from_secs(10)), ..CheckOptions::default() };
    let report = check(Some(&path), &text, &opts, &Cancel::new());
    assert_eq!(report.tests.len(), 4, "{:?}", report.diagnostics);
    for r in report.repairs.iter().filter(|r| r.guarantee.is_proof()) {
        let patched = lower_source(&mend::ir::apply_edits(&text, &r.edits)).program;
        for t in &report.tests {
            let run = interp::run(&patched, "main", t.input.as_bytes(), &Limits::default(), &Cancel::new());
            let out = String::from_utf8_lossy(&run.output);
            assert!(
                compare::outputs_match(&t.expected, &out, Compare::Exact),
                "{} ({}) fails test {}: {out:?}",
                r.title,
                r.guarantee.label(),
                t.name
            );
        }
    }
}

/// Both courses, a fixed sample (the bench's even spread over each problem's submissions),
/// a short budget, two analyses at once (what is judged is each repair found, not how many
/// the budget allows): every proved repair against the oracle.
#[test]
fn proved_repairs_on_both_courses_pass_gcc_on_tests_and_generated_inputs() {
    if !common::have_gcc() {
        return;
    }
    // C-Pack's course built with these flags (its README): a repair must still build.
    let cpack_flags = CompilerFlags::parse("-Wall -Wextra -Werror -ansi -pedantic").unwrap();
    for (course, per_problem, flags) in [("introclass", 6, None), ("cpack", 3, Some(cpack_flags))] {
        let Some(data) = common::shared_data(course) else { continue };
        let mut log = Vec::new();
        let settings = Settings {
            budget: Duration::from_secs(8),
            limit: Some(per_problem),
            shift: 0.0,
            default_compare: Compare::Values,
            flags,
            at_once: AtOnce::Two,
            verbose: true,
        };
        let findings = mend::cli::bench_reference::run(&data, &settings, &mut log).unwrap();
        let log = String::from_utf8_lossy(&log);
        eprintln!("{log}");
        assert!(findings.submissions > 0, "{course}: no failing submission in the sample");
        assert!(
            findings.false_guarantees.is_empty(),
            "{course}: false guarantees:\n{}",
            findings.false_guarantees.join("\n")
        );
        assert!(
            findings.rejected_by_flags.is_empty(),
            "{course}: repairs that do not build under the course's flags:\n{}",
            findings.rejected_by_flags.join("\n")
        );
        eprintln!(
            "{course}: {} proved repairs on {} submissions, none refuted",
            findings.proved_repairs, findings.submissions
        );
    }
}
