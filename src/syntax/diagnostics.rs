//! Syntax diagnostics from tree-sitter ERROR and MISSING nodes, in words a student understands,
//! with a quick fix (guarantee `syntax`: it only makes the file parse) where the missing token
//! is clear.
//!
//! Only subtrees with `has_error()` are walked, so a file without errors costs one check of the
//! root (plus a text scan for stray `else`s, which tree-sitter-c accepts as a type name).
//!
//! One problem gives one diagnostic: an ERROR node is explained as a whole (never descended
//! into), at most one diagnostic is kept per line, and code left outside any function by an
//! early `}` is reported once, on that `}`.
//!
//! C89 leftovers parse with errors in tree-sitter-c but are valid C89 and are not reported:
//! K&R parameter declarations (`main(argc, argv) int argc; char *argv[]; {…}`) and implicit-`int`
//! functions (`swap(int *x, int *y) {…}`, `main() {…}`).

use crate::ir::repair::{Guarantee, Repair, TextEdit};
use crate::ir::{Diagnostic, Span};
use tree_sitter::{Node, Tree};

pub const CODE: &str = "syntax";

/// Diagnostics (severity error, code `syntax`) and the repairs that insert missing tokens.
/// Sorted by position.
pub fn syntax_diagnostics(tree: &Tree, src: &str) -> (Vec<Diagnostic>, Vec<Repair>) {
    let mut cx = Cx { src, diags: Vec::new(), repairs: Vec::new(), suppressed: Vec::new() };
    let root = tree.root_node();
    if root.has_error() {
        cx.top_level(root);
        // tree-sitter may make the root itself an ERROR: explain it as a whole if its parts
        // did not explain anything.
        if root.is_error() && cx.diags.is_empty() {
            cx.error(root);
        }
    }
    cx.stray_else(root);
    cx.return_typos(root);
    cx.misplaced_assignments(root);
    let Cx { mut diags, mut repairs, suppressed, .. } = cx;
    // Drop what an earlier explanation already covers (a cascade), keeping that explanation.
    diags.retain(|d| !suppressed.iter().any(|(r, owner)| r.contains(&(d.span.start as usize)) && d.span != *owner));
    // One diagnostic per line: the first problem on a line explains the rest of it.
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(diags.len());
    for d in diags {
        let line = line_of(src, d.span.start as usize);
        if kept.last().is_some_and(|k| line_of(src, k.span.start as usize) == line) {
            continue;
        }
        kept.push(d);
    }
    repairs.retain(|r| kept.iter().any(|d| d.span == r.primary()));
    repairs.sort_by_key(|r| (r.primary().start, r.primary().end));
    (kept, repairs)
}

struct Cx<'s> {
    src: &'s str,
    diags: Vec<Diagnostic>,
    repairs: Vec<Repair>,
    /// Byte ranges already explained (no further diagnostic starts inside them).
    suppressed: Vec<(std::ops::Range<usize>, Span)>,
}

