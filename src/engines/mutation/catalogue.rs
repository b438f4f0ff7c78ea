//! The mutation catalogue: alternatives for one location's expression.
//!
//! Level 1 and level 2 follow Table 1 of AllRepair (Rothenberg & Grumberg, FM 2016):
//!
//! | category | level 1 | level 2 (in addition) |
//! | --- | --- | --- |
//! | arithmetic | `{+,-}`, `{*,/,%}` | `{+,-,*,/,%}` |
//! | relational | `{>,>=}`, `{<,<=}` | `{>,>=,<,<=}`, `{==,!=}` |
//! | logical | `{&&,\|\|}` | |
//! | bitwise | `{>>,<<}`, `{&,\|,^}` | |
//! | constants | | `C+1`, `C-1`, `-C`, `0` |
//!
//! A compound assignment's operator (`x /= 64`, `s += c`) takes its operator's groups: it is
//! the same arithmetic, written with its target.
//!
//! and the slips students make that the paper's catalogue lacks, each named:
//! - `init-off-by-one` (level 1): an initialisation or assignment of the constant `0` or `1`
//!   becomes the other (`i = 0` ↔ `i = 1`), written as the program writes it: a literal,
//!   `false` ↔ `true`, or the program's own named constants (`found = FALSE` → `found = TRUE`
//!   under `#define TRUE 1`);
//! - `named-state` (level 1): a variable given one of the program's named constants
//!   (`estado = NEUTRO`) is given another that the program gives it or compares it with
//!   elsewhere (`estado = SOMA`): a state machine started, or moved, in the wrong state;
//! - `offset-off-by-one` (level 1): an integer literal added or subtracted is one more or one
//!   less (`N = N - 2` → `N = N - 1`): level 2's `C+1` and `C-1`, for offsets only;
//! - `increment-form` (level 1): an increment or decrement whose value is used takes the
//!   other form, `while (--j)` → `while (j--)`, `s[++i]` → `s[i++]` (where the value is
//!   thrown away, as in `i++;`, both forms are the same program);
//! - `negate-condition` (level 1): a branch or loop condition is negated (a comparison flips
//!   its operator, `<` → `>=`; anything else gets `!( )`);
//! - `swap-operands` (level 1): `a - b` → `b - a`, `a / b` → `b / a`;
//! - `swap-indices` (level 1): an element of an array of arrays read or written with its two
//!   indices the other way round, `m[j][i]` → `m[i][j]` (rows for columns);
//! - `delete-assignment` (level 1): `x = e` becomes `x = x` (the statement is deleted);
//! - `delimiter` (level 1): a character compared with `EOF`, `'\n'`, `'\0'` or `' '` is
//!   compared with another of them (`(c = getchar()) != '\n'` → `… != EOF`: a loop that reads
//!   to a line break where the input ends without one);
//! - `also-delimiter` (level 1): such a test takes one more of them (`c != '\n'` →
//!   `c != '\n' && c != EOF`, `s[i] == '\n'` → `(s[i] == '\n' || s[i] == ' ')`);
//! - `assignment-grouping` (level 1): a condition that assigns a read with the comparison
//!   meant to test it, `c = getchar() != EOF`, gets the parentheses C's precedence needs:
//!   `(c = getchar()) != EOF`;
//! - `integer-division` (level 1): a division of two integers whose quotient is converted to
//!   a floating type divides in that type, `avg = sum / n` → `avg = (float) sum / n`,
//!   `x * (1 / 2)` → `x * (1.0 / 2)`, `printf("%.2f", sum / n)` → `printf("%.2f", (double)
//!   sum / n)` (the quotient C computes is the integer one, its fraction lost before the
//!   conversion, or printed by a directive that reads a `double`);
//! - `assignment-for-comparison` (level 1): an assignment whose value a condition tests for
//!   truth compares instead, `if (x = 0)` → `if (x == 0)`, `while (!(done = 1))` →
//!   `while (!(done == 1))`;
//! - `replace-variable` (level 2): a variable read becomes another variable of the same type in
//!   scope at that point (at level 1 too for conditions, a `?:`'s among them, when repairing
//!   against a reference: [`variable_replacements`]);
//! - `replace-pointer` (level 1, pointers to structs only): Wolverine2's statement vocabulary for
//!   linked structures (`x := y`, `x := y.f`, `x := null`): a pointer read (`p`, `p->next`)
//!   becomes another pointer of the same type in scope, a field of the same type through one
//!   (`prev`, `p->prev`, `head->next`, `l.last`), or `NULL` where it is a whole value; a guard
//!   `p != NULL` becomes `p->next != NULL`; the node an assignment writes through is a
//!   location too (`head->next = n` → `tail->next = n`). Heap programs are checked by running the tests, so
//!   this space costs the solver nothing;
//! - `reference-expression` (against a reference only): the location's expression becomes one
//!   of the reference's, renamed into the student's variables (see
//!   [`super::reference_space`]).
//!
//! Every mutant changes exactly one node of the location's expression and comes with the
//! minimal text edit that makes the same change in the student's source, so applying a repair
//! touches nothing else. A mutant whose edit cannot be located exactly (inside a macro
//! expansion, say) is not offered.

use crate::ir::walk::{children, children_mut};
use crate::ir::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutationKind {
    ArithmeticOperator,
    RelationalOperator,
    LogicalOperator,
    BitwiseOperator,
    ConstantPlusOne,
    ConstantMinusOne,
    ConstantNegated,
    ConstantZero,
    InitOffByOne,
    /// A variable given one of its named states is given another: `estado = NEUTRO` →
    /// `estado = SOMA`, where the program gives `estado` or compares it with `SOMA` elsewhere.
    NamedState,
    /// An increment or decrement whose value is used takes the other form: `while (--j)` →
    /// `while (j--)`, `s[++i]` → `s[i++]` (the old value where the new was used, or back).
    IncrementForm,
    NegateCondition,
    SwapOperands,
    SwapIndices,
    DeleteAssignment,
    ReplaceVariable,
    ReplacePointer,
    ReferenceExpression,
    /// Statement repairs ([`super::statements`]).
    MoveStatement,
    DeleteStatement,
    InsertStatement,
    /// A word read where the assignment reads a line: `scanf("%s", s)` →
    /// `scanf("%[^\n]", s)`.
    ReadLine,
    /// Literal text a `scanf` format matches that the input does not have goes:
    /// `scanf("%d,%d", …)` → `scanf("%d %d", …)`.
    ScanfText,
    /// A number printed with other flags, width or precision: the reference's way of
    /// printing one of its kind, or plainly (`printf("%2.f", x)` → `printf("%.2f", x)`).
    PrintfDirective,
    /// The line break `fgets` keeps cut off after the read: `s[strcspn(s, "\n")] = '\0';`.
    CutLineBreak,
    /// `#include <h>` for a library function another change of the same repair calls: part
    /// of that change, not a place of its own ([`MutationKind::is_companion`]).
    IncludeHeader,
    /// A statement that should run only sometimes gets a guard: `s[i] = s[i] - 32;` →
    /// `if (s[i] >= 'a' && s[i] <= 'z') s[i] = s[i] - 32;`.
    InsertGuard,
    /// A loop that reads its next item only before the loop reads it again at the end of its
    /// body: `scanf("%d", &x); while (x != 0) { … }` → `… scanf("%d", &x); }`.
    RepeatRead,
    /// A local declared without a value gets one: `int sum;` → `int sum = 0;`,
    /// `int count[26];` → `int count[26] = {0};`.
    Initialise,
    /// A print that should not be there (a prompt under a course that compares whole outputs,
    /// a debugging print, an extra line break) goes.
    DeleteOutput,
    /// The literal text a print prints ([`crate::engines::output_text`]).
    PrintedText,
    /// A read assigned with the comparison that should test it, `c = getchar() != EOF`
    /// (`c` gets 0 or 1) → `(c = getchar()) != EOF`.
    AssignmentGrouping,
    /// A character compared with one delimiter where another ends the text: `c != '\n'` →
    /// `c != EOF` (`'\0'`, `' '`).
    Delimiter,
    /// A character compared with one delimiter where another ends the text too:
    /// `c != '\n'` → `c != '\n' && c != EOF`.
    AlsoDelimiter,
    /// A separator printed only between a loop's items ([`super::separators`]).
    SeparatorBetween,
    /// A `for` loop that counts the other way: `i = 0; i < n; i++` → `i = n - 1; i >= 0; i--`
    /// (or, shifted by one, `i = n; i > 0; i--`).
    ReverseLoop,
    /// An `if` that should repeat becomes a `while`: `if (s[i] == c) { … }` → `while (s[i] == c) { … }`.
    RepeatIf,
    /// A printing statement of a loop's body repeated after the loop, for the last item the
    /// input ends on: `while (…) { … if (zero) putchar('0'); … }` → `… } if (zero) putchar('0');`.
    FinishLastItem,
    /// A division of two integers whose quotient is converted to a floating type divides in
    /// that type: `avg = sum / n` → `avg = (float) sum / n`.
    IntegerDivision,
    /// An assignment tested for truth compares instead: `if (x = 0)` → `if (x == 0)`.
    AssignmentForComparison,
    /// The `;` right after a loop or `if` header, which leaves its body empty, goes.
    StraySemicolon,
    /// Two strings compared with `==`, which compares where they are stored: their letters
    /// compared, `s == "yes"` → `strcmp(s, "yes") == 0`.
    StringEquality,
    /// Two assignments meant at once, made one after the other: the second reads what the
    /// first just overwrote, so the old value is kept first (`a[j] = a[j + 1]; a[j + 1] =
    /// a[j];` → `int tmp = a[j]; a[j] = a[j + 1]; a[j + 1] = tmp;`).
    KeepOldValue,
    /// An `else if` chain whose tests hide one another, reordered: `if (x >= 60) … else if
    /// (x >= 90) …` tests `x >= 90` first.
    ReorderConditions,
    /// An extreme tracked from a constant start (`max = 0`, wrong for negative items) takes
    /// the first item instead: `x > max` → `i == 0 || x > max`.
    FirstItem,
    /// A `do … while` that should test first: `do B while (C);` → `while (C) B`.
    TestFirst,
}

impl MutationKind {
    /// A change that only serves another of its repair (an include): it is applied and named
    /// in the repair's title, but it is no place where the program goes wrong.
    pub fn is_companion(self) -> bool {
        self == MutationKind::IncludeHeader
    }

    pub fn name(self) -> &'static str {
        match self {
            MutationKind::ArithmeticOperator => "arithmetic-operator",
            MutationKind::RelationalOperator => "relational-operator",
            MutationKind::LogicalOperator => "logical-operator",
            MutationKind::BitwiseOperator => "bitwise-operator",
            MutationKind::ConstantPlusOne => "constant-plus-one",
            MutationKind::ConstantMinusOne => "constant-minus-one",
            MutationKind::ConstantNegated => "constant-negated",
            MutationKind::ConstantZero => "constant-zero",
            MutationKind::InitOffByOne => "init-off-by-one",
            MutationKind::NamedState => "named-state",
            MutationKind::IncrementForm => "increment-form",
            MutationKind::NegateCondition => "negate-condition",
            MutationKind::SwapOperands => "swap-operands",
            MutationKind::SwapIndices => "swap-indices",
            MutationKind::DeleteAssignment => "delete-assignment",
            MutationKind::ReplaceVariable => "replace-variable",
            MutationKind::ReplacePointer => "replace-pointer",
            MutationKind::ReferenceExpression => "reference-expression",
            MutationKind::MoveStatement => "move-statement",
            MutationKind::DeleteStatement => "delete-statement",
            MutationKind::InsertStatement => "insert-statement",
            MutationKind::InsertGuard => "insert-guard",
            MutationKind::ReadLine => "read-line",
            MutationKind::ScanfText => "scanf-text",
            MutationKind::PrintfDirective => "printf-directive",
            MutationKind::CutLineBreak => "cut-line-break",
            MutationKind::IncludeHeader => "include-header",
            MutationKind::RepeatRead => "repeat-read",
            MutationKind::Initialise => "initialise",
            MutationKind::DeleteOutput => "delete-output",
            MutationKind::PrintedText => "printed-text",
            MutationKind::AssignmentGrouping => "assignment-grouping",
            MutationKind::Delimiter => "delimiter",
            MutationKind::AlsoDelimiter => "also-delimiter",
            MutationKind::SeparatorBetween => "separator-between",
            MutationKind::ReverseLoop => "reverse-loop",
            MutationKind::RepeatIf => "repeat-if",
            MutationKind::FinishLastItem => "finish-last-item",
            MutationKind::IntegerDivision => "integer-division",
            MutationKind::AssignmentForComparison => "assignment-for-comparison",
            MutationKind::StraySemicolon => "stray-semicolon",
            MutationKind::StringEquality => "string-equality",
            MutationKind::KeepOldValue => "keep-old-value",
            MutationKind::ReorderConditions => "reorder-conditions",
            MutationKind::FirstItem => "first-item",
            MutationKind::TestFirst => "test-first",
        }
    }
}

