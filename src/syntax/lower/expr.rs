//! Expressions: typing by the C rules, implicit conversions made explicit, library calls
//! checked against their signatures and format strings.

use tree_sitter::Node;

use super::builtins::{self, Params};
use super::{FORMAT_WIDTH, Lowerer, MAX_NESTING, Symbol};
use crate::ir::format::{self, Length, Piece};
pub use crate::ir::types::{promote, usual_arithmetic};
use crate::ir::*;

fn int_expr(v: i64, ty: Type, span: Span) -> Expr {
    Expr::new(ExprKind::Int(v), ty, span)
}

/// A pointer to rows of a runtime length (`a` in `int a[n][m]`, decayed): only indexing
/// (`ExprKind::Row`) knows how long a row is.
fn to_runtime_rows(ty: &Type) -> bool {
    matches!(ty, Type::Pointer(row) if matches!(**row, Type::Array(_, None)))
}

fn error_expr(span: Span) -> Expr {
    Expr::new(ExprKind::Int(0), Type::Error, span)
}

fn is_null_constant(e: &Expr) -> bool {
    e.ty.is_integer() && super::const_eval(e) == Some(0)
}

fn is_lvalue(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Deref(_) | ExprKind::Str(_) => true,
        ExprKind::Member { base, arrow, .. } => *arrow || is_lvalue(base),
        _ => false,
    }
}

impl<'a> Lowerer<'a> {
    pub(super) fn lower_expr(&mut self, node: Node<'a>) -> Expr {
        if self.depth > MAX_NESTING {
            // Deeper nesting would only risk the stack; no student writes it.
            let span = self.span(node);
            self.unsupported(&format!("expressions nested more than {MAX_NESTING} levels deep"), span);
            return error_expr(span);
        }
        self.depth += 1;
        let e = self.lower_expr_inner(node);
        self.depth -= 1;
        e
    }

    /// An rvalue: arrays decay to pointers to their first element.
    pub(super) fn rvalue(&mut self, e: Expr) -> Expr {
        match &e.ty {
            Type::Array(elem, _) => {
                let ty = Type::Pointer(elem.clone());
                let span = e.span;
                Expr::new(ExprKind::Decay(Box::new(e)), ty, span)
            }
            _ => e,
        }
    }

    /// An implicit conversion to `to` (no check: the caller knows it is allowed).
    pub(super) fn convert(&mut self, e: Expr, to: &Type) -> Expr {
        if &e.ty == to || e.ty.is_error() || to.is_error() {
            return e;
        }
        let span = e.span;
        Expr::new(ExprKind::Cast { expr: Box::new(e), implicit: true }, to.clone(), span)
    }

    /// Conversion as by assignment (C11 6.5.16.1), reporting what a compiler rejects.
    /// `what` names the context for messages ("assign", "initialise", "return", "pass").
    pub(super) fn convert_assign(&mut self, e: Expr, to: &Type, span: Span, what: &str) -> Expr {
        let from = e.ty.clone();
        if from.is_error() || to.is_error() || &from == to {
            return e;
        }
        let ok = match (to, &from) {
            (t, f) if t.is_arithmetic() && f.is_arithmetic() => true,
            (Type::Pointer(_), _) if is_null_constant(&e) => true,
            (Type::Pointer(a), Type::Pointer(b)) => {
                **a == Type::Void || **b == Type::Void || compatible_pointees(a, b) || {
                    // Same type but for signedness of char: a warning in gcc.
                    let both_char = a.as_int().zip(b.as_int()).is_some_and(|(x, y)| x.kind == y.kind);
                    if !both_char {
                        let (tn, fname) = (self.program.type_name(to), self.program.type_name(&from));
                        self.warning(
                            "type",
                            span,
                            format!("cannot {what} `{fname}` as `{tn}`: the pointer types differ"),
                        );
                    }
                    true
                }
            }
            (Type::Int(t), Type::Pointer(_)) if t.kind == IntKind::Bool => true,
            (Type::Struct(a), Type::Struct(b)) => a == b,
            _ => false,
        };
        if !ok {
            let (tn, fname) = (self.program.type_name(to), self.program.type_name(&from));
            let hint = match (to, &from) {
                (Type::Int(_) | Type::Float(_), Type::Pointer(_)) => " (is a `*` or an index missing?)",
                (Type::Pointer(_), Type::Int(_) | Type::Float(_)) => " (is a `&` missing?)",
                _ => "",
            };
            self.error(span, format!("cannot {what} a value of type `{fname}` where `{tn}` is expected{hint}"));
            return Expr { ty: to.clone(), ..e };
        }
        self.convert(e, to)
    }

    /// A condition: any scalar (compared with zero by the consumer).
    pub(super) fn scalar_condition(&mut self, e: Expr) -> Expr {
        let e = self.rvalue(e);
        if !e.ty.is_scalar() && !e.ty.is_error() {
            let t = self.program.type_name(&e.ty);
            self.error(e.span, format!("a condition must be a number or pointer, not `{t}`"));
            return Expr { ty: Type::Error, ..e };
        }
        e
    }

