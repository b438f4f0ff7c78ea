//! The printed output as the solver compares it: one model of the three compare modes
//! (`spec::compare` defines them on concrete text) shared by every symbolic executor — the
//! verified engine's regions and the product of a student's program with the reference.
//!
//! A print becomes a sequence of [`Token`]s plus *glue* conditions. The model is sound: when
//! two programs print equal token sequences and no glue condition holds, their outputs are
//! equal under the mode (`tests/output_model.rs` checks this against `spec::compare` on random
//! prints). It may be stricter than the mode (a difference where the mode sees none: a missed
//! proof, never a false one):
//!
//! * `exact`: every literal byte is a token; a printed value is a marker naming its whole
//!   directive (`%5.2f`) followed by the value, so equal tokens print equal text.
//! * `whitespace`: as `exact` with every whitespace byte read as a space (runs are not folded
//!   and the ends are not trimmed: stricter than the mode).
//! * `values`: literal text is split as `spec::compare::value_tokens` splits output (words in
//!   lower case, numbers, punctuation standing alone), except that punctuation in the same
//!   whitespace-separated chunk as a printed number is dropped, as the mode drops it. A
//!   printed integer (`%d`, `%i`, `%u`) is compared by the value it prints (after the
//!   directive's length modifier), a floating point value by its bits and its conversion and
//!   precision (two values that print alike but differ count as different), only when finite
//!   (`inf` is a word there, and a letter next to it would merge with it).
//!   `%c` is a one-character word (equal to the letter, case aside, or digit it spells).
//!   Other conversions (`%x`, `%o`, `%a`) and padded values (a width, a space flag) carry
//!   their directive as a marker. Glue: wherever the text around a printed value could merge
//!   with it into other tokens (a digit, a sign or a `.` next to a number, any non-space next
//!   to `%c`, a padded or marked value, text printed by another call straight after
//!   non-space output), a glue condition says the tokens are not the output's.

use z3::Context;
use z3::ast::{Ast, BV, Bool, Dynamic};

use crate::ir::format::{Count, Directive, Length};
use crate::ir::{IntKind, IntType};
use crate::spec::compare::{self, Compare};

