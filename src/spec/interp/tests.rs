//! Unit tests with hand-built IR.
#![allow(clippy::approx_constant)]

use super::*;
use crate::ir::*;

/// A tiny IR builder.
struct B {
    p: Program,
    f: Option<FuncId>,
}

fn sp() -> Span {
    Span::new(0, 0)
}

fn ex(kind: ExprKind, ty: Type) -> Expr {
    Expr::new(kind, ty, sp())
}
fn int(v: i64) -> Expr {
    ex(ExprKind::Int(v), Type::INT)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() { Type::INT } else { a.ty.clone() };
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}
fn st(kind: StmtKind) -> Stmt {
    Stmt { kind, span: sp() }
}
fn sexpr(e: Expr) -> Stmt {
    st(StmtKind::Expr(e))
}
fn assign(l: Expr, r: Expr) -> Expr {
    let ty = l.ty.clone();
    ex(ExprKind::Assign(Box::new(l), Box::new(r)), ty)
}
fn lit(s: &str) -> Expr {
    let n = s.len() as u64 + 1;
    let e = ex(ExprKind::Str(s.as_bytes().to_vec()), Type::Array(Box::new(Type::CHAR), Some(n)));
    ex(ExprKind::Decay(Box::new(e)), Type::ptr(Type::CHAR))
}
fn call(b: Builtin, args: Vec<Expr>, ty: Type) -> Expr {
    ex(ExprKind::Call(Callee::Builtin(b), args), ty)
}
fn printf(fmt: &str, mut args: Vec<Expr>) -> Stmt {
    args.insert(0, lit(fmt));
    sexpr(call(Builtin::Printf, args, Type::INT))
}
fn cast(e: Expr, ty: Type) -> Expr {
    ex(ExprKind::Cast { expr: Box::new(e), implicit: true }, ty)
}
fn ret(e: Expr) -> Stmt {
    st(StmtKind::Return(Some(e)))
}

impl B {
    fn new() -> B {
        B { p: Program::default(), f: None }
    }
    fn func(&mut self, name: &str, ret: Type) -> FuncId {
        let id = FuncId(self.p.funcs.len() as u32);
        self.p.funcs.push(Function {
            name: name.into(),
            ret,
            params: vec![],
            body: None,
            span: sp(),
            name_span: sp(),
            locals: vec![],
            unsupported: vec![],
        });
        self.f = Some(id);
        id
    }
    fn var(&mut self, name: &str, ty: Type, addressable: bool) -> Expr {
        let id = VarId(self.p.vars.len() as u32);
        let f = self.f.unwrap();
        self.p.vars.push(Var {
            name: name.into(),
            ty: ty.clone(),
            span: sp(),
            kind: VarKind::Local,
            func: Some(f),
            addressable,
        });
        self.p.funcs[f.0 as usize].locals.push(id);
        ex(ExprKind::Var(id), ty)
    }
    fn param(&mut self, name: &str, ty: Type) -> Expr {
        let e = self.var(name, ty, false);
        let f = self.f.unwrap();
        let ExprKind::Var(id) = e.kind else { unreachable!() };
        self.p.funcs[f.0 as usize].locals.pop();
        self.p.vars[id.0 as usize].kind = VarKind::Param;
        self.p.funcs[f.0 as usize].params.push(id);
        e
    }
    fn body(&mut self, stmts: Vec<Stmt>) {
        let f = self.f.unwrap();
        self.p.funcs[f.0 as usize].body = Some(st(StmtKind::Block(stmts)));
    }
    fn run(&self, input: &str) -> RunResult {
        run(&self.p, "main", input.as_bytes(), &Limits::default(), &crate::cancel::Cancel::new())
    }
}

fn decl(v: &Expr, init: Option<Expr>) -> Stmt {
    let ExprKind::Var(id) = v.kind else { panic!() };
    st(StmtKind::Decl { var: id, init: init.map(Init::Expr) })
}

fn out(r: &RunResult) -> String {
    String::from_utf8_lossy(&r.output).into_owned()
}

#[test]
fn hello_and_exit_code() {
    let mut b = B::new();
    b.func("main", Type::INT);
    b.body(vec![printf("hello %d\n", vec![int(42)]), ret(int(3))]);
    let r = b.run("");
    assert_eq!(out(&r), "hello 42\n");
    assert_eq!(r.exit_code, Some(3));
    assert!(r.error.is_none());
    assert_eq!(r.chunks.len(), 3);
    assert_eq!(r.chunks[1].kind, ChunkKind::Value);
    assert_eq!(r.value_output(), b"42");
}

