//! Fault localisation inside one function (Wolverine2, §4, at its grain: statements). The
//! paper compares the state a run reaches, forward, with the state the specification
//! expects, backward, at points of the run; the fault lies among the statements run after
//! the last point where the two agree and before the first where they differ.
//!
//! Without a debugger session the expected states come from the reference. Its loops and
//! `return`s are paired with the student's by their place in the function's structure (the
//! k-th loop with the k-th loop when both nest their loops alike, the k-th `return` with the
//! k-th when both have as many), and a point's n-th arrival in one run with its n-th arrival
//! in the other. Values are drawn as a student draws them ([`Paused::locals`]). A student
//! variable stands for the reference's variable of the same name and type; one of another
//! name stands for the reference variable of its type whose values it follows longest from
//! the start (at least once) at those points: students name things their own way.
//!
//! Two programs may use a variable for different things (`i` counting from 1 in one, from 0
//! in the other), and a pairing by values may be wrong, so a difference alone proves nothing. Wolverine2's `change` command
//! gives the test of cause: at each point where a number differs the student's run is given
//! the reference's values and goes on. When the rest of the run then passes the test, the
//! difference is what made it fail ([`WrongState::confirmed`]); the claim shown to a student
//! is exactly that.

use std::collections::{HashMap, VecDeque};

use crate::cancel::Cancel;
use crate::ir::walk::{assigned_vars, for_each_stmt};
use crate::ir::{FuncId, Program, Span, Stmt, StmtKind};
use crate::spec::compare::{self, Compare};
use crate::spec::expectations::HitCounts;
use crate::spec::interp::Limits;
use crate::spec::interp::debug::{Debugger, Paused, Resume, run_debug};

