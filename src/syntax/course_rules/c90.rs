//! C90's rules that later standards dropped, on the concrete syntax tree (where a declaration
//! stands in its block, what a comment looks like): `for (int i = 0; …)`, a declaration after
//! a statement, `//` comments. Each gets the fix a student makes: the declaration moved to the
//! start of its block, the comment rewritten as `/* … */`.

use tree_sitter::Node;

use super::{Found, Rule, line_indent, own_line_span};
use crate::ir::{Span, TextEdit};

/// The C90 rules of one file.
pub(super) fn check(root: Node, src: &str, out: &mut Vec<Found>) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "compound_statement" => block(node, src, out),
            "comment" => comment(node, src, out),
            "call_expression" => format_directives(node, src, out),
            "enumerator_list" => enumerator_list(node, out),
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    identifiers(root, src, out);
}

/// `enum { A, B, }`: C90 has no comma after the last enumerator.
fn enumerator_list(list: Node, out: &mut Vec<Found>) {
    let Some(close) = list.child(list.child_count().saturating_sub(1)).filter(|c| c.kind() == "}") else { return };
    let Some(comma) = close.prev_sibling().filter(|c| c.kind() == ",") else { return };
    let mut found = Found::new(
        Rule::EnumTrailingComma,
        span(comma),
        "C90 does not allow a comma after the last value of an `enum`",
    );
    found.fix = Some(("Delete the comma".into(), vec![TextEdit { span: span(comma), new_text: String::new() }]));
    out.push(found);
}

/// Names with letters outside a–z and A–Z (`repetiçoes`): C90 has none (gcc: "stray '\303' in
/// program"). One finding per name, at its first use; the fix writes every use without the
/// accents, unless that name is taken.
fn identifiers(root: Node, src: &str, out: &mut Vec<Found>) {
    let mut seen: Vec<&str> = Vec::new();
    let mut all: Vec<Node> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), "identifier" | "field_identifier" | "type_identifier") {
            all.push(node);
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    all.sort_by_key(|n| n.start_byte());
    for node in &all {
        let name = text(*node, src);
        if name.is_ascii() || seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let Some(bad) = name.chars().find(|c| !c.is_ascii()) else { continue };
        let mut found = Found::new(
            Rule::NonAsciiName,
            span(*node),
            format!("C90 allows only the letters a–z and A–Z, digits and `_` in a name: `{name}` has `{bad}`"),
        );
        let plain: String = name.chars().map(without_accent).collect();
        let taken = all.iter().any(|n| text(*n, src) == plain);
        if plain.is_ascii() && !taken {
            let edits = all
                .iter()
                .filter(|n| text(**n, src) == name)
                .map(|n| TextEdit { span: span(*n), new_text: plain.clone() })
                .collect();
            found.fix = Some((format!("Rename `{name}` to `{plain}`"), edits));
        }
        out.push(found);
    }
}

/// The letter without its accent (`ç` → `c`), for the accented letters of Latin alphabets.
fn without_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'Á' | 'À' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'A',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'O',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' => 'c',
        'Ç' => 'C',
        'ñ' => 'n',
        'Ñ' => 'N',
        'ß' => 's',
        other => other,
    }
}

fn span(n: Node) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

fn text<'s>(n: Node, src: &'s str) -> &'s str {
    &src[n.byte_range()]
}

/// Items of a block that count as declarations at its start.
fn is_declaration(n: Node) -> bool {
    // `enum state {A, B};` in a block is a type specifier and its `;`, with no node of its own.
    matches!(n.kind(), "declaration" | "type_definition" | "enum_specifier" | "struct_specifier" | "union_specifier")
}

/// Items that neither end nor continue the block's leading declarations.
fn is_transparent(n: Node) -> bool {
    n.kind() == "comment" || n.kind().starts_with("preproc")
}

/// A block's statements, its declarations and where a declaration moved to its start goes.
struct Block<'t> {
    node: Node<'t>,
    /// The leading declarations (C90's place for them).
    leading: Vec<Node<'t>>,
    /// The first statement: a moved declaration goes before it.
    first_statement: Option<Node<'t>>,
}

