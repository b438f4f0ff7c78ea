//! The symbolic executor behind [`super::encode`]: simplification, unwinding, inlining and SSA
//! in one pass over the IR, with the path guard carried along (CBMC-style guarded SSA).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use z3::ast::{Array, Ast, BV, Bool, Dynamic};
use z3::{Context, Sort};

use super::*;
use crate::ir::ExprId;
use crate::ir::format::{self as cfmt, Count, Piece};
use crate::ir::{BinOp, FloatKind, IncDec, IntKind, LogicOp, MathFn, UnOp, VarId, VarKind};
use crate::smt::floats::Floats;
use crate::smt::{c_int, c_lib};

mod calls;
mod expr;
mod helpers;
mod places;
mod stmt;

use helpers::float_kind;

type R<T> = Result<T, Unsupported>;

/// A symbolic C value.
#[derive(Clone, Debug)]
pub enum SymVal<'ctx> {
    Int(BV<'ctx>),
    Float(Dynamic<'ctx>),
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
    pub fn as_float(&self) -> Option<&Dynamic<'ctx>> {
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
/// A pointer stored in memory: its object id and offset, concatenated.
const PTR_BITS: u32 = OBJ_BITS + OFF_BITS;

/// One memory object is one or more *lanes*, consecutive ids in [`Exec::objects`]: a Z3 array
/// per leaf type its cells hold (an `int` array has one lane; a `struct node { int v; struct
/// node *next; }` has an `int` lane and a pointer lane). A cell is one scalar of the object
/// (arrays and structs flattened, without padding); a pointer's offset counts cells, and an
/// access of type `T` reads `T`'s lane at that offset. The first lane's id is the object's id:
/// pointers name it. A heap object has one more lane after its typed ones: its liveness
/// (one 8-bit cell, 1 while allocated, 0 after `free`).
#[derive(Clone, Debug)]
struct ObjInfo<'ctx> {
    /// Length in cells, for objects of a fixed size (variables, literals).
    len: u64,
    /// Length in cells of a `malloc`'d block (symbolic); `len` is then unused.
    size: Option<BV<'ctx>>,
    /// This lane's leaf type.
    elem: Type,
    /// The leaf types with a lane, in lane order (the same for every lane of an object).
    lanes: Rc<Vec<Type>>,
    /// The leaf types of one element's cells (one for a scalar array, a struct's fields).
    cells: Rc<Vec<Type>>,
    /// From `malloc`/`calloc`: freed by `free`, with a liveness lane.
    heap: bool,
    /// Kept cell by cell ([`State::cells`]) instead of in Z3 arrays: a block from malloc of a
    /// few structs (a list or tree node). Its fields are read and written at constant cells,
    /// so the solver sees plain values instead of array terms.
    small: bool,
    /// Its contents start as zero (`calloc`), else unknown.
    zeroed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ObjKind {
    /// A variable or a literal.
    Fixed,
    /// A block from malloc, in Z3 arrays.
    Heap,
    /// A block from malloc, cell by cell ([`ObjInfo::small`]).
    Small,
}

/// The most cells a [`ObjInfo::small`] object has.
const SMALL_CELLS: u64 = 32;

/// What the pointers stored in one pointer lane may be.
#[derive(Clone, Debug, Default)]
struct StoredPtrs {
    /// Every object they may point to.
    targets: Vec<u32>,
    /// Some may point inside an object (an offset not known to be 0). Usually none do: a
    /// list's `next` holds the start of a node or null, and a pointer loaded from there then
    /// has the offset 0, which keeps its field accesses at constant cells.
    inside: bool,
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
    /// The cells of small objects, by (lane, cell); a cell not there was not read or written
    /// yet on this path.
    cells: BTreeMap<(u32, u64), SymVal<'ctx>>,
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
    budget: Option<&'a crate::smt::Budget>,
    loc_of: HashMap<ExprId, LocationId>,
    alt_cache: HashMap<LocationId, Rc<Vec<Expr>>>,
    enc: Encoding<'ctx>,
    st: State<'ctx>,
    objects: Vec<ObjInfo<'ctx>>,
    var_objs: HashMap<Key, u32>,
    /// For each pointer lane, what the pointers stored there so far may be: what a pointer
    /// loaded from it may be. Flow-insensitive, so it over-approximates: a load can only read
    /// what some earlier store wrote.
    stored_ptrs: HashMap<u32, StoredPtrs>,
    /// Heap objects created so far: a call that allocates is not memoised (two calls from one
    /// entry state must return two blocks).
    heap_objects: usize,
    literal_objs: HashMap<ExprId, u32>,
    calls: Vec<CallCtx<'ctx>>,
    jumps: Vec<Jump<'ctx>>,
    next_frame: u32,
    names: u32,
    namespace: String,
    /// Order of inputs and outputs in the encoding (along a path: execution order).
    seq: std::cell::Cell<u64>,
    floats: Floats<'ctx>,
    /// Doubles known to hold exactly the value of a (≤ 32-bit) integer term: `(double)n`, and
    /// `floor`/`ceil`/`round` of those (the identity). Converting them back to an integer
    /// is then plain bit-vector conversion, without floating point in the formula.
    exact_ints: HashMap<Dynamic<'ctx>, (BV<'ctx>, IntType)>,
    /// The array each merge of memory defined (its `ite` of the states' arrays): a read at a
    /// known offset looks through it ([`Exec::select_known`]).
    mem_defs: HashMap<Array<'ctx>, Array<'ctx>>,
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
    /// [`EncodeOptions::absent_chars`].
    absent_chars: u128,
    /// [`EncodeOptions::no_negative_zero`].
    no_negative_zero: bool,
    /// `assume` statements encoded so far (they narrow the guard without a recorded check).
    assumes: u64,
    /// With [`EncodeOptions::input_ends`]: the number of tokens in the input (one constant,
    /// not namespaced, so a product's two programs read the same input), and the number of
    /// tokens read before the next read (along any path: an `ite` chain over every read's
    /// guard, in encoding order).
    input_ends: Option<(BV<'ctx>, BV<'ctx>)>,
    /// With [`EncodeOptions::chars`]: the number of characters read before the next read (an
    /// `ite` chain over every read's guard, as `input_ends`' count of tokens).
    char_pos: Option<BV<'ctx>>,
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
    cells: BTreeMap<(u32, u64), SymVal<'ctx>>,
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

/// Width of the input's token count: more than [`MAX_STMTS`] reads cannot happen, and a
/// narrow counter keeps the solver's arithmetic on it small.
const TOKEN_BITS: u32 = 16;

/// The unwound, inlined program may have at most this many statement copies (e.g. a doubly
/// recursive function at a large bound): beyond it the encoding gives up as unsupported.
pub const MAX_STMTS: u64 = 50_000;

/// Iterations a loop whose condition is decided (a count known without the input) may run
/// past the bound: enough for the fixed-size arrays of CS1 (`#define MAX 1000`).
pub const MAX_ITERATIONS_PAST_BOUND: u32 = 1024;

pub(super) fn run<'ctx>(
    ctx: &'ctx Context,
    p: &Program,
    entry: &str,
    opts: &EncodeOptions<'_>,
    loc_of: HashMap<ExprId, LocationId>,
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
        scanf_reads: Vec::new(),
        chars: opts.chars.then(|| CharInput { len: BV::new_const(ctx, "input!len", TOKEN_BITS), bytes: Vec::new() }),
        line_assumed: false,
        output: Vec::new(),
        uninit_reads: Vec::new(),
        rejects: Vec::new(),
        return_value: None,
        exits: Vec::new(),
        completes: Bool::from_bool(ctx, false),
        outlasts: None,
        bit_vectors_only: false,
        stats: EncodeStats::default(),
    };
    let mut x = Exec {
        ctx,
        p,
        bound: opts.bound,
        alts: opts.alternatives,
        budget: opts.budget,
        loc_of,
        alt_cache: HashMap::new(),
        enc,
        st: State {
            guard: Bool::from_bool(ctx, true),
            dead: false,
            vars: BTreeMap::new(),
            mem: BTreeMap::new(),
            cells: BTreeMap::new(),
            line: LineState::Start,
        },
        objects: vec![ObjInfo {
            len: 0,
            size: None,
            elem: Type::Void,
            lanes: Rc::new(vec![]),
            cells: Rc::new(vec![]),
            heap: false,
            small: false,
            zeroed: false,
        }],
        var_objs: HashMap::new(),
        stored_ptrs: HashMap::new(),
        heap_objects: 0,
        literal_objs: HashMap::new(),
        calls: Vec::new(),
        jumps: Vec::new(),
        next_frame: 1,
        names: 0,
        namespace: opts.namespace.to_string(),
        seq: std::cell::Cell::new(0),
        floats: Floats::new(ctx, opts.floats),
        exact_ints: HashMap::new(),
        mem_defs: HashMap::new(),
        stmts: 0,
        addr_taken: address_taken(p),
        memo: (!recursive(p)).then(HashMap::new),
        no_memo: HashSet::new(),
        assumes: 0,
        input_ends: opts
            .input_ends
            .then(|| (BV::new_const(ctx, "input!tokens", TOKEN_BITS), BV::from_u64(ctx, 0, TOKEN_BITS))),
        char_pos: opts.chars.then(|| BV::from_u64(ctx, 0, TOKEN_BITS)),
        absent_chars: opts.absent_chars,
        no_negative_zero: opts.no_negative_zero,
    };
    let fid = p.func_by_name(entry).ok_or_else(|| Unsupported {
        func: None,
        what: format!("there is no function `{entry}` with a body"),
        span: Span::default(),
    })?;
    x.globals()?;
    // The entry's parameters (`main(int argc, char **argv)`) start as the interpreter starts
    // them, a run without command-line arguments ([`crate::ir::EntryArg`]), so every
    // counterexample replays there; they are not unset variables.
    let mut args = Vec::new();
    for (k, &v) in p.func(fid).params.iter().enumerate() {
        let (ty, span) = (&p.var(v).ty, p.var(v).span);
        args.push(match crate::ir::entry_arg(k, ty) {
            crate::ir::EntryArg::Count => match ty {
                Type::Int(t) => SymVal::Int(c_int::constant(ctx, *t, 1)),
                _ => unreachable!("entry_arg counts in integers only"),
            },
            crate::ir::EntryArg::Vector => x.command_line(ty, span)?,
            crate::ir::EntryArg::Zero => x.zero(ty, span)?,
        });
    }
    let ret = x.inline_call(fid, args, p.func(fid).span)?;
    if !matches!(ret, SymVal::Void) {
        x.enc.return_value = Some(ret);
    }
    if let Some(chars) =
        x.enc.chars.as_ref().filter(|_| opts.line_in_input || opts.min_lines > 0 || opts.max_lines.is_some())
    {
        let n = chars.bytes.len();
        let at = |k: usize| BV::from_u64(ctx, k as u64, TOKEN_BITS);
        let nl = BV::from_u64(ctx, b'\n' as u64, 8);
        // What the bytes read say of the input's lines holds where it has no more than those
        // (a longer input may have its line breaks further on).
        let longer = chars.len.bvugt(&at(n));
        // Per byte read: it is a '\n' of the input.
        let breaks: Vec<Bool<'ctx>> = (chars.bytes.iter().enumerate())
            .map(|(k, b)| Bool::and(ctx, &[&at(k).bvult(&chars.len), &b._eq(&nl)]))
            .collect();
        if opts.line_in_input {
            // The line assumption, as the verified engine's stream model: the input holds a
            // '\n' (the assignment promises a line; a run that reads past it is beyond the bound).
            let somewhere: Vec<&Bool<'ctx>> = std::iter::once(&longer).chain(&breaks).collect();
            x.enc.hard.push(Bool::or(ctx, &somewhere));
            x.enc.line_assumed = true;
        }
        if opts.min_lines > 0 || opts.max_lines.is_some() {
            // The lines of an input no longer than the bytes read: the '\n's, and the text
            // after the last one.
            let mut counted_breaks = at(0);
            for counted in &breaks {
                counted_breaks = counted_breaks.bvadd(&counted.ite(&at(1), &at(0)));
            }
            let unterminated: Vec<Bool<'ctx>> = (chars.bytes.iter().enumerate())
                .map(|(k, b)| Bool::and(ctx, &[&chars.len._eq(&at(k + 1)), &b._eq(&nl).not()]))
                .collect();
            let refs: Vec<&Bool<'ctx>> = unterminated.iter().collect();
            let lines = counted_breaks.bvadd(&Bool::or(ctx, &refs).ite(&at(1), &at(0)));
            if opts.min_lines > 0 {
                let enough = lines.bvuge(&at(opts.min_lines as usize));
                x.enc.hard.push(Bool::or(ctx, &[&longer, &enough]));
            }
            if let Some(most) = opts.max_lines {
                // The lines that start among the bytes read (at the first byte, and after each
                // '\n' some byte follows): no more than the input's, however long it is.
                let mut starts = at(0);
                for k in 0..n {
                    let within = at(k).bvult(&chars.len);
                    let start = if k == 0 { within } else { Bool::and(ctx, &[&within, &breaks[k - 1]]) };
                    starts = starts.bvadd(&start.ite(&at(1), &at(0)));
                }
                x.enc.hard.push(starts.bvule(&at(most as usize)));
            }
        }
    }
    let returned = if x.st.dead { Bool::from_bool(ctx, false) } else { x.st.guard.clone() };
    let mut ends: Vec<&Bool<'ctx>> = x.enc.exits.iter().map(|(g, _)| g).collect();
    ends.push(&returned);
    x.enc.completes = Bool::or(ctx, &ends);
    // Objects kept cell by cell are plain values: only Z3 arrays leave the bit-vector logic.
    x.enc.bit_vectors_only = x.objects.iter().skip(1).all(|o| o.small) && !uses_floats(p);
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

/// The number of cells (scalars) of a value of type `ty`: arrays and structs flattened.
fn leaf_count(p: &Program, ty: &Type) -> Option<u64> {
    match ty {
        Type::Array(e, Some(n)) => Some(n * leaf_count(p, e)?),
        Type::Array(_, None) => None,
        Type::Struct(id) => {
            let def = p.struct_def(*id);
            if !def.complete {
                return None;
            }
            def.fields.iter().try_fold(0u64, |n, f| Some(n + leaf_count(p, &f.ty)?))
        }
        _ => Some(1),
    }
}

/// The leaf type of each cell of a value of type `ty`, in order.
fn cell_types(p: &Program, ty: &Type, out: &mut Vec<Type>) -> Option<()> {
    match ty {
        Type::Array(e, Some(n)) => {
            let start = out.len();
            cell_types(p, e, out)?;
            let one: Vec<Type> = out[start..].to_vec();
            for _ in 1..*n {
                out.extend(one.iter().cloned());
            }
            Some(())
        }
        Type::Array(_, None) => None,
        Type::Struct(id) => {
            let def = p.struct_def(*id);
            if !def.complete {
                return None;
            }
            def.fields.iter().try_for_each(|f| cell_types(p, &f.ty, out))
        }
        t => {
            out.push(t.clone());
            Some(())
        }
    }
}

/// The cell offset of field `field` inside a struct.
fn field_cells(p: &Program, id: crate::ir::StructId, field: usize) -> Option<u64> {
    p.struct_def(id).fields.iter().take(field).try_fold(0u64, |n, f| Some(n + leaf_count(p, &f.ty)?))
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

/// Whether some variable or expression of the program has a floating-point type.
pub(crate) fn uses_floats(p: &Program) -> bool {
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
        StmtKind::Switch { arms, .. } => {
            arms.iter().flat_map(|a| a.body.iter()).for_each(|s| collect_statics(p, s, out))
        }
        StmtKind::Block(b) => b.iter().for_each(|s| collect_statics(p, s, out)),
        _ => {}
    }
}
