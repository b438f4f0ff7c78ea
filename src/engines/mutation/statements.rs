//! Statement repairs: changes of a whole statement that no expression mutation expresses.
//! Wolverine2 (Verma & Roy) repairs heap programs by modifying *and inserting* guarded
//! statements; the expression catalogue covers the modifications (`replace-pointer`,
//! `negate-condition`, …), this module the rest, for the slips students make in pointer,
//! string and loop code:
//! - `move-statement`: two adjacent statements in the wrong order swap (`head = next;` before
//!   `prev = head;`, `free(p);` before `p = p->next;`); a statement crosses the edge of a
//!   loop it sits next to, the brace in the wrong place: the result printed in the body's
//!   last statement goes after the loop, the statement after the loop goes to the end of
//!   its body, a counter reset at the start of the body goes before the loop, and the one
//!   before the loop goes to the start of its body (reset for each row); the statement
//!   before a loop goes after it (a result finished before it is computed), and the one
//!   after it before it; the arms of an `else if` chain whose tests hide one another are
//!   reordered (`reorder-conditions`: `x >= 60` before `x >= 90`);
//! - `delete-statement`: an assignment or update that should not be there goes (never a
//!   `free`: deleting it would trade the bug for a leak), and so does the `else` of an `if`
//!   whose branches both leave the loop around it (a search that decides on its first item);
//! - `delete-output`: a statement that only prints goes (a prompt where the whole output is
//!   compared, a debugging print, an extra line break);
//! - `stray-semicolon`: the `;` right after a `for`, `while` or `if` header goes, and the
//!   statement after it becomes the body it was meant to be (`for (i = 1; i <= n; i++);`);
//! - `insert-statement`, from three pools:
//!   - the step of a `while` loop (or a `for` without one) whose body never changes a variable
//!     its condition reads: `p = p->next;` for a pointer, `i++;` / `i--;` for an integer;
//!   - the `'\0'` after a loop that fills a `char` array through an index (`s[i] = '\0';`);
//!   - the priming read repeated: the statement with a call that last set a variable the
//!     loop's condition reads and nothing in the loop changes (`c = getchar();`), again at
//!     the end of the loop's body;
//!   - the result of a call the program throws away, kept in the argument it was computed from
//!     (`reverse(head);` → `head = reverse(head);`, `toupper(c);` → `c = toupper(c);`);
//!   - against a reference, the reference's expression statements (`n->prev = l->last;`,
//!     `depth++;`) and special cases (`if (n < 0) { printf("undefined\n"); return 0; }`)
//!     before a statement or at the end of a block, where the student's names make them
//!     valid;
//!   - Wolverine2's pointer statements over the struct pointers in scope (`x = y;`,
//!     `x = y->f;`, `x->f = y;`, `x->f = NULL;`), before a statement or at the end of a block;
//!   - `break;` at the end of a `case` that runs on into the next one;
//! - `integer-division`: a quotient of integers a floating directive prints, divided in
//!   `double` (`printf("%.2f", sum / n)` → `printf("%.2f", (double) sum / n)`);
//! - `test-first`: a `do … while` whose body must not run when its condition fails at once
//!   becomes a `while` (`do B while (C);` → `while (C) B`);
//! - `keep-old-value`: two assignments meant at once, made one after the other, keep the
//!   first's old value for the second (`a[j] = a[j + 1]; a[j + 1] = a[j];` →
//!   `int tmp = a[j]; a[j] = a[j + 1]; a[j + 1] = tmp;`);
//! - `string-equality`: strings compared with `==` compare their letters,
//!   `s == "yes"` → `strcmp(s, "yes") == 0`;
//! - `initialise`: a local declared without a value gets `0` or `1` (`{0}` for an array) where
//!   it is declared, the accumulator or counter a student forgot to start;
//! - `read-line`: a word read where the assignment reads a line, `scanf("%s", s)` →
//!   `scanf("%[^\n]", s)` (a name with spaces, a sentence);
//! - `cut-line-break`: the line break `fgets` keeps cut off after the read,
//!   `s[strcspn(s, "\n")] = '\0';` (with `#include <string.h>` where the file lacks it): the
//!   line printed with a line break of its own shows a blank line, and compared or measured
//!   it has one character too many;
//! - `insert-guard`: Wolverine2's guard insertion, an expression statement that should run
//!   only sometimes wrapped in `if (g)`, with `g` one of the reference's conditions renamed
//!   into the student's variables (against a reference) or of the function's own conditions
//!   (`s[i] = s[i] - 32;` → `if (s[i] >= 'a' && s[i] <= 'z') s[i] = s[i] - 32;`);
//! - `separator-between`: a separator a loop prints after (before) every item printed only
//!   between items ([`separators`]), in one loop, or in every loop that has the slip at once;
//! - `repeat-if`: an `if` whose body changes what its condition reads becomes a `while`
//!   (`if (s[i] == c) shift` → `while (s[i] == c) shift`: the second of two `c` in a row is
//!   left behind);
//! - `reverse-loop`: a counting `for` loop that runs the other way over the same range
//!   (`i = 0; i < n; i++` → `i = n - 1; i >= 0; i--`), or over the range shifted by one
//!   (`i = n; i > 0; i--`, the rows of a histogram from the top, a vector printed backwards).
//!
//! A candidate is a text edit in the student's layout; the caller applies it, lowers the text
//! again and runs the tests, so what is checked is what the student would get. The order is
//! the paper's priority (a deletion or a move is a smaller change than an insertion; the
//! targeted insertions before the general pointer statements), then the spectrum of the
//! statement the change touches (`suspiciousness`, highest first).

use std::collections::{HashMap, HashSet};

use crate::ir::walk::walk_expr;
use crate::ir::*;
use crate::smt::encode::{Location, LocationId, LocationKind};

use super::catalogue::{Mutant, MutationKind, Scope, struct_pointer};
use super::engine::Change;
use super::separators;

/// General pointer-statement insertions considered at most (the targeted pools are small).
pub const MAX_POINTER_INSERTIONS: usize = 4000;
/// Insertions of the reference's statements considered at most.
pub const MAX_REFERENCE_INSERTIONS: usize = 4000;
/// Statements of a loop's body repeated after it to finish the last item, per loop.
pub const MAX_FINISHING_STATEMENTS: usize = 6;
/// Guards added to statements considered at most.
pub const MAX_GUARD_INSERTIONS: usize = 2000;

/// One statement repair: its changes as the search reports them (one, but for the same
/// separator fix in several loops), and its rank.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub changes: Vec<Change>,
    /// 0: deletion or move; 1: targeted insertion; 2: the same separator fix in every loop,
    /// or a guard; 3: a general pointer statement.
    pub tier: u8,
    /// The statement whose spectrum ranks the candidate.
    pub at: Span,
}

/// Every statement repair of `program`'s non-frozen functions, best first (`suspiciousness`
/// scores a statement span; higher is more suspicious).
pub fn candidates(
    program: &Program,
    src: &str,
    frozen: &HashSet<String>,
    scope: &dyn Scope,
    reference: Option<&Program>,
    suspiciousness: &dyn Fn(Span) -> f64,
) -> Vec<Candidate> {
    let from_reference = reference.map(reference_statements).unwrap_or_default();
    let (guards, renamed_statements) = from_the_reference_space(program, src, frozen, reference);
    let mut cx = Collect {
        program,
        src,
        scope,
        from_reference,
        renamed_statements,
        guards,
        out: Vec::new(),
        chain_tails: HashSet::new(),
        pointer_insertions: 0,
        reference_insertions: 0,
        guard_insertions: 0,
        separators: [Vec::new(), Vec::new()],
        reference_separators: reference.map(separators::printed_separators).unwrap_or_default(),
        reference_line_widths: reference.map(line_widths).unwrap_or_default(),
        reference_directives: reference.map(printed_directives).unwrap_or_default(),
        reference_short_prints: reference.map(short_printed_texts).unwrap_or_default(),
    };
    for (i, f) in program.funcs.iter().enumerate() {
        if frozen.contains(&f.name) {
            continue;
        }
        if let Some(body) = &f.body {
            cx.stmt(FuncId(i as u32), body);
        }
    }
    // The same slip in several loops (`"%d "` in each): one candidate fixes them all, each
    // statement by its first candidate of the same form.
    for joint in &cx.separators {
        let mut changes: Vec<Change> = Vec::new();
        for change in joint {
            if !changes.iter().any(|c| c.location.span == change.location.span) {
                changes.push(change.clone());
            }
        }
        if changes.len() > 1 {
            let at = changes[0].location.span;
            cx.out.push(Candidate { changes, tier: 2, at });
        }
    }
    let mut out = cx.out;
    let mut seen = HashSet::new();
    out.retain(|c| {
        let edits: Vec<(Span, String)> =
            c.changes.iter().map(|x| (x.mutant.edit.span, x.mutant.edit.new_text.clone())).collect();
        seen.insert(edits)
    });
    // Stable: candidates of equal rank stay in source order.
    out.sort_by(|a, b| {
        a.tier
            .cmp(&b.tier)
            .then(suspiciousness(b.at).partial_cmp(&suspiciousness(a.at)).unwrap_or(std::cmp::Ordering::Equal))
    });
    out
}

struct Collect<'a> {
    program: &'a Program,
    src: &'a str,
    scope: &'a dyn Scope,
    /// The reference's expression statements, as written.
    from_reference: Vec<ReferenceStatement>,
    /// The expression statements of the reference's function of the same name, renamed into
    /// each student function's variables (tried first: as written, the reference's names are
    /// rarely the student's).
    renamed_statements: HashMap<FuncId, Vec<String>>,
    /// The conditions a statement of each function may be guarded with.
    guards: HashMap<FuncId, Vec<String>>,
    out: Vec<Candidate>,
    /// The `if`s of `else if` chains seen (a chain is reordered at its head only).
    chain_tails: HashSet<Span>,
    pointer_insertions: usize,
    reference_insertions: usize,
    guard_insertions: usize,
    /// Each separator candidate's change, by form (between items after each but the last,
    /// before each but the first).
    separators: [Vec<Change>; 2],
    /// The separators the reference prints, for loops that print none.
    reference_separators: Vec<Vec<u8>>,
    /// How many characters of a line the reference keeps (see [`line_widths`]).
    reference_line_widths: Vec<u64>,
    /// The reference's numeric `printf` directives (`%.2f`, `%02d`), each once.
    reference_directives: Vec<Vec<u8>>,
    /// The short texts the reference prints ([`short_printed_texts`]).
    reference_short_prints: Vec<Vec<u8>>,
}

