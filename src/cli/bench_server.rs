//! `mend bench server`: the server's reliability figures, measured on the real binary over
//! stdio as an editor drives it. A large file must not hold up other requests, memory must
//! come back after a close, a cancelled solver job must stop using the CPU, and `shutdown`
//! must join the threads it cancelled.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// `mend lsp` started as a child process, with a reader thread that decodes its messages.
pub struct LspProcess {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl LspProcess {
    /// Starts the server and initializes it with `settings` (the `mend` section).
    pub fn start(settings: Value) -> Result<LspProcess, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(message) = read_message(&mut r) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let mut server = LspProcess { child, stdin, messages, next_id: 1 };
        server.request("initialize", json!({ "capabilities": {}, "initializationOptions": settings }))?;
        server.notify("initialized", json!({}))?;
        Ok(server)
    }

    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    /// Sends a request and waits (at most a minute) for its answer, dropping other messages.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let found = self.wait_for(Duration::from_secs(60), |m| m["id"] == id && m.get("method").is_none())?;
        found.ok_or_else(|| format!("no answer to {method} within a minute"))
    }

    /// The first message matching `wanted` within `limit` (`None` if none came).
    pub fn wait_for(&mut self, limit: Duration, wanted: impl Fn(&Value) -> bool) -> Result<Option<Value>, String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.messages.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) if wanted(&m) => return Ok(Some(m)),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err("the server closed its output".into()),
            }
        }
    }

    pub fn open(&mut self, uri: &str, text: &str) -> Result<(), String> {
        let doc = json!({ "uri": uri, "languageId": "c", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": doc }))
    }

    pub fn close(&mut self, uri: &str) -> Result<(), String> {
        self.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri } }))
    }

    /// A memory figure of the server in kB: see [`memory_kb`].
    pub fn memory_kb(&self, field: &str) -> Result<u64, String> {
        memory_kb(self.child.id(), field)
    }

    /// CPU time used so far (user + system), in clock ticks of 10 ms.
    pub fn cpu_ticks(&self) -> Result<u64, String> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).map_err(|e| e.to_string())?;
        // Fields after the command name (in parentheses, which may contain spaces).
        let rest = stat.rsplit_once(')').map(|(_, r)| r).ok_or("bad /proc stat")?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).ok_or("bad /proc stat");
        Ok(tick(11)? + tick(12)?)
    }

    /// `shutdown` and `exit`: how long the answer to `shutdown` took, and the exit code.
    pub fn shutdown(mut self) -> Result<(Duration, Option<i32>), String> {
        let started = Instant::now();
        self.request("shutdown", Value::Null)?;
        let answered = started.elapsed();
        self.notify("exit", Value::Null)?;
        let status = self.child.wait().map_err(|e| e.to_string())?;
        Ok((answered, status.code()))
    }

    fn send(&mut self, v: &Value) -> Result<(), String> {
        self.write(&frame(v))
    }

    /// Writes an encoded frame (see [`frame`]).
    pub fn write(&mut self, frame: &[u8]) -> Result<(), String> {
        self.stdin.write_all(frame).map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())
    }
}

impl Drop for LspProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `v` as one LSP frame.
pub fn frame(v: &Value) -> Vec<u8> {
    crate::framing::framed(v.to_string().as_bytes())
}

/// A field of /proc/PID/status in kB (`VmRSS`, `VmHWM`).
pub fn memory_kb(pid: u32, field: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// The next message of an LSP stream (`None` at its end or on a broken frame).
pub fn read_message(r: &mut impl BufRead) -> Option<Value> {
    serde_json::from_slice(&crate::framing::read_frame(r)?).ok()
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap_or(path.to_path_buf()).display())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Starts `mend lsp`, opens `files` IntroClass submissions, waits for analysis to settle and
/// reads the server's resident set size.
pub fn idle_rss_with_files(files: usize) -> Result<u64, String> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/introclass");
    let mut sources: Vec<PathBuf> = Vec::new();
    for problem in ["checksum", "digits", "grade", "median", "smallest", "syllables"] {
        let dir = data.join(problem).join("submissions");
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        sources.extend(names.into_iter().take(files.div_ceil(6)));
    }
    sources.truncate(files);
    if sources.len() < files {
        return Err(format!("found {} of {files} files under {}", sources.len(), data.display()));
    }
    let mut server = LspProcess::start(json!({}))?;
    for path in &sources {
        let text = String::from_utf8_lossy(&std::fs::read(path).map_err(|e| e.to_string())?).into_owned();
        server.open(&file_uri(path), &text)?;
    }
    std::thread::sleep(Duration::from_secs(3));
    let rss = server.memory_kb("VmRSS")?;
    server.shutdown()?;
    Ok(rss)
}

/// A C file of at least `bytes` bytes (the synthetic source repeated).
pub fn large_source(bytes: usize) -> String {
    let unit = super::bench::synthetic_source(2000);
    unit.repeat(bytes.div_ceil(unit.len()))
}

