//! Repairs as minimal text edits with titles and guarantees. The data types live in
//! [`crate::ir::repair`] (the syntax layer produces repairs too); engines' results are turned
//! into them here.

pub use crate::ir::repair::{Guarantee, Repair, TextEdit, apply_edits};
