//! mend: a C language server that suggests minimal repairs with a stated guarantee.
//!
//! Layers, each using only those below it (see ARCHITECTURE.md):
//! `server` (LSP), `dap` (the debugger), `cli` (`mend check`'s output and the benchmarks) → `check` → `engines` →
//! `smt` → `spec` → `syntax` → `ir`; `cancel`, `rng` and `framing` (the
//! editor protocols' `Content-Length` frames) are leaves any layer may use.

pub mod cancel;
pub mod check;
pub mod cli;
pub mod dap;
pub mod engines;
pub mod framing;
pub mod ir;
pub mod rng;
pub mod server;
pub mod smt;
pub mod spec;
pub mod syntax;
#[doc(hidden)]
pub mod testing;
