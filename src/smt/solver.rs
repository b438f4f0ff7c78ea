//! Budgeted satisfiability checks: Z3's `timeout` parameter from the remaining time, and a
//! watcher thread that calls `ContextHandle::interrupt()` when the job's [`Cancel`] fires (or
//! when the deadline has passed and Z3 has not noticed).
//!
//! [`Cancel`]: crate::cancel::Cancel

use std::sync::mpsc;
use std::time::{Duration, Instant};

use z3::ast::Bool;
use z3::{Context, Model, Optimize, Params, SatResult, Tactic};

use super::budget::Budget;

/// Why a check gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownReason {
    /// The budget's deadline passed.
    Timeout,
    /// The budget's cancellation token fired.
    Cancelled,
    /// The check spent the [`Effort`] it was given.
    OutOfEffort,
    /// Z3 itself gave up (incompleteness, ...), with its reason.
    SolverUnknown(String),
    /// A bounded comparison with the reference found no difference because no run of the
    /// two programs ends within the bound (every input makes one loop run longer): it would
    /// prove nothing.
    NoRunWithinBound,
}

/// The outcome of one check. `Unknown` is never to be read as either answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Sat,
    Unsat,
    Unknown(UnknownReason),
}

impl Verdict {
    pub fn is_sat(&self) -> bool {
        matches!(self, Verdict::Sat)
    }
    pub fn is_unsat(&self) -> bool {
        matches!(self, Verdict::Unsat)
    }
    pub fn is_unknown(&self) -> bool {
        matches!(self, Verdict::Unknown(_))
    }
}

/// How often the watcher polls the cancellation token (it is a plain flag, not a waker).
const POLL: Duration = Duration::from_millis(3);
/// How long past the deadline the watcher waits for Z3's own timeout before interrupting.
const DEADLINE_GRACE: Duration = Duration::from_millis(50);

/// A fresh context for one job (model generation on). Keep it on the thread that uses it.
pub fn new_context() -> Context {
    let mut cfg = z3::Config::new();
    cfg.set_model_generation(true);
    Context::new(&cfg)
}

/// A solver for one check without assumptions (bounded verification, a mutation candidate in
/// a fresh solver). On a pure bit-vector formula (`bit_vectors_only`: no floats, no memory
/// objects) it is a fixed tactic pipeline: simplification, value propagation, equation
/// solving, elimination of unconstrained terms, bit-blasting and the SAT solver. Z3's own
/// choice for such formulas is much slower on the product-like formulas of a program and its
/// reference (TCAS-like fixtures: a candidate's unsat check 2-5 s → a few ms, a sat check
/// 200-350 ms → 50-100 ms). Anything else gets Z3's default solver.
pub fn one_shot_solver(ctx: &Context, bit_vectors_only: bool) -> z3::Solver<'_> {
    if !bit_vectors_only {
        return z3::Solver::new(ctx);
    }
    let steps = ["propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "max-bv-sharing", "bit-blast", "sat"];
    steps.iter().fold(Tactic::new(ctx, "simplify"), |t, next| t.and_then(&Tactic::new(ctx, next))).solver()
}

/// The same pipeline for bit-vector formulas with uninterpreted functions (the verified
/// engine's input streams and calls): they are first replaced by constants and Ackermann's
/// congruence constraints. Equation solving before bit-blasting is what matters: a node's
/// check equates the student's variables with the reference's, and Z3's default incremental
/// solver bit-blasts both copies of every multiplication; depending on term order it then
/// decides `i * i <= n` in 0.1 s or runs past 6 s.
pub fn bit_vector_uf_solver(ctx: &Context) -> z3::Solver<'_> {
    let steps = [
        "propagate-values",
        "solve-eqs",
        "elim-uncnstr",
        "simplify",
        "ackermannize_bv",
        "simplify",
        "max-bv-sharing",
        "bit-blast",
        "sat",
    ];
    steps.iter().fold(Tactic::new(ctx, "simplify"), |t, next| t.and_then(&Tactic::new(ctx, next))).solver()
}

/// Checks `solver` under `assumptions` within `budget`. Sets the solver's `timeout` parameter to
/// the remaining time (it stays set afterwards; every budgeted check sets it again).
pub fn check_with_budget<'ctx>(solver: &z3::Solver<'ctx>, assumptions: &[Bool<'ctx>], budget: &Budget) -> Verdict {
    check_limited(solver, assumptions, budget, 0)
}

