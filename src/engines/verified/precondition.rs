//! An input precondition inferred from the tests, for assignments whose statement promises
//! more about the input than its types say ("enter thresholds for A, B, C, D in that order,
//! decreasing percentages"). Students rely on such promises (independent `if`s, `>` where the
//! reference has `>=` between thresholds), and their programs then differ from the reference
//! only on inputs the assignment rules out: verification for all inputs finds a
//! counterexample there, and no minimal repair of expressions exists.
//!
//! The facts are orderings between the numbers read at two input positions (`a > b`, `a >= b`;
//! for integers also that both fit in an `int`), kept when every test input satisfies them (a
//! Daikon-style conjecture over the test inputs, restricted to one template so it cannot
//! describe the tests one by one). The verified engine's answer uses them only when it finds
//! no repair for all inputs (the attempt under them runs beside, from 2 s on, so its
//! candidates reach the tests early), and a repair found under them says so: "verified for
//! inputs where aval > bval > cval > dval, as in all 18 tests". The guarantee is a proof under
//! that assumption, nothing about other inputs.

use crate::ir::{Builtin, Callee, Expr, ExprKind, FuncId, LogicOp, Program, Stmt, StmtKind, Type, VarId};

/// `left > right` (`>=` unless `strict`) between the numbers read at two token positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFact {
    pub left: usize,
    pub right: usize,
    pub strict: bool,
}

/// The facts, the conversion each position is read with, and the facts in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    pub facts: Vec<InputFact>,
    /// The reference prints no `nan`: on such inputs the sign C prints for a NaN (`nan` or
    /// `-nan`) depends on how the machine computed it, which the solver's floats (one NaN, no
    /// sign) do not say, so no proof can equate two printed NaNs. A float sum of huge numbers
    /// reaches one (`inf - inf`), which without this promise keeps every program that prints
    /// a sum or a mean from a proof.
    pub no_nan: bool,
    /// The reference's conversion at each token position (`d`, `f`, ...; `*` for a
    /// suppressed or non-numeric read).
    pub convs: Vec<char>,
    /// "aval > bval > cval > dval, as in all 18 tests".
    pub description: String,
    /// How many tests the facts were read from.
    pub tests: usize,
}

/// Fewer tests than this are too few to conjecture anything from.
const MIN_TESTS: usize = 3;

/// A conjecture in words: its conditions and where they come from, "the number read is at
/// least 2 and no number is `-0` (minus zero), as in all 3 tests". Every label that assumes
/// something of the input ends this way.
pub fn as_in_all_tests(conditions: &[String], tests: usize) -> String {
    format!("{}, as in all {tests} tests", conditions.join(" and "))
}

/// The orderings between the numbers the reference's `entry` reads that every test input
/// satisfies, transitively reduced (none when the reference does not read only numbers with
/// top-level `scanf` statements), and whether the reference prints no `nan` where it prints
/// floating-point values and none of its `outputs` on the tests holds one; `None` when that
/// says nothing, or when there are too few tests.
pub fn infer(inputs: &[String], outputs: &[String], reference: &Program, entry: &str) -> Option<Precondition> {
    if inputs.len() < MIN_TESTS {
        return None;
    }
    let f = reference.func_by_name(entry)?;
    let no_nan = outputs.len() == inputs.len()
        && prints_floats(reference)
        && !outputs.iter().any(|o| crate::spec::compare::prints_nan(o));
    let (facts, reads) =
        token_reads(reference, f).map_or_else(|| (Vec::new(), Vec::new()), |reads| (orderings(inputs, &reads), reads));
    if facts.is_empty() && !no_nan {
        return None;
    }
    let names: Vec<&str> = reads.iter().map(|(_, n)| n.as_str()).collect();
    let mut parts = Vec::new();
    if !facts.is_empty() {
        parts.push(describe(&facts, &names));
    }
    if no_nan {
        parts.push("the reference prints no `nan` (not a number)".to_string());
    }
    let description = as_in_all_tests(&parts, inputs.len());
    Some(Precondition { facts, no_nan, convs: reads.iter().map(|r| r.0).collect(), description, tests: inputs.len() })
}

/// Whether some `printf` of the program prints a floating-point conversion.
fn prints_floats(p: &Program) -> bool {
    use crate::ir::format::{self as cfmt, Piece};
    use crate::ir::{Builtin, Callee};
    let mut found = false;
    for f in &p.funcs {
        let Some(body) = &f.body else { continue };
        crate::ir::walk::walk_stmt(body, &mut |e| {
            if let ExprKind::Call(Callee::Builtin(Builtin::Printf), args) = &e.kind
                && let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind)
                && let Ok(pieces) = cfmt::parse(fmt, false)
            {
                found |= pieces.iter().any(|p| matches!(p, Piece::Directive(d) if "feEgGaA".contains(d.conv)));
            }
        });
    }
    found
}

