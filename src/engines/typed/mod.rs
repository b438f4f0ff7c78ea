//! Type-directed expression repair and completion from a synthesis graph (seed paper 003).
//!
//! `graph` builds the synthesis graph of what is in scope at a position, `synth` is Algorithm 1
//! (best-N expressions of a type within a cost bound), `repair` is Algorithm 2 (bottom-up
//! repair with reinforced subexpressions). This module finds the ill-typed expression of a
//! type diagnostic and the type its context expects, and turns results into repairs and
//! completions. Plain Rust: program, syntax tree and text in, ranked expressions out.

pub mod env;
pub mod flow;
pub mod graph;
pub mod repair;
pub mod stdlib;
pub mod synth;
pub mod term;
pub mod types;

use tree_sitter::{Node, Tree};

use crate::ir::{Diagnostic, Guarantee, Program, Repair, Span, TextEdit};
use env::Env;
use graph::{FnKind, Graph};
use repair::{Expect, Repairer};
use synth::Synth;
use term::{Term, TermKind, format_arg_types, format_call, strip_paren, type_of};
use types::Types;

/// The diagnostic codes of the front end whose expression the engine repairs.
pub const REPAIRED_CODES: &[&str] =
    &["undeclared", "arity", "type", "no-field", "scanf-pointer", "format", crate::syntax::lower::FORMAT_WIDTH];

/// Type diagnostics of one file that get quick fixes (the first ones).
pub const MAX_REPAIRED_DIAGNOSTICS: usize = 16;

/// Cost bound of completion (C_max of Algorithm 1).
pub const COMPLETION_CMAX: u32 = 32;

/// One ranked replacement of the ill-typed expression at `span`.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    pub span: Span,
    pub original: String,
    pub replacement: String,
    pub cost: u32,
}

/// Figures of one request, for the benchmark.
#[derive(Clone, Copy, Debug, Default)]
pub struct GraphStats {
    pub nodes: usize,
    pub edges: usize,
    pub build_ms: f64,
}

/// The context of the expression: what its value must be.
enum Context<'t> {
    Any,
    Condition,
    Return,
    Assign(Node<'t>),
    Init(Node<'t>),
    /// Something assigned to, incremented or decremented: only an object (a variable that is
    /// not an array, `*p`, `a[i]`, `s.f`, `p->f`) fits; the node is the other side of the
    /// assignment when there is one.
    Target(Option<Node<'t>>),
}

const EXPR_KINDS: &[&str] = &[
    "identifier",
    "number_literal",
    "char_literal",
    "string_literal",
    "concatenated_string",
    "call_expression",
    "pointer_expression",
    "unary_expression",
    "binary_expression",
    "subscript_expression",
    "field_expression",
    "cast_expression",
    "parenthesized_expression",
    "true",
    "false",
    "null",
];

/// The largest expression around `span` whose expected type its context gives, and that
/// context: calls, operators and field accesses are climbed through (their arguments' types
/// come from them), assignments, initialisers, returns and conditions stop the climb.
fn locate<'t>(tree: &'t Tree, span: Span) -> Option<(Node<'t>, Context<'t>)> {
    let mut node =
        tree.root_node().descendant_for_byte_range(span.start as usize, span.end.max(span.start) as usize)?;
    while !EXPR_KINDS.contains(&node.kind()) {
        if node.kind().ends_with("statement") || node.kind() == "translation_unit" {
            return None;
        }
        node = node.parent()?;
    }
    loop {
        let Some(p) = node.parent() else { return Some((node, Context::Any)) };
        match p.kind() {
            "argument_list" => node = p.parent()?,
            "parenthesized_expression" => {
                let gp = p.parent();
                if gp.is_some_and(|g| {
                    matches!(g.kind(), "if_statement" | "while_statement" | "do_statement" | "switch_statement")
                }) {
                    return Some((node, Context::Condition));
                }
                node = p;
            }
            "binary_expression"
            | "unary_expression"
            | "pointer_expression"
            | "subscript_expression"
            | "field_expression"
            | "cast_expression"
            | "call_expression" => node = p,
            "assignment_expression" => {
                let right = p.child_by_field_name("right");
                let op = p.child_by_field_name("operator").map(|o| o.kind() == "=").unwrap_or(false);
                return Some(match (right, p.child_by_field_name("left")) {
                    (Some(r), Some(l)) if r.id() == node.id() && op => (node, Context::Assign(l)),
                    (Some(r), Some(l)) if l.id() == node.id() => (node, Context::Target(op.then_some(r))),
                    _ => (node, Context::Any),
                });
            }
            "init_declarator" => {
                return Some(match p.child_by_field_name("declarator") {
                    Some(d) if p.child_by_field_name("value").is_some_and(|v| v.id() == node.id()) => {
                        (node, Context::Init(d))
                    }
                    _ => (node, Context::Any),
                });
            }
            "update_expression" => return Some((node, Context::Target(None))),
            "return_statement" => return Some((node, Context::Return)),
            "for_statement" if p.child_by_field_name("condition").is_some_and(|c| c.id() == node.id()) => {
                return Some((node, Context::Condition));
            }
            _ => return Some((node, Context::Any)),
        }
    }
}

fn declarator_name<'a>(mut d: Node, src: &'a str) -> Option<&'a str> {
    loop {
        if d.kind() == "identifier" {
            return Some(&src[d.byte_range()]);
        }
        d = d.child_by_field_name("declarator")?;
    }
}

