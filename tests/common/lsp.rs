//! A small JSON-RPC/LSP client for end-to-end tests: spawns `mend lsp`, frames messages with
//! Content-Length, matches responses to requests, answers the server's own requests, and
//! collects notifications with timeouts.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_mend");

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/e2e").join(name)
}

/// A fresh empty directory under the target dir (removed at the start of the next run).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mend-e2e-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// What the server sent, in arrival order.
pub enum Incoming {
    Notification { method: String, params: Value },
    Response { id: i64, body: Value },
    Request { method: String, params: Value },
}

pub struct Server {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: Receiver<Incoming>,
    next_id: i64,
    /// Notifications and server requests received but not consumed yet.
    pub pending: VecDeque<Incoming>,
    /// Every notification seen (for history checks such as version monotonicity).
    pub history: Vec<(String, Value)>,
    pub stderr: Arc<Mutex<String>>,
}

fn write_frame(w: &mut impl Write, msg: &Value) -> std::io::Result<()> {
    w.write_all(&mend::cli::bench_server::frame(msg))?;
    w.flush()
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    mend::cli::bench_server::read_message(r)
}

impl Server {
    /// Spawns `mend lsp` and sends `initialize` + `initialized`; returns the initialize result.
    pub fn start(capabilities: Value, options: Value) -> (Server, Value) {
        Server::start_with_hooks(capabilities, options, None)
    }

