//! The translation unit of AllRepair (Rothenberg & Grumberg, FM 2016, §3.1) for the typed IR:
//! a bounded program becomes Z3 constraints whose conjunction is satisfiable iff some b-run
//! violates a specification.
//!
//! # Steps
//! * **Simplification.** Every original expression occurrence that is the right-hand side of an
//!   assignment, a condition, a returned value or a call argument is a [`Location`]; its value
//!   is defined by one constraint `x == encode(e)` (conditions define guard booleans).
//! * **Unwinding.** Loops are unwound `bound` times; at the innermost copy the loop condition
//!   becomes an *unwinding assumption* (runs longer than the bound are cut, not bugs) and its
//!   reachability is recorded in [`Encoding::unwinding`] for the separate unwinding check.
//!   A loop whose condition is decided by the values alone (a count known without the input)
//!   runs past the bound to its end, up to [`exec::MAX_ITERATIONS_PAST_BOUND`] iterations.
//!   Calls are inlined; at most `bound` copies of one function may be active at once (deeper
//!   calls are cut the same way).
//! * **SSA.** Each assignment defines a fresh constant; at joins, Φ-assignments
//!   `x_k == ite(g1, x_i, x_j)` (hard constraints).
//!
//! # Semantics (gcc on x86-64, like the interpreter)
//! * Integers of every width are bit-vectors through [`crate::smt::c_int`]. **Signed overflow
//!   wraps** (as `gcc -fwrapv`, and as the interpreter): it is not a violation. Shift amounts are
//!   masked to the promoted width as x86 does (again as the interpreter).
//! * `float`/`double` are Z3 IEEE floating point (`Float32`/`Float64`), round-to-nearest-even;
//!   `+ - * /`, comparisons, negation, `fabs` and all int↔float↔float conversions are exact
//!   IEEE semantics. Float division by zero is not a violation (it gives inf/NaN). Float inputs
//!   are assumed finite.
//! * Fixed-size arrays (1-D, 2-D) and address-taken scalars are *objects*: Z3 arrays from a
//!   64-bit index to the element sort, indexed in flat scalar units; a pointer is (object id,
//!   offset). Every access is bounds-checked against its whole object (as the interpreter
//!   does): an access outside is a violation. Array elements without an initialiser are
//!   arbitrary; their reads are not tracked as uninitialised.
//! * Specification: `assert(e)` false, `reach_error()` reached, integer division or remainder by
//!   zero, out-of-bounds access are violations; after a check the path continues only where it
//!   passed, so the first violation of a run is the one reported. `assume(e)` (and the
//!   `__VERIFIER_`/`__CPROVER_` forms) strengthens the path guard. `nondet_*()` are fresh
//!   inputs. `exit()` ends the path (not a violation).
//! * I/O: `scanf` reads fresh symbolic values (recorded in [`Encoding::inputs`] with their C
//!   types and path guards); **every read is assumed to succeed**, so `scanf` returns the number
//!   of assigned directives. `%c` is supported only after whitespace in the format (`" %c"`) and
//!   reads a printable non-space character; `%s` reads a word of printable non-space characters
//!   of any length from 1 up to the room left in its array (a word that fills the array makes the
//!   terminating NUL an out-of-bounds write). Strings are modelled up to `max(32, bound + 1)`
//!   characters: a longer word, or a `strlen`/`strcmp`/`%s` scan finding no NUL within the cap,
//!   is cut like a loop beyond the bound (an unwinding point, so the result is at best
//!   `bounded`); `%[` is unsupported. `strlen` and `strcmp` read
//!   up to the NUL (bounds-checked); `floor`, `ceil`, `round`, `sqrt`, `fabs`, `abs` are exact. `printf`, `putchar` and
//!   `puts` append to [`Encoding::output`]; `printf`'s return value is an unconstrained `int`.
//! * An uninitialised scalar local holds a fresh arbitrary value; each reachable read of a
//!   possibly uninitialised scalar is recorded in [`Encoding::uninit_reads`].
//!
//! * `fgets(buf, n, stdin)` and `gets(buf)` read a whole line of text (printable characters
//!   and white space but the line break) when the stream is at the start of a line (nothing read yet, or after another
//!   line read); a line too long for `fgets` (it would be split) is cut as an unwinding point,
//!   so `fgets` programs are at best `bounded`; `gets` of a line that fills the array overflows.
//!
//! * **Characters.** A program that reads with `getchar` or `scanf` of `%c` directives only
//!   ([`reads_chars`]) reads a sequence of bytes instead of tokens ([`CharInput`]): an input
//!   of symbolic length `input!len` whose bytes are ASCII text (printable characters and C's
//!   white space: space, `\t`, `\n`, `\v`, `\f`, `\r`; no other byte is modelled);
//!   the `k`-th read takes the byte at the number of bytes read before it, or finds the end
//!   (`getchar` returns -1, `scanf` stops and returns `EOF` or what it assigned). `fgets` in
//!   such a program reads from the same bytes, up to and with the '\n', and returns `NULL` at
//!   the end. The bytes are not namespaced, so a product's two programs read the same input
//!   with no link between them. A program that reads characters and values, and both
//!   programs of a product where either reads characters, read the values from the same
//!   bytes as glibc's `scanf` does (`%d`, `%u`, `%s`, `%[...]`, `%c`, spaces and literal text; more
//!   than a few spaces in a row, a number of more than 10 digits or a word longer than the
//!   string cap are cut like loops), where the verified engine's stream model refuses them.
//!
//! Anything else (pointer casts, `fgets`/`gets` after `scanf`, `gets` beside `getchar`,
//! `pow`/`log`/`exp`, ` %c` mixed with `getchar`, VLAs, writes that may hit a string literal,
//! unwindings beyond [`exec::MAX_STMTS`] statement copies, ...) makes [`encode`] return
//! [`Unsupported`]: engines skip the function.
//!
//! # Use by a mutation-repair engine (AllRepair §3.3–4)
//! ```ignore
//! let opts = EncodeOptions { bound, frozen: Some(&frozen), alternatives: Some(&mutations), ..EncodeOptions::new(bound) };
//! let enc = encode(&ctx, &program, "main", &opts)?;      // one context per job
//! let s = z3::Solver::new(&ctx);
//! enc.assert_into(&s);                                     // hard ∧ (sel → soft)
//! s.assert(&enc.any_violation());
//! // For each candidate selection vector: unsat = b-correct; sat = a counterexample
//! // (`bmc::counterexample(&enc, &s.get_model().unwrap())`, then `bmc::replay`).
//! let verdict = check_with_budget(&s, &enc.choose(&[(loc, k)]), &budget);
//! ```
//! Only locations the encoding reached and for which the provider gave alternatives have
//! selectors ([`Encoding::selectors`]); all unwound and inlined copies of a location share them,
//! so their number does not depend on the bound. Note: Z3 answers checks *with assumptions*
//! with its incremental core, which is much slower on bit-vector multiplication and division
//! than the bit-blasting tactic `bmc::verify` gets by asserting everything and checking
//! without assumptions (30 s vs 3 s on `fixtures/bmc/student_avg.c`).

