//! The rules read on the typed IR: gcc's `-Wall`/`-Wextra` warnings students meet (unused and
//! uninitialised variables, a function that can end without `return`, a statement that does
//! nothing, `a < b < c`) and C90's variable-length arrays. Each mirrors what gcc reports when it
//! compiles at `-O0`, no more: `-Wuninitialized` there (its early pass) reports a read only
//! where the code runs on every run of the function (not in a branch, a loop body, the right of
//! `&&`, nor after a `return` that may have left) and no path to it sets the variable; a loop's
//! condition is tested once before the loop, and for a variable whose address is taken a write
//! anywhere in the loop reaches that first test too.

use std::collections::{BTreeSet, HashMap};

use tree_sitter::{Node, Tree};

use super::super::flags::CompilerFlags;
use super::{ArrayLength, Course, Found, Hints, Rule, line_indent, own_line_span};
use crate::ir::flow::{always_true, flow, is_exit, sequence};
use crate::ir::walk::{children, has_effects};
use crate::ir::{
    BinOp, Builtin, Callee, Expr, ExprKind, FuncId, Function, Init, Program, Span, Stmt, StmtKind, TextEdit, VarId,
    VarKind,
};

pub(super) fn check(tree: &Tree, src: &str, program: &Program, course: &Course, out: &mut Vec<Found>) {
    let (flags, hints) = (&course.flags, &course.hints);
    // Only the rules the flags enable run (with none, only the implicit declarations).
    let on = |rules: &[Rule]| rules.iter().any(|r| r.kind(flags).is_some());
    for (index, func) in program.funcs.iter().enumerate() {
        let Some(body) = &func.body else { continue };
        // A function with a construct mend does not model is not read whole: say nothing of it.
        if !func.unsupported.is_empty() {
            continue;
        }
        if on(&[Rule::VariableLengthArray]) {
            variable_length_arrays(tree, src, program, body, hints, out);
        }
        if on(&[Rule::UnusedVariable, Rule::SetButUnused, Rule::UnusedParameter]) {
            usage(tree, src, program, func, body, out);
        }
        if on(&[Rule::MissingReturn]) {
            missing_return(tree, src, program, FuncId(index as u32), body, flags, out);
        }
        if on(&[Rule::Uninitialized]) {
            uninitialized(tree, program, body, out);
        }
        if on(&[Rule::NoEffect]) {
            no_effect(src, body, out);
        }
        if on(&[Rule::AssignmentAsCondition]) {
            assignments_as_conditions(src, body, out);
        }
        if on(&[Rule::SignCompare]) {
            sign_comparisons(src, program, body, out);
        }
        if on(&[Rule::MainSignature]) {
            main_signature(tree, src, func, body, flags, out);
        }
        if on(&[Rule::FallThrough]) {
            fall_through(src, body, out);
        }
    }
    if on(&[Rule::ChainedComparison]) {
        chained_comparisons(tree.root_node(), src, out);
    }
    if on(&[Rule::MisleadingIndentation]) {
        misleading_indentation(tree.root_node(), src, out);
    }
    if on(&[Rule::UsedBeforeDeclared, Rule::ConflictingImplicit]) {
        used_before_declared(tree, src, program, out);
    }
    if on(&[Rule::NotInC90]) {
        not_in_c90(program, out);
    }
    if on(&[Rule::EmptyBody, Rule::AndWithinOr, Rule::DanglingElse, Rule::ComparisonInBitwise, Rule::CommaOperand]) {
        layout(tree.root_node(), src, out);
    }
}

/// Calls of library functions that C90 does not have (`roundf`, `isblank`, `strdup`): under
/// `-ansi` their headers do not declare them, so gcc assumes they return `int`, once per
/// function.
fn not_in_c90(program: &Program, out: &mut Vec<Found>) {
    let mut reported = BTreeSet::new();
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e| {
            let ExprKind::Call(Callee::Builtin(b), _) = &e.kind else { return };
            if b.is_c90() || !reported.insert(b.c_name()) {
                return;
            }
            let name = b.c_name();
            let at = e.span.start as usize;
            let message = format!(
                "`{name}` is not part of C90 (the course compiles with `-ansi`): its header does not declare it, so C assumes it returns `int`"
            );
            out.push(Found::new(Rule::NotInC90, Span::new(at, at + name.len()), message));
        });
    }
}

/// Slips of layout gcc warns about, each fixed without changing what the program does, except
/// the `;` after `if (…)`, whose deletion does what the indentation says:
/// - `if (x > 0);` (an empty body);
/// - `a && b || c` (parentheses around the `&&`);
/// - `if (a) if (b) f(); else g();` (braces around the inner `if`, which owns the `else`).
fn layout(root: Node, src: &str, out: &mut Vec<Found>) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
        let text = |x: Node| &src[x.byte_range()];
        match n.kind() {
            "if_statement" if n.child_by_field_name("alternative").is_none() => {
                let (Some(cond), Some(body)) =
                    (n.child_by_field_name("condition"), n.child_by_field_name("consequence"))
                else {
                    continue;
                };
                if body.kind() == "expression_statement" && text(body) == ";" {
                    let mut found = Found::new(
                        Rule::EmptyBody,
                        Span::new(body.start_byte(), body.end_byte()),
                        format!(
                            "this `;` is the whole body of `if {}`: what follows runs whatever the condition",
                            text(cond)
                        ),
                    );
                    found.fix = Some((
                        "Delete the `;` after the condition".into(),
                        vec![TextEdit { span: Span::new(cond.end_byte(), body.end_byte()), new_text: String::new() }],
                    ));
                    out.push(found);
                } else if body.kind() == "if_statement" && body.child_by_field_name("alternative").is_some() {
                    let mut found = Found::new(
                        Rule::DanglingElse,
                        Span::new(body.start_byte(), body.end_byte()),
                        "this `else` belongs to the inner `if`, whatever the indentation: braces say so".to_string(),
                    );
                    found.fix = Some((
                        "Put the inner `if` and its `else` in braces".into(),
                        vec![
                            TextEdit { span: Span::new(body.start_byte(), body.start_byte()), new_text: "{ ".into() },
                            TextEdit { span: Span::new(body.end_byte(), body.end_byte()), new_text: " }".into() },
                        ],
                    ));
                    out.push(found);
                }
            }
            "binary_expression" if n.child_by_field_name("operator").is_some_and(|o| text(o) == "||") => {
                for side in [n.child_by_field_name("left"), n.child_by_field_name("right")].into_iter().flatten() {
                    if side.kind() == "binary_expression"
                        && side.child_by_field_name("operator").is_some_and(|o| text(o) == "&&")
                    {
                        let mut found = Found::new(
                            Rule::AndWithinOr,
                            Span::new(side.start_byte(), side.end_byte()),
                            format!("`&&` is done before `||`: parentheses say so, `({})`", text(side)),
                        );
                        found.fix = Some((
                            format!("Write `({})`", text(side)),
                            vec![
                                TextEdit {
                                    span: Span::new(side.start_byte(), side.start_byte()),
                                    new_text: "(".into(),
                                },
                                TextEdit { span: Span::new(side.end_byte(), side.end_byte()), new_text: ")".into() },
                            ],
                        ));
                        out.push(found);
                    }
                }
            }
            "binary_expression"
                if n.child_by_field_name("operator").is_some_and(|o| matches!(text(o), "&" | "|" | "^")) =>
            {
                comparison_in_bitwise(n, src, out);
            }
            "comma_expression" => comma_operands(n, src, out),
            _ => {}
        }
    }
}

/// `x > y & x > z`: a comparison as an operand of `&`, `|` or `^` (gcc: "suggest parentheses
/// around comparison in operand of '&'"). With comparisons on both sides the student meant
/// `&&` (`||`), which the fix writes; with one, the fix adds the parentheses gcc asks for
/// (`a & (b == 0)`, what the program already does).
fn comparison_in_bitwise(n: Node, src: &str, out: &mut Vec<Found>) {
    let text = |n: Node| &src[n.byte_range()];
    let is_comparison = |side: &Node| {
        side.kind() == "binary_expression"
            && side
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o), "==" | "!=" | "<" | ">" | "<=" | ">="))
    };
    let Some(op) = n.child_by_field_name("operator") else { return };
    let sides: Vec<Node> =
        [n.child_by_field_name("left"), n.child_by_field_name("right")].into_iter().flatten().collect();
    let compared: Vec<&Node> = sides.iter().filter(|s| is_comparison(s)).collect();
    let Some(first) = compared.first() else { return };
    let mut found = Found::new(
        Rule::ComparisonInBitwise,
        Span::new(first.start_byte(), first.end_byte()),
        format!(
            "`{}` works on bits: `{}` is compared first, then its 0 or 1 combined bit by bit",
            text(op),
            text(**first)
        ),
    );
    let logical = match text(op) {
        "&" => Some("&&"),
        "|" => Some("||"),
        _ => None,
    };
    found.fix = match (compared.len(), logical) {
        (2, Some(logical)) => Some((
            format!("Write `{logical}`"),
            vec![TextEdit { span: Span::new(op.start_byte(), op.end_byte()), new_text: logical.into() }],
        )),
        _ => Some((
            format!("Write `({})`", text(**first)),
            vec![
                TextEdit { span: Span::new(first.start_byte(), first.start_byte()), new_text: "(".into() },
                TextEdit { span: Span::new(first.end_byte(), first.end_byte()), new_text: ")".into() },
            ],
        )),
    };
    out.push(found);
}

