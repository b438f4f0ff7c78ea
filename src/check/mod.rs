//! The analysis of one C file against its spec, shared by the CLI and the server: syntax and
//! type diagnostics, test results, and repairs from the engines.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tree_sitter::Tree;

use crate::cancel::Cancel;
use crate::engines::output_text;
use crate::ir::Repair;
use crate::ir::rewrite::Rewrite;
use crate::ir::{Diagnostic, Program, Severity, Span, StmtKind};
use crate::spec::compare::{self, Compare};
use crate::spec::config::{self, Config};
use crate::spec::interp::{self, Limits, RunResult};
use crate::spec::tests::{self as spec_tests, TestCase};
use crate::syntax::course_rules::{Course, Hints};
use crate::syntax::flags::CompilerFlags;
use crate::syntax::{self, lower};

mod anytime;
mod assertions;
mod compiles;
pub mod counterexample;
pub mod expected_states;
mod gate;
mod goes_wrong;
pub mod job;
mod levels;
mod present;
mod reference_repair;
pub use reference_repair::HintLevel;
mod reuse;
mod rewritten;
mod tests_repair;
mod unset;

#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Overrides `reference` from mend.toml.
    pub reference: Option<PathBuf>,
    /// Overrides `tests` from mend.toml.
    pub tests: Option<PathBuf>,
    /// Overrides `compare` from mend.toml.
    pub compare: Option<Compare>,
    /// Budget for the whole analysis; `None`: mend.toml's `timeout_secs`, else 10 s.
    pub timeout: Option<Duration>,
    /// Loop bound for bounded engines; `None`: mend.toml's `bound`, else 5.
    pub bound: Option<u32>,
    /// Report mend's own syntax and type diagnostics (off when another C server shows them;
    /// repair diagnostics and unsupported-construct notes stay).
    pub syntax_diagnostics: bool,
    /// Run the tests of the spec.
    pub run_tests: bool,
    /// Interpreter steps per test run.
    pub max_steps: u64,
    /// Mutation level of the assertion-repair engine (1 or 2).
    pub mutation_level: u8,
    /// Largest number of changed locations in a mutation repair.
    pub max_repair_size: usize,
    /// Run the assertion verifier and mutation repair on files with `assert`s.
    pub repair_assertions: bool,
    /// Search mutation repairs that make every test pass when a test fails.
    pub repair_tests: bool,
    /// Compare with the reference (product program) and search repairs against it.
    pub repair_reference: bool,
    /// Quick fixes per type diagnostic from the typed engine (0: none).
    pub typed_repairs: usize,
    /// How much of a verified repair is shown: the location, the input, or the patch.
    pub hint_level: HintLevel,
    /// The course's compiler flags (overrides `flags` in mend.toml): what the front end
    /// reports beyond plain C (`-ansi`, `-Wall`, `-Werror`, …; see `syntax::course_rules`).
    pub flags: Option<CompilerFlags>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            reference: None,
            tests: None,
            compare: None,
            timeout: None,
            bound: None,
            syntax_diagnostics: true,
            run_tests: true,
            max_steps: 20_000_000,
            mutation_level: 1,
            max_repair_size: 2,
            repair_assertions: true,
            repair_tests: true,
            repair_reference: true,
            typed_repairs: 3,
            hint_level: HintLevel::Fix,
            flags: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    pub name: String,
    pub passed: bool,
    pub input: String,
    pub expected: String,
    pub actual: String,
    /// A runtime error or limit that stopped the run.
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub repairs: Vec<Repair>,
    pub tests: Vec<TestOutcome>,
    pub stats: Stats,
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub parse_ms: f64,
    pub lower_ms: f64,
    pub tests_ms: f64,
    pub total_ms: f64,
    /// The job was cancelled (a newer document version): the report is partial.
    pub cancelled: bool,
    /// The time budget ran out before everything was done: the report is partial.
    pub timed_out: bool,
    /// The assertion verdict of the program as written: `verified`, `bounded`, `violated`,
    /// `unknown` or `unsupported` (`None`: the file has no assertions).
    pub assertions: Option<&'static str>,
    /// Time of the verifier plus the mutation search.
    pub repair_ms: f64,
    /// Time from the start of the assertion check to the first repair.
    pub first_repair_ms: Option<f64>,
    /// The verified engine's verdict against the reference: `equivalent`, `repaired`, or why
    /// it failed (`structural mismatch`, `timeout`, ...); `None` without a reference.
    pub reference: Option<&'static str>,
    /// Why the verified engine found no repair, in its own words (a structural mismatch's
    /// difference, the construct it does not model), for benchmarks and `--verbose`.
    pub reference_failure: Option<String>,
    /// Where the time went: milliseconds per phase of the behaviour analysis, in the order
    /// the phases first ran (`mend bench reference --verbose` sums them).
    pub phases: Vec<(&'static str, f64)>,
}

impl Stats {
    /// Adds the time since `since` to `phase`.
    pub fn phase(&mut self, phase: &'static str, since: Instant) {
        self.add_phase(phase, ms_since(since));
    }

    /// Adds `ms` milliseconds to `phase`.
    pub fn add_phase(&mut self, phase: &'static str, ms: f64) {
        match self.phases.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, total)) => *total += ms,
            None => self.phases.push((phase, ms)),
        }
    }
}

/// The analysis budget when neither the options nor mend.toml set one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The budget of one analysis: the options' (`--timeout`, the editor setting), else
/// mend.toml's `timeout_secs`, else [`DEFAULT_TIMEOUT`].
fn timeout_of(opts: &CheckOptions, config: Option<&Config>) -> Duration {
    opts.timeout.or(config.map(|c| Duration::from_secs(c.timeout_secs))).unwrap_or(DEFAULT_TIMEOUT)
}

