//! The chosen alternatives as text edits on the student's program, with the change each makes.

use super::*;

impl<'j, 'p: 'j, 'ctx: 'j> Job<'j, 'p, 'ctx> {
    /// The text edit of one changed site, its new lines in the file's line breaks.
    pub(super) fn edit(&self, node: Node, site: ExprId, alt: &Alt, text: &str) -> Option<(Change, TextEdit)> {
        let (change, edit) = self.edit_in_lines(node, site, alt, text)?;
        let new_text = crate::ir::in_line_breaks_of(text, &edit.new_text);
        Some((change, TextEdit { new_text, ..edit }))
    }

    fn edit_in_lines(&self, node: Node, site: ExprId, alt: &Alt, text: &str) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let region = node_name(p, self.s.func, &self.s.tree, node, text);
        if let Some((g, v)) = self.extension(node)
            && (site == g.id || site == v.id)
        {
            // An inserted early return: both holes make one statement.
            if site != g.id {
                return None;
            }
            let guard = match alt {
                Alt::Expr(e) => expr_to_c(p, e),
                Alt::Bool(true) => "1".into(),
                _ => return None,
            };
            let value = match self.chosen.get(&v.id) {
                Some(Alt::Expr(e)) => expr_to_c(p, e),
                _ => "0".into(),
            };
            let at = g.span.start as usize;
            let indent = indentation_after(text, at);
            let new = format!("\n{indent}if ({guard})\n{indent}    return {value};");
            return Some((
                Change {
                    span: g.span,
                    old: String::new(),
                    new: format!("if ({guard}) return {value};"),
                    region,
                    words: None,
                },
                TextEdit { span: g.span, new_text: new },
            ));
        }
        if let Some(t) = self.tails.iter().find(|t| site == t.guard.id || site == t.value.id) {
            // An added assignment at the end of a loop body: guard and value make one statement.
            if site != t.guard.id {
                return None;
            }
            let value = match self.chosen.get(&t.value.id) {
                Some(Alt::Expr(e)) => expr_to_c(p, e),
                _ => return None,
            };
            let name = &p.var(t.var).name;
            let stmt = match alt {
                Alt::Bool(true) => format!("{name} = {value};"),
                Alt::Expr(g) => format!("if ({}) {name} = {value};", expr_to_c(p, g)),
                _ => return None,
            };
            let at = t.guard.span.start as usize;
            if t.before {
                // Just before the loop statement, on its own line with the loop's indentation.
                let indent = crate::ir::indentation(text, at);
                let insert = Span::new(at, at);
                let new_text = format!("{stmt}\n{indent}");
                return Some((
                    Change { span: insert, old: String::new(), new: stmt, region, words: None },
                    TextEdit { span: insert, new_text },
                ));
            }
            let indent = text[..at]
                .rsplit('\n')
                .nth(1)
                .map(|l| l[..l.len() - l.trim_start().len()].to_string())
                .unwrap_or_default();
            let line_start = text[..at].rfind('\n').map_or(at, |i| i + 1);
            let insert = Span::new(line_start, line_start);
            let body_indent =
                if text[line_start..at].trim().is_empty() { format!("{}    ", &text[line_start..at]) } else { indent };
            let new_text = format!("{body_indent}{stmt}\n");
            return Some((
                Change { span: insert, old: String::new(), new: stmt, region, words: None },
                TextEdit { span: insert, new_text },
            ));
        }
        if let Some(end) = self.ending.filter(|e| site == e.guard.id || site == e.print.id) {
            // An added print before the last `return`: guard and print make one statement.
            if site != end.guard.id {
                return None;
            }
            let print = match self.chosen.get(&end.print.id) {
                Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
                _ => return None,
            };
            let stmt = match alt {
                Alt::Bool(true) => print,
                Alt::Expr(g) => format!("if ({}) {print}", expr_to_c(p, g)),
                _ => return None,
            };
            let at = end.before.span.start as usize;
            let indent = crate::ir::indentation(text, at);
            let insert = Span::new(at, at);
            let new_text = format!("{}\n{indent}", stmt.replace(") printf", &format!(")\n{indent}    printf")));
            return Some((
                Change { span: insert, old: String::new(), new: stmt, region, words: None },
                TextEdit { span: insert, new_text },
            ));
        }
        if let Some(gp) = self.guarding.iter().find(|g| site == g.guard.id || site == g.print.id || site == g.call.id) {
            return self.guarded_print_edit(gp, site, alt, text, region);
        }
        if let Some(p) = self.arena.prints.values().find(|p| site == p.id) {
            let Alt::Expr(call) = alt else { return None };
            let stmt = format!("{};", expr_to_c(self.s.program, call));
            let at = p.span.start as usize;
            let indent = indentation_after(text, at);
            let new_text = format!("\n{indent}{stmt}");
            return Some((
                Change { span: p.span, old: String::new(), new: stmt.clone(), region, words: None },
                TextEdit { span: p.span, new_text },
            ));
        }
        self.plain_edit(site, alt, text, region)
    }

    /// The edit of a site of the student's code: its expression or statement replaced.
    pub(super) fn plain_edit(&self, site: ExprId, alt: &Alt, text: &str, region: String) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let (info, _) = self.sites.get(&site)?;
        let e = info.expr;
        let (span, new) = match (alt, info.kind) {
            (Alt::Bool(b), SiteKind::Cond | SiteKind::Atom) => {
                (e.span, if *b { "1".to_string() } else { "0".to_string() })
            }
            (Alt::Keep, _) => (info.stmt?.span, String::new()),
            // `s += y` whose new value is `s + z`: only `y` changes (C reads `s op= z` as
            // `s = s op (z)`, and `s` is a variable).
            (Alt::Expr(x), SiteKind::Update(v)) if let Some((rhs, z)) = same_compound(e, x, v) => {
                (rhs.span, expr_to_c(p, z))
            }
            (Alt::Expr(x), SiteKind::Update(v)) if is_self_update(e) => {
                (e.span, format!("{} = {}", p.var(v).name, expr_to_c(p, x)))
            }
            // Another format over the same values: only the format changes.
            (Alt::Expr(x), SiteKind::PrintCall) if let Some((old, new)) = format_change(p, e, x) => {
                (old.span, expr_to_c(p, new))
            }
            (Alt::Expr(x), _) => (e.span, expr_to_c(p, x)),
            _ => return None,
        };
        // What is shown as replaced: a deleted statement by its expression, else the text
        // the edit replaces.
        let old_text = text.get(if matches!(alt, Alt::Keep) { e.span } else { span }.range())?.to_string();
        // A condition's span includes the statement's parentheses: keep them.
        let wrapped = span == e.span && crate::ir::is_parenthesized(&old_text) && !new.is_empty();
        let new_text = if wrapped {
            format!("({new})")
        } else if new.is_empty()
            && let Some(empty) = empty_statement(text, span.start as usize)
        {
            // A deleted statement that is the whole body of an `if`, `else` or loop, or follows a
            // label: an empty statement keeps the program C.
            empty.to_string()
        } else {
            new.clone()
        };
        let shown = if wrapped { old_text[1..old_text.len() - 1].trim().to_string() } else { old_text };
        // A deleted statement that may simply go takes its line with it when alone on it.
        let edited =
            if matches!(alt, Alt::Keep) && new_text.is_empty() { crate::ir::deletion_span(text, span) } else { span };
        Some((Change { span, old: shown, new, region, words: None }, TextEdit { span: edited, new_text }))
    }

    /// The edit of a print statement `Extend` made conditional: the guard's change writes
    /// the whole `if (guard) print; else call;` (with the call as chosen); the print's and the
    /// call's own changes are part of it. A call whose guard stays false is edited alone.
    pub(super) fn guarded_print_edit(
        &self,
        gp: &region::GuardedPrint<'j>,
        site: ExprId,
        alt: &Alt,
        text: &str,
        region: String,
    ) -> Option<(Change, TextEdit)> {
        let p = self.s.program;
        let guard_alt = self.chosen.get(&gp.guard.id).unwrap_or(&Alt::Original);
        let (info, _) = self.sites.get(&gp.call.id)?;
        let stmt = info.stmt?;
        if site == gp.call.id {
            return match guard_alt {
                Alt::Original | Alt::Bool(false) => self.plain_edit(site, alt, text, region),
                _ => None,
            };
        }
        if site != gp.guard.id {
            return None;
        }
        let guard = match alt {
            Alt::Expr(e) => expr_to_c(p, e),
            Alt::Bool(true) => "1".into(),
            _ => return None,
        };
        let print = match self.chosen.get(&gp.print.id) {
            Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
            _ => ";".into(),
        };
        let old = text.get(stmt.span.range())?.to_string();
        let otherwise = match self.chosen.get(&gp.call.id) {
            Some(Alt::Expr(call)) => format!("{};", expr_to_c(p, call)),
            Some(Alt::Keep) => "{ }".into(),
            _ => old.clone(),
        };
        let indent = crate::ir::indentation(text, stmt.span.start as usize);
        let new_text = format!("if ({guard})\n{indent}    {print}\n{indent}else\n{indent}    {otherwise}");
        let new = format!("if ({guard}) {print} else {otherwise}");
        Some((Change { span: stmt.span, old, new, region, words: None }, TextEdit { span: stmt.span, new_text }))
    }
}

