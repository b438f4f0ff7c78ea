//! Verified repair against a reference (Verifix, seed paper 000).
//!
//! 1. **Automata.** Each function of the student and of the reference is a control-flow
//!    automaton ([`crate::ir::cfa`]): Func-Entry/Exit and Loop-Entry/Exit nodes. Functions are
//!    matched by name and parameter count, else by signature and loop nesting; nodes are
//!    aligned when the loop-nesting trees (the labelled ASTs) have the same shape; otherwise
//!    the result is a structural mismatch.
//! 2. **Edges.** The code from a node to the next nodes is executed symbolically
//!    ([`crate::engines::verified::region`]); all paths from a node to one target node form one edge whose
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
pub mod region;
mod retype;
pub mod stream;
mod synth;

mod cegis;
mod edits;
mod facts;
mod job;
mod pairs;
mod patched;
mod space;

use cegis::*;
use edits::*;
use facts::*;
use job::*;
use pairs::*;
pub use patched::patch_size;
use patched::*;
use space::*;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use z3::ast::{Ast, BV, Bool, Dynamic};
use z3::{Context, Model, Solver};

use crate::ir::ExprId;
use crate::ir::cfa::{LoopTree, Node};
use crate::ir::print::expr_to_c;
use crate::ir::repair::{TextEdit, joined_assumption};
use crate::ir::{BinOp, Builtin, Callee, Expr, ExprKind, FuncId, IncDec, Program, Span, Stmt, StmtKind, Type, VarId};
use crate::smt::Budget;
pub use crate::smt::floats::FloatModel;
use crate::smt::solver::{Effort, UnknownReason, Verdict, check_within, new_context};
use crate::spec::compare::Compare;
use region::{
    Alt, Exec, HeldBack, Holes, Len, Region, SEL_BITS, Setup, Site, SiteKind, State, Term, Unsupported, World,
};

#[derive(Clone, Debug)]
pub struct Options {
    pub entry: String,
    pub compare: Compare,
    /// Facts about the input to assume when no repair exists for all inputs
    /// ([`precondition`]); a repair found under them carries them in its guarantee.
    pub precondition: Option<precondition::Precondition>,
    /// What `float` and `double` are: IEEE for a proof; the reals for a search whose repair is
    /// only a candidate (see [`crate::smt::floats`]).
    pub floats: FloatModel,
    /// Where each whole-program candidate of the CEGIS loop goes while its proof runs.
    pub candidates: Option<Candidates>,
    /// Character programs: assume the input holds a '\n' ([`stream`]'s line assumption).
    /// False where a test's input ends without one.
    pub line_in_input: bool,
    /// Locals the program reads before giving them a value (the tests' runs find them), each
    /// given one where it is declared: applied before the search, and part of every repair.
    pub start_values: Vec<(Change, TextEdit)>,
}

/// The engine's candidates as they come, for the tests to try while the proofs run
/// (`check::anytime`). Each message is one part's (a function's nodes solved together,
/// [`PartCandidate::part`]): at each candidate a node's synthesis picks and when a node is
/// fixed, the changes fixed at the part's nodes so far and the node's own, as changes of the
/// student's text. The parts' newest messages together are the whole program's candidate.
/// A run on a rewritten copy of the text (retyped, with fresh declarations: [`on_patched`])
/// sends its changes mapped back onto the student's text, with the rewrite's own edits.
#[derive(Clone, Debug)]
pub struct Candidates {
    to: std::sync::mpsc::Sender<PartCandidate>,
    /// The text whose runs send: the student's, or a rewritten copy.
    text: std::sync::Arc<str>,
    /// The rewrites from the student's text to `text`, outermost first.
    back: Vec<std::sync::Arc<Rewritten>>,
}

/// One rewrite of a text (retyping, fresh declarations): how a copy was made from the text
/// before it, and how changes of the copy map back ([`on_patched`], [`Candidates`]).
#[derive(Debug)]
struct Rewritten {
    rewrite: crate::ir::rewrite::Rewrite,
    pre_edits: Vec<(Change, TextEdit)>,
    /// Whether a pre-edit joins a patch with these changes.
    keep: fn(&Change, &[Change]) -> bool,
}

