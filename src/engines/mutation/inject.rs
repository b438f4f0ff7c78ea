//! Fault injection, as Wolverine2 evaluates its repair: a correct program with one change of
//! the repair vocabulary applied (an expression mutant of the catalogue at level 1, a moved,
//! deleted or inserted statement of [`super::statements`]). A repair of such a fault is the
//! inverse change or a smaller one; `mend bench faults` measures how often the search finds
//! one, and how fast.

use std::collections::HashSet;

use crate::ir::*;

use super::catalogue::MutationKind;
use super::engine::{FunctionScopes, Options, mutation_unit};
use super::statements;

/// One injected fault: the kind of change, what it did, and the faulty text.
#[derive(Clone, Debug)]
pub struct Injected {
    pub kind: MutationKind,
    pub description: String,
    pub text: String,
}

/// Every single fault of the vocabulary in `src` (lowered as `program`) whose text lowers
/// without errors, in a fixed order: expression mutants by location, then statement changes
/// (insertions of pointer statements last). Whether a fault shows on the tests is the caller's
/// business.
pub fn single_faults(program: &Program, src: &str) -> Vec<Injected> {
    let mut out = Vec::new();
    let (_, alternatives) = mutation_unit(program, src, &Options::default());
    for (_, mutants) in alternatives.values() {
        // A test that takes one more delimiter is a fix; its inverse, a test that lacks one,
        // is the slip, and dropping a conjunct is no change of the vocabulary.
        for m in mutants.iter().filter(|m| m.kind != MutationKind::AlsoDelimiter) {
            out.push(Injected {
                kind: m.kind,
                description: m.description.clone(),
                text: apply_edits(src, std::slice::from_ref(&m.edit)),
            });
        }
    }
    let scope = FunctionScopes::new(program);
    for c in statements::candidates(program, src, &HashSet::new(), &scope, None, &|_| 0.0) {
        // A separator printed only between items is a fix, not a slip students make; a deleted
        // print is the slip of a missing one, whose inverse only a reference could supply.
        let [change] = c.changes.as_slice() else { continue };
        let m = &change.mutant;
        // A guard added, a line read, a line break cut, a read repeated, an `if` repeated, a
        // value given are fixes too: their inverses are the slips.
        if matches!(
            m.kind,
            MutationKind::SeparatorBetween
                | MutationKind::DeleteOutput
                | MutationKind::InsertGuard
                | MutationKind::ReadLine
                | MutationKind::ScanfText
                | MutationKind::PrintfDirective
                | MutationKind::CutLineBreak
                | MutationKind::RepeatRead
                | MutationKind::RepeatIf
                | MutationKind::FinishLastItem
                | MutationKind::Initialise
        ) {
            continue;
        }
        out.push(Injected {
            kind: m.kind,
            description: m.description.clone(),
            text: apply_edits(src, std::slice::from_ref(&m.edit)),
        });
    }
    // A value forgotten where a local is declared (`int sum = 0;` → `int sum;`): the slip
    // whose inverse is the `initialise` repair, for the values it offers.
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        // A `for`'s own declarations are not offered a value (`for (int i; …)` is no slip).
        let mut loop_inits: HashSet<Span> = HashSet::new();
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if let StmtKind::For { init, .. } = &s.kind {
                loop_inits.extend(init.iter().map(|d| d.span));
            }
            let StmtKind::Decl { var, init: Some(init) } = &s.kind else { return };
            if loop_inits.contains(&s.span) {
                return;
            }
            let v = program.var(*var);
            let (Some(end), Some(init_end)) = (crate::ir::declarator_end(src, v), init_end(init)) else { return };
            let Some(written) = src.get(end..init_end) else { return };
            let value = written.trim_start().strip_prefix('=').map(str::trim).unwrap_or_default();
            if !crate::ir::initial_values(v).contains(&value) {
                return;
            }
            out.push(Injected {
                kind: MutationKind::Initialise,
                description: format!("`{}` declared without its value `{value}`", v.name),
                text: format!("{}{}", &src[..end], &src[init_end..]),
            });
        });
    }
    let mut seen = HashSet::new();
    out.retain(|f| {
        seen.insert(f.text.clone()) && f.text != src && crate::syntax::lower::lower_without_errors(&f.text).is_some()
    });
    out
}

/// Where an initialiser ends in the text.
fn init_end(init: &Init) -> Option<usize> {
    match init {
        Init::Expr(e) => Some(e.span.end as usize),
        Init::List(_, span) => Some(span.end as usize),
    }
}
