//! The solver's model of printed output (`smt::output`) against the compare modes' definition
//! (`spec::compare`) on the interpreter's real output: random pairs of programs that only
//! print, one a variation of the other (a literal split over two calls, a value printed instead
//! of its digits, other spacing, case, precision, punctuation). Whenever a symbolic engine says
//! the two print the same — the product of the mutation engine (`verify_against`) or the
//! verified engine ("equivalent as written") — the interpreter's outputs must match under the
//! mode. A failure is a false guarantee.

use std::time::Duration;

use mend::cancel::Cancel;
use mend::engines::verified;
use mend::rng::Rng;
use mend::smt::Budget;
use mend::smt::bmc::{BmcVerdict, verify_against};
use mend::spec::compare::{self, Compare};
use mend::spec::interp::{self, Limits};
use mend::syntax::lower::lower_source;

/// One of `xs`, chosen by `rng`.
fn pick<'a, T>(rng: &mut Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.below(xs.len())]
}

#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    /// A directive and the C expression it prints.
    Value(String, String),
}

type Print = Vec<Piece>;

const TEXTS: &[&str] = &["a", "B", "is", "7", " ", "\\n", ".", ",", "-", "+", "=", "(", ")", ":", "%%", "x1", "0.5"];

fn random_value(rng: &mut Rng) -> Piece {
    let ints = ["-12", "-1", "0", "3", "7", "42", "100"];
    // Infinities and NaN too: each mode says when they print alike.
    let doubles = ["0.5", "-2.25", "3.0", "1e-5", "12345.678", "1.0 / 0.0", "-1.0 / 0.0", "0.0 / 0.0"];
    let chars = ["'a'", "'Z'", "'7'", "' '", "'-'"];
    match rng.below(12) {
        0 => Piece::Value("%d".into(), pick(rng, &ints).to_string()),
        1 => Piece::Value("%i".into(), pick(rng, &ints).to_string()),
        2 => Piece::Value("%u".into(), pick(rng, &ints).to_string()),
        3 => Piece::Value("%5d".into(), pick(rng, &ints).to_string()),
        4 => Piece::Value("%x".into(), pick(rng, &ints).to_string()),
        5 => Piece::Value("%c".into(), pick(rng, &chars).to_string()),
        6 => Piece::Value("%f".into(), pick(rng, &doubles).to_string()),
        7 => Piece::Value("%.2f".into(), pick(rng, &doubles).to_string()),
        8 => Piece::Value("%g".into(), pick(rng, &doubles).to_string()),
        9 => Piece::Value("%ld".into(), format!("{}L", pick(rng, &ints))),
        10 => Piece::Value("% d".into(), pick(rng, &ints).to_string()),
        _ => Piece::Value("%e".into(), pick(rng, &doubles).to_string()),
    }
}

fn random_program(rng: &mut Rng) -> Vec<Print> {
    let prints = 1 + rng.below(3);
    (0..prints)
        .map(|_| {
            let pieces = 1 + rng.below(4);
            (0..pieces)
                .map(|_| if rng.below(2) == 0 { Piece::Text(pick(rng, TEXTS).to_string()) } else { random_value(rng) })
                .collect()
        })
        .collect()
}

