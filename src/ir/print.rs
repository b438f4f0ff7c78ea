//! Renders IR back to C, for repairs that insert new code and for titles of repairs.

use super::program::Program;
use super::types::{FloatKind, IntKind, Type};

/// Spells `ty` as a C declaration of `name` (`""` for an abstract type such as a cast's).
pub fn type_to_c(ty: &Type, name: &str, program: Option<&Program>) -> String {
    let (base, declarator) = split_declarator(ty, name.to_string(), program);
    if declarator.is_empty() { base } else { format!("{base} {declarator}") }
}

fn split_declarator(ty: &Type, inner: String, program: Option<&Program>) -> (String, String) {
    match ty {
        Type::Pointer(to) => {
            let wrapped = if matches!(**to, Type::Array(..)) { format!("(*{inner})") } else { format!("*{inner}") };
            split_declarator(to, wrapped, program)
        }
        Type::Array(elem, n) => {
            let dims = match n {
                Some(n) => format!("{inner}[{n}]"),
                None => format!("{inner}[]"),
            };
            split_declarator(elem, dims, program)
        }
        other => (base_name(other, program), inner),
    }
}

fn base_name(ty: &Type, program: Option<&Program>) -> String {
    match ty {
        Type::Void => "void".into(),
        Type::Error => "<error>".into(),
        Type::Float(FloatKind::Float) => "float".into(),
        Type::Float(FloatKind::Double) => "double".into(),
        Type::Int(t) => t.c_name(),
        Type::Struct(id) => match program {
            Some(p) => format!("struct {}", p.struct_def(*id).name),
            None => format!("struct #{}", id.0),
        },
        Type::Pointer(_) | Type::Array(..) => unreachable!("handled by split_declarator"),
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions, statements, functions and programs.
// ---------------------------------------------------------------------------------------------

use super::program::{
    BinOp, Builtin, Callee, Expr, ExprKind, Function, IncDec, Init, LogicOp, Stmt, StmtKind, SwitchArm, UnOp, VarKind,
};
use super::types::IntType;
use super::walk::{walk_init, walk_stmt};

impl Builtin {
    /// The C name a call of this builtin is printed with. [`Builtin::Nondet`] depends on the
    /// result type (see [`nondet_name`]); this gives the `int` one.
    pub fn c_name(self) -> &'static str {
        match self {
            Builtin::Printf => "printf",
            Builtin::Scanf => "scanf",
            Builtin::Getchar => "getchar",
            Builtin::Putchar => "putchar",
            Builtin::Puts => "puts",
            Builtin::Gets => "gets",
            Builtin::Fgets => "fgets",
            Builtin::Strlen => "strlen",
            Builtin::Strcmp => "strcmp",
            Builtin::Strcpy => "strcpy",
            Builtin::Strcat => "strcat",
            Builtin::Strncpy => "strncpy",
            Builtin::Strncat => "strncat",
            Builtin::Strncmp => "strncmp",
            Builtin::Strchr => "strchr",
            Builtin::Strrchr => "strrchr",
            Builtin::Strstr => "strstr",
            Builtin::Strspn => "strspn",
            Builtin::Strcspn => "strcspn",
            Builtin::Strdup => "strdup",
            Builtin::Memset => "memset",
            Builtin::Memcpy => "memcpy",
            Builtin::Memmove => "memmove",
            Builtin::Atoi => "atoi",
            Builtin::Atol => "atol",
            Builtin::Abs => "abs",
            Builtin::Labs => "labs",
            Builtin::Math(f, k) => f.c_name(k),
            Builtin::Isdigit => "isdigit",
            Builtin::Isalpha => "isalpha",
            Builtin::Isspace => "isspace",
            Builtin::Isupper => "isupper",
            Builtin::Islower => "islower",
            Builtin::Isalnum => "isalnum",
            Builtin::Ispunct => "ispunct",
            Builtin::Isxdigit => "isxdigit",
            Builtin::Isprint => "isprint",
            Builtin::Isgraph => "isgraph",
            Builtin::Iscntrl => "iscntrl",
            Builtin::Isblank => "isblank",
            Builtin::Toupper => "toupper",
            Builtin::Tolower => "tolower",
            Builtin::Malloc => "malloc",
            Builtin::Calloc => "calloc",
            Builtin::Realloc => "realloc",
            Builtin::Free => "free",
            Builtin::Exit => "exit",
            Builtin::Assert => "assert",
            Builtin::Assume => "__VERIFIER_assume",
            Builtin::Nondet => "__VERIFIER_nondet_int",
            Builtin::ReachError => "reach_error",
        }
    }

    /// The standard header declaring it (`None` for the verification conventions).
    pub fn c_header(self) -> Option<&'static str> {
        use Builtin as B;
        Some(match self {
            B::Printf | B::Scanf | B::Getchar | B::Putchar | B::Puts | B::Gets | B::Fgets => "stdio.h",
            B::Strlen
            | B::Strcmp
            | B::Strcpy
            | B::Strcat
            | B::Strncpy
            | B::Strncat
            | B::Strncmp
            | B::Strchr
            | B::Strrchr
            | B::Strstr
            | B::Strspn
            | B::Strcspn
            | B::Strdup
            | B::Memset
            | B::Memcpy
            | B::Memmove => "string.h",
            B::Abs | B::Labs | B::Atoi | B::Atol | B::Malloc | B::Calloc | B::Realloc | B::Free | B::Exit => "stdlib.h",
            B::Math(..) => "math.h",
            B::Isdigit
            | B::Isalpha
            | B::Isspace
            | B::Isupper
            | B::Islower
            | B::Isalnum
            | B::Ispunct
            | B::Isxdigit
            | B::Isprint
            | B::Isgraph
            | B::Iscntrl
            | B::Isblank
            | B::Toupper
            | B::Tolower => "ctype.h",
            B::Assert => "assert.h",
            B::Assume | B::Nondet | B::ReachError => return None,
        })
    }
}

