//! How control leaves a statement: by its end, by a `break`, or not at all (`return`,
//! `continue`, `exit`, a loop that never ends). The compiler's warnings (a `case` that runs
//! on into the next, a function that can end without a value) and the repairs that add the
//! missing `break;` read it.

use super::{Builtin, Callee, Expr, ExprKind, Stmt, StmtKind};

/// How control leaves a statement: by its end, and by a `break` out of it.
#[derive(Clone, Copy)]
pub struct Flow {
    /// Control can reach the statement's end.
    pub normal: bool,
    /// A `break` can leave it (out of the loop or `switch` around it).
    pub breaks: bool,
}

/// A condition that is a non-zero constant (`while (1)`).
pub fn always_true(cond: &Expr) -> bool {
    matches!(cond.strip_implicit().kind, ExprKind::Int(n) if n != 0)
}

/// A call of `exit`.
pub fn is_exit(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(Callee::Builtin(Builtin::Exit), _))
}

/// How control leaves `s`.
pub fn flow(s: &Stmt) -> Flow {
    let through = Flow { normal: true, breaks: false };
    match &s.kind {
        StmtKind::Return(_) | StmtKind::Continue => Flow { normal: false, breaks: false },
        StmtKind::Expr(e) if is_exit(e) => Flow { normal: false, breaks: false },
        StmtKind::Break => Flow { normal: false, breaks: true },
        StmtKind::Block(items) => sequence(items),
        StmtKind::If { then, els, .. } => {
            let t = flow(then);
            let e = els.as_deref().map_or(through, flow);
            Flow { normal: t.normal || e.normal, breaks: t.breaks || e.breaks }
        }
        StmtKind::While { cond, body } => Flow { normal: !always_true(cond) || flow(body).breaks, breaks: false },
        StmtKind::For { cond, body, .. } => {
            Flow { normal: cond.as_ref().is_some_and(|c| !always_true(c)) || flow(body).breaks, breaks: false }
        }
        StmtKind::DoWhile { body, cond } => {
            let b = flow(body);
            Flow { normal: (b.normal && !always_true(cond)) || b.breaks, breaks: false }
        }
        StmtKind::Switch { arms, .. } => {
            let has_default = arms.iter().any(|a| a.label.is_none());
            let mut breaks = false;
            let mut last = true;
            for arm in arms {
                let f = sequence(&arm.body);
                breaks |= f.breaks;
                last = f.normal;
            }
            Flow { normal: !has_default || breaks || last, breaks: false }
        }
        _ => through,
    }
}

/// How control leaves a sequence of statements (a block, a `case`'s statements).
pub fn sequence(items: &[Stmt]) -> Flow {
    let mut out = Flow { normal: true, breaks: false };
    for item in items {
        if !out.normal {
            break; // the rest is unreachable
        }
        let f = flow(item);
        out = Flow { normal: f.normal, breaks: out.breaks || f.breaks };
    }
    out
}
