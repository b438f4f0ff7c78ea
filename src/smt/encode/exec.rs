//! The symbolic executor behind [`super::encode`]: simplification, unwinding, inlining and SSA
//! in one pass over the IR, with the path guard carried along (CBMC-style guarded SSA).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use z3::ast::{Array, Ast, Bool, Dynamic, Float, BV};
use z3::{Context, Sort};

use super::fp::{self, FpOps};
use super::*;
use crate::ir::format::{self as cfmt, Count, Piece};
use crate::ir::{BinOp, FloatKind, IncDec, IntKind, LogicOp, UnOp, VarId, VarKind};
use crate::smt::c_int;

type R<T> = Result<T, Unsupported>;

/// A symbolic C value.
#[derive(Clone, Debug)]
pub enum SymVal<'ctx> {
    Int(BV<'ctx>),
    Float(Float<'ctx>),
    Ptr(SymPtr<'ctx>),
    Void,
}

/// A pointer: (object id, offset in scalar elements of the object); `targets` over-approximates
/// the objects `obj` may denote (empty: null or unknown).
#[derive(Clone, Debug)]
pub struct SymPtr<'ctx> {
    pub obj: BV<'ctx>,
    pub off: BV<'ctx>,
    pub targets: Vec<u32>,
}

impl<'ctx> SymVal<'ctx> {
    pub fn as_bv(&self) -> Option<&BV<'ctx>> {
        if let SymVal::Int(b) = self { Some(b) } else { None }
    }
    pub fn as_float(&self) -> Option<&Float<'ctx>> {
        if let SymVal::Float(f) = self { Some(f) } else { None }
    }
    fn same(&self, o: &SymVal<'ctx>) -> bool {
        match (self, o) {
            (SymVal::Int(a), SymVal::Int(b)) => a == b,
            (SymVal::Float(a), SymVal::Float(b)) => a == b,
            (SymVal::Ptr(a), SymVal::Ptr(b)) => a.obj == b.obj && a.off == b.off && a.targets == b.targets,
            (SymVal::Void, SymVal::Void) => true,
            _ => false,
        }
    }
}

const OBJ_BITS: u32 = 32;
const OFF_BITS: u32 = 64;

#[derive(Clone, Debug)]
struct ObjInfo {
    len: u64,
    elem: Type,
}

#[derive(Clone)]
struct Slot<'ctx> {
    val: SymVal<'ctx>,
    init: Bool<'ctx>,
}

type Key = (u32, VarId);

#[derive(Clone)]
struct State<'ctx> {
    guard: Bool<'ctx>,
    dead: bool,
    vars: BTreeMap<Key, Slot<'ctx>>,
    mem: BTreeMap<u32, Array<'ctx>>,
    line: LineState,
}

/// Where the input stream stands, for line-oriented reads (`fgets`, `gets`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineState {
    /// At the start of a line: nothing read yet, or a whole line was read.
    Start,
    /// After `scanf`/`nondet`: the rest of the current line is unknown.
    Mid,
}

struct CallCtx<'ctx> {
    func: FuncId,
    frame: u32,
    returns: Vec<(State<'ctx>, Option<SymVal<'ctx>>)>,
}

struct Jump<'ctx> {
    is_loop: bool,
    breaks: Vec<State<'ctx>>,
    continues: Vec<State<'ctx>>,
}

enum Place<'ctx> {
    Var(Key),
    Mem { ptr: SymPtr<'ctx>, ty: Type },
}

struct Exec<'a, 'ctx> {
    ctx: &'ctx Context,
    p: &'a Program,
    bound: u32,
    alts: Option<AltProvider<'a>>,
    loc_of: HashMap<*const Expr, LocationId>,
    alt_cache: HashMap<LocationId, Rc<Vec<Expr>>>,
    enc: Encoding<'ctx>,
    st: State<'ctx>,
    objects: Vec<ObjInfo>,
    var_objs: HashMap<Key, u32>,
    literal_objs: HashMap<*const Expr, u32>,
    calls: Vec<CallCtx<'ctx>>,
    jumps: Vec<Jump<'ctx>>,
    next_frame: u32,
    names: u32,
    namespace: String,
    /// Order of inputs and outputs in the encoding (along a path: execution order).
    seq: std::cell::Cell<u64>,
    fp: FpOps<'ctx>,
    /// Doubles known to hold exactly the value of a (≤ 32-bit) integer term: `(double)n`, and
    /// `floor`/`ceil`/`round`/`fabs`-free rounding of those. Converting them back to an integer
    /// is then plain bit-vector conversion, without floating point in the formula.
    exact_ints: HashMap<Float<'ctx>, (BV<'ctx>, IntType)>,
    /// Statements encoded so far (unwound and inlined copies counted), against [`MAX_STMTS`].
    stmts: u64,
    /// Globals whose address is taken somewhere (`&g`): only these scalar globals live in
    /// memory objects; the others are SSA values like locals.
    addr_taken: HashSet<VarId>,
    /// Calls evaluated once per distinct entry state (see [`Exec::call_user`]); `None` when the
    /// program is recursive (a recursion cut depends on the call stack, not the entry state).
    memo: Option<HashMap<Vec<usize>, Rc<CallMemo<'ctx>>>>,
    /// Functions whose calls read input, print or exit: never memoised.
    no_memo: HashSet<FuncId>,
    /// `assume` statements encoded so far (they narrow the guard without a recorded check).
    assumes: u64,
}

/// One call evaluated from some entry state with the entry guard `true`: its result and the
/// effects it records, each relative to the entry (a call site conjoins its own guard).
struct CallMemo<'ctx> {
    value: SymVal<'ctx>,
    /// The guard under which the run goes on after the call, relative to the entry; `None`
    /// when every path returns (no check, assumption or cut inside): the entry guard itself.
    exit: Option<Bool<'ctx>>,
    dead: bool,
    /// Globals and static locals after the call.
    globals: Vec<(Key, Slot<'ctx>)>,
    mem: BTreeMap<u32, Array<'ctx>>,
    line: LineState,
    violations: Vec<Violation<'ctx>>,
    unwinding: Vec<UnwindPoint<'ctx>>,
    uninit_reads: Vec<UninitRead<'ctx>>,
    branches: Vec<Branch<'ctx>>,
}

/// Lengths of the encoding's guarded records, to take or undo what one call added.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Marks {
    violations: usize,
    unwinding: usize,
    uninit_reads: usize,
    branches: usize,
    inputs: usize,
    input_calls: usize,
    output: usize,
    exits: usize,
}

/// The unwound, inlined program may have at most this many statement copies (e.g. a doubly
/// recursive function at a large bound): beyond it the encoding gives up as unsupported.
pub const MAX_STMTS: u64 = 50_000;

pub(super) fn run<'ctx>(
    ctx: &'ctx Context,
    p: &Program,
    entry: &str,
    opts: &EncodeOptions<'_>,
    loc_of: HashMap<*const Expr, LocationId>,
) -> Result<Encoding<'ctx>, Unsupported> {
    let enc = Encoding {
        ctx,
        bound: opts.bound,
        hard: Vec::new(),
        soft: Vec::new(),
        selectors: BTreeMap::new(),
        violations: Vec::new(),
        unwinding: Vec::new(),
        branches: Vec::new(),
        inputs: Vec::new(),
        input_calls: Vec::new(),
        output: Vec::new(),
        uninit_reads: Vec::new(),
        return_value: None,
        exits: Vec::new(),
        completes: Bool::from_bool(ctx, false),
        bit_vectors_only: false,
        stats: EncodeStats::default(),
    };
    let mut x = Exec {
        ctx,
        p,
        bound: opts.bound,
        alts: opts.alternatives,
        loc_of,
        alt_cache: HashMap::new(),
        enc,
        st: State {
            guard: Bool::from_bool(ctx, true),
            dead: false,
            vars: BTreeMap::new(),
            mem: BTreeMap::new(),
            line: LineState::Start,
        },
        objects: vec![ObjInfo { len: 0, elem: Type::Void }],
        var_objs: HashMap::new(),
        literal_objs: HashMap::new(),
        calls: Vec::new(),
        jumps: Vec::new(),
        next_frame: 1,
        names: 0,
        namespace: opts.namespace.to_string(),
        seq: std::cell::Cell::new(0),
        fp: FpOps::new(ctx),
        exact_ints: HashMap::new(),
        stmts: 0,
        addr_taken: address_taken(p),
        memo: (!recursive(p)).then(HashMap::new),
        no_memo: HashSet::new(),
        assumes: 0,
    };
    let fid = p.func_by_name(entry).ok_or_else(|| Unsupported {
        func: None,
        what: format!("there is no function `{entry}` with a body"),
        span: Span::default(),
    })?;
    x.globals()?;
    let ret = x.inline_call(fid, Vec::new(), p.func(fid).span)?;
    if !matches!(ret, SymVal::Void) {
        x.enc.return_value = Some(ret);
    }
    let returned = if x.st.dead { Bool::from_bool(ctx, false) } else { x.st.guard.clone() };
    let mut ends: Vec<&Bool<'ctx>> = x.enc.exits.iter().map(|(g, _)| g).collect();
    ends.push(&returned);
    x.enc.completes = Bool::or(ctx, &ends);
    x.enc.bit_vectors_only = x.objects.len() == 1 && !uses_floats(p);
    let mut enc = x.enc;
    enc.stats.hard = enc.hard.len();
    enc.stats.soft = enc.soft.len();
    enc.stats.violations = enc.violations.len();
    enc.stats.unwinding_points = enc.unwinding.len();
    Ok(enc)
}

fn leaf(ty: &Type) -> &Type {
    match ty {
        Type::Array(e, _) => leaf(e),
        t => t,
    }
}

fn leaf_count(ty: &Type) -> Option<u64> {
    match ty {
        Type::Array(e, Some(n)) => Some(n * leaf_count(e)?),
        Type::Array(_, None) => None,
        _ => Some(1),
    }
}

fn is_pure(e: &Expr) -> bool {
    let mut pure = true;
    crate::ir::walk::walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Call(..)
        | ExprKind::Assign(..)
        | ExprKind::CompoundAssign { .. }
        | ExprKind::IncDec(..)
        | ExprKind::Index(..)
        | ExprKind::Deref(..) => pure = false,
        ExprKind::Binary(BinOp::Div | BinOp::Rem, _, _) if x.ty.is_integer() => pure = false,
        _ => {}
    });
    pure
}

impl<'a, 'ctx> Exec<'a, 'ctx> {
    // ----- helpers -----

    fn unsupported<T>(&self, what: impl Into<String>, span: Span) -> R<T> {
        let func = self.calls.last().map(|c| self.p.func(c.func).name.clone());
        Err(Unsupported { func, what: what.into(), span })
    }