/// The SV-COMP name of the nondeterministic-value function returning `ty`.
pub fn nondet_name(ty: &Type) -> &'static str {
    match ty {
        Type::Int(t) => match (t.kind, t.signed) {
            (IntKind::Bool, _) => "__VERIFIER_nondet_bool",
            (IntKind::Char, true) => "__VERIFIER_nondet_char",
            (IntKind::Char, false) => "__VERIFIER_nondet_uchar",
            (IntKind::Short, true) => "__VERIFIER_nondet_short",
            (IntKind::Short, false) => "__VERIFIER_nondet_ushort",
            (IntKind::Int, true) => "__VERIFIER_nondet_int",
            (IntKind::Int, false) => "__VERIFIER_nondet_uint",
            (IntKind::Long, true) => "__VERIFIER_nondet_long",
            (IntKind::Long, false) => "__VERIFIER_nondet_ulong",
            (IntKind::LongLong, true) => "__VERIFIER_nondet_longlong",
            (IntKind::LongLong, false) => "__VERIFIER_nondet_ulonglong",
        },
        Type::Float(FloatKind::Float) => "__VERIFIER_nondet_float",
        Type::Float(FloatKind::Double) => "__VERIFIER_nondet_double",
        Type::Pointer(_) => "__VERIFIER_nondet_pointer",
        _ => "__VERIFIER_nondet_int",
    }
}

// C precedence levels, loosest first.
const COMMA: u8 = 1;
const ASSIGN: u8 = 2;
const COND: u8 = 3;
const LOR: u8 = 4;
const LAND: u8 = 5;
const BOR: u8 = 6;
const BXOR: u8 = 7;
const BAND: u8 = 8;
const EQUALITY: u8 = 9;
const RELATIONAL: u8 = 10;
const SHIFT: u8 = 11;
const ADDITIVE: u8 = 12;
const MULTIPLICATIVE: u8 = 13;
const UNARY: u8 = 14;
const POSTFIX: u8 = 15;
const PRIMARY: u8 = 16;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => MULTIPLICATIVE,
        BinOp::Add | BinOp::Sub => ADDITIVE,
        BinOp::Shl | BinOp::Shr => SHIFT,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => RELATIONAL,
        BinOp::Eq | BinOp::Ne => EQUALITY,
        BinOp::BitAnd => BAND,
        BinOp::BitXor => BXOR,
        BinOp::BitOr => BOR,
    }
}

/// Renders an expression as C: implicit casts and array decay are not printed, parentheses only
/// where C's precedence and associativity need them.
pub fn expr_to_c(p: &Program, e: &Expr) -> String {
    Printer { p }.expr(e, COMMA)
}

/// Renders a statement at `indent` levels (four spaces each); several lines are joined by `\n`,
/// with no trailing newline.
pub fn stmt_to_c(p: &Program, s: &Stmt, indent: usize) -> String {
    let mut out = String::new();
    Printer { p }.stmt(s, indent, &mut out);
    out.truncate(out.trim_end_matches('\n').len());
    out
}

/// Renders a function definition (or a prototype), ending with a newline.
pub fn function_to_c(p: &Program, f: &Function) -> String {
    let mut out = String::new();
    Printer { p }.function(f, &mut out);
    out
}

