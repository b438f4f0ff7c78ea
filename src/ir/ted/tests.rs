//! Tree edit distances computed by hand, against a brute-force recursion, and on lowered C.

use std::collections::HashMap;

use super::*;
use crate::syntax::lower::lower_source;

/// A tree written `f(a b(c d) e)`: a label, then its children in parentheses.
#[derive(Clone, Debug, PartialEq)]
struct Node {
    label: String,
    kids: Vec<Node>,
}

fn parse(s: &str) -> Node {
    fn node(toks: &[String], at: &mut usize) -> Node {
        let label = toks[*at].clone();
        *at += 1;
        let mut kids = Vec::new();
        if toks.get(*at).is_some_and(|t| t == "(") {
            *at += 1;
            while toks[*at] != ")" {
                kids.push(node(toks, at));
            }
            *at += 1;
        }
        Node { label, kids }
    }
    let spaced = s.replace('(', " ( ").replace(')', " ) ");
    let toks: Vec<String> = spaced.split_whitespace().map(String::from).collect();
    let mut at = 0;
    let n = node(&toks, &mut at);
    assert_eq!(at, toks.len(), "trailing input in {s}");
    n
}

fn tree(n: &Node, labels: &mut Labels) -> LabelledTree {
    fn add(n: &Node, labels: &mut Labels, t: &mut LabelledTree) {
        let start = t.open();
        n.kids.iter().for_each(|k| add(k, labels, t));
        let id = labels.id(&n.label);
        t.close(start, id);
    }
    let mut t = LabelledTree::default();
    add(n, labels, &mut t);
    t
}

fn ted(a: &str, b: &str) -> usize {
    let mut labels = Labels::default();
    let (ta, tb) = (tree(&parse(a), &mut labels), tree(&parse(b), &mut labels));
    let d = distance(&ta, &tb);
    assert_eq!(d, zhang_shasha(&ta, &tb), "{a} / {b}");
    assert_eq!(d, distance(&tb, &ta), "symmetric: {a} / {b}");
    assert!(lower_bound(&ta, &tb) <= d, "{a} / {b}");
    assert!(d <= top_down_distance(&ta, &tb), "{a} / {b}");
    d
}

#[test]
fn identical_trees_are_at_distance_zero() {
    assert_eq!(ted("f(a b(c d) e)", "f(a b(c d) e)"), 0);
    assert_eq!(ted("x", "x"), 0);
}

#[test]
fn one_relabel_costs_one() {
    assert_eq!(ted("f(a b(c d) e)", "f(a b(c x) e)"), 1);
    assert_eq!(ted("f(a b(c d) e)", "g(a b(c d) e)"), 1);
    assert_eq!(ted("x", "y"), 1);
}

#[test]
fn inserting_a_subtree_of_k_nodes_costs_k() {
    assert_eq!(ted("a(b c)", "a(b x(y z) c)"), 3);
    assert_eq!(ted("a", "a(b(c(d e)))"), 4);
}

#[test]
fn deleting_an_inner_node_keeps_its_children() {
    // Deleting `b` moves `c d` up to `a`: one operation, where a top-down script needs four.
    assert_eq!(ted("a(b(c d) e)", "a(c d e)"), 1);
    let mut labels = Labels::default();
    let (x, y) = (tree(&parse("a(b(c d) e)"), &mut labels), tree(&parse("a(c d e)"), &mut labels));
    assert_eq!(top_down_distance(&x, &y), 4);
}

#[test]
fn zhang_shasha_examples() {
    // The example of Zhang and Shasha's paper (Fig. 2): delete `c` from the first tree,
    // insert `c` above `d` in the second.
    assert_eq!(ted("f(d(a c(b)) e)", "f(c(d(a b)) e)"), 2);
    // The example of the `zss` library's documentation: two relabels.
    assert_eq!(ted("f(a(h c(l)) e)", "f(a(d c(b)) e)"), 2);
}