pub mod exec;

use std::collections::{BTreeMap, HashMap, HashSet};

use z3::Context;
use z3::ast::{Ast, BV, Bool, Dynamic};

use crate::ir::ExprId;
use crate::ir::{Builtin, Callee, Cuts, Expr, ExprKind, FuncId, Init, IntType, Program, Span, Stmt, StmtKind, Type};
use crate::smt::floats::FloatModel;

pub use exec::SymVal;
pub(crate) use exec::uses_floats;

/// One original expression occurrence subject to repair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocationId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocationKind {
    /// Right-hand side of `x = e`; the whole `x op= e` (its operator is part of the place:
    /// `/=` for `%=` is a slip like `/` for `%`), but for a pointer, whose right side only.
    Assign,
    /// Initialiser of a declaration (each scalar of an initialiser list).
    Init,
    /// Condition of `if`, `while`, `do`, `for`, or a `switch` scrutinee.
    Condition,
    /// `return e`.
    Return,
    /// An argument of a call to a user function, or a value argument of `printf`/`putchar`.
    Arg,
    /// A statement-level `x++`/`x--`/`++x`/`--x` (the whole expression).
    Update,
    /// The pointer whose field an assignment writes (`p` in `p->next = q`); only in programs
    /// with structs, which the encoding does not model: checked by running the tests.
    Target,
    /// A whole statement, moved, deleted or inserted (`engines::mutation::statements`); never
    /// encoded, checked by running the tests.
    Statement,
}

#[derive(Clone, Debug)]
pub struct Location {
    pub id: LocationId,
    pub func: FuncId,
    pub span: Span,
    /// The original IR expression.
    pub expr: Expr,
    pub kind: LocationKind,
}

/// Locations of every non-frozen function with a body, in a deterministic pre-order (functions
/// in program order, statements in source order, no location nested in another).
pub fn locations(program: &Program, frozen: &HashSet<String>) -> Vec<Location> {
    let mut out = Vec::new();
    for_each_location(program, frozen, &mut |func, e, kind| {
        out.push(Location { id: LocationId(out.len() as u32), func, span: e.span, expr: e.clone(), kind });
    });
    out
}

pub(crate) fn location_map(program: &Program, frozen: &HashSet<String>) -> HashMap<ExprId, LocationId> {
    let mut m = HashMap::new();
    for_each_location(program, frozen, &mut |_, e, _| {
        let id = LocationId(m.len() as u32);
        m.insert(e.id, id);
    });
    m
}

fn for_each_location<'p>(p: &'p Program, frozen: &HashSet<String>, f: &mut dyn FnMut(FuncId, &'p Expr, LocationKind)) {
    for (i, func) in p.funcs.iter().enumerate() {
        if frozen.contains(&func.name) {
            continue;
        }
        if let Some(body) = &func.body {
            loc_stmt(p, FuncId(i as u32), body, f);
        }
    }
}

