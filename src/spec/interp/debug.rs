//! A run that pauses for a debugger: Wolverine2's concrete half (Verma & Roy), on mend's own
//! interpreter instead of gdb. Before every statement, and at a loop's header before each test
//! of its condition but the first, the run calls [`Debugger::at_point`] with a [`Paused`] view
//! of its state; the debugger may look (the call stack, each frame's variables drawn as a
//! student draws them, the memory graph), change the state (Wolverine2's `change` command) and
//! let the run go on or end it. A runtime error is shown to [`Debugger::at_error`] where it
//! happens, with the frames still intact.
//!
//! The memory graph ([`MemoryGraph`]) is Wolverine2's symbolic state: the variables of a frame
//! and the globals, and every struct node reachable from them through pointers, each with its
//! fields; a pointer to a node is an arrow, never an address. Nodes are numbered in the order
//! they are reached, so the graph's canonical text ([`MemoryGraph::canonical`]) is equal for
//! two runs exactly when their structures are equal: the state a `spec` command records and a
//! repair must reproduce.

use super::machine::{Frame, Machine, Place, Val, convert};
use super::memory;
use super::shape::Drawer;
use super::{Limits, RunResult, RuntimeError};
use crate::cancel::Cancel;
use crate::ir::{Expr, ExprKind, FuncId, Program, Span, StructId, Type, VarId, VarKind};

/// What a run calls while it runs under a debugger.
pub trait Debugger {
    /// Before a statement (or a loop test): look, change, then go on or end the run.
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume;
    /// The run stops on `error`; the state is the one where it happened.
    fn at_error(&mut self, _paused: &mut Paused<'_, '_>, _error: &RuntimeError) {}
}

/// What the run does after [`Debugger::at_point`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    Go,
    /// End the run here (its result has a `Cancelled` error).
    Stop,
}

/// Runs `entry` of `program` on `input` under `debugger`, on a thread with the run stack.
pub fn run_debug(
    program: &Program,
    entry: &str,
    input: &[u8],
    limits: &Limits,
    cancel: &Cancel,
    debugger: &mut (dyn Debugger + Send),
) -> RunResult {
    super::on_run_stack(|| super::machine::run_with(program, entry, input, limits, cancel, Some(debugger)))
        .unwrap_or_else(|_| super::internal_error("the interpreter panicked"))
}

/// The paused run.
pub struct Paused<'m, 'p> {
    pub(super) m: &'m mut Machine<'p>,
}

/// One active call, for a stack trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameView {
    pub function: String,
    /// The statement (or loop header) it is at.
    pub at: Span,
}

/// A variable, a field or an element, drawn.
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    /// Its C type, as written in C (`struct node *`).
    pub ty: String,
    /// Drawn as a student draws it: `1 → 2 → NULL`, `"abc"`, `[1, 2]`, `(unset)`.
    pub value: String,
    /// What it opens onto (a struct's fields, an array's elements, the node it points to).
    pub inner: Option<Inner>,
}

/// Memory a [`Variable`] opens onto: valid while the run stays paused at the same point.
#[derive(Clone, Debug, PartialEq)]
pub struct Inner {
    addr: i64,
    ty: Type,
}

impl Inner {
    /// Where it is (the node names of [`MemoryGraph`] users are keyed by it).
    pub fn address(&self) -> i64 {
        self.addr
    }
}

/// A place the `change` and `print` commands name: `head`, `p->next`, `n3->prev`,
/// `a[2]`, `*p`, `s.x`.
struct Located {
    place: Place,
    ty: Type,
}

/// Elements of an array [`Paused::expand`] lists at most.
const MAX_ELEMENTS: u64 = 64;
/// Nodes of a [`MemoryGraph`] at most.
const MAX_NODES: usize = 200;

