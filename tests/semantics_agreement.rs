//! One C semantics: the interpreter and the two symbolic executors (`smt::encode`, behind the
//! bounded product `verify_against`, and `verified::region`, behind the verified engine) must agree
//! on random small programs of the CS1 subset.
//!
//! Each case is a random program and a variation of it: one that keeps its meaning (operands
//! commuted, a comparison turned round, the branches of a `?:` swapped under `!`, a library
//! call written out as what C computes: `isdigit(ch)` as `ch >= '0' && ch <= '9' ? 2048 : 0`)
//! or one that may change it (another operator, a constant moved by one). A mismodelled library
//! function then shows, since only one side calls it. Then:
//! - neither executor may call a construct of the subset unsupported (the documented gaps
//!   below excepted, each of which must still occur, so the list stays true), nor fail inside;
//! - when an executor proves the two programs print the same, the interpreter must print the
//!   same for both on every sampled input (a failure is a false proof);
//! - a counterexample of the product must replay in the interpreter as the encoding predicted;
//! - each executor must prove enough pairs equal, or the test proves nothing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use mend::cancel::Cancel;
use mend::engines::verified;
use mend::ir::Severity;
use mend::rng::Rng;
use mend::smt::Budget;
use mend::smt::bmc::{BmcUnknown, BmcVerdict, Replay, verify_against};
use mend::spec::compare::Compare;
use mend::spec::interp::{self, Limits};
use mend::syntax::lower::lower_source;

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len())]
}