fn loc_stmt<'p>(p: &Program, fid: FuncId, s: &'p Stmt, f: &mut dyn FnMut(FuncId, &'p Expr, LocationKind)) {
    match &s.kind {
        StmtKind::Expr(e) => loc_top(fid, e, f),
        // A parameter's hidden row length (`ExprKind::Row`) is not a place to repair.
        StmtKind::Decl { var, .. } if p.var(*var).hidden() => {}
        StmtKind::Decl { init: Some(init), .. } => loc_init(fid, init, f),
        StmtKind::If { cond, then, els } => {
            f(fid, cond, LocationKind::Condition);
            loc_stmt(p, fid, then, f);
            if let Some(e) = els {
                loc_stmt(p, fid, e, f);
            }
        }
        StmtKind::While { cond, body } => {
            f(fid, cond, LocationKind::Condition);
            loc_stmt(p, fid, body, f);
        }
        StmtKind::DoWhile { body, cond } => {
            loc_stmt(p, fid, body, f);
            f(fid, cond, LocationKind::Condition);
        }
        StmtKind::For { init, cond, step, body } => {
            init.iter().for_each(|s| loc_stmt(p, fid, s, f));
            if let Some(c) = cond {
                f(fid, c, LocationKind::Condition);
            }
            if let Some(s) = step {
                loc_top(fid, s, f);
            }
            loc_stmt(p, fid, body, f);
        }
        StmtKind::Switch { cond, arms } => {
            f(fid, cond, LocationKind::Condition);
            arms.iter().flat_map(|a| a.body.iter()).for_each(|s| loc_stmt(p, fid, s, f));
        }
        StmtKind::Return(Some(e)) => f(fid, e, LocationKind::Return),
        StmtKind::Block(b) => b.iter().for_each(|s| loc_stmt(p, fid, s, f)),
        _ => {}
    }
}

fn loc_init<'p>(fid: FuncId, init: &'p Init, f: &mut dyn FnMut(FuncId, &'p Expr, LocationKind)) {
    match init {
        Init::Expr(e) => {
            if !matches!(e.strip_implicit().kind, ExprKind::Str(_)) {
                f(fid, e, LocationKind::Init)
            }
        }
        Init::List(items, _) => items.iter().for_each(|i| loc_init(fid, i, f)),
    }
}

fn loc_top<'p>(fid: FuncId, e: &'p Expr, f: &mut dyn FnMut(FuncId, &'p Expr, LocationKind)) {
    match &e.kind {
        ExprKind::Assign(l, r) => {
            // `p->next = q`: which node is written is a location too (the wrong-link slip).
            if let ExprKind::Member { base, arrow: true, .. } = &l.kind
                && matches!(&base.ty, Type::Pointer(to) if matches!(**to, Type::Struct(_)))
            {
                f(fid, base, LocationKind::Target);
            }
            f(fid, r, LocationKind::Assign)
        }
        // A pointer's alternatives are not encoded (`eval_loc`), so a pointer's `p += k`
        // keeps its right side as the place.
        ExprKind::CompoundAssign { lhs, rhs, .. } if lhs.ty.is_pointer() => f(fid, rhs, LocationKind::Assign),
        ExprKind::CompoundAssign { .. } => f(fid, e, LocationKind::Assign),
        ExprKind::IncDec(..) => f(fid, e, LocationKind::Update),
        ExprKind::Comma(a, b) => {
            loc_top(fid, a, f);
            loc_top(fid, b, f);
        }
        ExprKind::Call(callee, args) => loc_args(fid, callee, args, f),
        ExprKind::Cast { expr, .. } => loc_top(fid, expr, f),
        _ => {}
    }
}

fn loc_args<'p>(fid: FuncId, callee: &Callee, args: &'p [Expr], f: &mut dyn FnMut(FuncId, &'p Expr, LocationKind)) {
    let skip = match callee {
        Callee::Func(_) => 0,
        Callee::Builtin(Builtin::Printf) => 1,
        Callee::Builtin(Builtin::Putchar) => 0,
        Callee::Builtin(_) => return,
    };
    for a in &args[skip.min(args.len())..] {
        f(fid, a, LocationKind::Arg);
    }
}

/// Alternatives per location (k = 1.. in the encoding; k = 0 is always the original). Each
/// alternative must have the original's type.
pub type AltProvider<'a> = &'a dyn Fn(LocationId, &Expr) -> Vec<Expr>;

