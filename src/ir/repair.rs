//! Repairs as data: text edits of the original source with a title, an explanation and a
//! guarantee. Pure data, so every layer (even the syntax layer's insert-token fixes) can
//! produce them; `patch/` turns engine results into them.

use super::{BinOp, Expr, ExprKind, Span, Type, Var, VarKind};
use serde::Serialize;

/// What a repair is known to achieve. Every suggestion carries exactly one; a level is never
/// upgraded on a solver `unknown` or a timeout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "level", rename_all = "lowercase")]
pub enum Guarantee {
    /// Proved for all inputs.
    Verified,
    /// Proved for all runs within `bound`: at most so many loop iterations / call depth, and
    /// the input pieces it names.
    Bounded {
        #[serde(flatten)]
        bound: Bound,
    },
    /// Proved for all inputs that satisfy `assumption`, an input precondition conjectured
    /// from the tests (e.g. "a > b > c, as in all 18 tests"); nothing is known of others.
    /// With a `bound`, proved only for the runs of those inputs within it.
    #[serde(rename = "verified-assuming")]
    VerifiedAssuming {
        assumption: String,
        #[serde(flatten)]
        bound: Option<Bound>,
    },
    /// Proved equivalent with `float` and `double` read as real numbers (rounding not
    /// checked), and passes every given test (`tests` of them) and inputs varied from them.
    /// Not a proof about the C program: never labelled `verified`.
    #[serde(rename = "reals")]
    OverReals { tests: u32 },
    /// Passes every given test (`tests` of them), nothing more is known.
    Tested { tests: u32 },
    /// Only makes the file parse (a missing token inserted); says nothing of behaviour.
    Syntax,
    /// The replaced expression type-checks in its context; says nothing of behaviour.
    #[serde(rename = "type-checks")]
    WellTyped,
}

/// How far a bounded proof reaches: runs with at most `loops` loop iterations (and calls
/// nested that deep), and, where the model reads or scans text a piece at a time, the pieces
/// it does not cut ([`Cuts`]). A run beyond either is not covered, and the label names both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bound {
    #[serde(rename = "bound")]
    pub loops: u32,
    #[serde(flatten)]
    pub cuts: Cuts,
}

/// The input pieces a bounded model cuts like a loop beyond the bound: strings (a `%s` word,
/// an `fgets` line, a string a library function scans) longer than `chars` characters, numbers
/// typed with more than `digits` digits, more than `spaces` white-space bytes in a row that
/// `scanf` skips. `None`: nothing of that kind is cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cuts {
    #[serde(rename = "stringChars", skip_serializing_if = "Option::is_none")]
    pub chars: Option<u32>,
    #[serde(rename = "numberDigits", skip_serializing_if = "Option::is_none")]
    pub digits: Option<u32>,
    #[serde(rename = "spacesInARow", skip_serializing_if = "Option::is_none")]
    pub spaces: Option<u32>,
}

impl Cuts {
    /// Both cuts at once: the shorter piece of each kind (a proof under both covers the runs
    /// within each).
    pub fn and(self, other: Cuts) -> Cuts {
        let min = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Cuts {
            chars: min(self.chars, other.chars),
            digits: min(self.digits, other.digits),
            spaces: min(self.spaces, other.spaces),
        }
    }
}

impl Bound {
    /// Runs with at most `loops` loop iterations, nothing else cut.
    pub fn loops(loops: u32) -> Bound {
        Bound { loops, cuts: Cuts::default() }
    }

    /// What "up to" / "at most" reaches, in the student's words: "5 loop iterations",
    /// "5 loop iterations and 32-character strings", "5 loop iterations, 10-digit numbers
    /// and 4 spaces in a row".
    pub fn words(&self) -> String {
        let mut parts = vec![format!("{} loop iterations", self.loops)];
        if let Some(n) = self.cuts.chars {
            parts.push(format!("{n}-character strings"));
        }
        if let Some(n) = self.cuts.digits {
            parts.push(format!("{n}-digit numbers"));
        }
        if let Some(n) = self.cuts.spaces {
            parts.push(format!("{n} spaces in a row"));
        }
        words_list(&parts)
    }
}

/// Items in words: "a", "a and b", "a, b and c".
pub fn words_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    }
}