#[test]
fn empty_trees() {
    let mut labels = Labels::default();
    let t = tree(&parse("f(a b(c d) e)"), &mut labels);
    let empty = LabelledTree::default();
    assert_eq!(distance(&empty, &t), 6);
    assert_eq!(distance(&t, &empty), 6);
    assert_eq!(distance(&empty, &empty), 0);
    assert_eq!(top_down_distance(&t, &empty), 6);
}

/// The distance by its recursive definition over forests (rightmost roots), memoised.
fn brute(f: &[Node], g: &[Node], memo: &mut HashMap<(String, String), usize>) -> usize {
    fn size(f: &[Node]) -> usize {
        f.iter().map(|n| 1 + size(&n.kids)).sum()
    }
    fn key(f: &[Node]) -> String {
        f.iter().map(|n| format!("{}({})", n.label, key(&n.kids))).collect::<Vec<_>>().join(" ")
    }
    if f.is_empty() || g.is_empty() {
        return size(f) + size(g);
    }
    let k = (key(f), key(g));
    if let Some(&d) = memo.get(&k) {
        return d;
    }
    let (v, w) = (f.last().unwrap(), g.last().unwrap());
    let (f_rest, g_rest) = (&f[..f.len() - 1], &g[..g.len() - 1]);
    let without_root = |rest: &[Node], n: &Node| -> Vec<Node> { rest.iter().chain(&n.kids).cloned().collect() };
    let del = brute(&without_root(f_rest, v), g, memo) + 1;
    let ins = brute(f, &without_root(g_rest, w), memo) + 1;
    let sub = brute(&v.kids, &w.kids, memo) + brute(f_rest, g_rest, memo) + usize::from(v.label != w.label);
    let d = del.min(ins).min(sub);
    memo.insert(k, d);
    d
}

/// A random tree of `n` nodes over the labels `a`, `b`, `c` (xorshift, so reproducible).
fn random_tree(n: usize, seed: &mut u64) -> Node {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    // Node i's parent is an earlier node; children in order of creation.
    let mut parent = vec![usize::MAX];
    let mut label = vec![(next() % 3) as u8];
    for i in 1..n {
        parent.push((next() % i as u64) as usize);
        label.push((next() % 3) as u8);
    }
    fn build(i: usize, parent: &[usize], label: &[u8]) -> Node {
        let kids = (0..parent.len()).filter(|&k| parent[k] == i).map(|k| build(k, parent, label)).collect();
        Node { label: ((b'a' + label[i]) as char).to_string(), kids }
    }
    build(0, &parent, &label)
}

#[test]
fn zhang_shasha_agrees_with_the_recursive_definition() {
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    for round in 0..300 {
        let (n, m) = (1 + round % 7, 1 + (round / 7) % 7);
        let (x, y) = (random_tree(n, &mut seed), random_tree(m, &mut seed));
        let mut labels = Labels::default();
        let (tx, ty) = (tree(&x, &mut labels), tree(&y, &mut labels));
        let expected = brute(std::slice::from_ref(&x), std::slice::from_ref(&y), &mut HashMap::new());
        let d = distance(&tx, &ty);
        assert_eq!(d, expected, "{x:?}\n{y:?}");
        assert_eq!(zhang_shasha(&tx, &ty), expected, "{x:?}\n{y:?}");
        assert_eq!(zhang_shasha(&tx.mirrored(), &ty.mirrored()), expected, "mirrored: {x:?}\n{y:?}");
        assert_eq!(d, distance(&ty, &tx));
        assert!(d <= top_down_distance(&tx, &ty));
        assert!(d >= lower_bound(&tx, &ty) && lower_bound(&tx, &ty) >= n.abs_diff(m));
    }
}

// ----- the trees of C programs -------------------------------------------------------------

fn program(src: &str) -> Program {
    let lowered = lower_source(src);
    assert!(lowered.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error), "{:?}", lowered.diagnostics);
    lowered.program
}

fn main_size(src: &str) -> usize {
    let p = program(src);
    let main = p.func(p.func_by_name("main").unwrap());
    function_tree(&p, main, &mut Labels::default()).len()
}