impl Collect<'_> {
    fn text(&self, span: Span) -> &str {
        self.src.get(span.range()).unwrap_or("")
    }

    fn stmt(&mut self, func: FuncId, s: &Stmt) {
        // A statement directly in a block is guarded by `block`; one that is the whole body
        // of a branch or loop here.
        for body in sole_bodies(s) {
            self.guard(func, body);
        }
        let cond = match &s.kind {
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => Some(cond),
            StmtKind::For { cond, .. } => cond.as_ref(),
            _ => None,
        };
        if let Some(cond) = cond {
            self.read_line(func, s, cond);
            self.scanf_without_text(func, s, cond);
            self.string_equalities(func, s, cond);
        }
        if let StmtKind::Expr(e) | StmtKind::Return(Some(e)) = &s.kind {
            self.string_equalities(func, s, e);
        }
        match &s.kind {
            StmtKind::Block(items) => {
                self.block(func, items);
                items.iter().for_each(|x| self.stmt(func, x));
            }
            StmtKind::If { cond, then, els } => {
                self.reorder_chain(func, s);
                if els.is_none() {
                    self.repeat_if(func, s, cond, then);
                    self.else_print(func, s, then);
                }
                self.stmt(func, then);
                if let Some(e) = els {
                    self.stmt(func, e);
                }
            }
            StmtKind::While { cond, body } => {
                self.decided_in_first_round(func, body);
                self.loop_step(func, cond, body);
                self.separators(func, s);
                self.stmt(func, body);
            }
            StmtKind::For { cond: Some(cond), step: None, body, .. } => {
                self.decided_in_first_round(func, body);
                self.loop_step(func, cond, body);
                self.stmt(func, body);
            }
            StmtKind::For { body, .. } => {
                self.decided_in_first_round(func, body);
                self.separators(func, s);
                self.reverse_loop(func, s);
                self.stmt(func, body);
            }
            StmtKind::DoWhile { body, cond } => {
                self.decided_in_first_round(func, body);
                self.test_first(func, s, body, cond);
                self.stmt(func, body)
            }
            StmtKind::Switch { arms, .. } => {
                self.missing_breaks(func, arms);
                for arm in arms {
                    self.block(func, &arm.body);
                    arm.body.iter().for_each(|x| self.stmt(func, x));
                }
            }
            StmtKind::Decl { var, init: None } => self.initialise(func, s, *var),
            _ => {}
        }
    }

    /// A quotient of integers printed as a fraction (`printf("%.2f", sum / n)`) divided in
    /// `double` (the catalogue's `integer-division`; the printed value changes type, which
    /// only a statement repair may do).
    fn printed_quotients(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        for m in super::catalogue::printed_quotient_mutants(self.program, self.src, e) {
            self.push(func, s, MutationKind::IntegerDivision, m.edit, m.description, 1);
        }
    }

    /// A loop that decides on its first round: an `if` in its body whose branches both leave
    /// the loop (`if (a[i] == k) { found; return; } else { not found; return; }`), so no
    /// second item is ever looked at. Deleting the `else` lets the loop go on to the next
    /// item (what the `else` said belongs after the loop, where it often is already).
    fn decided_in_first_round(&mut self, func: FuncId, body: &Stmt) {
        let leaves_loop = |s: &Stmt| !crate::ir::flow::flow(s).stays_in_loop();
        fn ifs<'s>(s: &'s Stmt, out: &mut Vec<&'s Stmt>) {
            match &s.kind {
                StmtKind::Block(items) => items.iter().for_each(|x| ifs(x, out)),
                StmtKind::If { then, els, .. } => {
                    out.push(s);
                    ifs(then, out);
                    if let Some(e) = els {
                        ifs(e, out);
                    }
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        ifs(body, &mut found);
        for s in found {
            let StmtKind::If { then, els: Some(els), .. } = &s.kind else { continue };
            if !leaves_loop(then) || !leaves_loop(els) {
                continue;
            }
            let edit =
                TextEdit { span: Span::new(then.span.end as usize, els.span.end as usize), new_text: String::new() };
            let description = match one_line(self.text(els.span)) {
                Some(line) if line.len() <= 40 => format!("delete `else {line}`"),
                _ => "delete the `else` branch".to_string(),
            };
            self.push(func, s, MutationKind::DeleteStatement, edit, description, 1);
        }
    }

    /// Two assignments meant to happen at once, made one after the other: the second reads
    /// what the first has just overwritten (a swap, `a[j] = a[j + 1]; a[j + 1] = a[j];`; a
    /// pair of a sequence moved on, `f2 = f1 + f2; f1 = f2;`). The first's old value is kept
    /// in a new variable, and the second reads that: `int tmp = a[j]; a[j] = a[j + 1];
    /// a[j + 1] = tmp;`. The declaration opens the block where only declarations come before
    /// (C90 allows it there); elsewhere the three statements are a block of their own.
    fn keep_old_value(&mut self, func: FuncId, first: &Stmt, second: &Stmt, declarations_only_before: bool) {
        fn assigned(s: &Stmt) -> Option<(&Expr, &Expr)> {
            let StmtKind::Expr(e) = &s.kind else { return None };
            match &e.kind {
                ExprKind::Assign(lhs, rhs) | ExprKind::CompoundAssign { lhs, rhs, .. } => Some((lhs, rhs)),
                _ => None,
            }
        }
        let (Some((overwritten, _)), Some((target, value))) = (assigned(first), assigned(second)) else { return };
        if !matches!(overwritten.ty, Type::Int(_) | Type::Float(_) | Type::Pointer(_))
            || crate::ir::walk::has_effects(overwritten)
        {
            return;
        }
        let compact = |span: Span| -> String { self.text(span).split_whitespace().collect() };
        let old = compact(overwritten.span);
        if old.is_empty() || compact(target.span) == old {
            return;
        }
        let mut reads = Vec::new();
        walk_expr(value, &mut |x| {
            if compact(x.span) == old && !reads.iter().any(|r: &Span| r.start <= x.span.start && x.span.end <= r.end) {
                reads.push(x.span);
            }
        });
        if reads.is_empty() {
            return;
        }
        let Some(name) = self.unused_name(&["tmp", "temp", "old", "aux", "saved"]) else { return };
        // The second statement's text with each read of the old value renamed.
        let mut renamed = self.text(second.span).to_string();
        reads.sort_by_key(|r| std::cmp::Reverse(r.start));
        for r in &reads {
            let at = (r.start - second.span.start) as usize..(r.end - second.span.start) as usize;
            renamed.replace_range(at, name);
        }
        let declaration =
            format!("{} {name} = {};", self.program.type_name(&overwritten.ty), self.text(overwritten.span).trim());
        let indent = crate::ir::indentation(self.src, first.span.start as usize);
        let between = self.text(Span::new(first.span.start as usize, second.span.start as usize)).to_string();
        let span = Span::new(first.span.start as usize, second.span.end as usize);
        let new_text = if declarations_only_before {
            format!("{declaration}\n{indent}{between}{renamed}")
        } else {
            let between = between.replace('\n', "\n    ");
            format!("{{\n{indent}    {declaration}\n{indent}    {between}{renamed}\n{indent}}}")
        };
        let description = match (one_line(self.text(first.span)), one_line(&renamed)) {
            (Some(a), Some(b)) => format!("keep the old `{old}` in `{name}`: `{declaration} {a} {b}`"),
            _ => format!("keep the old `{old}` in `{name}` before it is overwritten"),
        };
        self.push(func, first, MutationKind::KeepOldValue, TextEdit { span, new_text }, description, 1);
    }

    /// The first of `names` that the text nowhere uses as an identifier.
    fn unused_name(&self, names: &[&'static str]) -> Option<&'static str> {
        let used: HashSet<&str> =
            self.src.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        names.iter().copied().find(|n| !used.contains(n))
    }

    /// A `do … while` whose body must not run when the condition fails at once (a table
    /// from `lo` to `hi` with `lo > hi`, `n` = 0 items) tests first: `do B while (C);` →
    /// `while (C) B`.
    fn test_first(&mut self, func: FuncId, s: &Stmt, body: &Stmt, cond: &Expr) {
        let (test, block) = (self.text(cond.span).trim(), self.text(body.span));
        if test.is_empty() || block.is_empty() || self.text(s.span).contains("/*") || self.text(s.span).contains("//") {
            return;
        }
        let bare = crate::ir::without_parentheses(test);
        let test = format!("({bare})");
        let edit = TextEdit { span: s.span, new_text: format!("while {test} {block}") };
        let description = format!("test `{bare}` before each round: `do … while {test};` → `while {test} …`");
        self.push(func, s, MutationKind::TestFirst, edit, description, 0);
    }

    /// An `else if` chain whose tests compare one value with constants in an order that
    /// hides an arm: after `avg >= 60`, `avg >= 70` can never hold (a grade scale written
    /// from the bottom). The arms, each test with its statement, are put in the order where
    /// none hides a later one: from the highest threshold down for `>`/`>=`, from the lowest
    /// up for `<`/`<=`; the final `else` stays last. Only a chain's head offers it.
    fn reorder_chain(&mut self, func: FuncId, head: &Stmt) {
        // The arms: (the compared value's text, the direction, the threshold, test, statement).
        let mut arms: Vec<(String, bool, f64, &Expr, &Stmt)> = Vec::new();
        let mut at = head;
        while let StmtKind::If { cond, then, els } = &at.kind {
            if arms.is_empty() && self.chain_tails.contains(&at.span) {
                return;
            }
            self.chain_tails.insert(at.span);
            let Some((value, upward, threshold)) = self.threshold_test(cond) else { return };
            arms.push((value, upward, threshold, cond, then));
            match els.as_deref() {
                Some(next @ Stmt { kind: StmtKind::If { .. }, .. }) => at = next,
                _ => break,
            }
        }
        if arms.len() < 2 || arms.iter().any(|a| a.0 != arms[0].0 || a.1 != arms[0].1) {
            return;
        }
        // `upward` (`x >= c`): a later arm with a higher threshold is hidden.
        let key = |a: &(String, bool, f64, &Expr, &Stmt)| if a.1 { -a.2 } else { a.2 };
        let hides = arms.windows(2).any(|w| key(&w[0]) > key(&w[1]));
        if !hides {
            return;
        }
        let mut order: Vec<usize> = (0..arms.len()).collect();
        order.sort_by(|&a, &b| key(&arms[a]).partial_cmp(&key(&arms[b])).unwrap_or(std::cmp::Ordering::Equal));
        let (start, end) = (arms[0].3.span.start as usize, arms[arms.len() - 1].4.span.end as usize);
        let mut new_text = String::new();
        let mut from = start;
        // Each arm moves whole, its test with its statement as written; the `else if`
        // between the arms stays.
        let arm_text = |k: usize| &self.src[arms[k].3.span.start as usize..arms[k].4.span.end as usize];
        for (slot, &k) in order.iter().enumerate() {
            new_text.push_str(&self.src[from..arms[slot].3.span.start as usize]);
            new_text.push_str(arm_text(k));
            from = arms[slot].4.span.end as usize;
        }
        let tests: Vec<String> =
            order.iter().map(|&k| format!("`{}`", crate::ir::without_parentheses(self.text(arms[k].3.span)))).collect();
        let description = format!("reorder the tests: {} first, then {}", tests[0], tests[1..].join(", "));
        let edit = TextEdit { span: Span::new(start, end), new_text };
        self.push(func, head, MutationKind::ReorderConditions, edit, description, 0);
    }

    /// `x >= 60` (or `60 <= x`, `x > 60`): the compared value's text, whether the test holds
    /// from the threshold up, and the threshold.
    fn threshold_test(&self, cond: &Expr) -> Option<(String, bool, f64)> {
        fn constant(e: &Expr) -> Option<f64> {
            match &e.strip_implicit().kind {
                ExprKind::Int(n) => Some(*n as f64),
                ExprKind::Float(x) => Some(*x),
                ExprKind::Unary(UnOp::Neg, x) => constant(x).map(|v| -v),
                _ => None,
            }
        }
        let ExprKind::Binary(op, a, b) = &cond.strip_implicit().kind else { return None };
        let (op, value, threshold) = match (constant(a), constant(b)) {
            (None, Some(t)) => (*op, a, t),
            (Some(t), None) => (op.flipped(), b, t),
            _ => return None,
        };
        let upward = match op {
            BinOp::Gt | BinOp::Ge => true,
            BinOp::Lt | BinOp::Le => false,
            _ => return None,
        };
        if crate::ir::walk::has_effects(value) {
            return None;
        }
        Some((self.text(value.span).split_whitespace().collect(), upward, threshold))
    }

    /// Strings compared with `==` where their letters were meant: `strcmp(s, "yes") == 0`
    /// ([`crate::ir::string_equality_edit`]), with `#include <string.h>` where it is missing.
    fn string_equalities(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let mut edits = Vec::new();
        walk_expr(e, &mut |x| edits.extend(crate::ir::string_equality_edit(self.src, x)));
        for edit in edits {
            let inner = crate::ir::without_parentheses;
            let description = format!("`{}` → `{}`", inner(self.text(edit.span)), inner(&edit.new_text));
            let mut changes = vec![self.change(func, s, MutationKind::StringEquality, edit, description)];
            if let Some(include) = crate::syntax::include_lines::include_edit(self.src, "string.h") {
                let description = "add `#include <string.h>`".to_string();
                changes.push(self.change(func, s, MutationKind::IncludeHeader, include, description));
            }
            self.out.push(Candidate { changes, tier: 1, at: s.span });
        }
    }

    /// `break;` at the end of a `case` whose statements run on into the next one: C's
    /// fall-through, where the student meant each `case` to stand alone.
    fn missing_breaks(&mut self, func: FuncId, arms: &[SwitchArm]) {
        for pair in arms.windows(2) {
            let Some(last) = pair[0].body.last() else { continue };
            if !crate::ir::flow::sequence(&pair[0].body).normal {
                continue;
            }
            let (_, edit, _) = self.insertion(&Insertion::After(last), "break;");
            let label = match pair[0].label {
                Some(_) => format!("case {}", self.text(pair[0].label_span)),
                None => "default".to_string(),
            };
            let description = format!("add `break;` at the end of `{label}:`");
            self.push(func, last, MutationKind::InsertStatement, edit, description, 1);
        }
    }

    /// Moves and deletions between a block's statements, the terminator after a loop, and
    /// the pointer statements before each statement and at the block's end.
    fn block(&mut self, func: FuncId, items: &[Stmt]) {
        for (i, s) in items.iter().enumerate() {
            if let Some(next) = items.get(i + 1) {
                self.swap(func, s, next);
                self.keep_old_value(func, s, next, items[..i].iter().all(|x| matches!(x.kind, StmtKind::Decl { .. })));
                self.stray_semicolon(func, s, next);
            }
            if let StmtKind::Expr(e) = &s.kind {
                self.delete(func, s, e);
                self.keep_result(func, s, e);
                self.guard(func, s);
                self.read_line(func, s, e);
                self.scanf_without_text(func, s, e);
                self.printf_directives(func, s, e);
                self.printed_quotients(func, s, e);
            }
            self.cut_line_break(func, s);
            if matches!(s.kind, StmtKind::While { .. } | StmtKind::For { .. } | StmtKind::DoWhile { .. }) {
                self.across_loop_edge(func, s, i.checked_sub(1).map(|b| &items[b]), items.get(i + 1));
                self.terminator_after(func, s);
                self.repeated_read(func, s, &items[..i]);
                self.finish_after(func, s);
            }
            if i == 0
                && let Some(changes) = separators::across_loops(self.program, self.src, items)
            {
                self.push_joint(func, changes);
            }
            self.reference_statements_at(func, &Insertion::Before(s), items);
            self.pointer_statements(func, &Insertion::Before(s));
        }
        if let Some(last) = items.last()
            && !matches!(last.kind, StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue)
        {
            self.reference_statements_at(func, &Insertion::After(last), items);
            self.pointer_statements(func, &Insertion::After(last));
        }
    }

    fn push(&mut self, func: FuncId, at: &Stmt, kind: MutationKind, edit: TextEdit, description: String, tier: u8) {
        let change = self.change(func, at, kind, edit, description);
        self.out.push(Candidate { changes: vec![change], tier, at: at.span });
    }

    /// A statement repair as the search reports it: a location standing for the statement;
    /// the lines its edit inserts end as the file's do.
    fn change(&self, func: FuncId, at: &Stmt, kind: MutationKind, edit: TextEdit, description: String) -> Change {
        let location = Location {
            id: LocationId(u32::MAX),
            func,
            span: at.span,
            expr: Expr::new(ExprKind::Int(0), Type::INT, at.span),
            kind: LocationKind::Statement,
        };
        let edit = TextEdit { new_text: crate::ir::in_line_breaks_of(self.src, &edit.new_text), ..edit };
        let mutant = Mutant { expr: location.expr.clone(), kind, edit, description };
        Change { location, mutant }
    }

    /// `s` (an expression statement that changes something or prints) wrapped in `if (g)`
    /// for each guard of its function.
    fn guard(&mut self, func: FuncId, s: &Stmt) {
        let StmtKind::Expr(e) = &s.kind else { return };
        if !crate::ir::walk::has_effects(e) {
            return;
        }
        let text = self.text(s.span).to_string();
        if text.is_empty() || !text.ends_with(';') || text.contains('\n') {
            return;
        }
        let guards = self.guards.get(&func).cloned().unwrap_or_default();
        for g in guards {
            if self.guard_insertions >= MAX_GUARD_INSERTIONS {
                return;
            }
            self.guard_insertions += 1;
            let edit = TextEdit {
                span: Span::new(s.span.start as usize, s.span.start as usize),
                new_text: format!("if ({g}) "),
            };
            let description = format!("do `{text}` only if `{g}`");
            self.push(func, s, MutationKind::InsertGuard, edit, description, 2);
        }
    }

    /// Every `scanf` in `e` (of statement `s`) that reads a word with `%s` reads the line
    /// instead: `%[^\n]`, the width kept. Into an array of `n` bytes, a `%s` or `%[` without
    /// a width also reads at most what fits, `n - 1` bytes and the `'\0'` (a longer line or
    /// word runs past the array's end): `%19[^\n]`, `%19s`.
    fn read_line(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let mut edits = Vec::new();
        for (args, fmt, bytes) in literal_format_calls(e, Builtin::Scanf) {
            let written = self.text(fmt.span);
            let Ok(pieces) = crate::ir::format::parse(bytes.strip_suffix(&[0]).unwrap_or(bytes), true) else {
                continue;
            };
            let mut arg = 0;
            for p in pieces {
                let crate::ir::format::Piece::Directive(d) = p else { continue };
                if d.suppress || d.conv == '%' {
                    continue;
                }
                arg += 1;
                if d.conv != 's' && d.conv != '[' {
                    continue;
                }
                // The directive as written, found once in the literal's text.
                let directive = String::from_utf8_lossy(&bytes[d.start..d.end]).into_owned();
                let (Some(at), 1) = (written.find(&directive), written.matches(&directive).count()) else { continue };
                let start = fmt.span.start as usize + at;
                let span = Span::new(start, start + directive.len());
                let array = args.get(arg).and_then(|a| match a.strip_implicit().kind {
                    ExprKind::Var(v) => Some(&self.program.var(v).ty),
                    _ => None,
                });
                let fits = match (&d.width, array) {
                    (crate::ir::format::Count::None, Some(Type::Array(_, Some(n)))) if *n > 1 => Some(n - 1),
                    _ => None,
                };
                let mut offer = |new: String, what: &str| {
                    let edit = TextEdit { span, new_text: new.clone() };
                    edits.push((edit, format!("{what}: `{directive}` → `{new}`")));
                };
                if d.conv == 's' {
                    offer(format!("{}[^\\n]", &directive[..directive.len() - 1]), "read the whole line");
                    if let Some(n) = fits {
                        offer(format!("%{n}[^\\n]"), "read the whole line, as much as the array holds");
                        offer(format!("%{n}s"), "read at most what the array holds");
                        // A reference that keeps at most `w` characters of a line answers
                        // for those only: the line read as far as it reads it.
                        for &w in self.reference_line_widths.iter().filter(|&&w| w < n) {
                            offer(format!("%{w}[^\\n]"), "read the line as far as the reference reads it");
                        }
                    }
                } else if let Some(n) = fits {
                    offer(format!("%{n}{}", &directive[1..]), "read at most what the array holds");
                }
            }
        }
        for (edit, description) in edits {
            self.push(func, s, MutationKind::ReadLine, edit, description, 1);
        }
    }

    /// Every `scanf` in `e` (of statement `s`) whose format matches literal text the input
    /// may not have (`"%d,%d"`, `"x=%d"`, a prompt copied into the format) reads without it:
    /// each run of characters other than directives and white space goes, one between two
    /// directives leaving a space (`"%d,%d"` → `"%d %d"`). `scanf` stops at the first byte
    /// that does not match, leaving the variables after it unset.
    fn scanf_without_text(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let mut edits = Vec::new();
        for (_, fmt, _) in literal_format_calls(e, Builtin::Scanf) {
            let written = self.text(fmt.span);
            if let Some(new) = scanf_format_without_text(written) {
                let description = format!("read without the text the input does not have: `{written}` → `{new}`");
                edits.push((TextEdit { span: fmt.span, new_text: new }, description));
            }
        }
        for (edit, description) in edits {
            self.push(func, s, MutationKind::ScanfText, edit, description, 1);
        }
    }

    /// Every numeric directive of a `printf` in `e` (of statement `s`) printed as the
    /// reference prints a number of its kind (`%2.f` → `%.2f`, `%.1f` → `%f`), plainly
    /// (`%5d` → `%d`), or with its width zero-filled (`%2d` → `%02d`): its flags, width and
    /// precision changed, its length and conversion kept. A directive written the same way
    /// several times in the format changes at each, in one candidate (`"%2d:%2d"` →
    /// `"%02d:%02d"`): a student makes the same slip once per value.
    fn printf_directives(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let mut edits = Vec::new();
        for (_, fmt, bytes) in literal_format_calls(e, Builtin::Printf) {
            let written = self.text(fmt.span);
            let Ok(pieces) = crate::ir::format::parse(bytes, false) else { continue };
            let directives: Vec<&[u8]> = pieces
                .iter()
                .filter_map(|p| match p {
                    crate::ir::format::Piece::Directive(d) if number_class(d.conv).is_some() => {
                        Some(&bytes[d.start..d.end])
                    }
                    _ => None,
                })
                .collect();
            let mut done: Vec<&[u8]> = Vec::new();
            for &old in &directives {
                if done.contains(&old) {
                    continue;
                }
                done.push(old);
                let old_text = String::from_utf8_lossy(old).into_owned();
                // Each occurrence in the text is one of these directives (no `%%` before it).
                let same = directives.iter().filter(|d| **d == old).count();
                if written.matches(&old_text).count() != same {
                    continue;
                }
                let (prefix, suffix) = directive_parts(old);
                let class = number_class(*old.last().expect("a conversion") as char);
                let mut news: Vec<Vec<u8>> = self
                    .reference_directives
                    .iter()
                    .filter(|r| number_class(*r.last().expect("a conversion") as char) == class)
                    .map(|r| [directive_parts(r).0, suffix].concat())
                    .collect();
                news.push([b"%".as_slice(), suffix].concat());
                // A width without its `0` (`%2d` for `%02d`, a clock's digits).
                if prefix.len() > 1 && prefix[1].is_ascii_digit() && prefix[1] != b'0' {
                    news.push([b"%0".as_slice(), &prefix[1..], suffix].concat());
                }
                let mut offered: Vec<Vec<u8>> = Vec::new();
                for new in news {
                    if new == old || offered.contains(&new) {
                        continue;
                    }
                    let new_text = String::from_utf8_lossy(&new).into_owned();
                    // One edit per occurrence, each the directive alone: a second change may
                    // then fix the text between them (`%02d::%02d` → `%02d:%02d`).
                    let at = fmt.span.start as usize;
                    let occurrences: Vec<TextEdit> = written
                        .match_indices(&old_text)
                        .map(|(k, _)| TextEdit {
                            span: Span::new(at + k, at + k + old_text.len()),
                            new_text: new_text.clone(),
                        })
                        .collect();
                    edits.push((occurrences, format!("`{old_text}` → `{new_text}`")));
                    offered.push(new);
                }
            }
        }
        for (occurrences, description) in edits {
            let changes = occurrences
                .into_iter()
                .map(|edit| self.change(func, s, MutationKind::PrintfDirective, edit, description.clone()))
                .collect();
            self.out.push(Candidate { changes, tier: 1, at: s.span });
        }
    }

    /// After a statement that reads a line with `fgets(s, n, f)` into an array or pointer
    /// variable `s`, the line break the read keeps cut off: `s[strcspn(s, "\n")] = '\0';`.
    /// A read in an `if`'s or a `while`'s condition (`while (fgets(s, n, stdin) != NULL)`) is
    /// cut at the start of the braced body that runs after it, and a read in an `if`'s
    /// condition also after the `if`. Where the file does not include `<string.h>`, the
    /// include is a second change of the same candidate.
    fn cut_line_break<'s>(&mut self, func: FuncId, s: &'s Stmt) {
        let first_in = |body: &'s Stmt| match &body.kind {
            StmtKind::Block(items) => items.first(),
            _ => None,
        };
        let (read, places): (&Expr, Vec<Insertion<'s>>) = match &s.kind {
            StmtKind::Expr(e) => (e, vec![Insertion::After(s)]),
            StmtKind::If { cond, then, .. } => {
                (cond, first_in(then).map(Insertion::Before).into_iter().chain([Insertion::After(s)]).collect())
            }
            StmtKind::While { cond, body } => (cond, first_in(body).map(Insertion::Before).into_iter().collect()),
            _ => return,
        };
        let mut buffers = Vec::new();
        walk_expr(read, &mut |x| {
            if let ExprKind::Call(Callee::Builtin(Builtin::Fgets), args) = &x.kind
                && let Some(ExprKind::Var(v)) = args.first().map(|a| &a.strip_implicit().kind)
                && self.program.var(*v).ty.is_char_pointer()
                && !buffers.contains(v)
            {
                buffers.push(*v);
            }
        });
        for v in buffers {
            let name = &self.program.var(v).name;
            let statement = format!("{name}[strcspn({name}, \"\\n\")] = '\\0';");
            for place in &places {
                let (anchor, edit, _) = self.insertion(place, &statement);
                let description = format!("cut the line break `fgets` keeps: add `{statement}`");
                let mut changes = vec![self.change(func, anchor, MutationKind::CutLineBreak, edit, description)];
                if let Some(include) = crate::syntax::include_lines::include_edit(self.src, "string.h") {
                    let description = "add `#include <string.h>`".to_string();
                    changes.push(self.change(func, anchor, MutationKind::IncludeHeader, include, description));
                }
                self.out.push(Candidate { changes, tier: 1, at: s.span });
            }
        }
    }

    /// `a; b;` → `b; a;` for two expression statements (a declaration's scope would move).
    fn swap(&mut self, func: FuncId, a: &Stmt, b: &Stmt) {
        let (StmtKind::Expr(_), StmtKind::Expr(_)) = (&a.kind, &b.kind) else { return };
        let (ta, tb) = (self.text(a.span), self.text(b.span));
        let Some(gap) = self.src.get(a.span.end as usize..b.span.start as usize) else { return };
        if ta.is_empty() || tb.is_empty() || !gap.trim().is_empty() {
            return; // a comment or a macro between them: no exact edit
        }
        let edit = TextEdit {
            span: Span::new(a.span.start as usize, b.span.end as usize),
            new_text: format!("{tb}{gap}{ta}"),
        };
        let description = format!("move `{tb}` before `{ta}`");
        self.push(func, b, MutationKind::MoveStatement, edit, description, 0);
    }

    /// The statements next to an edge of loop `lp` moved across it: the body's last statement
    /// after the loop, its first before the loop, the statement `after` the loop to the end of
    /// its body, the one `before` it to the start of its body; and across the whole loop, the
    /// statement `before` it to after it, the one `after` it to before it. Only expression statements and
    /// `if`s that neither leave a loop nor return, never one that changes what the loop's
    /// condition reads (the loop would no longer end, or start), and out of the loop only one
    /// that reads no variable declared in it. Each is one edit from the moved statement to
    /// the far side of the edge, in the student's indentation.
    fn across_loop_edge(&mut self, func: FuncId, lp: &Stmt, before: Option<&Stmt>, after: Option<&Stmt>) {
        let (cond, body) = match &lp.kind {
            StmtKind::While { cond, body } | StmtKind::DoWhile { cond, body } => (Some(cond), &**body),
            StmtKind::For { cond, body, .. } => (cond.as_ref(), &**body),
            _ => return,
        };
        let StmtKind::Block(items) = &body.kind else { return };
        let steers: HashSet<VarId> =
            cond.map(|c| vars_read_but(c, &HashSet::new())).unwrap_or_default().into_iter().collect();
        let movable = |s: &Stmt| {
            matches!(s.kind, StmtKind::Expr(_) | StmtKind::If { .. })
                && crate::ir::walk::assigned_vars(s).is_disjoint(&steers)
                && !jumps(s)
                && !self.text(s.span).is_empty()
        };
        // Out of the body: nothing it reads may be declared in the loop (outside itself).
        let outside_only = |s: &Stmt| !self.reads_loop_local(s, lp.span);
        let src = self.src;
        let (at, end) = (|sp: Span| sp.start as usize, |sp: Span| sp.end as usize);
        let loop_indent = crate::ir::indentation(src, at(lp.span));
        // Where the white space before `s` starts.
        let lead = |s: &Stmt| src[..at(s.span)].trim_end().len();
        let gap_is_blank = |from: usize, to: usize| src.get(from..to).is_some_and(|g| g.trim().is_empty());
        let mut moves: Vec<(&Stmt, TextEdit, String)> = Vec::new();
        if items.len() >= 2 {
            let (first, last) = (&items[0], &items[items.len() - 1]);
            let text = |s: &Stmt| self.text(s.span).to_string();
            if movable(last) && outside_only(last) {
                let new_text = format!("{}\n{loop_indent}{}", &src[end(last.span)..end(lp.span)], text(last));
                let edit = TextEdit { span: Span::new(lead(last), end(lp.span)), new_text };
                moves.push((last, edit, format!("move `{}` after the loop", brief(&text(last)))));
            }
            // Before the loop only what reads nothing the loop changes (`sum = 0;`).
            let changed = crate::ir::walk::assigned_vars(lp);
            let reads_changed = match &first.kind {
                // `s = e;` reads `e` only.
                StmtKind::Expr(Expr { kind: ExprKind::Assign(target, value), .. })
                    if matches!(target.kind, ExprKind::Var(_)) =>
                {
                    vars_read_but(value, &HashSet::new()).iter().any(|v| changed.contains(v))
                }
                _ => {
                    let mut hit = false;
                    crate::ir::walk::walk_stmt(first, &mut |x| {
                        hit |= matches!(&x.kind, ExprKind::Var(v) if changed.contains(v));
                    });
                    hit
                }
            };
            if movable(first) && outside_only(first) && !reads_changed && !matches!(lp.kind, StmtKind::DoWhile { .. }) {
                let new_text = format!("{}\n{loop_indent}{}", text(first), &src[at(lp.span)..lead(first)]);
                let edit = TextEdit { span: Span::new(at(lp.span), end(first.span)), new_text };
                moves.push((first, edit, format!("move `{}` before the loop", brief(&text(first)))));
            }
        }
        if let (Some(last), Some(next)) = (items.last(), after)
            && movable(next)
            && gap_is_blank(end(lp.span), at(next.span))
        {
            let indent = crate::ir::indentation(src, at(last.span));
            let new_text = format!("\n{indent}{}{}", self.text(next.span), &src[end(last.span)..end(lp.span)]);
            let edit = TextEdit { span: Span::new(end(last.span), end(next.span)), new_text };
            moves.push((
                next,
                edit,
                format!("move `{}` into the loop, at the end of its body", brief(self.text(next.span))),
            ));
        }
        if let (Some(first), Some(prev)) = (items.first(), before)
            && movable(prev)
            && gap_is_blank(end(prev.span), at(lp.span))
            && !matches!(lp.kind, StmtKind::DoWhile { .. })
        {
            let indent = crate::ir::indentation(src, at(first.span));
            let new_text = format!("{}{}\n{indent}", &src[at(lp.span)..at(first.span)], self.text(prev.span));
            let edit = TextEdit { span: Span::new(at(prev.span), at(first.span)), new_text };
            moves.push((
                prev,
                edit,
                format!("move `{}` into the loop, at the start of its body", brief(self.text(prev.span))),
            ));
        }
        // Across the whole loop: a result finished before the loop has computed it (`if (neg)
        // r = -r;` before the loop that builds `r`), or a start made after it.
        let loop_text = &src[at(lp.span)..end(lp.span)];
        if let Some(prev) = before
            && movable(prev)
            && gap_is_blank(end(prev.span), at(lp.span))
        {
            let new_text = format!("{loop_text}\n{loop_indent}{}", self.text(prev.span));
            let edit = TextEdit { span: Span::new(at(prev.span), end(lp.span)), new_text };
            moves.push((prev, edit, format!("move `{}` after the loop", brief(self.text(prev.span)))));
        }
        if let Some(next) = after
            && movable(next)
            && gap_is_blank(end(lp.span), at(next.span))
        {
            let new_text = format!("{}\n{loop_indent}{loop_text}", self.text(next.span));
            let edit = TextEdit { span: Span::new(at(lp.span), end(next.span)), new_text };
            moves.push((next, edit, format!("move `{}` before the loop", brief(self.text(next.span)))));
        }
        for (s, edit, description) in moves {
            self.push(func, s, MutationKind::MoveStatement, edit, description, 0);
        }
    }

    /// `for (…);` / `while (…);` / `if (…);` followed by a statement: the `;` that ends the
    /// header makes the body empty and the next statement run once, after the loop (or
    /// always). Deleting it makes the next statement the body.
    fn stray_semicolon(&mut self, func: FuncId, s: &Stmt, next: &Stmt) {
        let body = match &s.kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => body,
            StmtKind::If { then, els: None, .. } => then,
            _ => return,
        };
        if !matches!(body.kind, StmtKind::Empty) || self.text(body.span) != ";" {
            return;
        }
        let head = first_line(self.text(Span::new(s.span.start as usize, body.span.start as usize)));
        let edit = TextEdit { span: body.span, new_text: String::new() };
        let next = first_line(self.text(next.span));
        let ended = if matches!(s.kind, StmtKind::If { .. }) {
            format!("the `if`, so `{next}` ran always")
        } else {
            format!("the loop, so `{next}` ran once, after it")
        };
        let description = format!("delete the `;` after `{head}` (it ended {ended})");
        self.push(func, s, MutationKind::StraySemicolon, edit, description, 0);
    }

    /// Deletes an assignment or update statement (`x = e;`, `x += e;`, `x++;`), or a
    /// statement that only prints.
    fn delete(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let kind = match &e.kind {
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) => {
                MutationKind::DeleteStatement
            }
            ExprKind::Call(Callee::Builtin(b), _) if b.writes_output() => MutationKind::DeleteOutput,
            _ => return,
        };
        let text = self.text(s.span);
        if text.is_empty() {
            return;
        }
        let edit = TextEdit { span: deletion_span(self.src, s.span), new_text: String::new() };
        let description = format!("delete `{text}`");
        self.push(func, s, kind, edit, description, 0);
    }

    /// `f(x, …);` whose value is thrown away → `x = f(x, …);` for each variable argument of
    /// the call's type.
    fn keep_result(&mut self, func: FuncId, s: &Stmt, e: &Expr) {
        let ExprKind::Call(_, args) = &e.kind else { return };
        if matches!(e.ty, Type::Void | Type::Error) {
            return;
        }
        let call = self.text(e.span).to_string();
        if call.is_empty() {
            return;
        }
        let mut seen = Vec::new();
        for a in args {
            let ExprKind::Var(v) = a.strip_implicit().kind else { continue };
            let var = self.program.var(v);
            if seen.contains(&v) || !assignable_from(&var.ty, &e.ty) {
                continue;
            }
            seen.push(v);
            let edit = TextEdit {
                span: Span::new(e.span.start as usize, e.span.start as usize),
                new_text: format!("{} = ", var.name),
            };
            let description = format!("keep the result: `{} = {call}`", var.name);
            self.push(func, s, MutationKind::InsertStatement, edit, description, 1);
        }
    }

    /// The missing step of a loop whose body never changes a variable its condition reads.
    fn loop_step(&mut self, func: FuncId, cond: &Expr, body: &Stmt) {
        let written = crate::ir::walk::assigned_vars(body);
        for v in vars_read_but(cond, &written) {
            let var = self.program.var(v);
            let name = var.name.clone();
            let steps: Vec<String> = if struct_pointer(&var.ty) {
                self.fields_of_type(&var.ty, &var.ty).into_iter().map(|f| format!("{name} = {name}->{f};")).collect()
            } else if var.ty.is_integer() {
                vec![format!("{name}++;"), format!("{name}--;")]
            } else {
                Vec::new()
            };
            for step in steps {
                let description = format!("add `{step}` at the end of the loop");
                let edit = self.append_to(body, &step);
                self.push(func, body, MutationKind::RepeatRead, edit, description, 1);
            }
        }
    }

    /// The priming read repeated: a loop whose condition reads a variable that nothing in the
    /// loop reads again (no call in its body or step sets it: `c = c - 32` may), last set
    /// before the loop by a statement with a call (`c = getchar();`, `scanf("%d", &x);`),
    /// gets that statement again at the end of its body, where the next value is read.
    fn repeated_read(&mut self, func: FuncId, lp: &Stmt, before: &[Stmt]) {
        let (cond, step, body) = match &lp.kind {
            StmtKind::While { cond, body } => (cond, None, body),
            StmtKind::For { cond: Some(cond), step, body, .. } => (cond, step.as_ref(), body),
            _ => return,
        };
        // The variables a call in the loop sets: assigned its result, or passed by address.
        let mut read_again = HashSet::new();
        let mut note = |x: &Expr| match &x.kind {
            ExprKind::Assign(lhs, rhs) if has_call(rhs) => {
                if let ExprKind::Var(v) = lhs.strip_implicit().kind {
                    read_again.insert(v);
                }
            }
            ExprKind::Call(_, args) => {
                for a in args {
                    if let ExprKind::AddrOf(inner) = &a.strip_implicit().kind
                        && let ExprKind::Var(v) = inner.strip_implicit().kind
                    {
                        read_again.insert(v);
                    }
                }
            }
            _ => {}
        };
        crate::ir::walk::walk_stmt(body, &mut note);
        if let Some(step) = step {
            walk_expr(step, &mut note);
        }
        walk_expr(cond, &mut note);
        for v in vars_read_but(cond, &read_again) {
            let Some(last) = before.iter().rev().find(|s| crate::ir::walk::assigned_vars(s).contains(&v)) else {
                continue;
            };
            let statement = match &last.kind {
                StmtKind::Expr(e) if has_call(e) => self.text(last.span).to_string(),
                StmtKind::Decl { var, init: Some(Init::Expr(e)) } if *var == v && has_call(e) => {
                    format!("{} = {};", self.program.var(v).name, self.text(e.span))
                }
                _ => continue,
            };
            if statement.is_empty() || !statement.ends_with(';') || statement.contains('\n') {
                continue;
            }
            let description = format!("read again at the end of the loop: add `{statement}`");
            let edit = self.append_to(body, &statement);
            self.push(func, body, MutationKind::RepeatRead, edit, description, 1);
        }
    }

    /// An `if` that should repeat: `if (s[i] == c) { shift }` → `while (s[i] == c) { shift }`
    /// (a second `c` right after the first is left behind). Only where the body changes
    /// something the condition reads, so that the loop can end.
    fn repeat_if(&mut self, func: FuncId, s: &Stmt, cond: &Expr, then: &Stmt) {
        let text = self.text(s.span);
        let Some(rest) = text.strip_prefix("if") else { return };
        if !rest.starts_with(|c: char| c == '(' || c.is_whitespace()) {
            return;
        }
        let written = written_roots(then);
        let mut reads_written = false;
        walk_expr(cond, &mut |x| reads_written |= matches!(x.kind, ExprKind::Var(v) if written.contains(&v)));
        if !reads_written {
            return;
        }
        // The header up to its `)`, whether or not the condition's span holds it.
        let mut end = (cond.span.end - s.span.start) as usize;
        if let Some(after) = text[end..].trim_start().strip_prefix(')') {
            end = text.len() - after.len();
        }
        let head = first_line(&text[..end]);
        let description = format!("repeat while it holds: `{}` → `while{}`", head, &head[2..]);
        let edit =
            TextEdit { span: Span::new(s.span.start as usize, s.span.start as usize + 2), new_text: "while".into() };
        self.push(func, s, MutationKind::RepeatIf, edit, description, 1);
    }

    /// A separator printed only between the loop's items ([`separators`]).
    fn separators(&mut self, func: FuncId, lp: &Stmt) {
        for c in separators::candidates(self.program, self.src, lp, &self.reference_separators) {
            let change = self.change(func, c.at, MutationKind::SeparatorBetween, c.edit, c.description);
            self.separators[usize::from(!c.after_each)].push(change.clone());
            self.out.push(Candidate { changes: vec![change], tier: 1, at: c.at.span });
        }
    }

    /// The loop's header counting the other way: over the same range and over the range
    /// shifted by one towards where the loop starts (`[a, b)` becomes `b - 1 … a` and `b … a + 1`).
    fn reverse_loop(&mut self, func: FuncId, lp: &Stmt) {
        let StmtKind::For { init, cond: Some(cond), step: Some(step), .. } = &lp.kind else { return };
        let [init] = init.as_slice() else { return };
        let (v, start) = match &init.kind {
            StmtKind::Expr(Expr { kind: ExprKind::Assign(lhs, rhs), .. }) => match lhs.strip_implicit().kind {
                ExprKind::Var(v) => (v, rhs.strip_implicit()),
                _ => return,
            },
            StmtKind::Decl { var, init: Some(Init::Expr(e)) } => (*var, e.strip_implicit()),
            _ => return,
        };
        if !self.program.var(v).ty.is_integer() {
            return;
        }
        let is_v = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Var(x) if x == v);
        let one = |e: &Expr| matches!(e.strip_implicit().kind, ExprKind::Int(1));
        let up = match &step.kind {
            ExprKind::IncDec(IncDec::PreInc | IncDec::PostInc, x) if is_v(x) => true,
            ExprKind::IncDec(IncDec::PreDec | IncDec::PostDec, x) if is_v(x) => false,
            ExprKind::CompoundAssign { op: BinOp::Add, lhs, rhs, .. } if is_v(lhs) && one(rhs) => true,
            ExprKind::CompoundAssign { op: BinOp::Sub, lhs, rhs, .. } if is_v(lhs) && one(rhs) => false,
            _ => return,
        };
        let ExprKind::Binary(op, l, r) = &cond.kind else { return };
        let (op, bound) = if is_v(l) {
            (*op, r.strip_implicit())
        } else if is_v(r) {
            (op.flipped(), l.strip_implicit())
        } else {
            return;
        };
        let name = &self.program.var(v).name;
        let (a, b) = ((start, self.text(start.span)), (bound, self.text(bound.span)));
        if a.1.is_empty() || b.1.is_empty() || start.span.end > step.span.end {
            return;
        }
        let at = |(e, t): (&Expr, &str), k: i64| offset(e, t, k);
        // The old start becomes a comparison's operand: `i = n & 1` must not read `i >= n & 1`.
        let lo = separators::parenthesised(start, a.1);
        let headers = match (up, op) {
            // [a, b) and [a + 1, b]
            (true, BinOp::Lt) => {
                [format!("{}; {name} >= {lo}; {name}--", at(b, -1)), format!("{}; {name} > {lo}; {name}--", b.1)]
            }
            // [a, b] and [a + 1, b + 1]
            (true, BinOp::Le) => {
                [format!("{}; {name} >= {lo}; {name}--", b.1), format!("{}; {name} > {lo}; {name}--", at(b, 1))]
            }
            // [b + 1, a] and [b, a - 1]
            (false, BinOp::Gt) => {
                [format!("{}; {name} <= {lo}; {name}++", at(b, 1)), format!("{}; {name} < {lo}; {name}++", b.1)]
            }
            // [b, a] and [b - 1, a - 1]
            (false, BinOp::Ge) => {
                [format!("{}; {name} <= {lo}; {name}++", b.1), format!("{}; {name} < {lo}; {name}++", at(b, -1))]
            }
            _ => return,
        };
        let span = Span::new(start.span.start as usize, step.span.end as usize);
        // `for (i = ` as written, its white space runs made one space.
        let written = self.text(Span::new(lp.span.start as usize, start.span.start as usize));
        let mut head = written.split_whitespace().collect::<Vec<_>>().join(" ");
        if written.ends_with(char::is_whitespace) {
            head.push(' ');
        }
        for header in headers {
            let description = format!("count the other way: `{head}{header})`");
            let edit = TextEdit { span, new_text: header };
            self.push(func, lp, MutationKind::ReverseLoop, edit, description, 1);
        }
    }

    /// One candidate of several separator changes.
    fn push_joint(&mut self, func: FuncId, changes: Vec<separators::Separator<'_>>) {
        let Some(at) = changes.first().map(|c| c.at.span) else { return };
        let changes = changes
            .into_iter()
            .map(|c| self.change(func, c.at, MutationKind::SeparatorBetween, c.edit, c.description))
            .collect();
        self.out.push(Candidate { changes, tier: 2, at });
    }

    /// The `else` a print under an `if` misses: `if (v[k] > j) printf("*");` prints nothing
    /// where the reference prints the other of two characters (`v[i] >= val ? '*' : ' '`), so
    /// a histogram or a pattern loses its filler. For each short text the reference prints
    /// other than the branch's own, the branch gets an `else` that prints it, in the branch's
    /// own form (`putchar` of a character, or `printf` of a literal).
    fn else_print(&mut self, func: FuncId, s: &Stmt, then: &Stmt) {
        let sole = match &then.kind {
            StmtKind::Block(items) if items.len() == 1 => &items[0],
            StmtKind::Block(_) => return,
            _ => then,
        };
        let StmtKind::Expr(e) = &sole.kind else { return };
        let ExprKind::Call(Callee::Builtin(b @ (Builtin::Printf | Builtin::Putchar)), args) = &e.kind else { return };
        let own: Vec<u8> = match (b, args.first().map(|a| &a.strip_implicit().kind)) {
            (Builtin::Printf, Some(ExprKind::Str(t))) if args.len() == 1 && !t.contains(&b'%') => t.clone(),
            (Builtin::Putchar, Some(ExprKind::Int(c))) => vec![u8::try_from(*c).unwrap_or(0)],
            _ => return,
        };
        let if_indent = crate::ir::indentation(self.src, s.span.start as usize).to_string();
        let on_own_line =
            self.src.get(s.span.start as usize..then.span.start as usize).is_some_and(|t| t.contains('\n'));
        for text in self.reference_short_prints.clone() {
            if text == own {
                continue;
            }
            let call = match (b, text.as_slice()) {
                (Builtin::Putchar, [c]) => format!("putchar({});", crate::ir::print::char_literal(i64::from(*c))),
                _ => format!("printf({});", crate::ir::print::string_literal(&text)),
            };
            let new_text = match &then.kind {
                StmtKind::Block(_) => {
                    let inner = crate::ir::indentation(self.src, sole.span.start as usize);
                    format!(" else {{\n{inner}{call}\n{if_indent}}}")
                }
                _ if on_own_line => {
                    let inner = crate::ir::indentation(self.src, then.span.start as usize);
                    format!("\n{if_indent}else\n{inner}{call}")
                }
                _ => format!(" else {call}"),
            };
            let at = then.span.end as usize;
            let edit = TextEdit { span: Span::new(at, at), new_text };
            let what = match text.as_slice() {
                b" " => "a space".to_string(),
                b"\t" => "a tab".to_string(),
                _ => format!("`{}`", crate::ir::print::string_literal(&text).trim_matches('"')),
            };
            let description = format!("print {what} when the condition does not hold: add `else {call}`");
            self.push(func, s, MutationKind::InsertStatement, edit, description, 1);
        }
    }

    /// A local declared without a value starts with one: `int sum;` → `int sum = 0;` (or
    /// `= 1`, a product or a flag), `int count[26];` → `int count[26] = {0};`. A local that
    /// is read before it is set holds whatever the memory held; the interpreter stops there.
    fn initialise(&mut self, func: FuncId, decl: &Stmt, var: VarId) {
        let v = self.program.var(var);
        for value in initial_values(v) {
            let Some((edit, description)) = initialisation(self.src, v, value) else { return };
            self.push(func, decl, MutationKind::Initialise, edit, description, 1);
        }
    }

    /// `s[i] = '\0';` after a loop whose body assigns `s[i]` for a `char` array or pointer `s`
    /// and an integer variable `i`.
    fn terminator_after(&mut self, func: FuncId, lp: &Stmt) {
        let mut targets: Vec<(VarId, VarId)> = Vec::new();
        crate::ir::walk::walk_stmt(lp, &mut |x| {
            if let ExprKind::Assign(lhs, _) = &x.kind
                && let ExprKind::Index(base, index) = &lhs.kind
                && let ExprKind::Var(s) = base.strip_implicit().kind
                && let ExprKind::Var(i) = index.strip_implicit().kind
                && !targets.contains(&(s, i))
            {
                targets.push((s, i));
            }
        });
        for (s, i) in targets {
            let (array, index) = (self.program.var(s), self.program.var(i));
            if !array.ty.is_char_pointer() || !index.ty.is_integer() {
                continue;
            }
            let statement = format!("{}[{}] = '\\0';", array.name, index.name);
            let (_, edit, _) = self.insertion(&Insertion::After(lp), &statement);
            let description = format!("add `{statement}` after the loop");
            self.push(func, lp, MutationKind::InsertStatement, edit, description, 1);
        }
    }

    /// The last item finished after the loop: a statement of the loop's body that prints
    /// (an `if` or an expression statement, at any depth) repeated after the loop, for the
    /// item the input ends on without the separator that makes the body print it (a number at
    /// the end of a file without a final line break, the last run of a sequence). Only a
    /// statement that reads no input, nothing the loop's condition reads (after the loop it
    /// holds the end: `EOF`, `n`) and only variables declared outside the loop, that neither
    /// leaves a loop nor returns.
    fn finish_after(&mut self, func: FuncId, lp: &Stmt) {
        let (cond, body) = match &lp.kind {
            StmtKind::While { cond, body } | StmtKind::DoWhile { cond, body } => (Some(cond), &**body),
            StmtKind::For { cond, body, .. } => (cond.as_ref(), &**body),
            _ => return,
        };
        let ended: HashSet<VarId> =
            cond.map(|c| vars_read_but(c, &HashSet::new())).unwrap_or_default().into_iter().collect();
        let mut statements: Vec<String> = Vec::new();
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if statements.len() >= MAX_FINISHING_STATEMENTS
                || !matches!(s.kind, StmtKind::If { .. } | StmtKind::Expr(_))
                || !self.finishes_an_item(s, lp.span, &ended)
            {
                return;
            }
            let Some(text) = one_line(self.text(s.span)) else { return };
            if !statements.iter().any(|t| squeeze(t) == squeeze(&text)) {
                statements.push(text);
            }
        });
        for statement in statements {
            let (_, edit, _) = self.insertion(&Insertion::After(lp), &statement);
            let description = format!("finish the last item after the loop: add `{statement}`");
            self.push(func, lp, MutationKind::FinishLastItem, edit, description, 1);
        }
    }

    /// `s` (in the body of the loop at `lp`) prints, reads no input, and reads nothing of
    /// `ended` nor a variable declared in the loop but outside `s`; no `break`, `continue`
    /// or `return` in it.
    fn finishes_an_item(&self, s: &Stmt, lp: Span, ended: &HashSet<VarId>) -> bool {
        let (mut prints, mut fits) = (false, true);
        crate::ir::walk::walk_stmt(s, &mut |x| match &x.kind {
            ExprKind::Call(Callee::Builtin(b), _) => {
                prints |= b.writes_output();
                fits &= !b.reads_input();
            }
            ExprKind::Var(v) => fits &= !ended.contains(v),
            _ => {}
        });
        prints && fits && !jumps(s) && !self.reads_loop_local(s, lp)
    }

    /// Whether `s` (in loop `lp`) reads a variable declared in the loop but outside `s`:
    /// after the loop it is out of scope.
    fn reads_loop_local(&self, s: &Stmt, lp: Span) -> bool {
        let mut reads = false;
        crate::ir::walk::walk_stmt(s, &mut |x| {
            if let ExprKind::Var(v) = &x.kind {
                let declared = self.program.var(*v).span;
                let in_loop = lp.start <= declared.start && declared.end <= lp.end;
                let in_s = s.span.start <= declared.start && declared.end <= s.span.end;
                reads |= in_loop && !in_s;
            }
        });
        reads
    }

    /// The reference's statements at `place`, but those the block already has, and calls of
    /// the function into itself where the reference's call is not recursive (a teacher
    /// would not fix a loop by making the function call itself).
    fn reference_statements_at(&mut self, func: FuncId, place: &Insertion<'_>, block: &[Stmt]) {
        let present: HashSet<String> = block.iter().map(|s| squeeze(self.text(s.span))).collect();
        let name = &self.program.funcs[func.0 as usize].name;
        let mut statements: Vec<String> = Vec::new();
        let renamed = self.renamed_statements.get(&func).into_iter().flatten();
        let as_written = self.from_reference.iter().filter(|r| !r.calls_of_others.contains(name)).map(|r| &r.text);
        for text in renamed.chain(as_written) {
            let key = squeeze(text);
            if !present.contains(&key) && !statements.iter().any(|t| squeeze(t) == key) {
                statements.push(text.clone());
            }
        }
        for statement in statements {
            if self.reference_insertions >= MAX_REFERENCE_INSERTIONS {
                return;
            }
            self.reference_insertions += 1;
            let (anchor, edit, description) = self.insertion(place, &statement);
            self.push(func, anchor, MutationKind::InsertStatement, edit, description, 1);
        }
    }

    /// The edit that inserts `statement` at `place`, in the student's indentation, with the
    /// statement it is anchored to and its description.
    fn insertion<'s>(&self, place: &Insertion<'s>, statement: &str) -> (&'s Stmt, TextEdit, String) {
        match place {
            Insertion::Before(s) => {
                let indent = crate::ir::indentation(self.src, s.span.start as usize);
                let at = Span::new(s.span.start as usize, s.span.start as usize);
                let edit = TextEdit { span: at, new_text: format!("{statement}\n{indent}") };
                (s, edit, format!("add `{statement}` before `{}`", first_line(self.text(s.span))))
            }
            Insertion::After(s) => {
                let indent = crate::ir::indentation(self.src, s.span.start as usize);
                let at = Span::new(s.span.end as usize, s.span.end as usize);
                let edit = TextEdit { span: at, new_text: format!("\n{indent}{statement}") };
                (s, edit, format!("add `{statement}` after `{}`", first_line(self.text(s.span))))
            }
        }
    }

    /// Wolverine2's pointer statements over the struct pointers in scope at `at`.
    fn pointer_statements(&mut self, func: FuncId, place: &Insertion<'_>) {
        if self.pointer_insertions >= MAX_POINTER_INSERTIONS {
            return;
        }
        let scope_at = match place {
            Insertion::Before(s) => Span::new(s.span.start as usize, s.span.start as usize),
            Insertion::After(s) => Span::new(s.span.end as usize, s.span.end as usize),
        };
        let mut statements = Vec::new();
        for (id, _) in self.program.structs.iter().enumerate() {
            let ty = Type::ptr(Type::Struct(StructId(id as u32)));
            let vars: Vec<String> =
                self.scope.candidates(scope_at, &ty).into_iter().map(|v| self.program.var(v).name.clone()).collect();
            if vars.is_empty() {
                continue;
            }
            let fields = self.fields_of_type(&ty, &ty);
            for x in &vars {
                for y in &vars {
                    if x != y {
                        statements.push(format!("{x} = {y};"));
                    }
                    for f in &fields {
                        statements.push(format!("{x} = {y}->{f};"));
                        statements.push(format!("{x}->{f} = {y};"));
                    }
                }
                for f in &fields {
                    statements.push(format!("{x}->{f} = NULL;"));
                }
            }
        }
        for statement in statements {
            if self.pointer_insertions >= MAX_POINTER_INSERTIONS {
                return;
            }
            self.pointer_insertions += 1;
            let (anchor, edit, description) = self.insertion(place, &statement);
            self.push(func, anchor, MutationKind::InsertStatement, edit, description, 3);
        }
    }

    /// `statement` at the end of a loop body: after its last statement, or the single
    /// statement wrapped in braces with it.
    fn append_to(&self, body: &Stmt, statement: &str) -> TextEdit {
        match &body.kind {
            StmtKind::Block(items) if !items.is_empty() => {
                let last = items.last().expect("not empty");
                let indent = crate::ir::indentation(self.src, last.span.start as usize);
                TextEdit {
                    span: Span::new(last.span.end as usize, last.span.end as usize),
                    new_text: format!("\n{indent}{statement}"),
                }
            }
            StmtKind::Block(_) => {
                // `{}`: inside the braces.
                let at = body.span.start as usize + 1;
                TextEdit { span: Span::new(at, at), new_text: format!(" {statement} ") }
            }
            _ => TextEdit { span: body.span, new_text: format!("{{ {} {statement} }}", self.text(body.span)) },
        }
    }

    /// The names of the fields of type `field_ty` in the struct `holder` points to.
    fn fields_of_type(&self, holder: &Type, field_ty: &Type) -> Vec<String> {
        let Some(Type::Struct(id)) = holder.pointee() else { return Vec::new() };
        self.program.struct_def(*id).fields.iter().filter(|f| &f.ty == field_ty).map(|f| f.name.clone()).collect()
    }
}

