//! The mutation repair engine: the translation unit (`smt::encode` with selector-guarded
//! alternatives), the mutation unit ([`super::catalogue`]) and the repair unit
//! ([`super::search`]) put together, as in AllRepair's Fig. 1.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::engines::localize::Suspects;
use crate::ir::walk::walk_stmt;
use crate::ir::*;
use crate::smt::bmc::{self, BmcResult, BmcVerdict};
use crate::smt::encode::{self, EncodeOptions, Encoding, Location, LocationId, LocationKind};
use crate::smt::solver::{self, Effort, check_with_budget, check_within};
use crate::smt::{Budget, Verdict as SmtVerdict};
use crate::spec::compare::Compare;

use super::catalogue::{self, Mutant, Role, Scope};
use super::concrete::ConcreteRuns;
use super::reference_space::{Pick, ReferenceSpace};
use super::search::{self, Oracle, Outcome, SearchOptions, Selection, Verdict};

/// Bounds of the per-candidate first-pass time (a tenth of the budget in between).
const FIRST_PASS_CAP_MIN: Duration = Duration::from_millis(250);
const FIRST_PASS_CAP_MAX: Duration = Duration::from_secs(2);
/// An encoding with more specification checks than this is not searched (a guard against
/// runaway encodings). The TCAS-like fixtures at level 2 have ~30,000 (division-by-zero checks
/// of `/` and `%` mutants, one per call path); they were once refused at 10,000 because one
/// candidate check ran minutes past its budget, which turned out to be the counterexample
/// read-back evaluating every check in the model, not the solver (see
/// [`bmc::counterexample_stdin`]); such a check now takes a few hundred milliseconds.
const MAX_VIOLATION_CHECKS: usize = 250_000;

#[derive(Clone, Debug)]
pub struct Options {
    pub entry: String,
    /// Loop unwinding / recursion bound.
    pub bound: u32,
    /// Mutation level: 1 or 2 (see the catalogue).
    pub level: u8,
    /// Largest number of mutated locations in a repair.
    pub max_size: usize,
    /// Functions never changed (mend.toml `frozen`; `AllRepair_correct_*` are added).
    pub frozen: HashSet<String>,
    /// How candidates are checked by the solver.
    pub solver_mode: SolverMode,
    /// Repair against this reference instead of the assertions alone: the spec is the product
    /// program (see [`crate::smt::product`]); the reference is frozen by construction. Each
    /// location's alternatives then start with the reference's expressions renamed into the
    /// student's variables ([`super::reference_space`]), and the concrete runs compare with the
    /// reference's output ([`ConcreteRuns::with_reference`]).
    pub reference: Option<Program>,
    /// How outputs are compared with the reference's (the spec's compare mode).
    pub compare: Compare,
    /// Where a localisation points (the check's, from the reference's runs, or a debugging
    /// session's, from the states the student accepted and corrected): ranked first, none
    /// dropped.
    pub suspects: Suspects,
    /// [`crate::smt::encode::EncodeOptions::line_in_input`]: false where a test's input ends
    /// without a line break.
    pub line_in_input: bool,
    /// [`search::SearchOptions::smallest_only`]: the analysis of a student's file looks no
    /// further than the smallest repairs; the paper's benchmark (`mend bench mutation`) and
    /// the engine's own tests search every size.
    pub smallest_only: bool,
    /// Where no repair of up to `max_size` changes passes, one of several slips may be
    /// searched (the tests search's fitness-guided beam).
    pub several: bool,
}

impl Options {
    /// What a proof against the reference assumes of the input.
    pub fn assumptions(&self) -> bmc::Assumptions {
        bmc::Assumptions { line_in_input: self.line_in_input, ..bmc::Assumptions::default() }
    }
}

/// The SMT side's set-up. Both decide the same question; `mend bench` measures both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolverMode {
    /// A fresh solver per candidate with the choice as facts (see [`SmtOracle`]).
    #[default]
    Fresh,
    /// The paper's set-up: one incremental solver holding every alternative behind its
    /// selector, checked under the candidate's selectors as assumptions.
    Incremental,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            entry: "main".into(),
            bound: 5,
            level: 1,
            max_size: 2,
            frozen: HashSet::new(),
            solver_mode: SolverMode::Fresh,
            reference: None,
            compare: Compare::Exact,
            suspects: Suspects::default(),
            line_in_input: true,
            smallest_only: false,
            several: true,
        }
    }
}

/// One mutated location of a repair.
#[derive(Clone, Debug)]
pub struct Change {
    pub location: Location,
    pub mutant: Mutant,
}

impl Change {
    /// A change of the literal text `program` prints ([`crate::engines::output_text`]): a
    /// format's text, or a print of literal text deleted with its statement.
    pub fn of_text(program: &Program, edit: TextEdit, place: Place) -> Change {
        let func = program.funcs.iter().position(|f| f.span.start <= place.span.start && place.span.end <= f.span.end);
        // A print deleted with its statement or a new one inserted (its place is where it
        // goes), or a format's text (an argument of the print).
        let deleted =
            edit.new_text.is_empty() && edit.span.start <= place.span.start && place.span.end <= edit.span.end;
        let kind = if deleted || place.span.is_empty() { LocationKind::Statement } else { LocationKind::Arg };
        let expr = Expr::new(ExprKind::Int(0), Type::INT, place.span);
        let location =
            Location { id: LocationId(u32::MAX), func: FuncId(func.unwrap_or(0) as u32), span: place.span, expr, kind };
        let mutant = Mutant {
            expr: location.expr.clone(),
            kind: super::catalogue::MutationKind::PrintedText,
            edit,
            description: place.change,
        };
        Change { location, mutant }
    }

