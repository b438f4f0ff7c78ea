//! tree-sitter parsing with incremental edits, position encodings, syntax diagnostics and the
//! lowering of the concrete syntax tree into the typed IR.

pub mod diagnostics;
pub mod document;
pub mod line_index;
pub mod lower;

pub use diagnostics::syntax_diagnostics;
pub use document::{ChangeError, Document};
pub use line_index::{Encoding, LineIndex, Position};

use std::cell::RefCell;
use tree_sitter::{Parser, Tree};

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut parser = Parser::new();
        parser.set_language(&tree_sitter_c::LANGUAGE.into()).expect("tree-sitter-c ABI matches");
        parser
    });
}

/// Parses `src` with this thread's C parser. With `old` (a previous tree of this document,
/// already adjusted by `Tree::edit`), the parse is incremental.
pub fn parse(src: &str, old: Option<&Tree>) -> Tree {
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        match parser.parse(src, old) {
            Some(tree) => tree,
            None => {
                // Only possible after a cancelled or timed-out parse left state behind.
                parser.reset();
                parser.parse(src, old).expect("parser has a language and no timeout")
            }
        }
    })
}