#[test]
fn integer_semantics() {
    let mut b = B::new();
    b.func("main", Type::INT);
    let x = b.var("x", Type::INT, false);
    let u = b.var("u", Type::Int(IntType::UINT), false);
    let uty = Type::Int(IntType::UINT);
    b.body(vec![
        decl(&x, Some(int(i32::MAX as i64))),
        sexpr(assign(x.clone(), bin(BinOp::Add, x.clone(), int(1)))),
        printf("%d\n", vec![x.clone()]),
        printf(
            "%d %d %d %d\n",
            vec![
                bin(BinOp::Div, int(-7), int(2)),
                bin(BinOp::Rem, int(-7), int(2)),
                bin(BinOp::Rem, int(7), int(-2)),
                bin(BinOp::Div, int(i32::MIN as i64), int(-1)),
            ],
        ),
        printf("%d %d\n", vec![bin(BinOp::Shl, int(1), int(33)), bin(BinOp::Shr, int(-16), int(2))]),
        decl(&u, Some(cast(int(-1), uty.clone()))),
        printf("%u %x %X %o\n", vec![u.clone(), u.clone(), cast(int(255), uty.clone()), cast(int(8), uty.clone())]),
        printf("%u\n", vec![bin(BinOp::Div, u.clone(), cast(int(2), uty.clone()))]),
        printf(
            "[%5d][%-5d][%05d][%+d][% d][%.3d][%x][%#x][%#o]\n",
            vec![int(42), int(42), int(-42), int(5), int(5), int(7), int(255), int(255), int(8)],
        ),
        printf(
            "[%c][%3c][%s][%-6s][%6s][%.2s]%%\n",
            vec![int(65), int(66), lit("abc"), lit("ab"), lit("ab"), lit("xyz")],
        ),
        ret(int(0)),
    ]);
    let r = b.run("");
    assert_eq!(r.error, None);
    assert_eq!(
        out(&r),
        "-2147483648\n-3 -1 1 -2147483648\n2 -4\n4294967295 ffffffff FF 10\n2147483647\n[   42][42   ][-0042][+5][ 5][007][ff][0xff][010]\n[A][  B][abc][ab    ][    ab][xy]%\n"
    );
}

#[test]
fn float_formats_match_glibc() {
    use super::format::test_fmt_float as f;
    assert_eq!(f(0, None, b'f', 3.141_59), "3.141590");
    assert_eq!(f(0, Some(2), b'f', 2.675), "2.67"); // 2.675 is 2.67499999...
    assert_eq!(f(0, Some(2), b'f', 0.125), "0.12");
    assert_eq!(f(0, Some(0), b'f', 0.5), "0");
    assert_eq!(f(0, Some(0), b'f', 1.5), "2");
    assert_eq!(f(8, Some(2), b'f', -3.141_59), "   -3.14");
    assert_eq!(f(0, None, b'e', 12345.678), "1.234568e+04");
    assert_eq!(f(0, None, b'e', 0.0), "0.000000e+00");
    assert_eq!(f(0, None, b'g', 100000.0), "100000");
    assert_eq!(f(0, None, b'g', 1000000.0), "1e+06");
    assert_eq!(f(0, None, b'g', 0.0001), "0.0001");
    assert_eq!(f(0, None, b'g', 0.00001), "1e-05");
    assert_eq!(f(0, None, b'g', 3.141_592_65), "3.14159");
    assert_eq!(f(0, None, b'g', 0.0), "0");
    assert_eq!(f(0, Some(3), b'g', 2.5), "2.5");
    assert_eq!(f(0, None, b'f', f64::INFINITY), "inf");
    assert_eq!(f(0, None, b'f', -0.0), "-0.000000");
    assert_eq!(f(0, None, b'G', 1e-10), "1E-10");
}

#[test]
fn scanf_and_uninitialised() {
    let mut b = B::new();
    b.func("main", Type::INT);
    let a = b.var("a", Type::INT, true);
    let c = b.var("c", Type::INT, true);
    let n = b.var("n", Type::INT, false);
    let addr = |v: &Expr| ex(ExprKind::AddrOf(Box::new(v.clone())), Type::ptr(Type::INT));
    b.body(vec![
        decl(&a, None),
        decl(&c, None),
        decl(&n, Some(call(Builtin::Scanf, vec![lit("%d %d"), addr(&a), addr(&c)], Type::INT))),
        printf("n=%d a=%d\n", vec![n.clone(), a.clone()]),
        printf("c=%d\n", vec![c.clone()]),
        ret(int(0)),
    ]);
    let r = b.run("  17 x");
    assert_eq!(out(&r), "n=1 a=17\n");
    let e = r.error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
    assert_eq!(e.message, "`c` is used before it is given a value");
    let r = b.run("");
    assert_eq!(r.error.clone().unwrap().kind, RuntimeErrorKind::Uninitialized);
    assert_eq!(out(&r), "");
}

