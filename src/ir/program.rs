//! The typed program model. Lowering resolves every name to an id, computes every expression's
//! type and makes every implicit conversion an explicit `Cast { implicit: true }`, so the
//! interpreter and the SMT encoding never re-derive C's conversion rules.

use super::Span;
use super::types::{FloatKind, StructId, Type};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    Global,
    Param,
    Local,
    /// `static` local: one object for the whole run, initialised once.
    StaticLocal,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    /// The declarator's name.
    pub span: Span,
    pub kind: VarKind,
    /// The function that declares it (`None` for globals).
    pub func: Option<FuncId>,
    /// Whether `&v` occurs, or `v` is an array or struct: such a variable needs addressable
    /// memory; every other variable can live in a register-like slot.
    pub addressable: bool,
}

impl Var {
    /// A local the front end made, not the program (the row length of `int a[n][m]`, see
    /// [`ExprKind::Row`]): its name is no C identifier, so no repair or completion offers it.
    pub fn hidden(&self) -> bool {
        self.name.contains('.')
    }

    /// For the hidden row length of `int a[n][m]` (or a parameter `int a[][m]`): `a`.
    pub fn rows_of(&self) -> Option<&str> {
        self.name.strip_suffix(ROW_LENGTH_SUFFIX)
    }
}

const ROW_LENGTH_SUFFIX: &str = ".row";

