//! The character-stream model: classification, the prompt cut, and the semantics of the reads
//! (glibc's `getchar`/`scanf("%c")` at the end of input, a byte into an `int`, side effects of
//! conditions and of repair alternatives), checked with Z3 on single regions.

use std::collections::{BTreeSet, HashMap, HashSet};

use z3::ast::{Ast, BV, Bool};
use z3::{Context, SatResult, Solver};

use super::*;
use crate::engines::verified::region::{Alt, Exec, Holes, Region, SEL_BITS, Setup, State, Term, World};
use crate::ir::cfa::{LoopTree, Node};
use crate::ir::{Expr, Program, StmtKind};
use crate::smt::solver::new_context;
use crate::spec::compare::Compare;
use crate::syntax::lower::lower_source;

/// IntroClass checksum's reference (the fixture the verified engine's snapshots use).
const CHECKSUM: &str = include_str!("../../../../fixtures/verified/checksum.ref.c");

fn program(src: &str) -> Program {
    let lowered = lower_source(src);
    assert!(lowered.diagnostics.iter().all(|d| d.severity != crate::ir::Severity::Error), "{:?}", lowered.diagnostics);
    lowered.program
}

fn main_of(p: &Program) -> FuncId {
    p.func_by_name("main").expect("main")
}

fn setup<'p>(
    p: &'p Program,
    tree: &'p LoopTree<'p>,
    names: &'p HashMap<FuncId, String>,
    prompts: &'p HashSet<ExprId>,
    compare: Compare,
) -> Setup<'p> {
    let func = main_of(p);
    Setup {
        program: p,
        func,
        tree,
        callee_names: names,
        prompts,
        compare,
        line: BTreeSet::new(),
        reading: reading_range(p, func, input_kind(p, func).unwrap()),
        input: input_kind(p, func).unwrap(),
        budget: crate::smt::Budget::unlimited(crate::cancel::Cancel::new()),
        floats: crate::smt::floats::FloatModel::Ieee,
        line_in_input: true,
    }
}

/// Runs `main`'s Func-Entry region from the stream's start.
fn entry_region<'p, 'ctx: 'p>(
    ctx: &'ctx Context,
    setup: &Setup<'p>,
    world: &World<'_, 'ctx>,
    holes: Option<&'p Holes<'ctx>>,
) -> Region<'p, 'ctx> {
    region_at(ctx, setup, world, holes, Node::FuncEntry)
}

/// The region of `node`, from a fresh state reading the input from its start.
fn region_at<'p, 'ctx: 'p>(
    ctx: &'ctx Context,
    setup: &Setup<'p>,
    world: &World<'_, 'ctx>,
    holes: Option<&'p Holes<'ctx>>,
    node: Node,
) -> Region<'p, 'ctx> {
    let mut pre = Exec::fresh_state(ctx, setup, "t.").unwrap();
    pre.in_pos = BV::from_u64(ctx, 0, 32);
    Exec::new(setup, world, holes).run(node, pre).unwrap()
}

/// The state of the region's single exit.
fn only_exit<'ctx>(r: &Region<'_, 'ctx>) -> State<'ctx> {
    assert_eq!(r.exits.len(), 1, "{:?}", r.exits.iter().map(|e| e.to).collect::<Vec<_>>());
    r.exits[0].state.clone()
}

fn ret<'ctx>(st: &State<'ctx>) -> BV<'ctx> {
    match &st.ret.as_ref().expect("a returned value").term {
        Term::Int(b, _) => b.clone(),
        _ => panic!("an int"),
    }
}

/// `facts` imply `claim` (for every input).
fn proves<'ctx>(ctx: &'ctx Context, facts: &[Bool<'ctx>], claim: &Bool<'ctx>) -> bool {
    let s = Solver::new(ctx);
    for f in facts {
        s.assert(f);
    }
    s.assert(&claim.not());
    s.check() == SatResult::Unsat
}

fn int(ctx: &Context, v: i64) -> BV<'_> {
    BV::from_i64(ctx, v, 32)
}

