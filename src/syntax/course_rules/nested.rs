//! A function defined inside another: a GNU extension ISO C forbids ("ISO C forbids nested
//! functions", `-pedantic`), which students write when they forget the `}` of `main` or take
//! a function for a block.

use tree_sitter::Node;

use super::{Found, Rule, line_indent, own_line_span};
use crate::ir::{Span, TextEdit};

/// A function defined inside another (a GNU extension ISO C forbids). The fix moves it above
/// the function it is in, when it uses none of that function's names.
pub(super) fn check(root: Node, src: &str, out: &mut Vec<Found>) {
    let mut stack = vec![(root, None::<Node>)];
    while let Some((node, outer)) = stack.pop() {
        let mut inner_outer = outer;
        if node.kind() == "function_definition" {
            match outer {
                Some(outer) => {
                    out.push(nested_function(node, outer, src));
                    continue;
                }
                None => inner_outer = Some(node),
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor).map(|c| (c, inner_outer)));
    }
}

fn nested_function(inner: Node, outer: Node, src: &str) -> Found {
    let name_of = |f: Node| {
        let mut d = f.child_by_field_name("declarator");
        while let Some(n) = d {
            if n.kind() == "identifier" {
                return &src[n.byte_range()];
            }
            d = n.child_by_field_name("declarator");
        }
        ""
    };
    let (name, outer_name) = (name_of(inner), name_of(outer));
    let at =
        Span::new(inner.start_byte(), inner.child_by_field_name("body").map_or(inner.end_byte(), |b| b.start_byte()));
    let mut found = Found::new(
        Rule::NestedFunction,
        at,
        format!("C does not allow a function inside another: define `{name}` before `{outer_name}`, not inside it"),
    );
    // The names the outer function declares before it (its parameters, its variables): the
    // moved function must not use them.
    let mut outer_names: Vec<&str> = Vec::new();
    let mut stack = vec![outer];
    while let Some(n) = stack.pop() {
        if n.id() == inner.id() {
            continue;
        }
        if n.kind() == "identifier"
            && n.parent().is_some_and(|p| p.kind().ends_with("declarator") || p.kind() == "declaration")
            && n.start_byte() < inner.start_byte()
        {
            outer_names.push(&src[n.byte_range()]);
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    let mut uses_outer = false;
    let mut stack = vec![inner];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && outer_names.contains(&&src[n.byte_range()]) && &src[n.byte_range()] != name {
            uses_outer = true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    if !uses_outer && !name.is_empty() {
        let lines = own_line_span(src, Span::new(inner.start_byte(), inner.end_byte()));
        let text = &src[lines.start as usize..lines.end as usize];
        let indent = line_indent(src, inner.start_byte());
        let moved: String = text.lines().map(|l| l.strip_prefix(indent).unwrap_or(l)).collect::<Vec<_>>().join("\n");
        let at_outer = src[..outer.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        found.fix = Some((
            format!("Move `{name}` above `{outer_name}`"),
            vec![
                TextEdit { span: Span::new(at_outer, at_outer), new_text: format!("{}\n\n", moved.trim_end()) },
                TextEdit { span: lines, new_text: String::new() },
            ],
        ));
    }
    found
}