/// Where a failing test's run inside one function first leaves the reference's states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrongState {
    pub func: FuncId,
    /// The student's loop header or `return` where the states first differ.
    pub point: Span,
    pub point_kind: PointKind,
    /// Which arrival at it (1: the first).
    pub arrival: u32,
    /// The paired variables that differ there, in the order the student's frame declares them.
    pub differences: Vec<VariableDifference>,
    /// The statement (or the part of one: a condition, a `for`'s step) after which the first
    /// differing variable holds the value it has at the point, when it ran since the last
    /// state that agreed.
    pub culprit: Option<Span>,
    /// The statements of the function run since the last state that agreed, sorted.
    pub window: Vec<Span>,
    /// Given the reference's values wherever a number differed, the rest of the student's
    /// run passes the test: the difference is what made it fail.
    pub confirmed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointKind {
    Loop,
    Return,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableDifference {
    pub name: String,
    /// The reference's variable it stands for.
    pub reference_name: String,
    pub got: String,
    pub expected: String,
}

/// States recorded from the reference's run at most: a run past them is compared no further.
const MAX_STATES: usize = 20_000;
/// Statements of the window kept (the latest), for the culprit.
const MAX_WINDOW: usize = 10_000;
/// Points where the student's run is given the reference's values before the test of cause
/// gives up.
const MAX_CORRECTIONS: u32 = 8;

/// Runs `reference` then `student` on `input`, compares their states in `function` (a
/// function both define) at its paired points, and names the first difference. `expected`
/// and `compare` say when the corrected run passes the test. `None` when the states agree
/// wherever both runs have one, or no point pairs.
#[allow(clippy::too_many_arguments)]
pub fn first_wrong_state(
    student: &Program,
    reference: &Program,
    function: &str,
    entry: &str,
    input: &[u8],
    expected: &str,
    compare: Compare,
    max_steps: u64,
    cancel: &Cancel,
) -> Option<WrongState> {
    let sf = student.func_by_name(function)?;
    let rf = reference.func_by_name(function)?;
    let pairs = paired_points(student, sf, reference, rf);
    if pairs.is_empty() {
        return None;
    }
    let limits = Limits { max_steps, max_output: 1 << 16, ..Limits::default() };
    let theirs = record(reference, rf, pairs.iter().map(|p| p.reference).collect(), entry, input, &limits, cancel);
    if theirs.error || theirs.states.is_empty() {
        return None;
    }
    // The student's run as it is, to pair its variables with the reference's.
    let limits = limits.within_reference(theirs.steps);
    let ours = record(student, sf, pairs.iter().map(|p| p.student).collect(), entry, input, &limits, cancel);
    let partners = partners(&ours, &theirs);
    if partners.is_empty() {
        return None;
    }
    let mut comparer = Comparer {
        func: sf,
        pairs: &pairs,
        partners: &partners,
        expected: &theirs.states,
        hits: HitCounts::default(),
        window: VecDeque::new(),
        agreed: None,
        first: None,
        corrections: 0,
        gave_up: false,
    };
    let corrected = run_debug(student, entry, input, &limits, cancel, &mut comparer);
    let first = comparer.first?;
    let actual = String::from_utf8_lossy(&corrected.output);
    let confirmed = !comparer.gave_up
        && corrected.error.is_none()
        && compare::output_matches(compare, expected, None, &actual, Some(corrected.output_before_last_read));
    let pair = &pairs[first.at.0];
    Some(WrongState {
        func: sf,
        point: pair.student,
        point_kind: pair.kind,
        arrival: first.at.1,
        culprit: culprit(student, sf, &pairs, &first, entry, input, &limits, cancel),
        differences: first.differences,
        window: first.window,
        confirmed,
    })
}

/// [`first_wrong_state`] on the first of the `failing` tests (input, expected output), unless
/// one of the `passing` inputs shows the same variable differing at the same point: there the
/// student uses the variable otherwise (the first value read apart, a count from 1) and the run
/// is right all the same, so the difference is not what makes the test fail. It stays
/// confirmed only if every other failing test confirms the same variable too: a program that
/// prints `yes` or `no` passes half of its tests by chance once its state is changed.
#[allow(clippy::too_many_arguments)]
pub fn blamed_state(
    student: &Program,
    reference: &Program,
    function: &str,
    entry: &str,
    failing: &[(&[u8], &str)],
    passing: &[&[u8]],
    compare: Compare,
    max_steps: u64,
    cancel: &Cancel,
) -> Option<WrongState> {
    let localise = |input: &[u8], expected: &str| {
        first_wrong_state(student, reference, function, entry, input, expected, compare, max_steps, cancel)
    };
    let (&(input, expected), others) = failing.split_first()?;
    let mut state = localise(input, expected)?;
    let blamed = state.differences.first()?.name.clone();
    let also_when_right = passing.iter().any(|ok| {
        localise(ok, "")
            .is_some_and(|other| other.point == state.point && other.differences.iter().any(|d| d.name == blamed))
    });
    if also_when_right {
        return None;
    }
    state.confirmed = state.confirmed
        && others.iter().all(|(input, expected)| {
            localise(input, expected).is_some_and(|other| other.confirmed && other.differences[0].name == blamed)
        });
    Some(state)
}

/// A loop header or `return` of the student's function and its partner in the reference's.
#[derive(Clone, Debug)]
struct Pair {
    student: Span,
    reference: Span,
    kind: PointKind,
    /// Variables a `for`'s initialisation assigns, in either program: at the loop's first
    /// arrival (before the initialisation runs) their values are about to be replaced.
    initialised: [Vec<String>; 2],
}

/// The loops (with how deep each is nested) and the `return`s of `func`, in source order.
fn points_of(program: &Program, func: FuncId) -> (Vec<(Span, usize)>, Vec<Span>) {
    let (mut loops, mut returns): (Vec<Span>, Vec<Span>) = (Vec::new(), Vec::new());
    let Some(body) = program.func(func).body.as_ref() else { return (Vec::new(), returns) };
    for_each_stmt(body, &mut |s| match s.kind {
        StmtKind::While { .. } | StmtKind::For { .. } | StmtKind::DoWhile { .. } => loops.push(s.span),
        StmtKind::Return(_) => returns.push(s.span),
        _ => {}
    });
    let depth = |s: &Span| loops.iter().filter(|o| o.start <= s.start && s.end <= o.end && *o != s).count();
    let loops = loops.iter().map(|s| (*s, depth(s))).collect();
    (loops, returns)
}

/// Points paired by their place in the structure: loops when both functions nest them alike,
/// `return`s when both have as many.
fn paired_points(student: &Program, sf: FuncId, reference: &Program, rf: FuncId) -> Vec<Pair> {
    let (our_loops, our_returns) = points_of(student, sf);
    let (their_loops, their_returns) = points_of(reference, rf);
    let mut pairs = Vec::new();
    let depths = |l: &[(Span, usize)]| l.iter().map(|(_, d)| *d).collect::<Vec<_>>();
    if depths(&our_loops) == depths(&their_loops) {
        pairs.extend(our_loops.iter().zip(&their_loops).map(|((s, _), (r, _))| Pair {
            student: *s,
            reference: *r,
            kind: PointKind::Loop,
            initialised: [for_initialised(student, sf, *s), for_initialised(reference, rf, *r)],
        }));
    }
    if our_returns.len() == their_returns.len() {
        pairs.extend(our_returns.iter().zip(&their_returns).map(|(s, r)| Pair {
            student: *s,
            reference: *r,
            kind: PointKind::Return,
            initialised: Default::default(),
        }));
    }
    pairs
}

/// The names a `for` loop's initialisation assigns (none for another loop).
fn for_initialised(program: &Program, func: FuncId, at: Span) -> Vec<String> {
    let statements = Statements { program, func };
    let Some(Stmt { kind: StmtKind::For { init, .. }, .. }) = statements.statement_at(at) else { return Vec::new() };
    init.iter().flat_map(assigned_vars).map(|v| program.var(v).name.clone()).collect()
}

/// States at points, by (point, arrival), and the order the run reached them.
struct Recorded {
    states: HashMap<(usize, u32), Vec<Drawn>>,
    order: Vec<(usize, u32)>,
    steps: u64,
    /// The run stopped on an error.
    error: bool,
}

/// The states of `program`'s run at `points` of `func`: every variable of the frame and the
/// globals.
fn record(
    program: &Program,
    func: FuncId,
    points: Vec<Span>,
    entry: &str,
    input: &[u8],
    limits: &Limits,
    cancel: &Cancel,
) -> Recorded {
    let mut recorder = Recorder { func, points, hits: HitCounts::default(), states: HashMap::new(), order: Vec::new() };
    let run = run_debug(program, entry, input, limits, cancel, &mut recorder);
    let cut = run.error.as_ref().is_some_and(|e| e.kind == crate::spec::interp::RuntimeErrorKind::Cancelled);
    Recorded {
        states: recorder.states,
        order: recorder.order,
        steps: run.steps,
        // Stopped by the recorder itself (enough states) is not an error of the run.
        error: run.error.is_some() && (!cut || cancel.is_cancelled()),
    }
}

/// Each student variable's partner in the reference, `(student's name, reference's name)`:
/// the same name and type, else the variable of the same type whose values it follows the
/// longest from the start (see the module doc). One partner each.
fn partners(ours: &Recorded, theirs: &Recorded) -> Vec<(String, String)> {
    let names = |r: &Recorded| -> Vec<(String, String)> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for key in &r.order {
            for d in &r.states[key] {
                if !seen.iter().any(|(n, _)| *n == d.name) {
                    seen.push((d.name.clone(), d.ty.clone()));
                }
            }
        }
        seen
    };
    let (our_names, their_names) = (names(ours), names(theirs));
    // How many arrivals, from the first, `s` holds what `r` holds (ignoring where either is
    // unset).
    let followed = |s: &str, r: &str| {
        let mut agreed = 0;
        for key in &ours.order {
            let Some(expected) = theirs.states.get(key) else { break };
            match (value_of(&ours.states[key], s), value_of(expected, r)) {
                (Some(a), Some(b)) if a != UNSET && b != UNSET => {
                    if a != b {
                        break;
                    }
                    agreed += 1;
                }
                _ => {}
            }
        }
        agreed
    };
    let mut scored: Vec<(usize, &str, &str)> = Vec::new();
    for (s, st) in &our_names {
        for (r, rt) in their_names.iter().filter(|(_, rt)| rt == st) {
            let score = if s == r { usize::MAX } else { followed(s, r) };
            if score > 0 && rt == st {
                scored.push((score, s, r));
            }
        }
    }
    scored.sort_by_key(|(score, _, _)| std::cmp::Reverse(*score));
    let mut out: Vec<(String, String)> = Vec::new();
    for (_, s, r) in scored {
        if !out.iter().any(|(a, b)| a == s || b == r) {
            out.push((s.to_string(), r.to_string()));
        }
    }
    out
}

