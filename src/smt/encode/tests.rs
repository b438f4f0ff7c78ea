use std::collections::HashSet;

use z3::SatResult;
use z3::ast::Ast;

use super::*;
use crate::ir::BinOp;
use crate::smt::solver::new_context;
use crate::syntax::lower::lower_source;

const SUM: &str = "#include <assert.h>
#include <stdio.h>
int main(void) {
    int n;
    scanf(\"%d\", &n);
    assume(n >= 0);
    int s = 0;
    int i = 0;
    while (i < n) {
        s = s + i;
        i = i + 1;
    }
    assert(s == n * (n + 1) / 2);
    printf(\"sum=%d\\n\", s);
    return s;
}";

fn program(src: &str) -> Program {
    let l = lower_source(src);
    assert!(l.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error), "{:?}", l.diagnostics);
    l.program
}

/// Mutations: `0` → `1`, `<` → `<=`.
fn mutations(_: LocationId, e: &Expr) -> Vec<Expr> {
    match &e.kind {
        ExprKind::Int(0) => vec![Expr { kind: ExprKind::Int(1), ..e.clone() }],
        ExprKind::Binary(BinOp::Lt, a, b) => {
            vec![Expr { kind: ExprKind::Binary(BinOp::Le, a.clone(), b.clone()), ..e.clone() }]
        }
        _ => vec![],
    }
}

fn text(src: &str, sp: Span) -> &str {
    &src[sp.range()]
}

#[test]
fn locations_are_in_preorder_with_kinds() {
    let p = program(SUM);
    let locs = locations(&p, &HashSet::new());
    let shown: Vec<String> = locs.iter().map(|l| format!("{:?} {}", l.kind, text(SUM, l.span))).collect();
    assert_eq!(shown, ["Init 0", "Init 0", "Condition (i < n)", "Assign s + i", "Assign i + 1", "Arg s", "Return s",]);
    assert!(locs.iter().enumerate().all(|(i, l)| l.id == LocationId(i as u32)));
    let frozen: HashSet<String> = ["main".to_string()].into();
    assert!(locations(&p, &frozen).is_empty());
}

#[test]
fn selectors_choose_a_repair_incrementally() {
    let p = program(SUM);
    let locs = locations(&p, &HashSet::new());
    let id = |t: &str, kind: LocationKind| {
        locs.iter().filter(|l| l.kind == kind && text(SUM, l.span) == t).map(|l| l.id).collect::<Vec<_>>()
    };
    let i_init = id("0", LocationKind::Init)[1];
    let cond = id("(i < n)", LocationKind::Condition)[0];
    let ctx = new_context();
    let mut counts = Vec::new();
    for bound in [2, 4] {
        let opts = EncodeOptions { alternatives: Some(&mutations), ..EncodeOptions::new(bound) };
        let enc = encode(&ctx, &p, "main", &opts).unwrap();
        // One selector set per location with alternatives, whatever the bound.
        counts.push(enc.selectors.len());
        assert!(enc.selectors.values().all(|s| s.len() == 2));
        let s = z3::Solver::new(&ctx);
        enc.assert_into(&s);
        s.assert(&enc.any_violation());
        let check = |choice: &[(LocationId, usize)]| s.check_assumptions(&enc.choose(choice));
        assert_eq!(check(&[]), SatResult::Sat, "the original is buggy");
        assert_eq!(check(&[(cond, 1)]), SatResult::Unsat, "`i <= n` alone repairs it");
        assert_eq!(check(&[(i_init, 1)]), SatResult::Sat, "`i = 1` alone does not");
        assert_eq!(check(&[(i_init, 1), (cond, 1)]), SatResult::Unsat, "both together do");
        // The same answers from fresh solvers with the choice asserted (tactic mode).
        for (choice, want) in [
            (vec![], SatResult::Sat),
            (vec![(cond, 1)], SatResult::Unsat),
            (vec![(i_init, 1)], SatResult::Sat),
            (vec![(i_init, 1), (cond, 1)], SatResult::Unsat),
        ] {
            let f = z3::Solver::new(&ctx);
            enc.assert_choice_into(&f, &choice);
            f.assert(&enc.any_violation());
            assert_eq!(f.check(), want, "{choice:?}");
        }
    }
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], 3, "two `0` initialisers and the condition");
}

