//! Algorithm AllRepair (Rothenberg & Grumberg, FM 2016, Fig. 4): every minimal repaired
//! selection vector, in increasing size.
//!
//! The SAT side is a Z3 solver over selection literals only: per location, exactly one of
//! its alternatives is selected (`AtMost(V_i, 1)` and `⋁ V_i`), and `AtLeast(V_o, n − k)` keeps
//! at most `k` locations mutated. The check of a candidate (the SMT side) is an [`Oracle`]:
//! one incremental solver checked under the selected literals as assumptions. Blocking is
//! exactly the paper's: a failing selection blocks itself (`⋁ ¬v` over its literals); a
//! repairing one blocks every superset of its mutations (`⋁ ¬v` over its mutated literals).
//!
//! A candidate whose check runs past the first-pass cap is deferred, not decided: the search
//! goes on with the others (a slow candidate must not delay the first repair) and, before the
//! next size starts, retries the deferred ones with whatever budget is left. Only candidates
//! still undecided then make the outcome incomplete, so minimality holds whenever the outcome
//! says so.
//!
//! Fault localization orders, never filters: among the candidates of the current size the
//! SAT side is steered (through Z3's `Optimize` with a secondary objective) to the one whose
//! mutated locations are the most suspicious, then by location and alternative index, so the
//! output order is deterministic and every location stays in the search (completeness).

use std::time::Duration;

use z3::ast::Bool;
use z3::{Optimize, SatResult};

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
}

#[derive(Clone, Debug, Default)]
pub struct SearchStats {
    pub candidates_checked: usize,
    pub sat_calls: usize,
    pub unknown: usize,
    /// Candidates deferred by the first-pass cap (each retried before the next size).
    pub deferred: usize,
}

