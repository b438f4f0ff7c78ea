//! The repair space of a node (Verifix Algorithm 1's implementation space): its holes and
//! each hole's alternatives, from the student's and the reference's expressions.

use super::*;

impl<'j, 'p: 'j, 'ctx: 'j> Job<'j, 'p, 'ctx> {
    /// The implementation space of every site of `node`'s student region (Definition 3).
    pub(super) fn holes(&self, node: Node) -> Holes<'ctx> {
        let mut sites: Vec<Site<'j>> = self.plain_s[&node].sites.clone();
        if let Some((g, v)) = self.extension(node) {
            sites.push(Site { expr: g, kind: SiteKind::Cond, stmt: None });
            sites.push(Site { expr: v, kind: SiteKind::Return, stmt: None });
        }
        if self.printing.contains(&node) {
            sites.push(Site { expr: &self.arena.prints[&node], kind: SiteKind::PrintCall, stmt: None });
        }
        if let Some(end) = &self.ending
            && self.plain_s[&node].exits.iter().any(|e| e.to == Node::FuncExit)
        {
            sites.push(Site { expr: end.guard, kind: SiteKind::Cond, stmt: None });
            sites.push(Site { expr: end.print, kind: SiteKind::PrintCall, stmt: None });
        }
        for gp in &self.guarding {
            if self.plain_s[&node].sites.iter().any(|x| x.expr.id == gp.call.id) {
                sites.push(Site { expr: gp.guard, kind: SiteKind::Cond, stmt: None });
                sites.push(Site { expr: gp.print, kind: SiteKind::PrintCall, stmt: None });
            }
        }
        for t in &self.tails {
            let here = if t.before {
                self.plain_r.get(&node).is_some_and(|reg| {
                    node != Node::LoopEntry(t.l) && reg.exits.iter().any(|e| e.to == Node::LoopEntry(t.l))
                })
            } else {
                node == Node::LoopEntry(t.l)
            };
            if here {
                sites.push(Site { expr: t.guard, kind: SiteKind::Cond, stmt: None });
                sites.push(Site { expr: t.value, kind: SiteKind::Update(t.var), stmt: None });
            }
        }
        let rsites = &self.plain_r[&node].sites;
        let renamed = |pick: &dyn Fn(&SiteKind) -> bool| -> Vec<Expr> {
            rsites
                .iter()
                .filter(|x| pick(&x.kind))
                .filter_map(|x| update_rhs(x.expr, &x.kind))
                .filter_map(|e| self.rename(&e))
                .collect()
        };
        let ref_conds = renamed(&|k| *k == SiteKind::Cond);
        let ref_updates = renamed(&|k| matches!(k, SiteKind::Update(_)));
        let ref_values = renamed(&|k| matches!(k, SiteKind::Print | SiteKind::Return | SiteKind::Update(_)));
        let ref_prints = renamed(&|k| *k == SiteKind::PrintCall);
        let ref_sizes = renamed(&|k| *k == SiteKind::Size);
        let stu = |pick: &dyn Fn(&SiteKind) -> bool| -> Vec<Expr> {
            sites.iter().filter(|x| pick(&x.kind)).filter_map(|x| update_rhs(x.expr, &x.kind)).filter(is_pure).collect()
        };
        let stu_conds = stu(&|k| *k == SiteKind::Cond);
        let stu_updates = stu(&|k| matches!(k, SiteKind::Update(_)));
        let student_vars: Vec<(VarId, Type)> = if self.wide {
            let program = self.s.program;
            self.s
                .vars()
                .into_iter()
                .filter(|v| !program.var(*v).hidden())
                .map(|v| (v, program.var(v).ty.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let mut out = HashMap::new();
        let mut order = Vec::new();
        let mut held_back = Vec::new();
        for (i, site) in sites.iter().enumerate() {
            let key = site.expr.id;
            if out.contains_key(&key) {
                continue;
            }
            order.push(key);
            let sel = BV::new_const(self.ctx, format!("hole{}!{}", node_key(node), i), SEL_BITS);
            if let Some(fixed) = self.chosen.get(&key) {
                out.insert(key, (sel, vec![fixed.clone()]));
                continue;
            }
            let own = update_rhs(site.expr, &site.kind).map(|e| expr_to_c(self.s.program, &e)).unwrap_or_default();
            let mut seen: HashSet<String> = [own].into_iter().collect();
            let synthetic_print = self.is_synthetic_print(site.expr.id);
            // A synthetic print's "as written" is printing nothing.
            let mut alts = vec![if synthetic_print { Alt::Keep } else { Alt::Original }];
            let mut push = |e: &Expr, alts: &mut Vec<Alt>| {
                if seen.insert(expr_to_c(self.s.program, e)) && e.ty.is_arithmetic() {
                    alts.push(Alt::Expr(e.clone()));
                }
            };
            match site.kind {
                SiteKind::Cond => {
                    let variants = cond_variants(site.expr);
                    let swapped = operand_substitutions(site.expr, &student_vars);
                    // A print's guard: where a condition of either program does not hold
                    // (the branch a student folded into a shared print).
                    // Or where the printed variable has one of the constant values the student
                    // gives it (`grade == 'F'`).
                    let guarded_call = self.guarding.iter().find(|g| g.guard.id == site.expr.id).map(|g| g.call);
                    let print_guard = guarded_call.is_some() || self.ending.is_some_and(|e| e.guard.id == site.expr.id);
                    let negated: Vec<Expr> = if print_guard {
                        ref_conds.iter().chain(&stu_conds).map(negation).collect()
                    } else {
                        Vec::new()
                    };
                    let tests = guarded_call.map_or_else(Vec::new, |call| self.printed_value_tests(call));
                    for e in tests
                        .iter()
                        .chain(&ref_conds)
                        .chain(&stu_conds)
                        .chain(&negated)
                        .chain(&variants)
                        .chain(&swapped)
                    {
                        push(e, &mut alts);
                    }
                    alts.push(Alt::Bool(true));
                    alts.push(Alt::Bool(false));
                }
                SiteKind::Atom => {
                    for e in cond_variants(site.expr).iter().chain(&operand_substitutions(site.expr, &student_vars)) {
                        push(e, &mut alts);
                    }
                    alts.push(Alt::Bool(true));
                    alts.push(Alt::Bool(false));
                }
                SiteKind::Update(_) => {
                    for e in ref_updates.iter().chain(&stu_updates) {
                        push(e, &mut alts);
                    }
                    if site.stmt.is_some() {
                        alts.push(Alt::Keep);
                    }
                }
                SiteKind::PrintCall => {
                    // After the reference's calls, each one's format over the student's own
                    // values, held back: tried in its call's place once a repair with that
                    // call is proved (see `Job::own_values_printed`), as the smaller change
                    // where it is one.
                    let mut twins: Vec<(usize, Expr)> = Vec::new();
                    for e in &ref_prints {
                        if !seen.insert(expr_to_c(self.s.program, e)) {
                            continue;
                        }
                        alts.push(Alt::Expr(e.clone()));
                        if let Some(twin) =
                            with_format_of(site.expr, e).filter(|t| !synthetic_print && is_plain_print(t))
                        {
                            twins.push((alts.len() - 1, twin));
                        }
                    }
                    let mut twin_at: HashMap<String, usize> = HashMap::new();
                    for (of, twin) in twins {
                        let text = expr_to_c(self.s.program, &twin);
                        let at = match twin_at.get(&text) {
                            Some(&at) => at,
                            None if seen.insert(text.clone()) => {
                                alts.push(Alt::Expr(twin));
                                twin_at.insert(text, alts.len() - 1);
                                alts.len() - 1
                            }
                            // The reference's own call already: nothing smaller to try.
                            None => continue,
                        };
                        held_back.push(HeldBack { site: key, of, at });
                    }
                    if site.stmt.is_some() && !synthetic_print {
                        alts.push(Alt::Keep);
                    }
                }
                SiteKind::Print | SiteKind::Return => {
                    for e in ref_values.iter().chain(&stu_updates) {
                        push(e, &mut alts);
                    }
                }
                // Sizes stay constants (`fgets` unrolls up to the largest).
                SiteKind::Size => {
                    for e in ref_sizes.iter().filter(|e| reads_no_variable(e)) {
                        push(e, &mut alts);
                    }
                }
            }
            alts.truncate((1 << SEL_BITS) - 1);
            out.insert(key, (sel, alts));
        }
        // Sites chosen at earlier nodes that this region also runs (a loop's step, a tail).
        let chosen = self.chosen_order.iter().map(|k| (k, &self.chosen[k]));
        for (i, (key, alt)) in chosen.enumerate() {
            if !out.contains_key(key) {
                order.push(*key);
                out.insert(
                    *key,
                    (BV::new_const(self.ctx, format!("fixed{}!{}", node_key(node), i), SEL_BITS), vec![alt.clone()]),
                );
            }
        }
        // A cap that cut an alternative held back leaves nothing to hold back.
        held_back.retain(|h| out.get(&h.site).is_some_and(|(_, alts): &(BV<'ctx>, Vec<Alt>)| h.at < alts.len()));
        Holes { sites: out, order, held_back }
    }

    /// A print the engine may add (none in the student's text).
    pub(super) fn is_synthetic_print(&self, id: ExprId) -> bool {
        self.arena.prints.values().any(|p| p.id == id)
            || self.guarding.iter().any(|g| g.print.id == id)
            || self.ending.is_some_and(|e| e.print.id == id)
    }

    /// `x == c` for each integer variable `x` the print `call` prints and each constant `c`
    /// the student's function assigns to it.
    pub(super) fn printed_value_tests(&self, call: &Expr) -> Vec<Expr> {
        let ExprKind::Call(_, args) = &call.kind else { return Vec::new() };
        let printed: Vec<VarId> = args
            .iter()
            .filter_map(|a| match a.strip_implicit().kind {
                ExprKind::Var(v) if matches!(self.s.program.var(v).ty, Type::Int(_)) => Some(v),
                _ => None,
            })
            .collect();
        let (mut out, mut seen): (Vec<Expr>, Vec<(VarId, i64)>) = (Vec::new(), Vec::new());
        let Some(body) = &self.s.program.func(self.s.func).body else { return out };
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if let ExprKind::Assign(lhs, rhs) = &e.kind
                && let ExprKind::Var(v) = lhs.kind
                && printed.contains(&v)
                && let ExprKind::Int(c) = rhs.strip_implicit().kind
                && !seen.contains(&(v, c))
            {
                seen.push((v, c));
                let var = Expr::new(ExprKind::Var(v), lhs.ty.clone(), call.span);
                let widened = Expr::new(ExprKind::Cast { expr: Box::new(var), implicit: true }, Type::INT, call.span);
                let constant = Expr::new(ExprKind::Int(c), Type::INT, call.span);
                out.push(Expr::new(
                    ExprKind::Binary(BinOp::Eq, Box::new(widened), Box::new(constant)),
                    Type::INT,
                    call.span,
                ));
            }
        });
        out
    }

    /// A reference expression in the student's variables (and function names), if every
    /// variable it reads is aligned.
    pub(super) fn rename(&self, e: &Expr) -> Option<Expr> {
        let mut e = e.clone();
        let mut ok = true;
        rename_in(&mut e, &mut |k| match k {
            ExprKind::Var(v) | ExprKind::Row { len: v, .. } => match self.align.get(v) {
                Some(s) => *v = *s,
                None => ok = false,
            },
            ExprKind::Call(Callee::Func(f), _) => {
                // The student's function paired with it (by name or by structure).
                let name = &self.r.program.func(*f).name;
                match self.s.callee_names.iter().find(|(_, n)| *n == name) {
                    Some((s, _)) => *f = *s,
                    None => ok = false,
                }
            }
            _ => {}
        });
        if !ok {
            return None;
        }
        cast_retyped_vars(&mut e, self.s.program);
        (is_pure(&e) || is_plain_print(&e)).then_some(e)
    }
}

/// `i++`, `i += 2`: a site whose expression is the whole update.
pub(super) fn is_self_update(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::IncDec(..) | ExprKind::CompoundAssign { .. })
}

/// `!e`.
pub(super) fn negation(e: &Expr) -> Expr {
    Expr::new(ExprKind::Unary(crate::ir::UnOp::Not, Box::new(e.strip_implicit().clone())), Type::INT, e.span)
}

/// Beyond the paper's space, the slips students make in a condition: another relational
/// operator, or the condition negated.
pub(super) fn cond_variants(e: &Expr) -> Vec<Expr> {
    let inner = e.strip_implicit();
    let mut out = Vec::new();
    if let ExprKind::Binary(op, a, b) = &inner.kind
        && op.is_comparison()
    {
        for other in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne] {
            if other != *op {
                out.push(Expr { kind: ExprKind::Binary(other, a.clone(), b.clone()), ..inner.clone() });
            }
        }
    }
    out.push(negation(inner));
    out
}

/// Beyond Definition 3: a comparison with one variable operand replaced by another variable
/// of the same type (`y >= z` → `a >= z`, a student comparing the wrong variable).
pub(super) fn operand_substitutions(e: &Expr, vars: &[(VarId, Type)]) -> Vec<Expr> {
    let inner = e.strip_implicit();
    let ExprKind::Binary(op, a, b) = &inner.kind else { return Vec::new() };
    if !op.is_comparison() {
        return Vec::new();
    }
    let var_of = |x: &Expr| match x.strip_implicit().kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    let mut out = Vec::new();
    for (side, other) in [(a, b), (b, a)] {
        let Some(v) = var_of(side) else { continue };
        let Some((_, ty)) = vars.iter().find(|(x, _)| *x == v) else { continue };
        for (w, _) in vars.iter().filter(|(w, t)| *w != v && t == ty && Some(*w) != var_of(other)) {
            let mut replaced = (**side).clone();
            rename_in(&mut replaced, &mut |k| {
                if let ExprKind::Var(x) = k
                    && *x == v
                {
                    *x = *w;
                }
            });
            let (l, r) = if side.id == a.id { (replaced, (**b).clone()) } else { ((**a).clone(), replaced) };
            out.push(Expr { kind: ExprKind::Binary(*op, Box::new(l), Box::new(r)), ..inner.clone() });
        }
    }
    out
}

/// Whether `alt` is `original` with one variable operand of its comparison replaced.
pub(super) fn is_operand_substitution(original: &Expr, alt: &Expr) -> bool {
    let (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) =
        (&original.strip_implicit().kind, &alt.strip_implicit().kind)
    else {
        return false;
    };
    let var_of = |x: &Expr| match x.strip_implicit().kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    let differs = |x: &Expr, y: &Expr| var_of(x).is_some() && var_of(y).is_some() && var_of(x) != var_of(y);
    o1 == o2 && o1.is_comparison() && (differs(a1, a2) != differs(b1, b2))
}

/// The new value a site computes, as an expression: `e` for `x = e` sites, `i + 1` for `i++`,
/// `s + x` for `s += x`.
pub(super) fn update_rhs(e: &Expr, kind: &SiteKind) -> Option<Expr> {
    match (&e.kind, kind) {
        (ExprKind::IncDec(k, lhs), SiteKind::Update(_)) => {
            let op = if matches!(k, IncDec::PreInc | IncDec::PostInc) { BinOp::Add } else { BinOp::Sub };
            let one = Expr::new(ExprKind::Int(1), lhs.ty.clone(), e.span);
            Some(Expr::new(ExprKind::Binary(op, lhs.clone(), Box::new(one)), lhs.ty.clone(), e.span))
        }
        (ExprKind::CompoundAssign { op, op_ty, lhs, rhs }, SiteKind::Update(_)) => {
            let l = Expr::new(ExprKind::Cast { expr: lhs.clone(), implicit: true }, op_ty.clone(), lhs.span);
            Some(Expr::new(ExprKind::Binary(*op, Box::new(l), rhs.clone()), op_ty.clone(), e.span))
        }
        _ => Some(e.clone()),
    }
}

/// In a reference expression renamed into the student's variables, every variable the
/// student declares with another type than the reference's is read through an explicit cast
/// to the reference's type: the encoding computes with the reference's types, and the cast
/// makes the text that is applied compute the same (`printf("%d", m)` with a `double m`
/// would not; `printf("%d", (int) m)` does).
pub(super) fn cast_retyped_vars(e: &mut Expr, student: &Program) {
    if let ExprKind::Var(v) = e.kind {
        let declared = &student.var(v).ty;
        if *declared != e.ty && declared.is_arithmetic() && e.ty.is_arithmetic() {
            let read = Expr::new(ExprKind::Var(v), declared.clone(), e.span);
            e.kind = ExprKind::Cast { expr: Box::new(read), implicit: false };
        }
        return;
    }
    for c in crate::ir::walk::children_mut(e) {
        cast_retyped_vars(c, student);
    }
}

pub(super) fn rename_in(e: &mut Expr, f: &mut impl FnMut(&mut ExprKind)) {
    f(&mut e.kind);
    for c in crate::ir::walk::children_mut(e) {
        rename_in(c, f);
    }
}

/// `printf("literal", pure...)`.
pub(super) fn is_plain_print(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(Callee::Builtin(Builtin::Printf), args) => {
            matches!(args.first().map(|a| &a.strip_implicit().kind), Some(ExprKind::Str(_)))
                && args[1..].iter().all(is_pure)
        }
        _ => false,
    }
}

