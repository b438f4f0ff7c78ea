//! Inlining every helper function into the entry function, so that two programs that split
//! the same work into different functions (a reference with `swap`, a student who swaps in
//! `main`; a student's `desenha_linha` that prints what the reference prints in a loop of
//! `main`) can be compared as one function each.
//!
//! The result is a program with the same meaning: each call of a user function becomes, just
//! before the statement that makes it, a copy of the callee's body with fresh variables. A
//! scalar parameter is a fresh local initialised with its argument; a pointer parameter whose
//! argument is `&v` or an array `a` (and that the body never reassigns) is replaced by the
//! argument itself, so `*p` reads and writes `v`. A `return` becomes an assignment to a fresh
//! result variable, and the code after it is restructured so that it no longer runs: the other
//! branch of an `if` that always returns takes the rest of the body; a `return` inside a loop
//! sets a `done` flag and breaks, and the rest runs under `if (!done)`.
//!
//! Statements keep their spans: the statements of a copied body point into the callee's text,
//! the hoisted parameter declarations at the call. Only what C evaluates exactly once, in a
//! known order, is inlined: a call in a loop condition or step, in the right operand of
//! `&&`/`||` or an arm of `?:`, two calls in one statement of which one has effects, a call
//! beside other side effects, recursion and `static` locals make [`into_entry`] give up with
//! the reason.

use std::collections::HashMap;

use super::Span;
use super::program::*;
use super::types::Type;
use super::walk::{children, children_mut, has_effects, walk_expr};

/// How deep helper calls may nest before inlining gives up.
const MAX_DEPTH: usize = 8;

/// `program` with every call of a user function in `entry` (transitively) replaced by the
/// callee's body, and every other function's body dropped (functions `entry` never calls
/// included: they take no part in its meaning). `Ok(None)` when there is nothing to inline
/// (`entry` calls no user function and is the only function defined); `Err` with the reason
/// when some call cannot be inlined.
pub fn into_entry(program: &Program, entry: &str) -> Result<Option<Program>, String> {
    let Some(caller) = program.func_by_name(entry) else { return Err(format!("there is no `{entry}`")) };
    let others = (0..program.funcs.len()).any(|i| i != caller.0 as usize && program.funcs[i].body.is_some());
    if !others {
        return Ok(None);
    }
    let mut inliner = Inliner { out: program.clone(), caller, stack: vec![caller] };
    let body = program.func(caller).body.clone().expect("defined");
    let span = body.span;
    let stmts = inliner.stmt(body)?;
    let mut out = inliner.out;
    // The body's own block, not one around it: what `main` does at its top level stays there.
    out.funcs[caller.0 as usize].body = Some(block(stmts, span));
    for (i, f) in out.funcs.iter_mut().enumerate() {
        if i != caller.0 as usize {
            f.body = None;
        }
    }
    Ok(Some(out))
}

/// `program` with the global variables that only `entry` uses made locals of `entry`,
/// declared at the top of its body with their initialisers (or zero, as C starts a global):
/// the same meaning when nothing else calls `entry` and no other function that runs uses
/// them (helpers that do must be inlined first). Students keep their variables global as a
/// habit; the verified engine models locals only. `None` when no global is used, or when one
/// cannot move (another function uses it, `entry` is called, a type without a zero here).
pub fn globals_into_entry(program: &Program, entry: &str) -> Option<Program> {
    let caller = program.func_by_name(entry)?;
    let mut used: std::collections::BTreeSet<VarId> = Default::default();
    for (i, f) in program.funcs.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let mut here = std::collections::BTreeSet::new();
        let mut calls_entry = false;
        super::walk::walk_stmt(body, &mut |e| match &e.kind {
            ExprKind::Var(v) if program.var(*v).kind == VarKind::Global => {
                here.insert(*v);
            }
            ExprKind::Call(Callee::Func(g), _) if *g == caller => calls_entry = true,
            _ => {}
        });
        if calls_entry || (i != caller.0 as usize && !here.is_empty()) {
            return None;
        }
        used.extend(here);
    }
    if used.is_empty() {
        return None;
    }
    let mut out = program.clone();
    let mut decls = Vec::new();
    for (v, init) in &program.globals {
        if !used.contains(v) {
            continue;
        }
        let var = program.var(*v);
        let span = var.span;
        let init = match (init, &var.ty) {
            (Some(i), _) => i.clone(),
            (None, Type::Int(_)) => Init::Expr(Expr::new(ExprKind::Int(0), var.ty.clone(), span)),
            (None, Type::Float(_)) => Init::Expr(Expr::new(ExprKind::Float(0.0), var.ty.clone(), span)),
            (None, Type::Array(..)) => Init::List(Vec::new(), span),
            _ => return None,
        };
        decls.push(stmt_of(StmtKind::Decl { var: *v, init: Some(init) }, span));
        let moved = &mut out.vars[v.0 as usize];
        moved.kind = VarKind::Local;
        moved.func = Some(caller);
        out.funcs[caller.0 as usize].locals.push(*v);
    }
    if decls.len() != used.len() {
        return None;
    }
    let f = &mut out.funcs[caller.0 as usize];
    let body = f.body.take()?;
    let span = body.span;
    let stmts = match body.kind {
        StmtKind::Block(stmts) => stmts,
        other => vec![stmt_of(other, span)],
    };
    f.body = Some(stmt_of(StmtKind::Block(decls.into_iter().chain(stmts).collect()), span));
    out.globals.retain(|(v, _)| !used.contains(v));
    Some(out)
}

