//! One analysis job, shared by the server and `mend check` so both report the same thing:
//! [`check`] run on a thread of its own with a large stack, with a panic turned into an
//! internal-error diagnostic instead of taking the process down.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{CheckOptions, Report, check, check_streaming, check_text_streaming};
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
    /// After its first partial report, every full analysis sleeps this long, ignoring
    /// cancellation (a solver query that does not stop when interrupted), so tests can check
    /// that a job still ends at its budget.
    pub analysis_stalls: Option<std::time::Duration>,
}

impl Hooks {
    /// Parses `delay=MS,stall=MS,panic` (the hidden `--test-hooks` option of `mend lsp` and
    /// `mend check`).
    pub fn parse(spec: &str) -> Result<Hooks, String> {
        let mut hooks = Hooks::default();
        let millis = |ms: &str| {
            ms.parse().map(Duration::from_millis).map_err(|_| format!("`{ms}` is not a number of milliseconds"))
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("delay", ms)) => hooks.analysis_delay = Some(millis(ms)?),
                Some(("stall", ms)) => hooks.analysis_stalls = Some(millis(ms)?),
                None if part == "panic" => hooks.analysis_panics = true,
                _ => return Err(format!("unknown test hook `{part}` (known: delay=MS, stall=MS, panic)")),
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
    /// The full analysis of the file at `path` holding `text`, as `mend check` runs it: no
    /// tree yet, nobody to cancel it, no partial reports wanted.
    pub fn of_file(path: PathBuf, text: &str, opts: CheckOptions, hooks: Hooks) -> Job {
        Job {
            path: Some(path),
            text: text.into(),
            tree: None,
            opts,
            cancel: Cancel::new(),
            quick: false,
            on_partial: None,
            hooks,
        }
    }

    /// Runs the job to completion on a big-stack thread (blocking the caller); never panics.
    /// A full analysis returns by its budget and a grace ([`over_budget_grace`]) whatever
    /// happens on its thread: past that, the job cancels it and returns the last partial
    /// report (else the quick stage's) with a note that the analysis stopped there. The
    /// thread is left to end by itself (a Z3 tactic may not poll its interrupt for seconds);
    /// nothing it reports later is used.
    pub fn run(self) -> Report {
        let Job { path, text, tree, opts, cancel, quick, on_partial, hooks } = self;
        if let (Some(delay), false) = (hooks.analysis_delay, quick) {
            std::thread::sleep(delay);
        }
        let keep = text.clone();
        // The server's tree comes from incremental parses: reports use the canonical one.
        let tree = tree.map(|t| crate::syntax::canonical(t, &text));
        if quick {
            let work = move || {
                catch_unwind(AssertUnwindSafe(|| match &tree {
                    _ if hooks.analysis_panics => panic!("the analysis_panics test hook is set"),
                    Some(tree) => super::quick_at(path.as_deref(), tree, &text, &opts),
                    None => check(path.as_deref(), &text, &opts, &cancel),
                }))
                .map_err(|payload| panic_message(&*payload))
            };
            return finished(on_big_stack(work), &keep);
        }
        let started = std::time::Instant::now();
        let budget = super::analysis_budget(path.as_deref(), &opts);
        let shown = Arc::new(Shown::default());
        let analysis = cancel.child();
        let work = {
            let (shown, analysis, text, opts, path) =
                (shown.clone(), analysis.clone(), text.clone(), opts.clone(), path.clone());
            move || {
                let sink = |partial: &Report| {
                    if shown.keep(partial)
                        && let Some(f) = &on_partial
                    {
                        f(partial)
                    }
                    if let Some(stall) = hooks.analysis_stalls
                        && shown.first_stall()
                    {
                        std::thread::sleep(stall);
                    }
                };
                catch_unwind(AssertUnwindSafe(|| match &tree {
                    _ if hooks.analysis_panics => panic!("the analysis_panics test hook is set"),
                    Some(tree) => check_streaming(path.as_deref(), &text, tree, &opts, &analysis, &sink),
                    None => check_text_streaming(path.as_deref(), &text, &opts, &analysis, &sink),
                }))
                .map_err(|payload| panic_message(&*payload))
            }
        };
        match on_big_stack_within(work, budget + over_budget_grace(budget)) {
            Some(result) => finished(result, &keep),
            None => {
                analysis.cancel();
                let mut report = shown.stop().unwrap_or_else(|| {
                    // No partial report yet: the front end's findings at least.
                    let tree = crate::syntax::parse(&text, None);
                    let quick = move || super::quick_at(path.as_deref(), &tree, &text, &opts);
                    on_big_stack(quick).unwrap_or_default()
                });
                report.diagnostics.push(stopped_at_budget(&keep, budget));
                report.stats.total_ms = started.elapsed().as_secs_f64() * 1000.0;
                report.stats.timed_out = true;
                // The comparison with the reference did not conclude, unless it already had.
                report.stats.reference.get_or_insert(crate::engines::verified::region::OUT_OF_TIME);
                report
            }
        }
    }
}

/// How long past its budget a full analysis may run before [`Job::run`] stops waiting for it:
/// the engines stop at the deadline themselves and only finish their report after it.
pub fn over_budget_grace(budget: Duration) -> Duration {
    Duration::from_secs(1) + budget / 20
}

/// The partial reports of a full analysis, as far as the job still uses them.
#[derive(Default)]
struct Shown {
    /// The last partial report; `stopped` once the job returned without the analysis.
    last: Mutex<(Option<Report>, bool)>,
    stalled: std::sync::atomic::AtomicBool,
}

impl Shown {
    /// Keeps `partial` as the last one; false once the job stopped (it is not passed on).
    fn keep(&self, partial: &Report) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.1 {
            return false;
        }
        last.0 = Some(partial.clone());
        true
    }