#[test]
fn arrays_bounds_and_division() {
    let mut b = B::new();
    b.func("main", Type::INT);
    let arr_ty = Type::Array(Box::new(Type::INT), Some(10));
    let arr = b.var("arr", arr_ty, true);
    let i = b.var("i", Type::INT, false);
    let decay = ex(ExprKind::Decay(Box::new(arr.clone())), Type::ptr(Type::INT));
    let idx = |e: Expr| ex(ExprKind::Index(Box::new(decay.clone()), Box::new(e)), Type::INT);
    let lp = st(StmtKind::For {
        init: vec![sexpr(assign(i.clone(), int(0)))],
        cond: Some(bin(BinOp::Le, i.clone(), int(10))),
        step: Some(ex(ExprKind::IncDec(IncDec::PostInc, Box::new(i.clone())), Type::INT)),
        body: Box::new(sexpr(assign(idx(i.clone()), bin(BinOp::Mul, i.clone(), i.clone())))),
    });
    b.body(vec![decl(&arr, None), decl(&i, None), lp, ret(int(0))]);
    let r = b.run("");
    let e = r.error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);
    assert_eq!(e.message, "index 10 is out of bounds for `arr` (10 elements)");

    let mut b = B::new();
    b.func("main", Type::INT);
    let x = b.var("x", Type::INT, false);
    b.body(vec![decl(&x, Some(int(0))), printf("%d\n", vec![bin(BinOp::Div, int(5), x.clone())]), ret(int(0))]);
    let e = b.run("").error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::DivisionByZero);
    assert_eq!(e.message, "division by zero in `5 / x`");
}

#[test]
fn recursion_and_step_limit() {
    // int f(int n) { return n <= 1 ? 1 : n * f(n - 1); }
    let mut b = B::new();
    let f = b.func("f", Type::INT);
    let n = b.param("n", Type::INT);
    let rec = ex(ExprKind::Call(Callee::Func(f), vec![bin(BinOp::Sub, n.clone(), int(1))]), Type::INT);
    let body = ex(
        ExprKind::Cond(
            Box::new(bin(BinOp::Le, n.clone(), int(1))),
            Box::new(int(1)),
            Box::new(bin(BinOp::Mul, n.clone(), rec)),
        ),
        Type::INT,
    );
    b.body(vec![ret(body)]);
    b.func("main", Type::INT);
    let x = b.var("x", Type::INT, false);
    b.body(vec![
        decl(&x, Some(ex(ExprKind::Call(Callee::Func(f), vec![int(10)]), Type::INT))),
        printf("%d\n", vec![x.clone()]),
        sexpr(ex(ExprKind::Call(Callee::Func(f), vec![int(100_000)]), Type::INT)),
        ret(int(0)),
    ]);
    let r = b.run("");
    assert_eq!(out(&r), "3628800\n");
    assert_eq!(r.error.unwrap().kind, RuntimeErrorKind::StackOverflow);

    let mut b = B::new();
    b.func("main", Type::INT);
    b.body(vec![st(StmtKind::While { cond: int(1), body: Box::new(st(StmtKind::Empty)) })]);
    let r = b.run("");
    let e = r.error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::StepLimit);
    assert_eq!(e.message, "step limit of 50000000 reached: is there an infinite loop?");
}

#[test]
fn malloc_free_and_floats() {
    let mut b = B::new();
    b.func("main", Type::INT);
    let pty = Type::ptr(Type::INT);
    let p = b.var("p", pty.clone(), false);
    let fv = b.var("f", Type::Float(FloatKind::Float), false);
    let mal =
        cast(call(Builtin::Malloc, vec![cast(int(8), Type::Int(IntType::ULONG))], Type::ptr(Type::Void)), pty.clone());
    let deref = |e: Expr| ex(ExprKind::Deref(Box::new(e)), Type::INT);
    let plus1 = ex(ExprKind::Binary(BinOp::Add, Box::new(p.clone()), Box::new(int(1))), pty.clone());
    let ft = Type::Float(FloatKind::Float);
    b.body(vec![
        decl(&p, Some(mal)),
        sexpr(assign(deref(p.clone()), int(5))),
        printf("%d\n", vec![deref(p.clone())]),
        decl(&fv, Some(cast(ex(ExprKind::Float(0.1), Type::DOUBLE), ft.clone()))),
        sexpr(assign(
            fv.clone(),
            ex(ExprKind::Binary(BinOp::Mul, Box::new(fv.clone()), Box::new(cast(int(3), ft.clone()))), ft.clone()),
        )),
        printf(
            "%.10f %d\n",
            vec![
                cast(fv.clone(), Type::DOUBLE),
                cast(cast(ex(ExprKind::Float(-2.7), Type::DOUBLE), Type::INT), Type::INT),
            ],
        ),
        printf("%d\n", vec![deref(plus1.clone())]),
        ret(int(0)),
    ]);
    let r = b.run("");
    assert_eq!(out(&r), "5\n0.3000000119 -2\n");
    let e = r.error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
}

// ----- tests through the front end -----

fn c_run(src: &str, input: &str) -> RunResult {
    let lowered = crate::syntax::lower::lower_source(src);
    let errors: Vec<_> = lowered.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "front-end errors: {errors:?}");
    run(&lowered.program, "main", input.as_bytes(), &Limits::default(), &crate::cancel::Cancel::new())
}

