//! Verified repair against a reference (Verifix, seed paper 000).
//!
//! 1. **Automata.** Each function of the student and of the reference is a control-flow
//!    automaton ([`crate::ir::cfa`]): Func-Entry/Exit and Loop-Entry/Exit nodes. Functions are
//!    matched by name and parameter count, else by signature and loop nesting; nodes are
//!    aligned when the loop-nesting trees (the labelled ASTs) have the same shape; otherwise
//!    the result is a structural mismatch.
//! 2. **Edges.** The code from a node to the next nodes is executed symbolically
//!    ([`crate::smt::region`]); all paths from a node to one target node form one edge whose
//!    guarded actions are merged with `ite`. Edges are aligned by their target node: a path
//!    the student lacks is an edge that is never taken (the paper's case 2), and merging the
//!    paths to one target is the union of every combinatorial alignment of the paper's case 3.
//! 3. **Variables.** Usage-distance matrices per node, averaged, matched one-to-one at least
//!    total distance, with the next best matchings tried when one admits no repair
//!    ([`align`]); a live reference variable left without a partner gets a fresh variable
//!    declared in the student's function when no repair exists without it ([`fresh`]). The alignment predicate at a node equates the aligned pairs of which either
//!    side is *live* there (read before written on some path on), plus the input position;
//!    at Func-Entry only parameters (locals hold garbage there). Any predicate is sound as long
//!    as the same one is the post of the edges into a node and the pre of those out of it.
//! 4. **Verification, per node.** From the alignment predicate at node `u`: both programs run
//!    their region; a counterexample is a pre-state where the reference reaches a node and the
//!    student a different one, or both reach `v` with states that break the predicate at `v`,
//!    or they print different tokens, or the student has a runtime error (the reference's are
//!    assumed away: the reference is the spec). Unsat for every node ⇒ equivalent (Theorem 4).
//! 5. **Repair, per node (Algorithm 1).** Every condition, assignment right side, printed value
//!    and returned value of the student's region is a hole whose implementation space is the
//!    original, the region's other student expressions of that kind, the reference's
//!    expressions of the region renamed through the alignment, `true`/`false` (conditions) and
//!    `x = x` (updates). `Extend`: when the reference's region can return and the student's
//!    cannot, a guarded `if (false) return 0;` is added at the region's start, guard and value
//!    holes. CEGIS: verify the candidate; a counterexample joins the list; partial MaxSMT
//!    ([`synth`]: fewest changed holes, then tie-break penalties, then the least selector
//!    vector) finds the candidate changing the fewest expressions that is right on every
//!    counterexample so far; repeat. A node's sites are fixed once it is verified, so later
//!    nodes cannot break it. Answers per node are cached across runs ([`node_cache`]).
//! 6. **What runs in parallel.** Aligned function pairs (calls are shared uninterpreted
//!    functions), each on its own thread with its own Z3 context. Within a function, nodes
//!    whose repair problems are independent ([`Job::components`]): a node's problem depends
//!    on another's only through sites fixed there that its region runs (a `for` step, an
//!    `Extend` tail), or, with frozen variables, through the repaired entry region its check
//!    re-runs (then the function is one part). Parts that share no such site are solved on
//!    threads of their own (a context and a job each, kept across alignments, so
//!    counterexamples still seed the next alignment), when two or more have holes. The answer
//!    is the sequential one: within a part the node order is kept, so every node sees the
//!    choices fixed before it that its region runs, as in the sequential order (the other
//!    parts' choices, which the sequential order also lists as fixed holes, are sites its
//!    region never runs: selectors constrained to 0 that occur in no formula); a node's CEGIS
//!    ends at the least correct candidate of a total order, whatever counterexamples were met
//!    ([`synth`]); the changes are merged in node order, and a failure is the earliest node's,
//!    the one the sequential loop would have stopped at.

pub mod align;
mod fresh;
mod frozen;
mod node_cache;
pub mod precondition;
mod retype;
mod synth;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Context, Model, Solver};

use crate::ir::cfa::{LoopTree, Node};
use crate::ir::{BinOp, Builtin, Callee, Expr, ExprKind, FuncId, IncDec, Program, Span, Stmt, StmtKind, Type, VarId};
use crate::ir::print::expr_to_c;
use crate::ir::repair::TextEdit;
use crate::smt::region::{self, Alt, Exec, Holes, Region, Setup, Site, SiteKind, State, Term, Unsupported, World, SEL_BITS};
use crate::smt::solver::{check_with_budget, new_context, Verdict};
use crate::smt::stream;
use crate::smt::Budget;
use crate::spec::compare::Compare;

#[derive(Clone, Debug)]
pub struct Options {
    pub entry: String,
    pub compare: Compare,
    /// Facts about the input to assume when no repair exists for all inputs
    /// ([`precondition`]); a repair found under them carries them in its guarantee.
    pub precondition: Option<precondition::Precondition>,
}

/// One changed expression (or inserted statement) of a verified repair.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// What is replaced (an empty span for an insertion).
    pub span: Span,
    pub old: String,
    pub new: String,
    /// The automaton node whose region the change is in, in words.
    pub region: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedRepair {
    pub edits: Vec<TextEdit>,
    pub changes: Vec<Change>,
    /// Verifix's relative patch size: the exact tree edit distance between the student's
    /// program and the repaired one over the student's AST size ([`crate::ir::ted`];
    /// Zhang–Shasha over the lowered programs, the text-token approximation
    /// [`crate::ir::ted::token_patch_size`] only if the repaired text does not lower).
    pub relative_patch_size: f64,
    /// The input precondition the proof assumes ([`precondition::Precondition::description`]);
    /// `None` when it holds for all inputs.
    pub assuming: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// No node alignment: a function or the loop structure differs.
    StructuralMismatch(String),
    /// A construct the edge encoding does not model.
    Unsupported(Unsupported),
    /// The budget ran out (or the job was cancelled).
    Timeout,
    /// The solver answered `unknown`.
    SolverUnknown(String),
    /// No repair within the implementation space at this node.
    NoRepair(String),
    /// The engine failed (a bug; the other engines still run).
    Internal,
}

impl Failure {
    /// The failure reason's category, as in Verifix's Table 4.
    pub fn category(&self) -> &'static str {
        match self {
            Failure::StructuralMismatch(_) => "structural mismatch",
            Failure::Unsupported(_) => "unsupported construct",
            Failure::Timeout => "timeout",
            Failure::SolverUnknown(_) => "solver unknown",
            Failure::NoRepair(_) => "no repair in the space",
            Failure::Internal => "internal error",
        }
    }
    pub fn describe(&self) -> String {
        match self {
            Failure::StructuralMismatch(s) => format!("structural mismatch: {s}"),
            Failure::Unsupported(u) => format!("{} is not modelled", u.what),
            Failure::Timeout => "the time budget ran out".into(),
            Failure::SolverUnknown(s) => format!("the solver could not decide ({s})"),
            Failure::NoRepair(s) => format!("no repair from the reference's expressions {s}"),
            Failure::Internal => "an internal error stopped it".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Verified equivalent as written.
    Equivalent,
    /// Not equivalent, but verified equivalent as written for the inputs the precondition
    /// (described) allows.
    EquivalentAssuming(String),
    /// The minimal verified patch found.
    Repaired(VerifiedRepair),
    Failed(Failure),
}

#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// A repair with fewer changes than the outcome's, verified only under the input
    /// precondition (the student may rely on the assignment's promise about the input).
    pub smaller_assuming: Option<VerifiedRepair>,
    /// When the outcome's repair was found (the whole run may go on looking for a smaller
    /// one under the precondition).
    pub found_after: Option<Duration>,
    pub time: Duration,
    /// Solver checks (verification and synthesis).
    pub checks: usize,
}

/// Repairs `student` (whose source is `text`) against `reference`.
pub fn repair(student: &Program, text: &str, reference: &Program, opts: &Options, budget: &Budget) -> Report {
    let start = Instant::now();
    let mut checks = 0;
    let (mut smaller, mut found_after) = (None, None);
    // A bug here must not cost the student the other engines' answers.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let attempt = |pre: Option<&precondition::Precondition>, budget: &Budget, checks: &mut usize| {
            let retyped = retype::integer_reads(student, reference, &opts.entry, text)
                .or_else(|| retype::wanted(student, reference).then(|| retype::edits(student, text)).flatten());
            if let Some(edits) = retyped.filter(|e| !e.is_empty()) {
                // The type changes are the patch even when the retyped program needs nothing
                // else.
                let retyped = on_patched(student, text, edits, &|_, _| true, &mut |p, t| solve(p, t, reference, opts, pre, budget, checks));
                if let Some(result) = retyped {
                    return result;
                }
            }
            solve(student, text, reference, opts, pre, budget, checks)
        };
        // With a precondition in reserve, the proof for all inputs gets half the time: showing
        // that no repair exists can take long (Z3 shows MaxSMT instances unsatisfiable slowly).
        let first_budget = if opts.precondition.is_some() { budget.sub(budget.remaining() / 2) } else { budget.sub(budget.remaining()) };
        let first = attempt(None, &first_budget, &mut checks);
        found_after = Some(start.elapsed()).filter(|_| matches!(first, Ok(Outcome::Repaired(_))));
        let Some(pre) = &opts.precondition else { return first };
        tracing::debug!("input precondition in reserve: {}", pre.description);
        let assuming = |r: VerifiedRepair| VerifiedRepair { assuming: Some(pre.description.clone()), ..r };
        match &first {
            // No repair for all inputs (or none found in its half of the time): the
            // precondition, stated in the answer.
            Err(Failure::NoRepair(_) | Failure::Timeout) if !budget.is_exhausted() => match attempt(Some(pre), budget, &mut checks) {
                Ok(Outcome::Repaired(r)) => {
                    found_after = Some(start.elapsed());
                    Ok(Outcome::Repaired(assuming(r)))
                }
                Ok(Outcome::Equivalent) => Ok(Outcome::EquivalentAssuming(pre.description.clone())),
                _ => first,
            },
            // A repair for all inputs that changes several places: the promise may allow a
            // smaller one, offered beside it.
            Ok(Outcome::Repaired(r)) if r.changes.len() > 1 && !budget.is_exhausted() => {
                if let Ok(Outcome::Repaired(small)) = attempt(Some(pre), budget, &mut checks)
                    && small.changes.len() < r.changes.len()
                {
                    smaller = Some(assuming(small));
                }
                first
            }
            _ => first,
        }
    }));
    let outcome = match run {
        Ok(Ok(o)) => o,
        Ok(Err(f)) => Outcome::Failed(f),
        Err(_) => Outcome::Failed(Failure::Internal),
    };
    Report { outcome, smaller_assuming: smaller, found_after, time: start.elapsed(), checks }
}

/// The engine, and when it finds no repair because the student keeps fewer variables than
/// the reference, the engine again with fresh variables declared ([`fresh`]).
fn solve(student: &Program, text: &str, reference: &Program, opts: &Options, pre: Option<&precondition::Precondition>, budget: &Budget, checks: &mut usize) -> Result<Outcome, Failure> {
    let mut wanted = Vec::new();
    let first = run(student, text, reference, opts, pre, budget, checks, &mut wanted);
    if !matches!(first, Err(Failure::NoRepair(_))) || wanted.is_empty() || budget.is_exhausted() {
        return first;
    }
    let Some(decls) = fresh::declarations(student, text, reference, &wanted) else { return first };
    tracing::debug!("no repair; again with fresh variables: {}", decls.iter().map(|(c, _)| c.new.as_str()).collect::<Vec<_>>().join(" "));
    match on_patched(student, text, decls, &fresh::is_used, &mut |p, t| run(p, t, reference, opts, pre, budget, checks, &mut Vec::new())) {
        Some(Ok(repaired @ Outcome::Repaired(_))) => Ok(repaired),
        // Still none (or out of time): the answer without them, whose place is the one named.
        _ => first,
    }
}

/// The engine (`inner`) on the student's program with `pre_edits` applied first (retyping,
/// fresh declarations), its changes mapped back onto `text`; a pre-edit joins the patch when
/// `keep(its change, the repair's changes)`. `None` when the edited text does not lower.
fn on_patched(
    student: &Program,
    text: &str,
    pre_edits: Vec<(Change, TextEdit)>,
    keep: &dyn Fn(&Change, &[Change]) -> bool,
    inner: &mut dyn FnMut(&Program, &str) -> Result<Outcome, Failure>,
) -> Option<Result<Outcome, Failure>> {
    let patched = crate::ir::repair::apply_edits(text, &pre_edits.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>());
    let lowered = crate::syntax::lower::lower_source(&patched);
    if lowered.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error) {
        return None;
    }
    // The repair's changes first (a repair's title names the first few), then the pre-edits.
    let (mut changes, mut edits) = (Vec::new(), Vec::new());
    let mut assuming = None;
    match inner(&lowered.program, &patched) {
        Ok(Outcome::Equivalent | Outcome::EquivalentAssuming(_)) => {}
        Ok(Outcome::Repaired(r)) => {
            let back = |span: Span| match (original_offset(&pre_edits, span.start), original_offset(&pre_edits, span.end)) {
                (Some(a), Some(b)) => Some(Span { start: a, end: b }),
                // A change inside a pre-edit's text: cannot happen (declarations, types and
                // scanf formats are not holes).
                _ => None,
            };
            assuming = r.assuming;
            for (mut c, mut e) in r.changes.into_iter().zip(r.edits) {
                let (Some(cs), Some(es)) = (back(c.span), back(e.span)) else { return Some(Err(Failure::Internal)) };
                (c.span, e.span) = (cs, es);
                changes.push(c);
                edits.push(e);
            }
        }
        other => return Some(other),
    }
    let kept: Vec<(Change, TextEdit)> = pre_edits.into_iter().filter(|(c, _)| keep(c, &changes)).collect();
    for (c, e) in kept {
        changes.push(c);
        edits.push(e);
    }
    if edits.is_empty() {
        return Some(Ok(Outcome::Equivalent));
    }
    // Measured on the composed patch against the student's own program.
    let relative_patch_size = patch_size(student, text, &edits);
    Some(Ok(Outcome::Repaired(VerifiedRepair { edits, changes, relative_patch_size, assuming })))
}

