//! `mend bench compile DIR`: mend on programs that do not compile, as students write them.
//! For every `syntax/*.c` under DIR (C-Pack's layout: one folder per assignment, each with the
//! submissions gcc rejected and gcc's messages beside them), it measures:
//! - whether mend reports an error at all (silence on a program that does not compile is the
//!   worst outcome);
//! - whether the program compiles after mend's own fixes (the quick check's best repair,
//!   applied and re-checked until no fix is left), with gcc outside the server,
//!   both as C (`gcc -fsyntax-only`, the compiler's errors) and under the course's flags
//!   (`--flags`, else each problem's mend.toml `flags`; C-Pack's are `-Wall -Wextra -Werror
//!   -ansi -pedantic`, where warnings and C99 features are errors), which mend is told too;
//! - whether the fixed text equals the same student's next submission (up to whitespace), when
//!   the data has it;
//! - the latency of the quick check per file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::check::{CheckOptions, course_for, quick_at};
use crate::ir::{Severity, apply_edits};
use crate::syntax::flags::CompilerFlags;

/// At most this many fix-and-recheck rounds per file (several errors in one file).
const ROUNDS: usize = 10;

/// What happened to one file.
struct FileResult {
    reported: bool,
    /// gcc (plain C) accepts the original: only the course's flags reject it.
    plain_ok_before: bool,
    /// gcc's first error on the original (plain C, else under the course's flags).
    gcc_error: String,
    /// The course's flags reject the original (`None`: the file has no flags).
    course_rejects: Option<bool>,
    path: PathBuf,
    plain_ok_after: bool,
    course_ok_after: bool,
    /// gcc's first error on the fixed text (under the course's flags when there are some).
    gcc_error_after: String,
    fixes_applied: usize,
    /// Same as the student's next submission, up to whitespace (`None`: no next submission).
    matches_next: Option<bool>,
    /// The first fix of the first error is the kind of edit the student made next
    /// (`first_fix_as_student`).
    same_kind_as_student: Option<bool>,
    ms: f64,
}

/// Files gcc rejected under `dir`: every `syntax/*.c` one or two levels down, sorted.
fn rejected_files(dir: &Path) -> Vec<PathBuf> {
    files_in(dir, &["syntax"])
}

/// The `.c` files of the folders named `folders` under `dir` and its subfolders, sorted.
fn files_in(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        folders.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    for folder in &folders {
        for name in names {
            if let Ok(entries) = std::fs::read_dir(folder.join(name)) {
                out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "c")));
            }
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

/// Whether gcc accepts `text` with `flags` (`work`: a folder for the file), and its first error
/// otherwise. With flags the file is compiled (to no output): some warnings
/// (`-Wuninitialized`) come only from code generation.
pub fn gcc(text: &str, flags: Option<&CompilerFlags>, work: &Path) -> Result<(), String> {
    let src = work.join("file.c");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let mut command = Command::new("gcc");
    match flags {
        None => command.arg("-fsyntax-only"),
        Some(f) => command.args(["-c", "-o", "/dev/null"]).args(f.text.split_whitespace()),
    };
    let run = command.arg(&src).stdout(Stdio::null()).stderr(Stdio::piped()).output().map_err(|e| e.to_string())?;
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

fn evaluate(path: &Path, flags: Option<&CompilerFlags>, work: &Path) -> Option<FileResult> {
    let original = String::from_utf8_lossy(&std::fs::read(path).ok()?).into_owned();
    let opts = CheckOptions { flags: flags.cloned(), ..CheckOptions::default() };
    // The flags gcc is run with: the bench's, else the problem's mend.toml's.
    let course = course_for(Some(path), &opts);
    let flags = (course.flags != CompilerFlags::default()).then_some(&course.flags);
    let started = Instant::now();
    let tree = crate::syntax::parse(&original, None);
    let first = quick_at(Some(path), &tree, &original, &opts);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let reported = has_error(&first);
    let next =
        next_submission(path).and_then(|p| std::fs::read(p).ok()).map(|b| String::from_utf8_lossy(&b).into_owned());
    let same_kind_as_student = next.as_deref().and_then(|next| first_fix_as_student(&original, &first, next));
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
        report = quick_at(Some(path), &crate::syntax::parse(&text, None), &text, &opts);
    }
    let matches_next = next.map(|next| fixes_applied > 0 && squeeze(&next) == squeeze(&text));
    let before = gcc(&original, None, work);
    let course_before = flags.map(|f| gcc(&original, Some(f), work));
    let plain_after = gcc(&text, None, work);
    let course_after = flags.map(|f| gcc(&text, Some(f), work));
    Some(FileResult {
        reported,
        plain_ok_before: before.is_ok(),
        gcc_error: before.err().or_else(|| course_before.clone()?.err()).unwrap_or_default(),
        course_rejects: course_before.map(|r| r.is_err()),
        path: path.to_path_buf(),
        plain_ok_after: plain_after.is_ok(),
        course_ok_after: course_after.as_ref().is_some_and(|r| r.is_ok()),
        gcc_error_after: course_after.unwrap_or(plain_after).err().unwrap_or_default(),
        fixes_applied,
        matches_next,
        same_kind_as_student,
        ms,
    })
}

