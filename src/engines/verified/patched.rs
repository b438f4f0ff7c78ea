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
    let layer = std::sync::Arc::new(Rewritten { rewrite, pre_edits, keep });
    let patched = layer.rewrite.text.as_str();
    let program = crate::syntax::lower::lower_without_errors(patched)?;
    let opts = Options {
        candidates: opts.candidates.as_ref().filter(|c| c.sends_for(text)).map(|c| c.through(&layer)),
        ..opts.clone()
    };
    // The repair's changes first (a repair's title names the first few), then the pre-edits.
    let (repair, assuming) = match inner(&program, patched, &opts) {
        Ok(Outcome::Equivalent | Outcome::EquivalentAssuming(_)) => (Vec::new(), None),
        Ok(Outcome::Repaired(r)) => (r.changes.into_iter().zip(r.edits).collect(), r.assuming),
        other => return Some(other),
    };
    // A change inside a pre-edit's text: declarations, types and scanf formats are not
    // holes, but a start value's initialiser is (the caller then searches the text as
    // written).
    let Some(mapped) = layer.map_back(repair) else { return Some(Err(Failure::Internal)) };
    if mapped.is_empty() {
        return Some(Ok(Outcome::Equivalent));
    }
    let (changes, edits): (Vec<Change>, Vec<TextEdit>) = mapped.into_iter().unzip();
    // Measured on the composed patch against the student's own program.
    let relative_patch_size = patch_size(student, text, &edits);
    Some(Ok(Outcome::Repaired(VerifiedRepair { edits, changes, relative_patch_size, assuming })))
}

/// The relative patch size of `edits` to `student` (whose source is `text`): the exact tree
/// edit distance to the repaired text's program; the token approximation only if the
/// repaired text does not lower (which would be a bug of the patch's printing). `mend bench`
/// measures every engine's repairs with it.
pub fn patch_size(student: &Program, text: &str, edits: &[TextEdit]) -> f64 {
    let Some(repaired) = crate::syntax::lower::lower_without_errors(&crate::ir::repair::apply_edits(text, edits))
    else {
        tracing::warn!("a verified repair's text does not lower; its patch size is approximated on tokens");
        return crate::ir::ted::token_patch_size(text, edits);
    };
    crate::ir::ted::relative_patch_size(student, &repaired)
}
