//! What is in scope at a position of a file: variables with their proximity/frequency costs,
//! functions (the file's and the included library's), macros, and the IR's types by span for
//! expressions the engine's own typer does not model.

use std::collections::HashMap;

use super::stdlib::{self, EntryKind, HeaderSet};
use super::types::{Ty, Types};
use crate::ir::{Expr, ExprKind, FuncId, Init, Program, Stmt, StmtKind, VarId, VarKind};

#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: String,
    /// The declared type (arrays stay arrays; reading decays them).
    pub ty: Ty,
    /// Edge cost of the variable node: proximity of its declaration, frequency of its name.
    pub cost: u32,
    /// Where the variable is declared (byte offset): the order students list variables in.
    pub decl: u32,
}

#[derive(Clone, Debug)]
pub struct Sig {
    pub ret: Ty,
    pub params: Vec<Ty>,
    /// `...` (or an old-style `f()` whose parameters are unchecked).
    pub variadic: bool,
    /// A library function (its header decides whether it is a graph node).
    pub header: Option<&'static str>,
}

pub struct Env<'p> {
    pub program: &'p Program,
    pub types: Types,
    pub vars: Vec<VarInfo>,
    by_name: HashMap<String, usize>,
    pub func: Option<FuncId>,
    pub headers: HeaderSet,
    /// Identifier occurrences in the file.
    pub freq: HashMap<String, u32>,
    /// Types of the IR's expressions by span (start, end), for opaque terms.
    pub ir_types: HashMap<(u32, u32), Ty>,
    /// User functions by name.
    user_fns: HashMap<String, Sig>,
    /// Macros with a literal value: name → (type, value text).
    pub macros: Vec<(String, Ty)>,
    /// Number and character literals of the enclosing function (literals are function nodes
    /// of the graph too).
    pub literals: Vec<(String, Ty)>,
    /// Locals that have no value yet at the position: declared without an initialiser and
    /// not written (assigned, incremented, address taken) between the declaration and the
    /// position. Reading one is undefined, so no suggestion does.
    pub unset: Vec<String>,
}

/// Cost of a variable node: near and frequent names are cheap (the paper's "favoring the
/// values that appear closest to the point in the program").
fn var_cost(kind: VarKind, lines_away: usize, uses: u32) -> u32 {
    let base = match kind {
        VarKind::Local | VarKind::StaticLocal => 6 + (lines_away / 2).min(6) as u32,
        VarKind::Param => 7 + (lines_away / 4).min(4) as u32,
        VarKind::Global => 12,
    };
    let freq = (32 - uses.max(1).leading_zeros()).saturating_sub(1).min(3);
    base.saturating_sub(freq).max(2)
}

