//! Bounded verification of a program's assertions (and of the other specifications the encoding
//! checks: `reach_error`, division by zero, out-of-bounds accesses) with counterexamples that
//! are replayed in the concrete interpreter.
//!
//! [`verify`] asks one solver two questions: is a violation reachable within the bound (sat:
//! a [`Counterexample`]), and if not, can any run go beyond the bound (the *unwinding check*)?
//! When no run can, the result holds for every run ([`BmcVerdict::Holds`] with `complete`,
//! guarantee `verified`); otherwise only for runs within the bound (`bounded`). A solver
//! `unknown` is never read as either answer.

use std::time::{Duration, Instant};

use z3::Model;
use z3::ast::{Ast, BV, Bool};

use super::budget::Budget;
use super::encode::{
    BranchKind, EncodeOptions, Encoding, InputSource, LocationId, SymVal, Unsupported, ViolationKind, encode,
};
use super::floats::{self, FloatModel, Floats};
use super::solver::{self, Effort, UnknownReason, Verdict, check_with_budget, check_with_effort};
use crate::cancel::Cancel;
use crate::ir::format::{self as cfmt, Piece};
use crate::ir::{Bound, Cuts, FloatKind, Program, Span, Type};
use crate::spec::compare::Compare;
use crate::spec::interp::{self, Limits, RuntimeErrorKind};

#[derive(Clone, Debug)]
pub struct BmcResult {
    pub verdict: BmcVerdict,
    /// Reads of a possibly uninitialised scalar that some run within the bound reaches with
    /// the variable never assigned (span of the read, variable name), in source order. Only
    /// computed when the verdict is not `Unknown`.
    pub uninit_reads: Vec<(Span, String)>,
    /// The proof assumed a line break in the input ([`crate::smt::encode::LINE_ASSUMPTION`]).
    pub line_assumed: bool,
    /// The input pieces the encoding cuts ([`crate::smt::encode::Encoding::cuts`]): a bounded
    /// proof covers runs within them too.
    pub cuts: Cuts,
    pub stats: BmcStats,
}

#[derive(Clone, Debug)]
pub enum BmcVerdict {
    /// No run within the bound violates a specification; `complete`: no run can exceed the
    /// bound either, so this holds for all runs.
    Holds {
        complete: bool,
    },
    Violated(Box<Counterexample>),
    Unknown(BmcUnknown),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BmcUnknown {
    Solver(UnknownReason),
    Unsupported(Unsupported),
}

impl BmcResult {
    /// `Some(true)` for verified (all runs), `Some(false)` for bounded, `None` otherwise.
    pub fn proved_for_all_runs(&self) -> Option<bool> {
        match self.verdict {
            BmcVerdict::Holds { complete } => Some(complete),
            _ => None,
        }
    }

    /// What the proof assumed about the input ([`Encoding::assumption`]).
    pub fn assumption(&self) -> Option<&'static str> {
        self.line_assumed.then_some(crate::smt::encode::LINE_ASSUMPTION)
    }

    /// What a `Holds` verdict proves at `bound`, its assumptions named: `verified`,
    /// `bounded`, or either for the inputs with a line break.
    pub fn guarantee(&self, bound: u32) -> Option<crate::ir::Guarantee> {
        use crate::ir::Guarantee;
        let proved = if self.proved_for_all_runs()? {
            Guarantee::Verified
        } else {
            Guarantee::Bounded { bound: self.bound(bound) }
        };
        Some(proved.assuming_also(self.assumption()))
    }

    /// How far a proof that did not cover every run reaches: `loops` loop iterations and the
    /// input pieces the encoding cuts.
    pub fn bound(&self, loops: u32) -> Bound {
        Bound { loops, cuts: self.cuts }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum InputValue {
    Int(i64),
    Float(f64),
    /// A `%s` word.
    Str(String),
}

impl std::fmt::Display for InputValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputValue::Int(v) => write!(f, "{v}"),
            InputValue::Float(v) => write!(f, "{v:?}"),
            InputValue::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// One value the failing run reads, in read order.
#[derive(Clone, Debug)]
pub struct InputItem {
    /// The variable read (`n`, `a[i]`) or the nondet call (`nondet_int()`).
    pub name: String,
    pub ty: Type,
    pub value: InputValue,
    /// How it is typed on stdin.
    pub text: String,
    pub span: Span,
}

/// A branch decision of the failing run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub span: Span,
    pub kind: BranchKind,
    pub taken: bool,
}

/// Whether the concrete interpreter, fed the counterexample's stdin, fails the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    Confirmed,
    /// The interpreter stopped on something the verifier does not model as a violation
    /// (e.g. reading an uninitialised variable), before or instead of the violation.
    Inconclusive(String),
    /// A disagreement between the encoding and the interpreter: a bug.
    Mismatch(String),
}

