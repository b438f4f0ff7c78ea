//! The reference as the spec. First the verified engine (Verifix, `engines::verified`): the
//! minimal patch proved equivalent for all inputs, or "equivalent as written". When it cannot
//! (structural mismatch, unsupported construct, no repair in its space, budget), the mutation
//! engine on the product program of the student's program and the instructor's (see
//! `smt::product`): every minimal mutation repair that makes the values agree on all runs
//! within the bound, each then re-verified inductively by the verified engine and upgraded to
//! `verified` when that proves it. A difference in the printed values becomes a diagnostic
//! with the input that shows it and both outputs.

use std::time::Instant;

use crate::cancel::Cancel;
use crate::engines::mutation::engine::{self, FoundRepair, Options};
use crate::engines::mutation::search::Outcome;
use crate::engines::verified;
use crate::ir::{Diagnostic, Program};
use crate::ir::{Guarantee, Place, Span};
use crate::ir::{Repair, apply_edits};
use crate::smt::Budget;
use crate::smt::bmc::{BmcUnknown, BmcVerdict};
use crate::smt::encode::ViolationKind;
use crate::spec::compare;
use crate::spec::compare::Compare;
use crate::spec::interp::{self, Limits};

use super::assertions::{no_fix_message, push_repair, stream};
use super::{OnPartial, PreparedTest, Report, shorten, unset};
use verified::VerifiedRepair;

/// What a proof against the reference establishes, in the compare mode's words.
pub(super) fn same_output(compare: Compare) -> &'static str {
    match compare {
        Compare::Exact => "prints exactly what the reference prints",
        Compare::Whitespace => "prints what the reference prints, up to spacing",
        Compare::Values => "prints the same values as the reference",
    }
}

/// "Your program prints … for every input (verified)".
fn equivalent(anchor: Span, compare: Compare) -> Diagnostic {
    Diagnostic::info("equivalent", anchor, format!("your program {} for every input (verified)", same_output(compare)))
}

/// The solver's difference did not show when both programs ran: its stricter model of output
/// made it up (`smt::output`), or the input is one the reference itself does not run to its
/// end on (a read that fails, a value never given), which is outside what the reference
/// specifies. Nothing is proved either way.
fn no_difference_found(compare: Compare, m: &Mismatch) -> String {
    if !m.reference_ran {
        // The input is the solver's, often bytes no student would type: not shown.
        return format!(
            "mend could not prove that your program {} for every input: the only difference it found is on an input on which the reference itself does not run to its end",
            same_output(compare)
        );
    }
    format!(
        "mend found no input where your program differs from the reference, but could not prove that it {} for every input",
        same_output(compare)
    )
}

/// How much of the verified repair a student sees (`hintLevel`): where the bug is, then the
/// input that exposes it, then the patch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum HintLevel {
    Location,
    Input,
    #[default]
    Fix,
}