/// A variable's drawing, and whether `change` can set it from that drawing (a number or a
/// character).
#[derive(Clone, Debug, PartialEq)]
struct Drawn {
    name: String,
    ty: String,
    value: String,
    settable: bool,
}

/// The variables of the paused frame and the globals (those `keep` accepts), drawn.
fn snapshot(paused: &Paused<'_, '_>, keep: &dyn Fn(&str) -> bool) -> Vec<Drawn> {
    (paused.locals(0).into_iter().chain(paused.globals()))
        .filter(|v| keep(&v.name))
        .map(|v| {
            let settable = v.inner.is_none() && !v.ty.contains(['*', '[']);
            Drawn { name: v.name, ty: v.ty, value: v.value, settable }
        })
        .collect()
}

fn value_of<'s>(state: &'s [Drawn], name: &str) -> Option<&'s str> {
    state.iter().find(|d| d.name == name).map(|d| d.value.as_str())
}

const UNSET: &str = "(unset)";

/// A run's states at its points, by (point, arrival).
struct Recorder {
    func: FuncId,
    points: Vec<Span>,
    hits: HitCounts,
    states: HashMap<(usize, u32), Vec<Drawn>>,
    order: Vec<(usize, u32)>,
}

impl Debugger for Recorder {
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
        if paused.function() != Some(self.func) {
            return Resume::Go;
        }
        let Some(i) = self.points.iter().position(|p| *p == paused.at()) else { return Resume::Go };
        let hit = self.hits.arrive(paused.at());
        self.states.insert((i, hit), snapshot(paused, &|_| true));
        self.order.push((i, hit));
        if self.states.len() >= MAX_STATES { Resume::Stop } else { Resume::Go }
    }
}

