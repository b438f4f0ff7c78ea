//! One function pair's verification job: set-up (regions, whitespace invariants), the variable
//! alignment, the per-node formula (Verifix's edge checks), the node split, and verification.

use super::*;

impl<'j, 'p: 'j, 'ctx: 'j> Job<'j, 'p, 'ctx> {
    pub(super) fn new(
        ctx: &'ctx Context,
        r: &'j Side<'p>,
        s: &'j Side<'p>,
        opts: &Options,
        budget: &'j Budget,
        arena: &'j Arena,
    ) -> Result<Self, Failure> {
        Self::build(ctx, r, s, opts, budget, arena, None)
    }

    /// A job that only knows the regions, their sites and the alignments (not the whitespace
    /// invariant, which takes solver checks): enough for [`Job::components`], not to verify.
    pub(super) fn for_sites(
        ctx: &'ctx Context,
        r: &'j Side<'p>,
        s: &'j Side<'p>,
        opts: &Options,
        budget: &'j Budget,
        arena: &'j Arena,
    ) -> Result<Self, Failure> {
        Self::build(ctx, r, s, opts, budget, arena, Some(Default::default()))
    }

    /// With `ws`, the whitespace invariants another job of the same pair found (they are
    /// facts about the programs, and finding them is most of a job's set-up: solver checks).
    pub(super) fn build(
        ctx: &'ctx Context,
        r: &'j Side<'p>,
        s: &'j Side<'p>,
        opts: &Options,
        budget: &'j Budget,
        arena: &'j Arena,
        ws: Option<(BTreeSet<Node>, BTreeSet<Node>)>,
    ) -> Result<Self, Failure> {
        let r_setup = r.setup(opts, budget);
        let s_setup = s.setup(opts, budget);
        let mut job = Job {
            ctx,
            r,
            s,
            r_setup,
            s_setup,
            budget,
            align: BTreeMap::new(),
            alignments: Vec::new(),
            others_wait: false,
            cexs: BTreeMap::new(),
            live_r: BTreeMap::new(),
            live_s: BTreeMap::new(),
            ws_r: BTreeSet::new(),
            ws_s: BTreeSet::new(),
            plain_r: BTreeMap::new(),
            plain_s: BTreeMap::new(),
            arena,
            extended: BTreeSet::new(),
            tails: Vec::new(),
            printing: BTreeSet::new(),
            guarding: Vec::new(),
            ending: None,
            chosen: HashMap::new(),
            chosen_order: Vec::new(),
            sites: HashMap::new(),
            wide: false,
            candidates: opts.candidates.clone(),
            sending: false,
            fixed: Vec::new(),
            part: String::new(),
            precondition: None,
            frozen_r: BTreeSet::new(),
            frozen_s: BTreeSet::new(),
            entry_target: None,
            floats: [r, s].iter().any(|side| side.vars().iter().any(|v| side.program.var(*v).ty.is_float())),
            checks: 0,
        };
        stream::prepare(ctx, &mut job.r_setup, &mut job.s_setup).map_err(Failure::from_region)?;
        let world = World::new(ctx);
        for node in r.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit) {
            let pre_r = Exec::fresh_state(ctx, &job.r_setup, "r.").map_err(Failure::from_region)?;
            let pre_s = Exec::fresh_state(ctx, &job.s_setup, "s.").map_err(Failure::from_region)?;
            let rr = Exec::new(&job.r_setup, &world, None).run(node, pre_r).map_err(Failure::from_region)?;
            let sr = Exec::new(&job.s_setup, &world, None).run(node, pre_s).map_err(Failure::from_region)?;
            job.plain_r.insert(node, rr);
            job.plain_s.insert(node, sr);
        }
        let targets = (
            frozen::entry_target(&job.plain_r[&Node::FuncEntry]),
            frozen::entry_target(&job.plain_s[&Node::FuncEntry]),
        );
        if targets.0.is_some() && targets.0 == targets.1 {
            job.entry_target = targets.0;
            job.frozen_r = frozen::frozen(&job.plain_r);
        }
        job.live_r = liveness(&job.plain_r);
        job.live_s = liveness(&job.plain_s);
        match ws {
            Some((ws_r, ws_s)) => (job.ws_r, job.ws_s) = (ws_r, ws_s),
            None => {
                job.ws_r = whitespace_invariant(ctx, &job.r_setup, r)?;
                job.ws_s = whitespace_invariant(ctx, &job.s_setup, s)?;
            }
        }
        let ru: Vec<(Node, &[(VarId, region::Usage)])> =
            job.plain_r.iter().map(|(n, r)| (*n, r.usage.as_slice())).collect();
        let su: Vec<(Node, &[(VarId, region::Usage)])> =
            job.plain_s.iter().map(|(n, r)| (*n, r.usage.as_slice())).collect();
        let (rf, sf) = (r.program.func(r.func), s.program.func(s.func));
        let (rv, sv, rt, st) = (r.vars(), s.vars(), align::table(&ru), align::table(&su));
        job.alignments = align::candidates(
            &align::Vars {
                program: r.program,
                vars: &rv,
                params: &rf.params,
                usage: &rt,
                reads: &input_targets(r.program, r.func),
            },
            &align::Vars {
                program: s.program,
                vars: &sv,
                params: &sf.params,
                usage: &st,
                reads: &input_targets(s.program, s.func),
            },
            ALIGNMENT_CANDIDATES,
        );
        for (node, reg) in &job.plain_r {
            let returns = |g: &Region<'_, '_>| g.exits.iter().any(|e| e.to == Node::FuncExit);
            if returns(reg) && !returns(&job.plain_s[node]) && arena.early.contains_key(node) {
                job.extended.insert(*node);
            }
        }
        for (node, reg) in &job.plain_r {
            // Compared messages only: a prompt split in two prints is no missing print, and
            // neither is a line break printed apart (`printf("\n");` after the branches).
            let prints = |g: &Region<'_, '_>, side: &Side<'_>| {
                g.sites
                    .iter()
                    .filter(|x| {
                        x.kind == SiteKind::PrintCall
                            && !side.prompts.contains(&x.expr.id)
                            && !prints_only_space(x.expr)
                    })
                    .count()
            };
            let student = &job.plain_s[node];
            if prints(reg, r) <= prints(student, s) {
                continue;
            }
            if arena.prints.contains_key(node) {
                job.printing.insert(*node);
            }
            if let Some((guard, print)) = &arena.end
                && let Some(before) = last_return(s.program.func(s.func))
                && student.exits.iter().any(|e| e.to == Node::FuncExit)
            {
                job.ending = Some(region::EndPrint { before, guard, print });
            }
            for site in student.sites.iter().filter(|x| x.kind == SiteKind::PrintCall && x.stmt.is_some()) {
                if let Some((call, guard, print)) = arena.guarded.iter().find(|(c, _, _)| *c == site.expr.id)
                    && !job.guarding.iter().any(|g| g.call.id == *call)
                {
                    job.guarding.push(region::GuardedPrint { call: site.expr, guard, print });
                }
            }
        }
        for (node, reg) in &job.plain_s {
            for site in &reg.sites {
                job.sites.entry(site.expr.id).or_insert((site.clone(), *node));
            }
        }
        let first = job.alignments[0].clone();
        job.set_alignment(first);
        Ok(job)
    }

    /// When one solver query must end: while another variable alignment waits to be tried,
    /// after a third of the time left (a hard query under one alignment must not take the
    /// time of the others: IntroClass digits spent 27 s on one query of its second alignment
    /// where another run decided it in 5 s); under the last, at the budget's end. A query
    /// that reaches its share ends this alignment as out of time, to be tried again with the
    /// rest if no other gives a repair ([`pairs::over_alignments`]).
    pub(super) fn query_deadline(&self) -> Instant {
        if self.others_wait {
            self.budget.deadline.min(Instant::now() + self.budget.remaining() / QUERY_SHARE)
        } else {
            self.budget.deadline
        }
    }

    /// Readies the job for `turn` of [`pairs::over_alignments`]: its alignment, started over
    /// unless the job is fresh on the first, and whether its queries take only their share.
    pub(super) fn begin_turn(&mut self, turn: pairs::Turn) {
        if turn.index > 0 || turn.retry {
            self.set_alignment(self.alignments[turn.index].clone());
        }
        self.others_wait = turn.others_wait;
    }

    /// Starts over with another variable alignment: nothing chosen yet, and the `Extend`
    /// assignments that alignment calls for.
    pub(super) fn set_alignment(&mut self, alignment: BTreeMap<VarId, VarId>) {
        if tracing::enabled!(tracing::Level::DEBUG) {
            let pairs: Vec<String> = alignment
                .iter()
                .map(|(r, s)| format!("{}~{}", self.r.program.var(*r).name, self.s.program.var(*s).name))
                .collect();
            tracing::debug!("alignment: {}", pairs.join(", "));
        }
        self.use_alignment(alignment);
    }

    /// [`Job::set_alignment`] without the log line.
    pub(super) fn use_alignment(&mut self, alignment: BTreeMap<VarId, VarId>) {
        self.align = alignment;
        self.chosen.clear();
        self.chosen_order.clear();
        self.tails.clear();
        self.frozen_s.clear();
        let arena = self.arena;
        // A variable the reference assigns more often than the student, in a loop's body or in
        // the region that enters the loop.
        let writes = |reg: &Region<'_, '_>, v: VarId| {
            reg.usage
                .iter()
                .filter(|(x, u)| {
                    *x == v && matches!(u, region::Usage::Written | region::Usage::Incremented | region::Usage::Scanned)
                })
                .count()
        };
        for (l, before, v, guard, value) in &arena.tails {
            let node = if *before {
                let enters = |n: &Node, reg: &Region<'_, '_>| {
                    *n != Node::LoopEntry(*l) && reg.exits.iter().any(|e| e.to == Node::LoopEntry(*l))
                };
                match self.plain_r.iter().find(|(n, reg)| enters(n, reg)) {
                    Some((n, _)) => *n,
                    None => continue,
                }
            } else {
                Node::LoopEntry(*l)
            };
            let Some(r) = self.align.iter().find(|(_, s)| *s == v).map(|(r, _)| *r) else { continue };
            if writes(&self.plain_r[&node], r) > writes(&self.plain_s[&node], *v) {
                self.tails.push(region::Tail { l: *l, before: *before, guard, value, var: *v });
            }
        }
        if self.entry_target.is_some() {
            // An `Extend` assignment in a loop writes its variable after the entry region.
            let tails: BTreeSet<VarId> = self.tails.iter().filter(|t| !t.before).map(|t| t.var).collect();
            self.frozen_s = frozen::frozen(&self.plain_s).into_iter().filter(|v| !tails.contains(v)).collect();
        }
    }

    /// The reference's local variables of arithmetic type that the best alignment leaves
    /// without a partner although they are live at some node (their values matter there).
    pub(super) fn unpartnered_live(&self) -> Vec<VarId> {
        let Some(best) = self.alignments.first() else { return Vec::new() };
        let live: BTreeSet<VarId> = self.live_r.values().flatten().copied().collect();
        let params = &self.r.program.func(self.r.func).params;
        self.r
            .vars()
            .into_iter()
            .filter(|v| {
                !best.contains_key(v)
                    && live.contains(v)
                    && !params.contains(v)
                    && self.r.program.var(*v).ty.is_arithmetic()
            })
            .collect()
    }

    pub(super) fn extension(&self, node: Node) -> Option<(&'j Expr, &'j Expr)> {
        if self.extended.contains(&node) { self.arena.early.get(&node).map(|(g, v)| (g, v)) } else { None }
    }

    pub(super) fn is_synthetic_guard(&self, site: ExprId) -> bool {
        self.tails.iter().any(|t| site == t.guard.id)
    }

    /// The alignment predicate at `node` between two states.
    pub(super) fn phi(&self, node: Node, r: &State<'ctx>, s: &State<'ctx>) -> Bool<'ctx> {
        let mut eqs = vec![r.in_pos._eq(&s.in_pos)];
        if self.ws_r.contains(&node) {
            eqs.push(r.at_ws.clone());
        }
        if self.ws_s.contains(&node) {
            eqs.push(s.at_ws.clone());
        }
        let (rf, sf) = (self.r.program.func(self.r.func), self.s.program.func(self.s.func));
        for (rv, sv) in &self.align {
            let relevant = if node == Node::FuncEntry {
                // Aligned local arrays start with the same contents (see `region`'s doc).
                let array = |p: &Program, v: &VarId| matches!(p.var(*v).ty, Type::Array(..));
                (rf.params.contains(rv) && sf.params.contains(sv))
                    || (array(self.r.program, rv) && array(self.s.program, sv))
            } else {
                self.live_r.get(&node).is_some_and(|l| l.contains(rv))
                    || self.live_s.get(&node).is_some_and(|l| l.contains(sv))
            };
            if !relevant || self.both_frozen(node, *rv, *sv) {
                continue;
            }
            if let (Some(a), Some(b)) = (r.vars.get(rv), s.vars.get(sv))
                && let Some(eq) = a.term.equal(&b.term)
            {
                eqs.push(eq);
            }
        }
        let refs: Vec<&Bool<'ctx>> = eqs.iter().collect();
        Bool::and(self.ctx, &refs)
    }

    /// Runs both regions of `node` from the given pre-states: (hypothesis, violation).
    pub(super) fn node_formula(
        &self,
        node: Node,
        pre_r: State<'ctx>,
        pre_s: State<'ctx>,
        world: &World<'_, 'ctx>,
        holes: Option<&Holes<'ctx>>,
    ) -> Result<(Bool<'ctx>, Bool<'ctx>), Failure> {
        let ctx = self.ctx;
        let rr = Exec::new(&self.r_setup, world, None).run(node, pre_r).map_err(Failure::from_region)?;
        let sr = self.student_exec(node, world, holes).run(node, pre_s).map_err(Failure::from_region)?;
        let ref_errors: Vec<&Bool<'ctx>> = rr.errors.iter().map(|(c, _, _)| c).collect();
        let mut assumed: Vec<&Bool<'ctx>> = rr.assumed.iter().chain(&sr.assumed).collect();
        let no_ref_error = Bool::or(ctx, &ref_errors).not();
        assumed.push(&no_ref_error);
        let skips = stream::cross_skip_facts(ctx, world, &rr, &sr);
        assumed.extend(&skips);
        let facts: Vec<Bool<'ctx>> = self.precondition.map_or_else(Vec::new, |p| {
            let at = |k: usize| (p.convs[k], k as u32);
            p.facts.iter().filter_map(|f| world.token_order(at(f.left), at(f.right), f.strict)).collect()
        });
        assumed.extend(&facts);
        // Under the promise that the reference prints no `nan`: no float it prints is a NaN.
        let mut no_nan = Vec::new();
        if self.precondition.is_some_and(|p| p.no_nan) {
            let mut floats = crate::smt::floats::Floats::new(ctx, self.r_setup.floats);
            for p in &rr.printed {
                if let region::Token::Float { value, .. } = &p.token {
                    no_nan.push(Bool::and(ctx, &[&p.guard, &floats.is_nan(value)]).not());
                }
            }
        }
        assumed.extend(&no_nan);
        let hyp = Bool::and(ctx, &assumed);
        let mut bad: Vec<Bool<'ctx>> = sr.errors.iter().map(|(c, _, _)| c.clone()).collect();
        // Glued output on either side: the printed tokens compared are not the output's.
        bad.extend(rr.glue.iter().chain(&sr.glue).cloned());
        // An invariant of the input model broken at the node reached (the line invariant).
        bad.extend(rr.obligations.iter().chain(&sr.obligations).cloned());
        let pr: Vec<(Bool<'ctx>, &region::Token<'ctx>)> =
            rr.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        let ps: Vec<(Bool<'ctx>, &region::Token<'ctx>)> =
            sr.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        let out_of_time = || self.budget.is_exhausted();
        bad.push(region::sequences_differ_within(ctx, &pr, &ps, &out_of_time).ok_or(Failure::Timeout)?);
        let targets: BTreeSet<Node> = rr.exits.iter().chain(&sr.exits).map(|e| e.to).collect();
        for v in targets {
            let (tr, post_r) = merged(ctx, &rr, v);
            let (ts, post_s) = merged(ctx, &sr, v);
            bad.push(tr._eq(&ts).not());
            if let (Some(a), Some(b)) = (post_r, post_s) {
                let mut post = self.phi(v, &a, &b);
                if v == Node::FuncExit
                    && let (Some(x), Some(y)) = (&a.ret, &b.ret)
                {
                    let eq = x.term.equal(&y.term).unwrap_or_else(|| Bool::from_bool(ctx, false));
                    post = Bool::and(ctx, &[&post, &eq]);
                }
                bad.push(Bool::and(ctx, &[&tr, &ts, &post.not()]));
            }
        }
        let refs: Vec<&Bool<'ctx>> = bad.iter().collect();
        Ok((hyp, Bool::or(ctx, &refs)))
    }

    /// The student's region of `node` as the checks run it: with the `Extend` additions in
    /// play (the tails, the guarded prints, the start print, the early return).
    pub(super) fn student_exec<'s, 'w, 'a>(
        &'s self,
        node: Node,
        world: &'w World<'a, 'ctx>,
        holes: Option<&'s Holes<'ctx>>,
    ) -> Exec<'s, 's, 'w, 'a, 'ctx> {
        let mut exec = Exec::new(&self.s_setup, world, holes)
            .with_tails(self.tails.clone())
            .with_guarded_prints(self.guarding.clone())
            .with_end_print(self.ending);
        if self.printing.contains(&node) {
            exec = exec.with_start_print(&self.arena.prints[&node]);
        }
        if let Some((g, v)) = self.extension(node) {
            exec = exec.with_extension(g, v);
        }
        exec
    }

    /// The sites the student's region of `node` runs with `holes` (a site another region owns
    /// included: a loop's step, an `Extend` tail at the end of a body).
    pub(super) fn sites_run(&self, node: Node, holes: &Holes<'ctx>) -> Result<Vec<ExprId>, Failure> {
        let world = World::new(self.ctx);
        let pre_s = Exec::fresh_state(self.ctx, &self.s_setup, "s.").map_err(Failure::from_region)?;
        let sr = self.student_exec(node, &world, Some(holes)).run(node, pre_s).map_err(Failure::from_region)?;
        Ok(sr.sites.iter().map(|x| x.expr.id).collect())
    }

    /// The nodes (in [`Job::order`]) split into parts whose repair problems are independent,
    /// each part in node order, the part of Func-Entry first. Two nodes depend on each other
    /// when one's holes (its sites, `Extend`'s synthetic ones included, nothing chosen) meet
    /// the sites the other's region runs with its holes free (in either implementation
    /// space): fixing a site at one would change the other's problem. Every loop node
    /// depends on Func-Entry when variables are frozen ([`frozen`]: a loop node's check
    /// re-runs the student's entry region as repaired), so then the function is one part. The
    /// parts are the connected components under every candidate alignment at once (the
    /// `Extend` tails and the frozen variables depend on the alignment), so one split serves
    /// the whole alignment loop. Parts without holes join the first; fewer than two parts with
    /// holes are one part. Any failure here: one part (the sequential order).
    pub(super) fn components(&mut self) -> Vec<Vec<Node>> {
        let order = self.order();
        let parts = self.split(&order).unwrap_or_else(|_| vec![order.clone()]);
        // Back to the first alignment, nothing chosen (as after `Job::new`).
        let first = self.alignments[0].clone();
        self.use_alignment(first);
        self.wide = false;
        parts
    }

    pub(super) fn split(&mut self, order: &[Node]) -> Result<Vec<Vec<Node>>, Failure> {
        fn root(up: &mut [usize], mut x: usize) -> usize {
            while up[x] != x {
                up[x] = up[up[x]];
                x = up[x];
            }
            x
        }
        fn join(up: &mut [usize], a: usize, b: usize) {
            let (a, b) = (root(up, a), root(up, b));
            // The smaller index is the root: a part's root is its first node.
            up[a.max(b)] = a.min(b);
        }
        // Frozen variables under any alignment: every loop node joins Func-Entry (asked first:
        // it needs no region run).
        for alignment in self.alignments.clone() {
            self.use_alignment(alignment);
            if self.entry_target.is_some() && !(self.frozen_r.is_empty() && self.frozen_s.is_empty()) {
                return Ok(vec![order.to_vec()]);
            }
        }
        let n = order.len();
        let mut up: Vec<usize> = (0..n).collect();
        let mut has_holes = vec![false; n];
        for alignment in self.alignments.clone() {
            self.use_alignment(alignment);
            // Per site, the first node that has it as a hole or runs it.
            let mut owner: HashMap<ExprId, usize> = HashMap::new();
            for (i, &node) in order.iter().enumerate() {
                let mut touched: Vec<ExprId> = Vec::new();
                for wide in [false, true] {
                    self.wide = wide;
                    let holes = self.holes(node);
                    has_holes[i] |= !holes.order.is_empty();
                    touched.extend(&holes.order);
                    touched.extend(self.sites_run(node, &holes)?);
                }
                for site in touched {
                    match owner.get(&site) {
                        Some(&j) => join(&mut up, i, j),
                        None => {
                            owner.insert(site, i);
                        }
                    }
                }
            }
            if (0..n).all(|i| root(&mut up, i) == 0) {
                break;
            }
        }
        let mut parts: Vec<(Vec<Node>, bool)> = Vec::new();
        let mut part_of: HashMap<usize, usize> = HashMap::new();
        for (i, &node) in order.iter().enumerate() {
            let r = root(&mut up, i);
            let k = *part_of.entry(r).or_insert_with(|| {
                parts.push((Vec::new(), false));
                parts.len() - 1
            });
            parts[k].0.push(node);
            parts[k].1 |= has_holes[i];
        }
        if parts.iter().filter(|(_, holes)| *holes).count() < 2 {
            return Ok(vec![order.to_vec()]);
        }
        let (mut first, mut out) = (Vec::new(), Vec::new());
        for (k, (nodes, holes)) in parts.into_iter().enumerate() {
            if k == 0 || !holes {
                first.extend(nodes);
            } else {
                out.push(nodes);
            }
        }
        first.sort_by_key(|n| order.iter().position(|m| m == n));
        out.insert(0, first);
        Ok(out)
    }

    /// Verifies `node` with the holes' selectors fixed to `choice`: `None` when verified, else
    /// a counterexample (the model and the pre-states it speaks of).
    pub(super) fn verify(
        &mut self,
        node: Node,
        holes: &Holes<'ctx>,
        choice: &HashMap<ExprId, usize>,
        query_end: Instant,
        effort: Option<Effort>,
    ) -> Result<Option<(Model<'ctx>, State<'ctx>, State<'ctx>)>, Failure> {
        let ctx = self.ctx;
        let mut pre_r = Exec::fresh_state(ctx, &self.r_setup, "r.").map_err(Failure::from_region)?;
        let mut pre_s = Exec::fresh_state(ctx, &self.s_setup, "s.").map_err(Failure::from_region)?;
        if node == Node::FuncEntry {
            // The entry function reads the stream from its start (other functions do not read):
            // reads are then at constant positions, which the solver treats as plain constants.
            pre_r.in_pos = BV::from_u64(ctx, 0, 32);
            pre_s.in_pos = pre_r.in_pos.clone();
            // Nothing printed yet.
            pre_r.at_ws = Bool::from_bool(ctx, true);
            pre_s.at_ws = pre_r.at_ws.clone();
        }
        let world = World::new(ctx);
        let snapshot = self.freeze(node, &world, &mut pre_r, &mut pre_s)?;
        let candidate = holes.restricted(choice);
        let (hyp, bad) = self.node_formula(node, pre_r.clone(), pre_s.clone(), &world, Some(&candidate))?;
        let phi = self.phi(node, &pre_r, &pre_s);
        let phi = match snapshot {
            Some(s) => Bool::and(ctx, &[&phi, &s]),
            None => phi,
        };
        // Floating point: Z3's default solver can spend seconds on comparisons its
        // bit-blasting floating-point tactic proves in milliseconds; that tactic gives up on
        // some formulas (uninterpreted calls), and then the default solver decides. Over the
        // reals (a search's abstraction), Z3's default solver: arithmetic, no bits.
        let solvers: &[fn(&'ctx Context) -> Solver<'ctx>] = if self.floats && self.r_setup.floats == FloatModel::Real {
            &[Solver::new]
        } else if self.floats {
            &[|c| z3::Tactic::new(c, "qffpbv").solver(), Solver::new]
        } else {
            &[crate::smt::solver::bit_vector_uf_solver, Solver::new]
        };
        // Neither solver is always the faster. With floating point, a portfolio on one core:
        // each solver in turn for a slice that grows fourfold each round, so a float query one
        // solver cannot decide costs little when the other can (a float sum `qffpbv` could not
        // decide in 3.3 s the default solver decides in 5 ms). Without, where the pipeline
        // decides `i * i <= n` and the default solver can take seconds (some divisions go the
        // other way), the pipeline gets a quarter of the time left and the default solver the
        // rest: taking turns cost more than it won there (IntroClass digits 6.8 s → 11.6 s).
        // A solver that gives up (not out of time) leaves; the last one left gets all the time.
        // With an `effort`, slices of Z3's resource count take the place of slices of the
        // clock (a float query's turns grow fourfold up to it; otherwise each solver gets it
        // all), and `query_end` only stops a runaway: the answer does not depend on the load.
        let take_turns = self.floats;
        let mut alive: Vec<usize> = (0..solvers.len()).collect();
        let mut slice = if take_turns { FIRST_SLICE } else { self.budget.remaining() / 4 };
        let mut effort_slice = effort.map(|e| if take_turns { Effort(e.0 / FIRST_EFFORT_SHARE) } else { e });
        let mut verdict = Verdict::Unknown(UnknownReason::SolverUnknown("not run".into()));
        // Each solver is made once: the default solver resumes with what it learned before
        // its slice ran out.
        let mut made: Vec<Option<Solver<'ctx>>> = solvers.iter().map(|_| None).collect();
        let mut last = 0;
        'rounds: while !alive.is_empty() {
            let mut i = 0;
            while i < alive.len() {
                last = alive[i];
                let solver = made[last].get_or_insert_with(|| {
                    let solver = solvers[last](ctx);
                    solver.assert(&phi);
                    solver.assert(&hyp);
                    solver.assert(&bad);
                    solver
                });
                self.checks += 1;
                let t = Instant::now();
                let cap = Budget {
                    deadline: if alive.len() == 1 || effort_slice.is_some() {
                        query_end
                    } else {
                        query_end.min(Instant::now() + slice)
                    },
                    cancel: self.budget.cancel.clone(),
                };
                verdict = check_within(solver, &[], effort_slice, &cap);
                tracing::debug!(
                    "verify {node:?} (solver {last}): {verdict:?} in {:.1} ms",
                    t.elapsed().as_secs_f64() * 1000.0
                );
                match &verdict {
                    Verdict::Sat | Verdict::Unsat => break 'rounds,
                    _ if self.budget.is_exhausted() || Instant::now() >= query_end => break 'rounds,
                    Verdict::Unknown(UnknownReason::Timeout | UnknownReason::OutOfEffort) if take_turns => i += 1,
                    Verdict::Unknown(_) => {
                        alive.remove(i);
                    }
                }
            }
            slice *= 4;
            if let (Some(e), Some(total)) = (&mut effort_slice, effort) {
                if e.0 >= total.0 {
                    break 'rounds;
                }
                *e = Effort(e.0.saturating_mul(4).min(total.0));
            }
        }
        match verdict {
            Verdict::Unsat => Ok(None),
            Verdict::Sat => {
                let m = made[last]
                    .as_ref()
                    .and_then(|s| s.get_model())
                    .ok_or_else(|| Failure::SolverUnknown("no model".into()))?;
                Ok(Some((m, pre_r, pre_s)))
            }
            Verdict::Unknown(r) => Err(if self.budget.is_exhausted() || Instant::now() >= query_end {
                Failure::Timeout
            } else {
                Failure::SolverUnknown(format!("{r:?}"))
            }),
        }
    }
}

