//! Constant folding through `ite`s. In a formula whose inputs are concrete (a CEGIS
//! counterexample's instance) what remains symbolic is which alternative each hole takes, so
//! values are `ite(choice, 3, ite(choice', 5, 7))` trees with constant leaves. Z3's simplifier
//! folds `(3 + 1)` but not `(ite(c, 3, 5) + 1)`: an operation on such trees, above all a
//! floating-point one (`to_fp`, `fp.lt`), then stays and is bit-blasted by the solver again
//! for every counterexample. Here an operation whose arguments are all constants or such trees
//! is pushed to the leaves, where it folds to a constant: what is left is a propositional
//! formula over the choices.

use std::collections::HashMap;
use std::hash::Hash;

use z3::ast::{Ast, Bool, Dynamic};
use z3::{AstKind, DeclKind, SortKind};

/// Past this many leaf combinations an operation is left as it is (the formula stays correct,
/// only less folded).
const MAX_LEAVES: usize = 64;

/// `e` with every operation on constant-leaved `ite` trees folded (an equivalent formula).
pub fn fold_constant_ites<'ctx>(e: &Dynamic<'ctx>) -> Dynamic<'ctx> {
    Folder::default().fold(e)
}

/// One formula's folding. Its memos are shared by every operation of the formula: a printed
/// output's token comparisons share their `ite` trees, and counted or distributed afresh for
/// each operation above them, one CEGIS instance of a program that prints prompts took 650 ms
/// (64,000 simplifications of the same few constant applications).
#[derive(Default)]
struct Folder<'ctx> {
    folded: Memo<Dynamic<'ctx>, Dynamic<'ctx>>,
    leaf_counts: Memo<Dynamic<'ctx>, Option<usize>>,
    /// An application (of constant-leaved trees) → its folded form.
    distributed: Memo<Dynamic<'ctx>, Dynamic<'ctx>>,
    /// (a value tree, a constant) → whether they are equal.
    compared: Memo<(Dynamic<'ctx>, Dynamic<'ctx>), Bool<'ctx>>,
}

/// A memo of terms that releases them in the order they were added. Z3 reuses the ids of
/// deleted terms, and simplification orders arguments by id: releasing intermediate terms in
/// a hash map's random order made later formulas (and so the repair chosen among equally
/// small ones) differ from run to run.
struct Memo<K, V> {
    index: HashMap<K, usize>,
    entries: Vec<(K, V)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo { index: HashMap::new(), entries: Vec::new() }
    }
}

impl<K: Hash + Eq + Clone, V> Memo<K, V> {
    fn get(&self, k: &K) -> Option<&V> {
        self.index.get(k).map(|&i| &self.entries[i].1)
    }
    fn insert(&mut self, k: K, v: V) {
        self.index.insert(k.clone(), self.entries.len());
        self.entries.push((k, v));
    }
}

impl<K, V> Drop for Memo<K, V> {
    fn drop(&mut self) {
        // The index's keys are shared with the entries, so clearing it deletes nothing; the
        // entries then go first to last.
        self.index.clear();
        self.entries.clear();
    }
}

fn is_value(e: &Dynamic<'_>) -> bool {
    match e.kind() {
        AstKind::Numeral => true,
        AstKind::App => e.num_children() == 0 && e.decl().kind() != DeclKind::UNINTERPRETED,
        _ => false,
    }
}

fn is_ite(e: &Dynamic<'_>) -> bool {
    e.kind() == AstKind::App && e.num_children() == 3 && e.decl().kind() == DeclKind::ITE
}

impl<'ctx> Folder<'ctx> {
    /// The number of constant leaves of a value tree, or `None` if it is not one.
    fn leaves(&mut self, e: &Dynamic<'ctx>) -> Option<usize> {
        if is_value(e) {
            return Some(1);
        }
        if !is_ite(e) {
            return None;
        }
        if let Some(n) = self.leaf_counts.get(e) {
            return *n;
        }
        let kids = e.children();
        let n = match (self.leaves(&kids[1]), self.leaves(&kids[2])) {
            // Shared subtrees count once per path: the count can be exponential in the DAG's size.
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            _ => None,
        };
        self.leaf_counts.insert(e.clone(), n);
        n
    }

