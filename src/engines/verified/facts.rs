//! Facts about one program that the engine decides on before any solving: which functions do
//! I/O, how input is read, which prints are prompts, and the arena of extension statements.

use super::*;

/// The first input/output call in a function's body.
pub(super) fn does_io(p: &Program, f: FuncId) -> Option<Span> {
    let mut found = None;
    if let Some(body) = &p.func(f).body {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if let ExprKind::Call(Callee::Builtin(b), _) = &e.kind
                && b.does_io()
            {
                found.get_or_insert(e.span);
            }
        });
    }
    found
}

pub(super) fn is_call(e: &Expr, b: Builtin) -> bool {
    matches!(&e.strip_implicit().kind, ExprKind::Call(Callee::Builtin(x), _) if *x == b)
}

pub(super) fn contains_call(s: &Stmt, b: Builtin) -> bool {
    let mut found = false;
    crate::ir::walk::walk_stmt(s, &mut |e| found |= is_call(e, b));
    found
}

/// The kind of every value the function reads, in order (`i` integer, `f` floating point,
/// `c` character, `s` other), with the read's span, when every read is a `scanf(...);`
/// statement of the body's top level (so reads happen in this order on every path).
pub(super) fn read_kinds(p: &Program, f: FuncId) -> Option<Vec<(char, Span)>> {
    let kinds = top_level_scanf_directives(p, f)?.into_iter().filter(|d| !d.suppress).map(|d| {
        let kind = match d.conv {
            'd' | 'i' | 'u' => 'i',
            'f' | 'e' | 'g' | 'F' | 'E' | 'G' => 'f',
            'c' => 'c',
            _ => 's',
        };
        (kind, d.call)
    });
    Some(kinds.collect())
}

/// The variable each input token is read into (`None`: discarded, or not a variable), when
/// every read is a top-level `scanf` statement; empty otherwise.
pub(super) fn input_targets(p: &Program, f: FuncId) -> Vec<Option<VarId>> {
    let Some(directives) = top_level_scanf_directives(p, f) else { return Vec::new() };
    directives.iter().map(|d| d.target.and_then(address_of_var)).collect()
}

/// `x` when `e` is `&x` (a `scanf` argument that stores to a variable).
pub(super) fn address_of_var(e: &Expr) -> Option<VarId> {
    match &e.strip_implicit().kind {
        ExprKind::AddrOf(x) => match x.strip_implicit().kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// The conversions of the function's `scanf` statements in input order (`%%` left out), when
/// every read is a `scanf(...);` statement of the body's top level (so reads happen in this
/// order on every path).
pub(super) fn top_level_scanf_directives(p: &Program, f: FuncId) -> Option<Vec<ScanfDirective<'_>>> {
    let StmtKind::Block(stmts) = &p.func(f).body.as_ref()?.kind else { return None };
    let mut out = Vec::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Expr(e) if is_call(e, Builtin::Scanf) => out.extend(scanf_directives(e)?),
            _ if contains_call(s, Builtin::Scanf) => return None,
            _ => {}
        }
    }
    Some(out)
}

/// The conversions of the `scanf(...);` statements the function's reads begin with, in input
/// order, and the index of the last of them in the body: the top-level ones before the first
/// other statement that may read (a loop or an `if` that reads, a `getchar`, a call of one of
/// the program's functions). On every path that reads their tokens, those are the input's
/// first, in this order (`scanf("%d", &n);` then a loop that reads `n` numbers).
///
/// A read that guards the input, `if (scanf("%d", &n) != 1 || n < 0) return 1;`, is the last
/// of them ([`guard_read`]): its `if` is then the statement at the index returned.
pub(super) fn leading_scanf_directives(p: &Program, f: FuncId) -> Option<(Vec<ScanfDirective<'_>>, usize)> {
    let StmtKind::Block(stmts) = &p.func(f).body.as_ref()?.kind else { return None };
    let mut out = Vec::new();
    let mut last = None;
    for (i, s) in stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Expr(e) if is_call(e, Builtin::Scanf) => {
                out.extend(scanf_directives(e)?);
                last = Some(i);
            }
            _ if let Some(read) = guard_read(s) => {
                out.extend(scanf_directives(read)?);
                last = Some(i);
                break;
            }
            _ if may_read(s) => break,
            _ => {}
        }
    }
    Some((out, last?))
}