fn expectation(env: &mut Env, ctx: &Context, src: &str) -> Expect {
    match ctx {
        Context::Any => Expect::Any,
        Context::Condition => Expect::Type(Types::INT),
        Context::Return => env.return_type().filter(|t| *t != Types::VOID).map(Expect::Type).unwrap_or(Expect::Any),
        Context::Assign(lhs) => {
            let t = Term::from_node(*lhs, src);
            match type_of(env, &t) {
                Some(ty) => Expect::Type(env.types.rv(ty)),
                None => Expect::Any,
            }
        }
        Context::Init(d) => match declarator_name(*d, src).and_then(|n| env.var(n)).map(|v| v.ty) {
            Some(ty) => Expect::Type(ty),
            None => Expect::Any,
        },
        Context::Target(value) => match value.and_then(|v| type_of(env, &Term::from_node(v, src))) {
            Some(ty) => Expect::Type(env.types.value(ty)),
            None => Expect::Any,
        },
    }
}

/// Whether `text` (a candidate's C text) is an object that can be assigned to: a variable
/// that is not an array, a dereference, an element, a field (C11 6.3.2.1 modifiable lvalues,
/// less `const`, which the graph does not track).
fn is_object_text(env: &Env, text: &str) -> bool {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        return is_object_text(env, inner);
    }
    let is_ident = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if is_ident(t) {
        return env.var(t).is_some_and(|v| !matches!(env.types.kind(v.ty), types::TyKind::Array(..)));
    }
    if t.starts_with('*') || t.ends_with(']') {
        return true;
    }
    // `s.f`, `p->f`: a field name after the last access operator.
    let field = t.rsplit_once("->").or_else(|| t.rsplit_once('.')).map(|(_, f)| f);
    field.is_some_and(is_ident)
}

/// Ranked replacements for the expression a type diagnostic at `span` is about.
pub fn suggest(program: &Program, tree: &Tree, src: &str, span: Span, n: usize) -> Vec<Suggestion> {
    suggest_with(program, tree, src, span, n, false).0
}

