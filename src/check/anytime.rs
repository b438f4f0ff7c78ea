//! Anytime repair against a reference: a fix on screen as soon as one passes every test, its
//! proof when it comes.
//!
//! 1. The search: the mutation engine's repair space with the reference's expressions renamed
//!    into the student's variables first (`engines::mutation::reference_space`), smallest
//!    repair first, each candidate run on the tests in the interpreter (those the program
//!    fails first, locations ordered by the failing tests' spectrum). The first candidate that
//!    passes every test is published at once, `tested`.
//! 2. The proof of that very patch: the bounded product with the reference (`bounded`, or
//!    `verified` when no run can exceed the bound), then the verified engine on the patched
//!    text (`verified` when it is equivalent as written). Each upgrade is published in place:
//!    the same edits, the same places, a stronger guarantee (`check::levels` records when).
//! 3. A candidate the bounded check refutes is withdrawn with a note that shows the input on
//!    which it differs from the reference; that input, with the reference's output, joins the
//!    tests and the search goes on.
//!    When the search has explored its whole space and some counterexamples are unlike every
//!    test (a count of 0 where the tests' counts are 3 to 5), it searches again without those,
//!    passing over the candidates withdrawn on an input like the tests' (those withdrawn on
//!    one with more lines than every test are tried again: only this search rules such inputs
//!    out, [`LinesConjecture`]): a fix for the inputs like the tests' is
//!    proved under the conjectures about them ("for inputs where the number read is at least
//!    1, as in all 3 tests"), never for all inputs.
//! 4. When the search finds no fix and a program computes with `float` or `double`, the
//!    verified engine over the real numbers (`smt::floats`) proposes one. It is shown only if
//!    it passes every test and counterexample, and is proved in IEEE as in 2 and 3 (the reals
//!    are not the program's arithmetic).
//!
//! The caller runs this beside the verified engine, one a core, and the rest of the reference
//! pipeline only when neither proved a fix for every input; it gives the counterexamples to
//! the later searches so that none of them offers a refuted patch again.

use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::engines::mutation::engine::{FoundRepair, Options};
use crate::engines::mutation::search::Outcome;
use crate::engines::verified::{
    self,
    precondition::{LinesConjecture, RangeConjecture, SignedZeroConjecture, TextConjecture, as_in_all_tests},
};
use crate::ir::{Diagnostic, Guarantee, Program, TextEdit, apply_edits};
use crate::smt::Budget;
use crate::smt::bmc::{self, BmcUnknown, BmcVerdict};
use crate::smt::solver::UnknownReason;
use crate::spec::compare::Compare;

use super::assertions::push_repair;
use super::{OnPartial, PreparedTest, Report};

/// Refuted candidates after which the search stops offering new ones (each refutation costs a
/// bounded check; the later searches still use every counterexample).
const ROUNDS: usize = 3;
/// The search for a candidate gets at most this, and a quarter of the time left.
const SEARCH_SLICE: Duration = Duration::from_secs(10);
/// The bounded check of a candidate gets at most this, and a quarter of the time left.
const BOUNDED_SLICE: Duration = Duration::from_secs(5);
/// The first bound a fix is proved at when the configured one is larger (see
/// [`Job::prove_shown`]).
const FIRST_BOUND: u32 = 2;
/// The verified engine on the patched text gets at most this, and a third of the time left.
const VERIFIED_SLICE: Duration = Duration::from_secs(15);
/// The verified engine over the reals gets at most this, and a third of the time left.
const REALS_SLICE: Duration = Duration::from_secs(10);
/// Inputs varied from the tests' that a repair found over the reals must also pass.
const VARIATIONS: usize = 12;
/// Proofs under the conjectures about the input at most, each after a counterexample
/// narrowed them ([`Job::within`]).
const RANGE_ROUNDS: usize = 5;

/// What the anytime phase leaves for the rest of the pipeline.
#[derive(Default)]
pub(super) struct Anytime {
    /// The candidate on screen and its guarantee (`None`: no candidate, or all refuted).
    pub candidate: Option<(Vec<TextEdit>, Guarantee)>,
    /// Inputs on which a withdrawn candidate differs from the reference, with the reference's
    /// output: tests for every later search.
    pub counterexamples: Vec<PreparedTest>,
    /// The search explored its whole space (every repair up to the size limit) and no repair
    /// passes the tests and the counterexamples: a later search of the same space against the
    /// reference cannot find one either (its repairs must pass the tests' inputs).
    pub exhausted: bool,
    /// The bound at which the bounded check of the candidate on screen stopped without a
    /// verdict, and why, for the message that says it is unproved.
    pub bounded_stopped: Option<(u32, BmcUnknown)>,
    /// The program as written proved to print what the reference prints: the guarantee
    /// (set by [`super::reference_repair::repair_against_reference`], not by the search).
    pub as_written: Option<Guarantee>,
    /// A candidate of the verified engine shown as `tested`, to prove if the engine returns
    /// with no verdict.
    engine_candidate: Option<Proposal>,
    /// The candidates withdrawn, with the input that refuted each: passed over by the search
    /// for the inputs like the tests' where that input is like them.
    withdrawn: Vec<(Vec<TextEdit>, String)>,
    /// The engine's candidates received so far, for every call of
    /// [`Job::show_an_engine_candidate`] (a part sends again only when its candidate changes).
    engine_parts: EngineParts,
}

/// Each part's newest candidate, keyed by (`assuming`, part) ([`verified::PartCandidate`]),
/// and the whole-program candidates already tried on the tests.
#[derive(Default)]
struct EngineParts {
    newest: std::collections::BTreeMap<(bool, String), Vec<(verified::Change, TextEdit)>>,
    tried: Vec<Vec<TextEdit>>,
}

impl EngineParts {
    /// The next whole-program candidate not yet tried, the attempt for all inputs first: the
    /// union of its parts' newest changes in text order, each edit once (the parts of a
    /// retyped copy all carry its type changes). `None` when the union overlaps itself (parts
    /// of two runs on different copies): not a patch.
    fn next_untried(&mut self) -> Option<(bool, Vec<(verified::Change, TextEdit)>)> {
        for assuming in [false, true] {
            let mut whole: Vec<(verified::Change, TextEdit)> = Vec::new();
            for ((a, _), changes) in &self.newest {
                for c in changes.iter().filter(|_| *a == assuming) {
                    if !whole.iter().any(|(_, e)| *e == c.1) {
                        whole.push(c.clone());
                    }
                }
            }
            whole.sort_by_key(|(_, e)| (e.span.start, e.span.end));
            let overlaps = whole.windows(2).any(|w| w[0].1.span.end > w[1].1.span.start);
            let edits: Vec<TextEdit> = whole.iter().map(|(_, e)| e.clone()).collect();
            if whole.is_empty() || overlaps || self.tried.contains(&edits) {
                continue;
            }
            self.tried.push(edits);
            return Some((assuming, whole));
        }
        None
    }
}

