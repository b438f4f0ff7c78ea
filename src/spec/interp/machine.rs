//! The tree-walking evaluator.

use std::collections::HashMap;

use super::debug::{Debugger, Paused, Resume};
use super::memory::{self, BlockKind, Fault, Memory};
use super::{CallRecord, ChunkKind, Limits, OutputChunk, RunResult, RuntimeError, RuntimeErrorKind as K, State};
use crate::cancel::Cancel;
use crate::ir::*;

/// A scalar value. Integers are kept wrapped to their type (unsigned 64-bit as the bit pattern);
/// `float` values are kept rounded to single precision; pointers, and the addresses of arrays
/// and structs, are packed `(block, offset)` integers (see `memory`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    I(i64),
    F(f64),
    /// Indeterminate (a slot never assigned, the result of falling off a non-void function).
    U,
}

impl Val {
    #[inline]
    pub fn i(self) -> i64 {
        match self {
            Val::I(v) => v,
            Val::F(f) => f as i64,
            Val::U => 0,
        }
    }
    #[inline]
    pub fn f(self) -> f64 {
        match self {
            Val::F(f) => f,
            Val::I(v) => v as f64,
            Val::U => 0.0,
        }
    }
    #[inline]
    fn truthy(self) -> bool {
        match self {
            Val::I(v) => v != 0,
            Val::F(f) => f != 0.0,
            Val::U => false,
        }
    }
}

pub enum Stop {
    Err(RuntimeError),
    Exit(i32),
    AssumeFalse,
}

pub type R<T> = Result<T, Box<Stop>>;

pub fn err<T>(kind: K, span: Span, message: impl Into<String>) -> R<T> {
    Err(Box::new(Stop::Err(RuntimeError { kind, span, message: message.into() })))
}

enum Flow {
    Normal,
    Break,
    Continue,
    Return(Val),
}

#[derive(Clone, Copy)]
pub(super) struct VarInfo {
    pub global: bool,
    pub addressable: bool,
    pub slot: u32,
}

/// One active call, kept only under a debugger (`super::debug`): which function, where its
/// slots start, and the point it is at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub func: FuncId,
    pub base: usize,
    pub at: Span,
}

#[derive(Clone, Copy)]
pub enum Place {
    Slot { global: bool, idx: usize },
    Mem(i64),
}

pub struct Machine<'p> {
    pub prog: &'p Program,
    limits: &'p Limits,
    cancel: &'p Cancel,
    pub steps: u64,
    next_check: u64,
    pub mem: Memory,
    pub(super) vars: Vec<VarInfo>,
    frame_size: Vec<u32>,
    pub(super) globals: Vec<Val>,
    pub(super) slots: Vec<Val>,
    base: usize,
    frame_blocks: Vec<u32>,
    /// Blocks holding structs returned by value; released at the end of the statement that
    /// made them (or when the function returns).
    temps: Vec<u32>,
    depth: u32,
    /// Active calls per function (for the unwinding bound).
    active_calls: Vec<u32>,
    cur_func: Option<FuncId>,
    pub input: &'p [u8],
    pub pos: usize,
    pub out: Vec<u8>,
    pub chunks: Vec<OutputChunk>,
    pub out_before_last_read: usize,
    pub input_exhausted: bool,
    covered: std::collections::HashSet<Span>,
    literals: HashMap<ExprId, i64>,
    /// With [`Limits::record_calls`]: the records so far, the calls started, and the bytes
    /// drawn (recording stops past [`MAX_DRAWN`]).
    calls: Vec<CallRecord>,
    calls_started: usize,
    calls_cut: bool,
    drawn: usize,
    /// The debugger the run pauses for (`run_debug`); `None` for every other run.
    debugger: Option<&'p mut (dyn Debugger + Send + 'p)>,
    /// Under a debugger: the active calls, outermost first.
    pub(super) frames: Vec<Frame>,
    /// Under a debugger: the runtime error was shown to it already (where it happened).
    error_shown: bool,
}

/// Bytes of drawings one run records before it stops recording calls.
const MAX_DRAWN: usize = 8 << 20;

const POLL: u64 = 1 << 16;

pub fn run_here(prog: &Program, entry: &str, input: &[u8], limits: &Limits, cancel: &Cancel) -> RunResult {
    run_with(prog, entry, input, limits, cancel, None)
}

/// A run that pauses for `debugger` (see `super::debug`), or a plain run without one.
pub(super) fn run_with<'p>(
    prog: &'p Program,
    entry: &str,
    input: &'p [u8],
    limits: &'p Limits,
    cancel: &'p Cancel,
    debugger: Option<&'p mut (dyn Debugger + Send + 'p)>,
) -> RunResult {
    let mut m = Machine::new(prog, limits, cancel, input);
    m.debugger = debugger;
    let outcome = m.start(entry);
    let mut r = RunResult {
        output: std::mem::take(&mut m.out),
        chunks: std::mem::take(&mut m.chunks),
        steps: m.steps,
        output_before_last_read: m.out_before_last_read,
        input_exhausted: m.input_exhausted,
        covered: {
            let mut c: Vec<Span> = m.covered.drain().collect();
            c.sort_by_key(|s| (s.start, s.end));
            c
        },
        calls: std::mem::take(&mut m.calls),
        calls_cut: m.calls_cut,
        ..Default::default()
    };
    match outcome {
        Ok(code) => r.exit_code = Some(code),
        Err(stop) => match *stop {
            Stop::Exit(code) => r.exit_code = Some(code),
            Stop::AssumeFalse => r.assume_failed = true,
            Stop::Err(e) => r.error = Some(e),
        },
    }
    r
}

fn fault_kind(f: &Fault) -> K {
    match f {
        Fault::Null => K::NullDereference,
        Fault::OutOfBounds { .. } => K::OutOfBounds,
        Fault::Freed { .. } => K::UseAfterFree,
        Fault::Uninit { .. } => K::Uninitialized,
        Fault::ReadOnly => K::ReadOnlyWrite,
    }
}

impl<'p> Machine<'p> {
    fn new(prog: &'p Program, limits: &'p Limits, cancel: &'p Cancel, input: &'p [u8]) -> Self {
        let mut vars = vec![VarInfo { global: true, addressable: true, slot: 0 }; prog.vars.len()];
        let mut nglobals = 0u32;
        for (i, v) in prog.vars.iter().enumerate() {
            if matches!(v.kind, VarKind::Global | VarKind::StaticLocal) {
                vars[i] = VarInfo { global: true, addressable: v.addressable, slot: nglobals };
                nglobals += 1;
            }
        }
        let mut frame_size = Vec::with_capacity(prog.funcs.len());
        for f in &prog.funcs {
            let mut n = 0u32;
            for &v in f.params.iter().chain(f.locals.iter()) {
                let var = prog.var(v);
                if matches!(var.kind, VarKind::Global | VarKind::StaticLocal) {
                    continue;
                }
                vars[v.0 as usize] = VarInfo { global: false, addressable: var.addressable, slot: n };
                n += 1;
            }
            frame_size.push(n);
        }
        let next_check = POLL.min(limits.max_steps);
        Machine {
            prog,
            limits,
            cancel,
            steps: 0,
            next_check,
            mem: Memory::new(limits.max_memory),
            vars,
            frame_size,
            globals: vec![Val::U; nglobals as usize],
            slots: Vec::with_capacity(1024),
            base: 0,
            frame_blocks: Vec::new(),
            temps: Vec::new(),
            depth: 0,
            active_calls: vec![0; prog.funcs.len()],
            cur_func: None,
            input,
            pos: 0,
            out: Vec::new(),
            chunks: Vec::new(),
            out_before_last_read: 0,
            input_exhausted: false,
            covered: Default::default(),
            literals: HashMap::new(),
            calls: Vec::new(),
            calls_started: 0,
            calls_cut: false,
            drawn: 0,
            debugger: None,
            frames: Vec::new(),
            error_shown: false,
        }
    }