impl Rewritten {
    /// `changes` of the copy as changes of the text before it, followed by the pre-edits that
    /// join them; `None` when a change lies inside a pre-edit's text.
    fn map_back(&self, changes: Vec<(Change, TextEdit)>) -> Option<Vec<(Change, TextEdit)>> {
        let back = |span: Span| {
            Some(Span {
                start: self.rewrite.original_offset(span.start)?,
                end: self.rewrite.original_offset(span.end)?,
            })
        };
        let mut mapped = Vec::with_capacity(changes.len() + self.pre_edits.len());
        for (mut c, mut e) in changes {
            (c.span, e.span) = (back(c.span)?, back(e.span)?);
            mapped.push((c, e));
        }
        let made: Vec<Change> = mapped.iter().map(|(c, _)| c.clone()).collect();
        mapped.extend(self.pre_edits.iter().filter(|(c, _)| (self.keep)(c, &made)).cloned());
        Some(mapped)
    }
}

impl Candidates {
    /// Candidates of runs on the student's `text`, sent to `to`.
    pub fn new(to: std::sync::mpsc::Sender<PartCandidate>, text: &str) -> Candidates {
        Candidates { to, text: text.into(), back: Vec::new() }
    }

    /// Candidates of runs on `layer`'s copy of this one's text.
    fn through(&self, layer: &std::sync::Arc<Rewritten>) -> Candidates {
        let mut back = self.back.clone();
        back.push(layer.clone());
        Candidates { to: self.to.clone(), text: layer.rewrite.text.as_str().into(), back }
    }

    /// Whether runs on `text` send their candidates.
    fn sends_for(&self, text: &str) -> bool {
        *self.text == *text
    }

    /// Sends one part's changes of [`Self::text`], mapped back onto the student's text.
    fn send(&self, part: &str, assuming: bool, mut changes: Vec<(Change, TextEdit)>) {
        for layer in self.back.iter().rev() {
            // A change inside a pre-edit's text: not a candidate of the student's text.
            let Some(mapped) = layer.map_back(changes) else { return };
            changes = mapped;
        }
        // The receiver may be gone (the analysis moved on): nothing to do then.
        let _ = self.to.send(PartCandidate { part: part.to_string(), assuming, changes });
    }
}

#[derive(Clone, Debug)]
pub struct PartCandidate {
    /// The function and the part's first node.
    pub part: String,
    /// Found under the input precondition ([`Options::precondition`]): a part of a repair
    /// for the inputs it admits, not to be joined with the parts of a repair for all inputs.
    pub assuming: bool,
    pub changes: Vec<(Change, TextEdit)>,
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
    /// The change in words where `old` → `new` does not say it (a local given a value where
    /// it is declared).
    pub words: Option<String>,
}