    fn lower_expr_inner(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        match node.kind() {
            "parenthesized_expression" => match Self::children(node).into_iter().next() {
                Some(inner) if inner.kind() == "compound_statement" => {
                    self.unsupported("statement expressions `({ ... })`", span);
                    error_expr(span)
                }
                Some(inner) => {
                    let mut e = self.lower_expr(inner);
                    // The parentheses belong to the expression's text (minimal edits keep them).
                    if self.span_override.is_none() {
                        e.span = span;
                    }
                    e
                }
                None => error_expr(span),
            },
            "number_literal" => self.number_literal(node),
            "char_literal" => {
                let bytes = self.string_bytes(node);
                if bytes.len() != 1 {
                    if bytes.is_empty() {
                        self.error(span, "an empty character constant `''`");
                    } else if let Some(escape) = slashed_escape(self.text(node)) {
                        // `'/n'`: the slash of an escape typed the other way.
                        self.warning(
                            "char",
                            span,
                            format!("`{}` is two characters; the escape is written `{escape}`", self.text(node)),
                        );
                        self.fix(
                            span,
                            format!("Replace `{}` with `{escape}`", self.text(node)),
                            TextEdit { span, new_text: escape.clone() },
                            "An escape sequence starts with a backslash.",
                        );
                    } else {
                        self.warning(
                            "char",
                            span,
                            "a character constant holds one character; use \"...\" for a string",
                        );
                        // `printf('* ')`: a string in single quotes. Offered where it then
                        // type-checks (the check layer keeps fixes that remove an error).
                        let written = self.text(node);
                        if let Some(inner) = written.strip_prefix('\'').and_then(|w| w.strip_suffix('\''))
                            && !inner.contains('"')
                        {
                            self.fix(
                                span,
                                format!("Write `{written}` as the string `\"{inner}\"`"),
                                TextEdit { span, new_text: format!("\"{inner}\"") },
                                "Text of several characters is a string, written in double quotes.",
                            );
                        }
                    }
                }
                // A char constant has type int; `'\xff'` is -1 with gcc's signed char.
                let v = bytes.last().copied().unwrap_or(0) as i8 as i64;
                self.program.char_constants.insert(span);
                int_expr(v, Type::INT, span)
            }
            "string_literal" | "concatenated_string" => {
                let bytes = self.string_bytes(node);
                let ty = Type::Array(Box::new(Type::CHAR), Some(bytes.len() as u64 + 1));
                Expr::new(ExprKind::Str(bytes), ty, span)
            }
            // tree-sitter reads `true`, `TRUE`, `false` and `FALSE` as literals; in C they are
            // names: `<stdbool.h>`'s macros, or the program's own (`#define TRUE 1`, an enum).
            "true" | "false" => self.identifier(node),
            "null" => Expr::new(
                ExprKind::Cast { expr: Box::new(int_expr(0, Type::INT, span)), implicit: true },
                Type::ptr(Type::Void),
                span,
            ),
            "identifier" => self.identifier(node),
            "binary_expression" => self.binary(node),
            "unary_expression" => self.unary(node),
            "update_expression" => {
                let op_node = node.child_by_field_name("operator");
                let arg = node.child_by_field_name("argument");
                let (Some(op_node), Some(arg)) = (op_node, arg) else { return error_expr(span) };
                let prefix = op_node.start_byte() < arg.start_byte();
                let inc = self.text(op_node) == "++";
                let target = self.lower_expr(arg);
                let op = match (prefix, inc) {
                    (true, true) => IncDec::PreInc,
                    (true, false) => IncDec::PreDec,
                    (false, true) => IncDec::PostInc,
                    (false, false) => IncDec::PostDec,
                };
                self.check_modifiable(&target, if inc { "increment" } else { "decrement" });
                if to_runtime_rows(&target.ty) {
                    self.unsupported("arithmetic on a pointer to rows of variable length", span);
                    return error_expr(span);
                }
                if !target.ty.is_scalar() && !target.ty.is_error() {
                    let t = self.program.type_name(&target.ty);
                    self.error(span, format!("cannot apply `{}` to a value of type `{t}`", self.text(op_node)));
                }
                let ty = target.ty.clone();
                Expr::new(ExprKind::IncDec(op, Box::new(target)), ty, span)
            }
            "pointer_expression" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let Some(arg) = node.child_by_field_name("argument") else { return error_expr(span) };
                let inner = self.lower_expr(arg);
                if op == "&" { self.address_of(inner, span) } else { self.deref(inner, span) }
            }
            "assignment_expression" => self.assignment(node),
            "conditional_expression" => self.conditional(node),
            "cast_expression" => {
                let ty = node.child_by_field_name("type").map(|t| self.type_descriptor(t)).unwrap_or(Type::Error);
                let Some(v) = node.child_by_field_name("value") else { return error_expr(span) };
                let e = self.lower_expr(v);
                let e = self.rvalue(e);
                let ok = ty == Type::Void
                    || ty.is_error()
                    || e.ty.is_error()
                    || (ty.is_scalar()
                        && e.ty.is_scalar()
                        && !(ty.is_float() && e.ty.is_pointer())
                        && !(ty.is_pointer() && e.ty.is_float()));
                if !ok {
                    let (t, f) = (self.program.type_name(&ty), self.program.type_name(&e.ty));
                    self.error(span, format!("cannot cast `{f}` to `{t}`"));
                }
                Expr::new(ExprKind::Cast { expr: Box::new(e), implicit: false }, ty, span)
            }
            "sizeof_expression" => {
                let (size, text) = if let Some(t) = node.child_by_field_name("type") {
                    let ty = self.type_descriptor(t);
                    if matches!(ty, Type::Array(_, None)) {
                        self.unsupported("`sizeof` of a variable-length array", span);
                    }
                    (self.program.size_of(&ty), format!("({})", self.text(t)))
                } else if let Some(v) = node.child_by_field_name("value") {
                    // `sizeof(Node)` with a typedef name parses as an expression.
                    let inner = if v.kind() == "parenthesized_expression" { v.named_child(0) } else { None };
                    let typedef =
                        inner.filter(|i| i.kind() == "identifier").and_then(|i| match self.lookup(self.text(i)) {
                            Some(Symbol::Typedef(t)) => Some(t.clone()),
                            _ => None,
                        });
                    if let Some(t) = typedef {
                        let size = self.program.size_of(&t);
                        return Expr::new(
                            ExprKind::SizeOf { size, text: self.text(v).to_string() },
                            Type::Int(IntType::ULONG),
                            span,
                        );
                    }
                    let e = self.lower_expr(v);
                    if matches!(e.ty, Type::Array(_, None)) || matches!(e.kind, ExprKind::Row { .. }) {
                        // A variable-length array's size is only known when the program runs.
                        self.unsupported("`sizeof` of a variable-length array", span);
                    }
                    (self.program.size_of(&e.ty), self.text(v).to_string())
                } else {
                    (0, String::new())
                };
                Expr::new(ExprKind::SizeOf { size, text }, Type::Int(IntType::ULONG), span)
            }
            "subscript_expression" => {
                let (Some(a), Some(i)) = (node.child_by_field_name("argument"), node.child_by_field_name("index"))
                else {
                    return error_expr(span);
                };
                let base = self.lower_expr(a);
                let base = self.rvalue(base);
                let index = self.lower_expr(i);
                let index = self.rvalue(index);
                // `i[a]` is legal C; normalise so the pointer is the base.
                let (base, index) =
                    if index.ty.is_pointer() && base.ty.is_integer() { (index, base) } else { (base, index) };
                let elem = match &base.ty {
                    Type::Pointer(t) => (**t).clone(),
                    Type::Error => Type::Error,
                    other => {
                        let t = self.program.type_name(other);
                        let name = self.text(a);
                        self.error(
                            base.span,
                            format!(
                                "`{name}` has type `{t}`, which is not an array or pointer, so it cannot be indexed"
                            ),
                        );
                        Type::Error
                    }
                };
                if !index.ty.is_integer() && !index.ty.is_error() {
                    let t = self.program.type_name(&index.ty);
                    self.error(index.span, format!("an array index must be an integer, not `{t}`"));
                }
                if let Type::Array(leaf, None) = &elem {
                    // A row of runtime length (`a[i]` with `int a[n][m]`).
                    let leaf = Type::ptr((**leaf).clone());
                    let named = match &base.strip_implicit().kind {
                        ExprKind::Decay(x) => x.strip_implicit(),
                        _ => base.strip_implicit(),
                    };
                    let len = match named.kind {
                        ExprKind::Var(v) => self.row_lengths.get(&v).copied(),
                        _ => None,
                    };
                    let Some(len) = len else {
                        self.unsupported("indexing a pointer to rows of unknown length", span);
                        return error_expr(span);
                    };
                    let kind = ExprKind::Row { array: Box::new(base), index: Box::new(index), len };
                    return Expr::new(kind, leaf, span);
                }
                Expr::new(ExprKind::Index(Box::new(base), Box::new(index)), elem, span)
            }
            "field_expression" => self.field(node),
            "call_expression" => self.call(node),
            "comma_expression" => {
                let (Some(l), Some(r)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else {
                    return error_expr(span);
                };
                let l = self.lower_expr(l);
                let r = self.lower_expr(r);
                let r = self.rvalue(r);
                let ty = r.ty.clone();
                Expr::new(ExprKind::Comma(Box::new(l), Box::new(r)), ty, span)
            }
            "initializer_list" => {
                self.error(span, "a `{...}` list can only initialise a declaration");
                error_expr(span)
            }
            "compound_literal_expression" => {
                self.unsupported("compound literals", span);
                error_expr(span)
            }
            "ERROR" => error_expr(span),
            other => {
                self.unsupported(&format!("`{}` expressions", other.replace('_', " ")), span);
                error_expr(span)
            }
        }
    }

