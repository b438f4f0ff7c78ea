//! Fault localisation by state differences at calls (Wolverine2, §4: the program state the
//! run reaches, forward, against the state the specification expects, backward).
//!
//! Without a debugger session the expected states come from the reference: the student's
//! program and the reference run the same failing test with their calls recorded
//! ([`interp::Limits::record_calls`]). A function both define is compared call by call: the
//! k-th call of `insert` in one run against the k-th in the other. When both calls were given
//! the same state (the parameters, what they point to, the globals both programs have) the
//! reference's call says what the student's should have left behind; a call that leaves
//! something else (another result, another list, other output) is where the run goes wrong.
//! Of all such calls the one that ends first is named: in a recursion, the innermost wrong
//! call; in a chain of helpers, the helper.
//!
//! The claim is concrete and always true of the run: "called with this, it gives that, the
//! reference's gives this other thing". A function whose calls were given different states
//! is never blamed (the difference came from before the call).

use crate::cancel::Cancel;
use crate::ir::{FuncId, Program, Span, VarKind};
use crate::spec::compare::{self, Compare};
use crate::spec::interp::{self, CallRecord, Limits, RunResult, State};

mod states;
pub use states::{PointKind, VariableDifference, WrongState, blamed_state, first_wrong_state};

/// Where a localisation points a repair search: its code ranks before the rest (Wolverine2
/// orders the repair space by the localisation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suspects {
    /// The function a failing run first goes wrong in ([`first_wrong_call`]).
    pub function: Option<Span>,
    /// The statements run between the last state that agrees and the first that does not,
    /// sorted: a confirmed [`WrongState`]'s window and culprit, or those a debugging session's
    /// expectations name.
    pub statements: Vec<Span>,
}

impl Suspects {
    /// The statements of a localisation the test of cause confirmed.
    pub fn confirmed_statements(state: &WrongState) -> Vec<Span> {
        if !state.confirmed {
            return Vec::new();
        }
        let mut statements = state.window.clone();
        statements.extend(state.culprit);
        statements.sort_by_key(|s| (s.start, s.end));
        statements.dedup();
        statements
    }
}

/// The first call of the student's program that leaves a state the reference's same call does
/// not, on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrongCall {
    pub func: FuncId,
    pub name: String,
    /// The call expression, in the student's program.
    pub call: Span,
    /// Its parameters as it was given them, then the globals it leaves wrong: `(name, drawing)`.
    pub given: Vec<(String, String)>,
    /// How what it left differs from what the reference's call left, most telling first.
    pub differences: Vec<Difference>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub what: Aspect,
    pub got: String,
    pub expected: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Aspect {
    /// The value returned.
    Returned,
    /// The call stopped on a runtime error (`got`), the reference's did not.
    Stopped,
    /// What a pointer parameter points to afterwards (the parameter's name).
    Param(String),
    /// A global afterwards.
    Global(String),
    /// The output printed during the call.
    Printed,
}

/// Runs `student` and `reference` on `input` and names the first wrong call, if a function
/// both define is called with equal states and leaves different ones. `None` also when
/// either run records nothing (no helper functions, a run cut short).
pub fn first_wrong_call(
    student: &Program,
    reference: &Program,
    entry: &str,
    input: &[u8],
    compare: Compare,
    max_steps: u64,
    cancel: &Cancel,
) -> Option<WrongCall> {
    let limits = Limits { record_calls: true, max_steps, max_output: 1 << 16, ..Limits::default() };
    let theirs = interp::run(reference, entry, input, &limits, cancel);
    if theirs.error.is_some() || theirs.calls.is_empty() {
        return None;
    }
    // A student's run that loops for ever has shown its calls long before the step limit.
    let ours = interp::run(student, entry, input, &limits.within_reference(theirs.steps), cancel);
    wrong_call(student, &ours, reference, &theirs, entry, compare)
}