#[derive(Clone, Copy)]
pub struct EncodeOptions<'a> {
    /// Loop unwinding depth and the maximal number of active copies of a function.
    pub bound: u32,
    /// Functions that get no locations (and thus no alternatives).
    pub frozen: Option<&'a HashSet<String>>,
    pub alternatives: Option<AltProvider<'a>>,
    /// Prefix of every constant's name, so two programs can share one context (a product).
    pub namespace: &'a str,
    /// Model the end of the input: a `scanf` read succeeds only while tokens are left, and
    /// `scanf` returns how many it read, or `EOF`. On for a program that asks `scanf` whether
    /// it read (see [`input_ends`]); a product turns it on for both programs if one asks.
    pub input_ends: bool,
    /// Read the input as characters ([`CharInput`]): on for a program that [`reads_chars`]; a
    /// product turns it on for both programs if one does.
    pub chars: bool,
    /// A product compares only the inputs on which the reference prints no NaN: the solver's
    /// floats have one NaN with no sign, so two printed NaNs are never known to print alike
    /// (`nan` or `-nan`). The guarantee of such a proof names the assumption.
    pub reference_prints_no_nan: bool,
    /// The model of `float` and `double` ([`FloatModel`]): IEEE, or IEEE's bits with the
    /// rounding operations uninterpreted (a proof only: a model of it may not be a run).
    pub floats: FloatModel,
    /// A program that reads characters gets an input that holds a '\n' (the line
    /// assumption): on when the assignment promises a line, as every test's input shows; off
    /// when some test's input ends without one, where a loop waiting for the '\n' never ends.
    pub line_in_input: bool,
    /// Bytes the input text holds none of (bit `b` for byte `b`): a proof under a
    /// conjecture about the kinds of character the input holds
    /// ([`crate::engines::verified::precondition::TextConjecture`]), named in its label.
    pub absent_chars: u128,
    /// No floating-point number read is `-0`: a proof under a conjecture that the input holds
    /// none, as no test does ([`crate::engines::verified::precondition::SignedZeroConjecture`]),
    /// named in its label.
    pub no_negative_zero: bool,
    /// The input has at least this many lines (a line: text up to a '\n', or the text after
    /// the last one): a proof under a conjecture that it has as many as every test's
    /// ([`crate::engines::verified::precondition::LinesConjecture`]), named in its label. Only
    /// where the input is read as characters.
    pub min_lines: u32,
    /// The input has at most this many lines: a proof under the same conjecture, narrowed by
    /// a counterexample with more lines than every test's.
    pub max_lines: Option<u32>,
    /// The job's budget: building the formula stops when it runs out or is cancelled
    /// ([`Unsupported::ran_out_of_time`]). A program whose terms grow with every unwound
    /// statement (a recursive call inserted in a nested loop) otherwise keeps its thread in
    /// Z3's simplifier long after the job gave up on it.
    pub budget: Option<&'a crate::smt::Budget>,
}

impl<'a> EncodeOptions<'a> {
    pub fn new(bound: u32) -> Self {
        EncodeOptions {
            bound,
            frozen: None,
            alternatives: None,
            namespace: "",
            input_ends: false,
            chars: false,
            reference_prints_no_nan: false,
            floats: FloatModel::Ieee,
            line_in_input: true,
            absent_chars: 0,
            no_negative_zero: false,
            min_lines: 0,
            max_lines: None,
            budget: None,
        }
    }
}

/// A construct the verifier does not model; the engines skip such a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The function it occurs in, when known.
    pub func: Option<String>,
    pub what: String,
    pub span: Span,
}

/// What [`Unsupported::what`] says when the formula was not finished in the budget.
const OUT_OF_TIME: &str = "a formula not finished in the time budget";

impl Unsupported {
    /// The encoding stopped at the budget's end (or its cancellation), not at a construct.
    pub fn ran_out_of_time(&self) -> bool {
        self.what == OUT_OF_TIME
    }
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unsupported by the verifier: {}", self.what)?;
        if let Some(func) = &self.func {
            write!(f, " (in `{func}`)")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    Assertion,
    ReachError,
    DivisionByZero,
    OutOfBounds,
    NullDereference,
    UseAfterFree,
    /// `free` of a pointer that is not the start of a live block from malloc.
    InvalidFree,
    /// In a product program: the values printed differ from the reference's.
    OutputMismatch,
}

impl ViolationKind {
    pub fn describe(self) -> &'static str {
        match self {
            ViolationKind::Assertion => "assertion can fail",
            ViolationKind::ReachError => "`reach_error()` is reachable",
            ViolationKind::DivisionByZero => "division by zero",
            ViolationKind::OutOfBounds => "out-of-bounds array access",
            ViolationKind::NullDereference => "a null pointer is dereferenced",
            ViolationKind::UseAfterFree => "freed memory is used",
            ViolationKind::InvalidFree => "`free` of a pointer that did not come from malloc, or freed twice",
            ViolationKind::OutputMismatch => "the output differs from the reference's",
        }
    }
}

/// A specification check: `cond` holds iff the run reaches the check and fails it.
#[derive(Clone, Debug)]
pub struct Violation<'ctx> {
    pub kind: ViolationKind,
    pub span: Span,
    pub cond: Bool<'ctx>,
}

/// The innermost copy of a loop (or a too-deep call): `cond` holds iff a run would go beyond
/// the bound there.
#[derive(Clone, Debug)]
pub struct UnwindPoint<'ctx> {
    pub span: Span,
    pub cond: Bool<'ctx>,
    /// The input piece a run beyond it would go past ([`Cuts::default`] for a loop or a call:
    /// the bound itself), which a bounded proof's guarantee names.
    pub cuts: Cuts,
}

/// A branch decision: where `guard` holds, the run took the `then` side iff `taken`.
#[derive(Clone, Debug)]
pub struct Branch<'ctx> {
    pub span: Span,
    pub guard: Bool<'ctx>,
    pub taken: Bool<'ctx>,
    pub what: BranchKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    If,
    Loop,
    Switch,
}

#[derive(Clone, Debug)]
pub enum InputSource {
    /// The `index`-th directive of a `scanf` call (the call is [`Encoding::input_calls`]).
    Scanf {
        call: usize,
    },
    Nondet,
    /// A whole line (`fgets`, `gets`); `string` holds it without its '\n'.
    Line,
    /// Characters of [`Encoding::chars`] (`getchar`, `%c`, `fgets` in the character model):
    /// the read's value is the byte, or -1 at the end; its stdin text is the bytes'.
    Chars,
}

