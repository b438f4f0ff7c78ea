//! The C library's functions without effects, as terms: one definition that both symbolic
//! executors call (`encode`, behind the bounded product and the mutation engine, and
//! `region`, behind the verified engine), so a function modelled once is modelled everywhere.
//! The values are glibc's, which the interpreter also gives: `isdigit('7')` is 2048, not 1,
//! and `toupper` of the `char` −56 is 200, so a program is compared as it really runs.
//!
//! Each function returns `None` for a builtin it does not model; the caller names it.

use z3::Context;
use z3::ast::{Ast, BV, Bool, Dynamic};

use super::c_int;
use super::floats::Floats;
use crate::ir::{Builtin, FloatKind, IntType};

/// Whether [`int_function`] models `b`.
pub fn is_integer_function(b: Builtin) -> bool {
    use Builtin::*;
    matches!(b, Abs | Labs | Isdigit | Isalpha | Isspace | Isupper | Islower | Toupper | Tolower)
}

/// Whether [`double_function`] models `b`.
pub fn is_double_function(b: Builtin) -> bool {
    matches!(b, Builtin::Fabs | Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Sqrt)
}

/// An integer function of one integer argument `x` of type `t`: `abs`, `labs`, the `ctype.h`
/// classes and `toupper`/`tolower`. Returns the result and its type (`abs` keeps `t` as
/// promoted by the front end; the `ctype.h` functions return `int`).
pub fn int_function<'ctx>(ctx: &'ctx Context, b: Builtin, x: &BV<'ctx>, t: IntType) -> Option<(BV<'ctx>, IntType)> {
    match b {
        Builtin::Abs | Builtin::Labs => {
            let zero = BV::from_u64(ctx, 0, x.get_size());
            Some((x.bvslt(&zero).ite(&x.bvneg(), x), t))
        }
        Builtin::Toupper | Builtin::Tolower => {
            let ((lo, hi), shift) = b.case_map()?;
            let c = c_int::cast(x, t, IntType::INT);
            let moved = c.bvadd(&BV::from_i64(ctx, shift, 32));
            // A negative `char` other than EOF: its `unsigned char` value (see `case_map`).
            let negative =
                Bool::and(ctx, &[&c.bvsge(&BV::from_i64(ctx, -128, 32)), &c.bvsle(&BV::from_i64(ctx, -2, 32))]);
            let unsigned = c.bvadd(&BV::from_i64(ctx, 256, 32));
            Some((within(ctx, &c, lo, hi).ite(&moved, &negative.ite(&unsigned, &c)), IntType::INT))
        }
        _ => {
            let (ranges, bit) = b.char_class()?;
            let c = c_int::cast(x, t, IntType::INT);
            let member: Vec<Bool<'ctx>> = ranges.iter().map(|&(lo, hi)| within(ctx, &c, lo, hi)).collect();
            let member = Bool::or(ctx, &member.iter().collect::<Vec<_>>());
            let r = member.ite(&BV::from_i64(ctx, bit, 32), &BV::from_i64(ctx, 0, 32));
            Some((r, IntType::INT))
        }
    }
}

/// `lo <= c <= hi` for an `int` `c`.
fn within<'ctx>(ctx: &'ctx Context, c: &BV<'ctx>, lo: u8, hi: u8) -> Bool<'ctx> {
    Bool::and(ctx, &[&c.bvsge(&BV::from_i64(ctx, lo as i64, 32)), &c.bvsle(&BV::from_i64(ctx, hi as i64, 32))])
}

/// A floating-point function of one argument `x`, already converted to `double` as C's
/// prototypes do (`fabs`, `floor`, `ceil`, `round`, `sqrt`); the result is a `double`.
pub fn double_function<'ctx>(floats: &mut Floats<'ctx>, b: Builtin, x: &Dynamic<'ctx>) -> Option<Dynamic<'ctx>> {
    match b {
        Builtin::Fabs => Some(floats.abs(x, FloatKind::Double)),
        Builtin::Floor => floats.math("floor", x, FloatKind::Double),
        Builtin::Ceil => floats.math("ceil", x, FloatKind::Double),
        Builtin::Round => floats.math("round", x, FloatKind::Double),
        Builtin::Sqrt => floats.math("sqrt", x, FloatKind::Double),
        _ => None,
    }
}

/// The characters `strspn`/`strcspn` measure a span by, when the call names them as a string
/// literal (`strcspn(s, "\n")`); the symbolic executors model no other.
pub fn span_set(b: Builtin, set: &crate::ir::Expr) -> Option<&[u8]> {
    match (&set.strip_implicit().kind, b) {
        (crate::ir::ExprKind::Str(bytes), Builtin::Strspn | Builtin::Strcspn) => Some(bytes),
        _ => None,
    }
}