    /// The last partial report, and no more from now on.
    fn stop(&self) -> Option<Report> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.1 = true;
        last.0.take()
    }

    /// True the first time only (the stall hook stalls once).
    fn first_stall(&self) -> bool {
        !self.stalled.swap(true, std::sync::atomic::Ordering::Relaxed)
    }
}

/// The note of an analysis the job stopped at its budget, on the first line.
fn stopped_at_budget(text: &str, budget: Duration) -> Diagnostic {
    let end = text.find('\n').unwrap_or(text.len());
    Diagnostic::info(
        OUT_OF_TIME,
        Span::new(0, end),
        format!(
            "mend stopped checking this file at its time limit ({} s) before it finished; what is shown is what it found by then. A larger `timeout_secs` in mend.toml (or the editor's timeout setting) gives it more time.",
            budget.as_secs_f64().round() as u64
        ),
    )
}

/// The code of the note that an analysis was stopped at its budget.
pub const OUT_OF_TIME: &str = "analysis-stopped";

/// The report of an analysis thread's result: a panic or a thread that could not start
/// becomes an internal-error report.
fn finished(result: Result<Result<Report, String>, String>, text: &str) -> Report {
    match result {
        Ok(Ok(report)) => report,
        Ok(Err(message)) | Err(message) => internal_error_report(text, &message),
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

/// [`on_big_stack`], waiting at most `limit`: `None` when `f` has not returned by then (the
/// thread goes on, detached; what it returns is dropped).
pub fn on_big_stack_within<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
    limit: Duration,
) -> Option<Result<T, String>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned =
        std::thread::Builder::new().name("mend-analysis".into()).stack_size(ANALYSIS_STACK).spawn(move || {
            crate::spec::interp::declare_run_stack();
            // A panic drops `tx` unsent: the receiver sees the thread gone.
            let _ = tx.send(f());
        });
    if let Err(e) = spawned {
        return Some(Err(format!("could not start an analysis thread: {e}")));
    }
    match rx.recv_timeout(limit) {
        Ok(value) => Some(Ok(value)),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Some(Err("the analysis thread ended abruptly".into())),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
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