    /// Where the change shows in the editor: its location, or, for a statement change that
    /// rewrites text inside its statement (a directive of a format, a scanf's text), that text;
    /// for a change inside the right side of `x op= e`, that right side.
    pub fn place_span(&self) -> Span {
        let (edit, at) = (self.mutant.edit.span, self.location.span);
        let within = |outer: Span| !edit.is_empty() && outer.start <= edit.start && edit.end <= outer.end;
        if self.location.kind == LocationKind::Statement && within(at) && edit != at {
            return edit;
        }
        match &self.location.expr.kind {
            ExprKind::CompoundAssign { rhs, .. } if within(rhs.span) => rhs.span,
            _ => at,
        }
    }
}

#[derive(Clone, Debug)]
pub struct FoundRepair {
    pub changes: Vec<Change>,
    pub guarantee: Guarantee,
    /// Time from the start of the engine to this repair.
    pub found_after: Duration,
}

impl FoundRepair {
    pub fn edits(&self) -> Vec<TextEdit> {
        let mut edits: Vec<TextEdit> = self.changes.iter().map(|c| c.mutant.edit.clone()).collect();
        edits.sort_by_key(|e| e.span.start);
        edits
    }

    /// "Fix (bounded, b=5): `i < n` → `i <= n`"
    pub fn title(&self) -> String {
        format!("Fix ({}): {}", self.guarantee.label(), self.changes_in_words())
    }

    /// The changes in words: the same change at the same place once (a printed text changed
    /// in two runs of one literal is one change there), at several places counted.
    pub fn changes_in_words(&self) -> String {
        let mut seen: Vec<(&str, Span)> = Vec::new();
        for c in &self.changes {
            let key = (c.mutant.description.as_str(), c.location.span);
            if !seen.contains(&key) {
                seen.push(key);
            }
        }
        crate::ir::changes_in_words(seen.into_iter().map(|(d, _)| d))
    }
}

#[derive(Debug)]
pub struct EngineReport {
    /// The bounded verification of the program as written.
    pub original: BmcResult,
    /// Minimal repairs in the order found (increasing size).
    pub repairs: Vec<FoundRepair>,
    /// How the search ended (`None` when no search ran: the program holds, or is unsupported).
    pub outcome: Option<Outcome>,
    pub locations: usize,
    pub alternatives: usize,
    pub candidates_checked: usize,
    /// Candidates rejected because no run of them stays within the bound.
    pub vacuous: usize,
    /// Candidates rejected by running a stored counterexample, without the solver.
    pub rejected_concretely: usize,
    pub total_time: Duration,
    /// Where the time went.
    pub profile: Profile,
}

/// Wall-clock time per phase of one engine run (for `mend bench`).
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Bounded verification of the program as written.
    pub verify: Duration,
    /// The translation unit (encoding every location's alternatives).
    pub encode: Duration,
    /// The selection (SAT) side of the search.
    pub selection: Duration,
    /// Concrete runs of stored counterexamples.
    pub concrete: Duration,
    /// Solver checks of candidates, and how many; `formula`: the part of `smt` spent building
    /// each candidate's formula (substituting and simplifying) before the solver runs.
    pub smt: Duration,
    pub formula: Duration,
    pub smt_checks: usize,
    /// The unwinding check of each repair found.
    pub guarantee: Duration,
    /// Specification checks in the encoding.
    pub violation_checks: usize,
}

/// Verifies the program and, when a specification can be violated, searches for every
/// minimal mutation repair up to `opts.max_size`, calling `on_repair` as each is found; it
/// answers whether the caller keeps the repair (see [`Options::smallest_only`]).
pub fn run(
    program: &Program,
    src: &str,
    opts: &Options,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&FoundRepair) -> bool,
) -> EngineReport {
    let started = Instant::now();
    let original = match &opts.reference {
        None => bmc::verify(program, &opts.entry, opts.bound, budget),
        Some(r) => {
            bmc::verify_against_assuming(program, r, opts.compare, &opts.entry, opts.bound, opts.assumptions(), budget)
        }
    };
    run_from(program, src, opts, budget, original, started, on_repair)
}

