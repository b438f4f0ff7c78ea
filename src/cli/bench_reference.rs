//! `mend bench reference [DATA]`: the repair pipeline a student gets (`check` with the
//! reference and the tests) over a dataset laid out like IntroClass
//! (`PROBLEM/reference.c`, `PROBLEM/tests/**/N.in|N.out`, `PROBLEM/submissions/*.c`), on the
//! submissions that fail a test. Each problem is judged by the compare mode of its own
//! `mend.toml` when it has one, else by the `--compare` mode (IntroClass: `values`). Per
//! submission: the strongest repair offered and its guarantee, the verified engine's verdict or
//! failure reason (Verifix's Table 4), the time to the first repair and the relative patch size
//! (the exact tree edit distance over the student's AST size).
//!
//! Every repair offered with a proof (verified, bounded, verified under the tests'
//! precondition) is then re-checked independently ([`Oracle`]): the patched program and the
//! reference are compiled with gcc and run on every test and on inputs generated from the
//! tests' (one number changed), and the outputs are judged under the problem's mode. A repair
//! that fails is a false guarantee: counted, listed, and a failure of the soundness test.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::check::{self, CheckOptions};
use crate::ir::apply_edits;
use crate::ir::{Guarantee, Program};
use crate::spec::compare::{self, Compare};
use crate::spec::interp::{self, Limits};
use crate::spec::tests::{self as spec_tests, TestCase};
use crate::syntax::flags::CompilerFlags;