/// One printed token.
#[derive(Clone, Debug)]
pub enum Token<'ctx> {
    /// Literal text: a word (lower case) or punctuation in `values`, one byte otherwise, or the
    /// marker of a directive (`%5.2f`, never equal to literal text).
    Word(String),
    /// A number in literal text (`values`).
    Number(f64),
    /// A printed integer: the value the directive prints, of the directive's width and sign.
    Int(BV<'ctx>, IntType),
    /// A printed floating point value (as a double), the conversion and precision that print
    /// it, and when two equal values are known to print alike: never for NaN (the solver's
    /// floats have one NaN, C's print `nan` or `-nan` by a sign bit they do not keep), and in
    /// `values` only when finite (see the module documentation).
    Float { value: Dynamic<'ctx>, key: String, comparable: Bool<'ctx> },
    /// A byte printed with `%c` (or `putchar`) in the `values` mode, as a word of its own.
    Char(BV<'ctx>),
    /// A byte printed with an unpadded `%c` (or `putchar`) in `exact` and `whitespace`, where
    /// literal text is a token per character: equal to the one-byte character it prints (in
    /// `whitespace`, a whitespace byte is already a space, as literal text reads). Not a
    /// marker and a value: then `putchar(c)` and `printf("*")` could never print alike, and a
    /// counterexample's concrete instance (where `c` is the constant `'*'`, printed as text)
    /// disagreed with the check that found it.
    Byte(BV<'ctx>),
}

/// Bits to compare integers in: wider than 64, so an unsigned 64-bit value and a negative
/// one never look alike.
const WIDE: u32 = 72;

impl<'ctx> Token<'ctx> {
    pub fn equal(&self, ctx: &'ctx Context, other: &Token<'ctx>) -> Bool<'ctx> {
        let constant = |b: bool| Bool::from_bool(ctx, b);
        let int_is = |x: &BV<'ctx>, t: IntType, n: f64| {
            if n.fract() == 0.0 && n.abs() < 9.0e18 {
                widen(x, t)._eq(&BV::from_i64(ctx, n as i64, WIDE))
            } else {
                constant(false)
            }
        };
        match (self, other) {
            (Token::Word(a), Token::Word(b)) => constant(a == b),
            (Token::Number(a), Token::Number(b)) => constant(a == b),
            (Token::Int(x, tx), Token::Int(y, ty)) => widen(x, *tx)._eq(&widen(y, *ty)),
            (
                Token::Float { value: x, key: kx, comparable: fx },
                Token::Float { value: y, key: ky, comparable: fy },
            ) if kx == ky && x.get_sort() == y.get_sort() => Bool::and(ctx, &[&x._eq(y), fx, fy]),
            (Token::Int(x, t), Token::Number(n)) | (Token::Number(n), Token::Int(x, t)) => int_is(x, *t, *n),
            // Two printed characters: the same byte (stricter than the mode, which would
            // also take another case of a letter).
            (Token::Char(x), Token::Char(y)) => x._eq(y),
            // A character standing alone is the word or digit it spells; words are
            // lowercase, so the letter is compared in lowercase. Punctuation and whitespace
            // equal nothing but the same character printed.
            (Token::Char(x), Token::Word(w)) | (Token::Word(w), Token::Char(x)) => match w.as_bytes() {
                [c] if c.is_ascii_alphabetic() => {
                    let upper =
                        x.bvuge(&BV::from_u64(ctx, b'A' as u64, 8)) & x.bvule(&BV::from_u64(ctx, b'Z' as u64, 8));
                    let lower = upper.ite(&x.bvadd(&BV::from_u64(ctx, 32, 8)), x);
                    lower._eq(&BV::from_u64(ctx, *c as u64, 8))
                }
                _ => constant(false),
            },
            (Token::Byte(x), Token::Byte(y)) => x._eq(y),
            (Token::Byte(x), Token::Word(w)) | (Token::Word(w), Token::Byte(x)) => match w.as_bytes() {
                [c] => x._eq(&BV::from_u64(ctx, *c as u64, 8)),
                _ => constant(false),
            },
            (Token::Char(x), Token::Number(n)) | (Token::Number(n), Token::Char(x))
                if n.fract() == 0.0 && (0.0..=9.0).contains(n) =>
            {
                x._eq(&BV::from_u64(ctx, b'0' as u64 + *n as u64, 8))
            }
            (Token::Char(x), Token::Int(y, t)) | (Token::Int(y, t), Token::Char(x)) => {
                let y = widen(y, *t);
                let digit = y.bvsge(&BV::from_i64(ctx, 0, WIDE)) & y.bvsle(&BV::from_i64(ctx, 9, WIDE));
                digit & x.zero_ext(WIDE - 8)._eq(&y.bvadd(&BV::from_u64(ctx, b'0' as u64, WIDE)))
            }
            _ => constant(false),
        }
    }
}

fn widen<'ctx>(v: &BV<'ctx>, t: IntType) -> BV<'ctx> {
    super::c_int::resize(v, t.signed, WIDE)
}

/// A value handed to a directive.
pub enum Printed<'ctx> {
    /// An integer of its (promoted) C type.
    Int(BV<'ctx>, IntType),
    /// A floating point value converted to double (as a variadic argument is).
    Double { value: Dynamic<'ctx>, finite: Bool<'ctx>, nan: Bool<'ctx> },
}

impl<'ctx> Printed<'ctx> {
    /// A floating point value of kind `kind` as printf receives it: promoted to double.
    pub(crate) fn float(
        floats: &mut super::floats::Floats<'ctx>,
        x: &Dynamic<'ctx>,
        kind: crate::ir::FloatKind,
    ) -> Self {
        let x = if kind == crate::ir::FloatKind::Double {
            x.clone()
        } else {
            floats.convert(x, crate::ir::FloatKind::Double)
        };
        // Opaque floats are the machine's bits: a NaN's sign is among them, so two equal
        // values print alike, NaN or not.
        let nan = if floats.model() == super::floats::FloatModel::Opaque {
            z3::ast::Bool::from_bool(x.get_ctx(), false)
        } else {
            floats.is_nan(&x)
        };
        Printed::Double { finite: floats.is_finite(&x), nan, value: x }
    }
}

/// How the text around a printed value may touch it (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// A sign, digits, a point, an exponent: never spaces, never a letter first or last.
    Number,
    /// Anything else (`%c`, `%x`, a padded value): only whitespace may touch it.
    Opaque,
}