/// Whether the first fix of the first error in `report` (of `original`) makes the kinds of
/// edit (`ir::mistakes`) the student made in their next submission `next`. `None` when that
/// submission changed more than a few places (a new attempt, not a fix) or there is no fix.
fn first_fix_as_student(original: &str, report: &crate::check::Report, next: &str) -> Option<bool> {
    use crate::ir::mistakes::{MAX_CHANGES, kind};
    let theirs = crate::ir::token_edit::changes(original, next);
    if theirs.is_empty() || theirs.len() > MAX_CHANGES {
        return None;
    }
    let mut theirs: Vec<(String, String)> = theirs.iter().filter_map(kind).collect();
    let error = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::ir::Severity::Error)
        .map(|d| d.span)
        .min_by_key(|s| (s.start, s.end))?;
    let fix = report.repairs.iter().find(|r| r.primary() == error && r.fixes.len() == 1)?;
    let fixed = apply_edits(original, &fix.edits);
    let ours = crate::ir::token_edit::changes(original, &fixed);
    Some(
        ours.iter().all(|c| {
            kind(c).and_then(|k| theirs.iter().position(|t| *t == k)).map(|i| theirs.swap_remove(i)).is_some()
        }),
    )
}

fn share(n: usize, of: usize) -> String {
    if of == 0 { "n/a".into() } else { format!("{:.1}% ({n} of {of})", 100.0 * n as f64 / of as f64) }
}

/// The other half of "an error exactly when gcc reports one": the programs of `dir` that
/// compile (its `submissions/` and `fixed/` folders) and that gcc accepts under the course's
/// flags must get no error from mend.
fn false_alarms(
    dir: &Path,
    flags: Option<&CompilerFlags>,
    verbose: bool,
    work: &Path,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut accepted = 0;
    let mut alarms = Vec::new();
    for path in files_in(dir, &["submissions", "fixed"]) {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let opts = CheckOptions { flags: flags.cloned(), ..CheckOptions::default() };
        let course = course_for(Some(&path), &opts);
        let gcc_flags = (course.flags != CompilerFlags::default()).then_some(&course.flags);
        if gcc(&text, gcc_flags, work).is_err() {
            continue;
        }
        accepted += 1;
        let report = quick_at(Some(&path), &crate::syntax::parse(&text, None), &text, &opts);
        if let Some(d) = report.diagnostics.iter().find(|d| d.severity == Severity::Error) {
            alarms.push((path, d.code, d.message.clone()));
        }
    }
    writeln!(
        out,
        "files that compile and gcc accepts under the course's flags: {accepted}; mend reports an error on {}  [0]",
        share(alarms.len(), accepted)
    )?;
    if verbose {
        for (path, code, message) in &alarms {
            writeln!(out, "  FALSE ERROR: {} [{code}] {message}", path.display())?;
        }
    }
    Ok(())
}

/// `mend bench mistakes DIR`: prints the table of the kinds of edit students made to get a
/// rejected program to compile (`check::mistakes`), from each rejected file of `DIR` that has
/// the same student's next submission.
pub fn learn_mistakes(dir: &Path, out: &mut impl Write) -> std::io::Result<()> {
    let read = |p: &Path| std::fs::read(p).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    let pairs: Vec<(String, Vec<usize>, String)> = rejected_files(dir)
        .iter()
        .filter_map(|p| {
            Some((read(p)?, reported_lines(&read(&p.with_extension("gcc.log"))?), read(&next_submission(p)?)?))
        })
        .collect();
    let pairs = pairs.iter().map(|(a, lines, b)| (a.as_str(), lines.as_slice(), b.as_str()));
    write!(out, "{}", crate::ir::mistakes::learn(pairs))
}