/// The name of the hidden local that holds the row length of the array `array`.
pub fn row_length_name(array: &str) -> String {
    format!("{array}{ROW_LENGTH_SUFFIX}")
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub offset: u64,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    pub span: Span,
    /// False for `struct s;` seen without a body.
    pub complete: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `~e`
    BitNot,
    /// `!e` (result `int`)
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    /// The comparison with its operands exchanged: `a < b` is `b > a`.
    pub fn flipped(self) -> BinOp {
        match self {
            BinOp::Lt => BinOp::Gt,
            BinOp::Gt => BinOp::Lt,
            BinOp::Le => BinOp::Ge,
            BinOp::Ge => BinOp::Le,
            other => other,
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }
    pub fn c_token(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicOp {
    And,
    Or,
}

/// Library functions the front end knows. Their semantics live in the interpreter (and later
/// the SMT encoding); their C signatures in [`Builtin::signature`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Printf,
    Scanf,
    Getchar,
    Putchar,
    Puts,
    Gets,
    /// `fgets(buf, n, stdin)`; any other stream is rejected by the type checker.
    Fgets,
    Strlen,
    Strcmp,
    Strcpy,
    Strcat,
    /// `strncpy(d, s, n)`: pads with `'\0'` up to `n`; no terminator when `s` is longer.
    Strncpy,
    Strncat,
    Strncmp,
    Strchr,
    Strrchr,
    Strstr,
    /// `strspn(s, set)`: how many characters of `s` from its start are in `set`.
    Strspn,
    /// `strcspn(s, set)`: how many characters of `s` from its start are not in `set` (the
    /// index of the first that is, else `strlen(s)`): `s[strcspn(s, "\n")] = '\0'` cuts
    /// the line break `fgets` keeps.
    Strcspn,
    /// `strdup(s)`: a new heap block, freed with `free`.
    Strdup,
    Memset,
    Memcpy,
    /// `memmove(d, s, n)`; `memcpy` of overlapping ranges behaves the same in the interpreter.
    Memmove,
    /// `atoi(s)`: glibc's `(int) strtol(s, NULL, 10)`.
    Atoi,
    /// `atol(s)`: glibc's `strtol(s, NULL, 10)`.
    Atol,
    Abs,
    Labs,
    /// A `math.h` function of `double`s (`sqrt`) or of `float`s (`sqrtf`).
    Math(MathFn, FloatKind),
    Isdigit,
    Isalpha,
    Isspace,
    Isupper,
    Islower,
    Isalnum,
    Ispunct,
    Isxdigit,
    Isprint,
    Isgraph,
    Iscntrl,
    Isblank,
    Toupper,
    Tolower,
    Malloc,
    Calloc,
    /// `realloc(p, n)`: glibc's, so `realloc(p, 0)` frees `p` and returns `NULL`.
    Realloc,
    Free,
    Exit,
    /// `assert(e)`
    Assert,
    /// `__VERIFIER_assume`, `__CPROVER_assume`, `assume`
    Assume,
    /// `nondet_int()`, `__VERIFIER_nondet_int()` and the other scalar kinds; the result type
    /// is the call's type.
    Nondet,
    /// `reach_error()`: reaching it is a specification violation.
    ReachError,
}

/// The table of `math.h` functions: the variant, the C names of its `double` and `float`
/// versions, and its parameters, in two lists: glibc's functions, which it declares, and the
/// ones written out in `own_math`. [`MathFn`]'s names, arity and values come from it, so the
/// interpreter calls what a gcc-compiled program calls (Rust's own `cbrt`, for one, differs
/// from glibc's in the last bit).
macro_rules! math_functions {
    (
        glibc: [$($variant:ident $double:ident $float:ident ($($arg:ident $at:literal),+);)+]
        own: [$($own:ident $own_double:ident $own_float:ident ($($own_arg:ident $own_at:literal),+);)+]
    ) => {
        mod libm {
            unsafe extern "C" {
                $(
                    pub safe fn $double($($arg: f64),+) -> f64;
                    pub safe fn $float($($arg: f32),+) -> f32;
                )+
            }
            pub use super::own_math::*;
        }

        math_function_table! {
            $($variant $double $float ($($arg $at),+);)+
            $($own $own_double $own_float ($($own_arg $own_at),+);)+
        }
    };
}

/// [`MathFn`] and its methods from one list, each function found in `libm`.
macro_rules! math_function_table {
    ($($variant:ident $double:ident $float:ident ($($arg:ident $at:literal),+);)+) => {
        /// The functions of `math.h` mend knows, each in a `double` and a `float` version
        /// ([`Builtin::Math`]). The interpreter calls glibc's; the symbolic executors encode
        /// the exact ones exactly and the others as uninterpreted functions (`smt::c_lib`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MathFn {
            $($variant,)+
        }

        impl MathFn {
            pub const ALL: &[MathFn] = &[$(MathFn::$variant,)+];

            /// The C names of the `double` and the `float` version.
            pub fn c_names(self) -> (&'static str, &'static str) {
                match self {
                    $(MathFn::$variant => (stringify!($double), stringify!($float)),)+
                }
            }

            /// How many arguments it takes.
            pub fn arity(self) -> usize {
                match self {
                    $(MathFn::$variant => [$(stringify!($arg)),+].len(),)+
                }
            }

            /// Its value on `double`s, as glibc computes it (`y` is read only by the
            /// functions of two arguments).
            pub fn eval_double(self, x: f64, y: f64) -> f64 {
                let args = [x, y];
                match self {
                    $(MathFn::$variant => libm::$double($(args[$at]),+),)+
                }
            }

            /// Its value on `float`s, as glibc computes it (`sqrtf`, `powf`, …).
            pub fn eval_float(self, x: f32, y: f32) -> f32 {
                let args = [x, y];
                match self {
                    $(MathFn::$variant => libm::$float($(args[$at]),+),)+
                }
            }
        }
    };
}

math_functions! {
    glibc: [
    Fabs fabs fabsf (x 0);
    Sqrt sqrt sqrtf (x 0);
    Floor floor floorf (x 0);
    Ceil ceil ceilf (x 0);
    Round round roundf (x 0);
    Trunc trunc truncf (x 0);
    Fmod fmod fmodf (x 0, y 1);
    Pow pow powf (x 0, y 1);
    Hypot hypot hypotf (x 0, y 1);
    Exp exp expf (x 0);
    Exp2 exp2 exp2f (x 0);
    Log log logf (x 0);
    Log10 log10 log10f (x 0);
    Log2 log2 log2f (x 0);
    Sin sin sinf (x 0);
    Cos cos cosf (x 0);
    Tan tan tanf (x 0);
    Asin asin asinf (x 0);
    Acos acos acosf (x 0);
    Atan atan atanf (x 0);
    Atan2 atan2 atan2f (x 0, y 1);
    Sinh sinh sinhf (x 0);
    Cosh cosh coshf (x 0);
    Tanh tanh tanhf (x 0);
    ]
    own: [
    Fmin fmin fminf (x 0, y 1);
    Fmax fmax fmaxf (x 0, y 1);
    ]
}

/// `fmin` and `fmax` as glibc's C versions compute them. Declared as C functions, Rust would
/// lower them to LLVM's `minnum`. A NaN gives the other argument; of `-0` and `+0` this
/// returns the first, which is what glibc 2.36's `fmin` does on x86-64 at run time, but gcc
/// may pick the other when it folds or inlines the call, so the symbolic model leaves that one
/// case open.
mod own_math {
    macro_rules! min_max {
        ($name:ident, $t:ty, $op:tt) => {
            pub fn $name(x: $t, y: $t) -> $t {
                if x.is_nan() {
                    y
                } else if y.is_nan() || x == y || x $op y {
                    x
                } else {
                    y
                }
            }
        };
    }
    min_max!(fmin, f64, <);
    min_max!(fmax, f64, >);
    min_max!(fminf, f32, <);
    min_max!(fmaxf, f32, >);
}

impl MathFn {
    /// The C name of the version of kind `k`.
    pub fn c_name(self, k: FloatKind) -> &'static str {
        let (double, float) = self.c_names();
        if k == FloatKind::Float { float } else { double }
    }

    /// The function and version a C name calls (`powf`: `Pow` of `float`s).
    pub fn from_c_name(name: &str) -> Option<(MathFn, FloatKind)> {
        MathFn::ALL.iter().find_map(|&f| {
            let (double, float) = f.c_names();
            if name == double {
                Some((f, FloatKind::Double))
            } else if name == float {
                Some((f, FloatKind::Float))
            } else {
                None
            }
        })
    }
}