/// Renders a whole program: the includes its builtins need, `#define`s, then structs, globals and
/// functions in source order.
pub fn program_to_c(p: &Program) -> String {
    let pr = Printer { p };
    let mut out = String::new();
    let mut any = false;
    for h in needed_headers(p) {
        out.push_str(&format!("#include <{h}>\n"));
        any = true;
    }
    if !p.macros.is_empty() {
        if any {
            out.push('\n');
        }
        for (name, value, _) in &p.macros {
            out.push_str(&format!("#define {name} {value}\n"));
        }
        any = true;
    }

    // Top-level items in source order (a stable sort keeps structs, globals, functions for
    // hand-built programs without spans).
    enum Item<'a> {
        Struct(usize),
        Global(&'a (super::program::VarId, Option<Init>)),
        Func(&'a Function),
    }
    let mut items: Vec<(u32, Item)> = Vec::new();
    for (i, s) in p.structs.iter().enumerate() {
        if s.complete {
            items.push((s.span.start, Item::Struct(i)));
        }
    }
    for g in &p.globals {
        items.push((p.var(g.0).span.start, Item::Global(g)));
    }
    for f in &p.funcs {
        items.push((f.span.start, Item::Func(f)));
    }
    items.sort_by_key(|(start, _)| *start);
    let order: Vec<&Function> =
        items.iter().filter_map(|(_, it)| if let Item::Func(f) = it { Some(*f) } else { None }).collect();
    let mut prototypes = needing_prototypes(p, &order);
    let mut prev_was_global = false;
    for (_, item) in items {
        if matches!(item, Item::Func(_)) && !prototypes.is_empty() {
            if any {
                out.push('\n');
            }
            for i in prototypes.drain(..) {
                out.push_str(&pr.signature(&p.funcs[i]));
                out.push_str(";\n");
            }
            any = true;
        }
        let is_global = matches!(item, Item::Global(_));
        if any && !(is_global && prev_was_global) {
            out.push('\n');
        }
        any = true;
        prev_was_global = is_global;
        match item {
            Item::Struct(i) => {
                let s = &p.structs[i];
                out.push_str(&format!("struct {} {{\n", s.name));
                for f in &s.fields {
                    out.push_str(&format!("    {};\n", type_to_c(&f.ty, &f.name, Some(p))));
                }
                out.push_str("};\n");
            }
            Item::Global((var, init)) => {
                out.push_str(&pr.declaration(*var, init.as_ref()));
                out.push_str(";\n");
            }
            Item::Func(f) => pr.function(f, &mut out),
        }
    }
    out
}

/// The headers for the builtins (and `NULL`, `stdin`) used in `p`, in a fixed order.
fn needed_headers(p: &Program) -> Vec<&'static str> {
    let mut used: Vec<&'static str> = Vec::new();
    let mut note = |e: &Expr| {
        let h = match &e.kind {
            ExprKind::Call(Callee::Builtin(b), _) => b.c_header(),
            ExprKind::Cast { .. } if stream_or_null(e).is_some() => Some("stdio.h"),
            _ => None,
        };
        if let Some(h) = h.filter(|h| !used.contains(h)) {
            used.push(h);
        }
    };
    for f in &p.funcs {
        if let Some(body) = &f.body {
            walk_stmt(body, &mut note);
        }
    }
    for (_, init) in &p.globals {
        if let Some(init) = init {
            walk_init(init, &mut note);
        }
    }
    const ORDER: [&str; 6] = ["stdio.h", "stdlib.h", "string.h", "math.h", "ctype.h", "assert.h"];
    ORDER.into_iter().filter(|h| used.contains(h)).collect()
}

/// The defined functions that a function printed earlier in `order` calls: without a prototype
/// up front, C would declare them implicitly as returning `int`.
fn needing_prototypes(p: &Program, order: &[&Function]) -> Vec<usize> {
    let mut defined: Vec<bool> = vec![false; p.funcs.len()];
    let mut needed: Vec<usize> = Vec::new();
    let index_of = |f: &Function| p.funcs.iter().position(|g| std::ptr::eq(g, f));
    for f in order {
        let Some(i) = index_of(f) else { continue };
        if f.body.is_none() {
            // A prototype the front end kept is printed in place and declares the function.
            defined[i] = true;
            continue;
        }
        defined[i] = true;
        if let Some(body) = &f.body {
            walk_stmt(body, &mut |e: &Expr| {
                if let ExprKind::Call(Callee::Func(id), _) = &e.kind {
                    let j = id.0 as usize;
                    if j < defined.len() && !defined[j] && !needed.contains(&j) && p.funcs[j].body.is_some() {
                        needed.push(j);
                    }
                }
            });
        }
    }
    needed.sort();
    needed
}

struct Printer<'p> {
    p: &'p Program,
}

fn push_indent(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("    ");
    }
}

