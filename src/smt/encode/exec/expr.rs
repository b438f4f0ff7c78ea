//! Expressions: C operators over Z3 terms, conversions, short-circuit guards.

use super::*;

impl<'a, 'ctx> Exec<'a, 'ctx> {
    pub(super) fn alternatives(&mut self, loc: LocationId, e: &Expr) -> Rc<Vec<Expr>> {
        if let Some(a) = self.alt_cache.get(&loc) {
            return a.clone();
        }
        let a = Rc::new(self.alts.map(|f| f(loc, e)).unwrap_or_default());
        self.alt_cache.insert(loc, a.clone());
        a
    }

    /// Evaluates a (possible) location: with alternatives, each runs under its selector.
    pub(super) fn eval_loc(&mut self, e: &Expr) -> R<SymVal<'ctx>> {
        let Some(loc) = self.loc_of.get(&e.id).copied() else { return self.eval(e) };
        let alts = self.alternatives(loc, e);
        if alts.is_empty() {
            return self.eval(e);
        }
        self.eval_each(loc, e, &alts, &mut |this, ex| this.eval(ex))
    }

    /// A statement's `x op= e`, a location whose operator may change: where every alternative
    /// assigns the same `x`, `x` is read once and the alternatives are values computed from it,
    /// stored once, as `x = e`'s right side is (a state per alternative, merged, costs the
    /// solver far more in a loop that updates its counter so: `n /= 10`).
    pub(super) fn compound_loc(&mut self, e: &Expr, lhs: &Expr) -> R<()> {
        let Some(loc) = self.loc_of.get(&e.id).copied() else { return self.eval(e).map(drop) };
        let alts = self.alternatives(loc, e);
        let target = crate::ir::print::expr_to_c(self.p, lhs);
        let same_target = |a: &Expr| matches!(&a.kind, ExprKind::CompoundAssign { lhs: l, .. } if crate::ir::print::expr_to_c(self.p, l) == target);
        if alts.is_empty() || !alts.iter().all(same_target) {
            return self.eval_loc(e).map(drop);
        }
        let pl = self.place(lhs)?;
        let pl2 = self.clone_place(&pl);
        let old = self.load(pl2, lhs)?;
        let v = self.eval_each(loc, e, &alts, &mut |this, ex| this.compound_value(ex, &old))?;
        self.store(pl, v, lhs.span)
    }

    /// The value `x op= e` (`ex`) stores, `x` holding `old` (`e` a location of its own where
    /// `x` is a pointer).
    fn compound_value(&mut self, ex: &Expr, old: &SymVal<'ctx>) -> R<SymVal<'ctx>> {
        let ExprKind::CompoundAssign { op, op_ty, lhs, rhs } = &ex.kind else {
            return self.unsupported("an alternative of another kind", ex.span);
        };
        let oldc = self.cast(old.clone(), &lhs.ty, op_ty, ex.span)?;
        let r = self.eval_loc(rhs)?;
        let res = self.binary(*op, oldc, r, op_ty, &rhs.ty, op_ty, ex.span)?;
        self.cast(res, op_ty, &lhs.ty, ex.span)
    }

    /// `e` and each of its alternatives `alts` under its selector (`one` evaluates one of
    /// them), their effects merged, as one value: a fresh constant that equals the selected
    /// one's.
    fn eval_each(
        &mut self,
        loc: LocationId,
        e: &Expr,
        alts: &[Expr],
        one: &mut dyn FnMut(&mut Self, &Expr) -> R<SymVal<'ctx>>,
    ) -> R<SymVal<'ctx>> {
        let sels = self.selectors(loc, alts.len() + 1);
        let start = self.st.clone();
        let mut states = Vec::new();
        let mut vals = Vec::new();
        let mut unchanged = true;
        for (k, sel) in sels.iter().enumerate() {
            self.st = start.clone();
            let g = self.and(&start.guard, sel);
            self.st.guard = g.clone();
            let ex: &Expr = if k == 0 { e } else { &alts[k - 1] };
            let v = one(self, ex)?;
            unchanged &= !self.st.dead && self.st.guard == g;
            vals.push(v);
            states.push(std::mem::replace(&mut self.st, start.clone()));
        }
        let known = if unchanged { Some(start.guard.clone()) } else { None };
        self.st = self.merge(states, known);
        // Unique per location and use: two locations' constants must never share a name.
        let use_id = self.next_name();
        let name = format!("{}loc!{}!{use_id}", self.namespace, loc.0);
        let x = match &vals[0] {
            SymVal::Int(b) => SymVal::Int(BV::new_const(self.ctx, name, b.get_size())),
            SymVal::Float(f) => SymVal::Float(self.floats.constant(&name, float_kind(f))),
            SymVal::Void => return Ok(SymVal::Void),
            SymVal::Ptr(_) => return self.unsupported("changes of an expression whose value is a pointer", e.span),
        };
        for (k, v) in vals.iter().enumerate() {
            let c = match (&x, v) {
                (SymVal::Int(a), SymVal::Int(b)) if a.get_size() == b.get_size() => a._eq(b),
                (SymVal::Float(a), SymVal::Float(b)) => a._eq(b),
                _ => return self.unsupported("an alternative of another type", e.span),
            };
            self.enc.soft.push(Soft { loc, k, constraint: c });
        }
        Ok(x)
    }

    pub(super) fn next_name(&mut self) -> usize {
        self.names += 1;
        self.names as usize
    }

    /// An `if`'s, a loop's condition: tested for truth only, so its alternatives may have
    /// another scalar type than it (`d = 0` with `double d`, and `d == 0` an `int`). Each
    /// is then evaluated to its truth, as 0 or 1.
    pub(super) fn eval_cond(&mut self, e: &Expr) -> R<Bool<'ctx>> {
        let Some(loc) = self.loc_of.get(&e.id).copied() else {
            let v = self.eval(e)?;
            return Ok(self.truthy(&v));
        };
        let alts = self.alternatives(loc, e);
        let v = if alts.iter().any(|a| a.ty != e.ty) {
            self.eval_each(loc, e, &alts, &mut |this, ex| {
                let v = this.eval(ex)?;
                let t = this.truthy(&v);
                let (one, zero) = (BV::from_u64(this.ctx, 1, 32), BV::from_u64(this.ctx, 0, 32));
                Ok(SymVal::Int(t.ite(&one, &zero)))
            })?
        } else {
            self.eval_loc(e)?
        };
        Ok(self.truthy(&v))
    }

    pub(super) fn eval(&mut self, e: &Expr) -> R<SymVal<'ctx>> {
        match &e.kind {
            ExprKind::Int(v) => match &e.ty {
                Type::Int(t) => Ok(SymVal::Int(c_int::constant(self.ctx, *t, *v))),
                Type::Float(k) => Ok(SymVal::Float(self.floats.literal(*v as f64, *k))),
                Type::Pointer(_) if *v == 0 => Ok(SymVal::Ptr(self.null())),
                _ => self.unsupported("an integer constant of this type", e.span),
            },
            ExprKind::Float(f) => match &e.ty {
                Type::Float(k) => Ok(SymVal::Float(self.floats.literal(*f, *k))),
                _ => self.unsupported("a float constant of this type", e.span),
            },
            ExprKind::SizeOf { size, .. } => match &e.ty {
                Type::Int(t) => Ok(SymVal::Int(c_int::constant(self.ctx, *t, *size as i64))),
                _ => self.unsupported("sizeof of this type", e.span),
            },
            ExprKind::Str(_) => {
                let pl = self.place(e)?;
                self.load(pl, e)
            }
            ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::Member { .. } => {
                let pl = self.place(e)?;
                self.load(pl, e)
            }
            ExprKind::Row { array, index, len } => {
                let SymVal::Ptr(p) = self.eval(array)? else {
                    return self.unsupported("indexing a non-pointer", e.span);
                };
                let (SymVal::Int(i), Some(it)) = (self.eval(index)?, index.ty.as_int()) else {
                    return self.unsupported("a non-integer index", e.span);
                };
                let key = self.var_key(*len);
                let SymVal::Int(m) = self.load(Place::Var(key), e)? else {
                    return self.unsupported("a row length that is not an integer", e.span);
                };
                let Some(scale) = e.ty.pointee().and_then(|t| leaf_count(self.p, t)) else {
                    return self.unsupported("rows of this type", e.span);
                };
                let i = c_int::resize(&i, it.signed, OFF_BITS);
                let m = c_int::resize(&m, true, OFF_BITS);
                let cells = i.bvmul(&m).bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS));
                Ok(SymVal::Ptr(SymPtr { off: p.off.bvadd(&cells), ..p }))
            }
            ExprKind::Decay(inner) | ExprKind::AddrOf(inner) => match self.place(inner)? {
                Place::Mem { ptr, .. } => Ok(SymVal::Ptr(ptr)),
                // A variable the encoding keeps as a value (no `&` of it in the program), whose
                // address a change of the search takes.
                Place::Var(_) => {
                    let what = match &inner.strip_implicit().kind {
                        ExprKind::Var(v) => format!("taking the address of `{}`", self.p.var(*v).name),
                        _ => "taking this address".to_string(),
                    };
                    self.unsupported(what, e.span)
                }
            },
            ExprKind::Unary(op, a) => {
                let v = self.eval(a)?;
                match (op, v) {
                    (UnOp::Neg, SymVal::Int(b)) => Ok(SymVal::Int(c_int::neg(&b))),
                    (UnOp::Neg, SymVal::Float(f)) => {
                        let Type::Float(k) = e.ty else { return self.unsupported("negation", e.span) };
                        Ok(SymVal::Float(self.floats.neg(&f, k)))
                    }
                    (UnOp::BitNot, SymVal::Int(b)) => Ok(SymVal::Int(c_int::bit_not(&b))),
                    (UnOp::Not, v) => {
                        let t = self.truthy(&v).not();
                        self.bool_val(&t, &e.ty, e.span)
                    }
                    _ => self.unsupported("this unary operation", e.span),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, x, y, &a.ty, &b.ty, &e.ty, e.span)
            }
            ExprKind::Logical(op, a, b) => {
                let ca = {
                    let v = self.eval(a)?;
                    self.truthy(&v)
                };
                let run = if *op == LogicOp::And { ca.clone() } else { ca.not() };
                let g = self.st.guard.clone();
                let rg = self.and(&g, &run);
                let cb = if is_pure(b) {
                    self.st.guard = rg;
                    let v = self.eval(b)?;
                    self.st.guard = g;
                    self.truthy(&v)
                } else {
                    let mut skip = self.st.clone();
                    skip.guard = self.and(&g, &run.not());
                    self.st.guard = rg.clone();
                    let v = self.eval(b)?;
                    let cb = self.truthy(&v);
                    let ran = std::mem::replace(&mut self.st, skip.clone());
                    let known = if !ran.dead && ran.guard == rg { Some(g) } else { None };
                    self.st = self.merge(vec![ran, skip], known);
                    cb
                };
                let r = if *op == LogicOp::And {
                    Bool::and(self.ctx, &[&ca, &cb])
                } else {
                    Bool::or(self.ctx, &[&ca, &cb])
                };
                self.bool_val(&r, &e.ty, e.span)
            }
            ExprKind::Cond(c, a, b) => {
                let cv = {
                    let v = self.eval(c)?;
                    self.truthy(&v)
                };
                let g = self.st.guard.clone();
                let (ga, gb) = (self.and(&g, &cv), self.and(&g, &cv.not()));
                if is_pure(a) && is_pure(b) {
                    self.st.guard = ga;
                    let va = self.eval(a)?;
                    self.st.guard = gb;
                    let vb = self.eval(b)?;
                    self.st.guard = g;
                    return Ok(self.ite(&cv, &va, &vb));
                }
                let start = self.st.clone();
                self.st.guard = ga.clone();
                let va = self.eval(a)?;
                let sa = std::mem::replace(&mut self.st, start);
                self.st.guard = gb.clone();
                let vb = self.eval(b)?;
                let sb = std::mem::replace(&mut self.st, sa.clone());
                let known = if !sa.dead && !sb.dead && sa.guard == ga && sb.guard == gb { Some(g) } else { None };
                self.st = self.merge(vec![sa, sb], known);
                Ok(self.ite(&cv, &va, &vb))
            }
            ExprKind::Assign(l, r) => {
                let pl = self.place(l)?;
                let v = self.eval_loc(r)?;
                self.store(pl, v.clone(), l.span)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { lhs, .. } => {
                let pl = self.place(lhs)?;
                let pl2 = self.clone_place(&pl);
                let old = self.load(pl2, lhs)?;
                let v = self.compound_value(e, &old)?;
                self.store(pl, v.clone(), lhs.span)?;
                Ok(v)
            }
            ExprKind::IncDec(kind, a) => {
                let pl = self.place(a)?;
                let pl2 = self.clone_place(&pl);
                let old = self.load(pl2, a)?;
                let inc = matches!(kind, IncDec::PreInc | IncDec::PostInc);
                let new = match (&old, &a.ty) {
                    (SymVal::Int(b), Type::Int(t)) => {
                        let one = c_int::constant(self.ctx, *t, 1);
                        let r = if inc { c_int::add(b, &one) } else { c_int::sub(b, &one) };
                        // `_Bool` x++ is 1; x-- toggles: C converts the int result back.
                        if t.kind == IntKind::Bool {
                            let wide = c_int::resize(b, false, 32);
                            let one32 = BV::from_u64(self.ctx, 1, 32);
                            let r32 = if inc { wide.bvadd(&one32) } else { wide.bvsub(&one32) };
                            SymVal::Int(c_int::cast(&r32, IntType::INT, *t))
                        } else {
                            SymVal::Int(r)
                        }
                    }
                    (SymVal::Float(f), Type::Float(k)) => {
                        let one = self.floats.literal(1.0, *k);
                        SymVal::Float(self.floats.arith(if inc { "add" } else { "sub" }, f, &one, *k))
                    }
                    (SymVal::Ptr(p), Type::Pointer(to)) => {
                        let Some(scale) = leaf_count(self.p, to) else {
                            return self.unsupported("pointer arithmetic", e.span);
                        };
                        let d = BV::from_u64(self.ctx, scale, OFF_BITS);
                        let off = if inc { p.off.bvadd(&d) } else { p.off.bvsub(&d) };
                        SymVal::Ptr(SymPtr { off, ..p.clone() })
                    }
                    _ => return self.unsupported("++/-- on this type", e.span),
                };
                self.store(pl, new.clone(), a.span)?;
                Ok(if matches!(kind, IncDec::PreInc | IncDec::PreDec) { new } else { old })
            }
            ExprKind::Cast { expr, .. } if e.ty.is_pointer() && Self::allocation(expr).is_some() => {
                let (b, args) = Self::allocation(expr).expect("checked");
                self.allocate(b, args, e)
            }
            ExprKind::Cast { expr, .. } => {
                let v = self.eval(expr)?;
                self.cast(v, &expr.ty, &e.ty, e.span)
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Call(callee, args) => self.call(e, callee, args),
        }
    }

    pub(super) fn clone_place(&self, p: &Place<'ctx>) -> Place<'ctx> {
        match p {
            Place::Var(k) => Place::Var(*k),
            Place::Mem { ptr, ty } => Place::Mem { ptr: ptr.clone(), ty: ty.clone() },
        }
    }

    pub(super) fn bool_val(&self, b: &Bool<'ctx>, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        match ty {
            Type::Int(t) => Ok(SymVal::Int(c_int::from_bool(b, *t))),
            _ => self.unsupported("a truth value of non-integer type", span),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        x: SymVal<'ctx>,
        y: SymVal<'ctx>,
        aty: &Type,
        bty: &Type,
        ty: &Type,
        span: Span,
    ) -> R<SymVal<'ctx>> {
        if op.is_comparison() {
            let c = match (&x, &y) {
                (SymVal::Int(a), SymVal::Int(b)) => {
                    let signed = aty.as_int().is_some_and(|t| t.signed);
                    c_int::compare(op, a, b, signed).expect("comparison")
                }
                (SymVal::Float(a), SymVal::Float(b)) => self.floats.c_compare(op, a, b),
                (SymVal::Ptr(a), SymVal::Ptr(b)) => match op {
                    BinOp::Eq => Bool::and(self.ctx, &[&a.obj._eq(&b.obj), &a.off._eq(&b.off)]),
                    BinOp::Ne => Bool::and(self.ctx, &[&a.obj._eq(&b.obj), &a.off._eq(&b.off)]).not(),
                    _ => c_int::compare(op, &a.off, &b.off, true).expect("comparison"),
                },
                _ => return self.unsupported("a comparison of these operands", span),
            };
            return self.bool_val(&c, ty, span);
        }
        match (x, y, ty) {
            (SymVal::Ptr(p), SymVal::Int(n), Type::Pointer(to))
            | (SymVal::Int(n), SymVal::Ptr(p), Type::Pointer(to))
                if matches!(op, BinOp::Add | BinOp::Sub) =>
            {
                let Some(scale) = leaf_count(self.p, to) else { return self.unsupported("pointer arithmetic", span) };
                let nt = if aty.is_integer() { aty } else { bty };
                let signed = nt.as_int().is_none_or(|t| t.signed);
                let d = c_int::resize(&n, signed, OFF_BITS).bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS));
                let off = if op == BinOp::Sub { p.off.bvsub(&d) } else { p.off.bvadd(&d) };
                Ok(SymVal::Ptr(SymPtr { off, ..p }))
            }
            (SymVal::Ptr(p), SymVal::Ptr(q), Type::Int(t)) if op == BinOp::Sub => {
                let Some(scale) = aty.pointee().and_then(|t| leaf_count(self.p, t)) else {
                    return self.unsupported("pointer arithmetic", span);
                };
                let d = p.off.bvsub(&q.off).bvsdiv(&BV::from_u64(self.ctx, scale, OFF_BITS));
                Ok(SymVal::Int(c_int::resize(&d, true, c_int::width(*t))))
            }
            (SymVal::Int(a), SymVal::Int(b), Type::Int(t)) => {
                let t = *t;
                let b = match op {
                    BinOp::Shl | BinOp::Shr => {
                        let bt = bty.as_int().unwrap_or(t);
                        let n = c_int::resize(&b, bt.signed, c_int::width(t));
                        // x86 masks the count to the operand width (as the interpreter does).
                        n.bvand(&BV::from_u64(self.ctx, (c_int::width(t) - 1) as u64, c_int::width(t)))
                    }
                    BinOp::Div | BinOp::Rem => {
                        let ok = c_int::truthy(&b);
                        self.check(ok, ViolationKind::DivisionByZero, span);
                        b
                    }
                    _ => b,
                };
                match c_int::arith(op, &a, &b, t) {
                    Some(r) => Ok(SymVal::Int(r)),
                    None => self.unsupported("this operation", span),
                }
            }
            (SymVal::Float(a), SymVal::Float(b), Type::Float(k)) => {
                let name = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    _ => return self.unsupported(format!("operator `{}` on floating point", op.c_token()), span),
                };
                Ok(SymVal::Float(self.floats.arith(name, &a, &b, *k)))
            }
            _ => self.unsupported(format!("operator `{}` on these operands", op.c_token()), span),
        }
    }

    pub(super) fn cast(&mut self, v: SymVal<'ctx>, from: &Type, to: &Type, span: Span) -> R<SymVal<'ctx>> {
        Ok(match (v, from, to) {
            (v, _, Type::Void) => {
                let _ = v;
                SymVal::Void
            }
            (SymVal::Int(b), Type::Int(f), Type::Int(t)) => SymVal::Int(c_int::cast(&b, *f, *t)),
            (SymVal::Int(b), Type::Int(f), Type::Float(k)) => {
                let x = self.floats.from_int(&b, f.signed, *k);
                if *k == FloatKind::Double && f.bits() <= 32 {
                    self.exact_ints.insert(x.clone(), (b, *f));
                }
                SymVal::Float(x)
            }
            (SymVal::Float(x), Type::Float(_), Type::Int(t))
                if t.kind != IntKind::Bool && self.exact_ints.contains_key(&x) =>
            {
                let (b, f) = self.exact_ints[&x].clone();
                SymVal::Int(c_int::cast(&b, f, *t))
            }
            (SymVal::Float(x), Type::Float(_), Type::Int(t)) => {
                if t.kind == IntKind::Bool {
                    let c = self.floats.truthy(&x, float_kind(&x));
                    SymVal::Int(c_int::from_bool(&c, *t))
                } else {
                    SymVal::Int(self.floats.to_int(&x, t.signed, c_int::width(*t)))
                }
            }
            (SymVal::Float(x), Type::Float(f), Type::Float(k)) => {
                if f == k {
                    SymVal::Float(x)
                } else {
                    SymVal::Float(self.floats.convert(&x, *k))
                }
            }
            (SymVal::Ptr(p), _, Type::Int(t)) if t.kind == IntKind::Bool => {
                SymVal::Int(c_int::from_bool(&c_int::truthy(&p.obj), *t))
            }
            (SymVal::Ptr(p), Type::Pointer(a) | Type::Array(a, _), Type::Pointer(b)) => {
                // Through `void *` (malloc's result, free's argument) a pointer keeps its
                // objects; each access checks its type against them.
                let via_void = matches!(**a, Type::Void) || matches!(**b, Type::Void);
                if leaf(a) != leaf(b) && !p.targets.is_empty() && !via_void {
                    return self.unsupported("a cast between pointers to different types", span);
                }
                SymVal::Ptr(p)
            }
            (SymVal::Int(b), Type::Int(_), Type::Pointer(_))
                if b.as_u64() == Some(0) || c_int::value_of(&b, IntType::LONG) == Some(0) =>
            {
                SymVal::Ptr(self.null())
            }
            (v, f, t) if f == t => v,
            _ => {
                return self.unsupported(
                    format!("a conversion from `{}` to `{}`", self.p.type_name(from), self.p.type_name(to)),
                    span,
                );
            }
        })
    }
}
