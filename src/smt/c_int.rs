//! C integer operations as Z3 bit-vector terms (gcc on x86-64: two's complement, `char` signed,
//! `>>` of a negative value arithmetic, conversions modulo 2^n).
//!
//! A C integer value of type `t` is a bit-vector of `t.bits()` bits; its signedness lives in the
//! IR type, not in the term, so operations whose meaning depends on it take `signed`. Operands of
//! binary operations have the same width (the IR has already applied the usual arithmetic
//! conversions) except the amount of a shift, see [`shift_amount`].
//!
//! Undefined behaviour is not encoded into the results (they are total, with Z3's values, e.g.
//! `x / 0`); the `*_defined` predicates state the conditions under which C defines the operation,
//! for engines to assert or check.

use z3::Context;
use z3::ast::{Ast, BV, Bool};

use crate::ir::{BinOp, IntKind, IntType};

/// The width of a C integer type in bits (`_Bool` is a byte holding 0 or 1).
pub fn width(t: IntType) -> u32 {
    t.bits()
}

/// The constant `v` converted to `t` (wrapped as C conversion does).
pub fn constant<'ctx>(ctx: &'ctx Context, t: IntType, v: i64) -> BV<'ctx> {
    BV::from_i64(ctx, t.wrap(v), width(t))
}

/// A fresh unconstrained value of type `t` (an input); `_Bool` is constrained by [`in_range`].
pub fn fresh<'ctx>(ctx: &'ctx Context, prefix: &str, t: IntType) -> BV<'ctx> {
    BV::fresh_const(ctx, prefix, width(t))
}

/// The value of a constant term as an `i64` of type `t` (sign-extended for signed types, the bits
/// for unsigned 64-bit), as the IR stores constants. `None` if `e` is not a numeral.
pub fn value_of(e: &BV, t: IntType) -> Option<i64> {
    let e = e.simplify();
    let u = e.as_u64()?;
    Some(t.wrap(u as i64))
}

/// For `_Bool`, the value is 0 or 1; true for every other type.
pub fn in_range<'ctx>(e: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    let ctx = e.get_ctx();
    if t.kind == IntKind::Bool { e.bvule(&BV::from_u64(ctx, 1, width(t))) } else { Bool::from_bool(ctx, true) }
}

pub fn add<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvadd(b)
}
pub fn sub<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvsub(b)
}
pub fn mul<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvmul(b)
}
/// C `/`: truncates toward zero (`bvsdiv`) for signed types.
pub fn div<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, signed: bool) -> BV<'ctx> {
    if signed { a.bvsdiv(b) } else { a.bvudiv(b) }
}
/// C `%`: the sign of the dividend for signed types, written as C defines it from the
/// quotient, `a - b * (a / b)` (C11 6.5.5p6). The term equals `bvsrem` (`bvurem` unsigned) for
/// every `a` and `b`, `b = 0` and `INT_MIN % -1` included (SMT-LIB defines both from the
/// quotient of the magnitudes). Spelt this way it shares the quotient and the product with a
/// remainder a student computes by hand (`n - n / 10 * 10`, `r = a - b * q`), which the
/// solver then sees are the same term; as `bvsrem` the equivalence is a division circuit
/// against a multiplier, which Z3 does not decide in minutes at 32 bits.
pub fn rem<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, signed: bool) -> BV<'ctx> {
    a.bvsub(&b.bvmul(&div(a, b, signed)))
}
pub fn neg<'ctx>(a: &BV<'ctx>) -> BV<'ctx> {
    a.bvneg()
}
pub fn bit_not<'ctx>(a: &BV<'ctx>) -> BV<'ctx> {
    a.bvnot()
}
pub fn bit_and<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvand(b)
}
pub fn bit_or<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvor(b)
}
pub fn bit_xor<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>) -> BV<'ctx> {
    a.bvxor(b)
}
/// `a << n`, `n` of `a`'s width (see [`shift_amount`]).
pub fn shl<'ctx>(a: &BV<'ctx>, n: &BV<'ctx>) -> BV<'ctx> {
    a.bvshl(n)
}
/// `a >> n`: arithmetic for signed `a` (gcc), logical for unsigned.
pub fn shr<'ctx>(a: &BV<'ctx>, n: &BV<'ctx>, signed: bool) -> BV<'ctx> {
    if signed { a.bvashr(n) } else { a.bvlshr(n) }
}

/// A shift amount of type `amount_ty` brought to `bits` (the promoted left operand's width); an
/// amount that does not fit is made at least `bits` (still undefined, see [`shift_defined`]).
pub fn shift_amount<'ctx>(n: &BV<'ctx>, amount_ty: IntType, bits: u32) -> BV<'ctx> {
    let from = n.get_size();
    if from <= bits {
        return resize(n, amount_ty.signed, bits);
    }
    let ctx = n.get_ctx();
    let fits = n.bvult(&BV::from_u64(ctx, bits as u64, from));
    fits.ite(&n.extract(bits - 1, 0), &BV::from_u64(ctx, bits as u64, bits))
}

/// A comparison; `signed` is the signedness of the (common) operand type.
pub fn compare<'ctx>(op: BinOp, a: &BV<'ctx>, b: &BV<'ctx>, signed: bool) -> Option<Bool<'ctx>> {
    Some(match (op, signed) {
        (BinOp::Eq, _) => a._eq(b),
        (BinOp::Ne, _) => a._eq(b).not(),
        (BinOp::Lt, true) => a.bvslt(b),
        (BinOp::Lt, false) => a.bvult(b),
        (BinOp::Le, true) => a.bvsle(b),
        (BinOp::Le, false) => a.bvule(b),
        (BinOp::Gt, true) => a.bvsgt(b),
        (BinOp::Gt, false) => a.bvugt(b),
        (BinOp::Ge, true) => a.bvsge(b),
        (BinOp::Ge, false) => a.bvuge(b),
        _ => return None,
    })
}

