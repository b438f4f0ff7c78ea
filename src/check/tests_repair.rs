//! Tests as the spec of the mutation engine: when a test fails, every minimal mutation repair
//! that makes all tests pass, as quick fixes labelled with the number of tests.

use std::hash::{Hash, Hasher};
use std::time::Instant;

use crate::cancel::Cancel;
use crate::engines::mutation::against_tests::{self, Closeness, Guidance, TestResult};
use crate::engines::mutation::engine::{Change, FoundRepair, Options};
use crate::engines::mutation::search::Verdict;
use crate::engines::output_text;
use crate::ir::{Diagnostic, Guarantee, Program};
use crate::smt::Budget;
use crate::spec::compare::{Compare, output_distance};
use crate::spec::interp::{Limits, RuntimeErrorKind};

use super::assertions::{no_fix_message, push_repair, stream};
use super::{OnPartial, PreparedTest, Report, run_test};

pub(super) const CANDIDATE_STEPS: u64 = 1_000_000;
/// Bytes a candidate may print beyond twice a test's expected output before its run stops.
const OUTPUT_SLACK: usize = 4096;

/// `limits` for a run that only decides whether `t` passes: a run that prints far more than
/// the test expects, or runs far longer than the reference on it, has failed it, so it stops
/// there (a loop a mutation made endless would otherwise print a megabyte, or run a million
/// steps, per test).
pub(super) fn limits_for(t: &PreparedTest, limits: &Limits) -> Limits {
    let limits = match t.reference_steps {
        Some(steps) => limits.within_reference(steps),
        None => limits.clone(),
    };
    Limits { max_output: limits.max_output.min(2 * t.expected.len() + OUTPUT_SLACK), ..limits }
}

#[allow(clippy::too_many_arguments)]
pub fn repair_against_tests(
    program: &Program,
    text: &str,
    tests: &[PreparedTest],
    compare: Compare,
    engine_opts: &Options,
    max_steps: u64,
    counterexamples: &[PreparedTest],
    deadline: Instant,
    cancel: &Cancel,
    report: &mut Report,
    on_partial: OnPartial<'_>,
) {
    if tests.is_empty() || tests.iter().all(|t| t.passed) {
        return;
    }
    let entry = engine_opts.entry.as_str();
    let anchor = program.name_span_of(entry);
    let budget = Budget::new(deadline.saturating_duration_since(Instant::now()), cancel.clone());
    let mut found: Vec<FoundRepair> = Vec::new();
    let what = format!("all {} tests pass", tests.len());
    let so_far = report.clone();
    let mut all: Vec<PreparedTest> = tests.to_vec();
    all.extend(counterexamples.iter().cloned());
    let result = search(program, text, &all, compare, engine_opts, max_steps, &budget, &mut |r| {
        // Labelled with the tests the student has; the counterexamples are the reference's.
        found.push(FoundRepair { guarantee: Guarantee::Tested { tests: tests.len() as u32 }, ..r.clone() });
        stream(&so_far, &found, anchor, &what, on_partial);
    });
    report.stats.repair_ms += result.total_time.as_secs_f64() * 1000.0;
    if report.stats.first_repair_ms.is_none() {
        report.stats.first_repair_ms = found.first().map(|r| r.found_after.as_secs_f64() * 1000.0);
    }
    let failing = tests.iter().filter(|t| !t.passed).count();
    if found.is_empty() {
        let goal = if failing == 1 {
            "makes the failing test pass".to_string()
        } else {
            format!("makes the {failing} failing tests pass")
        };
        let why = no_fix_message(result.outcome.as_ref(), engine_opts.max_size, &goal);
        report.diagnostics.push(Diagnostic::info("no-repair", anchor, why));
    }
    for repair in &found {
        push_repair(report, repair, anchor, &what);
    }
}