/// An operand of `,` that does nothing (gcc: "left-hand operand of comma expression has no
/// effect"): the left one always, the right one where the comma's value is not used either
/// (`while (i = 1, 1 <= n, i++)`). In a condition of two comparisons the student meant `&&`
/// (`for (…; i <= n, 1 <= j; …)`), which the fix writes.
fn comma_operands(n: Node, src: &str, out: &mut Vec<Found>) {
    let text = |n: Node| &src[n.byte_range()];
    fn has_effects(n: Node) -> bool {
        if matches!(n.kind(), "assignment_expression" | "update_expression" | "call_expression") {
            return true;
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        children.into_iter().any(has_effects)
    }
    let (Some(left), Some(right)) = (n.child_by_field_name("left"), n.child_by_field_name("right")) else { return };
    let parent = n.parent();
    let value_discarded = parent.is_some_and(|p| {
        p.kind() == "expression_statement"
            || (p.kind() == "comma_expression" && p.child_by_field_name("left").is_some_and(|l| l.id() == n.id()))
            || (p.kind() == "for_statement"
                && ["initializer", "update"].iter().any(|f| p.child_by_field_name(f).is_some_and(|c| c.id() == n.id())))
    });
    let condition = parent.is_some_and(|p| {
        p.kind() == "parenthesized_expression"
            && p.parent().is_some_and(|g| matches!(g.kind(), "if_statement" | "while_statement"))
            || p.kind() == "for_statement" && p.child_by_field_name("condition").is_some_and(|c| c.id() == n.id())
    });
    let is_test = |side: Node| {
        side.kind() == "binary_expression"
            && side
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o), "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||"))
    };
    let comma = n.child_by_field_name("operator").or_else(|| left.next_sibling()).filter(|c| text(*c) == ",");
    for (side, which) in [(left, "before"), (right, "after")] {
        if has_effects(side) || (which == "after" && !value_discarded) {
            continue;
        }
        let message = if condition && which == "before" {
            format!("`{}` before the comma does nothing: the condition is only `{}`", text(side), text(right))
        } else {
            format!("`{}` {which} the comma does nothing", text(side))
        };
        let mut found = Found::new(Rule::CommaOperand, Span::new(side.start_byte(), side.end_byte()), message);
        if condition
            && which == "before"
            && is_test(left)
            && is_test(right)
            && let Some(comma) = comma
        {
            found.fix = Some((
                "Write `&&` for the comma: both must hold".into(),
                vec![TextEdit { span: Span::new(comma.start_byte(), comma.end_byte()), new_text: " &&".into() }],
            ));
        }
        out.push(found);
    }
}

/// A `case` whose statements run on into the next `case` (no `break`, `return` or comment
/// saying so): gcc's `-Wimplicit-fallthrough`. The fix adds the `break;` that is usually missing.
fn fall_through(src: &str, body: &Stmt, out: &mut Vec<Found>) {
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        let StmtKind::Switch { arms, .. } = &s.kind else { return };
        for pair in arms.windows(2) {
            let (arm, next) = (&pair[0], &pair[1]);
            let Some(last) = arm.body.last() else { continue };
            if !sequence(&arm.body).normal {
                continue;
            }
            let (end, label) = (last.span.end as usize, next.label_span.start as usize);
            if end > label || src[end..label].to_ascii_lowercase().contains("fall") {
                continue;
            }
            let mut found = Found::new(
                Rule::FallThrough,
                last.span,
                "this `case` runs on into the next one: a `break;` ends it".to_string(),
            );
            let indent = line_indent(src, last.span.start as usize);
            found.fix = Some((
                "Add `break;`".into(),
                vec![TextEdit { span: Span::new(end, end), new_text: format!("\n{indent}break;") }],
            ));
            out.push(found);
        }
    });
}

/// A call of a function of the file before any declaration of it: C90 declares it implicitly
/// as returning `int` (a conflict when its definition returns something else), C99 does not
/// allow it. The fix is the prototype, written from the definition, before the function
/// that first calls it.
fn used_before_declared(tree: &Tree, src: &str, program: &Program, out: &mut Vec<Found>) {
    // The first declaration or definition of each function, and every definition's header.
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut headers: HashMap<String, String> = HashMap::new();
    let mut definitions: Vec<(usize, usize)> = Vec::new();
    // Top-level items, and declarations in blocks (`void piramide();` inside `main`).
    let mut items = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).filter(|c| c.kind() != "expression_statement"));
        if matches!(n.kind(), "declaration" | "function_definition") {
            items.push(n);
        }
    }
    items.sort_by_key(|n| n.start_byte());
    for item in items {
        let declarator = item.child_by_field_name("declarator");
        let Some(function) = declarator.filter(|d| d.kind() == "function_declarator") else { continue };
        let Some(name) = function.child_by_field_name("declarator").map(|n| src[n.byte_range()].to_string()) else {
            continue;
        };
        first.entry(name.clone()).or_insert(item.start_byte());
        if item.kind() == "function_definition"
            && let Some(body) = item.child_by_field_name("body")
        {
            headers.entry(name).or_insert_with(|| src[item.start_byte()..body.start_byte()].trim_end().to_string());
            definitions.push((item.start_byte(), item.end_byte()));
        }
    }
    let mut reported = BTreeSet::new();
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e| {
            let ExprKind::Call(Callee::Func(id), _) = &e.kind else { return };
            let callee = program.func(*id);
            let at = e.span.start as usize;
            if first.get(&callee.name).is_none_or(|d| *d <= at) || !reported.insert(id.0) {
                return;
            }
            let header = headers.get(&callee.name);
            let conflict = callee.ret != crate::ir::Type::INT;
            let rule = if conflict { Rule::ConflictingImplicit } else { Rule::UsedBeforeDeclared };
            let prototype = header.map_or_else(|| format!("{}(…)", callee.name), |h| format!("{h};"));
            let message = if conflict {
                format!(
                    "`{}` is called before it is declared, so C assumes it returns `int`, which its definition contradicts: declare it first (`{prototype}`)",
                    callee.name
                )
            } else {
                format!("`{}` is called before it is declared: declare it first (`{prototype}`)", callee.name)
            };
            let mut found = Found::new(rule, Span::new(at, at + callee.name.len()), message);
            // Before the function that holds the first call, on a line of its own.
            let holder = definitions.iter().find(|(s, e)| *s <= at && at < *e);
            if let (Some(header), Some((start, _))) = (header, holder) {
                found.fix = Some((
                    format!("Declare `{}` before its first use", callee.name),
                    vec![TextEdit { span: Span::new(*start, *start), new_text: format!("{header};\n\n") }],
                ));
            }
            out.push(found);
        });
    }
}

/// The source text of `span`, when it is a real stretch of the text (not a macro's use site
/// standing for every node of the expansion).
fn source(src: &str, span: Span) -> Option<&str> {
    src.get(span.start as usize..span.end as usize).filter(|t| !t.is_empty())
}

/// `if (x = 5)`: an assignment where a condition is tested. Extra parentheses
/// (`while ((c = getchar()))`) say it is meant, as for gcc.
fn assignments_as_conditions(src: &str, body: &Stmt, out: &mut Vec<Found>) {
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        let cond = match &s.kind {
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => cond,
            StmtKind::For { cond: Some(cond), .. } => cond,
            _ => return,
        };
        let e = cond.strip_implicit();
        let ExprKind::Assign(lhs, rhs) = &e.kind else { return };
        // The condition's own parenthesis and one more before the assignment.
        let before = src[..lhs.span.start as usize].trim_end();
        if let Some(rest) = before.strip_suffix('(')
            && rest.trim_end().ends_with('(')
        {
            return;
        }
        let found = operator_slip(src, e.span, lhs, rhs, ("=", "=="), |l, r| {
            format!("`{l} = {r}` gives `{l}` a new value instead of comparing: to compare, write `{l} == {r}`")
        });
        out.extend(found.map(|f| f.rule(Rule::AssignmentAsCondition)));
    });
}

/// `=` written for `==` or the reverse, between `lhs` and `rhs` of the expression at `span`:
/// the finding (its rule set by the caller) with the other operator as its fix.
fn operator_slip(
    src: &str,
    span: Span,
    lhs: &Expr,
    rhs: &Expr,
    (written, meant): (&str, &str),
    message: impl FnOnce(&str, &str) -> String,
) -> Option<Found> {
    let (l, r) = (source(src, lhs.span)?, source(src, rhs.span)?);
    let at = lhs.span.end as usize + src.get(lhs.span.end as usize..rhs.span.start as usize)?.find(written)?;
    let mut found = Found::new(Rule::NoEffect, span, message(l, r));
    found.fix = Some((
        format!("Replace `{written}` with `{meant}`"),
        vec![TextEdit { span: Span::new(at, at + written.len()), new_text: meant.into() }],
    ));
    Some(found)
}