impl HintLevel {
    pub fn parse(s: &str) -> Option<HintLevel> {
        match s {
            "location" => Some(HintLevel::Location),
            "input" => Some(HintLevel::Input),
            "fix" => Some(HintLevel::Fix),
            _ => None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub fn repair_against_reference(
    program: &Program,
    text: &str,
    reference: &Program,
    compare: Compare,
    tests: &[PreparedTest],
    test_inputs: &[String],
    hint: HintLevel,
    engine_opts: &Options,
    max_steps: u64,
    deadline: Instant,
    cancel: &Cancel,
    report: &mut Report,
    on_partial: OnPartial<'_>,
) -> super::anytime::Anytime {
    let entry = engine_opts.entry.as_str();
    let anchor = program.name_span_of(entry);
    let printed: Vec<String> = test_inputs
        .iter()
        .map(|input| {
            let run = interp::run(reference, entry, input.as_bytes(), &oracle_limits(), cancel);
            String::from_utf8_lossy(&run.output).into_owned()
        })
        .collect();
    let precondition = verified::precondition::infer(test_inputs, &printed, reference, entry);
    let verified_opts = verified::Options {
        entry: entry.to_string(),
        compare,
        precondition,
        floats: verified::FloatModel::Ieee,
        candidates: None,
        line_in_input: engine_opts.line_in_input,
        start_values: Vec::new(),
    };
    // Both at once, one a core: the search for a fix that passes the tests, proved in place
    // (`check::anytime`), and the verified engine. The first fix shown is whichever comes
    // first; the search publishes its own (merged onto the report so far). At the hint levels
    // that do not show fixes, only the verified engine runs (it locates the bug).
    let left = deadline.saturating_duration_since(Instant::now());
    let vbudget = Budget::new(left * 2 / 3, cancel.clone());
    let stop = cancel.child();
    let base = report.clone();
    let searching = hint >= HintLevel::Fix && tests.iter().any(|t| !t.passed);
    // The verified engine's candidates go to the search's thread, which tries them on the
    // tests while the proofs run; the channel closes when the engine returns.
    let (to_search, engine_candidates) = std::sync::mpsc::channel();
    let mut engine_opts_v = verified_opts.clone();
    // Only the engine's own run on the student's text starts from the start values: the
    // proofs of patched texts below have their own spans.
    if tests.iter().any(|t| !t.passed) {
        let inits = unset::initialisations(text, &[], entry, tests, compare, max_steps, cancel).unwrap_or_default();
        engine_opts_v.start_values = inits.into_iter().map(|i| start_value(text, i)).collect();
    }
    if searching {
        engine_opts_v.candidates = Some(verified::Candidates::new(to_search, text));
    }
    let (v, mut anytime, found) = std::thread::scope(|s| {
        let search = searching.then(|| {
            let (base, verified_opts, stop) = (&base, &verified_opts, &stop);
            std::thread::Builder::new()
                .name("mend-anytime".into())
                // The analysis thread's stack: lowering and the encodings recurse on the tree.
                .stack_size(super::job::ANALYSIS_STACK)
                .spawn_scoped(s, move || {
                    crate::spec::interp::declare_run_stack();
                    let job = super::anytime::Job {
                        program,
                        text,
                        reference,
                        compare,
                        tests,
                        verified_opts,
                        engine_opts,
                        max_steps,
                        deadline,
                        cancel: stop,
                        engine_candidates: std::sync::Mutex::new(engine_candidates),
                    };
                    let mut found = Report::default();
                    let merged = |own: &Report| on_partial(&super::anytime::merged(base, own));
                    let anytime = job.run(&mut found, &merged);
                    (anytime, found)
                })
                .expect("a thread for the search on the tests")
        });
        let v = verified::repair(program, text, reference, &engine_opts_v, &vbudget);
        drop(engine_opts_v);
        // A verdict of the verified engine makes the search's candidate moot.
        if !matches!(v.outcome, verified::Outcome::Failed(_)) {
            stop.cancel();
        }
        let (anytime, found) = match search.map(|h| h.join()) {
            Some(Ok(done)) => done,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Default::default(),
        };
        (v, anytime, found)
    });
    report.stats.add_phase("verified engine", v.time.as_secs_f64() * 1000.0);
    for (phase, ms) in &found.stats.phases {
        report.stats.add_phase(phase, *ms);
    }
    if matches!(v.outcome, verified::Outcome::Failed(_)) {
        // The verified engine found nothing: the search's candidate (and its notes) stand.
        report.repairs.extend(found.repairs);
        report.diagnostics.extend(found.diagnostics);
    } else {
        // Its verdict supersedes a candidate that passes only the tests, and what the search
        // learned before it was stopped (how far it got depends on timing) is not used: the
        // rest of the analysis does not depend on the race.
        anytime = super::anytime::Anytime::default();
    }
    if anytime.settled() {
        report.stats.reference = Some("tested fix proved");
        return anytime;
    }
    report.stats.repair_ms += v.time.as_secs_f64() * 1000.0;
    // What the verified engine could not reason about, when it could not compare at all: the
    // bounded comparison below is then the only one that ran, and says so itself.
    let verified_unsupported = match &v.outcome {
        verified::Outcome::Failed(verified::Failure::Unsupported(u)) => Some(u.what.clone()),
        _ => None,
    };
    // Where the verified engine could not match the reference, for a message that ends with
    // no fix: the student learns where to look.
    let unmatched = match &v.outcome {
        // A place ("in `main` before its first loop"), not the kind of repair missing ("that
        // fits inside your own functions", after inlining).
        verified::Outcome::Failed(verified::Failure::NoRepair(region)) if region.starts_with("in ") => {
            Some(region.clone())
        }
        _ => None,
    };
    let unset =
        UnsetLocals { program, text, tests, compare, max_steps, reference, opts: &verified_opts, deadline, cancel };
    match v.outcome {
        verified::Outcome::Equivalent
            if hint >= HintLevel::Fix
                && let Some(r) = unset.as_written() =>
        {
            report.stats.reference = Some("repaired");
            push_verified(report, text, &r, hint, v.time.as_millis(), compare);
            return anytime;
        }
        verified::Outcome::Equivalent => {
            report.stats.reference = Some("equivalent");
            report.diagnostics.push(equivalent(anchor, compare));
            anytime.as_written = Some(Guarantee::Verified);
            return anytime;
        }
        verified::Outcome::EquivalentAssuming(assumption) => {
            report.stats.reference = Some("equivalent under the precondition");
            report.diagnostics.push(Diagnostic::info(
                "equivalent-assuming",
                anchor,
                format!(
                    "your program {} for every input where {assumption} (verified); mend proved nothing about other inputs",
                    same_output(compare)
                ),
            ));
            anytime.as_written = Some(Guarantee::VerifiedAssuming { assumption, bound: None });
            return anytime;
        }
        verified::Outcome::Repaired(r) => {
            report.stats.reference = Some("repaired");
            if report.stats.first_repair_ms.is_none() {
                report.stats.first_repair_ms = Some(v.found_after.unwrap_or(v.time).as_secs_f64() * 1000.0);
            }
            match difference(program, reference, compare, entry, engine_opts, deadline, cancel, report) {
                Difference::Input(m) if hint >= HintLevel::Input => {
                    report.diagnostics.push(Diagnostic::warning("reference-mismatch", anchor, m.shown()))
                }
                Difference::NoneProved(proved) => {
                    report.stats.reference = Some("equivalent");
                    report.diagnostics.push(proved_equal(anchor, compare, &proved));
                    anytime.as_written = Some(proved);
                    return anytime;
                }
                Difference::NotShown(m) => {
                    // Every test passes and no input shows a difference: the engine's "repair"
                    // answers the solver's stricter model, not a bug of the student's.
                    report.stats.reference = Some("difference not shown");
                    report.diagnostics.push(Diagnostic::info("unknown", anchor, no_difference_found(compare, &m)));
                    return anytime;
                }
                _ => {}
            }
            if hint >= HintLevel::Fix
                && r.changes.len() >= PLACES_BEFORE_A_MOVE
                && let Some(moved) = one_move_instead(
                    program,
                    text,
                    reference,
                    tests,
                    compare,
                    max_steps,
                    &verified_opts,
                    deadline,
                    cancel,
                )
            {
                push_repair(report, &moved, anchor, &format!("it {}", same_output(compare)));
                return anytime;
            }
            let r = unset.complete(r);
            push_verified(report, text, &r, hint, v.found_after.unwrap_or(v.time).as_millis(), compare);
            // A smaller patch that relies on the assignment's promise about the input, offered
            // after the one for all inputs.
            if let Some(small) = v.smaller_assuming
                && hint >= HintLevel::Fix
            {
                push_verified_fix(report, &unset.complete(small), v.time.as_millis(), compare);
            }
            return anytime;
        }
        verified::Outcome::Failed(f) => {
            report.stats.reference = Some(f.category());
            report.stats.reference_failure = Some(f.describe());
            report.stats.timed_out |= matches!(f, verified::Failure::Timeout) && !cancel.is_cancelled();
            report.diagnostics.push(match &anytime.candidate {
                // Found over the reals: what is missing is the proof with rounding (the engine's
                // own failure on the student's program says nothing more useful).
                Some((_, guarantee @ Guarantee::OverReals { .. })) => Diagnostic::info(
                    "proof-unfinished",
                    anchor,
                    format!(
                        "the fix shown {}; mend could not prove it with the rounding of `float` and `double`",
                        shown_fix_words(guarantee)
                    ),
                ),
                // The fix on screen stands unproved: say so in one sentence, with each proof
                // that stopped and why.
                Some((_, guarantee)) => Diagnostic::info(
                    "proof-unfinished",
                    anchor,
                    format!(
                        "the fix shown {}; mend could not prove a fix for every input: {}{}",
                        shown_fix_words(guarantee),
                        failure_words(&f),
                        match (&anytime.bounded_stopped, guarantee, &f) {
                            (Some((bound, BmcUnknown::Solver(_))), Guarantee::Tested { .. }, _) => {
                                format!("; its check on runs of up to {bound} loop iterations ran out of time")
                            }
                            // Said once when both stopped at a construct.
                            (Some((bound, BmcUnknown::Unsupported(u))), Guarantee::Tested { .. }, f)
                                if !matches!(f, verified::Failure::Unsupported(_)) =>
                                format!(
                                    "; its check on runs of up to {bound} loop iterations cannot reason about {}",
                                    u.what
                                ),
                            _ => String::new(),
                        }
                    ),
                ),
                None => {
                    // When nothing shows a bug and the engine could not compare the programs at
                    // all, "no fix found" would suggest there is one to find.
                    let unsupported = matches!(f, verified::Failure::Unsupported(_));
                    let lead = if unsupported && !a_test_fails(report) {
                        "mend could not compare your program with the reference for every input"
                    } else {
                        "mend found no fix proved for every input"
                    };
                    // A construct the engine skipped is no intermediate note: it stays beside
                    // whatever the bounded search concludes, so the skip is never silent.
                    let code = if unsupported { "not-compared" } else { "no-verified-repair" };
                    Diagnostic::info(code, anchor, format!("{lead}: {}", failure_words(&f)))
                }
            });
        }
    }
    if cancel.is_cancelled() {
        return anytime;
    }
    // The fix on screen is proved on runs as long as the bounded search below checks, and the
    // verified engine could not prove it for all inputs: that search would look in the same
    // space for a fix of the same strength. (A proof the anytime phase had to shorten, on a
    // busy machine, is not: the search may prove a fix at the full bound.)
    if let Some((_, Guarantee::Bounded { bound })) = &anytime.candidate
        && bound.loops >= engine_opts.bound
    {
        return anytime;
    }
    // The search on the tests explored the whole space in vain: every repair of the bounded
    // search below would have to pass the tests' inputs too, so it cannot find one.
    if anytime.exhausted {
        let mut why = no_fix_message(
            Some(&Outcome::Exhausted { sizes_explored: engine_opts.max_size }),
            engine_opts.max_size,
            "makes your program print what the reference prints",
        );
        if let Some(region) = unmatched {
            why += &format!("; the first difference it could not fix is {region}");
        }
        report.diagnostics.push(Diagnostic::info("no-repair", anchor, why));
        return anytime;
    }
    let counterexamples = &anytime.counterexamples;
    let opts = Options { reference: Some(reference.clone()), compare, ..engine_opts.clone() };
    let budget = Budget::new(deadline.saturating_duration_since(Instant::now()), cancel.clone());
    let mut found: Vec<FoundRepair> = Vec::new();
    let so_far = report.clone();
    let mut refuted = 0;
    // The reference's outputs on the tests' inputs: run once, when the first bounded repair comes.
    let mut oracle: Option<Vec<PreparedTest>> = None;
    let t = Instant::now();
    let original = crate::smt::bmc::verify_against_assuming(
        program,
        reference,
        compare,
        entry,
        opts.bound,
        opts.assumptions(),
        &budget,
    );
    // A difference no run shows, of two printed NaNs: proved on the inputs where the reference
    // prints none, there is nothing to repair.
    if let BmcVerdict::Violated(cex) = &original.verdict
        && cex.kind == ViolationKind::OutputMismatch
        && !a_test_fails(report)
        && !mismatch(program, reference, compare, entry, &cex.stdin, cancel).confirmed
        && let Some(guarantee) = proved_where_no_nan(
            program,
            reference,
            compare,
            entry,
            opts.bound,
            opts.assumptions(),
            verified_opts.precondition.as_ref(),
            // A slice: the search below still gets its time when this does not finish.
            &Budget::new(budget.remaining() / 4, cancel.clone()),
        )
    {
        report.stats.phase("bounded product search", t);
        if let Guarantee::VerifiedAssuming { assumption, bound } = &guarantee {
            let runs = bound.map_or("for every input".to_string(), |b| {
                format!("on every run with at most {} (longer runs were not checked)", b.words())
            });
            report.diagnostics.push(Diagnostic::info(
                "equivalent-assuming",
                anchor,
                format!("your program {} {runs} where {assumption}", same_output(compare)),
            ));
        }
        report.stats.reference = Some("equivalent under the precondition");
        anytime.as_written = Some(guarantee);
        return anytime;
    }
    let result = engine::run_from(program, text, &opts, &budget, original, t, &mut |r| {
        if matches!(r.guarantee, Guarantee::Bounded { .. })
            && differs_on_a_test_input(
                &apply_edits(text, &r.edits()),
                entry,
                compare,
                oracle.get_or_insert_with(|| {
                    let mut oracle = reference_outputs(reference, entry, test_inputs, cancel);
                    oracle.extend(counterexamples.iter().cloned());
                    oracle
                }),
                |_| oracle_limits(),
                cancel,
            )
        {
            refuted += 1;
            return false;
        }
        found.push(r.clone());
        stream(&so_far, &found, anchor, &format!("it {}", same_output(compare)), on_partial);
        true
    });
    report.stats.phase("bounded product search", t);
    tracing::debug!(verdict = ?result.original.verdict, outcome = ?result.outcome, "the program as written against the reference");
    report.stats.repair_ms += result.total_time.as_secs_f64() * 1000.0;
    if report.stats.first_repair_ms.is_none() {
        report.stats.first_repair_ms = found.first().map(|r| r.found_after.as_secs_f64() * 1000.0);
    }
    let b = opts.bound;
    // The bounded search compared the programs where the verified engine could not: its
    // "not compared" note would be wrong, and its reason joins the bounded search's.
    // The verified engine's own "could not compare" note, taken back where the bounded
    // search's sentence says it instead: what it could not reason about.
    let verified_skip = |report: &mut Report| {
        let what = verified_unsupported.as_ref()?;
        report.diagnostics.retain(|d| !(d.code == "not-compared" && d.span == anchor));
        Some(what)
    };
    let compared_anyway = |report: &mut Report| {
        verified_skip(report)
            .map_or(String::new(), |what| format!(", and it cannot reason about {what} for every input yet"))
    };
    // A difference the solver found that does not show when both programs run is no bug to fix.
    let mut unconfirmed = false;
    match &result.original.verdict {
        BmcVerdict::Holds { .. } => {
            let guarantee = result.original.guarantee(b).expect("a proof");
            let mut proved = proved_equal(anchor, compare, &guarantee);
            // Why the proof stops at the bound, in the same sentence.
            if let Some(what) = verified_skip(report) {
                proved.message += &format!(", as mend cannot reason about {what} for every input yet");
            }
            report.diagnostics.push(proved);
            anytime.as_written = Some(guarantee);
        }
        BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => report.diagnostics.push(Diagnostic::info(
            "not-compared",
            u.span,
            format!("not compared with the reference: {}", super::unsupported_words(u)),
        )),
        BmcVerdict::Unknown(BmcUnknown::Solver(reason)) => {
            let also = compared_anyway(report);
            report.diagnostics.push(Diagnostic::info(
                "unknown",
                anchor,
                format!(
                    "mend could not finish comparing your program with the reference on runs of up to {b} loop iterations ({}){also}; it claims nothing about it",
                    super::undecided_words(reason)
                ),
            ))
        }
        // A failing test already shows the difference, with an input the student chose.
        BmcVerdict::Violated(cex) if cex.kind == ViolationKind::OutputMismatch && !a_test_fails(report) => {
            let m = mismatch(program, reference, compare, entry, &cex.stdin, cancel);
            unconfirmed = !m.confirmed;
            let shown = if m.confirmed {
                Diagnostic::warning("reference-mismatch", anchor, m.shown())
            } else {
                // The solver's model of output is stricter than the compare mode (`smt::output`):
                // its difference did not show when both programs ran.
                let also = compared_anyway(report);
                Diagnostic::info("unknown", anchor, format!("{}{also}", no_difference_found(compare, &m)))
            };
            report.diagnostics.push(shown);
        }
        // A runtime error of the student's program (a null dereference, an index out of
        // bounds) that no test shows: the run that shows it, where the interpreter confirms it.
        BmcVerdict::Violated(cex)
            if cex.kind != ViolationKind::OutputMismatch
                && cex.replay == crate::smt::bmc::Replay::Confirmed
                && !report.diagnostics.iter().any(|d| d.code == "runtime-error" || d.code == "assertion") =>
        {
            report.diagnostics.push(super::assertions::violation(program, entry, cex, "runtime-error", cancel));
        }
        // Shown already by a test or the assertion check, or not confirmed by a run.
        BmcVerdict::Violated(_) => {}
    }
    if refuted > 0 {
        tracing::debug!(
            refuted,
            "bounded repairs dropped: they agree with the reference within the bound, not on a test's input"
        );
    }
    if found.is_empty() && matches!(result.original.verdict, BmcVerdict::Violated(_)) && !unconfirmed {
        let why = no_fix_message(
            result.outcome.as_ref(),
            opts.max_size,
            "makes your program print what the reference prints",
        );
        report.diagnostics.push(Diagnostic::info("no-repair", anchor, why));
    }
    let t = Instant::now();
    for repair in &mut found {
        if matches!(repair.guarantee, Guarantee::Bounded { .. })
            && proves_equivalent(
                text,
                repair,
                reference,
                &verified::Options { precondition: None, ..verified_opts.clone() },
                deadline,
                cancel,
            )
        {
            repair.guarantee = Guarantee::Verified;
        }
        push_repair(report, repair, anchor, &format!("it {}", same_output(compare)));
    }
    report.stats.phase("proofs of bounded repairs", t);
    anytime
}

/// What the fix on screen is known to do, for the note that its proof did not finish.
fn shown_fix_words(guarantee: &Guarantee) -> String {
    match guarantee {
        Guarantee::Bounded { bound } => format!("is proved for runs of up to {}", bound.words()),
        Guarantee::VerifiedAssuming { .. } => format!("is proved for {}", guarantee.assumed_runs().unwrap_or_default()),
        Guarantee::OverReals { tests } => {
            format!("passes all {tests} tests and is proved over the reals (rounding not checked)")
        }
        // "passes all 4 tests"
        _ => guarantee.label(),
    }
}

/// `program`, whose bounded product with the reference showed a difference that no run
/// shows, proved on the inputs where the reference prints no `nan` (when the tests promise
/// that, `precondition`): two printed NaNs are never known to print alike
/// ([`crate::smt::encode::EncodeOptions::reference_prints_no_nan`]). The guarantee names the
/// promise and the bound.
#[allow(clippy::too_many_arguments)]
pub(super) fn proved_where_no_nan(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    bound: u32,
    assume: crate::smt::bmc::Assumptions,
    precondition: Option<&verified::precondition::Precondition>,
    budget: &Budget,
) -> Option<Guarantee> {
    let assumption = precondition?.no_nan_words()?;
    let assume = crate::smt::bmc::Assumptions { reference_prints_no_nan: true, ..assume };
    let r = crate::smt::bmc::verify_against_assuming(program, reference, compare, entry, bound, assume, budget);
    tracing::debug!(verdict = ?r.verdict, "the bounded product where the reference prints no NaN");
    let complete = r.proved_for_all_runs()?;
    Some(
        Guarantee::VerifiedAssuming { assumption, bound: (!complete).then_some(r.bound(bound)) }
            .assuming_also(r.assumption()),
    )
}

/// The program as written proved to print what the reference prints, in the words of what
/// was proved: for every input, on runs up to the bound, or for the inputs an assumption
/// admits.
fn proved_equal(anchor: Span, compare: Compare, proved: &Guarantee) -> Diagnostic {
    let same = same_output(compare);
    match proved {
        Guarantee::Bounded { bound } => Diagnostic::info(
            "equivalent-bounded",
            anchor,
            format!("your program {same} on every run with at most {}; longer runs were not checked", bound.words()),
        ),
        Guarantee::VerifiedAssuming { .. } => Diagnostic::info(
            "equivalent-assuming",
            anchor,
            format!(
                "your program {same} on all {} (proved); mend proved nothing about other inputs",
                proved.assumed_runs().unwrap_or_default()
            ),
        ),
        _ => equivalent(anchor, compare),
    }
}

/// Whether a test of the spec fails: its input then shows the student the difference.
fn a_test_fails(report: &Report) -> bool {
    report.tests.iter().any(|t| !t.passed)
}

/// Why the verified engine found no repair, in the student's words.
fn failure_words(f: &verified::Failure) -> String {
    use verified::Failure;
    match f {
        Failure::StructuralMismatch(s) => format!("your program is organised differently from the reference ({s})"),
        Failure::Unsupported(u) => {
            format!("mend cannot reason about {} yet (a limit of mend, not a mistake in your code)", u.what)
        }
        Failure::Timeout => "mend ran out of time".into(),
        Failure::SolverUnknown(_) => "mend could not decide".into(),
        Failure::NoRepair(region) => {
            format!("no small change of your expressions makes it match the reference {region}")
        }
        Failure::Internal => "an internal error stopped it".into(),
    }
}

/// The reference's run on each of the tests' inputs, as tests whose expected output it is;
/// an input the reference cannot run is outside the specification and left out.
pub(super) fn reference_outputs(
    reference: &Program,
    entry: &str,
    inputs: &[String],
    cancel: &Cancel,
) -> Vec<PreparedTest> {
    inputs
        .iter()
        .filter_map(|input| {
            let run = interp::run(reference, entry, input.as_bytes(), &oracle_limits(), cancel);
            (run.error.is_none() && !run.assume_failed).then(|| PreparedTest {
                input: input.clone(),
                expected: String::from_utf8_lossy(&run.output).into_owned(),
                expected_prompt: Some(run.output_before_last_read),
                reference_steps: Some(run.steps),
                passed: true,
            })
        })
        .collect()
}

pub(super) fn oracle_limits() -> Limits {
    Limits { max_steps: 5_000_000, ..Limits::default() }
}

/// Whether the repaired program (its text) fails one of `tests` (the reference's outputs on
/// the tests' inputs, [`reference_outputs`]), run by the interpreter, bounded in steps. A
/// bounded proof compares only runs on which both programs finish within the bound, so a
/// repair whose loop never ends within it (`n / 10` → `n * 10`) passes vacuously; the tests'
/// inputs, run to the end, catch it. Each test runs within `limits_of(test)`.
pub(super) fn differs_on_a_test_input(
    repaired: &str,
    entry: &str,
    compare: Compare,
    tests: &[PreparedTest],
    limits_of: impl Fn(&PreparedTest) -> Limits,
    cancel: &Cancel,
) -> bool {
    if tests.is_empty() {
        return false;
    }
    let Some(program) = crate::syntax::lower::lower_without_errors(repaired) else { return true };
    tests
        .iter()
        .any(|t| !super::run_test(&program, entry, t, compare, &limits_of(t), cancel).0 && !cancel.is_cancelled())
}

/// Beyond Verifix: a bounded repair of the product program is re-verified inductively (the
/// verified engine on the repaired text must find it equivalent as written) and, if so, is
/// offered as `verified`.
/// The fewest places of a verified repair that make [`one_move_instead`] look for one moved
/// statement that does the same.
const PLACES_BEFORE_A_MOVE: usize = 3;
/// Moves [`one_move_instead`] runs on the tests at most.
const MOVES_TRIED: usize = 40;
/// The verified engine's proof of one move gets at most this, and a quarter of the time left.
const MOVE_PROOF_SLICE: std::time::Duration = std::time::Duration::from_secs(5);
/// All of [`one_move_instead`] gets at most this, and a third of the time left: the verified
/// repair it may replace waits for it.
const MOVES_SLICE: std::time::Duration = std::time::Duration::from_secs(10);

/// One moved statement that does what a verified repair spread over several places does:
/// an `else if` chain written from the bottom gets `s >= 60` → `s >= 90`, `'D'` → `'A'`, …
/// at seven places from the verified engine, where the student made one slip, the order of
/// the tests. The statement repairs' moves and deletions (their first tier: a statement
/// moved across a loop, a chain reordered, an `else` deleted) are run on every test, and
/// the first that passes them and that the verified engine proves equivalent as written is
/// the repair: one change the student recognises, one message. Tried in the statement
/// repairs' order, each proof to its end or its slice (never a race with a timing).
#[allow(clippy::too_many_arguments)]
fn one_move_instead(
    program: &Program,
    text: &str,
    reference: &Program,
    tests: &[PreparedTest],
    compare: Compare,
    max_steps: u64,
    opts: &verified::Options,
    deadline: Instant,
    cancel: &Cancel,
) -> Option<FoundRepair> {
    let started = Instant::now();
    let deadline = deadline.min(started + (deadline.saturating_duration_since(started) / 3).min(MOVES_SLICE));
    let frozen = std::collections::HashSet::new();
    let scope = engine::FunctionScopes::new(program);
    let moves =
        crate::engines::mutation::statements::candidates(program, text, &frozen, &scope, Some(reference), &|_| 0.0);
    let limits = Limits { max_steps, ..Limits::default() };
    for candidate in moves.into_iter().filter(|c| c.tier == 0).take(MOVES_TRIED) {
        if cancel.is_cancelled() || Instant::now() >= deadline {
            return None;
        }
        let found =
            FoundRepair { changes: candidate.changes, guarantee: Guarantee::Verified, found_after: started.elapsed() };
        let Some(patched) = crate::syntax::lower::lower_without_errors(&apply_edits(text, &found.edits())) else {
            continue;
        };
        if !tests.iter().all(|t| super::run_test(&patched, &opts.entry, t, compare, &limits, cancel).0) {
            continue;
        }
        let slice = (deadline.saturating_duration_since(Instant::now()) / 4).min(MOVE_PROOF_SLICE);
        if proves_equivalent(text, &found, reference, opts, Instant::now() + slice, cancel) {
            return Some(FoundRepair { found_after: started.elapsed(), ..found });
        }
    }
    None
}

fn proves_equivalent(
    text: &str,
    repair: &FoundRepair,
    reference: &Program,
    opts: &verified::Options,
    deadline: Instant,
    cancel: &Cancel,
) -> bool {
    proved_as_written(text, &repair.edits(), reference, opts, deadline, cancel) == Some(None)
}

/// What giving a value to each local a repaired program's test runs read unset needs
/// ([`unset`]): the student's program and text, the tests, and the reference and options to
/// prove the whole patch again with.
struct UnsetLocals<'a> {
    program: &'a Program,
    text: &'a str,
    tests: &'a [PreparedTest],
    compare: Compare,
    max_steps: u64,
    reference: &'a Program,
    opts: &'a verified::Options,
    deadline: Instant,
    cancel: &'a Cancel,
}

impl UnsetLocals<'_> {
    /// `r` with a value for each local that its runs on the tests read before giving it one,
    /// when the whole is proved again; else `r` as it is (the gate withdraws it). The start
    /// values the engine began from (`r`'s changes in words) are kept only where the rest of
    /// the repair still reads the local unset: a bound fixed so that the loop no longer reads
    /// past the input needs no value for what it read there.
    fn complete(&self, r: VerifiedRepair) -> VerifiedRepair {
        let (own, starts): (Vec<_>, Vec<_>) =
            r.changes.iter().cloned().zip(r.edits.iter().cloned()).partition(|(c, _)| !c.is_start_value());
        let own_edits: Vec<_> = own.iter().map(|(_, e)| e.clone()).collect();
        // Not known which locals the rest reads unset: the repair stays as proved.
        let Some(inits) = unset::initialisations(
            self.text,
            &own_edits,
            &self.opts.entry,
            self.tests,
            self.compare,
            self.max_steps,
            self.cancel,
        ) else {
            return r;
        };
        let needed: Vec<_> = inits.into_iter().map(|i| start_value(self.text, i)).collect();
        // Nothing to add, and nothing the engine started from to drop.
        if needed.iter().all(|(_, e)| starts.iter().any(|(_, s)| s == e)) && needed.len() == starts.len() {
            return r;
        }
        let (changes, edits): (Vec<_>, Vec<_>) = own.into_iter().chain(needed).unzip();
        match proved_as_written(self.text, &edits, self.reference, self.opts, self.deadline, self.cancel) {
            Some(assuming) if assuming.is_none() || assuming == r.assuming => {
                let relative_patch_size = verified::patch_size(self.program, self.text, &edits);
                VerifiedRepair { edits, changes, assuming, relative_patch_size }
            }
            _ => r,
        }
    }

    /// For a program the verified engine proved equivalent as written, whose runs on the
    /// tests read a local before giving it a value: the values, as a repair proved again.
    fn as_written(&self) -> Option<VerifiedRepair> {
        // The tests ran on it already: a run that passed read nothing unset.
        if self.tests.iter().all(|t| t.passed) {
            return None;
        }
        let none = VerifiedRepair { edits: Vec::new(), changes: Vec::new(), relative_patch_size: 0.0, assuming: None };
        let whole = self.complete(none);
        (!whole.edits.is_empty()).then_some(whole)
    }
}

/// A local's start value as a change of the verified engine's, and its edit of `text`.
fn start_value(text: &str, i: unset::Initialisation) -> (verified::Change, crate::ir::TextEdit) {
    let change = verified::Change {
        span: i.name,
        old: text.get(i.name.range()).unwrap_or_default().to_string(),
        new: i.declarator,
        region: "where it is declared".into(),
        words: Some(i.words),
    };
    (change, i.edit)
}

/// Whether the verified engine proves `text` patched by `edits` equivalent to the reference
/// as written: `Some(None)` for all inputs, `Some(Some(assumption))` under the precondition.
fn proved_as_written(
    text: &str,
    edits: &[crate::ir::TextEdit],
    reference: &Program,
    opts: &verified::Options,
    deadline: Instant,
    cancel: &Cancel,
) -> Option<Option<String>> {
    let patched = apply_edits(text, edits);
    let program = crate::syntax::lower::lower_without_errors(&patched)?;
    let budget = Budget::new(deadline.saturating_duration_since(Instant::now()), cancel.clone());
    match verified::repair(&program, &patched, reference, opts, &budget).outcome {
        verified::Outcome::Equivalent => Some(None),
        verified::Outcome::EquivalentAssuming(a) => Some(Some(a)),
        _ => None,
    }
}

/// What backs the claim that the student's program differs from the reference, before a
/// verified repair says "differs": the verified engine's counterexamples live in the solver's
/// model of output, which is stricter than the compare mode (`smt::output`), so a program
/// that prints the same can still get a "repair".
enum Difference {
    /// A test fails.
    Test,
    /// The bounded product found an input, and both programs run on it print differently.
    Input(Mismatch),
    /// The bounded product proved them equal for every input (every loop fully unwound), or
    /// every input with a line break where it assumed one: the guarantee says which.
    NoneProved(Guarantee),
    /// The bounded product's only difference did not show when both programs ran.
    NotShown(Mismatch),
    /// Not known (the bounded check ran out of time, or cannot compare these programs).
    Unknown,
}

#[allow(clippy::too_many_arguments)]
fn difference(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    opts: &Options,
    deadline: Instant,
    cancel: &Cancel,
    report: &Report,
) -> Difference {
    if a_test_fails(report) {
        return Difference::Test;
    }
    let left = deadline.saturating_duration_since(Instant::now());
    let budget = Budget::new(left.min(std::time::Duration::from_secs(3)), cancel.clone());
    let r = crate::smt::bmc::verify_against_assuming(
        program,
        reference,
        compare,
        entry,
        opts.bound,
        opts.assumptions(),
        &budget,
    );
    match r.verdict {
        BmcVerdict::Violated(cex) if cex.kind == ViolationKind::OutputMismatch => {
            let m = mismatch(program, reference, compare, entry, &cex.stdin, cancel);
            if m.confirmed { Difference::Input(m) } else { Difference::NotShown(m) }
        }
        BmcVerdict::Holds { complete: true } => Difference::NoneProved(r.guarantee(opts.bound).expect("a proof")),
        _ => Difference::Unknown,
    }
}

/// An input on which two programs print different things, as the student reads it.
pub(super) struct Mismatch {
    pub input: String,
    pub yours: String,
    /// Your run ended with this error (after printing `yours`).
    pub yours_error: Option<String>,
    pub theirs: String,
    /// The two programs, run in the interpreter, print differently on it (a solver's
    /// counterexample may not: its model of output is stricter than the compare mode).
    pub confirmed: bool,
    /// The reference's run ended without an error or a failed assumption (one that runs past
    /// the interpreter's limits did not): where it did not, the input is outside the
    /// specification rather than a difference.
    pub reference_ran: bool,
}

impl Mismatch {
    fn shown(&self) -> String {
        format!(
            "for input `{}` {}, the reference prints `{}`",
            self.input,
            self.what_yours_does("you print"),
            self.theirs
        )
    }