/// Maps an offset of the text with `edits` applied back to the original text; `None` inside
/// an edit's new text.
fn original_offset(edits: &[(Change, TextEdit)], at: u32) -> Option<u32> {
    let mut sorted: Vec<&TextEdit> = edits.iter().map(|(_, e)| e).collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut shift: i64 = 0;
    for e in sorted {
        let new_start = (e.span.start as i64 + shift) as u32;
        let new_end = new_start + e.new_text.len() as u32;
        if at <= new_start {
            break;
        }
        if at < new_end {
            return None;
        }
        shift += e.new_text.len() as i64 - (e.span.end - e.span.start) as i64;
    }
    Some((at as i64 - shift) as u32)
}

struct Side<'p> {
    program: &'p Program,
    func: FuncId,
    tree: LoopTree<'p>,
    callee_names: HashMap<FuncId, String>,
    prompts: HashSet<*const Expr>,
}

impl<'p> Side<'p> {
    fn setup(&'p self, compare: Compare) -> Setup<'p> {
        Setup {
            program: self.program,
            func: self.func,
            tree: &self.tree,
            callee_names: &self.callee_names,
            prompts: &self.prompts,
            compare,
            line: BTreeSet::new(),
            reading: stream::reading_range(self.program, self.func),
        }
    }
    fn vars(&self) -> Vec<VarId> {
        let f = self.program.func(self.func);
        f.params.iter().chain(&f.locals).copied().collect()
    }
}

/// One function pair's changes and its solver checks.
type PairRepair = (Vec<(Change, TextEdit)>, usize);

/// The engine proper. When a function pair admits no repair, `wanted` gets the reference's
/// variables that pair's alignment leaves without a partner although they matter.
#[allow(clippy::too_many_arguments)]
fn run(student: &Program, text: &str, reference: &Program, opts: &Options, pre: Option<&precondition::Precondition>, budget: &Budget, checks: &mut usize, wanted: &mut Vec<fresh::Wanted>) -> Result<Outcome, Failure> {
    run_with(student, text, reference, opts, pre, budget, checks, true, wanted)
}

/// [`run`], with the independent nodes of a function solved concurrently or (`parallel`
/// false: for comparison) all in order on one thread; the answer is the same.
#[allow(clippy::too_many_arguments)]
fn run_with(student: &Program, text: &str, reference: &Program, opts: &Options, pre: Option<&precondition::Precondition>, budget: &Budget, checks: &mut usize, parallel: bool, wanted: &mut Vec<fresh::Wanted>) -> Result<Outcome, Failure> {
    let pairs = match_functions(student, reference, &opts.entry)?;
    let mut ref_names = HashMap::new();
    let mut stu_names = HashMap::new();
    for &(s, r) in &pairs {
        ref_names.insert(r, reference.func(r).name.clone());
        stu_names.insert(s, reference.func(r).name.clone());
    }
    for &(s, r) in &pairs {
        if reference.func(r).name != opts.entry {
            for (p, f) in [(student, s), (reference, r)] {
                if let Some(span) = does_io(p, f) {
                    return Err(Failure::Unsupported(Unsupported { what: format!("input or output inside the helper function `{}`", p.func(f).name), span }));
                }
            }
        }
    }
    if let (Some(sf), Some(rf)) = (student.func_by_name(&opts.entry), reference.func_by_name(&opts.entry))
        && let (Some(sk), Some(rk)) = (read_kinds(student, sf), read_kinds(reference, rf))
        && let Some(i) = (0..sk.len().min(rk.len())).find(|&i| sk[i].0 != rk[i].0)
    {
        // The k-th token read as an integer by one program and as a floating-point number by
        // the other is two unrelated values in the model: no repair of expressions can make
        // them agree, and the floating-point proof attempts are the slowest there are.
        return Err(Failure::Unsupported(Unsupported { what: "an input read as a number of another kind than the reference reads it".into(), span: sk[i].1 }));
    }
    for &(s, r) in &pairs {
        let (ts, tr) = (LoopTree::of(student.func(s)).expect("defined"), LoopTree::of(reference.func(r)).expect("defined"));
        if !ts.same_shape(&tr) {
            return Err(Failure::StructuralMismatch(format!(
                "`{}` has {} where the reference has {}",
                student.func(s).name,
                ts.describe(),
                tr.describe()
            )));
        }
    }
    let unpartnered = std::sync::Mutex::new(Vec::new());
    // Aligned function pairs are independent (calls are shared uninterpreted functions): each
    // is repaired on its own thread with its own Z3 context; the first failure in pair order
    // is the answer.
    let repair_pair = |(s, r): (FuncId, FuncId)| -> Result<PairRepair, Failure> {
        let task = PairTask { student, reference, s, r, text, opts, pre, budget, ref_names: &ref_names, stu_names: &stu_names };
        repair_function(&task, parallel, &unpartnered)
    };
    let results: Vec<Result<PairRepair, Failure>> = if pairs.len() == 1 {
        vec![repair_pair(pairs[0])]
    } else {
        let repair_pair = &repair_pair;
        std::thread::scope(|scope| {
            let handles: Vec<_> = pairs.iter().map(|&pair| scope.spawn(move || repair_pair(pair))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or(Err(Failure::Internal))).collect()
        })
    };
    wanted.extend(unpartnered.into_inner().unwrap_or_else(|e| e.into_inner()));
    let mut all_changes: Vec<(Change, TextEdit)> = Vec::new();
    for result in results {
        let (changes, n) = result?;
        *checks += n;
        all_changes.extend(changes);
    }
    if all_changes.is_empty() {
        return Ok(Outcome::Equivalent);
    }
    all_changes.sort_by_key(|(_, e)| (e.span.start, e.span.end));
    let (changes, edits): (Vec<Change>, Vec<TextEdit>) = all_changes.into_iter().unzip();
    let relative_patch_size = patch_size(student, text, &edits);
    Ok(Outcome::Repaired(VerifiedRepair { edits, changes, relative_patch_size, assuming: None }))
}

/// One function pair to repair: what every thread that works on it needs to build its own
/// [`Job`] (a Z3 context is not shared between threads, nor is a [`Side`]: its prompt set
/// holds raw pointers, so each thread builds its own from the programs).
struct PairTask<'a> {
    student: &'a Program,
    reference: &'a Program,
    s: FuncId,
    r: FuncId,
    text: &'a str,
    opts: &'a Options,
    pre: Option<&'a precondition::Precondition>,
    budget: &'a Budget,
    ref_names: &'a HashMap<FuncId, String>,
    stu_names: &'a HashMap<FuncId, String>,
}

impl<'a> PairTask<'a> {
    /// The reference's side and the student's.
    fn sides(&self) -> Result<(Side<'a>, Side<'a>), Failure> {
        let (ts, tr) = (LoopTree::of(self.student.func(self.s)).expect("defined"), LoopTree::of(self.reference.func(self.r)).expect("defined"));
        let values = self.opts.compare == Compare::Values && self.reference.func(self.r).name == self.opts.entry;
        let rs = Side { program: self.reference, func: self.r, tree: tr, callee_names: self.ref_names.clone(), prompts: prompts(self.reference, self.r, values)? };
        let ss = Side { program: self.student, func: self.s, tree: ts, callee_names: self.stu_names.clone(), prompts: prompts(self.student, self.s, values)? };
        Ok((rs, ss))
    }

    /// The input facts concern `main`'s reads; a helper function reads nothing.
    fn precondition(&self) -> Option<&'a precondition::Precondition> {
        self.pre.filter(|_| self.reference.func(self.r).name == self.opts.entry)
    }
}

/// A part's answer under one alignment: the changes per node (in node order), or the node
/// that failed and why.
type PartResult = Result<Vec<(Node, Change, TextEdit)>, (Node, Failure)>;

/// Repairs one function pair: the variable alignments in order, the next only when this one
/// admits no repair in its space (counterexamples carry over); a timeout or a solver failure
/// ends the search. With `parallel`, the nodes are split into independent parts
/// ([`Job::components`]) solved on threads of their own when there are two or more.
/// When it finds no repair, `unpartnered` gets the live reference variables the best
/// alignment leaves without a partner ([`fresh`]).
fn repair_function(task: &PairTask<'_>, parallel: bool, unpartnered: &std::sync::Mutex<Vec<fresh::Wanted>>) -> Result<PairRepair, Failure> {
    let (rs, ss) = task.sides()?;
    let arena = extension_arena(&ss);
    let ctx = new_context();
    // The split is computed on a thread of its own while this job is set up, in a context of
    // its own: the terms it makes would change the solving job's term ids, on which the
    // printed problems (the node cache's keys) depend.
    let (job, parts) = std::thread::scope(|scope| {
        let split = parallel.then(|| scope.spawn(|| split_nodes(task)));
        let job = Job::new(&ctx, &rs, &ss, task.opts.compare, task.budget, &arena);
        (job, split.and_then(|h| h.join().ok()).unwrap_or_default())
    });
    let mut job = job?;
    job.precondition = task.precondition();
    let fname = &task.student.func(task.s).name;
    let order = job.order();
    let result = if parts.len() > 1 {
        tracing::debug!("verified repair of `{fname}`: {} nodes in {} independent parts {:?}", order.len(), parts.len(), parts);
        repair_parts(task, &mut job, &order, &parts)
    } else {
        let alignments = job.alignments.clone();
        over_alignments(fname, alignments.len(), |i| {
            if i > 0 {
                job.set_alignment(alignments[i].clone());
            }
            job.repair_nodes(&order, task.text).map(|v| v.into_iter().map(|(_, c, e)| (c, e)).collect()).map_err(|(_, f)| f)
        })
        .map(|changes| {
            tracing::debug!("verified repair of `{fname}`: {} solver checks", job.checks);
            (changes, job.checks)
        })
    };
    if matches!(result, Err(Failure::NoRepair(_))) {
        unpartnered.lock().unwrap_or_else(|e| e.into_inner()).extend(job.unpartnered_live().into_iter().map(|var| fresh::Wanted { func: task.s, var }));
    }
    result
}

/// [`Job::components`] for the pair, by a job of its own (empty when it cannot be set up).
fn split_nodes(task: &PairTask<'_>) -> Vec<Vec<Node>> {
    let Ok((rs, ss)) = task.sides() else { return Vec::new() };
    let arena = extension_arena(&ss);
    let scratch = new_context();
    Job::for_sites(&scratch, &rs, &ss, task.opts.compare, task.budget, &arena).map_or_else(|_| Vec::new(), |mut j| j.components())
}

/// The alignments `0..count` in order until one gives a repair: the next only after one that
/// admits no repair in its space; a timeout or a solver failure ends the search (with the
/// first "no repair" if there was one: it is the more useful message).
fn over_alignments(fname: &str, count: usize, mut attempt: impl FnMut(usize) -> Result<Vec<(Change, TextEdit)>, Failure>) -> Result<Vec<(Change, TextEdit)>, Failure> {
    let mut first_failure = None;
    for i in 0..count {
        if i > 0 {
            tracing::debug!("verified repair of `{fname}`: trying alignment {}", i + 1);
        }
        match attempt(i) {
            Ok(changes) => return Ok(changes),
            Err(f @ Failure::NoRepair(_)) => {
                first_failure.get_or_insert(f);
            }
            Err(f) => return Err(first_failure.unwrap_or(f)),
        }
    }
    Err(first_failure.unwrap_or(Failure::Internal))
}

/// The parts of one function solved concurrently: `job` (this thread's) takes the first part,
/// a thread per other part builds its own context and job for the same pair and keeps it
/// across alignments (its counterexamples, tied to its context, seed its nodes under the next
/// alignment). Per alignment every part is solved; the answer is the changes of all parts in
/// node order, or, when a part fails, the failure at the earliest node, as the sequential
/// order of the nodes would have met it first (parts share no site, so each node's problem and
/// answer are the sequential ones).
fn repair_parts(task: &PairTask<'_>, job: &mut Job<'_, '_, '_>, order: &[Node], parts: &[Vec<Node>]) -> Result<PairRepair, Failure> {
    use std::sync::mpsc;
    let fname = &task.student.func(task.s).name;
    let position = |n: &Node| order.iter().position(|m| m == n).unwrap_or(usize::MAX);
    let alignments = job.alignments.clone();
    let mut checks = 0;
    let changes = std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for part in &parts[1..] {
            let (to_worker, commands) = mpsc::channel::<BTreeMap<VarId, VarId>>();
            let (replies, from_worker) = mpsc::channel::<(PartResult, usize)>();
            let ws = (job.ws_r.clone(), job.ws_s.clone());
            let handle = scope.spawn(move || part_worker(task, part, ws, commands, replies));
            workers.push((to_worker, from_worker, handle));
        }
        let answer = over_alignments(fname, alignments.len(), |i| {
            for (to_worker, _, _) in &workers {
                // A worker that is gone answers below with an internal failure.
                let _ = to_worker.send(alignments[i].clone());
            }
            if i > 0 {
                job.set_alignment(alignments[i].clone());
            }
            let mut results = vec![job.repair_nodes(&parts[0], task.text)];
            checks += std::mem::take(&mut job.checks);
            for (_, from_worker, _) in &workers {
                let (result, n) = from_worker.recv().unwrap_or((Err((Node::FuncEntry, Failure::Internal)), 0));
                results.push(result);
                checks += n;
            }
            let mut all = Vec::new();
            let mut failure: Option<(Node, Failure)> = None;
            for result in results {
                match result {
                    Ok(changes) => all.extend(changes),
                    Err((node, f)) => {
                        if failure.as_ref().is_none_or(|(m, _)| position(&node) < position(m)) {
                            failure = Some((node, f));
                        }
                    }
                }
            }
            if let Some((_, f)) = failure {
                return Err(f);
            }
            // Node order, and within a node the order its part listed them (the sequential
            // order exactly: each node belongs to one part).
            all.sort_by_key(|(node, _, _)| position(node));
            Ok(all.into_iter().map(|(_, c, e)| (c, e)).collect())
        });
        for (to_worker, from_worker, handle) in workers {
            drop(to_worker);
            drop(from_worker);
            // A panic was answered above as an internal failure.
            let _ = handle.join();
        }
        answer
    })?;
    tracing::debug!("verified repair of `{fname}`: {checks} solver checks in {} parts", parts.len());
    Ok((changes, checks))
}

