//! Statements and control flow of a region: branches merged with `ite`, loops reaching their
//! head or exit nodes, `switch`, `break`/`continue`/`return` exits, the `Extend` tails.

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    /// Whether `span` starts among the statements that read characters (`values` mode).
    /// Stops the run when the job's budget has run out or the job was cancelled.
    pub(super) fn in_budget(&self, at: Span) -> R<()> {
        match self.setup.budget.is_exhausted() {
            true => Err(Unsupported { what: OUT_OF_TIME.into(), span: at }),
            false => Ok(()),
        }
    }

    pub(super) fn in_reading(&self, span: Span) -> bool {
        self.setup.compare == Compare::Values
            && self.setup.reading.is_some_and(|r| r.start <= span.start && span.start < r.end)
    }

    pub(super) fn enclosing_loops(&self, l: usize) -> Vec<usize> {
        let mut out = vec![l];
        let mut at = self.setup.tree.loops[l].parent;
        while let Some(p) = at {
            out.push(p);
            at = self.setup.tree.loops[p].parent;
        }
        out.reverse();
        out
    }

    pub(super) fn exit(&mut self, to: Node, kind: EdgeKind, st: State<'ctx>) {
        if st.guard.as_bool() != Some(false) {
            if self.setup.line.contains(&to) {
                let broken = Bool::and(self.ctx, &[&st.guard, &st.in_pos.bvule(&self.world.nl()).not()]).simplify();
                if broken.as_bool() != Some(false) {
                    self.region.obligations.push(broken);
                }
            }
            self.region.exits.push(Exit { to, kind, state: st });
        }
    }

    /// Runs the frames innermost first until control leaves the region.
    pub(super) fn continue_from(&mut self, frames: &[Frame<'p>], st: State<'ctx>) -> R<()> {
        // A `break` in the rest of a `switch` arm (after a loop in it) leaves the switch: each
        // switch inside the innermost loop frame collects its breaks, innermost on top.
        let inner_loop = frames.iter().rposition(|f| matches!(f, Frame::LoopBody(_)));
        let open =
            frames[inner_loop.map_or(0, |l| l + 1)..].iter().filter(|f| matches!(f, Frame::SwitchArms(..))).count();
        self.switches.extend((0..open).map(|_| Vec::new()));
        let mut cur = Some(st);
        for frame in frames.iter().rev() {
            match *frame {
                Frame::Seq(stmts, next) => {
                    for s in &stmts[next.min(stmts.len())..] {
                        let Some(at) = cur.take() else { break };
                        cur = self.stmt(s, at)?;
                    }
                }
                Frame::LoopBody(l) => {
                    return match cur {
                        Some(st) => self.end_of_body(l, st, EdgeKind::Normal),
                        None => Ok(()),
                    };
                }
                Frame::SwitchArms(arms, next) => {
                    for arm in &arms[next.min(arms.len())..] {
                        for s in &arm.body {
                            let Some(at) = cur.take() else { break };
                            cur = self.stmt(s, at)?;
                        }
                    }
                    let breaks = self.switches.pop().expect("opened above");
                    cur = breaks.into_iter().fold(cur, |acc, b| merge_disjoint(acc, Some(b)));
                }
            }
        }
        let Some(mut st) = cur else { return Ok(()) };
        let ret = self.fall_off_value();
        st.ret = ret;
        self.exit(Node::FuncExit, EdgeKind::Normal, st);
        Ok(())
    }

    /// `main` falling off its end returns 0; other functions return an unknown value.
    pub(super) fn fall_off_value(&mut self) -> Option<Val<'ctx>> {
        let f = self.setup.program.func(self.setup.func);
        match (&f.ret, f.name.as_str()) {
            (Type::Int(t), "main") => {
                Some(Val { term: Term::Int(c_int::constant(self.ctx, *t, 0), *t), deps: Deps::new() })
            }
            _ => None,
        }
    }

    pub(super) fn loop_stmt(&self, l: usize) -> &'p Stmt {
        self.setup.tree.loops[l].stmt
    }

    /// At a loop's head: its test, then its body (or the exit).
    pub(super) fn loop_head(&mut self, l: usize, st: State<'ctx>) -> R<()> {
        let s = self.loop_stmt(l);
        let cond = match &s.kind {
            StmtKind::While { cond, .. } => Some(cond),
            StmtKind::For { cond, .. } => cond.as_ref(),
            StmtKind::DoWhile { .. } => {
                let frames = self.setup.tree.body_frames(l);
                return self.continue_from(&frames, st);
            }
            _ => unreachable!("a loop"),
        };
        let (into, out) = match cond {
            Some(c) => self.branch_on(c, st)?,
            None => (Some(st), None),
        };
        if let Some(out) = out {
            self.exit(Node::LoopExit(l), EdgeKind::Normal, out);
        }
        if let Some(into) = into {
            let frames = self.setup.tree.body_frames(l);
            self.continue_from(&frames, into)?;
        }
        Ok(())
    }

    /// The end of loop `l`'s body (or a `continue`): the step, then back to the head (or, for
    /// `do`-`while`, the test).
    pub(super) fn end_of_body(&mut self, l: usize, mut st: State<'ctx>, kind: EdgeKind) -> R<()> {
        st = match self.apply_tails(l, false, st)? {
            Some(s) => s,
            None => return Ok(()),
        };
        match &self.loop_stmt(l).kind {
            StmtKind::For { step, .. } => {
                if let Some(step) = step {
                    st = self.effect(step, None, st)?;
                }
                self.exit(Node::LoopEntry(l), kind, st);
            }
            StmtKind::While { .. } => self.exit(Node::LoopEntry(l), kind, st),
            StmtKind::DoWhile { cond, .. } => {
                let (again, out) = self.branch_on(cond, st)?;
                if let Some(a) = again {
                    self.exit(Node::LoopEntry(l), kind, a);
                }
                if let Some(o) = out {
                    self.exit(Node::LoopExit(l), EdgeKind::Normal, o);
                }
            }
            _ => unreachable!("a loop"),
        }
        Ok(())
    }

    /// The `Extend` assignments of loop `l` at one of their two places.
    pub(super) fn apply_tails(&mut self, l: usize, before: bool, mut st: State<'ctx>) -> R<Option<State<'ctx>>> {
        let tails: Vec<Tail<'p>> = self.tails.iter().filter(|t| t.l == l && t.before == before).copied().collect();
        for t in tails {
            let (b, deps) = self.cond_site(t.guard, &mut st)?;
            let (yes, no) = self.split(st.clone(), &b, &deps);
            let yes = match yes {
                Some(mut y) => {
                    let v = self.site_value(t.value, SiteKind::Update(t.var), None, &mut y)?;
                    y.vars.insert(t.var, v);
                    Some(y)
                }
                None => None,
            };
            match self.merge(&b, yes, no) {
                Some(m) => st = m,
                None => return Ok(None),
            }
        }
        Ok(Some(st))
    }

    pub(super) fn is_hole(&self, site: &Expr) -> bool {
        self.holes.is_some_and(|h| h.sites.contains_key(&site.id))
    }

    /// `Extend`'s `if (guard) print; else call;` (no `else` without `otherwise`), both
    /// `guard` and `print` holes.
    #[allow(clippy::type_complexity)]
    pub(super) fn print_if(
        &mut self,
        guard: &'p Expr,
        print: &'p Expr,
        otherwise: Option<(&'p Expr, &'p [Expr], Option<&'p Stmt>)>,
        mut st: State<'ctx>,
    ) -> R<State<'ctx>> {
        let (b, deps) = self.cond_site(guard, &mut st)?;
        let (yes, no) = self.split(st.clone(), &b, &deps);
        let yes = match yes {
            Some(mut y) => {
                self.print_site(print, &[], None, &mut y)?;
                Some(y)
            }
            None => None,
        };
        let no = match (no, otherwise) {
            (Some(mut n), Some((call, args, stmt))) => {
                self.print_site(call, args, stmt, &mut n)?;
                Some(n)
            }
            (n, _) => n,
        };
        Ok(self.merge(&b, yes, no).unwrap_or(st))
    }

    /// Splits `st` on condition `c` (a site): the states where it holds and where it does not.
    pub(super) fn branch_on(
        &mut self,
        c: &'p Expr,
        mut st: State<'ctx>,
    ) -> R<(Option<State<'ctx>>, Option<State<'ctx>>)> {
        let (b, deps) = self.cond_site(c, &mut st)?;
        Ok(self.split_on(c, st, &b, &deps))
    }

    /// [`Self::split`] on the condition `c` that evaluated to `b`. Where `c` is a chain
    /// `x && y && z` whose operands had effects, the side where it holds is the state in which
    /// every operand ran (for `||`, the side where it fails), not the merge with the states
    /// where an earlier operand decided: the values are the same under `b`, but their
    /// dependencies are not. In `i < n && (c = getchar()) != '\n'` the body then reads the `c`
    /// just read, and `c`'s value before the loop is not live.
    pub(super) fn split_on(
        &mut self,
        c: &Expr,
        st: State<'ctx>,
        b: &Bool<'ctx>,
        deps: &Deps,
    ) -> (Option<State<'ctx>>, Option<State<'ctx>>) {
        let key = c.strip_implicit().id;
        // The condition was just evaluated: what else is recorded belongs to chains no branch
        // is on (operands, statements), and goes.
        let ends = std::mem::take(&mut self.chain_ends);
        let end = match self.is_hole(c) {
            // Evaluated once per alternative: no one state is the condition's.
            true => None,
            false => ends.into_iter().rfind(|(k, ..)| *k == key),
        };
        let (yes, no) = self.split(st, b, deps);
        let with_end = |side: Option<State<'ctx>>, end: State<'ctx>| {
            side.map(|s| State { guard: s.guard, guard_deps: s.guard_deps, ..end })
        };
        match end {
            Some((_, LogicOp::And, end)) => (with_end(yes, end), no),
            Some((_, LogicOp::Or, end)) => (yes, with_end(no, end)),
            None => (yes, no),
        }
    }

    pub(super) fn split(
        &self,
        st: State<'ctx>,
        b: &Bool<'ctx>,
        deps: &Deps,
    ) -> (Option<State<'ctx>>, Option<State<'ctx>>) {
        let mut yes = st.clone();
        let mut no = st;
        yes.guard = Bool::and(self.ctx, &[&yes.guard, b]).simplify();
        no.guard = Bool::and(self.ctx, &[&no.guard, &b.not()]).simplify();
        yes.guard_deps.extend(deps.iter().copied());
        no.guard_deps.extend(deps.iter().copied());
        let live = |s: State<'ctx>| (s.guard.as_bool() != Some(false)).then_some(s);
        (live(yes), live(no))
    }

    pub(super) fn merge(&self, c: &Bool<'ctx>, a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
        merge_states(c, a, b)
    }

    pub(super) fn ite_val(&self, c: &Bool<'ctx>, cdeps: &Deps, a: &Val<'ctx>, b: &Val<'ctx>) -> Val<'ctx> {
        ite_val(c, cdeps, a, b)
    }

    /// A variable-length array's length `len` as 64 bits, and what it depends on; a negative
    /// one is an error, as in the interpreter.
    fn vla_length(&mut self, len: &'p Expr, st: &mut State<'ctx>) -> R<(BV<'ctx>, Deps)> {
        let g = st.guard.clone();
        let n = self.eval(len, st, &g)?;
        let Term::Int(b, t) = &n.term else {
            return unsupported("a variable-length array of this length", len.span);
        };
        let wide = c_int::resize(b, t.signed, 64);
        if t.signed {
            let negative = wide.bvslt(&BV::from_i64(self.ctx, 0, 64));
            self.error(Bool::and(self.ctx, &[&g, &negative]), n.deps.clone(), len.span);
        }
        Ok((wide, n.deps))
    }

    /// `char s[N] = "text"`, `int a[N] = {e, ...}` or `int m[R][C] = {{...}, ...}`: the
    /// elements given, then zeros (as C fills the rest). Not a repair site.
    fn init_array(&mut self, var: VarId, init: &'p Init, span: Span, st: &mut State<'ctx>) -> R<()> {
        let ctx = self.ctx;
        let ty = self.setup.program.var(var).ty.clone();
        let Some((t, n)) = flat_elements(&ty) else {
            return unsupported("an initialised array of this type", span);
        };
        let mut given = Vec::new();
        if let Err(at) = flat_init(init, &ty, 0, &mut given) {
            return unsupported("this initialiser of an array", at);
        }
        let zero = c_int::constant(ctx, t, 0);
        let mut a = Array::const_array(ctx, &Sort::bitvector(ctx, 32), &zero);
        let mut deps = Deps::new();
        let g = st.guard.clone();
        for (k, item) in given {
            let b = match item {
                Given::Byte(b) => c_int::constant(ctx, t, b as i64),
                Given::Expr(x) => {
                    let val = self.eval(x, st, &g)?;
                    let val = self.convert(val, &Type::Int(t), x.span)?;
                    deps.extend(val.deps.iter().copied());
                    let Term::Int(b, _) = val.term else { unreachable!("an integer element") };
                    b
                }
            };
            a = a.store(&BV::from_u64(ctx, k, 32), &b);
        }
        self.use_var(var, Usage::Written);
        st.vars.insert(var, Val { term: Term::Array(a, t, Len::Fixed(n)), deps });
        Ok(())
    }

    /// Executes a statement; `None` when every path left the region.
    pub(super) fn stmt(&mut self, s: &'p Stmt, st: State<'ctx>) -> R<Option<State<'ctx>>> {
        self.in_budget(s.span)?;
        match &s.kind {
            StmtKind::Empty => Ok(Some(st)),
            StmtKind::Expr(e) => Ok(Some(self.effect(e, Some(s), st)?)),
            StmtKind::Decl { var, init } => match init {
                None => Ok(Some(st)),
                Some(init) if matches!(self.setup.program.var(*var).ty, Type::Array(..)) => {
                    let mut st = st;
                    self.init_array(*var, init, s.span, &mut st)?;
                    Ok(Some(st))
                }
                Some(Init::Expr(e)) if self.setup.program.var(*var).hidden() => {
                    // A parameter's row length (`ExprKind::Row`), set on entry: not a site.
                    let mut st = st;
                    let g = st.guard.clone();
                    let v = self.eval(e, &mut st, &g)?;
                    self.use_var(*var, Usage::Written);
                    st.vars.insert(*var, v);
                    Ok(Some(st))
                }
                Some(Init::Expr(e)) => {
                    let mut st = st;
                    let v = self.site_value(e, SiteKind::Update(*var), None, &mut st)?;
                    self.use_var(*var, Usage::Written);
                    st.vars.insert(*var, v);
                    Ok(Some(st))
                }
                Some(Init::List(_, span)) => unsupported("an initialiser list", *span),
            },
            StmtKind::VlaDecl { var, len, row } => {
                // The contents stay what the pre-state holds (indeterminate, as C leaves them);
                // the length is the one computed here. A negative one is an error, as in the
                // interpreter.
                let mut st = st;
                let (mut wide, mut n_deps) = self.vla_length(len, &mut st)?;
                if let Some((per_var, per)) = row {
                    // `int a[n][m]`: `m` kept for the rows' starts, `n * m` elements.
                    let (m, m_deps) = self.vla_length(per, &mut st)?;
                    self.use_var(*per_var, Usage::Written);
                    st.vars.insert(*per_var, Val { term: Term::Int(m.clone(), IntType::LONG), deps: m_deps.clone() });
                    wide = wide.bvmul(&m);
                    n_deps.extend(m_deps);
                }
                // `int a[n][3]`: n rows of 3 elements.
                let per = self.setup.program.var(*var).ty.pointee().and_then(flat_elements).map_or(1, |(_, per)| per);
                let wide = wide.bvmul(&BV::from_u64(self.ctx, per, 64));
                let Some(Val { term: Term::Array(a, elem, _), deps }) = st.vars.get(var).cloned() else {
                    return unsupported("a variable-length array of this type", s.span);
                };
                let mut deps = deps;
                deps.extend(n_deps);
                self.use_var(*var, Usage::Written);
                st.vars.insert(*var, Val { term: Term::Array(a, elem, Len::Runtime(wide)), deps });
                Ok(Some(st))
            }
            StmtKind::Block(stmts) => {
                let mut st = st;
                for x in stmts {
                    match self.stmt(x, st)? {
                        Some(n) => st = n,
                        None => return Ok(None),
                    }
                }
                Ok(Some(st))
            }
            StmtKind::If { cond, then, els } => {
                let mut st = st;
                let (b, deps) = self.cond_site(cond, &mut st)?;
                let (yes, no) = self.split_on(cond, st, &b, &deps);
                let a = match yes {
                    Some(y) => self.stmt(then, y)?,
                    None => None,
                };
                let c = match (no, els) {
                    (Some(n), Some(e)) => self.stmt(e, n)?,
                    (n, None) => n,
                    (None, Some(_)) => None,
                };
                Ok(self.merge(&b, a, c))
            }
            StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. } => {
                let l = self.setup.tree.loop_of(s).expect("every loop is in the tree");
                let Some(mut st) = self.apply_tails(l, true, st)? else { return Ok(None) };
                if let StmtKind::For { init, .. } = &s.kind {
                    for i in init {
                        match self.stmt(i, st)? {
                            Some(n) => st = n,
                            None => return Ok(None),
                        }
                    }
                }
                self.exit(Node::LoopEntry(l), EdgeKind::Normal, st);
                Ok(None)
            }
            StmtKind::Break if !self.switches.is_empty() => {
                // Loops inside a `switch` are refused, so a `break` in one leaves the switch.
                self.switches.last_mut().expect("a switch").push(st);
                Ok(None)
            }
            StmtKind::Break => {
                let l =
                    *self.loops.last().ok_or(Unsupported { what: "`break` outside a loop".into(), span: s.span })?;
                self.exit(Node::LoopExit(l), EdgeKind::Break, st);
                Ok(None)
            }
            StmtKind::Continue => {
                let l =
                    *self.loops.last().ok_or(Unsupported { what: "`continue` outside a loop".into(), span: s.span })?;
                self.end_of_body(l, st, EdgeKind::Continue)?;
                Ok(None)
            }
            StmtKind::Return(e) => {
                let mut st = st;
                if let Some(end) = self.end_print.filter(|p| std::ptr::eq(p.before, s) && self.is_hole(p.guard)) {
                    st = self.print_if(end.guard, end.print, None, st)?;
                }
                if let Some(e) = e {
                    let v = self.site_value(e, SiteKind::Return, None, &mut st)?;
                    st.ret = Some(v);
                }
                self.exit(Node::FuncExit, EdgeKind::Return, st);
                Ok(None)
            }
            StmtKind::Switch { cond, arms } => self.switch(cond, arms, st),
        }
    }

    /// `switch (cond) { case k: ... }`: control enters at the arm whose label equals the value
    /// (`default:` when none does, past the switch when there is no `default:`), falls through
    /// the arms after it, and leaves at the end or by `break`. A loop inside ends the run of
    /// its arm here (at the loop's head); what follows the loop, down through the next
    /// arms, runs from the loop's exit node (`Frame::SwitchArms`).
    pub(super) fn switch(
        &mut self,
        cond: &'p Expr,
        arms: &'p [crate::ir::SwitchArm],
        mut st: State<'ctx>,
    ) -> R<Option<State<'ctx>>> {
        let ctx = self.ctx;
        let g = st.guard.clone();
        let v = self.eval(cond, &mut st, &g)?;
        let Term::Int(x, t) = &v.term else { return unsupported("`switch` on a floating point value", cond.span) };
        let is = |k: i64| x._eq(&c_int::constant(ctx, *t, k));
        let matched: Vec<Bool<'ctx>> = arms.iter().filter_map(|a| a.label.map(is)).collect();
        let refs: Vec<&Bool<'ctx>> = matched.iter().collect();
        let unmatched = Bool::or(ctx, &refs).not();
        self.switches.push(Vec::new());
        let mut cur: Option<State<'ctx>> = None;
        for arm in arms {
            let c = match arm.label {
                Some(k) => is(k),
                None => unmatched.clone(),
            };
            let (enter, _) = self.split(st.clone(), &c, &v.deps);
            cur = merge_disjoint(cur, enter);
            for x in &arm.body {
                let Some(at) = cur.take() else { break };
                cur = self.stmt(x, at)?;
            }
        }
        let breaks = self.switches.pop().expect("pushed above");
        if !arms.iter().any(|a| a.label.is_none()) {
            let (past, _) = self.split(st, &unmatched, &v.deps);
            cur = merge_disjoint(cur, past);
        }
        Ok(breaks.into_iter().fold(cur, |acc, b| merge_disjoint(acc, Some(b))))
    }

    /// A statement-level expression: assignments, `++`, calls.
    pub(super) fn effect(&mut self, e: &'p Expr, stmt: Option<&'p Stmt>, mut st: State<'ctx>) -> R<State<'ctx>> {
        if element_update(e) {
            let g = st.guard.clone();
            self.update_element(e, &mut st, &g)?;
            return Ok(st);
        }
        match &e.kind {
            ExprKind::Assign(lhs, rhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.site_value(rhs, SiteKind::Update(v), stmt, &mut st)?;
                self.use_var(v, written_by(rhs));
                st.vars.insert(v, val);
                Ok(st)
            }
            ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.site_value(e, SiteKind::Update(v), stmt, &mut st)?;
                st.vars.insert(v, val);
                Ok(st)
            }
            ExprKind::Comma(a, b) => {
                let st = self.effect(a, None, st)?;
                self.effect(b, None, st)
            }
            ExprKind::Call(Callee::Builtin(Builtin::Printf), args) if stmt.is_some() => {
                let guarded = self.guarded_prints.iter().find(|p| p.call.id == e.id).copied();
                match guarded.filter(|p| self.is_hole(p.guard)) {
                    Some(gp) => self.print_if(gp.guard, gp.print, Some((e, args, stmt)), st),
                    None => {
                        self.print_site(e, args, stmt, &mut st)?;
                        Ok(st)
                    }
                }
            }
            ExprKind::Call(Callee::Builtin(b @ (Builtin::Strcpy | Builtin::Strcat)), args) => {
                self.copy_string(*b, e, args, &mut st)?;
                Ok(st)
            }
            ExprKind::Call(Callee::Builtin(Builtin::Fgets), args) => {
                let g = st.guard.clone();
                self.fgets(e, args, &mut st, &g)?;
                Ok(st)
            }
            _ => {
                let g = st.guard.clone();
                self.eval(e, &mut st, &g)?;
                Ok(st)
            }
        }
    }

    pub(super) fn lvalue_var(&self, lhs: &Expr) -> R<VarId> {
        match &lhs.strip_implicit().kind {
            ExprKind::Var(v) if self.setup.program.var(*v).func.is_some() => Ok(*v),
            ExprKind::Var(_) => unsupported("assigning a global variable", lhs.span),
            _ => unsupported(
                format!("assigning to `{}`", crate::ir::print::expr_to_c(self.setup.program, lhs)),
                lhs.span,
            ),
        }
    }

    pub(super) fn use_var(&mut self, v: VarId, u: Usage) {
        self.region.usage.push((v, u));
    }
}