/// One value read from the input, in encoding order (which, along any one path, is execution
/// order).
#[derive(Clone, Debug)]
pub struct InputRead<'ctx> {
    /// Position among the encoding's inputs and outputs (along a path, execution order).
    pub seq: u64,
    /// What receives the value (`x`, `a[i]`) or the nondet call's text.
    pub name: String,
    pub ty: Type,
    pub value: SymVal<'ctx>,
    /// The read happens iff this holds.
    pub guard: Bool<'ctx>,
    pub span: Span,
    pub source: InputSource,
    /// For scanf: the conversion (`d`, `u`, `x`, `f`, `c`, `s`, ...).
    pub conv: char,
    /// For `%s`: the word read (`value` is then `Void`).
    pub string: Option<StringRead<'ctx>>,
}

/// The line assumption ([`EncodeOptions::line_in_input`], the verified engine's too) in the
/// words of a guarantee: "verified for inputs where there is a line break (as in every test)".
pub const LINE_ASSUMPTION: &str = "there is a line break (as in every test)";

/// The input of a program that reads characters ([`reads_chars`]): `len` bytes of ASCII text
/// (printable characters and C's white space), of which `bytes` are those a
/// run within the bound can read (the `k`-th read of the encoding reads a position of at most
/// `k`). Neither is namespaced: a product's two programs read the same bytes.
#[derive(Clone, Debug)]
pub struct CharInput<'ctx> {
    pub len: BV<'ctx>,
    pub bytes: Vec<BV<'ctx>>,
}

/// A word read by `scanf("%s")` (`len` ≥ 1 printable non-space characters) or a line read by
/// `fgets`/`gets` (`len` ≥ 0 bytes of text but the line break): the first `len` (64-bit)
/// of `chars`.
#[derive(Clone, Debug)]
pub struct StringRead<'ctx> {
    pub len: BV<'ctx>,
    pub chars: Vec<BV<'ctx>>,
}

/// One `scanf` call executed under `guard`: its format and its reads (indices into
/// [`Encoding::inputs`], one per directive, suppressed `%*d` ones included).
#[derive(Clone, Debug)]
pub struct InputCall<'ctx> {
    pub span: Span,
    pub guard: Bool<'ctx>,
    pub format: Vec<u8>,
    pub reads: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum OutValue<'ctx> {
    Int {
        value: BV<'ctx>,
        ty: IntType,
    },
    Float {
        value: Dynamic<'ctx>,
        kind: crate::ir::FloatKind,
    },
    /// A string literal.
    Text(Vec<u8>),
    /// A char array's characters from the pointer on, up to the string cap (print up to the
    /// NUL; on every path that continues there is one among them).
    Chars(Vec<BV<'ctx>>),
}

/// One entry of the output stream model: under `guard`, `format` (printf syntax) is printed
/// with `values` (one per consuming directive).
#[derive(Clone, Debug)]
pub struct OutputEntry<'ctx> {
    /// Position among the encoding's inputs and outputs (along a path, execution order).
    pub seq: u64,
    pub span: Span,
    pub guard: Bool<'ctx>,
    pub format: Vec<u8>,
    pub values: Vec<OutValue<'ctx>>,
}

#[derive(Clone, Debug)]
pub struct UninitRead<'ctx> {
    pub span: Span,
    pub name: String,
    /// Reachable with the variable never assigned.
    pub cond: Bool<'ctx>,
}

/// A soft constraint: `selector → constraint`.
#[derive(Clone, Debug)]
pub struct Soft<'ctx> {
    pub loc: LocationId,
    pub k: usize,
    pub constraint: Bool<'ctx>,
}

#[derive(Clone, Debug, Default)]
pub struct EncodeStats {
    pub hard: usize,
    pub soft: usize,
    pub violations: usize,
    pub unwinding_points: usize,
    pub inlined_calls: usize,
}

/// The constraints of one program at one bound.
pub struct Encoding<'ctx> {
    pub ctx: &'ctx Context,
    pub bound: u32,
    /// SSA definitions without alternatives, Φ-assignments, selector well-formedness.
    pub hard: Vec<Bool<'ctx>>,
    /// Guarded definitions of locations with alternatives (`selectors[loc][k] → c`).
    pub soft: Vec<Soft<'ctx>>,
    /// `selectors[loc][k]`; k = 0 is the original expression. Only locations with alternatives.
    pub selectors: BTreeMap<LocationId, Vec<Bool<'ctx>>>,
    pub violations: Vec<Violation<'ctx>>,
    pub unwinding: Vec<UnwindPoint<'ctx>>,
    pub branches: Vec<Branch<'ctx>>,
    pub inputs: Vec<InputRead<'ctx>>,
    pub input_calls: Vec<InputCall<'ctx>>,
    /// Each `scanf` call's place in the order of inputs and outputs, with the condition that
    /// it counts as a read: it happens and does not return `EOF` (a matching failure does
    /// count, as in the interpreter). In the `values` mode the compared output starts after
    /// the last read, so a prompt before a `scanf` that read nothing is not compared either.
    pub scanf_reads: Vec<(u64, Bool<'ctx>)>,
    /// The input as characters, for a program that [`reads_chars`].
    pub chars: Option<CharInput<'ctx>>,
    /// The line assumption ([`LINE_ASSUMPTION`]) is among `hard`: a proof covers only the
    /// inputs that hold a line break, and its guarantee says so.
    pub line_assumed: bool,
    pub output: Vec<OutputEntry<'ctx>>,
    pub uninit_reads: Vec<UninitRead<'ctx>>,
    /// Where the program's `assume`s reject the run: each one's guard and its condition false.
    /// A reference that rejects an input (a range conjectured of the tests' inputs) puts it
    /// outside the specification, for the student's runtime errors too ([`crate::smt::product`]).
    pub rejects: Vec<Bool<'ctx>>,
    /// The entry's returned value (merged over all returning paths), if it returns one.
    pub return_value: Option<SymVal<'ctx>>,
    /// `exit(code)` calls: (guard, code).
    pub exits: Vec<(Bool<'ctx>, BV<'ctx>)>,
    /// Some run returns from the entry (or calls `exit`) within the bound with every
    /// assumption holding: false in every model means the program is vacuously correct.
    pub completes: Bool<'ctx>,
    /// In a product program: the reference's run ends within the bound while the student's is
    /// cut at the bound. A bounded proof says nothing of such runs, which a student's loop
    /// that never ends makes every run: see [`crate::smt::bmc`].
    pub outlasts: Option<Bool<'ctx>>,
    /// No floating point and no memory objects (arrays): the formula is pure bit-vectors, for
    /// which [`crate::smt::solver::one_shot_solver`] bit-blasts directly.
    pub bit_vectors_only: bool,
    pub stats: EncodeStats,
}

