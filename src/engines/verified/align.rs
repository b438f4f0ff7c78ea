//! Variable alignment (Verifix, Section 4.2): each variable's usage on every aligned edge, a
//! distance between usage sets per edge, their average over the edges, and a one-to-one
//! matching by smallest distance. Parameters are aligned by position (the signature fixes
//! them).

use std::collections::{BTreeMap, HashMap};

use crate::ir::cfa::Node;
use crate::ir::{Program, Type, VarId};
use crate::smt::region::Usage;

/// Usage counts per node, per variable.
pub type UsageTable = BTreeMap<Node, HashMap<VarId, BTreeMap<Usage, u32>>>;

pub fn table(regions: &[(Node, &[(VarId, Usage)])]) -> UsageTable {
    let mut t = UsageTable::new();
    for (node, usage) in regions {
        let per = t.entry(*node).or_default();
        for (v, u) in usage.iter() {
            *per.entry(*v).or_default().entry(*u).or_default() += 1;
        }
    }
    t
}

/// Δ(usage(x, e), usage(x', e)): the share of occurrences that differ in kind (0 = the same
/// multiset of usages, 1 = nothing in common; 0 when neither occurs).
pub fn distance(a: Option<&BTreeMap<Usage, u32>>, b: Option<&BTreeMap<Usage, u32>>) -> f64 {
    let empty = BTreeMap::new();
    let (a, b) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
    let total: u32 = a.values().sum::<u32>() + b.values().sum::<u32>();
    if total == 0 {
        return 0.0;
    }
    let keys: std::collections::BTreeSet<&Usage> = a.keys().chain(b.keys()).collect();
    let diff: u32 = keys.iter().map(|k| a.get(*k).copied().unwrap_or(0).abs_diff(b.get(*k).copied().unwrap_or(0))).sum();
    diff as f64 / total as f64
}

/// One program's variables as the alignment sees them.
pub struct Vars<'a> {
    pub program: &'a Program,
    pub vars: &'a [VarId],
    pub params: &'a [VarId],
    pub usage: &'a UsageTable,
}

/// The alignment: reference variable → student variable. Reference variables left without a
/// partner (the student has fewer) are absent.
pub fn align(r: &Vars<'_>, s: &Vars<'_>) -> BTreeMap<VarId, VarId> {
    let (reference, ref_vars, ref_params, ref_usage) = (r.program, r.vars, r.params, r.usage);
    let (student, stu_vars, stu_params, stu_usage) = (s.program, s.vars, s.params, s.usage);
    let mut out = BTreeMap::new();
    for (r, s) in ref_params.iter().zip(stu_params) {
        out.insert(*r, *s);
    }
    let nodes: Vec<&Node> = ref_usage.keys().collect();
    let n = nodes.len().max(1) as f64;
    let mut pairs: Vec<(f64, VarId, VarId)> = Vec::new();
    for &r in ref_vars.iter().filter(|r| !ref_params.contains(r)) {
        for &s in stu_vars.iter().filter(|s| !stu_params.contains(s)) {
            let (rt, st) = (&reference.var(r).ty, &student.var(s).ty);
            if !compatible(rt, st) {
                continue;
            }
            let mut d: f64 = nodes
                .iter()
                .map(|node| distance(ref_usage[*node].get(&r), stu_usage.get(*node).and_then(|m| m.get(&s))))
                .sum::<f64>()
                / n;
            if rt != st {
                d += 0.5;
            }
            if reference.var(r).name == student.var(s).name {
                d -= 0.1;
            }
            pairs.push((d, r, s));
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut used: Vec<VarId> = out.values().copied().collect();
    for (_, r, s) in pairs {
        if out.contains_key(&r) || used.contains(&s) {
            continue;
        }
        out.insert(r, s);
        used.push(s);
    }
    out
}

fn compatible(a: &Type, b: &Type) -> bool {
    a.is_arithmetic() && b.is_arithmetic()
}
