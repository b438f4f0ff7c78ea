// The paper's Fig. 2: sum of 1..n, with i starting at 0 and `i < n`.
// mend-test: level=1 bound=5 max_size=2 incremental=yes
#include <assert.h>
extern int nondet_int(void);

int sum(int n) {
    __VERIFIER_assume(n >= 1);
    int sum = 0;
    int i;
    for (i = 0; i <= n; i++)
        sum += i;
    assert(sum == n * (n + 1) / 2);
    return sum;
}

int main(void) {
    int n = nondet_int();
    sum(n);
    return 0;
}