#[derive(Clone, Debug)]
pub struct Counterexample {
    pub kind: ViolationKind,
    /// The assert call, the division, the access, or the `reach_error()` call.
    pub span: Span,
    pub inputs: Vec<InputItem>,
    /// Text that, typed on stdin, reproduces the violation (nondet values included, one a line).
    pub stdin: String,
    pub steps: Vec<Step>,
    pub replay: Replay,
}

impl Counterexample {
    /// `n = 0, m = 3`
    pub fn inputs_text(&self) -> String {
        self.inputs.iter().map(|i| format!("{} = {}", i.name, i.value)).collect::<Vec<_>>().join(", ")
    }
}

#[derive(Clone, Debug, Default)]
pub struct BmcStats {
    pub bound: u32,
    pub encode_time: Duration,
    /// The violation check.
    pub solve_time: Duration,
    /// The unwinding check (zero when not run).
    pub unwind_time: Duration,
    pub hard_constraints: usize,
    pub violation_checks: usize,
    pub unwinding_points: usize,
    pub input_reads: usize,
}

/// Verifies `entry` of `program` for runs within `bound` loop iterations / active copies of a
/// function, and replays any counterexample in the interpreter.
pub fn verify(program: &Program, entry: &str, bound: u32, budget: &Budget) -> BmcResult {
    verify_with(program, None, entry, bound, Assumptions::default(), budget)
}

/// What a product proof assumes about the input beyond its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assumptions {
    /// Only inputs on which the reference prints no NaN ([`EncodeOptions::reference_prints_no_nan`]):
    /// a proof holds under that assumption, named in its guarantee.
    pub reference_prints_no_nan: bool,
    /// [`EncodeOptions::line_in_input`].
    pub line_in_input: bool,
    /// [`EncodeOptions::absent_chars`].
    pub absent_chars: u128,
    /// [`EncodeOptions::no_negative_zero`].
    pub no_negative_zero: bool,
    /// [`EncodeOptions::min_lines`].
    pub min_lines: u32,
    /// [`EncodeOptions::max_lines`].
    pub max_lines: Option<u32>,
}

impl Default for Assumptions {
    fn default() -> Self {
        Assumptions {
            reference_prints_no_nan: false,
            line_in_input: true,
            absent_chars: 0,
            no_negative_zero: false,
            min_lines: 0,
            max_lines: None,
        }
    }
}

/// Bounded verification of the product of `program` and `reference` (see
/// [`crate::smt::product`]): `Violated` with [`ViolationKind::OutputMismatch`] when some input
/// makes the printed values differ.
pub fn verify_against(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    bound: u32,
    budget: &Budget,
) -> BmcResult {
    verify_against_assuming(program, reference, compare, entry, bound, Assumptions::default(), budget)
}

/// [`verify_against`] under `assume`.
pub fn verify_against_assuming(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    bound: u32,
    assume: Assumptions,
    budget: &Budget,
) -> BmcResult {
    verify_with(program, Some((reference, compare)), entry, bound, assume, budget)
}

/// The part of a budget the opaque float model gets first, at most.
const OPAQUE_SLICE: Duration = Duration::from_secs(3);

fn verify_with(
    program: &Program,
    reference: Option<(&Program, Compare)>,
    entry: &str,
    bound: u32,
    assume: Assumptions,
    budget: &Budget,
) -> BmcResult {
    let proved = verify_float_models(program, reference, entry, bound, assume, budget);
    match proved.verdict {
        BmcVerdict::Holds { .. } if proved.line_assumed => {
            without_line_assumption(program, reference, entry, bound, assume, &proved, budget).unwrap_or(proved)
        }
        _ => proved,
    }
}

/// How hard the proof without the line assumption may work: about what the fixture suite's
/// largest bounded proof with it needs, so that the label does not depend on the load.
const LINE_FREE_EFFORT: Effort = Effort(30_000_000);