impl<'s> Cx<'s> {
    fn text(&self, n: Node) -> &'s str {
        &self.src[n.byte_range()]
    }

    fn report(&mut self, span: Span, message: String) -> Span {
        self.diags.push(Diagnostic::error(CODE, span, message));
        span
    }

    fn repair(&mut self, fixes: Span, title: String, edits: Vec<TextEdit>, explanation: String) {
        self.repairs.push(Repair {
            reached: Vec::new(),
            title,
            engine: CODE,
            guarantee: Guarantee::Syntax,
            edits,
            explanation,
            places: Vec::new(),
            details: String::new(),
            fixes: vec![fixes],
        });
    }

    fn insert(&mut self, fixes: Span, at: usize, token: &str) {
        self.repair(
            fixes,
            format!("Insert `{}`", token.trim()),
            vec![TextEdit { span: Span::new(at, at), new_text: token.to_string() }],
            format!("Inserts the missing `{}` so that the file parses.", token.trim()),
        );
    }

    // ---- the top level: old-style functions and code left outside any function ----

    fn top_level(&mut self, root: Node<'s>) {
        let mut cursor = root.walk();
        let items: Vec<Node<'s>> = root.children(&mut cursor).collect();
        // Items that are the header of an old-style (K&R / implicit int) function.
        let mut header = vec![false; items.len()];
        for (i, item) in items.iter().enumerate() {
            if item.kind() == "compound_statement"
                && let Some(first) = self.old_style_header(&items, i)
            {
                for h in header.iter_mut().take(i).skip(first) {
                    *h = true;
                }
            }
        }
        let mut last_function: Option<Node<'s>> = None;
        let mut i = 0;
        while i < items.len() {
            let item = items[i];
            if header[i] {
                i += 1;
                continue;
            }
            let is_body = i > 0 && header[i - 1] && item.kind() == "compound_statement";
            if is_body || is_top_level_item(item) {
                if item.kind() == "function_definition" || is_body {
                    last_function = Some(item);
                }
                self.visit(item);
                i += 1;
                continue;
            }
            // A statement (or a stray `}`) outside any function: the function before it was
            // closed early by a `}` too many.
            if let Some(func) = last_function {
                let mut j = i;
                while j < items.len() && !header[j] && !is_top_level_item(items[j]) {
                    j += 1;
                }
                let tail = items[i].start_byte()..items[j - 1].end_byte();
                if items[i..j].iter().all(|n| n.is_error() && self.text(*n).trim() == "}") {
                    // Only stray `}`s after the function: report them where they are.
                    for n in &items[i..j] {
                        self.visit(*n);
                    }
                    i = j;
                    continue;
                }
                if let Some(close) = func
                    .child(func.child_count().saturating_sub(1))
                    .and_then(|b| if b.kind() == "}" { Some(b) } else { b.child(b.child_count().saturating_sub(1)) })
                    .filter(|c| c.kind() == "}" && !c.is_missing())
                {
                    let name = function_name(func, self.src)
                        .map(|n| format!("`{n}`"))
                        .unwrap_or_else(|| "the function".into());
                    let span = node_span(close);
                    self.suppressed.push((tail.clone(), span));
                    self.report(
                        span,
                        format!("unexpected `}}`: it closes {name} here, so the code after it is outside any function (is there an extra `}}`?)"),
                    );
                    i = j;
                    continue;
                }
            }
            self.visit(item);
            i += 1;
        }
    }

    /// If `items[body]` (a top-level `{…}`) is the body of an old-style function whose header is
    /// `items[first..body]`, returns `first`.
    fn old_style_header(&self, items: &[Node<'s>], body: usize) -> Option<usize> {
        let mut first = body;
        while first > 0 && matches!(items[first - 1].kind(), "declaration" | "ERROR" | "expression_statement") {
            first -= 1;
        }
        (first..body)
            .find(|&f| f < body && is_old_style_header(&self.src[items[f].start_byte()..items[body].start_byte()]))
    }

    // ---- the walk ----

    fn visit(&mut self, node: Node<'s>) {
        if !node.has_error() {
            return;
        }
        let start = node.start_byte();
        let explained = self
            .suppressed
            .iter()
            .any(|(r, _)| r.contains(&start) && (node.end_byte() <= r.end || node.is_error() || node.is_missing()));
        if explained {
            return;
        }
        if node.is_error() {
            self.error(node);
            return;
        }
        if node.is_missing() {
            self.missing(node);
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for child in children {
            self.visit(child);
        }
    }

    fn missing(&mut self, m: Node<'s>) {
        let kind = m.kind();
        let prev = prev_leaf(m);
        let at = m.start_byte();
        let span = prev.map(node_span).unwrap_or(Span::new(at, at));
        match kind {
            ";" => {
                let parent = m.parent();
                // `whlie (n > 0) {`: a misspelt keyword read as a call.
                if let Some(callee) = parent
                    .and_then(|p| p.named_child(0))
                    .filter(|c| c.kind() == "call_expression")
                    .and_then(|c| c.child_by_field_name("function"))
                    .filter(|f| f.kind() == "identifier")
                {
                    let word = self.text(callee);
                    if let Some(kw) =
                        ["while", "switch", "return", "sizeof"].into_iter().find(|k| *k != word && close_typo(word, k))
                    {
                        let span =
                            self.report(node_span(callee), format!("unknown word `{word}`: did you mean `{kw}`?"));
                        self.repair(
                            span,
                            format!("Replace `{word}` with `{kw}`"),
                            vec![TextEdit { span, new_text: kw.to_string() }],
                            format!("`{word}` looks like a misspelling of `{kw}`."),
                        );
                        return;
                    }
                }
                // `else (a > b) {`: a condition after `else` means `else if`.
                if let Some(stmt) =
                    parent.filter(|p| p.named_child(0).is_some_and(|c| c.kind() == "parenthesized_expression"))
                    && self.else_with_condition(stmt, at)
                {
                    return;
                }
                let stmt = parent.map(|p| shorten(&self.src[p.start_byte()..at])).unwrap_or_default();
                let msg =
                    if stmt.is_empty() { "missing `;`".to_string() } else { format!("missing `;` after `{stmt}`") };
                let span = self.report(span, msg);
                self.insert(span, at, ";");
            }
            "}" => self.missing_brace(m),
            ")" | "]" => {
                let open = if kind == ")" { "(" } else { "[" };
                let opener = m.parent().and_then(|p| {
                    let mut c = p.walk();

                    p.children(&mut c).find(|ch| ch.kind() == open)
                });
                let span = self.report(span, format!("missing `{kind}`"));
                if let (Some(o), Some(d)) = (opener, self.diags.last_mut()) {
                    d.related.push(crate::ir::Related {
                        span: node_span(o),
                        message: format!("this `{open}` is never closed"),
                    });
                }
                self.insert(span, at, kind);
            }
            _ if m.is_named() => {
                let after = prev.map(|p| self.text(p)).unwrap_or("");
                let what = match kind {
                    "identifier" | "number_literal" | "string_literal" | "expression" => "a value",
                    "type_identifier" | "primitive_type" => "a type",
                    "field_identifier" => "a field name",
                    _ => "something",
                };
                let msg = if after.is_empty() {
                    format!("missing {what}")
                } else {
                    format!("missing {what} after `{after}`")
                };
                self.report(span, msg);
            }
            _ => {
                let span = self.report(span, format!("missing `{kind}`"));
                let token =
                    if kind.chars().all(|c| c.is_ascii_alphabetic()) { format!(" {kind}") } else { kind.to_string() };
                self.insert(span, at, &token);
            }
        }
    }

    /// A `{` is never closed: tree-sitter puts the missing `}` at the end of the outermost open
    /// block; indentation tells which `{` the student forgot to close (a block whose `}` is
    /// indented less than the line of its `{` took the `}` of an enclosing block).
    fn missing_brace(&mut self, m: Node<'s>) {
        let Some(block) = m.parent() else { return };
        let mut culprit: Option<(Node<'s>, Node<'s>)> = None; // (block, its `}`)
        // Statements in document order (children pushed in reverse); everything after the
        // best candidate's `}` is skipped, since only an earlier `}` could replace it.
        let mut stack = vec![block];
        while let Some(n) = stack.pop() {
            if culprit.is_some_and(|(_, c)| n.start_byte() > c.start_byte()) {
                continue;
            }
            if n.kind() == "compound_statement"
                && n.id() != block.id()
                && let Some(close) = n.child(n.child_count() - 1).filter(|c| c.kind() == "}" && !c.is_missing())
            {
                let open_indent = indent_of_line(self.src, n.start_byte());
                let close_line_start = line_start(self.src, close.start_byte());
                let starts_line = self.src[close_line_start..close.start_byte()].trim().is_empty();
                if starts_line
                    && close.start_byte() - close_line_start < open_indent
                    && culprit.is_none_or(|(_, c)| close.start_byte() < c.start_byte())
                {
                    culprit = Some((n, close));
                }
            }
            let mut c = n.walk();
            let children: Vec<Node<'s>> =
                n.children(&mut c).filter(|ch| ch.child_count() > 0 && is_block_holder(ch.kind())).collect();
            stack.extend(children.into_iter().rev());
        }
        match culprit {
            Some((open_block, close)) => {
                let brace = open_block.child(0).unwrap_or(open_block);
                let span = self.report(node_span(brace), "this `{` is never closed".into());
                let indent = &self.src[line_start(self.src, open_block.start_byte())..]
                    [..indent_of_line(self.src, open_block.start_byte())];
                let at = line_start(self.src, close.start_byte());
                let indent = indent.to_string();
                self.insert(span, at, &format!("{indent}}}\n"));
            }
            None => {
                let brace = block.child(0).unwrap_or(block);
                let span = self.report(node_span(brace), "this `{` is never closed".into());
                let at = m.start_byte();
                let token = if block.kind() != "compound_statement" {
                    "}"
                } else if self.src[..at].ends_with('\n') || at == 0 {
                    "}\n"
                } else {
                    "\n}"
                };
                self.insert(span, at, token);
            }
        }
    }

    fn error(&mut self, e: Node<'s>) {
        let Some(first) = first_leaf(e) else {
            // An empty ERROR: something unexpected at this point.
            let at = e.start_byte();
            self.report(Span::new(at, at), "unexpected text".into());
            return;
        };
        let first_text = self.text(first);
        let text = self.text(e);
        let next = next_leaf(e);
        // `}` with nothing to close.
        if text.trim() == "}" {
            self.report(node_span(e), "unexpected `}`: there is no `{` for it to close".into());
            return;
        }
        if text.trim() == ")" || text.trim() == "]" {
            let open = if text.trim() == ")" { "(" } else { "[" };
            self.report(node_span(e), format!("unexpected `{}`: it has no matching `{open}`", text.trim()));
            return;
        }
        if first_text == "else" {
            self.report_else(first);
            return;
        }
        if text.starts_with("/*") && !text.contains("*/") {
            let end = line_end(self.src, e.start_byte());
            self.report(
                Span::new(e.start_byte(), end),
                "this comment is never closed: add `*/` where it should end".into(),
            );
            return;
        }
        if matches!(first_text, "if" | "while" | "for" | "switch") && self.unclosed_header(first) {
            return;
        }
        if let Some(()) = self.unclosed_string(e) {
            return;
        }
        if self.struct_without_semicolon(e) || self.condition_split(e, first_text) || self.header_missing_paren(e) {
            return;
        }
        if matches!(first_text, "if" | "while" | "switch") && self.condition_without_parens(e, first) {
            return;
        }
        if first_text == "for" && self.for_with_commas(e, first) {
            return;
        }
        if self.keyword_typo(e) {
            return;
        }
        // A lone operator with nothing after it: `2 * ;`.
        if e.named_child_count() == 0
            && e.child_count() == 1
            && is_operator(text)
            && next.is_none_or(|n| matches!(n.kind(), ";" | ")" | "]" | ","))
        {
            self.report(node_span(e), format!("missing a value after `{text}`"));
            return;
        }
        if self.missing_semicolon_at_line_end(e) {
            return;
        }
        if first_text == "(" && self.else_with_condition(e, e.end_byte()) {
            return;
        }
        let shown = if text.len() <= 20 && !text.contains('\n') { text } else { first_text };
        self.report(node_span(if shown == text { e } else { first }), format!("unexpected `{}`", shorten(shown)));
    }

    /// `struct point { … }` followed by another declaration without the `;` after `}`.
    fn struct_without_semicolon(&mut self, e: Node<'s>) -> bool {
        let Some(prev) = e.prev_sibling() else { return false };
        if !matches!(prev.kind(), "struct_specifier" | "union_specifier" | "enum_specifier")
            || prev.child_by_field_name("body").is_none()
        {
            return false;
        }
        let what = shorten(self.src[prev.byte_range()].split('{').next().unwrap_or("").trim());
        let close = last_leaf(prev);
        let span = self.report(node_span(close), format!("missing `;` after the `}}` of `{what}`"));
        self.insert(span, close.end_byte(), ";");
        self.suppressed.push((e.start_byte()..e.parent().map_or(e.end_byte(), |p| p.end_byte()), span));
        true
    }

    /// `if (x > 2) && (x < 5) {`: the condition continues after its parentheses.
    fn condition_split(&mut self, e: Node<'s>, first_text: &str) -> bool {
        let Some(stmt) = e.parent().filter(|p| matches!(p.kind(), "if_statement" | "while_statement")) else {
            return false;
        };
        let Some(cond) = stmt.child_by_field_name("condition") else { return false };
        if cond.end_byte() > e.start_byte() || (!is_operator(first_text) && !matches!(first_text, "&&" | "||")) {
            return false;
        }
        let kw = if stmt.kind() == "if_statement" { "if" } else { "while" };
        let span = self.report(
            Span::new(cond.start_byte(), e.end_byte()),
            format!("the whole condition of `{kw}` goes inside one pair of parentheses"),
        );
        self.repair(
            span,
            "Put the whole condition in `(…)`".into(),
            vec![
                TextEdit { span: Span::new(cond.start_byte(), cond.start_byte()), new_text: "(".into() },
                TextEdit { span: Span::new(e.end_byte(), e.end_byte()), new_text: ")".into() },
            ],
            format!("`{kw} (a) && (b)` ends the condition after `(a)`; write `{kw} ((a) && (b))`."),
        );
        true
    }

    /// `int main( {`: a line opening more `(` than it closes, then a block.
    fn header_missing_paren(&mut self, e: Node<'s>) -> bool {
        let le = line_end(self.src, e.start_byte());
        let line = &self.src[e.start_byte()..le];
        let code = line.split("//").next().unwrap_or(line).trim_end();
        let Some(head) = code.strip_suffix('{') else { return false };
        if balance(head) <= 0 || unclosed_quote(head).is_some() {
            return false;
        }
        let at = e.start_byte() + head.trim_end().len();
        let span = self.report(Span::new(e.start_byte(), at), "missing `)` before `{`".into());
        self.insert(span, at, ")");
        true
    }

    /// A string literal that runs to the end of its line.
    fn unclosed_string(&mut self, e: Node<'s>) -> Option<()> {
        let start_line = line_start(self.src, e.start_byte());
        let end = line_end(self.src, e.end_byte());
        let mut at = start_line;
        while at < end {
            let le = line_end(self.src, at);
            let line = &self.src[at..le];
            if !line.trim_start().starts_with('#')
                && let Some(q) = unclosed_quote(line)
            {
                let quote = at + q;
                // Only when the error is about this line.
                if le >= e.start_byte() {
                    let trimmed = line.trim_end();
                    let tail = trimmed.len() - trimmed.trim_end_matches([';', ')', ' ']).len();
                    let insert_at = at + trimmed.len() - tail;
                    let span = self.report(
                        Span::new(quote, at + trimmed.len()),
                        "this string is never closed: add the closing `\"`".into(),
                    );
                    self.insert(span, insert_at, "\"");
                    return Some(());
                }
            }
            at = le + 1;
        }
        None
    }

    /// `if x > 0 {` / `while x < 10) {`
    fn condition_without_parens(&mut self, e: Node<'s>, kw: Node<'s>) -> bool {
        let kw_text = self.text(kw);
        let after = kw.end_byte();
        let le = line_end(self.src, after);
        let rest = &self.src[after..le];
        if rest.trim_start().starts_with('(') && balance(rest) <= 0 {
            return false;
        }
        let cond_end = rest.find('{').unwrap_or(rest.trim_end().len());
        let cond = &rest[..cond_end];
        let lead = cond.len() - cond.trim_start().len();
        let cstart = after + lead;
        let cend = after + cond.trim_end().len();
        if cend <= cstart {
            return false;
        }
        let cond_text = &self.src[cstart..cend];
        let _ = e;
        let span = self.report(
            Span::new(kw.start_byte(), cend),
            format!("missing `(` after `{kw_text}`: the condition goes in parentheses"),
        );
        let mut edits = vec![TextEdit { span: Span::new(cstart, cstart), new_text: "(".into() }];
        if balance(cond_text) >= 0 {
            edits.push(TextEdit { span: Span::new(cend, cend), new_text: ")".into() });
        }
        let title =
            if edits.len() == 2 { "Put the condition in `(…)`".to_string() } else { "Insert `(`".to_string() };
        self.repair(
            span,
            title,
            edits,
            format!("`{kw_text}` needs its condition in parentheses: `{kw_text} (condition)`."),
        );
        true
    }

    /// `for (i = 0, i < n, i++)`
    fn for_with_commas(&mut self, e: Node<'s>, kw: Node<'s>) -> bool {
        let rest = &self.src[kw.end_byte()..];
        let Some(open) = rest.find('(').filter(|&o| rest[..o].trim().is_empty()) else { return false };
        let base = kw.end_byte() + open + 1;
        let mut depth = 0i32;
        let mut commas = Vec::new();
        let mut semis = 0;
        let mut close = None;
        for (i, c) in self.src[base..].char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' if depth == 0 => {
                    close = Some(base + i);
                    break;
                }
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => commas.push(base + i),
                ';' if depth == 0 => semis += 1,
                '\n' if depth == 0 && semis + commas.len() > 3 => break,
                _ => {}
            }
        }
        let Some(close) = close else { return false };
        if semis == 2 {
            return false;
        }
        let _ = e;
        let span = self.report(
            Span::new(kw.start_byte(), close + 1),
            "the parts of a `for` are separated by `;`: `for (start; condition; step)`".into(),
        );
        if semis == 0 && commas.len() == 2 {
            let edits = commas.iter().map(|&c| TextEdit { span: Span::new(c, c + 1), new_text: ";".into() }).collect();
            self.repair(
                span,
                "Replace `,` with `;` in the `for`".into(),
                edits,
                "A `for` header has three parts separated by `;`.".into(),
            );
        }
        true
    }

    /// `retrun x * x;`: a misspelt keyword read as a type name.
    fn keyword_typo(&mut self, e: Node<'s>) -> bool {
        let mut n = Some(e);
        let mut candidate = None;
        // The error sits in a declaration whose "type" is a misspelt keyword …
        while let Some(p) = n {
            if p.kind() == "declaration" {
                candidate = p.child_by_field_name("type");
                break;
            }
            if matches!(p.kind(), "compound_statement" | "translation_unit" | "function_definition") {
                break;
            }
            n = p.parent();
        }
        // … or starts with one.
        let candidate = candidate
            .or_else(|| first_leaf(e).filter(|l| matches!(l.kind(), "identifier" | "type_identifier")))
            // … or comes right after one (`retunr 0;`).
            .or_else(|| e.prev_sibling().filter(|p| matches!(p.kind(), "identifier" | "type_identifier")));
        let Some(word) = candidate.filter(|c| matches!(c.kind(), "type_identifier" | "identifier")) else {
            return false;
        };
        let text = self.text(word);
        const KEYWORDS: &[&str] = &[
            "return", "while", "break", "continue", "else", "switch", "case", "default", "double", "float", "unsigned",
            "struct", "printf", "scanf",
        ];
        let Some(kw) = KEYWORDS.iter().find(|k| **k != text && close_typo(text, k)) else { return false };
        let span = self.report(node_span(word), format!("unknown word `{text}`: did you mean `{kw}`?"));
        self.repair(
            span,
            format!("Replace `{text}` with `{kw}`"),
            vec![TextEdit { span, new_text: kw.to_string() }],
            format!("`{text}` looks like a misspelling of `{kw}`."),
        );
        true
    }

    /// An ERROR that ends a line whose statement was not ended by `;` (`x = 1⏎ printf(…)`):
    /// checked by parsing the enclosing top-level item with a `;` inserted.
    fn missing_semicolon_at_line_end(&mut self, e: Node<'s>) -> bool {
        let item = top_level_item(e);
        let (mut item_start, mut item_end) = (item.start_byte(), item.end_byte());
        // A large item (a `{` too many swallows the rest of the file): try the fix on a window
        // of lines around the error instead (tree-sitter-c accepts statements at top level).
        if item_end - item_start > 4000 {
            let mut s = line_start(self.src, e.start_byte());
            for _ in 0..3 {
                if s == 0 {
                    break;
                }
                s = line_start(self.src, s - 1);
            }
            let mut t = line_end(self.src, e.end_byte());
            for _ in 0..3 {
                if t >= self.src.len() {
                    break;
                }
                t = line_end(self.src, t + 1);
            }
            item_start = s.max(item_start);
            item_end = t.min(item_end);
        }
        let mut at = e.start_byte();
        let mut before: Option<usize> = None;
        let mut tries = 0;
        // Line ends within the error, or right after it (the first few candidates only).
        while at <= e.end_byte() && tries < 3 {
            let le = line_end(self.src, at);
            if le >= self.src.len() {
                break;
            }
            let line = &self.src[line_start(self.src, at)..le];
            let code = line.split("//").next().unwrap_or(line).trim_end();
            let end = line_start(self.src, at) + code.len();
            let last = code.chars().last();
            if end >= e.start_byte()
                && !code.trim_start().starts_with('#')
                && last.is_some_and(|c| c.is_alphanumeric() || matches!(c, ')' | ']' | '"' | '\'' | '_' | '+' | '-'))
                && end >= item_start
                && end <= item_end
            {
                tries += 1;
                let before = *before
                    .get_or_insert_with(|| count_errors(&crate::syntax::parse(&self.src[item_start..item_end], None)));
                let mut fixed = String::with_capacity(item_end - item_start + 1);
                fixed.push_str(&self.src[item_start..end]);
                fixed.push(';');
                fixed.push_str(&self.src[end..item_end]);
                let fixed_tree = crate::syntax::parse(&fixed, None);
                let after = count_errors(&fixed_tree);
                if after < before {
                    // The rest of the cascade is explained by this `;`: all of the item when
                    // the fixed item parses, else up to the end of the next line.
                    let upto = if after == 0 { item_end } else { line_end(self.src, (le + 1).min(self.src.len())) };
                    let suppress = e.start_byte()..upto.max(e.end_byte());
                    let stmt_start = line_start(self.src, end) + (code.len() - code.trim_start().len());
                    let stmt = shorten(&self.src[stmt_start..end]);
                    let word_start = self.src[..end]
                        .char_indices()
                        .rev()
                        .take_while(|(_, c)| !c.is_whitespace())
                        .last()
                        .map_or(end, |(i, _)| i)
                        .max(stmt_start);
                    let span = self.report(Span::new(word_start, end), format!("missing `;` after `{stmt}`"));
                    self.suppressed.push((suppress, span));
                    self.insert(span, end, ";");
                    return true;
                }
            }
            at = le + 1;
        }
        false
    }

    /// `retrun x;` parses as a declaration of `x` with the type `retrun`: a line starting with
    /// a misspelt `return` read as a type name. (A text scan of line starts, so files without
    /// such a line cost no tree walk.)
    fn return_typos(&mut self, root: Node<'s>) {
        let mut at = 0;
        let mut top = TopLevel::new(root);
        for line in self.src.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let trimmed = line.trim_start();
            let word_len = trimmed.bytes().take_while(|b| b.is_ascii_lowercase()).count();
            if !(4..=8).contains(&word_len) || !trimmed[word_len..].starts_with([' ', '\t']) {
                continue;
            }
            let word = &trimmed[..word_len];
            // Cheap filter before the edit distance: mostly the letters of `return`.
            let near = word.bytes().filter(|b| b"retun".contains(b)).count();
            if near + 2 < word_len.max(6) {
                continue;
            }
            if word == "return" || !close_typo(word, "return") || C_WORDS.contains(&word) {
                continue;
            }
            let w = start + (line.len() - trimmed.len());
            let Some(n) = top.descendant(w, w + word_len) else { continue };
            if n.kind() != "type_identifier" || n.byte_range() != (w..w + word_len) {
                continue;
            }
            if n.parent().is_none_or(|p| p.kind() != "declaration") {
                continue;
            }
            let span = node_span(n);
            if self.diags.iter().any(|d| d.span == span) {
                continue;
            }
            self.report(span, format!("unknown word `{word}`: did you mean `return`?"));
            self.repair(
                span,
                format!("Replace `{word}` with `return`"),
                vec![TextEdit { span, new_text: "return".into() }],
                format!("`{word}` looks like a misspelling of `return`."),
            );
        }
    }

    /// `else (a > b) {`: the condition `cond` (up to `end`) right after an `else` and before a
    /// `{` means `else if`; reported with that fix.
    fn else_with_condition(&mut self, cond: Node, end: usize) -> bool {
        let Some(keyword) = prev_leaf(cond).filter(|k| k.kind() == "else") else { return false };
        if !self.src[end..].trim_start().starts_with('{') {
            return false;
        }
        let shown = shorten(self.src[cond.start_byte()..end].trim());
        let span = self.report(
            node_span(keyword),
            format!("`else` takes no condition: for `else {shown}` write `else if {shown}`"),
        );
        let at = keyword.end_byte();
        self.repair(
            span,
            "Write `else if`".into(),
            vec![TextEdit { span: Span::new(at, at), new_text: " if".into() }],
            "A condition after `else` belongs to an `else if`.".into(),
        );
        true
    }

    fn report_else(&mut self, n: Node<'s>) {
        let mut msg = "unexpected `else` without `if`".to_string();
        // Inside the `{…}` of an `if`: that block was not closed before the `else`.
        let mut up = n.parent();
        while let Some(p) = up {
            if p.kind() == "compound_statement" {
                break;
            }
            up = p.parent();
        }
        if let Some(block) = up.filter(|b| b.parent().is_some_and(|p| p.kind() == "if_statement")) {
            msg = "unexpected `else`: the `{` of the `if` before it is not closed yet (missing `}`?)".into();
            let span = node_span(n);
            self.suppressed.push((n.start_byte()..block.end_byte(), span));
            self.report(span, msg);
            return;
        }
        if preceded_by_braceless_if(n) {
            msg.push_str(": an `if` without `{…}` controls only the one statement after it, so this `else` is not attached to it");
        }
        self.report(node_span(n), msg);
    }

    /// `for (i = 0; i < 3; i++` / `if (x > 0 {` on one line: a `)` is missing.
    fn unclosed_header(&mut self, kw: Node<'s>) -> bool {
        let le = line_end(self.src, kw.end_byte());
        let rest = &self.src[kw.end_byte()..le];
        if !rest.trim_start().starts_with('(') || balance(rest) <= 0 {
            return false;
        }
        let code = rest.split("//").next().unwrap_or(rest);
        let code = code.trim_end();
        let code = code.strip_suffix('{').map(str::trim_end).unwrap_or(code);
        let at = kw.end_byte() + code.len();
        let kw_text = self.text(kw);
        let span =
            self.report(Span::new(kw.start_byte(), at), format!("missing `)` at the end of the `{kw_text}` header"));
        self.insert(span, at, ")");
        true
    }

    /// tree-sitter-c reads a stray `else` as a type or variable name, without an error node.
    /// `if (n % m = 0)`, `a == 0 && b = 0`, `!x = y`: C parses an `=` after an operator that
    /// binds tighter as an assignment to everything before it (`(n % m) = 0`), which is a
    /// value, not a variable, and gcc rejects it ("lvalue required"). tree-sitter instead
    /// accepts it as an assignment to the last operand (`n % (m = 0)`), so the front end would
    /// see a valid program. Every assignment that is an operand of a tighter operator is that
    /// mistake; the student nearly always meant `==` (for `=`), which is the fix offered.
    fn misplaced_assignments(&mut self, root: Node<'s>) {
        let bytes = self.src.as_bytes();
        let mut top = TopLevel::new(root);
        for (i, _) in self.src.match_indices('=') {
            // An assignment operator ends at this `=` (`=`, `+=`, `<<=`): not `==`, `<=`, ...
            let next_is_eq = bytes.get(i + 1) == Some(&b'=');
            let prev = if i > 0 { bytes[i - 1] } else { b' ' };
            if next_is_eq || prev == b'=' || prev == b'!' {
                continue;
            }
            let Some(op) = top.descendant(i, i + 1) else { continue };
            let Some(assignment) = op.parent().filter(|p| p.kind() == "assignment_expression") else { continue };
            if assignment.child_by_field_name("operator") != Some(op) {
                continue;
            }
            let Some(holder) = assignment.parent() else { continue };
            let operand_of_tighter = match holder.kind() {
                "binary_expression" | "unary_expression" | "pointer_expression" | "cast_expression"
                | "update_expression" | "sizeof_expression" => true,
                // `c ? x : y = 1`: the condition and the last operand bind tighter than `=`.
                "conditional_expression" => holder.child_by_field_name("consequence") != Some(assignment),
                _ => false,
            };
            if !operand_of_tighter || self.diags.iter().any(|d| d.span.contains(i)) {
                continue;
            }
            let target = {
                let left_end = assignment.child_by_field_name("left").map_or(i, |l| l.end_byte());
                let start = match holder.child_by_field_name("left") {
                    Some(l) if holder.kind() == "binary_expression" => l.start_byte(),
                    _ => holder.start_byte(),
                };
                self.src[start..left_end].trim().to_string()
            };
            let value = assignment.child_by_field_name("right").map_or("", |r| self.text(r)).to_string();
            let op_text = self.text(op).to_string();
            let span = node_span(op);
            if op_text == "=" {
                self.report(
                    span,
                    format!(
                        "`{target} = {value}` tries to store `{value}` in `{target}`, which is a value, not a variable: to compare them, write `==`"
                    ),
                );
                self.repair(
                    span,
                    "Replace `=` with `==`".into(),
                    vec![TextEdit { span, new_text: "==".into() }],
                    format!("Compares `{target}` with `{value}` instead of assigning to it."),
                );
            } else {
                self.report(
                    span,
                    format!("`{op_text}` needs a variable on its left, but `{target}` is a value: add parentheses around the assignment"),
                );
            }
        }
    }

    fn stray_else(&mut self, root: Node<'s>) {
        let bytes = self.src.as_bytes();
        // Offsets only increase: walk the top-level items once alongside them, so a lookup
        // searches one item instead of all of them.
        let mut top = TopLevel::new(root);
        for (i, _) in self.src.match_indices("else") {
            let before_ok = i == 0 || !is_ident_byte(bytes[i - 1]);
            let after_ok = bytes.get(i + 4).is_none_or(|&b| !is_ident_byte(b));
            if !(before_ok && after_ok) {
                continue;
            }
            let Some(n) = top.descendant(i, i + 4) else { continue };
            if matches!(n.kind(), "type_identifier" | "identifier") && n.byte_range() == (i..i + 4) {
                if self.suppressed.iter().any(|(r, _)| r.contains(&i)) {
                    continue;
                }
                self.report_else(n);
            }
        }
    }
}