    fn identifier(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let name = self.text(node);
        match self.lookup(name).cloned() {
            Some(Symbol::Var(v)) => {
                let ty = self.program.var(v).ty.clone();
                return Expr::new(ExprKind::Var(v), ty, span);
            }
            Some(Symbol::EnumConst(c)) => return int_expr(c, Type::INT, span),
            Some(Symbol::Func(_)) => {
                self.unsupported("function pointers (a function used as a value)", span);
                return error_expr(span);
            }
            Some(Symbol::Typedef(_)) => {
                self.error(span, format!("`{name}` is a type name, not a value"));
                return error_expr(span);
            }
            Some(Symbol::Unmodelled) => return error_expr(span),
            // A name the parser left empty (`if ()`, `x = ;`): a value is missing, which the
            // typed engine completes from what is in scope.
            None if name.trim().is_empty() => {
                self.error_code("undeclared", span, "a value is missing here".to_string());
                return error_expr(span);
            }
            None => {}
        }
        if let Some(e) = self.expand_macro(name, span) {
            return e;
        }
        if let Some((v, ty)) = builtins::standard_constant(name) {
            self.headers.require(builtins::constant_header(name), name, span, false);
            return int_expr(v, ty, span);
        }
        if let Some((v, ty)) = builtins::float_constant(name) {
            self.headers.require(builtins::constant_header(name), name, span, false);
            return Expr::new(ExprKind::Float(v), ty, span);
        }
        match name {
            "stdin" | "stdout" | "stderr" => {
                let stream = match name {
                    "stdin" => 1,
                    "stdout" => 2,
                    _ => 3,
                };
                let inner = int_expr(stream, Type::Int(IntType::LONG), span);
                return Expr::new(
                    ExprKind::Cast { expr: Box::new(inner), implicit: true },
                    Type::ptr(Type::Void),
                    span,
                );
            }
            "NULL" => {
                let inner = int_expr(0, Type::INT, span);
                return Expr::new(
                    ExprKind::Cast { expr: Box::new(inner), implicit: true },
                    Type::ptr(Type::Void),
                    span,
                );
            }
            _ => {}
        }
        let mut d = Diagnostic::error("undeclared", span, format!("`{name}` is not declared"));
        if let Some((near, at)) = self.nearest_name(name) {
            d.message.push_str(&format!("; did you mean `{near}`?"));
            if let Some(at) = at {
                d = d.with_related(at, format!("`{near}` is declared here"));
            }
        }
        self.diags.push(d);
        error_expr(span)
    }

    /// The in-scope variable closest to `name` by edit distance (at most 2 edits).
    fn nearest_name(&self, name: &str) -> Option<(String, Option<Span>)> {
        let mut best: Option<(usize, String, Option<Span>)> = None;
        for scope in self.scopes.iter().rev() {
            for (candidate, symbol) in scope {
                let d = edit_distance(name, candidate);
                let limit = if name.len() <= 3 { 1 } else { 2 };
                if d <= limit && best.as_ref().is_none_or(|(bd, bn, _)| d < *bd || (d == *bd && candidate < bn)) {
                    let at = match symbol {
                        Symbol::Var(v) => Some(self.program.var(*v).span),
                        Symbol::Func(f) => Some(self.program.func(*f).name_span),
                        _ => None,
                    };
                    best = Some((d, candidate.clone(), at));
                }
            }
        }
        best.map(|(_, n, at)| (n, at))
    }

    fn expand_macro(&mut self, name: &str, span: Span) -> Option<Expr> {
        let macros = self.macros;
        let def = macros.iter().rev().find(|m| m.name == name)?;
        if self.expanding.iter().any(|n| n == name) || self.expanding.len() > 16 {
            self.error(span, format!("the macro `{name}` refers to itself"));
            return Some(error_expr(span));
        }
        if def.body.is_empty() {
            self.error(span, format!("the macro `{name}` is empty, so it has no value"));
            return Some(error_expr(span));
        }
        let root = def.tree.root_node();
        let value = first_init_value(root)?;
        if root.has_error() {
            self.unsupported(&format!("the macro `{name}` (its value `{}` is not an expression)", def.body), span);
            return Some(error_expr(span));
        }
        let saved_src = std::mem::replace(&mut self.src, def.wrapper.as_str());
        let saved_override = self.span_override.replace(span);
        self.expanding.push(name.to_string());
        let e = self.lower_expr(value);
        self.expanding.pop();
        self.span_override = saved_override;
        self.src = saved_src;
        Some(e)
    }

    fn number_literal(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let full = self.text(node).replace('\'', "");
        // tree-sitter-c folds a sign into the literal in some positions (`x = -1`).
        if let Some(rest) = full.strip_prefix('-').or_else(|| full.strip_prefix('+')) {
            let e = self.number_from_text(rest.trim_start(), span);
            if full.starts_with('+') || e.ty.is_error() {
                return e;
            }
            let ty = promote(&e.ty);
            return match (e.kind, &ty) {
                (ExprKind::Int(v), Type::Int(t)) => int_expr(t.wrap(v.wrapping_neg()), ty, span),
                (ExprKind::Float(v), _) => Expr::new(ExprKind::Float(-v), ty, span),
                _ => error_expr(span),
            };
        }
        self.number_from_text(&full, span)
    }

    fn number_from_text(&mut self, text: &str, span: Span) -> Expr {
        let lower = text.to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        let is_float = !is_hex && (lower.contains('.') || lower.contains('e')) || is_hex && lower.contains('p');
        if is_float {
            let (digits, ty) = if let Some(d) = lower.strip_suffix('f') {
                (d, Type::Float(FloatKind::Float))
            } else if let Some(d) = lower.strip_suffix('l') {
                (d, Type::DOUBLE)
            } else {
                (lower.as_str(), Type::DOUBLE)
            };
            return match digits.parse::<f64>() {
                Ok(v) => {
                    let v = if ty == Type::Float(FloatKind::Float) { v as f32 as f64 } else { v };
                    Expr::new(ExprKind::Float(v), ty, span)
                }
                Err(_) => {
                    self.error(span, format!("`{text}` is not a valid number"));
                    error_expr(span)
                }
            };
        }
        let suffix_start = lower.find(['u', 'l']).unwrap_or(lower.len());
        let (digits, suffix) = lower.split_at(suffix_start);
        let (radix, digits) = if let Some(h) = digits.strip_prefix("0x") {
            (16, h)
        } else if let Some(b) = digits.strip_prefix("0b") {
            (2, b)
        } else if digits.len() > 1 && digits.starts_with('0') {
            (8, &digits[1..])
        } else {
            (10, digits)
        };
        let Ok(value) = u128::from_str_radix(if digits.is_empty() { "0" } else { digits }, radix) else {
            self.error(span, format!("`{text}` is not a valid integer"));
            return error_expr(span);
        };
        let unsigned = suffix.contains('u');
        let longs = suffix.matches('l').count();
        // C11 6.4.4.1: the first type of the list that can represent the value.
        let mut candidates: Vec<IntType> = Vec::new();
        let kinds: &[IntKind] = match longs {
            0 => &[IntKind::Int, IntKind::Long, IntKind::LongLong],
            1 => &[IntKind::Long, IntKind::LongLong],
            _ => &[IntKind::LongLong],
        };
        for k in kinds {
            if !unsigned {
                candidates.push(IntType { kind: *k, signed: true });
            }
            if unsigned || radix != 10 {
                candidates.push(IntType { kind: *k, signed: false });
            }
        }
        let ty = candidates.into_iter().find(|t| value <= t.max_value() as u128);
        match ty {
            Some(t) => int_expr(value as u64 as i64, Type::Int(t), span),
            None => {
                self.error(span, format!("`{text}` is too large for any integer type"));
                error_expr(span)
            }
        }
    }

