//! The typed program model of the supported C subset. Pure data at the bottom of the layers:
//! it knows nothing of tree-sitter, Z3 or LSP.

pub mod cfa;
pub mod diag;
pub mod flow;
pub mod format;
pub mod inline;
pub mod mistakes;
pub mod normalize;
pub mod print;
pub mod program;
pub mod repair;
pub mod rewrite;
pub mod ted;
pub mod token_edit;
pub mod types;
pub mod walk;

pub use diag::{Diagnostic, Related, Severity};
pub use program::*;
pub use repair::{
    Bound, Cuts, Guarantee, Place, Reached, Repair, TextEdit, apply_edits, changes_in_words, declarator_end,
    deletion_span, in_line_breaks_of, indentation, initial_values, initialisation, is_parenthesized,
    string_equality_edit, without_parentheses, words_list,
};
pub use types::{FloatKind, IntKind, IntType, StructId, Type};

/// A byte range in the source text (`start..end`, UTF-8 offsets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
    pub fn cover(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    pub fn contains(self, offset: usize) -> bool {
        (self.start as usize) <= offset && offset <= (self.end as usize)
    }
    /// The two spans share a byte, an empty span counting as the byte at its start (an
    /// insertion touches what it is inserted into).
    pub fn touches(self, other: Span) -> bool {
        self.start < other.end.max(other.start + 1) && other.start < self.end.max(self.start + 1)
    }
}