/// How much work a side question may cost, in Z3's resource count (`rlimit`): unlike a slice
/// of the clock, the same question gets the same answer on an idle machine and on a loaded
/// one. A wall-clock slice made a proof's label depend on the load: "verified up to 5 loop
/// iterations" on one machine, "… and 32-character strings" on CI, where the one-second
/// question whether a string can be cut went unanswered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effort(pub u32);

impl Effort {
    /// A side question of a proof (is a cut reachable, does any run end within the bound): a
    /// few times what the largest such question of the fixture suite needs (2.8 million,
    /// 0.4 s on an idle machine).
    pub const SIDE_QUESTION: Effort = Effort(10_000_000);
    /// Whether a proved bounded check is complete (no run reaches the bound): whether the
    /// label says "verified" or "verified up to …". The fixture suite's largest takes 3.6
    /// million.
    pub const UNWINDING_CHECK: Effort = Effort(30_000_000);
}

/// Checks `solver` under `assumptions` with `effort` bounding the question
/// deterministically; `budget` (its clock and its cancellation) only stops a runaway.
pub fn check_with_effort<'ctx>(
    solver: &z3::Solver<'ctx>,
    assumptions: &[Bool<'ctx>],
    effort: Effort,
    budget: &Budget,
) -> Verdict {
    check_limited(solver, assumptions, budget, effort.0.max(1))
}

/// [`check_with_effort`] where there is an `effort`, else [`check_with_budget`]: for callers
/// that bound some of their questions by effort and others by the clock.
pub fn check_within<'ctx>(
    solver: &z3::Solver<'ctx>,
    assumptions: &[Bool<'ctx>],
    effort: Option<Effort>,
    budget: &Budget,
) -> Verdict {
    check_limited(solver, assumptions, budget, effort.map_or(0, |e| e.0.max(1)))
}

/// Z3's resource count so far in `solver`'s context (it only grows).
fn resource_count(solver: &z3::Solver<'_>) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(x)) => x as u64,
        None => 0,
    }
}

/// One budgeted check; `rlimit` 0 is no resource limit. Both parameters are set on every
/// check, as they stay set on the solver afterwards.
fn check_limited<'ctx>(solver: &z3::Solver<'ctx>, assumptions: &[Bool<'ctx>], budget: &Budget, rlimit: u32) -> Verdict {
    if let Some(r) = budget.stop_reason() {
        return Verdict::Unknown(r);
    }
    let ctx = solver.get_context();
    let mut params = Params::new(ctx);
    params.set_u32("timeout", timeout_ms(budget.remaining()));
    params.set_u32("rlimit", rlimit);
    solver.set_params(&params);
    let before = (rlimit > 0).then(|| (resource_count(solver), Instant::now()));
    let result = watched(ctx, budget, DEADLINE_GRACE, || {
        if assumptions.is_empty() { solver.check() } else { solver.check_assumptions(assumptions) }
    });
    if let Some((count, start)) = before {
        tracing::debug!(
            "a side question: {result:?} after {} of {rlimit} resource units in {:?}",
            resource_count(solver).saturating_sub(count),
            start.elapsed()
        );
    }
    match classify(result, budget, || solver.get_reason_unknown()) {
        Verdict::Unknown(UnknownReason::SolverUnknown(r)) if rlimit > 0 && r.contains("resource limit") => {
            Verdict::Unknown(UnknownReason::OutOfEffort)
        }
        v => v,
    }
}

/// Checks `solver` within `budget` through the watcher's interrupt alone, without Z3's
/// `timeout` parameter: with it, Z3 4.8 answers some array queries `unknown` that its default
/// strategy decides (the Houdini invariant checks of IntroClass syllables/b1924d63-004 lost
/// the invariant its verified repair needs).
pub fn check_interruptible<'ctx>(solver: &z3::Solver<'ctx>, budget: &Budget) -> Verdict {
    if let Some(r) = budget.stop_reason() {
        return Verdict::Unknown(r);
    }
    let result = watched(solver.get_context(), budget, Duration::ZERO, || solver.check());
    classify(result, budget, || solver.get_reason_unknown())
}

/// Checks an `Optimize` within `budget`. z3 0.12 has no `Optimize::set_params`, so the deadline
/// is enforced by the watcher's interrupt alone. On `Sat` the model is optimal only if the
/// optimiser finished, which `Sat` means here.
pub fn check_optimize_with_budget<'ctx>(opt: &Optimize<'ctx>, assumptions: &[Bool<'ctx>], budget: &Budget) -> Verdict {
    if let Some(r) = budget.stop_reason() {
        return Verdict::Unknown(r);
    }
    let result = watched(opt.get_context(), budget, Duration::ZERO, || opt.check(assumptions));
    classify(result, budget, || opt.get_reason_unknown())
}

