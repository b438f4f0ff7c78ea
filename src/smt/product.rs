//! Product programs: the student's program and the instructor's reference encoded side by side
//! in one context over one input stream, with "the printed values differ" as a violation (as
//! AllRepair's TCAS experiment inlines the correct version and asserts equal results, here for
//! two separate programs with I/O), under the spec's compare mode.
//!
//! * **Inputs.** Each program's reads are numbered along its path (the `k`-th value read on a
//!   run has position `k`: a prefix sum of the guards of the reads before it, which along any
//!   path are in execution order). The student's and the reference's reads at the same
//!   position read the same token, so their values are equal (integers compared after sign or
//!   zero extension to 64 bits, floating point values of one sort as IEEE values, `%s` words
//!   of equal length and bytes).
//! * **Outputs.** What each program prints (the whole output for `exact` and `whitespace`,
//!   what follows the last input read for `values`: prompts are free there) becomes tokens of
//!   the shared output model ([`super::output`]), which reads the spec's compare mode
//!   soundly: equal tokens and no glue mean equal output under the mode. Glue (printed text
//!   that may run into a printed value) counts as a difference.
//! * **What is compared.** Runs on which both programs complete within the bound; the
//!   reference's own runtime errors are assumed away (an input that crashes the reference is
//!   outside the specification), and so are the inputs its `assume`s reject (the ranges a
//!   proof for inputs like the tests' assumes). The student's runtime errors on every other
//!   input stay violations.
//!
//! Unsupported (the product is then not built): lines read (`fgets`, `gets`) and `%Ns` words
//! cut by their width (positions would no longer count tokens), strings of characters printed
//! in the `values` mode (their bytes make words the output model does not split), and an
//! integer read against a floating point one at the same position.

use z3::Context;
use z3::ast::{Ast, BV, Bool};

use crate::ir::format::{self, Piece};
use crate::ir::{IntType, Program, Span, Type};
use crate::spec::compare::Compare;

use super::floats::{FloatModel, Floats};
use super::output::{self, Printed, Printer, Token};

use super::encode::exec::SymVal;
use super::encode::{
    self, EncodeOptions, Encoding, InputSource, OutValue, StringRead, Unsupported, Violation, ViolationKind,
};

/// Whether the product reads its input as characters: one of the two programs does, and the
/// two encodings then share one byte sequence by name.
pub fn reads_chars(student: &Program, reference: &Program) -> Result<bool, Unsupported> {
    let reference_chars = encode::reads_chars(reference).map_err(|u| Unsupported {
        what: format!("the reference uses {}", u.what),
        span: Span::default(),
        ..u
    })?;
    Ok(reference_chars || encode::reads_chars(student)?)
}