/// The student's run, compared point by point and corrected where it differs.
struct Comparer<'a> {
    func: FuncId,
    pairs: &'a [Pair],
    /// `(student's name, reference's name)`.
    partners: &'a [(String, String)],
    expected: &'a HashMap<(usize, u32), Vec<Drawn>>,
    hits: HitCounts,
    /// Statements run in the function since the last state that agreed, and at what call
    /// depth.
    window: VecDeque<(Span, usize)>,
    /// The last (point, arrival) whose state agreed.
    agreed: Option<(usize, u32)>,
    first: Option<FirstDifference>,
    corrections: u32,
    /// A difference could not be corrected: the test of cause cannot conclude.
    gave_up: bool,
}

/// The first difference, as the comparing run saw it.
struct FirstDifference {
    at: (usize, u32),
    /// The last (point, arrival) that agreed before it.
    since: Option<(usize, u32)>,
    depth: usize,
    differences: Vec<VariableDifference>,
    window: Vec<Span>,
}

impl Debugger for Comparer<'_> {
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
        if paused.function() != Some(self.func) {
            return Resume::Go;
        }
        let at = paused.at();
        let Some(i) = self.pairs.iter().position(|p| p.student == at) else {
            if self.first.is_none() {
                if self.window.len() == MAX_WINDOW {
                    self.window.pop_front();
                }
                self.window.push_back((at, paused.depth()));
            }
            return Resume::Go;
        };
        let hit = self.hits.arrive(at);
        let Some(expected) = self.expected.get(&(i, hit)) else {
            // The reference never got here this often (or was not recorded this far): nothing
            // more to compare. Without a difference found, nothing more to learn.
            return if self.first.is_none() { Resume::Stop } else { Resume::Go };
        };
        let pair = &self.pairs[i];
        let about_to_be_set = |ours: &str, theirs: &str| {
            hit == 1
                && (pair.initialised[0].iter().any(|n| n == ours) || pair.initialised[1].iter().any(|n| n == theirs))
        };
        let state = snapshot(paused, &|name| self.partner(name).is_some());
        let differences: Vec<(&Drawn, &str)> = (state.iter())
            .filter_map(|d| {
                let theirs = self.partner(&d.name)?;
                if about_to_be_set(&d.name, theirs) {
                    return None;
                }
                let want = value_of(expected, theirs)?;
                // What the reference has not set yet it does not expect anything of.
                (want != d.value && want != UNSET).then_some((d, want))
            })
            .collect();
        if differences.is_empty() {
            self.window.clear();
            self.agreed = Some((i, hit));
            return Resume::Go;
        }
        if self.first.is_none() {
            let depth = paused.depth();
            let mut window: Vec<Span> = self.window.iter().filter(|(_, d)| *d == depth).map(|(s, _)| *s).collect();
            window.sort_by_key(|s| (s.start, s.end));
            window.dedup();
            self.first = Some(FirstDifference {
                at: (i, hit),
                since: self.agreed,
                depth,
                differences: (differences.iter())
                    .map(|(d, want)| VariableDifference {
                        name: d.name.clone(),
                        reference_name: self.partner(&d.name).unwrap_or_default().to_string(),
                        got: d.value.clone(),
                        expected: want.to_string(),
                    })
                    .collect(),
                window,
            });
        }
        self.corrections += 1;
        if self.corrections > MAX_CORRECTIONS || differences.iter().any(|(d, _)| !d.settable) {
            self.gave_up = true;
            return Resume::Stop;
        }
        for (d, want) in &differences {
            if paused.change(&d.name, want, &|_| None).is_err() {
                self.gave_up = true;
                return Resume::Stop;
            }
        }
        self.window.clear();
        self.agreed = Some((i, hit));
        Resume::Go
    }
}