enum Insertion<'a> {
    Before(&'a Stmt),
    After(&'a Stmt),
}

/// A value of type `from` can be stored in a variable of type `to` as a student means it: the
/// same type, or both arithmetic (`c = toupper(c)` with `char c`).
fn assignable_from(to: &Type, from: &Type) -> bool {
    to == from || (to.is_arithmetic() && from.is_arithmetic())
}

/// How many characters of a line `reference` keeps, where a constant says so: the width of
/// a `%Ns` or `%N[` it scans, and for `fgets(buf, n, stdin)` the `n - 1` characters it
/// stores, or `n - 2` when the line break is dropped after it (a line of `n - 1` or more
/// characters then loses its last one). Largest first, each once.
fn line_widths(reference: &Program) -> Vec<u64> {
    let mut out = Vec::new();
    for body in reference.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::walk_stmt(body, &mut |x| {
            let ExprKind::Call(Callee::Builtin(b), args) = &x.kind else { return };
            match b {
                Builtin::Fgets => {
                    if let Some(ExprKind::Int(n)) = args.get(1).map(|a| &a.strip_implicit().kind) {
                        out.extend([*n - 1, *n - 2].into_iter().filter(|&w| w >= 1).map(|w| w as u64));
                    }
                }
                Builtin::Scanf => {
                    let Some(ExprKind::Str(bytes)) = args.first().map(|a| &a.strip_implicit().kind) else { return };
                    let Ok(pieces) = crate::ir::format::parse(bytes, true) else { return };
                    for p in pieces {
                        if let crate::ir::format::Piece::Directive(d) = p
                            && let (crate::ir::format::Count::Fixed(w), 's' | '[') = (d.width, d.conv)
                        {
                            out.push(w as u64);
                        }
                    }
                }
                _ => {}
            }
        });
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    out.dedup();
    out
}

/// An expression statement of the reference, printed as C.
struct ReferenceStatement {
    text: String,
    /// The functions it calls other than the one it is in.
    calls_of_others: Vec<String>,
}

/// The expression statements of `reference`'s functions, each once (where it first appears).
fn reference_statements(reference: &Program) -> Vec<ReferenceStatement> {
    let mut out: Vec<ReferenceStatement> = Vec::new();
    for func in &reference.funcs {
        let Some(body) = &func.body else { continue };
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            let StmtKind::Expr(e) = &s.kind else { return };
            let text = format!("{};", crate::ir::print::expr_to_c(reference, e));
            if out.iter().any(|r| r.text == text) {
                return;
            }
            let mut calls_of_others = Vec::new();
            crate::ir::walk::walk_expr(e, &mut |x| {
                if let ExprKind::Call(Callee::Func(id), _) = &x.kind {
                    let callee = &reference.funcs[id.0 as usize].name;
                    if callee != &func.name {
                        calls_of_others.push(callee.clone());
                    }
                }
            });
            out.push(ReferenceStatement { text, calls_of_others });
        });
    }
    out
}

