//! Property test of the mutation engine (issue 3, "Correctness evidence"): take the correct
//! programs of `fixtures/mutation/correct/*.c`, inject one or two random catalogue mutations
//! (seeded, so every run tries the same mutants), and check on every completed search that
//!
//! (a) the engine's repairs include the inverse of the injection (the repaired text is the
//!     correct program again) or a repair made of a strict subset of the inverse's changes
//!     (then the inverse is not minimal);
//! (b) no reported repair is a superset of another reported one (nor a duplicate);
//! (c) every reported repair, compiled with gcc and run on random inputs, never fails an
//!     assertion (a failure of a repair proved only up to the bound must come from a run
//!     longer than the bound: a bounded check at a larger bound must find it too).
//!
//! A mutant that leaves the program correct (nothing to repair) is skipped, and so is one
//! whose inverse is not in the catalogue at level 1 or 2 (deleting an assignment, say).

mod common;

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::engines::mutation::catalogue::Mutant;
use mend::engines::mutation::engine::{self, FoundRepair, Options};
use mend::engines::mutation::search::Outcome;
use mend::ir::{Guarantee, Span, TextEdit, apply_edits};
use mend::smt::Budget;
use mend::smt::bmc::{self, BmcVerdict};
use mend::syntax::lower::lower_source;

/// The bound unless the program's `// mend-test: bound=N` line says otherwise.
const BOUND: u32 = 5;
/// Mutants injected per correct program: this many with one mutation, then with two.
const SINGLE: usize = 4;
const DOUBLE: usize = 1;
const ENGINE_BUDGET: Duration = Duration::from_secs(20);
/// Random input vectors run per repair.
const GCC_RUNS: usize = 12;

/// xorshift64* — deterministic, no crate needed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// Defines the verifier conventions for gcc: inputs from stdin, a false assumption (or no
/// more input) ends the run as a pass.
const HARNESS: &str = "#include <stdio.h>\n#include <stdlib.h>\n\
int nondet_int(void) { int v; if (scanf(\"%d\", &v) != 1) exit(0); return v; }\n\
int __VERIFIER_nondet_int(void) { return nondet_int(); }\n\
void __VERIFIER_assume(int c) { if (!c) exit(0); }\n";

fn opts(bound: u32, level: u8, max_size: usize) -> Options {
    Options { bound, level, max_size, frozen: HashSet::new(), ..Options::default() }
}

fn declared_bound(src: &str) -> u32 {
    let line = src.lines().find_map(|l| l.trim().strip_prefix("// mend-test:")).unwrap_or("");
    line.split_whitespace().find_map(|kv| kv.strip_prefix("bound=")?.parse().ok()).unwrap_or(BOUND)
}

fn verdict(src: &str, bound: u32) -> BmcVerdict {
    let program = lower_source(src).program;
    bmc::verify(&program, "main", bound, &Budget::new(Duration::from_secs(60), Cancel::new())).verdict
}

type EditKey = (Span, String);

fn key(e: &TextEdit) -> EditKey {
    (e.span, e.new_text.clone())
}

/// The catalogue mutants of `mutated` at `level` whose edits, one per injected mutation,
/// give back `original`: for each injection, the mutant whose edit alone undoes it (turns
/// `mutated` into the text with the other injections only).
fn inverse(
    mutated: &str,
    undone_one: &[String],
    original: &str,
    level: u8,
    max_size: usize,
) -> Option<BTreeSet<EditKey>> {
    let program = lower_source(mutated).program;
    let (_, alternatives) = engine::mutation_unit(&program, mutated, &opts(BOUND, level, max_size));
    let all: Vec<&Mutant> = alternatives.values().flat_map(|(_, ms)| ms).collect();
    let mut edits = Vec::new();
    for target in undone_one {
        let m = all.iter().find(|m| apply_edits(mutated, std::slice::from_ref(&m.edit)) == *target)?;
        edits.push(m.edit.clone());
    }
    (apply_edits(mutated, &edits) == original).then(|| edits.iter().map(key).collect())
}

fn repair_keys(r: &FoundRepair) -> BTreeSet<EditKey> {
    r.edits().iter().map(key).collect()
}

#[derive(Default, Debug)]
struct Stats {
    drawn: usize,
    not_violated: usize,
    no_inverse_in_catalogue: usize,
    overlapping: usize,
    repeated: usize,
    tried: usize,
    tried_level2: usize,
    tried_double: usize,
    incomplete: usize,
    repaired: usize,
    inverse_found: usize,
    smaller_found: usize,
    repairs: usize,
    gcc_runs: usize,
    gcc_exited_normally: usize,
    gcc_timeouts: usize,
    beyond_bound_failures: usize,
}

