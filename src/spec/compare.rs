//! Output comparison: `exact`, `whitespace` and `values`.
//!
//! # The `values` rule
//! Students print their own prompts, so `values` compares only the part of each output that
//! the program prints **after its last input read** (the caller knows it: the interpreter counts
//! the bytes printed before the last `scanf`/`getchar`/`fgets` that did not return `EOF`, a
//! `scanf` that matched nothing included; without that count the whole output is used), and
//! compares those tails as **sequences of value tokens**:
//! - a token is a number (`[+-]?digits[.digits]`, or `.digits`), a word (a run of letters), or
//!   one punctuation character; whitespace only separates tokens;
//! - punctuation glued to a word or number is decoration and dropped (`is 0.` = `is 0`,
//!   `That's` = `That s`), while punctuation standing alone is a printed value and kept (the
//!   checksum answer in `Check sum is -`);
//! - a leading run of the actual tail that the reference printed as prompt text (two or more
//!   tokens, no number, found in the expected output before its last read, and not how the
//!   expected tail begins) is dropped: a student may print the last prompt after reading all
//!   the input at once;
//! - numbers are equal when their values are equal (`6`, `6.0`, `+6.00`);
//! - words are compared case-insensitively (`Student has an A grade` = `student has an a GRADE`);
//! - punctuation is compared exactly (it carries answers such as the checksum character `-`).
//!
//! One generic rule, no per-problem cases. Measured on IntroClass (tests/syntax_values_agreement.rs,
//! ignored, needs gcc): the 892 deterministic submissions compiled with gcc and run on their
//! 14,058 recorded test verdicts (the benchmark's own per-problem judges), with the prompt
//! lengths measured by an `LD_PRELOAD` shim around the input functions:
//!
//! | rule                                    | agreement | false passes | false fails |
//! |-----------------------------------------|-----------|--------------|-------------|
//! | `values` (this rule, prompt-free tails) | 97.89 %   | 33           | 264         |
//! | `values` on whole outputs               | 88.48 %   | 33           | 1,587       |
//! | `whitespace`                            | 88.00 %   | 25           | 1,662       |
//! | `exact`                                 | 70.07 %   | 22           | 4,186       |
//!
//! 22 of the 33 false passes are outputs byte-identical to the expected ones (the recorded
//! verdict came from another run of a program with undefined behaviour). The false fails are
//! students who drop or reword literal text that the per-problem judges ignore: digits' closing
//! `That's all, have a nice day!` (112), extra words or debug lines such as `the student has an
//! A grade` or `1 is the smallest integer` (135), and runs whose numbers differ on this machine
//! (17). Rules that ignore words altogether ("numbers and one-character tokens only") fail fewer
//! but pass five times more wrong outputs (176): for a tool that certifies repairs, a false pass
//! is the worse error. Without prompt lengths (`outputs_match(.., Values)`) the whole outputs
//! are compared, which is much weaker: callers should pass the interpreter's
//! `output_before_last_read`.

/// How outputs are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compare {
    /// Byte for byte.
    Exact,
    /// Equal after collapsing every whitespace run to one space and trimming both ends.
    #[default]
    Whitespace,
    /// Only the printed values after the last input read (see the module documentation).
    Values,
}

impl Compare {
    pub fn parse(s: &str) -> Option<Compare> {
        match s {
            "exact" => Some(Compare::Exact),
            "whitespace" => Some(Compare::Whitespace),
            "values" => Some(Compare::Values),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Compare::Exact => "exact",
            Compare::Whitespace => "whitespace",
            Compare::Values => "values",
        }
    }
}

impl std::fmt::Display for Compare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether an output shows a NaN (`nan`, `-nan`, `NAN`): the sign C prints for one depends on
/// how the machine computed it, which the solver's floats do not say, so the proofs assume
/// the reference prints none where the tests show it never does.
pub fn prints_nan(output: &str) -> bool {
    output.to_ascii_lowercase().contains("nan")
}