/// The orderings between the numbers read at two positions that every test input satisfies.
fn orderings(inputs: &[String], reads: &[(char, String)]) -> Vec<InputFact> {
    let values: Option<Vec<Vec<f64>>> = inputs
        .iter()
        .map(|text| {
            text.split_ascii_whitespace().take(reads.len()).map(|t| t.parse::<f64>().ok()).collect::<Option<Vec<f64>>>()
        })
        .collect::<Option<Vec<_>>>();
    let Some(values) = values.filter(|vs| vs.iter().all(|v| v.len() >= reads.len())) else { return Vec::new() };
    // An integer position's facts also say its number fits in an `int` (see
    // `World::token_order`), so every test's must.
    let fits_int = |k: usize| {
        inputs.iter().all(|text| text.split_ascii_whitespace().nth(k).is_some_and(|t| t.parse::<i32>().is_ok()))
    };
    let numeric: Vec<usize> =
        (0..reads.len()).filter(|&k| reads[k].0 != '*' && (kind(reads[k].0) != 'i' || fits_int(k))).collect();
    let mut facts = Vec::new();
    for (a, &i) in numeric.iter().enumerate() {
        for &j in &numeric[a + 1..] {
            if kind(reads[i].0) != kind(reads[j].0) {
                continue;
            }
            let all = |p: &dyn Fn(f64, f64) -> bool| values.iter().all(|v| p(v[i], v[j]));
            // A pair equal in every test says nothing about its order.
            if all(&|x, y| x == y) {
                continue;
            }
            let fact = if all(&|x, y| x > y) {
                InputFact { left: i, right: j, strict: true }
            } else if all(&|x, y| x < y) {
                InputFact { left: j, right: i, strict: true }
            } else if all(&|x, y| x >= y) {
                InputFact { left: i, right: j, strict: false }
            } else if all(&|x, y| x <= y) {
                InputFact { left: j, right: i, strict: false }
            } else {
                continue;
            };
            facts.push(fact);
        }
    }
    reduce(facts)
}

impl Precondition {
    /// The promise that the reference prints no `nan` alone, in words, when it is made: the
    /// assumption of a proof that relies on nothing else.
    pub fn no_nan_words(&self) -> Option<String> {
        self.no_nan.then(|| as_in_all_tests(&["the reference prints no `nan` (not a number)".to_string()], self.tests))
    }

    /// Whether the input `text` satisfies every fact: the numbers at both positions are there,
    /// an integer's fits in an `int`, and they are in the stated order. (Whether the reference
    /// prints a `nan` on it is not a property of the text; such an input is admitted, so a
    /// counterexample there is shown rather than left out.)
    pub fn admits(&self, text: &str) -> bool {
        let tokens: Vec<&str> = text.split_ascii_whitespace().collect();
        let number = |k: usize| -> Option<f64> {
            let token = tokens.get(k)?;
            match kind(*self.convs.get(k)?) {
                'i' => token.parse::<i32>().ok().map(f64::from),
                _ => token.parse::<f64>().ok(),
            }
        };
        self.facts.iter().all(|f| match (number(f.left), number(f.right)) {
            (Some(l), Some(r)) => {
                if f.strict {
                    l > r
                } else {
                    l >= r
                }
            }
            _ => false,
        })
    }
}

fn kind(conv: char) -> char {
    if matches!(conv, 'd' | 'i' | 'u') { 'i' } else { 'f' }
}

/// Drops a fact implied by two others through a middle position (`a > c` from `a > b`,
/// `b > c`), so the description is the chain the assignment states.
fn reduce(facts: Vec<InputFact>) -> Vec<InputFact> {
    let find = |l: usize, r: usize| facts.iter().find(|f| f.left == l && f.right == r);
    facts
        .iter()
        .filter(|f| {
            !facts.iter().any(|g| {
                g.left == f.left
                    && g.right != f.right
                    && find(g.right, f.right).is_some_and(|h| !f.strict || g.strict || h.strict)
            })
        })
        .cloned()
        .collect()
}

/// The facts in words, chained where one's right is the next one's left: `a > b >= c, d > e`.
fn describe(facts: &[InputFact], names: &[&str]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut last: Option<usize> = None;
    for f in facts {
        let op = if f.strict { ">" } else { ">=" };
        match (last, parts.last_mut()) {
            (Some(l), Some(part)) if l == f.left => part.push_str(&format!(" {op} {}", names[f.right])),
            _ => parts.push(format!("{} {op} {}", names[f.left], names[f.right])),
        }
        last = Some(f.right);
    }
    parts.join(", ")
}

/// Every token position the function's top-level `scanf` statements read, in order: the
/// conversion and the variable's name for a number read, `('*', "")` for anything else. `None`
/// when a read is not a top-level `scanf(...);` statement (then positions depend on the path).
fn token_reads(p: &Program, f: FuncId) -> Option<Vec<(char, String)>> {
    let directives = super::top_level_scanf_directives(p, f)?;
    let reads = directives.iter().map(|d| match read_var(d) {
        Some(v) if matches!(d.conv, 'd' | 'i' | 'u' | 'f' | 'e' | 'g' | 'F' | 'E' | 'G') => {
            (d.conv, p.var(v).name.clone())
        }
        _ => ('*', String::new()),
    });
    Some(reads.collect())
}

/// The variable `x` a directive reads into with `&x`.
fn read_var(d: &super::ScanfDirective<'_>) -> Option<VarId> {
    d.target.and_then(super::facts::address_of_var)
}

/// The second template: a range for each integer the reference reads, narrowed only as far as
/// a counterexample needs. Assignments promise ranges ("N must be at least 2") that students
/// check (`if (N < 2) return 1;`) and references often do not; a fix that passes every test is
/// then refuted at `N = 1`, an input no test has. [`RangeConjecture::exclude`] answers such a
/// counterexample with the weakest bound that rules it out, and only where the counterexample's
/// number lies outside every test's (below their least, above their greatest): a bound never
/// excludes a test, and a counterexample within the tests' ranges stands. A proof with the
/// reference restricted to the bounds ([`RangeConjecture::assumed`]) says so in its label:
/// "the number read is at least 2, as in all 3 tests".
#[derive(Clone, Debug)]
pub struct RangeConjecture {
    /// Per token position of the reference's top-level reads: the `int` variable it reads, the
    /// least and the greatest number the tests give there.
    slots: Vec<Option<(VarId, i64, i64)>>,
    /// The bounds so far, per position.
    bounds: Vec<(Option<i64>, Option<i64>)>,
    tests: usize,
}

