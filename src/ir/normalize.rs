//! Rewrites of a program into an equivalent one with simpler prints, for the side of a
//! comparison whose text is never edited (the reference).
//!
//! `printf("%s\n", c ? "yes" : "no")` becomes `if (c) printf("yes\n"); else printf("no\n");`
//! and `printf("%s", "text")` prints `text` from its format: a student who writes the two
//! prints can then be given the reference's texts, print by print.

use super::format::{self as cfmt, Count, Piece};
use super::program::*;
use super::types::Type;

/// `program` with every `printf` statement whose `%s` argument is a string literal, or a
/// choice `c ? "a" : "b"` between two, rewritten as above; `None` when there is none.
pub fn string_prints(program: &Program) -> Option<Program> {
    let mut out = program.clone();
    let mut changed = false;
    for f in &mut out.funcs {
        if let Some(body) = &mut f.body {
            super::walk::for_each_stmt_mut(body, &mut |s| {
                if let Some(new) = rewrite(s) {
                    *s = new;
                    changed = true;
                }
            });
        }
    }
    changed.then_some(out)
}

/// The statement a `printf` statement becomes (`None`: it stays).
fn rewrite(s: &Stmt) -> Option<Stmt> {
    let StmtKind::Expr(call) = &s.kind else { return None };
    let ExprKind::Call(Callee::Builtin(Builtin::Printf), args) = &call.kind else { return None };
    let ExprKind::Str(fmt) = &args.first()?.strip_implicit().kind else { return None };
    let pieces = cfmt::parse(fmt, false).ok()?;
    let directives: Vec<&cfmt::Directive> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Directive(d) => Some(d),
            Piece::Literal(_) => None,
        })
        .collect();
    if directives.len() != args.len() - 1
        || directives.iter().any(|d| d.width == Count::Star || d.precision == Count::Star)
    {
        return None;
    }
    let plain_s = |d: &cfmt::Directive| d.conv == 's' && d.width == Count::None && d.precision == Count::None;
    for (k, d) in directives.iter().enumerate() {
        if !plain_s(d) {
            continue;
        }
        let arg = &args[k + 1];
        // The choice is made before the other arguments are evaluated: they must not care.
        if args.iter().enumerate().any(|(i, a)| i != k + 1 && super::walk::has_effects(a)) {
            return None;
        }
        match &arg.strip_implicit().kind {
            ExprKind::Str(text) => {
                return Some(Stmt { kind: StmtKind::Expr(with_text(call, args, fmt, d, k, text)), span: s.span });
            }
            ExprKind::Cond(c, a, b) => {
                let (ExprKind::Str(a), ExprKind::Str(b)) = (&a.strip_implicit().kind, &b.strip_implicit().kind) else {
                    continue;
                };
                let print = |text: &[u8]| {
                    Box::new(Stmt { kind: StmtKind::Expr(with_text(call, args, fmt, d, k, text)), span: s.span })
                };
                return Some(Stmt {
                    kind: StmtKind::If { cond: (**c).clone(), then: print(a), els: Some(print(b)) },
                    span: s.span,
                });
            }
            _ => {}
        }
    }
    None
}

/// The call `printf(fmt, args…)` with its `k`-th directive `d` replaced by `text` (escaped).
fn with_text(call: &Expr, args: &[Expr], fmt: &[u8], d: &cfmt::Directive, k: usize, text: &[u8]) -> Expr {
    let mut new_fmt = fmt[..d.start].to_vec();
    for &b in text {
        new_fmt.push(b);
        if b == b'%' {
            new_fmt.push(b'%');
        }
    }
    new_fmt.extend_from_slice(&fmt[d.end..]);
    let span = args[0].span;
    let len = new_fmt.len() as u64 + 1;
    let literal = Expr::new(ExprKind::Str(new_fmt), Type::Array(Box::new(Type::CHAR), Some(len)), span);
    let format = Expr::new(ExprKind::Decay(Box::new(literal)), args[0].ty.clone(), span);
    let mut new_args = vec![format];
    new_args.extend(args[1..].iter().enumerate().filter(|(i, _)| *i != k).map(|(_, a)| a.clone()));
    Expr { kind: ExprKind::Call(Callee::Builtin(Builtin::Printf), new_args), ..call.clone() }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(src: &str, expected: Expect) {
        let program = crate::syntax::lower::lower_source(src).program;
        let shown = match super::string_prints(&program) {
            Some(p) => crate::ir::print::function_to_c(&p, p.func(p.func_by_name("main").unwrap())),
            None => "unchanged".into(),
        };
        expected.assert_eq(&shown);
    }

    #[test]
    fn a_choice_of_texts_becomes_two_prints() {
        check(
            "int main() { int n, m; scanf(\"%d%d\", &n, &m); printf(\"%d: %s\\n\", n, n % m == 0 ? \"yes\" : \"100%\"); printf(\"%s\", \"ok\"); printf(\"%5s\", \"x\"); return 0; }",
            expect![[r#"
                int main() {
                    int n;
                    int m;
                    scanf("%d%d", &n, &m);
                    if (n % m == 0)
                        printf("%d: yes\n", n);
                    else
                        printf("%d: 100%%\n", n);
                    printf("ok");
                    printf("%5s", "x");
                    return 0;
                }
            "#]],
        );
    }
}