impl Builtin {
    /// The functions that read the standard input: a call of one consumes input, so it
    /// cannot be moved, repeated or dropped without changing what the program reads.
    pub fn reads_input(self) -> bool {
        matches!(self, Builtin::Scanf | Builtin::Getchar | Builtin::Gets | Builtin::Fgets)
    }

    /// A character class of `ctype.h` in the C locale: the byte ranges it holds, and what
    /// glibc's function returns for a member (its table bit; 0 for anything else, `EOF` and
    /// bytes above 127 included). The interpreter and the symbolic executors both read it.
    pub fn char_class(self) -> Option<(&'static [(u8, u8)], i64)> {
        match self {
            Builtin::Isupper => Some((&[(b'A', b'Z')], 256)),
            Builtin::Islower => Some((&[(b'a', b'z')], 512)),
            Builtin::Isalpha => Some((&[(b'A', b'Z'), (b'a', b'z')], 1024)),
            Builtin::Isdigit => Some((&[(b'0', b'9')], 2048)),
            Builtin::Isspace => Some((&[(9, 13), (b' ', b' ')], 8192)),
            Builtin::Isxdigit => Some((&[(b'0', b'9'), (b'A', b'F'), (b'a', b'f')], 4096)),
            Builtin::Isprint => Some((&[(b' ', b'~')], 16384)),
            Builtin::Isgraph => Some((&[(b'!', b'~')], 32768)),
            // glibc's bits 8 and up of the table, shifted down on a little-endian machine.
            Builtin::Isblank => Some((&[(b'\t', b'\t'), (b' ', b' ')], 1)),
            Builtin::Iscntrl => Some((&[(0, 31), (127, 127)], 2)),
            Builtin::Ispunct => Some((&[(b'!', b'/'), (b':', b'@'), (b'[', b'`'), (b'{', b'~')], 4)),
            Builtin::Isalnum => Some((&[(b'0', b'9'), (b'A', b'Z'), (b'a', b'z')], 8)),
            _ => None,
        }
    }