/// One part's thread: its own context and job (with the whitespace invariants `ws` the first
/// job found), solving `nodes` under each alignment it is sent.
fn part_worker(task: &PairTask<'_>, nodes: &[Node], ws: (BTreeSet<Node>, BTreeSet<Node>), commands: std::sync::mpsc::Receiver<BTreeMap<VarId, VarId>>, replies: std::sync::mpsc::Sender<(PartResult, usize)>) {
    let ctx = new_context();
    let Ok((rs, ss)) = task.sides() else { return };
    let arena = extension_arena(&ss);
    let Ok(mut job) = Job::build(&ctx, &rs, &ss, task.opts.compare, task.budget, &arena, Some(ws)) else { return };
    job.precondition = task.precondition();
    let mut first = true;
    for alignment in commands {
        // The new job starts with the first alignment (as the sequential one does).
        if !first || alignment != job.align {
            job.set_alignment(alignment);
        }
        first = false;
        let result = job.repair_nodes(nodes, task.text);
        if replies.send((result, std::mem::take(&mut job.checks))).is_err() {
            return;
        }
    }
}

/// The relative patch size of `edits` to `student` (whose source is `text`): the exact tree
/// edit distance to the repaired text's program; the token approximation only if the
/// repaired text does not lower (which would be a bug of the patch's printing). `mend bench`
/// measures every engine's repairs with it.
pub fn patch_size(student: &Program, text: &str, edits: &[TextEdit]) -> f64 {
    let repaired = crate::syntax::lower::lower_source(&crate::ir::repair::apply_edits(text, edits));
    if repaired.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error) {
        tracing::warn!("a verified repair's text does not lower; its patch size is approximated on tokens");
        return crate::ir::ted::token_patch_size(text, edits);
    }
    crate::ir::ted::relative_patch_size(student, &repaired.program)
}

/// Functions matched by name and parameter count, else by structure: the entry and every
/// function either side defines must have a counterpart (Section 4.1's node alignment over
/// function entries). A reference function the student does not define by its name is paired
/// with the one student function, under another name, that has its signature (as many
/// parameters, each of a compatible type; a value returned or not) and its loop nesting
/// (`isPrime` for `check_prime`).
fn match_functions(student: &Program, reference: &Program, entry: &str) -> Result<Vec<(FuncId, FuncId)>, Failure> {
    let defined = |p: &Program| -> Vec<FuncId> {
        (0..p.funcs.len() as u32).map(FuncId).filter(|f| p.func(*f).body.is_some()).collect()
    };
    if reference.func_by_name(entry).is_none() {
        return Err(Failure::StructuralMismatch(format!("the reference has no `{entry}`")));
    }
    let mut pairs = Vec::new();
    let mut by_structure = Vec::new();
    for r in defined(reference) {
        let name = &reference.func(r).name;
        match student.func_by_name(name).filter(|s| student.func(*s).body.is_some()) {
            Some(s) if student.func(s).params.len() == reference.func(r).params.len() => pairs.push((s, r)),
            Some(_) => return Err(Failure::StructuralMismatch(format!("`{name}` takes a different number of parameters than the reference's"))),
            None if name == entry => return Err(Failure::StructuralMismatch(format!("the reference defines `{name}`, your program does not"))),
            None => by_structure.push(r),
        }
    }
    let mut unnamed: Vec<FuncId> = defined(student).into_iter().filter(|s| reference.func_by_name(&student.func(*s).name).is_none()).collect();
    for r in by_structure {
        let fits: Vec<FuncId> = unnamed.iter().copied().filter(|s| same_structure(student, *s, reference, r)).collect();
        let name = &reference.func(r).name;
        match fits.as_slice() {
            [s] => {
                tracing::debug!("`{}` matched with the reference's `{name}` by its structure", student.func(*s).name);
                pairs.push((*s, r));
                unnamed.retain(|x| x != s);
            }
            [] => return Err(Failure::StructuralMismatch(format!("the reference defines `{name}`; no function of yours has its name, or its parameters and loops"))),
            _ => return Err(Failure::StructuralMismatch(format!("the reference defines `{name}`; several of your functions have its parameters and loops"))),
        }
    }
    if let Some(s) = unnamed.first() {
        return Err(Failure::StructuralMismatch(format!("your function `{}` has no counterpart in the reference", student.func(*s).name)));
    }
    // The entry first: its repair is the one a student reads first.
    pairs.sort_by_key(|(_, r)| reference.func(*r).name != entry);
    Ok(pairs)
}

/// The same signature (as many parameters, pairwise of equal or both of arithmetic types; a
/// value returned by both or neither) and the same loop nesting.
fn same_structure(student: &Program, s: FuncId, reference: &Program, r: FuncId) -> bool {
    let (fs, fr) = (student.func(s), reference.func(r));
    let compatible = |a: &Type, b: &Type| a == b || (a.is_arithmetic() && b.is_arithmetic());
    let params = fs.params.len() == fr.params.len() && fs.params.iter().zip(&fr.params).all(|(a, b)| compatible(&student.var(*a).ty, &reference.var(*b).ty));
    let returns = (fs.ret == Type::Void) == (fr.ret == Type::Void);
    params && returns && matches!((LoopTree::of(fs), LoopTree::of(fr)), (Some(a), Some(b)) if a.same_shape(&b))
}

/// The first input/output call in a function's body.
fn does_io(p: &Program, f: FuncId) -> Option<Span> {
    let mut found = None;
    if let Some(body) = &p.func(f).body {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if let ExprKind::Call(Callee::Builtin(b), _) = &e.kind
                && matches!(b, Builtin::Printf | Builtin::Scanf | Builtin::Getchar | Builtin::Putchar | Builtin::Puts | Builtin::Gets | Builtin::Fgets)
            {
                found.get_or_insert(e.span);
            }
        });
    }
    found
}


fn is_call(e: &Expr, b: Builtin) -> bool {
    matches!(&e.strip_implicit().kind, ExprKind::Call(Callee::Builtin(x), _) if *x == b)
}

fn contains_call(s: &Stmt, b: Builtin) -> bool {
    let mut found = false;
    crate::ir::walk::walk_stmt(s, &mut |e| found |= is_call(e, b));
    found
}

/// The kind of every value the function reads, in order (`i` integer, `f` floating point,
/// `c` character, `s` other), with the read's span, when every read is a `scanf(...);`
/// statement of the body's top level (so reads happen in this order on every path).
fn read_kinds(p: &Program, f: FuncId) -> Option<Vec<(char, Span)>> {
    let kinds = top_level_scanf_directives(p, f)?.into_iter().filter(|d| !d.suppress).map(|d| {
        let kind = match d.conv {
            'd' | 'i' | 'u' => 'i',
            'f' | 'e' | 'g' | 'F' | 'E' | 'G' => 'f',
            'c' => 'c',
            _ => 's',
        };
        (kind, d.call)
    });
    Some(kinds.collect())
}

/// The variable each input token is read into (`None`: discarded, or not a variable), when
/// every read is a top-level `scanf` statement; empty otherwise.
fn input_targets(p: &Program, f: FuncId) -> Vec<Option<VarId>> {
    let Some(directives) = top_level_scanf_directives(p, f) else { return Vec::new() };
    directives.iter().map(|d| d.target.and_then(address_of_var)).collect()
}

/// `x` when `e` is `&x` (a `scanf` argument that stores to a variable).
fn address_of_var(e: &Expr) -> Option<VarId> {
    match &e.strip_implicit().kind {
        ExprKind::AddrOf(x) => match x.strip_implicit().kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// One conversion of a `scanf` statement: what it reads, into which argument.
struct ScanfDirective<'p> {
    conv: char,
    /// `%*d`: read and thrown away (no argument).
    suppress: bool,
    /// The argument it stores to (`&x`), if there is one.
    target: Option<&'p Expr>,
    /// The `scanf` call.
    call: Span,
}

/// The conversions of the function's `scanf` statements in input order (`%%` left out), when
/// every read is a `scanf(...);` statement of the body's top level (so reads happen in this
/// order on every path).
fn top_level_scanf_directives(p: &Program, f: FuncId) -> Option<Vec<ScanfDirective<'_>>> {
    let StmtKind::Block(stmts) = &p.func(f).body.as_ref()?.kind else { return None };
    let mut out = Vec::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Expr(e) if is_call(e, Builtin::Scanf) => {
                let ExprKind::Call(_, args) = &e.strip_implicit().kind else { return None };
                let ExprKind::Str(fmt) = &args.first()?.strip_implicit().kind else { return None };
                let mut rest = args[1..].iter();
                for piece in crate::ir::format::parse(fmt, true).ok()? {
                    if let crate::ir::format::Piece::Directive(d) = piece
                        && d.conv != '%'
                    {
                        let target = if d.suppress { None } else { rest.next() };
                        out.push(ScanfDirective { conv: d.conv, suppress: d.suppress, target, call: e.span });
                    }
                }
            }
            _ if contains_call(s, Builtin::Scanf) => return None,
            _ => {}
        }
    }
    Some(out)
}

/// `printf`s whose output the `values` mode does not compare: prompts, printed just before a
/// read (only `printf` statements between them and the `scanf` statement). The mode compares
/// what is printed after the last read, which is exactly the other prints when every read is
/// a statement of the function body's top level that comes before every compared print; any
/// other shape is reported unsupported. Other modes compare everything.
fn prompts(p: &Program, f: FuncId, values: bool) -> Result<HashSet<*const Expr>, Failure> {
    let mut out = HashSet::new();
    // Reading characters has its own rule (see `smt::stream`).
    if stream::input_kind(p, f).map_err(Failure::Unsupported)? == stream::Input::Chars {
        return if values { stream::char_prompts(p, f).map_err(Failure::Unsupported) } else { Ok(out) };
    }
    if !values {
        return Ok(out);
    }
    let Some(body) = &p.func(f).body else { return Ok(out) };
    let StmtKind::Block(stmts) = &body.kind else { return Ok(out) };
    let printf_stmt = |s: &Stmt| matches!(&s.kind, StmtKind::Expr(e) if is_call(e, Builtin::Printf));
    let scanf_stmt = |s: &Stmt| matches!(&s.kind, StmtKind::Expr(e) if is_call(e, Builtin::Scanf));
    let last_read = stmts.iter().rposition(|s| contains_call(s, Builtin::Scanf));
    for (i, s) in stmts.iter().enumerate() {
        if printf_stmt(s) {
            let next = stmts[i + 1..].iter().find(|x| !printf_stmt(x));
            if next.is_some_and(scanf_stmt) {
                if let StmtKind::Expr(e) = &s.kind {
                    out.insert(e as *const Expr);
                }
                continue;
            }
        }
        if let Some(k) = last_read {
            if i <= k && !scanf_stmt(s) && contains_call(s, Builtin::Scanf) {
                return Err(Failure::Unsupported(Unsupported { what: "reading input inside a statement other than a plain `scanf(...);`".into(), span: s.span }));
            }
            if i < k && contains_call(s, Builtin::Printf) {
                return Err(Failure::Unsupported(Unsupported { what: "printing results before the last input is read".into(), span: s.span }));
            }
        }
    }
    Ok(out)
}

/// Synthetic sites for `Extend`, made before the job so the job can borrow them.
struct Arena {
    /// Per node: the guard (`0`, false) and the returned value (`0`) of an early return at
    /// the region's start.
    early: BTreeMap<Node, (Expr, Expr)>,
    /// Per loop, place (end of body; `true`: before the loop) and variable: the guard (`0`)
    /// and value (`x`) of `if (0) x = x;`. The guard's empty span is where it is inserted.
    tails: Vec<(usize, bool, VarId, Expr, Expr)>,
    /// Per loop node: a print added at the region's start (its empty span is where).
    prints: BTreeMap<Node, Expr>,
    /// Per `printf` call that is not a prompt: the guard (`0`, false) and the other print
    /// (none at first) of `if (guard) print; else call;`.
    guarded: Vec<(*const Expr, Expr, Expr)>,
    /// When the function's last statement is a `return`: the guard (`0`) and the print (none
    /// at first) of `if (guard) print;` added before it ([`last_return`]).
    end: Option<(Expr, Expr)>,
}