/// [`run`] with the verdict on the program as written already known (`original`, from the
/// same bounded check, begun at `started`).
pub fn run_from(
    program: &Program,
    src: &str,
    opts: &Options,
    budget: &Budget,
    original: BmcResult,
    started: Instant,
    on_repair: &mut dyn FnMut(&FoundRepair) -> bool,
) -> EngineReport {
    let mut report = EngineReport {
        original,
        repairs: Vec::new(),
        outcome: None,
        locations: 0,
        alternatives: 0,
        candidates_checked: 0,
        vacuous: 0,
        rejected_concretely: 0,
        total_time: Duration::ZERO,
        profile: Profile::default(),
    };
    report.profile.verify = started.elapsed();
    if !matches!(report.original.verdict, BmcVerdict::Violated(_)) {
        report.total_time = started.elapsed();
        return report;
    }

    let (frozen, alternatives) = mutation_unit(program, src, opts);
    report.locations = alternatives.len();
    report.alternatives = alternatives.values().map(|(_, m)| m.len()).sum();

    // The translation unit, with every location's alternatives behind selectors.
    let ctx = solver::new_context();
    let provider = |id: LocationId, _: &Expr| -> Vec<Expr> {
        alternatives.get(&id).map(|(_, ms)| ms.iter().map(|m| m.expr.clone()).collect()).unwrap_or_default()
    };
    let enc_opts = EncodeOptions {
        frozen: Some(&frozen),
        alternatives: Some(&provider),
        line_in_input: opts.line_in_input,
        budget: Some(budget),
        ..EncodeOptions::new(opts.bound)
    };
    let encode_started = Instant::now();
    let encoded = match &opts.reference {
        None => encode::encode(&ctx, program, &opts.entry, &enc_opts),
        Some(r) => crate::smt::product::encode_product(&ctx, program, r, &opts.entry, opts.compare, &enc_opts),
    };
    report.profile.encode = encode_started.elapsed();
    if let Ok(e) = &encoded {
        report.profile.violation_checks = e.violations.len();
    }
    let enc = match encoded {
        Ok(e) if e.violations.len() > MAX_VIOLATION_CHECKS => {
            let reason = format!(
                "the encoding has {} specification checks (at most {MAX_VIOLATION_CHECKS} are searched)",
                e.violations.len()
            );
            report.outcome = Some(Outcome::Incomplete { reason, size_reached: 0 });
            report.total_time = started.elapsed();
            return report;
        }
        Ok(e) => e,
        Err(u) => {
            // Stopped by the budget while building the formula: said as a stop, as the search's.
            report.outcome = Some(match budget.stop_reason() {
                Some(stop) if u.ran_out_of_time() => {
                    Outcome::Incomplete { reason: format!("{stop:?}"), size_reached: 0 }
                }
                _ => Outcome::Unmodelled(u),
            });
            report.total_time = started.elapsed();
            return report;
        }
    };
    // Locations in the search order = the encoding's selector order.
    let loc_ids: Vec<LocationId> = enc.selectors.keys().copied().collect();
    let counts: Vec<usize> = loc_ids.iter().map(|id| enc.selectors[id].len()).collect();
    let suspiciousness = localize(&report.original, &loc_ids, &alternatives);

    let mut runs = ConcreteRuns::new(program, &opts.entry, opts.bound);
    if let Some(r) = &opts.reference {
        runs = runs.with_reference(r, opts.compare);
    }
    if let BmcVerdict::Violated(cex) = &report.original.verdict {
        let t = Instant::now();
        runs.add_neighbours(&cex.stdin, super::concrete::NEIGHBOURS, &budget.cancel);
        runs.add_input(cex.stdin.clone());
        report.profile.concrete += t.elapsed();
    }
    let incremental = (opts.solver_mode == SolverMode::Incremental).then(|| {
        let violating = z3::Solver::new(&ctx);
        enc.assert_into(&violating);
        violating.assert(&enc.any_violation());
        let completing = z3::Solver::new(&ctx);
        enc.assert_into(&completing);
        completing.assert(&enc.completes);
        (violating, completing)
    });
    let mut oracle = SmtOracle {
        enc: &enc,
        loc_ids: loc_ids.clone(),
        alternatives: &alternatives,
        runs,
        incremental,
        // A student run that completes says nothing of the reference's run in a product.
        witness_completion: opts.reference.is_none(),
        vacuous: 0,
        rejected_concretely: 0,
        near_miss: false,
        concrete_time: Duration::ZERO,
        smt_time: Duration::ZERO,
        smt_checks: 0,
    };
    // A slow candidate waits for the end of its size rather than delaying the others.
    let first_pass_cap = (budget.remaining() / 10).clamp(FIRST_PASS_CAP_MIN, FIRST_PASS_CAP_MAX);
    let search_opts = SearchOptions {
        max_size: opts.max_size,
        suspiciousness: Some(suspiciousness),
        first_pass_cap: Some(first_pass_cap),
        smallest_only: opts.smallest_only,
    };
    let mut found: Vec<FoundRepair> = Vec::new();
    let formula_before = FORMULA_TIME.with(|f| f.get());
    let mut guarantee_time = Duration::ZERO;
    let (outcome, stats) =
        search::all_repairs(&counts, &mut oracle, &search_opts, budget, &mut |selection: &Selection| {
            let choice: Vec<(LocationId, usize)> =
                loc_ids.iter().zip(selection).filter(|(_, k)| **k != 0).map(|(id, k)| (*id, *k)).collect();
            let t = Instant::now();
            let guarantee = if runs_within_bound(&enc, &choice, budget) {
                Guarantee::Verified
            } else {
                let side = bmc::side_budget(budget);
                let cuts = enc.cuts(|cut| {
                    check_choice(&enc, &choice, cut, &side, false, Some(Effort::SIDE_QUESTION)).0 != SmtVerdict::Unsat
                });
                Guarantee::Bounded { bound: Bound { loops: opts.bound, cuts } }
            }
            .assuming_also(enc.assumption());
            guarantee_time += t.elapsed();
            let changes =
                selection_changes(&loc_ids, selection, &alternatives).into_iter().map(|(_, _, c)| c).collect();
            let repair = FoundRepair { changes, guarantee, found_after: started.elapsed() };
            let kept = on_repair(&repair);
            found.push(repair);
            kept
        });
    report.repairs = found;
    report.outcome = Some(outcome);
    report.candidates_checked = stats.candidates_checked;
    report.vacuous = oracle.vacuous;
    report.rejected_concretely = oracle.rejected_concretely;
    report.profile.selection = stats.sat_time;
    report.profile.concrete += oracle.concrete_time;
    report.profile.smt = oracle.smt_time;
    report.profile.smt_checks = oracle.smt_checks;
    report.profile.formula = FORMULA_TIME.with(|f| f.get()) - formula_before;
    report.profile.guarantee = guarantee_time;
    report.total_time = started.elapsed();
    report
}

/// Every mutable location's alternatives (the mutation unit), keyed by location, and the set
/// of frozen functions it honoured (mend.toml's plus `AllRepair_correct_*`).
pub type Alternatives = BTreeMap<LocationId, (Location, Vec<Mutant>)>;

