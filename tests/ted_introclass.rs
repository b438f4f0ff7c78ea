//! The tree edit distance (`mend::ir::ted`) on IntroClass programs: symmetric, within the
//! upper bounds it replaces (each changed subtree deleted and the new one inserted; Selkow's
//! top-down distance), and its time on the largest submission (printed, never asserted).

use std::path::{Path, PathBuf};
use std::time::Instant;

use mend::ir::ted::{self, LabelledTree, Labels};
use mend::ir::walk::walk_expr;
use mend::ir::{Expr, ExprKind, Program, Severity, Span, Stmt, StmtKind, TextEdit, apply_edits};
use mend::syntax::lower::lower_source;

fn problems() -> Vec<PathBuf> {
    let Some(root) = mend::testing::shared_data("introclass") else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("a readable folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn submissions(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir.join("submissions")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

fn lower(text: &str) -> Option<Program> {
    let lowered = lower_source(text);
    lowered.diagnostics.iter().all(|d| d.severity != Severity::Error).then_some(lowered.program)
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

fn main_tree(p: &Program, labels: &mut Labels) -> LabelledTree {
    ted::function_tree(p, p.func(p.func_by_name("main").unwrap()), labels)
}

/// The old per-change bound's subtree size: the expression's nodes but implicit conversions.
fn expr_size(e: &Expr) -> usize {
    let mut n = 0;
    walk_expr(e, &mut |x| {
        if !matches!(x.kind, ExprKind::Cast { implicit: true, .. } | ExprKind::Decay(_)) {
            n += 1;
        }
    });
    n
}

/// The conditions of `if` and `while` statements, in source order.
fn conditions<'p>(s: &'p Stmt, out: &mut Vec<&'p Expr>) {
    match &s.kind {
        StmtKind::If { cond, then, els } => {
            out.push(cond);
            conditions(then, out);
            if let Some(e) = els {
                conditions(e, out);
            }
        }
        StmtKind::While { cond, body } => {
            out.push(cond);
            conditions(body, out);
        }
        StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => conditions(body, out),
        StmtKind::Block(b) => b.iter().for_each(|s| conditions(s, out)),
        StmtKind::Switch { arms, .. } => arms.iter().flat_map(|a| &a.body).for_each(|s| conditions(s, out)),
        _ => {}
    }
}

#[test]
fn symmetric_and_within_the_top_down_bound_on_submission_reference_pairs() {
    let mut pairs = 0;
    for dir in problems() {
        let reference = lower(&read(&dir.join("reference.c"))).unwrap();
        for path in submissions(&dir).iter().step_by(15) {
            let Some(student) = lower(&read(path)) else { continue };
            let (there, back) =
                (ted::program_distance(&student, &reference), ted::program_distance(&reference, &student));
            assert!(there.exact && back.exact, "{}", path.display());
            assert_eq!(there.distance, back.distance, "{}: not symmetric", path.display());
            assert!(there.distance <= there.size + back.size, "{}", path.display());
            let mut labels = Labels::default();
            let (a, b) = (main_tree(&student, &mut labels), main_tree(&reference, &mut labels));
            let d = ted::distance(&a, &b);
            assert_eq!(d, ted::distance(&b, &a), "{}", path.display());
            assert!(
                d <= ted::top_down_distance(&a, &b),
                "{}: {d} > top-down {}",
                path.display(),
                ted::top_down_distance(&a, &b)
            );
            assert!(d >= a.len().abs_diff(b.len()));
            pairs += 1;
        }
    }
    assert!(pairs >= 60, "{pairs} pairs");
}

#[test]
fn replaced_conditions_cost_at_most_the_old_per_change_bound() {
    let mut checked = 0;
    let mut below = 0;
    for dir in problems() {
        for path in submissions(&dir).iter().step_by(10) {
            let text = read(path);
            let Some(student) = lower(&text) else { continue };
            let mut conds = Vec::new();
            for f in student.funcs.iter().filter_map(|f| f.body.as_ref()) {
                conditions(f, &mut conds);
            }
            let paren = |e: &Expr| text.get(e.span.range()).is_some_and(|t| t.starts_with('(') && t.ends_with(')'));
            let conds: Vec<&Expr> = conds.into_iter().filter(|e| paren(e)).collect();
            // Each condition replaced by the next one's text; then the first two at once.
            let mut cases: Vec<Vec<(&Expr, &Expr)>> = conds.windows(2).map(|w| vec![(w[0], w[1])]).collect();
            if conds.len() >= 3 {
                cases.push(vec![(conds[0], conds[2]), (conds[1], conds[0])]);
            }
            for case in cases {
                let edits: Vec<TextEdit> = case
                    .iter()
                    .map(|(old, new)| TextEdit { span: old.span, new_text: text[new.span.range()].to_string() })
                    .collect();
                let squeezed = |e: &Expr| text[e.span.range()].split_whitespace().collect::<String>();
                if case.iter().any(|(old, new)| squeezed(old) == squeezed(new)) || overlapping(&edits) {
                    continue;
                }
                let Some(repaired) = lower(&apply_edits(&text, &edits)) else { continue };
                let bound: usize = case.iter().map(|(old, new)| expr_size(old) + expr_size(new)).sum();
                let d = ted::program_distance(&student, &repaired);
                assert!(d.exact);
                assert!(d.distance >= 1, "{}: a changed condition at distance 0", path.display());
                assert!(
                    d.distance <= bound,
                    "{}: {} > the per-change bound {bound} for {edits:?}",
                    path.display(),
                    d.distance
                );
                assert_eq!(
                    d.distance,
                    ted::program_distance(&repaired, &student).distance,
                    "{}: not symmetric",
                    path.display()
                );
                checked += 1;
                below += usize::from(d.distance < bound);
            }
        }
    }
    assert!(checked >= 100, "{checked} cases");
    // The bound counts a condition twice where the two share an operator or operands.
    assert!(below * 2 > checked, "the exact distance is below the bound in only {below} of {checked} cases");
}

fn overlapping(edits: &[TextEdit]) -> bool {
    let mut spans: Vec<Span> = edits.iter().map(|e| e.span).collect();
    spans.sort();
    spans.windows(2).any(|w| w[0].end > w[1].start)
}

/// How long the distance takes on the largest submission (run with `--release --nocapture`
/// to read the figures): Zhang–Shasha with no shortcut on its `main` against itself (the
/// worst case of the plain algorithm: nothing is decided by the bounds); [`ted::distance`]
/// against the second largest submission's `main` (two large unrelated trees: little is
/// reduced); and the whole computation ([`ted::program_distance`], trees built) against the
/// submission with one condition replaced by another (a repaired program).
#[test]
fn time_on_the_largest_submission() {
    let mut sized: Vec<(usize, PathBuf)> = Vec::new();
    for dir in problems() {
        for path in submissions(&dir) {
            let Some(p) = lower(&read(&path)) else { continue };
            sized.push((main_tree(&p, &mut Labels::default()).len(), path));
        }
    }
    sized.sort();
    let (n, path) = sized.pop().unwrap();
    let (n2, path2) = sized.pop().unwrap();
    let text = read(&path);
    let student = lower(&text).unwrap();
    let a = main_tree(&student, &mut Labels::default());
    assert!(n <= ted::EXACT_LIMIT);
    // Wall time, and this thread's time on a CPU (Linux's schedstat; the machine may be
    // shared, which only the wall time shows).
    fn on_cpu_ns() -> Option<u64> {
        std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
    }
    fn measure<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
        let (start, cpu) = (Instant::now(), on_cpu_ns());
        let out = f();
        let wall = start.elapsed().as_secs_f64() * 1000.0;
        let cpu = cpu.zip(on_cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e6);
        (out, wall, cpu)
    }
    let show = |wall: f64, cpu: Option<f64>| {
        format!("{wall:.1} ms wall{}", cpu.map_or(String::new(), |c| format!(", {c:.1} ms on CPU")))
    };
    let (raw, raw_wall, raw_cpu) = measure(|| ted::zhang_shasha(&a, &a));
    assert_eq!(raw, 0);
    let mut labels = Labels::default();
    let (x, y) = (main_tree(&student, &mut labels), main_tree(&lower(&read(&path2)).unwrap(), &mut labels));
    let (d2, far_wall, far_cpu) = measure(|| ted::distance(&x, &y));
    assert!(d2 > 0 && d2 <= ted::top_down_distance(&x, &y) && d2 >= ted::lower_bound(&x, &y));
    let mut conds = Vec::new();
    conditions(student.func(student.func_by_name("main").unwrap()).body.as_ref().unwrap(), &mut conds);
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    for w in conds.windows(2) {
        let edit = TextEdit { span: w[0].span, new_text: text[w[1].span.range()].to_string() };
        let Some(repaired) = lower(&apply_edits(&text, &[edit])) else { continue };
        let (d, wall, cpu) = measure(|| ted::program_distance(&student, &repaired));
        assert!(d.exact && d.distance <= expr_size(w[0]) + expr_size(w[1]));
        walls.push(wall);
        cpus.extend(cpu);
    }
    assert!(walls.len() >= 10);
    let stats = |v: &[f64]| (v.iter().sum::<f64>() / v.len().max(1) as f64, v.iter().copied().fold(0.0, f64::max));
    let ((mean, max), (cpu_mean, cpu_max)) = (stats(&walls), stats(&cpus));
    eprintln!("largest submission {} ({n} nodes in main)", path.display());
    eprintln!("  Zhang-Shasha, main against itself, no shortcut: {}", show(raw_wall, raw_cpu));
    eprintln!(
        "  distance to the second largest ({}, {n2} nodes): {d2} in {}",
        path2.display(),
        show(far_wall, far_cpu)
    );
    eprintln!(
        "  program_distance against {} one-condition repairs: wall mean {mean:.1} ms, max {max:.1} ms; on CPU mean {cpu_mean:.1} ms, max {cpu_max:.1} ms",
        walls.len()
    );
}
