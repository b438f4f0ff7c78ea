//! IEEE floating point through SMT-LIB templates (the `Ieee` model of [`super::Floats`]).
//!
//! The z3 0.12 crate exposes the `Float` sorts, but no round-to-nearest-even mode and no
//! int↔float conversions. Each such operation is parsed once as an SMT-LIB term over
//! placeholder constants (`__mend_fp_a0`, ...) and instantiated with [`Ast::substitute`]; the
//! result is an ordinary term of the context (no side constraints).

use std::collections::HashMap;

use z3::ast::{Ast, BV, Bool, Dynamic, Float};
use z3::{Context, Solver, Sort};

use crate::ir::FloatKind;

pub(super) struct FpOps<'ctx> {
    ctx: &'ctx Context,
    cache: HashMap<String, (Dynamic<'ctx>, Vec<Dynamic<'ctx>>)>,
}

pub(super) fn sort<'ctx>(ctx: &'ctx Context, k: FloatKind) -> Sort<'ctx> {
    match k {
        FloatKind::Float => Sort::float32(ctx),
        FloatKind::Double => Sort::double(ctx),
    }
}

pub(super) fn sbits(k: FloatKind) -> (u32, u32) {
    match k {
        FloatKind::Float => (8, 24),
        FloatKind::Double => (11, 53),
    }
}

impl<'ctx> FpOps<'ctx> {
    pub fn new(ctx: &'ctx Context) -> Self {
        FpOps { ctx, cache: HashMap::new() }
    }

    /// Instantiates `template` (an SMT-LIB term over `a0`, `a1`, ... of the given sorts, with
    /// result sort `result`) with `args`.
    fn apply(&mut self, template: &str, args: &[&Dynamic<'ctx>], result: &Sort<'ctx>) -> Dynamic<'ctx> {
        let sorts: Vec<String> = args.iter().map(|a| a.get_sort().to_string()).collect();
        let key = format!("{template}|{}|{result}", sorts.join(","));
        if !self.cache.contains_key(&key) {
            let mut src = String::new();
            let mut holders = Vec::new();
            let mut term = template.to_string();
            for (i, (a, s)) in args.iter().zip(&sorts).enumerate() {
                let name = format!("__mend_fp_a{i}");
                src.push_str(&format!("(declare-const {name} {s})"));
                term = term.replace(&format!("a{i}"), &name);
                let sort = a.get_sort();
                holders.push(z3::FuncDecl::new(self.ctx, name.as_str(), &[], &sort).apply(&[]));
            }
            src.push_str(&format!("(declare-const __mend_fp_r {result})(assert (= __mend_fp_r {term}))"));
            let s = Solver::new(self.ctx);
            s.from_string(src);
            let eq = s.get_assertions().pop().expect("float template parses");
            let t = eq.nth_child(1).expect("template equality has two sides");
            // SAFETY: `t` is an AST of `self.ctx` (the scratch solver belongs to it); the z3
            // 0.12 crate only ties its lifetime to the solver borrow. `wrap` takes a reference.
            let t: Dynamic<'ctx> = unsafe { Dynamic::wrap(self.ctx, t.get_z3_ast()) };
            self.cache.insert(key.clone(), (t, holders));
        }
        let (t, holders) = &self.cache[&key];
        let pairs: Vec<(&Dynamic<'ctx>, &Dynamic<'ctx>)> = holders.iter().zip(args.iter().copied()).collect();
        t.substitute(&pairs)
    }