/// The judgement of an output under `mode`, used wherever mend runs a program and compares
/// (the tests, the engines' concrete runs, the checks of repairs): `expected_prompt` and
/// `actual_prompt` are how many bytes each run printed before its last input read, which only
/// `Values` uses (see the module documentation).
pub fn output_matches(
    mode: Compare,
    expected: &str,
    expected_prompt: Option<usize>,
    actual: &str,
    actual_prompt: Option<usize>,
) -> bool {
    match mode {
        // Identical outputs always match: without the expected output's prompt length (no
        // reference ran), only the actual output is cut at its last read, and an expected
        // output that holds the same prompt used to differ from itself.
        Compare::Values => expected == actual || outputs_match_values(expected, expected_prompt, actual, actual_prompt),
        mode => outputs_match(expected, actual, mode),
    }
}

/// Whether `actual` matches `expected` under `mode`. For `Values` this compares whole outputs
/// (no prompt information); prefer [`outputs_match_values`] when the prompt lengths are known.
pub fn outputs_match(expected: &str, actual: &str, mode: Compare) -> bool {
    match mode {
        Compare::Exact => expected == actual,
        Compare::Whitespace => collapse_ws(expected) == collapse_ws(actual),
        Compare::Values => outputs_match_values(expected, None, actual, None),
    }
}

/// The `values` comparison with the number of bytes each program printed before its last
/// input read (`None`: unknown, compare everything). See the module documentation.
pub fn outputs_match_values(
    expected_full: &str,
    expected_prompt_len: Option<usize>,
    actual_full: &str,
    actual_prompt_len: Option<usize>,
) -> bool {
    let (e, a, _) = value_tails(expected_full, expected_prompt_len, actual_full, actual_prompt_len);
    e.len() == a.len() && e.iter().zip(&a).all(|(x, y)| x.same_value(y))
}

/// How far `actual` is from matching `expected` under `mode`: the edit distance of what the
/// mode compares (bytes for `Exact`, bytes after collapsing whitespace for `Whitespace`, value
/// tokens for `Values`); 0 exactly when [`output_matches`] holds. It ranks candidate programs
/// that pass no more tests than each other by how close their outputs come.
pub fn output_distance(
    mode: Compare,
    expected: &str,
    expected_prompt: Option<usize>,
    actual: &str,
    actual_prompt: Option<usize>,
) -> u64 {
    if output_matches(mode, expected, expected_prompt, actual, actual_prompt) {
        return 0;
    }
    // A differing output is at least 1 away, whatever its parts' distance.
    let d = match mode {
        Compare::Exact => edit_distance(expected.as_bytes(), actual.as_bytes(), |a, b| a == b),
        Compare::Whitespace => {
            edit_distance(collapse_ws(expected).as_bytes(), collapse_ws(actual).as_bytes(), |a, b| a == b)
        }
        Compare::Values => {
            let (e, a, _) = value_tails(expected, expected_prompt, actual, actual_prompt);
            edit_distance(&e, &a, |x, y| x.same_value(y))
        }
    };
    d.max(1)
}

/// Levenshtein distance of `a` and `b` after their common prefix and suffix; when what is left
/// is too large for the quadratic table, the longer remainder's length (an upper bound).
fn edit_distance<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> u64 {
    let prefix = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| same(x, y)).count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.is_empty() || b.is_empty() || a.len().saturating_mul(b.len()) > MAX_DISTANCE_CELLS {
        return a.len().max(b.len()) as u64;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(!same(x, y));
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()] as u64
}

/// Cells of the edit-distance table computed at most (a few milliseconds).
const MAX_DISTANCE_CELLS: usize = 1 << 20;

