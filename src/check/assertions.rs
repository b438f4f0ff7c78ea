//! Assertions as the spec: the bounded verifier's verdict as diagnostics, and the mutation
//! engine's minimal repairs as quick fixes.

use std::time::Instant;

use crate::cancel::Cancel;
use crate::engines::mutation::engine::{self, FoundRepair, Options};
use crate::engines::mutation::search::Outcome;
use crate::ir::walk::walk_stmt;
use crate::ir::*;
use crate::smt::Budget;
use crate::smt::bmc::{BmcUnknown, BmcVerdict, Counterexample, InputItem, InputValue};
use crate::smt::encode::{LocationKind, ViolationKind};

use super::{OnPartial, Report};

/// What an assertion repair achieves, in its explanation.
const WHAT: &str = "every assertion holds";

/// Whether any function uses a verification convention (`assert`, `assume`, `nondet_*`,
/// `reach_error`): only then is there an assertion spec to verify against.
pub fn has_assertions(program: &Program) -> bool {
    let mut found = false;
    for f in &program.funcs {
        if let Some(body) = &f.body {
            walk_stmt(body, &mut |e: &Expr| {
                if let ExprKind::Call(Callee::Builtin(Builtin::Assert | Builtin::ReachError), _) = e.kind {
                    found = true;
                }
            });
        }
    }
    found
}

