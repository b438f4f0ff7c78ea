//! States a student expects at points of a run: Wolverine2's `spec` command. In a debugging
//! session the student looks at the memory graph at a pause, corrects it (`change`) where it
//! is wrong, and records it (`spec`); a repair must then reach each recorded state at its
//! point, on the same input. This is the spec the `repair` command of `mend dap` searches
//! against, and what a hot-patched session checks it reached.
//!
//! A point is a statement (or a loop header) and how many times the run has reached it. A
//! candidate repair is another program, so each point is found again in it ([`Point::find`]):
//! by the statement's own text and its rank among the function's statements with that text
//! (a moved or inserted statement elsewhere leaves it), or by its place when the repair
//! changed the statement itself.

use std::collections::HashMap;

use crate::cancel::Cancel;
use crate::ir::print::expr_to_c;
use crate::ir::walk::for_each_stmt;
use crate::ir::{FuncId, Program, Span, Stmt, StmtKind};
use crate::spec::interp::Limits;
use crate::spec::interp::debug::{Debugger, Paused, Resume, run_debug};

/// A statement of a function, found again in another version of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub function: String,
    /// The statement's text without its body (`while (p != NULL)`, `p = p->next`).
    pub key: String,
    /// Its rank among the function's statements with the same key (0: the first).
    pub occurrence: usize,
    /// Where it is in the program it was recorded in.
    pub span: Span,
}

/// A state the student expects at the `hit`-th arrival at `point`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub point: Point,
    pub hit: u32,
    /// The memory graph's canonical text ([`crate::spec::interp::debug::MemoryGraph::canonical`]).
    pub state: String,
}

impl Point {
    /// The statement at `span` in function `func` of `program` (`None`: no such statement).
    pub fn of(program: &Program, func: FuncId, span: Span) -> Option<Point> {
        let f = program.func(func);
        let points = points_of(program, f.body.as_ref()?);
        let (key, _) = points.iter().find(|(_, s)| *s == span)?;
        let occurrence = points.iter().take_while(|(_, s)| *s != span).filter(|(k, _)| k == key).count();
        Some(Point { function: f.name.clone(), key: key.clone(), occurrence, span })
    }

    /// This point's statement in `program`: the one with the same text and place, else the
    /// same text and rank, else the same place.
    pub fn find(&self, program: &Program) -> Option<Span> {
        let f = program.func(program.func_by_name(&self.function)?);
        let points = points_of(program, f.body.as_ref()?);
        if points.iter().any(|(k, s)| *s == self.span && *k == self.key) {
            return Some(self.span);
        }
        let same_text = points.iter().filter(|(k, _)| *k == self.key).nth(self.occurrence);
        same_text.or_else(|| points.iter().find(|(_, s)| *s == self.span)).map(|(_, s)| *s)
    }
}

impl Point {
    /// The point of another program (another student's, the reference) with this point's
    /// text and rank in the function of the same name: no place is compared.
    pub fn carried_to(&self, program: &Program) -> Option<Point> {
        let f = program.func_by_name(&self.function)?;
        let points = points_of(program, program.func(f).body.as_ref()?);
        let (_, span) = points.iter().filter(|(k, _)| *k == self.key).nth(self.occurrence)?;
        Point::of(program, f, *span)
    }
}

/// Every point of a body where a run can pause, in source order, with its key.
fn points_of(program: &Program, body: &Stmt) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for_each_stmt(body, &mut |s| {
        if !matches!(s.kind, StmtKind::Block(_)) {
            out.push((key(program, s), s.span));
        }
    });
    out
}

/// A statement's text without the statements it contains.
fn key(p: &Program, s: &Stmt) -> String {
    let e = |x: &crate::ir::Expr| expr_to_c(p, x);
    match &s.kind {
        StmtKind::If { cond, .. } => format!("if ({})", e(cond)),
        StmtKind::While { cond, .. } => format!("while ({})", e(cond)),
        StmtKind::DoWhile { cond, .. } => format!("do … while ({})", e(cond)),
        StmtKind::For { cond, step, .. } => {
            format!(
                "for (…; {}; {})",
                cond.as_ref().map(e).unwrap_or_default(),
                step.as_ref().map(e).unwrap_or_default()
            )
        }
        StmtKind::Switch { cond, .. } => format!("switch ({})", e(cond)),
        _ => crate::ir::print::stmt_to_c(p, s, 0).trim().to_string(),
    }
}

/// How a run of a program went against expectations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Every expected state was reached at its point.
    Met,
    /// The state at expectation `index`'s point was `actual` instead.
    Differs { index: usize, actual: String },
    /// Expectation `index`'s point was never reached (or not often enough), or is not in the
    /// program.
    NotReached { index: usize },
    /// The run was cancelled before it could tell.
    Cancelled,
}

