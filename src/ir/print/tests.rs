//! The printer on hand-built IR, checked against exact strings.

use super::*;
use crate::ir::program::{Field, StructDef, Var, VarId};
use crate::ir::{FloatKind, FuncId, MathFn, Span, StructId};

fn sp() -> Span {
    Span::default()
}

struct B {
    p: Program,
}

impl B {
    fn new() -> B {
        B { p: Program::default() }
    }
    fn var(&mut self, name: &str, ty: Type, kind: VarKind) -> VarId {
        self.p.vars.push(Var { name: name.into(), ty, span: sp(), kind, func: None, addressable: false });
        VarId(self.p.vars.len() as u32 - 1)
    }
    fn local(&mut self, name: &str, ty: Type) -> VarId {
        self.var(name, ty, VarKind::Local)
    }
    fn v(&self, id: VarId) -> Expr {
        e(ExprKind::Var(id), self.p.var(id).ty.clone())
    }
}

fn e(kind: ExprKind, ty: Type) -> Expr {
    Expr::new(kind, ty, sp())
}
fn int(v: i64) -> Expr {
    e(ExprKind::Int(v), Type::INT)
}
fn lit(v: i64, t: IntType) -> Expr {
    e(ExprKind::Int(v), Type::Int(t))
}
fn dbl(v: f64) -> Expr {
    e(ExprKind::Float(v), Type::DOUBLE)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() { Type::INT } else { a.ty.clone() };
    e(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}
fn un(op: UnOp, a: Expr) -> Expr {
    let ty = a.ty.clone();
    e(ExprKind::Unary(op, Box::new(a)), ty)
}
fn imp(a: Expr, ty: Type) -> Expr {
    e(ExprKind::Cast { expr: Box::new(a), implicit: true }, ty)
}
fn cast(a: Expr, ty: Type) -> Expr {
    e(ExprKind::Cast { expr: Box::new(a), implicit: false }, ty)
}
fn decay(a: Expr) -> Expr {
    let ty = Type::ptr(a.ty.pointee().cloned().unwrap_or(Type::Error));
    e(ExprKind::Decay(Box::new(a)), ty)
}
fn assign(a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    e(ExprKind::Assign(Box::new(a), Box::new(b)), ty)
}
fn index(base: Expr, i: Expr) -> Expr {
    let ty = base.ty.pointee().cloned().unwrap_or(Type::Error);
    e(ExprKind::Index(Box::new(base), Box::new(i)), ty)
}
fn call(b: Builtin, args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Call(Callee::Builtin(b), args), ty)
}
fn st(kind: StmtKind) -> Stmt {
    Stmt { kind, span: sp() }
}
fn sx(x: Expr) -> Stmt {
    st(StmtKind::Expr(x))
}
fn block(v: Vec<Stmt>) -> Stmt {
    st(StmtKind::Block(v))
}
fn str_lit(s: &str) -> Expr {
    e(ExprKind::Str(s.as_bytes().to_vec()), Type::Array(Box::new(Type::CHAR), Some(s.len() as u64 + 1)))
}

