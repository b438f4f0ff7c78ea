//! Wolverine2's property on mend's own heap course (`courses/heap`): a fault injected into a
//! correct program — a moved statement, a deleted one, a rewired pointer — is repaired by the
//! inverse change or by another repair of at most one change that passes every test. The
//! figures over many faults are `mend bench faults courses/heap`; this test holds the property
//! on a fixed sample, with a budget far above what each needs (well under a second).

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::check::{CheckOptions, check_streaming};
use mend::engines::mutation::catalogue::MutationKind;
use mend::engines::mutation::inject::single_faults;
use mend::ir::{Guarantee, Repair};
use mend::spec::interp::{self, Limits};
use mend::syntax::lower::lower_source;

/// Problems of the course (singly and doubly linked lists, a tree, a string function), and
/// the kinds of fault injected into each (a string function has no pointer to rewire).
const LINKED: &[MutationKind] =
    &[MutationKind::MoveStatement, MutationKind::ReplacePointer, MutationKind::DeleteStatement];
const STRING: &[MutationKind] = &[MutationKind::MoveStatement, MutationKind::DeleteStatement];
const PROBLEMS: &[(&str, &[MutationKind])] = &[
    ("list-reverse", LINKED),
    ("queue-linked", LINKED),
    ("dlist-append-remove", LINKED),
    ("bst-insert-inorder", LINKED),
    ("str-copy", STRING),
];
/// Faults of each kind per problem.
const PER_KIND: usize = 1;

fn tests_of(dir: &Path) -> Vec<(Vec<u8>, String)> {
    let mut out = Vec::new();
    for k in 1.. {
        let (i, o) = (dir.join(format!("tests/{k}.in")), dir.join(format!("tests/{k}.out")));
        let (Ok(input), Ok(output)) = (std::fs::read(&i), std::fs::read_to_string(&o)) else { break };
        out.push((input, output));
    }
    out
}

#[test]
fn an_injected_fault_is_repaired_by_its_inverse_or_a_change_no_larger() {
    let course = Path::new(env!("CARGO_MANIFEST_DIR")).join("courses/heap");
    let mut checked = 0;
    for (problem, kinds) in PROBLEMS {
        let dir = course.join(problem);
        let reference = std::fs::read_to_string(dir.join("reference.c")).unwrap();
        let program = lower_source(&reference).program;
        let tests = tests_of(&dir);
        let fails_a_test = |text: &str| {
            let p = lower_source(text).program;
            tests.iter().any(|(input, expected)| {
                let run = interp::run(&p, "main", input, &Limits::default(), &Cancel::new());
                run.error.is_some() || String::from_utf8_lossy(&run.output) != *expected
            })
        };
        let faults = single_faults(&program, &reference);
        for kind in *kinds {
            let picked: Vec<_> =
                faults.iter().filter(|f| f.kind == *kind && fails_a_test(&f.text)).take(PER_KIND).collect();
            assert_eq!(picked.len(), PER_KIND, "{problem}: no injected {} fault fails a test", kind.name());
            for fault in picked {
                let opts = CheckOptions {
                    reference: Some(dir.join("reference.c")),
                    tests: Some(dir.join("tests")),
                    timeout: Some(Duration::from_secs(60)),
                    typed_repairs: 0,
                    ..CheckOptions::default()
                };
                // The first repair that passes the tests, as the editor shows it; the search
                // stops there (what follows only upgrades its guarantee).
                let tree = mend::syntax::parse(&fault.text, None);
                let cancel = Cancel::new();
                let first = Mutex::new(None);
                let passes = |r: &&Repair| r.guarantee.strength() >= Guarantee::Tested { tests: 0 }.strength();
                let report =
                    check_streaming(Some(&dir.join("injected.c")), &fault.text, &tree, &opts, &cancel, &|partial| {
                        let mut first = first.lock().unwrap();
                        if first.is_none() {
                            *first = partial.repairs.iter().find(passes).cloned();
                        }
                        if first.is_some() {
                            cancel.cancel();
                        }
                    });
                let repair = first
                    .into_inner()
                    .unwrap()
                    .or_else(|| report.repairs.iter().find(passes).cloned())
                    .unwrap_or_else(|| panic!("{problem}: no repair of the injected fault {}", fault.description));
                let repaired = mend::ir::apply_edits(&fault.text, &repair.edits);
                let inverse = repaired.split_whitespace().eq(reference.split_whitespace());
                assert!(
                    inverse || repair.places.len() <= 1,
                    "{problem}: the repair of {} is larger than the fault: {}",
                    fault.description,
                    repair.title
                );
                assert!(!fails_a_test(&repaired), "{problem}: the repair {} fails a test", repair.title);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, PROBLEMS.iter().map(|(_, kinds)| kinds.len()).sum::<usize>() * PER_KIND);
}