fn chr<'ctx>(ctx: &'ctx Context, pos: u64) -> BV<'ctx> {
    let f = z3::FuncDecl::new(ctx, "in.chr", &[&z3::Sort::bitvector(ctx, 32)], &z3::Sort::bitvector(ctx, 8));
    f.apply(&[&BV::from_u64(ctx, pos, 32)]).as_bv().unwrap()
}

fn len(ctx: &Context) -> BV<'_> {
    BV::new_const(ctx, "in.len", 32)
}

/// Runs `src`'s entry region and hands it to `check`.
fn with_entry_region(src: &str, check: impl for<'p, 'ctx> FnOnce(&'ctx Context, &Region<'p, 'ctx>)) {
    with_region(src, Node::FuncEntry, check);
}

/// Runs `src`'s region of `node` (input read from its start) and hands it to `check`.
fn with_region(src: &str, node: Node, check: impl for<'p, 'ctx> FnOnce(&'ctx Context, &Region<'p, 'ctx>)) {
    with_region_reading(src, node, None, check);
}

/// [`with_region`], the input read as `input` (as [`pair_inputs`] may choose) or, with
/// `None`, as the program alone would be.
fn with_region_reading(
    src: &str,
    node: Node,
    input: Option<Input>,
    check: impl for<'p, 'ctx> FnOnce(&'ctx Context, &Region<'p, 'ctx>),
) {
    let p = program(src);
    let tree = LoopTree::of(p.func(main_of(&p))).unwrap();
    let (names, prompts) = (HashMap::new(), HashSet::new());
    let mut s = setup(&p, &tree, &names, &prompts, Compare::Exact);
    if let Some(input) = input {
        s.input = input;
        s.reading = reading_range(&p, s.func, input);
    }
    let ctx = new_context();
    let world = World::new(&ctx);
    let r = region_at(&ctx, &s, &world, None, node);
    check(&ctx, &r);
}

/// Runs `src`'s entry region and hands the exit state to `check`.
fn with_entry(src: &str, check: impl for<'ctx> FnOnce(&'ctx Context, &State<'ctx>)) {
    with_entry_region(src, |ctx, r| check(ctx, &only_exit(r)));
}

#[test]
fn reads_are_classified_by_format() {
    let p = program(
        "#include <stdio.h>\nint main(void) { char a, b; int n; scanf(\"%c\", &a); scanf(\"%c%c\", &a, &b); scanf(\" %c\", &a); scanf(\"%d\", &n); scanf(\"%d%c\", &n, &a); scanf(\"%*c\"); return getchar(); }",
    );
    let mut kinds = Vec::new();
    crate::ir::walk::walk_stmt(p.func(main_of(&p)).body.as_ref().unwrap(), &mut |e| {
        if let Some(k) = read_of(e) {
            kinds.push(k);
        }
    });
    use Read::*;
    assert_eq!(kinds, vec![Chars, Chars, Tokens, Tokens, Tokens, Chars, Chars]);
}

#[test]
fn character_and_token_reads_in_one_program_are_unsupported() {
    let p = program(
        "#include <stdio.h>\nint main(void) { char c; int n; scanf(\"%d\", &n); c = getchar(); return c + n; }",
    );
    let err = input_kind(&p, main_of(&p)).unwrap_err();
    assert!(err.what.contains("characters") && err.what.contains("numbers"), "{}", err.what);
    // `fgets` reads characters: with a `%d` read, the same.
    let p = program(
        "#include <stdio.h>\nint main(void) { char b[8]; int n; fgets(b, 8, stdin); scanf(\"%d\", &n); return n; }",
    );
    assert!(input_kind(&p, main_of(&p)).is_err());
    let p = program("#include <stdio.h>\nint main(void) { char b[8]; fgets(b, 8, stdin); return b[0]; }");
    assert_eq!(input_kind(&p, main_of(&p)).unwrap(), Input::Chars);
    assert_eq!(input_kind(&program(CHECKSUM), FuncId(0)).unwrap(), Input::Chars);
}

#[test]
fn words_are_tokens_alone_and_characters_beside_characters() {
    let kind = |body: &str| {
        let p = program(&format!("#include <stdio.h>\nint main(void) {{ char s[8], c; int n; {body} return 0; }}"));
        input_kind(&p, main_of(&p))
    };
    assert_eq!(kind("scanf(\"%s\", s);"), Ok(Input::Tokens));
    assert_eq!(kind("scanf(\" %c\", &c);"), Ok(Input::Tokens));
    // The token model has no place for the bytes a scan set leaves unread.
    assert_eq!(kind("scanf(\"%7[^\\n]\", s);"), Ok(Input::Chars));
    assert_eq!(kind("scanf(\"%s\", s); c = getchar();"), Ok(Input::Chars));
    assert!(kind("scanf(\"%7[^\\n]\", s); scanf(\"%d\", &n);").is_ok_and(|k| k == Input::Tokens));
    // Beside a reference that reads characters, a student's words are read from them too;
    // words beside numbers are not.
    let reference = program("#include <stdio.h>\nint main(void) { char b[8]; fgets(b, 8, stdin); return b[0]; }");
    let pair = |body: &str| {
        let p = program(&format!("#include <stdio.h>\nint main(void) {{ char s[8]; int n; {body} return 0; }}"));
        pair_inputs(&reference, main_of(&reference), &p, main_of(&p)).unwrap()
    };
    assert_eq!(pair("scanf(\"%s\", s);"), (Input::Chars, Input::Chars));
    assert_eq!(pair("scanf(\"%s%d\", s, &n);"), (Input::Chars, Input::Tokens));
}

#[test]
fn prompts_come_before_the_first_read_and_nothing_is_printed_while_reading() {
    let p = program(CHECKSUM);
    let f = main_of(&p);
    let prompts = char_prompts(&p, f).unwrap();
    assert_eq!(prompts.len(), 1, "the first printf only");
    let range = reading_range(&p, f, Input::Chars).unwrap();
    let src = CHECKSUM;
    assert!(src[range.range()].starts_with("while ((status = scanf"), "{}", &src[range.range()]);
    let printing = program(
        "#include <stdio.h>\nint main(void) { int c; printf(\"> \"); while ((c = getchar()) != '\\n') putchar(c); printf(\"done\\n\"); return 0; }",
    );
    let err = char_prompts(&printing, main_of(&printing)).unwrap_err();
    assert!(err.what.contains("printing between character reads"), "{}", err.what);
}

#[test]
fn getchar_returns_each_byte_then_eof() {
    with_entry(
        "#include <stdio.h>\nint main(void) { int a = getchar(); int b = getchar(); return a * 1000 + b; }",
        |ctx, st| {
            // One character: the first read gives it (0..255), the second -1.
            let one = len(ctx)._eq(&int(ctx, 1));
            let first = chr(ctx, 0).zero_ext(24);
            assert!(proves(
                ctx,
                std::slice::from_ref(&one),
                &ret(st)._eq(&first.bvmul(&int(ctx, 1000)).bvadd(&int(ctx, -1)))
            ));
            assert!(proves(ctx, &[one], &st.in_pos._eq(&int(ctx, 1))));
            assert!(proves(ctx, &[len(ctx)._eq(&int(ctx, 2))], &st.in_pos._eq(&int(ctx, 2))));
        },
    );
}

#[test]
fn an_empty_input_is_outside_the_line_assumption() {
    with_entry_region("#include <stdio.h>\nint main(void) { return getchar(); }", |ctx, r| {
        let mut facts = r.assumed.clone();
        facts.push(len(ctx)._eq(&int(ctx, 0)));
        assert!(proves(ctx, &facts, &Bool::from_bool(ctx, false)), "the line assumption rules out empty input");
        // With a newline at `in.nl`: the first character read is the input's first.
        assert!(proves(ctx, &r.assumed, &ret(&only_exit(r))._eq(&chr(ctx, 0).zero_ext(24))));
    });
}

#[test]
fn scanf_c_returns_eof_and_keeps_the_variable_at_the_end_of_input() {
    with_entry(
        "#include <stdio.h>\nint main(void) { char c = 'x'; getchar(); int r = scanf(\"%c\", &c); return r * 1000 + c; }",
        |ctx, st| {
            assert!(proves(ctx, &[len(ctx)._eq(&int(ctx, 1))], &ret(st)._eq(&int(ctx, -1000 + 'x' as i64))));
            let read = chr(ctx, 1).sign_ext(24).bvadd(&int(ctx, 1000));
            assert!(proves(ctx, &[len(ctx).bvugt(&int(ctx, 1))], &ret(st)._eq(&read)));
        },
    );
}

#[test]
fn scanf_counts_assigned_characters_and_eof_only_before_the_first() {
    with_entry(
        "#include <stdio.h>\nint main(void) { char a = 0, b = 0; int r = scanf(\"%*c%c\", &a); int s = scanf(\"%c%c\", &a, &b); return r * 10 + s; }",
        |ctx, st| {
            // One character: `%*c` takes it, `%c` fails before anything is assigned: EOF; then EOF.
            assert!(proves(ctx, &[len(ctx)._eq(&int(ctx, 1))], &ret(st)._eq(&int(ctx, -11))));
            // Three: 1 assigned, then 1 assigned before the input ends.
            assert!(proves(ctx, &[len(ctx)._eq(&int(ctx, 3))], &ret(st)._eq(&int(ctx, 11))));
            assert!(proves(ctx, &[len(ctx)._eq(&int(ctx, 3))], &st.in_pos._eq(&int(ctx, 3))));
        },
    );
}

#[test]
fn percent_c_into_an_int_changes_its_low_byte_only() {
    with_entry("#include <stdio.h>\nint main(void) { int c = 0x12345678; scanf(\"%c\", &c); return c; }", |ctx, st| {
        let facts = [len(ctx).bvugt(&int(ctx, 0)), chr(ctx, 0)._eq(&BV::from_u64(ctx, 0x41, 8))];
        assert!(proves(ctx, &facts, &ret(st)._eq(&int(ctx, 0x12345641))));
    });
}

#[test]
fn the_right_operand_of_and_reads_only_when_it_runs() {
    with_entry(
        "#include <stdio.h>\nint main(void) { int c = getchar(); if (c == 'a' && getchar() == 'b') c = 2; return c; }",
        |ctx, st| {
            let facts = [len(ctx)._eq(&int(ctx, 5)), chr(ctx, 0)._eq(&BV::from_u64(ctx, b'z' as u64, 8))];
            assert!(proves(ctx, &facts, &st.in_pos._eq(&int(ctx, 1))));
            let facts = [len(ctx)._eq(&int(ctx, 5)), chr(ctx, 0)._eq(&BV::from_u64(ctx, b'a' as u64, 8))];
            assert!(proves(ctx, &facts, &st.in_pos._eq(&int(ctx, 2))));
        },
    );
}

#[test]
fn an_alternative_replaces_the_read_in_a_condition() {
    let src = "#include <stdio.h>\nint main(void) { int c = 0; if ((c = getchar()) != 'x') c = 1; return c; }";
    let p = program(src);
    let body = p.func(main_of(&p)).body.as_ref().unwrap();
    let StmtKind::Block(stmts) = &body.kind else { panic!() };
    let cond = stmts.iter().find_map(|s| match &s.kind {
        StmtKind::If { cond, .. } => Some(cond),
        _ => None,
    });
    let cond: &Expr = cond.unwrap();
    let tree = LoopTree::of(p.func(main_of(&p))).unwrap();
    let (names, prompts) = (HashMap::new(), HashSet::new());
    let s = setup(&p, &tree, &names, &prompts, Compare::Exact);
    let ctx = new_context();
    let world = World::new(&ctx);
    let sel = BV::new_const(&ctx, "sel", SEL_BITS);
    let key = cond.id;
    let holes = Holes {
        sites: [(key, (sel.clone(), vec![Alt::Original, Alt::Bool(false)]))].into_iter().collect(),
        order: vec![key],
        held_back: Vec::new(),
    };
    let st = only_exit(&entry_region(&ctx, &s, &world, Some(&holes)));
    let facts = |k: u64| vec![len(&ctx)._eq(&int(&ctx, 4)), sel._eq(&BV::from_u64(&ctx, k, SEL_BITS))];
    // As written the condition reads; replaced by `0` it does not, and `c` stays 0.
    assert!(proves(&ctx, &facts(0), &st.in_pos._eq(&int(&ctx, 1))));
    assert!(proves(&ctx, &facts(1), &st.in_pos._eq(&int(&ctx, 0))));
    assert!(proves(&ctx, &facts(1), &ret(&st)._eq(&int(&ctx, 0))));
}

#[test]
fn putchar_prints_like_percent_c_and_a_constant_as_text() {
    let (a, b) = (
        "#include <stdio.h>\nint main(void) { int c = getchar(); printf(\"is %c\\n\", c); return 0; }",
        "#include <stdio.h>\nint main(void) { int c = getchar(); printf(\"is \"); putchar(c + 256); putchar('\\n'); return 0; }",
    );
    let ctx = new_context();
    let world = World::new(&ctx);
    let (pa, pb) = (program(a), program(b));
    let (ta, tb) = (LoopTree::of(pa.func(main_of(&pa))).unwrap(), LoopTree::of(pb.func(main_of(&pb))).unwrap());
    let (names, prompts) = (HashMap::new(), HashSet::new());
    for compare in [Compare::Exact, Compare::Values] {
        let (sa, sb) = (setup(&pa, &ta, &names, &prompts, compare), setup(&pb, &tb, &names, &prompts, compare));
        let (ra, rb) = (entry_region(&ctx, &sa, &world, None), entry_region(&ctx, &sb, &world, None));
        let xa: Vec<_> = ra.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        let xb: Vec<_> = rb.printed.iter().map(|p| (p.guard.clone(), &p.token)).collect();
        let differ = crate::engines::verified::region::sequences_differ(&ctx, &xa, &xb);
        assert!(proves(&ctx, &[], &differ.not()), "{compare:?}: {xa:?} vs {xb:?}");
    }
}

#[test]
fn the_line_invariant_holds_at_the_reading_loop_and_the_reference_reads_before_it_returns() {
    let p = program(CHECKSUM);
    let tree = LoopTree::of(p.func(main_of(&p))).unwrap();
    let names = HashMap::new();
    let prompts = char_prompts(&p, main_of(&p)).unwrap();
    let mut r = setup(&p, &tree, &names, &prompts, Compare::Values);
    let mut s = r.clone();
    let ctx = new_context();
    prepare(&ctx, &mut r, &mut s).unwrap();
    assert_eq!(r.line, [Node::LoopEntry(0)].into_iter().collect());
    // A reference that may return before reading: its prompt would be compared.
    let lazy = program(
        "#include <stdio.h>\nint main(void) { int c = 0, n = 0; printf(\"> \"); if (n) c = getchar(); printf(\"%d\\n\", c); return 0; }",
    );
    let tree = LoopTree::of(lazy.func(main_of(&lazy))).unwrap();
    let prompts = char_prompts(&lazy, main_of(&lazy)).unwrap();
    let mut r = setup(&lazy, &tree, &names, &prompts, Compare::Values);
    let mut s = r.clone();
    let err = prepare(&ctx, &mut r, &mut s).unwrap_err();
    assert!(err.what.contains("without reading a character"), "{}", err.what);
}

fn byte(ctx: &Context, c: u8) -> BV<'_> {
    BV::from_u64(ctx, c as u64, 8)
}

/// The input starts with `text` and is `len` characters long.
fn input<'ctx>(ctx: &'ctx Context, text: &[u8], len: i64) -> Vec<Bool<'ctx>> {
    let mut facts: Vec<Bool<'ctx>> =
        text.iter().enumerate().map(|(i, c)| chr(ctx, i as u64)._eq(&byte(ctx, *c))).collect();
    facts.push(len_is(ctx, len));
    facts
}