fn wrong_call(
    student: &Program,
    ours: &RunResult,
    reference: &Program,
    theirs: &RunResult,
    entry: &str,
    compare: Compare,
) -> Option<WrongCall> {
    let globals = |p: &Program| -> Vec<String> {
        p.vars.iter().filter(|v| v.kind == VarKind::Global).map(|v| v.name.clone()).collect()
    };
    let theirs_globals = globals(reference);
    let shared: Vec<String> = globals(student).into_iter().filter(|n| theirs_globals.contains(n)).collect();
    let shared_globals: Vec<&str> = shared.iter().map(String::as_str).collect();
    let mut wrong: Option<(usize, WrongCall)> = None;
    for (f, function) in student.funcs.iter().enumerate() {
        let Some(g) = reference.func_by_name(&function.name) else { continue };
        if function.name == entry || function.body.is_none() || reference.func(g).body.is_none() {
            continue;
        }
        let f = FuncId(f as u32);
        for ((ended, mine), (_, expected)) in calls_of(ours, f).into_iter().zip(calls_of(theirs, g)) {
            if !same_state(&mine.before, &expected.before, &shared_globals) {
                // From here on the calls no longer correspond.
                break;
            }
            let differences = differences(mine, expected, &shared_globals, compare);
            if differences.is_empty() {
                continue;
            }
            if wrong.as_ref().is_none_or(|(first, _)| ended < *first) {
                // What it was given: the parameters, and each global it leaves wrong.
                let mut given = mine.before.params.clone();
                for d in &differences {
                    if let Aspect::Global(name) = &d.what
                        && let Some(before) = global(&mine.before, name)
                    {
                        given.push((name.clone(), before.to_string()));
                    }
                }
                let call = WrongCall { func: f, name: function.name.clone(), call: mine.span, given, differences };
                wrong = Some((ended, call));
            }
        }
    }
    wrong.map(|(_, call)| call)
}

/// The calls of `id` in `run`, by start, with their place in the order calls ended.
fn calls_of(run: &RunResult, id: FuncId) -> Vec<(usize, &CallRecord)> {
    let mut calls: Vec<(usize, &CallRecord)> = run.calls.iter().enumerate().filter(|(_, c)| c.func == id).collect();
    calls.sort_by_key(|(_, c)| c.started);
    calls
}

/// Equal parameters (by position: the two programs may name them differently) and equal
/// shared globals.
fn same_state(a: &State, b: &State, shared_globals: &[&str]) -> bool {
    a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|((_, x), (_, y))| x == y)
        && shared_globals.iter().all(|name| global(a, name) == global(b, name))
}

fn global<'s>(s: &'s State, name: &str) -> Option<&'s str> {
    s.globals.iter().find(|(n, _)| n == name).map(|(_, d)| d.as_str())
}