impl Change {
    /// A local given the start value the engine began from ([`Options::start_values`]).
    pub fn is_start_value(&self) -> bool {
        self.words.is_some()
    }
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

impl VerifiedRepair {
    /// The changes the engine made, not counting the start values it began from.
    pub fn own_changes(&self) -> usize {
        self.changes.iter().filter(|c| !c.is_start_value()).count()
    }
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
    /// A region run's error: its budget ran out, or a construct it does not model.
    fn from_region(u: Unsupported) -> Failure {
        if u.is_out_of_time() { Failure::Timeout } else { Failure::Unsupported(u) }
    }

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

/// When the attempt under the input precondition starts, after the attempt for all inputs.
const PRECONDITION_DELAY: Duration = Duration::from_secs(2);
/// The stack of the precondition attempt's thread: as the analysis thread's (lowering a
/// retyped copy and the encodings recurse on the tree); only the pages used are committed.
const PRECONDITION_STACK: usize = 512 << 20;

/// Repairs `student` (whose source is `text`) against `reference`.
pub fn repair(student: &Program, text: &str, reference: &Program, opts: &Options, budget: &Budget) -> Report {
    let start = Instant::now();
    // The reference's text is never edited: its prints can be put in the form whose pieces
    // a student's prints can take (`printf("%s", c ? "a" : "b")` as two prints), and its
    // priming reads moved into their loops' conditions, as the student's are ([`run`]).
    let normalized = crate::ir::normalize::string_prints(reference);
    let reference = normalized.as_ref().unwrap_or(reference);
    let rotated = crate::ir::normalize::priming_reads(reference);
    let reference = rotated.as_ref().unwrap_or(reference);
    let mut checks = 0;
    let (mut smaller, mut found_after) = (None, None);
    // A bug here must not cost the student the other engines' answers.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let attempt = |pre: Option<&precondition::Precondition>, budget: &Budget, checks: &mut usize| {
            let mut on = |student: &Program, text: &str, opts: &Options| {
                let retyped = retype::integer_reads(student, reference, &opts.entry, text)
                    .or_else(|| retype::wanted(student, reference).then(|| retype::edits(student, text)).flatten());
                if let Some(edits) = retyped.filter(|e| !e.is_empty()) {
                    // The type changes are the patch even when the retyped program needs
                    // nothing else.
                    let retyped = on_patched(student, text, edits, |_, _| true, opts, &mut |p, t, opts| {
                        solve(p, t, reference, opts, pre, budget, checks)
                    });
                    if let Some(result) = retyped {
                        return result;
                    }
                }
                solve(student, text, reference, opts, pre, budget, checks)
            };
            // The locals' start values first: what the program does with an unset local is
            // no behaviour a repair of its expressions can match, and any repair of the
            // program as written is one of it with those values.
            // Where that run ends without a verdict on the program (a repair that changes a
            // start value, `product = 0` to `1`, is no change of the student's text with it;
            // a construct the values bring in), the program as written gets its own search.
            // No repair (or none in time) with the values means none without them either.
            if !opts.start_values.is_empty() {
                match on_patched(student, text, opts.start_values.clone(), |_, _| true, opts, &mut on) {
                    Some(result @ (Ok(_) | Err(Failure::NoRepair(_) | Failure::Timeout))) => return result,
                    other => tracing::debug!(?other, "the start values gave no verdict; the program as written"),
                }
            }
            on(student, text, opts)
        };
        // With a precondition in reserve, the proof for all inputs gets half the time: showing
        // that no repair exists can take long (Z3 shows MaxSMT instances unsatisfiable slowly).
        let first_budget = if opts.precondition.is_some() {
            budget.sub(budget.remaining() / 2)
        } else {
            budget.sub(budget.remaining())
        };
        let Some(pre) = &opts.precondition else {
            let first = attempt(None, &first_budget, &mut checks);
            found_after = Some(start.elapsed()).filter(|_| matches!(first, Ok(Outcome::Repaired(_))));
            return first;
        };
        // The attempt under the precondition runs beside the one for all inputs, from
        // PRECONDITION_DELAY on (most programs are repaired for all inputs before): where
        // only the promise allows a repair, its candidates reach the tests (and the student)
        // without waiting for the first attempt's half of the budget.
        let beside = Budget { deadline: budget.deadline, cancel: budget.cancel.child() };
        // Set when the first attempt has ended and wants the second: no reason to wait then.
        let go = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let second = std::thread::Builder::new()
                .name("mend-precondition".into())
                .stack_size(PRECONDITION_STACK)
                .spawn_scoped(scope, || {
                    let mut checks = 0;
                    // Woken early when the first attempt ends (it then sets `go` or cancels).
                    let wait_until = start + PRECONDITION_DELAY;
                    while !go.load(std::sync::atomic::Ordering::Relaxed) && !beside.is_exhausted() {
                        let Some(left) = wait_until.checked_duration_since(Instant::now()) else { break };
                        std::thread::park_timeout(left);
                    }
                    if beside.is_exhausted() {
                        return (Err(Failure::Timeout), checks, start.elapsed());
                    }
                    tracing::debug!("input precondition beside: {}", pre.description);
                    let second = attempt(Some(pre), &beside, &mut checks);
                    (second, checks, start.elapsed())
                });
            // A panic here must not leave the scope waiting for the second attempt's budget.
            let first =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| attempt(None, &first_budget, &mut checks)))
                    .unwrap_or_else(|_| {
                        beside.cancel.cancel();
                        Err(Failure::Internal)
                    });
            found_after = Some(start.elapsed()).filter(|_| matches!(first, Ok(Outcome::Repaired(_))));
            let wanted = match &first {
                // No repair for all inputs (or none found in its half of the time): the
                // precondition, stated in the answer.
                Err(Failure::NoRepair(_) | Failure::Timeout) => !budget.is_exhausted(),
                // A repair for all inputs that changes several places: the promise may allow
                // a smaller one, offered beside it.
                Ok(Outcome::Repaired(r)) => r.own_changes() > 1 && !budget.is_exhausted(),
                _ => false,
            };
            if wanted {
                go.store(true, std::sync::atomic::Ordering::Relaxed);
            } else {
                beside.cancel.cancel();
            }
            if let Ok(handle) = &second {
                handle.thread().unpark();
            }
            let (second, second_checks, second_after) = match second {
                Ok(handle) => handle.join().unwrap_or((Err(Failure::Internal), 0, start.elapsed())),
                // No thread for it: in turn, as the first attempt's successor.
                Err(_) if wanted => {
                    let mut checks = 0;
                    let second = attempt(Some(pre), budget, &mut checks);
                    (second, checks, start.elapsed())
                }
                Err(_) => (Err(Failure::Timeout), 0, start.elapsed()),
            };
            checks += second_checks;
            if !wanted {
                return first;
            }
            let assuming = |r: VerifiedRepair| VerifiedRepair { assuming: Some(pre.description.clone()), ..r };
            match (&first, second) {
                (Err(_), Ok(Outcome::Repaired(r))) => {
                    found_after = Some(second_after);
                    Ok(Outcome::Repaired(assuming(r)))
                }
                (Err(_), Ok(Outcome::Equivalent)) => Ok(Outcome::EquivalentAssuming(pre.description.clone())),
                (Ok(Outcome::Repaired(r)), Ok(Outcome::Repaired(small))) if small.own_changes() < r.own_changes() => {
                    smaller = Some(assuming(small));
                    first
                }
                _ => first,
            }
        })
    }));
    let outcome = match run {
        Ok(Ok(o)) => o,
        Ok(Err(f)) => Outcome::Failed(f),
        Err(_) => Outcome::Failed(Failure::Internal),
    };
    // A proof that assumed the input holds a line break covers only such inputs: the
    // guarantee says so, as it says a precondition.
    let (outcome, smaller_assuming) = match makes_line_assumption(student, reference, opts) {
        false => (outcome, smaller),
        true => {
            let with_line = |a: Option<&str>| joined_assumption(a, LINE_ASSUMPTION);
            let assuming = |r: VerifiedRepair| VerifiedRepair { assuming: Some(with_line(r.assuming.as_deref())), ..r };
            let outcome = match outcome {
                Outcome::Equivalent => Outcome::EquivalentAssuming(with_line(None)),
                Outcome::EquivalentAssuming(a) => Outcome::EquivalentAssuming(with_line(Some(&a))),
                Outcome::Repaired(r) => Outcome::Repaired(assuming(r)),
                failed => failed,
            };
            (outcome, smaller.map(assuming))
        }
    };
    Report { outcome, smaller_assuming, found_after, time: start.elapsed(), checks }
}

