//! Tree edit distance between programs: the *relative patch size* of Verifix (seed paper 000,
//! Section 7, after Clara): `RPS = Dist(AST_s, AST_f) / Size(AST_s)`, the ordered tree edit
//! distance between the student's and the repaired program's ASTs over the number of nodes of
//! the student's AST.
//!
//! **Distance.** Zhang and Shasha's algorithm (SIAM J. Comput. 18(6), 1989): the exact
//! ordered tree edit distance with unit costs (deleting a node, inserting one, relabelling
//! one), in `O(|A| |B| min(depth, leaves)_A min(depth, leaves)_B)` time and `O(|A| |B|)`
//! memory. Before it runs, two exact reductions ([`reduced_distance`]) narrow the comparison
//! to the smallest subtrees or sibling runs that differ, and there [`top_down_distance`]
//! (Selkow's: whole subtrees inserted or deleted below matched nodes; an upper bound, in
//! `O(|A| |B|)`) and [`lower_bound`] (from the label multisets) often meet, as for a
//! relabelled operator or an inserted statement. Where a remaining part of more than
//! [`EXACT_LIMIT`] nodes is left undecided by the bounds, the upper bound is reported
//! instead (and marked inexact).
//!
//! **The tree** ([`function_tree`]). One tree per function: the root is the function (its
//! return type and name), its children its parameters (`param` + type + name) and its body.
//! Statements are nodes labelled by their kind (`{}`, `if`, `while`, `do`, `for` with the
//! parts it has, `switch`, `case N`/`default`, `break`, `continue`, `return`, `;`) with their
//! parts as children in source order; an expression statement is its expression (as in
//! pycparser's AST, which Clara uses); a declaration is one node per declarator labelled with
//! its type and name, its initialiser the child. Expressions are labelled by operator
//! (`+`, `<=`, `&&`, `=`, `+=`, `x++`, `?:`, `[]`, unary `-`, `&`, `*`, `.f`, `->f`,
//! `(T)` for an explicit cast), variable *name* (the two programs are lowered separately, so
//! their `VarId`s do not correspond), constant value, callee name and string literal (format
//! strings included). Implicit conversions (`Cast { implicit: true }`, `Decay`) are not in the
//! source and are not nodes: their operand takes their place. Global declarations and
//! object-like `#define`s form one more tree (`globals`); struct definitions are not counted.
//!
//! **The program.** Functions are matched by name; a function on one side only counts its
//! whole tree (deleted or inserted). [`relative_patch_size`] is the sum of the distances over
//! the student's size (the sum of its trees' sizes).

use std::collections::HashMap;

use super::program::*;
use super::types::Type;

/// A part larger than this (in nodes) that the bounds do not decide is compared with
/// [`top_down_distance`], an upper bound, instead of Zhang–Shasha, which needs `|A| |B|`
/// words of memory twice (72 MB at this size) and time that grows faster. IntroClass
/// functions have at most 900 nodes.
pub const EXACT_LIMIT: usize = 3000;

/// The label of the root put above a forest ([`Labels`] never gives it out).
const VIRTUAL_ROOT: u32 = u32::MAX;

/// Interned node labels, shared by the trees that are compared with each other.
#[derive(Default)]
pub struct Labels {
    ids: HashMap<String, u32>,
}

impl Labels {
    pub fn id(&mut self, label: &str) -> u32 {
        if let Some(&id) = self.ids.get(label) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(label.to_string(), id);
        id
    }
}

/// An ordered labelled tree in postorder: node `i`'s label is `labels[i]` and its subtree
/// is the nodes `first[i]..=i` (`first[i]` is its leftmost leaf, Zhang–Shasha's `l(i)`).
/// The root is the last node; the empty tree has no nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelledTree {
    labels: Vec<u32>,
    first: Vec<u32>,
}

