//! The debug console's commands: Wolverine2's vocabulary (`change`, `spec`, `repair`) and
//! what a student needs around it (`heap`, `print`, `expected`, `forget`, `help`). Each
//! answer is written for a student reading it in the editor's console.

use super::session::{Patched, Run};
use crate::ir::rewrite::Rewrite;
use crate::spec::expectations::{Expectation, Point};
use crate::spec::interp::debug::Paused;

pub const GREETING: &str = "mend runs your program in its own interpreter. In this console: `heap` draws \
the memory, `change p->next n2` corrects a value, `spec` records the state as the one you expect here, \
`repair` looks for a fix that reaches every state you recorded. `help` lists everything.";

const HELP: &str = "\
heap                 the variables and every node they reach, as boxes and arrows (nodes are n1, n2, …)
print EXPR           a value: `head`, `p->next->data`, `n3`, `a[2]`, `*p` (or just EXPR)
change PLACE VALUE   set a value: `change cur n3`, `change n4->prev NULL`, `change count 2`
spec                 record the state here as the one you expect (after your changes)
expected             list the states you recorded
forget               drop every recorded state
repair               find a small fix that reaches every recorded state, and go on with it applied";

/// Whether `line` is a command that changes or records the state.
pub fn changes_state(line: &str) -> bool {
    matches!(line.split_whitespace().next(), Some("change" | "set" | "spec" | "repair"))
}