/// Runs AllRepair over locations with `alternatives[i]` choices each (the original included,
/// at index 0). Each minimal repair is passed to `on_repair` as soon as it is found.
pub fn all_repairs(
    alternatives: &[usize],
    oracle: &mut dyn Oracle,
    opts: &SearchOptions,
    budget: &Budget,
    on_repair: &mut dyn FnMut(&Selection),
) -> (Outcome, SearchStats) {
    let mut stats = SearchStats::default();
    let n = alternatives.len();
    let ctx = crate::smt::solver::new_context();
    let opt = Optimize::new(&ctx);
    let vars: Vec<Vec<Bool>> = alternatives
        .iter()
        .enumerate()
        .map(|(i, &m)| (0..m.max(1)).map(|k| Bool::new_const(&ctx, format!("sel_{i}_{k}"))).collect())
        .collect();
    // Exactly one alternative per location.
    for v in &vars {
        let weighted: Vec<(&Bool, i32)> = v.iter().map(|b| (b, 1)).collect();
        opt.assert(&Bool::pb_eq(&ctx, &weighted, 1));
    }
    // Ordering: fewer mutations first (dominant weight), then the most suspicious locations,
    // then source order and alternative index: a deterministic total order within a size.
    let rank = location_ranks(n, opts.suspiciousness.as_deref());
    for (i, v) in vars.iter().enumerate() {
        for (k, b) in v.iter().enumerate().skip(1) {
            let weight = 1_000_000u64 + (rank[i] as u64) * 1_000 + k as u64;
            opt.assert_soft(&b.not(), weight, None);
        }
    }
    let originals: Vec<&Bool> = vars.iter().map(|v| &v[0]).collect();
    let block = |selection: &Selection, only_mutated: bool| {
        let lits: Vec<Bool> = selection
            .iter()
            .enumerate()
            .filter(|(_, a)| !only_mutated || **a != 0)
            .map(|(i, &a)| vars[i][a].not())
            .collect();
        let refs: Vec<&Bool> = lits.iter().collect();
        opt.assert(&Bool::or(&ctx, &refs));
    };
    let first_pass = |b: &Budget| match opts.first_pass_cap {
        Some(cap) => b.sub(cap),
        None => b.clone(),
    };
    let mut k = 1usize;
    let mut undecided = 0usize;
    // Candidates of the current size whose first check ran past the cap (already blocked).
    let mut deferred: Vec<Selection> = Vec::new();
    loop {
        if let Some(reason) = budget.stop_reason() {
            return (Outcome::Incomplete { reason: format!("{reason:?}"), size_reached: k }, stats);
        }
        if k > opts.max_size || k > n {
            let outcome = if k > n { Outcome::Complete } else { Outcome::Exhausted { sizes_explored: opts.max_size } };
            return (finish(outcome, undecided, k), stats);
        }
        // φ_k = φ ∧ AtLeast(V_o, n − k)
        let weighted: Vec<(&Bool, i32)> = originals.iter().map(|b| (*b, 1)).collect();
        let at_least = Bool::pb_ge(&ctx, &weighted, (n - k) as i32);
        stats.sat_calls += 1;
        let result = opt.check(&[at_least]);
        match result {
            SatResult::Unsat => {
                // Size k is explored but for the deferred candidates: decide them now, with
                // the whole remaining budget, before any larger candidate is looked at.
                for selection in std::mem::take(&mut deferred) {
                    match oracle.check(&selection, budget) {
                        Verdict::Repaired => {
                            on_repair(&selection);
                            block(&selection, true);
                        }
                        Verdict::Fails => {}
                        Verdict::Unknown(_) => {
                            stats.unknown += 1;
                            undecided += 1;
                        }
                    }
                }
                // No unexplored selection of size ≤ k; is there any at all (φ alone)?
                stats.sat_calls += 1;
                if opt.check(&[]) == SatResult::Unsat {
                    return (finish(Outcome::Complete, undecided, k), stats);
                }
                k += 1;
                continue;
            }
            SatResult::Unknown => {
                return (Outcome::Incomplete { reason: "the selection solver gave up".into(), size_reached: k }, stats);
            }
            SatResult::Sat => {}
        }
        let Some(model) = opt.get_model() else {
            return (Outcome::Incomplete { reason: "no model from the selection solver".into(), size_reached: k }, stats);
        };
        let selection: Selection = vars
            .iter()
            .map(|v| v.iter().position(|b| model.eval(b, true).and_then(|x| x.as_bool()) == Some(true)).unwrap_or(0))
            .collect();
        stats.candidates_checked += 1;
        match oracle.check(&selection, &first_pass(budget)) {
            Verdict::Repaired => {
                on_repair(&selection);
                if selection.iter().all(|&a| a == 0) {
                    // The original program is correct: the only minimal repair is no change.
                    return (Outcome::Complete, stats);
                }
                // Block every superset of this repair's mutations.
                block(&selection, true);
            }
            Verdict::Fails => block(&selection, false),
            Verdict::Unknown(_) if budget.stop_reason().is_none() => {
                // Only the first-pass cap ran out: decide it at the end of this size.
                stats.deferred += 1;
                block(&selection, false);
                deferred.push(selection);
            }
            Verdict::Unknown(_) => {
                // Not a repair as far as we know; block it so the search goes on, and say the
                // result is incomplete.
                stats.unknown += 1;
                undecided += 1;
                block(&selection, false);
            }
        }
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

    fn run(alts: &[usize], fixes: Vec<Vec<(usize, usize)>>, max: usize, susp: Option<Vec<f64>>) -> (Vec<Selection>, Outcome, SetOracle) {
        let mut oracle = SetOracle { fixes, checked: Vec::new() };
        let mut found = Vec::new();
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let (outcome, _) = all_repairs(
            alts,
            &mut oracle,
            &SearchOptions { max_size: max, suspiciousness: susp, first_pass_cap: None },
            &budget,
            &mut |s| found.push(s.clone()),
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
        let opts = SearchOptions { max_size: 2, suspiciousness: None, first_pass_cap: Some(Duration::from_millis(10)) };
        let (outcome, stats) = all_repairs(&[2, 2, 2], &mut oracle, &opts, &budget, &mut |s| found.push(s.clone()));
        assert_eq!(found, vec![vec![0, 0, 1], vec![1, 0, 0]]);
        assert_eq!(stats.deferred, 1);
        // Every size-2 selection contains a repair: nothing is left.
        assert_eq!(outcome, Outcome::Complete);
        let sizes: Vec<usize> = oracle.inner.checked.iter().map(|s| s.iter().filter(|&&a| a != 0).count()).collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "sizes in order: {sizes:?}");
        assert!(!oracle.inner.checked.contains(&vec![1, 1, 0]), "a superset of a repair is never checked");
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
}