pub(super) struct Problem {
    pub(super) name: String,
    pub(super) reference: PathBuf,
    pub(super) ref_prog: Program,
    pub(super) compare: Compare,
    /// The course's compiler flags (the bench's `--flags`, else the problem's mend.toml
    /// `flags`): repairs are analysed under them, and gcc must accept each repaired text with
    /// them wherever it accepts the submission.
    pub(super) flags: Option<CompilerFlags>,
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
    /// When the first repair that passes every test was shown (any guarantee from `tested`
    /// up), and the first with a proof (`bounded` or `verified`).
    first_ms: Option<f64>,
    first_proved_ms: Option<f64>,
    /// The analysis ran to its budget with no repair to show.
    empty_at_budget: bool,
    /// Milliseconds per phase of the analysis.
    phases: Vec<(&'static str, f64)>,
    /// After a one-character edit in the repaired function: the whole analysis again, and the
    /// time to its first repair that passes every test.
    again: Option<(f64, Option<f64>)>,
    total_ms: f64,
    rps: Option<f64>,
    title: String,
    /// Proved repairs offered.
    proved: usize,
    /// Repairs that the oracle refutes (a proof on any input, `tested` on a test): the title
    /// and what it saw.
    false_guarantees: Vec<String>,
    /// Repairs (of a submission gcc accepts under the course's flags) whose text it rejects:
    /// the title and gcc's first error.
    rejected_by_flags: Vec<String>,
    /// Repairs judged under the course's flags.
    under_flags: usize,
    /// `tested` repairs judged, and those of them that pass every test under gcc but differ
    /// from the reference on a generated input (a fix that fits the tests only).
    tested: usize,
    tested_differs: usize,
    /// Why the verified engine found no repair (its own words), or what mend's front end
    /// rejected.
    why: Option<String>,
}

impl Outcome {
    /// The verified engine ran over the whole program: no construct stopped it, and mend's
    /// front end accepted the file.
    fn modelled(&self) -> bool {
        !matches!(self.reference, "unsupported construct" | "front end rejects" | "not run" | "internal error")
    }
}

pub(super) fn load(dir: &Path, default_compare: Compare) -> Option<Problem> {
    let reference = dir.join("reference.c");
    if !reference.is_file() {
        return None;
    }
    let (compare, flags) = match crate::spec::config::discover(&reference) {
        Ok(Some(c)) if dir.join(crate::spec::config::FILE_NAME).is_file() => (c.compare, c.flags),
        _ => (default_compare, None),
    };
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
    let mut submissions: Vec<PathBuf> = std::fs::read_dir(dir.join("submissions"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    submissions.sort();
    Some(Problem {
        name: dir.file_name()?.to_string_lossy().into_owned(),
        reference,
        ref_prog,
        compare,
        flags,
        tests,
        ref_prompt,
        submissions,
    })
}

/// Whether `program` passes every test in mend's interpreter.
pub(super) fn passes_all(program: &Program, p: &Problem) -> bool {
    p.first_failing(program).is_none()
}

impl Problem {
    /// The input of the first test `program` fails in mend's interpreter.
    pub(super) fn first_failing(&self, program: &Program) -> Option<&[u8]> {
        let passed = self.results(program);
        self.tests.iter().zip(passed).find(|(_, ok)| !ok).map(|((_, input, _), _)| input.as_slice())
    }

    /// Whether `program` passes each test, in mend's interpreter.
    pub(super) fn results(&self, program: &Program) -> Vec<bool> {
        self.results_of(program, &Cancel::new(), &vec![true; self.tests.len()])
    }

    /// [`Self::results`] for the tests `which` says, `true` for the others.
    pub(super) fn results_of(&self, program: &Program, cancel: &Cancel, which: &[bool]) -> Vec<bool> {
        (self.tests.iter().zip(&self.ref_prompt).zip(which))
            .map(|(((_, input, expected), prompt), run_it)| {
                if !run_it {
                    return true;
                }
                let run = interp::run(program, "main", input, &Limits::default(), cancel);
                run.error.is_none()
                    && compare::output_matches(
                        self.compare,
                        expected,
                        Some(*prompt),
                        &String::from_utf8_lossy(&run.output),
                        Some(run.output_before_last_read),
                    )
            })
            .collect()
    }

    pub(super) fn submissions(&self) -> &[PathBuf] {
        &self.submissions
    }
}

/// A run of a gcc-compiled program: its output, or `None` when it crashed (a signal) or timed
/// out. The exit status is not judged: a test is its input and its expected output, and
/// `return m;` from `main` is no crash.
fn run_binary(bin: &Path, input: &[u8]) -> Option<String> {
    let mut child = Command::new("timeout")
        .arg("5")
        .arg(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().ok()?;
    // `timeout` exits with 124 when it stops the program; a signal leaves no code.
    matches!(out.status.code(), Some(code) if code != 124).then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn compile(text: &str, work: &Path, name: &str) -> Result<PathBuf, String> {
    let src = work.join(format!("{name}.c"));
    let bin = work.join(name);
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let status = Command::new("gcc")
        .args(["-w", "-O0", "-o"])
        .arg(&bin)
        .arg(&src)
        .arg("-lm")
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("gcc: {e}"))?;
    if status.success() { Ok(bin) } else { Err("does not compile with gcc".into()) }
}

/// The independent judge of a proved repair: gcc, the tests, generated inputs, the problem's
/// compare mode. Prompt lengths (`values`) come from mend's interpreter on the same program
/// and input.
struct Oracle<'a> {
    p: &'a Problem,
    work: &'a Path,
    /// Generated inputs the reference's gcc build runs to completion, with its output and
    /// prompt length.
    generated: Vec<(Vec<u8>, String, usize)>,
}

/// Generated inputs per problem.
const GENERATED: usize = 12;

impl<'a> Oracle<'a> {
    fn new(p: &'a Problem, work: &'a Path) -> Result<Self, String> {
        let ref_text = std::fs::read_to_string(&p.reference).map_err(|e| e.to_string())?;
        let ref_bin = compile(&ref_text, work, "reference")?;
        let inputs: Vec<String> =
            p.tests.iter().map(|(_, input, _)| String::from_utf8_lossy(input).into_owned()).collect();
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let generated = check::counterexample::variations(&inputs, GENERATED)
            .into_iter()
            .map(String::into_bytes)
            .filter_map(|input| {
                let out = run_binary(&ref_bin, &input)?;
                let prompt = interp::run(&p.ref_prog, "main", &input, &Limits::default(), &Cancel::new())
                    .output_before_last_read;
                Some((input, out, prompt))
            })
            .collect();
        Ok(Oracle { p, work, generated })
    }

    /// What refutes `guarantee` for the patched `text` (`None`: nothing). The tests are checked
    /// for every proof; the generated inputs for proofs that cover them (not a precondition's,
    /// which the tests' inputs satisfy and a generated one may not), and for a bounded proof
    /// only inputs on which both programs stay within the bound.
    fn refutes(&self, text: &str, guarantee: &Guarantee) -> Option<String> {
        let bin = match compile(text, self.work, "repaired") {
            Ok(b) => b,
            Err(e) => return Some(e),
        };
        let program = crate::syntax::lower::lower_source(text).program;
        let cut = |input: &[u8]| {
            interp::run(&program, "main", input, &Limits::default(), &Cancel::new()).output_before_last_read
        };
        let mode = self.p.compare;
        for ((t, input, expected), prompt) in self.p.tests.iter().zip(&self.p.ref_prompt) {
            let actual = run_binary(&bin, input).unwrap_or_else(|| "(crashed or timed out)".into());
            if !compare::output_matches(mode, expected, Some(*prompt), &actual, Some(cut(input).min(actual.len()))) {
                return Some(format!("test {}: expected {:?}, got {:?}", t.name, expected, actual));
            }
        }
        let bound = match guarantee {
            Guarantee::Verified => None,
            Guarantee::Bounded { bound } => Some(bound.loops),
            _ => return None,
        };
        // Numbers read with scanf: the proofs' input model has every read find its number
        // (`verified::stream`), so an input that runs out first is outside what was proved.
        let tokens = self.p.ref_prog.func_by_name("main").is_some_and(|f| {
            crate::engines::verified::stream::input_kind(&self.p.ref_prog, f)
                == Ok(crate::engines::verified::stream::Input::Tokens)
        });
        for (input, expected, prompt) in &self.generated {
            if bound.is_some() || tokens {
                let limits = Limits { unwinding_bound: bound, ..Limits::default() };
                let outside = |p: &Program| {
                    let run = interp::run(p, "main", input, &limits, &Cancel::new());
                    (bound.is_some() && run.error.is_some()) || (tokens && run.input_exhausted)
                };
                if outside(&program) || outside(&self.p.ref_prog) {
                    continue;
                }
            }
            let actual = run_binary(&bin, input).unwrap_or_else(|| "(crashed or timed out)".into());
            if !compare::output_matches(mode, expected, Some(*prompt), &actual, Some(cut(input).min(actual.len()))) {
                return Some(format!(
                    "generated input {:?}: the reference prints {:?}, the repair {:?}",
                    String::from_utf8_lossy(input),
                    expected,
                    actual
                ));
            }
        }
        None
    }
}

/// The oracle on a reference and inputs of one's choosing (the fixture suite's soundness
/// check): what refutes `guarantee` for the patched `text` under `compare`, judged by gcc on
/// `inputs` (the reference's gcc output is the expected one) and inputs generated from them.
/// Inputs on which the reference errs or runs out of steps in mend's interpreter are left out.
pub fn refute_against(
    reference: &Path,
    inputs: &[Vec<u8>],
    compare: Compare,
    text: &str,
    guarantee: &Guarantee,
) -> Result<Option<String>, String> {
    let ref_text = std::fs::read_to_string(reference).map_err(|e| format!("{}: {e}", reference.display()))?;
    let ref_prog = crate::syntax::lower::lower_source(&ref_text).program;
    let work = std::env::temp_dir().join(format!("mend-oracle-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let ref_bin = compile(&ref_text, &work, "reference")?;
    let (mut tests, mut ref_prompt) = (Vec::new(), Vec::new());
    for (i, input) in inputs.iter().enumerate() {
        let run = interp::run(&ref_prog, "main", input, &Limits::default(), &Cancel::new());
        let Some(expected) = run.error.is_none().then(|| run_binary(&ref_bin, input)).flatten() else { continue };
        let name = format!("input {}", i + 1);
        tests.push((TestCase { name, input: PathBuf::new(), output: PathBuf::new() }, input.clone(), expected));
        ref_prompt.push(run.output_before_last_read);
    }
    let problem = Problem {
        name: String::new(),
        reference: reference.to_path_buf(),
        ref_prog,
        compare,
        flags: None,
        tests,
        ref_prompt,
        submissions: Vec::new(),
    };
    let verdict = Oracle::new(&problem, &work).map(|oracle| oracle.refutes(text, guarantee));
    let _ = std::fs::remove_dir_all(&work);
    verdict
}

/// A number no other call in this process gets (for work folders).
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Whether gcc's build of `text` fails a test of `p` (the judge for files mend's front end
/// rejects, which its interpreter cannot run).
fn fails_under_gcc(text: &str, p: &Problem, work: &Path) -> bool {
    let Ok(bin) = compile(text, work, "submission") else { return false };
    p.tests.iter().zip(&p.ref_prompt).any(|((_, input, expected), prompt)| {
        let actual = run_binary(&bin, input).unwrap_or_default();
        !compare::output_matches(p.compare, expected, Some(*prompt), &actual, None)
    })
}

fn evaluate(p: &Problem, path: &Path, budget: Duration, work: &Path) -> Option<Outcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let lowered = crate::syntax::lower::lower_source(&text);
    let front_end = lowered.diagnostics.iter().find(|d| d.severity == crate::ir::Severity::Error).cloned();
    let rejected = front_end.is_some();
    // A file mend's front end rejects still counts when gcc's build fails a test: a student
    // gets no repair for it, and leaving it out would flatter the figures.
    if if rejected { !fails_under_gcc(&text, p, work) } else { passes_all(&lowered.program, p) } {
        return None;
    }
    let opts = CheckOptions {
        reference: Some(p.reference.clone()),
        tests: Some(p.reference.parent()?.join("tests")),
        compare: Some(p.compare),
        flags: p.flags.clone(),
        timeout: Some(budget),
        repair_assertions: false,
        typed_repairs: 0,
        ..CheckOptions::default()
    };
    // As `mend check` and the editor run it: a job held to its budget.
    let report = check::job::Job::of_file(path.to_path_buf(), &text, opts.clone(), check::job::Hooks::default()).run();
    let best = report.repairs.iter().filter(|r| r.guarantee.strength() > 0).max_by_key(|r| r.guarantee.strength());
    // The student types one character inside the function just repaired (a space at the start
    // of the first changed line: the program stays the same) and mend analyses again, its
    // caches warm.
    let again = best.and_then(|r| r.edits.first()).map(|e| {
        let line = text[..e.span.start as usize].rfind('\n').map_or(0, |i| i + 1);
        let edited = format!("{} {}", &text[..line], &text[line..]);
        let tree = crate::syntax::parse(&edited, None);
        let started = Instant::now();
        let again = check::check_parsed(Some(path), &edited, &tree, &opts, &Cancel::new());
        let first = first_at_least(&again, Guarantee::Tested { tests: 0 }.strength());
        (started.elapsed().as_secs_f64() * 1000.0, first)
    });
    let file = format!("{}/{}", p.name, path.file_name()?.to_string_lossy());
    let mut false_guarantees = Vec::new();
    let proved_count = report.repairs.iter().filter(|r| r.guarantee.is_proof()).count();
    // Every repair is judged: a proof on all its inputs, a `tested` one on the tests (which it
    // claims) and, for the record, on the generated inputs (which it does not claim).
    let judged: Vec<_> = report
        .repairs
        .iter()
        .filter(|r| r.guarantee.is_proof() || matches!(r.guarantee, Guarantee::Tested { .. }))
        .collect();
    let (mut tested, mut tested_differs) = (0, 0);
    if !judged.is_empty() {
        match Oracle::new(p, work) {
            Ok(oracle) => {
                for r in judged {
                    let repaired = apply_edits(&text, &r.edits);
                    let refuted = oracle.refutes(&repaired, &r.guarantee);
                    if !r.guarantee.is_proof() {
                        tested += 1;
                        tested_differs +=
                            (refuted.is_none() && oracle.refutes(&repaired, &Guarantee::Verified).is_some()) as usize;
                    }
                    if let Some(why) = refuted {
                        false_guarantees.push(format!("{} ({}): {why}", r.title, r.guarantee.label()));
                    }
                }
            }
            Err(e) => false_guarantees.push(format!("the reference cannot be checked: {e}")),
        }
    }
    // The course builds with its flags (`-Werror`: a warning fails the build): a repair must
    // not break a build the submission passed.
    let (mut rejected_by_flags, mut under_flags) = (Vec::new(), 0);
    if let Some(flags) = &p.flags
        && super::bench_compile::gcc(&text, Some(flags), work).is_ok()
    {
        for r in report.repairs.iter().filter(|r| r.guarantee.strength() > 0) {
            under_flags += 1;
            if let Err(error) = super::bench_compile::gcc(&apply_edits(&text, &r.edits), Some(flags), work) {
                rejected_by_flags.push(format!("{} ({}): {error}", r.title, r.guarantee.label()));
            }
        }
    }
    let (level, rps, title) = match best {
        Some(r) => {
            let level = match r.guarantee {
                Guarantee::Verified => "verified",
                Guarantee::Bounded { .. } => "bounded",
                Guarantee::VerifiedAssuming { .. } => "verified-assuming",
                _ => "tested",
            };
            (level, Some(crate::engines::verified::patch_size(&lowered.program, &text, &r.edits)), r.title.clone())
        }
        None => ("none", None, String::new()),
    };
    Some(Outcome {
        file,
        level,
        reference: if front_end.is_some() { "front end rejects" } else { report.stats.reference.unwrap_or("not run") },
        why: front_end
            .map(|d| format!("front end: {}", d.message))
            .or(report.stats.reference_failure.clone())
            .or_else(|| (report.stats.reference.is_none() && best.is_none()).then(|| not_run_because(&report))),
        first_ms: first_at_least(&report, Guarantee::Tested { tests: 0 }.strength()),
        first_proved_ms: first_at_least(&report, Guarantee::Bounded { bound: crate::ir::Bound::loops(0) }.strength()),
        empty_at_budget: best.is_none() && report.stats.timed_out,
        phases: report.stats.phases.clone(),
        again,
        total_ms: report.stats.total_ms,
        rps,
        title,
        proved: proved_count,
        false_guarantees,
        rejected_by_flags,
        under_flags,
        tested,
        tested_differs,
    })
}

/// Why the analysis never compared the program with the reference: its first error (a
/// `mend.toml` it cannot use, say), else its first note, so that "not run" is never silent.
fn not_run_because(report: &check::Report) -> String {
    let first = |severity| report.diagnostics.iter().find(|d| d.severity == severity);
    match first(crate::ir::Severity::Error).or_else(|| first(crate::ir::Severity::Hint)) {
        Some(d) => format!("not run: {} [{}]", d.message, d.code),
        None => "not run: the analysis ended before it reached the reference".into(),
    }
}

/// When the report's first repair with a guarantee at least `strength` was shown.
pub(super) fn first_at_least(report: &check::Report, strength: u8) -> Option<f64> {
    report.repairs.iter().filter_map(|r| r.first_at_least(strength)).min().map(|ms| ms as f64)
}

pub(super) fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// What a run of the benchmark found wrong: each proved repair the oracle refutes, as
/// `problem/file: title (guarantee): what it saw`.
#[derive(Debug, Default)]
pub struct Findings {
    pub false_guarantees: Vec<String>,
    /// Failing submissions analysed.
    pub submissions: usize,
    /// Proved repairs offered (all of them, not only the best per submission).
    pub proved_repairs: usize,
    /// Repairs whose text gcc rejects under the course's flags where it accepts the
    /// submission's, as `problem/file: title (guarantee): gcc's first error`.
    pub rejected_by_flags: Vec<String>,
}

/// How many analyses run at once: one per pair of cores (at most two), as the editor runs
/// one per student; the soundness test asks for two on any machine, because it judges the
/// repairs found and not how fast they came.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AtOnce {
    #[default]
    PerPairOfCores,
    Two,
}

/// How the benchmark runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The analysis budget per submission.
    pub budget: Duration,
    /// At most so many submissions per problem, spread evenly over its list.
    pub limit: Option<usize>,
    /// With `limit`: where in each step of the even spread to take the submission, from 0
    /// (its first) to below 1; 0.5 takes the ones halfway between the default sample's,
    /// another sample of the same course than the one tuned on.
    pub shift: f64,
    /// How problems without a `mend.toml` are judged.
    pub default_compare: Compare,
    /// The course's compiler flags for every problem (else each problem's mend.toml `flags`).
    pub flags: Option<CompilerFlags>,
    pub at_once: AtOnce,
    /// Every submission's line, every reason the verified engine gave.
    pub verbose: bool,
}

/// Runs the benchmark on the problems of `data`.
pub fn run(data: &Path, settings: &Settings, out: &mut impl Write) -> std::io::Result<Findings> {
    let Settings { budget, limit, shift, default_compare, ref flags, at_once, verbose } = *settings;
    writeln!(
        out,
        "mend bench reference — {} ({} build), {} s budget per submission",
        data.display(),
        if cfg!(debug_assertions) { "DEBUG" } else { "release" },
        budget.as_secs()
    )?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data)?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut problems: Vec<Problem> = dirs.iter().filter_map(|d| load(d, default_compare)).collect();
    if let Some(flags) = flags {
        problems.iter_mut().for_each(|p| p.flags = Some(flags.clone()));
    }
    let mut jobs: Vec<(usize, PathBuf)> = Vec::new();
    for (i, p) in problems.iter().enumerate() {
        let n = p.submissions.len();
        let take = limit.unwrap_or(n).min(n);
        for k in 0..take {
            let at = ((k as f64 + shift.clamp(0.0, 0.999)) * n as f64 / take.max(1) as f64) as usize;
            jobs.push((i, p.submissions[at.min(n - 1)].clone()));
        }
    }
    let started = Instant::now();
    let queue = Mutex::new(jobs.into_iter());
    let results = Mutex::new(Vec::new());
    // Each analysis uses two cores (the search on the tests beside the verified engine), as it
    // does for a student in the editor: one submission per pair of cores.
    let workers = match at_once {
        AtOnce::PerPairOfCores => (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).clamp(1, 2),
        AtOnce::Two => 2,
    };
    std::thread::scope(|s| {
        for w in 0..workers {
            let (queue, results, problems) = (&queue, &results, &problems);
            s.spawn(move || {
                let work = std::env::temp_dir().join(format!("mend-bench-{}-{w}", std::process::id()));
                let _ = std::fs::create_dir_all(&work);
                loop {
                    let Some((i, path)) = queue.lock().unwrap().next() else { break };
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        evaluate(&problems[i], &path, budget, &work)
                    }));
                    match run {
                        Ok(Some(o)) => results.lock().unwrap().push(o),
                        Ok(None) => {}
                        Err(_) => results.lock().unwrap().push(Outcome {
                            file: format!(
                                "{}/{}",
                                problems[i].name,
                                path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
                            ),
                            level: "none",
                            reference: "internal error",
                            first_ms: None,
                            first_proved_ms: None,
                            empty_at_budget: false,
                            phases: Vec::new(),
                            again: None,
                            total_ms: 0.0,
                            rps: None,
                            title: String::new(),
                            proved: 0,
                            false_guarantees: Vec::new(),
                            rejected_by_flags: Vec::new(),
                            under_flags: 0,
                            tested: 0,
                            tested_differs: 0,
                            why: None,
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
    writeln!(out, "per problem (modelled: the verified engine ran with no unsupported construct  [target >= 95%]):")?;
    writeln!(
        out,
        "  {:<28} {:>7} {:>9} {:>9} {:>9} {:>7} {:>8}",
        "problem", "failing", "modelled", "proved", "+assume", "tested", "timeout"
    )?;
    let mut problem_rows: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for o in &results {
        problem_rows.entry(o.file.split('/').next().unwrap_or("")).or_default().push(o);
    }
    problem_rows.insert("ALL", results.iter().collect());
    for (name, rows) in &problem_rows {
        let k = rows.len();
        let share = |f: &dyn Fn(&Outcome) -> bool| {
            format!("{:.0}%", 100.0 * rows.iter().filter(|o| f(o)).count() as f64 / k.max(1) as f64)
        };
        writeln!(
            out,
            "  {name:<28} {k:>7} {:>9} {:>9} {:>9} {:>7} {:>8}",
            share(&|o| o.modelled()),
            share(&|o| matches!(o.level, "verified" | "bounded")),
            share(&|o| matches!(o.level, "verified" | "bounded" | "verified-assuming")),
            share(&|o| o.level != "none"),
            share(&|o| o.reference == "timeout"),
        )?;
    }
    let mut whys: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &results {
        if let Some(u) = &o.why {
            *whys.entry(u.as_str()).or_default() += 1;
        }
    }
    let mut whys: Vec<(&str, usize)> = whys.into_iter().collect();
    whys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    writeln!(out, "what stopped the verified engine, most frequent first:")?;
    for (what, k) in whys.iter().take(if verbose { usize::MAX } else { 15 }) {
        writeln!(out, "  {k:>5}  {what}")?;
    }
    let mut firsts: Vec<f64> = results.iter().filter_map(|o| o.first_ms).collect();
    firsts.sort_by(f64::total_cmp);
    writeln!(
        out,
        "time to the first repair that passes every test: median {:.0} ms, p90 {:.0} ms (n={})  [median < 1 s, p90 < 10 s]",
        percentile(&firsts, 0.5),
        percentile(&firsts, 0.9),
        firsts.len()
    )?;
    let mut proved: Vec<f64> = results.iter().filter_map(|o| o.first_proved_ms).collect();
    proved.sort_by(f64::total_cmp);
    writeln!(
        out,
        "time to the first proved repair (bounded or verified): median {:.0} ms, p90 {:.0} ms (n={})",
        percentile(&proved, 0.5),
        percentile(&proved, 0.9),
        proved.len()
    )?;
    let mut again: Vec<f64> = results.iter().filter_map(|o| o.again.map(|a| a.0)).collect();
    again.sort_by(f64::total_cmp);
    let mut again_first: Vec<f64> = results.iter().filter_map(|o| o.again.and_then(|a| a.1)).collect();
    again_first.sort_by(f64::total_cmp);
    writeln!(
        out,
        "re-analysis after a one-character edit in the repaired function: median {:.0} ms, p90 {:.0} ms; its first repair: median {:.0} ms (n={})  [p50 < 200 ms]",
        percentile(&again, 0.5),
        percentile(&again, 0.9),
        percentile(&again_first, 0.5),
        again.len()
    )?;
    let empty = results.iter().filter(|o| o.empty_at_budget).count();
    writeln!(out, "ran to the budget with no repair to show: {:.1}% ({empty})  [<= 10%]", pct(empty))?;
    if verbose {
        // Where the time goes: each phase's total over all submissions, largest first.
        let mut phases: Vec<(&str, f64)> = Vec::new();
        for (phase, ms) in results.iter().flat_map(|o| o.phases.iter()) {
            match phases.iter_mut().find(|(p, _)| p == phase) {
                Some((_, total)) => *total += ms,
                None => phases.push((phase, *ms)),
            }
        }
        phases.sort_by(|a, b| b.1.total_cmp(&a.1));
        let all: f64 = results.iter().map(|o| o.total_ms).sum();
        writeln!(out, "where the time goes (sum over submissions; the whole analyses sum to {:.0} s):", all / 1000.0)?;
        for (phase, ms) in &phases {
            writeln!(out, "  {phase:<32} {:>8.1} s {:>5.1}%", ms / 1000.0, 100.0 * ms / all.max(1.0))?;
        }
    }
    let rps: Vec<f64> = results.iter().filter_map(|o| o.rps).collect();
    writeln!(
        out,
        "mean relative patch size {:.3} (n={})  [< 0.3]",
        rps.iter().sum::<f64>() / rps.len().max(1) as f64,
        rps.len()
    )?;
    let mut totals: Vec<f64> = results.iter().map(|o| o.total_ms).collect();
    totals.sort_by(f64::total_cmp);
    writeln!(out, "whole analysis: median {:.0} ms, p90 {:.0} ms", percentile(&totals, 0.5), percentile(&totals, 0.9))?;
    let tested: usize = results.iter().map(|o| o.tested).sum();
    let findings = Findings {
        false_guarantees: results
            .iter()
            .flat_map(|o| o.false_guarantees.iter().map(move |f| format!("{}: {f}", o.file)))
            .collect(),
        submissions: n,
        proved_repairs: results.iter().map(|o| o.proved).sum(),
        rejected_by_flags: results
            .iter()
            .flat_map(|o| o.rejected_by_flags.iter().map(move |f| format!("{}: {f}", o.file)))
            .collect(),
    };
    writeln!(
        out,
        "repairs refuted by gcc (a proved one on the tests and generated inputs, a tested one on the tests; judged by each problem's compare mode): {} of {} ({} proved, {} tested)  [target 0]",
        findings.false_guarantees.len(),
        findings.proved_repairs + tested,
        findings.proved_repairs,
        tested
    )?;
    writeln!(
        out,
        "tested repairs that differ from the reference on a generated input (gcc; they claim the tests only): {} of {}",
        results.iter().map(|o| o.tested_differs).sum::<usize>(),
        tested
    )?;
    for f in &findings.false_guarantees {
        writeln!(out, "  BUG {f}")?;
    }
    let under_flags: usize = results.iter().map(|o| o.under_flags).sum();
    if under_flags > 0 {
        writeln!(
            out,
            "repairs gcc rejects under the course's flags (of submissions it accepts with them): {} of {under_flags}  [target 0]",
            findings.rejected_by_flags.len()
        )?;
        for f in &findings.rejected_by_flags {
            writeln!(out, "  DOES NOT BUILD {f}")?;
        }
    }
    if verbose {
        for o in &results {
            // What stopped the verified engine, beside whatever else repaired the file.
            let stopped = match &o.why {
                Some(why) if o.reference != "not run" => format!(" (verified engine: {why})"),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {} {} [{}] {:.0} ms (whole analysis {:.0} ms) {}{stopped}",
                o.file,
                o.level,
                o.reference,
                o.first_ms.unwrap_or(o.total_ms),
                o.total_ms,
                if o.reference == "not run" { o.why.as_deref().unwrap_or_default() } else { &o.title }
            )?;
        }
    }
    Ok(findings)
}
