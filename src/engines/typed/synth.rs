//! Algorithm 1: the best N expressions of a type within a cost bound.
//!
//! The cheapest cost of every type is computed first (Knuth's generalisation of Dijkstra to a
//! graph whose function nodes need all their argument types), then the cheapest distance from
//! every type to the goal over the reversed graph. The types that can take part are explored
//! farthest first, each with the budget its distance leaves, so that `get` (GetExpressions)
//! finds what it needs in `snips` instead of recomputing it; `get` itself enumerates, for each
//! function producing the type whose cheapest instance fits the budget, the best combinations
//! of its arguments' candidates, and keeps the N best.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::rc::Rc;

use super::graph::{node_prec, FnKind, Graph};
use super::types::{Ty, TyKind, Types};

const INF: u32 = u32::MAX / 4;

/// Extra cost when a candidate uses the same reinforced subexpression twice: the paper's
/// "it will favor using multiple, distinct subexpressions".
const REUSE_PENALTY: u32 = 10;

#[derive(Clone, Debug)]
pub struct Cand {
    pub cost: u32,
    pub text: Rc<str>,
    pub prec: u8,
    pub node: u32,
    /// The type the candidate produces (its root node's).
    pub ty: Ty,
    pub args: Rc<[Cand]>,
    /// Reinforced subexpressions used (bit per reinforced node).
    pub mask: u64,
}

pub struct Synth<'g> {
    g: &'g Graph,
    types: &'g Types,
    /// Candidates kept per type.
    n: usize,
    pub minc: Vec<u32>,
    snips: HashMap<Ty, (u32, Vec<Cand>)>,
    /// (type, budget) pairs being computed: a cycle of zero-cost edges ends here.
    busy: HashSet<(Ty, u32)>,
    /// Repair: the bits of the repaired node's own arguments (each with its parts) in their
    /// order; a call or operator that puts one in another position pays `ORDER_PENALTY`.
    pub order: Vec<u64>,
    /// Repair: the callee of the repaired call and a bit for it, so that a candidate calling
    /// it twice (`f(f(a, b), c)` for `f(a, b, c)`) pays like any reused part.
    pub callee: Option<(String, u8)>,
}

/// Combinations of argument candidates tried per function node and budget.
const MAX_COMBINATIONS: usize = 200;

/// Cost of moving one of the student's arguments to another position.
pub const ORDER_PENALTY: u32 = 2;

