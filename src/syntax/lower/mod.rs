//! Lowering of the tree-sitter CST into the typed IR, with type checking.
//!
//! One pass resolves names, computes types, inserts implicit conversions and reports what a C
//! compiler would reject (errors) or warn about (warnings). Constructs outside the supported
//! subset are recorded on their function (`Function::unsupported`) with one informational
//! diagnostic each, so engines can skip that function while the rest is still analysed.

mod builtins;
mod expr;
mod headers;

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::ir::*;

pub use builtins::{Params as BuiltinParams, Signature as BuiltinSignature, lookup as builtin_signature};
pub use expr::{decode_escapes, edit_distance};

/// Expressions and statements nested deeper than this are not lowered (the function is marked
/// unsupported): it keeps every recursive pass over the IR far from the thread's stack limit.
pub const MAX_NESTING: usize = 200;

/// The code of the error on code at file level that is neither a declaration nor a function.
pub const OUTSIDE_FUNCTION: &str = "outside-function";
/// The code of "`strlen` is declared in `<string.h>`, which this file does not include".
pub const MISSING_INCLUDE: &str = "missing-include";
/// The code of "`%d` expects an `int`, but this is `long`", whose fix `(int)(…)` keeps behaviour.
pub const FORMAT_WIDTH: &str = "format-width";

pub struct Lowered {
    pub program: Program,
    /// Type errors, warnings and informational "unsupported construct" diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Fixes the front end is sure of (a missing or misspelt `#include`), one per diagnostic.
    pub repairs: Vec<crate::ir::Repair>,
}

impl Lowered {
    /// Whether the front end found an error: no analysis runs on such a program, and a
    /// candidate repair whose text has one is dropped.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error)
    }
}

/// The program of `src` when it parses and lowers without an error (a candidate repair's
/// text). The lowering recovers from a syntax error as the parser does (`if x == 0 …` still
/// lowers), so the tree is checked too: a candidate whose text does not parse is no repair.
pub fn lower_without_errors(src: &str) -> Option<Program> {
    let tree = parse_c(src);
    if tree.root_node().has_error() {
        return None;
    }
    let lowered = lower(&tree, src);
    (!lowered.has_errors()).then_some(lowered.program)
}

/// Lowers an already parsed file.
pub fn lower(tree: &Tree, src: &str) -> Lowered {
    let root = tree.root_node();
    // Object-like macros, parsed once as expressions of their own small source.
    let mut macro_sources = Vec::new();
    collect_macros(root, src, &mut macro_sources);
    let macro_trees: Vec<MacroDef> = macro_sources
        .into_iter()
        .map(|(name, body, span)| {
            let wrapper = format!("int __mend_macro = ({body});");
            let tree = parse_c(&wrapper);
            MacroDef { name, body, span, wrapper, tree }
        })
        .collect();
    let mut l = Lowerer::new(src, &macro_trees);
    l.headers = headers::Headers::read(root, src);
    l.program.macros = macro_trees.iter().map(|m| (m.name.clone(), m.body.clone(), m.span)).collect();
    l.lower_translation_unit(root);
    l.finish()
}

/// Parses and lowers `src` (tests, the CLI, references).
pub fn lower_source(src: &str) -> Lowered {
    lower(&parse_c(src), src)
}

fn parse_c(src: &str) -> Tree {
    super::parse(src, None)
}

struct MacroDef {
    name: String,
    body: String,
    span: Span,
    wrapper: String,
    tree: Tree,
}

/// Every `#define` of the file, in order: at the top level, inside `#if` blocks, and inside
/// function bodies (`#define SIM 1` in `main` defines `SIM` from there on). Iterative: a
/// deeply nested file must not overflow the stack here.
fn collect_macros(node: Node, src: &str, out: &mut Vec<(String, String, Span)>) {
    let mut cursor = node.walk();
    let mut descending = cursor.goto_first_child();
    while descending || cursor.goto_parent() {
        if descending {
            let child = cursor.node();
            if child.kind() == "preproc_def" {
                if let Some(name) = child.child_by_field_name("name") {
                    let body = child
                        .child_by_field_name("value")
                        .map(|v| src[v.byte_range()].trim().trim_end_matches(';').trim().to_string())
                        .unwrap_or_default();
                    out.push((
                        src[name.byte_range()].to_string(),
                        body,
                        Span::new(child.start_byte(), child.end_byte()),
                    ));
                }
            } else if cursor.goto_first_child() {
                continue;
            }
        }
        descending = cursor.goto_next_sibling();
    }
}

#[derive(Clone, Debug)]
enum Symbol {
    Var(VarId),
    Func(FuncId),
    Typedef(Type),
    EnumConst(i64),
    /// A name declared with what mend does not model (a function pointer): its uses are
    /// covered by that declaration's "not supported" note, never "not declared".
    Unmodelled,
}

#[derive(Clone, Debug)]
struct FuncSig {
    ret: Type,
    params: Vec<Type>,
    /// `int f()`: parameters unspecified (C89), or `...`.
    unchecked_params: bool,
}

struct Lowerer<'a> {
    src: &'a str,
    /// The file's `#include`s, for names used without their header.
    headers: headers::Headers,
    macros: &'a [MacroDef],
    program: Program,
    diags: Vec<Diagnostic>,
    scopes: Vec<HashMap<String, Symbol>>,
    structs_by_name: HashMap<String, StructId>,
    /// Struct and enum specifiers already lowered, by start byte: a file-level type is seen
    /// by both passes, and a signature's types may be lowered twice.
    types_by_node: HashMap<usize, Type>,
    sigs: Vec<FuncSig>,
    cur_func: Option<FuncId>,
    loop_depth: u32,
    switch_depth: u32,
    depth: usize,
    /// The length expression of a variable-length array met by the last `apply_declarator`.
    pending_vla: Option<Expr>,
    /// A row length only known at run time met by the last `apply_declarator`
    /// (`m` in `int a[n][m]` or in a parameter `int a[][m]`).
    pending_row: Option<Expr>,
    /// The hidden local holding the row length of each array or parameter with runtime rows.
    row_lengths: HashMap<VarId, VarId>,
    /// A parameter's declarator is being applied: its own length (`int a[n]`) is not part of
    /// its type, and a later one may name an earlier parameter (`int a[n][m]`).
    in_params: bool,
    /// Macro names being expanded (guards against self-reference).
    expanding: Vec<String>,
    /// When expanding a macro, every node gets the use site's span.
    span_override: Option<Span>,
    /// Fixes the type checker is sure of (`'/n'` → `'\n'`), one per diagnostic.
    fixes: Vec<Repair>,
}

impl<'a> Lowerer<'a> {
    fn new(src: &'a str, macros: &'a [MacroDef]) -> Self {
        Lowerer {
            src,
            headers: headers::Headers::empty(),
            macros,
            program: Program::default(),
            diags: Vec::new(),
            scopes: vec![HashMap::new()],
            structs_by_name: HashMap::new(),
            types_by_node: HashMap::new(),
            sigs: Vec::new(),
            cur_func: None,
            loop_depth: 0,
            switch_depth: 0,
            depth: 0,
            pending_vla: None,
            pending_row: None,
            row_lengths: HashMap::new(),
            in_params: false,
            expanding: Vec::new(),
            span_override: None,
            fixes: Vec::new(),
        }
    }