/// Runs `program` on `input` and checks each expectation at its point. The run stops at the
/// first state that differs, or once every expectation is met.
pub fn check(
    program: &Program,
    entry: &str,
    input: &[u8],
    expectations: &[Expectation],
    limits: &Limits,
    cancel: &Cancel,
) -> Checked {
    check_recording(program, entry, input, expectations, limits, cancel, false).0
}

/// [`check`], with Wolverine2's localisation: the statements the run executes after the last
/// expected state it reaches as expected and before the first it does not (or before its
/// end, when it never gets there); empty when it meets every expectation.
pub fn localise(
    program: &Program,
    entry: &str,
    input: &[u8],
    expectations: &[Expectation],
    limits: &Limits,
    cancel: &Cancel,
) -> (Checked, Vec<Span>) {
    match check_recording(program, entry, input, expectations, limits, cancel, true) {
        (outcome @ (Checked::Met | Checked::Cancelled), _) => (outcome, Vec::new()),
        found => found,
    }
}

fn check_recording(
    program: &Program,
    entry: &str,
    input: &[u8],
    expectations: &[Expectation],
    limits: &Limits,
    cancel: &Cancel,
    record: bool,
) -> (Checked, Vec<Span>) {
    let targets: Vec<Option<Span>> = expectations.iter().map(|e| e.point.find(program)).collect();
    if let Some(index) = targets.iter().position(Option::is_none) {
        return (Checked::NotReached { index }, Vec::new());
    }
    let mut checker = Checker {
        expectations,
        targets: targets.into_iter().flatten().collect(),
        hits: HitCounts::default(),
        met: vec![false; expectations.len()],
        outcome: None,
        window: record.then(Default::default),
    };
    run_debug(program, entry, input, limits, cancel, &mut checker);
    let outcome = match checker.outcome {
        Some(outcome) => outcome,
        None if cancel.is_cancelled() => Checked::Cancelled,
        None => Checked::NotReached { index: checker.met.iter().position(|m| !m).unwrap_or(0) },
    };
    let mut window: Vec<Span> = checker.window.unwrap_or_default().into_iter().collect();
    window.sort_by_key(|s| (s.start, s.end));
    (outcome, window)
}

/// The states `program` reaches at `points` on `input`: the first `per_point` arrivals at
/// each, in the order of the run, at most `max` in all. What a student who knows the right
/// states would record (`mend bench debug` records a reference's).
pub fn record(
    program: &Program,
    input: &[u8],
    points: &[Point],
    per_point: u32,
    max: usize,
    limits: &Limits,
    cancel: &Cancel,
) -> Vec<Expectation> {
    struct Recorder<'a> {
        points: &'a [Point],
        spans: Vec<Option<Span>>,
        hits: HitCounts,
        per_point: u32,
        max: usize,
        out: Vec<Expectation>,
    }
    impl Debugger for Recorder<'_> {
        fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
            let at = paused.at();
            let Some(i) = self.spans.iter().position(|s| *s == Some(at)) else { return Resume::Go };
            let hit = self.hits.arrive(at);
            if hit <= self.per_point {
                let state = paused.graph(0).canonical();
                self.out.push(Expectation { point: self.points[i].clone(), hit, state });
            }
            if self.out.len() >= self.max { Resume::Stop } else { Resume::Go }
        }
    }
    let spans = points.iter().map(|p| p.find(program)).collect();
    let mut recorder = Recorder { points, spans, hits: HitCounts::default(), per_point, max, out: Vec::new() };
    run_debug(program, "main", input, limits, cancel, &mut recorder);
    recorder.out
}

/// The points of `function` in `program` where a student would look: each loop's header and
/// each `return` (every statement when it has neither).
pub fn landmarks(program: &Program, function: &str) -> Vec<Point> {
    let Some(f) = program.func_by_name(function) else { return Vec::new() };
    let Some(body) = program.func(f).body.as_ref() else { return Vec::new() };
    let mut marks = Vec::new();
    let mut all = Vec::new();
    for_each_stmt(body, &mut |s| match s.kind {
        StmtKind::Block(_) => {}
        StmtKind::While { .. } | StmtKind::For { .. } | StmtKind::DoWhile { .. } | StmtKind::Return(_) => {
            marks.push(s.span);
            all.push(s.span);
        }
        _ => all.push(s.span),
    });
    let spans = if marks.is_empty() { all } else { marks };
    spans.into_iter().filter_map(|s| Point::of(program, f, s)).collect()
}

/// How many times a run has arrived at each point.
#[derive(Clone, Debug, Default)]
pub struct HitCounts(HashMap<Span, u32>);

impl HitCounts {
    /// Counts an arrival at `at`; the count so far, this one included.
    pub fn arrive(&mut self, at: Span) -> u32 {
        let n = self.0.entry(at).or_default();
        *n += 1;
        *n
    }
    pub fn get(&self, at: Span) -> u32 {
        self.0.get(&at).copied().unwrap_or(0)
    }
}