impl Comparer<'_> {
    fn partner(&self, name: &str) -> Option<&str> {
        self.partners.iter().find(|(s, _)| s == name).map(|(_, r)| r.as_str())
    }
}

/// The student's run again, up to the first difference: one variable's value before each
/// statement of the call since the last state that agreed (the state at that point first).
struct Tracer<'a> {
    func: FuncId,
    pairs: &'a [Pair],
    hits: HitCounts,
    since: Option<(usize, u32)>,
    until: (usize, u32),
    depth: usize,
    var: &'a str,
    recording: bool,
    trace: Vec<(Span, Option<String>)>,
}

impl Debugger for Tracer<'_> {
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
        if paused.function() != Some(self.func) {
            return Resume::Go;
        }
        let at = paused.at();
        if let Some(i) = self.pairs.iter().position(|p| p.student == at) {
            let key = (i, self.hits.arrive(at));
            if key == self.until {
                return Resume::Stop;
            }
            if Some(key) == self.since {
                self.recording = true;
                self.trace.clear();
            }
        }
        if self.recording && paused.depth() == self.depth {
            if self.trace.len() == MAX_WINDOW {
                return Resume::Stop;
            }
            let value = snapshot(paused, &|name| name == self.var).pop().map(|d| d.value);
            self.trace.push((at, value));
        }
        Resume::Go
    }
}