impl<'g> Synth<'g> {
    pub fn new(g: &'g Graph, types: &'g Types, n: usize) -> Synth<'g> {
        let minc = min_costs(g, types.len());
        Synth { g, types, n, minc, snips: HashMap::new(), busy: HashSet::new(), order: Vec::new(), callee: None }
    }

    /// Algorithm 1: up to N expressions of type `tau` costing at most `cmax`, cheapest first.
    pub fn synthesize(&mut self, tau: Ty, cmax: u32) -> Vec<Cand> {
        self.prepare(tau, cmax);
        self.get(tau, cmax)
    }

    /// Algorithm 1 with up to `wide` results at the goal type (the arguments still from the
    /// N best of their types): repair ranks the goal's candidates by more than their cost.
    pub fn synthesize_wide(&mut self, tau: Ty, cmax: u32, wide: usize) -> Vec<Cand> {
        self.prepare(tau, cmax);
        let g = self.g;
        let mut results = Vec::new();
        if self.minc[tau.0 as usize] <= cmax {
            for &f in &g.producers[tau.0 as usize] {
                self.expand(f, cmax, &mut results);
            }
        }
        results.sort_by(|a, b| (a.cost, &a.text).cmp(&(b.cost, &b.text)));
        let mut seen = HashSet::new();
        results.retain(|c| seen.insert((c.text.clone(), c.mask)));
        results.truncate(wide);
        results
    }

    /// The first part of Algorithm 1: the types that can take part, farthest first, each
    /// computed with the budget its distance to `tau` leaves.
    fn prepare(&mut self, tau: Ty, cmax: u32) {
        let dist = self.distances_to(tau);
        let mut order: Vec<usize> = (0..dist.len())
            .filter(|&t| dist[t] < INF && self.minc[t] < INF && dist[t] + self.minc[t] <= cmax)
            .collect();
        order.sort_by_key(|&t| (Reverse(dist[t]), t));
        for t in order {
            self.get(Ty(t as u32), cmax - dist[t]);
        }
    }

    /// Cheapest cost of an expression "around" each type that yields `tau`.
    fn distances_to(&self, tau: Ty) -> Vec<u32> {
        let mut dist = vec![INF; self.minc.len()];
        let mut heap = BinaryHeap::new();
        dist[tau.0 as usize] = 0;
        heap.push(Reverse((0u32, tau.0)));
        while let Some(Reverse((d, t))) = heap.pop() {
            if d > dist[t as usize] {
                continue;
            }
            for &f in &self.g.producers[t as usize] {
                let node = &self.g.fns[f as usize];
                let all: u32 = node.params.iter().map(|p| self.minc[p.0 as usize]).fold(0, |a, b| a.saturating_add(b));
                if all >= INF {
                    continue;
                }
                let base = d + node.cost + all;
                for p in &node.params {
                    let nd = base - self.minc[p.0 as usize];
                    if nd < dist[p.0 as usize] {
                        dist[p.0 as usize] = nd;
                        heap.push(Reverse((nd, p.0)));
                    }
                }
            }
        }
        dist
    }

    /// GetExpressions: the N best expressions of type `tau` costing at most `budget`.
    pub fn get(&mut self, tau: Ty, budget: u32) -> Vec<Cand> {
        if let Some((b, found)) = self.snips.get(&tau)
            && *b >= budget
        {
            return found.iter().filter(|c| c.cost <= budget).cloned().collect();
        }
        if !self.busy.insert((tau, budget)) {
            return Vec::new();
        }
        let mut results: Vec<Cand> = Vec::new();
        let g = self.g;
        if self.minc[tau.0 as usize] <= budget {
            for &f in &g.producers[tau.0 as usize] {
                self.expand(f, budget, &mut results);
            }
        }
        results.sort_by(|a, b| (a.cost, &a.text).cmp(&(b.cost, &b.text)));
        // Same text from other parts is kept: which reinforced parts it uses matters later.
        let mut seen = HashSet::new();
        results.retain(|c| seen.insert((c.text.clone(), c.mask)));
        self.keep_best(&mut results);
        self.busy.remove(&(tau, budget));
        self.snips.insert(tau, (budget, results.clone()));
        results
    }

    /// Keeps the N best of `results` (sorted), and besides them the best candidate using each
    /// of the student's arguments: a call with more arguments of one type than N (ten `int`s
    /// to a printf) must still find every one of them in that type's list.
    fn keep_best(&self, results: &mut Vec<Cand>) {
        if results.len() <= self.n {
            return;
        }
        let mut covered = results[..self.n].iter().fold(0u64, |m, c| m | c.mask);
        let mut keep = vec![false; results.len()];
        for (i, c) in results.iter().enumerate() {
            if i < self.n {
                keep[i] = true;
            } else if let Some(m) = self.order.iter().find(|&&m| c.mask & m != 0 && covered & m == 0) {
                covered |= m;
                keep[i] = true;
            }
        }
        let mut k = keep.into_iter();
        results.retain(|_| k.next().unwrap_or(false));
    }

    /// The best instances of function node `f` within `budget`.
    fn expand(&mut self, f: u32, budget: u32, out: &mut Vec<Cand>) {
        let g = self.g;
        let node = &g.fns[f as usize];
        let all: u32 = node.params.iter().map(|p| self.minc[p.0 as usize]).fold(0, |a, b| a.saturating_add(b));
        if node.cost.saturating_add(all) > budget {
            return;
        }
        if node.params.is_empty() {
            out.push(self.make(f, Vec::new()));
            return;
        }
        // Per slot, the candidates with what putting them there costs: their own cost plus
        // the penalty for moving one of the student's arguments (a per-slot charge, so the
        // enumeration below meets the student's order first instead of wading through its
        // permutations).
        let mut lists: Vec<Vec<(u32, Cand)>> = Vec::with_capacity(node.params.len());
        for (i, p) in node.params.iter().enumerate() {
            let slot_budget = budget - node.cost - (all - self.minc[p.0 as usize]);
            let mut list: Vec<(u32, Cand)> = self
                .get(*p, slot_budget)
                .into_iter()
                .filter(|c| self.fits_slot(f, i, c))
                .map(|c| (c.cost + self.moved(f, i, &c) * ORDER_PENALTY, c))
                .collect();
            if list.is_empty() {
                return;
            }
            list.sort_by(|a, b| (a.0, &a.1.text).cmp(&(b.0, &b.1.text)));
            lists.push(list);
        }
        // Best combinations first (a k-best enumeration over the sorted argument lists).
        // Combinations are popped in order of their cost with the moves; the reuse penalty
        // only adds, so once that cost reaches the N-th best full cost found, nothing later
        // can enter the N best. A hard cap bounds the work.
        let mut heap = BinaryHeap::new();
        let mut seen = HashSet::new();
        let start = vec![0usize; lists.len()];
        let sum = |idx: &[usize]| idx.iter().enumerate().map(|(s, &i)| lists[s][i].0).sum::<u32>();
        heap.push(Reverse((sum(&start), start.clone())));
        seen.insert(start);
        let mut best: Vec<u32> = Vec::new();
        let silent = matches!(node.kind, FnKind::Read | FnKind::Decay | FnKind::Conv);
        let mut taken = 0;
        while let Some(Reverse((s, idx))) = heap.pop() {
            if node.cost + s > budget || taken >= MAX_COMBINATIONS {
                break;
            }
            // A silent one-argument node (reading, decay, conversion) passes its argument's
            // whole list on: that list already holds what `keep_best` kept.
            if !silent && best.len() >= self.n && node.cost + s >= best[self.n - 1] {
                break;
            }
            taken += 1;
            let args: Vec<Cand> = idx.iter().enumerate().map(|(slot, &i)| lists[slot][i].1.clone()).collect();
            let moves = s - args.iter().map(|a| a.cost).sum::<u32>();
            if let Some(c) = self.combine(f, args, moves)
                && c.cost <= budget
            {
                let at = best.partition_point(|&b| b <= c.cost);
                best.insert(at, c.cost);
                out.push(c);
            }
            for slot in 0..idx.len() {
                if idx[slot] + 1 < lists[slot].len() {
                    let mut next = idx.clone();
                    next[slot] += 1;
                    if seen.insert(next.clone()) {
                        heap.push(Reverse((sum(&next), next)));
                    }
                }
            }
        }
    }

    /// Whether candidate `c` may fill parameter `slot` of node `f` (no pointless operator
    /// pairs such as `&*p`; no conversion a variadic argument would not get).
    fn fits_slot(&self, f: u32, slot: usize, c: &Cand) -> bool {
        let node = &self.g.fns[f as usize];
        let child = &self.g.fns[c.node as usize].kind;
        match (&node.kind, child) {
            (FnKind::AddrOf, FnKind::Deref) | (FnKind::Deref | FnKind::Index, FnKind::AddrOf) => false,
            // The same for the student's own `&x` and `*p`.
            (FnKind::Deref | FnKind::Index, FnKind::Reinforced { text, .. }) if text.starts_with('&') => false,
            (FnKind::AddrOf, FnKind::Reinforced { text, .. }) if text.starts_with('*') => false,
            // `(&s)->f` is `s.f`; a printf's count is never the argument meant.
            (FnKind::Field(_, true), FnKind::AddrOf) | (_, FnKind::Format { .. }) => false,
            (FnKind::Conv | FnKind::Cast(_), FnKind::Conv | FnKind::Cast(_)) => false,
            // `- -x` is `x`, and `--x` another operator.
            (FnKind::Unary(a), FnKind::Unary(b)) if a == b => false,
            (FnKind::Unary(a), FnKind::Reinforced { text, .. }) if text.starts_with(a) => false,
            (FnKind::Format { fixed, scanf, .. }, FnKind::Conv) if slot >= *fixed => {
                // Variadic arguments only get the default promotions.
                let conv = &self.g.fns[c.node as usize];
                let from = conv.params[0];
                !*scanf && is_promotion(self.types, from, conv.ret)
            }
            _ => true,
        }
    }

    /// `args` put into node `f`; `moves` is what the slots charged for moved arguments.
    fn combine(&self, f: u32, args: Vec<Cand>, moves: u32) -> Option<Cand> {
        let mut overlap = 0u32;
        // The node's own reinforced part (a format literal) counts as used already.
        let mut mask = self.own_bit(f);
        // One of the student's arguments in two places (`f(x, &x)` for `f(&x)`).
        for m in &self.order {
            overlap += (args.iter().filter(|a| a.mask & m != 0).count() as u32).saturating_sub(1);
        }
        for (i, a) in args.iter().enumerate() {
            overlap += (mask & a.mask).count_ones();
            mask |= a.mask;
            // The same expression twice (`f(w, w)`) is rarely meant either.
            if args[..i].iter().any(|b| b.text == a.text) {
                overlap += 1;
            }
        }
        let mut c = self.make(f, args);
        c.cost += overlap * REUSE_PENALTY + moves;
        Some(c)
    }

    /// Whether candidate `c` in parameter `slot` of node `f` moves one of the student's
    /// arguments (0 or 1). An argument shifted by no more than the difference between the
    /// node's arity and the number of arguments the student wrote has not moved: inserting a
    /// missing argument or leaving out a surplus one shifts those after it.
    fn moved(&self, f: u32, slot: usize, c: &Cand) -> u32 {
        let node = &self.g.fns[f as usize];
        let (at, arity) = match &node.kind {
            FnKind::Format { index, .. } => (if slot >= *index { slot + 1 } else { slot }, node.params.len() + 1),
            FnKind::Read | FnKind::Decay | FnKind::Conv => return 0,
            _ => (slot, node.params.len()),
        };
        if arity < 2 {
            return 0;
        }
        let Some(orig) = self.order.iter().position(|&m| c.mask & m != 0) else { return 0 };
        let written = self.order.len();
        let ok = if arity >= written { orig <= at && at - orig <= arity - written } else { at <= orig && orig - at <= written - arity };
        u32::from(!ok)
    }

    /// The reinforced part a node itself stands for (a format node: the student's literal).
    fn own_bit(&self, f: u32) -> u64 {
        match &self.g.fns[f as usize].kind {
            FnKind::Reinforced { bit, .. } | FnKind::Format { bit, .. } if *bit < 64 => 1u64 << bit,
            FnKind::Call(n) => match &self.callee {
                Some((c, bit)) if c == n && *bit < 64 => 1u64 << bit,
                _ => 0,
            },
            _ => 0,
        }
    }

    fn make(&self, f: u32, args: Vec<Cand>) -> Cand {
        let node = &self.g.fns[f as usize];
        let prec = node_prec(&node.kind);
        let wrap = |c: &Cand, need: u8| if c.prec < need { format!("({})", c.text) } else { c.text.to_string() };
        let list = |args: &[Cand]| args.iter().map(|a| a.text.to_string()).collect::<Vec<_>>();
        let (text, prec): (String, u8) = match &node.kind {
            FnKind::Var(n) | FnKind::Const(n) => (n.clone(), prec),
            FnKind::Reinforced { text, .. } => (text.clone(), prec),
            FnKind::Call(name) => (format!("{name}({})", list(&args).join(", ")), prec),
            FnKind::Format { name, index, text, .. } => {
                let mut all = list(&args);
                all.insert((*index).min(all.len()), text.clone());
                (format!("{name}({})", all.join(", ")), prec)
            }
            FnKind::AddrOf => (format!("&{}", wrap(&args[0], 14)), prec),
            FnKind::Deref => (format!("*{}", wrap(&args[0], 14)), prec),
            FnKind::Index => (format!("{}[{}]", wrap(&args[0], 15), args[1].text), prec),
            FnKind::Field(name, arrow) => (format!("{}{}{name}", wrap(&args[0], 15), if *arrow { "->" } else { "." }), prec),
            FnKind::Read | FnKind::Decay | FnKind::Conv => (args[0].text.to_string(), args[0].prec),
            FnKind::Cast(t) => (format!("({t}){}", wrap(&args[0], 14)), prec),
            FnKind::Unary(op) => (format!("{op}{}", wrap(&args[0], 14)), prec),
            FnKind::Binary(op) => (format!("{} {op} {}", wrap(&args[0], prec), wrap(&args[1], prec + 1)), prec),
        };
        let mask = self.own_bit(f) | args.iter().fold(0, |m, a| m | a.mask);
        let cost = node.cost + args.iter().map(|a| a.cost).sum::<u32>();
        Cand { cost, text: text.into(), prec, node: f, ty: node.ret, args: args.into(), mask }
    }
}

