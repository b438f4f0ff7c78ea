//! The guarded actions of control-flow-automaton edges (Verifix, Sections 3 and 5.1): the code
//! that runs from one automaton node until control reaches the next nodes, executed
//! symbolically from a given pre-state. Branches are merged with `ite` (guarded SSA); each
//! exit records the node it reaches, the path condition under which it does, and the state it
//! reaches it with. All paths from a node to the same target node form *one* edge (their
//! guards are disjoint), so the per-edge formula of the paper is the conjunction over them.
//!
//! * Integers are bit-vectors of their C width (wrapping, as gcc -fwrapv and the interpreter);
//!   a division or remainder by zero (or `INT_MIN / -1`) is a runtime error, recorded with its
//!   guard. Floating point is IEEE (Z3 FP, round to nearest even), exactly as the program
//!   computes it.
//! * Input is one stream shared by the two programs, read one of two ways (never both; see
//!   [`super::stream`]). **Tokens** (`scanf("%d")`, `%lf`, `" %c"`): the value read at token
//!   position `k` as an integer is `in.int(k)`, as a double `in.dbl(k)`, as a char `in.chr(k)`
//!   (uninterpreted functions, so the same position gives both programs the same value; a
//!   token read as an integer by one and as a double by the other is two unrelated values, an
//!   over-approximation that can only make a proof harder); every read succeeds. **Characters**
//!   (`getchar()`, `scanf` of `%c` directives only): the position is a character index (32
//!   bits: inputs are shorter than 4 GiB); below `in.len` a read gives the byte `in.chr(pos)`
//!   and advances; at or past it `getchar` returns -1 and `scanf` stops, leaves its variable
//!   unchanged and returns `EOF` if it assigned nothing (else the count), as glibc. `%c` into an
//!   `int` replaces its low byte only (gcc's layout). Once a character is read the region
//!   assumes the *line assumption* (a `'\n'` at some `in.nl < in.len`); at the nodes of
//!   [`Setup::line`] the pre-state has `pos <= in.nl`, and each edge into such a node must
//!   keep it (the region's `obligations`). A read at a position known to be at most `in.nl`
//!   (the start of the stream at Func-Entry, the pre-state's position at such a node) succeeds
//!   outright, without an `ite` on the old value (which would make the variable look live).
//! * Side effects inside expressions are executed where C executes them: an assignment in a
//!   condition (`(c = getchar()) != EOF`), a read in the right operand of `&&`/`||` only when
//!   that operand runs. A hole's alternative replaces the site's text, side effects included:
//!   when the site has effects (a read in a condition), every alternative runs on its own copy
//!   of the state and the copies are merged by the selector.
//! * `printf` appends tokens to the output (see [`Token`]); `%c` prints the value's low byte,
//!   and `putchar(c)` prints as `printf("%c", c)` (a constant character as literal text).
//!   Whether a print is compared (not a prompt) is decided by the statement's place: a
//!   reference print that replaces a student's prompt stays uncompared.
//! * A call of a user function is an uninterpreted function of its arguments, shared by the
//!   two programs' aligned functions (modular: sound once the callees are proved equivalent);
//!   only pure callees (no I/O, no globals, no pointers) are allowed.
//! * Repair holes: an expression site (a condition, an assignment's right side, a printed
//!   value, a returned value) listed in [`Holes`] evaluates to `ite(sel = k, alt_k, ...)`.
//! * Every value carries the set of pre-state variables it depends on, from which the engine
//!   computes liveness (which variables the alignment predicate must relate at a node).
//!
//! * Local arrays of constant length are Z3 arrays (32-bit index → element); an index outside
//!   the array is a runtime error. `fgets(buf, n, stdin)` reads the character stream as glibc
//!   (at most `n - 1` characters, through the first newline, then `'\0'`; nothing changes at
//!   the end of input), `switch` falls through its arms and `break` leaves it.
//! * `strlen`, `strspn`, `strcspn`, `strcmp`, and `strcpy`/`strcat` as statements, over local
//!   `char` arrays and string literals (`strings.rs`, from the terms the bounded encoder uses).
//!
//! Pointers (other than `&x` in `scanf` and an array passed to `fgets` or a `string.h`
//! function), other strings, structs, other arrays, and `goto` are
//! [`Unsupported`] here; the engines then fall back to bounded repair.

mod arrays;
mod expr;
mod holes;
mod io;
mod state;
mod stmt;
mod strings;

