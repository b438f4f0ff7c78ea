//! Support for tests and benchmarks that run on the development data (`../shared/data` beside
//! the checkout): one place that finds it and says why a test skips without it.

use std::path::{Path, PathBuf};

/// `../shared/data/NAME` beside the checkout (CI has it there); `None`, said on stderr, when
/// it is missing, so a test that needs it skips loudly instead of passing in silence.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is missing (the development data lives in ../shared beside the checkout)",
            dir.display()
        );
        None
    }
}

/// Every C program of a course laid out as `PROBLEM/reference.c` and `PROBLEM/submissions/*.c`,
/// sorted.
pub fn course_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(problems) = std::fs::read_dir(root) else { return files };
    for p in problems.flatten() {
        let dir = p.path();
        if !dir.is_dir() {
            continue;
        }
        let reference = dir.join("reference.c");
        if reference.exists() {
            files.push(reference);
        }
        if let Ok(subs) = std::fs::read_dir(dir.join("submissions")) {
            files.extend(subs.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "c")));
        }
    }
    files.sort();
    files
}
