//! What a course's compiler flags reject beyond plain C (see `syntax::flags`): C90's rules
//! under `-ansi` (`c90.rs`, on the syntax tree) and gcc's `-Wall`/`-Wextra` warnings that
//! students meet (`wall.rs`, on the typed IR). Under `-Werror` each is an error, as the
//! course's compiler says; each comes with the fix a student would make where one is sure.
//!
//! With no flags none of these is reported: a C11 compiler accepts them all.

mod c90;
mod nested;
mod wall;

use tree_sitter::Tree;

use super::flags::CompilerFlags;
use crate::ir::{Diagnostic, Guarantee, Program, Repair, Severity, Span, TextEdit};

/// The rules, each a gcc diagnostic (named in the comment) under the flags that enable it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// "'for' loop initial declarations are only allowed in C99 or C11 mode" (an error in C90).
    LoopDeclaration,
    /// "ISO C90 forbids mixed declarations and code" (`-pedantic`).
    MixedDeclaration,
    /// `//` is not a comment in C90 (`-ansi`: a syntax error; `-std=gnu89 -pedantic`: a warning).
    LineComment,
    /// "ISO C90 forbids variable length array" (`-pedantic`).
    VariableLengthArray,
    /// `-Wunused-variable` (`-Wall`).
    UnusedVariable,
    /// `-Wunused-but-set-variable` (`-Wall`).
    SetButUnused,
    /// `-Wunused-parameter` (`-Wall -Wextra`).
    UnusedParameter,
    /// "control reaches end of non-void function" (`-Wall`; `main` too in C90).
    MissingReturn,
    /// "'x' is used uninitialized" (`-Wall`).
    Uninitialized,
    /// "statement with no effect" (`-Wall`).
    NoEffect,
    /// "comparisons like 'X<=Y<=Z' do not have their mathematical meaning" (`-Wall`).
    ChainedComparison,
    /// "suggest parentheses around assignment used as truth value" (`-Wall`).
    AssignmentAsCondition,
    /// "this 'if' clause does not guard..." (`-Wall`).
    MisleadingIndentation,
    /// "ISO C forbids an empty translation unit" (`-pedantic`).
    EmptyFile,
    /// "ISO C forbids nested functions" (`-pedantic`).
    NestedFunction,
    /// "comma at end of enumerator list" (`-pedantic` in C90).
    EnumTrailingComma,
    /// "stray '\303' in program": a letter outside ASCII in a name (an error in C90).
    NonAsciiName,
    /// "ISO C90 does not support the '%lf' gnu_printf format" (`-Wall -pedantic` in C90).
    FormatC90,
    /// "return type of 'main' is not 'int'" (`-Wall` or `-pedantic`).
    MainSignature,
    /// "comparison of integer expressions of different signedness" (`-Wextra`).
    SignCompare,
    /// "implicit declaration of function" (C99 and later: by default; C90: `-Wall`); when the
    /// definition does not return `int`, "conflicting types" (an error).
    UsedBeforeDeclared,
    /// The same, where the later definition does not return `int`.
    ConflictingImplicit,
    /// "implicit declaration of function 'roundf'" for a library function C90 does not have
    /// (`-ansi` hides the C99 and POSIX ones in the headers; C90: `-Wall`).
    NotInC90,
    /// "suggest braces around empty body in an 'if' statement" (`-Wextra`).
    EmptyBody,
    /// "this statement may fall through" (`-Wextra`).
    FallThrough,
    /// "suggest parentheses around '&&' within '||'" (`-Wall`).
    AndWithinOr,
    /// "suggest explicit braces to avoid ambiguous 'else'" (`-Wall`).
    DanglingElse,
    /// "suggest parentheses around comparison in operand of '&'" (`-Wall`).
    ComparisonInBitwise,
    /// "left-hand operand of comma expression has no effect" (`-Wall`).
    CommaOperand,
}