impl Anytime {
    /// The candidate is proved for every input: nothing stronger is left to find.
    pub fn settled(&self) -> bool {
        matches!(self.candidate, Some((_, Guarantee::Verified)))
    }
}

/// The report so far with what the search has found (its fix, its notes), for a partial
/// report published while the verified engine still runs.
pub(super) fn merged(base: &Report, found: &Report) -> Report {
    let mut out = base.clone();
    out.repairs.extend(found.repairs.iter().cloned());
    out.diagnostics.extend(found.diagnostics.iter().cloned());
    out
}

/// What the anytime phase works with: the student's program, the reference and the tests.
pub(super) struct Job<'a> {
    pub program: &'a Program,
    pub text: &'a str,
    pub reference: &'a Program,
    pub compare: Compare,
    pub tests: &'a [PreparedTest],
    pub verified_opts: &'a verified::Options,
    pub engine_opts: &'a Options,
    pub max_steps: u64,
    pub deadline: Instant,
    pub cancel: &'a Cancel,
    /// The verified engine's candidates as its CEGIS picks them ([`verified::Candidates`]).
    /// (In a mutex only so that the job can be shared with the thread over the reals.)
    pub engine_candidates: std::sync::Mutex<std::sync::mpsc::Receiver<verified::PartCandidate>>,
}