impl<'p> Paused<'_, 'p> {
    pub fn program(&self) -> &'p Program {
        self.m.prog
    }

    /// Active calls, innermost first.
    pub fn frames(&self) -> Vec<FrameView> {
        (self.m.frames.iter().rev())
            .map(|f| FrameView { function: self.m.prog.func(f.func).name.clone(), at: f.at })
            .collect()
    }

    /// The point the run is paused at.
    pub fn at(&self) -> Span {
        self.m.frames.last().map(|f| f.at).unwrap_or_default()
    }

    /// The function the run is paused in.
    pub fn function(&self) -> Option<FuncId> {
        self.m.frames.last().map(|f| f.func)
    }

    /// Calls active (1: in `main`).
    pub fn depth(&self) -> usize {
        self.m.frames.len()
    }

    pub fn output(&self) -> &[u8] {
        &self.m.out
    }

    fn frame(&self, index: usize) -> Option<Frame> {
        let n = self.m.frames.len();
        (index < n).then(|| self.m.frames[n - 1 - index])
    }

    fn drawer(&self) -> Drawer<'_> {
        Drawer { prog: self.m.prog, mem: &self.m.mem }
    }

    /// The parameters and the locals declared so far of frame `index` (0: innermost).
    pub fn locals(&self, index: usize) -> Vec<Variable> {
        let Some(frame) = self.frame(index) else { return Vec::new() };
        self.visible(frame).into_iter().map(|v| self.variable(Some(frame), v)).collect()
    }

    pub fn globals(&self) -> Vec<Variable> {
        let prog = self.m.prog;
        (0..prog.vars.len())
            .map(|i| VarId(i as u32))
            .filter(|&v| prog.var(v).kind == VarKind::Global)
            .map(|v| self.variable(None, v))
            .collect()
    }

    /// What `inner` opens onto: a struct's fields or an array's elements.
    pub fn expand(&self, inner: &Inner) -> Vec<Variable> {
        let prog = self.m.prog;
        match &inner.ty {
            Type::Struct(id) => (prog.struct_def(*id).fields.iter())
                .map(|f| self.stored(f.name.clone(), memory::ptr_add(inner.addr, f.offset as i64), &f.ty))
                .collect(),
            Type::Array(elem, n) => {
                let size = prog.size_of(elem).max(1);
                let left = self.m.mem.block_size(memory::block_of(inner.addr)) as i64 - memory::offset_of(inner.addr);
                let n = n.unwrap_or((left.max(0) as u64) / size).min(MAX_ELEMENTS);
                (0..n)
                    .map(|i| self.stored(format!("[{i}]"), memory::ptr_add(inner.addr, (i * size) as i64), elem))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The variables of `frame` in scope at its point: parameters, then locals whose
    /// declaration comes before the point (block scopes are not tracked: a local of a block
    /// already left still shows, with its last value).
    fn visible(&self, frame: Frame) -> Vec<VarId> {
        let prog = self.m.prog;
        let f = prog.func(frame.func);
        let declared = |v: &VarId| {
            let var = prog.var(*v);
            (var.kind == VarKind::Param || var.span.start <= frame.at.start) && !var.hidden()
        };
        f.params.iter().chain(&f.locals).copied().filter(declared).collect()
    }

    /// The raw value of `var` in `frame` (`None`: a global) and whether it is an address.
    fn raw(&self, frame: Option<Frame>, var: VarId) -> (Val, bool) {
        let info = self.m.vars[var.0 as usize];
        let v = match frame {
            _ if info.global => self.m.globals[info.slot as usize],
            Some(f) => self.m.slots.get(f.base + info.slot as usize).copied().unwrap_or(Val::U),
            None => Val::U,
        };
        (v, info.addressable)
    }

    fn variable(&self, frame: Option<Frame>, var: VarId) -> Variable {
        let v = self.m.prog.var(var);
        match self.raw(frame, var) {
            (Val::I(addr), true) => self.stored(v.name.clone(), addr, &self.with_row_length(frame, var)),
            (Val::U, true) => self.described(v.name.clone(), &v.ty, "(unset)".into(), None),
            (value, _) => {
                let inner = self.pointee(value, &v.ty);
                self.described(v.name.clone(), &v.ty, self.drawer().value(value, &v.ty), inner)
            }
        }
    }

    /// `var`'s type, with the row length this run gave `int a[n][m]` (its hidden local
    /// `a.row`, see `ExprKind::Row`), so that its rows open onto their elements.
    fn with_row_length(&self, frame: Option<Frame>, var: VarId) -> Type {
        let prog = self.m.prog;
        let v = prog.var(var);
        let Type::Array(row, n) = &v.ty else { return v.ty.clone() };
        let Type::Array(leaf, None) = &**row else { return v.ty.clone() };
        let name = crate::ir::row_length_name(&v.name);
        let hidden = v.func.and_then(|f| prog.func(f).locals.iter().copied().find(|&l| prog.var(l).name == name));
        match hidden.map(|h| self.raw(frame, h).0) {
            Some(Val::I(m)) if m > 0 => Type::Array(Box::new(Type::Array(leaf.clone(), Some(m as u64))), *n),
            _ => v.ty.clone(),
        }
    }

    /// The value of type `ty` stored at `addr`.
    fn stored(&self, name: String, addr: i64, ty: &Type) -> Variable {
        let inner = match ty {
            Type::Struct(_) | Type::Array(..) => Some(Inner { addr, ty: ty.clone() }),
            Type::Pointer(_) => self.m.mem.load(addr, 8).ok().and_then(|q| self.pointee(Val::I(q as i64), ty)),
            _ => None,
        };
        self.described(name, ty, self.drawer().stored(addr, ty), inner)
    }

    /// The struct a pointer of type `ty` with value `v` points to, when it is a live one.
    fn pointee(&self, v: Val, ty: &Type) -> Option<Inner> {
        match (v, ty) {
            (Val::I(p), Type::Pointer(to)) if matches!(**to, Type::Struct(_)) && self.live(p) => {
                Some(Inner { addr: p, ty: (**to).clone() })
            }
            _ => None,
        }
    }

    fn described(&self, name: String, ty: &Type, value: String, inner: Option<Inner>) -> Variable {
        Variable { name, ty: crate::ir::print::type_to_c(ty, "", Some(self.m.prog)).trim().to_string(), value, inner }
    }

    fn live(&self, p: i64) -> bool {
        p != memory::NULL && self.m.mem.blocks.get(memory::block_of(p) as usize).is_some_and(|b| b.alive)
    }

    /// The memory graph of frame `index` (0: innermost): its variables, the globals, and the
    /// struct nodes reachable from them.
    pub fn graph(&self, index: usize) -> MemoryGraph {
        let mut g = GraphBuilder { paused: self, graph: MemoryGraph::default() };
        if let Some(frame) = self.frame(index) {
            for v in self.visible(frame) {
                let cell = g.variable(Some(frame), v);
                g.graph.roots.push((self.m.prog.var(v).name.clone(), cell));
            }
        }
        let prog = self.m.prog;
        for i in 0..prog.vars.len() {
            let v = VarId(i as u32);
            if prog.var(v).kind == VarKind::Global {
                let cell = g.variable(None, v);
                g.graph.roots.push((prog.var(v).name.clone(), cell));
            }
        }
        let mut next = 0;
        while next < g.graph.nodes.len() {
            let (addr, id) = (g.graph.nodes[next].addr, g.graph.nodes[next].id);
            let fields = (prog.struct_def(id).fields.iter())
                .map(|f| (f.name.clone(), g.stored(memory::ptr_add(addr, f.offset as i64), &f.ty)))
                .collect();
            g.graph.nodes[next].fields = fields;
            next += 1;
        }
        g.graph
    }

    /// Evaluates a place (`p->next->value`, `n2`, `a[1]`) in the innermost frame, drawn.
    pub fn print(&mut self, path: &str, nodes: &dyn Fn(&str) -> Option<i64>) -> Result<Variable, String> {
        let at = self.locate(path, nodes)?;
        Ok(match at.place {
            Place::Mem(addr) => self.stored(path.trim().to_string(), addr, &at.ty),
            Place::Slot { global, idx } => {
                let v = if global { self.m.globals[idx] } else { self.m.slots[idx] };
                let inner = self.pointee(v, &at.ty);
                self.described(path.trim().to_string(), &at.ty, self.drawer().value(v, &at.ty), inner)
            }
        })
    }

    /// Wolverine2's `change e v`: sets the place `target` (as [`Self::print`] reads it) to
    /// `value`: a number, a character (`'a'`), `NULL`, a node (`n3`), or another place.
    pub fn change(&mut self, target: &str, value: &str, nodes: &dyn Fn(&str) -> Option<i64>) -> Result<(), String> {
        let at = self.locate(target, nodes)?;
        let value = value.trim();
        let v = match &at.ty {
            Type::Pointer(_) if matches!(value, "NULL" | "null" | "0") => Val::I(memory::NULL),
            Type::Pointer(to) => match nodes(value) {
                Some(addr) => {
                    let node_ty = self.node_type(addr);
                    if node_ty.as_ref() != Some(&**to) {
                        return Err(format!("`{value}` is not a node `{}` can point to", target.trim()));
                    }
                    Val::I(addr)
                }
                None if parse_number(value).is_some() => {
                    return Err(format!(
                        "`{}` is a pointer: give it `NULL`, a node (`n2`) or another pointer",
                        target.trim()
                    ));
                }
                None => self.value_of(value, &at.ty, nodes)?,
            },
            Type::Int(_) | Type::Float(_) => match parse_number(value) {
                Some(n) => convert(n, &number_type(n), &at.ty),
                None => self.value_of(value, &at.ty, nodes)?,
            },
            _ => return Err(format!("`{}` is not a number or a pointer: change its fields one by one", target.trim())),
        };
        let e = self.placeholder(&at.ty);
        match self.m.store(at.place, &at.ty, v, &e) {
            Ok(()) => Ok(()),
            Err(_) => Err(format!("`{}` cannot be written", target.trim())),
        }
    }

    /// The struct type of the live node at `addr` (a block the program allocated for one).
    fn node_type(&self, addr: i64) -> Option<Type> {
        let graph = self.graph(0);
        graph.nodes.iter().find(|n| n.addr == addr).map(|n| Type::Struct(n.id))
    }

    /// The value of the place `path`, converted to `ty`.
    fn value_of(&mut self, path: &str, ty: &Type, nodes: &dyn Fn(&str) -> Option<i64>) -> Result<Val, String> {
        let from = self.locate(path, nodes).map_err(|_| format!("`{path}` is not a value mend can read"))?;
        let compatible = match (&from.ty, ty) {
            (Type::Pointer(a), Type::Pointer(b)) => a == b,
            (a, b) => a.is_arithmetic() && b.is_arithmetic(),
        };
        if !compatible {
            return Err(format!("`{path}` does not have the type of the place it would go into"));
        }
        let e = self.placeholder(&from.ty);
        let v = self.m.load(from.place, &from.ty, &e).map_err(|_| format!("`{path}` has no value yet"))?;
        Ok(if ty.is_arithmetic() { convert(v, &from.ty, ty) } else { v })
    }

    fn placeholder(&self, ty: &Type) -> Expr {
        Expr::new(ExprKind::Int(0), ty.clone(), self.at())
    }

    /// The place a path names, from a variable of the innermost frame, a global or a node.
    fn locate(&mut self, path: &str, nodes: &dyn Fn(&str) -> Option<i64>) -> Result<Located, String> {
        let steps = parse_path(path).ok_or_else(|| format!("mend cannot read `{}` as a place", path.trim()))?;
        let (root, rest) = steps.split_first().ok_or("nothing to look at")?;
        let PathStep::Name(name) = root else { return Err(format!("`{}` does not start with a name", path.trim())) };
        let mut at = self.root(name, nodes)?;
        for step in rest {
            at = self.step(at, step, path)?;
        }
        Ok(at)
    }

    fn root(&mut self, name: &str, nodes: &dyn Fn(&str) -> Option<i64>) -> Result<Located, String> {
        let prog = self.m.prog;
        let frame = self.m.frames.last().copied();
        let in_frame = frame.and_then(|f| self.visible(f).into_iter().rev().find(|&v| prog.var(v).name == name));
        let global = || {
            (0..prog.vars.len())
                .map(|i| VarId(i as u32))
                .find(|&v| prog.var(v).kind == VarKind::Global && prog.var(v).name == name)
        };
        if let Some(v) = in_frame.or_else(global) {
            let info = self.m.vars[v.0 as usize];
            let ty = prog.var(v).ty.clone();
            let place = if info.addressable {
                match self.raw(frame, v).0 {
                    Val::I(addr) => Place::Mem(addr),
                    _ => Place::Mem(self.m.var_addr(v, prog.var(v).span).map_err(|_| "no memory left".to_string())?),
                }
            } else if info.global {
                Place::Slot { global: true, idx: info.slot as usize }
            } else {
                let base = frame.map_or(0, |f| f.base);
                Place::Slot { global: false, idx: base + info.slot as usize }
            };
            return Ok(Located { place, ty });
        }
        if let Some(addr) = nodes(name) {
            if !self.live(addr) {
                return Err(format!("`{name}` was freed"));
            }
            if let Some(ty) = self.node_type(addr) {
                return Ok(Located { place: Place::Mem(addr), ty });
            }
        }
        let later = frame.is_some_and(|f| {
            let func = prog.func(f.func);
            func.locals.iter().any(|&v| prog.var(v).name == name)
        });
        if later {
            return Err(format!("`{name}` is declared further down: the run has not reached its declaration yet"));
        }
        Err(format!("there is no `{name}` here"))
    }

    fn step(&mut self, at: Located, step: &PathStep, path: &str) -> Result<Located, String> {
        let path = path.trim();
        match step {
            PathStep::Name(_) => Err(format!("mend cannot read `{path}` as a place")),
            PathStep::Field(field) => {
                // `->` and `.` are one step here: the student names the node either way.
                let at = match &at.ty {
                    Type::Pointer(to) if matches!(**to, Type::Struct(_)) => self.deref(at, path)?,
                    _ => at,
                };
                let Type::Struct(id) = at.ty else { return Err(format!("`{path}`: `{field}` is not a field here")) };
                let Place::Mem(addr) = at.place else { return Err(format!("mend cannot read `{path}` as a place")) };
                let def = self.m.prog.struct_def(id);
                let f = def
                    .fields
                    .iter()
                    .find(|f| f.name == *field)
                    .ok_or_else(|| format!("`{}` has no field `{field}`", def.name))?;
                Ok(Located { place: Place::Mem(memory::ptr_add(addr, f.offset as i64)), ty: f.ty.clone() })
            }
            PathStep::Index(i) => {
                let at = if matches!(at.ty, Type::Pointer(_)) { self.deref(at, path)? } else { at };
                let elem = match &at.ty {
                    Type::Array(elem, _) => (**elem).clone(),
                    t => t.clone(),
                };
                let Place::Mem(addr) = at.place else { return Err(format!("mend cannot read `{path}` as a place")) };
                let p = memory::ptr_add(addr, *i * self.m.prog.size_of(&elem) as i64);
                let size = self.m.prog.size_of(&elem);
                self.m.mem.check_range(p, size, false).map_err(|_| format!("`{path}` is outside the array"))?;
                Ok(Located { place: Place::Mem(p), ty: elem })
            }
            PathStep::Deref => self.deref(at, path),
        }
    }

    /// The place a pointer place points to.
    fn deref(&mut self, at: Located, path: &str) -> Result<Located, String> {
        let Type::Pointer(to) = &at.ty else { return Err(format!("`{path}`: not a pointer")) };
        let e = self.placeholder(&at.ty);
        let p = self.m.load(at.place, &at.ty, &e).map_err(|_| format!("`{path}`: the pointer has no value yet"))?.i();
        if p == memory::NULL {
            return Err(format!("`{path}`: the pointer is NULL"));
        }
        if !self.live(p) {
            return Err(format!("`{path}`: the pointer points to freed memory"));
        }
        Ok(Located { place: Place::Mem(p), ty: (**to).clone() })
    }
}

#[derive(Debug, PartialEq)]
enum PathStep {
    Name(String),
    Field(String),
    Index(i64),
    Deref,
}

/// `*p`, `head->next->value`, `n4 -> prev`, `a[2]`, `s.x`.
fn parse_path(path: &str) -> Option<Vec<PathStep>> {
    let mut s = path.trim();
    let mut derefs = 0;
    while let Some(rest) = s.strip_prefix('*') {
        derefs += 1;
        s = rest.trim_start();
    }
    let ident = |s: &str| -> Option<(String, usize)> {
        let n = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        (n > 0 && !s.starts_with(|c: char| c.is_ascii_digit())).then(|| (s[..n].to_string(), n))
    };
    let (name, n) = ident(s)?;
    let mut steps = vec![PathStep::Name(name)];
    s = s[n..].trim_start();
    while !s.is_empty() {
        if let Some(rest) = s.strip_prefix("->").or_else(|| s.strip_prefix('.')) {
            let rest = rest.trim_start();
            let (field, n) = ident(rest)?;
            steps.push(PathStep::Field(field));
            s = rest[n..].trim_start();
        } else if let Some(rest) = s.strip_prefix('[') {
            let close = rest.find(']')?;
            steps.push(PathStep::Index(rest[..close].trim().parse().ok()?));
            s = rest[close + 1..].trim_start();
        } else {
            return None;
        }
    }
    steps.extend((0..derefs).map(|_| PathStep::Deref));
    Some(steps)
}

/// A number or a character literal as a student types it: `5`, `-3`, `2.5`, `'a'`.
fn parse_number(s: &str) -> Option<Val> {
    if let Some(c) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        let mut chars = c.chars();
        return match (chars.next(), chars.next()) {
            (Some(ch), None) if ch.is_ascii() => Some(Val::I(ch as i64)),
            _ => None,
        };
    }
    if let Ok(i) = s.parse::<i64>() {
        return Some(Val::I(i));
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite()).map(Val::F)
}

fn number_type(v: Val) -> Type {
    match v {
        Val::F(_) => Type::DOUBLE,
        _ => Type::Int(crate::ir::IntType::LONG),
    }
}

/// Wolverine2's symbolic state of one frame: its variables and the globals (`roots`, in
/// declaration order), and the struct nodes reachable from them, numbered in the order they
/// are reached.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryGraph {
    pub roots: Vec<(String, Cell)>,
    pub nodes: Vec<Node>,
}