fn len_is(ctx: &Context, n: i64) -> Bool<'_> {
    len(ctx)._eq(&int(ctx, n))
}

/// `fgets` then `strlen`: the value returned packs the length, two bytes of the array and
/// the position (`len * 1000000 + b[i] * 1000 + b[j]`, then the position separately).
const FGETS: &str = "#include <stdio.h>\n#include <string.h>\nint main(void) { char b[8]; fgets(b, 5, stdin); return strlen(b) * 1000000 + b[I] * 1000 + b[J]; }";

/// `(i, j)`: the bytes of `b` returned; `want`: the length, `b[i]`, `b[j]` and the position.
fn fgets_case((i, j): (usize, usize), text: &[u8], len: i64, (want_len, want_i, want_j, want_pos): (i64, u8, u8, i64)) {
    let src = FGETS.replace("b[I]", &format!("b[{i}]")).replace("b[J]", &format!("b[{j}]"));
    with_entry_region(&src, |ctx, r| {
        let st = only_exit(r);
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, text, len));
        let want = want_len * 1_000_000 + want_i as i64 * 1000 + want_j as i64;
        assert!(proves(ctx, &facts, &ret(&st)._eq(&int(ctx, want))), "{:?}: not {want}", String::from_utf8_lossy(text));
        assert!(
            proves(ctx, &facts, &st.in_pos._eq(&int(ctx, want_pos))),
            "{:?}: position",
            String::from_utf8_lossy(text)
        );
        // Within the array, after the reads: no runtime error.
        let errors: Vec<Bool<'_>> = r.errors.iter().map(|(c, _, _)| c.clone()).collect();
        assert!(proves(ctx, &facts, &Bool::or(ctx, &errors.iter().collect::<Vec<_>>()).not()), "no error");
    });
}

