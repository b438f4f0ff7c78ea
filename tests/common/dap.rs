//! A Debug Adapter Protocol client for end-to-end tests: spawns `mend dap`, runs a session
//! script and renders what the adapter answered as a transcript (for the `dap` fixtures).
//!
//! A script has one command a line (`#` starts a comment):
//! - `input TEXT` — the program's stdin (a newline is added; before `run`); `test NAME` — the
//!   input of a test of the program's mend.toml instead;
//! - `stop-on-entry`, `break LINE…` — launch options and breakpoints;
//! - `run` — `configurationDone`, then waits for the first stop or the end;
//! - `continue`, `next`, `stepIn`, `stepOut` — and wait for the next stop or the end;
//! - `wait` — waits for the next stop or the end (after a `repair` that applies a fix);
//! - `stack`, `locals`, `globals`, `expand NAME` (a local of the innermost frame), `heap-graph`;
//! - `set NAME VALUE` — `setVariable` on a local of the innermost frame;
//! - `> LINE` — a debug-console line (`evaluate` in the `repl` context); `hover EXPR`.
//! - `raw JSON` — a message body sent as is (bad input); `garbage TEXT` — bytes sent as is.
#![allow(dead_code)]

use std::io::{BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_mend");
/// Far beyond what any scripted step takes; only a hung adapter reaches it.
const TIMEOUT: Duration = Duration::from_secs(120);

pub struct Adapter {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    seq: i64,
    /// The run has ended (nothing more will stop).
    ended: bool,
    /// The transcript so far.
    pub out: String,
}

impl Adapter {
    pub fn spawn() -> Adapter {
        let mut child = Command::new(BIN)
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mend dap starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(body) = mend::framing::read_frame(&mut r) {
                let Ok(v) = serde_json::from_slice(&body) else { break };
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Adapter { child, stdin, rx, seq: 1, ended: false, out: String::new() }
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        let seq = self.seq;
        self.seq += 1;
        let msg = json!({ "seq": seq, "type": "request", "command": command, "arguments": arguments });
        self.send_bytes(&mend::framing::framed(msg.to_string().as_bytes()));
        seq
    }

    fn next(&mut self) -> Option<Value> {
        match self.rx.recv_timeout(TIMEOUT) {
            Ok(v) => Some(v),
            Err(RecvTimeoutError::Timeout) => panic!("mend dap said nothing for {TIMEOUT:?}\n{}", self.out),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Sends a request and returns its response; events that come first are rendered.
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let Some(m) = self.next() else { panic!("mend dap ended before answering `{command}`\n{}", self.out) };
            if m["type"] == "response" && m["request_seq"] == seq {
                return m;
            }
            self.render_message(&m);
        }
    }

    /// Renders messages up to and including the next stop or the end of the run.
    pub fn wait(&mut self) {
        if self.ended {
            self.out += "  (the run has ended: nothing to wait for)\n";
            return;
        }
        while let Some(m) = self.next() {
            self.render_message(&m);
            if m["type"] == "event" && (m["event"] == "stopped" || m["event"] == "terminated") {
                if m["event"] == "stopped" {
                    self.render_top_frame();
                }
                return;
            }
        }
        self.out += "  (the adapter ended)\n";
    }

    fn render_top_frame(&mut self) {
        let r = self.request("stackTrace", json!({ "threadId": 1 }));
        if let Some(f) = r["body"]["stackFrames"].get(0) {
            self.out += &format!(
                "  at {} line {} ({})\n",
                f["name"].as_str().unwrap_or(""),
                f["line"],
                f["source"]["name"].as_str().unwrap_or("")
            );
        }
    }

    fn render_message(&mut self, m: &Value) {
        if m["type"] == "response" {
            let how = if m["success"] == true {
                "ok".to_string()
            } else {
                format!("error: {}", m["message"].as_str().unwrap_or(""))
            };
            self.out += &format!("  (the answer to request {}: {how})\n", m["request_seq"]);
            return;
        }
        let body = &m["body"];
        match m["event"].as_str().unwrap_or("") {
            "output" => {
                let category = body["category"].as_str().unwrap_or("");
                for line in body["output"].as_str().unwrap_or("").lines() {
                    self.out += &format!("  {category}| {line}\n");
                }
            }
            "stopped" => {
                let why = body["description"].as_str().map(|d| format!(": {d}")).unwrap_or_default();
                self.out += &format!("  stopped ({}){why}\n", body["reason"].as_str().unwrap_or(""));
            }
            "exited" => self.out += &format!("  exited with {}\n", body["exitCode"]),
            "terminated" => {
                self.ended = true;
                self.out += "  terminated\n";
            }
            "initialized" => {}
            "mend/patch" => {
                let text = body["text"].as_str().unwrap_or("");
                self.out += &format!(
                    "  patch: {} edit(s); the patched line(s):\n",
                    body["edits"].as_array().map_or(0, Vec::len)
                );
                let edits = body["edits"].as_array().cloned().unwrap_or_default();
                let mut shift: i64 = 0;
                for e in edits {
                    let start = (e["start"].as_i64().unwrap_or(0) + shift) as usize;
                    let new_len = e["newText"].as_str().unwrap_or("").len();
                    let line_start = text[..start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
                    let end = start + new_len;
                    let line_end = text[end.min(text.len())..].find('\n').map_or(text.len(), |i| end + i);
                    for l in text[line_start..line_end].lines() {
                        self.out += &format!("    | {}\n", l.trim());
                    }
                    shift += new_len as i64 - (e["end"].as_i64().unwrap_or(0) - e["start"].as_i64().unwrap_or(0));
                }
            }
            other => self.out += &format!("  event {other}\n"),
        }
    }

    fn fail_or(&mut self, r: &Value) -> bool {
        if r["success"] == false {
            self.out += &format!("  error: {}\n", r["message"].as_str().unwrap_or(""));
            return true;
        }
        false
    }

    fn variables(&mut self, reference: &Value) -> Vec<Value> {
        let r = self.request("variables", json!({ "variablesReference": reference }));
        self.fail_or(&r);
        r["body"]["variables"].as_array().cloned().unwrap_or_default()
    }

    fn render_variables(&mut self, vars: &[Value]) {
        for v in vars {
            let opens = if v["variablesReference"].as_i64().unwrap_or(0) > 0 { " [+]" } else { "" };
            self.out += &format!(
                "  {}: {} = {}{opens}\n",
                v["name"].as_str().unwrap_or(""),
                v["type"].as_str().unwrap_or(""),
                v["value"].as_str().unwrap_or("")
            );
        }
    }

    fn scope(&mut self, index: usize) -> Value {
        let r = self.request("scopes", json!({ "frameId": 1 }));
        if self.fail_or(&r) {
            return Value::Null;
        }
        r["body"]["scopes"][index]["variablesReference"].clone()
    }

    /// Runs `script` on the program at `program` and returns the transcript.
    pub fn run_script(mut self, program: &Path, script: &str) -> String {
        self.request("initialize", json!({ "adapterID": "mend", "linesStartAt1": true, "columnsStartAt1": true }));
        let mut input = String::new();
        let mut test = None;
        let mut stop_on_entry = false;
        let mut launched = false;
        for line in script.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            self.out += &format!("$ {line}\n");
            let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
            if !launched && !matches!(command, "input" | "test" | "stop-on-entry" | "raw" | "garbage") {
                launched = true;
                let mut args = json!({ "program": program, "input": input, "stopOnEntry": stop_on_entry });
                if let Some(name) = &test {
                    args["test"] = json!(name);
                }
                let r = self.request("launch", args);
                if self.fail_or(&r) {
                    continue;
                }
            }
            match command {
                "input" => input = format!("{rest}\n"),
                "test" => test = Some(rest.to_string()),
                "stop-on-entry" => stop_on_entry = true,
                "break" => {
                    let lines: Vec<Value> =
                        rest.split_whitespace().map(|l| json!({ "line": l.parse::<u32>().expect("a line") })).collect();
                    let r =
                        self.request("setBreakpoints", json!({ "source": { "path": program }, "breakpoints": lines }));
                    for b in r["body"]["breakpoints"].as_array().cloned().unwrap_or_default() {
                        let verified = if b["verified"] == true { "set" } else { "not set" };
                        let why = b["message"].as_str().map(|m| format!(": {m}")).unwrap_or_default();
                        self.out += &format!("  line {}: {verified}{why}\n", b["line"]);
                    }
                }
                "run" => {
                    let r = self.request("configurationDone", json!({}));
                    self.fail_or(&r);
                    self.wait();
                }
                "continue" | "next" | "stepIn" | "stepOut" => {
                    let r = self.request(command, json!({ "threadId": 1 }));
                    self.fail_or(&r);
                    self.wait();
                }
                "wait" => self.wait(),
                "stack" => {
                    let r = self.request("stackTrace", json!({ "threadId": 1 }));
                    if !self.fail_or(&r) {
                        for f in r["body"]["stackFrames"].as_array().cloned().unwrap_or_default() {
                            self.out += &format!(
                                "  {} line {} column {}\n",
                                f["name"].as_str().unwrap_or(""),
                                f["line"],
                                f["column"]
                            );
                        }
                    }
                }
                "locals" | "globals" => {
                    let reference = self.scope(usize::from(command == "globals"));
                    if !reference.is_null() {
                        let vars = self.variables(&reference);
                        self.render_variables(&vars);
                    }
                }
                "expand" => {
                    let reference = self.scope(0);
                    let vars = self.variables(&reference);
                    match vars.iter().find(|v| v["name"] == rest) {
                        Some(v) => {
                            let inner = self.variables(&v["variablesReference"].clone());
                            self.render_variables(&inner);
                        }
                        None => self.out += "  (no such local)\n",
                    }
                }
                "set" => {
                    let (name, value) = rest.split_once(' ').expect("set NAME VALUE");
                    let reference = self.scope(0);
                    let r = self.request(
                        "setVariable",
                        json!({ "variablesReference": reference, "name": name, "value": value }),
                    );
                    if !self.fail_or(&r) {
                        self.out += &format!("  {name} = {}\n", r["body"]["value"].as_str().unwrap_or(""));
                    }
                }
                ">" | "hover" => {
                    let context = if command == ">" { "repl" } else { "hover" };
                    let r = self.request("evaluate", json!({ "expression": rest, "context": context, "frameId": 1 }));
                    if !self.fail_or(&r) {
                        for l in r["body"]["result"].as_str().unwrap_or("").lines() {
                            self.out += &format!("  {l}\n");
                        }
                    }
                }
                "heap-graph" => {
                    let r = self.request("mendHeap", json!({ "frameId": 1 }));
                    if !self.fail_or(&r) {
                        for l in r["body"]["dot"].as_str().unwrap_or("").lines() {
                            self.out += &format!("  {l}\n");
                        }
                    }
                }
                "raw" => {
                    self.send_bytes(&mend::framing::framed(rest.as_bytes()));
                    let r = self.request("threads", json!({}));
                    self.fail_or(&r);
                }
                "garbage" => {
                    self.send_bytes(rest.as_bytes());
                    let r = self.request("threads", json!({}));
                    self.fail_or(&r);
                }
                other => panic!("unknown script command `{other}`"),
            }
        }
        self.out += "$ (disconnect)\n";
        let r = self.request("disconnect", json!({}));
        self.fail_or(&r);
        let status = self.child.wait().expect("mend dap exits");
        self.out += &format!("  mend dap exited: {}\n", if status.success() { "ok" } else { "FAILED" });
        self.out
    }
}
