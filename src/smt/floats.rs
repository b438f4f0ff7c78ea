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
//! * [`FloatModel::Opaque`]: the IEEE-754 bits of each value, with every rounding operation
//!   (`+ - * /`, conversions, comparisons, the math library) an uninterpreted function of its
//!   operands' bits; negation, `fabs` and the NaN and infinity tests are the exact bit
//!   operations. An integer converted to a floating type that holds it exactly and back is
//!   the integer again, and `fabs` of a converted integer is its converted magnitude (rounding
//!   is symmetric), so `(int) fabs(n % 10)` leaves no float term. IEEE arithmetic is one
//!   interpretation of those functions, so a formula unsatisfiable here is unsatisfiable in
//!   IEEE: a proof in this model is a proof about the C program. A model (a counterexample)
//!   may not be one. Two programs that compute a value by the same operations from the same
//!   inputs get the same term, which is what an equivalence proof of a repaired program mostly
//!   needs, without one bit-blasted IEEE circuit. The same bits print the same text, `nan`
//!   and `-nan` included.
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
    Opaque,
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
            FloatModel::Opaque => Sort::bitvector(self.ctx, width(k)),
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
            FloatModel::Opaque => Dynamic::from_ast(&BV::new_const(self.ctx, name, width(k))),
        }
    }

    /// The literal `v` of kind `k`. In the real model, the rational of the shortest decimal
    /// text that reads back as `v` (what the student wrote, for a literal).
    pub fn literal(&self, v: f64, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.literal(v, k)),
            FloatModel::Real => Dynamic::from_ast(&decimal(self.ctx, v)),
            FloatModel::Opaque => {
                let bits = match k {
                    FloatKind::Float => (v as f32).to_bits() as u64,
                    FloatKind::Double => v.to_bits(),
                };
                Dynamic::from_ast(&BV::from_u64(self.ctx, bits, width(k)))
            }
        }
    }

    /// The kind of a value of this model (by its sort).
    pub fn kind_of(a: &Dynamic<'ctx>) -> FloatKind {
        let single = a.get_sort().float_exponent_size() == Some(8) || a.as_bv().is_some_and(|b| b.get_size() == 32);
        if single { FloatKind::Float } else { FloatKind::Double }
    }

    /// The uninterpreted function `name` of the opaque model, from `args` to `range`.
    fn function(&self, name: &str, args: &[&Dynamic<'ctx>], range: &Sort<'ctx>) -> Dynamic<'ctx> {
        self.function_named(&format!("float.{name}"), args, range)
    }

    /// The uninterpreted function called `name`, from `args` to `range`.
    fn function_named(&self, name: &str, args: &[&Dynamic<'ctx>], range: &Sort<'ctx>) -> Dynamic<'ctx> {
        let domain: Vec<Sort<'ctx>> = args.iter().map(|a| a.get_sort()).collect();
        let domain: Vec<&Sort<'ctx>> = domain.iter().collect();
        let args: Vec<&dyn Ast<'ctx>> = args.iter().map(|a| *a as &dyn Ast<'ctx>).collect();
        FuncDecl::new(self.ctx, name, &domain, range).apply(&args)
    }

    /// In the opaque model, `(T) n <= c`, `c <= (T) n` or `(T) n == c` for an integer `n` and a
    /// constant `c` that is a whole number of magnitude below 2^24 (`float`) or 2^53
    /// (`double`) within `n`'s type: exactly `n <= c`, `c <= n`, `n == c`. The conversion is
    /// monotone and exact around `c`, so the float comparison is the integer one (a `float`
    /// loop counter against an `int` bound counts like an `int`).
    fn integer_comparison(&self, cmp: Cmp, a: &Dynamic<'ctx>, b: &Dynamic<'ctx>) -> Option<Bool<'ctx>> {
        let k = Self::kind_of(a);
        let (n, signed, c, int_left) = match (converted_int(a), converted_int(b)) {
            (Some((n, signed)), None) => (n, signed, numeral(b, k)?, true),
            (None, Some((n, signed))) => (n, signed, numeral(a, k)?, false),
            _ => return None,
        };
        let limit = match k {
            FloatKind::Float => (1u64 << 24) as f64,
            FloatKind::Double => (1u64 << 53) as f64,
        };
        let w = n.get_size();
        let (low, high): (i128, i128) =
            if signed { (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1) } else { (0, (1i128 << w) - 1) };
        if c.fract() != 0.0 || c.abs() >= limit || (c as i128) < low || (c as i128) > high {
            return None;
        }
        let c = BV::from_i64(self.ctx, c as i64, w);
        let (at_most, at_least) = if signed { (n.bvsle(&c), n.bvsge(&c)) } else { (n.bvule(&c), n.bvuge(&c)) };
        Some(match (cmp, int_left) {
            (Cmp::Eq, _) => n._eq(&c),
            (Cmp::Le, true) => at_most,
            (Cmp::Le, false) => at_least,
        })
    }

    /// The sign bit of a value of the opaque model, as a mask.
    fn sign_mask(&self, k: FloatKind) -> BV<'ctx> {
        BV::from_u64(self.ctx, 1u64 << (width(k) - 1), width(k))
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
            FloatModel::Opaque => {
                // Two constants: the machine's operation, computed here (Rust's float
                // arithmetic is IEEE's, rounding to nearest even); a NaN's bits are left to it.
                if let (Some(x), Some(y)) = (numeral(a, k), numeral(b, k)) {
                    let r = match k {
                        FloatKind::Float => ieee_op(op, x as f32, y as f32) as f64,
                        FloatKind::Double => ieee_op(op, x, y),
                    };
                    if !r.is_nan() {
                        return self.literal(r, k);
                    }
                }
                self.function(&format!("{op}.{k:?}"), &[a, b], &self.sort(k))
            }
        }
    }

    pub fn neg(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.neg(&ieee(a), k)),
            FloatModel::Real => Dynamic::from_ast(&real(a).unary_minus()),
            FloatModel::Opaque => Dynamic::from_ast(&bits(a).bvxor(&self.sign_mask(k))),
        }
    }

    pub fn abs(&mut self, a: &Dynamic<'ctx>, k: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.abs(&ieee(a), k)),
            FloatModel::Real => {
                let x = real(a);
                Dynamic::from_ast(&x.ge(&zero(self.ctx)).ite(&x, &x.unary_minus()))
            }
            FloatModel::Opaque => match converted_int(a) {
                // Rounding is symmetric: `fabs((double) n)` is `(double) abs(n)`, with `abs`
                // one bit wider so that the most negative `n` has its magnitude (the
                // conversion back, [`Floats::to_int`], then sees an integer again).
                Some((_, false)) => a.clone(),
                Some((n, true)) => {
                    let wide = super::c_int::resize(&n, true, n.get_size() + 1);
                    let zero = BV::from_u64(self.ctx, 0, wide.get_size());
                    let magnitude = wide.bvslt(&zero).ite(&wide.bvneg(), &wide);
                    self.from_int(&magnitude, true, k)
                }
                None => Dynamic::from_ast(&bits(a).bvand(&self.sign_mask(k).bvnot())),
            },
        }
    }

    /// `a <= b` or `a == b` (IEEE: false when either is NaN; `-0 == +0`).
    pub fn compare(&mut self, cmp: Cmp, a: &Dynamic<'ctx>, b: &Dynamic<'ctx>) -> Bool<'ctx> {
        match (self.model, cmp) {
            (FloatModel::Ieee, Cmp::Le) => self.fp.compare("fp.leq", &ieee(a), &ieee(b)),
            (FloatModel::Ieee, Cmp::Eq) => self.fp.compare("fp.eq", &ieee(a), &ieee(b)),
            (FloatModel::Real, Cmp::Le) => real(a).le(&real(b)),
            (FloatModel::Real, Cmp::Eq) => real(a)._eq(&real(b)),
            (FloatModel::Opaque, cmp) => {
                let k = Self::kind_of(a);
                if let (Some(x), Some(y)) = (numeral(a, k), numeral(b, k)) {
                    return Bool::from_bool(self.ctx, if cmp == Cmp::Le { x <= y } else { x == y });
                }
                if let Some(exact) = self.integer_comparison(cmp, a, b) {
                    return exact;
                }
                let name = if cmp == Cmp::Le { "le" } else { "eq" };
                self.function(name, &[a, b], &Sort::bool(self.ctx)).as_bool().expect("a predicate")
            }
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
            FloatModel::Opaque => Some(bits(a)),
        }
    }

    pub fn is_nan(&mut self, a: &Dynamic<'ctx>) -> Bool<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.is_nan(&ieee(a)),
            FloatModel::Real => Bool::from_bool(self.ctx, false),
            // An integer converted is a number.
            FloatModel::Opaque if converted_int(a).is_some() => Bool::from_bool(self.ctx, false),
            FloatModel::Opaque => {
                let (exponent, mantissa) = self.parts(a);
                Bool::and(self.ctx, &[&exponent, &mantissa.not()])
            }
        }
    }

    pub fn is_finite(&mut self, a: &Dynamic<'ctx>) -> Bool<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.is_finite(&ieee(a)),
            FloatModel::Real => Bool::from_bool(self.ctx, true),
            FloatModel::Opaque if converted_int(a).is_some() => Bool::from_bool(self.ctx, true),
            FloatModel::Opaque => self.parts(a).0.not(),
        }
    }

    /// `-0`: equal to `0` in every comparison, but it prints as `-0.000000` and picks the other
    /// side of a `<` between equal values.
    pub fn is_negative_zero(&mut self, a: &Dynamic<'ctx>) -> Bool<'ctx> {
        match self.model {
            FloatModel::Ieee => self.fp.is_negative_zero(&ieee(a)),
            FloatModel::Real => Bool::from_bool(self.ctx, false),
            FloatModel::Opaque if converted_int(a).is_some() => Bool::from_bool(self.ctx, false),
            FloatModel::Opaque => {
                let x = bits(a);
                x._eq(&BV::from_u64(self.ctx, 1, 1).concat(&BV::from_u64(self.ctx, 0, x.get_size() - 1)))
            }
        }
    }

    /// Of a value of the opaque model: its exponent is all ones (NaN or infinity), and its
    /// mantissa is zero.
    fn parts(&self, a: &Dynamic<'ctx>) -> (Bool<'ctx>, Bool<'ctx>) {
        let x = bits(a);
        let mantissa_bits = match Self::kind_of(a) {
            FloatKind::Float => 23,
            FloatKind::Double => 52,
        };
        let top = x.get_size() - 2;
        let exponent = x.extract(top, mantissa_bits);
        let ones = BV::from_i64(self.ctx, -1, top - mantissa_bits + 1);
        let mantissa = x.extract(mantissa_bits - 1, 0);
        (exponent._eq(&ones), mantissa._eq(&BV::from_u64(self.ctx, 0, mantissa_bits)))
    }

    /// The C library function `name` of `args`, a value of kind `k`, as an uninterpreted
    /// function in every model: glibc's function is one interpretation of it, so a formula
    /// unsatisfiable with it holds for glibc's values, and two programs that call it on equal
    /// arguments get equal values. A model may give it any value: a counterexample is run in
    /// the interpreter before it is believed (as for every counterexample).
    pub fn uninterpreted(&mut self, name: &str, args: &[Dynamic<'ctx>], k: FloatKind) -> Dynamic<'ctx> {
        let args: Vec<&Dynamic<'ctx>> = args.iter().collect();
        let prefix = match self.model {
            FloatModel::Ieee => "ieee",
            FloatModel::Real => "real",
            // `float.` is [`Floats::function`]'s own prefix.
            FloatModel::Opaque => "library",
        };
        self.function_named(&format!("{prefix}.{name}"), &args, &self.sort(k))
    }

    /// `floor`, `ceil`, `round` (half away from zero), `trunc` (toward zero), `sqrt`.
    pub fn math(&mut self, f: &str, a: &Dynamic<'ctx>, k: FloatKind) -> Option<Dynamic<'ctx>> {
        match self.model {
            FloatModel::Ieee => self.fp.math(f, &ieee(a), k).map(|r| Dynamic::from_ast(&r)),
            FloatModel::Real => {
                let x = real(a);
                let half = Real::from_real(self.ctx, 1, 2);
                let r = match f {
                    "floor" => floor(&x).to_real(),
                    "ceil" => ceil(&x).to_real(),
                    "trunc" => x.ge(&zero(self.ctx)).ite(&floor(&x), &ceil(&x)).to_real(),
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
            FloatModel::Opaque => match f {
                "floor" | "ceil" | "round" | "trunc" | "sqrt" => {
                    Some(self.function(&format!("{f}.{k:?}"), &[a], &self.sort(k)))
                }
                _ => None,
            },
        }
    }

    /// A value of one kind converted to another (`float` ↔ `double`).
    pub fn convert(&mut self, a: &Dynamic<'ctx>, to: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.convert(&ieee(a), to)),
            FloatModel::Real => a.clone(),
            FloatModel::Opaque if Self::kind_of(a) == to => a.clone(),
            FloatModel::Opaque => match numeral(a, Self::kind_of(a)).filter(|x| !x.is_nan()) {
                Some(x) => self.literal(x, to),
                None => self.function(&format!("to.{to:?}"), &[a], &self.sort(to)),
            },
        }
    }

    /// An integer (`signed` or not) converted to kind `to`.
    pub fn from_int(&mut self, a: &BV<'ctx>, signed: bool, to: FloatKind) -> Dynamic<'ctx> {
        match self.model {
            FloatModel::Ieee => Dynamic::from_ast(&self.fp.int_to_float(a, signed, to)),
            FloatModel::Real => Dynamic::from_ast(&a.to_int(signed).to_real()),
            FloatModel::Opaque => {
                // A constant converts as the machine converts it (Rust's `as` rounds to
                // nearest, ties to even, like the hardware): `x / 2` and `x / 2.0` agree.
                if let Some(v) = exact_constant(a, signed) {
                    return self.literal(v, to);
                }
                let name = format!("from.{}.{to:?}", if signed { "signed" } else { "unsigned" });
                self.function(&name, &[&Dynamic::from_ast(a)], &self.sort(to))
            }
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
            FloatModel::Opaque => {
                if let Some(n) = self.round_trip(a, signed, bits) {
                    return n;
                }
                let name = format!("to.{}{bits}", if signed { "signed" } else { "unsigned" });
                self.function(&name, &[a], &Sort::bitvector(self.ctx, bits)).as_bv().expect("a bit-vector")
            }
        }
    }

    /// In the opaque model, an integer `n` converted to a floating type that holds it exactly
    /// (`double` any of up to 53 bits of magnitude, `float` up to 24) and back to an integer
    /// of `bits` bits: `n` where the 32-bit or 64-bit conversion x86 makes holds it, else what
    /// that conversion gives (`i32::MIN`), cut to the target's width, as the interpreter's
    /// `float_to_int`. `(int) fabs(n % 10)` is then `abs(n % 10)`, with no float term left.
    fn round_trip(&self, a: &Dynamic<'ctx>, signed: bool, bits: u32) -> Option<BV<'ctx>> {
        let (n, from_signed) = converted_int(a)?;
        let magnitude_bits = n.get_size() - u32::from(from_signed);
        let mantissa = if Self::kind_of(a) == FloatKind::Float { 24 } else { 53 };
        if magnitude_bits > mantissa || !(8..=64).contains(&bits) {
            return None;
        }
        let v = super::c_int::resize(&n, from_signed, 64);
        if bits == 64 || (bits == 32 && !signed) {
            return Some(super::c_int::resize(&v, true, bits));
        }
        // `int`, `short` and `char` go through the 32-bit conversion.
        let fits = if from_signed { n.get_size() <= 32 } else { n.get_size() <= 31 };
        let converted = if fits {
            v
        } else {
            let c = |x: i64| BV::from_i64(self.ctx, x, 64);
            let in_range = v.bvsge(&c(i32::MIN as i64)) & v.bvslt(&c(1 << 31));
            in_range.ite(&v, &c(i32::MIN as i64))
        };
        Some(super::c_int::resize(&converted, true, bits))
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

/// The value of a constant integer of at most 64 bits, when a double holds it exactly (so
/// that converting it on to a `float` rounds once, as the machine does).
fn exact_constant(a: &BV<'_>, signed: bool) -> Option<f64> {
    let width = a.get_size();
    let raw = a.simplify().as_u64().filter(|_| width <= 64)?;
    let value = if signed && width < 64 && raw >> (width - 1) & 1 == 1 {
        raw as i64 - (1i64 << width)
    } else if signed {
        raw as i64
    } else {
        i64::try_from(raw).ok()?
    };
    (value.unsigned_abs() <= 1u64 << 53).then_some(value as f64)
}

/// The number a constant of the opaque model holds, read as kind `k`.
fn numeral(a: &Dynamic<'_>, k: FloatKind) -> Option<f64> {
    let raw = a.as_bv()?.simplify().as_u64()?;
    match (k, a.as_bv()?.get_size()) {
        (FloatKind::Float, 32) => Some(f32::from_bits(raw as u32) as f64),
        (FloatKind::Double, 64) => Some(f64::from_bits(raw)),
        _ => None,
    }
}

/// The integer (and its signedness) a value of the opaque model was converted from.
fn converted_int<'ctx>(a: &Dynamic<'ctx>) -> Option<(BV<'ctx>, bool)> {
    let name = a.safe_decl().ok()?.name();
    let signed = match name.strip_prefix("float.from.")?.split('.').next()? {
        "signed" => true,
        "unsigned" => false,
        _ => return None,
    };
    Some((a.nth_child(0)?.as_bv()?, signed))
}

/// One of `+ - * /` on IEEE numbers.
fn ieee_op<
    T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Div<Output = T>,
>(
    op: &str,
    x: T,
    y: T,
) -> T {
    match op {
        "add" => x + y,
        "sub" => x - y,
        "mul" => x * y,
        _ => x / y,
    }
}

fn bits<'ctx>(a: &Dynamic<'ctx>) -> BV<'ctx> {
    a.as_bv().expect("IEEE bits in the opaque model")
}

/// The bits of a value of kind `k` in the opaque model.
fn width(k: FloatKind) -> u32 {
    match k {
        FloatKind::Float => 32,
        FloatKind::Double => 64,
    }
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

    /// The opaque model proves what holds for every interpretation of the rounding operations:
    /// the same operations on the same values, and the exact bit operations; never a law of
    /// arithmetic that rounding breaks, nor one it keeps (IEEE would prove `a + b == b + a`
    /// for numbers; the opaque model proves less, never more).
    fn same<'ctx>(x: &Dynamic<'ctx>, y: &Dynamic<'ctx>) -> Bool<'ctx> {
        x._eq(y)
    }

    #[test]
    fn the_opaque_model_proves_only_what_ieee_does() {
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Opaque);
        let d = FloatKind::Double;
        let (a, b) = (f.constant("a", d), f.constant("b", d));
        let sum = f.arith("add", &a, &b, d);
        assert!(holds(&ctx, &same(&sum, &f.arith("add", &a, &b, d))));
        assert!(!holds(&ctx, &same(&sum, &f.arith("add", &b, &a, d))));
        let (tenth, fifth) = (f.literal(0.1, d), f.literal(0.2, d));
        let tenths = f.arith("add", &tenth, &fifth, d);
        assert!(!holds(&ctx, &f.compare(Cmp::Eq, &tenths, &f.literal(0.3, d))));
        // Negation and `fabs` are the sign bit; NaN and infinity are read off the bits.
        let minus = f.neg(&a, d);
        let back = f.neg(&minus, d);
        assert!(holds(&ctx, &same(&back, &a)));
        let minus = f.literal(-2.5, d);
        let abs = f.abs(&minus, d);
        assert!(holds(&ctx, &same(&abs, &f.literal(2.5, d))));
        assert!(holds(&ctx, &f.is_nan(&f.literal(f64::NAN, d))));
        assert!(holds(&ctx, &f.is_nan(&f.literal(1.0, d)).not()));
        assert!(holds(&ctx, &f.is_finite(&f.literal(f64::INFINITY, d)).not()));
        assert!(holds(&ctx, &f.is_finite(&f.literal(-0.0, FloatKind::Float))));
        // An integer converted is the same value for the same integer only.
        let (i, j) = (BV::new_const(&ctx, "i", 32), BV::new_const(&ctx, "j", 32));
        let (x, y) = (f.from_int(&i, true, d), f.from_int(&j, true, d));
        assert!(holds(&ctx, &i._eq(&j).implies(&same(&x, &y))));
        assert!(!holds(&ctx, &same(&x, &y)));
        // A constant converts exactly: `x / 2` is `x / 2.0`, `-1` is `-1.0`.
        for (v, bits) in [(2i64, 32u32), (-1, 32), (-7, 8), (1 << 40, 64)] {
            let c = f.from_int(&BV::from_i64(&ctx, v, bits), true, d);
            assert!(holds(&ctx, &same(&c, &f.literal(v as f64, d))), "{v}");
        }
        let big = f.from_int(&BV::from_u64(&ctx, u32::MAX as u64, 32), false, FloatKind::Float);
        assert!(holds(&ctx, &same(&big, &f.literal(4294967296.0, FloatKind::Float))));
        // Constants compute as the machine computes: a `float` counter counts 0, 1, 2, ...
        let s = FloatKind::Float;
        let (zero, one) = (f.literal(0.0, s), f.literal(1.0, s));
        let mut counter = zero;
        for _ in 0..3 {
            counter = f.arith("add", &counter, &one, s);
        }
        assert!(holds(&ctx, &same(&counter, &f.literal(3.0, s))));
        let (tenth, fifth) = (f.literal(0.1, s), f.literal(0.2, s));
        let sum = f.arith("add", &tenth, &fifth, s);
        assert!(holds(&ctx, &same(&sum, &f.literal((0.1f32 + 0.2f32) as f64, s))));
        // ... and compares with a converted `int` as the integers do: `i < n` is `3 < n`.
        let n = BV::new_const(&ctx, "n", 32);
        let bound = f.from_int(&n, true, s);
        let below = f.c_compare(BinOp::Lt, &counter, &bound);
        assert!(holds(&ctx, &below._eq(&n.bvsgt(&BV::from_i64(&ctx, 3, 32)))));
        // A fraction is not a whole number: no integer comparison, and nothing is proved.
        let half = f.literal(2.5, s);
        let below_half = f.c_compare(BinOp::Lt, &half, &bound);
        assert!(!holds(&ctx, &below_half._eq(&n.bvsgt(&BV::from_i64(&ctx, 2, 32)))));
    }

    /// An integer converted to a floating type that holds it, through `fabs` or not, and back
    /// is what the interpreter computes (x86's conversion), with no float term left; one the
    /// type may round stays opaque.
    #[test]
    fn an_integer_through_an_exact_float_is_an_integer_again() {
        use crate::ir::IntType;
        use crate::spec::interp::float_to_int;
        let ctx = Context::new(&z3::Config::new());
        let mut f = Floats::new(&ctx, FloatModel::Opaque);
        let targets = [IntType::INT, IntType::SHORT, IntType::CHAR, IntType::UINT, IntType::LONG];
        let cases = [(FloatKind::Double, 32, IntType::INT), (FloatKind::Float, 16, IntType::SHORT)];
        for (kind, width, source) in cases {
            let n = BV::new_const(&ctx, format!("n{width}"), width);
            let x = f.from_int(&n, true, kind);
            let magnitude = f.abs(&x, kind);
            let limit = if width == 32 { i32::MAX as i64 } else { i16::MAX as i64 };
            for v in [0, 7, -7, 12345, -limit - 1, limit] {
                let is_v = n._eq(&BV::from_i64(&ctx, v, width));
                for t in targets {
                    for (through, value) in [(&x, v), (&magnitude, v.abs())] {
                        let back = f.to_int(through, t.signed, t.bits());
                        assert!(back.safe_decl().map_or(true, |d| !d.name().starts_with("float.")), "{back}");
                        let want = BV::from_i64(&ctx, float_to_int(value as f64, t), t.bits());
                        assert!(holds(&ctx, &is_v.implies(&back._eq(&want))), "{source:?} {v} to {t:?}: {back}");
                    }
                }
            }
        }
        // A 32-bit integer in a `float` may round: its way back is not the integer.
        let n = BV::new_const(&ctx, "wide", 32);
        let rounded = f.from_int(&n, true, FloatKind::Float);
        assert!(!holds(&ctx, &f.to_int(&rounded, true, 32)._eq(&n)));
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
