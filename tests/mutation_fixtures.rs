//! The mutation engine on fixtures with assertions: `fixtures/mutation/NAME.c` declares its
//! options in a `// mend-test:` line; the verdict of the program as written, its
//! counterexample and every minimal repair (in order) are snapshotted in `NAME.expected`.
//! Every repair, applied to the text, is re-verified from scratch. With
//! `reference=references/FILE.c` the spec is the product program with that reference, its
//! output compared under `compare=MODE` (default `exact`).

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::engines::mutation::engine::{self, Options, SolverMode};
use mend::ir::apply_edits;
use mend::smt::bmc::{self, BmcVerdict};
use mend::smt::Budget;
use mend::spec::compare::Compare;
use mend::syntax::lower::lower_source;

/// The fixture's options, and whether to cross-check the paper's incremental solver set-up.
fn options(src: &str) -> (Options, bool) {
    let mut o = Options { frozen: HashSet::new(), ..Options::default() };
    let mut cross_check = false;
    let line = src.lines().find_map(|l| l.trim().strip_prefix("// mend-test:")).unwrap_or("");
    for kv in line.split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        match k {
            "level" => o.level = v.parse().unwrap(),
            "bound" => o.bound = v.parse().unwrap(),
            "max_size" => o.max_size = v.parse().unwrap(),
            "incremental" => cross_check = v == "yes",
            "reference" => {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mutation").join(v);
                o.reference = Some(lower_source(&std::fs::read_to_string(path).unwrap()).program);
            }
            "compare" => o.compare = Compare::parse(v).unwrap(),
            other => panic!("unknown option {other}"),
        }
    }
    (o, cross_check)
}

#[test]
fn mutation_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mutation");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let (opts, cross_check) = options(&src);
        let program = lower_source(&src).program;
        let budget = Budget::new(Duration::from_secs(120), Cancel::new());
        let report = engine::run(&program, &src, &opts, &budget, &mut |_| {});
        let mut out = String::new();
        match &report.original.verdict {
            BmcVerdict::Violated(cex) => {
                let line = src[..cex.span.start as usize].matches('\n').count() + 1;
                out.push_str(&format!("violated: {} on line {line} for {} (replay: {:?})\n", cex.kind.describe(), cex.inputs_text(), cex.replay));
            }
            other => out.push_str(&format!("original: {other:?}\n")),
        }
        out.push_str(&format!("locations with alternatives: {}, alternatives: {}\n", report.locations, report.alternatives));
        for r in &report.repairs {
            out.push_str(&format!("repair (size {}): {}\n", r.changes.len(), r.title()));
            // Re-verify the repaired text from scratch.
            let fixed = apply_edits(&src, &r.edits());
            let p2 = lower_source(&fixed).program;
            let budget = Budget::new(Duration::from_secs(60), Cancel::new());
            let again = match &opts.reference {
                Some(r) => bmc::verify_against(&p2, r, opts.compare, &opts.entry, opts.bound, &budget),
                None => bmc::verify(&p2, &opts.entry, opts.bound, &budget),
            };
            assert!(matches!(again.verdict, BmcVerdict::Holds { .. }), "{}: repair {} does not verify: {:?}\n{fixed}", f.display(), r.title(), again.verdict);
        }
        out.push_str(&format!("outcome: {:?}\n", report.outcome));
        if cross_check {
            // Both solver set-ups decide the same question: same repairs, same order.
            let inc = Options { solver_mode: SolverMode::Incremental, ..opts.clone() };
            let again = engine::run(&program, &src, &inc, &Budget::new(Duration::from_secs(120), Cancel::new()), &mut |_| {});
            let titles = |r: &engine::EngineReport| r.repairs.iter().map(|x| x.title()).collect::<Vec<_>>();
            assert_eq!(titles(&report), titles(&again), "{}: incremental solver disagrees", f.display());
            assert_eq!(report.outcome, again.outcome, "{}", f.display());
        }
        expect_test::expect_file![f.with_extension("expected")].assert_eq(&out);
    }
}
