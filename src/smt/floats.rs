//! C's `float` and `double` for both symbolic executors, in one of two models:
//!
//! * [`FloatModel::Ieee`]: bit-precise IEEE-754 (Z3's floating-point sorts, round to nearest
//!   even), exactly as the program computes. Every proof is made in this model.
//! * [`FloatModel::Real`]: the real numbers (Verifix's model). Rounding, overflow, NaN and the
//!   infinities do not exist there, so nothing proved in it is a proof about the C program; it
//!   is the verified engine's fast way to *find* a repair of a floating-point program (its
//!   formulas are linear or polynomial arithmetic instead of bit-blasted IEEE circuits). A repair
//!   found there is a candidate: run on the tests, then proved in the IEEE model
//!   (`check::anytime`).
//!
//! In the real model: a literal is the rational its decimal text denotes (`0.1` is 1/10); the
//! conversion to an integer truncates toward zero; `floor`, `ceil` and `round` are exact;
//! `sqrt` is an uninterpreted function (the same value for the same argument); a
//! division by zero is whatever value Z3 picks (both programs share it); `float` and `double`
//! are the same reals.

use z3::ast::{Ast, BV, Bool, Dynamic, Float, Int, Real};
use z3::{Context, FuncDecl, Sort};

mod ieee;

use crate::ir::{BinOp, FloatKind};
use ieee::FpOps;
pub use ieee::from_bits;

/// Which numbers a C floating-point value is (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatModel {
    #[default]
    Ieee,
    Real,
}

/// The operations on floating-point values in one model. A value is a [`Dynamic`] of the
/// model's sort (a Z3 float of the C type's format, or a real).
pub struct Floats<'ctx> {
    ctx: &'ctx Context,
    model: FloatModel,
    fp: FpOps<'ctx>,
}

/// A comparison, named as C writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Le,
    Eq,
}

impl<'ctx> Floats<'ctx> {
    pub fn new(ctx: &'ctx Context, model: FloatModel) -> Self {
        Floats { ctx, model, fp: FpOps::new(ctx) }
    }

    pub fn model(&self) -> FloatModel {
        self.model
    }

