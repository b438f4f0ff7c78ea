//! The verified engine beyond its fixtures (`tests/fixtures.rs`, suite `verified`).

mod common;

use std::path::Path;

use mend::engines::verified;

/// Node answers are reused across runs: the same program again needs no solver check, and
/// neither does the text with a comment added (the nodes' problems are unchanged).
#[test]
fn node_results_are_reused_across_runs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verified");
    let reference = std::fs::read_to_string(dir.join("prime.ref.c")).unwrap();
    // A variant no other test runs (its variable renamed), so the first run below starts from
    // an empty cache.
    let student = std::fs::read_to_string(dir.join("prime_fig1.c"))
        .unwrap()
        .replace("int i", "int cached_i")
        .replace("(i ", "(cached_i ")
        .replace("% i", "% cached_i");
    let first = common::verified_repair(&student, &reference, "check_prime", &[], mend::spec::compare::Compare::Values);
    assert!(first.checks > 0);
    let again = common::verified_repair(&student, &reference, "check_prime", &[], mend::spec::compare::Compare::Values);
    assert_eq!(again.outcome, first.outcome);
    eprintln!("node cache: first run {:?} ({} checks), again {:?}", first.time, first.checks, again.time);
    assert_eq!(again.checks, 0, "every node answered from the cache (first run: {} checks)", first.checks);
    let commented = student.replacen("int check_prime", "/* a comment */\nint check_prime", 1);
    let moved =
        common::verified_repair(&commented, &reference, "check_prime", &[], mend::spec::compare::Compare::Values);
    assert_eq!(moved.checks, 0, "a comment changes no node's problem");
    assert!(matches!(moved.outcome, verified::Outcome::Repaired(_)));
}