impl<'t> Block<'t> {
    fn read(node: Node<'t>) -> Block<'t> {
        let mut cursor = node.walk();
        let mut leading = Vec::new();
        let mut first_statement = None;
        for item in node.named_children(&mut cursor) {
            if is_transparent(item) {
                continue;
            }
            if is_declaration(item) && first_statement.is_none() {
                leading.push(item);
            } else if first_statement.is_none() && !is_declaration(item) {
                first_statement = Some(item);
            }
        }
        Block { node, leading, first_statement }
    }

    /// The edit that puts `declaration` (a full declaration with its `;`) at the block's start,
    /// on its own line before the first statement when that statement starts a line.
    fn insert(&self, src: &str, declaration: &str) -> Option<TextEdit> {
        let first = self.first_statement?;
        let at = first.start_byte();
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        let new_text = if src[line_start..at].trim().is_empty() {
            let indent = &src[line_start..at];
            return Some(TextEdit {
                span: Span::new(line_start, line_start),
                new_text: format!("{indent}{declaration}\n"),
            });
        } else {
            format!("{declaration} ")
        };
        Some(TextEdit { span: Span::new(at, at), new_text })
    }

    /// The type (as written) of `name` when a leading declaration declares it.
    fn declares(&self, src: &str, name: &str) -> Option<String> {
        self.leading
            .iter()
            .flat_map(|d| Declaration::read(*d, src))
            .find(|(d, _)| d.name == name)
            .map(|(d, specifiers)| format!("{specifiers} {}", d.pointer))
    }
}

/// One declarator of a declaration: `*p = &x` is name `p`, pointer `*`, value `&x`.
struct Declarator<'t> {
    name: String,
    /// The declarator without its initialiser (`*p`, `a[3]`).
    written: String,
    /// The `*`s in front of the name.
    pointer: String,
    value: Option<Node<'t>>,
    /// A plain name or pointer (no array, no function).
    scalar: bool,
}

struct Declaration;

impl Declaration {
    /// The declarators of `decl`, each with the specifiers as written (`unsigned int`).
    fn read<'t>(decl: Node<'t>, src: &str) -> Vec<(Declarator<'t>, String)> {
        let mut cursor = decl.walk();
        let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut cursor).collect();
        let Some(first) = declarators.first() else { return Vec::new() };
        let specifiers = src[decl.start_byte()..first.start_byte()].trim().to_string();
        declarators
            .iter()
            .filter_map(|d| {
                let (target, value) = match d.kind() {
                    "init_declarator" => (d.child_by_field_name("declarator")?, d.child_by_field_name("value")),
                    _ => (*d, None),
                };
                let mut inner = target;
                let mut scalar = true;
                while let Some(next) = inner.child_by_field_name("declarator") {
                    scalar &= inner.kind() == "pointer_declarator";
                    inner = next;
                }
                if inner.kind() != "identifier" {
                    return None;
                }
                let written = text(target, src).to_string();
                let pointer =
                    written[..inner.start_byte() - target.start_byte()].chars().filter(|c| *c == '*').collect();
                Some((
                    Declarator { name: text(inner, src).to_string(), written, pointer, value, scalar },
                    specifiers.clone(),
                ))
            })
            .collect()
    }
}

