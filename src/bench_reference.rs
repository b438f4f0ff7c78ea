//! `mend bench reference [DATA]`: the repair pipeline a student gets (`check` with the
//! reference and the tests) over a dataset laid out like IntroClass
//! (`PROBLEM/reference.c`, `PROBLEM/tests/**/N.in|N.out`, `PROBLEM/submissions/*.c`), on the
//! submissions that fail a test. Per submission: the strongest repair offered and its
//! guarantee, the verified engine's verdict or failure reason (Verifix's Table 4), the time to
//! the first repair and the relative patch size (the exact tree edit distance over the
//! student's AST size). Every repair is then re-checked independently: the patched program is
//! compiled with gcc and run on every test (outputs compared with the `values` rule, the
//! prompt cut where mend's interpreter saw the last read); a repair that fails a test is a
//! bug, counted and listed.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::check::{self, CheckOptions};
use crate::ir::{Guarantee, Program};
use crate::patch::apply_edits;
use crate::spec::compare::{self, Compare};
use crate::spec::interp::{self, Limits};
use crate::spec::tests::{self as spec_tests, TestCase};

struct Problem {
    name: String,
    reference: PathBuf,
    tests: Vec<(TestCase, Vec<u8>, String)>,
    /// The reference's prompt length per test (bytes before its last read).
    ref_prompt: Vec<usize>,
    submissions: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
struct Outcome {
    file: String,
    /// `verified`, `bounded`, `tested` or `none`.
    level: &'static str,
    /// The verified engine's verdict (`repaired`, `equivalent`, or its failure category).
    reference: &'static str,
    first_ms: Option<f64>,
    total_ms: f64,
    rps: Option<f64>,
    /// Tests the patched program fails under gcc (a bug when non-zero).
    gcc_failures: usize,
    title: String,
}

fn load(dir: &Path) -> Option<Problem> {
    let reference = dir.join("reference.c");
    if !reference.is_file() {
        return None;
    }
    let ref_text = std::fs::read_to_string(&reference).ok()?;
    let ref_prog = crate::syntax::lower::lower_source(&ref_text).program;
    let mut tests = Vec::new();
    let mut ref_prompt = Vec::new();
    for t in spec_tests::discover(&dir.join("tests")) {
        let (Ok(input), Ok(output)) = (std::fs::read(&t.input), std::fs::read_to_string(&t.output)) else { continue };
        let run = interp::run(&ref_prog, "main", &input, &Limits::default(), &Cancel::new());
        ref_prompt.push(run.output_before_last_read);
        tests.push((t, input, output));
    }
    let mut submissions: Vec<PathBuf> = std::fs::read_dir(dir.join("submissions")).ok()?.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "c")).collect();
    submissions.sort();
    Some(Problem { name: dir.file_name()?.to_string_lossy().into_owned(), reference, tests, ref_prompt, submissions })
}

/// Whether `program` passes every test in mend's interpreter.
fn passes_all(program: &Program, p: &Problem) -> bool {
    p.tests.iter().zip(&p.ref_prompt).all(|((_, input, expected), prompt)| {
        let run = interp::run(program, "main", input, &Limits::default(), &Cancel::new());
        run.error.is_none() && compare::outputs_match_values(expected, Some(*prompt), &String::from_utf8_lossy(&run.output), Some(run.output_before_last_read))
    })
}

/// Compiles `text` with gcc and runs it on every test: the number of tests it fails.
fn gcc_failures(text: &str, p: &Problem, work: &Path) -> Result<usize, String> {
    let src = work.join("repaired.c");
    let bin = work.join("repaired");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let status = Command::new("gcc").args(["-w", "-O0", "-o"]).arg(&bin).arg(&src).arg("-lm").stderr(Stdio::null()).status().map_err(|e| format!("gcc: {e}"))?;
    if !status.success() {
        return Err("the repaired program does not compile".into());
    }
    let program = crate::syntax::lower::lower_source(text).program;
    let mut failed = 0;
    for ((_, input, expected), prompt) in p.tests.iter().zip(&p.ref_prompt) {
        let mut child = Command::new("timeout").arg("5").arg(&bin).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().map_err(|e| e.to_string())?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input);
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let actual = String::from_utf8_lossy(&out.stdout);
        // Where the prompt ends: mend's interpreter's last read on the same program and input.
        let cut = interp::run(&program, "main", input, &Limits::default(), &Cancel::new()).output_before_last_read;
        if !compare::outputs_match_values(expected, Some(*prompt), &actual, Some(cut.min(actual.len()))) {
            failed += 1;
        }
    }
    Ok(failed)
}