/// The token a directive prints for `value`, or why it is not modelled.
pub fn value_token<'ctx>(compare: Compare, d: &Directive, value: Printed<'ctx>) -> Result<Token<'ctx>, String> {
    let key = || {
        let p = match d.precision {
            Count::Fixed(p) => p,
            _ => 6,
        };
        format!("{}.{p}", d.conv.to_ascii_lowercase())
    };
    match (value, d.conv) {
        (Printed::Int(x, _), 'c') => {
            let byte = x.extract(7, 0);
            Ok(match compare {
                Compare::Values => Token::Char(byte),
                _ if !plain_char(d) => Token::Int(byte, IntType::UCHAR),
                Compare::Exact => Token::Byte(byte),
                Compare::Whitespace => {
                    // As literal text folds it: the ASCII whitespace `char::is_whitespace` knows.
                    let ctx = byte.get_ctx();
                    let b = |v: u8| BV::from_u64(ctx, v as u64, 8);
                    let space = Bool::or(ctx, &[&byte._eq(&b(b' ')), &(byte.bvuge(&b(0x09)) & byte.bvule(&b(0x0d)))]);
                    Token::Byte(space.ite(&b(b' '), &byte).simplify())
                }
            })
        }
        (Printed::Int(x, t), 'd' | 'i' | 'u' | 'x' | 'X' | 'o') => {
            // The argument (promoted by its own type) read as the directive's type.
            let (kind, bits) = match d.length {
                Length::Char => (IntKind::Char, 8),
                Length::Short => (IntKind::Short, 16),
                Length::None => (IntKind::Int, 32),
                _ => (IntKind::Long, 64),
            };
            let as_read = super::c_int::resize(&super::c_int::resize(&x, t.signed, 64), false, bits);
            Ok(Token::Int(as_read, IntType { kind, signed: matches!(d.conv, 'd' | 'i') }))
        }
        (Printed::Double { value, finite, nan }, 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A') => {
            let comparable = if compare == Compare::Values { finite } else { nan.not() };
            Ok(Token::Float { value, key: key(), comparable })
        }
        (_, conv) => Err(format!("printing this value with `%{conv}`")),
    }
}

/// The marker of a directive: what it prints, not how it is spelled (`%5.2f`). `%i` prints
/// as `%d` does; an integer's length modifier is in its value token (it decides how the
/// argument is read, [`value_token`]); an `l` before a floating conversion changes nothing
/// in printf (`%.2lf` is `%.2f`); a width of 0 or 1 pads nothing, and without a width that
/// pads, the flags `0` and `-` do nothing (`%0.2f` is `%.2f`). Other flags, a width that
/// pads and the precision stay as written.
fn marker(d: &Directive) -> String {
    let count = |c: &Count| match c {
        Count::None => String::new(),
        Count::Fixed(n) => n.to_string(),
        Count::Star => "*".into(),
    };
    let precision = if d.precision == Count::None { String::new() } else { format!(".{}", count(&d.precision)) };
    let length = match (d.length, d.conv) {
        (Length::None, _) | (_, 'd' | 'i' | 'u' | 'x' | 'X' | 'o') => "",
        (Length::Long, _) if d.is_float() => "",
        (Length::Char, _) => "hh",
        (Length::Short, _) => "h",
        (Length::Long, _) => "l",
        (Length::LongLong, _) => "ll",
        (Length::LongDouble, _) => "L",
        (Length::Size, _) => "z",
    };
    let conv = if d.conv == 'i' { 'd' } else { d.conv };
    let pads = wide(d);
    let flags: String = d.flags.chars().filter(|c| pads || !matches!(c, '0' | '-')).collect();
    let width = if pads { count(&d.width) } else { String::new() };
    format!("%{flags}{width}{precision}{length}{conv}")
}

/// A width that can pad: more than one character.
fn wide(d: &Directive) -> bool {
    !matches!(d.width, Count::None | Count::Fixed(0) | Count::Fixed(1))
}