/// Whether `s` holds a `break`, `continue` or `return`: moved or repeated elsewhere, it would
/// leave another loop, or the function, from there.
fn jumps(s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::walk::for_each_stmt(s, &mut |x| {
        found |= matches!(x.kind, StmtKind::Break | StmtKind::Continue | StmtKind::Return(_));
    });
    found
}

/// The statements that are the whole body of `s` (a branch or loop without braces).
fn sole_bodies(s: &Stmt) -> Vec<&Stmt> {
    let bodies: Vec<&Stmt> = match &s.kind {
        StmtKind::If { then, els, .. } => std::iter::once(&**then).chain(els.as_deref()).collect(),
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::DoWhile { body, .. } => vec![&**body],
        _ => Vec::new(),
    };
    bodies.into_iter().filter(|b| matches!(b.kind, StmtKind::Expr(_))).collect()
}

/// Per function: the conditions its statements may be guarded with (the reference's, renamed
/// into the student's variables, then the function's own, each once, as written), and the
/// reference's expression statements renamed.
fn from_the_reference_space(
    program: &Program,
    src: &str,
    frozen: &HashSet<String>,
    reference: Option<&Program>,
) -> (HashMap<FuncId, Vec<String>>, HashMap<FuncId, Vec<String>>) {
    let space = reference.map(|r| super::reference_space::ReferenceSpace::new(program, src, r, frozen));
    let mut out = HashMap::new();
    let mut statements = HashMap::new();
    for (i, f) in program.funcs.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let func = FuncId(i as u32);
        let mut list: Vec<String> = space.as_ref().map(|s| s.conditions(func).to_vec()).unwrap_or_default();
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            let cond = match &s.kind {
                StmtKind::If { cond, .. } | StmtKind::While { cond, .. } | StmtKind::DoWhile { cond, .. } => Some(cond),
                StmtKind::For { cond: Some(cond), .. } => Some(cond),
                _ => None,
            };
            if let Some(c) = cond.filter(|c| !crate::ir::walk::has_effects(c)) {
                let text = crate::ir::print::expr_to_c(program, c);
                if !list.contains(&text) {
                    list.push(text);
                }
            }
        });
        out.insert(func, list);
        if let Some(space) = &space {
            statements.insert(func, space.statements(func).to_vec());
        }
    }
    (out, statements)
}

