//! Every operation against Rust's wrapping arithmetic on random and edge values, for every
//! integer type, both by Z3's simplifier and by a solver check (so the bit-blaster agrees too).

use std::time::Duration;

use z3::ast::{Ast, BV, Bool};

use super::*;
use crate::cancel::Cancel;
use crate::smt::budget::Budget;
use crate::smt::solver::{Verdict, check_with_budget, new_context};

const TYPES: [IntType; 8] = [
    IntType::CHAR,
    IntType::UCHAR,
    IntType::SHORT,
    IntType { kind: IntKind::Short, signed: false },
    IntType::INT,
    IntType::UINT,
    IntType::LONG,
    IntType::ULONG,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value of `t` as the IR stores it: edge values a third of the time.
    fn value(&mut self, t: IntType) -> i64 {
        let edges = [0, 1, -1, 2, -2, 7, -7, t.min_value() as i64, t.max_value() as i64];
        let r = self.next();
        let v = if r.is_multiple_of(3) {
            edges[(r / 3 % edges.len() as u64) as usize]
        } else {
            (self.next() >> (r % 64)) as i64
        };
        t.wrap(v)
    }
}

/// The mathematical value of a stored constant.
fn math(v: i64, t: IntType) -> i128 {
    if t.signed { v as i128 } else { (v as u64 & mask(t)) as i128 }
}
fn mask(t: IntType) -> u64 {
    if t.bits() == 64 { u64::MAX } else { (1u64 << t.bits()) - 1 }
}
fn wrap128(v: i128, t: IntType) -> i64 {
    t.wrap(v as i64)
}

fn expected(op: BinOp, a: i64, b: i64, t: IntType) -> i64 {
    let (x, y) = (math(a, t), math(b, t));
    let r = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x / y,
        BinOp::Rem => x % y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x >> y,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        _ => {
            let c = match op {
                BinOp::Lt => x < y,
                BinOp::Le => x <= y,
                BinOp::Gt => x > y,
                BinOp::Ge => x >= y,
                BinOp::Eq => x == y,
                BinOp::Ne => x != y,
                _ => unreachable!(),
            };
            return c as i64;
        }
    };
    wrap128(r, t)
}

const ARITH: [BinOp; 10] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
];
const CMP: [BinOp; 6] = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne];

/// How many of each operation's cases also go through a solver check (the rest only through the
/// simplifier), to keep the test quick.
const SOLVER_CASES: usize = 12;

fn budget() -> Budget {
    Budget::new(Duration::from_secs(30), Cancel::new())
}

/// Asserts `x_i = a_i`, `y_i = b_i` for symbolic `x_i, y_i` and that some `f(x_i, y_i)` differs
/// from its expected value: must be unsat.
fn solver_agrees<'c>(
    ctx: &'c z3::Context,
    t: IntType,
    cases: &[(i64, i64)],
    f: impl Fn(&BV<'c>, &BV<'c>) -> BV<'c>,
    want: impl Fn(i64, i64) -> BV<'c>,
) {
    let s = z3::Solver::new(ctx);
    let mut diffs = Vec::new();
    for (i, &(a, b)) in cases.iter().enumerate() {
        let x = BV::new_const(ctx, format!("x{i}"), width(t));
        let y = BV::new_const(ctx, format!("y{i}"), width(t));
        s.assert(&x._eq(&constant(ctx, t, a)));
        s.assert(&y._eq(&constant(ctx, t, b)));
        diffs.push(f(&x, &y)._eq(&want(a, b)).not());
    }
    let refs: Vec<&Bool> = diffs.iter().collect();
    s.assert(&Bool::or(ctx, &refs));
    assert_eq!(check_with_budget(&s, &[], &budget()), Verdict::Unsat, "{t:?}");
}

