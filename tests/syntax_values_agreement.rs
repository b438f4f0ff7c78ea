//! How well the `values` comparison agrees with IntroClass's recorded verdicts (its own
//! per-problem judges). Dev-only and slow (compiles 1,143 submissions with gcc and runs each on
//! its tests): `cargo test --release --test syntax_values_agreement -- --ignored --nocapture`.
//!
//! Each program runs with an `LD_PRELOAD` shim (fixtures/syntax/prompt_shim.c.txt) that records
//! how many bytes were printed before the last input read, standing in for the interpreter's
//! `output_before_last_read`. Runs are cached in `$MEND_IC_RUNS` (default /tmp/ic/out):
//! `<problem>/<id>/<kind>-<n>.actual` and `.prompt`, the reference as `_reference`.

use mend::spec::compare::{Compare, outputs_match, outputs_match_values};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The IntroClass corpus beside the checkout (this ignored test needs it).
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/introclass");

fn runs_dir() -> PathBuf {
    PathBuf::from(std::env::var("MEND_IC_RUNS").unwrap_or_else(|_| "/tmp/ic/out".into()))
}

fn shim(runs: &Path) -> PathBuf {
    let so = runs.join("shim.so");
    if !so.exists() {
        let src = runs.join("shim.c");
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax/prompt_shim.c.txt"), &src).unwrap();
        let ok = Command::new("gcc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&so)
            .arg(&src)
            .arg("-ldl")
            .status()
            .unwrap();
        assert!(ok.success());
    }
    so
}

/// Output and prompt length of `program` on `case`, cached.
fn run(
    runs: &Path,
    shim: &Path,
    problem: &str,
    id: &str,
    c_file: &Path,
    kind: &str,
    n: &str,
) -> Option<(String, Option<usize>)> {
    let dir = runs.join(problem).join(id);
    let actual = dir.join(format!("{kind}-{n}.actual"));
    let prompt = dir.join(format!("{kind}-{n}.prompt"));
    if !actual.exists() {
        std::fs::create_dir_all(&dir).ok()?;
        let exe = dir.join("a.out");
        if !exe.exists() {
            let ok = Command::new("gcc").args(["-w", "-O0", "-o"]).arg(&exe).arg(c_file).arg("-lm").status().ok()?;
            if !ok.success() {
                return None;
            }
        }
        let input = std::fs::File::open(format!("{DATA}/{problem}/tests/{kind}/{n}.in")).ok()?;
        let out = std::fs::File::create(&actual).ok()?;
        let _ = Command::new("timeout")
            .arg("2")
            .arg("env")
            .arg(format!("PROMPT_FILE={}", prompt.display()))
            .arg(format!("LD_PRELOAD={}", shim.display()))
            .arg(&exe)
            .stdin(input)
            .stdout(out)
            .stderr(Stdio::null())
            .status();
    }
    let bytes = std::fs::read(&actual).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let p = std::fs::read_to_string(&prompt)
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .filter(|&p| p >= 0)
        .map(|p| p as usize);
    Some((text, p))
}

#[derive(Default, Debug)]
struct Score {
    agree_pass: u32,
    agree_fail: u32,
    false_pass: u32,
    false_fail: u32,
}

impl Score {
    fn add(&mut self, recorded_pass: bool, ours: bool) {
        match (recorded_pass, ours) {
            (true, true) => self.agree_pass += 1,
            (false, false) => self.agree_fail += 1,
            (false, true) => self.false_pass += 1,
            (true, false) => self.false_fail += 1,
        }
    }
    fn line(&self, name: &str) -> String {
        let total = self.agree_pass + self.agree_fail + self.false_pass + self.false_fail;
        format!(
            "{name:<22} agreement {:.2}% ({} of {total}); false passes {}, false fails {}",
            100.0 * f64::from(self.agree_pass + self.agree_fail) / f64::from(total.max(1)),
            self.agree_pass + self.agree_fail,
            self.false_pass,
            self.false_fail
        )
    }
}

#[test]
#[ignore]
fn values_rule_agrees_with_recorded_verdicts() {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DATA}/index.json")).unwrap()).unwrap();
    let runs = runs_dir();
    std::fs::create_dir_all(&runs).unwrap();
    let shim = shim(&runs);
    let mut values = Score::default();
    let mut values_no_prompt = Score::default();
    let mut whitespace = Score::default();
    let mut exact = Score::default();
    let mut false_pass_identical = 0;
    let mut per_problem: std::collections::BTreeMap<String, Score> = Default::default();
    let mut examples = Vec::new();
    for entry in index.as_array().unwrap() {
        if entry["nondeterministic"].as_bool() == Some(true) {
            continue;
        }
        let problem = entry["problem"].as_str().unwrap();
        let id = entry["id"].as_str().unwrap();
        let file = Path::new(DATA).join(entry["file"].as_str().unwrap());
        for kind in ["blackbox", "whitebox"] {
            for (verdict, key) in [(true, "pass"), (false, "fail")] {
                for n in entry[format!("{kind}_{key}")].as_array().unwrap() {
                    let n = n.as_str().unwrap();
                    let expected = std::fs::read_to_string(format!("{DATA}/{problem}/tests/{kind}/{n}.out")).unwrap();
                    let reference = Path::new(DATA).join(problem).join("reference.c");
                    let (_, pe) = run(&runs, &shim, problem, "_reference", &reference, kind, n).unwrap_or_default();
                    let (actual, pa) = run(&runs, &shim, problem, id, &file, kind, n).unwrap_or_default();
                    let ours = outputs_match_values(&expected, pe, &actual, pa);
                    values.add(verdict, ours);
                    per_problem.entry(problem.to_string()).or_default().add(verdict, ours);
                    values_no_prompt.add(verdict, outputs_match(&expected, &actual, Compare::Values));
                    whitespace.add(verdict, outputs_match(&expected, &actual, Compare::Whitespace));
                    exact.add(verdict, outputs_match(&expected, &actual, Compare::Exact));
                    false_pass_identical += u32::from(!verdict && expected == actual);
                    if verdict != ours && examples.len() < 40 {
                        examples.push(format!(
                            "{problem}/{id} {kind}/{n} recorded {key}: expected tail {:?} actual tail {:?}",
                            mend::spec::compare::tail(&expected, pe),
                            mend::spec::compare::tail(&actual, pa)
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{}", values.line("values (prompt-free)"));
    eprintln!("{}", values_no_prompt.line("values (whole output)"));
    eprintln!("{}", whitespace.line("whitespace"));
    eprintln!("{}", exact.line("exact"));
    eprintln!("recorded fails whose output here is byte-identical to the expected: {false_pass_identical}");
    for (p, s) in &per_problem {
        eprintln!("  {}", s.line(p));
    }
    for e in examples {
        eprintln!("{e}");
    }
}