#[test]
fn fgets_stores_the_line_with_its_newline_and_a_nul() {
    // "ab\n": three characters, the newline kept, `'\0'` after it, the rest left to read.
    fgets_case((2, 3), b"ab\nz", 6, (3, b'\n', 0, 3));
}

#[test]
fn fgets_stops_after_n_minus_1_characters_of_a_long_line() {
    // `fgets(b, 5, ...)` on "abcdefg\n": four characters, no newline, then `'\0'`.
    fgets_case((3, 4), b"abcdefg\n", 8, (4, b'd', 0, 4));
}

#[test]
fn fgets_on_an_empty_line_reads_the_newline_alone() {
    fgets_case((0, 1), b"\nabc", 4, (1, b'\n', 0, 1));
}

#[test]
fn fgets_at_the_end_of_input_stops_and_leaves_the_array_unchanged() {
    // The first line "a\n", then "xy" without a newline (the input ends): the second `fgets`
    // stores "xy" and a `'\0'`; a third finds nothing and leaves `c` as it was.
    let src = "#include <stdio.h>\n#include <string.h>\nint main(void) { char a[4], b[4], c[4]; c[0] = 'z'; c[1] = 0; fgets(a, 4, stdin); fgets(b, 4, stdin); fgets(c, 4, stdin); return strlen(b) * 1000 + c[0]; }";
    with_entry_region(src, |ctx, r| {
        let st = only_exit(r);
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, b"a\nxy", 4));
        assert!(proves(ctx, &facts, &ret(&st)._eq(&int(ctx, 2000 + 'z' as i64))));
        assert!(proves(ctx, &facts, &st.in_pos._eq(&int(ctx, 4))));
    });
}

