//! The split of a function's nodes into independent parts, and parallel solving's agreement
//! with the sequential order.

use std::collections::HashMap;
use std::time::Duration;

use super::*;
use crate::cancel::Cancel;

fn lower(src: &str) -> Program {
    let l = crate::syntax::lower::lower_source(src);
    assert!(l.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error), "{:?}", l.diagnostics);
    l.program
}

/// The parts [`Job::components`] finds for `entry` of the student against the reference.
fn parts_of(student: &str, reference: &str, entry: &str) -> Vec<Vec<Node>> {
    with_task(student, reference, entry, |task| {
        let (rs, ss) = task.sides().unwrap();
        let arena = extension_arena(&ss);
        let ctx = new_context();
        let mut job = Job::for_sites(&ctx, &rs, &ss, task.opts, task.budget, &arena)
            .unwrap_or_else(|f| panic!("{}", f.describe()));
        job.components()
    })
}

/// `f` on the pair task of `entry` of the student against the reference (values compared).
fn with_task<T>(student: &str, reference: &str, entry: &str, f: impl FnOnce(&PairTask<'_>) -> T) -> T {
    let (s, r) = (lower(student), lower(reference));
    let (sf, rf) = (s.func_by_name(entry).unwrap(), r.func_by_name(entry).unwrap());
    let names = |p: &Program| -> HashMap<FuncId, String> {
        (0..p.funcs.len() as u32).map(|i| (FuncId(i), p.func(FuncId(i)).name.clone())).collect()
    };
    let (ref_names, stu_names) = (names(&r), names(&s));
    let opts = Options {
        entry: entry.to_string(),
        compare: Compare::Values,
        precondition: None,
        floats: FloatModel::Ieee,
        candidates: None,
        line_in_input: true,
        start_values: Vec::new(),
    };
    let budget = Budget::new(Duration::from_secs(60), Cancel::new());
    f(&PairTask {
        student: &s,
        reference: &r,
        s: sf,
        r: rf,
        text: student,
        opts: &opts,
        pre: None,
        budget: &budget,
        ref_names: &ref_names,
        stu_names: &stu_names,
    })
}

/// `s` sums `n` down to 0 in the first loop, the second halves it: the loops share no site,
/// and nothing the entry region writes is kept to the loops (`n` and `s` change there).
const TWO_LOOPS: &str = "#include <stdio.h>
int main(void) {
    int n, s;
    scanf(\"%d\", &n);
    s = 0;
    while (n > 0) {
        s = s + n;
        n = n - 1;
    }
    printf(\"%d\\n\", s);
    while (s > 1) {
        s = s / 2;
    }
    printf(\"%d\\n\", s);
    return 0;
}
";

/// The outer `for`'s step `i++` ends both the outer body's path that skips the inner loop
/// (Loop-Entry 0) and the one after it (Loop-Exit 1); `n` is rewritten after the loops, so
/// nothing is frozen.
const SHARED_STEP: &str = "#include <stdio.h>
int main(void) {
    int n, i, k, s;
    scanf(\"%d\", &n);
    s = 0;
    for (i = 0; i < n; i++) {
        if (i % 2 == 0) {
            k = i;
            while (k > 0) {
                k = k - 2;
                s = s + 1;
            }
        }
    }
    n = s;
    printf(\"%d\\n\", n);
    return 0;
}
";

/// `TWO_LOOPS` with `n` read before the loops and never written again: a frozen variable,
/// so every loop node's check re-runs the repaired entry region.
const FROZEN: &str = "#include <stdio.h>
int main(void) {
    int n, i, s;
    scanf(\"%d\", &n);
    s = 0;
    i = 0;
    while (i < n) {
        s = s + i;
        i = i + 1;
    }
    printf(\"%d\\n\", s);
    while (s > n) {
        s = s / 2;
    }
    printf(\"%d\\n\", s);
    return 0;
}
";

/// The reference counts `n` down at the start of the outer body, the student at its end,
/// after the inner loop: `Extend` adds an assignment to `n` at the end of the student's outer
/// body (a hole of Loop-Entry 0), which only Loop-Exit 1's region runs.
const TAIL_REF: &str = "#include <stdio.h>
int main(void) {
    int n, k, s;
    scanf(\"%d\", &n);
    s = 0;
    while (n > 0) {
        n = n - 1;
        k = n;
        while (k > 0) {
            k = k - 1;
            s = s + 1;
        }
    }
    printf(\"%d\\n\", s);
    return 0;
}
";
const TAIL_STUDENT: &str = "#include <stdio.h>
int main(void) {
    int n, k, s;
    scanf(\"%d\", &n);
    s = 0;
    while (n > 0) {
        k = n;
        while (k > 0) {
            k = k - 1;
            s = s + 1;
        }
        n = n - 1;
    }
    printf(\"%d\\n\", s);
    return 0;
}
";

const TWO_LOOPS_TWO_BUGS: &str = "#include <stdio.h>
int main(void) {
    int n, s;
    scanf(\"%d\", &n);
    s = 0;
    while (n > 0) {
        s = s - n;
        n = n - 1;
    }
    printf(\"%d\\n\", s);
    while (s > 2) {
        s = s / 2;
    }
    printf(\"%d\\n\", s);
    return 0;
}
";

fn part_of(parts: &[Vec<Node>], n: Node) -> usize {
    parts.iter().position(|p| p.contains(&n)).unwrap_or_else(|| panic!("{n:?} in no part of {parts:?}"))
}

#[test]
fn loops_with_disjoint_sites_are_separate_parts() {
    let parts = parts_of(TWO_LOOPS, TWO_LOOPS, "main");
    assert_eq!(
        parts,
        vec![
            vec![Node::FuncEntry],
            vec![Node::LoopEntry(0)],
            vec![Node::LoopExit(0)],
            vec![Node::LoopEntry(1)],
            vec![Node::LoopExit(1)]
        ]
    );
}

#[test]
fn a_shared_loop_step_puts_both_regions_in_one_part() {
    let parts = parts_of(SHARED_STEP, SHARED_STEP, "main");
    // `i++` is a hole of both Loop-Entry 0 and Loop-Exit 1 (in node order within the part).
    let outer = part_of(&parts, Node::LoopEntry(0));
    assert_eq!(part_of(&parts, Node::LoopExit(1)), outer);
    let p = &parts[outer];
    assert!(
        p.iter().position(|n| *n == Node::LoopEntry(0)) < p.iter().position(|n| *n == Node::LoopExit(1)),
        "{parts:?}"
    );
    // The inner loop's body and what follows the outer loop share nothing with them.
    assert_ne!(part_of(&parts, Node::LoopEntry(1)), outer);
    assert_ne!(part_of(&parts, Node::LoopExit(0)), outer);
    assert_ne!(part_of(&parts, Node::LoopEntry(1)), part_of(&parts, Node::LoopExit(0)));
    // Func-Entry's part comes first.
    assert!(parts[0].contains(&Node::FuncEntry));
}

#[test]
fn frozen_variables_keep_the_function_in_one_part() {
    // The loops' sites are as disjoint as in `TWO_LOOPS`, but `n` is frozen.
    assert_eq!(
        parts_of(FROZEN, FROZEN, "main"),
        vec![vec![Node::FuncEntry, Node::LoopEntry(0), Node::LoopExit(0), Node::LoopEntry(1), Node::LoopExit(1)]]
    );
}

#[test]
fn a_site_another_region_runs_joins_that_region() {
    // The `Extend` assignment at the end of the outer body is Loop-Entry 0's hole, but only
    // Loop-Exit 1's region runs it: the hole sets alone do not meet.
    let parts = parts_of(TAIL_STUDENT, TAIL_REF, "main");
    assert_eq!(part_of(&parts, Node::LoopEntry(0)), part_of(&parts, Node::LoopExit(1)), "{parts:?}");
    assert!(parts.len() >= 2, "{parts:?}");
}

/// Parallel and sequential solving on the same problem: equal outcomes, each from an empty
/// node cache (so both solve every node).
fn agree(name: &str, student: &str, reference: &str) {
    assert!(parts_of(student, reference, "main").len() >= 2, "{name}: not split, the test would not solve in parallel");
    let (s, r) = (lower(student), lower(reference));
    let opts = Options {
        entry: "main".to_string(),
        compare: Compare::Values,
        precondition: None,
        floats: FloatModel::Ieee,
        candidates: None,
        line_in_input: true,
        start_values: Vec::new(),
    };
    let solve = |parallel: bool| {
        node_cache::clear();
        let budget = Budget::new(Duration::from_secs(120), Cancel::new());
        let mut checks = 0;
        let outcome = run_with(&s, student, &r, &opts, None, &budget, &mut checks, parallel, &mut Vec::new());
        // (Checks are counted only for an answer.)
        assert!(outcome.is_err() || checks > 0, "{name}: nothing solved");
        outcome
    };
    let parallel = solve(true);
    let sequential = solve(false);
    assert_eq!(parallel, sequential, "{name}");
    assert!(!matches!(parallel, Err(Failure::Timeout | Failure::Internal)), "{name}: {parallel:?}");
}

#[test]
fn parallel_and_sequential_repairs_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verified");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    // Multi-node fixtures whose nodes are independent: a repair at Loop-Entry, one at
    // Loop-Exit, no repair at Func-Entry, equivalent as written.
    for (student, reference) in [
        ("digits_loop_bug.c", "digits.ref.c"),
        ("checksum_offset.c", "checksum.ref.c"),
        ("checksum_test_first.c", "checksum.ref.c"),
        ("checksum_getchar.c", "checksum.ref.c"),
    ] {
        agree(student, &read(student), &read(reference));
    }
    // Changes in two parts at once.
    agree("two loops, two bugs", TWO_LOOPS_TWO_BUGS, TWO_LOOPS);
    // Each part sends its candidates as its nodes are solved; the parts' newest messages
    // together are the whole program's candidate, here the repair itself.
    let (to, sent) = std::sync::mpsc::channel();
    let Ok(Outcome::Repaired(r)) = ({
        let (s, r) = (lower(TWO_LOOPS_TWO_BUGS), lower(TWO_LOOPS));
        let opts = Options {
            entry: "main".to_string(),
            compare: Compare::Values,
            precondition: None,
            floats: FloatModel::Ieee,
            candidates: Some(Candidates::new(to, TWO_LOOPS_TWO_BUGS)),
            line_in_input: true,
            start_values: Vec::new(),
        };
        run_with(
            &s,
            TWO_LOOPS_TWO_BUGS,
            &r,
            &opts,
            None,
            &Budget::new(Duration::from_secs(120), Cancel::new()),
            &mut 0,
            true,
            &mut Vec::new(),
        )
    }) else {
        panic!("two loops, two bugs: not repaired")
    };
    let changes: Vec<(&str, &str)> = r.changes.iter().map(|c| (c.old.as_str(), c.new.as_str())).collect();
    assert_eq!(changes, vec![("s - n", "s + n"), ("s > 2", "s > 1")]);
    let mut newest = BTreeMap::new();
    for c in sent.try_iter() {
        newest.insert(c.part, c.changes);
    }
    assert!(newest.len() >= 2, "one message per part: {:?}", newest.keys());
    let mut whole: Vec<TextEdit> = newest.into_values().flatten().map(|(_, e)| e).collect();
    whole.sort_by_key(|e| (e.span.start, e.span.end));
    assert_eq!(whole, r.edits);
}

#[test]
fn functions_pair_by_name_else_by_signature_and_loops() {
    let reference = lower(
        "int sq(int n) { return n * n; }\nint f(int n) { int i, s = 0; for (i = 0; i < n; i++) s += i; return s; }\nint main(void) { return f(3) + sq(2); }",
    );
    let named = |r: &Program, s: &Program| -> Result<Vec<(String, String)>, Failure> {
        match_functions(s, r, "main")
            .map(|pairs| pairs.into_iter().map(|(s_, r_)| (s.func(s_).name.clone(), r.func(r_).name.clone())).collect())
    };
    // `total` has `f`'s signature and loop; `square` has `sq`'s (no loop).
    let student = lower(
        "int square(int n) { return n * n; }\nint total(int k) { int j, t = 0; while (j < k) { t += j; j++; } return t; }\nint main(void) { return total(3) + square(2); }",
    );
    let mut pairs = named(&reference, &student).unwrap();
    pairs.sort();
    assert_eq!(
        pairs,
        [("main", "main"), ("square", "sq"), ("total", "f")].map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Two loop-free one-parameter functions could each be `sq`: no guess.
    let ambiguous = lower(
        "int a(int n) { return n; }\nint b(int n) { return -n; }\nint f(int n) { int i; for (i = 0; i < n; i++) ; return i; }\nint main(void) { return a(1) + b(2) + f(3); }",
    );
    assert!(matches!(named(&reference, &ambiguous), Err(Failure::StructuralMismatch(m)) if m.contains("several")));
    // `f`'s counterpart must have a loop.
    let no_loop =
        lower("int sq(int n) { return n * n; }\nint g(int n) { return n; }\nint main(void) { return g(3) + sq(2); }");
    assert!(
        matches!(named(&reference, &no_loop), Err(Failure::StructuralMismatch(m)) if m.contains("no function of yours"))
    );
}

#[test]
fn candidates_of_a_retyped_copy_are_edits_of_the_students_text() {
    // The student computes in `float` where the reference computes in `double`: the engine
    // repairs a retyped copy, and its candidates come back as edits of the student's own text
    // with the type changes, the last one the repair itself.
    let reference = "#include <stdio.h>\nint main(void) {\n    double a, b;\n    scanf(\"%lf%lf\", &a, &b);\n    if (a > b)\n        printf(\"%f\\n\", a);\n    else\n        printf(\"%f\\n\", b);\n    return 0;\n}\n";
    let student = "#include <stdio.h>\nint main(void) {\n    float a, b;\n    scanf(\"%f%f\", &a, &b);\n    if (a < b)\n        printf(\"%f\\n\", a);\n    else\n        printf(\"%f\\n\", b);\n    return 0;\n}\n";
    let (to, sent) = std::sync::mpsc::channel();
    let opts = Options {
        entry: "main".to_string(),
        compare: Compare::Values,
        precondition: None,
        floats: FloatModel::Ieee,
        candidates: Some(Candidates::new(to, student)),
        line_in_input: true,
        start_values: Vec::new(),
    };
    let report = repair(
        &lower(student),
        student,
        &lower(reference),
        &opts,
        &Budget::new(Duration::from_secs(120), Cancel::new()),
    );
    let Outcome::Repaired(r) = report.outcome else { panic!("not repaired: {:?}", report.outcome) };
    let in_order = |mut edits: Vec<TextEdit>| {
        edits.sort_by_key(|e| (e.span.start, e.span.end));
        edits
    };
    let news: Vec<&str> = r.changes.iter().map(|c| c.new.as_str()).collect();
    assert!(news.contains(&"double") && news.contains(&"a > b"), "{news:?}");
    let last = sent.try_iter().last().expect("candidates sent");
    assert!(!last.assuming);
    let spans = |changes: Vec<&Change>| {
        let mut spans: Vec<(Span, String)> = changes.into_iter().map(|c| (c.span, c.new.clone())).collect();
        spans.sort_by_key(|(s, _)| (s.start, s.end));
        spans
    };
    assert_eq!(spans(last.changes.iter().map(|(c, _)| c).collect()), spans(r.changes.iter().collect()));
    assert_eq!(in_order(last.changes.into_iter().map(|(_, e)| e).collect()), in_order(r.edits));
}

/// Each turn as (index, others wait, retry).
type Turns = Vec<(usize, bool, bool)>;

/// The turns [`pairs::over_alignments`] gives when `answer` says how each try ends, and its
/// final answer (`Ok` as the index of the alignment that gave a repair).
fn turns(count: usize, answer: impl Fn(pairs::Turn) -> Result<(), Failure>) -> (Turns, Result<(), Failure>) {
    let budget = Budget::new(Duration::from_secs(60), Cancel::new());
    let mut seen = Vec::new();
    let result = pairs::over_alignments("f", count, &budget, |turn| {
        seen.push((turn.index, turn.others_wait, turn.retry));
        answer(turn).map(|()| Vec::new())
    });
    (seen, result.map(|_| ()))
}

#[test]
fn an_alignment_cut_short_by_its_share_is_tried_again_with_all_the_time_left() {
    // Alignment 0's proof needs more than its share; alignment 1 admits no repair.
    let (seen, result) = turns(2, |t| match (t.index, t.others_wait) {
        (0, true) => Err(Failure::Timeout),
        (0, false) => Ok(()),
        _ => Err(Failure::NoRepair(String::new())),
    });
    // Alignment 1 still shares: alignment 0 waits for its second try.
    assert_eq!(seen, [(0, true, false), (1, true, false), (0, false, true)]);
    assert!(result.is_ok(), "{result:?}");
}

#[test]
fn no_repair_is_the_answer_only_when_every_space_was_searched_to_its_end() {
    let searched = turns(3, |_| Err(Failure::NoRepair(String::new())));
    assert_eq!(searched.0, [(0, true, false), (1, true, false), (2, false, false)]);
    assert!(matches!(searched.1, Err(Failure::NoRepair(_))), "{:?}", searched.1);
    // Alignment 0 never finishes, even with all the time left: out of time, not "no repair".
    let (seen, result) =
        turns(2, |t| if t.index == 0 { Err(Failure::Timeout) } else { Err(Failure::NoRepair(String::new())) });
    assert_eq!(seen, [(0, true, false), (1, true, false), (0, false, true)]);
    assert!(matches!(result, Err(Failure::Timeout)), "{result:?}");
}

/// A part whose job cannot be set up (here: the two programs read their input in kinds the
/// model cannot pair; in the field, a budget that ends while the part's job is built) answers
/// each turn with why. It once returned without a word, and the repair read as an internal
/// error.
#[test]
fn a_part_that_cannot_start_says_why() {
    let chars = "#include <stdio.h>\nint main(void) { int c = getchar(); printf(\"%d\\n\", c); return 0; }";
    let numbers = "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); printf(\"%d\\n\", n); return 0; }";
    with_task(chars, numbers, "main", |task| {
        let expected = match task.sides() {
            Err(failure) => failure,
            Ok((rs, ss)) => {
                let (arena, ctx) = (extension_arena(&ss), new_context());
                let job = Job::build(&ctx, &rs, &ss, task.opts, task.budget, &arena, Some(Default::default()));
                job.err().expect("the programs' inputs cannot be paired")
            }
        };
        let (to_worker, commands) = std::sync::mpsc::channel();
        let (replies, from_worker) = std::sync::mpsc::channel();
        to_worker.send((BTreeMap::new(), false)).unwrap();
        to_worker.send((BTreeMap::new(), false)).unwrap();
        drop(to_worker);
        pairs::part_worker(task, &[Node::FuncEntry], Default::default(), commands, replies);
        let answers: Vec<_> = from_worker.iter().map(|(result, _)| result.map(|_| ()).map_err(|(_, f)| f)).collect();
        assert_eq!(answers, vec![Err(expected.clone()), Err(expected)]);
    });
}
