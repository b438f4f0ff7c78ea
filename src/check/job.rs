//! One analysis job, shared by the server and `mend check` so both report the same thing:
//! [`check`] run on a thread of its own with a large stack, with a panic turned into an
//! internal-error diagnostic instead of taking the process down.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use crate::cancel::Cancel;
use super::{CheckOptions, Report, check, check_parsed, check_streaming, quick};
use crate::ir::{Diagnostic, Span};

/// Stack for analysis threads: deeply nested sources (10,000 parentheses) must not overflow a
/// recursive pass. Only the touched pages are committed.
pub const ANALYSIS_STACK: usize = 512 << 20;

/// The code of the diagnostic that replaces a report when the analysis panicked.
pub const INTERNAL_ERROR: &str = "internal-error";

/// A snapshot to analyse: owned, so it can move to the analysis thread.
pub struct Job {
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
    /// The document's tree when the server has one (saves a parse); `None` parses `text`.
    pub tree: Option<tree_sitter::Tree>,
    pub opts: CheckOptions,
    pub cancel: Cancel,
    /// Only syntax and type diagnostics (see [`quick`]), for every keystroke.
    pub quick: bool,
    /// Receives partial reports as repairs are found (see [`check_streaming`]).
    pub on_partial: Option<PartialSink>,
}

/// Where a job sends its partial reports (shared with the thread that runs it).
pub type PartialSink = Arc<dyn Fn(&Report) + Send + Sync>;

impl Job {
    /// Runs the job to completion on a big-stack thread (blocking the caller); never panics.
    pub fn run(self) -> Report {
        let Job { path, text, tree, opts, cancel, quick, on_partial } = self;
        let keep = text.clone();
        let work = move || {
            catch_unwind(AssertUnwindSafe(|| match &tree {
                // Lets the end-to-end tests check that a panicking analysis is survived.
                _ if std::env::var_os("MEND_TEST_ANALYSIS_PANIC").is_some() => panic!("MEND_TEST_ANALYSIS_PANIC is set"),
                Some(tree) if quick => self::quick(tree, &text, &opts),
                Some(tree) => match &on_partial {
                    Some(f) => check_streaming(path.as_deref(), &text, tree, &opts, &cancel, &|r: &Report| f(r)),
                    None => check_parsed(path.as_deref(), &text, tree, &opts, &cancel),
                },
                None => check(path.as_deref(), &text, &opts, &cancel),
            }))
            .map_err(|payload| panic_message(&*payload))
        };
        match on_big_stack(work) {
            Ok(Ok(report)) => report,
            Ok(Err(message)) | Err(message) => internal_error_report(&keep, &message),
        }
    }
}

/// A report holding only an internal-error diagnostic on the first line.
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

/// Runs `f` on a fresh thread with [`ANALYSIS_STACK`] bytes of stack and waits for it.
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .name("mend-analysis".into())
        .stack_size(ANALYSIS_STACK)
        .spawn(f)
        .map_err(|e| format!("could not start an analysis thread: {e}"))?;
    handle.join().map_err(|payload| panic_message(&*payload))
}
