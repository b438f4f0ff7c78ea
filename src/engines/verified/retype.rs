//! Retyping the student's variables before the search, where the types alone put the
//! reference out of reach of every expression repair; the type changes are part of the patch.
//!
//! - `float` where the reference computes in `double` ([`edits`]). Reading a number into a
//!   `float` rounds it, so such a program is not equivalent to a `double` reference on all
//!   inputs (two thresholds 1e-9 apart read as the same float). Every `float` variable of the
//!   student's becomes `double` (and each `%f`-family `scanf` conversion that reads into one
//!   gains its `l`). Only when the reference declares no `float` and some `double`, so a
//!   student who follows a `float` reference is left alone.
//! - Numbers read as floating point where the reference reads integers ([`integer_reads`]).

use std::collections::{BTreeMap, HashMap};

use crate::ir::format::{self as cfmt, Piece};
use crate::ir::repair::TextEdit;
use crate::ir::{Builtin, Callee, Expr, ExprKind, Program, Span, Type, VarId};

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
        let at = keyword_before(text, v.span.start as usize, "float")?;
        if !keywords.contains(&at) {
            keywords.push(at);
        }
    }
    let mut out: Vec<(Change, TextEdit)> = keywords
        .into_iter()
        .map(|at| {
            let span = Span::new(at, at + 5);
            (
                Change {
                    span,
                    old: "float".into(),
                    new: "double".into(),
                    region: "in a declaration".into(),
                    words: None,
                },
                TextEdit { span, new_text: "double".into() },
            )
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

/// The declaration's type keyword `word` for a declarator at `decl`: the last one before it,
/// with no statement boundary between them.
fn keyword_before(text: &str, decl: usize, word: &str) -> Option<usize> {
    let before = &text[..decl];
    let at = before.rfind(word)?;
    let between = &before[at + word.len()..];
    let word_start = at == 0 || !is_ident(before.as_bytes()[at - 1]);
    if !word_start || between.bytes().next().is_some_and(is_ident) || between.contains([';', '{', '}']) {
        return None;
    }
    Some(at)
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
    // Per directive (`%%` left out): whether it gains its `l`.
    let mut widen = Vec::new();
    for piece in pieces {
        let Piece::Directive(d) = piece else { continue };
        if d.conv == '%' {
            continue;
        }
        if d.suppress {
            widen.push(false);
            continue;
        }
        let target = super::address_of_var(targets.next()?);
        widen.push(
            target.is_some_and(|v| floats.contains(&(v.0 as usize)))
                && "feEgGaA".contains(d.conv)
                && d.length == cfmt::Length::None,
        );
    }
    if !widen.contains(&true) {
        return None;
    }
    let span = fmt_expr.span;
    let src = &text[span.start as usize..span.end as usize];
    let out = rewrite_directives(src, &mut |k, directive| {
        widen[k].then(|| format!("{}l{}", &directive[..directive.len() - 1], &directive[directive.len() - 1..]))
    })?;
    Some((
        Change { span, old: src.to_string(), new: out.clone(), region: "in a scanf format".into(), words: None },
        TextEdit { span, new_text: out },
    ))
}

/// Numbers read as floating point where the reference reads integers. The `k`-th token read
/// as a `double` by the student and as an `int` by the reference are unrelated values in the
/// model (and `1.5` is one token for one program, two for the other), so no repair of
/// expressions reaches the reference. Before the search, each such variable's declaration
/// takes the integer type the reference reads into (every variable of that declaration does:
/// one keyword declares them), the `scanf` conversions that read them become `%d` (`%ld`),
/// and the `printf` conversions that then print an integer become `%d` (width and flags
/// kept, precision dropped). The engine verifies the retyped program like any other, so a
/// variable that needed its fractions only costs the repair. `None` when nothing is read
/// that way, or the rewrite cannot be done faithfully (a read that is not a top-level `scanf`
/// statement, a position where the reference reads a number into something else, a
/// declaration without its keyword in the text, a `*` width).
pub fn integer_reads(
    student: &Program,
    reference: &Program,
    entry: &str,
    text: &str,
) -> Option<Vec<(Change, TextEdit)>> {
    let (sf, rf) = (student.func_by_name(entry)?, reference.func_by_name(entry)?);
    let (sd, rd) = (super::top_level_scanf_directives(student, sf)?, super::top_level_scanf_directives(reference, rf)?);
    let floating = |c: char| "feEgGaA".contains(c);
    let integer = |c: char| "di".contains(c);
    let var_of = |e: Option<&Expr>| e.and_then(super::address_of_var);
    // Student variable → the integer type the reference reads at its position.
    let mut wanted: BTreeMap<VarId, crate::ir::IntType> = BTreeMap::new();
    for (k, d) in sd.iter().enumerate() {
        if d.suppress || !floating(d.conv) {
            continue;
        }
        let Some(r) = rd.get(k).filter(|r| !r.suppress && integer(r.conv)) else { continue };
        let v = var_of(d.target)?;
        let ty = match var_of(r.target).map(|rv| &reference.var(rv).ty) {
            Some(Type::Int(t)) => *t,
            _ => return None,
        };
        wanted.insert(v, ty);
    }
    if wanted.is_empty() {
        return None;
    }
    // A wanted variable also read as floating point where the reference reads something else.
    for (k, d) in sd.iter().enumerate() {
        if let Some(v) = var_of(d.target)
            && wanted.contains_key(&v)
            && floating(d.conv)
            && !rd.get(k).is_some_and(|r| !r.suppress && integer(r.conv))
        {
            return None;
        }
    }
    // Declarations: each wanted variable's keyword, and every variable it declares.
    let mut keywords: BTreeMap<usize, (&str, crate::ir::IntType)> = BTreeMap::new();
    for (v, ty) in &wanted {
        let var = student.var(*v);
        let word = match var.ty {
            Type::Float(crate::ir::FloatKind::Float) => "float",
            Type::Float(crate::ir::FloatKind::Double) => "double",
            _ => return None,
        };
        let at = keyword_before(text, var.span.start as usize, word)?;
        keywords.entry(at).or_insert((word, *ty));
    }
    let mut retyped: HashMap<VarId, crate::ir::IntType> = HashMap::new();
    for (i, var) in student.vars.iter().enumerate() {
        let word = match var.ty {
            Type::Float(crate::ir::FloatKind::Float) => "float",
            Type::Float(crate::ir::FloatKind::Double) => "double",
            _ => continue,
        };
        if let Some(at) = keyword_before(text, var.span.start as usize, word)
            && let Some((_, ty)) = keywords.get(&at)
        {
            retyped.insert(VarId(i as u32), *ty);
        }
    }
    let mut out: Vec<(Change, TextEdit)> = keywords
        .iter()
        .map(|(at, (word, ty))| {
            let span = Span::new(*at, at + word.len());
            let new = ty.c_name();
            (
                Change {
                    span,
                    old: word.to_string(),
                    new: new.clone(),
                    region: "in a declaration".into(),
                    words: None,
                },
                TextEdit { span, new_text: new },
            )
        })
        .collect();
    let long = |t: &crate::ir::IntType| matches!(t.kind, crate::ir::IntKind::Long | crate::ir::IntKind::LongLong);
    let mut bad = false;
    for f in &student.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e: &Expr| {
            let ExprKind::Call(Callee::Builtin(b @ (Builtin::Scanf | Builtin::Printf)), args) = &e.kind else { return };
            let scanf = *b == Builtin::Scanf;
            let Some(fmt_expr) = args.first().map(|a| a.strip_implicit()) else { return };
            let ExprKind::Str(fmt) = &fmt_expr.kind else { return };
            let Ok(pieces) = cfmt::parse(fmt, scanf) else { return };
            // Per directive (in order, `%%` left out): its integer conversion, if it changes.
            let mut rest = args[1..].iter();
            let mut new_convs: Vec<Option<String>> = Vec::new();
            for piece in pieces {
                let Piece::Directive(d) = piece else { continue };
                if d.conv == '%' {
                    continue;
                }
                if !scanf && (d.width == cfmt::Count::Star || d.precision == cfmt::Count::Star) {
                    bad = true;
                    return;
                }
                let arg = if scanf && d.suppress { None } else { rest.next() };
                let int_ty = if scanf {
                    var_of(arg).and_then(|v| retyped.get(&v).copied())
                } else {
                    // What the argument is once the declarations are retyped: a retyped
                    // variable, read as it is (anything else keeps its type or is refused).
                    match arg.map(|a| &a.strip_implicit().kind) {
                        Some(ExprKind::Var(v)) => retyped.get(v).copied(),
                        _ if arg.is_some_and(|a| mentions(a, &retyped)) && floating(d.conv) => {
                            bad = true;
                            return;
                        }
                        _ => None,
                    }
                };
                new_convs.push(match int_ty {
                    Some(t) if floating(d.conv) => {
                        let flags: String =
                            if scanf { String::new() } else { d.flags.chars().filter(|c| *c != '#').collect() };
                        let width = match d.width {
                            cfmt::Count::Fixed(n) => n.to_string(),
                            _ => String::new(),
                        };
                        Some(format!("%{flags}{width}{}d", if long(&t) { "l" } else { "" }))
                    }
                    _ => None,
                });
            }
            if new_convs.iter().all(Option::is_none) {
                return;
            }
            let span = fmt_expr.span;
            let src = &text[span.start as usize..span.end as usize];
            match rewrite_directives(src, &mut |k, _| new_convs.get(k).cloned().flatten()) {
                Some(new) => {
                    let region = if scanf { "in a scanf format" } else { "in a printf format" };
                    out.push((
                        Change { span, old: src.to_string(), new: new.clone(), region: region.into(), words: None },
                        TextEdit { span, new_text: new },
                    ));
                }
                None => bad = true,
            }
        });
    }
    if bad {
        return None;
    }
    out.sort_by_key(|(_, e)| e.span.start);
    Some(out)
}