/// Whether the fix of the rule with diagnostic code `code` leaves what the program does
/// unchanged, so that it can join a proved repair without weakening its guarantee:
/// - deleting a variable nothing reads, with its assignments whose values have no effect
///   (an assignment that could trap, `s = a / b`, only traps where the proved text did not
///   run to the end, and the proof covered that text);
/// - braces around an inner `if` that owns the `else`, parentheses around `&&` in `||`;
/// - a declaration moved to the start of its block, `%lf` printed as `%f`.
///
/// Not the fixes that change a condition (`;` after `if`, `=` in a condition, `&` for `&&`) or
/// add a `return`.
pub fn keeps_behaviour(code: &str) -> bool {
    [
        Rule::UnusedVariable,
        Rule::SetButUnused,
        Rule::DanglingElse,
        Rule::AndWithinOr,
        Rule::MixedDeclaration,
        Rule::LoopDeclaration,
        Rule::FormatC90,
    ]
    .iter()
    .any(|r| r.code() == code)
}

/// Whether the rule with diagnostic code `code` is about a variable nothing reads (its
/// diagnostic is on the variable's name, its fix deletes it).
pub fn deletes_variable(code: &str) -> bool {
    [Rule::UnusedVariable, Rule::SetButUnused].iter().any(|r| r.code() == code)
}

/// How gcc treats a rule under some flags.
pub(super) enum Kind {
    /// Rejected whatever the warning flags.
    Error,
    /// A warning of ISO conformance (`-pedantic`; an error with `-pedantic-errors`).
    Pedantic,
    /// A plain warning.
    Warning,
}

impl Rule {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Rule::LoopDeclaration => "c90-for-declaration",
            Rule::MixedDeclaration => "c90-declaration-after-statement",
            Rule::LineComment => "c90-comment",
            Rule::VariableLengthArray => "c90-variable-length-array",
            Rule::UnusedVariable => "unused-variable",
            Rule::SetButUnused => "unused-but-set-variable",
            Rule::UnusedParameter => "unused-parameter",
            Rule::MissingReturn => "missing-return",
            Rule::Uninitialized => "uninitialized",
            Rule::NoEffect => "no-effect",
            Rule::ChainedComparison => "chained-comparison",
            Rule::AssignmentAsCondition => "assignment-in-condition",
            Rule::MisleadingIndentation => "misleading-indentation",
            Rule::EmptyFile => "empty-file",
            Rule::NestedFunction => "nested-function",
            Rule::EnumTrailingComma => "c90-enum-comma",
            Rule::NonAsciiName => "c90-name",
            Rule::FormatC90 => "c90-format",
            Rule::MainSignature => "main-signature",
            Rule::SignCompare => "sign-compare",
            Rule::UsedBeforeDeclared | Rule::ConflictingImplicit | Rule::NotInC90 => "implicit-declaration",
            Rule::EmptyBody => "empty-body",
            Rule::FallThrough => "fall-through",
            Rule::AndWithinOr => "and-within-or",
            Rule::DanglingElse => "dangling-else",
            Rule::ComparisonInBitwise => "comparison-in-bitwise",
            Rule::CommaOperand => "comma-no-effect",
        }
    }

    /// Whether gcc reports the rule under `flags`, and how.
    pub(super) fn kind(self, flags: &CompilerFlags) -> Option<Kind> {
        let c90 = flags.is_c90();
        match self {
            Rule::LoopDeclaration => c90.then_some(Kind::Error),
            Rule::LineComment if c90 && !flags.gnu => Some(Kind::Error),
            Rule::LineComment | Rule::MixedDeclaration | Rule::VariableLengthArray => {
                (c90 && flags.pedantic).then_some(Kind::Pedantic)
            }
            Rule::UnusedParameter => (flags.wall && flags.wextra).then_some(Kind::Warning),
            Rule::SignCompare | Rule::EmptyBody | Rule::FallThrough => flags.wextra.then_some(Kind::Warning),
            Rule::ConflictingImplicit => Some(Kind::Error),
            Rule::UsedBeforeDeclared => (!c90 || flags.wall).then_some(Kind::Warning),
            Rule::NotInC90 => (c90 && flags.wall).then_some(Kind::Warning),
            Rule::EmptyFile | Rule::NestedFunction => flags.pedantic.then_some(Kind::Pedantic),
            Rule::EnumTrailingComma => (c90 && flags.pedantic).then_some(Kind::Pedantic),
            Rule::NonAsciiName => c90.then_some(Kind::Error),
            Rule::FormatC90 => (c90 && flags.pedantic && flags.wall).then_some(Kind::Warning),
            Rule::MainSignature => (flags.wall || flags.pedantic).then_some(Kind::Warning),
            Rule::UnusedVariable
            | Rule::SetButUnused
            | Rule::MissingReturn
            | Rule::Uninitialized
            | Rule::NoEffect
            | Rule::ChainedComparison
            | Rule::AssignmentAsCondition
            | Rule::MisleadingIndentation
            | Rule::AndWithinOr
            | Rule::DanglingElse
            | Rule::ComparisonInBitwise
            | Rule::CommaOperand => flags.wall.then_some(Kind::Warning),
        }
    }

    fn severity(self, flags: &CompilerFlags) -> Option<Severity> {
        Some(match self.kind(flags)? {
            Kind::Error => Severity::Error,
            Kind::Pedantic if flags.werror || flags.pedantic_errors => Severity::Error,
            Kind::Warning if flags.werror => Severity::Error,
            Kind::Pedantic | Kind::Warning => Severity::Warning,
        })
    }
}