/// Finds the smallest node spanning a byte range, for increasing ranges, by stepping through
/// the top-level items once.
struct TopLevel<'t> {
    root: Node<'t>,
    cursor: tree_sitter::TreeCursor<'t>,
    started: bool,
    done: bool,
}

impl<'t> TopLevel<'t> {
    fn new(root: Node<'t>) -> Self {
        TopLevel { root, cursor: root.walk(), started: false, done: false }
    }

    fn descendant(&mut self, start: usize, end: usize) -> Option<Node<'t>> {
        if !self.started {
            self.started = true;
            self.done = !self.cursor.goto_first_child();
        }
        while !self.done && self.cursor.node().end_byte() < end {
            self.done = !self.cursor.goto_next_sibling();
        }
        if self.done || self.cursor.node().start_byte() > start {
            return self.root.descendant_for_byte_range(start, end);
        }
        self.cursor.node().descendant_for_byte_range(start, end)
    }
}

/// C words that are close to `return` but are not typos of it.
const C_WORDS: &[&str] = &["extern", "struct", "short", "retval", "result", "reset", "rerun"];

fn is_block_holder(kind: &str) -> bool {
    matches!(
        kind,
        "compound_statement"
            | "if_statement"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "do_statement"
            | "switch_statement"
            | "case_statement"
            | "labeled_statement"
            | "function_definition"
            | "ERROR"
    )
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn preceded_by_braceless_if(n: Node) -> bool {
    let mut stmt = n;
    while let Some(p) = stmt.parent() {
        if p.kind() == "compound_statement" {
            break;
        }
        stmt = p;
    }
    let mut prev = stmt.prev_named_sibling();
    for _ in 0..3 {
        match prev {
            Some(p) if p.kind() == "if_statement" => return true,
            Some(p) => prev = p.prev_named_sibling(),
            None => return false,
        }
    }
    false
}

/// Items that may legitimately appear at the top level.
fn is_top_level_item(n: Node) -> bool {
    matches!(
        n.kind(),
        "function_definition"
            | "declaration"
            | "type_definition"
            | "struct_specifier"
            | "union_specifier"
            | "enum_specifier"
            | "comment"
            | "linkage_specification"
            | ";"
    ) || n.kind().starts_with("preproc_")
}

fn function_name<'s>(func: Node, src: &'s str) -> Option<&'s str> {
    let mut d = func.child_by_field_name("declarator")?;
    loop {
        if d.kind() == "identifier" {
            return Some(&src[d.byte_range()]);
        }
        d = d.child_by_field_name("declarator")?;
    }
}

