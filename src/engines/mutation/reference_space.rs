//! The reference's expressions as alternatives of the mutation search (bounded
//! product-program repair, [`super::engine::Options::reference`]).
//!
//! The bounded repair against a reference is the fallback of the verified engine, so it runs
//! exactly where no structural alignment exists (other loop nesting, a missing loop or
//! function, extra early returns) or the verified engine's space held no repair. The
//! catalogue's operators rarely hold the fix a student needs then: a condition of the
//! reference, a value the reference computes. This module adds, per location, the reference's
//! expressions of the same kind renamed into the student's variables:
//! - for a condition: the reference's conditions, and the operands of `&&`/`||` in them (and
//!   the conditions of its `?:`);
//! - for a value (right side of `x = e`, initialiser, printed or returned value, argument):
//!   the reference's assigned values, initialisers, printed and returned values and call
//!   arguments; the right side of `x op= e` takes the reference's `op=` right sides only;
//! - for the statement repairs ([`super::statements`]): the reference's expression statements
//!   (assignments, prints), effects allowed but reads, and its special cases (an `if` whose
//!   body is such statements, perhaps ending in `return`).
//!
//! **Variable mapping.** There is no automaton alignment here, so the mapping is built from the
//! two whole functions of the same name: parameters by position; the k-th variable read by
//! `scanf` in each (the k-th input is the same token for both programs, so these agree right
//! after the read); a variable of the same name and type; Verifix's one-to-one matching by
//! usage distance (`verified::align`, with the whole function as one region); then every other
//! student variable whose usage distance is within [`MARGIN`] of the best. A variable the
//! reference reads as its k-th where the student reads fewer than k variables (into an array,
//! or one variable in a loop) gets only a namesake. A reference variable
//! keeps at most [`MAX_PARTNERS`] partners, best first, and an expression is offered under the
//! combinations of partners closest to the best one (at most [`MAX_RENAMINGS`], each mapping
//! distinct reference variables to distinct student variables). An expression using a variable
//! without a partner, a function the student does not define, or anything with side effects is
//! not offered.
//!
//! **Edits.** An alternative's text is the printed C of the renamed expression
//! ([`crate::ir::print::expr_to_c`]), inside the location's parentheses when the location's
//! text has them (an `if`'s condition); its edit replaces only the tokens that differ (common
//! leading and trailing tokens stay as the student wrote them). The edit is applied and the
//! program lowered again: the alternative *is* the lowered program's expression at that
//! location, offered only when the text lowers without errors, prints as intended, uses the
//! student's variables and has the location's type. So the encoded alternative and the text a
//! repair applies agree by construction, implicit conversions included.
//!
//! **Order and bound.** At most [`MAX_PER_LOCATION`] per location, the ones closest to the
//! original first (token edit distance: the likely fix is a small change), then in the
//! reference's order. One the catalogue already has (same printed expression) is the
//! catalogue's mutant, with its smaller edit. The engine puts them at the head of the
//! location's list, before the catalogue's others: the search (AllRepair's order: size, then
//! location suspiciousness, then the alternative's index) tries them first at each location,
//! and minimality in the number of changed locations is untouched. (Trying every location's
//! reference alternatives before any catalogue mutant was measured too: where the mapping is
//! poor, e.g. a reference without loops against a student's sorting loops, its candidates
//! exhaust the solver's first-pass cap one after another and starve the catalogue's fix.)

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::engines::verified::align;
use crate::engines::verified::region::Usage;
use crate::ir::cfa::Node;
use crate::ir::print::expr_to_c;
use crate::ir::token_edit::{minimal_edit, tokens};
use crate::ir::walk::{children_mut, walk_expr, walk_stmt};
use crate::ir::*;
use crate::smt::encode::{self, Location, LocationKind};

use super::catalogue::{Mutant, MutationKind};

/// Reference alternatives per location (the catalogue's level 1 has ~2–6 per location).
pub const MAX_PER_LOCATION: usize = 12;
/// Student partners kept per reference variable.
pub const MAX_PARTNERS: usize = 3;
/// Renamings of one reference expression.
pub const MAX_RENAMINGS: usize = 4;
/// A student variable whose usage distance to a reference variable is within this of the
/// best one's is a plausible partner (distances are in [0, 1], +0.5 for another type).
pub const MARGIN: f64 = 0.25;

/// One alternative of a location drawn from the reference.
#[derive(Debug)]
pub enum Pick {
    /// A new alternative (kind [`MutationKind::ReferenceExpression`]).
    New(Mutant),
    /// The catalogue's mutant at this index gives the same expression.
    Catalogue(usize),
}

/// The reference's expressions, renamed into the student's variables, per student function.
pub struct ReferenceSpace<'a> {
    student: &'a Program,
    src: &'a str,
    frozen: &'a HashSet<String>,
    pools: HashMap<FuncId, Pool>,
}

