//! Fresh variables (Verifix, Section 4.2: the case |Var_S| < |Var_R|). A reference variable
//! that the best alignment leaves without a student partner although its value matters at
//! some node (it is live there: a counter, an accumulator the student never kept) gets a new
//! variable declared at the start of the student's function. The reference's expressions
//! that read it can then be renamed into the student's program, and the `Extend`
//! assignments (before a loop, at the end of its body) can compute it.
//!
//! More variables mean more holes, so the engine first runs without them and declares them
//! only when that admits no repair. A declaration joins the patch only if the repair uses
//! its variable.

use std::collections::HashSet;

use crate::ir::print::type_to_c;
use crate::ir::repair::TextEdit;
use crate::ir::{FuncId, Program, Span, VarId};

use super::Change;

/// One fresh variable to declare: in the student's function `func`, the partner of the
/// reference's variable `var`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub func: FuncId,
    pub var: VarId,
}

/// The declarations of the wanted variables, one insertion each (in the wanted order), named
/// after the reference's variables; `None` when one cannot be placed (a function without a
/// braced body).
pub fn declarations(
    student: &Program,
    text: &str,
    reference: &Program,
    wanted: &[Wanted],
) -> Option<Vec<(Change, TextEdit)>> {
    let mut taken = identifiers(text);
    let mut out = Vec::new();
    for w in wanted {
        let body = student.func(w.func).body.as_ref()?;
        let at = body.span.start as usize + 1;
        if text.as_bytes().get(at - 1) != Some(&b'{') {
            return None;
        }
        let rv = reference.var(w.var);
        let name = unique_name(&rv.name, &mut taken);
        let decl = format!("{};", type_to_c(&rv.ty, &name, Some(reference)));
        let indent = super::indentation_after(text, at);
        let span = Span::new(at, at);
        let change = Change {
            span,
            old: String::new(),
            new: decl.clone(),
            region: format!("at the start of `{}`", student.func(w.func).name),
            words: None,
        };
        out.push((change, TextEdit { span, new_text: format!("\n{indent}{decl}") }));
    }
    Some(out)
}

/// Whether the declaration `decl` (`long sum;`) declares a variable some change reads.
pub fn is_used(decl: &Change, changes: &[Change]) -> bool {
    let name = decl.new.trim_end_matches(';').rsplit(' ').next().unwrap_or_default();
    changes.iter().any(|c| identifiers(&c.new).contains(name))
}

/// The name itself when the student's text does not use it, else the first `name_k` free.
fn unique_name(name: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.to_string();
    let mut k = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{k}");
        k += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// Every identifier-like word of `text` (keywords and names in comments included: a name
/// that collides with any of them is not taken).
fn identifiers(text: &str) -> HashSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    #[test]
    fn declares_the_reference_variable_at_the_function_start_with_a_free_name() {
        let student = "int main(void)\n{\n    int n, sum;\n    return 0;\n}\n";
        let reference = "int main(void) { long sum; int count = 0; int sum_2; return count; }";
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let main_s = s.func_by_name("main").unwrap();
        let var = |name: &str| VarId(r.vars.iter().position(|v| v.name == name).unwrap() as u32);
        let wanted = [Wanted { func: main_s, var: var("count") }, Wanted { func: main_s, var: var("sum") }];
        let decls = declarations(&s, student, &r, &wanted).unwrap();
        let patched =
            crate::ir::repair::apply_edits(student, &decls.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>());
        assert_eq!(patched, "int main(void)\n{\n    int count;\n    long sum_2;\n    int n, sum;\n    return 0;\n}\n");
        assert!(lower_source(&patched).diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error));
        let uses = |new: &str| Change {
            span: Span::new(0, 0),
            old: String::new(),
            new: new.into(),
            region: String::new(),
            words: None,
        };
        assert!(is_used(&decls[0].0, &[uses("count + 1")]));
        assert!(!is_used(&decls[0].0, &[uses("counter + 1")]));
        assert!(is_used(&decls[1].0, &[uses("if (c) sum_2 = sum_2 + c;")]));
    }
}
