//! Repair holes: expression sites, the alternatives a hole's selector chooses among, and the
//! states of alternatives with side effects.

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    pub(super) fn note_site(&mut self, e: &'p Expr, kind: SiteKind, stmt: Option<&'p Stmt>) {
        if self.seen_sites.insert(e.id) {
            self.region.sites.push(Site { expr: e, kind, stmt });
        }
    }

    /// A condition site: its truth value (a hole's choice when it is one).
    pub(super) fn cond_site(&mut self, e: &'p Expr, st: &mut State<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let g = st.guard.clone();
        self.cond_site_in(e, SiteKind::Cond, st, &g)
    }

    /// A condition or atom site evaluated under guard `g` (for its runtime errors).
    pub(super) fn cond_site_in(
        &mut self,
        e: &'p Expr,
        kind: SiteKind,
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<(Bool<'ctx>, Deps)> {
        self.note_site(e, kind, None);
        let g = g.clone();
        let hole = self.holes.and_then(|h| h.sites.get(&e.id));
        let Some((sel, alts)) = hole else {
            let v = self.eval_cond(e, st, &g)?;
            return Ok(v);
        };
        // A condition with side effects (a read, an assignment): each alternative replaces
        // them too, so each runs on its own copy of the state (see `Effects`).
        let mut effects = Effects::new(has_effects(e), st);
        let mut out: Option<(Bool<'ctx>, Deps)> = None;
        for (k, alt) in alts.iter().enumerate().rev() {
            // An alternative's runtime errors count only when it is chosen.
            let chosen = if alts.len() == 1 {
                Bool::from_bool(self.ctx, true)
            } else {
                sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS))
            };
            let g = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            let (b, d) = match alt {
                Alt::Original => self.eval_cond(e, at, &g)?,
                Alt::Expr(x) if effects.on() => {
                    let v = self.eval_alt(x, at, &g)?;
                    (self.truthy(&v.term), v.deps)
                }
                Alt::Expr(x) => self.eval_cond_pure(x, at, &g)?,
                Alt::Bool(b) => (Bool::from_bool(self.ctx, *b), Deps::new()),
                Alt::Keep => continue,
            };
            effects.done(&chosen, scratch);
            out = Some(match out {
                None => (b, d),
                Some((rest, mut rd)) => {
                    rd.extend(d);
                    (chosen.ite(&b, &rest), rd)
                }
            });
        }
        effects.finish(st);
        Ok(out.expect("a hole has its original"))
    }

    /// The value of an update/print/return site, converted to the site's type.
    pub(super) fn site_value(
        &mut self,
        e: &'p Expr,
        kind: SiteKind,
        stmt: Option<&'p Stmt>,
        st: &mut State<'ctx>,
    ) -> R<Val<'ctx>> {
        self.note_site(e, kind, stmt);
        let g = st.guard.clone();
        let hole = self.holes.and_then(|h| h.sites.get(&e.id));
        let site_ty = match kind {
            SiteKind::Update(v) => self.setup.program.var(v).ty.clone(),
            _ => e.ty.clone(),
        };
        let Some((sel, alts)) = hole else {
            return self.eval_site(e, kind, st, &g);
        };
        // `i++` and `x op= e` update the site's own variable, which the caller sets from the
        // value returned; any other side effect (`c = getchar()` reads) belongs to the
        // alternative that is chosen.
        let own_effects = match (&kind, &e.kind) {
            (SiteKind::Update(_), ExprKind::IncDec(..)) => false,
            (SiteKind::Update(_), ExprKind::CompoundAssign { rhs, .. }) => has_effects(rhs),
            _ => has_effects(e),
        };
        let mut effects = Effects::new(own_effects, st);
        let mut out: Option<Val<'ctx>> = None;
        for (k, alt) in alts.iter().enumerate().rev() {
            let chosen = if alts.len() == 1 {
                Bool::from_bool(self.ctx, true)
            } else {
                sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS))
            };
            let g = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            let v = match alt {
                Alt::Original => self.eval_site(e, kind, at, &g)?,
                Alt::Expr(x) => {
                    let v = if effects.on() { self.eval_alt(x, at, &g)? } else { self.eval_pure(x, at, &g)? };
                    self.convert(v, &site_ty, x.span)?
                }
                Alt::Keep => match kind {
                    SiteKind::Update(v) => at.vars[&v].clone(),
                    _ => continue,
                },
                Alt::Bool(_) => continue,
            };
            effects.done(&chosen, scratch);
            out = Some(match out {
                None => v,
                Some(rest) => self.ite_val(&chosen, &Deps::new(), &v, &rest),
            });
        }
        effects.finish(st);
        Ok(out.expect("a hole has its original"))
    }

    /// A site as written: for `i++` and `x op= e`, the variable's new value (not the value of
    /// the expression, which for `i++` is the old one).
    pub(super) fn eval_site(
        &mut self,
        e: &'p Expr,
        kind: SiteKind,
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<Val<'ctx>> {
        let v = self.eval(e, st, g)?;
        match (kind, &e.kind) {
            (SiteKind::Update(var), ExprKind::IncDec(..) | ExprKind::CompoundAssign { .. }) => {
                Ok(st.vars[&var].clone())
            }
            _ => Ok(v),
        }
    }

    pub(super) fn eval_cond(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let v = self.eval(e, st, g)?;
        Ok((self.truthy(&v.term), v.deps))
    }

    /// Alternatives are evaluated without side effects on the state.
    pub(super) fn eval_cond_pure(&mut self, e: &'p Expr, st: &State<'ctx>, g: &Bool<'ctx>) -> R<(Bool<'ctx>, Deps)> {
        let v = self.eval_pure(e, st, g)?;
        Ok((self.truthy(&v.term), v.deps))
    }

    pub(super) fn eval_pure(&mut self, e: &'p Expr, st: &State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let mut scratch = st.clone();
        self.eval_alt(e, &mut scratch, g)
    }

    /// An alternative evaluated in place of a site, its side effects on `st`.
    pub(super) fn eval_alt(&mut self, e: &'p Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        // An alternative is not a site of the program: the sites and usage it notes are dropped.
        let sites = self.region.sites.len();
        let usage = self.region.usage.len();
        let v = self.eval(e, st, g);
        self.region.sites.truncate(sites);
        self.region.usage.truncate(usage);
        v
    }
}