/// The merged exit into `v`: (taken, the state it is reached with).
pub(super) fn merged<'ctx>(ctx: &'ctx Context, reg: &Region<'_, 'ctx>, v: Node) -> (Bool<'ctx>, Option<State<'ctx>>) {
    let exits: Vec<&region::Exit<'ctx>> = reg.exits.iter().filter(|e| e.to == v).collect();
    let guards: Vec<&Bool<'ctx>> = exits.iter().map(|e| &e.state.guard).collect();
    let taken = Bool::or(ctx, &guards);
    // The exits' guards are disjoint: merging each under its own guard gives the edge's state.
    let state =
        exits.iter().rev().fold(None, |rest, e| region::merge_states(&e.state.guard, Some(e.state.clone()), rest));
    (taken, state)
}

/// A pre-state with every value replaced by its value in `m`.
pub(super) fn concrete<'ctx>(st: &State<'ctx>, m: &Model<'ctx>) -> State<'ctx> {
    let mut out = st.clone();
    for val in out.vars.values_mut() {
        val.term = match &val.term {
            Term::Int(b, t) => Term::Int(m.eval(b, true).unwrap_or_else(|| b.clone()), *t),
            Term::Float(f, k) => Term::Float(m.eval(f, true).unwrap_or_else(|| f.clone()), *k),
            Term::Array(a, t, n) => {
                let n = match n {
                    Len::Runtime(n) => Len::Runtime(m.eval(n, true).unwrap_or_else(|| n.clone())),
                    fixed => fixed.clone(),
                };
                Term::Array(m.eval(a, true).unwrap_or_else(|| a.clone()), *t, n)
            }
        };
    }
    out.in_pos = m.eval(&st.in_pos, true).unwrap_or_else(|| st.in_pos.clone());
    out.at_ws = m.eval(&st.at_ws, true).unwrap_or_else(|| st.at_ws.clone());
    out
}