/// `%c` printing exactly its byte: no width beyond one (a padded one carries a marker).
fn plain_char(d: &Directive) -> bool {
    d.conv == 'c' && !wide(d)
}

fn shape(compare: Compare, d: &Directive) -> Shape {
    let padded = wide(d) || d.flags.contains(' ');
    if compare == Compare::Values && !padded && matches!(d.conv, 'd' | 'i' | 'u' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G') {
        Shape::Number
    } else {
        Shape::Opaque
    }
}

/// The tokens of one print (a `printf` call's pieces in order) and where they may glue.
#[derive(Clone)]
pub struct Printer<'ctx, D> {
    ctx: &'ctx Context,
    compare: Compare,
    pub tokens: Vec<(Token<'ctx>, D)>,
    /// Conditions under which the tokens are not the output's (`values` mode).
    pub glue: Vec<Bool<'ctx>>,
    /// The output so far ends in whitespace (or is empty, or is where the compared part
    /// starts).
    ws: Bool<'ctx>,
    /// The shape of the value printed last in this print, when nothing was printed after it.
    after: Option<Shape>,
    /// Literal text not yet split (what follows decides which of its punctuation counts), with
    /// the shape of the value right before it.
    pending: Option<(Vec<u8>, Option<Shape>)>,
    /// The shape of the value being printed (between `value_starts` and `value`), its
    /// marker, and whether it took the `-` before it as its sign ([`Printer::takes_sign`]).
    current: Option<(Shape, Option<String>, bool)>,
}

impl<'ctx, D: Clone + Default> Printer<'ctx, D> {
    /// A print that starts where the output so far ends in whitespace iff `at_ws`.
    pub fn new(ctx: &'ctx Context, compare: Compare, at_ws: Bool<'ctx>) -> Self {
        Printer {
            ctx,
            compare,
            tokens: Vec::new(),
            glue: Vec::new(),
            ws: at_ws,
            after: None,
            pending: None,
            current: None,
        }
    }

    fn values(&self) -> bool {
        self.compare == Compare::Values
    }

    /// Literal text.
    pub fn text(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        match &mut self.pending {
            Some((text, _)) => text.extend_from_slice(bytes),
            None => self.pending = Some((bytes.to_vec(), self.after.take())),
        }
    }

    /// The literal text so far, now that what follows it is known (`next`: a value of that
    /// shape; `None`: the end of this print).
    fn flush(&mut self, next: Option<Shape>) {
        let Some((bytes, before)) = self.pending.take() else { return };
        let (first, last) = (bytes[0], bytes[bytes.len() - 1]);
        if self.values() {
            match before {
                // Printed by an earlier call: only whitespace keeps the two apart.
                None if !first.is_ascii_whitespace() => self.glue.push(self.ws.not()),
                None => {}
                Some(Shape::Number) => {
                    let merges =
                        first.is_ascii_digit() || (first == b'.' && bytes.get(1).is_some_and(u8::is_ascii_digit));
                    if merges {
                        self.glue.push(Bool::from_bool(self.ctx, true));
                    }
                }
                Some(Shape::Opaque) if !first.is_ascii_whitespace() => self.glue.push(Bool::from_bool(self.ctx, true)),
                Some(Shape::Opaque) => {}
            }
            if let Some(shape) = next
                && !last.is_ascii_whitespace()
            {
                let safe = shape == Shape::Number && !last.is_ascii_digit() && !b"+-.".contains(&last);
                if !safe {
                    self.glue.push(Bool::from_bool(self.ctx, true));
                }
            }
            // A number on either side joins the chunk at that end: its punctuation is
            // dropped, as `value_tokens` drops punctuation glued to a number. A `0` stands in
            // for it (the glue checks above keep it a token of its own).
            let left = before == Some(Shape::Number) && !first.is_ascii_whitespace();
            let right = next == Some(Shape::Number) && !last.is_ascii_whitespace();
            let mut text = String::new();
            if left {
                text.push('0');
            }
            text.push_str(&String::from_utf8_lossy(&bytes));
            if right {
                text.push('0');
            }
            let mut tokens = compare::value_tokens(&text);
            if right {
                tokens.pop();
            }
            let skip = usize::from(left);
            for t in tokens.into_iter().skip(skip) {
                let token = match t {
                    compare::Token::Word(w) => Token::Word(w.to_lowercase()),
                    compare::Token::Number(n, _) => Token::Number(n),
                    compare::Token::Punct(c) => Token::Word(c.to_string()),
                };
                self.tokens.push((token, D::default()));
            }
        } else {
            for c in String::from_utf8_lossy(&bytes).chars() {
                let folded = self.compare == Compare::Whitespace && c.is_whitespace();
                self.tokens.push((Token::Word(if folded { " ".into() } else { c.to_string() }), D::default()));
            }
        }
        self.ws = Bool::from_bool(self.ctx, last.is_ascii_whitespace());
    }