use arrays::*;
use expr::*;
use holes::*;
pub use state::merge_states;
use state::*;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use z3::ast::{Array, Ast, BV, Bool, Dynamic};
use z3::{Context, FuncDecl, Model, Sort};

use crate::ir::ExprId;
use crate::ir::cfa::{EdgeKind, Frame, LoopTree, Node};
use crate::ir::format::{self as cfmt, Piece};
use crate::ir::{
    BinOp, Builtin, Callee, Expr, ExprKind, FloatKind, FuncId, IncDec, Init, IntType, LogicOp, Program, Span, Stmt,
    StmtKind, Type, UnOp, VarId,
};
use crate::spec::compare::Compare;

use super::stream;
use crate::smt::floats::{FloatModel, Floats};
pub use crate::smt::output::Token;
use crate::smt::output::{self, Printer};
use crate::smt::{c_int, c_lib};

pub type Deps = BTreeSet<VarId>;

/// A construct the region encoding does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub what: String,
    pub span: Span,
}

/// The `what` of the error a region run stops with when its budget runs out (or its job is
/// cancelled): long encodings (a 1,000-character `fgets`) poll the budget between steps.
pub const OUT_OF_TIME: &str = "the time budget ran out";

impl Unsupported {
    /// The run stopped because its budget ran out, not because of a construct.
    pub fn is_out_of_time(&self) -> bool {
        self.what == OUT_OF_TIME
    }
}

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(what: impl Into<String>, span: Span) -> R<T> {
    Err(Unsupported { what: what.into(), span })
}

#[derive(Clone, Debug)]
pub enum Term<'ctx> {
    Int(BV<'ctx>, IntType),
    /// A `float` or `double` in the setup's [`FloatModel`] (a Z3 float, or a real).
    Float(Dynamic<'ctx>, FloatKind),
    /// A local array: a Z3 array from 32-bit indices to the elements (only indices below the
    /// length are ever read or written; the rest of it stays what it was).
    Array(Array<'ctx>, IntType, Len<'ctx>),
}

/// An array's length: a constant, or the value a variable-length array's declaration
/// computed (64 bits, signed as C's `long`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Len<'ctx> {
    Fixed(u64),
    Runtime(BV<'ctx>),
}

impl<'ctx> Len<'ctx> {
    pub fn as_bv(&self, ctx: &'ctx Context) -> BV<'ctx> {
        match self {
            Len::Fixed(n) => BV::from_u64(ctx, *n, 64),
            Len::Runtime(n) => n.clone(),
        }
    }
}

impl<'ctx> Term<'ctx> {
    fn same(&self, o: &Term<'ctx>) -> bool {
        match (self, o) {
            (Term::Int(a, _), Term::Int(b, _)) => a == b,
            (Term::Float(a, _), Term::Float(b, _)) => a == b,
            (Term::Array(a, _, n), Term::Array(b, _, m)) => a == b && n == m,
            _ => false,
        }
    }
    pub fn dynamic(&self) -> Dynamic<'ctx> {
        match self {
            Term::Int(b, _) => Dynamic::from_ast(b),
            Term::Float(f, _) => Dynamic::from_ast(f),
            Term::Array(a, _, _) => Dynamic::from_ast(a),
        }
    }
    /// Equality of two values: integers compared after widening to 64 bits, floats as IEEE
    /// values of one kind; `None` when one is an integer and the other a float.
    pub fn equal(&self, o: &Term<'ctx>) -> Option<Bool<'ctx>> {
        match (self, o) {
            (Term::Int(a, ta), Term::Int(b, tb)) => Some(widen(a, *ta)._eq(&widen(b, *tb))),
            (Term::Float(a, _), Term::Float(b, _)) if a.get_sort() == b.get_sort() => Some(a._eq(b)),
            // Arrays of one element type: equal as whole Z3 arrays (the elements past either
            // length included, which both programs leave as they found them), and two
            // variable-length arrays of one length.
            (Term::Array(a, ta, Len::Runtime(n)), Term::Array(b, tb, Len::Runtime(m))) if ta == tb => {
                Some(Bool::and(a.get_ctx(), &[&a._eq(b), &n._eq(m)]))
            }
            (Term::Array(a, ta, _), Term::Array(b, tb, _)) if ta == tb => Some(a._eq(b)),
            _ => None,
        }
    }
}

/// The integer elements a value of type `ty` holds, flattened (an `int` is one, an
/// `int [3][4]` twelve); `None` for other types.
pub(super) fn flat_elements(ty: &Type) -> Option<(IntType, u64)> {
    match ty {
        Type::Int(t) => Some((*t, 1)),
        Type::Array(elem, Some(n)) => flat_elements(elem).map(|(t, per)| (t, per * n)),
        _ => None,
    }
}

/// The integer type of the elements of an array whose elements are `elem`: integers, rows
/// of constant length, or rows of a runtime length (`int a[n][m]`, see `ExprKind::Row`).
fn element_type(elem: &Type) -> Option<IntType> {
    match elem {
        Type::Array(row, None) => match **row {
            Type::Int(t) => Some(t),
            _ => None,
        },
        _ => flat_elements(elem).map(|(t, _)| t),
    }
}

fn widen<'ctx>(v: &BV<'ctx>, t: IntType) -> BV<'ctx> {
    c_int::resize(v, t.signed, 64)
}

