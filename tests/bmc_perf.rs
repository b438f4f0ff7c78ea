//! Timing of bounded verification (ignored by default; run in release):
//! `cargo test --release --test bmc_perf -- --ignored --nocapture`
//! prints encode / violation-check / unwinding-check times per fixture and bound.

use std::path::Path;
use std::time::{Duration, Instant};

use mend::cancel::Cancel;
use mend::smt::Budget;
use mend::smt::bmc::{BmcVerdict, verify};
use mend::syntax::lower::lower_source;

fn time(name: &str, bounds: &[u32]) -> Vec<Duration> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bmc").join(name);
    time_path(&path, name, bounds)
}

fn time_path(path: &Path, name: &str, bounds: &[u32]) -> Vec<Duration> {
    let src = std::fs::read_to_string(path).unwrap();
    let p = lower_source(&src).program;
    let mut out = Vec::new();
    for &b in bounds {
        // Best of 3 runs.
        let mut best = Duration::MAX;
        let mut line = String::new();
        for _ in 0..3 {
            let t = Instant::now();
            let r = verify(&p, "main", b, &Budget::new(Duration::from_secs(120), Cancel::new()));
            let total = t.elapsed();
            if total < best {
                best = total;
                let v = match &r.verdict {
                    BmcVerdict::Holds { complete } => format!("holds complete={complete}"),
                    BmcVerdict::Violated(c) => format!("violated {:?}", c.kind),
                    BmcVerdict::Unknown(u) => format!("unknown {u:?}"),
                };
                line = format!(
                    "{name:24} b={b:3}: total {:8.1} ms (encode {:7.1}, check {:8.1}, unwind {:8.1}) hard={} {v}",
                    total.as_secs_f64() * 1e3,
                    r.stats.encode_time.as_secs_f64() * 1e3,
                    r.stats.solve_time.as_secs_f64() * 1e3,
                    r.stats.unwind_time.as_secs_f64() * 1e3,
                    r.stats.hard_constraints,
                );
            }
        }
        println!("{line}");
        out.push(best);
    }
    out
}

#[test]
#[ignore]
fn bmc_growth_with_bound() {
    time("student_loop.c", &[2, 5, 10, 20]);
    time("sum_fixed.c", &[2, 5, 10, 20]);
    time("nested_loops.c", &[2, 5, 10, 20]);
}

#[test]
#[ignore]
fn bmc_all_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bmc");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".c"))
        .collect();
    names.sort();
    for n in names {
        let src = std::fs::read_to_string(dir.join(&n)).unwrap();
        let first = src.lines().next().unwrap_or("");
        let bounds: Vec<u32> =
            first.split_whitespace().filter_map(|w| w.strip_prefix("bound=")).map(|x| x.parse().unwrap()).collect();
        time(&n, &bounds);
    }
}

/// The performance target: a 40-line student loop program at b = 5 in well under 300 ms.
#[test]
#[ignore]
fn student_loop_under_300ms() {
    let t = time("student_loop.c", &[5]);
    assert!(t[0] < Duration::from_millis(300), "{:?}", t[0]);
}

/// `BMC_FILE=path.c BMC_BOUNDS=2,5,10 cargo test --release --test bmc_perf -- --ignored --nocapture bmc_file`
#[test]
#[ignore]
fn bmc_file() {
    let Ok(f) = std::env::var("BMC_FILE") else { return };
    let bounds: Vec<u32> =
        std::env::var("BMC_BOUNDS").unwrap_or("5".into()).split(',').map(|b| b.trim().parse().unwrap()).collect();
    time_path(Path::new(&f), &f, &bounds);
}
