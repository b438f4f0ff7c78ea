//! Every snapshot fixture under `fixtures/`, one test each. A suite is a folder of C files and
//! a renderer; each `NAME.c` is rendered and compared with `NAME.expected`.
//!
//! - `cargo test --test fixtures -- checksum_offset` runs the fixtures whose name contains
//!   `checksum_offset` (names are `SUITE::PATH`, e.g. `verified::checksum_offset`);
//! - `UPDATE_EXPECT=1 cargo test --test fixtures` rewrites the snapshots (review the diff).
//!
//! One header grammar: a fixture's options are its first line that reads
//! `// mend-test: key=value ...` (a key may repeat; usually the first line of the file). Besides its snapshot, a suite checks what must hold whatever the
//! snapshot says: a counterexample is confirmed by the interpreter, a repair verifies again from
//! scratch, a patch size is the exact tree edit distance.

mod common;
#[path = "common/dap.rs"]
mod dap;

use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};

use mend::cancel::Cancel;
use mend::ir::{Severity, apply_edits};
use mend::smt::Budget;
use mend::smt::bmc::{self, BmcUnknown, BmcVerdict, Replay};
use mend::spec::compare::Compare;
use mend::syntax::lower::lower_source;

use common::line_col;

/// A fixture: its file, its text and its header.
struct Fixture {
    path: PathBuf,
    src: String,
    header: Vec<(String, String)>,
}