fn extension_arena(s: &Side<'_>) -> Arena {
    let f = s.program.func(s.func);
    let mut arena = Arena { early: BTreeMap::new(), tails: Vec::new(), prints: BTreeMap::new(), guarded: Vec::new(), end: None };
    if let Some(last) = last_return(f) {
        let at = Span::new(last.span.start as usize, last.span.start as usize);
        let zero = || Expr { kind: ExprKind::Int(0), ty: Type::INT, span: at };
        arena.end = Some((zero(), zero()));
    }
    if let Some(body) = &f.body {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if is_call(e, Builtin::Printf) && !s.prompts.contains(&(e as *const Expr)) {
                let at = Span::new(e.span.start as usize, e.span.start as usize);
                arena.guarded.push((e as *const Expr, Expr { kind: ExprKind::Int(0), ty: Type::INT, span: at }, Expr { kind: ExprKind::Int(0), ty: Type::INT, span: at }));
            }
        });
    }
    // Prints only in loop regions: in `main` before the loops, output may be prompt text the
    // `values` comparison drops, which the region encoding would compare.
    for node in s.tree.nodes().into_iter().filter(|n| matches!(n, Node::LoopEntry(_) | Node::LoopExit(_))) {
        if let Some(at) = s.tree.region_start(f, node) {
            arena.prints.insert(node, Expr { kind: ExprKind::Int(0), ty: Type::INT, span: Span::new(at, at) });
        }
    }
    let zero = |ty: Type, span: Span| Expr { kind: ExprKind::Int(0), ty, span };
    if let Type::Int(_) = f.ret {
        for node in s.tree.nodes() {
            if let Some(at) = s.tree.region_start(f, node) {
                let span = Span::new(at, at);
                arena.early.insert(node, (zero(Type::INT, span), zero(f.ret.clone(), span)));
            }
        }
    }
    for (l, info) in s.tree.loops.iter().enumerate() {
        let body = match &info.stmt.kind {
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => body,
            _ => continue,
        };
        let end = matches!(body.kind, StmtKind::Block(_)).then(|| Span::new(body.span.end as usize - 1, body.span.end as usize - 1));
        let start = Span::new(info.stmt.span.start as usize, info.stmt.span.start as usize);
        for (before, at) in [(false, end), (true, Some(start))] {
            let Some(at) = at else { continue };
            for v in s.vars() {
                let ty = s.program.var(v).ty.clone();
                if ty.is_arithmetic() {
                    let var = Expr { kind: ExprKind::Var(v), ty, span: at };
                    arena.tails.push((l, before, v, zero(Type::INT, at), var));
                }
            }
        }
    }
    arena
}

/// The function body's last statement, when it is a `return`.
fn last_return(f: &crate::ir::Function) -> Option<&Stmt> {
    match &f.body.as_ref()?.kind {
        StmtKind::Block(stmts) => stmts.last().filter(|s| matches!(s.kind, StmtKind::Return(_))),
        _ => None,
    }
}

/// Where a region is, as a phrase that follows "differs from the reference".
fn node_name(p: &Program, f: FuncId, tree: &LoopTree<'_>, n: Node, text: &str) -> String {
    let fname = &p.func(f).name;
    let line = |span: Span| text[..(span.start as usize).min(text.len())].matches('\n').count() + 1;
    match n {
        Node::FuncEntry if tree.loops.is_empty() => format!("in `{fname}`"),
        Node::FuncEntry => format!("in `{fname}` before its first loop"),
        Node::FuncExit => format!("at the end of `{fname}`"),
        Node::LoopEntry(l) => format!("in each iteration of the loop on line {}", line(tree.span_of(l))),
        Node::LoopExit(l) => format!("after the loop on line {}", line(tree.span_of(l))),
    }
}

type Regions<'p, 'ctx> = BTreeMap<Node, Region<'p, 'ctx>>;

/// Variable alignments tried per function pair (the next only when the previous admits no
/// repair in its space).
const ALIGNMENT_CANDIDATES: usize = 3;

