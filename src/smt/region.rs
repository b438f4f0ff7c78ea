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
//!   the end of input), `strlen` is the first `'\0'`'s index, `switch` falls through its arms
//!   and `break` leaves it.
//!
//! Pointers (other than `&x` in `scanf` and an array passed to `fgets`/`strlen`), strings,
//! structs, other arrays, a loop inside `switch`, and `goto` are [`Unsupported`] here; the
//! engines then fall back to bounded repair.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use z3::ast::{Array, Ast, Bool, Dynamic, Float, BV};
use z3::{Context, FuncDecl, Model, Sort};

use crate::ir::cfa::{EdgeKind, Frame, LoopTree, Node};
use crate::ir::format::{self as cfmt, Piece};
use crate::ir::{BinOp, Builtin, Callee, Expr, ExprKind, FloatKind, FuncId, IncDec, Init, IntType, LogicOp, Program, Span, Stmt, StmtKind, Type, UnOp, VarId};
use crate::spec::compare::Compare;

use super::c_int;
use super::encode::fp::{self, FpOps};
use super::stream;
pub use super::output::Token;
use super::output::{self, Printer};

pub type Deps = BTreeSet<VarId>;

/// A construct the region encoding does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub what: String,
    pub span: Span,
}

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(what: impl Into<String>, span: Span) -> R<T> {
    Err(Unsupported { what: what.into(), span })
}

