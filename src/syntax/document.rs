//! An open document: text, syntax tree and line index, kept in step by incremental edits.

use super::line_index::{Encoding, LineIndex, Position};
use tree_sitter::{InputEdit, Point, Tree};

/// An edit that cannot be applied; the document is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeError {
    pub message: String,
}

impl std::fmt::Display for ChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ChangeError {}

/// Text, tree-sitter tree and line index of one document at one version. Cloning is cheap for
/// the tree (reference counted) and copies the text: it is how the server takes a snapshot.
///
/// The text and line index always follow the edits; the tree may lag behind: [`Document::edit`]
/// only records an edit in the old tree, and [`Document::reparse`] (or a parse done elsewhere and
/// handed back with [`Document::install_tree`]) brings it up to date. That split lets the server
/// apply an edit of a large file at once and parse it off its message loop.
#[derive(Clone, Debug)]
pub struct Document {
    pub text: String,
    pub index: LineIndex,
    pub version: i32,
    /// The last parsed tree, with every later edit recorded in it (`None` after a whole-text
    /// replacement, until parsed).
    tree: Option<Tree>,
    /// Whether `tree` is the tree of `text`.
    parsed: bool,
    /// Counts edits, so a parse started on one text is never installed on another.
    revision: u64,
}

impl Document {
    pub fn new(text: impl Into<String>, version: i32) -> Document {
        let mut doc = Document::unparsed(text, version);
        doc.reparse();
        doc
    }

    /// A document whose tree is still to be parsed.
    pub fn unparsed(text: impl Into<String>, version: i32) -> Document {
        let text = text.into();
        let index = LineIndex::new(&text);
        Document { text, index, version, tree: None, parsed: false, revision: 0 }
    }

    /// The tree of the current text, or `None` while a reparse is pending.
    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref().filter(|_| self.parsed)
    }

    /// Parses the text now (incrementally from the edited old tree) if the tree lags behind.
    pub fn reparse(&mut self) {
        if !self.parsed {
            self.tree = Some(super::parse(&self.text, self.tree.as_ref()));
            self.parsed = true;
        }
    }

    /// What a parse elsewhere needs: the revision, the text and the edited old tree.
    pub fn parse_input(&self) -> (u64, String, Option<Tree>) {
        (self.revision, self.text.clone(), self.tree.clone())
    }

    /// Installs `tree`, parsed from the text of `revision`, if the text has not changed since.
    pub fn install_tree(&mut self, revision: u64, tree: Tree) -> bool {
        if revision != self.revision {
            return false;
        }
        self.tree = Some(tree);
        self.parsed = true;
        true
    }

    /// Applies one LSP-style content change and reparses: see [`Document::edit`].
    pub fn apply_change(
        &mut self,
        range: Option<(Position, Position)>,
        new_text: &str,
        enc: Encoding,
    ) -> Result<(), ChangeError> {
        self.edit(range, new_text, enc)?;
        self.reparse();
        Ok(())
    }

    /// Applies one LSP-style content change to the text and records it in the tree, without
    /// reparsing: `range: None` replaces the whole text. A range whose line does not exist, or
    /// whose end is before its start, gives an error and leaves the document unchanged. (The
    /// version is the caller's business: set [`Document::version`] after applying a batch.)
    pub fn edit(
        &mut self,
        range: Option<(Position, Position)>,
        new_text: &str,
        enc: Encoding,
    ) -> Result<(), ChangeError> {
        let Some((start, end)) = range else {
            self.text = new_text.to_string();
            self.index = LineIndex::new(&self.text);
            self.tree = None;
            self.parsed = false;
            self.revision += 1;
            return Ok(());
        };
        let lines = self.index.line_count();
        let resolve = |pos: Position, what: &str| {
            self.index.offset(&self.text, pos, enc).ok_or_else(|| ChangeError {
                message: format!(
                    "the change's {what} (line {}, character {}) is past the end of the document, which has {lines} line{}",
                    pos.line,
                    pos.character,
                    if lines == 1 { "" } else { "s" }
                ),
            })
        };
        let start_byte = resolve(start, "start")?;
        let old_end_byte = resolve(end, "end")?;
        if old_end_byte < start_byte {
            return Err(ChangeError {
                message: format!(
                    "the change's end (line {}, character {}) is before its start (line {}, character {})",
                    end.line, end.character, start.line, start.character
                ),
            });
        }
        let start_position = self.index.ts_point(&self.text, start_byte);
        let old_end_position = self.index.ts_point(&self.text, old_end_byte);
        let new_end_byte = start_byte + new_text.len();
        let new_end_position = advance(start_position, new_text);

        self.text.replace_range(start_byte..old_end_byte, new_text);
        self.index = LineIndex::new(&self.text);
        if let Some(tree) = &mut self.tree {
            tree.edit(&InputEdit {
                start_byte,
                old_end_byte,
                new_end_byte,
                start_position,
                old_end_position,
                new_end_position,
            });
        }
        self.parsed = false;
        self.revision += 1;
        Ok(())
    }

    /// Applies a batch of changes in order (as in one `didChange`), then sets the version. On
    /// an error the changes before it stay applied, and the version is not changed.
    pub fn apply_changes<'a>(
        &mut self,
        changes: impl IntoIterator<Item = (Option<(Position, Position)>, &'a str)>,
        enc: Encoding,
        version: i32,
    ) -> Result<(), ChangeError> {
        for (range, text) in changes {
            self.apply_change(range, text, enc)?;
        }
        self.version = version;
        Ok(())
    }

    pub fn offset(&self, pos: Position, enc: Encoding) -> Option<usize> {
        self.index.offset(&self.text, pos, enc)
    }

    pub fn position(&self, offset: usize, enc: Encoding) -> Position {
        self.index.position(&self.text, offset, enc)
    }
}

