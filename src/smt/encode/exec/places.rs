//! Objects and places: memory objects, lvalues, loads and stores through pointers.

use super::*;

impl<'a, 'ctx> Exec<'a, 'ctx> {
    /// A new object holding a value of type `ty` (a variable, a literal): its lanes, each
    /// without contents yet.
    pub(super) fn new_object(&mut self, ty: &Type, span: Span) -> R<u32> {
        let Some(len) = leaf_count(self.p, ty) else { return self.unsupported("an array of unknown size", span) };
        self.new_lanes(leaf(ty), len, None, ObjKind::Fixed, span)
    }

    /// `argv` of a run without command-line arguments ([`crate::ir::EntryArg`]): the
    /// program's name, then a null pointer. `ty` is `argv`'s type (`char **`).
    pub(super) fn command_line(&mut self, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        let Type::Pointer(elem) = ty else { unreachable!("entry_arg gives Vector to pointers only") };
        let Type::Pointer(char_ty) = &**elem else { unreachable!("entry_arg gives Vector to `char **` only") };
        let name = crate::ir::PROGRAM_NAME.as_bytes();
        let n = self.new_object(&Type::Array(char_ty.clone(), Some(name.len() as u64 + 1)), span)?;
        self.st.mem.insert(n, self.bytes_then_zeros(name));
        let v = self.new_object(&Type::Array(elem.clone(), Some(2)), span)?;
        let (ctx, start) = (self.ctx, self.obj_ptr(v));
        let at = |k: u64| SymPtr { off: BV::from_u64(ctx, k, OFF_BITS), ..start.clone() };
        self.store_mem(at(0), elem, SymVal::Ptr(self.obj_ptr(n)), span)?;
        self.store_mem(at(1), elem, SymVal::Ptr(self.null()), span)?;
        Ok(SymVal::Ptr(self.obj_ptr(v)))
    }

