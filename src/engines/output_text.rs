//! Repair of the literal text a program prints: a missing final newline, a stray space, a
//! prompt the assignment does not print. Under `exact` or `whitespace` comparison these are
//! failures, and the most common ones of a CS1 course that compares whole outputs (half of
//! C-Pack's failing submissions whose output is right up to whitespace only miss the final
//! `\n`).
//!
//! The interpreter records where each printed byte comes from: the `printf` call and the
//! piece of its format (`OutputChunk::piece`). A failing test's output is aligned with the
//! expected output (a common subsequence of bytes, printed values kept first); every
//! difference must fall into,
//! or next to, literal text of some format. Each piece of literal text then gets the one new
//! text that all its occurrences ask for; a format left with nothing to print is deleted with
//! its statement. The patched program is accepted only if it passes every test in the
//! interpreter: a `tested` repair, which the check layer then tries to prove against the
//! reference.
//!
//! When no format's text can take the difference because every failing test misses the same
//! ending (a line break after characters printed with `putchar`), the repair is a new `printf`
//! of that ending at the end of the entry function ([`missing_ending`]).

use std::collections::{BTreeMap, HashMap};

use crate::cancel::Cancel;
use crate::ir::walk::walk_stmt;
use crate::ir::*;
use crate::spec::compare::{self, Compare};
use crate::spec::interp::{self, ChunkKind, Limits};

/// One test: its input and the expected output.
pub struct Test<'a> {
    pub input: &'a str,
    pub expected: &'a str,
    /// With `values`: how much of the expected output is prompt.
    pub expected_prompt: Option<usize>,
}

/// A repair of printed text: edits of format string literals (or deletions of prints of
/// literal text only), and each change in words: one place per literal or deleted print,
/// which holds (touches) each of its edits.
#[derive(Clone, Debug)]
pub struct OutputTextRepair {
    pub edits: Vec<TextEdit>,
    pub places: Vec<Place>,
}

/// Outputs longer than this (bytes, each side) are not aligned: the alignment is quadratic.
const MAX_ALIGNED: usize = 4096;

/// A `printf` whose format is one string literal.
struct Site {
    /// The call.
    call: Span,
    /// The literal in the source (quotes included).
    literal: Span,
    /// The literal text around the directives: one more than there are directives.
    segments: Vec<Vec<u8>>,
    /// Each directive's bytes as written (`%5.2f`).
    directives: Vec<Vec<u8>>,
}

/// Where a printed byte comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Byte `offset` of segment `segment` of site `site`.
    Literal { site: usize, segment: usize, offset: usize },
    /// A value printed by directive `directive` of site `site`.
    Value { site: usize, directive: usize },
    /// Anything else (`putchar`, a format that is not a literal).
    Other,
}