pub fn mutation_unit(program: &Program, src: &str, opts: &Options) -> (HashSet<String>, Alternatives) {
    let mut frozen = opts.frozen.clone();
    frozen.extend(program.funcs.iter().filter(|f| f.name.starts_with("AllRepair_correct_")).map(|f| f.name.clone()));
    let frozen_regions = frozen_regions(src);
    let scope = FunctionScopes::new(program);
    let targets = Targets::of(program, src);
    let space = opts.reference.as_ref().map(|r| ReferenceSpace::new(program, src, r, &frozen));
    let mut alternatives = Alternatives::new();
    for loc in encode::locations(program, &frozen) {
        if frozen_regions.iter().any(|r| r.start <= loc.span.start && loc.span.end <= r.end) {
            continue;
        }
        let mut ms = location_mutants(program, src, &loc, &targets, opts.level, &scope);
        if let Some(space) = &space {
            ms = with_reference(space, program, src, &loc, ms, opts.level, &scope);
        }
        if !ms.is_empty() {
            alternatives.insert(loc.id, (loc, ms));
        }
    }
    drop(space);
    (frozen, alternatives)
}

/// Against a reference: the location's alternatives drawn from the reference first (new ones,
/// and catalogue mutants the reference also proposes), then the catalogue's others; a
/// condition also gets the variable replacements at level 1 (`y >= z` → `a >= z`), and so
/// does the condition of a `?:` anywhere in the location (`v[j] > n - i ? '*' : ' '`).
fn with_reference(
    space: &ReferenceSpace<'_>,
    program: &Program,
    src: &str,
    loc: &Location,
    mut ms: Vec<Mutant>,
    level: u8,
    scope: &dyn Scope,
) -> Vec<Mutant> {
    let mut conditions = Vec::new();
    if loc.kind == LocationKind::Condition {
        conditions.push(loc.expr.span);
    }
    crate::ir::walk::walk_expr(&loc.expr, &mut |e| {
        if let ExprKind::Cond(test, ..) = &e.kind {
            conditions.push(test.span);
        }
    });
    if !conditions.is_empty() && level < 2 {
        for m in catalogue::variable_replacements(program, src, &loc.expr, scope) {
            let in_a_condition = conditions.iter().any(|c| c.start <= m.edit.span.start && m.edit.span.end <= c.end);
            if in_a_condition && m.expr.ty == loc.expr.ty && !ms.iter().any(|x| x.edit == m.edit) {
                ms.push(m);
            }
        }
    }
    let mut taken = vec![false; ms.len()];
    let mut out = Vec::new();
    for pick in space.picks(loc, &ms) {
        match pick {
            Pick::New(m) => out.push(m),
            Pick::Catalogue(k) => {
                taken[k] = true;
                out.push(ms[k].clone());
            }
        }
    }
    out.extend(ms.into_iter().zip(taken).filter(|(_, t)| !t).map(|(m, _)| m));
    out
}

/// The program changes a selection stands for: (original span, replacement) per mutated
/// location, and the repair's changes.
pub fn selection_changes<'a>(
    loc_ids: &[LocationId],
    selection: &Selection,
    alternatives: &'a Alternatives,
) -> Vec<(Span, &'a Expr, Change)> {
    loc_ids
        .iter()
        .zip(selection)
        .filter(|(_, k)| **k != 0)
        .map(|(id, k)| {
            let (loc, ms) = &alternatives[id];
            let m = &ms[*k - 1];
            (loc.span, &m.expr, Change { location: loc.clone(), mutant: m.clone() })
        })
        .collect()
}

/// The SMT side, with concrete runs in front ([`ConcreteRuns`]: a candidate that violates a
/// specification on a stored counterexample is rejected without the solver).
///
/// Each solver check runs in a fresh solver holding the hard constraints and only the chosen
/// alternatives' definitions, with the selector values as facts, and no assumptions: Z3 then
/// simplifies the unchosen code away and runs its non-incremental bit-blasting tactic.
/// Measured on the bubble-sort fixture this is 10-50x faster per candidate than one
/// incremental solver checked under assumptions (the paper's set-up), whose core solver
/// cannot bit-blast the whole formula up front; asserting the shared terms into a fresh
/// solver costs well under a millisecond.
///
/// One deliberate strengthening of the paper's b-correctness: a candidate none of whose runs
/// completes within the bound with its assumptions holding (`i++` → `i--` in a counting loop:
/// every run is cut by the unwinding assumption, so no assertion is ever checked) is
/// vacuously b-correct; it counts as failing, so it is not reported and its supersets stay
/// in the search.
struct SmtOracle<'a, 'ctx> {
    enc: &'a Encoding<'ctx>,
    loc_ids: Vec<LocationId>,
    alternatives: &'a Alternatives,
    runs: ConcreteRuns<'a>,
    /// With [`SolverMode::Incremental`]: solvers holding the whole encoding plus "some
    /// violation" and "some run completes", checked under assumptions.
    incremental: Option<(z3::Solver<'ctx>, z3::Solver<'ctx>)>,
    /// Whether a concrete run that completes witnesses "some run completes".
    witness_completion: bool,
    /// Candidates rejected as vacuous.
    vacuous: usize,
    /// Candidates rejected by a concrete run.
    rejected_concretely: usize,
    /// The last candidate passed the concrete runs.
    near_miss: bool,
    /// Time in concrete runs and in solver checks (and how many checks).
    concrete_time: Duration,
    smt_time: Duration,
    smt_checks: usize,
}