#[test]
fn precedence_and_associativity() {
    let mut b = B::new();
    let (a, bb, c) = (b.local("a", Type::INT), b.local("b", Type::INT), b.local("c", Type::INT));
    let (a, bv, c) = (b.v(a), b.v(bb), b.v(c));
    let p = &b.p;
    let sub = |x: Expr, y: Expr| bin(BinOp::Sub, x, y);
    assert_eq!(expr_to_c(p, &sub(a.clone(), sub(bv.clone(), c.clone()))), "a - (b - c)");
    assert_eq!(expr_to_c(p, &sub(sub(a.clone(), bv.clone()), c.clone())), "a - b - c");
    assert_eq!(expr_to_c(p, &bin(BinOp::Mul, bin(BinOp::Add, a.clone(), bv.clone()), c.clone())), "(a + b) * c");
    assert_eq!(expr_to_c(p, &bin(BinOp::Add, a.clone(), bin(BinOp::Mul, bv.clone(), c.clone()))), "a + b * c");
    assert_eq!(expr_to_c(p, &bin(BinOp::Eq, bin(BinOp::Lt, a.clone(), bv.clone()), c.clone())), "a < b == c");
    assert_eq!(expr_to_c(p, &bin(BinOp::Lt, a.clone(), bin(BinOp::Eq, bv.clone(), c.clone()))), "a < (b == c)");
    assert_eq!(expr_to_c(p, &bin(BinOp::BitAnd, bin(BinOp::Eq, a.clone(), bv.clone()), c.clone())), "a == b & c");
    assert_eq!(expr_to_c(p, &bin(BinOp::Eq, a.clone(), bin(BinOp::BitAnd, bv.clone(), c.clone()))), "a == (b & c)");
    assert_eq!(expr_to_c(p, &bin(BinOp::Shl, int(1), bin(BinOp::Add, a.clone(), int(1)))), "1 << a + 1");
    assert_eq!(expr_to_c(p, &bin(BinOp::Rem, a.clone(), bin(BinOp::Mul, bv.clone(), c.clone()))), "a % (b * c)");
    let and = |x: Expr, y: Expr| e(ExprKind::Logical(LogicOp::And, Box::new(x), Box::new(y)), Type::INT);
    let or = |x: Expr, y: Expr| e(ExprKind::Logical(LogicOp::Or, Box::new(x), Box::new(y)), Type::INT);
    assert_eq!(expr_to_c(p, &or(a.clone(), and(bv.clone(), c.clone()))), "a || b && c");
    assert_eq!(expr_to_c(p, &and(or(a.clone(), bv.clone()), c.clone())), "(a || b) && c");
    assert_eq!(expr_to_c(p, &and(a.clone(), and(bv.clone(), c.clone()))), "a && (b && c)");
    // Unary: -(-x), -(--x), - then a negative literal, !(a < b), casts.
    assert_eq!(expr_to_c(p, &un(UnOp::Neg, un(UnOp::Neg, a.clone()))), "-(-a)");
    let predec = e(ExprKind::IncDec(IncDec::PreDec, Box::new(a.clone())), Type::INT);
    assert_eq!(expr_to_c(p, &un(UnOp::Neg, predec.clone())), "-(--a)");
    assert_eq!(expr_to_c(p, &un(UnOp::Neg, int(-1))), "-(-1)");
    assert_eq!(expr_to_c(p, &un(UnOp::BitNot, un(UnOp::Neg, a.clone()))), "~-a");
    assert_eq!(expr_to_c(p, &sub(a.clone(), int(-1))), "a - -1");
    assert_eq!(expr_to_c(p, &un(UnOp::Not, bin(BinOp::Lt, a.clone(), bv.clone()))), "!(a < b)");
    assert_eq!(expr_to_c(p, &un(UnOp::Neg, bin(BinOp::Add, a.clone(), bv.clone()))), "-(a + b)");
    let postinc = e(ExprKind::IncDec(IncDec::PostInc, Box::new(a.clone())), Type::INT);
    assert_eq!(expr_to_c(p, &un(UnOp::Neg, postinc.clone())), "-a++");
    assert_eq!(expr_to_c(p, &bin(BinOp::Sub, postinc, predec)), "a++ - --a");
    let dcast = cast(bin(BinOp::Add, a.clone(), bv.clone()), Type::DOUBLE);
    assert_eq!(expr_to_c(p, &dcast), "(double)(a + b)");
    assert_eq!(
        expr_to_c(p, &bin(BinOp::Div, cast(a.clone(), Type::DOUBLE), imp(bv.clone(), Type::DOUBLE))),
        "(double)a / b"
    );
    // Implicit casts are transparent but keep the parentheses their operand needs.
    let wide = imp(bin(BinOp::Add, a.clone(), bv.clone()), Type::Int(IntType::LONG));
    assert_eq!(expr_to_c(p, &bin(BinOp::Mul, wide, imp(c.clone(), Type::Int(IntType::LONG)))), "(a + b) * c");
}

