//! Visitors over the IR: every expression node of a statement, outermost first.

use super::program::*;

/// Calls `f` on every expression node under `init`, outermost first.
pub fn walk_init(init: &Init, f: &mut impl FnMut(&Expr)) {
    match init {
        Init::Expr(e) => walk_expr(e, f),
        Init::List(items, _) => items.iter().for_each(|i| walk_init(i, f)),
    }
}

pub fn walk_expr<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    for c in children(e) {
        walk_expr(c, f);
    }
}

/// Assignments, increments, calls (of anything but the pure library functions) and comma
/// expressions: what may change the state, or the input and output.
pub fn has_effects(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| {
        found |= match &x.kind {
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) | ExprKind::Comma(..) => true,
            ExprKind::Call(Callee::Builtin(b), _) => !b.is_pure(),
            ExprKind::Call(Callee::Func(_), _) => true,
            _ => false,
        }
    });
    found
}

/// A call in `e` reads the standard input ([`Builtin::reads_input`]).
pub fn reads_input(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| found |= matches!(&x.kind, ExprKind::Call(Callee::Builtin(b), _) if b.reads_input()));
    found
}

/// [`children`], mutable.
pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Var(_) | ExprKind::SizeOf { .. } => vec![],
        ExprKind::Unary(_, a)
        | ExprKind::IncDec(_, a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::Member { base: a, .. }
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Decay(a) => vec![&mut **a],
        ExprKind::Binary(_, a, b)
        | ExprKind::Logical(_, a, b)
        | ExprKind::Assign(a, b)
        | ExprKind::CompoundAssign { lhs: a, rhs: b, .. }
        | ExprKind::Index(a, b)
        | ExprKind::Row { array: a, index: b, .. }
        | ExprKind::Comma(a, b) => vec![&mut **a, &mut **b],
        ExprKind::Cond(a, b, c) => vec![&mut **a, &mut **b, &mut **c],
        ExprKind::Call(_, args) => args.iter_mut().collect(),
    }
}

/// The direct subexpressions of `e`, left to right.
pub fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Var(_) | ExprKind::SizeOf { .. } => vec![],
        ExprKind::Unary(_, a)
        | ExprKind::IncDec(_, a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::Member { base: a, .. }
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Decay(a) => vec![&**a],
        ExprKind::Binary(_, a, b)
        | ExprKind::Logical(_, a, b)
        | ExprKind::Assign(a, b)
        | ExprKind::CompoundAssign { lhs: a, rhs: b, .. }
        | ExprKind::Index(a, b)
        | ExprKind::Row { array: a, index: b, .. }
        | ExprKind::Comma(a, b) => vec![&**a, &**b],
        ExprKind::Cond(a, b, c) => vec![&**a, &**b, &**c],
        ExprKind::Call(_, args) => args.iter().collect(),
    }
}