/// The type an operand had before the usual arithmetic conversions.
fn written_type(e: &Expr) -> &crate::ir::Type {
    match &e.kind {
        ExprKind::Cast { expr, implicit: true } => written_type(expr),
        _ => &e.ty,
    }
}

/// `i < strlen(s)`: a signed value compared as unsigned (a negative `i` is a huge number).
/// gcc says nothing when the signed side is a constant that is not negative.
fn sign_comparisons(src: &str, program: &Program, body: &Stmt, out: &mut Vec<Found>) {
    let mut check = |e: &Expr| {
        let ExprKind::Binary(op, a, b) = &e.kind else { return };
        if !op.is_comparison() || a.ty.as_int().is_none_or(|t| t.signed) {
            return;
        }
        let (ta, tb) = (written_type(a).as_int(), written_type(b).as_int());
        let (Some(ta), Some(tb)) = (ta, tb) else { return };
        let promoted_unsigned = |t: crate::ir::IntType| !t.signed && t.kind >= crate::ir::IntKind::Int;
        let (signed, unsigned) = match (ta.signed, tb.signed) {
            (true, false) if promoted_unsigned(tb) => (a, b),
            (false, true) if promoted_unsigned(ta) => (b, a),
            _ => return,
        };
        if matches!(signed.strip_implicit().kind, ExprKind::Int(n) if n >= 0) {
            return;
        }
        let (Some(whole), Some(s_text), Some(u_text)) = (
            source(src, Span::new(a.span.start as usize, b.span.end as usize)),
            source(src, signed.strip_implicit().span),
            source(src, unsigned.strip_implicit().span),
        ) else {
            return;
        };
        let signed_name = program.type_name(written_type(signed));
        let mut found = Found::new(
            Rule::SignCompare,
            Span::new(a.span.start as usize, b.span.end as usize),
            format!(
                "`{whole}` compares `{s_text}` (a signed `{signed_name}`) with `{u_text}` (unsigned): a negative value would compare as a huge number"
            ),
        );
        let primary = matches!(
            unsigned.strip_implicit().kind,
            ExprKind::Var(_)
                | ExprKind::Call(..)
                | ExprKind::Index(..)
                | ExprKind::Member { .. }
                | ExprKind::SizeOf { .. }
        );
        let cast = if primary { format!("({signed_name}){u_text}") } else { format!("({signed_name})({u_text})") };
        found.fix = Some((
            format!("Compare with `{cast}`"),
            vec![TextEdit { span: unsigned.strip_implicit().span, new_text: cast }],
        ));
        out.push(found);
    };
    crate::ir::walk::walk_stmt(body, &mut check);
}

/// `void main()`: `main` returns an `int` to the system. The fix writes `int` and makes every
/// way out of `main` return 0.
fn main_signature(tree: &Tree, src: &str, func: &Function, body: &Stmt, flags: &CompilerFlags, out: &mut Vec<Found>) {
    if func.name != "main" {
        return;
    }
    if !matches!(func.params.len(), 0 | 2) {
        out.push(Found::new(
            Rule::MainSignature,
            func.name_span,
            "`main` takes no parameters (`int main(void)`) or two (`int main(int argc, char *argv[])`)",
        ));
    }
    if func.ret == crate::ir::Type::Int(crate::ir::IntType::INT) {
        return;
    }
    let mut found =
        Found::new(Rule::MainSignature, func.name_span, "`main` must return an `int` to the system: write `int main`");
    let ty = tree
        .root_node()
        .descendant_for_byte_range(func.name_span.start as usize, func.name_span.end as usize)
        .and_then(|mut n| {
            while n.kind() != "function_definition" {
                n = n.parent()?;
            }
            n.child_by_field_name("type")
        })
        .filter(|t| t.kind() == "primitive_type" || t.kind() == "sized_type_specifier");
    if let Some(ty) = ty {
        let mut edits = vec![TextEdit { span: Span::new(ty.start_byte(), ty.end_byte()), new_text: "int".into() }];
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if matches!(s.kind, StmtKind::Return(None))
                && let Some(text) = source(src, s.span)
                && text.starts_with("return")
            {
                edits.push(TextEdit { span: s.span, new_text: "return 0;".into() });
            }
        });
        if flags.is_c90()
            && flow(body).normal
            && let Some(edit) = return_at_end(src, body, "0")
        {
            edits.push(edit);
        }
        found.fix = Some(("Write `int main`".into(), edits));
    }
    out.push(found);
}

/// gcc's `-Wmisleading-indentation` (gcc 12's rules, measured against it: visual columns, a
/// tab to the next multiple of 8). A clause (`if`, `else`, `while`, `for`) whose body is not a
/// block, and the token after the body (neither `}` nor `else`):
/// - on the body's line: misleading when the body is on a later line than the keyword
///   (`if (c)\n    a; b;`), or on the keyword's line with the keyword first on it (`if (c)
///   a; b;`);
/// - on a later line, first on it: misleading at the body's column when the body is on a line
///   of its own, deeper than the clause (`if (c)\n    a;\n    b;`; for `else`, the column of
///   its line); after `while (c);` (a `;` body on the keyword's line), anywhere deeper than
///   the clause's line. A `;` on a line of its own, and a body on the keyword's line followed
///   by lines at any depth, are not misleading.
///
/// The fix does what the indentation says: braces around the body and the lines laid out as
/// its continuation, or the `;` after `while (…)`/`for (…)` deleted.
fn misleading_indentation(root: Node, src: &str, out: &mut Vec<Found>) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
        let (keyword, kw, header_end, body) = match n.kind() {
            "if_statement" => match n.child_by_field_name("alternative") {
                // The consequence is followed by `else`: never misleading.
                None => (
                    "if",
                    n.start_byte(),
                    n.child_by_field_name("condition").map(|c| c.end_byte()),
                    n.child_by_field_name("consequence"),
                ),
                Some(alt) => {
                    let stmt = if alt.kind() == "else_clause" { alt.named_child(0) } else { Some(alt) };
                    let Some(else_kw) = alt.child(0).filter(|k| k.kind() == "else") else { continue };
                    // `else if` on one line is a chain, not a clause of its own.
                    let chained =
                        |s: &Node| s.kind() == "if_statement" && s.start_position().row == else_kw.start_position().row;
                    ("else", else_kw.start_byte(), Some(else_kw.end_byte()), stmt.filter(|s| !chained(s)))
                }
            },
            "while_statement" => (
                "while",
                n.start_byte(),
                n.child_by_field_name("condition").map(|c| c.end_byte()),
                n.child_by_field_name("body"),
            ),
            "for_statement" => (
                "for",
                n.start_byte(),
                n.child_by_field_name("body").and_then(|b| b.prev_sibling()).map(|p| p.end_byte()),
                n.child_by_field_name("body"),
            ),
            _ => continue,
        };
        let (Some(header_end), Some(body)) = (header_end, body) else { continue };
        if body.kind() == "compound_statement" {
            continue;
        }
        let semicolon = body.kind() == "expression_statement" && src[body.byte_range()] == *";";
        // `if (c);` is the empty-body rule's (one message per mistake).
        if semicolon && keyword == "if" {
            continue;
        }
        let Some(next) = next_token(src, body.end_byte()) else { continue };
        let row = |offset: usize| src[..offset].matches('\n').count();
        let (kw_row, body_row, next_row) = (row(kw), row(body.start_byte()), row(next));
        let kw_first = visual_column(src, kw) == first_column(src, kw);
        let same_line = next_row == body_row && (kw_row < body_row || kw_first);
        let later_line = next_row > body_row
            && first_column(src, next) == visual_column(src, next)
            && if semicolon {
                body_row == kw_row && visual_column(src, next) > first_column(src, kw)
            } else {
                let clause = if keyword == "else" { first_column(src, kw) } else { visual_column(src, kw) };
                let body_column = visual_column(src, body.start_byte());
                body_row > kw_row && visual_column(src, next) == body_column && clause != body_column
            };
        if !same_line && !later_line {
            continue;
        }
        // The statements laid out as the body's continuation: on its line, or on the following
        // lines at the column of the first one.
        let Some(first) = statement_at(root, next) else { continue };
        let mut continued = vec![first];
        let mut sibling = first.next_named_sibling();
        while let Some(s) = sibling {
            let last = continued.last().expect("one at least");
            let follows = if same_line {
                row(s.start_byte()) == body_row
            } else {
                row(s.start_byte()) > row(last.end_byte())
                    && visual_column(src, s.start_byte()) == visual_column(src, next)
                    && first_column(src, s.start_byte()) == visual_column(src, s.start_byte())
            };
            if s.kind() == "comment" || !follows || s.kind() == "case_statement" {
                break;
            }
            continued.push(s);
            sibling = s.next_named_sibling();
        }
        let last = continued.last().expect("one at least");
        let shown = |node: Node| src[node.byte_range()].lines().next().unwrap_or("").trim().to_string();
        let message = if semicolon {
            format!(
                "this line is indented as if the `{keyword}` repeated it, but the `;` right after `{keyword} (…)` is all the `{keyword}` controls"
            )
        } else if same_line {
            format!("without braces the `{keyword}` controls only `{}`, not the rest of this line", shown(body))
        } else {
            format!(
                "this line is indented as if the `{keyword}` controlled it, but without braces the `{keyword}` controls only line {}",
                body_row + 1
            )
        };
        let mut found =
            Found::new(Rule::MisleadingIndentation, Span::new(first.start_byte(), first.end_byte()), message);
        // Braces from the header to the last line laid out as the body (after `while (…);`
        // the `;` goes too); closed on that line when it is the body's own line.
        let (title, opening, closing) = if semicolon {
            (
                format!("Delete the `;` and add braces so the `{keyword}` repeats the indented lines"),
                Span::new(header_end, body.end_byte()),
                format!("\n{}}}", line_indent(src, kw)),
            )
        } else if same_line {
            (
                format!("Add braces so the `{keyword}` controls the whole line"),
                Span::new(header_end, header_end),
                " }".to_string(),
            )
        } else {
            (
                format!("Add braces so the `{keyword}` controls the indented lines"),
                Span::new(header_end, header_end),
                format!("\n{}}}", line_indent(src, kw)),
            )
        };
        found.fix = Some((
            title,
            vec![
                TextEdit { span: opening, new_text: " {".into() },
                TextEdit { span: Span::new(last.end_byte(), last.end_byte()), new_text: closing },
            ],
        ));
        out.push(found);
    }
}