#[test]
fn assignments_conditionals_commas_calls() {
    let mut b = B::new();
    let (x, y) = (b.local("x", Type::INT), b.local("y", Type::INT));
    let (x, y) = (b.v(x), b.v(y));
    let p = &b.p;
    let chain = assign(x.clone(), assign(y.clone(), int(0)));
    assert_eq!(expr_to_c(p, &chain), "x = y = 0");
    let ca = e(
        ExprKind::CompoundAssign { op: BinOp::Add, op_ty: Type::INT, lhs: Box::new(x.clone()), rhs: Box::new(int(1)) },
        Type::INT,
    );
    assert_eq!(expr_to_c(p, &ca), "x += 1");
    let shl = e(
        ExprKind::CompoundAssign {
            op: BinOp::Shl,
            op_ty: Type::INT,
            lhs: Box::new(x.clone()),
            rhs: Box::new(y.clone()),
        },
        Type::INT,
    );
    assert_eq!(expr_to_c(p, &shl), "x <<= y");
    let cond = |c: Expr, a: Expr, bb: Expr| e(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(bb)), Type::INT);
    let t = cond(bin(BinOp::Gt, x.clone(), y.clone()), x.clone(), y.clone());
    assert_eq!(expr_to_c(p, &t), "x > y ? x : y");
    assert_eq!(expr_to_c(p, &assign(x.clone(), t.clone())), "x = x > y ? x : y");
    let nested = cond(x.clone(), int(1), cond(y.clone(), int(2), int(3)));
    assert_eq!(expr_to_c(p, &nested), "x ? 1 : y ? 2 : 3");
    let left = cond(cond(x.clone(), y.clone(), int(2)), int(1), int(3));
    assert_eq!(expr_to_c(p, &left), "(x ? y : 2) ? 1 : 3");
    assert_eq!(expr_to_c(p, &bin(BinOp::Add, t.clone(), int(1))), "(x > y ? x : y) + 1");
    let comma = e(ExprKind::Comma(Box::new(assign(x.clone(), int(1))), Box::new(assign(y.clone(), int(2)))), Type::INT);
    assert_eq!(expr_to_c(p, &comma), "x = 1, y = 2");
    let pr = call(Builtin::Printf, vec![decay(str_lit("%d %d\n")), comma.clone(), x.clone()], Type::INT);
    assert_eq!(expr_to_c(p, &pr), "printf(\"%d %d\\n\", (x = 1, y = 2), x)");
    let addr = e(ExprKind::AddrOf(Box::new(x.clone())), Type::ptr(Type::INT));
    let sc = call(Builtin::Scanf, vec![decay(str_lit("%d")), addr], Type::INT);
    assert_eq!(expr_to_c(p, &sc), "scanf(\"%d\", &x)");
    assert_eq!(expr_to_c(p, &call(Builtin::Nondet, vec![], Type::INT)), "__VERIFIER_nondet_int()");
    assert_eq!(expr_to_c(p, &call(Builtin::Nondet, vec![], Type::Int(IntType::UINT))), "__VERIFIER_nondet_uint()");
    assert_eq!(expr_to_c(p, &call(Builtin::Nondet, vec![], Type::CHAR)), "__VERIFIER_nondet_char()");
    assert_eq!(
        expr_to_c(p, &call(Builtin::Assume, vec![bin(BinOp::Gt, x.clone(), int(0))], Type::Void)),
        "__VERIFIER_assume(x > 0)"
    );
    assert_eq!(
        expr_to_c(
            p,
            &call(Builtin::Math(MathFn::Sqrt, FloatKind::Double), vec![imp(x.clone(), Type::DOUBLE)], Type::DOUBLE)
        ),
        "sqrt(x)"
    );
    assert_eq!(Builtin::ReachError.c_name(), "reach_error");
    assert_eq!(Builtin::Assert.c_name(), "assert");
    let sz = e(ExprKind::SizeOf { size: 4, text: "(int)".into() }, Type::Int(IntType::ULONG));
    assert_eq!(expr_to_c(p, &sz), "sizeof(int)");
    let szx = e(ExprKind::SizeOf { size: 4, text: "x".into() }, Type::Int(IntType::ULONG));
    assert_eq!(expr_to_c(p, &szx), "sizeof(x)");
    let szy = e(ExprKind::SizeOf { size: 4, text: "(x) + (y)".into() }, Type::Int(IntType::ULONG));
    assert_eq!(expr_to_c(p, &szy), "sizeof((x) + (y))");
}