/// `also` added to the assumption a proof already made (once: "a > b, and there is a line
/// break").
pub fn joined_assumption(assumption: Option<&str>, also: &str) -> String {
    match assumption {
        Some(a) if !a.contains(also) => format!("{a}, and {also}"),
        Some(a) => a.to_string(),
        None => also.to_string(),
    }
}

impl Guarantee {
    pub fn label(&self) -> String {
        match self {
            Guarantee::Verified => "verified".into(),
            Guarantee::Bounded { bound } => format!("verified up to {}", bound.words()),
            Guarantee::VerifiedAssuming { assumption, bound: None } => {
                format!("verified for inputs where {assumption}")
            }
            Guarantee::VerifiedAssuming { assumption, bound: Some(bound) } => {
                format!("verified up to {} for inputs where {assumption}", bound.words())
            }
            Guarantee::OverReals { tests } => {
                format!("passes all {tests} tests; proved over the reals, rounding not checked")
            }
            Guarantee::Tested { tests: 1 } => "passes the test".into(),
            Guarantee::Tested { tests } => format!("passes all {tests} tests"),
            Guarantee::Syntax => "syntax".into(),
            Guarantee::WellTyped => "type-checks".into(),
        }
    }

    /// The guarantee of a proof that also assumed `assumption` about the input (the line
    /// assumption, say): a proof for all inputs becomes one for the inputs it admits.
    pub fn assuming_also(self, assumption: Option<&str>) -> Guarantee {
        let Some(also) = assumption else { return self };
        match self {
            Guarantee::Verified => Guarantee::VerifiedAssuming { assumption: also.into(), bound: None },
            Guarantee::Bounded { bound } => Guarantee::VerifiedAssuming { assumption: also.into(), bound: Some(bound) },
            Guarantee::VerifiedAssuming { assumption, bound } => {
                Guarantee::VerifiedAssuming { assumption: joined_assumption(Some(&assumption), also), bound }
            }
            other => other,
        }
    }

    /// "inputs where a > b, as in all 4 tests" or "runs of up to 5 loop iterations on inputs
    /// where ...": what a proof under a precondition covers.
    pub fn assumed_runs(&self) -> Option<String> {
        match self {
            Guarantee::VerifiedAssuming { assumption, bound: None } => Some(format!("inputs where {assumption}")),
            Guarantee::VerifiedAssuming { assumption, bound: Some(bound) } => {
                Some(format!("runs of up to {} on inputs where {assumption}", bound.words()))
            }
            _ => None,
        }
    }

    /// The level's name, as in JSON (`verified`, `bounded`, `verified-assuming`, `reals`,
    /// `tested`, `syntax`, `type-checks`).
    pub fn level(&self) -> &'static str {
        match self {
            Guarantee::Verified => "verified",
            Guarantee::Bounded { .. } => "bounded",
            Guarantee::VerifiedAssuming { .. } => "verified-assuming",
            Guarantee::OverReals { .. } => "reals",
            Guarantee::Tested { .. } => "tested",
            Guarantee::Syntax => "syntax",
            Guarantee::WellTyped => "type-checks",
        }
    }

    /// A proof (for all inputs, short runs, or under a precondition), not tests or types.
    pub fn is_proof(&self) -> bool {
        matches!(self, Guarantee::Verified | Guarantee::Bounded { .. } | Guarantee::VerifiedAssuming { .. })
    }

    /// How much a repair with this guarantee is known to achieve, for ranking: a proof for all
    /// inputs, then a proof for short runs, then a proof under a conjectured precondition,
    /// then a proof over the reals (with the tests), then the tests; nothing about behaviour
    /// last.
    pub fn strength(&self) -> u8 {
        match self {
            Guarantee::Verified => 5,
            Guarantee::Bounded { .. } => 4,
            Guarantee::VerifiedAssuming { .. } => 3,
            Guarantee::OverReals { .. } => 2,
            Guarantee::Tested { .. } => 1,
            Guarantee::WellTyped | Guarantee::Syntax => 0,
        }
    }
}

/// One place a repair changes and the change, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub span: Span,
    pub change: String,
}

/// A repair's changes in words for its title, the same change at several places once with
/// their count: "`"%d"` → `"%d\n"` (3 places); `i < n` → `i <= n`".
pub fn changes_in_words<'a>(changes: impl IntoIterator<Item = &'a str>) -> String {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for change in changes {
        match counted.iter_mut().find(|(c, _)| *c == change) {
            Some((_, n)) => *n += 1,
            None => counted.push((change, 1)),
        }
    }
    let words: Vec<String> =
        counted.iter().map(|(c, n)| if *n > 1 { format!("{c} ({n} places)") } else { c.to_string() }).collect();
    words.join("; ")
}