/// Whether `e` reads one of the variables.
fn mentions(e: &Expr, vars: &HashMap<VarId, crate::ir::IntType>) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| found |= matches!(&x.kind, ExprKind::Var(v) if vars.contains_key(v)));
    found
}

/// A format literal's source text with its `k`-th directive (`%%` not counted; the
/// directives are in the parsed order, as escapes such as `\n` contain no `%`) replaced by
/// `new(k, its text)` where that is `Some`; `None` on a scan set or a directive cut short.
fn rewrite_directives(src: &str, new: &mut dyn FnMut(usize, &str) -> Option<String>) -> Option<String> {
    let bytes = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let (mut i, mut k) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'%' {
            let next = src[i..].char_indices().nth(1).map_or(src.len(), |(j, _)| i + j);
            out.push_str(&src[i..next]);
            i = next;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'%') {
            out.push_str("%%");
            i += 2;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() && b"-+ #0*.123456789hlLjztq".contains(&bytes[i]) {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'[' || !bytes[i].is_ascii_alphabetic() {
            return None;
        }
        i += 1;
        match new(k, &src[start..i]) {
            Some(replacement) => out.push_str(&replacement),
            None => out.push_str(&src[start..i]),
        }
        k += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::repair::apply_edits;
    use crate::syntax::lower::lower_source;

    fn retyped(student: &str, reference: &str) -> Option<String> {
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let edits = integer_reads(&s, &r, "main", student)?;
        Some(apply_edits(student, &edits.into_iter().map(|(_, e)| e).collect::<Vec<_>>()))
    }

    const INT_REFERENCE: &str = "#include <stdio.h>\nint main(void) { int a; long b; scanf(\"%d%ld\", &a, &b); printf(\"%d\\n\", a); return 0; }";

    #[test]
    fn floating_reads_of_integer_inputs_become_integer_reads_and_prints() {
        let student = "#include <stdio.h>\nint main(void) {\n  double x, y; float z;\n  scanf(\"%lf %5lf\", &x, &y);\n  z = 1;\n  printf(\"%-6.2lf|%g|%%|%.1f\\n\", x, y, z);\n  return 0;\n}\n";
        let out = retyped(student, INT_REFERENCE).unwrap();
        // Both read variables are declared by one keyword: it takes the first one's type; `z`
        // is not read and keeps `float`.
        assert_eq!(
            out,
            student.replace("double x", "int x").replace("%lf %5lf", "%d %5d").replace("%-6.2lf|%g|", "%-6d|%d|")
        );
    }

    #[test]
    fn nothing_to_retype_or_no_faithful_rewrite() {
        // The reference reads doubles too.
        assert_eq!(
            retyped(
                "int main(void) { double x; scanf(\"%lf\", &x); return 0; }",
                "int main(void) { double a; scanf(\"%lf\", &a); return 0; }"
            ),
            None
        );
        // An expression of a retyped variable printed as floating point: its type after the
        // retyping is not known here.
        let student = "#include <stdio.h>\nint main(void) { double x, y; scanf(\"%lf%lf\", &x, &y); printf(\"%f\", x * 1.5); return 0; }";
        assert_eq!(retyped(student, INT_REFERENCE), None);
        // A read inside a loop: positions are not fixed.
        let student = "#include <stdio.h>\nint main(void) { double x; int i; for (i = 0; i < 2; i++) scanf(\"%lf\", &x); return 0; }";
        assert_eq!(retyped(student, INT_REFERENCE), None);
    }
}