impl LabelledTree {
    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.labels.len()
    }
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
    /// Starts a subtree: pass the result to [`LabelledTree::close`] after its children.
    pub fn open(&self) -> usize {
        self.labels.len()
    }
    /// Ends the subtree begun at `start` (by [`LabelledTree::open`]) with its root.
    pub fn close(&mut self, start: usize, label: u32) {
        self.first.push(start as u32);
        self.labels.push(label);
    }
    /// A leaf.
    pub fn leaf(&mut self, label: u32) {
        let start = self.open();
        self.close(start, label);
    }
    fn size(&self, i: usize) -> usize {
        i + 1 - self.first[i] as usize
    }
    /// The children of node `i`, left to right.
    fn children(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut c = i;
        while c > self.first[i] as usize {
            c -= 1;
            out.push(c);
            c = self.first[c] as usize;
        }
        out.reverse();
        out
    }

    /// Whether node `i`'s subtree equals node `j`'s of `other`.
    fn same_subtree(&self, i: usize, other: &LabelledTree, j: usize) -> bool {
        let (li, lj) = (self.first[i] as usize, other.first[j] as usize);
        i - li == j - lj
            && self.labels[li..=i] == other.labels[lj..=j]
            && self.first[li..=i].iter().zip(&other.first[lj..=j]).all(|(x, y)| *x as usize - li == *y as usize - lj)
    }

    /// Node `i`'s subtree.
    fn subtree(&self, i: usize) -> LabelledTree {
        let l = self.first[i];
        LabelledTree {
            labels: self.labels[l as usize..=i].to_vec(),
            first: self.first[l as usize..=i].iter().map(|f| f - l).collect(),
        }
    }

    /// The consecutive siblings `roots` under a virtual root (a label no node has); the
    /// empty tree if `roots` is empty.
    fn forest(&self, roots: &[usize]) -> LabelledTree {
        let (Some(&head), Some(&last)) = (roots.first(), roots.last()) else { return LabelledTree::default() };
        let l = self.first[head];
        let mut t = LabelledTree {
            labels: self.labels[l as usize..=last].to_vec(),
            first: self.first[l as usize..=last].iter().map(|f| f - l).collect(),
        };
        t.close(0, VIRTUAL_ROOT);
        t
    }

    /// The tree with every node's children in reverse order.
    fn mirrored(&self) -> LabelledTree {
        fn emit(t: &LabelledTree, i: usize, out: &mut LabelledTree) {
            let start = out.open();
            for c in t.children(i).into_iter().rev() {
                emit(t, c, out);
            }
            out.close(start, t.labels[i]);
        }
        let mut out = LabelledTree::default();
        if !self.is_empty() {
            emit(self, self.len() - 1, &mut out);
        }
        out
    }

    /// Zhang–Shasha's keyroots: the highest node of each leftmost leaf (the nodes with a left
    /// sibling, and the root), in postorder.
    fn keyroots(&self) -> Vec<usize> {
        let mut seen = vec![false; self.len()];
        let mut out = Vec::new();
        for i in (0..self.len()).rev() {
            let l = self.first[i] as usize;
            if !seen[l] {
                seen[l] = true;
                out.push(i);
            }
        }
        out.reverse();
        out
    }

    /// The cells Zhang–Shasha fills on this side: the keyroots' subtree sizes, summed.
    fn keyroot_work(&self) -> usize {
        self.keyroots().into_iter().map(|k| self.size(k)).sum()
    }
}

/// The exact ordered tree edit distance (unit costs).
///
/// Two exact reductions come first, so that a repaired program is compared with the student's
/// around its changes only (see [`reduced_distance`]). What remains is decided by the bounds
/// where [`top_down_distance`] (an upper bound) equals [`lower_bound`] (a relabelled
/// operator, an inserted statement), else by Zhang and Shasha's algorithm. That algorithm
/// decomposes along leftmost paths; its work is the product of the two trees' keyroot subtree
/// sizes, which is quadratic in the depth of a chain hanging off rightmost children (an
/// `else if` chain). The distance of the two trees mirrored is the same, so the cheaper of
/// the two directions is run (the choice of Demaine et al.'s and Pawlik and Augsten's path
/// strategies, restricted to left and right paths).
pub fn distance(a: &LabelledTree, b: &LabelledTree) -> usize {
    reduced_distance(a, b, usize::MAX).0
}