/// `call` (a student's `printf`) printing with `reference`'s format instead of its own,
/// where the two print as many values, each passed as the same type (after the default
/// argument promotions) as the reference's: the directives then read the student's values
/// as they read the reference's.
pub(super) fn with_format_of(call: &Expr, reference: &Expr) -> Option<Expr> {
    fn printf_args(e: &Expr) -> Option<&[Expr]> {
        match &e.kind {
            ExprKind::Call(Callee::Builtin(Builtin::Printf), args) => Some(args),
            _ => None,
        }
    }
    let (own, theirs) = (printf_args(call)?, printf_args(reference)?);
    if own.len() != theirs.len()
        || own.len() < 2
        || !own[1..].iter().zip(&theirs[1..]).all(|(a, b)| passed_alike(&a.ty, &b.ty))
    {
        return None;
    }
    let mut out = call.clone();
    if let ExprKind::Call(_, args) = &mut out.kind {
        args[0] = theirs[0].clone();
    }
    Some(out)
}

/// Two argument types a variadic call receives as the same type: floating types as `double`,
/// integers after the integer promotions, strings as `char *`.
fn passed_alike(a: &Type, b: &Type) -> bool {
    use crate::ir::{IntKind, IntType};
    let promoted = |t: IntType| if t.kind < IntKind::Int { IntType::INT } else { t };
    let text = |t: &Type| matches!(t, Type::Pointer(e) | Type::Array(e, _) if matches!(**e, Type::Int(c) if c.kind == IntKind::Char));
    match (a, b) {
        (Type::Float(_), Type::Float(_)) => true,
        (Type::Int(x), Type::Int(y)) => promoted(*x) == promoted(*y),
        _ => text(a) && text(b),
    }
}