/// The value tokens compared by [`outputs_match_values`]: expected tail, actual tail (after
/// prompt text), and how many leading actual tokens were dropped as prompt text.
fn value_tails<'a>(
    expected_full: &'a str,
    expected_prompt_len: Option<usize>,
    actual_full: &'a str,
    actual_prompt_len: Option<usize>,
) -> (Vec<Token<'a>>, Vec<Token<'a>>, usize) {
    let e = value_tokens(tail(expected_full, expected_prompt_len));
    let a = value_tokens(tail(actual_full, actual_prompt_len));
    let prompt = match expected_prompt_len {
        Some(n) => value_tokens(&expected_full[..expected_full.len() - tail(expected_full, Some(n)).len()]),
        None => Vec::new(),
    };
    let kept = strip_prompt_text(&a, &prompt, &e).len();
    let dropped = a.len() - kept;
    let a = a[dropped..].to_vec();
    (e, a, dropped)
}

/// The part of `s` after its first `prompt_len` bytes (clamped to a character boundary).
pub fn tail(s: &str, prompt_len: Option<usize>) -> &str {
    let Some(mut n) = prompt_len else { return s };
    n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[n..]
}

/// One value token of an output.
#[derive(Clone, Debug, PartialEq)]
pub enum Token<'a> {
    Number(f64, &'a str),
    Word(&'a str),
    Punct(char),
}

impl Token<'_> {
    pub fn same_value(&self, other: &Token) -> bool {
        match (self, other) {
            (Token::Number(a, _), Token::Number(b, _)) => a == b || (a.is_nan() && b.is_nan()),
            (Token::Word(a), Token::Word(b)) => a.eq_ignore_ascii_case(b),
            (Token::Punct(a), Token::Punct(b)) => a == b,
            _ => false,
        }
    }

    pub fn text(&self) -> String {
        match self {
            Token::Number(_, s) | Token::Word(s) => s.to_string(),
            Token::Punct(c) => c.to_string(),
        }
    }
}

/// Splits an output into value tokens (see the module documentation).
pub fn value_tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for chunk in s.split_whitespace() {
        let start = out.len();
        chunk_tokens(chunk, &mut out);
        // Punctuation glued to a word or number (`0.`, `all,`, `day!`, `That's`) is decoration;
        // a chunk of punctuation alone (`-`, `#`) is a printed value.
        if out[start..].iter().any(|t| !matches!(t, Token::Punct(_))) {
            let mut i = start;
            while i < out.len() {
                if matches!(out[i], Token::Punct(_)) {
                    out.remove(i);
                } else {
                    i += 1;
                }
            }
        }
    }
    out
}

fn chunk_tokens<'a>(s: &'a str, out: &mut Vec<Token<'a>>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // A number, with an optional sign directly in front.
        let sign = usize::from(matches!(c, b'+' | b'-'));
        let digits_at = i + sign;
        let starts_number = b.get(digits_at).is_some_and(u8::is_ascii_digit)
            || (b.get(digits_at) == Some(&b'.') && b.get(digits_at + 1).is_some_and(u8::is_ascii_digit));
        if starts_number {
            let mut j = digits_at;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j < b.len() && b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            let text = &s[i..j];
            out.push(Token::Number(text.parse().unwrap_or(f64::NAN), text));
            i = j;
            continue;
        }
        let ch = s[i..].chars().next().expect("i is on a char boundary");
        if ch.is_alphabetic() {
            let mut j = i;
            for (k, c) in s[i..].char_indices() {
                if !c.is_alphabetic() {
                    break;
                }
                j = i + k + c.len_utf8();
            }
            out.push(Token::Word(&s[i..j]));
            i = j;
            continue;
        }
        out.push(Token::Punct(ch));
        i += ch.len_utf8();
    }
}