pub use crate::smt::encode::LINE_ASSUMPTION;

/// Whether the proofs about `student` and `reference` assume a line break in the input:
/// [`Options::line_in_input`] and either reads characters ([`stream`]'s line assumption).
fn makes_line_assumption(student: &Program, reference: &Program, opts: &Options) -> bool {
    opts.line_in_input
        && [student, reference].iter().any(|p| {
            (0..p.funcs.len()).any(|i| stream::input_kind(p, FuncId(i as u32)).is_ok_and(|k| k == stream::Input::Chars))
        })
}

/// The engine, and when it finds no repair because the student keeps fewer variables than
/// the reference, the engine again with fresh variables declared ([`fresh`]).
fn solve(
    student: &Program,
    text: &str,
    reference: &Program,
    opts: &Options,
    pre: Option<&precondition::Precondition>,
    budget: &Budget,
    checks: &mut usize,
) -> Result<Outcome, Failure> {
    let mut wanted = Vec::new();
    let first = run(student, text, reference, opts, pre, budget, checks, &mut wanted);
    if !matches!(first, Err(Failure::NoRepair(_))) || wanted.is_empty() || budget.is_exhausted() {
        return first;
    }
    let Some(decls) = fresh::declarations(student, text, reference, &wanted) else { return first };
    tracing::debug!(
        "no repair; again with fresh variables: {}",
        decls.iter().map(|(c, _)| c.new.as_str()).collect::<Vec<_>>().join(" ")
    );
    match on_patched(student, text, decls, fresh::is_used, opts, &mut |p, t, opts| {
        run(p, t, reference, opts, pre, budget, checks, &mut Vec::new())
    }) {
        Some(Ok(repaired @ Outcome::Repaired(_))) => Ok(repaired),
        // Still none (or out of time): the answer without them, whose place is the one named.
        _ => first,
    }
}