/// [`timeout_of`] for the file at `path`, its mend.toml read anew (a broken one sets no
/// budget): what [`job::Job`] holds the analysis to.
pub fn analysis_budget(path: Option<&Path>, opts: &CheckOptions) -> Duration {
    let config = path.and_then(|p| config::discover(p).ok().flatten());
    timeout_of(opts, config.as_ref())
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Analyses `text` (the content of `path`, which locates mend.toml and relative spec paths).
pub fn check(path: Option<&Path>, text: &str, opts: &CheckOptions, cancel: &Cancel) -> Report {
    check_text_streaming(path, text, opts, cancel, &|_| {})
}

/// [`check`], passing partial reports to `on_partial` as [`check_streaming`] does.
pub fn check_text_streaming(
    path: Option<&Path>,
    text: &str,
    opts: &CheckOptions,
    cancel: &Cancel,
    on_partial: OnPartial<'_>,
) -> Report {
    let started = Instant::now();
    let tree = syntax::parse(text, None);
    let parse_ms = ms_since(started);
    let mut report = check_streaming(path, text, &tree, opts, cancel, on_partial);
    report.stats.parse_ms = parse_ms;
    report.stats.total_ms = ms_since(started);
    report
}

/// Receives the report as it stands each time an engine finds a repair, so an editor can show
/// the first repair while the search goes on.
pub type OnPartial<'a> = &'a (dyn Fn(&Report) + Sync);

/// [`check`] on an already parsed text (the server keeps the tree incrementally).
pub fn check_parsed(path: Option<&Path>, text: &str, tree: &Tree, opts: &CheckOptions, cancel: &Cancel) -> Report {
    check_streaming(path, text, tree, opts, cancel, &|_| {})
}

/// [`check_parsed`], passing partial reports to `on_partial` as repairs are found.
pub fn check_streaming(
    path: Option<&Path>,
    text: &str,
    tree: &Tree,
    opts: &CheckOptions,
    cancel: &Cancel,
    on_partial: OnPartial<'_>,
) -> Report {
    // A function with no return type: the analysis runs on the text with `int` written in.
    let Some(missing) = rewritten::MissingInt::find(text) else {
        return analyse(path, text, tree, opts, cancel, on_partial);
    };
    let rewritten = &missing.rewrite.text;
    let tree = syntax::parse(rewritten, None);
    let report = analyse(path, rewritten, &tree, opts, cancel, &|partial| on_partial(&missing.back(text, partial)));
    missing.back(text, &report)
}

/// [`check_streaming`] on a text every function of which has its return type.
fn analyse(
    path: Option<&Path>,
    text: &str,
    tree: &Tree,
    opts: &CheckOptions,
    cancel: &Cancel,
    on_partial: OnPartial<'_>,
) -> Report {
    let started = Instant::now();
    // The spec first: mend.toml may set the budget and the bound (options override it).
    let spec = resolve_spec(path, opts);
    let config = match &spec {
        Ok(Some(s)) => Some(&s.config),
        _ => None,
    };
    let bound = opts.bound.or(config.map(|c| c.bound)).unwrap_or(config::DEFAULT_BOUND);
    let timeout = timeout_of(opts, config);
    let deadline = started + timeout;
    let course = course_for(path, opts);
    let mut front = front_end(tree, text, opts, &course);
    front.report = with_fix_all(std::mem::take(&mut front.report), text, opts, &course);
    let mut report = front.report;
    let spec = match spec {
        Ok(spec) => {
            for problem in spec.iter().flat_map(|s| &s.problems) {
                report.diagnostics.push(Diagnostic::error("mend-toml", Span::default(), problem.clone()));
            }
            spec
        }
        Err(message) => {
            report.diagnostics.push(Diagnostic::error("mend-toml", Span::default(), message));
            None
        }
    };
    let frozen = spec.as_ref().map(|s| s.config.frozen.clone()).unwrap_or_default();
    let engine_opts = crate::engines::mutation::engine::Options {
        entry: spec.as_ref().map_or_else(|| "main".to_string(), |s| s.config.entry.clone()),
        bound,
        level: opts.mutation_level,
        max_size: opts.max_repair_size,
        frozen: frozen.into_iter().collect(),
        line_in_input: spec.as_ref().is_some_and(line_in_every_input),
        smallest_only: true,
        ..Default::default()
    };
    // Every report published, partial or final, records when its repairs reached their guarantees.
    let levels = levels::Levels::new(started);
    let behaviour = Behaviour {
        started,
        spec: spec.as_ref(),
        opts,
        engine_opts: &engine_opts,
        deadline,
        cancel,
        levels: &levels,
        course: &course,
    };
    let mut report = if !front.has_syntax_errors && front.type_errors.is_empty() {
        // An edit that changed no token (a space) reuses the last analysis of the same tokens.
        let spec_files: Vec<&Path> =
            spec.iter().flat_map(|s| s.reference.iter().chain(s.tests.iter())).map(PathBuf::as_path).collect();
        let spec_in_force = spec.as_ref().map(|s| format!("{:?} {:?}", s.config, s.compare));
        let context = reuse::context(path, &format!("{opts:?}"), spec_in_force.as_deref().unwrap_or(""), &spec_files);
        let key = reuse::Key::new(tree, text, context);
        behaviour.run(text, &front.lowered.program, None, &report, Some(key), on_partial)
    } else if let Some(fixed) =
        (!front.has_syntax_errors).then(|| type_fixed(text, &front.type_errors, &report)).flatten()
    {
        // Type errors, each with a fix that type-checks: the logic is analysed on top of the
        // fixes, and each logic repair includes them.
        behaviour.run(&fixed.rewrite.text, &fixed.program, Some((&fixed, text)), &report, None, on_partial)
    } else {
        if let Some(spec) = &spec
            && opts.run_tests
            && spec.tests.is_some()
        {
            let blocked = Some("the tests were not run: fix the errors above first".to_string());
            run_tests(&front.lowered.program, text, spec, blocked, opts, deadline, cancel, &mut report);
        }
        present::student_view(&mut report);
        report
    };
    // Whatever stopped at the deadline, the report is what was found by then.
    report.stats.timed_out |= Instant::now() >= deadline && !cancel.is_cancelled();
    report.stats.cancelled |= cancel.is_cancelled();
    report.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
    report.stats.total_ms = ms_since(started);
    // A report published only now (the front end's, when no behaviour analysis ran).
    levels.stamp(&mut report);
    report
}

/// Whether the spec has tests and every one's input holds a line break: then the assignment
/// promises a line and a proof about a program that reads characters may assume one (the
/// line assumption); an input that ends without one shows that a loop waiting for the '\n'
/// must also stop at the end, and with no tests there is no evidence either way.
fn line_in_every_input(spec: &Spec) -> bool {
    let Some(dir) = &spec.tests else { return false };
    let tests = spec_tests::discover(dir);
    !tests.is_empty() && tests.iter().all(|t| std::fs::read(&t.input).is_ok_and(|input| input.contains(&b'\n')))
}

/// The text with every type error replaced by its best fix, when each error has one, their
/// edits do not overlap, and mend's front end finds no error in the result.
struct TypeFixed {
    rewrite: Rewrite,
    program: Program,
    /// What the fixes do, for the explanation of a repair that includes them.
    words: String,
    /// How many type errors the fixes fix.
    errors: usize,
}

fn type_fixed(text: &str, errors: &[Span], front: &Report) -> Option<TypeFixed> {
    if text.len() > CHECKED_FIX_BYTES {
        return None;
    }
    let mut edits: Vec<crate::ir::TextEdit> = Vec::new();
    let mut titles = Vec::new();
    for error in errors {
        // The first fix of an error: the typed engine's best, else the front end's own (a
        // missing `#include`).
        // A "fix all" repair lists every error it fixes and starts with the first: each
        // error's own fix is wanted here.
        let fix = front.repairs.iter().find(|r| r.fixes.len() <= 1 && r.primary() == *error)?;
        if fix.edits.iter().any(|e| edits.iter().any(|o| o.span.touches(e.span))) {
            return None;
        }
        edits.extend(fix.edits.iter().cloned());
        titles.push(fix.title.clone());
    }
    let rewrite = Rewrite::new(text, edits);
    let tree = syntax::parse(&rewrite.text, None);
    if !syntax::syntax_diagnostics(&tree, &rewrite.text).0.is_empty() {
        return None;
    }
    let lowered = lower::lower(&tree, &rewrite.text);
    if lowered.has_errors() {
        return None;
    }
    titles.dedup();
    let words =
        format!("It also fixes the type error{}: {}.", if titles.len() > 1 { "s" } else { "" }, titles.join("; "));
    Some(TypeFixed { rewrite, program: lowered.program, words, errors: errors.len() })
}

/// The tests and the engines: what the program does against its spec.
struct Behaviour<'a> {
    /// When the analysis started (times to the first repair count from it).
    started: Instant,
    spec: Option<&'a Spec>,
    opts: &'a CheckOptions,
    engine_opts: &'a crate::engines::mutation::engine::Options,
    deadline: Instant,
    cancel: &'a Cancel,
    levels: &'a levels::Levels,
    /// The course's compiler flags, which every logic repair's text must still satisfy.
    course: &'a Course,
}