/// An expression. `Int` and `Dbl` say which C type a generated node has, so a variation keeps
/// the program well typed.
#[derive(Clone, Debug)]
enum Ex {
    Var(&'static str),
    Num(i64),
    Real(&'static str),
    Bin(&'static str, Box<Ex>, Box<Ex>),
    Not(Box<Ex>),
    Call(&'static str, Vec<Ex>),
    Cond(Box<Ex>, Box<Ex>, Box<Ex>),
    /// Text kept as written (a divisor that is never zero, an array index kept in bounds).
    Text(String),
}

#[derive(Clone, Debug)]
enum St {
    Set(&'static str, &'static str, Ex),
    If(Ex, Vec<St>, Vec<St>),
    For(&'static str, i64, Vec<St>),
    DoWhile(&'static str, i64, Vec<St>),
    Switch(Ex, Vec<Vec<St>>),
    Line(String),
}

const ARITH: &[&str] = &["+", "-", "*"];
const CMP: &[&str] = &["<", "<=", ">", ">=", "==", "!="];

fn int_leaf(rng: &mut Rng, f: &Features) -> Ex {
    match rng.below(if f.char { 6 } else { 5 }) {
        0 => Ex::Var("a"),
        1 => Ex::Var("b"),
        2 => Ex::Var("c"),
        3 => Ex::Var("r"),
        4 => Ex::Num(pick(rng, &[0, 1, 2, 3, 7, 10, -4])),
        _ => Ex::Var("ch"),
    }
}

fn int_expr(rng: &mut Rng, f: &Features, depth: u32) -> Ex {
    if depth == 0 {
        return int_leaf(rng, f);
    }
    match rng.below(9) {
        0..=2 => {
            Ex::Bin(pick(rng, ARITH), Box::new(int_expr(rng, f, depth - 1)), Box::new(int_expr(rng, f, depth - 1)))
        }
        3 => {
            let d = int_expr(rng, f, depth - 1);
            let op = pick(rng, &["/", "%"]);
            Ex::Bin(
                op,
                Box::new(int_expr(rng, f, depth - 1)),
                Box::new(Ex::Text(format!("({0} == 0 ? 1 : {0})", show(&d)))),
            )
        }
        4 => Ex::Cond(
            Box::new(cond(rng, f, depth - 1)),
            Box::new(int_expr(rng, f, depth - 1)),
            Box::new(int_expr(rng, f, depth - 1)),
        ),
        5 if f.math => Ex::Call("abs", vec![int_expr(rng, f, depth - 1)]),
        6 if f.function => Ex::Call("twice", vec![int_expr(rng, f, depth - 1)]),
        7 if f.array && f.width && rng.below(2) == 0 => {
            Ex::Text(format!("g[({} % 2 + 2) % 2][1]", show(&int_expr(rng, f, depth - 1))))
        }
        7 if f.array => Ex::Text(format!("v[({} % 4 + 4) % 4]", show(&int_expr(rng, f, depth - 1)))),
        8 if f.char => {
            Ex::Call(pick(rng, &["isdigit", "isalpha", "isupper", "toupper", "tolower"]), vec![Ex::Var("ch")])
        }
        _ => int_leaf(rng, f),
    }
}

fn cond(rng: &mut Rng, f: &Features, depth: u32) -> Ex {
    match rng.below(5) {
        0 if depth > 0 => {
            Ex::Bin(pick(rng, &["&&", "||"]), Box::new(cond(rng, f, depth - 1)), Box::new(cond(rng, f, depth - 1)))
        }
        1 if f.float => Ex::Bin(pick(rng, CMP), Box::new(dbl_expr(rng, f, depth)), Box::new(dbl_expr(rng, f, depth))),
        _ => Ex::Bin(pick(rng, CMP), Box::new(int_expr(rng, f, depth)), Box::new(int_expr(rng, f, depth))),
    }
}

fn dbl_expr(rng: &mut Rng, f: &Features, depth: u32) -> Ex {
    let leaf = |rng: &mut Rng| match rng.below(4) {
        0 => Ex::Var("x"),
        1 => Ex::Var("y"),
        2 => Ex::Real(pick(rng, &["0.5", "2.0", "1.25", "0.1", "3.0", "-0.0"])),
        _ => Ex::Var("a"),
    };
    if depth == 0 {
        return leaf(rng);
    }
    match rng.below(5) {
        0 | 1 => {
            Ex::Bin(pick(rng, ARITH), Box::new(dbl_expr(rng, f, depth - 1)), Box::new(dbl_expr(rng, f, depth - 1)))
        }
        2 if f.math => {
            let g = pick(rng, &["floor", "ceil", "round", "fabs"]);
            Ex::Call(g, vec![dbl_expr(rng, f, depth - 1)])
        }
        3 if f.math => Ex::Call("sqrt", vec![Ex::Call("fabs", vec![dbl_expr(rng, f, depth - 1)])]),
        _ => leaf(rng),
    }
}

fn show(e: &Ex) -> String {
    match e {
        Ex::Var(v) => v.to_string(),
        Ex::Num(n) if *n < 0 => format!("({n})"),
        Ex::Num(n) => n.to_string(),
        Ex::Real(r) => r.to_string(),
        Ex::Bin(op, l, r) => format!("({} {op} {})", show(l), show(r)),
        Ex::Not(x) => format!("!{}", show(x)),
        Ex::Call(g, args) => format!("{g}({})", args.iter().map(show).collect::<Vec<_>>().join(", ")),
        Ex::Cond(c, t, o) => format!("({} ? {} : {})", show(c), show(t), show(o)),
        Ex::Text(t) => t.clone(),
    }
}

/// Which parts of the subset a program uses.
#[derive(Clone, Copy, Debug, Default)]
struct Features {
    float: bool,
    math: bool,
    char: bool,
    array: bool,
    function: bool,
    recursion: bool,
    string: bool,
    switch: bool,
    /// The word is read with a width (`%19s`), not plain `%s`; the array is a
    /// variable-length one.
    width: bool,
    /// `a`, `b`, `c` are read with `getchar` (the character model; no other reads then).
    getchar: bool,
}

impl Features {
    fn random(rng: &mut Rng) -> Features {
        let mut coin = || rng.below(3) == 0;
        Features {
            float: coin(),
            math: coin(),
            char: coin(),
            array: coin(),
            function: coin(),
            recursion: coin(),
            string: coin(),
            switch: coin(),
            width: coin(),
            getchar: false,
        }
        .with_getchar()
    }

    /// One case in nine reads characters: those with `char` and `width` both drawn.
    fn with_getchar(self) -> Features {
        if self.char && self.width {
            Features { getchar: true, char: false, float: false, string: false, ..self }
        } else {
            self
        }
    }

    fn names(&self) -> String {
        let all = [
            (self.float, "float"),
            (self.math, "math"),
            (self.char, "char"),
            (self.array && !self.width, "array"),
            (self.array && self.width, "vla"),
            (self.function, "function"),
            (self.recursion, "recursion"),
            (self.string && !self.width, "string"),
            (self.string && self.width, "string%19s"),
            (self.switch, "switch"),
            (self.getchar, "getchar"),
        ];
        let on: Vec<&str> = all.iter().filter(|(b, _)| *b).map(|(_, n)| *n).collect();
        if on.is_empty() { "int".into() } else { on.join("+") }
    }
}

fn statement(rng: &mut Rng, f: &Features, depth: u32) -> St {
    match rng.below(if depth == 0 { 2 } else { 7 }) {
        0 => St::Set("r", pick(rng, &["=", "+=", "-="]), int_expr(rng, f, 2)),
        1 if f.float => St::Set("y", pick(rng, &["=", "+="]), dbl_expr(rng, f, 2)),
        1 => St::Set("r", "+=", int_expr(rng, f, 1)),
        2 => St::If(cond(rng, f, 1), block(rng, f, depth - 1), block(rng, f, depth - 1)),
        3 => {
            let body = vec![St::Set("r", "+=", Ex::Bin("*", Box::new(Ex::Var("i")), Box::new(int_expr(rng, f, 1))))];
            St::For("i", 1 + rng.below(4) as i64, body)
        }
        // Each nesting depth counts with its own variable.
        4 => St::DoWhile(if depth == 2 { "k" } else { "m" }, 1 + rng.below(3) as i64, block(rng, f, depth - 1)),
        5 if f.switch => {
            let arms = (0..3).map(|_| block(rng, f, depth - 1)).collect();
            St::Switch(Ex::Text(format!("({} % 3 + 3) % 3", show(&int_expr(rng, f, 1)))), arms)
        }
        _ if f.array => St::For("i", 4, vec![St::Line(format!("v[i] = v[i] + {};", show(&int_expr(rng, f, 1))))]),
        _ => St::Set("r", "=", int_expr(rng, f, 2)),
    }
}

fn block(rng: &mut Rng, f: &Features, depth: u32) -> Vec<St> {
    (0..1 + rng.below(2)).map(|_| statement(rng, f, depth)).collect()
}

#[derive(Clone, Debug)]
struct Program {
    f: Features,
    body: Vec<St>,
}

fn random_program(rng: &mut Rng) -> Program {
    let f = Features::random(rng);
    let mut body: Vec<St> = (0..2 + rng.below(3)).map(|_| statement(rng, &f, 2)).collect();
    if f.recursion {
        body.push(St::Set("r", "+=", Ex::Call("sum_to", vec![Ex::Text("(a % 4)".into())])));
    }
    if f.string {
        body.push(St::Set("r", "+=", Ex::Call("strlen", vec![Ex::Var("s")])));
        // A copy, maybe extended, compared with a literal: the `string.h` functions that write.
        body.push(St::Line("strcpy(t, s);".into()));
        if rng.below(2) == 0 {
            body.push(St::Line("strcat(t, \"ab\");".into()));
        }
        body.push(St::Set("r", "+=", Ex::Call("strcmp", vec![Ex::Var("t"), Ex::Text("\"abc\"".into())])));
        body.push(St::If(
            Ex::Bin("==", Box::new(Ex::Text("s[0]".into())), Box::new(Ex::Text("'a'".into()))),
            vec![St::Set("r", "+=", Ex::Num(1))],
            vec![],
        ));
    }
    Program { f, body }
}

fn render_block(out: &mut String, body: &[St], indent: usize) {
    let pad = "    ".repeat(indent);
    for s in body {
        match s {
            St::Set(v, op, e) => writeln!(out, "{pad}{v} {op} {};", show(e)).unwrap(),
            St::If(c, t, e) => {
                writeln!(out, "{pad}if ({}) {{", show(c)).unwrap();
                render_block(out, t, indent + 1);
                if e.is_empty() {
                    writeln!(out, "{pad}}}").unwrap();
                } else {
                    writeln!(out, "{pad}}} else {{").unwrap();
                    render_block(out, e, indent + 1);
                    writeln!(out, "{pad}}}").unwrap();
                }
            }
            St::For(i, n, b) => {
                writeln!(out, "{pad}for ({i} = 0; {i} < {n}; {i}++) {{").unwrap();
                render_block(out, b, indent + 1);
                writeln!(out, "{pad}}}").unwrap();
            }
            St::DoWhile(k, n, b) => {
                writeln!(out, "{pad}{k} = 0;").unwrap();
                writeln!(out, "{pad}do {{").unwrap();
                render_block(out, b, indent + 1);
                writeln!(out, "{pad}    {k}++;").unwrap();
                writeln!(out, "{pad}}} while ({k} < {n});").unwrap();
            }
            St::Switch(e, arms) => {
                writeln!(out, "{pad}switch ({}) {{", show(e)).unwrap();
                for (i, arm) in arms.iter().enumerate() {
                    if i + 1 == arms.len() {
                        writeln!(out, "{pad}default:").unwrap();
                    } else {
                        writeln!(out, "{pad}case {i}:").unwrap();
                    }
                    render_block(out, arm, indent + 1);
                    writeln!(out, "{pad}    break;").unwrap();
                }
                writeln!(out, "{pad}}}").unwrap();
            }
            St::Line(l) => writeln!(out, "{pad}{l}").unwrap(),
        }
    }
}

fn source(p: &Program) -> String {
    let f = &p.f;
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n#include <ctype.h>\n\n",
    );
    if f.function {
        s.push_str("int twice(int p) {\n    return p + p;\n}\n\n");
    }
    if f.recursion {
        s.push_str("int sum_to(int n) {\n    if (n <= 0)\n        return 0;\n    return n + sum_to(n - 1);\n}\n\n");
    }
    s.push_str("int main(void) {\n    int a, b, c, i, k, m, r = 0;\n");
    if f.float {
        s.push_str("    double x, y = 0.0;\n");
    }
    if f.char {
        s.push_str("    char ch;\n");
    }
    if f.array && f.width {
        // A variable-length array of the same length: its length a value of the state;
        // and one of rows of a runtime length, filled from it.
        s.push_str("    int w = 4;\n    int v[w];\n    int g[w / 2][w / 2];\n");
    } else if f.array {
        s.push_str("    int v[4];\n");
    }
    if f.string {
        s.push_str("    char s[20], t[24];\n");
    }
    if f.getchar {
        s.push_str("    a = getchar();\n    b = getchar();\n    c = getchar();\n");
    } else {
        s.push_str("    scanf(\"%d %d %d\", &a, &b, &c);\n");
    }
    if f.float {
        s.push_str("    scanf(\"%lf\", &x);\n");
    }
    if f.char {
        s.push_str("    scanf(\" %c\", &ch);\n");
    }
    if f.string {
        s.push_str(if f.width { "    scanf(\"%19s\", s);\n" } else { "    scanf(\"%s\", s);\n" });
    }
    if f.array {
        s.push_str("    for (i = 0; i < 4; i++)\n        v[i] = a + i * b;\n");
    }
    if f.array && f.width {
        s.push_str("    for (i = 0; i < 4; i++)\n        g[i / 2][i % 2] = v[i] - i;\n");
    }
    s.push_str("    i = 0;\n    k = 0;\n    m = 0;\n");
    render_block(&mut s, &p.body, 1);
    s.push_str("    printf(\"%d\\n\", r);\n");
    if f.float {
        s.push_str("    printf(\"%.2f\\n\", y);\n");
    }
    if f.array {
        s.push_str("    printf(\"%d %d\\n\", v[0], v[3]);\n");
    }
    if f.array && f.width {
        s.push_str("    printf(\"%d\\n\", g[1][0]);\n");
    }
    if f.string {
        s.push_str("    printf(\"%s\\n\", s);\n");
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// Every expression of `body`, in order, for a variation to choose from.
fn expressions(body: &mut [St]) -> Vec<&mut Ex> {
    let mut out = Vec::new();
    for s in body {
        match s {
            St::Set(_, _, e) => out.push(e),
            St::If(c, t, e) => {
                out.push(c);
                out.extend(expressions(t));
                out.extend(expressions(e));
            }
            St::For(_, _, b) | St::DoWhile(_, _, b) => out.extend(expressions(b)),
            St::Switch(_, arms) => {
                for arm in arms {
                    out.extend(expressions(arm));
                }
            }
            St::Line(_) => {}
        }
    }
    out
}

/// The number of subterms of `e`, itself included.
fn size(e: &Ex) -> usize {
    1 + match e {
        Ex::Bin(_, l, r) => size(l) + size(r),
        Ex::Not(x) => size(x),
        Ex::Call(_, args) => args.iter().map(size).sum(),
        Ex::Cond(c, t, o) => size(c) + size(t) + size(o),
        _ => 0,
    }
}

/// Varies the `n`th subterm of `e` in post-order (see `vary_term`); `None` while not reached.
fn vary_nth(rng: &mut Rng, e: &mut Ex, n: &mut usize, keep: bool) -> Option<bool> {
    let found = match e {
        Ex::Bin(_, l, r) => vary_nth(rng, l, n, keep).or_else(|| vary_nth(rng, r, n, keep)),
        Ex::Not(x) => vary_nth(rng, x, n, keep),
        Ex::Call(_, args) => args.iter_mut().find_map(|a| vary_nth(rng, a, n, keep)),
        Ex::Cond(c, t, o) => {
            vary_nth(rng, c, n, keep).or_else(|| vary_nth(rng, t, n, keep)).or_else(|| vary_nth(rng, o, n, keep))
        }
        _ => None,
    };
    if found.is_some() {
        return found;
    }
    if *n == 0 {
        return Some(vary_term(rng, e, keep));
    }
    *n -= 1;
    None
}

fn bin(op: &'static str, l: Ex, r: Ex) -> Ex {
    Ex::Bin(op, Box::new(l), Box::new(r))
}

fn cond_ex(c: Ex, t: Ex, o: Ex) -> Ex {
    Ex::Cond(Box::new(c), Box::new(t), Box::new(o))
}

/// `lo <= x && x <= hi`.
fn between(x: &Ex, lo: &str, hi: &str) -> Ex {
    bin("&&", bin(">=", x.clone(), Ex::Text(lo.into())), bin("<=", x.clone(), Ex::Text(hi.into())))
}

/// What the library call `g(x)` computes in C (gcc and glibc on x86-64), written without it.
fn meaning(g: &str, x: &Ex) -> Option<Ex> {
    let class = |test: Ex, bit: i64| cond_ex(test, Ex::Num(bit), Ex::Num(0));
    // A negative `char` other than EOF comes back as its `unsigned char` value.
    let unsigned = |x: &Ex| cond_ex(between(x, "-128", "-2"), bin("+", x.clone(), Ex::Num(256)), x.clone());
    Some(match g {
        "abs" => cond_ex(bin("<", x.clone(), Ex::Num(0)), bin("-", Ex::Num(0), x.clone()), x.clone()),
        "isdigit" => class(between(x, "'0'", "'9'"), 2048),
        "isupper" => class(between(x, "'A'", "'Z'"), 256),
        "isalpha" => class(bin("||", between(x, "'A'", "'Z'"), between(x, "'a'", "'z'")), 1024),
        "toupper" => cond_ex(between(x, "'a'", "'z'"), bin("-", x.clone(), Ex::Num(32)), unsigned(x)),
        "tolower" => cond_ex(between(x, "'A'", "'Z'"), bin("+", x.clone(), Ex::Num(32)), unsigned(x)),
        // `-0.0` is not below zero and stays `-0.0`, where `fabs` gives `0.0`: printed apart.
        "fabs" => cond_ex(bin("<", x.clone(), Ex::Real("0.0")), bin("-", Ex::Real("0.0"), x.clone()), x.clone()),
        _ => return None,
    })
}

/// Changes one subterm; `keep` asks for a rewrite with the same meaning. Returns false when the
/// chosen term has no such variation.
fn vary_term(rng: &mut Rng, e: &mut Ex, keep: bool) -> bool {
    let taken = std::mem::replace(e, Ex::Num(0));
    let (new, changed) = match taken {
        Ex::Bin(op, l, r) if keep && matches!(op, "+" | "*" | "==" | "!=") => (Ex::Bin(op, r, l), true),
        Ex::Bin(op, l, r) if keep && CMP.contains(&op) => {
            let turned = match op {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                _ => "<=",
            };
            (Ex::Bin(turned, r, l), true)
        }
        Ex::Bin("&&", l, r) if keep => {
            (Ex::Not(Box::new(Ex::Bin("||", Box::new(Ex::Not(l)), Box::new(Ex::Not(r))))), true)
        }
        Ex::Bin(op, l, r) if !keep && ARITH.contains(&op) => (Ex::Bin(pick(rng, ARITH), l, r), true),
        Ex::Bin(op, l, r) if !keep && CMP.contains(&op) => (Ex::Bin(pick(rng, CMP), l, r), true),
        Ex::Num(n) if !keep => (Ex::Num(n + if rng.below(2) == 0 { 1 } else { -1 }), true),
        Ex::Cond(c, t, o) if keep => (Ex::Cond(Box::new(Ex::Not(c)), o, t), true),
        Ex::Call(g, args) if keep && meaning(g, &args[0]).is_some() => (meaning(g, &args[0]).expect("checked"), true),
        other => (other, false),
    };
    *e = new;
    changed
}

/// Writes out the first library call of `e` that [`meaning`] knows; whether there was one.
fn write_out_call(e: &mut Ex) -> bool {
    match e {
        Ex::Call(g, args) if args.len() == 1 && meaning(g, &args[0]).is_some() => {
            *e = meaning(g, &args[0]).expect("checked");
            true
        }
        Ex::Bin(_, l, r) => write_out_call(l) || write_out_call(r),
        Ex::Not(x) => write_out_call(x),
        Ex::Call(_, args) => args.iter_mut().any(write_out_call),
        Ex::Cond(c, t, o) => write_out_call(c) || write_out_call(t) || write_out_call(o),
        _ => false,
    }
}

/// A variation of `p`, and whether it writes out a library call.
fn vary(rng: &mut Rng, p: &Program) -> (Program, bool) {
    let mut q = p.clone();
    let keep = rng.below(2) == 0;
    // A meaning-keeping variation writes out a library call where there is one: a random
    // subterm is rarely a call.
    if keep && expressions(&mut q.body).into_iter().any(write_out_call) {
        return (q, true);
    }
    for _ in 0..8 {
        let mut exprs = expressions(&mut q.body);
        if exprs.is_empty() {
            break;
        }
        let at = rng.below(exprs.len());
        let e = exprs.swap_remove(at);
        let mut n = rng.below(size(e));
        if vary_nth(rng, e, &mut n, keep) == Some(true) {
            break;
        }
    }
    (q, false)
}

/// The inputs every pair is run on.
fn inputs(f: &Features) -> Vec<String> {
    let mut out = Vec::new();
    let ints = [(-3, 2, 0), (0, 0, 0), (1, -1, 5), (4, 3, -2), (7, 0, 1), (-5, -5, 9), (2, 6, 3)];
    if f.getchar {
        // Each holds a line (the line assumption); some end before three characters.
        return ["ab\n", "\n", "z9Q\n", "a b\n", "~\n\n", "0\n1", "xyz\n"].map(String::from).to_vec();
    }
    for (n, (a, b, c)) in ints.iter().enumerate() {
        let mut line = format!("{a} {b} {c}\n");
        if f.float {
            line.push_str(["2.5\n", "-1.75\n", "-0\n", "10.1\n", "3\n", "-0.5\n", "1e3\n"][n]);
        }
        if f.char {
            // È: its first byte, 0xC3, is a negative `char`.
            line.push_str(["a\n", "Z\n", "7\n", "\u{c8}\n", "q\n", "0\n", "M\n"][n]);
        }
        if f.string {
            line.push_str(["abc\n", "hello\n", "a\n", "zz9\n", "ab\n", "x\n", "apple\n"][n]);
        }
        out.push(line);
    }
    out
}

/// What the interpreter prints for `src` on each input (`None` for a run that failed).
fn outputs(src: &str, ins: &[String]) -> Vec<Option<Vec<u8>>> {
    let lowered = lower_source(src);
    let errors: Vec<_> = lowered.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    assert!(errors.is_empty(), "a generated program does not type-check:\n{src}\n{errors:?}");
    ins.iter()
        .map(|i| {
            let run = interp::run(&lowered.program, "main", i.as_bytes(), &Limits::default(), &Cancel::new());
            if run.error.is_some() { None } else { Some(run.output) }
        })
        .collect()
}

/// Constructs of the subset an executor does not model yet: (executor, what it says). Each must
/// still occur in this test; remove a line when its construct becomes supported.
const KNOWN_GAPS: &[(&str, &str)] = &[
    // `scanf("%19s", s)`: a longer word is split, its rest the next token, which the verified
    // engine's positions cannot count (the bounded product cuts such words like a loop).
    ("verified", "`%s` with a width"),
];

#[derive(Default)]
struct Tally {
    proved_equal: usize,
    decided: usize,
    unsupported: BTreeMap<String, Vec<String>>,
}

/// A random program, its variation and whether the interpreter prints the same for both on
/// every sampled input.
struct Case {
    features: String,
    sp: String,
    sq: String,
    same_on_samples: bool,
    /// The variation writes out a library call as what C computes.
    written_out: bool,
}

fn product_tally(cases: &[Case]) -> Tally {
    let mut tally = Tally::default();
    for (i, c) in cases.iter().enumerate() {
        let (pp, pq) = (lower_source(&c.sp).program, lower_source(&c.sq).program);
        let budget = Budget::new(Duration::from_secs(6), Cancel::new());
        match verify_against(&pq, &pp, Compare::Exact, "main", 6, &budget).verdict {
            BmcVerdict::Holds { .. } => {
                tally.proved_equal += 1;
                tally.decided += 1;
                assert!(
                    c.same_on_samples,
                    "case {i}: the product proves equal output, but the interpreter differs:\n{}\n---\n{}",
                    c.sp, c.sq
                );
            }
            BmcVerdict::Violated(cex) => {
                tally.decided += 1;
                assert!(
                    !matches!(cex.replay, Replay::Mismatch(_)),
                    "case {i}: the product's counterexample does not replay in the interpreter ({:?}):\n{}\n---\n{}\ninput: {:?}",
                    cex.replay,
                    c.sp,
                    c.sq,
                    cex.stdin
                );
            }
            BmcVerdict::Unknown(BmcUnknown::Unsupported(u)) => {
                tally.unsupported.entry(u.what.clone()).or_default().push(format!("case {i} ({})", c.features))
            }
            BmcVerdict::Unknown(_) => {}
        }
    }
    tally
}

fn verified_tally(cases: &[Case]) -> Tally {
    let mut tally = Tally::default();
    let opts = verified::Options {
        entry: "main".into(),
        compare: Compare::Exact,
        precondition: None,
        floats: verified::FloatModel::Ieee,
        candidates: None,
        line_in_input: true,
        start_values: Vec::new(),
    };
    for (i, c) in cases.iter().enumerate() {
        let (pp, pq) = (lower_source(&c.sp).program, lower_source(&c.sq).program);
        let budget = Budget::new(Duration::from_secs(10), Cancel::new());
        match verified::repair(&pq, &c.sq, &pp, &opts, &budget).outcome {
            verified::Outcome::Equivalent => {
                tally.proved_equal += 1;
                tally.decided += 1;
                assert!(
                    c.same_on_samples,
                    "case {i}: the verified engine proves equal output, but the interpreter differs:\n{}\n---\n{}",
                    c.sp, c.sq
                );
            }
            verified::Outcome::Failed(verified::Failure::Unsupported(u)) => {
                tally.unsupported.entry(u.what.clone()).or_default().push(format!("case {i} ({})", c.features))
            }
            verified::Outcome::Failed(verified::Failure::Internal) => {
                panic!("case {i}: the verified engine failed inside:\n{}\n---\n{}", c.sp, c.sq)
            }
            verified::Outcome::Failed(_) => {}
            _ => tally.decided += 1,
        }
    }
    tally
}

#[test]
fn the_interpreter_and_both_executors_agree_on_random_programs() {
    let mut rng = Rng(0x517c_c1b7_2722_0a95);
    let cases = 36;
    let pairs: Vec<Case> = (0..cases)
        .map(|_| {
            let p = random_program(&mut rng);
            let (q, written_out) = vary(&mut rng, &p);
            let (sp, sq) = (source(&p), source(&q));
            let ins = inputs(&p.f);
            let (op, oq) = (outputs(&sp, &ins), outputs(&sq, &ins));
            let same_on_samples = op.iter().zip(&oq).all(|(a, b)| a.is_some() && a == b);
            Case { features: p.f.names(), sp, sq, same_on_samples, written_out }
        })
        .collect();
    // One executor a core: each thread makes its own solver contexts.
    let (product, verified_engine) = std::thread::scope(|s| {
        let product = s.spawn(|| product_tally(&pairs));
        let verified_engine = s.spawn(|| verified_tally(&pairs));
        (product.join().expect("the product's checks"), verified_engine.join().expect("the verified engine's checks"))
    });

    let written_out = pairs.iter().filter(|c| c.written_out).count();
    let mut report = format!("{written_out} of {cases} variations write out a library call\n");
    let characters = pairs.iter().filter(|c| c.features.contains("getchar")).count();
    writeln!(report, "{characters} of {cases} programs read characters").unwrap();
    assert!(characters >= 2, "the character model is not exercised:\n{report}");
    let vlas = pairs.iter().filter(|c| c.features.contains("vla")).count();
    writeln!(report, "{vlas} of {cases} programs declare a variable-length array").unwrap();
    assert!(vlas >= 2, "variable-length arrays are not exercised:\n{report}");
    let mut seen_gaps = vec![false; KNOWN_GAPS.len()];
    for (name, tally) in [("product", &product), ("verified", &verified_engine)] {
        writeln!(report, "{name}: {} of {cases} decided, {} proved equal", tally.decided, tally.proved_equal).unwrap();
        for (what, where_) in &tally.unsupported {
            let known = KNOWN_GAPS.iter().position(|(e, w)| *e == name && what.contains(w));
            if let Some(g) = known {
                seen_gaps[g] = true;
            }
            writeln!(
                report,
                "  {} `{what}`: {}",
                if known.is_some() { "known gap" } else { "UNSUPPORTED" },
                where_.join(", ")
            )
            .unwrap();
        }
    }
    eprintln!("{report}");
    let unknown_gaps = report.contains("UNSUPPORTED");
    assert!(!unknown_gaps, "an executor does not model a construct of the subset:\n{report}");
    for (g, seen) in seen_gaps.iter().enumerate() {
        assert!(seen, "the known gap {:?} no longer occurs: remove it from KNOWN_GAPS", KNOWN_GAPS[g]);
    }
    assert!(written_out * 10 >= cases, "too few library calls written out to compare them:\n{report}");
    for (name, tally) in [("product", &product), ("verified", &verified_engine)] {
        assert!(
            tally.proved_equal * 5 >= cases,
            "{name}: only {} of {cases} pairs proved equal:\n{report}",
            tally.proved_equal
        );
    }
}

/// Each library function of `meaning`, called and written out, in a program that prints it:
/// both executors must prove the two equal, or find the difference where C has one (`fabs`
/// of `-0.0` prints `0.00`, the written-out form `-0.00`). A function mismodelled in one
/// executor fails here even when the random pairs above never reach it.
#[test]
fn each_library_function_is_what_c_computes_in_both_executors() {
    let calls = [
        ("abs", "a", "%d", true),
        ("isdigit", "ch", "%d", true),
        ("isupper", "ch", "%d", true),
        ("isalpha", "ch", "%d", true),
        ("toupper", "ch", "%d", true),
        ("tolower", "ch", "%d", true),
        ("fabs", "x", "%.2f", false),
    ];
    let program = |directive: &str, value: &str| {
        format!(
            "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n#include <ctype.h>\n\
             int main(void) {{\n    char ch;\n    int a;\n    double x;\n    \
             scanf(\" %c\", &ch);\n    scanf(\"%d\", &a);\n    scanf(\"%lf\", &x);\n    \
             printf(\"{directive}\\n\", {value});\n    return 0;\n}}\n"
        )
    };
    let opts = verified::Options {
        entry: "main".into(),
        compare: Compare::Exact,
        precondition: None,
        floats: verified::FloatModel::Ieee,
        candidates: None,
        line_in_input: true,
        start_values: Vec::new(),
    };
    for (g, arg, directive, equal) in calls {
        let x = Ex::Var(arg);
        let called = program(directive, &show(&Ex::Call(g, vec![x.clone()])));
        let written = program(directive, &show(&meaning(g, &x).expect("a meaning")));
        let (pc, pw) = (lower_source(&called).program, lower_source(&written).program);
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let product = verify_against(&pw, &pc, Compare::Exact, "main", 2, &budget).verdict;
        let budget = Budget::new(Duration::from_secs(30), Cancel::new());
        let engine = verified::repair(&pw, &written, &pc, &opts, &budget).outcome;
        if equal {
            assert!(matches!(product, BmcVerdict::Holds { .. }), "{g}: the product says {product:?}");
            assert!(matches!(engine, verified::Outcome::Equivalent), "{g}: the verified engine says {engine:?}");
        } else {
            match product {
                BmcVerdict::Violated(cex) => {
                    let ins = [cex.stdin.clone()];
                    let (a, b) = (outputs(&called, &ins), outputs(&written, &ins));
                    assert_ne!(a, b, "{g}: the product's input {:?} prints the same in the interpreter", cex.stdin);
                }
                other => panic!("{g}: the product finds no difference: {other:?}"),
            }
            assert!(!matches!(engine, verified::Outcome::Equivalent), "{g}: the verified engine proves them equal");
        }
    }
}