/// The proof again without the line assumption, after one with it held (`proved`). The
/// assumption lets a loop that waits for a '\n' end; many programs also agree on an input
/// with none (where the reference's loop never ends, no run of it within the bound is
/// compared), and a proof of that covers every input: its label names no assumption. Taken
/// only where it is at least as strong: complete where `proved` is, and cut no shorter.
fn without_line_assumption(
    program: &Program,
    reference: Option<(&Program, Compare)>,
    entry: &str,
    bound: u32,
    assume: Assumptions,
    proved: &BmcResult,
    budget: &Budget,
) -> Option<BmcResult> {
    let free = Assumptions { line_in_input: false, ..assume };
    let side = side_budget(budget);
    let floats = super::encode::uses_floats(program) || reference.is_some_and(|(r, _)| super::encode::uses_floats(r));
    let models: &[FloatModel] = if floats { &[FloatModel::Opaque, FloatModel::Ieee] } else { &[FloatModel::Ieee] };
    let t = Instant::now();
    let mut found = None;
    for &floats in models {
        // A proof that ended past the runaway clock still stands: only the next is not begun.
        if side.is_exhausted() {
            break;
        }
        let r = verify_in(program, reference, entry, bound, free, floats, Some(LINE_FREE_EFFORT), &side);
        if matches!(r.verdict, BmcVerdict::Holds { .. }) {
            found = Some(r);
            break;
        }
    }
    tracing::debug!(verdict = ?found.as_ref().map(|r| &r.verdict), ms = t.elapsed().as_millis() as u64, "the bounded proof without the line assumption");
    let found = found?;
    let as_strong = match (&found.verdict, &proved.verdict) {
        (BmcVerdict::Holds { complete: true }, _) => true,
        (BmcVerdict::Holds { complete: false }, BmcVerdict::Holds { complete: false }) => {
            found.cuts.and(proved.cuts) == proved.cuts
        }
        _ => false,
    };
    (as_strong && !found.line_assumed).then_some(found)
}

fn verify_float_models(
    program: &Program,
    reference: Option<(&Program, Compare)>,
    entry: &str,
    bound: u32,
    assume: Assumptions,
    budget: &Budget,
) -> BmcResult {
    // A product with floating point: first in the opaque model (`smt::floats`), where two
    // programs that compute a value alike share its term and no IEEE circuit is bit-blasted.
    // Its proof is a proof in IEEE, and its counterexample one that the interpreter's runs
    // confirm; any other answer of it is not trusted, and the IEEE check decides.
    if let Some((r, _)) = reference
        && (super::encode::uses_floats(program) || super::encode::uses_floats(r))
    {
        let slice = Budget::new((budget.remaining() / 3).min(OPAQUE_SLICE), budget.cancel.clone());
        let opaque = verify_in(program, reference, entry, bound, assume, FloatModel::Opaque, None, &slice);
        tracing::debug!(verdict = ?opaque.verdict, "the bounded check with opaque floats");
        // Its counterexamples are runs (`differs_when_run`).
        if matches!(opaque.verdict, BmcVerdict::Holds { .. } | BmcVerdict::Violated(_)) {
            return opaque;
        }
    }
    verify_in(program, reference, entry, bound, assume, FloatModel::Ieee, None, budget)
}

/// Whether `program` and `reference`, run by the interpreter on `stdin`, print differently
/// under `compare`, on an input the assumptions admit: the reference runs to its end (no
/// error, no failed assumption: the ranges assumed of the input stop it) and prints no `nan`
/// where that is assumed; the student's run may stop on an error, but not on a read of a
/// local never set (the encoding gives it any value).
fn differs_when_run(
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    stdin: &str,
    assume: Assumptions,
    budget: &Budget,
) -> bool {
    let (yours, theirs) = run_both(program, reference, entry, stdin, budget);
    let expected = String::from_utf8_lossy(&theirs.output);
    if theirs.error.is_some()
        || theirs.assume_failed
        || (assume.reference_prints_no_nan && crate::spec::compare::prints_nan(&expected))
        || yours.assume_failed
        || budget.cancel.is_cancelled()
        || yours.error.as_ref().is_some_and(|e| {
            matches!(
                e.kind,
                RuntimeErrorKind::Uninitialized | RuntimeErrorKind::Cancelled | RuntimeErrorKind::StepLimit
            )
        })
    {
        return false;
    }
    prints_differently(compare, &yours, &theirs)
}

/// The student's program and the reference, run by the interpreter on `stdin`.
fn run_both(
    program: &Program,
    reference: &Program,
    entry: &str,
    stdin: &str,
    budget: &Budget,
) -> (interp::RunResult, interp::RunResult) {
    let limits = Limits { max_steps: REPLAY_STEPS, ..Limits::default() };
    let yours = interp::run(program, entry, stdin.as_bytes(), &limits, &budget.cancel);
    let theirs = interp::run(reference, entry, stdin.as_bytes(), &limits, &budget.cancel);
    (yours, theirs)
}