/// Whether `t` is a `char` type (signed, unsigned or plain).
fn is_char(t: &Type) -> bool {
    matches!(t, Type::Int(IntType { kind: IntKind::Char, .. }))
}

impl Printer<'_> {
    /// `e` with parentheses if its precedence is below `min`.
    fn expr(&self, e: &Expr, min: u8) -> String {
        let (text, prec) = self.render(e);
        if prec < min { format!("({text})") } else { text }
    }

    /// An operand that C reads as a character when it is an integer constant (compared with a
    /// `char`, converted to `char`): such constants print as character literals.
    fn char_operand(&self, e: &Expr, min: u8) -> String {
        if let ExprKind::Int(v) = e.kind
            && let Some(lit) = char_literal_if_textual(v)
        {
            return lit;
        }
        self.expr(e, min)
    }

    /// `c >= 97 && c <= 122`, a range of letters or digits tested on one value, reads as the
    /// characters it means whatever `c`'s type (an `int` from `getchar`):
    /// `c >= 'a' && c <= 'z'`.
    fn character_range(&self, a: &Expr, b: &Expr) -> Option<(String, String)> {
        let bound = |e: &Expr| match &e.strip_implicit().kind {
            ExprKind::Binary(op, x, k) if op.is_comparison() => match k.strip_implicit().kind {
                ExprKind::Int(v) => Some((*op, self.expr(x, binop_prec(*op)), v)),
                _ => None,
            },
            _ => None,
        };
        let ((op1, x1, k1), (op2, x2, k2)) = (bound(a)?, bound(b)?);
        let class = |v: i64| {
            [b'a'..=b'z', b'A'..=b'Z', b'0'..=b'9'].iter().position(|r| u8::try_from(v).is_ok_and(|v| r.contains(&v)))
        };
        if x1 != x2 || class(k1)? != class(k2)? {
            return None;
        }
        Some((
            format!("{x1} {} {}", op1.c_token(), char_literal(k1)),
            format!("{x2} {} {}", op2.c_token(), char_literal(k2)),
        ))
    }

    fn render(&self, e: &Expr) -> (String, u8) {
        match &e.kind {
            ExprKind::Int(v) => match char_literal_if_textual(*v).filter(|_| self.p.char_constants.contains(&e.span)) {
                Some(lit) => (lit, PRIMARY),
                None => int_literal(*v, &e.ty),
            },
            ExprKind::Float(v) => float_literal(*v, &e.ty),
            ExprKind::Str(bytes) => (string_literal(bytes), PRIMARY),
            ExprKind::Var(id) => (self.p.var(*id).name.clone(), PRIMARY),
            ExprKind::Unary(op, a) => {
                let tok = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "!",
                };
                (prefix(tok, &self.expr(a, UNARY)), UNARY)
            }
            ExprKind::Binary(op, a, b) => {
                let prec = binop_prec(*op);
                // `c == 'x'`: a constant compared with a char reads as a character.
                let (l, r) = if op.is_comparison() && is_eof(a) && reads_stream(b) {
                    ("EOF".to_string(), self.expr(b, prec + 1))
                } else if op.is_comparison() && is_eof(b) && reads_stream(a) {
                    (self.expr(a, prec), "EOF".to_string())
                } else if op.is_comparison() && is_char(&b.strip_implicit().ty) {
                    (self.char_operand(a, prec), self.expr(b, prec + 1))
                } else if op.is_comparison() && is_char(&a.strip_implicit().ty) {
                    (self.expr(a, prec), self.char_operand(b, prec + 1))
                } else {
                    (self.expr(a, prec), self.expr(b, prec + 1))
                };
                (format!("{l} {} {r}", op.c_token()), prec)
            }
            ExprKind::Logical(op, a, b) => {
                let (tok, prec) = match op {
                    LogicOp::And => ("&&", LAND),
                    LogicOp::Or => ("||", LOR),
                };
                if let Some((l, r)) = self.character_range(a, b).filter(|_| *op == LogicOp::And) {
                    return (format!("{l} {tok} {r}"), prec);
                }
                (format!("{} {tok} {}", self.expr(a, prec), self.expr(b, prec + 1)), prec)
            }
            ExprKind::Assign(lhs, rhs) => {
                let r = if is_char(&lhs.ty) { self.char_operand(rhs, ASSIGN) } else { self.expr(rhs, ASSIGN) };
                (format!("{} = {r}", self.expr(lhs, UNARY)), ASSIGN)
            }
            ExprKind::CompoundAssign { op, lhs, rhs, .. } => {
                (format!("{} {}= {}", self.expr(lhs, UNARY), op.c_token(), self.expr(rhs, ASSIGN)), ASSIGN)
            }
            ExprKind::IncDec(op, a) => match op {
                IncDec::PreInc => (prefix("++", &self.expr(a, UNARY)), UNARY),
                IncDec::PreDec => (prefix("--", &self.expr(a, UNARY)), UNARY),
                IncDec::PostInc => (format!("{}++", self.expr(a, POSTFIX)), POSTFIX),
                IncDec::PostDec => (format!("{}--", self.expr(a, POSTFIX)), POSTFIX),
            },
            ExprKind::Cond(c, a, b) => {
                (format!("{} ? {} : {}", self.expr(c, LOR), self.expr(a, ASSIGN), self.expr(b, COND)), COND)
            }
            ExprKind::Cast { expr, implicit: true } => {
                if let Some(name) = stream_or_null(e) {
                    return (name.to_string(), PRIMARY);
                }
                // A constant converted to char reads as a character; one converted to another
                // type needs no suffix to keep its own type.
                if let ExprKind::Int(v) = expr.kind {
                    if is_char(&e.ty)
                        && let Some(lit) = char_literal_if_textual(v)
                    {
                        return (lit, PRIMARY);
                    }
                    if let Type::Int(t) = &expr.ty
                        && (t.signed && i32::try_from(v).is_ok() || !t.signed && (0..=i32::MAX as i64).contains(&v))
                    {
                        return int_literal(v, &Type::INT);
                    }
                }
                self.render(expr)
            }
            ExprKind::Decay(a) => self.render(a),
            ExprKind::Cast { expr, implicit: false } => {
                (format!("({}){}", type_to_c(&e.ty, "", Some(self.p)), self.expr(expr, UNARY)), UNARY)
            }
            ExprKind::Call(callee, args) => {
                let name = match callee {
                    Callee::Func(id) => self.p.func(*id).name.as_str(),
                    Callee::Builtin(Builtin::Nondet) => nondet_name(&e.ty),
                    Callee::Builtin(b) => b.c_name(),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a, ASSIGN)).collect();
                (format!("{name}({})", args.join(", ")), POSTFIX)
            }
            ExprKind::Index(base, index) | ExprKind::Row { array: base, index, .. } => {
                (format!("{}[{}]", self.expr(base, POSTFIX), self.expr(index, COMMA)), POSTFIX)
            }
            ExprKind::Member { base, field, arrow } => {
                let sty = if *arrow { base.ty.pointee() } else { Some(&base.ty) };
                let name = match sty {
                    Some(Type::Struct(id)) => self.p.struct_def(*id).fields.get(*field).map(|f| f.name.clone()),
                    _ => None,
                }
                .unwrap_or_else(|| format!("<field {field}>"));
                (format!("{}{}{name}", self.expr(base, POSTFIX), if *arrow { "->" } else { "." }), POSTFIX)
            }
            ExprKind::AddrOf(a) => (prefix("&", &self.expr(a, UNARY)), UNARY),
            ExprKind::Deref(a) => (prefix("*", &self.expr(a, UNARY)), UNARY),
            ExprKind::SizeOf { text, .. } => {
                let t = text.trim();
                if is_parenthesised(t) { (format!("sizeof{t}"), UNARY) } else { (format!("sizeof({t})"), UNARY) }
            }
            ExprKind::Comma(a, b) => (format!("{}, {}", self.expr(a, COMMA), self.expr(b, ASSIGN)), COMMA),
        }
    }

    /// `T name = init` (no semicolon), `static` for static locals.
    fn declaration(&self, var: super::program::VarId, init: Option<&Init>) -> String {
        let v = self.p.var(var);
        let mut s = String::new();
        if v.kind == VarKind::StaticLocal {
            s.push_str("static ");
        }
        s.push_str(&type_to_c(&v.ty, &v.name, Some(self.p)));
        if let Some(init) = init {
            s.push_str(" = ");
            s.push_str(&self.init(init, &v.ty));
        }
        s
    }

    fn init(&self, init: &Init, ty: &Type) -> String {
        match init {
            Init::Expr(e) => {
                if is_char(ty) {
                    self.char_operand(e, ASSIGN)
                } else {
                    self.expr(e, ASSIGN)
                }
            }
            Init::List(items, _) => {
                let elem = |i: usize| -> Type {
                    match ty {
                        Type::Array(elem, _) => (**elem).clone(),
                        Type::Struct(id) => {
                            self.p.struct_def(*id).fields.get(i).map(|f| f.ty.clone()).unwrap_or(Type::Error)
                        }
                        _ => Type::Error,
                    }
                };
                let parts: Vec<String> = items.iter().enumerate().map(|(i, it)| self.init(it, &elem(i))).collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    fn stmt(&self, s: &Stmt, indent: usize, out: &mut String) {
        push_indent(out, indent);
        self.stmt_rest(s, indent, out);
    }

    /// A statement whose indentation has already been written.
    fn stmt_rest(&self, s: &Stmt, indent: usize, out: &mut String) {
        match &s.kind {
            StmtKind::Expr(e) => {
                out.push_str(&self.expr(e, COMMA));
                out.push_str(";\n");
            }
            StmtKind::Decl { var, init: Some(Init::Expr(len)) } if self.p.var(*var).hidden() => {
                // A parameter's hidden row length (`ExprKind::Row`): C has no text for it.
                out.push_str(&format!("/* {} = {} */\n", self.p.var(*var).name, self.expr(len, COMMA)));
            }
            StmtKind::Decl { var, init } => {
                out.push_str(&self.declaration(*var, init.as_ref()));
                out.push_str(";\n");
            }
            StmtKind::VlaDecl { var, len, row } => {
                let v = self.p.var(*var);
                let mut elem = v.ty.pointee().cloned().unwrap_or(Type::Error);
                let mut declarator = format!("{}[{}]", v.name, self.expr(len, COMMA));
                if let Some((_, per)) = row {
                    elem = elem.pointee().cloned().unwrap_or(Type::Error);
                    declarator = format!("{declarator}[{}]", self.expr(per, COMMA));
                }
                out.push_str(&type_to_c(&elem, &declarator, Some(self.p)));
                out.push_str(";\n");
            }
            StmtKind::If { cond, then, els } => {
                out.push_str(&format!("if ({})", self.expr(cond, COMMA)));
                // A non-block `then` ending in an `if` without `else` would capture our `else`.
                let brace_then = els.is_some() && !matches!(then.kind, StmtKind::Block(_)) && ends_with_open_if(then);
                if brace_then {
                    out.push_str(" {\n");
                    self.stmt(then, indent + 1, out);
                    push_indent(out, indent);
                    out.push('}');
                } else {
                    self.body(then, indent, out);
                }
                if let Some(els) = els {
                    if out.ends_with('}') {
                        out.push(' ');
                    } else {
                        push_indent(out, indent);
                    }
                    out.push_str("else");
                    if matches!(els.kind, StmtKind::If { .. }) {
                        out.push(' ');
                        self.stmt_rest(els, indent, out);
                        return;
                    }
                    self.body(els, indent, out);
                }
                if out.ends_with('}') {
                    out.push('\n');
                }
            }
            StmtKind::While { cond, body } => {
                out.push_str(&format!("while ({})", self.expr(cond, COMMA)));
                self.body(body, indent, out);
                if out.ends_with('}') {
                    out.push('\n');
                }
            }
            StmtKind::DoWhile { body, cond } => {
                out.push_str("do");
                self.body(body, indent, out);
                if out.ends_with('}') {
                    out.push(' ');
                } else {
                    push_indent(out, indent);
                }
                out.push_str(&format!("while ({});\n", self.expr(cond, COMMA)));
            }
            StmtKind::For { init, cond, step, body } => {
                out.push_str("for (");
                out.push_str(&self.for_init(init));
                out.push(';');
                if let Some(c) = cond {
                    out.push(' ');
                    out.push_str(&self.expr(c, COMMA));
                }
                out.push(';');
                if let Some(st) = step {
                    out.push(' ');
                    out.push_str(&self.expr(st, COMMA));
                }
                out.push(')');
                self.body(body, indent, out);
                if out.ends_with('}') {
                    out.push('\n');
                }
            }
            StmtKind::Switch { cond, arms } => {
                out.push_str(&format!("switch ({}) {{\n", self.expr(cond, COMMA)));
                let char_labels = is_char(&cond.strip_implicit().ty);
                for arm in arms {
                    self.arm(arm, char_labels, indent, out);
                }
                push_indent(out, indent);
                out.push_str("}\n");
            }
            StmtKind::Break => out.push_str("break;\n"),
            StmtKind::Continue => out.push_str("continue;\n"),
            StmtKind::Return(None) => out.push_str("return;\n"),
            StmtKind::Return(Some(e)) => {
                out.push_str(&format!("return {};\n", self.expr(e, COMMA)));
            }
            StmtKind::Block(stmts) => {
                out.push_str("{\n");
                for s in stmts {
                    self.stmt(s, indent + 1, out);
                }
                push_indent(out, indent);
                out.push_str("}\n");
            }
            StmtKind::Empty => out.push_str(";\n"),
        }
    }

    fn arm(&self, arm: &SwitchArm, char_labels: bool, indent: usize, out: &mut String) {
        push_indent(out, indent + 1);
        match arm.label {
            None => out.push_str("default:\n"),
            Some(v) => {
                let lit = char_labels.then(|| char_literal_if_textual(v)).flatten();
                let lit = lit.unwrap_or_else(|| int_literal(v, &Type::INT).0);
                out.push_str(&format!("case {lit}:\n"));
            }
        }
        for s in &arm.body {
            self.stmt(s, indent + 2, out);
        }
    }

    /// The body of `if`/`while`/`for`/`do` after its header: ` {...}` (no newline after the
    /// brace) for a block, else the statement on its own more-indented line.
    fn body(&self, body: &Stmt, indent: usize, out: &mut String) {
        if let StmtKind::Block(stmts) = &body.kind {
            out.push_str(" {\n");
            for s in stmts {
                self.stmt(s, indent + 1, out);
            }
            push_indent(out, indent);
            out.push('}');
        } else {
            out.push('\n');
            self.stmt(body, indent + 1, out);
        }
    }

    fn for_init(&self, init: &[Stmt]) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut base: Option<String> = None;
        for s in init {
            match &s.kind {
                StmtKind::Decl { var, init } => {
                    let d = self.declaration(*var, init.as_ref());
                    let b = base_name_of(&self.p.var(*var).ty, self.p);
                    match &base {
                        Some(prev) if *prev == b => {
                            parts.push(d.strip_prefix(&format!("{b} ")).unwrap_or(&d).to_string());
                        }
                        _ => {
                            base = Some(b);
                            parts.push(d);
                        }
                    }
                }
                StmtKind::Expr(e) => parts.push(self.expr(e, ASSIGN)),
                _ => {}
            }
        }
        parts.join(", ")
    }

    /// `int f(int a, char *s)` (`(void)` for a prototype without parameters).
    fn signature(&self, f: &Function) -> String {
        let params: Vec<String> =
            f.params.iter().map(|v| type_to_c(&self.p.var(*v).ty, &self.p.var(*v).name, Some(self.p))).collect();
        let params = if params.is_empty() {
            if f.body.is_some() { String::new() } else { "void".to_string() }
        } else {
            params.join(", ")
        };
        type_to_c(&f.ret, &format!("{}({params})", f.name), Some(self.p))
    }

    fn function(&self, f: &Function, out: &mut String) {
        out.push_str(&self.signature(f));
        match &f.body {
            None => out.push_str(";\n"),
            Some(body) => {
                if matches!(body.kind, StmtKind::Block(_)) {
                    out.push(' ');
                    self.stmt_rest(body, 0, out);
                } else {
                    out.push_str(" {\n");
                    self.stmt(body, 1, out);
                    out.push_str("}\n");
                }
            }
        }
    }
}

/// The front end's encoding of `stdin`/`stdout`/`stderr` (a `long` 1, 2, 3 converted to
/// `void *`) and of `NULL` (an `int` 0 converted to `void *`).
fn stream_or_null(e: &Expr) -> Option<&'static str> {
    let ExprKind::Cast { expr, implicit: true } = &e.kind else { return None };
    let (ExprKind::Int(v), Type::Pointer(to)) = (&expr.kind, &e.ty) else { return None };
    if **to != Type::Void {
        return None;
    }
    match (&expr.ty, v) {
        (Type::Int(t), 0) if t.kind == IntKind::Int => Some("NULL"),
        (Type::Int(t), 1) if t.kind == IntKind::Long => Some("stdin"),
        (Type::Int(t), 2) if t.kind == IntKind::Long => Some("stdout"),
        (Type::Int(t), 3) if t.kind == IntKind::Long => Some("stderr"),
        _ => None,
    }
}

