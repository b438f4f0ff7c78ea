//! Line/column ↔ byte-offset conversion in the three LSP position encodings.
//!
//! A [`LineIndex`] records where each line starts; it does not own the text, so every lookup
//! takes the text it was built from. Lines end at `\n`, `\r\n` or a lone `\r` (as LSP says).
//! Finding the line is a binary search (O(log lines)); the column is found by walking that
//! line's characters (O(line length)), with an ASCII fast path.

/// How the `character` of a [`Position`] counts: UTF-8 bytes, UTF-16 code units or code points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    Utf8,
    /// The LSP default.
    #[default]
    Utf16,
    Utf32,
}

impl Encoding {
    /// Code units of `c` in this encoding.
    #[inline]
    pub fn len_of(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// A zero-based line and a zero-based column counted in the units of an [`Encoding`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

impl Position {
    pub fn new(line: u32, character: u32) -> Position {
        Position { line, character }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset where each line starts; `line_starts[0] == 0`; always at least one line
    /// (the last line may be empty, after a final line break).
    line_starts: Vec<u32>,
    /// Byte length of the text the index was built from.
    len: u32,
    /// Whether some line ends in a `\r` not followed by `\n` (tree-sitter counts only `\n` as
    /// a row break, so row/column points need a slower path then).
    has_lone_cr: bool,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 32 + 1);
        line_starts.push(0u32);
        let mut has_lone_cr = false;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line_starts.push(i as u32 + 1),
                b'\r' => {
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    } else {
                        has_lone_cr = true;
                    }
                    line_starts.push(i as u32 + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex { line_starts, len: bytes.len() as u32, has_lone_cr }
    }

    /// Number of lines (a text ending in a line break has a final empty line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte length of the indexed text.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn has_lone_cr(&self) -> bool {
        self.has_lone_cr
    }

    /// Byte offset where `line` starts.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts.get(line as usize).map(|&s| s as usize)
    }

    /// Byte range of `line`'s content, without its line break.
    pub fn line_range(&self, text: &str, line: u32) -> Option<std::ops::Range<usize>> {
        let start = self.line_start(line)?;
        let end = match self.line_starts.get(line as usize + 1) {
            Some(&next) => {
                let next = next as usize;
                let b = text.as_bytes();
                if next >= 2 && b[next - 2] == b'\r' && b[next - 1] == b'\n' { next - 2 } else { next - 1 }
            }
            None => self.len as usize,
        };
        Some(start..end)
    }

    /// The line containing byte `offset` (offsets past the end count as the last line).
    pub fn line_of(&self, offset: usize) -> u32 {
        (self.line_starts.partition_point(|&s| (s as usize) <= offset) - 1) as u32
    }