/// The statement after which `var` holds `got` at the first difference: traced by a run of
/// its own, so that only that run draws a variable at every statement.
#[allow(clippy::too_many_arguments)]
fn culprit(
    program: &Program,
    func: FuncId,
    pairs: &[Pair],
    first: &FirstDifference,
    entry: &str,
    input: &[u8],
    limits: &Limits,
    cancel: &Cancel,
) -> Option<Span> {
    let difference = first.differences.first()?;
    // Nothing gave a variable that has no value its value: an assignment is missing.
    if difference.got == UNSET {
        return None;
    }
    let mut tracer = Tracer {
        func,
        pairs,
        hits: HitCounts::default(),
        since: first.since,
        until: first.at,
        depth: first.depth,
        var: &difference.name,
        recording: first.since.is_none(),
        trace: Vec::new(),
    };
    run_debug(program, entry, input, limits, cancel, &mut tracer);
    let trace = tracer.trace;
    let k = trace.iter().rposition(|(_, value)| value.as_deref() != Some(difference.got.as_str()))?;
    let statements = Statements { program, func };
    let point = pairs[first.at.0].student;
    // Between a loop's last statement and its next test, a `for` runs its step.
    if k + 1 == trace.len()
        && first.at.1 > 1
        && let Some(step) = statements.for_step_assigning(point, &difference.name)
    {
        return Some(step);
    }
    statements.part_assigning(trace[k].0, &difference.name)
}

/// The statements of one function, looked up by span.
struct Statements<'a> {
    program: &'a Program,
    func: FuncId,
}

