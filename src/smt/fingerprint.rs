//! Structural fingerprints of formulas: equal formulas (in any context) get equal
//! fingerprints, computed once per shared subterm. The verified engine keys its node cache
//! with them. Printing a formula for that (`Z3_solver_to_string`) could not be interrupted
//! and ran for minutes on some float programs, past every budget.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use z3::DeclKind;
use z3::ast::{Ast, Dynamic};

use super::Budget;

/// Distinct subterms visited before giving up: a larger formula is not worth caching.
pub const MAX_NODES: usize = 200_000;

/// A 128-bit fingerprint of `roots`, or `None` past [`MAX_NODES`] distinct subterms or once
/// the budget is spent (the caller then works without a key).
pub fn of(roots: &[&Dynamic<'_>], budget: &Budget) -> Option<u128> {
    let mut done: HashMap<Dynamic<'_>, u128> = HashMap::new();
    // A node waits on the stack with its children until they are done.
    let mut stack: Vec<(Dynamic<'_>, Option<Vec<Dynamic<'_>>>)> =
        roots.iter().rev().map(|r| ((*r).clone(), None)).collect();
    while let Some((node, children)) = stack.pop() {
        if done.contains_key(&node) {
            continue;
        }
        let children = match children {
            Some(children) => children,
            None => {
                let children = node.children();
                if !children.is_empty() {
                    let pending: Vec<Dynamic<'_>> =
                        children.iter().rev().filter(|c| !done.contains_key(*c)).cloned().collect();
                    stack.push((node, Some(children)));
                    stack.extend(pending.into_iter().map(|c| (c, None)));
                    continue;
                }
                children
            }
        };
        if done.len() >= MAX_NODES || (done.len().is_multiple_of(4096) && budget.is_exhausted()) {
            return None;
        }
        let kids: Vec<u128> = children.iter().map(|c| done[c]).collect();
        let print = match node.safe_decl() {
            // An operation with no parameters is its kind over its children: their sorts
            // give its own. Printing the declaration was most of the time of a key.
            Ok(decl) if !children.is_empty() && without_parameters(decl.kind()) => {
                digest(&(0u8, decl.kind() as u32, kids))
            }
            // A leaf prints small (a constant or a numeral); any other application is its
            // operation, parameters included, over its children.
            Ok(decl) if !children.is_empty() => digest(&(1u8, operation(&decl, &children), kids)),
            _ => digest(&(1u8, format!("{node:?}/{}", node.get_sort()), kids)),
        };
        done.insert(node, print);
    }
    Some(digest(&roots.iter().map(|r| done[*r]).collect::<Vec<_>>()))
}

/// An operation as text with its parameters, as in `((_ extract 7 0) x0)/(_ BitVec 8)`: its
/// declaration applied to placeholders. The declaration alone prints without them
/// (`(declare-fun extract ((_ BitVec 16)) (_ BitVec 8))` for every 8 bits of 16).
fn operation<'ctx>(decl: &z3::FuncDecl<'ctx>, children: &[Dynamic<'ctx>]) -> String {
    let placeholders: Vec<Dynamic<'ctx>> = children
        .iter()
        .enumerate()
        .map(|(i, c)| z3::FuncDecl::new(c.get_ctx(), format!("x{i}"), &[], &c.get_sort()).apply(&[]))
        .collect();
    let args: Vec<&dyn Ast<'ctx>> = placeholders.iter().map(|p| p as &dyn Ast<'ctx>).collect();
    let applied = decl.apply(&args);
    format!("{applied:?}/{}", applied.get_sort())
}

/// Operations whose application is determined by their kind and their arguments (no index,
/// name or sort parameter of their own), so their kind alone can stand for the declaration.
fn without_parameters(kind: DeclKind) -> bool {
    use DeclKind::*;
    matches!(
        kind,
        EQ | DISTINCT
            | ITE
            | AND
            | OR
            | IFF
            | XOR
            | NOT
            | IMPLIES
            | LE
            | GE
            | LT
            | GT
            | ADD
            | SUB
            | UMINUS
            | MUL
            | DIV
            | IDIV
            | REM
            | MOD
            | SELECT
            | STORE
            | BNEG
            | BADD
            | BSUB
            | BMUL
            | BSDIV
            | BUDIV
            | BSREM
            | BUREM
            | BSMOD
            | ULEQ
            | SLEQ
            | UGEQ
            | SGEQ
            | ULT
            | SLT
            | UGT
            | SGT
            | BAND
            | BOR
            | BNOT
            | BXOR
            | CONCAT
            | BSHL
            | BLSHR
            | BASHR
    )
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

    /// An operation with parameters (`extract`'s bit range) is told apart by them; one
    /// without is told apart by its arguments' sorts.
    #[test]
    fn parameters_and_sorts_tell_operations_apart() {
        let ctx = crate::smt::solver::new_context();
        let budget = Budget::new(Duration::from_secs(10), Cancel::new());
        let key = |e: &dyn Ast<'_>| of(&[&Dynamic::from_ast(e)], &budget).unwrap();
        let x = z3::ast::BV::new_const(&ctx, "x", 16);
        assert_ne!(key(&x.extract(7, 0)), key(&x.extract(15, 8)));
        let (a8, a16) = (z3::ast::BV::from_u64(&ctx, 1, 8), z3::ast::BV::from_u64(&ctx, 1, 16));
        assert_ne!(key(&a8.bvadd(&a8)), key(&a16.bvadd(&a16)));
        assert_ne!(key(&x.bvadd(&a16)), key(&x.bvsub(&a16)));
        assert_eq!(key(&x.bvadd(&a16)), key(&x.bvadd(&a16)));
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