/// Printed C of renamed reference expressions, by kind, deduplicated, in the reference's order.
#[derive(Debug, Default)]
struct Pool {
    conds: Vec<String>,
    values: Vec<String>,
    /// Compound assignments `x op= e`.
    compound: Vec<String>,
    /// Expression statements, with their `;`.
    statements: Vec<String>,
}

impl Pool {
    fn push(list: &mut Vec<String>, texts: Vec<String>) {
        for t in texts {
            if !list.contains(&t) {
                list.push(t);
            }
        }
    }
}

impl<'a> ReferenceSpace<'a> {
    /// The space for `student` (its source `src`) against `reference`; functions in `frozen`
    /// get nothing.
    pub fn new(student: &'a Program, src: &'a str, reference: &Program, frozen: &'a HashSet<String>) -> Self {
        let ref_locations = encode::locations(reference, &HashSet::new());
        let mut pools = HashMap::new();
        for (i, sf) in student.funcs.iter().enumerate() {
            let sid = FuncId(i as u32);
            if sf.body.is_none() || frozen.contains(&sf.name) {
                continue;
            }
            let Some(rid) = reference.func_by_name(&sf.name) else { continue };
            if reference.func(rid).body.is_none() {
                continue;
            }
            let partners = partners(student, sid, reference, rid);
            let renamed = |e: &Expr| -> Vec<String> {
                renamings(student, reference, e, &partners, false).iter().map(|r| expr_to_c(student, r)).collect()
            };
            let mut pool = Pool::default();
            for loc in ref_locations.iter().filter(|l| l.func == rid) {
                match loc.kind {
                    LocationKind::Condition => {
                        for c in subconditions(&loc.expr) {
                            Pool::push(&mut pool.conds, renamed(c));
                        }
                    }
                    // Renamed whole, so that each alternative keeps the target the reference
                    // gives it (its right side admitted as any value is).
                    LocationKind::Assign if let ExprKind::CompoundAssign { rhs, .. } = &loc.expr.kind => {
                        if !renamings(student, reference, rhs, &partners, false).is_empty() {
                            let whole = renamings(student, reference, &loc.expr, &partners, true);
                            Pool::push(&mut pool.compound, whole.iter().map(|r| expr_to_c(student, r)).collect());
                        }
                    }
                    LocationKind::Assign | LocationKind::Init | LocationKind::Return | LocationKind::Arg => {
                        Pool::push(&mut pool.values, renamed(&loc.expr));
                        walk_expr(&loc.expr, &mut |x| {
                            if let ExprKind::Cond(c, _, _) = &x.kind {
                                Pool::push(&mut pool.conds, renamed(c));
                            }
                        });
                    }
                    LocationKind::Update | LocationKind::Target | LocationKind::Statement => {}
                }
            }
            if let Some(body) = &reference.func(rid).body {
                crate::ir::walk::for_each_stmt(body, &mut |st| {
                    if let StmtKind::Expr(e) = &st.kind {
                        let texts = renamings(student, reference, e, &partners, true)
                            .iter()
                            .map(|r| format!("{};", expr_to_c(student, r)))
                            .collect();
                        Pool::push(&mut pool.statements, texts);
                    }
                    Pool::push(&mut pool.statements, guarded_statements(student, reference, st, &partners));
                });
            }
            pools.insert(sid, pool);
        }
        ReferenceSpace { student, src, frozen, pools }
    }

    /// The reference's conditions (and the operands of their `&&`/`||`), renamed into the
    /// student function `func`'s variables, in the reference's order.
    pub fn conditions(&self, func: FuncId) -> &[String] {
        self.pools.get(&func).map_or(&[], |p| p.conds.as_slice())
    }

    /// The expression statements of the reference's function of the same name, renamed into
    /// `func`'s variables, in the reference's order.
    pub fn statements(&self, func: FuncId) -> &[String] {
        self.pools.get(&func).map_or(&[], |p| p.statements.as_slice())
    }