impl Behaviour<'_> {
    /// Runs the tests and the engines on `program` (the text `text`), adding what they find
    /// to `front` (the front end's report of the student's text). With `back`, `text` is a
    /// rewrite of the student's text (`back.1`) and the findings are mapped back onto it.
    fn run(
        &self,
        text: &str,
        program: &Program,
        back: Option<(&TypeFixed, &str)>,
        front: &Report,
        reuse: Option<reuse::Key>,
        on_partial: OnPartial<'_>,
    ) -> Report {
        let (spec, opts, mut engine_opts, deadline, cancel) =
            (self.spec, self.opts, self.engine_opts, self.deadline, self.cancel);
        let engine_opts_localised;
        let started = Instant::now();
        let reused = reuse.as_ref().and_then(|key| key.reuse(text));
        let mut report = Report::default();
        let mut tests = None;
        if let Some(spec) = spec
            && reused.is_none()
            && opts.run_tests
            && spec.tests.is_some()
        {
            let t = Instant::now();
            let tested = run_tests(program, text, spec, None, opts, deadline, cancel, &mut report);
            // The search ranks first where the failing runs go wrong, localised once here.
            engine_opts_localised =
                crate::engines::mutation::engine::Options { suspects: tested.suspects, ..engine_opts.clone() };
            engine_opts = &engine_opts_localised;
            tests = Some(tested.tests);
            report.stats.tests_ms = ms_since(t);
            report.stats.phase("tests", t);
        }
        // Nothing proved is published that fails a visible test: every report, partial or
        // final, passes through the gate.
        let entry = engine_opts.entry.clone();
        let compare_mode = spec.map_or(Compare::Values, |s| s.compare);
        let anchor = program.name_span_of(&entry);
        // The reference, when the spec names one that lowers.
        let reference = match spec.and_then(|s| s.reference.as_ref()).filter(|_| opts.repair_reference) {
            Some(path) => match load_reference(path) {
                Ok(reference) => Some(reference),
                Err(message) => {
                    report.diagnostics.push(Diagnostic::warning("reference", Span::default(), message));
                    None
                }
            },
            None => None,
        };
        // A test the reference itself fails disagrees with the instructor's program: it cannot
        // refute a proof (a repair proved equivalent to the reference fails it too).
        let excused = match (&reference, &tests) {
            (Some(reference), Some(tests)) => {
                reference_fails_a_test(reference, &entry, tests, compare_mode, opts, cancel, &mut report)
            }
            _ => Vec::new(),
        };
        let gate = gate::Gate::new(
            text,
            &entry,
            tests.as_deref().unwrap_or(&[]),
            compare_mode,
            Limits { max_steps: opts.max_steps, ..Limits::default() },
            cancel,
        )
        .excusing(excused);
        let levels = self.levels;
        let baseline = compiles::Baseline::new(back.map_or(text, |b| b.1), self.course);
        let publish = |partial: &Report| {
            let mut partial = partial.clone();
            gate.apply(&mut partial, anchor);
            if let Some((fixed, original)) = back {
                partial = rewritten::map_back(&fixed.rewrite, original, &partial, &fixed.words);
                rewritten::after_type_fixes(&mut partial, fixed.errors);
            }
            baseline.under_course_flags(&mut partial.repairs, self.course);
            let mut full = front.clone();
            full.diagnostics.extend(partial.diagnostics);
            full.repairs.extend(partial.repairs);
            full.tests = partial.tests;
            full.stats = Stats { lower_ms: front.stats.lower_ms, ..partial.stats };
            present::student_view(&mut full);
            levels.stamp(&mut full);
            full
        };
        if let Some(mut kept) = reused {
            kept.stats.phases.clear();
            kept.stats.phase("reused from the last analysis", started);
            return publish(&kept);
        }
        let gated = |partial: &Report| on_partial(&publish(partial));
        let on_partial: OnPartial<'_> = &gated;
        // The failing tests go out before any engine starts: the student sees them at once,
        // and an analysis stopped at its budget ([`job::Job`]) still reports them.
        if tests.as_ref().is_some_and(|tests| tests.iter().any(|t| !t.passed)) {
            on_partial(&report);
        }
        // The tests' inputs, for the input precondition the verified engine may assume.
        let test_inputs: Vec<String> = spec
            .and_then(|s| s.tests.as_ref())
            .map(|dir| {
                spec_tests::discover(dir).iter().filter_map(|t| std::fs::read_to_string(&t.input).ok()).collect()
            })
            .unwrap_or_default();
        // Output that is wrong only in its literal text (a missing `\n`, a prompt): the text
        // fix first, proved against the reference where it can be.
        if let (Some(spec), Some(tests)) = (spec, &tests)
            && opts.repair_tests
            && spec.compare != Compare::Values
            && tests.iter().any(|t| !t.passed)
            && !cancel.is_cancelled()
        {
            let engine_tests: Vec<output_text::Test> = tests.iter().map(PreparedTest::for_output_text).collect();
            let limits = Limits { max_steps: opts.max_steps, ..Limits::default() };
            let t = Instant::now();
            if let Some(fix) = output_text::repair(program, text, &entry, &engine_tests, spec.compare, &limits, cancel)
            {
                let proof = reference.as_ref().map(|r| (r, test_inputs.as_slice()));
                self.text_fix(text, fix, proof, tests.len(), &mut report, on_partial);
                on_partial(&report);
            }
            report.stats.phase("printed text", t);
        }
        // The reference first: its repairs carry the stronger guarantees. Inputs on which a
        // withdrawn candidate differs from the reference are tests for the search on the tests.
        let mut anytime = anytime::Anytime::default();
        if let Some(reference) = &reference
            && !report.repairs.iter().any(|r| r.guarantee.is_proof())
            && !cancel.is_cancelled()
        {
            anytime = reference_repair::repair_against_reference(
                program,
                text,
                reference,
                compare_mode,
                if opts.repair_tests { tests.as_deref().unwrap_or(&[]) } else { &[] },
                &test_inputs,
                opts.hint_level,
                engine_opts,
                opts.max_steps,
                deadline,
                cancel,
                &mut report,
                on_partial,
            );
        }
        let proved = report.repairs.iter().any(|r| r.guarantee.is_proof());
        // After a search of the same space on the same tests that found nothing, a second one
        // would only repeat it.
        if let (Some(spec), Some(tests)) = (spec, &tests)
            && opts.repair_tests
            && !proved
            && !anytime.exhausted
            && !cancel.is_cancelled()
        {
            let t = Instant::now();
            tests_repair::repair_against_tests(
                program,
                text,
                tests,
                spec.compare,
                engine_opts,
                opts.max_steps,
                &anytime.counterexamples,
                deadline,
                cancel,
                &mut report,
                on_partial,
            );
            report.stats.phase("search on the tests", t);
        }
        keep_strongest_repairs(&mut report);
        if opts.repair_assertions && !cancel.is_cancelled() {
            let t = Instant::now();
            assertions::check_assertions(program, text, engine_opts, deadline, cancel, &mut report, on_partial);
            report.stats.phase("assertions", t);
        }
        // An empty report must not read as "no problems": say what there was to check.
        if spec.is_none_or(|s| s.reference.is_none() && s.tests.is_none()) && !assertions::has_assertions(program) {
            // A hint, not a squiggle: an editor shows it faintly on `main` for as long as it holds.
            report.diagnostics.push(Diagnostic::new(
                crate::ir::Severity::Hint,
                "nothing-checked",
                anchor,
                "mend has nothing to compare this program with (no reference or tests in a mend.toml, no `assert`): only its syntax and types were checked",
            ));
        }
        if let Some(key) = reuse
            && Instant::now() < deadline
            && !cancel.is_cancelled()
        {
            let mut gated = report.clone();
            gate.apply(&mut gated, anchor);
            key.keep(text, &gated);
        }
        publish(&report)
    }

    /// A fix of the printed text as repairs. It is published at once as passing the tests;
    /// with the reference, the fixed program is then compared with it (the verified engine,
    /// then the bounded product), and the fix is upgraded in place to the proof when the two
    /// print the same; a logic repair found on top of it is offered too, with the text fix
    /// included.
    fn text_fix(
        &self,
        text: &str,
        fix: output_text::OutputTextRepair,
        reference: Option<(&Program, &[String])>,
        tests: usize,
        report: &mut Report,
        on_partial: OnPartial<'_>,
    ) {
        use crate::ir::Guarantee;
        let (opts, engine_opts) = (self.opts, self.engine_opts);
        let compare_mode = self.spec.map_or(Compare::Values, |s| s.compare);
        let fixes: Vec<Span> = report.diagnostics.iter().filter(|d| d.code == "test-failed").map(|d| d.span).collect();
        let labelled = |guarantee: Guarantee| {
            let what = match &guarantee {
                Guarantee::Verified => format!("prints {} for every input (proved)", reference_words(compare_mode)),
                Guarantee::Bounded { bound } => format!(
                    "prints {} for every input on runs of up to {} (proved)",
                    reference_words(compare_mode),
                    bound.words()
                ),
                Guarantee::VerifiedAssuming { assumption, bound } => format!(
                    "prints {} for every input where {assumption}{} (proved)",
                    reference_words(compare_mode),
                    bound.map_or(String::new(), |b| format!(", on runs of up to {}", b.words()))
                ),
                _ => format!("passes all {tests} tests"),
            };
            Repair {
                reached: Vec::new(),
                title: format!("Fix ({}): {}", guarantee.label(), changes_words(&fix.places)),
                engine: "output-text",
                guarantee,
                edits: fix.edits.clone(),
                places: fix.places.clone(),
                explanation: format!("Changes only text your program prints, so that it {what}."),
                details: String::new(),
                fixes: fixes.clone(),
            }
        };
        report.repairs.push(labelled(Guarantee::Tested { tests: tests as u32 }));
        let at = report.repairs.len() - 1;
        if report.stats.first_repair_ms.is_none() {
            report.stats.first_repair_ms = Some(ms_since(self.started));
        }
        on_partial(report);
        let rewrite = Rewrite::new(text, fix.edits.clone());
        let fixed = lower::lower_source(&rewrite.text);
        let Some((reference, test_inputs)) = reference else { return };
        if fixed.has_errors() || self.cancel.is_cancelled() {
            return;
        }
        let mut proof = Report::default();
        // Half the time left: when the fixed program cannot be proved (or repaired) in it, the
        // other half is the reference's repair of the program as written, which may prove a
        // fix of another kind.
        let now = Instant::now();
        let proof_deadline = now + self.deadline.saturating_duration_since(now) / 2;
        let proved = reference_repair::repair_against_reference(
            &fixed.program,
            &rewrite.text,
            reference,
            compare_mode,
            // The fixed program passes every test: nothing for a search on them.
            &[],
            test_inputs,
            opts.hint_level,
            engine_opts,
            opts.max_steps,
            proof_deadline,
            self.cancel,
            &mut proof,
            &|_| {},
        );
        // The verified engine's verdict is the one on the fixed program.
        report.stats.reference = proof.stats.reference;
        report.stats.reference_failure = proof.stats.reference_failure.clone();
        if let Some(guarantee) = proved.as_written {
            report.repairs[at] = labelled(guarantee);
        }
        // A logic repair on top of the text fix: one patch of both.
        for (on_fixed, mut r) in proof.repairs.iter().zip(rewritten::map_back(&rewrite, text, &proof, "").repairs) {
            if !r.guarantee.is_proof() {
                continue;
            }
            let kept = kept_text_places(text, &rewrite, &fix, on_fixed, &mut r);
            let label = r.guarantee.label();
            r.title = match kept.is_empty() {
                true => format!("Fix ({label}): {}", changes_words(&r.places)),
                false => format!("Fix ({label}): {}; {}", changes_words(&kept), changes_words(&r.places)),
            };
            if !kept.is_empty() {
                r.explanation = format!("{} It also fixes the text your program prints.", r.explanation);
            }
            r.places.splice(0..0, kept);
            r.fixes = fixes.clone();
            report.repairs.push(r);
        }
    }
}

