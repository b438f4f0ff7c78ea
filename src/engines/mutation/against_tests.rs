//! The same mutation and repair units with tests as the specification (AllRepair's "specs
//! beyond assertions"): each test is an input with an assertion on the output. For concrete
//! inputs the solver would only propagate constants through the unwound program, so the
//! check of a candidate is the exact, unbounded answer of the interpreter instead: the
//! mutated program runs every test (those that failed first) and is a repair when all pass.
//! The guarantee is `Tested`: it passes the tests, nothing more is claimed.
//!
//! Localization uses the tests' spectrum (Ochiai, as in the survey seed): a location executed
//! by failing tests and rarely by passing ones ranks first. It orders, never filters.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::engines::localize::Suspects;
use crate::ir::*;
use crate::smt::Budget;
use crate::smt::encode::LocationKind;
use crate::spec::interp::{self, Limits};

use super::concrete;
use super::engine::{Alternatives, Change, FoundRepair, FunctionScopes, Options, mutation_unit, selection_changes};
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

/// A change of the literal text a program (written as the given source) prints that makes it
/// pass every test, as changes of that source.
pub type TextFix<'a> = &'a mut dyn FnMut(&Program, &str, &Budget) -> Option<Vec<Change>>;

/// How far a program's outputs on the tests are from the expected ones, and which outputs
/// they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closeness {
    /// 0: it passes them all; see [`crate::spec::compare::output_distance`].
    pub distance: u64,
    /// A fingerprint of the outputs (and errors) themselves: a change that leaves them as they
    /// were is no step towards a repair, one that changes them at the same distance may be.
    pub outputs: u64,
    /// The steps the runs that stop with an error take before it: a change that makes them
    /// fail later (a missing string terminator added, the next one now read) has got further.
    pub steps_before_errors: u64,
    /// The tests whose runs stop with an error (an unset local read, a run that does not end).
    pub errors: u32,
}

impl Closeness {
    /// Whether a program this close is worth a second change, from a program at `before`:
    /// it comes closer, or it prints something else at the same distance, such as a
    /// separator moved from after the last item to a missing line break (`1 2 6 ` to `1 2 6`
    /// where `1 2 6\n` is expected), which a change of the printed text then fixes. Runs
    /// that stop with an error must not stop sooner: one that now fails earlier elsewhere (a
    /// call moved before the read that gives its argument a value) is no step.
    fn a_step_from(self, before: Closeness) -> bool {
        self.distance < before.distance
            || (self.distance == before.distance
                && self.outputs != before.outputs
                && self.steps_before_errors >= before.steps_before_errors)
    }
}

/// What tests say beyond pass or fail, which a repair of two changes needs.
pub struct Guidance<'a> {
    /// How close a program's outputs are to the tests' expected ones (`None`: not known, e.g.
    /// cancelled).
    pub closeness: &'a mut dyn FnMut(&Program, &Budget) -> Option<Closeness>,
    pub text_fix: TextFix<'a>,
}

