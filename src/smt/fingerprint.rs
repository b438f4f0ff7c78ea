//! Structural fingerprints of formulas: equal formulas (in any context) get equal
//! fingerprints, computed once per shared subterm. The verified engine keys its node cache
//! with them. Printing a formula for that (`Z3_solver_to_string`) could not be interrupted
//! and ran for minutes on some float programs, past every budget.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use z3::ast::{Ast, Dynamic};

use super::Budget;

/// Distinct subterms visited before giving up: a larger formula is not worth caching.
pub const MAX_NODES: usize = 200_000;

/// A 128-bit fingerprint of `roots`, or `None` past [`MAX_NODES`] distinct subterms or once
/// the budget is spent (the caller then works without a key).
pub fn of(roots: &[&Dynamic<'_>], budget: &Budget) -> Option<u128> {
    let mut done: HashMap<Dynamic<'_>, u128> = HashMap::new();
    let mut stack: Vec<(Dynamic<'_>, bool)> = roots.iter().rev().map(|r| ((*r).clone(), false)).collect();
    while let Some((node, children_done)) = stack.pop() {
        if done.contains_key(&node) {
            continue;
        }
        let children = node.children();
        if !children_done && !children.is_empty() {
            stack.push((node, true));
            stack.extend(children.into_iter().rev().filter(|c| !done.contains_key(c)).map(|c| (c, false)));
            continue;
        }
        if done.len() >= MAX_NODES || (done.len().is_multiple_of(4096) && budget.is_exhausted()) {
            return None;
        }
        // A leaf prints small (a constant or a numeral); an application is its declaration
        // (parameters included, as in `(_ extract 7 0)`) over its children's fingerprints.
        let own = match node.safe_decl() {
            Ok(decl) if !children.is_empty() => format!("{decl}/{}", node.get_sort()),
            _ => format!("{node:?}/{}", node.get_sort()),
        };
        let kids: Vec<u128> = children.iter().map(|c| done[c]).collect();
        let print = digest(&(own, kids));
        done.insert(node, print);
    }
    Some(digest(&roots.iter().map(|r| done[*r]).collect::<Vec<_>>()))
}

/// Two salted SipHash digests, 128 bits together.
pub fn digest(value: &impl Hash) -> u128 {
    let half = |salt: u64| {
        let mut h = std::hash::DefaultHasher::new();
        salt.hash(&mut h);
        value.hash(&mut h);
        h.finish()
    };
    ((half(0x6d65_6e64) as u128) << 64) | half(0x7665_7269) as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use std::time::Duration;
    use z3::ast::Int;

    #[test]
    fn equal_formulas_in_two_contexts_share_a_fingerprint() {
        let budget = Budget::new(Duration::from_secs(10), Cancel::new());
        let print = |n: i64, name: &str| {
            let ctx = crate::smt::solver::new_context();
            let x = Int::new_const(&ctx, name);
            let f = Dynamic::from_ast(&(&x + &Int::from_i64(&ctx, n)).gt(&x));
            of(&[&f], &budget).unwrap()
        };
        assert_eq!(print(1, "x"), print(1, "x"));
        assert_ne!(print(1, "x"), print(2, "x"));
        assert_ne!(print(1, "x"), print(1, "y"));
    }

    #[test]
    fn a_deep_shared_dag_is_fingerprinted_in_linear_time() {
        let ctx = crate::smt::solver::new_context();
        let x = Int::new_const(&ctx, "x");
        // 2^400 paths, 400 distinct subterms: printing it as a tree would never end.
        let mut e = x.clone();
        for _ in 0..400 {
            e = &e + &e;
        }
        let budget = Budget::new(Duration::from_secs(10), Cancel::new());
        assert!(of(&[&Dynamic::from_ast(&e)], &budget).is_some());
    }
}
