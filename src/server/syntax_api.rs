//! The syntax layer's API as the server uses it (one place to switch when it moves).

pub use super::shim::diagnostics::syntax_diagnostics;
pub use super::shim::document::{ChangeError, Document};
pub use super::shim::line_index::{Encoding, LineIndex, Position};