    /// A value printed by directive `d` comes next. Called before its argument is evaluated
    /// (the formula's terms are then made in the order they always were).
    pub fn value_starts(&mut self, d: &Directive) {
        let shape = shape(self.compare, d);
        let signed = self.takes_sign(d, shape);
        if self.pending.is_some() {
            self.flush(Some(shape));
        } else if self.values() {
            match self.after {
                // Two values back to back.
                Some(_) => self.glue.push(Bool::from_bool(self.ctx, true)),
                None => self.glue.push(self.ws.not()),
            }
        }
        let marked = if self.values() { shape == Shape::Opaque && d.conv != 'c' } else { !plain_char(d) };
        let marker = marked.then(|| marker(d));
        self.current = Some((shape, marker, signed));
        self.after = None;
    }

    /// A `-` written right before a plain `%d` (`printf("-%d", k)`, the way students print a
    /// negative number's magnitude) is that value's sign: for `k > 0` it prints what
    /// `printf("%d", -k)` prints, so the `-` leaves the literal text and the value is
    /// compared negated ([`Printer::value`] adds the glue `k <= 0`, where the texts differ).
    /// In `values` only where nothing before the `-` joins the number (a digit, a sign or a
    /// point would make it another token), and a `-` that starts the print only after an
    /// earlier call's output; `exact` and `whitespace` read every byte as a token anyway.
    fn takes_sign(&mut self, d: &Directive, shape: Shape) -> bool {
        let plain = d.is_signed() && d.flags.is_empty() && d.width == Count::None && d.precision == Count::None;
        let Some((bytes, before)) = &mut self.pending else { return false };
        if !plain || bytes.last() != Some(&b'-') {
            return false;
        }
        if self.compare == Compare::Values {
            let apart = match bytes.len() {
                1 => before.is_none(),
                n => !bytes[n - 2].is_ascii_digit() && !b"+-.".contains(&bytes[n - 2]),
            };
            if shape != Shape::Number || !apart {
                return false;
            }
        }
        bytes.pop();
        if bytes.is_empty() {
            self.after = self.pending.take().and_then(|(_, before)| before);
        }
        true
    }

    /// The value announced by [`Printer::value_starts`], with its payload.
    pub fn value(&mut self, token: Token<'ctx>, payload: D) {
        let (shape, marker, signed) = self.current.take().expect("value_starts before value");
        if let Some(m) = marker {
            self.tokens.push((Token::Word(m), D::default()));
        }
        let token = match token {
            _ if !signed => token,
            Token::Int(x, t) => {
                self.glue.push(x.bvsle(&BV::from_i64(self.ctx, 0, x.get_size())));
                Token::Int(x.bvneg(), t)
            }
            // Not an integer after all: the `-` is gone from the text, so nothing is equal.
            other => {
                self.glue.push(Bool::from_bool(self.ctx, true));
                other
            }
        };
        self.tokens.push((token, payload));
        self.ws = Bool::from_bool(self.ctx, false);
        self.after = Some(shape);
    }

    /// The print is done: its tokens, glue conditions, and whether its output ends in
    /// whitespace (the unchanged `at_ws` when it printed nothing).
    pub fn finish(mut self) -> Done<'ctx, D> {
        self.flush(None);
        Done { tokens: self.tokens, glue: self.glue, ws: self.ws }
    }
}

/// What a finished [`Printer`] printed.
pub struct Done<'ctx, D> {
    pub tokens: Vec<(Token<'ctx>, D)>,
    pub glue: Vec<Bool<'ctx>>,
    pub ws: Bool<'ctx>,
}

