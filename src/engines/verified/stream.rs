//! The input models of the region encoding ([`super::region`]) and what the verified engine
//! needs to know of them before it compares two programs.
//!
//! A program reads its input one of two ways, and the two are never mixed:
//!
//! * **Tokens** (`scanf("%d")`, `%f`, `" %c"`, ...): position `k` is the `k`-th token; the value
//!   read there is `in.int(k)` / `in.dbl(k)` / `in.chr(k)`, a `%s` word `in.wlen(k)` bytes
//!   `in.wchr(k, j)`; every read succeeds (the input holds
//!   enough tokens). The `values` comparison's prompt cut then needs every read to be a
//!   top-level `scanf(...);` statement (the engine's `prompts`).
//! * **Characters** (`scanf("%c", &c)` whose format is nothing but `%c` directives, and
//!   `getchar()`): position = the index of the next character; `in.len` is the length of the
//!   input, shared by both programs; a read at `pos < in.len` gives the byte `in.chr(pos)` and
//!   advances by one; at `pos >= in.len` it fails as glibc's does: `scanf` stops, leaves its
//!   variable unchanged and returns `EOF` (-1) when nothing was assigned (else the number
//!   assigned), `getchar` returns -1. A `%c` read stores one byte into its variable (into an
//!   `int` only the low byte changes, as gcc lays it out).
//!
//! A program with both kinds of read, or a student reading the other kind than the
//! reference, is [`Unsupported`]: positions would count different things.
//!
//! **The line assumption** (character programs only): the input contains a `'\n'`, i.e. there
//! is a position `in.nl < in.len` with `in.chr(in.nl) = '\n'`. Programs that read "up to the
//! end of the line" loop forever on an input without a newline (`while (c != '\n') c =
//! getchar();` sees -1 for ever), and the assignment promises a line; so for character
//! programs "verified" means *for every input that contains a newline* (any bytes, any length,
//! anything after the newline). The assumption is what [`line_invariant`] builds on: at loop
//! nodes where it is inductive, `pos <= in.nl` (no newline consumed yet, or exactly up to the
//! chosen one) is part of the node's pre-state, and every edge into such a node must establish
//! it again (the region's `obligations`).
//!
//! **Every number read is there** (token programs): a `scanf` of numbers reads the token at
//! its position, whatever the position; the model has no end of input. So for token programs
//! "verified" means *for every input that holds every number the two programs read*: an input
//! that runs out first (a count `n` followed by fewer than `n` numbers) is outside it, as an
//! input without a newline is for character programs. The gcc oracle of the benches and
//! fixtures leaves such generated inputs out. A loop that uses the value `scanf` returns
//! (`while (scanf("%d", &x) == 1)`) asks whether the input ran out, which this model never
//! says: it would never end in it, and a proof would cover no input at all. Both executors
//! report it unsupported (`smt::encode::SCANF_VALUE_USED`); outside loops in `main` the value
//! only checks a fixed number of reads (`if (scanf("%d", &n) != 1)`), which succeed here.
//!
//! **The prompt cut for characters** (`values` mode, [`char_prompts`]): the output compared is
//! what a program prints after its last *successful* read. With `first`/`last` the first and
//! last top-level statements of `main` that contain a read: every print in a statement before
//! `first` is a prompt (not compared), a print in `first..=last` is unsupported (it may come
//! before or after the last successful read, depending on the input), and every print after
//! `last` is compared (no read follows it). Prompts are cut off only when some read succeeds:
//! [`prepare`] proves that the reference reads at least one character before it returns (under
//! the line assumption), and lockstep then gives the student the same position at the exit.

use std::collections::{BTreeSet, HashSet};

use z3::ast::{Ast, BV, Bool};
use z3::{Context, Solver};

use crate::ir::ExprId;
use crate::ir::cfa::Node;
use crate::ir::format::{self as cfmt, Piece};
use crate::ir::{Builtin, Callee, Expr, ExprKind, FuncId, Program, Span, Stmt, StmtKind};
use crate::spec::compare::Compare;

use super::region::{Exec, Region, Setup, Unsupported, World};

pub use crate::smt::encode::{Read, char_format, read_of};

/// How a function reads its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    None,
    Tokens,
    Chars,
}

/// What one read takes, finer than [`Read`]: a `scanf` of text only (`%s` words, `%[...]`
/// sets, `%c` after white space or beside them) can be read from either model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadKind {
    /// `getchar`, `fgets`, a format of `%c` directives only.
    Chars,
    /// Text directives; `set`: one is a `%[...]`, which only the character model reads.
    Text { set: bool },
    /// Numbers (and anything else).
    Tokens,
}

