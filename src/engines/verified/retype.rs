//! `float` where the reference computes in `double`. Reading a number into a `float` rounds
//! it, so such a program is not equivalent to a `double` reference on all inputs (two
//! thresholds 1e-9 apart read as the same float), and no repair of its expressions can make it
//! so. Before the search, every `float` variable of the student's becomes `double` (and each
//! `%f`-family `scanf` conversion that reads into one gains its `l`), and the engine repairs
//! that program; the type changes are part of the patch. Only when the reference declares no
//! `float` and some `double`, so a student who follows a `float` reference is left alone.

use crate::ir::format::{self as cfmt, Piece};
use crate::ir::repair::TextEdit;
use crate::ir::{Builtin, Callee, Expr, ExprKind, Program, Span, Type};

use super::Change;

/// Whether the student declares `float` variables where the reference uses only `double`.
pub fn wanted(student: &Program, reference: &Program) -> bool {
    let has = |p: &Program, f: &dyn Fn(&Type) -> bool| p.vars.iter().any(|v| f(&v.ty));
    has(student, &is_float) && !has(reference, &is_float) && has(reference, &is_double)
}

fn is_float(t: &Type) -> bool {
    matches!(t, Type::Float(crate::ir::FloatKind::Float))
}

fn is_double(t: &Type) -> bool {
    matches!(t, Type::Float(crate::ir::FloatKind::Double))
}

/// The edits that make every `float` variable `double`, with one change each; `None` when a
/// declaration's `float` keyword cannot be found in the text (a typedef, a macro).
pub fn edits(student: &Program, text: &str) -> Option<Vec<(Change, TextEdit)>> {
    let mut keywords: Vec<usize> = Vec::new();
    let mut floats = Vec::new();
    for (i, v) in student.vars.iter().enumerate() {
        if !is_float(&v.ty) {
            continue;
        }
        floats.push(i);
        // The declaration's `float` keyword: the last one before the declarator, with no
        // statement boundary between them.
        let before = &text[..v.span.start as usize];
        let at = before.rfind("float")?;
        let between = &before[at + 5..];
        let word_start = at == 0 || !is_ident(before.as_bytes()[at - 1]);
        if !word_start || between.bytes().next().is_some_and(is_ident) || between.contains([';', '{', '}']) {
            return None;
        }
        if !keywords.contains(&at) {
            keywords.push(at);
        }
    }
    let mut out: Vec<(Change, TextEdit)> = keywords
        .into_iter()
        .map(|at| {
            let span = Span::new(at, at + 5);
            (Change { span, old: "float".into(), new: "double".into(), region: "in a declaration".into() }, TextEdit { span, new_text: "double".into() })
        })
        .collect();
    // `scanf("%f", &x)` with `x` now a double reads with `%lf`.
    for f in &student.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e: &Expr| {
            if let ExprKind::Call(Callee::Builtin(Builtin::Scanf), args) = &e.kind
                && let Some(edit) = scanf_edit(text, args, &floats)
            {
                out.push(edit);
            }
        });
    }
    out.sort_by_key(|(_, e)| e.span.start);
    Some(out)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The format literal of one `scanf`, rewritten so that each `%f`-family conversion that
/// reads into a retyped variable reads a double.
fn scanf_edit(text: &str, args: &[Expr], floats: &[usize]) -> Option<(Change, TextEdit)> {
    let fmt_expr = args.first()?.strip_implicit();
    let ExprKind::Str(fmt) = &fmt_expr.kind else { return None };
    let pieces = cfmt::parse(fmt, true).ok()?;
    let mut targets = args[1..].iter();
    let mut widen = Vec::new();
    for piece in pieces {
        let Piece::Directive(d) = piece else { continue };
        if d.suppress || d.conv == '%' {
            continue;
        }
        let arg = targets.next()?;
        let target = match &arg.strip_implicit().kind {
            ExprKind::AddrOf(t) => match t.strip_implicit().kind {
                ExprKind::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        };
        let Some(v) = target else {
            widen.push(false);
            continue;
        };
        widen.push(floats.contains(&(v.0 as usize)) && "feEgGaA".contains(d.conv) && d.length == cfmt::Length::None);
    }
    if !widen.contains(&true) {
        return None;
    }
    // Rewrite the literal's source text: its directives are in the same order (escapes such as
    // `\n` contain no `%`).
    let span = fmt_expr.span;
    let src = &text[span.start as usize..span.end as usize];
    let mut out = String::with_capacity(src.len() + widen.len());
    let mut k = 0;
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        out.push(c as char);
        i += 1;
        if c != b'%' {
            continue;
        }
        if bytes.get(i) == Some(&b'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let suppressed = bytes.get(i) == Some(&b'*');
        // Suppression, width and length, then the conversion.
        while i < bytes.len() && (bytes[i] == b'*' || bytes[i].is_ascii_digit() || b"hlLjztq".contains(&bytes[i])) {
            out.push(bytes[i] as char);
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        if bytes[i] == b'[' {
            return None;
        }
        if !suppressed {
            if widen.get(k) == Some(&true) {
                out.push('l');
            }
            k += 1;
        }
        out.push(bytes[i] as char);
        i += 1;
    }
    Some((Change { span, old: src.to_string(), new: out.clone(), region: "in a scanf format".into() }, TextEdit { span, new_text: out }))
}