    /// The sort of a value of kind `k`.
    pub fn sort(&self, k: FloatKind) -> Sort<'ctx> {
        match self.model {
            FloatModel::Ieee => ieee::sort(self.ctx, k),
            FloatModel::Real => Sort::real(self.ctx),
        }
    }

    /// A fresh constant of kind `k` named `name`.
    pub fn constant(&self, name: &str, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => {
                let (e, s) = ieee::sbits(k);
                Dynamic::from_ast(&Float::new_const(self.ctx, name, e, s))
            }
            FloatModel::Real => Dynamic::from_ast(&Real::new_const(self.ctx, name)),
        }
    }

    /// The literal `v` of kind `k`. In the real model, the rational of the shortest decimal
    /// text that reads back as `v` (what the student wrote, for a literal).
    pub fn literal(&self, v: f64, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.literal(v, k)),
            FloatModel::Real => Dynamic::from_ast(&decimal(self.ctx, v)),
        }
    }

    /// `+ - * /` (`op` is `add`, `sub`, `mul` or `div`).
    pub fn arith(&mut self, op: &str, a: &Dynamic<'ctx>, b: &Dynamic<'ctx>, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.arith(op, &ieee(a), &ieee(b), k)),
            FloatModel::Real => {
                let (x, y) = (real(a), real(b));
                let r = match op {
                    "add" => Real::add(self.ctx, &[&x, &y]),
                    "sub" => Real::sub(self.ctx, &[&x, &y]),
                    "mul" => Real::mul(self.ctx, &[&x, &y]),
                    _ => x.div(&y),
                };
                Dynamic::from_ast(&r)
            }
        }
    }

    pub fn neg(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.neg(&ieee(a), k)),
            FloatModel::Real => Dynamic::from_ast(&real(a).unary_minus()),
        }
    }

    pub fn abs(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.abs(&ieee(a), k)),
            FloatModel::Real => {
                let x = real(a);
                Dynamic::from_ast(&x.ge(&zero(self.ctx)).ite(&x, &x.unary_minus()))
            }
        }
    }

    /// `a <= b` or `a == b` (IEEE: false when either is NaN; `-0 == +0`).
    pub fn compare(&mut self, cmp: Cmp, a: &Dynamic<'ctx>, b: &Dynamic<'ctx>) -> Bool<'ctx> {
        match (self.model, cmp) {
            (FloatModel::Ieee, Cmp::Le) => self.fp.compare("fp.leq", &ieee(a), &ieee(b)),
            (FloatModel::Ieee, Cmp::Eq) => self.fp.compare("fp.eq", &ieee(a), &ieee(b)),
            (FloatModel::Real, Cmp::Le) => real(a).le(&real(b)),
            (FloatModel::Real, Cmp::Eq) => real(a)._eq(&real(b)),
        }
    }

    /// `a > b` (or `>=` when not `strict`), false when either is NaN: an input precondition.
    pub fn greater(&mut self, a: &Dynamic<'ctx>, b: &Dynamic<'ctx>, strict: bool) -> Bool<'ctx> {
        if !strict {
            return self.compare(Cmp::Le, b, a);
        }
        let not_nan = [self.is_nan(a).not(), self.is_nan(b).not()];
        let le = self.compare(Cmp::Le, a, b).not();
        Bool::and(self.ctx, &[&le, &not_nan[0], &not_nan[1]])
    }

    /// C's comparison `op` (`<`, `<=`, `>`, `>=`, `==`, `!=`; false with a NaN except `!=`).
    /// One order predicate, `fp.leq`, in both orientations: `x < y` is `!(y <= x)` when
    /// neither is NaN. The student's `score < a` and the reference's `score >= a` then share
    /// an atom, and an equivalence proof needs no bit-level reasoning that `fp.lt` and
    /// `fp.leq` are complements (Z3 took over 10 s on five-way grade comparisons without it).
    pub fn c_compare(&mut self, op: BinOp, x: &Dynamic<'ctx>, y: &Dynamic<'ctx>) -> Bool<'ctx> {
        match op {
            BinOp::Lt => self.greater(y, x, true),
            BinOp::Le => self.compare(Cmp::Le, x, y),
            BinOp::Gt => self.greater(x, y, true),
            BinOp::Ge => self.compare(Cmp::Le, y, x),
            BinOp::Eq => self.compare(Cmp::Eq, x, y),
            _ => self.compare(Cmp::Eq, x, y).not(),
        }
    }

    /// C's truth of a value: unequal to zero (`-0.0` is false, NaN true).
    pub fn truthy(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Bool<'ctx> {
        let zero = self.literal(0.0, k);
        self.compare(Cmp::Eq, a, &zero).not()
    }

    /// The IEEE-754 bits of `a` (to read a model's value); `None` in the real model.
    pub fn ieee_bits(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Option<BV<'ctx>> {
        match self.model {
            FloatModel::Ieee => Some(self.fp.ieee_bits(&ieee(a), k)),
            FloatModel::Real => None,
        }
    }

    pub fn is_nan(&mut self, a: &Dynamic<'ctx>) -> Bool<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.is_nan(&ieee(a)),
            FloatModel::Real => Bool::from_bool(self.ctx, false),
        }
    }

    pub fn is_finite(&mut self, a: &Dynamic<'ctx>) -> Bool<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.is_finite(&ieee(a)),
            FloatModel::Real => Bool::from_bool(self.ctx, true),
        }
    }

    /// `floor`, `ceil`, `round` (half away from zero), `sqrt`.
    pub fn math(&mut self, f: &str, a: &Dynamic<'ctx>, k: FloatKind) -> Option<Dynamic<'ctx>> {
        match self.model {
            FloatModel::Ieee => self.fp.math(f, &ieee(a), k).map(|r| Dynamic::from_ast(&r)),
            FloatModel::Real => {
                let x = real(a);
                let half = Real::from_real(self.ctx, 1, 2);
                let r = match f {
                    "floor" => floor(&x).to_real(),
                    "ceil" => ceil(&x).to_real(),
                    "round" => x.ge(&zero(self.ctx)).ite(
                        &floor(&Real::add(self.ctx, &[&x, &half])).to_real(),
                        &ceil(&Real::sub(self.ctx, &[&x, &half])).to_real(),
                    ),
                    // The same function of the same value in both programs: enough to search
                    // for a repair (the proof afterwards is IEEE's correctly rounded root).
                    "sqrt" => FuncDecl::new(self.ctx, "real.sqrt", &[&Sort::real(self.ctx)], &Sort::real(self.ctx))
                        .apply(&[&x])
                        .as_real()
                        .expect("a real"),
                    _ => return None,
                };
                Some(Dynamic::from_ast(&r))
            }
        }
    }

    /// A value of one kind converted to another (`float` ↔ `double`).
    pub fn convert(&mut self, a: &Dynamic<'ctx>, to: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.convert(&ieee(a), to)),
            FloatModel::Real => a.clone(),
        }
    }

    /// An integer (`signed` or not) converted to kind `to`.
    pub fn from_int(&mut self, a: &BV<'ctx>, signed: bool, to: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.int_to_float(a, signed, to)),
            FloatModel::Real => Dynamic::from_ast(&a.to_int(signed).to_real()),
        }
    }

    /// A value converted to an integer of `bits` bits, truncating toward zero.
    pub fn to_int(&mut self, a: &Dynamic<'ctx>, signed: bool, bits: u32) -> BV<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.float_to_int(&ieee(a), signed, bits),
            FloatModel::Real => {
                let x = real(a);
                BV::from_int(&x.ge(&zero(self.ctx)).ite(&floor(&x), &ceil(&x)), bits)
            }
        }
    }
}