/// Whether the student's run, next to the reference's (which ran to its end), stopped on an
/// error or printed other than it under `compare`.
fn prints_differently(compare: Compare, yours: &interp::RunResult, theirs: &interp::RunResult) -> bool {
    yours.error.is_some()
        || !crate::spec::compare::output_matches(
            compare,
            &String::from_utf8_lossy(&theirs.output),
            Some(theirs.output_before_last_read),
            &String::from_utf8_lossy(&yours.output),
            Some(yours.output_before_last_read),
        )
}

/// Steps of each run of [`run_both`]: as the check layer's oracle.
const REPLAY_STEPS: u64 = 5_000_000;

/// Models of the opaque floats tried on the interpreter before the IEEE check decides.
const OPAQUE_MODELS: usize = 4;

/// "The numbers read are the ones `m` gives": the input reads of numbers it makes, each equal
/// to its value there.
fn same_input<'ctx>(ctx: &'ctx z3::Context, enc: &Encoding<'ctx>, m: &Model<'ctx>) -> Bool<'ctx> {
    let equal: Vec<Bool<'ctx>> = enc
        .inputs
        .iter()
        .filter(|r| is_true(m, &r.guard))
        .filter_map(|r| {
            let bits = match &r.value {
                SymVal::Int(b) => b.clone(),
                SymVal::Float(f) => f.as_bv()?,
                _ => return None,
            };
            Some(bits._eq(&m.eval(&bits, true)?))
        })
        .collect();
    Bool::and(ctx, &equal.iter().collect::<Vec<_>>())
}

