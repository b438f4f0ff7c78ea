//! Merging states (guarded SSA's phi): two disjoint paths, or a hole's alternatives.

use super::*;

/// Merges two states whose guards are disjoint (each where its own guard holds).
pub(super) fn merge_disjoint<'ctx>(a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let c = a.guard.clone();
            merge_states(&c, Some(a), Some(b))
        }
        (a, b) => a.or(b),
    }
}

/// Merges two states under condition `c` (`a` where it holds, `b` where not; guarded SSA's
/// phi): also how the exits into one node become one edge's state.
pub fn merge_states<'ctx>(c: &Bool<'ctx>, a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => return a.or(b),
    };
    let mut vars = BTreeMap::new();
    for (v, va) in &a.vars {
        let vb = &b.vars[v];
        vars.insert(*v, ite_val(c, &a.guard_deps, va, vb));
    }
    let ret = match (&a.ret, &b.ret) {
        (Some(x), Some(y)) => Some(ite_val(c, &a.guard_deps, x, y)),
        (x, y) => x.clone().or(y.clone()),
    };
    let mut guard_deps = a.guard_deps.clone();
    guard_deps.extend(b.guard_deps.iter().copied());
    Some(State {
        guard: Bool::or(c.get_ctx(), &[&a.guard, &b.guard]).simplify(),
        guard_deps,
        vars,
        ret,
        in_pos: c.ite(&a.in_pos, &b.in_pos).simplify(),
        at_ws: c.ite(&a.at_ws, &b.at_ws).simplify(),
    })
}

pub(super) fn ite_val<'ctx>(c: &Bool<'ctx>, cdeps: &Deps, a: &Val<'ctx>, b: &Val<'ctx>) -> Val<'ctx> {
    if a.term.same(&b.term) {
        return a.clone();
    }
    let term = match (&a.term, &b.term) {
        (Term::Int(x, t), Term::Int(y, _)) => Term::Int(c.ite(x, y), *t),
        (Term::Float(x, k), Term::Float(y, _)) => Term::Float(c.ite(x, y), *k),
        (Term::Array(x, t, Len::Runtime(n)), Term::Array(y, _, Len::Runtime(m))) => {
            Term::Array(c.ite(x, y), *t, Len::Runtime(c.ite(n, m)))
        }
        (Term::Array(x, t, n), Term::Array(y, _, _)) => Term::Array(c.ite(x, y), *t, n.clone()),
        _ => a.term.clone(),
    };
    let mut deps = a.deps.clone();
    deps.extend(b.deps.iter().copied());
    deps.extend(cdeps.iter().copied());
    Val { term, deps }
}

pub(super) fn same_vars(a: &BTreeMap<VarId, Val<'_>>, b: &BTreeMap<VarId, Val<'_>>) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| w.term.same(&v.term)))
}