fn c_err(src: &str, input: &str) -> RuntimeError {
    let r = c_run(src, input);
    r.error.clone().unwrap_or_else(|| panic!("no error; output {:?}", out(&r)))
}

fn span_text<'a>(src: &'a str, e: &RuntimeError) -> &'a str {
    &src[e.span.range()]
}

#[test]
fn pointer_errors() {
    let src = "#include <stdio.h>\nint main(void) { int *p = NULL; printf(\"x\"); return *p; }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::NullDereference);
    assert_eq!(span_text(src, &e), "*p");

    let src = "#include <stdlib.h>\nint main(void) { int *p = malloc(4); *p = 1; free(p); return *p; }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::UseAfterFree);
    assert_eq!(e.message, "`*p` uses memory that was already freed");

    let src = "#include <stdlib.h>\nint main(void) { int *p = malloc(4); free(p); free(p); return 0; }";
    assert_eq!(c_err(src, "").kind, RuntimeErrorKind::InvalidFree);

    let src = "#include <stdlib.h>\nint main(void) { int *p = malloc(3 * sizeof(int)); p[0] = 1; return p[1]; }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
    assert_eq!(span_text(src, &e), "p[1]");

    let src = "#include <stdlib.h>\nint main(void) { int *p = calloc(3, sizeof(int)); return p[3]; }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);

    let src = "int *f(void) { int x = 5; return &x; }\nint main(void) { int *p = f(); return *p; }";
    assert_eq!(c_err(src, "").kind, RuntimeErrorKind::UseAfterFree);

    let src = "int main(void) { char *s = \"abc\"; s[0] = 'x'; return 0; }";
    assert_eq!(c_err(src, "").kind, RuntimeErrorKind::ReadOnlyWrite);
}

#[test]
fn library_overflows_are_reported() {
    let src =
        "#include <stdio.h>\nint main(void) { char name[4]; scanf(\"%s\", name); printf(\"%s\", name); return 0; }";
    let e = c_err(src, "abcdef");
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);
    assert_eq!(e.message, "`scanf` writes past the end of `name` (4 bytes)");
    assert_eq!(c_run(src, "abc").output, b"abc");

    let src = "#include <string.h>\nint main(void) { char d[5] = \"ab\"; strcat(d, \"cde\"); return 0; }";
    assert_eq!(c_err(src, "").message, "`strcat` writes past the end of `d` (5 bytes)");
}