/// One proof in one float model; `effort`, where given, bounds its main check by Z3's
/// resource count instead of `budget`'s clock.
#[allow(clippy::too_many_arguments)]
fn verify_in(
    program: &Program,
    reference: Option<(&Program, Compare)>,
    entry: &str,
    bound: u32,
    assume: Assumptions,
    floats: FloatModel,
    effort: Option<Effort>,
    budget: &Budget,
) -> BmcResult {
    let mut stats = BmcStats { bound, ..Default::default() };
    let t0 = Instant::now();
    let ctx = solver::new_context();
    let encoded = match reference {
        None => encode(
            &ctx,
            program,
            entry,
            &EncodeOptions {
                floats,
                line_in_input: assume.line_in_input,
                absent_chars: assume.absent_chars,
                no_negative_zero: assume.no_negative_zero,
                min_lines: assume.min_lines,
                max_lines: assume.max_lines,
                budget: Some(budget),
                ..EncodeOptions::new(bound)
            },
        ),
        Some((r, compare)) => {
            let opts = EncodeOptions {
                reference_prints_no_nan: assume.reference_prints_no_nan,
                line_in_input: assume.line_in_input,
                absent_chars: assume.absent_chars,
                no_negative_zero: assume.no_negative_zero,
                min_lines: assume.min_lines,
                max_lines: assume.max_lines,
                floats,
                budget: Some(budget),
                ..EncodeOptions::new(bound)
            };
            crate::smt::product::encode_product(&ctx, program, r, entry, compare, &opts)
        }
    };
    let enc = match encoded {
        Ok(e) => e,
        Err(u) => {
            // A formula the budget ended is the solver's unknown, not a construct's.
            let why = match budget.stop_reason() {
                Some(reason) if u.ran_out_of_time() => BmcUnknown::Solver(reason),
                _ => BmcUnknown::Unsupported(u),
            };
            return BmcResult {
                verdict: BmcVerdict::Unknown(why),
                uninit_reads: vec![],
                line_assumed: false,
                cuts: Cuts::default(),
                stats,
            };
        }
    };
    stats.encode_time = t0.elapsed();
    stats.hard_constraints = enc.hard.len();
    stats.violation_checks = enc.violations.len();
    stats.unwinding_points = enc.unwinding.len();
    stats.input_reads = enc.inputs.len();
    // No assumptions and no push: Z3 then runs its non-incremental tactic (bit-blasting to
    // SAT), far faster on bit-vector arithmetic than the incremental core. The unwinding check
    // gets a solver of its own for the same reason. A pure bit-vector formula gets the
    // bit-blasting pipeline directly (`one_shot_solver`).
    let s = solver::one_shot_solver(&ctx, enc.bit_vectors_only);
    enc.assert_into(&s);
    s.assert(&enc.any_violation());
    let t1 = Instant::now();
    let v = solver::check_within(&s, &[], effort, budget);
    stats.solve_time = t1.elapsed();
    let verdict = match v {
        // A model of the opaque floats may not be a run: its input is a counterexample only
        // once the two programs, run on it, print differently (then the IEEE check, whose
        // division and square root circuits can take the whole budget, is not needed).
        // A model where both print a NaN (whose sign the opaque bits do not fix) is ruled
        // out and another asked for, a few times.
        Verdict::Sat if floats == FloatModel::Opaque => {
            let mut found = None;
            if let Some((r, compare)) = reference {
                for _ in 0..OPAQUE_MODELS {
                    let model = s.get_model().expect("a model after sat");
                    let cex = counterexample(&enc, &model);
                    if differs_when_run(program, r, compare, entry, &cex.stdin, assume, budget) {
                        found = Some(cex);
                        break;
                    }
                    s.assert(&same_input(&ctx, &enc, &model).not());
                    if solver::check_within(&s, &[], effort, budget) != Verdict::Sat {
                        break;
                    }
                }
            }
            match found {
                Some(cex) => BmcVerdict::Violated(Box::new(cex)),
                None => BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::SolverUnknown("opaque floats".into()))),
            }
        }
        Verdict::Sat => {
            let model = s.get_model().expect("a model after sat");
            let model = readable_model(&ctx, &enc, &model, budget).unwrap_or(model);
            let mut cex = counterexample(&enc, &model);
            cex.replay = replay(program, entry, &cex);
            BmcVerdict::Violated(Box::new(cex))
        }
        Verdict::Unknown(r) => BmcVerdict::Unknown(BmcUnknown::Solver(r)),
        Verdict::Unsat => {
            let u = solver::one_shot_solver(&ctx, enc.bit_vectors_only);
            enc.assert_into(&u);
            u.assert(&enc.any_unwinding());
            let t2 = Instant::now();
            let uv = check_with_effort(&u, &[], Effort::UNWINDING_CHECK, &side_budget(budget));
            stats.unwind_time = t2.elapsed();
            // An unknown unwinding check leaves the result bounded: never upgraded.
            let complete = uv.is_unsat();
            match reference {
                Some((r, compare)) if !complete => match outlasting_run(&enc, program, r, compare, entry, budget) {
                    Some(cex) => BmcVerdict::Violated(Box::new(cex)),
                    None if no_run_within_bound(&enc, budget) => {
                        BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::NoRunWithinBound))
                    }
                    None => BmcVerdict::Holds { complete },
                },
                _ => BmcVerdict::Holds { complete },
            }
        }
    };
    let uninit_reads = if matches!(verdict, BmcVerdict::Unknown(_)) { vec![] } else { reachable_uninit(&enc, budget) };
    let cuts = match verdict {
        BmcVerdict::Holds { complete: false } => reachable_cuts(&enc, budget),
        _ => Cuts::default(),
    };
    BmcResult { verdict, uninit_reads, line_assumed: enc.line_assumed, cuts, stats }
}

/// When the input text of `found` holds a byte other than printable characters and line
/// breaks: a counterexample whose text has none, if the solver finds one within
/// [`Effort::SIDE_QUESTION`], to be shown to a student instead.
fn readable_model<'ctx>(
    ctx: &'ctx z3::Context,
    enc: &Encoding<'ctx>,
    found: &Model<'ctx>,
    budget: &Budget,
) -> Option<Model<'ctx>> {
    let readable = enc.readable_input()?;
    if is_true(found, &readable) {
        return None;
    }
    let s = solver::one_shot_solver(ctx, enc.bit_vectors_only);
    enc.assert_into(&s);
    s.assert(&enc.any_violation());
    s.assert(&readable);
    check_with_effort(&s, &[], Effort::SIDE_QUESTION, &side_budget(budget)).is_sat().then(|| s.get_model()).flatten()
}

/// After a bounded proof against a reference: an input on which the reference's run ends
/// within the bound while the student's is cut there, run in the interpreter. A student's
/// run that then fails or prints something else is a counterexample: without this check a
/// loop that never ends would be "equivalent" on every run within the bound, as no such run
/// of it ends. A student's run that ends with the reference's output only needed more
/// iterations, and the bounded proof stands.
/// No run of both programs of a product ends within the bound (decided within a slice; no
/// answer counts as "some run may"): a bounded proof compares only such runs, so it would
/// hold vacuously (a range assumed of the input, say that `n` is at least 3, beyond a bound
/// of 2 iterations).
fn no_run_within_bound(enc: &Encoding<'_>, budget: &Budget) -> bool {
    let s = solver::one_shot_solver(enc.ctx, enc.bit_vectors_only);
    enc.assert_into(&s);
    s.assert(&enc.completes);
    check_with_effort(&s, &[], Effort::SIDE_QUESTION, &side_budget(budget)).is_unsat()
}