    /// [`Server::start`] with test hooks (`mend lsp --test-hooks SPEC`, e.g. `delay=400`).
    pub fn start_with_hooks(capabilities: Value, options: Value, hooks: Option<&str>) -> (Server, Value) {
        let mut s = Server::spawn(hooks);
        let result = s.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": capabilities,
                "initializationOptions": options,
            }),
        );
        let result = result.get("result").cloned().unwrap_or_else(|| panic!("initialize failed: {result}"));
        s.notify("initialized", json!({}));
        (s, result)
    }

    pub fn spawn(hooks: Option<&str>) -> Server {
        let mut child = Command::new(BIN)
            .arg("lsp")
            .args(hooks.map(|h| format!("--test-hooks={h}")))
            .env("MEND_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mend lsp");
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let stderr = stderr.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr_pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    stderr.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        let (tx, rx) = channel();
        let answer = stdin.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut reader) {
                let method = msg.get("method").and_then(Value::as_str).map(str::to_string);
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let incoming = match (method, msg.get("id")) {
                    (Some(method), Some(id)) => {
                        // The server asks something: answer at once so it never waits on us.
                        let result = match method.as_str() {
                            "workspace/configuration" => json!([null]),
                            "workspace/applyEdit" => json!({ "applied": true }),
                            _ => Value::Null,
                        };
                        let reply = json!({ "jsonrpc": "2.0", "id": id, "result": result });
                        let _ = write_frame(&mut *answer.lock().unwrap(), &reply);
                        Incoming::Request { method, params }
                    }
                    (Some(method), None) => Incoming::Notification { method, params },
                    (None, Some(id)) => Incoming::Response { id: id.as_i64().unwrap_or(-1), body: msg.clone() },
                    (None, None) => continue,
                };
                if tx.send(incoming).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, rx, next_id: 1, pending: VecDeque::new(), history: Vec::new(), stderr }
    }

    pub fn send(&mut self, msg: &Value) {
        write_frame(&mut *self.stdin.lock().unwrap(), msg).expect("write to server");
    }

    /// Sends bytes as they are (framing included, or not).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let mut w = self.stdin.lock().unwrap();
        w.write_all(bytes).expect("write to server");
        w.flush().expect("flush");
    }

    /// Sends `body` in one frame, whatever it holds.
    pub fn send_body(&mut self, body: &[u8]) {
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(body);
        self.send_raw(&framed);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Sends a request and waits (10 s) for its response (the whole message: `result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no response to {method} within 10 s; stderr:\n{}", self.stderr()))
    }

    /// The server's resident memory in kB.
    pub fn rss_kb(&self) -> u64 {
        mend::cli::bench_server::memory_kb(self.child.id(), "VmRSS").expect("/proc status")
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn recv(&mut self, deadline: Instant) -> Option<Incoming> {
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        match self.rx.recv_timeout(deadline - now) {
            Ok(msg) => {
                match &msg {
                    Incoming::Notification { method, params } | Incoming::Request { method, params } => {
                        self.history.push((method.clone(), params.clone()))
                    }
                    Incoming::Response { .. } => {}
                }
                Some(msg)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Waits for the response to `id`, queueing whatever else arrives.
    pub fn response(&mut self, id: i64, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.recv(deadline)? {
                Incoming::Response { id: got, body } if got == id => return Some(body),
                Incoming::Response { .. } => {}
                other => self.pending.push_back(other),
            }
        }
    }

    /// Removes and returns the first queued or incoming notification/request with `method`
    /// whose params satisfy `pred`; other messages stay queued.
    pub fn wait_for(&mut self, method: &str, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let matches = |msg: &Incoming| match msg {
            Incoming::Notification { method: m, params } | Incoming::Request { method: m, params } => {
                m == method && pred(params)
            }
            Incoming::Response { .. } => false,
        };
        if let Some(i) = self.pending.iter().position(matches) {
            match self.pending.remove(i) {
                Some(Incoming::Notification { params, .. } | Incoming::Request { params, .. }) => return Some(params),
                _ => unreachable!(),
            }
        }
        let deadline = Instant::now() + timeout;
        loop {
            let msg = self.recv(deadline)?;
            if matches(&msg)
                && let Incoming::Notification { params, .. } | Incoming::Request { params, .. } = msg
            {
                return Some(params);
            }
            self.pending.push_back(msg);
        }
    }

    /// Waits until a `publishDiagnostics` for `uri` with `version` has arrived and then no other
    /// one for `uri` for `quiet`; returns the last one received for `uri`.
    pub fn settled_diagnostics(&mut self, uri: &str, version: i64, quiet: Duration, timeout: Duration) -> Value {
        let for_uri = |p: &Value| p["uri"] == uri;
        let publication = |m: &Incoming| matches!(m, Incoming::Notification { method, params } if method == "textDocument/publishDiagnostics" && for_uri(params));
        // Publications of `uri` stashed before the awaited one are older: they must not be
        // taken for later ones.
        let stashed = self.pending.iter().position(|m| {
            publication(m) && matches!(m, Incoming::Notification { params, .. } if params["version"] == version)
        });
        let mut last = self
            .wait_for("textDocument/publishDiagnostics", timeout, |p| for_uri(p) && p["version"] == version)
            .unwrap_or_else(|| panic!("no diagnostics for {uri} v{version}; stderr:\n{}", self.stderr()));
        let before = stashed.unwrap_or(self.pending.len());
        let mut index = 0;
        self.pending.retain(|m| {
            index += 1;
            index > before || !publication(m)
        });
        while let Some(next) = self.wait_for("textDocument/publishDiagnostics", quiet, for_uri) {
            last = next;
        }
        last
    }

    /// Every `publishDiagnostics` params seen so far for `uri`, in order.
    pub fn published(&self, uri: &str) -> Vec<Value> {
        self.history
            .iter()
            .filter(|(m, p)| m == "textDocument/publishDiagnostics" && p["uri"] == uri)
            .map(|(_, p)| p.clone())
            .collect()
    }

    pub fn open(&mut self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "c", "version": version, "text": text } }),
        );
    }

    pub fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
        );
    }

    /// `shutdown` then `exit`; returns the exit status.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let reply = self.request("shutdown", Value::Null);
        assert!(reply.get("error").is_none(), "shutdown failed: {reply}");
        self.notify("exit", Value::Null);
        self.wait_exit(Duration::from_secs(10))
    }

    pub fn wait_exit(mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not exit; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server still answers a request promptly.
    pub fn is_responsive(&mut self, uri: &str) -> bool {
        let id = self.send_request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 0 } }),
        );
        self.response(id, Duration::from_secs(20)).is_some_and(|r| r.get("result").is_some())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `(line, character)` position in `enc` ("utf-8" or "utf-16") → byte offset in `text`.
pub fn offset_of(text: &str, line: u64, character: u64, enc: &str) -> usize {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n').expect("line exists") + 1;
    }
    let line_text = &text[start..start + text[start..].find('\n').unwrap_or(text.len() - start)];
    let mut units = 0u64;
    for (i, c) in line_text.char_indices() {
        if units >= character {
            return start + i;
        }
        units += if enc == "utf-8" { c.len_utf8() } else { c.len_utf16() } as u64;
    }
    start + line_text.len()
}

/// The position of byte `offset` in `enc`.
pub fn position_of(text: &str, offset: usize, enc: &str) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u64;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = &text[line_start..offset];
    let character = if enc == "utf-8" { col.len() } else { col.encode_utf16().count() } as u64;
    (line, character)
}

pub fn range(sl: u64, sc: u64, el: u64, ec: u64) -> Value {
    json!({ "start": { "line": sl, "character": sc }, "end": { "line": el, "character": ec } })
}

/// Applies one LSP content change (or `TextEdit`) to a local copy of the text.
pub fn apply_change(text: &mut String, change: &Value, enc: &str) {
    let new_text = change.get("text").or(change.get("newText")).and_then(Value::as_str).expect("text or newText");
    match change.get("range") {
        None => *text = new_text.to_string(),
        Some(r) => {
            let a =
                offset_of(text, r["start"]["line"].as_u64().unwrap(), r["start"]["character"].as_u64().unwrap(), enc);
            let b = offset_of(text, r["end"]["line"].as_u64().unwrap(), r["end"]["character"].as_u64().unwrap(), enc);
            text.replace_range(a..b, new_text);
        }
    }
}

/// `(range, severity, code, message)` of LSP diagnostics, for comparisons.
pub fn lsp_diag_keys(diags: &Value) -> Vec<(Value, String, String, String)> {
    let sev = |n: &Value| match n.as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "information",
        Some(4) => "hint",
        _ => "?",
    };
    diags
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["range"].clone(),
                sev(&d["severity"]).to_string(),
                d["code"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The same keys from a `mend check --format json` object.
pub fn cli_diag_keys(report: &Value) -> Vec<(Value, String, String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["range"].clone(),
                d["severity"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Runs `mend check --format json` on one file and parses its single output line.
pub fn cli_check_json(path: &Path) -> Value {
    let out = Command::new(BIN).args(["check", "--format", "json"]).arg(path).output().expect("run mend check");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line =
        stdout.lines().next().unwrap_or_else(|| panic!("no output; stderr: {}", String::from_utf8_lossy(&out.stderr)));
    serde_json::from_str(line).expect("one JSON object per line")
}
