//! Objects and places: memory objects, lvalues, loads and stores through pointers.

use super::*;

impl<'a, 'ctx> Exec<'a, 'ctx> {
    pub(super) fn new_object(&mut self, ty: &Type, span: Span) -> R<u32> {
        let elem = leaf(ty).clone();
        let Some(len) = leaf_count(ty) else { return self.unsupported("an array of unknown size", span) };
        self.elem_sort(&elem, span)?;
        self.objects.push(ObjInfo { len, elem });
        Ok((self.objects.len() - 1) as u32)
    }

    pub(super) fn obj_ptr(&self, o: u32) -> SymPtr<'ctx> {
        SymPtr {
            obj: BV::from_u64(self.ctx, o as u64, OBJ_BITS),
            off: BV::from_u64(self.ctx, 0, OFF_BITS),
            targets: vec![o],
        }
    }

    pub(super) fn var_obj(&mut self, key: Key, span: Span) -> R<u32> {
        if let Some(&o) = self.var_objs.get(&key) {
            return Ok(o);
        }
        let ty = self.p.var(key.1).ty.clone();
        let o = self.new_object(&ty, span)?;
        self.var_objs.insert(key, o);
        let sort = self.elem_sort(&self.objects[o as usize].elem.clone(), span)?;
        let n = self.name(&self.p.var(key.1).name.clone());
        self.st.mem.insert(o, Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &sort));
        Ok(o)
    }

    pub(super) fn to_dyn(v: &SymVal<'ctx>) -> Dynamic<'ctx> {
        match v {
            SymVal::Int(b) => Dynamic::from_ast(b),
            SymVal::Float(f) => f.clone(),
            _ => unreachable!("only scalars live in memory"),
        }
    }

    pub(super) fn from_dyn(d: Dynamic<'ctx>) -> SymVal<'ctx> {
        if let Some(b) = d.as_bv() {
            SymVal::Int(b)
        } else if d.as_float().is_some() {
            SymVal::Float(d)
        } else {
            unreachable!("memory holds bit-vectors and floats")
        }
    }

    pub(super) fn in_bounds(&mut self, ptr: &SymPtr<'ctx>, span: Span) -> R<Bool<'ctx>> {
        if ptr.targets.is_empty() {
            return self.unsupported("a dereference of a pointer the verifier cannot track (null or unknown)", span);
        }
        let ctx = self.ctx;
        let within = |o: u32, objs: &Vec<ObjInfo>| ptr.off.bvult(&BV::from_u64(ctx, objs[o as usize].len, OFF_BITS));
        if ptr.targets.len() == 1 {
            let o = ptr.targets[0];
            // A constant offset (a scalar object, `a[2]`) is decided here: no check is recorded.
            if let Some(off) = ptr.off.as_u64() {
                return Ok(Bool::from_bool(ctx, off < self.objects[o as usize].len));
            }
            return Ok(within(o, &self.objects));
        }
        let parts: Vec<Bool<'ctx>> = ptr
            .targets
            .iter()
            .map(|&o| {
                Bool::and(ctx, &[&ptr.obj._eq(&BV::from_u64(ctx, o as u64, OBJ_BITS)), &within(o, &self.objects)])
            })
            .collect();
        let refs: Vec<&Bool<'ctx>> = parts.iter().collect();
        Ok(Bool::or(ctx, &refs))
    }

    pub(super) fn mem_array(&mut self, o: u32, span: Span) -> R<Array<'ctx>> {
        if let Some(a) = self.st.mem.get(&o) {
            return Ok(a.clone());
        }
        let sort = self.elem_sort(&self.objects[o as usize].elem.clone(), span)?;
        let n = self.name(&format!("mem{o}"));
        let a = Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &sort);
        self.st.mem.insert(o, a.clone());
        Ok(a)
    }

    pub(super) fn load(&mut self, place: Place<'ctx>, e: &Expr) -> R<SymVal<'ctx>> {
        match place {
            Place::Var(key) => {
                if let Some(slot) = self.st.vars.get(&key).cloned() {
                    if slot.init.as_bool() != Some(true) {
                        let cond = self.and(&self.st.guard, &slot.init.not());
                        let name = self.p.var(key.1).name.clone();
                        self.enc.uninit_reads.push(UninitRead { span: e.span, name, cond });
                    }
                    Ok(slot.val)
                } else {
                    let ty = self.p.var(key.1).ty.clone();
                    let v = self.fresh(&self.p.var(key.1).name.clone(), &ty, e.span)?;
                    let name = self.p.var(key.1).name.clone();
                    self.enc.uninit_reads.push(UninitRead { span: e.span, name, cond: self.st.guard.clone() });
                    Ok(v)
                }
            }
            Place::Mem { ptr, ty } => {
                if matches!(ty, Type::Array(..)) {
                    return Ok(SymVal::Ptr(ptr));
                }
                self.access_type_ok(&ptr, &ty, e.span)?;
                let ok = self.in_bounds(&ptr, e.span)?;
                self.check(ok, ViolationKind::OutOfBounds, e.span);
                let mut acc: Option<SymVal<'ctx>> = None;
                for &o in ptr.targets.iter().rev() {
                    let arr = self.mem_array(o, e.span)?;
                    let v = Self::from_dyn(arr.select(&ptr.off));
                    acc = Some(match acc {
                        None => v,
                        Some(rest) => {
                            let c = ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS));
                            self.ite(&c, &v, &rest)
                        }
                    });
                }
                Ok(acc.expect("targets is not empty"))
            }
        }
    }

    pub(super) fn access_type_ok(&self, ptr: &SymPtr<'ctx>, ty: &Type, span: Span) -> R<()> {
        for &o in &ptr.targets {
            if self.objects[o as usize].elem != *leaf(ty) {
                return self.unsupported("an access to memory through a pointer of another type", span);
            }
        }
        Ok(())
    }

    pub(super) fn store(&mut self, place: Place<'ctx>, v: SymVal<'ctx>, span: Span) -> R<()> {
        match place {
            Place::Var(key) => {
                self.st.vars.insert(key, Slot { val: v, init: self.tt() });
                Ok(())
            }
            Place::Mem { ptr, ty } => {
                if matches!(ty, Type::Array(..)) {
                    return self.unsupported("assignment of a whole array", span);
                }
                if matches!(v, SymVal::Ptr(_)) {
                    return self.unsupported("pointers stored in memory", span);
                }
                if ptr.targets.iter().any(|o| self.literal_objs.values().any(|l| l == o)) {
                    return self.unsupported("a write through a pointer that may point into a string literal", span);
                }
                self.access_type_ok(&ptr, &ty, span)?;
                let ok = self.in_bounds(&ptr, span)?;
                self.check(ok, ViolationKind::OutOfBounds, span);
                let d = Self::to_dyn(&v);
                let many = ptr.targets.len() > 1;
                for &o in &ptr.targets {
                    let arr = self.mem_array(o, span)?;
                    let stored = arr.store(&ptr.off, &d);
                    let new = if many {
                        ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS)).ite(&stored, &arr)
                    } else {
                        stored
                    };
                    self.st.mem.insert(o, new);
                }
                Ok(())
            }
        }
    }

    pub(super) fn place(&mut self, e: &Expr) -> R<Place<'ctx>> {
        match &e.kind {
            ExprKind::Var(v) => {
                let key = self.var_key(*v);
                if self.object_backed(*v) {
                    let o = self.var_obj(key, e.span)?;
                    Ok(Place::Mem { ptr: self.obj_ptr(o), ty: e.ty.clone() })
                } else {
                    Ok(Place::Var(key))
                }
            }
            ExprKind::Index(b, i) => {
                let base = self.eval(b)?;
                let idx = self.eval(i)?;
                let SymVal::Ptr(p) = base else { return self.unsupported("indexing a non-pointer", e.span) };
                let (SymVal::Int(iv), Some(it)) = (idx, i.ty.as_int()) else {
                    return self.unsupported("a non-integer index", e.span);
                };
                let Some(scale) = leaf_count(&e.ty) else { return self.unsupported("arrays of unknown size", e.span) };
                let iv = c_int::resize(&iv, it.signed, OFF_BITS);
                let off = p.off.bvadd(&iv.bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS)));
                Ok(Place::Mem { ptr: SymPtr { off, ..p }, ty: e.ty.clone() })
            }
            ExprKind::Deref(q) => {
                let SymVal::Ptr(p) = self.eval(q)? else {
                    return self.unsupported("dereferencing a non-pointer", e.span);
                };
                Ok(Place::Mem { ptr: p, ty: e.ty.clone() })
            }
            ExprKind::Str(bytes) => {
                let key = e.id;
                let o = match self.literal_objs.get(&key) {
                    Some(&o) => o,
                    None => {
                        let o = self.new_object(&e.ty, e.span)?;
                        let mut arr = Array::const_array(
                            self.ctx,
                            &Sort::bitvector(self.ctx, OFF_BITS),
                            &BV::from_u64(self.ctx, 0, 8),
                        );
                        for (i, b) in bytes.iter().enumerate() {
                            arr = arr.store(
                                &BV::from_u64(self.ctx, i as u64, OFF_BITS),
                                &BV::from_u64(self.ctx, *b as u64, 8),
                            );
                        }
                        // Literals never change: keep their contents in every state from here on.
                        self.st.mem.insert(o, arr);
                        self.literal_objs.insert(key, o);
                        o
                    }
                };
                Ok(Place::Mem { ptr: self.obj_ptr(o), ty: e.ty.clone() })
            }
            ExprKind::Member { .. } => self.unsupported("structs", e.span),
            _ => self.unsupported("this kind of lvalue", e.span),
        }
    }
}