/// `mend bench server`.
pub fn run(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "mend bench server ({} build)", if cfg!(debug_assertions) { "DEBUG" } else { "release" })?;
    if let Err(e) = large_file(out) {
        writeln!(out, "large file: not measured ({e})")?;
    }
    if let Err(e) = cancelled_solver(out, 5) {
        writeln!(out, "cancelled solver job: not measured ({e})")?;
    }
    Ok(())
}

/// A 10 MB file: how long it holds up a request about another file, and the memory it leaves.
fn large_file(out: &mut impl Write) -> Result<(), String> {
    let mut server = LspProcess::start(json!({}))?;
    let small = "file:///tmp/mend-bench/small.c";
    let large = "file:///tmp/mend-bench/large.c";
    server.open(small, "int main(void) {\n    int x = 1\n    return x;\n}\n")?;
    server.wait_for(Duration::from_secs(10), |m| m["params"]["uri"] == small)?;
    std::thread::sleep(Duration::from_secs(1));
    let idle = server.memory_kb("VmRSS")?;

    // The message is encoded before the clock starts: only the server's time counts.
    let doc = json!({ "uri": large, "languageId": "c", "version": 1, "text": large_source(10 << 20) });
    let open = json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": doc } });
    let frame = frame(&open);
    let opened = Instant::now();
    server.write(&frame)?;
    let position = json!({ "line": 1, "character": 13 });
    let range = json!({ "start": position, "end": position });
    server.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": small }, "range": range, "context": { "diagnostics": [] } }),
    )?;
    let answered = opened.elapsed();
    let published = server.wait_for(Duration::from_secs(60), |m| m["params"]["uri"] == large)?;
    let syntax_after = opened.elapsed();
    let notice = published.as_ref().is_some_and(|m| m.to_string().contains("syntax-only"));
    let peak = server.memory_kb("VmHWM")?;
    server.close(large)?;
    server.wait_for(Duration::from_secs(10), |m| m["params"]["uri"] == large)?;
    std::thread::sleep(Duration::from_secs(1));
    let after = server.memory_kb("VmRSS")?;
    let (_, code) = server.shutdown()?;
    let mb = |kb: u64| kb as f64 / 1024.0;
    writeln!(
        out,
        "10 MB file opened: a request about another file answered after {:.0} ms  [< 100 ms]; its syntax published after {:.0} ms ({})",
        ms(answered),
        ms(syntax_after),
        if notice { "with the syntax-only notice" } else { "WITHOUT the syntax-only notice" }
    )
    .map_err(|e| e.to_string())?;
    writeln!(
        out,
        "memory: idle {:.1} MB, peak {:.1} MB, after the close {:.1} MB (+{:.1} MB)  [within 20 MB of idle]; exit code {code:?}",
        mb(idle),
        mb(peak),
        mb(after),
        mb(after.saturating_sub(idle))
    )
    .map_err(|e| e.to_string())
}

/// The checksum fixture's solver job (minutes of work), cancelled by closing the file after
/// 1.5 s: when the CPU goes quiet, and how long `shutdown` takes with a job running.
fn cancelled_solver(out: &mut impl Write, rounds: usize) -> Result<(), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/e2e/slow_solver/checksum.c");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let uri = file_uri(&path);
    let (mut quiet, mut joined) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let mut server = LspProcess::start(json!({ "debounceMs": 0 }))?;
        server.open(&uri, &text)?;
        std::thread::sleep(Duration::from_millis(1500));
        let before = server.cpu_ticks()?;
        std::thread::sleep(Duration::from_millis(200));
        if server.cpu_ticks()? == before {
            return Err("the solver job was not running 1.5 s after the open".into());
        }
        let closed = Instant::now();
        server.close(&uri)?;
        // The last moment the CPU counter moved, watched until it stays still for a second.
        let (mut ticks, mut last_move) = (server.cpu_ticks()?, Duration::ZERO);
        while closed.elapsed() < last_move + Duration::from_secs(1) && closed.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(2));
            let now = server.cpu_ticks()?;
            if now != ticks {
                (ticks, last_move) = (now, closed.elapsed());
            }
        }
        quiet.push(ms(last_move));

        let mut server2 = LspProcess::start(json!({ "debounceMs": 0 }))?;
        server2.open(&uri, &text)?;
        std::thread::sleep(Duration::from_millis(1500));
        let (took, code) = server2.shutdown()?;
        if code != Some(0) {
            return Err(format!("shutdown during the solver job exited with {code:?}"));
        }
        joined.push(ms(took));
        server.shutdown()?;
    }
    let stats = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (super::bench::percentile(v, 0.5), super::bench::percentile(v, 1.0))
    };
    let (q50, qmax) = stats(&mut quiet);
    let (j50, jmax) = stats(&mut joined);
    writeln!(
        out,
        "solver job cancelled by a close: CPU quiet after median {q50:.0} ms, max {qmax:.0} ms ({rounds} rounds; /proc ticks are 10 ms)  [< 100 ms]"
    )
    .map_err(|e| e.to_string())?;
    writeln!(
        out,
        "shutdown during a solver job: answered, its threads joined, after median {j50:.0} ms, max {jmax:.0} ms; exit code 0 in {rounds} of {rounds}"
    )
    .map_err(|e| e.to_string())
}
