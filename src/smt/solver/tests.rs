use std::time::{Duration, Instant};

use z3::ast::{Ast, BV, Bool, Int};
use z3::{Optimize, SatResult};

use super::*;
use crate::cancel::Cancel;

fn budget(ms: u64) -> Budget {
    Budget::new(Duration::from_millis(ms), Cancel::new())
}

/// x * y = p * q over 64-bit factors (multiplied in 128 bits), x, y > 1: a factoring instance
/// that Z3 4.8.12 does not solve in any reasonable time.
fn assert_factoring<'ctx>(ctx: &'ctx Context, assert: impl Fn(&Bool<'ctx>)) {
    for b in crate::testing::hard_factoring_query(ctx) {
        assert(&b);
    }
}

/// n + 1 pigeons in n holes, as plain propositional clauses.
fn assert_pigeonhole<'ctx>(ctx: &'ctx Context, n: usize, assert: impl Fn(&Bool<'ctx>)) {
    let p: Vec<Vec<Bool>> =
        (0..=n).map(|i| (0..n).map(|h| Bool::new_const(ctx, format!("p{i}_{h}"))).collect()).collect();
    for row in &p {
        let refs: Vec<&Bool> = row.iter().collect();
        assert(&Bool::or(ctx, &refs));
    }
    for h in 0..n {
        for (i, pi) in p.iter().enumerate() {
            for pj in &p[i + 1..] {
                assert(&Bool::or(ctx, &[&pi[h].not(), &pj[h].not()]));
            }
        }
    }
}

#[test]
fn incremental_push_pop() {
    let ctx = new_context();
    let s = Solver::new(&ctx, budget(10_000));
    let x = Int::new_const(&ctx, "x");
    s.assert(&x.gt(&Int::from_i64(&ctx, 10)));
    assert_eq!(s.check(), Verdict::Sat);
    s.push();
    s.assert(&x.lt(&Int::from_i64(&ctx, 5)));
    assert_eq!(s.check(), Verdict::Unsat);
    s.pop(1);
    assert_eq!(s.check(), Verdict::Sat);
    s.push();
    s.assert(&x.lt(&Int::from_i64(&ctx, 12)));
    assert_eq!(s.check(), Verdict::Sat);
    let m = s.model().unwrap();
    assert_eq!(m.eval(&x, true).unwrap().as_i64(), Some(11));
    s.pop(1);
    assert_eq!(s.inner().get_assertions().len(), 1);
}

#[test]
fn unsat_core_names_the_assumptions() {
    let ctx = new_context();
    let s = Solver::new(&ctx, budget(10_000));
    let x = Int::new_const(&ctx, "x");
    let a = Bool::new_const(&ctx, "a_pos");
    let b = Bool::new_const(&ctx, "b_big");
    let c = Bool::new_const(&ctx, "c_neg");
    let zero = Int::from_i64(&ctx, 0);
    s.assert(&a.implies(&x.gt(&zero)));
    s.assert(&b.implies(&x.gt(&Int::from_i64(&ctx, 100))));
    s.assert(&c.implies(&x.lt(&zero)));
    assert_eq!(s.check_assuming(&[a.clone(), b.clone()]), Verdict::Sat);
    assert_eq!(s.check_assuming(&[a.clone(), b.clone(), c.clone()]), Verdict::Unsat);
    let core: Vec<String> = s.unsat_core().iter().map(|l| l.to_string()).collect();
    assert!(core.contains(&"c_neg".to_string()), "{core:?}");
    assert!(core.contains(&"a_pos".to_string()) || core.contains(&"b_big".to_string()), "{core:?}");
    assert!(core.len() <= 3);
    // The core literals are the assumption terms themselves.
    assert!(s.unsat_core().contains(&c));
    // Assumptions are not asserted: without them the solver is satisfiable again.
    assert_eq!(s.check(), Verdict::Sat);
}