/// Searches every minimal mutation repair that makes `passes_all` accept the program.
/// `passes_all` runs the tests on a candidate program (the check layer owns comparison
/// modes and step limits); `results` are the original program's test results; `guidance`,
/// where the spec gives it, lets a statement repair that brings the outputs closer take one
/// more change.
#[allow(clippy::too_many_arguments)]
pub fn run(
    program: &Program,
    src: &str,
    opts: &Options,
    results: &[TestResult],
    passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
    guidance: Option<Guidance<'_>>,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&FoundRepair),
) -> TestsReport {
    let started = Instant::now();
    let spectrum = Spectrum::of(program, &opts.entry, results, &opts.suspects, &budget.cancel);
    let units = Units::new(program, src, opts, &spectrum);
    let mut report = TestsReport {
        locations: units.alternatives.len(),
        alternatives: units.alternatives.values().map(|(_, m)| m.len()).sum(),
        ..Default::default()
    };
    let tests = results.len() as u32;
    let mut found = Vec::new();
    let mut checked = 0;
    let mut on_found = |repair: FoundRepair| {
        let repair = FoundRepair { guarantee: Guarantee::Tested { tests }, found_after: started.elapsed(), ..repair };
        on_repair(&repair);
        found.push(repair);
    };
    // Wolverine2's priority: a changed expression, then a moved, deleted or inserted statement,
    // then a statement and one more change, then two changed expressions.
    let (mut outcome, found_one) = units.search(1, passes_all, budget, &mut checked, &mut on_found);
    if !found_one && budget.stop_reason().is_none() {
        let statements = StatementSearch { program, src, opts, spectrum: &spectrum, results };
        let mut found = statements.first_repair(passes_all, budget, &mut checked);
        let mut guidance = guidance;
        if found.is_none()
            && opts.max_size > 1
            && let Some(guidance) = guidance.as_mut()
        {
            found = statements.first_with_one_more(passes_all, guidance, budget, &mut checked);
        }
        if let Some(repair) = found {
            on_found(repair);
            // The larger expression repairs were not searched: nothing is exhausted.
            outcome = Outcome::Incomplete { reason: "stopped at a statement repair".into(), size_reached: 1 };
        } else if opts.max_size > 1 && budget.stop_reason().is_none() {
            let (exhausted, any) = units.search(opts.max_size, passes_all, budget, &mut checked, &mut on_found);
            outcome = exhausted;
            if !any
                && opts.several
                && budget.stop_reason().is_none()
                && let Some(guidance) = guidance.as_mut()
                && let Some(repair) = statements.first_of_several(passes_all, guidance, budget, &mut checked)
            {
                on_found(repair);
                outcome = Outcome::Incomplete {
                    reason: "stopped at a repair of several changes".into(),
                    size_reached: opts.max_size,
                };
            }
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
    loc_ids: Vec<crate::smt::encode::LocationId>,
    alternatives: Alternatives,
    counts: Vec<usize>,
    suspiciousness: Vec<f64>,
    smallest_only: bool,
}

impl<'a> Units<'a> {
    /// The space of `program` (written as `src`), its locations ranked by `spectrum`.
    fn new(program: &'a Program, src: &str, opts: &Options, spectrum: &Spectrum) -> Units<'a> {
        let (_, alternatives) = mutation_unit(program, src, opts);
        let loc_ids: Vec<_> = alternatives.keys().copied().collect();
        let counts = loc_ids.iter().map(|id| alternatives[id].1.len() + 1).collect();
        let suspiciousness = loc_ids.iter().map(|id| spectrum.score(alternatives[id].0.span)).collect();
        Units { program, loc_ids, alternatives, counts, suspiciousness, smallest_only: opts.smallest_only }
    }

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
            TestsOracle { program: self.program, loc_ids: &self.loc_ids, alternatives: &self.alternatives, passes_all };
        let opts = SearchOptions {
            max_size,
            suspiciousness: Some(self.suspiciousness.to_vec()),
            first_pass_cap: None,
            smallest_only: self.smallest_only,
        };
        let mut any = false;
        let (outcome, stats) = search::all_repairs(&self.counts, &mut oracle, &opts, budget, &mut |selection| {
            let changes = selection_changes(&self.loc_ids, selection, &self.alternatives)
                .into_iter()
                .map(|(_, _, c)| c)
                .collect();
            any = true;
            on_found(found(changes));
            true
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
    /// Where a localisation points ([`Options::suspects`]): the function's code ranks before
    /// the rest, and the statements before that.
    suspects: Suspects,
}

impl Spectrum {
    pub fn of(
        program: &Program,
        entry: &str,
        results: &[TestResult],
        suspects: &Suspects,
        cancel: &Cancel,
    ) -> Spectrum {
        // Coverage only: a run that prints 64 KB has covered what its loop covers.
        let limits = Limits { record_coverage: true, max_steps: 5_000_000, max_output: 1 << 16, ..Limits::default() };
        let runs: Vec<(bool, Vec<Span>)> = results
            .iter()
            .map(|t| (t.passed, interp::run(program, entry, t.input.as_bytes(), &limits, cancel).covered))
            .collect();
        let failing = runs.iter().filter(|(p, _)| !p).count() as f64;
        Spectrum { statements: statement_spans(program), runs, failing, suspects: suspects.clone() }
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
        let focused = self.suspects.function.is_some_and(|f| f.start <= at.start && at.end <= f.end);
        let in_window =
            self.suspects.statements.binary_search_by_key(&(stmt.start, stmt.end), |s| (s.start, s.end)).is_ok();
        0.01 + score + if focused { 1.0 } else { 0.0 } + if in_window { 2.0 } else { 0.0 }
    }
}

/// The statement repairs ([`statements`]) of one program, checked on its tests.
struct StatementSearch<'a> {
    program: &'a Program,
    src: &'a str,
    opts: &'a Options,
    spectrum: &'a Spectrum,
    results: &'a [TestResult],
}

/// A statement repair applied: its text and that text lowered.
struct Patched {
    candidate: statements::Candidate,
    text: String,
    program: Program,
}

impl StatementSearch<'_> {
    /// Every statement repair whose text lowers without errors, best first.
    fn patched(&self, budget: &Budget) -> impl Iterator<Item = Patched> + '_ {
        let scope = FunctionScopes::new(self.program);
        let score = |at: Span| self.spectrum.score(at);
        let candidates = statements::candidates(
            self.program,
            self.src,
            &self.opts.frozen,
            &scope,
            self.opts.reference.as_ref(),
            &score,
        );
        let cancel = budget.clone();
        candidates.into_iter().take_while(move |_| cancel.stop_reason().is_none()).filter_map(|candidate| {
            let edits: Vec<TextEdit> = candidate.changes.iter().map(|c| c.mutant.edit.clone()).collect();
            let text = apply_edits(self.src, &edits);
            let program = crate::syntax::lower::lower_without_errors(&text)?;
            Some(Patched { candidate, text, program })
        })
    }

    /// The first statement repair that passes `passes_all`.
    fn first_repair(
        &self,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        budget: &Budget,
        checked: &mut usize,
    ) -> Option<FoundRepair> {
        for p in self.patched(budget) {
            *checked += 1;
            if matches!((passes_all)(&p.program, budget), Verdict::Repaired) {
                return Some(found(p.candidate.changes));
            }
        }
        None
    }

    /// Two changes, one a statement repair: the statement repairs that bring the outputs
    /// closest to the expected ones (a separator printed only between items, where a stray
    /// line break is also printed), or change them at the same distance when none comes
    /// closer ([`Closeness::a_step_from`]), each with one more change on its text (a fix of
    /// the printed text, an expression mutation or another statement repair), until one
    /// passes `passes_all`; then those that only changed the outputs, with a fix of the
    /// printed text. The closeness decides which statement repairs are worth a second
    /// change: without it the pair space is the square of the statement space.
    fn first_with_one_more(
        &self,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        guidance: &mut Guidance<'_>,
        budget: &Budget,
        checked: &mut usize,
    ) -> Option<FoundRepair> {
        let Guidance { closeness, text_fix } = guidance;
        let before = closeness(self.program, budget)?;
        // The closest, kept sorted as they come: of equally close ones, the better ranked first.
        let mut closer: Vec<(u64, Patched)> = Vec::new();
        // Those that change the outputs without coming closer: a change that makes every
        // test go wrong the same way (the line break `fgets` keeps cut off, so no line ends
        // with one) can leave one fix of the printed text for all of them.
        let mut reshaped: Vec<Patched> = Vec::new();
        for p in self.patched(budget).take(MAX_FIRST_STATEMENTS) {
            *checked += 1;
            match closeness(&p.program, budget) {
                Some(c) if c.a_step_from(before) => keep_closest(&mut closer, c.distance, p, MAX_CLOSER),
                Some(c) if c.outputs != before.outputs && reshaped.len() < MAX_RESHAPED => reshaped.push(p),
                _ => {}
            }
        }
        tracing::debug!(
            closer = ?closer.iter().map(|(d, p)| (d, p.candidate.changes[0].mutant.description.as_str())).collect::<Vec<_>>(),
            "statement repairs that get a second change"
        );
        for (_, first) in closer {
            let spectrum =
                Spectrum::of(&first.program, &self.opts.entry, self.results, &Suspects::default(), &budget.cancel);
            let second = StatementSearch { program: &first.program, src: &first.text, spectrum: &spectrum, ..*self };
            let mut seconds: Vec<Vec<Change>> = text_fix(&first.program, &first.text, budget).into_iter().collect();
            if seconds.is_empty() {
                seconds = second.expression_repairs(passes_all, budget, checked);
            }
            if seconds.is_empty() {
                seconds.extend(second.first_repair(passes_all, budget, checked).map(|r| r.changes));
            }
            tracing::debug!(
                first = first.candidate.changes[0].mutant.description.as_str(),
                seconds = seconds.len(),
                "second changes on a statement repair"
            );
            for changes in seconds {
                if let Some(both) = self.combined(&first, changes) {
                    return Some(found(both));
                }
            }
            if budget.stop_reason().is_some() {
                return None;
            }
        }
        for first in reshaped {
            if budget.stop_reason().is_some() {
                return None;
            }
            *checked += 1;
            if let Some(both) = text_fix(&first.program, &first.text, budget).and_then(|fix| self.combined(&first, fix))
            {
                return Some(found(both));
            }
        }
        None
    }

    /// Several slips, each a change of the vocabulary: GenProg's fitness (the survey seed:
    /// how far the tests' outputs are from the expected ones) guides a beam search. From the
    /// program, every single change (an expression mutant, a statement repair, a fix of the
    /// printed text) is run on the tests; the closest that come closer than their parent go on
    /// (one of those that print the same), with the closest of those that stop with an error
    /// on fewer tests, until one passes `passes_all`; a statement repair that only changes the
    /// outputs gets a fix of the printed text at once. The beam widens and deepens in turn
    /// ([`WIDENING`]). The repair is then minimised as the seed's delta debugging does: a
    /// change the others pass without is dropped.
    fn first_of_several(
        &self,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        guidance: &mut Guidance<'_>,
        budget: &Budget,
        checked: &mut usize,
    ) -> Option<FoundRepair> {
        // Wider and deeper while the budget lasts, as long as the last search left out
        // programs that came closer (a narrower beam ends in seconds on most programs).
        // A program's closeness is the same in every round: a wider one runs the tests only
        // on the programs the narrower ones did not reach.
        let mut known: HashMap<String, Closeness> = HashMap::new();
        for (width, depth) in WIDENING {
            match self.beam_search(passes_all, guidance, budget, checked, &mut known, (width, depth)) {
                Beam::Found(repair) => return Some(repair),
                Beam::Pruned if budget.stop_reason().is_none() => {}
                Beam::Pruned | Beam::Exhausted => return None,
            }
        }
        None
    }

    /// One beam search of [`Self::first_of_several`]: the `width` closest go on at each step,
    /// up to `depth` changes.
    fn beam_search(
        &self,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        guidance: &mut Guidance<'_>,
        budget: &Budget,
        checked: &mut usize,
        known: &mut HashMap<String, Closeness>,
        (width, depth): (usize, usize),
    ) -> Beam {
        let start = Node { text: self.src.to_string(), program: self.program.clone(), changes: Vec::new() };
        let Some(closeness) = (guidance.closeness)(self.program, budget) else { return Beam::Exhausted };
        let mut beam = vec![(closeness, start)];
        let mut seen: HashSet<String> = HashSet::from([self.src.to_string()]);
        let mut pruned = false;
        for step in 1..=depth {
            let mut next: Vec<(u64, (Closeness, Node))> = Vec::new();
            // The closest of those that stop with an error on fewer tests without coming
            // closer: an unset local given a value, a missing terminator added, can print
            // more that is still wrong before the rest of the repair makes it right.
            let mut rescued: Option<(Closeness, Node)> = None;
            for (parent, node) in std::mem::take(&mut beam) {
                for (changes, program, text) in self.single_changes(&node, guidance, budget) {
                    if budget.stop_reason().is_some() {
                        return Beam::Pruned;
                    }
                    if !seen.insert(text.clone()) {
                        continue;
                    }
                    let c = match known.get(&text) {
                        Some(c) => *c,
                        None => {
                            *checked += 1;
                            let Some(c) = (guidance.closeness)(&program, budget) else { continue };
                            known.insert(text.clone(), c);
                            c
                        }
                    };
                    let reshaping = changes.first().is_some_and(|c| c.location.kind == LocationKind::Statement)
                        && c.outputs != parent.outputs;
                    let Some(changes) = self.joined(&node.changes, changes, &text) else { continue };
                    let child = Node { text, program, changes };
                    if c.distance == 0 && matches!(passes_all(&child.program, budget), Verdict::Repaired) {
                        return Beam::Found(found(self.minimised(child.changes, passes_all, budget)));
                    }
                    // A program that prints what one already kept prints, test by test, is the
                    // same step to the fitness: the beam keeps programs that differ.
                    let comes_closer = c.distance < parent.distance;
                    // A wider beam keeps more of those that print the same: which of them the
                    // next change builds on is not known from what they print.
                    let same = next.iter().filter(|(_, (kept, _))| kept.outputs == c.outputs).count();
                    let closer = comes_closer && same < width / WIDTH_PER_SAME_OUTPUTS;
                    let room = next.partition_point(|(e, _)| *e <= c.distance) < width;
                    // Left out, or pushing another out: a wider beam would keep both.
                    pruned |= comes_closer && (!closer || !room || next.len() >= width);
                    let fewer_errors = !comes_closer
                        && c.errors < parent.errors
                        && rescued.as_ref().is_none_or(|(kept, _)| c.distance < kept.distance);
                    if (closer && room) || fewer_errors {
                        // An expression mutant's program keeps the spans of the text before
                        // it: the next step needs the text lowered anew.
                        if let Some(program) = crate::syntax::lower::lower_without_errors(&child.text) {
                            let child = Node { program, ..child };
                            if closer {
                                keep_closest(&mut next, c.distance, (c, child), width);
                            } else {
                                rescued = Some((c, child));
                            }
                        }
                    } else if reshaping && step < depth {
                        // Not closer, but every test may now go wrong the same way: a fix
                        // of the printed text may finish it (see `first_with_one_more`).
                        if let Some((fix, program, text)) = text_fixed(&child, guidance, budget)
                            && let Some(all) = self.joined(&child.changes, fix, &text)
                            && matches!(passes_all(&program, budget), Verdict::Repaired)
                        {
                            return Beam::Found(found(self.minimised(all, passes_all, budget)));
                        }
                    }
                }
            }
            if let Some((c, node)) = rescued
                && !next.iter().any(|(_, (kept, _))| kept.outputs == c.outputs)
            {
                next.push((c.distance, (c, node)));
            }
            tracing::debug!(
                step,
                width,
                beam = ?next.iter().map(|(d, (_, n))| (d, n.changes.iter().map(|c| c.mutant.description.as_str()).collect::<Vec<_>>())).collect::<Vec<_>>(),
                "several changes: the closest go on"
            );
            if next.is_empty() {
                return if pruned { Beam::Pruned } else { Beam::Exhausted };
            }
            beam = next.into_iter().map(|(_, n)| n).collect();
        }
        Beam::Pruned
    }

    /// Every single change of `node`'s program with what it gives: the changes (in the
    /// node's text), the program and its text. Expression mutants first (applied to the IR),
    /// then statement repairs, then the printed-text fix.
    fn single_changes(
        &self,
        node: &Node,
        guidance: &mut Guidance<'_>,
        budget: &Budget,
    ) -> Vec<(Vec<Change>, Program, String)> {
        let mut out = Vec::new();
        let spectrum =
            Spectrum::of(&node.program, &self.opts.entry, self.results, &Suspects::default(), &budget.cancel);
        let units = Units::new(&node.program, &node.text, self.opts, &spectrum);
        for id in &units.loc_ids {
            let (loc, mutants) = &units.alternatives[id];
            for m in mutants {
                let Some(program) = concrete::apply(&node.program, &[(loc.span, &m.expr)]) else { continue };
                let text = apply_edits(&node.text, std::slice::from_ref(&m.edit));
                out.push((vec![Change { location: loc.clone(), mutant: m.clone() }], program, text));
            }
        }
        let here = StatementSearch { program: &node.program, src: &node.text, spectrum: &spectrum, ..*self };
        out.extend(here.patched(budget).take(MAX_FIRST_STATEMENTS).map(|p| (p.candidate.changes, p.program, p.text)));
        out.extend(text_fixed(node, guidance, budget));
        out
    }

    /// `change`, made on the text after `earlier` (edits of this program's text), as a change
    /// of this program's text; `None` when its edit touches what an earlier one wrote.
    fn before(&self, mut change: Change, earlier: &[TextEdit]) -> Option<Change> {
        change.mutant.edit.span = span_before(change.mutant.edit.span, earlier)?;
        // A place that holds an earlier edit (a format literal whose directives one changed
        // and whose text this one does; an expression with a second slip in it) is this
        // change's edit itself, and its words are of the student's text, not of the text the
        // earlier change made. A statement an earlier change changed inside (a loop whose body
        // it added to) is still the statement this change's words name.
        let statement = change.location.kind == LocationKind::Statement;
        let mapped = span_before(change.location.span, earlier)
            .or_else(|| if statement { enclosing_span_before(change.location.span, earlier) } else { None });
        match mapped {
            Some(span) => change.location.span = span,
            None => {
                change.location.span = change.mutant.edit.span;
                change.mutant.description = described_alone(self.src, &change.mutant.edit);
            }
        }
        Some(change)
    }

    /// `earlier` (changes of this program's text) and `more` (made on the text after them) as
    /// changes of this program's text, adjacent ones merged; `None` when `more` touches what an
    /// earlier change wrote, or all of them applied at once do not give `text`.
    fn joined(&self, earlier: &[Change], more: Vec<Change>, text: &str) -> Option<Vec<Change>> {
        let earlier_edits: Vec<TextEdit> = earlier.iter().map(|c| c.mutant.edit.clone()).collect();
        let mut all = earlier.to_vec();
        for change in more {
            all.push(self.before(change, &earlier_edits)?);
        }
        let edits: Vec<TextEdit> = all.iter().map(|c| c.mutant.edit.clone()).collect();
        (apply_edits(self.src, &edits) == text).then(|| self.adjacent_merged(all))
    }

    /// `changes` with each change of an expression whose edit starts where an earlier one's
    /// ends made one with it: `'\n'` → `EOF`, then ` && c != '\n'` added after it, is one
    /// change of the student's `'\n'`, not an insertion described as "`` → `…`".
    fn adjacent_merged(&self, changes: Vec<Change>) -> Vec<Change> {
        let mergeable = |c: &Change| c.location.kind != LocationKind::Statement && !c.mutant.kind.is_companion();
        let mut out: Vec<Change> = Vec::new();
        for change in changes {
            let earlier = out.iter_mut().find(|e| {
                mergeable(e) && mergeable(&change) && e.mutant.edit.span.end == change.mutant.edit.span.start
            });
            match earlier {
                Some(e) => {
                    e.mutant.edit.span.end = change.mutant.edit.span.end;
                    e.mutant.edit.new_text.push_str(&change.mutant.edit.new_text);
                    e.mutant.description = described_alone(self.src, &e.mutant.edit);
                }
                None => out.push(change),
            }
        }
        out
    }

    /// `changes` without every change the others pass the tests without, last first.
    fn minimised(
        &self,
        mut changes: Vec<Change>,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        budget: &Budget,
    ) -> Vec<Change> {
        for i in (0..changes.len()).rev() {
            if changes.len() == 1 {
                break;
            }
            let rest: Vec<TextEdit> =
                changes.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| c.mutant.edit.clone()).collect();
            if crate::syntax::lower::lower_without_errors(&apply_edits(self.src, &rest))
                .is_some_and(|program| matches!(passes_all(&program, budget), Verdict::Repaired))
            {
                changes.remove(i);
            }
        }
        changes
    }

    /// The one-expression repairs of this program that pass `passes_all`.
    fn expression_repairs(
        &self,
        passes_all: &mut dyn FnMut(&Program, &Budget) -> Verdict,
        budget: &Budget,
        checked: &mut usize,
    ) -> Vec<Vec<Change>> {
        let units = Units::new(self.program, self.src, self.opts, self.spectrum);
        let mut out = Vec::new();
        units.search(1, passes_all, budget, checked, &mut |r| out.push(r.changes));
        out
    }

    /// `first`'s changes and `second`'s (made on `first`'s text) as changes of this program's
    /// text; `None` when `second` touches what `first` wrote, or the two together do not give
    /// the text they give one after the other.
    fn combined(&self, first: &Patched, second: Vec<Change>) -> Option<Vec<Change>> {
        let second_edits: Vec<TextEdit> = second.iter().map(|c| c.mutant.edit.clone()).collect();
        self.joined(&first.candidate.changes, second, &apply_edits(&first.text, &second_edits))
    }
}

/// The fix of the printed text of `node`'s program, with the program and text it gives.
fn text_fixed(node: &Node, guidance: &mut Guidance<'_>, budget: &Budget) -> Option<(Vec<Change>, Program, String)> {
    let changes = (guidance.text_fix)(&node.program, &node.text, budget)?;
    let edits: Vec<TextEdit> = changes.iter().map(|c| c.mutant.edit.clone()).collect();
    let text = apply_edits(&node.text, &edits);
    let program = crate::syntax::lower::lower_without_errors(&text)?;
    Some((changes, program, text))
}

fn found(changes: Vec<Change>) -> FoundRepair {
    FoundRepair { changes, guarantee: Guarantee::Tested { tests: 0 }, found_after: Duration::ZERO }
}

/// Statement repairs whose closeness is measured for a second change.
const MAX_FIRST_STATEMENTS: usize = 400;
/// The beam searches of [`StatementSearch::first_of_several`], in turn: how many programs go
/// on at each step, and the most changes of a repair.
const WIDENING: [(usize, usize); 3] = [(3, 3), (6, 4), (12, 5)];

/// A beam keeps one program per output for each this many of its width.
const WIDTH_PER_SAME_OUTPUTS: usize = 3;

/// How a beam search ended.
enum Beam {
    Found(FoundRepair),
    /// With programs left out that came closer (no room in the beam, the last step reached,
    /// or the budget spent): a wider, deeper search may find more.
    Pruned,
    /// Nothing came closer: a wider search would find what this one found.
    Exhausted,
}

/// A program on the way of [`StatementSearch::first_of_several`]: its text, lowered, and the
/// changes of the original text that give it.
struct Node {
    text: String,
    program: Program,
    changes: Vec<Change>,
}
/// The closest statement repairs that get a second change.
const MAX_CLOSER: usize = 3;
/// Statement repairs that change the outputs without coming closer, tried with a fix of the
/// printed text (cheap: one run of the tests each).
const MAX_RESHAPED: usize = 50;

/// `item` at distance `d` among the `max` closest of `list`, kept sorted as they come: of
/// equally close ones, the earlier (better ranked) first.
fn keep_closest<T>(list: &mut Vec<(u64, T)>, d: u64, item: T, max: usize) {
    let at = list.partition_point(|(e, _)| *e <= d);
    if at < max {
        list.insert(at, (d, item));
        list.truncate(max);
    }
}

/// "`old` → `new`" for `edit` of `src` alone: within the string literal that holds it where
/// there is one (`"%2d::%2d"` → `"%2d:%2d"`), else its own text.
fn described_alone(src: &str, edit: &TextEdit) -> String {
    let (start, end) = (edit.span.start as usize, edit.span.end as usize);
    let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[end..].find('\n').map_or(src.len(), |i| end + i);
    // The literals of the line, by their quotes (an escaped quote is inside one).
    let mut literal = None;
    let (mut open, mut escaped) = (None, false);
    for (i, c) in src[line_start..line_end].char_indices() {
        let at = line_start + i;
        match (open, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(from), '"') => {
                if from <= start && end <= at + 1 {
                    literal = Some((from, at + 1));
                }
                open = None;
            }
            (None, '"') => open = Some(at),
            _ => {}
        }
    }
    let (from, to) = literal.unwrap_or((start, end));
    let mut new = src[from..start].to_string();
    new.push_str(&edit.new_text);
    new.push_str(&src[end..to]);
    format!("`{}` → `{new}`", &src[from..to])
}