/// The product of `student` (encoded with `opts`, alternatives included) and `reference`:
/// the student's encoding with the reference's constraints added, the inputs linked, and an
/// [`ViolationKind::OutputMismatch`] violation.
pub fn encode_product<'ctx>(
    ctx: &'ctx Context,
    student: &Program,
    reference: &Program,
    entry: &str,
    compare: Compare,
    opts: &EncodeOptions<'_>,
) -> Result<Encoding<'ctx>, Unsupported> {
    // Both programs read one input: if one asks whether it ran out, both model its end.
    let input_ends = opts.input_ends || encode::input_ends(student, entry) || encode::input_ends(reference, entry);
    let chars = opts.chars || reads_chars(student, reference)?;
    let mut enc = encode::encode(ctx, student, entry, &EncodeOptions { input_ends, chars, ..*opts })?;
    let ref_opts = EncodeOptions {
        namespace: "ref.",
        input_ends,
        chars,
        floats: opts.floats,
        line_in_input: opts.line_in_input,
        absent_chars: opts.absent_chars,
        no_negative_zero: opts.no_negative_zero,
        min_lines: opts.min_lines,
        max_lines: opts.max_lines,
        ..EncodeOptions::new(opts.bound)
    };
    let no_nan = opts.reference_prints_no_nan;
    let r = encode::encode(ctx, reference, entry, &ref_opts).map_err(|u| Unsupported {
        func: u.func,
        what: format!("the reference uses {}", u.what),
        span: Span::default(),
    })?;
    let unsupported = |what: &str| Unsupported { func: None, what: what.to_string(), span: Span::default() };
    for i in enc.inputs.iter().chain(&r.inputs) {
        match &i.string {
            Some(_) if i.conv != 's' => return Err(unsupported("a line read compared with a reference")),
            _ => {}
        }
    }

    // Inputs: equal values at equal positions.
    let s_pos = output::positions(ctx, enc.inputs.iter().map(|i| &i.guard));
    let r_pos = output::positions(ctx, r.inputs.iter().map(|i| &i.guard));
    let mut links = Vec::new();
    // Where an integer read and a floating-point read of the two programs take the same token.
    let mut unlinkable = Vec::new();
    for (i, a) in enc.inputs.iter().enumerate() {
        for (j, b) in r.inputs.iter().enumerate() {
            if matches!(a.source, InputSource::Chars) || matches!(b.source, InputSource::Chars) {
                continue;
            }
            let at = Bool::and(ctx, &[&a.guard, &b.guard, &s_pos[i]._eq(&r_pos[j])]).simplify();
            // Reads that can never take the same token need no link (`scanf("%d")` then
            // `scanf("%lf")` in both programs: the integer never meets the float).
            if at.as_bool() == Some(false) {
                continue;
            }
            let same = match (&a.string, &b.string) {
                (Some(x), Some(y)) => same_word(ctx, x, y),
                _ => match same_value(ctx, &a.value, &a.ty, &b.value, &b.ty) {
                    Some(same) => same,
                    None => {
                        unlinkable.push(at);
                        continue;
                    }
                },
            };
            links.push(at.implies(&same));
        }
    }
    // Reads of two kinds that never take the same token (`%d` then `%f` in a loop in both
    // programs, counted differently) need no link; where they might, the two values are
    // unrelated in the model. One check for all such pairs.
    if !unlinkable.is_empty() && !never_meet(ctx, &unlinkable, enc.bit_vectors_only && r.bit_vectors_only) {
        return Err(unsupported("an input read as a number of another kind than the reference reads it"));
    }

    // Outputs: the tokens printed (after the last read, in the `values` mode), in order. Where
    // printed text may run into a printed value, the tokens are not the output's: counted as
    // a difference (a missed proof, never a false one).
    let s_out = printed_tokens(ctx, &enc, compare, opts.floats)?;
    let r_out = printed_tokens(ctx, &r, compare, opts.floats)?;
    let s_items: Vec<(Bool<'ctx>, &Token<'ctx>)> = s_out.tokens.iter().map(|(g, t)| (g.clone(), t)).collect();
    let r_items: Vec<(Bool<'ctx>, &Token<'ctx>)> = r_out.tokens.iter().map(|(g, t)| (g.clone(), t)).collect();
    let mut differ = vec![output::sequences_differ(ctx, &s_items, &r_items)];
    differ.extend(s_out.glue.iter().chain(&r_out.glue).cloned());
    let differ: Vec<&Bool<'ctx>> = differ.iter().collect();
    let mismatch = Bool::and(ctx, &[&enc.completes, &r.completes, &Bool::or(ctx, &differ)]);
    let at = student.name_span_of(entry);

    enc.bit_vectors_only &= r.bit_vectors_only;
    enc.hard.extend(r.hard);
    enc.line_assumed |= r.line_assumed;
    enc.hard.extend(links);
    // The reference's own runtime errors, and the inputs its `assume`s reject: outside the
    // specification, so no violation of the student's counts there either.
    enc.hard.extend(r.violations.iter().map(|v| v.cond.not()));
    enc.hard.extend(r.rejects.iter().map(|b| b.not()));
    if no_nan {
        enc.hard.extend(r_out.nans.iter().map(Bool::not));
    }
    enc.violations.push(Violation { kind: ViolationKind::OutputMismatch, span: at, cond: mismatch });
    enc.unwinding.extend(r.unwinding);
    enc.outlasts = Some(Bool::and(ctx, &[&r.completes, &enc.completes.not()]));
    enc.completes = Bool::and(ctx, &[&enc.completes, &r.completes]);
    Ok(enc)
}

/// None of the conditions that two reads take the same token (`meets`) is satisfiable:
/// decided by the solver (the positions are sums over loop guards that the simplifier does
/// not fold), within a short slice; no answer counts as "they may meet".
fn never_meet<'ctx>(ctx: &'ctx Context, meets: &[Bool<'ctx>], bit_vectors_only: bool) -> bool {
    let solver = super::solver::one_shot_solver(ctx, bit_vectors_only);
    solver.assert(&Bool::or(ctx, &meets.iter().collect::<Vec<_>>()));
    // Z3's resource count, not the clock, bounds the question, so a loaded machine gets the
    // answer an idle one does (a 200 ms slice once made a product "unsupported" under CI's
    // load, for a query that takes 3 ms alone); the clock only stops a runaway.
    let budget = super::Budget::new(MEET_SLICE, crate::cancel::Cancel::new());
    super::solver::check_with_effort(&solver, &[], MEET_EFFORT, &budget).is_unsat()
}