#[derive(Clone, Debug)]
pub enum Term<'ctx> {
    Int(BV<'ctx>, IntType),
    Float(Float<'ctx>, FloatKind),
    /// A local array of constant length: a Z3 array from 32-bit indices to the elements (only
    /// indices below the length are ever read or written; the rest of it stays what it was).
    Array(Array<'ctx>, IntType, u64),
}

impl<'ctx> Term<'ctx> {
    fn same(&self, o: &Term<'ctx>) -> bool {
        match (self, o) {
            (Term::Int(a, _), Term::Int(b, _)) => a == b,
            (Term::Float(a, _), Term::Float(b, _)) => a == b,
            (Term::Array(a, _, _), Term::Array(b, _, _)) => a == b,
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
            // length included, which both programs leave as they found them).
            (Term::Array(a, ta, _), Term::Array(b, tb, _)) if ta == tb => Some(a._eq(b)),
            _ => None,
        }
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

/// The holes of a repair sketch: per site (by address), its selector and alternatives.
pub struct Holes<'ctx> {
    pub sites: HashMap<*const Expr, (BV<'ctx>, Vec<Alt>)>,
    /// The sites in a fixed order (execution order), so that solving is deterministic.
    pub order: Vec<*const Expr>,
}

/// Width of a hole's selector (alternatives per hole are capped below 2^SEL_BITS).
pub const SEL_BITS: u32 = 8;

impl<'ctx> Holes<'ctx> {
    /// The same sites with only the chosen alternative each (index into the alternatives;
    /// absent: the first): the formula of one candidate, no larger than the program.
    pub fn restricted(&self, choice: &HashMap<*const Expr, usize>) -> Holes<'ctx> {
        let sites = self
            .sites
            .iter()
            .map(|(k, (sel, alts))| {
                let i = choice.get(k).copied().unwrap_or(0).min(alts.len() - 1);
                (*k, (sel.clone(), vec![alts[i].clone()]))
            })
            .collect();
        Holes { sites, order: self.order.clone() }
    }

    /// The holes in their fixed order.
    pub fn iter(&self) -> impl Iterator<Item = (&*const Expr, &(BV<'ctx>, Vec<Alt>))> {
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
        let Some(m) = self.model else { return f.apply(&[pos]) };
        // In a counterexample's instance a position can still depend on the holes' selectors
        // (a read that only some alternatives do): the application is taken apart over the
        // position's `ite`s first, so model completion never fixes a selector.
        let at = m.eval(pos, false).unwrap_or_else(|| pos.clone()).simplify();
        let at = super::fold::fold_constant_ites(&Dynamic::from_ast(&at)).as_bv().expect("a position").simplify();
        self.input_at(&f, &at, m)
    }

    fn input_at(&self, f: &FuncDecl<'ctx>, at: &BV<'ctx>, m: &Model<'ctx>) -> Dynamic<'ctx> {
        let d = Dynamic::from_ast(at);
        if at.as_u64().is_none() && d.kind() == z3::AstKind::App && d.decl().kind() == z3::DeclKind::ITE {
            let kids = d.children();
            let c = kids[0].as_bool().expect("a condition");
            let (a, b) = (kids[1].as_bv().expect("a position"), kids[2].as_bv().expect("a position"));
            return c.ite(&self.input_at(f, &a, m), &self.input_at(f, &b, m));
        }
        m.eval(&f.apply(&[at]), true).unwrap_or_else(|| f.apply(&[at]))
    }

    fn constant(&self, name: &str) -> BV<'ctx> {
        self.concrete(Dynamic::from_ast(&BV::new_const(self.ctx, name, 32))).as_bv().expect("a bit-vector constant")
    }

    /// The number scanf's conversion `conv` (`d`, `i`, `u`, or a floating-point one) reads at
    /// token position `pos`, before conversion to its variable's type: `in.int(pos)` as a
    /// `long long`, or `in.dbl(pos)` as a double. The input holds numbers: `nan` and `inf`,
    /// which scanf would also accept, are outside the model (see ARCHITECTURE.md); a
    /// non-finite token of the uninterpreted stream reads as 0.
    fn number_token(&self, fp: &mut FpOps<'ctx>, conv: char, pos: &BV<'ctx>) -> Option<Term<'ctx>> {
        match conv {
            'd' | 'i' | 'u' => {
                let raw = self.input("in.int", pos, &Sort::bitvector(self.ctx, 64)).as_bv().expect("bit-vector input");
                Some(Term::Int(raw, IntType::LLONG))
            }
            'f' | 'e' | 'g' | 'F' | 'E' | 'G' => {
                let raw = self.input("in.dbl", pos, &Sort::double(self.ctx)).as_float().expect("float input");
                let finite = fp.is_finite(&raw);
                Some(Term::Float(finite.ite(&raw, &fp.literal(0.0, FloatKind::Double)), FloatKind::Double))
            }
            _ => None,
        }
    }

    /// `left > right` (or `>=` when not `strict`) between the numbers read at two token
    /// positions, each as its conversion reads it (see [`World::number_token`]): an input
    /// precondition. `None` when a conversion is not a number or the two are of different kinds.
    pub fn token_order(&self, left: (char, u32), right: (char, u32), strict: bool) -> Option<Bool<'ctx>> {
        let mut fp = FpOps::new(self.ctx);
        let at = |k: u32| BV::from_u64(self.ctx, k as u64, 32);
        match (self.number_token(&mut fp, left.0, &at(left.1))?, self.number_token(&mut fp, right.0, &at(right.1))?) {
            // The numbers also fit in an `int` (`%d` of a number outside is undefined
            // behaviour; every test's do): the order is then the one the programs' `int`
            // variables see, not the raw tokens' (which truncation could reverse).
            (Term::Int(a, _), Term::Int(b, _)) => {
                let fits = |x: &BV<'ctx>| {
                    let (lo, hi) = (BV::from_i64(self.ctx, i32::MIN as i64, 64), BV::from_i64(self.ctx, i32::MAX as i64, 64));
                    Bool::and(self.ctx, &[&x.bvsge(&lo), &x.bvsle(&hi)])
                };
                let order = if strict { a.bvsgt(&b) } else { a.bvsge(&b) };
                Some(Bool::and(self.ctx, &[&fits(&a), &fits(&b), &order]))
            }
            (Term::Float(a, _), Term::Float(b, _)) => Some(fp.compare(if strict { "fp.gt" } else { "fp.geq" }, &a, &b)),
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
    pub prompts: &'p HashSet<*const Expr>,
    pub compare: Compare,
    /// Character input: the nodes where `pos <= in.nl` is part of the pre-state and must be
    /// re-established by every edge into them ([`super::stream::line_invariant`]).
    pub line: BTreeSet<Node>,
    /// Character input: the top-level statements that read ([`super::stream::reading_range`];
    /// `None` for any other input). In `values` mode nothing compared is printed there, so no
    /// print is added there either.
    pub reading: Option<Span>,
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
    holes: Option<&'s Holes<'ctx>>,
    fp: FpOps<'ctx>,
    region: Region<'p, 'ctx>,
    seen_sites: HashSet<*const Expr>,
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
    pub fn new(setup: &'s Setup<'p>, world: &'w World<'a, 'ctx>, holes: Option<&'s Holes<'ctx>>) -> Self {
        let ctx = world.ctx;
        Exec {
            ctx,
            setup,
            world,
            holes,
            fp: FpOps::new(ctx),
            region: Region {
                exits: Vec::new(),
                printed: Vec::new(),
                errors: Vec::new(),
                glue: Vec::new(),
                assumed: Vec::new(),
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
    pub fn fresh_state(ctx: &'ctx Context, p: &Program, func: FuncId, prefix: &str) -> R<State<'ctx>> {
        let f = p.func(func);
        let mut vars = BTreeMap::new();
        for &v in f.params.iter().chain(&f.locals) {
            let var = p.var(v);
            let name = format!("{prefix}{}#{}", var.name, v.0);
            let term = match &var.ty {
                Type::Int(t) => Term::Int(BV::new_const(ctx, name, c_int::width(*t)), *t),
                Type::Float(k) => Term::Float(Float::new_const(ctx, name, fp::sbits(*k).0, fp::sbits(*k).1), *k),
                Type::Array(elem, Some(n)) if matches!(**elem, Type::Int(_)) => {
                    let Type::Int(t) = **elem else { unreachable!() };
                    Term::Array(Array::new_const(ctx, name, &Sort::bitvector(ctx, 32), &Sort::bitvector(ctx, c_int::width(t))), t, *n)
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
    pub fn run(mut self, node: Node, mut pre: State<'ctx>) -> R<Region<'p, 'ctx>> {
        let tree = self.setup.tree;
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

    /// Whether `span` starts among the statements that read characters (`values` mode).
    fn in_reading(&self, span: Span) -> bool {
        self.setup.compare == Compare::Values && self.setup.reading.is_some_and(|r| r.start <= span.start && span.start < r.end)
    }

    fn enclosing_loops(&self, l: usize) -> Vec<usize> {
        let mut out = vec![l];
        let mut at = self.setup.tree.loops[l].parent;
        while let Some(p) = at {
            out.push(p);
            at = self.setup.tree.loops[p].parent;
        }
        out.reverse();
        out
    }

    fn exit(&mut self, to: Node, kind: EdgeKind, st: State<'ctx>) {
        if st.guard.as_bool() != Some(false) {
            if self.setup.line.contains(&to) {
                let broken = Bool::and(self.ctx, &[&st.guard, &st.in_pos.bvule(&self.world.nl()).not()]).simplify();
                if broken.as_bool() != Some(false) {
                    self.region.obligations.push(broken);
                }
            }
            self.region.exits.push(Exit { to, kind, state: st });
        }
    }

    /// Runs the frames innermost first until control leaves the region.
    fn continue_from(&mut self, frames: &[Frame<'p>], mut st: State<'ctx>) -> R<()> {
        for frame in frames.iter().rev() {
            match *frame {
                Frame::Seq(stmts, next) => {
                    for s in &stmts[next.min(stmts.len())..] {
                        match self.stmt(s, st)? {
                            Some(next) => st = next,
                            None => return Ok(()),
                        }
                    }
                }
                Frame::LoopBody(l) => {
                    return self.end_of_body(l, st, EdgeKind::Normal);
                }
            }
        }
        let ret = self.fall_off_value();
        st.ret = ret;
        self.exit(Node::FuncExit, EdgeKind::Normal, st);
        Ok(())
    }

    /// `main` falling off its end returns 0; other functions return an unknown value.
    fn fall_off_value(&mut self) -> Option<Val<'ctx>> {
        let f = self.setup.program.func(self.setup.func);
        match (&f.ret, f.name.as_str()) {
            (Type::Int(t), "main") => Some(Val { term: Term::Int(c_int::constant(self.ctx, *t, 0), *t), deps: Deps::new() }),
            _ => None,
        }
    }

    fn loop_stmt(&self, l: usize) -> &'p Stmt {
        self.setup.tree.loops[l].stmt
    }

    /// At a loop's head: its test, then its body (or the exit).
    fn loop_head(&mut self, l: usize, st: State<'ctx>) -> R<()> {
        let s = self.loop_stmt(l);
        let cond = match &s.kind {
            StmtKind::While { cond, .. } => Some(cond),
            StmtKind::For { cond, .. } => cond.as_ref(),
            StmtKind::DoWhile { .. } => {
                let frames = self.setup.tree.body_frames(l);
                return self.continue_from(&frames, st);
            }
            _ => unreachable!("a loop"),
        };
        let (into, out) = match cond {
            Some(c) => self.branch_on(c, st)?,
            None => (Some(st), None),
        };
        if let Some(out) = out {
            self.exit(Node::LoopExit(l), EdgeKind::Normal, out);
        }
        if let Some(into) = into {
            let frames = self.setup.tree.body_frames(l);
            self.continue_from(&frames, into)?;
        }
        Ok(())
    }

    /// The end of loop `l`'s body (or a `continue`): the step, then back to the head (or, for
    /// `do`-`while`, the test).
    fn end_of_body(&mut self, l: usize, mut st: State<'ctx>, kind: EdgeKind) -> R<()> {
        st = match self.apply_tails(l, false, st)? {
            Some(s) => s,
            None => return Ok(()),
        };
        match &self.loop_stmt(l).kind {
            StmtKind::For { step, .. } => {
                if let Some(step) = step {
                    st = self.effect(step, None, st)?;
                }
                self.exit(Node::LoopEntry(l), kind, st);
            }
            StmtKind::While { .. } => self.exit(Node::LoopEntry(l), kind, st),
            StmtKind::DoWhile { cond, .. } => {
                let (again, out) = self.branch_on(cond, st)?;
                if let Some(a) = again {
                    self.exit(Node::LoopEntry(l), kind, a);
                }
                if let Some(o) = out {
                    self.exit(Node::LoopExit(l), EdgeKind::Normal, o);
                }
            }
            _ => unreachable!("a loop"),
        }
        Ok(())
    }

    /// The `Extend` assignments of loop `l` at one of their two places.
    fn apply_tails(&mut self, l: usize, before: bool, mut st: State<'ctx>) -> R<Option<State<'ctx>>> {
        let tails: Vec<Tail<'p>> = self.tails.iter().filter(|t| t.l == l && t.before == before).copied().collect();
        for t in tails {
            let (b, deps) = self.cond_site(t.guard, &mut st)?;
            let (yes, no) = self.split(st.clone(), &b, &deps);
            let yes = match yes {
                Some(mut y) => {
                    let v = self.site_value(t.value, SiteKind::Update(t.var), None, &mut y)?;
                    y.vars.insert(t.var, v);
                    Some(y)
                }
                None => None,
            };
            match self.merge(&b, yes, no) {
                Some(m) => st = m,
                None => return Ok(None),
            }
        }
        Ok(Some(st))
    }

    fn is_hole(&self, site: &Expr) -> bool {
        self.holes.is_some_and(|h| h.sites.contains_key(&(site as *const Expr)))
    }

    /// `Extend`'s `if (guard) print; else call;` (no `else` without `otherwise`), both
    /// `guard` and `print` holes.
    #[allow(clippy::type_complexity)]
    fn print_if(&mut self, guard: &'p Expr, print: &'p Expr, otherwise: Option<(&'p Expr, &'p [Expr], Option<&'p Stmt>)>, mut st: State<'ctx>) -> R<State<'ctx>> {
        let (b, deps) = self.cond_site(guard, &mut st)?;
        let (yes, no) = self.split(st.clone(), &b, &deps);
        let yes = match yes {
            Some(mut y) => {
                self.print_site(print, &[], None, &mut y)?;
                Some(y)
            }
            None => None,
        };
        let no = match (no, otherwise) {
            (Some(mut n), Some((call, args, stmt))) => {
                self.print_site(call, args, stmt, &mut n)?;
                Some(n)
            }
            (n, _) => n,
        };
        Ok(self.merge(&b, yes, no).unwrap_or(st))
    }

    /// Splits `st` on condition `c` (a site): the states where it holds and where it does not.
    fn branch_on(&mut self, c: &'p Expr, mut st: State<'ctx>) -> R<(Option<State<'ctx>>, Option<State<'ctx>>)> {
        let (b, deps) = self.cond_site(c, &mut st)?;
        Ok(self.split(st, &b, &deps))
    }

    fn split(&self, st: State<'ctx>, b: &Bool<'ctx>, deps: &Deps) -> (Option<State<'ctx>>, Option<State<'ctx>>) {
        let mut yes = st.clone();
        let mut no = st;
        yes.guard = Bool::and(self.ctx, &[&yes.guard, b]).simplify();
        no.guard = Bool::and(self.ctx, &[&no.guard, &b.not()]).simplify();
        yes.guard_deps.extend(deps.iter().copied());
        no.guard_deps.extend(deps.iter().copied());
        let live = |s: State<'ctx>| (s.guard.as_bool() != Some(false)).then_some(s);
        (live(yes), live(no))
    }

    fn merge(&self, c: &Bool<'ctx>, a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
        merge_states(c, a, b)
    }

    fn ite_val(&self, c: &Bool<'ctx>, cdeps: &Deps, a: &Val<'ctx>, b: &Val<'ctx>) -> Val<'ctx> {
        ite_val(c, cdeps, a, b)
    }

    /// Executes a statement; `None` when every path left the region.
    fn stmt(&mut self, s: &'p Stmt, st: State<'ctx>) -> R<Option<State<'ctx>>> {
        match &s.kind {
            StmtKind::Empty => Ok(Some(st)),
            StmtKind::Expr(e) => Ok(Some(self.effect(e, Some(s), st)?)),
            StmtKind::Decl { var, init } => match init {
                None => Ok(Some(st)),
                Some(Init::Expr(e)) => {
                    let mut st = st;
                    let v = self.site_value(e, SiteKind::Update(*var), None, &mut st)?;
                    self.use_var(*var, Usage::Written);
                    st.vars.insert(*var, v);
                    Ok(Some(st))
                }
                Some(Init::List(_, span)) => unsupported("an initialiser list", *span),
            },
            StmtKind::VlaDecl { .. } => unsupported("a variable-length array", s.span),
            StmtKind::Block(stmts) => {
                let mut st = st;
                for x in stmts {
                    match self.stmt(x, st)? {
                        Some(n) => st = n,
                        None => return Ok(None),
                    }
                }
                Ok(Some(st))
            }
            StmtKind::If { cond, then, els } => {
                let mut st = st;
                let (b, deps) = self.cond_site(cond, &mut st)?;
                let (yes, no) = self.split(st, &b, &deps);
                let a = match yes {
                    Some(y) => self.stmt(then, y)?,
                    None => None,
                };
                let c = match (no, els) {
                    (Some(n), Some(e)) => self.stmt(e, n)?,
                    (n, None) => n,
                    (None, Some(_)) => None,
                };
                Ok(self.merge(&b, a, c))
            }
            StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. } => {
                let l = self.setup.tree.loop_of(s).expect("every loop is in the tree");
                let Some(mut st) = self.apply_tails(l, true, st)? else { return Ok(None) };
                if let StmtKind::For { init, .. } = &s.kind {
                    for i in init {
                        match self.stmt(i, st)? {
                            Some(n) => st = n,
                            None => return Ok(None),
                        }
                    }
                }
                self.exit(Node::LoopEntry(l), EdgeKind::Normal, st);
                Ok(None)
            }
            StmtKind::Break if !self.switches.is_empty() => {
                // Loops inside a `switch` are refused, so a `break` in one leaves the switch.
                self.switches.last_mut().expect("a switch").push(st);
                Ok(None)
            }
            StmtKind::Break => {
                let l = *self.loops.last().ok_or(Unsupported { what: "`break` outside a loop".into(), span: s.span })?;
                self.exit(Node::LoopExit(l), EdgeKind::Break, st);
                Ok(None)
            }
            StmtKind::Continue => {
                let l = *self.loops.last().ok_or(Unsupported { what: "`continue` outside a loop".into(), span: s.span })?;
                self.end_of_body(l, st, EdgeKind::Continue)?;
                Ok(None)
            }
            StmtKind::Return(e) => {
                let mut st = st;
                if let Some(end) = self.end_print.filter(|p| std::ptr::eq(p.before, s) && self.is_hole(p.guard)) {
                    st = self.print_if(end.guard, end.print, None, st)?;
                }
                if let Some(e) = e {
                    let v = self.site_value(e, SiteKind::Return, None, &mut st)?;
                    st.ret = Some(v);
                }
                self.exit(Node::FuncExit, EdgeKind::Return, st);
                Ok(None)
            }
            StmtKind::Switch { cond, arms } => self.switch(s, cond, arms, st),
        }
    }

    /// `switch (cond) { case k: ... }`: control enters at the arm whose label equals the value
    /// (`default:` when none does, past the switch when there is no `default:`), falls through
    /// the arms after it, and leaves at the end or by `break`. A loop inside is unsupported
    /// (the automaton's frames do not model falling through into the next arm).
    fn switch(&mut self, s: &'p Stmt, cond: &'p Expr, arms: &'p [crate::ir::SwitchArm], mut st: State<'ctx>) -> R<Option<State<'ctx>>> {
        let ctx = self.ctx;
        if let Some(l) = self.setup.tree.loops.iter().find(|l| s.span.start <= l.stmt.span.start && l.stmt.span.end <= s.span.end) {
            return unsupported("a loop inside `switch`", l.stmt.span);
        }
        let g = st.guard.clone();
        let v = self.eval(cond, &mut st, &g)?;
        let Term::Int(x, t) = &v.term else { return unsupported("`switch` on a floating point value", cond.span) };
        let is = |k: i64| x._eq(&c_int::constant(ctx, *t, k));
        let matched: Vec<Bool<'ctx>> = arms.iter().filter_map(|a| a.label.map(is)).collect();
        let refs: Vec<&Bool<'ctx>> = matched.iter().collect();
        let unmatched = Bool::or(ctx, &refs).not();
        self.switches.push(Vec::new());
        let mut cur: Option<State<'ctx>> = None;
        for arm in arms {
            let c = match arm.label {
                Some(k) => is(k),
                None => unmatched.clone(),
            };
            let (enter, _) = self.split(st.clone(), &c, &v.deps);
            cur = merge_disjoint(cur, enter);
            for x in &arm.body {
                let Some(at) = cur.take() else { break };
                cur = self.stmt(x, at)?;
            }
        }
        let breaks = self.switches.pop().expect("pushed above");
        if !arms.iter().any(|a| a.label.is_none()) {
            let (past, _) = self.split(st, &unmatched, &v.deps);
            cur = merge_disjoint(cur, past);
        }
        Ok(breaks.into_iter().fold(cur, |acc, b| merge_disjoint(acc, Some(b))))
    }

    /// A statement-level expression: assignments, `++`, calls.
    fn effect(&mut self, e: &'p Expr, stmt: Option<&'p Stmt>, mut st: State<'ctx>) -> R<State<'ctx>> {
        if element_update(e) {
            let g = st.guard.clone();
            self.update_element(e, &mut st, &g)?;
            return Ok(st);
        }
        match &e.kind {
            ExprKind::Assign(lhs, rhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.site_value(rhs, SiteKind::Update(v), stmt, &mut st)?;
                self.use_var(v, written_by(rhs));
                st.vars.insert(v, val);
                Ok(st)
            }
            ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.site_value(e, SiteKind::Update(v), stmt, &mut st)?;
                st.vars.insert(v, val);
                Ok(st)
            }
            ExprKind::Comma(a, b) => {
                let st = self.effect(a, None, st)?;
                self.effect(b, None, st)
            }
            ExprKind::Call(Callee::Builtin(Builtin::Printf), args) if stmt.is_some() => {
                let guarded = self.guarded_prints.iter().find(|p| std::ptr::eq(p.call, e)).copied();
                match guarded.filter(|p| self.is_hole(p.guard)) {
                    Some(gp) => self.print_if(gp.guard, gp.print, Some((e, args, stmt)), st),
                    None => {
                        self.print_site(e, args, stmt, &mut st)?;
                        Ok(st)
                    }
                }
            }
            ExprKind::Call(Callee::Builtin(Builtin::Fgets), args) => {
                let g = st.guard.clone();
                self.fgets(e, args, &mut st, &g)?;
                Ok(st)
            }
            _ => {
                let g = st.guard.clone();
                self.eval(e, &mut st, &g)?;
                Ok(st)
            }
        }
    }

    fn lvalue_var(&self, lhs: &Expr) -> R<VarId> {
        match &lhs.strip_implicit().kind {
            ExprKind::Var(v) if self.setup.program.var(*v).func.is_some() => Ok(*v),
            ExprKind::Var(_) => unsupported("assigning a global variable", lhs.span),
            _ => unsupported(format!("assigning to `{}`", crate::ir::print::expr_to_c(self.setup.program, lhs)), lhs.span),
        }
    }

    fn use_var(&mut self, v: VarId, u: Usage) {
        self.region.usage.push((v, u));
    }

    fn note_site(&mut self, e: &'p Expr, kind: SiteKind, stmt: Option<&'p Stmt>) {
        if self.seen_sites.insert(e as *const Expr) {
            self.region.sites.push(Site { expr: e, kind, stmt });
        }
    }

    /// A condition site: its truth value (a hole's choice when it is one).
    fn cond_site(&mut self, e: &'p Expr, st: &mut State<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let g = st.guard.clone();
        self.cond_site_in(e, SiteKind::Cond, st, &g)
    }

    /// A condition or atom site evaluated under guard `g` (for its runtime errors).
    fn cond_site_in(&mut self, e: &'p Expr, kind: SiteKind, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        self.note_site(e, kind, None);
        let g = g.clone();
        let hole = self.holes.and_then(|h| h.sites.get(&(e as *const Expr)));
        let Some((sel, alts)) = hole else {
            let v = self.eval_cond(e, st, &g)?;
            return Ok(v);
        };
        // A condition with side effects (a read, an assignment): each alternative replaces
        // them too, so each runs on its own copy of the state (see `Effects`).
        let mut effects = Effects::new(has_effects(e), st);
        let mut out: Option<(Bool<'ctx>, Deps)> = None;
        for (k, alt) in alts.iter().enumerate().rev() {
            // An alternative's runtime errors count only when it is chosen.
            let chosen = if alts.len() == 1 { Bool::from_bool(self.ctx, true) } else { sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS)) };
            let g = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            let (b, d) = match alt {
                Alt::Original => self.eval_cond(e, at, &g)?,
                Alt::Expr(x) if effects.on() => {
                    let v = self.eval_alt(x, at, &g)?;
                    (self.truthy(&v.term), v.deps)
                }
                Alt::Expr(x) => self.eval_cond_pure(x, at, &g)?,
                Alt::Bool(b) => (Bool::from_bool(self.ctx, *b), Deps::new()),
                Alt::Keep => continue,
            };
            effects.done(&chosen, scratch);
            out = Some(match out {
                None => (b, d),
                Some((rest, mut rd)) => {
                    rd.extend(d);
                    (chosen.ite(&b, &rest), rd)
                }
            });
        }
        effects.finish(st);
        Ok(out.expect("a hole has its original"))
    }

    /// The value of an update/print/return site, converted to the site's type.
    fn site_value(&mut self, e: &'p Expr, kind: SiteKind, stmt: Option<&'p Stmt>, st: &mut State<'ctx>) -> R<Val<'ctx>> {
        self.note_site(e, kind, stmt);
        let g = st.guard.clone();
        let hole = self.holes.and_then(|h| h.sites.get(&(e as *const Expr)));
        let site_ty = match kind {
            SiteKind::Update(v) => self.setup.program.var(v).ty.clone(),
            _ => e.ty.clone(),
        };
        let Some((sel, alts)) = hole else {
            return self.eval_site(e, kind, st, &g);
        };
        // `i++` and `x op= e` update the site's own variable, which the caller sets from the
        // value returned; any other side effect (`c = getchar()` reads) belongs to the
        // alternative that is chosen.
        let own_effects = match (&kind, &e.kind) {
            (SiteKind::Update(_), ExprKind::IncDec(..)) => false,
            (SiteKind::Update(_), ExprKind::CompoundAssign { rhs, .. }) => has_effects(rhs),
            _ => has_effects(e),
        };
        let mut effects = Effects::new(own_effects, st);
        let mut out: Option<Val<'ctx>> = None;
        for (k, alt) in alts.iter().enumerate().rev() {
            let chosen = if alts.len() == 1 { Bool::from_bool(self.ctx, true) } else { sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS)) };
            let g = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            let v = match alt {
                Alt::Original => self.eval_site(e, kind, at, &g)?,
                Alt::Expr(x) => {
                    let v = if effects.on() { self.eval_alt(x, at, &g)? } else { self.eval_pure(x, at, &g)? };
                    self.convert(v, &site_ty, x.span)?
                }
                Alt::Keep => match kind {
                    SiteKind::Update(v) => at.vars[&v].clone(),
                    _ => continue,
                },
                Alt::Bool(_) => continue,
            };
            effects.done(&chosen, scratch);
            out = Some(match out {
                None => v,
                Some(rest) => self.ite_val(&chosen, &Deps::new(), &v, &rest),
            });
        }
        effects.finish(st);
        Ok(out.expect("a hole has its original"))
    }

    /// A site as written: for `i++` and `x op= e`, the variable's new value (not the value of
    /// the expression, which for `i++` is the old one).
    fn eval_site(&mut self, e: &'p Expr, kind: SiteKind, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let v = self.eval(e, st, g)?;
        match (kind, &e.kind) {
            (SiteKind::Update(var), ExprKind::IncDec(..) | ExprKind::CompoundAssign { .. }) => Ok(st.vars[&var].clone()),
            _ => Ok(v),
        }
    }

    fn eval_cond(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let v = self.eval(e, st, g)?;
        Ok((self.truthy(&v.term), v.deps))
    }

    /// Alternatives are evaluated without side effects on the state.
    fn eval_cond_pure(&mut self, e: &Expr, st: &State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let v = self.eval_pure(e, st, g)?;
        Ok((self.truthy(&v.term), v.deps))
    }

    fn eval_pure(&mut self, e: &Expr, st: &State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let mut scratch = st.clone();
        self.eval_alt(e, &mut scratch, g)
    }

    /// An alternative evaluated in place of a site, its side effects on `st`.
    fn eval_alt(&mut self, e: &Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        // SAFETY of the lifetime: alternatives are never recorded as sites (their sites and
        // usage are dropped below), so a shorter-lived expression is fine here.
        let e: &'p Expr = unsafe { &*(e as *const Expr) };
        let sites = self.region.sites.len();
        let usage = self.region.usage.len();
        let v = self.eval(e, st, g);
        self.region.sites.truncate(sites);
        self.region.usage.truncate(usage);
        v
    }

    fn truthy(&self, t: &Term<'ctx>) -> Bool<'ctx> {
        match t {
            Term::Int(b, _) => c_int::truthy(b),
            Term::Float(f, k) => {
                let z = self.fp.literal(0.0, *k);
                f._eq(&z).not()
            }
            // An array decays to a pointer that is never null.
            Term::Array(..) => Bool::from_bool(self.ctx, true),
        }
    }

    fn int_val(&self, b: BV<'ctx>, t: IntType, deps: Deps) -> Val<'ctx> {
        Val { term: Term::Int(b, t), deps }
    }

    fn bool_val(&self, b: Bool<'ctx>, deps: Deps) -> Val<'ctx> {
        Val { term: Term::Int(c_int::from_bool(&b, IntType::INT), IntType::INT), deps }
    }

    /// Converts a value to type `to` (C's conversions between arithmetic types).
    fn convert(&mut self, v: Val<'ctx>, to: &Type, span: Span) -> R<Val<'ctx>> {
        let term = match (&v.term, to) {
            (Term::Int(b, from), Type::Int(t)) => {
                if t.kind == crate::ir::IntKind::Bool {
                    Term::Int(c_int::from_bool(&c_int::truthy(b), *t), *t)
                } else {
                    Term::Int(c_int::cast(b, *from, *t), *t)
                }
            }
            (Term::Int(b, from), Type::Float(k)) => Term::Float(self.fp.int_to_float(b, from.signed, *k), *k),
            (Term::Float(f, _), Type::Int(t)) => Term::Int(self.fp.float_to_int(f, t.signed, c_int::width(*t)), *t),
            (Term::Float(f, from), Type::Float(k)) => {
                if from == k {
                    v.term.clone()
                } else {
                    Term::Float(self.fp.convert(f, *k), *k)
                }
            }
            (_, other) => return unsupported(format!("a value of type `{}`", self.setup.program.type_name(other)), span),
        };
        Ok(Val { term, deps: v.deps })
    }

    fn error(&mut self, cond: Bool<'ctx>, deps: Deps, span: Span) {
        let c = cond.simplify();
        if c.as_bool() != Some(false) {
            self.region.errors.push((c, deps, span));
        }
    }

    fn union(a: &Deps, b: &Deps) -> Deps {
        a.union(b).copied().collect()
    }

    fn eval(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        match &e.kind {
            ExprKind::Int(n) => match &e.ty {
                Type::Int(t) => Ok(self.int_val(c_int::constant(ctx, *t, *n), *t, Deps::new())),
                Type::Float(k) => Ok(Val { term: Term::Float(self.fp.literal(*n as f64, *k), *k), deps: Deps::new() }),
                _ => unsupported("a constant of this type", e.span),
            },
            ExprKind::Float(x) => match &e.ty {
                Type::Float(k) => Ok(Val { term: Term::Float(self.fp.literal(*x, *k), *k), deps: Deps::new() }),
                _ => unsupported("a constant of this type", e.span),
            },
            ExprKind::Var(v) => match st.vars.get(v) {
                Some(Val { term: Term::Array(..), .. }) => unsupported(format!("the array `{}` used as a value", self.setup.program.var(*v).name), e.span),
                Some(val) => {
                    self.use_var(*v, Usage::Read);
                    // A reference expression renamed into the student's variables keeps the
                    // reference's types: convert where the two declare a variable differently.
                    let val = val.clone();
                    let same = matches!((&val.term, &e.ty), (Term::Int(_, t), Type::Int(u)) if t == u)
                        || matches!((&val.term, &e.ty), (Term::Float(_, k), Type::Float(j)) if k == j);
                    if same { Ok(val) } else { self.convert(val, &e.ty, e.span) }
                }
                None => unsupported(format!("the global variable `{}`", self.setup.program.var(*v).name), e.span),
            },
            ExprKind::Cast { expr, .. } => {
                let v = self.eval(expr, st, g)?;
                self.convert(v, &e.ty, e.span)
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(a, st, g)?;
                let deps = v.deps.clone();
                match (op, &v.term) {
                    (UnOp::Neg, Term::Int(b, t)) => Ok(self.int_val(c_int::neg(b), *t, deps)),
                    (UnOp::BitNot, Term::Int(b, t)) => Ok(self.int_val(c_int::bit_not(b), *t, deps)),
                    (UnOp::Neg, Term::Float(f, k)) => Ok(Val { term: Term::Float(self.fp.neg(f, *k), *k), deps }),
                    (UnOp::Not, t) => {
                        let b = self.truthy(t).not();
                        Ok(self.bool_val(b, deps))
                    }
                    _ => unsupported("this unary operator", e.span),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let va = self.eval(a, st, g)?;
                let vb = self.eval(b, st, g)?;
                self.note_operands(&[a, b], *op);
                self.binary(*op, &va, &vb, g, e.span)
            }
            ExprKind::Logical(op, a, b) => {
                let (x, dx) = self.operand(a, st, g)?;
                let inner = match op {
                    LogicOp::And => Bool::and(ctx, &[g, &x]),
                    LogicOp::Or => Bool::and(ctx, &[g, &x.not()]),
                };
                // The right operand runs only when the left one does not decide: its side
                // effects (`c != '\n' && (c = getchar()) != EOF`) happen under that condition.
                let before = has_effects(b).then(|| st.clone());
                let (y, dy) = self.operand(b, st, &inner)?;
                if let Some(before) = before {
                    let runs = match op {
                        LogicOp::And => x.clone(),
                        LogicOp::Or => x.not(),
                    };
                    let after = std::mem::replace(st, before.clone());
                    *st = merge_states(&runs, Some(after), Some(before)).expect("both present");
                }
                let r = match op {
                    LogicOp::And => Bool::and(ctx, &[&x, &y]),
                    LogicOp::Or => Bool::or(ctx, &[&x, &y]),
                };
                Ok(self.bool_val(r, Self::union(&dx, &dy)))
            }
            ExprKind::Cond(c, a, b) => {
                let (x, dc) = self.cond_site(c, st)?;
                let before = st.vars.clone();
                let ga = Bool::and(ctx, &[g, &x]);
                let gb = Bool::and(ctx, &[g, &x.not()]);
                let va = self.eval(a, st, &ga)?;
                let vb = self.eval(b, st, &gb)?;
                if !same_vars(&before, &st.vars) || [a, b].iter().any(|x| reads(x)) {
                    return unsupported("side effects in the arms of `?:`", e.span);
                }
                Ok(self.ite_val(&x, &dc, &va, &vb))
            }
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) => self.update_expr(e, st, g),
            ExprKind::Comma(a, b) => {
                self.eval(a, st, g)?;
                self.eval(b, st, g)
            }
            ExprKind::SizeOf { size, .. } => match &e.ty {
                Type::Int(t) => Ok(self.int_val(c_int::constant(ctx, *t, *size as i64), *t, Deps::new())),
                _ => unsupported("sizeof of this type", e.span),
            },
            ExprKind::Call(Callee::Builtin(b), args) => self.builtin(*b, e, args, st, g),
            ExprKind::Call(Callee::Func(f), args) => self.call(*f, e, args, st, g),
            ExprKind::Str(_) => unsupported("a string", e.span),
            ExprKind::Index(base, idx) => {
                let (v, at) = self.element(base, idx, st, g, e.span)?;
                let Some(Val { term: Term::Array(a, t, _), deps }) = st.vars.get(&v) else { unreachable!("an array") };
                self.use_var(v, Usage::Read);
                let x = a.select(&at.index).as_bv().expect("a bit-vector element");
                Ok(self.int_val(x, *t, Self::union(deps, &at.deps)))
            }
            ExprKind::Member { .. } => unsupported("a struct", e.span),
            ExprKind::AddrOf(_) | ExprKind::Deref(_) | ExprKind::Decay(_) => unsupported("a pointer", e.span),
        }
    }

    /// `a op b` on values already converted to the operation's type; a division or remainder
    /// by zero (or `INT_MIN / -1`) under guard `g` is a runtime error.
    fn binary(&mut self, op: BinOp, a: &Val<'ctx>, b: &Val<'ctx>, g: &Bool<'ctx>, span: Span) -> R<Val<'ctx>> {
        let deps = Self::union(&a.deps, &b.deps);
        match (&a.term, &b.term) {
            (Term::Int(x, t), Term::Int(y, _)) => {
                if op.is_comparison() {
                    let c = c_int::compare(op, x, y, t.signed).expect("a comparison");
                    return Ok(self.bool_val(c, deps));
                }
                if matches!(op, BinOp::Div | BinOp::Rem) {
                    let bad = c_int::defined(op, x, y, *t).not();
                    self.error(Bool::and(self.ctx, &[g, &bad]), deps.clone(), span);
                }
                match c_int::arith(op, x, y, *t) {
                    Some(r) => Ok(self.int_val(r, *t, deps)),
                    None => unsupported("this operator", span),
                }
            }
            (Term::Float(x, k), Term::Float(y, _)) => {
                let arith = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                        // One order predicate, `fp.leq`, in both orientations: `x < y` is
                        // `!(y <= x)` when neither is NaN. The student's `score < a` and the
                        // reference's `score >= a` then share an atom, and an equivalence proof
                        // needs no bit-level reasoning that `fp.lt` and `fp.leq` are complements
                        // (Z3 took over 10 s on five-way grade comparisons without it).
                        let mut less = |x: &Float<'ctx>, y: &Float<'ctx>| {
                            let not_nan = Bool::and(self.ctx, &[&self.fp.is_nan(x).not(), &self.fp.is_nan(y).not()]);
                            Bool::and(self.ctx, &[&self.fp.compare("fp.leq", y, x).not(), &not_nan])
                        };
                        let c = match op {
                            BinOp::Lt => less(x, y),
                            BinOp::Le => self.fp.compare("fp.leq", x, y),
                            BinOp::Gt => less(y, x),
                            BinOp::Ge => self.fp.compare("fp.leq", y, x),
                            BinOp::Eq => self.fp.compare("fp.eq", x, y),
                            _ => self.fp.compare("fp.eq", x, y).not(),
                        };
                        return Ok(self.bool_val(c, deps));
                    }
                    _ => return unsupported("this operator on floating point values", span),
                };
                Ok(Val { term: Term::Float(self.fp.arith(arith, x, y, *k), *k), deps })
            }
            _ => unsupported("mixed operand types", span),
        }
    }

    /// An operand of `&&`/`||`: nested logic is walked into, anything else is an atom site.
    fn operand(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        if matches!(e.strip_implicit().kind, ExprKind::Logical(..)) {
            self.eval_cond(e, st, g)
        } else {
            self.cond_site_in(e, SiteKind::Atom, st, g)
        }
    }

    fn note_operands(&mut self, operands: &[&Expr], op: BinOp) {
        for o in operands {
            if let ExprKind::Var(v) = o.strip_implicit().kind {
                self.use_var(v, Usage::Operand(op.c_token()));
            }
        }
    }

    /// An assignment, `op=` or `++` inside an expression: its value, with the state updated.
    fn update_expr(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        if element_update(e) {
            return self.update_element(e, st, g);
        }
        match &e.kind {
            ExprKind::Assign(lhs, rhs) => {
                let v = self.lvalue_var(lhs)?;
                let val = self.eval(rhs, st, g)?;
                self.use_var(v, written_by(rhs));
                st.vars.insert(v, val.clone());
                Ok(val)
            }
            ExprKind::CompoundAssign { op, op_ty, lhs, rhs } => {
                let v = self.lvalue_var(lhs)?;
                let var_ty = self.setup.program.var(v).ty.clone();
                let old = st.vars[&v].clone();
                let r = self.eval(rhs, st, g)?;
                let l = self.convert(old, op_ty, lhs.span)?;
                self.use_var(v, Usage::Operand(op.c_token()));
                let combined = self.binary(*op, &l, &r, g, e.span)?;
                let new = self.convert(combined, &var_ty, e.span)?;
                self.use_var(v, Usage::Written);
                st.vars.insert(v, new.clone());
                Ok(new)
            }
            ExprKind::IncDec(kind, lhs) => {
                let v = self.lvalue_var(lhs)?;
                let old = st.vars[&v].clone();
                let Term::Int(x, t) = &old.term else { return unsupported("`++`/`--` of a floating point variable", e.span) };
                let one = c_int::constant(ctx, *t, 1);
                let new = match kind {
                    IncDec::PreInc | IncDec::PostInc => c_int::add(x, &one),
                    IncDec::PreDec | IncDec::PostDec => c_int::sub(x, &one),
                };
                let new = Val { term: Term::Int(new, *t), deps: old.deps.clone() };
                self.use_var(v, Usage::Incremented);
                st.vars.insert(v, new.clone());
                Ok(if matches!(kind, IncDec::PostInc | IncDec::PostDec) { old } else { new })
            }
            _ => unreachable!("an update expression"),
        }
    }

    fn call(&mut self, f: FuncId, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let Some(name) = self.setup.callee_names.get(&f).cloned() else {
            return unsupported(format!("calling `{}`", self.setup.program.func(f).name), e.span);
        };
        let mut vals = Vec::new();
        let mut deps = st.guard_deps.clone();
        for a in args {
            let v = self.eval(a, st, g)?;
            deps.extend(v.deps.iter().copied());
            vals.push(v.term.dynamic());
        }
        let (sort, ty) = match &e.ty {
            Type::Int(t) => (Sort::bitvector(self.ctx, c_int::width(*t)), e.ty.clone()),
            Type::Float(k) => (fp::sort(self.ctx, *k), e.ty.clone()),
            Type::Void => (Sort::bitvector(self.ctx, 8), Type::Int(IntType::CHAR)),
            other => return unsupported(format!("a function returning `{}`", self.setup.program.type_name(other)), e.span),
        };
        let r = self.world.call(&name, &vals, &sort);
        let term = match ty {
            Type::Int(t) => Term::Int(r.as_bv().expect("bit-vector result"), t),
            Type::Float(k) => Term::Float(r.as_float().expect("float result"), k),
            _ => unreachable!(),
        };
        Ok(Val { term, deps })
    }

    fn builtin(&mut self, b: Builtin, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let name = format!("{b:?}").to_lowercase();
        let one = |this: &mut Self, st: &mut State<'ctx>| -> R<Val<'ctx>> {
            match args.first() {
                Some(a) => this.eval(a, st, g),
                None => unsupported(format!("`{name}` without an argument"), e.span),
            }
        };
        match b {
            Builtin::Printf => self.printf(e, args, st, g, e),
            Builtin::Scanf => self.scanf(e, args, st),
            Builtin::Getchar => Ok(self.getchar(st)),
            Builtin::Fgets => unsupported("using the value `fgets` returns", e.span),
            Builtin::Strlen => self.strlen(e, args, st, g),
            Builtin::Putchar => self.putchar(e, args, st, g),
            Builtin::Abs | Builtin::Labs => {
                let v = one(self, st)?;
                let Term::Int(x, t) = &v.term else { return unsupported("abs of a non-integer", e.span) };
                let z = BV::from_u64(ctx, 0, x.get_size());
                Ok(self.int_val(x.bvslt(&z).ite(&x.bvneg(), x), *t, v.deps.clone()))
            }
            Builtin::Fabs => {
                let v = one(self, st)?;
                let Term::Float(x, k) = &v.term else { return unsupported("fabs of a non-float", e.span) };
                Ok(Val { term: Term::Float(self.fp.abs(x, *k), *k), deps: v.deps.clone() })
            }
            Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Sqrt => {
                let v = one(self, st)?;
                let v = self.convert(v, &Type::DOUBLE, e.span)?;
                let Term::Float(x, _) = &v.term else { unreachable!() };
                let r = self.fp.math(&name, x, FloatKind::Double).expect("a math function");
                let r = Val { term: Term::Float(r, FloatKind::Double), deps: v.deps.clone() };
                self.convert(r, &e.ty, e.span)
            }
            Builtin::Isdigit | Builtin::Isalpha | Builtin::Isspace | Builtin::Isupper | Builtin::Islower => {
                let v = one(self, st)?;
                let Term::Int(x, t) = &v.term else { return unsupported("a character class of a non-integer", e.span) };
                let c = c_int::cast(x, *t, IntType::INT);
                let within = |lo: u8, hi: u8| {
                    Bool::and(ctx, &[&c.bvsge(&BV::from_i64(ctx, lo as i64, 32)), &c.bvsle(&BV::from_i64(ctx, hi as i64, 32))])
                };
                let r = match b {
                    Builtin::Isdigit => within(b'0', b'9'),
                    Builtin::Isupper => within(b'A', b'Z'),
                    Builtin::Islower => within(b'a', b'z'),
                    Builtin::Isalpha => Bool::or(ctx, &[&within(b'A', b'Z'), &within(b'a', b'z')]),
                    _ => Bool::or(ctx, &[&within(9, 13), &c._eq(&BV::from_i64(ctx, 32, 32))]),
                };
                Ok(self.bool_val(r, v.deps.clone()))
            }
            other => unsupported(format!("the library function `{}`", format!("{other:?}").to_lowercase()), e.span),
        }
    }

    fn scanf(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>) -> R<Val<'ctx>> {
        let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else {
            return unsupported("a scanf format that is not a literal", e.span);
        };
        let pieces = cfmt::parse(fmt, true).map_err(|_| Unsupported { what: "a malformed scanf format".into(), span: e.span })?;
        if stream::char_format(&pieces) {
            return self.scanf_chars(e, &pieces, args, st);
        }
        let mut rest = args[1..].iter();
        let mut count = 0u64;
        // The last piece was whitespace: a `%c` after it skips whitespace like a token read.
        let mut skips_ws = false;
        for p in pieces {
            let d = match p {
                Piece::Literal(bytes) => {
                    skips_ws = bytes.last().is_some_and(|b| b.is_ascii_whitespace());
                    continue;
                }
                Piece::Directive(d) => d,
            };
            let after_ws = std::mem::take(&mut skips_ws);
            if d.suppress || d.conv == '%' {
                if d.suppress {
                    st.in_pos = st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)).simplify();
                }
                continue;
            }
            let Some(arg) = rest.next() else { return unsupported("scanf with too few arguments", e.span) };
            let ExprKind::AddrOf(target) = &arg.strip_implicit().kind else {
                return unsupported("scanf into something other than `&variable`", arg.span);
            };
            let v = self.lvalue_var(target)?;
            let ty = self.setup.program.var(v).ty.clone();
            let pos = st.in_pos.clone();
            let term = match d.conv {
                'd' | 'i' | 'u' | 'f' | 'e' | 'g' | 'F' | 'E' | 'G' => self.world.number_token(&mut self.fp, d.conv, &pos).expect("a number conversion"),
                // ` %c` among tokens: the first character of the next token. A `%c` right
                // after another conversion reads the character after a token, which the token
                // model does not represent.
                'c' if after_ws => {
                    let raw = self.world.input("in.chr", &pos, &Sort::bitvector(self.ctx, 8)).as_bv().expect("char input");
                    Term::Int(raw, IntType::CHAR)
                }
                'c' => return unsupported("`%c` without a space before it in a format that also reads tokens", arg.span),
                other => return unsupported(format!("reading `%{other}`"), arg.span),
            };
            let val = self.convert(Val { term, deps: Deps::new() }, &ty, arg.span)?;
            self.use_var(v, Usage::Scanned);
            st.vars.insert(v, val);
            st.in_pos = st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)).simplify();
            count += 1;
        }
        Ok(self.int_val(c_int::constant(self.ctx, IntType::INT, count as i64), IntType::INT, Deps::new()))
    }

    /// Reads one character of the character stream: whether there was one (`pos < in.len`)
    /// and the byte; the position advances when there was.
    fn read_char(&mut self, st: &mut State<'ctx>) -> (Bool<'ctx>, BV<'ctx>) {
        let yes = Bool::from_bool(self.ctx, true);
        self.read_char_if(st, &yes)
    }

    /// Reads one character when `wanted` holds (`fgets` stops after a newline): whether a
    /// character was read, and the byte at the position.
    fn read_char_if(&mut self, st: &mut State<'ctx>, wanted: &Bool<'ctx>) -> (Bool<'ctx>, BV<'ctx>) {
        if !self.line_assumed {
            self.line_assumed = true;
            self.region.assumed.push(self.world.line_assumption());
        }
        // Before the newline there is a character: the read succeeds (no `ite` with the old
        // value, whose variable would then look live).
        let below_nl = self.below_nl.as_ref().is_some_and(|p| *p == st.in_pos) || st.in_pos.as_u64() == Some(0);
        let there = if below_nl { Bool::from_bool(self.ctx, true) } else { st.in_pos.bvult(&self.world.len()).simplify() };
        let ok = Bool::and(self.ctx, &[wanted, &there]).simplify();
        let byte = self.world.input("in.chr", &st.in_pos, &Sort::bitvector(self.ctx, 8)).as_bv().expect("char input");
        st.in_pos = ok.ite(&st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)), &st.in_pos).simplify();
        (ok, byte)
    }

    /// The local array `base` names (`a` in `a[i]`, `fgets(a, ...)`): its variable, elements
    /// and length.
    fn array_of(&self, base: &Expr, st: &State<'ctx>) -> R<(VarId, Array<'ctx>, IntType, u64, Deps)> {
        let inner = base.strip_implicit();
        if let ExprKind::Var(v) = inner.kind
            && let Some(Val { term: Term::Array(a, t, n), deps }) = st.vars.get(&v)
        {
            return Ok((v, a.clone(), *t, *n, deps.clone()));
        }
        let what = match &inner.ty {
            Type::Array(_, None) => "an array of unknown length",
            Type::Array(..) => "an array that is not a local variable",
            _ => "a pointer",
        };
        unsupported(what, base.span)
    }

    /// The element `base[idx]` addresses: the array variable and the 32-bit index. An index
    /// outside `0..length` is a runtime error under `g`.
    fn element(&mut self, base: &'p Expr, idx: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>, span: Span) -> R<(VarId, Elem<'ctx>)> {
        let (v, _, _, n, _) = self.array_of(base, st)?;
        if has_effects(idx) {
            return unsupported("side effects in an array index", idx.span);
        }
        let i = self.eval(idx, st, g)?;
        let Term::Int(b, t) = &i.term else { return unsupported("a floating point array index", idx.span) };
        let wide = c_int::resize(b, t.signed, 64);
        let ok = Bool::and(self.ctx, &[&wide.bvsge(&BV::from_i64(self.ctx, 0, 64)), &wide.bvslt(&BV::from_i64(self.ctx, n as i64, 64))]);
        self.error(Bool::and(self.ctx, &[g, &ok.not()]), i.deps.clone(), span);
        Ok((v, Elem { index: wide.extract(31, 0).simplify(), deps: i.deps }))
    }

    /// Stores `x` at `at` in array `v`.
    fn store(&mut self, v: VarId, at: &Elem<'ctx>, x: &Val<'ctx>, st: &mut State<'ctx>) {
        let Some(Val { term: Term::Array(a, t, n), deps }) = st.vars.get(&v) else { unreachable!("an array") };
        let Term::Int(b, _) = &x.term else { unreachable!("an integer element") };
        let mut deps = Self::union(deps, &at.deps);
        deps.extend(x.deps.iter().copied());
        let term = Term::Array(a.store(&at.index, b), *t, *n);
        self.use_var(v, Usage::Written);
        st.vars.insert(v, Val { term, deps });
    }

    /// `a[i] = e`, `a[i] op= e`, `a[i]++`: the expression's value, the element updated. Not a
    /// repair site.
    fn update_element(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let lhs = match &e.kind {
            ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => lhs,
            _ => unreachable!("an update"),
        };
        let ExprKind::Index(base, idx) = &lhs.strip_implicit().kind else { unreachable!("an element") };
        // The right side first (gcc's order for a plain assignment; an index has no effects).
        let rhs = match &e.kind {
            ExprKind::Assign(_, r) | ExprKind::CompoundAssign { rhs: r, .. } => Some(self.eval(r, st, g)?),
            _ => None,
        };
        let (v, at) = self.element(base, idx, st, g, lhs.span)?;
        let Some(Val { term: Term::Array(a, t, _), deps }) = st.vars.get(&v) else { unreachable!("an array") };
        let (t, elem_ty) = (*t, Type::Int(*t));
        let old = self.int_val(a.select(&at.index).as_bv().expect("a bit-vector element"), t, Self::union(deps, &at.deps));
        let (new, value) = match &e.kind {
            ExprKind::Assign(..) => {
                let x = self.convert(rhs.expect("a right side"), &elem_ty, e.span)?;
                (x.clone(), x)
            }
            ExprKind::CompoundAssign { op, op_ty, .. } => {
                let l = self.convert(old, op_ty, lhs.span)?;
                let combined = self.binary(*op, &l, &rhs.expect("a right side"), g, e.span)?;
                let x = self.convert(combined, &elem_ty, e.span)?;
                (x.clone(), x)
            }
            ExprKind::IncDec(kind, _) => {
                let Term::Int(x, _) = &old.term else { unreachable!() };
                let one = c_int::constant(self.ctx, t, 1);
                let n = match kind {
                    IncDec::PreInc | IncDec::PostInc => c_int::add(x, &one),
                    IncDec::PreDec | IncDec::PostDec => c_int::sub(x, &one),
                };
                let new = self.int_val(n, t, old.deps.clone());
                let value = if matches!(kind, IncDec::PostInc | IncDec::PostDec) { old } else { new.clone() };
                (new, value)
            }
            _ => unreachable!(),
        };
        self.store(v, &at, &new, st);
        Ok(value)
    }

    /// `fgets(buf, n, stdin)` as a statement, as glibc: reads up to `n - 1` characters,
    /// stopping after a newline (which it stores); then stores `'\0'` after them. When the
    /// input is at its end before any character, the array is left unchanged (and `NULL`
    /// returned, which the model does not use). `n` must evaluate to a constant of at least 2
    /// (or, for a repair hole, every alternative to one).
    fn fgets(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<()> {
        let ctx = self.ctx;
        let [buf, n, _] = args else { return unsupported("`fgets` without three arguments", e.span) };
        let (v, mut a, t, size, deps) = self.array_of(buf, st)?;
        if c_int::width(t) != 8 {
            return unsupported("`fgets` into an array of wider elements than `char`", buf.span);
        }
        let n = self.site_value(n, SiteKind::Size, None, st)?;
        let Term::Int(nb, nt) = &n.term else { return unsupported("a floating point `fgets` size", e.span) };
        let leaves: Vec<Option<i64>> = constant_leaves(&nb.simplify()).into_iter().map(|x| x.map(|u| signed_value(u, nb.get_size(), nt.signed))).collect();
        let nb = c_int::resize(nb, nt.signed, 64).simplify();
        let Some(most) = leaves.iter().try_fold(i64::MIN, |m, x| x.map(|x| m.max(x))) else {
            return unsupported("`fgets` with a size that is not a constant", args[1].span);
        };
        if leaves.iter().any(|x| x.is_some_and(|x| x < 2)) {
            return unsupported("`fgets` with a size below 2", args[1].span);
        }
        let one32 = BV::from_u64(ctx, 1, 32);
        let mut going = Bool::from_bool(ctx, true);
        let mut count = BV::from_u64(ctx, 0, 32);
        let mut first = None;
        for k in 0..(most - 1) as u64 {
            // Room for another character: `k < n - 1`.
            let room = BV::from_u64(ctx, k + 1, 64).bvslt(&nb).simplify();
            let wanted = Bool::and(ctx, &[&going, &room]).simplify();
            if wanted.as_bool() == Some(false) {
                break;
            }
            let (ok, byte) = self.read_char_if(st, &wanted);
            let at = BV::from_u64(ctx, k, 32);
            if k >= size {
                self.error(Bool::and(ctx, &[g, &ok]), deps.clone(), e.span);
            }
            a = ok.ite(&a.store(&at, &byte), &a);
            count = ok.ite(&at.bvadd(&one32), &count).simplify();
            going = Bool::and(ctx, &[&ok, &byte._eq(&BV::from_u64(ctx, b'\n' as u64, 8)).not()]).simplify();
            first.get_or_insert(ok);
        }
        // Nothing read: the input was at its end (glibc returns NULL, the array unchanged).
        let got = first.expect("a size of 2 at least reads once");
        if most > size as i64 {
            let past = count.bvuge(&BV::from_u64(ctx, size, 32));
            self.error(Bool::and(ctx, &[g, &got, &past]), deps.clone(), e.span);
        }
        a = got.ite(&a.store(&count, &BV::from_u64(ctx, 0, 8)), &a);
        self.use_var(v, Usage::Scanned);
        let mut d = deps;
        d.extend(n.deps.iter().copied());
        st.vars.insert(v, Val { term: Term::Array(a, t, size), deps: d });
        Ok(())
    }

    /// `strlen(a)`: the index of the first `'\0'` of the local array `a`; none within its
    /// length is a runtime error (the read runs past the end).
    fn strlen(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let Some(arg) = args.first() else { return unsupported("`strlen` without an argument", e.span) };
        let (v, a, t, size, deps) = self.array_of(arg, st)?;
        let Type::Int(rt) = e.ty else { return unsupported("`strlen` of this type", e.span) };
        if c_int::width(t) != 8 {
            return unsupported("`strlen` of an array of wider elements than `char`", arg.span);
        }
        self.use_var(v, Usage::Read);
        let zero = BV::from_u64(ctx, 0, 8);
        let mut len = c_int::constant(ctx, rt, size as i64);
        let mut none = Vec::new();
        for k in (0..size).rev() {
            let is_nul = a.select(&BV::from_u64(ctx, k, 32)).as_bv().expect("a byte")._eq(&zero);
            len = is_nul.ite(&c_int::constant(ctx, rt, k as i64), &len);
            none.push(is_nul.not());
        }
        let refs: Vec<&Bool<'ctx>> = none.iter().collect();
        self.error(Bool::and(ctx, &[g, &Bool::and(ctx, &refs)]), deps.clone(), e.span);
        Ok(self.int_val(len.simplify(), rt, deps))
    }

    /// `getchar()`: the next byte as an `int` (0 to 255), or -1 (`EOF`) at the end of input.
    fn getchar(&mut self, st: &mut State<'ctx>) -> Val<'ctx> {
        let (ok, byte) = self.read_char(st);
        let c = ok.ite(&byte.zero_ext(24), &c_int::constant(self.ctx, IntType::INT, -1));
        self.int_val(c, IntType::INT, Deps::new())
    }

    /// `scanf` with only `%c` directives on the character stream, as glibc: each directive
    /// takes one character; at the end of input scanf stops, the variables left unchanged;
    /// it returns `EOF` when it stopped before assigning anything, else how many it assigned.
    fn scanf_chars(&mut self, e: &'p Expr, pieces: &[Piece], args: &'p [Expr], st: &mut State<'ctx>) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let mut rest = args[1..].iter();
        let mut done = c_int::constant(ctx, IntType::INT, 0);
        let mut failed = Bool::from_bool(ctx, false);
        let one = c_int::constant(ctx, IntType::INT, 1);
        for p in pieces {
            let Piece::Directive(d) = p else { unreachable!("a character format") };
            // After a failure the position is at the end, so every later read fails too.
            let (ok, byte) = self.read_char(st);
            failed = Bool::or(ctx, &[&failed, &ok.not()]).simplify();
            if d.suppress {
                continue;
            }
            let Some(arg) = rest.next() else { return unsupported("scanf with too few arguments", e.span) };
            let ExprKind::AddrOf(target) = &arg.strip_implicit().kind else {
                return unsupported("scanf into something other than `&variable`", arg.span);
            };
            let v = self.lvalue_var(target)?;
            let old = st.vars[&v].clone();
            // `%c` stores one byte at the variable's address (little-endian: its low byte).
            let stored = match (&old.term, &self.setup.program.var(v).ty) {
                (Term::Int(x, t), Type::Int(_)) if t.kind != crate::ir::IntKind::Bool => {
                    let w = x.get_size();
                    if w == 8 { byte.clone() } else { x.extract(w - 1, 8).concat(&byte) }
                }
                (_, ty) => return unsupported(format!("`%c` into a variable of type `{}`", self.setup.program.type_name(ty)), arg.span),
            };
            let Term::Int(x, t) = &old.term else { unreachable!() };
            let whole = stored.get_size() == 8;
            let new = match ok.as_bool() {
                Some(true) => Val { term: Term::Int(stored, *t), deps: if whole { Deps::new() } else { old.deps.clone() } },
                _ => Val { term: Term::Int(ok.ite(&stored, x).simplify(), *t), deps: old.deps.clone() },
            };
            self.use_var(v, Usage::Scanned);
            st.vars.insert(v, new);
            done = ok.ite(&c_int::add(&done, &one), &done).simplify();
        }
        let zero = c_int::constant(ctx, IntType::INT, 0);
        let eof = Bool::and(ctx, &[&failed, &done._eq(&zero)]);
        let ret = eof.ite(&c_int::constant(ctx, IntType::INT, -1), &done).simplify();
        Ok(self.int_val(ret, IntType::INT, Deps::new()))
    }

    /// A `printf` statement as a site: the original, another print (a reference's, renamed),
    /// or none; each alternative's tokens are printed under its selector, and whether they are
    /// compared is decided by where the statement is (a prompt's place stays a prompt's).
    fn print_site(&mut self, e: &'p Expr, args: &'p [Expr], stmt: Option<&'p Stmt>, st: &mut State<'ctx>) -> R<()> {
        self.note_site(e, SiteKind::PrintCall, stmt);
        let g = st.guard.clone();
        let Some((sel, alts)) = self.holes.and_then(|h| h.sites.get(&(e as *const Expr))) else {
            self.printf(e, args, st, &g, e)?;
            return Ok(());
        };
        // Arguments with side effects (`printf("%d", i++)`): deleting or replacing the
        // statement removes them, so each alternative runs on its own copy of the state.
        let mut effects = Effects::new(args.iter().any(has_effects), st);
        for (k, alt) in alts.iter().enumerate() {
            let chosen = if alts.len() == 1 { Bool::from_bool(self.ctx, true) } else { sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS)) };
            let gk = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            match alt {
                Alt::Original => {
                    self.printf(e, args, at, &gk, e)?;
                }
                Alt::Expr(call) => {
                    let ExprKind::Call(Callee::Builtin(Builtin::Printf), cargs) = &call.kind else { continue };
                    // SAFETY of the lifetime: as in `eval_pure`, nothing of the alternative is
                    // kept past this call (its sites and usage are dropped below).
                    let (call, cargs): (&'p Expr, &'p [Expr]) = unsafe { (&*(call as *const Expr), &*(cargs.as_slice() as *const [Expr])) };
                    let (sites, usage) = (self.region.sites.len(), self.region.usage.len());
                    // A reference's print has no side effects: only what it prints matters.
                    let mut printed = at.clone();
                    let r = self.printf(call, cargs, &mut printed, &gk, e);
                    self.region.sites.truncate(sites);
                    self.region.usage.truncate(usage);
                    r?;
                    at.at_ws = printed.at_ws;
                }
                Alt::Keep | Alt::Bool(_) => {}
            }
            effects.done(&chosen, scratch);
        }
        effects.finish(st);
        Ok(())
    }

    /// `printf(args)` under guard `g`, compared unless `at` (the statement's site) is a prompt.
    fn printf(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>, at: &Expr) -> R<Val<'ctx>> {
        let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else {
            return unsupported("a printf format that is not a literal", e.span);
        };
        let pieces = cfmt::parse(fmt, false).map_err(|_| Unsupported { what: "a malformed printf format".into(), span: e.span })?;
        let mut rest = args[1..].iter();
        let mut out = Printer::new(self.ctx, self.setup.compare, st.at_ws.clone());
        for p in pieces {
            match p {
                Piece::Literal(bytes) => out.text(&bytes),
                Piece::Directive(d) => {
                    if d.width == cfmt::Count::Star || d.precision == cfmt::Count::Star {
                        return unsupported("a `*` width or precision", e.span);
                    }
                    out.value_starts(&d, d.text(fmt));
                    let Some(arg) = rest.next() else { return unsupported("printf with too few arguments", e.span) };
                    let v = self.site_value(arg, SiteKind::Print, None, st)?;
                    if let ExprKind::Var(x) = arg.strip_implicit().kind {
                        self.use_var(x, Usage::Printed);
                    }
                    let printed = match &v.term {
                        Term::Int(x, t) => output::Printed::Int(x.clone(), *t),
                        Term::Float(x, k) => {
                            let x = if *k == FloatKind::Double { x.clone() } else { self.fp.convert(x, FloatKind::Double) };
                            let finite = self.fp.is_finite(&x);
                            output::Printed::Double(x, finite)
                        }
                        _ => return unsupported(format!("printing `{}` with `%{}`", crate::ir::print::expr_to_c(self.setup.program, arg), d.conv), arg.span),
                    };
                    let token = output::value_token(self.setup.compare, &d, printed)
                        .map_err(|_| Unsupported { what: format!("printing `{}` with `%{}`", crate::ir::print::expr_to_c(self.setup.program, arg), d.conv), span: arg.span })?;
                    out.value(token, v.deps.clone());
                }
            }
        }
        self.emit(out, at, st, g);
        Ok(self.int_val(BV::new_const(self.ctx, format!("printf.ret!{}", e.span.start), 32), IntType::INT, Deps::new()))
    }

    /// `putchar(c)`: prints `(unsigned char) c` as `printf("%c", c)` does (a constant
    /// character as the literal text it is), returns it as an `int`.
    fn putchar(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let Some(arg) = args.first() else { return unsupported("`putchar` without an argument", e.span) };
        let v = self.site_value(arg, SiteKind::Print, None, st)?;
        if let ExprKind::Var(x) = arg.strip_implicit().kind {
            self.use_var(x, Usage::Printed);
        }
        let Term::Int(x, _) = &v.term else { return unsupported("`putchar` of a floating point value", arg.span) };
        let byte = x.extract(7, 0).simplify();
        let mut out = Printer::new(self.ctx, self.setup.compare, st.at_ws.clone());
        match byte.as_u64() {
            Some(b) => out.text(&[b as u8]),
            None => {
                let d = output::char_directive();
                out.value_starts(&d, b"%c");
                let token = output::value_token(self.setup.compare, &d, output::Printed::Int(byte.clone(), IntType::UCHAR)).expect("%c prints an integer");
                out.value(token, v.deps.clone());
            }
        }
        self.emit(out, e, st, g);
        Ok(self.int_val(byte.zero_ext(24), IntType::INT, v.deps))
    }

    /// Appends what `out` printed to the output under guard `g`, compared unless `at` is a
    /// prompt.
    fn emit(&mut self, out: Printer<'ctx, Deps>, at: &Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) {
        let compared = !self.setup.prompts.contains(&(at as *const Expr));
        let ctx = self.ctx;
        let out = out.finish();
        if compared {
            for c in out.glue {
                let c = Bool::and(ctx, &[g, &c]).simplify();
                if c.as_bool() != Some(false) {
                    self.region.glue.push(c);
                }
            }
            st.at_ws = g.ite(&out.ws, &st.at_ws).simplify();
            for (token, deps) in out.tokens {
                let mut d = st.guard_deps.clone();
                d.extend(deps);
                self.region.printed.push(Printed { guard: g.clone(), deps: d, token });
            }
        } else {
            // Values mode cuts the output where the last input is read, after every prompt:
            // the first compared token starts the compared text, glued to nothing.
            st.at_ws = g.ite(&Bool::from_bool(ctx, true), &st.at_ws).simplify();
        }
    }
}

/// The side effects of a hole's alternatives. Without effects every alternative is evaluated
/// on the one state (the original's effects, if any, are on its own site variable); with
/// them, each alternative runs on a copy of the state before the site, and the copies are
/// merged by the selector, so a read the original does is gone where `true` replaces it.
struct Effects<'ctx> {
    base: Option<State<'ctx>>,
    states: Vec<(Bool<'ctx>, State<'ctx>)>,
}

impl<'ctx> Effects<'ctx> {
    fn new(on: bool, st: &State<'ctx>) -> Self {
        Effects { base: on.then(|| st.clone()), states: Vec::new() }
    }
    fn on(&self) -> bool {
        self.base.is_some()
    }
    /// The state an alternative runs on: a copy (`None`: the shared one).
    fn start(&self) -> Option<State<'ctx>> {
        self.base.clone()
    }
    fn done(&mut self, chosen: &Bool<'ctx>, st: Option<State<'ctx>>) {
        if let Some(s) = st {
            self.states.push((chosen.clone(), s));
        }
    }
    /// The merged state (a hole's selector takes one of its alternatives, so the order in
    /// which they ran does not matter).
    fn finish(self, st: &mut State<'ctx>) {
        if let Some(m) = merge_alternatives(self.states) {
            *st = m;
        }
    }
}

/// An array element and the index that addresses it.
struct Elem<'ctx> {
    index: BV<'ctx>,
    deps: Deps,
}