/// The variables `cond` reads, in order, each once, but those in `except`.
fn vars_read_but(cond: &Expr, except: &HashSet<VarId>) -> Vec<VarId> {
    let mut read = Vec::new();
    walk_expr(cond, &mut |x| {
        if let ExprKind::Var(v) = x.kind
            && !read.contains(&v)
            && !except.contains(&v)
        {
            read.push(v);
        }
    });
    read
}

/// The variables `s` writes: assigned, updated, written through an index or a field
/// (`s[j] = …` writes `s`), passed by address or, as an array or pointer, to a call.
fn written_roots(s: &Stmt) -> HashSet<VarId> {
    fn root(e: &Expr) -> Option<VarId> {
        match &e.strip_implicit().kind {
            ExprKind::Var(v) => Some(*v),
            ExprKind::Index(base, _)
            | ExprKind::Member { base, .. }
            | ExprKind::Deref(base)
            | ExprKind::Decay(base) => root(base),
            _ => None,
        }
    }
    let mut out = HashSet::new();
    crate::ir::walk::walk_stmt(s, &mut |x| match &x.kind {
        ExprKind::Assign(lhs, _) | ExprKind::CompoundAssign { lhs, .. } | ExprKind::IncDec(_, lhs) => {
            out.extend(root(lhs));
        }
        ExprKind::Call(_, args) => {
            for a in args {
                let a = a.strip_implicit();
                match &a.kind {
                    ExprKind::AddrOf(inner) => out.extend(root(inner)),
                    _ if matches!(a.ty, Type::Pointer(_)) => out.extend(root(a)),
                    _ => {}
                }
            }
        }
        _ => {}
    });
    out
}

