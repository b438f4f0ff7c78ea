//! Mutation repair against assertions (AllRepair): every original expression is a location
//! with mutated alternatives; the search enumerates all minimal sets of mutations that make
//! the program correct, smallest first.

pub mod against_tests;
pub mod catalogue;
pub mod concrete;
pub mod engine;
pub mod inject;
pub mod reference_space;
pub mod search;
pub mod separators;
pub mod statements;
