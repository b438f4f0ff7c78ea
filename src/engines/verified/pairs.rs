//! Function pairs: matching the student's functions with the reference's (by name, else by
//! signature and loop nesting), repairing one pair over its candidate variable alignments, and
//! solving independent parts of one function's nodes on threads of their own.

use super::*;

/// Repairs one function pair: the variable alignments in order, the next only when this one
/// admits no repair in its space (counterexamples carry over); a timeout or a solver failure
/// ends the search. With `parallel`, the nodes are split into independent parts
/// ([`Job::components`]) solved on threads of their own when there are two or more.
/// When it finds no repair, `unpartnered` gets the live reference variables the best
/// alignment leaves without a partner ([`fresh`]).
pub(super) fn repair_function(
    task: &PairTask<'_>,
    parallel: bool,
    unpartnered: &std::sync::Mutex<Vec<fresh::Wanted>>,
) -> Result<PairRepair, Failure> {
    let (rs, ss) = task.sides()?;
    let arena = extension_arena(&ss);
    let ctx = new_context();
    // The split is computed on a thread of its own while this job is set up, in a context of
    // its own: the terms it makes would change the solving job's term ids, on which the
    // printed problems (the node cache's keys) depend.
    let (job, parts) = std::thread::scope(|scope| {
        let split = parallel.then(|| scope.spawn(|| split_nodes(task)));
        let job = Job::new(&ctx, &rs, &ss, task.opts, task.budget, &arena);
        (job, split.and_then(|h| h.join().ok()).unwrap_or_default())
    });
    let mut job = job?;
    job.precondition = task.precondition();
    let fname = &task.student.func(task.s).name;
    let order = job.order();
    let result = if parts.len() > 1 {
        tracing::debug!(
            "verified repair of `{fname}`: {} nodes in {} independent parts {:?}",
            order.len(),
            parts.len(),
            parts
        );
        repair_parts(task, &mut job, &order, &parts)
    } else {
        over_alignments(fname, job.alignments.len(), task.budget, |turn| {
            job.begin_turn(turn);
            job.repair_nodes(&order, task.text)
                .map(|v| v.into_iter().map(|(_, c, e)| (c, e)).collect())
                .map_err(|(_, f)| f)
        })
        .map(|changes| {
            tracing::debug!("verified repair of `{fname}`: {} solver checks", job.checks);
            (changes, job.checks)
        })
    };
    if matches!(result, Err(Failure::NoRepair(_))) {
        unpartnered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(job.unpartnered_live().into_iter().map(|var| fresh::Wanted { func: task.s, var }));
    }
    result
}

/// [`Job::components`] for the pair, by a job of its own (empty when it cannot be set up).
pub(super) fn split_nodes(task: &PairTask<'_>) -> Vec<Vec<Node>> {
    let Ok((rs, ss)) = task.sides() else { return Vec::new() };
    let arena = extension_arena(&ss);
    let scratch = new_context();
    Job::for_sites(&scratch, &rs, &ss, task.opts, task.budget, &arena)
        .map_or_else(|_| Vec::new(), |mut j| j.components())
}

/// One try of a candidate alignment by [`over_alignments`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    /// The alignment's index among the candidates.
    pub index: usize,
    /// Another alignment waits after this one: each solver query takes only its share of the
    /// time left ([`Job::query_deadline`]).
    pub others_wait: bool,
    /// The alignment was tried before and ran out of its share: start it over.
    pub retry: bool,
}

/// The alignments `0..count` in order until one gives a repair: the next after one that
/// admits no repair in its space, or whose query ran out of its share of the time
/// ([`Job::query_deadline`]). Those cut short are then tried again in order, the last with
/// all the time left, so a hard query of the best alignment on a loaded machine costs time,
/// not the repair (IntroClass median, retyped: its one proof took 13 s under load, its share
/// was 12 s, and the second alignment's "no repair" was the answer). The budget's end or a
/// solver failure ends the search. The failure is "no repair" only when no alignment was cut
/// short by the budget's end: a space not searched to its end has no "no repair" to tell.
pub(super) fn over_alignments(
    fname: &str,
    count: usize,
    budget: &Budget,
    mut attempt: impl FnMut(Turn) -> Result<Vec<(Change, TextEdit)>, Failure>,
) -> Result<Vec<(Change, TextEdit)>, Failure> {
    let mut no_repair = None;
    let mut queue: Vec<usize> = (0..count).collect();
    let mut retry = false;
    // Every pass after the first ends its last alignment for good, so the queue shrinks.
    while !queue.is_empty() {
        let mut cut = Vec::new();
        for (k, &index) in queue.iter().enumerate() {
            // In the first pass, one cut short waits for its second try too.
            let others_wait = k + 1 < queue.len() || (!retry && !cut.is_empty());
            if index > 0 || retry {
                tracing::debug!("verified repair of `{fname}`: trying alignment {}", index + 1);
            }
            match attempt(Turn { index, others_wait, retry }) {
                Ok(changes) => return Ok(changes),
                Err(f @ Failure::NoRepair(_)) => {
                    no_repair.get_or_insert(f);
                }
                Err(Failure::Timeout) if others_wait && !budget.is_exhausted() => {
                    tracing::debug!(
                        "verified repair of `{fname}`: a query of alignment {} ran out of its share",
                        index + 1
                    );
                    cut.push(index);
                }
                Err(Failure::Timeout) => return Err(Failure::Timeout),
                Err(f) => return Err(no_repair.unwrap_or(f)),
            }
        }
        queue = cut;
        retry = true;
    }
    Err(no_repair.unwrap_or(Failure::Internal))
}

