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
