//! `scanf`'s byte classes over Z3 terms, shared by both symbolic executors (the bounded
//! encoding's character model and the verified engine's): which bytes it skips, and which a
//! `%s` word or a `%[...]` scan set takes, as glibc (and the interpreter) reads them.

use z3::Context;
use z3::ast::{Ast, BV, Bool};

/// C's `isspace` in the "C" locale, which `scanf` skips and ends words at: space, `\t`,
/// `\n`, `\v`, `\f`, `\r` (the interpreter's set, [`crate::spec::interp::C_SPACE`]).
pub fn c_space<'ctx>(ctx: &'ctx Context, b: &BV<'ctx>) -> Bool<'ctx> {
    let any: Vec<Bool<'ctx>> =
        crate::spec::interp::C_SPACE.iter().map(|&c| b._eq(&BV::from_u64(ctx, c as u64, 8))).collect();
    let refs: Vec<&Bool<'ctx>> = any.iter().collect();
    Bool::or(ctx, &refs)
}

/// A byte of text, which the models' inputs are made of: a printable ASCII character (the
/// space among them) or C's white space. A `'\0'` is not text: a program that reads one
/// reads it where C's strings end.
pub fn text_byte<'ctx>(ctx: &'ctx Context, b: &BV<'ctx>) -> Bool<'ctx> {
    Bool::or(ctx, &[&printable(ctx, b), &c_space(ctx, b)])
}

/// A printable ASCII character, the space among them.
pub fn printable<'ctx>(ctx: &'ctx Context, b: &BV<'ctx>) -> Bool<'ctx> {
    Bool::and(ctx, &[&b.bvuge(&BV::from_u64(ctx, 32, 8)), &b.bvule(&BV::from_u64(ctx, 126, 8))])
}

/// The bytes a `%s` (any but white space) or a `%[...]` directive (its set) takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accept {
    NotSpace,
    Set { negated: bool, members: Vec<u8> },
}

impl Accept {
    /// What directive `d` (`%s` or `%[...]`) takes.
    pub fn of(d: &crate::ir::format::Directive) -> Accept {
        if d.conv == '[' { Accept::of_set(&d.scanset) } else { Accept::NotSpace }
    }

    /// A scan set as glibc reads it (the interpreter's `scanf`): `^` first negates it, a `]`
    /// right after the opening is a member, `a-z` is a range.
    pub fn of_set(set: &str) -> Accept {
        let bytes = set.as_bytes();
        let (negated, mut i) = if bytes.first() == Some(&b'^') { (true, 1) } else { (false, 0) };
        let mut members: Vec<u8> = Vec::new();
        if bytes.get(i) == Some(&b']') {
            members.push(b']');
            i += 1;
        }
        while i < bytes.len() {
            if bytes[i] == b'-' && !members.is_empty() && i + 1 < bytes.len() {
                let lo = *members.last().expect("not empty");
                members.extend(lo..=bytes[i + 1]);
                i += 2;
            } else {
                members.push(bytes[i]);
                i += 1;
            }
        }
        Accept::Set { negated, members }
    }

    /// Whether the directive takes `byte`.
    pub fn takes<'ctx>(&self, ctx: &'ctx Context, byte: &BV<'ctx>) -> Bool<'ctx> {
        match self {
            Accept::NotSpace => c_space(ctx, byte).not(),
            Accept::Set { negated, members } => {
                let any: Vec<Bool<'ctx>> = members.iter().map(|&m| byte._eq(&BV::from_u64(ctx, m as u64, 8))).collect();
                let refs: Vec<&Bool<'ctx>> = any.iter().collect();
                let inside = Bool::or(ctx, &refs);
                if *negated { inside.not() } else { inside }
            }
        }
    }
}