/// "n = 4, m = 0": each input named by the variable it initialises or is assigned to
/// (`int n = nondet_int();` reads as `n`), else as the verifier names it.
fn input_names(program: &Program, cex: &crate::smt::bmc::Counterexample) -> String {
    let mut targets: std::collections::HashMap<Span, String> = std::collections::HashMap::new();
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e: &Expr| {
            if let ExprKind::Assign(lhs, rhs) = &e.kind
                && let ExprKind::Var(v) = lhs.kind
            {
                targets.insert(rhs.strip_implicit().span, program.var(v).name.clone());
            }
        });
        collect_initialised(body, program, &mut targets);
    }
    cex.inputs
        .iter()
        .map(|i| format!("{} = {}", targets.get(&i.span).cloned().unwrap_or_else(|| i.name.clone()), i.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The counterexample with its input made readable ([`super::counterexample`]): each number
/// as simple as it can be while the interpreter still fails the same way at the same place.
/// The solver's branch steps describe its own input, so they go when the input changes.
fn readable(program: &Program, entry: &str, cex: &Counterexample, cancel: &Cancel) -> Counterexample {
    use crate::spec::interp::{self, Limits, RuntimeErrorKind as K};
    let kind = match cex.kind {
        ViolationKind::Assertion => K::AssertionFailed,
        ViolationKind::ReachError => K::ReachError,
        ViolationKind::DivisionByZero => K::DivisionByZero,
        ViolationKind::OutOfBounds => K::OutOfBounds,
        ViolationKind::NullDereference => K::NullDereference,
        ViolationKind::UseAfterFree => K::UseAfterFree,
        ViolationKind::InvalidFree => K::InvalidFree,
        ViolationKind::OutputMismatch => return cex.clone(),
    };
    if cex.stdin.trim().is_empty() {
        return cex.clone();
    }
    let limits = Limits { max_steps: super::counterexample::CANDIDATE_STEPS, ..Limits::default() };
    let fails_there = |input: &str| {
        let run = interp::run(program, entry, input.as_bytes(), &limits, cancel);
        run.error.is_some_and(|e| e.kind == kind && e.span == cex.span)
    };
    let stdin = super::counterexample::simplest_input(&cex.stdin, &fails_there, cancel);
    if stdin == cex.stdin {
        return cex.clone();
    }
    let values: Vec<&str> = stdin.split_whitespace().collect();
    let numeric = cex.inputs.iter().all(|i| matches!(i.value, InputValue::Int(_) | InputValue::Float(_)));
    let inputs = if numeric && values.len() == cex.inputs.len() {
        cex.inputs
            .iter()
            .zip(&values)
            .map(|(i, v)| {
                let value = match i.value {
                    InputValue::Int(_) => v.parse().map(InputValue::Int).ok(),
                    _ => v.parse().map(InputValue::Float).ok(),
                };
                value.map(|value| InputItem { value, text: v.to_string(), ..i.clone() })
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Counterexample { stdin, inputs, steps: Vec::new(), ..cex.clone() }
}

/// The error a counterexample shows (a failed assertion, a null dereference, …) at its
/// place, with its input made readable and the branches it takes, as a diagnostic of `code`.
pub(super) fn violation(
    program: &Program,
    entry: &str,
    cex: &Counterexample,
    code: &'static str,
    cancel: &Cancel,
) -> Diagnostic {
    let cex = &readable(program, entry, cex, cancel);
    let inputs = input_names(program, cex);
    let when = if inputs.is_empty() { String::new() } else { format!(" for {inputs}") };
    let mut d =
        Diagnostic::error(code, cex.span, format!("{} {when}", cex.kind.describe()).trim_end().replace("  ", " "));
    if !cex.stdin.is_empty() {
        d.message.push_str(&format!(" (input `{}`)", super::input_shown(&cex.stdin)));
    }
    for step in cex.steps.iter().take(8) {
        let what = if step.taken { "this branch is taken" } else { "this branch is not taken" };
        d = d.with_related(step.span, what);
    }
    d
}

fn collect_initialised(s: &Stmt, program: &Program, out: &mut std::collections::HashMap<Span, String>) {
    crate::ir::walk::for_each_stmt(s, &mut |st| {
        if let StmtKind::Decl { var, init: Some(Init::Expr(e)) } = &st.kind {
            out.insert(e.strip_implicit().span, program.var(*var).name.clone());
        }
    });
}

pub fn check_assertions(
    program: &Program,
    text: &str,
    engine_opts: &Options,
    deadline: Instant,
    cancel: &Cancel,
    report: &mut Report,
    on_partial: OnPartial<'_>,
) {
    if !has_assertions(program) {
        return;
    }
    let Some(main) = program.func_by_name("main") else { return };
    let anchor = program.func(main).name_span;
    let remaining = deadline.saturating_duration_since(Instant::now());
    let budget = Budget::new(remaining, cancel.clone());
    let mut found: Vec<FoundRepair> = Vec::new();
    let so_far = report.clone();
    let result = engine::run(program, text, engine_opts, &budget, &mut |r| {
        found.push(r.clone());
        stream(&so_far, &found, anchor, WHAT, on_partial);
        true
    });
    let b = engine_opts.bound;
    report.stats.repair_ms = result.total_time.as_secs_f64() * 1000.0;
    report.stats.first_repair_ms = found.first().map(|r| r.found_after.as_secs_f64() * 1000.0);
    report.stats.assertions = Some(match &result.original.verdict {
        BmcVerdict::Holds { complete: true } => "verified",
        BmcVerdict::Holds { complete: false } => "bounded",
        BmcVerdict::Violated(_) => "violated",
        BmcVerdict::Unknown(BmcUnknown::Unsupported(_)) => "unsupported",
        BmcVerdict::Unknown(BmcUnknown::Solver(_)) => "unknown",
    });
    // The inputs a proof covers: all, or those with a line break where it assumed one.
    let assumed = result.original.assumption().map(|a| format!(" where {a}"));
    let inputs = format!("inputs{}", assumed.as_deref().unwrap_or(""));
    let of_inputs = assumed.map(|where_| format!(" of inputs{where_}")).unwrap_or_default();
    match &result.original.verdict {
        BmcVerdict::Holds { complete: true } => {
            report.diagnostics.push(Diagnostic::info(
                "verified",
                anchor,
                format!("every assertion holds for all {inputs} (verified)"),
            ));
        }
        BmcVerdict::Holds { complete: false } => report.diagnostics.push(Diagnostic::info(
            "bounded",
            anchor,
            format!(
                "every assertion holds on runs with at most {}{of_inputs}; longer runs were not checked",
                result.original.bound(b).words()
            ),
        )),
        BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => {
            report.diagnostics.push(Diagnostic::info(
                "unsupported",
                u.span,
                format!("the assertions were not checked: {}", super::unsupported_words(u)),
            ));
        }
        BmcVerdict::Unknown(BmcUnknown::Solver(reason)) => report.diagnostics.push(Diagnostic::info(
            "unknown",
            anchor,
            format!(
                "mend could not decide whether the assertions hold ({}); it claims nothing about them",
                super::undecided_words(reason)
            ),
        )),
        BmcVerdict::Violated(cex) => {
            let d = violation(program, &engine_opts.entry, cex, "assertion", cancel);
            let at = d.span;
            report.diagnostics.push(d);
            if found.is_empty() {
                let why = no_fix_message(result.outcome.as_ref(), engine_opts.max_size, "makes every assertion hold");
                report.diagnostics.push(Diagnostic::info("no-repair", at, why));
            }
        }
    }
    for (span, name) in &result.original.uninit_reads {
        report.diagnostics.push(Diagnostic::warning(
            "uninitialised",
            *span,
            format!("`{name}` may be used before it is given a value"),
        ));
    }
    for repair in &found {
        push_repair(report, repair, anchor, WHAT);
    }
}

/// A mutation repair as a quick fix for the diagnostic at its first changed expression
/// (`check::present` shows the changed places of the best repair); `what` says what the
/// repaired program achieves.
pub fn push_repair(report: &mut Report, repair: &FoundRepair, anchor: Span, what: &str) {
    // An include another change needs is part of that change.
    let changes: Vec<&engine::Change> = repair.changes.iter().filter(|c| !c.mutant.kind.is_companion()).collect();
    let first = changes.first().map(|c| c.place_span()).unwrap_or(anchor);
    let statements = changes.iter().filter(|c| c.location.kind == LocationKind::Statement).count();
    let expressions = changes.len() - statements;
    let counted = |n: usize, what: &str| match n {
        0 => None,
        1 => Some(format!("1 {what}")),
        n => Some(format!("{n} {what}s")),
    };
    let changed: Vec<String> =
        [counted(expressions, "expression"), counted(statements, "statement")].into_iter().flatten().collect();
    let explanation = format!(
        "Changes {} so that {what}{}.",
        changed.join(" and "),
        match &repair.guarantee {
            Guarantee::Verified => " for every input (proved)".to_string(),
            Guarantee::Bounded { bound } => format!(" on every run with at most {} (proved)", bound.words()),
            Guarantee::VerifiedAssuming { .. } => {
                format!(" for all {} (proved)", repair.guarantee.assumed_runs().unwrap_or_default())
            }
            _ => String::new(),
        },
    );
    report.repairs.push(Repair {
        reached: Vec::new(),
        title: repair.title(),
        engine: "mutation",
        guarantee: repair.guarantee.clone(),
        edits: repair.edits(),
        places: changes.iter().map(|c| Place { span: c.place_span(), change: c.mutant.description.clone() }).collect(),
        explanation,
        details: format!("found in {} ms", repair.found_after.as_millis()),
        fixes: vec![first],
    });
}

/// The one sentence for a search that found no fix: what it tried and whether it finished;
/// `goal` says what a fix would achieve ("makes every assertion hold").
pub fn no_fix_message(outcome: Option<&Outcome>, max_size: usize, goal: &str) -> String {
    match outcome {
        Some(Outcome::Incomplete { reason, .. }) if reason.contains("Timeout") => {
            format!("mend ran out of time before finding a fix that {goal}")
        }
        Some(Outcome::Incomplete { .. }) => format!("mend stopped before finding a fix that {goal}"),
        Some(Outcome::Unmodelled(u)) => {
            format!("mend did not search for a fix that {goal}: {}", super::unsupported_words(u))
        }
        _ if max_size == 1 => format!("mend found no fix of one changed expression that {goal}"),
        _ => format!("mend found no fix of up to {max_size} changed expressions that {goal}"),
    }
}

/// Sends `so_far` plus the repairs found until now to `on_partial`.
pub fn stream(so_far: &Report, found: &[FoundRepair], anchor: Span, what: &str, on_partial: OnPartial<'_>) {
    let mut partial = so_far.clone();
    for r in found {
        push_repair(&mut partial, r, anchor, what);
    }
    partial.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
    on_partial(&partial);
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::check::{CheckOptions, check};

    /// A guard that misses a range: whatever large values the solver picks, the student is
    /// shown numbers of a few digits that still break the assertion.
    #[test]
    fn a_failing_assertion_shows_a_small_input() {
        let src = "#include <assert.h>\n#include <stdio.h>\nint main(void) {\n    int price, quantity;\n    scanf(\"%d %d\", &price, &quantity);\n    int total = 0;\n    if (price > 0 && quantity > 0) {\n        total = price * quantity;\n        if (quantity > 999)\n            total = 0;\n    }\n    assert(total < 500000);\n    printf(\"%d\\n\", total);\n    return 0;\n}\n";
        let opts = CheckOptions { repair_assertions: true, max_repair_size: 1, ..CheckOptions::default() };
        let report = check(None, src, &opts, &Cancel::new());
        let d = report.diagnostics.iter().find(|d| d.code == "assertion").expect("the assertion fails");
        let input = d.message.split('`').nth(1).expect("an input in the message");
        let numbers: Vec<i64> = input.split_whitespace().map(|w| w.parse().expect("a number")).collect();
        assert_eq!(numbers.len(), 2, "{}", d.message);
        assert!(numbers.iter().all(|n| n.abs() < 10_000), "{}", d.message);
        assert!(numbers[0] * numbers[1] >= 500_000 && numbers[1] <= 999, "{}", d.message);
        // The values named in the message are the input's.
        assert!(d.message.contains(&format!("price = {}, quantity = {}", numbers[0], numbers[1])), "{}", d.message);
    }
}