fn read_kind(e: &Expr) -> Option<ReadKind> {
    match read_of(e)? {
        Read::Chars => Some(ReadKind::Chars),
        Read::Tokens => {
            let ExprKind::Call(_, args) = &e.strip_implicit().kind else { return Some(ReadKind::Tokens) };
            let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else {
                return Some(ReadKind::Tokens);
            };
            let pieces = cfmt::parse(fmt, true).unwrap_or_default();
            let directives = || pieces.iter().filter_map(|p| if let Piece::Directive(d) = p { Some(d) } else { None });
            Some(if directives().all(|d| matches!(d.conv, 'c' | 's' | '[')) {
                ReadKind::Text { set: directives().any(|d| d.conv == '[') }
            } else {
                ReadKind::Tokens
            })
        }
    }
}

fn reads_in(s: &Stmt) -> Vec<(ReadKind, Span)> {
    let mut out = Vec::new();
    crate::ir::walk::walk_stmt(s, &mut |e| {
        if let Some(r) = read_kind(e) {
            out.push((r, e.span));
        }
    });
    out
}

/// The input model of function `f`; characters and numbers in one function is unsupported.
/// Text reads (`%s`, ` %c`) are tokens unless the function also reads characters or a
/// `%[...]` set (the token model has no place for the bytes a set leaves unread), or the
/// function it is compared with reads characters ([`pair_inputs`]).
pub fn input_kind(p: &Program, f: FuncId) -> Result<Input, Unsupported> {
    let Some(body) = &p.func(f).body else { return Ok(Input::None) };
    let reads = reads_in(body);
    let chars = reads.iter().find(|(r, _)| *r == ReadKind::Chars);
    let tokens = reads.iter().find(|(r, _)| *r == ReadKind::Tokens);
    let set = reads.iter().any(|(r, _)| *r == ReadKind::Text { set: true });
    match (chars, tokens) {
        (Some(c), Some(t)) => Err(Unsupported {
            what: "reading characters (`%c`, `getchar`, `fgets`) and numbers (`%d`, `%f`, ...) in one program".into(),
            span: if c.1.start > t.1.start { c.1 } else { t.1 },
        }),
        (Some(_), None) => Ok(Input::Chars),
        (None, None) if set => Ok(Input::Chars),
        // See `SCANF_VALUE_USED`.
        (None, _) if !reads.is_empty() => match crate::ir::walk::scanf_value_used(body, p.func(f).name != "main") {
            Some(span) => Err(Unsupported { what: crate::smt::encode::SCANF_VALUE_USED.into(), span }),
            None => Ok(Input::Tokens),
        },
        (None, _) => Ok(Input::None),
    }
}

/// The input models of a reference function and the student's function compared with it:
/// each its own ([`input_kind`]), except that a function reading only text (`%s` words)
/// beside one that reads characters reads characters too, so that both positions count
/// bytes (a student's `scanf("%s", s)` for the reference's `fgets`).
pub fn pair_inputs(
    reference: &Program,
    rf: FuncId,
    student: &Program,
    sf: FuncId,
) -> Result<(Input, Input), Unsupported> {
    let (rk, sk) = (input_kind(reference, rf)?, input_kind(student, sf)?);
    let text_only = |p: &Program, f: FuncId| {
        p.func(f).body.as_ref().is_some_and(|b| reads_in(b).iter().all(|(r, _)| matches!(r, ReadKind::Text { .. })))
    };
    Ok(match (rk, sk) {
        (Input::Chars, Input::Tokens) if text_only(student, sf) => (Input::Chars, Input::Chars),
        (Input::Tokens, Input::Chars) if text_only(reference, rf) => (Input::Chars, Input::Chars),
        other => other,
    })
}

/// The first `scanf` of `f` with a `%s` directive.
fn word_read(p: &Program, f: FuncId) -> Option<Span> {
    let mut found = None;
    crate::ir::walk::walk_stmt(p.func(f).body.as_ref()?, &mut |e| {
        if let ExprKind::Call(Callee::Builtin(Builtin::Scanf), args) = &e.kind
            && let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind)
            && cfmt::parse(fmt, true)
                .is_ok_and(|ps| ps.iter().any(|p| matches!(p, Piece::Directive(d) if d.conv == 's')))
        {
            found.get_or_insert(e.span);
        }
    });
    found
}

fn top_level(p: &Program, f: FuncId) -> &[Stmt] {
    match p.func(f).body.as_ref().map(|b| &b.kind) {
        Some(StmtKind::Block(stmts)) => stmts,
        _ => &[],
    }
}