#[derive(Clone, Debug)]
pub struct Val<'ctx> {
    pub term: Term<'ctx>,
    pub deps: Deps,
}

#[derive(Clone, Debug)]
pub struct State<'ctx> {
    /// The path condition.
    pub guard: Bool<'ctx>,
    pub guard_deps: Deps,
    pub vars: BTreeMap<VarId, Val<'ctx>>,
    /// The returned value, once `return e` ran.
    pub ret: Option<Val<'ctx>>,
    /// Position in the input stream (tokens read so far).
    pub in_pos: BV<'ctx>,
    /// The last character printed was whitespace (or nothing was printed): a value printed
    /// next starts a token of its own.
    pub at_ws: Bool<'ctx>,
}

/// One way control leaves a region.
#[derive(Clone, Debug)]
pub struct Exit<'ctx> {
    pub to: Node,
    pub kind: EdgeKind,
    pub state: State<'ctx>,
}

/// A printed token with the condition under which it is printed.
#[derive(Clone, Debug)]
pub struct Printed<'ctx> {
    pub guard: Bool<'ctx>,
    pub deps: Deps,
    pub token: Token<'ctx>,
}

/// The role of an expression site (the paper's conditional and update expressions, plus what
/// C programs do with values: print them and return them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SiteKind {
    /// The condition of an `if`, a loop or `?:`.
    Cond,
    /// An operand of `&&` / `||` in a condition (a comparison, usually).
    Atom,
    /// The new value of `var` (assignment, initialiser, `++`, `op=`).
    Update(VarId),
    /// A value `printf` prints.
    Print,
    /// The value `return` returns.
    Return,
    /// A whole `printf` statement (its text can be another print's, or it can go).
    PrintCall,
    /// A size that must be a constant (`fgets`'s `n`): its alternatives are constants too.
    Size,
}

/// An expression site met while executing a region.
#[derive(Clone, Debug)]
pub struct Site<'p> {
    pub expr: &'p Expr,
    pub kind: SiteKind,
    /// The statement the site is the whole of (`x = e;`, `i++;`), for deleting it.
    pub stmt: Option<&'p Stmt>,
}

/// One alternative of a hole.
#[derive(Clone, Debug)]
pub enum Alt {
    /// The site as written.
    Original,
    /// Another expression, in the repaired program's variables.
    Expr(Expr),
    /// `true` / `false` for a condition.
    Bool(bool),
    /// `x = x` for an update: the assignment deleted.
    Keep,
}

/// The holes of a repair sketch: per site (by its [`ExprId`]), its selector and alternatives.
pub struct Holes<'ctx> {
    pub sites: HashMap<ExprId, (BV<'ctx>, Vec<Alt>)>,
    /// The sites in a fixed order (execution order), so that solving is deterministic.
    pub order: Vec<ExprId>,
    /// Alternatives the search never picks: tried only in place of a proved pick (see
    /// `Job::own_values_printed`).
    pub held_back: Vec<HeldBack>,
}

/// An alternative held back from the search: at `site`, alternative `at` may stand in for
/// alternative `of` once a repair with `of` is proved (a reference `printf`'s format over
/// the student's own values, for that `printf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldBack {
    pub site: ExprId,
    pub of: usize,
    pub at: usize,
}

/// Width of a hole's selector (alternatives per hole are capped below 2^SEL_BITS).
pub const SEL_BITS: u32 = 8;