/// The loop nodes where a program has always just printed whitespace (or nothing): start
/// from all of them and drop every node some edge may reach otherwise (Houdini). Any set is
/// sound (the checks prove it as part of the alignment predicate); this one makes most proofs
/// go through when prints end with a newline.
pub(super) fn whitespace_invariant<'p, 'ctx>(
    ctx: &'ctx Context,
    setup: &Setup<'p>,
    side: &Side<'_>,
) -> Result<BTreeSet<Node>, Failure> {
    let nodes: Vec<Node> = side.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect();
    let mut inv: BTreeSet<Node> =
        nodes.iter().copied().filter(|n| matches!(n, Node::LoopEntry(_) | Node::LoopExit(_))).collect();
    let world = World::new(ctx);
    loop {
        let mut dropped = false;
        for &u in &nodes {
            let mut pre = Exec::fresh_state(ctx, setup, "ws.").map_err(Failure::from_region)?;
            if u == Node::FuncEntry || inv.contains(&u) {
                pre.at_ws = Bool::from_bool(ctx, true);
            }
            let reg = Exec::new(setup, &world, None).run(u, pre).map_err(Failure::from_region)?;
            for e in &reg.exits {
                if !inv.contains(&e.to) {
                    continue;
                }
                let solver = Solver::new(ctx);
                solver.assert(&e.state.guard);
                solver.assert(&e.state.at_ws.not());
                // Under the job's budget: an unknown drops the invariant (sound, only weaker).
                if !crate::smt::check_interruptible(&solver, &setup.budget).is_unsat() {
                    inv.remove(&e.to);
                    dropped = true;
                }
            }
        }
        if !dropped {
            return Ok(inv);
        }
    }
}