struct Checker<'a> {
    expectations: &'a [Expectation],
    targets: Vec<Span>,
    hits: HitCounts,
    met: Vec<bool>,
    outcome: Option<Checked>,
    /// With [`localise`]: the points run since the last state met.
    window: Option<std::collections::HashSet<Span>>,
}

impl Debugger for Checker<'_> {
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
        let at = paused.at();
        if let Some(window) = &mut self.window {
            window.insert(at);
        }
        if !self.targets.contains(&at) {
            return Resume::Go;
        }
        let hit = self.hits.arrive(at);
        let mut state = None;
        for (i, e) in self.expectations.iter().enumerate() {
            if self.targets[i] != at || e.hit != hit {
                continue;
            }
            let actual = state.get_or_insert_with(|| paused.graph(0).canonical());
            if *actual != e.state {
                self.outcome = Some(Checked::Differs { index: i, actual: actual.clone() });
                return Resume::Stop;
            }
            self.met[i] = true;
            if let Some(window) = &mut self.window {
                window.clear();
                window.insert(at);
            }
        }
        if self.met.iter().all(|m| *m) {
            self.outcome = Some(Checked::Met);
            return Resume::Stop;
        }
        Resume::Go
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    const SUM: &str = "int main(void) {
    int i, s = 0;
    for (i = 0; i < 3; i++)
        s = s + i;
    return s;
}
";

    fn point_at(src: &str, text: &str) -> Point {
        let p = lower_source(src).program;
        let f = p.func_by_name("main").unwrap();
        let start = src.find(text).unwrap() as u32;
        let mut span = None;
        for_each_stmt(p.func(f).body.as_ref().unwrap(), &mut |s| {
            if s.span.start == start && span.is_none() && !matches!(s.kind, StmtKind::Block(_)) {
                span = Some(s.span);
            }
        });
        Point::of(&p, f, span.unwrap()).unwrap()
    }

    #[test]
    fn a_point_is_found_again_after_a_statement_is_inserted_before_it_or_it_is_changed() {
        let point = point_at(SUM, "s = s + i;");
        assert_eq!(point.key, "s = s + i;");
        let inserted = SUM.replace("    for", "    s = 1;\n    for");
        let p = lower_source(&inserted).program;
        assert_eq!(point.find(&p).map(|s| &inserted[s.range()]), Some("s = s + i;"));
        // The repair changed the statement itself: found at its place.
        let changed = SUM.replace("s + i", "s - i");
        let p = lower_source(&changed).program;
        assert_eq!(point.find(&p).map(|s| &changed[s.range()]), Some("s = s - i;"));
        // Gone.
        let p = lower_source(&SUM.replace("        s = s + i;\n", "        ;\n")).program;
        assert_eq!(point.find(&p), None);
    }

    #[test]
    fn a_run_meets_differs_from_or_never_reaches_an_expectation() {
        let p = lower_source(SUM).program;
        let point = point_at(SUM, "return s;");
        let state = |s: i32| format!("i = 3\ns = {s}\n");
        let run = |expected: &[Expectation]| check(&p, "main", b"", expected, &Limits::default(), &Cancel::new());
        let at = |hit, s| Expectation { point: point.clone(), hit, state: state(s) };
        assert_eq!(run(&[at(1, 3)]), Checked::Met);
        assert_eq!(run(&[at(1, 4)]), Checked::Differs { index: 0, actual: state(3) });
        assert_eq!(run(&[at(2, 3)]), Checked::NotReached { index: 0 });
    }

    #[test]
    fn the_fault_window_runs_from_the_last_state_met_to_the_first_that_differs() {
        let p = lower_source(SUM).program;
        let limits = Limits::default();
        let text = |spans: Vec<Span>| {
            spans.iter().map(|s| SUM[s.range()].lines().next().unwrap().to_string()).collect::<Vec<_>>()
        };
        let header = point_at(SUM, "for (i = 0;");
        let ret = point_at(SUM, "return s;");
        // The loop's header on its 3rd test (i = 2, s = 1) is as expected; `return` is not.
        let met = Expectation { point: header, hit: 3, state: "i = 2\ns = 1\n".into() };
        let wrong = Expectation { point: ret, hit: 1, state: "i = 3\ns = 4\n".into() };
        let (outcome, window) = localise(&p, "main", b"", &[met.clone(), wrong], &limits, &Cancel::new());
        assert_eq!(outcome, Checked::Differs { index: 1, actual: "i = 3\ns = 3\n".into() });
        assert_eq!(text(window), ["for (i = 0; i < 3; i++)", "s = s + i;", "return s;"]);
        let only_met = localise(&p, "main", b"", &[met], &limits, &Cancel::new());
        assert_eq!(only_met, (Checked::Met, Vec::new()));
    }
}
