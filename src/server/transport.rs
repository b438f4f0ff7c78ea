//! The wire between the editor and the LSP service, hardened: any byte stream a client sends
//! leaves the server running.
//!
//! tower-lsp-server's own reader stops for good at the first message it cannot decode (its
//! framed stream ends after an error), so a body that is not JSON or one invalid byte ended the
//! process. This layer reads stdin itself and hands the service only well-formed messages:
//!
//! * **Framing.** `Content-Length` headers; bytes that do not form a header are skipped up to
//!   the next `Content-Length` (resynchronisation), with a parse error answered once.
//! * **JSON-RPC.** A body that is not JSON gets `-32700 Parse error`; a message that is not an
//!   object, has an `id` that is neither an integer nor a string, or has no `method` and no
//!   result, gets `-32600 Invalid Request` (id `null`, as the JSON-RPC spec says when the id
//!   cannot be read). A request whose method starts with `$/` gets `-32601 Method not found`
//!   (the service ignores them without an answer).
//! * **Invalid UTF-8.** The body is decoded lossily to read it. A request gets a parse error
//!   with its id. An edit (`didChange`) is not applied: the document keeps its last good text
//!   and is marked out of sync ([`EDIT_NOT_APPLIED`]), which tells the user and asks for a
//!   reopen; a `didOpen` opens the lossily decoded text, marked the same way. Any other
//!   notification is dropped, and the client is told in a message.
//! * **Unreadable edits.** A `didChange` the service could not deserialise (a position beyond
//!   32 bits, a missing field) would be dropped without a word and the texts would drift: it
//!   is marked the same way.
//!
//! Everything written to stdout goes through one lock, a whole frame at a time, so the
//! answers written here never interleave with the service's.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tracing::warn;

use crate::framing::{Frame, framed, next_frame};

/// The custom notification this layer sends the service for an edit it could not read (not
/// valid UTF-8, or not a valid `didChange`): `{ uri, reason }`.
pub const EDIT_NOT_APPLIED: &str = "mend/editNotApplied";

/// Where frames go: the client's stdout, one whole frame at a time.
pub type Output = Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// Writes `body` as one frame.
pub async fn write_frame(out: &Output, body: &[u8]) {
    let mut w = out.lock().await;
    let ok = w.write_all(&framed(body)).await.is_ok() && w.flush().await.is_ok();
    if !ok {
        warn!("the client's output closed");
    }
}

async fn send_json(out: &Output, v: &Value) {
    write_frame(out, &serde_json::to_vec(v).expect("a JSON value serialises")).await;
}

async fn error_response(out: &Output, id: Value, code: i64, message: &str) {
    send_json(out, &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })).await;
}

async fn tell_user(out: &Output, message: &str) {
    send_json(
        out,
        &json!({ "jsonrpc": "2.0", "method": "window/showMessage", "params": { "type": 2, "message": message } }),
    )
    .await;
}

/// What one frame's body is, once read.
enum Body {
    /// Forward these messages to the service, in order.
    Forward(Vec<Vec<u8>>),
    /// Answered or reported here; nothing goes to the service.
    Handled,
}

/// Reads frames from `input` until it ends, forwarding good messages to `service` (as frames)
/// and answering bad ones on `out`.
pub async fn pump(mut input: impl AsyncRead + Unpin, mut service: impl AsyncWrite + Unpin, out: Output) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let mut eof = false;
    loop {
        // One frame: headers, then the body.
        let frame = loop {
            match next_frame(&mut buf) {
                Frame::Complete(body) => break Some(body),
                Frame::Garbage(why) => {
                    warn!("unreadable bytes from the client skipped: {why}");
                    error_response(&out, Value::Null, -32700, &format!("Parse error: {why}")).await;
                }
                Frame::Incomplete if eof => break None,
                Frame::Incomplete => match input.read(&mut chunk).await {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                },
            }
        };
        let Some(body) = frame else { break };
        // A large message (a 10 MB didOpen) must not keep its buffer's memory.
        if buf.capacity() > 1 << 20 && buf.len() < 1 << 16 {
            buf.shrink_to(64 << 10);
        }
        match classify(body, &out).await {
            Body::Forward(messages) => {
                for bytes in messages {
                    let header = format!("Content-Length: {}\r\n\r\n", bytes.len());
                    if service.write_all(header.as_bytes()).await.is_err() || service.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                let _ = service.flush().await;
            }
            Body::Handled => {}
        }
    }
    let _ = service.shutdown().await;
}