struct Inliner {
    out: Program,
    caller: FuncId,
    /// The functions being inlined, outermost first (recursion).
    stack: Vec<FuncId>,
}

fn user_callee(e: &Expr) -> Option<FuncId> {
    match &e.kind {
        ExprKind::Call(Callee::Func(f), _) => Some(*f),
        _ => None,
    }
}

fn calls_user_function(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| found |= user_callee(x).is_some());
    found
}

fn stmt_of(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

fn var_expr(v: VarId, ty: Type, span: Span) -> Expr {
    Expr::new(ExprKind::Var(v), ty, span)
}

fn block(mut stmts: Vec<Stmt>, span: Span) -> Stmt {
    if stmts.len() == 1 { stmts.pop().expect("one") } else { stmt_of(StmtKind::Block(stmts), span) }
}

fn contains_return(s: &Stmt) -> bool {
    let mut found = false;
    super::walk::for_each_stmt(s, &mut |x| found |= matches!(x.kind, StmtKind::Return(_)));
    found
}

/// Every path through `s` ends in a `return`.
fn always_returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(items) => items.iter().any(always_returns),
        StmtKind::If { then, els: Some(els), .. } => always_returns(then) && always_returns(els),
        _ => false,
    }
}

impl Inliner {
    fn fresh(&mut self, like: &Var, name: String, ty: Type) -> VarId {
        let id = VarId(self.out.vars.len() as u32);
        self.out.vars.push(Var { name, ty, kind: VarKind::Local, func: Some(self.caller), ..like.clone() });
        self.out.funcs[self.caller.0 as usize].locals.push(id);
        id
    }

    fn int_flag(&mut self, span: Span) -> VarId {
        let like = Var {
            name: String::new(),
            ty: Type::INT,
            span,
            kind: VarKind::Local,
            func: Some(self.caller),
            addressable: false,
        };
        self.fresh(&like, "done".into(), Type::INT)
    }