/// Position of each guarded item along a path: how many items before it happen.
pub fn positions<'a, 'ctx: 'a>(ctx: &'ctx Context, guards: impl Iterator<Item = &'a Bool<'ctx>>) -> Vec<BV<'ctx>> {
    positions_of_width(ctx, guards, 32).0
}

/// Positions as `width`-bit counters: wide enough for the number of guards, and no wider, since
/// every CEGIS counterexample bit-blasts these sums again; and the count of items that happen.
fn positions_of_width<'a, 'ctx: 'a>(
    ctx: &'ctx Context,
    guards: impl Iterator<Item = &'a Bool<'ctx>>,
    width: u32,
) -> (Vec<BV<'ctx>>, BV<'ctx>) {
    let one = BV::from_u64(ctx, 1, width);
    let mut at = BV::from_u64(ctx, 0, width);
    let mut out = Vec::new();
    for g in guards {
        out.push(at.clone());
        // `ite(g, at + 1, at)`, not `at + ite(g, 1, 0)`: the simplifier flattens sums, which
        // would make every position a fresh sum of all earlier guards (quadratic in size);
        // the chain of `ite`s stays shared.
        at = match g.as_bool() {
            Some(true) => at.bvadd(&one).simplify(),
            Some(false) => at,
            None => g.ite(&at.bvadd(&one), &at),
        };
    }
    (out, at)
}

/// The bits of a counter that can reach `n` without wrapping.
fn counter_width(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).max(1)
}

/// "The two guarded token sequences differ" (length or a token at the same position).
pub fn sequences_differ<'ctx>(
    ctx: &'ctx Context,
    a: &[(Bool<'ctx>, &Token<'ctx>)],
    b: &[(Bool<'ctx>, &Token<'ctx>)],
) -> Bool<'ctx> {
    sequences_differ_within(ctx, a, b, &|| false).expect("never stopped")
}

/// [`sequences_differ`], given up (`None`) once `stop` says so: the formula has a term per
/// pair of tokens, and a program printing in many branches has tens of thousands of pairs.
pub fn sequences_differ_within<'ctx>(
    ctx: &'ctx Context,
    a: &[(Bool<'ctx>, &Token<'ctx>)],
    b: &[(Bool<'ctx>, &Token<'ctx>)],
    stop: &dyn Fn() -> bool,
) -> Option<Bool<'ctx>> {
    let width = counter_width(a.len().max(b.len()));
    // A side whose every guard is decided printed a known sequence (a counterexample's
    // reference, its input concrete): then each token of the other side needs only the
    // positions where the known sequence has an equal token.
    let known = |s: &[(Bool<'ctx>, &Token<'ctx>)]| -> Option<Vec<Token<'ctx>>> {
        let mut printed = Vec::new();
        for (g, t) in s {
            if g.as_bool()? {
                printed.push((*t).clone());
            }
        }
        Some(printed)
    };
    if let Some(printed) = known(a) {
        return differs_from_known(ctx, &printed, b, width, stop);
    }
    if let Some(printed) = known(b) {
        return differs_from_known(ctx, &printed, a, width, stop);
    }
    pairwise_differ(ctx, a, b, width, stop)
}

/// [`sequences_differ_within`] in general: a term per pair of tokens that may meet at one
/// position.
fn pairwise_differ<'ctx>(
    ctx: &'ctx Context,
    a: &[(Bool<'ctx>, &Token<'ctx>)],
    b: &[(Bool<'ctx>, &Token<'ctx>)],
    width: u32,
    stop: &dyn Fn() -> bool,
) -> Option<Bool<'ctx>> {
    let (pa, count_a) = positions_of_width(ctx, a.iter().map(|(g, _)| g), width);
    let (pb, count_b) = positions_of_width(ctx, b.iter().map(|(g, _)| g), width);
    let mut differ = vec![count_a._eq(&count_b).not()];
    for (i, (ga, ta)) in a.iter().enumerate() {
        if stop() {
            return None;
        }
        for (j, (gb, tb)) in b.iter().enumerate() {
            let equal = ta.equal(ctx, tb);
            if equal.as_bool() == Some(true) {
                continue;
            }
            differ.push(Bool::and(ctx, &[ga, gb, &pa[i]._eq(&pb[j]), &equal.not()]));
        }
    }
    let refs: Vec<&Bool<'ctx>> = differ.iter().collect();
    Some(Bool::or(ctx, &refs))
}

