//! Control-flow automata (Verifix, Section 3): a function's nodes are its Func-Entry and
//! Func-Exit states and, for every loop, a Loop-Entry and a Loop-Exit state. The *labelled
//! AST* is the loop-nesting tree ([`LoopTree`]); two functions whose trees have the same shape
//! have aligned nodes (Section 4.1). The code between two nodes (an edge's guarded actions) is
//! found by walking from a node along [`Frame`]s, the continuation of each loop: which
//! statements run after it and which loops enclose it.

use super::{Function, Span, Stmt, StmtKind};

/// A node of a function's automaton. Loops are numbered in source pre-order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    FuncEntry,
    LoopEntry(usize),
    LoopExit(usize),
    FuncExit,
}

/// Why control moves along an edge (the paper's edge types, plus `continue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    Normal,
    Break,
    Continue,
    Return,
}

/// What runs when the statements of one frame are done.
#[derive(Clone, Copy, Debug)]
pub enum Frame<'p> {
    /// The rest of a statement list, from this index on.
    Seq(&'p [Stmt], usize),
    /// The end of loop `n`'s body: the step (or the `do`-`while` test), then the loop head.
    LoopBody(usize),
    /// The end of a `switch` arm: control falls through the arms from this index on, then
    /// leaves the switch, where its `break`s join it.
    SwitchArms(&'p [super::SwitchArm], usize),
}

#[derive(Clone, Debug)]
pub struct LoopInfo<'p> {
    pub stmt: &'p Stmt,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// The frames around the loop statement, outermost first: what runs after the loop.
    pub after: Vec<Frame<'p>>,
}

/// The loops of one function body and their nesting (the labelled AST of Section 4.1).
#[derive(Clone, Debug)]
pub struct LoopTree<'p> {
    pub loops: Vec<LoopInfo<'p>>,
    /// Loops not nested in another loop, in source order.
    pub roots: Vec<usize>,
    /// The frames of the function body itself.
    pub body: Vec<Frame<'p>>,
}

impl<'p> LoopTree<'p> {
    /// The loop tree of a defined function (`None` for a prototype).
    pub fn of(func: &'p Function) -> Option<LoopTree<'p>> {
        let body = func.body.as_ref()?;
        let mut t = LoopTree { loops: Vec::new(), roots: Vec::new(), body: Vec::new() };
        let frames = match &body.kind {
            StmtKind::Block(stmts) => vec![Frame::Seq(stmts.as_slice(), 0)],
            _ => vec![Frame::Seq(std::slice::from_ref(body), 0)],
        };
        t.body = frames.clone();
        let Frame::Seq(stmts, _) = frames[0] else { unreachable!() };
        t.walk_seq(stmts, &[], None);
        Some(t)
    }

    /// The loop a loop statement is (the statement itself, not an equal one elsewhere: a
    /// function has few loops).
    pub fn loop_of(&self, s: &Stmt) -> Option<usize> {
        self.loops.iter().position(|l| std::ptr::eq(l.stmt, s))
    }

    /// Every node of the automaton: entry, each loop's entry and exit, exit.
    pub fn nodes(&self) -> Vec<Node> {
        let mut out = vec![Node::FuncEntry];
        for l in 0..self.loops.len() {
            out.push(Node::LoopEntry(l));
            out.push(Node::LoopExit(l));
        }
        out.push(Node::FuncExit);
        out
    }

    /// Same nesting shape (children counts, recursively, in order): the node alignment of
    /// Section 4.1 succeeds, and loop `i` of one tree is aligned with loop `i` of the other
    /// (both numbered in pre-order).
    pub fn same_shape(&self, other: &LoopTree<'_>) -> bool {
        fn shape(t: &LoopTree<'_>, ids: &[usize], out: &mut Vec<usize>) {
            out.push(ids.len());
            for &i in ids {
                shape(t, &t.loops[i].children, out);
            }
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        shape(self, &self.roots, &mut a);
        shape(other, &other.roots, &mut b);
        a == b
    }

    /// A readable description of the nesting, e.g. `2 loops, the second inside the first`.
    pub fn describe(&self) -> String {
        match self.loops.len() {
            0 => "no loop".into(),
            n => {
                let nested = self.loops.iter().filter(|l| l.parent.is_some()).count();
                if nested == 0 {
                    format!("{n} loop{}", if n == 1 { "" } else { "s" })
                } else {
                    format!("{n} loops, {nested} of them nested")
                }
            }
        }
    }

    fn walk_seq(&mut self, stmts: &'p [Stmt], outer: &[Frame<'p>], parent: Option<usize>) {
        for (i, s) in stmts.iter().enumerate() {
            let mut frames = outer.to_vec();
            frames.push(Frame::Seq(stmts, i + 1));
            self.walk_stmt(s, &frames, parent);
        }
    }

    fn walk_stmt(&mut self, s: &'p Stmt, frames: &[Frame<'p>], parent: Option<usize>) {
        match &s.kind {
            StmtKind::Block(stmts) => self.walk_seq(stmts, frames, parent),
            StmtKind::If { then, els, .. } => {
                self.walk_stmt(then, frames, parent);
                if let Some(e) = els {
                    self.walk_stmt(e, frames, parent);
                }
            }
            StmtKind::Switch { arms, .. } => {
                for (i, arm) in arms.iter().enumerate() {
                    let mut inner = frames.to_vec();
                    inner.push(Frame::SwitchArms(arms, i + 1));
                    self.walk_seq(&arm.body, &inner, parent);
                }
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => {
                let id = self.loops.len();
                self.loops.push(LoopInfo { stmt: s, parent, children: Vec::new(), after: frames.to_vec() });
                match parent {
                    Some(p) => self.loops[p].children.push(id),
                    None => self.roots.push(id),
                }
                let mut inner = frames.to_vec();
                inner.push(Frame::LoopBody(id));
                match &body.kind {
                    StmtKind::Block(stmts) => self.walk_seq(stmts, &inner, Some(id)),
                    _ => self.walk_stmt(body, &inner, Some(id)),
                }
            }
            _ => {}
        }
    }

    /// The frames a loop's body runs in (its `after` frames, then its own body frame).
    pub fn body_frames(&self, l: usize) -> Vec<Frame<'p>> {
        let mut f = self.loops[l].after.clone();
        f.push(Frame::LoopBody(l));
        let body = match &self.loops[l].stmt.kind {
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => body,
            _ => unreachable!("a loop"),
        };
        match &body.kind {
            StmtKind::Block(stmts) => f.push(Frame::Seq(stmts.as_slice(), 0)),
            _ => f.push(Frame::Seq(std::slice::from_ref(&**body), 0)),
        }
        f
    }

    /// Where code inserted at the start of a node's region goes: just inside the function
    /// body's `{`, the loop body's `{`, or just after the loop (byte offset).
    pub fn region_start(&self, func: &Function, node: Node) -> Option<usize> {
        match node {
            Node::FuncEntry => func.body.as_ref().map(|b| b.span.start as usize + 1),
            Node::LoopEntry(l) => match &self.loops[l].stmt.kind {
                StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => {
                    matches!(body.kind, StmtKind::Block(_)).then_some(body.span.start as usize + 1)
                }
                _ => None,
            },
            Node::LoopExit(l) => Some(self.loops[l].stmt.span.end as usize),
            Node::FuncExit => None,
        }
    }

    pub fn span_of(&self, l: usize) -> Span {
        self.loops[l].stmt.span
    }
}