/// The effort of [`never_meet`]: the fixture suite's questions take at most 6,000.
const MEET_EFFORT: super::solver::Effort = super::solver::Effort(100_000);
/// How long [`never_meet`] may take at most, whatever its resource count.
const MEET_SLICE: std::time::Duration = std::time::Duration::from_secs(2);

/// The tokens a program prints (in the `values` mode: after its last input read), each with
/// the condition that it is printed then, and the conditions under which those tokens are not
/// the output's (glue, see [`super::output`]).
fn printed_tokens<'ctx>(
    ctx: &'ctx Context,
    enc: &Encoding<'ctx>,
    compare: Compare,
    model: FloatModel,
) -> Result<PrintedOutput<'ctx>, Unsupported> {
    let mut fp = Floats::new(ctx, model);
    let mut out = Vec::new();
    let mut glue = Vec::new();
    let mut nans = Vec::new();
    // The output so far ends in whitespace (it is empty at the start, and in the `values`
    // mode the compared part starts fresh after the last read).
    let mut at_ws = Bool::from_bool(ctx, true);
    for entry in &enc.output {
        let compared = if compare == Compare::Values {
            let later_reads: Vec<&Bool<'ctx>> = (enc.inputs.iter().map(|r| (r.seq, &r.guard)))
                .chain(enc.scanf_reads.iter().map(|(seq, g)| (*seq, g)))
                .filter(|(seq, _)| *seq > entry.seq)
                .map(|(_, g)| g)
                .collect();
            Bool::or(ctx, &later_reads).not().simplify()
        } else {
            Bool::from_bool(ctx, true)
        };
        let printed = Bool::and(ctx, &[&entry.guard, &compared]).simplify();
        if printed.as_bool() == Some(false) {
            at_ws = entry.guard.ite(&Bool::from_bool(ctx, true), &at_ws).simplify();
            continue;
        }
        let unsupported = |what: &str| Unsupported { func: None, what: what.to_string(), span: entry.span };
        let pieces = format::parse(&entry.format, false)
            .map_err(|_| unsupported("a malformed format compared with a reference"))?;
        let mut values = entry.values.iter();
        let mut p: Printer<'ctx, ()> = Printer::new(ctx, compare, at_ws.clone());
        for piece in pieces {
            match piece {
                Piece::Literal(bytes) => p.text(&bytes),
                Piece::Directive(d) => match values.next() {
                    Some(OutValue::Text(bytes)) => p.text(bytes),
                    Some(OutValue::Chars(bytes)) => {
                        let plain = d.width == format::Count::None && d.precision == format::Count::None;
                        let Some((tokens, _)) =
                            output::string_bytes(ctx, compare, bytes.iter().cloned(), &printed).filter(|_| plain)
                        else {
                            let how = if plain { "in the `values` mode" } else { "with a width or precision" };
                            return Err(unsupported(&format!("printing a string compared with a reference {how}")));
                        };
                        // What was printed before, then the string byte by byte (a string that
                        // runs past its array is the encoding's own violation).
                        let before = std::mem::replace(&mut p, Printer::new(ctx, compare, Bool::from_bool(ctx, false)));
                        collect(before.finish(), &printed, &mut out, &mut glue);
                        out.extend(tokens);
                    }
                    Some(v @ (OutValue::Int { .. } | OutValue::Float { .. })) => {
                        let value = match v {
                            OutValue::Float { value, kind } => {
                                Printed::float(&mut fp, &z3::ast::Dynamic::from_ast(value), *kind)
                            }
                            OutValue::Int { value, ty } => Printed::Int(value.clone(), *ty),
                            _ => unreachable!("matched above"),
                        };
                        if let Printed::Double { nan, .. } = &value {
                            nans.push(Bool::and(ctx, &[&printed, nan]));
                        }
                        let printed = value;
                        p.value_starts(&d);
                        let token = output::value_token(compare, &d, printed).map_err(|w| unsupported(&w))?;
                        p.value(token, ());
                    }
                    None => {}
                },
            }
        }
        let done = p.finish();
        let ws = done.ws.clone();
        collect(done, &printed, &mut out, &mut glue);
        let ends_ws = compared.ite(&ws, &Bool::from_bool(ctx, true));
        at_ws = entry.guard.ite(&ends_ws, &at_ws).simplify();
    }
    Ok(PrintedOutput { tokens: out, glue, nans })
}

