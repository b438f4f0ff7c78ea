//! One analysis of a file, shared by the server and `mend check` so both report the same thing:
//! the syntax layer's diagnostics and repairs merged with [`check`]'s report, computed on a
//! thread of its own with a large stack, with panics turned into an internal-error diagnostic.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cancel::Cancel;
use crate::check::{CheckOptions, Report, check};
use crate::ir::{Diagnostic, Span};

use super::syntax_api::syntax_diagnostics;

/// Stack for analysis threads: deeply nested sources (10,000 parentheses) must not overflow a
/// recursive pass. Only the touched pages are committed.
pub const ANALYSIS_STACK: usize = 512 << 20;

/// The code of the diagnostic that replaces a report when the analysis panicked.
pub const INTERNAL_ERROR: &str = "internal-error";

/// Runs [`check`] and adds the syntax layer's diagnostics and repairs when
/// `opts.syntax_diagnostics` is on (duplicates removed), so the result stands on its own whether
/// or not `check` reports syntax errors itself. Panics inside are caught (see [`run_guarded`]).
pub fn full_report(path: Option<&Path>, text: &str, opts: &CheckOptions, cancel: &Cancel) -> Report {
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let mut report = check(path, text, opts, cancel);
        if opts.syntax_diagnostics {
            let (diags, repairs) = parse_syntax(text);
            merge(&mut report, diags, repairs);
        }
        report
    }));
    match caught {
        Ok(report) => report,
        Err(payload) => internal_error_report(text, &panic_message(&*payload)),
    }
}

/// Syntax diagnostics of a text parsed from scratch (the CLI's path; the server reuses the tree
/// of its document).
pub fn parse_syntax(text: &str) -> (Vec<Diagnostic>, Vec<crate::patch::Repair>) {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).expect("tree-sitter-c ABI matches");
    match parser.parse(text, None) {
        Some(tree) => syntax_diagnostics(&tree, text),
        None => (Vec::new(), Vec::new()),
    }
}

/// Adds `diags` and `repairs` that `report` does not already have, and sorts diagnostics by
/// position so the output is stable.
pub fn merge(report: &mut Report, diags: Vec<Diagnostic>, repairs: Vec<crate::patch::Repair>) {
    let mut seen: HashSet<(Span, &'static str, String)> =
        report.diagnostics.iter().map(|d| (d.span, d.code, d.message.clone())).collect();
    for d in diags {
        if seen.insert((d.span, d.code, d.message.clone())) {
            report.diagnostics.push(d);
        }
    }
    for r in repairs {
        if !report.repairs.contains(&r) {
            report.repairs.push(r);
        }
    }
    report.diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
}

pub fn internal_error_report(text: &str, message: &str) -> Report {
    let end = text.find('\n').unwrap_or(text.len());
    let mut report = Report::default();
    report.diagnostics.push(Diagnostic::error(
        INTERNAL_ERROR,
        Span::new(0, end),
        format!("mend's analysis failed on this file ({message}); other results are unavailable. Please report this."),
    ));
    report
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Runs `f` on a fresh thread with [`ANALYSIS_STACK`] bytes of stack and waits for it. A panic
/// (already caught inside [`full_report`], but `f` may be anything) comes back as `Err`.
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .name("mend-analysis".into())
        .stack_size(ANALYSIS_STACK)
        .spawn(f)
        .map_err(|e| format!("could not start an analysis thread: {e}"))?;
    handle.join().map_err(|payload| panic_message(&*payload))
}

/// A snapshot to analyse: owned, so it can move to the analysis thread.
pub struct Job {
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
    pub opts: CheckOptions,
    pub cancel: Cancel,
}

impl Job {
    /// Runs the job to completion on a big-stack thread (blocking the caller); never panics.
    pub fn run(self) -> Report {
        let Job { path, text, opts, cancel } = self;
        let keep = text.clone();
        on_big_stack(move || full_report(path.as_deref(), &text, &opts, &cancel))
            .unwrap_or_else(|message| internal_error_report(&keep, &message))
    }
}
