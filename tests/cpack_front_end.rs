//! mend reports an error exactly when gcc does, on every C-Pack program: the submissions that
//! compile, the students' fixes and the 1,846 that gcc rejected, each compiled with gcc under
//! the course's flags (`-Wall -Wextra -Werror -ansi -pedantic`, from its README) and checked by
//! mend's quick check told the same flags. Every exception is a documented gap in
//! `fixtures/front_end_gaps/cpack.txt`: a program gcc rejects that mend is silent on (with
//! gcc's first error), or an error of mend on a program gcc accepts. A new exception fails the
//! test, and so does a gap that no longer occurs, so the list stays true; `UPDATE_EXPECT=1`
//! rewrites it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mend::check::{CheckOptions, quick};
use mend::ir::Severity;
use mend::syntax::flags::CompilerFlags;

const COURSE_FLAGS: &str = "-Wall -Wextra -Werror -ansi -pedantic";

/// What follows it on a line of the gap list is gcc's first error, for the reader: it is not
/// compared (another gcc words it differently).
const NOTE: &str = "  # gcc: ";

fn key(line: &str) -> &str {
    line.split(NOTE).next().unwrap_or(line)
}

/// gcc's first error on `file` under the course's flags, or `None` when it compiles.
fn gcc_error(file: &Path, work: &Path) -> Option<String> {
    let run = Command::new("gcc")
        .args(["-c", "-o"])
        .arg(work.join("out.o"))
        .args(COURSE_FLAGS.split_whitespace())
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("gcc runs (it is the oracle of this test)");
    let stderr = String::from_utf8_lossy(&run.stderr);
    (!run.status.success())
        .then(|| stderr.lines().find_map(|l| l.split_once("error: ").map(|(_, m)| m.to_string())).unwrap_or_default())
}

/// The exceptions of one file, as lines of the gap list.
fn exceptions(root: &Path, file: &Path, work: &Path, opts: &CheckOptions) -> Vec<String> {
    let src = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
    let report = quick(&mend::syntax::parse(&src, None), &src, opts);
    let errors: Vec<_> = report.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    let name = file.strip_prefix(root).unwrap().display();
    match gcc_error(file, work) {
        Some(gcc) if errors.is_empty() => vec![format!("{name}: gcc rejects it; mend reports no error{NOTE}{gcc}")],
        Some(_) => Vec::new(),
        None => errors
            .iter()
            .map(|d| {
                let line = src[..d.span.start as usize].matches('\n').count() + 1;
                format!("{name}:{line}: {} [{}] on a program gcc accepts", d.message, d.code)
            })
            .collect(),
    }
}

#[test]
fn mend_reports_an_error_exactly_when_gcc_does() {
    let Some(root) = mend::testing::shared_data("cpack") else { return };
    let mut files: Vec<PathBuf> = Vec::new();
    for problem in std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        for folder in ["submissions", "fixed", "syntax"] {
            if let Ok(entries) = std::fs::read_dir(problem.join(folder)) {
                files.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "c")));
            }
        }
    }
    files.sort();
    assert!(files.len() > 4000, "expected the whole data set, found {}", files.len());
    let opts = CheckOptions { flags: Some(CompilerFlags::parse(COURSE_FLAGS).unwrap()), ..CheckOptions::default() };
    // Two workers: gcc is most of the time.
    let halves: Vec<Vec<String>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|k| {
                let (files, root, opts) = (&files, &root, &opts);
                s.spawn(move || {
                    let work = std::env::temp_dir().join(format!("mend-cpack-parity-{}-{k}", std::process::id()));
                    std::fs::create_dir_all(&work).unwrap();
                    let found: Vec<String> =
                        files.iter().skip(k).step_by(2).flat_map(|f| exceptions(root, f, &work, opts)).collect();
                    let _ = std::fs::remove_dir_all(&work);
                    found
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut found: Vec<String> = halves.into_iter().flatten().collect();
    found.sort();
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/front_end_gaps/cpack.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&list, found.join("\n") + "\n").unwrap();
        return;
    }
    let known: Vec<String> = std::fs::read_to_string(&list).unwrap().lines().map(str::to_string).collect();
    let new: Vec<&String> = found.iter().filter(|e| !known.iter().any(|k| key(k) == key(e))).collect();
    let gone: Vec<&String> = known.iter().filter(|k| !found.iter().any(|e| key(k) == key(e))).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "exceptions to \"mend reports an error exactly when gcc does\", not in {}:\n{}\ngaps that no longer occur (remove them):\n{}",
        list.display(),
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        gone.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// The table of students' compile fixes that ranks mend's fixes (`src/ir/mistakes.tsv`) is
/// what `mend bench mistakes` learns from this course: it was learned, not written by hand,
/// and learning it again gives it back.
#[test]
fn the_mistakes_table_is_learned_from_the_course() {
    let Some(root) = mend::testing::shared_data("cpack") else { return };
    let mut learned = Vec::new();
    mend::cli::bench_compile::learn_mistakes(&root, &mut learned).unwrap();
    let learned = String::from_utf8(learned).unwrap();
    let committed = include_str!("../src/ir/mistakes.tsv");
    assert!(learned.lines().count() > 50, "too few kinds learned:\n{learned}");
    assert_eq!(committed, learned, "run `mend bench mistakes > src/ir/mistakes.tsv` and review the difference");
}