/// The input pieces a bounded proof of `enc` must name ([`Encoding::cuts`]), each kind's
/// reachability asked within [`Effort::SIDE_QUESTION`].
fn reachable_cuts(enc: &Encoding<'_>, budget: &Budget) -> Cuts {
    enc.cuts(|cut| {
        let s = solver::one_shot_solver(enc.ctx, enc.bit_vectors_only);
        enc.assert_into(&s);
        s.assert(cut);
        !check_with_effort(&s, &[], Effort::SIDE_QUESTION, &side_budget(budget)).is_unsat()
    })
}

/// How long a side question of a proof may run whatever its [`Effort`]: only a runaway (a
/// machine so loaded that the effort takes this long) is stopped by the clock.
const RUNAWAY: Duration = Duration::from_secs(10);

/// The budget of a side question of a proof made within `budget`: its own clock, not what
/// the proof left of `budget` (a proof that took most of its slice left its cut question
/// a few milliseconds, and the label named a cut no run reaches), and `budget`'s
/// cancellation.
pub(crate) fn side_budget(budget: &Budget) -> Budget {
    Budget::new(RUNAWAY, budget.cancel.clone())
}

fn outlasting_run<'ctx>(
    enc: &Encoding<'ctx>,
    program: &Program,
    reference: &Program,
    compare: Compare,
    entry: &str,
    budget: &Budget,
) -> Option<Counterexample> {
    let outlasts = enc.outlasts.as_ref()?;
    let s = solver::one_shot_solver(enc.ctx, enc.bit_vectors_only);
    enc.assert_into(&s);
    s.assert(outlasts);
    if !check_with_budget(&s, &[], budget).is_sat() {
        return None;
    }
    let model = s.get_model()?;
    let (inputs, stdin) = model_inputs(enc, &model, &|b| is_true(&model, b));
    let (yours, theirs) = run_both(program, reference, entry, &stdin, budget);
    let cancelled = |r: &interp::RunResult| r.error.as_ref().is_some_and(|e| e.kind == RuntimeErrorKind::Cancelled);
    if theirs.error.is_some() || theirs.assume_failed || cancelled(&yours) {
        return None;
    }
    prints_differently(compare, &yours, &theirs).then(|| Counterexample {
        kind: ViolationKind::OutputMismatch,
        span: program.name_span_of(entry),
        inputs,
        stdin,
        steps: vec![],
        replay: Replay::Inconclusive("an output difference is judged against the reference, not replayed alone".into()),
    })
}

/// Which recorded uninitialised reads are reachable (one incremental check per read site).
fn reachable_uninit(enc: &Encoding<'_>, budget: &Budget) -> Vec<(Span, String)> {
    if enc.uninit_reads.is_empty() {
        return vec![];
    }
    let ctx = enc.ctx;
    let s = z3::Solver::new(ctx);
    enc.assert_into(&s);
    let mut sites: Vec<(Span, String, Vec<&Bool<'_>>)> = Vec::new();
    for r in &enc.uninit_reads {
        match sites.iter_mut().find(|(sp, n, _)| *sp == r.span && *n == r.name) {
            Some(site) => site.2.push(&r.cond),
            None => sites.push((r.span, r.name.clone(), vec![&r.cond])),
        }
    }
    sites.sort_by_key(|s| s.0);
    let mut out = Vec::new();
    for (i, (span, name, conds)) in sites.into_iter().enumerate() {
        let lit = Bool::new_const(ctx, format!("bmc!uninit!{i}"));
        s.assert(&lit.implies(&Bool::or(ctx, &conds)));
        if check_with_effort(&s, std::slice::from_ref(&lit), Effort::SIDE_QUESTION, &side_budget(budget)).is_sat() {
            out.push((span, name));
        }
    }
    out
}

fn is_true<'ctx>(m: &Model<'ctx>, b: &Bool<'ctx>) -> bool {
    m.eval(b, true).and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Reads a scalar value from a model.
pub fn model_value<'ctx>(m: &Model<'ctx>, v: &SymVal<'ctx>, ty: &Type) -> Option<InputValue> {
    match (v, ty) {
        (SymVal::Int(b), Type::Int(t)) => {
            let u = m.eval(b, true)?.as_u64()?;
            Some(InputValue::Int(t.wrap(u as i64)))
        }
        (SymVal::Float(f), Type::Float(k)) => {
            let bits = match f.as_bv() {
                Some(opaque) => opaque,
                None => Floats::new(f.get_ctx(), FloatModel::Ieee).ieee_bits(f, *k)?,
            };
            let u = m.eval(&bits, true)?.as_u64()?;
            Some(InputValue::Float(floats::from_bits(u, *k)))
        }
        _ => None,
    }
}