/// The start of the token after `offset` (comments and preprocessor lines skipped), unless it
/// is `}` or `else` or the end of the file: what gcc compares the body with.
fn next_token(src: &str, mut offset: usize) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        while offset < b.len() && b[offset].is_ascii_whitespace() {
            offset += 1;
        }
        let rest = &src[offset..];
        if rest.starts_with("//") || (rest.starts_with('#') && first_column(src, offset) == visual_column(src, offset))
        {
            offset += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            offset += rest.find("*/").map_or(rest.len(), |i| i + 2);
        } else {
            break;
        }
    }
    let rest = &src[offset..];
    let is_else = rest.starts_with("else") && !rest[4..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
    (offset < b.len() && !rest.starts_with('}') && !is_else).then_some(offset)
}

/// The outermost statement that starts at `offset`.
fn statement_at(root: Node, offset: usize) -> Option<Node> {
    let mut n = root.descendant_for_byte_range(offset, offset)?;
    let mut found = None;
    loop {
        if n.start_byte() != offset {
            break;
        }
        if n.kind().ends_with("statement") || n.kind() == "declaration" {
            found = Some(n);
        }
        match n.parent() {
            Some(p) => n = p,
            None => break,
        }
    }
    found
}

/// The visual column of `offset` on its line (a tab moves to the next multiple of 8, as gcc
/// counts).
fn visual_column(src: &str, offset: usize) -> usize {
    let start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    src[start..offset].chars().fold(0, |col, c| if c == '\t' { (col / 8 + 1) * 8 } else { col + 1 })
}

/// The visual column of the first character on `offset`'s line that is not a space or a tab.
fn first_column(src: &str, offset: usize) -> usize {
    let start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    visual_column(src, start + line_indent(src, offset).len())
}

fn variable_length_arrays(tree: &Tree, src: &str, program: &Program, body: &Stmt, hints: &Hints, out: &mut Vec<Found>) {
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        if let StmtKind::VlaDecl { var, .. } = &s.kind {
            let v = program.var(*var);
            let mut found = Found::new(
                Rule::VariableLengthArray,
                v.span,
                format!(
                    "C90 does not allow an array whose length is a variable: give `{}` a constant length, the largest the exercise allows",
                    v.name
                ),
            );
            found.fix =
                hints.array_length.as_ref().and_then(|length| fixed_length(tree, src, program, v.span, length)).map(
                    |(written, edits)| {
                        (format!("Give `{}` the fixed length `{written}`, as the reference does", v.name), edits)
                    },
                );
            out.push(found);
        }
        // A parameter with rows of a runtime length (`int a[][m]`): its hidden row length.
        if let StmtKind::Decl { var, .. } = &s.kind
            && let Some(name) = program.var(*var).rows_of()
        {
            out.push(Found::new(
                Rule::VariableLengthArray,
                program.var(*var).span,
                format!(
                    "C90 does not allow an array whose length is a variable: give the rows of `{name}` a constant length"
                ),
            ));
        }
    });
}

/// The edits giving the array declared at `name` the reference's length in each dimension
/// whose length is not a constant, written with the reference's macro when this file defines
/// it with the same value.
fn fixed_length(
    tree: &Tree,
    src: &str,
    program: &Program,
    name: Span,
    length: &ArrayLength,
) -> Option<(String, Vec<TextEdit>)> {
    let written = length
        .macro_name
        .as_ref()
        .filter(|m| program.macros.iter().any(|(n, body, _)| n == *m && body.trim() == length.length.to_string()))
        .cloned()
        .unwrap_or_else(|| length.length.to_string());
    let mut node = tree.root_node().descendant_for_byte_range(name.start as usize, name.end as usize)?;
    let mut edits = Vec::new();
    while let Some(parent) = node.parent().filter(|p| p.kind() == "array_declarator") {
        if let Some(size) = parent.child_by_field_name("size")
            && size.kind() != "number_literal"
        {
            edits.push(TextEdit { span: Span::new(size.start_byte(), size.end_byte()), new_text: written.clone() });
        }
        node = parent;
    }
    let _ = src;
    edits.sort_by_key(|e| e.span.start);
    (!edits.is_empty()).then_some((written, edits))
}

/// How a function's body uses one variable.
#[derive(Default)]
struct Use {
    reads: u32,
    /// Assignments (`n = …`; `n++` and `n += …` read it too).
    sets: u32,
    address: bool,
    /// Its initialiser calls a function or changes something (deleting it would change that).
    init_has_effects: bool,
    /// How to take out each place that sets it (`n = 0;`, `n = f(x);`, `a[i] = c;`, `k = 0` in
    /// a `for`): when its value is never read, that changes nothing else.
    unsets: Vec<Removal>,
}

/// How one setting of a never-read variable comes out of the program.
#[derive(Clone, Copy)]
enum Removal {
    /// A statement that only sets it: its line goes (just the statement when it shares the line).
    Statement(Span),
    /// A `for` clause that only sets it (`k = 0`).
    Clause(Span),
    /// `n = ` before a value that calls or changes something (the span), which stays as a
    /// statement of its own (`leLinha(s);`).
    Prefix(Span, Span),
}

struct Uses<'p> {
    program: &'p Program,
    func: &'p Function,
    of: HashMap<VarId, Use>,
}