/// [`suggest`] with the graph's figures; `all_headers` puts the whole library in the graph.
pub fn suggest_with(
    program: &Program,
    tree: &Tree,
    src: &str,
    span: Span,
    n: usize,
    all_headers: bool,
) -> (Vec<Suggestion>, GraphStats) {
    let Some((node, ctx)) = locate(tree, span) else { return (Vec::new(), GraphStats::default()) };
    let term = Term::from_node(node, src);
    let started = std::time::Instant::now();
    let mut env = Env::new(program, src, node.start_byte());
    let graph = Graph::build(&mut env, all_headers);
    let stats = GraphStats {
        nodes: graph.node_count(&env.types),
        edges: graph.edge_count(),
        build_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    let expect = expectation(&mut env, &ctx, src);
    let mut r = Repairer::new(&mut env, graph, n);
    let cands = r.repair(&term, expect);
    // A call statement stays a call: `n;` for `scanf("%d", n);` type-checks but repairs nothing.
    let statement_call =
        matches!(term.kind, TermKind::Call(..)) && node.parent().is_some_and(|p| p.kind() == "expression_statement");
    let target = matches!(ctx, Context::Target(_));
    let out = cands
        .into_iter()
        .filter(|c| !statement_call || is_call_text(&c.text))
        .filter(|c| !target || is_object_text(r.env, &c.text))
        // An assignment's target is written, not read: it may have no value yet.
        .filter(|c| sensible(r.env, &c.text) || target)
        .filter(|c| no_new_effects(&term.text, &c.text))
        .take(n)
        .map(|c| Suggestion {
            span: term.span,
            original: term.text.clone(),
            replacement: c.text.to_string(),
            cost: c.cost,
        })
        .collect();
    (out, stats)
}

/// `replacement` calls no library function with effects ([`stdlib::has_effects`]) but those
/// `original` names, or misspells (`prinft(...)` repaired as `printf(...)`).
fn no_new_effects(original: &str, replacement: &str) -> bool {
    let (original, replacement) = (without_literals(original), without_literals(replacement));
    let named = identifiers(&original, false);
    identifiers(&replacement, true)
        .iter()
        .all(|f| !stdlib::has_effects(f) || named.iter().any(|n| repair::distance(n, f) <= repair::name_limit(f)))
}

/// The identifiers of `text` (literals already dropped), or only those called (`f(`).
fn identifiers(text: &str, called: bool) -> Vec<&str> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| word(c)) {
        let len = rest[start..].find(|c: char| !word(c)).unwrap_or(rest.len() - start);
        let name = &rest[start..start + len];
        rest = &rest[start + len..];
        let is_call = rest.trim_start().starts_with('(');
        if !name.starts_with(|c: char| c.is_ascii_digit()) && (is_call || !called) {
            out.push(name);
        }
    }
    out
}

fn is_call_text(s: &str) -> bool {
    let head: String = s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    !head.is_empty() && crate::ir::is_parenthesized(&s[head.len()..])
}

/// Quick fixes for the front end's type diagnostics: up to `n` per diagnostic, best first.
pub fn repairs(program: &Program, tree: &Tree, src: &str, diagnostics: &[Diagnostic], n: usize) -> Vec<Repair> {
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    // A file full of errors (a paste, a half-typed block) must not stall the keystroke stage.
    for d in diagnostics.iter().filter(|d| REPAIRED_CODES.contains(&d.code)).take(MAX_REPAIRED_DIAGNOSTICS) {
        for s in suggest(program, tree, src, d.span, n) {
            let edits = minimal_edits(src, s.span, &s.replacement);
            out.push(Repair {
                reached: Vec::new(),
                title: crate::ir::token_edit::describe_edits(src, &edits),
                engine: "typed",
                guarantee: Guarantee::WellTyped,
                edits,
                explanation: format!(
                    "`{}` type-checks here; built from what is in scope, reusing what you wrote.",
                    s.replacement
                ),
                places: Vec::new(),
                details: format!("synthesis cost {}", s.cost),
                fixes: vec![d.span],
            });
        }
    }
    out
}

/// The replacement of `span` by `new` as edits of the differing tokens only, in the student's
/// spacing (`scanf("%d",m)` gets an `&` inserted, not a reprinted call).
pub fn minimal_edits(src: &str, span: Span, new: &str) -> Vec<TextEdit> {
    crate::ir::token_edit::minimal_edits_in(src, span, new, 2)
}

/// One completion: a well-typed expression of the expected type.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub text: String,
    pub ty: String,
    pub cost: u32,
}

/// The best `n` expressions of the type expected at byte `offset` (empty when the position
/// has no known expected type).
pub fn complete(program: &Program, src: &str, offset: usize, n: usize) -> Vec<Completion> {
    complete_with(program, src, offset, n, false).0
}

