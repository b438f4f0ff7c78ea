//! Inlining keeps a program's meaning: every program of both development courses whose helper
//! functions `ir::inline::into_entry` inlines prints the same output (and fails the same way)
//! in the interpreter as the program as written, on every test input of its problem. Prints
//! how many programs with helpers were inlined and why the others were not.

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
    let mut courses = Vec::new();
    for name in ["introclass", "cpack"] {
        match mend::testing::shared_data(name) {
            Some(root) => courses.push(root),
            None => return,
        }
    }
    let (mut with_helpers, mut inlined, mut runs) = (0, 0, 0);
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
            let inlined_program = match mend::ir::inline::into_entry(&program, "main") {
                Ok(None) => continue,
                Ok(Some(p)) => p,
                Err(why) => {
                    with_helpers += 1;
                    *refused.entry(why).or_default() += 1;
                    continue;
                }
            };
            with_helpers += 1;
            inlined += 1;
            let limits = Limits { max_steps: 200_000, ..Limits::default() };
            for input in &tests {
                let a = interp::run(&program, "main", input, &limits, &Cancel::new());
                let b = interp::run(&inlined_program, "main", input, &limits, &Cancel::new());
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
                        "{} on {:?}: as written {:?} ({:?}), inlined {:?} ({:?})",
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
    eprintln!("{inlined} of {with_helpers} programs with helper functions inlined; {runs} runs compared");
    let mut refused: Vec<_> = refused.into_iter().collect();
    refused.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (why, n) in refused.iter().take(12) {
        eprintln!("  {n:>5}  {why}");
    }
    assert!(inlined > 0, "no program was inlined");
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}
