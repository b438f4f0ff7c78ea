//! Data-flow signals for repairing a call: which variables the call's missing argument most
//! likely was. Leaving an argument out of a call leaves an anomaly a compiler would warn about
//! elsewhere in the function:
//!
//! - an argument that is *read* (a `printf` value, a plain parameter) leaves a value that is
//!   computed and never used: the variable's last write before the call is read by nothing
//!   after it (`-Wunused-but-set-variable`'s situation: `d9 = n % 10; printf("%d\n");`);
//! - an argument that is *written* (a `scanf` destination) leaves a variable read after the
//!   call with no write before it (`-Wuninitialized`'s: `scanf("%d"); if (n < 0) ...`).
//!
//! The analysis is over the arithmetic variables' accesses in the enclosing function in
//! source order (no loop back edges: a read textually before a write in a loop does not
//! count as reading it), outside the call itself. It only lowers the cost of the variables
//! that would resolve the anomaly (see `repair::FLOW_BONUS`); it never removes a candidate.

use std::collections::HashSet;

use crate::ir::{Builtin, Callee, Expr, ExprKind, Init, Program, Span, Stmt, StmtKind, VarId};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Access {
    Read,
    Write,
    /// The initialiser of the declaration: a write, but a value picked before any input.
    Init,
}

/// One access of a variable at a byte offset (a write at the end of the expression that makes
/// it: `x = f(x)` reads `x` before it writes it).
type Event = (VarId, u32, Access);

/// The names the signals point at, for one call.
#[derive(Clone, Debug, Default)]
pub struct FlowSignals {
    /// Variables whose last write before the call is never read afterwards.
    pub unused_value: HashSet<String>,
    /// Variables read after the call before any write, and never written before it but by
    /// their initialiser (and then never written after it).
    pub needs_value: HashSet<String>,
}

/// The signals for the call at `call` inside function body `body`.
pub fn signals(program: &Program, body: &Stmt, call: Span) -> FlowSignals {
    let mut events = Vec::new();
    stmt_events(body, &mut events);
    let outside = |at: u32| at < call.start || at >= call.end;
    events.retain(|e| outside(e.1));
    events.sort_by_key(|e| (e.1, e.0.0));
    let mut ids: Vec<VarId> = events.iter().map(|e| e.0).collect();
    ids.sort_by_key(|v| v.0);
    ids.dedup_by_key(|v| v.0);
    let mut out = FlowSignals::default();
    for id in ids {
        let mine = events.iter().filter(|e| e.0.0 == id.0);
        let before: Vec<&Event> = mine.clone().filter(|e| e.1 < call.start).collect();
        let after: Vec<&Event> = mine.filter(|e| e.1 >= call.end).collect();
        let var = program.var(id);
        // Arithmetic variables only: an array is written element by element and passed to
        // `scanf("%s", s)` without `&`, which this analysis does not follow.
        if !var.ty.is_arithmetic() {
            continue;
        }
        let name = &var.name;
        let writes = |e: &&&Event| e.2 != Access::Read;
        // Only its initialiser gives it a value, yet it is read after the call: like a
        // variable with no value, it waits for one (`float v = 0; scanf("%f"); s += v;`).
        let only_initialised = before.iter().filter(writes).all(|e| e.2 == Access::Init)
            && !after.iter().any(|e| e.2 != Access::Read)
            && after.iter().any(|e| e.2 == Access::Read);
        if let Some(w) = before.iter().rev().find(writes) {
            let read_since = before.iter().chain(after.iter()).any(|e| e.2 == Access::Read && e.1 > w.1);
            if !read_since {
                out.unused_value.insert(name.clone());
            } else if only_initialised {
                out.needs_value.insert(name.clone());
            }
        } else if after.first().is_some_and(|e| e.2 == Access::Read) {
            out.needs_value.insert(name.clone());
        }
    }
    out
}