fn timeout_ms(d: Duration) -> u32 {
    d.as_millis().clamp(1, u32::MAX as u128) as u32
}

/// Runs `check` on this thread while a scoped watcher thread interrupts the context when the
/// budget is cancelled or `grace` past its deadline.
fn watched(ctx: &Context, budget: &Budget, grace: Duration, check: impl FnOnce() -> SatResult) -> SatResult {
    let handle = ctx.handle();
    let hard_deadline = budget.deadline.checked_add(grace).unwrap_or(budget.deadline);
    let (result, interrupted) = std::thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let handle = &handle;
        // Interrupts again every poll until the check returns: a tactic that starts after
        // an interrupt (a stage of the floating-point pipeline) can miss it, and one missed
        // interrupt let a check run for many minutes past its budget.
        let watcher = scope.spawn(move || {
            let mut interrupts = 0u32;
            loop {
                let wait = POLL.min(hard_deadline.saturating_duration_since(Instant::now()));
                match done_rx.recv_timeout(wait) {
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return interrupts > 0,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if budget.cancel.is_cancelled() || Instant::now() >= hard_deadline {
                            if interrupts == 1 {
                                tracing::debug!("a solver check goes on past its interrupt: interrupting again");
                            }
                            handle.interrupt();
                            interrupts = interrupts.saturating_add(1);
                        }
                    }
                }
            }
        });
        let result = check();
        let _ = done_tx.send(());
        (result, watcher.join().unwrap_or(true))
    });
    // The interrupt may have come as the check ended, too late for it to consume.
    if interrupted {
        clear_interrupt(ctx);
    }
    result
}

/// Clears an interrupt of `ctx` that no check consumed: Z3 keeps the context cancelled until
/// its next check starts, and an interrupt sent as a check ended would fail every `simplify`
/// until then. A check resets it; one on an empty solver costs next to nothing.
fn clear_interrupt(ctx: &Context) {
    let _ = z3::Solver::new(ctx).check();
}

fn classify(result: SatResult, budget: &Budget, reason: impl FnOnce() -> Option<String>) -> Verdict {
    match result {
        SatResult::Sat => Verdict::Sat,
        SatResult::Unsat => Verdict::Unsat,
        SatResult::Unknown => {
            let reason = reason().unwrap_or_default();
            if budget.cancel.is_cancelled() {
                Verdict::Unknown(UnknownReason::Cancelled)
            } else if Instant::now() >= budget.deadline || reason.contains("timeout") {
                Verdict::Unknown(UnknownReason::Timeout)
            } else {
                Verdict::Unknown(UnknownReason::SolverUnknown(reason))
            }
        }
    }
}

/// A `z3::Solver` with a budget: every check is a budgeted check.
pub struct Solver<'ctx> {
    inner: z3::Solver<'ctx>,
    budget: Budget,
}

impl<'ctx> Solver<'ctx> {
    pub fn new(ctx: &'ctx Context, budget: Budget) -> Solver<'ctx> {
        Solver { inner: z3::Solver::new(ctx), budget }
    }
    pub fn from_z3(inner: z3::Solver<'ctx>, budget: Budget) -> Solver<'ctx> {
        Solver { inner, budget }
    }
    pub fn inner(&self) -> &z3::Solver<'ctx> {
        &self.inner
    }
    pub fn context(&self) -> &'ctx Context {
        self.inner.get_context()
    }
    pub fn budget(&self) -> &Budget {
        &self.budget
    }
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }
    pub fn assert(&self, b: &Bool<'ctx>) {
        self.inner.assert(b);
    }
    pub fn push(&self) {
        self.inner.push();
    }
    pub fn pop(&self, n: u32) {
        self.inner.pop(n);
    }
    pub fn check(&self) -> Verdict {
        check_with_budget(&self.inner, &[], &self.budget)
    }
    pub fn check_assuming(&self, assumptions: &[Bool<'ctx>]) -> Verdict {
        check_with_budget(&self.inner, assumptions, &self.budget)
    }
    /// The model of the last check; only meaningful after [`Verdict::Sat`].
    pub fn model(&self) -> Option<Model<'ctx>> {
        self.inner.get_model()
    }
    /// The subset of the last check's assumptions that is already unsatisfiable; only
    /// meaningful after [`Verdict::Unsat`].
    pub fn unsat_core(&self) -> Vec<Bool<'ctx>> {
        self.inner.get_unsat_core()
    }
}

#[cfg(test)]
mod tests;