impl<'ctx> Holes<'ctx> {
    /// The same sites with only the chosen alternative each (index into the alternatives;
    /// absent: the first): the formula of one candidate, no larger than the program.
    pub fn restricted(&self, choice: &HashMap<ExprId, usize>) -> Holes<'ctx> {
        let sites = self
            .sites
            .iter()
            .map(|(k, (sel, alts))| {
                let i = choice.get(k).copied().unwrap_or(0).min(alts.len() - 1);
                (*k, (sel.clone(), vec![alts[i].clone()]))
            })
            .collect();
        Holes { sites, order: self.order.clone(), held_back: Vec::new() }
    }

    /// The holes in their fixed order.
    pub fn iter(&self) -> impl Iterator<Item = (&ExprId, &(BV<'ctx>, Vec<Alt>))> {
        self.order.iter().map(|k| (k, &self.sites[k]))
    }
}

/// The uninterpreted functions both programs share (inputs and aligned functions' calls), and
/// optionally a model in which to evaluate them (a counterexample's concrete instance). Z3
/// identifies a function declaration by its name and signature, so each use declares it anew.
pub struct World<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub model: Option<&'a Model<'ctx>>,
}

impl<'a, 'ctx> World<'a, 'ctx> {
    pub fn new(ctx: &'ctx Context) -> Self {
        World { ctx, model: None }
    }