/// The distance, computed after two exact reductions, and whether it is exact: when a
/// remaining subproblem has a side of more than `limit` nodes and its bounds do not meet, its
/// [`top_down_distance`] is used instead.
///
/// 1. *Equal root labels.* Some optimal mapping maps root to root (a mapping that maps
///    either root elsewhere leaves the other root unmapped, and mapping the two roots instead
///    costs no more), so the distance is that of the children forests.
/// 2. *Equal leading (or trailing) trees of two forests* `T F'` and `T G'`: the distance is
///    that of `F'` and `G'`. From an optimal mapping `M`, keep its pairs within `F' × G'` and
///    map `T` to `T`: a pair of `M` crossing from the first `T` to `G'` and one crossing from
///    `F'` to the second `T` would invert sibling order, so at most `|T|` pairs of `M` touch
///    either `T`, and the cost `|F| + |G| - |M| - |M with equal labels|` does not rise.
///
/// So the comparison descends from the roots while labels agree, trims equal leading and
/// trailing children, and continues into the one child left on each side; several children
/// left on a side are compared as a forest under a common virtual root (which rule 1 shows
/// changes nothing).
pub fn reduced_distance(a: &LabelledTree, b: &LabelledTree, limit: usize) -> (usize, bool) {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len(), true);
    }
    let (mut i, mut j) = (a.len() - 1, b.len() - 1);
    loop {
        if a.same_subtree(i, b, j) {
            return (0, true);
        }
        if a.labels[i] != b.labels[j] {
            return general(&a.subtree(i), &b.subtree(j), limit);
        }
        let (ca, cb) = (a.children(i), b.children(j));
        let lead = ca.iter().zip(&cb).take_while(|(x, y)| a.same_subtree(**x, b, **y)).count();
        let trail = ca[lead..]
            .iter()
            .rev()
            .zip(cb[lead..].iter().rev())
            .take_while(|(x, y)| a.same_subtree(**x, b, **y))
            .count();
        let (ra, rb) = (&ca[lead..ca.len() - trail], &cb[lead..cb.len() - trail]);
        match (ra, rb) {
            (&[x], &[y]) => (i, j) = (x, y),
            ([], rest) | (rest, []) => {
                let t = if ra.is_empty() { b } else { a };
                return (rest.iter().map(|&x| t.size(x)).sum(), true);
            }
            _ => return general(&a.forest(ra), &b.forest(rb), limit),
        }
    }
}

/// The distance by the bounds where they meet, else by Zhang–Shasha in the cheaper direction
/// (or the upper bound, inexact, past `limit` nodes).
fn general(a: &LabelledTree, b: &LabelledTree, limit: usize) -> (usize, bool) {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len(), true);
    }
    let upper = top_down_distance(a, b);
    if upper == lower_bound(a, b) {
        return (upper, true);
    }
    if a.len().max(b.len()) > limit {
        return (upper, false);
    }
    let (ma, mb) = (a.mirrored(), b.mirrored());
    let d = if ma.keyroot_work() * mb.keyroot_work() < a.keyroot_work() * b.keyroot_work() {
        zhang_shasha(&ma, &mb)
    } else {
        zhang_shasha(a, b)
    };
    (d, true)
}

/// A lower bound of the distance from the labels alone: an edit script maps the nodes it
/// keeps one to one, and at most `I` of them keep their label, where `I` is the size of the
/// intersection of the two label multisets; it costs `|A| + |B| - kept - kept same label`,
/// at least `max(|A|, |B|) - I`.
pub fn lower_bound(a: &LabelledTree, b: &LabelledTree) -> usize {
    let mut count: HashMap<u32, isize> = HashMap::new();
    for &l in &a.labels {
        *count.entry(l).or_default() += 1;
    }
    let mut common = 0;
    for &l in &b.labels {
        let c = count.entry(l).or_default();
        if *c > 0 {
            common += 1;
        }
        *c -= 1;
    }
    a.len().max(b.len()) - common
}