    fn start(&mut self, entry: &str) -> R<i32> {
        // Globals and static locals: zero-initialised, then their constant initialisers.
        for (i, v) in self.prog.vars.iter().enumerate() {
            if matches!(v.kind, VarKind::Global | VarKind::StaticLocal) {
                let info = self.vars[i];
                if info.addressable {
                    let size = self.prog.size_of(&v.ty);
                    let b = self.alloc(size, BlockKind::Global, &v.name, true, v.span)?;
                    self.globals[info.slot as usize] = Val::I(memory::ptr(b, 0));
                } else {
                    self.globals[info.slot as usize] = self.zero_val(&v.ty);
                }
            }
        }
        let prog = self.prog;
        for (var, init) in &prog.globals {
            if let Some(init) = init {
                self.init_var(*var, init)?;
            }
        }
        for f in &prog.funcs {
            for &l in &f.locals {
                if prog.var(l).kind == VarKind::StaticLocal
                    && let Some(init) = find_decl_init(f.body.as_ref(), l)
                {
                    self.init_var(l, init)?;
                }
            }
        }
        let Some(fid) = prog.func_by_name(entry) else {
            return err(K::NoEntry, Span::default(), format!("the program has no function `{entry}`"));
        };
        let f = prog.func(fid);
        let mut args = Vec::new();
        for (k, &p) in f.params.iter().enumerate() {
            let ty = &prog.var(p).ty;
            args.push(match crate::ir::entry_arg(k, ty) {
                EntryArg::Count => Val::I(1),
                EntryArg::Vector => Val::I(self.command_line(ty, f.name_span)?),
                EntryArg::Zero => self.zero_val(ty),
            });
        }
        let v = self.call(fid, &args, f.name_span)?;
        Ok(match v {
            Val::U => 0,
            v => v.i() as i32,
        })
    }

    /// `argv` of a run without command-line arguments ([`crate::ir::EntryArg`]): the
    /// program's name, then a null pointer. `ty` is `argv`'s type (`char **`).
    fn command_line(&mut self, ty: &Type, span: Span) -> R<i64> {
        let b = self.alloc_string(crate::ir::PROGRAM_NAME.as_bytes(), BlockKind::Global, "argv[0]", span)?;
        let Type::Pointer(elem) = ty else { unreachable!("entry_arg gives Vector to pointers only") };
        let size = self.prog.size_of(elem);
        // Zeroed: `argv[1]` is the null pointer.
        let v = self.alloc(2 * size, BlockKind::Global, "argv", true, span)?;
        let name_ptr = memory::ptr(b, 0).to_le_bytes();
        self.mem.blocks[v as usize].data[..size as usize].copy_from_slice(&name_ptr[..size as usize]);
        Ok(memory::ptr(v, 0))
    }

    fn zero_val(&self, ty: &Type) -> Val {
        match ty {
            Type::Float(_) => Val::F(0.0),
            _ => Val::I(0),
        }
    }

    // ----- steps and limits -----

    #[inline(always)]
    fn tick(&mut self, span: Span) -> R<()> {
        self.steps += 1;
        if self.steps >= self.next_check {
            return self.slow_tick(span);
        }
        Ok(())
    }

    #[cold]
    fn slow_tick(&mut self, span: Span) -> R<()> {
        if self.steps >= self.limits.max_steps {
            return err(
                K::StepLimit,
                span,
                format!("step limit of {} reached: is there an infinite loop?", self.limits.max_steps),
            );
        }
        if self.cancel.is_cancelled() {
            return err(K::Cancelled, span, "the run was cancelled");
        }
        self.next_check = (self.steps + POLL).min(self.limits.max_steps);
        Ok(())
    }

    pub fn alloc(&mut self, size: u64, kind: BlockKind, name: &str, zeroed: bool, span: Span) -> R<u32> {
        match self.mem.alloc(size, kind, name, zeroed) {
            Some(b) => Ok(b),
            None => err(
                K::MemoryLimit,
                span,
                format!(
                    "memory limit of {} bytes reached (allocating {} bytes for {})",
                    self.limits.max_memory, size, name
                ),
            ),
        }
    }

    /// A block holding `bytes` and their terminating zero (a string literal, `argv[0]`).
    fn alloc_string(&mut self, bytes: &[u8], kind: BlockKind, name: &str, span: Span) -> R<u32> {
        let b = self.alloc(bytes.len() as u64 + 1, kind, name, true, span)?;
        self.mem.blocks[b as usize].data[..bytes.len()].copy_from_slice(bytes);
        Ok(b)
    }

    pub fn emit(&mut self, text: &[u8], kind: ChunkKind, span: Span, piece: u32) -> R<()> {
        if text.is_empty() {
            return Ok(());
        }
        let room = self.limits.max_output.saturating_sub(self.out.len());
        let take = text.len().min(room);
        self.out.extend_from_slice(&text[..take]);
        match self.chunks.last_mut() {
            Some(c) if c.kind == kind && c.span == span && c.piece == piece => c.text.extend_from_slice(&text[..take]),
            _ => self.chunks.push(OutputChunk { text: text[..take].to_vec(), kind, span, piece }),
        }
        if take < text.len() {
            return err(
                K::OutputLimit,
                span,
                format!(
                    "the program was stopped after printing {} bytes: does a loop never end?",
                    self.limits.max_output
                ),
            );
        }
        Ok(())
    }

    // ----- faults -----

    /// Turns a memory fault while accessing lvalue `e` into a student-readable error.
    pub fn fault(&self, f: Fault, e: &Expr, write: bool) -> Box<Stop> {
        let p = self.prog;
        let text = super::text::expr(p, e);
        let msg = match &f {
            Fault::Null => format!("`{text}` dereferences a null pointer"),
            Fault::Freed { block } => {
                let b = &self.mem.blocks[*block as usize];
                if b.kind == BlockKind::Heap {
                    format!("`{text}` uses memory that was already freed")
                } else {
                    format!("`{text}` uses `{}` after its function returned", b.name)
                }
            }
            Fault::Uninit { block } => {
                let b = &self.mem.blocks[*block as usize];
                match e.strip_implicit().kind {
                    ExprKind::Var(_) => format!("`{text}` is used before it is given a value"),
                    _ if b.kind == BlockKind::Heap => {
                        format!(
                            "`{text}` is read before it is given a value ({} holds nothing until you store into it)",
                            b.name
                        )
                    }
                    _ => format!("`{text}` is used before it is given a value"),
                }
            }
            Fault::ReadOnly => format!("`{text}` writes into a string literal, which cannot be changed"),
            Fault::OutOfBounds { block, offset, size, block_size } => {
                self.oob_message(e, &text, *block, *offset, *size, *block_size, write)
            }
        };
        Box::new(Stop::Err(RuntimeError { kind: fault_kind(&f), span: e.span, message: msg }))
    }

