//! The same mutation and repair units with tests as the specification (AllRepair's "specs
//! beyond assertions"): each test is an input with an assertion on the output. For concrete
//! inputs the solver would only propagate constants through the unwound program, so the
//! check of a candidate is the exact, unbounded answer of the interpreter instead: the
//! mutated program runs every test (those that failed first) and is a repair when all pass.
//! The guarantee is `Tested`: it passes the tests, nothing more is claimed.
//!
//! Localization uses the tests' spectrum (Ochiai, as in the survey seed): a location executed
//! by failing tests and rarely by passing ones ranks first. It orders, never filters.

use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::engines::localize;
use crate::ir::*;
use crate::smt::Budget;
use crate::spec::interp::{self, Limits};

use super::concrete;
use super::engine::{Alternatives, FoundRepair, FunctionScopes, Options, mutation_unit, selection_changes};
use super::search::{self, Oracle, Outcome, SearchOptions, Selection, Verdict};
use super::statements;

/// One test as the original program did on it (for the spectrum).
#[derive(Clone, Debug)]
pub struct TestResult {
    pub input: String,
    pub passed: bool,
}

#[derive(Debug, Default)]
pub struct TestsReport {
    pub repairs: Vec<FoundRepair>,
    pub outcome: Option<Outcome>,
    pub locations: usize,
    pub alternatives: usize,
    pub candidates_checked: usize,
    pub total_time: std::time::Duration,
}

/// Searches every minimal mutation repair that makes `passes_all` accept the program.
/// `passes_all` runs the tests on a candidate program (the check layer owns comparison
/// modes and step limits); `results` are the original program's test results.
pub fn run(
    program: &Program,
    src: &str,
    opts: &Options,
    results: &[TestResult],
    passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&FoundRepair),
) -> TestsReport {
    let started = Instant::now();
    let (_, alternatives) = mutation_unit(program, src, opts);
    let mut report = TestsReport {
        locations: alternatives.len(),
        alternatives: alternatives.values().map(|(_, m)| m.len()).sum(),
        ..Default::default()
    };
    let loc_ids: Vec<_> = alternatives.keys().copied().collect();
    let counts: Vec<usize> = loc_ids.iter().map(|id| alternatives[id].1.len() + 1).collect();
    let mut spectrum = Spectrum::of(program, &opts.entry, results, &budget.cancel);
    if let Some(reference) = &opts.reference {
        spectrum.focus_on_wrong_call(program, reference, &opts.entry, results, opts.compare, &budget.cancel);
    }
    spectrum.window = opts.window.clone();
    let suspiciousness: Vec<f64> = loc_ids.iter().map(|id| spectrum.score(alternatives[id].0.span)).collect();
    let tests = results.len() as u32;
    let mut found = Vec::new();
    let units = Units {
        program,
        loc_ids: &loc_ids,
        alternatives: &alternatives,
        counts: &counts,
        suspiciousness: &suspiciousness,
    };
    let mut checked = 0;
    let mut on_found = |repair: FoundRepair| {
        let repair = FoundRepair { guarantee: Guarantee::Tested { tests }, found_after: started.elapsed(), ..repair };
        on_repair(&repair);
        found.push(repair);
    };
    // Wolverine2's priority: a changed expression, then a moved, deleted or inserted statement,
    // then two changed expressions.
    let (mut outcome, found_one) = units.search(1, passes_all, budget, &mut checked, &mut on_found);
    if !found_one && budget.stop_reason().is_none() {
        if let Some(repair) = first_statement_repair(program, src, opts, &spectrum, passes_all, budget, &mut checked) {
            on_found(repair);
            // The larger expression repairs were not searched: nothing is exhausted.
            outcome = Outcome::Incomplete { reason: "stopped at a statement repair".into(), size_reached: 1 };
        } else if opts.max_size > 1 && budget.stop_reason().is_none() {
            outcome = units.search(opts.max_size, passes_all, budget, &mut checked, &mut on_found).0;
        }
    }
    report.repairs = found;
    report.outcome = Some(outcome);
    report.candidates_checked = checked;
    report.total_time = started.elapsed();
    report
}

/// The expression repair space: the mutated locations and their alternatives.
struct Units<'a> {
    program: &'a Program,
    loc_ids: &'a [crate::smt::encode::LocationId],
    alternatives: &'a Alternatives,
    counts: &'a [usize],
    suspiciousness: &'a [f64],
}

impl Units<'_> {
    /// AllRepair's search up to `max_size` changed expressions; whether it found a repair.
    fn search(
        &self,
        max_size: usize,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        budget: &Budget,
        checked: &mut usize,
        on_found: &mut dyn FnMut(FoundRepair),
    ) -> (Outcome, bool) {
        let mut oracle =
            TestsOracle { program: self.program, loc_ids: self.loc_ids, alternatives: self.alternatives, passes_all };
        let opts = SearchOptions { max_size, suspiciousness: Some(self.suspiciousness.to_vec()), first_pass_cap: None };
        let mut any = false;
        let (outcome, stats) = search::all_repairs(self.counts, &mut oracle, &opts, budget, &mut |selection| {
            let changes =
                selection_changes(self.loc_ids, selection, self.alternatives).into_iter().map(|(_, _, c)| c).collect();
            any = true;
            on_found(FoundRepair { changes, guarantee: Guarantee::Tested { tests: 0 }, found_after: Duration::ZERO });
        });
        *checked += stats.candidates_checked;
        (outcome, any)
    }
}