    /// The reference's alternatives for `loc`, best first, at most [`MAX_PER_LOCATION`];
    /// `catalogue` is the location's catalogue mutants (an expression they already give is
    /// returned as [`Pick::Catalogue`]).
    pub fn picks(&self, loc: &Location, catalogue: &[Mutant]) -> Vec<Pick> {
        let Some(pool) = self.pools.get(&loc.func) else { return Vec::new() };
        let texts: Vec<&String> = match (loc.kind, &loc.expr.kind) {
            (LocationKind::Condition, _) => pool.conds.iter().collect(),
            // The reference's compound assignments to the same target (printed `x op= e`).
            (LocationKind::Assign, ExprKind::CompoundAssign { lhs, .. }) => {
                let target = format!("{} ", expr_to_c(self.student, lhs));
                pool.compound.iter().filter(|t| t.starts_with(&target)).collect()
            }
            (LocationKind::Assign | LocationKind::Init | LocationKind::Return | LocationKind::Arg, _) => {
                pool.values.iter().collect()
            }
            (LocationKind::Update | LocationKind::Target | LocationKind::Statement, _) => return Vec::new(),
        };
        let original = expr_to_c(self.student, &loc.expr);
        let from = tokens(&original);
        let mut ranked: Vec<(usize, usize, &String)> = texts
            .into_iter()
            .enumerate()
            .filter(|(_, t)| **t != original)
            .map(|(i, t)| (token_distance(&original, &from, t), i, t))
            .collect();
        ranked.sort();
        let known: Vec<String> = catalogue.iter().map(|m| expr_to_c(self.student, &m.expr)).collect();
        let mut out = Vec::new();
        for (_, _, text) in ranked {
            if out.len() == MAX_PER_LOCATION {
                break;
            }
            match known.iter().position(|k| k == text) {
                Some(k) => out.push(Pick::Catalogue(k)),
                None => out.extend(self.mutant(loc, text).map(Pick::New)),
            }
        }
        out
    }

    /// `loc`'s expression replaced by the one `text` lowers to, with its edit, if it lowers to
    /// exactly that (see the module's "Edits").
    fn mutant(&self, loc: &Location, text: &str) -> Option<Mutant> {
        let old = self.src.get(loc.span.range())?;
        let new = if parenthesized(old) { format!("({text})") } else { text.to_string() };
        let start = loc.span.start as usize;
        let whole = TextEdit { span: loc.span, new_text: new.clone() };
        let minimal = minimal_edit(old, &new, start);
        let (edit, mut expr) =
            [minimal, whole].into_iter().find_map(|e| self.lowers_to(loc, &e, text).map(|x| (e, x)))?;
        respan(&mut expr, loc.span);
        Some(Mutant {
            expr,
            kind: MutationKind::ReferenceExpression,
            edit,
            description: format!("`{old}` → `{new}` (as in the reference)"),
        })
    }

    /// The expression at `loc` after `edit`, if the edited program lowers without errors and
    /// that expression prints as `text`, has `loc`'s kind and type, and names the student's
    /// variables and functions by their ids.
    fn lowers_to(&self, loc: &Location, edit: &TextEdit, text: &str) -> Option<Expr> {
        let patched = apply_edits(self.src, std::slice::from_ref(edit));
        let p = &crate::syntax::lower::lower_without_errors(&patched)?;
        let at = encode::locations(p, self.frozen).into_iter().nth(loc.id.0 as usize)?;
        if at.kind != loc.kind
            || at.span.start != loc.span.start
            || at.expr.ty != loc.expr.ty
            || expr_to_c(p, &at.expr) != text
        {
            return None;
        }
        let s = self.student;
        let mut same = true;
        walk_expr(&at.expr, &mut |x| match &x.kind {
            ExprKind::Var(v) => {
                same &= s.vars.get(v.0 as usize).is_some_and(|w| {
                    let u = p.var(*v);
                    (&u.name, &u.ty, u.func) == (&w.name, &w.ty, w.func)
                })
            }
            ExprKind::Call(Callee::Func(f), _) => {
                same &= s.funcs.get(f.0 as usize).is_some_and(|g| g.name == p.func(*f).name)
            }
            _ => {}
        });
        same.then_some(at.expr)
    }
}

/// Every node of `e` at `span` (the location's: the alternative replaces it as a whole).
fn respan(e: &mut Expr, span: Span) {
    e.span = span;
    for c in children_mut(e) {
        respan(c, span);
    }
}

/// A condition and its sub-conditions: the operands of `&&`/`||`, nested ones included.
fn subconditions(e: &Expr) -> Vec<&Expr> {
    let mut out = vec![e];
    if let ExprKind::Logical(_, a, b) = &e.strip_implicit().kind {
        out.extend(subconditions(a));
        out.extend(subconditions(b));
    }
    out
}

/// Whether `text` is `( ... )` with the first parenthesis closed by the last.
fn parenthesized(text: &str) -> bool {
    crate::ir::print::is_parenthesised(text.trim())
}

