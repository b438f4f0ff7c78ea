//! The accuracy benchmark: every well-typed call and assignment of real programs, broken with
//! one of the error kinds the engine repairs, then repaired; the rank of the original
//! expression among the suggestions is recorded. Generation is deterministic (no sampling
//! inside a file); `mend bench typed` prints the figures and a test keeps a floor.

use std::collections::HashSet;
use std::time::Instant;

use tree_sitter::Node;

use crate::engines::typed::repair::squash;
use crate::engines::typed::{GraphStats, REPAIRED_CODES, complete_with, minimal_edits, suggest_with};
use crate::ir::{Severity, Span, apply_edits};
use crate::syntax::lower;

pub const KINDS: &[&str] =
    &["drop-arg", "extra-arg", "swap-args", "remove-&", "add-&", "undeclared", "field", "format"];

/// One broken program.
pub struct Case {
    pub kind: &'static str,
    /// The broken text.
    pub text: String,
    /// The diagnostic the repair answers (in the broken text).
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct KindResult {
    pub cases: usize,
    pub top1: usize,
    pub top3: usize,
    /// The top repair gives back the student's text byte for byte (their spacing kept).
    pub top1_exact: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Results {
    pub per_kind: Vec<(&'static str, KindResult)>,
    /// Mutants the front end did not report (C accepts them): not cases.
    pub undetected: usize,
    pub repair_ms: Vec<f64>,
    pub completion_ms: Vec<f64>,
    pub build_ms: Vec<f64>,
    pub graph: GraphStats,
    /// Completions at argument positions whose list holds the original argument in the
    /// first 1 / 3 / 10.
    pub completion_cases: usize,
    pub completion_top1: usize,
    pub completion_top3: usize,
    pub completion_top10: usize,
}

impl Results {
    pub fn total(&self) -> KindResult {
        let mut t = KindResult::default();
        for (_, r) in &self.per_kind {
            t.cases += r.cases;
            t.top1 += r.top1;
            t.top3 += r.top3;
            t.top1_exact += r.top1_exact;
        }
        t
    }
}

/// Identifiers of a file (to make names that are surely undeclared).
fn identifiers(src: &str) -> HashSet<String> {
    src.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A near miss of `name` that is not an identifier of the file: two letters swapped, one
/// dropped or one doubled. It is a name too (`d1` swapped is `1d`, a malformed number, not
/// an undeclared name), and no keyword.
fn near_miss(name: &str, taken: &HashSet<String>) -> Option<String> {
    const KEYWORDS: &[&str] = &[
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    ];
    let is_name =
        |t: &str| t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && !KEYWORDS.contains(&t);
    let c: Vec<char> = name.chars().collect();
    let mut tries = Vec::new();
    if c.len() >= 2 {
        let mut s = c.clone();
        let n = s.len();
        s.swap(n - 1, n - 2);
        tries.push(s.into_iter().collect::<String>());
    }
    if c.len() >= 3 {
        let mut s = c.clone();
        s.remove(c.len() / 2);
        tries.push(s.into_iter().collect());
    }
    let mut s = c.clone();
    s.push(*c.last()?);
    tries.push(s.into_iter().collect());
    tries.into_iter().find(|t| t != name && !taken.contains(t) && is_name(t))
}

fn args_of(call: Node) -> Vec<Node> {
    let Some(list) = call.child_by_field_name("arguments") else { return Vec::new() };
    let mut c = list.walk();
    list.named_children(&mut c).filter(|n| n.kind() != "comment").collect()
}

type Mutant = (&'static str, Vec<(Span, String)>, Span);

/// The broken variants of one file (empty when the file has type errors of its own).
pub fn cases_of(src: &str) -> Vec<Case> {
    let tree = crate::syntax::parse(src, None);
    if tree.root_node().has_error() {
        return Vec::new();
    }
    let lowered = lower::lower(&tree, src);
    if lowered.diagnostics.iter().any(|d| REPAIRED_CODES.contains(&d.code) || d.severity == Severity::Error) {
        return Vec::new();
    }
    let taken = identifiers(src);
    // (kind, replacements, the site: the call or assignment broken)
    let mut edits: Vec<Mutant> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
        let site = Span::new(n.start_byte(), n.end_byte());
        let text = |x: Node| src[x.byte_range()].to_string();
        let span = |x: Node| Span::new(x.start_byte(), x.end_byte());
        match n.kind() {
            "call_expression" => {
                let Some(f) = n.child_by_field_name("function") else { continue };
                if f.kind() != "identifier" {
                    continue;
                }
                let name = text(f);
                let fmt_index = crate::engines::typed::term::format_call(&name).map(|(i, _)| i);
                let args = args_of(n);
                for (i, a) in args.iter().enumerate() {
                    if Some(i) == fmt_index {
                        continue;
                    }
                    // Drop the argument with the comma before it (or after it, for the first).
                    let cut = if i > 0 {
                        Span::new(args[i - 1].end_byte(), a.end_byte())
                    } else if args.len() > 1 {
                        Span::new(a.start_byte(), args[1].start_byte())
                    } else {
                        span(*a)
                    };
                    edits.push(("drop-arg", vec![(cut, String::new())], site));
                    if a.kind() == "pointer_expression" && a.child(0).is_some_and(|o| o.kind() == "&") {
                        let inner = a.child_by_field_name("argument").map(text).unwrap_or_default();
                        edits.push(("remove-&", vec![(span(*a), inner)], site));
                    }
                    if a.kind() == "identifier" {
                        edits.push(("add-&", vec![(span(*a), format!("&{}", text(*a)))], site));
                    }
                }
                if let Some(last) = args.last()
                    && Some(args.len() - 1) != fmt_index
                {
                    edits.push((
                        "extra-arg",
                        vec![(Span::new(last.end_byte(), last.end_byte()), format!(", {}", text(*last)))],
                        site,
                    ));
                }
                for i in 0..args.len() {
                    for j in i + 1..args.len() {
                        if Some(i) == fmt_index || Some(j) == fmt_index || text(args[i]) == text(args[j]) {
                            continue;
                        }
                        edits.push((
                            "swap-args",
                            vec![(span(args[i]), text(args[j])), (span(args[j]), text(args[i]))],
                            site,
                        ));
                    }
                }
                // A directive of the format that disagrees with its argument.
                if let Some(fi) = fmt_index
                    && !name.contains("scanf")
                    && let Some(lit) = args.get(fi)
                    && lit.kind() == "string_literal"
                {
                    let lit_text = text(*lit);
                    for k in 0..args.len().saturating_sub(fi + 1) {
                        let conv = crate::engines::typed::repair::directive_conv(&lit_text, k);
                        let to = match conv.as_deref() {
                            Some("d") | Some("i") => "f",
                            Some("f") | Some("lf") => "d",
                            _ => continue,
                        };
                        if let Some(new) = crate::engines::typed::repair::rewrite_directive(&lit_text, k, to) {
                            edits.push(("format", vec![(span(*lit), new)], site));
                        }
                    }
                }
            }
            "identifier" => {
                // A variable used in a call's arguments or an assignment's right side.
                let mut p = n.parent();
                let mut inside = None;
                while let Some(x) = p {
                    match x.kind() {
                        "argument_list" => {
                            inside = x.parent();
                            break;
                        }
                        "assignment_expression" => {
                            if x.child_by_field_name("right").is_some_and(|r| r.start_byte() <= n.start_byte()) {
                                inside = Some(x);
                            }
                            break;
                        }
                        k if k.ends_with("statement") || k.ends_with("declaration") || k == "init_declarator" => break,
                        _ => p = x.parent(),
                    }
                }
                let Some(site_node) = inside else { continue };
                if n.parent().is_some_and(|x| x.kind() == "call_expression") {
                    continue; // a callee, not a variable
                }
                let name = text(n);
                if let Some(miss) = near_miss(&name, &taken) {
                    edits.push(("undeclared", vec![(span(n), miss)], span(site_node)));
                }
            }
            "field_identifier" => {
                if let Some(miss) = near_miss(&text(n), &taken) {
                    edits.push(("field", vec![(span(n), miss)], site));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (kind, change, site) in edits {
        let list: Vec<crate::ir::TextEdit> =
            change.into_iter().map(|(span, new_text)| crate::ir::TextEdit { span, new_text }).collect();
        let broken = apply_edits(src, &list);
        // Where the site is in the broken text: its start is unchanged, its end moved by the
        // edits' length change.
        let delta: i64 = list.iter().map(|e| e.new_text.len() as i64 - e.span.len() as i64).sum();
        let site_b = Span::new(site.start as usize, (site.end as i64 + delta).max(site.start as i64) as usize);
        let low = lower::lower_source(&broken);
        let Some(d) = low.diagnostics.iter().find(|d| REPAIRED_CODES.contains(&d.code) && d.span.touches(site_b))
        else {
            out.push(Case { kind, text: String::new(), span: Span::default() });
            continue;
        };
        out.push(Case { kind, text: broken, span: d.span });
    }
    out
}

/// Runs the repair (`n` suggestions) on every case of every file; `all_headers` puts the
/// whole library table in each graph.
pub fn evaluate(files: &[String], n: usize, all_headers: bool) -> Results {
    let mut r = Results { per_kind: KINDS.iter().map(|k| (*k, KindResult::default())).collect(), ..Default::default() };
    for src in files {
        let original = squash(src);
        for case in cases_of(src) {
            if case.text.is_empty() {
                r.undetected += 1;
                continue;
            }
            let tree = crate::syntax::parse(&case.text, None);
            let program = lower::lower(&tree, &case.text).program;
            let started = Instant::now();
            let (sugs, stats) = suggest_with(&program, &tree, &case.text, case.span, n, all_headers);
            r.repair_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            if stats.nodes > 0 {
                r.build_ms.push(stats.build_ms);
                r.graph = r.graph.max_by_nodes(stats);
            }
            let repaired: Vec<String> = sugs
                .iter()
                .map(|s| apply_edits(&case.text, &minimal_edits(&case.text, s.span, &s.replacement)))
                .collect();
            let rank = repaired.iter().position(|t| squash(t) == original);
            if rank != Some(0) && std::env::var("MEND_TYPED_BENCH_VERBOSE").is_ok() {
                let line_start = case.text[..case.span.start as usize].rfind('\n').map(|i| i + 1).unwrap_or(0);
                let line_end = case.text[case.span.start as usize..]
                    .find('\n')
                    .map(|i| i + case.span.start as usize)
                    .unwrap_or(case.text.len());
                let shown: Vec<String> = sugs.iter().map(|s| format!("{} ({})", s.replacement, s.cost)).collect();
                let line_no = case.text[..line_start].matches('\n').count();
                let was = src.lines().nth(line_no).unwrap_or("").trim();
                eprintln!(
                    "[{}] rank {:?}: `{}` (was `{}`) -> {}",
                    case.kind,
                    rank,
                    case.text[line_start..line_end].trim(),
                    was,
                    shown.join(" | ")
                );
            }
            let k = &mut r.per_kind.iter_mut().find(|(k, _)| *k == case.kind).expect("known kind").1;
            k.cases += 1;
            k.top1 += usize::from(rank == Some(0));
            k.top1_exact += usize::from(repaired.first().is_some_and(|t| t == src));
            k.top3 += usize::from(rank.is_some_and(|x| x < 3));
        }
        completion_cases(src, all_headers, &mut r);
    }
    r
}

/// Completion at the start of every argument of every call (the text after the cursor
/// left as it is): latency, and whether the argument is among the items.
fn completion_cases(src: &str, all_headers: bool, r: &mut Results) {
    let tree = crate::syntax::parse(src, None);
    if tree.root_node().has_error() {
        return;
    }
    let program = lower::lower(&tree, src).program;
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
        if n.kind() != "call_expression" {
            continue;
        }
        for a in args_of(n) {
            if matches!(a.kind(), "string_literal" | "concatenated_string") {
                continue;
            }
            let started = Instant::now();
            let (items, stats) = complete_with(&program, src, a.start_byte(), 10, all_headers);
            r.completion_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            if stats.nodes == 0 {
                continue;
            }
            let want = squash(&src[a.byte_range()]);
            let rank = items.iter().position(|i| squash(&i.text) == want);
            r.completion_cases += 1;
            r.completion_top1 += usize::from(rank == Some(0));
            r.completion_top3 += usize::from(rank.is_some_and(|x| x < 3));
            r.completion_top10 += usize::from(rank.is_some());
        }
    }
}

impl GraphStats {
    fn max_by_nodes(self, other: GraphStats) -> GraphStats {
        if other.nodes > self.nodes { other } else { self }
    }
}