impl<'ctx> SmtOracle<'_, 'ctx> {
    /// Is `goal` (some violation, or some run completing) satisfiable with `choice` applied?
    fn check_goal(
        &mut self,
        choice: &[(LocationId, usize)],
        violation: bool,
        budget: &Budget,
    ) -> (SmtVerdict, Option<String>) {
        let t = Instant::now();
        self.smt_checks += 1;
        let result = self.check_goal_untimed(choice, violation, budget);
        self.smt_time += t.elapsed();
        result
    }

    fn check_goal_untimed(
        &self,
        choice: &[(LocationId, usize)],
        violation: bool,
        budget: &Budget,
    ) -> (SmtVerdict, Option<String>) {
        match &self.incremental {
            Some((violating, completing)) => {
                let solver = if violation { violating } else { completing };
                let verdict = check_with_budget(solver, &self.enc.choose(choice), budget);
                let input = match (&verdict, violation) {
                    (SmtVerdict::Sat, true) => {
                        solver.get_model().map(|m| bmc::counterexample_stdin(self.enc, &m, choice))
                    }
                    _ => None,
                };
                (verdict, input)
            }
            None => {
                let goal = if violation { self.enc.any_violation() } else { self.enc.completes.clone() };
                check_choice(self.enc, choice, &goal, budget, violation, None)
            }
        }
    }

    fn choice(&self, selection: &Selection) -> Vec<(LocationId, usize)> {
        self.loc_ids.iter().zip(selection).filter(|(_, k)| **k != 0).map(|(id, k)| (*id, *k)).collect()
    }
}

thread_local! {
    /// Time spent building candidate formulas ([`Encoding::choice_formula`]) on this thread.
    static FORMULA_TIME: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Is `goal` satisfiable in the program with `choice` applied? On `Sat`, the model's
/// counterexample input (stdin text) when `want_input`.
fn check_choice<'ctx>(
    enc: &Encoding<'ctx>,
    choice: &[(LocationId, usize)],
    goal: &z3::ast::Bool<'ctx>,
    budget: &Budget,
    want_input: bool,
    effort: Option<Effort>,
) -> (SmtVerdict, Option<String>) {
    // Past the deadline the context may hold the watcher's interrupt, and Z3's `simplify` in
    // `choice_formula` then returns no term (the z3 crate panics on it): stop before.
    if let Some(reason) = budget.stop_reason() {
        return (SmtVerdict::Unknown(reason), None);
    }
    let solver = solver::one_shot_solver(enc.ctx, enc.bit_vectors_only);
    let t = Instant::now();
    solver.assert(&enc.choice_formula(choice, goal));
    FORMULA_TIME.with(|f| f.set(f.get() + t.elapsed()));
    let verdict = check_within(&solver, &[], effort, budget);
    let input = match (&verdict, want_input) {
        (SmtVerdict::Sat, true) => solver.get_model().map(|m| bmc::counterexample_stdin(enc, &m, choice)),
        _ => None,
    };
    (verdict, input)
}

/// The unwinding check of a repaired program: `true` when no run can exceed the bound, so the
/// repair holds for all runs. `unknown` counts as `false` (never upgrade). Like the cut
/// questions of the label, asked within a fixed effort: the label does not depend on the load.
fn runs_within_bound(enc: &Encoding<'_>, choice: &[(LocationId, usize)], budget: &Budget) -> bool {
    enc.unwinding.is_empty()
        || check_choice(
            enc,
            choice,
            &enc.any_unwinding(),
            &bmc::side_budget(budget),
            false,
            Some(Effort::UNWINDING_CHECK),
        )
        .0 == SmtVerdict::Unsat
}

impl Oracle for SmtOracle<'_, '_> {
    fn check(&mut self, selection: &Selection, budget: &Budget) -> Verdict {
        // Each candidate's verdict and time, at `MEND_LOG=mend::mutation=trace`.
        if !tracing::enabled!(target: "mend::mutation", tracing::Level::TRACE) {
            return self.check_untraced(selection, budget);
        }
        let t = Instant::now();
        let smt_before = self.smt_checks;
        let v = self.check_untraced(selection, budget);
        let what: Vec<String> = selection_changes(&self.loc_ids, selection, self.alternatives)
            .into_iter()
            .map(|(_, _, c)| format!("{}@{}", c.mutant.description, c.location.span.start))
            .collect();
        let verdict = match &v {
            Verdict::Repaired => "REPAIRED".to_string(),
            Verdict::Fails => "fails".to_string(),
            Verdict::Unknown(r) => format!("unknown {r}"),
        };
        tracing::trace!(target: "mend::mutation", "candidate {:>7.1} ms, {} SMT checks, {verdict}: {}", t.elapsed().as_secs_f64() * 1000.0, self.smt_checks - smt_before, what.join("; "));
        v
    }

    fn last_was_near_miss(&self) -> bool {
        self.near_miss
    }
}

impl SmtOracle<'_, '_> {
    fn check_untraced(&mut self, selection: &Selection, budget: &Budget) -> Verdict {
        let choice = self.choice(selection);
        let changes: Vec<(Span, &Expr)> = selection_changes(&self.loc_ids, selection, self.alternatives)
            .into_iter()
            .map(|(s, e, _)| (s, e))
            .collect();
        let t = Instant::now();
        let evidence = self.runs.evidence(&changes, &budget.cancel);
        self.concrete_time += t.elapsed();
        self.near_miss = !evidence.violates;
        if evidence.violates {
            self.rejected_concretely += 1;
            return Verdict::Fails;
        }
        match self.check_goal(&choice, true, budget) {
            (SmtVerdict::Unsat, _) if evidence.completes && self.witness_completion => Verdict::Repaired,
            (SmtVerdict::Unsat, _) => match self.check_goal(&choice, false, budget).0 {
                SmtVerdict::Sat => Verdict::Repaired,
                SmtVerdict::Unsat => {
                    self.vacuous += 1;
                    Verdict::Fails
                }
                SmtVerdict::Unknown(r) => Verdict::Unknown(format!("{r:?}")),
            },
            (SmtVerdict::Sat, input) => {
                if let Some(stdin) = input {
                    self.runs.add_input(stdin);
                }
                Verdict::Fails
            }
            (SmtVerdict::Unknown(r), _) => Verdict::Unknown(format!("{r:?}")),
        }
    }
}

