//! Local arrays of constant length as Z3 arrays: element reads, writes and bounds checks.

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    /// The local array of constant length `base` names (`fgets(a, ...)`, `strcpy(a, ...)`):
    /// its variable, elements and length.
    pub(super) fn array_of(&self, base: &Expr, st: &State<'ctx>) -> R<(VarId, Array<'ctx>, IntType, u64, Deps)> {
        match self.any_array_of(base, st)? {
            (v, a, t, Len::Fixed(n), deps) => Ok((v, a, t, n, deps)),
            (_, _, _, Len::Runtime(_), _) => unsupported("a variable-length array used as a string", base.span),
        }
    }

    /// The local array `base` names (`a` in `a[i]`), of any length.
    fn any_array_of(&self, base: &Expr, st: &State<'ctx>) -> R<(VarId, Array<'ctx>, IntType, Len<'ctx>, Deps)> {
        let inner = base.strip_implicit();
        if let ExprKind::Var(v) = inner.kind
            && let Some(Val { term: Term::Array(a, t, n), deps }) = st.vars.get(&v)
        {
            return Ok((v, a.clone(), *t, n.clone(), deps.clone()));
        }
        let what = match &inner.ty {
            Type::Array(_, None) => "an array of unknown length",
            Type::Array(..) => "an array that is not a local variable",
            _ => "a pointer",
        };
        unsupported(what, base.span)
    }

    /// The array a `scanf` string conversion (`%s`, `%[`) reads into: [`Self::array_of`], also
    /// through the `&` students write before it (`scanf("%s", &word)`: the same address, which
    /// is where `scanf` writes; the type checker warns about it).
    pub(super) fn string_target(&self, arg: &Expr, st: &State<'ctx>) -> R<(VarId, Array<'ctx>, IntType, u64, Deps)> {
        match &arg.strip_implicit().kind {
            ExprKind::AddrOf(array) if matches!(array.strip_implicit().ty, Type::Array(..)) => self.array_of(array, st),
            _ => self.array_of(arg, st),
        }
    }

    /// The element `base[idx]` addresses: the array variable and the 32-bit index. An index
    /// outside `0..length` is a runtime error under `g`. With `stepped`, the index may be `i++`
    /// (or `++i`, `i--`, `--i`): the caller has checked that nothing else in the expression
    /// reads or writes `i`.
    pub(super) fn element(
        &mut self,
        base: &'p Expr,
        idx: &'p Expr,
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
        span: Span,
        stepped: bool,
    ) -> R<(VarId, Elem<'ctx>)> {
        // `a[i][j]`: the row `a[i]` starts `i` rows in; the element is `j` after it.
        let (row, array) = match &base.strip_implicit().kind {
            ExprKind::Row { array, index, len } => (Some(self.runtime_row_start(index, *len, st, g)?), &**array),
            ExprKind::Index(outer, k) => {
                let start = self.row_start(outer, k, st, g)?;
                let mut root = outer.strip_implicit();
                while let ExprKind::Index(b, _) = &root.kind {
                    root = b.strip_implicit();
                }
                (Some(start), root)
            }
            _ => (None, base),
        };
        let (v, _, _, n, len_deps) = self.any_array_of(array, st)?;
        if has_effects(idx) && !((stepped || self.sequenced_step(idx)) && index_step(idx).is_some()) {
            return unsupported("side effects in an array index", idx.span);
        }
        let mut i = self.eval(idx, st, g)?;
        let Term::Int(b, t) = &i.term else { return unsupported("a floating point array index", idx.span) };
        let mut wide = c_int::resize(b, t.signed, 64);
        if let Some((deps, start)) = row {
            wide = start.bvadd(&wide);
            i.deps.extend(deps);
        }
        let ok = Bool::and(self.ctx, &[&wide.bvsge(&BV::from_i64(self.ctx, 0, 64)), &wide.bvslt(&n.as_bv(self.ctx))]);
        let mut deps = i.deps.clone();
        if matches!(n, Len::Runtime(_)) {
            // Whether the index is within a variable-length array depends on its length.
            deps.extend(len_deps);
        }
        self.error(Bool::and(self.ctx, &[g, &ok.not()]), deps, span);
        Ok((v, Elem { index: wide.extract(31, 0).simplify(), deps: i.deps }))
    }

    /// Where the row `outer[k]` of a local array of arrays starts, counted in elements (64
    /// bits), and what that depends on: `k` rows of the row type's elements in, after the
    /// start of `outer` (itself a row, for arrays of three dimensions).
    fn row_start(&mut self, outer: &'p Expr, k: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Deps, BV<'ctx>)> {
        let Some(row_ty) = outer.strip_implicit().ty.pointee().cloned() else {
            return unsupported("indexing something that is not an array", outer.span);
        };
        let Some((_, per)) = flat_elements(&row_ty) else {
            return unsupported(format!("an array of `{}`", self.setup.program.type_name(&row_ty)), outer.span);
        };
        let (mut deps, start) = match &outer.strip_implicit().kind {
            ExprKind::Index(o, kk) => self.row_start(o, kk, st, g)?,
            _ => (Deps::new(), BV::from_u64(self.ctx, 0, 64)),
        };
        let (k_deps, k) = self.row_index(k, st, g)?;
        deps.extend(k_deps);
        Ok((deps, start.bvadd(&k.bvmul(&BV::from_u64(self.ctx, per, 64)))))
    }

    /// A row's index `k`, 64 bits wide, and what it depends on.
    fn row_index(&mut self, k: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Deps, BV<'ctx>)> {
        if has_effects(k) {
            return unsupported("side effects in an array index", k.span);
        }
        let i = self.eval(k, st, g)?;
        let Term::Int(b, t) = &i.term else { return unsupported("a floating point array index", k.span) };
        Ok((i.deps, c_int::resize(b, t.signed, 64)))
    }

    /// Where row `k` of an array with rows of runtime length starts (`a[k]` with
    /// `int a[n][m]`): `k` times the row length held in `len`, in elements (64 bits).
    fn runtime_row_start(
        &mut self,
        k: &'p Expr,
        len: VarId,
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<(Deps, BV<'ctx>)> {
        let (mut deps, rows) = self.row_index(k, st, g)?;
        let Some(Val { term: Term::Int(m, mt), deps: m_deps }) = st.vars.get(&len).cloned() else {
            return unsupported("a row length mend cannot follow", k.span);
        };
        self.use_var(len, Usage::Read);
        deps.extend(m_deps);
        Ok((deps, rows.bvmul(&c_int::resize(&m, mt.signed, 64))))
    }

    /// `idx` is `i++` (or `++i`, `i--`, `--i`) in a full expression whose other mentions of
    /// `i` are all sequenced before or after the step: in another operand of `&&`, `||` or
    /// `,`, or across the condition of `?:` (`s[i] != '\n' && s[i++] != EOF`, where the left
    /// side reads `i` before the step). Unsequenced beside it (`s[i++] != s[i]`), C leaves the
    /// order open and the program has no single meaning; with no other mention
    /// (`s[i++] != s[j--]`), no order matters.
    fn sequenced_step(&self, idx: &Expr) -> bool {
        let (Some(v), Some(body)) = (index_step(idx), self.setup.program.func(self.setup.func).body.as_ref()) else {
            return false;
        };
        let mut sequenced = None;
        crate::ir::walk::full_exprs(body, &mut |full| {
            if let Some(unsequenced) = unsequenced_mention(full, idx, v) {
                sequenced = Some(!unsequenced);
            }
        });
        sequenced == Some(true)
    }

    /// Stores `x` at `at` in array `v`.
    pub(super) fn store(&mut self, v: VarId, at: &Elem<'ctx>, x: &Val<'ctx>, st: &mut State<'ctx>) {
        let Some(Val { term: Term::Array(a, t, n), deps }) = st.vars.get(&v) else { unreachable!("an array") };
        let Term::Int(b, _) = &x.term else { unreachable!("an integer element") };
        let mut deps = Self::union(deps, &at.deps);
        deps.extend(x.deps.iter().copied());
        let term = Term::Array(a.store(&at.index, b), *t, n.clone());
        self.use_var(v, Usage::Written);
        st.vars.insert(v, Val { term, deps });
    }

    /// `a[i] = e`, `a[i] op= e`, `a[i]++`: the expression's value, the element updated. Not a
    /// repair site.
    pub(super) fn update_element(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let lhs = match &e.kind {
            ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => lhs,
            _ => unreachable!("an update"),
        };
        let ExprKind::Index(base, idx) = &lhs.strip_implicit().kind else { unreachable!("an element") };
        let right = match &e.kind {
            ExprKind::Assign(_, r) | ExprKind::CompoundAssign { rhs: r, .. } => Some(&**r),
            _ => None,
        };
        // `a[i++] = e`: well defined when `e` neither reads nor writes `i`.
        let stepped = index_step(idx)
            .is_some_and(|i| right.is_none_or(|r| !has_effects(r) && !crate::ir::walk::mentions_var(r, i)));
        // The right side first (gcc's order for a plain assignment; the index has no effects,
        // or only a step of a variable the right side does not touch).
        let rhs = right.map(|r| self.eval(r, st, g)).transpose()?;
        let (v, at) = self.element(base, idx, st, g, lhs.span, stepped)?;
        let Some(Val { term: Term::Array(a, t, _), deps }) = st.vars.get(&v) else { unreachable!("an array") };
        let (t, elem_ty) = (*t, Type::Int(*t));
        let old =
            self.int_val(a.select(&at.index).as_bv().expect("a bit-vector element"), t, Self::union(deps, &at.deps));
        let (new, value) = match &e.kind {
            ExprKind::Assign(..) => {
                let x = self.convert(rhs.expect("a right side"), &elem_ty, e.span)?;
                (x.clone(), x)
            }
            ExprKind::CompoundAssign { op, op_ty, .. } => {
                let l = self.convert(old, op_ty, lhs.span)?;
                let combined = self.binary(*op, &l, &rhs.expect("a right side"), g, e.span)?;
                let x = self.convert(combined, &elem_ty, e.span)?;
                (x.clone(), x)
            }
            ExprKind::IncDec(kind, _) => {
                let Term::Int(x, _) = &old.term else { unreachable!() };
                let one = c_int::constant(self.ctx, t, 1);
                let n = match kind {
                    IncDec::PreInc | IncDec::PostInc => c_int::add(x, &one),
                    IncDec::PreDec | IncDec::PostDec => c_int::sub(x, &one),
                };
                let new = self.int_val(n, t, old.deps.clone());
                let value = if matches!(kind, IncDec::PostInc | IncDec::PostDec) { old } else { new.clone() };
                (new, value)
            }
            _ => unreachable!(),
        };
        self.store(v, &at, &new, st);
        Ok(value)
    }
}

