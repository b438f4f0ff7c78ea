//! tree-sitter parsing with incremental edits, position encodings, syntax diagnostics and the
//! lowering of the concrete syntax tree into the typed IR.

pub mod lower;