    /// `s` with every user call inlined: the statements that replace it.
    fn stmt(&mut self, s: Stmt) -> Result<Vec<Stmt>, String> {
        let span = s.span;
        let mut pre = Vec::new();
        let kind = match s.kind {
            StmtKind::Expr(e) if user_callee(e.strip_implicit()).is_some() => {
                self.check_order(&e)?;
                let ExprKind::Call(Callee::Func(f), args) = e.strip_implicit().kind.clone() else { unreachable!() };
                let (stmts, _) = self.expand(f, args, false, e.span)?;
                return Ok(stmts);
            }
            StmtKind::Expr(e) => StmtKind::Expr(self.hoist(e, &mut pre)?),
            StmtKind::Decl { var, init: Some(Init::Expr(e)) } => {
                StmtKind::Decl { var, init: Some(Init::Expr(self.hoist(e, &mut pre)?)) }
            }
            StmtKind::Return(Some(e)) => StmtKind::Return(Some(self.hoist(e, &mut pre)?)),
            StmtKind::If { cond, then, els } => {
                let cond = self.hoist(cond, &mut pre)?;
                let then = Box::new(self.nested(*then)?);
                let els = match els {
                    Some(e) => Some(Box::new(self.nested(*e)?)),
                    None => None,
                };
                StmtKind::If { cond, then, els }
            }
            StmtKind::Switch { cond, arms } => {
                let cond = self.hoist(cond, &mut pre)?;
                let mut new_arms = Vec::new();
                for arm in arms {
                    let mut body = Vec::new();
                    for st in arm.body {
                        body.extend(self.stmt(st)?);
                    }
                    new_arms.push(SwitchArm { body, ..arm });
                }
                StmtKind::Switch { cond, arms: new_arms }
            }
            StmtKind::While { cond, body } => {
                self.not_repeated(&cond, "a loop condition")?;
                StmtKind::While { cond, body: Box::new(self.nested(*body)?) }
            }
            StmtKind::DoWhile { body, cond } => {
                self.not_repeated(&cond, "a loop condition")?;
                StmtKind::DoWhile { body: Box::new(self.nested(*body)?), cond }
            }
            StmtKind::For { init, cond, step, body } => {
                // The initialisers run once, before anything else of the loop: what they
                // call can run just before the loop.
                let mut new_init = Vec::new();
                for st in init {
                    let mut expanded = self.stmt(st)?;
                    let last = expanded.pop();
                    pre.extend(expanded);
                    new_init.extend(last);
                }
                for (e, what) in [(&cond, "a loop condition"), (&step, "a loop step")] {
                    if let Some(e) = e {
                        self.not_repeated(e, what)?;
                    }
                }
                StmtKind::For { init: new_init, cond, step, body: Box::new(self.nested(*body)?) }
            }
            StmtKind::Block(items) => {
                let mut out = Vec::new();
                for st in items {
                    out.extend(self.stmt(st)?);
                }
                StmtKind::Block(out)
            }
            StmtKind::Decl { init: Some(Init::List(items, lspan)), var } => {
                let list = Init::List(items, lspan);
                let mut calls = false;
                super::walk::walk_init(&list, &mut |x| calls |= user_callee(x).is_some());
                if calls {
                    return Err("a function call in an initialiser list".into());
                }
                StmtKind::Decl { var, init: Some(list) }
            }
            StmtKind::VlaDecl { var, len, row } => {
                let len = self.hoist(len, &mut pre)?;
                let row = match row {
                    Some((v, per)) => Some((v, self.hoist(per, &mut pre)?)),
                    None => None,
                };
                StmtKind::VlaDecl { var, len, row }
            }
            other => other,
        };
        pre.push(stmt_of(kind, span));
        Ok(pre)
    }

    /// A nested statement (a branch, a loop body) inlined as one statement.
    fn nested(&mut self, s: Stmt) -> Result<Stmt, String> {
        let span = s.span;
        Ok(block(self.stmt(s)?, span))
    }

    fn not_repeated(&self, e: &Expr, what: &str) -> Result<(), String> {
        if calls_user_function(e) {
            return Err(format!("a call of a function of yours in {what}"));
        }
        Ok(())
    }

    /// `e` with its user calls replaced by their results, the inlined bodies appended to `pre`
    /// in the order C evaluates them.
    fn hoist(&mut self, mut e: Expr, pre: &mut Vec<Stmt>) -> Result<Expr, String> {
        if !calls_user_function(&e) {
            return Ok(e);
        }
        // What else the statement does must not run before the calls in C.
        let rest = {
            let mut stripped = e.clone();
            strip_calls(&mut stripped);
            stripped
        };
        let ok = match &rest.kind {
            ExprKind::Assign(lhs, rhs) => !has_effects(lhs) && !has_effects(rhs),
            ExprKind::Call(Callee::Builtin(_), args) => args.iter().all(|a| !has_effects(a)),
            _ => !has_effects(&rest),
        };
        if !ok {
            return Err("a call of a function of yours beside other side effects".into());
        }
        self.check_order(&e)?;
        self.replace_calls(&mut e, pre)?;
        Ok(e)
    }

    /// C leaves the order of sibling operands and arguments open: two of them may each call
    /// a function of the student's only when at most one of those calls does something
    /// (input, output, a write outside its own variables).
    fn check_order(&self, e: &Expr) -> Result<(), String> {
        let noisy = children(e)
            .into_iter()
            .filter(|c| {
                let mut found = false;
                walk_expr(c, &mut |x| found |= user_callee(x).is_some_and(|f| !self.quiet(f, &mut Vec::new())));
                found
            })
            .count();
        let calling = children(e).into_iter().filter(|c| calls_user_function(c)).count();
        if calling > 1 && noisy > 0 {
            return Err("two calls of functions of yours in one statement, in an order C leaves open".into());
        }
        children(e).into_iter().try_for_each(|c| self.check_order(c))
    }

    /// `f` (and what it calls) reads no input, prints nothing and writes only its own
    /// variables.
    fn quiet(&self, f: FuncId, seen: &mut Vec<FuncId>) -> bool {
        if seen.contains(&f) {
            return true;
        }
        seen.push(f);
        let func = self.out.func(f);
        let Some(body) = &func.body else { return false };
        let own = |e: &Expr| {
            matches!(e.strip_implicit().kind, ExprKind::Var(v)
                if func.locals.contains(&v) || (func.params.contains(&v) && !matches!(self.out.var(v).ty, Type::Pointer(_))))
        };
        let mut quiet = true;
        super::walk::walk_stmt(body, &mut |e| {
            quiet &= match &e.kind {
                ExprKind::Call(Callee::Builtin(b), _) => b.is_pure(),
                ExprKind::Call(Callee::Func(g), _) => self.quiet(*g, &mut seen.clone()),
                ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => own(lhs),
                _ => true,
            }
        });
        quiet
    }

