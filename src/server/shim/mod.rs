//! TEMPORARY stand-in for `crate::syntax::{line_index, document, diagnostics}` while the syntax
//! branch is being written; same API, simpler bodies. Deleted when `syntax` is merged.

pub mod line_index;

pub mod document {
    use super::line_index::{Encoding, LineIndex, Position};

    #[derive(Debug)]
    pub struct ChangeError(pub String);

    impl std::fmt::Display for ChangeError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }

    pub struct Document {
        pub text: String,
        pub tree: tree_sitter::Tree,
        pub index: LineIndex,
        pub version: i32,
    }

    fn parse(text: &str) -> tree_sitter::Tree {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_c::LANGUAGE.into()).expect("tree-sitter-c");
        parser.parse(text, None).expect("parse")
    }

    impl Document {
        pub fn new(text: String, version: i32) -> Document {
            let tree = parse(&text);
            let index = LineIndex::new(&text);
            Document { text, tree, index, version }
        }

        pub fn apply_change(
            &mut self,
            range: Option<(Position, Position)>,
            new_text: &str,
            enc: Encoding,
        ) -> Result<(), ChangeError> {
            match range {
                None => self.text = new_text.to_string(),
                Some((s, e)) => {
                    let a = self.index.offset(&self.text, s, enc).ok_or_else(|| ChangeError(format!("start {s:?} out of range")))?;
                    let b = self.index.offset(&self.text, e, enc).ok_or_else(|| ChangeError(format!("end {e:?} out of range")))?;
                    if a > b {
                        return Err(ChangeError("range end before start".into()));
                    }
                    self.text.replace_range(a..b, new_text);
                }
            }
            self.index = LineIndex::new(&self.text);
            self.tree = parse(&self.text);
            Ok(())
        }
    }
}

pub mod diagnostics {
    use crate::ir::{Diagnostic, Span};
    use crate::patch::{Guarantee, Repair, TextEdit};

    /// Error and missing nodes, without recursion.
    pub fn syntax_diagnostics(tree: &tree_sitter::Tree, text: &str) -> (Vec<Diagnostic>, Vec<Repair>) {
        let _ = text;
        let mut diags = Vec::new();
        let mut repairs = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let span = Span::new(node.start_byte(), node.end_byte());
            let mut descend = node.has_error();
            if node.is_missing() {
                let kind = node.kind();
                diags.push(Diagnostic::error("syntax", span, format!("missing `{kind}`")));
                repairs.push(Repair {
                    title: format!("Insert `{kind}`"),
                    engine: "syntax",
                    guarantee: Guarantee::Syntax,
                    edits: vec![TextEdit { span, new_text: kind.to_string() }],
                    explanation: format!("The parser expected `{kind}` here."),
                    fixes: span,
                });
                descend = false;
            } else if node.is_error() {
                diags.push(Diagnostic::error("syntax", span, "syntax error"));
                descend = false;
            }
            if descend && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return (diags, repairs);
                }
            }
        }
    }
}
