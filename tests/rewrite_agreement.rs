//! The verified engine's rewrites keep a program's meaning: every program of both development
//! courses that a rewrite changes prints the same output (and fails the same way) in the
//! interpreter as the program as written, on every test input of its problem. The rewrites:
//! inlining helper functions (`ir::inline::into_entry`; the test prints how many programs with
//! helpers were inlined and why the others were not) and moving priming reads into their
//! loops' conditions (`ir::normalize::priming_reads`).

use std::collections::BTreeMap;
use std::path::Path;

use mend::cancel::Cancel;
use mend::spec::interp::{self, Limits};

fn inputs(problem: &Path) -> Vec<Vec<u8>> {
    mend::spec::tests::discover(&problem.join("tests"))
        .into_iter()
        .filter_map(|t| std::fs::read(&t.input).ok())
        .take(6)
        .collect()
}

#[test]
fn inlined_programs_behave_as_written() {
    let Some((inlined, _)) = agree("inlined", |p| mend::ir::inline::into_entry(p, "main")) else { return };
    assert!(inlined > 0, "no program was inlined");
}

#[test]
fn programs_with_priming_reads_rotated_behave_as_written() {
    let Some((rewritten, _)) = agree("rotated", |p| Ok(mend::ir::normalize::priming_reads(p))) else { return };
    // Both courses read in loops after a priming read (C-Pack: 100+ programs).
    assert!(rewritten > 50, "only {rewritten} programs with a priming read");
}

/// Runs every program `rewrite` changes (`Ok(Some(..))`) against its rewritten form; panics
/// on a disagreement. `Err` is a program the rewrite refuses, with the reason (tallied and
/// printed). The number of programs rewritten, and of those rewritten or refused; `None`
/// without the shared data.
fn agree(
    what: &str,
    rewrite: impl Fn(&mend::ir::Program) -> Result<Option<mend::ir::Program>, String>,
) -> Option<(usize, usize)> {
    let mut courses = Vec::new();
    for name in ["introclass", "cpack"] {
        courses.push(mend::testing::shared_data(name)?);
    }
    let (mut tried, mut rewritten, mut runs) = (0, 0, 0);
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for root in &courses {
        let mut files = mend::testing::course_files(root);
        // C-Pack's students' own fixes too: correct programs, with more helpers.
        for p in std::fs::read_dir(root).unwrap().flatten() {
            if let Ok(fixed) = std::fs::read_dir(p.path().join("fixed")) {
                files.extend(fixed.flatten().map(|e| e.path()).filter(|f| f.extension().is_some_and(|e| e == "c")));
            }
        }
        let mut by_problem: BTreeMap<std::path::PathBuf, Vec<Vec<u8>>> = BTreeMap::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let lowered = mend::syntax::lower::lower_source(&text);
            if lowered.diagnostics.iter().any(|d| d.severity == mend::ir::Severity::Error) {
                continue;
            }
            let program = lowered.program;
            let problem = file.ancestors().find(|a| a.join("tests").is_dir()).unwrap().to_path_buf();
            let tests = by_problem.entry(problem.clone()).or_insert_with(|| inputs(&problem)).clone();
            let changed = match rewrite(&program) {
                Ok(None) => continue,
                Ok(Some(p)) => p,
                Err(why) => {
                    tried += 1;
                    *refused.entry(why).or_default() += 1;
                    continue;
                }
            };
            tried += 1;
            rewritten += 1;
            let limits = Limits { max_steps: 200_000, ..Limits::default() };
            for input in &tests {
                let a = interp::run(&program, "main", input, &limits, &Cancel::new());
                let b = interp::run(&changed, "main", input, &limits, &Cancel::new());
                runs += 1;
                // A run cut by the step limit may stop at another point of the output.
                let cut = |r: &interp::RunResult| {
                    r.error.as_ref().is_some_and(|e| matches!(e.kind, interp::RuntimeErrorKind::StepLimit))
                };
                if cut(&a) || cut(&b) {
                    continue;
                }
                if a.output != b.output || a.error.is_some() != b.error.is_some() {
                    disagreements.push(format!(
                        "{} on {:?}: as written {:?} ({:?}), {what} {:?} ({:?})",
                        file.display(),
                        String::from_utf8_lossy(input),
                        String::from_utf8_lossy(&a.output),
                        a.error.map(|e| e.kind),
                        String::from_utf8_lossy(&b.output),
                        b.error.map(|e| e.kind),
                    ));
                }
            }
        }
    }
    eprintln!("{rewritten} of {tried} programs {what}; {runs} runs compared");
    let mut refused: Vec<_> = refused.into_iter().collect();
    refused.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (why, n) in refused.iter().take(12) {
        eprintln!("  {n:>5}  {why}");
    }
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
    Some((rewritten, tried))
}
