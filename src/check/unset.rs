//! Locals read before they are given a value, in a program the verified engine proved. Its
//! proof lets such a local hold any value at all (it holds for each one), where the
//! interpreter, like the C standard, stops at the read: `tam++` on a `tam` never set is a
//! bug of its own even when nothing uses `tam`. A repair (or a program proved equivalent as
//! written) whose test runs still make such a read fails those tests, so each such local gets
//! a value where it is declared (`0`, `{0}` for an array), and the whole patch is proved
//! again before it is shown.

use crate::cancel::Cancel;
use crate::ir::rewrite::Rewrite;
use crate::ir::walk::{for_each_stmt, walk_stmt};
use crate::ir::*;
use crate::spec::compare::Compare;
use crate::spec::interp::{Limits, RuntimeErrorKind};

use super::PreparedTest;

/// One local given a value where it is declared: the edit of the student's text, and the
/// change in words.
pub(super) struct Initialisation {
    pub edit: TextEdit,
    pub words: String,
    /// The local's name where it is declared, in the student's text.
    pub name: Span,
    /// The declarator with its value (`count = 0`, `votes[4] = {0}`).
    pub declarator: String,
}

/// At most this many locals are given a value (each needs a run of the tests).
const MAX_LOCALS: usize = 4;

/// The locals that the tests' runs of `text` patched by `edits` read before giving them a
/// value, each given one where it is declared, in the order the runs reach them: empty when
/// no run makes such a read; `None` when it cannot tell (cancelled) or a run reads a local
/// that cannot be given a value at its declaration (a pointer, a struct, a local declared
/// with a value and then read past). Without `edits`, only the tests that failed run: one
/// that passed read nothing unset.
pub(super) fn initialisations(
    text: &str,
    edits: &[TextEdit],
    entry: &str,
    tests: &[PreparedTest],
    compare: Compare,
    max_steps: u64,
    cancel: &Cancel,
) -> Option<Vec<Initialisation>> {
    let limits = Limits { max_steps, ..Limits::default() };
    let mut out: Vec<Initialisation> = Vec::new();
    loop {
        let all: Vec<TextEdit> = edits.iter().cloned().chain(out.iter().map(|i| i.edit.clone())).collect();
        let patched = Rewrite::new(text, all);
        let program = crate::syntax::lower::lower_without_errors(&patched.text)?;
        let unset = tests.iter().filter(|t| !edits.is_empty() || !t.passed).find_map(|t| {
            let limits = super::tests_repair::limits_for(t, &limits);
            let (_, run) = super::run_test(&program, entry, t, compare, &limits, cancel);
            run.error.filter(|e| e.kind == RuntimeErrorKind::Uninitialized).map(|e| e.span)
        });
        if cancel.is_cancelled() {
            return None;
        }
        let Some(read) = unset else { return Some(out) };
        if out.len() == MAX_LOCALS {
            return None;
        }
        // A local given a value already is declared with it: read unset again, it ends here.
        let var = local_read_at(&program, read).filter(|v| declared_without_value(&program, *v))?;
        let v = program.var(var);
        let value = initial_values(v).first()?;
        let (edit, words) = initialisation(&patched.text, v, value)?;
        let (Some(at), Some(start), Some(end), Some(written)) = (
            patched.original_offset(edit.span.start),
            patched.original_offset(v.span.start),
            patched.original_offset(v.span.end),
            patched.text.get(v.span.start as usize..edit.span.start as usize),
        ) else {
            return None;
        };
        let declarator = format!("{written}{}", edit.new_text);
        let edit = TextEdit { span: Span::new(at as usize, at as usize), new_text: edit.new_text };
        out.push(Initialisation { edit, words, name: Span::new(start as usize, end as usize), declarator });
    }
}

/// The local whose read is the expression at `span` (a variable, or an element of an array
/// variable).
fn local_read_at(program: &Program, span: Span) -> Option<VarId> {
    let mut found = None;
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        walk_stmt(body, &mut |e| {
            if found.is_some() || e.span != span {
                return;
            }
            found = match &e.strip_implicit().kind {
                ExprKind::Var(v) => Some(*v),
                ExprKind::Index(base, _) => match base.strip_implicit().kind {
                    ExprKind::Var(v) => Some(v),
                    _ => None,
                },
                _ => None,
            };
        });
    }
    found.filter(|v| program.var(*v).kind == VarKind::Local)
}

/// Whether `var` is declared without a value.
fn declared_without_value(program: &Program, var: VarId) -> bool {
    let mut without = false;
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        for_each_stmt(body, &mut |s| {
            without |= matches!(s.kind, StmtKind::Decl { var: v, init: None } if v == var);
        });
    }
    without
}