/// [`sequences_differ_within`] where one side printed `known`: the other prints a different
/// number of tokens, or one of its tokens is printed at a position where `known` has no equal
/// token (a position past the end makes the counts differ, so it needs no term of its own).
/// A term per token and equal known token, not per pair: with a reference's ten tokens and a
/// student's hundreds of alternatives' tokens, a counterexample's instance was thousands of
/// comparisons, most of them between different words, and its synthesis took seconds.
fn differs_from_known<'ctx>(
    ctx: &'ctx Context,
    known: &[Token<'ctx>],
    other: &[(Bool<'ctx>, &Token<'ctx>)],
    width: u32,
    stop: &dyn Fn() -> bool,
) -> Option<Bool<'ctx>> {
    let (at, count) = positions_of_width(ctx, other.iter().map(|(g, _)| g), width);
    let mut differ = vec![count._eq(&BV::from_u64(ctx, known.len() as u64, width)).not()];
    for ((g, token), pos) in other.iter().zip(&at) {
        if stop() {
            return None;
        }
        let mut fits: Vec<Bool<'ctx>> = Vec::new();
        for (k, t) in known.iter().enumerate() {
            // Concrete values compare to a constant once simplified.
            let equal = t.equal(ctx, token);
            let equal = if equal.as_bool().is_none() { equal.simplify() } else { equal };
            if equal.as_bool() == Some(false) {
                continue;
            }
            let here = pos._eq(&BV::from_u64(ctx, k as u64, width));
            fits.push(if equal.as_bool() == Some(true) { here } else { Bool::and(ctx, &[&here, &equal]) });
        }
        let fits: Vec<&Bool<'ctx>> = fits.iter().collect();
        differ.push(Bool::and(ctx, &[g, &Bool::or(ctx, &fits).not()]));
    }
    let refs: Vec<&Bool<'ctx>> = differ.iter().collect();
    Some(Bool::or(ctx, &refs))
}

/// `printf("%s", s)` of a `char` array's `bytes` in `exact` and `whitespace` (a token per
/// byte): byte `k`'s token, as `%c` prints it, and the condition that it is printed (`g`, and
/// bytes `0..=k` all non-zero); then the condition that no byte is `'\0'` (the print would
/// run past them). `None` in `values`, where a string's bytes make words the model does not
/// split.
pub fn string_bytes<'ctx>(
    ctx: &'ctx Context,
    compare: Compare,
    bytes: impl IntoIterator<Item = BV<'ctx>>,
    g: &Bool<'ctx>,
) -> Option<(Vec<(Bool<'ctx>, Token<'ctx>)>, Bool<'ctx>)> {
    if compare == Compare::Values {
        return None;
    }
    let d = char_directive();
    let mut printing = g.clone();
    let mut out = Vec::new();
    for byte in bytes {
        printing = Bool::and(ctx, &[&printing, &byte._eq(&BV::from_u64(ctx, 0, 8)).not()]).simplify();
        let token = value_token(compare, &d, Printed::Int(byte, IntType::UCHAR)).expect("%c prints an integer");
        out.push((printing.clone(), token));
    }
    Some((out, printing))
}