    /// The same world, with applications evaluated in `model`.
    pub fn in_model<'b>(&self, model: &'b Model<'ctx>) -> World<'b, 'ctx> {
        World { ctx: self.ctx, model: Some(model) }
    }

    fn concrete(&self, d: Dynamic<'ctx>) -> Dynamic<'ctx> {
        match self.model {
            Some(m) => m.eval(&d, true).unwrap_or(d),
            None => d,
        }
    }

    /// The token at input position `pos` read as `sort` (`in.int`, `in.dbl`, `in.chr`); for
    /// character input, `in.chr(pos)` is the byte at index `pos`.
    fn input(&self, name: &str, pos: &BV<'ctx>, sort: &Sort<'ctx>) -> Dynamic<'ctx> {
        let f = FuncDecl::new(self.ctx, name, &[&Sort::bitvector(self.ctx, 32)], sort);
        self.input_with(pos, &|at| f.apply(&[at]))
    }

    /// Byte `j` of the word read with `%s` at token position `pos`: `in.wchr(pos, j)`.
    fn word_byte(&self, pos: &BV<'ctx>, j: u64) -> BV<'ctx> {
        let bv32 = Sort::bitvector(self.ctx, 32);
        let f = FuncDecl::new(self.ctx, "in.wchr", &[&bv32, &bv32], &Sort::bitvector(self.ctx, 8));
        let j = BV::from_u64(self.ctx, j, 32);
        self.input_with(pos, &|at| f.apply(&[at, &j])).as_bv().expect("a byte")
    }

    /// `apply` of the input function at `pos`, in the model if there is one.
    fn input_with(&self, pos: &BV<'ctx>, apply: &dyn Fn(&BV<'ctx>) -> Dynamic<'ctx>) -> Dynamic<'ctx> {
        let Some(m) = self.model else { return apply(pos) };
        // In a counterexample's instance a position can still depend on the holes' selectors
        // (a read that only some alternatives do): the application is taken apart over the
        // position's `ite`s first, so model completion never fixes a selector.
        let at = m.eval(pos, false).unwrap_or_else(|| pos.clone()).simplify();
        let at = crate::smt::fold::fold_constant_ites(&Dynamic::from_ast(&at)).as_bv().expect("a position").simplify();
        self.input_at(apply, &at, m)
    }

    fn input_at(&self, apply: &dyn Fn(&BV<'ctx>) -> Dynamic<'ctx>, at: &BV<'ctx>, m: &Model<'ctx>) -> Dynamic<'ctx> {
        let d = Dynamic::from_ast(at);
        if at.as_u64().is_none() && d.kind() == z3::AstKind::App && d.decl().kind() == z3::DeclKind::ITE {
            let kids = d.children();
            let c = kids[0].as_bool().expect("a condition");
            let (a, b) = (kids[1].as_bv().expect("a position"), kids[2].as_bv().expect("a position"));
            return c.ite(&self.input_at(apply, &a, m), &self.input_at(apply, &b, m));
        }
        m.eval(&apply(at), true).unwrap_or_else(|| apply(at))
    }

    fn constant(&self, name: &str) -> BV<'ctx> {
        self.concrete(Dynamic::from_ast(&BV::new_const(self.ctx, name, 32))).as_bv().expect("a bit-vector constant")
    }

    /// The number scanf's conversion `conv` (`d`, `i`, `u`, or a floating-point one) reads at
    /// token position `pos`, before conversion to its variable's type: `in.int(pos)` as a
    /// `long long`, or `in.dbl(pos)` as a double. The input holds numbers: `nan` and `inf`,
    /// which scanf would also accept, are outside the model (see ARCHITECTURE.md); a
    /// non-finite token of the uninterpreted stream reads as 0.
    fn number_token(&self, floats: &mut Floats<'ctx>, conv: char, pos: &BV<'ctx>) -> Option<Term<'ctx>> {
        match conv {
            'd' | 'i' | 'u' => {
                let raw = self.input("in.int", pos, &Sort::bitvector(self.ctx, 64)).as_bv().expect("bit-vector input");
                Some(Term::Int(raw, IntType::LLONG))
            }
            'f' | 'e' | 'g' | 'F' | 'E' | 'G' => {
                let name = match floats.model() {
                    FloatModel::Ieee => "in.dbl",
                    FloatModel::Real => "in.real",
                    FloatModel::Opaque => "in.bits",
                };
                let raw = self.input(name, pos, &floats.sort(FloatKind::Double));
                let finite = floats.is_finite(&raw);
                Some(Term::Float(finite.ite(&raw, &floats.literal(0.0, FloatKind::Double)), FloatKind::Double))
            }
            _ => None,
        }
    }

    /// `left > right` (or `>=` when not `strict`) between the numbers read at two token
    /// positions, each as its conversion reads it (see [`World::number_token`]): an input
    /// precondition. `None` when a conversion is not a number or the two are of different kinds.
    pub fn token_order(&self, left: (char, u32), right: (char, u32), strict: bool) -> Option<Bool<'ctx>> {
        let mut fp = Floats::new(self.ctx, FloatModel::Ieee);
        let at = |k: u32| BV::from_u64(self.ctx, k as u64, 32);
        match (self.number_token(&mut fp, left.0, &at(left.1))?, self.number_token(&mut fp, right.0, &at(right.1))?) {
            // The numbers also fit in an `int` (`%d` of a number outside is undefined
            // behaviour; every test's do): the order is then the one the programs' `int`
            // variables see, not the raw tokens' (which truncation could reverse).
            (Term::Int(a, _), Term::Int(b, _)) => {
                let fits = |x: &BV<'ctx>| {
                    let (lo, hi) =
                        (BV::from_i64(self.ctx, i32::MIN as i64, 64), BV::from_i64(self.ctx, i32::MAX as i64, 64));
                    Bool::and(self.ctx, &[&x.bvsge(&lo), &x.bvsle(&hi)])
                };
                let order = if strict { a.bvsgt(&b) } else { a.bvsge(&b) };
                Some(Bool::and(self.ctx, &[&fits(&a), &fits(&b), &order]))
            }
            (Term::Float(a, _), Term::Float(b, _)) => Some(fp.greater(&a, &b, strict)),
            _ => None,
        }
    }

    /// Character input: the number of characters in the input.
    pub fn len(&self) -> BV<'ctx> {
        self.constant("in.len")
    }

    /// Character input: the position of a newline (the line assumption).
    pub fn nl(&self) -> BV<'ctx> {
        self.constant("in.nl")
    }

    /// Character input: the byte at index `pos`, `in.chr(pos)`.
    pub fn char_at(&self, pos: &BV<'ctx>) -> BV<'ctx> {
        self.input("in.chr", pos, &Sort::bitvector(self.ctx, 8)).as_bv().expect("char input")
    }

    /// The line assumption: `in.nl < in.len` and the character there is `'\n'`.
    pub fn line_assumption(&self) -> Bool<'ctx> {
        let nl = self.nl();
        let c = self.input("in.chr", &nl, &Sort::bitvector(self.ctx, 8)).as_bv().expect("char input");
        Bool::and(self.ctx, &[&nl.bvult(&self.len()), &c._eq(&BV::from_u64(self.ctx, b'\n' as u64, 8))])
    }

    fn call(&self, name: &str, args: &[Dynamic<'ctx>], ret: &Sort<'ctx>) -> Dynamic<'ctx> {
        let sorts: Vec<Sort<'ctx>> = args.iter().map(|a| a.get_sort()).collect();
        let key = format!("fn.{name}/{}", sorts.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","));
        let refs: Vec<&Sort<'ctx>> = sorts.iter().collect();
        let f = FuncDecl::new(self.ctx, key, &refs, ret);
        let args: Vec<&dyn Ast<'ctx>> = args.iter().map(|a| a as &dyn Ast<'ctx>).collect();
        self.concrete(f.apply(&args))
    }
}

