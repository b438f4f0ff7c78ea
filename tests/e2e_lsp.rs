//! End-to-end: the real `mend lsp` binary over stdio.

#[path = "common/lsp.rs"]
mod lsp;

use std::time::Duration;

use lsp::*;
use serde_json::{Value, json};

const SEC: Duration = Duration::from_secs(1);

fn utf16_client() -> Value {
    json!({ "window": { "workDoneProgress": true } })
}

/// The final diagnostics after a burst of 50 unawaited edits are those of the final text (as
/// `mend check` computes them), and no publication ever goes back to an older version.
#[test]
fn burst_of_edits_publishes_the_final_versions_result() {
    let dir = temp_dir("burst");
    let path = dir.join("sum.c");
    let mut text = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    std::fs::write(&path, &text).unwrap();
    let uri = file_uri(&path);

    let (mut s, _) = Server::start(utf16_client(), json!({ "mend": { "debounceMs": 100 } }));
    s.open(&uri, &text, 1);

    // Line 9 is `    printf("%d\n", sum);`, line 5 `    int sum = 0` (no `;`).
    let mut edits: Vec<Value> = Vec::new();
    // 1..=21: type a statement character by character in front of the printf.
    for (k, c) in "    sum = sum * 2;\n".chars().enumerate() {
        let k = k as u64;
        edits.push(json!([{ "range": range(9, k, 9, k), "text": c.to_string() }]));
    }
    // The printf is now line 10. Introduce a syntax error (drop its `)`), then repair it.
    edits.push(json!([{ "range": range(10, 26, 10, 27), "text": "" }]));
    edits.push(json!([{ "range": range(6, 4, 6, 4), "text": "((" }]));
    edits.push(json!([{ "range": range(6, 0, 6, 6), "text": "    " }]));
    edits.push(json!([{ "range": range(10, 26, 10, 26), "text": ")" }]));
    // Fix the missing `;` and break it again later.
    edits.push(json!([{ "range": range(5, 15, 5, 15), "text": ";" }]));
    // Two changes in one notification.
    edits.push(json!([
        { "range": range(3, 4, 3, 9), "text": "long n" },
        { "range": range(3, 4, 3, 8), "text": "int" },
    ]));
    // A multi-line replacement and its undo.
    edits.push(json!([{ "range": range(7, 0, 9, 0), "text": "        sum = sum + i;\n    }\n" }]));
    edits.push(json!([{ "range": range(0, 0, 0, 0), "text": "/* header */\n" }]));
    edits.push(json!([{ "range": range(0, 0, 1, 0), "text": "" }]));
    // Typing and deleting a character, then a trailing space: 49 notifications so far.
    while edits.len() < 48 {
        edits.push(json!([{ "range": range(11, 4, 11, 4), "text": "x" }]));
        edits.push(json!([{ "range": range(11, 4, 11, 5), "text": "" }]));
    }
    edits.push(json!([{ "range": range(11, 13, 11, 13), "text": " " }]));
    // 50: remove the `;` again: the final text has exactly one missing `;`.
    edits.push(json!([{ "range": range(5, 15, 5, 16), "text": "" }]));
    assert_eq!(edits.len(), 50);

    for (i, changes) in edits.iter().enumerate() {
        for c in changes.as_array().unwrap() {
            apply_change(&mut text, c, "utf-16");
        }
        s.change(&uri, i as i64 + 2, changes.clone());
    }
    let final_version = 51;

    let last = s.settled_diagnostics(&uri, final_version, 2 * SEC, 30 * SEC);
    assert_eq!(last["version"], final_version, "last publication is for the final version");

    std::fs::write(&path, &text).unwrap();
    let cli = cli_check_json(&path);
    assert_eq!(lsp_diag_keys(&last["diagnostics"]), cli_diag_keys(&cli), "server vs mend check on:\n{text}");
    let keys = cli_diag_keys(&cli);
    assert!(keys.iter().any(|k| k.3.contains(';')), "the final text misses a `;`: {keys:?}");

    let versions: Vec<i64> = s.published(&uri).iter().map(|p| p["version"].as_i64().unwrap()).collect();
    assert!(versions.windows(2).all(|w| w[0] <= w[1]), "publications went back in time: {versions:?}");

    let status = s.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

/// The quick fix for a missing `;` inserts it where the diagnostic is.
#[test]
fn code_action_inserts_the_missing_semicolon() {
    let text = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/missing_semi.c";
    let (mut s, _) = Server::start(json!({}), json!({}));
    s.open(uri, &text, 1);
    let published = s.settled_diagnostics(uri, 1, SEC, 10 * SEC);
    let diag = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("`;`"))
        .cloned()
        .unwrap_or_else(|| panic!("no missing-`;` diagnostic in {published}"));
    // The diagnostic covers the token before the gap; the fix inserts after it.
    assert_eq!(diag["range"], range(5, 14, 5, 15));

    let reply = s.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": diag["range"],
            "context": { "diagnostics": [diag] },
        }),
    );
    let actions = reply["result"].as_array().unwrap_or_else(|| panic!("{reply}"));
    let action = actions.iter().find(|a| a["title"].as_str().unwrap().contains(';')).expect("a `;` fix");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["range"], diag["range"]);
    let edits = action["edit"]["changes"][uri].as_array().expect("edits for the document");
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["range"], range(5, 15, 5, 15));
    assert_eq!(edits[0]["newText"], ";");

    let mut fixed = text.clone();
    apply_change(&mut fixed, &edits[0], "utf-16");
    assert!(fixed.contains("int sum = 0;\n"));

    // Nothing offered away from the error; a non-quickfix kind gets nothing.
    let far = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": range(0, 0, 0, 3), "context": { "diagnostics": [] } }),
    );
    assert_eq!(far["result"], json!([]));
    let refactor = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": diag["range"],
                "context": { "diagnostics": [diag], "only": ["refactor"] } }),
    );
    assert_eq!(refactor["result"], json!([]));

    // With documentChanges support, the edit is tied to the document version.
    drop(s);
    let (mut s, _) = Server::start(json!({ "workspace": { "workspaceEdit": { "documentChanges": true } } }), json!({}));
    s.open(uri, &text, 7);
    s.settled_diagnostics(uri, 7, SEC, 10 * SEC);
    let reply = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": range(5, 15, 5, 15), "context": { "diagnostics": [] } }),
    );
    let change = &reply["result"][0]["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["version"], 7, "{reply}");
    assert_eq!(change["edits"][0]["newText"], ";");
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// UTF-8 is chosen when offered, UTF-16 otherwise; ranges and incoming edit positions on a line
/// with multi-byte characters follow the negotiated encoding.
#[test]
fn position_encoding_negotiation() {
    let text = std::fs::read_to_string(fixture("unicode.c")).unwrap();
    let cli = cli_check_json(&fixture("unicode.c"));
    let cli_diag = &cli["diagnostics"][0];
    let start16 = (
        cli_diag["range"]["start"]["line"].as_u64().unwrap(),
        cli_diag["range"]["start"]["character"].as_u64().unwrap(),
    );
    let error_offset = offset_of(&text, start16.0, start16.1, "utf-16");

    for (offered, expected) in
        [(json!(["utf-8", "utf-16"]), "utf-8"), (json!(["utf-16"]), "utf-16"), (Value::Null, "utf-16")]
    {
        let caps = if offered.is_null() { json!({}) } else { json!({ "general": { "positionEncodings": offered } }) };
        let (mut s, init) = Server::start(caps, json!({}));
        assert_eq!(init["capabilities"]["positionEncoding"], expected);
        let uri = "file:///tmp/mend-e2e/unicode.c";
        s.open(uri, &text, 1);
        let published = s.settled_diagnostics(uri, 1, SEC, 10 * SEC);
        let d = &published["diagnostics"][0];
        let got = (d["range"]["start"]["line"].as_u64().unwrap(), d["range"]["start"]["character"].as_u64().unwrap());
        assert_eq!(got, position_of(&text, error_offset, expected), "{expected}: {published}");
        assert_eq!(d["message"], cli_diag["message"]);

        // Insert the missing `;` right after `x = 1` on the line with multi-byte characters,
        // giving the position in the negotiated encoding: the error goes away only if the
        // server reads the position in that encoding.
        let at = text.find("x = 1").unwrap() + "x = 1".len();
        let (line, character) = position_of(&text, at, expected);
        s.change(uri, 2, json!([{ "range": range(line, character, line, character), "text": ";" }]));
        let after = s.settled_diagnostics(uri, 2, SEC, 10 * SEC);
        assert_eq!(only_nothing_checked(&after), Ok(()), "{expected}: {after}");
        assert_eq!(s.shutdown_and_exit().code(), Some(0));
    }
}

/// A correct file without a spec: its one diagnostic is the hint that nothing but syntax and
/// types was checked.
fn only_nothing_checked(published: &serde_json::Value) -> Result<(), String> {
    let ds = published["diagnostics"].as_array().ok_or("no diagnostics array")?;
    match ds.as_slice() {
        [d] if d["code"] == "nothing-checked" && d["severity"] == 4 => Ok(()),
        _ => Err(format!("expected only the nothing-checked hint: {ds:?}")),
    }
}

/// Invalid edits, huge, random and deeply nested documents, and cancelled requests: the server
/// keeps answering, and exits 0 after shutdown + exit.
#[test]
fn bad_input_keeps_the_server_answering() {
    let (mut s, _) = Server::start(json!({}), json!({}));
    let text = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/bad.c";
    s.open(uri, &text, 1);
    s.settled_diagnostics(uri, 1, SEC / 2, 10 * SEC);

    // A line past the end: the edit is refused, the user is told, the text is kept.
    s.change(uri, 2, json!([{ "range": range(400, 0, 400, 1), "text": "x" }]));
    let refused = s.settled_diagnostics(uri, 2, SEC / 2, 10 * SEC);
    assert_eq!(refused["diagnostics"][0]["code"], "edit-not-applied", "{refused}");
    assert!(s.wait_for("window/showMessage", 5 * SEC, |p| p["type"] == 1).is_some());
    // Later incremental edits cannot be applied to an unknown text: still out of sync.
    s.change(uri, 3, json!([{ "range": range(0, 0, 0, 0), "text": " " }]));
    let still = s.settled_diagnostics(uri, 3, SEC / 2, 10 * SEC);
    assert_eq!(still["diagnostics"][0]["code"], "edit-not-applied");
    assert_eq!(
        s.request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri },
        "range": range(5, 15, 5, 15), "context": { "diagnostics": [] } })
        )["result"],
        json!([])
    );
    // A full-text change brings it back.
    s.change(uri, 4, json!([{ "text": text }]));
    let back = s.settled_diagnostics(uri, 4, SEC / 2, 10 * SEC);
    assert_eq!(back["diagnostics"][0]["range"], range(5, 14, 5, 15), "{back}");
    // End before start, in a notification with a valid first change: nothing is applied.
    s.change(
        uri,
        5,
        json!([
            { "range": range(0, 0, 0, 0), "text": "// ok\n" },
            { "range": range(3, 5, 2, 0), "text": "" },
        ]),
    );
    let refused = s.settled_diagnostics(uri, 5, SEC / 2, 10 * SEC);
    assert_eq!(refused["diagnostics"][0]["code"], "edit-not-applied");
    s.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri } }));
    s.open(uri, &text, 1);
    let reopened = s.settled_diagnostics(uri, 1, SEC / 2, 10 * SEC);
    assert_eq!(reopened["diagnostics"][0]["range"], range(5, 14, 5, 15), "{reopened}");

    // A change to a document that was never opened is ignored.
    s.change("file:///tmp/mend-e2e/never.c", 2, json!([{ "range": range(0, 0, 0, 0), "text": "x" }]));

    // 10 MB document.
    let big_uri = "file:///tmp/mend-e2e/big.c";
    let mut big = String::with_capacity(10 << 20);
    while big.len() < 10 << 20 {
        big.push_str("int f(int x) { return x * 2 + 1; }\n");
    }
    s.open(big_uri, &big, 1);
    assert!(s.is_responsive(big_uri), "no answer after a 10 MB document; stderr:\n{}", s.stderr());
    s.change(big_uri, 2, json!([{ "range": range(3, 0, 3, 0), "text": "int" }]));
    s.settled_diagnostics(big_uri, 2, SEC / 2, 60 * SEC);

    // Random characters (any code point a JSON string can carry).
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let random: String = (0..20_000)
        .filter_map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            char::from_u32((seed % 0x11_0000) as u32).or(Some('\u{fffd}'))
        })
        .collect();
    let random_uri = "file:///tmp/mend-e2e/random.c";
    s.open(random_uri, &random, 1);
    s.settled_diagnostics(random_uri, 1, SEC / 2, 30 * SEC);
    assert!(s.is_responsive(random_uri));

    // 10,000 levels of parentheses.
    let deep = format!("int main(void) {{ return {}1{}; }}\n", "(".repeat(10_000), ")".repeat(10_000));
    let deep_uri = "file:///tmp/mend-e2e/deep.c";
    s.open(deep_uri, &deep, 1);
    s.settled_diagnostics(deep_uri, 1, SEC, 60 * SEC);
    assert!(s.is_responsive(deep_uri), "stderr:\n{}", s.stderr());

    // $/cancelRequest: the request is either answered or cancelled (-32800), never lost, and
    // the server goes on.
    let id = s.send_request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": range(5, 15, 5, 15), "context": { "diagnostics": [] } }),
    );
    s.notify("$/cancelRequest", json!({ "id": id }));
    let reply = s.response(id, 10 * SEC).expect("a response to the cancelled request");
    assert!(reply.get("result").is_some() || reply["error"]["code"] == -32800, "{reply}");
    s.notify("$/cancelRequest", json!({ "id": 9999 }));
    assert!(s.is_responsive(uri));

    // Unknown request and malformed params get errors, not silence.
    let unknown = s.request("mend/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let malformed = s.request("textDocument/codeAction", json!({ "textDocument": 3 }));
    assert_eq!(malformed["error"]["code"], -32602);

    assert!(!s.stderr().contains("panicked"), "stderr:\n{}", s.stderr());
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// `shutdown` then a request → InvalidRequest; `exit` without `shutdown` → exit code 1.
#[test]
fn lifecycle_exit_codes() {
    let (mut s, _) = Server::start(json!({}), json!({}));
    assert!(s.request("shutdown", Value::Null).get("error").is_none());
    let after = s.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": "file:///x.c" }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(after["error"]["code"], -32600, "{after}");
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit(10 * SEC).code(), Some(0));

    let (mut s, _) = Server::start(json!({}), json!({}));
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit(10 * SEC).code(), Some(1));
}

