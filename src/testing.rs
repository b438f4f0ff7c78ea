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

/// A query Z3 takes minutes on (factoring the product of two primes below 2^31 by bit-blasting
/// 128-bit multiplication): something to interrupt, for the cancellation test and benchmark.
pub fn hard_factoring_query(ctx: &z3::Context) -> Vec<z3::ast::Bool<'_>> {
    use z3::ast::{Ast, BV};
    let n: u64 = 2_147_483_647 * 2_147_483_629;
    let x = BV::new_const(ctx, "x", 64);
    let y = BV::new_const(ctx, "y", 64);
    let prod = x.zero_ext(64).bvmul(&y.zero_ext(64));
    let one = BV::from_u64(ctx, 1, 64);
    vec![prod._eq(&BV::from_u64(ctx, n, 64).zero_ext(64)), x.bvugt(&one), y.bvugt(&one)]
}