struct Job<'j, 'p, 'ctx> {
    ctx: &'ctx Context,
    r: &'j Side<'p>,
    s: &'j Side<'p>,
    r_setup: Setup<'j>,
    s_setup: Setup<'j>,
    budget: &'j Budget,
    /// Reference variable → student variable: the alignment being tried.
    align: BTreeMap<VarId, VarId>,
    /// The candidate alignments, best first ([`align::candidates`]).
    alignments: Vec<BTreeMap<VarId, VarId>>,
    /// Every counterexample found so far, per node (model and pre-states), for the next
    /// alignment's synthesis to start from.
    cexs: BTreeMap<Node, Vec<(std::rc::Rc<Model<'ctx>>, State<'ctx>, State<'ctx>)>>,
    live_r: BTreeMap<Node, BTreeSet<VarId>>,
    live_s: BTreeMap<Node, BTreeSet<VarId>>,
    /// Nodes where each program's last printed character is whitespace (an inductive
    /// invariant the checks maintain), so a value printed first there stands alone.
    ws_r: BTreeSet<Node>,
    ws_s: BTreeSet<Node>,
    plain_r: Regions<'j, 'ctx>,
    plain_s: Regions<'j, 'ctx>,
    arena: &'j Arena,
    /// Nodes whose region gets the `Extend` early return.
    extended: BTreeSet<Node>,
    /// The `Extend` assignments at loop ends that are in play.
    tails: Vec<region::Tail<'j>>,
    /// Nodes whose region gets an `Extend` print at its start (the reference prints more).
    printing: BTreeSet<Node>,
    /// Print statements `Extend` may make conditional (in regions where the reference has
    /// more print statements than the student).
    guarding: Vec<region::GuardedPrint<'j>>,
    /// The print `Extend` may add before the function's last `return` (in play where the
    /// reference's region that returns prints more statements than the student's).
    ending: Option<region::EndPrint<'j>>,
    /// Fixed choices of sites of verified nodes (the index into the site's alternatives).
    chosen: HashMap<*const Expr, Alt>,
    /// The keys of `chosen` in the order they were fixed (nodes in order, holes in order):
    /// a deterministic order for the formulas built from them.
    chosen_order: Vec<*const Expr>,
    sites: HashMap<*const Expr, (Site<'j>, Node)>,
    /// Either program computes with floating point (picks the verifying solver).
    floats: bool,
    /// Variables that keep their entry region's value at every loop node ([`frozen`]), and
    /// the node the entry region leads to (`None`: nothing is frozen).
    frozen_r: BTreeSet<VarId>,
    frozen_s: BTreeSet<VarId>,
    entry_target: Option<Node>,
    /// The implementation space includes operand substitution (tried at a node only when
    /// Definition 3's space has no repair there).
    wide: bool,
    /// Facts about the input every check assumes (only when no repair exists without them).
    precondition: Option<&'j precondition::Precondition>,
    checks: usize,
}

impl<'j, 'p: 'j, 'ctx> Job<'j, 'p, 'ctx> {
    fn new(ctx: &'ctx Context, r: &'j Side<'p>, s: &'j Side<'p>, compare: Compare, budget: &'j Budget, arena: &'j Arena) -> Result<Self, Failure> {
        Self::build(ctx, r, s, compare, budget, arena, None)
    }

    /// A job that only knows the regions, their sites and the alignments (not the whitespace
    /// invariant, which takes solver checks): enough for [`Job::components`], not to verify.
    fn for_sites(ctx: &'ctx Context, r: &'j Side<'p>, s: &'j Side<'p>, compare: Compare, budget: &'j Budget, arena: &'j Arena) -> Result<Self, Failure> {
        Self::build(ctx, r, s, compare, budget, arena, Some(Default::default()))
    }

    /// With `ws`, the whitespace invariants another job of the same pair found (they are
    /// facts about the programs, and finding them is most of a job's set-up: solver checks).
    fn build(ctx: &'ctx Context, r: &'j Side<'p>, s: &'j Side<'p>, compare: Compare, budget: &'j Budget, arena: &'j Arena, ws: Option<(BTreeSet<Node>, BTreeSet<Node>)>) -> Result<Self, Failure> {
        let r_setup = r.setup(compare);
        let s_setup = s.setup(compare);
        let mut job = Job {
            ctx,
            r,
            s,
            r_setup,
            s_setup,
            budget,
            align: BTreeMap::new(),
            alignments: Vec::new(),
            cexs: BTreeMap::new(),
            live_r: BTreeMap::new(),
            live_s: BTreeMap::new(),
            ws_r: BTreeSet::new(),
            ws_s: BTreeSet::new(),
            plain_r: BTreeMap::new(),
            plain_s: BTreeMap::new(),
            arena,
            extended: BTreeSet::new(),
            tails: Vec::new(),
            printing: BTreeSet::new(),
            guarding: Vec::new(),
            ending: None,
            chosen: HashMap::new(),
            chosen_order: Vec::new(),
            sites: HashMap::new(),
            wide: false,
            precondition: None,
            frozen_r: BTreeSet::new(),
            frozen_s: BTreeSet::new(),
            entry_target: None,
            floats: [r, s].iter().any(|side| side.vars().iter().any(|v| side.program.var(*v).ty.is_float())),
            checks: 0,
        };
        stream::prepare(ctx, &mut job.r_setup, &mut job.s_setup).map_err(Failure::Unsupported)?;
        let world = World::new(ctx);
        for node in r.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit) {
            let pre_r = Exec::fresh_state(ctx, r.program, r.func, "r.").map_err(Failure::Unsupported)?;
            let pre_s = Exec::fresh_state(ctx, s.program, s.func, "s.").map_err(Failure::Unsupported)?;
            let rr = Exec::new(&job.r_setup, &world, None).run(node, pre_r).map_err(Failure::Unsupported)?;
            let sr = Exec::new(&job.s_setup, &world, None).run(node, pre_s).map_err(Failure::Unsupported)?;
            job.plain_r.insert(node, rr);
            job.plain_s.insert(node, sr);
        }
        let targets = (frozen::entry_target(&job.plain_r[&Node::FuncEntry]), frozen::entry_target(&job.plain_s[&Node::FuncEntry]));
        if targets.0.is_some() && targets.0 == targets.1 {
            job.entry_target = targets.0;
            job.frozen_r = frozen::frozen(&job.plain_r);
        }
        job.live_r = liveness(&job.plain_r);
        job.live_s = liveness(&job.plain_s);
        match ws {
            Some((ws_r, ws_s)) => (job.ws_r, job.ws_s) = (ws_r, ws_s),
            None => {
                job.ws_r = whitespace_invariant(ctx, &job.r_setup, r)?;
                job.ws_s = whitespace_invariant(ctx, &job.s_setup, s)?;
            }
        }
        let ru: Vec<(Node, &[(VarId, region::Usage)])> = job.plain_r.iter().map(|(n, r)| (*n, r.usage.as_slice())).collect();
        let su: Vec<(Node, &[(VarId, region::Usage)])> = job.plain_s.iter().map(|(n, r)| (*n, r.usage.as_slice())).collect();
        let (rf, sf) = (r.program.func(r.func), s.program.func(s.func));
        let (rv, sv, rt, st) = (r.vars(), s.vars(), align::table(&ru), align::table(&su));
        job.alignments = align::candidates(
            &align::Vars { program: r.program, vars: &rv, params: &rf.params, usage: &rt, reads: &input_targets(r.program, r.func) },
            &align::Vars { program: s.program, vars: &sv, params: &sf.params, usage: &st, reads: &input_targets(s.program, s.func) },
            ALIGNMENT_CANDIDATES,
        );
        for (node, reg) in &job.plain_r {
            let returns = |g: &Region<'_, '_>| g.exits.iter().any(|e| e.to == Node::FuncExit);
            if returns(reg) && !returns(&job.plain_s[node]) && arena.early.contains_key(node) {
                job.extended.insert(*node);
            }
        }
        for (node, reg) in &job.plain_r {
            // Compared prints only: a prompt split in two prints is no missing print.
            let prints = |g: &Region<'_, '_>, side: &Side<'_>| g.sites.iter().filter(|x| x.kind == SiteKind::PrintCall && !side.prompts.contains(&(x.expr as *const Expr))).count();
            let student = &job.plain_s[node];
            if prints(reg, r) <= prints(student, s) {
                continue;
            }
            if arena.prints.contains_key(node) {
                job.printing.insert(*node);
            }
            if let Some((guard, print)) = &arena.end
                && let Some(before) = last_return(s.program.func(s.func))
                && student.exits.iter().any(|e| e.to == Node::FuncExit)
            {
                job.ending = Some(region::EndPrint { before, guard, print });
            }
            for site in student.sites.iter().filter(|x| x.kind == SiteKind::PrintCall && x.stmt.is_some()) {
                if let Some((call, guard, print)) = arena.guarded.iter().find(|(c, _, _)| std::ptr::eq(*c, site.expr))
                    && !job.guarding.iter().any(|g| std::ptr::eq(g.call, *call))
                {
                    job.guarding.push(region::GuardedPrint { call: site.expr, guard, print });
                }
            }
        }
        for (node, reg) in &job.plain_s {
            for site in &reg.sites {
                job.sites.entry(site.expr as *const Expr).or_insert((site.clone(), *node));
            }
        }
        let first = job.alignments[0].clone();
        job.set_alignment(first);
        Ok(job)
    }

    /// Starts over with another variable alignment: nothing chosen yet, and the `Extend`
    /// assignments that alignment calls for.
    fn set_alignment(&mut self, alignment: BTreeMap<VarId, VarId>) {
        if tracing::enabled!(tracing::Level::DEBUG) {
            let pairs: Vec<String> = alignment.iter().map(|(r, s)| format!("{}~{}", self.r.program.var(*r).name, self.s.program.var(*s).name)).collect();
            tracing::debug!("alignment: {}", pairs.join(", "));
        }
        self.use_alignment(alignment);
    }

    /// [`Job::set_alignment`] without the log line.
    fn use_alignment(&mut self, alignment: BTreeMap<VarId, VarId>) {
        self.align = alignment;
        self.chosen.clear();
        self.chosen_order.clear();
        self.tails.clear();
        self.frozen_s.clear();
        let arena = self.arena;
        // A variable the reference assigns more often than the student, in a loop's body or in
        // the region that enters the loop.
        let writes = |reg: &Region<'_, '_>, v: VarId| {
            reg.usage.iter().filter(|(x, u)| *x == v && matches!(u, region::Usage::Written | region::Usage::Incremented | region::Usage::Scanned)).count()
        };
        for (l, before, v, guard, value) in &arena.tails {
            let node = if *before {
                let enters = |n: &Node, reg: &Region<'_, '_>| *n != Node::LoopEntry(*l) && reg.exits.iter().any(|e| e.to == Node::LoopEntry(*l));
                match self.plain_r.iter().find(|(n, reg)| enters(n, reg)) {
                    Some((n, _)) => *n,
                    None => continue,
                }
            } else {
                Node::LoopEntry(*l)
            };
            let Some(r) = self.align.iter().find(|(_, s)| *s == v).map(|(r, _)| *r) else { continue };
            if writes(&self.plain_r[&node], r) > writes(&self.plain_s[&node], *v) {
                self.tails.push(region::Tail { l: *l, before: *before, guard, value, var: *v });
            }
        }
        if self.entry_target.is_some() {
            // An `Extend` assignment in a loop writes its variable after the entry region.
            let tails: BTreeSet<VarId> = self.tails.iter().filter(|t| !t.before).map(|t| t.var).collect();
            self.frozen_s = frozen::frozen(&self.plain_s).into_iter().filter(|v| !tails.contains(v)).collect();
        }
    }

    /// The reference's local variables of arithmetic type that the best alignment leaves
    /// without a partner although they are live at some node (their values matter there).
    fn unpartnered_live(&self) -> Vec<VarId> {
        let Some(best) = self.alignments.first() else { return Vec::new() };
        let live: BTreeSet<VarId> = self.live_r.values().flatten().copied().collect();
        let params = &self.r.program.func(self.r.func).params;
        self.r.vars().into_iter().filter(|v| !best.contains_key(v) && live.contains(v) && !params.contains(v) && self.r.program.var(*v).ty.is_arithmetic()).collect()
    }

    fn extension(&self, node: Node) -> Option<(&'j Expr, &'j Expr)> {
        if self.extended.contains(&node) {
            self.arena.early.get(&node).map(|(g, v)| (g, v))
        } else {
            None
        }
    }

    fn is_synthetic_guard(&self, site: *const Expr) -> bool {
        self.tails.iter().any(|t| std::ptr::eq(site, t.guard))
    }

    /// The alignment predicate at `node` between two states.
    fn phi(&self, node: Node, r: &State<'ctx>, s: &State<'ctx>) -> Bool<'ctx> {
        let mut eqs = vec![r.in_pos._eq(&s.in_pos)];
        if self.ws_r.contains(&node) {
            eqs.push(r.at_ws.clone());
        }
        if self.ws_s.contains(&node) {
            eqs.push(s.at_ws.clone());
        }
        let (rf, sf) = (self.r.program.func(self.r.func), self.s.program.func(self.s.func));
        for (rv, sv) in &self.align {
            let relevant = if node == Node::FuncEntry {
                // Aligned local arrays start with the same contents (see `region`'s doc).
                let array = |p: &Program, v: &VarId| matches!(p.var(*v).ty, Type::Array(..));
                (rf.params.contains(rv) && sf.params.contains(sv)) || (array(self.r.program, rv) && array(self.s.program, sv))
            } else {
                self.live_r.get(&node).is_some_and(|l| l.contains(rv)) || self.live_s.get(&node).is_some_and(|l| l.contains(sv))
            };
            if !relevant || self.both_frozen(node, *rv, *sv) {
                continue;
            }
            if let (Some(a), Some(b)) = (r.vars.get(rv), s.vars.get(sv))
                && let Some(eq) = a.term.equal(&b.term)
            {
                eqs.push(eq);
            }
        }
        let refs: Vec<&Bool<'ctx>> = eqs.iter().collect();
        Bool::and(self.ctx, &refs)
    }

    /// Runs both regions of `node` from the given pre-states: (hypothesis, violation).
    fn node_formula(&self, node: Node, pre_r: State<'ctx>, pre_s: State<'ctx>, world: &World<'_, 'ctx>, holes: Option<&Holes<'ctx>>) -> Result<(Bool<'ctx>, Bool<'ctx>), Failure> {
        let ctx = self.ctx;
        let rr = Exec::new(&self.r_setup, world, None).run(node, pre_r).map_err(Failure::Unsupported)?;
        let sr = self.student_exec(node, world, holes).run(node, pre_s).map_err(Failure::Unsupported)?;
        let ref_errors: Vec<&Bool<'ctx>> = rr.errors.iter().map(|(c, _, _)| c).collect();
        let mut assumed: Vec<&Bool<'ctx>> = rr.assumed.iter().chain(&sr.assumed).collect();
        let no_ref_error = Bool::or(ctx, &ref_errors).not();
        assumed.push(&no_ref_error);
        let facts: Vec<Bool<'ctx>> = self.precondition.map_or_else(Vec::new, |p| {
            let at = |k: usize| (p.convs[k], k as u32);
            p.facts.iter().filter_map(|f| world.token_order(at(f.left), at(f.right), f.strict)).collect()
        });
        assumed.extend(&facts);
        let hyp = Bool::and(ctx, &assumed);
        let mut bad: Vec<Bool<'ctx>> = sr.errors.iter().map(|(c, _, _)| c.clone()).collect();
        // Glued output on either side: the printed tokens compared are not the output's.
        bad.extend(rr.glue.iter().chain(&sr.glue).cloned());
        // An invariant of the input model broken at the node reached (the line invariant).
        bad.extend(rr.obligations.iter().chain(&sr.obligations).cloned());
        let pr: Vec<(Bool<'ctx>, &region::Token<'ctx>)> = rr.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        let ps: Vec<(Bool<'ctx>, &region::Token<'ctx>)> = sr.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        bad.push(region::sequences_differ(ctx, &pr, &ps));
        let targets: BTreeSet<Node> = rr.exits.iter().chain(&sr.exits).map(|e| e.to).collect();
        for v in targets {
            let (tr, post_r) = merged(ctx, &rr, v);
            let (ts, post_s) = merged(ctx, &sr, v);
            bad.push(tr._eq(&ts).not());
            if let (Some(a), Some(b)) = (post_r, post_s) {
                let mut post = self.phi(v, &a, &b);
                if v == Node::FuncExit
                    && let (Some(x), Some(y)) = (&a.ret, &b.ret)
                {
                    let eq = x.term.equal(&y.term).unwrap_or_else(|| Bool::from_bool(ctx, false));
                    post = Bool::and(ctx, &[&post, &eq]);
                }
                bad.push(Bool::and(ctx, &[&tr, &ts, &post.not()]));
            }
        }
        let refs: Vec<&Bool<'ctx>> = bad.iter().collect();
        Ok((hyp, Bool::or(ctx, &refs)))
    }

    /// The student's region of `node` as the checks run it: with the `Extend` additions in
    /// play (the tails, the guarded prints, the start print, the early return).
    fn student_exec<'s, 'w, 'a>(&'s self, node: Node, world: &'w World<'a, 'ctx>, holes: Option<&'s Holes<'ctx>>) -> Exec<'s, 'j, 'w, 'a, 'ctx> {
        let mut exec = Exec::new(&self.s_setup, world, holes).with_tails(self.tails.clone()).with_guarded_prints(self.guarding.clone()).with_end_print(self.ending);
        if self.printing.contains(&node) {
            exec = exec.with_start_print(&self.arena.prints[&node]);
        }
        if let Some((g, v)) = self.extension(node) {
            exec = exec.with_extension(g, v);
        }
        exec
    }

    /// The sites the student's region of `node` runs with `holes` (a site another region owns
    /// included: a loop's step, an `Extend` tail at the end of a body).
    fn sites_run(&self, node: Node, holes: &Holes<'ctx>) -> Result<Vec<*const Expr>, Failure> {
        let world = World::new(self.ctx);
        let pre_s = Exec::fresh_state(self.ctx, self.s.program, self.s.func, "s.").map_err(Failure::Unsupported)?;
        let sr = self.student_exec(node, &world, Some(holes)).run(node, pre_s).map_err(Failure::Unsupported)?;
        Ok(sr.sites.iter().map(|x| x.expr as *const Expr).collect())
    }

    /// The nodes (in [`Job::order`]) split into parts whose repair problems are independent,
    /// each part in node order, the part of Func-Entry first. Two nodes depend on each other
    /// when one's holes (its sites, `Extend`'s synthetic ones included, nothing chosen) meet
    /// the sites the other's region runs with its holes free (in either implementation
    /// space): fixing a site at one would change the other's problem. Every loop node
    /// depends on Func-Entry when variables are frozen ([`frozen`]: a loop node's check
    /// re-runs the student's entry region as repaired), so then the function is one part. The
    /// parts are the connected components under every candidate alignment at once (the
    /// `Extend` tails and the frozen variables depend on the alignment), so one split serves
    /// the whole alignment loop. Parts without holes join the first; fewer than two parts with
    /// holes are one part. Any failure here: one part (the sequential order).
    fn components(&mut self) -> Vec<Vec<Node>> {
        let order = self.order();
        let parts = self.split(&order).unwrap_or_else(|_| vec![order.clone()]);
        // Back to the first alignment, nothing chosen (as after `Job::new`).
        let first = self.alignments[0].clone();
        self.use_alignment(first);
        self.wide = false;
        parts
    }

    fn split(&mut self, order: &[Node]) -> Result<Vec<Vec<Node>>, Failure> {
        fn root(up: &mut [usize], mut x: usize) -> usize {
            while up[x] != x {
                up[x] = up[up[x]];
                x = up[x];
            }
            x
        }
        fn join(up: &mut [usize], a: usize, b: usize) {
            let (a, b) = (root(up, a), root(up, b));
            // The smaller index is the root: a part's root is its first node.
            up[a.max(b)] = a.min(b);
        }
        // Frozen variables under any alignment: every loop node joins Func-Entry (asked first:
        // it needs no region run).
        for alignment in self.alignments.clone() {
            self.use_alignment(alignment);
            if self.entry_target.is_some() && !(self.frozen_r.is_empty() && self.frozen_s.is_empty()) {
                return Ok(vec![order.to_vec()]);
            }
        }
        let n = order.len();
        let mut up: Vec<usize> = (0..n).collect();
        let mut has_holes = vec![false; n];
        for alignment in self.alignments.clone() {
            self.use_alignment(alignment);
            // Per site, the first node that has it as a hole or runs it.
            let mut owner: HashMap<*const Expr, usize> = HashMap::new();
            for (i, &node) in order.iter().enumerate() {
                let mut touched: Vec<*const Expr> = Vec::new();
                for wide in [false, true] {
                    self.wide = wide;
                    let holes = self.holes(node);
                    has_holes[i] |= !holes.order.is_empty();
                    touched.extend(&holes.order);
                    touched.extend(self.sites_run(node, &holes)?);
                }
                for site in touched {
                    match owner.get(&site) {
                        Some(&j) => join(&mut up, i, j),
                        None => {
                            owner.insert(site, i);
                        }
                    }
                }
            }
            if (0..n).all(|i| root(&mut up, i) == 0) {
                break;
            }
        }
        let mut parts: Vec<(Vec<Node>, bool)> = Vec::new();
        let mut part_of: HashMap<usize, usize> = HashMap::new();
        for (i, &node) in order.iter().enumerate() {
            let r = root(&mut up, i);
            let k = *part_of.entry(r).or_insert_with(|| {
                parts.push((Vec::new(), false));
                parts.len() - 1
            });
            parts[k].0.push(node);
            parts[k].1 |= has_holes[i];
        }
        if parts.iter().filter(|(_, holes)| *holes).count() < 2 {
            return Ok(vec![order.to_vec()]);
        }
        let (mut first, mut out) = (Vec::new(), Vec::new());
        for (k, (nodes, holes)) in parts.into_iter().enumerate() {
            if k == 0 || !holes {
                first.extend(nodes);
            } else {
                out.push(nodes);
            }
        }
        first.sort_by_key(|n| order.iter().position(|m| m == n));
        out.insert(0, first);
        Ok(out)
    }

    /// Verifies `node` with the holes' selectors fixed to `choice`: `None` when verified, else
    /// a counterexample (the model and the pre-states it speaks of).
    fn verify(&mut self, node: Node, holes: &Holes<'ctx>, choice: &HashMap<*const Expr, usize>) -> Result<Option<(Model<'ctx>, State<'ctx>, State<'ctx>)>, Failure> {
        let ctx = self.ctx;
        let mut pre_r = Exec::fresh_state(ctx, self.r.program, self.r.func, "r.").map_err(Failure::Unsupported)?;
        let mut pre_s = Exec::fresh_state(ctx, self.s.program, self.s.func, "s.").map_err(Failure::Unsupported)?;
        if node == Node::FuncEntry {
            // The entry function reads the stream from its start (other functions do not read):
            // reads are then at constant positions, which the solver treats as plain constants.
            pre_r.in_pos = BV::from_u64(ctx, 0, 32);
            pre_s.in_pos = pre_r.in_pos.clone();
            // Nothing printed yet.
            pre_r.at_ws = Bool::from_bool(ctx, true);
            pre_s.at_ws = pre_r.at_ws.clone();
        }
        let world = World::new(ctx);
        let snapshot = self.freeze(node, &world, &mut pre_r, &mut pre_s)?;
        let candidate = holes.restricted(choice);
        let (hyp, bad) = self.node_formula(node, pre_r.clone(), pre_s.clone(), &world, Some(&candidate))?;
        let phi = self.phi(node, &pre_r, &pre_s);
        let phi = match snapshot {
            Some(s) => Bool::and(ctx, &[&phi, &s]),
            None => phi,
        };
        // Floating point: Z3's default solver can spend seconds on comparisons its
        // bit-blasting floating-point tactic proves in milliseconds; that tactic gives up on
        // some formulas (uninterpreted calls), and then the default solver decides.
        let solvers: &[fn(&'ctx Context) -> Solver<'ctx>] =
            if self.floats { &[|c| z3::Tactic::new(c, "qffpbv").solver(), Solver::new] } else { &[crate::smt::solver::bit_vector_uf_solver, Solver::new] };
        let mut verdict = Verdict::Unknown(crate::smt::solver::UnknownReason::SolverUnknown("not run".into()));
        let mut last = None;
        for (i, make) in solvers.iter().enumerate() {
            let solver = last.insert(make(ctx));
            solver.assert(&phi);
            solver.assert(&hyp);
            solver.assert(&bad);
            self.checks += 1;
            let t = Instant::now();
            // Neither solver is always the faster (the pipeline decides `i * i <= n` where the
            // default one can take seconds, the default one some divisions the pipeline
            // bit-blasts slowly): the first gets a quarter of what is left, the last the rest.
            let cap = Budget { deadline: self.budget.deadline.min(Instant::now() + self.budget.remaining() / 4), cancel: self.budget.cancel.clone() };
            let budget = if i + 1 < solvers.len() { &cap } else { self.budget };
            verdict = check_with_budget(solver, &[], budget);
            tracing::debug!("verify {node:?}: {verdict:?} in {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
            if !matches!(verdict, Verdict::Unknown(_)) || self.budget.is_exhausted() {
                break;
            }
        }
        match verdict {
            Verdict::Unsat => Ok(None),
            Verdict::Sat => {
                let m = last.as_ref().and_then(|s| s.get_model()).ok_or_else(|| Failure::SolverUnknown("no model".into()))?;
                Ok(Some((m, pre_r, pre_s)))
            }
            Verdict::Unknown(r) => Err(if self.budget.is_exhausted() { Failure::Timeout } else { Failure::SolverUnknown(format!("{r:?}")) }),
        }
    }

    /// The implementation space of every site of `node`'s student region (Definition 3).
    fn holes(&self, node: Node) -> Holes<'ctx> {
        let mut sites: Vec<Site<'j>> = self.plain_s[&node].sites.clone();
        if let Some((g, v)) = self.extension(node) {
            sites.push(Site { expr: g, kind: SiteKind::Cond, stmt: None });
            sites.push(Site { expr: v, kind: SiteKind::Return, stmt: None });
        }
        if self.printing.contains(&node) {
            sites.push(Site { expr: &self.arena.prints[&node], kind: SiteKind::PrintCall, stmt: None });
        }
        if let Some(end) = &self.ending
            && self.plain_s[&node].exits.iter().any(|e| e.to == Node::FuncExit)
        {
            sites.push(Site { expr: end.guard, kind: SiteKind::Cond, stmt: None });
            sites.push(Site { expr: end.print, kind: SiteKind::PrintCall, stmt: None });
        }
        for gp in &self.guarding {
            if self.plain_s[&node].sites.iter().any(|x| std::ptr::eq(x.expr, gp.call)) {
                sites.push(Site { expr: gp.guard, kind: SiteKind::Cond, stmt: None });
                sites.push(Site { expr: gp.print, kind: SiteKind::PrintCall, stmt: None });
            }
        }
        for t in &self.tails {
            let here = if t.before {
                self.plain_r.get(&node).is_some_and(|reg| node != Node::LoopEntry(t.l) && reg.exits.iter().any(|e| e.to == Node::LoopEntry(t.l)))
            } else {
                node == Node::LoopEntry(t.l)
            };
            if here {
                sites.push(Site { expr: t.guard, kind: SiteKind::Cond, stmt: None });
                sites.push(Site { expr: t.value, kind: SiteKind::Update(t.var), stmt: None });
            }
        }
        let rsites = &self.plain_r[&node].sites;
        let renamed = |pick: &dyn Fn(&SiteKind) -> bool| -> Vec<Expr> {
            rsites.iter().filter(|x| pick(&x.kind)).filter_map(|x| update_rhs(x.expr, &x.kind)).filter_map(|e| self.rename(&e)).collect()
        };
        let ref_conds = renamed(&|k| *k == SiteKind::Cond);
        let ref_updates = renamed(&|k| matches!(k, SiteKind::Update(_)));
        let ref_values = renamed(&|k| matches!(k, SiteKind::Print | SiteKind::Return | SiteKind::Update(_)));
        let ref_prints = renamed(&|k| *k == SiteKind::PrintCall);
        let ref_sizes = renamed(&|k| *k == SiteKind::Size);
        let stu = |pick: &dyn Fn(&SiteKind) -> bool| -> Vec<Expr> {
            sites.iter().filter(|x| pick(&x.kind)).filter_map(|x| update_rhs(x.expr, &x.kind)).filter(is_pure).collect()
        };
        let stu_conds = stu(&|k| *k == SiteKind::Cond);
        let stu_updates = stu(&|k| matches!(k, SiteKind::Update(_)));
        let student_vars: Vec<(VarId, Type)> = if self.wide { self.s.vars().into_iter().map(|v| (v, self.s.program.var(v).ty.clone())).collect() } else { Vec::new() };
        let mut out = HashMap::new();
        let mut order = Vec::new();
        for (i, site) in sites.iter().enumerate() {
            let key = site.expr as *const Expr;
            if out.contains_key(&key) {
                continue;
            }
            order.push(key);
            let sel = BV::new_const(self.ctx, format!("hole{}!{}", node_key(node), i), SEL_BITS);
            if let Some(fixed) = self.chosen.get(&key) {
                out.insert(key, (sel, vec![fixed.clone()]));
                continue;
            }
            let own = update_rhs(site.expr, &site.kind).map(|e| expr_to_c(self.s.program, &e)).unwrap_or_default();
            let mut seen: HashSet<String> = [own].into_iter().collect();
            let synthetic_print = self.arena.prints.values().any(|p| std::ptr::eq(p, site.expr))
                || self.guarding.iter().any(|g| std::ptr::eq(g.print, site.expr))
                || self.ending.is_some_and(|e| std::ptr::eq(e.print, site.expr));
            // A synthetic print's "as written" is printing nothing.
            let mut alts = vec![if synthetic_print { Alt::Keep } else { Alt::Original }];
            let mut push = |e: &Expr, alts: &mut Vec<Alt>| {
                if seen.insert(expr_to_c(self.s.program, e)) && e.ty.is_arithmetic() {
                    alts.push(Alt::Expr(e.clone()));
                }
            };
            match site.kind {
                SiteKind::Cond => {
                    let variants = cond_variants(site.expr);
                    let swapped = operand_substitutions(site.expr, &student_vars);
                    // A print's guard: where a condition of either program does not hold
                    // (the branch a student folded into a shared print).
                    // Or where the printed variable has one of the constant values the student
                    // gives it (`grade == 'F'`).
                    let guarded_call = self.guarding.iter().find(|g| std::ptr::eq(g.guard, site.expr)).map(|g| g.call);
                    let print_guard = guarded_call.is_some() || self.ending.is_some_and(|e| std::ptr::eq(e.guard, site.expr));
                    let negated: Vec<Expr> = if print_guard { ref_conds.iter().chain(&stu_conds).map(negation).collect() } else { Vec::new() };
                    let tests = guarded_call.map_or_else(Vec::new, |call| self.printed_value_tests(call));
                    for e in tests.iter().chain(&ref_conds).chain(&stu_conds).chain(&negated).chain(&variants).chain(&swapped) {
                        push(e, &mut alts);
                    }
                    alts.push(Alt::Bool(true));
                    alts.push(Alt::Bool(false));
                }
                SiteKind::Atom => {
                    for e in cond_variants(site.expr).iter().chain(&operand_substitutions(site.expr, &student_vars)) {
                        push(e, &mut alts);
                    }
                    alts.push(Alt::Bool(true));
                    alts.push(Alt::Bool(false));
                }
                SiteKind::Update(_) => {
                    for e in ref_updates.iter().chain(&stu_updates) {
                        push(e, &mut alts);
                    }
                    if site.stmt.is_some() {
                        alts.push(Alt::Keep);
                    }
                }
                SiteKind::PrintCall => {
                    for e in &ref_prints {
                        if seen.insert(expr_to_c(self.s.program, e)) {
                            alts.push(Alt::Expr(e.clone()));
                        }
                    }
                    if site.stmt.is_some() && !synthetic_print {
                        alts.push(Alt::Keep);
                    }
                }
                SiteKind::Print | SiteKind::Return => {
                    for e in ref_values.iter().chain(&stu_updates) {
                        push(e, &mut alts);
                    }
                }
                // Sizes stay constants (`fgets` unrolls up to the largest).
                SiteKind::Size => {
                    for e in ref_sizes.iter().filter(|e| reads_no_variable(e)) {
                        push(e, &mut alts);
                    }
                }
            }
            alts.truncate((1 << SEL_BITS) - 1);
            out.insert(key, (sel, alts));
        }
        // Sites chosen at earlier nodes that this region also runs (a loop's step, a tail).
        let chosen = self.chosen_order.iter().map(|k| (k, &self.chosen[k]));
        for (i, (key, alt)) in chosen.enumerate() {
            if !out.contains_key(key) {
                order.push(*key);
                out.insert(*key, (BV::new_const(self.ctx, format!("fixed{}!{}", node_key(node), i), SEL_BITS), vec![alt.clone()]));
            }
        }
        Holes { sites: out, order }
    }

    /// `x == c` for each integer variable `x` the print `call` prints and each constant `c`
    /// the student's function assigns to it.
    fn printed_value_tests(&self, call: &Expr) -> Vec<Expr> {
        let ExprKind::Call(_, args) = &call.kind else { return Vec::new() };
        let printed: Vec<VarId> = args.iter().filter_map(|a| match a.strip_implicit().kind {
            ExprKind::Var(v) if matches!(self.s.program.var(v).ty, Type::Int(_)) => Some(v),
            _ => None,
        }).collect();
        let (mut out, mut seen): (Vec<Expr>, Vec<(VarId, i64)>) = (Vec::new(), Vec::new());
        let Some(body) = &self.s.program.func(self.s.func).body else { return out };
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if let ExprKind::Assign(lhs, rhs) = &e.kind
                && let ExprKind::Var(v) = lhs.kind
                && printed.contains(&v)
                && let ExprKind::Int(c) = rhs.strip_implicit().kind
                && !seen.contains(&(v, c))
            {
                seen.push((v, c));
                let var = Expr { kind: ExprKind::Var(v), ty: lhs.ty.clone(), span: call.span };
                let widened = Expr { kind: ExprKind::Cast { expr: Box::new(var), implicit: true }, ty: Type::INT, span: call.span };
                let constant = Expr { kind: ExprKind::Int(c), ty: Type::INT, span: call.span };
                out.push(Expr { kind: ExprKind::Binary(BinOp::Eq, Box::new(widened), Box::new(constant)), ty: Type::INT, span: call.span });
            }
        });
        out
    }

    /// A reference expression in the student's variables (and function names), if every
    /// variable it reads is aligned.
    fn rename(&self, e: &Expr) -> Option<Expr> {
        let mut e = e.clone();
        let mut ok = true;
        rename_in(&mut e, &mut |k| match k {
            ExprKind::Var(v) => match self.align.get(v) {
                Some(s) => *v = *s,
                None => ok = false,
            },
            ExprKind::Call(Callee::Func(f), _) => {
                // The student's function paired with it (by name or by structure).
                let name = &self.r.program.func(*f).name;
                match self.s.callee_names.iter().find(|(_, n)| *n == name) {
                    Some((s, _)) => *f = *s,
                    None => ok = false,
                }
            }
            _ => {}
        });
        if !ok {
            return None;
        }
        cast_retyped_vars(&mut e, self.s.program);
        (is_pure(&e) || is_plain_print(&e)).then_some(e)
    }

    /// The constraint a counterexample puts on the holes: from its concrete pre-states and
    /// inputs, the node's check holds.
    fn instance(&self, node: Node, m: &Model<'ctx>, pre_r: State<'ctx>, pre_s: State<'ctx>, holes: &Holes<'ctx>) -> Result<Bool<'ctx>, Failure> {
        let world = World::new(self.ctx);
        let world = world.in_model(m);
        let (hyp, bad) = self.node_formula(node, pre_r, pre_s, &world, Some(holes))?;
        // Concrete inputs: most of the formula folds away before the synthesiser sees it.
        let cex = hyp.implies(&bad.not()).simplify();
        Ok(crate::smt::fold::fold_constant_ites(&Dynamic::from_ast(&cex)).as_bool().expect("a formula").simplify())
    }

    /// Algorithm 1 for one node: CEGIS with partial MaxSMT.
    fn repair_node(&mut self, node: Node) -> Result<HashMap<*const Expr, usize>, Failure> {
        let holes = self.holes(node);
        let key = self.problem_key(node, &holes)?;
        if let Some(known) = node_cache::get(key) {
            tracing::debug!("{node:?}: answered from the node cache");
            return match known {
                Some(indices) => Ok(holes.order.iter().copied().zip(indices).collect()),
                None => Err(Failure::NoRepair(String::new())),
            };
        }
        let result = self.solve_node(node, &holes);
        match &result {
            Ok(choice) => node_cache::put(key, Some(holes.order.iter().map(|k| choice.get(k).copied().unwrap_or(0)).collect())),
            Err(Failure::NoRepair(_)) => node_cache::put(key, None),
            Err(_) => {}
        }
        result
    }

    /// The node's whole repair problem as a key: its check over every alternative of every hole
    /// (each alternative's meaning is in the formula under its selector value), and per hole
    /// whether it is free and how its alternatives are ranked. Equal keys, equal answers.
    fn problem_key(&self, node: Node, holes: &Holes<'ctx>) -> Result<u128, Failure> {
        let mut pre_r = Exec::fresh_state(self.ctx, self.r.program, self.r.func, "r.").map_err(Failure::Unsupported)?;
        let mut pre_s = Exec::fresh_state(self.ctx, self.s.program, self.s.func, "s.").map_err(Failure::Unsupported)?;
        let world = World::new(self.ctx);
        let snapshot = self.freeze(node, &world, &mut pre_r, &mut pre_s)?;
        let phi = self.phi(node, &pre_r, &pre_s);
        let phi = match snapshot {
            Some(s) => Bool::and(self.ctx, &[&phi, &s]),
            None => phi,
        };
        let (hyp, bad) = self.node_formula(node, pre_r, pre_s, &world, Some(holes))?;
        // A solver prints its assertions with shared subterms let-bound (linear in the
        // formula's DAG; an AST's own printing can be exponential).
        let printer = Solver::new(self.ctx);
        printer.assert(&phi);
        printer.assert(&hyp);
        printer.assert(&bad);
        let mut text = format!("{node:?}\n{printer}\n");
        for (site, (sel, alts)) in holes.iter() {
            let free = !self.chosen.contains_key(site);
            let guard = self.is_synthetic_guard(*site);
            let described: Vec<String> = alts
                .iter()
                .map(|a| match a {
                    Alt::Expr(e) => expr_to_c(self.s.program, e),
                    other => format!("{other:?}"),
                })
                .collect();
            text.push_str(&format!("{sel} {free} {guard} {}\n", described.join(" | ")));
        }
        Ok(node_cache::key(&text))
    }

    fn solve_node(&mut self, node: Node, holes: &Holes<'ctx>) -> Result<HashMap<*const Expr, usize>, Failure> {
        let mut choice: HashMap<*const Expr, usize> = HashMap::new();
        // One synthesiser for the whole loop: each counterexample adds its constraint once.
        let mut synth = synth::Synth::new(self.ctx);
        for (site, (sel, alts)) in holes.iter() {
            synth.require(&sel.bvult(&sel_const(self.ctx, alts.len() as u64)));
            if alts.len() > 1 && !self.chosen.contains_key(site) {
                // Fewest changed expressions first; among those, an added statement
                // unconditional rather than guarded.
                synth.changed(sel._eq(&sel_const(self.ctx, 0)).not());
                synth.selector(sel.clone());
                for (k, alt) in alts.iter().enumerate() {
                    let is_k = sel._eq(&sel_const(self.ctx, k as u64));
                    match alt {
                        // An added statement: unconditional rather than guarded.
                        Alt::Bool(true) if self.is_synthetic_guard(*site) => synth.penalty(is_k.not()),
                        // Elsewhere a constant or a negated condition is the last resort
                        // among equals.
                        Alt::Bool(_) if !self.is_synthetic_guard(*site) => synth.penalty(is_k),
                        Alt::Expr(e) if matches!(e.kind, ExprKind::Unary(crate::ir::UnOp::Not, _)) => synth.penalty(is_k),
                        // Another variable in a comparison: after the reference's expressions
                        // and the operator changes.
                        Alt::Expr(e) if self.sites.get(site).is_some_and(|(x, _)| is_operand_substitution(x.expr, e)) => synth.penalty(is_k),
                        _ => {}
                    }
                }
            }
        }
        // Counterexamples another alignment met here constrain this one too when their
        // pre-states satisfy this alignment's predicate (then they are states this node's
        // check quantifies over).
        let mut seeded = false;
        for (m, pre_r, pre_s) in self.cexs.get(&node).cloned().unwrap_or_default() {
            let (cr, cs) = (concrete(&pre_r, &m), concrete(&pre_s, &m));
            if self.phi(node, &cr, &cs).simplify().as_bool() == Some(true) {
                synth.require(&self.instance(node, &m, cr, cs, holes)?);
                seeded = true;
            }
        }
        let mut fresh_cex = !seeded;
        loop {
            if self.budget.is_exhausted() {
                return Err(Failure::Timeout);
            }
            if fresh_cex {
                let Some((m, pre_r, pre_s)) = self.verify(node, holes, &choice)? else {
                    return Ok(choice);
                };
                tracing::debug!("counterexample at {node:?}: {m}");
                let instance = self.instance(node, &m, concrete(&pre_r, &m), concrete(&pre_s, &m), holes)?;
                synth.require(&instance);
                self.cexs.entry(node).or_default().push((std::rc::Rc::new(m), pre_r, pre_s));
            }
            fresh_cex = true;
            let t = Instant::now();
            let found = synth.solve(self.budget);
            self.checks += std::mem::take(&mut synth.checks);
            tracing::debug!("synthesise {node:?}: {} in {:.1} ms", if matches!(found, Ok(Some(_))) { "found" } else { "none" }, t.elapsed().as_secs_f64() * 1000.0);
            match found? {
                Some(m) => {
                    // In the holes' order: evaluating creates terms, and the order terms are
                    // created in steers Z3's later searches (a hash map's order would make
                    // equal-cost answers differ from run to run).
                    let next: HashMap<*const Expr, usize> = holes
                        .iter()
                        .map(|(site, (sel, _))| (*site, m.eval(sel, true).and_then(|v| v.as_u64()).unwrap_or(0) as usize))
                        .collect();
                    if next == choice {
                        return Err(Failure::SolverUnknown("the synthesiser repeated a refuted candidate".into()));
                    }
                    if tracing::enabled!(tracing::Level::DEBUG) {
                        let picked: Vec<String> = holes
                            .iter()
                            .filter_map(|(site, (_, alts))| match alts.get(next[site]) {
                                Some(Alt::Expr(e)) => Some(expr_to_c(self.s.program, e)),
                                Some(Alt::Original) | None => None,
                                Some(other) => Some(format!("{other:?}")),
                            })
                            .collect();
                        tracing::debug!("candidate at {node:?}: {}", picked.join("; "));
                    }
                    choice = next;
                }
                None => return Err(Failure::NoRepair(String::new())),
            }
        }
    }

    /// The nodes that have a region (all but Func-Exit), in the order they are repaired.
    fn order(&self) -> Vec<Node> {
        self.r.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect()
    }

    /// `nodes` in order (all of them, or a part of [`Job::components`]); then the changes as
    /// text edits, each with its node. A failure names its node.
    fn repair_nodes(&mut self, nodes: &[Node], text: &str) -> PartResult {
        let mut picked: Vec<(Node, *const Expr, Alt)> = Vec::new();
        for &node in nodes {
            // Definition 3's space first; the wider one (operand substitution) only when it
            // has no repair here, so its larger synthesis problems are paid only then.
            self.wide = false;
            let choice = match self.repair_node(node) {
                Err(Failure::NoRepair(_)) => {
                    self.wide = true;
                    self.repair_node(node)
                }
                other => other,
            };
            let choice = choice.map_err(|f| match f {
                Failure::NoRepair(_) => (node, Failure::NoRepair(node_name(self.s.program, self.s.func, &self.s.tree, node, text))),
                other => (node, other),
            })?;
            let holes = self.holes(node);
            for (site, (_, alts)) in holes.iter() {
                if self.chosen.contains_key(site) {
                    continue;
                }
                let alt = alts[choice.get(site).copied().unwrap_or(0)].clone();
                if !matches!(alt, Alt::Original) {
                    picked.push((node, *site, alt.clone()));
                }
                if self.chosen.insert(*site, alt).is_none() {
                    self.chosen_order.push(*site);
                }
            }
        }
        // No final pass is needed: a node's check depends only on the sites its region runs,
        // and all of them are fixed once it is verified, so later nodes cannot undo it.
        Ok(picked.into_iter().filter_map(|(node, site, alt)| self.edit(node, site, &alt, text).map(|(c, e)| (node, c, e))).collect())
    }

    /// The text edit of one changed site.
    fn edit(&self, node: Node, site: *const Expr, alt: &Alt, text: &str) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let region = node_name(p, self.s.func, &self.s.tree, node, text);
        if let Some((g, v)) = self.extension(node)
            && (std::ptr::eq(site, g) || std::ptr::eq(site, v))
        {
            // An inserted early return: both holes make one statement.
            if !std::ptr::eq(site, g) {
                return None;
            }
            let guard = match alt {
                Alt::Expr(e) => expr_to_c(p, e),
                Alt::Bool(true) => "1".into(),
                _ => return None,
            };
            let value = match self.chosen.get(&(v as *const Expr)) {
                Some(Alt::Expr(e)) => expr_to_c(p, e),
                _ => "0".into(),
            };
            let at = g.span.start as usize;
            let indent = indentation_after(text, at);
            let new = format!("\n{indent}if ({guard})\n{indent}    return {value};");
            return Some((Change { span: g.span, old: String::new(), new: format!("if ({guard}) return {value};"), region }, TextEdit { span: g.span, new_text: new }));
        }
        if let Some(t) = self.tails.iter().find(|t| std::ptr::eq(site, t.guard) || std::ptr::eq(site, t.value)) {
            // An added assignment at the end of a loop body: guard and value make one statement.
            if !std::ptr::eq(site, t.guard) {
                return None;
            }
            let value = match self.chosen.get(&(t.value as *const Expr)) {
                Some(Alt::Expr(e)) => expr_to_c(p, e),
                _ => return None,
            };
            let name = &p.var(t.var).name;
            let stmt = match alt {
                Alt::Bool(true) => format!("{name} = {value};"),
                Alt::Expr(g) => format!("if ({}) {name} = {value};", expr_to_c(p, g)),
                _ => return None,
            };
            let at = t.guard.span.start as usize;
            if t.before {
                // Just before the loop statement, on its own line with the loop's indentation.
                let indent = line_indentation(text, at);
                let insert = Span::new(at, at);
                let new_text = format!("{stmt}\n{indent}");
                return Some((Change { span: insert, old: String::new(), new: stmt, region }, TextEdit { span: insert, new_text }));
            }
            let indent = text[..at].rsplit('\n').nth(1).map(|l| l[..l.len() - l.trim_start().len()].to_string()).unwrap_or_default();
            let line_start = text[..at].rfind('\n').map_or(at, |i| i + 1);
            let insert = Span::new(line_start, line_start);
            let body_indent = if text[line_start..at].trim().is_empty() { format!("{}    ", &text[line_start..at]) } else { indent };
            let new_text = format!("{body_indent}{stmt}\n");
            return Some((Change { span: insert, old: String::new(), new: stmt, region }, TextEdit { span: insert, new_text }));
        }
        if let Some(end) = self.ending.filter(|e| std::ptr::eq(site, e.guard) || std::ptr::eq(site, e.print)) {
            // An added print before the last `return`: guard and print make one statement.
            if !std::ptr::eq(site, end.guard) {
                return None;
            }
            let print = match self.chosen.get(&(end.print as *const Expr)) {
                Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
                _ => return None,
            };
            let stmt = match alt {
                Alt::Bool(true) => print,
                Alt::Expr(g) => format!("if ({}) {print}", expr_to_c(p, g)),
                _ => return None,
            };
            let at = end.before.span.start as usize;
            let indent = line_indentation(text, at);
            let insert = Span::new(at, at);
            let new_text = format!("{}\n{indent}", stmt.replace(") printf", &format!(")\n{indent}    printf")));
            return Some((Change { span: insert, old: String::new(), new: stmt, region }, TextEdit { span: insert, new_text }));
        }
        if let Some(gp) = self.guarding.iter().find(|g| std::ptr::eq(site, g.guard) || std::ptr::eq(site, g.print) || std::ptr::eq(site, g.call)) {
            return self.guarded_print_edit(gp, site, alt, text, region);
        }
        if let Some(p) = self.arena.prints.values().find(|p| std::ptr::eq(site, *p)) {
            let Alt::Expr(call) = alt else { return None };
            let stmt = format!("{};", expr_to_c(self.s.program, call));
            let at = p.span.start as usize;
            let indent = indentation_after(text, at);
            let new_text = format!("\n{indent}{stmt}");
            return Some((Change { span: p.span, old: String::new(), new: stmt.clone(), region }, TextEdit { span: p.span, new_text }));
        }
        self.plain_edit(site, alt, text, region)
    }

    /// The edit of a site of the student's code: its expression or statement replaced.
    fn plain_edit(&self, site: *const Expr, alt: &Alt, text: &str, region: String) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let (info, _) = self.sites.get(&site)?;
        let e = info.expr;
        let old_text = text.get(e.span.range())?.to_string();
        let (span, new) = match (alt, info.kind) {
            (Alt::Bool(b), SiteKind::Cond | SiteKind::Atom) => (e.span, if *b { "1".to_string() } else { "0".to_string() }),
            (Alt::Keep, _) => (info.stmt?.span, String::new()),
            (Alt::Expr(x), SiteKind::Update(v)) if is_self_update(e) => (e.span, format!("{} = {}", p.var(v).name, expr_to_c(p, x))),
            (Alt::Expr(x), _) => (e.span, expr_to_c(p, x)),
            _ => return None,
        };
        // A condition's span includes the statement's parentheses: keep them.
        let wrapped = span == e.span && old_text.starts_with('(') && old_text.ends_with(')') && !new.is_empty();
        let new_text = if wrapped {
            format!("({new})")
        } else if new.is_empty() && needs_statement(text, span.start as usize) {
            // A deleted statement that is the whole body of an `if`, `else` or loop, or follows a
            // label: an empty statement keeps the program C.
            ";".to_string()
        } else {
            new.clone()
        };
        let shown = if wrapped { old_text[1..old_text.len() - 1].trim().to_string() } else { old_text };
        Some((Change { span, old: shown, new, region }, TextEdit { span, new_text }))
    }
}

