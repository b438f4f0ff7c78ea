//! Expressions: C operators over Z3 terms (wrapping integers, IEEE floats), conversions, calls
//! of aligned pure helpers as shared uninterpreted functions, the math builtins.

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    pub(super) fn truthy(&mut self, t: &Term<'ctx>) -> Bool<'ctx> {
        match t {
            Term::Int(b, _) => c_int::truthy(b),
            Term::Float(f, k) => self.floats.truthy(f, *k),
            // An array decays to a pointer that is never null.
            Term::Array(..) => Bool::from_bool(self.ctx, true),
        }
    }

    pub(super) fn int_val(&self, b: BV<'ctx>, t: IntType, deps: Deps) -> Val<'ctx> {
        Val { term: Term::Int(b, t), deps }
    }

    pub(super) fn bool_val(&self, b: Bool<'ctx>, deps: Deps) -> Val<'ctx> {
        Val { term: Term::Int(c_int::from_bool(&b, IntType::INT), IntType::INT), deps }
    }

    /// Converts a value to type `to` (C's conversions between arithmetic types).
    pub(super) fn convert(&mut self, v: Val<'ctx>, to: &Type, span: Span) -> R<Val<'ctx>> {
        let term = match (&v.term, to) {
            (Term::Int(b, from), Type::Int(t)) => {
                if t.kind == crate::ir::IntKind::Bool {
                    Term::Int(c_int::from_bool(&c_int::truthy(b), *t), *t)
                } else {
                    Term::Int(c_int::cast(b, *from, *t), *t)
                }
            }
            (Term::Int(b, from), Type::Float(k)) => Term::Float(self.floats.from_int(b, from.signed, *k), *k),
            (Term::Float(f, _), Type::Int(t)) => Term::Int(self.floats.to_int(f, t.signed, c_int::width(*t)), *t),
            (Term::Float(f, from), Type::Float(k)) => {
                if from == k {
                    v.term.clone()
                } else {
                    Term::Float(self.floats.convert(f, *k), *k)
                }
            }
            (_, other) => {
                return unsupported(format!("a value of type `{}`", self.setup.program.type_name(other)), span);
            }
        };
        Ok(Val { term, deps: v.deps })
    }

    pub(super) fn error(&mut self, cond: Bool<'ctx>, deps: Deps, span: Span) {
        let c = cond.simplify();
        if c.as_bool() != Some(false) {
            self.region.errors.push((c, deps, span));
        }
    }

    pub(super) fn union(a: &Deps, b: &Deps) -> Deps {
        a.union(b).copied().collect()
    }

    pub(super) fn eval(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        match &e.kind {
            ExprKind::Int(n) => match &e.ty {
                Type::Int(t) => Ok(self.int_val(c_int::constant(ctx, *t, *n), *t, Deps::new())),
                Type::Float(k) => {
                    Ok(Val { term: Term::Float(self.floats.literal(*n as f64, *k), *k), deps: Deps::new() })
                }
                _ => unsupported("a constant of this type", e.span),
            },
            ExprKind::Float(x) => match &e.ty {
                Type::Float(k) => Ok(Val { term: Term::Float(self.floats.literal(*x, *k), *k), deps: Deps::new() }),
                _ => unsupported("a constant of this type", e.span),
            },
            ExprKind::Var(v) => match st.vars.get(v) {
                Some(Val { term: Term::Array(..), .. }) => {
                    unsupported(format!("the array `{}` used as a value", self.setup.program.var(*v).name), e.span)
                }
                Some(val) => {
                    self.use_var(*v, Usage::Read);
                    // A reference expression renamed into the student's variables keeps the
                    // reference's types: convert where the two declare a variable differently.
                    let val = val.clone();
                    let same = matches!((&val.term, &e.ty), (Term::Int(_, t), Type::Int(u)) if t == u)
                        || matches!((&val.term, &e.ty), (Term::Float(_, k), Type::Float(j)) if k == j);
                    if same { Ok(val) } else { self.convert(val, &e.ty, e.span) }
                }
                None => unsupported(format!("the global variable `{}`", self.setup.program.var(*v).name), e.span),
            },
            ExprKind::Cast { expr, .. } => {
                let v = self.eval(expr, st, g)?;
                self.convert(v, &e.ty, e.span)
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(a, st, g)?;
                let deps = v.deps.clone();
                match (op, &v.term) {
                    (UnOp::Neg, Term::Int(b, t)) => Ok(self.int_val(c_int::neg(b), *t, deps)),
                    (UnOp::BitNot, Term::Int(b, t)) => Ok(self.int_val(c_int::bit_not(b), *t, deps)),
                    (UnOp::Neg, Term::Float(f, k)) => Ok(Val { term: Term::Float(self.floats.neg(f, *k), *k), deps }),
                    (UnOp::Not, t) => {
                        let b = self.truthy(t).not();
                        Ok(self.bool_val(b, deps))
                    }
                    _ => unsupported("this unary operator", e.span),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let va = self.eval(a, st, g)?;
                let vb = self.eval(b, st, g)?;
                self.note_operands(&[a, b], *op);
                self.binary(*op, &va, &vb, g, e.span)
            }
            ExprKind::Logical(op, ..) => {
                // `a && b && c` as one chain. An operand runs only when the ones before it did
                // not decide, so its side effects (`c != '\n' && (c = getchar()) != EOF`)
                // happen under that condition; and it runs on the state they left, not merged
                // with the states where one decided, so in `i < n && (c = getchar()) != '\n'
                // && c != EOF` the last `c` is the character read (its value before the loop
                // is not what the test depends on).
                let chain = logical_chain(e, *op);
                let mut value: Option<(Bool<'ctx>, Deps)> = None;
                // Per operand that decides before an operand with effects: (it did not
                // decide, the state it left).
                let mut decided: Vec<(Bool<'ctx>, State<'ctx>)> = Vec::new();
                let mut guard = g.clone();
                for (k, operand) in chain.iter().enumerate() {
                    let (x, dx) = self.operand(operand, st, &guard)?;
                    let goes_on = match op {
                        LogicOp::And => x.clone(),
                        LogicOp::Or => x.not(),
                    };
                    if chain[k + 1..].iter().any(|b| has_effects(b)) {
                        decided.push((goes_on.clone(), st.clone()));
                    }
                    guard = Bool::and(ctx, &[&guard, &goes_on]);
                    value = Some(match value {
                        None => (x, dx),
                        Some((r, dr)) => (
                            match op {
                                LogicOp::And => Bool::and(ctx, &[&r, &x]),
                                LogicOp::Or => Bool::or(ctx, &[&r, &x]),
                            },
                            Self::union(&dr, &dx),
                        ),
                    });
                }
                if !decided.is_empty() {
                    // Every operand ran: the state a branch on this condition takes on the
                    // side where none decided ([`Exec::split_on`]).
                    self.chain_ends.push((e.id, *op, st.clone()));
                }
                for (goes_on, left) in decided.into_iter().rev() {
                    let ran = std::mem::replace(st, left.clone());
                    *st = merge_states(&goes_on, Some(ran), Some(left)).expect("both present");
                }
                let (r, deps) = value.expect("two operands at least");
                Ok(self.bool_val(r, deps))
            }
            ExprKind::Cond(c, a, b) => {
                let (x, dc) = self.cond_site(c, st)?;
                let before = st.vars.clone();
                let ga = Bool::and(ctx, &[g, &x]);
                let gb = Bool::and(ctx, &[g, &x.not()]);
                let va = self.eval(a, st, &ga)?;
                let vb = self.eval(b, st, &gb)?;
                if !same_vars(&before, &st.vars) || [a, b].iter().any(|x| crate::ir::walk::reads_input(x)) {
                    return unsupported("side effects in the arms of `?:`", e.span);
                }
                Ok(self.ite_val(&x, &dc, &va, &vb))
            }
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) => self.update_expr(e, st, g),
            ExprKind::Comma(a, b) => {
                self.eval(a, st, g)?;
                self.eval(b, st, g)
            }
            ExprKind::SizeOf { size, .. } => match &e.ty {
                Type::Int(t) => Ok(self.int_val(c_int::constant(ctx, *t, *size as i64), *t, Deps::new())),
                _ => unsupported("sizeof of this type", e.span),
            },
            ExprKind::Call(Callee::Builtin(b), args) => self.builtin(*b, e, args, st, g),
            ExprKind::Call(Callee::Func(f), args) => self.call(*f, e, args, st, g),
            ExprKind::Str(_) => unsupported("a string", e.span),
            ExprKind::Index(..) if matches!(e.ty, Type::Array(..)) => {
                unsupported("a row of an array of arrays used as a value", e.span)
            }
            ExprKind::Row { .. } => unsupported("a row of an array of arrays used as a value", e.span),
            ExprKind::Index(base, idx) => {
                let (v, at) = self.element(base, idx, st, g, e.span, false)?;
                let Some(Val { term: Term::Array(a, t, _), deps }) = st.vars.get(&v) else { unreachable!("an array") };
                self.use_var(v, Usage::Read);
                let x = a.select(&at.index).as_bv().expect("a bit-vector element");
                Ok(self.int_val(x, *t, Self::union(deps, &at.deps)))
            }
            ExprKind::Member { .. } => unsupported("a struct", e.span),
            ExprKind::AddrOf(_) | ExprKind::Deref(_) | ExprKind::Decay(_) => unsupported("a pointer", e.span),
        }
    }

    /// `a op b` on values already converted to the operation's type; a division or remainder
    /// by zero (or `INT_MIN / -1`) under guard `g` is a runtime error.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        a: &Val<'ctx>,
        b: &Val<'ctx>,
        g: &Bool<'ctx>,
        span: Span,
    ) -> R<Val<'ctx>> {
        let deps = Self::union(&a.deps, &b.deps);
        match (&a.term, &b.term) {
            (Term::Int(x, t), Term::Int(y, _)) => {
                if op.is_comparison() {
                    let c = c_int::compare(op, x, y, t.signed).expect("a comparison");
                    return Ok(self.bool_val(c, deps));
                }
                if matches!(op, BinOp::Div | BinOp::Rem) {
                    let bad = c_int::defined(op, x, y, *t).not();
                    self.error(Bool::and(self.ctx, &[g, &bad]), deps.clone(), span);
                }
                match c_int::arith(op, x, y, *t) {
                    Some(r) => Ok(self.int_val(r, *t, deps)),
                    None => unsupported("this operator", span),
                }
            }
            (Term::Float(x, k), Term::Float(y, _)) => {
                let arith = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                        let c = self.floats.c_compare(op, x, y);
                        return Ok(self.bool_val(c, deps));
                    }
                    _ => return unsupported("this operator on floating point values", span),
                };
                Ok(Val { term: Term::Float(self.floats.arith(arith, x, y, *k), *k), deps })
            }
            _ => unsupported("mixed operand types", span),
        }
    }

    /// An operand of `&&`/`||`: nested logic is walked into, anything else is an atom site.
    pub(super) fn operand(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        if matches!(e.strip_implicit().kind, ExprKind::Logical(..)) {
            self.eval_cond(e, st, g)
        } else {
            self.cond_site_in(e, SiteKind::Atom, st, g)
        }
    }

    pub(super) fn note_operands(&mut self, operands: &[&Expr], op: BinOp) {
        for o in operands {
            if let ExprKind::Var(v) = o.strip_implicit().kind {
                self.use_var(v, Usage::Operand(op.c_token()));
            }
        }
    }

    /// An assignment, `op=` or `++` inside an expression: its value, with the state updated.
    pub(super) fn update_expr(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        if element_update(e) {
            return self.update_element(e, st, g);
        }
        match &e.kind {
            ExprKind::Assign(lhs, rhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.eval(rhs, st, g)?;
                self.use_var(v, written_by(rhs));
                st.vars.insert(v, val.clone());
                Ok(val)
            }
            ExprKind::CompoundAssign { op, op_ty, lhs, rhs } => {
                let v = self.lvalue_var(lhs)?;
                let var_ty = self.setup.program.var(v).ty.clone();
                let old = st.vars[&v].clone();
                let r = self.eval(rhs, st, g)?;
                let l = self.convert(old, op_ty, lhs.span)?;
                self.use_var(v, Usage::Operand(op.c_token()));
                let combined = self.binary(*op, &l, &r, g, e.span)?;
                let new = self.convert(combined, &var_ty, e.span)?;
                self.use_var(v, Usage::Written);
                st.vars.insert(v, new.clone());
                Ok(new)
            }
            ExprKind::IncDec(kind, lhs) => {
                let v = self.lvalue_var(lhs)?;
                let old = st.vars[&v].clone();
                let Term::Int(x, t) = &old.term else {
                    // `x++` of a floating point `x` is `x = x + 1` in its type.
                    let one = self.int_val(c_int::constant(ctx, IntType::INT, 1), IntType::INT, Deps::new());
                    let one = self.convert(one, &self.setup.program.var(v).ty, e.span)?;
                    let op = if matches!(kind, IncDec::PreInc | IncDec::PostInc) { BinOp::Add } else { BinOp::Sub };
                    let new = self.binary(op, &old, &one, g, e.span)?;
                    self.use_var(v, Usage::Incremented);
                    st.vars.insert(v, new.clone());
                    return Ok(if matches!(kind, IncDec::PostInc | IncDec::PostDec) { old } else { new });
                };
                let one = c_int::constant(ctx, *t, 1);
                let new = match kind {
                    IncDec::PreInc | IncDec::PostInc => c_int::add(x, &one),
                    IncDec::PreDec | IncDec::PostDec => c_int::sub(x, &one),
                };
                let new = Val { term: Term::Int(new, *t), deps: old.deps.clone() };
                self.use_var(v, Usage::Incremented);
                st.vars.insert(v, new.clone());
                Ok(if matches!(kind, IncDec::PostInc | IncDec::PostDec) { old } else { new })
            }
            _ => unreachable!("an update expression"),
        }
    }

    pub(super) fn call(
        &mut self,
        f: FuncId,
        e: &'p Expr,
        args: &'p [Expr],
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<Val<'ctx>> {
        let Some(name) = self.setup.callee_names.get(&f).cloned() else {
            return unsupported(format!("calling `{}`", self.setup.program.func(f).name), e.span);
        };
        let mut vals = Vec::new();
        let mut deps = st.guard_deps.clone();
        for a in args {
            let v = self.eval(a, st, g)?;
            deps.extend(v.deps.iter().copied());
            vals.push(v.term.dynamic());
        }
        let (sort, ty) = match &e.ty {
            Type::Int(t) => (Sort::bitvector(self.ctx, c_int::width(*t)), e.ty.clone()),
            Type::Float(k) => (self.floats.sort(*k), e.ty.clone()),
            Type::Void => (Sort::bitvector(self.ctx, 8), Type::Int(IntType::CHAR)),
            other => {
                return unsupported(format!("a function returning `{}`", self.setup.program.type_name(other)), e.span);
            }
        };
        let r = self.world.call(&name, &vals, &sort);
        let term = match ty {
            Type::Int(t) => Term::Int(r.as_bv().expect("bit-vector result"), t),
            Type::Float(k) => Term::Float(r, k),
            _ => unreachable!(),
        };
        Ok(Val { term, deps })
    }

    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        e: &'p Expr,
        args: &'p [Expr],
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let name = b.c_name();
        let one = |this: &mut Self, st: &mut State<'ctx>| -> R<Val<'ctx>> {
            match args.first() {
                Some(a) => this.eval(a, st, g),
                None => unsupported(format!("`{name}` without an argument"), e.span),
            }
        };
        match b {
            Builtin::Printf => self.printf(e, args, st, g, e),
            Builtin::Scanf => self.scanf(e, args, st),
            Builtin::Getchar => Ok(self.getchar(st)),
            Builtin::Fgets => unsupported("using the value `fgets` returns", e.span),
            Builtin::Strlen | Builtin::Strspn | Builtin::Strcspn => self.string_span(b, e, args, st, g),
            Builtin::Strcmp => self.strcmp(e, args, st, g),
            Builtin::Strcpy | Builtin::Strcat => {
                unsupported(format!("using the value `{}` returns", b.c_name()), e.span)
            }
            Builtin::Putchar => self.putchar(e, args, st, g),
            Builtin::Puts => self.puts(e, args, st, g),
            Builtin::Assert => {
                // A failed `assert` ends the run like any runtime error (gcc's abort).
                let (c, deps) = match args.first() {
                    Some(a) => self.cond_site(a, st)?,
                    None => return unsupported("`assert` without an argument", e.span),
                };
                self.error(Bool::and(ctx, &[g, &c.not()]), deps, e.span);
                Ok(self.int_val(c_int::constant(ctx, IntType::INT, 0), IntType::INT, Deps::new()))
            }
            Builtin::Math(f, k) => {
                if args.len() != f.arity() {
                    return unsupported(format!("`{name}` with other arguments"), e.span);
                }
                let mut deps = Deps::new();
                let mut xs = Vec::new();
                for a in args {
                    let v = self.eval(a, st, g)?;
                    let v = self.convert(v, &Type::Float(k), e.span)?;
                    let Term::Float(x, _) = &v.term else { unreachable!("converted to a floating type") };
                    deps.extend(v.deps.iter().copied());
                    xs.push(x.clone());
                }
                let r = c_lib::math_function(&mut self.floats, f, k, &xs, c_lib::constant_argument(&args[0]));
                self.convert(Val { term: Term::Float(r, k), deps }, &e.ty, e.span)
            }
            b if c_lib::is_integer_function(b) => {
                let v = one(self, st)?;
                let Term::Int(x, t) = &v.term else { return unsupported(format!("`{name}` of a non-integer"), e.span) };
                let (r, rt) = c_lib::int_function(ctx, b, x, *t).expect("an integer function");
                Ok(self.int_val(r, rt, v.deps.clone()))
            }
            other => unsupported(format!("the library function `{}`", other.c_name()), e.span),
        }
    }
}