/// The `scanf` call of an `if` that checks a read, `if (scanf("%d", &n) != 1 || n < 0)`:
/// the call is the condition's first operand, evaluated on every path, and nothing else
/// in the `if` reads. Its branches run after the read, whichever is taken.
pub(super) fn guard_read(s: &Stmt) -> Option<&Expr> {
    let StmtKind::If { cond, then, els } = &s.kind else { return None };
    if may_read(then) || els.as_deref().is_some_and(may_read) {
        return None;
    }
    // One call, the read: any other call might read too.
    let mut calls = 0;
    crate::ir::walk::walk_expr(cond, &mut |e| calls += usize::from(matches!(&e.kind, ExprKind::Call(..))));
    if calls != 1 {
        return None;
    }
    // Down the operands evaluated first: `a || b`, `a != 1`, `!a`.
    let mut e = cond.strip_implicit();
    loop {
        e = match &e.kind {
            ExprKind::Logical(_, first, _) | ExprKind::Binary(_, first, _) => first.strip_implicit(),
            ExprKind::Unary(crate::ir::UnOp::Not, x) => x.strip_implicit(),
            ExprKind::Call(Callee::Builtin(Builtin::Scanf), _) => return Some(e),
            _ => return None,
        };
    }
}

/// `s` reads input, or calls a function of the program (which may).
fn may_read(s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::walk::walk_stmt(s, &mut |e| {
        found |= matches!(&e.kind, ExprKind::Call(crate::ir::Callee::Builtin(b), _) if b.reads_input())
            || matches!(&e.kind, ExprKind::Call(crate::ir::Callee::Func(_), _));
    });
    found
}

/// The directives of the `scanf` call `e`, each with the argument it stores to.
fn scanf_directives(e: &Expr) -> Option<Vec<ScanfDirective<'_>>> {
    let ExprKind::Call(_, args) = &e.strip_implicit().kind else { return None };
    let ExprKind::Str(fmt) = &args.first()?.strip_implicit().kind else { return None };
    let mut rest = args[1..].iter();
    let mut out = Vec::new();
    for piece in crate::ir::format::parse(fmt, true).ok()? {
        if let crate::ir::format::Piece::Directive(d) = piece
            && d.conv != '%'
        {
            let target = if d.suppress { None } else { rest.next() };
            out.push(ScanfDirective { conv: d.conv, suppress: d.suppress, target, call: e.span });
        }
    }
    Some(out)
}

/// `printf`s whose output the `values` mode does not compare: prompts, printed just before a
/// read (only `printf` statements between them and the `scanf` statement). The mode compares
/// what is printed after the last read, which is exactly the other prints when every read is
/// a statement of the function body's top level that comes before every compared print; any
/// other shape is reported unsupported. Other modes compare everything.
pub(super) fn prompts(p: &Program, f: FuncId, values: bool, input: stream::Input) -> Result<HashSet<ExprId>, Failure> {
    let mut out = HashSet::new();
    // Reading characters has its own rule (see `stream`).
    if input == stream::Input::Chars {
        return if values { stream::char_prompts(p, f).map_err(Failure::from_region) } else { Ok(out) };
    }
    if !values {
        return Ok(out);
    }
    let Some(body) = &p.func(f).body else { return Ok(out) };
    let StmtKind::Block(stmts) = &body.kind else { return Ok(out) };
    let printf_stmt = |s: &Stmt| matches!(&s.kind, StmtKind::Expr(e) if is_call(e, Builtin::Printf));
    let scanf_stmt = |s: &Stmt| matches!(&s.kind, StmtKind::Expr(e) if is_call(e, Builtin::Scanf));
    let last_read = stmts.iter().rposition(|s| contains_call(s, Builtin::Scanf));
    for (i, s) in stmts.iter().enumerate() {
        if printf_stmt(s) {
            let next = stmts[i + 1..].iter().find(|x| !printf_stmt(x));
            if next.is_some_and(scanf_stmt) {
                if let StmtKind::Expr(e) = &s.kind {
                    out.insert(e.id);
                }
                continue;
            }
        }
        if let Some(k) = last_read {
            if i <= k && !scanf_stmt(s) && contains_call(s, Builtin::Scanf) {
                return Err(Failure::Unsupported(Unsupported {
                    what: "reading input inside a statement other than a plain `scanf(...);`".into(),
                    span: s.span,
                }));
            }
            if i < k && contains_call(s, Builtin::Printf) {
                return Err(Failure::Unsupported(Unsupported {
                    what: "printing results before the last input is read".into(),
                    span: s.span,
                }));
            }
        }
    }
    Ok(out)
}