impl<'p> Env<'p> {
    pub fn new(program: &'p Program, text: &str, pos: usize) -> Env<'p> {
        let mut types = Types::new(program);
        let headers = stdlib::included_headers(text);
        let (freq, last_use) = identifier_counts(text, pos);
        let func = program
            .funcs
            .iter()
            .position(|f| f.body.is_some() && f.span.start as usize <= pos && pos <= f.span.end as usize)
            .map(|i| FuncId(i as u32));
        let mut vars = Vec::new();
        let mut unset = Vec::new();
        let mut by_name = HashMap::new();
        let lines_between = |a: usize, b: usize| {
            let (lo, hi) = (a.min(b).min(text.len()), a.max(b).min(text.len()));
            text.as_bytes()[lo..hi].iter().filter(|c| **c == b'\n').count()
        };
        let mut add = |types: &mut Types, id: VarId, vars: &mut Vec<VarInfo>| {
            let v = program.var(id);
            let Some(ty) = types.from_ir(&v.ty) else { return };
            // Proximity: of the declaration, or of the latest use when that is nearer.
            let near = last_use.get(&v.name).copied().unwrap_or(0).max(v.span.start as usize);
            let cost = var_cost(v.kind, lines_between(near, pos), freq.get(&v.name).copied().unwrap_or(0));
            by_name.insert(v.name.clone(), vars.len());
            vars.push(VarInfo { name: v.name.clone(), ty, cost, decl: v.span.start });
        };
        for (id, _) in &program.globals {
            if (program.var(*id).span.start as usize) < pos {
                add(&mut types, *id, &mut vars);
            }
        }
        if let Some(f) = func {
            let function = program.func(f);
            for p in &function.params {
                add(&mut types, *p, &mut vars);
            }
            let mut visible = Vec::new();
            if let Some(body) = &function.body {
                visible_locals(body, pos, &mut visible);
                visible.retain(|v| !program.var(*v).hidden());
            }
            let mut uninitialised = Vec::new();
            if let Some(body) = &function.body {
                declared_without_value(program, body, &mut uninitialised);
            }
            for v in visible {
                let var = program.var(v);
                if uninitialised.contains(&v) && !written_between(text, &var.name, var.span.end as usize, pos) {
                    unset.push(var.name.clone());
                }
                add(&mut types, v, &mut vars);
            }
        }
        let mut user_fns = HashMap::new();
        for f in &program.funcs {
            if user_fns.contains_key(&f.name) {
                continue;
            }
            let Some(ret) = types.from_ir(&f.ret) else { continue };
            let params: Option<Vec<Ty>> =
                f.params.iter().map(|p| types.from_ir(&program.var(*p).ty).map(|t| types.value(t))).collect();
            let Some(params) = params else { continue };
            user_fns.insert(f.name.clone(), Sig { ret, params, variadic: false, header: None });
        }
        let mut macros = Vec::new();
        for (name, body, _) in &program.macros {
            let b = body.trim();
            let ty = if b.starts_with('"') {
                Types::CHAR_PTR
            } else if b.starts_with('\'') || b.parse::<i64>().is_ok() {
                Types::INT
            } else if b.parse::<f64>().is_ok() {
                Types::DOUBLE
            } else {
                continue;
            };
            macros.push((name.clone(), ty));
        }
        let mut ir_types = HashMap::new();
        if let Some(f) = func
            && let Some(body) = &program.func(f).body
        {
            collect_stmt_types(body, &mut types, &mut ir_types);
        }
        let literals =
            func.map(|f| program.func(f).span).and_then(|sp| text.get(sp.range())).map(literals).unwrap_or_default();
        Env { program, types, vars, by_name, func, headers, freq, ir_types, user_fns, macros, literals, unset }
    }

    pub fn var(&self, name: &str) -> Option<&VarInfo> {
        self.by_name.get(name).map(|i| &self.vars[*i])
    }

    /// The signature of a callable name: the file's function, else the library's.
    pub fn sig(&mut self, name: &str) -> Option<Sig> {
        if let Some(s) = self.user_fns.get(name) {
            return Some(s.clone());
        }
        let entry = stdlib::lookup(name)?;
        let EntryKind::Fn { ret, params, variadic } = &entry.kind else { return None };
        let ret = self.types.from_spelling(ret);
        let params = params.iter().map(|p| self.types.from_spelling(p)).collect();
        Some(Sig { ret, params, variadic: *variadic, header: Some(entry.header) })
    }

    pub fn user_fn_names(&self) -> impl Iterator<Item = (&String, &Sig)> {
        self.user_fns.iter()
    }

    /// The enclosing function's return type.
    pub fn return_type(&mut self) -> Option<Ty> {
        let f = self.func?;
        let ret = self.program.func(f).ret.clone();
        self.types.from_ir(&ret)
    }
}

/// Locals declared without an initialiser, not arrays (an array is an object whose address is
/// its value) and not `static` (zero-initialised).
fn declared_without_value(program: &Program, s: &Stmt, out: &mut Vec<VarId>) {
    let mut visit = |s: &Stmt| {
        if let StmtKind::Decl { var, init: None } = &s.kind {
            let v = program.var(*var);
            if v.kind == VarKind::Local && !matches!(v.ty, crate::ir::Type::Array(..)) {
                out.push(*var);
            }
        }
    };
    crate::ir::walk::for_each_stmt(s, &mut visit);
}

/// Whether `name` is written in `text[from..to]`: `name =` (not `==`), `name op=`, `++`/`--`
/// beside it, `&name`, or a field or element of it assigned (`name.f =`, `name[i] =`).
fn written_between(text: &str, name: &str, from: usize, to: usize) -> bool {
    let Some(region) = text.get(from.min(to)..to.min(text.len())) else { return false };
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = region.as_bytes();
    region.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        if (at > 0 && word(bytes[at - 1])) || bytes.get(end).is_some_and(|c| word(*c)) {
            return false;
        }
        let before = region[..at].trim_end();
        if before.ends_with('&') && !before.ends_with("&&") || before.ends_with("++") || before.ends_with("--") {
            return true;
        }
        let mut after = region[end..].trim_start();
        // A field or an element of it: what follows the access decides.
        while let Some(rest) = after.strip_prefix('.').or_else(|| after.strip_prefix("->")) {
            let rest = rest.trim_start();
            let len = rest.bytes().take_while(|c| word(*c)).count();
            after = rest[len..].trim_start();
        }
        if after.starts_with('[') {
            let mut depth = 0;
            let close = after.char_indices().find(|(_, c)| {
                depth += match c {
                    '[' => 1,
                    ']' => -1,
                    _ => 0,
                };
                depth == 0
            });
            after = close.map_or("", |(i, _)| after[i + 1..].trim_start());
        }
        let assigned = after.starts_with('=') && !after.starts_with("==");
        let compound = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"]
            .iter()
            .any(|op| after.starts_with(op));
        assigned || compound
    })
}