/// Where a location's expression sits, which decides the mutations that make sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The condition of an `if`, loop or `?:`.
    Condition,
    /// A whole expression statement, initialiser, return value or argument.
    Value,
}

#[derive(Clone, Debug)]
pub struct Mutant {
    /// The location's whole expression with the one change applied.
    pub expr: Expr,
    pub kind: MutationKind,
    /// The minimal edit of the original source.
    pub edit: TextEdit,
    /// "`i < n` → `i <= n`"
    pub description: String,
}

/// `cond`, the test of an extreme (`x > max`, which then sets `max = x`) in a loop that
/// counts `counter` up from `start`, made to hold in the first round too:
/// `counter == start || x > max`. The extreme no longer depends on its constant start, which
/// is wrong where every item is below it (a maximum started at 0 over negative numbers).
pub fn first_item_mutant(program: &Program, src: &str, cond: &Expr, counter: VarId, start: i64) -> Option<Mutant> {
    let text = src.get(cond.span.range())?;
    let name = &program.var(counter).name;
    let first = Expr::new(
        ExprKind::Binary(
            BinOp::Eq,
            Box::new(Expr::new(ExprKind::Var(counter), Type::INT, cond.span)),
            Box::new(Expr::new(ExprKind::Int(start), Type::INT, cond.span)),
        ),
        Type::INT,
        cond.span,
    );
    let expr = Expr::new(ExprKind::Logical(LogicOp::Or, Box::new(first), Box::new(cond.clone())), Type::INT, cond.span);
    let inner = crate::ir::without_parentheses(text);
    let wrapped = crate::ir::is_parenthesized(text.trim());
    let new = format!("{name} == {start} || {inner}");
    let new_text = if wrapped { format!("({new})") } else { new.clone() };
    Some(Mutant {
        expr,
        kind: MutationKind::FirstItem,
        edit: TextEdit { span: cond.span, new_text },
        description: format!("`{inner}` → `{new}`"),
    })
}

/// Variables that may replace a read at a position (same type, in scope there).
pub trait Scope {
    fn candidates(&self, at: Span, ty: &Type) -> Vec<VarId>;
}

/// No variable replacement.
pub struct NoScope;

impl Scope for NoScope {
    fn candidates(&self, _: Span, _: &Type) -> Vec<VarId> {
        Vec::new()
    }
}

/// All mutants of `expr` at `level` (1 or 2), in a deterministic order: by node position in the
/// expression (pre-order), then by catalogue order.
pub fn mutants(program: &Program, src: &str, expr: &Expr, role: Role, level: u8, scope: &dyn Scope) -> Vec<Mutant> {
    let mut out = Vec::new();
    let ctx = Ctx { program, src, level, role, scope, root: expr };
    if role == Role::Condition
        && level >= 1
        && let Some(m) = ctx.negate_condition(expr)
    {
        out.push(m);
    }
    if role == Role::Condition
        && let Some(m) = ctx.assignment_grouping(expr)
    {
        out.push(m);
    }
    if role == Role::Condition {
        ctx.assignment_for_comparison(expr, &mut out);
    }
    if let ExprKind::Assign(lhs, rhs) = &expr.kind {
        if let Some(m) = ctx.delete_assignment(expr, lhs, rhs) {
            out.push(m);
        }
        out.extend(ctx.init_off_by_one(expr, rhs));
    }
    let mut path = Vec::new();
    ctx.visit(expr, &mut path, &mut out);
    // Several catalogue entries can produce the same text edit (`0` → `1` by C+1 and by the
    // off-by-one rule): keep the first.
    let mut seen = std::collections::HashSet::new();
    out.retain(|m| seen.insert((m.edit.span, m.edit.new_text.clone())));
    out
}

/// The `integer-division` mutants of the quotients a `printf` call prints with a floating
/// directive (`printf("%.2f", sum / n)`). Each changes the type of what it prints, which no
/// location's alternative may (the encodings keep a location's type): they are statement
/// repairs, checked by running the tests ([`super::statements`]).
pub fn printed_quotient_mutants(program: &Program, src: &str, call: &Expr) -> Vec<Mutant> {
    let mut out = Vec::new();
    let ExprKind::Call(Callee::Builtin(Builtin::Printf), args) = &call.kind else { return out };
    let ctx = Ctx { program, src, level: 1, role: Role::Value, scope: &NoScope, root: call };
    ctx.printed_quotients(args, &mut Vec::new(), &mut out);
    out
}

/// The `replace-variable` mutants of `expr` alone, whatever the level (the reference repair
/// offers them for conditions at level 1: `y >= z` → `a >= z`).
pub fn variable_replacements(program: &Program, src: &str, expr: &Expr, scope: &dyn Scope) -> Vec<Mutant> {
    let mut out = Vec::new();
    let ctx = Ctx { program, src, level: 2, role: Role::Value, scope, root: expr };
    ctx.visit(expr, &mut Vec::new(), &mut out);
    out.retain(|m| m.kind == MutationKind::ReplaceVariable);
    out
}

/// The program's name for the constant `e`, when the source writes it as an object-like
/// macro whose body is that number (`FALSE`, `SOMA`).
pub fn constant_name<'s>(program: &Program, src: &'s str, e: &Expr) -> Option<&'s str> {
    let core = e.strip_implicit();
    let ExprKind::Int(v) = core.kind else { return None };
    let text = src.get(core.span.range())?;
    (program.macro_int(text) == Some(v)).then_some(text)
}

/// The `named-state` mutants of a right side or initialiser `value` written as one of
/// `states` (the named constants its target takes): each of the others.
pub fn state_mutants(program: &Program, src: &str, value: &Expr, states: &[String]) -> Vec<Mutant> {
    let Some(name) = constant_name(program, src, value) else { return Vec::new() };
    if !states.iter().any(|s| s == name) {
        return Vec::new();
    }
    let core = value.strip_implicit();
    let Some(path) = path_to(value, core) else { return Vec::new() };
    let ctx = Ctx { program, src, level: 1, role: Role::Value, scope: &NoScope, root: value };
    let ExprKind::Int(v) = core.kind else { return Vec::new() };
    states
        .iter()
        .filter_map(|other| {
            // Another name for the same value is the same program.
            let value = program.macro_int(other).filter(|&o| o != v)?;
            let node = Expr { kind: ExprKind::Int(value), ..core.clone() };
            Some(ctx.mutant(&path, node, MutationKind::NamedState, core.span, other.clone()))
        })
        .collect()
}

/// The alternatives of an initialiser `T x = c;` (a declaration is not an expression in the
/// IR, so its initialiser is its own location).
pub fn init_mutants(program: &Program, src: &str, init: &Expr, level: u8, scope: &dyn Scope) -> Vec<Mutant> {
    let mut out = Vec::new();
    let ctx = Ctx { program, src, level, role: Role::Value, scope, root: init };
    out.extend(ctx.off_by_one_constant(init, init));
    let mut path = Vec::new();
    ctx.visit(init, &mut path, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.retain(|m| seen.insert((m.edit.span, m.edit.new_text.clone())));
    out
}

/// The assignment-level mutations of `lhs = rhs`, as alternatives of the location `rhs`:
/// deleting the assignment (`x = e` → `x = x`) and the off-by-one initialisation
/// (`i = 0` ↔ `i = 1`).
pub fn assignment_mutants(program: &Program, src: &str, assign: &Expr, lhs: &Expr, rhs: &Expr) -> Vec<Mutant> {
    let ctx = Ctx { program, src, level: 1, role: Role::Value, scope: &NoScope, root: rhs };
    let mut out = Vec::new();
    out.extend(ctx.off_by_one_constant(rhs, rhs));
    let (target, whole) = (ctx.text(lhs.span), ctx.text(assign.span));
    if !target.is_empty() && !whole.is_empty() && matches!(lhs.kind, ExprKind::Var(_)) {
        let self_read = Expr::new(lhs.kind.clone(), lhs.ty.clone(), rhs.span);
        let expr = ctx.convert_like(self_read, rhs);
        out.push(Mutant {
            expr,
            kind: MutationKind::DeleteAssignment,
            edit: TextEdit { span: deletion_span(src, assign.span), new_text: String::new() },
            description: format!("delete `{whole}`"),
        });
    }
    out
}

struct Ctx<'a> {
    program: &'a Program,
    src: &'a str,
    level: u8,
    role: Role,
    scope: &'a dyn Scope,
    root: &'a Expr,
}

/// A child position inside an expression, for rebuilding the root with one node replaced.
type Path = Vec<usize>;

/// `root` with the node at `path` replaced by `node`.
fn replace_at(root: &Expr, path: &[usize], node: Expr) -> Expr {
    let mut copy = root.clone();
    let mut at = &mut copy;
    for &i in path {
        at = children_mut(at).into_iter().nth(i).expect("path from visit");
    }
    *at = node;
    copy
}

fn relational_group(op: BinOp, level: u8) -> &'static [BinOp] {
    use BinOp::*;
    match (op, level) {
        (Gt | Ge, 1) => &[Gt, Ge],
        (Lt | Le, 1) => &[Lt, Le],
        (Gt | Ge | Lt | Le, _) => &[Gt, Ge, Lt, Le],
        (Eq | Ne, l) if l >= 2 => &[Eq, Ne],
        _ => &[],
    }
}

fn arithmetic_group(op: BinOp, level: u8) -> &'static [BinOp] {
    use BinOp::*;
    match (op, level) {
        (Add | Sub, 1) => &[Add, Sub],
        (Mul | Div | Rem, 1) => &[Mul, Div, Rem],
        (Add | Sub | Mul | Div | Rem, _) => &[Add, Sub, Mul, Div, Rem],
        _ => &[],
    }
}

/// What an arithmetic or bitwise operator may become: its arithmetic group (`%` only where
/// the operands are `integer`) and its bitwise group.
fn arithmetic_alternatives(op: BinOp, level: u8, integer: bool) -> Vec<BinOp> {
    let arithmetic = arithmetic_group(op, level).iter().filter(|o| **o != BinOp::Rem || integer);
    arithmetic.chain(bitwise_group(op)).copied().collect()
}

/// The kind of the mutation that changes `op` into `to`.
fn operator_kind(op: BinOp, to: BinOp) -> MutationKind {
    if op.is_comparison() {
        MutationKind::RelationalOperator
    } else if bitwise_group(op).contains(&to) {
        MutationKind::BitwiseOperator
    } else {
        MutationKind::ArithmeticOperator
    }
}

fn bitwise_group(op: BinOp) -> &'static [BinOp] {
    use BinOp::*;
    match op {
        Shl | Shr => &[Shl, Shr],
        BitAnd | BitOr | BitXor => &[BitAnd, BitOr, BitXor],
        _ => &[],
    }
}

fn negated(op: BinOp) -> Option<BinOp> {
    use BinOp::*;
    Some(match op {
        Lt => Ge,
        Le => Gt,
        Gt => Le,
        Ge => Lt,
        Eq => Ne,
        Ne => Eq,
        _ => return None,
    })
}