impl Uses<'_> {
    fn var(e: &Expr) -> Option<VarId> {
        match e.strip_implicit().kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }

    fn expr(&mut self, e: &Expr, value_used: bool) {
        match &e.kind {
            ExprKind::Var(v) => self.of.entry(*v).or_default().reads += 1,
            ExprKind::Assign(lhs, rhs) => {
                self.target(lhs, value_used, false);
                self.expr(rhs, true);
            }
            // `n++` and `n += 1` read `n`: gcc counts them as uses.
            ExprKind::CompoundAssign { lhs, rhs, .. } => {
                self.target(lhs, true, true);
                self.expr(rhs, true);
            }
            ExprKind::IncDec(_, operand) => self.target(operand, true, true),
            ExprKind::AddrOf(inner) => match Self::var(inner) {
                Some(v) => self.of.entry(v).or_default().address = true,
                None => self.expr(inner, true),
            },
            ExprKind::Comma(a, b) => {
                self.expr(a, false);
                self.expr(b, value_used);
            }
            // `sizeof x` names `x` (gcc counts it as a use); the IR keeps only the text.
            ExprKind::SizeOf { text, .. } => {
                let words: BTreeSet<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
                for &v in self.func.locals.iter().chain(&self.func.params) {
                    if words.contains(self.program.var(v).name.as_str()) {
                        self.of.entry(v).or_default().reads += 1;
                    }
                }
            }
            _ => children(e).into_iter().for_each(|c| self.expr(c, true)),
        }
    }

    /// The object an assignment or `++` changes: a plain variable is set (and read when the
    /// value of the whole expression is used); anything else (`a[i]`, `*p`) reads its parts.
    /// `reads_old`: the old value is read too (`n++`, `a[i] += 1`).
    fn target(&mut self, lhs: &Expr, value_used: bool, reads_old: bool) {
        match Self::var(lhs) {
            Some(v) => {
                let u = self.of.entry(v).or_default();
                u.sets += 1;
                u.reads += u32::from(value_used);
            }
            None => match self.element_of_local_array(lhs).filter(|_| !reads_old) {
                // `s[i] = c`: sets an element of `s` (gcc: `s` set but not used, when
                // nothing reads it); the indices are read.
                Some((array, indices)) => {
                    self.of.entry(array).or_default().sets += 1;
                    indices.into_iter().for_each(|i| self.expr(i, true));
                }
                None => self.expr(lhs, true),
            },
        }
    }

    /// `a[i]` or `a[i][j]` of a local array `a`: the array and the indices.
    fn element_of_local_array<'e>(&self, e: &'e Expr) -> Option<(VarId, Vec<&'e Expr>)> {
        let mut indices = Vec::new();
        let mut at = e.strip_implicit();
        while let ExprKind::Index(base, index) = &at.kind {
            indices.push(&**index);
            at = base.strip_implicit();
        }
        let v = Self::var(at).filter(|_| !indices.is_empty())?;
        (self.func.locals.contains(&v) && matches!(self.program.var(v).ty, crate::ir::Type::Array(..)))
            .then_some((v, indices))
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e, false),
            StmtKind::Decl { var, init: Some(init) } => {
                let mut effects = false;
                walk_init_in_order(init, &mut |e| effects |= calls_or_changes(e));
                self.of.entry(*var).or_default().init_has_effects = effects;
                self.init(init);
            }
            StmtKind::Decl { init: None, .. } | StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {}
            StmtKind::VlaDecl { len, row, .. } => {
                self.expr(len, true);
                if let Some((_, per)) = row {
                    self.expr(per, true);
                }
            }
            StmtKind::Return(value) => value.iter().for_each(|e| self.expr(e, true)),
            StmtKind::If { cond, then, els } => {
                self.expr(cond, true);
                self.stmt(then);
                els.iter().for_each(|e| self.stmt(e));
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, true);
                self.stmt(body);
            }
            StmtKind::For { init, cond, step, body } => {
                let clauses = init.iter().filter_map(|s| match &s.kind {
                    StmtKind::Expr(e) => Some(e),
                    _ => None,
                });
                for e in clauses.chain(step.iter()) {
                    if let Some((v, unset)) = self.unset(e, None) {
                        self.of.entry(v).or_default().unsets.push(unset);
                    }
                }
                init.iter().for_each(|s| self.stmt(s));
                cond.iter().for_each(|c| self.expr(c, true));
                step.iter().for_each(|e| self.expr(e, false));
                self.stmt(body);
            }
            StmtKind::Switch { cond, arms } => {
                self.expr(cond, true);
                arms.iter().flat_map(|a| &a.body).for_each(|s| self.item(s));
            }
            StmtKind::Block(items) => items.iter().for_each(|s| self.item(s)),
        }
    }

    /// A statement of a block (deleting it leaves the block well formed).
    fn item(&mut self, s: &Stmt) {
        if let StmtKind::Expr(e) = &s.kind
            && let Some((v, unset)) = self.unset(e, Some(s.span))
        {
            self.of.entry(v).or_default().unsets.push(unset);
        }
        self.stmt(s);
    }

    /// How to take out `e`, a whole statement (`statement`) or a `for` clause, when it only
    /// sets a variable (or an element of a local array) from indices that change nothing.
    fn unset(&self, e: &Expr, statement: Option<Span>) -> Option<(VarId, Removal)> {
        let ExprKind::Assign(lhs, rhs) = &e.kind else { return None };
        let pure = |x: &Expr| !calls_or_changes(x);
        let v = match Self::var(lhs) {
            Some(v) => v,
            None => {
                let (array, indices) = self.element_of_local_array(lhs)?;
                indices.into_iter().all(pure).then_some(array)?
            }
        };
        let unset = match statement {
            _ if !pure(rhs) => Removal::Prefix(Span::new(lhs.span.start as usize, rhs.span.start as usize), rhs.span),
            Some(statement) => Removal::Statement(statement),
            None => Removal::Clause(e.span),
        };
        Some((v, unset))
    }

    fn init(&mut self, init: &Init) {
        match init {
            Init::Expr(e) => self.expr(e, true),
            Init::List(items, _) => items.iter().for_each(|i| self.init(i)),
        }
    }
}

/// `e` calls a function (even a pure one from the library: deleting the call is not what a
/// student expects) or changes something: taking it out of the program is not a sure fix.
fn calls_or_changes(e: &Expr) -> bool {
    let mut calls = false;
    crate::ir::walk::walk_expr(e, &mut |x| calls |= matches!(x.kind, ExprKind::Call(..)));
    calls || has_effects(e)
}

/// Unused variables and parameters, and variables only ever set.
fn usage(tree: &Tree, src: &str, program: &Program, func: &Function, body: &Stmt, out: &mut Vec<Found>) {
    let mut uses = Uses { program, func, of: HashMap::new() };
    uses.stmt(body);
    for &v in &func.locals {
        let var = program.var(v);
        let u = uses.of.remove(&v).unwrap_or_default();
        // A hidden local (a row length) is the front end's, not the student's.
        if u.reads > 0 || u.address || var.name.is_empty() || var.hidden() {
            continue;
        }
        if u.sets == 0 {
            let mut found =
                Found::new(Rule::UnusedVariable, var.span, format!("`{}` is declared but never used", var.name));
            if !u.init_has_effects {
                found.fix = delete_declarator(tree, src, var.span)
                    .map(|edit| (format!("Delete the unused variable `{}`", var.name), vec![edit]));
            }
            out.push(found);
        } else if var.kind == VarKind::Local && (var.ty.is_scalar() || matches!(var.ty, crate::ir::Type::Array(..))) {
            let mut found = Found::new(
                Rule::SetButUnused,
                var.span,
                match var.ty {
                    crate::ir::Type::Array(..) => format!("the values stored in `{}` are never read", var.name),
                    _ => format!("`{}` is given a value that is never used", var.name),
                },
            );
            if u.unsets.len() == u.sets as usize
                && !u.init_has_effects
                && let Some(declaration) = delete_declarator(tree, src, var.span)
            {
                let kept: Vec<Span> = u
                    .unsets
                    .iter()
                    .filter_map(|x| match *x {
                        Removal::Prefix(_, value) => Some(value),
                        _ => None,
                    })
                    .collect();
                let mut edits: Vec<TextEdit> = u
                    .unsets
                    .iter()
                    .map(|x| match *x {
                        Removal::Statement(s) => own_line_span(src, s),
                        Removal::Clause(s) | Removal::Prefix(s, _) => s,
                    })
                    .map(|span| TextEdit { span, new_text: String::new() })
                    .collect();
                edits.push(declaration);
                edits.sort_by_key(|e| e.span.start);
                if edits.windows(2).all(|w| w[0].span.end <= w[1].span.start) {
                    let title = match kept.as_slice() {
                        [] => format!("Delete `{}` and the assignments to it", var.name),
                        [value] => format!("Delete `{}`, keeping `{}` on its own", var.name, &src[value.range()]),
                        [value, more @ ..] => format!(
                            "Delete `{}`, keeping `{}` and {} more on their own",
                            var.name,
                            &src[value.range()],
                            more.len()
                        ),
                    };
                    found.fix = Some((title, edits));
                }
            }
            out.push(found);
        }
    }
    let unused: Vec<VarId> = func
        .params
        .iter()
        .copied()
        .filter(|p| uses.of.get(p).is_none_or(|u| u.reads == 0 && u.sets == 0 && !u.address))
        .filter(|p| !program.var(*p).name.is_empty())
        .collect();
    // `int main(int argc, char *argv[])` using neither: `int main(void)` says so.
    let main_void = (func.name == "main" && unused.len() == func.params.len())
        .then(|| parameter_list(tree, func.name_span))
        .flatten()
        .map(|list| ("Write `main(void)`".to_string(), vec![TextEdit { span: list, new_text: "(void)".into() }]));
    for p in unused {
        let var = program.var(p);
        let mut found =
            Found::new(Rule::UnusedParameter, var.span, format!("the parameter `{}` is never used", var.name));
        found.fix = main_void.clone();
        out.push(found);
    }
}

/// The parameter list `(…)` of the function named at `name`.
fn parameter_list(tree: &Tree, name: Span) -> Option<Span> {
    let node = tree.root_node().descendant_for_byte_range(name.start as usize, name.end as usize)?;
    let declarator = node.parent().filter(|p| p.kind() == "function_declarator")?;
    let params = declarator.child_by_field_name("parameters")?;
    Some(Span::new(params.start_byte(), params.end_byte()))
}