/// The text fix's places a logic repair found on the fixed text leaves as they are. Where its
/// edit rewrote a text fix's place too (the whole `printf` the text fix changed), the patch no
/// longer holds that text fix as such: the place is dropped, and the composed edit is narrowed
/// to the tokens the student's text and the patch differ in and described from the student's
/// text (`b - a` → `a - b`, not `printf("-%d\n", b - a)` → …).
fn kept_text_places(
    text: &str,
    rewrite: &Rewrite,
    fix: &output_text::OutputTextRepair,
    on_fixed: &Repair,
    composed: &mut Repair,
) -> Vec<crate::ir::Place> {
    let rewritten = |t: &crate::ir::TextEdit| {
        on_fixed.edits.iter().any(|e| {
            let back = rewrite.span_back(e.span);
            !e.span.is_empty() && back.start <= t.span.start && t.span.end <= back.end
        })
    };
    let swallowed: Vec<Span> = fix.edits.iter().filter(|t| rewritten(t)).map(|t| t.span).collect();
    if swallowed.is_empty() {
        return fix.places.clone();
    }
    for e in &mut composed.edits {
        if !swallowed.iter().any(|t| e.span.start <= t.start && t.end <= e.span.end) {
            continue;
        }
        let narrowed = crate::ir::token_edit::minimal_edit(&text[e.span.range()], &e.new_text, e.span.start as usize);
        composed.places.retain(|p| !p.span.touches(e.span));
        let old = &text[narrowed.span.range()];
        let change = match (old.trim().is_empty(), narrowed.new_text.trim().is_empty()) {
            (true, _) => format!("add `{}`", shorten(narrowed.new_text.trim())),
            (_, true) => format!("delete `{}`", shorten(old.trim())),
            _ => format!("`{}` → `{}`", shorten(old.trim()), shorten(narrowed.new_text.trim())),
        };
        composed.places.push(crate::ir::Place { span: narrowed.span, change });
        *e = narrowed;
    }
    composed.places.sort_by_key(|p| (p.span.start, p.span.end));
    (fix.places.iter()).filter(|p| !swallowed.iter().any(|t| t.touches(p.span))).cloned().collect()
}

/// A repair's changes for its title (see [`crate::ir::changes_in_words`]).
fn changes_words(places: &[crate::ir::Place]) -> String {
    crate::ir::changes_in_words(places.iter().map(|p| p.change.as_str()))
}

/// What the reference prints, as the compare mode compares it.
fn reference_words(mode: Compare) -> &'static str {
    match mode {
        Compare::Exact => "exactly what the reference prints",
        Compare::Whitespace => "what the reference prints, up to spacing",
        Compare::Values => "the same values as the reference",
    }
}

/// The part of [`check_parsed`] that takes milliseconds, for every keystroke: syntax
/// diagnostics and repairs plus the type checker's diagnostics. The full report of the same
/// text only adds to it (tests, engines).
///
/// The course's flags are `opts.flags` ([`quick_at`] reads mend.toml's too).
pub fn quick(tree: &Tree, text: &str, opts: &CheckOptions) -> Report {
    quick_for(tree, text, opts, &Course { flags: opts.flags.clone().unwrap_or_default(), hints: Hints::default() })
}

/// [`quick`] for the file at `path`: the course's flags and reference from its mend.toml.
pub fn quick_at(path: Option<&Path>, tree: &Tree, text: &str, opts: &CheckOptions) -> Report {
    quick_for(tree, text, opts, &course_for(path, opts))
}

fn quick_for(tree: &Tree, text: &str, opts: &CheckOptions, course: &Course) -> Report {
    let mut report = match rewritten::MissingInt::find(text) {
        None => with_fix_all(front_end(tree, text, opts, course).report, text, opts, course),
        Some(missing) => {
            let tree = syntax::parse(&missing.rewrite.text, None);
            missing.back(text, &front_end(&tree, &missing.rewrite.text, opts, course).report)
        }
    };
    report.diagnostics.sort_by_key(|d| (d.span.start, d.span.end, d.severity));
    report
}

/// At most this many fixes are chained into one repair of the whole file.
const CHAINED_FIXES: usize = 12;