impl Ctx<'_> {
    /// `e` converted the way `like` is (the right side of an assignment carries an implicit
    /// conversion to the target's type).
    fn convert_like(&self, e: Expr, like: &Expr) -> Expr {
        if e.ty == like.ty {
            e
        } else {
            Expr::new(ExprKind::Cast { expr: Box::new(e), implicit: true }, like.ty.clone(), like.span)
        }
    }

    /// "`i < n` → `i <= n`": the change shown inside the node it belongs to (when short).
    fn in_context(&self, node: Span, edit: Span, new_text: &str) -> String {
        let old = self.text(node);
        if old.len() > 40 || edit.start < node.start || edit.end > node.end {
            return format!("`{}` → `{new_text}`", self.text(edit));
        }
        let mut new = old.to_string();
        new.replace_range((edit.start - node.start) as usize..(edit.end - node.start) as usize, new_text);
        format!("`{old}` → `{new}`")
    }

    fn text(&self, span: Span) -> &str {
        self.src.get(span.range()).unwrap_or("")
    }

    /// The span of the operator token between two operands, if the source has exactly `token`
    /// there (not inside a macro expansion).
    fn operator_span(&self, a: &Expr, b: &Expr, token: &str) -> Option<Span> {
        let (start, end) = (a.span.end as usize, b.span.start as usize);
        if start >= end {
            return None;
        }
        let gap = self.src.get(start..end)?;
        let trimmed = gap.trim();
        if trimmed != token {
            return None;
        }
        let offset = start + gap.find(token)?;
        Some(Span::new(offset, offset + token.len()))
    }

    fn mutant(&self, path: &[usize], node: Expr, kind: MutationKind, edit_span: Span, new_text: String) -> Mutant {
        let old = self.text(edit_span).to_string();
        let description = format!("`{old}` → `{new_text}`");
        Mutant {
            expr: replace_at(self.root, path, node),
            kind,
            edit: TextEdit { span: edit_span, new_text },
            description,
        }
    }

    fn visit(&self, e: &Expr, path: &mut Path, out: &mut Vec<Mutant>) {
        match &e.kind {
            ExprKind::Binary(op, a, b) => {
                self.binary(e, *op, a, b, path, out);
                if self.level < 2 && matches!(op, BinOp::Add | BinOp::Sub) {
                    self.offset_off_by_one(e, a, out);
                    self.offset_off_by_one(e, b, out);
                }
            }
            ExprKind::Logical(op, a, b) => {
                let (from, to) = match op {
                    LogicOp::And => ("&&", LogicOp::Or),
                    LogicOp::Or => ("||", LogicOp::And),
                };
                if let Some(span) = self.operator_span(a, b, from) {
                    let node = Expr { kind: ExprKind::Logical(to, a.clone(), b.clone()), ..e.clone() };
                    let text = if to == LogicOp::And { "&&" } else { "||" };
                    let mut m = self.mutant(path, node, MutationKind::LogicalOperator, span, text.into());
                    m.description = self.in_context(e.span, span, text);
                    out.push(m);
                    self.drop_operand(e, *op, path, out);
                }
            }
            ExprKind::CompoundAssign { op, op_ty, lhs, rhs } => {
                self.compound_operator(e, *op, op_ty, lhs, rhs, path, out)
            }
            ExprKind::IncDec(op, target) => {
                let (from, to) =
                    if matches!(op, IncDec::PreInc | IncDec::PostInc) { ("++", "--") } else { ("--", "++") };
                let flipped = op.flip();
                let text = self.text(e.span);
                let target_text = self.text(target.span);
                let at = if matches!(op, IncDec::PreInc | IncDec::PreDec) { text.find(from) } else { text.rfind(from) };
                if let (Some(at), false) = (at, target_text.contains(from)) {
                    let start = e.span.start as usize + at;
                    let node = Expr { kind: ExprKind::IncDec(flipped, target.clone()), ..e.clone() };
                    let edit = Span::new(start, start + 2);
                    let mut m = self.mutant(path, node, MutationKind::ArithmeticOperator, edit, to.into());
                    m.description = self.in_context(e.span, edit, to);
                    out.push(m);
                }
                if !path.is_empty() || self.role == Role::Condition {
                    self.increment_form(e, *op, target, path, out);
                }
            }
            ExprKind::Cast { expr: inner, implicit: true } if e.ty.is_float() => {
                self.integer_division(e, inner, path, out)
            }
            ExprKind::Int(v) if self.level >= 2 => self.constant_int(e, *v, path, false, out),
            ExprKind::Float(v) if self.level >= 2 => self.constant_float(e, *v, path, out),
            ExprKind::Var(v) if self.level >= 2 => self.replace_variable(e, *v, path, out),
            ExprKind::Index(row, j) => self.swap_indices(e, row, j, path, out),
            _ => {}
        }
        if struct_pointer(&e.ty) {
            self.replace_pointer(e, path, out);
        }
        // Do not descend into the target of an assignment: mutating `a[i] = ...` into
        // `a[i+1] = ...` is outside the catalogue (the left side is a location of its own
        // only through its index expression, which `visit` still reaches below).
        for (i, child) in children(e).into_iter().enumerate() {
            let is_write_target =
                matches!(&e.kind, ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..))
                    && i == 0;
            if is_write_target && matches!(child.kind, ExprKind::Var(_)) {
                continue;
            }
            path.push(i);
            self.visit(child, path, out);
            path.pop();
        }
    }

    /// `swap-indices`: `m[i][j]` → `m[j][i]`, where both indices are integers without
    /// effects and differ. The text between them (`][`) stays as written.
    fn swap_indices(&self, e: &Expr, row: &Expr, j: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        let (array, i) = match &row.strip_implicit().kind {
            ExprKind::Index(array, i) | ExprKind::Row { array, index: i, .. } => (array, i),
            _ => return,
        };
        let plain = |x: &Expr| x.ty.is_integer() && !crate::ir::walk::has_effects(x);
        let (ti, tj) = (self.text(i.span), self.text(j.span));
        if !plain(i) || !plain(j) || ti.is_empty() || tj.is_empty() || ti == tj || i.span.end > j.span.start {
            return;
        }
        let Some(gap) = self.src.get(i.span.end as usize..j.span.start as usize) else { return };
        let mut swapped_row = row.strip_implicit().clone();
        swapped_row.kind = match &swapped_row.kind {
            ExprKind::Row { len, .. } => ExprKind::Row { array: array.clone(), index: Box::new(j.clone()), len: *len },
            _ => ExprKind::Index(array.clone(), Box::new(j.clone())),
        };
        let mut node = e.clone();
        node.kind = ExprKind::Index(Box::new(rewrap(row, swapped_row)), Box::new((**i).clone()));
        let whole = Span { start: i.span.start, end: j.span.end };
        let mut m = self.mutant(path, node, MutationKind::SwapIndices, whole, format!("{tj}{gap}{ti}"));
        // Said of the whole element: `m[j][i]` → `m[i][j]`, not `j][i` → `i][j`.
        m.description = self.in_context(e.span, whole, &m.edit.new_text);
        out.push(m);
    }

    /// `x /= 64` → `x %= 64`, `s += c` → `s -= c`: the arithmetic and bitwise groups of a
    /// binary operator (`arithmetic_group`, `bitwise_group`) for the operator of a compound
    /// assignment, which is the same operation written with its target.
    #[allow(clippy::too_many_arguments)]
    fn compound_operator(
        &self,
        e: &Expr,
        op: BinOp,
        op_ty: &Type,
        lhs: &Expr,
        rhs: &Expr,
        path: &[usize],
        out: &mut Vec<Mutant>,
    ) {
        if lhs.ty.is_pointer() {
            return;
        }
        let Some(span) = self.operator_span(lhs, rhs, &format!("{}=", op.c_token())) else { return };
        for to in arithmetic_alternatives(op, self.level, op_ty.is_integer()).into_iter().filter(|&to| to != op) {
            let kind = operator_kind(op, to);
            let node = Expr {
                kind: ExprKind::CompoundAssign {
                    op: to,
                    op_ty: op_ty.clone(),
                    lhs: Box::new(lhs.clone()),
                    rhs: Box::new(rhs.clone()),
                },
                ..e.clone()
            };
            let token = format!("{}=", to.c_token());
            let mut m = self.mutant(path, node, kind, span, token.clone());
            m.description = self.in_context(e.span, span, &token);
            out.push(m);
        }
    }

    /// `integer-division`: a division of two integers whose quotient is converted to a
    /// floating type (`avg = sum / n` with `float avg`, `x * (1 / 2)` with `double x`) divides
    /// in that type: `(float) sum / n`, `1.0 / 2`. `cast` is the implicit conversion.
    fn integer_division(&self, cast: &Expr, inner: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        let ExprKind::Binary(BinOp::Div, a, b) = &inner.kind else { return };
        if !a.ty.is_integer() || !b.ty.is_integer() {
            return;
        }
        let (ta, whole) = (self.text(a.span), self.text(inner.span));
        if ta.is_empty() || whole.is_empty() || a.span.start > b.span.start {
            return;
        }
        let target = cast.ty.clone();
        let converted = |x: &Expr, ty: &Type, implicit: bool| {
            Expr::new(ExprKind::Cast { expr: Box::new(x.clone()), implicit }, ty.clone(), x.span)
        };
        // A literal dividend quotient is written as a `double` constant (where the quotient is
        // a `double`: a `float` one would change the type of what it is part of); anything
        // else is cast.
        let (left, new_text) = match a.strip_implicit().kind {
            ExprKind::Int(v) if target == Type::DOUBLE && ta.trim().chars().all(|c| c.is_ascii_digit()) => {
                (Expr::new(ExprKind::Float(v as f64), Type::DOUBLE, a.span), format!("{v}.0"))
            }
            _ => {
                let name = if target == Type::DOUBLE { "double" } else { "float" };
                (converted(a, &target, false), format!("({name}) {}", parenthesize(a, ta)))
            }
        };
        let quotient_ty = left.ty.clone();
        let right = converted(b, &quotient_ty, true);
        let node = Expr::new(ExprKind::Binary(BinOp::Div, Box::new(left), Box::new(right)), quotient_ty, inner.span);
        let mut m = self.mutant(path, node, MutationKind::IntegerDivision, a.span, new_text.clone());
        m.description = self.in_context(inner.span, a.span, &new_text);
        out.push(m);
    }

    /// `integer-division` of a quotient `printf` prints with a floating directive
    /// (`printf("%.2f", sum / n)` with `int sum, n`): the directive asks for the fraction, and
    /// the quotient, divided in `double`, gives it (as printed, it is a `double` already).
    fn printed_quotients(&self, args: &[Expr], path: &mut Path, out: &mut Vec<Mutant>) {
        let Some((fmt, values)) = crate::ir::format::printf_format(args) else { return };
        let Ok(pieces) = crate::ir::format::parse(fmt, false) else { return };
        let first_value = args.len() - values.len();
        let mut at = first_value;
        for piece in pieces {
            let crate::ir::format::Piece::Directive(d) = piece else { continue };
            if d.conv == '%' {
                continue;
            }
            let index = at + d.arg_count(false) - 1;
            at += d.arg_count(false);
            let Some(value) = args.get(index) else { return };
            if !d.is_float() || !value.ty.is_integer() {
                continue;
            }
            let as_double =
                Expr::new(ExprKind::Cast { expr: Box::new(value.clone()), implicit: true }, Type::DOUBLE, value.span);
            path.push(index);
            self.integer_division(&as_double, value.strip_implicit(), path, out);
            path.pop();
        }
    }

    /// `--j` ↔ `j--`, `++i` ↔ `i++`: the operator moved to the other side of a target
    /// written as a plain name.
    fn increment_form(&self, e: &Expr, op: IncDec, target: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        let ExprKind::Var(_) = target.kind else { return };
        let name = self.text(target.span);
        let token = if matches!(op, IncDec::PreInc | IncDec::PostInc) { "++" } else { "--" };
        let (prefix, postfix) = (format!("{token}{name}"), format!("{name}{token}"));
        let (written, other) =
            if matches!(op, IncDec::PreInc | IncDec::PreDec) { (prefix, postfix) } else { (postfix, prefix) };
        // A condition's node spans its parentheses: `(--j)`.
        let text = self.text(e.span);
        let mut inner = text.trim();
        while crate::ir::is_parenthesized(inner) {
            inner = crate::ir::without_parentheses(inner);
        }
        if squeezed(inner) != written {
            return;
        }
        let start = e.span.start as usize + (inner.as_ptr() as usize - text.as_ptr() as usize);
        let span = Span::new(start, start + inner.len());
        let node = Expr { kind: ExprKind::IncDec(op.other_form(), Box::new(target.clone())), ..e.clone() };
        let mut m = self.mutant(path, node, MutationKind::IncrementForm, span, other);
        m.description = format!("`{inner}` → `{}`", m.edit.new_text);
        out.push(m);
    }

    /// A condition a student added that should not be there (`s[i] != s[j] && s[i] != s[j] + 32`
    /// where case matters), or the other half of one: in a chain `a && b && c` (or of `||`),
    /// each operand alone, and with three or more, the chain without one of them. Only where
    /// the truth value is all that is used: the condition of an `if`, loop or `?:`, through
    /// `&&`, `||` and `!` only; at the top of the chain, so each change is one edit. The kept
    /// operands' text takes the place of the chain's, inside its parentheses when it has them.
    fn drop_operand(&self, e: &Expr, op: LogicOp, path: &[usize], out: &mut Vec<Mutant>) {
        if self.role != Role::Condition {
            return;
        }
        let mut at = self.root;
        for (depth, &i) in path.iter().enumerate() {
            match at.kind {
                ExprKind::Logical(parent, ..) if parent == op && depth + 1 == path.len() => return, // not the top
                ExprKind::Logical(..) | ExprKind::Unary(UnOp::Not, _) | ExprKind::Cast { implicit: true, .. } => {}
                _ => return,
            }
            let Some(child) = children(at).into_iter().nth(i) else { return };
            at = child;
        }
        fn chain<'e>(e: &'e Expr, op: LogicOp, out: &mut Vec<&'e Expr>) {
            match &e.kind {
                ExprKind::Logical(o, a, b) if *o == op => {
                    chain(a, op, out);
                    chain(b, op, out);
                }
                _ => out.push(e),
            }
        }
        let mut operands = Vec::new();
        chain(e, op, &mut operands);
        let texts: Vec<&str> = operands.iter().map(|x| self.text(x.span)).collect();
        let whole = self.text(e.span);
        if texts.iter().any(|t| t.is_empty() || !whole.contains(t)) {
            return; // a macro expansion: no exact edit
        }
        let span = if crate::ir::is_parenthesized(whole) {
            Span::new(e.span.start as usize + 1, e.span.end as usize - 1)
        } else {
            e.span
        };
        let token = if op == LogicOp::And { " && " } else { " || " };
        // Inside the shorter chain an operand that binds more loosely than `op` (written in
        // parentheses whose span is not the operand's) keeps them.
        let written = |k: usize| match operands[k].kind {
            ExprKind::Logical(..)
            | ExprKind::Cond(..)
            | ExprKind::Assign(..)
            | ExprKind::CompoundAssign { .. }
            | ExprKind::Comma(..)
                if !crate::ir::is_parenthesized(texts[k]) =>
            {
                format!("({})", texts[k])
            }
            _ => texts[k].to_string(),
        };
        let n = operands.len();
        let mut choices: Vec<Vec<usize>> = (0..n).map(|k| vec![k]).collect();
        if n >= 3 {
            choices.extend((0..n).map(|k| (0..n).filter(|&j| j != k).collect()));
        }
        for kept in choices {
            let text = if kept.len() == 1 {
                // Alone, it needs no parentheses of its own: `(c > 0 || d > 0)` → `c > 0 || d > 0`.
                crate::ir::without_parentheses(texts[kept[0]]).to_string()
            } else {
                kept.iter().map(|&k| written(k)).collect::<Vec<_>>().join(token)
            };
            let node = kept[1..].iter().fold(operands[kept[0]].clone(), |acc, &k| Expr {
                kind: ExprKind::Logical(op, Box::new(acc), Box::new(operands[k].clone())),
                ..e.clone()
            });
            let mut m = self.mutant(path, node, MutationKind::LogicalOperator, span, text.clone());
            m.description = format!("`{}` → `{text}`", self.text(span).trim());
            out.push(m);
        }
    }

    /// `a & b` → `a && b`, `a | b` → `a || b`: the single character of a logical operator.
    /// Only where the operation is a whole condition or value (`if (x > 0 & y > 0)`), so that
    /// the looser operator cannot regroup what surrounds it.
    fn bitwise_for_logical(&self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        if !self.is_whole_value(path) {
            return;
        }
        let (token, to) = if op == BinOp::BitAnd { ("&&", LogicOp::And) } else { ("||", LogicOp::Or) };
        let Some(span) = self.operator_span(a, b, op.c_token()) else { return };
        let node = Expr { kind: ExprKind::Logical(to, Box::new(a.clone()), Box::new(b.clone())), ..e.clone() };
        let mut m = self.mutant(path, node, MutationKind::LogicalOperator, span, token.into());
        m.description = self.in_context(e.span, span, token);
        out.push(m);
    }

    fn binary(&self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            self.delimiters(e, op, a, b, path, out);
        }
        let operands_integer = a.ty.is_integer() && b.ty.is_integer();
        let pointer_arith = a.ty.is_pointer() || b.ty.is_pointer();
        let mut group: Vec<BinOp> = Vec::new();
        if op.is_comparison() {
            group.extend(relational_group(op, self.level));
        } else if !pointer_arith {
            group.extend(arithmetic_alternatives(op, self.level, operands_integer));
            // A bitwise operator in a beginner's program is usually a slip for its keyboard or
            // look-alike neighbour: `n & 10` for `n % 10` (the logical ones below).
            if op == BinOp::BitAnd && operands_integer {
                group.push(BinOp::Rem);
            }
        }
        if matches!(op, BinOp::BitAnd | BinOp::BitOr) && operands_integer {
            self.bitwise_for_logical(e, op, a, b, path, out);
        }
        if let Some(span) = self.operator_span(a, b, op.c_token()) {
            for &to in &group {
                if to == op {
                    continue;
                }
                let kind = operator_kind(op, to);
                let node = Expr { kind: ExprKind::Binary(to, Box::new(a.clone()), Box::new(b.clone())), ..e.clone() };
                // A tighter operator between two plain operands keeps the grouping in place.
                if precedence(to) == precedence(op) || (precedence(to) > precedence(op) && atomic(a) && atomic(b)) {
                    let mut m = self.mutant(path, node, kind, span, to.c_token().into());
                    m.description = self.in_context(e.span, span, to.c_token());
                    out.push(m);
                } else {
                    // A different precedence would regroup the text (`n * (n + 1) / 2` with `+`
                    // for `*`): rewrite the whole operation, parenthesized.
                    let (ta, tb) = (self.text(a.span), self.text(b.span));
                    let gap_a = self.src.get(a.span.end as usize..span.start as usize).unwrap_or(" ");
                    let gap_b = self.src.get(span.end as usize..b.span.start as usize).unwrap_or(" ");
                    let text =
                        format!("({}{gap_a}{}{gap_b}{})", parenthesize(a, ta), to.c_token(), parenthesize(b, tb));
                    out.push(self.mutant(path, node, kind, Span { start: a.span.start, end: b.span.end }, text));
                }
            }
            if matches!(op, BinOp::Sub | BinOp::Div) && !pointer_arith {
                let (ta, tb, gap) =
                    (self.text(a.span), self.text(b.span), self.src.get(a.span.end as usize..b.span.start as usize));
                if let Some(gap) = gap
                    && !ta.is_empty()
                    && !tb.is_empty()
                    && a.span.start < b.span.start
                {
                    let node =
                        Expr { kind: ExprKind::Binary(op, Box::new(b.clone()), Box::new(a.clone())), ..e.clone() };
                    let whole = Span { start: a.span.start, end: b.span.end };
                    let (ta, tb) = (parenthesize(a, ta), parenthesize(b, tb));
                    out.push(self.mutant(path, node, MutationKind::SwapOperands, whole, format!("{tb}{gap}{ta}")));
                }
            }
        }
    }

    /// `delimiter` and `also-delimiter`: in `x == K` or `x != K`, with `K` a character
    /// constant or `EOF`, `K` becomes another of [`DELIMITERS`] (a loop that reads up to
    /// `'\n'` where the input ends without one), or the test takes one more delimiter
    /// (`x != K && x != D`, `(x == K || x == D)`). `x` is read again in the new test, so it
    /// must have no effects, or be an assignment (`(c = getchar()) != '\n' && c != EOF`).
    fn delimiters(&self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        let constant = |x: &Expr| match x.strip_implicit().kind {
            ExprKind::Int(v) => {
                let text = self.text(x.strip_implicit().span);
                (text == "EOF" || text.starts_with('\'')).then_some(v)
            }
            _ => None,
        };
        let (value, side, k) = match (constant(a), constant(b)) {
            (None, Some(k)) => (a, 1, k),
            (Some(k), None) => (b, 0, k),
            _ => return,
        };
        let written = if side == 1 { b } else { a };
        let k_core = written.strip_implicit();
        let (Some(to_k), whole) = (path_to(written, k_core), self.text(e.span)) else { return };
        if whole.is_empty() {
            return;
        }
        // `EOF` is stdio.h's: a program that reads characters includes it.
        let usable: Vec<(i64, &str)> =
            DELIMITERS.into_iter().filter(|(d, _)| *d != k && (*d != -1 || self.src.contains("<stdio.h>"))).collect();
        let mut k_path = path.to_vec();
        k_path.push(side);
        k_path.extend(&to_k);
        for &(d, text) in &usable {
            let node = Expr { kind: ExprKind::Int(d), ..k_core.clone() };
            let mut m = self.mutant(&k_path, node, MutationKind::Delimiter, k_core.span, text.into());
            m.description = self.in_context(e.span, k_core.span, text);
            out.push(m);
        }
        let core = value.strip_implicit();
        let (again, again_text) = match &core.kind {
            ExprKind::Assign(target, _) if !crate::ir::walk::has_effects(target) => {
                let Some(to_core) = path_to(value, core) else { return };
                (replace_at(value, &to_core, (**target).clone()), self.text(target.span))
            }
            _ if !crate::ir::walk::has_effects(value) => (value.clone(), self.text(core.span)),
            _ => return,
        };
        if again_text.is_empty() {
            return;
        }
        let (logic, joint) = if op == BinOp::Ne { (LogicOp::And, "&&") } else { (LogicOp::Or, "||") };
        // Inside anything but `&&`/`||` (or as the whole value) the new test is parenthesized;
        // so is every `||` (it binds looser than a `&&` around it).
        let parent = path.len().checked_sub(1).map(|n| {
            let mut at = self.root;
            for &i in &path[..n] {
                at = children(at).into_iter().nth(i).expect("path from visit");
            }
            at
        });
        let bare = logic == LogicOp::And
            && parent.is_none_or(|p| {
                matches!(p.kind, ExprKind::Logical(..)) || self.is_whole_value(&path[..path.len() - 1])
            });
        for &(d, text) in &usable {
            if self.text(self.root.span).contains(text) {
                continue; // the test already has that delimiter
            }
            let d_node = replace_at(written, &to_k, Expr { kind: ExprKind::Int(d), ..k_core.clone() });
            let test = Expr::new(ExprKind::Binary(op, Box::new(again.clone()), Box::new(d_node)), e.ty.clone(), e.span);
            let joined = Expr::new(ExprKind::Logical(logic, Box::new(e.clone()), Box::new(test)), e.ty.clone(), e.span);
            let extra = format!(" {joint} {again_text} {} {text}", op.c_token());
            // A condition's span holds the statement's parentheses: the test goes inside them.
            let inner = if crate::ir::print::is_parenthesised(whole) { &whole[1..whole.len() - 1] } else { whole };
            let (edit, new_whole) = if bare {
                let at = (e.span.start as usize) + (inner.as_ptr() as usize - whole.as_ptr() as usize) + inner.len();
                (TextEdit { span: Span::new(at, at), new_text: extra.clone() }, format!("{inner}{extra}"))
            } else {
                let t = format!("({inner}{extra})");
                let span = if inner.len() == whole.len() {
                    e.span
                } else {
                    Span::new(e.span.start as usize + 1, e.span.end as usize - 1)
                };
                (TextEdit { span, new_text: t.clone() }, t)
            };
            // `a && x != K` with `&& x != D` appended reads `(a && x != K) && x != D`.
            let expr = match parent {
                Some(p) if bare && matches!(p.kind, ExprKind::Logical(LogicOp::And, ..)) && path.last() == Some(&1) => {
                    let ExprKind::Logical(_, _, test) = joined.kind else { unreachable!("built above") };
                    let outer =
                        Expr::new(ExprKind::Logical(LogicOp::And, Box::new(p.clone()), test), p.ty.clone(), p.span);
                    replace_at(self.root, &path[..path.len() - 1], outer)
                }
                _ => replace_at(self.root, path, joined),
            };
            out.push(Mutant {
                expr,
                kind: MutationKind::AlsoDelimiter,
                edit,
                description: format!("`{inner}` → `{new_whole}`"),
            });
        }
    }

    /// `offset-off-by-one` (level 1): an integer literal added or subtracted is one off
    /// (`N - 2` → `N - 1`, `len + 1` → `len`): level 2's `C+1` and `C-1`, for offsets alone.
    fn offset_off_by_one(&self, sum: &Expr, operand: &Expr, out: &mut Vec<Mutant>) {
        let core = operand.strip_implicit();
        if let ExprKind::Int(v) = core.kind
            && let Some(path) = path_to(self.root, core)
        {
            let from = out.len();
            self.constant_int(core, v, &path, true, out);
            // An offset that becomes 0 goes with its operator: `i + 1` → `i`, not `i + 0`.
            let ExprKind::Binary(op, a, b) = &sum.kind else { return };
            let gone = if b.strip_implicit().id == core.id {
                Some((Span::new(a.span.end as usize, core.span.end as usize), a))
            } else if *op == BinOp::Add {
                Some((Span::new(core.span.start as usize, b.span.start as usize), b))
            } else {
                None
            };
            let sum_path = path_to(self.root, sum);
            for m in &mut out[from..] {
                if let (Some((gone, kept)), Some(sum_path), "0") = (gone, &sum_path, m.edit.new_text.as_str()) {
                    m.expr = replace_at(self.root, sum_path, self.convert_like((**kept).clone(), sum));
                    m.edit = TextEdit { span: gone, new_text: String::new() };
                }
                // Shown in the sum it belongs to: `N - 2` → `N - 1`.
                m.description = self.in_context(sum.span, m.edit.span, &m.edit.new_text);
            }
        }
    }

    /// Level 2's constant mutants of the literal `e`; only `C+1` and `C-1` (not of a character
    /// literal) when `off_by_one`.
    fn constant_int(&self, e: &Expr, v: i64, path: &[usize], off_by_one: bool, out: &mut Vec<Mutant>) {
        let Some(t) = e.ty.as_int() else { return };
        let text = self.text(e.span);
        if text.is_empty() || !(text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '\'')) {
            return; // a macro or a named constant: its text is not the number
        }
        let is_char = text.starts_with('\'');
        if off_by_one && is_char {
            return;
        }
        // Keep the literal's suffix (`3u` → `4u`) so the type stays the same.
        let suffix: String = if is_char {
            String::new()
        } else {
            text.chars().rev().take_while(|c| "uUlL".contains(*c)).collect::<Vec<_>>().into_iter().rev().collect()
        };
        for (kind, nv) in [
            (MutationKind::ConstantPlusOne, v.wrapping_add(1)),
            (MutationKind::ConstantMinusOne, v.wrapping_sub(1)),
            (MutationKind::ConstantNegated, v.wrapping_neg()),
            (MutationKind::ConstantZero, 0),
        ] {
            let nv = t.wrap(nv);
            if nv == v
                || (off_by_one && !matches!(kind, MutationKind::ConstantPlusOne | MutationKind::ConstantMinusOne))
            {
                continue;
            }
            let node = Expr { kind: ExprKind::Int(nv), ..e.clone() };
            out.push(self.mutant(path, node, kind, e.span, int_text(nv, is_char) + &suffix));
        }
    }

    fn constant_float(&self, e: &Expr, v: f64, path: &[usize], out: &mut Vec<Mutant>) {
        let text = self.text(e.span);
        if text.is_empty() || !text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
            return;
        }
        for (kind, nv) in [
            (MutationKind::ConstantPlusOne, v + 1.0),
            (MutationKind::ConstantMinusOne, v - 1.0),
            (MutationKind::ConstantNegated, -v),
            (MutationKind::ConstantZero, 0.0),
        ] {
            if nv == v {
                continue;
            }
            let node = Expr { kind: ExprKind::Float(nv), ..e.clone() };
            out.push(self.mutant(path, node, kind, e.span, float_text(nv)));
        }
    }

    fn replace_variable(&self, e: &Expr, v: VarId, path: &[usize], out: &mut Vec<Mutant>) {
        let name = &self.program.var(v).name;
        if self.text(e.span) != name {
            return;
        }
        for w in self.scope.candidates(e.span, &e.ty) {
            if w == v {
                continue;
            }
            let node = Expr { kind: ExprKind::Var(w), ..e.clone() };
            out.push(self.mutant(path, node, MutationKind::ReplaceVariable, e.span, self.program.var(w).name.clone()));
        }
    }

    /// `replace-pointer`: a read of a pointer to a struct (`p`, `p->next`, written as such)
    /// becomes each other pointer term of its type in scope: a variable, a field through a
    /// variable, and `NULL` when it is the location's whole value.
    fn replace_pointer(&self, e: &Expr, path: &[usize], out: &mut Vec<Mutant>) {
        let written = match &e.kind {
            ExprKind::Var(v) => self.program.var(*v).name.clone(),
            ExprKind::Member { base, field, arrow } => {
                let ExprKind::Var(v) = base.strip_implicit().kind else { return };
                let Some(name) = self.field_name(&base.ty, *field, *arrow) else { return };
                format!("{}{}{}", self.program.var(v).name, if *arrow { "->" } else { "." }, name)
            }
            _ => return,
        };
        if self.text(e.span) != written {
            return; // a macro, or spelled another way (`(*p).next`): no exact edit
        }
        let mut terms: Vec<(Expr, String)> = Vec::new();
        for w in self.scope.candidates(e.span, &e.ty) {
            let name = self.program.var(w).name.clone();
            terms.push((Expr { kind: ExprKind::Var(w), ..e.clone() }, name));
        }
        for (id, def) in self.program.structs.iter().enumerate() {
            let holder = Type::ptr(Type::Struct(StructId(id as u32)));
            let fields: Vec<(usize, &str)> = def
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| f.ty == e.ty)
                .map(|(i, f)| (i, f.name.as_str()))
                .collect();
            if fields.is_empty() {
                continue;
            }
            // Through a pointer (`q->rear`) and through a struct variable (`l.last`).
            let by_value = Type::Struct(StructId(id as u32));
            for (ty, arrow) in [(&holder, true), (&by_value, false)] {
                for w in self.scope.candidates(e.span, ty) {
                    let base = Expr::new(ExprKind::Var(w), ty.clone(), e.span);
                    for &(field, name) in &fields {
                        let kind = ExprKind::Member { base: Box::new(base.clone()), field, arrow };
                        let text = format!("{}{}{name}", self.program.var(w).name, if arrow { "->" } else { "." });
                        terms.push((Expr { kind, ..e.clone() }, text));
                    }
                }
            }
        }
        if path.is_empty() || self.is_whole_value(path) {
            let zero = Expr::new(ExprKind::Int(0), Type::INT, e.span);
            let null = Expr { kind: ExprKind::Cast { expr: Box::new(zero), implicit: true }, ..e.clone() };
            terms.push((null, "NULL".into()));
        }
        for (node, text) in terms {
            if text != written {
                out.push(self.mutant(path, node, MutationKind::ReplacePointer, e.span, text));
            }
        }
    }

    /// The node at `path` is the location's value up to implicit conversions (the right side
    /// of `x = e` is a location's root; so is `e` under the conversion to `x`'s type).
    fn is_whole_value(&self, path: &[usize]) -> bool {
        let mut at = self.root;
        for &i in path {
            if !matches!(at.kind, ExprKind::Cast { implicit: true, .. }) {
                return false;
            }
            let Some(child) = children(at).into_iter().nth(i) else { return false };
            at = child;
        }
        true
    }

    fn field_name(&self, base: &Type, field: usize, arrow: bool) -> Option<&str> {
        let holder = if arrow { base.pointee()? } else { base };
        match holder {
            Type::Struct(id) => self.program.struct_def(*id).fields.get(field).map(|f| f.name.as_str()),
            _ => None,
        }
    }

    fn negate_condition(&self, cond: &Expr) -> Option<Mutant> {
        let core = cond.strip_implicit();
        if let ExprKind::Binary(op, a, b) = &core.kind
            && let Some(neg) = negated(*op)
        {
            let span = self.operator_span(a, b, op.c_token())?;
            let node = Expr { kind: ExprKind::Binary(neg, a.clone(), b.clone()), ..core.clone() };
            let mut m = self.mutant(&[], node, MutationKind::NegateCondition, span, neg.c_token().into());
            m.description = format!("`{}` → `{}` (negated condition)", self.text(core.span), {
                let mut t = self.text(core.span).to_string();
                let rel = (span.start - core.span.start) as usize..(span.end - core.span.start) as usize;
                t.replace_range(rel, neg.c_token());
                t
            });
            return Some(m);
        }
        let text = self.text(cond.span);
        if text.is_empty() {
            return None;
        }
        let (node, new_text) = match &core.kind {
            ExprKind::Unary(UnOp::Not, inner) => {
                // The statement's parentheses stay: `if (!(a || b))` → `if (a || b)`.
                let inner_text = self.text(inner.span);
                let bare = inner_text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(inner_text);
                let kept = if crate::ir::is_parenthesized(text) && core.span != cond.span {
                    format!("({bare})")
                } else {
                    inner_text.to_string()
                };
                ((**inner).clone(), kept)
            }
            _ => {
                let node = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(cond.clone())), Type::INT, cond.span);
                // An `if`/`while` condition's span includes the statement's parentheses: keep
                // them around the negation.
                let wrapped =
                    if crate::ir::is_parenthesized(text) { format!("(!{text})") } else { format!("!({text})") };
                (node, wrapped)
            }
        };
        if new_text.is_empty() {
            return None;
        }
        let mut m = self.mutant(&[], node, MutationKind::NegateCondition, cond.span, new_text);
        m.description.push_str(" (negated condition)");
        Some(m)
    }

    /// `assignment-for-comparison`: an assignment whose value is tested for truth (the whole
    /// condition, an operand of `&&`, `||` or `!`) compares instead: `if (x = 0)` →
    /// `if (x == 0)`. The comparison converts its operands by the usual arithmetic
    /// conversions, where the assignment converted the right side to the target's type.
    fn assignment_for_comparison(&self, cond: &Expr, out: &mut Vec<Mutant>) {
        let mut tested = Vec::new();
        truth_tested(cond, &mut tested);
        for e in tested {
            let ExprKind::Assign(lhs, rhs) = &e.kind else { continue };
            let Some(span) = self.operator_span(lhs, rhs, "=") else { continue };
            let Some(path) = path_to(self.root, e) else { continue };
            // The right side as written, before the assignment converted it.
            let value = match &rhs.kind {
                ExprKind::Cast { expr, implicit: true } if rhs.ty == lhs.ty => &**expr,
                _ => &**rhs,
            };
            // `==` binds tighter than `=`: a right side that binds looser would regroup
            // (`c = getchar() != EOF && ok` → `(c == getchar()) != EOF && ok`).
            let tight = match &value.strip_implicit().kind {
                ExprKind::Binary(op, ..) => precedence(*op) > precedence(BinOp::Eq),
                ExprKind::Logical(..)
                | ExprKind::Cond(..)
                | ExprKind::Assign(..)
                | ExprKind::CompoundAssign { .. }
                | ExprKind::Comma(..) => false,
                _ => true,
            };
            if !tight {
                continue;
            }
            let (left, right) = if lhs.ty.is_arithmetic() && value.ty.is_arithmetic() {
                let common = crate::ir::types::usual_arithmetic(&lhs.ty, &value.ty);
                let converted = |x: &Expr| {
                    if x.ty == common {
                        x.clone()
                    } else {
                        Expr::new(ExprKind::Cast { expr: Box::new(x.clone()), implicit: true }, common.clone(), x.span)
                    }
                };
                (converted(lhs), converted(value))
            } else {
                ((**lhs).clone(), (**rhs).clone())
            };
            let node = Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(left), Box::new(right)), Type::INT, e.span);
            let mut m = self.mutant(&path, node, MutationKind::AssignmentForComparison, span, "==".into());
            m.description = self.in_context(e.span, span, "==");
            out.push(m);
        }
    }

    /// `assignment-grouping`: a condition `x = f() op b` (or `x = f() op b && c`), with `f()`
    /// a call with effects (a read), becomes `(x = f()) op b` (`… && c`): C's precedence
    /// gave `x` the truth value. The regrouped test keeps the condition's type (a truth value
    /// of 0 or 1 converts to any scalar unchanged).
    fn assignment_grouping(&self, cond: &Expr) -> Option<Mutant> {
        let core = cond.strip_implicit();
        let ExprKind::Assign(lhs, rhs) = &core.kind else { return None };
        let inner = rhs.strip_implicit();
        let (test, rest) = match &inner.kind {
            ExprKind::Binary(op, _, _) if op.is_comparison() => (inner, None),
            ExprKind::Logical(l, a, b) if matches!(a.strip_implicit().kind, ExprKind::Binary(op, ..) if op.is_comparison()) => {
                (a.strip_implicit(), Some((*l, b)))
            }
            _ => return None,
        };
        let ExprKind::Binary(op, a, b) = &test.kind else { return None };
        let read = a.strip_implicit();
        if !matches!(read.kind, ExprKind::Call(..)) || !crate::ir::walk::has_effects(read) {
            return None;
        }
        let (target, call) = (self.text(lhs.span), self.text(read.span));
        if target.is_empty() || call.is_empty() || lhs.span.end > read.span.start {
            return None;
        }
        let conv = |e: Expr, ty: &Type| {
            if &e.ty == ty {
                e
            } else {
                let span = e.span;
                Expr::new(ExprKind::Cast { expr: Box::new(e), implicit: true }, ty.clone(), span)
            }
        };
        let assign =
            Expr::new(ExprKind::Assign(lhs.clone(), Box::new(conv(read.clone(), &lhs.ty))), lhs.ty.clone(), core.span);
        let compared =
            Expr::new(ExprKind::Binary(*op, Box::new(conv(assign, &a.ty)), b.clone()), test.ty.clone(), core.span);
        let grouped = match rest {
            None => compared,
            Some((l, c)) => Expr::new(ExprKind::Logical(l, Box::new(compared), c.clone()), inner.ty.clone(), core.span),
        };
        let path = path_to(cond, core)?;
        let node = conv(grouped, &core.ty);
        let edit_span = Span::new(lhs.span.start as usize, read.span.end as usize);
        let written = self.text(edit_span).to_string();
        let mut m = self.mutant(&path, node, MutationKind::AssignmentGrouping, edit_span, format!("({written})"));
        let whole = Span::new(lhs.span.start as usize, inner.span.end as usize);
        let after = self.src.get(read.span.end as usize..inner.span.end as usize)?;
        m.description = format!("`{}` → `({written}){after}`", self.text(whole));
        Some(m)
    }

    fn delete_assignment(&self, e: &Expr, lhs: &Expr, rhs: &Expr) -> Option<Mutant> {
        let target = self.text(lhs.span);
        if target.is_empty() || self.text(rhs.span).is_empty() {
            return None;
        }
        // `x = e` → `x = x`: the same state change as deleting the assignment.
        let self_read = Expr::new(lhs.kind.clone(), lhs.ty.clone(), rhs.span);
        let node = Expr { kind: ExprKind::Assign(Box::new(lhs.clone()), Box::new(self_read)), ..e.clone() };
        let mut m = self.mutant(&[], node, MutationKind::DeleteAssignment, rhs.span, target.to_string());
        m.description = format!("delete `{}`", self.text(e.span));
        Some(m)
    }

    fn init_off_by_one(&self, e: &Expr, rhs: &Expr) -> Vec<Mutant> {
        let core = rhs.strip_implicit();
        path_to(e, core).map(|path| self.off_by_one_constant_at(core, &path)).unwrap_or_default()
    }

    fn off_by_one_constant(&self, root: &Expr, target: &Expr) -> Vec<Mutant> {
        let core = target.strip_implicit();
        path_to(root, core).map(|path| self.off_by_one_constant_at(core, &path)).unwrap_or_default()
    }

    /// `0` ↔ `1`, written as the program writes truth values: a literal, `false` ↔ `true`, or
    /// one of the program's own named constants for the other value (`FALSE` → `TRUE`, `NAO`
    /// → `SIM`: a flag set to the wrong truth value, whatever the course calls it).
    fn off_by_one_constant_at(&self, core: &Expr, path: &[usize]) -> Vec<Mutant> {
        let ExprKind::Int(v @ (0 | 1)) = core.kind else { return Vec::new() };
        let nv = 1 - v;
        let text = self.text(core.span);
        let names: Vec<String> = match text {
            "0" | "1" => vec![nv.to_string()],
            "false" | "true" => vec![["false", "true"][nv as usize].to_string()],
            _ => {
                let is_truth = |name: &str, value: i64| self.program.macro_int(name) == Some(value);
                if !is_truth(text, v) {
                    return Vec::new();
                }
                let mut others: Vec<String> = Vec::new();
                for (n, _, _) in &self.program.macros {
                    if is_truth(n, nv) && !others.contains(n) {
                        others.push(n.clone());
                    }
                }
                others
            }
        };
        names
            .into_iter()
            .map(|name| {
                let node = Expr { kind: ExprKind::Int(nv), ..core.clone() };
                self.mutant(path, node, MutationKind::InitOffByOne, core.span, name)
            })
            .collect()
    }
}