impl<'j, 'p: 'j, 'ctx> Job<'j, 'p, 'ctx> {
    /// The edit of a print statement `Extend` made conditional: the guard's change writes
    /// the whole `if (guard) print; else call;` (with the call as chosen); the print's and the
    /// call's own changes are part of it. A call whose guard stays false is edited alone.
    fn guarded_print_edit(&self, gp: &region::GuardedPrint<'j>, site: *const Expr, alt: &Alt, text: &str, region: String) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let guard_alt = self.chosen.get(&(gp.guard as *const Expr)).unwrap_or(&Alt::Original);
        let (info, _) = self.sites.get(&(gp.call as *const Expr))?;
        let stmt = info.stmt?;
        if std::ptr::eq(site, gp.call) {
            return match guard_alt {
                Alt::Original | Alt::Bool(false) => self.plain_edit(site, alt, text, region),
                _ => None,
            };
        }
        if !std::ptr::eq(site, gp.guard) {
            return None;
        }
        let guard = match alt {
            Alt::Expr(e) => expr_to_c(p, e),
            Alt::Bool(true) => "1".into(),
            _ => return None,
        };
        let print = match self.chosen.get(&(gp.print as *const Expr)) {
            Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
            _ => ";".into(),
        };
        let old = text.get(stmt.span.range())?.to_string();
        let otherwise = match self.chosen.get(&(gp.call as *const Expr)) {
            Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
            Some(Alt::Keep) => ";".into(),
            _ => old.clone(),
        };
        let indent = line_indentation(text, stmt.span.start as usize);
        let new_text = format!("if ({guard})\n{indent}    {print}\n{indent}else\n{indent}    {otherwise}");
        let new = format!("if ({guard}) {print} else {otherwise}");
        Some((Change { span: stmt.span, old, new, region }, TextEdit { span: stmt.span, new_text }))
    }
}

