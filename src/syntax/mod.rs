//! tree-sitter parsing with incremental edits, position encodings, syntax diagnostics and the
//! lowering of the concrete syntax tree into the typed IR.

pub mod course_rules;
pub mod diagnostics;
pub mod document;
pub mod flags;
pub mod implicit_int;
pub mod include_lines;
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

/// `tree`, from an incremental parse of `src`, as a fresh parse gives it. On a text with
/// syntax errors tree-sitter's recovery after an incremental parse depends on the edit history
/// (after 2,000 random edits of a 100 KB file, 1 of 428 syntax diagnostics read differently
/// from a fresh open's), so such a tree is parsed again from scratch: what the student is
/// shown never depends on how the text was typed.
pub fn canonical(tree: Tree, src: &str) -> Tree {
    if recovery_may_differ(&tree) { parse(src, None) } else { tree }
}

/// [`parse_cancellable`] giving the [`canonical`] tree.
pub fn parse_canonical(src: &str, old: Option<&Tree>, cancel: &crate::cancel::Cancel) -> Option<Tree> {
    let tree = parse_cancellable(src, old, cancel)?;
    if old.is_some() && recovery_may_differ(&tree) { parse_cancellable(src, None, cancel) } else { Some(tree) }
}

fn recovery_may_differ(tree: &Tree) -> bool {
    tree.root_node().has_error()
}

/// [`parse`], given up (`None`) once `cancel` is set: a parse of a large file that a newer
/// edit made useless stops within a few hundred parser operations.
pub fn parse_cancellable(src: &str, old: Option<&Tree>, cancel: &crate::cancel::Cancel) -> Option<Tree> {
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        let bytes = src.as_bytes();
        let mut read = |at: usize, _: tree_sitter::Point| bytes.get(at..).unwrap_or_default();
        let mut give_up = |_: &tree_sitter::ParseState| cancel.is_cancelled();
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut give_up);
        let tree = parser.parse_with_options(&mut read, old, Some(options));
        if tree.is_none() {
            // A cancelled parse keeps its state for a resumption that will not come.
            parser.reset();
        }
        tree
    })
}
