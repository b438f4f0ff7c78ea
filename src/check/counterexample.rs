//! Inputs a student can read. A solver's model is any input that shows a difference, often
//! `1166916226 1166783776 1153938563`; this makes it small while it still shows the same
//! thing: each number, in turn, becomes the simplest value (small, few digits, an integer
//! where the program reads one fine) for which `shows` still holds, judged on concrete runs.

use crate::cancel::Cancel;

/// At most this many candidate inputs are tried (each costs the caller a few runs).
const MAX_TRIES: usize = 400;

/// Interpreter steps of one run judging a candidate input: a readable input shows the bug
/// quickly; a candidate whose run goes longer does not count.
pub const CANDIDATE_STEPS: u64 = 100_000;

/// The simplest input derived from `input`, token by token, for which `shows` holds; `input`
/// itself when `shows` does not hold for it (nothing to preserve).
pub fn simplest_input(input: &str, shows: &dyn Fn(&str) -> bool, cancel: &Cancel) -> String {
    if !shows(input) {
        return input.to_string();
    }
    let mut parts = split_tokens(input);
    let mut tries = 0;
    // Two rounds: a number made simple may let an earlier one become simpler still.
    for _ in 0..2 {
        let mut changed = false;
        for i in 0..parts.len() {
            let Some(current) = parts[i].token.clone() else { continue };
            for candidate in simpler_numbers(&current) {
                if tries >= MAX_TRIES || cancel.is_cancelled() {
                    return join(&parts);
                }
                tries += 1;
                parts[i].token = Some(candidate.clone());
                if shows(&join(&parts)) {
                    changed |= candidate != current;
                    break;
                }
                parts[i].token = Some(current.clone());
            }
        }
        if !changed {
            break;
        }
    }
    join(&parts)
}

/// A numeric token (`Some`) or the text between tokens, kept as it is.
struct Part {
    token: Option<String>,
    text: String,
}

fn split_tokens(input: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        if ws > 0 {
            parts.push(Part { token: None, text: rest[..ws].to_string() });
            rest = &rest[ws..];
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        let numeric = word.parse::<f64>().is_ok_and(f64::is_finite);
        parts.push(if numeric {
            Part { token: Some(word.to_string()), text: String::new() }
        } else {
            Part { token: None, text: word.to_string() }
        });
        rest = &rest[end..];
    }
    parts
}

fn join(parts: &[Part]) -> String {
    parts.iter().map(|p| p.token.as_deref().unwrap_or(&p.text)).collect()
}

