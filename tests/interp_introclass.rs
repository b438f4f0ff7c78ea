//! Runs the interpreter over every IntroClass program (submissions and references) with every
//! test input of its problem and compares with the gcc-compiled program: same stdout bytes and
//! same exit status. Prints the agreement rate and the classes of disagreement; writes every
//! disagreement to `$CARGO_TARGET_TMPDIR/introclass-disagreements.txt`.
//!
//! gcc binaries and their outputs are cached under `$CARGO_TARGET_TMPDIR` by source hash, so
//! only the first run pays for compiling ~1,150 programs.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mend::spec::interp::{Limits, RuntimeErrorKind};

struct Prog {
    file: PathBuf,
    nondet: bool,
    tests: Vec<(String, Vec<u8>)>,
}

/// The corpus's programs with their tests; `None` (said on stderr) without the data.
fn load() -> Option<Vec<Prog>> {
    let root = mend::testing::shared_data("introclass")?;
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("index.json")).expect("introclass index.json")).unwrap();
    let mut tests_of: BTreeMap<String, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    let mut progs = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for e in index.as_array().unwrap() {
        let problem = e["problem"].as_str().unwrap().to_string();
        if !problems.contains(&problem) {
            problems.push(problem.clone());
        }
        progs.push((problem, root.join(e["file"].as_str().unwrap()), e["nondeterministic"].as_bool().unwrap_or(false)));
    }
    for p in &problems {
        progs.push((p.clone(), root.join(p).join("reference.c"), false));
        let mut tests = Vec::new();
        for kind in ["blackbox", "whitebox"] {
            let dir = root.join(p).join("tests").join(kind);
            let Ok(rd) = std::fs::read_dir(&dir) else { continue };
            let mut ins: Vec<PathBuf> =
                rd.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "in")).collect();
            ins.sort();
            for i in ins {
                let name = format!("{kind}/{}", i.file_stem().unwrap().to_string_lossy());
                tests.push((name, std::fs::read(&i).unwrap()));
            }
        }
        tests_of.insert(p.clone(), tests);
    }
    Some(
        progs
            .into_iter()
            .map(|(problem, file, nondet)| Prog { file, nondet, tests: tests_of[&problem].clone() })
            .collect(),
    )
}

#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct NativeOut {
    stdout: Vec<u8>,
    status: Option<i32>,
    timed_out: bool,
}

/// gcc outputs for every test of a program, cached next to its binary.
fn native_outputs(src: &[u8], tests: &[(String, Vec<u8>)]) -> Option<Vec<NativeOut>> {
    let bin = common::compile(src)?;
    let cache = bin.with_extension("outputs.json");
    if let Ok(bytes) = std::fs::read(&cache)
        && let Ok(v) = serde_json::from_slice::<Vec<NativeOut>>(&bytes)
        && v.len() == tests.len()
    {
        return Some(v);
    }
    let outs: Vec<NativeOut> = tests
        .iter()
        .map(|(_, input)| {
            let n = common::run_native(&bin, input, Duration::from_secs(1));
            NativeOut { stdout: n.stdout, status: n.status, timed_out: n.timed_out }
        })
        .collect();
    std::fs::write(&cache, serde_json::to_vec(&outs).unwrap()).unwrap();
    Some(outs)
}

