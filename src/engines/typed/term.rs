//! The expression being repaired, as the student wrote it (from the syntax tree, so ill-typed
//! parts keep their structure and names), and the engine's own typer for it: the front end's
//! IR replaces an ill-typed expression by an error node, which would lose what Algorithm 2
//! reuses.

use tree_sitter::Node;

use super::env::Env;
use super::types::{Ty, TyKind, Types};
use crate::ir::format::{self, Length, Piece};
use crate::ir::{FloatKind, IntKind, IntType, Span};

#[derive(Clone, Debug)]
pub enum TermKind {
    Ident(String),
    Int,
    Float,
    Char,
    Str(Vec<u8>),
    Call(String, Vec<Term>),
    Unary(String, Box<Term>),
    Binary(String, Box<Term>, Box<Term>),
    Index(Box<Term>, Box<Term>),
    Field(Box<Term>, String, bool),
    Cast(String, Box<Term>),
    Paren(Box<Term>),
    /// Anything else (assignments, `?:`, `sizeof`, `++`): typed by the front end's IR.
    Opaque,
}

#[derive(Clone, Debug)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
    pub text: String,
}

/// C precedence of a term's top operator (higher binds tighter), for printing.
pub fn binary_prec(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 13,
        "+" | "-" => 12,
        "<<" | ">>" => 11,
        "<" | "<=" | ">" | ">=" => 10,
        "==" | "!=" => 9,
        "&" => 8,
        "^" => 7,
        "|" => 6,
        "&&" => 5,
        "||" => 4,
        _ => 1,
    }
}

impl Term {
    pub fn from_node(node: Node, src: &str) -> Term {
        let span = Span::new(node.start_byte(), node.end_byte());
        let text = src[node.byte_range()].to_string();
        let named: Vec<Node> = {
            let mut c = node.walk();
            node.named_children(&mut c).filter(|n| n.kind() != "comment").collect()
        };
        let field = |name: &str| node.child_by_field_name(name).map(|n| Box::new(Term::from_node(n, src)));
        let op_text =
            || node.child_by_field_name("operator").map(|o| src[o.byte_range()].to_string()).unwrap_or_default();
        let kind = match node.kind() {
            "identifier" | "true" | "false" | "null" => TermKind::Ident(text.clone()),
            "number_literal" => {
                let t = text.to_ascii_lowercase();
                let hex = t.starts_with("0x");
                if !hex && (t.contains('.') || t.contains('e') || t.ends_with('f')) {
                    TermKind::Float
                } else {
                    TermKind::Int
                }
            }
            "char_literal" => TermKind::Char,
            "string_literal" | "concatenated_string" => {
                let mut bytes = Vec::new();
                collect_string(node, src, &mut bytes);
                TermKind::Str(bytes)
            }
            "call_expression" => {
                let callee = node.child_by_field_name("function");
                match callee {
                    Some(f) if f.kind() == "identifier" => {
                        let args = node
                            .child_by_field_name("arguments")
                            .map(|a| {
                                let mut c = a.walk();
                                a.named_children(&mut c)
                                    .filter(|n| n.kind() != "comment")
                                    .map(|n| Term::from_node(n, src))
                                    .collect()
                            })
                            .unwrap_or_default();
                        TermKind::Call(src[f.byte_range()].to_string(), args)
                    }
                    _ => TermKind::Opaque,
                }
            }
            "pointer_expression" | "unary_expression" => match field("argument") {
                Some(a) => TermKind::Unary(op_text(), a),
                None => TermKind::Opaque,
            },
            "binary_expression" => match (field("left"), field("right")) {
                (Some(l), Some(r)) => TermKind::Binary(op_text(), l, r),
                _ => TermKind::Opaque,
            },
            "subscript_expression" => match (field("argument"), field("index")) {
                (Some(a), Some(i)) => TermKind::Index(a, i),
                _ => TermKind::Opaque,
            },
            "field_expression" => match (field("argument"), node.child_by_field_name("field")) {
                (Some(a), Some(f)) => TermKind::Field(a, src[f.byte_range()].to_string(), op_text() == "->"),
                _ => TermKind::Opaque,
            },
            "cast_expression" => match (node.child_by_field_name("type"), field("value")) {
                (Some(t), Some(v)) => TermKind::Cast(src[t.byte_range()].to_string(), v),
                _ => TermKind::Opaque,
            },
            "parenthesized_expression" if named.len() == 1 => TermKind::Paren(Box::new(Term::from_node(named[0], src))),
            _ => TermKind::Opaque,
        };
        Term { kind, span, text }
    }