#[test]
fn io_bookkeeping() {
    let src = "#include <stdio.h>\nint main(void) { int a, b; printf(\"Enter a: \"); scanf(\"%d\", &a); printf(\"Enter b: \"); scanf(\"%d\", &b); printf(\"sum %d\\n\", a + b); return a; }";
    let r = c_run(src, "3 4");
    assert_eq!(out(&r), "Enter a: Enter b: sum 7\n");
    assert_eq!(r.output_before_last_read, "Enter a: Enter b: ".len());
    assert_eq!(r.exit_code, Some(3));
    assert_eq!(r.value_output(), b"7");
    // A scanf that matches nothing is a read; one that meets the end of the input is not.
    let src = "#include <stdio.h>\nint main(void) { char s[8] = {0}; int n; printf(\"Line: \"); scanf(\"%7[^\\n]\", s);\n printf(\"Number: \"); scanf(\"%d\", &n); printf(\"[%s]\\n\", s); return 0; }";
    assert_eq!(c_run(src, "\nx").output_before_last_read, "Line: Number: ".len());
    assert_eq!(c_run(src, "\n").output_before_last_read, "Line: ".len());
    let kinds: Vec<_> = r.chunks.iter().map(|c| (String::from_utf8_lossy(&c.text).into_owned(), c.kind)).collect();
    assert_eq!(kinds[2], ("sum ".to_string(), ChunkKind::Literal));
    assert_eq!(kinds[3], ("7".to_string(), ChunkKind::Value));

    // A non-literal format is parsed at run time.
    let src = "#include <stdio.h>\nint main(void) { char f[] = \"<%d|%5.1f>\"; printf(f, 7, 2.25); return 0; }";
    assert_eq!(out(&c_run(src, "")), "<7|  2.2>");

    // getchar/EOF, gets, exit.
    let src = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) { int c, n = 0; while ((c = getchar()) != EOF) n++; printf(\"%d\", n); exit(n); }";
    let r = c_run(src, "abc\n");
    assert_eq!((out(&r), r.exit_code), ("4".to_string(), Some(4)));
}

#[test]
fn verification_builtins() {
    let src = "#include <assert.h>\nint main(void) { int x = 3; assert(x > 0); assert(x > 5); return 0; }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::AssertionFailed);
    assert_eq!(e.message, "assertion `x > 5` failed");
    assert_eq!(span_text(src, &e), "assert(x > 5)");

    let src = "extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assume(int);\nextern void reach_error(void);\nint main(void) { int x = __VERIFIER_nondet_int(); int y = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 0); if (x + y == 10) reach_error(); return x; }";
    let r = c_run(src, "4 5");
    assert_eq!((r.exit_code, r.error.is_none()), (Some(4), true));
    let r = c_run(src, "-4 5");
    assert!(r.assume_failed && r.error.is_none() && r.exit_code.is_none());
    assert_eq!(c_run(src, "4 6").error.unwrap().kind, RuntimeErrorKind::ReachError);
    assert_eq!(c_run(src, "4").error.unwrap().kind, RuntimeErrorKind::InputExhausted);
}

#[test]
fn limits() {
    let src = "#include <stdio.h>\nchar big[1000000];\nint main(void) { char local[1000000]; local[999999] = 'x'; big[999999] = 'y'; printf(\"%c%c\", local[999999], big[999999]); return 0; }";
    assert_eq!(out(&c_run(src, "")), "xy");

    let src = "#include <stdlib.h>\nint main(void) { while (1) { char *p = malloc(1000000); p[0] = 1; } }";
    assert_eq!(c_err(src, "").kind, RuntimeErrorKind::MemoryLimit);

    let src = "#include <stdio.h>\nint main(void) { while (1) printf(\"spam\"); }";
    let r = c_run(src, "");
    assert_eq!(r.error.clone().unwrap().kind, RuntimeErrorKind::OutputLimit);
    assert_eq!(r.output.len(), 1 << 20);

    let src = "int f(int n) { return f(n + 1); }\nint main(void) { return f(0); }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::StackOverflow);

    let lowered = crate::syntax::lower::lower_source("int main(void) { for (;;) {} }");
    let cancel = crate::cancel::Cancel::new();
    cancel.cancel();
    let r = run(&lowered.program, "main", b"", &Limits::default(), &cancel);
    assert_eq!(r.error.clone().unwrap().kind, RuntimeErrorKind::Cancelled);
    assert!(r.steps <= 1 << 16);
}

#[test]
fn uninitialised_and_fall_off() {
    let src = "#include <stdio.h>\nint main(void) { int sum, i; for (i = 0; i < 3; i++) sum += i; printf(\"%d\", sum); return 0; }";
    let e = c_err(src, "");
    assert_eq!(e.message, "`sum` is used before it is given a value");
    assert_eq!(span_text(src, &e), "sum");

    let src = "int f(int x) { if (x > 0) return 1; }\nint main(void) { f(-1); return f(-1); }";
    let e = c_err(src, "");
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
    assert!(e.message.contains("ended without returning a value"), "{}", e.message);

    let src = "int main(void) { int x = 1; }";
    assert_eq!(c_run(src, "").exit_code, Some(0));
}

#[test]
fn variable_length_arrays() {
    let src = "#include <stdio.h>\nint main(void) { int n, i, s = 0; scanf(\"%d\", &n); int a[n]; for (i = 0; i < n; i++) a[i] = i * i; for (i = 0; i < n; i++) s += a[i]; printf(\"%d\", s); return a[n]; }";
    let r = c_run(src, "4");
    assert_eq!(out(&r), "14");
    assert_eq!(r.error.unwrap().message, "index 4 is out of bounds for `a` (4 elements)");
}

#[test]
fn long_running_allocation_patterns_stay_bounded() {
    // Struct temporaries are released per statement; freed heap ids are eventually reused.
    let src = "#include <stdio.h>\n#include <stdlib.h>\nstruct p { int x, y; };\nstruct p add(struct p a, struct p b) { struct p r = { a.x + b.x, a.y + b.y }; return r; }\nint main(void) { struct p s = {0, 0}, one = {1, 2}; int i; for (i = 0; i < 300000; i++) { s = add(s, one); int *q = malloc(16); q[0] = i; free(q); } printf(\"%d %d\", s.x, add(s, one).y); return 0; }";
    let r = c_run(src, "");
    assert_eq!(r.error, None);
    assert_eq!(out(&r), "300000 600002");
}

#[test]
fn hostile_formats_do_not_exhaust_the_host() {
    let src = "#include <stdio.h>\nint main(void) { printf(\"%999999999d|%.999999999f\", 1, 2.0); return 0; }";
    let r = c_run(src, "");
    assert_eq!(r.error.unwrap().kind, RuntimeErrorKind::OutputLimit);
    let src = "#include <stdio.h>\nint main(void) { int x; return scanf(\"%99999999999999999999999d\", &x); }";
    assert_eq!(c_run(src, "5").exit_code, Some(1));
}

// ----- string.h, stdlib.h: the functions beyond strlen/strcmp/strcpy/strcat -----

/// Runs `body` as `main` with the usual headers, expecting no runtime error.
fn lib_out(body: &str, input: &str) -> String {
    let src = format!("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) {{ {body} }}");
    let r = c_run(&src, input);
    assert_eq!(r.error, None, "output {:?}", out(&r));
    out(&r)
}

/// Runs `body` as `main` with the usual headers, expecting a runtime error: returns it, the
/// source text it points at and the output before it.
fn lib_err(body: &str) -> (RuntimeError, String, String) {
    let src = format!("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) {{ {body} }}");
    let r = c_run(&src, "");
    let e = r.error.clone().unwrap_or_else(|| panic!("no error; output {:?}", out(&r)));
    let text = span_text(&src, &e).to_string();
    (e, text, out(&r))
}

#[test]
fn realloc_grows_shrinks_and_frees() {
    // A buffer grown while reading characters until EOF.
    let grow = "int cap = 2, len = 0, c; char *buf = malloc(cap); \
        while ((c = getchar()) != EOF) { if (len + 1 >= cap) { cap *= 2; buf = realloc(buf, cap); } buf[len++] = c; } \
        buf[len] = '\\0'; printf(\"%s|%d\", buf, cap); free(buf); return 0;";
    assert_eq!(lib_out(grow, "hello, world"), "hello, world|16");
    assert_eq!(lib_out(grow, ""), "|2");
    let long = "x".repeat(1000);
    assert_eq!(lib_out(grow, &long), format!("{long}|1024"));

    // Shrinking keeps the first bytes; the rest is gone.
    let shrink = "int i; int *p = malloc(4 * sizeof(int)); for (i = 0; i < 4; i++) p[i] = i + 1; \
        p = realloc(p, 2 * sizeof(int)); printf(\"%d %d\", p[0], p[1]); return p[2];";
    let (e, text, printed) = lib_err(shrink);
    assert_eq!((e.kind, text.as_str(), printed.as_str()), (RuntimeErrorKind::OutOfBounds, "p[2]", "1 2"));

    // Growing: the new bytes hold nothing yet.
    let (e, text, _) =
        lib_err("int *p = malloc(sizeof(int)); *p = 7; p = realloc(p, 2 * sizeof(int)); return p[0] + p[1];");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::Uninitialized, "p[1]"));

    // realloc(NULL, n) is malloc(n).
    assert_eq!(
        lib_out("char *p = realloc(NULL, 3); p[0] = 'o'; p[1] = 'k'; p[2] = 0; puts(p); free(p); return 0;", ""),
        "ok\n"
    );

    // The old pointer is dangling after a realloc.
    let (e, text, printed) = lib_err(
        "int *p = malloc(sizeof(int)); *p = 7; int *q = realloc(p, 8 * sizeof(int)); printf(\"%d \", q[0]); return *p;",
    );
    assert_eq!((e.kind, text.as_str(), printed.as_str()), (RuntimeErrorKind::UseAfterFree, "*p", "7 "));
    assert_eq!(e.message, "`*p` uses memory that was already freed");

    // realloc(p, 0) frees p and returns NULL (glibc): freeing p again is a double free.
    let (e, _, printed) =
        lib_err("int *p = malloc(4); int *q = realloc(p, 0); printf(\"%d\", q == NULL); free(p); return 0;");
    assert_eq!((e.kind, printed.as_str()), (RuntimeErrorKind::InvalidFree, "1"));

    // Only the start of memory from malloc, calloc or realloc can be reallocated.
    let (e, _, _) = lib_err("int a[2]; int *p = realloc(a, 16); return p == NULL;");
    assert_eq!(e.kind, RuntimeErrorKind::InvalidFree);
    assert_eq!(e.message, "`realloc(a, 16)`: the pointer did not come from malloc");
    let (e, _, _) = lib_err("int *p = calloc(4, sizeof(int)); p = realloc(p + 1, 8); return 0;");
    assert_eq!(e.kind, RuntimeErrorKind::InvalidFree);
    assert!(e.message.contains("does not point to the start"), "{}", e.message);
    let (e, _, _) = lib_err("int *p = malloc(4); free(p); p = realloc(p, 8); return 0;");
    assert_eq!((e.kind, e.message.as_str()), (RuntimeErrorKind::InvalidFree, "`realloc(p, 8)`: `p` was already freed"));
}

