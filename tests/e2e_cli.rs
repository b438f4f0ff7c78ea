//! End-to-end: `mend check` output shape and exit codes.

#[path = "common/lsp.rs"]
mod lsp;

use std::process::Command;

use expect_test::expect;
use lsp::{BIN, fixture, temp_dir};
use serde_json::Value;

fn mend(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run mend");
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Timings vary from run to run: replace every number under `stats` by 0.
fn redact_stats(mut v: Value) -> Value {
    if let Some(Value::Object(stats)) = v.get_mut("stats") {
        for (_, x) in stats.iter_mut() {
            if x.is_number() {
                *x = Value::from(0);
            }
        }
    }
    v
}

#[test]
fn json_output_shape() {
    let (code, stdout, stderr) = mend(&["check", "--format", "json", "fixtures/e2e/missing_semi.c"]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one object per file per line");
    let v = redact_stats(serde_json::from_str(lines[0]).unwrap());
    expect![[r#"
        {
          "diagnostics": [
            {
              "code": "syntax",
              "message": "missing `;` after `int sum = 0`",
              "range": {
                "end": {
                  "character": 15,
                  "line": 5
                },
                "start": {
                  "character": 14,
                  "line": 5
                }
              },
              "related": [],
              "severity": "error"
            }
          ],
          "file": "fixtures/e2e/missing_semi.c",
          "repairs": [
            {
              "details": "",
              "edits": [
                {
                  "newText": ";",
                  "range": {
                    "end": {
                      "character": 15,
                      "line": 5
                    },
                    "start": {
                      "character": 15,
                      "line": 5
                    }
                  }
                }
              ],
              "engine": "syntax",
              "explanation": "Inserts the missing `;` so that the file parses.",
              "guarantee": {
                "level": "syntax"
              },
              "reached": [
                {
                  "level": "syntax",
                  "ms": 0
                }
              ],
              "stats": {
                "firstBoundedMs": null,
                "firstTestedMs": null,
                "firstVerifiedMs": null
              },
              "title": "Insert `;`"
            }
          ],
          "stats": {
            "assertions": null,
            "cancelled": false,
            "firstRepairMs": null,
            "lowerMs": 0,
            "parseMs": 0,
            "phasesMs": {},
            "reference": null,
            "referenceFailure": null,
            "repairMs": 0,
            "testsMs": 0,
            "timedOut": false,
            "totalMs": 0
          },
          "tests": []
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&v).unwrap());
}

#[test]
fn json_ranges_count_utf16_units() {
    let (code, stdout, _) = mend(&["check", "--format", "json", "fixtures/e2e/unicode.c"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    let text = std::fs::read_to_string(fixture("unicode.c")).unwrap();
    let start = &v["diagnostics"][0]["range"]["start"];
    let (line, character) = (start["line"].as_u64().unwrap(), start["character"].as_u64().unwrap());
    let line_text = text.lines().nth(line as usize).unwrap();
    let utf16_len = line_text.encode_utf16().count() as u64;
    assert!(line_text.len() as u64 > utf16_len, "the line has multi-byte characters");
    // The character index lands on the same place as the UTF-16 prefix of the error token.
    let prefix: String =
        String::from_utf16(&line_text.encode_utf16().take(character as usize).collect::<Vec<_>>()).unwrap();
    assert!(line_text.starts_with(&prefix));
    assert!(prefix.contains('😀'), "error after the emoji: {prefix:?}");
}

#[test]
fn text_output_is_readable() {
    let (code, stdout, _) = mend(&["check", "fixtures/e2e/missing_semi.c"]);
    assert_eq!(code, Some(0));
    expect![[r#"
        fixtures/e2e/missing_semi.c:6:15: error: missing `;` after `int sum = 0` [syntax]
        fix 1: Insert `;`
            at 6:16: insert ";"
            Inserts the missing `;` so that the file parses.
    "#]]
    .assert_eq(&stdout);
}

#[test]
fn a_run_that_never_ends_is_not_shown_as_printing_what_was_expected() {
    let (code, stdout, stderr) = mend(&["check", "fixtures/check/finish_last_item/waits_for_line_break.c"]);
    assert_eq!(code, Some(0), "{stderr}");
    let failed: Vec<&str> = stdout.lines().filter(|l| l.trim_start().starts_with("test ")).collect();
    expect![[r#"
        [
            "  test 1 failed: input \"1 2 3\": expected \"2\\n4\\n6\\n\"; it printed \"2\\n4\\n6\\n\", then stopped: step limit of 20000000 reached: is there an infinite loop?",
            "  test 3 failed: input \"7 8\": expected \"14\\n16\\n\"; it printed \"14\\n16\\n\", then stopped: step limit of 20000000 reached: is there an infinite loop?",
        ]
    "#]]
    .assert_debug_eq(&failed);
}

#[test]
fn exit_codes() {
    // Problems found: still 0.
    assert_eq!(mend(&["check", "--format", "json", "fixtures/e2e/missing_semi.c"]).0, Some(0));
    // Unreadable file: reported, the others still checked, exit 1.
    let (code, stdout, stderr) =
        mend(&["check", "--format", "json", "fixtures/e2e/no-such-file.c", "fixtures/e2e/missing_semi.c"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no-such-file.c"), "{stderr}");
    let lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["error"].is_string());
    assert_eq!(lines[1]["file"], "fixtures/e2e/missing_semi.c");
    // A directory is not a readable file either.
    assert_eq!(mend(&["check", "fixtures/e2e"]).0, Some(1));
    // Usage errors: 2.
    assert_eq!(mend(&["check"]).0, Some(2));
    assert_eq!(mend(&["check", "--compare", "fuzzy", "x.c"]).0, Some(2));
    assert_eq!(mend(&["check", "--timeout", "-1", "x.c"]).0, Some(2));
    assert_eq!(mend(&["frobnicate"]).0, Some(2));
    // --version and --help.
    let (code, stdout, _) = mend(&["--version"]);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("mend "));
    let (code, stdout, _) = mend(&["check", "--help"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("UTF-16"), "{stdout}");
}

#[test]
fn non_utf8_and_empty_files_are_checked() {
    let dir = temp_dir("cli-bytes");
    let latin1 = dir.join("latin1.c");
    std::fs::write(&latin1, b"int main(void) { /* gr\xf6\xdfe */ return 0; }\n").unwrap();
    let empty = dir.join("empty.c");
    std::fs::write(&empty, b"").unwrap();
    let (code, stdout, stderr) =
        mend(&["check", "--format", "json", latin1.to_str().unwrap(), empty.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout.lines().count(), 2);
}

#[test]
fn a_panicking_analysis_is_reported_and_exits_1() {
    let out = Command::new(BIN)
        .args([
            "check",
            "--test-hooks=panic",
            "--format",
            "json",
            "fixtures/e2e/undeclared.c",
            "fixtures/e2e/missing_semi.c",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "every file is still reported");
    assert!(lines.iter().all(|l| l["diagnostics"][0]["code"] == "internal-error"));
}

/// The budget holds on a program whose encoding alone used to take minutes (a 1,000-character
/// `fgets` against a character reference: 190–230 s at `--timeout 2`): the run returns within
/// the budget plus a little, says it timed out, and still reports what it found.
#[test]
fn the_time_budget_holds_on_a_long_encoding() {
    let started = std::time::Instant::now();
    let out = Command::new(BIN)
        .args(["check", "--timeout", "2", "--format", "json", "fixtures/e2e/slow_solver/checksum.c"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let wall = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stats"]["timedOut"], true, "{report}");
    assert!(wall < std::time::Duration::from_secs(5), "took {wall:?}");
}

/// A job ends at its budget even when the analysis does not stop (the stall hook: after its
/// first partial report the analysis sleeps two minutes, deaf to cancellation, as a Z3 tactic
/// that does not poll its interrupt is): the report shows what was found by then (the failing
/// tests) and says that the analysis stopped. Without the job's limit the run would take the
/// whole two minutes and show no note.
#[test]
fn a_stalled_analysis_still_ends_at_its_budget_with_what_it_found() {
    let out = Command::new(BIN)
        .args([
            "check",
            "--timeout",
            "1",
            "--test-hooks=stall=120000",
            "--format",
            "json",
            "fixtures/check/statements/swapped_updates.c",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert!(codes.contains(&"test-failed"), "{report}");
    assert_eq!(codes.last(), Some(&"analysis-stopped"), "{report}");
    assert_eq!(report["stats"]["timedOut"], true, "{report}");
}