    fn fold(&mut self, e: &Dynamic<'ctx>) -> Dynamic<'ctx> {
        if e.kind() != AstKind::App || e.num_children() == 0 {
            return e.clone();
        }
        if let Some(done) = self.folded.get(e) {
            return done.clone();
        }
        let decl = e.decl();
        let kids: Vec<Dynamic<'ctx>> = e.children().iter().map(|k| self.fold(k)).collect();
        let kind = decl.kind();
        let connective = matches!(
            kind,
            DeclKind::ITE
                | DeclKind::AND
                | DeclKind::OR
                | DeclKind::NOT
                | DeclKind::IMPLIES
                | DeclKind::IFF
                | DeclKind::XOR
        );
        let out = if connective || kind == DeclKind::UNINTERPRETED {
            rebuild(&decl, &kids)
        } else {
            let counts: Option<Vec<usize>> = kids.iter().map(|k| self.leaves(k)).collect();
            match counts {
                // A printed character compared with a constant, the bulk of an output
                // formula: leaf by leaf, however many leaves.
                Some(c)
                    if kind == DeclKind::EQ
                        && kids[0].sort_kind() == SortKind::BV
                        && c.len() == 2
                        && c.contains(&1) =>
                {
                    let (tree, k) = if c[0] == 1 { (&kids[1], &kids[0]) } else { (&kids[0], &kids[1]) };
                    Dynamic::from_ast(&self.equals(tree, k))
                }
                Some(c)
                    if c.iter().any(|n| *n > 1)
                        && c.iter().try_fold(1usize, |p, n| p.checked_mul(*n)).is_some_and(|p| p <= MAX_LEAVES) =>
                {
                    self.distribute(&decl, kids)
                }
                _ => rebuild(&decl, &kids),
            }
        };
        self.folded.insert(e.clone(), out.clone());
        out
    }

    /// `tree == k` for a value tree and a constant of a bit-vector sort. Equal bit-vector
    /// constants are one term in Z3, so a leaf equals `k` exactly when it is `k`: no
    /// application is built or simplified.
    fn equals(&mut self, tree: &Dynamic<'ctx>, k: &Dynamic<'ctx>) -> Bool<'ctx> {
        if is_value(tree) {
            return Bool::from_bool(tree.get_ctx(), tree == k);
        }
        let key = (tree.clone(), k.clone());
        if let Some(done) = self.compared.get(&key) {
            return done.clone();
        }
        let parts = tree.children();
        let c = parts[0].as_bool().expect("ite condition");
        let (x, y) = (self.equals(&parts[1], k), self.equals(&parts[2], k));
        let out = match (x.as_bool(), y.as_bool()) {
            (Some(a), Some(b)) if a == b => x,
            (Some(true), Some(false)) => c,
            (Some(false), Some(true)) => c.not(),
            _ => c.ite(&x, &y),
        };
        self.compared.insert(key, out.clone());
        out
    }

    /// `f(.., ite(c, a, b), ..)` → `ite(c, f(.., a, ..), f(.., b, ..))`, down to constant leaves.
    fn distribute(&mut self, decl: &z3::FuncDecl<'ctx>, kids: Vec<Dynamic<'ctx>>) -> Dynamic<'ctx> {
        let app = rebuild(decl, &kids);
        if let Some(done) = self.distributed.get(&app) {
            return done.clone();
        }
        let out = match kids.iter().position(is_ite) {
            None => app.simplify(),
            Some(i) => {
                let parts = kids[i].children();
                let (c, a, b) = (parts[0].as_bool().expect("ite condition"), parts[1].clone(), parts[2].clone());
                let mut with_a = kids.clone();
                with_a[i] = a;
                let mut with_b = kids;
                with_b[i] = b;
                let (x, y) = (self.distribute(decl, with_a), self.distribute(decl, with_b));
                c.ite(&x, &y)
            }
        };
        self.distributed.insert(app, out.clone());
        out
    }
}