#[test]
fn strlen_without_a_nul_and_an_index_out_of_bounds_are_runtime_errors() {
    let src = "#include <stdio.h>\n#include <string.h>\nint main(void) { char b[4]; int i = getchar() - '0'; b[0] = 'x'; b[1] = 'y'; b[2] = 'z'; b[3] = 0; b[i] = 'w'; return strlen(b); }";
    with_entry_region(src, |ctx, r| {
        let errors: Vec<Bool<'_>> = r.errors.iter().map(|(c, _, _)| c.clone()).collect();
        let any = Bool::or(ctx, &errors.iter().collect::<Vec<_>>());
        let mut facts = r.assumed.clone();
        // '3': `b[3] = 'w'` overwrites the `'\0'`, and `strlen` runs past the end.
        facts.extend(input(ctx, b"3\n", 2));
        assert!(proves(ctx, &facts, &any));
        // '4': the write itself is out of bounds; '-' (index -3) too; '1': no error (length 3).
        for (c, bad) in [(b'4', true), (b'-', true), (b'1', false)] {
            let mut facts = r.assumed.clone();
            facts.extend(input(ctx, &[c, b'\n'], 2));
            assert!(proves(ctx, &facts, &if bad { any.clone() } else { any.not() }), "{}", c as char);
        }
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, b"1\n", 2));
        assert!(proves(ctx, &facts, &ret(&only_exit(r))._eq(&int(ctx, 3))));
    });
}

