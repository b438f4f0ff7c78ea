//! Variables frozen after the entry region: a variable that the function's entry region
//! writes and no other region writes keeps, at every loop node, the value the entry region
//! gave it. In `syllables` the line read by `fgets`, its length and the reference's
//! `given[len-1] = 0` are all computed before the loop; the loop only reads them.
//!
//! The alignment predicate cannot say "the arrays agree where the loop reads them" (the
//! student keeps the newline the reference overwrites, past the end of what both read), and a
//! loop node's fresh pre-state forgets how the length relates to the array. So at loop nodes
//! the frozen variables' pre-state values are the entry region's results, computed on a
//! *snapshot*: both entry regions run again from an initial state of their own (`r0.`/`s0.`,
//! the entry predicate between them: aligned arrays equal, parameters equal), on the same
//! input, both taking their edge into the first loop, the reference without runtime errors.
//! This is an invariant of every run (the variables are not written after the entry region),
//! so assuming it is sound; an aligned pair frozen on both sides is then left out of the
//! alignment predicate at loop nodes (its values are known there).
//!
//! Used only when each program's entry region leads to one node other than Func-Exit (the
//! same one): every loop node is then reached through that edge. A variable written by an
//! `Extend` assignment in a loop is not frozen.

use std::collections::{BTreeSet, HashMap};

use z3::ast::{BV, Bool};

use super::region::{self, Exec, Holes, Region, SEL_BITS, State, World};
use crate::ir::VarId;
use crate::ir::cfa::Node;

use super::{Failure, Job, merged};

/// The variables `regions`' entry region writes and no other region does.
pub(super) fn frozen(regions: &super::Regions<'_, '_>) -> BTreeSet<VarId> {
    let writes = |reg: &Region<'_, '_>| -> BTreeSet<VarId> {
        reg.usage
            .iter()
            .filter(|(_, u)| matches!(u, region::Usage::Written | region::Usage::Incremented | region::Usage::Scanned))
            .map(|(v, _)| *v)
            .collect()
    };
    let Some(entry) = regions.get(&Node::FuncEntry) else { return BTreeSet::new() };
    let mut out = writes(entry);
    for (n, reg) in regions {
        if *n != Node::FuncEntry {
            for v in writes(reg) {
                out.remove(&v);
            }
        }
    }
    out
}

/// The one node other than Func-Exit that the entry region leads to.
pub(super) fn entry_target(reg: &Region<'_, '_>) -> Option<Node> {
    let targets: BTreeSet<Node> = reg.exits.iter().map(|e| e.to).filter(|n| *n != Node::FuncExit).collect();
    (targets.len() == 1).then(|| *targets.iter().next().expect("one"))
}

impl<'j, 'p: 'j, 'ctx: 'j> Job<'j, 'p, 'ctx> {
    /// Whether an aligned pair is left out of the alignment predicate at `node`.
    pub(super) fn both_frozen(&self, node: Node, rv: VarId, sv: VarId) -> bool {
        node != Node::FuncEntry
            && self.entry_target.is_some()
            && self.frozen_r.contains(&rv)
            && self.frozen_s.contains(&sv)
    }

    /// At a loop node: the frozen variables of the pre-states set to the snapshot's values;
    /// returns what the snapshot assumes (`None`: nothing frozen here).
    pub(super) fn freeze(
        &self,
        node: Node,
        world: &World<'_, 'ctx>,
        pre_r: &mut State<'ctx>,
        pre_s: &mut State<'ctx>,
    ) -> Result<Option<Bool<'ctx>>, Failure> {
        let ctx = self.ctx;
        let Some(v0) = self.entry_target else { return Ok(None) };
        if matches!(node, Node::FuncEntry | Node::FuncExit) || (self.frozen_r.is_empty() && self.frozen_s.is_empty()) {
            return Ok(None);
        }
        let mut sr = Exec::fresh_state(ctx, &self.r_setup, "r0.").map_err(Failure::from_region)?;
        let mut ss = Exec::fresh_state(ctx, &self.s_setup, "s0.").map_err(Failure::from_region)?;
        sr.in_pos = BV::from_u64(ctx, 0, 32);
        ss.in_pos = sr.in_pos.clone();
        sr.at_ws = Bool::from_bool(ctx, true);
        ss.at_ws = sr.at_ws.clone();
        let entry = self.phi(Node::FuncEntry, &sr, &ss);
        let rr = Exec::new(&self.r_setup, world, None).run(Node::FuncEntry, sr).map_err(Failure::from_region)?;
        // The student's entry region as repaired so far (it is verified before any loop node).
        let mut fixed = Holes { sites: HashMap::new(), order: Vec::new(), held_back: Vec::new() };
        for (i, key) in self.chosen_order.iter().enumerate() {
            fixed
                .sites
                .insert(*key, (BV::new_const(ctx, format!("frozen!{i}"), SEL_BITS), vec![self.chosen[key].clone()]));
            fixed.order.push(*key);
        }
        let mut exec = Exec::new(&self.s_setup, world, Some(&fixed)).with_tails(self.tails.clone());
        if let Some((g, v)) = self.extension(Node::FuncEntry) {
            exec = exec.with_extension(g, v);
        }
        let sreg = exec.run(Node::FuncEntry, ss).map_err(Failure::from_region)?;
        let (tr, post_r) = merged(ctx, &rr, v0);
        let (ts, post_s) = merged(ctx, &sreg, v0);
        // The plain regions reach `v0`, so these do too (the student's as repaired may not:
        // then no run reaches a loop node and the snapshot's assumption is false, as it should).
        let (Some(a), Some(b)) = (post_r, post_s) else { return Ok(Some(Bool::from_bool(ctx, false))) };
        for v in &self.frozen_r {
            if let (Some(x), Some(pre)) = (a.vars.get(v), pre_r.vars.get_mut(v)) {
                pre.term = x.term.clone();
            }
        }
        for v in &self.frozen_s {
            if let (Some(x), Some(pre)) = (b.vars.get(v), pre_s.vars.get_mut(v)) {
                pre.term = x.term.clone();
            }
        }
        let ref_errors: Vec<&Bool<'ctx>> = rr.errors.iter().map(|(c, _, _)| c).collect();
        let no_ref_error = Bool::or(ctx, &ref_errors).not();
        let skips = super::stream::cross_skip_facts(ctx, world, &rr, &sreg);
        let mut facts: Vec<&Bool<'ctx>> = rr.assumed.iter().chain(&sreg.assumed).chain(&skips).collect();
        facts.extend([&entry, &no_ref_error, &tr, &ts]);
        Ok(Some(Bool::and(ctx, &facts)))
    }
}