/// The catalogue's alternatives for one location, by its kind.
fn location_mutants(
    program: &Program,
    src: &str,
    loc: &Location,
    targets: &Targets,
    level: u8,
    scope: &dyn Scope,
) -> Vec<Mutant> {
    let role = if loc.kind == LocationKind::Condition { Role::Condition } else { Role::Value };
    let mut ms = match loc.kind {
        LocationKind::Init => catalogue::init_mutants(program, src, &loc.expr, level, scope),
        _ => catalogue::mutants(program, src, &loc.expr, role, level, scope),
    };
    if loc.kind == LocationKind::Target {
        // The node written through is never `NULL`.
        ms.retain(|m| m.edit.new_text != "NULL");
    }
    // The right-hand side of `x = e`: the assignment-level mutations apply to the whole
    // assignment, but the location (and so the alternative) is `e`.
    let mut more = Vec::new();
    if loc.kind == LocationKind::Assign
        && let Some(assign) = targets.assignments.get(&loc.span)
        && let ExprKind::Assign(lhs, _) = &assign.kind
    {
        more = catalogue::assignment_mutants(program, src, assign, lhs, &loc.expr);
    }
    if let Some(states) = targets.states_of(loc) {
        more.extend(catalogue::state_mutants(program, src, &loc.expr, states));
    }
    more.extend(targets.first_item(program, src, loc));
    for m in more {
        if !ms.iter().any(|x| x.edit == m.edit) {
            ms.push(m);
        }
    }
    // A condition tested for truth may change its scalar type (`d = 0` → `d == 0` with
    // `double d`); a `switch`'s value and every other location keep theirs.
    let tested = loc.kind == LocationKind::Condition && !targets.switched.contains(&loc.span);
    ms.retain(|m| m.expr.ty == loc.expr.ty || (tested && m.expr.ty.is_scalar() && loc.expr.ty.is_scalar()));
    ms
}

/// The `int` counter a `for` loop counts up by one from a constant (`i = 0` or `int i = 0`,
/// `i++`, `++i` or `i += 1`), and its start.
fn counting_up(program: &Program, init: &[Stmt], step: &Expr) -> Option<(VarId, i64)> {
    let (var, start) = match init {
        [Stmt { kind: StmtKind::Expr(Expr { kind: ExprKind::Assign(lhs, rhs), .. }), .. }] => (lhs.as_var()?, &**rhs),
        [Stmt { kind: StmtKind::Decl { var, init: Some(Init::Expr(e)) }, .. }] => (*var, e),
        _ => return None,
    };
    let ExprKind::Int(start) = start.strip_implicit().kind else { return None };
    let steps = match &step.kind {
        ExprKind::IncDec(op, x) => matches!(op, IncDec::PreInc | IncDec::PostInc) && x.as_var() == Some(var),
        ExprKind::CompoundAssign { op: BinOp::Add, lhs, rhs, .. } => {
            lhs.as_var() == Some(var) && matches!(rhs.strip_implicit().kind, ExprKind::Int(1))
        }
        _ => false,
    };
    (steps && program.var(var).ty == Type::INT).then_some((var, start))
}

/// The tests of an extreme directly in `body` (not in a nested loop): `if (x > max) max = x;`,
/// a comparison of a variable with a value the `if` then assigns it, keyed by the test's span.
fn extremes_in(program: &Program, body: &Stmt, counter: (VarId, i64), out: &mut HashMap<Span, (VarId, i64)>) {
    match &body.kind {
        StmtKind::Block(items) => items.iter().for_each(|s| extremes_in(program, s, counter, out)),
        StmtKind::If { cond, then, els } => {
            if let ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, a, b) = &cond.strip_implicit().kind {
                let printed = |e: &Expr| crate::ir::print::expr_to_c(program, e.strip_implicit());
                let mut tracked = false;
                walk_stmt(then, &mut |e: &Expr| {
                    if let ExprKind::Assign(lhs, rhs) = &e.kind
                        && let Some(v) = lhs.as_var()
                    {
                        for (x, other) in [(a, b), (b, a)] {
                            tracked |= x.strip_implicit().as_var() == Some(v) && printed(rhs) == printed(other);
                        }
                    }
                });
                if tracked {
                    out.insert(cond.span, counter);
                }
            }
            extremes_in(program, then, counter, out);
            if let Some(e) = els {
                extremes_in(program, e, counter, out);
            }
        }
        _ => {}
    }
}

/// What a location's alternatives need from the rest of the program: the plain assignment
/// each right side belongs to, the variable each initialiser gives a value, and each
/// variable's named states (the macros it is given or compared with anywhere).
struct Targets {
    assignments: HashMap<Span, Expr>,
    initialised: HashMap<Span, VarId>,
    states: HashMap<VarId, Vec<String>>,
    /// The values `switch` statements switch on (condition locations not tested for truth).
    switched: HashSet<Span>,
    /// The tests of an extreme in a counting loop (`if (x > max) max = x;` in
    /// `for (i = 0; …; i++)`): the counter and its start.
    extremes: HashMap<Span, (VarId, i64)>,
}

