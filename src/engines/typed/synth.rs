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

use super::graph::{FnKind, Graph, node_prec};
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

/// Partial combinations popped per function node and budget (the search's work bound). A
/// printf of ten `int`s missing one explores about a thousand: every insertion point, and
/// the swaps of the student's arguments costing no more than the insertion.
const MAX_POPPED: usize = 2000;

/// A partial combination of a node's arguments: the candidate index of each slot filled so
/// far (in the slot lists of `Synth::expand`), ordered by the estimate of its full cost.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Partial {
    /// `charged` plus the cheapest candidates of the open slots.
    estimate: u32,
    /// The arguments' costs, their moves and the reuse penalties so far.
    charged: u32,
    picks: Vec<u16>,
    /// Reinforced parts used so far (with the node's own).
    mask: u64,
    /// Which of the student's arguments (`Synth::order`) are used so far.
    hit: u64,
}

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

    /// Algorithm 1 with every result at the goal type (the N best of each function node
    /// producing it; the arguments still from the N best of their types): repair ranks the
    /// goal's candidates by more than their cost, so none is cut by its cost alone. (Cut to
    /// the 48 cheapest, a `scanf` with four destinations lost all its calls to the variables
    /// and reinforced parts of its return type `int`, which the intent penalties then sank.)
    pub fn synthesize_wide(&mut self, tau: Ty, cmax: u32) -> Vec<Cand> {
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
                // A format node's call is never an argument (`fits_slot`): it is expanded at
                // the goal only (`synthesize_wide`). Expanding it here made a `printf` search
                // its own `int` arguments among its own calls, one budget level at a time.
                if matches!(g.fns[f as usize].kind, FnKind::Format { .. }) {
                    continue;
                }
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

    /// Keeps, of `results` (sorted), the best candidate using each of the student's arguments
    /// and the N best of the others: a call with more arguments of one type than N (ten
    /// `int`s to a printf) must still find every one of them in that type's list, and still
    /// find the N best other expressions of the type (the argument the student left out).
    fn keep_best(&self, results: &mut Vec<Cand>) {
        if results.len() <= self.n {
            return;
        }
        let mut covered = 0u64;
        let mut others = 0;
        let keep: Vec<bool> = results
            .iter()
            .map(|c| {
                if let Some(m) = self.order.iter().find(|&&m| c.mask & m != 0 && covered & m == 0) {
                    covered |= m;
                    true
                } else {
                    others += 1;
                    others <= self.n
                }
            })
            .collect();
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
        // Best combinations first: an A* search over the slots, filled left to right. A partial
        // combination is charged what its arguments cost (with their moves) plus, as each
        // argument is added, the reuse penalty it incurs with those before it (the same
        // reinforced part, or one of the student's arguments, twice; the same text twice), so
        // a combination's charge is exactly its final cost less the node's own. The estimate
        // of the slots still open is the sum of their cheapest candidates (a lower bound:
        // penalties only add), so complete combinations are popped cheapest first and the
        // first N are the N best. (Charging reuse only after enumerating, a call with ten
        // arguments of one type met thousands of free combinations reusing the student's
        // arguments before the first one without reuse.) A cap on popped states bounds the
        // work.
        let slots = lists.len();
        let own = self.own_bit(f);
        let silent = matches!(node.kind, FnKind::Read | FnKind::Decay | FnKind::Conv);
        if slots == 1 {
            // One argument (most nodes): its only possible reuse is of the node's own part,
            // so each candidate's cost is known without a search.
            let mut one: Vec<(u32, usize)> = lists[0]
                .iter()
                .enumerate()
                .map(|(i, (cost, a))| (cost + (own & a.mask).count_ones() * REUSE_PENALTY, i))
                .filter(|(charged, _)| node.cost + charged <= budget)
                .collect();
            one.sort();
            if !silent {
                one.truncate(self.n);
            }
            for (charged, i) in one {
                let mut c = self.make(f, vec![lists[0][i].1.clone()]);
                c.cost = node.cost + charged;
                out.push(c);
            }
            return;
        }
        let mut rest = vec![0u32; slots + 1];
        for s in (0..slots).rev() {
            rest[s] = rest[s + 1] + lists[s][0].0;
        }
        let mut heap: BinaryHeap<Reverse<Partial>> = BinaryHeap::new();
        heap.push(Reverse(Partial { estimate: rest[0], charged: 0, picks: Vec::new(), mask: own, hit: 0 }));
        let mut found = 0usize;
        let mut popped = 0usize;
        while let Some(Reverse(p)) = heap.pop() {
            if node.cost + p.estimate > budget || popped >= MAX_POPPED {
                break;
            }
            popped += 1;
            let k = p.picks.len();
            if k == slots {
                let args: Vec<Cand> =
                    p.picks.iter().enumerate().map(|(slot, &i)| lists[slot][i as usize].1.clone()).collect();
                let mut c = self.make(f, args);
                c.cost = node.cost + p.charged;
                out.push(c);
                found += 1;
                // A silent one-argument node (reading, decay, conversion) passes its argument's
                // whole list on: that list already holds what `keep_best` kept.
                if !silent && found >= self.n {
                    break;
                }
                continue;
            }
            for (i, (cost, a)) in lists[k].iter().enumerate() {
                let mut overlap = (p.mask & a.mask).count_ones();
                let mut hit = p.hit;
                for (j, m) in self.order.iter().enumerate().take(64) {
                    if a.mask & m != 0 {
                        overlap += u32::from(hit & (1u64 << j) != 0);
                        hit |= 1u64 << j;
                    }
                }
                if p.picks.iter().enumerate().any(|(slot, &x)| lists[slot][x as usize].1.text == a.text) {
                    overlap += 1;
                }
                let charged = p.charged + cost + overlap * REUSE_PENALTY;
                let estimate = charged + rest[k + 1];
                if node.cost + estimate > budget {
                    // The list is sorted: the later candidates cost at least as much, but may
                    // overlap less, so only the cost itself ends the loop.
                    if node.cost + p.charged + cost + rest[k + 1] > budget {
                        break;
                    }
                    continue;
                }
                let mut picks = p.picks.clone();
                picks.push(i as u16);
                heap.push(Reverse(Partial { estimate, charged, picks, mask: p.mask | a.mask, hit }));
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
        let ok = if arity >= written {
            orig <= at && at - orig <= arity - written
        } else {
            at <= orig && orig - at <= written - arity
        };
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
            FnKind::Field(name, arrow) => {
                (format!("{}{}{name}", wrap(&args[0], 15), if *arrow { "->" } else { "." }), prec)
            }
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
