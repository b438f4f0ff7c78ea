//! The typed engine's accuracy on IntroClass, with a regression floor: calls and assignments of a
//! fixed, spread-out subset of the programs (every problem's reference and every 40th
//! submission in path order) are broken one way at a time and repaired; the original must come
//! back first / in the first three often enough. The full figures and all timings are
//! `mend bench typed` (release); no timing is asserted here.

use mend::cli::bench_typed as bench;

#[test]
fn introclass_breakages_are_repaired() {
    let Some(root) = mend::testing::shared_data("introclass") else { return };
    let mut problems: Vec<_> = std::fs::read_dir(&root)
        .expect("the IntroClass data exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    problems.sort();
    let mut files = Vec::new();
    for dir in problems {
        files.push(dir.join("reference.c"));
        let mut subs: Vec<_> = std::fs::read_dir(dir.join("submissions")).unwrap().map(|e| e.unwrap().path()).collect();
        subs.sort();
        files.extend(subs.into_iter().step_by(40));
    }
    let texts: Vec<String> =
        files.iter().map(|f| String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned()).collect();
    let r = bench::evaluate(&texts, 3, false);
    let t = r.total();
    let rate = |k: usize| k as f64 / t.cases as f64;
    eprintln!("{} cases: top-1 {:.3}, top-3 {:.3}; {:?}", t.cases, rate(t.top1), rate(t.top3), r.per_kind);
    assert!(t.cases > 500, "{} cases", t.cases);
    // A regression floor a couple of points under the measured 0.871 / 0.912 on this subset
    // (2026-11-23, with the data-flow and declaration-order signals for dropped arguments;
    // 0.806 / 0.849 before them, 0.586 / 0.631 earlier). Dropped arguments are the weak kind
    // (0.51 / 0.67 here): the argument was often an expression (`abs(k)`, `d[i]`) or one of
    // several variables nothing tells apart; the other kinds are at 0.96 and more.
    assert!(rate(t.top1) >= 0.85, "top-1 {:.3}", rate(t.top1));
    assert!(rate(t.top3) >= 0.89, "top-3 {:.3}", rate(t.top3));
}