    /// Precedence of the term's own text (primary 16, postfix 15, unary 14, binary by op).
    pub fn prec(&self) -> u8 {
        match &self.kind {
            TermKind::Ident(_)
            | TermKind::Int
            | TermKind::Float
            | TermKind::Char
            | TermKind::Str(_)
            | TermKind::Paren(_) => 16,
            TermKind::Call(..) | TermKind::Index(..) | TermKind::Field(..) => 15,
            TermKind::Unary(..) | TermKind::Cast(..) => 14,
            TermKind::Binary(op, ..) => binary_prec(op),
            TermKind::Opaque => 1,
        }
    }

    pub fn children(&self) -> Vec<&Term> {
        match &self.kind {
            TermKind::Call(_, args) => args.iter().collect(),
            TermKind::Unary(_, a) | TermKind::Cast(_, a) | TermKind::Paren(a) | TermKind::Field(a, ..) => vec![a],
            TermKind::Binary(_, a, b) | TermKind::Index(a, b) => vec![a, b],
            _ => Vec::new(),
        }
    }

    pub fn is_null_constant(&self) -> bool {
        match &self.kind {
            TermKind::Int => self.text.trim_end_matches(['u', 'U', 'l', 'L']) == "0",
            TermKind::Ident(n) => n == "NULL",
            TermKind::Paren(a) => a.is_null_constant(),
            _ => false,
        }
    }
}

fn collect_string(node: Node, src: &str, out: &mut Vec<u8>) {
    if node.kind() == "string_literal" {
        let raw = &src[node.byte_range()];
        let inner = raw.strip_prefix(['L', 'u', 'U']).unwrap_or(raw);
        let inner = inner.trim_start_matches("8").trim_start_matches('"').trim_end_matches('"');
        crate::syntax::lower::decode_escapes(inner.as_bytes(), out);
        return;
    }
    let mut c = node.walk();
    for ch in node.named_children(&mut c) {
        collect_string(ch, src, out);
    }
}

/// The argument types a format string asks for (`None` for a directive mend cannot type).
pub fn format_arg_types(types: &mut Types, fmt: &[u8], scanf: bool) -> Option<Vec<Ty>> {
    let pieces = format::parse(fmt, scanf).ok()?;
    let mut out = Vec::new();
    for p in pieces {
        let Piece::Directive(d) = p else { continue };
        if !scanf {
            for c in [d.width, d.precision] {
                if c == format::Count::Star {
                    out.push(Types::INT);
                }
            }
        }
        if scanf && d.suppress || d.conv == '%' {
            continue;
        }
        let int = |kind, signed| TyKind::Int(IntType { kind, signed });
        let base = match d.conv {
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let signed = matches!(d.conv, 'd' | 'i');
                match d.length {
                    Length::Char => int(IntKind::Char, signed),
                    Length::Short => int(IntKind::Short, signed),
                    Length::Long | Length::Size => int(IntKind::Long, signed),
                    Length::LongLong => int(IntKind::LongLong, signed),
                    _ => int(IntKind::Int, signed),
                }
            }
            'c' => int(IntKind::Char, true),
            's' | '[' => {
                out.push(Types::CHAR_PTR);
                continue;
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                if scanf && !matches!(d.length, Length::Long | Length::LongDouble) {
                    TyKind::Float(FloatKind::Float)
                } else {
                    TyKind::Float(FloatKind::Double)
                }
            }
            'p' => {
                out.push(Types::VOID_PTR);
                continue;
            }
            'n' => int(IntKind::Int, true),
            _ => return None,
        };
        let mut t = types.intern(base);
        if scanf || d.conv == 'n' {
            t = types.ptr(t);
        } else if d.conv == 'c' {
            t = Types::INT; // printf's `%c` takes the promoted int
        }
        out.push(t);
    }
    Some(out)
}