#[test]
fn injected_mutations_are_repaired() {
    let have_gcc = common::have_gcc();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mutation/correct");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "expected at least 4 correct programs, found {}", files.len());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut stats = Stats::default();
    let mut failures: Vec<String> = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read_to_string(f).unwrap();
        let bound = declared_bound(&original);
        assert!(
            matches!(verdict(&original, bound), BmcVerdict::Holds { .. }),
            "{name}: the correct program does not verify at b={bound}"
        );
        let mut seen = HashSet::new();
        let program = lower_source(&original).program;
        let (_, pool) = engine::mutation_unit(&program, &original, &opts(BOUND, 2, 1));
        let pool: Vec<Vec<&Mutant>> = pool.values().map(|(_, ms)| ms.iter().collect()).collect();
        assert!(!pool.is_empty(), "{name}: no mutable location");
        let plan: Vec<usize> = std::iter::repeat_n(1, SINGLE).chain(std::iter::repeat_n(2, DOUBLE)).collect();
        for n in plan {
            let mut attempts = 0;
            loop {
                attempts += 1;
                assert!(attempts < 200, "{name}: no repairable mutant with {n} injections in 200 draws");
                stats.drawn += 1;
                // `n` mutants at distinct locations.
                let mut locs = BTreeSet::new();
                while locs.len() < n.min(pool.len()) {
                    locs.insert(rng.below(pool.len()));
                }
                let injected: Vec<TextEdit> = locs
                    .iter()
                    .map(|&l| {
                        let ms = &pool[l];
                        ms[rng.below(ms.len())].edit.clone()
                    })
                    .collect();
                if injected.iter().enumerate().any(|(i, a)| {
                    injected[i + 1..].iter().any(|b| a.span.start <= b.span.end && b.span.start <= a.span.end)
                }) {
                    stats.overlapping += 1;
                    continue;
                }
                let mutated = apply_edits(&original, &injected);
                if !seen.insert(mutated.clone()) {
                    stats.repeated += 1;
                    continue;
                }
                match verdict(&mutated, bound) {
                    BmcVerdict::Violated(_) => {}
                    _ => {
                        stats.not_violated += 1;
                        continue;
                    }
                }
                // The text with every injection but one, for each one.
                let undone_one: Vec<String> = (0..injected.len())
                    .map(|i| {
                        let others: Vec<TextEdit> =
                            injected.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, e)| e.clone()).collect();
                        apply_edits(&original, &others)
                    })
                    .collect();
                let Some((level, inv)) = [1u8, 2]
                    .into_iter()
                    .find_map(|l| inverse(&mutated, &undone_one, &original, l, n).map(|inv| (l, inv)))
                else {
                    stats.no_inverse_in_catalogue += 1;
                    continue;
                };
                let what: Vec<String> = injected.iter().map(|e| format!("{:?}→`{}`", e.span, e.new_text)).collect();
                let case = format!("{name} with {} (level {level})", what.join(", "));
                check_case(&case, &mutated, bound, level, n, &inv, have_gcc, &mut rng, &mut stats, &mut failures);
                break;
            }
        }
    }
    eprintln!("mutation property: {stats:#?}");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
    assert!(stats.tried >= 20, "only {} mutants tried", stats.tried);
    assert!(stats.repaired > stats.incomplete, "most searches should complete: {stats:?}");
}