#[test]
fn switch_enters_at_the_matching_case_falls_through_and_leaves_by_break() {
    let src = "#include <stdio.h>\nint main(void) { int r = 0; switch (getchar()) { case 'a': r = 1; case 'b': r += 10; break; case 'c': return 7; default: r = 100; } return r; }";
    with_entry_region(src, |ctx, r| {
        for (c, want) in [(b'a', 11), (b'b', 10), (b'c', 7), (b'x', 100)] {
            let mut facts = r.assumed.clone();
            facts.extend(input(ctx, &[c, b'\n'], 2));
            // Two ways to the exit (the `return 7` and the end): merged, they give one value.
            let exits: Vec<&State<'_>> = r.exits.iter().map(|e| &e.state).collect();
            let value = exits.iter().rev().fold(None::<BV<'_>>, |rest, s| {
                Some(match rest {
                    None => ret(s),
                    Some(rest) => s.guard.ite(&ret(s), &rest),
                })
            });
            assert!(proves(ctx, &facts, &value.unwrap()._eq(&int(ctx, want))), "{}", c as char);
        }
    });
}

#[test]
fn break_in_a_switch_inside_a_loop_leaves_the_switch_only() {
    let src = "#include <stdio.h>\nint main(void) { int c, n = 0; while (1) { c = getchar(); switch (c) { case '\\n': break; default: n++; } if (c == '\\n') break; } return n; }";
    with_region(src, Node::LoopEntry(0), |ctx, r| {
        let taken = |to: Node| {
            Bool::or(ctx, &r.exits.iter().filter(|e| e.to == to).map(|e| &e.state.guard).collect::<Vec<_>>())
        };
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, b"\n", 1));
        // The newline: the `switch`'s `break` leads to the `if`, whose `break` leaves the loop.
        assert!(proves(ctx, &facts, &taken(Node::LoopExit(0))));
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, b"a\n", 2));
        assert!(proves(ctx, &facts, &taken(Node::LoopEntry(0))));
    });
}