    fn tt(&self) -> Bool<'ctx> {
        Bool::from_bool(self.ctx, true)
    }

    fn and(&self, a: &Bool<'ctx>, b: &Bool<'ctx>) -> Bool<'ctx> {
        match (a.as_bool(), b.as_bool()) {
            (Some(true), _) => b.clone(),
            (_, Some(true)) => a.clone(),
            (Some(false), _) | (_, Some(false)) => Bool::from_bool(self.ctx, false),
            _ => Bool::and(self.ctx, &[a, b]),
        }
    }

    fn next_seq(&self) -> u64 {
        let n = self.seq.get();
        self.seq.set(n + 1);
        n
    }

    fn name(&mut self, base: &str) -> String {
        self.names += 1;
        format!("{}{base}!{}", self.namespace, self.names)
    }

    fn kill(&mut self) {
        self.st.dead = true;
        self.st.guard = Bool::from_bool(self.ctx, false);
    }

    fn check(&mut self, ok: Bool<'ctx>, kind: ViolationKind, span: Span) {
        if ok.as_bool() == Some(true) {
            return;
        }
        let cond = self.and(&self.st.guard, &ok.not());
        self.enc.violations.push(Violation { kind, span, cond });
        self.st.guard = self.and(&self.st.guard, &ok);
    }

    fn var_key(&self, v: VarId) -> Key {
        match self.p.var(v).kind {
            VarKind::Global | VarKind::StaticLocal => (0, v),
            _ => (self.calls.last().map_or(0, |c| c.frame), v),
        }
    }

    /// Whether `v` lives in a memory object (a Z3 array) rather than as SSA values. The front
    /// end marks every global addressable (the interpreter keeps them in memory); a scalar
    /// global whose address is never taken cannot be reached through a pointer, so it is an
    /// SSA value here, which keeps array theory out of loop-free global-variable programs.
    fn object_backed(&self, v: VarId) -> bool {
        let var = self.p.var(v);
        match &var.ty {
            Type::Array(..) | Type::Struct(_) => true,
            _ if var.kind == VarKind::Global => self.addr_taken.contains(&v),
            _ => var.addressable,
        }
    }

    fn elem_sort(&self, ty: &Type, span: Span) -> R<Sort<'ctx>> {
        match ty {
            Type::Int(t) => Ok(Sort::bitvector(self.ctx, c_int::width(*t))),
            Type::Float(k) => Ok(fp::sort(self.ctx, *k)),
            Type::Struct(_) => self.unsupported("structs", span),
            _ => self.unsupported(format!("memory holding values of type `{}`", self.p.type_name(ty)), span),
        }
    }

    fn zero(&self, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        Ok(match ty {
            Type::Int(t) => SymVal::Int(c_int::constant(self.ctx, *t, 0)),
            Type::Float(k) => SymVal::Float(self.fp.literal(0.0, *k)),
            Type::Pointer(_) => SymVal::Ptr(self.null()),
            Type::Struct(_) => return self.unsupported("structs", span),
            _ => return self.unsupported(format!("values of type `{}`", self.p.type_name(ty)), span),
        })
    }

    fn null(&self) -> SymPtr<'ctx> {
        SymPtr { obj: BV::from_u64(self.ctx, 0, OBJ_BITS), off: BV::from_u64(self.ctx, 0, OFF_BITS), targets: vec![] }
    }

    fn fresh(&mut self, base: &str, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        let n = self.name(base);
        Ok(match ty {
            Type::Int(t) => SymVal::Int(BV::new_const(self.ctx, n, c_int::width(*t))),
            Type::Float(FloatKind::Float) => SymVal::Float(Float::new_const_float32(self.ctx, n)),
            Type::Float(FloatKind::Double) => SymVal::Float(Float::new_const_double(self.ctx, n)),
            Type::Pointer(_) => SymVal::Ptr(SymPtr {
                obj: BV::new_const(self.ctx, format!("{n}.obj"), OBJ_BITS),
                off: BV::new_const(self.ctx, format!("{n}.off"), OFF_BITS),
                targets: vec![],
            }),
            Type::Void => SymVal::Void,
            Type::Struct(_) => return self.unsupported("structs", span),
            _ => return self.unsupported(format!("values of type `{}`", self.p.type_name(ty)), span),
        })
    }

    /// A fresh constant equal to `v` (an SSA definition, hard).
    fn define(&mut self, base: &str, v: SymVal<'ctx>) -> SymVal<'ctx> {
        let n = self.name(base);
        match v {
            SymVal::Int(b) => {
                let x = BV::new_const(self.ctx, n, b.get_size());
                self.enc.hard.push(x._eq(&b));
                SymVal::Int(x)
            }
            SymVal::Float(f) => {
                let x = Float::new_const(self.ctx, n, f.get_sort().float_exponent_size().unwrap_or(11), f.get_sort().float_significand_size().unwrap_or(53));
                self.enc.hard.push(x._eq(&f));
                SymVal::Float(x)
            }
            SymVal::Ptr(p) => {
                let obj = BV::new_const(self.ctx, format!("{n}.obj"), OBJ_BITS);
                let off = BV::new_const(self.ctx, format!("{n}.off"), OFF_BITS);
                self.enc.hard.push(obj._eq(&p.obj));
                self.enc.hard.push(off._eq(&p.off));
                SymVal::Ptr(SymPtr { obj, off, targets: p.targets })
            }
            SymVal::Void => SymVal::Void,
        }
    }

    fn ite(&self, c: &Bool<'ctx>, a: &SymVal<'ctx>, b: &SymVal<'ctx>) -> SymVal<'ctx> {
        if a.same(b) {
            return a.clone();
        }
        match (a, b) {
            (SymVal::Int(x), SymVal::Int(y)) => SymVal::Int(c.ite(x, y)),
            (SymVal::Float(x), SymVal::Float(y)) => SymVal::Float(c.ite(x, y)),
            (SymVal::Ptr(x), SymVal::Ptr(y)) => {
                let mut targets = x.targets.clone();
                for t in &y.targets {
                    if !targets.contains(t) {
                        targets.push(*t);
                    }
                }
                targets.sort();
                SymVal::Ptr(SymPtr { obj: c.ite(&x.obj, &y.obj), off: c.ite(&x.off, &y.off), targets })
            }
            _ => a.clone(),
        }
    }

    fn truthy(&mut self, v: &SymVal<'ctx>) -> Bool<'ctx> {
        match v {
            SymVal::Int(b) => c_int::truthy(b),
            SymVal::Float(f) => self.fp.is_zero(f).not(),
            SymVal::Ptr(p) => c_int::truthy(&p.obj),
            SymVal::Void => self.tt(),
        }
    }

    /// Merges live states at a join: Φ-definitions for every variable and object that differs.
    /// `known` is the merged guard when the caller knows it (both arms of a branch unchanged).
    fn merge(&mut self, states: Vec<State<'ctx>>, known: Option<Bool<'ctx>>) -> State<'ctx> {
        let mut live: Vec<State<'ctx>> = states.into_iter().filter(|s| !s.dead).collect();
        if live.is_empty() {
            let mut s = self.st.clone();
            s.dead = true;
            s.guard = Bool::from_bool(self.ctx, false);
            return s;
        }
        if live.len() == 1 {
            return live.pop().unwrap();
        }
        let guard = known.unwrap_or_else(|| {
            let gs: Vec<&Bool<'ctx>> = live.iter().map(|s| &s.guard).collect();
            Bool::or(self.ctx, &gs)
        });
        let mut keys: Vec<Key> = live.iter().flat_map(|s| s.vars.keys().copied()).collect();
        keys.sort();
        keys.dedup();
        let mut vars = BTreeMap::new();
        for k in keys {
            let entries: Vec<(&Bool<'ctx>, &Slot<'ctx>)> =
                live.iter().filter_map(|s| s.vars.get(&k).map(|v| (&s.guard, v))).collect();
            let first = entries[0].1;
            let slot = if entries.iter().all(|(_, s)| s.val.same(&first.val) && s.init == first.init) {
                first.clone()
            } else {
                let (last_g, last) = entries[entries.len() - 1];
                let _ = last_g;
                let mut val = last.val.clone();
                let mut init = last.init.clone();
                for (g, s) in entries[..entries.len() - 1].iter().rev() {
                    val = self.ite(g, &s.val, &val);
                    init = if s.init == init { init } else { g.ite(&s.init, &init) };
                }
                let same = entries.iter().all(|(_, s)| s.val.same(&first.val));
                let val = if same { first.val.clone() } else { self.define(&self.p.var(k.1).name.clone(), val) };
                Slot { val, init }
            };
            vars.insert(k, slot);
        }
        let mut objs: Vec<u32> = live.iter().flat_map(|s| s.mem.keys().copied()).collect();
        objs.sort();
        objs.dedup();
        let mut mem = BTreeMap::new();
        for o in objs {
            let entries: Vec<(&Bool<'ctx>, &Array<'ctx>)> =
                live.iter().filter_map(|s| s.mem.get(&o).map(|a| (&s.guard, a))).collect();
            let first = entries[0].1;
            let arr = if entries.iter().all(|(_, a)| *a == first) {
                first.clone()
            } else {
                let mut acc = entries[entries.len() - 1].1.clone();
                for (g, a) in entries[..entries.len() - 1].iter().rev() {
                    acc = g.ite(a, &acc);
                }
                let n = self.name(&format!("mem{o}"));
                let elem = self.objects[o as usize].elem.clone();
                let range = match self.elem_sort(&elem, Span::default()) {
                    Ok(r) => r,
                    Err(_) => Sort::bitvector(self.ctx, 8),
                };
                let x = Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &range);
                self.enc.hard.push(x._eq(&acc));
                x
            };
            mem.insert(o, arr);
        }
        let line = if live.iter().all(|s| s.line == LineState::Start) { LineState::Start } else { LineState::Mid };
        State { guard, dead: false, vars, mem, line }
    }

    fn selectors(&mut self, loc: LocationId, n: usize) -> Vec<Bool<'ctx>> {
        if let Some(s) = self.enc.selectors.get(&loc) {
            return s.clone();
        }
        let sels: Vec<Bool<'ctx>> =
            (0..n).map(|k| Bool::new_const(self.ctx, format!("sel!{}!{}", loc.0, k))).collect();
        let refs: Vec<&Bool<'ctx>> = sels.iter().collect();
        self.enc.hard.push(Bool::or(self.ctx, &refs));
        self.enc.selectors.insert(loc, sels.clone());
        sels
    }

    // ----- objects and places -----

    fn new_object(&mut self, ty: &Type, span: Span) -> R<u32> {
        let elem = leaf(ty).clone();
        let Some(len) = leaf_count(ty) else { return self.unsupported("an array of unknown size", span) };
        self.elem_sort(&elem, span)?;
        self.objects.push(ObjInfo { len, elem });
        Ok((self.objects.len() - 1) as u32)
    }

    fn obj_ptr(&self, o: u32) -> SymPtr<'ctx> {
        SymPtr {
            obj: BV::from_u64(self.ctx, o as u64, OBJ_BITS),
            off: BV::from_u64(self.ctx, 0, OFF_BITS),
            targets: vec![o],
        }
    }

    fn var_obj(&mut self, key: Key, span: Span) -> R<u32> {
        if let Some(&o) = self.var_objs.get(&key) {
            return Ok(o);
        }
        let ty = self.p.var(key.1).ty.clone();
        let o = self.new_object(&ty, span)?;
        self.var_objs.insert(key, o);
        let sort = self.elem_sort(&self.objects[o as usize].elem.clone(), span)?;
        let n = self.name(&self.p.var(key.1).name.clone());
        self.st.mem.insert(o, Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &sort));
        Ok(o)
    }

    fn to_dyn(v: &SymVal<'ctx>) -> Dynamic<'ctx> {
        match v {
            SymVal::Int(b) => Dynamic::from_ast(b),
            SymVal::Float(f) => Dynamic::from_ast(f),
            _ => unreachable!("only scalars live in memory"),
        }
    }

    fn from_dyn(d: Dynamic<'ctx>) -> SymVal<'ctx> {
        if let Some(b) = d.as_bv() {
            SymVal::Int(b)
        } else if let Some(f) = d.as_float() {
            SymVal::Float(f)
        } else {
            unreachable!("memory holds bit-vectors and floats")
        }
    }

    fn in_bounds(&mut self, ptr: &SymPtr<'ctx>, span: Span) -> R<Bool<'ctx>> {
        if ptr.targets.is_empty() {
            return self.unsupported("a dereference of a pointer the verifier cannot track (null or unknown)", span);
        }
        let ctx = self.ctx;
        let within = |o: u32, objs: &Vec<ObjInfo>| ptr.off.bvult(&BV::from_u64(ctx, objs[o as usize].len, OFF_BITS));
        if ptr.targets.len() == 1 {
            let o = ptr.targets[0];
            // A constant offset (a scalar object, `a[2]`) is decided here: no check is recorded.
            if let Some(off) = ptr.off.as_u64() {
                return Ok(Bool::from_bool(ctx, off < self.objects[o as usize].len));
            }
            return Ok(within(o, &self.objects));
        }
        let parts: Vec<Bool<'ctx>> = ptr
            .targets
            .iter()
            .map(|&o| Bool::and(ctx, &[&ptr.obj._eq(&BV::from_u64(ctx, o as u64, OBJ_BITS)), &within(o, &self.objects)]))
            .collect();
        let refs: Vec<&Bool<'ctx>> = parts.iter().collect();
        Ok(Bool::or(ctx, &refs))
    }

    fn mem_array(&mut self, o: u32, span: Span) -> R<Array<'ctx>> {
        if let Some(a) = self.st.mem.get(&o) {
            return Ok(a.clone());
        }
        let sort = self.elem_sort(&self.objects[o as usize].elem.clone(), span)?;
        let n = self.name(&format!("mem{o}"));
        let a = Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &sort);
        self.st.mem.insert(o, a.clone());
        Ok(a)
    }

    fn load(&mut self, place: Place<'ctx>, e: &Expr) -> R<SymVal<'ctx>> {
        match place {
            Place::Var(key) => {
                if let Some(slot) = self.st.vars.get(&key).cloned() {
                    if slot.init.as_bool() != Some(true) {
                        let cond = self.and(&self.st.guard, &slot.init.not());
                        let name = self.p.var(key.1).name.clone();
                        self.enc.uninit_reads.push(UninitRead { span: e.span, name, cond });
                    }
                    Ok(slot.val)
                } else {
                    let ty = self.p.var(key.1).ty.clone();
                    let v = self.fresh(&self.p.var(key.1).name.clone(), &ty, e.span)?;
                    let name = self.p.var(key.1).name.clone();
                    self.enc.uninit_reads.push(UninitRead { span: e.span, name, cond: self.st.guard.clone() });
                    Ok(v)
                }
            }
            Place::Mem { ptr, ty } => {
                if matches!(ty, Type::Array(..)) {
                    return Ok(SymVal::Ptr(ptr));
                }
                self.access_type_ok(&ptr, &ty, e.span)?;
                let ok = self.in_bounds(&ptr, e.span)?;
                self.check(ok, ViolationKind::OutOfBounds, e.span);
                let mut acc: Option<SymVal<'ctx>> = None;
                for &o in ptr.targets.iter().rev() {
                    let arr = self.mem_array(o, e.span)?;
                    let v = Self::from_dyn(arr.select(&ptr.off));
                    acc = Some(match acc {
                        None => v,
                        Some(rest) => {
                            let c = ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS));
                            self.ite(&c, &v, &rest)
                        }
                    });
                }
                Ok(acc.expect("targets is not empty"))
            }
        }
    }

    fn access_type_ok(&self, ptr: &SymPtr<'ctx>, ty: &Type, span: Span) -> R<()> {
        for &o in &ptr.targets {
            if self.objects[o as usize].elem != *leaf(ty) {
                return self.unsupported("an access to memory through a pointer of another type", span);
            }
        }
        Ok(())
    }

    fn store(&mut self, place: Place<'ctx>, v: SymVal<'ctx>, span: Span) -> R<()> {
        match place {
            Place::Var(key) => {
                self.st.vars.insert(key, Slot { val: v, init: self.tt() });
                Ok(())
            }
            Place::Mem { ptr, ty } => {
                if matches!(ty, Type::Array(..)) {
                    return self.unsupported("assignment of a whole array", span);
                }
                if matches!(v, SymVal::Ptr(_)) {
                    return self.unsupported("pointers stored in memory", span);
                }
                if ptr.targets.iter().any(|o| self.literal_objs.values().any(|l| l == o)) {
                    return self.unsupported("a write through a pointer that may point into a string literal", span);
                }
                self.access_type_ok(&ptr, &ty, span)?;
                let ok = self.in_bounds(&ptr, span)?;
                self.check(ok, ViolationKind::OutOfBounds, span);
                let d = Self::to_dyn(&v);
                let many = ptr.targets.len() > 1;
                for &o in &ptr.targets {
                    let arr = self.mem_array(o, span)?;
                    let stored = arr.store(&ptr.off, &d);
                    let new = if many {
                        ptr.obj._eq(&BV::from_u64(self.ctx, o as u64, OBJ_BITS)).ite(&stored, &arr)
                    } else {
                        stored
                    };
                    self.st.mem.insert(o, new);
                }
                Ok(())
            }
        }
    }

    fn place(&mut self, e: &Expr) -> R<Place<'ctx>> {
        match &e.kind {
            ExprKind::Var(v) => {
                let key = self.var_key(*v);
                if self.object_backed(*v) {
                    let o = self.var_obj(key, e.span)?;
                    Ok(Place::Mem { ptr: self.obj_ptr(o), ty: e.ty.clone() })
                } else {
                    Ok(Place::Var(key))
                }
            }
            ExprKind::Index(b, i) => {
                let base = self.eval(b)?;
                let idx = self.eval(i)?;
                let SymVal::Ptr(p) = base else { return self.unsupported("indexing a non-pointer", e.span) };
                let (SymVal::Int(iv), Some(it)) = (idx, i.ty.as_int()) else {
                    return self.unsupported("a non-integer index", e.span);
                };
                let Some(scale) = leaf_count(&e.ty) else { return self.unsupported("arrays of unknown size", e.span) };
                let iv = c_int::resize(&iv, it.signed, OFF_BITS);
                let off = p.off.bvadd(&iv.bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS)));
                Ok(Place::Mem { ptr: SymPtr { off, ..p }, ty: e.ty.clone() })
            }
            ExprKind::Deref(q) => {
                let SymVal::Ptr(p) = self.eval(q)? else { return self.unsupported("dereferencing a non-pointer", e.span) };
                Ok(Place::Mem { ptr: p, ty: e.ty.clone() })
            }
            ExprKind::Str(bytes) => {
                let key = e as *const Expr;
                let o = match self.literal_objs.get(&key) {
                    Some(&o) => o,
                    None => {
                        let o = self.new_object(&e.ty, e.span)?;
                        let mut arr = Array::const_array(
                            self.ctx,
                            &Sort::bitvector(self.ctx, OFF_BITS),
                            &BV::from_u64(self.ctx, 0, 8),
                        );
                        for (i, b) in bytes.iter().enumerate() {
                            arr = arr.store(&BV::from_u64(self.ctx, i as u64, OFF_BITS), &BV::from_u64(self.ctx, *b as u64, 8));
                        }
                        // Literals never change: keep their contents in every state from here on.
                        self.st.mem.insert(o, arr);
                        self.literal_objs.insert(key, o);
                        o
                    }
                };
                Ok(Place::Mem { ptr: self.obj_ptr(o), ty: e.ty.clone() })
            }
            ExprKind::Member { .. } => self.unsupported("structs", e.span),
            _ => self.unsupported("this kind of lvalue", e.span),
        }
    }

    // ----- expressions -----

    fn alternatives(&mut self, loc: LocationId, e: &Expr) -> Rc<Vec<Expr>> {
        if let Some(a) = self.alt_cache.get(&loc) {
            return a.clone();
        }
        let a = Rc::new(self.alts.map(|f| f(loc, e)).unwrap_or_default());
        self.alt_cache.insert(loc, a.clone());
        a
    }

    /// Evaluates a (possible) location: with alternatives, each runs under its selector.
    fn eval_loc(&mut self, e: &Expr) -> R<SymVal<'ctx>> {
        let Some(loc) = self.loc_of.get(&(e as *const Expr)).copied() else { return self.eval(e) };
        let alts = self.alternatives(loc, e);
        if alts.is_empty() {
            return self.eval(e);
        }
        let sels = self.selectors(loc, alts.len() + 1);
        let start = self.st.clone();
        let mut states = Vec::new();
        let mut vals = Vec::new();
        let mut unchanged = true;
        for (k, sel) in sels.iter().enumerate() {
            self.st = start.clone();
            let g = self.and(&start.guard, sel);
            self.st.guard = g.clone();
            let ex: &Expr = if k == 0 { e } else { &alts[k - 1] };
            let v = self.eval(ex)?;
            unchanged &= !self.st.dead && self.st.guard == g;
            vals.push(v);
            states.push(std::mem::replace(&mut self.st, start.clone()));
        }
        let known = if unchanged { Some(start.guard.clone()) } else { None };
        self.st = self.merge(states, known);
        // Unique per location and use: two locations' constants must never share a name.
        let use_id = self.next_name();
        let name = format!("{}loc!{}!{use_id}", self.namespace, loc.0);
        let x = match &vals[0] {
            SymVal::Int(b) => SymVal::Int(BV::new_const(self.ctx, name, b.get_size())),
            SymVal::Float(f) => {
                let s = f.get_sort();
                SymVal::Float(Float::new_const(
                    self.ctx,
                    name,
                    s.float_exponent_size().unwrap_or(11),
                    s.float_significand_size().unwrap_or(53),
                ))
            }
            SymVal::Void => return Ok(SymVal::Void),
            SymVal::Ptr(_) => return self.unsupported("alternatives for a pointer-valued expression", e.span),
        };
        for (k, v) in vals.iter().enumerate() {
            let c = match (&x, v) {
                (SymVal::Int(a), SymVal::Int(b)) if a.get_size() == b.get_size() => a._eq(b),
                (SymVal::Float(a), SymVal::Float(b)) => a._eq(b),
                _ => return self.unsupported("an alternative of another type", e.span),
            };
            self.enc.soft.push(Soft { loc, k, constraint: c });
        }
        Ok(x)
    }

    fn next_name(&mut self) -> usize {
        self.names += 1;
        self.names as usize
    }

    fn eval_cond(&mut self, e: &Expr) -> R<Bool<'ctx>> {
        let v = self.eval_loc(e)?;
        Ok(self.truthy(&v))
    }

    fn eval(&mut self, e: &Expr) -> R<SymVal<'ctx>> {
        match &e.kind {
            ExprKind::Int(v) => match &e.ty {
                Type::Int(t) => Ok(SymVal::Int(c_int::constant(self.ctx, *t, *v))),
                Type::Float(k) => Ok(SymVal::Float(self.fp.literal(*v as f64, *k))),
                Type::Pointer(_) if *v == 0 => Ok(SymVal::Ptr(self.null())),
                _ => self.unsupported("an integer constant of this type", e.span),
            },
            ExprKind::Float(f) => match &e.ty {
                Type::Float(k) => Ok(SymVal::Float(self.fp.literal(*f, *k))),
                _ => self.unsupported("a float constant of this type", e.span),
            },
            ExprKind::SizeOf { size, .. } => match &e.ty {
                Type::Int(t) => Ok(SymVal::Int(c_int::constant(self.ctx, *t, *size as i64))),
                _ => self.unsupported("sizeof of this type", e.span),
            },
            ExprKind::Str(_) => {
                let pl = self.place(e)?;
                self.load(pl, e)
            }
            ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::Member { .. } => {
                let pl = self.place(e)?;
                self.load(pl, e)
            }
            ExprKind::Decay(inner) | ExprKind::AddrOf(inner) => match self.place(inner)? {
                Place::Mem { ptr, .. } => Ok(SymVal::Ptr(ptr)),
                Place::Var(_) => self.unsupported("the address of a register variable", e.span),
            },
            ExprKind::Unary(op, a) => {
                let v = self.eval(a)?;
                match (op, v) {
                    (UnOp::Neg, SymVal::Int(b)) => Ok(SymVal::Int(c_int::neg(&b))),
                    (UnOp::Neg, SymVal::Float(f)) => {
                        let Type::Float(k) = e.ty else { return self.unsupported("negation", e.span) };
                        Ok(SymVal::Float(self.fp.neg(&f, k)))
                    }
                    (UnOp::BitNot, SymVal::Int(b)) => Ok(SymVal::Int(c_int::bit_not(&b))),
                    (UnOp::Not, v) => {
                        let t = self.truthy(&v).not();
                        self.bool_val(&t, &e.ty, e.span)
                    }
                    _ => self.unsupported("this unary operation", e.span),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, x, y, &a.ty, &b.ty, &e.ty, e.span)
            }
            ExprKind::Logical(op, a, b) => {
                let ca = {
                    let v = self.eval(a)?;
                    self.truthy(&v)
                };
                let run = if *op == LogicOp::And { ca.clone() } else { ca.not() };
                let g = self.st.guard.clone();
                let rg = self.and(&g, &run);
                let cb = if is_pure(b) {
                    self.st.guard = rg;
                    let v = self.eval(b)?;
                    self.st.guard = g;
                    self.truthy(&v)
                } else {
                    let mut skip = self.st.clone();
                    skip.guard = self.and(&g, &run.not());
                    self.st.guard = rg.clone();
                    let v = self.eval(b)?;
                    let cb = self.truthy(&v);
                    let ran = std::mem::replace(&mut self.st, skip.clone());
                    let known = if !ran.dead && ran.guard == rg { Some(g) } else { None };
                    self.st = self.merge(vec![ran, skip], known);
                    cb
                };
                let r = if *op == LogicOp::And {
                    Bool::and(self.ctx, &[&ca, &cb])
                } else {
                    Bool::or(self.ctx, &[&ca, &cb])
                };
                self.bool_val(&r, &e.ty, e.span)
            }
            ExprKind::Cond(c, a, b) => {
                let cv = {
                    let v = self.eval(c)?;
                    self.truthy(&v)
                };
                let g = self.st.guard.clone();
                let (ga, gb) = (self.and(&g, &cv), self.and(&g, &cv.not()));
                if is_pure(a) && is_pure(b) {
                    self.st.guard = ga;
                    let va = self.eval(a)?;
                    self.st.guard = gb;
                    let vb = self.eval(b)?;
                    self.st.guard = g;
                    return Ok(self.ite(&cv, &va, &vb));
                }
                let start = self.st.clone();
                self.st.guard = ga.clone();
                let va = self.eval(a)?;
                let sa = std::mem::replace(&mut self.st, start);
                self.st.guard = gb.clone();
                let vb = self.eval(b)?;
                let sb = std::mem::replace(&mut self.st, sa.clone());
                let known = if !sa.dead && !sb.dead && sa.guard == ga && sb.guard == gb { Some(g) } else { None };
                self.st = self.merge(vec![sa, sb], known);
                Ok(self.ite(&cv, &va, &vb))
            }
            ExprKind::Assign(l, r) => {
                let pl = self.place(l)?;
                let v = self.eval_loc(r)?;
                self.store(pl, v.clone(), l.span)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { op, op_ty, lhs, rhs } => {
                let pl = self.place(lhs)?;
                let pl2 = self.clone_place(&pl);
                let old = self.load(pl2, lhs)?;
                let oldc = self.cast(old, &lhs.ty, op_ty, e.span)?;
                let r = self.eval_loc(rhs)?;
                let res = self.binary(*op, oldc, r, op_ty, &rhs.ty, op_ty, e.span)?;
                let v = self.cast(res, op_ty, &lhs.ty, e.span)?;
                self.store(pl, v.clone(), lhs.span)?;
                Ok(v)
            }
            ExprKind::IncDec(kind, a) => {
                let pl = self.place(a)?;
                let pl2 = self.clone_place(&pl);
                let old = self.load(pl2, a)?;
                let inc = matches!(kind, IncDec::PreInc | IncDec::PostInc);
                let new = match (&old, &a.ty) {
                    (SymVal::Int(b), Type::Int(t)) => {
                        let one = c_int::constant(self.ctx, *t, 1);
                        let r = if inc { c_int::add(b, &one) } else { c_int::sub(b, &one) };
                        // `_Bool` x++ is 1; x-- toggles: C converts the int result back.
                        if t.kind == IntKind::Bool {
                            let wide = c_int::resize(b, false, 32);
                            let one32 = BV::from_u64(self.ctx, 1, 32);
                            let r32 = if inc { wide.bvadd(&one32) } else { wide.bvsub(&one32) };
                            SymVal::Int(c_int::cast(&r32, IntType::INT, *t))
                        } else {
                            SymVal::Int(r)
                        }
                    }
                    (SymVal::Float(f), Type::Float(k)) => {
                        let one = self.fp.literal(1.0, *k);
                        SymVal::Float(self.fp.arith(if inc { "add" } else { "sub" }, f, &one, *k))
                    }
                    (SymVal::Ptr(p), Type::Pointer(to)) => {
                        let Some(scale) = leaf_count(to) else { return self.unsupported("pointer arithmetic", e.span) };
                        let d = BV::from_u64(self.ctx, scale, OFF_BITS);
                        let off = if inc { p.off.bvadd(&d) } else { p.off.bvsub(&d) };
                        SymVal::Ptr(SymPtr { off, ..p.clone() })
                    }
                    _ => return self.unsupported("++/-- on this type", e.span),
                };
                self.store(pl, new.clone(), a.span)?;
                Ok(if matches!(kind, IncDec::PreInc | IncDec::PreDec) { new } else { old })
            }
            ExprKind::Cast { expr, .. } => {
                let v = self.eval(expr)?;
                self.cast(v, &expr.ty, &e.ty, e.span)
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Call(callee, args) => self.call(e, callee, args),
        }
    }

    fn clone_place(&self, p: &Place<'ctx>) -> Place<'ctx> {
        match p {
            Place::Var(k) => Place::Var(*k),
            Place::Mem { ptr, ty } => Place::Mem { ptr: ptr.clone(), ty: ty.clone() },
        }
    }

    fn bool_val(&self, b: &Bool<'ctx>, ty: &Type, span: Span) -> R<SymVal<'ctx>> {
        match ty {
            Type::Int(t) => Ok(SymVal::Int(c_int::from_bool(b, *t))),
            _ => self.unsupported("a truth value of non-integer type", span),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        op: BinOp,
        x: SymVal<'ctx>,
        y: SymVal<'ctx>,
        aty: &Type,
        bty: &Type,
        ty: &Type,
        span: Span,
    ) -> R<SymVal<'ctx>> {
        if op.is_comparison() {
            let c = match (&x, &y) {
                (SymVal::Int(a), SymVal::Int(b)) => {
                    let signed = aty.as_int().is_some_and(|t| t.signed);
                    c_int::compare(op, a, b, signed).expect("comparison")
                }
                (SymVal::Float(a), SymVal::Float(b)) => {
                    let name = match op {
                        BinOp::Lt => "fp.lt",
                        BinOp::Le => "fp.leq",
                        BinOp::Gt => "fp.gt",
                        BinOp::Ge => "fp.geq",
                        _ => "fp.eq",
                    };
                    let c = self.fp.compare(name, a, b);
                    if op == BinOp::Ne { c.not() } else { c }
                }
                (SymVal::Ptr(a), SymVal::Ptr(b)) => match op {
                    BinOp::Eq => Bool::and(self.ctx, &[&a.obj._eq(&b.obj), &a.off._eq(&b.off)]),
                    BinOp::Ne => Bool::and(self.ctx, &[&a.obj._eq(&b.obj), &a.off._eq(&b.off)]).not(),
                    _ => c_int::compare(op, &a.off, &b.off, true).expect("comparison"),
                },
                _ => return self.unsupported("a comparison of these operands", span),
            };
            return self.bool_val(&c, ty, span);
        }
        match (x, y, ty) {
            (SymVal::Ptr(p), SymVal::Int(n), Type::Pointer(to)) | (SymVal::Int(n), SymVal::Ptr(p), Type::Pointer(to))
                if matches!(op, BinOp::Add | BinOp::Sub) =>
            {
                let Some(scale) = leaf_count(to) else { return self.unsupported("pointer arithmetic", span) };
                let nt = if aty.is_integer() { aty } else { bty };
                let signed = nt.as_int().is_none_or(|t| t.signed);
                let d = c_int::resize(&n, signed, OFF_BITS).bvmul(&BV::from_u64(self.ctx, scale, OFF_BITS));
                let off = if op == BinOp::Sub { p.off.bvsub(&d) } else { p.off.bvadd(&d) };
                Ok(SymVal::Ptr(SymPtr { off, ..p }))
            }
            (SymVal::Ptr(p), SymVal::Ptr(q), Type::Int(t)) if op == BinOp::Sub => {
                let Some(scale) = aty.pointee().and_then(leaf_count) else {
                    return self.unsupported("pointer arithmetic", span);
                };
                let d = p.off.bvsub(&q.off).bvsdiv(&BV::from_u64(self.ctx, scale, OFF_BITS));
                Ok(SymVal::Int(c_int::resize(&d, true, c_int::width(*t))))
            }
            (SymVal::Int(a), SymVal::Int(b), Type::Int(t)) => {
                let t = *t;
                let b = match op {
                    BinOp::Shl | BinOp::Shr => {
                        let bt = bty.as_int().unwrap_or(t);
                        let n = c_int::resize(&b, bt.signed, c_int::width(t));
                        // x86 masks the count to the operand width (as the interpreter does).
                        n.bvand(&BV::from_u64(self.ctx, (c_int::width(t) - 1) as u64, c_int::width(t)))
                    }
                    BinOp::Div | BinOp::Rem => {
                        let ok = c_int::truthy(&b);
                        self.check(ok, ViolationKind::DivisionByZero, span);
                        b
                    }
                    _ => b,
                };
                match c_int::arith(op, &a, &b, t) {
                    Some(r) => Ok(SymVal::Int(r)),
                    None => self.unsupported("this operation", span),
                }
            }
            (SymVal::Float(a), SymVal::Float(b), Type::Float(k)) => {
                let name = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    _ => return self.unsupported(format!("operator `{}` on floating point", op.c_token()), span),
                };
                Ok(SymVal::Float(self.fp.arith(name, &a, &b, *k)))
            }
            _ => self.unsupported(format!("operator `{}` on these operands", op.c_token()), span),
        }
    }

    fn cast(&mut self, v: SymVal<'ctx>, from: &Type, to: &Type, span: Span) -> R<SymVal<'ctx>> {
        Ok(match (v, from, to) {
            (v, _, Type::Void) => {
                let _ = v;
                SymVal::Void
            }
            (SymVal::Int(b), Type::Int(f), Type::Int(t)) => SymVal::Int(c_int::cast(&b, *f, *t)),
            (SymVal::Int(b), Type::Int(f), Type::Float(k)) => {
                let x = self.fp.int_to_float(&b, f.signed, *k);
                if *k == FloatKind::Double && f.bits() <= 32 {
                    self.exact_ints.insert(x.clone(), (b, *f));
                }
                SymVal::Float(x)
            }
            (SymVal::Float(x), Type::Float(_), Type::Int(t)) if t.kind != IntKind::Bool && self.exact_ints.contains_key(&x) => {
                let (b, f) = self.exact_ints[&x].clone();
                SymVal::Int(c_int::cast(&b, f, *t))
            }
            (SymVal::Float(x), Type::Float(_), Type::Int(t)) => {
                if t.kind == IntKind::Bool {
                    let c = self.fp.is_zero(&x).not();
                    SymVal::Int(c_int::from_bool(&c, *t))
                } else {
                    SymVal::Int(self.fp.float_to_int(&x, t.signed, c_int::width(*t)))
                }
            }
            (SymVal::Float(x), Type::Float(f), Type::Float(k)) => {
                if f == k {
                    SymVal::Float(x)
                } else {
                    SymVal::Float(self.fp.convert(&x, *k))
                }
            }
            (SymVal::Ptr(p), _, Type::Int(t)) if t.kind == IntKind::Bool => {
                SymVal::Int(c_int::from_bool(&c_int::truthy(&p.obj), *t))
            }
            (SymVal::Ptr(p), Type::Pointer(a) | Type::Array(a, _), Type::Pointer(b)) => {
                if leaf(a) != leaf(b) && !p.targets.is_empty() {
                    return self.unsupported("a cast between pointers to different types", span);
                }
                SymVal::Ptr(p)
            }
            (SymVal::Int(b), Type::Int(_), Type::Pointer(_)) if b.as_u64() == Some(0) || c_int::value_of(&b, IntType::LONG) == Some(0) => {
                SymVal::Ptr(self.null())
            }
            (v, f, t) if f == t => v,
            _ => {
                return self.unsupported(
                    format!("a conversion from `{}` to `{}`", self.p.type_name(from), self.p.type_name(to)),
                    span,
                )
            }
        })
    }

    // ----- calls -----

    fn call(&mut self, e: &Expr, callee: &Callee, args: &[Expr]) -> R<SymVal<'ctx>> {
        match callee {
            Callee::Builtin(b) => self.builtin(*b, e, args),
            Callee::Func(fid) => {
                let f = self.p.func(*fid);
                // Prototypes of verification conventions are builtins already (lowering).
                if f.body.is_none() {
                    return self.unsupported(format!("a call to `{}`, which has no body", f.name), e.span);
                }
                let mut vals = vec![SymVal::Void; args.len()];
                for i in (0..args.len()).rev() {
                    vals[i] = self.eval_loc(&args[i])?;
                }
                self.call_user(*fid, vals, e.span)
            }
        }
    }

    fn marks(&self) -> Marks {
        Marks {
            violations: self.enc.violations.len(),
            unwinding: self.enc.unwinding.len(),
            uninit_reads: self.enc.uninit_reads.len(),
            branches: self.enc.branches.len(),
            inputs: self.enc.inputs.len(),
            input_calls: self.enc.input_calls.len(),
            output: self.enc.output.len(),
            exits: self.enc.exits.len(),
        }
    }

    /// A call's memo key: the function, its arguments and the entry state it can observe
    /// (globals, static locals, every memory object, the input line state), as Z3 term
    /// identities (Z3 hash-conses terms, so equal terms are the same pointer).
    fn memo_key(&self, fid: FuncId, vals: &[SymVal<'ctx>]) -> Vec<usize> {
        fn push<'c>(out: &mut Vec<usize>, v: &SymVal<'c>) {
            match v {
                SymVal::Int(b) => out.push(b.get_z3_ast() as usize),
                SymVal::Float(f) => out.push(f.get_z3_ast() as usize),
                SymVal::Ptr(p) => {
                    out.push(p.obj.get_z3_ast() as usize);
                    out.push(p.off.get_z3_ast() as usize);
                    out.push(p.targets.len());
                    out.extend(p.targets.iter().map(|t| *t as usize));
                }
                SymVal::Void => out.push(0),
            }
        }
        let mut key = vec![fid.0 as usize, vals.len(), self.st.line as usize];
        for v in vals {
            push(&mut key, v);
        }
        for (k, slot) in self.st.vars.iter().filter(|(k, _)| k.0 == 0) {
            key.push(k.1.0 as usize);
            push(&mut key, &slot.val);
            key.push(slot.init.get_z3_ast() as usize);
        }
        key.push(usize::MAX);
        for (o, a) in &self.st.mem {
            key.push(*o as usize);
            key.push(a.get_z3_ast() as usize);
        }
        key
    }

    /// Inlines a call of `fid`. Unless the program is recursive, a call is evaluated once per
    /// distinct entry state (arguments, globals, memory) with the entry guard `true`; its value
    /// and final state are then correct wherever the call is executed (a state's values only
    /// matter under its guard), and its checks, cuts, uninitialised reads and branches are
    /// recorded at each call site with the site's guard conjoined. A mutation encoding
    /// evaluates every alternative of an expression like `up_sep() - 10` from the same state,
    /// so this inlines `up_sep` once instead of once per alternative (and per alternative of
    /// every enclosing call). Calls that read input, print or exit are inlined every time:
    /// their records are ordered and each call reads its own input.
    fn call_user(&mut self, fid: FuncId, vals: Vec<SymVal<'ctx>>, span: Span) -> R<SymVal<'ctx>> {
        if self.memo.is_none() || self.no_memo.contains(&fid) || self.st.dead {
            return self.inline_call(fid, vals, span);
        }
        let key = self.memo_key(fid, &vals);
        if let Some(m) = self.memo.as_ref().and_then(|m| m.get(&key)).cloned() {
            return Ok(self.apply_memo(&m));
        }
        let saved = self.st.clone();
        let marks = self.marks();
        let (stmts, inlined, seq, assumes) = (self.stmts, self.enc.stats.inlined_calls, self.seq.get(), self.assumes);
        self.st.guard = self.tt();
        let value = self.inline_call(fid, vals.clone(), span)?;
        let after = self.marks();
        if (after.inputs, after.input_calls, after.output, after.exits)
            != (marks.inputs, marks.input_calls, marks.output, marks.exits)
        {
            // I/O or exit: undo the records and inline it at the real guard.
            self.enc.violations.truncate(marks.violations);
            self.enc.unwinding.truncate(marks.unwinding);
            self.enc.uninit_reads.truncate(marks.uninit_reads);
            self.enc.branches.truncate(marks.branches);
            self.enc.inputs.truncate(marks.inputs);
            self.enc.input_calls.truncate(marks.input_calls);
            self.enc.output.truncate(marks.output);
            self.enc.exits.truncate(marks.exits);
            self.stmts = stmts;
            self.enc.stats.inlined_calls = inlined;
            self.seq.set(seq);
            self.assumes = assumes;
            self.st = saved;
            self.no_memo.insert(fid);
            return self.inline_call(fid, vals, span);
        }
        let narrows = after.violations != marks.violations || after.unwinding != marks.unwinding || self.assumes != assumes;
        let memo = CallMemo {
            value,
            exit: (narrows && !self.st.dead).then(|| self.st.guard.clone()),
            dead: self.st.dead,
            globals: self.st.vars.iter().filter(|(k, _)| k.0 == 0).map(|(k, s)| (*k, s.clone())).collect(),
            mem: self.st.mem.clone(),
            line: self.st.line,
            violations: self.enc.violations.split_off(marks.violations),
            unwinding: self.enc.unwinding.split_off(marks.unwinding),
            uninit_reads: self.enc.uninit_reads.split_off(marks.uninit_reads),
            branches: self.enc.branches.split_off(marks.branches),
        };
        self.st = saved;
        let memo = Rc::new(memo);
        if let Some(m) = self.memo.as_mut() {
            m.insert(key, memo.clone());
        }
        Ok(self.apply_memo(&memo))
    }

    /// The state after a memoised call from the current state, its records at this site.
    fn apply_memo(&mut self, m: &CallMemo<'ctx>) -> SymVal<'ctx> {
        let g = self.st.guard.clone();
        for v in &m.violations {
            let cond = self.and(&g, &v.cond);
            self.enc.violations.push(Violation { cond, ..v.clone() });
        }
        for u in &m.unwinding {
            let cond = self.and(&g, &u.cond);
            self.enc.unwinding.push(UnwindPoint { cond, ..u.clone() });
        }
        for r in &m.uninit_reads {
            let cond = self.and(&g, &r.cond);
            self.enc.uninit_reads.push(UninitRead { cond, ..r.clone() });
        }
        for b in &m.branches {
            let guard = self.and(&g, &b.guard);
            self.enc.branches.push(Branch { guard, ..b.clone() });
        }
        self.st.vars.retain(|k, _| k.0 != 0);
        self.st.vars.extend(m.globals.iter().cloned());
        self.st.mem = m.mem.clone();
        self.st.line = m.line;
        if m.dead {
            self.kill();
        } else if let Some(exit) = &m.exit {
            self.st.guard = self.and(&g, exit);
        }
        m.value.clone()
    }

    fn inline_call(&mut self, fid: FuncId, vals: Vec<SymVal<'ctx>>, span: Span) -> R<SymVal<'ctx>> {
        let f = self.p.func(fid);
        if let Some((what, sp)) = f.unsupported.first() {
            return Err(Unsupported { func: Some(f.name.clone()), what: what.clone(), span: *sp });
        }
        let Some(body) = &f.body else {
            return self.unsupported(format!("a call to `{}`, which has no body", f.name), span);
        };
        let depth = self.calls.iter().filter(|c| c.func == fid).count() as u32;
        if depth >= self.bound.max(1) {
            // Deeper recursion is cut like a loop beyond the bound.
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span, cond });
            self.kill();
            return self.fresh("cut", &f.ret.clone(), span);
        }
        self.enc.stats.inlined_calls += 1;
        let frame = self.next_frame;
        self.next_frame += 1;
        self.calls.push(CallCtx { func: fid, frame, returns: Vec::new() });
        for (pv, v) in f.params.iter().zip(vals) {
            let key = (frame, *pv);
            if self.object_backed(*pv) {
                let o = self.var_obj(key, span)?;
                let pl = Place::Mem { ptr: self.obj_ptr(o), ty: self.p.var(*pv).ty.clone() };
                self.store(pl, v, span)?;
            } else {
                self.st.vars.insert(key, Slot { val: v, init: self.tt() });
            }
        }
        let saved_jumps = std::mem::take(&mut self.jumps);
        let r = self.stmt(body);
        self.jumps = saved_jumps;
        let cx = self.calls.pop().expect("call context");
        r?;
        let mut states = cx.returns;
        let fell = std::mem::replace(&mut self.st.dead, true);
        if !fell {
            let mut s = self.st.clone();
            s.dead = false;
            states.push((s, None));
        }
        let ret_ty = f.ret.clone();
        let live: Vec<(State<'ctx>, Option<SymVal<'ctx>>)> = states.into_iter().filter(|(s, _)| !s.dead).collect();
        let mut value = SymVal::Void;
        if ret_ty != Type::Void && !live.is_empty() {
            let mut vals = Vec::new();
            for (s, v) in &live {
                let v = match v {
                    Some(v) => v.clone(),
                    None => self.fresh("noreturn", &ret_ty, span)?,
                };
                vals.push((s.guard.clone(), v));
            }
            let mut acc = vals[vals.len() - 1].1.clone();
            for (g, v) in vals[..vals.len() - 1].iter().rev() {
                acc = self.ite(g, v, &acc);
            }
            value = if vals.len() > 1 { self.define(&format!("{}.ret", f.name), acc) } else { acc };
        }
        // The callee's locals are dead: drop them before the merge so states stay small.
        let frame_objs: Vec<u32> = self.var_objs.iter().filter(|(k, _)| k.0 == frame).map(|(_, o)| *o).collect();
        let sts: Vec<State<'ctx>> = live
            .into_iter()
            .map(|(mut s, _)| {
                s.vars.retain(|k, _| k.0 != frame);
                for o in &frame_objs {
                    s.mem.remove(o);
                }
                s
            })
            .collect();
        self.st = self.merge(sts, None);
        Ok(value)
    }

    fn builtin(&mut self, b: Builtin, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let arg = |i: usize| args.get(i);
        match b {
            Builtin::Assert => {
                let Some(a) = arg(0) else { return self.unsupported("assert without an argument", e.span) };
                let c = self.eval_cond_plain(a)?;
                self.check(c, ViolationKind::Assertion, e.span);
                Ok(SymVal::Void)
            }
            Builtin::Assume => {
                let Some(a) = arg(0) else { return self.unsupported("assume without an argument", e.span) };
                let c = self.eval_cond_plain(a)?;
                self.st.guard = self.and(&self.st.guard, &c);
                self.assumes += 1;
                Ok(SymVal::Void)
            }
            Builtin::ReachError => {
                let f = Bool::from_bool(self.ctx, false);
                self.check(f, ViolationKind::ReachError, e.span);
                self.kill();
                Ok(SymVal::Void)
            }
            Builtin::Nondet => {
                self.st.line = LineState::Mid;
                let name = crate::ir::print::expr_to_c(self.p, e);
                let v = self.input_value(&name, &e.ty, 'd', e.span)?;
                self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
                    name,
                    ty: e.ty.clone(),
                    value: v.clone(),
                    guard: self.st.guard.clone(),
                    span: e.span,
                    source: InputSource::Nondet,
                    conv: 'd',
                    string: None,
                });
                Ok(v)
            }
            Builtin::Scanf => self.scanf(e, args),
            Builtin::Printf => self.printf(e, args),
            Builtin::Putchar => {
                let Some(a) = arg(0) else { return self.unsupported("putchar without an argument", e.span) };
                let v = self.eval_loc(a)?;
                let SymVal::Int(b) = v.clone() else { return self.unsupported("putchar of a non-integer", e.span) };
                let ty = a.ty.as_int().unwrap_or(IntType::INT);
                self.enc.output.push(OutputEntry {
            seq: self.next_seq(),
                    span: e.span,
                    guard: self.st.guard.clone(),
                    format: b"%c".to_vec(),
                    values: vec![OutValue::Int { value: b, ty }],
                });
                Ok(v)
            }
            Builtin::Puts => {
                let Some(a) = arg(0) else { return self.unsupported("puts without an argument", e.span) };
                let v = self.string_value(a)?;
                self.enc.output.push(OutputEntry {
            seq: self.next_seq(),
                    span: e.span,
                    guard: self.st.guard.clone(),
                    format: b"%s\n".to_vec(),
                    values: vec![v],
                });
                Ok(SymVal::Int(c_int::constant(self.ctx, IntType::INT, 1)))
            }
            Builtin::Exit => {
                let code = match arg(0) {
                    Some(a) => self.eval(a)?,
                    None => SymVal::Int(c_int::constant(self.ctx, IntType::INT, 0)),
                };
                if let SymVal::Int(c) = code {
                    self.enc.exits.push((self.st.guard.clone(), c));
                }
                self.kill();
                Ok(SymVal::Void)
            }
            Builtin::Abs | Builtin::Labs => {
                let Some(a) = arg(0) else { return self.unsupported("abs without an argument", e.span) };
                let SymVal::Int(v) = self.eval(a)? else { return self.unsupported("abs of a non-integer", e.span) };
                let z = BV::from_u64(self.ctx, 0, v.get_size());
                Ok(SymVal::Int(v.bvslt(&z).ite(&v.bvneg(), &v)))
            }
            Builtin::Fabs => {
                let Some(a) = arg(0) else { return self.unsupported("fabs without an argument", e.span) };
                let SymVal::Float(v) = self.eval(a)? else { return self.unsupported("fabs of a non-float", e.span) };
                let k = match e.ty {
                    Type::Float(k) => k,
                    _ => FloatKind::Double,
                };
                Ok(SymVal::Float(self.fp.abs(&v, k)))
            }
            Builtin::Fgets | Builtin::Gets => self.read_line(b, e, args),
            Builtin::Strlen => {
                let Some(a) = arg(0) else { return self.unsupported("strlen without an argument", e.span) };
                self.strlen(e, a)
            }
            Builtin::Strcmp => {
                let (Some(a), Some(b)) = (arg(0), arg(1)) else {
                    return self.unsupported("strcmp without two arguments", e.span);
                };
                self.strcmp(e, a, b)
            }
            Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Sqrt => {
                let Some(a) = arg(0) else { return self.unsupported("a math function without an argument", e.span) };
                let v = self.eval(a)?;
                let x = self.cast(v, &a.ty, &Type::DOUBLE, a.span)?;
                let SymVal::Float(x) = x else { return self.unsupported("a math function of this type", e.span) };
                let f = format!("{b:?}").to_lowercase();
                // Rounding an integer-valued double is the identity.
                let r = if f != "sqrt" && self.exact_ints.contains_key(&x) {
                    x
                } else {
                    self.fp.math(&f, &x, FloatKind::Double).expect("known math function")
                };
                self.cast(SymVal::Float(r), &Type::DOUBLE, &e.ty, e.span)
            }
            other => self.unsupported(format!("the library function `{}`", format!("{other:?}").to_lowercase()), e.span),
        }
    }

    fn eval_cond_plain(&mut self, e: &Expr) -> R<Bool<'ctx>> {
        let v = self.eval(e)?;
        Ok(self.truthy(&v))
    }

    /// A fresh input of type `ty` with the constraints every real input satisfies.
    fn input_value(&mut self, name: &str, ty: &Type, conv: char, span: Span) -> R<SymVal<'ctx>> {
        let v = self.fresh(&format!("in:{name}"), ty, span)?;
        match (&v, ty) {
            (SymVal::Int(b), Type::Int(t)) => {
                if t.kind == IntKind::Bool {
                    self.enc.hard.push(c_int::in_range(b, *t));
                }
                if conv == 'c' {
                    let lo = BV::from_u64(self.ctx, 33, b.get_size());
                    let hi = BV::from_u64(self.ctx, 126, b.get_size());
                    self.enc.hard.push(Bool::and(self.ctx, &[&b.bvuge(&lo), &b.bvule(&hi)]));
                }
            }
            (SymVal::Float(f), _) => {
                let c = self.fp.is_finite(f);
                self.enc.hard.push(c);
            }
            (SymVal::Ptr(_), _) | (SymVal::Void, _) => return self.unsupported("reading a value of this type", span),
            _ => {}
        }
        Ok(v)
    }

    fn literal_format<'e>(&self, e: &'e Expr, call: &Expr) -> R<&'e [u8]> {
        match &e.strip_implicit().kind {
            ExprKind::Str(b) => Ok(b),
            _ => self.unsupported("a format that is not a string literal", call.span),
        }
    }

    fn scanf(&mut self, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let Some(f) = args.first() else { return self.unsupported("scanf without a format", e.span) };
        let fmt = self.literal_format(f, e)?.to_vec();
        let pieces = match cfmt::parse(&fmt, true) {
            Ok(p) => p,
            Err(err) => return self.unsupported(format!("a malformed scanf format ({})", err.message), e.span),
        };
        let mut ptrs = vec![SymVal::Void; args.len()];
        for i in (1..args.len()).rev() {
            ptrs[i] = self.eval(&args[i])?;
        }
        self.st.line = LineState::Mid;
        let call = self.enc.input_calls.len();
        self.enc.input_calls.push(InputCall { span: e.span, guard: self.st.guard.clone(), format: fmt.clone(), reads: vec![] });
        let mut next = 1usize;
        let mut assigned = 0i64;
        for piece in &pieces {
            let Piece::Directive(d) = piece else { continue };
            match d.conv {
                '[' | 'n' | 'p' => {
                    return self.unsupported(format!("scanf `%{}`", if d.conv == '[' { "[...]".to_string() } else { d.conv.to_string() }), e.span)
                }
                'c' if d.start == 0 || !fmt[d.start - 1].is_ascii_whitespace() => {
                    return self.unsupported("scanf `%c` without a space before it (it would read the newline left in the input)", e.span)
                }
                'c' if d.width != Count::None => return self.unsupported("scanf `%c` with a width", e.span),
                _ => {}
            }
            if d.suppress {
                let ty = if d.is_float() { Type::DOUBLE } else if d.conv == 'c' { Type::CHAR } else { Type::Int(IntType::LONG) };
                let v = self.input_value("skipped", &ty, d.conv, e.span)?;
                let idx = self.enc.inputs.len();
                self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
                    name: "(skipped)".into(),
                    ty,
                    value: v,
                    guard: self.st.guard.clone(),
                    span: e.span,
                    source: InputSource::Scanf { call },
                    conv: d.conv,
                    string: None,
                });
                self.enc.input_calls[call].reads.push(idx);
                continue;
            }
            let Some(a) = args.get(next) else { return self.unsupported("scanf with too few arguments", e.span) };
            let SymVal::Ptr(ptr) = ptrs[next].clone() else {
                return self.unsupported("a scanf argument that is not a pointer", a.span);
            };
            next += 1;
            if d.conv == 's' {
                self.scan_word(a, ptr, d.width, call)?;
                assigned += 1;
                continue;
            }
            let Some(ty) = a.ty.pointee().cloned() else { return self.unsupported("a scanf argument that is not a pointer", a.span) };
            let name = match &a.strip_implicit().kind {
                ExprKind::AddrOf(x) => crate::ir::print::expr_to_c(self.p, x),
                _ => format!("*{}", crate::ir::print::expr_to_c(self.p, a)),
            };
            let v = self.input_value(&name, &ty, d.conv, a.span)?;
            let idx = self.enc.inputs.len();
            self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
                name,
                ty: ty.clone(),
                value: v.clone(),
                guard: self.st.guard.clone(),
                span: a.span,
                source: InputSource::Scanf { call },
                conv: d.conv,
                string: None,
            });
            self.enc.input_calls[call].reads.push(idx);
            self.store(Place::Mem { ptr, ty }, v, a.span)?;
            assigned += 1;
        }
        Ok(SymVal::Int(c_int::constant(self.ctx, IntType::INT, assigned)))
    }

    /// `scanf("%s", a)`: a word of symbolic length written with its NUL.
    fn scan_word(&mut self, a: &Expr, ptr: SymPtr<'ctx>, width: Count, call: usize) -> R<()> {
        let o = self.single_char_object(&ptr, a.span)?;
        let n = self.objects[o as usize].len;
        let Some(off0) = ptr.off.simplify().as_u64() else {
            return self.unsupported("`%s` into a position the verifier cannot compute", a.span);
        };
        let avail = n.saturating_sub(off0);
        let room = match width {
            Count::Fixed(w) => avail.min(w as u64),
            _ => avail,
        }
        .max(1);
        // Words longer than the string cap are cut like loops beyond the bound.
        let max = room.min(self.str_cap());
        if room > max {
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span: a.span, cond });
        }
        let name = match &a.strip_implicit().kind {
            ExprKind::AddrOf(x) | ExprKind::Decay(x) => crate::ir::print::expr_to_c(self.p, x),
            _ => crate::ir::print::expr_to_c(self.p, a.strip_implicit()),
        };
        let ctx = self.ctx;
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let len = BV::new_const(ctx, self.name(&format!("in:{name}.len")), OFF_BITS);
        self.enc.hard.push(Bool::and(ctx, &[&len.bvuge(&w(1)), &len.bvule(&w(max))]));
        let mut chars = Vec::new();
        for i in 0..max {
            let c = BV::new_const(ctx, self.name(&format!("in:{name}[{i}]")), 8);
            let (lo, hi) = (BV::from_u64(ctx, 33, 8), BV::from_u64(ctx, 126, 8));
            self.enc.hard.push(Bool::and(ctx, &[&c.bvuge(&lo), &c.bvule(&hi)]));
            chars.push(c);
        }
        let idx = self.enc.inputs.len();
        self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
            name,
            ty: Type::Array(Box::new(Type::CHAR), Some(n)),
            value: SymVal::Void,
            guard: self.st.guard.clone(),
            span: a.span,
            source: InputSource::Scanf { call },
            conv: 's',
            string: Some(StringRead { len: len.clone(), chars: chars.clone() }),
        });
        self.enc.input_calls[call].reads.push(idx);
        // The NUL goes to off0 + len, which must be inside the array.
        let ok = w(off0).bvadd(&len).bvult(&w(n));
        self.check(ok, ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        for i in 0..(max + 1).min(avail) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let is_nul = len._eq(&w(i));
            let v = if i < max { len.bvugt(&w(i)).ite(&chars[i as usize], &is_nul.ite(&zero, &old)) } else { is_nul.ite(&zero, &old) };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        Ok(())
    }

    /// `fgets(buf, n, stdin)` / `gets(buf)`: a line of printable characters (space included)
    /// read at the start of a line. A line longer than `fgets` can take, or than the string cap,
    /// is cut (an unwinding point); `gets` of a line that fills the array overflows it.
    fn read_line(&mut self, b: Builtin, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let what = if b == Builtin::Gets { "gets" } else { "fgets" };
        let Some(a) = args.first() else { return self.unsupported(format!("{what} without a buffer"), e.span) };
        let SymVal::Ptr(ptr) = self.eval(a)? else { return self.unsupported(format!("{what} into a non-pointer"), a.span) };
        let size = if b == Builtin::Fgets {
            let Some(n) = args.get(1) else { return self.unsupported("fgets without a size", e.span) };
            let SymVal::Int(nv) = self.eval(n)? else { return self.unsupported("fgets with a non-integer size", n.span) };
            // The stream argument is `stdin` (the type checker rejects any other): nothing to do.
            match c_int::value_of(&nv, n.ty.as_int().unwrap_or(IntType::INT)) {
                Some(v) if v >= 2 => Some(v as u64),
                _ => return self.unsupported("fgets with a size that is not a constant of at least 2", n.span),
            }
        } else {
            None
        };
        if self.st.line != LineState::Start {
            return self.unsupported(format!("{what} after scanf or nondet (the rest of a line is not modelled)"), e.span);
        }
        let o = self.single_char_object(&ptr, a.span)?;
        let n = self.objects[o as usize].len;
        let Some(off0) = ptr.off.simplify().as_u64() else {
            return self.unsupported(format!("{what} into a position the verifier cannot compute"), a.span);
        };
        let avail = n.saturating_sub(off0);
        // Characters before the '\n' (fgets keeps it) and the NUL.
        let room = match size {
            Some(sz) => sz - 2,
            None => avail,
        };
        let max = room.min(self.str_cap());
        if size.is_some() || room > max {
            // fgets: a longer line is always possible (it would be split); gets: beyond the cap.
            let cond = self.st.guard.clone();
            self.enc.unwinding.push(UnwindPoint { span: e.span, cond });
        }
        let name = match &a.strip_implicit().kind {
            ExprKind::Decay(x) => crate::ir::print::expr_to_c(self.p, x),
            _ => crate::ir::print::expr_to_c(self.p, a.strip_implicit()),
        };
        let ctx = self.ctx;
        let w = |v: u64| BV::from_u64(ctx, v, OFF_BITS);
        let len = BV::new_const(ctx, self.name(&format!("in:{name}.len")), OFF_BITS);
        self.enc.hard.push(len.bvule(&w(max)));
        let mut chars = Vec::new();
        for i in 0..max {
            let c = BV::new_const(ctx, self.name(&format!("in:{name}[{i}]")), 8);
            let (lo, hi) = (BV::from_u64(ctx, 32, 8), BV::from_u64(ctx, 126, 8));
            self.enc.hard.push(Bool::and(ctx, &[&c.bvuge(&lo), &c.bvule(&hi)]));
            chars.push(c);
        }

        self.enc.inputs.push(InputRead {
            seq: self.next_seq(),
            name,
            ty: Type::Array(Box::new(Type::CHAR), Some(n)),
            value: SymVal::Void,
            guard: self.st.guard.clone(),
            span: a.span,
            source: InputSource::Line,
            conv: 'l',
            string: Some(StringRead { len: len.clone(), chars: chars.clone() }),
        });
        // The last byte written (the NUL) is at off0 + len (+ 1 after fgets' '\n').
        let keep_nl = b == Builtin::Fgets;
        let last = if keep_nl { w(off0).bvadd(&len).bvadd(&w(1)) } else { w(off0).bvadd(&len) };
        self.check(last.bvult(&w(n)), ViolationKind::OutOfBounds, a.span);
        let mut arr = self.mem_array(o, a.span)?;
        let zero = BV::from_u64(ctx, 0, 8);
        let nl = BV::from_u64(ctx, b'\n' as u64, 8);
        for i in 0..(max + 2).min(avail) {
            let at = w(off0 + i);
            let old = arr.select(&at).as_bv().expect("char array");
            let at_len = len._eq(&w(i));
            let after = if i > 0 { len._eq(&w(i - 1)) } else { Bool::from_bool(ctx, false) };
            let tail = if keep_nl {
                at_len.ite(&nl, &after.ite(&zero, &old))
            } else {
                at_len.ite(&zero, &old)
            };
            let v = if i < max { len.bvugt(&w(i)).ite(&chars[i as usize], &tail) } else { tail };
            arr = arr.store(&at, &v);
        }
        self.st.mem.insert(o, arr);
        self.st.line = LineState::Start;
        Ok(SymVal::Ptr(ptr))
    }

    fn single_char_object(&self, ptr: &SymPtr<'ctx>, span: Span) -> R<u32> {
        if ptr.targets.len() != 1 {
            return self.unsupported("a string pointer the verifier cannot track", span);
        }
        let o = ptr.targets[0];
        if !matches!(self.objects[o as usize].elem, Type::Int(t) if t.kind == IntKind::Char) {
            return self.unsupported("a string function on a non-char array", span);
        }
        Ok(o)
    }

    /// Strings are scanned up to this many characters; longer ones are cut (an unwinding point).
    fn str_cap(&self) -> u64 {
        (self.bound as u64 + 1).max(32)
    }

    /// The characters at `ptr + i` for `i` in `0..min(len(object), cap) + 1`, each with
    /// "inside the object".
    fn string_chars(&mut self, ptr: &SymPtr<'ctx>, span: Span) -> R<Vec<(BV<'ctx>, Bool<'ctx>)>> {
        let o = self.single_char_object(ptr, span)?;
        let n = self.objects[o as usize].len;
        let arr = self.mem_array(o, span)?;
        let mut out = Vec::new();
        for i in 0..=n.min(self.str_cap()) {
            let at = ptr.off.bvadd(&BV::from_u64(self.ctx, i, OFF_BITS));
            let inside = at.bvult(&BV::from_u64(self.ctx, n, OFF_BITS));
            out.push((arr.select(&at).as_bv().expect("char array"), inside));
        }
        Ok(out)
    }

    /// Cuts runs where `cut` holds (a string longer than the cap), then checks `ok` (the string
    /// ends inside its object).
    fn cut_then_check(&mut self, cut: Bool<'ctx>, ok: Bool<'ctx>, span: Span, fault: Span) {
        if cut.as_bool() != Some(false) {
            let cond = self.and(&self.st.guard, &cut);
            self.enc.unwinding.push(UnwindPoint { span, cond });
            self.st.guard = self.and(&self.st.guard, &cut.not());
        }
        self.check(ok, ViolationKind::OutOfBounds, fault);
    }

    /// A NUL-terminated string: its scanned characters, after the cut and the bounds check.
    fn cstring(&mut self, ptr: &SymPtr<'ctx>, span: Span, fault: Span) -> R<Vec<(BV<'ctx>, Bool<'ctx>)>> {
        let chars = self.string_chars(ptr, span)?;
        let zero = BV::from_u64(self.ctx, 0, 8);
        let mut ok = Bool::from_bool(self.ctx, false);
        let mut cut = Bool::from_bool(self.ctx, true);
        for (c, inside) in chars.iter().rev() {
            ok = Bool::and(self.ctx, &[inside, &Bool::or(self.ctx, &[&c._eq(&zero), &ok])]);
            cut = Bool::and(self.ctx, &[inside, &c._eq(&zero).not(), &cut]);
        }
        self.cut_then_check(cut, ok, span, fault);
        Ok(chars)
    }

    fn strlen(&mut self, e: &Expr, a: &Expr) -> R<SymVal<'ctx>> {
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("strlen of a non-pointer", a.span) };
        let chars = self.cstring(&p, e.span, deref_span(a))?;
        let Type::Int(t) = e.ty else { return self.unsupported("strlen of this type", e.span) };
        let zero = BV::from_u64(self.ctx, 0, 8);
        // From the end: the index of the first NUL (one exists where the path continues).
        let mut r = c_int::constant(self.ctx, t, chars.len() as i64);
        for (i, (c, _)) in chars.iter().enumerate().rev() {
            r = c._eq(&zero).ite(&c_int::constant(self.ctx, t, i as i64), &r);
        }
        Ok(SymVal::Int(r))
    }

    fn strcmp(&mut self, e: &Expr, a: &Expr, b: &Expr) -> R<SymVal<'ctx>> {
        // Arguments right to left, as the interpreter evaluates them.
        let SymVal::Ptr(q) = self.eval(b)? else { return self.unsupported("strcmp of a non-pointer", b.span) };
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("strcmp of a non-pointer", a.span) };
        let xs = self.string_chars(&p, a.span)?;
        let ys = self.string_chars(&q, b.span)?;
        let Type::Int(t) = e.ty else { return self.unsupported("strcmp of this type", e.span) };
        let m = xs.len().min(ys.len());
        let zero = BV::from_u64(self.ctx, 0, 8);
        let w = c_int::width(t);
        let mut r = c_int::constant(self.ctx, t, 0);
        let mut ok = Bool::from_bool(self.ctx, false);
        let mut cut = Bool::from_bool(self.ctx, true);
        for i in (0..m).rev() {
            let ((x, ix), (y, iy)) = (&xs[i], &ys[i]);
            let stop = Bool::or(self.ctx, &[&x._eq(y).not(), &x._eq(&zero)]);
            let diff = x.zero_ext(w - 8).bvsub(&y.zero_ext(w - 8));
            r = stop.ite(&diff, &r);
            ok = Bool::and(self.ctx, &[ix, iy, &Bool::or(self.ctx, &[&stop, &ok])]);
            cut = Bool::and(self.ctx, &[ix, iy, &stop.not(), &cut]);
        }
        self.cut_then_check(cut, ok, e.span, deref_span(a));
        Ok(SymVal::Int(r))
    }

    fn string_value(&mut self, a: &Expr) -> R<OutValue<'ctx>> {
        if let ExprKind::Str(b) = &a.strip_implicit().kind {
            return Ok(OutValue::Text(b.clone()));
        }
        let SymVal::Ptr(p) = self.eval(a)? else { return self.unsupported("`%s` of a non-pointer", a.span) };
        if p.targets.len() != 1 {
            return self.unsupported("`%s` of a pointer the verifier cannot track", a.span);
        }
        let chars = self.cstring(&p, a.span, deref_span(a))?;
        Ok(OutValue::Chars(chars.into_iter().map(|(c, _)| c).collect()))
    }

    fn printf(&mut self, e: &Expr, args: &[Expr]) -> R<SymVal<'ctx>> {
        let Some(f) = args.first() else { return self.unsupported("printf without a format", e.span) };
        let fmt = self.literal_format(f, e)?.to_vec();
        let pieces = match cfmt::parse(&fmt, false) {
            Ok(p) => p,
            Err(err) => return self.unsupported(format!("a malformed printf format ({})", err.message), e.span),
        };
        // Arguments right to left, as gcc (and the interpreter) evaluate them.
        let mut vals: Vec<Option<OutValue<'ctx>>> = vec![None; args.len()];
        let mut dirs = Vec::new();
        for p in &pieces {
            if let Piece::Directive(d) = p {
                if d.width == Count::Star || d.precision == Count::Star {
                    return self.unsupported("printf `*` width or precision", e.span);
                }
                if matches!(d.conv, 'n' | 'p') {
                    return self.unsupported(format!("printf `%{}`", d.conv), e.span);
                }
                dirs.push(d.conv);
            }
        }
        for i in (1..args.len()).rev() {
            let a = &args[i];
            let conv = dirs.get(i - 1).copied().unwrap_or('d');
            vals[i] = Some(if conv == 's' {
                self.string_value(a)?
            } else {
                match self.eval_loc(a)? {
                    SymVal::Int(b) => OutValue::Int { value: b, ty: a.ty.as_int().unwrap_or(IntType::INT) },
                    SymVal::Float(x) => OutValue::Float {
                        value: x,
                        kind: match a.ty {
                            Type::Float(k) => k,
                            _ => FloatKind::Double,
                        },
                    },
                    _ => return self.unsupported("printing a value of this type", a.span),
                }
            });
        }
        self.enc.output.push(OutputEntry {
            seq: self.next_seq(),
            span: e.span,
            guard: self.st.guard.clone(),
            format: fmt,
            values: vals.into_iter().skip(1).flatten().collect(),
        });
        let n = self.name("printf.ret");
        Ok(SymVal::Int(BV::new_const(self.ctx, n, 32)))
    }

    // ----- statements -----

    fn globals(&mut self) -> R<()> {
        for (v, init) in &self.p.globals {
            self.init_var((0, *v), init.as_ref(), true)?;
        }
        // Static locals: one object for the whole run, initialised before `main`.
        let mut statics = Vec::new();
        for f in &self.p.funcs {
            if let Some(body) = &f.body {
                collect_statics(self.p, body, &mut statics);
            }
        }
        for (v, init) in statics {
            self.init_var((0, v), init, true)?;
        }
        Ok(())
    }

    fn init_var(&mut self, key: Key, init: Option<&Init>, zero_default: bool) -> R<()> {
        let var = self.p.var(key.1);
        let ty = var.ty.clone();
        let span = var.span;
        if matches!(ty, Type::Struct(_)) {
            return self.unsupported("structs", span);
        }
        if self.object_backed(key.1) {
            let o = self.var_obj(key, span)?;
            let elem = self.objects[o as usize].elem.clone();
            let sort = self.elem_sort(&elem, span)?;
            let arr = if init.is_some() || zero_default {
                let z = self.zero(&elem, span)?;
                Array::const_array(self.ctx, &Sort::bitvector(self.ctx, OFF_BITS), &Self::to_dyn(&z))
            } else {
                let n = self.name(&var.name.clone());
                Array::new_const(self.ctx, n, &Sort::bitvector(self.ctx, OFF_BITS), &sort)
            };
            self.st.mem.insert(o, arr);
            if let Some(init) = init {
                let mut elems = Vec::new();
                self.flatten_init(&ty, init, 0, &mut elems)?;
                for (off, item) in elems {
                    let v = match item {
                        InitItem::Expr(ex) => {
                            let v = self.eval_loc(ex)?;
                            let from = ex.ty.clone();
                            self.cast(v, &from, &elem, ex.span)?
                        }
                        InitItem::Byte(b) => SymVal::Int(BV::from_u64(self.ctx, b as u64, 8)),
                    };
                    let ptr = SymPtr { off: BV::from_u64(self.ctx, off, OFF_BITS), ..self.obj_ptr(o) };
                    self.store(Place::Mem { ptr, ty: elem.clone() }, v, span)?;
                }
            }
            return Ok(());
        }
        let slot = match init {
            Some(Init::Expr(ex)) => Slot { val: self.eval_loc(ex)?, init: self.tt() },
            Some(Init::List(items, sp)) => match items.first() {
                Some(Init::Expr(ex)) => Slot { val: self.eval_loc(ex)?, init: self.tt() },
                _ => return self.unsupported("this initialiser", *sp),
            },
            None if zero_default => Slot { val: self.zero(&ty, span)?, init: self.tt() },
            None => {
                let v = self.fresh(&var.name.clone(), &ty, span)?;
                Slot { val: v, init: Bool::from_bool(self.ctx, false) }
            }
        };
        self.st.vars.insert(key, slot);
        Ok(())
    }

    fn flatten_init<'e>(&self, ty: &Type, init: &'e Init, base: u64, out: &mut Vec<(u64, InitItem<'e>)>) -> R<()> {
        match (ty, init) {
            (Type::Array(elem, n), Init::List(items, sp)) => {
                let step = leaf_count(elem).unwrap_or(1);
                if let Some(n) = n
                    && items.len() as u64 > *n
                {
                    return self.unsupported("an initialiser with too many elements", *sp);
                }
                for (i, it) in items.iter().enumerate() {
                    self.flatten_init(elem, it, base + i as u64 * step, out)?;
                }
                Ok(())
            }
            (Type::Array(elem, _), Init::Expr(ex)) => match &ex.strip_implicit().kind {
                ExprKind::Str(bytes) if matches!(**elem, Type::Int(t) if t.kind == IntKind::Char) => {
                    for (i, b) in bytes.iter().enumerate() {
                        out.push((base + i as u64, InitItem::Byte(*b)));
                    }
                    Ok(())
                }
                _ => self.unsupported("this array initialiser", ex.span),
            },
            (_, Init::Expr(ex)) => {
                out.push((base, InitItem::Expr(ex)));
                Ok(())
            }
            (_, Init::List(items, sp)) => match items.first() {
                Some(first) => self.flatten_init(ty, first, base, out),
                None => {
                    let _ = sp;
                    Ok(())
                }
            },
        }
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        if self.st.dead {
            return Ok(());
        }
        self.stmts += 1;
        if self.stmts > MAX_STMTS {
            return self.unsupported(
                format!("a program that unwinds to more than {MAX_STMTS} statements at bound {}", self.bound),
                s.span,
            );
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                self.top_expr(e)?;
            }
            StmtKind::Decl { var, init } => {
                if self.p.var(*var).kind == VarKind::StaticLocal {
                    return Ok(());
                }
                let key = self.var_key(*var);
                self.init_var(key, init.as_ref(), false)?;
            }
            StmtKind::VlaDecl { .. } => return self.unsupported("variable-length arrays", s.span),
            StmtKind::If { cond, then, els } => {
                let c = self.eval_cond(cond)?;
                let g = self.st.guard.clone();
                self.enc.branches.push(Branch { span: cond.span, guard: g.clone(), taken: c.clone(), what: BranchKind::If });
                let (gt, ge) = (self.and(&g, &c), self.and(&g, &c.not()));
                let mut other = self.st.clone();
                other.guard = ge.clone();
                self.st.guard = gt.clone();
                self.stmt(then)?;
                let th = std::mem::replace(&mut self.st, other);
                if let Some(e) = els {
                    self.stmt(e)?;
                }
                let el = std::mem::replace(&mut self.st, th.clone());
                let known = if !th.dead && !el.dead && th.guard == gt && el.guard == ge { Some(g) } else { None };
                self.st = self.merge(vec![th, el], known);
            }
            StmtKind::While { cond, body } => self.lp(Some(cond), body, None, false, s.span)?,
            StmtKind::DoWhile { body, cond } => self.lp(Some(cond), body, None, true, s.span)?,
            StmtKind::For { init, cond, step, body } => {
                for i in init {
                    self.stmt(i)?;
                }
                self.lp(cond.as_ref(), body, step.as_ref(), false, s.span)?;
            }
            StmtKind::Switch { cond, arms } => self.switch(cond, arms)?,
            StmtKind::Break => {
                let st = self.st.clone();
                match self.jumps.last_mut() {
                    Some(j) => j.breaks.push(st),
                    None => return self.unsupported("`break` outside a loop or switch", s.span),
                }
                self.kill();
            }
            StmtKind::Continue => {
                let st = self.st.clone();
                match self.jumps.iter_mut().rev().find(|j| j.is_loop) {
                    Some(j) => j.continues.push(st),
                    None => return self.unsupported("`continue` outside a loop", s.span),
                }
                self.kill();
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.eval_loc(e)?),
                    None => None,
                };
                if !self.st.dead {
                    let st = self.st.clone();
                    self.calls.last_mut().expect("inside a function").returns.push((st, v));
                }
                self.kill();
            }
            StmtKind::Block(b) => {
                for s in b {
                    self.stmt(s)?;
                }
            }
            StmtKind::Empty => {}
        }
        Ok(())
    }

    /// A statement-level expression (its top assignment's right-hand side is a location).
    fn top_expr(&mut self, e: &Expr) -> R<()> {
        match &e.kind {
            ExprKind::IncDec(..) => {
                self.eval_loc(e)?;
            }
            ExprKind::Comma(a, b) => {
                self.top_expr(a)?;
                self.top_expr(b)?;
            }
            ExprKind::Cast { expr, .. } => self.top_expr(expr)?,
            _ => {
                self.eval(e)?;
            }
        }
        Ok(())
    }

    fn lp(&mut self, cond: Option<&Expr>, body: &Stmt, step: Option<&Expr>, do_while: bool, span: Span) -> R<()> {
        self.jumps.push(Jump { is_loop: true, breaks: vec![], continues: vec![] });
        let mut exits = Vec::new();
        for k in 0..self.bound {
            if self.st.dead {
                break;
            }
            if !(do_while && k == 0)
                && let Some(c) = cond
            {
                {
                    let cv = self.eval_cond(c)?;
                    if self.st.dead {
                        break;
                    }
                    let g = self.st.guard.clone();
                    self.enc.branches.push(Branch { span: c.span, guard: g.clone(), taken: cv.clone(), what: BranchKind::Loop });
                    let mut ex = self.st.clone();
                    ex.guard = self.and(&g, &cv.not());
                    exits.push(ex);
                    self.st.guard = self.and(&g, &cv);
                }
            }
            self.stmt(body)?;
            let conts = std::mem::take(&mut self.jumps.last_mut().expect("loop").continues);
            if !conts.is_empty() {
                let mut all = conts;
                all.push(self.st.clone());
                self.st = self.merge(all, None);
            }
            if let Some(s) = step
                && !self.st.dead
            {
                self.top_expr(s)?;
            }
        }
        if !self.st.dead {
            let over = match cond {
                Some(c) => {
                    let cv = self.eval_cond(c)?;
                    let g = self.st.guard.clone();
                    let mut ex = self.st.clone();
                    ex.guard = self.and(&g, &cv.not());
                    exits.push(ex);
                    self.and(&g, &cv)
                }
                None => self.st.guard.clone(),
            };
            self.enc.unwinding.push(UnwindPoint { span, cond: over });
        }
        let j = self.jumps.pop().expect("loop");
        exits.extend(j.breaks);
        self.st = self.merge(exits, None);
        Ok(())
    }

    fn switch(&mut self, cond: &Expr, arms: &[crate::ir::SwitchArm]) -> R<()> {
        let v = self.eval_loc(cond)?;
        let SymVal::Int(v) = v else { return self.unsupported("a switch on a non-integer", cond.span) };
        let t = cond.ty.as_int().unwrap_or(IntType::INT);
        let start = self.st.clone();
        let g = start.guard.clone();
        let matches: Vec<Option<Bool<'ctx>>> =
            arms.iter().map(|a| a.label.map(|l| v._eq(&c_int::constant(self.ctx, t, l)))).collect();
        let labelled: Vec<&Bool<'ctx>> = matches.iter().flatten().collect();
        let none = Bool::or(self.ctx, &labelled).not();
        self.jumps.push(Jump { is_loop: false, breaks: vec![], continues: vec![] });
        let mut fall: Option<State<'ctx>> = None;
        for (arm, m) in arms.iter().zip(&matches) {
            let m = m.clone().unwrap_or_else(|| none.clone());
            let mut entry = start.clone();
            entry.guard = self.and(&g, &m);
            self.enc.branches.push(Branch { span: arm.label_span, guard: g.clone(), taken: m, what: BranchKind::Switch });
            let mut ins = vec![entry];
            if let Some(f) = fall.take() {
                ins.insert(0, f);
            }
            self.st = self.merge(ins, None);
            for s in &arm.body {
                self.stmt(s)?;
            }
            fall = Some(self.st.clone());
        }
        let j = self.jumps.pop().expect("switch");
        let mut exits: Vec<State<'ctx>> = fall.into_iter().collect();
        exits.extend(j.breaks);
        if arms.iter().all(|a| a.label.is_some()) {
            let mut s = start;
            s.guard = self.and(&g, &none);
            exits.push(s);
        }
        self.st = self.merge(exits, None);
        Ok(())
    }
}