/// A struct reached through a pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Its address in the run (stable while it lives; never shown).
    pub addr: i64,
    id: StructId,
    pub type_name: String,
    pub fields: Vec<(String, Cell)>,
}

/// One value in the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A number, a character, a string, an array of numbers: drawn.
    Value(String),
    /// A pointer to node `k` (an index into [`MemoryGraph::nodes`]).
    Node(usize),
    Null,
    Unset,
    /// A pointer to memory that was freed.
    Freed,
    /// A struct held in place (not through a pointer): its fields.
    Fields(Vec<(String, Cell)>),
    /// An array of pointers or structs: its elements.
    Items(Vec<Cell>),
    /// The graph was cut here ([`MAX_NODES`]).
    Cut,
}

struct GraphBuilder<'a, 'm, 'p> {
    paused: &'a Paused<'m, 'p>,
    graph: MemoryGraph,
}

impl GraphBuilder<'_, '_, '_> {
    fn variable(&mut self, frame: Option<Frame>, var: VarId) -> Cell {
        let ty = self.paused.m.prog.var(var).ty.clone();
        match self.paused.raw(frame, var) {
            (Val::I(addr), true) => self.stored(addr, &ty),
            (Val::U, _) => Cell::Unset,
            (v, _) => self.value(v, &ty),
        }
    }

    fn value(&mut self, v: Val, ty: &Type) -> Cell {
        match (v, ty) {
            (Val::U, _) => Cell::Unset,
            (Val::I(p), Type::Pointer(to)) if matches!(**to, Type::Struct(_)) => self.pointer(p, to),
            (v, ty) => Cell::Value(self.paused.drawer().value(v, ty)),
        }
    }

    fn stored(&mut self, addr: i64, ty: &Type) -> Cell {
        let prog = self.paused.m.prog;
        match ty {
            Type::Pointer(to) if matches!(**to, Type::Struct(_)) => match self.paused.m.mem.load(addr, 8) {
                Ok(q) => self.pointer(q as i64, to),
                Err(_) => Cell::Unset,
            },
            Type::Struct(id) => Cell::Fields(
                (prog.struct_def(*id).fields.iter())
                    .map(|f| (f.name.clone(), self.stored(memory::ptr_add(addr, f.offset as i64), &f.ty)))
                    .collect(),
            ),
            Type::Array(elem, Some(n)) if holds_nodes(elem) => {
                let size = prog.size_of(elem) as i64;
                Cell::Items(
                    (0..(*n).min(MAX_ELEMENTS) as i64)
                        .map(|i| self.stored(memory::ptr_add(addr, i * size), elem))
                        .collect(),
                )
            }
            _ => Cell::Value(self.paused.drawer().stored(addr, ty)),
        }
    }

    fn pointer(&mut self, p: i64, to: &Type) -> Cell {
        let Type::Struct(id) = to else { return Cell::Unset };
        if p == memory::NULL {
            return Cell::Null;
        }
        if !self.paused.live(p) {
            return Cell::Freed;
        }
        if let Some(k) = self.graph.nodes.iter().position(|n| n.addr == p) {
            return Cell::Node(k);
        }
        if self.graph.nodes.len() == MAX_NODES {
            return Cell::Cut;
        }
        let type_name = self.paused.m.prog.struct_def(*id).name.clone();
        self.graph.nodes.push(Node { addr: p, id: *id, type_name, fields: Vec::new() });
        Cell::Node(self.graph.nodes.len() - 1)
    }
}