/// A pointer to a struct: the nodes of linked structures, which `replace-pointer` rewires.
pub(crate) fn struct_pointer(ty: &Type) -> bool {
    matches!(ty, Type::Pointer(to) if matches!(**to, Type::Struct(_)))
}

/// C's binding strength of a binary operator (higher binds tighter).
fn precedence(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Mul | Div | Rem => 10,
        Add | Sub => 9,
        Shl | Shr => 8,
        Lt | Le | Gt | Ge => 7,
        Eq | Ne => 6,
        BitAnd => 5,
        BitXor => 4,
        BitOr => 3,
    }
}

/// A variable, constant, call, element or field: an operand no operator can regroup.
fn atomic(e: &Expr) -> bool {
    matches!(
        e.strip_implicit().kind,
        ExprKind::Var(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Call(..)
            | ExprKind::Index(..)
            | ExprKind::Member { .. }
    )
}

/// An operand's text, parenthesized when it is a compound expression that would bind
/// differently on the other side of the operator.
fn parenthesize(e: &Expr, text: &str) -> String {
    let compound = matches!(
        e.strip_implicit().kind,
        ExprKind::Binary(..)
            | ExprKind::Logical(..)
            | ExprKind::Cond(..)
            | ExprKind::Assign(..)
            | ExprKind::CompoundAssign { .. }
            | ExprKind::Comma(..)
    );
    if compound && !crate::ir::is_parenthesized(text) { format!("({text})") } else { text.to_string() }
}

trait Flip {
    fn flip(self) -> Self;
}

impl IncDec {
    /// `++x` ↔ `x++`, `--x` ↔ `x--`.
    fn other_form(self) -> Self {
        match self {
            IncDec::PreInc => IncDec::PostInc,
            IncDec::PostInc => IncDec::PreInc,
            IncDec::PreDec => IncDec::PostDec,
            IncDec::PostDec => IncDec::PreDec,
        }
    }
}

/// `text` without white space.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect()
}