impl<'ctx> Encoding<'ctx> {
    /// What a proof over this encoding assumed about the input, beyond the program's own
    /// assumptions: [`LINE_ASSUMPTION`] or nothing.
    pub fn assumption(&self) -> Option<&'static str> {
        self.line_assumed.then_some(LINE_ASSUMPTION)
    }

    /// Some specification is violated.
    pub fn any_violation(&self) -> Bool<'ctx> {
        let v: Vec<&Bool<'ctx>> = self.violations.iter().map(|v| &v.cond).collect();
        Bool::or(self.ctx, &v)
    }
    /// Every byte of text the input holds is printable or a line break: the input a student
    /// can read, asked for first when a counterexample is shown (a tab or `\v` only where
    /// the difference needs one). `None` when the program reads no text.
    pub fn readable_input(&self) -> Option<Bool<'ctx>> {
        let ctx = self.ctx;
        let lines = self.inputs.iter().filter(|r| r.conv == 'l').filter_map(|r| r.string.as_ref());
        let bytes: Vec<&BV<'ctx>> =
            self.chars.iter().flat_map(|c| c.bytes.iter()).chain(lines.flat_map(|l| l.chars.iter())).collect();
        if bytes.is_empty() {
            return None;
        }
        let readable: Vec<Bool<'ctx>> = bytes
            .iter()
            .map(|b| {
                Bool::or(ctx, &[&crate::smt::scan::printable(ctx, b), &b._eq(&BV::from_u64(ctx, b'\n' as u64, 8))])
            })
            .collect();
        Some(Bool::and(ctx, &readable.iter().collect::<Vec<_>>()))
    }
    /// Some run goes beyond the bound.
    /// The input pieces whose cut some run may reach, the shortest of each kind: what a
    /// bounded proof must name besides the loop bound. `reachable` answers whether a condition
    /// can hold in a run (an unanswered question must count as "it can"); a kind no run cuts
    /// is not named (a program that never meets a long word is not "verified up to 32-character
    /// strings").
    pub fn cuts(&self, mut reachable: impl FnMut(&Bool<'ctx>) -> bool) -> Cuts {
        let kinds: [fn(&Cuts) -> bool; 3] = [|c| c.chars.is_some(), |c| c.digits.is_some(), |c| c.spaces.is_some()];
        let mut cuts = Cuts::default();
        for of_kind in kinds {
            let points: Vec<&UnwindPoint<'ctx>> = self.unwinding.iter().filter(|u| of_kind(&u.cuts)).collect();
            if points.is_empty() {
                continue;
            }
            let conds: Vec<&Bool<'ctx>> = points.iter().map(|u| &u.cond).collect();
            if reachable(&Bool::or(self.ctx, &conds)) {
                cuts = points.iter().fold(cuts, |all, u| all.and(u.cuts));
            }
        }
        cuts
    }

    pub fn any_unwinding(&self) -> Bool<'ctx> {
        let v: Vec<&Bool<'ctx>> = self.unwinding.iter().map(|v| &v.cond).collect();
        Bool::or(self.ctx, &v)
    }
    /// Asserts the hard constraints and every `selector → soft` into `solver`.
    pub fn assert_into(&self, solver: &z3::Solver<'ctx>) {
        for h in &self.hard {
            solver.assert(h);
        }
        for s in &self.soft {
            solver.assert(&self.selectors[&s.loc][s.k].implies(&s.constraint));
        }
    }
    /// Asserts into a fresh `solver` the program with `choice` applied (hard constraints, the
    /// chosen alternatives' definitions, and the selector literals as facts). A check without
    /// assumptions then runs Z3's fast non-incremental tactic: an alternative to
    /// [`Encoding::assert_into`] + [`Encoding::choose`] when checks are few or arithmetic heavy.
    pub fn assert_choice_into(&self, solver: &z3::Solver<'ctx>, choice: &[(LocationId, usize)]) {
        let chosen: HashMap<LocationId, usize> = choice.iter().copied().collect();
        for h in &self.hard {
            solver.assert(h);
        }
        for s in &self.soft {
            if chosen.get(&s.loc).copied().unwrap_or(0) == s.k {
                solver.assert(&s.constraint);
            }
        }
        for lit in self.choose(choice) {
            solver.assert(&lit);
        }
    }

    /// The program with `choice` applied and `goal`, as one formula: the hard constraints, the
    /// chosen alternatives' definitions and `goal`, with every selector replaced by its value
    /// and simplified. Every unchosen alternative (its values, its checks, the calls only it
    /// makes) drops out here, once, over the shared term graph, instead of being handed to the
    /// solver's tactics as a formula of every alternative plus selector facts: at mutation
    /// level 2 the TCAS-like encodings hold ~30,000 guarded checks, and Z3 took longer than the
    /// whole budget (40 s) to propagate the selector facts through them.
    pub fn choice_formula(&self, choice: &[(LocationId, usize)], goal: &Bool<'ctx>) -> Bool<'ctx> {
        let chosen: HashMap<LocationId, usize> = choice.iter().copied().collect();
        let mut parts: Vec<&Bool<'ctx>> = self.hard.iter().collect();
        parts.extend(
            self.soft.iter().filter(|s| chosen.get(&s.loc).copied().unwrap_or(0) == s.k).map(|s| &s.constraint),
        );
        parts.push(goal);
        let whole = Bool::and(self.ctx, &parts);
        let pairs = self.selector_values(choice);
        if pairs.is_empty() {
            return whole;
        }
        let refs: Vec<(&Bool<'ctx>, &Bool<'ctx>)> = pairs.iter().map(|(a, b)| (a, b)).collect();
        // After an interrupted check Z3 stays cancelled and its rewriters return no term (the
        // z3 crate panics): the choice is then stated as facts, which means the same.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| whole.substitute(&refs).simplify())).unwrap_or_else(
            |_| {
                let facts: Vec<Bool<'ctx>> = pairs.iter().map(|(s, v)| s._eq(v)).collect();
                let mut all: Vec<&Bool<'ctx>> = vec![&whole];
                all.extend(facts.iter());
                Bool::and(self.ctx, &all)
            },
        )
    }

    /// Every selector with its value (`true`/`false`) under `choice`.
    pub fn selector_values(&self, choice: &[(LocationId, usize)]) -> Vec<(Bool<'ctx>, Bool<'ctx>)> {
        let chosen: HashMap<LocationId, usize> = choice.iter().copied().collect();
        self.selectors
            .iter()
            .flat_map(|(loc, sels)| {
                let k = chosen.get(loc).copied().unwrap_or(0);
                sels.iter().enumerate().map(move |(i, s)| (s.clone(), Bool::from_bool(self.ctx, i == k)))
            })
            .collect()
    }

    /// Assumption literals choosing alternative `k` at each listed location and the original
    /// (k = 0) everywhere else: exactly one selector true per location.
    pub fn choose(&self, choice: &[(LocationId, usize)]) -> Vec<Bool<'ctx>> {
        let chosen: HashMap<LocationId, usize> = choice.iter().copied().collect();
        let mut out = Vec::new();
        for (loc, sels) in &self.selectors {
            let k = chosen.get(loc).copied().unwrap_or(0);
            for (i, s) in sels.iter().enumerate() {
                out.push(if i == k { s.clone() } else { s.not() });
            }
        }
        out
    }
}

