//! `mend bench compile DIR`: mend on programs that do not compile, as students write them.
//! For every `syntax/*.c` under DIR (C-Pack's layout: one folder per assignment, each with the
//! submissions gcc rejected and gcc's messages beside them), it measures:
//! - whether mend reports an error at all (silence on a program that does not compile is the
//!   worst outcome);
//! - whether the program compiles after mend's own fixes (the quick check's best repair,
//!   applied and re-checked until no fix is left), with gcc outside the server,
//!   both as C (`gcc -fsyntax-only`, the compiler's errors) and under the course's flags
//!   (`-Wall -Wextra -Werror -ansi -pedantic`, where warnings and C99 features are errors);
//! - whether the fixed text equals the same student's next submission (up to whitespace), when
//!   the data has it;
//! - the latency of the quick check per file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::check::{CheckOptions, quick};
use crate::ir::{Severity, apply_edits};

/// The flags of the C-Pack course (from its README): warnings are errors, C90 only.
const COURSE_FLAGS: &[&str] = &["-Wall", "-Wextra", "-Werror", "-ansi", "-pedantic"];

/// At most this many fix-and-recheck rounds per file (several errors in one file).
const ROUNDS: usize = 10;

/// What happened to one file.
struct FileResult {
    reported: bool,
    /// gcc (plain C) accepts the original: only the course's flags reject it.
    plain_ok_before: bool,
    /// gcc's first error on the original (plain C).
    gcc_error: String,
    path: PathBuf,
    plain_ok_after: bool,
    course_ok_after: bool,
    fixes_applied: usize,
    /// Same as the student's next submission, up to whitespace (`None`: no next submission).
    matches_next: Option<bool>,
    ms: f64,
}

/// Files gcc rejected under `dir`: every `syntax/*.c` one or two levels down, sorted.
fn rejected_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        folders.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    for folder in folders {
        if let Ok(entries) = std::fs::read_dir(folder.join("syntax")) {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "c")));
        }
    }
    out.sort();
    out
}

/// The same student's next submission to the same assignment (`…-sub_N+1.c`), in any folder
/// of the assignment.
fn next_submission(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    let (prefix, n) = stem.rsplit_once("-sub_")?;
    let next = format!("{prefix}-sub_{:03}.c", n.parse::<u32>().ok()? + 1);
    let problem = path.parent()?.parent()?;
    ["submissions", "syntax", "fixed"].iter().map(|f| problem.join(f).join(&next)).find(|p| p.is_file())
}

/// Whether gcc accepts `text` with `flags`, and its first error otherwise.
fn gcc(text: &str, flags: &[&str], work: &Path) -> Result<(), String> {
    let src = work.join("file.c");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let run = Command::new("gcc")
        .arg("-fsyntax-only")
        .args(flags)
        .arg(&src)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| e.to_string())?;
    if run.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&run.stderr);
    Err(stderr.lines().find_map(|l| l.split_once("error: ").map(|(_, m)| m.to_string())).unwrap_or_default())
}