/// Replace the bytes of `span` in the original text by `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repair {
    pub title: String,
    /// `syntax`, `mutation`, `verified`, `typed`, ...
    pub engine: &'static str,
    pub guarantee: Guarantee,
    /// Non-overlapping edits, sorted by position.
    pub edits: Vec<TextEdit>,
    /// The places the repair changes, each described in the student's terms (`i < n` →
    /// `i <= n`, where the edit itself may be just `<=`); empty when the edits say it all.
    pub places: Vec<Place>,
    /// What the repair achieves, in the student's words.
    pub explanation: String,
    /// The engine's figures (time to find it, patch size, cost), for JSON and `--verbose`;
    /// never shown in the editor.
    pub details: String,
    /// The spans of the diagnostics this repair fixes, the one it was made for first: editors
    /// offer the quick fix wherever one of them is shown (`check::present` adds the other
    /// diagnostics of the same bug).
    pub fixes: Vec<Span>,
    /// When the repair reached each guarantee, in order (set by the check layer as reports
    /// are published: a `tested` fix first, the proof later); empty until published.
    pub reached: Vec<Reached>,
}

/// A repair reached `guarantee` `after_ms` milliseconds into the analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reached {
    pub guarantee: Guarantee,
    pub after_ms: u64,
}

impl Repair {
    /// When the repair first had a guarantee at least as strong as `strength`
    /// ([`Guarantee::strength`]): a fix proved at once counts as tested then too.
    pub fn first_at_least(&self, strength: u8) -> Option<u64> {
        self.reached.iter().find(|r| r.guarantee.strength() >= strength).map(|r| r.after_ms)
    }
}

impl Repair {
    /// The diagnostic span the repair was made for.
    pub fn primary(&self) -> Span {
        self.fixes.first().copied().unwrap_or_default()
    }
}

/// `text` trimmed, without the parentheses of one group around all of it (`(a < b)` →
/// `a < b`; `(a) / (b)` stays).
pub fn without_parentheses(text: &str) -> &str {
    let t = text.trim();
    if is_parenthesized(t) { t[1..t.len() - 1].trim() } else { t }
}

/// `text` is one parenthesised group: its first `(` closes at its last byte. `(a) / (b)`
/// starts and ends with parentheses, but is not one group. Parentheses in character and
/// string literals do not count.
pub fn is_parenthesized(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'(') || bytes.last() != Some(&b')') {
        return false;
    }
    let (mut depth, mut quote, mut escaped) = (0usize, None, false);
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'\'' | b'"' => quote = Some(b),
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == bytes.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// `a == b` (or `!=`) between strings that cannot be the same object (a string literal, or
/// two arrays), which compares where they are stored and never their letters: the edit of
/// `src` that compares the letters, `strcmp(a, b) == 0` (`!= 0`). A comparison of two
/// pointers is left alone: `p == end` walks a string.
pub fn string_equality_edit(src: &str, e: &Expr) -> Option<TextEdit> {
    let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) = &e.kind else { return None };
    let (a, b) = (a.strip_implicit(), b.strip_implicit());
    if !a.ty.is_char_pointer() || !b.ty.is_char_pointer() {
        return None;
    }
    let literal = |x: &Expr| matches!(x.kind, ExprKind::Str(_));
    let array = |x: &Expr| matches!(x.ty, Type::Array(..));
    if !(literal(a) || literal(b) || (array(a) && array(b))) {
        return None;
    }
    let (ta, tb) = (src.get(a.span.range())?, src.get(b.span.range())?);
    let whole = src.get(e.span.range())?;
    if ta.is_empty() || tb.is_empty() || !whole.contains(ta) || !whole.contains(tb) {
        return None;
    }
    let test = if *op == BinOp::Eq { "==" } else { "!=" };
    let compared = format!("strcmp({ta}, {tb}) {test} 0");
    // A condition's node spans its parentheses: `(s == "yes")`.
    let new_text = if is_parenthesized(whole.trim()) { format!("({compared})") } else { compared };
    Some(TextEdit { span: e.span, new_text })
}