fn differences(mine: &CallRecord, expected: &CallRecord, shared_globals: &[&str], compare: Compare) -> Vec<Difference> {
    let mut out = Vec::new();
    if let (Some(error), None) = (&mine.error, &expected.error) {
        out.push(Difference { what: Aspect::Stopped, got: error.clone(), expected: String::new() });
        return out;
    }
    if mine.error.is_some() || expected.error.is_some() {
        return out;
    }
    if let (Some(got), Some(want)) = (&mine.returned, &expected.returned)
        && got != want
    {
        out.push(Difference { what: Aspect::Returned, got: got.clone(), expected: want.clone() });
    }
    for ((name, got), (_, want)) in mine.after.params.iter().zip(&expected.after.params) {
        if got != want {
            out.push(Difference { what: Aspect::Param(name.clone()), got: got.clone(), expected: want.clone() });
        }
    }
    for name in shared_globals {
        if let (Some(got), Some(want)) = (global(&mine.after, name), global(&expected.after, name))
            && got != want
        {
            out.push(Difference {
                what: Aspect::Global(name.to_string()),
                got: got.to_string(),
                expected: want.to_string(),
            });
        }
    }
    if !compare::outputs_match(&expected.printed, &mine.printed, compare) {
        out.push(Difference { what: Aspect::Printed, got: mine.printed.clone(), expected: expected.printed.clone() });
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn lowered(src: &str) -> Program {
        let lowered = crate::syntax::lower::lower_source(src);
        assert!(
            lowered.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error),
            "{:?}",
            lowered.diagnostics
        );
        lowered.program
    }

    /// A list read, reversed and printed (`3: 1 2 3` for `1 2 3`).
    pub(crate) const LIST: &str = r#"
#include <stdio.h>
#include <stdlib.h>
struct node { int value; struct node *next; };
struct node *push(struct node *head, int v) {
    struct node *n = malloc(sizeof *n);
    n->value = v;
    n->next = head;
    return n;
}
struct node *reverse(struct node *head) {
    struct node *prev = NULL;
    while (head != NULL) {
        struct node *next = head->next;
        head->next = prev;
        prev = head;
        head = next;
    }
    return prev;
}
int length(struct node *l) { return l == NULL ? 0 : 1 + length(l->next); }
int main(void) {
    struct node *head = NULL;
    int v;
    while (scanf("%d", &v) == 1) head = push(head, v);
    head = reverse(head);
    printf("%d:", length(head));
    for (struct node *p = head; p != NULL; p = p->next) printf(" %d", p->value);
    printf("\n");
    return 0;
}
"#;

    fn localise(student: &str, input: &str) -> Option<WrongCall> {
        let (s, r) = (lowered(student), lowered(LIST));
        first_wrong_call(&s, &r, "main", input.as_bytes(), Compare::Exact, 1_000_000, &Cancel::new())
    }

    #[test]
    fn a_wrong_reversal_is_named_with_its_list() {
        let student = LIST.replace("head->next = prev;", "head->next = next;");
        let wrong = localise(&student, "1 2 3").expect("reverse is wrong");
        assert_eq!(wrong.name, "reverse");
        assert_eq!(wrong.given, vec![("head".to_string(), "3 → 2 → 1 → NULL".to_string())]);
        assert_eq!(wrong.differences[0].what, Aspect::Returned);
        assert_eq!(wrong.differences[0].expected, "1 → 2 → 3 → NULL");
        assert_eq!(wrong.differences[0].got, "1 → NULL");
    }

    /// The innermost wrong call is named: `length`'s base case is wrong, every call of it
    /// returns a wrong number, and the call that ends first is the one on the empty list.
    #[test]
    fn the_innermost_wrong_recursive_call_is_named() {
        let student = LIST.replace("l == NULL ? 0 :", "l == NULL ? 1 :");
        let wrong = localise(&student, "1 2").expect("length is wrong");
        assert_eq!(wrong.name, "length");
        assert_eq!(wrong.given, vec![("l".to_string(), "NULL".to_string())]);
        assert_eq!(
            wrong.differences,
            vec![Difference { what: Aspect::Returned, got: "1".into(), expected: "0".into() }]
        );
    }

    /// A bug in `main` that changes what a correct function is given does not blame the
    /// function.
    #[test]
    fn a_correct_function_given_other_arguments_is_not_blamed() {
        let student = LIST.replace("head = push(head, v);", "head = push(head, v + 1);");
        assert_eq!(localise(&student, "1 2"), None);
    }

    /// A function that changes a global is judged by the global, and says what it was given.
    #[test]
    fn a_wrong_global_is_named_with_its_value_before() {
        let stack = r#"
#include <stdio.h>
int top = 0, items[10];
void push(int v) { items[top] = v; top++; }
int main(void) {
    int v;
    while (scanf("%d", &v) == 1) push(v);
    printf("%d\n", top);
    return 0;
}
"#;
        let student = stack.replace("top++;", "top = 1;");
        let (s, r) = (lowered(&student), lowered(stack));
        let wrong = first_wrong_call(&s, &r, "main", b"4 5", Compare::Exact, 1_000_000, &Cancel::new()).expect("push");
        assert_eq!(wrong.name, "push");
        assert_eq!(wrong.given, vec![("v".to_string(), "5".to_string()), ("top".to_string(), "1".to_string())]);
        assert_eq!(
            wrong.differences,
            vec![Difference { what: Aspect::Global("top".into()), got: "1".into(), expected: "2".into() }]
        );
    }

    #[test]
    fn a_correct_program_has_no_wrong_call() {
        assert_eq!(localise(LIST, "1 2 3"), None);
    }
}
