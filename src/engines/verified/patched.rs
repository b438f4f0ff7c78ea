//! Edits of a rewritten text (a retyped or extended student program) mapped back onto the
//! student's own text, and the relative patch size of a repair.

use super::*;

/// The engine (`inner`) on the student's program with `pre_edits` applied first (retyping,
/// fresh declarations), its changes mapped back onto `text`; a pre-edit joins the patch when
/// `keep(its change, the repair's changes)`. `inner` gets `opts` with its candidates mapped
/// the same way ([`Candidates`]). `None` when the edited text does not lower.
pub(super) fn on_patched(
    student: &Program,
    text: &str,
    pre_edits: Vec<(Change, TextEdit)>,
    keep: fn(&Change, &[Change]) -> bool,
    opts: &Options,
    inner: &mut dyn FnMut(&Program, &str, &Options) -> Result<Outcome, Failure>,
) -> Option<Result<Outcome, Failure>> {
    let rewrite = crate::ir::rewrite::Rewrite::new(text, pre_edits.iter().map(|(_, e)| e.clone()).collect());
    let patched = rewrite.text.as_str();
    let lowered = crate::syntax::lower::lower_source(patched);
    if lowered.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error) {
        return None;
    }
    let opts = Options {
        candidates: opts
            .candidates
            .as_ref()
            .filter(|c| c.sends_for(text))
            .map(|c| c.through(&rewrite, &pre_edits, keep)),
        ..opts.clone()
    };
    // The repair's changes first (a repair's title names the first few), then the pre-edits.
    let (mut changes, mut edits) = (Vec::new(), Vec::new());
    let mut assuming = None;
    match inner(&lowered.program, patched, &opts) {
        Ok(Outcome::Equivalent | Outcome::EquivalentAssuming(_)) => {}
        Ok(Outcome::Repaired(r)) => {
            let back = |span: Span| match (rewrite.original_offset(span.start), rewrite.original_offset(span.end)) {
                (Some(a), Some(b)) => Some(Span { start: a, end: b }),
                // A change inside a pre-edit's text: cannot happen (declarations, types and
                // scanf formats are not holes).
                _ => None,
            };
            assuming = r.assuming;
            for (mut c, mut e) in r.changes.into_iter().zip(r.edits) {
                let (Some(cs), Some(es)) = (back(c.span), back(e.span)) else { return Some(Err(Failure::Internal)) };
                (c.span, e.span) = (cs, es);
                changes.push(c);
                edits.push(e);
            }
        }
        other => return Some(other),
    }
    let kept: Vec<(Change, TextEdit)> = pre_edits.into_iter().filter(|(c, _)| keep(c, &changes)).collect();
    for (c, e) in kept {
        changes.push(c);
        edits.push(e);
    }
    if edits.is_empty() {
        return Some(Ok(Outcome::Equivalent));
    }
    // Measured on the composed patch against the student's own program.
    let relative_patch_size = patch_size(student, text, &edits);
    Some(Ok(Outcome::Repaired(VerifiedRepair { edits, changes, relative_patch_size, assuming })))
}

/// The relative patch size of `edits` to `student` (whose source is `text`): the exact tree
/// edit distance to the repaired text's program; the token approximation only if the
/// repaired text does not lower (which would be a bug of the patch's printing). `mend bench`
/// measures every engine's repairs with it.
pub fn patch_size(student: &Program, text: &str, edits: &[TextEdit]) -> f64 {
    let repaired = crate::syntax::lower::lower_source(&crate::ir::repair::apply_edits(text, edits));
    if repaired.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error) {
        tracing::warn!("a verified repair's text does not lower; its patch size is approximated on tokens");
        return crate::ir::ted::token_patch_size(text, edits);
    }
    crate::ir::ted::relative_patch_size(student, &repaired.program)
}