/// Numbers simpler than `token`, simplest first, ending with `token` itself: small integers,
/// then by number of digits a power of ten, the leading digit followed by zeros and the
/// leading digits of `token` (1000, 4000, 4821 for 48213), then for a fraction its integer
/// part and one or two decimals.
fn simpler_numbers(token: &str) -> Vec<String> {
    let value: f64 = token.parse().unwrap_or(0.0);
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for n in 0..=10 {
        push(n.to_string());
    }
    for n in 1..=5 {
        push(format!("-{n}"));
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let digits: String = token.trim_start_matches(['-', '+']).chars().take_while(char::is_ascii_digit).collect();
    for len in 1..=digits.len() {
        let zeros = "0".repeat(len - 1);
        push(format!("{sign}1{zeros}"));
        push(format!("{sign}{}{zeros}", &digits[..1]));
        push(format!("{sign}{}", &digits[..len]));
    }
    if value.fract() != 0.0 {
        push(format!("{}", value.trunc()));
        push(format!("{:.1}", value));
        push(format!("{:.2}", value));
    }
    push(token.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simplest(input: &str, shows: impl Fn(&[f64]) -> bool) -> String {
        let shows = move |s: &str| {
            let values: Vec<f64> = s.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            shows(&values)
        };
        simplest_input(input, &shows, &Cancel::new())
    }

    #[test]
    fn numbers_become_small_while_the_difference_shows() {
        // A bug when the first number is the largest.
        let got = simplest("1166916226 1166783776 1153938563\n", |v| v.len() == 3 && v[0] > v[1] && v[0] > v[2]);
        assert_eq!(got, "1 0 0\n");
        // A bug for numbers of four digits or more: the magnitude stays, the digits go.
        assert_eq!(simplest("48213\n", |v| v[0] >= 1000.0), "1000\n");
        assert_eq!(simplest("-77\n", |v| v[0] < -50.0), "-70\n");
    }

    #[test]
    fn floats_become_integers_when_that_still_shows_it() {
        assert_eq!(simplest("0.3333 12.5\n", |v| v[1] > v[0]), "0 1\n");
        assert_eq!(simplest("2.75\n", |v| v[0].fract() != 0.0), "2.8\n");
    }

    #[test]
    fn words_and_spacing_are_kept_and_an_input_that_shows_nothing_is_returned_as_is() {
        assert_eq!(simplest_input("abc  99\nx\n", &|s: &str| s.contains("abc"), &Cancel::new()), "abc  0\nx\n");
        assert_eq!(simplest_input("5 6\n", &|_: &str| false, &Cancel::new()), "5 6\n");
    }
}

/// Inputs varied from `inputs`: each with one of its numbers changed (+1, -1, negated, 0,
/// doubled; a decimal keeps its number of decimals), at most `max`, in a fixed order, none
/// equal to a given input. The independent judge of `mend bench reference` uses them, and so
/// does a repair found over the real numbers before it is shown.
pub fn variations(inputs: &[&str], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    'all: for k in 0..5 {
        for text in inputs {
            let words: Vec<&str> = text.split_whitespace().collect();
            let numbers: Vec<usize> = (0..words.len()).filter(|&i| varied(words[i], 0).is_some()).collect();
            if numbers.is_empty() {
                continue;
            }
            let at = numbers[(k * 7 + text.len()) % numbers.len()];
            let Some(changed) = varied(words[at], k) else { continue };
            let mut ws = words.clone();
            ws[at] = &changed;
            let new = format!("{}\n", ws.join(" "));
            if !out.contains(&new) && !inputs.contains(&new.as_str()) {
                out.push(new);
            }
            if out.len() >= max {
                break 'all;
            }
        }
    }
    out
}

/// The `k`-th variation of a number's text (`None`: not a number).
fn varied(word: &str, k: usize) -> Option<String> {
    if let Ok(v) = word.parse::<i64>() {
        let changed = match k {
            0 => v.saturating_add(1),
            1 => v.saturating_sub(1),
            2 => v.saturating_neg(),
            3 => 0,
            _ => v.saturating_mul(2),
        };
        return Some(changed.to_string());
    }
    let (whole, decimals) = word.split_once('.')?;
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !plain(decimals) || !plain(whole.trim_start_matches('-')) {
        return None;
    }
    let v: f64 = word.parse().ok()?;
    let changed = match k {
        0 => v + 1.0,
        1 => v - 1.0,
        2 => -v,
        3 => 0.0,
        _ => v * 2.0,
    };
    Some(format!("{changed:.*}", decimals.len()))
}

#[cfg(test)]
mod variation_tests {
    use super::variations;

    #[test]
    fn integers_and_decimals_are_varied_and_given_inputs_are_not_repeated() {
        let got = variations(&["3 1.50 2.25\n", "2 7\n"], 8);
        assert!(got.iter().all(|v| v != "3 1.50 2.25\n" && v != "2 7\n"), "{got:?}");
        assert!(got.iter().all(|v| v.ends_with('\n')));
        // A decimal keeps its number of decimals.
        assert!(
            got.iter().any(|v| v.contains("2.50") || v.contains("3.25") || v.contains("0.50") || v.contains("1.25")),
            "{got:?}"
        );
        assert_eq!(got.len(), 8);
        // Words are never numbers to vary.
        assert!(variations(&["abc def\n"], 4).is_empty());
    }
}