/// Whether `name` occurs as an identifier in `node`'s range `within`, outside `except`.
fn mentions(node: Node, src: &str, name: &str, within: Span, except: &[Span]) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let s = span(n);
        if s.end <= within.start || s.start >= within.end || except.iter().any(|e| e.start <= s.start && s.end <= e.end)
        {
            continue;
        }
        if n.kind() == "identifier" && text(n, src) == name {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

/// The block a declaration moves to: the nearest enclosing block that is not a `switch` body
/// (a declaration before the first `case` is legal but reads as unreachable code).
fn owner(mut node: Node) -> Option<Node> {
    while let Some(parent) = node.parent() {
        if parent.kind() == "compound_statement" && parent.parent().is_none_or(|p| p.kind() != "switch_statement") {
            return Some(parent);
        }
        node = parent;
    }
    None
}

/// Constant initialisers: the declaration can move whole (C90 wants constants in a list anyway).
fn is_constant(n: Node) -> bool {
    match n.kind() {
        "number_literal" | "char_literal" | "string_literal" | "concatenated_string" | "true" | "false" | "null" => {
            true
        }
        "unary_expression" => n.child_by_field_name("argument").is_some_and(is_constant),
        "initializer_list" | "parenthesized_expression" => {
            let mut cursor = n.walk();
            let items: Vec<Node> = n.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect();
            items.into_iter().all(is_constant)
        }
        _ => false,
    }
}

fn block(node: Node, src: &str, out: &mut Vec<Found>) {
    let info = Block::read(node);
    // Declarations after a statement of this block.
    let mut cursor = node.walk();
    let mut seen_statement = false;
    for item in node.named_children(&mut cursor) {
        if is_transparent(item) {
            continue;
        }
        if !is_declaration(item) {
            seen_statement = true;
            continue;
        }
        if seen_statement {
            out.push(mixed_declaration(&info, item, src));
        }
    }
    // `for (int i = 0; …)` anywhere whose declaration would go to this block.
    let mut loops = Vec::new();
    let mut stack: Vec<Node> = {
        let mut c = node.walk();
        node.named_children(&mut c).collect()
    };
    while let Some(n) = stack.pop() {
        if n.kind() == "compound_statement" && n.parent().is_none_or(|p| p.kind() != "switch_statement") {
            continue; // its own block
        }
        if n.kind() == "for_statement"
            && let Some(init) = n.child_by_field_name("initializer")
            && init.kind() == "declaration"
            && owner(n) == Some(node)
        {
            loops.push((n, init));
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    loops.sort_by_key(|(n, _)| n.start_byte());
    for &(_, init) in &loops {
        // The loops of the block that declare the same variables the same way are fixed
        // together: one declaration at the start serves them all.
        let key = declared_key(init, src);
        let group: Vec<(Node, Node)> = loops.iter().copied().filter(|(_, i)| declared_key(*i, src) == key).collect();
        out.push(loop_declaration(&info, init, &group, src));
    }
}

/// What a loop header declares, as written without spacing or values (`int|i|*p`).
fn declared_key(init: Node, src: &str) -> String {
    let declarators = Declaration::read(init, src);
    let mut key = declarators.first().map(|(_, s)| squeeze(s)).unwrap_or_default();
    for (d, _) in &declarators {
        key.push('|');
        key.push_str(&squeeze(&d.written));
    }
    key
}

fn names(declarators: &[(Declarator, String)]) -> String {
    let names: Vec<String> = declarators.iter().map(|(d, _)| format!("`{}`", d.name)).collect();
    if names.is_empty() { "the variable".into() } else { crate::ir::words_list(&names) }
}

fn loop_declaration(info: &Block, init: Node, group: &[(Node, Node)], src: &str) -> Found {
    let declarators = Declaration::read(init, src);
    let at = span(init);
    let shown = names(&declarators);
    let message = format!(
        "C90 does not allow declaring {shown} inside `for (…)`: declare {} at the start of the block, before the loop",
        if declarators.len() > 1 { "them" } else { "it" }
    );
    let mut found = Found::new(Rule::LoopDeclaration, at, message);
    found.fix =
        hoist_loop(info, group, &declarators, src).map(|edits| (format!("Declare {shown} before the loop"), edits));
    found
}

/// `int i;` at the start of the block and `for (i = 0; …)` in each loop of `group` (the loops
/// of the block that declare the same); `None` when moving the declaration would change which
/// variable a name means.
fn hoist_loop(
    info: &Block,
    group: &[(Node, Node)],
    declarators: &[(Declarator, String)],
    src: &str,
) -> Option<Vec<TextEdit>> {
    if declarators.is_empty()
        || declarators.iter().any(|(d, s)| !d.scalar || s.split_whitespace().any(|w| w == "const"))
    {
        return None;
    }
    let specifiers = &declarators[0].1;
    let mut new_decls = Vec::new();
    for (d, _) in declarators {
        match info.declares(src, &d.name) {
            // Already declared at the start with the same type: the loop just uses it.
            Some(t) if squeeze(&t) == squeeze(&format!("{specifiers} {}", d.pointer)) => {}
            Some(_) => return None,
            None => {
                // Elsewhere in the block `d.name` means another variable, or is declared again.
                let others: Vec<Span> = loops_declaring(info.node, &d.name, src);
                if mentions(info.node, src, &d.name, span(info.node), &others) {
                    return None;
                }
                new_decls.push(d.written.clone());
            }
        }
    }
    let mut edits = Vec::new();
    for &(_, init) in group {
        let assignments: Vec<String> = Declaration::read(init, src)
            .iter()
            .filter_map(|(d, _)| d.value.map(|v| format!("{} = {}", d.name, text(v, src))))
            .collect();
        edits.push(TextEdit { span: span(init), new_text: format!("{};", assignments.join(", ")) });
    }
    if !new_decls.is_empty() {
        let decl = format!("{specifiers} {};", new_decls.join(", "));
        let insert = info.insert(src, &decl)?;
        if edits.iter().any(|e| e.span.start < insert.span.end) {
            return None;
        }
        edits.insert(0, insert);
    }
    Some(edits)
}

/// The `for` statements in `block` whose header declares `name` (their whole span).
fn loops_declaring(block: Node, name: &str, src: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut stack = vec![block];
    while let Some(n) = stack.pop() {
        if n.kind() == "for_statement"
            && let Some(init) = n.child_by_field_name("initializer")
            && init.kind() == "declaration"
            && Declaration::read(init, src).iter().any(|(d, _)| d.name == name)
        {
            out.push(span(n));
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace("* ", "*")
}

fn mixed_declaration(info: &Block, decl: Node, src: &str) -> Found {
    let declarators = Declaration::read(decl, src);
    let shown = names(&declarators);
    let message = format!(
        "C90 needs declarations at the start of a block, before any statement: {shown} {} declared after one",
        if declarators.len() > 1 { "are" } else { "is" }
    );
    let mut found = Found::new(Rule::MixedDeclaration, span(decl), message);
    found.fix = move_declaration(info, decl, &declarators, src)
        .map(|edits| (format!("Move the declaration of {shown} to the start of the block"), edits));
    found
}

/// The declaration moved to the block's start (constant initialisers), or declared there and
/// assigned in place (`int s; … s = a + b;`).
fn move_declaration(
    info: &Block,
    decl: Node,
    declarators: &[(Declarator, String)],
    src: &str,
) -> Option<Vec<TextEdit>> {
    let first = info.first_statement?;
    if declarators.is_empty() {
        return None;
    }
    // Between the block's start and the declaration, each name must mean nothing else.
    let before = Span::new(first.start_byte(), decl.start_byte());
    if declarators.iter().any(|(d, _)| mentions(info.node, src, &d.name, before, &[])) {
        return None;
    }
    let all_constant = declarators.iter().all(|(d, _)| d.value.is_none_or(is_constant));
    if all_constant {
        let insert = info.insert(src, text(decl, src))?;
        return Some(vec![insert, TextEdit { span: own_line_span(src, span(decl)), new_text: String::new() }]);
    }
    let specifiers = &declarators[0].1;
    if declarators.iter().any(|(d, _)| !d.scalar || d.value.is_some_and(|v| v.kind() == "initializer_list"))
        || specifiers.split_whitespace().any(|w| w == "const" || w == "static")
    {
        return None;
    }
    let written: Vec<&str> = declarators.iter().map(|(d, _)| d.written.as_str()).collect();
    let insert = info.insert(src, &format!("{specifiers} {};", written.join(", ")))?;
    let assignments: Vec<String> =
        declarators.iter().filter_map(|(d, _)| d.value.map(|v| format!("{} = {};", d.name, text(v, src)))).collect();
    let indent = line_indent(src, decl.start_byte());
    Some(vec![insert, TextEdit { span: span(decl), new_text: assignments.join(&format!("\n{indent}")) }])
}

/// `// text` → `/* text */` (C90 has no `//` comments).
fn comment(node: Node, src: &str, out: &mut Vec<Found>) {
    let written = text(node, src);
    let Some(body) = written.strip_prefix("//") else { return };
    let mut found = Found::new(Rule::LineComment, span(node), "C90 has no `//` comments: write `/* … */`");
    if !body.contains("*/") && !body.ends_with('\\') {
        let body = body.trim_end();
        let sep = if body.is_empty() || body.starts_with(' ') { "" } else { " " };
        found.fix = Some((
            "Write the comment as `/* … */`".into(),
            vec![TextEdit { span: span(node), new_text: format!("/*{sep}{body} */") }],
        ));
    }
    out.push(found);
}

/// printf and scanf directives C90 does not have: `%lf` in a printf (C90's `%f` prints a
/// `double`), the `ll`, `hh`, `z`, `j` and `t` length modifiers.
fn format_directives(call: Node, src: &str, out: &mut Vec<Found>) {
    let Some(function) = call.child_by_field_name("function").map(|f| text(f, src)) else { return };
    let (format_at, printf) = match function {
        "printf" => (0, true),
        "fprintf" | "sprintf" => (1, true),
        "scanf" => (0, false),
        "fscanf" | "sscanf" => (1, false),
        _ => return,
    };
    let Some(args) = call.child_by_field_name("arguments") else { return };
    let mut cursor = args.walk();
    let Some(format) = args.named_children(&mut cursor).filter(|a| a.kind() != "comment").nth(format_at) else {
        return;
    };
    if format.kind() != "string_literal" {
        return;
    }
    let raw = text(format, src);
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if bytes.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < bytes.len() && (b"-+ #0*.".contains(&bytes[i]) || bytes[i].is_ascii_digit()) {
            i += 1;
        }
        let modifier_at = i;
        while i < bytes.len() && b"hlLqjzt".contains(&bytes[i]) {
            i += 1;
        }
        let modifier = &raw[modifier_at..i];
        let Some(&conversion) = bytes.get(i) else { break };
        i += 1;
        let directive = &raw[start..i];
        let at = Span::new(format.start_byte() + start, format.start_byte() + i);
        let floating = b"feEgG".contains(&conversion);
        if printf && modifier == "l" && floating {
            let mut found = Found::new(
                Rule::FormatC90,
                at,
                format!("C90's printf has no `{directive}`: `%{}` prints a `double`", conversion as char),
            );
            let l = format.start_byte() + modifier_at;
            found.fix = Some((
                format!("Write `{}`", directive.replacen('l', "", 1)),
                vec![TextEdit { span: Span::new(l, l + 1), new_text: String::new() }],
            ));
            out.push(found);
        } else if matches!(modifier, "ll" | "hh" | "z" | "j" | "t") {
            out.push(Found::new(
                Rule::FormatC90,
                at,
                format!("C90 has no `{modifier}` length modifier (in `{directive}`)"),
            ));
        }
    }
}