/// What the verified engine's token model says of a program that asks `scanf` whether it
/// read, in a loop: its reads always succeed, so such a loop would never see the input run
/// out. (The bounded encoding models the end of the input instead: [`input_ends`].)
pub const SCANF_VALUE_USED: &str =
    "the value `scanf` returns after reading numbers or words (whether the input ran out is not modelled for them)";

/// Whether `program` asks `scanf` whether it read, in a loop (or in a helper a loop may call,
/// see [`crate::ir::walk::scanf_value_used`]): reading to the end of the input. Its encoding
/// models the end of the input ([`EncodeOptions::input_ends`]); without that, every read
/// would succeed and such a loop would never end in the model.
pub fn input_ends(program: &Program, entry: &str) -> bool {
    program
        .funcs
        .iter()
        .any(|f| f.body.as_ref().and_then(|b| crate::ir::walk::scanf_value_used(b, f.name != entry)).is_some())
}

/// How one input call reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `getchar()`, `fgets` (a line, character by character), `scanf` whose format is only
    /// `%c` directives (each one character), or one that matches literal text.
    Chars,
    /// Any other `scanf`.
    Tokens,
}

/// What a call reads, if it is `scanf` with a literal format, `getchar` or `fgets`.
pub fn read_of(e: &Expr) -> Option<Read> {
    match &e.strip_implicit().kind {
        ExprKind::Call(Callee::Builtin(Builtin::Getchar | Builtin::Fgets), _) => Some(Read::Chars),
        ExprKind::Call(Callee::Builtin(Builtin::Scanf), args) => {
            let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else { return None };
            let pieces = crate::ir::format::parse(fmt, true).ok()?;
            Some(if char_format(&pieces) || matches_text(&pieces) { Read::Chars } else { Read::Tokens })
        }
        _ => None,
    }
}