/// One finding of a rule, with its fix (a title and the edits) when one is sure.
pub(crate) struct Found {
    rule: Rule,
    span: Span,
    message: String,
    related: Vec<(Span, String)>,
    fix: Option<(String, Vec<TextEdit>)>,
}

impl Found {
    fn new(rule: Rule, span: Span, message: impl Into<String>) -> Found {
        Found { rule, span, message: message.into(), related: Vec::new(), fix: None }
    }

    fn rule(mut self, rule: Rule) -> Found {
        self.rule = rule;
        self
    }

    fn related(mut self, span: Span, message: impl Into<String>) -> Found {
        self.related.push((span, message.into()));
        self
    }
}

/// What the rules know of the course: its compiler flags, and what its reference shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Course {
    pub flags: CompilerFlags,
    pub hints: Hints,
}

/// Facts from the course's reference that make a fix concrete.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// The largest array length the reference declares: what a variable-length array gets.
    pub array_length: Option<ArrayLength>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLength {
    pub length: u64,
    /// The macro the reference writes it with (`VECMAX`), if it does.
    pub macro_name: Option<String>,
}

impl Hints {
    /// The hints `reference` (its text, parsed and lowered) gives.
    pub fn from_reference(tree: &Tree, src: &str, program: &Program) -> Hints {
        let largest = program
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                crate::ir::Type::Array(_, Some(n)) => Some((n, v.span)),
                _ => None,
            })
            .max_by_key(|(n, _)| *n);
        let array_length = largest.map(|(length, name)| {
            // `int v[VECMAX]`: the size as the reference writes it.
            let size = tree
                .root_node()
                .descendant_for_byte_range(name.start as usize, name.end as usize)
                .and_then(|n| n.parent())
                .filter(|p| p.kind() == "array_declarator")
                .and_then(|p| p.child_by_field_name("size"))
                .filter(|s| s.kind() == "identifier")
                .map(|s| src[s.byte_range()].to_string());
            ArrayLength { length, macro_name: size }
        });
        Hints { array_length }
    }
}