fn stmt_events(s: &Stmt, out: &mut Vec<Event>) {
    match &s.kind {
        StmtKind::Expr(x) => expr_events(x, out),
        StmtKind::VlaDecl { len, row, .. } => {
            expr_events(len, out);
            if let Some((_, per)) = row {
                expr_events(per, out);
            }
        }
        StmtKind::Decl { var, init: Some(init) } => {
            init_events(init, out);
            out.push((*var, s.span.end, Access::Init));
        }
        StmtKind::Return(Some(x)) => expr_events(x, out),
        StmtKind::If { cond, then, els } => {
            expr_events(cond, out);
            stmt_events(then, out);
            if let Some(x) = els {
                stmt_events(x, out);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr_events(cond, out);
            stmt_events(body, out);
        }
        StmtKind::For { init, cond, step, body } => {
            for st in init {
                stmt_events(st, out);
            }
            if let Some(c) = cond {
                expr_events(c, out);
            }
            if let Some(c) = step {
                expr_events(c, out);
            }
            stmt_events(body, out);
        }
        StmtKind::Switch { cond, arms } => {
            expr_events(cond, out);
            for arm in arms {
                for st in &arm.body {
                    stmt_events(st, out);
                }
            }
        }
        StmtKind::Block(items) => items.iter().for_each(|st| stmt_events(st, out)),
        _ => {}
    }
}

fn init_events(init: &Init, out: &mut Vec<Event>) {
    match init {
        Init::Expr(x) => expr_events(x, out),
        Init::List(items, _) => items.iter().for_each(|i| init_events(i, out)),
    }
}

fn expr_events(e: &Expr, out: &mut Vec<Event>) {
    let e = e.strip_implicit();
    match &e.kind {
        ExprKind::Var(v) => out.push((*v, e.span.start, Access::Read)),
        ExprKind::Assign(lhs, rhs) => {
            expr_events(rhs, out);
            match lhs.as_var() {
                Some(v) => out.push((v, e.span.end, Access::Write)),
                None => expr_events(lhs, out),
            }
        }
        ExprKind::CompoundAssign { lhs: a, rhs: b, .. } => {
            expr_events(b, out);
            expr_events(a, out);
            if let Some(v) = a.as_var() {
                out.push((v, e.span.end, Access::Write));
            }
        }
        ExprKind::IncDec(_, a) => {
            expr_events(a, out);
            if let Some(v) = a.as_var() {
                out.push((v, e.span.end, Access::Write));
            }
        }
        ExprKind::Call(callee, args) => {
            let scanf = matches!(callee, Callee::Builtin(Builtin::Scanf));
            for a in args {
                // `&x` passed on: written by the callee (scanf only writes it).
                if let ExprKind::AddrOf(x) = &a.strip_implicit().kind
                    && let Some(v) = x.as_var()
                {
                    if !scanf {
                        out.push((v, a.span.start, Access::Read));
                    }
                    out.push((v, e.span.end, Access::Write));
                } else {
                    expr_events(a, out);
                }
            }
        }
        ExprKind::Unary(_, a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Decay(a)
        | ExprKind::Member { base: a, .. } => expr_events(a, out),
        ExprKind::Binary(_, a, b) | ExprKind::Logical(_, a, b) | ExprKind::Index(a, b) | ExprKind::Comma(a, b) => {
            expr_events(a, out);
            expr_events(b, out);
        }
        ExprKind::Cond(a, b, c) => {
            expr_events(a, out);
            expr_events(b, out);
            expr_events(c, out);
        }
        _ => {}
    }
}

/// The variables of `body` that hold characters: declared `char`, or given what `getchar()`
/// returns (`int c = getchar()`, `c = getchar()`). What a `putchar` that lost its argument
/// most likely printed, rather than a state flag of the same `int` type.
pub fn characters(program: &Program, body: &Stmt) -> HashSet<String> {
    let mut out = HashSet::new();
    let read = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Call(Callee::Builtin(Builtin::Getchar), _));
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        if let StmtKind::Decl { var, init } = &s.kind {
            let v = program.var(*var);
            let char_typed = matches!(v.ty, crate::ir::Type::Int(i) if i.kind == crate::ir::IntKind::Char);
            if char_typed || matches!(init, Some(Init::Expr(e)) if read(e)) {
                out.insert(v.name.clone());
            }
        }
    });
    crate::ir::walk::walk_stmt(body, &mut |e| {
        if let ExprKind::Assign(lhs, rhs) = &e.kind
            && read(rhs)
            && let ExprKind::Var(v) = lhs.strip_implicit().kind
        {
            out.insert(program.var(v).name.clone());
        }
    });
    out
}

/// The variables the statements just before and after the call at `call` pass to a function
/// of the same name (`callee`), in the block holding it. A value printed (or read) one by one
/// is rarely printed twice in a row: `printf("%d", a); printf("%d"); printf("%d", c);` lost `b`.
pub fn neighbours(program: &Program, body: &Stmt, call: Span, callee: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    fn same_callee<'s>(program: &Program, s: &'s Stmt, callee: &str) -> Option<&'s [Expr]> {
        let StmtKind::Expr(e) = &s.kind else { return None };
        let ExprKind::Call(c, args) = &e.strip_implicit().kind else { return None };
        let name = match c {
            Callee::Builtin(b) => b.c_name(),
            Callee::Func(f) => program.func(*f).name.as_str(),
        };
        (name == callee).then_some(args.as_slice())
    }
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        let StmtKind::Block(items) = &s.kind else { return };
        let Some(k) = items.iter().position(|st| st.span.start <= call.start && call.end <= st.span.end) else {
            return;
        };
        if !matches!(items[k].kind, StmtKind::Expr(_)) {
            return;
        }
        for near in [k.checked_sub(1), Some(k + 1)].into_iter().flatten().filter_map(|i| items.get(i)) {
            for arg in same_callee(program, near, callee).into_iter().flatten() {
                crate::ir::walk::walk_expr(arg, &mut |e| {
                    if let ExprKind::Var(v) = e.kind {
                        out.insert(program.var(v).name.clone());
                    }
                });
            }
        }
    });
    out
}
