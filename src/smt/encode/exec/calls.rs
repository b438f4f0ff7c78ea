//! Calls: inlining user functions, the library builtins, `scanf`/`printf` and the input and output streams.

use super::*;
use crate::smt::scan::{Accept, c_space};

impl<'a, 'ctx> Exec<'a, 'ctx> {
    pub(super) fn call(&mut self, e: &Expr, callee: &Callee, args: &[Expr]) -> R<SymVal<'ctx>> {
        match callee {
            Callee::Builtin(b) => self.builtin(*b, e, args),
            Callee::Func(fid) => {
                let f = self.p.func(*fid);
                // Prototypes of verification conventions are builtins already (lowering).
                if f.body.is_none() {
                    return self.unsupported(format!("a call to `{}`, which has no body", f.name), e.span);
                }
                let mut vals = vec![SymVal::Void; args.len()];
                for i in (0..args.len()).rev() {
                    vals[i] = self.eval_loc(&args[i])?;
                }
                self.call_user(*fid, vals, e.span)
            }
        }
    }

    pub(super) fn marks(&self) -> Marks {
        Marks {
            violations: self.enc.violations.len(),
            unwinding: self.enc.unwinding.len(),
            uninit_reads: self.enc.uninit_reads.len(),
            branches: self.enc.branches.len(),
            inputs: self.enc.inputs.len(),
            input_calls: self.enc.input_calls.len(),
            output: self.enc.output.len(),
            exits: self.enc.exits.len(),
        }
    }

    /// A call's memo key: the function, its arguments and the entry state it can observe
    /// (globals, static locals, every memory object, the input line state), as Z3 term
    /// identities (Z3 hash-conses terms, so equal terms are the same pointer).
    pub(super) fn memo_key(&self, fid: FuncId, vals: &[SymVal<'ctx>]) -> Vec<usize> {
        fn push<'c>(out: &mut Vec<usize>, v: &SymVal<'c>) {
            match v {
                SymVal::Int(b) => out.push(b.get_z3_ast() as usize),
                SymVal::Float(f) => out.push(f.get_z3_ast() as usize),
                SymVal::Ptr(p) => {
                    out.push(p.obj.get_z3_ast() as usize);
                    out.push(p.off.get_z3_ast() as usize);
                    out.push(p.targets.len());
                    out.extend(p.targets.iter().map(|t| *t as usize));
                }
                SymVal::Void => out.push(0),
            }
        }
        let mut key = vec![fid.0 as usize, vals.len(), self.st.line as usize];
        for v in vals {
            push(&mut key, v);
        }
        for (k, slot) in self.st.vars.iter().filter(|(k, _)| k.0 == 0) {
            key.push(k.1.0 as usize);
            push(&mut key, &slot.val);
            key.push(slot.init.get_z3_ast() as usize);
        }
        key.push(usize::MAX);
        for (o, a) in &self.st.mem {
            key.push(*o as usize);
            key.push(a.get_z3_ast() as usize);
        }
        key.push(usize::MAX);
        for ((lane, cell), v) in &self.st.cells {
            key.push(*lane as usize);
            key.push(*cell as usize);
            push(&mut key, v);
        }
        key
    }

    /// Inlines a call of `fid`. Unless the program is recursive, a call is evaluated once per
    /// distinct entry state (arguments, globals, memory) with the entry guard `true`; its value
    /// and final state are then correct wherever the call is executed (a state's values only
    /// matter under its guard), and its checks, cuts, uninitialised reads and branches are
    /// recorded at each call site with the site's guard conjoined. A mutation encoding
    /// evaluates every alternative of an expression like `up_sep() - 10` from the same state,
    /// so this inlines `up_sep` once instead of once per alternative (and per alternative of
    /// every enclosing call). Calls that read input, print or exit are inlined every time:
    /// their records are ordered and each call reads its own input.
    pub(super) fn call_user(&mut self, fid: FuncId, vals: Vec<SymVal<'ctx>>, span: Span) -> R<SymVal<'ctx>> {
        if self.memo.is_none() || self.no_memo.contains(&fid) || self.st.dead {
            return self.inline_call(fid, vals, span);
        }
        let key = self.memo_key(fid, &vals);
        if let Some(m) = self.memo.as_ref().and_then(|m| m.get(&key)).cloned() {
            return Ok(self.apply_memo(&m));
        }
        let saved = self.st.clone();
        let marks = self.marks();
        let (stmts, inlined, seq, assumes) = (self.stmts, self.enc.stats.inlined_calls, self.seq.get(), self.assumes);
        let heap_objects = self.heap_objects;
        let positions = (self.input_ends.clone(), self.char_pos.clone());
        self.st.guard = self.tt();
        let value = self.inline_call(fid, vals.clone(), span)?;
        let after = self.marks();
        if (after.inputs, after.input_calls, after.output, after.exits)
            != (marks.inputs, marks.input_calls, marks.output, marks.exits)
            || self.heap_objects != heap_objects
        {
            // I/O, exit or allocation: undo the records and inline it at the real guard.
            self.enc.violations.truncate(marks.violations);
            self.enc.unwinding.truncate(marks.unwinding);
            self.enc.uninit_reads.truncate(marks.uninit_reads);
            self.enc.branches.truncate(marks.branches);
            self.enc.inputs.truncate(marks.inputs);
            self.enc.input_calls.truncate(marks.input_calls);
            self.enc.output.truncate(marks.output);
            self.enc.exits.truncate(marks.exits);
            self.stmts = stmts;
            self.enc.stats.inlined_calls = inlined;
            self.seq.set(seq);
            self.assumes = assumes;
            // The trial read at guard `true`: the counts of what was read go back too.
            (self.input_ends, self.char_pos) = positions;
            self.st = saved;
            self.no_memo.insert(fid);
            return self.inline_call(fid, vals, span);
        }
        let narrows =
            after.violations != marks.violations || after.unwinding != marks.unwinding || self.assumes != assumes;
        let memo = CallMemo {
            value,
            exit: (narrows && !self.st.dead).then(|| self.st.guard.clone()),
            dead: self.st.dead,
            globals: self.st.vars.iter().filter(|(k, _)| k.0 == 0).map(|(k, s)| (*k, s.clone())).collect(),
            mem: self.st.mem.clone(),
            cells: self.st.cells.clone(),
            line: self.st.line,
            violations: self.enc.violations.split_off(marks.violations),
            unwinding: self.enc.unwinding.split_off(marks.unwinding),
            uninit_reads: self.enc.uninit_reads.split_off(marks.uninit_reads),
            branches: self.enc.branches.split_off(marks.branches),
        };
        self.st = saved;
        let memo = Rc::new(memo);
        if let Some(m) = self.memo.as_mut() {
            m.insert(key, memo.clone());
        }
        Ok(self.apply_memo(&memo))
    }

    /// The state after a memoised call from the current state, its records at this site.
    pub(super) fn apply_memo(&mut self, m: &CallMemo<'ctx>) -> SymVal<'ctx> {
        let g = self.st.guard.clone();
        for v in &m.violations {
            let cond = self.and(&g, &v.cond);
            self.enc.violations.push(Violation { cond, ..v.clone() });
        }
        for u in &m.unwinding {
            let cond = self.and(&g, &u.cond);
            self.enc.unwinding.push(UnwindPoint { cond, ..u.clone() });
        }
        for r in &m.uninit_reads {
            let cond = self.and(&g, &r.cond);
            self.enc.uninit_reads.push(UninitRead { cond, ..r.clone() });
        }
        for b in &m.branches {
            let guard = self.and(&g, &b.guard);
            self.enc.branches.push(Branch { guard, ..b.clone() });
        }
        self.st.vars.retain(|k, _| k.0 != 0);
        self.st.vars.extend(m.globals.iter().cloned());
        self.st.mem = m.mem.clone();
        self.st.cells = m.cells.clone();
        self.st.line = m.line;
        if m.dead {
            self.kill();
        } else if let Some(exit) = &m.exit {
            self.st.guard = self.and(&g, exit);
        }
        m.value.clone()
    }

    pub(super) fn inline_call(&mut self, fid: FuncId, vals: Vec<SymVal<'ctx>>, span: Span) -> R<SymVal<'ctx>> {
        let f = self.p.func(fid);
        if let Some((what, sp)) = f.unsupported.first() {
            return Err(Unsupported { func: Some(f.name.clone()), what: what.clone(), span: *sp });
        }
        let Some(body) = &f.body else {
            return self.unsupported(format!("a call to `{}`, which has no body", f.name), span);
        };
        if matches!(f.ret, Type::Struct(_)) {
            // Its value would be the address of a local that dies at the return.
            return self.unsupported(format!("`{}` returns a struct by value", f.name), span);
        }
        let depth = self.calls.iter().filter(|c| c.func == fid).count() as u32;
        if depth >= self.bound.max(1) {
            // Deeper recursion is cut like a loop beyond the bound.
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span, cond, cuts: Cuts::default() });
            self.kill();
            return self.fresh("cut", &f.ret.clone(), span);
        }
        self.enc.stats.inlined_calls += 1;
        let frame = self.next_frame;
        self.next_frame += 1;
        self.calls.push(CallCtx { func: fid, frame, returns: Vec::new() });
        for (pv, v) in f.params.iter().zip(vals) {
            let key = (frame, *pv);
            if self.object_backed(*pv) {
                let o = self.var_obj(key, span)?;
                let pl = Place::Mem { ptr: self.obj_ptr(o), ty: self.p.var(*pv).ty.clone() };
                self.store(pl, v, span)?;
            } else {
                self.st.vars.insert(key, Slot { val: v, init: self.tt() });
            }
        }
        let saved_jumps = std::mem::take(&mut self.jumps);
        let r = self.stmt(body);
        self.jumps = saved_jumps;
        let cx = self.calls.pop().expect("call context");
        r?;
        let mut states = cx.returns;
        let fell = std::mem::replace(&mut self.st.dead, true);
        if !fell {
            let mut s = self.st.clone();
            s.dead = false;
            states.push((s, None));
        }
        let ret_ty = f.ret.clone();
        let live: Vec<(State<'ctx>, Option<SymVal<'ctx>>)> = states.into_iter().filter(|(s, _)| !s.dead).collect();
        let mut value = SymVal::Void;
        if ret_ty != Type::Void && !live.is_empty() {
            let mut vals = Vec::new();
            for (s, v) in &live {
                let v = match v {
                    Some(v) => v.clone(),
                    None => self.fresh("noreturn", &ret_ty, span)?,
                };
                vals.push((s.guard.clone(), v));
            }
            let mut acc = vals[vals.len() - 1].1.clone();
            for (g, v) in vals[..vals.len() - 1].iter().rev() {
                acc = self.ite(g, v, &acc);
            }
            value = if vals.len() > 1 { self.define(&format!("{}.ret", f.name), acc) } else { acc };
        }
        // The callee's locals are dead: drop them before the merge so states stay small.
        let frame_objs: Vec<u32> =
            self.var_objs.iter().filter(|(k, _)| k.0 == frame).flat_map(|(_, o)| self.lane_ids(*o)).collect();
        let sts: Vec<State<'ctx>> = live
            .into_iter()
            .map(|(mut s, _)| {
                s.vars.retain(|k, _| k.0 != frame);
                for o in &frame_objs {
                    s.mem.remove(o);
                }
                s.cells.retain(|(lane, _), _| !frame_objs.contains(lane));
                s
            })
            .collect();
        self.st = self.merge(sts, None);
        Ok(value)
    }

    pub(super) fn builtin(&mut self, b: Builtin, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let arg = |i: usize| args.get(i);
        match b {
            Builtin::Assert => {
                let Some(a) = arg(0) else { return self.unsupported("assert without an argument", e.span) };
                let c = self.eval_cond_plain(a)?;
                self.check(c, ViolationKind::Assertion, e.span);
                Ok(SymVal::Void)
            }
            Builtin::Assume => {
                let Some(a) = arg(0) else { return self.unsupported("assume without an argument", e.span) };
                let c = self.eval_cond_plain(a)?;
                let rejected = self.and(&self.st.guard, &c.not());
                self.enc.rejects.push(rejected);
                self.st.guard = self.and(&self.st.guard, &c);
                self.assumes += 1;
                Ok(SymVal::Void)
            }
            Builtin::ReachError => {
                let f = Bool::from_bool(self.ctx, false);
                self.check(f, ViolationKind::ReachError, e.span);
                self.kill();
                Ok(SymVal::Void)
            }
            Builtin::Nondet => {
                if self.char_pos.is_some() {
                    return self.unsupported("a nondet value in a program that reads characters", e.span);
                }
                self.st.line = LineState::Mid;
                let name = crate::ir::print::expr_to_c(self.p, e);
                let v = self.input_value(&name, &e.ty, 'd', e.span)?;
                self.enc.inputs.push(InputRead {
                    seq: self.next_seq(),
                    name,
                    ty: e.ty.clone(),
                    value: v.clone(),
                    guard: self.st.guard.clone(),
                    span: e.span,
                    source: InputSource::Nondet,
                    conv: 'd',
                    string: None,
                });
                Ok(v)
            }
            Builtin::Scanf => self.scanf(e, args),
            Builtin::Getchar => self.getchar(e),
            Builtin::Printf => self.printf(e, args),
            Builtin::Putchar => {
                let Some(a) = arg(0) else { return self.unsupported("putchar without an argument", e.span) };
                let v = self.eval_loc(a)?;
                let SymVal::Int(b) = v.clone() else { return self.unsupported("putchar of a non-integer", e.span) };
                let ty = a.ty.as_int().unwrap_or(IntType::INT);
                self.enc.output.push(OutputEntry {
                    seq: self.next_seq(),
                    span: e.span,
                    guard: self.st.guard.clone(),
                    format: b"%c".to_vec(),
                    values: vec![OutValue::Int { value: b, ty }],
                });
                Ok(v)
            }
            Builtin::Puts => {
                let Some(a) = arg(0) else { return self.unsupported("puts without an argument", e.span) };
                let v = self.string_value(a)?;
                self.enc.output.push(OutputEntry {
                    seq: self.next_seq(),
                    span: e.span,
                    guard: self.st.guard.clone(),
                    format: b"%s\n".to_vec(),
                    values: vec![v],
                });
                Ok(SymVal::Int(c_int::constant(self.ctx, IntType::INT, 1)))
            }
            Builtin::Exit => {
                let code = match arg(0) {
                    Some(a) => self.eval(a)?,
                    None => SymVal::Int(c_int::constant(self.ctx, IntType::INT, 0)),
                };
                if let SymVal::Int(c) = code {
                    self.enc.exits.push((self.st.guard.clone(), c));
                }
                self.kill();
                Ok(SymVal::Void)
            }
            Builtin::Fgets | Builtin::Gets => self.read_line(b, e, args),
            Builtin::Strlen => {
                let Some(a) = arg(0) else { return self.unsupported("strlen without an argument", e.span) };
                self.strlen(e, a)
            }
            Builtin::Strspn | Builtin::Strcspn => {
                let name = b.c_name();
                let (Some(a), Some(set)) = (arg(0), arg(1).and_then(|s| c_lib::span_set(b, s))) else {
                    return self.unsupported(format!("`{name}` of characters that are not a string literal"), e.span);
                };
                let SymVal::Ptr(p) = self.eval(a)? else {
                    return self.unsupported(format!("`{name}` of a non-pointer"), a.span);
                };
                let chars = self.cstring(&p, e.span, deref_span(a))?;
                let Type::Int(t) = e.ty else { return self.unsupported(format!("`{name}` of this type"), e.span) };
                let chars: Vec<BV<'ctx>> = chars.into_iter().map(|(c, _)| c).collect();
                Ok(SymVal::Int(c_lib::span_length(self.ctx, b, &chars, set, c_int::width(t))))
            }
            Builtin::Strcmp => {
                let (Some(a), Some(b)) = (arg(0), arg(1)) else {
                    return self.unsupported("strcmp without two arguments", e.span);
                };
                self.strcmp(e, a, b)
            }
            Builtin::Math(f, k) => {
                let name = f.c_name(k);
                if args.len() != f.arity() {
                    return self.unsupported(format!("`{name}` with other arguments"), e.span);
                }
                let mut xs = Vec::new();
                for a in args {
                    let v = self.eval(a)?;
                    let SymVal::Float(x) = self.cast(v, &a.ty, &Type::Float(k), a.span)? else {
                        return self.unsupported(format!("`{name}` of this type"), e.span);
                    };
                    xs.push(x);
                }
                // Rounding an integer-valued double is the identity.
                let rounds = matches!(f, MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc);
                let r = if rounds && self.exact_ints.contains_key(&xs[0]) {
                    xs[0].clone()
                } else {
                    c_lib::math_function(&mut self.floats, f, k, &xs, c_lib::constant_argument(&args[0]))
                };
                self.cast(SymVal::Float(r), &Type::Float(k), &e.ty, e.span)
            }
            b if c_lib::is_integer_function(b) => {
                let name = b.c_name();
                let Some(a) = arg(0) else { return self.unsupported(format!("`{name}` without an argument"), e.span) };
                let (SymVal::Int(x), Type::Int(t)) = (self.eval(a)?, &a.ty) else {
                    return self.unsupported(format!("`{name}` of a non-integer"), e.span);
                };
                let (r, rt) = c_lib::int_function(self.ctx, b, &x, *t).expect("an integer function");
                self.cast(SymVal::Int(r), &Type::Int(rt), &e.ty, e.span)
            }
            Builtin::Strcpy | Builtin::Strcat => {
                let (Some(a), Some(c)) = (arg(0), arg(1)) else {
                    return self.unsupported("strcpy or strcat without two arguments", e.span);
                };
                self.strcpy(b == Builtin::Strcat, e, a, c)
            }
            Builtin::Free => {
                let Some(a) = arg(0) else { return self.unsupported("free without an argument", e.span) };
                let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("free of a non-pointer", a.span) };
                self.free(&p, e.span);
                Ok(SymVal::Void)
            }
            Builtin::Malloc | Builtin::Calloc => {
                self.unsupported(format!("memory from `{}` that is not given a pointer type", b.c_name()), e.span)
            }
            other => self.unsupported(format!("the library function `{}`", other.c_name()), e.span),
        }
    }

    /// `malloc(n)` or `calloc(n, size)` when `e` is the call (under its implicit conversion).
    pub(super) fn allocation(e: &Expr) -> Option<(Builtin, &[Expr])> {
        match &e.strip_implicit().kind {
            ExprKind::Call(Callee::Builtin(b @ (Builtin::Malloc | Builtin::Calloc)), args) => Some((*b, args)),
            _ => None,
        }
    }

    /// `(T *) malloc(bytes)` (`cast` is the conversion): a new block of `bytes / sizeof(T)`
    /// elements of `T`, or null where the interpreter's `malloc` fails (more than 2^31 bytes).
    /// `calloc`'s block is zero.
    pub(super) fn allocate(&mut self, b: Builtin, args: &[Expr], cast: &Expr) -> R<SymVal<'ctx>> {
        let Some(to) = cast.ty.pointee() else { return self.unsupported("memory from malloc", cast.span) };
        let elem = leaf(to).clone();
        let size = self.p.size_of(&elem);
        let (Some(per), true) = (leaf_count(self.p, &elem), size > 0) else {
            return self
                .unsupported(format!("memory from malloc given the type `{}`", self.p.type_name(to)), cast.span);
        };
        let want = if b == Builtin::Calloc { 2 } else { 1 };
        if args.len() != want {
            return self.unsupported("malloc or calloc with other arguments", cast.span);
        }
        // Arguments right to left, as gcc (and the interpreter) evaluate them.
        let mut vals = Vec::new();
        for a in args.iter().rev() {
            let (SymVal::Int(v), Some(t)) = (self.eval(a)?, a.ty.as_int()) else {
                return self.unsupported("a size that is not an integer", a.span);
            };
            vals.push(c_int::resize(&c_int::resize(&v, t.signed, 64), false, 128));
        }
        vals.reverse();
        let bytes = if b == Builtin::Calloc { vals[0].bvmul(&vals[1]) } else { vals[0].clone() };
        let ctx = self.ctx;
        let fails = bytes.bvugt(&BV::from_u64(ctx, 1 << 31, 128));
        let elems = bytes.bvudiv(&BV::from_u64(ctx, size, 128)).extract(OFF_BITS - 1, 0);
        let cells = elems.bvmul(&BV::from_u64(ctx, per, OFF_BITS));
        let o = self.new_heap_object(&elem, cells, b == Builtin::Calloc, cast.span)?;
        let mut p = self.obj_ptr(o);
        if fails.simplify().as_bool() != Some(false) {
            p.obj = fails.ite(&BV::from_u64(ctx, 0, OBJ_BITS), &p.obj);
        }
        Ok(SymVal::Ptr(p))
    }

    /// `free(p)`: `p` is null or the start of a live block from malloc (else the interpreter's
    /// invalid free); the block is dead from here on.
    pub(super) fn free(&mut self, p: &SymPtr<'ctx>, span: Span) {
        let ctx = self.ctx;
        if p.targets.is_empty() {
            return;
        }
        let zero_off = p.off._eq(&BV::from_u64(ctx, 0, OFF_BITS));
        let mut ok = vec![p.obj._eq(&BV::from_u64(ctx, 0, OBJ_BITS))];
        let mut heap = Vec::new();
        for &o in &p.targets {
            let Some((lane, live)) = self.liveness(o) else { continue };
            let is = p.obj._eq(&BV::from_u64(ctx, o as u64, OBJ_BITS));
            ok.push(Bool::and(ctx, &[&is, &zero_off, &live]));
            heap.push((lane, is));
        }
        let refs: Vec<&Bool<'ctx>> = ok.iter().collect();
        self.check(Bool::or(ctx, &refs), ViolationKind::InvalidFree, span);
        let dead = SymVal::Int(BV::from_u64(ctx, 0, 8));
        let at = BV::from_u64(ctx, 0, OFF_BITS);
        let many = p.targets.len() > 1;
        for (lane, is) in heap {
            // Cannot fail: the lane exists (liveness found it).
            let _ = self.write_lane(lane, &at, &dead, many.then_some(&is), span);
        }
    }

    pub(super) fn eval_cond_plain(&mut self, e: &Expr) -> R<Bool<'ctx>> {
        let v = self.eval(e)?;
        Ok(self.truthy(&v))
    }

    /// A fresh input of type `ty` with the constraints every real input satisfies.
    pub(super) fn input_value(&mut self, name: &str, ty: &Type, conv: char, span: Span) -> R<SymVal<'ctx>> {
        let v = self.fresh(&format!("in:{name}"), ty, span)?;
        match (&v, ty) {
            (SymVal::Int(b), Type::Int(t)) => {
                if t.kind == IntKind::Bool {
                    self.enc.hard.push(c_int::in_range(b, *t));
                }
                if conv == 'c' {
                    let lo = BV::from_u64(self.ctx, 33, b.get_size());
                    let hi = BV::from_u64(self.ctx, 126, b.get_size());
                    self.enc.hard.push(Bool::and(self.ctx, &[&b.bvuge(&lo), &b.bvule(&hi)]));
                }
            }
            (SymVal::Float(f), _) => {
                let c = self.floats.is_finite(f);
                self.enc.hard.push(c);
                if self.no_negative_zero {
                    let zero = self.floats.is_negative_zero(f);
                    self.enc.hard.push(zero.not());
                }
            }
            (SymVal::Ptr(_), _) | (SymVal::Void, _) => return self.unsupported("reading a value of this type", span),
            _ => {}
        }
        Ok(v)
    }

    pub(super) fn literal_format<'e>(&self, e: &'e Expr, call: &Expr) -> R<&'e [u8]> {
        match &e.strip_implicit().kind {
            ExprKind::Str(b) => Ok(b),
            _ => self.unsupported("a format that is not a string literal", call.span),
        }
    }

    pub(super) fn scanf(&mut self, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let Some(f) = args.first() else { return self.unsupported("scanf without a format", e.span) };
        let fmt = self.literal_format(f, e)?.to_vec();
        let pieces = match cfmt::parse(&fmt, true) {
            Ok(p) => p,
            Err(err) => return self.unsupported(format!("a malformed scanf format ({})", err.message), e.span),
        };
        if self.char_pos.is_some() {
            return self.scan_chars(e, args, &pieces);
        }
        let mut ptrs = vec![SymVal::Void; args.len()];
        for i in (1..args.len()).rev() {
            ptrs[i] = self.eval(&args[i])?;
        }
        self.st.line = LineState::Mid;
        let call = self.enc.input_calls.len();
        self.enc.input_calls.push(InputCall {
            span: e.span,
            guard: self.st.guard.clone(),
            format: fmt.clone(),
            reads: vec![],
        });
        let mut next = 1usize;
        let mut assigned = 0i64;
        // With the end of the input modelled: the states where a directive found no token
        // left (nothing more is read or stored), with what `scanf` returns there.
        let mut ended: Vec<(State<'ctx>, i64)> = Vec::new();
        for piece in pieces.iter().filter(|p| matches!(p, Piece::Directive(_))) {
            let Piece::Directive(d) = piece else { continue };
            match d.conv {
                '[' | 'n' | 'p' => {
                    return self.unsupported(
                        format!("scanf `%{}`", if d.conv == '[' { "[...]".to_string() } else { d.conv.to_string() }),
                        e.span,
                    );
                }
                'c' if d.start == 0 || !fmt[d.start - 1].is_ascii_whitespace() => {
                    return self.unsupported(
                        "scanf `%c` without a space before it (it would read the newline left in the input)",
                        e.span,
                    );
                }
                'c' if d.width != Count::None => return self.unsupported("scanf `%c` with a width", e.span),
                _ => {}
            }
            if let Some((tokens, read)) = &self.input_ends {
                let left = read.bvult(tokens);
                if left.simplify().as_bool() != Some(true) {
                    let mut out = self.st.clone();
                    out.guard = self.and(&self.st.guard, &left.not());
                    // EOF when the input ends before anything is assigned (a suppressed
                    // directive assigns nothing), as glibc and the interpreter return.
                    ended.push((out, if assigned == 0 { -1 } else { assigned }));
                    self.st.guard = self.and(&self.st.guard, &left);
                }
            }
            if d.suppress {
                let ty = if d.is_float() {
                    Type::DOUBLE
                } else if d.conv == 'c' {
                    Type::CHAR
                } else {
                    Type::Int(IntType::LONG)
                };
                let v = self.input_value("skipped", &ty, d.conv, e.span)?;
                let idx = self.enc.inputs.len();
                self.enc.inputs.push(InputRead {
                    seq: self.next_seq(),
                    name: "(skipped)".into(),
                    ty,
                    value: v,
                    guard: self.st.guard.clone(),
                    span: e.span,
                    source: InputSource::Scanf { call },
                    conv: d.conv,
                    string: None,
                });
                self.enc.input_calls[call].reads.push(idx);
                self.token_read();
                continue;
            }
            let Some(a) = args.get(next) else { return self.unsupported("scanf with too few arguments", e.span) };
            let SymVal::Ptr(ptr) = ptrs[next].clone() else {
                return self.unsupported("a scanf argument that is not a pointer", a.span);
            };
            next += 1;
            if d.conv == 's' {
                self.scan_word(a, ptr, d.width, call)?;
                self.token_read();
                assigned += 1;
                continue;
            }
            let Some(ty) = a.ty.pointee().cloned() else {
                return self.unsupported("a scanf argument that is not a pointer", a.span);
            };
            let name = match &a.strip_implicit().kind {
                ExprKind::AddrOf(x) => crate::ir::print::expr_to_c(self.p, x),
                _ => format!("*{}", crate::ir::print::expr_to_c(self.p, a)),
            };
            let v = self.input_value(&name, &ty, d.conv, a.span)?;
            let idx = self.enc.inputs.len();
            self.enc.inputs.push(InputRead {
                seq: self.next_seq(),
                name,
                ty: ty.clone(),
                value: v.clone(),
                guard: self.st.guard.clone(),
                span: a.span,
                source: InputSource::Scanf { call },
                conv: d.conv,
                string: None,
            });
            self.enc.input_calls[call].reads.push(idx);
            self.token_read();
            self.store(Place::Mem { ptr, ty }, v, a.span)?;
            assigned += 1;
        }
        Ok(self.scanf_result(ended, assigned))
    }

    /// What `scanf` returns, with the call recorded in [`crate::smt::encode::Encoding::scanf_reads`]: a read
    /// wherever it does not return EOF.
    fn scanf_result(&mut self, ended: Vec<(State<'ctx>, i64)>, assigned: i64) -> SymVal<'ctx> {
        let at_end: Vec<&Bool<'ctx>> = ended.iter().filter(|(_, r)| *r == -1).map(|(s, _)| &s.guard).collect();
        let not_at_end = Bool::or(self.ctx, &at_end).not();
        let seq = self.next_seq();
        let value = self.joined_result(ended, assigned);
        let counted = self.and(&self.st.guard, &not_at_end);
        self.enc.scanf_reads.push((seq, counted));
        value
    }

    /// `assigned` where every directive read, else what each state in `ended` (the input ran
    /// out there) returns; the states join again.
    fn joined_result(&mut self, ended: Vec<(State<'ctx>, i64)>, assigned: i64) -> SymVal<'ctx> {
        if ended.is_empty() {
            return SymVal::Int(c_int::constant(self.ctx, IntType::INT, assigned));
        }
        let mut value = c_int::constant(self.ctx, IntType::INT, assigned);
        for (s, r) in ended.iter().rev() {
            value = s.guard.ite(&c_int::constant(self.ctx, IntType::INT, *r), &value);
        }
        let mut states: Vec<State<'ctx>> = ended.into_iter().map(|(s, _)| s).collect();
        states.push(std::mem::replace(&mut self.st, states[0].clone()));
        self.st = self.merge(states, None);
        self.define("scanf.ret", SymVal::Int(value))
    }

    /// The character model: reads the next byte where the state's guard holds. Returns
    /// whether there was one (else the input has ended and nothing moves) and the byte.
    fn read_byte(&mut self) -> (Bool<'ctx>, BV<'ctx>) {
        let (ok, byte) = self.peek_byte();
        self.advance_if(&ok);
        (ok, byte)
    }

    /// The byte at the read position, and whether the input has one there; nothing moves.
    /// Read site number `k` adds byte `k` of the input: its position is at most `k`.
    fn peek_byte(&mut self) -> (Bool<'ctx>, BV<'ctx>) {
        let ctx = self.ctx;
        let pos = self.char_pos.clone().expect("the character model is on");
        let chars = self.enc.chars.as_mut().expect("the character model is on");
        let k = chars.bytes.len();
        let b = BV::new_const(ctx, format!("input!chr!{k}"), 8);
        let text = text_byte(ctx, &b, self.absent_chars);
        chars.bytes.push(b);
        let len = chars.len.clone();
        let byte = match pos.simplify().as_u64() {
            Some(at) => chars.bytes[at as usize].clone(),
            None => (0..k).rev().fold(chars.bytes[k].clone(), |v, j| {
                pos._eq(&BV::from_u64(ctx, j as u64, TOKEN_BITS)).ite(&chars.bytes[j], &v)
            }),
        };
        self.enc.hard.push(text);
        (pos.bvult(&len), byte)
    }

    /// Moves the read position on by one byte where `cond` and the state's guard hold.
    fn advance_if(&mut self, cond: &Bool<'ctx>) {
        let pos = self.char_pos.clone().expect("the character model is on");
        let moved = self.and(&self.st.guard, cond);
        let one = BV::from_u64(self.ctx, 1, TOKEN_BITS);
        self.char_pos = Some(match moved.simplify().as_bool() {
            Some(true) => pos.bvadd(&one).simplify(),
            Some(false) => pos,
            None => moved.ite(&pos.bvadd(&one), &pos),
        });
    }

    /// Records a read of the character model that happened under the current guard.
    fn char_read(&mut self, name: String, value: SymVal<'ctx>, span: Span) {
        self.st.line = LineState::Mid;
        self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
            name,
            ty: Type::INT,
            value,
            guard: self.st.guard.clone(),
            span,
            source: InputSource::Chars,
            conv: 'c',
            string: None,
        });
    }

    /// `getchar()`: the next byte, or -1 (`EOF`) once the input has ended.
    pub(super) fn getchar(&mut self, e: &Expr) -> R<SymVal<'ctx>> {
        if self.char_pos.is_none() {
            return self.unsupported("`getchar` in a program that reads values", e.span);
        }
        let (ok, byte) = self.read_byte();
        let int = c_int::width(IntType::INT);
        let v = ok.ite(&byte.zero_ext(int - 8), &c_int::constant(self.ctx, IntType::INT, -1));
        let v = self.define("getchar", SymVal::Int(v));
        let at_guard = self.st.guard.clone();
        self.st.guard = self.and(&at_guard, &ok);
        self.char_read("getchar()".into(), v.clone(), e.span);
        self.st.guard = at_guard;
        Ok(v)
    }

    /// `scanf` in the character model, as the interpreter (glibc) reads: a space in the
    /// format skips spaces; other literal text must match the next byte; `%c` takes one byte,
    /// `%s` a word after spaces (up to the width, the array or the string cap), `%d`/`%u`
    /// (any length) an optional sign and up to [`MAX_DIGITS`] digits after spaces. At the end
    /// of the input `scanf` stops and returns what it assigned, or `EOF` when that is nothing;
    /// at a byte that does not match, what it assigned. Spaces beyond [`MAX_SPACES`] in a row,
    /// a longer number or a word longer than the cap are cut like loops beyond the bound.
    fn scan_chars(&mut self, e: &Expr, args: &[Expr], pieces: &[Piece]) -> R<SymVal<'ctx>> {
        let mut ptrs = vec![SymVal::Void; args.len()];
        for i in (1..args.len()).rev() {
            ptrs[i] = self.eval(&args[i])?;
        }
        let mut ended: Vec<(State<'ctx>, i64)> = Vec::new();
        let mut assigned = 0i64;
        let mut next = 1usize;
        for piece in pieces {
            let d = match piece {
                Piece::Literal(bytes) => {
                    for &b in bytes {
                        if b.is_ascii_whitespace() {
                            self.skip_spaces(e.span);
                            continue;
                        }
                        let (ok, byte) = self.peek_byte();
                        self.stop_where(&ok.not(), if assigned == 0 { -1 } else { assigned }, &mut ended);
                        let same = byte._eq(&BV::from_u64(self.ctx, b as u64, 8));
                        self.stop_where(&same.not(), assigned, &mut ended);
                        self.advance_if(&self.tt());
                    }
                    continue;
                }
                Piece::Directive(d) => d,
            };
            if !matches!(d.conv, 'c' | '[') {
                self.skip_spaces(e.span);
            }
            // A conversion first needs a byte: at the end of the input it fails.
            let (ok, first) = self.peek_byte();
            self.stop_where(&ok.not(), if assigned == 0 { -1 } else { assigned }, &mut ended);
            let accept = Accept::of(d);
            if d.conv == '[' {
                // A first byte outside the set is a matching failure.
                let outside = self.accepts(&accept, &first).not();
                self.stop_where(&outside, assigned, &mut ended);
            }
            let target = if d.suppress {
                None
            } else {
                let Some(a) = args.get(next) else { return self.unsupported("scanf with too few arguments", e.span) };
                let SymVal::Ptr(ptr) = ptrs[next].clone() else {
                    return self.unsupported("a scanf argument that is not a pointer", a.span);
                };
                next += 1;
                Some((a, ptr))
            };
            match d.conv {
                'c' => {
                    if !matches!(d.width, Count::None | Count::Fixed(1)) {
                        return self.unsupported("scanf `%c` with a width", e.span);
                    }
                    let (_, byte) = self.read_byte();
                    if let Some((a, ptr)) = target {
                        let ty = match a.ty.pointee() {
                            Some(t @ Type::Int(i)) if c_int::width(*i) == 8 => t.clone(),
                            _ => return self.unsupported("scanf `%c` into a variable that is not a `char`", a.span),
                        };
                        self.char_read(scanned_name(self.p, a), SymVal::Int(byte.clone()), a.span);
                        self.store(Place::Mem { ptr, ty }, SymVal::Int(byte), a.span)?;
                    }
                }
                's' | '[' => self.scan_word_chars(e, d, &accept, target)?,
                'd' | 'u' => {
                    let (digits, value) = self.scan_number_chars(e.span);
                    // No digit: a matching failure, scanf stops with what it assigned.
                    self.stop_where(&digits.not(), assigned, &mut ended);
                    if let Some((a, ptr)) = target {
                        let ty = match a.ty.pointee() {
                            Some(t @ Type::Int(i)) if c_int::width(*i) == length_bits(&d.length) => t.clone(),
                            _ => return self.unsupported("a scanf number into a variable of another size", a.span),
                        };
                        let bits = c_int::width(ty.as_int().expect("an integer"));
                        let v = SymVal::Int(value.extract(bits - 1, 0));
                        let v = self.define("scanf.chars", v);
                        self.char_read(scanned_name(self.p, a), v.clone(), a.span);
                        self.store(Place::Mem { ptr, ty }, v, a.span)?;
                    }
                }
                c => {
                    return self.unsupported(format!("scanf `%{c}` in a program that reads characters"), e.span);
                }
            }
            if !d.suppress {
                assigned += 1;
            }
        }
        Ok(self.scanf_result(ended, assigned))
    }

    /// Where `cond` holds under the state's guard, `scanf` stops here and returns `ret`.
    fn stop_where(&mut self, cond: &Bool<'ctx>, ret: i64, ended: &mut Vec<(State<'ctx>, i64)>) {
        let here = self.and(&self.st.guard, cond);
        if here.simplify().as_bool() == Some(false) {
            return;
        }
        let mut out = self.st.clone();
        out.guard = here;
        ended.push((out, ret));
        self.st.guard = self.and(&self.st.guard, &cond.not());
    }

    /// Spaces (`' '`, `'\n'`: the text's whitespace) skipped, up to [`MAX_SPACES`] in a row.
    fn skip_spaces(&mut self, span: Span) {
        for _ in 0..MAX_SPACES {
            let (ok, byte) = self.peek_byte();
            let space = Bool::and(self.ctx, &[&ok, &self.is_space(&byte)]);
            self.advance_if(&space);
        }
        let (ok, byte) = self.peek_byte();
        let more = Bool::and(self.ctx, &[&ok, &self.is_space(&byte)]);
        self.cut_where(&more, Cuts { spaces: Some(MAX_SPACES as u32), ..Cuts::default() }, span);
    }

    /// Runs where `cond` holds go beyond what the model reads at once: cut like a loop beyond
    /// the bound (an unwinding point, and the path ends there).
    fn cut_where(&mut self, cond: &Bool<'ctx>, cuts: Cuts, span: Span) {
        let here = self.and(&self.st.guard, cond);
        if here.simplify().as_bool() == Some(false) {
            return;
        }
        self.enc.unwinding.push(UnwindPoint { span, cond: here, cuts });
        self.st.guard = self.and(&self.st.guard, &cond.not());
    }

    fn accepts(&self, accept: &Accept, byte: &BV<'ctx>) -> Bool<'ctx> {
        accept.takes(self.ctx, byte)
    }

    fn is_space(&self, byte: &BV<'ctx>) -> Bool<'ctx> {
        c_space(self.ctx, byte)
    }

    /// An optional sign and up to [`MAX_DIGITS`] decimal digits: whether there was a digit,
    /// and the value (64 bits; the interpreter's `strtol` cannot overflow on so few digits).
    fn scan_number_chars(&mut self, span: Span) -> (Bool<'ctx>, BV<'ctx>) {
        let ctx = self.ctx;
        let byte_is = |b: &BV<'ctx>, c: u8| b._eq(&BV::from_u64(ctx, c as u64, 8));
        let is_digit = |b: &BV<'ctx>| {
            Bool::and(
                ctx,
                &[&b.bvuge(&BV::from_u64(ctx, b'0' as u64, 8)), &b.bvule(&BV::from_u64(ctx, b'9' as u64, 8))],
            )
        };
        let (ok, first) = self.peek_byte();
        let plus = Bool::and(ctx, &[&ok, &byte_is(&first, b'+')]);
        let minus = Bool::and(ctx, &[&ok, &byte_is(&first, b'-')]);
        self.advance_if(&Bool::or(ctx, &[&plus, &minus]));
        let mut value = BV::from_u64(ctx, 0, 64);
        let mut reading = self.tt();
        let mut any = Bool::from_bool(ctx, false);
        for _ in 0..MAX_DIGITS {
            let (ok, b) = self.peek_byte();
            let digit = Bool::and(ctx, &[&reading, &ok, &is_digit(&b)]).simplify();
            let d = b.bvsub(&BV::from_u64(ctx, b'0' as u64, 8)).zero_ext(56);
            value = digit.ite(&value.bvmul(&BV::from_u64(ctx, 10, 64)).bvadd(&d), &value);
            self.advance_if(&digit);
            any = Bool::or(ctx, &[&any, &digit]).simplify();
            reading = digit;
        }
        let (ok, b) = self.peek_byte();
        let more = Bool::and(ctx, &[&reading, &ok, &is_digit(&b)]);
        self.cut_where(&more, Cuts { digits: Some(MAX_DIGITS as u32), ..Cuts::default() }, span);
        (any, minus.ite(&value.bvneg(), &value))
    }

    /// `%s` in the character model: the word's bytes stored with their NUL (the word is
    /// already known to start: a byte that is not a space is next).
    fn scan_word_chars(
        &mut self,
        e: &Expr,
        d: &crate::ir::format::Directive,
        accept: &Accept,
        target: Option<(&Expr, SymPtr<'ctx>)>,
    ) -> R<()> {
        let ctx = self.ctx;
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let (dest, avail) = match &target {
            Some((a, ptr)) => {
                let o = self.single_char_object(ptr, a.span)?;
                let Some(off0) = ptr.off.simplify().as_u64() else {
                    return self.unsupported("`%s` into a position the verifier cannot compute", a.span);
                };
                (Some((o, off0)), self.objects[o as usize].len.saturating_sub(off0))
            }
            None => (None, u64::MAX),
        };
        let width = match d.width {
            Count::Fixed(n) => n as u64,
            _ => u64::MAX,
        };
        // A word that fills the array leaves no room for its NUL: the bounds check says so.
        let max = width.min(avail).min(self.str_cap()).max(1);
        let mut got: Vec<Bool<'ctx>> = Vec::new();
        let mut bytes = Vec::new();
        let mut reading = self.tt();
        for _ in 0..max {
            let (ok, b) = self.peek_byte();
            let g = Bool::and(ctx, &[&reading, &ok, &self.accepts(accept, &b)]).simplify();
            self.advance_if(&g);
            got.push(g.clone());
            bytes.push(b);
            reading = g;
        }
        if max < width.min(avail) {
            let (ok, b) = self.peek_byte();
            let cond = Bool::and(ctx, &[&reading, &ok, &self.accepts(accept, &b)]);
            self.cut_where(&cond, chars_cut(max), e.span);
        }
        let Some((a, _)) = target else { return Ok(()) };
        let (o, off0) = dest.expect("a target");
        let count = got.iter().fold(w(0), |c, g| g.ite(&c.bvadd(&w(1)), &c));
        self.check(w(off0).bvadd(&count).bvult(&self.len_bv(o)), ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        for i in 0..(max + 1).min(self.objects[o as usize].len.saturating_sub(off0)) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let nul_here = count._eq(&w(i));
            let v = match got.get(i as usize) {
                Some(g) => g.ite(&bytes[i as usize], &nul_here.ite(&zero, &old)),
                None => nul_here.ite(&zero, &old),
            };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        self.char_read(scanned_name(self.p, a), SymVal::Void, a.span);
        Ok(())
    }

    /// With the end of the input modelled, the read just recorded took a token.
    fn token_read(&mut self) {
        let g = self.st.guard.clone();
        if let Some((_, read)) = &mut self.input_ends {
            let one = BV::from_u64(self.ctx, 1, TOKEN_BITS);
            *read = match g.as_bool() {
                Some(true) => read.bvadd(&one).simplify(),
                Some(false) => read.clone(),
                None => g.ite(&read.bvadd(&one), read),
            };
        }
    }

    /// `scanf("%s", a)`: a word of symbolic length written with its NUL.
    pub(super) fn scan_word(&mut self, a: &Expr, ptr: SymPtr<'ctx>, width: Count, call: usize) -> R<()> {
        let o = self.single_char_object(&ptr, a.span)?;
        let n = self.objects[o as usize].len;
        let Some(off0) = ptr.off.simplify().as_u64() else {
            return self.unsupported("`%s` into a position the verifier cannot compute", a.span);
        };
        // A block from malloc has a symbolic size: its words are limited by the width and the
        // cap, and the bounds check below says whether they fit.
        let avail = n.saturating_sub(off0);
        let room = match width {
            Count::Fixed(w) => avail.min(w as u64),
            _ => avail,
        }
        .max(1);
        // Words longer than the string cap are cut like loops beyond the bound; so are words
        // longer than a `%Ns` width, which scanf would split into two reads (positions would
        // no longer count words): the proof covers words of at most N characters.
        let max = room.min(self.str_cap());
        if room > max || matches!(width, Count::Fixed(w) if (w as u64) < avail) {
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span: a.span, cond, cuts: chars_cut(max) });
        }
        let name = match &a.strip_implicit().kind {
            ExprKind::AddrOf(x) | ExprKind::Decay(x) => crate::ir::print::expr_to_c(self.p, x),
            _ => crate::ir::print::expr_to_c(self.p, a.strip_implicit()),
        };
        let ctx = self.ctx;
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let len = BV::new_const(ctx, self.name(&format!("in:{name}.len")), OFF_BITS);
        self.enc.hard.push(Bool::and(ctx, &[&len.bvuge(&w(1)), &len.bvule(&w(max))]));
        let mut chars = Vec::new();
        for i in 0..max {
            let c = BV::new_const(ctx, self.name(&format!("in:{name}[{i}]")), 8);
            let (lo, hi) = (BV::from_u64(ctx, 33, 8), BV::from_u64(ctx, 126, 8));
            let mut word_byte = vec![c.bvuge(&lo), c.bvule(&hi)];
            word_byte.extend(admitted(ctx, &c, self.absent_chars));
            self.enc.hard.push(Bool::and(ctx, &word_byte.iter().collect::<Vec<_>>()));
            chars.push(c);
        }
        let idx = self.enc.inputs.len();
        self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
            name,
            ty: Type::Array(Box::new(Type::CHAR), Some(n)),
            value: SymVal::Void,
            guard: self.st.guard.clone(),
            span: a.span,
            source: InputSource::Scanf { call },
            conv: 's',
            string: Some(StringRead { len: len.clone(), chars: chars.clone() }),
        });
        self.enc.input_calls[call].reads.push(idx);
        // The NUL goes to off0 + len, which must be inside the array.
        let ok = w(off0).bvadd(&len).bvult(&self.len_bv(o));
        self.check(ok, ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        for i in 0..(max + 1).min(avail) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let is_nul = len._eq(&w(i));
            let v = if i < max {
                len.bvugt(&w(i)).ite(&chars[i as usize], &is_nul.ite(&zero, &old))
            } else {
                is_nul.ite(&zero, &old)
            };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        Ok(())
    }

    /// `fgets(buf, n, stdin)` / `gets(buf)`: a line of printable characters (space included)
    /// read at the start of a line. A line longer than `fgets` can take, or than the string cap,
    /// is cut (an unwinding point); `gets` of a line that fills the array overflows it.
    pub(super) fn read_line(&mut self, b: Builtin, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let what = if b == Builtin::Gets { "gets" } else { "fgets" };
        let Some(a) = args.first() else { return self.unsupported(format!("{what} without a buffer"), e.span) };
        let SymVal::Ptr(ptr) = self.eval(a)? else {
            return self.unsupported(format!("{what} into a non-pointer"), a.span);
        };
        let size = if b == Builtin::Fgets {
            let Some(n) = args.get(1) else { return self.unsupported("fgets without a size", e.span) };
            let SymVal::Int(nv) = self.eval(n)? else {
                return self.unsupported("fgets with a non-integer size", n.span);
            };
            // The stream argument is `stdin` (the type checker rejects any other): nothing to do.
            match c_int::value_of(&nv, n.ty.as_int().unwrap_or(IntType::INT)) {
                Some(v) if v >= 2 => Some(v as u64),
                _ => return self.unsupported("fgets with a size that is not a constant of at least 2", n.span),
            }
        } else {
            None
        };
        if self.char_pos.is_some() {
            return match size {
                Some(size) => self.fgets_chars(a, ptr, size),
                None => self.unsupported("`gets` in a program that reads characters", e.span),
            };
        }
        if self.st.line != LineState::Start {
            return self
                .unsupported(format!("{what} after scanf or nondet (the rest of a line is not modelled)"), e.span);
        }
        let o = self.single_char_object(&ptr, a.span)?;
        let n = self.objects[o as usize].len;
        let Some(off0) = ptr.off.simplify().as_u64() else {
            return self.unsupported(format!("{what} into a position the verifier cannot compute"), a.span);
        };
        let avail = n.saturating_sub(off0);
        // Characters before the '\n' (fgets keeps it) and the NUL.
        let room = match size {
            Some(sz) => sz - 2,
            None => avail,
        };
        let max = room.min(self.str_cap());
        if size.is_some() || room > max {
            // fgets: a longer line is always possible (it would be split); gets: beyond the cap.
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span: e.span, cond, cuts: chars_cut(max) });
        }
        let name = match &a.strip_implicit().kind {
            ExprKind::Decay(x) => crate::ir::print::expr_to_c(self.p, x),
            _ => crate::ir::print::expr_to_c(self.p, a.strip_implicit()),
        };
        let ctx = self.ctx;
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let len = BV::new_const(ctx, self.name(&format!("in:{name}.len")), OFF_BITS);
        self.enc.hard.push(len.bvule(&w(max)));
        let mut chars = Vec::new();
        for i in 0..max {
            let c = BV::new_const(ctx, self.name(&format!("in:{name}[{i}]")), 8);
            // A line's text: any byte of text but its end.
            let newline = c._eq(&BV::from_u64(ctx, b'\n' as u64, 8));
            self.enc.hard.push(Bool::and(ctx, &[&text_byte(ctx, &c, self.absent_chars), &newline.not()]));
            chars.push(c);
        }

        self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
            name,
            ty: Type::Array(Box::new(Type::CHAR), Some(n)),
            value: SymVal::Void,
            guard: self.st.guard.clone(),
            span: a.span,
            source: InputSource::Line,
            conv: 'l',
            string: Some(StringRead { len: len.clone(), chars: chars.clone() }),
        });
        // The last byte written (the NUL) is at off0 + len (+ 1 after fgets' '\n').
        let keep_nl = b == Builtin::Fgets;
        let last = if keep_nl { w(off0).bvadd(&len).bvadd(&w(1)) } else { w(off0).bvadd(&len) };
        self.check(last.bvult(&w(n)), ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        let nl = BV::from_u64(ctx, b'\n' as u64, 8);
        for i in 0..(max + 2).min(avail) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let at_len = len._eq(&w(i));
            let after = if i > 0 { len._eq(&w(i - 1)) } else { Bool::from_bool(ctx, false) };
            let tail = if keep_nl { at_len.ite(&nl, &after.ite(&zero, &old)) } else { at_len.ite(&zero, &old) };
            let v = if i < max { len.bvugt(&w(i)).ite(&chars[i as usize], &tail) } else { tail };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        self.st.line = LineState::Start;
        Ok(SymVal::Ptr(ptr))
    }

    /// `fgets(buf, size, stdin)` in the character model: up to `size - 1` bytes, up to and with
    /// the first '\n', then a NUL; at the end of the input before any byte it returns `NULL`
    /// and leaves `buf` as it was. A line longer than the string cap is cut (an unwinding
    /// point).
    fn fgets_chars(&mut self, a: &Expr, ptr: SymPtr<'ctx>, size: u64) -> R<SymVal<'ctx>> {
        let ctx = self.ctx;
        let o = self.single_char_object(&ptr, a.span)?;
        let n = self.objects[o as usize].len;
        let Some(off0) = ptr.off.simplify().as_u64() else {
            return self.unsupported("fgets into a position the verifier cannot compute", a.span);
        };
        let room = size - 1;
        let max = room.min(self.str_cap());
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let start = self.st.guard.clone();
        // got[i]: byte i was read; a read goes on after a byte that is not '\n'.
        let mut got: Vec<Bool<'ctx>> = Vec::new();
        let mut bytes = Vec::new();
        let mut reading = self.tt();
        for _ in 0..max {
            self.st.guard = self.and(&start, &reading);
            let (ok, byte) = self.read_byte();
            let g = Bool::and(ctx, &[&reading, &ok]).simplify();
            reading = Bool::and(ctx, &[&g, &byte._eq(&BV::from_u64(ctx, b'\n' as u64, 8)).not()]).simplify();
            got.push(g);
            bytes.push(byte);
        }
        self.st.guard = start.clone();
        if max < room {
            let cond = self.and(&start, &reading);
            self.enc.unwinding.push(UnwindPoint { span: a.span, cond, cuts: chars_cut(max) });
        }
        let any = got.first().cloned().unwrap_or_else(|| Bool::from_bool(ctx, false));
        // The NUL goes after the last byte read: it must be inside the array.
        let count = got.iter().fold(w(0), |c, g| g.ite(&c.bvadd(&w(1)), &c));
        let fits = w(off0).bvadd(&count).bvult(&w(n));
        let checked = Bool::or(ctx, &[&any.not(), &fits]);
        self.check(checked, ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        for i in 0..(max + 1).min(n.saturating_sub(off0)) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let nul_here = if i == 0 {
                Bool::from_bool(ctx, false)
            } else {
                Bool::and(ctx, &[&got[i as usize - 1], &got.get(i as usize).map_or_else(|| self.tt(), |g| g.not())])
            };
            let tail = nul_here.ite(&zero, &old);
            let v = match got.get(i as usize) {
                Some(g) => g.ite(&bytes[i as usize], &tail),
                None => tail,
            };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        let at_guard = self.st.guard.clone();
        self.st.guard = self.and(&at_guard, &any);
        self.char_read(crate::ir::print::expr_to_c(self.p, a.strip_implicit()), SymVal::Void, a.span);
        self.st.guard = at_guard;
        let null = self.null();
        let mut targets = ptr.targets.clone();
        targets.extend(null.targets.iter().copied());
        Ok(SymVal::Ptr(SymPtr { obj: any.ite(&ptr.obj, &null.obj), off: any.ite(&ptr.off, &null.off), targets }))
    }

    pub(super) fn single_char_object(&self, ptr: &SymPtr<'ctx>, span: Span) -> R<u32> {
        if ptr.targets.len() != 1 {
            return self.unsupported("a string pointer the verifier cannot track", span);
        }
        self.char_object(ptr.targets[0], span)?;
        Ok(ptr.targets[0])
    }

    /// Object `o` is an array of characters (a string function's argument).
    pub(super) fn char_object(&self, o: u32, span: Span) -> R<()> {
        let info = &self.objects[o as usize];
        if info.small || !matches!(info.elem, Type::Int(t) if t.kind == IntKind::Char) || info.lanes.len() != 1 {
            return self.unsupported("a string function on a non-char array", span);
        }
        Ok(())
    }

    /// Strings are scanned up to this many characters; longer ones are cut (an unwinding point).
    pub(super) fn str_cap(&self) -> u64 {
        (self.bound as u64 + 1).max(32)
    }

    /// The characters at `ptr + i` for `i` in `0..min(len(object), cap) + 1`, each with
    /// "inside the object". A pointer that may point into several strings (`c ? "a" : "bc"`)
    /// gives each character as the one of the string it points into. `fault` is where the
    /// interpreter reports a null or freed pointer.
    pub(super) fn string_chars(&mut self, ptr: &SymPtr<'ctx>, fault: Span) -> R<Vec<(BV<'ctx>, Bool<'ctx>)>> {
        for &o in &ptr.targets {
            self.char_object(o, fault)?;
        }
        let ctx = self.ctx;
        if !self.check_live(ptr, fault) {
            // A null pointer: the path ended at the check.
            return Ok(vec![(BV::from_u64(ctx, 0, 8), Bool::from_bool(ctx, true))]);
        }
        let mut per: Vec<(u32, Vec<(BV<'ctx>, Bool<'ctx>)>)> = Vec::new();
        for &o in &ptr.targets {
            let n = self.objects[o as usize].len;
            let size = self.len_bv(o);
            let arr = self.mem_array(o, fault)?;
            let chars = (0..=n.min(self.str_cap()))
                .map(|i| {
                    let at = ptr.off.bvadd(&BV::from_u64(ctx, i, OFF_BITS));
                    (arr.select(&at).as_bv().expect("char array"), at.bvult(&size))
                })
                .collect();
            per.push((o, chars));
        }
        let Some((_, last)) = per.pop() else { unreachable!("check_live ends a pointer without targets") };
        let longest = per.iter().map(|(_, c)| c.len()).max().unwrap_or(0).max(last.len());
        let (nul, outside) = (BV::from_u64(ctx, 0, 8), Bool::from_bool(ctx, false));
        let at = |c: &[(BV<'ctx>, Bool<'ctx>)], i: usize| c.get(i).cloned().unwrap_or((nul.clone(), outside.clone()));
        let mut out = Vec::new();
        for i in 0..longest {
            let (mut c, mut inside) = at(&last, i);
            for (o, chars) in per.iter().rev() {
                let is = ptr.obj._eq(&BV::from_u64(ctx, *o as u64, OBJ_BITS));
                let (x, xi) = at(chars, i);
                c = is.ite(&x, &c);
                inside = is.ite(&xi, &inside);
            }
            out.push((c, inside));
        }
        Ok(out)
    }

    /// Cuts runs where `cut` holds (a string longer than the cap), then checks `ok` (the string
    /// ends inside its object).
    pub(super) fn cut_then_check(&mut self, cut: Bool<'ctx>, ok: Bool<'ctx>, span: Span, fault: Span) {
        if cut.as_bool() != Some(false) {
            let cond = self.and(&self.st.guard, &cut);
            self.enc.unwinding.push(UnwindPoint { span, cond, cuts: chars_cut(self.str_cap()) });
            self.st.guard = self.and(&self.st.guard, &cut.not());
        }
        self.check(ok, ViolationKind::OutOfBounds, fault);
    }

    /// A NUL-terminated string: its scanned characters, after the cut and the bounds check.
    pub(super) fn cstring(&mut self, ptr: &SymPtr<'ctx>, span: Span, fault: Span) -> R<Vec<(BV<'ctx>, Bool<'ctx>)>> {
        let chars = self.string_chars(ptr, fault)?;
        let zero = BV::from_u64(self.ctx, 0, 8);
        let mut ok = Bool::from_bool(self.ctx, false);
        let mut cut = Bool::from_bool(self.ctx, true);
        for (c, inside) in chars.iter().rev() {
            ok = Bool::and(self.ctx, &[inside, &Bool::or(self.ctx, &[&c._eq(&zero), &ok])]);
            cut = Bool::and(self.ctx, &[inside, &c._eq(&zero).not(), &cut]);
        }
        self.cut_then_check(cut, ok, span, fault);
        Ok(chars)
    }

    pub(super) fn strlen(&mut self, e: &Expr, a: &Expr) -> R<SymVal<'ctx>> {
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("strlen of a non-pointer", a.span) };
        let chars = self.cstring(&p, e.span, deref_span(a))?;
        let Type::Int(t) = e.ty else { return self.unsupported("strlen of this type", e.span) };
        Ok(SymVal::Int(self.first_nul(&chars, c_int::width(t))))
    }

    /// The index of the first NUL among a string's scanned characters, `bits` wide (one exists
    /// where the path continues: [`Exec::cstring`] checked it).
    pub(super) fn first_nul(&self, chars: &[(BV<'ctx>, Bool<'ctx>)], bits: u32) -> BV<'ctx> {
        let chars: Vec<BV<'ctx>> = chars.iter().map(|(c, _)| c.clone()).collect();
        c_lib::span_length(self.ctx, Builtin::Strlen, &chars, &[], bits)
    }

    /// `strcpy(d, s)`, or `strcat(d, s)`: the characters of `s` and its NUL written from
    /// `d` (from `d`'s NUL for strcat). Each write happens where the characters before it in
    /// `s` are not NUL; the last one written must be inside `d`'s array.
    pub(super) fn strcpy(&mut self, cat: bool, e: &Expr, a: &Expr, c: &Expr) -> R<SymVal<'ctx>> {
        // The interpreter evaluates the destination, then the source.
        let SymVal::Ptr(d) = self.eval(a)? else { return self.unsupported("strcpy into a non-pointer", a.span) };
        let SymVal::Ptr(s) = self.eval(c)? else { return self.unsupported("strcpy of a non-pointer", c.span) };
        let src = self.cstring(&s, e.span, deref_span(c))?;
        let o = self.single_char_object(&d, a.span)?;
        let ctx = self.ctx;
        let start = if cat {
            let dst = self.cstring(&d, e.span, deref_span(a))?;
            self.first_nul(&dst, OFF_BITS)
        } else {
            if !self.check_live(&d, deref_span(a)) {
                return Ok(SymVal::Ptr(d));
            }
            BV::from_u64(ctx, 0, OFF_BITS)
        };
        let from = d.off.bvadd(&start);
        let last = from.bvadd(&self.first_nul(&src, OFF_BITS));
        self.check(last.bvult(&self.len_bv(o)), ViolationKind::OutOfBounds, a.span);
        let chars: Vec<BV<'ctx>> = src.iter().map(|(c, _)| c.clone()).collect();
        for (i, (ch, written)) in chars.iter().zip(c_lib::copied(ctx, &chars)).enumerate() {
            let at = from.bvadd(&BV::from_u64(ctx, i as u64, OFF_BITS));
            self.write_lane(o, &at, &SymVal::Int(ch.clone()), Some(&written), a.span)?;
        }
        Ok(SymVal::Ptr(d))
    }

    pub(super) fn strcmp(&mut self, e: &Expr, a: &Expr, b: &Expr) -> R<SymVal<'ctx>> {
        // Arguments right to left, as the interpreter evaluates them.
        let SymVal::Ptr(q) = self.eval(b)? else { return self.unsupported("strcmp of a non-pointer", b.span) };
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("strcmp of a non-pointer", a.span) };
        let xs = self.string_chars(&p, deref_span(a))?;
        let ys = self.string_chars(&q, deref_span(b))?;
        let Type::Int(t) = e.ty else { return self.unsupported("strcmp of this type", e.span) };
        let chars = |s: &[(BV<'ctx>, Bool<'ctx>)]| -> Vec<BV<'ctx>> { s.iter().map(|(c, _)| c.clone()).collect() };
        let (r, stops) = c_lib::string_compare(self.ctx, &chars(&xs), &chars(&ys), c_int::width(t));
        let mut ok = Bool::from_bool(self.ctx, false);
        let mut cut = Bool::from_bool(self.ctx, true);
        for (i, stop) in stops.iter().enumerate().rev() {
            let (ix, iy) = (&xs[i].1, &ys[i].1);
            ok = Bool::and(self.ctx, &[ix, iy, &Bool::or(self.ctx, &[stop, &ok])]);
            cut = Bool::and(self.ctx, &[ix, iy, &stop.not(), &cut]);
        }
        self.cut_then_check(cut, ok, e.span, deref_span(a));
        Ok(SymVal::Int(r))
    }

    pub(super) fn string_value(&mut self, a: &Expr) -> R<OutValue<'ctx>> {
        if let ExprKind::Str(b) = &a.strip_implicit().kind {
            return Ok(OutValue::Text(b.clone()));
        }
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("`%s` of a non-pointer", a.span) };
        let chars = self.cstring(&p, a.span, deref_span(a))?;
        Ok(OutValue::Chars(chars.into_iter().map(|(c, _)| c).collect()))
    }

    pub(super) fn printf(&mut self, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        if args.is_empty() {
            return self.unsupported("printf without a format", e.span);
        }
        let Some((fmt, values)) = cfmt::printf_format(args) else {
            return self.unsupported("a format that is not a string literal", e.span);
        };
        let pieces = match cfmt::parse(fmt, false) {
            Ok(p) => p,
            Err(err) => return self.unsupported(format!("a malformed printf format ({})", err.message), e.span),
        };
        // Arguments right to left, as gcc (and the interpreter) evaluate them.
        let mut vals: Vec<Option<OutValue<'ctx>>> = vec![None; values.len()];
        let mut dirs = Vec::new();
        for p in &pieces {
            if let Piece::Directive(d) = p {
                if d.width == Count::Star || d.precision == Count::Star {
                    return self.unsupported("printf `*` width or precision", e.span);
                }
                if matches!(d.conv, 'n' | 'p') {
                    return self.unsupported(format!("printf `%{}`", d.conv), e.span);
                }
                dirs.push(d.conv);
            }
        }
        for i in (0..values.len()).rev() {
            let a = &values[i];
            let conv = dirs.get(i).copied().unwrap_or('d');
            vals[i] = Some(if conv == 's' {
                self.string_value(a)?
            } else {
                match self.eval_loc(a)? {
                    SymVal::Int(b) => OutValue::Int { value: b, ty: a.ty.as_int().unwrap_or(IntType::INT) },
                    SymVal::Float(x) => OutValue::Float {
                        value: x,
                        kind: match a.ty {
                            Type::Float(k) => k,
                            _ => FloatKind::Double,
                        },
                    },
                    _ => return self.unsupported("printing a value of this type", a.span),
                }
            });
        }
        self.enc.output.push(OutputEntry {
            seq: self.next_seq(),
            span: e.span,
            guard: self.st.guard.clone(),
            format: fmt.to_vec(),
            values: vals.into_iter().flatten().collect(),
        });
        let n = self.name("printf.ret");
        Ok(SymVal::Int(BV::new_const(self.ctx, n, 32)))
    }
}

/// A cut of the strings longer than `max` characters.
fn chars_cut(max: u64) -> Cuts {
    Cuts { chars: Some(u32::try_from(max).unwrap_or(u32::MAX)), ..Cuts::default() }
}

/// Spaces in a row that `scanf` skips in the character model before the rest is cut.
const MAX_SPACES: usize = 4;

/// Digits of a number `scanf` reads in the character model before the rest is cut: every
/// `int` fits, and the 64-bit value cannot overflow.
const MAX_DIGITS: usize = 10;

/// The bits a scanf length modifier stores (`%hhd`, `%hd`, `%d`, `%ld`).
fn length_bits(l: &crate::ir::format::Length) -> u32 {
    use crate::ir::format::Length;
    match l {
        Length::Char => 8,
        Length::Short => 16,
        Length::None => 32,
        _ => 64,
    }
}

/// What a scanf argument names, as the counterexample shows it: `x` for `&x`, `s` for an array.
fn scanned_name(p: &Program, a: &Expr) -> String {
    match &a.strip_implicit().kind {
        ExprKind::AddrOf(x) | ExprKind::Decay(x) => crate::ir::print::expr_to_c(p, x),
        _ => format!("*{}", crate::ir::print::expr_to_c(p, a)),
    }
}
