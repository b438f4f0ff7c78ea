//! Algorithm AllRepair (Rothenberg & Grumberg, FM 2016, Fig. 4): every minimal repaired
//! selection vector, in increasing size.
//!
//! The paper's SAT side (selection literals, exactly one alternative per location,
//! `AtLeast(V_o, n − k)`, a blocking clause per checked candidate) has a simple solution set:
//! at size `k` it is every selection with exactly `k` mutated locations that is not a superset
//! of a repair already found (a failing selection's clause only blocks itself, and each size's
//! candidates are produced once). So the selections are enumerated directly, size by size, in
//! a fixed order, and a candidate containing a repair's mutations is skipped: the same
//! candidates as the paper's blocking clauses leave, without a solver call per candidate (with
//! Z3's `Optimize` as the selection side, the TCAS-like fixtures spent 0.7 s per 70 candidates
//! there, 25 s of 30 at size 2). The check of a candidate (the SMT side) is an [`Oracle`].
//!
//! A candidate whose check runs past the first-pass cap is deferred, not decided: the search
//! goes on with the others (a slow candidate must not delay the first repair) and, before the
//! next size starts, retries the deferred ones with whatever budget is left. Only candidates
//! still undecided then make the outcome incomplete, so minimality holds whenever the outcome
//! says so.
//!
//! Fault localization orders, never filters: within a size, candidates come in increasing
//! total weight, a mutated location weighing its suspiciousness rank (0 = most suspicious)
//! and then its alternative index; ties go by the candidates' positions in that ranked list,
//! so the output order is deterministic and every location stays in the search (completeness).
//! After each size, the locations of its near misses (candidates that passed the oracle's
//! cheap evidence and needed the full check) move to the front of the ranking for the next
//! size: a two-bug program's partial fix of one bug is such a near miss.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::{Duration, Instant};

use crate::smt::Budget;

/// One candidate: for each location, the index of the chosen alternative (0 = original).
pub type Selection = Vec<usize>;

pub enum Verdict {
    /// The program encoded by the selection satisfies the spec (within the bound).
    Repaired,
    /// It does not.
    Fails,
    /// The check timed out or the solver gave up: the selection is neither a repair nor
    /// blocked as failing; the search reports that it is incomplete.
    Unknown(String),
}

/// The SMT side: decides whether a selection is a repair within `budget`.
pub trait Oracle {
    fn check(&mut self, selection: &Selection, budget: &Budget) -> Verdict;

    /// Whether the last checked selection passed the cheap evidence (it needed the full
    /// check): its mutations fix every known failing input, a hint that they belong to a
    /// larger repair. Only orders the next sizes.
    fn last_was_near_miss(&self) -> bool {
        false
    }
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Largest repair size (number of mutated locations) explored.
    pub max_size: usize,
    /// Suspiciousness per location (higher first); `None`: source order.
    pub suspiciousness: Option<Vec<f64>>,
    /// Time one candidate may take on the first pass before it is deferred to the end of its
    /// size; `None`: no cap (every check may use the whole budget).
    pub first_pass_cap: Option<Duration>,
    /// Stop once a size with a kept repair is explored: a student is shown the smallest
    /// repairs, and the time a larger one would take goes to their proofs. `false` is the
    /// paper's search (every minimal repair up to `max_size`).
    pub smallest_only: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every selection up to `max_size` was explored: the repairs found are all the minimal
    /// ones of at most that size.
    Exhausted { sizes_explored: usize },
    /// The search space is exhausted entirely (no selection of any size is left).
    Complete,
    /// Stopped early: time budget, cancellation or undecided candidates.
    Incomplete { reason: String, size_reached: usize },
    /// Not searched: the program (or a change the search would try) uses what the encoding
    /// does not model.
    Unmodelled(crate::smt::encode::Unsupported),
    /// [`SearchOptions::smallest_only`]: every selection up to `size` was explored and
    /// repairs of that size were found (and kept); larger sizes were not looked at.
    Smallest { size: usize },
}

#[derive(Clone, Debug, Default)]
pub struct SearchStats {
    pub candidates_checked: usize,
    pub sat_calls: usize,
    pub unknown: usize,
    /// Candidates deferred by the first-pass cap (each retried before the next size).
    pub deferred: usize,
    /// Wall-clock time in the selection (SAT) side, and in the oracle.
    pub sat_time: Duration,
    pub oracle_time: Duration,
}

