//! Deciding candidates on concrete inputs before the solver, CEGIS-style: every
//! counterexample the search meets (the original program's, then each failing candidate's)
//! is kept as an input, and a candidate is first run on those inputs in the interpreter,
//! with the interpreter bounded exactly as the encoding is (`Limits::unwinding_bound`).
//!
//! A run can only *reject* a candidate (it violates a specification within the bound, so
//! the bounded encoding has the same violating run) or *witness* that some run completes
//! (the vacuity check); "repaired" is always the solver's answer. Runs the encoding does not
//! model the same way (an uninitialised read, input running out, an assumption failing, any
//! other runtime error) decide nothing and leave the candidate to the solver, so the filter
//! never changes a verdict, only how fast it is reached: most candidates of a search fail on
//! an input some earlier candidate already failed on.
//!
//! Against a reference ([`ConcreteRuns::with_reference`]) a run also violates the spec when it
//! and the reference's run on the same input both complete within the bound and their outputs
//! differ in the spec's compare mode (`spec::compare::output_matches`). The product program's
//! token comparison is stricter than the mode (see [`crate::smt::output`]), so this filter
//! rejects only candidates the product would reject too.

use std::collections::HashMap;

use crate::cancel::Cancel;
use crate::ir::walk::walk_stmt_mut;
use crate::ir::*;
use crate::spec::compare::{self, Compare};
use crate::spec::interp::{self, Limits, Runner, RuntimeErrorKind};

/// Inputs near the first counterexample added before the search (see
/// [`ConcreteRuns::add_neighbours`]).
pub const NEIGHBOURS: usize = 16;
/// Inputs kept; older ones are dropped first (newer counterexamples come from candidates
/// closer to the current search frontier).
const MAX_INPUTS: usize = 32;
/// Steps per run: a run within the unwinding bound of a student program is short; one that
/// is not is left to the solver.
const MAX_STEPS: u64 = 2_000_000;
/// Values appended to an input the reference reads past the end of.
const MAX_PADDING: usize = 16;

/// What the stored inputs say about one candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// A stored input makes the candidate violate a specification within the bound.
    pub violates: bool,
    /// A stored input runs the candidate to completion within the bound, every check holding.
    pub completes: bool,
}

pub struct ConcreteRuns<'p> {
    program: &'p Program,
    entry: String,
    bound: u32,
    /// stdin texts, newest last.
    inputs: Vec<String>,
    /// The reference, and its output on each input (with the length of its prompt) when its
    /// run completes within the bound.
    reference: Option<&'p Program>,
    compare: Compare,
    expected: HashMap<String, Option<(String, usize)>>,
}

impl<'p> ConcreteRuns<'p> {
    pub fn new(program: &'p Program, entry: &str, bound: u32) -> Self {
        ConcreteRuns {
            program,
            entry: entry.to_string(),
            bound,
            inputs: Vec::new(),
            reference: None,
            compare: Compare::Exact,
            expected: HashMap::new(),
        }
    }

    /// Runs are also compared with `reference`'s under `compare` (see the module's
    /// documentation).
    pub fn with_reference(mut self, reference: &'p Program, compare: Compare) -> Self {
        self.reference = Some(reference);
        self.compare = compare;
        self
    }

    pub fn add_input(&mut self, stdin: String) {
        if self.inputs.contains(&stdin) {
            return;
        }
        if self.inputs.len() == MAX_INPUTS {
            let old = self.inputs.remove(0);
            self.expected.remove(&old);
        }
        let stdin = match self.reference {
            Some(_) => {
                let (padded, expected) = self.padded(&stdin);
                if self.inputs.contains(&padded) {
                    return;
                }
                self.expected.insert(padded.clone(), expected);
                padded
            }
            None => stdin,
        };
        self.inputs.push(stdin);
    }

    /// `stdin` with `0` tokens appended while the reference's run finds the input at its end
    /// (at most [`MAX_PADDING`]), and the reference's completed output on it. A counterexample
    /// of the product holds the values the student's run reads; the reference may read more,
    /// which the product leaves free, so any value is one of the product's runs.
    fn padded(&self, stdin: &str) -> (String, Option<(String, usize)>) {
        let reference = self.reference.expect("a reference");
        let mut stdin = stdin.to_string();
        let mut added = 0;
        loop {
            let out = interp::run(reference, &self.entry, stdin.as_bytes(), &self.limits(), &Cancel::new());
            if !out.input_exhausted || added == MAX_PADDING {
                return (stdin, completed(&out));
            }
            if !stdin.is_empty() && !stdin.ends_with(char::is_whitespace) {
                stdin.push('\n');
            }
            stdin.push_str("0\n");
            added += 1;
        }
    }

