//! `mend bench debug`: the debugger's repair (Wolverine2's `spec` then `repair`) with a
//! simulated student. For each submission that fails a test, the student debugs the function
//! the run goes wrong in (`engines::localize`, else `main`) on the first failing test: they
//! stop at each loop header and `return` of it, and record as expected the state the
//! reference has there (its first arrivals, at most [`MAX_STATES`] states). Then `repair`.
//! A submission whose function has other variables than the reference's cannot be given the
//! reference's states and is counted apart, as is one whose states already agree there.
//!
//! A repair counts when it reaches every recorded state and keeps the tests the submission
//! passed (what `repair` promises); the table also says how many of those pass every test
//! (what the student wanted).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::cancel::Cancel;
use crate::check::expected_states;
use crate::engines::localize;
use crate::ir::{Program, VarKind};
use crate::spec::compare::Compare;
use crate::spec::expectations::{self, Checked, Expectation, landmarks};
use crate::spec::interp::Limits;

use super::bench_reference::{Problem, load, passes_all, percentile};

/// States recorded per submission at most, and arrivals per point.
const MAX_STATES: usize = 6;
const ARRIVALS_PER_POINT: u32 = 3;

enum Outcome {
    /// The search found a patch reaching every state: its time, whether it passes every test.
    Repaired { ms: f64, passes_tests: bool, title: String },
    /// No patch reaches them.
    NotRepaired { ms: f64, why: String },
    /// Not simulated (and why): no failing test, other variables, states already agree…
    Skipped(&'static str),
}

pub fn run(data: &Path, limit: Option<usize>, verbose: bool, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "mend bench debug — {} ({} build): the simulated student records the reference's states, then `repair`",
        data.display(),
        if cfg!(debug_assertions) { "DEBUG" } else { "release" },
    )?;
    let mut dirs: Vec<_> = std::fs::read_dir(data)?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for p in dirs.iter().filter_map(|d| load(d, Compare::Values)) {
        for path in p.submissions().iter().take(limit.unwrap_or(usize::MAX)) {
            let outcome = evaluate(&p, path);
            if verbose {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                let line = match &outcome {
                    Outcome::Repaired { ms, passes_tests, title } => {
                        format!("repaired in {ms:.0} ms{}: {title}", if *passes_tests { "" } else { " (fails a test)" })
                    }
                    Outcome::NotRepaired { ms, why } => format!("not repaired ({ms:.0} ms): {why}"),
                    Outcome::Skipped(why) => format!("skipped: {why}"),
                };
                writeln!(out, "  {}/{name}: {line}", p.name)?;
            }
            outcomes.push(outcome);
        }
    }
    let simulated: Vec<&Outcome> = outcomes.iter().filter(|o| !matches!(o, Outcome::Skipped(_))).collect();
    let repaired: Vec<f64> = simulated
        .iter()
        .filter_map(|o| match o {
            Outcome::Repaired { ms, .. } => Some(*ms),
            _ => None,
        })
        .collect();
    let passing = simulated.iter().filter(|o| matches!(o, Outcome::Repaired { passes_tests: true, .. })).count();
    let n = simulated.len();
    let share = |k: usize| if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &outcomes {
        if let Outcome::Skipped(why) = o {
            *skipped.entry(why).or_default() += 1;
        }
    }
    writeln!(out, "{} submissions, {n} debugged; {:.0} s", outcomes.len(), started.elapsed().as_secs_f64())?;
    writeln!(
        out,
        "repaired (reaches every recorded state) {:.1}% ({}); of those, pass every test {passing}",
        share(repaired.len()),
        repaired.len()
    )?;
    let mut times = repaired.clone();
    times.sort_by(f64::total_cmp);
    if !times.is_empty() {
        writeln!(
            out,
            "time to the repair: median {:.0} ms, p90 {:.0} ms",
            percentile(&times, 0.5),
            percentile(&times, 0.9)
        )?;
    }
    for (why, k) in skipped {
        writeln!(out, "not debugged: {why}: {k}")?;
    }
    Ok(())
}

fn evaluate(p: &Problem, path: &Path) -> Outcome {
    let Ok(text) = std::fs::read_to_string(path) else { return Outcome::Skipped("unreadable") };
    let Some(program) = crate::syntax::lower::lower_without_errors(&text) else {
        return Outcome::Skipped("does not compile");
    };
    let Some(input) = p.first_failing(&program) else { return Outcome::Skipped("passes every test") };
    let cancel = Cancel::new();
    let function = localize::first_wrong_call(&program, &p.ref_prog, "main", input, p.compare, 20_000_000, &cancel)
        .map_or_else(|| "main".to_string(), |w| w.name);
    if variables(&program, &function) != variables(&p.ref_prog, &function) {
        return Outcome::Skipped("the function has other variables than the reference's");
    }
    // The student's breakpoints: the reference's loop headers and returns, in their program.
    let points: Vec<_> =
        landmarks(&p.ref_prog, &function).into_iter().filter(|pt| pt.carried_to(&program).is_some()).collect();
    let limits = Limits { max_steps: 20_000_000, ..Limits::default() };
    let recorded = expectations::record(&p.ref_prog, input, &points, ARRIVALS_PER_POINT, MAX_STATES, &limits, &cancel);
    let expected: Vec<Expectation> =
        recorded.into_iter().filter_map(|e| Some(Expectation { point: e.point.carried_to(&program)?, ..e })).collect();
    if expected.is_empty() {
        return Outcome::Skipped("no loop or return shared with the reference is reached");
    }
    if expectations::check(&program, "main", input, &expected, &limits, &cancel) == Checked::Met {
        return Outcome::Skipped("the states already agree at those points");
    }
    // What the student does not want broken: the tests the submission passes.
    let passing = p.results(&program);
    let keeps = |candidate: &Program, cancel: &Cancel| p.results_of(candidate, cancel, &passing).iter().all(|ok| *ok);
    let started = Instant::now();
    let found = expected_states::repair(&program, &text, input, &expected, &keeps, &cancel);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match found.repair {
        Some(r) => Outcome::Repaired { ms, passes_tests: passes_all(&r.program, p), title: r.descriptions.join("; ") },
        None => Outcome::NotRepaired { ms, why: found.why_not.unwrap_or_else(|| "none in the space".into()) },
    }
}

/// The names and types of `function`'s parameters and locals, and of the globals, sorted.
fn variables(program: &Program, function: &str) -> Vec<(String, String)> {
    let Some(f) = program.func_by_name(function) else { return Vec::new() };
    let f = program.func(f);
    let ty = |v: &crate::ir::Var| crate::ir::print::type_to_c(&v.ty, "", Some(program));
    let mut vars: Vec<(String, String)> = (f.params.iter().chain(&f.locals))
        .map(|&v| program.var(v))
        .chain(program.vars.iter().filter(|v| v.kind == VarKind::Global))
        .map(|v| (v.name.clone(), ty(v)))
        .collect();
    vars.sort();
    vars
}