#[test]
fn pointers_arrays_members() {
    let mut b = B::new();
    b.p.structs.push(StructDef {
        name: "point".into(),
        fields: vec![
            Field { name: "x".into(), ty: Type::INT, offset: 0, span: sp() },
            Field { name: "y".into(), ty: Type::INT, offset: 4, span: sp() },
        ],
        size: 8,
        align: 4,
        span: sp(),
        complete: true,
    });
    let sty = Type::Struct(StructId(0));
    let pt = b.local("pt", sty.clone());
    let pp = b.local("pp", Type::ptr(sty.clone()));
    let arr = b.local("a", Type::Array(Box::new(Type::INT), Some(10)));
    let q = b.local("q", Type::ptr(Type::INT));
    let (pt, pp, arr, q) = (b.v(pt), b.v(pp), b.v(arr), b.v(q));
    let p = &b.p;
    let mem =
        |base: Expr, f: usize, arrow: bool| e(ExprKind::Member { base: Box::new(base), field: f, arrow }, Type::INT);
    assert_eq!(expr_to_c(p, &mem(pp.clone(), 1, true)), "pp->y");
    assert_eq!(expr_to_c(p, &mem(pt.clone(), 0, false)), "pt.x");
    let deref_pp = e(ExprKind::Deref(Box::new(pp.clone())), sty.clone());
    assert_eq!(expr_to_c(p, &mem(deref_pp, 0, false)), "(*pp).x");
    let ai = index(decay(arr.clone()), bin(BinOp::Add, int(1), int(2)));
    assert_eq!(expr_to_c(p, &ai), "a[1 + 2]");
    let deref_q = e(ExprKind::Deref(Box::new(bin(BinOp::Add, q.clone(), int(1)))), Type::INT);
    assert_eq!(expr_to_c(p, &deref_q), "*(q + 1)");
    let postinc = e(ExprKind::IncDec(IncDec::PostInc, Box::new(q.clone())), Type::ptr(Type::INT));
    assert_eq!(expr_to_c(p, &e(ExprKind::Deref(Box::new(postinc)), Type::INT)), "*q++");
    let addr_elem = e(ExprKind::AddrOf(Box::new(ai.clone())), Type::ptr(Type::INT));
    assert_eq!(expr_to_c(p, &addr_elem), "&a[1 + 2]");
    let vcast = cast(q.clone(), Type::ptr(Type::CHAR));
    assert_eq!(expr_to_c(p, &vcast), "(char *)q");
    assert_eq!(expr_to_c(p, &e(ExprKind::Deref(Box::new(vcast)), Type::CHAR)), "*(char *)q");
    let m = call(
        Builtin::Malloc,
        vec![bin(
            BinOp::Mul,
            lit(10, IntType::ULONG),
            e(ExprKind::SizeOf { size: 4, text: "(int)".into() }, Type::Int(IntType::ULONG)),
        )],
        Type::ptr(Type::Void),
    );
    assert_eq!(expr_to_c(p, &assign(q.clone(), imp(m, Type::ptr(Type::INT)))), "q = malloc(10UL * sizeof(int))");
}

#[test]
fn literals() {
    let p = Program::default();
    let s = |x: Expr| expr_to_c(&p, &x);
    assert_eq!(s(lit(97, IntType::CHAR)), "'a'");
    assert_eq!(s(lit(10, IntType::CHAR)), "'\\n'");
    assert_eq!(s(lit(0, IntType::CHAR)), "'\\0'");
    assert_eq!(s(lit(39, IntType::CHAR)), "'\\''");
    assert_eq!(s(lit(92, IntType::CHAR)), "'\\\\'");
    assert_eq!(s(lit(-1, IntType::CHAR)), "'\\377'");
    assert_eq!(s(int(42)), "42");
    assert_eq!(s(int(-42)), "-42");
    assert_eq!(s(int(i32::MIN as i64)), "(-2147483647 - 1)");
    assert_eq!(s(lit(5, IntType::LONG)), "5L");
    assert_eq!(s(lit(-5, IntType::LONG)), "-5L");
    assert_eq!(s(lit(3_000_000_000, IntType::LONG)), "3000000000");
    assert_eq!(s(lit(i64::MIN, IntType::LONG)), "(-9223372036854775807L - 1)");
    assert_eq!(s(lit(5, IntType::UINT)), "5U");
    assert_eq!(s(lit(4_294_967_295, IntType::UINT)), "4294967295U");
    assert_eq!(s(lit(-1, IntType::ULONG)), "18446744073709551615UL");
    assert_eq!(s(lit(7, IntType::LLONG)), "7LL");
    // A constant under an implicit conversion needs no suffix.
    assert_eq!(s(imp(lit(5, IntType::LONG), Type::INT)), "5");
    assert_eq!(s(imp(int(5), Type::Int(IntType::LONG))), "5");
    // A constant converted to char reads as a character.
    assert_eq!(s(imp(int(65), Type::CHAR)), "'A'");
    assert_eq!(s(imp(int(200), Type::CHAR)), "200");
    assert_eq!(s(dbl(2.0)), "2.0");
    assert_eq!(s(dbl(0.1)), "0.1");
    assert_eq!(s(dbl(1e30)), "1e+30");
    assert_eq!(s(dbl(1.5e-7)), "1.5e-7");
    assert_eq!(s(dbl(-2.5)), "-2.5");
    assert_eq!(s(dbl(123456.789)), "123456.789");
    assert_eq!(s(e(ExprKind::Float(0.1f32 as f64), Type::Float(FloatKind::Float))), "0.1f");
    assert_eq!(s(e(ExprKind::Float(3.0), Type::Float(FloatKind::Float))), "3.0f");
    for v in [0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, f64::MAX, f64::MIN_POSITIVE, 5e-324] {
        let text = s(dbl(v));
        assert_eq!(text.replace("e+", "e").parse::<f64>().unwrap(), v, "{text}");
    }
    assert_eq!(s(str_lit("a\"b\\c\n\t")), "\"a\\\"b\\\\c\\n\\t\"");
    assert_eq!(s(e(ExprKind::Str(vec![0xff, b'1']), Type::Error)), "\"\\3771\"");
}