/// `report` (the front end's, of `text`) with one more repair when the file has several
/// errors: the best fix of an error applied, the text checked again, and so on while errors and
/// fixes remain, as one patch of the original ("Fix 5 errors"), offered on every error it fixes.
/// Each step must lower the count of errors, so the chain only ever makes progress.
fn with_fix_all(mut report: Report, text: &str, opts: &CheckOptions, course: &Course) -> Report {
    let is_error = |d: &&Diagnostic| d.severity == Severity::Error;
    let start: Vec<Span> = report.diagnostics.iter().filter(is_error).map(|d| d.span).collect();
    if start.len() < 2 || text.len() > CHECKED_FIX_BYTES {
        return report;
    }
    let (mut current, mut edits, mut titles) = (text.to_string(), Vec::new(), Vec::new());
    let mut step = report.clone();
    let mut errors = start.len();
    let mut guarantee = crate::ir::Guarantee::WellTyped;
    'chain: for _ in 0..CHAINED_FIXES {
        let spans: Vec<Span> = step.diagnostics.iter().filter(is_error).map(|d| d.span).collect();
        // The first few fixes of an error, in rank order, until one lowers the count (the
        // step's fixes are not re-checked one by one: trying them in order is cheaper).
        for best in step.repairs.iter().filter(|r| spans.contains(&r.primary())).take(4) {
            let next = crate::ir::apply_edits(&current, &best.edits);
            if next == current {
                continue;
            }
            let checked = front_end_with(&syntax::parse(&next, None), &next, opts, course, false).report;
            let left = checked.diagnostics.iter().filter(is_error).count();
            if left >= errors {
                continue;
            }
            edits = Rewrite::new(text, edits).compose(text, &best.edits);
            if best.guarantee == crate::ir::Guarantee::Syntax {
                guarantee = crate::ir::Guarantee::Syntax;
            }
            titles.push(best.title.clone());
            (current, step, errors) = (next, checked, left);
            if errors == 0 {
                break 'chain;
            }
            continue 'chain;
        }
        break;
    }
    let fixed = start.len() - errors;
    if titles.len() < 2 || crate::ir::apply_edits(text, &edits) != current {
        return report;
    }
    let title = match errors {
        0 => format!("Fix all {fixed} errors"),
        _ => format!("Fix {fixed} of the {} errors", start.len()),
    };
    report.repairs.insert(
        0,
        Repair {
            reached: Vec::new(),
            title,
            engine: "frontend",
            guarantee,
            edits,
            places: Vec::new(),
            explanation: format!("{}.", titles.join("; ")),
            details: format!("{} fixes chained", titles.len()),
            fixes: start,
        },
    );
    report
}

struct FrontEnd {
    report: Report,
    lowered: lower::Lowered,
    has_syntax_errors: bool,
    /// The spans of the type checker's errors (shown or not).
    type_errors: Vec<Span>,
}

fn front_end(tree: &Tree, text: &str, opts: &CheckOptions, course: &Course) -> FrontEnd {
    front_end_with(tree, text, opts, course, true)
}

/// [`front_end`]; `recheck_fixes: false` skips re-checking each type fix on the patched text
/// (a step of [`with_fix_all`], which checks the whole step instead).
fn front_end_with(tree: &Tree, text: &str, opts: &CheckOptions, course: &Course, recheck_fixes: bool) -> FrontEnd {
    let mut report = Report::default();
    let (syntax_diags, syntax_repairs) = syntax::syntax_diagnostics(tree, text);
    let has_syntax_errors = !syntax_diags.is_empty();
    // Beside another C server (`syntax_diagnostics` off) mend's own errors are not shown, but
    // its fixes for them stay available: the other server may have none.
    report.repairs.extend(syntax_repairs);
    let syntax_spans: Vec<Span> = syntax_diags.iter().map(|d| d.span).collect();
    if opts.syntax_diagnostics {
        report.diagnostics.extend(syntax_diags);
    }
    let t = Instant::now();
    let mut lowered = lower::lower(tree, text);
    report.stats.lower_ms = ms_since(t);
    let type_errors: Vec<Span> =
        lowered.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| d.span).collect();
    // The text's errors (their spans), to check that each fix removes its own.
    let (error_spans, course_diags, course_fixes) = compile_errors(tree, text, &mut lowered, &syntax_spans, course);
    // One mistake, one diagnostic: where the syntax layer already explains a span, the type
    // checker's view of the same broken text is noise.
    // Code at file level is explained by the syntax layer whenever it reports anything.
    let overlaps_syntax = |d: &Diagnostic| {
        syntax_spans.iter().any(|s| s.touches(d.span)) || (has_syntax_errors && d.code == lower::OUTSIDE_FUNCTION)
    };
    let type_diags: Vec<Diagnostic> =
        std::mem::take(&mut lowered.diagnostics).into_iter().filter(|d| !overlaps_syntax(d)).collect();
    // Type errors get well-typed replacements of their expression, ranked (engines/typed).
    if opts.typed_repairs > 0 {
        let repairs = crate::engines::typed::repairs(&lowered.program, tree, text, &type_diags, opts.typed_repairs);
        report.repairs.extend(repairs);
    }
    // The front end's own fixes (a missing `#include`, `(int)(…)`), for the diagnostics kept.
    // A typed repair of the same diagnostic that writes the same text gives way to it: its
    // title says what the edit means (`Write `(int)(x)``, not `Insert `int)(` before …`).
    for fix in std::mem::take(&mut lowered.repairs) {
        if !type_diags.iter().any(|d| d.span == fix.primary()) {
            continue;
        }
        let fixed = crate::ir::apply_edits(text, &fix.edits);
        let same = |r: &Repair| r.primary() == fix.primary() && crate::ir::apply_edits(text, &r.edits) == fixed;
        match report.repairs.iter().position(same) {
            Some(i) => report.repairs[i] = fix,
            None => report.repairs.push(fix),
        }
    }
    let mut type_diags = type_diags;
    report.repairs.extend(course_fixes);
    type_diags.extend(course_diags);
    report.diagnostics.extend(type_diags.into_iter().filter(|d| opts.syntax_diagnostics || d.code == "unsupported"));
    if recheck_fixes {
        keep_fixes_that_compile(&mut report.repairs, text, &error_spans, course);
    }
    // The fixes of each error, the commonest and smallest first (learned from students).
    crate::ir::mistakes::rank_fixes(text, &mut report.repairs);
    FrontEnd { report, lowered, has_syntax_errors, type_errors }
}

/// The errors of a parsed and lowered text, as the course's compiler sees them: the syntax
/// layer's (`syntax_spans`), the type checker's (its warnings too under `-Werror`, made errors
/// in `lowered` here) and what the course's flags reject (`syntax::course_rules`, run on a
/// text that parsed; its diagnostics and fixes are returned). The course's rules do not stop
/// the tests or the logic repair: the program is C the interpreter runs.
fn compile_errors(
    tree: &Tree,
    text: &str,
    lowered: &mut lower::Lowered,
    syntax_spans: &[Span],
    course: &Course,
) -> (Vec<Span>, Vec<Diagnostic>, Vec<Repair>) {
    if course.flags.werror {
        for d in lowered.diagnostics.iter_mut().filter(|d| d.severity == Severity::Warning) {
            d.severity = Severity::Error;
        }
    }
    let (course_diags, course_fixes) = if syntax_spans.is_empty() {
        syntax::course_rules::check(tree, text, &lowered.program, course)
    } else {
        (Vec::new(), Vec::new())
    };
    let errors = syntax_spans
        .iter()
        .copied()
        .chain(
            lowered.diagnostics.iter().chain(&course_diags).filter(|d| d.severity == Severity::Error).map(|d| d.span),
        )
        .collect();
    (errors, course_diags, course_fixes)
}

/// Files up to this size have every type fix re-checked (a parse and a lowering of
/// the patched text each, about a millisecond for a student program).
const CHECKED_FIX_BYTES: usize = 64 * 1024;

/// A `type-checks` fix is offered only when mend's own front end finds fewer errors in the
/// patched text (parse, syntax layer, lowering, type checker): `strlen(strerror(total))`
/// type-checks as an argument but does not fix the file. `errors` are the text's (spans); a
/// fix of a warning need only add no error.
/// Syntax fixes are not filtered this way: the syntax layer reports one error per broken
/// stretch, so fixing one may uncover the next (a missing `;` after a `for` whose commas were
/// fixed) and the count alone would refuse a real fix.
fn keep_fixes_that_compile(repairs: &mut Vec<Repair>, text: &str, errors: &[Span], course: &Course) {
    use crate::ir::Guarantee;
    if text.len() > CHECKED_FIX_BYTES || errors.is_empty() {
        return;
    }
    repairs.retain(|r| {
        if r.guarantee != Guarantee::WellTyped {
            return true;
        }
        let after = front_end_errors(&crate::ir::apply_edits(text, &r.edits), course);
        // A warning's fix (a printf directive) need only add no error.
        if errors.contains(&r.primary()) { after < errors.len() } else { after <= errors.len() }
    });
}

/// The errors mend's front end finds in `text` (see [`compile_errors`]).
fn front_end_errors(text: &str, course: &Course) -> usize {
    let tree = syntax::parse(text, None);
    let syntax_spans: Vec<Span> = syntax::syntax_diagnostics(&tree, text).0.iter().map(|d| d.span).collect();
    let mut lowered = lower::lower(&tree, text);
    compile_errors(&tree, text, &mut lowered, &syntax_spans, course).0.len()
}