/// Copies the service's frames to `out`, each whole (the service writes well-formed frames),
/// until the service's output ends.
pub async fn relay(mut from_service: impl AsyncRead + Unpin, out: Output) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        while let Frame::Complete(body) = next_frame(&mut buf) {
            write_frame(&out, &body).await;
        }
        match from_service.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The members of a message this layer checks. The rest (`params`, which may hold a 10 MB
/// text) is skipped without being built: the service decodes it once.
#[derive(serde::Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "member")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "member")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "member")]
    result: Option<serde::de::IgnoredAny>,
    #[serde(default, deserialize_with = "member")]
    error: Option<serde::de::IgnoredAny>,
}

/// A member that is present, even as `null` (plain `Option` reads `null` as absent).
fn member<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Checks one body and answers what the service must not see.
async fn classify(body: Vec<u8>, out: &Output) -> Body {
    let (text, utf8) = match String::from_utf8(body) {
        Ok(s) => (s, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    };
    let envelope: Envelope = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            error_response(out, Value::Null, -32600, "Invalid Request: a message must be a JSON object").await;
            return Body::Handled;
        }
        Err(e) => {
            warn!("a message from the client is not JSON: {e}");
            error_response(out, Value::Null, -32700, &format!("Parse error: {e}")).await;
            return Body::Handled;
        }
    };
    let Envelope { id, method, result, error } = envelope;
    let id_ok = match &id {
        None | Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    let is_response = result.is_some() || error.is_some();
    let method_ok = match &method {
        None => is_response,
        Some(m) => m.is_string(),
    };
    if !id_ok || !method_ok {
        error_response(
            out,
            Value::Null,
            -32600,
            "Invalid Request: the id must be an integer or a string, the method a string",
        )
        .await;
        return Body::Handled;
    }
    let method = method.as_ref().and_then(Value::as_str);
    if !utf8 {
        let value = serde_json::from_str(&text).unwrap_or(Value::Null);
        return not_utf8(&value, method, id, out).await;
    }
    if let (Some(m), Some(id)) = (method, &id)
        && m.starts_with("$/")
    {
        error_response(out, id.clone(), -32601, &format!("Method not found: {m}")).await;
        return Body::Handled;
    }
    if method == Some("textDocument/didChange") {
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if let Err(e) = serde_json::from_value::<tower_lsp_server::ls_types::DidChangeTextDocumentParams>(
            value.get("params").cloned().unwrap_or(Value::Null),
        ) {
            warn!("an unreadable didChange: {e}");
            return match value.pointer("/params/textDocument/uri") {
                Some(uri) => Body::Forward(vec![edit_not_applied(uri.clone(), &format!("it could not be read ({e})"))]),
                None => {
                    tell_user(out, &format!("mend received an edit it could not read ({e}); reopen the file.")).await;
                    Body::Handled
                }
            };
        }
    }
    Body::Forward(vec![text.into_bytes()])
}

/// The [`EDIT_NOT_APPLIED`] notification for `uri`.
fn edit_not_applied(uri: Value, reason: &str) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "method": EDIT_NOT_APPLIED, "params": { "uri": uri, "reason": reason } })
        .to_string()
        .into_bytes()
}

/// A message that was not valid UTF-8 (decoded lossily into `value`).
async fn not_utf8(value: &Value, method: Option<&str>, id: Option<Value>, out: &Output) -> Body {
    let uri = value.pointer("/params/textDocument/uri").cloned();
    warn!("a message from the client is not valid UTF-8 ({})", method.unwrap_or("a response"));
    if let Some(id) = id
        && method.is_some()
    {
        error_response(out, id, -32700, "Parse error: the message is not valid UTF-8").await;
        return Body::Handled;
    }
    let marker = |uri: Value| edit_not_applied(uri, "it was not valid UTF-8");
    match (method, uri) {
        // The edit is not applied; the service marks the document out of sync.
        (Some("textDocument/didChange"), Some(uri)) => Body::Forward(vec![marker(uri)]),
        // Opened with the lossy text, then marked out of sync: two messages, in order.
        (Some("textDocument/didOpen"), Some(uri)) => Body::Forward(vec![value.to_string().into_bytes(), marker(uri)]),
        (m, _) => {
            tell_user(
                out,
                &format!(
                    "mend received a message it could not read (`{}`: not valid UTF-8) and ignored it.",
                    m.unwrap_or("a response")
                ),
            )
            .await;
            Body::Handled
        }
    }
}