#[test]
fn arithmetic_matches_wrapping_arithmetic() {
    let ctx = new_context();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for t in TYPES {
        for op in ARITH {
            let mut cases = Vec::new();
            while cases.len() < 60 {
                let a = rng.value(t);
                let mut b = rng.value(t);
                if matches!(op, BinOp::Div | BinOp::Rem) && b == 0 {
                    continue;
                }
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    b = (rng.next() % t.bits() as u64) as i64;
                }
                cases.push((a, b));
            }
            for &(a, b) in &cases {
                let r = arith(op, &constant(&ctx, t, a), &constant(&ctx, t, b), t).unwrap();
                assert_eq!(r.get_size(), t.bits());
                assert_eq!(value_of(&r, t), Some(expected(op, a, b, t)), "{a} {} {b} in {t:?}", op.c_token());
                assert!(defined(op, &constant(&ctx, t, a), &constant(&ctx, t, b), t).simplify().as_bool().is_some());
            }
            let some = &cases[..SOLVER_CASES];
            solver_agrees(
                &ctx,
                t,
                some,
                |x, y| arith(op, x, y, t).unwrap(),
                |a, b| constant(&ctx, t, expected(op, a, b, t)),
            );
        }
    }
}

#[test]
fn comparisons_are_signed_or_unsigned() {
    let ctx = new_context();
    let mut rng = Rng(12345);
    for t in TYPES {
        for op in CMP {
            let cases: Vec<(i64, i64)> = (0..60)
                .map(|i| {
                    let a = rng.value(t);
                    (a, if i % 4 == 0 { a } else { rng.value(t) })
                })
                .collect();
            for &(a, b) in &cases {
                let c = compare(op, &constant(&ctx, t, a), &constant(&ctx, t, b), t.signed).unwrap();
                assert_eq!(
                    c.simplify().as_bool(),
                    Some(expected(op, a, b, t) == 1),
                    "{a} {} {b} in {t:?}",
                    op.c_token()
                );
            }
            let int = IntType::INT;
            solver_agrees(
                &ctx,
                t,
                &cases[..SOLVER_CASES],
                |x, y| from_bool(&compare(op, x, y, t.signed).unwrap(), int),
                |a, b| constant(&ctx, int, expected(op, a, b, t)),
            );
        }
    }
    assert!(compare(BinOp::Add, &constant(&ctx, IntType::INT, 1), &constant(&ctx, IntType::INT, 1), true).is_none());
    assert!(
        arith(BinOp::Lt, &constant(&ctx, IntType::INT, 1), &constant(&ctx, IntType::INT, 1), IntType::INT).is_none()
    );
}

#[test]
fn unary_operations() {
    let ctx = new_context();
    let mut rng = Rng(777);
    for t in TYPES {
        for _ in 0..100 {
            let a = rng.value(t);
            let e = constant(&ctx, t, a);
            assert_eq!(value_of(&neg(&e), t), Some(wrap128(math(a, t).wrapping_neg(), t)));
            assert_eq!(value_of(&bit_not(&e), t), Some(t.wrap(!a)));
            assert_eq!(truthy(&e).simplify().as_bool(), Some(a != 0));
            let nd = neg_defined(&e, t).simplify().as_bool().unwrap();
            assert_eq!(nd, !t.signed || a as i128 != t.min_value(), "{a} {t:?}");
        }
    }
}