impl Job<'_> {
    fn candidates(&self) -> std::sync::MutexGuard<'_, std::sync::mpsc::Receiver<verified::PartCandidate>> {
        self.engine_candidates.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Runs the search and the proofs (see the module doc), publishing through `on_partial`.
    pub fn run(&self, report: &mut Report, on_partial: OnPartial<'_>) -> Anytime {
        let born = Instant::now();
        let mut out = Anytime::default();
        if self.tests.iter().all(|t| t.passed) {
            return out;
        }
        // What earlier analyses against this reference learned (an earlier version of this
        // file, another student's): the search starts with those inputs as tests.
        let key = learned::key(self.reference, self.compare, &self.engine_opts.entry);
        out.counterexamples = learned::get(key);
        let known = out.counterexamples.len();
        let varied = if self.beyond_the_bounded_check() { self.varied_inputs() } else { Vec::new() };
        let mut reals_tried = false;
        // After the rounds of the search for every input, as many for the inputs like the tests'
        // once that search is exhausted.
        for round in 0..2 * ROUNDS {
            if self.cancel.is_cancelled() || self.left().is_zero() || (round >= ROUNDS && !out.exhausted) {
                break;
            }
            let mut proposal = None;
            if !out.exhausted {
                let t = Instant::now();
                let found = self.first_passing(&out.counterexamples, &varied);
                report.stats.phase("first tested fix", t);
                tracing::debug!(
                    outcome = ?found.outcome,
                    found = ?found.repair.as_ref().map(|r| r.edits()),
                    ms = t.elapsed().as_millis() as u64,
                    tests = self.tests.len() + out.counterexamples.len() + varied.len(),
                    "the search on the tests"
                );
                out.exhausted = matches!(found.outcome, Some(Outcome::Exhausted { .. } | Outcome::Complete));
                proposal = found.repair.map(Proposal::Mutation);
            }
            // No fix for every input the counterexamples show: one for the inputs like the
            // tests' may exist (a count of 0 where every test has at least 3, and the student's
            // loop relies on one number read before it). Searched without the counterexamples
            // unlike the tests; what it finds is proved under the conjectures they broke.
            if proposal.is_none() && out.exhausted && !self.cancel.is_cancelled() {
                let conjectures = self.tests_conjectures(self.program, true);
                let like_tests: Vec<PreparedTest> =
                    out.counterexamples.iter().filter(|c| !conjectures.rule_out(&c.input)).cloned().collect();
                if like_tests.len() < out.counterexamples.len() {
                    let refuted: Vec<Vec<TextEdit>> = (out.withdrawn.iter())
                        .filter(|(_, input)| !conjectures.rule_out(input))
                        .map(|(edits, _)| edits.clone())
                        .collect();
                    let t = Instant::now();
                    let found = self.first_passing_but(&like_tests, &varied, &refuted);
                    report.stats.phase("first tested fix", t);
                    tracing::debug!(
                        found = ?found.repair.as_ref().map(|r| r.edits()),
                        left_out = out.counterexamples.len() - like_tests.len(),
                        "the search on the tests and the counterexamples like them"
                    );
                    proposal = found.repair.map(Proposal::Mutation);
                }
            }
            // No fix of the mutation space passes the tests: with floating point, the verified
            // engine over the reals (fast where IEEE proofs are slow) proposes one. Meanwhile
            // the verified engine's own candidates are tried on the tests (step 5): the first
            // of the two shown stops the other.
            if proposal.is_none() && !reals_tried && self.uses_floats() {
                reals_tried = true;
                let t = Instant::now();
                let counterexamples = out.counterexamples.clone();
                let stop_reals = self.cancel.child();
                let reals = std::thread::scope(|s| {
                    let reals = std::thread::Builder::new()
                        .name("mend-reals".into())
                        .stack_size(super::job::ANALYSIS_STACK)
                        .spawn_scoped(s, || {
                            crate::spec::interp::declare_run_stack();
                            self.over_the_reals(&counterexamples, &stop_reals)
                        });
                    match reals {
                        Ok(handle) => {
                            self.show_an_engine_candidate(born, report, &mut out, on_partial, &|| handle.is_finished());
                            if out.candidate.is_some() {
                                stop_reals.cancel();
                            }
                            handle.join().ok().flatten()
                        }
                        Err(_) => self.over_the_reals(&counterexamples, &stop_reals),
                    }
                });
                report.stats.phase("repair over the reals", t);
                if out.candidate.is_some() {
                    break;
                }
                proposal = reals.map(|repair| Proposal::Verified {
                    repair,
                    found: "found over the real numbers",
                    guarantee: Guarantee::OverReals { tests: self.tests.len() as u32 },
                    found_ms: t.elapsed().as_millis(),
                });
            }
            let Some(proposal) = proposal else { break };
            match self.try_proposal(report, proposal, &mut out, on_partial) {
                Trial::Withdrawn => continue,
                Trial::Stands(candidate) => out.candidate = Some(candidate),
            }
            break;
        }
        if out.candidate.is_none() {
            self.show_an_engine_candidate(born, report, &mut out, on_partial, &|| false);
        }
        // Drained, so the engine never waits on a full channel; once it returns with no
        // verdict (a verdict cancels this thread), the candidate it left on screen is proved
        // like any other.
        loop {
            match self.candidates().recv_timeout(Duration::from_millis(50)) {
                Ok(_) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !self.cancel.is_cancelled() => continue,
                _ => break,
            }
        }
        if let Some(proposal) = out.engine_candidate.take()
            && !self.cancel.is_cancelled()
            && let Trial::Withdrawn = self.prove_shown(report, proposal, &mut out, on_partial)
        {
            out.candidate = None;
        }
        learned::add(key, &out.counterexamples[known..]);
        out
    }

    /// Nothing shown yet: while the verified engine searches, each whole-program candidate it
    /// picks runs on the tests (and the counterexamples learned), and the first that passes
    /// them all is shown as `tested`. The engine's proof, when it comes, is of that same
    /// patch (then the fix shown is upgraded) or of a larger one that replaces it. Ends when
    /// the engine returns (the channel closes), the analysis is cancelled or `until()`.
    fn show_an_engine_candidate(
        &self,
        born: Instant,
        report: &mut Report,
        out: &mut Anytime,
        on_partial: OnPartial<'_>,
        until: &dyn Fn() -> bool,
    ) {
        use std::sync::mpsc::RecvTimeoutError;
        let entry = self.engine_opts.entry.as_str();
        let started = Instant::now();
        let limits = crate::spec::interp::Limits {
            max_steps: self.max_steps.min(super::tests_repair::CANDIDATE_STEPS),
            ..Default::default()
        };
        // Each part's newest candidate (the engine refuted the ones before it); together, the
        // whole program's. The parts of the attempt under the input precondition make a
        // candidate of their own, tried on the tests and counterexamples the precondition admits.
        let precondition = self.verified_opts.precondition.as_ref();
        // The engine's threads need the cores more than this one: after a trial that took `t`,
        // the next waits `2t` (at most a third of a core for the trials). Once the engine has
        // returned (the channel is closed), what it sent last is still tried.
        let mut next_trial = Instant::now();
        while !self.cancel.is_cancelled() && !until() {
            let closed = {
                let candidates = self.candidates();
                match candidates.recv_timeout(Duration::from_millis(50)) {
                    Ok(first) => {
                        for c in std::iter::once(first).chain(candidates.try_iter()) {
                            out.engine_parts.newest.insert((c.assuming, c.part), c.changes);
                        }
                        false
                    }
                    Err(RecvTimeoutError::Timeout) => false,
                    Err(RecvTimeoutError::Disconnected) => true,
                }
            };
            if !closed && Instant::now() < next_trial {
                continue;
            }
            let Some((assuming, whole)) = out.engine_parts.next_untried() else {
                if closed {
                    return;
                }
                continue;
            };
            let (changes, edits): (Vec<verified::Change>, Vec<TextEdit>) = whole.into_iter().unzip();
            let assumption = precondition.filter(|_| assuming);
            let tests: Vec<PreparedTest> = self
                .tests
                .iter()
                .chain(&out.counterexamples)
                .filter(|t| assumption.is_none_or(|pre| pre.admits(&t.input)))
                .cloned()
                .collect();
            // Nothing to run it on: not `tested`.
            if tests.is_empty() {
                continue;
            }
            let trial = Instant::now();
            let fails = super::reference_repair::differs_on_a_test_input(
                &apply_edits(self.text, &edits),
                entry,
                self.compare,
                &tests,
                |t| super::tests_repair::limits_for(t, &limits),
                self.cancel,
            );
            next_trial = Instant::now() + trial.elapsed() * 2;
            if fails || self.cancel.is_cancelled() {
                continue;
            }
            let repair = verified::VerifiedRepair {
                relative_patch_size: verified::patch_size(self.program, self.text, &edits),
                edits,
                changes,
                // Marks a candidate for the inputs the precondition admits: an input it does
                // not admit refutes nothing ([`Job::prove_shown`]).
                assuming: assumption.map(|pre| pre.description.clone()),
            };
            let guarantee = Guarantee::Tested { tests: self.tests.len() as u32 };
            let proposal = Proposal::Verified {
                repair,
                found: "a candidate of the verified engine, run on the tests",
                guarantee: guarantee.clone(),
                found_ms: born.elapsed().as_millis(),
            };
            self.push(report, &proposal);
            on_partial(report);
            report.stats.phase("engine candidates tried on the tests", started);
            out.candidate = Some((proposal.edits(), guarantee));
            out.engine_candidate = Some(proposal);
            return;
        }
    }

    /// Shows `proposal` (it passes every test), then proves it in place; a proposal the
    /// bounded check refutes is withdrawn with a note and its counterexample kept.
    fn try_proposal(
        &self,
        report: &mut Report,
        proposal: Proposal,
        out: &mut Anytime,
        on_partial: OnPartial<'_>,
    ) -> Trial {
        self.push(report, &proposal);
        on_partial(report);
        self.prove_shown(report, proposal, out, on_partial)
    }

    /// A fix the bounded check refuted on `input`, proved again for the inputs like the tests'
    /// as far as the counterexamples need: inputs whose numbers lie in the tests' ranges
    /// ([`RangeConjecture`]), that hold only the kinds of character the tests hold
    /// ([`TextConjecture`]), with no `-0` where no test has one ([`SignedZeroConjecture`]),
    /// with as many lines as every test's ([`LinesConjecture`]), each narrowed by the
    /// counterexamples that fall outside it. The guarantee under the conjectures so narrowed,
    /// or the counterexample that is like the tests in every respect (the refutation stands),
    /// or no proof within the rounds.
    /// `exhausted`: the search for a fix for every input the counterexamples show found none.
    fn within_tested_inputs(&self, student: &Program, input: &str, exhausted: bool, report: &mut Report) -> Within {
        self.within(self.tests_conjectures(student, exhausted), student, input, report)
    }

    /// What the tests' inputs have in common, as [`Job::within_tested_inputs`] assumes it of
    /// `student`'s proof. Inputs with more lines than the tests' are ruled out only once the
    /// search for every input is `exhausted`: a fix that reads to the end of the input where
    /// the tests hold one line passes them, and the one that also stops at the line's end
    /// (`c != '\n' && c != EOF`) is usually in the same search.
    fn tests_conjectures(&self, student: &Program, exhausted: bool) -> Conjectures {
        let entry = self.engine_opts.entry.as_str();
        let inputs: Vec<String> = self.tests.iter().map(|t| t.input.clone()).collect();
        // The kinds of character only where the proof reads the input as characters (every
        // byte then bears the assumption; a proof over tokens would spend its rounds on it).
        let text = crate::smt::product::reads_chars(student, self.reference).unwrap_or(false);
        Conjectures {
            ranges: RangeConjecture::new(self.reference, entry, &inputs),
            text: TextConjecture::new(&inputs).filter(|_| text),
            zero: SignedZeroConjecture::new(&inputs).filter(|_| self.uses_floats()),
            lines: LinesConjecture::new(&inputs, exhausted).filter(|_| text),
            nan: self
                .verified_opts
                .precondition
                .as_ref()
                .filter(|p| p.no_nan)
                .map(|_| NanConjecture { assumed: false }),
            tests: inputs.len(),
        }
    }

    /// [`Job::within_tested_inputs`] under the conjectures, narrowed by each counterexample.
    fn within(&self, mut conjecture: Conjectures, student: &Program, input: &str, report: &mut Report) -> Within {
        let entry = self.engine_opts.entry.as_str();
        let mut input = input.to_string();
        // As the fix's own proof: the rounds at a small bound (a counterexample or a proof
        // in time), then the proof at the full bound; if that one does not finish, the
        // small bound's stands (and if it refutes, the narrowing goes on at the full bound).
        let full = self.engine_opts.bound;
        let mut bound = full.min(FIRST_BOUND);
        let mut narrowed = conjecture.exclude(&input);
        let mut proved_short: Option<Guarantee> = None;
        for _ in 0..RANGE_ROUNDS {
            if !narrowed {
                return Within::RefutedLikeTheTests(input);
            }
            let Some((assumed, assume)) = conjecture.restrict(self.reference, entry, self.engine_opts.assumptions())
            else {
                return Within::Unproved;
            };
            let budget = Budget::new((self.left() / 4).min(BOUNDED_SLICE), self.cancel.clone());
            let t = Instant::now();
            let verdict = bmc::verify_against_assuming(student, &assumed, self.compare, entry, bound, assume, &budget);
            report.stats.phase("bounded proof of the fix", t);
            tracing::debug!(bound, conjecture = %conjecture.description(), verdict = ?verdict.verdict, "the fix for inputs like the tests'");
            match verdict.verdict {
                BmcVerdict::Holds { complete } => {
                    let assumption = conjecture.description();
                    let proved =
                        Guarantee::VerifiedAssuming { assumption, bound: (!complete).then_some(verdict.bound(bound)) };
                    // Two lines or more hold a line break: the line assumption goes unsaid.
                    let proved = if conjecture.lines.as_ref().is_some_and(|l| l.min_lines() >= 2) {
                        proved
                    } else {
                        proved.assuming_also(verdict.assumption())
                    };
                    if complete || bound == full {
                        return Within::Proved(proved);
                    }
                    proved_short = Some(proved);
                    bound = full;
                }
                BmcVerdict::Violated(cex) => {
                    let m = super::reference_repair::mismatch(
                        student,
                        self.reference,
                        self.compare,
                        entry,
                        &cex.stdin,
                        self.cancel,
                    );
                    // Unconfirmed because the reference cannot run the input either (it runs
                    // past the interpreter's limits) is an input unlike the tests' too.
                    if !m.confirmed && m.reference_ran {
                        // Both print a NaN, whose sign the solver's floats do not know: the
                        // inputs where the reference prints none, as on the tests'.
                        if conjecture.nan.as_mut().is_some_and(|n| n.exclude(&m.theirs)) {
                            continue;
                        }
                        return Within::Unproved;
                    }
                    input = cex.stdin;
                    narrowed = conjecture.exclude(&input);
                    // Refuted on a longer run: what the small bound proved was of conjectures
                    // that do not hold.
                    if bound == full {
                        proved_short = None;
                    }
                }
                // No run is that short under the conjectures (a count of at least 3 beyond 2
                // iterations): only the full bound can say something.
                BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::NoRunWithinBound)) if bound < full => {
                    bound = full;
                }
                BmcVerdict::Unknown(_) => return proved_short.map_or(Within::Unproved, Within::Proved),
            }
        }
        proved_short.map_or(Within::Unproved, Within::Proved)
    }

    /// Proves `proposal`, already shown, in place: see [`Job::try_proposal`].
    fn prove_shown(
        &self,
        report: &mut Report,
        mut proposal: Proposal,
        out: &mut Anytime,
        on_partial: OnPartial<'_>,
    ) -> Trial {
        let entry = self.engine_opts.entry.as_str();
        let anchor = self.program.name_span_of(entry);
        let edits = proposal.edits();
        let patched = apply_edits(self.text, &edits);
        let lowered = crate::syntax::lower::lower_source(&patched);
        if lowered.has_errors() {
            return Trial::Stands((edits, proposal.guarantee().clone()));
        }
        // The bounded check first: it refutes with an input, or bounds the proof. Where the
        // full bound is costly (programs that read commands or words until the input ends),
        // a proof at a small bound comes first, so a fix gets a stated guarantee in time, then
        // the full bound upgrades it.
        let full = self.engine_opts.bound;
        let bounds = if full > FIRST_BOUND { vec![FIRST_BOUND, full] } else { vec![full] };
        let upgrading = bounds.len() > 1;
        for bound in bounds {
            // The upgrade of a fix already shown at the small bound may take half the time
            // left: the bounded search that would run instead (`reference_repair`) checks the
            // same bound, for every candidate.
            let slice = if upgrading && bound == full { self.left() / 2 } else { (self.left() / 4).min(BOUNDED_SLICE) };
            let budget = Budget::new(slice, self.cancel.clone());
            let t = Instant::now();
            let assume = self.engine_opts.assumptions();
            let verdict = bmc::verify_against_assuming(
                &lowered.program,
                self.reference,
                self.compare,
                entry,
                bound,
                assume,
                &budget,
            );
            report.stats.phase("bounded proof of the fix", t);
            tracing::debug!(bound, verdict = ?verdict.verdict, ms = t.elapsed().as_millis() as u64, "the bounded proof of the fix shown");
            match verdict.verdict {
                BmcVerdict::Holds { complete } => {
                    // Verified or bounded, for the inputs with a line break where it assumed one.
                    proposal.set_guarantee(verdict.guarantee(bound).expect("a proof"));
                    if complete {
                        break;
                    }
                    if bound < full {
                        self.upgrade(report, &proposal, on_partial);
                    }
                }
                // A candidate for the inputs the precondition admits, refuted on one it does not:
                // no refutation, and no bound (the proof below may show it under the precondition).
                BmcVerdict::Violated(cex)
                    if proposal.assuming()
                        && self.verified_opts.precondition.as_ref().is_some_and(|p| !p.admits(&cex.stdin)) =>
                {
                    break;
                }
                BmcVerdict::Violated(cex) => {
                    let Some(test) = super::reference_repair::reference_outputs(
                        self.reference,
                        entry,
                        std::slice::from_ref(&cex.stdin),
                        self.cancel,
                    )
                    .pop() else {
                        // The reference cannot run that input (a count near 2^31 runs past
                        // the interpreter's limits): not a counterexample of the specification,
                        // yet the proof failed. Inputs like the tests' are far from it, and a
                        // proof for them may hold; else the candidate stays as tested.
                        if !proposal.assuming()
                            && let Within::Proved(guarantee) =
                                self.within_tested_inputs(&lowered.program, &cex.stdin, out.exhausted, report)
                        {
                            proposal.set_guarantee(guarantee);
                            break;
                        }
                        return Trial::Stands((edits, proposal.guarantee().clone()));
                    };
                    let m = super::reference_repair::mismatch(
                        &lowered.program,
                        self.reference,
                        self.compare,
                        entry,
                        &cex.stdin,
                        self.cancel,
                    );
                    tracing::debug!(bound, input = ?cex.stdin, confirmed = m.confirmed, "the bounded check refutes the fix shown");
                    // Refuted outside the numbers the tests read: proved for their ranges instead.
                    // Refuted on an input like the tests' too: that one is a test for the search
                    // for inputs like the tests' ([`Job::run`]).
                    let mut like_the_tests = None;
                    if m.confirmed && !proposal.assuming() {
                        match self.within_tested_inputs(&lowered.program, &cex.stdin, out.exhausted, report) {
                            Within::Proved(guarantee) => {
                                proposal.set_guarantee(guarantee);
                                break;
                            }
                            Within::RefutedLikeTheTests(input) if input != cex.stdin => like_the_tests = Some(input),
                            _ => {}
                        }
                    }
                    // The solver's output model is stricter than the compare mode: a difference
                    // that does not show when both run is no refutation. Where it is two printed
                    // NaNs, the proof on the inputs where the reference prints none holds.
                    if !m.confirmed
                        && !proposal.assuming()
                        && let Some(guarantee) = super::reference_repair::proved_where_no_nan(
                            &lowered.program,
                            self.reference,
                            self.compare,
                            entry,
                            bound,
                            self.engine_opts.assumptions(),
                            self.verified_opts.precondition.as_ref(),
                            &budget,
                        )
                    {
                        proposal.set_guarantee(guarantee);
                        break;
                    }
                    if m.confirmed {
                        report.repairs.retain(|r| r.edits != edits);
                        report.diagnostics.push(Diagnostic::info(
                        "withdrawn",
                        anchor,
                        format!(
                            "mend withdrew the fix {}: it {}, but with it, for input `{}` {} where the reference prints `{}`",
                            proposal.quoted(),
                            Guarantee::Tested { tests: self.tests.len() as u32 }.label(),
                            m.input,
                            m.what_yours_does("your program would print"),
                            m.theirs
                        ),
                    ));
                        out.withdrawn.push((edits, test.input.clone()));
                        out.counterexamples.push(test);
                        if let Some(input) = like_the_tests {
                            out.counterexamples.extend(super::reference_repair::reference_outputs(
                                self.reference,
                                entry,
                                &[input],
                                self.cancel,
                            ));
                        }
                        on_partial(report);
                        return Trial::Withdrawn;
                    }
                    break;
                }
                BmcVerdict::Unknown(why) => {
                    out.bounded_stopped = Some((bound, why));
                    break;
                }
            }
        }
        self.upgrade(report, &proposal, on_partial);
        if *proposal.guarantee() != Guarantee::Verified {
            let budget = Budget::new((self.left() / 3).min(VERIFIED_SLICE), self.cancel.clone());
            let t = Instant::now();
            let verdict = verified::repair(&lowered.program, &patched, self.reference, self.verified_opts, &budget);
            report.stats.phase("verified proof of the fix", t);
            match verdict.outcome {
                verified::Outcome::Equivalent => proposal.set_guarantee(Guarantee::Verified),
                // Stronger than what the bounded proof gave, or the same assumption without
                // its bound.
                verified::Outcome::EquivalentAssuming(assumption)
                    if proposal.guarantee().strength()
                        < (Guarantee::VerifiedAssuming { assumption: String::new(), bound: None }).strength()
                        || matches!(proposal.guarantee(), Guarantee::VerifiedAssuming { bound: Some(_), .. }) =>
                {
                    proposal.set_guarantee(Guarantee::VerifiedAssuming { assumption, bound: None })
                }
                _ => {}
            }
            self.upgrade(report, &proposal, on_partial);
        }
        Trial::Stands((edits, proposal.guarantee().clone()))
    }

    /// The programs keep structs, pointers to them, `char *` strings or the heap: the bounded
    /// check models them, but often runs out of its slice on them, so it cannot be counted on
    /// to refute a candidate that fits the tests only. Elsewhere a refuted candidate is
    /// withdrawn with the input that shows it.
    fn beyond_the_bounded_check(&self) -> bool {
        let unmodelled = |t: &crate::ir::Type| match t {
            crate::ir::Type::Struct(_) => true,
            crate::ir::Type::Pointer(to) => matches!(**to, crate::ir::Type::Struct(_)) || t.is_char_pointer(),
            _ => false,
        };
        [self.program, self.reference].iter().any(|p| p.vars.iter().any(|v| unmodelled(&v.ty)))
    }

    /// The tests' inputs varied ([`super::counterexample::variations`]) with the reference's
    /// outputs, each marked as the program as written does on it: a candidate of the search
    /// must pass them too, so a fix that fits only the given tests is not shown where the
    /// bounded check cannot refute it ([`Self::beyond_the_bounded_check`]).
    fn varied_inputs(&self) -> Vec<PreparedTest> {
        let inputs: Vec<&str> = self.tests.iter().map(|t| t.input.as_str()).collect();
        let varied = super::counterexample::variations(&inputs, VARIATIONS);
        let entry = self.engine_opts.entry.as_str();
        let limits = crate::spec::interp::Limits { max_steps: self.max_steps, ..Default::default() };
        let mut out = super::reference_repair::reference_outputs(self.reference, entry, &varied, self.cancel);
        for t in &mut out {
            let limits = super::tests_repair::limits_for(t, &limits);
            t.passed = super::run_test(self.program, entry, t, self.compare, &limits, self.cancel).0;
        }
        out
    }

    /// The student's program or the reference computes with `float` or `double`.
    fn uses_floats(&self) -> bool {
        [self.program, self.reference].iter().any(|p| p.vars.iter().any(|v| v.ty.is_float()))
    }

    /// The verified engine's repair with floating point read as real numbers, when it passes
    /// every test, every counterexample and inputs varied from the tests' in the interpreter
    /// (the reals are not the program's arithmetic: its repair is labelled as proved over the
    /// reals, and proved afterwards in IEEE).
    fn over_the_reals(&self, counterexamples: &[PreparedTest], cancel: &Cancel) -> Option<verified::VerifiedRepair> {
        let budget = Budget::new((self.left() / 3).min(REALS_SLICE), cancel.clone());
        let opts =
            verified::Options { floats: verified::FloatModel::Real, precondition: None, ..self.verified_opts.clone() };
        let verified::Outcome::Repaired(r) =
            verified::repair(self.program, self.text, self.reference, &opts, &budget).outcome
        else {
            return None;
        };
        let mut tests: Vec<PreparedTest> = self.tests.to_vec();
        tests.extend(counterexamples.iter().cloned());
        let inputs: Vec<&str> = self.tests.iter().map(|t| t.input.as_str()).collect();
        let varied = super::counterexample::variations(&inputs, VARIATIONS);
        tests.extend(super::reference_repair::reference_outputs(
            self.reference,
            &self.engine_opts.entry,
            &varied,
            cancel,
        ));
        let patched = apply_edits(self.text, &r.edits);
        let fails = super::reference_repair::differs_on_a_test_input(
            &patched,
            &self.engine_opts.entry,
            self.compare,
            &tests,
            |_| super::reference_repair::oracle_limits(),
            cancel,
        );
        (!fails && !cancel.is_cancelled()).then_some(r)
    }

    /// Adds `proposal` to `report`, worded at its guarantee.
    fn push(&self, report: &mut Report, proposal: &Proposal) {
        let anchor = self.program.name_span_of(&self.engine_opts.entry);
        let what = match proposal.guarantee() {
            Guarantee::Tested { tests } => format!("all {tests} tests pass"),
            _ => format!("it {}", super::reference_repair::same_output(self.compare)),
        };
        match proposal {
            Proposal::Mutation(r) => push_repair(report, r, anchor, &what),
            Proposal::Verified { repair, found, guarantee, found_ms } => {
                super::reference_repair::push_verified_fix_at(report, repair, guarantee, *found_ms, self.compare, found)
            }
        }
    }

    /// The first repair of the search that passes every test and every counterexample, the
    /// search stopped there.
    fn first_passing(&self, counterexamples: &[PreparedTest], varied: &[PreparedTest]) -> Searched {
        self.first_passing_but(counterexamples, varied, &[])
    }

    /// [`Job::first_passing`], passing over the repairs `tried` (each refuted, though no
    /// counterexample shows it to the search).
    fn first_passing_but(
        &self,
        counterexamples: &[PreparedTest],
        varied: &[PreparedTest],
        tried: &[Vec<TextEdit>],
    ) -> Searched {
        let stop = self.cancel.child();
        let budget = Budget::new((self.left() / 4).min(SEARCH_SLICE), stop.clone());
        let mut tests: Vec<PreparedTest> = self.tests.to_vec();
        tests.extend(counterexamples.iter().cloned());
        tests.extend(varied.iter().cloned());
        // Several slips only where every counterexample is like the tests: one unlike them (a
        // count of 0 where every test counts 3 or more) would have the beam build a larger
        // patch for inputs the assignment does not promise, where the search for the inputs
        // like the tests' finds a smaller one, proved for those.
        let conjectures = self.tests_conjectures(self.program, true);
        let several = self.engine_opts.several && !counterexamples.iter().any(|c| conjectures.rule_out(&c.input));
        let opts = Options {
            reference: Some(self.reference.clone()),
            compare: self.compare,
            several,
            ..self.engine_opts.clone()
        };
        let mut first = None;
        let report = super::tests_repair::search(
            self.program,
            self.text,
            &tests,
            self.compare,
            &opts,
            self.max_steps,
            &budget,
            &mut |r| {
                if tried.contains(&r.edits()) {
                    return;
                }
                if first.is_none() {
                    first = Some(FoundRepair {
                        guarantee: Guarantee::Tested { tests: self.tests.len() as u32 },
                        ..r.clone()
                    });
                }
                stop.cancel();
            },
        );
        Searched { repair: first, outcome: report.outcome }
    }

    /// `proposal` (found by its edits in `report`) with its new guarantee, worded as at first;
    /// published when the guarantee is new.
    fn upgrade(&self, report: &mut Report, proposal: &Proposal, on_partial: OnPartial<'_>) {
        let edits = proposal.edits();
        let Some(at) = report.repairs.iter().position(|r| r.edits == edits) else { return };
        if report.repairs[at].guarantee == *proposal.guarantee() {
            return;
        }
        let mut upgraded = Report::default();
        self.push(&mut upgraded, proposal);
        report.repairs[at] = upgraded.repairs.remove(0);
        on_partial(report);
    }
}