/// The edit deleting the declarator named at `name` from its declaration (the whole
/// declaration when it is the only one).
fn delete_declarator(tree: &Tree, src: &str, name: Span) -> Option<TextEdit> {
    let mut node = tree.root_node().descendant_for_byte_range(name.start as usize, name.end as usize)?;
    let mut declarator = node;
    while node.kind() != "declaration" {
        declarator = node;
        node = node.parent()?;
    }
    if node.parent().is_some_and(|p| p.kind() == "for_statement") {
        return None;
    }
    let mut cursor = node.walk();
    let all: Vec<Node> = node.children_by_field_name("declarator", &mut cursor).collect();
    let k = all.iter().position(|d| d.id() == declarator.id())?;
    let span = match (all.len(), k) {
        (1, _) => own_line_span(src, Span::new(node.start_byte(), node.end_byte())),
        (_, k) if k + 1 < all.len() => Span::new(all[k].start_byte(), all[k + 1].start_byte()),
        (_, k) => Span::new(all[k - 1].end_byte(), all[k].end_byte()),
    };
    Some(TextEdit { span, new_text: String::new() })
}

fn missing_return(
    tree: &Tree,
    src: &str,
    program: &Program,
    id: FuncId,
    body: &Stmt,
    flags: &CompilerFlags,
    out: &mut Vec<Found>,
) {
    let func = program.func(id);
    if func.ret == crate::ir::Type::Void || func.ret.is_error() || !flow(body).normal {
        return;
    }
    // C99 gives `main` a `return 0;` at its end; C90 does not.
    let main = func.name == "main";
    if main && !flags.is_c90() {
        return;
    }
    let close = body.span.end.saturating_sub(1) as usize;
    if src.as_bytes().get(close) != Some(&b'}') {
        return;
    }
    let at = Span::new(close, close + 1);
    if !main {
        let mut found = Found::new(
            Rule::MissingReturn,
            at,
            format!(
                "`{}` can reach its end without returning a value: every way through it must end in a `return`",
                func.name
            ),
        );
        found.fix = returns_nothing(tree, src, program, id, body)
            .map(|edits| {
                (format!("Declare `{}` as `void`: it returns no value and no caller uses one", func.name), edits)
            })
            .or_else(|| {
                let value = value_at_end(src, func, body)?;
                let edit = return_at_end(src, body, &value)?;
                Some((format!("End `{}` with `return {value};`, as its last `return` does", func.name), vec![edit]))
            });
        out.push(found);
        return;
    }
    let mut found = Found::new(Rule::MissingReturn, at, "in C90 `main` must return a value: end it with `return 0;`");
    let Some(edit) = return_at_end(src, body, "0") else { return out.push(found) };
    found.fix = Some(("Add `return 0;` at the end of `main`".into(), vec![edit]));
    out.push(found);
}

/// What a function that returns values but can reach its end should return there: the value
/// of its last `return` in the text (often the loop's "not found" or "done" answer, as in
/// `for (…) { if (…) return 0; return 1; }`), when that is a constant or a variable visible at
/// the end (a parameter or a variable of the function's outermost block).
fn value_at_end(src: &str, func: &Function, body: &Stmt) -> Option<String> {
    let StmtKind::Block(outer) = &body.kind else { return None };
    let visible = |e: &Expr| match e.kind {
        ExprKind::Int(_) | ExprKind::Float(..) => true,
        ExprKind::Var(v) => {
            func.params.contains(&v) || outer.iter().any(|s| matches!(s.kind, StmtKind::Decl { var, .. } if var == v))
        }
        _ => false,
    };
    let mut last = None;
    crate::ir::walk::for_each_stmt(body, &mut |s| {
        if let StmtKind::Return(Some(e)) = &s.kind {
            let e = e.strip_implicit();
            last = Some(visible(e).then_some(e.span));
        }
    });
    last.flatten().map(|span| src[span.range()].to_string())
}

/// A function that never returns a value and whose every call drops the result is a `void`
/// function with the wrong type: the edits write `void` in its definition and prototypes.
fn returns_nothing(tree: &Tree, src: &str, program: &Program, id: FuncId, body: &Stmt) -> Option<Vec<TextEdit>> {
    let mut returns_value = false;
    crate::ir::walk::for_each_stmt(body, &mut |s| returns_value |= matches!(s.kind, StmtKind::Return(Some(_))));
    if returns_value {
        return None;
    }
    // Every call of it, and the calls whose value is dropped (a statement of their own).
    let is_call = |e: &Expr| matches!(e.kind, ExprKind::Call(Callee::Func(c), _) if c == id);
    let (mut calls, mut dropped) = (0, 0);
    for f in &program.funcs {
        let Some(b) = &f.body else { continue };
        crate::ir::walk::walk_stmt(b, &mut |e| calls += usize::from(is_call(e)));
        crate::ir::walk::for_each_stmt(b, &mut |s| {
            dropped += usize::from(matches!(&s.kind, StmtKind::Expr(e) if is_call(e)));
        });
    }
    if calls != dropped {
        return None;
    }
    let name = &program.func(id).name;
    let mut edits = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        stack.extend(
            n.named_children(&mut cursor).filter(|c| matches!(c.kind(), "declaration" | "function_definition")),
        );
        if n.kind() != "declaration" && n.kind() != "function_definition" {
            continue;
        }
        let declares = n.child_by_field_name("declarator").is_some_and(|d| {
            d.kind() == "function_declarator"
                && d.child_by_field_name("declarator").is_some_and(|i| &src[i.byte_range()] == name.as_str())
        });
        if let (true, Some(ty)) = (declares, n.child_by_field_name("type")) {
            edits.push(TextEdit { span: Span::new(ty.start_byte(), ty.end_byte()), new_text: "void".into() });
        }
    }
    edits.sort_by_key(|e| e.span.start);
    (!edits.is_empty()).then_some(edits)
}

/// `return 0;` on its own line before the closing brace of `body` (indented like the last
/// statement), or before the brace on its line.
fn return_at_end(src: &str, body: &Stmt, value: &str) -> Option<TextEdit> {
    let close = body.span.end.checked_sub(1)? as usize;
    if src.as_bytes().get(close) != Some(&b'}') {
        return None;
    }
    let line_start = src[..close].rfind('\n').map_or(0, |i| i + 1);
    Some(if src[line_start..close].trim().is_empty() {
        let last = match &body.kind {
            StmtKind::Block(items) => items.last().map(|s| s.span.start as usize),
            _ => None,
        };
        let indent = match last {
            Some(s) if s > body.span.start as usize => line_indent(src, s).to_string(),
            _ => format!("{}    ", &src[line_start..close]),
        };
        TextEdit { span: Span::new(line_start, line_start), new_text: format!("{indent}return {value};\n") }
    } else {
        TextEdit { span: Span::new(close, close), new_text: format!("return {value}; ") }
    })
}

/// The variables that are unset on every path to this point; `None`: no path reaches it.
type State = Option<BTreeSet<VarId>>;

fn meet(a: State, b: State) -> State {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(a.intersection(&b).copied().collect()),
    }
}

/// Reads of variables no path has given a value (gcc's `-Wuninitialized` at `-O0`).
struct Unset<'p> {
    program: &'p Program,
    /// Off while a loop's back edge is computed: only the last pass over a body reports.
    report: bool,
    /// Each read, and whether it runs on every run (else some runs only).
    reads: Vec<(VarId, Span, bool)>,
    /// The states at each `break` and `continue` of the loops (and switches) around.
    breaks: Vec<State>,
    continues: Vec<State>,
    /// The current point runs on every run of the function. At `-O0` gcc's early pass warns
    /// everywhere else too ("may be used uninitialized"), except in the first test of a
    /// loop's condition, where it warns only on the reads that run whenever that test does
    /// (not on the right of `&&`: `while (k-- && c != 3) { c = k; }` gets no warning).
    always: bool,
    /// Reading a `while` or `for` condition on the loop's entry.
    first_test: bool,
    /// A call that may write memory came before (in the order of the walk). A variable whose
    /// address is taken lives in memory, and gcc counts such a call before a read as perhaps
    /// setting it.
    called: bool,
    /// Variables known to hold a constant here (`b = 0;`): gcc does not warn in a branch such
    /// a constant rules out (`if (b > 0) b = a;`).
    constants: HashMap<VarId, i64>,
}