    /// The contents of a character object holding `bytes`, then zeros (a string literal,
    /// `argv[0]`).
    fn bytes_then_zeros(&self, bytes: &[u8]) -> Array<'ctx> {
        let zeros = Array::const_array(self.ctx, &Sort::bitvector(self.ctx, OFF_BITS), &BV::from_u64(self.ctx, 0, 8));
        bytes.iter().enumerate().fold(zeros, |arr, (i, b)| {
            arr.store(&BV::from_u64(self.ctx, i as u64, OFF_BITS), &BV::from_u64(self.ctx, *b as u64, 8))
        })
    }

    /// Whether an object of `len` cells of `elem` is kept cell by cell ([`ObjInfo::small`]):
    /// a few cells, none a character (string functions read char arrays as Z3 arrays).
    fn keeps_cells(&self, elem: &Type, len: u64) -> bool {
        let mut cells = Vec::new();
        len <= SMALL_CELLS
            && cell_types(self.p, elem, &mut cells).is_some()
            && !cells.iter().any(|c| matches!(c, Type::Int(t) if t.kind == IntKind::Char))
    }

    /// Pushes the lanes of an object whose elements have type `elem` (not an array).
    fn new_lanes(&mut self, elem: &Type, len: u64, size: Option<BV<'ctx>>, kind: ObjKind, span: Span) -> R<u32> {
        let mut cells = Vec::new();
        if cell_types(self.p, elem, &mut cells).is_none() {
            return self.unsupported(format!("a value of type `{}`", self.p.type_name(elem)), span);
        }
        let mut lanes: Vec<Type> = Vec::new();
        for c in &cells {
            if !lanes.contains(c) {
                self.elem_sort(c, span)?;
                lanes.push(c.clone());
            }
        }
        let heap = kind != ObjKind::Fixed;
        let small = match kind {
            ObjKind::Fixed => self.keeps_cells(elem, len),
            ObjKind::Heap => false,
            ObjKind::Small => true,
        };
        let (lanes, cells) = (Rc::new(lanes), Rc::new(cells));
        let base = self.objects.len() as u32;
        let mut kinds: Vec<Type> = lanes.iter().cloned().collect();
        if heap {
            kinds.push(Type::Int(IntType::UCHAR));
        }
        for elem in kinds {
            self.objects.push(ObjInfo {
                len,
                size: size.clone(),
                elem,
                lanes: lanes.clone(),
                cells: cells.clone(),
                heap,
                small,
                zeroed: false,
            });
        }
        Ok(base)
    }

    /// A block from `malloc`/`calloc` of `cells` cells of `elem`, its contents unknown (or zero).
    pub(super) fn new_heap_object(&mut self, elem: &Type, cells: BV<'ctx>, zeroed: bool, span: Span) -> R<u32> {
        let fixed = cells.simplify().as_u64();
        let o = match fixed {
            Some(n) if matches!(elem, Type::Struct(_)) && self.keeps_cells(elem, n) => {
                self.new_lanes(elem, n, None, ObjKind::Small, span)?
            }
            _ => self.new_lanes(elem, u64::MAX, Some(cells), ObjKind::Heap, span)?,
        };
        self.heap_objects += 1;
        let n = self.objects[o as usize].lanes.len() as u32;
        for lane in o..=o + n {
            self.objects[lane as usize].zeroed = zeroed;
        }
        if self.objects[o as usize].small {
            self.st.cells.insert((o + n, 0), SymVal::Int(BV::from_u64(self.ctx, 1, 8)));
            return Ok(o);
        }
        for lane in o..o + n {
            let arr = self.fresh_lane(lane, zeroed, "heap", span)?;
            self.st.mem.insert(lane, arr);
        }
        let alive = Array::const_array(self.ctx, &Sort::bitvector(self.ctx, OFF_BITS), &BV::from_u64(self.ctx, 1, 8));
        self.st.mem.insert(o + n, alive);
        Ok(o)
    }

    /// `T a[len];`: a block of `len` elements of `T` with unknown contents, which `a` names
    /// from here on (a declaration run again, in a loop, names a new one). A negative length
    /// is an error, as in the interpreter; so is `free` of the block (it is not from malloc).
    pub(super) fn declare_vla(&mut self, var: VarId, len: &Expr, row: Option<&(VarId, Expr)>, span: Span) -> R<()> {
        let Some(mut elem) = self.p.var(var).ty.pointee().cloned() else {
            return self.unsupported("this variable-length array", span);
        };
        let mut n = self.vla_length(len)?;
        if let Some((per_var, per)) = row {
            // `int a[n][m]`: `m` kept for the rows' starts (`ExprKind::Row`), `n * m` elements.
            let m = self.vla_length(per)?;
            let key = self.var_key(*per_var);
            self.store(Place::Var(key), SymVal::Int(m.clone()), per.span)?;
            n = n.bvmul(&m);
            elem = elem.pointee().cloned().unwrap_or(Type::Error);
        }
        let Some(per) = leaf_count(self.p, &elem) else {
            return self.unsupported("a variable-length array of arrays", span);
        };
        let cells = c_int::resize(&n, false, OFF_BITS).bvmul(&BV::from_u64(self.ctx, per, OFF_BITS));
        let o = self.new_lanes(&elem, u64::MAX, Some(cells), ObjKind::Heap, span)?;
        let lanes = self.objects[o as usize].lanes.len() as u32;
        for lane in o..=o + lanes {
            // Not a heap block: no liveness, and `free` finds no block from malloc in it.
            self.objects[lane as usize].heap = false;
        }
        // A call that declares one is inlined where it runs, as one that allocates.
        self.heap_objects += 1;
        for lane in o..o + lanes {
            let arr = self.fresh_lane(lane, false, &self.p.var(var).name.clone(), span)?;
            self.st.mem.insert(lane, arr);
        }
        let key = self.var_key(var);
        self.var_objs.insert(key, o);
        Ok(())
    }

    /// A variable-length array's length `len`, 64 bits wide; a negative one is an error.
    fn vla_length(&mut self, len: &Expr) -> R<BV<'ctx>> {
        let (SymVal::Int(n), Some(t)) = (self.eval(len)?, len.ty.as_int()) else {
            return self.unsupported("a variable-length array whose length is not an integer", len.span);
        };
        let n = c_int::resize(&n, t.signed, 64);
        if t.signed {
            self.check(n.bvsge(&BV::from_i64(self.ctx, 0, 64)), ViolationKind::OutOfBounds, len.span);
        }
        Ok(n)
    }

    /// A lane's contents: zero, or unknown (a fresh array named after `base`).
    pub(super) fn fresh_lane(&mut self, lane: u32, zeroed: bool, base: &str, span: Span) -> R<Array<'ctx>> {
        let elem = self.objects[lane as usize].elem.clone();
        let index = Sort::bitvector(self.ctx, OFF_BITS);
        if zeroed {
            let z = self.zero(&elem, span)?;
            return Ok(Array::const_array(self.ctx, &index, &Self::to_dyn(&z)));
        }
        let sort = self.elem_sort(&elem, span)?;
        let n = self.name(base);
        Ok(Array::new_const(self.ctx, n, &index, &sort))
    }

    /// A heap block's liveness lane and "it is allocated", where the block exists on this
    /// path (a pointer may name a block created on another path, which it cannot point to).
    pub(super) fn liveness(&self, o: u32) -> Option<(u32, Bool<'ctx>)> {
        let info = &self.objects[o as usize];
        if !info.heap {
            return None;
        }
        let lane = o + info.lanes.len() as u32;
        let one = BV::from_u64(self.ctx, 1, 8);
        if info.small {
            let SymVal::Int(v) = self.st.cells.get(&(lane, 0))? else { return None };
            return Some((lane, v._eq(&one)));
        }
        let arr = self.st.mem.get(&lane)?;
        let at = BV::from_u64(self.ctx, 0, OFF_BITS);
        Some((lane, arr.select(&at).as_bv().expect("liveness")._eq(&one)))
    }

    /// Sets every cell of a small object: zero, or unknown (each read until a write gives the
    /// same fresh value).
    pub(super) fn reset_cells(&mut self, o: u32, zeroed: bool, span: Span) -> R<()> {
        for lane in self.lane_ids(o) {
            let ks = self.lane_cells(lane);
            for k in ks {
                if zeroed {
                    let z = self.zero(&self.objects[lane as usize].elem.clone(), span)?;
                    self.st.cells.insert((lane, k), z);
                } else {
                    let v = self.fresh("uninit", &self.objects[lane as usize].elem.clone(), span)?;
                    self.st.cells.insert((lane, k), v);
                }
            }
        }
        Ok(())
    }

    /// Cell `k` of a small object's lane: as last written, else its initial value.
    fn cell(&mut self, lane: u32, k: u64, span: Span) -> R<SymVal<'ctx>> {
        if let Some(v) = self.st.cells.get(&(lane, k)) {
            return Ok(v.clone());
        }
        let elem = self.objects[lane as usize].elem.clone();
        let v =
            if self.objects[lane as usize].zeroed { self.zero(&elem, span)? } else { self.fresh("heap", &elem, span)? };
        self.st.cells.insert((lane, k), v.clone());
        Ok(v)
    }

    /// The cells of a small object's lane that hold its type (a struct's lanes share the cells).
    fn lane_cells(&self, lane: u32) -> Vec<u64> {
        let info = &self.objects[lane as usize];
        let per = info.cells.len().max(1) as u64;
        (0..info.len).filter(|k| info.cells[(k % per) as usize] == info.elem).collect()
    }

    /// The value at cell offset `off` of `lane`.
    pub(super) fn read_lane(&mut self, lane: u32, off: &BV<'ctx>, span: Span) -> R<SymVal<'ctx>> {
        if !self.objects[lane as usize].small {
            let arr = self.mem_array(lane, span)?;
            let cell = match off.as_u64() {
                Some(k) => self.select_known(&arr, k),
                None => arr.select(off),
            };
            return Ok(self.value_of_cell(cell, lane));
        }
        if let Some(k) = off.simplify().as_u64() {
            return self.cell(lane, k, span);
        }
        // A computed offset: the cell it selects (outside them all, the bounds check fails).
        let ks = self.lane_cells(lane);
        let Some((&last, rest)) = ks.split_last() else { return self.unsupported("an empty object", span) };
        let mut acc = self.cell(lane, last, span)?;
        for &k in rest.iter().rev() {
            let v = self.cell(lane, k, span)?;
            acc = self.ite(&off._eq(&BV::from_u64(self.ctx, k, OFF_BITS)), &v, &acc);
        }
        Ok(acc)
    }

    /// The cell `k` of the array `arr`, read through its stores at known offsets, its merges
    /// (an `ite`, or the array a merge defined: [`Exec::mem_defs`]) and constant arrays: what
    /// the solver would derive with an array axiom per store, here a value. A loop over a
    /// fixed-size array writes it a hundred times at known offsets, and a formula that left
    /// each read to the solver ran for 15 s where this one takes milliseconds.
    fn select_known(&self, arr: &Array<'ctx>, k: u64) -> Dynamic<'ctx> {
        let mut memo: HashMap<Array<'ctx>, Dynamic<'ctx>> = HashMap::new();
        self.select_known_in(arr, k, &mut memo)
    }

    fn select_known_in(
        &self,
        arr: &Array<'ctx>,
        k: u64,
        memo: &mut HashMap<Array<'ctx>, Dynamic<'ctx>>,
    ) -> Dynamic<'ctx> {
        if let Some(done) = memo.get(arr) {
            return done.clone();
        }
        let mut at = arr.clone();
        let out = loop {
            if let Some(def) = self.mem_defs.get(&at) {
                at = def.clone();
                continue;
            }
            if at.kind() != z3::AstKind::App {
                break at.select(&BV::from_u64(self.ctx, k, OFF_BITS));
            }
            let kids = at.children();
            match at.decl().kind() {
                z3::DeclKind::STORE if kids.len() == 3 => match kids[1].as_bv().and_then(|i| i.as_u64()) {
                    Some(i) if i == k => break kids[2].clone(),
                    Some(_) => at = kids[0].as_array().expect("a store's array"),
                    None => break at.select(&BV::from_u64(self.ctx, k, OFF_BITS)),
                },
                z3::DeclKind::ITE if kids.len() == 3 => {
                    let (c, a, b) = (kids[0].as_bool().expect("a condition"), &kids[1], &kids[2]);
                    let a = self.select_known_in(&a.as_array().expect("an array"), k, memo);
                    let b = self.select_known_in(&b.as_array().expect("an array"), k, memo);
                    break if a == b { a } else { c.ite(&a, &b) };
                }
                z3::DeclKind::CONST_ARRAY if kids.len() == 1 => break kids[0].clone(),
                _ => break at.select(&BV::from_u64(self.ctx, k, OFF_BITS)),
            }
        };
        memo.insert(arr.clone(), out.clone());
        out
    }

    /// Writes `v` at cell offset `off` of `lane`, where `when` holds (else keeps the cell).
    pub(super) fn write_lane(
        &mut self,
        lane: u32,
        off: &BV<'ctx>,
        v: &SymVal<'ctx>,
        when: Option<&Bool<'ctx>>,
        span: Span,
    ) -> R<()> {
        if !self.objects[lane as usize].small {
            let arr = self.mem_array(lane, span)?;
            let stored = arr.store(off, &Self::to_dyn(v));
            let new = match when {
                Some(c) => c.ite(&stored, &arr),
                None => stored,
            };
            self.st.mem.insert(lane, new);
            return Ok(());
        }
        let ks = match off.simplify().as_u64() {
            Some(k) => vec![(k, None)],
            None => self
                .lane_cells(lane)
                .into_iter()
                .map(|k| (k, Some(off._eq(&BV::from_u64(self.ctx, k, OFF_BITS)))))
                .collect(),
        };
        for (k, at) in ks {
            let cond = match (when, at) {
                (None, None) => None,
                (Some(c), None) => Some(c.clone()),
                (None, Some(a)) => Some(a),
                (Some(c), Some(a)) => Some(Bool::and(self.ctx, &[c, &a])),
            };
            let new = match cond {
                None => v.clone(),
                Some(c) => {
                    let old = self.cell(lane, k, span)?;
                    self.ite(&c, v, &old)
                }
            };
            self.st.cells.insert((lane, k), new);
        }
        Ok(())
    }

    /// The lanes of object `o` (its liveness lane not included).
    pub(super) fn lane_ids(&self, o: u32) -> std::ops::Range<u32> {
        o..o + self.objects[o as usize].lanes.len() as u32
    }

    /// The lane of object `o` that holds values of the scalar type `ty`.
    pub(super) fn lane(&self, o: u32, ty: &Type) -> Option<u32> {
        let info = &self.objects[o as usize];
        info.lanes.iter().position(|t| t == leaf(ty)).map(|i| o + i as u32)
    }

    /// The object's length in cells.
    pub(super) fn len_bv(&self, o: u32) -> BV<'ctx> {
        let info = &self.objects[o as usize];
        match &info.size {
            Some(s) => s.clone(),
            None => BV::from_u64(self.ctx, info.len, OFF_BITS),
        }
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
        let name = self.p.var(key.1).name.clone();
        if !self.objects[o as usize].small {
            for lane in self.lane_ids(o) {
                let arr = self.fresh_lane(lane, false, &name, span)?;
                self.st.mem.insert(lane, arr);
            }
        }
        Ok(o)
    }

    pub(super) fn to_dyn(v: &SymVal<'ctx>) -> Dynamic<'ctx> {
        match v {
            SymVal::Int(b) => Dynamic::from_ast(b),
            SymVal::Float(f) => f.clone(),
            SymVal::Ptr(p) => Dynamic::from_ast(&p.obj.concat(&p.off)),
            SymVal::Void => unreachable!("only scalars live in memory"),
        }
    }

    /// A value read from `lane`: a pointer lane's value points to what was stored there.
    pub(super) fn value_of_cell(&self, d: Dynamic<'ctx>, lane: u32) -> SymVal<'ctx> {
        if matches!(self.objects[lane as usize].elem, Type::Pointer(_)) {
            let b = d.as_bv().expect("a pointer cell");
            let stored = self.stored_ptrs.get(&lane).cloned().unwrap_or_default();
            let off = if stored.inside { b.extract(OFF_BITS - 1, 0) } else { BV::from_u64(self.ctx, 0, OFF_BITS) };
            return SymVal::Ptr(SymPtr { obj: b.extract(PTR_BITS - 1, OFF_BITS), off, targets: stored.targets });
        }
        // In the opaque float model a float is its bits: the lane's type tells them apart.
        if d.as_float().is_some() || matches!(super::leaf(&self.objects[lane as usize].elem), Type::Float(_)) {
            SymVal::Float(d)
        } else if let Some(b) = d.as_bv() {
            SymVal::Int(b)
        } else {
            unreachable!("memory holds bit-vectors and floats")
        }
    }

    /// Records the checks of an access through `ptr`, in the interpreter's order: a null
    /// pointer, then a freed block, then the bounds. A pointer the verifier knows no object
    /// of is null (or never set, which the interpreter reports first).
    pub(super) fn check_access(&mut self, ptr: &SymPtr<'ctx>, span: Span) {
        if !self.check_live(ptr, span) {
            return;
        }
        let ctx = self.ctx;
        let is = |o: u32| ptr.obj._eq(&BV::from_u64(ctx, o as u64, OBJ_BITS));
        let within = |x: &Self, o: u32| ptr.off.bvult(&x.len_bv(o));
        let ok = if ptr.targets.len() == 1 {
            let o = ptr.targets[0];
            // A constant offset into a fixed object (a scalar, `a[2]`) is decided here.
            match (ptr.off.as_u64(), self.objects[o as usize].size.is_none()) {
                (Some(off), true) => Bool::from_bool(ctx, off < self.objects[o as usize].len),
                _ => within(self, o),
            }
        } else {
            let parts: Vec<Bool<'ctx>> =
                ptr.targets.iter().map(|&o| Bool::and(ctx, &[&is(o), &within(self, o)])).collect();
            let refs: Vec<&Bool<'ctx>> = parts.iter().collect();
            Bool::or(ctx, &refs)
        };
        self.check(ok, ViolationKind::OutOfBounds, span);
    }

    /// The checks of [`Exec::check_access`] but the bounds: the pointer is not null and its
    /// block not freed. False when the pointer is known to be null (the path ends here).
    pub(super) fn check_live(&mut self, ptr: &SymPtr<'ctx>, span: Span) -> bool {
        let ctx = self.ctx;
        let is = |o: u32| ptr.obj._eq(&BV::from_u64(ctx, o as u64, OBJ_BITS));
        if ptr.targets.is_empty() {
            self.check(Bool::from_bool(ctx, false), ViolationKind::NullDereference, span);
            return false;
        }
        if ptr.obj.simplify().as_u64().is_none_or(|o| o == 0) {
            self.check(is(0).not(), ViolationKind::NullDereference, span);
        }
        let mut alive = Vec::new();
        for &o in &ptr.targets {
            if let Some((_, live)) = self.liveness(o) {
                alive.push(if ptr.targets.len() == 1 { live } else { is(o).implies(&live) });
            }
        }
        if !alive.is_empty() {
            let refs: Vec<&Bool<'ctx>> = alive.iter().collect();
            self.check(Bool::and(ctx, &refs), ViolationKind::UseAfterFree, span);
        }
        true
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
            Place::Mem { ptr, ty } => self.load_mem(ptr, &ty, e.span),
        }
    }

    /// Reads a value of type `ty` at `ptr`. An array or a struct is not read: its address
    /// stands for it (an array decays; a struct is copied cell by cell where it is stored).
    pub(super) fn load_mem(&mut self, ptr: SymPtr<'ctx>, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        if matches!(ty, Type::Array(..) | Type::Struct(_)) {
            return Ok(SymVal::Ptr(ptr));
        }
        self.access_type_ok(&ptr, ty, span)?;
        self.check_access(&ptr, span);
        let mut acc: Option<SymVal<'ctx>> = None;
        for &o in ptr.targets.iter().rev() {
            let lane = self.lane(o, ty).expect("checked by access_type_ok");
            let v = self.read_lane(lane, &ptr.off, span)?;
            acc = Some(match acc {
                None => v,
                Some(rest) => {
                    let c = ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS));
                    self.ite(&c, &v, &rest)
                }
            });
        }
        match acc {
            Some(v) => Ok(v),
            // A null pointer: the path ended at the check above.
            None => self.fresh("null", ty, span),
        }
    }

    /// Every object `ptr` may point to holds values of type `ty` (where the offset is known,
    /// at that very cell).
    pub(super) fn access_type_ok(&self, ptr: &SymPtr<'ctx>, ty: &Type, span: Span) -> R<()> {
        for &o in &ptr.targets {
            if self.lane(o, ty).is_none() {
                return self.unsupported("an access to memory through a pointer of another type", span);
            }
            let cells = &self.objects[o as usize].cells;
            if let Some(off) = ptr.off.as_u64()
                && cells.len() > 1
                && cells[(off % cells.len() as u64) as usize] != *leaf(ty)
            {
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
            Place::Mem { ptr, ty } => self.store_mem(ptr, &ty, v, span),
        }
    }

    pub(super) fn store_mem(&mut self, ptr: SymPtr<'ctx>, ty: &Type, v: SymVal<'ctx>, span: Span) -> R<()> {
        if matches!(ty, Type::Array(..)) {
            return self.unsupported("assignment of a whole array", span);
        }
        if let Type::Struct(_) = ty {
            let SymVal::Ptr(src) = v else { return self.unsupported("a struct value the verifier cannot track", span) };
            return self.copy_cells(ptr, src, ty, span);
        }
        if ptr.targets.iter().any(|o| self.literal_objs.values().any(|l| l == o)) {
            return self.unsupported("a write through a pointer that may point into a string literal", span);
        }
        self.access_type_ok(&ptr, ty, span)?;
        self.check_access(&ptr, span);
        let many = ptr.targets.len() > 1;
        for &o in &ptr.targets {
            let lane = self.lane(o, ty).expect("checked by access_type_ok");
            if let SymVal::Ptr(p) = &v {
                let known = self.stored_ptrs.entry(lane).or_default();
                for t in &p.targets {
                    if !known.targets.contains(t) {
                        known.targets.push(*t);
                    }
                }
                known.targets.sort();
                known.inside |= p.off.simplify().as_u64() != Some(0);
            }
            let is = ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS));
            self.write_lane(lane, &ptr.off, &v, many.then_some(&is), span)?;
        }
        Ok(())
    }

    /// `*dst = *src` for a struct type `ty`: every cell read, then every cell written.
    pub(super) fn copy_cells(&mut self, dst: SymPtr<'ctx>, src: SymPtr<'ctx>, ty: &Type, span: Span) -> R<()> {
        let mut cells = Vec::new();
        if cell_types(self.p, ty, &mut cells).is_none() {
            return self.unsupported("a copy of a struct of unknown size", span);
        }
        let at = |p: &SymPtr<'ctx>, i: usize| SymPtr {
            off: p.off.bvadd(&BV::from_u64(self.ctx, i as u64, OFF_BITS)),
            ..p.clone()
        };
        let mut vals = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            vals.push(self.load_mem(at(&src, i), c, span)?);
        }
        for (i, (c, v)) in cells.iter().zip(vals).enumerate() {
            self.store_mem(at(&dst, i), c, v, span)?;
        }
        Ok(())
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
                let Some(scale) = leaf_count(self.p, &e.ty) else {
                    return self.unsupported("arrays of unknown size", e.span);
                };
                let iv = c_int::resize(&iv, it.signed, OFF_BITS);
                let off = p.off.bvadd(&iv.bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS)));
                // A known offset (`a[i]` with `i` counted from 0) as a numeral: the bounds check
                // is then decided here and the array is written at a constant index, which a
                // loop over a fixed-size array does a hundred times.
                let off = match off.simplify() {
                    known if known.as_u64().is_some() => known,
                    _ => off,
                };
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
                        // Literals never change: keep their contents in every state from here on.
                        self.st.mem.insert(o, self.bytes_then_zeros(bytes));
                        self.literal_objs.insert(key, o);
                        o
                    }
                };
                Ok(Place::Mem { ptr: self.obj_ptr(o), ty: e.ty.clone() })
            }
            ExprKind::Member { base, field, arrow } => {
                let ptr = if *arrow {
                    let SymVal::Ptr(p) = self.eval(base)? else {
                        return self.unsupported("`->` on a non-pointer", e.span);
                    };
                    p
                } else {
                    match self.place(base)? {
                        Place::Mem { ptr, .. } => ptr,
                        Place::Var(_) => return self.unsupported("a member of a struct held in no memory", e.span),
                    }
                };
                let sty = if *arrow { base.ty.pointee() } else { Some(&base.ty) };
                let Some(Type::Struct(id)) = sty else { return self.unsupported("a member of a non-struct", e.span) };
                let Some(cells) = field_cells(self.p, *id, *field) else {
                    return self.unsupported("a member of a struct of unknown size", e.span);
                };
                let off = ptr.off.bvadd(&BV::from_u64(self.ctx, cells, OFF_BITS));
                Ok(Place::Mem { ptr: SymPtr { off, ..ptr }, ty: e.ty.clone() })
            }
            _ => self.unsupported("this kind of lvalue", e.span),
        }
    }
}