/// Drops a leading run of the actual tail that is prompt text: at least two tokens, no number,
/// found word for word in the expected output's prompt part, and not how the expected tail
/// itself begins (a student may print the last prompt after reading everything at once).
fn strip_prompt_text<'a>(actual: &'a [Token<'a>], expected_prompt: &[Token], expected: &[Token]) -> &'a [Token<'a>] {
    let longest = actual.len().min(expected_prompt.len()).min(64);
    for k in (2..=longest).rev() {
        let run = &actual[..k];
        if run.iter().any(|t| matches!(t, Token::Number(..))) {
            continue;
        }
        let same = |a: &[Token], b: &[Token]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y));
        if expected.len() >= k && same(&expected[..k], run) {
            continue;
        }
        if expected_prompt.windows(k).any(|w| same(w, run)) {
            return &actual[k..];
        }
    }
    actual
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A short description of the first difference, for messages (`None` when they match).
pub fn describe_difference(expected: &str, actual: &str, mode: Compare) -> Option<String> {
    describe_difference_values(expected, None, actual, None, mode)
}

/// [`describe_difference`] with prompt lengths (used by `Values`).
pub fn describe_difference_values(
    expected: &str,
    expected_prompt_len: Option<usize>,
    actual: &str,
    actual_prompt_len: Option<usize>,
    mode: Compare,
) -> Option<String> {
    match mode {
        Compare::Exact => {
            if expected == actual {
                return None;
            }
            let at = expected.bytes().zip(actual.bytes()).take_while(|(a, b)| a == b).count();
            let line = expected[..floor(expected, at)].matches('\n').count() + 1;
            let show = |s: &str| {
                let from = floor(s, at);
                let piece: String = s[from..].chars().take(20).collect();
                if piece.is_empty() { "the end of the output".to_string() } else { format!("{piece:?}") }
            };
            Some(format!("on line {line}: expected {}, got {}", show(expected), show(actual)))
        }
        Compare::Whitespace => {
            let (e, a) = (collapse_ws(expected), collapse_ws(actual));
            if e == a {
                return None;
            }
            let ew: Vec<&str> = e.split(' ').collect();
            let aw: Vec<&str> = a.split(' ').collect();
            let at = ew.iter().zip(&aw).take_while(|(x, y)| x == y).count();
            Some(word_difference(at, ew.get(at).copied(), aw.get(at).copied()))
        }
        Compare::Values => {
            if outputs_match_values(expected, expected_prompt_len, actual, actual_prompt_len) {
                return None;
            }
            let (e, a, _) = value_tails(expected, expected_prompt_len, actual, actual_prompt_len);
            let at = e.iter().zip(&a).take_while(|(x, y)| x.same_value(y)).count();
            Some(word_difference(at, e.get(at).map(|t| t.text()).as_deref(), a.get(at).map(|t| t.text()).as_deref()))
        }
    }
}

fn word_difference(at: usize, expected: Option<&str>, actual: Option<&str>) -> String {
    let nth = at + 1;
    match (expected, actual) {
        (Some(e), Some(a)) => format!("value {nth}: expected `{e}`, got `{a}`"),
        (Some(e), None) => format!("the output stops before value {nth} (`{e}`)"),
        (None, Some(a)) => format!("extra output from value {nth}: `{a}`"),
        (None, None) => "the outputs differ".into(),
    }
}

