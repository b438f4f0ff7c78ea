//! Separators between the items a loop prints: the fencepost slip of printing one after every
//! item, the last included (`printf("%d ", i)` prints `1 2 3 ` where `1 2 3` is asked), or
//! before every item, the first included (`printf(" %d", i)`). Under a course that compares
//! the whole output, that trailing or leading space (tab, comma, ...) fails every test, and no
//! change of one expression removes it: the separator has to be printed only between items.
//!
//! For a print statement directly in a loop's body whose text starts or ends with separator
//! characters, the candidates are
//! - `printf(ITEM, args); if (NEXT) printf(SEP);`, where `NEXT` is the loop's condition as it
//!   will read on the next iteration (`i <= n` with step `i++` gives `i < n`): the separator
//!   after each item but the last;
//! - `if (LATER) printf(SEP); printf(ITEM, args);` for a `for` loop that starts its variable at
//!   a constant (`i = 1` counting up gives `i > 1`): the separator before each item but the
//!   first;
//!
//! and for a statement that prints nothing but separators (`printf(" ")`, `putchar(' ')`)
//! after or before the item, the same statement guarded by `NEXT` or `LATER`.
//!
//! The loop variable must change only in the step (the `for` header, or the last statement of
//! a `while` body) by a constant. Like every statement repair, a candidate is checked by running
//! the tests on its text; which of the two forms is right is theirs to say.

use crate::ir::print::{expr_to_c, string_literal};
use crate::ir::walk::{assigned_vars, mentions_var};
use crate::ir::*;

/// One separator candidate: the statement it rewrites, its edit and its description.
pub struct Separator<'a> {
    pub at: &'a Stmt,
    pub edit: TextEdit,
    pub description: String,
    /// The form: after each item but the last (`NEXT`), or before each but the first.
    pub after_each: bool,
}

/// The separator candidates of loop statement `lp` (a `for` or a `while`); `missing` are the
/// separators to try where the loop prints items with none (the reference's).
pub fn candidates<'a>(program: &Program, src: &str, lp: &'a Stmt, missing: &[Vec<u8>]) -> Vec<Separator<'a>> {
    let Some(shape) = LoopShape::of(program, src, lp) else { return Vec::new() };
    let prints: Vec<&Stmt> = match &shape.body.kind {
        StmtKind::Block(items) => items.iter().collect(),
        _ => vec![shape.body],
    };
    let braced = matches!(shape.body.kind, StmtKind::Block(_));
    // A loop that prints no separator at all may have forgotten it.
    let mut separated = false;
    crate::ir::walk::walk_stmt(shape.body, &mut |e| {
        separated |=
            Print::of(e).is_some_and(|p| p.item.is_empty() || !p.sep_before.is_empty() || !p.sep_after.is_empty());
    });
    let mut out = Vec::new();
    for s in prints {
        let wrap = |text: String| if braced { text } else { format!("{{ {text} }}") };
        let mut push = |new_text: String, sep: &[u8], after_each: bool| {
            let description = if separated {
                format!(
                    "print `{}` only between items, not {}",
                    string_literal(sep),
                    if after_each { "after the last" } else { "before the first" }
                )
            } else {
                format!("print `{}` between items", string_literal(sep))
            };
            let edit = insertion_if_kept(src, s.span, wrap(new_text));
            out.push(Separator { at: s, edit, description, after_each });
        };
        let stmt_text = &src[s.span.range()];
        if let StmtKind::Expr(e) = &s.kind
            && let Some(print) = Print::of(e)
            && print.item.is_empty()
        {
            // The statement prints only the separator: guard it.
            push(format!("if ({}) {stmt_text}", shape.next), &print.sep_after, true);
            if let Some(later) = &shape.later {
                push(format!("if ({later}) {stmt_text}"), &print.sep_after, false);
            }
            continue;
        }
        let indent = crate::ir::indentation(src, s.span.start as usize);
        let sequence = |first: &str, second: &str| {
            if braced { format!("{first}\n{indent}{second}") } else { format!("{first} {second}") }
        };
        let rewrites: Vec<(Vec<u8>, String)> = if separated {
            [false, true].into_iter().filter_map(|leading| without_separator(src, s, leading)).collect()
        } else if ends(s, false).is_some_and(|calls| {
            // An item printed on a line of its own has its separator.
            calls.iter().all(|c| Print::of(c).is_some_and(|p| !p.item.is_empty() && !p.item.contains(&b'\n')))
        }) {
            missing.iter().map(|sep| (sep.clone(), stmt_text.to_string())).collect()
        } else {
            Vec::new()
        };
        for (sep, stripped) in rewrites {
            let sep_call = format!("printf({});", string_literal(&sep));
            push(sequence(&stripped, &format!("if ({}) {sep_call}", shape.next)), &sep, true);
            if let Some(later) = &shape.later {
                push(sequence(&format!("if ({later}) {sep_call}"), &stripped), &sep, false);
            }
        }
    }
    out
}

