//! The verified-repair engine (Verifix) on `fixtures/verified/NAME.c`: the first line names the
//! reference (`// reference: FILE [entry: FUNC] [inputs: FILE]`, the last a file of test
//! inputs, one per line, to infer the input precondition from); the outcome, every change and the repaired
//! program are snapshotted in `NAME.expected`, and so is a smaller repair offered under the
//! input precondition. Every repair is then checked independently: the
//! repaired program, verified again from scratch, must be equivalent as written, and its
//! relative patch size must be the exact tree edit distance to it (`ir::ted`).

use std::path::Path;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::engines::verified::{self, Options, Outcome};
use mend::ir::repair::apply_edits;
use mend::ir::ted;
use mend::smt::Budget;
use mend::spec::compare::Compare;
use mend::syntax::lower::lower_source;

struct Header {
    reference: String,
    entry: String,
    inputs: Option<String>,
}

fn header(src: &str) -> Header {
    let first = src.lines().next().unwrap_or_default();
    let mut words = first.trim_start_matches("//").split_whitespace();
    let mut h = Header { reference: String::new(), entry: "main".to_string(), inputs: None };
    while let Some(w) = words.next() {
        match w {
            "reference:" => h.reference = words.next().unwrap_or_default().to_string(),
            "entry:" => h.entry = words.next().unwrap_or_default().to_string(),
            "inputs:" => h.inputs = words.next().map(str::to_string),
            _ => {}
        }
    }
    h
}

fn run(student: &str, reference: &str, entry: &str, inputs: &[String]) -> verified::Report {
    let s = lower_source(student).program;
    let r = lower_source(reference).program;
    let precondition = verified::precondition::infer(inputs, &r, entry);
    let opts = Options { entry: entry.to_string(), compare: Compare::Values, precondition };
    verified::repair(&s, student, &r, &opts, &Budget::new(Duration::from_secs(60), Cancel::new()))
}

#[test]
fn verified_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verified");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c") && !p.to_string_lossy().ends_with(".ref.c"))
        .collect();
    names.sort();
    assert!(names.len() >= 5);
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        let Header { reference: ref_name, entry, inputs } = header(&src);
        let reference = std::fs::read_to_string(dir.join(&ref_name)).unwrap();
        let inputs: Vec<String> = inputs.map_or_else(Vec::new, |f| std::fs::read_to_string(dir.join(f)).unwrap().lines().map(|l| format!("{l}\n")).collect());
        let report = run(&src, &reference, &entry, &inputs);
        let mut out = String::new();
        match &report.outcome {
            Outcome::Equivalent => out.push_str("outcome: equivalent as written (verified)\n"),
            Outcome::EquivalentAssuming(a) => out.push_str(&format!("outcome: equivalent as written for inputs where {a} (verified)\n")),
            Outcome::Failed(f) => out.push_str(&format!("outcome: no verified repair [{}]: {}\n", f.category(), f.describe())),
            Outcome::Repaired(r) => {
                match &r.assuming {
                    None => out.push_str("outcome: repaired (verified)\n"),
                    Some(a) => out.push_str(&format!("outcome: repaired (verified for inputs where {a})\n")),
                }
                for c in &r.changes {
                    out.push_str(&format!("change {}: `{}` -> `{}`\n", c.region, c.old, c.new.trim()));
                }
                out.push_str(&format!("relative patch size: {:.3}\n", r.relative_patch_size));
                let repaired = apply_edits(&src, &r.edits);
                // The figure is the exact tree edit distance on the final text (for a retyped
                // float program, the composed patch), and is never zero for a repair.
                let exact = ted::program_distance(&lower_source(&src).program, &lower_source(&repaired).program);
                assert!(exact.exact && exact.distance > 0, "{}", path.display());
                assert_eq!(r.relative_patch_size, exact.distance as f64 / exact.size as f64, "{}", path.display());
                out.push_str("repaired program:\n");
                out.push_str(&repaired);
                let again = run(&repaired, &reference, &entry, &inputs);
                let expected = r.assuming.as_ref().map_or(Outcome::Equivalent, |a| Outcome::EquivalentAssuming(a.clone()));
                assert_eq!(again.outcome, expected, "{}: the repaired program must verify as written:\n{repaired}", path.display());
            }
        }
        if let Some(small) = &report.smaller_assuming {
            // The smaller repair offered second, under the tests' input precondition: it too
            // must verify as written under it.
            let a = small.assuming.clone().unwrap_or_default();
            out.push_str(&format!("smaller repair, verified for inputs where {a}:\n"));
            for c in &small.changes {
                out.push_str(&format!("change {}: `{}` -> `{}`\n", c.region, c.old, c.new.trim()));
            }
            let repaired = apply_edits(&src, &small.edits);
            let again = run(&repaired, &reference, &entry, &inputs);
            assert_eq!(again.outcome, Outcome::EquivalentAssuming(a), "{}: the smaller repair must verify as written:\n{repaired}", path.display());
        }
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&out);
    }
}

/// Node answers are reused across runs: the same program again needs no solver check, and
/// neither does the text with a comment added (the nodes' problems are unchanged).
#[test]
fn node_results_are_reused_across_runs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verified");
    let reference = std::fs::read_to_string(dir.join("prime.ref.c")).unwrap();
    // A variant no other test runs (its variable renamed), so the first run below starts from
    // an empty cache.
    let student = std::fs::read_to_string(dir.join("prime_fig1.c")).unwrap().replace("int i", "int cached_i").replace("(i ", "(cached_i ").replace("% i", "% cached_i");
    let first = run(&student, &reference, "check_prime", &[]);
    assert!(first.checks > 0);
    let again = run(&student, &reference, "check_prime", &[]);
    assert_eq!(again.outcome, first.outcome);
    eprintln!("node cache: first run {:?} ({} checks), again {:?}", first.time, first.checks, again.time);
    assert_eq!(again.checks, 0, "every node answered from the cache (first run: {} checks)", first.checks);
    let commented = student.replacen("int check_prime", "/* a comment */\nint check_prime", 1);
    let moved = run(&commented, &reference, "check_prime", &[]);
    assert_eq!(moved.checks, 0, "a comment changes no node's problem");
    assert!(matches!(moved.outcome, verified::Outcome::Repaired(_)));
}