    fn replace_calls(&mut self, e: &mut Expr, pre: &mut Vec<Stmt>) -> Result<(), String> {
        match &e.kind {
            ExprKind::Logical(_, _, b) if calls_user_function(b) => {
                return Err("a call of a function of yours after `&&` or `||`".into());
            }
            ExprKind::Cond(_, a, b) if calls_user_function(a) || calls_user_function(b) => {
                return Err("a call of a function of yours in an arm of `?:`".into());
            }
            _ => {}
        }
        for c in children_mut(e) {
            self.replace_calls(c, pre)?;
        }
        if let ExprKind::Call(Callee::Func(f), args) = &e.kind {
            let (f, args) = (*f, args.clone());
            let (mut stmts, result) = self.expand(f, args, true, e.span)?;
            let Some(r) = result else { return Err("the value of a function that returns nothing".into()) };
            // A body that ends in its only `return` gives its value straight to the use
            // (`printf("%.2f", sum / n)`, not a result variable): nothing runs in between
            // that could change what it reads (see `check_order`).
            if let Some(value) = stmts.last().and_then(|last| assigned_value(last, r))
                && stmts[..stmts.len() - 1].iter().all(|st| !assigns_var(st, r))
            {
                let value = value.clone();
                stmts.pop();
                pre.extend(stmts);
                *e = Expr { span: e.span, ..value };
            } else {
                pre.extend(stmts);
                *e = var_expr(r, e.ty.clone(), e.span);
            }
        }
        Ok(())
    }

    /// The statements a call of `f` with `args` becomes, and the variable that holds its
    /// result (when `want_result` and `f` returns a value).
    fn expand(
        &mut self,
        f: FuncId,
        args: Vec<Expr>,
        want_result: bool,
        call: Span,
    ) -> Result<(Vec<Stmt>, Option<VarId>), String> {
        let callee = self.out.func(f).clone();
        let name = callee.name.clone();
        if self.stack.contains(&f) {
            return Err(format!("`{name}` calls itself"));
        }
        if self.stack.len() > MAX_DEPTH {
            return Err("calls nested too deep".into());
        }
        let Some(body) = callee.body.clone() else { return Err(format!("`{name}` has no body")) };
        if args.len() != callee.params.len() {
            return Err(format!("`{name}` called with {} arguments", args.len()));
        }
        let caller = self.caller.0 as usize;
        self.out.funcs[caller].unsupported.extend(callee.unsupported.iter().cloned());
        let mut out = Vec::new();
        let mut subst: HashMap<VarId, Expr> = HashMap::new();
        let mut renamed: HashMap<VarId, VarId> = HashMap::new();
        let mut scalars = Vec::new();
        for (p, mut arg) in callee.params.iter().zip(args) {
            self.replace_calls(&mut arg, &mut out)?;
            let pv = self.out.var(*p).clone();
            // `&v`, or an array variable (its decay is implicit, so stripped here).
            let root = arg.strip_implicit();
            let address = match &root.kind {
                ExprKind::AddrOf(x) => matches!(x.kind, ExprKind::Var(_)),
                ExprKind::Var(_) => matches!(root.ty, Type::Array(..)),
                _ => false,
            };
            if matches!(pv.ty, Type::Pointer(_)) && address && !reassigned(&body, *p) {
                subst.insert(*p, arg);
            } else {
                let arg = if arg.ty == pv.ty || !arg.ty.is_arithmetic() {
                    arg
                } else {
                    let span = arg.span;
                    Expr::new(ExprKind::Cast { expr: Box::new(arg), implicit: true }, pv.ty.clone(), span)
                };
                scalars.push((*p, arg));
            }
        }
        for l in &callee.locals {
            let lv = self.out.var(*l).clone();
            if lv.kind == VarKind::StaticLocal {
                return Err(format!("a `static` variable in `{name}`"));
            }
            let fresh = self.fresh(&lv, lv.name.clone(), lv.ty.clone());
            renamed.insert(*l, fresh);
        }
        let mut body = body;
        rename_stmt(&mut body, &renamed, &subst);
        self.stack.push(f);
        let inlined = self.stmt(body);
        self.stack.pop();
        let mut inlined = inlined?;
        // A scalar parameter is its argument itself when the body changes neither (`menor(min,
        // x)` reads `min` and `x`), else a fresh variable that starts with the argument's value.
        let written = written_roots(&inlined);
        let (mut by_value, mut copies) = (HashMap::new(), HashMap::new());
        for (p, arg) in scalars {
            let unchanged = written.as_ref().is_some_and(|w| {
                !w.contains(&p) && {
                    let mut reads = Vec::new();
                    walk_expr(&arg, &mut |x| {
                        if let ExprKind::Var(v) = x.kind {
                            reads.push(v)
                        }
                    });
                    reads.iter().all(|v| !w.contains(v))
                }
            });
            if unchanged && !has_effects(&arg) {
                by_value.insert(p, arg);
            } else {
                let pv = self.out.var(p).clone();
                let fresh = self.fresh(&pv, pv.name.clone(), pv.ty.clone());
                copies.insert(p, fresh);
                out.push(stmt_of(StmtKind::Decl { var: fresh, init: Some(Init::Expr(arg)) }, call));
            }
        }
        for st in &mut inlined {
            rename_stmt(st, &copies, &by_value);
        }
        let result = (want_result && callee.ret != Type::Void).then(|| {
            let like = Var {
                name: String::new(),
                ty: callee.ret.clone(),
                span: callee.name_span,
                kind: VarKind::Local,
                func: Some(self.caller),
                addressable: false,
            };
            self.fresh(&like, format!("{name}_result"), callee.ret.clone())
        });
        let result_ty = callee.ret.clone();
        out.extend(self.without_returns(inlined, result.map(|r| (r, result_ty)))?);
        Ok((out, result))
    }

