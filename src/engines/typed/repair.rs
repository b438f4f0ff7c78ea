//! Algorithm 2: bottom-up repair of an ill-typed expression. Ill-typed children are repaired
//! first (and their repairs reinforced); every well-typed subexpression is reinforced (a graph
//! node of cost 0 printing as written); then Algorithm 1 synthesises the node's desired type.
//! The student's intent is kept two more ways: the callee costs 1 (a misspelt name makes
//! the names near it cheap instead), and a candidate that drops one of the node's own
//! well-typed children pays for it, so `scanf("%d", n)` becomes `scanf("%d", &n)`, not `n`.

use std::collections::HashSet;

use super::env::Env;
use super::graph::{COST_CAST, COST_FIELD, FnKind, FnNode, Graph};
use super::synth::{Cand, Synth};
use super::term::{self, Term, TermKind, format_arg_types, format_call, strip_paren, type_of};
use super::types::{Ty, TyKind, Types};

/// Cost of leaving out one of the repaired node's own well-typed children (or its callee).
pub const DROP_PENALTY: u32 = 10;
/// Cost bound of a repair step's synthesis (C_max of Algorithm 1). The reinforced parts cost
/// nothing, so what is bounded is what a repair adds: two or three new nodes (a variable and
/// `&`, a cast, a call around a part). 32 ranked the same on the benchmark as 20 (and as 16)
/// but explored deep library compositions no repair used: a repair's p95 latency was 51 ms
/// at 32, 13 ms at 20 (`mend bench typed` on a 101-file IntroClass subset, load 5 on 2 cores).
pub const REPAIR_CMAX: u32 = 20;
/// Candidates kept per type inside a repair's search (at least the N asked for).
pub const SEARCH_N: usize = 8;
/// Cost of changing one directive of a format string to fit its argument.
pub const FORMAT_EDIT: u32 = 5;
/// Cost of using only a part of one of the node's children, or of losing its operator.
pub const PARTIAL_PENALTY: u32 = 3;
/// Extra cost, on top of `PARTIAL_PENALTY`, per variable of that child the part leaves out:
/// `x` of `(char) x` drops only a cast, but `vetor` of `vetor[i]` drops the index and means
/// another object (`scanf("%d", vetor[i])` is `&vetor[i]`, not `vetor`).
pub const DROPPED_PART: u32 = 4;
const BINARY_OPS: &[&str] = &["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"];
const UNARY_OPS: &[&str] = &["-", "!"];
/// Extra cost of an unrelated name where the student wrote a misspelt one.
pub const UNRELATED_NAME: u32 = 12;
/// Cost of each turn an inserted argument puts into the declaration order of a call's
/// variable arguments (`f(a, b, d)` missing `c`: `f(a, b, c, d)` keeps the order the
/// variables were declared in, `f(a, b, d, c)` turns once). A tie-breaker between insertion
/// points that otherwise cost the same.
pub const DECL_ORDER: u32 = 1;
/// Discount on a variable, when repairing a call, that the call's data flow points at (see
/// `flow`): a value computed and never used when the call reads its arguments, a variable
/// read later and never written when the call is a `scanf` writing them. Half the spread of
/// variable costs (2..12), so it reorders near and frequent names but does not lift a far
/// variable over a reinforced part.
pub const FLOW_BONUS: u32 = 3;
/// The same discount for a `scanf` destination: a variable read with no value is a certain
/// bug (where a value computed and never used may be a leftover), so its signal is stronger.
/// 5 over 3 lifted `scanf("%f")` → `&num` to the top on C-Pack's float loops, where the
/// accumulator `soma` is nearer and more frequent.
pub const NEEDS_VALUE_BONUS: u32 = 5;

/// Extra cost of a variable that the statement just before or after passes to the same
/// function (`flow::neighbours`): values printed one call each are rarely printed twice in a
/// row.
pub const NEIGHBOUR_PENALTY: u32 = 2;

/// Discount on the function's character constants when repairing `putchar()`: two in five
/// `putchar` calls of the development courses print a constant (`'\n'`, `' '`, `'*'`).
/// `COST_LITERAL` (12) less this is 5: level with a variable that holds a character.
pub const CHAR_CONSTANT_BONUS: u32 = 7;
/// The character constant `putchar` prints most in the development courses (237 of 805 calls
/// with a constant; `'0'`, 254, is one problem's binary digits): one cheaper than the others,
/// and a candidate even where the function writes it nowhere else.
const NEWLINE: &str = "'\\n'";
/// Extra cost of a whole array as a `scanf` destination other than a string's
/// (`scanf("%d", v)`).
pub const ARRAY_DESTINATION: u32 = 4;