/// The first and last top-level statements of `f` that read.
fn read_bounds(stmts: &[Stmt]) -> Option<(usize, usize)> {
    let reads = |s: &Stmt| !reads_in(s).is_empty();
    Some((stmts.iter().position(reads)?, stmts.iter().rposition(reads)?))
}

/// The source range from the first to the end of the last top-level statement that reads
/// characters: output printed there may precede a successful read, so nothing compared may be
/// printed (or added) there.
pub fn reading_range(p: &Program, f: FuncId, input: Input) -> Option<Span> {
    if input != Input::Chars {
        return None;
    }
    let stmts = top_level(p, f);
    let (first, last) = read_bounds(stmts)?;
    Some(Span { start: stmts[first].span.start, end: stmts[last].span.end })
}

fn is_print(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(Callee::Builtin(b), _) if b.writes_output())
}

/// `values` mode, character programs: the prints before the first statement that reads are
/// prompts; a print among the statements that read is unsupported (see the module doc).
pub fn char_prompts(p: &Program, f: FuncId) -> Result<HashSet<ExprId>, Unsupported> {
    let mut out = HashSet::new();
    let stmts = top_level(p, f);
    let Some((first, last)) = read_bounds(stmts) else { return Ok(out) };
    for s in &stmts[..first] {
        crate::ir::walk::walk_stmt(s, &mut |e| {
            if is_print(e) {
                out.insert(e.id);
            }
        });
    }
    for s in &stmts[first..=last] {
        let mut print = None;
        crate::ir::walk::walk_stmt(s, &mut |e| {
            if is_print(e) {
                print.get_or_insert(e.span);
            }
        });
        if let Some(span) = print {
            return Err(Unsupported { what: "printing between character reads".into(), span });
        }
    }
    Ok(out)
}

/// Before two programs are compared: both read the same kind of input; for character input,
/// each program's line invariant (stored in its setup), and in `values` mode the proof that the
/// reference reads a character before it returns (so the prompts are cut off).
pub fn prepare(ctx: &Context, r: &mut Setup<'_>, s: &mut Setup<'_>) -> Result<(), Unsupported> {
    let (rk, sk) = (r.input, s.input);
    let first_read = |setup: &Setup<'_>| {
        setup.program.func(setup.func).body.as_ref().and_then(|b| reads_in(b).first().map(|(_, sp)| *sp))
    };
    match (rk, sk) {
        (Input::Chars, Input::Tokens) => {
            if let Some(span) = word_read(s.program, s.func) {
                // Words beside numbers: the numbers would have to be read from the characters.
                return Err(Unsupported { what: "reading words and numbers with `scanf` where the reference reads characters (`fgets`, `getchar`, `%c`)".into(), span });
            }
            return Err(Unsupported {
                what: "reading numbers where the reference reads characters (`fgets`, `getchar`, `%c`)".into(),
                span: first_read(s).unwrap_or_default(),
            });
        }
        (Input::Tokens, Input::Chars) => {
            return Err(Unsupported {
                what: "reading single characters where the reference reads numbers".into(),
                span: first_read(s).unwrap_or_default(),
            });
        }
        _ => {}
    }
    if rk != Input::Chars && sk != Input::Chars {
        return Ok(());
    }
    r.line = line_invariant(ctx, r)?;
    s.line = line_invariant(ctx, s)?;
    if r.compare == Compare::Values && rk == Input::Chars && !reads_before_exit(ctx, r)? {
        return Err(Unsupported {
            what: "a reference that may finish without reading a character (its prompt would be compared)".into(),
            span: first_read(r).unwrap_or_default(),
        });
    }
    Ok(())
}

/// The facts that make the white space skips of a region exact on the bytes it reads: a
/// byte read at a position from where a skip starts up to where it ends is white space.
/// Every other byte of the input is free, so a space there is consistent with every skip:
/// with these facts a model of the region is a real input's (no quantifier needed).
pub fn skip_facts<'ctx>(ctx: &'ctx Context, world: &World<'_, 'ctx>, r: &Region<'_, 'ctx>) -> Vec<Bool<'ctx>> {
    skips_over(ctx, world, &r.skips, &r.chars_read)
}

/// [`skip_facts`] across two regions compared: each one's skips over the other's bytes.
pub fn cross_skip_facts<'ctx>(
    ctx: &'ctx Context,
    world: &World<'_, 'ctx>,
    a: &Region<'_, 'ctx>,
    b: &Region<'_, 'ctx>,
) -> Vec<Bool<'ctx>> {
    let mut out = skips_over(ctx, world, &a.skips, &b.chars_read);
    out.extend(skips_over(ctx, world, &b.skips, &a.chars_read));
    out
}

