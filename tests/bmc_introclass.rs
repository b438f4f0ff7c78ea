//! Robustness of bounded verification over every IntroClass program (ignored by default):
//! `cargo test --release --test bmc_introclass -- --ignored --nocapture`.
//! The programs have no assertions, so the checks are division by zero and out-of-bounds
//! accesses. Prints the verdict counts and the unsupported reasons; fails on a panic or on a
//! counterexample the interpreter does not confirm.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mend::cancel::Cancel;
use mend::smt::Budget;
use mend::smt::bmc::{BmcUnknown, BmcVerdict, Replay, verify};
use mend::syntax::lower::lower_source;

#[test]
#[ignore]
fn bmc_over_introclass() {
    let Some(root) = mend::testing::shared_data("introclass") else { return };
    let index: serde_json::Value = serde_json::from_slice(&std::fs::read(root.join("index.json")).unwrap()).unwrap();
    let mut files: Vec<PathBuf> =
        index.as_array().unwrap().iter().map(|e| root.join(e["file"].as_str().unwrap())).collect();
    if let Ok(n) = std::env::var("BMC_LIMIT") {
        files.truncate(n.parse().unwrap());
    }
    let bound: u32 = std::env::var("BMC_BOUND").ok().and_then(|b| b.parse().ok()).unwrap_or(3);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut times = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let p = lower_source(&src).program;
        if std::env::var("BMC_VERBOSE").is_ok() {
            eprintln!("start {}", f.display());
        }
        let t = Instant::now();
        let r =
            std::panic::catch_unwind(|| verify(&p, "main", bound, &Budget::new(Duration::from_secs(5), Cancel::new())));
        times.push(t.elapsed());
        if std::env::var("BMC_VERBOSE").is_ok() {
            eprintln!("{:8.1} ms {}", t.elapsed().as_secs_f64() * 1e3, f.display());
        }
        let key = match r {
            Err(_) => {
                bad.push(format!("{}: panic", f.display()));
                "panic".to_string()
            }
            Ok(r) => match r.verdict {
                BmcVerdict::Holds { complete } => format!("holds complete={complete}"),
                BmcVerdict::Violated(c) => {
                    let excused = matches!(c.replay, Replay::Inconclusive(_)) && !r.uninit_reads.is_empty();
                    if c.replay != Replay::Confirmed && !excused {
                        bad.push(format!("{}: {:?} {:?}", f.display(), c.kind, c.replay));
                    }
                    format!(
                        "violated {:?} replay {}",
                        c.kind,
                        match c.replay {
                            Replay::Confirmed => "confirmed",
                            Replay::Inconclusive(_) => "inconclusive",
                            Replay::Mismatch(_) => "MISMATCH",
                        }
                    )
                }
                BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => {
                    *reasons.entry(u.what.clone()).or_default() += 1;
                    "unsupported".to_string()
                }
                BmcVerdict::Unknown(u) => format!("unknown {u:?}"),
            },
        };
        *counts.entry(key).or_default() += 1;
    }
    times.sort();
    println!("{} programs at bound {bound}", files.len());
    for (k, n) in &counts {
        println!("  {n:5}  {k}");
    }
    println!("unsupported reasons:");
    let mut rs: Vec<_> = reasons.into_iter().collect();
    rs.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (k, n) in rs {
        println!("  {n:5}  {k}");
    }
    if !times.is_empty() {
        println!(
            "time: median {:?}, p90 {:?}, max {:?}",
            times[times.len() / 2],
            times[times.len() * 9 / 10],
            times[times.len() - 1]
        );
    }
    for b in &bad {
        println!("BAD {b}");
    }
    assert!(bad.is_empty());
}