/// The parts of one function solved concurrently: `job` (this thread's) takes the first part,
/// a thread per other part builds its own context and job for the same pair and keeps it
/// across alignments (its counterexamples, tied to its context, seed its nodes under the next
/// alignment). Per alignment every part is solved; the answer is the changes of all parts in
/// node order, or, when a part fails, the failure at the earliest node, as the sequential
/// order of the nodes would have met it first (parts share no site, so each node's problem and
/// answer are the sequential ones).
pub(super) fn repair_parts<'j, 'ctx: 'j>(
    task: &PairTask<'_>,
    job: &mut Job<'j, '_, 'ctx>,
    order: &[Node],
    parts: &[Vec<Node>],
) -> Result<PairRepair, Failure> {
    use std::sync::mpsc;
    let fname = &task.student.func(task.s).name;
    let position = |n: &Node| order.iter().position(|m| m == n).unwrap_or(usize::MAX);
    let alignments = job.alignments.clone();
    let mut checks = 0;
    let changes = std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for part in &parts[1..] {
            let (to_worker, commands) = mpsc::channel::<(BTreeMap<VarId, VarId>, bool)>();
            let (replies, from_worker) = mpsc::channel::<(PartResult, usize)>();
            let ws = (job.ws_r.clone(), job.ws_s.clone());
            let handle = scope.spawn(move || part_worker(task, part, ws, commands, replies));
            workers.push((to_worker, from_worker, handle));
        }
        let answer = over_alignments(fname, alignments.len(), task.budget, |turn| {
            for (to_worker, _, _) in &workers {
                // A worker that is gone answers below with an internal failure.
                let _ = to_worker.send((alignments[turn.index].clone(), turn.others_wait));
            }
            job.begin_turn(turn);
            let mut results = vec![job.repair_nodes(&parts[0], task.text)];
            checks += std::mem::take(&mut job.checks);
            for (_, from_worker, _) in &workers {
                let (result, n) = from_worker.recv().unwrap_or((Err((Node::FuncEntry, Failure::Internal)), 0));
                results.push(result);
                checks += n;
            }
            let mut all = Vec::new();
            let mut failure: Option<(Node, Failure)> = None;
            for result in results {
                match result {
                    Ok(changes) => all.extend(changes),
                    Err((node, f)) => {
                        if failure.as_ref().is_none_or(|(m, _)| position(&node) < position(m)) {
                            failure = Some((node, f));
                        }
                    }
                }
            }
            if let Some((_, f)) = failure {
                return Err(f);
            }
            // Node order, and within a node the order its part listed them (the sequential
            // order exactly: each node belongs to one part).
            all.sort_by_key(|(node, _, _)| position(node));
            Ok(all.into_iter().map(|(_, c, e)| (c, e)).collect())
        });
        for (to_worker, from_worker, handle) in workers {
            drop(to_worker);
            drop(from_worker);
            // A panic was answered above as an internal failure.
            let _ = handle.join();
        }
        answer
    })?;
    tracing::debug!("verified repair of `{fname}`: {checks} solver checks in {} parts", parts.len());
    Ok((changes, checks))
}