    /// `stmts`, a function body's tail, with every `return` made an assignment to `result`
    /// and the code after it unreachable by structure.
    fn without_returns(&mut self, stmts: Vec<Stmt>, result: Option<(VarId, Type)>) -> Result<Vec<Stmt>, String> {
        let mut out = Vec::new();
        let mut rest = stmts.into_iter();
        while let Some(s) = rest.next() {
            if !contains_return(&s) {
                out.push(s);
                continue;
            }
            let span = s.span;
            match s.kind {
                StmtKind::Return(value) => {
                    if let (Some((r, ty)), Some(v)) = (&result, value) {
                        out.push(assign(*r, ty.clone(), v, span));
                    }
                    return Ok(out);
                }
                StmtKind::Block(items) => {
                    out.extend(self.without_returns(items.into_iter().chain(rest).collect(), result)?);
                    return Ok(out);
                }
                StmtKind::If { cond, then, els } => {
                    let after: Vec<Stmt> = rest.collect();
                    let then_returns = always_returns(&then);
                    let els_returns = els.as_deref().is_some_and(always_returns);
                    let (then_tail, els_tail) = match (then_returns, els_returns) {
                        _ if after.is_empty() => (vec![], vec![]),
                        (true, true) => (vec![], vec![]),
                        (true, false) => (vec![], after),
                        (false, true) => (after, vec![]),
                        (false, false) => {
                            return Err("a `return` that only some paths take, with more code after it".into());
                        }
                    };
                    let then_stmts =
                        self.without_returns(std::iter::once(*then).chain(then_tail).collect(), result.clone())?;
                    let els_stmts: Vec<Stmt> = els.map(|e| *e).into_iter().chain(els_tail).collect();
                    let els_stmts = self.without_returns(els_stmts, result)?;
                    let els = (!els_stmts.is_empty()).then(|| Box::new(block(els_stmts, span)));
                    out.push(stmt_of(StmtKind::If { cond, then: Box::new(block(then_stmts, span)), els }, span));
                    return Ok(out);
                }
                kind @ (StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. }) => {
                    let done = self.int_flag(span);
                    let zero = Expr::new(ExprKind::Int(0), Type::INT, span);
                    out.push(stmt_of(StmtKind::Decl { var: done, init: Some(Init::Expr(zero)) }, span));
                    // The result starts at zero: it is read only once set, but a value left unset
                    // on the paths that do not return looks live to an analysis of dependences,
                    // and the two programs' unset values differ.
                    if let Some((r, ty)) = &result {
                        let kind = match ty {
                            Type::Int(_) => Some(ExprKind::Int(0)),
                            Type::Float(_) => Some(ExprKind::Float(0.0)),
                            _ => None,
                        };
                        if let Some(kind) = kind {
                            out.push(assign(*r, ty.clone(), Expr::new(kind, ty.clone(), span), span));
                        }
                    }
                    let mut lp = stmt_of(kind, span);
                    returns_break(&mut lp, done, &result, true)?;
                    out.push(lp);
                    let after = self.without_returns(rest.collect(), result)?;
                    if !after.is_empty() {
                        let not_done = Expr::new(
                            ExprKind::Unary(UnOp::Not, Box::new(var_expr(done, Type::INT, span))),
                            Type::INT,
                            span,
                        );
                        out.push(stmt_of(
                            StmtKind::If { cond: not_done, then: Box::new(block(after, span)), els: None },
                            span,
                        ));
                    }
                    return Ok(out);
                }
                _ => return Err("a `return` inside `switch`".into()),
            }
        }
        Ok(out)
    }
}

