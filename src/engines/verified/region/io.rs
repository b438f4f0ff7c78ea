//! Input and output: `scanf`, `getchar`, `fgets` over the shared input stream, and
//! `printf`/`putchar` through the shared output model ([`crate::smt::output`]).

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    pub(super) fn scanf(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>) -> R<Val<'ctx>> {
        let Some(ExprKind::Str(fmt)) = args.first().map(|a| &a.strip_implicit().kind) else {
            return unsupported("a scanf format that is not a literal", e.span);
        };
        let pieces = cfmt::parse(fmt, true)
            .map_err(|_| Unsupported { what: "a malformed scanf format".into(), span: e.span })?;
        if self.setup.input == stream::Input::Chars {
            return self.scanf_chars(e, &pieces, args, st);
        }
        let mut rest = args[1..].iter();
        let mut count = 0u64;
        // The last piece was whitespace: a `%c` after it skips whitespace like a token read.
        let mut skips_ws = false;
        for p in pieces {
            let d = match p {
                Piece::Literal(bytes) => {
                    skips_ws = bytes.last().is_some_and(|b| b.is_ascii_whitespace());
                    continue;
                }
                Piece::Directive(d) => d,
            };
            let after_ws = std::mem::take(&mut skips_ws);
            if d.suppress || d.conv == '%' {
                if d.suppress {
                    st.in_pos = st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)).simplify();
                }
                continue;
            }
            let Some(arg) = rest.next() else { return unsupported("scanf with too few arguments", e.span) };
            if d.conv == 's' {
                if d.width != cfmt::Count::None {
                    // A longer word would be split, its rest the next token: positions would
                    // no longer count tokens.
                    return unsupported("`%s` with a width", arg.span);
                }
                self.scan_word(arg, st)?;
                st.in_pos = st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)).simplify();
                count += 1;
                continue;
            }
            let ExprKind::AddrOf(target) = &arg.strip_implicit().kind else {
                return unsupported("scanf into something other than `&variable`", arg.span);
            };
            // `&a[i]`: the element is addressed (and its index checked) before the read.
            let element = match &target.strip_implicit().kind {
                ExprKind::Index(base, idx) => {
                    let g = st.guard.clone();
                    Some(self.element(base, idx, st, &g, target.span, false)?)
                }
                _ => None,
            };
            let (v, ty) = match &element {
                Some((v, _)) => match st.vars.get(v) {
                    Some(Val { term: Term::Array(_, t, _), .. }) => (*v, Type::Int(*t)),
                    _ => unreachable!("an array"),
                },
                None => {
                    let v = self.lvalue_var(target)?;
                    (v, self.setup.program.var(v).ty.clone())
                }
            };
            let pos = st.in_pos.clone();
            let term = match d.conv {
                'd' | 'i' | 'u' | 'f' | 'e' | 'g' | 'F' | 'E' | 'G' => {
                    self.world.number_token(&mut self.floats, d.conv, &pos).expect("a number conversion")
                }
                // ` %c` among tokens: the first character of the next token. A `%c` right
                // after another conversion reads the character after a token, which the token
                // model does not represent.
                'c' if after_ws => {
                    let raw =
                        self.world.input("in.chr", &pos, &Sort::bitvector(self.ctx, 8)).as_bv().expect("char input");
                    Term::Int(raw, IntType::CHAR)
                }
                'c' => {
                    return unsupported("`%c` without a space before it in a format that also reads tokens", arg.span);
                }
                other => return unsupported(format!("reading `%{other}`"), arg.span),
            };
            let val = self.convert(Val { term, deps: Deps::new() }, &ty, arg.span)?;
            self.use_var(v, Usage::Scanned);
            match &element {
                Some((_, at)) => self.store(v, at, &val, st),
                None => {
                    st.vars.insert(v, val);
                }
            }
            st.in_pos = st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)).simplify();
            count += 1;
        }
        Ok(self.int_val(c_int::constant(self.ctx, IntType::INT, count as i64), IntType::INT, Deps::new()))
    }

    /// `scanf("%s", a)` into the local `char` array `a`: the word at the token position,
    /// `in.wlen(pos)` bytes `in.wchr(pos, j)` (none of them whitespace or `'\0'`), then a
    /// `'\0'`. A word that does not fit with its `'\0'` is a runtime error (scanf would write
    /// past the array).
    fn scan_word(&mut self, arg: &'p Expr, st: &mut State<'ctx>) -> R<()> {
        let ctx = self.ctx;
        let (v, a, t, n, deps) = self.string_target(arg, st)?;
        if c_int::width(t) != 8 {
            return unsupported("`%s` into an array of wider elements than `char`", arg.span);
        }
        let pos = st.in_pos.clone();
        let len = self.world.input("in.wlen", &pos, &Sort::bitvector(ctx, 32)).as_bv().expect("a length");
        let at = |j: u64| BV::from_u64(ctx, j, 32);
        let mut facts = vec![len.bvuge(&at(1))];
        let mut new = a.clone();
        for j in 0..n {
            let c = self.world.word_byte(&pos, j);
            let inside = at(j).bvult(&len);
            let blank = [0u8, b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c].map(|b| c._eq(&BV::from_u64(ctx, b as u64, 8)));
            let refs: Vec<&Bool<'ctx>> = blank.iter().collect();
            facts.push(inside.implies(&Bool::or(ctx, &refs).not()));
            let old = a.select(&at(j)).as_bv().expect("a byte");
            let nul = len._eq(&at(j)).ite(&BV::from_u64(ctx, 0, 8), &old);
            new = new.store(&at(j), &inside.ite(&c, &nul));
        }
        let refs: Vec<&Bool<'ctx>> = facts.iter().collect();
        self.region.assumed.push(Bool::and(ctx, &refs).simplify());
        let g = st.guard.clone();
        self.error(Bool::and(ctx, &[&g, &len.bvuge(&at(n))]), deps.clone(), arg.span);
        self.use_var(v, Usage::Scanned);
        st.vars.insert(v, Val { term: Term::Array(new, t, Len::Fixed(n)), deps });
        Ok(())
    }

    /// Reads one character of the character stream: whether there was one (`pos < in.len`)
    /// and the byte; the position advances when there was.
    pub(super) fn read_char(&mut self, st: &mut State<'ctx>) -> (Bool<'ctx>, BV<'ctx>) {
        let yes = Bool::from_bool(self.ctx, true);
        self.read_char_if(st, &yes)
    }

    /// Whether there is a character at the position (`pos < in.len`): before the newline
    /// there is (no `ite` with the old value, whose variable would then look live).
    fn char_there(&mut self, st: &State<'ctx>) -> Bool<'ctx> {
        self.assume_line();
        let below_nl = self.setup.line_in_input
            && (self.below_nl.as_ref().is_some_and(|p| *p == st.in_pos) || st.in_pos.as_u64() == Some(0));
        if below_nl { Bool::from_bool(self.ctx, true) } else { st.in_pos.bvult(&self.world.len()).simplify() }
    }

    /// Reads one character when `wanted` holds (`fgets` stops after a newline): whether a
    /// character was read, and the byte at the position.
    pub(super) fn read_char_if(&mut self, st: &mut State<'ctx>, wanted: &Bool<'ctx>) -> (Bool<'ctx>, BV<'ctx>) {
        let there = self.char_there(st);
        let ok = Bool::and(self.ctx, &[wanted, &there]).simplify();
        let byte = self.byte_read(&st.in_pos);
        st.in_pos = ok.ite(&st.in_pos.bvadd(&BV::from_u64(self.ctx, 1, 32)), &st.in_pos).simplify();
        (ok, byte)
    }

    /// The byte at `pos`, a byte the region reads ([`Region::chars_read`]): a byte of text
    /// ([`crate::smt::scan::text_byte`]), the domain of both character models (docs/smt.md:
    /// what C promises a text stream carries).
    fn byte_read(&mut self, pos: &BV<'ctx>) -> BV<'ctx> {
        let byte = self.world.char_at(pos);
        self.region.chars_read.push(pos.clone());
        // In a counterexample's instance the byte is the model's (its completion where the
        // query did not read it): a fact about it would only make the instance vacuous.
        if self.world.model.is_none() {
            self.region.assumed.push(crate::smt::scan::text_byte(self.ctx, &byte));
        }
        byte
    }

    /// White space skipped (where `going` holds), as a space in a `scanf` format or before
    /// `%s` does: the position moves to `in.skip(pos)`, the first position at or after it
    /// whose byte is no white space, or the end. What pins it down is true of the input at
    /// every position: it lies between the position and the end, its byte (if any) is no
    /// white space, and every byte before it from the position is
    /// ([`super::super::stream::skip_facts`], for each byte the regions compared read; any
    /// other byte can be a space, so every model is an input's).
    fn skip_spaces(&mut self, st: &mut State<'ctx>, going: &Bool<'ctx>) {
        let ctx = self.ctx;
        self.assume_line();
        let pos = st.in_pos.clone();
        if let Some(q) = self.skipped_in_model(&pos) {
            st.in_pos = going.ite(&q, &pos).simplify();
            return;
        }
        let q = self.world.input("in.skip", &pos, &Sort::bitvector(ctx, 32)).as_bv().expect("a position");
        let len = self.world.len();
        let at_q = self.byte_read(&q);
        let fact = Bool::and(
            ctx,
            &[&pos.bvule(&q), &q.bvule(&len), &q.bvult(&len).implies(&crate::smt::scan::c_space(ctx, &at_q).not())],
        );
        self.region.assumed.push(fact.simplify());
        self.region.skips.push((pos.clone(), q.clone()));
        st.in_pos = going.ite(&q, &pos).simplify();
    }

    /// Assumes, once per region, that the character stream holds a newline.
    pub(super) fn assume_line(&mut self) {
        if self.setup.line_in_input && !self.line_assumed {
            self.line_assumed = true;
            self.region.assumed.push(self.world.line_assumption());
        }
    }

    /// `fgets(buf, n, stdin)` as a statement, as glibc: reads up to `n - 1` characters,
    /// stopping after a newline (which it stores); then stores `'\0'` after them. When the
    /// input is at its end before any character, the array is left unchanged (and `NULL`
    /// returned, which the model does not use). `n` must evaluate to a constant of at least 2
    /// (or, for a repair hole, every alternative to one).
    pub(super) fn fgets(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<()> {
        let ctx = self.ctx;
        let [buf, n, _] = args else { return unsupported("`fgets` without three arguments", e.span) };
        let (v, mut a, t, size, deps) = self.array_of(buf, st)?;
        if c_int::width(t) != 8 {
            return unsupported("`fgets` into an array of wider elements than `char`", buf.span);
        }
        let n = self.site_value(n, SiteKind::Size, None, st)?;
        let Term::Int(nb, nt) = &n.term else { return unsupported("a floating point `fgets` size", e.span) };
        let leaves: Vec<Option<i64>> = constant_leaves(&nb.simplify())
            .into_iter()
            .map(|x| x.map(|u| signed_value(u, nb.get_size(), nt.signed)))
            .collect();
        let nb = c_int::resize(nb, nt.signed, 64).simplify();
        let Some(most) = leaves.iter().try_fold(i64::MIN, |m, x| x.map(|x| m.max(x))) else {
            return unsupported("`fgets` with a size that is not a constant", args[1].span);
        };
        if leaves.iter().any(|x| x.is_some_and(|x| x < 2)) {
            return unsupported("`fgets` with a size below 2", args[1].span);
        }
        let one32 = BV::from_u64(ctx, 1, 32);
        let mut going = Bool::from_bool(ctx, true);
        let mut count = BV::from_u64(ctx, 0, 32);
        let mut first = None;
        for k in 0..(most - 1) as u64 {
            self.in_budget(e.span)?;
            // Room for another character: `k < n - 1`.
            let room = BV::from_u64(ctx, k + 1, 64).bvslt(&nb).simplify();
            let wanted = Bool::and(ctx, &[&going, &room]).simplify();
            if wanted.as_bool() == Some(false) {
                break;
            }
            let (ok, byte) = self.read_char_if(st, &wanted);
            let at = BV::from_u64(ctx, k, 32);
            if k >= size {
                self.error(Bool::and(ctx, &[g, &ok]), deps.clone(), e.span);
            }
            a = ok.ite(&a.store(&at, &byte), &a);
            count = ok.ite(&at.bvadd(&one32), &count).simplify();
            going = Bool::and(ctx, &[&ok, &byte._eq(&BV::from_u64(ctx, b'\n' as u64, 8)).not()]).simplify();
            first.get_or_insert(ok);
        }
        // Nothing read: the input was at its end (glibc returns NULL, the array unchanged).
        let got = first.expect("a size of 2 at least reads once");
        if most > size as i64 {
            let past = count.bvuge(&BV::from_u64(ctx, size, 32));
            self.error(Bool::and(ctx, &[g, &got, &past]), deps.clone(), e.span);
        }
        a = got.ite(&a.store(&count, &BV::from_u64(ctx, 0, 8)), &a);
        self.use_var(v, Usage::Scanned);
        let mut d = deps;
        d.extend(n.deps.iter().copied());
        st.vars.insert(v, Val { term: Term::Array(a, t, Len::Fixed(size)), deps: d });
        Ok(())
    }

    /// `getchar()`: the next byte as an `int` (0 to 255), or -1 (`EOF`) at the end of input.
    pub(super) fn getchar(&mut self, st: &mut State<'ctx>) -> Val<'ctx> {
        let (ok, byte) = self.read_char(st);
        let c = ok.ite(&byte.zero_ext(24), &c_int::constant(self.ctx, IntType::INT, -1));
        self.int_val(c, IntType::INT, Deps::new())
    }

    /// In a counterexample's instance, where the skip is taken on the model's bytes (its
    /// `in.skip` is pinned only where the query skipped): the first position from `pos` whose
    /// byte is no white space, or the end; `None` outside a model or past a long run.
    fn skipped_in_model(&self, pos: &BV<'ctx>) -> Option<BV<'ctx>> {
        let m = self.world.model?;
        let at = m.eval(pos, false)?.simplify().as_u64()?;
        let len = m.eval(&self.world.len(), true)?.simplify().as_u64()?;
        // A longer run of white space than any test's is left to the model's `in.skip`.
        const LONGEST_RUN: u64 = 1 << 16;
        let mut q = at;
        while q < len && q - at < LONGEST_RUN {
            let byte = self.world.char_at(&BV::from_u64(self.ctx, q, 32)).simplify().as_u64()?;
            if !crate::spec::interp::is_c_space(byte as u8) {
                break;
            }
            q += 1;
        }
        (q - at < LONGEST_RUN).then(|| BV::from_u64(self.ctx, q, 32))
    }

    /// `scanf` on the character stream, as glibc (and the interpreter) reads: white space in
    /// the format skips input white space ([`Self::skip_spaces`]), other literal text must be
    /// the next byte; `%c` takes one byte, `%s` a word after white space, `%[...]` the bytes of
    /// its set ([`Self::scan_chars_word`]). At the end of the input `scanf` stops (an input
    /// failure), at a byte that does not match too (a matching failure), the variables after
    /// it left unchanged; it returns `EOF` when it stopped at the end of the input before
    /// assigning anything, else how many it assigned. A `%c` stores one byte into its variable
    /// (into an `int` only the low byte changes, as gcc lays it out).
    pub(super) fn scanf_chars(
        &mut self,
        e: &'p Expr,
        pieces: &[Piece],
        args: &'p [Expr],
        st: &mut State<'ctx>,
    ) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let mut rest = args[1..].iter();
        let mut done = c_int::constant(ctx, IntType::INT, 0);
        // No failure yet; an input failure (the end of the input) on the way.
        let mut going = Bool::from_bool(ctx, true);
        let mut ended = Bool::from_bool(ctx, false);
        let one = c_int::constant(ctx, IntType::INT, 1);
        for p in pieces {
            let d = match p {
                Piece::Literal(bytes) => {
                    for &b in bytes {
                        if b.is_ascii_whitespace() {
                            self.skip_spaces(st, &going);
                        } else {
                            going = self.match_byte(b, st, &going, &mut ended);
                        }
                    }
                    continue;
                }
                Piece::Directive(d) => d,
            };
            if d.conv == '%' {
                self.skip_spaces(st, &going);
                going = self.match_byte(b'%', st, &going, &mut ended);
                continue;
            }
            if d.conv == 's' {
                self.skip_spaces(st, &going);
            }
            self.note_end(st, &going, &mut ended);
            let target = match d.suppress {
                true => None,
                false => match rest.next() {
                    Some(arg) => Some(arg),
                    None => return unsupported("scanf with too few arguments", e.span),
                },
            };
            let ok = match d.conv {
                'c' if matches!(d.width, cfmt::Count::None | cfmt::Count::Fixed(1)) => {
                    let (ok, byte) = self.read_char_if(st, &going);
                    if let Some(arg) = target {
                        self.store_scanned_char(arg, &ok, byte, st)?;
                    }
                    ok
                }
                's' | '[' => self.scan_chars_word(e, d, target, st, &going)?,
                'c' => return unsupported("`%c` with a width", e.span),
                other => {
                    return unsupported(
                        format!(
                            "reading `%{other}` where the input is read character by character (`getchar`, `%c`, literal text in a scanf format)"
                        ),
                        e.span,
                    );
                }
            };
            going = ok;
            if !d.suppress {
                done = going.ite(&c_int::add(&done, &one), &done).simplify();
            }
        }
        let zero = c_int::constant(ctx, IntType::INT, 0);
        let eof = Bool::and(ctx, &[&ended, &done._eq(&zero)]);
        let ret = eof.ite(&c_int::constant(ctx, IntType::INT, -1), &done).simplify();
        Ok(self.int_val(ret, IntType::INT, Deps::new()))
    }

    /// Where `going` and the input is at its end here, `scanf` meets an input failure: `ended`.
    fn note_end(&mut self, st: &State<'ctx>, going: &Bool<'ctx>, ended: &mut Bool<'ctx>) {
        let there = self.char_there(st);
        *ended = Bool::or(self.ctx, &[&*ended, &Bool::and(self.ctx, &[going, &there.not()])]).simplify();
    }

    /// A literal byte of a `scanf` format, where `going`: taken when it is the next byte;
    /// whether it was (else `scanf` stops; at the end of the input, `ended`).
    fn match_byte(&mut self, b: u8, st: &mut State<'ctx>, going: &Bool<'ctx>, ended: &mut Bool<'ctx>) -> Bool<'ctx> {
        let ctx = self.ctx;
        self.note_end(st, going, ended);
        let same = self.world.char_at(&st.in_pos)._eq(&BV::from_u64(ctx, b as u64, 8));
        self.read_char_if(st, &Bool::and(ctx, &[going, &same]).simplify()).0
    }

    /// `%c` into `&variable`: where `ok`, the byte stored at the variable's address
    /// (little-endian: its low byte).
    fn store_scanned_char(&mut self, arg: &'p Expr, ok: &Bool<'ctx>, byte: BV<'ctx>, st: &mut State<'ctx>) -> R<()> {
        let ExprKind::AddrOf(target) = &arg.strip_implicit().kind else {
            return unsupported("scanf into something other than `&variable`", arg.span);
        };
        let v = self.lvalue_var(target)?;
        let old = st.vars[&v].clone();
        let stored = match (&old.term, &self.setup.program.var(v).ty) {
            (Term::Int(x, t), Type::Int(_)) if t.kind != crate::ir::IntKind::Bool => {
                let w = x.get_size();
                if w == 8 { byte } else { x.extract(w - 1, 8).concat(&byte) }
            }
            (_, ty) => {
                return unsupported(
                    format!("`%c` into a variable of type `{}`", self.setup.program.type_name(ty)),
                    arg.span,
                );
            }
        };
        let Term::Int(x, t) = &old.term else { unreachable!() };
        let whole = stored.get_size() == 8;
        let new = match ok.as_bool() {
            Some(true) => Val { term: Term::Int(stored, *t), deps: if whole { Deps::new() } else { old.deps.clone() } },
            _ => Val { term: Term::Int(ok.ite(&stored, x).simplify(), *t), deps: old.deps.clone() },
        };
        self.use_var(v, Usage::Scanned);
        st.vars.insert(v, new);
        Ok(())
    }

    /// `%s` (after its white space is skipped) or `%[...]` on the character stream, where
    /// `going`: the bytes the directive takes, at most its width and, into the local `char`
    /// array `target`, stored there with a `'\0'` after them. A word that reaches the array's
    /// end leaves no room for its `'\0'`: a runtime error (scanf writes past the array), so
    /// the bytes read are at most the array's length. Whether it took a byte (else `scanf`
    /// stops there). A suppressed `%*s` needs a width: its word has no array to bound it.
    fn scan_chars_word(
        &mut self,
        e: &'p Expr,
        d: &cfmt::Directive,
        target: Option<&'p Expr>,
        st: &mut State<'ctx>,
        going: &Bool<'ctx>,
    ) -> R<Bool<'ctx>> {
        let ctx = self.ctx;
        let accept = crate::smt::scan::Accept::of(d);
        let width = match d.width {
            cfmt::Count::Fixed(w) => Some(w as u64),
            _ => None,
        };
        let dest = match target {
            Some(arg) => {
                let dest = self.string_target(arg, st)?;
                if c_int::width(dest.2) != 8 {
                    return unsupported(format!("`%{}` into an array of wider elements than `char`", d.conv), arg.span);
                }
                Some((arg, dest))
            }
            None => None,
        };
        let size = dest.as_ref().map(|(_, (_, _, _, n, _))| *n);
        let Some(limit) = [width, size].into_iter().flatten().min() else {
            return unsupported(format!("`%*{}` without a width", d.conv), e.span);
        };
        let at = |k: u64| BV::from_u64(ctx, k, 32);
        let mut reading = going.clone();
        let mut count = at(0);
        let mut bytes = Vec::new();
        let mut first = None;
        for k in 0..limit {
            self.in_budget(e.span)?;
            let next = self.world.char_at(&st.in_pos);
            let wanted = Bool::and(ctx, &[&reading, &accept.takes(ctx, &next)]).simplify();
            if wanted.as_bool() == Some(false) {
                break;
            }
            let (ok, byte) = self.read_char_if(st, &wanted);
            count = ok.ite(&at(k + 1), &count).simplify();
            first.get_or_insert(ok.clone());
            bytes.push((ok.clone(), byte));
            reading = ok;
        }
        let got = first.unwrap_or_else(|| Bool::from_bool(ctx, false));
        let Some((arg, (v, mut a, t, size, deps))) = dest else { return Ok(got) };
        if width.is_none_or(|w| w >= size) {
            let g = st.guard.clone();
            self.error(Bool::and(ctx, &[&g, &got, &count._eq(&at(size))]), deps.clone(), arg.span);
        }
        for (k, (ok, byte)) in bytes.into_iter().enumerate() {
            a = ok.ite(&a.store(&at(k as u64), &byte), &a);
        }
        a = got.ite(&a.store(&count, &BV::from_u64(ctx, 0, 8)), &a);
        self.use_var(v, Usage::Scanned);
        st.vars.insert(v, Val { term: Term::Array(a, t, Len::Fixed(size)), deps });
        Ok(got)
    }

    /// A `printf` statement as a site: the original, another print (a reference's, renamed),
    /// or none; each alternative's tokens are printed under its selector, and whether they are
    /// compared is decided by where the statement is (a prompt's place stays a prompt's).
    pub(super) fn print_site(
        &mut self,
        e: &'p Expr,
        args: &'p [Expr],
        stmt: Option<&'p Stmt>,
        st: &mut State<'ctx>,
    ) -> R<()> {
        self.note_site(e, SiteKind::PrintCall, stmt);
        let g = st.guard.clone();
        let Some((sel, alts)) = self.holes.and_then(|h| h.sites.get(&e.id)) else {
            self.printf(e, args, st, &g, e)?;
            return Ok(());
        };
        // Arguments with side effects (`printf("%d", i++)`): deleting or replacing the
        // statement removes them, so each alternative runs on its own copy of the state.
        let mut effects = Effects::new(args.iter().any(has_effects), st);
        for (k, alt) in alts.iter().enumerate() {
            let chosen = if alts.len() == 1 {
                Bool::from_bool(self.ctx, true)
            } else {
                sel._eq(&BV::from_u64(self.ctx, k as u64, SEL_BITS))
            };
            let gk = Bool::and(self.ctx, &[&g, &chosen]);
            let mut scratch = effects.start();
            let at: &mut State<'ctx> = scratch.as_mut().unwrap_or(st);
            match alt {
                Alt::Original => {
                    self.printf(e, args, at, &gk, e)?;
                }
                Alt::Expr(call) => {
                    let ExprKind::Call(Callee::Builtin(Builtin::Printf), cargs) = &call.kind else { continue };
                    let (sites, usage) = (self.region.sites.len(), self.region.usage.len());
                    // A reference's print has no side effects: only what it prints matters.
                    let mut printed = at.clone();
                    let r = self.printf(call, cargs, &mut printed, &gk, e);
                    self.region.sites.truncate(sites);
                    self.region.usage.truncate(usage);
                    r?;
                    at.at_ws = printed.at_ws;
                }
                Alt::Keep | Alt::Bool(_) => {}
            }
            effects.done(&chosen, scratch);
        }
        effects.finish(st);
        Ok(())
    }

    /// `printf(args)` under guard `g`, compared unless `at` (the statement's site) is a prompt.
    pub(super) fn printf(
        &mut self,
        e: &'p Expr,
        args: &'p [Expr],
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
        at: &Expr,
    ) -> R<Val<'ctx>> {
        let Some((fmt, values)) = cfmt::printf_format(args) else {
            return unsupported("a printf format that is not a literal", e.span);
        };
        let pieces = cfmt::parse(fmt, false)
            .map_err(|_| Unsupported { what: "a malformed printf format".into(), span: e.span })?;
        let mut rest = values.iter();
        // One printer, or two when a `%s` prints `cond ? "text" : "other"`: each prints under
        // its side of the condition.
        let mut outs = vec![(Printer::new(self.ctx, self.setup.compare, st.at_ws.clone()), g.clone())];
        for p in pieces {
            match p {
                Piece::Literal(bytes) => outs.iter_mut().for_each(|(o, _)| o.text(&bytes)),
                Piece::Directive(d) => {
                    if d.width == cfmt::Count::Star || d.precision == cfmt::Count::Star {
                        return unsupported("a `*` width or precision", e.span);
                    }
                    let Some(arg) = rest.next() else { return unsupported("printf with too few arguments", e.span) };
                    if d.conv == 's' && d.width == cfmt::Count::None && d.precision == cfmt::Count::None {
                        match &arg.strip_implicit().kind {
                            ExprKind::Str(text) => {
                                outs.iter_mut().for_each(|(o, _)| o.text(text));
                                continue;
                            }
                            ExprKind::Cond(c, a, b) if outs.len() == 1 => {
                                if let (ExprKind::Str(a), ExprKind::Str(b)) =
                                    (&a.strip_implicit().kind, &b.strip_implicit().kind)
                                {
                                    let (x, _) = self.cond_site(c, st)?;
                                    let (first, _) = outs.pop().expect("one printer");
                                    let mut second = first.clone();
                                    let mut first = first;
                                    first.text(a);
                                    second.text(b);
                                    outs = vec![
                                        (first, Bool::and(self.ctx, &[g, &x])),
                                        (second, Bool::and(self.ctx, &[g, &x.not()])),
                                    ];
                                    continue;
                                }
                            }
                            ExprKind::Var(_) if outs.len() == 1 && self.char_array(arg, st).is_some() => {
                                // What was printed before, then the string byte by byte.
                                let (before, guard) = outs.pop().expect("one printer");
                                self.emit(before, at, st, &guard);
                                self.print_string(arg, at, st, &guard)?;
                                outs = vec![(Printer::new(self.ctx, self.setup.compare, st.at_ws.clone()), guard)];
                                continue;
                            }
                            _ => {}
                        }
                    }
                    outs.iter_mut().for_each(|(o, _)| o.value_starts(&d));
                    let v = self.site_value(arg, SiteKind::Print, None, st)?;
                    if let ExprKind::Var(x) = arg.strip_implicit().kind {
                        self.use_var(x, Usage::Printed);
                    }
                    let printed = match &v.term {
                        Term::Int(x, t) => Some(output::Printed::Int(x.clone(), *t)),
                        Term::Float(x, k) => Some(output::Printed::float(&mut self.floats, x, *k)),
                        _ => None,
                    };
                    let Some(token) = printed.and_then(|p| output::value_token(self.setup.compare, &d, p).ok()) else {
                        let what = format!(
                            "printing `{}` with `%{}`",
                            crate::ir::print::expr_to_c(self.setup.program, arg),
                            d.conv
                        );
                        return unsupported(what, arg.span);
                    };
                    outs.iter_mut().for_each(|(o, _)| o.value(token.clone(), v.deps.clone()));
                }
            }
        }
        for (out, guard) in outs {
            self.emit(out, at, st, &guard);
        }
        Ok(self.int_val(BV::new_const(self.ctx, format!("printf.ret!{}", e.span.start), 32), IntType::INT, Deps::new()))
    }

    /// The local `char` array `arg` names, when its string can be printed: in `exact` and
    /// `whitespace`, where the output is a token per byte (in `values` a string's bytes make
    /// words, which the model does not split).
    fn char_array(&self, arg: &Expr, st: &State<'ctx>) -> Option<VarId> {
        let ExprKind::Var(v) = arg.strip_implicit().kind else { return None };
        let Some(Val { term: Term::Array(_, t, Len::Fixed(_)), .. }) = st.vars.get(&v) else { return None };
        (c_int::width(*t) == 8 && self.setup.compare != Compare::Values).then_some(v)
    }

    /// The string in the array `arg` ([`Self::char_array`]) printed under `g`: byte `k` when
    /// bytes `0..=k` are all non-zero. An array with no `'\0'` is a runtime error (the print
    /// would run past its end).
    fn print_string(&mut self, arg: &'p Expr, at: &Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<()> {
        let v = self.char_array(arg, st).expect("a char array");
        let Some(Val { term: Term::Array(a, _, Len::Fixed(n)), deps }) = st.vars.get(&v).cloned() else {
            unreachable!()
        };
        self.use_var(v, Usage::Printed);
        let bytes = (0..n).map(|k| a.select(&BV::from_u64(self.ctx, k, 32)).as_bv().expect("a byte"));
        let (tokens, past_end) =
            output::string_bytes(self.ctx, self.setup.compare, bytes, g).expect("`char_array` is not in `values`");
        let d = output::char_directive();
        for (printing, token) in tokens {
            let mut out = Printer::new(self.ctx, self.setup.compare, st.at_ws.clone());
            out.value_starts(&d);
            out.value(token, deps.clone());
            self.emit(out, at, st, &printing);
        }
        self.error(past_end, deps, arg.span);
        Ok(())
    }

    /// `puts(s)`: prints the string (a literal, or a `char` array's) and a newline.
    pub(super) fn puts(&mut self, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let text: &[u8] = match args.first().map(|a| (a, &a.strip_implicit().kind)) {
            Some((_, ExprKind::Str(text))) => text,
            Some((a, _)) if self.char_array(a, st).is_some() => {
                self.print_string(a, e, st, g)?;
                b""
            }
            _ => return unsupported("`puts` of something other than a string or a `char` array", e.span),
        };
        let mut out = Printer::new(self.ctx, self.setup.compare, st.at_ws.clone());
        out.text(text);
        out.text(b"\n");
        self.emit(out, e, st, g);
        Ok(self.int_val(BV::new_const(self.ctx, format!("puts.ret!{}", e.span.start), 32), IntType::INT, Deps::new()))
    }

    /// `putchar(c)`: prints `(unsigned char) c` as `printf("%c", c)` does (a constant
    /// character as the literal text it is), returns it as an `int`.
    pub(super) fn putchar(
        &mut self,
        e: &'p Expr,
        args: &'p [Expr],
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<Val<'ctx>> {
        let Some(arg) = args.first() else { return unsupported("`putchar` without an argument", e.span) };
        let v = self.site_value(arg, SiteKind::Print, None, st)?;
        if let ExprKind::Var(x) = arg.strip_implicit().kind {
            self.use_var(x, Usage::Printed);
        }
        let Term::Int(x, _) = &v.term else { return unsupported("`putchar` of a floating point value", arg.span) };
        let byte = x.extract(7, 0).simplify();
        let mut out = Printer::new(self.ctx, self.setup.compare, st.at_ws.clone());
        match byte.as_u64() {
            Some(b) => out.text(&[b as u8]),
            None => {
                let d = output::char_directive();
                out.value_starts(&d);
                let token =
                    output::value_token(self.setup.compare, &d, output::Printed::Int(byte.clone(), IntType::UCHAR))
                        .expect("%c prints an integer");
                out.value(token, v.deps.clone());
            }
        }
        self.emit(out, e, st, g);
        Ok(self.int_val(byte.zero_ext(24), IntType::INT, v.deps))
    }

    /// Appends what `out` printed to the output under guard `g`, compared unless `at` is a
    /// prompt.
    pub(super) fn emit(&mut self, out: Printer<'ctx, Deps>, at: &Expr, st: &mut State<'ctx>, g: &Bool<'ctx>) {
        let compared = !self.setup.prompts.contains(&at.id);
        let ctx = self.ctx;
        let out = out.finish();
        if compared {
            for c in out.glue {
                let c = Bool::and(ctx, &[g, &c]).simplify();
                if c.as_bool() != Some(false) {
                    self.region.glue.push(c);
                }
            }
            st.at_ws = g.ite(&out.ws, &st.at_ws).simplify();
            for (token, deps) in out.tokens {
                let mut d = st.guard_deps.clone();
                d.extend(deps);
                self.region.printed.push(Printed { guard: g.clone(), deps: d, token });
            }
        } else {
            // Values mode cuts the output where the last input is read, after every prompt:
            // the first compared token starts the compared text, glued to nothing.
            st.at_ws = g.ite(&Bool::from_bool(ctx, true), &st.at_ws).simplify();
        }
    }
}
