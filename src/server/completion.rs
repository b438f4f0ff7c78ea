//! Completion: expressions of the expected type at the cursor, synthesised by the typed engine
//! from what is in scope (not just names), best first.

use tower_lsp_server::ls_types as lsp;
use tree_sitter::Tree;

use crate::engines::typed;
use crate::syntax::lower;

/// Completions offered at one position.
pub const COMPLETIONS: usize = 10;

/// Completion items at byte `offset` of `text` (parsed as `tree`).
pub fn items(text: &str, tree: &Tree, offset: usize) -> Vec<lsp::CompletionItem> {
    let program = lower::lower(tree, text).program;
    typed::complete(&program, text, offset, COMPLETIONS)
        .into_iter()
        .enumerate()
        .map(|(rank, c)| lsp::CompletionItem {
            label: c.text.clone(),
            kind: Some(lsp::CompletionItemKind::VALUE),
            detail: Some(format!("{} (cost {})", c.ty, c.cost)),
            // The engine's cost order, kept by clients that sort by sortText.
            sort_text: Some(format!("{rank:04}")),
            filter_text: Some(c.text.clone()),
            insert_text: Some(c.text),
            ..Default::default()
        })
        .collect()
}