fn assign(r: VarId, ty: Type, value: Expr, span: Span) -> Stmt {
    let vspan = value.span;
    let lhs = var_expr(r, ty.clone(), vspan);
    stmt_of(StmtKind::Expr(Expr::new(ExprKind::Assign(Box::new(lhs), Box::new(value)), ty, vspan)), span)
}

/// In the loop `s`, each `return` becomes `result = value; done = 1; break;` (`top`: `s` is
/// the loop itself, whose `break` leaves it; a `return` in an inner loop or a `switch` gives up).
fn returns_break(s: &mut Stmt, done: VarId, result: &Option<(VarId, Type)>, top: bool) -> Result<(), String> {
    let span = s.span;
    match &mut s.kind {
        StmtKind::Return(value) => {
            let mut stmts = Vec::new();
            if let (Some((r, ty)), Some(v)) = (result, value.take()) {
                stmts.push(assign(*r, ty.clone(), v, span));
            }
            let one = Expr::new(ExprKind::Int(1), Type::INT, span);
            stmts.push(assign(done, Type::INT, one, span));
            stmts.push(stmt_of(StmtKind::Break, span));
            *s = stmt_of(StmtKind::Block(stmts), span);
            Ok(())
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => {
            if top {
                returns_break(body, done, result, false)
            } else if contains_return(body) {
                Err("a `return` inside a nested loop".into())
            } else {
                Ok(())
            }
        }
        StmtKind::Switch { arms, .. } if arms.iter().flat_map(|a| &a.body).any(contains_return) => {
            Err("a `return` inside `switch`".into())
        }
        StmtKind::Block(items) => items.iter_mut().try_for_each(|x| returns_break(x, done, result, top)),
        StmtKind::If { then, els, .. } => {
            returns_break(then, done, result, top)?;
            els.as_deref_mut().map_or(Ok(()), |e| returns_break(e, done, result, top))
        }
        _ => Ok(()),
    }
}

/// The value `s` assigns to `r`, when it is the statement `r = value;`.
fn assigned_value(s: &Stmt, r: VarId) -> Option<&Expr> {
    match &s.kind {
        StmtKind::Expr(Expr { kind: ExprKind::Assign(lhs, value), .. }) if matches!(lhs.kind, ExprKind::Var(v) if v == r) => {
            Some(value)
        }
        _ => None,
    }
}

fn assigns_var(s: &Stmt, r: VarId) -> bool {
    let mut found = false;
    super::walk::walk_stmt(s, &mut |e| {
        found |= matches!(&e.kind, ExprKind::Assign(lhs, _) if matches!(lhs.kind, ExprKind::Var(v) if v == r));
    });
    found
}

/// The variables `stmts` may write (assigned, incremented, read into, address taken, an
/// array handed to a library function that writes); `None` when a write goes through a
/// pointer to somewhere unknown.
fn written_roots(stmts: &[Stmt]) -> Option<std::collections::HashSet<VarId>> {
    fn root(e: &Expr) -> Option<VarId> {
        match &e.kind {
            ExprKind::Var(v) => Some(*v),
            ExprKind::Decay(expr) | ExprKind::Member { base: expr, arrow: false, .. } => root(expr),
            // An element of an array; through a pointer, somewhere unknown.
            ExprKind::Index(base, _) => match &base.kind {
                ExprKind::Decay(array) => root(array),
                _ => None,
            },
            _ => None,
        }
    }
    let mut written = std::collections::HashSet::new();
    let mut unknown = false;
    let mut note = |e: &Expr| match root(e) {
        Some(v) => {
            written.insert(v);
        }
        None => unknown = true,
    };
    for s in stmts {
        super::walk::walk_stmt(s, &mut |e| match &e.kind {
            ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => note(lhs),
            ExprKind::AddrOf(x) => note(x),
            ExprKind::Call(Callee::Builtin(b), args) if !b.is_pure() => {
                args.iter().filter(|a| matches!(a.strip_implicit().kind, ExprKind::Decay(_))).for_each(&mut note)
            }
            _ => {}
        });
    }
    if unknown { None } else { Some(written) }
}

/// Whether the body assigns the parameter `p` or takes its address.
fn reassigned(body: &Stmt, p: VarId) -> bool {
    let is_p = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Var(v) if v == p);
    let mut found = false;
    super::walk::walk_stmt(body, &mut |e| {
        found |= match &e.kind {
            ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => is_p(lhs),
            ExprKind::AddrOf(x) => is_p(x),
            _ => false,
        }
    });
    found
}