/// The directive `%c` (what `putchar` prints with).
pub fn char_directive() -> Directive {
    match crate::ir::format::parse(b"%c", false).ok().and_then(|mut p| p.pop()) {
        Some(crate::ir::format::Piece::Directive(d)) => d,
        _ => unreachable!("`%c` is one directive"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{SatResult, Solver};

    /// The encoding for a known side says exactly what the pairwise one says, on random
    /// sequences: guards over a few selector bits, tokens from a few words and integers.
    #[test]
    fn a_known_side_differs_exactly_when_the_pairwise_encoding_says_so() {
        let ctx = Context::new(&z3::Config::new());
        let mut rng = crate::rng::Rng(0x51ec_7ed5_eed0_0001);
        fn token<'c>(ctx: &'c Context, rng: &mut crate::rng::Rng, sym: &BV<'c>) -> Token<'c> {
            match rng.below(4) {
                0 | 1 => Token::Word(["a", "b", "grade"][rng.below(3)].to_string()),
                2 => Token::Int(BV::from_i64(ctx, rng.below(2) as i64, 32), IntType::INT),
                _ => Token::Int(sym.clone(), IntType::INT),
            }
        }
        let (mut differ, mut same) = (0, 0);
        for round in 0..200 {
            let sel = BV::new_const(&ctx, format!("sel{round}"), 3);
            let x = BV::new_const(&ctx, format!("x{round}"), 32);
            let known: Vec<(Bool<'_>, Token<'_>)> = (0..rng.below(4))
                .map(|_| (Bool::from_bool(&ctx, rng.below(4) != 0), token(&ctx, &mut rng, &BV::from_i64(&ctx, 1, 32))))
                .collect();
            let other: Vec<(Bool<'_>, Token<'_>)> = (0..rng.below(6))
                .map(|_| {
                    let guard = match rng.below(3) {
                        0 => Bool::from_bool(&ctx, true),
                        _ => {
                            let bit = rng.below(3) as u32;
                            sel.extract(bit, bit)._eq(&BV::from_u64(&ctx, 1, 1))
                        }
                    };
                    (guard, token(&ctx, &mut rng, &x))
                })
                .collect();
            let a: Vec<(Bool<'_>, &Token<'_>)> = known.iter().map(|(g, t)| (g.clone(), t)).collect();
            let b: Vec<(Bool<'_>, &Token<'_>)> = other.iter().map(|(g, t)| (g.clone(), t)).collect();
            let width = counter_width(a.len().max(b.len()));
            let never = || false;
            let fast = sequences_differ(&ctx, &a, &b);
            let slow = pairwise_differ(&ctx, &a, &b, width, &never).expect("never stopped");
            let swapped = sequences_differ(&ctx, &b, &a);
            let solver = Solver::new(&ctx);
            solver.assert(&Bool::or(&ctx, &[&fast._eq(&slow).not(), &swapped._eq(&slow).not()]));
            assert_eq!(solver.check(), SatResult::Unsat, "{a:?}\n{b:?}");
            let probe = Solver::new(&ctx);
            probe.assert(&slow);
            if probe.check() == SatResult::Sat {
                differ += 1;
            }
            let probe = Solver::new(&ctx);
            probe.assert(&slow.not());
            if probe.check() == SatResult::Sat {
                same += 1;
            }
        }
        // Both answers occur, or the comparison proves little.
        assert!(differ > 30 && same > 30, "{differ} may differ, {same} may be equal");
    }

    /// An unpadded `%c` prints exactly its byte in `exact` and `whitespace`: it equals the
    /// literal character it prints (whitespace folded in `whitespace`), nothing else.
    #[test]
    fn a_printed_byte_equals_the_literal_character_it_prints() {
        let ctx = Context::new(&z3::Config::new());
        let d = char_directive();
        let byte = |v: u8| Printed::Int(BV::from_u64(&ctx, v as u64, 32), IntType::INT);
        let decided = |t: &Token<'_>, w: &str| t.equal(&ctx, &Token::Word(w.into())).simplify().as_bool();
        let star = value_token(Compare::Exact, &d, byte(b'*')).expect("a token");
        assert_eq!(decided(&star, "*"), Some(true));
        assert_eq!(decided(&star, "-"), Some(false));
        assert_eq!(decided(&star, "%c"), Some(false));
        let tab = value_token(Compare::Exact, &d, byte(b'\t')).expect("a token");
        assert_eq!(decided(&tab, " "), Some(false));
        let folded = value_token(Compare::Whitespace, &d, byte(b'\t')).expect("a token");
        assert_eq!(decided(&folded, " "), Some(true));
        let padded = crate::ir::format::parse(b"%3c", false).ok().and_then(|mut p| p.pop());
        let Some(crate::ir::format::Piece::Directive(padded)) = padded else { panic!("`%3c` is one directive") };
        let wide = value_token(Compare::Exact, &padded, byte(b'*')).expect("a token");
        assert_eq!(decided(&wide, "*"), Some(false));
    }
}
