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
use super::floats::{Cmp, Floats};
use crate::ir::{Builtin, FloatKind, IntType, MathFn};

/// Whether [`int_function`] models `b`.
pub fn is_integer_function(b: Builtin) -> bool {
    matches!(b, Builtin::Abs | Builtin::Labs) || b.char_class().is_some() || b.case_map().is_some()
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

/// The `math.h` function `f` of kind `k` (`sqrt` of a `double`, `sqrtf` of a `float`) of
/// `args`, already converted to `k` as C's prototypes do; the result is of kind `k`. Every
/// model models every function: exactly where IEEE defines the result (`fabs`, `sqrt`,
/// `floor`, `ceil`, `round`, `trunc`, `fmin`, `fmax`), else as an uninterpreted function
/// (the same value of the same arguments, see [`Floats::math`]).
///
/// `base` is the first argument's value where the program writes it as a constant
/// (`pow(10, i)`): an integer power of it that a `double` (`float`) holds exactly is that
/// power, which glibc's `pow` (`powf`) returns exactly (`exact_powers`).
pub fn math_function<'ctx>(
    floats: &mut Floats<'ctx>,
    f: MathFn,
    k: FloatKind,
    args: &[Dynamic<'ctx>],
    base: Option<f64>,
) -> Dynamic<'ctx> {
    let x = &args[0];
    match f {
        MathFn::Pow if let Some(c) = base => {
            let mut r = floats.uninterpreted(f.c_name(k), args, k);
            for (j, v) in exact_powers(c, k).into_iter().rev() {
                let (j, v) = (floats.literal(j as f64, k), floats.literal(v, k));
                r = floats.compare(Cmp::Eq, &args[1], &j).ite(&v, &r);
            }
            r
        }
        MathFn::Fabs => floats.abs(x, k),
        MathFn::Fmin | MathFn::Fmax => {
            // A NaN gives the other argument; of `-0` and `+0`, glibc's choice depends on the
            // width and the version (2.36 on x86-64: `fmin` the first, `fminf` the second),
            // so that one case is the uninterpreted function.
            let y = &args[1];
            let (x_first, y_first) = if f == MathFn::Fmin {
                (floats.greater(y, x, true), floats.greater(x, y, true))
            } else {
                (floats.greater(x, y, true), floats.greater(y, x, true))
            };
            let (x_nan, y_nan) = (floats.is_nan(x), floats.is_nan(y));
            let unknown = floats.uninterpreted(f.c_name(k), args, k);
            let equal = x._eq(y).ite(x, &unknown);
            x_nan.ite(y, &y_nan.ite(x, &x_first.ite(x, &y_first.ite(y, &equal))))
        }
        MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc | MathFn::Sqrt => {
            floats.math(f.c_names().0, x, k).expect("a rounding function or the root")
        }
        _ => floats.uninterpreted(f.c_name(k), args, k),
    }
}

/// The value of an argument the program writes as a number (`10`, `2.0`, a `#define`d one).
pub fn constant_argument(a: &crate::ir::Expr) -> Option<f64> {
    match a.strip_implicit().kind {
        crate::ir::ExprKind::Int(v) => Some(v as f64),
        crate::ir::ExprKind::Float(v) => Some(v),
        _ => None,
    }
}