/// Runs AllRepair over locations with `alternatives[i]` choices each (the original included,
/// at index 0). Each minimal repair is passed to `on_repair` as soon as it is found; it
/// answers whether the caller keeps it (a caller's own check may refute one), which only
/// [`SearchOptions::smallest_only`] looks at: a refuted repair still blocks its supersets.
pub fn all_repairs(
    alternatives: &[usize],
    oracle: &mut dyn Oracle,
    opts: &SearchOptions,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&Selection) -> bool,
) -> (Outcome, SearchStats) {
    let mut stats = SearchStats::default();
    let n = alternatives.len();
    let mut rank = location_ranks(n, opts.suspiciousness.as_deref());
    let mut items = ranked_items(alternatives, &rank);
    // Locations of this size's near misses (see `Oracle::last_was_near_miss`).
    let mut near_miss = vec![false; n];
    let first_pass = |b: &Budget| match opts.first_pass_cap {
        Some(cap) => b.sub(cap),
        None => b.clone(),
    };
    // The mutated (location, alternative) pairs of each repair found: every superset is blocked.
    let mut repairs: Vec<Vec<(usize, usize)>> = Vec::new();
    let blocked =
        |repairs: &[Vec<(usize, usize)>], s: &Selection| repairs.iter().any(|r| r.iter().all(|&(l, a)| s[l] == a));
    let mut undecided = 0usize;

    // Size 0: the program as written (the engine only searches a failing program, but the
    // search itself does not assume it).
    let original: Selection = vec![0; n];
    stats.candidates_checked += 1;
    let t = Instant::now();
    let verdict = oracle.check(&original, budget);
    stats.oracle_time += t.elapsed();
    match verdict {
        Verdict::Repaired => {
            on_repair(&original);
            return (Outcome::Complete, stats);
        }
        Verdict::Fails => {}
        Verdict::Unknown(_) if budget.stop_reason().is_some() => {
            let reason = budget.stop_reason().map_or_else(|| "stopped".into(), |r| format!("{r:?}"));
            return (Outcome::Incomplete { reason, size_reached: 0 }, stats);
        }
        Verdict::Unknown(_) => {
            stats.unknown += 1;
            undecided += 1;
        }
    }

    let mut k = 1usize;
    loop {
        if k > n {
            return (finish(Outcome::Complete, undecided, k), stats);
        }
        if k > opts.max_size {
            // Nothing unexplored of any larger size iff every size-k selection contains a
            // repair (a selection avoiding every repair has such subsets of each smaller size).
            let t = Instant::now();
            let mut next = SizeEnumerator::new(&items, n, k);
            let left = next.next_where(|s| !blocked(&repairs, s), PEEK_LIMIT);
            stats.sat_time += t.elapsed();
            let outcome = if left == Peek::None {
                Outcome::Complete
            } else {
                Outcome::Exhausted { sizes_explored: opts.max_size }
            };
            return (finish(outcome, undecided, k), stats);
        }
        // Candidates of size k, in the order: least total weight (the most suspicious
        // locations, then the lowest alternative indices), ties by position in the ranked list.
        let mut candidates = SizeEnumerator::new(&items, n, k);
        let mut deferred: Vec<Selection> = Vec::new();
        let mut any = false;
        // Repairs of this size the caller kept.
        let mut kept = 0usize;
        loop {
            if let Some(reason) = budget.stop_reason() {
                return (Outcome::Incomplete { reason: format!("{reason:?}"), size_reached: k }, stats);
            }
            let t = Instant::now();
            stats.sat_calls += 1;
            let next = candidates.next_where(|s| !blocked(&repairs, s), usize::MAX);
            stats.sat_time += t.elapsed();
            let Peek::Some(selection) = next else { break };
            any = true;
            stats.candidates_checked += 1;
            let t = Instant::now();
            let verdict = oracle.check(&selection, &first_pass(budget));
            stats.oracle_time += t.elapsed();
            if oracle.last_was_near_miss() {
                for (l, &a) in selection.iter().enumerate() {
                    near_miss[l] |= a != 0;
                }
            }
            match verdict {
                Verdict::Repaired => {
                    kept += usize::from(on_repair(&selection));
                    repairs.push(mutated(&selection));
                }
                Verdict::Fails => {}
                Verdict::Unknown(_) if budget.stop_reason().is_none() => {
                    // Only the first-pass cap ran out: decide it at the end of this size.
                    stats.deferred += 1;
                    deferred.push(selection);
                }
                Verdict::Unknown(_) => {
                    // Not a repair as far as we know; the search goes on, and says the result
                    // is incomplete.
                    stats.unknown += 1;
                    undecided += 1;
                }
            }
        }
        // Size k is explored but for the deferred candidates: decide them now, with the whole
        // remaining budget, before any larger candidate is looked at. (A deferred candidate is
        // never a superset of a repair of its own size, so none of them is blocked by now.)
        // Once the smallest repairs are in hand, a deferred one could only add another of the
        // same size: it gets a few first passes' time, not the whole budget.
        for selection in deferred {
            if let Some(reason) = budget.stop_reason() {
                return (Outcome::Incomplete { reason: format!("{reason:?}"), size_reached: k }, stats);
            }
            let settled = match opts.first_pass_cap {
                Some(cap) if opts.smallest_only && kept > 0 => budget.sub(cap * SETTLED_RETRY_PASSES),
                _ => budget.clone(),
            };
            let t = Instant::now();
            let verdict = oracle.check(&selection, &settled);
            stats.oracle_time += t.elapsed();
            match verdict {
                Verdict::Repaired => {
                    kept += usize::from(on_repair(&selection));
                    repairs.push(mutated(&selection));
                }
                Verdict::Fails => {}
                Verdict::Unknown(_) => {
                    stats.unknown += 1;
                    undecided += 1;
                }
            }
        }
        if !any {
            // Every selection of size k contains a repair, so every larger one does too.
            return (finish(Outcome::Complete, undecided, k), stats);
        }
        if opts.smallest_only && kept > 0 {
            return (finish(Outcome::Smallest { size: k }, undecided, k), stats);
        }
        // The next size looks first at the locations of this size's near misses (a partial
        // fix: it passed every known input, and failed only on a new one), each group in
        // the previous order. An order only: every selection of the next size is still
        // enumerated.
        if near_miss.iter().any(|&b| b) {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&l| (!near_miss[l], rank[l]));
            for (r, &l) in order.iter().enumerate() {
                rank[l] = r;
            }
            items = ranked_items(alternatives, &rank);
            near_miss = vec![false; n];
        }
        k += 1;
    }
}