/// Locals declared before `pos` in blocks that contain `pos` (C's block scope).
fn visible_locals(s: &Stmt, pos: usize, out: &mut Vec<VarId>) {
    let inside = |st: &Stmt| st.span.start as usize <= pos && pos <= st.span.end as usize;
    match &s.kind {
        StmtKind::Block(items) => {
            for st in items {
                if st.span.start as usize >= pos {
                    break;
                }
                match &st.kind {
                    // Not in its own initialiser: it has no value there yet.
                    StmtKind::Decl { var, .. } | StmtKind::VlaDecl { var, .. } if pos >= st.span.end as usize => {
                        out.push(*var)
                    }
                    StmtKind::Decl { .. } | StmtKind::VlaDecl { .. } => {}
                    _ if inside(st) => visible_locals(st, pos, out),
                    _ => {}
                }
            }
        }
        StmtKind::For { init, body, .. } => {
            for st in init {
                if let StmtKind::Decl { var, .. } = &st.kind
                    && (st.span.start as usize) < pos
                {
                    out.push(*var);
                }
            }
            visible_locals(body, pos, out);
        }
        StmtKind::If { then, els, .. } => {
            if inside(then) {
                visible_locals(then, pos, out);
            }
            if let Some(e) = els
                && inside(e)
            {
                visible_locals(e, pos, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => visible_locals(body, pos, out),
        StmtKind::Switch { arms, .. } => {
            for arm in arms {
                for st in &arm.body {
                    if (st.span.start as usize) < pos {
                        match &st.kind {
                            StmtKind::Decl { var, .. } => out.push(*var),
                            _ if inside(st) => visible_locals(st, pos, out),
                            _ => {}
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Identifier occurrences in the file, and the start of each name's last occurrence before
/// `pos`.
fn identifier_counts(text: &str, pos: usize) -> (HashMap<String, u32>, HashMap<String, usize>) {
    let mut out: HashMap<String, u32> = HashMap::new();
    let mut last: HashMap<String, usize> = HashMap::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            *out.entry(text[s..i].to_string()).or_default() += 1;
            if i <= pos {
                last.insert(text[s..i].to_string(), s);
            }
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    (out, last)
}

/// Number and character literals written in `text` (a function body), most used first.
fn literals(text: &str) -> Vec<(String, Ty)> {
    let mut counts: HashMap<&str, u32> = HashMap::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            *counts.entry(&text[s..i]).or_default() += 1;
        } else if c == b'\'' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != b'\'' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                *counts.entry(&text[s..i]).or_default() += 1;
            }
        } else if c == b'"' {
            // Skip strings: their digits are not literals.
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    let mut list: Vec<(&str, u32)> = counts.into_iter().filter(|(t, _)| *t != "0" && *t != "1").collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    list.into_iter()
        .take(MAX_LITERALS)
        .filter_map(|(t, _)| {
            let ty = if t.starts_with('\'') {
                Types::INT
            } else if t.contains('.') || (t.contains(['e', 'E']) && !t.starts_with("0x")) {
                Types::DOUBLE
            } else if t.chars().all(|c| c.is_ascii_digit()) {
                Types::INT
            } else {
                return None;
            };
            Some((t.to_string(), ty))
        })
        .collect()
}

/// Literals of the function taken into the graph (the most used ones).
const MAX_LITERALS: usize = 12;

fn collect_stmt_types(s: &Stmt, types: &mut Types, out: &mut HashMap<(u32, u32), Ty>) {
    match &s.kind {
        StmtKind::Expr(x) => collect_expr_types(x, types, out),
        StmtKind::VlaDecl { len, row, .. } => {
            collect_expr_types(len, types, out);
            if let Some((_, per)) = row {
                collect_expr_types(per, types, out);
            }
        }
        StmtKind::Decl { init: Some(Init::Expr(x)), .. } => collect_expr_types(x, types, out),
        StmtKind::Return(Some(x)) => collect_expr_types(x, types, out),
        StmtKind::If { cond, then, els } => {
            collect_expr_types(cond, types, out);
            collect_stmt_types(then, types, out);
            if let Some(x) = els {
                collect_stmt_types(x, types, out);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            collect_expr_types(cond, types, out);
            collect_stmt_types(body, types, out);
        }
        StmtKind::For { init, cond, step, body } => {
            for st in init {
                collect_stmt_types(st, types, out);
            }
            if let Some(c) = cond {
                collect_expr_types(c, types, out);
            }
            if let Some(c) = step {
                collect_expr_types(c, types, out);
            }
            collect_stmt_types(body, types, out);
        }
        StmtKind::Switch { cond, arms } => {
            collect_expr_types(cond, types, out);
            for arm in arms {
                for st in &arm.body {
                    collect_stmt_types(st, types, out);
                }
            }
        }
        StmtKind::Block(items) => {
            for st in items {
                collect_stmt_types(st, types, out);
            }
        }
        _ => {}
    }
}

fn collect_expr_types(e: &Expr, types: &mut Types, out: &mut HashMap<(u32, u32), Ty>) {
    let e = e.strip_implicit();
    if let Some(t) = types.from_ir(&e.ty) {
        out.entry((e.span.start, e.span.end)).or_insert(t);
    }
    let mut sub = |x: &Expr| collect_expr_types(x, types, out);
    match &e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::IncDec(_, a)
        | ExprKind::Cast { expr: a, .. }
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Decay(a)
        | ExprKind::Member { base: a, .. } => sub(a),
        ExprKind::Binary(_, a, b)
        | ExprKind::Logical(_, a, b)
        | ExprKind::Assign(a, b)
        | ExprKind::CompoundAssign { lhs: a, rhs: b, .. }
        | ExprKind::Index(a, b)
        | ExprKind::Comma(a, b) => {
            sub(a);
            sub(b);
        }
        ExprKind::Cond(a, b, c) => {
            sub(a);
            sub(b);
            sub(c);
        }
        ExprKind::Call(_, args) => args.iter().for_each(sub),
        _ => {}
    }
}