impl Targets {
    fn of(program: &Program, src: &str) -> Targets {
        let mut t = Targets {
            assignments: HashMap::new(),
            initialised: HashMap::new(),
            states: HashMap::new(),
            extremes: HashMap::new(),
            switched: HashSet::new(),
        };
        let state = |v: VarId, e: &Expr, states: &mut HashMap<VarId, Vec<String>>| {
            if let Some(name) = catalogue::constant_name(program, src, e) {
                let names = states.entry(v).or_default();
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
        };
        for f in program.funcs.iter() {
            let Some(body) = &f.body else { continue };
            crate::ir::walk::for_each_stmt(body, &mut |s| match &s.kind {
                StmtKind::Decl { var: v, init: Some(Init::Expr(e)) } => {
                    t.initialised.insert(e.span, *v);
                    state(*v, e, &mut t.states);
                }
                StmtKind::For { init, step: Some(step), body, .. } => {
                    if let Some(counter) = counting_up(program, init, step) {
                        extremes_in(program, body, counter, &mut t.extremes);
                    }
                }
                // `switch (estado) { case SOMA: … }`: each label's name is a state.
                StmtKind::Switch { cond, arms } => {
                    t.switched.insert(cond.span);
                    if let Some(v) = cond.as_var() {
                        for arm in arms {
                            if let Some(label) = arm.label {
                                let case = Expr::new(ExprKind::Int(label), cond.ty.clone(), arm.label_span);
                                state(v, &case, &mut t.states);
                            }
                        }
                    }
                }
                _ => {}
            });
            walk_stmt(body, &mut |e: &Expr| match &e.kind {
                ExprKind::Assign(lhs, rhs) => {
                    t.assignments.insert(rhs.span, e.clone());
                    if let Some(v) = lhs.as_var() {
                        state(v, rhs, &mut t.states);
                    }
                }
                ExprKind::Binary(BinOp::Eq | BinOp::Ne, a, b) => {
                    for (x, k) in [(a, b), (b, a)] {
                        if let Some(v) = x.as_var() {
                            state(v, k, &mut t.states);
                        }
                    }
                }
                _ => {}
            });
        }
        t
    }

    /// The first-item alternative of a condition that tests an extreme.
    fn first_item(&self, program: &Program, src: &str, loc: &Location) -> Option<Mutant> {
        if loc.kind != LocationKind::Condition {
            return None;
        }
        let (counter, start) = *self.extremes.get(&loc.span)?;
        catalogue::first_item_mutant(program, src, &loc.expr, counter, start)
    }

    /// The named states of the variable `loc` (a right side or an initialiser) gives a value.
    fn states_of(&self, loc: &Location) -> Option<&[String]> {
        let v = match loc.kind {
            LocationKind::Init => *self.initialised.get(&loc.span)?,
            LocationKind::Assign => match &self.assignments.get(&loc.span)?.kind {
                ExprKind::Assign(lhs, _) => lhs.as_var()?,
                _ => return None,
            },
            _ => return None,
        };
        self.states.get(&v).map(Vec::as_slice)
    }
}

/// Regions the repair must not change: between `//<ASSUME_CORRECT>` and `//</ASSUME_CORRECT>`
/// (the AllRepair benchmarks' convention) and between `// mend:frozen` and `// mend:end-frozen`.
pub fn frozen_regions(src: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for (open, close) in [("<ASSUME_CORRECT>", "</ASSUME_CORRECT>"), ("mend:frozen", "mend:end-frozen")] {
        let mut from = 0;
        while let Some(i) = src[from..].find(open) {
            let start = from + i;
            let end = src[start..].find(close).map_or(src.len(), |j| start + j);
            out.push(Span::new(start, end));
            from = end.max(start + open.len());
            if from >= src.len() {
                break;
            }
        }
    }
    out
}

/// Suspiciousness per location from the counterexample: a location on a branch of the
/// failing path, or in the same function as the violation and before it, ranks higher; the
/// nearer the violation, the higher. Every location keeps a positive score: this orders the
/// search, it never removes a location.
fn localize(original: &BmcResult, loc_ids: &[LocationId], alternatives: &Alternatives) -> Vec<f64> {
    let BmcVerdict::Violated(cex) = &original.verdict else { return vec![1.0; loc_ids.len()] };
    loc_ids
        .iter()
        .map(|id| {
            let span = alternatives[id].0.span;
            let on_path =
                cex.steps.iter().any(|s| s.span.start <= span.start && span.end <= s.span.end.max(s.span.start));
            let before = span.end <= cex.span.start;
            let distance = (cex.span.start as f64 - span.start as f64).abs();
            1.0 + if on_path { 2.0 } else { 0.0 } + if before { 1.0 } else { 0.0 } + 1.0 / (1.0 + distance / 80.0)
        })
        .collect()
}

/// Variables in scope at a position, by C's block scoping: parameters, globals declared
/// before, and locals whose declaration precedes the position inside an enclosing block.
pub struct FunctionScopes<'p> {
    program: &'p Program,
    /// (variable, visible from, visible until)
    ranges: Vec<(VarId, u32, u32)>,
}

impl<'p> FunctionScopes<'p> {
    pub fn new(program: &'p Program) -> Self {
        let mut ranges = Vec::new();
        for (var, _) in &program.globals {
            ranges.push((*var, program.var(*var).span.end, u32::MAX));
        }
        for f in &program.funcs {
            let Some(body) = &f.body else { continue };
            for p in &f.params {
                ranges.push((*p, f.span.start, f.span.end));
            }
            collect_scopes(body, body.span.end, &mut ranges);
        }
        FunctionScopes { program, ranges }
    }
}