/// The repair that makes every test pass by changing only literal text of formats, if the
/// failing tests agree on one.
pub fn repair(
    program: &Program,
    src: &str,
    entry: &str,
    tests: &[Test<'_>],
    mode: Compare,
    limits: &Limits,
    cancel: &Cancel,
) -> Option<OutputTextRepair> {
    literal_text(program, src, entry, tests, mode, limits, cancel)
        .or_else(|| missing_ending(program, src, entry, tests, mode, limits, cancel))
}

/// The repair of the literal text of formats (see the module's doc).
fn literal_text(
    program: &Program,
    src: &str,
    entry: &str,
    tests: &[Test<'_>],
    mode: Compare,
    limits: &Limits,
    cancel: &Cancel,
) -> Option<OutputTextRepair> {
    let sites = printf_sites(program, src);
    if sites.is_empty() {
        return None;
    }
    let by_call: HashMap<Span, usize> = sites.iter().enumerate().map(|(i, s)| (s.call, i)).collect();
    // The new text of each segment, as every occurrence that changes asks for it.
    let mut wanted: BTreeMap<(usize, usize), Vec<u8>> = BTreeMap::new();
    let mut failing = 0;
    let mut printed = vec![false; sites.len()];
    for t in tests {
        let run = interp::run(program, entry, t.input.as_bytes(), limits, cancel);
        if cancel.is_cancelled() || run.error.is_some() {
            return None;
        }
        for c in &run.chunks {
            if let Some(&i) = by_call.get(&c.span) {
                printed[i] = true;
            }
        }
        let actual = String::from_utf8_lossy(&run.output);
        if compare::output_matches(mode, t.expected, t.expected_prompt, &actual, Some(run.output_before_last_read)) {
            continue;
        }
        failing += 1;
        let (out, expected) = (&run.output, t.expected.as_bytes());
        if out.len() > MAX_ALIGNED || expected.len() > MAX_ALIGNED {
            return None;
        }
        let origins = origins(&run.chunks, &sites, &by_call);
        for ((site, segment, _), changes) in occurrences(out, expected, &origins, &sites)? {
            let mut text = sites[site].segments[segment].clone();
            for (lo, hi, new) in changes.into_iter().rev() {
                text.splice(lo..hi, new);
            }
            match wanted.get(&(site, segment)) {
                Some(other) if *other != text => return None,
                _ => {
                    wanted.insert((site, segment), text);
                }
            }
        }
    }
    if failing == 0 || wanted.is_empty() {
        return None;
    }
    // A print no test reaches, with the very format of one that changes, changes the same way
    // (the same `printf("%d %d %d", …)` in each branch): the tests cannot tell, the proof
    // against the reference can.
    let changed: Vec<((usize, usize), Vec<u8>)> = wanted.iter().map(|(k, v)| (*k, v.clone())).collect();
    for (other, site) in sites.iter().enumerate().filter(|(i, _)| !printed[*i]) {
        for ((s, segment), text) in &changed {
            if site.segments == sites[*s].segments && site.directives == sites[*s].directives {
                wanted.insert((other, *segment), text.clone());
            }
        }
    }
    let repair = edits(src, &sites, &wanted)?;
    // Accepted only when every test passes with the new text.
    let patched = lower_patched(src, &repair.edits)?;
    let all_pass = tests.iter().all(|t| run_test(&patched, entry, t, mode, limits, cancel).0);
    (all_pass && !cancel.is_cancelled()).then_some(repair)
}

/// Whether `program` passes `t`, and its output when the run ended without an error.
fn run_test(
    program: &Program,
    entry: &str,
    t: &Test<'_>,
    mode: Compare,
    limits: &Limits,
    cancel: &Cancel,
) -> (bool, Option<String>) {
    let run = interp::run(program, entry, t.input.as_bytes(), limits, cancel);
    let actual = String::from_utf8_lossy(&run.output).into_owned();
    let ok = run.error.is_none()
        && compare::output_matches(mode, t.expected, t.expected_prompt, &actual, Some(run.output_before_last_read));
    (ok, run.error.is_none().then_some(actual))
}

/// Every failing test's output is the expected one without the same ending (a line break
/// after output that no format's text can take: `putchar` in a loop, a line printed in a
/// helper): a new `printf` of that ending before the entry function's last `return`, or at
/// the end of its body. Only an ending of whitespace and punctuation: a missing word or value
/// is no slip of the text.
fn missing_ending(
    program: &Program,
    src: &str,
    entry: &str,
    tests: &[Test<'_>],
    mode: Compare,
    limits: &Limits,
    cancel: &Cancel,
) -> Option<OutputTextRepair> {
    if mode == Compare::Values {
        return None;
    }
    let passes = |p: &Program, t: &Test<'_>| run_test(p, entry, t, mode, limits, cancel);
    let mut ending: Option<&str> = None;
    for t in tests {
        match passes(program, t) {
            (true, _) => {}
            (false, Some(actual)) => {
                let rest = t.expected.strip_prefix(actual.as_str())?;
                if rest.is_empty() || ending.is_some_and(|e| e != rest) {
                    return None;
                }
                ending = Some(rest);
            }
            (false, None) => return None,
        }
    }
    let ending = ending?;
    if ending.chars().any(|c| c.is_alphanumeric() || c.is_control() && !c.is_whitespace()) {
        return None;
    }
    let body = program.func(program.func_by_name(entry)?).body.as_ref()?;
    let StmtKind::Block(items) = &body.kind else { return None };
    let call = format!("printf(\"{}\");", String::from_utf8(escape(ending.as_bytes())).ok()?);
    let edit = match items.last() {
        Some(last) if matches!(last.kind, StmtKind::Return(_)) => {
            let at = last.span.start as usize;
            let indent = crate::ir::indentation(src, at);
            TextEdit {
                span: Span::new(at, at),
                new_text: crate::ir::in_line_breaks_of(src, &format!("{call}\n{indent}")),
            }
        }
        last => {
            // Before the closing brace, indented as the body's statements.
            let close = (body.span.end as usize).checked_sub(1).filter(|&i| src.as_bytes().get(i) == Some(&b'}'))?;
            let indent = last.map_or("    ", |l| crate::ir::indentation(src, l.span.start as usize));
            let line_start = src[..close].rfind('\n').map_or(0, |i| i + 1);
            let at = if src[line_start..close].trim().is_empty() { line_start } else { close };
            let text = if at == line_start { format!("{indent}{call}\n") } else { format!("\n{indent}{call}\n") };
            TextEdit { span: Span::new(at, at), new_text: crate::ir::in_line_breaks_of(src, &text) }
        }
    };
    let place = Place { span: edit.span, change: format!("add `{call}` at the end of `{entry}`") };
    let patched = lower_patched(src, std::slice::from_ref(&edit))?;
    let all_pass = tests.iter().all(|t| passes(&patched, t).0);
    (all_pass && !cancel.is_cancelled()).then(|| OutputTextRepair { edits: vec![edit], places: vec![place] })
}

fn lower_patched(src: &str, edits: &[TextEdit]) -> Option<Program> {
    crate::syntax::lower::lower_without_errors(&apply_edits(src, edits))
}

/// Every `printf` of the program whose format is a single string literal in the source.
fn printf_sites(program: &Program, src: &str) -> Vec<Site> {
    let mut sites = Vec::new();
    for f in &program.funcs {
        let Some(body) = &f.body else { continue };
        walk_stmt(body, &mut |e: &Expr| {
            let ExprKind::Call(Callee::Builtin(Builtin::Printf), args) = &e.kind else { return };
            let Some(fmt) = args.first().map(Expr::strip_implicit) else { return };
            let ExprKind::Str(bytes) = &fmt.kind else { return };
            let written = src.get(fmt.span.range()).unwrap_or_default();
            // One literal as written (not a macro, not `"a" "b"`).
            if !(written.len() >= 2 && written.starts_with('"') && written.ends_with('"'))
                || written[1..written.len() - 1].contains("\" ")
                || written[1..written.len() - 1].contains("\"\n")
            {
                return;
            }
            let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
            let Ok(pieces) = format::parse(bytes, false) else { return };
            let (mut segments, mut directives) = (vec![Vec::new()], Vec::new());
            for p in pieces {
                match p {
                    format::Piece::Literal(text) => segments.last_mut().expect("one segment").extend(text),
                    format::Piece::Directive(d) => {
                        directives.push(bytes[d.start..d.end].to_vec());
                        segments.push(Vec::new());
                    }
                }
            }
            sites.push(Site { call: e.span, literal: fmt.span, segments, directives });
        });
    }
    sites
}

/// The origin of every byte of a run's output.
fn origins(chunks: &[interp::OutputChunk], sites: &[Site], by_call: &HashMap<Span, usize>) -> Vec<Origin> {
    let mut out = Vec::new();
    for c in chunks {
        let site = by_call.get(&c.span).copied();
        let piece = c.piece as usize;
        for i in 0..c.text.len() {
            out.push(match (site, c.kind) {
                (Some(site), ChunkKind::Literal) => {
                    let seg = sites[site].segments.get(piece).map(Vec::as_slice).unwrap_or_default();
                    if !seg.is_empty() && seg[i % seg.len()] == c.text[i] {
                        Origin::Literal { site, segment: piece, offset: i % seg.len() }
                    } else {
                        Origin::Other
                    }
                }
                (Some(site), ChunkKind::Value) => Origin::Value { site, directive: piece },
                _ => Origin::Other,
            });
        }
    }
    out
}

/// A segment's occurrence (site, segment, where it starts in the output) and the changes it
/// needs: (from, to, new bytes) in the segment's own offsets, sorted.
type Occurrences = BTreeMap<(usize, usize, usize), Vec<(usize, usize, Vec<u8>)>>;

/// The differences between `out` and `expected`, each placed in the literal text it belongs
/// to; `None` when one falls in a printed value or in output of unknown origin.
fn occurrences(out: &[u8], expected: &[u8], origins: &[Origin], sites: &[Site]) -> Option<Occurrences> {
    let mut found = Occurrences::new();
    for (lo, hi, new) in differences(out, expected, |i| matches!(origins[i], Origin::Value { .. })) {
        if lo < hi {
            // Replaced or deleted bytes: literal text only, cut where one occurrence of a
            // segment ends (a prompt and the label after it); the new text goes to the first.
            let mut new = Some(new);
            let mut at = lo;
            while at < hi {
                let Origin::Literal { site, segment, offset } = origins[at] else { return None };
                let mut end = at + 1;
                while end < hi && origins[end] == (Origin::Literal { site, segment, offset: offset + (end - at) }) {
                    end += 1;
                }
                let change = (offset, offset + (end - at), new.take().unwrap_or_default());
                found.entry((site, segment, at - offset)).or_default().push(change);
                at = end;
            }
            continue;
        }
        let (key, from, to) = {
            // Inserted bytes: at the end of the literal text before, at the start of the
            // literal text after, or in the (empty) literal text around a value.
            let before = lo.checked_sub(1).map(|i| origins[i]);
            let after = origins.get(lo).copied();
            match (before, after) {
                (Some(Origin::Literal { site, segment, offset }), _) => {
                    ((site, segment, lo - offset - 1), offset + 1, offset + 1)
                }
                (_, Some(Origin::Literal { site, segment, offset })) => ((site, segment, lo - offset), offset, offset),
                (Some(Origin::Value { site, directive }), _) => ((site, directive + 1, lo), 0, 0),
                (_, Some(Origin::Value { site, directive })) => {
                    let len = sites[site].segments[directive].len();
                    ((site, directive, lo - len), len, len)
                }
                _ => return None,
            }
        };
        found.entry(key).or_default().push((from, to, new));
    }
    Some(found)
}

/// The differing stretches of `a` against `b`: (from, to) in `a` and the bytes of `b` that
/// take their place, along a common subsequence that keeps as many bytes of printed values
/// as it can, then as many bytes in all. A prompt that holds a digit of the expected answer
/// ("Enter 3 numbers:" before `3`) must not take that digit from the value printed later:
/// the difference would then fall into a value, and no text repair would be found.
fn differences(a: &[u8], b: &[u8], is_value: impl Fn(usize) -> bool) -> Vec<(usize, usize, Vec<u8>)> {
    let (n, m) = (a.len(), b.len());
    // A value byte outweighs every literal byte together (`n + 1`; at most 4096 of each, so
    // the sums fit in `u32`).
    let weight = |i: usize| if is_value(i) { n as u32 + 1 } else { 1 };
    // best[i][j]: the heaviest common subsequence of a[i..] and b[j..]. Weights depend on the
    // byte of `a`, so matching two equal bytes is not always best: it is one choice of three.
    let mut best = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let skip = best[i + 1][j].max(best[i][j + 1]);
            best[i][j] = if a[i] == b[j] { skip.max(best[i + 1][j + 1] + weight(i)) } else { skip };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    let mut open: Option<(usize, Vec<u8>)> = None;
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] && best[i][j] == best[i + 1][j + 1] + weight(i) {
            if let Some((from, new)) = open.take() {
                out.push((from, i, new));
            }
            i += 1;
            j += 1;
        } else if j < m && (i == n || best[i][j + 1] >= best[i + 1][j]) {
            open.get_or_insert((i, Vec::new())).1.push(b[j]);
            j += 1;
        } else {
            open.get_or_insert((i, Vec::new()));
            i += 1;
        }
    }
    if let Some((from, new)) = open {
        out.push((from, n, new));
    }
    out
}

/// The new formats as edits of the source: the changed part of each literal, or the whole
/// statement of a print left with nothing to print.
fn edits(src: &str, sites: &[Site], wanted: &BTreeMap<(usize, usize), Vec<u8>>) -> Option<OutputTextRepair> {
    let mut edits = Vec::new();
    let mut places = Vec::new();
    let changed: std::collections::BTreeSet<usize> = wanted.keys().map(|(s, _)| *s).collect();
    for s in changed {
        let site = &sites[s];
        let mut format = Vec::new();
        for (k, seg) in site.segments.iter().enumerate() {
            format.extend(escape(wanted.get(&(s, k)).unwrap_or(seg)));
            if let Some(d) = site.directives.get(k) {
                format.extend(d);
            }
        }
        let old = &src[site.literal.range()];
        let call = &src[site.call.range()];
        if format.is_empty() {
            // The whole statement goes, unless it is the only statement of an `if`, `else` or
            // loop without braces: then only the call, leaving the empty statement `;`.
            let before = src[..site.call.start as usize].trim_end();
            let sole_body = before.ends_with(')') || before.ends_with("else") || before.ends_with("do");
            let span = if sole_body { site.call } else { crate::ir::deletion_span(src, site.call) };
            edits.push(TextEdit { span, new_text: String::new() });
            places.push(Place { span: site.call, change: format!("delete `{call}`") });
            continue;
        }
        let new = format!("\"{}\"", String::from_utf8(format).ok()?);
        // Only the characters that differ, so the edit reads as what changed, one edit per
        // run of them: the directives between stay untouched for another change of the same
        // repair (`%2d::%2d` made `%02d::%02d`, then `::` made `:`). One place per literal.
        let (old_chars, new_chars): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
        let byte_at =
            |k: usize| site.literal.start as usize + old_chars[..k].iter().map(|c| c.len_utf8()).sum::<usize>();
        for (from, to) in differing_runs(&old_chars, &new_chars) {
            edits.push(TextEdit {
                span: Span::new(byte_at(from.start), byte_at(from.end)),
                new_text: new_chars[to].iter().collect(),
            });
        }
        places.push(Place { span: site.literal, change: format!("`{old}` → `{new}`") });
    }
    Some(OutputTextRepair { edits, places })
}

/// The runs where `old` and `new` differ, as ranges of each, in order: the gaps of a longest
/// common subsequence. Past a size where that costs too much, the one run between the common
/// prefix and the common suffix.
fn differing_runs(old: &[char], new: &[char]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (a, b) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    if a.is_empty() && b.is_empty() {
        return Vec::new();
    }
    if a.len() * b.len() > 1 << 16 {
        return vec![(prefix..old.len() - suffix, prefix..new.len() - suffix)];
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut runs = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] && lcs[i][j] == lcs[i + 1][j + 1] + 1 {
            if let Some((oi, oj)) = open.take() {
                runs.push((prefix + oi..prefix + i, prefix + oj..prefix + j));
            }
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            j += 1;
        } else {
            i += 1;
        }
    }
    if let Some((oi, oj)) = open {
        runs.push((prefix + oi..prefix + a.len(), prefix + oj..prefix + b.len()));
    }
    // Runs a character or two apart are one edit, as a person would write it (`/n ` → `\n`,
    // not `/` → `\` and ` ` deleted), unless a directive lies between.
    let mut merged: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    for (o, n) in runs {
        match merged.last_mut() {
            Some((po, pn)) if o.start - po.end < 3 && !old[po.end..o.start].contains(&'%') => {
                po.end = o.end;
                pn.end = n.end;
            }
            _ => merged.push((o, n)),
        }
    }
    merged
}