/// Zhang and Shasha's algorithm as published (leftmost paths, no shortcut): the exact
/// distance.
pub fn zhang_shasha(a: &LabelledTree, b: &LabelledTree) -> usize {
    let (n, m) = (a.len(), b.len());
    let (ka, kb) = (a.keyroots(), b.keyroots());
    // treedist[x][y]: the distance between the subtrees rooted at x and y (row-major).
    let mut td = vec![0u32; n * m];
    // forestdist over the prefixes of the two keyroots' subtrees (row-major, `cols` wide):
    // row di, column dj is the forest of the first di nodes of i's subtree (postorder) and
    // the first dj of j's.
    let mut fd = vec![0u32; (n + 1) * (m + 1)];
    for &i in &ka {
        let li = a.first[i] as usize;
        for &j in &kb {
            let lj = b.first[j] as usize;
            let (rows, cols) = (i - li + 2, j - lj + 2);
            // Where each node y of j's subtree starts, as a column offset.
            let starts = &b.first[lj..=j];
            let labels_b = &b.labels[lj..=j];
            for (dj, cell) in fd[..cols].iter_mut().enumerate() {
                *cell = dj as u32;
            }
            for di in 1..rows {
                let x = li + di - 1;
                let lx = a.first[x] as usize;
                let (done, rest) = fd.split_at_mut(di * cols);
                let prev = &done[(di - 1) * cols..];
                let cur = &mut rest[..cols];
                let td_x = &mut td[x * m + lj..x * m + j + 1];
                cur[0] = di as u32;
                if lx == li {
                    // x's subtree is a prefix of i's: where j's prefix is a whole tree too,
                    // the roots are matched and treedist(x, y) is found.
                    for dj in 1..cols {
                        let ly = starts[dj - 1] as usize - lj;
                        let (del, ins) = (prev[dj] + 1, cur[dj - 1] + 1);
                        let v = if ly == 0 {
                            let v = del.min(ins).min(prev[dj - 1] + u32::from(a.labels[x] != labels_b[dj - 1]));
                            td_x[dj - 1] = v;
                            v
                        } else {
                            del.min(ins).min(done[ly] + td_x[dj - 1])
                        };
                        cur[dj] = v;
                    }
                } else {
                    // x's subtree is a later tree of the forest: the forest before it, plus
                    // treedist(x, y), found earlier.
                    let before = &done[(lx - li) * cols..(lx - li + 1) * cols];
                    for dj in 1..cols {
                        let ly = starts[dj - 1] as usize - lj;
                        cur[dj] = (prev[dj] + 1).min(cur[dj - 1] + 1).min(before[ly] + td_x[dj - 1]);
                    }
                }
            }
        }
    }
    td[(n - 1) * m + (m - 1)] as usize
}

/// Selkow's top-down distance: roots are matched (relabelled if they differ) and their
/// children sequences aligned by a string edit distance whose insertions and deletions are
/// whole subtrees. Every such script is a tree edit script, so this is at least
/// [`distance`]; it takes `O(|A| |B|)` time.
pub fn top_down_distance(a: &LabelledTree, b: &LabelledTree) -> usize {
    fn go(a: &LabelledTree, b: &LabelledTree, i: usize, j: usize) -> usize {
        if a.same_subtree(i, b, j) {
            return 0;
        }
        let (ca, cb) = (a.children(i), b.children(j));
        let cols = cb.len() + 1;
        let mut dp = vec![0usize; (ca.len() + 1) * cols];
        for (x, &c) in ca.iter().enumerate() {
            dp[(x + 1) * cols] = dp[x * cols] + a.size(c);
        }
        for (y, &c) in cb.iter().enumerate() {
            dp[y + 1] = dp[y] + b.size(c);
        }
        for (x, &u) in ca.iter().enumerate() {
            for (y, &w) in cb.iter().enumerate() {
                let del = dp[x * cols + y + 1] + a.size(u);
                let ins = dp[(x + 1) * cols + y] + b.size(w);
                let sub = dp[x * cols + y] + go(a, b, u, w);
                dp[(x + 1) * cols + y + 1] = del.min(ins).min(sub);
            }
        }
        usize::from(a.labels[i] != b.labels[j]) + dp[ca.len() * cols + cb.len()]
    }
    match (a.len(), b.len()) {
        (0, m) => m,
        (n, 0) => n,
        (n, m) => go(a, b, n - 1, m - 1),
    }
}

/// [`reduced_distance`] with [`EXACT_LIMIT`].
pub fn bounded_distance(a: &LabelledTree, b: &LabelledTree) -> (usize, bool) {
    reduced_distance(a, b, EXACT_LIMIT)
}

/// The labelled tree of a function (see the module documentation).
pub fn function_tree(p: &Program, f: &Function, labels: &mut Labels) -> LabelledTree {
    let mut b = Builder { p, labels, t: LabelledTree::default() };
    let start = b.t.open();
    for &v in &f.params {
        let label = format!("param {} {}", p.type_name(&p.var(v).ty), p.var(v).name);
        b.leaf(&label);
    }
    if let Some(body) = &f.body {
        b.stmt(body);
    }
    b.close(start, &format!("function {} {}", p.type_name(&f.ret), f.name));
    b.t
}

/// The tree of the global declarations and object-like `#define`s.
pub fn globals_tree(p: &Program, labels: &mut Labels) -> LabelledTree {
    let mut b = Builder { p, labels, t: LabelledTree::default() };
    let start = b.t.open();
    for (name, value, _) in &p.macros {
        b.leaf(&format!("#define {name} {value}"));
    }
    for (v, init) in &p.globals {
        b.decl(*v, init.as_ref());
    }
    b.close(start, "globals");
    b.t
}

