//! `mend bench faults`: Wolverine2's evaluation by fault injection. Each problem's reference
//! gets single faults of the repair vocabulary injected (`engines::mutation::inject`), those
//! that fail a test are kept (a sample spread over the kinds of change), and the whole
//! pipeline analyses each as a student's file. A fault counts as repaired when mend offers a
//! repair that passes every test; the table says how many of those are the inverse change
//! (the reference again) or another repair of at most one change, and how fast the first came.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::check::{self, CheckOptions};
use crate::engines::mutation::inject;
use crate::ir::{Guarantee, apply_edits};
use crate::spec::compare::Compare;

use super::bench_reference::{Problem, first_at_least, load, passes_all, percentile};

struct Outcome {
    kind: &'static str,
    repaired: bool,
    /// A repair gives the reference's text back.
    inverse: bool,
    /// The first repair's number of changed places.
    size: usize,
    first_ms: Option<f64>,
    description: String,
    problem: String,
}

/// Runs the benchmark over every problem folder of `data`, `per_problem` faults each.
pub fn run(
    data: &Path,
    per_problem: usize,
    budget: Duration,
    verbose: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "mend bench faults — {} ({} build), {} s budget per fault, {per_problem} faults per problem",
        data.display(),
        if cfg!(debug_assertions) { "DEBUG" } else { "release" },
        budget.as_secs()
    )?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data)?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let started = Instant::now();
    let mut results = Vec::new();
    let mut tried = 0;
    for p in dirs.iter().filter_map(|d| load(d, Compare::Values)) {
        let Ok(src) = std::fs::read_to_string(&p.reference) else { continue };
        let (faults, looked_at) = failing_faults(&p, &src, per_problem);
        tried += looked_at;
        for f in faults {
            results.push(evaluate(&p, &src, f, budget));
        }
    }
    let n = results.len();
    let share = |k: usize| if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    let repaired = results.iter().filter(|o| o.repaired).count();
    let inverse = results.iter().filter(|o| o.inverse).count();
    let small = results.iter().filter(|o| o.repaired && !o.inverse && o.size <= 1).count();
    writeln!(
        out,
        "{n} injected faults that fail a test (of {tried} looked at); {:.0} s",
        started.elapsed().as_secs_f64()
    )?;
    writeln!(
        out,
        "repaired {:.1}% ({repaired}): the inverse change {:.1}% ({inverse}), another repair of one change {:.1}% ({small})  [target >= 95%]",
        share(repaired),
        share(inverse),
        share(small)
    )?;
    let mut firsts: Vec<f64> = results.iter().filter_map(|o| o.first_ms).collect();
    firsts.sort_by(f64::total_cmp);
    writeln!(
        out,
        "time to the first repair that passes every test: median {:.0} ms, p90 {:.0} ms (n={})  [median < 1 s]",
        percentile(&firsts, 0.5),
        percentile(&firsts, 0.9),
        firsts.len()
    )?;
    let mut kinds: BTreeMap<&str, (usize, usize, Vec<f64>)> = BTreeMap::new();
    for o in &results {
        let e = kinds.entry(o.kind).or_default();
        e.0 += 1;
        e.1 += o.repaired as usize;
        e.2.extend(o.first_ms);
    }
    writeln!(out, "  {:<22} {:>6} {:>9} {:>10}", "kind of fault", "faults", "repaired", "median ms")?;
    for (kind, (k, r, mut ms)) in kinds {
        ms.sort_by(f64::total_cmp);
        writeln!(out, "  {kind:<22} {k:>6} {:>8.0}% {:>10.0}", 100.0 * r as f64 / k as f64, percentile(&ms, 0.5))?;
    }
    for o in results.iter().filter(|o| verbose || !o.repaired) {
        writeln!(
            out,
            "  {} {} [{}] {}",
            o.problem,
            if o.repaired { "repaired" } else { "MISSED" },
            o.kind,
            o.description
        )?;
    }
    Ok(())
}

/// Up to `per_problem` injected faults that fail a test, taken in turn from each kind of change
/// (in a fixed order spread over each kind's list), and how many were looked at.
fn failing_faults(p: &Problem, src: &str, per_problem: usize) -> (Vec<inject::Injected>, usize) {
    let mut by_kind: BTreeMap<&'static str, Vec<inject::Injected>> = BTreeMap::new();
    for f in inject::single_faults(&p.ref_prog, src) {
        by_kind.entry(f.kind.name()).or_default().push(f);
    }
    let mut queues: Vec<(usize, Vec<inject::Injected>)> = by_kind.into_values().map(|v| (0, v)).collect();
    let (mut out, mut looked_at) = (Vec::new(), 0);
    while out.len() < per_problem && queues.iter().any(|(i, v)| *i < v.len()) {
        for (i, v) in &mut queues {
            if *i >= v.len() || out.len() >= per_problem {
                continue;
            }
            // A stride through the list (coprime with most lengths) rather than its head.
            let at = (*i * 7919) % v.len();
            *i += 1;
            looked_at += 1;
            let lowered = crate::syntax::lower::lower_source(&v[at].text);
            if !passes_all(&lowered.program, p) {
                out.push(v[at].clone());
            }
        }
    }
    (out, looked_at)
}

fn evaluate(p: &Problem, src: &str, f: inject::Injected, budget: Duration) -> Outcome {
    let opts = CheckOptions {
        reference: Some(p.reference.clone()),
        tests: p.reference.parent().map(|d| d.join("tests")),
        compare: Some(p.compare),
        timeout: Some(budget),
        repair_assertions: false,
        typed_repairs: 0,
        ..CheckOptions::default()
    };
    let path = p.reference.with_file_name("injected.c");
    let tree = crate::syntax::parse(&f.text, None);
    let report = check::check_parsed(Some(&path), &f.text, &tree, &opts, &Cancel::new());
    let passing: Vec<_> =
        report.repairs.iter().filter(|r| r.guarantee.strength() >= Guarantee::Tested { tests: 0 }.strength()).collect();
    let same = |text: &str| text.split_whitespace().eq(src.split_whitespace());
    Outcome {
        kind: f.kind.name(),
        repaired: !passing.is_empty(),
        inverse: passing.iter().any(|r| same(&apply_edits(&f.text, &r.edits))),
        size: passing.first().map_or(0, |r| r.places.len().max(1)),
        first_ms: first_at_least(&report, Guarantee::Tested { tests: 0 }.strength()),
        description: f.description,
        problem: p.name.clone(),
    }
}
