//! Where a failing test's run goes wrong, said to the student (Wolverine2's localisation,
//! with the reference's runs for the states the student would expect):
//!
//! - a function the program shares with the reference, called as the reference calls it,
//!   that leaves something else ([`localize::first_wrong_call`]): "`reverse` goes wrong:
//!   called with `head` = 3 → 2 → 1 → NULL (test 2, input `1 2 3`), it returns 1 → NULL, but
//!   it should return 1 → 2 → 3 → NULL";
//! - inside that function (or the entry), the first loop round or `return` where a variable
//!   both programs have holds another value than in the reference's run, at the statement
//!   that gave it that value ([`localize::blamed_state`]). On its own (`wrong-state`) it is
//!   said only when the test of cause holds (given the reference's values there, the rest of
//!   the run passes the test); inside a wrong call it is that diagnostic's related
//!   information, as the call already shows the run goes wrong there.

use crate::cancel::Cancel;
use crate::engines::localize::{self, PointKind, Suspects, WrongState};
use crate::ir::{Diagnostic, Program, Span};
use crate::spec::compare::Compare;
use crate::syntax::line_index::LineIndex;

use super::{TestOutcome, input_shown, outputs_shown, shorten};

/// Failing tests tried, shortest input first.
const LOCALISED_TESTS: usize = 3;
/// Passing tests that may clear a difference, shortest input first.
const PASSING_TESTS: usize = 2;

/// Where the failing runs go wrong: the one diagnostic that says it, if mend can say where,
/// and the suspects it gives the repair search.
pub(super) struct Localised {
    pub diagnostic: Option<Diagnostic>,
    pub suspects: Suspects,
}

/// Localises the failing tests of `tests` once, for the student and for the repair search.
#[allow(clippy::too_many_arguments)]
pub(super) fn localise(
    program: &Program,
    text: &str,
    reference: &Program,
    entry: &str,
    tests: &[TestOutcome],
    compare: Compare,
    max_steps: u64,
    cancel: &Cancel,
) -> Localised {
    let mut tried: Vec<&TestOutcome> = tests.iter().filter(|t| !t.passed).collect();
    tried.sort_by_key(|t| t.input.trim().chars().count());
    tried.truncate(LOCALISED_TESTS);
    let lines = LineIndex::new(text);
    // A difference a passing test shows too is a variable used otherwise, not the bug.
    let mut passing: Vec<&TestOutcome> = tests.iter().filter(|t| t.passed).collect();
    passing.sort_by_key(|t| t.input.len());
    let passing: Vec<&[u8]> = passing.iter().take(PASSING_TESTS).map(|t| t.input.as_bytes()).collect();
    // The test localised first, then the other failing tests, which must confirm it.
    let wrong_state = |first: &TestOutcome, function: &str| {
        let failing: Vec<(&[u8], &str)> = std::iter::once(first)
            .chain(tried.iter().copied().filter(|t| t.name != first.name))
            .map(|t| (t.input.as_bytes(), t.expected.as_str()))
            .collect();
        localize::blamed_state(program, reference, function, entry, &failing, &passing, compare, max_steps, cancel)
    };
    // The first wrong call of the shortest failing run that has one; a call that stops on an
    // error ranks the search but is not said again (it is reported where it stops).
    let mut suspects = Suspects::default();
    let mut wrong_call = None;
    for t in &tried {
        let Some(wrong) =
            localize::first_wrong_call(program, reference, entry, t.input.as_bytes(), compare, max_steps, cancel)
        else {
            continue;
        };
        suspects.function.get_or_insert(program.func(wrong.func).span);
        if wrong.differences.first().is_some_and(|d| d.what != localize::Aspect::Stopped) {
            wrong_call = Some((*t, wrong));
            break;
        }
    }
    let Some(first) = tried.first() else { return Localised { diagnostic: None, suspects } };
    let (test, function) = match &wrong_call {
        Some((test, wrong)) => (*test, wrong.name.as_str()),
        None => (*first, entry),
    };
    let state = wrong_state(test, function);
    if let Some(state) = &state {
        suspects.statements = Suspects::confirmed_statements(state);
    }
    let diagnostic = match (wrong_call, state) {
        (Some((test, wrong)), state) => wrong_call_diagnostic(program, test, &wrong).map(|mut d| {
            // Inside the wrong function, the first state that differs: where to look.
            if let Some(state) = state {
                let at = state.culprit.unwrap_or(state.point);
                d = d.with_related(at, format!("inside `{}`: {}", wrong.name, state_words(&state, &lines)));
            }
            d
        }),
        (None, Some(state)) if state.confirmed => Some(wrong_state_diagnostic(test, &state, &lines)),
        (None, _) => None,
    };
    Localised { diagnostic, suspects }
}