/// The student variables each reference variable of `rf` may stand for in `sf`, best first
/// (see the module's "Variable mapping"). Globals map to globals of the same name and type.
fn partners(student: &Program, sf: FuncId, reference: &Program, rf: FuncId) -> BTreeMap<VarId, Vec<VarId>> {
    let (s_fn, r_fn) = (student.func(sf), reference.func(rf));
    let scalars = |p: &Program, f: FuncId| variables_of(p, f, Type::is_arithmetic);
    let (rv, sv) = (scalars(reference, rf), scalars(student, sf));
    let (ru, su) = (usage(r_fn), usage(s_fn));
    let (rt, st) =
        (align::table(&[(Node::FuncEntry, ru.as_slice())]), align::table(&[(Node::FuncEntry, su.as_slice())]));
    let best = align::candidates(
        &align::Vars { program: reference, vars: &rv, params: &r_fn.params, usage: &rt, reads: &[] },
        &align::Vars { program: student, vars: &sv, params: &s_fn.params, usage: &st, reads: &[] },
        1,
    )
    .swap_remove(0);
    let (r_read, s_read) = (scanned(r_fn), scanned(student.func(sf)));
    let (r_use, s_use) = (rt.get(&Node::FuncEntry), st.get(&Node::FuncEntry));
    // Verifix's pair score: usage distance, another type costs more, the same name less.
    let score = |r: VarId, s: VarId| {
        align::pair_cost(
            align::distance(r_use.and_then(|m| m.get(&r)), s_use.and_then(|m| m.get(&s))),
            reference.var(r),
            student.var(s),
        )
    };
    let mut out = BTreeMap::new();
    for &r in &rv {
        let x = reference.var(r);
        let mut list: Vec<VarId> = Vec::new();
        if let Some(k) = r_fn.params.iter().position(|p| *p == r) {
            // The signature fixes a parameter's partner.
            list.extend(s_fn.params.get(k).filter(|s| student.var(**s).ty.is_arithmetic()));
            out.insert(r, list);
            continue;
        }
        let locals: Vec<VarId> = sv.iter().copied().filter(|s| !s_fn.params.contains(s)).collect();
        let read_at = r_read.iter().position(|v| *v == r);
        if let Some(k) = read_at {
            list.extend(s_read.get(k).filter(|s| locals.contains(s)));
        }
        list.extend(locals.iter().find(|s| student.var(**s).name == x.name && student.var(**s).ty == x.ty));
        // A variable the reference reads as its k-th where the student reads fewer variables
        // (into an array, or one variable in a loop) has no scalar counterpart but a namesake.
        if read_at.is_none_or(|k| k < s_read.len()) {
            list.extend(best.get(&r).filter(|s| locals.contains(s)));
            list.extend(closest(&locals, |s| score(r, s)));
        }
        out.insert(r, partner_list(list));
    }
    // Pointer variables (list and string code) are matched by type: the parameter at the same
    // position, a namesake, then the locals closest in usage.
    let pointers = |p: &Program, f: FuncId| variables_of(p, f, |t| matches!(t, Type::Pointer(_)));
    let student_pointers = pointers(student, sf);
    for r in pointers(reference, rf) {
        let x = reference.var(r);
        let same_type = |s: &VarId| student.var(*s).ty == x.ty;
        let mut list: Vec<VarId> = Vec::new();
        if let Some(k) = r_fn.params.iter().position(|p| *p == r) {
            list.extend(s_fn.params.get(k).filter(|s| same_type(s)));
            out.insert(r, list);
            continue;
        }
        let locals: Vec<VarId> =
            student_pointers.iter().copied().filter(|s| !s_fn.params.contains(s) && same_type(s)).collect();
        list.extend(locals.iter().find(|s| student.var(**s).name == x.name));
        list.extend(closest(&locals, |s| score(r, s)));
        out.insert(r, partner_list(list));
    }
    // Arrays (the lists of an array course) by element type: a namesake, then the student's
    // arrays of that element type in the order they are declared.
    let arrays = |p: &Program, f: FuncId| variables_of(p, f, |t| matches!(t, Type::Array(..)));
    let element = |t: &Type| match t {
        Type::Array(e, _) => Some((**e).clone()),
        _ => None,
    };
    let student_arrays = arrays(student, sf);
    for r in arrays(reference, rf) {
        let x = reference.var(r);
        let same: Vec<VarId> =
            student_arrays.iter().copied().filter(|s| element(&student.var(*s).ty) == element(&x.ty)).collect();
        let mut list: Vec<VarId> = same.iter().copied().filter(|s| student.var(*s).name == x.name).collect();
        list.extend(same);
        out.insert(r, partner_list(list));
    }
    for (i, x) in reference.vars.iter().enumerate() {
        if x.func.is_none()
            && (x.ty.is_arithmetic() || matches!(x.ty, Type::Pointer(_)))
            && let Some(j) = student.vars.iter().position(|y| y.func.is_none() && y.name == x.name && y.ty == x.ty)
        {
            out.insert(VarId(i as u32), vec![VarId(j as u32)]);
        }
    }
    out
}

/// The variables of function `f` (parameters and locals) whose type is `kind`, by id.
fn variables_of(p: &Program, f: FuncId, kind: impl Fn(&Type) -> bool) -> Vec<VarId> {
    (0..p.vars.len() as u32).map(VarId).filter(|v| p.var(*v).func == Some(f) && kind(&p.var(*v).ty)).collect()
}