#[test]
fn introclass_agrees_with_gcc() {
    if !common::have_gcc() {
        return;
    }
    let start = Instant::now();
    let Some(progs) = load() else { return };
    assert!(progs.len() > 1000);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
    // Native side first (compiling and running in parallel; cached).
    let natives = common::parallel(progs.iter().collect(), threads * 2, |p| {
        let src = std::fs::read(&p.file).unwrap();
        native_outputs(&src, &p.tests)
    });
    let native_time = start.elapsed();
    let limits = Limits { max_steps: 5_000_000, ..Limits::default() };
    let jobs: Vec<(usize, &Prog)> = progs.iter().enumerate().collect();
    let results = common::parallel(jobs, threads, |(i, p)| {
        let src = String::from_utf8_lossy(&std::fs::read(&p.file).unwrap()).into_owned();
        let lowered = mend::syntax::lower::lower_source(&src);
        let Some(native) = &natives[i] else { return Vec::new() };
        let mut out = Vec::new();
        for (t, (name, input)) in p.tests.iter().enumerate() {
            let r = mend::spec::interp::run(&lowered.program, "main", input, &limits, &mend::cancel::Cancel::new());
            let n = &native[t];
            let class = classify(n, &r);
            out.push((name.clone(), class, r, n.clone()));
        }
        out
    });
    let interp_time = start.elapsed() - native_time;

    let mut total = [0usize; 2];
    let mut agree = [0usize; 2];
    let mut classes: [BTreeMap<String, usize>; 2] = [BTreeMap::new(), BTreeMap::new()];
    let mut details = String::new();
    let mut not_compiled = 0;
    for (i, p) in progs.iter().enumerate() {
        if natives[i].is_none() {
            not_compiled += 1;
            continue;
        }
        let k = p.nondet as usize;
        for (name, class, r, n) in &results[i] {
            total[k] += 1;
            match class {
                None => agree[k] += 1,
                Some(c) => {
                    *classes[k].entry(c.clone()).or_default() += 1;
                    details.push_str(&format!(
                        "== {} {} [{}]{}\n-- gcc (status {:?}{})\n{}\n-- interp (exit {:?}, error {:?})\n{}\n\n",
                        p.file.display(),
                        name,
                        c,
                        if p.nondet { " (nondeterministic)" } else { "" },
                        n.status,
                        if n.timed_out { ", timed out" } else { "" },
                        String::from_utf8_lossy(&n.stdout[..n.stdout.len().min(2000)]),
                        r.exit_code,
                        r.error.as_ref().map(|e| format!("{:?}: {}", e.kind, e.message)),
                        String::from_utf8_lossy(&r.output[..r.output.len().min(2000)]),
                    ));
                }
            }
        }
    }
    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join("introclass-disagreements.txt");
    std::fs::write(&report, &details).unwrap();
    println!("programs: {} ({} not compiled by gcc)", progs.len(), not_compiled);
    for (k, label) in [(0, "deterministic"), (1, "nondeterministic (index.json)")] {
        println!(
            "{label}: {}/{} runs agree ({:.2}%)",
            agree[k],
            total[k],
            100.0 * agree[k] as f64 / total[k].max(1) as f64
        );
        for (c, n) in &classes[k] {
            println!("    {n:6}  {c}");
        }
    }
    println!("native {:.1?}, interpreter {:.1?}; details in {}", native_time, interp_time, report.display());
    // Every disagreement must be the interpreter stopping on undefined behaviour of the student
    // program (reading a variable that was never given a value, an out-of-bounds access) after
    // printing what gcc printed up to there, or a construct outside the subset (VLAs).
    let explained = |c: &str| {
        c == "interp Unsupported, gcc ran (output so far is a prefix)"
            || c == "interp Uninitialized, gcc ran (output so far is a prefix)"
            || c == "interp OutOfBounds, gcc ran (output so far is a prefix)"
    };
    let unexplained: Vec<_> = classes.iter().flat_map(|m| m.iter()).filter(|(c, _)| !explained(c)).collect();
    assert!(unexplained.is_empty(), "disagreements not explained by undefined behaviour: {unexplained:?}");
    let rate = agree[0] as f64 / total[0].max(1) as f64;
    assert!(rate >= 0.90, "raw agreement on deterministic programs fell to {:.2}%", 100.0 * rate);
}

/// `None` when the runs agree; else a short class name.
fn classify(n: &NativeOut, r: &mend::spec::interp::RunResult) -> Option<String> {
    let native_failed = n.timed_out || n.status.is_none();
    if let Some(e) = &r.error {
        if native_failed {
            return None; // both fail (crash or timeout vs a reported error)
        }
        if e.kind == RuntimeErrorKind::StepLimit {
            return Some("interp step limit, gcc finished".into());
        }
        let same_prefix = n.stdout.starts_with(&r.output);
        return Some(format!(
            "interp {:?}, gcc ran ({})",
            e.kind,
            if same_prefix { "output so far is a prefix" } else { "output differs before it" }
        ));
    }
    if native_failed {
        return Some(if n.timed_out {
            "gcc timed out, interp finished".into()
        } else {
            "gcc crashed, interp finished".into()
        });
    }
    if r.output != n.stdout {
        return Some("output differs".into());
    }
    if r.exit_code.map(|c| c & 0xff) != n.status {
        return Some("exit status differs".into());
    }
    None
}

