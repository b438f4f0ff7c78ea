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

/// The violated check of a program expected to fail, replayed in the interpreter.
fn violation(src: &str, bound: u32) -> (ViolationKind, String) {
    match run(src, bound).verdict {
        BmcVerdict::Violated(c) => {
            assert_eq!(c.replay, Replay::Confirmed, "{c:?}");
            (c.kind, c.stdin)
        }
        v => panic!("expected a violation: {v:?}"),
    }
}

const LIST: &str = "#include <stdio.h>\n#include <stdlib.h>\n#include <assert.h>
struct node { int v; struct node *next; };
struct node *push(struct node *head, int v) {
    struct node *n = malloc(sizeof(struct node));
    n->v = v;
    n->next = head;
    return n;
}
";

#[test]
fn a_list_built_with_malloc_is_tracked_node_by_node() {
    let src = format!(
        "{LIST}int main(void) {{ int n, i, x, c = 0; struct node *h = NULL, *p;
    scanf(\"%d\", &n);
    for (i = 0; i < n; i++) {{ scanf(\"%d\", &x); h = push(h, x); }}
    for (p = h; p != NULL; p = p->next) c++;
    assert(n < 0 || c == n);
    while (h != NULL) {{ p = h; h = h->next; free(p); }}
    return 0; }}"
    );
    assert!(matches!(run(&src, 4).verdict, BmcVerdict::Holds { complete: false }), "{:?}", run(&src, 4).verdict);
    // The last node pushed is the head: a wrong claim about it is found, with its input.
    let wrong = src.replace("assert(n < 0 || c == n);", "assert(h == NULL || h->v != 7);");
    let (kind, stdin) = violation(&wrong, 4);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.contains('7'), "{stdin}");
}

#[test]
fn heap_faults_are_the_interpreters_runtime_errors() {
    let main = |body: &str| {
        format!("{LIST}int main(void) {{ int n; struct node *h = NULL; scanf(\"%d\", &n); {body} return 0; }}")
    };
    // A null dereference: the list is empty when n is 0.
    let (kind, _) = violation(&main("if (n > 0) h = push(h, n); printf(\"%d\\n\", h->v);"), 2);
    assert_eq!(kind, ViolationKind::NullDereference);
    // Use after free, and a double free.
    let (kind, _) = violation(&main("h = push(h, n); free(h); if (n == 3) printf(\"%d\\n\", h->v);"), 2);
    assert_eq!(kind, ViolationKind::UseAfterFree);
    let (kind, _) = violation(&main("h = push(h, n); free(h); if (n == 3) free(h);"), 2);
    assert_eq!(kind, ViolationKind::InvalidFree);
    // Freeing what malloc did not return.
    let (kind, _) = violation(&main("struct node s; if (n == 1) free(&s);"), 2);
    assert_eq!(kind, ViolationKind::InvalidFree);
    // An array from malloc of a size read from the input.
    let (kind, stdin) =
        violation(&main("int *a = malloc(n * sizeof(int)); if (n >= 0 && n < 4) a[n] = 1; free(a);"), 2);
    assert_eq!(kind, ViolationKind::OutOfBounds, "{stdin}");
}

#[test]
fn structs_in_variables_are_copied_field_by_field() {
    let src = "#include <assert.h>
struct pt { int x; int y; };
int main(void) { struct pt a = {1, 2}, b; int n = nondet_int();
    b = a; b.x = n; a.y = a.y + b.x;
    assert(b.y == 2 && a.x == 1 && a.y == n + 2);
    struct pt *p = &b; p->y = 5; assert(b.y == 5);
    return 0; }";
    assert!(matches!(run(src, 2).verdict, BmcVerdict::Holds { complete: true }), "{:?}", run(src, 2).verdict);
}

#[test]
fn a_loop_reading_to_the_end_of_the_input_ends_there() {
    // The sum of every number read: the end of the input ends the loop, so the loop is
    // proved within the bound, and a wrong claim is refuted with an input that ends.
    let src = "#include <stdio.h>\n#include <assert.h>
int main(void) { int x, s = 0, c = 0; while (scanf(\"%d\", &x) == 1) { s += x; c++; } assert(c < 3 || s != 9); return 0; }";
    let (kind, stdin) = violation(src, 4);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.split_whitespace().count() >= 3, "{stdin}");
    // scanf returns EOF (-1), not 0, at the end: a `!= 0` loop never ends and is cut.
    let never = src.replace("== 1", "!= 0").replace("assert(c < 3 || s != 9);", "assert(0);");
    assert!(matches!(run(&never, 3).verdict, BmcVerdict::Holds { complete: false }), "{:?}", run(&never, 3).verdict);
    // A suppressed directive assigns nothing: the end of the input after it is still EOF.
    let skip = "#include <stdio.h>\n#include <assert.h>
int main(void) { int x; assert(scanf(\"%*d %d\", &x) != 0); return 0; }";
    assert!(matches!(run(skip, 3).verdict, BmcVerdict::Holds { .. }), "{:?}", run(skip, 3).verdict);
}

#[test]
fn strcpy_and_strcat_write_the_words_they_copy() {
    let src = "#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n#include <assert.h>
int main(void) { char a[8], b[8], both[16]; scanf(\"%7s %7s\", a, b);
    strcpy(both, a); strcat(both, b);
    assert(strlen(both) == strlen(a) + strlen(b));
    char *copy = malloc(strlen(a) + 1); strcpy(copy, a); assert(strcmp(copy, a) == 0); free(copy);
    return 0; }";
    assert!(matches!(run(src, 3).verdict, BmcVerdict::Holds { .. }), "{:?}", run(src, 3).verdict);
    // One byte short: the copy's NUL is written past the block.
    let short = src.replace("malloc(strlen(a) + 1)", "malloc(strlen(a))");
    let (kind, _) = violation(&short, 3);
    assert_eq!(kind, ViolationKind::OutOfBounds);
}

#[test]
fn a_string_chosen_by_a_condition_is_printed_as_either() {
    let src = "#include <stdio.h>\n#include <assert.h>
int main(void) { int n; scanf(\"%d\", &n); const char *s = n > 0 ? \"yes\" : \"no\"; printf(\"%s\\n\", s); assert(s[0] != 'n' || n <= 0); return 0; }";
    assert!(matches!(run(src, 2).verdict, BmcVerdict::Holds { complete: true }), "{:?}", run(src, 2).verdict);
}

fn against(student: &str, reference: &str, bound: u32) -> BmcResult {
    let (s, r) = (lower_source(student), lower_source(reference));
    verify_against(&s.program, &r.program, Compare::Exact, "main", bound, &Budget::unlimited(Cancel::new()))
}

#[test]
fn characters_are_read_one_by_one_up_to_the_end() {
    // `getchar` gives each byte, then -1 once the input has ended.
    let count = "#include <stdio.h>\n#include <assert.h>
int main(void) { int c, n = 0, lines = 0; while ((c = getchar()) != EOF) { n++; if (c == '\\n') lines++; }
    assert(lines <= n); assert(lines > 0); assert(n != 3 || lines != 2); return 0; }";
    let (kind, stdin) = violation(count, 4);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.len() == 3 && stdin.matches('\n').count() == 2, "{stdin:?}");
    // `scanf("%c")` stops at the end and returns EOF; what it read is in its variable.
    let pairs = "#include <stdio.h>\n#include <assert.h>
int main(void) { char a = 'x', b = 'y'; int r = scanf(\"%c%c\", &a, &b); assert(r != 1 || b == 'y'); assert(r != 2 || a != 'q'); return 0; }";
    let (kind, stdin) = violation(pairs, 2);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.starts_with('q') && stdin.len() >= 2, "{stdin:?}");
}

#[test]
fn numbers_and_words_beside_characters_are_read_from_the_characters() {
    // `%d` stops at the first byte that is no digit; `getchar` reads that byte.
    let after = "#include <stdio.h>\n#include <assert.h>
int main(void) { int n, c, r = scanf(\"%d\", &n); c = getchar(); assert(r != 1 || c != 'x'); return 0; }";
    let (kind, stdin) = violation(after, 2);
    assert_eq!(kind, ViolationKind::Assertion);
    let number = stdin.trim_start().trim_start_matches(['+', '-']);
    assert!(
        number.starts_with(|c: char| c.is_ascii_digit())
            && number.trim_start_matches(|c: char| c.is_ascii_digit()).starts_with('x'),
        "{stdin:?}"
    );
    // So a digit never follows a number read: holds (cut where spaces or digits run long).
    let digits = "#include <stdio.h>\n#include <assert.h>
int main(void) { int n, c; if (scanf(\"%d\", &n) == 1 && n == 42) { c = getchar(); assert(c < '0' || c > '9'); } return 0; }";
    assert!(matches!(run(digits, 2).verdict, BmcVerdict::Holds { .. }), "{:?}", run(digits, 2).verdict);
    // A word ends before white space or the end of the input, and has its NUL.
    let word = "#include <stdio.h>\n#include <string.h>\n#include <assert.h>
int main(void) { char w[8]; int c; if (scanf(\"%7s\", w) == 1) { c = getchar(); assert(c == EOF || c == ' ' || c == '\\n' || c == '\\t' || c == '\\v' || c == '\\f' || c == '\\r'); assert(strlen(w) < 3); } return 0; }";
    let (kind, stdin) = violation(word, 2);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.split_whitespace().next().is_some_and(|w| w.len() >= 3), "{stdin:?}");
    // A scan set takes the bytes up to the first one outside it: a line, spaces and all.
    let line = "#include <stdio.h>\n#include <string.h>\n#include <assert.h>
int main(void) { char w[8]; int c; if (scanf(\"%7[^\\n]\", w) == 1) { c = getchar(); assert(c == EOF || c == '\\n' || strlen(w) == 7); assert(w[0] != ' ' && w[1] != ' '); } return 0; }";
    let (kind, stdin) = violation(line, 2);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.lines().next().is_some_and(|l| l.contains(' ')), "{stdin:?}");
    // A tab is white space, as glibc's `isspace` says: it ends a word, and input may hold it.
    let tab = "#include <stdio.h>\n#include <assert.h>
int main(void) { char w[8]; if (scanf(\"%7s\", w) == 1) assert(getchar() != '\\t'); return 0; }";
    let (kind, stdin) = violation(tab, 2);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.contains('\t'), "{stdin:?}");
    // Numbers read beside `nondet` values are not input text.
    let nondet = "#include <stdio.h>\nint main(void) { int n = __VERIFIER_nondet_int(); return getchar() + n; }";
    assert!(
        matches!(run(nondet, 2).verdict, BmcVerdict::Unknown(BmcUnknown::Unsupported(_))),
        "{:?}",
        run(nondet, 2).verdict
    );
}

#[test]
fn a_word_read_with_scanf_is_compared_with_one_read_with_getchar() {
    let reference = "#include <stdio.h>
int main(void) { char s[10]; if (scanf(\"%s\", s) != 1) return 0; printf(\"%s\\n\", s); return 0; }";
    let same = "#include <stdio.h>\n#include <ctype.h>
int main(void) { char s[10]; int c, i = 0;
    while (isspace(c = getchar())) ;
    while (c != EOF && !isspace(c) && i < 9) { s[i++] = c; c = getchar(); }
    s[i] = '\\0';
    if (i > 0) printf(\"%s\\n\", s);
    return 0; }";
    let r = against(same, reference, 3);
    assert!(matches!(r.verdict, BmcVerdict::Holds { .. }), "{:?}", r.verdict);
    // A student who stops only at the line break prints the words after a space too.
    let wrong = same.replace("!isspace(c)", "c != '\\n'");
    match against(&wrong, reference, 3).verdict {
        BmcVerdict::Violated(c) => {
            let line = c.stdin.trim_start().split('\n').next().unwrap_or("").to_string();
            assert!(line.bytes().any(|b| matches!(b, b' ' | b'\t' | 0x0b | 0x0c | b'\r')), "{:?}", c.stdin)
        }
        v => panic!("{v:?}"),
    }
    // One who knows only the space and the line break reads a tab (or `\\v`, `\\f`, `\\r`)
    // into the word, where scanf ends it.
    let narrow = same
        .replace("isspace(c = getchar())", "(c = getchar()) == ' ' || c == '\\n'")
        .replace("!isspace(c)", "c != ' ' && c != '\\n'");
    match against(&narrow, reference, 3).verdict {
        BmcVerdict::Violated(c) => {
            assert!(c.stdin.bytes().any(|b| matches!(b, b'\t' | 0x0b | 0x0c | b'\r')), "{:?}", c.stdin)
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn a_line_read_with_fgets_is_read_from_the_same_characters() {
    let src = "#include <stdio.h>\n#include <string.h>\n#include <assert.h>
int main(void) { char s[6]; int c;
    if (fgets(s, 6, stdin) == NULL) return 0;
    assert(strlen(s) >= 1 && strlen(s) <= 5);
    c = getchar();
    assert(s[strlen(s) - 1] == '\\n' || strlen(s) == 5 || c == EOF);
    return 0; }";
    assert!(matches!(run(src, 3).verdict, BmcVerdict::Holds { .. }), "{:?}", run(src, 3).verdict);
    // The line keeps its '\n': a claim that it does not is refuted with a line.
    let wrong = src.replace("c = getchar();", "c = getchar(); assert(s[0] != '\\n');");
    let (kind, stdin) = violation(&wrong, 3);
    assert_eq!(kind, ViolationKind::Assertion);
    assert!(stdin.starts_with('\n'), "{stdin:?}");
}

#[test]
fn programs_that_read_characters_are_compared_on_the_same_bytes() {
    let reference = "#include <stdio.h>
int main(void) { int c; while ((c = getchar()) != '\\n' && c != EOF) putchar(c >= 'a' && c <= 'z' ? c - 32 : c); putchar('\\n'); return 0; }";
    // The same program written with scanf("%c") and a helper is proved equal.
    let same = "#include <stdio.h>
char up(char c) { if (c >= 'a' && c <= 'z') return c - 'a' + 'A'; return c; }
int main(void) { char c; while (scanf(\"%c\", &c) == 1 && c != '\\n') printf(\"%c\", up(c)); printf(\"\\n\"); return 0; }";
    let r = against(same, reference, 3);
    assert!(matches!(r.verdict, BmcVerdict::Holds { .. }), "{:?}", r.verdict);
    // `z` left out: refuted on an input with a `z`, replayed.
    let wrong = same.replace("c <= 'z'", "c < 'z'");
    match against(&wrong, reference, 3).verdict {
        BmcVerdict::Violated(c) => {
            // The interpreter prints two things on it.
            assert!(c.stdin.contains('z'), "{:?}", c.stdin);
            let out = |src: &str| {
                let limits = crate::spec::interp::Limits::default();
                crate::spec::interp::run(
                    &lower_source(src).program,
                    "main",
                    c.stdin.as_bytes(),
                    &limits,
                    &Cancel::new(),
                )
                .output
            };
            assert_ne!(out(&wrong), out(reference));
        }
        v => panic!("{v:?}"),
    }
    // A student who reads a number where the reference reads characters is compared on the
    // same bytes (the number is read from them): refuted on a line that is not `n\n`.
    let numbers = "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); printf(\"%d\\n\", n); return 0; }";
    assert!(
        matches!(against(numbers, reference, 2).verdict, BmcVerdict::Violated(_)),
        "{:?}",
        against(numbers, reference, 2).verdict
    );
}

/// [`against`] under `assume`.
fn against_assuming(student: &str, reference: &str, bound: u32, assume: Assumptions) -> BmcResult {
    let (s, r) = (lower_source(student), lower_source(reference));
    verify_against_assuming(
        &s.program,
        &r.program,
        Compare::Exact,
        "main",
        bound,
        assume,
        &Budget::unlimited(Cancel::new()),
    )
}

#[test]
fn a_negative_zero_read_is_ruled_out_only_where_assumed() {
    // `x + 0.0f` is `x` for every number but `-0`, which it turns into `0` (`-0.000000` and
    // `0.000000` printed): the programs differ on `-0` alone.
    let student = "#include <stdio.h>\nint main(void) { float x; scanf(\"%f\", &x); printf(\"%f\\n\", x); return 0; }";
    let reference = student.replace("printf(\"%f\\n\", x)", "printf(\"%f\\n\", x + 0.0f)");
    let check = |no_negative_zero| {
        against_assuming(student, &reference, 1, Assumptions { no_negative_zero, ..Assumptions::default() })
    };
    match check(false).verdict {
        BmcVerdict::Violated(c) => {
            assert!(c.stdin.trim().starts_with("-0"), "{:?}", c.stdin);
        }
        v => panic!("{v:?}"),
    }
    assert!(matches!(check(true).verdict, BmcVerdict::Holds { complete: true }), "{:?}", check(true).verdict);
}

#[test]
fn a_bound_no_run_ends_within_proves_nothing() {
    // The reference admits only `n >= 3`, and each program loops `n` times: at a bound of
    // 2 iterations no run of both ends, so "no difference within the bound" says nothing.
    let student = "#include <stdio.h>\nint main(void) { int n, i; scanf(\"%d\", &n); for (i = 0; i < n; i++) printf(\"%d\\n\", i); return 0; }";
    let reference = student.replace("scanf(\"%d\", &n);", "scanf(\"%d\", &n); __VERIFIER_assume(n >= 3);");
    let vacuous = against(student, &reference, 2).verdict;
    assert!(matches!(vacuous, BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::NoRunWithinBound))), "{vacuous:?}");
    let proved = against(student, &reference, 3).verdict;
    assert!(matches!(proved, BmcVerdict::Holds { complete: false }), "{proved:?}");
}

#[test]
fn a_loop_over_a_known_count_runs_to_its_end_past_the_bound() {
    // 100 iterations whatever the input, at a bound of 3: cut at 3, no run would reach the
    // assertion, and a wrong one would "hold".
    let sum = |claim: &str| {
        format!(
            "#include <assert.h>\nint main(void) {{ int a[100], i, s = 0; for (i = 0; i < 100; i++) a[i] = i; for (i = 0; i < 100; i++) s += a[i]; assert({claim}); return 0; }}"
        )
    };
    assert!(
        matches!(run(&sum("s == 4950"), 3).verdict, BmcVerdict::Holds { complete: true }),
        "{:?}",
        run(&sum("s == 4950"), 3).verdict
    );
    match run(&sum("s != 4950"), 3).verdict {
        BmcVerdict::Violated(c) => assert_eq!(c.replay, Replay::Confirmed, "{c:?}"),
        v => panic!("{v:?}"),
    }
    // A count read from the input is still cut at the bound.
    let read = "#include <stdio.h>\n#include <assert.h>\nint main(void) { int n, i, s = 0; scanf(\"%d\", &n); for (i = 0; i < n; i++) s++; assert(s == n || n < 0); return 0; }";
    assert!(matches!(run(read, 3).verdict, BmcVerdict::Holds { complete: false }), "{:?}", run(read, 3).verdict);
    // `while (1)` ends by a `break` that depends on the input: not a known count.
    let forever = "#include <stdio.h>\n#include <assert.h>\nint main(void) { int x, k = 0; while (1) { if (scanf(\"%d\", &x) != 1 || x == 0) break; k++; } assert(k < 10); return 0; }";
    assert!(matches!(run(forever, 3).verdict, BmcVerdict::Holds { complete: false }), "{:?}", run(forever, 3).verdict);
}

#[test]
fn a_fixed_size_array_initialised_in_a_function_is_compared_to_its_end() {
    // The student clears all 100 cells first (a known count) and prints `* *` where the
    // reference prints `**`: at a bound of 3 the cleared array used to leave no run that
    // ends, and the difference unseen.
    let student = "#include <stdio.h>
void clear(int v[], int size) { int i; for (i = 0; i < size; i++) v[i] = 0; }
int main(void) { int v[100], n, i, j; clear(v, 100); scanf(\"%d\", &n); for (i = 0; i < n; i++) scanf(\"%d\", &v[i]);
    for (i = 0; i < n; i++) { for (j = 0; j < v[i]; j++) { putchar('*'); if (j < v[i] - 1) putchar(' '); } putchar('\\n'); } return 0; }";
    let reference = "#include <stdio.h>
int main(void) { int v[100], n, i, j; scanf(\"%d\", &n); for (i = 0; i < n; i++) scanf(\"%d\", &v[i]);
    for (i = 0; i < n; i++) { for (j = 0; j < v[i]; j++) putchar('*'); putchar('\\n'); } return 0; }";
    match against(student, reference, 3).verdict {
        BmcVerdict::Violated(c) => assert!(!c.stdin.is_empty(), "{c:?}"),
        v => panic!("{v:?}"),
    }
    let fixed = student.replace("j < v[i] - 1", "j < 1 - v[i]");
    let verdict = against(&fixed, reference, 3).verdict;
    assert!(matches!(verdict, BmcVerdict::Holds { .. }), "{verdict:?}");
}

#[test]
fn an_input_the_reference_assumes_away_is_no_counterexample_of_the_student() {
    // The student's `malloc` fails (null) for a count near 2^31, the reference has no array:
    // a null dereference, unless the reference rejects such counts (as a proof for inputs
    // like the tests' does with the range it assumes).
    let student = "#include <stdio.h>\n#include <stdlib.h>
int main(void) { int n, i, *a; scanf(\"%d\", &n); a = malloc(n * sizeof(int)); for (i = 0; i < n; i++) { a[i] = i; printf(\"%d\\n\", a[i]); } free(a); return 0; }";
    let reference = "#include <stdio.h>
int main(void) { int n, i; scanf(\"%d\", &n); for (i = 0; i < n; i++) printf(\"%d\\n\", i); return 0; }";
    match against(student, reference, 2).verdict {
        BmcVerdict::Violated(c) => assert_eq!(c.kind, ViolationKind::NullDereference, "{c:?}"),
        v => panic!("{v:?}"),
    }
    let ranged = reference.replace("scanf(\"%d\", &n);", "scanf(\"%d\", &n); __VERIFIER_assume(n <= 8);");
    let verdict = against(student, &ranged, 2).verdict;
    assert!(matches!(verdict, BmcVerdict::Holds { complete: false }), "{verdict:?}");
}

/// A word longer than the string cap is cut, not modelled: the assertion below fails for a
/// 99-character word, in a program with no loop at all, so a label that named only the loop
/// bound ("verified up to 5 loop iterations") claimed what was not proved. It names the cut.
#[test]
fn a_proof_that_cuts_long_words_names_them_in_its_guarantee() {
    let src = "#include <assert.h>\n#include <string.h>\n#include <stdio.h>
int main(void){ char w[100]; if (scanf(\"%99s\", w) == 1) assert(strlen(w) < 99); return 0; }";
    let r = run(src, 5);
    assert!(matches!(r.verdict, BmcVerdict::Holds { complete: false }), "{:?}", r.verdict);
    assert_eq!(r.cuts.chars, Some(32));
    assert_eq!(r.guarantee(5).expect("a proof").label(), "verified up to 5 loop iterations and 32-character strings");
    // A program that reads no text cuts nothing but its loops.
    let r = run(
        "#include <assert.h>\nint main(void){ int n = nondet_int(); int s = 0; for (int i = 0; i < n; i++) s += 2; assert(s % 2 == 0); return 0; }",
        3,
    );
    assert_eq!(r.guarantee(3).expect("a proof").label(), "verified up to 3 loop iterations");
}

#[test]
fn an_input_with_fewer_lines_is_ruled_out_only_where_assumed() {
    // The character after the first line: the student's `scanf("%c")` leaves it unset where
    // the input ends after the line, the reference's `getchar` reads `EOF` and prints '-'.
    let student = "#include <stdio.h>\nint main(void) { int c; char k; while ((c = getchar()) != '\\n' && c != EOF) ; scanf(\"%c\", &k); putchar(k == 'x' ? 'y' : 'n'); putchar('\\n'); return 0; }";
    let reference = "#include <stdio.h>\nint main(void) { int c, k; while ((c = getchar()) != '\\n' && c != EOF) ; k = getchar(); putchar(k == EOF ? '-' : k == 'x' ? 'y' : 'n'); putchar('\\n'); return 0; }";
    let check =
        |min_lines| against_assuming(student, reference, 2, Assumptions { min_lines, ..Assumptions::default() });
    match check(0).verdict {
        BmcVerdict::Violated(c) => {
            assert!(crate::engines::verified::precondition::lines(&c.stdin) < 2, "{:?}", c.stdin)
        }
        v => panic!("{v:?}"),
    }
    assert!(matches!(check(2).verdict, BmcVerdict::Holds { .. }), "{:?}", check(2).verdict);
}

#[test]
fn an_input_with_more_lines_is_ruled_out_only_where_assumed() {
    // The student counts to the end of the input, the reference to the end of the line: equal
    // on an input of one line, not on one of two.
    let student = "#include <stdio.h>\nint main(void) { int c, n = 0; while ((c = getchar()) != EOF) if (c != '\\n') n++; printf(\"%d\\n\", n); return 0; }";
    let reference = "#include <stdio.h>\nint main(void) { int c, n = 0; while ((c = getchar()) != '\\n' && c != EOF) n++; printf(\"%d\\n\", n); return 0; }";
    let check =
        |max_lines| against_assuming(student, reference, 3, Assumptions { max_lines, ..Assumptions::default() });
    match check(None).verdict {
        BmcVerdict::Violated(c) => {
            assert!(crate::engines::verified::precondition::lines(&c.stdin) > 1, "{:?}", c.stdin)
        }
        v => panic!("{v:?}"),
    }
    assert!(matches!(check(Some(1)).verdict, BmcVerdict::Holds { .. }), "{:?}", check(Some(1)).verdict);
}

#[test]
fn a_proof_names_the_line_assumption_only_where_it_needs_it() {
    // The reference reads up to the line break or the end; so does this student, in other
    // words: equal on every input, with a line break or without.
    let reference = "#include <stdio.h>
int main(void) { int c, n = 0; while ((c = getchar()) != '\\n' && c != EOF) n++; printf(\"%d\\n\", n); return 0; }";
    let with_eof = "#include <stdio.h>
int main(void) { int c, n = 0; c = getchar(); while (c != EOF && c != '\\n') { n = n + 1; c = getchar(); } printf(\"%d\\n\", n); return 0; }";
    let r = against(with_eof, reference, 3);
    assert!(matches!(r.verdict, BmcVerdict::Holds { .. }), "{:?}", r.verdict);
    assert!(!r.line_assumed, "no assumption where none is needed");
    assert_eq!(r.assumption(), None);
    // One who waits only for the line break never ends on an input without one, where the
    // reference does: the proof holds only for inputs with a line break, and says so.
    let waits = with_eof.replace("c != EOF && ", "");
    let r = against(&waits, reference, 3);
    assert!(matches!(r.verdict, BmcVerdict::Holds { .. }), "{:?}", r.verdict);
    assert_eq!(r.assumption(), Some(crate::smt::encode::LINE_ASSUMPTION));
}

/// [`verify_in`] over the opaque floats alone.
fn against_opaque(student: &str, reference: &str, bound: u32) -> BmcResult {
    let (s, r) = (lower_source(student), lower_source(reference));
    verify_in(
        &s.program,
        Some((&r.program, Compare::Exact)),
        "main",
        bound,
        Assumptions::default(),
        FloatModel::Opaque,
        None,
        &Budget::unlimited(Cancel::new()),
    )
}

#[test]
fn an_opaque_model_is_a_counterexample_once_the_runs_differ() {
    // The mean of `n` numbers read, the first one before the loop: for `n <= 0` the student
    // divides a number read by `n` where the reference divides 0 (or prints a NaN for 0).
    let reference = "#include <stdio.h>\nint main(void) { int n, i, x, sum = 0; scanf(\"%d\", &n); for (i = 0; i < n; i++) { scanf(\"%d\", &x); sum += x; } printf(\"%.2f\\n\", (double)sum / n); return 0; }";
    let student = "#include <stdio.h>\nint main(void) { int n, i, x, sum; scanf(\"%d\", &n); scanf(\"%d\", &x); sum = x; for (i = 1; i < n; i++) { scanf(\"%d\", &x); sum += x; } printf(\"%.2f\\n\", (double)sum / n); return 0; }";
    match against_opaque(student, reference, 2).verdict {
        BmcVerdict::Violated(c) => {
            let n: i64 = c.stdin.split_whitespace().next().and_then(|t| t.parse().ok()).expect("n read");
            assert!(n <= 0, "{:?}", c.stdin);
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn an_opaque_model_the_runs_do_not_confirm_is_no_counterexample() {
    // `x * 2` and `x + x` are the same float for every `x`, but other terms of the opaque
    // model: each of its models runs alike, so no counterexample comes of it.
    let student =
        "#include <stdio.h>\nint main(void) { float x; scanf(\"%f\", &x); printf(\"%f\\n\", x * 2.0f); return 0; }";
    let reference = student.replace("x * 2.0f", "x + x");
    let v = against_opaque(student, &reference, 1).verdict;
    assert!(
        matches!(&v, BmcVerdict::Unknown(BmcUnknown::Solver(UnknownReason::SolverUnknown(why))) if why == "opaque floats"),
        "{v:?}"
    );
}