/// Runs one console line at a pause.
pub fn run(session: &mut Run, paused: &mut Paused<'_, '_>, line: &str) -> Result<String, String> {
    let line = line.trim();
    let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    match command {
        "" | "help" => Ok(HELP.into()),
        "heap" | "state" | "graph" => Ok(heap(session, paused)),
        "print" | "p" => print(session, paused, rest),
        "change" | "set" => {
            let (place, value) =
                split_change(rest).ok_or("write it as `change PLACE VALUE`, e.g. `change n4->prev n3`")?;
            change(session, paused, place, value)?;
            Ok(format!("{} is now {}", place.trim(), shown(session, paused, place)?))
        }
        "spec" => Ok(spec(session, paused)),
        "expected" => Ok(expected(session)),
        "forget" => {
            let n = session.expectations.len();
            session.expectations.clear();
            session.last_agreed = None;
            Ok(format!("Dropped {n} recorded state{}.", plural(n)))
        }
        "repair" => repair(session, paused),
        _ => print(session, paused, line),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn heap(session: &mut Run, paused: &mut Paused<'_, '_>) -> String {
    let graph = paused.graph(0);
    session.name_nodes(&graph);
    let text = graph.text(&|k| session.node_name(&graph, k));
    if text.is_empty() { "(no variables here)".into() } else { text.trim_end().to_string() }
}

fn print(session: &mut Run, paused: &mut Paused<'_, '_>, what: &str) -> Result<String, String> {
    let value = shown(session, paused, what)?;
    // A pointer reads `p → n2 (…)`, anything else `x = 5`.
    let joint = if value.starts_with('→') { " " } else { " = " };
    Ok(format!("{}{joint}{value}", what.trim()))
}

/// A place's value as the console shows it: a pointer to a node by the node's name and what
/// it leads to (`→ n2 (2 → 3 → NULL)`), anything else drawn.
fn shown(session: &mut Run, paused: &mut Paused<'_, '_>, place: &str) -> Result<String, String> {
    // Node names are given when the heap is drawn: draw it (silently) so `n3` means what
    // `heap` shows.
    let graph = paused.graph(0);
    session.name_nodes(&graph);
    let v = paused.print(place, &|n| session.node_address(n))?;
    let node = v.inner.as_ref().and_then(|i| session.node_names.get(&i.address()).copied());
    Ok(match node {
        Some(n) if v.ty.ends_with('*') => format!("→ n{n} ({})", v.value),
        _ => v.value,
    })
}

/// `PLACE VALUE`, `PLACE = VALUE`, or the paper's `n4 -> prev n3` (the value is the last word).
fn split_change(rest: &str) -> Option<(&str, &str)> {
    if let Some((place, value)) = rest.split_once('=') {
        return (!place.trim().is_empty() && !value.trim().is_empty()).then_some((place.trim(), value.trim()));
    }
    let (place, value) = rest.trim().rsplit_once(char::is_whitespace)?;
    let place = place.trim();
    (!place.is_empty() && !place.ends_with("->") && !place.ends_with('.')).then_some((place, value))
}

/// Wolverine2's `change`: sets a value, and remembers it for `spec`'s message.
pub fn change(session: &mut Run, paused: &mut Paused<'_, '_>, place: &str, value: &str) -> Result<(), String> {
    // `shown` names the nodes first, so `n3` in `value` means what `heap` shows.
    let before = shown(session, paused, place).unwrap_or_default();
    paused.change(place, value, &|n| session.node_address(n))?;
    session.changes_here.push(format!("`{}` was {before}", place.trim()));
    Ok(())
}

/// Wolverine2's `spec`: the state at this pause, as it is now, is the one expected here.
fn spec(session: &mut Run, paused: &mut Paused<'_, '_>) -> String {
    let at = paused.at();
    let line = session.line(at);
    let Some(point) = paused.function().and_then(|f| Point::of(paused.program(), f, at)) else {
        return "mend cannot record a state here.".into();
    };
    let hit = session.hits.get(at);
    let state = paused.graph(0).canonical();
    session.expectations.retain(|e| !(e.point == point && e.hit == hit));
    session.expectations.push(Expectation { point, hit, state });
    let n = session.expectations.len();
    let when = if hit > 1 { format!(" (its {} time here)", ordinal(hit)) } else { String::new() };
    let mut out = format!("Recorded the state at line {line}{when} as expected ({n} state{} so far).", plural(n));
    if session.changes_here.is_empty() {
        session.last_agreed = Some((line, hit));
    } else {
        // Wolverine2's localisation: the run agreed with what you expect up to the last state
        // you accepted as it was, and differs here; the fault runs in between.
        let since = match session.last_agreed {
            Some((l, _)) if l == line => format!("since the run was last at line {line}"),
            Some((l, _)) => format!("between line {l} and line {line}"),
            None => format!("before line {line}"),
        };
        out += &format!(
            "\nYour program computed something else here ({}): the fault is in what runs {since}.",
            session.changes_here.join(", ")
        );
    }
    out
}

fn expected(session: &Run) -> String {
    if session.expectations.is_empty() {
        return "No recorded states yet: pause where the state is right (or `change` it until it is), then `spec`."
            .into();
    }
    let mut out = String::new();
    for e in &session.expectations {
        let line = e.point.find(session.current_program()).map_or(0, |s| session.line(s));
        let when = if e.hit > 1 { format!(", its {} time there", ordinal(e.hit)) } else { String::new() };
        out += &format!("line {line} (in `{}`{when}):\n", e.point.function);
        for l in e.state.lines() {
            out += &format!("    {l}\n");
        }
    }
    out.trim_end().to_string()
}

/// The paper's `repair`: a small patch whose run reaches every recorded state, applied to the
/// run at once (the session goes on from this point with it).
fn repair(session: &mut Run, paused: &mut Paused<'_, '_>) -> Result<String, String> {
    if session.expectations.is_empty() {
        return Err("Record a state first: `change` what is wrong, then `spec`.".into());
    }
    let at = paused.at();
    let point = paused.function().and_then(|f| Point::of(paused.program(), f, at));
    let hit = session.hits.get(at);
    let text = session.current_text().to_string();
    let program = session.current_program().clone();
    let passing = &session.passing;
    let keeps = |candidate: &crate::ir::Program, cancel: &crate::cancel::Cancel| passing.kept_by(candidate, cancel);
    let found = crate::check::expected_states::repair(
        &program,
        &text,
        &session.input,
        &session.expectations,
        &keeps,
        session.cancel(),
    );
    let n = session.expectations.len();
    let kept = match passing.len() {
        0 => String::new(),
        1 => ", and the test that passed still passes".into(),
        k => format!(", and the {k} tests that passed still pass"),
    };
    let Some(found) = found.repair else {
        return Ok(format!(
            "mend found no fix of up to two small changes that reaches your {n} recorded state{}{}{}.",
            plural(n),
            if passing.is_empty() { "" } else { " and keeps the tests passing" },
            found.why_not.map(|w| format!(" ({w})")).unwrap_or_default()
        ));
    };
    // The patch of the student's own file: this repair after the earlier ones.
    let edits = match &session.patched {
        Some(p) => p.rewrite.compose(&session.original, &found.edits),
        None => found.edits.clone(),
    };
    let rewrite = Rewrite::new(&session.original, edits);
    let mut out = format!("Fix found (it reaches your {n} recorded state{} on this input{kept}):\n", plural(n));
    for d in &found.descriptions {
        out += &format!("  {d}\n");
    }
    if !session.written_int.is_empty() && session.patched.as_ref().is_some_and(|p| !p.repaired) {
        let names: Vec<String> = session.written_int.iter().map(|n| format!("`{n}`")).collect();
        out += &format!("  It also writes the missing `int` before {}.\n", names.join(", "));
    }
    out += "Your file is unchanged: make this edit in it. The run goes on with the fix applied.";
    session.writer.event(
        "mend/patch",
        serde_json::json!({
            "path": session.path.to_string_lossy(),
            "edits": rewrite.edits.iter().map(|e| serde_json::json!({
                "start": e.span.start, "end": e.span.end, "newText": e.new_text,
            })).collect::<Vec<_>>(),
            "text": rewrite.text,
        }),
    );
    let replay_at = point.and_then(|p| p.find(&found.program)).unwrap_or(at);
    session.hot_patch(Patched { rewrite, program: found.program, repaired: true }, replay_at, hit);
    Ok(out)
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