/// An assignment, `op=` or `++`/`--` whose target is an array element.
fn element_update(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => matches!(lhs.strip_implicit().kind, ExprKind::Index(..)),
        _ => false,
    }
}

/// A `width`-bit value's bits `u` as a number of its type.
fn signed_value(u: u64, width: u32, signed: bool) -> i64 {
    if signed && width < 64 && u >> (width - 1) & 1 == 1 { (u | !0u64 << width) as i64 } else { u as i64 }
}

/// The values a term can take when it is a tree of `ite`s over constants: each leaf's bits
/// (`None` for a leaf that is not a constant).
fn constant_leaves(b: &BV<'_>) -> Vec<Option<u64>> {
    if let Some(x) = b.as_u64() {
        return vec![Some(x)];
    }
    let d = Dynamic::from_ast(b);
    if d.kind() == z3::AstKind::App && d.decl().kind() == z3::DeclKind::ITE {
        let kids = d.children();
        return kids[1..].iter().flat_map(|k| constant_leaves(&k.as_bv().expect("a bit-vector arm"))).collect();
    }
    vec![None]
}

/// How `x = rhs` uses `x`: `c = getchar()` reads input into it, as `scanf("%c", &c)` does.
fn written_by(rhs: &Expr) -> Usage {
    if matches!(rhs.strip_implicit().kind, ExprKind::Call(Callee::Builtin(Builtin::Getchar), _)) { Usage::Scanned } else { Usage::Written }
}

