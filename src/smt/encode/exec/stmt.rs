//! Statements: blocks, branches, loops unwound to the bound, `switch`, jumps, returns.

use super::*;

impl<'a, 'ctx> Exec<'a, 'ctx> {
    pub(super) fn globals(&mut self) -> R<()> {
        for (v, init) in &self.p.globals {
            self.init_var((0, *v), init.as_ref(), true)?;
        }
        // Static locals: one object for the whole run, initialised before `main`.
        let mut statics = Vec::new();
        for f in &self.p.funcs {
            if let Some(body) = &f.body {
                collect_statics(self.p, body, &mut statics);
            }
        }
        for (v, init) in statics {
            self.init_var((0, v), init, true)?;
        }
        Ok(())
    }

    pub(super) fn init_var(&mut self, key: Key, init: Option<&Init>, zero_default: bool) -> R<()> {
        let var = self.p.var(key.1);
        let ty = var.ty.clone();
        let span = var.span;
        if self.object_backed(key.1) {
            let o = self.var_obj(key, span)?;
            let zeroed = init.is_some() || zero_default;
            if self.objects[o as usize].small {
                self.reset_cells(o, zeroed, span)?;
            } else {
                for lane in self.lane_ids(o) {
                    let arr = self.fresh_lane(lane, zeroed, &var.name.clone(), span)?;
                    self.st.mem.insert(lane, arr);
                }
            }
            if let Some(init) = init {
                let mut cells = Vec::new();
                self.flatten_init(&ty, init, 0, &mut cells)?;
                for (off, cell_ty, item) in cells {
                    let v = match item {
                        InitItem::Expr(ex) => {
                            let v = self.eval_loc(ex)?;
                            let from = ex.ty.clone();
                            if matches!(cell_ty, Type::Struct(_)) { v } else { self.cast(v, &from, &cell_ty, ex.span)? }
                        }
                        InitItem::Byte(b) => SymVal::Int(BV::from_u64(self.ctx, b as u64, 8)),
                    };
                    let ptr = SymPtr { off: BV::from_u64(self.ctx, off, OFF_BITS), ..self.obj_ptr(o) };
                    self.store(Place::Mem { ptr, ty: cell_ty }, v, span)?;
                }
            }
            return Ok(());
        }
        let slot = match init {
            Some(Init::Expr(ex)) => Slot { val: self.eval_loc(ex)?, init: self.tt() },
            Some(Init::List(items, sp)) => match items.first() {
                Some(Init::Expr(ex)) => Slot { val: self.eval_loc(ex)?, init: self.tt() },
                _ => return self.unsupported("this initialiser", *sp),
            },
            None if zero_default => Slot { val: self.zero(&ty, span)?, init: self.tt() },
            None => {
                let v = self.fresh(&var.name.clone(), &ty, span)?;
                Slot { val: v, init: Bool::from_bool(self.ctx, false) }
            }
        };
        self.st.vars.insert(key, slot);
        Ok(())
    }