    fn finish(mut self) -> Lowered {
        self.diags.append(&mut self.headers.diags);
        self.diags.sort_by_key(|d| (d.span.start, d.span.end));
        self.diags.dedup();
        let mut repairs = self.headers.repairs;
        repairs.append(&mut self.fixes);
        Lowered { program: self.program, diagnostics: self.diags, repairs }
    }

    // ----- small helpers -------------------------------------------------------------------

    fn text(&self, node: Node) -> &'a str {
        &self.src[node.byte_range()]
    }

    fn span(&self, node: Node) -> Span {
        self.span_override.unwrap_or_else(|| Span::new(node.start_byte(), node.end_byte()))
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error("type", span, message));
    }

    fn error_code(&mut self, code: &'static str, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, span, message));
    }

    /// A front-end fix of the error at `fixes`: one edit, checked to type-check.
    fn fix(&mut self, fixes: Span, title: String, edit: TextEdit, explanation: impl Into<String>) {
        self.fixes.push(Repair {
            reached: Vec::new(),
            title,
            engine: "frontend",
            guarantee: Guarantee::WellTyped,
            edits: vec![edit],
            places: Vec::new(),
            explanation: explanation.into(),
            details: String::new(),
            fixes: vec![fixes],
        });
    }

    fn warning(&mut self, code: &'static str, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, span, message));
    }

    /// Notes `what` as beyond mend's model: a function that uses it is not analysed (its
    /// syntax and types still are). One note per function, the first construct: the student
    /// reads one reason, not one per line.
    fn unsupported(&mut self, what: &str, span: Span) {
        let message = match self.cur_func {
            Some(f) => {
                let func = &mut self.program.funcs[f.0 as usize];
                let first = func.unsupported.is_empty();
                func.unsupported.push((what.to_string(), span));
                if !first {
                    return;
                }
                format!(
                    "mend cannot analyse `{}` yet: it uses {what}, which mend does not support (a limit of mend, not a mistake in your code); its syntax and types are still checked",
                    func.name
                )
            }
            None => format!(
                "mend does not support {what} yet: a function that uses it is not analysed (a limit of mend, not a mistake in your code)"
            ),
        };
        self.diags.push(Diagnostic::info("unsupported", span, message));
    }

    fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn declare(&mut self, name: &str, symbol: Symbol, span: Span) {
        let scope = self.scopes.last_mut().expect("global scope");
        if let Some(previous) = scope.get(name) {
            let redeclared = match (previous, &symbol) {
                (Symbol::Func(_), Symbol::Func(_)) => false,
                (Symbol::Var(a), Symbol::Var(_)) => {
                    // A repeated global declaration (`int x; int x = 1;`) is allowed in C.
                    self.program.var(*a).kind != VarKind::Global
                }
                _ => true,
            };
            if redeclared {
                let at = match previous {
                    Symbol::Var(v) => Some(self.program.var(*v).span),
                    Symbol::Func(f) => Some(self.program.func(*f).name_span),
                    _ => None,
                };
                let mut d =
                    Diagnostic::error("redeclared", span, format!("`{name}` is already declared in this scope"));
                if let Some(at) = at {
                    d = d.with_related(at, format!("`{name}` was declared here"));
                }
                self.diags.push(d);
            }
        }
        self.scopes.last_mut().expect("global scope").insert(name.to_string(), symbol);
    }

    fn new_var(&mut self, name: &str, ty: Type, span: Span, kind: VarKind) -> VarId {
        let id = VarId(self.program.vars.len() as u32);
        let addressable = matches!(ty, Type::Array(..) | Type::Struct(_)) || kind == VarKind::Global;
        self.program.vars.push(Var { name: name.to_string(), ty, span, kind, func: self.cur_func, addressable });
        if let Some(f) = self.cur_func
            && kind != VarKind::Param
        {
            self.program.funcs[f.0 as usize].locals.push(id);
        }
        id
    }

    fn children(node: Node<'a>) -> Vec<Node<'a>> {
        let mut cursor = node.walk();
        node.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect()
    }

    // ----- top level -----------------------------------------------------------------------

    fn lower_translation_unit(&mut self, root: Node<'a>) {
        // Functions may be called before their definition (C89 style), so register all
        // function signatures first; globals and bodies are then lowered in order.
        self.register_functions(root);
        self.lower_top_level_items(root);
    }

    fn register_functions(&mut self, node: Node<'a>) {
        for child in Self::children(node) {
            match child.kind() {
                "function_definition" => self.register_function(child, true),
                "declaration" => {
                    let has_fn = Self::children(child).iter().any(|d| declarator_is_function(*d));
                    if has_fn {
                        self.register_function(child, false);
                    }
                }
                // Types first, so signatures can name types declared before them.
                "type_definition" => self.lower_typedef(child),
                "struct_specifier" | "union_specifier" | "enum_specifier" => {
                    self.lower_type_specifier(child);
                }
                "preproc_ifdef" | "preproc_if" | "preproc_else" => self.register_functions(child),
                _ => {}
            }
        }
    }

    fn lower_top_level_items(&mut self, node: Node<'a>) {
        for child in Self::children(node) {
            match child.kind() {
                "function_definition" => self.lower_function(child),
                "declaration" => self.lower_declaration(child, true, &mut Vec::new()),
                // Lowered with the function signatures.
                "type_definition" | "struct_specifier" | "union_specifier" | "enum_specifier" => {}
                "preproc_include" | "preproc_def" | "preproc_call" | "ERROR" | ";" => {}
                "preproc_ifdef" | "preproc_if" | "preproc_else" => self.lower_top_level_items(child),
                "preproc_function_def" => {
                    self.unsupported("function-like macros (`#define F(x) ...`)", self.span(child))
                }
                // A statement at file level (code after a stray `}`, the header of a function
                // tree-sitter could not read): usually the syntax layer explains it, and the
                // check layer then drops this error; it is never skipped in silence.
                "expression_statement" | "compound_statement" => self.diags.push(Diagnostic::error(
                    OUTSIDE_FUNCTION,
                    self.span(child),
                    "this code is outside any function, so mend cannot analyse it: at file level C allows only declarations and function definitions",
                )),
                other => {
                    let what = format!("`{}` at file level", other.replace('_', " "));
                    self.unsupported(&what, self.span(child));
                }
            }
        }
    }

    /// The type specifier of a declaration-like node (`type` field plus qualifiers).
    fn base_type(&mut self, node: Node<'a>) -> Type {
        match node.child_by_field_name("type") {
            Some(t) => self.lower_type_specifier(t),
            // C89 implicit `int` (`main() {...}`, `static x;`).
            None => Type::INT,
        }
    }

    fn register_function(&mut self, node: Node<'a>, is_definition: bool) {
        let base = self.base_type(node);
        let declarators: Vec<Node> = if is_definition {
            node.child_by_field_name("declarator").into_iter().collect()
        } else {
            let mut cursor = node.walk();
            node.children_by_field_name("declarator", &mut cursor).collect()
        };
        for decl in declarators {
            if !declarator_is_function(decl) {
                continue;
            }
            let Some((name, name_span, ret, fdecl)) = self.function_declarator_parts(decl, base.clone()) else {
                continue;
            };
            // A prototype of a library or verifier function (`extern int __VERIFIER_nondet_int(void);`)
            // keeps the call a builtin.
            if !is_definition && builtins::lookup(name).is_some() {
                continue;
            }
            let params_node = fdecl.child_by_field_name("parameters");
            let (param_types, unchecked) = match params_node {
                Some(p) => self.parameter_types(p, node),
                None => (Vec::new(), true),
            };
            let sig = FuncSig { ret: ret.clone(), params: param_types, unchecked_params: unchecked };
            match self.scopes[0].get(name) {
                Some(Symbol::Func(id)) => {
                    let id = *id;
                    if is_definition {
                        let span = self.span(node);
                        let f = &mut self.program.funcs[id.0 as usize];
                        f.span = span;
                        f.name_span = name_span;
                        self.sigs[id.0 as usize] = sig;
                    } else if !sig.unchecked_params && self.sigs[id.0 as usize].unchecked_params {
                        self.sigs[id.0 as usize] = sig;
                    }
                }
                _ => {
                    let id = FuncId(self.program.funcs.len() as u32);
                    self.program.funcs.push(Function {
                        name: name.to_string(),
                        ret,
                        params: Vec::new(),
                        body: None,
                        span: self.span(node),
                        name_span,
                        locals: Vec::new(),
                        unsupported: Vec::new(),
                    });
                    self.sigs.push(sig);
                    self.scopes[0].insert(name.to_string(), Symbol::Func(id));
                }
            }
        }
    }

    /// Splits `int *f(int a)` into the name, its span, the return type and the function
    /// declarator node.
    fn function_declarator_parts(&mut self, decl: Node<'a>, base: Type) -> Option<(&'a str, Span, Type, Node<'a>)> {
        let mut ty = base;
        let mut node = decl;
        loop {
            match node.kind() {
                "pointer_declarator" => {
                    ty = Type::ptr(ty);
                    node = node.child_by_field_name("declarator")?;
                }
                "init_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                    node = node.child_by_field_name("declarator").or_else(|| node.named_child(0))?;
                }
                "function_declarator" => {
                    let inner = node.child_by_field_name("declarator")?;
                    if inner.kind() != "identifier" {
                        self.unsupported("function pointers", self.span(node));
                        return None;
                    }
                    return Some((self.text(inner), self.span(inner), ty, node));
                }
                _ => return None,
            }
        }
    }

    /// Parameter types of a `parameter_list`; K&R definitions take the types from the
    /// declarations between the declarator and the body of `definition`.
    fn parameter_types(&mut self, params: Node<'a>, definition: Node<'a>) -> (Vec<Type>, bool) {
        let mut types = Vec::new();
        let mut unchecked = true;
        let knr = self.knr_declarations(definition);
        for p in Self::children(params) {
            match p.kind() {
                "parameter_declaration" => {
                    unchecked = false;
                    let base = self.base_type(p);
                    let (name, ty) = match p.child_by_field_name("declarator") {
                        Some(d) => self.parameter_declarator(d, base),
                        None => (None, base),
                    };
                    if ty == Type::Void && name.is_none() {
                        continue; // `f(void)`
                    }
                    types.push(adjust_param_type(ty));
                }
                "identifier" => {
                    // K&R: `f(a, b) int a; int b; {...}`
                    let name = self.text(p);
                    let ty = knr.get(name).cloned().unwrap_or(Type::INT);
                    unchecked = false;
                    types.push(adjust_param_type(ty));
                }
                "variadic_parameter" => unchecked = true,
                _ => {}
            }
        }
        (types, unchecked)
    }

    fn parameter_declarator(&mut self, d: Node<'a>, base: Type) -> (Option<(&'a str, Span)>, Type) {
        self.in_params = true;
        let out = self.apply_declarator(d, base);
        self.in_params = false;
        out
    }

    fn knr_declarations(&mut self, definition: Node<'a>) -> HashMap<&'a str, Type> {
        let mut map = HashMap::new();
        if definition.kind() != "function_definition" {
            return map;
        }
        for child in Self::children(definition) {
            if child.kind() != "declaration" {
                continue;
            }
            let base = self.base_type(child);
            let mut cursor = child.walk();
            let declarators: Vec<Node> = child.children_by_field_name("declarator", &mut cursor).collect();
            for d in declarators {
                let (name, ty) = self.apply_declarator(d, base.clone());
                if let Some((name, _)) = name {
                    map.insert(name, ty);
                }
            }
        }
        map
    }

    fn lower_function(&mut self, node: Node<'a>) {
        let Some(decl) = node.child_by_field_name("declarator") else { return };
        let base = self.base_type(node);
        let Some((name, _, _, fdecl)) = self.function_declarator_parts(decl, base) else { return };
        let Some(Symbol::Func(id)) = self.scopes[0].get(name).cloned() else { return };
        if self.program.func(id).body.is_some() {
            let span = self.span(decl);
            let first = self.program.func(id).name_span;
            self.diags.push(
                Diagnostic::error("redeclared", span, format!("`{name}` is defined twice"))
                    .with_related(first, "first definition"),
            );
            return;
        }
        self.cur_func = Some(id);
        self.scopes.push(HashMap::new());
        let knr = self.knr_declarations(node);
        let mut params = Vec::new();
        // The hidden locals of parameters with runtime rows (`int a[][m]`), set on entry.
        let mut row_decls = Vec::new();
        if let Some(plist) = fdecl.child_by_field_name("parameters") {
            for p in Self::children(plist) {
                self.pending_row = None;
                let (pname, ty) = match p.kind() {
                    "parameter_declaration" => {
                        let base = self.base_type(p);
                        match p.child_by_field_name("declarator") {
                            Some(d) => self.parameter_declarator(d, base),
                            None => (None, base),
                        }
                    }
                    "identifier" => {
                        let n = self.text(p);
                        (Some((n, self.span(p))), knr.get(n).cloned().unwrap_or(Type::INT))
                    }
                    _ => continue,
                };
                if ty == Type::Void && pname.is_none() {
                    continue;
                }
                let ty = adjust_param_type(ty);
                let Some((pname, pspan)) = pname else {
                    self.error(self.span(p), "a parameter of a function definition needs a name");
                    continue;
                };
                let v = self.new_var(pname, ty, pspan, VarKind::Param);
                self.declare(pname, Symbol::Var(v), pspan);
                params.push(v);
                if let Some(len) = self.pending_row.take() {
                    let stride = self.row_length_var(v);
                    let span = len.span;
                    let kind = StmtKind::Decl { var: stride, init: Some(Init::Expr(len)) };
                    row_decls.push(Stmt { kind, span });
                }
            }
        }
        self.program.funcs[id.0 as usize].params = params;
        self.pending_vla = None;
        let body = node.child_by_field_name("body");
        let mut body = match body {
            Some(b) => self.lower_compound(b, false),
            None => Stmt { kind: StmtKind::Block(Vec::new()), span: self.span(node) },
        };
        if let StmtKind::Block(stmts) = &mut body.kind {
            stmts.splice(0..0, row_decls);
        }
        if node.has_error() {
            // The syntax layer reports the error itself; the engines must not trust this body.
            let f = &mut self.program.funcs[id.0 as usize];
            f.unsupported.push(("a syntax error".into(), Span::new(node.start_byte(), node.end_byte())));
        }
        self.program.funcs[id.0 as usize].body = Some(body);
        self.scopes.pop();
        self.cur_func = None;
    }

    // ----- types ---------------------------------------------------------------------------

    fn lower_type_specifier(&mut self, node: Node<'a>) -> Type {
        match node.kind() {
            "primitive_type" => match self.text(node) {
                "int" => Type::INT,
                "char" => Type::CHAR,
                "short" => Type::Int(IntType::SHORT),
                "long" => Type::Int(IntType::LONG),
                "float" => Type::Float(FloatKind::Float),
                "double" => Type::DOUBLE,
                "void" => Type::Void,
                "_Bool" | "bool" => Type::Int(IntType::BOOL),
                "size_t" => Type::Int(IntType::ULONG),
                "ssize_t" | "ptrdiff_t" | "intptr_t" | "int64_t" => Type::Int(IntType::LONG),
                "uint64_t" | "uintptr_t" => Type::Int(IntType::ULONG),
                "int32_t" => Type::INT,
                "uint32_t" => Type::Int(IntType::UINT),
                "int16_t" => Type::Int(IntType::SHORT),
                "uint16_t" => Type::Int(IntType { kind: IntKind::Short, signed: false }),
                "int8_t" => Type::CHAR,
                "uint8_t" => Type::Int(IntType::UCHAR),
                other => {
                    self.unsupported(&format!("the type `{other}`"), self.span(node));
                    Type::Error
                }
            },
            "sized_type_specifier" => self.sized_type(node),
            "type_identifier" => {
                let name = self.text(node);
                match self.lookup(name) {
                    Some(Symbol::Typedef(t)) => t.clone(),
                    _ => match name {
                        "FILE" => Type::Void,
                        "bool" | "_Bool" => Type::Int(IntType::BOOL),
                        "size_t" => Type::Int(IntType::ULONG),
                        _ => {
                            self.error_code("undeclared", self.span(node), format!("unknown type name `{name}`"));
                            Type::Error
                        }
                    },
                }
            }
            "struct_specifier" | "enum_specifier" if self.span_override.is_none() => {
                if let Some(t) = self.types_by_node.get(&node.start_byte()) {
                    return t.clone();
                }
                let t = if node.kind() == "enum_specifier" { self.lower_enum(node) } else { self.lower_struct(node) };
                self.types_by_node.insert(node.start_byte(), t.clone());
                t
            }
            "struct_specifier" => self.lower_struct(node),
            "enum_specifier" => self.lower_enum(node),
            "union_specifier" => {
                self.unsupported("unions", self.span(node));
                Type::Error
            }
            "macro_type_specifier" => {
                self.unsupported("macro types", self.span(node));
                Type::Error
            }
            _ => {
                self.unsupported(&format!("the type `{}`", self.text(node)), self.span(node));
                Type::Error
            }
        }
    }

    fn sized_type(&mut self, node: Node<'a>) -> Type {
        let text = self.text(node);
        let words: Vec<&str> = text.split_whitespace().collect();
        let signed = !words.contains(&"unsigned");
        let longs = words.iter().filter(|w| **w == "long").count();
        let kind = if words.contains(&"char") {
            IntKind::Char
        } else if words.contains(&"short") {
            IntKind::Short
        } else if longs >= 2 {
            IntKind::LongLong
        } else if longs == 1 {
            if words.contains(&"double") {
                return Type::DOUBLE; // long double, approximated as double
            }
            IntKind::Long
        } else {
            IntKind::Int
        };
        Type::Int(IntType { kind, signed })
    }

    fn lower_struct(&mut self, node: Node<'a>) -> Type {
        let name = node.child_by_field_name("name").map(|n| self.text(n).to_string());
        let body = node.child_by_field_name("body");
        let existing = name.as_ref().and_then(|n| self.structs_by_name.get(n).copied());
        let id = match (existing, body) {
            (Some(id), None) => return Type::Struct(id),
            (Some(id), Some(_)) if !self.program.struct_def(id).complete => id,
            _ => {
                let id = StructId(self.program.structs.len() as u32);
                let display = name.clone().unwrap_or_else(|| format!("<anonymous #{}>", id.0));
                self.program.structs.push(StructDef {
                    name: display,
                    fields: Vec::new(),
                    size: 0,
                    align: 1,
                    span: self.span(node),
                    complete: false,
                });
                if let Some(n) = &name {
                    self.structs_by_name.insert(n.clone(), id);
                }
                id
            }
        };
        let Some(body) = body else { return Type::Struct(id) };
        let mut fields: Vec<Field> = Vec::new();
        let mut offset = 0u64;
        let mut align = 1u64;
        for fd in Self::children(body) {
            if fd.kind() != "field_declaration" {
                continue;
            }
            let base = self.base_type(fd);
            let mut cursor = fd.walk();
            let decls: Vec<Node> = fd.children_by_field_name("declarator", &mut cursor).collect();
            for d in decls {
                let (fname, ty) = self.apply_declarator(d, base.clone());
                let Some((fname, fspan)) = fname else { continue };
                if fields.iter().any(|f| f.name == fname) {
                    self.error_code("redeclared", fspan, format!("the struct already has a field `{fname}`"));
                    continue;
                }
                let a = self.program.align_of(&ty).max(1);
                offset = offset.div_ceil(a) * a;
                let size = self.program.size_of(&ty);
                fields.push(Field { name: fname.to_string(), ty, offset, span: fspan });
                offset += size;
                align = align.max(a);
            }
        }
        let size = offset.div_ceil(align) * align;
        let def = &mut self.program.structs[id.0 as usize];
        def.fields = fields;
        def.size = size.max(1);
        def.align = align;
        def.complete = true;
        Type::Struct(id)
    }

    fn lower_enum(&mut self, node: Node<'a>) -> Type {
        let Some(body) = node.child_by_field_name("body") else { return Type::INT };
        let mut next = 0i64;
        for e in Self::children(body) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(name) = e.child_by_field_name("name") else { continue };
            if let Some(v) = e.child_by_field_name("value") {
                let ex = self.lower_expr(v);
                match const_eval(&ex) {
                    Some(c) => next = c,
                    None => self.error(self.span(v), "an enumerator's value must be a constant"),
                }
            }
            let n = self.text(name);
            self.declare(n, Symbol::EnumConst(next), self.span(name));
            next += 1;
        }
        Type::INT
    }

    /// Applies a declarator to a base type: `*p[3]` on `int` gives `p: int *[3]`.
    fn apply_declarator(&mut self, node: Node<'a>, base: Type) -> (Option<(&'a str, Span)>, Type) {
        match node.kind() {
            "identifier" | "field_identifier" | "type_identifier" => (Some((self.text(node), self.span(node))), base),
            "pointer_declarator" | "abstract_pointer_declarator" => {
                let ty = Type::ptr(base);
                match node.child_by_field_name("declarator") {
                    Some(d) => self.apply_declarator(d, ty),
                    None => (None, ty),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                // A parameter declared as an array is a pointer to its element: C evaluates the
                // length it is written with and forgets it (`void f(int n, int a[n])`).
                let decays =
                    self.in_params && node.child_by_field_name("declarator").is_none_or(|d| d.kind() == "identifier");
                let len = match node.child_by_field_name("size") {
                    Some(size) if decays => {
                        if self.cur_func.is_some() {
                            let _ = self.lower_expr(size);
                        }
                        None
                    }
                    Some(size) if self.in_params => {
                        // A row length of a parameter (`int a[][m]`): a constant, or a
                        // variable-length array parameter. In the signature pass the earlier
                        // parameters are not declared yet: the definition pass reports.
                        let (diags, fixes) = (self.diags.len(), self.fixes.len());
                        let e = self.lower_expr(size);
                        match const_eval(&e) {
                            Some(n) if n > 0 => Some(n as u64),
                            _ if self.cur_func.is_none() => {
                                // A runtime row length: the definition pass gives it a
                                // hidden local; `int (*)[]` is compatible with every row.
                                self.diags.truncate(diags);
                                self.fixes.truncate(fixes);
                                return self.apply_declarator_child(node, Type::Array(Box::new(base), None));
                            }
                            Some(_) => {
                                self.error(self.span(size), "an array must have a positive size");
                                Some(1)
                            }
                            None if e.ty.is_error() => Some(1),
                            None => return self.runtime_row(node, base, e),
                        }
                    }
                    Some(size) => {
                        let e = self.lower_expr(size);
                        match const_eval(&e) {
                            Some(n) if n > 0 => Some(n as u64),
                            Some(_) => {
                                self.error(self.span(size), "an array must have a positive size");
                                Some(1)
                            }
                            None if e.ty.is_error() => Some(1),
                            None if e.ty.is_integer()
                                && self.cur_func.is_some()
                                && node
                                    .child_by_field_name("declarator")
                                    .is_some_and(|d| d.kind() == "array_declarator") =>
                            {
                                // `m` in `int a[n][m]`: the length of each row.
                                return self.runtime_row(node, base, e);
                            }
                            None if e.ty.is_integer() && self.cur_func.is_some() && self.pending_vla.is_none() => {
                                let e = self.rvalue(e);
                                let e = self.convert(e, &Type::Int(IntType::LONG));
                                self.pending_vla = Some(e);
                                None
                            }
                            None => {
                                // A second runtime length (`int a[n][m]`): one message, and a
                                // type no check looks into.
                                self.unsupported("a variable-length array of arrays", self.span(size));
                                self.pending_vla = None;
                                return self.apply_declarator_child(node, Type::Error);
                            }
                        }
                    }
                    None => None,
                };
                self.apply_declarator_child(node, Type::Array(Box::new(base), len))
            }
            "parenthesized_declarator" | "abstract_parenthesized_declarator" | "attributed_declarator" => {
                match node.named_child(0) {
                    Some(d) => self.apply_declarator(d, base),
                    None => (None, base),
                }
            }
            "function_declarator" | "abstract_function_declarator" => {
                self.unsupported("function pointers or local function declarations", self.span(node));
                // `int (*op)(int, int)`: `op` is declared, as something mend does not model.
                let mut inner = node.child_by_field_name("declarator");
                if inner.is_some_and(|d| d.kind() == "parenthesized_declarator") {
                    while let Some(d) = inner.filter(|d| d.kind() != "identifier") {
                        inner = d.child_by_field_name("declarator").or_else(|| d.named_child(0));
                    }
                    if let Some(name) = inner {
                        self.declare(self.text(name), Symbol::Unmodelled, self.span(name));
                    }
                }
                (None, Type::Error)
            }
            "init_declarator" => match node.child_by_field_name("declarator") {
                Some(d) => self.apply_declarator(d, base),
                None => (None, base),
            },
            _ => (None, base),
        }
    }

    /// A row of `base` whose length `len` is only known at run time (`[m]` in
    /// `int a[n][m]`): an array of unknown length, the length kept in `pending_row` for the
    /// declaration (or the parameter) to store in a hidden local. Rows of rows, and rows
    /// of anything but numbers and characters, are not supported.
    fn runtime_row(&mut self, node: Node<'a>, base: Type, len: Expr) -> (Option<(&'a str, Span)>, Type) {
        let span = len.span;
        if !base.is_arithmetic() || self.pending_row.is_some() {
            let what = if self.pending_row.is_some() {
                "a variable-length array of more than two dimensions"
            } else {
                "a variable-length array of arrays of this type"
            };
            self.unsupported(what, span);
            self.pending_row = None;
            return self.apply_declarator_child(node, Type::Error);
        }
        let len = self.rvalue(len);
        self.pending_row = Some(self.convert(len, &Type::Int(IntType::LONG)));
        self.apply_declarator_child(node, Type::Array(Box::new(base), None))
    }

    /// The hidden local that holds the runtime row length of `array` (see
    /// [`ExprKind::Row`]).
    fn row_length_var(&mut self, array: VarId) -> VarId {
        let name = crate::ir::row_length_name(&self.program.var(array).name);
        let span = self.program.var(array).span;
        let v = self.new_var(&name, Type::Int(IntType::LONG), span, VarKind::Local);
        self.row_lengths.insert(array, v);
        v
    }

    /// The rest of a declarator, inside `node`, applied to `ty`.
    fn apply_declarator_child(&mut self, node: Node<'a>, ty: Type) -> (Option<(&'a str, Span)>, Type) {
        match node.child_by_field_name("declarator") {
            Some(d) => self.apply_declarator(d, ty),
            None => (None, ty),
        }
    }

    fn type_descriptor(&mut self, node: Node<'a>) -> Type {
        let base = self.base_type(node);
        match node.child_by_field_name("declarator") {
            Some(d) => self.apply_declarator(d, base).1,
            None => base,
        }
    }

    fn lower_typedef(&mut self, node: Node<'a>) {
        let base = self.base_type(node);
        let mut cursor = node.walk();
        let decls: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in decls {
            let (name, ty) = self.apply_declarator(d, base.clone());
            if let Some((name, span)) = name {
                if let Type::Struct(id) = &ty {
                    let def = &mut self.program.structs[id.0 as usize];
                    if def.name.starts_with("<anonymous") {
                        def.name = name.to_string();
                    }
                }
                self.declare(name, Symbol::Typedef(ty), span);
            }
        }
    }

    // ----- declarations --------------------------------------------------------------------

    /// Lowers a declaration; locals become `Decl` statements pushed onto `out`, globals are
    /// recorded on the program.
    fn lower_declaration(&mut self, node: Node<'a>, global: bool, out: &mut Vec<Stmt>) {
        let base = self.base_type(node);
        let storage: Vec<&str> = Self::children(node)
            .into_iter()
            .filter(|c| c.kind() == "storage_class_specifier")
            .map(|c| self.text(c))
            .collect();
        let is_static = storage.contains(&"static");
        let is_extern = storage.contains(&"extern");
        let mut cursor = node.walk();
        let decls: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
        for d in decls {
            if declarator_is_function(d) {
                if !global {
                    // A local prototype: register it like a global one.
                    self.register_function(node, false);
                }
                continue;
            }
            self.pending_vla = None;
            self.pending_row = None;
            let (name, mut ty) = self.apply_declarator(d, base.clone());
            let vla_len = self.pending_vla.take();
            let row_len = self.pending_row.take();
            let Some((name, name_span)) = name else { continue };
            if let Some(row) = row_len {
                // `int a[n][m]` (or `int a[3][m]`): `len` rows of `m` elements.
                let outer = match (&ty, vla_len) {
                    (Type::Array(_, None), Some(len)) => Some(len),
                    (Type::Array(_, Some(n)), None) => {
                        Some(Expr::new(ExprKind::Int(*n as i64), Type::Int(IntType::LONG), self.span(d)))
                    }
                    _ => None,
                };
                match outer {
                    Some(len) if !global && !is_static && d.kind() != "init_declarator" => {
                        let Type::Array(row_ty, _) = ty else { unreachable!("an array") };
                        let var = self.new_var(name, Type::Array(row_ty, None), name_span, VarKind::Local);
                        self.declare(name, Symbol::Var(var), name_span);
                        let stride = self.row_length_var(var);
                        let kind = StmtKind::VlaDecl { var, len, row: Some((stride, row)) };
                        out.push(Stmt { kind, span: self.span(d) });
                    }
                    _ => self.unsupported("this variable-length array", name_span),
                }
                continue;
            }
            if let Some(len) = vla_len {
                if global || is_static || d.kind() == "init_declarator" || !matches!(ty, Type::Array(_, None)) {
                    self.unsupported("this variable-length array", name_span);
                } else {
                    let var = self.new_var(name, ty, name_span, VarKind::Local);
                    self.declare(name, Symbol::Var(var), name_span);
                    out.push(Stmt { kind: StmtKind::VlaDecl { var, len, row: None }, span: self.span(d) });
                    continue;
                }
            }
            let init_node = if d.kind() == "init_declarator" { d.child_by_field_name("value") } else { None };
            // `int a[] = {1, 2}` and `char s[] = "hi"` take their length from the initialiser.
            if let (Type::Array(elem, None), Some(init)) = (&ty, init_node) {
                let len = match init.kind() {
                    "initializer_list" => Some(Self::children(init).len() as u64),
                    "string_literal" | "concatenated_string" => Some(self.string_bytes(init).len() as u64 + 1),
                    _ => None,
                };
                if let Some(len) = len {
                    ty = Type::Array(elem.clone(), Some(len.max(1)));
                }
            }
            if ty == Type::Void {
                self.error(name_span, format!("`{name}` cannot have type `void`"));
                ty = Type::Error;
            }
            if let Type::Struct(id) = &ty
                && !self.program.struct_def(*id).complete
            {
                let sname = self.program.struct_def(*id).name.clone();
                self.error(name_span, format!("`struct {sname}` is not defined, so `{name}` cannot be declared"));
            }
            if global
                && is_extern
                && init_node.is_none()
                && let Some(Symbol::Var(_)) = self.scopes[0].get(name)
            {
                continue;
            }
            let kind = if global {
                VarKind::Global
            } else if is_static {
                VarKind::StaticLocal
            } else {
                VarKind::Local
            };
            // A repeated global (`int x; ... int x = 3;`) refers to the same object.
            if global && let Some(Symbol::Var(existing)) = self.scopes[0].get(name).cloned() {
                if let Some(init) = init_node {
                    let init = self.lower_init(init, &ty);
                    self.program.globals.retain(|(v, _)| *v != existing);
                    self.program.globals.push((existing, Some(init)));
                }
                continue;
            }
            let var = self.new_var(name, ty.clone(), name_span, kind);
            // The name is in scope from the end of its declarator, so its own initialiser sees
            // it: `struct node *n = malloc(sizeof *n);`.
            self.declare(name, Symbol::Var(var), name_span);
            let init = init_node.map(|i| self.lower_init(i, &ty));
            if global {
                self.program.globals.push((var, init));
            } else {
                out.push(Stmt { kind: StmtKind::Decl { var, init }, span: self.span(d) });
            }
        }
    }

    fn lower_init(&mut self, node: Node<'a>, ty: &Type) -> Init {
        match (node.kind(), ty) {
            ("initializer_list", Type::Array(..) | Type::Struct(_)) => {
                let items = Self::children(node);
                let mut next = 0;
                let init = self.lower_init_items(&items, &mut next, ty, self.span(node));
                if next < items.len() {
                    self.warning(
                        "init",
                        self.span(items[next]),
                        "more values than the variable holds: the extra ones are ignored",
                    );
                }
                init
            }
            ("initializer_list", other) => {
                // `int x = {3};` is valid C for scalars.
                let items = Self::children(node);
                match items.first() {
                    Some(first) if other.is_scalar() => self.lower_init(*first, other),
                    _ => {
                        self.error(self.span(node), "a `{...}` list cannot initialise this variable");
                        Init::List(Vec::new(), self.span(node))
                    }
                }
            }
            ("string_literal" | "concatenated_string", Type::Array(elem, len))
                if elem.as_int().is_some_and(|t| t.kind == IntKind::Char) =>
            {
                let e = self.lower_expr(node);
                if let (Some(len), ExprKind::Str(bytes)) = (len, &e.kind)
                    && bytes.len() as u64 > *len
                {
                    self.warning(
                        "init",
                        self.span(node),
                        format!("the string has {} characters but the array holds {len}", bytes.len()),
                    );
                }
                Init::Expr(e)
            }
            (_, Type::Array(..)) => {
                self.error(self.span(node), "an array must be initialised with `{...}` or a string");
                Init::List(Vec::new(), self.span(node))
            }
            _ => {
                let e = self.lower_expr(node);
                let e = self.rvalue(e);
                let span = self.span(node);
                Init::Expr(self.convert_assign(e, ty, span, "initialise"))
            }
        }
    }

    /// Lowers the items of a `{...}` list from `*next` on into an aggregate of type `ty`,
    /// consuming as many as it needs: a nested `{...}` fills one element, and bare values fill
    /// nested aggregates in order (C's brace elision: `int a[2][2] = {1, 2, 3, 4}`).
    fn lower_init_items(&mut self, items: &[Node<'a>], next: &mut usize, ty: &Type, span: Span) -> Init {
        // The element types in order; arrays are walked lazily (`char s[1000000] = {0}`).
        let (array_elem, count, fields): (Option<Type>, usize, Vec<Type>) = match ty {
            Type::Array(elem, len) => (Some((**elem).clone()), len.map_or(usize::MAX, |n| n as usize), Vec::new()),
            Type::Struct(id) => {
                let fields: Vec<Type> = self.program.struct_def(*id).fields.iter().map(|f| f.ty.clone()).collect();
                (None, fields.len(), fields)
            }
            _ => return Init::List(Vec::new(), span),
        };
        let element_types = (0..count).map(|k| array_elem.clone().unwrap_or_else(|| fields[k].clone()));
        let mut inits = Vec::new();
        for elem_ty in element_types {
            let Some(item) = items.get(*next).copied() else { break };
            if item.kind() == "initializer_pair" {
                self.unsupported("designated initialisers", self.span(item));
                *next += 1;
                continue;
            }
            let aggregate = matches!(elem_ty, Type::Array(..) | Type::Struct(_));
            let is_string_for_chars = matches!(item.kind(), "string_literal" | "concatenated_string")
                && matches!(&elem_ty, Type::Array(e, _) if e.as_int().is_some_and(|t| t.kind == IntKind::Char));
            if item.kind() == "initializer_list" || !aggregate || is_string_for_chars {
                inits.push(self.lower_init(item, &elem_ty));
                *next += 1;
            } else {
                let item_span = self.span(item);
                inits.push(self.lower_init_items(items, next, &elem_ty, item_span));
            }
        }
        Init::List(inits, span)
    }

    // ----- statements ----------------------------------------------------------------------

    fn lower_compound(&mut self, node: Node<'a>, new_scope: bool) -> Stmt {
        if new_scope {
            self.scopes.push(HashMap::new());
        }
        let mut stmts = Vec::new();
        for child in Self::children(node) {
            self.lower_stmt_into(child, &mut stmts);
        }
        if new_scope {
            self.scopes.pop();
        }
        Stmt { kind: StmtKind::Block(stmts), span: self.span(node) }
    }

    /// Lowers a statement in a position that takes exactly one (a loop body, an `if` arm).
    fn lower_single(&mut self, node: Node<'a>) -> Stmt {
        let mut out = Vec::new();
        self.scopes.push(HashMap::new());
        self.lower_stmt_into(node, &mut out);
        self.scopes.pop();
        if out.len() == 1 {
            out.pop().expect("one statement")
        } else {
            Stmt { kind: StmtKind::Block(out), span: self.span(node) }
        }
    }

    fn lower_stmt_into(&mut self, node: Node<'a>, out: &mut Vec<Stmt>) {
        if self.depth > MAX_NESTING {
            self.unsupported(&format!("statements nested more than {MAX_NESTING} levels deep"), self.span(node));
            return;
        }
        self.depth += 1;
        self.lower_stmt_inner(node, out);
        self.depth -= 1;
    }

    fn lower_stmt_inner(&mut self, node: Node<'a>, out: &mut Vec<Stmt>) {
        let span = self.span(node);
        let stmt = |kind| Stmt { kind, span };
        match node.kind() {
            "compound_statement" => out.push(self.lower_compound(node, true)),
            "declaration" => self.lower_declaration(node, false, out),
            "type_definition" => self.lower_typedef(node),
            "struct_specifier" | "enum_specifier" => {
                self.lower_type_specifier(node);
            }
            "expression_statement" => match node.named_child(0).filter(|c| c.kind() != "comment") {
                Some(e) => {
                    let e = self.lower_expr(e);
                    out.push(stmt(StmtKind::Expr(e)));
                }
                None => out.push(stmt(StmtKind::Empty)),
            },
            "if_statement" => {
                let cond = self.condition(node.child_by_field_name("condition"), node);
                let then = match node.child_by_field_name("consequence") {
                    Some(c) => self.lower_single(c),
                    None => stmt(StmtKind::Empty),
                };
                let els = node
                    .child_by_field_name("alternative")
                    .and_then(|a| Self::children(a).into_iter().next())
                    .map(|a| Box::new(self.lower_single(a)));
                out.push(stmt(StmtKind::If { cond, then: Box::new(then), els }));
            }
            "while_statement" => {
                let cond = self.condition(node.child_by_field_name("condition"), node);
                let body = self.loop_body(node.child_by_field_name("body"), span);
                out.push(stmt(StmtKind::While { cond, body: Box::new(body) }));
            }
            "do_statement" => {
                let body = self.loop_body(node.child_by_field_name("body"), span);
                let cond = self.condition(node.child_by_field_name("condition"), node);
                out.push(stmt(StmtKind::DoWhile { body: Box::new(body), cond }));
            }
            "for_statement" => {
                self.scopes.push(HashMap::new());
                let mut init = Vec::new();
                if let Some(i) = node.child_by_field_name("initializer") {
                    if i.kind() == "declaration" {
                        self.lower_declaration(i, false, &mut init);
                    } else {
                        let e = self.lower_expr(i);
                        init.push(Stmt { kind: StmtKind::Expr(e), span: self.span(i) });
                    }
                }
                let cond = node.child_by_field_name("condition").map(|c| {
                    let e = self.lower_expr(c);
                    self.scalar_condition(e)
                });
                let step = node.child_by_field_name("update").map(|u| self.lower_expr(u));
                let body = self.loop_body(node.child_by_field_name("body"), span);
                self.scopes.pop();
                out.push(stmt(StmtKind::For { init, cond, step, body: Box::new(body) }));
            }
            "switch_statement" => out.push(self.lower_switch(node)),
            "break_statement" => {
                if self.loop_depth == 0 && self.switch_depth == 0 {
                    self.error_code("break", span, "`break` is only allowed inside a loop or a `switch`");
                }
                out.push(stmt(StmtKind::Break));
            }
            "continue_statement" => {
                if self.loop_depth == 0 {
                    self.error_code("break", span, "`continue` is only allowed inside a loop");
                }
                out.push(stmt(StmtKind::Continue));
            }
            "return_statement" => out.push(self.lower_return(node)),
            "case_statement" => {
                self.error(span, "`case` is only allowed directly inside a `switch`");
            }
            "goto_statement" => self.unsupported("`goto`", span),
            "labeled_statement" => {
                self.unsupported("labels (for `goto`)", span);
                if let Some(inner) = Self::children(node).into_iter().find(|c| c.kind() != "statement_identifier") {
                    self.lower_stmt_into(inner, out);
                }
            }
            "ERROR" => {
                // Reported by the syntax layer; the function is marked when lowered.
            }
            ";" | "preproc_include" | "preproc_def" => {}
            "preproc_ifdef" | "preproc_if" | "preproc_call" | "preproc_function_def" => {
                self.unsupported("preprocessor conditionals inside functions", span)
            }
            "function_definition" => self.unsupported("nested function definitions", span),
            other => self.unsupported(&format!("`{}`", other.replace('_', " ")), span),
        }
    }

    fn loop_body(&mut self, body: Option<Node<'a>>, span: Span) -> Stmt {
        self.loop_depth += 1;
        let saved_switch = std::mem::replace(&mut self.switch_depth, 0);
        let s = match body {
            Some(b) => self.lower_single(b),
            None => Stmt { kind: StmtKind::Empty, span },
        };
        self.switch_depth = saved_switch;
        self.loop_depth -= 1;
        s
    }

    fn condition(&mut self, cond: Option<Node<'a>>, owner: Node<'a>) -> Expr {
        match cond {
            Some(c) => {
                let e = self.lower_expr(c);
                self.scalar_condition(e)
            }
            None => Expr::new(ExprKind::Int(0), Type::Error, self.span(owner)),
        }
    }

    fn lower_switch(&mut self, node: Node<'a>) -> Stmt {
        let span = self.span(node);
        let cond = self.condition(node.child_by_field_name("condition"), node);
        let cond = if cond.ty.is_integer() {
            let promoted = expr::promote(&cond.ty);
            self.convert(cond, &promoted)
        } else {
            if !cond.ty.is_error() {
                self.error(cond.span, "a `switch` needs an integer (or `char`) value");
            }
            cond
        };
        self.switch_depth += 1;
        self.scopes.push(HashMap::new());
        let mut arms: Vec<SwitchArm> = Vec::new();
        let mut seen: HashMap<Option<i64>, Span> = HashMap::new();
        if let Some(body) = node.child_by_field_name("body") {
            for child in Self::children(body) {
                if child.kind() != "case_statement" {
                    // Statements before the first label never run; keep them in a dead arm.
                    if arms.is_empty() {
                        self.warning(
                            "unreachable",
                            self.span(child),
                            "this statement is before the first `case` and never runs",
                        );
                        continue;
                    }
                    let mut stmts = Vec::new();
                    self.lower_stmt_into(child, &mut stmts);
                    arms.last_mut().expect("an arm").body.extend(stmts);
                    continue;
                }
                let value_node = child.child_by_field_name("value");
                let label = match value_node {
                    Some(v) => {
                        let e = self.lower_expr(v);
                        match const_eval(&e) {
                            Some(c) => Some(c),
                            None => {
                                if !e.ty.is_error() {
                                    self.error(self.span(v), "a `case` label must be a constant");
                                }
                                continue;
                            }
                        }
                    }
                    None => None,
                };
                let label_span = value_node.map(|v| self.span(v)).unwrap_or_else(|| self.span(child));
                if let Some(prev) = seen.insert(label, label_span) {
                    let d = Diagnostic::error("duplicate-case", label_span, "this `case` value appears twice")
                        .with_related(prev, "first here");
                    self.diags.push(d);
                }
                let mut stmts = Vec::new();
                for s in Self::children(child) {
                    if Some(s) == value_node {
                        continue;
                    }
                    self.lower_stmt_into(s, &mut stmts);
                }
                arms.push(SwitchArm { label, label_span, body: stmts });
            }
        }
        self.scopes.pop();
        self.switch_depth -= 1;
        Stmt { kind: StmtKind::Switch { cond, arms }, span }
    }

    fn lower_return(&mut self, node: Node<'a>) -> Stmt {
        let span = self.span(node);
        let ret_ty = self.cur_func.map(|f| self.program.func(f).ret.clone()).unwrap_or(Type::INT);
        let fname = self.cur_func.map(|f| self.program.func(f).name.clone()).unwrap_or_default();
        let value = Self::children(node).into_iter().next();
        let value = match value {
            Some(v) => {
                let e = self.lower_expr(v);
                let e = self.rvalue(e);
                if ret_ty == Type::Void {
                    if e.ty != Type::Void && !e.ty.is_error() {
                        self.error_code(
                            "return",
                            e.span,
                            format!("`{fname}` returns `void`, so it cannot return a value"),
                        );
                    }
                    Some(e)
                } else {
                    let espan = e.span;
                    Some(self.convert_assign(e, &ret_ty, espan, "return"))
                }
            }
            None => {
                if ret_ty != Type::Void && !ret_ty.is_error() {
                    let t = self.program.type_name(&ret_ty);
                    self.warning("return", span, format!("`{fname}` should return {} value here", with_article(&t)));
                }
                None
            }
        };
        Stmt { kind: StmtKind::Return(value), span }
    }
}

