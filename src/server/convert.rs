//! Byte spans and mend's data ↔ LSP positions and types, in the negotiated encoding.

use tower_lsp_server::ls_types as lsp;

use crate::ir::Repair;
use crate::ir::{Diagnostic, Severity, Span};

use super::syntax_api::{Encoding, LineIndex, Position};

/// Text plus its line index: everything needed to turn byte offsets into positions.
#[derive(Clone, Copy)]
pub struct Lines<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub enc: Encoding,
}

impl Lines<'_> {
    pub fn position(&self, offset: u32) -> lsp::Position {
        let p = self.index.position(self.text, offset as usize, self.enc);
        lsp::Position { line: p.line, character: p.character }
    }

    pub fn range(&self, span: Span) -> lsp::Range {
        lsp::Range { start: self.position(span.start), end: self.position(span.end) }
    }

    /// Byte offset of an LSP position (`None` when the line does not exist).
    pub fn offset(&self, pos: lsp::Position) -> Option<usize> {
        self.index.offset(self.text, to_position(pos), self.enc)
    }

    pub fn diagnostic(&self, d: &Diagnostic, uri: &lsp::Uri) -> lsp::Diagnostic {
        let related = (!d.related.is_empty()).then(|| {
            d.related
                .iter()
                .map(|r| lsp::DiagnosticRelatedInformation {
                    location: lsp::Location { uri: uri.clone(), range: self.range(r.span) },
                    message: r.message.clone(),
                })
                .collect()
        });
        lsp::Diagnostic {
            range: self.range(d.span),
            severity: Some(severity(d.severity)),
            code: Some(lsp::NumberOrString::String(d.code.to_string())),
            source: Some("mend".into()),
            message: d.message.clone(),
            related_information: related,
            ..Default::default()
        }
    }

    pub fn text_edits(&self, repair: &Repair) -> Vec<lsp::TextEdit> {
        repair.edits.iter().map(|e| lsp::TextEdit { range: self.range(e.span), new_text: e.new_text.clone() }).collect()
    }
}

pub fn to_position(p: lsp::Position) -> Position {
    Position { line: p.line, character: p.character }
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

/// The LSP name of an encoding.
pub fn encoding_kind(enc: Encoding) -> lsp::PositionEncodingKind {
    match enc {
        Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        Encoding::Utf32 => lsp::PositionEncodingKind::UTF32,
    }
}

/// Picks the encoding from the client's `general.positionEncodings`: UTF-8 when offered (no
/// conversion), else the mandatory UTF-16.
pub fn negotiate(offered: Option<&[lsp::PositionEncodingKind]>) -> Encoding {
    match offered {
        Some(kinds) if kinds.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// Whether two ranges overlap or touch (a cursor at either end of a diagnostic counts).
pub fn touches(a: lsp::Range, b: lsp::Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_prefers_utf8() {
        use lsp::PositionEncodingKind as K;
        assert_eq!(negotiate(Some(&[K::UTF16, K::UTF8])), Encoding::Utf8);
        assert_eq!(negotiate(Some(&[K::UTF32, K::UTF16])), Encoding::Utf16);
        assert_eq!(negotiate(None), Encoding::Utf16);
    }

    #[test]
    fn ranges_in_each_encoding() {
        let text = "é😀x;\n";
        let index = LineIndex::new(text);
        let span = Span::new(text.find('x').unwrap(), text.find(';').unwrap());
        let r = |enc| Lines { text, index: &index, enc }.range(span);
        assert_eq!((r(Encoding::Utf8).start.character, r(Encoding::Utf8).end.character), (6, 7));
        assert_eq!((r(Encoding::Utf16).start.character, r(Encoding::Utf16).end.character), (3, 4));
        assert_eq!((r(Encoding::Utf32).start.character, r(Encoding::Utf32).end.character), (2, 3));
    }
}