impl Flip for IncDec {
    /// `x++` ↔ `x--`, `++x` ↔ `--x`.
    fn flip(self) -> Self {
        match self {
            IncDec::PreInc => IncDec::PreDec,
            IncDec::PreDec => IncDec::PreInc,
            IncDec::PostInc => IncDec::PostDec,
            IncDec::PostDec => IncDec::PostInc,
        }
    }
}

/// The child-index path from `root` to the node `target`.
fn path_to(root: &Expr, target: &Expr) -> Option<Path> {
    if root.id == target.id {
        return Some(Vec::new());
    }
    for (i, c) in children(root).into_iter().enumerate() {
        if let Some(mut p) = path_to(c, target) {
            p.insert(0, i);
            return Some(p);
        }
    }
    None
}

/// The subexpressions of `cond` whose value is tested for truth: `cond` itself, the operands
/// of `&&` and `||`, the operand of `!`, through implicit conversions.
fn truth_tested<'e>(cond: &'e Expr, out: &mut Vec<&'e Expr>) {
    let core = cond.strip_implicit();
    out.push(core);
    match &core.kind {
        ExprKind::Logical(_, a, b) => {
            truth_tested(a, out);
            truth_tested(b, out);
        }
        ExprKind::Unary(UnOp::Not, a) => truth_tested(a, out),
        _ => {}
    }
}