    /// `toupper`/`tolower` in the C locale, as glibc computes them, on an `int` `c`: a letter
    /// of the first case moves to the other; a negative `char` other than `EOF` (−128…−2)
    /// comes back as its `unsigned char` value (glibc's table starts at −128, and its entries
    /// there are 128…254); anything else is unchanged. Returns the letters that move and by
    /// how much. The interpreter and the symbolic executors both read it.
    pub fn case_map(self) -> Option<((u8, u8), i64)> {
        match self {
            Builtin::Toupper => Some(((b'a', b'z'), -32)),
            Builtin::Tolower => Some(((b'A', b'Z'), 32)),
            _ => None,
        }
    }

    /// What [`Builtin::case_map`]'s function returns for `c`.
    pub fn map_case(self, c: i64) -> Option<i64> {
        let ((lo, hi), shift) = self.case_map()?;
        Some(if (lo as i64..=hi as i64).contains(&c) {
            c + shift
        } else if (-128..=-2).contains(&c) {
            c + 256
        } else {
            c
        })
    }

    /// Changes nothing (no state, no input or output) and always returns: a call can be
    /// evaluated anywhere, any number of times, with the same result.
    pub fn is_pure(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            Strlen
                | Strcmp
                | Strncmp
                | Strchr
                | Strrchr
                | Strstr
                | Strspn
                | Strcspn
                | Atoi
                | Atol
                | Abs
                | Labs
                | Math(..)
                | Isdigit
                | Isalpha
                | Isspace
                | Isupper
                | Islower
                | Isalnum
                | Ispunct
                | Isxdigit
                | Isprint
                | Isgraph
                | Iscntrl
                | Isblank
                | Toupper
                | Tolower
        )
    }

    /// Declared by C90's headers (under `-ansi`, gcc's headers hide the C99 and POSIX ones).
    pub fn is_c90(self) -> bool {
        use Builtin::*;
        match self {
            Math(_, FloatKind::Float) | Isblank | Strdup => false,
            Math(f, FloatKind::Double) => !matches!(
                f,
                MathFn::Round
                    | MathFn::Trunc
                    | MathFn::Fmin
                    | MathFn::Fmax
                    | MathFn::Hypot
                    | MathFn::Exp2
                    | MathFn::Log2
            ),
            _ => true,
        }
    }

    /// Reads the input or writes the output.
    pub fn does_io(self) -> bool {
        use Builtin::*;
        matches!(self, Printf | Scanf | Getchar | Putchar | Puts | Gets | Fgets)
    }

    /// Writes the output (and nothing else).
    pub fn writes_output(self) -> bool {
        matches!(self, Builtin::Printf | Builtin::Putchar | Builtin::Puts)
    }
}

#[derive(Clone, Debug)]
pub enum Callee {
    Func(FuncId),
    Builtin(Builtin),
}

/// The identity of one expression node, by which the analyses key what they learn about it
/// (repair sites, prompts, locations, literals). Unlike an address it survives moves of the
/// program; a clone is a new node with a new id, as a copy at another place (an inlined call)
/// is another site. Ids are unique in the process, so two programs never share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(u64);