/// Whether elements of type `ty` belong in the graph one by one (pointers to structs, structs).
fn holds_nodes(ty: &Type) -> bool {
    match ty {
        Type::Struct(_) => true,
        Type::Pointer(to) => matches!(**to, Type::Struct(_)),
        _ => false,
    }
}

impl MemoryGraph {
    /// The graph as text, nodes named by `name` (a node's index → its name):
    /// ```text
    /// head → n1
    /// count = 2
    /// n1: value = 1, next → n2
    /// n2: value = 2, next = NULL
    /// ```
    pub fn text(&self, name: &dyn Fn(usize) -> String) -> String {
        let mut out = String::new();
        for (root, cell) in &self.roots {
            out += &format!("{root}{}\n", bound(cell, name));
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let fields: Vec<String> = node.fields.iter().map(|(f, c)| format!("{f}{}", bound(c, name))).collect();
            out += &format!("{}: {}\n", name(k), fields.join(", "));
        }
        out
    }

    /// The text with nodes named `n1`, `n2`, … in the order they are reached: equal for two
    /// states exactly when their structures and values are equal.
    pub fn canonical(&self) -> String {
        self.text(&|k| format!("n{}", k + 1))
    }

    /// The graph in Graphviz's language: a record per node, an arrow per pointer.
    pub fn dot(&self, name: &dyn Fn(usize) -> String) -> String {
        let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"").replace(['{', '}', '|', '<', '>'], " ");
        let mut out = String::from("digraph heap {\n  rankdir=LR;\n  node [shape=record, fontname=\"monospace\"];\n");
        let arrow = |out: &mut String, from: String, cell: &Cell| {
            if let Cell::Node(k) = cell {
                *out += &format!("  {from} -> \"{}\";\n", name(*k));
            }
        };
        for (root, cell) in &self.roots {
            let label = match cell {
                Cell::Node(_) => root.clone(),
                c => format!("{root}{}", bound(c, name)),
            };
            out += &format!("  \"var {root}\" [shape=plaintext, label=\"{}\"];\n", esc(&label));
            arrow(&mut out, format!("\"var {root}\""), cell);
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let fields: Vec<String> = (node.fields.iter().enumerate())
                .map(|(i, (f, c))| match c {
                    Cell::Node(_) => format!("<f{i}> {}", esc(f)),
                    c => format!("<f{i}> {}", esc(&format!("{f}{}", bound(c, name)))),
                })
                .collect();
            out += &format!("  \"{}\" [label=\"{{{}|{}}}\"];\n", name(k), name(k), fields.join("|"));
            for (i, (_, c)) in node.fields.iter().enumerate() {
                arrow(&mut out, format!("\"{}\":f{i}", name(k)), c);
            }
        }
        out + "}\n"
    }
}

