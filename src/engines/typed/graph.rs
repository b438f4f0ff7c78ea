//! The synthesis graph (Section 4.1): type nodes and function nodes. Variables, constants and
//! literals are functions of no arguments; every function node has one incoming edge from the
//! type it produces and one outgoing edge per *distinct* argument type (a function of three
//! `int`s has out-degree one). Operators are function nodes too, instantiated at the types the
//! file can reach: `&`, `*`, `a[i]`, `.f`, `->f`, arithmetic and comparisons, explicit casts,
//! and C's implicit conversions (int ↔ double ↔ char, `void *` ↔ `T *`) as cheap silent edges.
//!
//! Edge costs (integers; an expression costs the sum over its nodes, so size is paid for):
//! - variable: 6 for a local declared next to the position, rising by 1 per 2 lines away (to
//!   12); parameters 7..11 (1 per 4 lines); globals 12; minus 1 per doubling of the name's
//!   uses in the file (at most 3), at least 2;
//! - the constants `0` and `1`: 10; other literals of the function, `#define`d constants: 12;
//!   library constants: 14;
//! - a call of a file's function: 10; of a library function: 14 (less 1 per doubling of its
//!   uses in the file, at most 3);
//! - `&`, `*`, field access `.f` / `->f`: 6, 6, 4; `a[i]`: 8; binary operators (at `int`,
//!   `double` and every other arithmetic type of rank `int` or more the file reaches, `%`
//!   at the integer ones; `&&`, `||` on `int`): 10; negation `-x`, `!x`: 14 (rarely meant unless written);
//!   explicit cast: 8; implicit arithmetic conversion: 3 (an integer promotion to `int`: 1);
//!   `void *` conversion: 2;
//!   reading an object or decaying an array: 0.
//! - Repair adds *reinforced* nodes (the student's well-typed subexpressions) at cost 0.

use std::collections::HashMap;

use super::env::Env;
use super::stdlib::{self, EntryKind};
use super::term::binary_prec;
use super::types::{Ty, TyKind, Types};