fn rebuild<'ctx>(decl: &z3::FuncDecl<'ctx>, kids: &[Dynamic<'ctx>]) -> Dynamic<'ctx> {
    let refs: Vec<&dyn Ast<'ctx>> = kids.iter().map(|k| k as &dyn Ast<'ctx>).collect();
    decl.apply(&refs)
}

#[cfg(test)]
mod tests {
    use z3::ast::{Ast, BV, Bool, Dynamic};

    use super::fold_constant_ites;
    use crate::ir::BinOp;
    use crate::ir::FloatKind;
    use crate::smt::floats::{FloatModel, Floats};
    use crate::smt::solver::new_context;

    /// A counterexample-like formula: floating-point operations on the holes' constant
    /// alternatives. Folded, it is the same formula with no floating-point operation left.
    #[test]
    fn folds_float_operations_on_ite_trees_to_an_equivalent_formula() {
        let ctx = new_context();
        let mut fp = Floats::new(&ctx, FloatModel::Ieee);
        let (c1, c2, c3) = (Bool::new_const(&ctx, "c1"), Bool::new_const(&ctx, "c2"), Bool::new_const(&ctx, "c3"));
        let (a, b, c) = (
            fp.literal(1.5, FloatKind::Double),
            fp.literal(2.5, FloatKind::Double),
            fp.literal(3.0, FloatKind::Double),
        );
        let x = c1.ite(&a, &c2.ite(&b, &c));
        let flag = c3.ite(&BV::from_i64(&ctx, 1, 32), &BV::from_i64(&ctx, 0, 32));
        let y = fp.from_int(&flag, true, FloatKind::Double);
        let one = fp.literal(1.0, FloatKind::Double);
        let z = fp.arith("add", &y, &one, FloatKind::Double);
        let e = Bool::and(&ctx, &[&fp.c_compare(BinOp::Lt, &y, &x), &fp.c_compare(BinOp::Le, &z, &x).not()]);
        let folded = fold_constant_ites(&Dynamic::from_ast(&e)).as_bool().expect("bool").simplify();
        assert!(!folded.to_string().contains("fp."), "left unfolded: {folded}");
        let solver = z3::Solver::new(&ctx);
        solver.assert(&e._eq(&folded).not());
        assert_eq!(solver.check(), z3::SatResult::Unsat, "not equivalent: {folded}");
    }

    /// A printed character (a tree of byte constants over the holes' choices) compared with
    /// constants, as a printed-output check has them: folded leaf by leaf to an equivalent
    /// formula over the choices alone.
    #[test]
    fn folds_a_tree_of_constants_compared_with_a_constant() {
        let ctx = new_context();
        let choice = |n: &str| Bool::new_const(&ctx, n);
        let byte = |v: u64| BV::from_u64(&ctx, v, 8);
        let tree = choice("c1").ite(&byte(b'a' as u64), &choice("c2").ite(&byte(b'b' as u64), &byte(b'a' as u64)));
        let never = tree._eq(&byte(b'z' as u64));
        let a = byte(b'a' as u64)._eq(&tree);
        let e = Bool::and(&ctx, &[&a, &never.not()]);
        let folded = fold_constant_ites(&Dynamic::from_ast(&e)).as_bool().expect("bool");
        assert!(!folded.to_string().contains("#x"), "left unfolded: {folded}");
        let solver = z3::Solver::new(&ctx);
        solver.assert(&e._eq(&folded).not());
        assert_eq!(solver.check(), z3::SatResult::Unsat, "not equivalent: {folded}");
    }
}