#[test]
fn inputs_and_output_stream() {
    let src = "#include <stdio.h>
int main(void) {
    int a, b;
    double d;
    printf(\"two numbers: \");
    scanf(\"%d %d\", &a, &b);
    if (a > 0) {
        scanf(\"%lf\", &d);
        printf(\"%d %f\\n\", a + b, d);
    }
    return 0;
}";
    let p = program(src);
    let ctx = new_context();
    let enc = encode(&ctx, &p, "main", &EncodeOptions::new(2)).unwrap();
    let reads: Vec<String> = enc.inputs.iter().map(|r| format!("{} {} {}", r.name, r.ty, r.conv)).collect();
    assert_eq!(reads, ["a int d", "b int d", "d double f"]);
    assert_eq!(enc.input_calls.len(), 2);
    assert_eq!(enc.input_calls[0].reads, [0, 1]);
    assert_eq!(enc.output.len(), 2);
    assert_eq!(enc.output[0].format, b"two numbers: ");
    assert_eq!(enc.output[1].values.len(), 2);
    assert!(matches!(enc.output[1].values[0], OutValue::Int { .. }));
    assert!(matches!(enc.output[1].values[1], OutValue::Float { .. }));
    // The second read and the second print happen only when a > 0.
    let s = z3::Solver::new(&ctx);
    enc.assert_into(&s);
    let a = enc.inputs[0].value.as_bv().unwrap().clone();
    s.assert(&a._eq(&z3::ast::BV::from_i64(&ctx, -3, 32)));
    s.assert(&enc.output[1].guard);
    assert_eq!(s.check(), SatResult::Unsat);
}

#[test]
fn a_format_that_matches_text_reads_characters() {
    // The comma must be in the input: the token model, which has no place for it, once read
    // `1 2` as two numbers where `scanf` stops at the space.
    let reads = |format: &str| {
        let src = format!(
            "#include <stdio.h>\nint main(void) {{ int a, b; scanf(\"{format}\", &a, &b); printf(\"%d\\n\", a + b); return 0; }}"
        );
        reads_chars(&program(&src)).unwrap()
    };
    assert!(reads("%d,%d"));
    assert!(reads("x=%d %d"));
    assert!(reads("%d%%%d"));
    assert!(!reads("%d %d"));
    assert!(!reads("%d\\n%d"));
    // Text after the last number is never matched by a token input: the token model reads it.
    assert!(!reads("%d%d/n"));
    // ... but not text between two conversions, which stops `scanf` early ...
    assert!(reads("%d/n%d"));
    // ... nor after a character, whose next byte may be the text.
    assert!(reads("%c/n"));
}

#[test]
fn unsupported_constructs_are_reported() {
    // Memory from malloc is typed by the pointer it is converted to; kept as `void *` it is not.
    let p = program("#include <stdlib.h>\nint main(void) { void *p = malloc(4); free(p); return 0; }");
    let ctx = new_context();
    let err = encode(&ctx, &p, "main", &EncodeOptions::new(2)).err().expect("untyped malloc is unsupported");
    assert!(err.to_string().contains("malloc"), "{err}");
    assert_eq!(err.func.as_deref(), Some("main"));
}

#[test]
fn library_functions_the_encoding_does_not_model_are_unsupported() {
    let calls = [
        ("realloc", "char *q = realloc(NULL, 4); return q == 0;"),
        ("strdup", "char *q = strdup(s); return q[0];"),
        ("strncpy", "strncpy(s, \"ab\", 2); return s[0];"),
        ("strncat", "strncat(s, \"ab\", 1); return s[0];"),
        ("strncmp", "return strncmp(s, \"ab\", 2);"),
        ("strchr", "return strchr(s, 'a') != 0;"),
        ("strrchr", "return strrchr(s, 'a') != 0;"),
        ("strstr", "return strstr(s, \"a\") != 0;"),
        // Modelled for a set written as a string literal only.
        ("strcspn", "return (int) strcspn(s, s);"),
        ("strspn", "char *set = \"1\"; return (int) strspn(s, set);"),
        ("memset", "memset(s, 0, 2); return s[0];"),
        ("memcpy", "memcpy(s, \"ab\", 2); return s[0];"),
        ("memmove", "memmove(s, s + 1, 2); return s[0];"),
        ("atoi", "return atoi(s);"),
        ("atol", "return (int) atol(s);"),
    ];
    let ctx = new_context();
    for (name, body) in calls {
        let src = format!("#include <stdlib.h>\n#include <string.h>\nint main(void) {{ char s[8] = \"12\"; {body} }}");
        let p = program(&src);
        let err =
            encode(&ctx, &p, "main", &EncodeOptions::new(2)).err().unwrap_or_else(|| panic!("{name} is unsupported"));
        assert!(err.to_string().contains(&format!("`{name}`")), "{name}: {err}");
    }
}

#[test]
fn uninitialised_reads_are_recorded() {
    let p = program("int main(void) { int x; int y = 0; if (y) x = 1; return x + y; }");
    let ctx = new_context();
    let enc = encode(&ctx, &p, "main", &EncodeOptions::new(2)).unwrap();
    let names: Vec<&str> = enc.uninit_reads.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["x"]);
}

#[test]
fn writing_into_a_string_literal_is_unsupported() {
    let p = program("int main(void) { char *s = \"abc\"; s[0] = 'x'; return s[0]; }");
    let ctx = new_context();
    let err = encode(&ctx, &p, "main", &EncodeOptions::new(2)).err().expect("unsupported");
    assert!(err.what.contains("string literal"), "{err}");
}

#[test]
fn building_a_formula_stops_when_the_budget_ends() {
    let p = program("int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += i; return s; }");
    let ctx = new_context();
    let cancel = crate::cancel::Cancel::new();
    let budget = crate::smt::Budget::new(std::time::Duration::from_secs(60), cancel.clone());
    let opts = EncodeOptions { budget: Some(&budget), ..EncodeOptions::new(2) };
    assert!(encode(&ctx, &p, "main", &opts).is_ok(), "within the budget");
    cancel.cancel();
    let err = encode(&ctx, &p, "main", &opts).err().expect("a cancelled budget stops the encoding");
    assert!(err.ran_out_of_time(), "{err}");
    // The bounded check says so as the solver's unknown, not as an unsupported construct.
    let result = crate::smt::bmc::verify(&p, "main", 2, &budget);
    assert!(
        matches!(result.verdict, crate::smt::bmc::BmcVerdict::Unknown(crate::smt::bmc::BmcUnknown::Solver(_))),
        "{:?}",
        result.verdict
    );
}