fn skips_over<'ctx>(
    ctx: &'ctx Context,
    world: &World<'_, 'ctx>,
    skips: &[(BV<'ctx>, BV<'ctx>)],
    read: &[BV<'ctx>],
) -> Vec<Bool<'ctx>> {
    let mut out = Vec::new();
    for (from, to) in skips {
        for at in read {
            let between = Bool::and(ctx, &[&from.bvule(at), &at.bvult(to)]);
            let fact = between.implies(&crate::smt::scan::c_space(ctx, &world.char_at(at))).simplify();
            if fact.as_bool() != Some(true) {
                out.push(fact);
            }
        }
    }
    out
}

fn zero<'ctx>(ctx: &'ctx Context) -> BV<'ctx> {
    BV::from_u64(ctx, 0, 32)
}

fn loop_nodes(setup: &Setup<'_>) -> BTreeSet<Node> {
    setup.tree.nodes().into_iter().filter(|n| matches!(n, Node::LoopEntry(_) | Node::LoopExit(_))).collect()
}

/// "The exit can break `holds`": satisfiable under the region's assumptions.
fn can_break<'ctx>(
    ctx: &'ctx Context,
    budget: &crate::smt::Budget,
    assumed: &[Bool<'ctx>],
    pre: &[Bool<'ctx>],
    guard: &Bool<'ctx>,
    holds: &Bool<'ctx>,
) -> bool {
    let solver = Solver::new(ctx);
    for a in assumed.iter().chain(pre) {
        solver.assert(a);
    }
    solver.assert(guard);
    solver.assert(&holds.not());
    // Under the job's budget: an unknown counts as "can break" (sound, only weaker).
    !crate::smt::check_interruptible(&solver, budget).is_unsat()
}

/// The loop nodes where `pos <= in.nl` holds inductively (Houdini: start from every loop node,
/// drop each node some edge may reach with `pos > in.nl`, until nothing changes). Any set is
/// sound, the checks prove it as part of each node's verification; this one holds at the loop
/// that reads up to the newline, which is what stops a `while (c != '\n')` loop.
pub fn line_invariant(ctx: &Context, setup: &Setup<'_>) -> Result<BTreeSet<Node>, Unsupported> {
    if !setup.line_in_input {
        return Ok(BTreeSet::new());
    }
    let nodes: Vec<Node> = setup.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect();
    let mut inv = loop_nodes(setup);
    let world = World::new(ctx);
    loop {
        let mut trial = setup.clone();
        trial.line = inv.clone();
        let mut dropped = false;
        for &u in &nodes {
            let mut pre = Exec::fresh_state(ctx, setup, "line.")?;
            if u == Node::FuncEntry {
                pre.in_pos = zero(ctx);
            }
            // The region assumes the invariant at `u` when `u` is in the trial set.
            let reg = Exec::new(&trial, &world, None).run(u, pre)?;
            for e in &reg.exits {
                if inv.contains(&e.to)
                    && can_break(
                        ctx,
                        &setup.budget,
                        &reg.assumed,
                        &[],
                        &e.state.guard,
                        &e.state.in_pos.bvule(&world.nl()),
                    )
                {
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

/// Whether every way `setup`'s function returns has read at least one character (`pos != 0`
/// at every edge into Func-Exit), with `pos != 0` as a Houdini invariant at loop nodes.
fn reads_before_exit<'ctx>(ctx: &'ctx Context, setup: &Setup<'_>) -> Result<bool, Unsupported> {
    let nodes: Vec<Node> = setup.tree.nodes().into_iter().filter(|n| *n != Node::FuncExit).collect();
    let mut inv = loop_nodes(setup);
    let world = World::new(ctx);
    loop {
        let mut dropped = false;
        for &u in &nodes {
            let mut pre = Exec::fresh_state(ctx, setup, "read.")?;
            if u == Node::FuncEntry {
                pre.in_pos = zero(ctx);
            }
            let assume: Vec<Bool<'ctx>> =
                if inv.contains(&u) { vec![pre.in_pos._eq(&zero(ctx)).not()] } else { Vec::new() };
            let reg = Exec::new(setup, &world, None).run(u, pre)?;
            for e in &reg.exits {
                let must = e.to == Node::FuncExit;
                if (must || inv.contains(&e.to))
                    && can_break(
                        ctx,
                        &setup.budget,
                        &reg.assumed,
                        &assume,
                        &e.state.guard,
                        &e.state.in_pos._eq(&zero(ctx)).not(),
                    )
                {
                    if must {
                        return Ok(false);
                    }
                    inv.remove(&e.to);
                    dropped = true;
                }
            }
        }
        if !dropped {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests;