/// ` = 5`, ` → n2`, ` = NULL` after a name.
fn bound(cell: &Cell, name: &dyn Fn(usize) -> String) -> String {
    match cell {
        Cell::Node(_) | Cell::Freed => format!(" {}", bare(cell, name)),
        // A pointer to a number is drawn `→ 3`.
        Cell::Value(v) if v.starts_with('→') => format!(" {v}"),
        c => format!(" = {}", bare(c, name)),
    }
}

/// A cell on its own: `5`, `→ n2`, `NULL`, `{x = 1, next → n2}`, `[→ n1, NULL]`.
fn bare(cell: &Cell, name: &dyn Fn(usize) -> String) -> String {
    match cell {
        Cell::Value(s) => s.clone(),
        Cell::Node(k) => format!("→ {}", name(*k)),
        Cell::Null => "NULL".into(),
        Cell::Unset => "(unset)".into(),
        Cell::Freed => "→ freed memory".into(),
        Cell::Cut => "…".into(),
        Cell::Fields(fields) => {
            let inner: Vec<String> = fields.iter().map(|(f, c)| format!("{f}{}", bound(c, name))).collect();
            format!("{{{}}}", inner.join(", "))
        }
        Cell::Items(items) => {
            let inner: Vec<String> = items.iter().map(|c| bare(c, name)).collect();
            format!("[{}]", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    const LIST: &str = "#include <stdio.h>
#include <stdlib.h>
struct node { int value; struct node *next; };
struct node *push(struct node *head, int value) {
    struct node *n = malloc(sizeof *n);
    n->value = value;
    n->next = head;
    return n;
}
int main(void) {
    struct node *list = NULL;
    int i;
    for (i = 1; i <= 3; i++)
        list = push(list, i);
    printf(\"%d\\n\", list->next->value);
    return 0;
}
";

    /// Calls `act` at every point with the point's text and the paused state.
    struct Probe<F: FnMut(&str, &mut Paused<'_, '_>) -> Resume> {
        src: &'static str,
        act: F,
        error_in: Option<String>,
    }

    impl<F: FnMut(&str, &mut Paused<'_, '_>) -> Resume + Send> Debugger for Probe<F> {
        fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
            let at = paused.at();
            let line = self.src[at.start as usize..].lines().next().unwrap_or("").trim().to_string();
            (self.act)(&line, paused)
        }
        fn at_error(&mut self, paused: &mut Paused<'_, '_>, _: &RuntimeError) {
            self.error_in = paused.frames().first().map(|f| f.function.clone());
        }
    }

    fn debug<F>(src: &'static str, input: &str, act: F) -> (RunResult, Option<String>)
    where
        F: FnMut(&str, &mut Paused<'_, '_>) -> Resume + Send,
    {
        let program = lower_source(src).program;
        let mut probe = Probe { src, act, error_in: None };
        let r = run_debug(&program, "main", input.as_bytes(), &Limits::default(), &Cancel::new(), &mut probe);
        (r, probe.error_in)
    }

    #[test]
    fn a_loop_pauses_at_its_header_before_every_test() {
        let mut seen = Vec::new();
        debug(LIST, "", |line, _| {
            seen.push(line.to_string());
            Resume::Go
        });
        let headers = seen.iter().filter(|l| l.starts_with("for")).count();
        // The `for` statement itself, then its header before the 2nd, 3rd and 4th tests
        // (`i = 1` is the initialisation's own point on that line).
        assert_eq!(headers, 4, "{seen:?}");
        assert_eq!(seen.iter().filter(|l| l.starts_with("i = 1")).count(), 1);
        assert_eq!(seen.iter().filter(|l| l.starts_with("n->next")).count(), 3);
    }

    #[test]
    fn rows_of_a_runtime_length_open_onto_their_elements() {
        const MATRIX: &str = "int main(void) {
    int n = 2, m = 3, i, j;
    int a[n][m];
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            a[i][j] = 10 * i + j;
    return a[1][2];
}
";
        let mut shown = None;
        debug(MATRIX, "", |line, paused| {
            if line.starts_with("return") {
                let locals = paused.locals(0);
                let a = locals.iter().find(|v| v.name == "a").expect("`a` is shown");
                assert!(locals.iter().all(|v| !v.name.contains('.')), "no hidden local: {locals:?}");
                let rows = paused.expand(a.inner.as_ref().expect("an array opens"));
                let last = paused.expand(rows[1].inner.as_ref().expect("a row opens"));
                shown = Some((a.ty.clone(), rows.len(), last.iter().map(|e| e.value.clone()).collect::<Vec<_>>()));
            }
            Resume::Go
        });
        assert_eq!(
            shown,
            Some(("int [][3]".to_string(), 2, vec!["10".to_string(), "11".to_string(), "12".to_string()]))
        );
    }

    #[test]
    fn the_memory_graph_draws_nodes_not_addresses() {
        let mut at_print = None;
        debug(LIST, "", |line, paused| {
            if line.starts_with("printf") {
                at_print = Some(paused.graph(0));
            }
            Resume::Go
        });
        let graph = at_print.expect("the run reaches the printf");
        assert_eq!(
            graph.canonical(),
            "list → n1\ni = 4\nn1: value = 3, next → n2\nn2: value = 2, next → n3\nn3: value = 1, next = NULL\n"
        );
        let dot = graph.dot(&|k| format!("n{}", k + 1));
        assert!(dot.contains("\"n1\":f1 -> \"n2\";"), "{dot}");
    }

    #[test]
    fn change_rewires_the_heap_and_the_run_goes_on_from_it() {
        let (r, _) = debug(LIST, "", |line, paused| {
            if line.starts_with("printf") {
                let graph = paused.graph(0);
                let node = |name: &str| {
                    let k: usize = name.strip_prefix('n')?.parse().ok()?;
                    graph.nodes.get(k - 1).map(|n| n.addr)
                };
                paused.change("list->next", "n3", &node).expect("a node of the list's type");
                assert_eq!(paused.print("list->next->value", &node).expect("a place").value, "1");
                assert!(paused.change("list->next", "5", &node).unwrap_err().contains("is a pointer"));
                assert!(paused.change("nothing", "1", &node).unwrap_err().contains("no `nothing`"));
                paused.change("i", "'a'", &node).expect("an int takes a character");
                assert_eq!(paused.print("i", &node).expect("a place").value, "97");
            }
            Resume::Go
        });
        assert_eq!(String::from_utf8_lossy(&r.output), "1\n");
    }

    #[test]
    fn a_runtime_error_is_shown_where_it_happens_and_stop_ends_the_run() {
        const NULL_WALK: &str = "struct node { int v; struct node *next; };
int last(struct node *p) { while (p != 0) p = p->next; return p->v; }
int main(void) { struct node a; a.v = 1; a.next = 0; return last(&a); }
";
        let (r, error_in) = debug(NULL_WALK, "", |_, _| Resume::Go);
        assert_eq!(r.error.map(|e| e.kind), Some(crate::spec::interp::RuntimeErrorKind::NullDereference));
        assert_eq!(error_in.as_deref(), Some("last"));
        let (r, error_in) = debug(NULL_WALK, "", |_, _| Resume::Stop);
        assert_eq!(r.error.map(|e| e.kind), Some(crate::spec::interp::RuntimeErrorKind::Cancelled));
        assert_eq!(error_in, None, "ending the run is not an error to show");
    }

    #[test]
    fn places_read_as_a_student_writes_them() {
        let name = |s: &str| PathStep::Name(s.into());
        let field = |s: &str| PathStep::Field(s.into());
        assert_eq!(parse_path("n4 -> prev"), Some(vec![name("n4"), field("prev")]));
        assert_eq!(parse_path("*p"), Some(vec![name("p"), PathStep::Deref]));
        assert_eq!(parse_path("a[2].x"), Some(vec![name("a"), PathStep::Index(2), field("x")]));
        assert_eq!(parse_path("p->"), None);
        assert_eq!(parse_path("2x"), None);
    }
}