/// Calls `f` on `s` and every statement nested in it, outermost first (a `for`'s
/// initialisers before its body, a switch's arms in order).
pub fn for_each_stmt(s: &Stmt, f: &mut impl FnMut(&Stmt)) {
    f(s);
    match &s.kind {
        StmtKind::Block(items) => items.iter().for_each(|st| for_each_stmt(st, f)),
        StmtKind::For { init, body, .. } => {
            init.iter().for_each(|st| for_each_stmt(st, f));
            for_each_stmt(body, f);
        }
        StmtKind::If { then, els, .. } => {
            for_each_stmt(then, f);
            if let Some(e) = els {
                for_each_stmt(e, f);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => for_each_stmt(body, f),
        StmtKind::Switch { arms, .. } => arms.iter().flat_map(|a| &a.body).for_each(|st| for_each_stmt(st, f)),
        _ => {}
    }
}

/// [`for_each_stmt`], mutable: `f` runs on `s` before the statements nested in it.
pub fn for_each_stmt_mut(s: &mut Stmt, f: &mut impl FnMut(&mut Stmt)) {
    f(s);
    match &mut s.kind {
        StmtKind::Block(items) => items.iter_mut().for_each(|st| for_each_stmt_mut(st, f)),
        StmtKind::For { init, body, .. } => {
            init.iter_mut().for_each(|st| for_each_stmt_mut(st, f));
            for_each_stmt_mut(body, f);
        }
        StmtKind::If { then, els, .. } => {
            for_each_stmt_mut(then, f);
            if let Some(e) = els {
                for_each_stmt_mut(e, f);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => for_each_stmt_mut(body, f),
        StmtKind::Switch { arms, .. } => {
            arms.iter_mut().flat_map(|a| &mut a.body).for_each(|st| for_each_stmt_mut(st, f))
        }
        _ => {}
    }
}

pub fn walk_stmt(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => walk_expr(e, f),
        StmtKind::VlaDecl { len, row, .. } => {
            walk_expr(len, f);
            if let Some((_, per)) = row {
                walk_expr(per, f);
            }
        }
        StmtKind::Decl { init: Some(init), .. } => walk_init(init, f),
        StmtKind::If { cond, then, els } => {
            walk_expr(cond, f);
            walk_stmt(then, f);
            if let Some(e) = els {
                walk_stmt(e, f);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            walk_expr(cond, f);
            walk_stmt(body, f);
        }
        StmtKind::For { init, cond, step, body } => {
            init.iter().for_each(|s| walk_stmt(s, f));
            cond.iter().chain(step.iter()).for_each(|e| walk_expr(e, f));
            walk_stmt(body, f);
        }
        StmtKind::Switch { cond, arms } => {
            walk_expr(cond, f);
            arms.iter().flat_map(|a| a.body.iter()).for_each(|s| walk_stmt(s, f));
        }
        StmtKind::Block(b) => b.iter().for_each(|s| walk_stmt(s, f)),
        StmtKind::Decl { init: None, .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None)
        | StmtKind::Empty => {}
    }
}

/// Calls `f` on every full expression of `s` (an expression statement's, a condition, a
/// `for` step, a `return` value, an initialiser): the expressions no other expression holds.
pub fn full_exprs(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    for_each_stmt(s, &mut |x| match &x.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
        StmtKind::VlaDecl { len, row, .. } => {
            f(len);
            if let Some((_, per)) = row {
                f(per);
            }
        }
        StmtKind::Decl { init: Some(init), .. } => {
            let mut roots = |i: &Init| {
                if let Init::Expr(e) = i {
                    f(e)
                }
            };
            match init {
                Init::List(items, _) => items.iter().for_each(&mut roots),
                one => roots(one),
            }
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => f(cond),
        StmtKind::For { cond, step, .. } => cond.iter().chain(step.iter()).for_each(&mut *f),
        StmtKind::Switch { cond, .. } => f(cond),
        _ => {}
    });
}

/// The first `scanf` call of `s` whose value the program uses (`while (scanf("%d", &x) == 1)`,
/// `if (scanf(...) != 2) break;`) in a loop, or anywhere when `outside_loops` (a helper a loop
/// may call). A whole expression statement or a `for` step (`(void)` cast or not) drops the
/// value. Such a loop asks whether the input ran out, which the symbolic executors' token
/// models do not say; outside loops, the value only checks a fixed number of reads.
pub fn scanf_value_used(s: &Stmt, outside_loops: bool) -> Option<crate::ir::Span> {
    let root = |e: &Expr| -> ExprId {
        let mut e = e.strip_implicit();
        while let ExprKind::Cast { expr, .. } = &e.kind
            && e.ty == crate::ir::Type::Void
        {
            e = expr.strip_implicit();
        }
        e.id
    };
    let mut dropped = std::collections::HashSet::new();
    for_each_stmt(s, &mut |x| match &x.kind {
        StmtKind::Expr(e) | StmtKind::For { step: Some(e), .. } => {
            dropped.insert(root(e));
        }
        _ => {}
    });
    let mut found = None;
    let mut look = |x: &Stmt| {
        walk_stmt(x, &mut |e| {
            if matches!(e.kind, ExprKind::Call(Callee::Builtin(Builtin::Scanf), _)) && !dropped.contains(&e.id) {
                found.get_or_insert(e.span);
            }
        })
    };
    if outside_loops {
        look(s);
    } else {
        for_each_stmt(s, &mut |x| {
            if matches!(x.kind, StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. }) {
                look(x);
            }
        });
    }
    found
}

/// Calls `f` on the expression nodes of `s`, outermost first, mutably; where `f` returns
/// `true` (it replaced the node, say) the node's subexpressions are not visited.
pub fn walk_stmt_mut(s: &mut Stmt, f: &mut impl FnMut(&mut Expr) -> bool) {
    fn expr(e: &mut Expr, f: &mut impl FnMut(&mut Expr) -> bool) {
        if !f(e) {
            children_mut(e).into_iter().for_each(|c| expr(c, f));
        }
    }
    fn init(i: &mut Init, f: &mut impl FnMut(&mut Expr) -> bool) {
        match i {
            Init::Expr(e) => expr(e, f),
            Init::List(items, _) => items.iter_mut().for_each(|i| init(i, f)),
        }
    }
    match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr(e, f),
        StmtKind::VlaDecl { len, row, .. } => {
            expr(len, f);
            if let Some((_, per)) = row {
                expr(per, f);
            }
        }
        StmtKind::Decl { init: Some(i), .. } => init(i, f),
        StmtKind::If { cond, then, els } => {
            expr(cond, f);
            walk_stmt_mut(then, f);
            if let Some(e) = els {
                walk_stmt_mut(e, f);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr(cond, f);
            walk_stmt_mut(body, f);
        }
        StmtKind::For { init: inits, cond, step, body } => {
            inits.iter_mut().for_each(|s| walk_stmt_mut(s, f));
            cond.iter_mut().chain(step.iter_mut()).for_each(|e| expr(e, f));
            walk_stmt_mut(body, f);
        }
        StmtKind::Switch { cond, arms } => {
            expr(cond, f);
            arms.iter_mut().flat_map(|a| a.body.iter_mut()).for_each(|s| walk_stmt_mut(s, f));
        }
        StmtKind::Block(b) => b.iter_mut().for_each(|s| walk_stmt_mut(s, f)),
        StmtKind::Decl { init: None, .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None)
        | StmtKind::Empty => {}
    }
}

/// Calls `f` with every user function called (directly) in `s`.
pub fn calls_in_stmt(s: &Stmt, f: &mut impl FnMut(FuncId)) {
    walk_stmt(s, &mut |e| {
        if let ExprKind::Call(Callee::Func(id), _) = &e.kind {
            f(*id);
        }
    });
}

/// Whether `e` reads or writes the variable `v` anywhere.
pub fn mentions_var(e: &Expr, v: VarId) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Var(w) if w == v));
    found
}