/// How one program is executed: which program, which function, how its callees are named in
/// the shared world, which of its `printf`s are prompts (not compared), the comparison mode.
#[derive(Clone)]
pub struct Setup<'p> {
    pub program: &'p Program,
    pub func: FuncId,
    pub tree: &'p LoopTree<'p>,
    /// Callee → the name of its uninterpreted function (the aligned reference function's).
    pub callee_names: &'p HashMap<FuncId, String>,
    /// `printf` calls whose output is not compared (prompts printed before a read).
    pub prompts: &'p HashSet<ExprId>,
    pub compare: Compare,
    /// How the function reads its input ([`super::stream::pair_inputs`]).
    pub input: super::stream::Input,
    /// Character input: the nodes where `pos <= in.nl` is part of the pre-state and must be
    /// re-established by every edge into them ([`super::stream::line_invariant`]).
    pub line: BTreeSet<Node>,
    /// Character input: the top-level statements that read ([`super::stream::reading_range`];
    /// `None` for any other input). In `values` mode nothing compared is printed there, so no
    /// print is added there either.
    pub reading: Option<Span>,
    /// The job's budget, polled between steps ([`OUT_OF_TIME`]).
    pub budget: crate::smt::Budget,
    /// What a `float` or `double` is: IEEE (every proof), or a real (a search's abstraction).
    pub floats: FloatModel,
    /// Character input: the input holds a '\n' (the line assumption), so a read before it
    /// finds a character.
    pub line_in_input: bool,
}

/// The result of executing one node's region.
#[derive(Clone, Debug)]
pub struct Region<'p, 'ctx> {
    pub exits: Vec<Exit<'ctx>>,
    pub printed: Vec<Printed<'ctx>>,
    /// Runtime errors (division by zero, ...) with their conditions.
    pub errors: Vec<(Bool<'ctx>, Deps, Span)>,
    /// Where printed text may glue to a printed value (`values` mode: the output's tokens
    /// would then not be the tokens compared here).
    pub glue: Vec<Bool<'ctx>>,
    /// What the input model assumes: a number read is finite; the character stream holds a
    /// newline (once a character is read); the line invariant at the region's node.
    pub assumed: Vec<Bool<'ctx>>,
    /// Character input: the positions whose byte the region reads (each `in.chr(pos)`).
    pub chars_read: Vec<BV<'ctx>>,
    /// Character input: each white space skip, from the position to `in.skip(pos)`
    /// ([`super::stream::skip_facts`]).
    pub skips: Vec<(BV<'ctx>, BV<'ctx>)>,
    /// Conditions under which the region breaks an invariant of the input model at the node
    /// it reaches (the line invariant): each is a failure of the check.
    pub obligations: Vec<Bool<'ctx>>,
    /// The expression sites met, in execution order (each once).
    pub sites: Vec<Site<'p>>,
    /// Every variable read or written, with how (for variable alignment).
    pub usage: Vec<(VarId, Usage)>,
}

/// How a variable is used at one occurrence (variable alignment's usage sets, Section 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Usage {
    Read,
    Written,
    InCond,
    Scanned,
    Printed,
    Returned,
    Operand(&'static str),
    Incremented,
    Param(usize),
}

pub struct Exec<'s, 'p, 'w, 'a, 'ctx> {
    ctx: &'ctx Context,
    setup: &'s Setup<'p>,
    world: &'w World<'a, 'ctx>,
    /// The repair holes, which live as long as the program: their alternatives are evaluated
    /// like the program's own expressions.
    holes: Option<&'p Holes<'ctx>>,
    floats: Floats<'ctx>,
    region: Region<'p, 'ctx>,
    seen_sites: HashSet<ExprId>,
    /// The innermost loop around the statement being executed.
    loops: Vec<usize>,
    /// `Extend`'s early return at the region's start: `if (guard) return value;`.
    extension: Option<(&'p Expr, &'p Expr)>,
    /// `Extend`'s missing print at the region's start (a hole whose first alternative prints
    /// nothing).
    start_print: Option<&'p Expr>,
    /// `Extend`'s added assignments at the end of a loop's body: `if (guard) var = value;`.
    tails: Vec<Tail<'p>>,
    /// `Extend`'s guarded print replacements: `if (guard) print; else call;`.
    guarded_prints: Vec<GuardedPrint<'p>>,
    /// `Extend`'s print added before the function's last `return`: `if (guard) print;`.
    end_print: Option<EndPrint<'p>>,
    /// The line assumption is among the region's assumptions (a character was read).
    line_assumed: bool,
    /// Per `&&`/`||` chain whose operands had effects (its id, its operator): the state
    /// in which every operand ran and none decided. See [`Exec::split_on`].
    chain_ends: Vec<(ExprId, LogicOp, State<'ctx>)>,
    /// A position known to be at most `in.nl` (so before the end of input): the start of the
    /// stream at Func-Entry, the pre-state's position at a node of the line invariant.
    below_nl: Option<BV<'ctx>>,
    /// The `switch` statements being executed, innermost last: the states that left each by
    /// `break`.
    switches: Vec<Vec<State<'ctx>>>,
}

/// An assignment `Extend` adds at the end of loop `l`'s body (before its step), or, with
/// `before`, just before the loop statement.
#[derive(Clone, Copy, Debug)]
pub struct Tail<'p> {
    pub l: usize,
    pub before: bool,
    pub guard: &'p Expr,
    pub value: &'p Expr,
    pub var: VarId,
}