/// An element an initialiser gives: a string's byte, or an expression.
enum Given<'p> {
    Byte(u8),
    Expr(&'p Expr),
}

/// The elements `init` gives an object of type `ty` starting `at` elements in, flattened in
/// C's order (`{{1, 2}, {3}}` for `int [2][2]` gives elements 0, 1 and 2). The front end
/// has put back the braces of inner arrays a list leaves out (`{1, 2, 3, 4}` arrives as
/// `{{1, 2}, {3, 4}}`). More items than the array holds is the error's span.
fn flat_init<'p>(init: &'p Init, ty: &Type, at: u64, out: &mut Vec<(u64, Given<'p>)>) -> Result<(), Span> {
    match (ty, init) {
        (Type::Int(_), Init::Expr(x)) => out.push((at, Given::Expr(x))),
        (Type::Int(_), Init::List(items, sp)) => match items.as_slice() {
            [one] => flat_init(one, ty, at, out)?,
            _ => return Err(*sp),
        },
        (Type::Array(elem, Some(n)), Init::Expr(x)) => {
            // A string literal for a `char` array: its bytes (the `'\0'` and the rest are
            // the zeros every element not given has).
            let ExprKind::Str(bytes) = &x.strip_implicit().kind else { return Err(x.span) };
            if !matches!(**elem, Type::Int(_)) {
                return Err(x.span);
            }
            for (k, b) in bytes.iter().enumerate().take(*n as usize) {
                out.push((at + k as u64, Given::Byte(*b)));
            }
        }
        (Type::Array(elem, Some(n)), Init::List(items, sp)) => {
            let per = flat_elements(elem).ok_or(*sp)?.1;
            if items.len() as u64 > *n {
                return Err(*sp);
            }
            for (k, item) in items.iter().enumerate() {
                flat_init(item, elem, at + k as u64 * per, out)?;
            }
        }
        (_, Init::Expr(x)) => return Err(x.span),
        (_, Init::List(_, sp)) => return Err(*sp),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The element indices the initialiser of the first declaration of `main` gives, or
    /// `None` where it is refused.
    fn given(decl: &str) -> Option<Vec<u64>> {
        let program = crate::syntax::lower::lower_source(&format!("int main(void) {{ {decl} return 0; }}")).program;
        let body = program.func(program.func_by_name("main").expect("main")).body.as_ref().expect("a body");
        let mut out = None;
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if let (None, StmtKind::Decl { var, init: Some(init) }) = (&out, &s.kind) {
                let mut given = Vec::new();
                out = Some(
                    flat_init(init, &program.var(*var).ty, 0, &mut given)
                        .ok()
                        .map(|()| given.iter().map(|(k, _)| *k).collect::<Vec<u64>>()),
                );
            }
        });
        out.expect("an initialised declaration")
    }

    #[test]
    fn an_initialiser_of_rows_fills_the_array_row_after_row() {
        assert_eq!(given("int m[2][3] = {{1, 2, 3}, {4}};"), Some(vec![0, 1, 2, 3]));
        assert_eq!(given("char w[2][4] = {\"ab\", \"c\"};"), Some(vec![0, 1, 4]));
        assert_eq!(given("int v[3] = {7};"), Some(vec![0]));
        // The inner braces left out: the front end puts them back.
        assert_eq!(given("int m[2][2] = {1, 2, 3, 4};"), Some(vec![0, 1, 2, 3]));
        assert_eq!(given("int m[2][2] = {{1, 2}, 3};"), Some(vec![0, 1, 2]));
    }
}
