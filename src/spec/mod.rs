//! Specifications: mend.toml, tests, output comparison; `interp` runs tests safely.
pub mod interp;