struct TestsOracle<'a> {
    program: &'a Program,
    loc_ids: &'a [crate::smt::encode::LocationId],
    alternatives: &'a Alternatives,
    passes_all: &'a mut dyn FnMut(&Program, &Budget) -> Verdict,
}

impl Oracle for TestsOracle<'_> {
    fn check(&mut self, selection: &Selection, budget: &Budget) -> Verdict {
        let changes: Vec<(Span, &Expr)> =
            selection_changes(self.loc_ids, selection, self.alternatives).into_iter().map(|(s, e, _)| (s, e)).collect();
        match concrete::apply(self.program, &changes) {
            Some(candidate) => (self.passes_all)(&candidate, budget),
            None => Verdict::Unknown("the mutation could not be applied to the program".into()),
        }
    }
}

/// The tests' spectrum: which statements each test executes. Ochiai suspiciousness of a
/// span: `ef / sqrt(F · (ef + ep))` for its innermost statement, where `ef`/`ep` count the
/// failing/passing tests that execute it and `F` all failing tests; a small base keeps
/// never-executed code in the order (after the rest).
pub struct Spectrum {
    statements: Vec<Span>,
    runs: Vec<(bool, Vec<Span>)>,
    failing: f64,
    /// The function a failing test's run goes wrong in ([`localize`]): its code ranks before
    /// the rest.
    focus: Option<Span>,
    /// The statements of [`Options::window`], sorted: they rank before the rest.
    window: Vec<Span>,
}

impl Spectrum {
    pub fn of(program: &Program, entry: &str, results: &[TestResult], cancel: &Cancel) -> Spectrum {
        // Coverage only: a run that prints 64 KB has covered what its loop covers.
        let limits = Limits { record_coverage: true, max_steps: 5_000_000, max_output: 1 << 16, ..Limits::default() };
        let runs: Vec<(bool, Vec<Span>)> = results
            .iter()
            .map(|t| (t.passed, interp::run(program, entry, t.input.as_bytes(), &limits, cancel).covered))
            .collect();
        let failing = runs.iter().filter(|(p, _)| !p).count() as f64;
        Spectrum { statements: statement_spans(program), runs, failing, focus: None, window: Vec::new() }
    }

    /// Ranks first the function where a failing test's run first leaves a state the
    /// reference's does not (the first of [`FOCUS_TESTS`] failing tests that shows one).
    pub fn focus_on_wrong_call(
        &mut self,
        program: &Program,
        reference: &Program,
        entry: &str,
        results: &[TestResult],
        compare: crate::spec::compare::Compare,
        cancel: &Cancel,
    ) {
        let mut failing: Vec<&TestResult> = results.iter().filter(|t| !t.passed).collect();
        failing.sort_by_key(|t| t.input.len());
        self.focus = failing.into_iter().take(FOCUS_TESTS).find_map(|t| {
            let wrong =
                localize::first_wrong_call(program, reference, entry, t.input.as_bytes(), compare, 5_000_000, cancel)?;
            Some(program.func(wrong.func).span)
        });
    }

    pub fn score(&self, at: Span) -> f64 {
        let innermost =
            self.statements.iter().filter(|s| s.start <= at.start && at.end <= s.end).min_by_key(|s| s.end - s.start);
        let Some(stmt) = innermost else { return 0.0 };
        let (mut ef, mut ep) = (0.0, 0.0);
        for (passed, covered) in &self.runs {
            if covered.binary_search_by_key(&(stmt.start, stmt.end), |s| (s.start, s.end)).is_ok() {
                if *passed {
                    ep += 1.0;
                } else {
                    ef += 1.0;
                }
            }
        }
        let score = if ef > 0.0 { ef / (self.failing * (ef + ep)).sqrt() } else { 0.0 };
        let focused = self.focus.is_some_and(|f| f.start <= at.start && at.end <= f.end);
        let in_window = self.window.binary_search_by_key(&(stmt.start, stmt.end), |s| (s.start, s.end)).is_ok();
        0.01 + score + if focused { 1.0 } else { 0.0 } + if in_window { 2.0 } else { 0.0 }
    }
}

/// Failing tests tried for the function a run goes wrong in.
const FOCUS_TESTS: usize = 3;

/// The first statement repair ([`statements`]) whose text, lowered again, passes `passes_all`.
fn first_statement_repair(
    program: &Program,
    src: &str,
    opts: &Options,
    spectrum: &Spectrum,
    passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
    budget: &Budget,
    checked: &mut usize,
) -> Option<FoundRepair> {
    let scope = FunctionScopes::new(program);
    let score = |at: Span| spectrum.score(at);
    for candidate in statements::candidates(program, src, &opts.frozen, &scope, opts.reference.as_ref(), &score) {
        if budget.stop_reason().is_some() {
            return None;
        }
        let edits: Vec<TextEdit> = candidate.changes.iter().map(|c| c.mutant.edit.clone()).collect();
        let patched = apply_edits(src, &edits);
        let lowered = crate::syntax::lower::lower_source(&patched);
        if lowered.diagnostics.iter().any(|d| d.severity == Severity::Error) {
            continue;
        }
        *checked += 1;
        if matches!((passes_all)(&lowered.program, budget), Verdict::Repaired) {
            return Some(FoundRepair {
                changes: candidate.changes,
                guarantee: Guarantee::Tested { tests: 0 },
                found_after: Duration::ZERO,
            });
        }
    }
    None
}

/// The spans of every statement that is not a block (blocks contain everything).
fn statement_spans(program: &Program) -> Vec<Span> {
    let mut out = Vec::new();
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if !matches!(s.kind, StmtKind::Block(_)) {
                out.push(s.span);
            }
        });
    }
    out
}
