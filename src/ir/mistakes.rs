//! How common a mistake is, learned from real students: the frequency of each kind of small
//! edit students made to get a rejected program to compile (`mistakes.tsv`, learned by
//! `mend bench mistakes` from C-Pack-IPAs' rejected submissions and the same students' next
//! submissions). The fixes of one error are ranked by the size of their edit plus how rare
//! that kind of edit is (`rank_fixes`). The typed engine's candidates are not reranked by it:
//! their costs know types and data flow, and a frequency tie-break among them promoted
//! `putchar(total)` for `printf(total)` (a common kind of rename that prints the wrong thing).
//!
//! A kind of edit is a change of tokens with names, numbers and literals abstracted:
//! `scanf("%d", n)` → `scanf("%d", &n)` is `· → &`, `if (a = b)` → `if (a == b)` is `= → ==`,
//! `pritnf` → `printf` is `x → x`. Keywords, type names and punctuation stay as written.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::token_edit::{Change, changes};
use super::{Repair, Span};

/// The learned table: one line per kind of edit, `count<TAB>removed<TAB>inserted`.
const TABLE: &str = include_str!("mistakes.tsv");

/// At most this many tokens on either side of a change for it to count as one mistake's fix
/// (a longer change is a rewrite, not a slip).
pub const MAX_CHANGE_TOKENS: usize = 4;

/// A next submission changed in more places than this is a new attempt, not a fix: it teaches
/// nothing about the kind of the fix.
pub const MAX_CHANGES: usize = 8;

/// The cost of a kind of edit never seen in the data, in halvings of frequency below the most
/// common kind (a kind seen half as often as the commonest costs 1). Bounds what the table can
/// weigh against the size of an edit: a rare kind of fix still wins by being much smaller.
pub const UNSEEN: u32 = 6;

/// Names C gives a meaning to, kept as written in a kind of edit (`Int → int` is its own kind).
const KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float",
    "for", "goto", "if", "int", "long", "register", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "include", "define", "main",
];

/// A token as a kind of edit sees it.
fn class(token: &str) -> &str {
    let first = token.as_bytes()[0];
    if first == b'"' {
        "\"…\""
    } else if first == b'\'' {
        "'…'"
    } else if first.is_ascii_digit() || (first == b'.' && token.len() > 1) {
        "0"
    } else if first.is_ascii_alphabetic() || first == b'_' {
        if KEYWORDS.contains(&token) { token } else { "x" }
    } else {
        token
    }
}

/// One side of a kind of edit: its tokens' classes, `·` for none.
fn side(tokens: &[&str]) -> String {
    if tokens.is_empty() { "·".to_string() } else { tokens.iter().map(|t| class(t)).collect::<Vec<_>>().join(" ") }
}

/// The kind of edit of one change; `None` when it is longer than `MAX_CHANGE_TOKENS` tokens.
pub fn kind(c: &Change) -> Option<(String, String)> {
    (c.removed.len() <= MAX_CHANGE_TOKENS && c.inserted.len() <= MAX_CHANGE_TOKENS)
        .then(|| (side(&c.removed), side(&c.inserted)))
}

/// The kinds of edit turning `old` into `new`, one per stretch of changed tokens, as
/// (removed, inserted); `None` when a stretch is longer than `MAX_CHANGE_TOKENS`.
pub fn kinds(old: &str, new: &str) -> Option<Vec<(String, String)>> {
    changes(old, new).iter().map(kind).collect()
}

/// A kind of edit: the classes of the tokens removed and inserted.
pub type Kind = (String, String);

/// The learned counts, and the largest.
fn table() -> &'static (HashMap<Kind, u32>, u32) {
    static TABLE_COUNTS: OnceLock<(HashMap<Kind, u32>, u32)> = OnceLock::new();
    TABLE_COUNTS.get_or_init(|| {
        let counts: HashMap<Kind, u32> = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let mut f = l.split('\t');
                let count = f.next()?.parse().ok()?;
                Some(((f.next()?.to_string(), f.next()?.to_string()), count))
            })
            .collect();
        let top = counts.values().copied().max().unwrap_or(1);
        (counts, top)
    })
}

/// How rare a kind of edit is: 0 for the most common, one more per halving of its count,
/// `UNSEEN` at most.
pub fn rarity(kind: &(String, String)) -> u32 {
    let (counts, top) = table();
    match counts.get(kind) {
        Some(&n) if n > 0 => ((f64::from(*top) / f64::from(n)).log2().round() as u32).min(UNSEEN),
        _ => UNSEEN,
    }
}

/// The rank of a fix of `text`: the tokens it changes plus how rare each of its kinds of edit
/// is (lower is better).
pub fn fix_cost(text: &str, repair: &Repair) -> u32 {
    let fixed = super::apply_edits(text, &repair.edits);
    changes(text, &fixed)
        .iter()
        .map(|c| (c.removed.len() + c.inserted.len()) as u32 + kind(c).map_or(UNSEEN, |k| rarity(&k)))
        .sum()
}