impl RangeConjecture {
    /// `None` when the reference's `entry` does not begin its reads with top-level `scanf`
    /// statements that read an `int`, or there are too few tests.
    pub fn new(reference: &Program, entry: &str, inputs: &[String]) -> Option<RangeConjecture> {
        if inputs.len() < MIN_TESTS {
            return None;
        }
        let f = reference.func_by_name(entry)?;
        let targets = int_targets(reference, f)?;
        let slots: Vec<Option<(VarId, i64, i64)>> = targets
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let v = (*v)?;
                let values: Option<Vec<i64>> = inputs
                    .iter()
                    .map(|text| text.split_ascii_whitespace().nth(k)?.parse::<i32>().ok().map(i64::from))
                    .collect();
                let values = values?;
                Some((v, *values.iter().min()?, *values.iter().max()?))
            })
            .collect();
        if slots.iter().all(Option::is_none) {
            return None;
        }
        let bounds = vec![(None, None); slots.len()];
        Some(RangeConjecture { slots, bounds, tests: inputs.len() })
    }

    /// Narrows the bounds so they rule out `input`; `false` when none can: every number it
    /// has at a ranged position lies within the tests' range there.
    pub fn exclude(&mut self, input: &str) -> bool {
        let tokens: Vec<&str> = input.split_ascii_whitespace().collect();
        let mut narrowed = false;
        for (k, slot) in self.slots.iter().enumerate() {
            let (Some((_, least, greatest)), Some(value)) =
                (slot, tokens.get(k).and_then(|t| t.parse::<i32>().ok()).map(i64::from))
            else {
                continue;
            };
            // The first counterexample on a side gets the weakest bound that rules it out; a
            // second one the tests' own extreme (the solver would walk the bound a step at a
            // time towards it, one proof per step).
            let (low, high) = &mut self.bounds[k];
            if value < *least && low.is_none_or(|l| l <= value) {
                *low = Some(if low.is_some() { *least } else { value + 1 });
                narrowed = true;
            } else if value > *greatest && high.is_none_or(|h| h >= value) {
                *high = Some(if high.is_some() { *greatest } else { value - 1 });
                narrowed = true;
            }
        }
        narrowed
    }

    /// `reference` whose `entry` stops (`__VERIFIER_assume`) after the reads its bounds speak
    /// of, on inputs outside the bounds: a product with it compares the other inputs only.
    pub fn assumed(&self, reference: &Program, entry: &str) -> Option<Program> {
        let f = reference.func_by_name(entry)?;
        let (_, last) = super::facts::leading_scanf_directives(reference, f)?;
        let mut out = reference.clone();
        let body = out.funcs.get_mut(f.0 as usize)?.body.as_mut()?;
        let StmtKind::Block(stmts) = &mut body.kind else { return None };
        let span = stmts[last].span;
        let int = |v: i64| Expr::new(ExprKind::Int(v), Type::INT, span);
        let mut conds: Vec<Expr> = Vec::new();
        for (slot, (low, high)) in self.slots.iter().zip(&self.bounds) {
            let Some((v, _, _)) = slot else { continue };
            let var = || Expr::new(ExprKind::Var(*v), Type::INT, span);
            let compare = |op, bound: i64| {
                Expr::new(ExprKind::Binary(op, Box::new(var()), Box::new(int(bound))), Type::INT, span)
            };
            conds.extend(low.map(|l| compare(crate::ir::BinOp::Ge, l)));
            conds.extend(high.map(|h| compare(crate::ir::BinOp::Le, h)));
        }
        let cond = conds
            .into_iter()
            .reduce(|a, b| Expr::new(ExprKind::Logical(LogicOp::And, Box::new(a), Box::new(b)), Type::INT, span))?;
        let call = Expr::new(ExprKind::Call(Callee::Builtin(Builtin::Assume), vec![cond]), Type::Void, span);
        let assume = Stmt { kind: StmtKind::Expr(call), span };
        if let StmtKind::If { then, els, .. } = &mut stmts[last].kind {
            // A guarded read (`if (scanf(...) != 1 || n < 0) return 1;`): the assumption begins
            // both branches, so a run the guard ends is ruled out too.
            for branch in [then, els.get_or_insert_with(|| Box::new(Stmt { kind: StmtKind::Block(Vec::new()), span }))]
            {
                let old = std::mem::replace(&mut **branch, Stmt { kind: StmtKind::Block(Vec::new()), span });
                **branch = Stmt { kind: StmtKind::Block(vec![assume.clone(), old]), span };
            }
        } else {
            stmts.insert(last + 1, assume);
        }
        Some(out)
    }

    /// "the number read is at least 2, as in all 3 tests"; "the second number read is
    /// between 1 and 99, ...".
    pub fn description(&self) -> String {
        as_in_all_tests(&Vec::from_iter(self.conditions()), self.tests)
    }

    /// "the number read is at least 2": the bounds so far, `None` before any.
    pub fn conditions(&self) -> Option<String> {
        let ranged = self.slots.iter().filter(|s| s.is_some()).count();
        let mut parts = Vec::new();
        for (k, (low, high)) in self.bounds.iter().enumerate() {
            let which = if ranged == 1 && self.slots.len() == 1 {
                "the number read".to_string()
            } else {
                format!("the {} number read", ordinal(k + 1))
            };
            match (low, high) {
                (Some(l), Some(h)) => parts.push(format!("{which} is between {l} and {h}")),
                (Some(l), None) => parts.push(format!("{which} is at least {l}")),
                (None, Some(h)) => parts.push(format!("{which} is at most {h}")),
                (None, None) => {}
            }
        }
        (!parts.is_empty()).then(|| parts.join(" and "))
    }
}

