//! Repair against the states a student expects at points of a run (Wolverine2's repair, on
//! the spec `mend dap`'s `spec` command collects): the mutation and statement search of
//! [`against_tests`], in the paper's priority (one changed expression, then a moved, deleted
//! or inserted statement, then two changed expressions), with an oracle that runs each
//! candidate on the session's input and checks every expected state at its point
//! ([`expectations::check`]), then asks the caller whether it keeps what must not break (the
//! tests the program passes). What it claims is exactly that: the patch reaches those states
//! on that input, and keeps the tests it was asked to keep.

use std::path::Path;
use std::time::Duration;

use crate::cancel::Cancel;
use crate::engines::localize::Suspects;
use crate::engines::mutation::against_tests::{self, TestResult};
use crate::engines::mutation::engine::Options;
use crate::engines::mutation::search::Verdict;
use crate::ir::{Program, TextEdit, apply_edits};
use crate::smt::Budget;
use crate::spec::compare::{self, Compare};
use crate::spec::expectations::{self, Checked, Expectation};
use crate::spec::interp::{self, Limits};
use crate::syntax::line_index::LineIndex;

/// The time a `repair` command may take.
const REPAIR_BUDGET: Duration = Duration::from_secs(20);
/// Steps a candidate's run may take (a candidate that loops for ever must not eat the budget).
const CANDIDATE_STEPS: u64 = 5_000_000;

/// A patch that reaches every expected state.
#[derive(Clone, Debug)]
pub struct StateRepair {
    /// Edits of the text the search was given.
    pub edits: Vec<TextEdit>,
    /// One line per change, for the student: "line 17: `prev = head` → `prev = cur`".
    pub descriptions: Vec<String>,
    /// The patched program.
    pub program: Program,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub repair: Option<StateRepair>,
    /// Why there is none, when something more than "none in the space" is known.
    pub why_not: Option<String>,
}

/// What a candidate must keep besides the expected states (the tests the program passes):
/// `true` when it does.
pub type Keeps<'a> = dyn Fn(&Program, &Cancel) -> bool + Sync + 'a;

/// The first (best-ranked) patch of `program` whose run on `input` reaches every expectation
/// and that `keeps` accepts. Runs on a thread of its own with the interpreter's stack.
pub fn repair(
    program: &Program,
    text: &str,
    input: &[u8],
    expected: &[Expectation],
    keeps: &Keeps<'_>,
    cancel: &Cancel,
) -> Outcome {
    let search = || {
        interp::declare_run_stack();
        search(program, text, input, expected, keeps, cancel)
    };
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("mend-state-repair".into())
            .stack_size(interp::RUN_STACK + (64 << 20))
            .spawn_scoped(s, search)
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or_else(|| Outcome { repair: None, why_not: Some("mend could not start the search".into()) })
    })
}

fn search(
    program: &Program,
    text: &str,
    input: &[u8],
    expected: &[Expectation],
    keeps: &Keeps<'_>,
    cancel: &Cancel,
) -> Outcome {
    let limits = Limits { max_steps: CANDIDATE_STEPS, ..Limits::default() };
    // Wolverine2's localisation orders the space: what runs between the last state met and
    // the first that differs comes first.
    let (as_written, window) = expectations::localise(program, "main", input, expected, &limits, cancel);
    if as_written == Checked::Met {
        return Outcome { repair: None, why_not: Some("your program already reaches every one of them".into()) };
    }
    let found_cancel = cancel.child();
    let budget = Budget::new(REPAIR_BUDGET, found_cancel.clone());
    let mut passes_all = |candidate: &Program, budget: &Budget| -> Verdict {
        match expectations::check(candidate, "main", input, expected, &limits, &budget.cancel) {
            Checked::Met if keeps(candidate, &budget.cancel) => Verdict::Repaired,
            Checked::Met if budget.cancel.is_cancelled() => Verdict::Unknown("cancelled".into()),
            Checked::Met => Verdict::Fails,
            Checked::Cancelled => Verdict::Unknown("cancelled".into()),
            Checked::Differs { .. } | Checked::NotReached { .. } => Verdict::Fails,
        }
    };
    let results = [TestResult { input: String::from_utf8_lossy(input).into_owned(), passed: false }];
    let opts = Options { max_size: 2, suspects: Suspects { function: None, statements: window }, ..Options::default() };
    let mut first = None;
    against_tests::run(program, text, &opts, &results, &mut passes_all, None, &budget, &mut |r| {
        if first.is_none() {
            first = Some(r.clone());
            // The first is the best ranked: the rest of the search is not needed.
            found_cancel.cancel();
        }
    });
    let Some(found) = first else {
        let why_not = match budget.stop_reason() {
            _ if cancel.is_cancelled() => Some("the session ended".into()),
            Some(_) => Some(format!("mend stopped searching after {} s", REPAIR_BUDGET.as_secs())),
            None => None,
        };
        return Outcome { repair: None, why_not };
    };
    let edits = found.edits();
    let patched = apply_edits(text, &edits);
    let lowered = crate::syntax::lower::lower_source(&patched);
    if lowered.has_errors() {
        return Outcome { repair: None, why_not: Some("the fix found does not compile".into()) };
    }
    let index = LineIndex::new(text);
    let descriptions = (found.changes.iter())
        .map(|c| format!("line {}: {}", index.line_of(c.mutant.edit.span.start as usize) + 1, c.mutant.description))
        .collect();
    Outcome { repair: Some(StateRepair { edits, descriptions, program: lowered.program }), why_not: None }
}

/// The tests of a file's mend.toml that its program passes: a repair in a debugging session
/// must keep them passing.
#[derive(Clone, Debug, Default)]
pub struct PassingTests {
    tests: Vec<(Vec<u8>, String)>,
    compare: Compare,
}

impl PassingTests {
    /// The tests of `file`'s mend.toml (none without one) that `program` passes.
    pub fn of(file: &Path, program: &Program) -> PassingTests {
        let Ok(Some(config)) = crate::spec::config::discover(file) else { return PassingTests::default() };
        let Some(dir) = config.tests else { return PassingTests::default() };
        let all = PassingTests {
            tests: (crate::spec::tests::discover(&dir).iter())
                .filter_map(|t| Some((std::fs::read(&t.input).ok()?, std::fs::read_to_string(&t.output).ok()?)))
                .collect(),
            compare: config.compare,
        };
        let cancel = Cancel::new();
        let tests = all.tests.iter().filter(|t| all.passes(program, t, &cancel)).cloned().collect();
        PassingTests { tests, compare: all.compare }
    }

    pub fn len(&self) -> usize {
        self.tests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    /// Whether `program` still passes every one of them.
    pub fn kept_by(&self, program: &Program, cancel: &Cancel) -> bool {
        self.tests.iter().all(|t| self.passes(program, t, cancel))
    }

    fn passes(&self, program: &Program, (input, expected): &(Vec<u8>, String), cancel: &Cancel) -> bool {
        let limits = Limits { max_steps: CANDIDATE_STEPS, ..Limits::default() };
        let run = interp::run(program, "main", input, &limits, cancel);
        let actual = String::from_utf8_lossy(&run.output);
        run.error.is_none()
            && compare::output_matches(self.compare, expected, None, &actual, Some(run.output_before_last_read))
    }
}
