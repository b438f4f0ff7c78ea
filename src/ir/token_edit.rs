//! Edits that keep the student's text: an engine prints its repaired expression in its own
//! spacing, and the edit applied to the source changes only the tokens that differ, leaving
//! the student's spacing, line breaks and untouched tokens as they were (`scanf("%d",m)` →
//! insert `&` before `m`, not a reprinted call).

use super::{Span, TextEdit};

/// The tokens of `text` as byte ranges: words (identifiers, numbers, with `.`), string and
/// character literals whole, two-character operators, single characters; comments skipped.
pub fn tokens(text: &str) -> Vec<(usize, usize)> {
    const PAIRS: [&str; 12] = ["<=", ">=", "==", "!=", "&&", "||", "<<", ">>", "++", "--", "->", "+="];
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if text[i..].starts_with("/*") {
            // A comment is no token (an apostrophe in it starts no character constant).
            i = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            continue;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(b.len(), |k| i + k);
            continue;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if word(c) {
            while i < b.len() && word(b[i]) {
                i += 1;
            }
        } else if PAIRS.iter().any(|p| text[i..].starts_with(p)) {
            i += 2;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push((start, i));
    }
    out
}

/// The one edit turning `old` (at byte `offset` of the source) into `new` that leaves their
/// common leading and trailing tokens, and the spacing both have around the change, as they
/// are.
pub fn minimal_edit(old: &str, new: &str, offset: usize) -> TextEdit {
    let (a, b) = (tokens(old), tokens(new));
    let same = |i: usize, j: usize| old[a[i].0..a[i].1] == new[b[j].0..b[j].1];
    let mut p = 0;
    while p < a.len() && p < b.len() && same(p, p) {
        p += 1;
    }
    let mut s = 0;
    while s < a.len() - p && s < b.len() - p && same(a.len() - 1 - s, b.len() - 1 - s) {
        s += 1;
    }
    // What lies between the kept prefix and the kept suffix, spacing included.
    let gap = |t: &[(usize, usize)], len: usize| -> (usize, usize) {
        (if p > 0 { t[p - 1].1 } else { 0 }, if s > 0 { t[t.len() - s].0 } else { len })
    };
    hunk_edit(old, new, gap(&a, old.len()), gap(&b, new.len()), offset)
}

/// The edits turning `old` into `new` that change only the tokens that differ (a longest
/// common subsequence of tokens is kept), one per stretch of differing tokens; one edit
/// ([`minimal_edit`]) when the differences are scattered over more than `max_edits` places.
pub fn minimal_edits(old: &str, new: &str, offset: usize, max_edits: usize) -> Vec<TextEdit> {
    edits_in_style(old, new, offset, max_edits, tight_commas_in(old))
}

/// [`minimal_edits`] of the text at `span` of `src`, replaced by `new`. The comma style is
/// `old`'s, or the file's where `old` has no comma (`printf("%d")` → `printf("%d",x)` in a
/// file that writes `f(a,b)`).
pub fn minimal_edits_in(src: &str, span: Span, new: &str, max_edits: usize) -> Vec<TextEdit> {
    let old = &src[span.range()];
    let tight = tight_commas_in(old).or_else(|| tight_commas_in(src));
    edits_in_style(old, new, span.start as usize, max_edits, tight)
}

/// Whether `text` writes its commas without a space after them: `None` when it has no comma,
/// else what most of its commas do.
fn tight_commas_in(text: &str) -> Option<bool> {
    let b = text.as_bytes();
    let ends: Vec<usize> = tokens(text).iter().filter(|t| &text[t.0..t.1] == ",").map(|t| t.1).collect();
    let tight = ends.iter().filter(|&&e| !b.get(e).is_some_and(|c| c.is_ascii_whitespace())).count();
    (!ends.is_empty()).then_some(2 * tight > ends.len())
}

fn edits_in_style(old: &str, new: &str, offset: usize, max_edits: usize, tight: Option<bool>) -> Vec<TextEdit> {
    let (a, b) = (tokens(old), tokens(new));
    let (n, m) = (a.len(), b.len());
    let pairs = kept_tokens(old, &a, new, &b);
    // Hunks between consecutive kept tokens (and the ends).
    // The style of the comma at old token `i`, if it is one: tight when no space follows it.
    let comma_style = |i: usize| {
        (i < n && &old[a[i].0..a[i].1] == ",").then(|| !old.as_bytes().get(a[i].1).is_some_and(u8::is_ascii_whitespace))
    };
    let mut edits = Vec::new();
    let mut prev: Option<(usize, usize)> = None;
    for next in pairs.iter().copied().map(Some).chain(std::iter::once(None)) {
        let (pi, pj) = prev.map_or((0, 0), |(i, j)| (i + 1, j + 1));
        let (ni, nj) = next.unwrap_or((n, m));
        if ni > pi || nj > pj {
            let gap_old = (if pi > 0 { a[pi - 1].1 } else { 0 }, if ni < n { a[ni].0 } else { old.len() });
            let gap_new = (if pj > 0 { b[pj - 1].1 } else { 0 }, if nj < m { b[nj].0 } else { new.len() });
            let mut edit = hunk_edit(old, new, gap_old, gap_new, offset);
            // The student's comma style, from the comma next to the change, else the call's
            // or the file's: `f(a,b)` gets `,c`, not `, c`.
            let near = pi.checked_sub(1).and_then(comma_style).or_else(|| comma_style(ni));
            if near.or(tight) == Some(true) {
                edit.new_text = tight_commas(&edit.new_text);
            }
            edits.push(edit);
        }
        prev = next;
    }
    if edits.len() > max_edits {
        return vec![minimal_edit(old, new, offset)];
    }
    edits
}

/// Above this many cells (middle tokens of `old` times those of `new`), no longest common
/// subsequence is sought: whole files that differ all over, never a repair.
const MAX_LCS_CELLS: usize = 1 << 22;

/// The pairs (index in `a`, index in `b`) of the tokens kept between `old` (tokens `a`) and
/// `new` (tokens `b`): the common leading and trailing tokens, and a longest common
/// subsequence of what lies between them (a repair's middle is short: a few dozen tokens).
fn kept_tokens(old: &str, a: &[(usize, usize)], new: &str, b: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let ta: Vec<&str> = a.iter().map(|t| &old[t.0..t.1]).collect();
    let tb: Vec<&str> = b.iter().map(|t| &new[t.0..t.1]).collect();
    let (n, m) = (ta.len(), tb.len());
    let mut p = 0;
    while p < n && p < m && ta[p] == tb[p] {
        p += 1;
    }
    let mut s = 0;
    while s < n - p && s < m - p && ta[n - 1 - s] == tb[m - 1 - s] {
        s += 1;
    }
    let (mn, mm) = (n - p - s, m - p - s);
    if mn * mm > MAX_LCS_CELLS {
        // Two texts that differ all over: one change between the common ends.
        return (0..p).map(|k| (k, k)).chain((0..s).rev().map(|k| (n - 1 - k, m - 1 - k))).collect();
    }
    let mut lcs = vec![vec![0u32; mm + 1]; mn + 1];
    for i in (0..mn).rev() {
        for j in (0..mm).rev() {
            lcs[i][j] = if ta[p + i] == tb[p + j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut pairs: Vec<(usize, usize)> = (0..p).map(|k| (k, k)).collect();
    let (mut i, mut j) = (0, 0);
    while i < mn && j < mm {
        if ta[p + i] == tb[p + j] {
            pairs.push((p + i, p + j));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs.extend((0..s).rev().map(|k| (n - 1 - k, m - 1 - k)));
    pairs
}

/// The tokens `new` changes in `old`, one per stretch of differing tokens, in order:
/// `scanf("%d", x)` → `scanf("%d", &x)` is one change inserting `&` before `x`.
pub fn changes<'t>(old: &'t str, new: &'t str) -> Vec<Change<'t>> {
    let (a, b) = (tokens(old), tokens(new));
    let pairs = kept_tokens(old, &a, new, &b);
    let mut out = Vec::new();
    let mut prev = (0, 0);
    for (ni, nj) in pairs.iter().copied().chain(std::iter::once((a.len(), b.len()))) {
        if ni > prev.0 || nj > prev.1 {
            let text = |t: &[(usize, usize)], s: &'t str| t.iter().map(|t| &s[t.0..t.1]).collect::<Vec<_>>();
            let at = a.get(prev.0).map_or(old.len(), |t| t.0);
            out.push(Change { at, removed: text(&a[prev.0..ni], old), inserted: text(&b[prev.1..nj], new) });
        }
        prev = (ni + 1, nj + 1);
    }
    out
}

/// One stretch of tokens changed ([`changes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change<'t> {
    /// Where in the old text the change starts (its first removed token, or the token the
    /// insertion goes before).
    pub at: usize,
    pub removed: Vec<&'t str>,
    pub inserted: Vec<&'t str>,
}

/// `text` with the spaces after its commas dropped, outside string and character literals.
fn tight_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, t) in tokens(text).iter().enumerate() {
        if i > 0 && !out.ends_with(',') && text[..t.0].ends_with(char::is_whitespace) {
            out.push(' ');
        }
        out.push_str(&text[t.0..t.1]);
    }
    // Spacing at the ends is the hunk's, kept, but for the space after a last comma
    // (`b, ` inserted before `c` in `f(a,c)` is `b,`).
    let lead = &text[..text.len() - text.trim_start().len()];
    let trail = if out.ends_with(',') { "" } else { &text[text.trim_end().len()..] };
    format!("{lead}{out}{trail}")
}

/// The edit replacing `old[oa..ob]` (a gap between kept tokens, spacing included) by
/// `new[na..nb]`. The student's spacing around replaced tokens stays and the printer's goes,
/// unless dropping it would glue two tokens; an insertion keeps the printer's spacing, but
/// right after `(`, `,` or `[` written without a space (`f(a,&b)`) it goes in without one.
fn hunk_edit(
    old: &str,
    new: &str,
    (mut oa, mut ob): (usize, usize),
    (mut na, mut nb): (usize, usize),
    offset: usize,
) -> TextEdit {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let ws = |c: u8| c.is_ascii_whitespace();
    while oa < ob && na < nb && o[oa] == n[na] && ws(o[oa]) {
        oa += 1;
        na += 1;
    }
    while oa < ob && na < nb && o[ob - 1] == n[nb - 1] && ws(o[ob - 1]) {
        ob -= 1;
        nb -= 1;
    }
    let replaces = o[oa..ob].iter().any(|c| !ws(*c));
    if replaces {
        while ws(o[oa]) {
            oa += 1;
        }
        let end = ob;
        while ws(o[ob - 1]) {
            ob -= 1;
        }
        // An argument deleted with its comma takes the space after it along (`f(a, b, c)`
        // less `b, ` is `f(a, c)`, not `f(a,  c)`).
        if n[na..nb].iter().all(|c| ws(*c)) && o[ob - 1] == b',' {
            ob = end;
        }
    }
    // An argument appended where the student left a space (`f(a )`): the space stays after it.
    let inserted = new[na..nb].trim();
    if !replaces && ob > oa && inserted.starts_with(',') {
        return TextEdit { span: Span::new(offset + oa, offset + oa), new_text: inserted.to_string() };
    }
    let tight = !replaces && oa > 0 && matches!(o[oa - 1], b'(' | b',' | b'[') && !o.get(oa).is_some_and(|c| ws(*c));
    let glue = |x: u8, y: u8| {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        let op = |c: u8| b"+-*/%<>=!&|^".contains(&c);
        (word(x) && word(y)) || (op(x) && op(y))
    };
    if replaces || tight {
        while na < nb && ws(n[na]) && !(oa > 0 && na + 1 < nb && glue(o[oa - 1], n[na + 1])) {
            na += 1;
        }
    }
    if replaces {
        while na < nb && ws(n[nb - 1]) && !(ob < o.len() && nb >= 2 && glue(n[nb - 2], o[ob])) {
            nb -= 1;
        }
    }
    TextEdit { span: Span::new(offset + oa, offset + ob), new_text: new[na..nb].to_string() }
}

/// "Insert `&` before `m`", "Replace `coutn` with `count`": the edits of `src` in words,
/// each with the whole tokens it touches; an insertion is placed by the token after it (or
/// before it, at the end).
pub fn describe_edits(src: &str, edits: &[TextEdit]) -> String {
    let toks = tokens(src);
    let one = |x: &str| x.split_whitespace().collect::<Vec<_>>().join(" ");
    let parts: Vec<String> = edits
        .iter()
        .map(|e| {
            let (s, t) = (e.span.start as usize, e.span.end as usize);
            let touched: Vec<&(usize, usize)> = toks.iter().filter(|k| k.1 > s && k.0 < t).collect();
            if touched.is_empty() {
                let inserted = one(&e.new_text);
                return match (toks.iter().find(|k| k.0 >= t), toks.iter().rev().find(|k| k.1 <= s)) {
                    (Some(next), _) => format!("Insert `{inserted}` before `{}`", &src[next.0..next.1]),
                    (None, Some(prev)) => format!("Insert `{inserted}` after `{}`", &src[prev.0..prev.1]),
                    (None, None) => format!("Insert `{inserted}`"),
                };
            }
            let from = touched.iter().map(|k| k.0).min().unwrap_or(s).min(s);
            let to = touched.iter().map(|k| k.1).max().unwrap_or(t).max(t);
            let old = &src[from..to];
            let new = format!("{}{}{}", &src[from..s], e.new_text, &src[t..to]);
            if new.trim().is_empty() {
                format!("Delete `{}`", one(old))
            } else {
                format!("Replace `{}` with `{}`", one(old), one(&new))
            }
        })
        .collect();
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::apply_edits;

    #[test]
    fn an_apostrophe_in_a_comment_starts_no_character_constant() {
        let src = "/* the course's rule */\nint x = 'a'; // don't\nint y;";
        let words: Vec<&str> = tokens(src).iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(words, vec!["int", "x", "=", "'a'", ";", "int", "y", ";"]);
    }

    #[test]
    fn arguments_move_in_the_students_comma_style() {
        let edited = |src: &str, new: &str| apply_edits(src, &minimal_edits_in(src, Span::new(0, src.len()), new, 2));
        // A swap: the argument deleted takes the space after its comma along.
        assert_eq!(edited("swap(0, nums)", "swap(nums, 0)"), "swap(nums, 0)");
        assert_eq!(edited("f(a, b, c)", "f(a, c)"), "f(a, c)");
        // An argument inserted between tight commas gets none after its own.
        assert_eq!(edited("printf(\"%d\",a,c)", "printf(\"%d\", a, b, c)"), "printf(\"%d\",a,b,c)");
        // Mixed styles: the comma next to the change decides; a space before `)` stays.
        assert_eq!(edited("printf(\"%d\", a,c)", "printf(\"%d\", a, b, c)"), "printf(\"%d\", a,b,c)");
        assert_eq!(edited("g(a, b );", "g(a, b, c);"), "g(a, b, c );");
        // A call with no comma of its own: the file's style.
        let src = "f(a,b);\nprintf(\"%d\");";
        let at = src.find("printf").unwrap();
        let e = minimal_edits_in(src, Span::new(at, src.len() - 1), "printf(\"%d\", a)", 2);
        assert_eq!(apply_edits(src, &e), "f(a,b);\nprintf(\"%d\",a);");
    }

    #[test]
    fn one_edit_keeps_common_tokens() {
        let cases = [
            ("(y>=z)", "(a >= z)", "a", 1, 2),
            ("(y>=z)", "(y >= -z)", " -", 4, 4),
            ("x-y", "x - -y", " -", 2, 2),
            ("(y >= z)", "(a >= z)", "a", 1, 2),
            ("y >= z", "y < z", "<", 2, 4),
            ("n % 10", "abs(n % 10)", "abs(n % 10)", 0, 6),
            ("x", "x + 1", " + 1", 1, 1),
        ];
        for (old, new, text, start, end) in cases {
            let e = minimal_edit(old, new, 0);
            assert_eq!(
                (e.new_text.as_str(), e.span.start as usize, e.span.end as usize),
                (text, start, end),
                "{old} → {new}"
            );
        }
        for (old, new) in [("a<b&&c", "a <= b && c"), ("f(x)", "g(x, y)"), ("(i)", "(i + 1)"), ("a  <  b", "b < a")] {
            let applied = apply_edits(old, &[minimal_edit(old, new, 0)]);
            assert_eq!(applied.replace(' ', ""), new.replace(' ', ""), "{old} → {new}");
        }
    }

    #[test]
    fn several_edits_change_only_the_differing_tokens_in_the_students_spacing() {
        let apply = |old: &str, new: &str| apply_edits(old, &minimal_edits(old, new, 0, 3));
        // The `&` goes in; the student's comma without a space stays.
        assert_eq!(apply("scanf(\"%d%d\\n\",m,&n)", "scanf(\"%d%d\\n\", &m, &n)"), "scanf(\"%d%d\\n\",&m,&n)");
        assert_eq!(apply("scanf(\"%d %d\", a, b)", "scanf(\"%d %d\", &a, &b)"), "scanf(\"%d %d\", &a, &b)");
        // A string's own spacing is a token: it differs or it does not.
        assert_eq!(apply("printf(\"%d %d\",x)", "printf(\"%d %d\", x, y)"), "printf(\"%d %d\",x,y)");
        assert_eq!(apply("f( a,b )", "f(a, c)"), "f( a,c )");
        // A dropped argument comes back in the student's comma style.
        assert_eq!(apply("scanf(\"%d%d\",&a)", "scanf(\"%d%d\", &a, &b)"), "scanf(\"%d%d\",&a,&b)");
        assert_eq!(apply("f(a, b)", "f(a, b, c)"), "f(a, b, c)");
        assert_eq!(apply("printf(\"%d, %d\",x)", "printf(\"%d, %d\", x, y)"), "printf(\"%d, %d\",x,y)");
        let edits = minimal_edits("scanf(\"%d\",m)", "scanf(\"%d\", &m)", 10, 3);
        assert_eq!(edits, vec![TextEdit { span: Span::new(21, 21), new_text: "&".into() }]);
    }

    #[test]
    fn edits_in_words() {
        let src = "scanf(\"%d\",m,&n);";
        let edits = minimal_edits(src, "scanf(\"%d\", &m, &n);", 0, 3);
        assert_eq!(describe_edits(src, &edits), "Insert `&` before `m`");
        let src = "x = coutn + 1;";
        assert_eq!(describe_edits(src, &minimal_edits(src, "x = count + 1;", 0, 3)), "Replace `coutn` with `count`");
        let src = "f(a, b)";
        assert_eq!(describe_edits(src, &minimal_edits(src, "f(a)", 0, 3)), "Delete `, b`");
    }
}