/// The candidates whose score is within [`MARGIN`] of the best, best first (ties by id).
fn closest(candidates: &[VarId], score: impl Fn(VarId) -> f64) -> Vec<VarId> {
    let mut scored: Vec<(f64, VarId)> = candidates.iter().map(|s| (score(*s), *s)).collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let Some(&(top, _)) = scored.first() else { return Vec::new() };
    scored.into_iter().filter(|(d, _)| *d <= top + MARGIN).map(|(_, s)| s).collect()
}

/// Partners in order of preference, each once, at most [`MAX_PARTNERS`].
fn partner_list(mut list: Vec<VarId>) -> Vec<VarId> {
    let mut seen = HashSet::new();
    list.retain(|s| seen.insert(*s));
    list.truncate(MAX_PARTNERS);
    list
}

/// How `f` uses each variable, occurrence by occurrence (the usage kinds of
/// [`crate::engines::verified::region`], gathered from the syntax of the whole function).
fn usage(f: &Function) -> Vec<(VarId, Usage)> {
    let mut out = Vec::new();
    let Some(body) = &f.body else { return out };
    for_each_decl(body, &mut |v| out.push((v, Usage::Written)));
    // Variables written, or read by `scanf`, at these nodes (not read there).
    let mut targets: HashSet<ExprId> = HashSet::new();
    let var = |x: &Expr| match x.strip_implicit().kind {
        ExprKind::Var(v) => Some((v, x.strip_implicit().id)),
        _ => None,
    };
    walk_stmt(body, &mut |e: &Expr| match &e.kind {
        ExprKind::Var(v) if !targets.contains(&e.id) => out.push((*v, Usage::Read)),
        ExprKind::Assign(l, _) => {
            if let Some((v, at)) = var(l) {
                out.push((v, Usage::Written));
                targets.insert(at);
            }
        }
        ExprKind::CompoundAssign { op, lhs, .. } => {
            if let Some((v, at)) = var(lhs) {
                out.push((v, Usage::Operand(op.c_token())));
                out.push((v, Usage::Written));
                targets.insert(at);
            }
        }
        ExprKind::IncDec(_, t) => {
            if let Some((v, at)) = var(t) {
                out.push((v, Usage::Incremented));
                targets.insert(at);
            }
        }
        ExprKind::Binary(op, a, b) => {
            for o in [a, b] {
                if let Some((v, _)) = var(o) {
                    out.push((v, Usage::Operand(op.c_token())));
                }
            }
        }
        ExprKind::Call(Callee::Builtin(Builtin::Scanf), args) => {
            for a in args.iter().skip(1) {
                if let ExprKind::AddrOf(x) = &a.strip_implicit().kind
                    && let Some((v, at)) = var(x)
                {
                    out.push((v, Usage::Scanned));
                    targets.insert(at);
                }
            }
        }
        ExprKind::Call(Callee::Builtin(Builtin::Printf), args) => {
            for a in args.iter().skip(1) {
                if let Some((v, _)) = var(a) {
                    out.push((v, Usage::Printed));
                }
            }
        }
        _ => {}
    });
    out
}

/// Calls `f` with every variable declared with an initialiser in `s`.
fn for_each_decl(s: &Stmt, f: &mut impl FnMut(VarId)) {
    crate::ir::walk::for_each_stmt(s, &mut |st| {
        if let StmtKind::Decl { var, init: Some(_) } = &st.kind {
            f(*var);
        }
    });
}

/// The variables `f` reads with `scanf`, each once, in the order of their first read.
fn scanned(f: &Function) -> Vec<VarId> {
    let mut out = Vec::new();
    if let Some(body) = &f.body {
        walk_stmt(body, &mut |e: &Expr| {
            if let ExprKind::Call(Callee::Builtin(Builtin::Scanf), args) = &e.kind {
                for a in args.iter().skip(1) {
                    if let ExprKind::AddrOf(x) = &a.strip_implicit().kind
                        && let ExprKind::Var(v) = x.strip_implicit().kind
                        && !out.contains(&v)
                    {
                        out.push(v);
                    }
                }
            }
        });
    }
    out
}