/// The diagnostics and fixes of every rule the course's flags enable, on a file that parsed
/// with no error (`program` lowered from `tree`).
pub fn check(tree: &Tree, src: &str, program: &Program, course: &Course) -> (Vec<Diagnostic>, Vec<Repair>) {
    let flags = &course.flags;
    let mut found = Vec::new();
    if Rule::EmptyFile.kind(flags).is_some() {
        empty_file(tree, src, &mut found);
    }
    if Rule::NestedFunction.kind(flags).is_some() {
        nested::check(tree.root_node(), src, &mut found);
    }
    if flags.is_c90() {
        c90::check(tree.root_node(), src, &mut found);
    }
    wall::check(tree, src, program, course, &mut found);
    let mut diagnostics = Vec::new();
    let mut repairs: Vec<Repair> = Vec::new();
    for f in found {
        let Some(severity) = f.rule.severity(flags) else { continue };
        let mut diagnostic = Diagnostic::new(severity, f.rule.code(), f.span, f.message);
        for (span, message) in f.related {
            diagnostic = diagnostic.with_related(span, message);
        }
        diagnostics.push(diagnostic);
        let Some((title, edits)) = f.fix else { continue };
        // One fix serving several findings (the loops that declare the same `i`) is one repair.
        if let Some(same) = repairs.iter_mut().find(|r| r.edits == edits) {
            same.fixes.push(f.span);
            continue;
        }
        repairs.push(Repair {
            reached: Vec::new(),
            explanation: format!("{title}: what the course's compiler ({flags}) asks for."),
            title,
            engine: "frontend",
            guarantee: Guarantee::WellTyped,
            edits,
            places: Vec::new(),
            details: String::new(),
            fixes: vec![f.span],
        });
    }
    (diagnostics, repairs)
}

/// A file with no declaration at all (only comments and macros): ISO C wants one.
fn empty_file(tree: &Tree, src: &str, out: &mut Vec<Found>) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let empty = root
        .named_children(&mut cursor)
        .all(|n| matches!(n.kind(), "comment" | "preproc_def" | "preproc_function_def" | "preproc_call"));
    if empty {
        let end = src.find('\n').unwrap_or(src.len());
        out.push(Found::new(
            Rule::EmptyFile,
            Span::new(0, end),
            "the file has no code: a C program needs at least a `main` function",
        ));
    }
}