/// Orders the fixes of each error of `text` (the repairs sharing a primary span) best first by
/// [`fix_cost`], in the slots they had. The typed engine's candidates stay in their order and
/// move as one block at the cost of its first: its cost model ranks them. Ties keep their order.
pub fn rank_fixes(text: &str, repairs: &mut [Repair]) {
    let mut groups: HashMap<Span, Vec<usize>> = HashMap::new();
    for (i, r) in repairs.iter().enumerate() {
        groups.entry(r.primary()).or_default().push(i);
    }
    for slots in groups.into_values().filter(|g| g.len() > 1) {
        let first_typed = slots.iter().copied().find(|&i| repairs[i].engine == TYPED);
        let block = first_typed.map(|i| fix_cost(text, &repairs[i]));
        let key = |i: usize| match (repairs[i].engine == TYPED, block, first_typed) {
            (true, Some(cost), Some(first)) => (cost, first, i),
            _ => (fix_cost(text, &repairs[i]), i, i),
        };
        let mut order: Vec<(u32, usize, usize)> = slots.iter().map(|&i| key(i)).collect();
        order.sort();
        let ranked: Vec<Repair> = order.iter().map(|&(_, _, i)| repairs[i].clone()).collect();
        for (&slot, r) in slots.iter().zip(ranked) {
            repairs[slot] = r;
        }
    }
}

/// The engine name of the typed engine's repairs.
const TYPED: &str = "typed";

/// The table learned from rejected programs, each with the lines its compiler reported and
/// the same student's next submission: the kinds of edit of the small changes on or next to a
/// reported line, in pairs changed in at most `MAX_CHANGES` places (a next attempt, not a new
/// program), counted, commonest first. The format of `mistakes.tsv`.
pub fn learn<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a [usize], &'a str)>) -> String {
    let mut counts: HashMap<(String, String), u32> = HashMap::new();
    let (mut pairs_seen, mut pairs_used) = (0, 0);
    for (rejected, lines, next) in pairs {
        pairs_seen += 1;
        let changed = changes(rejected, next);
        let line_of = |at: usize| rejected[..at].matches('\n').count() + 1;
        let reported = |c: &Change| lines.iter().any(|&l| line_of(c.at).abs_diff(l) <= 1);
        if changed.len() > MAX_CHANGES {
            continue;
        }
        let kinds: Vec<(String, String)> = changed.iter().filter(|c| reported(c)).filter_map(kind).collect();
        pairs_used += usize::from(!kinds.is_empty());
        for k in kinds {
            *counts.entry(k).or_default() += 1;
        }
    }
    let mut rows: Vec<((String, String), u32)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut out = format!(
        "# mend bench mistakes: kinds of edit that made a rejected program compile, learned from\n\
         # {pairs_used} of {pairs_seen} (rejected, next submission) pairs: the changes of at most {MAX_CHANGE_TOKENS} tokens\n\
         # on or next to a line the compiler reported, in pairs changed in at most {MAX_CHANGES} places.\n\
         # count\tremoved\tinserted ('·': nothing; x: a name, 0: a number, \"…\" a string)\n"
    );
    for ((removed, inserted), n) in rows {
        out.push_str(&format!("{n}\t{removed}\t{inserted}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_abstract_names_and_literals() {
        let k = |a: &str, b: &str| kinds(a, b).unwrap();
        assert_eq!(k("scanf(\"%d\", n);", "scanf(\"%d\", &n);"), vec![("·".into(), "&".into())]);
        assert_eq!(k("if (a = b) x();", "if (a == b) x();"), vec![("=".into(), "==".into())]);
        assert_eq!(k("pritnf(\"a\");", "printf(\"a\");"), vec![("x".into(), "x".into())]);
        assert_eq!(k("Int x;", "int x;"), vec![("x".into(), "int".into())]);
        assert_eq!(k("x = 1\ny = 2;", "x = 1;\ny = 2;"), vec![("·".into(), ";".into())]);
        assert!(kinds("a;", "b c d e f;").is_none());
    }

    #[test]
    fn the_learned_table_ranks_common_slips_first() {
        // A forgotten `&` is among the commonest fixes of the course's rejected programs.
        let missing_address = rarity(&("·".into(), "&".into()));
        assert!(missing_address <= 2, "{missing_address}");
        assert!(missing_address < rarity(&("·".into(), ", x".into())));
        assert_eq!(rarity(&("sizeof".into(), "goto".into())), UNSEEN);
    }

    #[test]
    fn fixes_of_one_error_are_ranked_by_size_and_commonness() {
        let text = "int main(void) { int n; scanf(\"%d\", n); return 0; }";
        let at = text.find(" n)").unwrap() + 1;
        let fix = |engine: &'static str, edits: Vec<crate::ir::TextEdit>| Repair {
            title: String::new(),
            engine,
            guarantee: crate::ir::Guarantee::WellTyped,
            edits,
            places: Vec::new(),
            explanation: String::new(),
            details: String::new(),
            fixes: vec![Span::new(at, at + 1)],
            reached: Vec::new(),
        };
        let edit = |s: usize, e: usize, t: &str| crate::ir::TextEdit { span: Span::new(s, e), new_text: t.into() };
        // A long rewrite from one source, `&` from another, then two typed candidates.
        let mut fixes = vec![
            fix("frontend", vec![edit(at, at + 1, "n + 1 + 2 + 3")]),
            fix("typed", vec![edit(at, at, "&")]),
            fix("typed", vec![edit(at, at + 1, "&n, &n")]),
        ];
        rank_fixes(text, &mut fixes);
        let order: Vec<&str> = fixes.iter().map(|r| r.edits[0].new_text.as_str()).collect();
        assert_eq!(order, ["&", "&n, &n", "n + 1 + 2 + 3"]);
    }
}