/// An expression that reads input.
fn reads(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| found |= matches!(&x.kind, ExprKind::Call(Callee::Builtin(Builtin::Scanf | Builtin::Getchar | Builtin::Gets | Builtin::Fgets), _)));
    found
}

/// An expression that changes the state or the streams (assignments, reads, prints).
fn has_effects(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| {
        found |= matches!(
            &x.kind,
            ExprKind::Assign(..)
                | ExprKind::CompoundAssign { .. }
                | ExprKind::IncDec(..)
                | ExprKind::Call(Callee::Builtin(Builtin::Scanf | Builtin::Getchar | Builtin::Printf | Builtin::Putchar | Builtin::Puts | Builtin::Gets | Builtin::Fgets), _)
        )
    });
    found
}

/// The states of a hole's alternatives (each with the condition that it is chosen) merged
/// into one: the last one's where no earlier one is chosen.
fn merge_alternatives<'ctx>(states: Vec<(Bool<'ctx>, State<'ctx>)>) -> Option<State<'ctx>> {
    let mut it = states.into_iter().rev();
    let (_, mut acc) = it.next()?;
    for (c, s) in it {
        acc = merge_states(&c, Some(s), Some(acc)).expect("both present");
    }
    Some(acc)
}

/// Merges two states whose guards are disjoint (each where its own guard holds).
fn merge_disjoint<'ctx>(a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let c = a.guard.clone();
            merge_states(&c, Some(a), Some(b))
        }
        (a, b) => a.or(b),
    }
}