/// An arithmetic, bitwise or shift operation in type `t` (both operands of `t`'s width; for
/// shifts convert the amount with [`shift_amount`] first). `None` for comparisons.
pub fn arith<'ctx>(op: BinOp, a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Option<BV<'ctx>> {
    Some(match op {
        BinOp::Add => add(a, b),
        BinOp::Sub => sub(a, b),
        BinOp::Mul => mul(a, b),
        BinOp::Div => div(a, b, t.signed),
        BinOp::Rem => rem(a, b, t.signed),
        BinOp::Shl => shl(a, b),
        BinOp::Shr => shr(a, b, t.signed),
        BinOp::BitAnd => bit_and(a, b),
        BinOp::BitOr => bit_or(a, b),
        BinOp::BitXor => bit_xor(a, b),
        _ => return None,
    })
}

/// A C truth value: `e != 0`.
pub fn truthy<'ctx>(e: &BV<'ctx>) -> Bool<'ctx> {
    e._eq(&BV::from_u64(e.get_ctx(), 0, e.get_size())).not()
}

/// A condition as an `int`-like value of type `t`: 1 or 0.
pub fn from_bool<'ctx>(b: &Bool<'ctx>, t: IntType) -> BV<'ctx> {
    let ctx = b.get_ctx();
    b.ite(&BV::from_u64(ctx, 1, width(t)), &BV::from_u64(ctx, 0, width(t)))
}

/// Sign- or zero-extends `e` to `bits`, or keeps its low `bits` bits.
pub fn resize<'ctx>(e: &BV<'ctx>, signed: bool, bits: u32) -> BV<'ctx> {
    let from = e.get_size();
    if bits > from {
        if signed { e.sign_ext(bits - from) } else { e.zero_ext(bits - from) }
    } else if bits < from {
        e.extract(bits - 1, 0)
    } else {
        e.clone()
    }
}

/// C conversion of a value of type `from` to type `to`: extension by the source's signedness,
/// truncation modulo 2^n, and `!= 0` for `_Bool`.
pub fn cast<'ctx>(e: &BV<'ctx>, from: IntType, to: IntType) -> BV<'ctx> {
    if to.kind == IntKind::Bool {
        return if from.kind == IntKind::Bool { e.clone() } else { from_bool(&truthy(e), to) };
    }
    resize(e, from.signed, width(to))
}

/// `a + b` does not overflow `t` (always true for unsigned types: they wrap by definition).
pub fn add_defined<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    fits_when_widened(a, b, t, 1, BV::bvadd)
}
pub fn sub_defined<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    fits_when_widened(a, b, t, 1, BV::bvsub)
}
/// `a * b` does not overflow `t`. (Not Z3's `bvmul_no_overflow`: in libz3 4.8.12 it is false
/// for some products that fit, e.g. 65536 * -32768 in 32 bits.)
pub fn mul_defined<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    let w = a.get_size();
    fits_when_widened(a, b, t, w, BV::bvmul)
}

/// For signed `t`: `op` computed on operands sign-extended by `extra` bits (enough to be exact)
/// equals the sign-extended `w`-bit result.
fn fits_when_widened<'ctx>(
    a: &BV<'ctx>,
    b: &BV<'ctx>,
    t: IntType,
    extra: u32,
    op: impl Fn(&BV<'ctx>, &BV<'ctx>) -> BV<'ctx>,
) -> Bool<'ctx> {
    if !t.signed {
        return Bool::from_bool(a.get_ctx(), true);
    }
    let w = a.get_size();
    let wide = op(&a.sign_ext(extra), &b.sign_ext(extra));
    wide._eq(&wide.extract(w - 1, 0).sign_ext(extra))
}
/// `-a` does not overflow (`a != MIN` for signed types).
pub fn neg_defined<'ctx>(a: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    if !t.signed {
        return Bool::from_bool(a.get_ctx(), true);
    }
    a.bvneg_no_overflow()
}
/// `a / b` and `a % b` are defined: `b != 0`, and not `MIN / -1` for signed types.
pub fn div_defined<'ctx>(a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    let nonzero = truthy(b);
    if !t.signed {
        return nonzero;
    }
    Bool::and(a.get_ctx(), &[&nonzero, &a.bvsdiv_no_overflow(b)])
}
/// `a << n` / `a >> n` with `n` already of `a`'s width: `0 <= n < width` (and for signed `<<`,
/// C11 also requires a non-negative `a` whose result fits; gcc wraps, and so do we: not checked).
pub fn shift_defined<'ctx>(n: &BV<'ctx>, amount_signed: bool) -> Bool<'ctx> {
    let ctx = n.get_ctx();
    let bits = n.get_size();
    let below = n.bvult(&BV::from_u64(ctx, bits as u64, bits));
    if amount_signed { Bool::and(ctx, &[&below, &n.bvsge(&BV::from_u64(ctx, 0, bits))]) } else { below }
}

/// The definedness condition of `op` in type `t` (true for operations that are always defined).
pub fn defined<'ctx>(op: BinOp, a: &BV<'ctx>, b: &BV<'ctx>, t: IntType) -> Bool<'ctx> {
    match op {
        BinOp::Add => add_defined(a, b, t),
        BinOp::Sub => sub_defined(a, b, t),
        BinOp::Mul => mul_defined(a, b, t),
        BinOp::Div | BinOp::Rem => div_defined(a, b, t),
        BinOp::Shl | BinOp::Shr => shift_defined(b, false),
        _ => Bool::from_bool(a.get_ctx(), true),
    }
}

#[cfg(test)]
mod tests;