/// An array element and the index that addresses it.
pub(super) struct Elem<'ctx> {
    pub(super) index: BV<'ctx>,
    pub(super) deps: Deps,
}

/// In `e`, which holds the step `idx` of `v`: whether some mention of `v` other than the step
/// is unsequenced with it (`None`: `idx` is not in `e`). Below a sequence point (`&&`, `||`,
/// `,`, `?:` after its condition) only the operand that holds the step is looked into; every
/// other operator's other operands count whole. The step is found by its place in the text:
/// the executor may run a copy of the function's expression (a loop's exit condition).
fn unsequenced_mention(e: &Expr, idx: &Expr, v: VarId) -> Option<bool> {
    use crate::ir::walk::{children, mentions_var, walk_expr};
    let is_step = |x: &Expr| x.span == idx.span && index_step(x) == Some(v);
    if is_step(e) {
        return Some(false);
    }
    let holds = |k: &Expr| {
        let mut found = false;
        walk_expr(k, &mut |x| found |= is_step(x));
        found
    };
    let kids = children(e);
    let at = kids.iter().position(|k| holds(k))?;
    let below = unsequenced_mention(kids[at], idx, v)?;
    if matches!(e.kind, ExprKind::Logical(..) | ExprKind::Comma(..) | ExprKind::Cond(..)) {
        return Some(below);
    }
    Some(below || kids.iter().enumerate().any(|(i, k)| i != at && mentions_var(k, v)))
}