/// Variables a statement assigns (`x = …`, `x op= …`, `x++`) or takes the address of
/// (`scanf("…", &x)`).
pub fn assigned_vars(s: &Stmt) -> std::collections::HashSet<VarId> {
    let mut out = std::collections::HashSet::new();
    walk_stmt(s, &mut |x| match &x.kind {
        ExprKind::Assign(lhs, _)
        | ExprKind::CompoundAssign { lhs, .. }
        | ExprKind::IncDec(_, lhs)
        | ExprKind::AddrOf(lhs) => {
            if let ExprKind::Var(v) = lhs.strip_implicit().kind {
                out.insert(v);
            }
        }
        _ => {}
    });
    out
}

#[cfg(test)]
mod tests {
    /// The `scanf` calls whose value a loop uses, or any use with `outside_loops`.
    fn used(body: &str, outside_loops: bool) -> Option<String> {
        let src = format!("#include <stdio.h>\nint main(void) {{ int x = 0, n, s = 0; {body} return 0; }}");
        let p = crate::syntax::lower::lower_source(&src).program;
        let main = p.func(p.func_by_name("main").unwrap());
        super::scanf_value_used(main.body.as_ref().unwrap(), outside_loops).map(|s| src[s.range()].to_string())
    }

    #[test]
    fn a_loop_that_asks_scanf_whether_it_read_uses_its_value() {
        assert_eq!(used("while (scanf(\"%d\", &x) == 1) s += x;", false).as_deref(), Some("scanf(\"%d\", &x)"));
        assert!(used("for (;;) { if (scanf(\"%d\", &x) != 1) break; s += x; }", false).is_some());
        assert!(used("do { n = scanf(\"%d\", &x); } while (n == 1);", false).is_some());
        // Dropped values, and a check outside loops (in `main`, a fixed number of reads).
        assert_eq!(used("for (n = 0; n < 3; n++) { scanf(\"%d\", &x); (void)scanf(\"%d\", &x); }", false), None);
        assert_eq!(used("if (scanf(\"%d\", &n) != 1) return 1; while (n-- > 0) s++;", false), None);
        assert!(used("if (scanf(\"%d\", &n) != 1) return 1;", true).is_some());
    }
}