/// A variation of `p` that often prints the same under some mode.
fn vary(rng: &mut Rng, p: &[Print]) -> Vec<Print> {
    let mut q = p.to_vec();
    let i = rng.below(q.len());
    match rng.below(9) {
        0 => {}
        // Split a print in two calls.
        1 if q[i].len() > 1 => {
            let at = 1 + rng.below(q[i].len() - 1);
            let rest = q[i].split_off(at);
            q.insert(i + 1, rest);
        }
        // Merge two calls.
        2 if q.len() > 1 && i + 1 < q.len() => {
            let next = q.remove(i + 1);
            q[i].extend(next);
        }
        // Another spacing.
        3 => {
            let at = rng.below(q[i].len() + 1);
            q[i].insert(at, Piece::Text(pick(rng, &[" ", "\\n", "  "]).to_string()));
        }
        // A value printed as its text, or the reverse.
        4 => {
            let at = rng.below(q[i].len());
            q[i][at] = match &q[i][at] {
                Piece::Value(d, v) if d == "%d" && !v.ends_with('L') => Piece::Text(v.clone()),
                Piece::Text(t) if t.parse::<i64>().is_ok() => Piece::Value("%d".into(), t.clone()),
                _ => random_value(rng),
            };
        }
        // Case of a word, or other punctuation.
        5 => {
            let at = rng.below(q[i].len());
            if let Piece::Text(t) = &q[i][at] {
                let other = if t.chars().any(|c| c.is_ascii_lowercase()) {
                    t.to_uppercase()
                } else {
                    pick(rng, TEXTS).to_string()
                };
                q[i][at] = Piece::Text(other);
            }
        }
        // Another conversion of a value.
        6 => {
            let at = rng.below(q[i].len());
            if let Piece::Value(d, v) = &q[i][at] {
                let other = match d.as_str() {
                    "%f" => "%.6f",
                    "%.2f" => "%.2lf",
                    "%.2lf" => "%f",
                    "%e" => "%le",
                    "%d" => "%i",
                    "%i" => "%u",
                    "%u" => "%d",
                    other => other,
                };
                q[i][at] = Piece::Value(other.into(), v.clone());
            }
        }
        // A number printed as a `-` and the negated number (`-12` as `-` and `12`: alike; `3`
        // as `-` and `-3`, or `0` as `-` and `0`: not).
        7 => {
            let at = rng.below(q[i].len());
            if let Piece::Value(d, v) = &q[i][at]
                && d == "%d"
                && let Ok(n) = v.parse::<i64>()
            {
                q[i][at] = Piece::Value(d.clone(), format!("{}", -n));
                q[i].insert(at, Piece::Text("-".into()));
            }
        }
        _ => {
            let at = rng.below(q[i].len());
            q[i].remove(at);
            if q[i].is_empty() {
                q.remove(i);
            }
        }
    }
    if q.is_empty() { p.to_vec() } else { q }
}

fn source(p: &[Print]) -> String {
    let mut s = String::from("#include <stdio.h>\nint main(void) {\n");
    for print in p {
        let mut fmt = String::new();
        let mut args = String::new();
        for piece in print {
            match piece {
                Piece::Text(t) => fmt.push_str(t),
                Piece::Value(d, v) => {
                    fmt.push_str(d);
                    args.push_str(", ");
                    args.push_str(v);
                }
            }
        }
        s.push_str(&format!("    printf(\"{fmt}\"{args});\n"));
    }
    s.push_str("    return 0;\n}\n");
    s
}

fn output(src: &str) -> (String, usize) {
    let lowered = lower_source(src);
    let run = interp::run(&lowered.program, "main", b"", &Limits::default(), &Cancel::new());
    assert!(run.error.is_none(), "{src}: {:?}", run.error);
    (String::from_utf8_lossy(&run.output).into_owned(), run.output_before_last_read)
}

#[test]
fn equal_printed_tokens_mean_equal_output_under_every_mode() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for mode in [Compare::Exact, Compare::Whitespace, Compare::Values] {
        let (mut proved, mut pairs) = (0, 0);
        for _ in 0..150 {
            let a = random_program(&mut rng);
            let b = vary(&mut rng, &a);
            let (sa, sb) = (source(&a), source(&b));
            let (pa, pb) = (lower_source(&sa).program, lower_source(&sb).program);
            let budget = Budget::new(Duration::from_secs(20), Cancel::new());
            let verdict = verify_against(&pa, &pb, mode, "main", 2, &budget).verdict;
            pairs += 1;
            let (oa, ca) = output(&sa);
            let (ob, cb) = output(&sb);
            let same = compare::output_matches(mode, &ob, Some(cb), &oa, Some(ca));
            if matches!(verdict, BmcVerdict::Holds { .. }) {
                proved += 1;
                assert!(
                    same,
                    "{mode}: the product proves equal output, but\n{sa}prints {oa:?}\nand\n{sb}prints {ob:?}"
                );
            }
        }
        // The test must exercise the "equal" side, or it proves nothing.
        assert!(proved * 10 >= pairs, "{mode}: only {proved} of {pairs} pairs were proved equal");
    }
}

#[test]
fn the_verified_engine_agrees_with_the_modes_too() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for mode in [Compare::Exact, Compare::Whitespace, Compare::Values] {
        let mut proved = 0;
        for _ in 0..40 {
            let a = random_program(&mut rng);
            let b = vary(&mut rng, &a);
            let (sa, sb) = (source(&a), source(&b));
            let (pa, pb) = (lower_source(&sa).program, lower_source(&sb).program);
            let (oa, ca) = output(&sa);
            let (ob, cb) = output(&sb);
            let same = compare::output_matches(mode, &ob, Some(cb), &oa, Some(ca));
            let opts = verified::Options {
                entry: "main".into(),
                compare: mode,
                precondition: None,
                floats: verified::FloatModel::Ieee,
                candidates: None,
                line_in_input: true,
                start_values: Vec::new(),
            };
            let budget = Budget::new(Duration::from_secs(5), Cancel::new());
            let v = verified::repair(&pa, &sa, &pb, &opts, &budget);
            if v.outcome == verified::Outcome::Equivalent {
                proved += 1;
                assert!(
                    same,
                    "{mode}: the verified engine proves equal output, but\n{sa}prints {oa:?}\nand\n{sb}prints {ob:?}"
                );
            }
        }
        assert!(proved >= 4, "{mode}: only {proved} pairs were proved equal");
    }
}