fn evaluate(p: &Problem, path: &Path, budget: Duration, work: &Path) -> Option<Outcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let lowered = crate::syntax::lower::lower_source(&text);
    if lowered.diagnostics.iter().any(|d| d.severity == crate::ir::Severity::Error) || passes_all(&lowered.program, p) {
        return None;
    }
    let opts = CheckOptions {
        reference: Some(p.reference.clone()),
        tests: Some(p.reference.parent()?.join("tests")),
        compare: Some(Compare::Values),
        timeout: Some(budget),
        repair_assertions: false,
        typed_repairs: 0,
        ..CheckOptions::default()
    };
    let tree = crate::syntax::parse(&text, None);
    let report = check::check_parsed(Some(path), &text, &tree, &opts, &Cancel::new());
    let best = report.repairs.iter().filter(|r| r.guarantee.strength() > 0).max_by_key(|r| r.guarantee.strength());
    let file = format!("{}/{}", p.name, path.file_name()?.to_string_lossy());
    let (level, rps, gcc, title) = match best {
        Some(r) => {
            let level = match r.guarantee {
                Guarantee::Verified => "verified",
                Guarantee::Bounded { .. } => "bounded",
                Guarantee::VerifiedAssuming { .. } => "verified-assuming",
                _ => "tested",
            };
            let gcc = gcc_failures(&apply_edits(&text, &r.edits), p, work).unwrap_or(usize::MAX);
            (level, Some(crate::engines::verified::patch_size(&lowered.program, &text, &r.edits)), gcc, r.title.clone())
        }
        None => ("none", None, 0, String::new()),
    };
    Some(Outcome {
        file,
        level,
        reference: report.stats.reference.unwrap_or("not run"),
        first_ms: best.and(report.stats.first_repair_ms),
        total_ms: report.stats.total_ms,
        rps,
        gcc_failures: gcc,
        title,
    })
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Runs the benchmark: `budget` per submission, at most `limit` submissions per problem
/// (spread evenly over its list), on `workers` threads.
pub fn run(data: &Path, budget: Duration, limit: Option<usize>, verbose: bool, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "mend bench reference — {} ({} build), {} s budget per submission", data.display(), if cfg!(debug_assertions) { "DEBUG" } else { "release" }, budget.as_secs())?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data)?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let problems: Vec<Problem> = dirs.iter().filter_map(|d| load(d)).collect();
    let mut jobs: Vec<(usize, PathBuf)> = Vec::new();
    for (i, p) in problems.iter().enumerate() {
        let n = p.submissions.len();
        let take = limit.unwrap_or(n).min(n);
        for k in 0..take {
            jobs.push((i, p.submissions[k * n / take.max(1)].clone()));
        }
    }
    let started = Instant::now();
    let queue = Mutex::new(jobs.into_iter());
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(2);
    std::thread::scope(|s| {
        for w in 0..workers {
            let (queue, results, problems) = (&queue, &results, &problems);
            s.spawn(move || {
                let work = std::env::temp_dir().join(format!("mend-bench-{}-{w}", std::process::id()));
                let _ = std::fs::create_dir_all(&work);
                loop {
                    let Some((i, path)) = queue.lock().unwrap().next() else { break };
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| evaluate(&problems[i], &path, budget, &work)));
                    match run {
                        Ok(Some(o)) => results.lock().unwrap().push(o),
                        Ok(None) => {}
                        Err(_) => results.lock().unwrap().push(Outcome {
                            file: format!("{}/{}", problems[i].name, path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()),
                            level: "none",
                            reference: "internal error",
                            first_ms: None,
                            total_ms: 0.0,
                            rps: None,
                            gcc_failures: 0,
                            title: String::new(),
                        }),
                    }
                }
                let _ = std::fs::remove_dir_all(&work);
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.file.cmp(&b.file));
    let n = results.len();
    let pct = |k: usize| if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    let count = |level: &str| results.iter().filter(|o| o.level == level).count();
    writeln!(out, "{n} failing submissions of {} problems; {:.0} s", problems.len(), started.elapsed().as_secs_f64())?;
    let (v, b, a, t) = (count("verified"), count("bounded"), count("verified-assuming"), count("tested"));
    let all = v + b + a + t;
    writeln!(
        out,
        "repaired {:.1}% ({all}): verified {:.1}% ({v}), bounded {:.1}% ({b}), verified under the tests' input precondition {:.1}% ({a}), tested {:.1}% ({t}); verified or bounded {:.1}%, with the precondition ones {:.1}%  [target >= 65%]",
        pct(all),
        pct(v),
        pct(b),
        pct(a),
        pct(t),
        pct(v + b),
        pct(v + b + a)
    )?;
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &results {
        *reasons.entry(o.reference).or_default() += 1;
    }
    writeln!(out, "verified engine verdicts (Verifix Table 4 reasons for the rest):")?;
    for (r, k) in &reasons {
        writeln!(out, "  {r:<24} {k:>5} ({:.1}%)", pct(*k))?;
    }
    let mut firsts: Vec<f64> = results.iter().filter_map(|o| o.first_ms).collect();
    firsts.sort_by(f64::total_cmp);
    writeln!(out, "time to first repair: median {:.0} ms, p90 {:.0} ms (n={})  [median < 1 s, p90 < 10 s]", percentile(&firsts, 0.5), percentile(&firsts, 0.9), firsts.len())?;
    let rps: Vec<f64> = results.iter().filter_map(|o| o.rps).collect();
    writeln!(out, "mean relative patch size {:.3} (n={})  [< 0.3]", rps.iter().sum::<f64>() / rps.len().max(1) as f64, rps.len())?;
    let mut totals: Vec<f64> = results.iter().map(|o| o.total_ms).collect();
    totals.sort_by(f64::total_cmp);
    writeln!(out, "whole analysis: median {:.0} ms, p90 {:.0} ms", percentile(&totals, 0.5), percentile(&totals, 0.9))?;
    let bad: Vec<&Outcome> = results.iter().filter(|o| o.level != "none" && o.gcc_failures > 0).collect();
    writeln!(out, "repairs that fail a test when compiled with gcc: {}  [target 0]", bad.len())?;
    for o in bad {
        let fails = if o.gcc_failures == usize::MAX { "does not compile".to_string() } else { format!("fails {} tests", o.gcc_failures) };
        writeln!(out, "  BUG {} ({}): {} — {fails}", o.file, o.level, o.title)?;
    }
    if verbose {
        for o in &results {
            writeln!(out, "  {} {} [{}] {:.0} ms {}", o.file, o.level, o.reference, o.first_ms.unwrap_or(o.total_ms), o.title)?;
        }
    }
    Ok(())
}
