//! How control leaves a statement: by its end, by a `break`, by a `continue`, or not at all
//! (`return`, `exit`, a loop that never ends). The compiler's warnings (a `case` that runs
//! on into the next, a function that can end without a value) and the repairs that add the
//! missing `break;` read it.

use super::{Builtin, Callee, Expr, ExprKind, Stmt, StmtKind};

/// How control leaves a statement: by its end, by a `break` out of it, by a `continue`.
#[derive(Clone, Copy)]
pub struct Flow {
    /// Control can reach the statement's end.
    pub normal: bool,
    /// A `break` can leave it (out of the loop or `switch` around it).
    pub breaks: bool,
    /// A `continue` can leave it (to the next round of the loop around it).
    pub continues: bool,
}

impl Flow {
    /// Control goes on after the statement, or to the next round of the loop around it.
    pub fn stays_in_loop(self) -> bool {
        self.normal || self.continues
    }

    /// Either way of leaving: control can leave by `a` or by `b`.
    fn either(a: Flow, b: Flow) -> Flow {
        Flow { normal: a.normal || b.normal, breaks: a.breaks || b.breaks, continues: a.continues || b.continues }
    }
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
    let through = Flow { normal: true, breaks: false, continues: false };
    let stops = Flow { normal: false, breaks: false, continues: false };
    // A loop's own `break` and `continue` stay inside it.
    let looping = |normal: bool| Flow { normal, breaks: false, continues: false };
    match &s.kind {
        StmtKind::Return(_) => stops,
        StmtKind::Expr(e) if is_exit(e) => stops,
        StmtKind::Continue => Flow { continues: true, ..stops },
        StmtKind::Break => Flow { breaks: true, ..stops },
        StmtKind::Block(items) => sequence(items),
        StmtKind::If { then, els, .. } => Flow::either(flow(then), els.as_deref().map_or(through, flow)),
        StmtKind::While { cond, body } => looping(!always_true(cond) || flow(body).breaks),
        StmtKind::For { cond, body, .. } => {
            looping(cond.as_ref().is_some_and(|c| !always_true(c)) || flow(body).breaks)
        }
        StmtKind::DoWhile { body, cond } => {
            let b = flow(body);
            looping(((b.normal || b.continues) && !always_true(cond)) || b.breaks)
        }
        StmtKind::Switch { arms, .. } => {
            // A `break` ends the `switch`; a `continue` goes on to the loop around it.
            let has_default = arms.iter().any(|a| a.label.is_none());
            let (mut breaks, mut continues, mut last) = (false, false, true);
            for arm in arms {
                let f = sequence(&arm.body);
                breaks |= f.breaks;
                continues |= f.continues;
                last = f.normal;
            }
            Flow { normal: !has_default || breaks || last, breaks: false, continues }
        }
        _ => through,
    }
}

/// How control leaves a sequence of statements (a block, a `case`'s statements).
pub fn sequence(items: &[Stmt]) -> Flow {
    let mut out = Flow { normal: true, breaks: false, continues: false };
    for item in items {
        if !out.normal {
            break; // the rest is unreachable
        }
        let f = flow(item);
        out = Flow { normal: f.normal, breaks: out.breaks || f.breaks, continues: out.continues || f.continues };
    }
    out
}