/// The variable an index `i++`, `++i`, `i--` or `--i` steps.
fn index_step(idx: &Expr) -> Option<VarId> {
    match &idx.strip_implicit().kind {
        ExprKind::IncDec(_, x) => match x.strip_implicit().kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// An assignment, `op=` or `++`/`--` whose target is an array element.
pub(super) fn element_update(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => {
            matches!(lhs.strip_implicit().kind, ExprKind::Index(..))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a mention of the stepped variable that no sequence point orders with the step
    /// is in each loop condition of `body` (`None`: the condition has no step in an index).
    fn unsequenced_in_conditions(body: &str) -> Vec<Option<bool>> {
        let src = format!("int main(void) {{ char s[9] = \"ab.\"; int i = 0, n = 0; {body} return n; }}");
        let program = crate::syntax::lower::lower_source(&src).program;
        let main = program.func(program.func_by_name("main").expect("main")).body.as_ref().expect("a body");
        let mut out = Vec::new();
        crate::ir::walk::for_each_stmt(main, &mut |s| {
            if let StmtKind::While { cond, .. } = &s.kind {
                let mut step = None;
                crate::ir::walk::walk_expr(cond, &mut |x| {
                    if let ExprKind::Index(_, idx) = &x.kind
                        && index_step(idx).is_some()
                    {
                        step = Some((**idx).clone());
                    }
                });
                out.push(step.and_then(|idx| unsequenced_mention(cond, &idx, index_step(&idx)?)));
            }
        });
        out
    }

    #[test]
    fn a_step_in_an_index_is_sequenced_only_across_and_or_comma_and_the_condition_of_a_choice() {
        assert_eq!(
            unsequenced_in_conditions(
                "while (s[i] != 0 && s[i++] != '.') n++;
                 while (s[i++] != s[n]) n++;
                 while (s[i++] != s[i]) n++;
                 while (s[i] == 'a' || i + s[i++] > 0) n++;
                 while ((n = i, s[i++])) n++;
                 while (i > 3 ? s[i++] : 0) n++;"
            ),
            vec![Some(false), Some(false), Some(true), Some(true), Some(false), Some(false)]
        );
    }
}