#[allow(clippy::too_many_arguments)]
fn check_case(
    case: &str,
    mutated: &str,
    bound: u32,
    level: u8,
    n: usize,
    inv: &BTreeSet<EditKey>,
    have_gcc: bool,
    rng: &mut Rng,
    stats: &mut Stats,
    failures: &mut Vec<String>,
) {
    stats.tried += 1;
    stats.tried_level2 += usize::from(level == 2);
    stats.tried_double += usize::from(n == 2);
    let program = lower_source(mutated).program;
    let report =
        engine::run(&program, mutated, &opts(bound, level, n), &Budget::new(ENGINE_BUDGET, Cancel::new()), &mut |_| {
            true
        });
    eprintln!(
        "{case}: {} repair(s) in {:.0} ms, {} candidates, {:?}",
        report.repairs.len(),
        report.total_time.as_secs_f64() * 1000.0,
        report.candidates_checked,
        report.outcome
    );
    if !matches!(report.original.verdict, BmcVerdict::Violated(_)) {
        failures.push(format!(
            "{case}: the engine does not see the violation bmc::verify found: {:?}",
            report.original.verdict
        ));
        return;
    }
    let keys: Vec<BTreeSet<EditKey>> = report.repairs.iter().map(repair_keys).collect();
    stats.repairs += keys.len();
    // (b) minimality among the reported repairs.
    for (i, a) in keys.iter().enumerate() {
        for (j, b) in keys.iter().enumerate() {
            if i != j && a.is_superset(b) {
                failures.push(format!(
                    "{case}: repair `{}` contains repair `{}`",
                    report.repairs[i].title(),
                    report.repairs[j].title()
                ));
            }
        }
    }
    // (a) on a completed search, the inverse or a strict subset of it.
    let completed = matches!(report.outcome, Some(Outcome::Exhausted { .. } | Outcome::Complete));
    if !completed {
        stats.incomplete += 1;
        eprintln!("{case}: search incomplete ({:?}); not checked for the inverse", report.outcome);
    } else if keys.iter().any(|k| k == inv) {
        stats.repaired += 1;
        stats.inverse_found += 1;
    } else if keys.iter().any(|k| k.is_subset(inv)) {
        stats.repaired += 1;
        stats.smaller_found += 1;
    } else {
        let titles: Vec<String> = report.repairs.iter().map(|r| r.title()).collect();
        failures.push(format!(
            "{case}: search {:?} reports neither the inverse {inv:?} nor a subset of it; repairs: {titles:?}\n{mutated}",
            report.outcome
        ));
    }
    // (c) every repair against gcc on random inputs.
    if !have_gcc {
        return;
    }
    for r in &report.repairs {
        let fixed = apply_edits(mutated, &r.edits());
        let Some(bin) = common::compile(format!("{HARNESS}{fixed}").as_bytes()) else {
            failures.push(format!("{case}: gcc rejects the repair `{}`:\n{fixed}", r.title()));
            continue;
        };
        let inputs: Vec<String> = (0..GCC_RUNS)
            .map(|_| (0..6).map(|_| rng.int(-4, 6).to_string()).collect::<Vec<_>>().join(" ") + "\n")
            .collect();
        let runs = common::parallel(inputs, 2, |input| {
            let native = common::run_native(&bin, input.as_bytes(), Duration::from_secs(5));
            (input, native)
        });
        for (input, native) in runs {
            stats.gcc_runs += 1;
            if native.timed_out {
                stats.gcc_timeouts += 1;
                continue;
            }
            if native.status.is_some() {
                stats.gcc_exited_normally += 1;
                continue;
            }
            // Killed by a signal: abort from a failed assertion (or a crash). A repair proved
            // only up to the bound may fail on a longer run; it may not when a bounded check at
            // four times the bound proves every run shorter than that and correct.
            let beyond_bound = matches!(r.guarantee, Guarantee::Bounded { .. })
                && !matches!(verdict(&fixed, bound * 4), BmcVerdict::Holds { complete: true });
            if beyond_bound {
                stats.beyond_bound_failures += 1;
            } else {
                failures.push(format!(
                    "{case}: repair `{}` fails under gcc on input {:?}:\n{fixed}",
                    r.title(),
                    input.trim()
                ));
            }
        }
    }
}

/// Every repair the engine reports on the TCAS-like version 1 (one arithmetic bug), re-verified
/// from scratch. A regression test: the encoding once named a location's constants
/// `loc!{1000·loc + n}`, which collide once a program has over a thousand names, and 12 of the
/// 13 "verified" repairs reported here were wrong.
#[test]
fn tcas_v1_repairs_reverify() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/perf/tcas_v1.c");
    let src = std::fs::read_to_string(path).unwrap();
    let program = lower_source(&src).program;
    let report =
        engine::run(&program, &src, &opts(2, 1, 1), &Budget::new(Duration::from_secs(60), Cancel::new()), &mut |_| {
            true
        });
    assert!(!report.repairs.is_empty());
    let wrong: Vec<String> = report
        .repairs
        .iter()
        .filter(|r| !matches!(verdict(&apply_edits(&src, &r.edits()), 2), BmcVerdict::Holds { .. }))
        .map(|r| r.title())
        .collect();
    assert!(wrong.is_empty(), "{} of {} repairs do not verify: {wrong:#?}", wrong.len(), report.repairs.len());
}