    /// The bytes of a string or char literal (escapes decoded; adjacent strings joined).
    pub(super) fn string_bytes(&mut self, node: Node<'a>) -> Vec<u8> {
        let mut out = Vec::new();
        if node.kind() == "concatenated_string" {
            for part in Self::children(node) {
                if part.kind() == "string_literal" {
                    out.extend(self.string_bytes(part));
                } else {
                    self.unsupported("macros inside string concatenation", self.span(part));
                }
            }
            return out;
        }
        let text = self.text(node);
        let inner = text.trim_start_matches(['L', 'u', 'U', '8']).strip_prefix(['"', '\'']).unwrap_or(text);
        let inner = inner.strip_suffix(['"', '\'']).unwrap_or(inner);
        decode_escapes(inner.as_bytes(), &mut out);
        out
    }

    fn binary(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let (Some(l), Some(r), Some(op)) =
            (node.child_by_field_name("left"), node.child_by_field_name("right"), node.child_by_field_name("operator"))
        else {
            return error_expr(span);
        };
        let op_text = self.text(op);
        let lhs = self.lower_expr(l);
        let lhs = self.rvalue(lhs);
        let rhs = self.lower_expr(r);
        let rhs = self.rvalue(rhs);
        if op_text == "&&" || op_text == "||" {
            let lhs = self.scalar_condition(lhs);
            let rhs = self.scalar_condition(rhs);
            let op = if op_text == "&&" { LogicOp::And } else { LogicOp::Or };
            return Expr::new(ExprKind::Logical(op, Box::new(lhs), Box::new(rhs)), Type::INT, span);
        }
        let op = match op_text {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            "&" => BinOp::BitAnd,
            "|" => BinOp::BitOr,
            "^" => BinOp::BitXor,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            other => {
                self.unsupported(&format!("the operator `{other}`"), span);
                return error_expr(span);
            }
        };
        self.binary_op(op, lhs, rhs, span)
    }