#[test]
fn optimize_soft_constraints_give_minimal_cost() {
    let ctx = new_context();
    let opt = Optimize::new(&ctx);
    // Three "repairs" r0..r2 with costs 5, 2, 3; the hard constraint needs r0, or both r1 and r2
    // (cost 5 either way), or r1 together with r3 (cost 2 + 1): the cheapest is {r1, r3}.
    let r: Vec<Bool> = (0..4).map(|i| Bool::new_const(&ctx, format!("r{i}"))).collect();
    opt.assert(&Bool::or(&ctx, &[&r[0], &Bool::and(&ctx, &[&r[1], &r[2]]), &Bool::and(&ctx, &[&r[1], &r[3]])]));
    for (ri, w) in r.iter().zip([5u32, 2, 3, 1]) {
        opt.assert_soft(&ri.not(), w, None);
    }
    assert_eq!(check_optimize_with_budget(&opt, &[], &budget(10_000)), Verdict::Sat);
    let m = opt.get_model().unwrap();
    let chosen: Vec<bool> = r.iter().map(|ri| m.eval(ri, true).unwrap().as_bool().unwrap()).collect();
    assert_eq!(chosen, vec![false, true, false, true]);
}

#[test]
fn bit_vector_division_is_c_division() {
    let ctx = new_context();
    let bv = |v: i64| BV::from_i64(&ctx, v, 32);
    let eval = |e: BV| e.simplify().as_i64().map(|v| (v as u32) as i32);
    assert_eq!(eval(bv(-7).bvsdiv(&bv(2))), Some(-3));
    assert_eq!(eval(bv(-7).bvsrem(&bv(2))), Some(-1));
    assert_eq!(eval(bv(7).bvsdiv(&bv(-2))), Some(-3));
    assert_eq!(eval(bv(7).bvsrem(&bv(-2))), Some(1));
    // bvsmod is *not* C's %: it takes the divisor's sign.
    assert_eq!(eval(bv(-7).bvsmod(&bv(2))), Some(1));
    // INT_MIN / -1 wraps in Z3 (undefined in C).
    assert_eq!(eval(bv(i32::MIN as i64).bvsdiv(&bv(-1))), Some(i32::MIN));
    // And by the solver, not only the simplifier: x / 2 == -3 && x % 2 == -1 forces x == -7.
    let s = Solver::new(&ctx, budget(10_000));
    let x = BV::new_const(&ctx, "x", 32);
    s.assert(&x.bvsdiv(&bv(2))._eq(&bv(-3)));
    s.assert(&x.bvsrem(&bv(2))._eq(&bv(-1)));
    assert_eq!(s.check(), Verdict::Sat);
    s.assert(&x._eq(&bv(-7)).not());
    assert_eq!(s.check(), Verdict::Unsat);
}

/// A cancel interrupts a query that would run for its whole minute: each of three rounds
/// returns `Cancelled` within seconds. How fast (Z3 4.8.12 takes ~15-40 ms to notice an
/// interrupt here, the watcher adds its poll interval: 20-60 ms end to end on an idle machine,
/// over 100 ms on a loaded one) is a figure, printed here, not a pass/fail bar.
#[test]
fn cancel_from_another_thread_interrupts_a_hard_query() {
    let mut latencies = Vec::new();
    for _ in 0..3 {
        let ctx = new_context();
        let cancel = Cancel::new();
        let s = Solver::new(&ctx, Budget::new(Duration::from_secs(60), cancel.clone()));
        assert_factoring(&ctx, |b| s.assert(b));
        let canceller = {
            let cancel = cancel.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                cancel.cancel();
                Instant::now()
            })
        };
        let v = s.check();
        let returned = Instant::now();
        let cancelled_at = canceller.join().unwrap();
        assert_eq!(v, Verdict::Unknown(UnknownReason::Cancelled));
        latencies.push(returned.saturating_duration_since(cancelled_at));
    }
    latencies.sort();
    eprintln!("cancel latencies: {latencies:?}");
    assert!(latencies[2] < Duration::from_secs(10), "{latencies:?}");
}