/// The empty statement that replaces a deleted one starting at `at` where the grammar needs
/// one: after a label `;`, after an `if (...)`/loop header, `else` or `do` an empty block,
/// which gcc's `-Wempty-body` (in `-Wextra`) accepts where it rejects `if (x) ;`.
pub(super) fn empty_statement(text: &str, at: usize) -> Option<&'static str> {
    let before = text[..at.min(text.len())].trim_end();
    let word_end = |w: &str| {
        before.ends_with(w) && !before[..before.len() - w.len()].ends_with(|c: char| c.is_alphanumeric() || c == '_')
    };
    if before.ends_with(')') || word_end("else") || word_end("do") {
        Some("{ }")
    } else if before.ends_with(':') {
        Some(";")
    } else {
        None
    }
}

/// The indentation for a line inserted after the statement that ends at `at`: that of the
/// next line, unless the next line closes a block (the statement was its last; the `}` is
/// one level out), then that of the line `at` is on.
pub(super) fn indentation_after(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let of = |l: &str| l[..l.len() - l.trim_start().len()].to_string();
    match text[at..].lines().skip(1).find(|l| !l.trim().is_empty()) {
        Some(next) if !next.trim_start().starts_with('}') => of(next),
        Some(_) => of(&text[text[..at].rfind('\n').map_or(0, |i| i + 1)..]),
        None => "    ".into(),
    }
}

