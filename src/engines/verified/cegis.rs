//! CEGIS per node: verify the candidate, keep the counterexample, and find the next candidate
//! changing the fewest holes with partial MaxSMT ([`super::synth`]); answers cached per node.

use super::*;

/// How much the check of a print over the student's own values may cost
/// ([`Job::own_values_printed`]): a nicety, never worth much of the budget, and bounded by
/// Z3's resource count so that the patch shown does not depend on the machine's load.
const OWN_VALUES_EFFORT: Effort = Effort(20_000_000);
/// How long that check may run whatever its effort (a runaway on a loaded machine).
const OWN_VALUES_RUNAWAY: Duration = Duration::from_secs(5);

impl<'j, 'p: 'j, 'ctx: 'j> Job<'j, 'p, 'ctx> {
    /// The constraint a counterexample puts on the holes: from its concrete pre-states and
    /// inputs, the node's check holds.
    pub(super) fn instance(
        &self,
        node: Node,
        m: &Model<'ctx>,
        pre_r: State<'ctx>,
        pre_s: State<'ctx>,
        holes: &Holes<'ctx>,
    ) -> Result<Bool<'ctx>, Failure> {
        let world = World::new(self.ctx);
        let world = world.in_model(m);
        let (hyp, bad) = self.node_formula(node, pre_r, pre_s, &world, Some(holes))?;
        // Concrete inputs: most of the formula folds away before the synthesiser sees it.
        let cex = hyp.implies(&bad.not()).simplify();
        Ok(crate::smt::fold::fold_constant_ites(&Dynamic::from_ast(&cex)).as_bool().expect("a formula").simplify())
    }

    /// Algorithm 1 for one node: CEGIS with partial MaxSMT.
    pub(super) fn repair_node(&mut self, node: Node) -> Result<HashMap<ExprId, usize>, Failure> {
        let holes = self.holes(node);
        if self.budget.is_exhausted() {
            return Err(Failure::Timeout);
        }
        // No key (a formula too large to fingerprint, or out of time): solved without the cache.
        let key = self.problem_key(node, &holes)?;
        if let Some(known) = key.and_then(node_cache::get) {
            tracing::debug!("{node:?}: answered from the node cache");
            return match known {
                Some(indices) => Ok(holes.order.iter().copied().zip(indices).collect()),
                None => Err(Failure::NoRepair(String::new())),
            };
        }
        let result = self.solve_node(node, &holes);
        let Some(key) = key else { return result };
        match &result {
            Ok(choice) => {
                node_cache::put(key, Some(holes.order.iter().map(|k| choice.get(k).copied().unwrap_or(0)).collect()))
            }
            Err(Failure::NoRepair(_)) => node_cache::put(key, None),
            Err(_) => {}
        }
        result
    }

    /// The node's whole repair problem as a key: its check over every alternative of every hole
    /// (each alternative's meaning is in the formula under its selector value), and per hole
    /// whether it is free and how its alternatives are ranked. Equal keys, equal answers.
    pub(super) fn problem_key(&self, node: Node, holes: &Holes<'ctx>) -> Result<Option<u128>, Failure> {
        let mut pre_r = Exec::fresh_state(self.ctx, &self.r_setup, "r.").map_err(Failure::from_region)?;
        let mut pre_s = Exec::fresh_state(self.ctx, &self.s_setup, "s.").map_err(Failure::from_region)?;
        let world = World::new(self.ctx);
        let snapshot = self.freeze(node, &world, &mut pre_r, &mut pre_s)?;
        let phi = self.phi(node, &pre_r, &pre_s);
        let phi = match snapshot {
            Some(s) => Bool::and(self.ctx, &[&phi, &s]),
            None => phi,
        };
        let (hyp, bad) = self.node_formula(node, pre_r, pre_s, &world, Some(holes))?;
        let formulas = [phi, hyp, bad].map(|f| Dynamic::from_ast(&f));
        let Some(formula) = crate::smt::fingerprint::of(&formulas.iter().collect::<Vec<_>>(), self.budget) else {
            return Ok(None);
        };
        let mut text = format!("{node:?}\n{formula:032x}\n");
        for (site, (sel, alts)) in holes.iter() {
            let free = !self.chosen.contains_key(site);
            let guard = self.is_synthetic_guard(*site);
            let described: Vec<String> = alts
                .iter()
                .map(|a| match a {
                    Alt::Expr(e) => expr_to_c(self.s.program, e),
                    other => format!("{other:?}"),
                })
                .collect();
            text.push_str(&format!("{sel} {free} {guard} {}\n", described.join(" | ")));
        }
        Ok(Some(crate::smt::fingerprint::digest(&text)))
    }

    pub(super) fn solve_node(&mut self, node: Node, holes: &Holes<'ctx>) -> Result<HashMap<ExprId, usize>, Failure> {
        let mut choice: HashMap<ExprId, usize> = HashMap::new();
        // One synthesiser for the whole loop: each counterexample adds its constraint once.
        let mut synth = synth::Synth::new(self.ctx);
        for (site, (sel, alts)) in holes.iter() {
            synth.require(&sel.bvult(&sel_const(self.ctx, alts.len() as u64)));
            for h in holes.held_back.iter().filter(|h| h.site == *site) {
                synth.require(&sel._eq(&sel_const(self.ctx, h.at as u64)).not());
            }
            if alts.len() > 1 && !self.chosen.contains_key(site) {
                // Fewest changed expressions first; among those, an added statement
                // unconditional rather than guarded.
                synth.changed(sel._eq(&sel_const(self.ctx, 0)).not());
                synth.selector(sel.clone());
                for (k, alt) in alts.iter().enumerate() {
                    let is_k = sel._eq(&sel_const(self.ctx, k as u64));
                    match alt {
                        // An added statement: unconditional rather than guarded.
                        Alt::Bool(true) if self.is_synthetic_guard(*site) => synth.penalty(is_k.not()),
                        // Elsewhere a constant or a negated condition is the last resort
                        // among equals.
                        Alt::Bool(_) if !self.is_synthetic_guard(*site) => synth.penalty(is_k),
                        Alt::Expr(e) if matches!(e.kind, ExprKind::Unary(crate::ir::UnOp::Not, _)) => {
                            synth.penalty(is_k)
                        }
                        // Another variable in a comparison: after the reference's expressions
                        // and the operator changes.
                        Alt::Expr(e)
                            if self.sites.get(site).is_some_and(|(x, _)| is_operand_substitution(x.expr, e)) =>
                        {
                            synth.penalty(is_k)
                        }
                        _ => {}
                    }
                }
            }
        }
        // Counterexamples another alignment met here constrain this one too when their
        // pre-states satisfy this alignment's predicate (then they are states this node's
        // check quantifies over).
        let mut seeded = false;
        for (m, pre_r, pre_s) in self.cexs.get(&node).cloned().unwrap_or_default() {
            let (cr, cs) = (concrete(&pre_r, &m), concrete(&pre_s, &m));
            if self.phi(node, &cr, &cs).simplify().as_bool() == Some(true) {
                synth.require(&self.instance(node, &m, cr, cs, holes)?);
                seeded = true;
            }
        }
        let mut fresh_cex = !seeded;
        loop {
            if self.budget.is_exhausted() {
                return Err(Failure::Timeout);
            }
            if fresh_cex {
                let Some((m, pre_r, pre_s)) = self.verify(node, holes, &choice, self.query_deadline(), None)? else {
                    return Ok(self.own_values_printed(node, holes, choice));
                };
                tracing::debug!("counterexample at {node:?}: {m}");
                let instance = self.instance(node, &m, concrete(&pre_r, &m), concrete(&pre_s, &m), holes)?;
                synth.require(&instance);
                self.cexs.entry(node).or_default().push((std::rc::Rc::new(m), pre_r, pre_s));
            }
            fresh_cex = true;
            let t = Instant::now();
            let found = synth.solve(&Budget { deadline: self.query_deadline(), cancel: self.budget.cancel.clone() });
            self.checks += std::mem::take(&mut synth.checks);
            tracing::debug!(
                "synthesise {node:?}: {} in {:.1} ms",
                if matches!(found, Ok(Some(_))) { "found" } else { "none" },
                t.elapsed().as_secs_f64() * 1000.0
            );
            match found? {
                Some(m) => {
                    // In the holes' order: evaluating creates terms, and the order terms are
                    // created in steers Z3's later searches (a hash map's order would make
                    // equal-cost answers differ from run to run).
                    let next: HashMap<ExprId, usize> = holes
                        .iter()
                        .map(|(site, (sel, _))| {
                            (*site, m.eval(sel, true).and_then(|v| v.as_u64()).unwrap_or(0) as usize)
                        })
                        .collect();
                    if next == choice {
                        return Err(Failure::SolverUnknown("the synthesiser repeated a refuted candidate".into()));
                    }
                    if tracing::enabled!(tracing::Level::DEBUG) {
                        let picked: Vec<String> = holes
                            .iter()
                            .filter_map(|(site, (_, alts))| match alts.get(next[site]) {
                                Some(Alt::Expr(e)) => Some(expr_to_c(self.s.program, e)),
                                Some(Alt::Original) | None => None,
                                Some(other) => Some(format!("{other:?}")),
                            })
                            .collect();
                        tracing::debug!("candidate at {node:?}: {}", picked.join("; "));
                    }
                    choice = next;
                    self.send_candidate(node, holes, &choice);
                }
                None => return Err(Failure::NoRepair(String::new())),
            }
        }
    }

    /// A proved `choice` with each reference `printf` it puts in place of a student's replaced
    /// by the same format over the student's own values, where that is proved too, in a short
    /// check: where the student's values are the reference's, only the text changes
    /// (`"%d:%d\n"` → `"%02d:%02d\n"`), not the whole call. The CEGIS loop does not try
    /// these first: a student's values computed another way (`N % 3600 / 60` for the
    /// reference's `N / 60 % 60`) can be true yet take the solver longer than the budget.
    fn own_values_printed(
        &mut self,
        node: Node,
        holes: &Holes<'ctx>,
        mut choice: HashMap<ExprId, usize>,
    ) -> HashMap<ExprId, usize> {
        for h in &holes.held_back {
            if choice.get(&h.site) != Some(&h.of) || self.chosen.contains_key(&h.site) {
                continue;
            }
            let mut trial = choice.clone();
            trial.insert(h.site, h.at);
            let runaway = Instant::now() + OWN_VALUES_RUNAWAY.min(self.budget.remaining() / 8);
            if let Ok(None) =
                self.verify(node, holes, &trial, runaway.min(self.query_deadline()), Some(OWN_VALUES_EFFORT))
            {
                if let Some((_, alts)) = holes.sites.get(&h.site)
                    && let Alt::Expr(own) = &alts[h.at]
                {
                    tracing::debug!("{node:?}: the student's own values printed: {}", expr_to_c(self.s.program, own));
                }
                choice = trial;
            }
        }
        choice
    }

    /// Sends the part's candidate of `choice` at `node`: the changes fixed before it and the
    /// node's own ([`Options::candidates`]).
    fn send_candidate(&self, node: Node, holes: &Holes<'ctx>, choice: &HashMap<ExprId, usize>) {
        let Some(to) = self.candidates.as_ref().filter(|_| self.sending) else { return };
        let own = holes.iter().filter(|(site, _)| !self.chosen.contains_key(*site)).filter_map(|(site, (_, alts))| {
            let alt = &alts[choice.get(site).copied().unwrap_or(0)];
            (!matches!(alt, Alt::Original)).then(|| self.edit(node, *site, alt, &to.text)).flatten()
        });
        self.send_part(own.collect());
    }

    /// Sends the changes fixed so far and `own` as the part's candidate, when sending.
    fn send_part(&self, own: Vec<(Change, TextEdit)>) {
        let Some(to) = self.candidates.as_ref().filter(|_| self.sending) else { return };
        let mut changes: Vec<(Change, TextEdit)> = self.fixed.iter().map(|(_, c, e)| (c.clone(), e.clone())).collect();
        changes.extend(own);
        to.send(&self.part, self.precondition.is_some(), changes);
    }

    /// The nodes that have a region (all but Func-Exit), in the order they are repaired.
    pub(super) fn order(&self) -> Vec<Node> {
        self.r.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect()
    }

    /// `nodes` in order (all of them, or a part of [`Job::components`]); then the changes as
    /// text edits, each with its node. A failure names its node.
    pub(super) fn repair_nodes(&mut self, nodes: &[Node], text: &str) -> PartResult {
        self.sending = self.candidates.as_ref().is_some_and(|c| c.sends_for(text));
        self.fixed.clear();
        self.part = format!("{}/{:?}", self.s.program.func(self.s.func).name, nodes.first());
        for &node in nodes {
            // Definition 3's space first; the wider one (operand substitution) only when it
            // has no repair here, so its larger synthesis problems are paid only then.
            self.wide = false;
            let choice = match self.repair_node(node) {
                Err(Failure::NoRepair(_)) => {
                    self.wide = true;
                    self.repair_node(node)
                }
                other => other,
            };
            let choice = choice.map_err(|f| match f {
                Failure::NoRepair(_) => {
                    (node, Failure::NoRepair(node_name(self.s.program, self.s.func, &self.s.tree, node, text)))
                }
                other => (node, other),
            })?;
            let holes = self.holes(node);
            let mut changed: Vec<(ExprId, Alt)> = Vec::new();
            for (site, (_, alts)) in holes.iter() {
                if self.chosen.contains_key(site) {
                    continue;
                }
                let alt = alts[choice.get(site).copied().unwrap_or(0)].clone();
                if !matches!(alt, Alt::Original) {
                    changed.push((*site, alt.clone()));
                }
                if self.chosen.insert(*site, alt).is_none() {
                    self.chosen_order.push(*site);
                }
            }
            // Only once all of the node's sites are chosen: a guard's edit includes the value
            // chosen at its partner site.
            for (site, alt) in changed {
                if let Some((change, edit)) = self.edit(node, site, &alt, text) {
                    self.fixed.push((node, change, edit));
                }
            }
            self.send_part(Vec::new());
        }
        // No final pass is needed: a node's check depends only on the sites its region runs,
        // and all of them are fixed once it is verified, so later nodes cannot undo it.
        Ok(std::mem::take(&mut self.fixed))
    }
}

pub(super) fn sel_const(ctx: &Context, k: u64) -> BV<'_> {
    BV::from_u64(ctx, k, SEL_BITS)
}

pub(super) fn node_key(n: Node) -> String {
    format!("{n:?}").replace(['(', ')'], "")
}