/// What the tests' inputs suggest the assignment promises, each part narrowed only where a
/// counterexample needs it ([`Job::within_tested_inputs`]): the ranges of the numbers read,
/// the kinds of character the input holds, no `-0`, the number of lines.
#[derive(Clone)]
struct Conjectures {
    ranges: Option<RangeConjecture>,
    text: Option<TextConjecture>,
    zero: Option<SignedZeroConjecture>,
    lines: Option<LinesConjecture>,
    /// Where the reference prints a float on every test and never `nan`.
    nan: Option<NanConjecture>,
    tests: usize,
}

/// The inputs where the reference prints no `nan`, as on every test's: the sign C prints for
/// a NaN (`nan`, `-nan`) depends on how the machine computed it, which the solver's floats
/// (one NaN, no sign) do not say, so a counterexample where both programs print a NaN shows
/// no difference when they run ([`verified::precondition::Precondition::no_nan`]).
#[derive(Clone, Debug)]
struct NanConjecture {
    assumed: bool,
}

impl NanConjecture {
    /// Assumes it for a counterexample on which the reference prints `printed`; `false` when
    /// that holds no `nan` or it is assumed already.
    fn exclude(&mut self, printed: &str) -> bool {
        let narrowed = !self.assumed && crate::spec::compare::prints_nan(printed);
        self.assumed |= narrowed;
        narrowed
    }