/// The span the interpreter reports for a fault reading through pointer argument `a`.
/// Whether some variable or expression of the program has a floating-point type.
fn uses_floats(p: &Program) -> bool {
    if p.vars.iter().any(|v| matches!(leaf(&v.ty), Type::Float(_))) {
        return true;
    }
    let mut found = false;
    for f in &p.funcs {
        if matches!(f.ret, Type::Float(_)) {
            return true;
        }
        if let Some(body) = &f.body {
            crate::ir::walk::walk_stmt(body, &mut |e: &Expr| found |= matches!(leaf(&e.ty), Type::Float(_)));
        }
    }
    found
}

/// Whether some function can call itself (directly or through others).
fn recursive(p: &Program) -> bool {
    let calls: Vec<Vec<usize>> = p
        .funcs
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            if let Some(body) = &f.body {
                crate::ir::walk::walk_stmt(body, &mut |e: &Expr| {
                    if let ExprKind::Call(Callee::Func(g), _) = &e.kind {
                        out.push(g.0 as usize);
                    }
                });
            }
            out
        })
        .collect();
    // Depth-first search for a back edge (0 unvisited, 1 on the stack, 2 done).
    fn cyclic(f: usize, calls: &[Vec<usize>], state: &mut [u8]) -> bool {
        state[f] = 1;
        for &g in &calls[f] {
            if g < state.len() && (state[g] == 1 || (state[g] == 0 && cyclic(g, calls, state))) {
                return true;
            }
        }
        state[f] = 2;
        false
    }
    let mut state = vec![0u8; calls.len()];
    (0..calls.len()).any(|f| state[f] == 0 && cyclic(f, &calls, &mut state))
}