/// A print statement `Extend` may make conditional, printing another text where `guard`
/// holds: `if (guard) print; else call;` (`print`'s first alternative prints nothing).
#[derive(Clone, Copy, Debug)]
pub struct GuardedPrint<'p> {
    /// The student's `printf` call (the statement's expression).
    pub call: &'p Expr,
    pub guard: &'p Expr,
    pub print: &'p Expr,
}

/// A print `Extend` may add just before a `return` statement: `if (guard) print;`
/// (`print`'s first alternative prints nothing).
#[derive(Clone, Copy, Debug)]
pub struct EndPrint<'p> {
    pub before: &'p Stmt,
    pub guard: &'p Expr,
    pub print: &'p Expr,
}

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    pub fn new(setup: &'s Setup<'p>, world: &'w World<'a, 'ctx>, holes: Option<&'p Holes<'ctx>>) -> Self {
        let ctx = world.ctx;
        Exec {
            ctx,
            setup,
            world,
            holes,
            floats: Floats::new(ctx, setup.floats),
            region: Region {
                exits: Vec::new(),
                printed: Vec::new(),
                errors: Vec::new(),
                glue: Vec::new(),
                assumed: Vec::new(),
                chars_read: Vec::new(),
                skips: Vec::new(),
                obligations: Vec::new(),
                sites: Vec::new(),
                usage: Vec::new(),
            },
            seen_sites: HashSet::new(),
            loops: Vec::new(),
            extension: None,
            start_print: None,
            tails: Vec::new(),
            guarded_prints: Vec::new(),
            end_print: None,
            line_assumed: false,
            chain_ends: Vec::new(),
            below_nl: None,
            switches: Vec::new(),
        }
    }

    /// Adds `if (guard) var = value;` at the end of loops' bodies.
    pub fn with_tails(mut self, tails: Vec<Tail<'p>>) -> Self {
        self.tails = tails;
        self
    }

    /// Makes print statements conditional: `if (guard) print; else call;` where the guard
    /// is a hole of the region.
    pub fn with_guarded_prints(mut self, prints: Vec<GuardedPrint<'p>>) -> Self {
        self.guarded_prints = prints;
        self
    }

    /// Adds `if (guard) print;` before a `return` statement (the guard a hole of the region).
    pub fn with_end_print(mut self, end: Option<EndPrint<'p>>) -> Self {
        self.end_print = end;
        self
    }

    /// Adds a print at the region's start, chosen among the hole's alternatives (none first).
    pub fn with_start_print(mut self, site: &'p Expr) -> Self {
        self.start_print = Some(site);
        self
    }

    /// Adds `if (guard) return value;` (both sites, usually holes) at the region's start.
    pub fn with_extension(mut self, guard: &'p Expr, value: &'p Expr) -> Self {
        self.extension = Some((guard, value));
        self
    }

    /// A fresh pre-state for `node`: every variable of the function a constant named
    /// `{prefix}{name}#{id}`, the input position `{prefix}in`.
    pub fn fresh_state(ctx: &'ctx Context, setup: &Setup<'_>, prefix: &str) -> R<State<'ctx>> {
        let (p, f) = (setup.program, setup.program.func(setup.func));
        let floats = Floats::new(ctx, setup.floats);
        let mut vars = BTreeMap::new();
        for &v in f.params.iter().chain(&f.locals) {
            let var = p.var(v);
            let name = format!("{prefix}{}#{}", var.name, v.0);
            let term = match &var.ty {
                Type::Int(t) => Term::Int(BV::new_const(ctx, name, c_int::width(*t)), *t),
                Type::Float(k) => Term::Float(floats.constant(&name, *k), *k),
                Type::Array(elem, n) if element_type(elem).is_some() => {
                    // An array of arrays is one Z3 array of its elements in C's order (row
                    // after row), as it lies in memory.
                    let t = element_type(elem).expect("checked");
                    // A variable-length array's length is a value of the state like any other.
                    let len = match (n, flat_elements(elem)) {
                        (Some(n), Some((_, per))) => Len::Fixed(n * per),
                        _ => Len::Runtime(BV::new_const(ctx, format!("{name}.len"), 64)),
                    };
                    Term::Array(
                        Array::new_const(ctx, name, &Sort::bitvector(ctx, 32), &Sort::bitvector(ctx, c_int::width(t))),
                        t,
                        len,
                    )
                }
                other => return unsupported(format!("a variable of type `{}`", p.type_name(other)), var.span),
            };
            vars.insert(v, Val { term, deps: [v].into_iter().collect() });
        }
        Ok(State {
            guard: Bool::from_bool(ctx, true),
            guard_deps: Deps::new(),
            vars,
            ret: None,
            in_pos: BV::new_const(ctx, format!("{prefix}in"), 32),
            at_ws: Bool::new_const(ctx, format!("{prefix}ws")),
        })
    }

    /// Executes the region of `node` from `pre`.
    pub fn run(self, node: Node, pre: State<'ctx>) -> R<Region<'p, 'ctx>> {
        let ctx = self.ctx;
        let world = self.world;
        let mut region = self.run_region(node, pre)?;
        let facts = super::stream::skip_facts(ctx, world, &region);
        region.assumed.extend(facts);
        Ok(region)
    }

    fn run_region(mut self, node: Node, mut pre: State<'ctx>) -> R<Region<'p, 'ctx>> {
        let tree = self.setup.tree;
        if self.setup.reading.is_some() {
            // A property of the input, whatever the region reads: were it assumed only where a
            // read runs, a candidate that reads nothing would be refuted on an input the model
            // excludes (no newline), and that counterexample's instance, where the other
            // alternatives read, would constrain nothing: the synthesiser repeats the candidate.
            self.assume_line();
        }
        if self.setup.line.contains(&node) {
            self.region.assumed.push(pre.in_pos.bvule(&self.world.nl()));
            self.below_nl = Some(pre.in_pos.clone());
        }
        if node == Node::FuncEntry && self.setup.reading.is_some() {
            // The entry function reads from the stream's start (other functions do not read).
            self.below_nl = Some(pre.in_pos.clone());
        }
        if let Some(site) = self.start_print
            && self.in_reading(site.span)
        {
            // No print is added where the output may still precede a read.
            self.start_print = None;
        }
        if let Some(site) = self.start_print
            && self.is_hole(site)
        {
            self.print_site(site, &[], None, &mut pre)?;
        }
        if let Some((guard, value)) = self.extension {
            let (yes, no) = self.branch_on(guard, pre)?;
            if let Some(mut y) = yes {
                let v = self.site_value(value, SiteKind::Return, None, &mut y)?;
                y.ret = Some(v);
                self.exit(Node::FuncExit, EdgeKind::Return, y);
            }
            match no {
                Some(n) => pre = n,
                None => return Ok(self.region),
            }
        }
        match node {
            Node::FuncEntry => {
                let frames = tree.body.clone();
                self.continue_from(&frames, pre)?;
            }
            Node::LoopEntry(l) => {
                self.loops = self.enclosing_loops(l);
                self.loop_head(l, pre)?;
            }
            Node::LoopExit(l) => {
                let frames = tree.loops[l].after.clone();
                self.loops = self.enclosing_loops(l);
                self.loops.pop();
                self.continue_from(&frames, pre)?;
            }
            Node::FuncExit => {}
        }
        Ok(self.region)
    }
}

pub use crate::smt::output::{positions, sequences_differ, sequences_differ_within};