    fn float(&mut self, template: &str, args: &[&Float<'ctx>], k: FloatKind) -> Float<'ctx> {
        let d: Vec<Dynamic<'ctx>> = args.iter().map(|a| Dynamic::from_ast(*a)).collect();
        let r: Vec<&Dynamic<'ctx>> = d.iter().collect();
        self.apply(template, &r, &sort(self.ctx, k)).as_float().expect("float result")
    }

    fn pred(&mut self, template: &str, args: &[&Float<'ctx>]) -> Bool<'ctx> {
        let d: Vec<Dynamic<'ctx>> = args.iter().map(|a| Dynamic::from_ast(*a)).collect();
        let r: Vec<&Dynamic<'ctx>> = d.iter().collect();
        self.apply(template, &r, &Sort::bool(self.ctx)).as_bool().expect("bool result")
    }

    /// `+ - * /` rounded to nearest, ties to even (C's default rounding).
    pub fn arith(&mut self, op: &str, a: &Float<'ctx>, b: &Float<'ctx>, k: FloatKind) -> Float<'ctx> {
        self.float(&format!("(fp.{op} RNE a0 a1)"), &[a, b], k)
    }
    pub fn neg(&mut self, a: &Float<'ctx>, k: FloatKind) -> Float<'ctx> {
        self.float("(fp.neg a0)", &[a], k)
    }
    pub fn abs(&mut self, a: &Float<'ctx>, k: FloatKind) -> Float<'ctx> {
        self.float("(fp.abs a0)", &[a], k)
    }
    /// IEEE comparison (`fp.eq`: NaN is unequal to itself, -0 == +0).
    pub fn compare(&mut self, op: &str, a: &Float<'ctx>, b: &Float<'ctx>) -> Bool<'ctx> {
        self.pred(&format!("({op} a0 a1)"), &[a, b])
    }
    pub fn is_nan(&mut self, a: &Float<'ctx>) -> Bool<'ctx> {
        self.pred("(fp.isNaN a0)", &[a])
    }
    pub fn is_finite(&mut self, a: &Float<'ctx>) -> Bool<'ctx> {
        self.pred("(not (or (fp.isNaN a0) (fp.isInfinite a0)))", &[a])
    }
    pub fn is_negative_zero(&mut self, a: &Float<'ctx>) -> Bool<'ctx> {
        self.pred("(and (fp.isZero a0) (fp.isNegative a0))", &[a])
    }
    /// `floor`, `ceil`, `round` (half away from zero), `sqrt` (correctly rounded).
    pub fn math(&mut self, f: &str, a: &Float<'ctx>, k: FloatKind) -> Option<Float<'ctx>> {
        let t = match f {
            "floor" => "(fp.roundToIntegral RTN a0)",
            "ceil" => "(fp.roundToIntegral RTP a0)",
            "round" => "(fp.roundToIntegral RNA a0)",
            "trunc" => "(fp.roundToIntegral RTZ a0)",
            "sqrt" => "(fp.sqrt RNE a0)",
            _ => return None,
        };
        Some(self.float(t, &[a], k))
    }
    pub fn convert(&mut self, a: &Float<'ctx>, to: FloatKind) -> Float<'ctx> {
        let (e, s) = sbits(to);
        self.float(&format!("((_ to_fp {e} {s}) RNE a0)"), &[a], to)
    }
    /// Integer (bit-vector, `signed` or not) to float, rounded to nearest.
    pub fn int_to_float(&mut self, a: &BV<'ctx>, signed: bool, to: FloatKind) -> Float<'ctx> {
        let (e, s) = sbits(to);
        let f = if signed { "to_fp" } else { "to_fp_unsigned" };
        let d = Dynamic::from_ast(a);
        self.apply(&format!("((_ {f} {e} {s}) RNE a0)"), &[&d], &sort(self.ctx, to)).as_float().expect("float")
    }
    /// Float to integer, truncating toward zero (C conversion; out-of-range values are
    /// undefined in C and whatever Z3 chooses here).
    pub fn float_to_int(&mut self, a: &Float<'ctx>, signed: bool, bits: u32) -> BV<'ctx> {
        let f = if signed { "fp.to_sbv" } else { "fp.to_ubv" };
        let d = Dynamic::from_ast(a);
        self.apply(&format!("((_ {f} {bits}) RTZ a0)"), &[&d], &Sort::bitvector(self.ctx, bits)).as_bv().expect("bv")
    }
    /// The IEEE-754 bits of `a` (for reading model values).
    pub fn ieee_bits(&mut self, a: &Float<'ctx>, k: FloatKind) -> BV<'ctx> {
        let (e, s) = sbits(k);
        let d = Dynamic::from_ast(a);
        self.apply("(fp.to_ieee_bv a0)", &[&d], &Sort::bitvector(self.ctx, e + s)).as_bv().expect("bv")
    }
    pub fn literal(&self, v: f64, k: FloatKind) -> Float<'ctx> {
        match k {
            FloatKind::Float => Float::from_f32(self.ctx, v as f32),
            FloatKind::Double => Float::from_f64(self.ctx, v),
        }
    }
}

/// An `f64` from IEEE bits of kind `k`.
pub fn from_bits(bits: u64, k: FloatKind) -> f64 {
    match k {
        FloatKind::Float => f32::from_bits(bits as u32) as f64,
        FloatKind::Double => f64::from_bits(bits),
    }
}