/// Whether a declarator (possibly behind pointers/init) declares a function.
fn declarator_is_function(node: Node) -> bool {
    match node.kind() {
        "function_declarator" => node.child_by_field_name("declarator").is_some_and(|d| d.kind() == "identifier"),
        "pointer_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
            node.child_by_field_name("declarator").or_else(|| node.named_child(0)).is_some_and(|d| {
                d.kind() == "function_declarator"
                    && d.child_by_field_name("declarator").is_some_and(|i| i.kind() == "identifier")
                    || declarator_is_function(d) && d.kind() != "parenthesized_declarator"
            })
        }
        _ => false,
    }
}

/// Parameters of array type are pointers (C11 6.7.6.3).
fn adjust_param_type(ty: Type) -> Type {
    match ty {
        Type::Array(elem, _) => Type::Pointer(elem),
        other => other,
    }
}

/// Evaluates an integer constant expression.
pub fn const_eval(e: &Expr) -> Option<i64> {
    let ty = e.ty.as_int();
    let wrap = |v: i64| ty.map_or(v, |t| t.wrap(v));
    Some(match &e.kind {
        ExprKind::Int(v) => *v,
        ExprKind::SizeOf { size, .. } => *size as i64,
        ExprKind::Cast { expr, .. } => match (&e.ty, &expr.ty) {
            (Type::Int(t), Type::Int(_)) => t.wrap(const_eval(expr)?),
            (Type::Int(t), Type::Float(_)) => match &expr.kind {
                ExprKind::Float(f) => t.wrap(*f as i64),
                _ => return None,
            },
            _ => return None,
        },
        ExprKind::Unary(op, a) => {
            let a = const_eval(a)?;
            wrap(match op {
                UnOp::Neg => a.wrapping_neg(),
                UnOp::BitNot => !a,
                UnOp::Not => (a == 0) as i64,
            })
        }
        ExprKind::Binary(op, a, b) => {
            let signed = a.ty.as_int().is_none_or(|t| t.signed);
            let (a, b) = (const_eval(a)?, const_eval(b)?);
            wrap(match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div if b != 0 => {
                    if signed {
                        a.wrapping_div(b)
                    } else {
                        ((a as u64) / (b as u64)) as i64
                    }
                }
                BinOp::Rem if b != 0 => {
                    if signed {
                        a.wrapping_rem(b)
                    } else {
                        ((a as u64) % (b as u64)) as i64
                    }
                }
                BinOp::Div | BinOp::Rem => return None,
                BinOp::Shl => a.wrapping_shl(b as u32),
                BinOp::Shr => {
                    if signed {
                        a.wrapping_shr(b as u32)
                    } else {
                        ((a as u64).wrapping_shr(b as u32)) as i64
                    }
                }
                BinOp::BitAnd => a & b,
                BinOp::BitOr => a | b,
                BinOp::BitXor => a ^ b,
                BinOp::Lt => (a < b) as i64,
                BinOp::Le => (a <= b) as i64,
                BinOp::Gt => (a > b) as i64,
                BinOp::Ge => (a >= b) as i64,
                BinOp::Eq => (a == b) as i64,
                BinOp::Ne => (a != b) as i64,
            })
        }
        ExprKind::Logical(op, a, b) => {
            let a = const_eval(a)? != 0;
            let b = const_eval(b)? != 0;
            (match op {
                LogicOp::And => a && b,
                LogicOp::Or => a || b,
            }) as i64
        }
        ExprKind::Cond(c, a, b) => {
            if const_eval(c)? != 0 {
                const_eval(a)?
            } else {
                const_eval(b)?
            }
        }
        _ => return None,
    })
}

/// "an `int`", "a `double`".
pub fn with_article(type_name: &str) -> String {
    let article = if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} `{type_name}`")
}