pub fn complete_with(
    program: &Program,
    src: &str,
    offset: usize,
    n: usize,
    all_headers: bool,
) -> (Vec<Completion>, GraphStats) {
    let offset = offset.min(src.len());
    let started = std::time::Instant::now();
    let mut env = Env::new(program, src, offset);
    let Some(expect) = expected_at(&mut env, src, offset) else { return (Vec::new(), GraphStats::default()) };
    let graph = Graph::build(&mut env, all_headers);
    let stats = GraphStats {
        nodes: graph.node_count(&env.types),
        edges: graph.edge_count(),
        build_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    let Some(target) = (match expect {
        Expect::Any => None,
        Expect::Type(t) | Expect::Printf(t) | Expect::Scanf(t) => Some(t),
    }) else {
        return (Vec::new(), stats);
    };
    // More than shown: some are filtered out below.
    let mut synth = Synth::new(&graph, &env.types, n.max(6) * 4);
    let cands = synth.synthesize(target, COMPLETION_CMAX);
    let assigned = assigned_name(src, offset);
    let root = |c: &synth::Cand| &graph.fns[c.node as usize].kind;
    let pool: Vec<synth::Cand> = cands
        .into_iter()
        .filter(|c| {
            // Variadic arguments get no implicit conversion but the promotions.
            !matches!(expect, Expect::Printf(_) | Expect::Scanf(_)) || !matches!(root(c), FnKind::Conv)
        })
        // `x = x` changes nothing.
        .filter(|c| assigned != Some(&*c.text))
        .filter(|c| sensible(&env, &c.text))
        .collect();
    // A library constant the file never names (`FILENAME_MAX` where a count is wanted) is
    // rarely meant: at most two of them.
    let unnamed_constant = |c: &synth::Cand| matches!(root(c), FnKind::Const(name) if stdlib::lookup(name).is_some() && !env.freq.contains_key(name));
    let mut chosen: Vec<&synth::Cand> = Vec::new();
    let mut constants = 0;
    for c in &pool {
        if chosen.len() == n {
            break;
        }
        if unnamed_constant(c) {
            constants += 1;
            if constants > 2 {
                continue;
            }
        }
        chosen.push(c);
    }
    // A function of the file that returns the wanted type is offered even when it costs more
    // than the variables: the student may not think of it.
    let own_call = |c: &synth::Cand| matches!(root(c), FnKind::Call(name) if stdlib::lookup(name).is_none());
    if !chosen.iter().any(|c| own_call(c))
        && let Some(call) = pool.iter().find(|c| own_call(c))
    {
        if chosen.len() == n {
            chosen.pop();
        }
        chosen.push(call);
    }
    let out = chosen
        .into_iter()
        .map(|c| Completion { text: c.text.to_string(), ty: env.types.name(own_type(&graph, c)), cost: c.cost })
        .collect();
    (out, stats)
}

/// The type a candidate has before any implicit conversion to the expected type: `ratio`
/// offered where an `int` is expected is a `double`.
fn own_type(graph: &Graph, c: &synth::Cand) -> types::Ty {
    match graph.fns[c.node as usize].kind {
        FnKind::Conv | FnKind::Read | FnKind::Decay if !c.args.is_empty() => own_type(graph, &c.args[0]),
        _ => c.ty,
    }
}

/// The left side of a simple assignment `before` ends with (`total =` gives `total`): not a
/// comparison (`==`, `<=`, `>=`, `!=`) or a compound assignment (`+=`, `<<=`, ...).
fn simple_assignment_lhs(before: &str) -> Option<&str> {
    let lhs = before.trim_end().strip_suffix('=')?;
    let operator = ['=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^'];
    (!lhs.ends_with(operator)).then(|| lhs.trim_end())
}

/// The variable assigned by the text just before `offset` (`total = |`), if any.
fn assigned_name(src: &str, offset: usize) -> Option<&str> {
    let before = simple_assignment_lhs(src.get(..offset)?)?;
    let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    let name = &before[start..];
    (!name.is_empty()).then_some(name)
}

/// Whether a candidate expression makes sense to offer: it reads no variable that has no
/// value yet at the position ([`Env::unset`]) and dereferences no null pointer.
fn sensible(env: &Env, text: &str) -> bool {
    let compact = without_literals(text);
    let null_access = ["*NULL", "*(NULL", "NULL[", "NULL->", "(NULL)[", "(NULL)->"].iter().any(|p| compact.contains(p));
    // `&x` takes the address of `x` (to store into it): not a read.
    let reads_unset = env.unset.iter().any(|u| {
        compact.match_indices(u.as_str()).any(|(at, _)| {
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let before = compact[..at].chars().next_back();
            let after = compact[at + u.len()..].chars().next();
            let address_taken = before == Some('&') && !compact[..at].ends_with("&&");
            !before.is_some_and(word) && !after.is_some_and(word) && !address_taken
        })
    });
    !null_access && !reads_unset
}

/// `text` without whitespace and with the insides of string and character literals dropped
/// (`"%d\n"` names no variable `n`).
fn without_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(c);
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if !c.is_whitespace() => out.push(c),
            None => {}
        }
    }
    out
}