/// The point reached from `start` after `text` (tree-sitter rows break at `\n` only; columns
/// are bytes).
fn advance(start: Point, text: &str) -> Point {
    match text.bytes().rposition(|b| b == b'\n') {
        Some(last) => {
            Point { row: start.row + text.bytes().filter(|&b| b == b'\n').count(), column: text.len() - last - 1 }
        }
        None => Point { row: start.row, column: start.column + text.len() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn simple_edit_matches_fresh_parse() {
        let mut doc = Document::new("int main() {\n  int x = 1;\n  return x;\n}\n", 1);
        doc.apply_change(Some((p(1, 10), p(1, 11))), "42", Encoding::Utf16).unwrap();
        assert_eq!(doc.text, "int main() {\n  int x = 42;\n  return x;\n}\n");
        assert_eq!(
            doc.tree().unwrap().root_node().to_sexp(),
            super::super::parse(&doc.text, None).root_node().to_sexp()
        );
        doc.apply_change(None, "int y;", Encoding::Utf16).unwrap();
        assert_eq!(doc.text, "int y;");
        assert_eq!(doc.index.line_count(), 1);
    }

    #[test]
    fn bad_ranges_leave_text_unchanged() {
        let mut doc = Document::new("ab\ncd\n", 1);
        let before = doc.text.clone();
        let e = doc.apply_change(Some((p(5, 0), p(5, 1))), "x", Encoding::Utf16).unwrap_err();
        assert!(e.message.contains("past the end"), "{}", e.message);
        let e = doc.apply_change(Some((p(1, 1), p(0, 1))), "x", Encoding::Utf16).unwrap_err();
        assert!(e.message.contains("before its start"), "{}", e.message);
        let e = doc.apply_change(Some((p(0, 0), p(3, 0))), "x", Encoding::Utf16).unwrap_err();
        assert!(e.message.contains("end"), "{}", e.message);
        assert_eq!(doc.text, before);
        // Past the end of a line clamps, as LSP says.
        doc.apply_change(Some((p(0, 9), p(0, 9))), "!", Encoding::Utf16).unwrap();
        assert_eq!(doc.text, "ab!\ncd\n");
    }

    #[test]
    fn multibyte_edit_in_utf16() {
        let mut doc = Document::new("char *s = \"😀é\"; int x;\n", 0);
        // Replace `é` (UTF-16 column 13: quote at 10, 😀 = 2 units).
        doc.apply_change(Some((p(0, 13), p(0, 14))), "e", Encoding::Utf16).unwrap();
        assert_eq!(doc.text, "char *s = \"😀e\"; int x;\n");
        assert_eq!(
            doc.tree().unwrap().root_node().to_sexp(),
            super::super::parse(&doc.text, None).root_node().to_sexp()
        );
    }

    /// Random edit sequences, applied incrementally, give the tree of a fresh parse, whether
    /// each edit is reparsed at once (even seeds) or several are recorded before one reparse
    /// (odd seeds, as the server does for a large file).
    #[test]
    fn random_edits_match_fresh_parse() {
        let pieces = [
            "",
            ";",
            "}",
            "{",
            "(",
            ")",
            "x",
            "1",
            "\n",
            "\r\n",
            "int y = 2;\n",
            "é",
            "😀",
            "if (",
            "else",
            " ",
            "/*",
            "*/",
            "\"",
        ];
        let base = "#include <stdio.h>\nint f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) {\n    if (i % 2) s += i; else s -= 1;\n  }\n  return s;\n}\nint main(void) {\n  int n;\n  scanf(\"%d\", &n);\n  printf(\"%d\\n\", f(n));\n}\n";
        for seed in 1..=40u64 {
            let mut rng = crate::rng::Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut doc = Document::new(base, 0);
            for _ in 0..30 {
                let enc = [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32][(rng.next_u64() % 3) as usize];
                let lines = doc.index.line_count() as u64;
                let l1 = (rng.next_u64() % lines) as u32;
                let l2 = (l1 + (rng.next_u64() % 3) as u32).min(lines as u32 - 1);
                let c1 = (rng.next_u64() % 20) as u32;
                let c2 = if l2 == l1 { c1 + (rng.next_u64() % 4) as u32 } else { (rng.next_u64() % 20) as u32 };
                let text = pieces[(rng.next_u64() % pieces.len() as u64) as usize];
                let (a, b) = (p(l1, c1), p(l2, c2));
                let sa = doc.offset(a, enc).unwrap();
                let sb = doc.offset(b, enc).unwrap();
                let mut expected = doc.text.clone();
                expected.replace_range(sa..sb.max(sa), text);
                if sb < sa {
                    continue;
                }
                if seed % 2 == 0 {
                    doc.apply_change(Some((a, b)), text, enc).unwrap();
                } else {
                    doc.edit(Some((a, b)), text, enc).unwrap();
                    assert!(doc.tree().is_none());
                    if rng.below(4) == 0 {
                        doc.reparse();
                    }
                }
                assert_eq!(doc.text, expected);
            }
            doc.reparse();
            let fresh = super::super::parse(&doc.text, None);
            assert_eq!(
                doc.tree().unwrap().root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "seed {seed}: {:?}",
                doc.text
            );
            assert_eq!(doc.index, LineIndex::new(&doc.text));
        }
    }

    /// A tree parsed off the document is installed only on the text it was parsed from.
    #[test]
    fn a_parse_of_an_older_text_is_not_installed() {
        let mut doc = Document::unparsed("int x;\n", 1);
        assert!(doc.tree().is_none());
        let (revision, text, old) = doc.parse_input();
        let tree = super::super::parse(&text, old.as_ref());
        doc.edit(Some((p(0, 4), p(0, 5))), "y", Encoding::Utf8).unwrap();
        assert!(!doc.install_tree(revision, tree));
        assert!(doc.tree().is_none());
        let (revision, text, old) = doc.parse_input();
        assert!(doc.install_tree(revision, super::super::parse(&text, old.as_ref())));
        assert!(doc.tree().unwrap().root_node().to_sexp().contains("identifier"));
    }
}