    /// Types `lhs op rhs` (both rvalues) and inserts the conversions.
    pub(super) fn binary_op(&mut self, op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
        let (lt, rt) = (lhs.ty.clone(), rhs.ty.clone());
        if lt.is_error() || rt.is_error() {
            return Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), Type::Error, span);
        }
        let mk =
            |lhs: Expr, rhs: Expr, ty: Type| Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), ty, span);
        let bad = |this: &mut Self| {
            let (a, b) = (this.program.type_name(&lt), this.program.type_name(&rt));
            this.error(span, format!("`{}` cannot combine `{a}` and `{b}`", op.c_token()));
            Expr::new(ExprKind::Binary(op, Box::new(lhs.clone()), Box::new(rhs.clone())), Type::Error, span)
        };
        match op {
            BinOp::Add | BinOp::Sub if to_runtime_rows(&lt) || to_runtime_rows(&rt) => {
                self.unsupported("arithmetic on a pointer to rows of variable length", span);
                Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), Type::Error, span)
            }
            BinOp::Add | BinOp::Sub if lt.is_pointer() || rt.is_pointer() => {
                if lt.is_pointer() && rt.is_integer() {
                    let rhs = self.convert(rhs, &Type::Int(IntType::LONG));
                    mk(lhs, rhs, lt)
                } else if op == BinOp::Add && lt.is_integer() && rt.is_pointer() {
                    let lhs = self.convert(lhs, &Type::Int(IntType::LONG));
                    Expr::new(ExprKind::Binary(op, Box::new(rhs), Box::new(lhs)), rt, span)
                } else if op == BinOp::Sub && lt.is_pointer() && rt.is_pointer() {
                    mk(lhs, rhs, Type::Int(IntType::LONG))
                } else {
                    bad(self)
                }
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                if !lt.is_arithmetic() || !rt.is_arithmetic() {
                    return bad(self);
                }
                let ty = usual_arithmetic(&lt, &rt);
                let (lhs, rhs) = (self.convert(lhs, &ty), self.convert(rhs, &ty));
                mk(lhs, rhs, ty)
            }
            BinOp::Rem | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                if !lt.is_integer() || !rt.is_integer() {
                    if op == BinOp::Rem && lt.is_arithmetic() && rt.is_arithmetic() {
                        self.error(span, "`%` needs integers; for `double` values use `fmod` or cast to `int`");
                        return Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), Type::Error, span);
                    }
                    return bad(self);
                }
                let ty = usual_arithmetic(&lt, &rt);
                let (lhs, rhs) = (self.convert(lhs, &ty), self.convert(rhs, &ty));
                mk(lhs, rhs, ty)
            }
            BinOp::Shl | BinOp::Shr => {
                if !lt.is_integer() || !rt.is_integer() {
                    return bad(self);
                }
                let (pl, pr) = (promote(&lt), promote(&rt));
                let (lhs, rhs) = (self.convert(lhs, &pl), self.convert(rhs, &pr));
                mk(lhs, rhs, pl)
            }
            _ => {
                // Comparisons.
                if lt.is_arithmetic() && rt.is_arithmetic() {
                    let ty = usual_arithmetic(&lt, &rt);
                    let (lhs, rhs) = (self.convert(lhs, &ty), self.convert(rhs, &ty));
                    return mk(lhs, rhs, Type::INT);
                }
                if lt.is_pointer() && rt.is_pointer() {
                    let compared = mk(lhs, rhs, Type::INT);
                    self.string_equality_fix(&compared);
                    return compared;
                }
                if lt.is_pointer() && is_null_constant(&rhs) {
                    let rhs = self.convert(rhs, &lt);
                    return mk(lhs, rhs, Type::INT);
                }
                if rt.is_pointer() && is_null_constant(&lhs) {
                    let lhs = self.convert(lhs, &rt);
                    return mk(lhs, rhs, Type::INT);
                }
                if (lt.is_pointer() && rt.is_integer()) || (lt.is_integer() && rt.is_pointer()) {
                    let (a, b) = (self.program.type_name(&lt), self.program.type_name(&rt));
                    let hint = if lt.is_char_pointer() || rt.is_char_pointer() {
                        " (to compare strings use `strcmp`; to compare one character, index the string)"
                    } else {
                        ""
                    };
                    self.warning("type", span, format!("comparing `{a}` with `{b}`: a pointer and an integer{hint}"));
                    return mk(lhs, rhs, Type::INT);
                }
                bad(self)
            }
        }
    }

    fn unary(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let (Some(op), Some(arg)) = (node.child_by_field_name("operator"), node.child_by_field_name("argument")) else {
            return error_expr(span);
        };
        let op = self.text(op);
        let e = self.lower_expr(arg);
        let e = self.rvalue(e);
        if e.ty.is_error() {
            return Expr { ty: Type::Error, ..e };
        }
        match op {
            "!" => {
                let e = self.scalar_condition(e);
                Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), Type::INT, span)
            }
            "-" | "+" if e.ty.is_arithmetic() => {
                let ty = promote(&e.ty);
                let e = self.convert(e, &ty);
                if op == "+" {
                    return Expr { span, ..e };
                }
                // Fold `-5` into a constant so it prints and mutates as one literal.
                if let ExprKind::Int(v) = e.kind
                    && let Type::Int(t) = &ty
                {
                    return int_expr(t.wrap(v.wrapping_neg()), ty, span);
                }
                if let ExprKind::Float(v) = e.kind {
                    return Expr::new(ExprKind::Float(-v), ty, span);
                }
                Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(e)), ty, span)
            }
            "~" if e.ty.is_integer() => {
                let ty = promote(&e.ty);
                let e = self.convert(e, &ty);
                Expr::new(ExprKind::Unary(UnOp::BitNot, Box::new(e)), ty, span)
            }
            _ => {
                let t = self.program.type_name(&e.ty);
                self.error(span, format!("`{op}` cannot be applied to a value of type `{t}`"));
                error_expr(span)
            }
        }
    }

    fn address_of(&mut self, inner: Expr, span: Span) -> Expr {
        if inner.ty.is_error() {
            return Expr::new(ExprKind::AddrOf(Box::new(inner)), Type::Error, span);
        }
        if !is_lvalue(&inner) {
            self.error(span, "`&` needs a variable (or array element or field), not a computed value");
            return error_expr(span);
        }
        self.mark_addressable(&inner);
        let ty = Type::ptr(inner.ty.clone());
        Expr::new(ExprKind::AddrOf(Box::new(inner)), ty, span)
    }

    fn mark_addressable(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) => self.program.vars[v.0 as usize].addressable = true,
            ExprKind::Member { base, arrow: false, .. } => self.mark_addressable(base),
            _ => {}
        }
    }

    fn deref(&mut self, inner: Expr, span: Span) -> Expr {
        let inner = self.rvalue(inner);
        if to_runtime_rows(&inner.ty) {
            self.unsupported("`*` on a pointer to rows of variable length", span);
            return Expr::new(ExprKind::Deref(Box::new(inner)), Type::Error, span);
        }
        match inner.ty.clone() {
            Type::Pointer(t) => {
                if *t == Type::Void {
                    self.error(span, "cannot dereference a `void *`; cast it to a typed pointer first");
                }
                Expr::new(ExprKind::Deref(Box::new(inner)), *t, span)
            }
            Type::Error => Expr::new(ExprKind::Deref(Box::new(inner)), Type::Error, span),
            other => {
                let t = self.program.type_name(&other);
                self.error(span, format!("`*` needs a pointer, but this is `{t}`"));
                error_expr(span)
            }
        }
    }

    fn check_modifiable(&mut self, target: &Expr, what: &str) {
        if target.ty.is_error() {
            return;
        }
        if !is_lvalue(target) || matches!(target.kind, ExprKind::Str(_)) {
            self.error(target.span, format!("cannot {what} this: it is a value, not a variable"));
        } else if matches!(target.ty, Type::Array(..)) {
            self.error(target.span, format!("cannot {what} a whole array (use a loop, or `strcpy` for strings)"));
        }
    }

    fn assignment(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let (Some(l), Some(r), Some(op)) =
            (node.child_by_field_name("left"), node.child_by_field_name("right"), node.child_by_field_name("operator"))
        else {
            return error_expr(span);
        };
        let op = self.text(op);
        let lhs = self.lower_expr(l);
        let rhs = self.lower_expr(r);
        let rhs = self.rvalue(rhs);
        self.check_modifiable(&lhs, "assign to");
        let lty = lhs.ty.clone();
        if op == "=" {
            let rspan = rhs.span;
            let rhs = self.convert_assign(rhs, &lty, rspan, "assign");
            return Expr::new(ExprKind::Assign(Box::new(lhs), Box::new(rhs)), lty, span);
        }
        let bin = match op {
            "+=" => BinOp::Add,
            "-=" => BinOp::Sub,
            "*=" => BinOp::Mul,
            "/=" => BinOp::Div,
            "%=" => BinOp::Rem,
            "<<=" => BinOp::Shl,
            ">>=" => BinOp::Shr,
            "&=" => BinOp::BitAnd,
            "|=" => BinOp::BitOr,
            "^=" => BinOp::BitXor,
            other => {
                self.unsupported(&format!("the operator `{other}`"), span);
                return error_expr(span);
            }
        };
        // Type the operation as `lhs op rhs` would be, on a stand-in for the lhs value.
        let stand_in = Expr::new(ExprKind::Int(0), lty.clone(), lhs.span);
        let typed = self.binary_op(bin, stand_in, rhs, span);
        let ExprKind::Binary(_, l_conv, rhs) = typed.kind else { return error_expr(span) };
        let op_ty = if lty.is_pointer() { lty.clone() } else { l_conv.ty.clone() };
        if typed.ty.is_arithmetic() && !lty.is_arithmetic() && !lty.is_error() {
            self.error(span, format!("`{op}` needs a number on the left"));
        }
        Expr::new(ExprKind::CompoundAssign { op: bin, op_ty, lhs: Box::new(lhs), rhs }, lty, span)
    }

    fn conditional(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let (Some(c), Some(a), Some(b)) = (
            node.child_by_field_name("condition"),
            node.child_by_field_name("consequence"),
            node.child_by_field_name("alternative"),
        ) else {
            return error_expr(span);
        };
        let c = self.lower_expr(c);
        let c = self.scalar_condition(c);
        let a = self.lower_expr(a);
        let a = self.rvalue(a);
        let b = self.lower_expr(b);
        let b = self.rvalue(b);
        let ty = if a.ty.is_error() || b.ty.is_error() {
            Type::Error
        } else if a.ty.is_arithmetic() && b.ty.is_arithmetic() {
            usual_arithmetic(&a.ty, &b.ty)
        } else if a.ty == b.ty || (a.ty.is_pointer() && is_null_constant(&b)) {
            a.ty.clone()
        } else if b.ty.is_pointer() && is_null_constant(&a) {
            b.ty.clone()
        } else if a.ty.is_pointer() && b.ty.is_pointer() {
            a.ty.clone()
        } else {
            let (x, y) = (self.program.type_name(&a.ty), self.program.type_name(&b.ty));
            self.error(span, format!("the two arms of `?:` have incompatible types `{x}` and `{y}`"));
            Type::Error
        };
        let a = self.convert(a, &ty);
        let b = self.convert(b, &ty);
        Expr::new(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)), ty, span)
    }

    fn field(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let (Some(a), Some(f), Some(op)) = (
            node.child_by_field_name("argument"),
            node.child_by_field_name("field"),
            node.child_by_field_name("operator"),
        ) else {
            return error_expr(span);
        };
        let arrow = self.text(op) == "->";
        let base = self.lower_expr(a);
        let base = if arrow { self.rvalue(base) } else { base };
        let fname = self.text(f);
        let struct_ty = match (&base.ty, arrow) {
            (Type::Error, _) => return error_expr(span),
            (Type::Struct(id), false) => Some(*id),
            (Type::Pointer(t), true) => match **t {
                Type::Struct(id) => Some(id),
                _ => None,
            },
            (Type::Pointer(t), false) if matches!(**t, Type::Struct(_)) => {
                self.error(self.span(op), format!("`{}` is a pointer to a struct: use `->{fname}`", self.text(a)));
                return error_expr(span);
            }
            (Type::Struct(_), true) => {
                self.error(self.span(op), format!("`{}` is a struct, not a pointer: use `.{fname}`", self.text(a)));
                return error_expr(span);
            }
            _ => None,
        };
        let Some(id) = struct_ty else {
            let t = self.program.type_name(&base.ty);
            self.error(span, format!("`{}` has type `{t}`, which has no fields", self.text(a)));
            return error_expr(span);
        };
        let def = self.program.struct_def(id);
        match def.fields.iter().position(|x| x.name == fname) {
            Some(i) => {
                let ty = def.fields[i].ty.clone();
                Expr::new(ExprKind::Member { base: Box::new(base), field: i, arrow }, ty, span)
            }
            None => {
                let sname = def.name.clone();
                let near = def
                    .fields
                    .iter()
                    .map(|x| (edit_distance(fname, &x.name), x.name.clone()))
                    .filter(|(d, _)| *d <= 2)
                    .min();
                let hint = near.map(|(_, n)| format!("; did you mean `{n}`?")).unwrap_or_default();
                self.error_code("no-field", self.span(f), format!("`struct {sname}` has no field `{fname}`{hint}"));
                error_expr(span)
            }
        }
    }

    fn call(&mut self, node: Node<'a>) -> Expr {
        let span = self.span(node);
        let Some(func) = node.child_by_field_name("function") else { return error_expr(span) };
        let arg_nodes = node.child_by_field_name("arguments").map(Self::children).unwrap_or_default();
        let args: Vec<Expr> = arg_nodes
            .iter()
            .map(|a| {
                let e = self.lower_expr(*a);
                self.rvalue(e)
            })
            .collect();
        if func.kind() != "identifier" {
            self.unsupported("calls through function pointers", span);
            return error_expr(span);
        }
        let name = self.text(func);
        let fspan = self.span(func);
        match self.lookup(name).cloned() {
            Some(Symbol::Func(id)) => {
                let sig = self.sigs[id.0 as usize].clone();
                let args = self.check_args(name, fspan, span, args, &sig.params, sig.unchecked_params);
                return Expr::new(ExprKind::Call(Callee::Func(id), args), sig.ret, span);
            }
            Some(Symbol::Var(v)) => {
                let t = self.program.type_name(&self.program.var(v).ty);
                self.error(fspan, format!("`{name}` is a variable of type `{t}`, not a function"));
                return error_expr(span);
            }
            Some(Symbol::Unmodelled) => return error_expr(span),
            Some(_) => {
                self.error(fspan, format!("`{name}` is not a function"));
                return error_expr(span);
            }
            None => {}
        }
        if let Some(sig) = builtins::lookup(name) {
            self.headers.require(sig.header, name, fspan, true);
            let args = match sig.params {
                Params::Fixed(params) => self.check_args(name, fspan, span, args, &params, false),
                Params::Format { scanf } => self.check_format_call(name, fspan, span, args, scanf),
            };
            if sig.builtin == crate::ir::Builtin::Fgets
                && let Some(stream) = args.get(2)
                && !matches!(stream.strip_implicit().kind, ExprKind::Int(1))
                && !stream.ty.is_error()
            {
                self.unsupported("`fgets` from a stream other than `stdin`", stream.span);
            }
            return Expr::new(ExprKind::Call(Callee::Builtin(sig.builtin), args), sig.ret, span);
        }
        if builtins::is_unmodelled_library_function(name) {
            self.unsupported(&format!("the library function `{name}`"), fspan);
        } else {
            let mut d = Diagnostic::error("undeclared", fspan, format!("the function `{name}` is not declared"));
            if let Some((near, at)) = self.nearest_function(name) {
                d.message.push_str(&format!("; did you mean `{near}`?"));
                if let Some(at) = at {
                    d = d.with_related(at, format!("`{near}` is declared here"));
                }
            }
            self.diags.push(d);
        }
        error_expr(span)
    }

    fn nearest_function(&self, name: &str) -> Option<(String, Option<Span>)> {
        const KNOWN: &[&str] = &[
            "printf", "scanf", "getchar", "putchar", "puts", "gets", "fgets", "strlen", "strcmp", "strcpy", "strcat",
            "abs", "fabs", "pow", "sqrt", "floor", "ceil", "log10", "malloc", "calloc", "free", "toupper", "tolower",
            "isdigit", "isalpha", "isspace",
        ];
        let user = self.program.funcs.iter().map(|f| (f.name.as_str(), Some(f.name_span)));
        let lib = KNOWN.iter().map(|n| (*n, None));
        user.chain(lib)
            .map(|(n, at)| (edit_distance(name, n), n.to_string(), at))
            .filter(|(d, _, _)| *d <= 2)
            .min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)))
            .map(|(_, n, at)| (n, at))
    }

    fn check_args(
        &mut self,
        name: &str,
        fspan: Span,
        span: Span,
        args: Vec<Expr>,
        params: &[Type],
        unchecked: bool,
    ) -> Vec<Expr> {
        if !unchecked && args.len() != params.len() {
            let n = params.len();
            let plural = if n == 1 { "" } else { "s" };
            let msg = format!(
                "`{name}` takes {n} argument{plural}, but {} {} given",
                args.len(),
                if args.len() == 1 { "is" } else { "are" }
            );
            self.error_code(
                "arity",
                if args.len() > n { args[n].span.cover(span.min_end(args.last().map(|a| a.span))) } else { span },
                msg,
            );
            let _ = fspan;
        }
        args.into_iter()
            .enumerate()
            .map(|(i, a)| match params.get(i) {
                Some(p) if !unchecked => {
                    let aspan = a.span;
                    let what = format!("pass argument {} of `{name}`:", i + 1);
                    self.convert_assign(a, p, aspan, &what)
                }
                _ => self.default_promotion(a),
            })
            .collect()
    }

    /// Default argument promotions for variadic arguments: float → double, small ints → int.
    fn default_promotion(&mut self, a: Expr) -> Expr {
        match &a.ty {
            Type::Float(FloatKind::Float) => self.convert(a, &Type::DOUBLE),
            Type::Int(_) => {
                let p = promote(&a.ty);
                self.convert(a, &p)
            }
            _ => a,
        }
    }

    /// `printf('*')` and `printf(n)`: a value where the format goes. The fix prints it as
    /// meant: a character constant becomes the string of that character (`"*"`), a number is
    /// printed through the directive of its type (`"%d", n`).
    fn printf_value_fix(&mut self, value: &Expr) {
        let span = value.span;
        let written = self.src[span.range()].to_string();
        let (new_text, title) = match (&value.strip_implicit().kind, &value.strip_implicit().ty) {
            (ExprKind::Int(_), _) if written.starts_with('\'') && written.ends_with('\'') && written.len() >= 3 => {
                let inner = &written[1..written.len() - 1];
                let inner = match inner {
                    "\"" => "\\\"".to_string(),
                    "%" => "%%".to_string(),
                    "\\'" => "'".to_string(),
                    other => other.to_string(),
                };
                (format!("\"{inner}\""), format!("Print the character as the string `\"{inner}\"`"))
            }
            (_, Type::Int(i)) => {
                let conv = match (i.kind, i.signed) {
                    (IntKind::Char, _) => "c",
                    (IntKind::Long | IntKind::LongLong, true) => "ld",
                    (IntKind::Long | IntKind::LongLong, false) => "lu",
                    (_, false) => "u",
                    _ => "d",
                };
                (format!("\"%{conv}\", {written}"), format!("Print `{written}` with `%{conv}`"))
            }
            (_, Type::Float(_)) => (format!("\"%f\", {written}"), format!("Print `{written}` with `%f`")),
            _ => return,
        };
        self.fix(
            span,
            title,
            TextEdit { span, new_text },
            "`printf` takes the text to print first, as a string; values go after it, each with a `%` directive.",
        );
    }

    /// `s == "yes"`: strings compared where they are stored, never equal. The fix compares
    /// their letters with `strcmp` (including `<string.h>` where the file does not).
    fn string_equality_fix(&mut self, compared: &Expr) {
        let Some(edit) = crate::ir::string_equality_edit(self.src, compared) else { return };
        let (span, written) = (compared.span, self.src[compared.span.range()].to_string());
        self.warning(
            "string-equality",
            span,
            format!("`{written}` compares where the strings are stored, not their letters"),
        );
        let meant = edit.new_text.clone();
        self.fix(
            span,
            format!("Compare the letters: `{meant}`"),
            edit,
            "`strcmp` compares two strings letter by letter; it gives 0 when they are the same.",
        );
        if let Some(include) = crate::syntax::include_lines::include_edit(self.src, "string.h")
            && let Some(fix) = self.fixes.last_mut()
        {
            fix.edits.push(include);
        }
    }

    /// `%C`, `%D`: a conversion letter in the wrong case, where the lower case one exists.
    /// `at` must be the directive's own text in the source (not the whole literal).
    fn conversion_case_fix(&mut self, at: Span, directive: &[u8]) {
        let Some(&last) = directive.last() else { return };
        let lower = last.to_ascii_lowercase();
        if !last.is_ascii_uppercase() || !b"cdisuofeg".contains(&lower) || at.len() != directive.len() {
            return;
        }
        let end = at.end as usize;
        let span = Span::new(end - 1, end);
        let (from, to) = (last as char, lower as char);
        self.fix(
            at,
            format!("Replace `%{from}` with `%{to}`"),
            TextEdit { span, new_text: to.to_string() },
            format!("The conversion is written in lower case: `%{to}`."),
        );
    }

    /// A format with `surplus` arguments too many and exactly that many directives written with
    /// a key next to `%` or the `&` of the arguments (`scanf("&d", &n)`, `"$d"`, `"#d"`): the
    /// fix writes `%` for each.
    fn lookalike_directive_fix(&mut self, at: Span, fmt_span: Span, bytes: &[u8], surplus: usize) {
        let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        let conversion = |b: u8| b"dicsfeguxol".contains(&b);
        let lookalikes: Vec<usize> = (0..bytes.len().saturating_sub(1))
            .filter(|&i| b"&$#@^".contains(&bytes[i]) && conversion(bytes[i + 1]) && (i == 0 || bytes[i - 1] != b'%'))
            .collect();
        if lookalikes.len() != surplus {
            return;
        }
        let mut edits = Vec::new();
        for &i in &lookalikes {
            let span = self.format_span(fmt_span, bytes, i, i + 1);
            if span.len() != 1 {
                return; // escapes before it: no exact place in the source
            }
            edits.push(TextEdit { span, new_text: "%".into() });
        }
        let written = String::from_utf8_lossy(&bytes[lookalikes[0]..lookalikes[0] + 2]).into_owned();
        let meant = format!("%{}", bytes[lookalikes[0] + 1] as char);
        let title = match edits.len() {
            1 => format!("Replace `{written}` with `{meant}`"),
            n => format!("Replace `{written}` with `{meant}` (and {} more)", n - 1),
        };
        self.fix(at, title, edits.remove(0), "A directive starts with `%`.");
        if let Some(fix) = self.fixes.last_mut() {
            fix.edits.extend(edits);
        }
    }

    /// printf/scanf: the format literal gives the expected argument types.
    fn check_format_call(&mut self, name: &str, fspan: Span, span: Span, args: Vec<Expr>, scanf: bool) -> Vec<Expr> {
        let mut args = args.into_iter();
        let Some(fmt) = args.next() else {
            self.error_code("arity", span, format!("`{name}` needs a format string"));
            return Vec::new();
        };
        let _ = fspan;
        let fmt = if fmt.ty.is_char_pointer() || fmt.ty.is_error() {
            fmt
        } else {
            let t = self.program.type_name(&fmt.ty);
            self.error(fmt.span, format!("the first argument of `{name}` must be a format string, not `{t}`"));
            if !scanf && name == "printf" {
                self.printf_value_fix(&fmt);
            }
            fmt
        };
        let rest: Vec<Expr> = args.map(|a| self.default_promotion(a)).collect();
        let literal = match &fmt.strip_implicit().kind {
            ExprKind::Str(bytes) => Some(bytes.clone()),
            _ => None,
        };
        let Some(bytes) = literal else {
            let mut all = vec![fmt];
            all.extend(rest);
            return all;
        };
        // The literal's text offsets: directive ranges map into the source when the format
        // is a plain literal (no escapes before the directive); else the whole literal.
        let fmt_span = fmt.strip_implicit().span;
        let pieces = match format::parse(&bytes, scanf) {
            Ok(p) => p,
            Err(e) => {
                let at = self.format_span(fmt_span, &bytes, e.start, e.end);
                self.error_code("format", at, e.message);
                self.conversion_case_fix(at, &bytes[e.start..e.end]);
                let mut all = vec![fmt];
                all.extend(rest);
                return all;
            }
        };
        // Each argument the format reads: its type, in words, the directive's bytes, and
        // whether it is the value of an integer conversion with no length modifier.
        let mut expected: Vec<(Type, &'static str, usize, usize, bool)> = Vec::new();
        for p in &pieces {
            let Piece::Directive(d) = p else { continue };
            if !scanf {
                if d.width == format::Count::Star {
                    expected.push((Type::INT, "an `int` width", d.start, d.end, false));
                }
                if d.precision == format::Count::Star {
                    expected.push((Type::INT, "an `int` precision", d.start, d.end, false));
                }
            }
            if d.arg_count(scanf)
                == usize::from(d.width == format::Count::Star) + usize::from(d.precision == format::Count::Star)
                && !scanf
            {
                continue;
            }
            if scanf && d.suppress {
                continue;
            }
            let (ty, desc) = directive_type(d, scanf);
            let plain_int = (d.is_integer() || d.conv == 'c') && d.length == format::Length::None;
            expected.push((ty, desc, d.start, d.end, plain_int));
        }
        if rest.len() < expected.len() {
            let (_, desc, s, e, _) = &expected[rest.len()];
            let at = self.format_span(fmt_span, &bytes, *s, *e);
            let missing = expected.len() - rest.len();
            self.error_code(
                "format",
                at,
                format!(
                    "`{}` expects {desc}, but no argument is given for it ({missing} missing)",
                    String::from_utf8_lossy(&bytes[*s..*e])
                ),
            );
        } else if rest.len() > expected.len() {
            let extra = &rest[expected.len()];
            self.warning(
                "format",
                extra.span,
                format!("this argument has no matching `%` directive in the format of `{name}`, so it is ignored"),
            );
            self.lookalike_directive_fix(extra.span, fmt_span, &bytes, rest.len() - expected.len());
        }
        for (arg, (ty, desc, s, e, plain_int)) in rest.iter().zip(&expected) {
            if arg.ty.is_error() {
                continue;
            }
            let directive = String::from_utf8_lossy(&bytes[*s..*e]).into_owned();
            let t = self.program.type_name(&arg.ty);
            if scanf {
                match &arg.ty {
                    Type::Pointer(pointee) => {
                        // An error, not gcc's warning, where `scanf` stores a float's bits
                        // where another type is read back (`%f` into a `double`), or more
                        // bytes than the variable holds (`%d` into a `char`): what the program
                        // does then is not what it says, and its logic is analysed once the
                        // fix is in (`check::type_fixed`). A store into the low bytes (`%c`
                        // into an `int`) is modelled as such, and `%s` with `&word` stores
                        // where `word` would: warnings.
                        if !scanf_target_matches(ty, pointee) {
                            let message = format!("`{directive}` expects {desc}, but this is `{t}`");
                            let garbled = match (ty, &**pointee) {
                                (Type::Float(_), _) | (_, Type::Float(_)) => true,
                                (Type::Int(_), Type::Int(_)) => {
                                    self.program.size_of(ty) > self.program.size_of(pointee)
                                }
                                _ => false,
                            };
                            if garbled {
                                self.error_code("format", arg.span, message);
                            } else {
                                self.warning("format", arg.span, message);
                            }
                        }
                    }
                    _ => {
                        let hint =
                            if is_lvalue(arg.strip_implicit()) && !matches!(arg.strip_implicit().ty, Type::Array(..)) {
                                format!(" (write `&{}`)", self.src_text_of(arg))
                            } else {
                                String::new()
                            };
                        self.error_code("scanf-pointer", arg.span, format!("`scanf` needs the address of where to store the value: `{directive}` expects {desc}, but this is `{t}`{hint}"));
                    }
                }
            } else if *plain_int && arg.ty.as_int().is_some_and(|i| matches!(i.kind, IntKind::Long | IntKind::LongLong))
            {
                // A 64-bit integer where the directive reads an `int`: gcc on x86-64 and mend's
                // model print its low 32 bits (8 for `%c`), which `(int)(…)` writes out. The fix
                // keeps behaviour, so a proved repair may carry it (`check::compiles`).
                self.warning(FORMAT_WIDTH, arg.span, format!("`{directive}` expects {desc}, but this is `{t}`"));
                let written = self.src_text_of(arg);
                if !written.is_empty() {
                    self.fix(
                        arg.span,
                        format!("Write `(int)({written})`"),
                        TextEdit { span: arg.span, new_text: format!("(int)({written})") },
                        format!("`{directive}` prints an `int`: the low 32 bits of the `{t}`, which the cast says."),
                    );
                }
            } else if !printf_arg_matches(ty, &arg.ty) {
                self.warning("format", arg.span, format!("`{directive}` expects {desc}, but this is `{t}`"));
            }
        }
        let mut all = vec![fmt];
        all.extend(rest);
        all
    }

    fn src_text_of(&self, e: &Expr) -> String {
        self.src.get(e.span.range()).map(str::to_string).unwrap_or_default()
    }

    /// The source span of bytes `start..end` of a string literal's decoded value, when it can
    /// be mapped (no escapes before it); else the literal's span.
    fn format_span(&self, lit_span: Span, decoded: &[u8], start: usize, end: usize) -> Span {
        if self.span_override.is_some() {
            return lit_span;
        }
        let Some(text) = self.src.get(lit_span.range()) else { return lit_span };
        let Some(open) = text.find('"') else { return lit_span };
        let raw = &text.as_bytes()[open + 1..];
        if raw.len() >= end && raw[..end] == decoded[..end] {
            let s = lit_span.start as usize + open + 1;
            return Span::new(s + start, s + end);
        }
        lit_span
    }
}