    /// The initialised cells of a value of type `ty` at cell `base`: (cell, type, value). A
    /// struct-typed expression is one item (copied cell by cell when stored).
    pub(super) fn flatten_init<'e>(
        &self,
        ty: &Type,
        init: &'e Init,
        base: u64,
        out: &mut Vec<(u64, Type, InitItem<'e>)>,
    ) -> R<()> {
        match (ty, init) {
            (Type::Array(elem, n), Init::List(items, sp)) => {
                let step = leaf_count(self.p, elem).unwrap_or(1);
                if let Some(n) = n
                    && items.len() as u64 > *n
                {
                    return self.unsupported("an initialiser with too many elements", *sp);
                }
                for (i, it) in items.iter().enumerate() {
                    self.flatten_init(elem, it, base + i as u64 * step, out)?;
                }
                Ok(())
            }
            (Type::Struct(id), Init::List(items, sp)) => {
                let fields = &self.p.struct_def(*id).fields;
                if items.len() > fields.len() {
                    return self.unsupported("an initialiser with too many elements", *sp);
                }
                for (i, it) in items.iter().enumerate() {
                    let Some(at) = field_cells(self.p, *id, i) else {
                        return self.unsupported("a struct of unknown size", *sp);
                    };
                    self.flatten_init(&fields[i].ty, it, base + at, out)?;
                }
                Ok(())
            }
            (Type::Array(elem, _), Init::Expr(ex)) => match &ex.strip_implicit().kind {
                ExprKind::Str(bytes) if matches!(**elem, Type::Int(t) if t.kind == IntKind::Char) => {
                    for (i, b) in bytes.iter().enumerate() {
                        out.push((base + i as u64, (**elem).clone(), InitItem::Byte(*b)));
                    }
                    Ok(())
                }
                _ => self.unsupported("this array initialiser", ex.span),
            },
            (_, Init::Expr(ex)) => {
                out.push((base, ty.clone(), InitItem::Expr(ex)));
                Ok(())
            }
            (_, Init::List(items, sp)) => match items.first() {
                Some(first) => self.flatten_init(ty, first, base, out),
                None => {
                    let _ = sp;
                    Ok(())
                }
            },
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> R<()> {
        if self.st.dead {
            return Ok(());
        }
        self.stmts += 1;
        if self.stmts > MAX_STMTS {
            return self.unsupported(
                format!("a program that unwinds to more than {MAX_STMTS} statements at bound {}", self.bound),
                s.span,
            );
        }
        if self.budget.is_some_and(|b| b.stop_reason().is_some()) {
            return self.unsupported(super::super::OUT_OF_TIME, s.span);
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                self.top_expr(e)?;
            }
            StmtKind::Decl { var, init } => {
                if self.p.var(*var).kind == VarKind::StaticLocal {
                    return Ok(());
                }
                let key = self.var_key(*var);
                self.init_var(key, init.as_ref(), false)?;
            }
            StmtKind::VlaDecl { var, len, row } => self.declare_vla(*var, len, row.as_ref(), s.span)?,
            StmtKind::If { cond, then, els } => {
                let c = self.eval_cond(cond)?;
                let g = self.st.guard.clone();
                self.enc.branches.push(Branch {
                    span: cond.span,
                    guard: g.clone(),
                    taken: c.clone(),
                    what: BranchKind::If,
                });
                let (gt, ge) = (self.and(&g, &c), self.and(&g, &c.not()));
                let mut other = self.st.clone();
                other.guard = ge.clone();
                self.st.guard = gt.clone();
                self.stmt(then)?;
                let th = std::mem::replace(&mut self.st, other);
                if let Some(e) = els {
                    self.stmt(e)?;
                }
                let el = std::mem::replace(&mut self.st, th.clone());
                let known = if !th.dead && !el.dead && th.guard == gt && el.guard == ge { Some(g) } else { None };
                self.st = self.merge(vec![th, el], known);
            }
            StmtKind::While { cond, body } => self.lp(Some(cond), body, None, false, s.span)?,
            StmtKind::DoWhile { body, cond } => self.lp(Some(cond), body, None, true, s.span)?,
            StmtKind::For { init, cond, step, body } => {
                for i in init {
                    self.stmt(i)?;
                }
                self.lp(cond.as_ref(), body, step.as_ref(), false, s.span)?;
            }
            StmtKind::Switch { cond, arms } => self.switch(cond, arms)?,
            StmtKind::Break => {
                let st = self.st.clone();
                match self.jumps.last_mut() {
                    Some(j) => j.breaks.push(st),
                    None => return self.unsupported("`break` outside a loop or switch", s.span),
                }
                self.kill();
            }
            StmtKind::Continue => {
                let st = self.st.clone();
                match self.jumps.iter_mut().rev().find(|j| j.is_loop) {
                    Some(j) => j.continues.push(st),
                    None => return self.unsupported("`continue` outside a loop", s.span),
                }
                self.kill();
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.eval_loc(e)?),
                    None => None,
                };
                if !self.st.dead {
                    let st = self.st.clone();
                    self.calls.last_mut().expect("inside a function").returns.push((st, v));
                }
                self.kill();
            }
            StmtKind::Block(b) => {
                for s in b {
                    self.stmt(s)?;
                }
            }
            StmtKind::Empty => {}
        }
        Ok(())
    }

    /// A statement-level expression (its top assignment's right-hand side is a location, an
    /// update or compound assignment is one whole).
    pub(super) fn top_expr(&mut self, e: &Expr) -> R<()> {
        match &e.kind {
            ExprKind::IncDec(..) => {
                self.eval_loc(e)?;
            }
            ExprKind::CompoundAssign { lhs, .. } => self.compound_loc(e, lhs)?,
            ExprKind::Comma(a, b) => {
                self.top_expr(a)?;
                self.top_expr(b)?;
            }
            ExprKind::Cast { expr, .. } => self.top_expr(expr)?,
            _ => {
                self.eval(e)?;
            }
        }
        Ok(())
    }

    pub(super) fn lp(
        &mut self,
        cond: Option<&Expr>,
        body: &Stmt,
        step: Option<&Expr>,
        do_while: bool,
        span: Span,
    ) -> R<()> {
        self.jumps.push(Jump { is_loop: true, breaks: vec![], continues: vec![] });
        let mut exits = Vec::new();
        let counted = cond.is_some_and(|c| self.may_decide(c));
        let mut past_bound = 0;
        for k in 0.. {
            if self.st.dead {
                break;
            }
            // Past the bound a loop goes on only while its condition is decided true, as in
            // `for (i = 0; i < 100; i++)` with `i` known: such a loop always runs to its end,
            // and cutting it would leave a bounded proof that no run reaches.
            if k >= self.bound {
                let Some(c) = cond.filter(|_| counted) else { break };
                if past_bound >= MAX_ITERATIONS_PAST_BOUND || self.stmts > MAX_STMTS / 2 || !self.decided_true(c)? {
                    break;
                }
                past_bound += 1;
            }
            if !(do_while && k == 0)
                && let Some(c) = cond
            {
                {
                    let cv = self.eval_cond(c)?;
                    if self.st.dead {
                        break;
                    }
                    let g = self.st.guard.clone();
                    self.enc.branches.push(Branch {
                        span: c.span,
                        guard: g.clone(),
                        taken: cv.clone(),
                        what: BranchKind::Loop,
                    });
                    // A decided condition has one side only: no exit guarded by `false` to
                    // grow the merge, no iteration no run takes.
                    match counted.then(|| cv.simplify().as_bool()).flatten() {
                        Some(true) => {}
                        Some(false) => {
                            exits.push(self.st.clone());
                            self.kill();
                            break;
                        }
                        None => {
                            let mut ex = self.st.clone();
                            ex.guard = self.and(&g, &cv.not());
                            exits.push(ex);
                            self.st.guard = self.and(&g, &cv);
                        }
                    }
                }
            }
            self.stmt(body)?;
            let conts = std::mem::take(&mut self.jumps.last_mut().expect("loop").continues);
            if !conts.is_empty() {
                let mut all = conts;
                all.push(self.st.clone());
                self.st = self.merge(all, None);
            }
            if let Some(s) = step
                && !self.st.dead
            {
                self.top_expr(s)?;
            }
        }
        if !self.st.dead {
            let over = match cond {
                Some(c) => {
                    let cv = self.eval_cond(c)?;
                    let g = self.st.guard.clone();
                    let mut ex = self.st.clone();
                    ex.guard = self.and(&g, &cv.not());
                    exits.push(ex);
                    self.and(&g, &cv)
                }
                None => self.st.guard.clone(),
            };
            self.enc.unwinding.push(UnwindPoint { span, cond: over, cuts: Cuts::default() });
        }
        let j = self.jumps.pop().expect("loop");
        exits.extend(j.breaks);
        self.st = self.merge(exits, None);
        Ok(())
    }

    /// A loop condition that may be decided by the values alone: it reads a variable, and
    /// evaluating it again changes nothing (no effects, no location with alternatives).
    fn may_decide(&self, c: &Expr) -> bool {
        let mut reads_var = false;
        let mut location = false;
        crate::ir::walk::walk_expr(c, &mut |x| {
            reads_var |= matches!(x.kind, ExprKind::Var(_));
            location |= self.loc_of.contains_key(&x.id);
        });
        reads_var && !location && !crate::ir::walk::has_effects(c)
    }

    /// Whether the condition `c` (one [`Self::may_decide`] admits) is true in the current
    /// state whatever the input: its value simplifies to `true`.
    fn decided_true(&mut self, c: &Expr) -> R<bool> {
        let before = self.st.clone();
        let cv = self.eval_cond(c)?;
        self.st = before;
        Ok(cv.simplify().as_bool() == Some(true))
    }

    pub(super) fn switch(&mut self, cond: &Expr, arms: &[crate::ir::SwitchArm]) -> R<()> {
        let v = self.eval_loc(cond)?;
        let SymVal::Int(v) = v else { return self.unsupported("a switch on a non-integer", cond.span) };
        let t = cond.ty.as_int().unwrap_or(IntType::INT);
        let start = self.st.clone();
        let g = start.guard.clone();
        let matches: Vec<Option<Bool<'ctx>>> =
            arms.iter().map(|a| a.label.map(|l| v._eq(&c_int::constant(self.ctx, t, l)))).collect();
        let labelled: Vec<&Bool<'ctx>> = matches.iter().flatten().collect();
        let none = Bool::or(self.ctx, &labelled).not();
        self.jumps.push(Jump { is_loop: false, breaks: vec![], continues: vec![] });
        let mut fall: Option<State<'ctx>> = None;
        for (arm, m) in arms.iter().zip(&matches) {
            let m = m.clone().unwrap_or_else(|| none.clone());
            let mut entry = start.clone();
            entry.guard = self.and(&g, &m);
            self.enc.branches.push(Branch {
                span: arm.label_span,
                guard: g.clone(),
                taken: m,
                what: BranchKind::Switch,
            });
            let mut ins = vec![entry];
            if let Some(f) = fall.take() {
                ins.insert(0, f);
            }
            self.st = self.merge(ins, None);
            for s in &arm.body {
                self.stmt(s)?;
            }
            fall = Some(self.st.clone());
        }
        let j = self.jumps.pop().expect("switch");
        let mut exits: Vec<State<'ctx>> = fall.into_iter().collect();
        exits.extend(j.breaks);
        if arms.iter().all(|a| a.label.is_some()) {
            let mut s = start;
            s.guard = self.and(&g, &none);
            exits.push(s);
        }
        self.st = self.merge(exits, None);
        Ok(())
    }
}