/// printf: does an argument of (value) type `arg` fit a directive expecting `want`? Default
/// promotions apply; signedness is not an error; width is.
pub fn printf_fits(types: &Types, want: Ty, arg: Ty) -> bool {
    if want == arg {
        return true;
    }
    match (types.kind(want), types.kind(arg)) {
        (TyKind::Int(w), TyKind::Int(a)) => {
            let wide = |k: IntKind| matches!(k, IntKind::Long | IntKind::LongLong);
            wide(w.kind) == wide(a.kind)
        }
        (TyKind::Float(_), TyKind::Float(_)) => true,
        (TyKind::Ptr(w), TyKind::Ptr(a)) => {
            *w == Types::VOID
                || w == a
                || matches!((types.kind(*w), types.kind(*a)), (TyKind::Int(x), TyKind::Int(y)) if x.kind == y.kind)
        }
        _ => false,
    }
}

/// The format literal and scanf-ness of a call to a format function, with the index of the
/// format parameter.
pub fn format_call(name: &str) -> Option<(usize, bool)> {
    Some(match name {
        "printf" => (0, false),
        "scanf" => (0, true),
        "fprintf" | "sprintf" => (1, false),
        "fscanf" | "sscanf" => (1, true),
        "snprintf" => (2, false),
        _ => return None,
    })
}