fn has_call(e: &Expr) -> bool {
    let mut any = false;
    walk_expr(e, &mut |x| any |= matches!(x.kind, ExprKind::Call(..)));
    any
}

/// `text` (the source of `e`) plus `k`, as a student would write it: a constant folded,
/// `n - 1` + 1 back to `n`, anything that binds looser than `+` in parentheses.
fn offset(e: &Expr, text: &str, k: i64) -> String {
    if let ExprKind::Int(n) = e.kind
        && text.bytes().all(|b| b.is_ascii_digit())
    {
        return (n + k).to_string();
    }
    if let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), _, r) = &e.kind
        && let ExprKind::Int(1) = r.strip_implicit().kind
        && (*op == BinOp::Sub) == (k == 1)
        && let Some((rest, _)) = text.rsplit_once(if k == 1 { '-' } else { '+' })
    {
        return rest.trim_end().to_string();
    }
    let text = separators::parenthesised(e, text);
    if k < 0 { format!("{text} - {}", -k) } else { format!("{text} + {k}") }
}

/// `text` (a statement) on one line: each run of white space with a line break becomes one
/// space (a literal holds no line break, so none changes). `None` for a statement with a
/// comment, a line continuation or a preprocessor line, which one line would change.
fn one_line(text: &str) -> Option<String> {
    if text.is_empty() || text.contains("//") || text.contains("/*") || text.contains("\\\n") {
        return None;
    }
    if text.lines().any(|l| l.trim_start().starts_with('#')) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_whitespace()) {
        out.push_str(&rest[..at]);
        let run = rest[at..].find(|c: char| !c.is_whitespace()).map_or(rest.len() - at, |n| n);
        let gap = &rest[at..at + run];
        out.push_str(if gap.contains('\n') { " " } else { gap });
        rest = &rest[at + run..];
    }
    out.push_str(rest);
    Some(out)
}