#[test]
fn the_same_program_is_at_distance_zero() {
    let src = "#include <stdio.h>\nint main(void) {\n  int a, b;\n  scanf(\"%d%d\", &a, &b);\n  if (a < b) printf(\"%d\\n\", a); else printf(\"%d\\n\", b);\n  return 0;\n}\n";
    let d = program_distance(&program(src), &program(src));
    assert_eq!((d.distance, d.exact), (0, true));
    assert_eq!(relative_patch_size(&program(src), &program(src)), 0.0);
}

#[test]
fn implicit_conversions_are_not_nodes() {
    // function, {}, decl d, decl i, 2, =, d, i (converted to double: no node), return, 0.
    assert_eq!(main_size("int main(void) { double d; int i = 2; d = i; return 0; }"), 10);
    // function, {}, decl s, call scanf, "%s", s (decayed: no node), return, 0.
    assert_eq!(main_size("#include <stdio.h>\nint main(void) { char s[10]; scanf(\"%s\", s); return 0; }"), 8);
    // An explicit cast is in the source: one more node than without it.
    assert_eq!(main_size("int main(void) { double d; int i = 2; d = (double)i; return 0; }"), 11);
}

#[test]
fn a_changed_operator_is_one_relabel() {
    let a = "int main(void) { int a = 1, b = 2; if (a < b) return 1; return 0; }";
    let b = "int main(void) { int a = 1, b = 2; if (a <= b) return 1; return 0; }";
    let d = program_distance(&program(a), &program(b));
    assert_eq!(d.distance, 1);
    // function, {}, decl a, 1, decl b, 2, if, <, a, b, return, 1, return, 0.
    assert_eq!(d.size, 14 + 1, "main's nodes plus the (empty) globals root");
    assert!((relative_patch_size(&program(a), &program(b)) - 1.0 / 15.0).abs() < 1e-12);
}

#[test]
fn an_inserted_statement_costs_its_nodes() {
    let a = "int main(void) { int x, y = 2; return 0; }";
    // `x = y + 1;` is `=`, x, `+`, y, 1.
    let b = "int main(void) { int x, y = 2; x = y + 1; return 0; }";
    assert_eq!(program_distance(&program(a), &program(b)).distance, 5);
    assert_eq!(program_distance(&program(b), &program(a)).distance, 5);
    // `if (y) return 1;` is if, y, return, 1.
    let c = "int main(void) { int x, y = 2; if (y) return 1; return 0; }";
    assert_eq!(program_distance(&program(a), &program(c)).distance, 4);
}

#[test]
fn variables_are_compared_by_name() {
    // A new first declaration shifts every VarId; the names still match.
    let a = "int main(void) { int x; x = 1; return x; }";
    let b = "int main(void) { int y; int x; x = 1; return x; }";
    assert_eq!(program_distance(&program(a), &program(b)).distance, 1);
    // A renamed variable: its declaration and its three uses.
    let c = "int main(void) { int z; z = 1; return z; }";
    assert_eq!(program_distance(&program(a), &program(c)).distance, 3);
}

#[test]
fn constants_formats_and_callees_are_labels() {
    let a = "#include <stdio.h>\nint main(void) { int x = 3; printf(\"%d\\n\", x); return 0; }";
    let b = "#include <stdio.h>\nint main(void) { int x = 4; printf(\"%d \\n\", x); return 0; }";
    assert_eq!(program_distance(&program(a), &program(b)).distance, 2);
    let c =
        "#include <stdio.h>\n#include <stdlib.h>\nint main(void) { int x = 3; printf(\"%d\\n\", abs(x)); return 0; }";
    assert_eq!(program_distance(&program(a), &program(c)).distance, 1);
    // float → double in a declaration and `%f` → `%lf`: two relabels.
    let d = "#include <stdio.h>\nint main(void) { float f; scanf(\"%f\", &f); return 0; }";
    let e = "#include <stdio.h>\nint main(void) { double f; scanf(\"%lf\", &f); return 0; }";
    assert_eq!(program_distance(&program(d), &program(e)).distance, 2);
}

