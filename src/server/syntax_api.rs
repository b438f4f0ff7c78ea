//! The syntax layer's API as the server uses it (one place to switch if it moves).

pub use crate::syntax::{Document, Encoding, LineIndex, Position, syntax_diagnostics};