/// Whether `callee` prints one character, its first argument.
fn prints_character(callee: &str) -> bool {
    matches!(callee, "putchar" | "putc" | "fputc")
}

/// Whether `t` is an array of characters (an lvalue of one).
fn is_char_array(types: &Types, t: Ty) -> bool {
    let t = match types.kind(t) {
        TyKind::Lv(inner) => *inner,
        _ => t,
    };
    matches!(types.kind(t), TyKind::Array(elem, _) if matches!(types.kind(*elem), TyKind::Int(i) if i.kind == crate::ir::IntKind::Char))
}

/// What the context wants from an expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    Any,
    Type(Ty),
    /// A printf variadic argument fitting this directive type.
    Printf(Ty),
    /// A scanf argument: a pointer fitting this directive type.
    Scanf(Ty),
}

impl Expect {
    fn target(self) -> Option<Ty> {
        match self {
            Expect::Any => None,
            Expect::Type(t) | Expect::Printf(t) | Expect::Scanf(t) => Some(t),
        }
    }
}

pub struct Repairer<'e, 'p> {
    pub env: &'e mut Env<'p>,
    pub graph: Graph,
    /// Results per repair (and per type inside the search).
    pub n: usize,
    pub cmax: u32,
    next_bit: u8,
    /// Nodes of the base graph (a step's own nodes come after).
    base_len: usize,
}

/// A name-similarity adjustment for one repair step.
enum Hint {
    Name(String),
    Callee(String),
    Field(String),
}

impl<'e, 'p> Repairer<'e, 'p> {
    pub fn new(env: &'e mut Env<'p>, graph: Graph, n: usize) -> Self {
        let base_len = graph.fns.len();
        Repairer { env, graph, n, cmax: REPAIR_CMAX, next_bit: 0, base_len }
    }

    pub fn fits(&mut self, expect: Expect, t: Ty, term: &Term) -> bool {
        let v = self.env.types.value(t);
        let types = &self.env.types;
        match expect {
            Expect::Any => true,
            Expect::Type(want) => types.assignable(types.rv(want), v, term.is_null_constant()),
            Expect::Printf(want) => term::printf_fits(types, want, v),
            Expect::Scanf(want) => term::scanf_fits(types, want, v),
        }
    }

