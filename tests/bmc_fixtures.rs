//! Bounded verification fixtures: every `fixtures/bmc/NAME.c` names its bounds in a first-line
//! comment (`// bmc: bound=5 bound=2`); the verdicts, counterexamples (inputs, stdin, branch
//! steps) and replay outcomes are snapshotted in `NAME.expected`. Every counterexample must be
//! confirmed by the interpreter. `UPDATE_EXPECT=1 cargo test --test bmc_fixtures` rewrites
//! the snapshots; review the diff.

use std::path::Path;

use mend::cancel::Cancel;
use mend::smt::bmc::{verify, BmcUnknown, BmcVerdict, Replay};
use mend::smt::Budget;
use mend::syntax::lower::lower_source;

/// One-based line and byte column, through the library's own line index.
fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let p = mend::syntax::LineIndex::new(src).position(src, offset, mend::syntax::Encoding::Utf8);
    (p.line as usize + 1, p.character as usize + 1)
}

fn bounds(src: &str) -> Vec<u32> {
    let first = src.lines().next().unwrap_or("");
    let b: Vec<u32> = first.split_whitespace().filter_map(|w| w.strip_prefix("bound=")).map(|n| n.parse().unwrap()).collect();
    assert!(!b.is_empty(), "first line must name bounds: {first}");
    b
}

#[test]
fn bmc_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bmc");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    names.sort();
    assert!(names.len() >= 15);
    let mut failures = Vec::new();
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        let lowered = lower_source(&src);
        let mut out = String::new();
        for b in bounds(&src) {
            let budget = Budget::new(std::time::Duration::from_secs(60), Cancel::new());
            let r = verify(&lowered.program, "main", b, &budget);
            out.push_str(&format!("bound {b}: "));
            match &r.verdict {
                BmcVerdict::Holds { complete: true } => out.push_str("holds (verified: no run exceeds the bound)\n"),
                BmcVerdict::Holds { complete: false } => out.push_str("holds (bounded)\n"),
                BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => {
                    let (l, c) = line_col(&src, u.span.start as usize);
                    out.push_str(&format!("unknown: {u} at {l}:{c}\n"));
                }
                BmcVerdict::Unknown(u) => out.push_str(&format!("unknown: {u:?}\n")),
                BmcVerdict::Violated(cex) => {
                    let (l, c) = line_col(&src, cex.span.start as usize);
                    out.push_str(&format!("violated: {} at {l}:{c} `{}`\n", cex.kind.describe(), &src[cex.span.range()]));
                    out.push_str(&format!("  inputs: {}\n", cex.inputs_text()));
                    out.push_str(&format!("  stdin: {:?}\n", cex.stdin));
                    let steps: Vec<String> = cex
                        .steps
                        .iter()
                        .map(|s| {
                            let (l, _) = line_col(&src, s.span.start as usize);
                            format!("{l}{}", if s.taken { "+" } else { "-" })
                        })
                        .collect();
                    out.push_str(&format!("  steps: {}\n", steps.join(" ")));
                    out.push_str(&format!("  replay: {:?}\n", cex.replay));
                    // An uninitialised read makes the interpreter stop first: only then may the
                    // replay be inconclusive.
                    let excused = matches!(cex.replay, Replay::Inconclusive(_)) && !r.uninit_reads.is_empty();
                    if cex.replay != Replay::Confirmed && !excused {
                        failures.push(format!("{}: bound {b}: {:?}", path.display(), cex.replay));
                    }
                }
            }
            for (span, name) in &r.uninit_reads {
                let (l, c) = line_col(&src, span.start as usize);
                out.push_str(&format!("  warning: `{name}` may be read uninitialised at {l}:{c}\n"));
            }
        }
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&out);
    }
    assert!(failures.is_empty(), "counterexamples not confirmed by the interpreter:\n{}", failures.join("\n"));
}