/// The separators `reference` prints (`printf(" ")`, the `", "` of `printf("%d, ", x)`), each
/// once, at most [`MAX_MISSING`]: those a loop that prints none may have forgotten.
pub fn printed_separators(reference: &Program) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for body in reference.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            let Some(p) = Print::of(e) else { return };
            for sep in [p.sep_before, p.sep_after] {
                if !sep.is_empty() && !out.contains(&sep) && out.len() < MAX_MISSING {
                    out.push(sep);
                }
            }
        });
    }
    out
}

/// Separators of the reference tried where a loop prints none.
const MAX_MISSING: usize = 3;

/// The items of one line printed by several loops of a block, one after the other, each with
/// a separator after every item (`for (...) printf("%d ", j); for (...) printf("%d ", k);`):
/// the separator goes before every item but the line's first. The first such loop prints it
/// before each item but its first; the loops after it print it before each item. `None` when
/// fewer than two loops of `items` print items with the same trailing separator.
pub fn across_loops<'a>(program: &Program, src: &str, items: &'a [Stmt]) -> Option<Vec<Separator<'a>>> {
    // Each loop's one statement that prints an item and the separator after it.
    let mut printing: Vec<(LoopShape<'a>, &'a Stmt, Vec<u8>)> = Vec::new();
    for lp in items.iter().filter(|s| matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })) {
        let Some(shape) = LoopShape::of(program, src, lp) else { continue };
        let body: Vec<&'a Stmt> = match &shape.body.kind {
            StmtKind::Block(items) => items.iter().collect(),
            _ => vec![shape.body],
        };
        let seps: Vec<(&'a Stmt, Vec<u8>)> =
            body.into_iter().filter_map(|s| Some((s, without_separator(src, s, false)?.0))).collect();
        if let [(s, sep)] = seps.as_slice() {
            printing.push((shape, s, sep.clone()));
        }
    }
    let sep = printing.first()?.2.clone();
    if printing.len() < 2 || printing.iter().any(|p| p.2 != sep) {
        return None;
    }
    let sep_text = string_literal(&sep);
    let mut out = Vec::new();
    for (i, (shape, s, _)) in printing.iter().enumerate() {
        let braced = matches!(shape.body.kind, StmtKind::Block(_));
        let wrap = |text: String| if braced { text } else { format!("{{ {text} }}") };
        let (new_text, description) = if i == 0 {
            let later = shape.later.as_ref()?;
            let (_, stripped) = without_separator(src, s, false)?;
            let guard = format!("if ({later}) printf({sep_text});");
            let text = if braced {
                format!("{guard}\n{}{stripped}", crate::ir::indentation(src, s.span.start as usize))
            } else {
                format!("{guard} {stripped}")
            };
            (text, format!("print `{sep_text}` before each item but the first"))
        } else {
            let (_, moved) = rewrite_separator(src, s, false, true)?;
            (moved, format!("print `{sep_text}` before each item instead of after"))
        };
        let edit = TextEdit { span: s.span, new_text: if i == 0 { wrap(new_text) } else { new_text } };
        out.push(Separator { at: s, edit, description, after_each: false });
    }
    Some(out)
}

/// A loop whose variable changes by a constant once per iteration, at its end.
struct LoopShape<'a> {
    body: &'a Stmt,
    /// The condition as it reads on the next iteration, as C.
    next: String,
    /// "Not the first iteration", as C (`for` loops that start at a constant).
    later: Option<String>,
}