/// Adversarial inputs (empty, garbage, overflowing numbers, odd spacing) for every program:
/// exercises scanf's corner cases against glibc.
#[test]
#[ignore = "slow on first run (runs every gcc binary on 10 more inputs); run with --ignored --nocapture"]
fn introclass_edge_inputs_agree_with_gcc() {
    if !common::have_gcc() {
        return;
    }
    let edge: Vec<(String, Vec<u8>)> = [
        "",
        "abc\n",
        "-0 -0 -0 -0\n",
        "2147483648 -2147483649 4294967296 99999999999999999999\n",
        "1e5 2.5 .5 -.5e-1\n",
        "  \n\t 7\n\n8 \n",
        "+3 -4 +-5 6\n",
        "0x1A 010 0 1\n",
        "hello world this is a longer line of text that goes on\n",
        "12abc 5\n",
    ]
    .iter()
    .enumerate()
    .map(|(i, s)| (format!("edge/{i}"), s.as_bytes().to_vec()))
    .collect();
    let Some(progs) = load() else { return };
    let progs: Vec<Prog> = progs.into_iter().map(|p| Prog { tests: edge.clone(), ..p }).collect();
    let natives = common::parallel(progs.iter().collect(), 4, |p| {
        let src = std::fs::read(&p.file).unwrap();
        let bin = common::compile(&src)?;
        let cache = bin.with_extension("edge.json");
        if let Ok(v) = std::fs::read(&cache).map(|b| serde_json::from_slice::<Vec<NativeOut>>(&b))
            && let Ok(v) = v
        {
            return Some(v);
        }
        let outs: Vec<NativeOut> = p
            .tests
            .iter()
            .map(|(_, input)| {
                let n = common::run_native(&bin, input, Duration::from_secs(1));
                NativeOut { stdout: n.stdout, status: n.status, timed_out: n.timed_out }
            })
            .collect();
        std::fs::write(&cache, serde_json::to_vec(&outs).unwrap()).unwrap();
        Some(outs)
    });
    let limits = Limits { max_steps: 5_000_000, ..Limits::default() };
    let jobs: Vec<(usize, &Prog)> = progs.iter().enumerate().collect();
    let results = common::parallel(jobs, 2, |(i, p)| {
        let src = String::from_utf8_lossy(&std::fs::read(&p.file).unwrap()).into_owned();
        let lowered = mend::syntax::lower::lower_source(&src);
        let Some(native) = &natives[i] else { return Vec::new() };
        let mut out = Vec::new();
        for (t, (name, input)) in p.tests.iter().enumerate() {
            let r = mend::spec::interp::run(&lowered.program, "main", input, &limits, &mend::cancel::Cancel::new());
            if let Some(c) = classify(&native[t], &r) {
                out.push(format!(
                    "== {} {} [{}]\n-- gcc {:?}\n{}\n-- interp {:?} {:?}\n{}\n",
                    p.file.display(),
                    name,
                    c,
                    native[t].status,
                    String::from_utf8_lossy(&native[t].stdout[..native[t].stdout.len().min(1500)]),
                    r.exit_code,
                    r.error.as_ref().map(|e| &e.message),
                    String::from_utf8_lossy(&r.output[..r.output.len().min(1500)])
                ));
            }
        }
        out
    });
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut details = String::new();
    let mut total = 0;
    for r in &results {
        total += 10;
        for d in r {
            let c = d.split('[').nth(1).and_then(|x| x.split(']').next()).unwrap_or("?").to_string();
            *classes.entry(c).or_default() += 1;
            details.push_str(d);
        }
    }
    let report = Path::new(env!("CARGO_TARGET_TMPDIR")).join("introclass-edge-disagreements.txt");
    std::fs::write(&report, &details).unwrap();
    println!("{total} runs; disagreements by class:");
    for (c, n) in &classes {
        println!("    {n:6}  {c}");
    }
    println!("details in {}", report.display());
}