/// A special case of the reference, `if (n < 0) { printf("undefined\n"); return 0; }` or
/// `if (a < 0) a = -a;`, renamed into the student's variables: an `if` without `else` whose
/// condition has no effects and whose body is expression statements, perhaps ending in a
/// `return` or `exit`. (Wolverine2 inserts guarded statements; the special case is the one
/// students most often leave out: a negative number, an empty input, a division by zero.)
/// The condition and the body are renamed as one, so a variable is the same student variable
/// in both.
fn guarded_statements(
    student: &Program,
    reference: &Program,
    st: &Stmt,
    partners: &BTreeMap<VarId, Vec<VarId>>,
) -> Vec<String> {
    let StmtKind::If { cond, then, els: None } = &st.kind else { return Vec::new() };
    if crate::ir::walk::has_effects(cond) {
        return Vec::new();
    }
    let items = match &then.kind {
        StmtKind::Block(items) => items.as_slice(),
        _ => std::slice::from_ref(&**then),
    };
    // The pieces as one expression (`cond, s1, s2, returned`), the return's value last.
    let mut pieces = vec![cond.clone()];
    let mut ends: Option<bool> = None; // Some(has a value) for a `return`
    for (k, item) in items.iter().enumerate() {
        let last = k + 1 == items.len();
        match &item.kind {
            StmtKind::Expr(e) => pieces.push(e.clone()),
            StmtKind::Return(value) if last => {
                ends = Some(value.is_some());
                pieces.extend(value.clone());
            }
            _ => return Vec::new(),
        }
    }
    if pieces.len() < 2 && ends.is_none() {
        return Vec::new();
    }
    let span = st.span;
    let whole = pieces
        .into_iter()
        .rev()
        .reduce(|rest, first| Expr::new(ExprKind::Comma(Box::new(first), Box::new(rest)), Type::Void, span))
        .expect("a condition");
    renamings(student, reference, &whole, partners, true)
        .iter()
        .map(|renamed| {
            let mut pieces = Vec::new();
            let mut e = renamed;
            while let ExprKind::Comma(first, rest) = &e.kind {
                pieces.push(expr_to_c(student, first));
                e = rest;
            }
            pieces.push(expr_to_c(student, e));
            let cond = pieces.remove(0);
            let returned = match ends {
                Some(true) => Some(format!("return {};", pieces.pop().expect("the value returned"))),
                Some(false) => Some("return;".to_string()),
                None => None,
            };
            let mut body: Vec<String> = pieces.into_iter().map(|p| format!("{p};")).collect();
            body.extend(returned);
            match body.as_slice() {
                [one] => format!("if ({cond}) {one}"),
                _ => format!("if ({cond}) {{ {} }}", body.join(" ")),
            }
        })
        .collect()
}

/// `e` renamed into the student's variables and functions, under the combinations of partners
/// closest to the best one: every variable at its best partner, then one at its second or
/// third, then two at their second; only those mapping distinct variables to distinct ones,
/// at most [`MAX_RENAMINGS`]. Nothing when `e` has side effects, reads a variable without a
/// partner, calls a function the student lacks, or uses pointers other than through a struct
/// field (`p->next`, `l.first`: the node reads of list code) or an array element (`v[i]`), or
/// strings. (A program
/// with structs is beyond the bounded encoding anyway: only the search on the tests runs
/// these.) A `statement` (a whole expression statement, `n = n / 10`, `printf("%d\n", m)`,
/// or the pieces of a special case joined by commas, [`guarded_statements`]) may assign,
/// step, print literal text and `exit`, as its point is its effect; it still may not read
/// input.
fn renamings(
    student: &Program,
    reference: &Program,
    e: &Expr,
    partners: &BTreeMap<VarId, Vec<VarId>>,
    statement: bool,
) -> Vec<Expr> {
    let mut vars: Vec<VarId> = Vec::new();
    let mut ok = true;
    walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Var(v) if !vars.contains(v) => vars.push(*v),
        ExprKind::Call(Callee::Func(f), _) => {
            let r = reference.func(*f);
            ok &= student.func_by_name(&r.name).is_some_and(|s| student.func(s).params.len() == r.params.len());
        }
        ExprKind::Call(Callee::Builtin(b), _) => {
            ok &= b.is_pure()
                || (statement && matches!(b, Builtin::Printf | Builtin::Putchar | Builtin::Puts | Builtin::Exit))
        }
        ExprKind::Assign(..)
        | ExprKind::CompoundAssign { .. }
        | ExprKind::IncDec(..)
        | ExprKind::Str(_)
        | ExprKind::Comma(..)
            if statement => {}
        ExprKind::Assign(..)
        | ExprKind::CompoundAssign { .. }
        | ExprKind::IncDec(..)
        | ExprKind::Comma(..)
        | ExprKind::Str(_)
        | ExprKind::SizeOf { .. }
        | ExprKind::AddrOf(_)
        | ExprKind::Deref(_)
        // A row of runtime length reads its hidden length, which has no partner.
        | ExprKind::Row { .. } => ok = false,
        // An element of an array or pointer variable (with a partner, as every variable),
        // `v[i]`, or the array passed on.
        ExprKind::Index(base, _) => ok &= matches!(base.strip_implicit().kind, ExprKind::Var(_)),
        ExprKind::Decay(array) => ok &= matches!(array.kind, ExprKind::Var(_)) || (statement && matches!(array.kind, ExprKind::Str(_))),
        _ => {}
    });
    let lists: Option<Vec<&Vec<VarId>>> = vars.iter().map(|v| partners.get(v).filter(|l| !l.is_empty())).collect();
    let (true, Some(lists)) = (ok, lists) else { return Vec::new() };
    let n = vars.len();
    let mut tuples: Vec<Vec<usize>> = vec![vec![0; n]];
    for j in 0..n {
        for k in 1..lists[j].len() {
            let mut t = vec![0; n];
            t[j] = k;
            tuples.push(t);
        }
    }
    for j in 0..n {
        for l in j + 1..n {
            if lists[j].len() > 1 && lists[l].len() > 1 {
                let mut t = vec![0; n];
                (t[j], t[l]) = (1, 1);
                tuples.push(t);
            }
        }
    }
    tuples.sort_by_key(|t| t.iter().sum::<usize>());
    let mut out = Vec::new();
    for t in tuples {
        let choice: Vec<VarId> = t.iter().zip(&lists).map(|(k, l)| l[*k]).collect();
        if choice.iter().collect::<HashSet<_>>().len() < n {
            continue;
        }
        let map: HashMap<VarId, VarId> = vars.iter().copied().zip(choice).collect();
        let mut r = e.clone();
        rename(&mut r, &map, student, reference);
        out.push(r);
        if out.len() == MAX_RENAMINGS {
            break;
        }
    }
    out
}