/// The course of the file at `path`: the compiler flags (the options', else its mend.toml's;
/// a broken mend.toml is reported by the full stage, here it means no flags) and, under C90,
/// what the reference shows (the array length a variable-length array gets).
pub fn course_for(path: Option<&Path>, opts: &CheckOptions) -> Course {
    let config = path.and_then(|p| config::discover(p).ok().flatten());
    let flags = opts.flags.clone().or_else(|| config.as_ref()?.flags.clone()).unwrap_or_default();
    let reference = opts.reference.clone().or_else(|| config?.reference);
    let hints = match reference.and_then(|r| std::fs::read(r).ok()) {
        Some(bytes) if flags.is_c90() => {
            let src = String::from_utf8_lossy(&bytes);
            let tree = syntax::parse(&src, None);
            Hints::from_reference(&tree, &src, &lower::lower(&tree, &src).program)
        }
        _ => Hints::default(),
    };
    Course { flags, hints }
}

/// The spec in force: mend.toml (found by walking up from `path`) overridden by the options.
/// `Err` carries a message for a broken mend.toml or a missing reference/tests path.
struct Spec {
    config: Config,
    tests: Option<PathBuf>,
    reference: Option<PathBuf>,
    compare: Compare,
    /// What the spec names but is not there (a tests folder, a reference), in words.
    problems: Vec<String>,
}

fn resolve_spec(path: Option<&Path>, opts: &CheckOptions) -> Result<Option<Spec>, String> {
    // Name mend.toml relative to the C file when it is above it (the usual case).
    let shown = |e: &config::ConfigError| {
        let base = path.and_then(Path::parent).and_then(|d| d.canonicalize().ok());
        let shown = base
            .and_then(|b| b.ancestors().position(|a| Some(a) == e.file.parent()).map(|up| "../".repeat(up)))
            .map(|up| format!("{up}{}", config::FILE_NAME))
            .unwrap_or_else(|| e.file.display().to_string());
        format!("{shown}:{}:{}: {}", e.line, e.column, e.message)
    };
    let found = match path {
        Some(p) => config::discover(p).map_err(|e| shown(&e))?,
        None => None,
    };
    if found.is_none() && opts.tests.is_none() && opts.reference.is_none() {
        return Ok(None);
    }
    let root = path.and_then(Path::parent).map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let config = found.unwrap_or_else(|| Config::default_at(root));
    // A missing tests folder or reference is reported; the other still checks the program.
    let mut problems: Vec<String> = config.problems.iter().map(shown).collect();
    let mut usable = |path: Option<PathBuf>, there: fn(&Path) -> bool, what: &str| {
        path.filter(|p| {
            let ok = there(p);
            if !ok {
                problems.push(format!("{what} {} does not exist", p.display()));
            }
            ok
        })
    };
    let tests = usable(opts.tests.clone().or_else(|| config.tests.clone()), Path::is_dir, "the tests directory");
    let reference =
        usable(opts.reference.clone().or_else(|| config.reference.clone()), Path::is_file, "the reference program");
    let compare = opts.compare.unwrap_or(config.compare);
    Ok(Some(Spec { config, tests, reference, compare, problems }))
}

/// The reference program, lowered, when the spec names one that lowers without errors.
fn load_reference(path: &Path) -> Result<Program, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read the reference {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    // A reference in C90 with functions that have no return type: lowered with `int` written
    // in, as a student's file is.
    let text = rewritten::MissingInt::find(&text).map_or_else(|| text.to_string(), |m| m.rewrite.text);
    let lowered = lower::lower_source(&text);
    if let Some(d) = lowered.diagnostics.iter().find(|d| d.severity == Severity::Error) {
        return Err(format!("the reference {} has an error: {}", path.display(), d.message));
    }
    Ok(lowered.program)
}