/// A statement's text without its spaces, to compare statements as written.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim_end_matches('{').trim()
}

/// A statement as a description quotes it: whole on one line where it is short
/// (`if (neg) r = -r;`), else its first line.
fn brief(text: &str) -> String {
    one_line(text).filter(|l| l.len() <= 40).unwrap_or_else(|| first_line(text).to_string())
}

/// The short texts `reference` prints on their own, at most [`MAX_SHORT_PRINTS`], each once:
/// a `printf` of a literal with no directive, a `putchar` of a character, and each side of a
/// choice printed (`putchar(c ? '*' : ' ')`, `printf("%c", ...)`, `printf("%s", ...)`), of at
/// most three characters and no line break: the fillers and marks of a pattern.
fn short_printed_texts(reference: &Program) -> Vec<Vec<u8>> {
    fn literal(e: &Expr) -> Option<Vec<u8>> {
        match &e.strip_implicit().kind {
            ExprKind::Int(c) => Some(vec![u8::try_from(*c).ok()?]),
            ExprKind::Str(t) => Some(t.clone()),
            _ => None,
        }
    }
    let mut out: Vec<Vec<u8>> = Vec::new();
    for body in reference.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::walk_stmt(body, &mut |e| {
            let ExprKind::Call(Callee::Builtin(b), args) = &e.kind else { return };
            let printed: Option<&Expr> = match (b, args.as_slice()) {
                (Builtin::Putchar, [x]) => Some(x),
                (Builtin::Printf, [fmt]) => Some(fmt),
                (Builtin::Printf, [fmt, x]) => match &fmt.strip_implicit().kind {
                    ExprKind::Str(f) if f == b"%c" || f == b"%s" => Some(x),
                    _ => None,
                },
                _ => None,
            };
            let Some(printed) = printed else { return };
            let texts: Vec<Vec<u8>> = match &printed.strip_implicit().kind {
                ExprKind::Cond(_, a, b) => [literal(a), literal(b)].into_iter().flatten().collect(),
                _ => literal(printed).into_iter().collect(),
            };
            for t in texts {
                let plain = !t.is_empty() && t.len() <= 3 && !t.contains(&b'\n') && !t.contains(&b'%');
                if plain && !out.contains(&t) && out.len() < MAX_SHORT_PRINTS {
                    out.push(t);
                }
            }
        });
    }
    out
}

/// Short texts of the reference tried as a missing `else`'s print.
const MAX_SHORT_PRINTS: usize = 4;

/// The calls of `b` in `e` whose format is a string literal: their arguments, the format
/// expression and its bytes.
fn literal_format_calls(e: &Expr, b: Builtin) -> Vec<(&[Expr], &Expr, &[u8])> {
    let mut out = Vec::new();
    crate::ir::walk::walk_expr(e, &mut |x| {
        if let ExprKind::Call(Callee::Builtin(called), args) = &x.kind
            && *called == b
            && let Some(fmt) = args.first().map(Expr::strip_implicit)
            && let ExprKind::Str(bytes) = &fmt.kind
        {
            out.push((args.as_slice(), fmt, bytes.as_slice()));
        }
    });
    out
}

/// A `scanf` format literal as written (`"%d,%d"`, quotes included) without its literal
/// text: the runs of characters other than directives and white space (escapes such as
/// `\n` are white space; `%%` is text) dropped, a run between two directives replaced by
/// one space unless white space is beside it. `None` when there is no such text, or the
/// literal is not one plain string (concatenated pieces, a macro).
fn scanf_format_without_text(written: &str) -> Option<String> {
    enum Token<'a> {
        Directive(&'a str),
        Space(&'a str),
        Text,
    }
    let inner = written.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'"' => return None,
            b'%' if b.get(i + 1) == Some(&b'%') => {
                i += 2;
                tokens.push(Token::Text);
            }
            b'%' => {
                i += 1;
                while i < b.len() && b"*0123456789hlLjztq".contains(&b[i]) {
                    i += 1;
                }
                if b.get(i) == Some(&b'[') {
                    // A set: `]` right after `[` or `[^` belongs to it.
                    i += 1;
                    if b.get(i) == Some(&b'^') {
                        i += 1;
                    }
                    if b.get(i) == Some(&b']') {
                        i += 1;
                    }
                    while i < b.len() && b[i] != b']' {
                        i += 1;
                    }
                }
                if i >= b.len() {
                    return None;
                }
                i += 1;
                tokens.push(Token::Directive(&inner[start..i]));
            }
            b'\\' => {
                let next = *b.get(i + 1)?;
                i += 2;
                tokens.push(if b"ntrvf".contains(&next) { Token::Space(&inner[start..i]) } else { Token::Text });
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                tokens.push(Token::Space(&inner[start..i]));
            }
            _ => {
                i += inner[i..].chars().next().map_or(1, char::len_utf8);
                tokens.push(Token::Text);
            }
        }
    }
    if !tokens.iter().any(|t| matches!(t, Token::Text)) {
        return None;
    }
    let mut out = String::from("\"");
    for (k, t) in tokens.iter().enumerate() {
        match t {
            Token::Directive(d) | Token::Space(d) => out.push_str(d),
            Token::Text => {
                // The last of a run between two directives, with no white space beside it.
                let run_end = !matches!(tokens.get(k + 1), Some(Token::Text));
                let directive_after = matches!(tokens.get(k + 1), Some(Token::Directive(_)));
                let before = tokens[..k].iter().rev().find(|t| !matches!(t, Token::Text));
                if run_end && directive_after && matches!(before, Some(Token::Directive(_))) {
                    out.push(' ');
                }
            }
        }
    }
    out.push('"');
    Some(out)
}

/// Numbers printed by `printf`: integers (`d i u o x X`) or floating point (`f F e E g G`).
fn number_class(conv: char) -> Option<bool> {
    match conv {
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' => Some(true),
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' => Some(false),
        _ => None,
    }
}

/// A directive's text split before its length and conversion: `%-08.3` and `lf` of `%-08.3lf`.
fn directive_parts(d: &[u8]) -> (&[u8], &[u8]) {
    let mut at = d.len() - 1;
    while at > 1 && b"hlLqjzt".contains(&d[at - 1]) {
        at -= 1;
    }
    d.split_at(at)
}