fn value_text(v: &InputValue, ty: &Type, conv: char) -> String {
    match v {
        InputValue::Int(x) => {
            let t = ty.as_int();
            let bits = t.map_or(64, |t| t.bits());
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let u = (*x as u64) & mask;
            match conv {
                'c' => ((*x as u8) as char).to_string(),
                'x' | 'X' => format!("{u:x}"),
                'o' => format!("{u:o}"),
                'u' => format!("{u}"),
                _ => {
                    if t.is_some_and(|t| t.signed) {
                        format!("{x}")
                    } else {
                        format!("{u}")
                    }
                }
            }
        }
        InputValue::Str(s) => s.clone(),
        InputValue::Float(f) => match ty {
            Type::Float(FloatKind::Float) => format!("{:?}", *f as f32),
            _ => format!("{f:?}"),
        },
    }
}

/// The counterexample a model of `enc`'s constraints plus [`Encoding::any_violation`] describes
/// (not yet replayed: see [`replay`]). Engines that solve an [`Encoding`] themselves (e.g. under
/// selector assumptions) use it to show the failing input.
pub fn counterexample<'ctx>(enc: &Encoding<'ctx>, m: &Model<'ctx>) -> Counterexample {
    let (kind, span) = enc
        .violations
        .iter()
        .find(|v| is_true(m, &v.cond))
        .map(|v| (v.kind, v.span))
        .unwrap_or((ViolationKind::Assertion, Span::default()));
    let (inputs, stdin) = model_inputs(enc, m, &|b| is_true(m, b));
    let steps = enc
        .branches
        .iter()
        .filter(|b| is_true(m, &b.guard))
        .map(|b| Step { span: b.span, kind: b.what, taken: is_true(m, &b.taken) })
        .collect();
    Counterexample { kind, span, inputs, stdin, steps, replay: Replay::Inconclusive("not replayed".into()) }
}

/// Only the input of the counterexample a model describes (stdin text), for a model of
/// [`Encoding::choice_formula`]: selectors are not in that model, so guards are read with the
/// choice's selector values substituted. Does not look for the violated check (with tens of
/// thousands of checks, evaluating them one by one in the model took longer than solving).
pub fn counterexample_stdin<'ctx>(enc: &Encoding<'ctx>, m: &Model<'ctx>, choice: &[(LocationId, usize)]) -> String {
    let pairs = enc.selector_values(choice);
    let refs: Vec<(&Bool<'ctx>, &Bool<'ctx>)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    model_inputs(enc, m, &|b| is_true(m, &b.substitute(&refs))).1
}

/// The inputs a model describes and their stdin text; `truth` decides an input's guard.
fn model_inputs<'ctx>(
    enc: &Encoding<'ctx>,
    m: &Model<'ctx>,
    truth: &dyn Fn(&Bool<'ctx>) -> bool,
) -> (Vec<InputItem>, String) {
    let mut inputs = Vec::new();
    let mut texts: Vec<Option<String>> = Vec::new();
    for r in &enc.inputs {
        // Characters are given as the stdin text below.
        if !truth(&r.guard) || matches!(r.source, InputSource::Chars) {
            texts.push(None);
            continue;
        }
        let value = match &r.string {
            Some(w) => {
                let len = m.eval(&w.len, true).and_then(|l| l.as_u64()).unwrap_or(0) as usize;
                let word = model_text(m, &w.chars[..len.min(w.chars.len())]);
                InputValue::Str(word)
            }
            None => model_value(m, &r.value, &r.ty).unwrap_or(InputValue::Int(0)),
        };
        let text = value_text(&value, &r.ty, r.conv);
        texts.push(Some(text.clone()));
        if r.name != "(skipped)" {
            inputs.push(InputItem { name: r.name.clone(), ty: r.ty.clone(), value, text, span: r.span });
        }
    }
    // stdin: scanf calls in order (their literal text kept), nondet values one a line.
    let mut stdin = String::new();
    let mut done_calls = std::collections::HashSet::new();
    for (i, r) in enc.inputs.iter().enumerate() {
        if texts[i].is_none() {
            continue;
        }
        match r.source {
            InputSource::Nondet => {
                stdin.push_str(texts[i].as_deref().unwrap_or("0"));
                stdin.push('\n');
            }
            InputSource::Line => {
                stdin.push_str(texts[i].as_deref().unwrap_or(""));
                stdin.push('\n');
            }
            InputSource::Scanf { call } => {
                if !done_calls.insert(call) {
                    continue;
                }
                let c = &enc.input_calls[call];
                // A read that did not happen (the input ended there) ends the call's text.
                let vals: Vec<&str> = c.reads.iter().map_while(|&j| texts[j].as_deref()).collect();
                stdin.push_str(&scanf_text(&c.format, &vals));
            }
            InputSource::Chars => {}
        }
    }
    if let Some(chars) = &enc.chars {
        // The bytes a run within the bound can read.
        let len = m.eval(&chars.len, true).and_then(|l| l.as_u64()).unwrap_or(0) as usize;
        stdin = model_text(m, &chars.bytes[..len.min(chars.bytes.len())]);
        // Bytes beyond those hold the line's '\n' (the line assumption).
        if len > chars.bytes.len() {
            stdin.push('\n');
        }
    }
    (inputs, stdin)
}