/// For a site `v op= y` and a new value `v op z` (same operator, `v` itself on the left):
/// `y` and `z`.
fn same_compound<'e>(site: &'e Expr, value: &'e Expr, v: VarId) -> Option<(&'e Expr, &'e Expr)> {
    let ExprKind::CompoundAssign { op, lhs, rhs, .. } = &site.kind else { return None };
    let ExprKind::Binary(op2, left, z) = &value.strip_implicit().kind else { return None };
    let is_v = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Var(w) if w == v);
    (op == op2 && is_v(lhs) && is_v(left)).then_some((&**rhs, &**z))
}

#[cfg(test)]
mod tests {
    use super::empty_statement;

    #[test]
    fn a_deleted_body_is_an_empty_block_a_deleted_labelled_statement_a_semicolon() {
        let at = |text: &str| empty_statement(text, text.len());
        // gcc -Wextra rejects `if (x) ;`, `else ;` and `do ;`, not `{ }`.
        assert_eq!(at("if (n % i == 0) "), Some("{ }"));
        assert_eq!(at("while (i < n)\n    "), Some("{ }"));
        assert_eq!(at("else "), Some("{ }"));
        assert_eq!(at("do "), Some("{ }"));
        assert_eq!(at("case 1: "), Some(";"));
        // Not a statement the grammar needs: the deletion leaves nothing.
        assert_eq!(at("x = 1; "), None);
        assert_eq!(at("{ "), None);
        assert_eq!(at("int undo "), None);
    }
}