/// The lines of the errors in a gcc log (`file.c:7:12: error: …`).
fn reported_lines(log: &str) -> Vec<usize> {
    log.lines()
        .filter_map(|l| {
            let (place, rest) = l.split_once(": error:").or_else(|| l.split_once(": warning:"))?;
            let _ = rest;
            place.split(':').nth(1)?.parse().ok()
        })
        .collect()
}

/// `mend bench compile DIR` (`verbose`: every file with a C error mend is silent on, or
/// whose fixes do not make it compile).
///
/// `flags`: the course's compiler flags for every file (else each file's mend.toml `flags`).
pub fn run(dir: &Path, flags: Option<&CompilerFlags>, verbose: bool, out: &mut impl Write) -> std::io::Result<()> {
    let files = rejected_files(dir);
    let shown = flags.map_or_else(|| "each problem's mend.toml `flags`".to_string(), |f| format!("`{f}`"));
    writeln!(out, "mend bench compile {} ({} files gcc rejected; course flags: {shown})", dir.display(), files.len())?;
    if files.is_empty() {
        writeln!(out, "no `syntax/*.c` under {}: nothing measured", dir.display())?;
        return Ok(());
    }
    let work = std::env::temp_dir().join(format!("mend-bench-compile-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let results: Vec<FileResult> = files.iter().filter_map(|p| evaluate(p, flags, &work)).collect();
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
    let course: Vec<&FileResult> = results.iter().filter(|r| r.course_rejects == Some(true)).collect();
    let no_flags = count(&|r| r.course_rejects.is_none());
    if no_flags > 0 {
        writeln!(out, "files with no course flags (only plain C measured): {}", share(no_flags, n))?;
    }
    writeln!(
        out,
        "files the course's flags reject (gcc -c): {}; mend, told the flags, reports an error on {}  [≥ 99%]",
        course.len(),
        share(course.iter().filter(|r| r.reported).count(), course.len())
    )?;
    writeln!(
        out,
        "  of those rejected only under the flags (plain C accepts them): mend reports an error on {}",
        share(
            course.iter().filter(|r| r.plain_ok_before && r.reported).count(),
            course.iter().filter(|r| r.plain_ok_before).count()
        )
    )?;
    writeln!(
        out,
        "  after mend's fixes they compile under the course's flags: {}  [≥ 85%]",
        share(course.iter().filter(|r| r.course_ok_after).count(), course.len())
    )?;
    let with_next: Vec<bool> = results.iter().filter_map(|r| r.matches_next).collect();
    writeln!(
        out,
        "fixed text equal to the student's next submission (up to whitespace): {}",
        share(with_next.iter().filter(|&&m| m).count(), with_next.len())
    )?;
    let kinds: Vec<bool> = results.iter().filter_map(|r| r.same_kind_as_student).collect();
    writeln!(
        out,
        "first fix of the first error is the kind of edit the student made next (a next submission changed in at most {} places): {}",
        crate::ir::mistakes::MAX_CHANGES,
        share(kinds.iter().filter(|&&m| m).count(), kinds.len())
    )?;
    writeln!(out, "files given at least one fix: {}", share(count(&|r| r.fixes_applied > 0), n))?;
    if verbose {
        for r in &results {
            let rejected = !r.plain_ok_before || r.course_rejects == Some(true);
            let fixed = if r.course_rejects.is_some() { r.course_ok_after } else { r.plain_ok_after };
            let verdict = match (r.reported, fixed) {
                _ if !rejected => continue,
                (false, _) => "SILENT",
                (true, false) => "not fixed",
                (true, true) => continue,
            };
            writeln!(out, "  {verdict}: {} (gcc: {})", r.path.display(), r.gcc_error)?;
            if r.reported && r.fixes_applied > 0 {
                writeln!(out, "    after {} fixes: {}", r.fixes_applied, r.gcc_error_after)?;
            }
        }
    }
    false_alarms(dir, flags, verbose, &work, out)?;
    let _ = std::fs::remove_dir_all(&work);
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