trait MinEnd {
    fn min_end(self, other: Option<Span>) -> Span;
}

impl MinEnd for Span {
    /// The span from `self`'s start to `other`'s end (the extra arguments of a call).
    fn min_end(self, other: Option<Span>) -> Span {
        match other {
            Some(o) => Span { start: o.start.min(self.end), end: o.end },
            None => self,
        }
    }
}

/// The argument type a directive expects, and how to say it.
fn directive_type(d: &format::Directive, scanf: bool) -> (Type, &'static str) {
    let int = |kind, signed| Type::Int(IntType { kind, signed });
    match d.conv {
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
            let signed = matches!(d.conv, 'd' | 'i');
            match d.length {
                Length::Char => (int(IntKind::Char, signed), if scanf { "a `char *`" } else { "a `char`" }),
                Length::Short => (int(IntKind::Short, signed), if scanf { "a `short *`" } else { "a `short`" }),
                Length::Long | Length::Size => {
                    (int(IntKind::Long, signed), if scanf { "a `long *`" } else { "a `long`" })
                }
                Length::LongLong => {
                    (int(IntKind::LongLong, signed), if scanf { "a `long long *`" } else { "a `long long`" })
                }
                _ => (int(IntKind::Int, signed), if scanf { "an `int *`" } else { "an `int`" }),
            }
        }
        'c' => (Type::CHAR, if scanf { "a `char *`" } else { "a `char` (an `int`)" }),
        's' | '[' => (Type::ptr(Type::CHAR), if scanf { "a `char` array" } else { "a string (`char *`)" }),
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
            if scanf {
                match d.length {
                    Length::Long | Length::LongDouble => (Type::DOUBLE, "a `double *` (`%lf` reads a double)"),
                    _ => (Type::Float(FloatKind::Float), "a `float *` (use `%lf` for a `double`)"),
                }
            } else {
                (Type::DOUBLE, "a `double` (or `float`)")
            }
        }
        'p' => (Type::ptr(Type::Void), "a pointer"),
        'n' => (Type::INT, "an `int *`"),
        _ => (Type::Error, "a value"),
    }
}