impl<'a> LoopShape<'a> {
    fn of(program: &Program, src: &str, lp: &'a Stmt) -> Option<LoopShape<'a>> {
        let (init, cond, step, body): (&[Stmt], &Expr, &Expr, &Stmt) = match &lp.kind {
            StmtKind::For { init, cond: Some(cond), step: Some(step), body } => (init, cond, step, body),
            StmtKind::While { cond, body } => {
                // The step is the body's last statement.
                let StmtKind::Block(items) = &body.kind else { return None };
                let Some(StmtKind::Expr(step)) = items.last().map(|s| &s.kind) else { return None };
                (&[], cond, step, body)
            }
            _ => return None,
        };
        let (var, delta) = step_of(step)?;
        let changed_elsewhere = match &lp.kind {
            StmtKind::For { .. } => assigned_vars(body).contains(&var),
            // The `while` body's last statement is the step itself.
            _ => match &body.kind {
                StmtKind::Block(items) => items[..items.len() - 1].iter().any(|s| assigned_vars(s).contains(&var)),
                _ => true,
            },
        };
        if changed_elsewhere {
            return None;
        }
        let next = next_condition(program, src, cond, var, delta)?;
        let later = init.iter().find_map(|s| start_of(s, var)).map(|start| {
            let name = &program.var(var).name;
            let start = text(src, start);
            if delta > 0 { format!("{name} > {start}") } else { format!("{name} < {start}") }
        });
        Some(LoopShape { body, next, later })
    }
}

/// The variable a loop step changes and by how much: `i++`, `--i`, `i += 2`, `i = i - 1`.
fn step_of(step: &Expr) -> Option<(VarId, i64)> {
    let var = |e: &Expr| match e.strip_implicit().kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    let constant = |e: &Expr| match e.strip_implicit().kind {
        ExprKind::Int(k) => Some(k),
        _ => None,
    };
    let signed = |op: BinOp, k: i64| match op {
        BinOp::Add => Some(k),
        BinOp::Sub => Some(-k),
        _ => None,
    };
    let (v, delta) = match &step.kind {
        ExprKind::IncDec(IncDec::PreInc | IncDec::PostInc, lhs) => (var(lhs)?, 1),
        ExprKind::IncDec(IncDec::PreDec | IncDec::PostDec, lhs) => (var(lhs)?, -1),
        ExprKind::CompoundAssign { op, lhs, rhs, .. } => (var(lhs)?, signed(*op, constant(rhs)?)?),
        ExprKind::Assign(lhs, rhs) => {
            let v = var(lhs)?;
            let ExprKind::Binary(op, a, b) = &rhs.strip_implicit().kind else { return None };
            if var(a) != Some(v) {
                return None;
            }
            (v, signed(*op, constant(b)?)?)
        }
        _ => return None,
    };
    (delta != 0).then_some((v, delta))
}

/// The constant a `for` initialiser gives `var` (`i = 0`, `int i = 1`).
fn start_of(s: &Stmt, var: VarId) -> Option<&Expr> {
    let value = match &s.kind {
        StmtKind::Expr(e) => match &e.kind {
            ExprKind::Assign(lhs, rhs) if matches!(lhs.strip_implicit().kind, ExprKind::Var(v) if v == var) => rhs,
            _ => return None,
        },
        StmtKind::Decl { var: v, init: Some(Init::Expr(e)) } if *v == var => e,
        _ => return None,
    };
    matches!(value.strip_implicit().kind, ExprKind::Int(_) | ExprKind::Var(_)).then_some(value)
}

/// The edit that replaces `span` with `new_text`, as an insertion before or after it where
/// `new_text` keeps its text whole.
fn insertion_if_kept(src: &str, span: Span, new_text: String) -> TextEdit {
    let old = &src[span.range()];
    if let Some(after) = new_text.strip_prefix(old) {
        TextEdit { span: Span::new(span.end as usize, span.end as usize), new_text: after.to_string() }
    } else if let Some(before) = new_text.strip_suffix(old) {
        TextEdit { span: Span::new(span.start as usize, span.start as usize), new_text: before.to_string() }
    } else {
        TextEdit { span, new_text }
    }
}

fn text<'s>(src: &'s str, e: &Expr) -> &'s str {
    src.get(e.span.range()).unwrap_or("")
}

