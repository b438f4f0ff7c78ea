//! Helpers of the symbolic executor: unsupported constructs, fresh names, guards and merges.

use super::*;

impl<'a, 'ctx> Exec<'a, 'ctx> {
    pub(super) fn unsupported<T>(&self, what: impl Into<String>, span: Span) -> R<T> {
        let func = self.calls.last().map(|c| self.p.func(c.func).name.clone());
        Err(Unsupported { func, what: what.into(), span })
    }

    pub(super) fn tt(&self) -> Bool<'ctx> {
        Bool::from_bool(self.ctx, true)
    }

    pub(super) fn and(&self, a: &Bool<'ctx>, b: &Bool<'ctx>) -> Bool<'ctx> {
        match (a.as_bool(), b.as_bool()) {
            (Some(true), _) => b.clone(),
            (_, Some(true)) => a.clone(),
            (Some(false), _) | (_, Some(false)) => Bool::from_bool(self.ctx, false),
            _ => Bool::and(self.ctx, &[a, b]),
        }
    }

    pub(super) fn next_seq(&self) -> u64 {
        let n = self.seq.get();
        self.seq.set(n + 1);
        n
    }

    pub(super) fn name(&mut self, base: &str) -> String {
        self.names += 1;
        format!("{}{base}!{}", self.namespace, self.names)
    }

    pub(super) fn kill(&mut self) {
        self.st.dead = true;
        self.st.guard = Bool::from_bool(self.ctx, false);
    }

    pub(super) fn check(&mut self, ok: Bool<'ctx>, kind: ViolationKind, span: Span) {
        if ok.as_bool() == Some(true) {
            return;
        }
        let cond = self.and(&self.st.guard, &ok.not());
        self.enc.violations.push(Violation { kind, span, cond });
        self.st.guard = self.and(&self.st.guard, &ok);
    }

    pub(super) fn var_key(&self, v: VarId) -> Key {
        match self.p.var(v).kind {
            VarKind::Global | VarKind::StaticLocal => (0, v),
            _ => (self.calls.last().map_or(0, |c| c.frame), v),
        }
    }

    /// Whether `v` lives in a memory object (a Z3 array) rather than as SSA values. The front
    /// end marks every global addressable (the interpreter keeps them in memory); a scalar
    /// global whose address is never taken cannot be reached through a pointer, so it is an
    /// SSA value here, which keeps array theory out of loop-free global-variable programs.
    pub(super) fn object_backed(&self, v: VarId) -> bool {
        let var = self.p.var(v);
        match &var.ty {
            Type::Array(..) | Type::Struct(_) => true,
            _ if var.kind == VarKind::Global => self.addr_taken.contains(&v),
            _ => var.addressable,
        }
    }

    pub(super) fn elem_sort(&self, ty: &Type, span: Span) -> R<Sort<'ctx>> {
        match ty {
            Type::Int(t) => Ok(Sort::bitvector(self.ctx, c_int::width(*t))),
            Type::Float(k) => Ok(self.floats.sort(*k)),
            Type::Pointer(_) => Ok(Sort::bitvector(self.ctx, PTR_BITS)),
            _ => self.unsupported(format!("memory holding values of type `{}`", self.p.type_name(ty)), span),
        }
    }

    pub(super) fn zero(&self, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        Ok(match ty {
            Type::Int(t) => SymVal::Int(c_int::constant(self.ctx, *t, 0)),
            Type::Float(k) => SymVal::Float(self.floats.literal(0.0, *k)),
            Type::Pointer(_) => SymVal::Ptr(self.null()),
            Type::Struct(_) => return self.unsupported("structs", span),
            _ => return self.unsupported(format!("values of type `{}`", self.p.type_name(ty)), span),
        })
    }

    pub(super) fn null(&self) -> SymPtr<'ctx> {
        SymPtr { obj: BV::from_u64(self.ctx, 0, OBJ_BITS), off: BV::from_u64(self.ctx, 0, OFF_BITS), targets: vec![] }
    }

    pub(super) fn fresh(&mut self, base: &str, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        let n = self.name(base);
        Ok(match ty {
            Type::Int(t) => SymVal::Int(BV::new_const(self.ctx, n, c_int::width(*t))),
            Type::Float(k) => SymVal::Float(self.floats.constant(&n, *k)),
            Type::Pointer(_) => SymVal::Ptr(SymPtr {
                obj: BV::new_const(self.ctx, format!("{n}.obj"), OBJ_BITS),
                off: BV::new_const(self.ctx, format!("{n}.off"), OFF_BITS),
                targets: vec![],
            }),
            Type::Void => SymVal::Void,
            Type::Struct(_) => return self.unsupported("structs", span),
            _ => return self.unsupported(format!("values of type `{}`", self.p.type_name(ty)), span),
        })
    }

    /// A fresh constant equal to `v` (an SSA definition, hard).
    pub(super) fn define(&mut self, base: &str, v: SymVal<'ctx>) -> SymVal<'ctx> {
        let n = self.name(base);
        match v {
            SymVal::Int(b) => {
                let x = BV::new_const(self.ctx, n, b.get_size());
                self.enc.hard.push(x._eq(&b));
                SymVal::Int(x)
            }
            SymVal::Float(f) => {
                let x = self.floats.constant(&n, float_kind(&f));
                self.enc.hard.push(x._eq(&f));
                SymVal::Float(x)
            }
            SymVal::Ptr(p) => {
                let obj = BV::new_const(self.ctx, format!("{n}.obj"), OBJ_BITS);
                let off = BV::new_const(self.ctx, format!("{n}.off"), OFF_BITS);
                self.enc.hard.push(obj._eq(&p.obj));
                self.enc.hard.push(off._eq(&p.off));
                SymVal::Ptr(SymPtr { obj, off, targets: p.targets })
            }
            SymVal::Void => SymVal::Void,
        }
    }

    pub(super) fn ite(&self, c: &Bool<'ctx>, a: &SymVal<'ctx>, b: &SymVal<'ctx>) -> SymVal<'ctx> {
        if a.same(b) {
            return a.clone();
        }
        match (a, b) {
            (SymVal::Int(x), SymVal::Int(y)) => SymVal::Int(c.ite(x, y)),
            (SymVal::Float(x), SymVal::Float(y)) => SymVal::Float(c.ite(x, y)),
            (SymVal::Ptr(x), SymVal::Ptr(y)) => {
                let mut targets = x.targets.clone();
                for t in &y.targets {
                    if !targets.contains(t) {
                        targets.push(*t);
                    }
                }
                targets.sort();
                SymVal::Ptr(SymPtr { obj: c.ite(&x.obj, &y.obj), off: c.ite(&x.off, &y.off), targets })
            }
            _ => a.clone(),
        }
    }

    pub(super) fn truthy(&mut self, v: &SymVal<'ctx>) -> Bool<'ctx> {
        match v {
            SymVal::Int(b) => c_int::truthy(b),
            SymVal::Float(f) => self.floats.truthy(f, float_kind(f)),
            SymVal::Ptr(p) => c_int::truthy(&p.obj),
            SymVal::Void => self.tt(),
        }
    }

    /// Merges live states at a join: Φ-definitions for every variable and object that differs.
    /// `known` is the merged guard when the caller knows it (both arms of a branch unchanged).
    pub(super) fn merge(&mut self, states: Vec<State<'ctx>>, known: Option<Bool<'ctx>>) -> State<'ctx> {
        let mut live: Vec<State<'ctx>> = states.into_iter().filter(|s| !s.dead).collect();
        if live.is_empty() {
            let mut s = self.st.clone();
            s.dead = true;
            s.guard = Bool::from_bool(self.ctx, false);
            return s;
        }
        if live.len() == 1 {
            return live.pop().unwrap();
        }
        let guard = known.unwrap_or_else(|| {
            let gs: Vec<&Bool<'ctx>> = live.iter().map(|s| &s.guard).collect();
            Bool::or(self.ctx, &gs)
        });
        let mut vars = BTreeMap::new();
        for (k, entries) in joined(&live, |s| &s.vars) {
            let first = entries[0].1;
            let slot = if entries.iter().all(|(_, s)| s.val.same(&first.val) && s.init == first.init) {
                first.clone()
            } else {
                let (last_g, last) = entries[entries.len() - 1];
                let _ = last_g;
                let mut val = last.val.clone();
                let mut init = last.init.clone();
                for (g, s) in entries[..entries.len() - 1].iter().rev() {
                    val = self.ite(g, &s.val, &val);
                    init = if s.init == init { init } else { g.ite(&s.init, &init) };
                }
                let same = entries.iter().all(|(_, s)| s.val.same(&first.val));
                let val = if same { first.val.clone() } else { self.define(&self.p.var(k.1).name.clone(), val) };
                Slot { val, init }
            };
            vars.insert(k, slot);
        }
        let mut mem = BTreeMap::new();
        for (o, entries) in joined(&live, |s| &s.mem) {
            let first = entries[0].1;
            let arr = if entries.iter().all(|(_, a)| *a == first) {
                first.clone()
            } else {
                let mut acc = entries[entries.len() - 1].1.clone();
                for (g, a) in entries[..entries.len() - 1].iter().rev() {
                    acc = g.ite(a, &acc);
                }
                let n = self.name(&format!("mem{o}"));
                let elem = self.objects[o as usize].elem.clone();
                let range = match self.elem_sort(&elem, Span::default()) {
                    Ok(r) => r,
                    Err(_) => Sort::bitvector(self.ctx, 8),
                };
                let x = Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &range);
                self.enc.hard.push(x._eq(&acc));
                self.mem_defs.insert(x.clone(), acc);
                x
            };
            mem.insert(o, arr);
        }
        let mut cells = BTreeMap::new();
        for (k, entries) in joined(&live, |s| &s.cells) {
            let first = entries[0].1;
            let v = if entries.iter().all(|(_, v)| v.same(first)) {
                first.clone()
            } else {
                let mut acc = entries[entries.len() - 1].1.clone();
                for (g, v) in entries[..entries.len() - 1].iter().rev() {
                    acc = self.ite(g, v, &acc);
                }
                self.define("cell", acc)
            };
            cells.insert(k, v);
        }
        let line = if live.iter().all(|s| s.line == LineState::Start) { LineState::Start } else { LineState::Mid };
        State { guard, dead: false, vars, mem, cells, line }
    }

    pub(super) fn selectors(&mut self, loc: LocationId, n: usize) -> Vec<Bool<'ctx>> {
        if let Some(s) = self.enc.selectors.get(&loc) {
            return s.clone();
        }
        let sels: Vec<Bool<'ctx>> = (0..n).map(|k| Bool::new_const(self.ctx, format!("sel!{}!{}", loc.0, k))).collect();
        let refs: Vec<&Bool<'ctx>> = sels.iter().collect();
        self.enc.hard.push(Bool::or(self.ctx, &refs));
        self.enc.selectors.insert(loc, sels.clone());
        sels
    }
}

/// For a join of `live` states: each key one of their maps (`vars`, `mem`, `cells`) has, in
/// order, with the states that have it as (guard, value), in the states' order.
fn joined<'s, 'ctx, K: Ord + Copy + 's, V: 's>(
    live: &'s [State<'ctx>],
    map: impl Fn(&'s State<'ctx>) -> &'s BTreeMap<K, V>,
) -> Vec<(K, Vec<(&'s Bool<'ctx>, &'s V)>)> {
    let mut keys: Vec<K> = live.iter().flat_map(|s| map(s).keys().copied()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().map(|k| (k, live.iter().filter_map(|s| map(s).get(&k).map(|v| (&s.guard, v))).collect())).collect()
}

/// The C type of a floating-point value, read off its sort.
pub(super) fn float_kind(f: &Dynamic<'_>) -> FloatKind {
    crate::smt::floats::Floats::kind_of(f)
}