    fn conditions(&self) -> Option<String> {
        self.assumed.then(|| "the reference prints no `nan` (not a number)".to_string())
    }
}

impl Conjectures {
    /// The first part that can rules out what it can of `input`, the rarest feature first
    /// (a `-0`, then a number out of the tests' range, then a kind of character): one at a
    /// time, so that a counterexample that is unlike the tests in two respects, only one of
    /// which the fix needs, does not cost the proof the other. `false` when none can: the
    /// counterexample is like the tests in every respect.
    fn exclude(&mut self, input: &str) -> bool {
        self.zero.as_mut().is_some_and(|z| z.exclude(input))
            || self.ranges.as_mut().is_some_and(|r| r.exclude(input))
            || self.lines.as_mut().is_some_and(|l| l.exclude(input))
            || self.text.as_mut().is_some_and(|t| t.exclude(input))
    }

    /// Whether some part would rule `input` out ([`Conjectures::exclude`]), without narrowing:
    /// the input is unlike the tests.
    fn rule_out(&self, input: &str) -> bool {
        self.clone().exclude(input)
    }

    /// "the number read is at least 1 and no number is `-0` (minus zero), as in all 4 tests".
    fn description(&self) -> String {
        let parts: Vec<String> = [
            self.ranges.as_ref().and_then(RangeConjecture::conditions),
            self.lines.as_ref().and_then(LinesConjecture::conditions),
            self.text.as_ref().and_then(TextConjecture::conditions),
            self.zero.as_ref().and_then(SignedZeroConjecture::conditions),
            self.nan.as_ref().and_then(NanConjecture::conditions),
        ]
        .into_iter()
        .flatten()
        .collect();
        as_in_all_tests(&parts, self.tests)
    }