/// Whether a statement starting at `at` is required there by the grammar (it follows an
/// `if (...)`/loop header, `else`, `do` or a label), so deleting it must leave `;`.
fn needs_statement(text: &str, at: usize) -> bool {
    let before = text[..at.min(text.len())].trim_end();
    let word_end = |w: &str| before.ends_with(w) && !before[..before.len() - w.len()].ends_with(|c: char| c.is_alphanumeric() || c == '_');
    before.ends_with(')') || before.ends_with(':') || word_end("else") || word_end("do")
}

fn sel_const(ctx: &Context, k: u64) -> BV<'_> {
    BV::from_u64(ctx, k, SEL_BITS)
}

fn node_key(n: Node) -> String {
    format!("{n:?}").replace(['(', ')'], "")
}

/// The indentation of the line that `at` is on.
fn line_indentation(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].chars().take_while(|c| c.is_whitespace()).collect()
}

fn indentation_after(text: &str, at: usize) -> String {
    let rest = &text[at.min(text.len())..];
    rest.lines().skip(1).find(|l| !l.trim().is_empty()).map(|l| l[..l.len() - l.trim_start().len()].to_string()).unwrap_or_else(|| "    ".into())
}

/// `i++`, `i += 2`: a site whose expression is the whole update.
fn is_self_update(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::IncDec(..) | ExprKind::CompoundAssign { .. })
}