/// The distance between two programs (functions matched by name, plus the globals) and the
/// size of the first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProgramDistance {
    pub distance: usize,
    /// Nodes of the first program's trees.
    pub size: usize,
    /// False when a tree exceeded [`EXACT_LIMIT`] and the distance is an upper bound.
    pub exact: bool,
}

/// The tree edit distance from `a` to `b` (see the module documentation).
pub fn program_distance(a: &Program, b: &Program) -> ProgramDistance {
    let mut labels = Labels::default();
    let (ga, gb) = (globals_tree(a, &mut labels), globals_tree(b, &mut labels));
    let mut out = ProgramDistance { distance: 0, size: ga.len(), exact: true };
    let add = |x: &LabelledTree, y: &LabelledTree, out: &mut ProgramDistance| {
        let (d, exact) = bounded_distance(x, y);
        out.distance += d;
        out.exact &= exact;
    };
    add(&ga, &gb, &mut out);
    let defined = |p: &Program| -> Vec<usize> { (0..p.funcs.len()).filter(|&i| p.funcs[i].body.is_some()).collect() };
    for i in defined(a) {
        let fa = &a.funcs[i];
        let ta = function_tree(a, fa, &mut labels);
        out.size += ta.len();
        match b.func_by_name(&fa.name) {
            Some(j) => {
                let tb = function_tree(b, b.func(j), &mut labels);
                add(&ta, &tb, &mut out);
            }
            None => out.distance += ta.len(),
        }
    }
    for j in defined(b) {
        let fb = &b.funcs[j];
        if a.func_by_name(&fb.name).is_none() {
            out.distance += function_tree(b, fb, &mut labels).len();
        }
    }
    out
}

/// Verifix's relative patch size: the tree edit distance between the student's program and
/// the repaired one over the student's AST size. Exact, unless a function has more than
/// [`EXACT_LIMIT`] nodes and the bounds do not meet: its distance is then
/// [`top_down_distance`], an upper bound ([`program_distance`] says which).
pub fn relative_patch_size(student: &Program, repaired: &Program) -> f64 {
    let d = program_distance(student, repaired);
    d.distance as f64 / d.size.max(1) as f64
}

/// The relative patch size approximated on the text, for a repaired text that does not lower:
/// the tokens (words, numbers and operator characters) of every replaced and every inserted
/// text (a subtree deleted and one inserted) over the tokens of `text`.
pub fn token_patch_size(text: &str, edits: &[super::repair::TextEdit]) -> f64 {
    let tokens = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty()).count()
            + s.chars().filter(|c| "+-*/%<>=!&|?:".contains(*c)).count()
    };
    let changed: usize =
        edits.iter().map(|e| tokens(text.get(e.span.range()).unwrap_or("")) + tokens(&e.new_text)).sum();
    changed as f64 / tokens(text).max(1) as f64
}

struct Builder<'a> {
    p: &'a Program,
    labels: &'a mut Labels,
    t: LabelledTree,
}