/// With [`SearchOptions::smallest_only`], once a repair of the size is kept, a deferred
/// candidate's retry gets this many first passes' time.
const SETTLED_RETRY_PASSES: u32 = 3;

/// How many index tuples the end-of-search look-ahead may visit before it gives up deciding
/// whether the search space is exhausted entirely (it then reports `Exhausted`, which is true
/// either way).
const PEEK_LIMIT: usize = 200_000;

fn mutated(selection: &Selection) -> Vec<(usize, usize)> {
    selection.iter().enumerate().filter(|(_, a)| **a != 0).map(|(l, &a)| (l, a)).collect()
}

/// One mutated (location, alternative) with its order weight.
#[derive(Clone, Copy, Debug)]
struct Item {
    loc: usize,
    alt: usize,
    weight: u64,
}

/// Every (location, alternative ≥ 1), by weight: the location's rank (0 = most suspicious),
/// then the alternative index. A location's alternatives are contiguous.
fn ranked_items(alternatives: &[usize], rank: &[usize]) -> Vec<Item> {
    let width = alternatives.iter().copied().max().unwrap_or(1).max(1) as u64;
    let mut items: Vec<Item> = alternatives
        .iter()
        .enumerate()
        .flat_map(|(loc, &m)| (1..m).map(move |alt| (loc, alt)))
        .map(|(loc, alt)| Item { loc, alt, weight: rank[loc] as u64 * width + alt as u64 })
        .collect();
    items.sort_by_key(|it| (it.weight, it.loc, it.alt));
    items
}

#[derive(Debug, PartialEq)]
enum Peek {
    Some(Selection),
    None,
    /// The visit limit was reached before either answer.
    GaveUp,
}

/// The selections with exactly `k` mutated locations, lazily, in increasing total weight (ties
/// by the tuple of item positions): a best-first walk over increasing index tuples into the
/// ranked item list, each tuple's successors being one index moved one step on. Tuples with two
/// alternatives of one location are walked through but never produced.
struct SizeEnumerator<'a> {
    items: &'a [Item],
    n_locs: usize,
    heap: BinaryHeap<Reverse<(u64, Vec<usize>)>>,
    seen: HashSet<Vec<usize>>,
}

