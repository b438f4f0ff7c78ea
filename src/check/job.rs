//! One analysis job, shared by the server and `mend check` so both report the same thing:
//! [`check`] run on a thread of its own with a large stack, with a panic turned into an
//! internal-error diagnostic instead of taking the process down.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use super::{CheckOptions, Report, check, check_parsed, check_streaming};
use crate::cancel::Cancel;
use crate::ir::{Diagnostic, Span};

/// Stack for analysis threads: deeply nested sources (10,000 parentheses) must not overflow a
/// recursive pass, and the interpreter's runs of tests and candidates take place on it
/// ([`crate::spec::interp::declare_run_stack`]). Only the touched pages are committed.
pub const ANALYSIS_STACK: usize = (512 << 20) + crate::spec::interp::RUN_STACK;

/// The code of the diagnostic that replaces a report when the analysis panicked.
pub const INTERNAL_ERROR: &str = "internal-error";

/// Faults a test can inject into the analysis, passed in by whoever starts it (the server's
/// state, `mend check`); production runs use the default, which injects nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hooks {
    /// Every full analysis first sleeps this long, ignoring cancellation (an engine that
    /// reacts late), so tests can exercise stale results.
    pub analysis_delay: Option<std::time::Duration>,
    /// Every analysis panics, so tests can check that a panic is survived.
    pub analysis_panics: bool,
}

impl Hooks {
    /// Parses `delay=MS,panic` (the hidden `--test-hooks` option of `mend lsp` and `mend
    /// check`).
    pub fn parse(spec: &str) -> Result<Hooks, String> {
        let mut hooks = Hooks::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("delay", ms)) => {
                    hooks.analysis_delay = Some(std::time::Duration::from_millis(
                        ms.parse().map_err(|_| format!("`{ms}` is not a number of milliseconds"))?,
                    ))
                }
                None if part == "panic" => hooks.analysis_panics = true,
                _ => return Err(format!("unknown test hook `{part}` (known: delay=MS, panic)")),
            }
        }
        Ok(hooks)
    }
}

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
    pub hooks: Hooks,
}

/// Where a job sends its partial reports (shared with the thread that runs it).
pub type PartialSink = Arc<dyn Fn(&Report) + Send + Sync>;

impl Job {
    /// Runs the job to completion on a big-stack thread (blocking the caller); never panics.
    pub fn run(self) -> Report {
        let Job { path, text, tree, opts, cancel, quick, on_partial, hooks } = self;
        if let (Some(delay), false) = (hooks.analysis_delay, quick) {
            std::thread::sleep(delay);
        }
        let keep = text.clone();
        // The server's tree comes from incremental parses: reports use the canonical one.
        let tree = tree.map(|t| crate::syntax::canonical(t, &text));
        let work = move || {
            catch_unwind(AssertUnwindSafe(|| match &tree {
                _ if hooks.analysis_panics => panic!("the analysis_panics test hook is set"),
                Some(tree) if quick => super::quick_at(path.as_deref(), tree, &text, &opts),
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
        .spawn(|| {
            crate::spec::interp::declare_run_stack();
            f()
        })
        .map_err(|e| format!("could not start an analysis thread: {e}"))?;
    handle.join().map_err(|payload| panic_message(&*payload))
}