impl Builder<'_> {
    fn leaf(&mut self, label: &str) {
        let id = self.labels.id(label);
        self.t.leaf(id);
    }
    fn close(&mut self, start: usize, label: &str) {
        let id = self.labels.id(label);
        self.t.close(start, id);
    }
    fn ty(&self, ty: &Type) -> String {
        self.p.type_name(ty)
    }

    fn decl(&mut self, var: VarId, init: Option<&Init>) {
        let v = self.p.var(var);
        let label = format!(
            "{}decl {} {}",
            if v.kind == VarKind::StaticLocal { "static " } else { "" },
            self.ty(&v.ty),
            v.name
        );
        let start = self.t.open();
        if let Some(i) = init {
            self.init(i);
        }
        self.close(start, &label);
    }

    fn init(&mut self, init: &Init) {
        match init {
            Init::Expr(e) => self.expr(e),
            Init::List(items, _) => {
                let start = self.t.open();
                items.iter().for_each(|i| self.init(i));
                self.close(start, "{init}");
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let start = self.t.open();
        let label: String = match &s.kind {
            // An expression statement is its expression.
            StmtKind::Expr(e) => return self.expr(e),
            StmtKind::Decl { var, init } => return self.decl(*var, init.as_ref()),
            StmtKind::VlaDecl { var, len, row } => {
                self.expr(len);
                if let Some((_, per)) = row {
                    self.expr(per);
                }
                let v = self.p.var(*var);
                format!("decl {}[] {}", self.ty(v.ty.pointee().unwrap_or(&Type::Error)), v.name)
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
                "if".into()
            }
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.stmt(body);
                "while".into()
            }
            StmtKind::DoWhile { body, cond } => {
                self.stmt(body);
                self.expr(cond);
                "do".into()
            }
            StmtKind::For { init, cond, step, body } => {
                init.iter().for_each(|s| self.stmt(s));
                cond.iter().chain(step).for_each(|e| self.expr(e));
                self.stmt(body);
                // Which parts exist: children alone would not say whether `i` is a condition
                // or a step.
                format!("for(;{};{})", if cond.is_some() { "c" } else { "" }, if step.is_some() { "s" } else { "" })
            }
            StmtKind::Switch { cond, arms } => {
                self.expr(cond);
                for arm in arms {
                    let a = self.t.open();
                    arm.body.iter().for_each(|s| self.stmt(s));
                    self.close(a, &arm.label.map_or("default".to_string(), |v| format!("case {v}")));
                }
                "switch".into()
            }
            StmtKind::Break => "break".into(),
            StmtKind::Continue => "continue".into(),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.expr(e);
                }
                "return".into()
            }
            StmtKind::Block(b) => {
                b.iter().for_each(|s| self.stmt(s));
                "{}".into()
            }
            StmtKind::Empty => ";".into(),
        };
        self.close(start, &label);
    }

    fn expr(&mut self, e: &Expr) {
        let label: String = match &e.kind {
            // Not in the source: the operand stands for it.
            ExprKind::Cast { expr, implicit: true } | ExprKind::Decay(expr) => return self.expr(expr),
            ExprKind::Int(v) => format!("int {v}"),
            ExprKind::Float(v) => format!("float {v:?}"),
            ExprKind::Str(bytes) => format!("str {:?}", String::from_utf8_lossy(bytes)),
            ExprKind::Var(id) => format!("var {}", self.p.var(*id).name),
            ExprKind::Unary(op, _) => match op {
                UnOp::Neg => "unary -",
                UnOp::BitNot => "unary ~",
                UnOp::Not => "unary !",
            }
            .into(),
            ExprKind::Binary(op, _, _) => op.c_token().into(),
            ExprKind::Logical(LogicOp::And, _, _) => "&&".into(),
            ExprKind::Logical(LogicOp::Or, _, _) => "||".into(),
            ExprKind::Assign(..) => "=".into(),
            ExprKind::CompoundAssign { op, .. } => format!("{}=", op.c_token()),
            ExprKind::IncDec(op, _) => match op {
                IncDec::PreInc => "++x",
                IncDec::PreDec => "--x",
                IncDec::PostInc => "x++",
                IncDec::PostDec => "x--",
            }
            .into(),
            ExprKind::Cond(..) => "?:".into(),
            ExprKind::Cast { implicit: false, .. } => format!("({})", self.ty(&e.ty)),
            ExprKind::Call(callee, _) => match callee {
                Callee::Func(id) => format!("call {}", self.p.func(*id).name),
                Callee::Builtin(Builtin::Nondet) => format!("call {}", super::print::nondet_name(&e.ty)),
                Callee::Builtin(b) => format!("call {}", b.c_name()),
            },
            ExprKind::Index(..) | ExprKind::Row { .. } => "[]".into(),
            ExprKind::Member { base, field, arrow } => {
                let sty = if *arrow { base.ty.pointee() } else { Some(&base.ty) };
                let name = match sty {
                    Some(Type::Struct(id)) => self.p.struct_def(*id).fields.get(*field).map(|f| f.name.clone()),
                    _ => None,
                }
                .unwrap_or_else(|| field.to_string());
                format!("{}{name}", if *arrow { "->" } else { "." })
            }
            ExprKind::AddrOf(_) => "unary &".into(),
            ExprKind::Deref(_) => "unary *".into(),
            ExprKind::SizeOf { text, .. } => format!("sizeof {}", text.trim()),
            ExprKind::Comma(..) => ",".into(),
        };
        let start = self.t.open();
        for c in super::walk::children(e) {
            self.expr(c);
        }
        self.close(start, &label);
    }
}

#[cfg(test)]
mod tests;