/// Every variable whose address is taken (`&v`) anywhere in the program.
fn address_taken(p: &Program) -> HashSet<VarId> {
    let mut out = HashSet::new();
    let mut visit = |e: &Expr| {
        if let ExprKind::AddrOf(a) = &e.kind {
            let mut inner: &Expr = a;
            while let ExprKind::Member { base, arrow: false, .. } = &inner.kind {
                inner = base;
            }
            if let ExprKind::Var(v) = &inner.kind {
                out.insert(*v);
            }
        }
    };
    for f in &p.funcs {
        if let Some(body) = &f.body {
            crate::ir::walk::walk_stmt(body, &mut visit);
        }
    }
    for init in p.globals.iter().filter_map(|(_, i)| i.as_ref()) {
        crate::ir::walk::walk_init(init, &mut visit);
    }
    out
}

fn deref_span(a: &Expr) -> Span {
    match &a.strip_implicit().kind {
        ExprKind::AddrOf(x) => x.span,
        _ => a.strip_implicit().span,
    }
}

enum InitItem<'e> {
    Expr(&'e Expr),
    Byte(u8),
}

fn collect_statics<'p>(p: &'p Program, s: &'p Stmt, out: &mut Vec<(VarId, Option<&'p Init>)>) {
    match &s.kind {
        StmtKind::Decl { var, init } if p.var(*var).kind == VarKind::StaticLocal => out.push((*var, init.as_ref())),
        StmtKind::If { then, els, .. } => {
            collect_statics(p, then, out);
            if let Some(e) = els {
                collect_statics(p, e, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => collect_statics(p, body, out),
        StmtKind::For { init, body, .. } => {
            init.iter().for_each(|s| collect_statics(p, s, out));
            collect_statics(p, body, out);
        }
        StmtKind::Switch { arms, .. } => arms.iter().flat_map(|a| a.body.iter()).for_each(|s| collect_statics(p, s, out)),
        StmtKind::Block(b) => b.iter().for_each(|s| collect_statics(p, s, out)),
        _ => {}
    }
}