fn floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_what_the_mode_compares() {
        let exact = |e: &str, a: &str| output_distance(Compare::Exact, e, None, a, None);
        assert_eq!(exact("1 2 3\n", "1 2 3\n"), 0);
        assert_eq!(exact("1 2 3\n", "1 2 3 \n"), 1);
        assert_eq!(exact("1 2 3\n", "1 2 3 \n\n"), 2);
        assert_eq!(exact("kitten", "sitting"), 3);
        assert_eq!(exact("", "abc"), 3);
        assert_eq!(output_distance(Compare::Whitespace, "1 2\n", None, "1   2", None), 0);
        assert_eq!(output_distance(Compare::Whitespace, "1 2\n", None, "1 3", None), 1);
        // Values: the prompt is not compared, a wrong number is one token.
        assert_eq!(output_distance(Compare::Values, "Sum: 12\n", None, "Sum: 13\n", None), 1);
        assert_eq!(output_distance(Compare::Values, "12 5\n", None, "12\n", None), 1);
    }

    #[test]
    fn modes_parse() {
        for m in [Compare::Exact, Compare::Whitespace, Compare::Values] {
            assert_eq!(Compare::parse(m.as_str()), Some(m));
        }
        assert_eq!(Compare::parse("fuzzy"), None);
    }

    #[test]
    fn exact_and_whitespace() {
        assert!(outputs_match("a b\n", "a b\n", Compare::Exact));
        assert!(!outputs_match("a b\n", "a b", Compare::Exact));
        assert!(outputs_match("a  b\n", " a\tb", Compare::Whitespace));
        assert!(!outputs_match("ab", "a b", Compare::Whitespace));
        assert_eq!(
            describe_difference("x = 1\n", "x = 2\n", Compare::Exact).unwrap(),
            "on line 1: expected \"1\\n\", got \"2\\n\""
        );
        assert_eq!(
            describe_difference("a b c", "a b", Compare::Whitespace).unwrap(),
            "the output stops before value 3 (`c`)"
        );
        assert_eq!(describe_difference("a", "a", Compare::Whitespace), None);
    }

    #[test]
    fn values_tokens() {
        let t: Vec<String> =
            value_tokens("Check sum is -\n6 is the median, -3.50 .5 That's it.").iter().map(Token::text).collect();
        assert_eq!(t, ["Check", "sum", "is", "-", "6", "is", "the", "median", "-3.50", ".5", "That", "s", "it"]);
        assert!(outputs_match("The number of syllables is 3.", "the number of syllables is 3", Compare::Values));
        assert!(!outputs_match("Check sum is -", "Check sum is +", Compare::Values));
        assert!(outputs_match("6.0 is the Median", "6 is the median", Compare::Values));
        assert!(!outputs_match("6 is the median", "7 is the median", Compare::Values));
    }

    #[test]
    fn values_without_the_expected_prompt() {
        let out = "Enter a number: 5 is odd\n";
        let cut = Some(out.find('5').unwrap());
        assert!(output_matches(Compare::Values, out, None, out, cut), "identical outputs match");
        // The student's prompt is cut; the expected output holds none.
        assert!(output_matches(Compare::Values, "5 is odd\n", None, out, cut));
        assert!(!output_matches(Compare::Values, "6 is odd\n", None, out, cut));
    }

    #[test]
    fn values_drop_prompts() {
        let expected = "Please enter 3 numbers separated by spaces > 6 is the median\n";
        let actual = "Enter three numbers: 6 is the median\n";
        let pe = expected.find('>').unwrap() + 1;
        let pa = actual.find(':').unwrap() + 1;
        assert!(outputs_match_values(expected, Some(pe), actual, Some(pa)));
        assert!(!outputs_match_values(expected, Some(pe), "Enter: 2 is the median", Some(6)));
        assert!(!outputs_match(expected, actual, Compare::Values));
        assert_eq!(
            describe_difference_values(expected, Some(pe), "Enter: 2 is the median", Some(6), Compare::Values).unwrap(),
            "value 1: expected `6`, got `2`"
        );
        // The last prompt printed after the last read is still prompt text.
        let expected = "Enter thresholds > Thank you. Now enter student score (percent) >Student has an B grade\n";
        let pe = expected.find("Student").unwrap();
        let actual = "Thank you. Now enter student score (percent) >Student has an B grade\n";
        assert!(outputs_match_values(expected, Some(pe), actual, Some(0)));
        assert!(!outputs_match_values(expected, Some(pe), "Thank you. Student has an A grade", Some(0)));
        // A prompt length inside a multi-byte character clamps.
        assert_eq!(tail("é1", Some(1)), "é1");
    }
}