impl<'a> SizeEnumerator<'a> {
    fn new(items: &'a [Item], n_locs: usize, k: usize) -> Self {
        let mut e = SizeEnumerator { items, n_locs, heap: BinaryHeap::new(), seen: HashSet::new() };
        if k >= 1 && k <= items.len() {
            e.push((0..k).collect());
        }
        e
    }

    fn push(&mut self, tuple: Vec<usize>) {
        if self.seen.insert(tuple.clone()) {
            let w = tuple.iter().map(|&i| self.items[i].weight).sum();
            self.heap.push(Reverse((w, tuple)));
        }
    }

    /// The next selection satisfying `keep`, visiting at most `limit` tuples.
    fn next_where(&mut self, keep: impl Fn(&Selection) -> bool, limit: usize) -> Peek {
        let mut visited = 0usize;
        while let Some(Reverse((_, tuple))) = self.heap.pop() {
            let k = tuple.len();
            for j in 0..k {
                let bound = if j + 1 < k { tuple[j + 1] } else { self.items.len() };
                if tuple[j] + 1 < bound {
                    let mut next = tuple.clone();
                    next[j] += 1;
                    self.push(next);
                }
            }
            visited += 1;
            let mut selection = vec![0; self.n_locs];
            let mut valid = true;
            for &i in &tuple {
                let it = self.items[i];
                if selection[it.loc] != 0 {
                    valid = false;
                    break;
                }
                selection[it.loc] = it.alt;
            }
            if valid && keep(&selection) {
                return Peek::Some(selection);
            }
            if visited >= limit {
                return Peek::GaveUp;
            }
        }
        Peek::None
    }
}

fn finish(outcome: Outcome, undecided: usize, k: usize) -> Outcome {
    if undecided > 0 {
        Outcome::Incomplete { reason: format!("{undecided} candidate(s) could not be decided"), size_reached: k }
    } else {
        outcome
    }
}