/// One `scanf` of text on the character stream, run by the interpreter (glibc's rules) and
/// by the region executor on the same input: the value returned, the bytes of `a`, `b` and
/// `c`, the position after it, and whether it wrote past an array agree.
fn scanf_text_agrees(call: &str, text: &[u8]) {
    let decls = "char a[6] = {0}; char b[6] = {0}; char c = 'z';";
    let interp_src = format!(
        "#include <stdio.h>\nint main(void) {{ {decls} int r = {call}; int rest = 0; int k; \
         while (getchar() != EOF) rest++; printf(\"%d %d \", r, c); \
         for (k = 0; k < 6; k++) printf(\"%d %d \", a[k], b[k]); printf(\"%d\", rest); return 0; }}"
    );
    let run = crate::spec::interp::run(
        &program(&interp_src),
        "main",
        text,
        &crate::spec::interp::Limits::default(),
        &crate::cancel::Cancel::new(),
    );
    let region_src = format!("#include <stdio.h>\nint main(void) {{ {decls} int r = {call}; return r; }}");
    let shown = String::from_utf8_lossy(text).into_owned();
    with_region_reading(&region_src, Node::FuncEntry, Some(Input::Chars), |ctx, r| {
        let mut facts = r.assumed.clone();
        facts.extend(input(ctx, text, text.len() as i64));
        // The skips exact on every byte the test pins down (the engine's queries pin only the
        // bytes the regions read, which `skip_facts` covers).
        let pinned: Vec<BV<'_>> = (0..text.len() as u64).map(|k| BV::from_u64(ctx, k, 32)).collect();
        facts.extend(skips_over(ctx, &World::new(ctx), &r.skips, &pinned));
        // The facts describe this input (and prove nothing by contradicting each other).
        assert!(!proves(ctx, &facts, &Bool::from_bool(ctx, false)), "{call} on {shown:?}: the facts contradict");
        let errors: Vec<Bool<'_>> = r.errors.iter().map(|(c, _, _)| c.clone()).collect();
        let error = Bool::or(ctx, &errors.iter().collect::<Vec<_>>());
        if run.error.is_some() {
            assert!(proves(ctx, &facts, &error), "{call} on {shown:?}: the interpreter stops with an error");
            return;
        }
        assert!(proves(ctx, &facts, &error.not()), "{call} on {shown:?}: no error");
        let out = String::from_utf8(run.output.clone()).unwrap();
        let want: Vec<i64> = out.split_whitespace().map(|x| x.parse().unwrap()).collect();
        let st = only_exit(r);
        assert!(proves(ctx, &facts, &ret(&st)._eq(&int(ctx, want[0]))), "{call} on {shown:?}: returns {}", want[0]);
        let p = program(&region_src);
        let var = |name: &str| {
            let f = p.func(main_of(&p));
            *f.locals.iter().find(|&&v| p.var(v).name == name).expect("a local")
        };
        let Term::Int(cv, _) = &st.vars[&var("c")].term else { panic!("c") };
        assert!(proves(ctx, &facts, &cv._eq(&BV::from_i64(ctx, want[1], 8))), "{call} on {shown:?}: c");
        for (i, name) in ["a", "b"].iter().enumerate() {
            let Term::Array(arr, _, _) = &st.vars[&var(name)].term else { panic!("an array") };
            for k in 0..6 {
                let got = arr.select(&BV::from_u64(ctx, k, 32)).as_bv().unwrap();
                let w = want[2 + 2 * k as usize + i];
                assert!(
                    proves(ctx, &facts, &got._eq(&BV::from_i64(ctx, w, 8))),
                    "{call} on {shown:?}: {name}[{k}] = {w}"
                );
            }
        }
        let pos = text.len() as i64 - want[14];
        assert!(proves(ctx, &facts, &st.in_pos._eq(&int(ctx, pos))), "{call} on {shown:?}: position {pos}");
    });
}

#[test]
fn words_and_scan_sets_read_from_characters_as_glibc_reads_them() {
    let calls = [
        "scanf(\"%s\", a)",
        "scanf(\"%s%s\", a, b)",
        "scanf(\"%3s\", a)",
        "scanf(\"%[^\\n]\", a)",
        "scanf(\"%4[^\\n]\", a)",
        "scanf(\" %[^\\n]\", a)",
        "scanf(\"%[a-c]%s\", a, b)",
        "scanf(\"%c%s\", &c, a)",
        "scanf(\"%s %c\", a, &c)",
        "scanf(\"%*2s %2s\", a)",
        "scanf(\"%s,%s\", a, b)",
    ];
    let inputs: [&[u8]; 9] =
        [b"ab cd\n", b"  ab\n", b"\n", b"\n\n  \n", b"abcdefgh\n", b"abc\nde", b" x\tyz\n", b"cab,ba\n", b"a,b c\n"];
    for call in calls {
        for text in inputs {
            scanf_text_agrees(call, text);
        }
    }
}