    /// What your program does on the input: `print` its output (after `verb`), or stop with
    /// its error.
    pub fn what_yours_does(&self, verb: &str) -> String {
        match &self.yours_error {
            Some(e) => format!("your program does not finish ({e})"),
            None => format!("{verb} `{}`", self.yours),
        }
    }
}

/// The solver's input `stdin` made readable, and what each program prints on it.
pub(super) fn mismatch(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    stdin: &str,
    cancel: &Cancel,
) -> Mismatch {
    // The solver's input, made readable: each number as simple as it can be while the two
    // programs still print different values on it (judged on short runs).
    let quick = Limits { max_steps: super::counterexample::CANDIDATE_STEPS, ..Limits::default() };
    // A run of yours that stops with an error (a loop that never ends included) where the
    // reference's ends is a difference too.
    let differ = |yours: &interp::RunResult, theirs: &interp::RunResult| {
        theirs.error.is_none()
            && !theirs.assume_failed
            && yours.error.as_ref().is_none_or(|e| e.kind != interp::RuntimeErrorKind::Cancelled)
            && (yours.error.is_some()
                || !compare::output_matches(
                    compare,
                    &String::from_utf8_lossy(&theirs.output),
                    Some(theirs.output_before_last_read),
                    &String::from_utf8_lossy(&yours.output),
                    Some(yours.output_before_last_read),
                ))
    };
    let differs = |input: &str| {
        let yours = interp::run(program, entry, input.as_bytes(), &quick, cancel);
        let theirs = interp::run(reference, entry, input.as_bytes(), &quick, cancel);
        differ(&yours, &theirs)
    };
    let stdin = &super::counterexample::simplest_input(stdin, &differs, cancel);
    let limits = Limits { max_steps: 5_000_000, ..Limits::default() };
    let yours = interp::run(program, entry, stdin.as_bytes(), &limits, cancel);
    let theirs = interp::run(reference, entry, stdin.as_bytes(), &limits, cancel);
    let confirmed = differ(&yours, &theirs);
    let show = |r: &interp::RunResult| {
        let out = String::from_utf8_lossy(&r.output);
        // `values` compares the values after the last read; the other modes the whole output,
        // spaces included (kept visible).
        match compare {
            Compare::Values => compare::tail(&out, Some(r.output_before_last_read)).trim().to_string(),
            _ => out.into_owned(),
        }
    };
    let yours_error = yours.error.as_ref().map(|e| e.message.clone());
    let reference_ran = theirs.error.is_none() && !theirs.assume_failed;
    let (theirs, yours) = super::outputs_shown(&show(&theirs), &show(&yours));
    Mismatch { input: super::input_shown(stdin), yours, yours_error, theirs, confirmed, reference_ran }
}

/// A verified repair as diagnostics (one per change, worded by the hint level) and, at level
/// `fix`, one quick fix that applies the whole patch. Its explanation (the `explanation` of
/// the repair in `mend check`'s JSON) gives Verifix's relative patch size: the exact tree edit
/// distance between the student's and the repaired program over the student's AST size
/// (`ir::ted`).
/// One warning per line the repair changes (a loop's header is one slip, not three), at its
/// first change; the line's other changes are its related information. An added statement
/// is a slip of its own.
fn push_verified(
    report: &mut Report,
    text: &str,
    r: &verified::VerifiedRepair,
    hint: HintLevel,
    ms: u128,
    compare: Compare,
) {
    // Changes grouped by (line, `None` for an added statement: never grouped).
    let mut lines: Vec<(Option<usize>, Vec<&verified::Change>)> = Vec::new();
    for c in &r.changes {
        let line =
            (!c.old.is_empty()).then(|| text.get(..c.span.start as usize).map_or(0, |t| t.matches('\n').count()));
        match lines.iter_mut().find(|(l, _)| line.is_some() && *l == line) {
            Some((_, group)) => group.push(c),
            None => lines.push((line, vec![c])),
        }
    }
    for (_, group) in lines {
        let c = group[0];
        let where_ = if group.iter().all(|x| x.region == c.region) { c.region.as_str() } else { "on this line" };
        let message = match hint {
            // A local given a value: no difference from the reference, a read of nothing.
            HintLevel::Fix if c.words.is_some() => {
                format!("`{}` is read before it is given a value: give it one here: `{}`", c.old, c.new)
            }
            _ if c.words.is_some() => format!("`{}` is read before it is given a value", c.old),
            HintLevel::Fix => format!(
                "differs from the reference {where_}: {}",
                group.iter().map(|x| describe(x)).collect::<Vec<_>>().join("; ")
            ),
            _ if c.old.is_empty() => format!("something is missing here: the reference does more {}", c.region),
            _ => format!("this differs from what the reference computes {}", c.region),
        };
        let mut d = Diagnostic::warning("verified-repair", c.span, message);
        for x in &group[1..] {
            d = d.with_related(x.span, format!("also this part of the line, {}", x.region));
        }
        report.diagnostics.push(d);
    }
    if hint >= HintLevel::Fix {
        push_verified_fix(report, r, ms, compare);
    }
}

pub(super) fn describe(c: &verified::Change) -> String {
    if let Some(words) = &c.words {
        words.clone()
    } else if c.old.is_empty() {
        format!("add `{}`", c.new)
    } else if c.new.is_empty() {
        format!("delete `{}`", shorten(&c.old))
    } else {
        format!("`{}` → `{}`", shorten(&c.old), c.new)
    }
}

/// The quick fix of a verified repair (and its hint diagnostic) that applies the whole patch.
fn push_verified_fix(report: &mut Report, r: &verified::VerifiedRepair, ms: u128, compare: Compare) {
    let guarantee = match &r.assuming {
        None => Guarantee::Verified,
        Some(a) => Guarantee::VerifiedAssuming { assumption: a.clone(), bound: None },
    };
    push_verified_fix_at(report, r, &guarantee, ms, compare, "proved edge by edge");
}

/// The quick fix of a repair the verified engine found, at `guarantee`: what its own proof
/// gives, or less for a repair found over the reals or a candidate its proof has not finished
/// (`tested` until it is proved in IEEE); `found` says how, for the details.
pub(super) fn push_verified_fix_at(
    report: &mut Report,
    r: &verified::VerifiedRepair,
    guarantee: &Guarantee,
    ms: u128,
    compare: Compare,
    found: &str,
) {
    let Some(first) = r.changes.first().map(|c| c.span) else { return };
    let mut parts: Vec<String> = r.changes.iter().take(3).map(describe).collect();
    if r.changes.len() > 3 {
        parts.push(format!("and {} more", r.changes.len() - 3));
    }
    let label = guarantee.label();
    let places = format!("Changes {} place{}", r.changes.len(), if r.changes.len() == 1 { "" } else { "s" });
    let explanation = match guarantee {
        Guarantee::Verified => {
            format!("{places} so that the program {} for all inputs (proved).", same_output(compare))
        }
        Guarantee::VerifiedAssuming { .. } => format!(
            "{places} so that the program {} for all {} (proved).",
            same_output(compare),
            guarantee.assumed_runs().unwrap_or_default()
        ),
        Guarantee::Bounded { bound } => format!(
            "{places} so that the program {} on every run with at most {} (proved).",
            same_output(compare),
            bound.words()
        ),
        Guarantee::OverReals { tests } => format!(
            "{places} so that the program {} for all inputs when `float` and `double` compute exactly (proved over the real numbers; rounding not checked), and all {tests} tests pass.",
            same_output(compare)
        ),
        Guarantee::Tested { tests } => format!("{places} so that all {tests} tests pass."),
        Guarantee::Syntax | Guarantee::WellTyped => format!("{places}."),
    };
    let how = if guarantee.is_proof() { "proved edge by edge" } else { found };
    report.repairs.push(Repair {
        reached: Vec::new(),
        title: format!("Fix ({label}): {}", parts.join("; ")),
        engine: "verified",
        guarantee: guarantee.clone(),
        edits: r.edits.clone(),
        places: r.changes.iter().map(|c| Place { span: c.span, change: describe(c) }).collect(),
        explanation,
        details: format!("{how}; relative patch size {:.2}; found in {ms} ms", r.relative_patch_size),
        fixes: vec![first],
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE: &str = "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); while (n >= 10) { printf(\"%d\\n\", n % 10); n = n / 10; } printf(\"%d\\n\", n); return 0; }\n";

    fn differs(repaired: &str) -> bool {
        let reference = crate::syntax::lower::lower_source(REFERENCE).program;
        let inputs: Vec<String> = ["7\n", "1234\n", "987654321\n"].iter().map(|s| s.to_string()).collect();
        let tests = reference_outputs(&reference, "main", &inputs, &Cancel::new());
        assert_eq!(tests.len(), 3);
        differs_on_a_test_input(repaired, "main", Compare::Values, &tests, |_| oracle_limits(), &Cancel::new())
    }

    #[test]
    fn a_repair_that_agrees_only_within_the_bound_is_caught_on_the_tests_inputs() {
        // `n / 10` → `n * 10`: no run ends within any bound unless n < 10, so a bounded
        // product check compares nothing else and passes; the interpreter runs it to the end.
        assert!(differs(&REFERENCE.replace("n = n / 10", "n = n * 10")));
        // Nine digits: agrees on every run of at most 5 iterations, not on the third input.
        assert!(differs(&REFERENCE.replace("while (n >= 10)", "while (n >= 10 && n < 100000)")));
    }

    #[test]
    fn a_difference_where_the_reference_cannot_run_is_not_called_no_difference() {
        // The reference's read fails on `x` and it prints a number it never got: the input is
        // outside what it specifies, and neither "differs" nor "found no difference" is true.
        let reference = crate::syntax::lower::lower_source(REFERENCE).program;
        let student = crate::syntax::lower::lower_source(
            "#include <stdio.h>\nint main(void) { int c = getchar(); printf(\"%d\\n\", c); return 0; }\n",
        )
        .program;
        let m = mismatch(&student, &reference, Compare::Exact, "main", "x", &Cancel::new());
        assert!(!m.confirmed && !m.reference_ran);
        let said = no_difference_found(Compare::Exact, &m);
        assert!(said.contains("the reference itself does not run to its end"), "{said}");
        assert!(!said.contains("found no input"), "{said}");
        // On an input both run, the difference shows.
        assert!(mismatch(&student, &reference, Compare::Exact, "main", "7", &Cancel::new()).confirmed);
    }

    #[test]
    fn the_same_values_through_other_prompts_pass() {
        assert!(!differs(REFERENCE));
        assert!(!differs(&REFERENCE.replace("int n; scanf", "int n; printf(\"Number? \"); scanf")));
        // Nothing to run on: nothing refuted.
        assert!(!differs_on_a_test_input(
            &REFERENCE.replace("n % 10", "n"),
            "main",
            Compare::Values,
            &[],
            |_| oracle_limits(),
            &Cancel::new()
        ));
    }
}