fn zero(ctx: &Context) -> Real<'_> {
    Real::from_real(ctx, 0, 1)
}

/// The greatest integer at most `x`.
fn floor<'ctx>(x: &Real<'ctx>) -> Int<'ctx> {
    x.to_int()
}

/// The least integer at least `x`.
fn ceil<'ctx>(x: &Real<'ctx>) -> Int<'ctx> {
    x.unary_minus().to_int().unary_minus()
}

fn ieee<'ctx>(a: &Dynamic<'ctx>) -> Float<'ctx> {
    a.as_float().expect("an IEEE value in the IEEE model")
}

fn real<'ctx>(a: &Dynamic<'ctx>) -> Real<'ctx> {
    a.as_real().expect("a real value in the real model")
}

/// The rational the shortest decimal text of `v` denotes (`0.1` → 1/10).
fn decimal(ctx: &Context, v: f64) -> Real<'_> {
    if !v.is_finite() {
        return Real::from_real(ctx, 0, 1);
    }
    // `{:e}` gives the shortest digits that read back as `v`: "1.5e-1", "-3e2".
    let text = format!("{v:e}");
    let (mantissa, exponent) = text.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let negative = mantissa.starts_with('-');
    let mantissa = mantissa.trim_start_matches('-');
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let scale = exponent - fraction.len() as i32;
    let (mut num, mut den) = (digits, "1".to_string());
    if scale >= 0 {
        num.push_str(&"0".repeat(scale as usize));
    } else {
        den.push_str(&"0".repeat((-scale) as usize));
    }
    if negative {
        num.insert(0, '-');
    }
    Real::from_real_str(ctx, &num, &den).expect("a decimal rational")
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{SatResult, Solver};

    fn holds(ctx: &Context, b: &Bool<'_>) -> bool {
        let s = Solver::new(ctx);
        s.assert(&b.not());
        s.check() == SatResult::Unsat
    }

    #[test]
    fn literals_are_the_decimals_written() {
        let ctx = Context::new(&z3::Config::new());
        let f = Floats::new(&ctx, FloatModel::Real);
        let tenth = real(&f.literal(0.1, FloatKind::Double));
        assert!(holds(&ctx, &tenth._eq(&Real::from_real(&ctx, 1, 10))));
        let big = real(&f.literal(-2.5e3, FloatKind::Double));
        assert!(holds(&ctx, &big._eq(&Real::from_real(&ctx, -2500, 1))));
        // The sum rounding makes unequal in IEEE is equal over the reals.
        let mut f = f;
        let sum =
            f.arith("add", &f.literal(0.1, FloatKind::Double), &f.literal(0.2, FloatKind::Double), FloatKind::Double);
        let point3 = f.literal(0.3, FloatKind::Double);
        assert!(holds(&ctx, &f.compare(Cmp::Eq, &sum, &point3)));
        let mut ieee = Floats::new(&ctx, FloatModel::Ieee);
        let sum = ieee.arith(
            "add",
            &ieee.literal(0.1, FloatKind::Double),
            &ieee.literal(0.2, FloatKind::Double),
            FloatKind::Double,
        );
        let point3 = ieee.literal(0.3, FloatKind::Double);
        assert!(holds(&ctx, &ieee.compare(Cmp::Eq, &sum, &point3).not()));
    }

    #[test]
    fn conversions_truncate_toward_zero_and_round_half_away() {
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Real);
        for (v, truncated, rounded) in [(2.7, 2, 3.0), (-2.7, -2, -3.0), (2.5, 2, 3.0), (-2.5, -2, -3.0), (0.4, 0, 0.0)]
        {
            let x = f.literal(v, FloatKind::Double);
            let t = f.to_int(&x, true, 32);
            assert!(holds(&ctx, &t._eq(&BV::from_i64(&ctx, truncated, 32))), "({v})");
            let r = f.math("round", &x, FloatKind::Double).unwrap();
            let want = f.literal(rounded, FloatKind::Double);
            assert!(holds(&ctx, &f.compare(Cmp::Eq, &r, &want)), "round({v})");
        }
        let x = f.literal(-7.0, FloatKind::Double);
        let back = f.from_int(&BV::from_i64(&ctx, -7, 32), true, FloatKind::Double);
        assert!(holds(&ctx, &f.compare(Cmp::Eq, &x, &back)));
        let four = f.literal(4.0, FloatKind::Double);
        let sum =
            f.arith("add", &f.literal(1.5, FloatKind::Double), &f.literal(2.5, FloatKind::Double), FloatKind::Double);
        let (a, b) =
            (f.math("sqrt", &four, FloatKind::Double).unwrap(), f.math("sqrt", &sum, FloatKind::Double).unwrap());
        assert!(holds(&ctx, &f.compare(Cmp::Eq, &a, &b)));
    }
}