/// The integer powers `j` of the integer `c` (|c| at least 2) that kind `k` holds exactly,
/// with their values: `c^0` to the last below 2^100, and for a power of two its negative
/// powers down to 2^-60 (the range checked against glibc's `pow` and `powf`, which return an
/// exactly representable result exactly; a test compares every entry with the interpreter).
pub fn exact_powers(c: f64, k: FloatKind) -> Vec<(i32, f64)> {
    let holds = |v: f64| match k {
        FloatKind::Float => (v as f32) as f64 == v,
        FloatKind::Double => true,
    };
    let mut out = Vec::new();
    if c.fract() != 0.0 || c.abs() < 2.0 || c.abs() > 1e6 {
        return out;
    }
    let c = c as i128;
    let mut v: i128 = 1;
    for j in 0.. {
        if v.unsigned_abs() >= 1 << 100 || (v as f64) as i128 != v || !holds(v as f64) {
            break;
        }
        out.push((j, v as f64));
        v *= c;
    }
    if c.unsigned_abs().is_power_of_two() {
        let log = c.unsigned_abs().trailing_zeros() as i32;
        for j in 1.. {
            if j * log > 60 {
                break;
            }
            let magnitude = 2f64.powi(-j * log);
            let v = if c < 0 && j % 2 == 1 { -magnitude } else { magnitude };
            if holds(v) {
                out.insert(0, (-j, v));
            }
        }
    }
    out
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
    fn math_functions_are_exact_where_ieee_defines_them() {
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Ieee);
        let s = z3::Solver::new(&ctx);
        let equal = |f: &mut Floats<'_>, g: MathFn, k: FloatKind, args: &[f64], want: f64| {
            let args: Vec<_> = args.iter().map(|&a| f.literal(a, k)).collect();
            let r = math_function(f, g, k, &args, None);
            let want = f.literal(want, k);
            s.push();
            s.assert(&f.compare(crate::smt::floats::Cmp::Eq, &r, &want).not());
            let result = s.check();
            s.pop(1);
            assert_eq!(result, z3::SatResult::Unsat, "{} of {args:?}", g.c_name(k));
        };
        equal(&mut f, MathFn::Round, FloatKind::Double, &[-2.5], -3.0);
        equal(&mut f, MathFn::Trunc, FloatKind::Double, &[-2.7], -2.0);
        equal(&mut f, MathFn::Sqrt, FloatKind::Float, &[2.0], (2.0f32).sqrt() as f64);
        equal(&mut f, MathFn::Fmin, FloatKind::Double, &[f64::NAN, 3.0], 3.0);
        equal(&mut f, MathFn::Fmax, FloatKind::Double, &[1.0, -4.0], 1.0);
    }

    /// Which of `-0` and `+0` `fmin` returns is the C library's choice: the model leaves it
    /// open (either is possible), and decides every other case.
    #[test]
    fn fmin_of_two_zeros_is_left_open() {
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Ieee);
        let (neg, pos) = (f.literal(-0.0, FloatKind::Double), f.literal(0.0, FloatKind::Double));
        let r = math_function(&mut f, MathFn::Fmin, FloatKind::Double, &[neg, pos], None);
        for sign in [true, false] {
            let s = z3::Solver::new(&ctx);
            let negative = f.is_negative_zero(&r);
            s.assert(&if sign { negative } else { negative.not() });
            assert_eq!(s.check(), z3::SatResult::Sat);
        }
    }

    /// An uninterpreted function is a function: the same arguments give the same value in
    /// every model, so two programs that both call `pow` on equal values print alike.
    #[test]
    fn an_uninterpreted_function_of_equal_arguments_is_equal() {
        let ctx = Context::new(&z3::Config::new());
        for model in [FloatModel::Ieee, FloatModel::Real, FloatModel::Opaque] {
            let mut f = Floats::new(&ctx, model);
            let (x, y) = (f.constant("x", FloatKind::Double), f.constant("y", FloatKind::Double));
            let a = math_function(&mut f, MathFn::Pow, FloatKind::Double, &[x.clone(), y.clone()], None);
            let b = math_function(&mut f, MathFn::Pow, FloatKind::Double, &[x.clone(), y.clone()], None);
            let c = math_function(&mut f, MathFn::Pow, FloatKind::Double, &[y, x], None);
            let s = z3::Solver::new(&ctx);
            s.assert(&a._eq(&b).not());
            assert_eq!(s.check(), z3::SatResult::Unsat, "{model:?}");
            let s = z3::Solver::new(&ctx);
            s.assert(&a._eq(&c).not());
            assert_eq!(s.check(), z3::SatResult::Sat, "{model:?}: pow is not symmetric");
        }
    }

    /// Every exact power the model states is what the interpreter (glibc's `pow`/`powf`)
    /// computes, so a program proved with them prints what it prints when it runs.
    #[test]
    fn exact_powers_are_what_glibc_computes() {
        let mut checked = 0;
        for c in [2.0, 3.0, 5.0, 10.0, -2.0, -10.0, 16.0, 100.0, 7.0] {
            for k in [FloatKind::Double, FloatKind::Float] {
                let powers = exact_powers(c, k);
                assert!(powers.iter().any(|&(j, _)| j == 0));
                for (j, v) in powers {
                    let got = match k {
                        FloatKind::Double => MathFn::Pow.eval_double(c, j as f64),
                        FloatKind::Float => MathFn::Pow.eval_float(c as f32, j as f32) as f64,
                    };
                    assert_eq!(got, v, "pow({c}, {j}) in {k:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 150, "{checked}");
        assert!(exact_powers(10.0, FloatKind::Double).iter().any(|&(j, v)| j == 22 && v == 1e22));
        assert!(!exact_powers(10.0, FloatKind::Double).iter().any(|&(j, _)| j == 23 || j < 0));
        assert!(exact_powers(0.5, FloatKind::Double).is_empty());
    }

    /// `pow(10, i)` for an integer `i` the program converts is `10^i` exactly where that is
    /// exact, in every model.
    #[test]
    fn a_power_of_a_constant_is_exact_in_every_model() {
        let ctx = Context::new(&z3::Config::new());
        for model in [FloatModel::Ieee, FloatModel::Real, FloatModel::Opaque] {
            let mut f = Floats::new(&ctx, model);
            let i = BV::new_const(&ctx, "i", 32);
            let y = f.from_int(&i, true, FloatKind::Double);
            let ten = f.literal(10.0, FloatKind::Double);
            let r = math_function(&mut f, MathFn::Pow, FloatKind::Double, &[ten, y], Some(10.0));
            let thousand = f.literal(1000.0, FloatKind::Double);
            let s = z3::Solver::new(&ctx);
            s.assert(&i._eq(&BV::from_i64(&ctx, 3, 32)));
            s.assert(&r._eq(&thousand).not());
            assert_eq!(s.check(), z3::SatResult::Unsat, "{model:?}");
        }
    }
}
