//! `mend check` output: one JSON object per file (the CLI contract) or readable text.

pub mod bench;
pub mod bench_compile;
pub mod bench_debug;
pub mod bench_faults;
pub mod bench_reference;
pub mod bench_server;
pub mod bench_typed;

use serde_json::{Value, json};

use crate::check::Report;
use crate::ir::{Guarantee, Span};

use crate::syntax::{Encoding, LineIndex};

/// Positions in a text: LSP-style zero-based line/character (UTF-16 code units) for JSON,
/// one-based line/column (in characters) for text.
pub struct Located<'a> {
    text: &'a str,
    index: LineIndex,
}

impl<'a> Located<'a> {
    pub fn new(text: &'a str) -> Self {
        Located { text, index: LineIndex::new(text) }
    }

    fn pos_json(&self, offset: u32) -> Value {
        let p = self.index.position(self.text, offset as usize, Encoding::Utf16);
        json!({ "line": p.line, "character": p.character })
    }

    pub fn range_json(&self, span: Span) -> Value {
        json!({ "start": self.pos_json(span.start), "end": self.pos_json(span.end) })
    }

    /// `line:col`, both one-based, the column counted in characters.
    pub fn line_col(&self, offset: u32) -> String {
        let p = self.index.position(self.text, offset as usize, Encoding::Utf32);
        format!("{}:{}", p.line + 1, p.character + 1)
    }
}

/// The JSON object of one analysed file.
pub fn report_json(file: &str, text: &str, report: &Report) -> Value {
    let at = Located::new(text);
    let diagnostics: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            json!({
                "range": at.range_json(d.span),
                "severity": d.severity.as_str(),
                "message": d.message,
                "code": d.code,
                "related": d.related.iter().map(|r| json!({ "range": at.range_json(r.span), "message": r.message })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let repairs: Vec<Value> = report
        .repairs
        .iter()
        .map(|r| {
            json!({
                "title": r.title,
                "engine": r.engine,
                "guarantee": r.guarantee,
                "edits": r.edits.iter().map(|e| json!({ "range": at.range_json(e.span), "newText": e.new_text })).collect::<Vec<_>>(),
                "explanation": r.explanation,
                // The engine's figures: a verified repair's relative patch size (the exact tree
                // edit distance over the student's AST size, `ir::ted`), time to find it, cost.
                "details": r.details,
                // When it reached each guarantee (ms into the analysis): a fix that passes the
                // tests is published first and upgraded in place when its proof comes.
                "reached": r.reached.iter().map(|l| json!({ "level": l.guarantee.level(), "ms": l.after_ms })).collect::<Vec<_>>(),
                "stats": {
                    "firstTestedMs": r.first_at_least(Guarantee::Tested { tests: 0 }.strength()),
                    "firstBoundedMs": r.first_at_least(Guarantee::Bounded { bound: crate::ir::Bound::loops(0) }.strength()),
                    "firstVerifiedMs": r.first_at_least(Guarantee::Verified.strength()),
                },
            })
        })
        .collect();
    let tests: Vec<Value> = report
        .tests
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "passed": t.passed,
                "expected": t.expected,
                "actual": t.actual,
                "error": t.error,
            })
        })
        .collect();
    let s = &report.stats;
    json!({
        "file": file,
        "diagnostics": diagnostics,
        "repairs": repairs,
        "tests": tests,
        "stats": {
            "parseMs": s.parse_ms,
            "lowerMs": s.lower_ms,
            "testsMs": s.tests_ms,
            "totalMs": s.total_ms,
            "cancelled": s.cancelled,
            "timedOut": s.timed_out,
            "assertions": s.assertions,
            "repairMs": s.repair_ms,
            "firstRepairMs": s.first_repair_ms,
            "reference": s.reference,
            "referenceFailure": s.reference_failure,
            "phasesMs": s.phases.iter().map(|(p, ms)| (p.to_string(), json!(ms))).collect::<serde_json::Map<String, Value>>(),
        },
    })
}

/// The JSON object for a file that could not be analysed.
pub fn error_json(file: &str, error: &str) -> Value {
    json!({ "file": file, "error": error })
}

/// A student-readable report: `file:line:col: severity: message [code]`, then the fixes, then
/// the test summary. `verbose` adds each diagnostic's related places and each fix's engine,
/// guarantee and figures.
pub fn report_text(file: &str, text: &str, report: &Report, verbose: bool) -> String {
    use std::fmt::Write;
    let at = Located::new(text);
    let mut out = String::new();
    for d in &report.diagnostics {
        let _ =
            writeln!(out, "{file}:{}: {}: {} [{}]", at.line_col(d.span.start), d.severity.as_str(), d.message, d.code);
        if verbose {
            for r in &d.related {
                let _ = writeln!(out, "    {}: {}", at.line_col(r.span.start), r.message);
            }
        }
    }
    for (i, r) in report.repairs.iter().enumerate() {
        let _ = writeln!(out, "fix {}: {}", i + 1, r.title);
        if verbose {
            let details = if r.details.is_empty() { String::new() } else { format!("; {}", r.details) };
            let _ = writeln!(out, "    [engine {}, guarantee {}{details}]", r.engine, r.guarantee.label());
        }
        for e in &r.edits {
            let old = text.get(e.span.range()).unwrap_or("");
            let what = match (old.is_empty(), e.new_text.is_empty()) {
                (true, _) => format!("insert {:?}", e.new_text),
                (false, true) => format!("delete {old:?}"),
                (false, false) => format!("replace {old:?} with {:?}", e.new_text),
            };
            let _ = writeln!(out, "    at {}: {what}", at.line_col(e.span.start));
        }
        if !r.explanation.is_empty() {
            let _ = writeln!(out, "    {}", r.explanation);
        }
    }
    if !report.tests.is_empty() {
        let passed = report.tests.iter().filter(|t| t.passed).count();
        let _ = writeln!(out, "tests: {passed}/{} passed", report.tests.len());
        for t in report.tests.iter().filter(|t| !t.passed) {
            let (name, input, expected) = (&t.name, shown(&t.input), shown(&t.expected));
            // A run that stops with an error may have printed all that was expected (a loop
            // that never ends after the last line): "got" the same text would read as a pass.
            let _ = match &t.error {
                Some(e) if t.actual.is_empty() => {
                    writeln!(
                        out,
                        "  test {name} failed: input {input}: expected {expected}; it printed nothing, then stopped: {e}"
                    )
                }
                Some(e) => writeln!(
                    out,
                    "  test {name} failed: input {input}: expected {expected}; it printed {}, then stopped: {e}",
                    shown(&t.actual)
                ),
                None => {
                    writeln!(out, "  test {name} failed: input {input}: expected {expected}, got {}", shown(&t.actual))
                }
            };
        }
    }
    if report.diagnostics.is_empty() && report.repairs.is_empty() && report.tests.is_empty() {
        let _ = writeln!(out, "{file}: no problems found");
    }
    out
}

/// A test's text as a quoted string, cut after [`SHOWN_CHARS`] characters: a runaway loop's
/// megabyte of output is not a line to read.
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{:?} … ({} more bytes)", &text[..cut], text.len() - cut),
        None => format!("{text:?}"),
    }
}

/// Characters of a test's input or output shown in the text report.
const SHOWN_CHARS: usize = 300;