/// `cond` with `var` one step (`delta`) further, as the student would write it: a comparison
/// of the variable with a bound moves the bound (`i <= n` → `i < n`, `i < n` → `i < n - 1`);
/// anything else reads the variable as `(i + 1)`.
fn next_condition(program: &Program, src: &str, cond: &Expr, var: VarId, delta: i64) -> Option<String> {
    let is_var = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Var(v) if v == var);
    let name = &program.var(var).name;
    if let ExprKind::Binary(op, a, b) = &cond.strip_implicit().kind
        && op.is_comparison()
    {
        // `var OP bound`, the bound free of `var`.
        let oriented = if is_var(a) && !mentions_var(b, var) {
            Some((*op, &**b))
        } else if is_var(b) && !mentions_var(a, var) {
            Some((op.flipped(), &**a))
        } else {
            None
        };
        if let Some((op, bound)) = oriented
            && !text(src, bound).is_empty()
        {
            let bound_text = text(src, bound);
            let shifted = |by: i64| match bound.strip_implicit().kind {
                ExprKind::Int(k) => (k - by).to_string(),
                _ if by > 0 => format!("{} - {by}", parenthesised(bound, bound_text)),
                _ => format!("{} + {}", parenthesised(bound, bound_text), -by),
            };
            let written = match (op, delta) {
                (BinOp::Le, 1) => Some(format!("{name} < {bound_text}")),
                (BinOp::Ge, -1) => Some(format!("{name} > {bound_text}")),
                (BinOp::Lt | BinOp::Gt | BinOp::Ne | BinOp::Le | BinOp::Ge, _) => {
                    Some(format!("{name} {} {}", op.c_token(), shifted(delta)))
                }
                _ => None,
            };
            if written.is_some() {
                return written;
            }
        }
    }
    // The general form: every read of `var` one step on.
    let mut moved = cond.clone();
    let ty = program.var(var).ty.clone();
    substitute(&mut moved, var, &|e: &Expr| {
        let k = Expr::new(ExprKind::Int(delta.abs()), ty.clone(), e.span);
        let op = if delta > 0 { BinOp::Add } else { BinOp::Sub };
        Expr::new(ExprKind::Binary(op, Box::new(e.clone()), Box::new(k)), ty.clone(), e.span)
    });
    Some(expr_to_c(program, &moved))
}

/// A bound that `- 1` would bind into (`a ? b : c`, `x = y`) gets parentheses.
pub(super) fn parenthesised(e: &Expr, text: &str) -> String {
    match &e.strip_implicit().kind {
        ExprKind::Int(_)
        | ExprKind::Var(_)
        | ExprKind::Call(..)
        | ExprKind::Index(..)
        | ExprKind::Member { .. }
        | ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem, ..) => text.to_string(),
        _ => format!("({text})"),
    }
}

fn substitute(e: &mut Expr, var: VarId, with: &dyn Fn(&Expr) -> Expr) {
    if matches!(e.kind, ExprKind::Var(v) if v == var) {
        *e = with(e);
        return;
    }
    for child in crate::ir::walk::children_mut(e) {
        substitute(child, var, with);
    }
}

/// The separator every path through `s` prints last (`leading`: first), and the text of `s`
/// without it: `printf("%d ", x);`, or an `if`/`else` whose branches each end with such a
/// print (`if (c) printf("* "); else printf("- ");`). The item each print keeps is not empty.
fn without_separator(src: &str, s: &Stmt, leading: bool) -> Option<(Vec<u8>, String)> {
    rewrite_separator(src, s, leading, false)
}