/// The text to remove to delete the statement expression at `span` (or the statement, its
/// `;` included): with its `;` when it is a statement (and its whole line when nothing else
/// is on it); only itself in a `for` header.
pub fn deletion_span(src: &str, span: Span) -> Span {
    let bytes = src.as_bytes();
    let (mut start, mut end) = (span.start as usize, span.end as usize);
    let before = src[..start].trim_end();
    if before.ends_with('(') || before.ends_with(',') {
        return span; // `for (i = 0; ...)`: keep the header's punctuation
    }
    let mut j = if src[..end].ends_with(';') { end - 1 } else { end };
    while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
        j += 1;
    }
    if j < bytes.len() && bytes[j] == b';' {
        end = j + 1;
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let rest_end = src[end..].find('\n').map_or(src.len(), |i| end + i);
        if src[line_start..start].trim().is_empty() && src[end..rest_end].trim().is_empty() {
            start = line_start;
            end = (rest_end + 1).min(src.len());
        }
    }
    Span::new(start, end)
}

/// The whitespace that indents the line `at` is on, up to `at`: the indentation of the
/// statement that starts there, for the lines an edit inserts beside it.
pub fn indentation(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..at];
    &line[..line.len() - line.trim_start().len()]
}

/// The line break `text` uses: an edit that inserts lines keeps a Windows file's `\r\n`.
fn line_break(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `inserted` with its line breaks in `text`'s style (`\r\n` in a Windows file).
pub fn in_line_breaks_of(text: &str, inserted: &str) -> String {
    if line_break(text) == "\n" {
        return inserted.to_string();
    }
    let mut out = String::with_capacity(inserted.len());
    let mut previous = None;
    for c in inserted.chars() {
        if c == '\n' && previous != Some('\r') {
            out.push('\r');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// Whether two of `edits` overlap (one inside another, or crossing): they are no patch.
/// Edits that only touch (one ends where the next begins) do not overlap, nor do two
/// insertions at one place.
pub fn edits_overlap(edits: &[TextEdit]) -> bool {
    let mut sorted: Vec<Span> = edits.iter().map(|e| e.span).collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    sorted.windows(2).any(|w| w[1].start < w[0].end)
}

/// Applies non-overlapping edits to `text` (any order).
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for edit in sorted {
        out.push_str(&text[at..edit.span.start as usize]);
        out.push_str(&edit.new_text);
        at = edit.span.end as usize;
    }
    out.push_str(&text[at..]);
    out
}

/// The values a local declared without one may be given: `0` and `1` for a number, `{0}` for
/// an array of numbers of known size; none for a parameter, a global or a `static` (they start
/// at zero), a pointer or a struct.
pub fn initial_values(v: &Var) -> &'static [&'static str] {
    if v.kind != VarKind::Local {
        return &[];
    }
    match &v.ty {
        Type::Array(elem, Some(_)) if elem.is_arithmetic() || elem.pointee().is_some_and(Type::is_arithmetic) => {
            &["{0}"]
        }
        t if t.is_arithmetic() => &["0", "1"],
        _ => &[],
    }
}

/// Where `v`'s declarator ends in `src`: after its name and its array dimensions (`count[26]`),
/// where ` = value` goes.
pub fn declarator_end(src: &str, v: &Var) -> Option<usize> {
    let mut end = v.span.end as usize;
    while let Some(rest) = src.get(end..)
        && rest.trim_start().starts_with('[')
    {
        end += rest.find(']')? + 1;
    }
    Some(end)
}

/// The edit that gives local `v`, declared without a value, `value` where it is declared
/// (`int sum;` → `int sum = 0;`), and the change in words.
pub fn initialisation(src: &str, v: &Var, value: &str) -> Option<(TextEdit, String)> {
    let end = declarator_end(src, v)?;
    let declarator = format!("{} = {value}", src.get(v.span.start as usize..end)?);
    let edit = TextEdit { span: Span::new(end, end), new_text: format!(" = {value}") };
    Some((edit, format!("give `{}` a value where it is declared: `{declarator}`", v.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_or_crossing_edits_overlap_touching_ones_do_not() {
        let edit = |a: usize, b: usize| TextEdit { span: Span::new(a, b), new_text: String::new() };
        assert!(edits_overlap(&[edit(69, 134), edit(80, 90)]));
        assert!(edits_overlap(&[edit(10, 20), edit(5, 12)]));
        assert!(!edits_overlap(&[edit(10, 20), edit(20, 25), edit(3, 3), edit(3, 3)]));
    }

    #[test]
    fn one_parenthesised_group_is_told_from_two() {
        assert_eq!(
            [" (a < b) ", "( (x) )", "(a) / (b)", "a"].map(without_parentheses),
            ["a < b", "(x)", "(a) / (b)", "a"]
        );
        for (text, one) in [
            ("(a + b)", true),
            ("((a) / (b))", true),
            ("(a) / (b)", false),
            ("(c != ')')", true),
            ("(s[i] == '(') && (t)", false),
            ("(\"(\")", true),
            ("a + b", false),
            ("(a", false),
        ] {
            assert_eq!(is_parenthesized(text), one, "{text}");
        }
    }

    #[test]
    fn an_assumption_is_named_in_the_label() {
        let line = Some("there is a line break (as in every test)");
        let labels: Vec<String> = [
            Guarantee::Verified,
            Guarantee::Bounded { bound: Bound::loops(5) },
            Guarantee::VerifiedAssuming { assumption: "n > 0, as in all 4 tests".into(), bound: Some(Bound::loops(3)) },
            Guarantee::Tested { tests: 4 },
        ]
        .into_iter()
        .map(|g| g.assuming_also(line).assuming_also(line).label())
        .collect();
        expect_test::expect![[r#"
            verified for inputs where there is a line break (as in every test)
            verified up to 5 loop iterations for inputs where there is a line break (as in every test)
            verified up to 3 loop iterations for inputs where n > 0, as in all 4 tests, and there is a line break (as in every test)
            passes all 4 tests"#]]
        .assert_eq(&labels.join("\n"));
        assert_eq!(Guarantee::Verified.assuming_also(None), Guarantee::Verified);
    }

    #[test]
    fn a_bound_names_every_input_piece_it_cuts() {
        let cut = |chars, digits, spaces| Bound { loops: 5, cuts: Cuts { chars, digits, spaces } };
        let labels: Vec<String> =
            [cut(Some(32), None, None), cut(None, Some(10), Some(4)), cut(Some(8), Some(10), Some(4))]
                .into_iter()
                .map(|bound| Guarantee::Bounded { bound }.label())
                .collect();
        expect_test::expect![[r#"
            verified up to 5 loop iterations and 32-character strings
            verified up to 5 loop iterations, 10-digit numbers and 4 spaces in a row
            verified up to 5 loop iterations, 8-character strings, 10-digit numbers and 4 spaces in a row"#]]
        .assert_eq(&labels.join("\n"));
        // Two cuts at once reach as far as the shorter of each kind.
        let both =
            Cuts { chars: Some(32), digits: None, spaces: Some(4) }.and(Cuts { chars: Some(8), ..Cuts::default() });
        assert_eq!(both, Cuts { chars: Some(8), digits: None, spaces: Some(4) });
        // JSON keeps `bound` a number and names the cuts beside it.
        let json = |g: &Guarantee| serde_json::to_string(g).unwrap();
        assert_eq!(json(&Guarantee::Bounded { bound: Bound::loops(5) }), r#"{"level":"bounded","bound":5}"#);
        assert_eq!(
            json(&Guarantee::VerifiedAssuming { assumption: "n > 0".into(), bound: Some(cut(Some(32), None, None)) }),
            r#"{"level":"verified-assuming","assumption":"n > 0","bound":5,"stringChars":32}"#
        );
        assert_eq!(
            json(&Guarantee::VerifiedAssuming { assumption: "n > 0".into(), bound: None }),
            r#"{"level":"verified-assuming","assumption":"n > 0"}"#
        );
    }

    #[test]
    fn inserted_lines_keep_the_files_line_breaks() {
        let windows = "int main(void) {\r\n    return 0;\r\n}\r\n";
        assert_eq!(line_break(windows), "\r\n");
        assert_eq!(in_line_breaks_of(windows, "if (x)\n    y = 1;\r\nz = 2;"), "if (x)\r\n    y = 1;\r\nz = 2;");
        let unix = "int main(void) {\n    return 0;\n}\n";
        assert_eq!(line_break(unix), "\n");
        assert_eq!(in_line_breaks_of(unix, "a\nb"), "a\nb");
        assert_eq!(line_break("no line at all"), "\n");
    }
}