/// The characters a model gives `bytes` (8-bit constants), as text.
fn model_text<'ctx>(m: &Model<'ctx>, bytes: &[BV<'ctx>]) -> String {
    bytes.iter().map(|c| m.eval(c, true).and_then(|c| c.as_u64()).unwrap_or(b'a' as u64) as u8 as char).collect()
}

/// The text one `scanf(format, ...)` call consumes to read `vals` (one per directive).
fn scanf_text(format: &[u8], vals: &[&str]) -> String {
    let mut out = String::new();
    let Ok(pieces) = cfmt::parse(format, true) else { return out };
    let mut next = vals.iter();
    let mut prev_directive = false;
    for p in pieces {
        match p {
            Piece::Literal(bytes) => {
                for b in bytes {
                    if b.is_ascii_whitespace() {
                        if !out.ends_with(' ') && !out.is_empty() {
                            out.push(' ');
                        }
                    } else {
                        out.push(b as char);
                    }
                }
                prev_directive = false;
            }
            Piece::Directive(_) => {
                let Some(v) = next.next() else { break };
                if prev_directive {
                    out.push(' ');
                }
                out.push_str(v);
                prev_directive = true;
            }
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// Runs the interpreter on the counterexample's stdin and compares the failure.
pub fn replay(program: &Program, entry: &str, cex: &Counterexample) -> Replay {
    if cex.kind == ViolationKind::OutputMismatch {
        return Replay::Inconclusive("an output difference is judged against the reference, not replayed alone".into());
    }
    let r = interp::run(program, entry, cex.stdin.as_bytes(), &Limits::default(), &Cancel::new());
    if r.assume_failed {
        return Replay::Mismatch("an assumption failed when the interpreter ran the counterexample".into());
    }
    let Some(err) = r.error else {
        return Replay::Mismatch(format!(
            "the interpreter ran the counterexample to completion (stdin {:?})",
            cex.stdin
        ));
    };
    let expected = match cex.kind {
        ViolationKind::Assertion => RuntimeErrorKind::AssertionFailed,
        ViolationKind::ReachError => RuntimeErrorKind::ReachError,
        ViolationKind::DivisionByZero => RuntimeErrorKind::DivisionByZero,
        ViolationKind::OutOfBounds => RuntimeErrorKind::OutOfBounds,
        ViolationKind::NullDereference => RuntimeErrorKind::NullDereference,
        ViolationKind::UseAfterFree => RuntimeErrorKind::UseAfterFree,
        ViolationKind::InvalidFree => RuntimeErrorKind::InvalidFree,
        ViolationKind::OutputMismatch => unreachable!("returned above"),
    };
    if err.kind == expected && err.span == cex.span {
        Replay::Confirmed
    } else if err.kind == RuntimeErrorKind::Uninitialized {
        Replay::Inconclusive(format!("the run reads an uninitialised value first: {}", err.message))
    } else {
        Replay::Mismatch(format!(
            "expected {:?} at {:?}, the interpreter stopped with {:?} at {:?}: {} (stdin {:?})",
            expected, cex.span, err.kind, err.span, err.message, cex.stdin
        ))
    }
}

#[cfg(test)]
mod tests;