/// The side effects of a hole's alternatives. Without effects every alternative is evaluated
/// on the one state (the original's effects, if any, are on its own site variable); with
/// them, each alternative runs on a copy of the state before the site, and the copies are
/// merged by the selector, so a read the original does is gone where `true` replaces it.
pub(super) struct Effects<'ctx> {
    base: Option<State<'ctx>>,
    states: Vec<(Bool<'ctx>, State<'ctx>)>,
}

impl<'ctx> Effects<'ctx> {
    pub(super) fn new(on: bool, st: &State<'ctx>) -> Self {
        Effects { base: on.then(|| st.clone()), states: Vec::new() }
    }
    pub(super) fn on(&self) -> bool {
        self.base.is_some()
    }
    /// The state an alternative runs on: a copy (`None`: the shared one).
    pub(super) fn start(&self) -> Option<State<'ctx>> {
        self.base.clone()
    }
    pub(super) fn done(&mut self, chosen: &Bool<'ctx>, st: Option<State<'ctx>>) {
        if let Some(s) = st {
            self.states.push((chosen.clone(), s));
        }
    }
    /// The merged state (a hole's selector takes one of its alternatives, so the order in
    /// which they ran does not matter).
    pub(super) fn finish(self, st: &mut State<'ctx>) {
        if let Some(m) = merge_alternatives(self.states) {
            *st = m;
        }
    }
}

/// The states of a hole's alternatives (each with the condition that it is chosen) merged
/// into one: the last one's where no earlier one is chosen.
pub(super) fn merge_alternatives<'ctx>(states: Vec<(Bool<'ctx>, State<'ctx>)>) -> Option<State<'ctx>> {
    let mut it = states.into_iter().rev();
    let (_, mut acc) = it.next()?;
    for (c, s) in it {
        acc = merge_states(&c, Some(s), Some(acc)).expect("both present");
    }
    Some(acc)
}
