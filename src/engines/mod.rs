//! Repair engines: plain Rust, program + spec in, ranked repairs with guarantees out.

pub mod localize;
pub mod mutation;
pub mod output_text;
pub mod typed;
pub mod verified;