#[derive(Clone, Debug, PartialEq)]
pub enum FnKind {
    Var(String),
    /// A literal or named constant, printed as is.
    Const(String),
    Call(String),
    /// A format function with its format literal fixed (`text`, as written, at parameter
    /// `index`); its parameters are the other arguments, the format's directives giving the
    /// types of the variadic ones (`strict`: no implicit conversion but promotions).
    Format {
        name: String,
        index: usize,
        text: String,
        fixed: usize,
        scanf: bool,
        bit: u8,
    },
    AddrOf,
    Deref,
    Index,
    Field(String, bool),
    /// Reading an object (`Lv(T) → T`): no text.
    Read,
    /// Array to pointer decay: no text.
    Decay,
    /// Implicit conversion between arithmetic types or to/from `void *`: no text.
    Conv,
    Cast(String),
    Binary(&'static str),
    /// A prefix operator on a value: `-x`, `!x`.
    Unary(&'static str),
    /// A subexpression of the expression under repair, reused as written.
    Reinforced {
        text: String,
        prec: u8,
        bit: u8,
    },
}

#[derive(Clone, Debug)]
pub struct FnNode {
    pub kind: FnKind,
    pub ret: Ty,
    /// Parameter types in order (with repetitions); the graph's edges are the distinct ones.
    pub params: Vec<Ty>,
    pub cost: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub fns: Vec<FnNode>,
    /// Reversed edges: the function nodes producing each type.
    pub producers: Vec<Vec<u32>>,
    /// The function nodes taking each type, with multiplicity.
    pub consumers: Vec<Vec<(u32, u32)>>,
}

pub const COST_CONST: u32 = 10;
pub const COST_MACRO: u32 = 12;
pub const COST_LITERAL: u32 = 12;
pub const COST_LIB_CONST: u32 = 14;
pub const COST_USER_CALL: u32 = 10;
pub const COST_LIB_CALL: u32 = 14;
pub const COST_ADDR: u32 = 6;
pub const COST_DEREF: u32 = 6;
pub const COST_FIELD: u32 = 4;
pub const COST_INDEX: u32 = 8;
pub const COST_BINARY: u32 = 10;
pub const COST_UNARY: u32 = 14;
pub const COST_CAST: u32 = 8;
pub const COST_CONV: u32 = 3;
pub const COST_PROMOTION: u32 = 1;
pub const COST_VOID_CONV: u32 = 2;

impl Graph {
    /// Type nodes (all interned types) plus function nodes.
    pub fn node_count(&self, types: &Types) -> usize {
        types.len() + self.fns.len()
    }

    /// One edge into each function node from its type, one out per distinct parameter type.
    pub fn edge_count(&self) -> usize {
        self.fns
            .iter()
            .map(|f| {
                let mut p = f.params.clone();
                p.sort();
                p.dedup();
                1 + p.len()
            })
            .sum()
    }

    pub fn push(&mut self, node: FnNode) -> u32 {
        self.fns.push(node);
        (self.fns.len() - 1) as u32
    }

    /// Rebuilds the edge indexes (after nodes were added).
    pub fn index(&mut self, ntypes: usize) {
        self.producers = vec![Vec::new(); ntypes];
        self.consumers = vec![Vec::new(); ntypes];
        for (i, f) in self.fns.iter().enumerate() {
            self.producers[f.ret.0 as usize].push(i as u32);
            let mut counts: Vec<(Ty, u32)> = Vec::new();
            for p in &f.params {
                match counts.iter_mut().find(|(t, _)| t == p) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((*p, 1)),
                }
            }
            for (t, n) in counts {
                self.consumers[t.0 as usize].push((i as u32, n));
            }
        }
    }

    /// The graph of what is in scope in `env` (its position), with the library of the headers
    /// the file includes (`all_headers`: every header of the table, for the benchmark's "full
    /// library" figure).
    pub fn build(env: &mut Env, all_headers: bool) -> Graph {
        let mut g = Graph::default();
        let mut user: Vec<_> = env.user_fn_names().map(|(n, s)| (n.clone(), s.clone())).collect();
        user.sort_by(|a, b| a.0.cmp(&b.0));
        let shadowed: std::collections::HashSet<String> =
            env.vars.iter().map(|v| v.name.clone()).chain(user.iter().map(|(n, _)| n.clone())).collect();
        let types = &mut env.types;
        for v in &env.vars {
            let ret = types.lv(v.ty);
            g.push(FnNode { kind: FnKind::Var(v.name.clone()), ret, params: vec![], cost: v.cost });
        }
        for lit in ["0", "1"] {
            g.push(FnNode { kind: FnKind::Const(lit.into()), ret: Types::INT, params: vec![], cost: COST_CONST });
        }
        for (lit, ty) in &env.literals {
            g.push(FnNode { kind: FnKind::Const(lit.clone()), ret: *ty, params: vec![], cost: COST_LITERAL });
        }
        for (name, ty) in &env.macros {
            g.push(FnNode { kind: FnKind::Const(name.clone()), ret: *ty, params: vec![], cost: COST_MACRO });
        }
        let uses = |name: &str| env.freq.get(name).copied().unwrap_or(0);
        for (name, sig) in user {
            if name == "main" || sig.variadic {
                continue;
            }
            g.push(FnNode { kind: FnKind::Call(name), ret: sig.ret, params: sig.params, cost: COST_USER_CALL });
        }
        let headers = if all_headers { stdlib::ALL_HEADERS } else { env.headers };
        for e in stdlib::table() {
            if headers & stdlib::header_bit(e.header) == 0 || shadowed.contains(&e.name) {
                continue;
            }
            let bonus = (32 - uses(&e.name).max(1).leading_zeros()).saturating_sub(1).min(3);
            match &e.kind {
                // Variadic functions enter the graph through their format (repair only).
                EntryKind::Fn { variadic: true, .. } => {}
                EntryKind::Fn { ret, params, .. } => {
                    let ret = types.from_spelling(ret);
                    let params = params.iter().map(|p| types.from_spelling(p)).collect();
                    g.push(FnNode { kind: FnKind::Call(e.name.clone()), ret, params, cost: COST_LIB_CALL - bonus });
                }
                EntryKind::Const { ty } => {
                    let ret = types.from_spelling(ty);
                    // Of the three streams a student program passes, it reads `stdin`
                    // (fgets, fscanf, getc) far more than it names stdout or stderr.
                    let prior = u32::from(e.name == "stdin");
                    g.push(FnNode {
                        kind: FnKind::Const(e.name.clone()),
                        ret,
                        params: vec![],
                        cost: COST_LIB_CONST - bonus - prior,
                    });
                }
            }
        }
        add_operators(&mut g, types, env.program);
        g.index(types.len());
        g
    }
}

/// Operator nodes at every type reachable from the nodes so far (a closure: `&` on an object
/// of type `T` gives `T *`, `*` on a `T *` gives an object of type `T`, ...).
pub fn add_operators(g: &mut Graph, types: &mut Types, program: &crate::ir::Program) {
    let mut seen: HashMap<Ty, ()> = HashMap::new();
    let mut work: Vec<Ty> = Vec::new();
    for f in &g.fns {
        work.push(f.ret);
        work.extend(f.params.iter().copied());
    }
    // `float` too: a student's `(float) x` must convert on to `double`.
    let float = types.intern(TyKind::Float(crate::ir::FloatKind::Float));
    work.extend([Types::INT, Types::DOUBLE, Types::CHAR, float]);
    let mut arith: Vec<Ty> = Vec::new();
    let mut pointers: Vec<Ty> = Vec::new();
    while let Some(t) = work.pop() {
        if seen.insert(t, ()).is_some() {
            continue;
        }
        match types.kind(t).clone() {
            TyKind::Lv(inner) => {
                work.push(inner);
                match types.kind(inner).clone() {
                    TyKind::Array(elem, _) => {
                        let p = types.ptr(elem);
                        g.push(FnNode { kind: FnKind::Decay, ret: p, params: vec![t], cost: 0 });
                        work.push(p);
                    }
                    kind => {
                        g.push(FnNode { kind: FnKind::Read, ret: inner, params: vec![t], cost: 0 });
                        let p = types.ptr(inner);
                        g.push(FnNode { kind: FnKind::AddrOf, ret: p, params: vec![t], cost: COST_ADDR });
                        work.push(p);
                        if let TyKind::Struct(id) = kind {
                            for f in &program.struct_def(id).fields {
                                let Some(ft) = types.from_ir(&f.ty) else { continue };
                                let ret = types.lv(ft);
                                g.push(FnNode {
                                    kind: FnKind::Field(f.name.clone(), false),
                                    ret,
                                    params: vec![t],
                                    cost: COST_FIELD,
                                });
                                work.push(ret);
                            }
                        }
                    }
                }
            }
            TyKind::Ptr(p) => {
                pointers.push(t);
                if types.is_object(p) {
                    let lv = types.lv(p);
                    g.push(FnNode { kind: FnKind::Deref, ret: lv, params: vec![t], cost: COST_DEREF });
                    g.push(FnNode { kind: FnKind::Index, ret: lv, params: vec![t, Types::INT], cost: COST_INDEX });
                    work.push(lv);
                    if let TyKind::Struct(id) = types.kind(p).clone() {
                        for f in &program.struct_def(id).fields {
                            let Some(ft) = types.from_ir(&f.ty) else { continue };
                            let ret = types.lv(ft);
                            g.push(FnNode {
                                kind: FnKind::Field(f.name.clone(), true),
                                ret,
                                params: vec![t],
                                cost: COST_FIELD,
                            });
                            work.push(ret);
                        }
                    }
                }
            }
            TyKind::Int(_) | TyKind::Float(_) => arith.push(t),
            _ => {}
        }
    }
    arith.sort();
    pointers.sort();
    for &a in &arith {
        for &b in &arith {
            if a != b {
                // Integer promotions, and `float` to `double`, cost next to nothing: C applies
                // them everywhere (a `float` passed to `printf` is a `double`).
                let promotion = (b == Types::INT
                    && matches!(types.kind(a), TyKind::Int(i) if i.rank() < crate::ir::IntType::INT.rank()))
                    || (b == Types::DOUBLE && matches!(types.kind(a), TyKind::Float(crate::ir::FloatKind::Float)));
                let cost = if promotion { COST_PROMOTION } else { COST_CONV };
                g.push(FnNode { kind: FnKind::Conv, ret: b, params: vec![a], cost });
            }
        }
    }
    // Explicit casts between the arithmetic types students write.
    for &to in &[Types::INT, Types::DOUBLE, Types::CHAR] {
        for &from in &arith {
            if from != to {
                g.push(FnNode { kind: FnKind::Cast(types.name(to)), ret: to, params: vec![from], cost: COST_CAST });
            }
        }
    }
    for &p in &pointers {
        if p != Types::VOID_PTR {
            g.push(FnNode { kind: FnKind::Conv, ret: p, params: vec![Types::VOID_PTR], cost: COST_VOID_CONV });
            g.push(FnNode { kind: FnKind::Conv, ret: Types::VOID_PTR, params: vec![p], cost: COST_VOID_CONV });
        }
    }
    // Arithmetic at every type the usual conversions can yield (smaller integers promote).
    for &t in &arith {
        let is_int = match types.kind(t) {
            TyKind::Int(i) if i.rank() < crate::ir::IntType::INT.rank() => continue,
            TyKind::Int(_) => true,
            _ => false,
        };
        for op in ["+", "-", "*", "/"] {
            g.push(FnNode { kind: FnKind::Binary(op), ret: t, params: vec![t, t], cost: COST_BINARY });
        }
        for op in ["<", "<=", ">", ">=", "==", "!="] {
            g.push(FnNode { kind: FnKind::Binary(op), ret: Types::INT, params: vec![t, t], cost: COST_BINARY });
        }
        if is_int {
            g.push(FnNode { kind: FnKind::Binary("%"), ret: t, params: vec![t, t], cost: COST_BINARY });
        }
        g.push(FnNode { kind: FnKind::Unary("-"), ret: t, params: vec![t], cost: COST_UNARY });
    }
    for op in ["&&", "||"] {
        g.push(FnNode {
            kind: FnKind::Binary(op),
            ret: Types::INT,
            params: vec![Types::INT, Types::INT],
            cost: COST_BINARY,
        });
    }
    g.push(FnNode { kind: FnKind::Unary("!"), ret: Types::INT, params: vec![Types::INT], cost: COST_UNARY });
}

/// The precedence a node's text has (see `term::Term::prec`).
pub fn node_prec(kind: &FnKind) -> u8 {
    match kind {
        FnKind::Var(_) | FnKind::Const(_) => 16,
        FnKind::Call(_) | FnKind::Format { .. } | FnKind::Index | FnKind::Field(..) => 15,
        FnKind::AddrOf | FnKind::Deref | FnKind::Cast(_) | FnKind::Unary(_) => 14,
        FnKind::Binary(op) => binary_prec(op),
        FnKind::Reinforced { prec, .. } => *prec,
        FnKind::Read | FnKind::Decay | FnKind::Conv => 16,
    }
}
