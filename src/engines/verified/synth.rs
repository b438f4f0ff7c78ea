//! The synthesis side of CEGIS (Verifix Algorithm 1's partial MaxSMT): hard constraints (each
//! counterexample's concrete instance of the hole formula), and the objective "fewest changed
//! holes, then fewest tie-break penalties", lexicographically. Solved on one incremental Z3
//! solver with cardinality bounds under assumptions rather than with Z3's Optimize: Optimize
//! re-solves from scratch on every call, and with each counterexample its time grew from tens
//! of milliseconds to seconds; the incremental solver keeps what it learned, and the optimum's
//! lower bound only rises as counterexamples are added, so the search resumes where it was.
//! Among equal optima the answer is the least selector vector in hole order (lexicographic):
//! the order is total, so CEGIS ends at the least correct candidate whatever counterexamples
//! the verifier happened to return, and equal-cost answers do not change from run to run.

use z3::ast::{Ast, BV, Bool};
use z3::{Context, Model, Solver};

use crate::smt::Budget;
use crate::smt::solver::{Verdict, check_with_budget};

use super::Failure;

pub struct Synth<'ctx> {
    ctx: &'ctx Context,
    solver: Solver<'ctx>,
    /// One per free hole: it takes another alternative than its original.
    changed: Vec<Bool<'ctx>>,
    /// Tie-breaks: each one true is a small penalty (a constant or a negation chosen, ...).
    penalties: Vec<Bool<'ctx>>,
    /// The free holes' selectors in hole order: the last, total tie-break.
    selectors: Vec<BV<'ctx>>,
    /// No solution changes fewer holes (counterexamples only ever remove solutions).
    at_least: usize,
    bounds: usize,
    pub checks: usize,
}

impl<'ctx> Synth<'ctx> {
    pub fn new(ctx: &'ctx Context) -> Self {
        Synth {
            ctx,
            solver: Solver::new(ctx),
            changed: Vec::new(),
            penalties: Vec::new(),
            selectors: Vec::new(),
            at_least: 0,
            bounds: 0,
            checks: 0,
        }
    }

    pub fn require(&mut self, c: &Bool<'ctx>) {
        self.solver.assert(c);
    }
    pub fn changed(&mut self, c: Bool<'ctx>) {
        self.changed.push(c);
    }
    pub fn penalty(&mut self, p: Bool<'ctx>) {
        self.penalties.push(p);
    }
    /// A free hole's selector (call in hole order).
    pub fn selector(&mut self, sel: BV<'ctx>) {
        self.selectors.push(sel);
    }

    /// An assumption literal that bounds how many of `lits` hold by `k`.
    fn at_most(&mut self, lits: &[Bool<'ctx>], k: usize) -> Bool<'ctx> {
        self.bounds += 1;
        let a = Bool::new_const(self.ctx, format!("synth.atmost!{}", self.bounds));
        let weighted: Vec<(&Bool<'ctx>, i32)> = lits.iter().map(|l| (l, 1)).collect();
        self.solver.assert(&a.implies(&Bool::pb_le(self.ctx, &weighted, k as i32)));
        a
    }

    fn check(&mut self, assumptions: &[Bool<'ctx>], budget: &Budget) -> Result<bool, Failure> {
        self.checks += 1;
        match check_with_budget(&self.solver, assumptions, budget) {
            Verdict::Sat => Ok(true),
            Verdict::Unsat => Ok(false),
            Verdict::Unknown(r) => {
                Err(if budget.is_exhausted() { Failure::Timeout } else { Failure::SolverUnknown(format!("{r:?}")) })
            }
        }
    }

    /// A model of the optimum, or `None` when no choice satisfies the constraints.
    pub fn solve(&mut self, budget: &Budget) -> Result<Option<Model<'ctx>>, Failure> {
        let changed = self.changed.clone();
        let mut size = None;
        for k in self.at_least..=changed.len() {
            let bound = self.at_most(&changed, k);
            if self.check(std::slice::from_ref(&bound), budget)? {
                size = Some(bound);
                self.at_least = k;
                break;
            }
        }
        let Some(size) = size else { return Ok(None) };
        let penalties = self.penalties.clone();
        for t in 0..=penalties.len() {
            let tie = self.at_most(&penalties, t);
            if self.check(&[size.clone(), tie.clone()], budget)? {
                return self.least(vec![size, tie], budget).map(Some);
            }
        }
        unreachable!("the size bound alone was satisfiable")
    }

    /// From a model of the optimum, the least selector vector with the same bounds: each
    /// selector in turn lowered while satisfiable, then held there. A selector the model
    /// already puts at 0 (most holes keep their original) costs no check.
    fn least(&mut self, mut fixed: Vec<Bool<'ctx>>, budget: &Budget) -> Result<Model<'ctx>, Failure> {
        let mut model = self.solver.get_model().ok_or_else(|| Failure::SolverUnknown("no model".into()))?;
        for sel in self.selectors.clone() {
            let value = |m: &Model<'ctx>| m.eval(&sel, true).and_then(|v| v.as_u64()).unwrap_or(0);
            let mut v = value(&model);
            while v > 0 {
                let lower = sel.bvult(&BV::from_u64(self.ctx, v, sel.get_size()));
                let mut assumptions = fixed.clone();
                assumptions.push(lower);
                if !self.check(&assumptions, budget)? {
                    break;
                }
                model = self.solver.get_model().ok_or_else(|| Failure::SolverUnknown("no model".into()))?;
                v = value(&model);
            }
            fixed.push(sel._eq(&BV::from_u64(self.ctx, v, sel.get_size())));
        }
        Ok(model)
    }
}