/// The numeric `printf` directives of `reference` as written (`%.2f`, `%02d`), each once.
fn printed_directives(reference: &Program) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for f in &reference.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e: &Expr| {
            let ExprKind::Call(Callee::Builtin(Builtin::Printf), args) = &e.kind else { return };
            let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else { return };
            let Ok(pieces) = crate::ir::format::parse(fmt, false) else { return };
            for p in pieces {
                if let crate::ir::format::Piece::Directive(d) = p
                    && number_class(d.conv).is_some()
                    && !out.iter().any(|o| o.as_slice() == &fmt[d.start..d.end])
                {
                    out.push(fmt[d.start..d.end].to_vec());
                }
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::mutation::engine::FunctionScopes;

    /// The candidates of `kind` for `src` (against `reference` where given), best first.
    fn candidates_of(src: &str, reference: Option<&str>, kind: MutationKind) -> Vec<Candidate> {
        let reference = reference.map(|r| crate::syntax::lower::lower_source(r).program);
        let program = crate::syntax::lower::lower_source(src).program;
        let scope = FunctionScopes::new(&program);
        candidates(&program, src, &HashSet::new(), &scope, reference.as_ref(), &|_| 0.0)
            .into_iter()
            .filter(|c| c.changes[0].mutant.kind == kind)
            .collect()
    }

    /// The texts of `src` with each `cut-line-break` candidate applied.
    fn cut_line_breaks(src: &str) -> Vec<String> {
        candidates_of(src, None, MutationKind::CutLineBreak)
            .into_iter()
            .map(|c| {
                let edits: Vec<TextEdit> = c.changes.iter().map(|x| x.mutant.edit.clone()).collect();
                apply_edits(src, &edits)
            })
            .collect()
    }

    /// Each candidate of `kind` for `src`: its description, and the text with it applied.
    fn applied(src: &str, kind: MutationKind) -> Vec<(String, String)> {
        candidates_of(src, None, kind)
            .into_iter()
            .map(|c| {
                let edits: Vec<TextEdit> = c.changes.iter().map(|x| x.mutant.edit.clone()).collect();
                (c.changes[0].mutant.description.clone(), apply_edits(src, &edits))
            })
            .collect()
    }

    #[test]
    fn a_do_while_may_test_first() {
        let src = "int main(void) {\n    int f = 5, hi = 3, n = 0;\n    do {\n        f += 2;\n    } while (f <= hi);\n    do n++; while (n < 3);\n    while (n > 0) n--;\n    return f + n;\n}\n";
        let fixed: Vec<(String, String)> = applied(src, MutationKind::TestFirst);
        assert_eq!(fixed.len(), 2, "{fixed:#?}");
        assert_eq!(fixed[0].0, "test `f <= hi` before each round: `do … while (f <= hi);` → `while (f <= hi) …`");
        assert!(fixed[0].1.contains("    while (f <= hi) {\n        f += 2;\n    }\n    do n++;"), "{}", fixed[0].1);
        assert!(fixed[1].1.contains("    while (n < 3) n++;\n    while (n > 0) n--;"), "{}", fixed[1].1);
    }

    #[test]
    fn an_else_if_chain_whose_tests_hide_one_another_is_reordered() {
        let src = "int main(void) {\n    double avg = 75;\n    int n = 3;\n    char g;\n    if (avg >= 60)\n        g = 'D';\n    else if (avg >= 70)\n        g = 'C';\n    else if (90 <= avg) {\n        g = 'A';\n    } else\n        g = 'F';\n    if (n < 10) g = 'x'; else if (n < 5) g = 'y';\n    if (n > 5) g = 'p'; else if (n > 1) g = 'q';\n    if (n > 5) g = 'p'; else if (avg > 9) g = 'q';\n    return g;\n}\n";
        let fixed: Vec<(String, String)> = applied(src, MutationKind::ReorderConditions);
        // Not a chain in a good order, nor one over two values.
        assert_eq!(fixed.len(), 2, "{fixed:#?}");
        assert_eq!(fixed[0].0, "reorder the tests: `90 <= avg` first, then `avg >= 70`, `avg >= 60`");
        assert!(
            fixed[0].1.contains("    if (90 <= avg) {\n        g = 'A';\n    }\n    else if (avg >= 70)\n        g = 'C';\n    else if (avg >= 60)\n        g = 'D'; else\n        g = 'F';"),
            "{}",
            fixed[0].1
        );
        assert!(fixed[1].1.contains("if (n < 5) g = 'y'; else if (n < 10) g = 'x';"), "{}", fixed[1].1);
    }

    #[test]
    fn a_value_overwritten_before_it_is_read_is_kept_first() {
        let src = "int main(void) {\n    int a[3] = {3, 1, 2}, j = 0;\n    long f1 = 0, f2 = 1, tmp = 0;\n    if (a[j] > a[j + 1]) {\n        a[j] = a[j + 1];\n        a[j + 1] = a[j];\n    }\n    f2 = f1 + f2;\n    f1 = f2;\n    j = 2;\n    a[0] = a[1];\n    a[0] = j;\n    return (int) (f1 + tmp);\n}\n";
        let fixed: Vec<String> = applied(src, MutationKind::KeepOldValue).into_iter().map(|(_, text)| text).collect();
        // At the start of a block, a declaration; after a statement, a block of its own (C90).
        // `tmp` is taken. Not `j = 2; a[0] = a[1];` (nothing overwritten is read), nor
        // `a[0] = a[1]; a[0] = j;` (the same place twice).
        assert_eq!(fixed.len(), 2, "{fixed:#?}");
        assert!(
            fixed[0].contains(
                "    }\n    {\n        long temp = f2;\n        f2 = f1 + f2;\n        f1 = temp;\n    }\n    j = 2;"
            ),
            "{}",
            fixed[0]
        );
        assert!(fixed[1].contains("    if (a[j] > a[j + 1]) {\n        int temp = a[j];\n        a[j] = a[j + 1];\n        a[j + 1] = temp;\n    }"), "{}", fixed[1]);
    }

    #[test]
    fn a_loop_that_decides_on_its_first_item_loses_its_else() {
        let src = "int main(void) {\n    int a[3] = {1, 2, 3}, i, k = 2, f = 0;\n    for (i = 0; i < 3; i++) {\n        if (a[i] == k) return 1; else return 0;\n    }\n    for (i = 0; i < 3; i++) {\n        if (a[i] == k) { f = 1; break; } else f = 0;\n    }\n    while (f) {\n        if (a[0]) break; else { f = 2; break; }\n    }\n    while (f) {\n        if (a[1]) { f--; continue; } else return 3;\n        if (a[2]) switch (f) { case 1: continue; default: return 4; } else return 5;\n    }\n    if (f) return 1; else return 2;\n}\n";
        let deleted: Vec<String> = candidates_of(src, None, MutationKind::DeleteStatement)
            .into_iter()
            .map(|c| c.changes[0].mutant.description.clone())
            .filter(|d| d.contains("else"))
            .collect();
        // Not where one branch goes on (the second loop) or on to the next round (a
        // `continue`, also from inside a `switch`), nor outside a loop.
        assert_eq!(deleted, ["delete `else return 0;`", "delete `else { f = 2; break; }`"]);
    }

    #[test]
    fn strings_compared_with_equals_compare_their_letters() {
        let src = "#include <stdio.h>\nint main(void) {\n    char a[8], b[8], *p = a;\n    scanf(\"%7s %7s\", a, b);\n    if (a == \"yes\" || b != a) return 1;\n    while (p != a) p++;\n    return \"no\" == b;\n}\n";
        let fixed: Vec<String> = candidates_of(src, None, MutationKind::StringEquality)
            .into_iter()
            .map(|c| c.changes.iter().map(|x| x.mutant.description.clone()).collect::<Vec<_>>().join("; "))
            .collect();
        // Not two pointers (`p != a` walks a string).
        assert_eq!(
            fixed,
            [
                "`a == \"yes\"` → `strcmp(a, \"yes\") == 0`; add `#include <string.h>`",
                "`b != a` → `strcmp(b, a) != 0`; add `#include <string.h>`",
                "`\"no\" == b` → `strcmp(\"no\", b) == 0`; add `#include <string.h>`",
            ]
        );
    }

    #[test]
    fn a_case_that_runs_on_gets_its_break() {
        let src = "int main(void) {\n    int op = 0, r = 0;\n    switch (op) {\n    case 1:\n        r = 1;\n    case 'x':\n        return 2;\n    case 3:\n        if (r) break; else r = 4;\n    case 4:\n    case 5:\n        r = 5;\n    default:\n        r = 6;\n    }\n    return r;\n}\n";
        let breaks: Vec<String> = candidates_of(src, None, MutationKind::InsertStatement)
            .into_iter()
            .map(|c| c.changes[0].mutant.description.clone())
            .filter(|d| d.contains("break"))
            .collect();
        // Not after `return`, not for the empty `case 4:` (it shares `case 5:`'s statements),
        // not after the last arm; after an `if` one of whose branches runs on.
        assert_eq!(
            breaks,
            [
                "add `break;` at the end of `case 1:`",
                "add `break;` at the end of `case 3:`",
                "add `break;` at the end of `case 5:`",
            ]
        );
    }

    #[test]
    fn a_scanf_format_loses_the_text_the_input_does_not_have() {
        let cases = [
            (r#""%d,%d""#, Some(r#""%d %d""#)),
            (r#""%d, %d""#, Some(r#""%d %d""#)),
            (r#""x=%d""#, Some(r#""%d""#)),
            (r#""%d:%d:%d\n""#, Some(r#""%d %d %d\n""#)),
            (r#""%d%%""#, Some(r#""%d""#)),
            (r#""%d %d""#, None),
            (r#""%[^,\n]""#, None),
            (r#""%d\n""#, None),
        ];
        for (written, want) in cases {
            assert_eq!(scanf_format_without_text(written).as_deref(), want, "{written}");
        }
    }

    #[test]
    fn the_line_break_fgets_keeps_is_cut_where_the_line_is_used() {
        // A read in a loop's condition: cut at the start of the body, the include added.
        let src = "#include <stdio.h>\nint main(void) {\n    char s[80];\n    while (fgets(s, 80, stdin) != NULL) {\n        printf(\"[%s]\\n\", s);\n    }\n    return 0;\n}\n";
        let cut = "s[strcspn(s, \"\\n\")] = '\\0';";
        assert_eq!(
            cut_line_breaks(src),
            [format!(
                "#include <stdio.h>\n#include <string.h>\nint main(void) {{\n    char s[80];\n    while (fgets(s, 80, stdin) != NULL) {{\n        {cut}\n        printf(\"[%s]\\n\", s);\n    }}\n    return 0;\n}}\n"
            )]
        );
        // A read in an `if`'s condition: in the branch it guards, or after the `if`; the file
        // includes <string.h> already.
        let src = "#include <stdio.h>\n#include <string.h>\nint main(void) {\n    char s[80];\n    if (fgets(s, 80, stdin) == NULL) {\n        return 1;\n    }\n    printf(\"[%s]\\n\", s);\n    return 0;\n}\n";
        let texts = cut_line_breaks(src);
        assert_eq!(texts.len(), 2, "{texts:#?}");
        assert!(texts[0].contains(&format!("{{\n        {cut}\n        return 1;")), "{}", texts[0]);
        assert!(texts[1].contains(&format!("}}\n    {cut}\n    printf")), "{}", texts[1]);
        assert!(texts.iter().all(|t| t.matches("#include <string.h>").count() == 1));
        // No `fgets` into a variable, nothing to cut.
        assert!(
            cut_line_breaks("#include <stdio.h>\nint main(void) { char s[8]; scanf(\"%7s\", s); return 0; }")
                .is_empty()
        );
    }

    /// The statements inserted among the candidates for `src` against `reference`.
    fn inserted_statements(reference: &str, src: &str) -> Vec<String> {
        candidates_of(src, Some(reference), MutationKind::InsertStatement)
            .into_iter()
            .map(|c| c.changes[0].mutant.edit.new_text.clone())
            .collect()
    }

    #[test]
    fn the_last_item_is_finished_by_a_printing_statement_of_the_loop() {
        let src = "#include <stdio.h>\nint main(void) {\n    int c, n = 0, zero = 0;\n    while ((c = getchar()) != EOF) {\n        int d = c - '0';\n        if (c == ' ') {\n            if (zero)\n                putchar('0');\n            printf(\"%d\\n\",\n                   n);\n            putchar(c);\n            n = 0;\n        } else if (d == 0) {\n            zero = 1;\n            if (n > 9) break;\n        } else {\n            n = n + d;\n            if (d > 5) printf(\"%d\", d);\n        }\n    }\n    return 0;\n}\n";
        let added: Vec<String> = candidates_of(src, None, MutationKind::FinishLastItem)
            .into_iter()
            .map(|c| c.changes[0].mutant.edit.new_text.clone())
            .collect();
        // Not the `if`s that read `c` (after the loop it is `EOF`), nor one that reads `d`
        // (declared in the loop), nor one that leaves the loop; a statement over several
        // lines is inserted on one.
        expect_test::expect![[r#"
            [
                "\n    if (zero) putchar('0');",
                "\n    putchar('0');",
                "\n    printf(\"%d\\n\", n);",
            ]
        "#]]
        .assert_debug_eq(&added);
    }

    #[test]
    fn a_statement_next_to_a_loop_edge_crosses_it() {
        let src = "#include <stdio.h>\nint main(void) {\n    int i, n, s, c;\n    scanf(\"%d\", &n);\n    c = 0;\n    for (i = 0; i < n; i++) {\n        s = 0;\n        s += i;\n        c++;\n        printf(\"%d\\n\", c);\n    }\n    printf(\"%d\\n\", s);\n    return 0;\n}\n";
        let moved: Vec<String> = candidates_of(src, None, MutationKind::MoveStatement)
            .into_iter()
            .filter(|c| c.changes[0].mutant.description.contains("loop"))
            .map(|c| {
                let edits: Vec<TextEdit> = c.changes.iter().map(|x| x.mutant.edit.clone()).collect();
                // From the scanf to the return, on one line: each statement in its new place.
                let fixed = apply_edits(src, &edits);
                let body = &fixed[fixed.find("&n);").unwrap() + 4..fixed.find("    return").unwrap()];
                format!(
                    "{}: {}",
                    c.changes[0].mutant.description,
                    body.split_whitespace().collect::<Vec<_>>().join(" ")
                )
            })
            .collect();
        expect_test::expect![[r#"
            move `printf("%d\n", c);` after the loop: c = 0; for (i = 0; i < n; i++) { s = 0; s += i; c++; } printf("%d\n", c); printf("%d\n", s);
            move `s = 0;` before the loop: c = 0; s = 0; for (i = 0; i < n; i++) { s += i; c++; printf("%d\n", c); } printf("%d\n", s);
            move `printf("%d\n", s);` into the loop, at the end of its body: c = 0; for (i = 0; i < n; i++) { s = 0; s += i; c++; printf("%d\n", c); printf("%d\n", s); }
            move `c = 0;` into the loop, at the start of its body: for (i = 0; i < n; i++) { c = 0; s = 0; s += i; c++; printf("%d\n", c); } printf("%d\n", s);
            move `c = 0;` after the loop: for (i = 0; i < n; i++) { s = 0; s += i; c++; printf("%d\n", c); } c = 0; printf("%d\n", s);
            move `printf("%d\n", s);` before the loop: c = 0; printf("%d\n", s); for (i = 0; i < n; i++) { s = 0; s += i; c++; printf("%d\n", c); }"#]]
        .assert_eq(&moved.join("\n"));
        // Never the statement that steps the loop, nor one that leaves it.
        let src = "int f(int n) {\n    int i = 0, s = 0;\n    while (i < n) {\n        if (s > 9) break;\n        s += i;\n        i++;\n    }\n    return s;\n}\n";
        let moved: Vec<String> = candidates_of(src, None, MutationKind::MoveStatement)
            .into_iter()
            .filter(|c| c.changes[0].mutant.description.contains("loop"))
            .map(|c| c.changes[0].mutant.description.clone())
            .collect();
        assert!(moved.is_empty(), "{moved:?}");
    }

    #[test]
    fn a_semicolon_that_ends_a_header_goes() {
        let src = "int f(int n) {\n    int i, s = 0;\n    for (i = 0; i < n; i++);\n        s += i;\n    if (s > 9) ;\n    s = 0;\n    while (n--) {}\n    s++;\n    if (n) ; else s--;\n    for (;;);\n}\n";
        let found: Vec<String> = candidates_of(src, None, MutationKind::StraySemicolon)
            .into_iter()
            .map(|c| format!("{} at {:?}", c.changes[0].mutant.description, c.changes[0].mutant.edit.span))
            .collect();
        // Not an empty block, an `if` with an `else`, nor a header with nothing after it.
        expect_test::expect![[r#"
            delete the `;` after `for (i = 0; i < n; i++)` (it ended the loop, so `s += i;` ran once, after it) at Span { start: 60, end: 61 }
            delete the `;` after `if (s > 9)` (it ended the `if`, so `s = 0;` ran always) at Span { start: 93, end: 94 }"#]].assert_eq(&found.join("\n"));
    }

    #[test]
    fn an_if_repeats_only_where_its_body_changes_what_it_tests() {
        let src =
            "void f(char s[], int i, char c, int n) {\n    if(s[i]==c)s[i] = 0;\n    if ( n > 0 ) { s[0] = c; }\n}\n";
        let repeats: Vec<String> = candidates_of(src, None, MutationKind::RepeatIf)
            .into_iter()
            .map(|c| c.changes[0].mutant.description.clone())
            .collect();
        // The second body writes `s`, which its condition does not read: no loop could end.
        assert_eq!(repeats, ["repeat while it holds: `if(s[i]==c)` → `while(s[i]==c)`"]);
    }

    #[test]
    fn a_reference_call_is_not_inserted_into_the_function_it_calls() {
        let reference =
            "void drop(char *s) { s[0] = 0; }\nint main(void) { char s[8] = \"ab\"; drop(s); s[1] = 0; return 0; }\n";
        let src = "void drop(char *s) { int i = 0; while (i < 1) { i++; } }\nint main(void) { char s[8] = \"ab\"; drop(s); return 0; }\n";
        let inserted = inserted_statements(reference, src);
        // `s[1] = '\0';` goes into both functions; `drop(s);` only into `main`, which has it already.
        assert!(inserted.iter().any(|d| d.contains("s[1] = '\\0'")), "{inserted:#?}");
        assert!(!inserted.iter().any(|d| d.contains("drop(s)")), "{inserted:#?}");
    }

    #[test]
    fn a_reference_statement_is_inserted_in_the_students_names() {
        let reference = "#include <stdio.h>\nint main(void) { int n, s = 0; scanf(\"%d\", &n); while (n > 0) { s = s + n % 10; n = n / 10; } printf(\"%d\\n\", s); return 0; }\n";
        let src = "#include <stdio.h>\nint main(void) { int num, sum = 0; scanf(\"%d\", &num); while (num > 0) { sum = sum + num % 10; } printf(\"%d\\n\", sum); return 0; }\n";
        let inserted = inserted_statements(reference, src);
        assert!(inserted.iter().any(|t| t.contains("num = num / 10;")), "{inserted:#?}");
    }
}