    #[allow(clippy::too_many_arguments)]
    fn oob_message(
        &self,
        e: &Expr,
        text: &str,
        block: u32,
        offset: i64,
        size: u64,
        bsize: u64,
        _write: bool,
    ) -> String {
        let b = &self.mem.blocks[block as usize];
        let p = self.prog;
        // `a[i]` with `a` a 1-D array variable, or `a[i][j]` with `a` 2-D.
        if let ExprKind::Index(base, _) = &e.kind {
            let base = base.strip_implicit();
            if let ExprKind::Var(v) = base.kind {
                let var = p.var(v);
                if let Type::Array(elem, n) = &var.ty {
                    let es = p.size_of(elem).max(1) as i64;
                    let n = n.unwrap_or(bsize / es as u64);
                    let idx = offset.div_euclid(es);
                    return format!("index {idx} is out of bounds for `{}` ({n} elements)", var.name);
                }
                if var.ty.is_pointer() {
                    let es = p.size_of(&e.ty).max(1) as i64;
                    let n = bsize as i64 / es;
                    return format!(
                        "`{text}` is out of bounds: `{}` points to {} with {n} element{}",
                        var.name,
                        describe(b),
                        if n == 1 { "" } else { "s" }
                    );
                }
            }
            // `a[i][j]` with rows of a runtime length: the row length is in its hidden local.
            if let ExprKind::Row { array, len, .. } = &base.kind
                && let ExprKind::Var(v) = array.strip_implicit().kind
                && let Val::I(m) = self.slot_value(*len)
                && m > 0
            {
                let es = p.size_of(&e.ty).max(1) as i64;
                let n = bsize as i64 / es / m;
                let (i, j) = (offset.div_euclid(es * m), offset.rem_euclid(es * m) / es);
                return format!(
                    "`{text}` is out of bounds for `{}` ({n}×{m} elements): it reaches element [{i}][{j}]",
                    p.var(v).name
                );
            }
            if let ExprKind::Index(inner, _) = &base.kind
                && let ExprKind::Var(v) = inner.strip_implicit().kind
            {
                let var = p.var(v);
                if let Type::Array(row, Some(n)) = &var.ty
                    && let Type::Array(elem, Some(m)) = &**row
                {
                    let es = p.size_of(elem).max(1) as i64;
                    let rs = p.size_of(row).max(1) as i64;
                    let i = offset.div_euclid(rs);
                    let j = offset.rem_euclid(rs) / es;
                    return format!(
                        "`{text}` is out of bounds for `{}` ({n}×{m} elements): it reaches element [{i}][{j}]",
                        var.name
                    );
                }
            }
        }
        format!(
            "`{text}` accesses memory outside {} (byte {offset} of a {bsize}-byte object, access of {size} bytes)",
            describe(b)
        )
    }

    // ----- variables and places -----

    #[inline]
    fn slot(&mut self, info: VarInfo) -> &mut Val {
        if info.global {
            &mut self.globals[info.slot as usize]
        } else {
            &mut self.slots[self.base + info.slot as usize]
        }
    }

    /// The value in a variable's slot, without reading it as the program would.
    fn slot_value(&self, id: VarId) -> Val {
        let info = self.vars[id.0 as usize];
        if info.global { self.globals[info.slot as usize] } else { self.slots[self.base + info.slot as usize] }
    }

    /// The block of an addressable variable, created on first use.
    pub(super) fn var_addr(&mut self, id: VarId, span: Span) -> R<i64> {
        let info = self.vars[id.0 as usize];
        match *self.slot(info) {
            Val::I(p) => Ok(p),
            _ => {
                let var = self.prog.var(id);
                let size = self.prog.size_of(&var.ty);
                let b = self.alloc(size, BlockKind::Stack, &var.name, false, span)?;
                self.frame_blocks.push(b);
                let p = memory::ptr(b, 0);
                *self.slot(info) = Val::I(p);
                Ok(p)
            }
        }
    }