/// `strspn(s, set)` (`b` = `Strspn`) or `strcspn(s, set)` (any other `b`: `strlen` is
/// `strcspn` with an empty set) over `s`'s characters from its
/// start, `bits` wide: the index of the first character that ends the span (one not in `set`
/// for `strspn`, one in it for `strcspn`, or the NUL), else `chars.len()` (the caller makes
/// sure a NUL is among them, as for `strlen`).
pub fn span_length<'ctx>(ctx: &'ctx Context, b: Builtin, chars: &[BV<'ctx>], set: &[u8], bits: u32) -> BV<'ctx> {
    let nul = BV::from_u64(ctx, 0, 8);
    let mut r = BV::from_u64(ctx, chars.len() as u64, bits);
    // From the end, so the first character that ends the span wins.
    for (i, c) in chars.iter().enumerate().rev() {
        let is_nul = c._eq(&nul);
        // With no set (`strlen`) the NUL alone ends the span: no `or` with `false` in the term.
        let stops = if set.is_empty() && b != Builtin::Strspn {
            is_nul
        } else {
            let members: Vec<Bool<'ctx>> = set.iter().map(|&m| c._eq(&BV::from_u64(ctx, u64::from(m), 8))).collect();
            let in_set = Bool::or(ctx, &members.iter().collect::<Vec<_>>());
            Bool::or(ctx, &[&is_nul, &if b == Builtin::Strspn { in_set.not() } else { in_set }])
        };
        r = stops.ite(&BV::from_u64(ctx, i as u64, bits), &r);
    }
    r
}

/// `strcmp` over two strings' characters from their starts, `bits` wide: the difference of
/// the first pair of characters (as `unsigned char`) that differ or end the first string, 0
/// when they agree through a NUL, as the interpreter (and glibc) returns. Also, per position
/// of the shorter, whether the comparison stops there; where it stops at none, it reads past
/// the shorter's end (the caller's runtime error, or a cut).
pub fn string_compare<'ctx>(
    ctx: &'ctx Context,
    xs: &[BV<'ctx>],
    ys: &[BV<'ctx>],
    bits: u32,
) -> (BV<'ctx>, Vec<Bool<'ctx>>) {
    let nul = BV::from_u64(ctx, 0, 8);
    let m = xs.len().min(ys.len());
    let stops: Vec<Bool<'ctx>> = (0..m).map(|i| Bool::or(ctx, &[&xs[i]._eq(&ys[i]).not(), &xs[i]._eq(&nul)])).collect();
    let mut r = BV::from_u64(ctx, 0, bits);
    for i in (0..m).rev() {
        let diff = xs[i].zero_ext(bits - 8).bvsub(&ys[i].zero_ext(bits - 8));
        r = stops[i].ite(&diff, &r);
    }
    (r, stops)
}

/// `strcpy`/`strcat` of a string's characters: per character, whether it is written (no NUL
/// before it; the NUL itself is written).
pub fn copied<'ctx>(ctx: &'ctx Context, src: &[BV<'ctx>]) -> Vec<Bool<'ctx>> {
    let nul = BV::from_u64(ctx, 0, 8);
    let mut before_nul = Bool::from_bool(ctx, true);
    src.iter()
        .map(|c| {
            let written = before_nul.clone();
            before_nul = Bool::and(ctx, &[&before_nul, &c._eq(&nul).not()]);
            written
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::floats::FloatModel;
    use z3::ast::Ast;

    fn value(ctx: &Context, b: Builtin, c: i64) -> i64 {
        let x = BV::from_i64(ctx, c, 8);
        let (r, _) = int_function(ctx, b, &x, IntType::CHAR).expect("modelled");
        c_int::value_of(&r.simplify(), IntType::INT).expect("a constant")
    }

    #[test]
    fn character_functions_return_what_glibc_returns() {
        let ctx = Context::new(&z3::Config::new());
        assert_eq!(value(&ctx, Builtin::Isdigit, '7' as i64), 2048);
        assert_eq!(value(&ctx, Builtin::Isdigit, 'a' as i64), 0);
        assert_eq!(value(&ctx, Builtin::Isalpha, 'q' as i64), 1024);
        assert_eq!(value(&ctx, Builtin::Isspace, '\n' as i64), 8192);
        assert_eq!(value(&ctx, Builtin::Isupper, -56), 0);
        assert_eq!(value(&ctx, Builtin::Toupper, 'q' as i64), 'Q' as i64);
        assert_eq!(value(&ctx, Builtin::Toupper, '{' as i64), '{' as i64);
        assert_eq!(value(&ctx, Builtin::Tolower, 'M' as i64), 'm' as i64);
        // gcc + glibc on x86-64: toupper((char) 0xC8) is 200; EOF stays EOF.
        assert_eq!(value(&ctx, Builtin::Toupper, -56), 200);
        assert_eq!(value(&ctx, Builtin::Tolower, -128), 128);
        assert_eq!(value(&ctx, Builtin::Toupper, -1), -1);
        assert_eq!(value(&ctx, Builtin::Abs, -5), 5);
    }

    #[test]
    fn math_functions_are_double_functions() {
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Ieee);
        let x = f.literal(-2.5, FloatKind::Double);
        let r = double_function(&mut f, Builtin::Round, &x).unwrap();
        let want = f.literal(-3.0, FloatKind::Double);
        let s = z3::Solver::new(&ctx);
        s.assert(&f.compare(crate::smt::floats::Cmp::Eq, &r, &want).not());
        assert_eq!(s.check(), z3::SatResult::Unsat);
        assert!(double_function(&mut f, Builtin::Pow, &x).is_none());
    }
}
