//! Specifications: mend.toml, tests, output comparison; `interp` runs tests safely.

pub mod compare;
pub mod config;
pub mod expectations;
pub mod interp;
pub mod tests;