/// A span of the text after `edits` as a span of the text before them; `None` when it
/// overlaps what an edit wrote.
fn span_before(span: Span, edits: &[TextEdit]) -> Option<Span> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut shift: i64 = 0;
    for e in sorted {
        let written_start = e.span.start as i64 + shift;
        let written_end = written_start + e.new_text.len() as i64;
        if (span.end as i64) <= written_start {
            break;
        }
        if (span.start as i64) < written_end {
            return None;
        }
        shift += e.new_text.len() as i64 - (e.span.end - e.span.start) as i64;
    }
    let start = span.start as i64 - shift;
    let end = span.end as i64 - shift;
    (start >= 0).then(|| Span::new(start as usize, end as usize))
}

/// A span of the text after `edits` that may hold what they wrote, as a span of the text
/// before them: its ends mapped each on its own; `None` when an end falls inside what an
/// edit wrote.
fn enclosing_span_before(span: Span, edits: &[TextEdit]) -> Option<Span> {
    let point = |p: u32| {
        let shifted = span_before(Span::new(p as usize, p as usize), edits)?;
        Some(shifted.start as usize)
    };
    Some(Span::new(point(span.start)?, point(span.end)?))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, text: &str) -> TextEdit {
        TextEdit { span: Span::new(start, end), new_text: text.into() }
    }

    #[test]
    fn a_second_change_maps_back_around_the_first() {
        let original = "a = 1; b = 2; c = 3;";
        // The first change writes `bb = 22;` over `b = 2;`.
        let first = [edit(7, 13, "bb = 22;")];
        let patched = apply_edits(original, &first);
        assert_eq!(patched, "a = 1; bb = 22; c = 3;");
        // Before it (or ending where it starts): unmoved; after it (or starting where it ends):
        // two bytes back; overlapping what it wrote: none.
        assert_eq!(span_before(Span::new(4, 5), &first), Some(Span::new(4, 5)));
        assert_eq!(span_before(Span::new(20, 21), &first), Some(Span::new(18, 19)));
        assert_eq!(span_before(Span::new(12, 14), &first), None);
        assert_eq!(span_before(Span::new(7, 7), &first), Some(Span::new(7, 7)));
        assert_eq!(span_before(Span::new(15, 15), &first), Some(Span::new(13, 13)));
        // Applied together to the original, the mapped change gives what it gave on the patch.
        let second = edit(20, 21, "4");
        let mapped = TextEdit { span: span_before(second.span, &first).unwrap(), ..second.clone() };
        let both = [first[0].clone(), mapped];
        assert_eq!(apply_edits(original, &both), apply_edits(&patched, &[second]));
        // A statement that holds what the first wrote maps by its ends; an end inside it does not.
        assert_eq!(enclosing_span_before(Span::new(4, 17), &first), Some(Span::new(4, 15)));
        assert_eq!(enclosing_span_before(Span::new(9, 17), &first), None);
    }
}