    /// Byte offset of `pos`. `None` when the line does not exist; a character past the end of
    /// its line clamps to the line end, and one inside a multi-byte character (or between the
    /// halves of a surrogate pair) clamps to the character's start.
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> Option<usize> {
        debug_assert_eq!(text.len(), self.len as usize, "LineIndex used with another text");
        let range = self.line_range(text, pos.line)?;
        let line = &text[range.clone()];
        let want = pos.character as usize;
        if enc == Encoding::Utf8 || line.is_ascii() {
            let mut at = want.min(line.len());
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            return Some(range.start + at);
        }
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            let n = enc.len_of(c) as usize;
            if units + n > want {
                return Some(range.start + i);
            }
            units += n;
        }
        Some(range.end)
    }

    /// Position of byte `offset`. Offsets past the end clamp to the end of the text; an offset
    /// inside a character clamps to its start; one inside a line break to the line's end.
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        debug_assert_eq!(text.len(), self.len as usize, "LineIndex used with another text");
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let range = self.line_range(text, line).expect("line_of gives an existing line");
        let offset = offset.min(range.end);
        let prefix = &text[range.start..offset];
        let character = match enc {
            Encoding::Utf8 => prefix.len(),
            _ if prefix.is_ascii() => prefix.len(),
            Encoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
            Encoding::Utf32 => prefix.chars().count(),
        };
        Position { line, character: character as u32 }
    }

    /// tree-sitter's point for byte `offset`: row = number of `\n` before it, column in bytes.
    pub fn ts_point(&self, text: &str, offset: usize) -> tree_sitter::Point {
        if !self.has_lone_cr {
            let line = self.line_of(offset) as usize;
            let start = self.line_starts[line] as usize;
            return tree_sitter::Point { row: line, column: offset - start };
        }
        let before = &text.as_bytes()[..offset];
        let row = before.iter().filter(|&&b| b == b'\n').count();
        let col = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => offset - nl - 1,
            None => offset,
        };
        tree_sitter::Point { row, column: col }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Encoding::*;

    fn p(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    /// Every char boundary round-trips through every encoding.
    fn roundtrip(text: &str) {
        let idx = LineIndex::new(text);
        for enc in [Utf8, Utf16, Utf32] {
            for (off, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
                // Offsets inside a CRLF pair are not positions of their own.
                if off > 0 && text.as_bytes()[off - 1] == b'\r' && text.as_bytes().get(off) == Some(&b'\n') {
                    continue;
                }
                let pos = idx.position(text, off, enc);
                assert_eq!(idx.offset(text, pos, enc), Some(off), "{text:?} {off} {enc:?} {pos:?}");
            }
        }
    }

    #[test]
    fn ascii_lines() {
        let t = "int x;\nx = 1;\n";
        let idx = LineIndex::new(t);
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.offset(t, p(1, 0), Utf16), Some(7));
        assert_eq!(idx.offset(t, p(1, 3), Utf16), Some(10));
        assert_eq!(idx.position(t, 10, Utf16), p(1, 3));
        // Empty last line and end of text.
        assert_eq!(idx.offset(t, p(2, 0), Utf16), Some(t.len()));
        assert_eq!(idx.position(t, t.len(), Utf16), p(2, 0));
        assert_eq!(idx.offset(t, p(3, 0), Utf16), None);
        roundtrip(t);
    }

    #[test]
    fn clamps_past_line_end() {
        let t = "ab\ncd";
        let idx = LineIndex::new(t);
        assert_eq!(idx.offset(t, p(0, 99), Utf16), Some(2));
        assert_eq!(idx.offset(t, p(1, 99), Utf8), Some(5));
        assert_eq!(idx.position(t, 999, Utf16), p(1, 2));
    }

    #[test]
    fn empty_text() {
        let idx = LineIndex::new("");
        assert_eq!(idx.line_count(), 1);
        assert_eq!(idx.offset("", p(0, 0), Utf16), Some(0));
        assert_eq!(idx.offset("", p(0, 5), Utf32), Some(0));
        assert_eq!(idx.offset("", p(1, 0), Utf16), None);
        assert_eq!(idx.position("", 0, Utf8), p(0, 0));
    }

    #[test]
    fn crlf_and_lone_cr() {
        let t = "a\r\nbc\rd\n\r\n";
        let idx = LineIndex::new(t);
        assert_eq!(idx.line_count(), 5);
        assert!(idx.has_lone_cr());
        assert_eq!(idx.line_range(t, 0), Some(0..1));
        assert_eq!(idx.line_range(t, 1), Some(3..5));
        assert_eq!(idx.line_range(t, 2), Some(6..7));
        assert_eq!(idx.line_range(t, 3), Some(8..8));
        assert_eq!(idx.line_range(t, 4), Some(10..10));
        // A character past the end of a CRLF line clamps before the `\r`.
        assert_eq!(idx.offset(t, p(0, 5), Utf16), Some(1));
        // The offset between `\r` and `\n` is reported as the line end.
        assert_eq!(idx.position(t, 2, Utf16), p(0, 1));
        assert_eq!(idx.position(t, 3, Utf16), p(1, 0));
        assert_eq!(idx.position(t, 6, Utf16), p(2, 0));
        roundtrip(t);
        let crlf = "int main() {\r\n  return 0;\r\n}\r\n";
        let i2 = LineIndex::new(crlf);
        assert!(!i2.has_lone_cr());
        assert_eq!(i2.offset(crlf, p(1, 2), Utf16), Some(16));
        roundtrip(crlf);
    }

    #[test]
    fn multibyte() {
        // é = 2 bytes / 1 unit; € = 3 bytes / 1 unit; 😀 = 4 bytes / 2 UTF-16 units / 1 char.
        let t = "é€😀x\n😀";
        let idx = LineIndex::new(t);
        assert_eq!(idx.offset(t, p(0, 2), Utf16), Some(5)); // start of 😀
        assert_eq!(idx.offset(t, p(0, 4), Utf16), Some(9)); // x
        assert_eq!(idx.offset(t, p(0, 3), Utf32), Some(9)); // x
        assert_eq!(idx.offset(t, p(0, 9), Utf8), Some(9));
        assert_eq!(idx.position(t, 9, Utf16), p(0, 4));
        assert_eq!(idx.position(t, 9, Utf32), p(0, 3));
        assert_eq!(idx.position(t, 9, Utf8), p(0, 9));
        // Inside a surrogate pair clamps to the char's start.
        assert_eq!(idx.offset(t, p(0, 3), Utf16), Some(5));
        // Inside a multi-byte UTF-8 sequence clamps too.
        assert_eq!(idx.offset(t, p(0, 1), Utf8), Some(0));
        assert_eq!(idx.offset(t, p(0, 4), Utf8), Some(2));
        assert_eq!(idx.position(t, 1, Utf16), p(0, 0));
        assert_eq!(idx.position(t, 7, Utf8), p(0, 5));
        // Last line, no trailing newline.
        assert_eq!(idx.offset(t, p(1, 2), Utf16), Some(t.len()));
        assert_eq!(idx.offset(t, p(1, 1), Utf16), Some(11));
        assert_eq!(idx.position(t, t.len(), Utf16), p(1, 2));
        roundtrip(t);
    }

    #[test]
    fn ts_points_count_only_newlines() {
        let t = "a\rb\nc";
        let idx = LineIndex::new(t);
        assert_eq!(idx.ts_point(t, 2), tree_sitter::Point { row: 0, column: 2 });
        assert_eq!(idx.ts_point(t, 4), tree_sitter::Point { row: 1, column: 0 });
        let u = "ab\r\ncd";
        let iu = LineIndex::new(u);
        assert_eq!(iu.ts_point(u, 5), tree_sitter::Point { row: 1, column: 1 });
    }

    #[test]
    fn many_lines_binary_search() {
        let t: String = (0..1000).map(|i| format!("line {i} ü\n")).collect();
        let idx = LineIndex::new(&t);
        assert_eq!(idx.line_count(), 1001);
        let off = idx.offset(&t, p(500, 9), Utf16).unwrap();
        assert_eq!(&t[off..off + 2], "ü");
        assert_eq!(idx.position(&t, off, Utf16), p(500, 9));
        assert_eq!(idx.position(&t, off, Utf8), p(500, 9));
        assert_eq!(idx.position(&t, off + 2, Utf8), p(500, 11));
        assert_eq!(idx.position(&t, off + 2, Utf16), p(500, 10));
    }
}