    fn limits(&self) -> Limits {
        Limits { max_steps: MAX_STEPS, unwinding_bound: Some(self.bound), ..Limits::default() }
    }

    /// Whether the run `r` on `stdin` completed and printed other values than the reference.
    fn differs(&self, stdin: &str, r: &interp::RunResult) -> bool {
        let Some(Some((expected, prompt))) = self.expected.get(stdin) else { return false };
        let Some((actual, cut)) = completed(r) else { return false };
        !compare::output_matches(self.compare, expected, Some(*prompt), &actual, Some(cut))
    }

    /// Adds inputs near `stdin` (one number of it changed: ±1, ±10, ±100, 0, ±1, doubled,
    /// halved) on which the program as written runs to a verdict (a violation or a completed
    /// run, within the bound and its assumptions), at most `max` of them, violating and
    /// completing ones alternately, in a fixed order. They only make the concrete filter
    /// sharper: any run that violates a specification rejects a candidate soundly, whichever
    /// input it comes from, and candidates a counterexample of the solver would reject anyway
    /// are rejected without the solver.
    pub fn add_neighbours(&mut self, stdin: &str, max: usize, cancel: &Cancel) {
        let limits = self.limits();
        let padded = match self.reference {
            Some(_) => self.padded(stdin).0,
            None => stdin.to_string(),
        };
        let stdin = padded.as_str();
        let (program, entry, reference, mode) = (self.program, self.entry.as_str(), self.reference, self.compare);
        let (failing, passing) = interp::run_batch(|run| {
            let mut failing = Vec::new();
            let mut passing = Vec::new();
            for input in neighbours(stdin) {
                if cancel.is_cancelled() || failing.len() + passing.len() >= 4 * max {
                    break;
                }
                let r = run(program, entry, input.as_bytes(), &limits, cancel);
                if r.input_exhausted || r.assume_failed {
                    continue;
                }
                match r.error.as_ref().map(|e| e.kind) {
                    Some(k) if is_violation(k) => failing.push(input),
                    None if r.exit_code.is_some() => match reference {
                        // Against a reference, an input decides something only when the
                        // reference's run completes too.
                        Some(reference) => {
                            if let Some((expected, prompt)) =
                                completed(&run(reference, entry, input.as_bytes(), &limits, cancel))
                            {
                                let (actual, cut) = completed(&r).expect("a completed run");
                                if compare::output_matches(mode, &expected, Some(prompt), &actual, Some(cut)) {
                                    passing.push(input);
                                } else {
                                    failing.push(input);
                                }
                            }
                        }
                        None => passing.push(input),
                    },
                    _ => {}
                }
            }
            (failing, passing)
        });
        let (mut f, mut p) = (failing.into_iter(), passing.into_iter());
        let mut added = 0;
        while added < max {
            let mut progress = false;
            for input in [f.next(), p.next()].into_iter().flatten() {
                if added < max {
                    self.add_input(input);
                    added += 1;
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
    }

    pub fn inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Runs the program with `changes` applied (each the span of an original expression and
    /// its replacement) on the stored inputs, newest first, until one violates.
    pub fn evidence(&self, changes: &[(Span, &Expr)], cancel: &Cancel) -> Evidence {
        let Some(program) = apply(self.program, changes) else { return Evidence::default() };
        let limits = Limits { max_steps: MAX_STEPS, unwinding_bound: Some(self.bound), ..Limits::default() };
        interp::run_batch(|run| self.evidence_on(&program, &limits, run, cancel))
    }

    fn evidence_on(&self, program: &Program, limits: &Limits, run: &Runner, cancel: &Cancel) -> Evidence {
        let mut evidence = Evidence::default();
        for stdin in self.inputs.iter().rev() {
            if cancel.is_cancelled() {
                break;
            }
            let r = run(program, &self.entry, stdin.as_bytes(), limits, cancel);
            if r.input_exhausted || r.assume_failed {
                continue;
            }
            match r.error.as_ref().map(|e| e.kind) {
                Some(k) if is_violation(k) => {
                    evidence.violates = true;
                    return evidence;
                }
                None if r.exit_code.is_some() && self.differs(stdin, &r) => {
                    evidence.violates = true;
                    return evidence;
                }
                None if r.exit_code.is_some() => evidence.completes = true,
                Some(RuntimeErrorKind::Uninitialized) => {
                    // The encoding gives a never-assigned local an arbitrary value: if the
                    // run with 0 violates (or prints other values than the reference), the
                    // encoding has that violating run too (a deleted assignment would
                    // otherwise always reach the solver).
                    let zero = Limits { uninit_reads_zero: true, ..limits.clone() };
                    let r = run(program, &self.entry, stdin.as_bytes(), &zero, cancel);
                    if !r.input_exhausted
                        && !r.assume_failed
                        && (r.error.as_ref().is_some_and(|e| is_violation(e.kind)) || self.differs(stdin, &r))
                    {
                        evidence.violates = true;
                        return evidence;
                    }
                }
                _ => {}
            }
        }
        evidence
    }
}

/// A run's output and the length of its prompt (the output before its last read), when it
/// completed (within the bound, no error, every assumption and read satisfied).
fn completed(r: &interp::RunResult) -> Option<(String, usize)> {
    (r.error.is_none() && r.exit_code.is_some() && !r.input_exhausted && !r.assume_failed)
        .then(|| (String::from_utf8_lossy(&r.output).into_owned(), r.output_before_last_read))
}

fn is_violation(kind: RuntimeErrorKind) -> bool {
    matches!(
        kind,
        RuntimeErrorKind::AssertionFailed
            | RuntimeErrorKind::ReachError
            | RuntimeErrorKind::DivisionByZero
            | RuntimeErrorKind::OutOfBounds
    )
}

/// `stdin` with one of its integer tokens changed, for every token and change, in order.
fn neighbours(stdin: &str) -> Vec<String> {
    let mut tokens: Vec<(usize, usize, i64)> = Vec::new();
    let mut start = None;
    for (i, c) in stdin.char_indices().chain(std::iter::once((stdin.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if let Ok(v) = stdin[s..i].parse::<i64>() {
                    tokens.push((s, i, v));
                }
                start = None;
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for &(s, e, v) in &tokens {
        let mut seen = vec![v];
        for w in [v + 1, v - 1, 0, 1, -1, v + 10, v - 10, v * 2, v / 2, v + 100, v - 100] {
            if !seen.contains(&w) && i32::try_from(w).is_ok() {
                seen.push(w);
                out.push(format!("{}{w}{}", &stdin[..s], &stdin[e..]));
            }
        }
    }
    out
}

/// `program` with each `(span, replacement)` applied to the outermost expression of that span
/// and type; `None` when some change finds no such expression.
pub fn apply(program: &Program, changes: &[(Span, &Expr)]) -> Option<Program> {
    let mut pending: HashMap<Span, &Expr> = changes.iter().copied().collect();
    let mut out = program.clone();
    for f in &mut out.funcs {
        if let Some(body) = &mut f.body {
            walk_stmt_mut(body, &mut |e: &mut Expr| match pending.get(&e.span) {
                Some(new) if new.ty == e.ty => {
                    // The replacement may have another span (`!(a && b)` → `a && b`): the key
                    // is the replaced node's.
                    let at = e.span;
                    *e = (*new).clone();
                    pending.remove(&at);
                    true
                }
                _ => false,
            });
        }
    }
    pending.is_empty().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    const SUM: &str = "#include <assert.h>\nint main(void) { int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n >= 1 && n <= 4);\n int s = 0; for (int i = 0; i < n; i++) s += i;\n assert(s == n * (n + 1) / 2); return 0; }";

    fn cond_and_fix(p: &Program) -> (Span, Expr) {
        // The loop condition `i < n` and `i <= n` built from it.
        let mut cond = None;
        for f in &p.funcs {
            if let Some(b) = &f.body {
                crate::ir::walk::walk_stmt(b, &mut |e: &Expr| {
                    if let ExprKind::Binary(BinOp::Lt, ..) = &e.kind {
                        cond = Some(e.clone());
                    }
                });
            }
        }
        let cond = cond.expect("a `<`");
        let mut fixed = cond.clone();
        if let ExprKind::Binary(op, ..) = &mut fixed.kind {
            *op = BinOp::Le;
        }
        (cond.span, fixed)
    }

    #[test]
    fn a_counterexample_rejects_the_original_and_the_fix_completes_on_it() {
        let p = lower_source(SUM).program;
        let mut runs = ConcreteRuns::new(&p, "main", 5);
        runs.add_input("2\n".into());
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence { violates: true, completes: false });
        let (span, fixed) = cond_and_fix(&p);
        assert_eq!(runs.evidence(&[(span, &fixed)], &Cancel::new()), Evidence { violates: false, completes: true });
    }

    #[test]
    fn runs_beyond_the_bound_or_the_input_decide_nothing() {
        let p = lower_source(SUM).program;
        let (span, fixed) = cond_and_fix(&p);
        // n = 4 needs 4 iterations (5 with `<=`): beyond a bound of 3 it is no evidence.
        let mut runs = ConcreteRuns::new(&p, "main", 3);
        runs.add_input("4\n".into());
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence::default());
        assert_eq!(runs.evidence(&[(span, &fixed)], &Cancel::new()), Evidence::default());
        // No input at all: the nondet read finds none.
        let mut runs = ConcreteRuns::new(&p, "main", 5);
        runs.add_input(String::new());
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence::default());
    }

    #[test]
    fn a_change_that_matches_no_expression_is_not_applied() {
        let p = lower_source(SUM).program;
        let (_, fixed) = cond_and_fix(&p);
        assert!(apply(&p, &[(Span::new(0, 1), &fixed)]).is_none());
    }

    /// Removing a negation replaces `!(a && b)` (the location) by `a && b`, a node with a
    /// narrower span: the change is still applied, once.
    #[test]
    fn a_replacement_with_another_span_is_applied() {
        let src = "int main(void) { int a = 1, b = 2; while (!(a != 0 && b <= 3)) { a = a - 1; } return a; }";
        let p = lower_source(src).program;
        let mut cond = None;
        crate::ir::walk::for_each_stmt(p.func(p.func_by_name("main").unwrap()).body.as_ref().unwrap(), &mut |s| {
            if let StmtKind::While { cond: c, .. } = &s.kind {
                cond = Some(c.clone());
            }
        });
        let cond = cond.expect("the loop condition");
        let ExprKind::Unary(UnOp::Not, inner) = &cond.kind else { panic!("{cond:?}") };
        assert_ne!(inner.span, cond.span);
        let exit =
            |p: &Program| crate::spec::interp::run(p, "main", b"", &Default::default(), &Cancel::new()).exit_code;
        assert_eq!(exit(&p), Some(1), "the negated loop never runs");
        let applied = apply(&p, &[(cond.span, inner)]).expect("applied");
        assert_eq!(exit(&applied), Some(0), "the loop counts `a` down to 0");
    }

    #[test]
    fn an_uninitialised_read_rejects_only_when_the_run_with_zero_violates() {
        // `x` is never assigned: the encoding gives it any value; with 0 the assertion fails.
        let src = "#include <assert.h>\nint main(void) { int n = __VERIFIER_nondet_int(); int x;\n assert(x + n != 3); return 0; }";
        let p = lower_source(src).program;
        let mut runs = ConcreteRuns::new(&p, "main", 5);
        runs.add_input("3\n".into());
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence { violates: true, completes: false });
        // With 0 the assertion holds: no evidence either way (some other value violates).
        let mut runs = ConcreteRuns::new(&p, "main", 5);
        runs.add_input("4\n".into());
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence::default());
    }

    #[test]
    fn against_a_reference_other_printed_values_reject() {
        // The reference reads two numbers, the student one: a product counterexample holds one
        // value, and the reference's second read gets a padded `0`.
        let reference = lower_source("#include <stdio.h>\nint main(void) { int a, b; scanf(\"%d %d\", &a, &b); printf(\"sum %d\\n\", a + b); return 0; }").program;
        let student = lower_source(
            "#include <stdio.h>\nint main(void) { int a; scanf(\"%d\", &a); printf(\"sum %d\\n\", a * 2); return 0; }",
        )
        .program;
        let mut runs = ConcreteRuns::new(&student, "main", 5).with_reference(&reference, Compare::Values);
        runs.add_input("3\n".into());
        assert_eq!(runs.inputs, vec!["3\n0\n".to_string()]);
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence { violates: true, completes: false });
        // On 0 both print `sum 0`: nothing is decided but that the run completes.
        let mut runs = ConcreteRuns::new(&student, "main", 5).with_reference(&reference, Compare::Values);
        runs.add_input("0".into());
        assert_eq!(runs.inputs, vec!["0\n0\n".to_string()]);
        assert_eq!(runs.evidence(&[], &Cancel::new()), Evidence { violates: false, completes: true });
    }

    #[test]
    fn neighbours_change_one_number_at_a_time() {
        let n = neighbours("5\nx 7\n");
        assert!(n.contains(&"6\nx 7\n".to_string()));
        assert!(n.contains(&"5\nx 0\n".to_string()));
        assert!(n.iter().all(|s| s.lines().count() == 2 && s.contains('x')));
        assert!(!n.contains(&"5\nx 7\n".to_string()));
        let p = lower_source(SUM).program;
        let mut runs = ConcreteRuns::new(&p, "main", 5);
        runs.add_neighbours("2\n", 4, &Cancel::new());
        // n in 1..=4 only (the assumption): 1, 3, 4 are runs to a verdict, 2 itself is not added.
        assert!(runs.inputs() >= 2 && runs.inputs() <= 4, "{}", runs.inputs());
    }
}