/// The mutation search with `tests` as the spec: every minimal repair that makes all of them
/// pass, each given to `on_repair` as found. A candidate runs the tests the program as written
/// fails first (a candidate usually fails where the original did), each run bounded in steps.
/// The repairs are `tested` with the count of `tests`.
#[allow(clippy::too_many_arguments)]
pub(super) fn search(
    program: &Program,
    text: &str,
    tests: &[PreparedTest],
    compare: Compare,
    engine_opts: &Options,
    max_steps: u64,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&FoundRepair),
) -> against_tests::TestsReport {
    let entry = engine_opts.entry.as_str();
    let mut order: Vec<&PreparedTest> = tests.iter().collect();
    order.sort_by_key(|t| t.passed);
    // A mutation that makes a loop run away must not eat the budget: test runs of candidates
    // stop at a million steps (student programs on their tests take far fewer).
    let limits = Limits { max_steps: max_steps.min(CANDIDATE_STEPS), ..Limits::default() };
    let mut passes_all = |candidate: &Program, budget: &Budget| -> Verdict {
        for t in &order {
            if let Some(reason) = budget.stop_reason() {
                return Verdict::Unknown(format!("{reason:?}"));
            }
            let (passed, run) = run_test(candidate, entry, t, compare, &limits_for(t, &limits), &budget.cancel);
            if !passed {
                // A mutation that makes a test loop for ever is a failing candidate, not an
                // undecided one: the student needs a program that terminates on the tests.
                return match run.error.map(|e| e.kind) {
                    Some(RuntimeErrorKind::Cancelled) => Verdict::Unknown("cancelled".into()),
                    _ => Verdict::Fails,
                };
            }
        }
        Verdict::Repaired
    };
    // The sum over the tests of how far each output is from the expected one (a run that
    // stops with an error is at least one edit further than its output), and a fingerprint of
    // the outputs and errors (their kinds and places).
    let mut closeness = |candidate: &Program, budget: &Budget| -> Option<Closeness> {
        let mut distance = 0;
        let (mut steps_before_errors, mut errors) = (0, 0);
        let mut outputs = std::collections::hash_map::DefaultHasher::new();
        for t in &order {
            let (_, run) = run_test(candidate, entry, t, compare, &limits_for(t, &limits), &budget.cancel);
            if budget.stop_reason().is_some()
                || run.error.as_ref().is_some_and(|e| e.kind == RuntimeErrorKind::Cancelled)
            {
                return None;
            }
            let actual = String::from_utf8_lossy(&run.output);
            let d =
                output_distance(compare, &t.expected, t.expected_prompt, &actual, Some(run.output_before_last_read));
            distance += d + u64::from(run.error.is_some());
            run.output.hash(&mut outputs);
            // Where it stops too: a change that moves the failure elsewhere (the first of two
            // missing string terminators added, the read of the second now failing) is a step.
            run.error.as_ref().map(|e| (e.kind, e.span)).hash(&mut outputs);
            if run.error.is_some() {
                steps_before_errors += run.steps;
                errors += 1;
            }
        }
        Some(Closeness { distance, outputs: outputs.finish(), steps_before_errors, errors })
    };
    let printed_tests: Vec<output_text::Test> = tests.iter().map(PreparedTest::for_output_text).collect();
    let mut text_fix = |candidate: &Program, src: &str, budget: &Budget| -> Option<Vec<Change>> {
        let fix = output_text::repair(candidate, src, entry, &printed_tests, compare, &limits, &budget.cancel)?;
        fix.edits
            .into_iter()
            .map(|edit| {
                let place = fix.places.iter().find(|p| p.span.touches(edit.span))?;
                Some(Change::of_text(candidate, edit, place.clone()))
            })
            .collect()
    };
    let results: Vec<TestResult> =
        tests.iter().map(|t| TestResult { input: t.input.clone(), passed: t.passed }).collect();
    let guidance = Guidance { closeness: &mut closeness, text_fix: &mut text_fix };
    against_tests::run(program, text, engine_opts, &results, &mut passes_all, Some(guidance), budget, on_repair)
}