/// One print of `arg` with `fmt` against another, in every mode.
type PrintPair<'a> = (&'a str, &'a str, &'a str, &'a str, &'a [Compare]);

/// Each pair of `printf(fmt, arg)` programs is proved equal exactly in the modes it lists,
/// and a proof is true of the interpreter's outputs.
fn assert_proved_in(cases: &[PrintPair<'_>]) {
    let program = |fmt: &str, arg: &str| {
        format!("#include <stdio.h>\nint main(void) {{\n    printf(\"{fmt}\", {arg});\n    return 0;\n}}\n")
    };
    for &(fa, a, fb, b, equal_in) in cases {
        let (sa, sb) = (program(fa, a), program(fb, b));
        let (pa, pb) = (lower_source(&sa).program, lower_source(&sb).program);
        let (oa, ca) = output(&sa);
        let (ob, cb) = output(&sb);
        for mode in [Compare::Exact, Compare::Whitespace, Compare::Values] {
            let budget = Budget::new(Duration::from_secs(20), Cancel::new());
            let proved = matches!(verify_against(&pa, &pb, mode, "main", 2, &budget).verdict, BmcVerdict::Holds { .. });
            assert_eq!(proved, equal_in.contains(&mode), "{mode}: {fa:?} of {a} against {fb:?} of {b}");
            if proved {
                assert!(compare::output_matches(mode, &ob, Some(cb), &oa, Some(ca)), "{mode}: {oa:?} and {ob:?}");
            }
        }
    }
}

const EVERY: &[Compare] = &[Compare::Exact, Compare::Whitespace, Compare::Values];

/// A `-` printed before a number's magnitude (`printf("-%d", k)`) prints what the negative
/// number prints, where that `-` cannot join anything else; `-` before a negative number or
/// a zero does not, and neither does a `-` right after a digit in `values`.
#[test]
fn a_sign_printed_as_text_is_the_number_s_sign() {
    assert_proved_in(&[
        ("x -%d\\n", "12", "x %d\\n", "-12", EVERY),
        ("\\n-%d", "7", "\\n%d", "-7", EVERY),
        ("is:-%d.", "3", "is:%d.", "-3", EVERY),
        ("-%d", "-3", "%d", "3", &[]),
        ("-%d\\n", "0", "%d\\n", "0", &[]),
        ("1-%d\\n", "5", "1%d\\n", "-5", &[Compare::Exact, Compare::Whitespace]),
        ("-%5d\\n", "5", "%5d\\n", "-5", &[]),
    ]);
}

/// A directive is compared by what it prints, not how it is spelled: `%i` is `%d`, `%.2lf` is
/// `%.2f` in printf, `%ld` of a `long` is `%d` of the same `int`, `%0.2f` is `%.2f`; `%u`,
/// `%x` and `%02d` are not `%d`.
#[test]
fn a_directive_is_what_it_prints_not_how_it_is_spelled() {
    assert_proved_in(&[
        ("%i|\\n", "-4", "%d|\\n", "-4", EVERY),
        ("%5i\\n", "42", "%5d\\n", "42", EVERY),
        ("%.2lf|\\n", "2.125", "%.2f|\\n", "2.125", EVERY),
        ("%le|\\n", "0.5", "%e|\\n", "0.5", EVERY),
        ("%ld|\\n", "7L", "%d|\\n", "7", EVERY),
        ("%u|\\n", "-3", "%d|\\n", "-3", &[]),
        ("%x|\\n", "10", "%d|\\n", "10", &[]),
        ("%5d|\\n", "3", "%d|\\n", "3", &[]),
        ("%0.2f|\\n", "2.5", "%.2f|\\n", "2.5", EVERY),
        ("%1d|\\n", "7", "%d|\\n", "7", EVERY),
        ("%-i|\\n", "7", "%d|\\n", "7", EVERY),
        ("%02d|\\n", "7", "%d|\\n", "7", &[]),
    ]);
}
