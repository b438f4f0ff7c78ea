//! The last analyses' behaviour results, reused after an edit that changes no token: a space,
//! a tab, indentation typed or deleted inside a line. The program is the same, so is what the
//! tests, the engines and the proofs say of it; only byte offsets move, and the line of every
//! token stays (it is part of the key), so messages that name a line stay true.
//!
//! The key is every leaf of the syntax tree (its kind, its text, its line) with everything
//! else the analysis depends on: the file's path, the spec in force (mend.toml, the
//! reference's text, the tests' names, sizes and times) and the options. A report is reused
//! only when every offset in it maps onto the new text: an offset in a token, or at the edge
//! of a gap between tokens, moves with that token; an offset inside a gap whose spacing
//! changed makes the report unusable (analysed again). Reports cut short by the budget or a
//! cancellation are never stored.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Mutex;

use tree_sitter::Tree;

use crate::ir::Span;

use super::Report;

/// Reports kept (the oldest dropped first): one per file a student has open, a few versions.
const CAPACITY: usize = 16;

/// What a report was computed from.
pub(super) struct Key {
    hash: u64,
    /// Each token's byte range, in order.
    tokens: Vec<(u32, u32)>,
}

struct Entry {
    hash: u64,
    tokens: Vec<(u32, u32)>,
    text: String,
    report: Report,
}

static KEPT: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());

impl Key {
    /// The key of `text` (parsed as `tree`) analysed with `context` (the path, spec and
    /// options, as [`context`] hashes them).
    pub fn new(tree: &Tree, text: &str, context: u64) -> Key {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        context.hash(&mut h);
        let mut tokens = Vec::new();
        let mut cursor = tree.walk();
        'walk: loop {
            let node = cursor.node();
            if node.child_count() == 0 {
                let (start, end) = (node.start_byte(), node.end_byte());
                (node.kind_id(), &text.as_bytes()[start..end], node.start_position().row).hash(&mut h);
                tokens.push((start as u32, end as u32));
            }
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            loop {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        Key { hash: h.finish(), tokens }
    }

    /// A kept report of a text with the same tokens, its offsets moved onto `text`.
    pub fn reuse(&self, text: &str) -> Option<Report> {
        let kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let entry = kept.iter().find(|e| e.hash == self.hash && e.tokens.len() == self.tokens.len())?;
        let map = Offsets { old: &entry.tokens, new: &self.tokens, old_text: &entry.text, new_text: text };
        map.report(&entry.report)
    }

    /// Keeps `report` (the behaviour analysis of `text`, complete) for a later edit.
    pub fn keep(self, text: &str, report: &Report) {
        if report.stats.timed_out || report.stats.cancelled {
            return;
        }
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|e| e.hash != self.hash);
        kept.push_back(Entry { hash: self.hash, tokens: self.tokens, text: text.to_string(), report: report.clone() });
        if kept.len() > CAPACITY {
            kept.pop_front();
        }
    }
}

/// The hash of what an analysis depends on besides the text: the file's path, the options and
/// the spec in force (their debug forms, as resolved for this analysis) and the files the spec
/// names (contents of the reference; names, sizes and modification times of the tests).
pub(super) fn context(path: Option<&Path>, options: &str, spec: &str, spec_files: &[&Path]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    options.hash(&mut h);
    spec.hash(&mut h);
    for f in spec_files {
        f.hash(&mut h);
        if f.is_file() {
            std::fs::read(f).ok().hash(&mut h);
        } else if let Ok(entries) = std::fs::read_dir(f) {
            let mut seen: Vec<_> = entries
                .flatten()
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    Some((e.path(), m.len(), m.modified().ok()))
                })
                .collect();
            seen.sort();
            seen.hash(&mut h);
        }
    }
    h.finish()
}

/// Offsets of the kept text onto the new one, token by token.
struct Offsets<'a> {
    old: &'a [(u32, u32)],
    new: &'a [(u32, u32)],
    old_text: &'a str,
    new_text: &'a str,
}