/// `!e`.
fn negation(e: &Expr) -> Expr {
    Expr { kind: ExprKind::Unary(crate::ir::UnOp::Not, Box::new(e.strip_implicit().clone())), ty: Type::INT, span: e.span }
}

/// Beyond the paper's space, the slips students make in a condition: another relational
/// operator, or the condition negated.
fn cond_variants(e: &Expr) -> Vec<Expr> {
    let inner = e.strip_implicit();
    let mut out = Vec::new();
    if let ExprKind::Binary(op, a, b) = &inner.kind
        && op.is_comparison()
    {
        for other in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne] {
            if other != *op {
                out.push(Expr { kind: ExprKind::Binary(other, a.clone(), b.clone()), ..inner.clone() });
            }
        }
    }
    out.push(negation(inner));
    out
}

/// Beyond Definition 3: a comparison with one variable operand replaced by another variable
/// of the same type (`y >= z` → `a >= z`, a student comparing the wrong variable).
fn operand_substitutions(e: &Expr, vars: &[(VarId, Type)]) -> Vec<Expr> {
    let inner = e.strip_implicit();
    let ExprKind::Binary(op, a, b) = &inner.kind else { return Vec::new() };
    if !op.is_comparison() {
        return Vec::new();
    }
    let var_of = |x: &Expr| match x.strip_implicit().kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    let mut out = Vec::new();
    for (side, other) in [(a, b), (b, a)] {
        let Some(v) = var_of(side) else { continue };
        let Some((_, ty)) = vars.iter().find(|(x, _)| *x == v) else { continue };
        for (w, _) in vars.iter().filter(|(w, t)| *w != v && t == ty && Some(*w) != var_of(other)) {
            let mut replaced = (**side).clone();
            rename_in(&mut replaced, &mut |k| {
                if let ExprKind::Var(x) = k
                    && *x == v
                {
                    *x = *w;
                }
            });
            let (l, r) = if std::ptr::eq(side, a) { (replaced, (**b).clone()) } else { ((**a).clone(), replaced) };
            out.push(Expr { kind: ExprKind::Binary(*op, Box::new(l), Box::new(r)), ..inner.clone() });
        }
    }
    out
}

/// Whether `alt` is `original` with one variable operand of its comparison replaced.
fn is_operand_substitution(original: &Expr, alt: &Expr) -> bool {
    let (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) = (&original.strip_implicit().kind, &alt.strip_implicit().kind) else { return false };
    let var_of = |x: &Expr| match x.strip_implicit().kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    let differs = |x: &Expr, y: &Expr| var_of(x).is_some() && var_of(y).is_some() && var_of(x) != var_of(y);
    o1 == o2 && o1.is_comparison() && (differs(a1, a2) != differs(b1, b2))
}

/// The new value a site computes, as an expression: `e` for `x = e` sites, `i + 1` for `i++`,
/// `s + x` for `s += x`.
fn update_rhs(e: &Expr, kind: &SiteKind) -> Option<Expr> {
    match (&e.kind, kind) {
        (ExprKind::IncDec(k, lhs), SiteKind::Update(_)) => {
            let op = if matches!(k, IncDec::PreInc | IncDec::PostInc) { BinOp::Add } else { BinOp::Sub };
            let one = Expr { kind: ExprKind::Int(1), ty: lhs.ty.clone(), span: e.span };
            Some(Expr { kind: ExprKind::Binary(op, lhs.clone(), Box::new(one)), ty: lhs.ty.clone(), span: e.span })
        }
        (ExprKind::CompoundAssign { op, op_ty, lhs, rhs }, SiteKind::Update(_)) => {
            let l = Expr { kind: ExprKind::Cast { expr: lhs.clone(), implicit: true }, ty: op_ty.clone(), span: lhs.span };
            Some(Expr { kind: ExprKind::Binary(*op, Box::new(l), rhs.clone()), ty: op_ty.clone(), span: e.span })
        }
        _ => Some(e.clone()),
    }
}

/// In a reference expression renamed into the student's variables, every variable the
/// student declares with another type than the reference's is read through an explicit cast
/// to the reference's type: the encoding computes with the reference's types, and the cast
/// makes the text that is applied compute the same (`printf("%d", m)` with a `double m`
/// would not; `printf("%d", (int) m)` does).
fn cast_retyped_vars(e: &mut Expr, student: &Program) {
    if let ExprKind::Var(v) = e.kind {
        let declared = &student.var(v).ty;
        if *declared != e.ty && declared.is_arithmetic() && e.ty.is_arithmetic() {
            let read = Expr { kind: ExprKind::Var(v), ty: declared.clone(), span: e.span };
            e.kind = ExprKind::Cast { expr: Box::new(read), implicit: false };
        }
        return;
    }
    for c in crate::ir::walk::children_mut(e) {
        cast_retyped_vars(c, student);
    }
}

fn rename_in(e: &mut Expr, f: &mut impl FnMut(&mut ExprKind)) {
    f(&mut e.kind);
    for c in crate::ir::walk::children_mut(e) {
        rename_in(c, f);
    }
}

/// `printf("literal", pure...)`.
fn is_plain_print(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(Callee::Builtin(Builtin::Printf), args) => {
            matches!(args.first().map(|a| &a.strip_implicit().kind), Some(ExprKind::Str(_))) && args[1..].iter().all(is_pure)
        }
        _ => false,
    }
}

/// An expression without variables (a constant, after `#define`s are expanded).
fn reads_no_variable(e: &Expr) -> bool {
    let mut none = true;
    crate::ir::walk::walk_expr(e, &mut |x| none &= !matches!(x.kind, ExprKind::Var(_) | ExprKind::Call(..)));
    none
}

/// No side effects and no input/output (alternatives are evaluated in place of a site).
fn is_pure(e: &Expr) -> bool {
    let mut pure = true;
    crate::ir::walk::walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) | ExprKind::Comma(..) => pure = false,
        ExprKind::Call(Callee::Builtin(b), _) => {
            pure &= matches!(b, Builtin::Abs | Builtin::Labs | Builtin::Fabs | Builtin::Sqrt | Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Isdigit | Builtin::Isalpha | Builtin::Isspace | Builtin::Isupper | Builtin::Islower)
        }
        ExprKind::Str(_) => pure = false,
        _ => {}
    });
    pure
}

/// The merged exit into `v`: (taken, the state it is reached with).
fn merged<'ctx>(ctx: &'ctx Context, reg: &Region<'_, 'ctx>, v: Node) -> (Bool<'ctx>, Option<State<'ctx>>) {
    let exits: Vec<&region::Exit<'ctx>> = reg.exits.iter().filter(|e| e.to == v).collect();
    let guards: Vec<&Bool<'ctx>> = exits.iter().map(|e| &e.state.guard).collect();
    let taken = Bool::or(ctx, &guards);
    // The exits' guards are disjoint: merging each under its own guard gives the edge's state.
    let state = exits.iter().rev().fold(None, |rest, e| region::merge_states(&e.state.guard, Some(e.state.clone()), rest));
    (taken, state)
}

/// A pre-state with every value replaced by its value in `m`.
fn concrete<'ctx>(st: &State<'ctx>, m: &Model<'ctx>) -> State<'ctx> {
    let mut out = st.clone();
    for val in out.vars.values_mut() {
        val.term = match &val.term {
            Term::Int(b, t) => Term::Int(m.eval(b, true).unwrap_or_else(|| b.clone()), *t),
            Term::Float(f, k) => Term::Float(m.eval(f, true).unwrap_or_else(|| f.clone()), *k),
            Term::Array(a, t, n) => Term::Array(m.eval(a, true).unwrap_or_else(|| a.clone()), *t, *n),
        };
    }
    out.in_pos = m.eval(&st.in_pos, true).unwrap_or_else(|| st.in_pos.clone());
    out.at_ws = m.eval(&st.at_ws, true).unwrap_or_else(|| st.at_ws.clone());
    out
}

/// The loop nodes where a program has always just printed whitespace (or nothing): start
/// from all of them and drop every node some edge may reach otherwise (Houdini). Any set is
/// sound (the checks prove it as part of the alignment predicate); this one makes most proofs
/// go through when prints end with a newline.
fn whitespace_invariant<'p, 'ctx>(ctx: &'ctx Context, setup: &Setup<'p>, side: &Side<'_>) -> Result<BTreeSet<Node>, Failure> {
    let nodes: Vec<Node> = side.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect();
    let mut inv: BTreeSet<Node> = nodes.iter().copied().filter(|n| matches!(n, Node::LoopEntry(_) | Node::LoopExit(_))).collect();
    let world = World::new(ctx);
    loop {
        let mut dropped = false;
        for &u in &nodes {
            let mut pre = Exec::fresh_state(ctx, side.program, side.func, "ws.").map_err(Failure::Unsupported)?;
            if u == Node::FuncEntry || inv.contains(&u) {
                pre.at_ws = Bool::from_bool(ctx, true);
            }
            let reg = Exec::new(setup, &world, None).run(u, pre).map_err(Failure::Unsupported)?;
            for e in &reg.exits {
                if !inv.contains(&e.to) {
                    continue;
                }
                let solver = Solver::new(ctx);
                solver.assert(&e.state.guard);
                solver.assert(&e.state.at_ws.not());
                if solver.check() != z3::SatResult::Unsat {
                    inv.remove(&e.to);
                    dropped = true;
                }
            }
        }
        if !dropped {
            return Ok(inv);
        }
    }
}

/// Live variables at each node: read (through the values that matter at the next node, the
/// path conditions, printed values, errors and the returned value) before being written.
fn liveness(regions: &Regions<'_, '_>) -> BTreeMap<Node, BTreeSet<VarId>> {
    let mut live: BTreeMap<Node, BTreeSet<VarId>> = regions.keys().map(|n| (*n, BTreeSet::new())).collect();
    loop {
        let mut changed = false;
        for (node, reg) in regions {
            let mut set: BTreeSet<VarId> = BTreeSet::new();
            for (_, d, _) in &reg.errors {
                set.extend(d);
            }
            for p in &reg.printed {
                set.extend(&p.deps);
            }
            for e in &reg.exits {
                set.extend(&e.state.guard_deps);
                if let Some(r) = &e.state.ret {
                    set.extend(&r.deps);
                }
                if let Some(next) = live.get(&e.to) {
                    for y in next {
                        if let Some(v) = e.state.vars.get(y) {
                            set.extend(&v.deps);
                        }
                    }
                }
            }
            if live[node] != set {
                live.insert(*node, set);
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

#[cfg(test)]
mod tests;