/// With `progressDelayMs: 0` every analysis reports work-done progress (create, begin, end) to
/// a client that supports it; settings changes and `mend.recheck` re-run the analysis.
#[test]
fn progress_settings_and_commands() {
    let text = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/progress.c";
    let (mut s, init) = Server::start(utf16_client(), json!({ "progressDelayMs": 0, "debounceMs": 10 }));
    let commands = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert!(commands.as_array().unwrap().contains(&json!("mend.recheck")), "{init}");
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2);
    s.open(uri, &text, 1);
    let created = s.wait_for("window/workDoneProgress/create", 10 * SEC, |_| true).expect("progress created");
    let token = created["token"].clone();
    assert!(s.wait_for("$/progress", 10 * SEC, |p| p["token"] == token && p["value"]["kind"] == "begin").is_some());
    assert!(s.wait_for("$/progress", 10 * SEC, |p| p["token"] == token && p["value"]["kind"] == "end").is_some());
    s.settled_diagnostics(uri, 1, SEC / 2, 10 * SEC);

    // syntaxDiagnostics off: the syntax error is no longer reported.
    s.notify("workspace/didChangeConfiguration", json!({ "settings": { "mend": { "syntaxDiagnostics": false } } }));
    let quiet = s.settled_diagnostics(uri, 1, SEC, 10 * SEC);
    assert_eq!(quiet["diagnostics"], json!([]), "{quiet}");
    s.notify("workspace/didChangeConfiguration", json!({ "settings": { "syntaxDiagnostics": true } }));
    let back = s.settled_diagnostics(uri, 1, SEC, 10 * SEC);
    assert_eq!(back["diagnostics"].as_array().unwrap().len(), 1, "{back}");

    let reply = s.request("workspace/executeCommand", json!({ "command": "mend.recheck", "arguments": [uri] }));
    assert!(reply.get("error").is_none(), "{reply}");
    s.settled_diagnostics(uri, 1, SEC / 2, 10 * SEC);
    let reply = s.request(
        "workspace/executeCommand",
        json!({ "command": "mend.applyRepair", "arguments": [{ "uri": uri, "version": 1, "index": 0 }] }),
    );
    assert!(reply.get("error").is_none(), "{reply}");
    let bad = s.request("workspace/executeCommand", json!({ "command": "mend.nothing", "arguments": [] }));
    assert!(bad.get("error").is_some());
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Analysis slower than the typing (every job sleeps 400 ms and ignores cancellation): results
/// of versions that were edited meanwhile are never published, the last version's is, and the
/// slow jobs show work-done progress.
#[test]
fn slow_analysis_never_publishes_stale_results() {
    let text = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/slow.c";
    let (mut s, _) =
        Server::start_with_hooks(utf16_client(), json!({ "mend": { "debounceMs": 50 } }), Some("delay=400"));
    s.open(uri, &text, 1);
    let mut local = text.clone();
    for v in 2..=6 {
        std::thread::sleep(Duration::from_millis(150));
        // Alternately fix and re-break the missing `;`.
        let change = if v % 2 == 0 {
            json!({ "range": range(5, 15, 5, 15), "text": ";" })
        } else {
            json!({ "range": range(5, 15, 5, 16), "text": "" })
        };
        apply_change(&mut local, &change, "utf-16");
        s.change(uri, v, json!([change]));
    }
    // v6 fixed the `;`: the final analysis reports nothing.
    let last = s.settled_diagnostics(uri, 6, 2 * SEC, 30 * SEC);
    assert_eq!(last["version"], 6);
    assert_eq!(only_nothing_checked(&last), Ok(()), "{last}");
    let versions: Vec<i64> = s.published(uri).iter().map(|p| p["version"].as_i64().unwrap()).collect();
    assert!(versions.windows(2).all(|w| w[0] <= w[1]), "a stale result was published: {versions:?}");
    assert!(
        s.history.iter().any(|(m, p)| m == "$/progress" && p["value"]["kind"] == "begin"),
        "a 400 ms job shows progress"
    );
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Type diagnostics arrive with the keystroke (the quick stage), long before a debounced full
/// analysis would run.
#[test]
fn type_diagnostics_do_not_wait_for_the_debounce() {
    let text = std::fs::read_to_string(fixture("undeclared.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/undeclared.c";
    let (mut s, _) = Server::start(json!({}), json!({ "mend": { "debounceMs": 60000 } }));
    s.open(uri, &text, 1);
    let started = std::time::Instant::now();
    let published = s
        .wait_for("textDocument/publishDiagnostics", 10 * SEC, |p| {
            p["uri"] == uri && p["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "undeclared")
        })
        .expect("an undeclared-identifier diagnostic");
    assert!(started.elapsed() < 10 * SEC);
    assert_eq!(published["version"], 1);
    // Typing the fix clears it, again without waiting for the debounce.
    s.change(uri, 2, json!([{ "range": range(4, 22, 4, 22), "text": "a" }]));
    let fixed = s
        .wait_for("textDocument/publishDiagnostics", 10 * SEC, |p| {
            p["uri"] == uri && p["version"] == 2 && p["diagnostics"] == json!([])
        })
        .expect("diagnostics cleared");
    assert_eq!(fixed["version"], 2);
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// A panic inside the analysis becomes an internal-error diagnostic; the server lives on.
#[test]
fn a_panicking_analysis_does_not_kill_the_server() {
    let text = std::fs::read_to_string(fixture("undeclared.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/panic.c";
    let (mut s, _) = Server::start_with_hooks(json!({}), json!({}), Some("panic"));
    s.open(uri, &text, 1);
    let published = s
        .wait_for("textDocument/publishDiagnostics", 10 * SEC, |p| p["diagnostics"][0]["code"] == "internal-error")
        .expect("an internal-error diagnostic");
    assert_eq!(published["version"], 1);
    assert!(s.is_responsive(uri));
    s.change(uri, 2, json!([{ "range": range(0, 0, 0, 0), "text": "\n" }]));
    s.settled_diagnostics(uri, 2, SEC / 2, 10 * SEC);
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Measurement, not a check (`cargo test --release --test e2e_lsp -- --ignored --nocapture`):
/// time from sending a `didChange` to the first publication for that version (syntax stage)
/// and to one carrying type diagnostics (quick stage), over 100 edits of a small file.
#[test]
#[ignore]
fn keystroke_latency() {
    let text = std::fs::read_to_string(fixture("undeclared.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/latency.c";
    let (mut s, _) = Server::start(json!({}), json!({ "mend": { "debounceMs": 60000 } }));
    s.open(uri, &text, 1);
    s.settled_diagnostics(uri, 1, SEC / 2, 10 * SEC);
    let (mut first, mut typed) = (Vec::new(), Vec::new());
    for v in 2..102i64 {
        // Alternately break and restore the identifier: odd versions have `totl` undeclared.
        let change = if v % 2 == 0 {
            json!({ "range": range(4, 22, 4, 22), "text": "a" })
        } else {
            json!({ "range": range(4, 22, 4, 23), "text": "" })
        };
        let t = std::time::Instant::now();
        s.change(uri, v, json!([change]));
        s.wait_for("textDocument/publishDiagnostics", 10 * SEC, |p| p["version"] == v).expect("syntax stage");
        first.push(t.elapsed().as_secs_f64() * 1000.0);
        let want_undeclared = v % 2 == 1;
        s.wait_for("textDocument/publishDiagnostics", 10 * SEC, |p| {
            p["version"] == v
                && p["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "undeclared") == want_undeclared
        })
        .expect("quick stage");
        typed.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let stats = |xs: &mut Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        (xs[xs.len() / 2], xs[xs.len() * 95 / 100], xs[xs.len() - 1])
    };
    eprintln!("syntax stage ms (median, p95, max): {:?}", stats(&mut first));
    eprintln!("type diagnostics ms (median, p95, max): {:?}", stats(&mut typed));
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// A file with an assertion: the verifier's error sits on the assertion, the changed place is
/// one warning, the repair is a quick fix wherever the bug is shown (the changed place and the
/// failing assertion), and applying it changes exactly that operator.
#[test]
fn mutation_repair_is_a_quick_fix_that_changes_only_the_mutated_text() {
    // The mutation engine's own fixture of the paper's `sum` (no mend.toml there: b = 5).
    let text = std::fs::read_to_string(fixture("../mutation/sum.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/sum_assert.c";
    let (mut s, _) = Server::start(json!({}), json!({}));
    s.open(uri, &text, 1);
    let published = s.settled_diagnostics(uri, 1, 3 * SEC, 60 * SEC);
    let diags = published["diagnostics"].as_array().unwrap();
    let assertion = diags
        .iter()
        .find(|d| d["code"] == "assertion")
        .cloned()
        .unwrap_or_else(|| panic!("no assertion diagnostic in {published}"));
    let changes: Vec<&Value> = diags.iter().filter(|d| d["code"] == "repair").collect();
    assert_eq!(changes.len(), 1, "one warning per changed place: {published}");
    let change = changes[0].clone();
    assert_eq!(change["severity"], 2, "{change}");
    assert_eq!(
        change["message"],
        "possible bug here: `i < n` → `i <= n` fixes it (proved for runs of up to 5 loop iterations)"
    );
    const TITLE: &str = "Fix (verified up to 5 loop iterations): `i < n` → `i <= n`";
    for shown in [&change, &assertion] {
        let reply = s.request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri }, "range": shown["range"], "context": { "diagnostics": [shown] } }),
        );
        let actions = reply["result"].as_array().unwrap_or_else(|| panic!("{reply}"));
        let action =
            actions.iter().find(|a| a["title"] == TITLE).unwrap_or_else(|| panic!("no repair at {shown}: {reply}"));
        assert_eq!(action["isPreferred"], true, "{reply}");
        let edits = action["edit"]["changes"][uri].as_array().expect("edits");
        let mut fixed = text.clone();
        for e in edits.iter().rev() {
            apply_change(&mut fixed, e, "utf-16");
        }
        assert_eq!(fixed, text.replacen("i < n;", "i <= n;", 1));
    }
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Repairs stream in: the first repair is published while the search still runs (a partial
/// report, before the assertion's own diagnostic is added at the end), and the final report
/// has both. With size-3 repairs the search of `sum` goes on for about a second after the
/// first repair (measured with `mend check --max-repair-size 3`), far longer than a publication.
#[test]
fn the_first_repair_is_published_before_the_search_ends() {
    let text = std::fs::read_to_string(fixture("../mutation/sum.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/sum_stream.c";
    let (mut s, _) = Server::start(json!({}), json!({ "mend": { "maxRepairSize": 3 } }));
    s.open(uri, &text, 1);
    let last = s.settled_diagnostics(uri, 1, 3 * SEC, 60 * SEC);
    let codes = |p: &Value| -> Vec<String> {
        p["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
    };
    assert!(codes(&last).contains(&"assertion".into()) && codes(&last).contains(&"repair".into()), "final: {last}");
    let published = s.published(uri);
    let first_with_repair =
        published.iter().find(|p| codes(p).contains(&"repair".into())).expect("a repair was published");
    assert!(
        !codes(first_with_repair).contains(&"assertion".into()),
        "the first repair came only with the final report: {published:?}"
    );
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Anytime repair in the editor: against a reference, a fix is shown as soon as it passes the
/// tests; the same diagnostic, at the same place, is then upgraded in place to a proof, never
/// downgraded, and the quick fix there carries the final guarantee. The tested fix comes in a
/// few milliseconds and its proof starts with a bounded check of the patched program against
/// the reference (tens of milliseconds in a release build), longer than a publication.
#[test]
fn a_fix_shown_as_tested_is_upgraded_in_place() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/anytime/organised_differently.c");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = format!("file://{}", path.display());
    let (mut s, _) = Server::start(json!({}), json!({}));
    s.open(&uri, &text, 1);
    let last = s.settled_diagnostics(&uri, 1, 3 * SEC, 60 * SEC);
    let change = |p: &Value| -> Option<Value> {
        p["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "repair").cloned()
    };
    let fin = change(&last).unwrap_or_else(|| panic!("no changed place at the end: {last}"));
    assert!(fin["message"].as_str().unwrap().contains("(proved for every input)"), "{fin}");
    // Every publication of the fix that stays (an earlier candidate, refuted, is withdrawn).
    let shown: Vec<String> = s
        .published(&uri)
        .iter()
        .filter_map(change)
        .filter(|d| d["range"] == fin["range"])
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    assert!(shown[0].contains("makes all 2 tests pass"), "the fix was not shown before its proof: {shown:?}");
    let proved = shown.iter().position(|m| m.contains("proved")).unwrap();
    assert!(shown[proved..].iter().all(|m| m.contains("proved")), "downgraded after its proof: {shown:?}");
    let reply = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": fin["range"], "context": { "diagnostics": [fin] } }),
    );
    let actions = reply["result"].as_array().unwrap_or_else(|| panic!("{reply}"));
    assert_eq!(actions[0]["title"], "Fix (verified): `(x >= 100)` → `(x > 10)` (as in the reference)", "{reply}");
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// Beside clangd (`otherCServer: true` with the default `syntaxDiagnostics: "auto"`), mend
/// drops its own syntax errors but keeps the assertion and repair diagnostics and every quick
/// fix, the syntax ones included; `syntaxDiagnostics: "on"` brings the syntax errors back.
#[test]
fn beside_another_c_server_only_repairs_are_shown() {
    let semi = std::fs::read_to_string(fixture("missing_semi.c")).unwrap();
    let sum = std::fs::read_to_string(fixture("../mutation/sum.c")).unwrap();
    let semi_uri = "file:///tmp/mend-e2e/coexist_semi.c";
    let sum_uri = "file:///tmp/mend-e2e/coexist_sum.c";
    let (mut s, _) = Server::start(json!({}), json!({ "mend": { "otherCServer": true, "hintLevel": "fix" } }));
    s.open(semi_uri, &semi, 1);
    s.open(sum_uri, &sum, 1);
    let quiet = s.settled_diagnostics(semi_uri, 1, SEC, 10 * SEC);
    assert_eq!(quiet["diagnostics"], json!([]), "clangd reports the missing `;`: {quiet}");
    let warned =
        s.wait_for("window/showMessage", Duration::ZERO, |m| m["message"].as_str().unwrap_or("").contains("ignored"));
    assert!(warned.is_none(), "otherCServer and hintLevel are accepted: {warned:?}");
    let repairs = s.settled_diagnostics(sum_uri, 1, 3 * SEC, 60 * SEC);
    let diags = repairs["diagnostics"].as_array().unwrap();
    assert!(diags.iter().any(|d| d["code"] == "assertion"), "{repairs}");
    let hint = diags.iter().find(|d| d["code"] == "repair").cloned().unwrap_or_else(|| panic!("{repairs}"));
    const TITLE: &str = "Fix (verified up to 5 loop iterations): `i < n` → `i <= n`";
    let reply = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": sum_uri }, "range": hint["range"], "context": { "diagnostics": [hint] } }),
    );
    assert_eq!(reply["result"][0]["title"], TITLE, "{reply}");
    // Neovim's `gra` with the cursor at the start of the line: the cursor position and the
    // line's diagnostics as context. The repair is offered because its diagnostic is there.
    let line_start = range(9, 0, 9, 0);
    let from_line = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": sum_uri }, "range": line_start, "context": { "diagnostics": [hint] } }),
    );
    assert_eq!(from_line["result"][0]["title"], TITLE, "{from_line}");
    let elsewhere = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": sum_uri }, "range": line_start, "context": { "diagnostics": [] } }),
    );
    assert_eq!(elsewhere["result"], json!([]), "{elsewhere}");
    // The `;` quick fix stays at the error clangd shows: the other server may offer none.
    let kept = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": semi_uri }, "range": range(5, 15, 5, 15), "context": { "diagnostics": [] } }),
    );
    assert_eq!(kept["result"][0]["title"], "Insert `;`", "{kept}");

    s.notify("workspace/didChangeConfiguration", json!({ "settings": { "mend": { "syntaxDiagnostics": "on" } } }));
    let back = s.settled_diagnostics(semi_uri, 1, SEC, 10 * SEC);
    let messages: Vec<&str> =
        back["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["message"].as_str()).collect();
    assert!(messages.len() == 1 && messages[0].contains("`;`"), "{back}");
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}

/// A type error gets the typed engine's quick fix (`scanf("%d", n)` → `&n`), and completion
/// after `total = ` offers expressions of `total`'s type in cost order.
#[test]
fn typed_quick_fix_and_completion() {
    let text = std::fs::read_to_string(fixture("../typed/conversions.c")).unwrap();
    let uri = "file:///tmp/mend-e2e/conversions.c";
    let (mut s, _) = Server::start(json!({}), json!({ "mend": { "typedRepairs": 2 } }));
    s.open(uri, &text, 1);
    let published = s.settled_diagnostics(uri, 1, SEC, 10 * SEC);
    let diag = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "scanf-pointer")
        .cloned()
        .unwrap_or_else(|| panic!("no scanf diagnostic in {published}"));
    let reply = s.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": diag["range"], "context": { "diagnostics": [diag] } }),
    );
    let actions = reply["result"].as_array().unwrap_or_else(|| panic!("{reply}"));
    // The file has four type errors: first comes the one repair of all of them, preferred.
    assert_eq!(actions[0]["title"], "Fix all 4 errors", "{reply}");
    assert_eq!(actions[0]["isPreferred"], true, "{reply}");
    let typed: Vec<&Value> = actions[1..].iter().filter(|a| a["diagnostics"][0]["code"] == "scanf-pointer").collect();
    assert_eq!(typed.len(), 2, "typedRepairs = 2: {reply}");
    // The edit inserts the `&` and nothing else: the student's spacing stays.
    assert_eq!(typed[0]["title"], "Insert `&` before `n`");
    let edits = typed[0]["edit"]["changes"][uri].as_array().expect("edits");
    assert_eq!(edits.len(), 1, "{reply}");
    assert_eq!(edits[0]["newText"], "&", "{reply}");
    let mut fixed = text.clone();
    apply_change(&mut fixed, &edits[0], "utf-16");
    assert!(fixed.contains("scanf(\"%d\", &n);"), "{fixed}");

    // Completion at the start of `return values[0];`'s expression: an `int`.
    let line = text.lines().position(|l| l.contains("return values[0];")).unwrap() as u64;
    let reply = s.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": 11 } }),
    );
    let items = reply["result"].as_array().unwrap_or_else(|| panic!("{reply}"));
    assert!(!items.is_empty(), "{reply}");
    let labels: Vec<&str> = items.iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"n"), "{labels:?}");
    assert!(
        labels.iter().any(|l| l.contains('[') || l.contains('.') || l.contains('*')),
        "expressions, not only names: {labels:?}"
    );
    let sort: Vec<&str> = items.iter().map(|i| i["sortText"].as_str().unwrap()).collect();
    let mut sorted = sort.clone();
    sorted.sort();
    assert_eq!(sort, sorted, "items come in cost order");
    assert_eq!(items[0]["insertText"], items[0]["label"]);
    assert_eq!(s.shutdown_and_exit().code(), Some(0));
}