#[test]
fn a_function_on_one_side_counts_whole() {
    let a = "int f(int x) { return x; }\nint main(void) { return f(1); }";
    let b = "int main(void) { return 1; }";
    // f: function, param x, {}, return, x; main: the call becomes its argument (1).
    let d = program_distance(&program(a), &program(b));
    assert_eq!(d.distance, 5 + 1);
    assert_eq!(program_distance(&program(b), &program(a)).distance, 6);
    assert_eq!(d.size, 5 + 5 + 1);
}

#[test]
fn for_parts_are_told_apart() {
    let a = "int main(void) { int i = 0; for (; i;) {} return 0; }";
    let b = "int main(void) { int i = 0; for (;; i) {} return 0; }";
    assert_eq!(program_distance(&program(a), &program(b)).distance, 1);
}

/// `x` with one random edit: a relabel, a deleted node (its children take its place), an
/// inserted leaf, or an inserted node above a run of siblings.
fn mutate(x: &Node, seed: &mut u64) -> Node {
    fn count(n: &Node) -> usize {
        1 + n.kids.iter().map(count).sum::<usize>()
    }
    fn edit(n: &mut Node, target: &mut usize, op: u64, r: u64) {
        for k in 0..n.kids.len() {
            if *target == 0 {
                match op {
                    0 => n.kids[k].label = ["a", "b", "c", "d"][(r % 4) as usize].to_string(),
                    1 => {
                        let gone = n.kids.remove(k);
                        for (o, g) in gone.kids.into_iter().enumerate() {
                            n.kids.insert(k + o, g);
                        }
                    }
                    2 => n.kids.insert(k, Node { label: "d".into(), kids: vec![] }),
                    _ => {
                        let end = (k + 1 + (r % 3) as usize).min(n.kids.len());
                        let moved: Vec<Node> = n.kids.drain(k..end).collect();
                        n.kids.insert(k, Node { label: "d".into(), kids: moved });
                    }
                }
                *target = usize::MAX;
                return;
            }
            *target -= 1;
            edit(&mut n.kids[k], target, op, r);
            if *target == usize::MAX {
                return;
            }
        }
    }
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let mut y = x.clone();
    let n = count(x);
    if n > 1 {
        let mut target = (next() % (n as u64 - 1)) as usize;
        edit(&mut y, &mut target, next() % 4, next());
    }
    y
}

#[test]
fn the_reductions_keep_the_distance_exact_on_near_trees() {
    let mut seed = 0x2545_f491_4f6c_dd1d;
    for round in 0..400 {
        let x = random_tree(5 + round % 30, &mut seed);
        let mut y = x.clone();
        for _ in 0..1 + round % 4 {
            y = mutate(&y, &mut seed);
        }
        let mut labels = Labels::default();
        let (tx, ty) = (tree(&x, &mut labels), tree(&y, &mut labels));
        let exact = zhang_shasha(&tx, &ty);
        assert_eq!(distance(&tx, &ty), exact, "{x:?}\n{y:?}");
        assert_eq!(distance(&ty, &tx), exact, "{x:?}\n{y:?}");
        let (bounded, is_exact) = reduced_distance(&tx, &ty, 3);
        assert!(bounded >= exact && (!is_exact || bounded == exact), "{x:?}\n{y:?}");
    }
}

#[test]
fn the_token_approximation_counts_replaced_and_inserted_tokens() {
    let text = "int main(void) { int a = 1; return a < 2; }";
    let at = text.find("a < 2").unwrap();
    // `a < 2` (3 tokens) replaced by `a <= 2` (4 tokens) in a text of 11 (nine words, `=`, `<`).
    let edit = crate::ir::TextEdit { span: crate::ir::Span::new(at, at + 5), new_text: "a <= 2".into() };
    assert!((token_patch_size(text, &[edit]) - 7.0 / 11.0).abs() < 1e-12);
    assert_eq!(token_patch_size(text, &[]), 0.0);
}