/// The same patch found against the tests and against the reference is offered once, with
/// the stronger guarantee (verified, then bounded, then tested).
fn keep_strongest_repairs(report: &mut Report) {
    use crate::ir::Guarantee;
    let strength = Guarantee::strength;
    let all = report.repairs.clone();
    report
        .repairs
        .retain(|r| !all.iter().any(|o| o.edits == r.edits && strength(&o.guarantee) > strength(&r.guarantee)));
    // The same patch found twice (the anytime candidate, then the search on the tests): once.
    let mut seen: Vec<(Vec<crate::ir::TextEdit>, u8)> = Vec::new();
    report.repairs.retain(|r| {
        let key = (r.edits.clone(), strength(&r.guarantee));
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
}

/// The tests as run on the program as written, and where the failing runs go wrong.
#[derive(Default)]
struct Tested {
    tests: Vec<PreparedTest>,
    suspects: crate::engines::localize::Suspects,
}

/// One test, read and run on the program as written.
#[derive(Clone, Debug)]
pub(crate) struct PreparedTest {
    pub input: String,
    pub expected: String,
    /// With `values`: how much of the expected output is prompt (from the reference's run).
    pub expected_prompt: Option<usize>,
    /// Steps the reference's run on this input took, where a reference ran on it: a
    /// candidate repair that needs far more has failed the test.
    pub reference_steps: Option<u64>,
    pub passed: bool,
}

impl PreparedTest {
    /// The test as the printed-text repair takes it.
    pub(crate) fn for_output_text(&self) -> output_text::Test<'_> {
        output_text::Test { input: &self.input, expected: &self.expected, expected_prompt: self.expected_prompt }
    }
}

/// Runs one test: whether `program`'s output on `input` matches, and the run.
pub(crate) fn run_test(
    program: &Program,
    entry: &str,
    t: &PreparedTest,
    compare: Compare,
    limits: &Limits,
    cancel: &Cancel,
) -> (bool, RunResult) {
    let run = interp::run(program, entry, t.input.as_bytes(), limits, cancel);
    let actual = String::from_utf8_lossy(&run.output);
    let passed = run.error.is_none()
        && compare::output_matches(compare, &t.expected, t.expected_prompt, &actual, Some(run.output_before_last_read));
    (passed, run)
}

/// Bytes a test run may always print (more for a test that expects more).
const TEST_OUTPUT_FLOOR: usize = 1 << 16;

/// Runs the spec's tests, reporting failures as diagnostics; returns the tests it ran.
#[allow(clippy::too_many_arguments)]
fn run_tests(
    program: &Program,
    text: &str,
    spec: &Spec,
    blocked: Option<String>,
    opts: &CheckOptions,
    deadline: Instant,
    cancel: &Cancel,
    report: &mut Report,
) -> Tested {
    let mut tested = Tested::default();
    let Some(dir) = &spec.tests else { return tested };
    let cases = spec_tests::discover(dir);
    let unpaired = spec_tests::unpaired(dir);
    if let Some(first) = unpaired.first() {
        let more = match unpaired.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        report.diagnostics.push(Diagnostic::warning(
            "tests",
            Span::default(),
            format!("test {first}{more} has an input but no expected output (`{first}.out`), so it was not run"),
        ));
    }
    if cases.is_empty() {
        report.diagnostics.push(Diagnostic::info(
            "tests",
            Span::default(),
            format!("no tests found in {} (expected N.in / N.out pairs)", dir.display()),
        ));
        return tested;
    }
    let entry = spec.config.entry.as_str();
    let anchor = program.name_span_of(entry);
    if let Some(reason) = blocked {
        report.diagnostics.push(Diagnostic::info("tests", anchor, reason));
        return tested;
    }
    let Some(func) = program.func_by_name(entry) else {
        report.diagnostics.push(Diagnostic::error(
            "tests",
            Span::default(),
            format!("there is no `{entry}` function to test"),
        ));
        return tested;
    };
    if let Some((what, at)) = unsupported_reachable(program, func) {
        report.diagnostics.push(Diagnostic::info(
            "tests",
            at,
            format!("the tests were not run: the program uses {what}, which mend cannot run yet"),
        ));
        return tested;
    }
    // The reference's run on each test tells how long a candidate repair may run on it and,
    // with `values`, how much of the expected output is prompt. (Under the other modes the
    // reference pipeline reports a reference that cannot be loaded.)
    let reference = match &spec.reference {
        Some(r) => match load_reference(r) {
            Ok(p) => Some(p),
            Err(message) => {
                if spec.compare == Compare::Values {
                    report.diagnostics.push(Diagnostic::warning("reference", Span::default(), message));
                }
                None
            }
        },
        None => None,
    };
    let limits = Limits { max_steps: opts.max_steps, ..Limits::default() };
    let mut runtime_errors: Vec<(Span, crate::spec::interp::RuntimeErrorKind, String, Vec<String>)> = Vec::new();
    let mut failures: Vec<FailedTest> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        if cancel.is_cancelled() {
            report.stats.cancelled = true;
            return tested;
        }
        if Instant::now() > deadline {
            report.stats.timed_out = true;
            report.diagnostics.push(Diagnostic::info(
                "timeout",
                anchor,
                format!("the time budget ran out after {i} of {} tests; the rest were not run", cases.len()),
            ));
            break;
        }
        let (input, expected) = match read_case(case) {
            Ok(pair) => pair,
            Err(message) => {
                report.diagnostics.push(Diagnostic::warning("tests", Span::default(), message));
                continue;
            }
        };
        let ref_run = reference.as_ref().map(|r| interp::run(r, entry, input.as_bytes(), &limits, cancel));
        let ref_finished = ref_run.as_ref().filter(|run| run.error.is_none());
        let expected_prompt = ref_finished
            .filter(|run| spec.compare == Compare::Values && run.output == expected.as_bytes())
            .map(|run| run.output_before_last_read);
        let reference_steps = ref_finished.map(|run| run.steps);
        let mut test = PreparedTest { input, expected, expected_prompt, reference_steps, passed: false };
        // A runaway loop is stopped long before the megabyte limit: what it printed by then
        // already shows the failure, and the student is not kept waiting for the rest.
        let cap = (test.expected.len() * 16).max(TEST_OUTPUT_FLOOR);
        let limits = Limits { max_output: limits.max_output.min(cap), ..limits.clone() };
        let (passed, run) = run_test(program, entry, &test, spec.compare, &limits, cancel);
        if cancel.is_cancelled() {
            report.stats.cancelled = true;
            return tested;
        }
        test.passed = passed;
        let PreparedTest { input, expected, .. } = test.clone();
        tested.tests.push(test);
        let actual = String::from_utf8_lossy(&run.output).into_owned();
        let actual_prompt = Some(run.output_before_last_read);
        let error = run.error.as_ref().map(|e| e.message.clone());
        if let Some(e) = &run.error {
            // One bug, one message: the same error at the same place on several tests (an index
            // past a block whose size each input sets) is said once, with its first test.
            // A run that never ends stops wherever its step or output limit falls: what the
            // tests share is the loop, and the message stands at its condition.
            let at = match e.kind {
                interp::RuntimeErrorKind::StepLimit | interp::RuntimeErrorKind::OutputLimit => {
                    loop_condition_around(program, e.span).unwrap_or(e.span)
                }
                _ => e.span,
            };
            match runtime_errors.iter_mut().find(|(span, kind, _, _)| *span == at && *kind == e.kind) {
                Some((_, _, _, tests)) => tests.push(case.name.clone()),
                None => runtime_errors.push((at, e.kind, e.message.clone(), vec![case.name.clone()])),
            }
        } else if !passed {
            let at = difference_site(&run, &expected, expected_prompt, anchor);
            let (exp_shown, act_shown) = match spec.compare {
                Compare::Values => (
                    compare::tail(&expected, expected_prompt).to_string(),
                    compare::tail(&actual, actual_prompt).to_string(),
                ),
                _ => (expected.clone(), actual.clone()),
            };
            failures.push(FailedTest {
                site: at,
                name: case.name.clone(),
                input: input.clone(),
                expected: exp_shown,
                actual: act_shown,
            });
        }
        report.tests.push(TestOutcome { name: case.name.clone(), passed, input, expected, actual, error });
    }
    if let Some(d) = failed_tests_diagnostic(&failures, report.tests.len()) {
        report.diagnostics.push(d);
    }
    if let Some(reference) = &reference {
        let localised =
            goes_wrong::localise(program, text, reference, entry, &report.tests, spec.compare, opts.max_steps, cancel);
        report.diagnostics.extend(localised.diagnostic);
        tested.suspects = localised.suspects;
    }
    for (span, _, message, tests) in runtime_errors {
        let more = if tests.len() > 1 { format!(" (and {} more)", tests.len() - 1) } else { String::new() };
        let first = &tests[0];
        let input = report.tests.iter().find(|t| &t.name == first).map(|t| input_shown(&t.input)).unwrap_or_default();
        report.diagnostics.push(Diagnostic::error(
            "runtime-error",
            span,
            format!("test {first} (input `{input}`){more}: {message}"),
        ));
    }
    tested
}

/// The condition of the innermost loop of `program` around `at` (a `for` without one: its
/// keyword).
fn loop_condition_around(program: &Program, at: Span) -> Option<Span> {
    let mut found = None;
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if s.span.start > at.start || at.end > s.span.end {
                return;
            }
            let cond = match &s.kind {
                StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => Some(cond.span),
                StmtKind::For { cond, .. } => {
                    Some(cond.as_ref().map_or(Span::new(s.span.start as usize, s.span.start as usize + 3), |c| c.span))
                }
                _ => None,
            };
            // Outermost first: a later match is nested in the earlier one.
            if cond.is_some() {
                found = cond;
            }
        });
    }
    found
}

/// The reference should pass every test; when it does not, its proofs say nothing of that
/// test, and the student is told so once (the first such test, the count of the others).
/// The indices of the tests it fails.
fn reference_fails_a_test(
    reference: &Program,
    entry: &str,
    tests: &[PreparedTest],
    compare: Compare,
    opts: &CheckOptions,
    cancel: &Cancel,
    report: &mut Report,
) -> Vec<usize> {
    let limits = Limits { max_steps: opts.max_steps, ..Limits::default() };
    let mut failing = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let (passed, run) = run_test(reference, entry, t, compare, &limits, cancel);
        if cancel.is_cancelled() {
            return Vec::new();
        }
        if !passed {
            failing.push((i, t, run));
        }
    }
    let indices = failing.iter().map(|(i, _, _)| *i).collect();
    let Some((_, t, run)) = failing.first() else { return indices };
    let more = if failing.len() > 1 { format!(" (and {} other tests)", failing.len() - 1) } else { String::new() };
    let said = match &run.error {
        Some(e) => format!("it stops: {}", e.message),
        None => {
            let (expected, actual) = outputs_shown(&t.expected, &String::from_utf8_lossy(&run.output));
            format!("expected `{expected}`, it prints `{actual}`")
        }
    };
    report.diagnostics.push(Diagnostic::info(
        "reference-fails",
        Span::default(),
        format!(
            "the reference program itself fails the test with input `{}`{more}: {said}; what mend proves against the reference says nothing of that test",
            input_shown(&t.input)
        ),
    ));
    indices
}

/// A test whose output differs: where the output goes wrong and what it shows.
struct FailedTest {
    site: Span,
    name: String,
    input: String,
    expected: String,
    actual: String,
}

/// One warning for every failing test of a run (one bug, however many tests show it): the
/// test with the shortest input is the example, the others are related information.
fn failed_tests_diagnostic(failures: &[FailedTest], ran: usize) -> Option<Diagnostic> {
    let example = failures.iter().min_by_key(|f| f.input.trim().chars().count())?;
    let shows = |f: &FailedTest| {
        let (expected, actual) = outputs_shown(&f.expected, &f.actual);
        format!("input `{}`: expected `{expected}`, got `{actual}`", input_shown(&f.input))
    };
    let message = match (failures.len(), ran) {
        (1, 1) => format!("the test fails: {}", shows(example)),
        (1, _) => format!("1 of {ran} tests fails (test {}): {}", example.name, shows(example)),
        (k, _) => format!("{k} of {ran} tests fail — e.g. {}", shows(example)),
    };
    let mut d = Diagnostic::warning("test-failed", example.site, message);
    for f in failures.iter().filter(|f| f.name != example.name) {
        d = d.with_related(f.site, format!("test {}: {}", f.name, shows(f)));
    }
    Some(d)
}