#[test]
fn strdup_makes_a_heap_copy() {
    assert_eq!(
        lib_out(
            "char s[] = \"hi\"; char *d = strdup(s); d[0] = 'H'; printf(\"%s %s %d\", s, d, (int) strlen(d)); free(d); return 0;",
            ""
        ),
        "hi Hi 2"
    );
    // strdup("") holds only the terminator.
    let (e, text, printed) = lib_err("char *d = strdup(\"\"); printf(\"[%s]\", d); return d[1];");
    assert_eq!((e.kind, text.as_str(), printed.as_str()), (RuntimeErrorKind::OutOfBounds, "d[1]", "[]"));
    assert!(e.message.contains("memory from strdup"), "{}", e.message);
}

#[test]
fn strncpy_pads_and_may_leave_no_terminator() {
    assert_eq!(
        lib_out("char d[6]; strncpy(d, \"abc\", 6); printf(\"%s %d %d\", d, d[4], d[5]); return 0;", ""),
        "abc 0 0"
    );
    assert_eq!(
        lib_out("char d[4] = \"xy\"; char *r = strncpy(d, \"abc\", 0); printf(\"%s %d\", d, r == d); return 0;", ""),
        "xy 1"
    );
    assert_eq!(lib_out("char d[4] = \"xyz\"; strncpy(d, \"ab\", 2); printf(\"%s\", d); return 0;", ""), "abz");
    // s longer than n: no terminator, so printing reads past what was copied.
    let (e, text, _) = lib_err("char d[10]; strncpy(d, \"abcdef\", 3); printf(\"%s\", d); return 0;");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::Uninitialized, "d"));
    let (e, _, _) = lib_err("char d[3]; strncpy(d, \"abcdef\", 3); printf(\"%s\", d); return 0;");
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);
    // Padding past the end of the destination.
    let (e, text, _) = lib_err("char d[4]; strncpy(d, \"ab\", 8); return 0;");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::OutOfBounds, "d"));
    assert_eq!(e.message, "`strncpy` writes past the end of `d` (4 bytes)");
}