/// A finished print's tokens and glue, printed when `printed` holds.
fn collect<'ctx>(
    done: output::Done<'ctx, ()>,
    printed: &Bool<'ctx>,
    out: &mut Vec<(Bool<'ctx>, Token<'ctx>)>,
    glue: &mut Vec<Bool<'ctx>>,
) {
    let ctx = printed.get_ctx();
    out.extend(done.tokens.into_iter().map(|(t, ())| (printed.clone(), t)));
    glue.extend(
        done.glue.into_iter().map(|c| Bool::and(ctx, &[printed, &c]).simplify()).filter(|c| c.as_bool() != Some(false)),
    );
}

/// The guarded tokens a program prints and its glue conditions.
struct PrintedOutput<'ctx> {
    tokens: Vec<(Bool<'ctx>, Token<'ctx>)>,
    glue: Vec<Bool<'ctx>>,
    /// The conditions under which a NaN is printed.
    nans: Vec<Bool<'ctx>>,
}

fn widen<'ctx>(v: &BV<'ctx>, t: IntType) -> BV<'ctx> {
    crate::smt::c_int::resize(v, t.signed, 64)
}

/// "Both read the same word": equal lengths, equal bytes. Each side models words up to its
/// own cap, so the shorter cap bounds both.
fn same_word<'ctx>(ctx: &'ctx Context, a: &StringRead<'ctx>, b: &StringRead<'ctx>) -> Bool<'ctx> {
    let mut same = vec![a.len._eq(&b.len)];
    for (k, (x, y)) in a.chars.iter().zip(&b.chars).enumerate() {
        let inside = BV::from_u64(ctx, k as u64, a.len.get_size()).bvult(&a.len);
        same.push(inside.implies(&x._eq(y)));
    }
    let refs: Vec<&Bool<'ctx>> = same.iter().collect();
    Bool::and(ctx, &refs)
}

