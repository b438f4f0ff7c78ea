//! Unit tests with hand-built IR.

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
    Expr { kind, ty, span: sp() }
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
        self.p.vars.push(Var { name: name.into(), ty: ty.clone(), span: sp(), kind: VarKind::Local, func: Some(f), addressable });
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
        printf("%d %d %d %d\n", vec![bin(BinOp::Div, int(-7), int(2)), bin(BinOp::Rem, int(-7), int(2)), bin(BinOp::Rem, int(7), int(-2)), bin(BinOp::Div, int(i32::MIN as i64), int(-1))]),
        printf("%d %d\n", vec![bin(BinOp::Shl, int(1), int(33)), bin(BinOp::Shr, int(-16), int(2))]),
        decl(&u, Some(cast(int(-1), uty.clone()))),
        printf("%u %x %X %o\n", vec![u.clone(), u.clone(), cast(int(255), uty.clone()), cast(int(8), uty.clone())]),
        printf("%u\n", vec![bin(BinOp::Div, u.clone(), cast(int(2), uty.clone()))]),
        printf("[%5d][%-5d][%05d][%+d][% d][%.3d][%x][%#x][%#o]\n", vec![int(42), int(42), int(-42), int(5), int(5), int(7), int(255), int(255), int(8)]),
        printf("[%c][%3c][%s][%-6s][%6s][%.2s]%%\n", vec![int(65), int(66), lit("abc"), lit("ab"), lit("ab"), lit("xyz")]),
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
    assert_eq!(f(0, None, b'f', 3.14159), "3.141590");
    assert_eq!(f(0, Some(2), b'f', 2.675), "2.67"); // 2.675 is 2.67499999...
    assert_eq!(f(0, Some(2), b'f', 0.125), "0.12");
    assert_eq!(f(0, Some(0), b'f', 0.5), "0");
    assert_eq!(f(0, Some(0), b'f', 1.5), "2");
    assert_eq!(f(8, Some(2), b'f', -3.14159), "   -3.14");
    assert_eq!(f(0, None, b'e', 12345.678), "1.234568e+04");
    assert_eq!(f(0, None, b'e', 0.0), "0.000000e+00");
    assert_eq!(f(0, None, b'g', 100000.0), "100000");
    assert_eq!(f(0, None, b'g', 1000000.0), "1e+06");
    assert_eq!(f(0, None, b'g', 0.0001), "0.0001");
    assert_eq!(f(0, None, b'g', 0.00001), "1e-05");
    assert_eq!(f(0, None, b'g', 3.14159265), "3.14159");
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
    let body = ex(ExprKind::Cond(Box::new(bin(BinOp::Le, n.clone(), int(1))), Box::new(int(1)), Box::new(bin(BinOp::Mul, n.clone(), rec))), Type::INT);
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
    let mal = cast(call(Builtin::Malloc, vec![cast(int(8), Type::Int(IntType::ULONG))], Type::ptr(Type::Void)), pty.clone());
    let deref = |e: Expr| ex(ExprKind::Deref(Box::new(e)), Type::INT);
    let plus1 = ex(ExprKind::Binary(BinOp::Add, Box::new(p.clone()), Box::new(int(1))), pty.clone());
    let ft = Type::Float(FloatKind::Float);
    b.body(vec![
        decl(&p, Some(mal)),
        sexpr(assign(deref(p.clone()), int(5))),
        printf("%d\n", vec![deref(p.clone())]),
        decl(&fv, Some(cast(ex(ExprKind::Float(0.1), Type::DOUBLE), ft.clone()))),
        sexpr(assign(fv.clone(), ex(ExprKind::Binary(BinOp::Mul, Box::new(fv.clone()), Box::new(cast(int(3), ft.clone()))), ft.clone()))),
        printf("%.10f %d\n", vec![cast(fv.clone(), Type::DOUBLE), cast(cast(ex(ExprKind::Float(-2.7), Type::DOUBLE), Type::INT), Type::INT)]),
        printf("%d\n", vec![deref(plus1.clone())]),
        ret(int(0)),
    ]);
    let r = b.run("");
    assert_eq!(out(&r), "5\n0.3000000119 -2\n");
    let e = r.error.unwrap();
    assert_eq!(e.kind, RuntimeErrorKind::Uninitialized);
}