/// `[type words] [*]name(params) [decl; ...]` with nothing else (an old-style function header).
fn is_old_style_header(text: &str) -> bool {
    let t = text.trim();
    let Some(open) = t.find('(') else { return false };
    let Some(close) = t.rfind(')').filter(|&c| c > open) else { return false };
    // Parameters: no nested statements.
    if t[open + 1..close].contains([';', '{', '}']) {
        return false;
    }
    let before = t[..open].trim_end();
    let words: Vec<&str> = before.split(|c: char| c.is_whitespace() || c == '*').filter(|w| !w.is_empty()).collect();
    let Some(name) = words.last() else { return false };
    if !is_ident(name) || words.iter().any(|w| !is_ident(w)) || words.len() > 4 {
        return false;
    }
    // K&R declarations: `type names;` ...
    let decls = t[close + 1..].trim();
    if decls.is_empty() {
        return true;
    }
    decls.ends_with(';')
        && decls.split(';').filter(|d| !d.trim().is_empty()).all(|d| {
            d.chars().all(|c| c.is_alphanumeric() || c.is_whitespace() || matches!(c, '_' | '*' | ',' | '[' | ']'))
        })
}

fn is_ident(w: &str) -> bool {
    let mut cs = w.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn node_span(n: Node) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

fn line_of(src: &str, offset: usize) -> usize {
    src.as_bytes()[..offset.min(src.len())].iter().filter(|&&b| b == b'\n').count()
}

fn line_start(src: &str, offset: usize) -> usize {
    src[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(src: &str, offset: usize) -> usize {
    src[offset..].find('\n').map_or(src.len(), |i| offset + i)
}

/// Width of the indentation of the line containing `offset` (tabs count as 4... columns are
/// compared within one file, so counting bytes is enough).
fn indent_of_line(src: &str, offset: usize) -> usize {
    let s = line_start(src, offset);
    src[s..].bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

fn first_leaf(n: Node) -> Option<Node> {
    let mut n = n;
    loop {
        if n.child_count() == 0 {
            return if n.start_byte() == n.end_byte() && !n.is_missing() { None } else { Some(n) };
        }
        let mut c = n.walk();
        let first = n.children(&mut c).find(|ch| ch.kind() != "comment" && ch.end_byte() > ch.start_byte())?;
        n = first;
    }
}

fn last_leaf(n: Node) -> Node {
    let mut n = n;
    while n.child_count() > 0 {
        let mut c = n.walk();
        let children: Vec<Node> = n.children(&mut c).collect();
        match children.into_iter().rev().find(|ch| ch.kind() != "comment" && ch.end_byte() > ch.start_byte()) {
            Some(ch) => n = ch,
            None => break,
        }
    }
    n
}

/// The last real token before `n`.
fn prev_leaf(n: Node) -> Option<Node> {
    let mut cur = n;
    loop {
        let mut s = cur.prev_sibling();
        while let Some(sib) = s {
            if sib.kind() != "comment" && sib.end_byte() > sib.start_byte() {
                return Some(last_leaf(sib));
            }
            s = sib.prev_sibling();
        }
        cur = cur.parent()?;
    }
}

fn next_leaf(n: Node) -> Option<Node> {
    let mut cur = n;
    loop {
        let mut s = cur.next_sibling();
        while let Some(sib) = s {
            if sib.kind() != "comment" && sib.end_byte() > sib.start_byte() {
                return first_leaf(sib).or(Some(sib));
            }
            s = sib.next_sibling();
        }
        cur = cur.parent()?;
    }
}

fn top_level_item(n: Node) -> Node {
    let mut n = n;
    while let Some(p) = n.parent() {
        if p.parent().is_none() {
            return n;
        }
        n = p;
    }
    n
}

/// ERROR and MISSING nodes in a tree (walking only subtrees with errors).
fn count_errors(tree: &Tree) -> usize {
    fn go(n: Node) -> usize {
        if !n.has_error() {
            return 0;
        }
        if n.is_error() || n.is_missing() {
            return 1;
        }
        let mut c = n.walk();
        n.children(&mut c).map(go).sum()
    }
    go(tree.root_node())
}

fn is_operator(t: &str) -> bool {
    matches!(
        t,
        "+" | "-"
            | "*"
            | "/"
            | "%"
            | "<"
            | ">"
            | "<="
            | ">="
            | "=="
            | "!="
            | "&&"
            | "||"
            | "&"
            | "|"
            | "^"
            | "<<"
            | ">>"
            | "="
            | "+="
            | "-="
            | "*="
            | "/="
    )
}

/// `(` minus `)` in `s`.
fn balance(s: &str) -> i32 {
    s.chars()
        .map(|c| match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        })
        .sum()
}

/// Byte offset of a `"` that opens a string not closed on this line (ignoring `'"'`).
fn unclosed_quote(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    let mut open: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'\\' if open.is_some() => i += 1,
            b'"' => open = if open.is_some() { None } else { Some(i) },
            b'\'' if open.is_none() => {
                // Skip a character literal.
                if let Some(end) = line[i + 1..].find('\'') {
                    i += end + 1;
                }
            }
            b'/' if open.is_none() && b.get(i + 1) == Some(&b'/') => break,
            _ => {}
        }
        i += 1;
    }
    open
}

/// Whether `word` is a plausible misspelling of `keyword` (edit distance 1, or a transposition,
/// or distance 2 for long words).
fn close_typo(word: &str, keyword: &str) -> bool {
    let a: Vec<char> = word.chars().collect();
    let b: Vec<char> = keyword.chars().collect();
    if a.len().abs_diff(b.len()) > 2 || a.len() < 3 {
        return false;
    }
    // Damerau-Levenshtein (optimal string alignment).
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    let dist = d[n][m];
    dist == 1 || (dist == 2 && m >= 6)
}

/// Collapses whitespace and keeps at most 30 characters.
fn shorten(s: &str) -> String {
    let collapsed: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= 30 {
        collapsed
    } else {
        let head: String = collapsed.chars().take(27).collect();
        format!("{}…", head.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags(src: &str) -> Vec<String> {
        let tree = crate::syntax::parse(src, None);
        let (d, _) = syntax_diagnostics(&tree, src);
        d.iter().map(|d| format!("{}..{}: {}", d.span.start, d.span.end, d.message)).collect()
    }

    #[test]
    fn clean_file_has_no_diagnostics() {
        assert!(diags("#include <stdio.h>\n#define N 10;\nint main(void) { int a[N]; return 0; }\n").is_empty());
    }

    #[test]
    fn old_style_functions_are_not_errors() {
        assert_eq!(diags("main() {\n  return 0;\n}\n"), Vec::<String>::new());
        assert_eq!(diags("foo(a) int a; { return a; }\n"), Vec::<String>::new());
        assert_eq!(diags("int x;\nswap(int *x, int *y) {\n  int t = *x; *x = *y; *y = t;\n}\n"), Vec::<String>::new());
        assert_eq!(diags("main(argc, argv)\nint argc;\nchar *argv[];\n{\n  return 0;\n}\n"), Vec::<String>::new());
    }

    #[test]
    fn missing_semicolon_names_the_statement() {
        let d = diags("int main() {\n  return 0\n}\n");
        assert_eq!(d, vec!["22..23: missing `;` after `return 0`"]);
    }

    #[test]
    fn typo_distance() {
        assert!(close_typo("retrun", "return"));
        assert!(close_typo("whlie", "while"));
        assert!(!close_typo("x", "return"));
        assert!(!close_typo("count", "continue"));
    }

    #[test]
    fn shorten_collapses() {
        assert_eq!(shorten("x  =\n 1"), "x = 1");
        assert_eq!(shorten(&"a".repeat(40)), format!("{}…", "a".repeat(27)));
    }
}

#[cfg(test)]
mod dump {
    /// `MEND_DUMP=file.c cargo test --lib syntax::diagnostics::dump -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn dump() {
        for f in std::env::var("MEND_DUMP").unwrap_or_default().split(',').filter(|f| !f.is_empty()) {
            let src = std::fs::read_to_string(f).unwrap();
            let tree = crate::syntax::parse(&src, None);
            println!("== {f}");
            print(tree.root_node(), &src, 0);
            let (d, r) = super::syntax_diagnostics(&tree, &src);
            for d in d {
                println!("DIAG {}..{} {}", d.span.start, d.span.end, d.message);
            }
            for r in r {
                println!("REPAIR {} {:?}", r.title, r.edits);
            }
        }
    }
    fn print(n: tree_sitter::Node, src: &str, depth: usize) {
        if !n.has_error() && depth > 1 && std::env::var("MEND_FULL").is_err() {
            return;
        }
        let text = &src[n.byte_range()];
        let short: String = text.chars().take(40).collect::<String>().replace('\n', "⏎");
        println!(
            "{}{}{} {}-{} {:?}",
            "  ".repeat(depth),
            if n.is_missing() { "MISSING " } else { "" },
            n.kind(),
            n.start_position(),
            n.end_position(),
            short
        );
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            print(ch, src, depth + 1);
        }
    }
}