#[test]
fn deadline_gives_timeout_not_an_answer() {
    let ctx = new_context();
    let s = Solver::new(&ctx, budget(300));
    assert_pigeonhole(&ctx, 11, |b| s.assert(b));
    let start = Instant::now();
    let v = s.check();
    let took = start.elapsed();
    assert_eq!(v, Verdict::Unknown(UnknownReason::Timeout));
    assert!(took < Duration::from_millis(1000), "took {took:?}");
}

#[test]
fn cancel_interrupts_optimize() {
    let ctx = new_context();
    let opt = Optimize::new(&ctx);
    assert_factoring(&ctx, |b| opt.assert(b));
    let cancel = Cancel::new();
    let b = Budget::new(Duration::from_secs(60), cancel.clone());
    let c2 = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        c2.cancel();
        Instant::now()
    });
    let v = check_optimize_with_budget(&opt, &[], &b);
    let latency = Instant::now().saturating_duration_since(t.join().unwrap());
    assert_eq!(v, Verdict::Unknown(UnknownReason::Cancelled));
    eprintln!("optimize cancel latency: {latency:?}");
    assert!(latency < Duration::from_millis(1000), "took {latency:?}");
}

#[test]
fn optimize_deadline_is_enforced_by_the_watcher() {
    let ctx = new_context();
    let opt = Optimize::new(&ctx);
    assert_factoring(&ctx, |b| opt.assert(b));
    let start = Instant::now();
    let v = check_optimize_with_budget(&opt, &[], &budget(200));
    assert_eq!(v, Verdict::Unknown(UnknownReason::Timeout));
    assert!(start.elapsed() < Duration::from_millis(600));
}

#[test]
fn exhausted_budget_does_not_run_z3() {
    let ctx = new_context();
    let s = Solver::new(&ctx, budget(0));
    assert_eq!(s.check(), Verdict::Unknown(UnknownReason::Timeout));
    let c = Cancel::new();
    c.cancel();
    let s = Solver::new(&ctx, Budget::new(Duration::from_secs(5), c));
    assert_eq!(s.check(), Verdict::Unknown(UnknownReason::Cancelled));
}

/// After a check was interrupted, the same context keeps answering later checks (Z3 4.8.12
/// resets its cancel flag when a check starts).
#[test]
fn context_survives_an_interrupt() {
    let ctx = new_context();
    let cancel = Cancel::new();
    let mut s = Solver::new(&ctx, Budget::new(Duration::from_secs(60), cancel.clone()));
    s.push();
    assert_factoring(&ctx, |b| s.assert(b));
    let c2 = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        c2.cancel();
    });
    assert_eq!(s.check(), Verdict::Unknown(UnknownReason::Cancelled));
    t.join().unwrap();
    s.pop(1);
    s.set_budget(budget(10_000));
    let x = Int::new_const(&ctx, "x");
    s.assert(&x.gt(&Int::from_i64(&ctx, 3)));
    assert_eq!(s.check(), Verdict::Sat);
    // An interrupt while idle does not poison the next check either.
    ctx.interrupt();
    assert_eq!(s.check(), Verdict::Sat);
    // Nor does the raw API.
    assert_eq!(s.inner().check(), SatResult::Sat);
}

/// An interrupt that lands after a check has returned (the watcher woke at the deadline just as
/// Z3's own timeout ended the check) must not poison the context: the job goes on with it (the
/// next alignment, the next node), and a cancelled context makes every later `simplify` fail.
#[test]
fn a_late_interrupt_leaves_the_context_usable() {
    let ctx = new_context();
    let x = BV::new_const(&ctx, "x", 32);
    ctx.handle().interrupt();
    super::clear_interrupt(&ctx);
    let e = x.bvadd(&BV::from_u64(&ctx, 0, 32)).simplify();
    assert_eq!(e, x);
}