#[test]
fn casts_extend_by_the_source_sign_and_truncate() {
    let ctx = new_context();
    let mut rng = Rng(4242);
    let mut all = TYPES.to_vec();
    all.push(IntType::BOOL);
    for from in all.iter().copied() {
        for to in all.iter().copied() {
            for _ in 0..40 {
                let a = if from.kind == IntKind::Bool { (rng.next() % 2) as i64 } else { rng.value(from) };
                let r = cast(&constant(&ctx, from, a), from, to);
                assert_eq!(r.get_size(), to.bits());
                // The IR's constant folding (`IntType::wrap`) is C conversion.
                assert_eq!(value_of(&r, to), Some(to.wrap(a)), "({to:?}) {a} from {from:?}");
            }
        }
    }
    // Spot checks against Rust's `as`.
    let c = |v: i64, t: IntType| constant(&ctx, t, v);
    assert_eq!(
        value_of(&cast(&c(-1, IntType::CHAR), IntType::CHAR, IntType::UINT), IntType::UINT),
        Some((-1i8) as u32 as i64)
    );
    assert_eq!(
        value_of(&cast(&c(200, IntType::UCHAR), IntType::UCHAR, IntType::INT), IntType::INT),
        Some(200u8 as i32 as i64)
    );
    assert_eq!(
        value_of(&cast(&c(-5, IntType::INT), IntType::INT, IntType::ULONG), IntType::ULONG),
        Some((-5i32) as u64 as i64)
    );
    assert_eq!(
        value_of(&cast(&c(300, IntType::INT), IntType::INT, IntType::CHAR), IntType::CHAR),
        Some(300i32 as i8 as i64)
    );
    assert_eq!(value_of(&cast(&c(256, IntType::INT), IntType::INT, IntType::BOOL), IntType::BOOL), Some(1));
}

#[test]
fn c_division_examples() {
    let ctx = new_context();
    let i = IntType::INT;
    let c = |v| constant(&ctx, i, v);
    assert_eq!(value_of(&div(&c(-7), &c(2), true), i), Some(-3));
    assert_eq!(value_of(&rem(&c(-7), &c(2), true), i), Some(-1));
    assert_eq!(value_of(&rem(&c(7), &c(-2), true), i), Some(1));
    // As unsigned, -7 is 4294967289.
    assert_eq!(value_of(&div(&c(-7), &c(2), false), IntType::UINT), Some(4294967289 / 2));
}

/// A remainder computed by hand from the quotient, `a - a / b * b` or `a - b * (a / b)`, is
/// proved to be `a % b` for every `a` and `b` at once (a division circuit against a
/// multiplier times out as `bvsrem`), and the term is `bvsrem` (`bvurem`) everywhere.
#[test]
fn a_remainder_computed_from_the_quotient_is_the_remainder() {
    let ctx = new_context();
    let quick = Budget::new(Duration::from_secs(5), Cancel::new());
    for t in [IntType::INT, IntType::UINT] {
        let a = BV::new_const(&ctx, "a", width(t));
        let b = BV::new_const(&ctx, "b", width(t));
        let r = rem(&a, &b, t.signed);
        let q = div(&a, &b, t.signed);
        for by_hand in [sub(&a, &mul(&q, &b)), sub(&a, &mul(&b, &q))] {
            let s = z3::Solver::new(&ctx);
            s.assert(&by_hand._eq(&r).not());
            assert_eq!(check_with_budget(&s, &[], &quick), Verdict::Unsat, "{t:?}");
        }
    }
    // The same term as SMT-LIB's remainder, `b = 0` and `INT_MIN % -1` included (every pair of
    // 8-bit values: the solver decides it there).
    for t in [IntType::CHAR, IntType::UCHAR] {
        let a = BV::new_const(&ctx, "a", width(t));
        let b = BV::new_const(&ctx, "b", width(t));
        let smt = if t.signed { a.bvsrem(&b) } else { a.bvurem(&b) };
        let s = z3::Solver::new(&ctx);
        s.assert(&rem(&a, &b, t.signed)._eq(&smt).not());
        assert_eq!(check_with_budget(&s, &[], &budget()), Verdict::Unsat, "{t:?}");
    }
}