/// The spaces and tabs that start the line holding `offset`.
fn line_indent(src: &str, offset: usize) -> &str {
    let start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let rest = &src[start..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// `span` with its whole line(s) when nothing else is on them (the newline included), so
/// deleting it leaves no blank line.
fn own_line_span(src: &str, span: Span) -> Span {
    let (start, end) = (span.start as usize, span.end as usize);
    let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[end..].find('\n').map_or(src.len(), |i| end + i);
    if src[line_start..start].trim().is_empty() && src[end..line_end].trim().is_empty() {
        Span::new(line_start, (line_end + 1).min(src.len()))
    } else {
        span
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::apply_edits;

    const COURSE: &str = "-Wall -Wextra -Werror -ansi -pedantic";

    fn run(src: &str, flags: &str, hints: Hints) -> (Vec<Diagnostic>, Vec<Repair>) {
        let tree = crate::syntax::parse(src, None);
        let program = crate::syntax::lower::lower(&tree, src).program;
        check(&tree, src, &program, &Course { flags: CompilerFlags::parse(flags).unwrap(), hints })
    }

    fn codes(src: &str, flags: &str) -> Vec<&'static str> {
        run(src, flags, Hints::default()).0.iter().map(|d| d.code).collect()
    }

    /// Applies the fix of the first diagnostic with `code` and returns the new text.
    fn fixed(src: &str, code: &str, hints: Hints) -> String {
        let (diags, repairs) = run(src, COURSE, hints);
        let d = diags.iter().find(|d| d.code == code).unwrap_or_else(|| panic!("no {code} in {diags:?}"));
        let r = repairs.iter().find(|r| r.fixes.contains(&d.span)).unwrap_or_else(|| panic!("no fix for {code}"));
        apply_edits(src, &r.edits)
    }

    /// `-ansi` hides C99's and POSIX's library functions: gcc warns of an implicit
    /// declaration under `-Wall`, once per function; C99 and no `-Wall` say nothing.
    #[test]
    fn a_library_function_c90_lacks_is_an_implicit_declaration() {
        let src = "#include <stdio.h>\n#include <ctype.h>\n#include <math.h>\nint main(void) {\n    double x = 2.5;\n    printf(\"%d %f %f %f\\n\", isblank(32), round(x), sqrtf(1.0f) + sqrtf(4.0f), sqrt(x));\n    return 0;\n}\n";
        let (diags, _) = run(src, COURSE, Hints::default());
        let named: Vec<&str> = diags
            .iter()
            .filter(|d| d.code == "implicit-declaration")
            .map(|d| &src[d.span.start as usize..d.span.end as usize])
            .collect();
        assert_eq!(named, vec!["isblank", "round", "sqrtf"]);
        assert!(codes(src, "-std=c99 -Wall").is_empty());
        assert!(codes(src, "-ansi").is_empty());
    }

    #[test]
    fn nothing_without_flags_and_c99_accepts_c99() {
        let src = "#include <stdio.h>\nint main(void) {\n    int n = 3;\n    printf(\"%d\\n\", n);\n    for (int i = 0; i < n; i++) printf(\"x\"); // c99\n    int unused;\n}\n";
        assert!(codes(src, "").is_empty());
        assert_eq!(codes(src, "-std=c99 -pedantic"), Vec::<&str>::new());
        assert_eq!(codes(src, "-std=c99 -Wall"), vec!["unused-variable"]);
        let c90 = codes(src, COURSE);
        for code in [
            "c90-for-declaration",
            "c90-comment",
            "c90-declaration-after-statement",
            "unused-variable",
            "missing-return",
        ] {
            assert!(c90.contains(&code), "{code} missing from {c90:?}");
        }
        // Without -Werror the warnings stay warnings; the C90 loop declaration is an error.
        let (diags, _) = run(src, "-Wall -ansi -pedantic", Hints::default());
        assert!(
            diags.iter().all(
                |d| (d.severity == Severity::Error) == (d.code == "c90-for-declaration" || d.code == "c90-comment")
            )
        );
    }

    #[test]
    fn loops_declaring_the_same_variable_share_one_declaration() {
        let src = "int main(void)\n{\n    int s = 0;\n    for (int i = 0; i < 3; i++)\n        s += i;\n    for (int i = 5; i > 0; i--)\n        s -= i;\n    return s;\n}\n";
        let out = fixed(src, "c90-for-declaration", Hints::default());
        assert_eq!(
            out,
            "int main(void)\n{\n    int s = 0;\n    int i;\n    for (i = 0; i < 3; i++)\n        s += i;\n    for (i = 5; i > 0; i--)\n        s -= i;\n    return s;\n}\n"
        );
        assert!(codes(&out, COURSE).is_empty(), "{:?}", codes(&out, COURSE));
    }

    #[test]
    fn a_declaration_is_not_moved_over_a_use_of_another_variable_of_its_name() {
        let src = "int n = 4;\nint main(void)\n{\n    int s;\n    s = n;\n    int n = s + 1;\n    return n;\n}\n";
        let (diags, repairs) = run(src, COURSE, Hints::default());
        let d = diags.iter().find(|d| d.code == "c90-declaration-after-statement").unwrap();
        assert!(!repairs.iter().any(|r| r.fixes.contains(&d.span)), "{repairs:?}");
    }

    #[test]
    fn uninitialised_reads_are_reported_as_gcc_does_at_o0() {
        // gcc 12 -O0 -Wall: a read with no write before it on any path, not in a branch that
        // a constant rules out (`b = 0; if (b > 0)`), nor after a write in a loop (`c += i`).
        let quiet = "int main(void)\n{\n    int a, b, c, i;\n    b = 0;\n    for (i = 0; i < 3; i++)\n        c += i;\n    if (b > 0)\n        b = a;\n    return b + c;\n}\n";
        assert!(codes(quiet, COURSE).is_empty(), "{:?}", codes(quiet, COURSE));
        let src = "int main(void)\n{\n    int a, b, c, i;\n    b = a;\n    for (i = 0; i < 3; i++)\n        c += i;\n    if (b > 0)\n        return 2;\n    return b + c + i;\n}\n";
        let (diags, _) = run(src, COURSE, Hints::default());
        let read: Vec<&str> = diags.iter().filter(|d| d.code == "uninitialized").map(|d| d.message.as_str()).collect();
        assert_eq!(read, vec!["`a` is used before it is given a value"]);
        let out = fixed(src, "uninitialized", Hints::default());
        assert!(out.contains("int a = 0, b, c, i;"), "{out}");
        // A `while` condition is tested once before the loop; a `scanf` in the loop reaches it
        // only for a variable whose address is taken.
        let looped = "#include <stdio.h>\nint main(void)\n{\n    int lm, n, v = 3;\n    while (lm <= v)\n        ++lm;\n    while (n < 1)\n        scanf(\"%d\", &n);\n    return 0;\n}\n";
        let (diags, _) = run(looped, COURSE, Hints::default());
        let read: Vec<&str> = diags.iter().filter(|d| d.code == "uninitialized").map(|d| d.message.as_str()).collect();
        assert_eq!(read, vec!["`lm` is used before it is given a value"]);
        // Elsewhere too, as gcc's "may be used uninitialized": in a branch, in a loop body, and
        // on the right of `&&` except in a loop's first test; a variable whose address is taken
        // (a `scanf` target) not after a call gcc counts as perhaps setting it (`getchar()`;
        // not `printf("%d", b)`).
        let maybe = "#include <stdio.h>\nint f(int k)\n{\n    int a, b = 0, c, d, x;\n    if (k > 0)\n        b = a;\n    while (k--)\n        b += c;\n    while (k-- && d != 3)\n        d = k;\n    printf(\"%d\", b);\n    if (k)\n        b = x;\n    getchar();\n    if (k)\n        b = x;\n    scanf(\"%d\", &x);\n    return b;\n}\n";
        let (diags, _) = run(maybe, COURSE, Hints::default());
        let read: Vec<&str> = diags.iter().filter(|d| d.code == "uninitialized").map(|d| d.message.as_str()).collect();
        assert_eq!(
            read,
            vec![
                "`a` can be used before it is given a value",
                "`c` can be used before it is given a value",
                "`x` can be used before it is given a value"
            ]
        );
    }

    #[test]
    fn a_variable_only_set_is_deleted_with_its_sets_and_increments_are_uses() {
        let src = "int main(void)\n{\n    int n, k = 0;\n    n = 3;\n    k++;\n    n = 4;\n    return 0;\n}\n";
        let (diags, _) = run(src, COURSE, Hints::default());
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["unused-but-set-variable"]);
        let out = fixed(src, "unused-but-set-variable", Hints::default());
        assert_eq!(out, "int main(void)\n{\n    int k = 0;\n    k++;\n    return 0;\n}\n");
    }

    #[test]
    fn a_variable_length_array_gets_the_references_length() {
        let src = "#include <stdio.h>\n#define VECMAX 100\nint main(void)\n{\n    int n, i;\n    scanf(\"%d\", &n);\n    {\n        int v[n];\n        for (i = 0; i < n; i++)\n            v[i] = i;\n        printf(\"%d\\n\", v[0]);\n    }\n    return 0;\n}\n";
        let hints = Hints { array_length: Some(ArrayLength { length: 100, macro_name: Some("VECMAX".into()) }) };
        assert!(fixed(src, "c90-variable-length-array", hints).contains("int v[VECMAX];"));
        let other = Hints { array_length: Some(ArrayLength { length: 80, macro_name: Some("MAX".into()) }) };
        assert!(fixed(src, "c90-variable-length-array", other).contains("int v[80];"));
        let (diags, repairs) = run(src, COURSE, Hints::default());
        assert!(diags.iter().any(|d| d.code == "c90-variable-length-array") && repairs.is_empty());
    }

    #[test]
    fn misleading_indentation_needs_a_body_deeper_than_its_if() {
        let misleading =
            "int main(void)\n{\n    int n = 1;\n    if (n > 0)\n        n = 2;\n        n = 3;\n    return n;\n}\n";
        assert_eq!(codes(misleading, COURSE), vec!["misleading-indentation"]);
        let out = fixed(misleading, "misleading-indentation", Hints::default());
        assert!(out.contains("if (n > 0) {\n        n = 2;\n        n = 3;\n    }\n"), "{out}");
        let flat = "int main(void)\n{\n    int n = 1;\n    if (n > 0)\n    n = 2;\n    n = 3;\n    return n;\n}\n";
        assert!(codes(flat, COURSE).is_empty());
    }
}