/// A scanf format that matches literal text in the input (`"%d,%d"`, `"%d:%d"`, `"%d%%"`):
/// the token model has no place for the bytes it must find, so its reads are the character
/// model's, where a byte that does not match stops `scanf` as it stops glibc's.
///
/// Text right after the last conversion, when that conversion reads a number or a word
/// (`"%d%d/n"`, a slip for `"\n"`), is not matched text in the token model: a token ends
/// at white space or the end of the input, so the text's first byte never matches, `scanf`
/// stops there having assigned everything, and nothing is consumed.
fn matches_text(pieces: &[crate::ir::format::Piece]) -> bool {
    use crate::ir::format::Piece;
    let inert_tail = match pieces {
        [.., Piece::Directive(d), Piece::Literal(tail)] => {
            !matches!(d.conv, 'c' | '[' | '%' | 'n') && tail.first().is_some_and(|b| !b.is_ascii_whitespace())
        }
        _ => false,
    };
    let matched = if inert_tail { &pieces[..pieces.len() - 1] } else { pieces };
    matched.iter().any(|p| match p {
        Piece::Literal(bytes) => bytes.iter().any(|b| !b.is_ascii_whitespace()),
        Piece::Directive(d) => d.conv == '%',
    })
}

/// A scanf format that reads single characters only: `%c` directives (width 1 at most), no
/// literal text or whitespace (whitespace in a format skips input whitespace: a token read).
pub fn char_format(pieces: &[crate::ir::format::Piece]) -> bool {
    use crate::ir::format::{Count, Piece};
    !pieces.is_empty()
        && pieces.iter().all(|p| match p {
            Piece::Directive(d) => d.conv == 'c' && matches!(d.width, Count::None | Count::Fixed(1)),
            Piece::Literal(_) => false,
        })
}

/// Whether `program` reads its input as characters ([`CharInput`]): `getchar`, `scanf` of
/// `%c` only, `fgets` beside them or alone. A program that reads characters and values
/// (`scanf("%d")`, `%s`) reads them all from the characters, as `scanf` does. `Err` when it
/// reads characters and `nondet` values (not input text). `fgets` beside values, and `gets`,
/// keep the line model (a line of printable text at the start of a line).
pub fn reads_chars(program: &Program) -> Result<bool, Unsupported> {
    let (mut chars, mut values, mut nondet, mut fgets, mut gets) = (None, false, None, false, false);
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e| match &e.strip_implicit().kind {
            ExprKind::Call(Callee::Builtin(Builtin::Fgets), _) => fgets = true,
            ExprKind::Call(Callee::Builtin(Builtin::Gets), _) => gets = true,
            ExprKind::Call(Callee::Builtin(Builtin::Nondet), _) => {
                nondet.get_or_insert(e.span);
            }
            _ => match read_of(e) {
                Some(Read::Chars) => {
                    chars.get_or_insert(e.span);
                }
                Some(Read::Tokens) => values = true,
                None => {}
            },
        });
    }
    match (chars, nondet) {
        (Some(_), Some(span)) => Err(Unsupported {
            func: None,
            what: "reading characters (`getchar`, `%c`) beside `nondet` values in one program".into(),
            span,
        }),
        (Some(_), None) => Ok(true),
        (None, _) => Ok(fgets && !gets && !values && nondet.is_none()),
    }
}

/// Encodes the b-runs of `entry` (called without arguments).
pub fn encode<'ctx>(
    ctx: &'ctx Context,
    program: &Program,
    entry: &str,
    opts: &EncodeOptions<'_>,
) -> Result<Encoding<'ctx>, Unsupported> {
    let chars = opts.chars || reads_chars(program)?;
    let opts = &EncodeOptions { input_ends: opts.input_ends || input_ends(program, entry), chars, ..*opts };
    let empty = HashSet::new();
    let frozen = opts.frozen.unwrap_or(&empty);
    let loc_of = if opts.alternatives.is_some() { location_map(program, frozen) } else { HashMap::new() };
    exec::run(ctx, program, entry, opts, loc_of)
}

/// A byte of the input's text: printable or C's white space, and none of the bytes of
/// `absent` ([`EncodeOptions::absent_chars`]).
fn text_byte<'ctx>(ctx: &'ctx Context, b: &BV<'ctx>, absent: u128) -> Bool<'ctx> {
    let text = crate::smt::scan::text_byte(ctx, b);
    match admitted(ctx, b, absent) {
        Some(admitted) => Bool::and(ctx, &[&text, &admitted]),
        None => text,
    }
}

/// `b` is none of the bytes of `absent` (bit `b` for byte `b`,
/// [`EncodeOptions::absent_chars`]); `None` when there are none, as without a conjecture.
fn admitted<'ctx>(ctx: &'ctx Context, b: &BV<'ctx>, absent: u128) -> Option<Bool<'ctx>> {
    let out: Vec<Bool<'ctx>> =
        (0..128u64).filter(|&c| absent & (1 << c) != 0).map(|c| b._eq(&BV::from_u64(ctx, c, 8)).not()).collect();
    (!out.is_empty()).then(|| Bool::and(ctx, &out.iter().collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests;