/// The characters that end what students read or scan: the end of the input, a line break, a
/// string's NUL, a space; with the text each is written as.
const DELIMITERS: [(i64, &str); 4] = [(-1, "EOF"), (b'\n' as i64, "'\\n'"), (0, "'\\0'"), (b' ' as i64, "' '")];

fn int_text(v: i64, as_char: bool) -> String {
    if as_char && (0x20..0x7f).contains(&v) && v != '\'' as i64 && v != '\\' as i64 {
        format!("'{}'", v as u8 as char)
    } else {
        v.to_string()
    }
}

fn float_text(v: f64) -> String {
    let s = format!("{v}");
    if s.contains(['.', 'e', 'i', 'N']) { s } else { format!("{s}.0") }
}

/// `inner` in place of what `wrapped` holds under its implicit conversions (an array row's
/// decay to a pointer stays around the new row).
fn rewrap(wrapped: &Expr, inner: Expr) -> Expr {
    match &wrapped.kind {
        ExprKind::Cast { expr, implicit: true } => {
            Expr { kind: ExprKind::Cast { expr: Box::new(rewrap(expr, inner)), implicit: true }, ..wrapped.clone() }
        }
        ExprKind::Decay(expr) => Expr { kind: ExprKind::Decay(Box::new(rewrap(expr, inner))), ..wrapped.clone() },
        _ => inner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::print::expr_to_c;
    use crate::ir::walk::walk_stmt;
    use crate::syntax::lower::lower_source;

    /// Every variable of the program is a candidate when its type matches (enough for tests).
    struct AllVars<'a>(&'a Program);

    impl Scope for AllVars<'_> {
        fn candidates(&self, _: Span, ty: &Type) -> Vec<VarId> {
            (0..self.0.vars.len() as u32).map(VarId).filter(|v| &self.0.var(*v).ty == ty).collect()
        }
    }

    /// Locations of `main`: expression statements, conditions, initialisers.
    fn locations(p: &Program) -> Vec<(Expr, Role, bool)> {
        let main = p.func(p.func_by_name("main").unwrap());
        let mut out = Vec::new();
        fn go(s: &Stmt, out: &mut Vec<(Expr, Role, bool)>) {
            match &s.kind {
                StmtKind::Expr(e) => out.push((e.clone(), Role::Value, false)),
                StmtKind::Decl { init: Some(Init::Expr(e)), .. } => out.push((e.clone(), Role::Value, true)),
                StmtKind::If { cond, then, els } => {
                    out.push((cond.clone(), Role::Condition, false));
                    go(then, out);
                    if let Some(e) = els {
                        go(e, out);
                    }
                }
                StmtKind::While { cond, body } => {
                    out.push((cond.clone(), Role::Condition, false));
                    go(body, out);
                }
                StmtKind::For { init, cond, step, body } => {
                    init.iter().for_each(|s| go(s, out));
                    if let Some(c) = cond {
                        out.push((c.clone(), Role::Condition, false));
                    }
                    if let Some(s) = step {
                        out.push((s.clone(), Role::Value, false));
                    }
                    go(body, out);
                }
                StmtKind::Block(b) => b.iter().for_each(|s| go(s, out)),
                StmtKind::Return(Some(e)) => out.push((e.clone(), Role::Value, false)),
                _ => {}
            }
        }
        go(main.body.as_ref().unwrap(), &mut out);
        out
    }

    /// Checks that `m`, a mutant of the location `orig` of `src`, is the expression its edited
    /// text lowers to: the same C, and the same shape and types (an implicit conversion
    /// the mutant lacks changes no C text).
    fn assert_lowers_to_itself(src: &str, orig: &Expr, m: &Mutant) {
        let edited = apply_edits(src, std::slice::from_ref(&m.edit));
        let mut p2 = lower_source(&edited).program;
        // The edited text spells a constant it gained as a character (`'\n'`); the mutant,
        // built in the original program, knows only its value. The expressions are compared,
        // not the spelling of their constants (neither program's).
        p2.char_constants.clear();
        let main = p2.func(p2.func_by_name("main").unwrap());
        // The location starts where the original did (edits are inside it).
        let mut found = None;
        walk_stmt(main.body.as_ref().unwrap(), &mut |e: &Expr| {
            if e.span.start == orig.span.start && found.as_ref().is_none_or(|f: &Expr| e.span.end > f.span.end) {
                found = Some(e.clone());
            }
        });
        let found = found.unwrap_or_else(|| panic!("no expression at the location after {}", m.description));
        let mut p1 = lower_source(src).program;
        p1.char_constants.clear();
        assert_eq!(expr_to_c(&p2, &found), expr_to_c(&p1, &m.expr), "{}", m.description);
        assert_eq!(shape(&found), shape(&m.expr), "{}", m.description);
    }

    /// The mutants of `kind` in `src` at level 1, each as its description, its type and its
    /// expression, each checked against the lowering of its edited text.
    fn mutants_lowered_again(src: &str, kind: MutationKind) -> String {
        let (p, ms) = all_mutants(src, 1);
        let lines: Vec<String> = ms
            .iter()
            .filter(|(_, m)| m.kind == kind)
            .map(|(e, m)| {
                assert_lowers_to_itself(src, e, m);
                format!("{} [{}]: {}", m.description, m.expr.ty, expr_to_c(&p, &m.expr))
            })
            .collect();
        lines.join("\n")
    }

    /// `e`'s shape and types, without ids or spans.
    fn shape(e: &Expr) -> String {
        let kids: Vec<String> = children(e).into_iter().map(shape).collect();
        let head = match &e.kind {
            ExprKind::Var(v) => format!("var{}", v.0),
            ExprKind::Int(v) => format!("{v}"),
            ExprKind::Float(v) => format!("{v:?}"),
            ExprKind::Binary(op, ..) => op.c_token().to_string(),
            ExprKind::Cast { implicit, .. } => format!("cast{}", if *implicit { "~" } else { "" }),
            other => format!("{:?}", std::mem::discriminant(other)),
        };
        format!("{head}:{}({})", e.ty, kids.join(","))
    }

    #[test]
    fn an_integer_quotient_printed_as_a_fraction_divides_in_double() {
        let src = "#include <stdio.h>\nint main(void) {\n    int a = nondet_int(), b = nondet_int();\n    printf(\"%d %.2f %*.1f %d\\n\", a / b, a / b, 3, (a + 1) / b, a / 2);\n    return 0;\n}\n";
        // Only the quotients a floating directive prints (a `*` width takes its own argument).
        expect_test::expect![[r#"
            `a / b` → `(double) a / b` [int]: printf("%d %.2f %*.1f %d\n", a / b, (double)a / b, 3, (a + 1) / b, a / 2)
            `(a + 1) / b` → `(double) (a + 1) / b` [int]: printf("%d %.2f %*.1f %d\n", a / b, a / b, 3, (double)(a + 1) / b, a / 2)"#]]
        .assert_eq(&printed_quotients_lowered_again(src));
    }

    fn printed_quotients_lowered_again(src: &str) -> String {
        let p = lower_source(src).program;
        let mut lines = Vec::new();
        for f in p.funcs.iter().filter_map(|f| f.body.as_ref()) {
            crate::ir::walk::for_each_stmt(f, &mut |s| {
                if let StmtKind::Expr(e) = &s.kind {
                    for m in printed_quotient_mutants(&p, src, e) {
                        assert_lowers_to_itself(src, e, &m);
                        lines.push(format!("{} [{}]: {}", m.description, m.expr.ty, expr_to_c(&p, &m.expr)));
                    }
                }
            });
        }
        lines.join("\n")
    }

    #[test]
    fn an_integer_quotient_made_floating_divides_in_its_type() {
        let src = "int main(void) {\n    int a = nondet_int(), b = nondet_int();\n    float f = (a + b) / 2;\n    double d = 1 / 2 * f;\n    int q = a / b;\n    f = a / 2.0;\n    d = a / b;\n    d = 1 / 3 * d;\n    return q;\n}\n";
        // Not where the quotient stays an integer, nor a division that is already floating.
        expect_test::expect![[r#"
            `(a + b) / 2` → `(float) (a + b) / 2` [float]: (float)(a + b) / 2
            `1 / 2` → `(float) 1 / 2` [double]: (float)1 / 2 * f
            `a / b` → `(double) a / b` [double]: d = (double)a / b
            `1 / 3` → `1.0 / 3` [double]: d = 1.0 / 3 * d"#]]
        .assert_eq(&mutants_lowered_again(src, MutationKind::IntegerDivision));
    }

    #[test]
    fn the_two_indices_of_an_element_of_an_array_of_arrays_swap() {
        let src = "int main(void) {\n    int m[3][3], v[3], i = nondet_int(), j = nondet_int();\n    m[i][j] = v[i];\n    m[i][i] = m[j][i + 1] + m[i][j++];\n    return m[ i ][2];\n}\n";
        // Not one index (`v[i]`), equal indices (`m[i][i]`) or an index with an effect.
        expect_test::expect![[r#"
            `m[i][j]` → `m[j][i]` [int]: m[j][i] = v[i]
            `m[j][i + 1]` → `m[i + 1][j]` [int]: m[i][i] = m[i + 1][j] + m[i][j++]
            `m[ i ][2]` → `m[ 2 ][i]` [int]: m[2][i]"#]]
        .assert_eq(&mutants_lowered_again(src, MutationKind::SwapIndices));
    }

    #[test]
    fn rows_of_a_runtime_length_swap_their_indices_too() {
        let src = "int main(void) {\n    int n = nondet_int(), i = nondet_int(), j = nondet_int();\n    int m[n][n];\n    m[i][j] = 1;\n    return m[j][i];\n}\n";
        expect_test::expect![[r#"
            `m[i][j]` → `m[j][i]` [int]: m[j][i] = 1
            `m[j][i]` → `m[i][j]` [int]: m[i][j]"#]]
        .assert_eq(&mutants_lowered_again(src, MutationKind::SwapIndices));
    }

    #[test]
    fn an_assignment_tested_for_truth_compares_instead() {
        let src = "int main(void) {\n    int x = nondet_int();\n    char c = nondet_int();\n    double d = nondet_int();\n    int *p = 0;\n    if (x = 0) x++;\n    if (c = 300) x++;\n    while (!(d = 1.5) || (p = &x)) x++;\n    if ((x = 2) > 1) x++;\n    return x;\n}\n";
        // Not an assignment whose value is compared (`(x = 2) > 1`).
        expect_test::expect![[r#"
            `(x = 0)` → `(x == 0)` [int]: x == 0
            `(c = 300)` → `(c == 300)` [int]: c == 300
            `(d = 1.5)` → `(d == 1.5)` [int]: !(d == 1.5) || (p = &x)
            `(p = &x)` → `(p == &x)` [int]: !(d = 1.5) || p == &x"#]]
        .assert_eq(&mutants_lowered_again(src, MutationKind::AssignmentForComparison));
    }

    fn all_mutants(src: &str, level: u8) -> (Program, Vec<(Expr, Mutant)>) {
        let p = lower_source(src).program;
        let mut out = Vec::new();
        for (e, role, is_init) in locations(&p) {
            let ms = if is_init {
                init_mutants(&p, src, &e, level, &AllVars(&p))
            } else {
                mutants(&p, src, &e, role, level, &AllVars(&p))
            };
            out.extend(ms.into_iter().map(|m| (e.clone(), m)));
        }
        (p, out)
    }

    const SUM: &str = "int main(void) {\n    int n = nondet_int();\n    int sum = 0, i;\n    for (i = 0; i < n; i++)\n        sum += i;\n    if (sum >= n * (n + 1) / 2 && n > 0)\n        sum = sum - 1;\n    return sum;\n}\n";

    #[test]
    fn an_increment_whose_value_is_used_takes_the_other_form() {
        let src = "int main(void) {\n    int j = nondet_int(), s = 0;\n    int a[4];\n    while (--j)\n        s++;\n    a[j++] = s;\n    j++;\n    return s;\n}\n";
        let (_, ms) = all_mutants(src, 1);
        let forms: Vec<&str> = ms
            .iter()
            .filter(|(_, m)| m.kind == MutationKind::IncrementForm)
            .map(|(_, m)| m.description.as_str())
            .collect();
        // `s++;` and `j++;` throw their value away: both forms are the same statement.
        assert_eq!(forms, ["`--j` → `j--`", "`j++` → `++j`"]);
    }

    #[test]
    fn a_compound_assignment_takes_its_operators_group() {
        let src = "int main(void) {\n    int s = nondet_int();\n    double d = 2.0;\n    s /= 64;\n    s += 3;\n    d *= 2.0;\n    return s + (int)d;\n}\n";
        let (_, ms) = all_mutants(src, 1);
        let lines: Vec<String> = ms
            .iter()
            .filter(|(e, _)| matches!(e.kind, ExprKind::CompoundAssign { .. }))
            .map(|(_, m)| format!("{} [{}] at {}", m.description, m.kind.name(), &src[m.edit.span.range()]))
            .collect();
        // `%=` only on integers; each edit is the operator's two characters.
        expect_test::expect![[r#"
            `s /= 64` → `s *= 64` [arithmetic-operator] at /=
            `s /= 64` → `s %= 64` [arithmetic-operator] at /=
            `s += 3` → `s -= 3` [arithmetic-operator] at +=
            `d *= 2.0` → `d /= 2.0` [arithmetic-operator] at *="#]]
        .assert_eq(&lines.join("\n"));
    }

    #[test]
    fn a_truth_value_becomes_the_other_as_the_program_writes_it() {
        let src = "#include <stdbool.h>\n#define TRUE 1\n#define FALSE 0\n#define SIM 1\n#define MAX 1\nint main(void) {\n    int found = FALSE;\n    bool done = false;\n    int n = MAX;\n    if (nondet_int() > 0) { found = TRUE; done = true; }\n    return found + done + n;\n}\n";
        let (_, ms) = all_mutants(src, 1);
        let lines: Vec<String> = ms
            .iter()
            .filter(|(_, m)| m.kind == MutationKind::InitOffByOne)
            .map(|(_, m)| format!("{} at {}", m.description, &src[m.edit.span.range()]))
            .collect();
        // A name gets each of the other value's names. Nothing tells a truth value from a
        // size of 1 (`MAX`): such a candidate costs a run and is refuted like any other.
        expect_test::expect![[r#"
            `FALSE` → `TRUE` at FALSE
            `FALSE` → `SIM` at FALSE
            `FALSE` → `MAX` at FALSE
            `false` → `true` at false
            `MAX` → `FALSE` at MAX
            `TRUE` → `FALSE` at TRUE
            `true` → `false` at true"#]]
        .assert_eq(&lines.join("\n"));
    }

    #[test]
    fn level_one_catalogue() {
        let (_, ms) = all_mutants(SUM, 1);
        let lines: Vec<String> = ms.iter().map(|(_, m)| format!("{} [{}]", m.description, m.kind.name())).collect();
        expect_test::expect![[r#"
            `0` → `1` [init-off-by-one]
            delete `i = 0` [delete-assignment]
            `0` → `1` [init-off-by-one]
            `i < n` → `i >= n` (negated condition) [negate-condition]
            `i < n` → `i <= n` [relational-operator]
            `i++` → `i--` [arithmetic-operator]
            `sum += i` → `sum -= i` [arithmetic-operator]
            `(sum >= n * (n + 1) / 2 && n > 0)` → `(!(sum >= n * (n + 1) / 2 && n > 0))` (negated condition) [negate-condition]
            `(sum >= n * (n + 1) / 2 && n > 0)` → `(sum >= n * (n + 1) / 2 || n > 0)` [logical-operator]
            `sum >= n * (n + 1) / 2 && n > 0` → `sum >= n * (n + 1) / 2` [logical-operator]
            `sum >= n * (n + 1) / 2 && n > 0` → `n > 0` [logical-operator]
            `sum >= n * (n + 1) / 2` → `sum > n * (n + 1) / 2` [relational-operator]
            `n * (n + 1) / 2` → `n * (n + 1) * 2` [arithmetic-operator]
            `n * (n + 1) / 2` → `n * (n + 1) % 2` [arithmetic-operator]
            `n * (n + 1) / 2` → `2 / (n * (n + 1))` [swap-operands]
            `n * (n + 1)` → `n / (n + 1)` [arithmetic-operator]
            `n * (n + 1)` → `n % (n + 1)` [arithmetic-operator]
            `(n + 1)` → `(n - 1)` [arithmetic-operator]
            `(n + 1)` → `(n + 2)` [constant-plus-one]
            `(n + 1)` → `(n)` [constant-minus-one]
            `n > 0` → `n >= 0` [relational-operator]
            delete `sum = sum - 1` [delete-assignment]
            `sum - 1` → `sum + 1` [arithmetic-operator]
            `sum - 1` → `1 - sum` [swap-operands]
            `sum - 1` → `sum - 2` [constant-plus-one]
            `sum - 1` → `sum` [constant-minus-one]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    /// Applying a mutant's text edit and lowering the result gives the mutant's expression:
    /// the edit and the IR change agree, at both levels.
    const BITS: &str = "int main(void) {\n    unsigned x = nondet_uint(), y = 3u;\n    char c = 'a';\n    double d = 2.5;\n    int k = (x & y | x ^ 1) << 2 >> 1;\n    if (c == 'b' || (d > 1.5 ? x : y) != 0)\n        k = k % 3 - -1;\n    return k + (int)(d * 2.0);\n}\n";

    /// Characters read up to a delimiter, tested through an assignment, an array element and
    /// a plain variable, inside `&&`, `||` and `?:`.
    const CHARS: &str = "#include <stdio.h>\nint main(void) {\n    char s[8];\n    int c, i = 0;\n    while ((c = getchar()) != '\\n')\n        s[i++] = c;\n    s[i] = '\\0';\n    if (s[0] == ' ' || i > 2)\n        i = s[1] != EOF ? 1 : 2;\n    while ((c = getchar() != EOF && c != '\\n'))\n        i++;\n    return i;\n}\n";

    #[test]
    fn delimiters_of_character_tests() {
        let (_, ms) = all_mutants(CHARS, 1);
        let lines: Vec<String> = ms
            .iter()
            .filter(|(_, m)| {
                matches!(
                    m.kind,
                    MutationKind::Delimiter | MutationKind::AlsoDelimiter | MutationKind::AssignmentGrouping
                )
            })
            .map(|(_, m)| format!("{} [{}]", m.description, m.kind.name()))
            .collect();
        expect_test::expect![[r#"
            `((c = getchar()) != '\n')` → `((c = getchar()) != EOF)` [delimiter]
            `((c = getchar()) != '\n')` → `((c = getchar()) != '\0')` [delimiter]
            `((c = getchar()) != '\n')` → `((c = getchar()) != ' ')` [delimiter]
            `(c = getchar()) != '\n'` → `(c = getchar()) != '\n' && c != EOF` [also-delimiter]
            `(c = getchar()) != '\n'` → `(c = getchar()) != '\n' && c != '\0'` [also-delimiter]
            `(c = getchar()) != '\n'` → `(c = getchar()) != '\n' && c != ' '` [also-delimiter]
            `s[0] == ' '` → `s[0] == EOF` [delimiter]
            `s[0] == ' '` → `s[0] == '\n'` [delimiter]
            `s[0] == ' '` → `s[0] == '\0'` [delimiter]
            `s[0] == ' '` → `(s[0] == ' ' || s[0] == EOF)` [also-delimiter]
            `s[0] == ' '` → `(s[0] == ' ' || s[0] == '\n')` [also-delimiter]
            `s[0] == ' '` → `(s[0] == ' ' || s[0] == '\0')` [also-delimiter]
            `s[1] != EOF` → `s[1] != '\n'` [delimiter]
            `s[1] != EOF` → `s[1] != '\0'` [delimiter]
            `s[1] != EOF` → `s[1] != ' '` [delimiter]
            `s[1] != EOF` → `(s[1] != EOF && s[1] != '\n')` [also-delimiter]
            `s[1] != EOF` → `(s[1] != EOF && s[1] != '\0')` [also-delimiter]
            `s[1] != EOF` → `(s[1] != EOF && s[1] != ' ')` [also-delimiter]
            `c = getchar() != EOF && c != '\n'` → `(c = getchar()) != EOF && c != '\n'` [assignment-grouping]
            `getchar() != EOF` → `getchar() != '\n'` [delimiter]
            `getchar() != EOF` → `getchar() != '\0'` [delimiter]
            `getchar() != EOF` → `getchar() != ' '` [delimiter]
            `c != '\n'` → `c != EOF` [delimiter]
            `c != '\n'` → `c != '\0'` [delimiter]
            `c != '\n'` → `c != ' '` [delimiter]
            `c != '\n'` → `c != '\n' && c != '\0'` [also-delimiter]
            `c != '\n'` → `c != '\n' && c != ' '` [also-delimiter]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    /// `&` and `|` where a beginner means `%`, `&&` or `||`.
    const LOOKALIKES: &str = "int main(void) {\n    int n = nondet_int(), m = nondet_int(), d;\n    d = n & 10;\n    if (n > 0 | m > 0)\n        d = d + (n & m) * 2;\n    return d;\n}\n";

    #[test]
    fn a_condition_drops_operands_of_its_chain() {
        let src = "int main(int a, char **v) {\n    int b = a - 1, c = a - 2, d = a - 3;\n    int x = a && b;\n    if (a > 0 && b > 0 && (c > 0 || d > 0))\n        x = 1;\n    while (!(a || b))\n        a++;\n    return x;\n}\n";
        let (_, ms) = all_mutants(src, 1);
        let dropped: Vec<String> = ms
            .iter()
            .filter(|(_, m)| {
                m.kind == MutationKind::LogicalOperator && !["&&", "||"].contains(&m.edit.new_text.as_str())
            })
            .map(|(_, m)| {
                let fixed = apply_edits(src, std::slice::from_ref(&m.edit));
                let changed = fixed.lines().find(|l| !src.lines().any(|o| o == *l)).unwrap_or("");
                format!("{} | {}", m.description, changed.trim())
            })
            .collect();
        // Not `x = a && b` (its value is used), not the inner `&&` of the chain; the `||` in
        // parentheses keeps them in the chain without one operand.
        expect_test::expect![[r#"
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `a > 0` | if (a > 0)
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `b > 0` | if (b > 0)
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `c > 0 || d > 0` | if (c > 0 || d > 0)
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `b > 0 && (c > 0 || d > 0)` | if (b > 0 && (c > 0 || d > 0))
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `a > 0 && (c > 0 || d > 0)` | if (a > 0 && (c > 0 || d > 0))
            `a > 0 && b > 0 && (c > 0 || d > 0)` → `a > 0 && b > 0` | if (a > 0 && b > 0)
            `c > 0 || d > 0` → `c > 0` | if (a > 0 && b > 0 && (c > 0))
            `c > 0 || d > 0` → `d > 0` | if (a > 0 && b > 0 && (d > 0))
            `a || b` → `a` | while (!(a))
            `a || b` → `b` | while (!(b))"#]]
        .assert_eq(&dropped.join("\n"));
    }

    #[test]
    fn bitwise_operators_get_their_lookalikes() {
        let (_, ms) = all_mutants(LOOKALIKES, 1);
        let lines: Vec<String> = ms
            .iter()
            .filter(|(e, m)| {
                matches!(e.kind, ExprKind::Binary(BinOp::BitAnd | BinOp::BitOr, ..))
                    || m.description.contains('%')
                    || m.kind == MutationKind::LogicalOperator
            })
            .map(|(_, m)| format!("{} [{}]", m.description, m.kind.name()))
            .collect();
        // `n & m` inside `* 2` is no whole condition: no `&&` there, and `%` in place.
        expect_test::expect![[r#"
            `n & 10` → `n % 10` [arithmetic-operator]
            `(n > 0 | m > 0)` → `(!(n > 0 | m > 0))` (negated condition) [negate-condition]
            `(n > 0 | m > 0)` → `(n > 0 || m > 0)` [logical-operator]
            `n > 0 | m > 0` → `((n > 0) & (m > 0))` [bitwise-operator]
            `n > 0 | m > 0` → `((n > 0) ^ (m > 0))` [bitwise-operator]
            `n > 0` → `n >= 0` [relational-operator]
            `m > 0` → `m >= 0` [relational-operator]
            `(n & m) * 2` → `(n & m) % 2` [arithmetic-operator]
            `(n & m)` → `(n % m)` [arithmetic-operator]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn edits_agree_with_mutated_expressions() {
        for (level, src) in [(1, SUM), (2, SUM), (1, BITS), (2, BITS), (1, CHARS), (1, LOOKALIKES)] {
            let (_, ms) = all_mutants(src, level);
            assert!(ms.len() > 10);
            for (orig, m) in &ms {
                assert_lowers_to_itself(src, orig, m);
            }
        }
    }

    #[test]
    fn level_two_adds_constants_and_variables() {
        let (_, ms) = all_mutants(SUM, 2);
        let kinds: std::collections::BTreeSet<&str> = ms.iter().map(|(_, m)| m.kind.name()).collect();
        for k in ["constant-plus-one", "constant-minus-one", "constant-negated", "constant-zero", "replace-variable"] {
            assert!(kinds.contains(k), "{k} missing from {kinds:?}");
        }
        assert!(ms.iter().any(|(_, m)| m.description == "`i < n` → `i > n`"), "level 2 has the full relational group");
    }

    #[test]
    fn variable_replacements_alone_at_any_level() {
        let p = lower_source(SUM).program;
        let (cond, _, _) = locations(&p).into_iter().find(|(_, r, _)| *r == Role::Condition).unwrap();
        let ms = variable_replacements(&p, SUM, &cond, &AllVars(&p));
        let lines: Vec<String> = ms.iter().map(|m| format!("{} [{}]", m.description, m.kind.name())).collect();
        expect_test::expect![[r#"
            `i` → `n` [replace-variable]
            `i` → `sum` [replace-variable]
            `n` → `sum` [replace-variable]
            `n` → `i` [replace-variable]
        "#]]
        .assert_eq(&(lines.join("\n") + "\n"));
    }
}
