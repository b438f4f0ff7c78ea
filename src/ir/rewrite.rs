//! A text rewritten by a few edits, and the way back: offsets and spans of the rewritten text
//! mapped onto the original, and edits of the rewritten text composed with the rewrite's own
//! into one patch of the original. The verified engine analyses a retyped or extended student
//! program this way; the check layer analyses a file with a missing `int` or a type error
//! fixed first.

use super::{Span, TextEdit, apply_edits};

#[derive(Clone, Debug)]
pub struct Rewrite {
    /// The rewrite's edits of the original text: non-overlapping, sorted by position.
    pub edits: Vec<TextEdit>,
    /// The original text with `edits` applied.
    pub text: String,
}

impl Rewrite {
    pub fn new(original: &str, mut edits: Vec<TextEdit>) -> Rewrite {
        edits.sort_by_key(|e| (e.span.start, e.span.end));
        let text = apply_edits(original, &edits);
        Rewrite { edits, text }
    }

    /// The original offset of offset `at` of the rewritten text; `None` strictly inside an
    /// edit's new text (its ends map to the ends of the replaced span).
    pub fn original_offset(&self, at: u32) -> Option<u32> {
        let mut shift: i64 = 0;
        for e in &self.edits {
            let new_start = (e.span.start as i64 + shift) as u32;
            let new_end = new_start + e.new_text.len() as u32;
            if at <= new_start {
                break;
            }
            if at < new_end {
                return None;
            }
            if at == new_end {
                return Some(e.span.end);
            }
            shift += e.new_text.len() as i64 - e.span.len() as i64;
        }
        Some((at as i64 - shift) as u32)
    }

    /// A span of the rewritten text on the original: an end inside an edit's new text goes to
    /// the edge of the span that edit replaced (the start to its start, the end to its end), so
    /// a diagnostic on rewritten text still points at what the student wrote there.
    pub fn span_back(&self, span: Span) -> Span {
        let start = self.original_offset(span.start).unwrap_or_else(|| self.covering(span.start).span.start);
        let end = self.original_offset(span.end).unwrap_or_else(|| self.covering(span.end).span.end);
        Span { start, end: end.max(start) }
    }

    /// The edit whose new text holds offset `at` of the rewritten text (strictly inside).
    fn covering(&self, at: u32) -> &TextEdit {
        let mut shift: i64 = 0;
        for e in &self.edits {
            let new_start = (e.span.start as i64 + shift) as u32;
            if at > new_start && at < new_start + e.new_text.len() as u32 {
                return e;
            }
            shift += e.new_text.len() as i64 - e.span.len() as i64;
        }
        unreachable!("offset {at} is not inside a rewrite's edit")
    }

    /// `edits` of the rewritten text composed with the rewrite's own: the patch of `original`
    /// that gives the same final text. An edit that touches one of the rewrite's is merged
    /// with it; every other edit keeps its own bytes.
    pub fn compose(&self, original: &str, edits: &[TextEdit]) -> Vec<TextEdit> {
        let finished = apply_edits(&self.text, edits);
        // Every edit as a region of the original: the rewrite's (layer 0) and the given ones
        // mapped back (layer 1), each with how much it changes its text's length.
        let delta = |e: &TextEdit| e.new_text.len() as i64 - e.span.len() as i64;
        let mut items: Vec<(Span, usize, i64)> = self.edits.iter().map(|e| (e.span, 0, delta(e))).collect();
        items.extend(edits.iter().map(|e| (self.span_back(e.span), 1, delta(e))));
        items.sort_by_key(|(s, layer, _)| (s.start, s.end, *layer));
        // Regions that share a byte, or meet where one is an insertion, are one change.
        let mut regions: Vec<(Span, [i64; 2])> = Vec::new();
        for (span, layer, d) in items {
            match regions.last_mut() {
                Some((last, deltas))
                    if span.start < last.end || (span.start == last.end && (span.is_empty() || last.is_empty())) =>
                {
                    last.end = last.end.max(span.end);
                    deltas[layer] += d;
                }
                _ => {
                    let mut deltas = [0, 0];
                    deltas[layer] = d;
                    regions.push((span, deltas));
                }
            }
        }
        // Outside the regions the three texts agree: a region's image in the final text lies
        // between its ends shifted by every change before it (and, for the end, its own).
        let mut before = 0i64;
        let mut out = Vec::with_capacity(regions.len());
        for (span, [d0, d1]) in regions {
            let start = (span.start as i64 + before) as usize;
            before += d0 + d1;
            let end = (span.end as i64 + before) as usize;
            let new_text = finished[start..end].to_string();
            if original[span.range()] != new_text {
                out.push(TextEdit { span, new_text });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, text: &str) -> TextEdit {
        TextEdit { span: Span::new(start, end), new_text: text.into() }
    }

    #[test]
    fn offsets_and_spans_map_back() {
        let original = "main() { return x; }";
        let r = Rewrite::new(original, vec![edit(0, 0, "int ")]);
        assert_eq!(r.text, "int main() { return x; }");
        assert_eq!(r.original_offset(4), Some(0));
        assert_eq!(r.original_offset(2), None);
        assert_eq!(r.span_back(Span::new(4, 8)), Span::new(0, 4));
        // A span over the inserted `int` covers the point it was inserted at.
        assert_eq!(r.span_back(Span::new(0, 8)), Span::new(0, 4));
        assert_eq!(r.span_back(Span::new(1, 3)), Span::new(0, 0));
    }

    #[test]
    fn edits_compose_with_the_rewrite() {
        let original = "main() { scanf(\"%d\", n); return n < 1; }";
        let amp = original.find("n)").unwrap();
        let r = Rewrite::new(original, vec![edit(0, 0, "int "), edit(amp, amp, "&")]);
        let lt = r.text.find("< 1").unwrap();
        // Apart from the rewrite's edits: three edits of the original.
        let composed = r.compose(original, &[edit(lt, lt + 1, "<=")]);
        assert_eq!(apply_edits(original, &composed), "int main() { scanf(\"%d\", &n); return n <= 1; }");
        assert_eq!(composed.len(), 3, "{composed:?}");
        // Touching the rewrite's `&`: merged into one edit.
        let amp_new = r.text.find("&n").unwrap();
        let composed = r.compose(original, &[edit(amp_new, amp_new + 2, "&m")]);
        assert_eq!(apply_edits(original, &composed), "int main() { scanf(\"%d\", &m); return n < 1; }");
        assert_eq!(composed.len(), 2, "{composed:?}");
        // No edits: the rewrite itself.
        assert_eq!(r.compose(original, &[]), r.edits);
    }
}