/// `-1` (what the front end makes of `EOF`).
fn is_eof(e: &Expr) -> bool {
    matches!(e.strip_implicit().kind, ExprKind::Int(-1))
}

/// A call of `scanf`/`getchar`, possibly assigned (`(c = getchar())`): compared with -1, that
/// -1 is `EOF`.
fn reads_stream(e: &Expr) -> bool {
    match &e.strip_implicit().kind {
        ExprKind::Call(Callee::Builtin(Builtin::Scanf | Builtin::Getchar), _) => true,
        ExprKind::Assign(_, rhs) => reads_stream(rhs),
        _ => false,
    }
}

/// The innermost base type's spelling (`int` for `int *a[3]`).
fn base_name_of(ty: &Type, p: &Program) -> String {
    match ty {
        Type::Pointer(t) | Type::Array(t, _) => base_name_of(t, p),
        other => base_name(other, Some(p)),
    }
}

fn ends_with_open_if(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::If { els: None, .. } => true,
        StmtKind::If { els: Some(e), .. } => ends_with_open_if(e),
        StmtKind::While { body, .. } | StmtKind::For { body, .. } => ends_with_open_if(body),
        _ => false,
    }
}

/// `op` applied to `operand`, parenthesised where the tokens would merge (`-(-x)`, `-(--x)`).
fn prefix(op: &str, operand: &str) -> String {
    let last = op.chars().last().unwrap_or(' ');
    if (last == '-' || last == '+' || last == '&') && operand.starts_with(last) {
        format!("{op}({operand})")
    } else {
        format!("{op}{operand}")
    }
}