/// scanf: does the pointee type fit the directive's target type?
fn scanf_target_matches(expected: &Type, pointee: &Type) -> bool {
    match (expected, pointee) {
        (Type::Error, _) | (_, Type::Error) => true,
        (Type::Int(e), Type::Int(p)) => e.kind == p.kind || (e.kind == IntKind::Long && p.kind == IntKind::LongLong),
        (Type::Float(e), Type::Float(p)) => e == p,
        // `%s` takes a char array's first element: `char *` target, pointee `char`.
        (Type::Pointer(e), p) => **e == *p || matches!((&**e, p), (Type::Int(a), Type::Int(b)) if a.kind == b.kind),
        _ => false,
    }
}

/// printf: does the (promoted) argument fit the directive?
fn printf_arg_matches(expected: &Type, arg: &Type) -> bool {
    match (expected, arg) {
        (Type::Error, _) | (_, Type::Error) => true,
        (Type::Int(e), Type::Int(a)) => {
            // Signedness mismatches are harmless in practice; widths must agree.
            let width = |k: IntKind| match k {
                IntKind::Long | IntKind::LongLong => 64,
                _ => 32,
            };
            width(e.kind) == width(a.kind)
        }
        (Type::Float(_), Type::Float(_)) => true,
        (Type::Pointer(e), Type::Pointer(a)) => {
            **e == Type::Void || e == a || a.as_int().is_some_and(|t| t.kind == IntKind::Char)
        }
        _ => false,
    }
}