/// Replaces each user call in `e` by a literal (what the statement does besides them).
fn strip_calls(e: &mut Expr) {
    if user_callee(e).is_some() {
        e.kind = ExprKind::Int(0);
        return;
    }
    children_mut(e).into_iter().for_each(strip_calls);
}

/// Renames the callee's variables in its copied body: `renamed` to fresh locals, `subst`
/// (pointer parameters) to the argument, with `*&v` folded to `v`.
fn rename_stmt(s: &mut Stmt, renamed: &HashMap<VarId, VarId>, subst: &HashMap<VarId, Expr>) {
    super::walk::for_each_stmt_mut(s, &mut |st| match &mut st.kind {
        StmtKind::Decl { var, .. } | StmtKind::VlaDecl { var, row: None, .. } => {
            if let Some(n) = renamed.get(var) {
                *var = *n;
            }
        }
        StmtKind::VlaDecl { var, row: Some((per, _)), .. } => {
            for v in [var, per] {
                if let Some(n) = renamed.get(v) {
                    *v = *n;
                }
            }
        }
        _ => {}
    });
    super::walk::walk_stmt_mut(s, &mut |e| {
        rename_expr(e, renamed, subst);
        true
    });
}

fn rename_expr(e: &mut Expr, renamed: &HashMap<VarId, VarId>, subst: &HashMap<VarId, Expr>) {
    if let ExprKind::Var(v) = e.kind {
        if let Some(n) = renamed.get(&v) {
            e.kind = ExprKind::Var(*n);
        } else if let Some(arg) = subst.get(&v) {
            let span = e.span;
            *e = Expr { span, ..arg.clone() };
        }
        return;
    }
    if let ExprKind::Row { len, .. } = &mut e.kind
        && let Some(n) = renamed.get(len)
    {
        *len = *n;
    }
    children_mut(e).into_iter().for_each(|c| rename_expr(c, renamed, subst));
    // `*&v` is `v`; `(&v)[0]`-like forms stay as they are.
    if let ExprKind::Deref(inner) = &e.kind
        && let ExprKind::AddrOf(x) = &inner.strip_implicit().kind
    {
        let span = e.span;
        *e = Expr { span, ..(**x).clone() };
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(src: &str, expected: Expect) {
        let program = crate::syntax::lower::lower_source(src).program;
        let shown = match super::into_entry(&program, "main") {
            Ok(Some(p)) => crate::ir::print::function_to_c(&p, p.func(p.func_by_name("main").unwrap())),
            Ok(None) => "nothing to inline".into(),
            Err(why) => format!("not inlined: {why}"),
        };
        expected.assert_eq(&shown);
    }

    /// Each inlined copy of a helper is its own node: the verified engine's sites at the two
    /// calls are two sites.
    #[test]
    fn every_expression_of_an_inlined_program_has_its_own_id() {
        let program = crate::syntax::lower::lower_source(
            "int sq(int v) { return v * v; }
             int main() { int a, b; scanf(\"%d%d\", &a, &b); printf(\"%d\\n\", sq(a) + sq(b)); return 0; }",
        )
        .program;
        let inlined = super::into_entry(&program, "main").unwrap().unwrap();
        let mut ids = Vec::new();
        for f in &inlined.funcs {
            if let Some(body) = &f.body {
                crate::ir::walk::walk_stmt(body, &mut |e| ids.push(e.id));
            }
        }
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert!(n > 10 && ids.len() == n, "{} distinct ids for {n} expressions", ids.len());
    }

    #[test]
    fn pointer_parameters_become_the_variables_passed() {
        check(
            "void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
             int main() { int x, y; scanf(\"%d%d\", &x, &y); if (x > y) swap(&x, &y); printf(\"%d %d\\n\", x, y); return 0; }",
            expect![[r#"
                int main() {
                    int x;
                    int y;
                    scanf("%d%d", &x, &y);
                    if (x > y) {
                        int t = x;
                        x = y;
                        y = t;
                    }
                    printf("%d %d\n", x, y);
                    return 0;
                }
            "#]],
        );
    }

    #[test]
    fn an_array_parameter_becomes_the_array_passed() {
        check(
            "void upper(char s[]) { int i; for (i = 0; s[i] != '\\0'; i++) if (s[i] >= 'a') s[i] -= 32; }
             int main() { char line[80]; fgets(line, 80, stdin); upper(line); printf(\"%s\", line); return 0; }",
            expect![[r#"
                int main() {
                    char line[80];
                    fgets(line, 80, stdin);
                    {
                        int i;
                        for (i = 0; line[i] != '\0'; i++)
                            if (line[i] >= 'a')
                                line[i] -= 32;
                    }
                    printf("%s", line);
                    return 0;
                }
            "#]],
        );
    }

    #[test]
    fn a_value_returned_at_the_end_goes_to_its_use() {
        check(
            "float media(int n) { int i; float s = 0, v; for (i = 0; i < n; i++) { scanf(\"%f\", &v); s += v; } return s / n; }
             int main() { int n; scanf(\"%d\", &n); printf(\"%.2f\\n\", media(n)); return 0; }",
            expect![[r#"
                int main() {
                    int n;
                    scanf("%d", &n);
                    int i;
                    float s = 0;
                    float v;
                    for (i = 0; i < n; i++) {
                        scanf("%f", &v);
                        s += v;
                    }
                    printf("%.2f\n", s / n);
                    return 0;
                }
            "#]],
        );
    }

    #[test]
    fn an_early_return_moves_the_rest_into_else() {
        check(
            "int menor(int a, int b) { if (a < b) return a; return b; }
             int main() { int x, y; scanf(\"%d%d\", &x, &y); x = menor(x + 1, y); printf(\"%d\\n\", x); return 0; }",
            expect![[r#"
                int main() {
                    int x;
                    int y;
                    scanf("%d%d", &x, &y);
                    if (x + 1 < y)
                        menor_result = x + 1;
                    else
                        menor_result = y;
                    x = menor_result;
                    printf("%d\n", x);
                    return 0;
                }
            "#]],
        );
    }

    #[test]
    fn a_return_in_a_loop_sets_a_flag_and_breaks() {
        check(
            "int primo(int n) { int d; for (d = 2; d < n; d++) if (n % d == 0) return 0; return 1; }
             int main() { int n; scanf(\"%d\", &n); if (primo(n)) printf(\"sim\\n\"); return 0; }",
            expect![[r#"
                int main() {
                    int n;
                    scanf("%d", &n);
                    int d;
                    int done = 0;
                    primo_result = 0;
                    for (d = 2; d < n; d++)
                        if (n % d == 0) {
                            primo_result = 0;
                            done = 1;
                            break;
                        }
                    if (!done)
                        primo_result = 1;
                    if (primo_result)
                        printf("sim\n");
                    return 0;
                }
            "#]],
        );
    }

    fn localised(src: &str) -> String {
        let program = crate::syntax::lower::lower_source(src).program;
        match super::globals_into_entry(&program, "main") {
            Some(p) => crate::ir::print::function_to_c(&p, p.func(p.func_by_name("main").unwrap())),
            None => "unchanged".into(),
        }
    }

    #[test]
    fn globals_only_main_uses_become_its_locals() {
        expect![[r#"
            int main() {
                int n = 0;
                int total = 5;
                int seen[3] = {};
                scanf("%d", &n);
                seen[0] = n;
                total = total + n;
                printf("%d\n", total);
                return 0;
            }
        "#]]
        .assert_eq(&localised(
            "int n; int total = 5; int seen[3]; int unused;
             int main() { scanf(\"%d\", &n); seen[0] = n; total = total + n; printf(\"%d\\n\", total); return 0; }",
        ));
        // A helper that uses one (not inlined first) keeps them all global.
        expect!["unchanged"].assert_eq(&localised(
            "int n; void bump(void) { n++; } int main() { scanf(\"%d\", &n); bump(); printf(\"%d\", n); return 0; }",
        ));
        expect!["unchanged"].assert_eq(&localised("int main() { return 0; }"));
    }

    #[test]
    fn what_cannot_be_inlined_says_why() {
        check(
            "int f(int n) { return n <= 1 ? 1 : n * f(n - 1); } int main() { printf(\"%d\", f(3)); return 0; }",
            expect!["not inlined: a call of a function of yours in an arm of `?:`"],
        );
        check(
            "int ler(void) { int x; scanf(\"%d\", &x); return x; } int main() { int s = 0; while (ler() > 0) s++; printf(\"%d\", s); return 0; }",
            expect!["not inlined: a call of a function of yours in a loop condition"],
        );
        check("int main() { return 0; }", expect!["nothing to inline"]);
    }
}
