//! lower → print → lower → print gives the same text, over the IntroClass references and a
//! sample of submissions. (Uses `syntax::lower` from a test only: `ir` itself does not depend on
//! it.)

use std::path::{Path, PathBuf};

use super::program_to_c;
use crate::syntax::lower::lower_source;

fn data() -> Option<PathBuf> {
    crate::testing::shared_data("introclass")
}

fn corpus(sample_every: usize) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Some(data) = data() else { return files };
    let Ok(dirs) = std::fs::read_dir(&data) else { return files };
    let mut dirs: Vec<PathBuf> = dirs.filter_map(|d| d.ok()).map(|d| d.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    for dir in dirs {
        let reference = dir.join("reference.c");
        if reference.exists() {
            files.push(reference);
        }
        if let Ok(subs) = std::fs::read_dir(dir.join("submissions")) {
            let mut subs: Vec<PathBuf> = subs.filter_map(|d| d.ok()).map(|d| d.path()).collect();
            subs.sort();
            files.extend(subs.into_iter().filter(|p| p.extension().is_some_and(|e| e == "c")).step_by(sample_every));
        }
    }
    files
}

/// The first printing, or a description of what went wrong.
fn round_trip(path: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let first = lower_source(&src);
    let printed = program_to_c(&first.program);
    let second = lower_source(&printed);
    let errors: Vec<String> = second
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::ir::Severity::Error)
        .map(|d| format!("{} at {:?}: {}", d.code, &printed[d.span.range()], d.message))
        .collect();
    let had_errors = first.has_errors();
    if !errors.is_empty() && !had_errors {
        return Err(format!("printed text does not lower cleanly: {errors:?}\n{printed}"));
    }
    let reprinted = program_to_c(&second.program);
    if reprinted != printed {
        let line = printed.lines().zip(reprinted.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let a: Vec<&str> = printed.lines().skip(line).take(3).collect();
        let b: Vec<&str> = reprinted.lines().skip(line).take(3).collect();
        return Err(format!("second printing differs at line {}:\n{a:#?}\nvs\n{b:#?}", line + 1));
    }
    Ok(())
}

#[test]
fn introclass_round_trip() {
    let files = corpus(std::env::var("MEND_ROUNDTRIP_ALL").map_or(5, |_| 1));
    if files.is_empty() {
        eprintln!("no IntroClass corpus; skipped");
        return;
    }
    let failures: Vec<String> =
        files.iter().filter_map(|f| round_trip(f).err().map(|e| format!("{}: {e}", f.display()))).collect();
    assert!(failures.is_empty(), "{} of {} files fail:\n{}", failures.len(), files.len(), failures.join("\n\n"));
    eprintln!("{} files round-trip", files.len());
}

/// With `MEND_PRINT_DUMP=DIR`, writes every printed IntroClass program under `DIR` (mirroring the
/// corpus layout) so they can be compiled and run against the originals.
#[test]
fn dump_printed_programs() {
    let Ok(dir) = std::env::var("MEND_PRINT_DUMP") else { return };
    for f in corpus(1) {
        let src = std::fs::read_to_string(&f).unwrap();
        let printed = program_to_c(&lower_source(&src).program);
        let rel = f.strip_prefix(data().expect("the corpus")).unwrap();
        let out = Path::new(&dir).join(rel);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        std::fs::write(out, printed).unwrap();
    }
}