/// Rank 0 for the most suspicious location, ties broken by source order.
fn location_ranks(n: usize, suspiciousness: Option<&[f64]>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    if let Some(s) = suspiciousness {
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]).then(a.cmp(&b)));
    }
    let mut rank = vec![0; n];
    for (r, &loc) in order.iter().enumerate() {
        rank[loc] = r;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use std::time::Duration;

    /// A selection repairs iff it contains one of `fixes` (sets of (location, alternative)).
    struct SetOracle {
        fixes: Vec<Vec<(usize, usize)>>,
        checked: Vec<Selection>,
    }

    impl Oracle for SetOracle {
        fn check(&mut self, s: &Selection, _: &Budget) -> Verdict {
            self.checked.push(s.clone());
            let ok = self.fixes.iter().any(|fix| fix.iter().all(|&(l, a)| s[l] == a));
            if ok { Verdict::Repaired } else { Verdict::Fails }
        }
    }

    fn run(
        alts: &[usize],
        fixes: Vec<Vec<(usize, usize)>>,
        max: usize,
        susp: Option<Vec<f64>>,
    ) -> (Vec<Selection>, Outcome, SetOracle) {
        let mut oracle = SetOracle { fixes, checked: Vec::new() };
        let mut found = Vec::new();
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let (outcome, _) = all_repairs(
            alts,
            &mut oracle,
            &SearchOptions { max_size: max, suspiciousness: susp, first_pass_cap: None, smallest_only: false },
            &budget,
            &mut |s| {
                found.push(s.clone());
                true
            },
        );
        (found, outcome, oracle)
    }

    #[test]
    fn finds_all_minimal_repairs_in_increasing_size() {
        // Repairs: {loc1=2}; {loc0=1, loc2=1}; and a non-minimal superset {loc1=2, loc3=1}.
        let fixes = vec![vec![(1, 2)], vec![(0, 1), (2, 1)], vec![(1, 2), (3, 1)]];
        let (found, outcome, _) = run(&[3, 3, 2, 2], fixes, 4, None);
        assert_eq!(found, vec![vec![0, 2, 0, 0], vec![1, 0, 1, 0]]);
        assert_eq!(outcome, Outcome::Complete);
    }

    #[test]
    fn never_reports_a_superset_and_respects_the_size_limit() {
        let fixes = vec![vec![(0, 1), (1, 1), (2, 1)]];
        let (found, outcome, _) = run(&[2, 2, 2], fixes.clone(), 2, None);
        assert!(found.is_empty());
        assert_eq!(outcome, Outcome::Exhausted { sizes_explored: 2 });
        let (found, _, _) = run(&[2, 2, 2], fixes, 3, None);
        assert_eq!(found, vec![vec![1, 1, 1]]);
    }

    #[test]
    fn a_correct_program_is_its_own_repair() {
        let (found, outcome, oracle) = run(&[3, 3], vec![vec![]], 2, None);
        assert_eq!(found, vec![vec![0, 0]]);
        assert_eq!(outcome, Outcome::Complete);
        assert_eq!(oracle.checked.len(), 1);
    }

    /// `slow` needs more than a second; everything else is a set oracle.
    struct SlowOracle {
        inner: SetOracle,
        slow: Selection,
    }

    impl Oracle for SlowOracle {
        fn check(&mut self, s: &Selection, budget: &Budget) -> Verdict {
            if *s == self.slow && budget.remaining() < Duration::from_secs(1) {
                return Verdict::Unknown("timeout".into());
            }
            self.inner.check(s, budget)
        }
    }

    #[test]
    fn a_slow_candidate_is_deferred_to_the_end_of_its_size_not_dropped() {
        // Source order would check [1,0,0] first; it is slow, so [0,0,1] comes out first, and
        // the slow repair is still found, before any size-2 candidate is checked.
        let fixes = vec![vec![(0, 1)], vec![(2, 1)], vec![(1, 1), (0, 1)]];
        let mut oracle = SlowOracle { inner: SetOracle { fixes, checked: Vec::new() }, slow: vec![1, 0, 0] };
        let mut found = Vec::new();
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let opts = SearchOptions {
            max_size: 2,
            suspiciousness: None,
            first_pass_cap: Some(Duration::from_millis(10)),
            smallest_only: false,
        };
        let (outcome, stats) = all_repairs(&[2, 2, 2], &mut oracle, &opts, &budget, &mut |s| {
            found.push(s.clone());
            true
        });
        assert_eq!(found, vec![vec![0, 0, 1], vec![1, 0, 0]]);
        assert_eq!(stats.deferred, 1);
        // Every size-2 selection contains a repair: nothing is left.
        assert_eq!(outcome, Outcome::Complete);
        let sizes: Vec<usize> = oracle.inner.checked.iter().map(|s| s.iter().filter(|&&a| a != 0).count()).collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "sizes in order: {sizes:?}");
        assert!(!oracle.inner.checked.contains(&vec![1, 1, 0]), "a superset of a repair is never checked");
    }

    /// The smallest-only search over `alts`, `keep` deciding which repairs the caller keeps.
    fn smallest(
        oracle: &mut dyn Oracle,
        alts: &[usize],
        cap: Option<Duration>,
        keep: &dyn Fn(&Selection) -> bool,
    ) -> (Vec<Selection>, Outcome) {
        let mut found = Vec::new();
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let opts = SearchOptions { max_size: 3, suspiciousness: None, first_pass_cap: cap, smallest_only: true };
        let (outcome, _) = all_repairs(alts, oracle, &opts, &budget, &mut |s| {
            found.push(s.clone());
            keep(s)
        });
        (found, outcome)
    }

    #[test]
    fn the_smallest_only_search_stops_after_the_first_size_with_a_kept_repair() {
        // One repair of size 1, one of size 2 disjoint from it: only the first is looked for.
        let fixes = vec![vec![(0, 1)], vec![(1, 1), (2, 1)]];
        let mut oracle = SetOracle { fixes: fixes.clone(), checked: Vec::new() };
        let (found, outcome) = smallest(&mut oracle, &[2, 2, 2], None, &|_| true);
        assert_eq!(found, vec![vec![1, 0, 0]]);
        assert_eq!(outcome, Outcome::Smallest { size: 1 });
        assert!(oracle.checked.iter().all(|s| s.iter().filter(|&&a| a != 0).count() <= 1));
        // The caller refutes the size-1 repair: the search goes on to size 2 (its supersets
        // stay blocked), and stops there.
        let mut oracle = SetOracle { fixes, checked: Vec::new() };
        let (found, outcome) = smallest(&mut oracle, &[2, 2, 2], None, &|s| s != &vec![1, 0, 0]);
        assert_eq!(found, vec![vec![1, 0, 0], vec![0, 1, 1]]);
        assert_eq!(outcome, Outcome::Smallest { size: 2 });
    }

    /// Undecided on every budget: a candidate no time is enough for.
    struct NeverDecides {
        inner: SetOracle,
        slow: Selection,
        budgets: Vec<Duration>,
    }

    impl Oracle for NeverDecides {
        fn check(&mut self, s: &Selection, budget: &Budget) -> Verdict {
            if *s == self.slow {
                self.budgets.push(budget.remaining());
                return Verdict::Unknown("timeout".into());
            }
            self.inner.check(s, budget)
        }
    }

    #[test]
    fn a_deferred_candidate_gets_a_few_first_passes_once_a_repair_of_its_size_is_kept() {
        let cap = Duration::from_millis(10);
        let mut oracle = NeverDecides {
            inner: SetOracle { fixes: vec![vec![(2, 1)]], checked: Vec::new() },
            slow: vec![1, 0, 0],
            budgets: Vec::new(),
        };
        let (found, outcome) = smallest(&mut oracle, &[2, 2, 2], Some(cap), &|_| true);
        assert_eq!(found, vec![vec![0, 0, 1]]);
        // Its retry had a capped budget, not the 30 s left, and it stays undecided: said.
        assert_eq!(oracle.budgets.len(), 2);
        assert!(oracle.budgets[1] <= cap * SETTLED_RETRY_PASSES, "{:?}", oracle.budgets);
        assert!(matches!(outcome, Outcome::Incomplete { .. }), "{outcome:?}");
        // With nothing kept yet, the retry has the whole budget.
        let mut oracle = NeverDecides {
            inner: SetOracle { fixes: vec![vec![(1, 1), (2, 1)]], checked: Vec::new() },
            slow: vec![1, 0, 0],
            budgets: Vec::new(),
        };
        smallest(&mut oracle, &[2, 2, 2], Some(cap), &|_| true);
        assert!(oracle.budgets[1] > Duration::from_secs(20), "{:?}", oracle.budgets);
    }

    #[test]
    fn suspiciousness_orders_candidates_within_a_size_without_dropping_any() {
        let fixes = vec![vec![(0, 1)], vec![(3, 1)]];
        let (found, _, oracle) = run(&[2, 2, 2, 2], fixes.clone(), 1, Some(vec![0.1, 0.2, 0.3, 0.9]));
        assert_eq!(found, vec![vec![0, 0, 0, 1], vec![1, 0, 0, 0]], "most suspicious first, both found");
        assert_eq!(oracle.checked[1], vec![0, 0, 0, 1]);
        let (found, _, _) = run(&[2, 2, 2, 2], fixes, 1, None);
        assert_eq!(found, vec![vec![1, 0, 0, 0], vec![0, 0, 0, 1]], "source order without localization");
    }

    #[test]
    fn each_size_is_enumerated_once_in_weight_order() {
        // Against brute force: every selection with exactly k mutated locations, once, in
        // non-decreasing weight.
        let alts = [3usize, 1, 4, 2, 3];
        let susp = [0.5, 0.9, 0.1, 0.7, 0.7];
        let rank = location_ranks(alts.len(), Some(&susp));
        let items = ranked_items(&alts, &rank);
        let width = *alts.iter().max().unwrap() as u64;
        let weight = |s: &Selection| -> u64 {
            s.iter().enumerate().filter(|(_, a)| **a != 0).map(|(l, &a)| rank[l] as u64 * width + a as u64).sum()
        };
        let mut all: Vec<Selection> = vec![vec![]];
        for &m in &alts {
            all = all.into_iter().flat_map(|p| (0..m).map(move |a| [p.clone(), vec![a]].concat())).collect();
        }
        for k in 1..=alts.len() {
            let mut e = SizeEnumerator::new(&items, alts.len(), k);
            let mut got = Vec::new();
            while let Peek::Some(s) = e.next_where(|_| true, usize::MAX) {
                got.push(s);
            }
            let ws: Vec<u64> = got.iter().map(weight).collect();
            assert!(ws.windows(2).all(|w| w[0] <= w[1]), "size {k}: weights {ws:?}");
            let mut expected: Vec<Selection> =
                all.iter().filter(|s| s.iter().filter(|&&a| a != 0).count() == k).cloned().collect();
            let mut sorted = got.clone();
            sorted.sort();
            expected.sort();
            assert_eq!(sorted, expected, "size {k}");
        }
    }
}