    /// Repairs of `t` for the context `expect`, best first (empty when `t` already fits or
    /// nothing fits within the cost bound).
    pub fn repair(&mut self, t: &Term, expect: Expect) -> Vec<Cand> {
        if let Some(ty) = type_of(self.env, t)
            && self.fits(expect, ty, t)
        {
            return Vec::new();
        }
        if let TermKind::Paren(inner) = &t.kind {
            // The student's parentheses stay.
            let mut out = self.repair(inner, expect);
            for c in &mut out {
                c.text = format!("({})", c.text).into();
                c.prec = 16;
            }
            return out;
        }
        let mut extra: Vec<FnNode> = Vec::new();
        let mut direct: Vec<u8> = Vec::new();
        // Per direct child, the bits of it and its reinforced parts: using a part (`x` of
        // `&x`) is not dropping the child.
        let mut family: Vec<u64> = Vec::new();
        // Per direct child, the bits of its innermost typed parts (its variables and calls).
        let mut leaves: Vec<u64> = Vec::new();
        let mut hints: Vec<Hint> = Vec::new();
        let mut targets: Vec<Ty> = expect.target().into_iter().collect();
        let mut callee: Option<String> = None;
        // Desired types of the children, where the node says.
        let child_expect: Vec<Expect> = self.child_expectations(t);
        let children: Vec<&Term> = t.children();
        for (i, c) in children.iter().enumerate() {
            let e = child_expect.get(i).copied().unwrap_or(Expect::Any);
            let bit = self.bit();
            direct.push(bit);
            family.push(if bit < 63 { 1u64 << bit } else { 0 });
            leaves.push(0);
            match type_of(self.env, c) {
                // A format literal is part of its format node, not a value to reuse.
                Some(_) if is_format_literal(t, i) => {}
                Some(ty) => {
                    let (m, l) = self.reinforce(c, ty, bit, 0, &mut extra);
                    family[i] |= m;
                    leaves[i] = l;
                }
                None => {
                    // Repaired children are reinforced before the parent is synthesised.
                    // (The best at cost 0, the others at their distance from it.)
                    let fixed = self.repair(c, e);
                    let best = fixed.first().map(|c| c.cost).unwrap_or(0);
                    for cand in fixed.iter().take(3) {
                        // Reinforced as the object it is (`string[i]` a `char` lvalue), not as
                        // the conversion the child's context applied to it.
                        let ty = self.unconverted(cand).ty;
                        extra.push(FnNode {
                            kind: FnKind::Reinforced { text: cand.text.to_string(), prec: cand.prec, bit },
                            ret: ty,
                            params: vec![],
                            cost: cand.cost - best,
                        });
                    }
                }
            }
        }
        match &t.kind {
            TermKind::Ident(name) => {
                hints.push(Hint::Name(name.clone()));
                if targets.is_empty() {
                    targets = self.similar_var_types(name);
                }
            }
            TermKind::Call(name, args) => {
                callee = Some(name.clone());
                if prints_character(name) && !self.env.literals.iter().any(|(l, _)| l == NEWLINE) {
                    extra.push(FnNode {
                        kind: FnKind::Const(NEWLINE.to_string()),
                        ret: Types::INT,
                        params: vec![],
                        cost: super::graph::COST_LITERAL - CHAR_CONSTANT_BONUS - 1,
                    });
                }
                match self.env.sig(name) {
                    Some(sig) => {
                        if targets.is_empty() {
                            targets.push(sig.ret);
                        }
                        self.format_nodes(name, args, &sig.params, sig.ret, 0, &direct, &mut extra);
                    }
                    None => {
                        hints.push(Hint::Callee(name.clone()));
                        for (near, d) in self.similar_callees(name) {
                            let Some(sig) = self.env.sig(&near) else { continue };
                            if targets.is_empty() || expect == Expect::Any && !targets.contains(&sig.ret) {
                                targets.push(sig.ret);
                            }
                            self.format_nodes(&near, args, &sig.params, sig.ret, 3 * d, &direct, &mut extra);
                        }
                    }
                }
            }
            TermKind::Field(_, name, _) => {
                hints.push(Hint::Field(name.clone()));
                if targets.is_empty() {
                    targets = self.similar_field_types(name);
                }
            }
            _ => {}
        }
        if targets.is_empty() {
            targets = vec![Types::INT, Types::DOUBLE];
        }
        // The node's own operator, kept at cost 1 in this step.
        let own = match &t.kind {
            TermKind::Binary(o, ..) => BINARY_OPS.iter().find(|x| **x == o.as_str()).map(|x| FnKind::Binary(x)),
            TermKind::Unary(o, _) if o == "&" => Some(FnKind::AddrOf),
            TermKind::Unary(o, _) if o == "*" => Some(FnKind::Deref),
            TermKind::Unary(o, _) => UNARY_OPS.iter().find(|x| **x == o.as_str()).map(|x| FnKind::Unary(x)),
            TermKind::Index(..) => Some(FnKind::Index),
            TermKind::Field(_, f, arrow) => Some(FnKind::Field(f.clone(), *arrow)),
            TermKind::Cast(ty, _) => {
                let to = self.env.types.from_spelling(ty);
                let name = self.env.types.name(to);
                if self.env.types.is_arith(to) {
                    for from in [Types::INT, Types::DOUBLE, Types::CHAR] {
                        if from != to {
                            extra.push(FnNode {
                                kind: FnKind::Cast(name.clone()),
                                ret: to,
                                params: vec![from],
                                cost: 1,
                            });
                        }
                    }
                }
                Some(FnKind::Cast(name))
            }
            _ => None,
        };
        // Run Algorithm 1 on the graph plus this step's nodes and costs.
        let base_len = self.graph.fns.len();
        let saved: Vec<u32> = self.graph.fns.iter().map(|f| f.cost).collect();
        let op = match &t.kind {
            TermKind::Binary(o, ..) | TermKind::Unary(o, _) => Some(o.as_str()),
            TermKind::Index(..) => Some("[]"),
            _ => None,
        };
        self.apply_hints(&hints, callee.as_deref(), op);
        let flow = match &t.kind {
            TermKind::Call(name, args) => {
                // Does the call's format read a string (`%s`, `%[`) into an array?
                let reads_string = format_call(name)
                    .and_then(|(i, _)| args.get(i))
                    .map(|f| (0..).map_while(|k| directive_conv(&f.text, k)).any(|c| c.ends_with(['s', '['])))
                    .unwrap_or(false);
                self.apply_flow(name, t.span, reads_string)
            }
            _ => (HashSet::new(), 0),
        };
        self.graph.fns.extend(extra);
        self.graph.index(self.env.types.len());
        let callee_bit = self.bit();
        let mut found: Vec<(u32, Cand)> = Vec::new();
        {
            let mut synth = Synth::new(&self.graph, &self.env.types, self.n.max(SEARCH_N));
            synth.order = family.clone();
            synth.callee = callee.clone().map(|c| (c, callee_bit));
            for &target in &targets {
                for c in synth.synthesize_wide(target, self.cmax) {
                    let score = c.cost
                        + self.intent_penalty(&c, &direct, (&family, &leaves), own.as_ref(), callee.as_deref(), &flow)
                        + self.decl_order_penalty(&c, &family);
                    found.push((score, c));
                }
            }
        }
        self.graph.fns.truncate(base_len);
        for (f, c) in self.graph.fns.iter_mut().zip(saved) {
            f.cost = c;
        }
        self.graph.index(self.env.types.len());
        let original = squash(&t.text);
        found.retain(|(_, c)| squash(&c.text) != original);
        found.sort_by(|a, b| (a.0, &a.1.text).cmp(&(b.0, &b.1.text)));
        let mut seen = std::collections::HashSet::new();
        found.retain(|(_, c)| seen.insert(squash(&c.text)));
        found.truncate(self.n.max(3));
        found
            .into_iter()
            .map(|(score, mut c)| {
                c.cost = score;
                c
            })
            .collect()
    }