/// `(...)` with the outer parentheses matching each other.
pub fn is_parenthesised(t: &str) -> bool {
    if !t.starts_with('(') || !t.ends_with(')') {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i != t.len() - 1 {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// An integer constant as a C literal of type `ty` and its precedence: a character literal for
/// `char`, a suffix where the plain literal would have another type, `INT_MIN`-like values as
/// `(-2147483647 - 1)`.
fn int_literal(v: i64, ty: &Type) -> (String, u8) {
    let t = match ty {
        Type::Int(t) => *t,
        _ => IntType::INT,
    };
    if t.kind == IntKind::Char {
        return (char_literal(v), PRIMARY);
    }
    let fits_int = i32::try_from(v).is_ok();
    let suffix = match (t.kind, t.signed) {
        (IntKind::Bool | IntKind::Char | IntKind::Short | IntKind::Int, true) => "",
        (IntKind::Bool | IntKind::Short, false) => "",
        (IntKind::Int, false) => "U",
        (IntKind::Long, true) if fits_int => "L",
        (IntKind::Long, true) => "",
        (IntKind::Long, false) => "UL",
        (IntKind::LongLong, true) => "LL",
        (IntKind::LongLong, false) => "ULL",
        (IntKind::Char, false) => "",
    };
    if !t.signed {
        let u = if t.bits() == 64 { v as u64 } else { (v as u64) & ((1u64 << t.bits()) - 1) };
        return (format!("{u}{suffix}"), PRIMARY);
    }
    if v == i64::MIN {
        return (format!("(-9223372036854775807{} - 1)", if suffix.is_empty() { "L" } else { suffix }), PRIMARY);
    }
    if v == i32::MIN as i64 && t.bits() == 32 {
        return ("(-2147483647 - 1)".to_string(), PRIMARY);
    }
    // `-2147483648L` is `-(2147483648L)`: fine for long.
    if v < 0 { (format!("-{}{suffix}", -v), UNARY) } else { (format!("{v}{suffix}"), PRIMARY) }
}

/// `'a'`, `'\n'`, `'\377'` for a value of a char type.
pub fn char_literal(v: i64) -> String {
    let b = v as u8;
    let body = match b {
        b'\n' => "\\n".to_string(),
        b'\t' => "\\t".to_string(),
        b'\r' => "\\r".to_string(),
        0 => "\\0".to_string(),
        b'\\' => "\\\\".to_string(),
        b'\'' => "\\'".to_string(),
        0x20..=0x7e => (b as char).to_string(),
        _ => format!("\\{b:03o}"),
    };
    format!("'{body}'")
}

/// The character literal for an `int` constant used as a character, if it is a printable
/// character or one of `\n`, `\t`, `\r`, `\0` (other values stay numbers).
fn char_literal_if_textual(v: i64) -> Option<String> {
    match v {
        0 | 9 | 10 | 13 | 0x20..=0x7e => Some(char_literal(v)),
        _ => None,
    }
}

/// A string literal with C escapes; octal escapes are always three digits so a following digit
/// cannot extend them.
pub fn string_literal(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03o}")),
        }
    }
    s.push('"');
    s
}

/// A floating constant that reads back as the same value: the shortest round-trip digits,
/// `2.0` rather than `2`, exponents as `1e+30`, `f` for `float`.
fn float_literal(v: f64, ty: &Type) -> (String, u8) {
    let is_float = matches!(ty, Type::Float(FloatKind::Float));
    if v.is_nan() {
        return ("(0.0 / 0.0)".to_string(), PRIMARY);
    }
    if v.is_infinite() {
        return (if v > 0.0 { "(1.0 / 0.0)" } else { "(-1.0 / 0.0)" }.to_string(), PRIMARY);
    }
    let digits = if is_float { format!("{:?}", v as f32) } else { format!("{v:?}") };
    let mut s = match digits.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => digits,
    };
    if is_float {
        s.push('f');
    }
    if s.starts_with('-') { (s, UNARY) } else { (s, PRIMARY) }
}

#[cfg(test)]
mod tests;

/// Round trip through the front end (test-only use of the layer above).
#[cfg(test)]
mod roundtrip_tests;