impl ExprId {
    pub fn fresh() -> ExprId {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        ExprId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

#[derive(Debug)]
pub struct Expr {
    /// Set by [`Expr::new`] and by `clone`; a struct update `Expr { .., ..e }` keeps `e`'s,
    /// which is right only when `e` is consumed.
    pub id: ExprId,
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

impl Clone for Expr {
    fn clone(&self) -> Expr {
        Expr::new(self.kind.clone(), self.ty.clone(), self.span)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IncDec {
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// An integer constant, already wrapped to `ty` (for unsigned 64-bit types, the bits).
    Int(i64),
    Float(f64),
    /// A string literal's bytes without the terminating NUL; its type is `char[len+1]`.
    Str(Vec<u8>),
    Var(VarId),
    Unary(UnOp, Box<Expr>),
    /// Operands already converted to the operation's type (the usual arithmetic conversions);
    /// comparisons have type `int`. Pointer arithmetic: `ptr + int`, `ptr - int`, `ptr - ptr`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&`, `||` with short-circuit; operands are scalars, result `int`.
    Logical(LogicOp, Box<Expr>, Box<Expr>),
    /// `lhs = rhs`, `rhs` converted to the type of `lhs`.
    Assign(Box<Expr>, Box<Expr>),
    /// `lhs op= rhs`: `lhs` is read, converted to `op_ty`, combined with `rhs` (already of
    /// `op_ty`), and the result converted back to the type of `lhs`.
    CompoundAssign {
        op: BinOp,
        op_ty: Type,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    IncDec(IncDec, Box<Expr>),
    /// `c ? a : b`, the arms converted to the result type.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion to `ty`. `implicit` casts were inserted by the front end (no source text).
    Cast {
        expr: Box<Expr>,
        implicit: bool,
    },
    Call(Callee, Vec<Expr>),
    /// `base[index]`, `base` a pointer (arrays decay first), `index` an integer.
    Index(Box<Expr>, Box<Expr>),
    /// `array[index]` where `array` points to rows whose length is only known at run time
    /// (`int a[n][m]`, a parameter `int a[][m]`): a pointer to the first element of row
    /// `index`, `index * len` elements after `array`. `len` is the hidden local that holds
    /// the row length, evaluated once where the array (or the function) begins, as C does:
    /// by the array's `VlaDecl`, or for a parameter by a `Decl` at the start of the body.
    /// It is named `{array}.row`, which no C identifier can be, and is not a site to repair.
    Row {
        array: Box<Expr>,
        index: Box<Expr>,
        len: VarId,
    },
    /// `base.field` (`arrow: false`) or `base->field` (`arrow: true`, base is a pointer).
    Member {
        base: Box<Expr>,
        field: usize,
        arrow: bool,
    },
    AddrOf(Box<Expr>),
    Deref(Box<Expr>),
    /// Array-to-pointer decay (implicit).
    Decay(Box<Expr>),
    /// `sizeof`, already evaluated; `text` keeps the operand for printing.
    SizeOf {
        size: u64,
        text: String,
    },
    Comma(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// A new node, with a fresh id.
    pub fn new(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr { id: ExprId::fresh(), kind, ty, span }
    }

    /// The expression with implicit conversions stripped.
    pub fn strip_implicit(&self) -> &Expr {
        match &self.kind {
            ExprKind::Cast { expr, implicit: true } | ExprKind::Decay(expr) => expr.strip_implicit(),
            _ => self,
        }
    }

    /// The variable this expression reads, under implicit conversions.
    pub fn as_var(&self) -> Option<VarId> {
        match self.strip_implicit().kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Init {
    Expr(Expr),
    /// `{a, b, c}`; nested lists for 2-D arrays and structs. Missing elements are zero.
    List(Vec<Init>, Span),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct SwitchArm {
    /// `None` is `default:`.
    pub label: Option<i64>,
    pub label_span: Span,
    /// Statements up to the next label; control falls through to the next arm.
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(Expr),
    /// One declarator. Locals without an initialiser hold an indeterminate value.
    Decl {
        var: VarId,
        init: Option<Init>,
    },
    /// A variable-length array `T a[len]` (the variable's type is `Array(T, None)`); `len`
    /// is evaluated when the declaration runs, and must not be negative. With `row`, the
    /// array holds `len` rows of a length known only at run time (`int a[n][m]`, type
    /// `Array(Array(T, None), None)`): the declaration first evaluates the row length
    /// (`m`, also not negative) into its hidden local (see [`ExprKind::Row`]); the array has
    /// `len * m` elements.
    VlaDecl {
        var: VarId,
        len: Expr,
        row: Option<(VarId, Expr)>,
    },
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Switch {
        cond: Expr,
        arms: Vec<SwitchArm>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Block(Vec<Stmt>),
    Empty,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub ret: Type,
    pub params: Vec<VarId>,
    /// `None` for a prototype without a definition.
    pub body: Option<Stmt>,
    pub span: Span,
    pub name_span: Span,
    /// Every local (and static local) the body declares, in declaration order.
    pub locals: Vec<VarId>,
    /// Constructs outside the supported subset; the engines skip a function with any. The
    /// interpreter refuses to run a program whose executed function has any.
    pub unsupported: Vec<(String, Span)>,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub vars: Vec<Var>,
    pub funcs: Vec<Function>,
    pub structs: Vec<StructDef>,
    /// Global definitions in source order, with initialisers (constant expressions).
    pub globals: Vec<(VarId, Option<Init>)>,
    /// Object-like `#define NAME value` constants, by name, with their definition's span.
    pub macros: Vec<(String, String, Span)>,
    /// Where the source writes an integer constant as a character (`'9'`): a rewritten
    /// expression keeps the constant's span and prints it as written, `c <= '9'` not `c <= 57`.
    pub char_constants: std::collections::BTreeSet<Span>,
}

/// What an entry parameter starts as. mend runs a program as the tests run it: stdin is its
/// input and it gets no command-line arguments, so `main(int argc, char *argv[])` starts with
/// `argc` 1 and `argv` holding the program's name ([`PROGRAM_NAME`]) and a null pointer. The
/// interpreter and the symbolic executors all start the entry from this (a proof about a run
/// that starts elsewhere is about no run a student makes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryArg {
    /// `argc`: 1.
    Count,
    /// `argv`: `{PROGRAM_NAME, NULL}`.
    Vector,
    /// Any other parameter: zero.
    Zero,
}

/// The name a program is run under (`argv[0]`).
pub const PROGRAM_NAME: &str = "a.out";

/// The start value of the entry's parameter number `k`, of type `ty`.
pub fn entry_arg(k: usize, ty: &Type) -> EntryArg {
    match (k, ty) {
        (0, Type::Int(_)) => EntryArg::Count,
        (1, Type::Pointer(inner)) if matches!(&**inner, Type::Pointer(c) if matches!(&**c, Type::Int(_))) => {
            EntryArg::Vector
        }
        _ => EntryArg::Zero,
    }
}

impl Program {
    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.0 as usize]
    }
    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.0 as usize]
    }
    /// The integer the object-like macro `name` stands for (its last definition, as the
    /// lowering expands it), where its body is a number.
    pub fn macro_int(&self, name: &str) -> Option<i64> {
        let (_, body, _) = self.macros.iter().rev().find(|(n, _, _)| n == name)?;
        body.trim().trim_start_matches('(').trim_end_matches(')').trim().parse().ok()
    }
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs.iter().position(|f| f.name == name && f.body.is_some()).map(|i| FuncId(i as u32))
    }
    /// Where the defined function `name` is named (diagnostics about it as a whole sit there);
    /// the start of the file when there is none.
    pub fn name_span_of(&self, name: &str) -> Span {
        self.func_by_name(name).map(|f| self.func(f).name_span).unwrap_or_default()
    }
    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    /// Size in bytes as gcc x86-64 lays it out.
    pub fn size_of(&self, ty: &Type) -> u64 {
        match ty {
            Type::Void | Type::Error => 1,
            Type::Int(t) => (t.bits() / 8) as u64,
            Type::Float(super::types::FloatKind::Float) => 4,
            Type::Float(super::types::FloatKind::Double) => 8,
            Type::Pointer(_) => 8,
            Type::Array(elem, n) => self.size_of(elem) * n.unwrap_or(0),
            Type::Struct(id) => self.struct_def(*id).size,
        }
    }

    pub fn align_of(&self, ty: &Type) -> u64 {
        match ty {
            Type::Array(elem, _) => self.align_of(elem),
            Type::Struct(id) => self.struct_def(*id).align,
            other => self.size_of(other).max(1),
        }
    }

    /// A type spelled as C, with struct names.
    pub fn type_name(&self, ty: &Type) -> String {
        super::print::type_to_c(ty, "", Some(self))
    }
}