/// The type the expression at `offset` should have, read from the text before it (the text
/// being typed is usually not a complete statement, so the tree is not to be trusted there).
fn expected_at(env: &mut Env, src: &str, offset: usize) -> Option<Expect> {
    let b = src.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut p = offset;
    while p > 0 && word(b[p - 1]) {
        p -= 1;
    }
    let before = src[..p].trim_end();
    let last = *before.as_bytes().last()?;
    if before.ends_with("return") && !before[..before.len() - 6].bytes().last().is_some_and(word) {
        return env.return_type().filter(|t| *t != Types::VOID).map(Expect::Type);
    }
    if last == b'=' {
        let lhs = simple_assignment_lhs(before)?;
        // The left side: the maximal run of expression characters before `=`.
        let start = lhs
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '[' | ']' | '.' | '-' | '>' | '*' | ' ')))
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(0);
        let chunk = lhs[start..].trim();
        // A declaration `T name =`: the name's declared type.
        let words: Vec<&str> = chunk.split_whitespace().collect();
        if words.len() >= 2 {
            let name = words.last()?.trim_start_matches('*');
            if let Some(v) = env.var(name) {
                let ty = v.ty;
                return Some(Expect::Type(ty));
            }
            let spelled = chunk[..chunk.len() - name.len()].to_string();
            return Some(Expect::Type(env.types.from_spelling(&spelled)));
        }
        let wrapped = format!("void __mend(void) {{ {chunk}; }}");
        let tree = crate::syntax::parse(&wrapped, None);
        let stmt = tree.root_node().descendant_for_byte_range(20, 20 + chunk.len())?;
        let mut node = stmt;
        while node.byte_range().len() < chunk.len() {
            node = node.parent()?;
        }
        let t = Term::from_node(node, &wrapped);
        let ty = type_of(env, &t)?;
        return Some(Expect::Type(env.types.rv(ty)));
    }
    if last == b'(' || last == b',' {
        // The innermost unclosed `(`, and the argument index.
        let bb = before.as_bytes();
        let mut depth = 0i32;
        let mut commas = 0usize;
        let mut i = bb.len();
        while i > 0 {
            i -= 1;
            match bb[i] {
                b')' | b']' => depth += 1,
                b'(' | b'[' if depth > 0 => depth -= 1,
                b'(' => break,
                b',' if depth == 0 => commas += 1,
                b';' | b'{' | b'}' => return None,
                _ => {}
            }
        }
        if bb.get(i) != Some(&b'(') {
            return None;
        }
        let head = before[..i].trim_end();
        let hs = head.bytes().rposition(|c| !word(c)).map(|x| x + 1).unwrap_or(0);
        let name = &head[hs..];
        match name {
            "if" | "while" | "switch" => return Some(Expect::Type(Types::INT)),
            "" | "for" | "sizeof" | "return" => return None,
            _ => {}
        }
        let sig = env.sig(name)?;
        if let Some((fi, scanf)) = format_call(name)
            && commas > fi
        {
            // The format literal gives the variadic arguments' types.
            let args_text = &before[i + 1..];
            let lit = args_text.split(',').nth(fi)?.trim();
            let wrapped = format!("char *__f = {lit};");
            let tree = crate::syntax::parse(&wrapped, None);
            let node = tree.root_node().descendant_for_byte_range(12, 12 + lit.len())?;
            let t = Term::from_node(node, &wrapped);
            let TermKind::Str(bytes) = &strip_paren(&t).kind else { return None };
            let want = format_arg_types(&mut env.types, bytes, scanf)?;
            let w = *want.get(commas - fi - 1)?;
            return Some(if scanf { Expect::Scanf(w) } else { Expect::Printf(w) });
        }
        return sig.params.get(commas).map(|t| Expect::Type(*t));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    fn completions(src: &str) -> Vec<(String, String)> {
        let at = src.find("/*|*/").expect("a cursor mark");
        let lowered = lower_source(src);
        complete(&lowered.program, src, at, 10).into_iter().map(|c| (c.text, c.ty)).collect()
    }

    #[test]
    fn completion_offers_a_function_of_the_right_type_and_only_sensible_values() {
        let src = "#include <stdio.h>\nint square(int v) { return v * v; }\nint main(void) {\n    int n = 3, x;\n    double ratio = 0.5;\n    int *p = NULL;\n    int total;\n    total = /*|*/;\n    return total + x;\n}\n";
        let items = completions(src);
        let texts: Vec<&str> = items.iter().map(|(t, _)| t.as_str()).collect();
        assert!(texts.iter().any(|t| t.starts_with("square(")), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("NULL") || *t == "total"), "{texts:?}");
        // `x` has no value yet; `ratio` is offered as what it is.
        assert!(!texts.iter().any(|t| t.split(|c: char| !c.is_alphanumeric()).any(|w| w == "x")), "{texts:?}");
        assert!(items.iter().any(|(t, ty)| t == "ratio" && ty == "double"), "{items:?}");
    }

    fn first_fix(src: &str) -> Vec<String> {
        let lowered = lower_source(src);
        let tree = crate::syntax::parse(src, None);
        let d = lowered.diagnostics.iter().find(|d| REPAIRED_CODES.contains(&d.code)).expect("a type diagnostic");
        suggest(&lowered.program, &tree, src, d.span, 3).into_iter().map(|s| s.replacement).collect()
    }

    #[test]
    fn scanf_gets_its_ampersand() {
        let src = "#include <stdio.h>\nint main(void) {\n    int n;\n    scanf(\"%d\", n);\n    return n;\n}\n";
        assert_eq!(first_fix(src)[0], "scanf(\"%d\", &n)");
    }

    #[test]
    fn scanf_gets_its_missing_argument() {
        let src = "#include <stdio.h>\nint main(void) {\n    char c;\n    scanf(\"%c\");\n    return c;\n}\n";
        assert_eq!(first_fix(src)[0], "scanf(\"%c\", &c)");
    }

    #[test]
    fn a_dropped_argument_is_the_value_computed_for_it() {
        // `d` is computed and never used once the argument is gone; `n` is nearer and used more.
        let src = "#include <stdio.h>\nint main(void) {\n    int d, n;\n    scanf(\"%d\", &n);\n    d = n % 10;\n    n = n / 10;\n    printf(\"%d\\n\");\n    return n;\n}\n";
        assert_eq!(first_fix(src)[0], "printf(\"%d\\n\", d)");
    }

    #[test]
    fn a_dropped_scanf_destination_is_the_variable_read_before_any_write() {
        let src = "#include <stdio.h>\nint main(void) {\n    int a, b, c;\n    c = 0;\n    scanf(\"%d\");\n    a = 1;\n    return a + b + c;\n}\n";
        assert_eq!(first_fix(src)[0], "scanf(\"%d\", &b)");
    }

    #[test]
    fn minimal_edits_cut_at_tokens() {
        let src = "x = coutn + 1;";
        let e = &minimal_edits(src, Span::new(4, 13), "count + 1")[0];
        assert_eq!((e.span, e.new_text.as_str()), (Span::new(4, 9), "count"));
        let src = "scanf(\"%d\", n)";
        let e = &minimal_edits(src, Span::new(0, 14), "scanf(\"%d\", &n)")[0];
        assert_eq!((e.span, e.new_text.as_str()), (Span::new(12, 12), "&"));
    }
}