/// [`without_separator`], or with `moved` the separator printed on the other side of each
/// item (`"%d "` → `" %d"`), where that side has none.
fn rewrite_separator(src: &str, s: &Stmt, leading: bool, moved: bool) -> Option<(Vec<u8>, String)> {
    let calls = ends(s, leading)?;
    let prints: Vec<Print> = calls.iter().map(|c| Print::of(c)).collect::<Option<_>>()?;
    let sides = |p: &Print| {
        if leading { (p.sep_before.clone(), p.sep_after.clone()) } else { (p.sep_after.clone(), p.sep_before.clone()) }
    };
    let sep = sides(prints.first()?).0;
    if sep.is_empty()
        || prints
            .iter()
            .any(|p| p.item.is_empty() || p.putchar || sides(p).0 != sep || (moved && !sides(p).1.is_empty()))
    {
        return None;
    }
    let edits: Vec<TextEdit> = prints
        .iter()
        .map(|p| {
            let other = if moved { &sep[..] } else { &sides(p).1[..] };
            let kept = if leading { [&p.item[..], other].concat() } else { [other, &p.item[..]].concat() };
            let span = Span::new((p.format.start - s.span.start) as usize, (p.format.end - s.span.start) as usize);
            TextEdit { span, new_text: string_literal(&kept) }
        })
        .collect();
    Some((sep, crate::ir::apply_edits(src.get(s.span.range())?, &edits)))
}

/// The print calls that come last (`leading`: first) on every path through `s`.
fn ends(s: &Stmt, leading: bool) -> Option<Vec<&Expr>> {
    match &s.kind {
        StmtKind::Expr(e) => Some(vec![e]),
        StmtKind::If { then, els: Some(els), .. } => {
            let mut out = ends(then, leading)?;
            out.extend(ends(els, leading)?);
            Some(out)
        }
        StmtKind::Block(items) => ends(if leading { items.first()? } else { items.last()? }, leading),
        _ => None,
    }
}

/// A print split into its separators and its item: `printf(" %d, ", x)` is `sep_before`
/// `" "`, item `"%d"`, `sep_after` `", "`.
struct Print {
    sep_before: Vec<u8>,
    item: Vec<u8>,
    sep_after: Vec<u8>,
    /// Where the format (or `putchar`'s character) is written.
    format: Span,
    putchar: bool,
}