fn read_case(case: &TestCase) -> Result<(String, String), String> {
    let read = |p: &Path| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("cannot read test file {}: {e}", p.display()))
    };
    Ok((read(&case.input)?, read(&case.output)?))
}

/// The first unsupported construct in `func` or any function it calls.
fn unsupported_reachable(program: &Program, func: crate::ir::FuncId) -> Option<(String, Span)> {
    let mut seen = vec![func];
    let mut todo = vec![func];
    while let Some(f) = todo.pop() {
        let function = program.func(f);
        if let Some((what, at)) = function.unsupported.first() {
            return Some((what.clone(), *at));
        }
        if let Some(body) = &function.body {
            crate::ir::walk::calls_in_stmt(body, &mut |callee| {
                if !seen.contains(&callee) {
                    seen.push(callee);
                    todo.push(callee);
                }
            });
        }
    }
    None
}

/// Where a failing test's output goes wrong: the call that printed the first byte after the
/// common prefix with the expected output (or the last print when the output stops short).
fn difference_site(run: &RunResult, expected: &str, expected_prompt: Option<usize>, fallback: Span) -> Span {
    let out = &run.output;
    let common = if let Some(p) = expected_prompt {
        // Compare tails, then map back into the actual output.
        let exp_tail = compare::tail(expected, Some(p)).as_bytes();
        let act_start = run.output_before_last_read.min(out.len());
        act_start + exp_tail.iter().zip(&out[act_start..]).take_while(|(a, b)| a == b).count()
    } else {
        expected.as_bytes().iter().zip(out).take_while(|(a, b)| a == b).count()
    };
    let mut offset = 0usize;
    for chunk in &run.chunks {
        let end = offset + chunk.text.len();
        if common < end {
            return chunk.span;
        }
        offset = end;
    }
    run.chunks.last().map(|c| c.span).unwrap_or(fallback)
}

/// A construct the verifier does not model, said as mend's limit, not the student's mistake.
pub(crate) fn unsupported_words(u: &crate::smt::encode::Unsupported) -> String {
    let place = u.func.as_ref().map(|f| format!(" in `{f}`")).unwrap_or_default();
    format!("mend cannot reason about {}{place} yet (a limit of mend, not a mistake in your code)", u.what)
}

/// Why a solver question stayed open, in plain words.
pub(crate) fn undecided_words(reason: &crate::smt::solver::UnknownReason) -> &'static str {
    use crate::smt::solver::UnknownReason;
    match reason {
        UnknownReason::Timeout | UnknownReason::OutOfEffort => "it ran out of time",
        UnknownReason::Cancelled => "it was stopped",
        UnknownReason::SolverUnknown(_) => "the question was too hard for it",
        UnknownReason::NoRunWithinBound => "no run of both programs is that short",
    }
}

/// A program input as one line: the lines of numbers joined by spaces, as the numbers a test
/// gives read; where that would hide what the input is (lines of text, which a program may
/// read line by line: `aardvark` then `a` is not the line `aardvark a`; an empty line, a line
/// that begins or ends with a space or a tab), every line break but the last is written out
/// (`aardvark\na`, `\n 0P`).
pub(crate) fn input_shown(input: &str) -> String {
    let body = input.trim_end_matches(['\n', '\r']);
    let lines: Vec<&str> = body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let blank = |l: &&str| l.is_empty() || l.starts_with([' ', '\t']) || l.ends_with([' ', '\t']);
    let text = |l: &&str| l.split_ascii_whitespace().any(|t| t.parse::<f64>().is_err());
    if lines.len() > 1 && lines.iter().any(|l| blank(l) || text(l)) {
        return shorten(body);
    }
    shorten(lines.join(" ").trim_end())
}

/// Two outputs that differ, one line each for a message: [`shorten`]ed, unless that hides
/// a difference (a missing final newline, a `\r`, also beside another difference: `3 2 1 `
/// where `3 2 1\n` is expected), when every line break and tab is written out, from where
/// they differ when the outputs are long.
pub(crate) fn outputs_shown(expected: &str, actual: &str) -> (String, String) {
    let (e, a) = (shorten(expected), shorten(actual));
    fn ending(s: &str) -> &str {
        &s[s.trim_end_matches(['\n', '\r']).len()..]
    }
    // Beside an empty output the missing line break goes without saying.
    if (e != a && (ending(expected) == ending(actual) || e.is_empty() || a.is_empty())) || expected == actual {
        return (e, a);
    }
    let visible = |s: &str| s.replace('\r', "\\r").replace('\n', "\\n").replace('\t', "\\t");
    let (e, a) = (visible(expected), visible(actual));
    let common = e.chars().zip(a.chars()).take_while(|(x, y)| x == y).count();
    let from = |s: &str| {
        let skip = common.saturating_sub(20);
        let tail: String = s.chars().skip(skip).collect();
        let tail = if skip > 0 { format!("...{tail}") } else { tail };
        if tail.chars().count() > 80 { format!("{}...", tail.chars().take(77).collect::<String>()) } else { tail }
    };
    (from(&e), from(&a))
}

/// A one-line rendering of program text for messages.
pub(crate) fn shorten(s: &str) -> String {
    let trimmed = s.trim_end_matches(['\n', '\r']);
    // A byte the editor would not show (`'\0'`, a tab, another control character) is written
    // as C writes it: `X\0Y`, `X\tY` and `X Y` must not look alike.
    let escaped: String = trimmed
        .chars()
        .flat_map(|c| match c {
            '\n' => vec!['\\', 'n'],
            '\t' => vec!['\\', 't'],
            '\r' => vec!['\\', 'r'],
            '\0' => vec!['\\', '0'],
            c if c.is_control() => format!("\\x{:02x}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect();
    if escaped.chars().count() > 80 {
        let cut: String = escaped.chars().take(77).collect();
        format!("{cut}...")
    } else {
        escaped
    }
}

#[cfg(test)]
mod fix_tests {
    use super::*;

    /// A file with several errors (the typed fixture for completion): `strerror(total)`
    /// type-checks as `strlen`'s argument but leaves the file with as many errors, so it is not
    /// offered; every typed fix that is offered removes an error.
    #[test]
    fn a_type_fix_is_offered_only_when_it_removes_an_error() {
        let text = include_str!("../../fixtures/typed/completion.c");
        let tree = syntax::parse(text, None);
        let report = quick(&tree, text, &CheckOptions::default());
        let typed: Vec<&Repair> = report.repairs.iter().filter(|r| r.engine == "typed").collect();
        assert!(!typed.is_empty(), "{:?}", report.repairs);
        let before = front_end_errors(text, &Course::default());
        assert!(!typed.iter().any(|r| r.edits.iter().any(|e| e.new_text.contains("strerror"))), "{typed:?}");
        for r in typed {
            assert!(
                front_end_errors(&crate::ir::apply_edits(text, &r.edits), &Course::default()) < before,
                "{} does not fix anything",
                r.title
            );
        }
    }
}

#[cfg(test)]
mod shown_tests {
    use super::input_shown;

    /// Lines of numbers read as one line; an input whose line breaks matter to what it is
    /// (lines of text, an empty line, a line that starts with a space) keeps them visible.
    #[test]
    fn an_input_is_one_line_unless_its_line_breaks_would_hide() {
        assert_eq!(input_shown("3\n4 5\n"), "3 4 5");
        assert_eq!(input_shown("hello world\n"), "hello world");
        assert_eq!(input_shown("\n 0P@0"), "\\n 0P@0");
        assert_eq!(input_shown("a\n\nb\n"), "a\\n\\nb");
        assert_eq!(input_shown("aardvark\na\n"), "aardvark\\na");
        assert_eq!(input_shown("3 -1.5\n2e3\n"), "3 -1.5 2e3");
        assert_eq!(input_shown("a \nb"), "a \\nb");
        assert_eq!(input_shown("a\tb\n"), "a\\tb");
    }
}