/// Default argument promotions: small integers to `int`, `float` to `double`.
fn is_promotion(types: &Types, from: Ty, to: Ty) -> bool {
    match (types.kind(from), types.kind(to)) {
        (TyKind::Int(a), TyKind::Int(b)) => a.rank() < crate::ir::IntType::INT.rank() && *b == crate::ir::IntType::INT,
        (TyKind::Float(crate::ir::FloatKind::Float), TyKind::Float(crate::ir::FloatKind::Double)) => true,
        _ => false,
    }
}

/// The cheapest expression cost of every type (unreachable: `INF`).
fn min_costs(g: &Graph, ntypes: usize) -> Vec<u32> {
    let mut minc = vec![INF; ntypes];
    let mut done = vec![false; ntypes];
    let mut remaining: Vec<u32> = Vec::with_capacity(g.fns.len());
    let mut acc: Vec<u32> = Vec::with_capacity(g.fns.len());
    let mut heap = BinaryHeap::new();
    for f in &g.fns {
        let mut p = f.params.clone();
        p.sort();
        p.dedup();
        remaining.push(p.len() as u32);
        acc.push(f.cost);
        if p.is_empty() {
            heap.push(Reverse((f.cost, f.ret.0)));
        }
    }
    while let Some(Reverse((c, t))) = heap.pop() {
        if done[t as usize] {
            continue;
        }
        done[t as usize] = true;
        minc[t as usize] = c;
        for &(f, mult) in &g.consumers[t as usize] {
            let f = f as usize;
            acc[f] = acc[f].saturating_add(c.saturating_mul(mult));
            remaining[f] -= 1;
            if remaining[f] == 0 && acc[f] < INF {
                heap.push(Reverse((acc[f], g.fns[f].ret.0)));
            }
        }
    }
    minc
}