impl Print {
    fn of(e: &Expr) -> Option<Print> {
        let ExprKind::Call(Callee::Builtin(builtin), args) = &e.kind else { return None };
        let first = args.first()?;
        let (text, putchar) = match (builtin, &first.strip_implicit().kind) {
            (Builtin::Printf, ExprKind::Str(fmt)) => (fmt.clone(), false),
            (Builtin::Putchar, ExprKind::Int(c)) => (vec![u8::try_from(*c).ok()?], true),
            _ => return None,
        };
        let is_sep = |b: &u8| matches!(b, b' ' | b'\t' | b',' | b';' | b'|');
        let format = first.span;
        let lead = text.iter().take_while(|b| is_sep(b)).count();
        if lead == text.len() {
            return Some(Print { sep_before: Vec::new(), item: Vec::new(), sep_after: text, format, putchar });
        }
        let trail = text.iter().rev().take_while(|b| is_sep(b)).count();
        // `%` right before a trailing separator is a directive's flag (`"% d"`), not an item.
        let item = text[lead..text.len() - trail].to_vec();
        if item.ends_with(b"%") && !item.ends_with(b"%%") {
            return None;
        }
        let (sep_before, sep_after) = (text[..lead].to_vec(), text[text.len() - trail..].to_vec());
        Some(Print { sep_before, item, sep_after, format, putchar })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    /// The new texts of every candidate of the first loop of `main`'s body.
    fn rewrites(body: &str) -> Vec<(String, String)> {
        rewrites_missing(body, &[])
    }

    /// The same, with `missing` the reference's separators.
    fn rewrites_missing(body: &str, missing: &[Vec<u8>]) -> Vec<(String, String)> {
        let src =
            format!("#include <stdio.h>\nint main(void) {{\n    int i, n = 3, k = 0;\n{body}\n    return 0;\n}}\n");
        let p = lower_source(&src).program;
        let main = p.funcs.iter().find(|f| f.name == "main").and_then(|f| f.body.as_ref()).expect("main");
        let StmtKind::Block(items) = &main.kind else { panic!("a block") };
        let lp =
            items.iter().find(|s| matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. })).expect("a loop");
        candidates(&p, &src, lp, missing).into_iter().map(|c| (c.edit.new_text, c.description)).collect()
    }

    fn texts(body: &str) -> Vec<String> {
        rewrites(body).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn the_next_condition_moves_the_bound() {
        let up_to = texts("    for (i = 1; i <= n; i++)\n        printf(\"%d \", i);");
        assert_eq!(up_to[0], "{ printf(\"%d\", i); if (i < n) printf(\" \"); }");
        assert_eq!(up_to[1], "{ if (i > 1) printf(\" \"); printf(\"%d\", i); }");
        let below = texts("    for (i = 0; i < n; ++i)\n        printf(\"%d \", i);");
        assert!(below[0].contains("if (i < n - 1)"), "{below:?}");
        assert!(below[1].contains("if (i > 0)"), "{below:?}");
        let constant = texts("    for (i = 0; i < 10; i += 2)\n        printf(\"%d \", i);");
        assert!(constant[0].contains("if (i < 8)"), "{constant:?}");
        let down = texts("    for (i = n; i > 0; i--)\n        printf(\"%d \", i);");
        assert!(down[0].contains("if (i > 1)") && down[1].contains("if (i < n)"), "{down:?}");
        let to_zero = texts("    for (i = n; i >= 0; i = i - 1)\n        printf(\"%d \", i);");
        assert!(to_zero[0].contains("if (i > 0)"), "{to_zero:?}");
        // The bound on the left: `n > i` is `i < n`.
        let left = texts("    for (i = 0; n > i; i++)\n        printf(\"%d \", i);");
        assert!(left[0].contains("if (i < n - 1)"), "{left:?}");
        // Anything else reads the variable one step on.
        let square = texts("    for (i = 1; i * i <= n; i++)\n        printf(\"%d \", i);");
        assert!(square[0].contains("if ((i + 1) * (i + 1) <= n)"), "{square:?}");
    }

    #[test]
    fn a_while_loop_steps_at_the_end_of_its_body() {
        let both = rewrites("    i = 0;\n    while (i < n) {\n        printf(\", %d\", i);\n        i++;\n    }");
        // Leading separator, no `for` start: only the "after each but the last" form.
        assert_eq!(both.len(), 1, "{both:?}");
        assert_eq!(both[0].0, "printf(\"%d\", i);\n        if (i < n - 1) printf(\", \");");
        assert_eq!(both[0].1, "print `\", \"` only between items, not after the last");
        // A body that changes the variable elsewhere has no step to read.
        assert!(
            texts(
                "    i = 0;\n    while (i < n) {\n        printf(\"%d \", i);\n        i = i * 2;\n        i++;\n    }"
            )
            .is_empty()
        );
        assert!(texts("    for (i = 0; i < n; i++) {\n        printf(\"%d \", i);\n        i++;\n    }").is_empty());
    }

    #[test]
    fn what_counts_as_a_separator() {
        // A statement that prints only the separator is guarded.
        let alone = texts("    for (i = 0; i < n; i++) {\n        printf(\"%d\", i);\n        putchar('\\t');\n    }");
        assert_eq!(alone, ["if (i < n - 1) ", "if (i > 0) "], "an insertion before the statement");
        // A line is not a separator, nor is a sign or a letter.
        assert!(texts("    for (i = 0; i < n; i++)\n        printf(\"%d\\n\", i);").is_empty());
        assert!(texts("    for (i = 0; i < n; i++)\n        printf(\"%d-\", i);").is_empty());
        assert!(texts("    for (i = 0; i < n; i++)\n        printf(\"x%d\", i);").is_empty());
        // The other separator and the arguments stay as written.
        let both = texts("    for (i = 0; i < n; i++)\n        printf(\" %d, \", i + k);");
        assert!(both.contains(&"{ printf(\" %d\", i + k); if (i < n - 1) printf(\", \"); }".to_string()), "{both:?}");
        assert!(both.contains(&"{ printf(\"%d, \", i + k); if (i < n - 1) printf(\" \"); }".to_string()), "{both:?}");
    }

    #[test]
    fn the_items_of_one_line_printed_by_several_loops() {
        let src = "#include <stdio.h>\nint main(void) {\n    int n = 3, l, c;\n    for (l = 1; l <= n; l++) {\n        for (c = 0; c < n - l; c++)\n            printf(\" \");\n        for (c = 1; c <= l; c++)\n            printf(\"%d \", c);\n        for (c = l - 1; c >= 1; c--) {\n            printf(\"%d \", c);\n        }\n        printf(\"\\n\");\n    }\n    return 0;\n}\n";
        let p = lower_source(src).program;
        let main = p.funcs.iter().find(|f| f.name == "main").and_then(|f| f.body.as_ref()).expect("main");
        let StmtKind::Block(items) = &main.kind else { panic!("a block") };
        let StmtKind::For { body, .. } =
            &items.iter().find(|s| matches!(s.kind, StmtKind::For { .. })).expect("a loop").kind
        else {
            panic!("a for loop")
        };
        let StmtKind::Block(row) = &body.kind else { panic!("a block") };
        // The padding loop prints only spaces: not an item.
        let changes = across_loops(&p, src, row).expect("two loops print items");
        let texts: Vec<&str> = changes.iter().map(|c| c.edit.new_text.as_str()).collect();
        assert_eq!(texts, ["{ if (c > 1) printf(\" \"); printf(\"%d\", c); }", "printf(\" %d\", c);"]);
        // One loop alone is the single-loop candidates' business.
        assert!(across_loops(&p, src, &row[..2]).is_none());
    }

    #[test]
    fn a_loop_that_prints_no_separator_gets_the_references() {
        let space = [b" ".to_vec()];
        let cross = "    for (i = 0; i < n; i++)\n        if (i == k)\n            putchar('*');\n        else\n            putchar('-');";
        let fixed = rewrites_missing(cross, &space);
        assert_eq!(fixed.len(), 2, "{fixed:?}");
        // Unbraced: the body is rewritten in braces.
        assert!(fixed[0].0.ends_with("if (i < n - 1) printf(\" \"); }"), "{fixed:?}");
        assert!(fixed[1].0.starts_with("{ if (i > 0) printf(\" \"); if (i == k)"), "{fixed:?}");
        // Braced: an insertion.
        let braced = rewrites_missing("    for (i = 0; i < n; i++) {\n        printf(\"%d\", i);\n    }", &space);
        assert_eq!(braced[0].0, "\n        if (i < n - 1) printf(\" \");");
        assert_eq!(braced[1].0, "if (i > 0) printf(\" \");\n        ");
        assert_eq!(fixed[0].1, "print `\" \"` between items");
        // A loop that prints a separator already, or a line per item, gets none.
        assert_eq!(rewrites_missing("    for (i = 0; i < n; i++)\n        printf(\"%d \", i);", &space).len(), 2);
        assert!(rewrites_missing("    for (i = 0; i < n; i++)\n        printf(\"%d\\n\", i);", &space).is_empty());
        // The reference's separators: the whole of a separator print, either side of an item.
        let reference = lower_source("#include <stdio.h>\nint main(void) { int i; for (i = 0; i < 3; i++) { printf(\"%d, \", i); putchar('\\t'); printf(\"%d\", i); } return 0; }\n").program;
        assert_eq!(printed_separators(&reference), [b", ".to_vec(), b"\t".to_vec()]);
    }

    #[test]
    fn every_branch_that_ends_with_the_separator_loses_it() {
        let cross = "    for (i = 0; i < n; i++) {\n        if (i == k)\n            printf(\"* \");\n        else {\n            k++;\n            printf(\"- \");\n        }\n    }";
        let fixed = texts(cross);
        assert_eq!(
            fixed[0],
            "if (i == k)\n            printf(\"*\");\n        else {\n            k++;\n            printf(\"-\");\n        }\n        if (i < n - 1) printf(\" \");"
        );
        // A path that prints no separator, or two separators that differ: nothing to move.
        assert!(
            texts("    for (i = 0; i < n; i++) {\n        if (i == k)\n            printf(\"* \");\n    }").is_empty()
        );
        assert!(texts("    for (i = 0; i < n; i++) {\n        if (i == k)\n            printf(\"* \");\n        else\n            printf(\"-,\");\n    }").is_empty());
    }
}