impl Offsets<'_> {
    /// `offset` of the old text in the new one; `None` inside a gap whose spacing changed.
    fn offset(&self, offset: u32) -> Option<u32> {
        // The first token that ends at or after the offset.
        let i = self.old.partition_point(|&(_, end)| end < offset);
        if let Some(&(start, _)) = self.old.get(i)
            && start <= offset
        {
            return Some(self.new[i].0 + (offset - start));
        }
        // In the gap before token `i` (after token `i - 1`).
        let gap_start = |t: &[(u32, u32)]| if i == 0 { 0 } else { t[i - 1].1 };
        let gap_end = |t: &[(u32, u32)], len: usize| t.get(i).map_or(len as u32, |&(s, _)| s);
        let (os, oe) = (gap_start(self.old), gap_end(self.old, self.old_text.len()));
        let (ns, ne) = (gap_start(self.new), gap_end(self.new, self.new_text.len()));
        if self.old_text.get(os as usize..oe as usize) == self.new_text.get(ns as usize..ne as usize) {
            Some(ns + (offset - os))
        } else {
            None
        }
    }

    fn span(&self, span: Span) -> Option<Span> {
        Some(Span { start: self.offset(span.start)?, end: self.offset(span.end)? })
    }

    fn report(&self, old: &Report) -> Option<Report> {
        let mut out = old.clone();
        for d in &mut out.diagnostics {
            d.span = self.span(d.span)?;
            for r in &mut d.related {
                r.span = self.span(r.span)?;
            }
        }
        for r in &mut out.repairs {
            for e in &mut r.edits {
                e.span = self.span(e.span)?;
            }
            for p in &mut r.places {
                p.span = self.span(p.span)?;
            }
            for f in &mut r.fixes {
                *f = self.span(*f)?;
            }
            r.reached.clear();
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Diagnostic, Guarantee, Repair, TextEdit};

    fn key(text: &str) -> Key {
        Key::new(&crate::syntax::parse(text, None), text, 7)
    }

    #[test]
    fn a_space_typed_in_a_line_moves_the_offsets_after_it() {
        let old = "int main(void) {\n    int n = 1;\n    return n;\n}\n";
        let new = "int main(void) {\n    int n =  1;\n    return n;\n}\n";
        let at = |t: &str, s: &str| t.find(s).unwrap();
        let (a, b) = (key(old), key(new));
        assert_eq!(a.hash, b.hash, "the same tokens on the same lines");
        let span = Span::new(at(old, "return n"), at(old, "return n") + 8);
        let report = Report {
            diagnostics: vec![Diagnostic::warning("test-failed", span, "m")],
            repairs: vec![Repair {
                title: String::new(),
                engine: "mutation",
                guarantee: Guarantee::Tested { tests: 1 },
                edits: vec![TextEdit { span: Span::new(at(old, "1;"), at(old, "1;") + 1), new_text: "2".into() }],
                places: Vec::new(),
                explanation: String::new(),
                details: String::new(),
                fixes: vec![span],
                reached: Vec::new(),
            }],
            ..Report::default()
        };
        a.keep(old, &report);
        let moved = b.reuse(new).expect("reused");
        assert_eq!(&new[moved.diagnostics[0].span.range()], "return n");
        assert_eq!(&new[moved.repairs[0].edits[0].span.range()], "1");
        // A token changed: another key.
        assert_ne!(key("int main(void) {\n    int n = 2;\n    return n;\n}\n").hash, b.hash);
        // A line added before: another key (messages name lines).
        assert_ne!(key("\nint main(void) {\n    int n = 1;\n    return n;\n}\n").hash, b.hash);
    }

    #[test]
    fn an_offset_in_a_changed_gap_is_not_guessed() {
        let old = "int x;\nint main(void) {  return x; }\n";
        let new = "int x;\nint main(void) {   return x; }\n";
        let (a, b) = (key(old), key(new));
        // A span that starts inside the gap that changed (between the two spaces after `{`).
        let inside = old.find('{').unwrap() + 2;
        let report = Report {
            diagnostics: vec![Diagnostic::warning("x", Span::new(inside, inside + 6), "m")],
            ..Report::default()
        };
        a.keep(old, &report);
        assert!(b.reuse(new).is_none());
    }
}