struct Side<'p> {
    program: &'p Program,
    func: FuncId,
    tree: LoopTree<'p>,
    callee_names: HashMap<FuncId, String>,
    prompts: HashSet<ExprId>,
    input: stream::Input,
}

impl<'p> Side<'p> {
    fn setup(&'p self, opts: &Options, budget: &Budget) -> Setup<'p> {
        let (compare, floats) = (opts.compare, opts.floats);
        Setup {
            line_in_input: opts.line_in_input,
            floats,
            budget: budget.clone(),
            program: self.program,
            func: self.func,
            tree: &self.tree,
            callee_names: &self.callee_names,
            prompts: &self.prompts,
            compare,
            line: BTreeSet::new(),
            reading: stream::reading_range(self.program, self.func, self.input),
            input: self.input,
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
fn run(
    student: &Program,
    text: &str,
    reference: &Program,
    opts: &Options,
    pre: Option<&precondition::Precondition>,
    budget: &Budget,
    checks: &mut usize,
    wanted: &mut Vec<fresh::Wanted>,
) -> Result<Outcome, Failure> {
    // The reference's character constants, taken into the student's repairs, print as
    // characters there too (`putchar(j < n - i ? ' ' : '#')`, not `? 32 : 35`).
    let with_characters;
    let student = if reference.char_constants.is_subset(&student.char_constants) {
        student
    } else {
        let mut p = student.clone();
        p.char_constants.extend(reference.char_constants.iter().copied());
        with_characters = p;
        &with_characters
    };
    let inline = functions_differ(student, reference, &opts.entry);
    let global = |p: &Program| p.vars.iter().any(|v| v.kind == crate::ir::VarKind::Global);
    let primed = crate::ir::normalize::has_priming_read(student);
    if (inline || global(student) || global(reference) || primed)
        && let Some(inlined) = run_inlined(student, text, reference, opts, pre, budget, checks, inline)
    {
        return inlined;
    }
    run_with(student, text, reference, opts, pre, budget, checks, true, wanted)
}

/// The two programs split their work into functions differently: no one-to-one pairing of
/// their functions, or a helper that reads or prints or takes an array (calls are compared as
/// uninterpreted functions of their arguments' values, which a helper with I/O is not, and
/// an array argument is not a value the model passes).
fn functions_differ(student: &Program, reference: &Program, entry: &str) -> bool {
    let takes_array = |p: &Program, f: FuncId| {
        p.func(f)
            .params
            .iter()
            .any(|&v| matches!(p.var(v).ty, crate::ir::Type::Array(..) | crate::ir::Type::Pointer(_)))
    };
    match match_functions(student, reference, entry) {
        Err(_) => true,
        Ok(pairs) => pairs.iter().any(|&(s, r)| {
            reference.func(r).name != entry
                && (does_io(student, s).is_some()
                    || does_io(reference, r).is_some()
                    || takes_array(student, s)
                    || takes_array(reference, r))
        }),
    }
}

/// [`run_with`] on both programs with every helper inlined into the entry function (when
/// `inline`), the globals only the entry uses made its locals ([`crate::ir::inline`]) and
/// the priming reads moved into their loops' conditions ([`crate::ir::normalize`]);
/// `None` when a side cannot be inlined (the engine then runs on the programs as they are,
/// and says why it cannot pair their functions). A repair of the transformed student program
/// is proved again on the repaired text, transformed anew: its edits land in the student's
/// functions, where the names it uses must mean what they meant in the transformed copy.
#[allow(clippy::too_many_arguments)]
fn run_inlined(
    student: &Program,
    text: &str,
    reference: &Program,
    opts: &Options,
    pre: Option<&precondition::Precondition>,
    budget: &Budget,
    checks: &mut usize,
    inline: bool,
) -> Option<Result<Outcome, Failure>> {
    let into_entry = |p: &Program, entry: &str| -> Result<Option<Program>, String> {
        let inlined = if inline { crate::ir::inline::into_entry(p, entry)? } else { None };
        let base = inlined.as_ref().unwrap_or(p);
        let local = crate::ir::inline::globals_into_entry(base, entry).or(inlined);
        let base = local.as_ref().unwrap_or(p);
        Ok(crate::ir::normalize::priming_reads(base).or(local))
    };
    let (inlined_student, inlined_reference) =
        match (into_entry(student, &opts.entry), into_entry(reference, &opts.entry)) {
            (Ok(s), Ok(r)) => (s, r),
            (s, r) => {
                tracing::debug!("helpers not inlined: {:?} {:?}", s.err(), r.err());
                return None;
            }
        };
    let reference = inlined_reference.as_ref().unwrap_or(reference);
    let Some(inlined) = inlined_student else {
        return Some(run_with(student, text, reference, opts, pre, budget, checks, true, &mut Vec::new()));
    };
    tracing::debug!("verified repair on the programs with their helpers inlined");
    let outcome = run_with(&inlined, text, reference, opts, pre, budget, checks, true, &mut Vec::new());
    let Ok(Outcome::Repaired(mut repair)) = outcome else { return Some(outcome) };
    let patched = crate::ir::repair::apply_edits(text, &repair.edits);
    let fits = match crate::syntax::lower::lower_without_errors(&patched).map(|p| into_entry(&p, &opts.entry)) {
        Some(Ok(Some(again))) => matches!(
            run_with(&again, &patched, reference, opts, pre, budget, checks, true, &mut Vec::new()),
            Ok(Outcome::Equivalent)
        ),
        _ => false,
    };
    if !fits {
        return Some(Err(Failure::NoRepair("that fits inside your own functions".into())));
    }
    repair.relative_patch_size = patch_size(student, text, &repair.edits);
    Some(Ok(Outcome::Repaired(repair)))
}

/// [`run`], with the independent nodes of a function solved concurrently or (`parallel`
/// false: for comparison) all in order on one thread; the answer is the same.
#[allow(clippy::too_many_arguments)]
fn run_with(
    student: &Program,
    text: &str,
    reference: &Program,
    opts: &Options,
    pre: Option<&precondition::Precondition>,
    budget: &Budget,
    checks: &mut usize,
    parallel: bool,
    wanted: &mut Vec<fresh::Wanted>,
) -> Result<Outcome, Failure> {
    let pairs = match_functions(student, reference, &opts.entry)?;
    let mut ref_names = HashMap::new();
    let mut stu_names = HashMap::new();
    for &(s, r) in &pairs {
        ref_names.insert(r, reference.func(r).name.clone());
        stu_names.insert(s, reference.func(r).name.clone());
    }
    for &(s, r) in &pairs {
        // What the front end could not lower is named as it named it (not as the type it
        // left in its place).
        for (p, f) in [(student, s), (reference, r)] {
            if let Some((what, span)) = p.func(f).unsupported.first() {
                return Err(Failure::Unsupported(Unsupported { what: what.clone(), span: *span }));
            }
        }
        if reference.func(r).name != opts.entry {
            for (p, f) in [(student, s), (reference, r)] {
                if let Some(span) = does_io(p, f) {
                    return Err(Failure::Unsupported(Unsupported {
                        what: format!("input or output inside the helper function `{}`", p.func(f).name),
                        span,
                    }));
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
        return Err(Failure::Unsupported(Unsupported {
            what: "an input read as a number of another kind than the reference reads it".into(),
            span: sk[i].1,
        }));
    }
    for &(s, r) in &pairs {
        let (ts, tr) =
            (LoopTree::of(student.func(s)).expect("defined"), LoopTree::of(reference.func(r)).expect("defined"));
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
        let task = PairTask {
            student,
            reference,
            s,
            r,
            text,
            opts,
            pre,
            budget,
            ref_names: &ref_names,
            stu_names: &stu_names,
        };
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
    if crate::ir::repair::edits_overlap(&edits) {
        // Changes at statements the inlining made (a helper's `return` turned into an
        // assignment and a jump out of its loop) may nest in the student's text: that repair
        // is no patch of the student's own functions.
        return Err(Failure::NoRepair("that fits inside your own functions".into()));
    }
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
        let (ts, tr) = (
            LoopTree::of(self.student.func(self.s)).expect("defined"),
            LoopTree::of(self.reference.func(self.r)).expect("defined"),
        );
        let values = self.opts.compare == Compare::Values && self.reference.func(self.r).name == self.opts.entry;
        let (ri, si) =
            stream::pair_inputs(self.reference, self.r, self.student, self.s).map_err(Failure::from_region)?;
        let rs = Side {
            program: self.reference,
            func: self.r,
            tree: tr,
            callee_names: self.ref_names.clone(),
            prompts: prompts(self.reference, self.r, values, ri)?,
            input: ri,
        };
        let ss = Side {
            program: self.student,
            func: self.s,
            tree: ts,
            callee_names: self.stu_names.clone(),
            prompts: prompts(self.student, self.s, values, si)?,
            input: si,
        };
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
    guarded: Vec<(ExprId, Expr, Expr)>,
    /// When the function's last statement is a `return`: the guard (`0`) and the print (none
    /// at first) of `if (guard) print;` added before it ([`last_return`]).
    end: Option<(Expr, Expr)>,
}

type Regions<'p, 'ctx> = BTreeMap<Node, Region<'p, 'ctx>>;

/// Variable alignments tried per function pair (the next only when the previous admits no
/// repair in its space).
const ALIGNMENT_CANDIDATES: usize = 3;
/// The share of the time left one solver query may take while another alignment waits
/// ([`Job::query_deadline`]).
const QUERY_SHARE: u32 = 3;
/// The first time slice of each solver in a node check's portfolio (it grows fourfold each round).
const FIRST_SLICE: Duration = Duration::from_millis(150);
/// The first turn of a float query checked within an [`Effort`] gets this share of it.
const FIRST_EFFORT_SHARE: u32 = 64;

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
    /// Another alignment waits to be tried after this one: a solver query takes only its
    /// share of the time left ([`Job::query_deadline`]).
    others_wait: bool,
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
    chosen: HashMap<ExprId, Alt>,
    /// The keys of `chosen` in the order they were fixed (nodes in order, holes in order):
    /// a deterministic order for the formulas built from them.
    chosen_order: Vec<ExprId>,
    sites: HashMap<ExprId, (Site<'j>, Node)>,
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
    /// Where candidates go ([`Options::candidates`]); `sending` when the nodes being repaired
    /// are of its text. `fixed`: the changes the part fixed so far, each with its node.
    candidates: Option<Candidates>,
    sending: bool,
    fixed: Vec<(Node, Change, TextEdit)>,
    /// The part being repaired ([`PartCandidate::part`]).
    part: String,
}

#[cfg(test)]
mod tests;
