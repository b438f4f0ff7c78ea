//! Rewrites of a program into an equivalent one of a more regular shape, so that two programs
//! that say the same thing in two ways can be compared piece by piece.
//!
//! - [`string_prints`], for the side of a comparison whose text is never edited (the
//!   reference): `printf("%s\n", c ? "yes" : "no")` becomes
//!   `if (c) printf("yes\n"); else printf("no\n");` and `printf("%s", "text")` prints `text`
//!   from its format: a student who writes the two prints can then be given the reference's
//!   texts, print by print.
//! - [`priming_reads`], for either side: the read before a loop that the loop's body repeats
//!   as its last statement moves into the loop's condition, the form of
//!   `while ((c = getchar()) != '\n')`. Statements keep their spans, so a repair of the
//!   rewritten student program is a repair of their text (the caller proves it again there).

use super::format::{self as cfmt, Count, Piece};
use super::program::*;
use super::types::Type;

/// `program` with every `printf` statement whose `%s` argument is a string literal, or a
/// choice `c ? "a" : "b"` between two, rewritten as above; `None` when there is none.
pub fn string_prints(program: &Program) -> Option<Program> {
    rewrite_statements(program, |s| match rewrite(s) {
        Some(new) => {
            *s = new;
            true
        }
        None => false,
    })
}

/// A copy of `program` with `f` applied to every statement of every function, outermost
/// first; `None` when `f` changed none (it says whether it changed its statement).
fn rewrite_statements(program: &Program, mut f: impl FnMut(&mut Stmt) -> bool) -> Option<Program> {
    let mut out = program.clone();
    let mut changed = false;
    for body in out.funcs.iter_mut().filter_map(|func| func.body.as_mut()) {
        super::walk::for_each_stmt_mut(body, &mut |s| changed |= f(s));
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

/// `program` with every priming read moved into its loop's condition; `None` when there is
/// none. `R; T; while (c) { B; R; }`, where `R` is an expression statement that reads the
/// input, becomes `T; while (R, c) { B }`: the same runs when
/// - the body's last statement is `R` itself (the same variables, not a shadowing namesake),
/// - no `continue` of this loop skips it (the rewrite would read where the original does not),
/// - and `R` can move past each statement `T` between it and the loop: a declaration or an
///   expression without calls (but pure library functions) or pointers, that does not name a
///   variable `R` names (`R` itself names no pointer variable, so it writes what it names).
pub fn priming_reads(program: &Program) -> Option<Program> {
    if !has_priming_read(program) {
        return None;
    }
    rewrite_statements(program, |s| match &mut s.kind {
        StmtKind::Block(items) => rotate_loops_in(program, items),
        _ => false,
    })
}

/// Some loop of `program` has a priming read that [`priming_reads`] moves (without the copy).
pub fn has_priming_read(program: &Program) -> bool {
    let mut found = false;
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        super::walk::for_each_stmt(body, &mut |s| {
            if let StmtKind::Block(items) = &s.kind {
                found |= (0..items.len()).any(|w| priming_read(program, items, w).is_some());
            }
        });
    }
    found
}

/// Rotates the loops of one statement list (see [`priming_reads`]); whether any was.
fn rotate_loops_in(program: &Program, items: &mut Vec<Stmt>) -> bool {
    let mut changed = false;
    let mut w = 0;
    while w < items.len() {
        if let Some(r) = priming_read(program, items, w) {
            // `int c = getchar();` keeps its declaration; a statement goes.
            match &mut items[r].kind {
                StmtKind::Decl { init, .. } => *init = None,
                _ => {
                    items.remove(r);
                    w -= 1;
                }
            }
            let StmtKind::While { cond, body } = &mut items[w].kind else { unreachable!("checked a loop") };
            // The body's copy of the read goes into the condition.
            let span = body.span;
            let repeated = match &mut body.kind {
                StmtKind::Block(stmts) => stmts.pop(),
                _ => Some(std::mem::replace(&mut **body, Stmt { kind: StmtKind::Block(Vec::new()), span })),
            };
            let Some(Stmt { kind: StmtKind::Expr(read), .. }) = repeated else { unreachable!("checked a read") };
            let (ty, span) = (cond.ty.clone(), cond.span);
            let test = std::mem::replace(cond, Expr::new(ExprKind::Int(0), ty.clone(), span));
            *cond = Expr::new(ExprKind::Comma(Box::new(read), Box::new(test)), ty, span);
            changed = true;
        }
        w += 1;
    }
    changed
}

/// The index of the priming read of the loop `items[w]`, if it has one: a statement the
/// same as the body's last, or the declaration `T v = e;` of a body that ends in `v = e;`.
fn priming_read(program: &Program, items: &[Stmt], w: usize) -> Option<usize> {
    let StmtKind::While { body, .. } = &items[w].kind else { return None };
    let last = match &body.kind {
        StmtKind::Block(stmts) => stmts.last()?,
        _ => body,
    };
    let StmtKind::Expr(repeated) = &last.kind else { return None };
    if !super::walk::reads_input(repeated) || continues(body) {
        return None;
    }
    let names = variables(repeated);
    if names.iter().any(|&v| matches!(program.var(v).ty, Type::Pointer(_))) {
        return None;
    }
    let declared = |var: VarId, init: &Init| match (&repeated.kind, init) {
        (ExprKind::Assign(lhs, rhs), Init::Expr(e)) => {
            matches!(lhs.kind, ExprKind::Var(v) if v == var) && rhs.ty == e.ty && same(program, rhs, e)
        }
        _ => false,
    };
    for r in (0..w).rev() {
        match &items[r].kind {
            StmtKind::Expr(e) if same(program, e, repeated) => return Some(r),
            StmtKind::Decl { var, init: Some(init) } if declared(*var, init) => return Some(r),
            _ if movable_past(&items[r], &names) => {}
            _ => return None,
        }
    }
    None
}

/// The variables `e` names, in order of appearance.
fn variables(e: &Expr) -> Vec<VarId> {
    let mut vars = Vec::new();
    super::walk::walk_expr(e, &mut |x| {
        if let ExprKind::Var(v) = x.kind {
            vars.push(v)
        }
    });
    vars
}

/// The same expression: the same text, naming the same variables.
fn same(program: &Program, a: &Expr, b: &Expr) -> bool {
    use super::print::expr_to_c;
    expr_to_c(program, a) == expr_to_c(program, b) && variables(a) == variables(b)
}

/// A `continue` that belongs to the loop whose body is `s` (not to a loop inside it).
fn continues(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Continue => true,
        StmtKind::Block(items) => items.iter().any(continues),
        StmtKind::If { then, els, .. } => continues(then) || els.as_deref().is_some_and(continues),
        StmtKind::Switch { arms, .. } => arms.iter().flat_map(|a| &a.body).any(continues),
        _ => false,
    }
}

