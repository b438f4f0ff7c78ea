//! C semantics in Z3 and the solver budget.
//!
//! A `z3::Context` is not `Send`: engines create one per job on the worker thread and pass a
//! [`budget::Budget`] (deadline + cancellation token) to every check; [`solver::check_with_budget`]
//! turns the budget into Z3's `timeout` parameter plus a watcher that interrupts Z3 when the job is
//! cancelled. A check that ends in `unknown` is never reported as sat or unsat.

pub mod bmc;
pub mod budget;
pub mod c_int;
pub mod c_lib;
pub mod encode;
pub mod fingerprint;
pub mod floats;
pub mod fold;
pub mod output;
pub mod product;
pub mod scan;
pub mod solver;

pub use budget::Budget;
pub use solver::{Solver, UnknownReason, Verdict, check_interruptible, check_optimize_with_budget, check_with_budget};