#[test]
fn strncat_appends_at_most_n() {
    assert_eq!(lib_out("char d[10] = \"ab\"; strncat(d, \"cdef\", 2); printf(\"%s\", d); return 0;", ""), "abcd");
    assert_eq!(lib_out("char d[10] = \"ab\"; strncat(d, \"cdef\", 0); printf(\"%s\", d); return 0;", ""), "ab");
    assert_eq!(lib_out("char d[10] = \"\"; strncat(d, \"xy\", 100); printf(\"%s\", d); return 0;", ""), "xy");
    let (e, _, _) = lib_err("char d[4] = \"ab\"; strncat(d, \"cd\", 2); return 0;");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (RuntimeErrorKind::OutOfBounds, "`strncat` writes past the end of `d` (4 bytes)")
    );
}

#[test]
fn strncmp_compares_at_most_n() {
    assert_eq!(
        lib_out(
            "printf(\"%d %d %d %d\", strncmp(\"abcd\", \"abxx\", 2), strncmp(\"abc\", \"abd\", 3), strncmp(\"x\", \"y\", 0), strncmp(\"ab\", \"abc\", 5)); return 0;",
            ""
        ),
        "0 -1 0 -99"
    );
    assert_eq!(lib_out("printf(\"%d\", strncmp(\"ab\", \"ac\", (size_t) -1)); return 0;", ""), "-1");
    // It stops at n: bytes after them are not read.
    assert_eq!(lib_out("char a[2] = {'h', 'i'}; printf(\"%d\", strncmp(a, \"hi\", 2)); return 0;", ""), "0");
    let (e, _, _) = lib_err("char a[2] = {'h', 'i'}; return strncmp(a, \"hi\", 3);");
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);
}

#[test]
fn strspn_and_strcspn_measure_spans() {
    assert_eq!(
        lib_out(
            "char s[] = \"ab1c\\n\"; printf(\"%d %d %d %d %d\", (int) strspn(s, \"ba\"), (int) strspn(s, \"x\"), (int) strcspn(s, \"\\n\"), (int) strcspn(s, \"1c\"), (int) strcspn(s, \"\")); return 0;",
            ""
        ),
        "2 0 4 2 5"
    );
    // The idiom that cuts the line break `fgets` keeps, on a line with one and one without.
    assert_eq!(
        lib_out(
            "char s[8]; fgets(s, 8, stdin); s[strcspn(s, \"\\n\")] = '\\0'; printf(\"[%s]\", s); fgets(s, 8, stdin); s[strcspn(s, \"\\n\")] = '\\0'; printf(\"[%s]\", s); return 0;",
            "ab\ncd"
        ),
        "[ab][cd]"
    );
}

#[test]
fn strchr_and_strrchr_find_characters() {
    assert_eq!(
        lib_out(
            "char s[] = \"hello\"; printf(\"%s %s %d %d %d %d\", strchr(s, 'l'), strrchr(s, 'l'), strchr(s, 'z') == NULL, (int) (strchr(s, '\\0') - s), (int) (strrchr(s, 0) - s), (int) (strchr(s, 'h' + 256) - s)); return 0;",
            ""
        ),
        "llo lo 1 5 5 0"
    );
    assert_eq!(
        lib_out("printf(\"%d %d\", strchr(\"\", 'a') == NULL, strrchr(\"\", 'a') == NULL); return 0;", ""),
        "1 1"
    );
    // The pointer is into s: writing through it changes s.
    assert_eq!(lib_out("char s[] = \"a,b\"; *strchr(s, ',') = ';'; puts(s); return 0;", ""), "a;b\n");
    let (e, _, _) = lib_err("char *p = strchr(\"abc\", 'x'); return *p;");
    assert_eq!(e.kind, RuntimeErrorKind::NullDereference);
}

#[test]
fn strstr_finds_substrings() {
    assert_eq!(
        lib_out(
            "char h[] = \"haystack\"; printf(\"%s %d %d %d\", strstr(h, \"st\"), strstr(h, \"\") == h, strstr(h, \"stacks\") == NULL, strstr(\"\", \"\") != NULL); return 0;",
            ""
        ),
        "stack 1 1 1"
    );
    assert_eq!(lib_out("printf(\"%s\", strstr(\"aaab\", \"aab\")); return 0;", ""), "aab");
}