    /// The reference and the assumptions a proof under the conjectures runs with: the
    /// reference stopped outside the ranges, the input's bytes kept from the kinds ruled out,
    /// its floating-point numbers from `-0`.
    fn restrict<'p>(
        &self,
        reference: &'p Program,
        entry: &str,
        assume: bmc::Assumptions,
    ) -> Option<(std::borrow::Cow<'p, Program>, bmc::Assumptions)> {
        let reference = match self.ranges.as_ref().filter(|r| r.conditions().is_some()) {
            Some(r) => std::borrow::Cow::Owned(r.assumed(reference, entry)?),
            None => std::borrow::Cow::Borrowed(reference),
        };
        let assume = bmc::Assumptions {
            absent_chars: assume.absent_chars | self.text.as_ref().map_or(0, TextConjecture::absent_bytes),
            no_negative_zero: assume.no_negative_zero || self.zero.as_ref().is_some_and(SignedZeroConjecture::excluded),
            min_lines: assume.min_lines.max(self.lines.as_ref().map_or(0, LinesConjecture::min_lines)),
            reference_prints_no_nan: assume.reference_prints_no_nan || self.nan.as_ref().is_some_and(|n| n.assumed),
            max_lines: match (assume.max_lines, self.lines.as_ref().and_then(LinesConjecture::max_lines)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            ..assume
        };
        Some((reference, assume))
    }
}