/// `s` runs the same before or after a statement that writes only the variables `names`
/// and reads the input: a declaration or an expression without calls of user or
/// input/output functions and without pointers, that names none of `names`.
fn movable_past(s: &Stmt, names: &[VarId]) -> bool {
    let mut ok = match &s.kind {
        StmtKind::Decl { var, .. } => !names.contains(var),
        StmtKind::Expr(_) | StmtKind::Empty => true,
        _ => return false,
    };
    let mut check = |x: &Expr| {
        ok &= match &x.kind {
            ExprKind::Var(v) => !names.contains(v),
            ExprKind::Call(Callee::Builtin(b), _) => b.is_pure(),
            ExprKind::Call(..) | ExprKind::Deref(_) | ExprKind::Member { arrow: true, .. } => false,
            ExprKind::Index(base, _) => matches!(base.kind, ExprKind::Decay(_)),
            _ => true,
        }
    };
    match &s.kind {
        StmtKind::Expr(e) => super::walk::walk_expr(e, &mut check),
        StmtKind::Decl { init: Some(init), .. } => super::walk::walk_init(init, &mut check),
        _ => {}
    }
    ok
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(src: &str, expected: Expect) {
        check_with(super::string_prints, src, expected)
    }

    fn check_with(rewrite: fn(&crate::ir::Program) -> Option<crate::ir::Program>, src: &str, expected: Expect) {
        let program = crate::syntax::lower::lower_source(src).program;
        let shown = match rewrite(&program) {
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

    #[test]
    fn a_priming_read_moves_into_the_condition_past_independent_statements() {
        check_with(
            super::priming_reads,
            "int main() { int x, sum; scanf(\"%d\", &x); sum = 0; int k = 2; while (x != 0) { if (x > 0) { sum += x * k; } scanf(\"%d\", &x); } printf(\"%d\\n\", sum); int c = getchar(); while (c != '\\n') { putchar(c); c = getchar(); } return 0; }",
            expect![[r#"
                int main() {
                    int x;
                    int sum;
                    sum = 0;
                    int k = 2;
                    while (scanf("%d", &x), x != 0) {
                        if (x > 0) {
                            sum += x * k;
                        }
                    }
                    printf("%d\n", sum);
                    int c;
                    while (c = getchar(), c != '\n') {
                        putchar(c);
                    }
                    return 0;
                }
            "#]],
        );
    }

    /// Each of these would read at another moment, or another variable, than the original.
    #[test]
    fn a_read_stays_where_moving_it_would_change_the_runs() {
        for src in [
            // a `continue` skips the repeated read
            "int main() { int x; scanf(\"%d\", &x); while (x != 0) { if (x < 0) continue; scanf(\"%d\", &x); } return 0; }",
            // a statement between uses what was read
            "int main() { int x, y; scanf(\"%d\", &x); y = x; while (x != 0) { y += x; scanf(\"%d\", &x); } return y; }",
            // a print between: the read would come after it
            "int main() { int x; scanf(\"%d\", &x); printf(\"go\"); while (x != 0) { scanf(\"%d\", &x); } return 0; }",
            // the body reads into another variable of the same name
            "int main() { int x; scanf(\"%d\", &x); while (x != 0) { int x; scanf(\"%d\", &x); } return 0; }",
            // through a pointer, the read may write what a statement between uses
            "int main() { int x, y; int *p = &x; scanf(\"%d\", p); y = 0; while (x != 0) { scanf(\"%d\", p); } return y; }",
        ] {
            check_with(super::priming_reads, src, expect!["unchanged"]);
        }
    }
}