/// "test 2 (input `3 1 2 3`) goes wrong here: after round 2 of the loop on line 5, `sum` is
/// 5, where the reference has 3; with `sum` = 3 there, the rest of your program passes this
/// test".
fn wrong_state_diagnostic(test: &TestOutcome, state: &WrongState, lines: &LineIndex) -> Diagnostic {
    let first = &state.differences[0];
    let mut message = format!(
        "test {} (input `{}`) goes wrong {}: {}; with `{}` = {} there, the rest of your program passes this test",
        test.name,
        input_shown(&test.input),
        if state.culprit.is_some() { "here" } else { "before this point" },
        state_words(state, lines),
        first.name,
        shorten(&first.expected),
    );
    let at = state.culprit.unwrap_or(state.point);
    if state.culprit.is_none()
        && let (Some(from), Some(to)) = (state.window.first(), state.window.last())
    {
        let (from, to) = (line(lines, *from), line(lines, *to));
        message += &if from == to {
            format!(" (the mistake is on line {from})")
        } else {
            format!(" (the mistake is in lines {from}–{to})")
        };
    }
    let mut d = Diagnostic::info("wrong-state", at, message);
    if state.culprit.is_some() {
        d = d.with_related(state.point, "where the runs are compared".to_string());
    }
    d
}

/// "after round 2 of the loop on line 5, `sum` is 5, where the reference has 3".
fn state_words(state: &WrongState, lines: &LineIndex) -> String {
    let first = &state.differences[0];
    let others = match state.differences.len() {
        1 => String::new(),
        2 => format!(" (and `{}` differs too)", state.differences[1].name),
        n => format!(" (and {} other variables differ too)", n - 1),
    };
    let theirs = if first.reference_name == first.name {
        "the reference has".to_string()
    } else {
        format!("the reference's `{}` is", first.reference_name)
    };
    let holds = match first.got.as_str() {
        "(unset)" => "has no value yet".to_string(),
        got => format!("is {}", shorten(got)),
    };
    format!("{}, `{}` {holds}, where {theirs} {}{others}", when(state, lines), first.name, shorten(&first.expected))
}

/// The point of the run, in words: "when the loop on line 5 starts", "after round 2 of the
/// loop on line 5", "at the `return` on line 9".
fn when(state: &WrongState, lines: &LineIndex) -> String {
    let at = line(lines, state.point);
    match (state.point_kind, state.arrival) {
        (PointKind::Loop, 1) => format!("when the loop on line {at} starts"),
        (PointKind::Loop, n) => format!("after round {} of the loop on line {at}", n - 1),
        (PointKind::Return, 1) => format!("at the `return` on line {at}"),
        (PointKind::Return, n) => format!("the {} time the `return` on line {at} is reached", ordinal(n)),
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn line(lines: &LineIndex, at: Span) -> u32 {
    lines.line_of(at.start as usize) + 1
}

/// The call-level diagnostic, said at the function.
fn wrong_call_diagnostic(program: &Program, test: &TestOutcome, wrong: &localize::WrongCall) -> Option<Diagnostic> {
    let given: Vec<String> = wrong.given.iter().map(|(name, drawn)| format!("`{name}` = {}", shorten(drawn))).collect();
    let called = if given.is_empty() { "called".to_string() } else { format!("called with {}", given.join(", ")) };
    // The most telling difference only: the others mostly follow from it.
    let effect = difference_words(wrong.differences.first()?);
    let message = format!(
        "`{}` goes wrong: {called} (test {}, input `{}`), {effect}",
        wrong.name,
        test.name,
        input_shown(&test.input)
    );
    let at = program.func(wrong.func).name_span;
    Some(Diagnostic::info("goes-wrong", at, message).with_related(wrong.call, format!("the call of `{}`", wrong.name)))
}

/// One difference of a wrong call, in words: "it returns 1 → NULL, but it should return …".
fn difference_words(d: &localize::Difference) -> String {
    use localize::Aspect;
    let (got, expected) = (shorten(&d.got), shorten(&d.expected));
    match &d.what {
        Aspect::Returned => format!("it returns {got}, but it should return {expected}"),
        Aspect::Stopped => format!("it stops: {got}"),
        Aspect::Param(name) => {
            // `Node **head` is drawn `&(…)`: say what `*head` is.
            let inner = |s: &str| s.strip_prefix("&(").and_then(|s| s.strip_suffix(')')).map(str::to_string);
            match (inner(&got), inner(&expected)) {
                (Some(got), Some(expected)) => {
                    format!("afterwards `*{name}` is {got}, but it should be {expected}")
                }
                _ => format!("afterwards `{name}` points to {got}, but it should point to {expected}"),
            }
        }
        Aspect::Global(name) => format!("afterwards `{name}` is {got}, but it should be {expected}"),
        Aspect::Printed => {
            let (expected, got) = outputs_shown(&d.expected, &d.got);
            format!("it prints `{got}`, but it should print `{expected}`")
        }
    }
}