fn has_error(report: &crate::check::Report) -> bool {
    report.diagnostics.iter().any(|d| d.severity == Severity::Error)
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn evaluate(path: &Path, work: &Path) -> Option<FileResult> {
    let original = String::from_utf8_lossy(&std::fs::read(path).ok()?).into_owned();
    let opts = CheckOptions::default();
    let started = Instant::now();
    let tree = crate::syntax::parse(&original, None);
    let first = quick(&tree, &original, &opts);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let reported = has_error(&first);
    let (mut text, mut report, mut fixes_applied) = (original.clone(), first, 0);
    // Every fix the quick check offers, errors' and warnings' (a missing `#include` for a
    // call is a warning, and an error for gcc 14 and the course's flags).
    while fixes_applied < ROUNDS {
        let Some(best) = report.repairs.first() else { break };
        let next = apply_edits(&text, &best.edits);
        if next == text {
            break;
        }
        text = next;
        fixes_applied += 1;
        report = quick(&crate::syntax::parse(&text, None), &text, &opts);
    }
    let matches_next = next_submission(path)
        .and_then(|p| std::fs::read(p).ok())
        .map(|next| fixes_applied > 0 && squeeze(&String::from_utf8_lossy(&next)) == squeeze(&text));
    let before = gcc(&original, &[], work);
    Some(FileResult {
        reported,
        plain_ok_before: before.is_ok(),
        gcc_error: before.err().unwrap_or_default(),
        path: path.to_path_buf(),
        plain_ok_after: gcc(&text, &[], work).is_ok(),
        course_ok_after: gcc(&text, COURSE_FLAGS, work).is_ok(),
        fixes_applied,
        matches_next,
        ms,
    })
}

fn share(n: usize, of: usize) -> String {
    if of == 0 { "n/a".into() } else { format!("{:.1}% ({n} of {of})", 100.0 * n as f64 / of as f64) }
}

/// `mend bench compile DIR` (`verbose`: every file with a C error mend is silent on, or
/// whose fixes do not make it compile).
pub fn run(dir: &Path, verbose: bool, out: &mut impl Write) -> std::io::Result<()> {
    let files = rejected_files(dir);
    writeln!(out, "mend bench compile {} ({} files gcc rejected)", dir.display(), files.len())?;
    if files.is_empty() {
        writeln!(out, "no `syntax/*.c` under {}: nothing measured", dir.display())?;
        return Ok(());
    }
    let work = std::env::temp_dir().join(format!("mend-bench-compile-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let results: Vec<FileResult> = files.iter().filter_map(|p| evaluate(p, &work)).collect();
    let _ = std::fs::remove_dir_all(&work);
    let count = |f: &dyn Fn(&FileResult) -> bool| results.iter().filter(|r| f(r)).count();
    let n = results.len();
    // Files a C compiler rejects (not only the course's warnings-as-errors and C90 rules).
    let c_errors: Vec<&FileResult> = results.iter().filter(|r| !r.plain_ok_before).collect();
    let c_reported = c_errors.iter().filter(|r| r.reported).count();
    let c_fixed = c_errors.iter().filter(|r| r.plain_ok_after).count();
    writeln!(out, "mend reports an error: {} of all files", share(count(&|r| r.reported), n))?;
    writeln!(
        out,
        "files with a C error (gcc -fsyntax-only rejects them): {}; mend reports an error on {}",
        c_errors.len(),
        share(c_reported, c_errors.len())
    )?;
    writeln!(out, "  after mend's fixes they compile (gcc -fsyntax-only): {}", share(c_fixed, c_errors.len()))?;
    writeln!(
        out,
        "files rejected only under the course's flags ({}): {}; mend reports an error on {}",
        COURSE_FLAGS.join(" "),
        n - c_errors.len(),
        share(count(&|r| r.plain_ok_before && r.reported), n - c_errors.len())
    )?;
    writeln!(
        out,
        "after mend's fixes, all files compile under the course's flags: {}",
        share(count(&|r| r.course_ok_after), n)
    )?;
    let with_next: Vec<bool> = results.iter().filter_map(|r| r.matches_next).collect();
    writeln!(
        out,
        "fixed text equal to the student's next submission (up to whitespace): {}",
        share(with_next.iter().filter(|&&m| m).count(), with_next.len())
    )?;
    writeln!(out, "files given at least one fix: {}", share(count(&|r| r.fixes_applied > 0), n))?;
    if verbose {
        for r in &c_errors {
            let verdict = match (r.reported, r.plain_ok_after) {
                (false, _) => "SILENT",
                (true, false) => "not fixed",
                (true, true) => continue,
            };
            writeln!(out, "  {verdict}: {} (gcc: {})", r.path.display(), r.gcc_error)?;
        }
    }
    let mut ms: Vec<f64> = results.iter().map(|r| r.ms).collect();
    ms.sort_by(f64::total_cmp);
    writeln!(
        out,
        "quick check latency per file: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms  [p95 < 30 ms]",
        super::bench::percentile(&ms, 0.5),
        super::bench::percentile(&ms, 0.95),
        super::bench::percentile(&ms, 1.0)
    )?;
    Ok(())
}