#[test]
fn memset_memcpy_memmove_copy_bytes() {
    assert_eq!(
        lib_out(
            "int a[4]; char s[6]; memset(a, 0, sizeof a); memset(s, 'x', 5); s[5] = 0; memset(a + 1, -1, sizeof(int)); printf(\"%d %d %d %s\", a[0], a[1], a[3], s); return 0;",
            ""
        ),
        "0 -1 0 xxxxx"
    );
    // n = 0 changes nothing.
    let (e, text, _) = lib_err("int b[2]; memset(b, 0, 0); return b[0];");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::Uninitialized, "b[0]"));
    let (e, _, _) = lib_err("int a[4]; memset(a, 0, 20); return 0;");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (RuntimeErrorKind::OutOfBounds, "`memset` writes past the end of `a` (16 bytes)")
    );

    assert_eq!(
        lib_out(
            "struct pt { int x; int y; } p = {4, 5}, q; int a[3] = {1, 2, 3}, b[3]; int *r = memcpy(b, a, sizeof a); memcpy(&q, &p, sizeof p); printf(\"%d %d %d %d %d %d\", b[0], b[1], b[2], q.x, q.y, r == b); return 0;",
            ""
        ),
        "1 2 3 4 5 1"
    );
    let (e, text, _) = lib_err("int a[2] = {1, 2}, b[2]; memcpy(b, a, 0); return b[0];");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::Uninitialized, "b[0]"));
    // Bytes that hold nothing are copied as such.
    let (e, text, _) = lib_err("int a[2], b[2]; a[0] = 1; memcpy(b, a, sizeof a); printf(\"%d\", b[0]); return b[1];");
    assert_eq!((e.kind, text.as_str()), (RuntimeErrorKind::Uninitialized, "b[1]"));
    let (e, _, _) = lib_err("char s[3] = \"ab\", d[8]; memcpy(d, s, 5); return 0;");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (RuntimeErrorKind::OutOfBounds, "`memcpy` reads past the end of `s` (3 bytes)")
    );
    let (e, _, _) = lib_err("int *p = malloc(8); free(p); int d[2]; memcpy(d, p, 8); return 0;");
    assert_eq!(e.kind, RuntimeErrorKind::UseAfterFree);

    assert_eq!(
        lib_out(
            "char t[] = \"abcdef\", u[] = \"abcdef\"; memmove(t + 2, t, 3); memmove(u, u + 1, 5); printf(\"%s %s\", t, u); return 0;",
            ""
        ),
        "ababcf bcdeff"
    );
    assert_eq!(lib_out("char t[] = \"abc\"; memmove(t, t + 1, 0); puts(t); return 0;", ""), "abc\n");
}

#[test]
fn atoi_and_atol_read_a_leading_number() {
    assert_eq!(
        lib_out(
            "printf(\"%d %d %d %d %d\", atoi(\"  -42abc\"), atoi(\"+7\"), atoi(\"\"), atoi(\"- 5\"), atoi(\"\\v\\f\\r-0012x\")); return 0;",
            ""
        ),
        "-42 7 0 0 -12"
    );
    // Overflow as glibc: strtol saturates to a long, atoi keeps its low 32 bits.
    assert_eq!(
        lib_out(
            "printf(\"%d %d %d %d %d\", atoi(\"2147483648\"), atoi(\"99999999999999999999\"), atoi(\"-2147483649\"), atoi(\"4294967297\"), atoi(\"-9223372036854775808\")); return 0;",
            ""
        ),
        "-2147483648 -1 2147483647 1 0"
    );
    assert_eq!(
        lib_out(
            "printf(\"%ld %ld %ld %ld\", atol(\"9223372036854775807\"), atol(\"99999999999999999999\"), atol(\"-99999999999999999999\"), atol(\" \\t\\n12\")); return 0;",
            ""
        ),
        "9223372036854775807 9223372036854775807 -9223372036854775808 12"
    );
    let (e, _, _) = lib_err("char s[4]; return atoi(s);");
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
    let (e, _, _) = lib_err("char s[2] = {'1', '2'}; return atoi(s);");
    assert_eq!(e.kind, RuntimeErrorKind::OutOfBounds);
}

#[test]
fn a_variable_is_in_scope_in_its_own_initialiser() {
    let src = "#include <stdio.h>\n#include <stdlib.h>\nstruct node { int v; struct node *next; };\nint main(void) { struct node *n = malloc(sizeof *n); n->v = 3; n->next = NULL; printf(\"%d %d %d\", n->v, n->next == NULL, (int) sizeof *n); free(n); return 0; }";
    let r = c_run(src, "");
    assert_eq!(r.error, None);
    assert_eq!(out(&r), "3 1 16");
}