/// How a proof for the inputs like the tests' ended ([`Job::within_tested_inputs`]).
enum Within {
    Proved(Guarantee),
    /// Refuted on this input, like the tests' in every respect the conjectures know.
    RefutedLikeTheTests(String),
    /// No proof within the rounds or the time.
    Unproved,
}

/// A fix on trial: found by the search on the tests (the mutation space), or by the verified
/// engine over the reals. Its guarantee rises as it is proved.
enum Proposal {
    Mutation(FoundRepair),
    /// `found`: how, for the details until it is proved (over the reals, or a candidate of the
    /// engine's proof search).
    Verified {
        repair: verified::VerifiedRepair,
        found: &'static str,
        guarantee: Guarantee,
        found_ms: u128,
    },
}

/// How a proposal's trial ended.
enum Trial {
    /// Refuted by the bounded check: withdrawn with a note, its input kept as a test.
    Withdrawn,
    /// Shown, with its edits and the strongest guarantee proved.
    Stands((Vec<TextEdit>, Guarantee)),
}

impl Proposal {
    fn edits(&self) -> Vec<TextEdit> {
        match self {
            Proposal::Mutation(r) => r.edits(),
            Proposal::Verified { repair, .. } => repair.edits.clone(),
        }
    }

    fn guarantee(&self) -> &Guarantee {
        match self {
            Proposal::Mutation(r) => &r.guarantee,
            Proposal::Verified { guarantee, .. } => guarantee,
        }
    }

    /// A candidate for the inputs the input precondition admits ([`verified::VerifiedRepair::assuming`]).
    fn assuming(&self) -> bool {
        matches!(self, Proposal::Verified { repair, .. } if repair.assuming.is_some())
    }

    fn set_guarantee(&mut self, guarantee: Guarantee) {
        match self {
            Proposal::Mutation(r) => r.guarantee = guarantee,
            Proposal::Verified { guarantee: g, .. } => *g = guarantee,
        }
    }

    /// The changes as the student reads them, for the withdrawal note.
    fn quoted(&self) -> String {
        match self {
            Proposal::Mutation(r) => r.changes_in_words(),
            Proposal::Verified { repair, .. } => {
                let what: Vec<String> = repair.changes.iter().map(super::reference_repair::describe).collect();
                what.join("; ")
            }
        }
    }
}

/// Counterexamples learned against each reference, kept for the life of the process (the
/// server analyses every version of a file, and every file of an assignment, against the same
/// reference): each is an input with the reference's output on it, a fact about the
/// specification whoever's program it refuted.
mod learned {
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::Mutex;

    use crate::ir::Program;
    use crate::spec::compare::Compare;

    use super::PreparedTest;

    /// Inputs kept per reference (the oldest dropped first); each costs one run per candidate.
    const PER_REFERENCE: usize = 16;
    /// References remembered (all of them forgotten past this: a server serves a few courses).
    const REFERENCES: usize = 64;

    static LEARNED: Mutex<Option<HashMap<u64, Vec<PreparedTest>>>> = Mutex::new(None);

