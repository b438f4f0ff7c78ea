//! The same mutation and repair units with tests as the specification (AllRepair's "specs
//! beyond assertions"): each test is an input with an assertion on the output. For concrete
//! inputs the solver would only propagate constants through the unwound program, so the
//! check of a candidate is the exact, unbounded answer of the interpreter instead: the
//! mutated program runs every test (those that failed first) and is a repair when all pass.
//! The guarantee is `Tested`: it passes the tests, nothing more is claimed.
//!
//! Localization uses the tests' spectrum (Ochiai, as in the survey seed): a location executed
//! by failing tests and rarely by passing ones ranks first. It orders, never filters.

use std::time::Instant;

use crate::cancel::Cancel;
use crate::ir::*;
use crate::smt::Budget;
use crate::spec::interp::{self, Limits};

use super::concrete;
use super::engine::{Alternatives, FoundRepair, Options, mutation_unit, selection_changes};
use super::search::{self, Oracle, Outcome, SearchOptions, Selection, Verdict};

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
    let suspiciousness = ochiai(program, &opts.entry, results, &loc_ids, &alternatives, &budget.cancel);
    let tests = results.len() as u32;
    let mut oracle = TestsOracle { program, loc_ids: &loc_ids, alternatives: &alternatives, passes_all };
    let search_opts =
        SearchOptions { max_size: opts.max_size, suspiciousness: Some(suspiciousness), first_pass_cap: None };
    let mut found = Vec::new();
    let (outcome, stats) =
        search::all_repairs(&counts, &mut oracle, &search_opts, budget, &mut |selection: &Selection| {
            let changes =
                selection_changes(&loc_ids, selection, &alternatives).into_iter().map(|(_, _, c)| c).collect();
            let repair =
                FoundRepair { changes, guarantee: Guarantee::Tested { tests }, found_after: started.elapsed() };
            on_repair(&repair);
            found.push(repair);
        });
    report.repairs = found;
    report.outcome = Some(outcome);
    report.candidates_checked = stats.candidates_checked;
    report.total_time = started.elapsed();
    report
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

/// Ochiai suspiciousness per location: `ef / sqrt(F · (ef + ep))`, where `ef`/`ep` count the
/// failing/passing tests that execute the location's innermost statement and `F` all failing
/// tests; a small base keeps never-executed locations in the order (after the others).
fn ochiai(
    program: &Program,
    entry: &str,
    results: &[TestResult],
    loc_ids: &[crate::smt::encode::LocationId],
    alternatives: &Alternatives,
    cancel: &Cancel,
) -> Vec<f64> {
    let statements = statement_spans(program);
    let innermost = |at: Span| {
        statements.iter().filter(|s| s.start <= at.start && at.end <= s.end).min_by_key(|s| s.end - s.start).copied()
    };
    let limits = Limits { record_coverage: true, max_steps: 5_000_000, ..Limits::default() };
    let runs: Vec<(bool, Vec<Span>)> = results
        .iter()
        .map(|t| (t.passed, interp::run(program, entry, t.input.as_bytes(), &limits, cancel).covered))
        .collect();
    let failing = runs.iter().filter(|(p, _)| !p).count() as f64;
    loc_ids
        .iter()
        .map(|id| {
            let Some(stmt) = innermost(alternatives[id].0.span) else { return 0.0 };
            let (mut ef, mut ep) = (0.0, 0.0);
            for (passed, covered) in &runs {
                if covered.binary_search_by_key(&(stmt.start, stmt.end), |s| (s.start, s.end)).is_ok() {
                    if *passed {
                        ep += 1.0;
                    } else {
                        ef += 1.0;
                    }
                }
            }
            let score = if ef > 0.0 { ef / (failing * (ef + ep)).sqrt() } else { 0.0 };
            0.01 + score
        })
        .collect()
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