/// A `width`-bit value's bits `u` as a number of its type.
pub(super) fn signed_value(u: u64, width: u32, signed: bool) -> i64 {
    if signed && width < 64 && u >> (width - 1) & 1 == 1 { (u | !0u64 << width) as i64 } else { u as i64 }
}

/// The values a term can take when it is a tree of `ite`s over constants: each leaf's bits
/// (`None` for a leaf that is not a constant).
pub(super) fn constant_leaves(b: &BV<'_>) -> Vec<Option<u64>> {
    if let Some(x) = b.as_u64() {
        return vec![Some(x)];
    }
    let d = Dynamic::from_ast(b);
    if d.kind() == z3::AstKind::App && d.decl().kind() == z3::DeclKind::ITE {
        let kids = d.children();
        return kids[1..].iter().flat_map(|k| constant_leaves(&k.as_bv().expect("a bit-vector arm"))).collect();
    }
    vec![None]
}

/// How `x = rhs` uses `x`: `c = getchar()` reads input into it, as `scanf("%c", &c)` does.
pub(super) fn written_by(rhs: &Expr) -> Usage {
    if matches!(rhs.strip_implicit().kind, ExprKind::Call(Callee::Builtin(Builtin::Getchar), _)) {
        Usage::Scanned
    } else {
        Usage::Written
    }
}

/// An expression that changes the state or the streams (assignments, reads, prints).
pub(super) fn has_effects(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| {
        found |= match &x.kind {
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) => true,
            ExprKind::Call(Callee::Builtin(b), _) => b.does_io(),
            _ => false,
        }
    });
    found
}

/// The operands of a chain of one logical operator, in evaluation order: `a && b && c`
/// (parsed `(a && b) && c`) is `[a, b, c]`.
fn logical_chain(e: &Expr, op: LogicOp) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Logical(o, a, b) if *o == op => {
            let mut out = match &a.strip_implicit().kind {
                ExprKind::Logical(inner, ..) if *inner == op => logical_chain(a.strip_implicit(), op),
                _ => vec![&**a],
            };
            out.push(b);
            out
        }
        _ => vec![e],
    }
}
