use super::*;
use crate::syntax::lower::lower_source;

fn run(src: &str, bound: u32) -> BmcResult {
    let l = lower_source(src);
    verify(&l.program, "main", bound, &Budget::unlimited(Cancel::new()))
}

#[test]
fn sum_buggy_is_violated() {
    let r = run(
        "#include <assert.h>\nint main(){int n; scanf(\"%d\",&n); int sum=0; for(int i=0;i<n;i++) sum+=i; assert(sum == n*(n+1)/2); return 0;}",
        5,
    );
    match r.verdict {
        BmcVerdict::Violated(c) => {
            assert_eq!(c.replay, Replay::Confirmed, "{c:?}");
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn exhausted_budget_is_unknown_never_holds() {
    let l = lower_source("int main(void){ int x = nondet_int(); assert(x * x != 17); return 0; }");
    let b = Budget::new(std::time::Duration::ZERO, Cancel::new());
    let r = verify(&l.program, "main", 2, &b);
    assert!(matches!(r.verdict, BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::Timeout))), "{:?}", r.verdict);
    let c = Cancel::new();
    c.cancel();
    let r = verify(&l.program, "main", 2, &Budget::unlimited(c));
    assert!(matches!(r.verdict, BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::Cancelled))), "{:?}", r.verdict);
    assert_eq!(r.proved_for_all_runs(), None);
}

#[test]
fn scanf_text_keeps_literals_and_separates_values() {
    assert_eq!(scanf_text(b"%d%d", &["1", "-2"]), "1 -2\n");
    assert_eq!(scanf_text(b"%d,%d", &["1", "2"]), "1,2\n");
    assert_eq!(scanf_text(b" %c", &["x"]), "x\n");
    assert_eq!(scanf_text(b"%d\n", &["7"]), "7\n");
}

#[test]
fn missing_entry_is_unsupported() {
    let l = lower_source("int f(void){ return 0; }");
    let r = verify(&l.program, "main", 2, &Budget::unlimited(Cancel::new()));
    assert!(matches!(r.verdict, BmcVerdict::Unknown(BmcUnknown::Unsupported(_))));
}

#[test]
fn exponential_unwinding_is_refused_not_hung() {
    let src = "int fib(int n){ if (n < 2) return n; return fib(n-1) + fib(n-2); }
int main(void){ int n = nondet_int(); return fib(n); }";
    let r = run(src, 30);
    match r.verdict {
        BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => assert!(u.what.contains("unwinds"), "{u}"),
        v => panic!("{v:?}"),
    }
    let r = run(src, 4);
    assert_eq!(r.proved_for_all_runs(), Some(false));
}