/// The format arguments of two `printf` calls that print the same values (as written) with
/// different formats.
pub(super) fn format_change<'e>(p: &Program, old: &'e Expr, new: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    let (ExprKind::Call(_, a), ExprKind::Call(_, b)) = (&old.kind, &new.kind) else { return None };
    let same_values = a.len() == b.len()
        && !a.is_empty()
        && a[1..].iter().zip(&b[1..]).all(|(x, y)| expr_to_c(p, x) == expr_to_c(p, y));
    (same_values && expr_to_c(p, &a[0]) != expr_to_c(p, &b[0])).then(|| (&a[0], &b[0]))
}

/// An expression without variables (a constant, after `#define`s are expanded).
pub(super) fn reads_no_variable(e: &Expr) -> bool {
    let mut none = true;
    crate::ir::walk::walk_expr(e, &mut |x| none &= !matches!(x.kind, ExprKind::Var(_) | ExprKind::Call(..)));
    none
}

/// No side effects and no input/output (alternatives are evaluated in place of a site).
pub(super) fn is_pure(e: &Expr) -> bool {
    let mut pure = true;
    crate::ir::walk::walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) | ExprKind::Comma(..) => {
            pure = false
        }
        ExprKind::Call(Callee::Builtin(b), _) => {
            pure &= crate::smt::c_lib::is_integer_function(*b) || matches!(b, Builtin::Math(..))
        }
        ExprKind::Str(_) => pure = false,
        _ => {}
    });
    pure
}