impl Statements<'_> {
    fn statement_at(&self, at: Span) -> Option<Stmt> {
        let mut found = None;
        let body = self.program.func(self.func).body.as_ref()?;
        for_each_stmt(body, &mut |s| {
            if s.span == at && found.is_none() && !matches!(s.kind, StmtKind::Block(_)) {
                found = Some(s.clone());
            }
        });
        found
    }

    fn assigns(&self, s: &Stmt, name: &str) -> bool {
        assigned_vars(s).iter().any(|&v| self.program.var(v).name == name)
    }

    /// The step of the `for` loop at `at`, when it assigns `name`.
    fn for_step_assigning(&self, at: Span, name: &str) -> Option<Span> {
        let StmtKind::For { step: Some(step), .. } = &self.statement_at(at)?.kind else { return None };
        let as_statement = Stmt { kind: StmtKind::Expr(step.clone()), span: step.span };
        self.assigns(&as_statement, name).then_some(step.span)
    }

    /// The part of the statement at `at` that runs before the next point: a simple statement
    /// itself, a `for`'s initialisation (else its condition), a condition.
    fn part_assigning(&self, at: Span, name: &str) -> Option<Span> {
        let s = self.statement_at(at)?;
        Some(match &s.kind {
            StmtKind::For { init, cond, .. } => match init.iter().find(|st| self.assigns(st, name)) {
                Some(st) => st.span,
                None => cond.as_ref().map_or(s.span, |c| c.span),
            },
            StmtKind::If { cond, .. }
            | StmtKind::While { cond, .. }
            | StmtKind::DoWhile { cond, .. }
            | StmtKind::Switch { cond, .. } => cond.span,
            _ => s.span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sum of the numbers read (the `check/goes_wrong` fixture's reference).
    const SUM: &str = include_str!("../../../fixtures/check/goes_wrong/reference.c");

    fn lowered(src: &str) -> Program {
        crate::syntax::lower::lower_without_errors(src).expect("lowers")
    }

    /// The localisation of `student` against [`SUM`] on `input`, with the culprit's text.
    fn localised(student: &str, input: &str, expected: &str) -> Option<(WrongState, Option<String>)> {
        let (s, r) = (lowered(student), lowered(SUM));
        let state = first_wrong_state(
            &s,
            &r,
            "main",
            "main",
            input.as_bytes(),
            expected,
            Compare::Exact,
            1_000_000,
            &Cancel::new(),
        )?;
        let culprit = state.culprit.map(|c| student[c.range()].to_string());
        Some((state, culprit))
    }

    #[test]
    fn the_statement_that_gives_the_wrong_value_is_named_and_the_cause_confirmed() {
        let student = SUM.replace("sum = sum + x;", "sum = sum + x * x;");
        let (state, culprit) = localised(&student, "2 5 5", "10\n").expect("differs");
        assert_eq!(culprit.as_deref(), Some("sum = sum + x * x;"));
        assert_eq!((state.point_kind, state.arrival), (PointKind::Loop, 2), "after round 1");
        assert_eq!(
            state.differences,
            vec![VariableDifference {
                name: "sum".into(),
                reference_name: "sum".into(),
                got: "25".into(),
                expected: "5".into()
            }]
        );
        assert!(state.confirmed, "given 5 there, the rest prints 10");
    }

    /// A student's `total` follows the reference's `sum` until it goes wrong.
    #[test]
    fn a_variable_named_otherwise_is_paired_by_its_values() {
        let student = SUM.replace("sum = sum + x;", "sum = sum + x * x;").replace("sum", "total");
        let (state, culprit) = localised(&student, "3 1 2 3", "6\n").expect("differs");
        assert_eq!(culprit.as_deref(), Some("total = total + x * x;"));
        let d = &state.differences[0];
        assert_eq!((d.name.as_str(), d.reference_name.as_str(), d.got.as_str()), ("total", "sum", "5"));
        assert!(state.confirmed);
    }

    #[test]
    fn a_wrong_start_value_is_found_when_the_loop_starts() {
        let student = SUM.replace("sum = 0;", "sum = 1;");
        let (state, culprit) = localised(&student, "2 5 5", "10\n").expect("differs");
        assert_eq!(state.arrival, 1);
        assert_eq!(culprit.as_deref(), Some("sum = 1"));
        assert!(state.confirmed);
    }

    /// Between a loop's last statement and its next test, a `for` runs its step.
    #[test]
    fn a_wrong_step_is_named() {
        let student = SUM.replace("i++)", "i += 2)");
        let (state, culprit) = localised(&student, "2 5 5", "10\n").expect("differs");
        assert_eq!(culprit.as_deref(), Some("i += 2"));
        assert_eq!(state.differences[0].name, "i");
        assert!(state.confirmed);
    }

    /// A variable the student uses otherwise (`i` from 1) differs at every round, but giving
    /// it the reference's values does not make the run pass: the bug is elsewhere (a missing
    /// line break), and the difference is not confirmed.
    #[test]
    fn a_difference_that_is_not_the_cause_is_not_confirmed() {
        let student = SUM.replace("for (i = 0; i < n; i++)", "for (i = 1; i <= n; i++)").replace("%d\\n", "%d");
        let (state, _) = localised(&student, "2 5 5", "10\n").expect("i differs");
        assert_eq!(state.differences[0].name, "i");
        assert!(!state.confirmed);
    }

    #[test]
    fn a_correct_program_has_no_wrong_state() {
        assert_eq!(localised(SUM, "2 5 5", "10\n"), None);
    }

    /// Loops nested otherwise cannot be paired: no claim.
    #[test]
    fn loops_that_do_not_pair_give_no_claim() {
        let student = SUM.replace("    printf(\"%d\\n\", sum);", "    while (0) { }\n    printf(\"%d\\n\", sum + 1);");
        let (s, r) = (lowered(&student), lowered(SUM));
        let f = s.func_by_name("main").unwrap();
        let g = r.func_by_name("main").unwrap();
        assert!(paired_points(&s, f, &r, g).iter().all(|p| p.kind == PointKind::Return));
    }

    /// In a list function, pointers cannot be given the reference's values: the first
    /// difference is named, the cause not confirmed.
    #[test]
    fn a_wrong_link_is_named_in_a_list_function() {
        let reference = super::super::tests::LIST;
        let student = reference.replace("prev = head;\n", "prev = next;\n");
        let (s, r) = (lowered(&student), lowered(reference));
        let state = first_wrong_state(
            &s,
            &r,
            "reverse",
            "main",
            b"1 2 3",
            "3: 1 2 3\n",
            Compare::Exact,
            1_000_000,
            &Cancel::new(),
        )
        .expect("differs");
        assert_eq!(state.differences[0].name, "prev");
        assert_eq!(state.culprit.map(|c| &student[c.range()]), Some("prev = next;"));
        assert!(!state.confirmed);
    }
}