/// The third template: the kinds of character the input holds, narrowed only as far as a
/// counterexample needs. Assignments promise the text ("a word", "a line of lowercase
/// letters") and students rely on it (`getchar` up to the end of the input where the
/// reference reads a word with `scanf("%s")`); a fix that passes every test is then refuted
/// on an input with a space or a capital letter, which no test has.
/// [`TextConjecture::exclude`] answers such a counterexample by ruling out the kinds of
/// character it holds that no test holds (never one a test holds: a counterexample made of
/// the tests' kinds stands). A proof whose input bytes avoid them
/// ([`TextConjecture::absent_bytes`]) says so in its label: "there is no space or capital
/// letter, as in all 5 tests".
#[derive(Clone, Debug)]
pub struct TextConjecture {
    /// Per kind of [`CHARACTER_KINDS`]: some test's input holds one.
    present: Vec<bool>,
    /// Per kind: ruled out so far.
    excluded: Vec<bool>,
    tests: usize,
}

/// The first kinds of [`CHARACTER_KINDS`], which together are white space (C's `isspace`, and
/// the other control characters).
const WHITE_SPACE_KINDS: usize = 4;

/// Whether a byte is of a kind of [`CHARACTER_KINDS`].
type IsOfKind = fn(u8) -> bool;

/// The kinds of ASCII character a [`TextConjecture`] speaks of, in the words of its label.
const CHARACTER_KINDS: [(&str, IsOfKind); 8] = [
    ("line break", |b| b == b'\n'),
    ("space", |b| b == b' '),
    ("tab", |b| b == b'\t'),
    ("control character", |b| b.is_ascii_control() && b != b'\n' && b != b'\t'),
    ("digit", |b| b.is_ascii_digit()),
    ("capital letter", |b| b.is_ascii_uppercase()),
    ("lowercase letter", |b| b.is_ascii_lowercase()),
    ("punctuation mark", |b| b.is_ascii_punctuation()),
];

impl TextConjecture {
    /// `None` with too few tests, or when no test's input holds a character.
    pub fn new(inputs: &[String]) -> Option<TextConjecture> {
        if inputs.len() < MIN_TESTS || inputs.iter().all(|i| i.is_empty()) {
            return None;
        }
        let present = CHARACTER_KINDS.iter().map(|(_, is)| inputs.iter().any(|i| i.bytes().any(is))).collect();
        Some(TextConjecture { present, excluded: vec![false; CHARACTER_KINDS.len()], tests: inputs.len() })
    }

    /// Rules out the kinds of character `input` holds that no test holds; `false` when there
    /// is none left to rule out (every kind it holds is a test's, or already ruled out, or it
    /// holds a byte outside ASCII, which the models of the input never read).
    pub fn exclude(&mut self, input: &str) -> bool {
        let mut narrowed = false;
        for (k, (_, is)) in CHARACTER_KINDS.iter().enumerate() {
            if !self.present[k] && !self.excluded[k] && input.bytes().any(is) {
                self.excluded[k] = true;
                narrowed = true;
            }
        }
        narrowed
    }

    /// The bytes of the kinds ruled out, as a mask (bit `b` for byte `b`).
    pub fn absent_bytes(&self) -> u128 {
        (0..128u8)
            .filter(|&b| CHARACTER_KINDS.iter().zip(&self.excluded).any(|((_, is), &out)| out && is(b)))
            .fold(0, |mask, b| mask | 1 << b)
    }

    /// "there is no space or capital letter, as in all 5 tests".
    pub fn description(&self) -> String {
        as_in_all_tests(&Vec::from_iter(self.conditions()), self.tests)
    }

    /// "there is no space or capital letter": the kinds ruled out so far, `None` before any.
    /// When fewer kinds are left than were ruled out, the kinds left, which is shorter to
    /// read: "there are only digits, spaces and line breaks".
    pub fn conditions(&self) -> Option<String> {
        if !self.excluded.contains(&true) {
            return None;
        }
        let excluded = Self::named(&self.excluded, true);
        let admitted = Self::named(&self.excluded, false);
        if admitted.len() < excluded.len() {
            // Letters and digits first: the white space between them reads as an afterthought.
            let (white, other): (Vec<_>, Vec<_>) = admitted.into_iter().partition(|(white, _)| *white);
            let kinds: Vec<String> = other.into_iter().chain(white).map(|(_, name)| plural(name)).collect();
            return Some(format!("there are only {}", listed(&kinds, "and")));
        }
        let kinds: Vec<String> = excluded.into_iter().map(|(_, name)| name.to_string()).collect();
        Some(format!("there is no {}", listed(&kinds, "or")))
    }

    /// The names of the kinds whose `excluded` flag is `flag`, each with whether it is white
    /// space; all four kinds of white space in a word.
    fn named(excluded: &[bool], flag: bool) -> Vec<(bool, &'static str)> {
        let mut kinds: Vec<(bool, &str)> = CHARACTER_KINDS
            .iter()
            .enumerate()
            .filter(|(k, _)| excluded[*k] == flag)
            .map(|(k, (name, _))| (k < WHITE_SPACE_KINDS, *name))
            .collect();
        if excluded[..WHITE_SPACE_KINDS].iter().all(|&out| out == flag) {
            kinds.splice(..WHITE_SPACE_KINDS, [(true, "white space")]);
        }
        kinds
    }
}

/// "digits" for "digit"; "white space" stays.
fn plural(kind: &str) -> String {
    if kind == "white space" { kind.to_string() } else { format!("{kind}s") }
}

