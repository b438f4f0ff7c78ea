//! Shared helpers of the interpreter-vs-gcc tests: compile with gcc (cached by source hash),
//! run binaries with a timeout, run the interpreter.
#![allow(dead_code)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub fn cache_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interp-gcc-cache");
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Whether a `gcc` is installed (the comparison tests skip, loudly, without one).
pub fn have_gcc() -> bool {
    let ok = Command::new("gcc")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("gcc not found: skipping the comparison with gcc");
    }
    ok
}

/// Compiles `src` with `gcc -O0` (binaries cached by content); `None` if gcc rejects it.
pub fn compile(src: &[u8]) -> Option<PathBuf> {
    let dir = cache_dir();
    let h = hash_of(src);
    let bin = dir.join(format!("{h:016x}.bin"));
    let failed = dir.join(format!("{h:016x}.failed"));
    if bin.exists() {
        return Some(bin);
    }
    if failed.exists() {
        return None;
    }
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let uniq = format!("{}-{}", std::process::id(), COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let c = dir.join(format!("{h:016x}.{uniq}.c"));
    std::fs::write(&c, src).unwrap();
    let tmp_bin = dir.join(format!("{h:016x}.{uniq}.tmp"));
    let ok = Command::new("gcc")
        .args(["-O0", "-w", "-o"])
        .arg(&tmp_bin)
        .arg(&c)
        .arg("-lm")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    let _ = std::fs::remove_file(&c);
    if ok {
        std::fs::rename(&tmp_bin, &bin).unwrap();
        Some(bin)
    } else {
        let _ = std::fs::write(&failed, b"");
        None
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Native {
    pub stdout: Vec<u8>,
    /// Exit status (0..=255), or `None` when killed by a signal or the timeout.
    pub status: Option<i32>,
    pub timed_out: bool,
}

pub fn run_native(bin: &Path, input: &[u8], timeout: Duration) -> Native {
    // ETXTBSY can happen transiently while another thread's child still holds a write fd.
    let mut tries = 0;
    let mut child = loop {
        match Command::new(bin).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() {
            Ok(c) => break c,
            Err(e) if tries < 50 && e.raw_os_error() == Some(26) => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("spawn {}: {e}", bin.display()),
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            match stdout.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if buf.len() < (2 << 20) {
                        buf.extend_from_slice(&chunk[..n]);
                    }
                }
            }
        }
        buf
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            timed_out = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap();
    Native { stdout, status: status.code(), timed_out }
}

pub fn interpret(src: &str, input: &[u8]) -> (mend::spec::interp::RunResult, bool) {
    let lowered = mend::syntax::lower::lower_source(src);
    let has_error = lowered.diagnostics.iter().any(|d| d.severity == mend::ir::Severity::Error);
    let r = mend::spec::interp::run(
        &lowered.program,
        "main",
        input,
        &mend::spec::interp::Limits::default(),
        &mend::cancel::Cancel::new(),
    );
    (r, has_error)
}

/// Runs `jobs` on `n` threads, preserving order.
pub fn parallel<T: Send, R: Send>(jobs: Vec<T>, n: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let len = jobs.len();
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = std::sync::Mutex::new((0..len).map(|_| None).collect::<Vec<Option<R>>>());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| {
                loop {
                    let job = queue.lock().unwrap().pop();
                    let Some((i, t)) = job else { break };
                    let r = f(t);
                    results.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|r| r.unwrap()).collect()
}

/// `../shared/data/NAME` beside the checkout (CI has it there); `None`, said on stderr, when it
/// is missing, so a test that needs it skips loudly instead of passing in silence.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    mend::testing::shared_data(name)
}

/// One-based line and byte column of a byte offset, through the library's own line index.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let p = mend::syntax::LineIndex::new(src).position(src, offset, mend::syntax::Encoding::Utf8);
    (p.line as usize + 1, p.character as usize + 1)
}

/// The verified engine on `student` against `reference` (outputs compared as `compare` says, two
/// minutes' budget: the tests pin outcomes, so a loaded machine must reach the answer an idle
/// one does), with the input precondition conjectured from `inputs`.
pub fn verified_repair(
    student: &str,
    reference: &str,
    entry: &str,
    inputs: &[String],
    compare: mend::spec::compare::Compare,
) -> mend::engines::verified::Report {
    use mend::engines::verified;
    let s = mend::syntax::lower::lower_source(student).program;
    let r = mend::syntax::lower::lower_source(reference).program;
    // The reference's outputs on the inputs, as the checker gives them.
    let printed: Vec<String> = inputs
        .iter()
        .map(|input| {
            let limits = mend::spec::interp::Limits::default();
            let run = mend::spec::interp::run(&r, entry, input.as_bytes(), &limits, &mend::cancel::Cancel::new());
            String::from_utf8_lossy(&run.output).into_owned()
        })
        .collect();
    let precondition = verified::precondition::infer(inputs, &printed, &r, entry);
    let opts = verified::Options {
        entry: entry.to_string(),
        compare,
        precondition,
        floats: verified::FloatModel::Ieee,
        candidates: None,
        line_in_input: true,
        start_values: Vec::new(),
    };
    verified::repair(
        &s,
        student,
        &r,
        &opts,
        &mend::smt::Budget::new(std::time::Duration::from_secs(120), mend::cancel::Cancel::new()),
    )
}