#[test]
fn definedness_conditions() {
    let ctx = new_context();
    let i = IntType::INT;
    let c = |v| constant(&ctx, i, v);
    let holds = |b: Bool| b.simplify().as_bool().unwrap();
    let max = i32::MAX as i64;
    let min = i32::MIN as i64;
    assert!(!holds(add_defined(&c(max), &c(1), i)));
    assert!(holds(add_defined(&c(max), &c(-1), i)));
    assert!(!holds(add_defined(&c(min), &c(-1), i)));
    assert!(!holds(sub_defined(&c(min), &c(1), i)));
    assert!(!holds(sub_defined(&c(0), &c(min), i)));
    assert!(holds(sub_defined(&c(-1), &c(min), i)));
    assert!(!holds(mul_defined(&c(65536), &c(32768), i)));
    assert!(holds(mul_defined(&c(65536), &c(-32768), i)));
    assert!(!holds(mul_defined(&c(min), &c(-1), i)));
    assert!(!holds(div_defined(&c(5), &c(0), i)));
    assert!(!holds(div_defined(&c(min), &c(-1), i)));
    assert!(holds(div_defined(&c(min), &c(1), i)));
    let u = IntType::UINT;
    assert!(holds(add_defined(&constant(&ctx, u, -1), &constant(&ctx, u, 1), u)));
    assert!(holds(div_defined(&constant(&ctx, u, 0), &constant(&ctx, u, -1), u)));
    assert!(holds(shift_defined(&c(31), true)));
    assert!(!holds(shift_defined(&c(32), true)));
    assert!(!holds(shift_defined(&c(-1), true)));
    // A 64-bit amount is brought to 32 bits without wrapping a huge amount into range.
    let big = shift_amount(&constant(&ctx, IntType::LONG, 1 << 32), IntType::LONG, 32);
    assert!(!holds(shift_defined(&big, false)));
    let small = shift_amount(&constant(&ctx, IntType::LONG, 3), IntType::LONG, 32);
    assert_eq!(value_of(&small, i), Some(3));
    let widened = shift_amount(&constant(&ctx, IntType::CHAR, 5), IntType::CHAR, 64);
    assert_eq!(value_of(&widened, IntType::LONG), Some(5));
    // _Bool values are 0 or 1.
    let b = fresh(&ctx, "b", IntType::BOOL);
    let s = z3::Solver::new(&ctx);
    s.assert(&in_range(&b, IntType::BOOL));
    s.assert(&b._eq(&constant(&ctx, IntType::UCHAR, 2)));
    assert_eq!(check_with_budget(&s, &[], &budget()), Verdict::Unsat);
}

/// Quirk of libz3 4.8.12: `Z3_mk_bvmul_no_overflow(signed)` is false for 65536 * -32768 although
/// the product is INT_MIN, which fits; hence `mul_defined` computes the product in double width.
#[test]
fn z3_signed_mul_no_overflow_is_imprecise() {
    let ctx = new_context();
    let c = |v| constant(&ctx, IntType::INT, v);
    let z3_says = c(65536).bvmul_no_overflow(&c(-32768), true).simplify().as_bool();
    assert_eq!(z3_says, Some(false), "fixed in this libz3? then mul_defined may use it");
    assert_eq!(mul_defined(&c(65536), &c(-32768), IntType::INT).simplify().as_bool(), Some(true));
}

#[test]
fn definedness_matches_checked_arithmetic() {
    let ctx = new_context();
    let mut rng = Rng(99);
    for t in [IntType::CHAR, IntType::SHORT, IntType::INT, IntType::LONG] {
        for _ in 0..300 {
            let (a, b) = (rng.value(t), rng.value(t));
            let fits = |v: i128| t.min_value() <= v && v <= t.max_value();
            let (x, y) = (constant(&ctx, t, a), constant(&ctx, t, b));
            let (ma, mb) = (a as i128, b as i128);
            let holds = |e: Bool| e.simplify().as_bool().unwrap();
            assert_eq!(holds(add_defined(&x, &y, t)), fits(ma + mb), "{a}+{b} {t:?}");
            assert_eq!(holds(sub_defined(&x, &y, t)), fits(ma - mb), "{a}-{b} {t:?}");
            assert_eq!(holds(mul_defined(&x, &y, t)), fits(ma * mb), "{a}*{b} {t:?}");
            assert_eq!(holds(div_defined(&x, &y, t)), mb != 0 && fits(ma / mb), "{a}/{b} {t:?}");
        }
    }
}