    /// `c` without the silent conversions at its top (reads, decays, implicit conversions).
    fn unconverted<'c>(&self, mut c: &'c Cand) -> &'c Cand {
        while (c.node as usize) < self.base_len
            && matches!(self.graph.fns[c.node as usize].kind, FnKind::Read | FnKind::Decay | FnKind::Conv)
            && !c.args.is_empty()
        {
            c = &c.args[0];
        }
        c
    }

    fn bit(&mut self) -> u8 {
        let b = self.next_bit.min(63);
        self.next_bit = self.next_bit.saturating_add(1);
        b
    }

    /// Reinforces `t` (of type `ty`) and its well-typed subexpressions; returns their bits, and
    /// the bits of the innermost ones that are not constants (the variables and calls).
    fn reinforce(&mut self, t: &Term, ty: Ty, bit: u8, cost: u32, extra: &mut Vec<FnNode>) -> (u64, u64) {
        let own = if bit < 63 { 1u64 << bit } else { 0 };
        let (mut mask, mut leaves) = (own, 0);
        let (text, prec) = (t.text.clone(), t.prec());
        extra.push(FnNode { kind: FnKind::Reinforced { text, prec, bit }, ret: ty, params: vec![], cost });
        for c in strip_paren(t).children() {
            if let Some(cty) = type_of(self.env, c)
                && !matches!(strip_paren(c).kind, TermKind::Int | TermKind::Char | TermKind::Float)
            {
                let b = self.bit();
                let (m, l) = self.reinforce(c, cty, b, cost, extra);
                mask |= m;
                leaves |= l;
            }
        }
        // A named constant (`DIM` of `str[DIM]`) is no variable: leaving it out is like
        // leaving out a literal (`palindro(str[DIM])` meant `palindro(str)`).
        let constant = matches!(&strip_paren(t).kind, TermKind::Ident(n) if self.env.var(n).is_none());
        let leaf = if constant { 0 } else { own };
        (mask, if mask == own { leaf } else { leaves })
    }

    /// Format functions: one node with the student's format (cost `base`) and, for each
    /// argument whose type disagrees with its directive, one with that directive rewritten.
    #[allow(clippy::too_many_arguments)]
    fn format_nodes(
        &mut self,
        name: &str,
        args: &[Term],
        params: &[Ty],
        ret: Ty,
        base: u32,
        direct: &[u8],
        extra: &mut Vec<FnNode>,
    ) {
        let Some((index, scanf)) = format_call(name) else { return };
        let bit = direct.get(index).copied().unwrap_or(64);
        let Some(fmt) = args.get(index) else { return };
        let TermKind::Str(bytes) = &strip_paren(fmt).kind else { return };
        let fixed: Vec<Ty> = params.iter().take(index).copied().collect();
        let Some(want) = format_arg_types(&mut self.env.types, bytes, scanf) else { return };
        let push = |extra: &mut Vec<FnNode>, text: String, want: Vec<Ty>, cost: u32| {
            let mut p = fixed.clone();
            p.extend(want);
            extra.push(FnNode {
                kind: FnKind::Format { name: name.to_string(), index, text, fixed: index, scanf, bit },
                ret,
                params: p,
                cost,
            });
        };
        // Never free: a free `int printf("%d", int)` would be a zero-cost cycle.
        push(extra, fmt.text.clone(), want.clone(), base + 1);
        // Rewrite each directive whose argument's type disagrees to one that fits (`scanf("%d",
        // &x)` with `float x` reads `%f`).
        let rest = &args[(index + 1).min(args.len())..];
        let mut rewritten = fmt.text.clone();
        let mut changed = 0;
        let mut meant_fraction = false;
        let mut want2 = want.clone();
        for (i, (a, w)) in rest.iter().zip(&want).enumerate() {
            let Some(at) = type_of(self.env, a) else { continue };
            let v = self.env.types.value(at);
            let (fits, conv) = if scanf {
                (term::scanf_fits(&self.env.types, *w, v), scanf_directive_for(&self.env.types, v))
            } else {
                (term::printf_fits(&self.env.types, *w, v), directive_for(&self.env.types, v))
            };
            if fits {
                continue;
            }
            let Some(conv) = conv else { continue };
            if let Some(r) = rewrite_directive(&rewritten, i, conv) {
                rewritten = r;
                want2[i] = v;
                changed += 1;
                // A quotient of integers printed as a fraction: the fraction is what was
                // meant (an average, a ratio), so a cast ranks before printing it whole.
                if !scanf && self.env.types.is_float(*w) && self.env.types.is_int(v) && is_quotient(a) {
                    meant_fraction = true;
                }
            }
        }
        if changed > 0 {
            let extra_cost = if meant_fraction { COST_CAST } else { 0 };
            push(extra, rewritten, want2, base + 1 + FORMAT_EDIT * changed + extra_cost);
        }
    }

    fn child_expectations(&mut self, t: &Term) -> Vec<Expect> {
        match &t.kind {
            TermKind::Call(name, args) => {
                let Some(sig) = self.env.sig(name) else { return Vec::new() };
                if let Some((fi, scanf)) = format_call(name) {
                    let mut out: Vec<Expect> = sig.params.iter().take(fi + 1).map(|p| Expect::Type(*p)).collect();
                    if let Some(TermKind::Str(bytes)) = args.get(fi).map(|a| &strip_paren(a).kind)
                        && let Some(want) = format_arg_types(&mut self.env.types, bytes, scanf)
                    {
                        out.extend(want.into_iter().map(|w| if scanf { Expect::Scanf(w) } else { Expect::Printf(w) }));
                    }
                    return out;
                }
                sig.params.iter().map(|p| Expect::Type(*p)).collect()
            }
            TermKind::Binary(op, a, b) => {
                // An operand is expected to be like the other one; next to a number, any
                // number does (the usual conversions meet them), so a `double` repair of
                // `fabs(x) < 10` is not pushed through a conversion to `int`.
                let ta = type_of(self.env, a).map(|x| self.env.types.value(x));
                let tb = type_of(self.env, b).map(|x| self.env.types.value(x));
                let arith_op = !matches!(op.as_str(), "%" | "<<" | ">>" | "&" | "|" | "^");
                let types = &self.env.types;
                let like = |x: Option<Ty>| match x {
                    Some(t) if arith_op && types.is_arith(t) => Expect::Any,
                    Some(t) => Expect::Type(t),
                    None => Expect::Any,
                };
                vec![like(tb), like(ta)]
            }
            TermKind::Index(_, _) => vec![Expect::Any, Expect::Type(Types::INT)],
            _ => Vec::new(),
        }
    }

    /// Costs for this step: near names cheap, others dearer; the node's own callee or
    /// operator nearly free.
    fn apply_hints(&mut self, hints: &[Hint], callee: Option<&str>, op: Option<&str>) {
        for f in self.graph.fns.iter_mut() {
            match &f.kind {
                FnKind::Binary(o) if Some(*o) == op => f.cost = 1,
                FnKind::AddrOf if op == Some("&") => f.cost = 1,
                FnKind::Deref if op == Some("*") => f.cost = 1,
                FnKind::Unary(o) if Some(*o) == op => f.cost = 1,
                FnKind::Index if op == Some("[]") => f.cost = 1,
                // Cheapest of all functions, but not free: a free `int f(int)` would make a
                // zero-cost cycle.
                FnKind::Call(n) if Some(n.as_str()) == callee => f.cost = 1,
                _ => {}
            }
        }
        for h in hints {
            for f in self.graph.fns.iter_mut() {
                match (h, &f.kind) {
                    (Hint::Name(wrong), FnKind::Var(n) | FnKind::Const(n)) => f.cost = name_cost(wrong, n, f.cost),
                    // A misspelt variable is a name, not a call.
                    (Hint::Name(_), FnKind::Call(_)) => f.cost += UNRELATED_NAME,
                    (Hint::Callee(wrong), FnKind::Call(n)) => f.cost = name_cost(wrong, n, f.cost),
                    (Hint::Field(wrong), FnKind::Field(n, _)) => {
                        f.cost = if n == wrong { COST_FIELD } else { name_cost(wrong, n, COST_FIELD) + COST_FIELD };
                    }
                    _ => {}
                }
            }
        }
    }

    /// The data-flow discount (`FLOW_BONUS`) for the variables the call at `span` may have
    /// lost: a `scanf`'s destinations need a value, other calls read theirs, `putchar` prints a
    /// character.
    /// Returns the variables discounted, and the discount.
    fn apply_flow(&mut self, callee: &str, span: crate::ir::Span, reads_string: bool) -> (HashSet<String>, u32) {
        let program = self.env.program;
        let Some(body) = self.env.func.and_then(|f| program.func(f).body.as_ref()) else {
            return (HashSet::new(), 0);
        };
        let sig = super::flow::signals(program, body, span);
        let writes = format_call(callee).is_some_and(|(_, scanf)| scanf);
        let (mut set, bonus) =
            if writes { (sig.needs_value, NEEDS_VALUE_BONUS) } else { (sig.unused_value, FLOW_BONUS) };
        // `putchar()` prints a character: a variable that holds one is the likelier argument.
        let prints_char = prints_character(callee);
        if prints_char {
            set.extend(super::flow::characters(program, body));
        }
        let near = super::flow::neighbours(program, body, span, callee);
        let types = &self.env.types;
        for f in self.graph.fns[..self.base_len].iter_mut() {
            match &f.kind {
                FnKind::Var(n) if set.contains(n) => f.cost = f.cost.saturating_sub(bonus).max(1),
                FnKind::Var(n) if near.contains(n) => f.cost += NEIGHBOUR_PENALTY,
                // `putchar('\n')`: a character constant of the function is as likely as a
                // variable holding a character.
                FnKind::Const(c) if prints_char && c.starts_with('\'') => {
                    let newline = u32::from(c == NEWLINE);
                    f.cost = f.cost.saturating_sub(CHAR_CONSTANT_BONUS + newline).max(1)
                }
                // A whole array is a `scanf` destination only for a string (`%s`):
                // `scanf("%d", v)` and `scanf("%c", s)` read `v[0]` and `s[0]`.
                FnKind::Decay
                    if writes && !(reads_string && f.params.first().is_some_and(|&a| is_char_array(types, a))) =>
                {
                    f.cost += ARRAY_DESTINATION
                }
                _ => {}
            }
        }
        (set, bonus)
    }

    /// `DECL_ORDER` per turn (a change between rising and falling declaration order) that the
    /// arguments `c` adds to the student's call put into the sequence of its arguments that
    /// are variables (`x`, `&x`). Zero unless `c` is a call.
    fn decl_order_penalty(&self, c: &Cand, family: &[u64]) -> u32 {
        let mut root = c;
        while matches!(self.graph.fns[root.node as usize].kind, FnKind::Read | FnKind::Decay | FnKind::Conv)
            && !root.args.is_empty()
        {
            root = &root.args[0];
        }
        if !matches!(self.graph.fns[root.node as usize].kind, FnKind::Call(_) | FnKind::Format { .. })
            || root.args.len() < 2
        {
            return 0;
        }
        let student = family.iter().fold(0u64, |m, f| m | f);
        let decl = |a: &Cand| -> Option<u32> {
            let mut x = a;
            loop {
                match &self.graph.fns[x.node as usize].kind {
                    FnKind::Read | FnKind::Decay | FnKind::Conv | FnKind::AddrOf if !x.args.is_empty() => {
                        x = &x.args[0]
                    }
                    FnKind::Var(n) => return self.env.var(n).map(|v| v.decl),
                    FnKind::Reinforced { text, .. } => {
                        return self.env.var(text.trim_start_matches('&').trim()).map(|v| v.decl);
                    }
                    _ => return None,
                }
            }
        };
        let turns = |seq: &[u32]| seq.windows(3).filter(|w| (w[0] < w[1]) != (w[1] < w[2])).count() as u32;
        let all: Vec<u32> = root.args.iter().filter_map(decl).collect();
        let theirs: Vec<u32> = root.args.iter().filter(|a| a.mask & student != 0).filter_map(decl).collect();
        DECL_ORDER * turns(&all).saturating_sub(turns(&theirs))
    }

    /// How many times `c` uses a variable of `set` (which took the flow discount).
    fn flow_uses(&self, c: &Cand, set: &HashSet<String>) -> u32 {
        let own = match &self.graph.fns[c.node as usize].kind {
            FnKind::Var(n) => u32::from(set.contains(n)),
            _ => 0,
        };
        own + c.args.iter().map(|a| self.flow_uses(a, set)).sum::<u32>()
    }

    /// Dropping the node's own children or its callee, and reordering arguments, cost extra.
    /// The flow discount is for the call's arguments: a candidate without the call pays it back.
    fn intent_penalty(
        &self,
        c: &Cand,
        direct: &[u8],
        (family, leaves): (&[u64], &[u64]),
        own: Option<&FnKind>,
        callee: Option<&str>,
        (flow, bonus): &(HashSet<String>, u32),
    ) -> u32 {
        let mut p = 0;
        for ((&b, &m), &l) in direct.iter().zip(family).zip(leaves) {
            if m != 0 && c.mask & m == 0 {
                p += DROP_PENALTY;
            } else if b < 63 && m != 0 && c.mask & (1u64 << b) == 0 {
                // Only a part used (`x` of `(char) x`): the rest is dropped.
                p += PARTIAL_PENALTY + DROPPED_PART * (l & !c.mask).count_ones();
            }
        }
        let mut root_id = c;
        while matches!(self.graph.fns[root_id.node as usize].kind, FnKind::Read | FnKind::Decay | FnKind::Conv)
            && !root_id.args.is_empty()
        {
            root_id = &root_id.args[0];
        }
        let root = &self.graph.fns[root_id.node as usize].kind;
        if let Some(name) = callee {
            let near = match root {
                FnKind::Call(n) | FnKind::Format { name: n, .. } => n == name || distance(n, name) <= 2,
                _ => false,
            };
            if !near {
                p += DROP_PENALTY + bonus * self.flow_uses(c, flow);
            }
        } else if let Some(own) = own
            && std::mem::discriminant(own) != std::mem::discriminant(root)
        {
            // The student's operator is gone.
            p += PARTIAL_PENALTY;
        }
        p
    }

    fn similar_var_types(&mut self, name: &str) -> Vec<Ty> {
        let mut out = Vec::new();
        for v in &self.env.vars {
            if distance(name, &v.name) <= name_limit(name) && !out.contains(&v.ty) {
                out.push(v.ty);
            }
        }
        let out: Vec<Ty> = out.into_iter().map(|t| self.env.types.value(t)).collect();
        out
    }

    fn similar_callees(&mut self, name: &str) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = self
            .graph
            .fns
            .iter()
            .filter_map(|f| match &f.kind {
                FnKind::Call(n) => Some(n.clone()),
                _ => None,
            })
            .chain(super::stdlib::table().iter().filter(|e| format_call(&e.name).is_some()).map(|e| e.name.clone()))
            .map(|n| {
                let d = distance(name, &n) as u32;
                (n, d)
            })
            .filter(|(_, d)| *d as usize <= name_limit(name))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn similar_field_types(&mut self, name: &str) -> Vec<Ty> {
        let mut out = Vec::new();
        for s in &self.env.program.structs {
            for f in &s.fields {
                if distance(name, &f.name) <= name_limit(name)
                    && let Some(t) = self.env.types.from_ir(&f.ty)
                {
                    let t = self.env.types.value(t);
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }
}

/// `a / b` (in parentheses or not).
fn is_quotient(t: &Term) -> bool {
    matches!(&strip_paren(t).kind, TermKind::Binary(op, _, _) if op == "/")
}

fn is_format_literal(t: &Term, arg: usize) -> bool {
    match &t.kind {
        TermKind::Call(name, args) => {
            format_call(name).is_some_and(|(i, _)| i == arg && matches!(strip_paren(&args[i]).kind, TermKind::Str(_)))
        }
        _ => false,
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment): `smu` is one slip
/// from `sum`, as a typist sees it.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

pub(crate) fn name_limit(name: &str) -> usize {
    match name.chars().count() {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    }
}

/// A name near the misspelt one costs 3 per edit; an unrelated one pays extra.
fn name_cost(wrong: &str, candidate: &str, base: u32) -> u32 {
    let d = distance(wrong, candidate);
    if d <= name_limit(wrong) { 1 + 3 * d as u32 } else { base + UNRELATED_NAME }
}

/// Text without whitespace, for comparing expressions.
pub fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The printf conversion for a value of type `t`.
fn directive_for(types: &Types, t: Ty) -> Option<&'static str> {
    Some(match types.kind(t) {
        TyKind::Int(i) => match (i.kind, i.signed) {
            (crate::ir::IntKind::Long | crate::ir::IntKind::LongLong, true) => "ld",
            (crate::ir::IntKind::Long | crate::ir::IntKind::LongLong, false) => "lu",
            (_, false) => "u",
            _ => "d",
        },
        TyKind::Float(_) => "f",
        TyKind::Ptr(p) if matches!(types.kind(*p), TyKind::Int(x) if x.kind == crate::ir::IntKind::Char) => "s",
        // Not `%p`: printing an address is almost never what a `&` too many meant.
        _ => return None,
    })
}

/// The scanf conversion that stores into `t`, a pointer to a number. None for `char`: `%d`
/// into a `char` is more likely a wrong type than a wish to read one character.
fn scanf_directive_for(types: &Types, t: Ty) -> Option<&'static str> {
    let target = types.pointee(t)?;
    Some(match types.kind(target) {
        TyKind::Int(i) => match (i.kind, i.signed) {
            (crate::ir::IntKind::Char, _) => return None,
            (crate::ir::IntKind::Short, true) => "hd",
            (crate::ir::IntKind::Short, false) => "hu",
            (crate::ir::IntKind::Long, true) => "ld",
            (crate::ir::IntKind::Long, false) => "lu",
            (crate::ir::IntKind::LongLong, _) => return None,
            (_, false) => "u",
            _ => "d",
        },
        TyKind::Float(f) => match f {
            crate::ir::FloatKind::Float => "f",
            crate::ir::FloatKind::Double => "lf",
        },
        _ => return None,
    })
}

/// The byte range of the length modifier and conversion (`ld` of `%5ld`) of the `index`-th
/// argument-taking directive of `lit`, a string literal as written.
fn directive_at(lit: &str, index: usize) -> Option<(usize, usize)> {
    let b = lit.as_bytes();
    let mut i = 0;
    let mut k = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && b"-+ #0123456789.*".contains(&b[j]) {
            j += 1;
        }
        let len_start = j;
        while j < b.len() && b"hlLqjzt".contains(&b[j]) {
            j += 1;
        }
        if j >= b.len() {
            return None;
        }
        if k == index {
            return Some((len_start, j + 1));
        }
        k += 1;
        i = j + 1;
    }
    None
}

/// The length modifier and conversion of a directive (`"ld"`).
pub(crate) fn directive_conv(lit: &str, index: usize) -> Option<String> {
    directive_at(lit, index).map(|(s, e)| lit[s..e].to_string())
}

/// `lit` with the conversion of its `index`-th argument-taking directive replaced by `conv`
/// (flags, width and precision kept).
pub(crate) fn rewrite_directive(lit: &str, index: usize, conv: &str) -> Option<String> {
    let (s, e) = directive_at(lit, index)?;
    Some(format!("{}{conv}{}", &lit[..s], &lit[e..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_are_rewritten_in_place() {
        assert_eq!(rewrite_directive("\"%d and %5.2d\\n\"", 1, "f").as_deref(), Some("\"%d and %5.2f\\n\""));
        assert_eq!(rewrite_directive("\"100%% %ld\"", 0, "f").as_deref(), Some("\"100%% %f\""));
        assert_eq!(rewrite_directive("\"%d\"", 1, "f"), None);
    }
}