    pub fn place(&mut self, e: &'p Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Var(id) => {
                let info = self.vars[id.0 as usize];
                if info.addressable {
                    Ok(Place::Mem(self.var_addr(*id, e.span)?))
                } else {
                    let idx = if info.global { info.slot as usize } else { self.base + info.slot as usize };
                    Ok(Place::Slot { global: info.global, idx })
                }
            }
            ExprKind::Deref(p) => Ok(Place::Mem(self.eval(p)?.i())),
            ExprKind::Index(b, i) => {
                let base = self.eval(b)?.i();
                let idx = self.eval(i)?;
                let idx = int_index(idx, &i.ty);
                let es = self.prog.size_of(&e.ty) as i64;
                Ok(Place::Mem(memory::ptr_add(base, idx.wrapping_mul(es))))
            }
            ExprKind::Member { base, field, arrow } => {
                let addr = if *arrow { self.eval(base)?.i() } else { self.addr_of(base)? };
                let off = self.field_offset(if *arrow { base.ty.pointee() } else { Some(&base.ty) }, *field);
                Ok(Place::Mem(memory::ptr_add(addr, off as i64)))
            }
            ExprKind::Str(_) => Ok(Place::Mem(self.literal(e)?)),
            ExprKind::Cast { expr, implicit: true } if expr.ty == e.ty => self.place(expr),
            // An rvalue aggregate (struct returned by a call, `c ? s1 : s2`, `s = t`): its
            // value is its address.
            _ if matches!(e.ty, Type::Struct(_) | Type::Array(..)) => Ok(Place::Mem(self.eval(e)?.i())),
            _ => err(
                K::Unsupported,
                e.span,
                format!("`{}` is not something that can be assigned", super::text::expr(self.prog, e)),
            ),
        }
    }

    fn addr_of(&mut self, e: &'p Expr) -> R<i64> {
        match self.place(e)? {
            Place::Mem(p) => Ok(p),
            Place::Slot { .. } => err(K::Unsupported, e.span, "address of a register variable"),
        }
    }

    fn field_offset(&self, sty: Option<&Type>, field: usize) -> u64 {
        match sty {
            Some(Type::Struct(id)) => self.prog.struct_def(*id).fields.get(field).map_or(0, |f| f.offset),
            _ => 0,
        }
    }

    fn literal(&mut self, e: &'p Expr) -> R<i64> {
        let key = e.id;
        if let Some(&p) = self.literals.get(&key) {
            return Ok(p);
        }
        let ExprKind::Str(bytes) = &e.kind else { unreachable!() };
        let b = self.alloc_string(bytes, BlockKind::Literal, "a string literal", e.span)?;
        let p = memory::ptr(b, 0);
        self.literals.insert(key, p);
        Ok(p)
    }

    /// With [`Limits::uninit_reads_zero`], the value an uninitialised scalar of type `ty` reads.
    fn uninit_zero(&self, ty: &Type) -> Option<Val> {
        if !self.limits.uninit_reads_zero {
            return None;
        }
        match ty {
            Type::Int(_) => Some(Val::I(0)),
            Type::Float(_) => Some(Val::F(0.0)),
            _ => None,
        }
    }

    /// Loads a scalar of type `ty` from `place`; for arrays and structs, their address.
    #[inline]
    pub fn load(&mut self, place: Place, ty: &Type, e: &Expr) -> R<Val> {
        match place {
            Place::Slot { global, idx } => {
                let v = if global { self.globals[idx] } else { self.slots[idx] };
                if let Val::U = v {
                    if let Some(zero) = self.uninit_zero(ty) {
                        return Ok(zero);
                    }
                    return err(
                        K::Uninitialized,
                        e.span,
                        format!("`{}` is used before it is given a value", super::text::expr(self.prog, e)),
                    );
                }
                Ok(v)
            }
            Place::Mem(p) => self.load_mem(p, ty, e),
        }
    }

    #[inline]
    pub fn load_mem(&mut self, p: i64, ty: &Type, e: &Expr) -> R<Val> {
        let (size, kind) = match ty {
            Type::Int(t) => (t.bits() as u64 / 8, 0),
            Type::Float(FloatKind::Float) => (4, 1),
            Type::Float(FloatKind::Double) => (8, 2),
            Type::Pointer(_) => (8, 3),
            _ => return Ok(Val::I(p)),
        };
        let bits = self.mem.load(p, size).map_err(|f| self.fault(f, e, false))?;
        Ok(match (kind, ty) {
            (0, Type::Int(t)) => Val::I(t.wrap(bits as i64)),
            (1, _) => Val::F(f32::from_bits(bits as u32) as f64),
            (2, _) => Val::F(f64::from_bits(bits)),
            _ => Val::I(bits as i64),
        })
    }

    #[inline]
    pub fn store(&mut self, place: Place, ty: &Type, v: Val, e: &Expr) -> R<()> {
        match place {
            Place::Slot { global, idx } => {
                if global {
                    self.globals[idx] = v
                } else {
                    self.slots[idx] = v
                }
                Ok(())
            }
            Place::Mem(p) => self.store_mem(p, ty, v, e),
        }
    }

    pub fn store_mem(&mut self, p: i64, ty: &Type, v: Val, e: &Expr) -> R<()> {
        let (size, bits) = match (ty, v) {
            (_, Val::U) => {
                // Storing an indeterminate value: the bytes become uninitialised.
                let size = self.prog.size_of(ty);
                return self.mem.uninit(p, size).map_err(|f| self.fault(f, e, true));
            }
            (Type::Int(t), v) => (t.bits() as u64 / 8, v.i() as u64),
            (Type::Float(FloatKind::Float), v) => (4, (v.f() as f32).to_bits() as u64),
            (Type::Float(FloatKind::Double), v) => (8, v.f().to_bits()),
            (Type::Pointer(_), v) => (8, v.i() as u64),
            (Type::Struct(_) | Type::Array(..), v) => {
                let size = self.prog.size_of(ty);
                return self.mem.copy(p, v.i(), size).map_err(|f| self.fault(f, e, true));
            }
            _ => return Ok(()),
        };
        self.mem.store(p, size, bits).map_err(|f| self.fault(f, e, true))
    }

    // ----- expressions -----

    /// Evaluates `e` for its side effects only.
    fn eval_discard(&mut self, e: &'p Expr) -> R<()> {
        match &e.kind {
            ExprKind::Call(callee, args) => {
                self.tick(e.span)?;
                self.eval_call(e, callee, args, false)?;
                Ok(())
            }
            _ => self.eval(e).map(|_| ()),
        }
    }

    pub fn eval(&mut self, e: &'p Expr) -> R<Val> {
        self.tick(e.span)?;
        match &e.kind {
            ExprKind::Int(v) => Ok(Val::I(*v)),
            ExprKind::Float(f) => Ok(Val::F(match e.ty {
                Type::Float(FloatKind::Float) => *f as f32 as f64,
                _ => *f,
            })),
            ExprKind::Var(id) => {
                let info = self.vars[id.0 as usize];
                if !info.addressable {
                    let v = *self.slot(info);
                    if let Val::U = v {
                        if let Some(zero) = self.uninit_zero(&e.ty) {
                            return Ok(zero);
                        }
                        return err(
                            K::Uninitialized,
                            e.span,
                            format!("`{}` is used before it is given a value", self.prog.var(*id).name),
                        );
                    }
                    return Ok(v);
                }
                let p = self.var_addr(*id, e.span)?;
                self.load_mem(p, &e.ty, e)
            }
            ExprKind::Str(_) => Ok(Val::I(self.literal(e)?)),
            ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::Member { .. } => {
                let pl = self.place(e)?;
                self.load(pl, &e.ty, e)
            }
            ExprKind::Decay(a) => self.eval(a),
            ExprKind::Row { array, index, len } => {
                let base = self.eval(array)?.i();
                let i = int_index(self.eval(index)?, &index.ty);
                let per = self.slot_value(*len).i();
                let es = self.prog.size_of(e.ty.pointee().unwrap_or(&Type::CHAR)) as i64;
                Ok(Val::I(memory::ptr_add(base, i.wrapping_mul(per).wrapping_mul(es))))
            }
            ExprKind::AddrOf(a) => Ok(Val::I(self.addr_of(a)?)),
            ExprKind::SizeOf { size, .. } => Ok(Val::I(*size as i64)),
            ExprKind::Cast { expr, .. } => {
                let v = self.eval(expr)?;
                Ok(convert(v, &expr.ty, &e.ty))
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(a)?;
                Ok(match (op, &e.ty) {
                    (UnOp::Not, _) => Val::I(!v.truthy() as i64),
                    (UnOp::Neg, Type::Int(t)) => Val::I(t.wrap(v.i().wrapping_neg())),
                    (UnOp::Neg, Type::Float(_)) => Val::F(-v.f()),
                    (UnOp::BitNot, Type::Int(t)) => Val::I(t.wrap(!v.i())),
                    _ => v,
                })
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, &e.ty, &a.ty, &b.ty, x, y, e)
            }
            ExprKind::Logical(op, a, b) => {
                let x = self.eval(a)?.truthy();
                let r = match op {
                    LogicOp::And => x && self.eval(b)?.truthy(),
                    LogicOp::Or => x || self.eval(b)?.truthy(),
                };
                Ok(Val::I(r as i64))
            }
            ExprKind::Cond(c, a, b) => {
                if self.eval(c)?.truthy() {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Comma(a, b) => {
                self.eval_discard(a)?;
                self.eval(b)
            }
            ExprKind::Assign(l, r) => {
                if let ExprKind::Var(id) = l.kind {
                    let info = self.vars[id.0 as usize];
                    if !info.addressable {
                        let v = self.eval(r)?;
                        *self.slot(info) = v;
                        return Ok(v);
                    }
                }
                let pl = self.place(l)?;
                let v = self.eval(r)?;
                self.store(pl, &l.ty, v, l)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { op, op_ty, lhs, rhs } => {
                let pl = self.place(lhs)?;
                let old = self.load(pl, &lhs.ty, lhs)?;
                let a = convert(old, &lhs.ty, op_ty);
                let b = self.eval(rhs)?;
                let r = self.binary(*op, op_ty, op_ty, &rhs.ty, a, b, e)?;
                let new = convert(r, op_ty, &lhs.ty);
                self.store(pl, &lhs.ty, new, lhs)?;
                Ok(new)
            }
            ExprKind::IncDec(k, a) => {
                let pl = self.place(a)?;
                let old = self.load(pl, &a.ty, a)?;
                let inc = matches!(k, IncDec::PreInc | IncDec::PostInc);
                let new = match &a.ty {
                    Type::Int(t) => Val::I(t.wrap(if inc { old.i().wrapping_add(1) } else { old.i().wrapping_sub(1) })),
                    Type::Float(k) => Val::F(round_to(*k, if inc { old.f() + 1.0 } else { old.f() - 1.0 })),
                    Type::Pointer(to) => {
                        let s = self.prog.size_of(to) as i64;
                        Val::I(memory::ptr_add(old.i(), if inc { s } else { -s }))
                    }
                    _ => old,
                };
                self.store(pl, &a.ty, new, a)?;
                Ok(if matches!(k, IncDec::PreInc | IncDec::PreDec) { new } else { old })
            }
            ExprKind::Call(callee, args) => self.eval_call(e, callee, args, true),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(&mut self, op: BinOp, ty: &Type, aty: &Type, bty: &Type, x: Val, y: Val, e: &Expr) -> R<Val> {
        if op.is_comparison() {
            let r = match aty {
                Type::Float(_) => {
                    let (a, b) = (x.f(), y.f());
                    match op {
                        BinOp::Lt => a < b,
                        BinOp::Le => a <= b,
                        BinOp::Gt => a > b,
                        BinOp::Ge => a >= b,
                        BinOp::Eq => a == b,
                        _ => a != b,
                    }
                }
                Type::Int(t) if t.bits() != 64 || t.signed => cmp(op, x.i(), y.i()),
                Type::Int(_) => cmp(op, x.i() as u64, y.i() as u64),
                _ if bty.is_float() => cmp(op, x.f(), y.f()),
                // Pointers: by block, then by signed offset.
                _ => {
                    let key = |p: i64| (memory::block_of(p), memory::offset_of(p));
                    match op {
                        BinOp::Eq => x.i() == y.i(),
                        BinOp::Ne => x.i() != y.i(),
                        _ => cmp(op, key(x.i()), key(y.i())),
                    }
                }
            };
            return Ok(Val::I(r as i64));
        }
        match ty {
            Type::Int(t) => {
                if aty.is_pointer() || matches!(aty, Type::Array(..)) {
                    // ptr - ptr
                    let es = aty.pointee().map_or(1, |t| self.prog.size_of(t)).max(1) as i64;
                    let d = memory::offset_of(x.i()) - memory::offset_of(y.i());
                    return Ok(Val::I(t.wrap(d / es)));
                }
                let (a, b) = (x.i(), y.i());
                let r = match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div | BinOp::Rem => {
                        if b == 0 {
                            let what = if op == BinOp::Div { "division" } else { "modulo" };
                            return err(
                                K::DivisionByZero,
                                e.span,
                                format!("{what} by zero in `{}`", super::text::expr(self.prog, e)),
                            );
                        }
                        if t.bits() == 64 && !t.signed {
                            let (a, b) = (a as u64, b as u64);
                            (if op == BinOp::Div { a / b } else { a % b }) as i64
                        } else if op == BinOp::Div {
                            a.wrapping_div(b)
                        } else {
                            a.wrapping_rem(b)
                        }
                    }
                    BinOp::Shl => a.wrapping_shl(shift_count(t, b)),
                    BinOp::Shr => {
                        let c = shift_count(t, b);
                        if t.signed { a >> c } else { ((a as u64) >> c) as i64 }
                    }
                    BinOp::BitAnd => a & b,
                    BinOp::BitOr => a | b,
                    BinOp::BitXor => a ^ b,
                    _ => unreachable!(),
                };
                Ok(Val::I(t.wrap(r)))
            }
            Type::Float(k) => {
                let (a, b) = (x.f(), y.f());
                let r = match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    _ => {
                        return err(K::Unsupported, e.span, format!("operator `{}` on floating point", op.c_token()));
                    }
                };
                Ok(Val::F(round_to(*k, r)))
            }
            Type::Pointer(to) => {
                let es = self.prog.size_of(to) as i64;
                let (p, n, nty) = if aty.is_integer() { (y.i(), x, aty) } else { (x.i(), y, bty) };
                let n = int_index(n, nty);
                let d = n.wrapping_mul(es);
                Ok(Val::I(memory::ptr_add(p, if op == BinOp::Sub { d.wrapping_neg() } else { d })))
            }
            _ => err(K::Unsupported, e.span, "operation on a value of unsupported type"),
        }
    }

    // ----- calls -----

    fn eval_call(&mut self, e: &'p Expr, callee: &'p Callee, args: &'p [Expr], want: bool) -> R<Val> {
        match callee {
            Callee::Builtin(b) => self.builtin(*b, e, args),
            Callee::Func(fid) => {
                let vals = self.eval_args(args)?;
                let v = self.call(*fid, &vals, e.span)?;
                if want && v == Val::U && !self.prog.func(*fid).ret.is_error() && self.prog.func(*fid).ret != Type::Void
                {
                    return err(
                        K::Uninitialized,
                        e.span,
                        format!(
                            "`{}` ended without returning a value, but its result is used",
                            self.prog.func(*fid).name
                        ),
                    );
                }
                Ok(v)
            }
        }
    }

    /// Evaluates call arguments right to left, as gcc does on x86-64 (the order is unspecified
    /// in C, but students print `f(), counter` and expect what gcc shows).
    pub fn eval_args(&mut self, args: &'p [Expr]) -> R<Vec<Val>> {
        let mut vals = vec![Val::U; args.len()];
        for (i, a) in args.iter().enumerate().rev() {
            vals[i] = self.eval(a)?;
        }
        Ok(vals)
    }

    /// One more execution of a loop body; past the unwinding bound the run stops.
    fn count_iteration(&mut self, iterations: &mut u32, span: Span) -> R<()> {
        *iterations += 1;
        match self.limits.unwinding_bound {
            Some(b) if *iterations > b => err(K::BoundExceeded, span, format!("a loop runs more than {b} times")),
            _ => Ok(()),
        }
    }

    fn call(&mut self, fid: FuncId, args: &[Val], span: Span) -> R<Val> {
        let prog = self.prog;
        let f = prog.func(fid);
        let Some(body) = &f.body else {
            return err(K::Unsupported, span, format!("`{}` is declared but never defined", f.name));
        };
        if let Some((what, _)) = f.unsupported.first() {
            return err(K::Unsupported, span, format!("`{}` uses {what}, which mend cannot run", f.name));
        }
        if self.depth >= self.limits.max_call_depth {
            return err(
                K::StackOverflow,
                span,
                format!("stack overflow: more than {} nested calls (runaway recursion?)", self.limits.max_call_depth),
            );
        }
        if let Some(b) = self.limits.unwinding_bound
            && self.active_calls[fid.0 as usize] >= b.max(1)
        {
            return err(K::BoundExceeded, span, format!("more than {b} nested calls of `{}`", f.name));
        }
        // The entry function's call is the whole run: it is not recorded.
        let recording = self.limits.record_calls && self.depth > 0 && !self.calls_cut;
        let before = recording.then(|| (self.calls_started, self.draw_state(f, args), self.out.len()));
        self.calls_started += recording as usize;
        self.active_calls[fid.0 as usize] += 1;
        self.depth += 1;
        let saved_base = self.base;
        let saved_func = self.cur_func;
        let new_base = self.slots.len();
        self.slots.resize(new_base + self.frame_size[fid.0 as usize] as usize, Val::U);
        self.base = new_base;
        self.cur_func = Some(fid);
        let blocks_mark = self.frame_blocks.len();
        let temps_mark = self.temps.len();
        if self.debugger.is_some() {
            self.frames.push(Frame { func: fid, base: new_base, at: f.name_span });
        }
        let result = self.run_body(f, body, args);
        if self.debugger.is_some() {
            self.frames.pop();
        }
        if let Some((started, before, printed_from)) = before {
            self.record_call(fid, span, started, before, printed_from, args, &result);
        }
        // Struct results live in the callee's frame: copy them out before it is freed.
        let result = match result {
            Ok(Val::I(addr)) if matches!(f.ret, Type::Struct(_)) => {
                let size = prog.size_of(&f.ret);
                self.alloc(size, BlockKind::Temp, "a returned struct", false, span).map(|b| {
                    let dst = memory::ptr(b, 0);
                    self.mem.copy(dst, addr, size).map_err(|_| ()).ok();
                    (Val::I(dst), Some(b))
                })
            }
            Ok(v) => Ok((v, None)),
            Err(e) => Err(e),
        };
        for b in self.frame_blocks.drain(blocks_mark..) {
            self.mem.release(b);
        }
        for b in self.temps.drain(temps_mark..) {
            self.mem.release(b);
        }
        self.slots.truncate(new_base);
        self.base = saved_base;
        self.cur_func = saved_func;
        self.depth -= 1;
        self.active_calls[fid.0 as usize] -= 1;
        let (v, temp) = result?;
        if let Some(b) = temp {
            self.temps.push(b);
        }
        Ok(v)
    }

    /// What a call of `f` with `args` can see: its parameters and the globals, drawn.
    fn draw_state(&self, f: &Function, args: &[Val]) -> State {
        let draw = super::shape::Drawer { prog: self.prog, mem: &self.mem };
        let params = f
            .params
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let var = self.prog.var(p);
                (var.name.clone(), draw.value(args.get(i).copied().unwrap_or(Val::U), &var.ty))
            })
            .collect();
        let globals = (self.prog.vars.iter().zip(&self.vars))
            .filter(|(v, _)| v.kind == VarKind::Global)
            .map(|(v, info)| {
                let value = self.globals[info.slot as usize];
                let shown = match value {
                    Val::I(p) if info.addressable => draw.stored(p, &v.ty),
                    _ => draw.value(value, &v.ty),
                };
                (v.name.clone(), shown)
            })
            .collect();
        State { params, globals }
    }

    #[allow(clippy::too_many_arguments)]
    fn record_call(
        &mut self,
        fid: FuncId,
        span: Span,
        started: usize,
        before: State,
        printed_from: usize,
        args: &[Val],
        result: &R<Val>,
    ) {
        let f = self.prog.func(fid);
        let after = self.draw_state(f, args);
        let draw = super::shape::Drawer { prog: self.prog, mem: &self.mem };
        let (returned, error) = match result {
            Ok(_) if f.ret == Type::Void => (None, None),
            Ok(v) => (Some(draw.value(*v, &f.ret)), None),
            Err(stop) => match &**stop {
                Stop::Err(e) => (None, Some(e.message.clone())),
                Stop::Exit(code) => (None, Some(format!("the program exits with status {code}"))),
                Stop::AssumeFalse => (None, Some("an assumption fails".into())),
            },
        };
        let printed = String::from_utf8_lossy(&self.out[printed_from.min(self.out.len())..]).into_owned();
        let size = |s: &State| s.params.iter().chain(&s.globals).map(|(n, d)| n.len() + d.len()).sum::<usize>();
        self.drawn += size(&before) + size(&after) + printed.len() + returned.as_ref().map_or(0, String::len);
        self.calls.push(CallRecord { func: fid, span, started, before, after, returned, error, printed });
        self.calls_cut = self.drawn > MAX_DRAWN || self.calls.len() >= super::MAX_CALL_RECORDS;
    }

    fn run_body(&mut self, f: &'p Function, body: &'p Stmt, args: &[Val]) -> R<Val> {
        for (i, &p) in f.params.iter().enumerate() {
            let v = args.get(i).copied().unwrap_or(Val::U);
            let info = self.vars[p.0 as usize];
            if info.addressable {
                let var = self.prog.var(p);
                let a = self.var_addr(p, var.span)?;
                let e = Expr::new(ExprKind::Var(p), var.ty.clone(), var.span);
                self.store_mem(a, &var.ty, v, &e)?;
            } else {
                *self.slot(info) = v;
            }
        }
        match self.exec(body)? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Val::U),
        }
    }

    // ----- statements -----

    fn exec(&mut self, s: &'p Stmt) -> R<Flow> {
        if self.debugger.is_none() {
            return self.exec_plain(s);
        }
        if !matches!(s.kind, StmtKind::Block(_)) {
            self.debug_point(s.span)?;
        }
        let flow = self.exec_plain(s);
        if let Err(stop) = &flow
            && let Stop::Err(e) = &**stop
            && !self.error_shown
            && e.kind != K::Cancelled
        {
            // The innermost statement the error leaves: its frame is still intact.
            self.error_shown = true;
            if let Some(d) = self.debugger.take() {
                d.at_error(&mut Paused { m: self }, e);
                self.debugger = Some(d);
            }
        }
        flow
    }

    /// A point where a debugger may pause: before a statement, and before each test of a
    /// loop's condition but the first (which the loop statement's own point covers).
    fn debug_point(&mut self, span: Span) -> R<()> {
        let Some(d) = self.debugger.take() else { return Ok(()) };
        if let Some(frame) = self.frames.last_mut() {
            frame.at = span;
        }
        let resume = d.at_point(&mut Paused { m: self });
        self.debugger = Some(d);
        match resume {
            Resume::Go => Ok(()),
            Resume::Stop => err(K::Cancelled, span, "the debugger ended the run"),
        }
    }

    /// [`Self::debug_point`] at a loop's header before a test of its condition after the first.
    #[inline]
    fn loop_test_point(&mut self, s: &Stmt, iterations: u32) -> R<()> {
        if self.debugger.is_some() && iterations > 0 {
            self.debug_point(s.span)?;
        }
        Ok(())
    }

    fn exec_plain(&mut self, s: &'p Stmt) -> R<Flow> {
        self.tick(s.span)?;
        if self.limits.record_coverage {
            self.covered.insert(s.span);
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                let mark = self.temps.len();
                self.eval_discard(e)?;
                self.release_temps(mark);
                Ok(Flow::Normal)
            }
            StmtKind::Block(stmts) => {
                for st in stmts {
                    match self.exec(st)? {
                        Flow::Normal => {}
                        other => return Ok(other),
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::If { cond, then, els } => {
                if self.eval(cond)?.truthy() {
                    self.exec(then)
                } else if let Some(els) = els {
                    self.exec(els)
                } else {
                    Ok(Flow::Normal)
                }
            }
            StmtKind::While { cond, body } => {
                let mut iterations = 0;
                while {
                    self.loop_test_point(s, iterations)?;
                    self.eval(cond)?.truthy()
                } {
                    self.count_iteration(&mut iterations, s.span)?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::DoWhile { body, cond } => {
                let mut iterations = 0;
                loop {
                    self.count_iteration(&mut iterations, s.span)?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                    self.loop_test_point(s, iterations)?;
                    if !self.eval(cond)?.truthy() {
                        break;
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::For { init, cond, step, body } => {
                for st in init {
                    self.exec(st)?;
                }
                let mut iterations = 0;
                loop {
                    self.loop_test_point(s, iterations)?;
                    if let Some(c) = cond
                        && !self.eval(c)?.truthy()
                    {
                        break;
                    }
                    self.count_iteration(&mut iterations, s.span)?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                    if let Some(st) = step {
                        self.eval_discard(st)?;
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Switch { cond, arms } => {
                let v = self.eval(cond)?.i();
                let start = arms
                    .iter()
                    .position(|a| a.label == Some(v))
                    .or_else(|| arms.iter().position(|a| a.label.is_none()));
                if let Some(start) = start {
                    for arm in &arms[start..] {
                        for st in &arm.body {
                            match self.exec(st)? {
                                Flow::Normal => {}
                                Flow::Break => return Ok(Flow::Normal),
                                other => return Ok(other),
                            }
                        }
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Return(None) => Ok(Flow::Return(Val::U)),
            StmtKind::Return(Some(e)) => {
                let v = self.eval(e)?;
                let v = match self.cur_func.map(|f| &self.prog.func(f).ret) {
                    Some(ret) if ret.is_arithmetic() && *ret != e.ty => convert(v, &e.ty, ret),
                    _ => v,
                };
                Ok(Flow::Return(v))
            }
            StmtKind::Decl { var, init } => {
                let info = self.vars[var.0 as usize];
                if info.global {
                    // Static locals are initialised once, before the run.
                    return Ok(Flow::Normal);
                }
                match init {
                    Some(init) => {
                        let mark = self.temps.len();
                        self.init_var(*var, init)?;
                        self.release_temps(mark);
                    }
                    None => {
                        if info.addressable {
                            let p = self.var_addr(*var, s.span)?;
                            let size = self.prog.size_of(&self.prog.var(*var).ty);
                            let _ = self.mem.uninit(p, size);
                        } else {
                            *self.slot(info) = Val::U;
                        }
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::VlaDecl { var, len, row } => {
                let v = self.prog.var(*var);
                let mut elem = v.ty.pointee().cloned().unwrap_or(Type::CHAR);
                let count = |this: &mut Self, len: &'p Expr| -> R<u64> {
                    let n = this.eval(len)?;
                    let n = convert(n, &len.ty, &Type::Int(IntType::LONG)).i();
                    if n < 0 {
                        return err(
                            K::OutOfBounds,
                            len.span,
                            format!("the array `{}` is declared with a negative length ({n})", v.name),
                        );
                    }
                    Ok(n as u64)
                };
                let mut n = count(self, len)?;
                if let Some((per_var, per)) = row {
                    // `int a[n][m]`: `m` first, kept for the rows' starts, then `n` rows of it.
                    let m = count(self, per)?;
                    let info = self.vars[per_var.0 as usize];
                    *self.slot(info) = Val::I(m as i64);
                    n = n.saturating_mul(m);
                    elem = elem.pointee().cloned().unwrap_or(Type::CHAR);
                }
                let size = n.saturating_mul(self.prog.size_of(&elem));
                let info = self.vars[var.0 as usize];
                // A re-executed declaration (in a loop) replaces the previous array.
                if let Val::I(old) = *self.slot(info) {
                    let id = memory::block_of(old);
                    if let Some(pos) = self.frame_blocks.iter().rposition(|&b| b == id) {
                        self.frame_blocks.remove(pos);
                        self.mem.release(id);
                    }
                }
                let b = self.alloc(size, BlockKind::Stack, &v.name, false, s.span)?;
                self.frame_blocks.push(b);
                *self.slot(info) = Val::I(memory::ptr(b, 0));
                Ok(Flow::Normal)
            }
            StmtKind::Empty => Ok(Flow::Normal),
        }
    }

    fn release_temps(&mut self, mark: usize) {
        if self.temps.len() > mark {
            for b in self.temps.drain(mark..) {
                self.mem.release(b);
            }
        }
    }

    fn init_var(&mut self, var: VarId, init: &'p Init) -> R<()> {
        let info = self.vars[var.0 as usize];
        let v = self.prog.var(var);
        if !info.addressable {
            let e = match init {
                Init::Expr(e) => e,
                Init::List(items, _) => match first_expr(items) {
                    Some(e) => e,
                    None => {
                        *self.slot(info) = self.zero_val(&v.ty);
                        return Ok(());
                    }
                },
            };
            let x = self.eval(e)?;
            *self.slot(info) = if e.ty != v.ty && e.ty.is_arithmetic() { convert(x, &e.ty, &v.ty) } else { x };
            return Ok(());
        }
        let p = self.var_addr(var, v.span)?;
        let size = self.prog.size_of(&v.ty);
        let ev = Expr::new(ExprKind::Var(var), v.ty.clone(), v.span);
        match init {
            Init::Expr(e) if v.ty.is_scalar() => {
                let x = self.eval(e)?;
                let x = if e.ty != v.ty && e.ty.is_arithmetic() { convert(x, &e.ty, &v.ty) } else { x };
                self.store_mem(p, &v.ty, x, &ev)
            }
            _ => {
                self.mem.zero(p, size).map_err(|f| self.fault(f, &ev, true))?;
                let ty = v.ty.clone();
                match init {
                    Init::List(items, _) => {
                        let mut it = items.iter().peekable();
                        self.init_list(p, &ty, &mut it, &ev)
                    }
                    Init::Expr(e) => self.init_one(p, &ty, e, &ev),
                }
            }
        }
    }

    /// Initialises the object of type `ty` at `p` from a single expression (a string literal
    /// for a char array, a struct value, or a scalar).
    fn init_one(&mut self, p: i64, ty: &Type, e: &'p Expr, ev: &Expr) -> R<()> {
        if let (Type::Array(elem, n), ExprKind::Str(bytes)) = (ty, &e.strip_implicit().kind)
            && elem.is_integer()
        {
            let cap = n.unwrap_or(bytes.len() as u64 + 1).min(self.mem.block_size(memory::block_of(p)));
            for (i, &c) in bytes.iter().chain(std::iter::once(&0u8)).enumerate() {
                if i as u64 >= cap {
                    break;
                }
                self.mem.store_byte(memory::ptr_add(p, i as i64), c).map_err(|f| self.fault(f, ev, true))?;
            }
            return Ok(());
        }
        let x = self.eval(e)?;
        let x = if e.ty != *ty && e.ty.is_arithmetic() && ty.is_arithmetic() { convert(x, &e.ty, ty) } else { x };
        self.store_mem(p, ty, x, ev)
    }

    /// C initialiser lists with brace elision: consumes items from `it` for the aggregate `ty`.
    fn init_list(
        &mut self,
        p: i64,
        ty: &Type,
        it: &mut std::iter::Peekable<std::slice::Iter<'p, Init>>,
        ev: &Expr,
    ) -> R<()> {
        let prog = self.prog;
        let members: Vec<(Type, u64)> = match ty {
            Type::Array(elem, n) => {
                let es = prog.size_of(elem);
                let n = n.unwrap_or_else(|| self.mem.block_size(memory::block_of(p)).checked_div(es).unwrap_or(0));
                (0..n).map(|i| ((**elem).clone(), i * es)).collect()
            }
            Type::Struct(id) => prog.struct_def(*id).fields.iter().map(|f| (f.ty.clone(), f.offset)).collect(),
            _ => {
                if let Some(item) = it.next() {
                    match item {
                        Init::Expr(e) => self.init_one(p, ty, e, ev)?,
                        Init::List(inner, _) => {
                            let mut sub = inner.iter().peekable();
                            self.init_list(p, ty, &mut sub, ev)?
                        }
                    }
                }
                return Ok(());
            }
        };
        for (mty, off) in members {
            let Some(item) = it.peek() else { break };
            let q = memory::ptr_add(p, off as i64);
            match item {
                Init::List(inner, _) => {
                    it.next();
                    let mut sub = inner.iter().peekable();
                    if mty.is_scalar() {
                        if let Some(Init::Expr(e)) = sub.next() {
                            self.init_one(q, &mty, e, ev)?;
                        }
                    } else {
                        self.init_list(q, &mty, &mut sub, ev)?;
                    }
                }
                Init::Expr(e) => {
                    let is_str_for_array =
                        matches!(mty, Type::Array(..)) && matches!(e.strip_implicit().kind, ExprKind::Str(_));
                    let same_struct = matches!(mty, Type::Struct(_)) && e.ty == mty;
                    if mty.is_scalar() || is_str_for_array || same_struct {
                        it.next();
                        self.init_one(q, &mty, e, ev)?;
                    } else {
                        // Brace elision: the aggregate member takes items from the same list.
                        self.init_list(q, &mty, it, ev)?;
                    }
                }
            }
        }
        Ok(())
    }

    // ----- helpers for builtins -----

    /// Reads a NUL-terminated string at `p` (without the NUL), at most `max` bytes.
    pub fn read_cstr(&self, p: i64, max: usize, e: &Expr) -> R<Vec<u8>> {
        let mut out = Vec::new();
        let mut q = p;
        while out.len() < max {
            let c = self.mem.load_byte(q).map_err(|f| self.fault(f, e, false))?;
            if c == 0 {
                break;
            }
            out.push(c);
            q = memory::ptr_add(q, 1);
        }
        Ok(out)
    }
}

fn describe(b: &memory::Block) -> String {
    match b.kind {
        BlockKind::Heap => match b.data.len() {
            1 => format!("{} (1 byte)", b.name),
            n => format!("{} ({n} bytes)", b.name),
        },
        BlockKind::Literal => "a string literal".into(),
        BlockKind::Temp => "a temporary".into(),
        _ => format!("`{}`", b.name),
    }
}

fn first_expr(items: &[Init]) -> Option<&Expr> {
    match items.first()? {
        Init::Expr(e) => Some(e),
        Init::List(inner, _) => first_expr(inner),
    }
}

fn find_decl_init(s: Option<&Stmt>, var: VarId) -> Option<&Init> {
    let s = s?;
    match &s.kind {
        StmtKind::Decl { var: v, init } if *v == var => init.as_ref(),
        StmtKind::Block(ss) => ss.iter().find_map(|s| find_decl_init(Some(s), var)),
        StmtKind::If { then, els, .. } => {
            find_decl_init(Some(then), var).or_else(|| els.as_deref().and_then(|e| find_decl_init(Some(e), var)))
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => find_decl_init(Some(body), var),
        StmtKind::For { init, body, .. } => {
            init.iter().find_map(|s| find_decl_init(Some(s), var)).or_else(|| find_decl_init(Some(body), var))
        }
        StmtKind::Switch { arms, .. } => {
            arms.iter().flat_map(|a| a.body.iter()).find_map(|s| find_decl_init(Some(s), var))
        }
        _ => None,
    }
}

#[inline]
fn cmp<T: PartialOrd>(op: BinOp, a: T, b: T) -> bool {
    match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        BinOp::Eq => a == b,
        _ => a != b,
    }
}

#[inline]
fn shift_count(t: &IntType, b: i64) -> u32 {
    if t.bits() == 64 { (b & 63) as u32 } else { (b & 31) as u32 }
}

/// An index value as a signed 64-bit offset (unsigned 64-bit indexes wrap, as on x86-64).
#[inline]
fn int_index(v: Val, _ty: &Type) -> i64 {
    v.i()
}

#[inline]
pub fn round_to(k: FloatKind, f: f64) -> f64 {
    match k {
        FloatKind::Float => f as f32 as f64,
        FloatKind::Double => f,
    }
}

/// C conversion of `v` from `from` to `to`, as gcc does on x86-64.
#[inline]
pub fn convert(v: Val, from: &Type, to: &Type) -> Val {
    if let Val::U = v {
        return v;
    }
    match to {
        Type::Int(t) => match from {
            Type::Float(_) => Val::I(float_to_int(v.f(), *t)),
            _ => Val::I(t.wrap(v.i())),
        },
        Type::Float(k) => match from {
            Type::Int(ft) => {
                let x = v.i();
                let unsigned64 = ft.bits() == 64 && !ft.signed;
                Val::F(match k {
                    FloatKind::Float => {
                        if unsigned64 {
                            (x as u64) as f32 as f64
                        } else {
                            x as f32 as f64
                        }
                    }
                    FloatKind::Double => {
                        if unsigned64 {
                            (x as u64) as f64
                        } else {
                            x as f64
                        }
                    }
                })
            }
            Type::Float(_) => Val::F(round_to(*k, v.f())),
            _ => Val::F(v.i() as f64),
        },
        Type::Void => Val::I(0),
        _ => match v {
            Val::F(f) => Val::I(f as i64),
            v => v,
        },
    }
}

/// Truncation toward zero; out-of-range values give what x86's `cvttsd2si` gives.
pub fn float_to_int(f: f64, t: IntType) -> i64 {
    if t.kind == IntKind::Bool {
        return (f != 0.0) as i64;
    }
    let cvt64 = |f: f64| -> i64 {
        if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
            i64::MIN
        } else {
            f as i64
        }
    };
    let cvt32 = |f: f64| -> i64 {
        if f.is_nan() || f >= 2147483648.0 || f <= -2147483649.0 { i32::MIN as i64 } else { f as i64 }
    };
    match (t.bits(), t.signed) {
        (64, true) => cvt64(f),
        (64, false) => {
            if f >= 9.223_372_036_854_776e18 {
                (cvt64(f - 9.223_372_036_854_776e18) as u64 ^ (1u64 << 63)) as i64
            } else {
                cvt64(f)
            }
        }
        (32, false) => t.wrap(cvt64(f)),
        // int, short and char go through a 32-bit conversion.
        _ => t.wrap(cvt32(f)),
    }
}