pub(super) fn extension_arena(s: &Side<'_>) -> Arena {
    let f = s.program.func(s.func);
    let mut arena =
        Arena { early: BTreeMap::new(), tails: Vec::new(), prints: BTreeMap::new(), guarded: Vec::new(), end: None };
    if let Some(last) = last_return(f) {
        let at = Span::new(last.span.start as usize, last.span.start as usize);
        let zero = || Expr::new(ExprKind::Int(0), Type::INT, at);
        arena.end = Some((zero(), zero()));
    }
    if let Some(body) = &f.body {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if is_call(e, Builtin::Printf) && !s.prompts.contains(&e.id) {
                let at = Span::new(e.span.start as usize, e.span.start as usize);
                arena.guarded.push((
                    e.id,
                    Expr::new(ExprKind::Int(0), Type::INT, at),
                    Expr::new(ExprKind::Int(0), Type::INT, at),
                ));
            }
        });
    }
    // Prints only in loop regions: in `main` before the loops, output may be prompt text the
    // `values` comparison drops, which the region encoding would compare.
    for node in s.tree.nodes().into_iter().filter(|n| matches!(n, Node::LoopEntry(_) | Node::LoopExit(_))) {
        if let Some(at) = s.tree.region_start(f, node) {
            arena.prints.insert(node, Expr::new(ExprKind::Int(0), Type::INT, Span::new(at, at)));
        }
    }
    let zero = |ty: Type, span: Span| Expr::new(ExprKind::Int(0), ty, span);
    if let Type::Int(_) = f.ret {
        for node in s.tree.nodes() {
            if let Some(at) = s.tree.region_start(f, node) {
                let span = Span::new(at, at);
                arena.early.insert(node, (zero(Type::INT, span), zero(f.ret.clone(), span)));
            }
        }
    }
    for (l, info) in s.tree.loops.iter().enumerate() {
        let body = match &info.stmt.kind {
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => body,
            _ => continue,
        };
        let end = matches!(body.kind, StmtKind::Block(_))
            .then(|| Span::new(body.span.end as usize - 1, body.span.end as usize - 1));
        let start = Span::new(info.stmt.span.start as usize, info.stmt.span.start as usize);
        for (before, at) in [(false, end), (true, Some(start))] {
            let Some(at) = at else { continue };
            for v in s.vars() {
                let ty = s.program.var(v).ty.clone();
                if ty.is_arithmetic() {
                    let var = Expr::new(ExprKind::Var(v), ty, at);
                    arena.tails.push((l, before, v, zero(Type::INT, at), var));
                }
            }
        }
    }
    arena
}

/// The function body's last statement, when it is a `return`.
pub(super) fn last_return(f: &crate::ir::Function) -> Option<&Stmt> {
    match &f.body.as_ref()?.kind {
        StmtKind::Block(stmts) => stmts.last().filter(|s| matches!(s.kind, StmtKind::Return(_))),
        _ => None,
    }
}

/// Where a region is, as a phrase that follows "differs from the reference".
pub(super) fn node_name(p: &Program, f: FuncId, tree: &LoopTree<'_>, n: Node, text: &str) -> String {
    let fname = &p.func(f).name;
    let line = |span: Span| text[..(span.start as usize).min(text.len())].matches('\n').count() + 1;
    match n {
        Node::FuncEntry if tree.loops.is_empty() => format!("in `{fname}`"),
        Node::FuncEntry => format!("in `{fname}` before its first loop"),
        Node::FuncExit => format!("at the end of `{fname}`"),
        Node::LoopEntry(l) => format!("in each iteration of the loop on line {}", line(tree.span_of(l))),
        Node::LoopExit(l) => format!("after the loop on line {}", line(tree.span_of(l))),
    }
}