/// One part's thread: its own context and job (with the whitespace invariants `ws` the first
/// job found), solving `nodes` under each alignment it is sent (and whether another waits after it).
pub(super) fn part_worker(
    task: &PairTask<'_>,
    nodes: &[Node],
    ws: (BTreeSet<Node>, BTreeSet<Node>),
    commands: std::sync::mpsc::Receiver<(BTreeMap<VarId, VarId>, bool)>,
    replies: std::sync::mpsc::Sender<(PartResult, usize)>,
) {
    let ctx = new_context();
    // A job that cannot be set up (the budget ends while it is built) answers every turn with
    // why: gone without a word, it would read as an internal error.
    let refuse = |failure: Failure| {
        for _ in &commands {
            if replies.send((Err((Node::FuncEntry, failure.clone())), 0)).is_err() {
                return;
            }
        }
    };
    let (rs, ss) = match task.sides() {
        Ok(sides) => sides,
        Err(failure) => return refuse(failure),
    };
    let arena = extension_arena(&ss);
    let mut job = match Job::build(&ctx, &rs, &ss, task.opts, task.budget, &arena, Some(ws)) {
        Ok(job) => job,
        Err(failure) => return refuse(failure),
    };
    job.precondition = task.precondition();
    let mut first = true;
    for (alignment, others_wait) in commands {
        // The new job starts with the first alignment (as the sequential one does).
        if !first || alignment != job.align {
            job.set_alignment(alignment);
        }
        first = false;
        job.others_wait = others_wait;
        let result = job.repair_nodes(nodes, task.text);
        if replies.send((result, std::mem::take(&mut job.checks))).is_err() {
            return;
        }
    }
}

/// Functions matched by name and parameter count, else by structure: the entry and every
/// function either side defines must have a counterpart (Section 4.1's node alignment over
/// function entries). A reference function the student does not define by its name is paired
/// with the one student function, under another name, that has its signature (as many
/// parameters, each of a compatible type; a value returned or not) and its loop nesting
/// (`isPrime` for `check_prime`).
pub(super) fn match_functions(
    student: &Program,
    reference: &Program,
    entry: &str,
) -> Result<Vec<(FuncId, FuncId)>, Failure> {
    let defined = |p: &Program| -> Vec<FuncId> {
        (0..p.funcs.len() as u32).map(FuncId).filter(|f| p.func(*f).body.is_some()).collect()
    };
    if reference.func_by_name(entry).is_none() {
        return Err(Failure::StructuralMismatch(format!("the reference has no `{entry}`")));
    }
    let mut pairs = Vec::new();
    let mut by_structure = Vec::new();
    for r in defined(reference) {
        let name = &reference.func(r).name;
        match student.func_by_name(name).filter(|s| student.func(*s).body.is_some()) {
            Some(s) if student.func(s).params.len() == reference.func(r).params.len() => pairs.push((s, r)),
            Some(_) => {
                return Err(Failure::StructuralMismatch(format!(
                    "`{name}` takes a different number of parameters than the reference's"
                )));
            }
            None if name == entry => {
                return Err(Failure::StructuralMismatch(format!(
                    "the reference defines `{name}`, your program does not"
                )));
            }
            None => by_structure.push(r),
        }
    }
    let mut unnamed: Vec<FuncId> =
        defined(student).into_iter().filter(|s| reference.func_by_name(&student.func(*s).name).is_none()).collect();
    for r in by_structure {
        let fits: Vec<FuncId> = unnamed.iter().copied().filter(|s| same_structure(student, *s, reference, r)).collect();
        let name = &reference.func(r).name;
        match fits.as_slice() {
            [s] => {
                tracing::debug!("`{}` matched with the reference's `{name}` by its structure", student.func(*s).name);
                pairs.push((*s, r));
                unnamed.retain(|x| x != s);
            }
            [] => {
                return Err(Failure::StructuralMismatch(format!(
                    "the reference defines `{name}`; no function of yours has its name, or its parameters and loops"
                )));
            }
            _ => {
                return Err(Failure::StructuralMismatch(format!(
                    "the reference defines `{name}`; several of your functions have its parameters and loops"
                )));
            }
        }
    }
    if let Some(s) = unnamed.first() {
        return Err(Failure::StructuralMismatch(format!(
            "your function `{}` has no counterpart in the reference",
            student.func(*s).name
        )));
    }
    // The entry first: its repair is the one a student reads first.
    pairs.sort_by_key(|(_, r)| reference.func(*r).name != entry);
    Ok(pairs)
}

/// The same signature (as many parameters, pairwise of equal or both of arithmetic types; a
/// value returned by both or neither) and the same loop nesting.
pub(super) fn same_structure(student: &Program, s: FuncId, reference: &Program, r: FuncId) -> bool {
    let (fs, fr) = (student.func(s), reference.func(r));
    let compatible = |a: &Type, b: &Type| a == b || (a.is_arithmetic() && b.is_arithmetic());
    let params = fs.params.len() == fr.params.len()
        && fs.params.iter().zip(&fr.params).all(|(a, b)| compatible(&student.var(*a).ty, &reference.var(*b).ty));
    let returns = (fs.ret == Type::Void) == (fr.ret == Type::Void);
    params && returns && matches!((LoopTree::of(fs), LoopTree::of(fr)), (Some(a), Some(b)) if a.same_shape(&b))
}