/// Literal text as it is written inside a C string literal of a format.
fn escape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in text {
        match b {
            b'\n' => out.extend(b"\\n"),
            b'\t' => out.extend(b"\\t"),
            b'\r' => out.extend(b"\\r"),
            b'\\' => out.extend(b"\\\\"),
            b'"' => out.extend(b"\\\""),
            b'%' => out.extend(b"%%"),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_of_differing_text_is_its_own_edit() {
        let runs = |old: &str, new: &str| {
            let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
            differing_runs(&o, &n)
                .into_iter()
                .map(|(a, b)| (o[a].iter().collect::<String>(), n[b].iter().collect::<String>()))
                .collect::<Vec<_>>()
        };
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(runs("%02d::%02d::%02d", "%02d:%02d:%02d"), [s(":", ""), s(":", "")]);
        assert_eq!(runs("%d %d", "%d %d\\n"), [s("", "\\n")]);
        assert_eq!(runs("Sum=%d", "%d\\n"), [s("Sum=", ""), s("", "\\n")]);
        assert_eq!(runs("same", "same"), []);
        assert_eq!(runs("%d/n %d", "%d\\n%d\\n"), [s("/n ", "\\n"), s("", "\\n")]);
    }

    fn fix(src: &str, tests: &[(&str, &str)]) -> Option<String> {
        let program = crate::syntax::lower::lower_source(src).program;
        let tests: Vec<Test> =
            tests.iter().map(|(i, e)| Test { input: i, expected: e, expected_prompt: None }).collect();
        let r = repair(&program, src, "main", &tests, Compare::Exact, &Limits::default(), &Cancel::new())?;
        Some(apply_edits(src, &r.edits))
    }

    #[test]
    fn a_missing_newline_a_prompt_and_a_stray_space() {
        let src = "#include <stdio.h>\nint main(void) {\n    int a, b;\n    printf(\"Two numbers: \");\n    scanf(\"%d %d\", &a, &b);\n    if (a > b)\n        printf(\"%d\", a);\n    else\n        printf(\"%d \", b);\n    return 0;\n}\n";
        let fixed = fix(src, &[("1 2", "2\n"), ("5 3", "5\n")]).expect("a repair");
        assert!(fixed.contains("printf(\"%d\\n\", a);"), "{fixed}");
        assert!(fixed.contains("printf(\"%d\\n\", b);"), "{fixed}");
        assert!(!fixed.contains("Two numbers"), "{fixed}");
    }

    #[test]
    fn a_prompt_holding_the_answer_s_characters_is_deleted_whole() {
        // "3 numbers" holds the `3` the test expects and the label holds an `e`: a plain
        // longest common subsequence takes them from the prompts and leaves the printed value
        // unmatched, so no text repair was found.
        let src = "#include <stdio.h>\nint main(void) {\n    int a, b, c;\n    printf(\"Enter 3 numbers:\\n\");\n    scanf(\"%d %d %d\", &a, &b, &c);\n    printf(\"The sum is:\\n\");\n    printf(\"%d\\n\", a + b + c);\n    return 0;\n}\n";
        let fixed = fix(src, &[("1 1 1", "3\n"), ("2 3 4", "9\n")]).expect("a repair");
        assert!(!fixed.contains("Enter") && !fixed.contains("sum is"), "{fixed}");
        assert!(fixed.contains("printf(\"%d\\n\", a + b + c);"), "{fixed}");
    }

    #[test]
    fn text_in_a_loop_changes_only_when_every_iteration_agrees() {
        // The separator after the last value is not the others' separator: no literal change
        // of the loop's format fixes that.
        let src = "#include <stdio.h>\nint main(void) {\n    int i;\n    for (i = 1; i <= 3; i++)\n        printf(\"%d \", i);\n    return 0;\n}\n";
        assert_eq!(fix(src, &[("", "1 2 3\n")]), None);
        // Every iteration wants the same: a comma.
        assert!(fix(src, &[("", "1,2,3,")]).expect("a repair").contains("printf(\"%d,\", i)"));
    }

    #[test]
    fn a_print_that_is_a_branch_leaves_an_empty_statement() {
        let src = "#include <stdio.h>\nint main(void) {\n    int a;\n    scanf(\"%d\", &a);\n    if (a > 0)\n        printf(\"positive: \");\n    printf(\"%d\\n\", a);\n    return 0;\n}\n";
        let fixed = fix(src, &[("3", "3\n"), ("-1", "-1\n")]).expect("a repair");
        assert!(fixed.contains("if (a > 0)\n        ;\n"), "{fixed}");
    }

    #[test]
    fn an_ending_no_format_can_print_is_a_new_print() {
        // The characters come from `putchar` in a loop: no format's text can take the `\n`.
        let src = "#include <stdio.h>\nint main(void) {\n    int c;\n    while ((c = getchar()) != EOF && c != '\\n')\n        putchar(c);\n    return 0;\n}\n";
        let fixed = fix(src, &[("ab\n", "ab\n"), ("x", "x\n")]).expect("a repair");
        assert!(fixed.contains("        putchar(c);\n    printf(\"\\n\");\n    return 0;\n"), "{fixed}");
        // Falling off the end of `main`.
        let src = "#include <stdio.h>\nint main(void) {\n    putchar('a');\n}\n";
        assert!(fix(src, &[("", "a\n")]).expect("a repair").contains("    putchar('a');\n    printf(\"\\n\");\n}"));
        // A missing word is not text the program forgot.
        assert_eq!(fix(src, &[("", "a yes")]), None);
        // Two tests that want different endings.
        let src = "#include <stdio.h>\nint main(void) {\n    int c = getchar();\n    putchar(c);\n    return 0;\n}\n";
        assert_eq!(fix(src, &[("a", "a\n"), ("b", "b.")]), None);
    }

    #[test]
    fn values_are_not_literal_text() {
        let src = "#include <stdio.h>\nint main(void) {\n    printf(\"%d\\n\", 41);\n    return 0;\n}\n";
        assert_eq!(fix(src, &[("", "42\n")]), None);
    }
}
