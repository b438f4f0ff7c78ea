//! The `string.h` functions over local `char` arrays (and string literals): `strlen`,
//! `strspn`, `strcspn`, `strcmp`, `strcpy` and `strcat`, each built from the shared terms of
//! [`c_lib`] that the bounded encoder also uses. A string that runs past its array's end
//! (no `'\0'` before it) is a runtime error, as it is when the interpreter runs it.

use super::*;

impl<'s, 'p, 'w, 'a, 'ctx> Exec<'s, 'p, 'w, 'a, 'ctx> {
    /// `strlen(a)`, `strspn(a, "...")` or `strcspn(a, "...")` (`b`) of the local array `a`:
    /// the index of its first `'\0'` (for the two others, of the first character that ends
    /// the span, [`c_lib::span_length`]); no `'\0'` within its length is a runtime error (the
    /// read runs past the end).
    pub(super) fn string_span(
        &mut self,
        b: Builtin,
        e: &'p Expr,
        args: &'p [Expr],
        st: &mut State<'ctx>,
        g: &Bool<'ctx>,
    ) -> R<Val<'ctx>> {
        let ctx = self.ctx;
        let name = b.c_name();
        let Some(arg) = args.first() else { return unsupported(format!("`{name}` without an argument"), e.span) };
        // `strlen` is `strcspn` with no character in the set.
        let set = match b {
            Builtin::Strlen => &[][..],
            _ => match args.get(1).and_then(|s| c_lib::span_set(b, s)) {
                Some(set) => set,
                None => return unsupported(format!("`{name}` of characters that are not a string literal"), e.span),
            },
        };
        let Type::Int(rt) = e.ty else { return unsupported(format!("`{name}` of this type"), e.span) };
        let (chars, deps) = self.string_chars(arg, name, st)?;
        let len = c_lib::span_length(ctx, b, &chars, set, c_int::width(rt));
        self.error(Bool::and(ctx, &[g, &no_nul(ctx, &chars)]), deps.clone(), e.span);
        Ok(self.int_val(len.simplify(), rt, deps))
    }

    /// A string argument's characters, all of them (a literal's with its `'\0'`, every element
    /// of a local `char` array), and what they depend on.
    fn string_chars(&mut self, arg: &'p Expr, name: &str, st: &State<'ctx>) -> R<(Vec<BV<'ctx>>, Deps)> {
        if let ExprKind::Str(bytes) = &arg.strip_implicit().kind {
            let chars = bytes.iter().chain([&0u8]).map(|&b| BV::from_u64(self.ctx, u64::from(b), 8)).collect();
            return Ok((chars, Deps::new()));
        }
        let (v, a, t, size, deps) = self.array_of(arg, st)?;
        if c_int::width(t) != 8 {
            return unsupported(format!("`{name}` of an array of wider elements than `char`"), arg.span);
        }
        self.use_var(v, Usage::Read);
        Ok(((0..size).map(|k| a.select(&BV::from_u64(self.ctx, k, 32)).as_bv().expect("a byte")).collect(), deps))
    }

    /// `strcmp(a, b)`: reading past an array's end (equal with no `'\0'` up to the shorter
    /// one's end) is a runtime error under `g`.
    pub(super) fn strcmp(&mut self, e: &'p Expr, args: &'p [Expr], st: &State<'ctx>, g: &Bool<'ctx>) -> R<Val<'ctx>> {
        let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
            return unsupported("`strcmp` without two arguments", e.span);
        };
        let Type::Int(rt) = e.ty else { return unsupported("`strcmp` of this type", e.span) };
        // The interpreter reads the first argument, then the second.
        let (xs, dx) = self.string_chars(a, "strcmp", st)?;
        let (ys, dy) = self.string_chars(b, "strcmp", st)?;
        let deps = Self::union(&dx, &dy);
        let (r, stops) = c_lib::string_compare(self.ctx, &xs, &ys, c_int::width(rt));
        let past_end: Vec<Bool<'ctx>> = stops.iter().map(Bool::not).collect();
        let past_end = Bool::and(self.ctx, &past_end.iter().collect::<Vec<_>>());
        self.error(Bool::and(self.ctx, &[g, &past_end]), deps.clone(), e.span);
        Ok(self.int_val(r.simplify(), rt, deps))
    }

    /// `strcpy(d, s)` or `strcat(d, s)` as a statement (its value, the pointer `d`, is not
    /// modelled): `s`'s characters through its `'\0'` written into the local `char` array `d`
    /// from its start (from its `'\0'` for `strcat`). A source with no `'\0'`, and a copy
    /// that does not fit in `d`, are runtime errors under the state's guard.
    pub(super) fn copy_string(&mut self, b: Builtin, e: &'p Expr, args: &'p [Expr], st: &mut State<'ctx>) -> R<()> {
        let ctx = self.ctx;
        let name = b.c_name();
        let (Some(dst), Some(src)) = (args.first(), args.get(1)) else {
            return unsupported(format!("`{name}` without two arguments"), e.span);
        };
        let g = st.guard.clone();
        let (v, mut arr, t, size, dst_deps) = self.array_of(dst, st)?;
        if c_int::width(t) != 8 {
            return unsupported(format!("`{name}` into an array of wider elements than `char`"), dst.span);
        }
        let (chars, src_deps) = self.string_chars(src, name, st)?;
        let deps = Self::union(&dst_deps, &src_deps);
        self.error(Bool::and(ctx, &[&g, &no_nul(ctx, &chars)]), src_deps, src.span);
        let from = if b == Builtin::Strcat {
            let (old, _) = self.string_chars(dst, name, st)?;
            self.error(Bool::and(ctx, &[&g, &no_nul(ctx, &old)]), dst_deps.clone(), dst.span);
            c_lib::span_length(ctx, Builtin::Strlen, &old, &[], 32)
        } else {
            BV::from_u64(ctx, 0, 32)
        };
        // Lengths are at most the arrays' sizes: no 32-bit sum wraps.
        let last = from.bvadd(&c_lib::span_length(ctx, Builtin::Strlen, &chars, &[], 32));
        self.error(Bool::and(ctx, &[&g, &last.bvuge(&BV::from_u64(ctx, size, 32))]), deps.clone(), e.span);
        for (i, (ch, written)) in chars.iter().zip(c_lib::copied(ctx, &chars)).enumerate() {
            let at = from.bvadd(&BV::from_u64(ctx, i as u64, 32)).simplify();
            let kept = arr.select(&at).as_bv().expect("a byte");
            arr = arr.store(&at, &written.ite(ch, &kept));
        }
        self.use_var(v, Usage::Written);
        st.vars.insert(v, Val { term: Term::Array(arr, t, Len::Fixed(size)), deps });
        Ok(())
    }
}

/// No character of `chars` is a `'\0'`.
fn no_nul<'ctx>(ctx: &'ctx Context, chars: &[BV<'ctx>]) -> Bool<'ctx> {
    let nul = BV::from_u64(ctx, 0, 8);
    let none: Vec<Bool<'ctx>> = chars.iter().map(|c| c._eq(&nul).not()).collect();
    Bool::and(ctx, &none.iter().collect::<Vec<_>>())
}