#[test]
fn char_contexts_print_characters() {
    let mut b = B::new();
    let c = b.local("c", Type::CHAR);
    let n = b.local("n", Type::INT);
    let (c, n) = (b.v(c), b.v(n));
    let p = &b.p;
    let promoted = imp(c.clone(), Type::INT);
    assert_eq!(expr_to_c(p, &bin(BinOp::Ne, promoted.clone(), int(10))), "c != '\\n'");
    assert_eq!(expr_to_c(p, &bin(BinOp::Le, int(97), promoted.clone())), "'a' <= c");
    // Arithmetic and int comparisons keep numbers.
    assert_eq!(expr_to_c(p, &bin(BinOp::Sub, promoted.clone(), int(32))), "c - 32");
    assert_eq!(expr_to_c(p, &bin(BinOp::Eq, n.clone(), int(97))), "n == 97");
    assert_eq!(expr_to_c(p, &assign(c.clone(), imp(int(120), Type::CHAR))), "c = 'x'");
    // -1 compared with what scanf/getchar return is EOF.
    let gc = call(Builtin::Getchar, vec![], Type::INT);
    let read = assign(n.clone(), gc);
    assert_eq!(expr_to_c(p, &bin(BinOp::Ne, read, int(-1))), "(n = getchar()) != EOF");
    assert_eq!(expr_to_c(p, &bin(BinOp::Ne, n.clone(), int(-1))), "n != -1");
}