impl Unset<'_> {
    fn tracked(&self, v: VarId) -> bool {
        let var = self.program.var(v);
        var.kind == VarKind::Local && var.ty.is_scalar()
    }

    fn read(&mut self, v: VarId, at: Span, st: &State) {
        if let Some(set) = st
            && set.contains(&v)
            && self.report
            && (self.always || !self.first_test)
            && !(self.called && self.program.var(v).addressable)
            && !self.reads.iter().any(|(r, _, _)| *r == v)
        {
            self.reads.push((v, at, self.always));
        }
    }

    /// Runs `f` on code that may not run.
    fn conditionally<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let always = std::mem::replace(&mut self.always, false);
        let out = f(self);
        self.always = always;
        out
    }

    /// After `parts` (branches, a loop body) that may leave the function, what follows no
    /// longer runs on every run.
    fn after(&mut self, parts: &[&Stmt]) {
        let mut leaves = false;
        for part in parts {
            crate::ir::walk::for_each_stmt(part, &mut |s| {
                leaves |= matches!(&s.kind, StmtKind::Return(_)) || matches!(&s.kind, StmtKind::Expr(e) if is_exit(e));
            });
        }
        if leaves {
            self.always = false;
        }
    }

    fn set(v: VarId, st: &mut State) {
        if let Some(set) = st {
            set.remove(&v);
        }
    }

    /// The value of `e` from literals and the known constants, when it has one.
    fn constant(&self, e: &Expr) -> Option<i64> {
        match &e.strip_implicit().kind {
            ExprKind::Int(n) => Some(*n),
            ExprKind::Var(v) => self.constants.get(v).copied(),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.constant(a)?, self.constant(b)?);
                Some(match op {
                    BinOp::Add => a.checked_add(b)?,
                    BinOp::Sub => a.checked_sub(b)?,
                    BinOp::Mul => a.checked_mul(b)?,
                    BinOp::Lt => i64::from(a < b),
                    BinOp::Le => i64::from(a <= b),
                    BinOp::Gt => i64::from(a > b),
                    BinOp::Ge => i64::from(a >= b),
                    BinOp::Eq => i64::from(a == b),
                    BinOp::Ne => i64::from(a != b),
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// Forgets the constants `s` may change, before code that may run again or not at all.
    fn forget_changed_in(&mut self, s: &Stmt) {
        let mut changed = Vec::new();
        crate::ir::walk::walk_stmt(s, &mut |e| changed.extend(Self::changed_by(e)));
        changed.iter().for_each(|v| _ = self.constants.remove(v));
    }

    fn forget_changed_in_expr(&mut self, e: &Expr) {
        let mut changed = Vec::new();
        crate::ir::walk::walk_expr(e, &mut |x| changed.extend(Self::changed_by(x)));
        changed.iter().for_each(|v| _ = self.constants.remove(v));
    }

    /// The variable `e` itself changes (`v = …`, `v++`, `&v`).
    fn changed_by(e: &Expr) -> Option<VarId> {
        match &e.kind {
            ExprKind::Assign(t, _)
            | ExprKind::CompoundAssign { lhs: t, .. }
            | ExprKind::IncDec(_, t)
            | ExprKind::AddrOf(t) => Uses::var(t),
            _ => None,
        }
    }

    fn expr(&mut self, e: &Expr, st: &mut State) {
        if st.is_none() {
            return;
        }
        match &e.kind {
            ExprKind::Var(v) => self.read(*v, e.span, st),
            ExprKind::Assign(lhs, rhs) => {
                self.expr(rhs, st);
                match Uses::var(lhs) {
                    Some(v) => {
                        Self::set(v, st);
                        match self.constant(rhs).filter(|_| !self.program.var(v).addressable) {
                            Some(n) => self.constants.insert(v, n),
                            None => self.constants.remove(&v),
                        };
                    }
                    None => self.expr(lhs, st),
                }
            }
            // `n++`, `n += 1`: read, then set.
            ExprKind::IncDec(_, target) | ExprKind::CompoundAssign { lhs: target, .. } => {
                if let ExprKind::CompoundAssign { rhs, .. } = &e.kind {
                    self.expr(rhs, st);
                }
                match Uses::var(target) {
                    Some(v) => {
                        self.read(v, target.span, st);
                        Self::set(v, st);
                        self.constants.remove(&v);
                    }
                    None => self.expr(target, st),
                }
            }
            // `&n` (a `scanf` target): from here on it may hold anything.
            ExprKind::AddrOf(inner) => match Uses::var(inner) {
                Some(v) => {
                    Self::set(v, st);
                    self.constants.remove(&v);
                }
                None => self.expr(inner, st),
            },
            ExprKind::Logical(_, a, b) => {
                self.expr(a, st);
                let mut right = st.clone();
                self.conditionally(|u| u.expr(b, &mut right));
                *st = meet(st.take(), right);
            }
            ExprKind::Cond(c, a, b) => {
                self.expr(c, st);
                let (mut x, mut y) = (st.clone(), st.clone());
                self.conditionally(|u| {
                    u.expr(a, &mut x);
                    u.expr(b, &mut y);
                });
                *st = meet(x, y);
            }
            ExprKind::SizeOf { .. } => {}
            _ => {
                for c in children(e) {
                    self.expr(c, st);
                }
                self.called |= match &e.kind {
                    // gcc knows these write no memory of the program (`printf` with a
                    // directive and no `%n`; `printf("hi")`, measured, counts as a write).
                    ExprKind::Call(Callee::Builtin(Builtin::Puts | Builtin::Putchar), _) => false,
                    ExprKind::Call(Callee::Builtin(Builtin::Printf), args) => !args.first().is_some_and(|f| {
                        matches!(&f.strip_implicit().kind, ExprKind::Str(text)
                            if text.contains(&b'%') && !text.windows(2).any(|w| w == b"%n"))
                    }),
                    ExprKind::Call(..) => true,
                    _ => false,
                };
                if is_exit(e) {
                    *st = None;
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, st: &mut State) {
        if st.is_none() {
            return;
        }
        match &s.kind {
            StmtKind::Decl { var, init } => {
                match init {
                    Some(init) => walk_init_in_order(init, &mut |e| self.expr(e, st)),
                    None if self.tracked(*var) => {
                        if let Some(set) = st {
                            set.insert(*var);
                        }
                    }
                    None => {}
                }
                if init.is_some()
                    && let Some(set) = st
                {
                    set.remove(var);
                }
            }
            StmtKind::VlaDecl { len, row, .. } => {
                self.expr(len, st);
                if let Some((_, per)) = row {
                    self.expr(per, st);
                }
            }
            StmtKind::Expr(e) => self.expr(e, st),
            StmtKind::Return(value) => {
                if let Some(e) = value {
                    self.expr(e, st);
                }
                *st = None;
            }
            StmtKind::Break => {
                self.breaks.push(st.take());
            }
            StmtKind::Continue => {
                self.continues.push(st.take());
            }
            StmtKind::Empty => {}
            StmtKind::Block(items) => items.iter().for_each(|i| self.stmt(i, st)),
            StmtKind::If { cond, then, els } => {
                self.expr(cond, st);
                let known = self.constant(cond);
                let (mut t, mut e) = (st.clone(), st.clone());
                let before = self.constants.clone();
                self.conditionally(|u| {
                    // A branch the constants rule out is not reported (and adds no path).
                    let report = u.report;
                    u.report = report && known != Some(0);
                    u.stmt(then, &mut t);
                    u.constants = before.clone();
                    if let Some(els) = els {
                        u.report = report && !matches!(known, Some(n) if n != 0);
                        u.stmt(els, &mut e);
                    }
                    u.report = report;
                });
                self.constants = before;
                self.forget_changed_in(then);
                if let Some(els) = els {
                    self.forget_changed_in(els);
                }
                *st = meet(t, e);
                self.after(&[then, els.as_deref().unwrap_or(then)]);
            }
            StmtKind::While { cond, body } => self.repeat(st, Some(cond), body, None, true),
            StmtKind::DoWhile { body, cond } => self.repeat(st, Some(cond), body, None, false),
            StmtKind::For { init, cond, step, body } => {
                init.iter().for_each(|i| self.stmt(i, st));
                self.repeat(st, cond.as_ref(), body, step.as_ref(), true);
            }
            StmtKind::Switch { cond, arms } => {
                self.expr(cond, st);
                let entry = st.clone();
                let outer = std::mem::take(&mut self.breaks);
                let mut fall: State = None;
                for arm in arms {
                    // What any arm changes is unknown at an arm's start (it may fall into it).
                    arms.iter().flat_map(|a| &a.body).for_each(|s| self.forget_changed_in(s));
                    let mut s = meet(entry.clone(), fall);
                    self.conditionally(|u| arm.body.iter().for_each(|i| u.stmt(i, &mut s)));
                    fall = s;
                    self.after(&arm.body.iter().collect::<Vec<_>>());
                }
                arms.iter().flat_map(|a| &a.body).for_each(|s| self.forget_changed_in(s));
                let mut after = fall;
                for b in std::mem::replace(&mut self.breaks, outer) {
                    after = meet(after, b);
                }
                if !arms.iter().any(|a| a.label.is_none()) {
                    after = meet(after, entry);
                }
                *st = after;
            }
        }
    }

    /// A loop: the state at its head is the entry's met with the back edge's, found by a
    /// silent first pass; the second pass reports.
    /// A loop, as gcc lowers it: a `while` or `for` condition is tested once before the loop
    /// (its reads see the entry's state alone), then `do { body; step } while (cond)` runs,
    /// whose head meets the entry with the back edge (found by a silent first pass; the second
    /// pass reports).
    fn repeat(&mut self, st: &mut State, cond: Option<&Expr>, body: &Stmt, step: Option<&Expr>, cond_first: bool) {
        let endless = cond.is_none_or(always_true);
        self.forget_changed_in(body);
        step.into_iter().chain(cond).for_each(|e| self.forget_changed_in_expr(e));
        // The back edge, from a silent pass.
        let report = std::mem::replace(&mut self.report, false);
        let mut probe = st.clone();
        if let (true, Some(c)) = (cond_first, cond) {
            self.expr(c, &mut probe);
        }
        let (back, _) = self.rotated(probe, cond, body, step);
        self.report = report;
        // A variable whose address is taken lives in memory, where gcc sees a write anywhere in
        // the loop (a `scanf`) as reaching the first test too.
        let mut first = st.clone();
        if let (Some(set), Some(back)) = (&mut first, &back) {
            set.retain(|v| !self.program.var(*v).addressable || back.contains(v));
        }
        let mut exit = None;
        if cond_first {
            if let Some(c) = cond {
                let outer = std::mem::replace(&mut self.first_test, true);
                let always = self.always;
                self.expr(c, &mut first);
                (self.first_test, self.always) = (outer, always);
            }
            if !endless {
                exit = first.clone();
            }
        }
        let head = meet(first, back);
        // The body of a `do` runs at least once; a `while` or `for` body may not run.
        let (_, rotated_exit) = if cond_first {
            self.conditionally(|u| u.rotated(head, cond, body, step))
        } else {
            self.rotated(head, cond, body, step)
        };
        *st = meet(exit, rotated_exit);
        self.after(&[body]);
    }

    /// `do { body; step } while (cond)` from `head`: the state on its back edge, and on its exits.
    fn rotated(&mut self, mut s: State, cond: Option<&Expr>, body: &Stmt, step: Option<&Expr>) -> (State, State) {
        let (outer_breaks, outer_continues) = (std::mem::take(&mut self.breaks), std::mem::take(&mut self.continues));
        self.stmt(body, &mut s);
        for c in std::mem::replace(&mut self.continues, outer_continues) {
            s = meet(s, c);
        }
        if let Some(step) = step {
            self.expr(step, &mut s);
        }
        if let Some(c) = cond {
            self.expr(c, &mut s);
        }
        let mut exit = if cond.is_none_or(always_true) { None } else { s.clone() };
        for b in std::mem::replace(&mut self.breaks, outer_breaks) {
            exit = meet(exit, b);
        }
        (s, exit)
    }
}

/// The expressions of an initialiser in order (the outermost of each item).
fn walk_init_in_order(init: &Init, f: &mut impl FnMut(&Expr)) {
    match init {
        Init::Expr(e) => f(e),
        Init::List(items, _) => items.iter().for_each(|i| walk_init_in_order(i, f)),
    }
}

fn uninitialized(tree: &Tree, program: &Program, body: &Stmt, out: &mut Vec<Found>) {
    let mut unset = Unset {
        program,
        report: true,
        reads: Vec::new(),
        breaks: Vec::new(),
        continues: Vec::new(),
        always: true,
        first_test: false,
        called: false,
        constants: HashMap::new(),
    };
    unset.stmt(body, &mut Some(BTreeSet::new()));
    for (v, at, always) in unset.reads {
        let var = program.var(v);
        let mut found = Found::new(
            Rule::Uninitialized,
            at,
            if always {
                format!("`{}` is used before it is given a value", var.name)
            } else {
                format!("`{}` can be used before it is given a value", var.name)
            },
        )
        .related(var.span, format!("`{}` is declared here without a value", var.name));
        // `int sum;` → `int sum = 0;`: what an accumulator or a counter starts from.
        let plain = tree
            .root_node()
            .descendant_for_byte_range(var.span.start as usize, var.span.end as usize)
            .and_then(|n| n.parent())
            .is_some_and(|p| p.kind() == "declaration");
        if plain && var.ty.is_arithmetic() {
            found.fix = Some((
                format!("Start `{}` at 0", var.name),
                vec![TextEdit {
                    span: Span::new(var.span.end as usize, var.span.end as usize),
                    new_text: " = 0".into(),
                }],
            ));
        }
        out.push(found);
    }
}

/// Expression statements that compute a value and drop it; `x == 5;` gets `x = 5;`.
fn no_effect(src: &str, body: &Stmt, out: &mut Vec<Found>) {
    // What deleting a statement with no effect removes: a statement of a block with its line,
    // an expression of a `for` header alone (a lone body of an `if` cannot go: `;` would
    // be an empty body, itself a warning).
    let mut deletable: HashMap<(u32, u32), Span> = HashMap::new();
    crate::ir::walk::for_each_stmt(body, &mut |s| match &s.kind {
        StmtKind::Block(items) => {
            for item in items {
                if let StmtKind::Expr(e) = &item.kind {
                    deletable.insert((e.span.start, e.span.end), own_line_span(src, item.span));
                }
            }
        }
        StmtKind::For { init, step, .. } => {
            for e in
                init.iter().filter_map(|i| if let StmtKind::Expr(e) = &i.kind { Some(e) } else { None }).chain(step)
            {
                deletable.insert((e.span.start, e.span.end), e.span);
            }
        }
        _ => {}
    });
    let mut check = |e: &Expr| {
        if calls_or_changes(e) || matches!(e.kind, ExprKind::Cast { implicit: false, .. }) {
            return;
        }
        if let ExprKind::Binary(BinOp::Eq, lhs, rhs) = &e.kind
            && matches!(
                lhs.strip_implicit().kind,
                ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Member { .. } | ExprKind::Deref(_)
            )
            && let Some(found) = operator_slip(src, e.span, lhs, rhs, ("==", "="), |l, r| {
                format!("`{l} == {r}` compares and throws the result away: to give `{l}` a value, write `{l} = {r}`")
            })
        {
            out.push(found);
            return;
        }
        let mut found = Found::new(Rule::NoEffect, e.span, "this statement computes a value and does nothing with it");
        // Deleting it changes nothing the program does.
        if let (Some(text), Some(span)) = (source(src, e.span), deletable.get(&(e.span.start, e.span.end))) {
            found.fix = Some((format!("Delete `{text}`"), vec![TextEdit { span: *span, new_text: String::new() }]));
        }
        out.push(found);
    };
    fn statements(s: &Stmt, f: &mut impl FnMut(&Expr)) {
        crate::ir::walk::for_each_stmt(s, &mut |s| match &s.kind {
            StmtKind::Expr(e) => f(e),
            StmtKind::For { step: Some(step), .. } => f(step),
            _ => {}
        });
    }
    // (`for (i; …)`: the header's expressions are statements of `init`, visited above.)
    statements(body, &mut check);
}

/// `a < b < c`: C compares `a < b` (0 or 1) with `c`. The fix says what was meant:
/// `a < b && b < c`, when `b` can be read twice.
fn chained_comparisons(root: Node, src: &str, out: &mut Vec<Found>) {
    const RELATIONAL: [&str; 4] = ["<", "<=", ">", ">="];
    let op_of = |n: Node| -> Option<&str> {
        (n.kind() == "binary_expression")
            .then(|| n.child_by_field_name("operator"))
            .flatten()
            .map(|o| &src[o.byte_range()])
            .filter(|o| RELATIONAL.contains(o))
    };
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
        let (Some(op), Some(left), Some(right)) =
            (op_of(n), n.child_by_field_name("left"), n.child_by_field_name("right"))
        else {
            continue;
        };
        if op_of(left).is_none() {
            continue;
        }
        let Some(middle) = left.child_by_field_name("right") else { continue };
        let text = |x: Node| &src[x.byte_range()];
        let mut found = Found::new(
            Rule::ChainedComparison,
            Span::new(n.start_byte(), n.end_byte()),
            format!(
                "`{}` does not test that `{}` lies between the two: C compares `{}` (0 or 1) with `{}`",
                text(n),
                text(middle),
                text(left),
                text(right)
            ),
        );
        let simple = matches!(middle.kind(), "identifier" | "number_literal" | "field_expression")
            || (middle.kind() == "subscript_expression" && !text(middle).contains(['(', '=', '+']));
        if simple {
            let both = format!("{} && {} {op} {}", text(left), text(middle), text(right));
            let bare = n.parent().is_some_and(|p| {
                matches!(
                    p.kind(),
                    "parenthesized_expression"
                        | "argument_list"
                        | "init_declarator"
                        | "expression_statement"
                        | "return_statement"
                ) || (p.kind() == "binary_expression" && matches!(op_of_any(p, src), Some("&&" | "||")))
                    || p.kind() == "assignment_expression"
            });
            let new_text = if bare { both } else { format!("({both})") };
            found.fix = Some((
                format!("Test both: `{}`", new_text.trim_start_matches('(').trim_end_matches(')')),
                vec![TextEdit { span: Span::new(n.start_byte(), n.end_byte()), new_text }],
            ));
        }
        out.push(found);
    }
}

fn op_of_any<'s>(n: Node, src: &'s str) -> Option<&'s str> {
    n.child_by_field_name("operator").map(|o| &src[o.byte_range()])
}