/// "Both read the same token": equal numbers; `None` for an integer against a float.
fn same_value<'ctx>(
    ctx: &'ctx Context,
    a: &SymVal<'ctx>,
    at: &Type,
    b: &SymVal<'ctx>,
    bt: &Type,
) -> Option<Bool<'ctx>> {
    match (a, at, b, bt) {
        (SymVal::Int(x), Type::Int(tx), SymVal::Int(y), Type::Int(ty)) => Some(widen(x, *tx)._eq(&widen(y, *ty))),
        (SymVal::Float(x), _, SymVal::Float(y), _) if x.get_sort() == y.get_sort() => Some(x._eq(y)),
        (SymVal::Void, _, _, _) | (_, _, SymVal::Void, _) => Some(Bool::from_bool(ctx, true)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::smt::Budget;
    use crate::smt::bmc::{BmcVerdict, verify_against};
    use crate::smt::encode::ViolationKind;
    use crate::spec::compare::Compare;
    use crate::syntax::lower::lower_source;

    const REFERENCE: &str = "#include <stdio.h>\nint main(void) { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a > b ? a : b); return 0; }";

    #[test]
    fn a_printed_character_is_the_word_or_digit_it_spells() {
        use super::Token;
        use z3::ast::{Ast, BV};
        let ctx = crate::smt::solver::new_context();
        let byte = |b: u8| Token::Char(BV::from_u64(&ctx, b as u64, 8));
        let equal = |a: Token<'_>, b: Token<'_>| a.equal(&ctx, &b).simplify().as_bool();
        assert_eq!(equal(byte(b'F'), Token::Word("f".into())), Some(true));
        assert_eq!(equal(Token::Word("f".into()), byte(b'f')), Some(true));
        assert_eq!(equal(byte(b'F'), Token::Word("g".into())), Some(false));
        assert_eq!(equal(byte(b'F'), Token::Word("ff".into())), Some(false));
        assert_eq!(equal(byte(b'.'), Token::Word(".".into())), Some(false));
        assert_eq!(equal(byte(b'7'), Token::Number(7.0)), Some(true));
        assert_eq!(equal(byte(b'7'), Token::Number(17.0)), Some(false));
        assert_eq!(equal(byte(b'7'), Token::Int(BV::from_i64(&ctx, 7, 32), crate::ir::IntType::INT)), Some(true));
        assert_eq!(equal(byte(b'7'), Token::Int(BV::from_i64(&ctx, -7, 32), crate::ir::IntType::INT)), Some(false));
        // Two characters: the same byte, case and all.
        assert_eq!(equal(byte(b'F'), byte(b'f')), Some(false));
    }

    fn verdict(student: &str) -> BmcVerdict {
        verdict_against(REFERENCE, student, Compare::Values)
    }

    /// The product's verdict on `student` against `reference`, loops unwound 3 times.
    fn verdict_against(reference: &str, student: &str, compare: Compare) -> BmcVerdict {
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let budget = Budget::new(std::time::Duration::from_secs(30), Cancel::new());
        verify_against(&s, &r, compare, "main", 3, &budget).verdict
    }

    #[test]
    fn same_values_through_other_prompts_and_branches_are_equivalent() {
        let student = "#include <stdio.h>\nint main(void) { int x, y; printf(\"Two numbers: \"); scanf(\"%d%d\", &x, &y);\n if (x >= y) printf(\"%d\\n\", x); else printf(\"%d\\n\", y); return 0; }";
        assert!(matches!(verdict(student), BmcVerdict::Holds { complete: true }), "{:?}", verdict(student));
    }

    #[test]
    fn a_different_value_is_a_mismatch_with_the_input_that_shows_it() {
        let student = "#include <stdio.h>\nint main(void) { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a < b ? a : b); return 0; }";
        match verdict(student) {
            BmcVerdict::Violated(cex) => {
                assert_eq!(cex.kind, ViolationKind::OutputMismatch);
                let nums: Vec<i64> = cex.stdin.split_whitespace().map(|t| t.parse().unwrap()).collect();
                assert_ne!(nums[0], nums[1], "equal inputs print the same: {}", cex.stdin);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn literal_words_after_the_last_read_count_prompts_do_not() {
        let reference = "#include <stdio.h>\nint main(void) { int n; scanf(\"%d\", &n); if (n > 1) printf(\"%d is prime\\n\", n); else printf(\"%d is not prime\\n\", n); return 0; }";
        let student = "#include <stdio.h>\nint main(void) { int n; printf(\"Number please: \"); scanf(\"%d\", &n); printf(\"%d is prime\\n\", n); return 0; }";
        let fixed = "#include <stdio.h>\nint main(void) { int n; printf(\"Number please: \"); scanf(\"%d\", &n); if (n >= 2) printf(\"%d IS prime\\n\", n); else printf(\"%d is not prime\\n\", n); return 0; }";
        let verdict = |s: &str| verdict_against(reference, s, Compare::Values);
        assert!(matches!(verdict(student), BmcVerdict::Violated(_)), "`is prime` vs `is not prime` must differ");
        assert!(matches!(verdict(fixed), BmcVerdict::Holds { complete: true }), "{:?}", verdict(fixed));
    }

    /// A `scanf` that matches nothing (`%[^\n]` on an empty line) is still the read its prompt
    /// asked for, as in the interpreter: the prompt before it is not compared, so a line read
    /// with `%18[^\n]` into a zeroed array is the reference's `fgets` without its line break.
    #[test]
    fn a_prompt_before_a_read_that_matches_nothing_is_not_compared() {
        let reference = "#include <stdio.h>\nint main(void) { char g[40]; printf(\"Line > \"); fgets(g, 20, stdin); printf(\"%d\\n\", g[0] == '\\n'); return 0; }";
        let student = "#include <stdio.h>\nint main(void) { char s[21] = {0}; printf(\"Line > \"); scanf(\"%18[^\\n]\", s); printf(\"%d\\n\", s[0] == 0); return 0; }";
        let verdict = verdict_against(reference, student, Compare::Values);
        assert!(matches!(verdict, BmcVerdict::Holds { .. }), "{verdict:?}");
    }

    /// A `%s` word is one token for both programs, and a printed `char` array a token per
    /// byte: the same word printed back is equivalent, its first letter changed is not.
    #[test]
    fn words_read_and_printed_back_are_compared_byte_by_byte() {
        let reference =
            "#include <stdio.h>\nint main(void) { char w[16]; scanf(\"%s\", w); printf(\"[%s]\\n\", w); return 0; }";
        let same = "#include <stdio.h>\nint main(void) { char s[16]; int n; scanf(\"%s\", s); printf(\"[\"); printf(\"%s]\\n\", s); return 0; }";
        let upper = "#include <stdio.h>\nint main(void) { char s[16]; scanf(\"%s\", s); if (s[0] >= 'a' && s[0] <= 'z') s[0] = s[0] - 32; printf(\"[%s]\\n\", s); return 0; }";
        let verdict = |s: &str| verdict_against(reference, s, Compare::Exact);
        assert!(matches!(verdict(same), BmcVerdict::Holds { .. }), "{:?}", verdict(same));
        match verdict(upper) {
            BmcVerdict::Violated(cex) => {
                let word = cex.stdin.trim();
                assert!(
                    word.starts_with(|c: char| c.is_ascii_lowercase()),
                    "a lowercase first letter shows it: {word:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// The mean of `n` numbers read in a loop, as a `for` and as a `while (++i <= n)`: the same
    /// float operations on the same tokens, proved in the opaque float model (the IEEE
    /// circuits of the sums ran past a minute), `n = 0` and its `-nan` included. An average
    /// computed in another order is never proved: rounding makes it another number.
    #[test]
    fn the_same_float_computation_is_proved_and_another_order_is_not() {
        let reference = "#include <stdio.h>\nint main(void) { int n, i; float s = 0, v; scanf(\"%d\", &n);\n for (i = 0; i < n; i++) { scanf(\"%f\", &v); s += v; }\n printf(\"%.2f\\n\", s / n); return 0; }";
        let student = "#include <stdio.h>\nint main(void) { int n, i = 0; float x, sum = 0, mean; scanf(\"%d\", &n);\n while (++i <= n) { scanf(\"%f\", &x); sum += x; }\n mean = sum / n; printf(\"%.2f\\n\", mean); return 0; }";
        assert!(
            matches!(verdict_against(reference, student, Compare::Exact), BmcVerdict::Holds { complete: false }),
            "{:?}",
            verdict_against(reference, student, Compare::Exact)
        );
        let two = "#include <stdio.h>\nint main(void) { double a, b; scanf(\"%lf %lf\", &a, &b); printf(\"%f\\n\", (a + b) / 2); return 0; }";
        let halves = "#include <stdio.h>\nint main(void) { double a, b; scanf(\"%lf %lf\", &a, &b); printf(\"%f\\n\", a / 2 + b / 2); return 0; }";
        assert!(!matches!(verdict_against(two, halves, Compare::Exact), BmcVerdict::Holds { .. }));
        let renamed = "#include <stdio.h>\nint main(void) { double x, y, m; scanf(\"%lf%lf\", &x, &y); m = (x + y) / 2.0; printf(\"%f\\n\", m); return 0; }";
        assert!(matches!(verdict_against(two, renamed, Compare::Exact), BmcVerdict::Holds { complete: true }));
    }

    /// `(a * a - a * a) * 1` is `a * a - a * a` in IEEE but for a NaN (`inf - inf` when the
    /// square overflows), whose printed sign the solver does not know: no proof for every
    /// input, a proof where the reference prints no NaN. (The opaque float model proves
    /// neither: two operations, two terms.)
    #[test]
    fn a_nan_is_left_out_only_when_the_reference_promises_none() {
        use crate::smt::bmc::{Assumptions, verify_against_assuming};
        let reference = "#include <stdio.h>\nint main(void) { float a; scanf(\"%f\", &a); printf(\"%f\\n\", a * a - a * a); return 0; }";
        let student = "#include <stdio.h>\nint main(void) { float a; scanf(\"%f\", &a); printf(\"%f\\n\", (a * a - a * a) * 1); return 0; }";
        let everywhere = verdict_against(reference, student, Compare::Exact);
        assert!(matches!(everywhere, BmcVerdict::Violated(_)), "{everywhere:?}");
        let (s, r) = (lower_source(student).program, lower_source(reference).program);
        let budget = Budget::new(std::time::Duration::from_secs(30), Cancel::new());
        let assume = Assumptions { reference_prints_no_nan: true, ..Assumptions::default() };
        let where_no_nan = verify_against_assuming(&s, &r, Compare::Exact, "main", 3, assume, &budget).verdict;
        assert!(matches!(where_no_nan, BmcVerdict::Holds { complete: true }), "{where_no_nan:?}");
    }

    #[test]
    fn printing_one_value_too_many_is_a_mismatch() {
        let student = "#include <stdio.h>\nint main(void) { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d %d\\n\", a > b ? a : b, a); return 0; }";
        assert!(matches!(verdict(student), BmcVerdict::Violated(_)));
    }
}