#[test]
fn statements() {
    let mut b = B::new();
    let x = b.local("x", Type::INT);
    let i = b.local("i", Type::INT);
    let j = b.local("j", Type::INT);
    let m = b.local("m", Type::Array(Box::new(Type::Array(Box::new(Type::INT), Some(4))), Some(3)));
    let grade = b.local("grade", Type::CHAR);
    let s = b.var("count", Type::INT, VarKind::StaticLocal);
    let (xv, iv, jv, gv) = (b.v(x), b.v(i), b.v(j), b.v(grade));
    let p = &b.p;
    let lt = |a: Expr, n: i64| bin(BinOp::Lt, a, int(n));
    let inc = |a: Expr| e(ExprKind::IncDec(IncDec::PostInc, Box::new(a)), Type::INT);
    let ret = |v: i64| st(StmtKind::Return(Some(int(v))));

    let d = st(StmtKind::Decl { var: x, init: Some(Init::Expr(int(3))) });
    assert_eq!(stmt_to_c(p, &d, 1), "    int x = 3;");
    let list = |v: Vec<i64>| Init::List(v.into_iter().map(|n| Init::Expr(int(n))).collect(), sp());
    let d2 = st(StmtKind::Decl { var: m, init: Some(Init::List(vec![list(vec![1, 2]), list(vec![3])], sp())) });
    assert_eq!(stmt_to_c(p, &d2, 0), "int m[3][4] = {{1, 2}, {3}};");
    let d3 = st(StmtKind::Decl { var: s, init: Some(Init::Expr(int(0))) });
    assert_eq!(stmt_to_c(p, &d3, 0), "static int count = 0;");
    let d4 = st(StmtKind::Decl { var: grade, init: Some(Init::Expr(imp(int(65), Type::CHAR))) });
    assert_eq!(stmt_to_c(p, &d4, 0), "char grade = 'A';");
    let d5 = st(StmtKind::Decl { var: i, init: None });
    assert_eq!(stmt_to_c(p, &d5, 0), "int i;");

    let chain = st(StmtKind::If {
        cond: lt(xv.clone(), 0),
        then: Box::new(block(vec![ret(-1)])),
        els: Some(Box::new(st(StmtKind::If {
            cond: bin(BinOp::Eq, xv.clone(), int(0)),
            then: Box::new(block(vec![ret(0)])),
            els: Some(Box::new(block(vec![ret(1)]))),
        }))),
    });
    assert_eq!(
        stmt_to_c(p, &chain, 1),
        "    if (x < 0) {\n        return -1;\n    } else if (x == 0) {\n        return 0;\n    } else {\n        return 1;\n    }"
    );
    let unbraced = st(StmtKind::If {
        cond: xv.clone(),
        then: Box::new(sx(assign(xv.clone(), int(1)))),
        els: Some(Box::new(sx(assign(xv.clone(), int(2))))),
    });
    assert_eq!(stmt_to_c(p, &unbraced, 0), "if (x)\n    x = 1;\nelse\n    x = 2;");
    // Dangling else: the inner `if` must be braced to keep the `else` on the outer one.
    let dangling = st(StmtKind::If {
        cond: xv.clone(),
        then: Box::new(st(StmtKind::If { cond: iv.clone(), then: Box::new(ret(1)), els: None })),
        els: Some(Box::new(ret(2))),
    });
    assert_eq!(stmt_to_c(p, &dangling, 0), "if (x) {\n    if (i)\n        return 1;\n} else\n    return 2;");

    let for_loop = st(StmtKind::For {
        init: vec![
            st(StmtKind::Decl { var: i, init: Some(Init::Expr(int(0))) }),
            st(StmtKind::Decl { var: j, init: Some(Init::Expr(int(1))) }),
        ],
        cond: Some(lt(iv.clone(), 10)),
        step: Some(inc(iv.clone())),
        body: Box::new(block(vec![sx(e(
            ExprKind::CompoundAssign {
                op: BinOp::Mul,
                op_ty: Type::INT,
                lhs: Box::new(jv.clone()),
                rhs: Box::new(int(2)),
            },
            Type::INT,
        ))])),
    });
    assert_eq!(stmt_to_c(p, &for_loop, 0), "for (int i = 0, j = 1; i < 10; i++) {\n    j *= 2;\n}");
    let forever = st(StmtKind::For { init: vec![], cond: None, step: None, body: Box::new(st(StmtKind::Break)) });
    assert_eq!(stmt_to_c(p, &forever, 0), "for (;;)\n    break;");
    let for_expr = st(StmtKind::For {
        init: vec![sx(assign(iv.clone(), int(0)))],
        cond: None,
        step: None,
        body: Box::new(st(StmtKind::Empty)),
    });
    assert_eq!(stmt_to_c(p, &for_expr, 0), "for (i = 0;;)\n    ;");

    let w = st(StmtKind::While {
        cond: lt(xv.clone(), 5),
        body: Box::new(block(vec![sx(inc(xv.clone())), st(StmtKind::Continue)])),
    });
    assert_eq!(stmt_to_c(p, &w, 0), "while (x < 5) {\n    x++;\n    continue;\n}");
    let dw = st(StmtKind::DoWhile { body: Box::new(block(vec![sx(inc(xv.clone()))])), cond: lt(xv.clone(), 5) });
    assert_eq!(stmt_to_c(p, &dw, 0), "do {\n    x++;\n} while (x < 5);");

    let arm = |label: Option<i64>, body: Vec<Stmt>| SwitchArm { label, label_span: sp(), body };
    let sw = st(StmtKind::Switch {
        cond: imp(gv.clone(), Type::INT),
        arms: vec![
            arm(Some(65), vec![]),
            arm(Some(66), vec![sx(assign(xv.clone(), int(1))), st(StmtKind::Break)]),
            arm(None, vec![sx(assign(xv.clone(), int(0)))]),
        ],
    });
    assert_eq!(
        stmt_to_c(p, &sw, 0),
        "switch (grade) {\n    case 'A':\n    case 'B':\n        x = 1;\n        break;\n    default:\n        x = 0;\n}"
    );
    let sw_int = st(StmtKind::Switch { cond: xv.clone(), arms: vec![arm(Some(-1), vec![st(StmtKind::Break)])] });
    assert_eq!(stmt_to_c(p, &sw_int, 0), "switch (x) {\n    case -1:\n        break;\n}");
    let nested = block(vec![block(vec![st(StmtKind::Return(None))]), st(StmtKind::Empty)]);
    assert_eq!(stmt_to_c(p, &nested, 0), "{\n    {\n        return;\n    }\n    ;\n}");
}