fn first_init_value(root: Node) -> Option<Node> {
    let decl = root.named_child(0)?;
    let init = decl.child_by_field_name("declarator")?;
    init.child_by_field_name("value")
}

/// Decodes C escape sequences.
pub fn decode_escapes(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' || i + 1 >= raw.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = raw[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'0'..=b'7' => {
                let mut v: u32 = (e - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < raw.len() && (b'0'..=b'7').contains(&raw[i]) {
                    v = v * 8 + (raw[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            b'x' => {
                let mut v: u32 = 0;
                while i < raw.len() && raw[i].is_ascii_hexdigit() {
                    v = v.wrapping_mul(16) + (raw[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                }
                out.push(v as u8);
            }
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' => out.push(27),
            b'\n' => {} // line continuation
            other => out.push(other),
        }
    }
}

/// Levenshtein distance (names are short).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `'/n'` → `'\n'` (and `/t`, `/0`, `/r`): a character constant whose two characters are a
/// slash and an escape letter.
fn slashed_escape(written: &str) -> Option<String> {
    let inner = written.strip_prefix('\'')?.strip_suffix('\'')?;
    let letter = inner.strip_prefix('/')?;
    matches!(letter, "n" | "t" | "0" | "r").then(|| format!("'\\{letter}'"))
}

/// Types a pointer may point to interchangeably (C11 6.7.6.2): equal, an array of unknown
/// length beside one of the same element type (`int (*)[]` and `int (*)[3]`), or a type the
/// lowerer already reported (`<error>`).
fn compatible_pointees(a: &Type, b: &Type) -> bool {
    match (a, b) {
        _ if a == b || a.is_error() || b.is_error() => true,
        (Type::Array(x, n), Type::Array(y, m)) => (n.is_none() || m.is_none() || n == m) && compatible_pointees(x, y),
        _ => false,
    }
}
