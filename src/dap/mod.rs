//! `mend dap`: a Debug Adapter Protocol server over mend's own interpreter (never native
//! execution), with Wolverine2's debug–repair loop: the student pauses the run, looks at the
//! heap as boxes and arrows, corrects the state where it is wrong (`change`), records it as
//! expected (`spec`), and asks for a patch that meets every expectation so far (`repair`),
//! which is applied to the run on the spot (hot-patching) so the session goes on from the
//! same point.
//!
//! Only this module knows DAP. The main thread reads requests from stdin and answers those
//! that need no paused run; the run lives on its own thread ([`session`]) and answers the
//! requests that look at or change its state while it is paused. Both write through one
//! [`Writer`], a whole message at a time. A malformed message gets an answer (or is skipped
//! with a note), never the end of the process.

mod console;
mod session;

use std::io::{Read, Write};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::framing::{Frame, framed, next_frame};

/// One request from the client.
#[derive(Clone, Debug)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    pub arguments: Value,
}

/// The client's end: every message goes out whole, numbered in order.
pub struct Writer {
    out: Mutex<Box<dyn Write + Send>>,
    seq: AtomicI64,
}

impl Writer {
    pub fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer { out: Mutex::new(out), seq: AtomicI64::new(1) }
    }

    fn send(&self, mut message: Value) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // The number is taken under the lock so messages go out in their numbers' order.
        message["seq"] = json!(self.seq.fetch_add(1, Ordering::SeqCst));
        let body = serde_json::to_vec(&message).expect("a JSON value serialises");
        let _ = out.write_all(&framed(&body)).and_then(|_| out.flush());
    }

    pub fn respond(&self, req: &Request, result: Result<Value, String>) {
        let mut message = json!({
            "type": "response", "request_seq": req.seq, "command": req.command, "success": result.is_ok(),
        });
        match result {
            Ok(body) => message["body"] = body,
            Err(text) => {
                message["message"] = json!(text);
                message["body"] = json!({ "error": { "id": 1, "format": text, "showUser": true } });
            }
        }
        self.send(message);
    }

    pub fn event(&self, event: &str, body: Value) {
        self.send(json!({ "type": "event", "event": event, "body": body }));
    }

    /// A line in the debug console.
    pub fn console(&self, text: &str) {
        let text = if text.ends_with('\n') { text.to_string() } else { format!("{text}\n") };
        self.event("output", json!({ "category": "console", "output": text }));
    }
}

/// Serves one debugging session on stdin/stdout until the client disconnects or its input
/// ends. Returns the process's exit status.
pub fn serve_stdio() -> i32 {
    let writer = Arc::new(Writer::new(Box::new(std::io::stdout())));
    serve(std::io::stdin().lock(), writer);
    0
}

/// Reads framed requests from `input` and handles them; see the module doc.
pub fn serve(mut input: impl Read, writer: Arc<Writer>) {
    let mut adapter = session::Adapter::new(writer.clone());
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let mut eof = false;
    loop {
        let body = match next_frame(&mut buf) {
            Frame::Complete(body) => body,
            Frame::Garbage(why) => {
                writer.console(&format!("mend skipped {why} from the editor."));
                continue;
            }
            Frame::Incomplete if eof => break,
            Frame::Incomplete => match input.read(&mut chunk) {
                Ok(0) | Err(_) => {
                    eof = true;
                    continue;
                }
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    continue;
                }
            },
        };
        let Some(req) = parse_request(&body, &writer) else { continue };
        if !adapter.handle(req) {
            break;
        }
    }
    adapter.end();
}

/// The request in a message body; anything else is answered or noted, and `None`.
fn parse_request(body: &[u8], writer: &Writer) -> Option<Request> {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        writer.console("mend could not read a message from the editor (it is not JSON); it was skipped.");
        return None;
    };
    let command = value.get("command").and_then(Value::as_str);
    let seq = value.get("seq").and_then(Value::as_i64);
    match (value.get("type").and_then(Value::as_str), command, seq) {
        (Some("request"), Some(command), Some(seq)) => Some(Request {
            seq,
            command: command.to_string(),
            arguments: value.get("arguments").cloned().unwrap_or(Value::Null),
        }),
        // Replies to reverse requests (mend makes none) and events from the client.
        (Some("response" | "event"), _, _) => None,
        (_, command, Some(seq)) => {
            let req = Request { seq, command: command.unwrap_or("").to_string(), arguments: Value::Null };
            writer.respond(&req, Err("mend could not read this request".into()));
            None
        }
        _ => {
            writer.console("mend skipped a message from the editor that is not a request.");
            None
        }
    }
}