/// The engine's typer. `Some(t)` when the term type-checks (`t` is `Lv(..)` for an object).
pub fn type_of(env: &mut Env, t: &Term) -> Option<Ty> {
    match &t.kind {
        TermKind::Ident(name) => {
            if let Some(v) = env.var(name) {
                let ty = v.ty;
                return Some(env.types.lv(ty));
            }
            if let Some((_, ty)) = env.macros.iter().find(|(n, _)| n == name) {
                return Some(*ty);
            }
            let entry = super::stdlib::lookup(name)?;
            match &entry.kind {
                super::stdlib::EntryKind::Const { ty } => Some(env.types.from_spelling(ty)),
                _ => None,
            }
        }
        TermKind::Int => Some(if t.text.to_ascii_lowercase().contains('l') {
            env.types.intern(TyKind::Int(IntType::LONG))
        } else {
            Types::INT
        }),
        TermKind::Float => Some(if t.text.to_ascii_lowercase().ends_with('f') {
            env.types.intern(TyKind::Float(FloatKind::Float))
        } else {
            Types::DOUBLE
        }),
        TermKind::Char => Some(Types::INT),
        TermKind::Str(_) => Some(Types::CHAR_PTR),
        TermKind::Paren(a) => type_of(env, a),
        TermKind::Call(name, args) => {
            let sig = env.sig(name)?;
            let mut arg_types = Vec::new();
            for a in args {
                let at = type_of(env, a)?;
                arg_types.push(env.types.value(at));
            }
            if let Some((fi, scanf)) = format_call(name) {
                if args.len() <= fi {
                    return None;
                }
                for (i, p) in sig.params.iter().enumerate().take(fi + 1) {
                    if !env.types.assignable(*p, arg_types[i], args[i].is_null_constant()) {
                        return None;
                    }
                }
                if let TermKind::Str(bytes) = &strip_paren(&args[fi]).kind {
                    let want = format_arg_types(&mut env.types, bytes, scanf)?;
                    let rest = &arg_types[fi + 1..];
                    if want.len() != rest.len() {
                        return None;
                    }
                    for (w, a) in want.iter().zip(rest) {
                        let ok = if scanf { scanf_fits(&env.types, *w, *a) } else { printf_fits(&env.types, *w, *a) };
                        if !ok {
                            return None;
                        }
                    }
                }
                return Some(sig.ret);
            }
            if args.len() < sig.params.len() || args.len() > sig.params.len() && !sig.variadic {
                return None;
            }
            for (i, p) in sig.params.iter().enumerate() {
                if !env.types.assignable(*p, arg_types[i], args[i].is_null_constant()) {
                    return None;
                }
            }
            Some(sig.ret)
        }
        TermKind::Unary(op, a) => {
            let at = type_of(env, a)?;
            match op.as_str() {
                "&" => {
                    let TyKind::Lv(inner) = env.types.kind(at).clone() else { return None };
                    Some(env.types.ptr(inner))
                }
                "*" => {
                    let v = env.types.value(at);
                    let p = env.types.pointee(v)?;
                    env.types.is_object(p).then(|| env.types.lv(p))
                }
                "-" | "+" => {
                    let v = env.types.value(at);
                    env.types.is_arith(v).then(|| env.types.arith_result(v, Types::INT))
                }
                "~" => {
                    let v = env.types.value(at);
                    env.types.is_int(v).then(|| env.types.arith_result(v, Types::INT))
                }
                "!" => {
                    let v = env.types.value(at);
                    (env.types.is_arith(v) || env.types.is_ptr(v)).then_some(Types::INT)
                }
                _ => None,
            }
        }
        TermKind::Binary(op, a, b) => {
            let at = type_of(env, a)?;
            let bt = type_of(env, b)?;
            let (x, y) = (env.types.value(at), env.types.value(bt));
            let ty = &env.types;
            match op.as_str() {
                "&&" | "||" => {
                    ((ty.is_arith(x) || ty.is_ptr(x)) && (ty.is_arith(y) || ty.is_ptr(y))).then_some(Types::INT)
                }
                "<" | "<=" | ">" | ">=" | "==" | "!=" => {
                    let ok = ty.is_arith(x) && ty.is_arith(y)
                        || ty.is_ptr(x) && (ty.is_ptr(y) || b.is_null_constant())
                        || ty.is_ptr(y) && a.is_null_constant();
                    ok.then_some(Types::INT)
                }
                "+" | "-" if ty.is_ptr(x) && ty.is_int(y) => Some(x),
                "+" if ty.is_int(x) && ty.is_ptr(y) => Some(y),
                "-" if ty.is_ptr(x) && x == y => Some(env.types.intern(TyKind::Int(IntType::LONG))),
                "+" | "-" | "*" | "/" => (ty.is_arith(x) && ty.is_arith(y)).then(|| env.types.arith_result(x, y)),
                "%" | "<<" | ">>" | "&" | "|" | "^" => {
                    (ty.is_int(x) && ty.is_int(y)).then(|| env.types.arith_result(x, y))
                }
                _ => None,
            }
        }
        TermKind::Index(a, i) => {
            let at = type_of(env, a)?;
            let it = type_of(env, i)?;
            let (x, y) = (env.types.value(at), env.types.value(it));
            let (p, idx) = if env.types.is_ptr(x) { (x, y) } else { (y, x) };
            let elem = env.types.pointee(p)?;
            (env.types.is_int(idx) && env.types.is_object(elem)).then(|| env.types.lv(elem))
        }
        TermKind::Field(a, name, arrow) => {
            let at = type_of(env, a)?;
            let base = if *arrow {
                let v = env.types.value(at);
                env.types.pointee(v)?
            } else {
                env.types.rv(at)
            };
            let TyKind::Struct(id) = env.types.kind(base).clone() else { return None };
            let def = env.program.struct_def(id);
            let f = def.fields.iter().find(|f| &f.name == name)?;
            let ft = f.ty.clone();
            let ft = env.types.from_ir(&ft)?;
            // `s.f` is an object when `s` is; `p->f` always is.
            Some(if *arrow || env.types.is_lv(at) { env.types.lv(ft) } else { ft })
        }
        TermKind::Cast(tyname, a) => {
            let at = type_of(env, a)?;
            let v = env.types.value(at);
            let to = env.types.from_spelling(tyname);
            let ok = to == Types::VOID
                || (env.types.is_arith(to) || env.types.is_ptr(to)) && (env.types.is_arith(v) || env.types.is_ptr(v));
            ok.then_some(to)
        }
        TermKind::Opaque => env.ir_types.get(&(t.span.start, t.span.end)).copied(),
    }
}

pub fn strip_paren(t: &Term) -> &Term {
    match &t.kind {
        TermKind::Paren(a) => strip_paren(a),
        _ => t,
    }
}

/// scanf: is `arg` a pointer to where the directive (expecting `want`, a pointer) stores?
pub fn scanf_fits(types: &Types, want: Ty, arg: Ty) -> bool {
    if want == arg {
        return true;
    }
    let (Some(w), Some(a)) = (types.pointee(want), types.pointee(arg)) else { return false };
    match (types.kind(w), types.kind(a)) {
        (TyKind::Int(x), TyKind::Int(y)) => x.kind == y.kind,
        (TyKind::Float(x), TyKind::Float(y)) => x == y,
        _ => false,
    }
}