fn collect_scopes(s: &Stmt, until: u32, out: &mut Vec<(VarId, u32, u32)>) {
    match &s.kind {
        StmtKind::Decl { var, .. } | StmtKind::VlaDecl { var, .. } => out.push((*var, s.span.end, until)),
        StmtKind::Block(b) => b.iter().for_each(|x| collect_scopes(x, s.span.end, out)),
        StmtKind::If { then, els, .. } => {
            collect_scopes(then, then.span.end, out);
            if let Some(e) = els {
                collect_scopes(e, e.span.end, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => collect_scopes(body, body.span.end, out),
        StmtKind::For { init, body, .. } => {
            init.iter().for_each(|x| collect_scopes(x, s.span.end, out));
            collect_scopes(body, body.span.end, out);
        }
        StmtKind::Switch { arms, .. } => {
            arms.iter().flat_map(|a| a.body.iter()).for_each(|x| collect_scopes(x, s.span.end, out))
        }
        _ => {}
    }
}

impl Scope for FunctionScopes<'_> {
    fn candidates(&self, at: Span, ty: &Type) -> Vec<VarId> {
        let mut vars: Vec<VarId> = self
            .ranges
            .iter()
            .filter(|(v, from, until)| {
                let var = self.program.var(*v);
                *from <= at.start && at.end <= *until && &var.ty == ty && !var.hidden()
            })
            .map(|(v, _, _)| *v)
            .collect();
        // An inner declaration shadows an outer one of the same name.
        vars.sort();
        vars.dedup();
        let mut seen = HashSet::new();
        vars.reverse();
        vars.retain(|v| seen.insert(self.program.var(*v).name.clone()));
        vars.reverse();
        vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_given_a_named_state_takes_its_other_states() {
        let src = "#define FORA 0\n#define SOMA 1\n#define SUB 2\n#define NEUTRO 3\n#define MAX 80\nint main(void) {\n    int estado = NEUTRO, n = MAX;\n    int c = getchar();\n    if (c == '+') estado = SOMA;\n    switch (estado) { case SUB: n = 1; break; default: break; }\n    return estado == FORA ? n : 0;\n}\n";
        let program = crate::syntax::lower::lower_source(src).program;
        let (_, alternatives) = mutation_unit(&program, src, &Options::default());
        let states: Vec<String> = alternatives
            .values()
            .flat_map(|(_, ms)| ms.iter().filter(|m| m.kind == super::super::catalogue::MutationKind::NamedState))
            .map(|m| m.description.clone())
            .collect();
        // `estado`'s states are the names it is given, switched on or compared with; `n`'s
        // `MAX` is no state of `estado`, and `n` has no other. (`SOMA` → `FORA` is offered
        // too, as `init-off-by-one`: 1 and 0.)
        expect_test::expect![[r#"
            `NEUTRO` → `SUB`
            `NEUTRO` → `SOMA`
            `NEUTRO` → `FORA`
            `SOMA` → `NEUTRO`
            `SOMA` → `SUB`"#]]
        .assert_eq(&states.join("\n"));
    }

    #[test]
    fn an_extreme_from_a_constant_start_may_take_the_first_item() {
        let src = "int main(void) {\n    int a[4] = {-3, -1, -7, -2}, i, max = 0, min = 0, n = 0;\n    for (i = 0; i < 4; i++) {\n        if (a[i] > max)\n            max = a[i];\n        if (min >= a[i]) min = a[i];\n        if (a[i] > n) n++;\n        if (a[i] > 0) max++;\n    }\n    while (i > 0) {\n        if (a[i - 1] < min) min = a[i - 1];\n        i--;\n    }\n    for (long k = 1; k < 4; k++)\n        if (a[k] < min) min = a[k];\n    return max + min + n;\n}\n";
        let lowered = crate::syntax::lower::lower_source(src);
        assert!(
            lowered.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error),
            "{:?}",
            lowered.diagnostics
        );
        let program = lowered.program;
        let (_, alternatives) = mutation_unit(&program, src, &Options::default());
        let mut firsts: Vec<String> = alternatives
            .values()
            .flat_map(|(_, ms)| ms.iter().filter(|m| m.kind == super::super::catalogue::MutationKind::FirstItem))
            .map(|m| format!("{} at {}", m.description, m.edit.new_text))
            .collect();
        firsts.sort();
        // Not a test whose `if` does not then assign the compared value (`n++` counts), nor
        // outside a counting `for`, nor over a counter that is not an `int`.
        expect_test::expect![[r#"
            `a[i] > max` → `i == 0 || a[i] > max` at (i == 0 || a[i] > max)
            `min >= a[i]` → `i == 0 || min >= a[i]` at (i == 0 || min >= a[i])"#]]
        .assert_eq(&firsts.join("\n"));
    }

    #[test]
    fn a_text_change_is_a_statement_only_when_the_print_goes() {
        let src = "int main(void) {\n    printf(\"a \\n\");\n    return 0;\n}\n";
        let program = crate::syntax::lower::lower_source(src).program;
        let call = Span::new(src.find("printf").unwrap(), src.find(";").unwrap());
        let literal = Span::new(src.find('"').unwrap(), src.find(");").unwrap());
        let space = literal.start as usize + 2;
        let in_format = Change::of_text(
            &program,
            TextEdit { span: Span::new(space, space + 1), new_text: String::new() },
            Place { span: literal, change: "`\"a \\n\"` → `\"a\\n\"`".into() },
        );
        assert_eq!(in_format.location.kind, LocationKind::Arg);
        let deleted = Change::of_text(
            &program,
            TextEdit { span: Span::new(call.start as usize - 4, call.end as usize + 2), new_text: String::new() },
            Place { span: call, change: "delete `printf(\"a \\n\")`".into() },
        );
        assert_eq!(deleted.location.kind, LocationKind::Statement);
        assert_eq!(deleted.mutant.kind, super::super::catalogue::MutationKind::PrintedText);
    }
}