fn rename(e: &mut Expr, map: &HashMap<VarId, VarId>, student: &Program, reference: &Program) {
    match &mut e.kind {
        ExprKind::Var(v) => *v = map[v],
        ExprKind::Call(Callee::Func(f), _) => {
            *f = student.func_by_name(&reference.func(*f).name).expect("checked by renamings");
        }
        _ => {}
    }
    for c in children_mut(e) {
        rename(c, map, student, reference);
    }
}

/// Levenshtein distance between the token sequences of `a` (tokenized as `ta`) and `b`.
fn token_distance(a: &str, ta: &[(usize, usize)], b: &str) -> usize {
    let tb = tokens(b);
    let (x, y): (Vec<&str>, Vec<&str>) =
        (ta.iter().map(|r| &a[r.0..r.1]).collect(), tb.iter().map(|r| &b[r.0..r.1]).collect());
    let mut prev: Vec<usize> = (0..=y.len()).collect();
    for i in 1..=x.len() {
        let mut cur = vec![i; y.len() + 1];
        for j in 1..=y.len() {
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + usize::from(x[i - 1] != y[j - 1]));
        }
        prev = cur;
    }
    prev[y.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lower::lower_source;

    #[test]
    fn parentheses_of_the_whole_text() {
        assert!(parenthesized("(a < b)"));
        assert!(parenthesized("((a) < (b))"));
        assert!(!parenthesized("(a) < (b)"));
        assert!(!parenthesized("a < b"));
    }

    const REFERENCE: &str = "#include <stdio.h>\nint main(void) {\n    int num1, num2, num3, small;\n    scanf(\"%d%d%d\", &num1, &num2, &num3);\n    if (num1 < num2)\n        small = num1;\n    else\n        small = num2;\n    if (num3 < small)\n        small = num3;\n    printf(\"%d is the smallest\\n\", small);\n    return 0;\n}\n";
    const STUDENT: &str = "#include <stdio.h>\nint main(void) {\n    int x, y, z, m;\n    scanf(\"%d%d%d\", &x, &y, &z);\n    if (x < y)\n        m = x;\n    else\n        m = y;\n    if (z < y)\n        m = z;\n    printf(\"%d is the smallest\\n\", m);\n    return 0;\n}\n";

    #[test]
    fn variables_map_by_scanf_order_then_usage() {
        let (s, r) = (lower_source(STUDENT).program, lower_source(REFERENCE).program);
        let main = |p: &Program| p.func_by_name("main").unwrap();
        let map = partners(&s, main(&s), &r, main(&r));
        let names: Vec<String> = map
            .iter()
            .map(|(rv, sv)| {
                format!(
                    "{} -> {}",
                    r.var(*rv).name,
                    sv.iter().map(|v| s.var(*v).name.as_str()).collect::<Vec<_>>().join(" ")
                )
            })
            .collect();
        expect_test::expect![[r#"
            num1 -> x z y
            num2 -> y z x
            num3 -> z y x
            small -> m"#]]
        .assert_eq(&names.join("\n"));
    }

    #[test]
    fn reference_conditions_renamed_with_minimal_edits() {
        let (s, r) = (lower_source(STUDENT).program, lower_source(REFERENCE).program);
        let frozen = HashSet::new();
        let space = ReferenceSpace::new(&s, STUDENT, &r, &frozen);
        let locs = encode::locations(&s, &frozen);
        let wrong = locs.iter().find(|l| &STUDENT[l.span.range()] == "(z < y)").unwrap();
        let picks = space.picks(wrong, &[]);
        let shown: Vec<String> = picks
            .iter()
            .map(|p| match p {
                Pick::New(m) => {
                    format!("{} [{}..{} `{}`]", m.description, m.edit.span.start, m.edit.span.end, m.edit.new_text)
                }
                Pick::Catalogue(k) => format!("catalogue {k}"),
            })
            .collect();
        expect_test::expect![[r#"
            `(z < y)` → `(x < y)` (as in the reference) [151..152 `x`]
            `(z < y)` → `(z < m)` (as in the reference) [155..156 `m`]
            `(z < y)` → `(x < z)` (as in the reference) [151..156 `x < z`]
            `(z < y)` → `(y < m)` (as in the reference) [151..156 `y < m`]
            `(z < y)` → `(x < m)` (as in the reference) [151..156 `x < m`]"#]]
        .assert_eq(&shown.join("\n"));
        // Every edit, applied, lowers to the alternative's expression.
        for p in &picks {
            let Pick::New(m) = p else { continue };
            let patched = apply_edits(STUDENT, std::slice::from_ref(&m.edit));
            let q = lower_source(&patched).program;
            let at = encode::locations(&q, &frozen).into_iter().nth(wrong.id.0 as usize).unwrap();
            assert_eq!(expr_to_c(&q, &at.expr), expr_to_c(&s, &m.expr));
        }
    }

    #[test]
    fn array_elements_renamed_into_the_students_array() {
        let reference = "#include <stdio.h>\nint main(void) {\n    int n, i, j, v[100];\n    scanf(\"%d\", &n);\n    for (i = 0; i < n; ++i) scanf(\"%d\", &v[i]);\n    for (i = 0; i < n; ++i) {\n        for (j = 0; j < v[i]; ++j) putchar('*');\n        putchar('\\n');\n    }\n    return 0;\n}\n";
        let student = "#include <stdio.h>\nint main(void) {\n    int n, i, j, max = 0, vetor[100];\n    scanf(\"%d\", &n);\n    for (i = 0; i < n; i++) scanf(\"%d\", &vetor[i]);\n    for (i = 0; i < n; i++) {\n        for (j = 0; j < max; j++) putchar('*');\n        putchar('\\n');\n    }\n    return 0;\n}\n";
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let frozen = HashSet::new();
        let space = ReferenceSpace::new(&s, student, &r, &frozen);
        let locs = encode::locations(&s, &frozen);
        let wrong = locs.iter().find(|l| &student[l.span.range()] == "j < max").unwrap();
        let shown: Vec<String> = space
            .picks(wrong, &[])
            .iter()
            .filter_map(|p| match p {
                Pick::New(m) => Some(m.description.clone()),
                Pick::Catalogue(_) => None,
            })
            .collect();
        assert!(shown.iter().any(|d| d == "`j < max` → `j < vetor[i]` (as in the reference)"), "{shown:?}");
    }

    #[test]
    fn special_cases_and_prints_renamed_into_the_students_variables() {
        let reference = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n    int n, d;\n    if (scanf(\"%d %d\", &n, &d) != 2)\n        return 1;\n    if (n < 0) {\n        printf(\"undefined\\n\");\n        return 0;\n    }\n    if (d == 0) exit(2);\n    if (d < 0)\n        d = -d;\n    if (n > 9) { n = 9; } else n = 0;\n    if (n > 5) { while (n > 5) n--; }\n    printf(\"%d\\n\", n / d);\n    return 0;\n}\n";
        let student = "#include <stdio.h>\nint main(void) {\n    int num, div;\n    scanf(\"%d %d\", &num, &div);\n    printf(\"%d\\n\", num / div);\n    return 0;\n}\n";
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let frozen = HashSet::new();
        let space = ReferenceSpace::new(&s, student, &r, &frozen);
        let statements = space.statements(s.func_by_name("main").unwrap());
        for expected in [
            "if (num < 0) { printf(\"undefined\\n\"); return 0; }",
            "printf(\"undefined\\n\");",
            "if (div == 0) exit(2);",
            "if (div < 0) div = -div;",
        ] {
            assert!(statements.iter().any(|t| t == expected), "{expected} in {statements:#?}");
        }
        // Not an `if` with an `else`, nor one whose body loops.
        assert!(!statements.iter().any(|t| t.contains("num = 9") && t.starts_with("if")), "{statements:#?}");
        assert!(!statements.iter().any(|t| t.contains("while")), "{statements:#?}");
    }
}