    /// The reference as printed from its IR, the compare mode and the entry point.
    pub fn key(reference: &Program, compare: Compare, entry: &str) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        crate::ir::print::program_to_c(reference).hash(&mut h);
        format!("{compare:?}").hash(&mut h);
        entry.hash(&mut h);
        h.finish()
    }

    pub fn get(key: u64) -> Vec<PreparedTest> {
        let guard = LEARNED.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_ref().and_then(|m| m.get(&key)).cloned().unwrap_or_default()
    }

    pub fn add(key: u64, new: &[PreparedTest]) {
        if new.is_empty() {
            return;
        }
        let mut guard = LEARNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = guard.get_or_insert_with(HashMap::new);
        if map.len() >= REFERENCES && !map.contains_key(&key) {
            map.clear();
        }
        let kept = map.entry(key).or_default();
        for t in new {
            if !kept.iter().any(|k| k.input == t.input) {
                kept.push(t.clone());
            }
        }
        let over = kept.len().saturating_sub(PER_REFERENCE);
        kept.drain(..over);
    }
}

/// What one search found: its first repair, and how it ended.
struct Searched {
    repair: Option<FoundRepair>,
    outcome: Option<Outcome>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, check_streaming};
    use crate::ir::Span;
    use std::sync::Mutex;

    fn change(start: u32, end: u32, new: &str) -> (verified::Change, TextEdit) {
        let span = Span::new(start as usize, end as usize);
        let c = verified::Change { span, old: String::new(), new: new.into(), region: String::new(), words: None };
        (c, TextEdit { span, new_text: new.into() })
    }

    #[test]
    fn a_nan_printed_by_the_reference_is_assumed_away_once() {
        let mut nan = NanConjecture { assumed: false };
        assert!(!nan.exclude("2.50\n"), "a number printed is no NaN");
        assert!(nan.conditions().is_none());
        assert!(nan.exclude("-nan\n"));
        assert_eq!(nan.conditions().as_deref(), Some("the reference prints no `nan` (not a number)"));
        assert!(!nan.exclude("nan\n"), "assumed already: another NaN narrows nothing");
    }

    #[test]
    fn the_parts_join_into_one_patch_each_edit_once() {
        let mut parts = EngineParts::default();
        // Two parts of a retyped copy: each carries the copy's type change.
        parts.newest.insert((false, "main/a".into()), vec![change(10, 12, "<="), change(2, 7, "double")]);
        parts.newest.insert((false, "main/b".into()), vec![change(30, 31, "1"), change(2, 7, "double")]);
        parts.newest.insert((true, "main/a".into()), vec![change(10, 12, ">")]);
        let (assuming, whole) = parts.next_untried().expect("the parts for all inputs");
        assert!(!assuming);
        let starts: Vec<u32> = whole.iter().map(|(_, e)| e.span.start).collect();
        assert_eq!(starts, [2, 10, 30]);
        let (assuming, whole) = parts.next_untried().expect("then the parts under the precondition");
        assert!(assuming && whole.len() == 1);
        assert!(parts.next_untried().is_none(), "each is tried once");
        // Parts of two runs whose edits overlap: not a patch.
        parts.newest.insert((false, "main/c".into()), vec![change(11, 13, "x")]);
        assert!(parts.next_untried().is_none());
    }

    /// A threshold that is wrong, in a program organised differently from the reference: the
    /// first fix that passes both tests is refuted by the reference and withdrawn, the next one
    /// is shown as passing the tests and then upgraded in place, never downgraded.
    #[test]
    fn a_fix_is_shown_tested_then_upgraded_in_place() {
        let dir = std::env::temp_dir().join(format!("mend-anytime-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        let reference = "#include <stdio.h>\nint main(void) {\n    int x, big;\n    scanf(\"%d\", &x);\n    big = 0;\n    if (x > 10)\n        big = 1;\n    printf(\"%d\\n\", big);\n    return 0;\n}\n";
        // A loop the reference does not have: the verified engine cannot align the two, so the
        // search on the tests decides.
        let student = "#include <stdio.h>\nint main(void) {\n    int x, big, i;\n    scanf(\"%d\", &x);\n    big = 1;\n    for (i = 0; i < 1; i++) {\n        if (x >= 100)\n            big = 1;\n        else\n            big = 0;\n    }\n    printf(\"%d\\n\", big);\n    return 0;\n}\n";
        std::fs::write(dir.join("reference.c"), reference).unwrap();
        std::fs::write(dir.join("mend.toml"), "reference = \"reference.c\"\ntests = \"tests\"\n").unwrap();
        for (name, input) in [("1", "50\n"), ("2", "200\n")] {
            std::fs::write(dir.join("tests").join(format!("{name}.in")), input).unwrap();
            std::fs::write(dir.join("tests").join(format!("{name}.out")), "1\n").unwrap();
        }
        let path = dir.join("student.c");
        let tree = crate::syntax::parse(student, None);
        let partials: Mutex<Vec<Report>> = Mutex::new(Vec::new());
        let last = check_streaming(Some(&path), student, &tree, &CheckOptions::default(), &Cancel::new(), &|r| {
            partials.lock().unwrap().push(r.clone())
        });
        let _ = std::fs::remove_dir_all(&dir);
        let mut reports = partials.into_inner().unwrap();
        reports.push(last);
        let behaviour = |r: &Report| -> Vec<(Vec<TextEdit>, Guarantee)> {
            r.repairs
                .iter()
                .filter(|r| r.engine == "mutation")
                .map(|r| (r.edits.clone(), r.guarantee.clone()))
                .collect()
        };
        // The first fix shown passes the tests; it is withdrawn with a note that shows an input.
        let first = reports.iter().find_map(|r| behaviour(r).first().cloned()).expect("a fix is shown");
        assert!(matches!(first.1, Guarantee::Tested { tests: 2 }), "{first:?}");
        assert!(
            reports
                .iter()
                .any(|r| r.diagnostics.iter().any(|d| d.code == "withdrawn" && d.message.contains("for input `"))),
            "the refuted fix is withdrawn with a note"
        );
        // The fix that stays: once shown, it keeps its edits and only ever gains strength.
        let kept = behaviour(reports.last().unwrap()).first().cloned().expect("a fix at the end");
        assert_eq!(kept.1, Guarantee::Verified);
        let history: Vec<u8> = reports
            .iter()
            .filter_map(|r| behaviour(r).into_iter().find(|(e, _)| *e == kept.0).map(|(_, g)| g.strength()))
            .collect();
        assert!(history.first() < history.last(), "shown before its proof: {history:?}");
        assert!(history.windows(2).all(|w| w[0] <= w[1]), "never downgraded: {history:?}");
        let reached: Vec<&str> = reports
            .last()
            .unwrap()
            .repairs
            .iter()
            .find(|r| r.edits == kept.0)
            .unwrap()
            .reached
            .iter()
            .map(|l| l.guarantee.level())
            .collect();
        assert_eq!(reached.first(), Some(&"tested"));
        assert_eq!(reached.last(), Some(&"verified"));
    }
}