/// Merges two states under condition `c` (`a` where it holds, `b` where not; guarded SSA's
/// phi): also how the exits into one node become one edge's state.
pub fn merge_states<'ctx>(c: &Bool<'ctx>, a: Option<State<'ctx>>, b: Option<State<'ctx>>) -> Option<State<'ctx>> {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => return a.or(b),
    };
    let mut vars = BTreeMap::new();
    for (v, va) in &a.vars {
        let vb = &b.vars[v];
        vars.insert(*v, ite_val(c, &a.guard_deps, va, vb));
    }
    let ret = match (&a.ret, &b.ret) {
        (Some(x), Some(y)) => Some(ite_val(c, &a.guard_deps, x, y)),
        (x, y) => x.clone().or(y.clone()),
    };
    let mut guard_deps = a.guard_deps.clone();
    guard_deps.extend(b.guard_deps.iter().copied());
    Some(State {
        guard: Bool::or(c.get_ctx(), &[&a.guard, &b.guard]).simplify(),
        guard_deps,
        vars,
        ret,
        in_pos: c.ite(&a.in_pos, &b.in_pos).simplify(),
        at_ws: c.ite(&a.at_ws, &b.at_ws).simplify(),
    })
}

fn ite_val<'ctx>(c: &Bool<'ctx>, cdeps: &Deps, a: &Val<'ctx>, b: &Val<'ctx>) -> Val<'ctx> {
    if a.term.same(&b.term) {
        return a.clone();
    }
    let term = match (&a.term, &b.term) {
        (Term::Int(x, t), Term::Int(y, _)) => Term::Int(c.ite(x, y), *t),
        (Term::Float(x, k), Term::Float(y, _)) => Term::Float(c.ite(x, y), *k),
        (Term::Array(x, t, n), Term::Array(y, _, _)) => Term::Array(c.ite(x, y), *t, *n),
        _ => a.term.clone(),
    };
    let mut deps = a.deps.clone();
    deps.extend(b.deps.iter().copied());
    deps.extend(cdeps.iter().copied());
    Val { term, deps }
}

fn same_vars(a: &BTreeMap<VarId, Val<'_>>, b: &BTreeMap<VarId, Val<'_>>) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| w.term.same(&v.term)))
}

pub use super::output::{positions, sequences_differ};