impl Fixture {
    fn read(path: &Path) -> Fixture {
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let header = src
            .lines()
            .find_map(|l| l.trim().strip_prefix("// mend-test:"))
            .map(|rest| {
                rest.split_whitespace()
                    .map(|kv| {
                        let (k, v) =
                            kv.split_once('=').unwrap_or_else(|| panic!("{}: `{kv}` is not key=value", path.display()));
                        (k.to_string(), v.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        Fixture { path: path.to_path_buf(), src, header }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn all(&self, key: &str) -> Vec<&str> {
        self.header.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
    }

    /// A file named by the header, beside the fixture.
    fn sibling(&self, name: &str) -> String {
        let p = self.path.parent().expect("a folder").join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn check_keys(&self, known: &[&str]) {
        for (k, _) in &self.header {
            assert!(
                known.contains(&k.as_str()),
                "{}: unknown header key `{k}` (known: {known:?})",
                self.path.display()
            );
        }
    }
}

struct Suite {
    name: &'static str,
    /// Folders (relative to the crate) whose C files are fixtures.
    dirs: &'static [&'static str],
    /// Walk sub-folders too (each with its own mend.toml).
    recursive: bool,
    render: fn(&Fixture) -> String,
}

// The slowest suite first (whole analyses, some to their budget): the trials run in this
// order, and on two cores the quick ones then fill the other core beside its tail.
const SUITES: &[Suite] = &[
    Suite { name: "check", dirs: &["fixtures/check", "examples"], recursive: true, render: render_check },
    Suite { name: "syntax", dirs: &["fixtures/syntax"], recursive: false, render: render_syntax },
    Suite { name: "frontend", dirs: &["fixtures/frontend"], recursive: false, render: render_frontend },
    Suite { name: "typed", dirs: &["fixtures/typed"], recursive: false, render: render_typed },
    Suite { name: "bmc", dirs: &["fixtures/bmc"], recursive: false, render: render_bmc },
    Suite { name: "mutation", dirs: &["fixtures/mutation"], recursive: false, render: render_mutation },
    Suite { name: "verified", dirs: &["fixtures/verified"], recursive: false, render: render_verified },
    Suite { name: "dap", dirs: &["fixtures/dap"], recursive: true, render: render_dap },
];

/// The fixtures of a folder: C files but references (`reference.c`, `*.ref.c`) and what is
/// under `tests/` folders.
fn walk(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if recursive && name != "tests" {
                walk(&p, recursive, out);
            }
        } else if name.ends_with(".c") && name != "reference.c" && !name.ends_with(".ref.c") {
            out.push(p);
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut trials = Vec::new();
    for suite in SUITES {
        for dir in suite.dirs {
            let base = root.join(dir);
            let mut files = Vec::new();
            walk(&base, suite.recursive, &mut files);
            assert!(!files.is_empty(), "no fixtures in {}", base.display());
            for path in files {
                let rel = path.strip_prefix(&base).unwrap().with_extension("");
                let name = format!("{}::{}", suite.name, rel.to_string_lossy().replace('/', "::"));
                let render = suite.render;
                trials.push(Trial::test(name, move || {
                    let fixture = Fixture::read(&path);
                    let out = render(&fixture);
                    expect_test::expect_file![path.with_extension("expected")].assert_eq(&out);
                    Ok::<(), Failed>(())
                }));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// `dap`: a debugging session with the real `mend dap`, scripted by `NAME.session` (the
/// commands are in `tests/common/dap.rs`), rendered as a transcript.
fn render_dap(f: &Fixture) -> String {
    let script = f.sibling(&format!("{}.session", f.path.file_stem().unwrap().to_string_lossy()));
    dap::Adapter::spawn().run_script(&f.path, &script)
}

/// `syntax`: the syntax layer's diagnostics and insert-token repairs (positions in UTF-16, as
/// an editor sees them), with how many diagnostics are left after each repair.
fn render_syntax(f: &Fixture) -> String {
    use mend::syntax::{Encoding, LineIndex, parse, syntax_diagnostics};
    let src = &f.src;
    let tree = parse(src, None);
    let (diags, repairs) = syntax_diagnostics(&tree, src);
    let index = LineIndex::new(src);
    let pos = |o: u32| {
        let p = index.position(src, o as usize, Encoding::Utf16);
        format!("{}:{}", p.line + 1, p.character + 1)
    };
    let mut out = String::new();
    if diags.is_empty() {
        out.push_str("no diagnostics\n");
    }
    for d in &diags {
        assert_eq!(d.code, "syntax");
        assert_eq!(d.severity, Severity::Error);
        writeln!(out, "{}-{} {}: {}", pos(d.span.start), pos(d.span.end), d.severity.as_str(), d.message).unwrap();
        writeln!(out, "    | {}", &src[d.span.range()]).unwrap();
        for r in &d.related {
            writeln!(out, "    related {}-{}: {}", pos(r.span.start), pos(r.span.end), r.message).unwrap();
        }
    }
    for r in &repairs {
        assert_eq!(r.engine, "syntax");
        assert_eq!(r.guarantee, mend::ir::Guarantee::Syntax);
        let fixed = apply_edits(src, &r.edits);
        let after = syntax_diagnostics(&parse(&fixed, None), &fixed).0.len();
        writeln!(out, "repair for {}: {} ({} diagnostics after)", pos(r.primary().start), r.title, after).unwrap();
        for e in &r.edits {
            writeln!(out, "    {}-{} → {:?}", pos(e.span.start), pos(e.span.end), e.new_text).unwrap();
        }
    }
    out
}

/// `frontend`: the type checker's diagnostics and the unsupported constructs it names.
fn render_frontend(f: &Fixture) -> String {
    let src = &f.src;
    let lowered = lower_source(src);
    let mut out = String::new();
    for d in &lowered.diagnostics {
        let (l1, c1) = line_col(src, d.span.start as usize);
        let (l2, c2) = line_col(src, d.span.end as usize);
        let text = &src[d.span.range()];
        out.push_str(&format!(
            "{l1}:{c1}-{l2}:{c2} {} [{}] {}\n    on `{}`\n",
            d.severity.as_str(),
            d.code,
            d.message,
            text
        ));
        for r in &d.related {
            let (l, c) = line_col(src, r.span.start as usize);
            out.push_str(&format!("    related {l}:{c}: {}\n", r.message));
        }
    }
    // Every construct a function is skipped for (the student reads the first).
    for func in lowered.program.funcs.iter().filter(|f| !f.unsupported.is_empty()) {
        let all: Vec<String> = func
            .unsupported
            .iter()
            .map(|(what, span)| format!("{} (line {})", what, line_col(src, span.start as usize).0))
            .collect();
        out.push_str(&format!("`{}` is skipped for: {}\n", func.name, all.join("; ")));
    }
    if out.is_empty() {
        out.push_str("(no diagnostics)\n");
    }
    out
}

/// `typed`: each type diagnostic the typed engine repairs with its ranked quick fixes (and
/// whether the file re-checked after the fix has fewer diagnostics), and the completions at
/// every `/*|*/` marker.
fn render_typed(f: &Fixture) -> String {
    use mend::engines::typed;
    let src = &f.src;
    let lowered = lower_source(src);
    let tree = mend::syntax::parse(src, None);
    let mut out = String::new();
    for d in &lowered.diagnostics {
        if !typed::REPAIRED_CODES.contains(&d.code) {
            continue;
        }
        let (l, c) = line_col(src, d.span.start as usize);
        out.push_str(&format!("{l}:{c} {} [{}] {}\n", d.severity.as_str(), d.code, d.message));
        let repairs = typed::repairs(&lowered.program, &tree, src, std::slice::from_ref(d), 3);
        if repairs.is_empty() {
            out.push_str("    (no repair)\n");
        }
        for (i, r) in repairs.iter().enumerate() {
            let fixed = apply_edits(src, &r.edits);
            let after = lower_source(&fixed);
            let before_here = lowered.diagnostics.iter().filter(|x| x.severity <= Severity::Warning).count();
            let after_here = after.diagnostics.iter().filter(|x| x.severity <= Severity::Warning).count();
            let verdict = if after_here < before_here { "fixed" } else { "NOT FIXED" };
            let e = &r.edits[0];
            let (el, ec) = line_col(src, e.span.start as usize);
            out.push_str(&format!(
                "    {}. {} [{verdict}; edit {el}:{ec} `{}` -> `{}`]\n",
                i + 1,
                r.title,
                &src[e.span.range()],
                e.new_text
            ));
        }
    }
    for (at, _) in src.match_indices("/*|*/") {
        let (l, c) = line_col(src, at);
        let items = typed::complete(&lowered.program, src, at, 5);
        let shown: Vec<String> = items.iter().map(|i| format!("{} ({})", i.text, i.cost)).collect();
        let ty = items.first().map(|i| i.ty.as_str()).unwrap_or("-");
        out.push_str(&format!("complete {l}:{c} [{ty}]: {}\n", shown.join(", ")));
    }
    if out.is_empty() {
        out.push_str("(nothing)\n");
    }
    out
}

/// `bmc` (header: `bound=N`, repeatable): the bounded verifier's verdict per bound, with each
/// counterexample's inputs, stdin, branch steps and replay. Every counterexample must be
/// confirmed by the interpreter (an uninitialised read may make the replay inconclusive).
fn render_bmc(f: &Fixture) -> String {
    use mend::smt::bmc::verify;
    f.check_keys(&["bound"]);
    let src = &f.src;
    let bounds: Vec<u32> = f.all("bound").iter().map(|b| b.parse().expect("a bound")).collect();
    assert!(!bounds.is_empty(), "{}: the header must name bounds (`// mend-test: bound=5`)", f.path.display());
    let lowered = lower_source(src);
    let mut out = String::new();
    for b in bounds {
        let r = verify(&lowered.program, "main", b, &Budget::new(Duration::from_secs(60), Cancel::new()));
        out.push_str(&format!("bound {b}: "));
        match &r.verdict {
            BmcVerdict::Holds { complete: true } => out.push_str("holds (verified: no run exceeds the bound)\n"),
            BmcVerdict::Holds { complete: false } => out.push_str("holds (bounded)\n"),
            BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => {
                let (l, c) = line_col(src, u.span.start as usize);
                out.push_str(&format!("unknown: {u} at {l}:{c}\n"));
            }
            BmcVerdict::Unknown(u) => out.push_str(&format!("unknown: {u:?}\n")),
            BmcVerdict::Violated(cex) => {
                let (l, c) = line_col(src, cex.span.start as usize);
                out.push_str(&format!("violated: {} at {l}:{c} `{}`\n", cex.kind.describe(), &src[cex.span.range()]));
                out.push_str(&format!("  inputs: {}\n", cex.inputs_text()));
                out.push_str(&format!("  stdin: {:?}\n", cex.stdin));
                let steps: Vec<String> = cex
                    .steps
                    .iter()
                    .map(|s| format!("{}{}", line_col(src, s.span.start as usize).0, if s.taken { "+" } else { "-" }))
                    .collect();
                out.push_str(&format!("  steps: {}\n", steps.join(" ")));
                out.push_str(&format!("  replay: {:?}\n", cex.replay));
                let excused = matches!(cex.replay, Replay::Inconclusive(_)) && !r.uninit_reads.is_empty();
                assert!(
                    cex.replay == Replay::Confirmed || excused,
                    "{}: bound {b}: the interpreter does not confirm the counterexample: {:?}",
                    f.path.display(),
                    cex.replay
                );
            }
        }
        for (span, name) in &r.uninit_reads {
            let (l, c) = line_col(src, span.start as usize);
            out.push_str(&format!("  warning: `{name}` may be read uninitialised at {l}:{c}\n"));
        }
    }
    out
}

/// `mutation` (header: `level`, `bound`, `max_size`, `incremental=yes` to cross-check the
/// paper's incremental solver set-up, `reference=FILE` for a product with a reference and
/// `compare=MODE`, default `exact`): the verdict of the program as written and every minimal
/// repair in order; each repair, applied to the text, verifies again from scratch.
fn render_mutation(f: &Fixture) -> String {
    use mend::engines::mutation::engine::{self, Options, SolverMode};
    f.check_keys(&["level", "bound", "max_size", "incremental", "reference", "compare"]);
    let src = &f.src;
    let mut opts = Options { frozen: HashSet::new(), ..Options::default() };
    if let Some(v) = f.get("level") {
        opts.level = v.parse().unwrap();
    }
    if let Some(v) = f.get("bound") {
        opts.bound = v.parse().unwrap();
    }
    if let Some(v) = f.get("max_size") {
        opts.max_size = v.parse().unwrap();
    }
    if let Some(v) = f.get("reference") {
        opts.reference = Some(lower_source(&f.sibling(v)).program);
    }
    if let Some(v) = f.get("compare") {
        opts.compare = Compare::parse(v).expect("a compare mode");
    }
    let program = lower_source(src).program;
    let report =
        engine::run(&program, src, &opts, &Budget::new(Duration::from_secs(120), Cancel::new()), &mut |_| true);
    let mut out = String::new();
    match &report.original.verdict {
        BmcVerdict::Violated(cex) => {
            let line = src[..cex.span.start as usize].matches('\n').count() + 1;
            out.push_str(&format!(
                "violated: {} on line {line} for {} (replay: {:?})\n",
                cex.kind.describe(),
                cex.inputs_text(),
                cex.replay
            ));
        }
        other => out.push_str(&format!("original: {other:?}\n")),
    }
    out.push_str(&format!(
        "locations with alternatives: {}, alternatives: {}\n",
        report.locations, report.alternatives
    ));
    for r in &report.repairs {
        out.push_str(&format!("repair (size {}): {}\n", r.changes.len(), r.title()));
        let fixed = apply_edits(src, &r.edits());
        let p2 = lower_source(&fixed).program;
        let budget = Budget::new(Duration::from_secs(60), Cancel::new());
        let again = match &opts.reference {
            Some(r) => bmc::verify_against(&p2, r, opts.compare, &opts.entry, opts.bound, &budget),
            None => bmc::verify(&p2, &opts.entry, opts.bound, &budget),
        };
        assert!(
            matches!(again.verdict, BmcVerdict::Holds { .. }),
            "{}: repair {} does not verify: {:?}\n{fixed}",
            f.path.display(),
            r.title(),
            again.verdict
        );
    }
    out.push_str(&format!("outcome: {:?}\n", report.outcome));
    if f.get("incremental") == Some("yes") {
        // Both solver set-ups decide the same question: same repairs, same order.
        let inc = Options { solver_mode: SolverMode::Incremental, ..opts.clone() };
        let again =
            engine::run(&program, src, &inc, &Budget::new(Duration::from_secs(120), Cancel::new()), &mut |_| true);
        let titles = |r: &engine::EngineReport| r.repairs.iter().map(|x| x.title()).collect::<Vec<_>>();
        assert_eq!(titles(&report), titles(&again), "{}: the incremental solver disagrees", f.path.display());
        assert_eq!(report.outcome, again.outcome, "{}", f.path.display());
    }
    out
}

/// Inputs for the gcc oracle when a fixture names none: numbers of several counts and signs,
/// a decimal and words (the oracle adds variants of each, and drops those the reference
/// cannot run).
const ORACLE_SEEDS: &[&str] = &[
    "0\n",
    "1\n",
    "7\n",
    "-3\n",
    "12 5\n",
    "3 9 1\n",
    "2 2 2 2\n",
    "100 50 25 75\n",
    "90.5 80 70 60 85.5\n",
    "hello world\n",
    "a\n",
];

/// No false guarantee in the fixture suite: a verified repair, compiled with gcc, prints what
/// the reference prints on the fixture's inputs (or [`ORACLE_SEEDS`]) and inputs generated from
/// them (`bench_reference::refute_against`, the oracle of the courses' soundness test).
fn judge_with_gcc(f: &Fixture, reference: &Path, inputs: &[String], compare: Compare, repaired: &str) {
    if !common::have_gcc() {
        return;
    }
    let inputs: Vec<Vec<u8>> = if inputs.is_empty() {
        ORACLE_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect()
    } else {
        inputs.iter().map(|s| s.as_bytes().to_vec()).collect()
    };
    let verdict = mend::cli::bench_reference::refute_against(
        reference,
        &inputs,
        compare,
        repaired,
        &mend::ir::Guarantee::Verified,
    );
    match verdict {
        Ok(None) => {}
        Ok(Some(why)) => panic!("{}: the verified repair is refuted by gcc: {why}\n{repaired}", f.path.display()),
        Err(e) => panic!("{}: the oracle could not run: {e}", f.path.display()),
    }
}

fn reference_path(f: &Fixture) -> PathBuf {
    f.path.with_file_name(f.get("reference").expect("a reference"))
}

/// `verified` (header: `reference=FILE`, `entry=FUNC` (default `main`), `inputs=FILE`: test
/// inputs, one per line, for the input precondition): the outcome, every change and the
/// repaired program, and a smaller repair offered under the precondition. Every repair must
/// verify again as written, and its relative patch size must be the exact tree edit distance.
fn render_verified(f: &Fixture) -> String {
    use mend::engines::verified::Outcome;
    use mend::ir::ted;
    f.check_keys(&["reference", "entry", "inputs", "compare"]);
    let src = &f.src;
    let reference = f.sibling(f.get("reference").expect("a reference"));
    let entry = f.get("entry").unwrap_or("main");
    let inputs: Vec<String> =
        f.get("inputs").map_or_else(Vec::new, |name| f.sibling(name).lines().map(|l| format!("{l}\n")).collect());
    // IntroClass's comparison unless the fixture names another.
    let compare = f.get("compare").map_or(Compare::Values, |c| Compare::parse(c).expect("a comparison"));
    let report = common::verified_repair(src, &reference, entry, &inputs, compare);
    let mut out = String::new();
    match &report.outcome {
        Outcome::Equivalent => out.push_str("outcome: equivalent as written (verified)\n"),
        Outcome::EquivalentAssuming(a) => {
            out.push_str(&format!("outcome: equivalent as written for inputs where {a} (verified)\n"))
        }
        Outcome::Failed(e) => {
            out.push_str(&format!("outcome: no verified repair [{}]: {}\n", e.category(), e.describe()))
        }
        Outcome::Repaired(r) => {
            match &r.assuming {
                None => out.push_str("outcome: repaired (verified)\n"),
                Some(a) => out.push_str(&format!("outcome: repaired (verified for inputs where {a})\n")),
            }
            for c in &r.changes {
                out.push_str(&format!("change {}: `{}` -> `{}`\n", c.region, c.old, c.new.trim()));
            }
            out.push_str(&format!("relative patch size: {:.3}\n", r.relative_patch_size));
            let repaired = apply_edits(src, &r.edits);
            // The figure is the exact tree edit distance on the final text, never zero.
            let exact = ted::program_distance(&lower_source(src).program, &lower_source(&repaired).program);
            assert!(exact.exact && exact.distance > 0, "{}", f.path.display());
            assert_eq!(r.relative_patch_size, exact.distance as f64 / exact.size as f64, "{}", f.path.display());
            out.push_str("repaired program:\n");
            out.push_str(&repaired);
            let again = common::verified_repair(&repaired, &reference, entry, &inputs, compare);
            let expected = r.assuming.as_ref().map_or(Outcome::Equivalent, |a| Outcome::EquivalentAssuming(a.clone()));
            assert_eq!(
                again.outcome,
                expected,
                "{}: the repaired program must verify as written:\n{repaired}",
                f.path.display()
            );
            if r.assuming.is_none() && entry == "main" {
                judge_with_gcc(f, &reference_path(f), &inputs, compare, &repaired);
            }
        }
    }
    if let Some(small) = &report.smaller_assuming {
        let a = small.assuming.clone().unwrap_or_default();
        out.push_str(&format!("smaller repair, verified for inputs where {a}:\n"));
        for c in &small.changes {
            out.push_str(&format!("change {}: `{}` -> `{}`\n", c.region, c.old, c.new.trim()));
        }
        let repaired = apply_edits(src, &small.edits);
        let again = common::verified_repair(&repaired, &reference, entry, &inputs, compare);
        assert_eq!(
            again.outcome,
            Outcome::EquivalentAssuming(a),
            "{}: the smaller repair must verify as written:\n{repaired}",
            f.path.display()
        );
    }
    out
}

/// `check`: `mend check` end to end on a fixture with its mend.toml, tests and reference (and
/// the README's example): the report's diagnostics, repairs and test verdicts.
fn render_check(f: &Fixture) -> String {
    // The fixtures pin outcomes, not speed (`mend bench` measures that): six times the
    // editor's budget, so a loaded machine gives the answer an idle one does.
    let opts = mend::check::CheckOptions { timeout: Some(Duration::from_secs(60)), ..Default::default() };
    let report = mend::check::check(Some(&f.path), &f.src, &opts, &Cancel::new());
    let mut out = String::new();
    for d in &report.diagnostics {
        let (l, c) = line_col(&f.src, d.span.start as usize);
        out.push_str(&format!("{l}:{c} {} [{}] {}\n", d.severity.as_str(), d.code, d.message));
        // Where a run goes wrong, and a front-end warning the fix answers, are told as a
        // fix's related information; what a construct mend cannot analyse stops, as that
        // note's. (The same change at other places is in the repair's edits below.)
        let shown = |r: &&mend::ir::Related| {
            d.code == "unsupported"
                || (d.code == "repair" && r.message != "the same change here")
                || r.message.contains(" goes wrong ")
                || r.message.starts_with("inside `")
        };
        for r in d.related.iter().filter(shown) {
            let (l, c) = line_col(&f.src, r.span.start as usize);
            out.push_str(&format!("    related {l}:{c}: {}\n", r.message));
        }
    }
    for r in &report.repairs {
        out.push_str(&format!("repair ({}): {}\n", r.guarantee.label(), r.title));
        for e in &r.edits {
            let ((l1, c1), (l2, c2)) = (line_col(&f.src, e.span.start as usize), line_col(&f.src, e.span.end as usize));
            out.push_str(&format!("    {l1}:{c1}-{l2}:{c2} → {:?}\n", e.new_text));
        }
    }
    let passed = report.tests.iter().filter(|t| t.passed).count();
    out.push_str(&format!("tests: {passed}/{} passed\n", report.tests.len()));
    builds_under_course_flags(f, &opts, &report);
    out
}

/// In a course with compiler flags (`-Werror`: a warning fails the build), gcc builds every
/// behaviour repair's text wherever it builds the student's.
fn builds_under_course_flags(f: &Fixture, opts: &mend::check::CheckOptions, report: &mend::check::Report) {
    let course = mend::check::course_for(Some(&f.path), opts);
    if course.flags == Default::default() || !common::have_gcc() {
        return;
    }
    let work = std::env::temp_dir().join(format!(
        "mend-fixture-flags-{}-{:x}",
        std::process::id(),
        common::hash_of(f.path.as_os_str().as_encoded_bytes())
    ));
    std::fs::create_dir_all(&work).unwrap();
    let gcc = |text: &str| mend::cli::bench_compile::gcc(text, Some(&course.flags), &work);
    if gcc(&f.src).is_ok() {
        for r in report.repairs.iter().filter(|r| r.guarantee.strength() > 0) {
            let repaired = apply_edits(&f.src, &r.edits);
            if let Err(error) = gcc(&repaired) {
                panic!(
                    "{}: `{}` does not build under {}: {error}\n{repaired}",
                    f.path.display(),
                    r.title,
                    course.flags
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}
