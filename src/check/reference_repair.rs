//! The reference as the spec of the mutation engine: the product program of the student's
//! program and the instructor's (see `smt::product`). A difference in the printed values
//! becomes a diagnostic with the input that shows it and both outputs; every minimal mutation
//! repair that makes the values agree on all runs within the bound becomes a quick fix.

use std::time::Instant;

use crate::cancel::Cancel;
use crate::engines::mutation::engine::{self, FoundRepair, Options};
use crate::engines::mutation::search::Outcome;
use crate::ir::{Diagnostic, Program};
use crate::smt::bmc::{BmcUnknown, BmcVerdict};
use crate::smt::encode::ViolationKind;
use crate::smt::Budget;
use crate::spec::compare;
use crate::spec::interp::{self, Limits};

use super::assertions::{push_repair, stream};
use super::{shorten, OnPartial, Report};

const WHAT: &str = "it prints the same values as the reference";

#[allow(clippy::too_many_arguments)]
pub fn repair_against_reference(
    program: &Program,
    text: &str,
    reference: &Program,
    engine_opts: &Options,
    deadline: Instant,
    cancel: &Cancel,
    report: &mut Report,
    on_partial: OnPartial<'_>,
) {
    let entry = engine_opts.entry.as_str();
    let anchor = program.func_by_name(entry).map(|f| program.func(f).name_span).unwrap_or_default();
    let opts = Options { reference: Some(reference.clone()), ..engine_opts.clone() };
    let budget = Budget::new(deadline.saturating_duration_since(Instant::now()), cancel.clone());
    let mut found: Vec<FoundRepair> = Vec::new();
    let so_far = report.clone();
    let result = engine::run(program, text, &opts, &budget, &mut |r| {
        found.push(r.clone());
        stream(&so_far, &found, anchor, WHAT, on_partial);
    });
    report.stats.repair_ms += result.total_time.as_secs_f64() * 1000.0;
    if report.stats.first_repair_ms.is_none() {
        report.stats.first_repair_ms = found.first().map(|r| r.found_after.as_secs_f64() * 1000.0);
    }
    let b = opts.bound;
    match &result.original.verdict {
        BmcVerdict::Holds { complete } => {
            let how = if *complete { "for all inputs (verified)".to_string() } else { format!("on runs with at most {b} loop iterations (bounded, b={b})") };
            report.diagnostics.push(Diagnostic::info("equivalent", anchor, format!("prints the same values as the reference {how}")));
        }
        BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => report.diagnostics.push(Diagnostic::info(
            "unsupported",
            u.span,
            format!("not compared with the reference: {u}"),
        )),
        BmcVerdict::Unknown(BmcUnknown::Solver(reason)) => report.diagnostics.push(Diagnostic::info(
            "unknown",
            anchor,
            format!("the comparison with the reference could not be decided ({reason:?}); nothing is claimed"),
        )),
        BmcVerdict::Violated(cex) if cex.kind == ViolationKind::OutputMismatch => {
            // Both outputs, as the interpreter prints them on the counterexample's input.
            let limits = Limits { max_steps: 5_000_000, ..Limits::default() };
            let yours = interp::run(program, entry, cex.stdin.as_bytes(), &limits, cancel);
            let theirs = interp::run(reference, entry, cex.stdin.as_bytes(), &limits, cancel);
            let show = |r: &interp::RunResult| {
                let out = String::from_utf8_lossy(&r.output);
                shorten(compare::tail(&out, Some(r.output_before_last_read)).trim())
            };
            report.diagnostics.push(Diagnostic::warning(
                "reference-mismatch",
                anchor,
                format!(
                    "for input `{}` you print `{}`, the reference prints `{}`",
                    shorten(cex.stdin.trim_end()).replace("\\n", " "),
                    show(&yours),
                    show(&theirs)
                ),
            ));
        }
        // The student's own runtime errors are reported by the tests or the assertion check.
        BmcVerdict::Violated(_) => {}
    }
    if found.is_empty()
        && matches!(result.original.verdict, BmcVerdict::Violated(_))
    {
        let why = match &result.outcome {
            Some(Outcome::Incomplete { reason, .. }) => format!("no repair against the reference yet: the search stopped early ({reason})"),
            _ => format!(
                "no repair against the reference changes at most {} expressions at mutation level {}",
                opts.max_size, opts.level
            ),
        };
        report.diagnostics.push(Diagnostic::info("no-repair", anchor, why));
    }
    for repair in &found {
        push_repair(report, repair, anchor, WHAT);
    }
}