/// "a, b or c" (with `word` "or"); "a" alone.
fn listed(kinds: &[String], word: &str) -> String {
    match kinds.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {word} {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The fifth template: the input has as many lines as the tests'. Assignments promise their
/// lines ("a line, then the character to delete") and students rely on it: a second read
/// from an input that has ended leaves its variable unset, where the reference reads `EOF`
/// and goes on; a loop that reads to the end of the input where the reference reads one line
/// prints the next line too. Ruled out only when a counterexample has fewer lines than every
/// test ([`LinesConjecture::exclude`]), or more (where asked: the check layer asks once its
/// search for a fix for every input is exhausted); a proof then says so in its label: "there
/// are at least 2 lines, as in all 5 tests", "there is no more than 1 line, as in all 9
/// tests" ([`crate::smt::encode::EncodeOptions::min_lines`], `max_lines`).
#[derive(Clone, Debug)]
pub struct LinesConjecture {
    /// The fewest lines of a test's input.
    fewest: u32,
    /// The most lines of a test's input.
    most: u32,
    /// A counterexample with fewer was answered: a proof now assumes `fewest`.
    fewer_excluded: bool,
    /// A counterexample with more was answered: a proof now assumes `most`.
    more_excluded: bool,
    /// More lines may be ruled out.
    more: bool,
    tests: usize,
}

/// The lines of `input`: its '\n's, and the text after the last one.
pub fn lines(input: &str) -> u32 {
    let breaks = input.bytes().filter(|&b| b == b'\n').count() as u32;
    breaks + u32::from(!input.is_empty() && !input.ends_with('\n'))
}

impl LinesConjecture {
    /// `None` with too few tests, or when some test's input is empty; `more`: inputs with
    /// more lines than every test's may be ruled out, not only those with fewer.
    pub fn new(inputs: &[String], more: bool) -> Option<LinesConjecture> {
        let fewest = inputs.iter().map(|i| lines(i)).min()?;
        let most = inputs.iter().map(|i| lines(i)).max()?;
        (inputs.len() >= MIN_TESTS && fewest >= 1 && (more || fewest >= 2)).then_some(LinesConjecture {
            fewest,
            most,
            fewer_excluded: false,
            more_excluded: false,
            more,
            tests: inputs.len(),
        })
    }

    /// Rules out inputs with fewer lines than every test's when `input` is one (not of fewer
    /// than 2: one line is the line assumption's, [`crate::smt::encode::LINE_ASSUMPTION`]),
    /// or with more lines than every test's; `false` when it is neither, or they are ruled
    /// out already (the counterexample then stands).
    pub fn exclude(&mut self, input: &str) -> bool {
        let n = lines(input);
        if !self.fewer_excluded && self.fewest >= 2 && n < self.fewest {
            self.fewer_excluded = true;
            return true;
        }
        if self.more && !self.more_excluded && n > self.most {
            self.more_excluded = true;
            return true;
        }
        false
    }

    pub fn description(&self) -> String {
        as_in_all_tests(&Vec::from_iter(self.conditions()), self.tests)
    }

    /// "there are at least 2 lines", "there is no more than 1 line", "there are exactly 2
    /// lines" once ruled out, `None` before.
    pub fn conditions(&self) -> Option<String> {
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        match (self.fewer_excluded, self.more_excluded) {
            (false, false) => None,
            (true, false) => Some(format!("there are at least {} lines", self.fewest)),
            (false, true) => {
                let verb = if self.most == 1 { "is" } else { "are" };
                Some(format!("there {verb} no more than {} line{}", self.most, plural(self.most)))
            }
            (true, true) if self.fewest == self.most => Some(format!("there are exactly {} lines", self.most)),
            (true, true) => Some(format!("there are {} to {} lines", self.fewest, self.most)),
        }
    }

    /// The lines a proof assumes at least: 0 before fewer were ruled out.
    pub fn min_lines(&self) -> u32 {
        if self.fewer_excluded { self.fewest } else { 0 }
    }

    /// The lines a proof assumes at most: `None` before more were ruled out.
    pub fn max_lines(&self) -> Option<u32> {
        self.more_excluded.then_some(self.most)
    }
}

/// The fourth template: no number the input holds is `-0`. IEEE's negative zero equals `0` in
/// every comparison, yet it prints as `-0.000000`, and of two equal zeros `x < m ? x : m`
/// keeps the second: a minimum kept with `if (x < min) min = x` and one kept with the
/// reference's `min = x < min ? x : min` agree on every number but this one, so a fix that
/// passes every test is refuted on an input with a `-0`, which no test has. Proved again with
/// the floating-point numbers read kept from `-0` ([`crate::smt::encode::EncodeOptions::no_negative_zero`]),
/// the fix says so in its label: "no number is `-0` (minus zero), as in all 3 tests".
#[derive(Clone, Debug)]
pub struct SignedZeroConjecture {
    /// A counterexample with a `-0` was answered: a proof now assumes there is none.
    excluded: bool,
    tests: usize,
}

impl SignedZeroConjecture {
    /// `None` with too few tests, or when some test's input holds a `-0`.
    pub fn new(inputs: &[String]) -> Option<SignedZeroConjecture> {
        if inputs.len() < MIN_TESTS || inputs.iter().any(|i| holds_negative_zero(i)) {
            return None;
        }
        Some(SignedZeroConjecture { excluded: false, tests: inputs.len() })
    }

    /// Rules out `-0` when `input` holds one; `false` when it holds none or it is already
    /// ruled out (the counterexample then stands).
    pub fn exclude(&mut self, input: &str) -> bool {
        let narrowed = !self.excluded && holds_negative_zero(input);
        self.excluded |= narrowed;
        narrowed
    }

    pub fn description(&self) -> String {
        as_in_all_tests(&Vec::from_iter(self.conditions()), self.tests)
    }

    /// "no number is `-0` (minus zero)" once ruled out, `None` before.
    pub fn conditions(&self) -> Option<String> {
        self.excluded.then(|| "no number is `-0` (minus zero)".to_string())
    }

    /// `-0` is ruled out.
    pub fn excluded(&self) -> bool {
        self.excluded
    }
}

/// A token of `input` that scanf's `%f` reads as a negative zero (`-0`, `-0.0`, `-0e3`).
fn holds_negative_zero(input: &str) -> bool {
    input.split_ascii_whitespace().any(|t| t.starts_with('-') && t.parse::<f64>().is_ok_and(|v| v == 0.0))
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        _ => format!("{n}th"),
    }
}

/// Per token position of the `scanf` statements `f`'s reads begin with
/// ([`super::facts::leading_scanf_directives`]), the `int` variable a `%d` or `%i` reads there.
fn int_targets(p: &Program, f: FuncId) -> Option<Vec<Option<VarId>>> {
    let (directives, _) = super::facts::leading_scanf_directives(p, f)?;
    let targets =
        directives.iter().map(|d| read_var(d).filter(|v| matches!(d.conv, 'd' | 'i') && p.var(*v).ty == Type::INT));
    Some(targets.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_with_fewer_lines_than_every_test_is_ruled_out_once() {
        assert_eq!(
            (lines(""), lines("a"), lines("a\n"), lines("a\nb"), lines("a\nb\n"), lines("\n\n")),
            (0, 1, 1, 2, 2, 2)
        );
        let tests: Vec<String> = ["ola adeus\na", "ddd\nd", "abdddba\nh\n"].map(String::from).to_vec();
        let mut c = LinesConjecture::new(&tests, false).unwrap();
        assert_eq!(c.min_lines(), 0);
        assert!(!c.exclude("two\nlines"));
        assert!(c.exclude("\"\n"));
        assert_eq!((c.min_lines(), c.description().as_str()), (2, "there are at least 2 lines, as in all 3 tests"));
        assert!(!c.exclude("x"), "ruled out already: the counterexample stands");
        assert!(!c.exclude("a\nb\nc\nd"), "more lines are not ruled out unless asked for");
        // One test of one line: the line assumption says all there is of fewer lines.
        assert!(LinesConjecture::new(&["a\nb".into(), "c".into(), "d\ne".into()], false).is_none());
        let mut one = LinesConjecture::new(&["a\nb".into(), "c".into(), "d\ne".into()], true).unwrap();
        assert!(!one.exclude(""));
        assert_eq!(one.min_lines(), 0);
    }

    #[test]
    fn an_input_with_more_lines_than_every_test_is_ruled_out_once() {
        let tests: Vec<String> = ["8 7 3\n", "12", "1 2\n"].map(String::from).to_vec();
        let mut c = LinesConjecture::new(&tests, true).unwrap();
        assert!(!c.exclude("5 6\n"), "one line, as the tests");
        assert!(c.exclude("5\n6\n"));
        assert_eq!(
            (c.max_lines(), c.description().as_str()),
            (Some(1), "there is no more than 1 line, as in all 3 tests")
        );
        assert!(!c.exclude("5\n6\n7"), "ruled out already: the counterexample stands");
        // Fewer, then more: both bounds, in one phrase.
        let mut both = LinesConjecture::new(&["a\nb".into(), "c\nd\n".into(), "e\nf".into()], true).unwrap();
        assert!(both.exclude("a"));
        assert!(both.exclude("a\nb\nc\n"));
        assert_eq!(both.description(), "there are exactly 2 lines, as in all 3 tests");
        assert_eq!((both.min_lines(), both.max_lines()), (2, Some(2)));
        assert!(LinesConjecture::new(&["".into(), "c".into(), "d".into()], true).is_none(), "an empty test input");
    }

    /// `p`'s `main` run on `text` in the interpreter.
    fn run_main(p: &Program, text: &str) -> crate::spec::interp::RunResult {
        let limits = crate::spec::interp::Limits::default();
        crate::spec::interp::run(p, "main", text.as_bytes(), &limits, &crate::cancel::Cancel::new())
    }

    fn lower(src: &str) -> Program {
        let l = crate::syntax::lower::lower_source(src);
        assert!(l.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error), "{:?}", l.diagnostics);
        l.program
    }

    const GRADE: &str = "#include <stdio.h>\nint main(){ double a,b,c,d,s; scanf(\"%lf %lf %lf %lf\", &a,&b,&c,&d); scanf(\"%lf\", &s); printf(\"%f\", s); return 0; }\n";

    fn inputs(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn decreasing_thresholds_give_a_chain() {
        let p = lower(GRADE);
        let pre = infer(
            &inputs(&["80 70 60 50\n85\n", "90 80 70 60 95\n", "90 80 70 60 40\n", "100 90 80 70\n75\n"]),
            &[],
            &p,
            "main",
        )
        .unwrap();
        assert_eq!(pre.description, "a > b > c > d, as in all 4 tests");
        assert_eq!(pre.facts.len(), 3);
        assert_eq!(pre.convs, vec!['f'; 5]);
        assert!(pre.admits("90 80 70 60\n40\n"));
        assert!(pre.admits("9.5 9.25 9 -1 0"));
        assert!(!pre.admits("90 80 80 60 40"), "not strictly decreasing");
        assert!(!pre.admits("60 70 80 90 40"));
        assert!(!pre.admits("90 80 70"), "a number missing");
        assert!(!pre.admits("90 eighty 70 60 40"));
    }

    #[test]
    fn non_strict_and_reversed_orders() {
        let p = lower(
            "#include <stdio.h>\nint main(){ int x,y,z; scanf(\"%d%d%d\", &x,&y,&z); printf(\"%d\", x); return 0; }\n",
        );
        // x <= y in every test (once equal), y and z unordered, x < z.
        let pre = infer(&inputs(&["1 2 0", "3 3 9", "-5 7 8"]), &[], &p, "main").unwrap();
        assert_eq!(pre.facts, vec![InputFact { left: 1, right: 0, strict: false }]);
        assert_eq!(pre.description, "y >= x, as in all 3 tests");
        assert!(pre.admits("4 4 0") && pre.admits("-3 2 1"));
        assert!(!pre.admits("5 4 0"));
        // An integer position's number must fit in an `int`.
        assert!(!pre.admits("1 2147483648 0") && !pre.admits("1 2.5 0"));
    }

    #[test]
    fn nothing_from_too_few_tests_or_unordered_inputs() {
        let p = lower(GRADE);
        assert_eq!(infer(&inputs(&["80 70 60 50 85", "90 80 70 60 95"]), &[], &p, "main"), None);
        let q =
            lower("#include <stdio.h>\nint main(){ int x,y; scanf(\"%d%d\", &x,&y); printf(\"%d\", x); return 0; }\n");
        assert_eq!(infer(&inputs(&["1 2", "2 1", "5 5"]), &[], &q, "main"), None);
        // A test with too few numbers (or a word) gives nothing rather than a guess.
        assert_eq!(infer(&inputs(&["1 2", "2 3", "5"]), &[], &q, "main"), None);
    }

    #[test]
    fn a_float_printed_in_every_test_promises_no_nan() {
        // The reads are in a loop (no orderings), the mean is printed with `%f`.
        let mean = lower(
            "#include <stdio.h>\nint main(){ int n,i; float s=0,x; scanf(\"%d\",&n); for(i=0;i<n;i++){scanf(\"%f\",&x); s+=x;} printf(\"%.2f\\n\", s/n); return 0; }\n",
        );
        let ins = inputs(&["2 1 2", "1 5", "3 1 2 3"]);
        let pre = infer(&ins, &inputs(&["1.50\n", "5.00\n", "2.00\n"]), &mean, "main").unwrap();
        assert!(pre.no_nan && pre.facts.is_empty());
        assert_eq!(pre.description, "the reference prints no `nan` (not a number), as in all 3 tests");
        assert!(pre.admits("2 1e38 -1e38"), "not a property of the text");
        // A test whose output is a NaN, or no outputs to look at: no promise.
        assert_eq!(infer(&ins, &inputs(&["1.50\n", "-nan\n", "2.00\n"]), &mean, "main"), None);
        assert_eq!(infer(&ins, &[], &mean, "main"), None);
        // Nothing printed as a float: nothing to promise.
        let count =
            lower("#include <stdio.h>\nint main(){ int n; scanf(\"%d\",&n); printf(\"%d\\n\", n); return 0; }\n");
        assert_eq!(infer(&inputs(&["1", "2", "3"]), &inputs(&["1\n", "2\n", "3\n"]), &count, "main"), None);
    }

    #[test]
    fn reads_inside_branches_give_nothing() {
        let p = lower(
            "#include <stdio.h>\nint main(){ int x,y; scanf(\"%d\", &x); if (x) scanf(\"%d\", &y); return 0; }\n",
        );
        assert_eq!(infer(&inputs(&["1 2", "2 3", "5 6"]), &[], &p, "main"), None);
    }

    const SIZE_THEN_STEP: &str = "#include <stdio.h>\nint main(){ int n, k; double d; scanf(\"%d\", &n); scanf(\"%lf %d\", &d, &k); printf(\"%d\\n\", n * k); return 0; }\n";

    #[test]
    fn a_range_is_narrowed_only_as_far_as_a_counterexample_needs() {
        let p = lower(SIZE_THEN_STEP);
        let mut r = RangeConjecture::new(&p, "main", &inputs(&["3 1.5 10", "4 2 20", "8 0 30"])).expect("int reads");
        // Within every test's range at each integer position: nothing honest excludes it.
        assert!(!r.exclude("4 -7.5 10"));
        // Only the double is out of range: not an integer position.
        assert!(!r.exclude("4 100 10"));
        assert!(r.exclude("-5 0 10"));
        assert_eq!(r.description(), "the first number read is at least -4, as in all 3 tests");
        // A later counterexample closer to the tests moves the bound; a farther one is already out.
        assert!(r.exclude("1 0 10"));
        assert!(!r.exclude("0 0 10"));
        assert!(r.exclude("2 0 31"));
        assert_eq!(
            r.description(),
            "the first number read is at least 3 and the third number read is at most 30, as in all 3 tests"
        );
        // The assumption stops the reference's runs outside the bounds, after its last read.
        let assumed = r.assumed(&p, "main").expect("an assumption");
        let run = |text: &str| run_main(&assumed, text);
        assert!(run("2 1 10").assume_failed);
        assert!(run("3 1 31").assume_failed);
        let inside = run("3 1 30");
        assert!(!inside.assume_failed && String::from_utf8_lossy(&inside.output) == "90\n");
    }

    #[test]
    fn a_single_read_is_the_number_read() {
        let p = lower("#include <stdio.h>\nint main(){ int n; scanf(\"%d\", &n); printf(\"%d\\n\", n); return 0; }\n");
        let mut r = RangeConjecture::new(&p, "main", &inputs(&["3", "4", "8"])).expect("an int read");
        assert!(r.exclude("1\n"));
        assert_eq!(r.description(), "the number read is at least 2, as in all 3 tests");
        // Too few tests, or reads that are not top-level statements: no conjecture.
        assert!(RangeConjecture::new(&p, "main", &inputs(&["3", "4"])).is_none());
        let nested = lower("#include <stdio.h>\nint main(){ int n; if (1) scanf(\"%d\", &n); return 0; }\n");
        assert!(RangeConjecture::new(&nested, "main", &inputs(&["3", "4", "8"])).is_none());
    }

    #[test]
    fn the_count_read_before_a_loop_that_reads_is_ranged() {
        let p = lower(
            "#include <stdio.h>\nint main(){ int n, i; float x, s = 0; scanf(\"%d\", &n);\n for (i = 0; i < n; i++) { scanf(\"%f\", &x); s += x; }\n printf(\"%.2f\\n\", s); return 0; }\n",
        );
        let mut r = RangeConjecture::new(&p, "main", &inputs(&["3 1 2 3", "1 5", "2 0.5 0.25"])).expect("n");
        // The numbers the loop reads are not ranged (their positions depend on `n`).
        assert!(!r.exclude("2 -7 9"));
        assert!(r.exclude("-3"));
        assert!(r.exclude("0"));
        // The second narrowing on a side goes to the tests' own least.
        assert_eq!(r.description(), "the number read is at least 1, as in all 3 tests");
        let assumed = r.assumed(&p, "main").expect("an assumption");
        let run = |text: &str| run_main(&assumed, text);
        assert!(run("0").assume_failed);
        let inside = run("2 1.5 2");
        assert!(!inside.assume_failed && String::from_utf8_lossy(&inside.output) == "3.50\n");
        // A read that comes first inside a loop: nothing is known to come first.
        let looped = lower("#include <stdio.h>\nint main(){ int n = 1; while (n > 0) scanf(\"%d\", &n); return 0; }\n");
        assert!(RangeConjecture::new(&looped, "main", &inputs(&["3 0", "1 0", "2 0"])).is_none());
    }

    #[test]
    fn a_read_that_guards_the_input_is_ranged_and_its_guard_ruled_out() {
        let p = lower(
            "#include <stdio.h>\nint main(){ int n, i, x, s = 0;\n if (scanf(\"%d\", &n) != 1 || n < 0 || n > 100) return 1;\n for (i = 0; i < n; i++) { scanf(\"%d\", &x); s += x; }\n printf(\"%d\\n\", s); return 0; }\n",
        );
        let mut r = RangeConjecture::new(&p, "main", &inputs(&["3 1 2 3", "1 5", "2 7 9"])).expect("n");
        assert!(r.exclude("-1"));
        assert!(r.exclude("4 1 1 1 1"));
        assert_eq!(r.description(), "the number read is between 0 and 3, as in all 3 tests");
        let assumed = r.assumed(&p, "main").expect("an assumption");
        let run = |text: &str| run_main(&assumed, text);
        // A run the guard ends is ruled out as well as one past it.
        assert!(run("-1").assume_failed);
        assert!(run("200").assume_failed);
        assert!(run("5 1 1 1 1 1").assume_failed);
        let inside = run("2 4 5");
        assert!(!inside.assume_failed && String::from_utf8_lossy(&inside.output) == "9\n");
        // A guard that reads twice, or a branch that reads: nothing is known to come first.
        for other in [
            "#include <stdio.h>\nint main(){ int n, m; if (scanf(\"%d\", &n) != 1 || scanf(\"%d\", &m) != 1) return 1; return n; }\n",
            "#include <stdio.h>\nint main(){ int n, m = 0; if (scanf(\"%d\", &n) != 1) scanf(\"%d\", &m); return n + m; }\n",
            "#include <stdio.h>\nint main(){ int n; if (n > 0 && scanf(\"%d\", &n) == 1) return 1; return n; }\n",
        ] {
            assert!(RangeConjecture::new(&lower(other), "main", &inputs(&["3 1", "1 5", "2 7"])).is_none(), "{other}");
        }
    }

    #[test]
    fn a_text_conjecture_rules_out_only_what_no_test_holds() {
        let tests = inputs(&["adeus", "abccba", "was-saw", ""]);
        let mut t = TextConjecture::new(&tests).expect("text in the tests");
        // Letters and a dash are the tests': no narrowing, the counterexample stands.
        assert!(!t.exclude("abc-d"));
        assert!(t.exclude(" @#HI0!BC$$D"));
        assert_eq!(t.description(), "there is no space, digit or capital letter, as in all 4 tests");
        assert!(!t.exclude("A 1"), "nothing new to rule out");
        assert!(t.exclude("ab\ncd"));
        assert_eq!(t.description(), "there is no line break, space, digit or capital letter, as in all 4 tests");
        assert!(t.exclude("a\tb\rc"));
        // Fewer kinds left than ruled out: the kinds left are named.
        assert_eq!(t.description(), "there are only lowercase letters and punctuation marks, as in all 4 tests");
        let mut numbers = TextConjecture::new(&inputs(&["1 2\n", "30 4\n", "5 6\n"])).expect("text in the tests");
        assert!(numbers.exclude("a\tB;\x01"));
        assert_eq!(numbers.description(), "there are only digits, line breaks and spaces, as in all 3 tests");
        let mask = t.absent_bytes();
        let admits = |text: &str| text.bytes().all(|b| mask & (1 << b) == 0);
        assert!(tests.iter().all(|i| admits(i)));
        assert!(!admits("Abc") && !admits("a b") && admits("a-b!"));
        assert!(mask & (1 << b' ') != 0 && mask & (1 << b'Z') != 0 && mask & (1 << b'a') == 0);
        assert!(TextConjecture::new(&inputs(&["", "", ""])).is_none());
        assert!(TextConjecture::new(&inputs(&["a", "b"])).is_none());
    }

    #[test]
    fn a_negative_zero_is_ruled_out_once_and_only_where_no_test_has_one() {
        let tests: Vec<String> = ["3 1.5 2 0", "2 -1 0.0", "1 7"].map(String::from).to_vec();
        let mut z = SignedZeroConjecture::new(&tests).expect("three tests with no -0");
        assert!(!z.exclude("2 0.0 1"));
        assert!(z.exclude("2\n0.0\n-0.0\n"));
        // Already ruled out: a counterexample with a `-0` now stands.
        assert!(!z.exclude("1 -0"));
        assert_eq!(z.description(), "no number is `-0` (minus zero), as in all 3 tests");
        let with_zero: Vec<String> = ["1 -0e2", "2", "3"].map(String::from).to_vec();
        assert!(SignedZeroConjecture::new(&with_zero).is_none());
        assert!(SignedZeroConjecture::new(&tests[..2]).is_none());
    }
}