#[test]
fn functions_and_programs() {
    let mut b = B::new();
    let g = b.var("limit", Type::INT, VarKind::Global);
    let n = b.var("n", Type::INT, VarKind::Param);
    let s = b.var("s", Type::ptr(Type::CHAR), VarKind::Param);
    let a = b.var("a", Type::Array(Box::new(Type::INT), None), VarKind::Param);
    b.p.globals.push((g, Some(Init::Expr(int(100)))));
    let nv = b.v(n);
    let gv = b.v(g);
    b.p.funcs.push(Function {
        name: "square".into(),
        ret: Type::INT,
        params: vec![n],
        body: Some(block(vec![st(StmtKind::Return(Some(bin(BinOp::Mul, nv.clone(), nv.clone()))))])),
        span: Span::new(10, 20),
        name_span: sp(),
        locals: vec![],
        unsupported: vec![],
    });
    b.p.funcs.push(Function {
        name: "dup".into(),
        ret: Type::ptr(Type::CHAR),
        params: vec![s, a],
        body: None,
        span: Span::new(30, 40),
        name_span: sp(),
        locals: vec![],
        unsupported: vec![],
    });
    let call_sq = e(ExprKind::Call(Callee::Func(FuncId(0)), vec![gv.clone()]), Type::INT);
    let pr = call(Builtin::Printf, vec![decay(str_lit("%d\n")), call_sq], Type::INT);
    b.p.funcs.push(Function {
        name: "main".into(),
        ret: Type::INT,
        params: vec![],
        body: Some(block(vec![sx(pr), st(StmtKind::Return(Some(int(0))))])),
        span: Span::new(50, 60),
        name_span: sp(),
        locals: vec![],
        unsupported: vec![],
    });
    b.p.macros.push(("N".into(), "10".into(), sp()));
    let p = &b.p;
    assert_eq!(function_to_c(p, &p.funcs[0]), "int square(int n) {\n    return n * n;\n}\n");
    assert_eq!(function_to_c(p, &p.funcs[1]), "char *dup(char *s, int a[]);\n");
    assert_eq!(
        program_to_c(p),
        "#include <stdio.h>\n\n#define N 10\n\nint limit = 100;\n\nint square(int n) {\n    return n * n;\n}\n\n\
         char *dup(char *s, int a[]);\n\nint main() {\n    printf(\"%d\\n\", square(limit));\n    return 0;\n}\n"
    );
}

#[test]
fn functions_called_before_their_definition_get_prototypes() {
    let mut b = B::new();
    let n = b.var("n", Type::Int(IntType::LLONG), VarKind::Param);
    let nv = b.v(n);
    let f = |name: &str, ret: Type, params: Vec<VarId>, body: Stmt, start: usize| Function {
        name: name.into(),
        ret,
        params,
        body: Some(body),
        span: Span::new(start, start + 1),
        name_span: sp(),
        locals: vec![],
        unsupported: vec![],
    };
    let call_half = e(
        ExprKind::Call(Callee::Func(FuncId(1)), vec![imp(int(8), Type::Int(IntType::LLONG))]),
        Type::Int(IntType::LLONG),
    );
    b.p.funcs.push(f("main", Type::INT, vec![], block(vec![sx(call_half), st(StmtKind::Return(Some(int(0))))]), 10));
    let recurse = e(ExprKind::Call(Callee::Func(FuncId(1)), vec![nv.clone()]), Type::Int(IntType::LLONG));
    b.p.funcs.push(f("half", Type::Int(IntType::LLONG), vec![n], block(vec![st(StmtKind::Return(Some(recurse)))]), 20));
    assert_eq!(
        program_to_c(&b.p),
        "long long half(long long n);\n\nint main() {\n    half(8);\n    return 0;\n}\n\n\
         long long half(long long n) {\n    return half(n);\n}\n"
    );
}