/// Live variables at each node: read (through the values that matter at the next node, the
/// path conditions, printed values, errors and the returned value) before being written.
pub(super) fn liveness(regions: &Regions<'_, '_>) -> BTreeMap<Node, BTreeSet<VarId>> {
    let mut live: BTreeMap<Node, BTreeSet<VarId>> = regions.keys().map(|n| (*n, BTreeSet::new())).collect();
    loop {
        let mut changed = false;
        for (node, reg) in regions {
            let mut set: BTreeSet<VarId> = BTreeSet::new();
            for (_, d, _) in &reg.errors {
                set.extend(d);
            }
            for p in &reg.printed {
                set.extend(&p.deps);
            }
            for e in &reg.exits {
                set.extend(&e.state.guard_deps);
                if let Some(r) = &e.state.ret {
                    set.extend(&r.deps);
                }
                if let Some(next) = live.get(&e.to) {
                    for y in next {
                        if let Some(v) = e.state.vars.get(y) {
                            set.extend(&v.deps);
                        }
                    }
                }
            }
            if live[node] != set {
                live.insert(*node, set);
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

/// A `printf` of a literal with no conversion and nothing but white space in it.
fn prints_only_space(call: &Expr) -> bool {
    let ExprKind::Call(_, args) = &call.strip_implicit().kind else { return false };
    match args.first().map(|a| &a.strip_implicit().kind) {
        Some(ExprKind::Str(text)) => args.len() == 1 && text.iter().all(|b| b.is_ascii_whitespace()),
        _ => false,
    }
}
