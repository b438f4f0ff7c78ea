//! mend: a C language server that suggests minimal repairs with a stated guarantee.
//!
//! Layers, each using only those below it (see ARCHITECTURE.md):
//! `server` → `check` → `patch` → `engines` → `smt` → `spec` → `syntax` → `ir`.

pub mod bench;
pub mod bench_reference;
pub mod cancel;
pub mod check;
pub mod cli;
pub mod engines;
pub mod ir;
pub mod patch;
pub mod server;
pub mod smt;
pub mod spec;
pub mod syntax;
