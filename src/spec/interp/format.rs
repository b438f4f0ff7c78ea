//! The C library subset: `printf` and `scanf` as glibc does them, character input and output,
//! string, memory and math functions, `atoi`/`atol`, `malloc`/`calloc`/`realloc`/`free`,
//! `exit`, and the verification builtins.

use super::machine::{Machine, R, Stop, Val, convert, err};
use super::memory::{self, BlockKind};
use super::{ChunkKind, RuntimeErrorKind as K};
use crate::ir::*;

const MAX_FIELD: usize = 1 << 21;

impl<'p> Machine<'p> {
    pub fn builtin(&mut self, b: Builtin, e: &'p Expr, args: &'p [Expr]) -> R<Val> {
        let arg = |i: usize| -> R<&'p Expr> {
            match args.get(i) {
                Some(a) => Ok(a),
                None => err(
                    K::BadFormat,
                    e.span,
                    format!("missing argument {} in `{}`", i + 1, super::text::expr(self.prog, e)),
                ),
            }
        };
        match b {
            Builtin::Printf => {
                let vals = self.eval_args(args)?;
                self.printf(e, args, &vals)
            }
            Builtin::Scanf => {
                let vals = self.eval_args(args)?;
                self.scanf(e, args, &vals)
            }
            Builtin::Getchar => {
                if self.pos < self.input.len() {
                    let c = self.input[self.pos];
                    self.pos += 1;
                    self.out_before_last_read = self.out.len();
                    Ok(Val::I(c as i64))
                } else {
                    self.input_exhausted = true;
                    Ok(Val::I(-1))
                }
            }
            Builtin::Putchar => {
                let c = self.eval(arg(0)?)?.i() as u8;
                self.emit(&[c], ChunkKind::Value, e.span, 0)?;
                Ok(Val::I(c as i64))
            }
            Builtin::Puts => {
                let a = arg(0)?;
                let p = self.eval(a)?.i();
                let mut s = self.read_cstr(p, usize::MAX, a)?;
                s.push(b'\n');
                let lit = matches!(a.strip_implicit().kind, ExprKind::Str(_));
                let n = s.len();
                self.emit(&s, if lit { ChunkKind::Literal } else { ChunkKind::Value }, e.span, 0)?;
                Ok(Val::I(n as i64))
            }
            Builtin::Gets | Builtin::Fgets => {
                let a = arg(0)?;
                let p = self.eval(a)?.i();
                let limit = if b == Builtin::Fgets {
                    let n = self.eval(arg(1)?)?.i();
                    if args.len() > 2 {
                        self.eval(&args[2])?;
                    }
                    if n <= 0 {
                        return Ok(Val::I(memory::NULL));
                    }
                    (n - 1) as usize
                } else {
                    usize::MAX
                };
                if self.pos >= self.input.len() {
                    self.input_exhausted = true;
                    return Ok(Val::I(memory::NULL));
                }
                let mut q = p;
                let mut n = 0usize;
                while n < limit && self.pos < self.input.len() {
                    let c = self.input[self.pos];
                    self.pos += 1;
                    if c == b'\n' && b == Builtin::Gets {
                        break;
                    }
                    let what = if b == Builtin::Gets { "`gets`" } else { "`fgets`" };
                    self.mem.store_byte(q, c).map_err(|f| self.write_fault(f, a, what))?;
                    q = memory::ptr_add(q, 1);
                    n += 1;
                    if c == b'\n' {
                        break;
                    }
                }
                let what = if b == Builtin::Gets { "`gets`" } else { "`fgets`" };
                self.mem.store_byte(q, 0).map_err(|f| self.write_fault(f, a, what))?;
                self.out_before_last_read = self.out.len();
                Ok(Val::I(p))
            }
            Builtin::Strlen => {
                let a = arg(0)?;
                let p = self.eval(a)?.i();
                Ok(Val::I(self.read_cstr(p, usize::MAX, &deref_of(a))?.len() as i64))
            }
            Builtin::Strcmp => {
                let (a, c) = (arg(0)?, arg(1)?);
                let p = self.eval(a)?.i();
                let q = self.eval(c)?.i();
                let (da, dc) = (deref_of(a), deref_of(c));
                let mut i = 0;
                loop {
                    let x = self.mem.load_byte(memory::ptr_add(p, i)).map_err(|f| self.fault(f, &da, false))?;
                    let y = self.mem.load_byte(memory::ptr_add(q, i)).map_err(|f| self.fault(f, &dc, false))?;
                    if x != y || x == 0 {
                        return Ok(Val::I(x as i64 - y as i64));
                    }
                    i += 1;
                }
            }
            Builtin::Strcpy | Builtin::Strcat => {
                let (a, c) = (arg(0)?, arg(1)?);
                let d = self.eval(a)?.i();
                let s = self.eval(c)?.i();
                let src = self.read_cstr(s, usize::MAX, &deref_of(c))?;
                let da = deref_of(a);
                let start = if b == Builtin::Strcat { self.read_cstr(d, usize::MAX, &da)?.len() } else { 0 };
                for (i, &ch) in src.iter().chain(std::iter::once(&0u8)).enumerate() {
                    let what = if b == Builtin::Strcat { "`strcat`" } else { "`strcpy`" };
                    self.mem
                        .store_byte(memory::ptr_add(d, (start + i) as i64), ch)
                        .map_err(|f| self.write_fault(f, a, what))?;
                }
                Ok(Val::I(d))
            }
            Builtin::Strncpy
            | Builtin::Strncat
            | Builtin::Strncmp
            | Builtin::Strchr
            | Builtin::Strrchr
            | Builtin::Strstr
            | Builtin::Strspn
            | Builtin::Strcspn
            | Builtin::Strdup
            | Builtin::Memset
            | Builtin::Memcpy
            | Builtin::Memmove
            | Builtin::Atoi
            | Builtin::Atol
            | Builtin::Realloc => {
                // Checked before anything runs, so a call missing an argument does nothing.
                let n = match b {
                    Builtin::Strdup | Builtin::Atoi | Builtin::Atol => 1,
                    Builtin::Strchr
                    | Builtin::Strrchr
                    | Builtin::Strstr
                    | Builtin::Strspn
                    | Builtin::Strcspn
                    | Builtin::Realloc => 2,
                    _ => 3,
                };
                arg(n - 1)?;
                self.library(b, e, args)
            }
            Builtin::Abs => {
                let v = self.eval(arg(0)?)?.i();
                Ok(Val::I(IntType::INT.wrap(v.wrapping_abs())))
            }
            Builtin::Labs => Ok(Val::I(self.eval(arg(0)?)?.i().wrapping_abs())),
            Builtin::Math(f, k) => {
                let mut xs = [0.0f64; 2];
                for (i, a) in args.iter().take(f.arity()).enumerate() {
                    let x = self.eval(a)?;
                    xs[i] = convert(x, &a.ty, &Type::Float(k)).f();
                }
                let r = match k {
                    FloatKind::Double => f.eval_double(xs[0], xs[1]),
                    FloatKind::Float => f.eval_float(xs[0] as f32, xs[1] as f32) as f64,
                };
                Ok(convert(Val::F(r), &Type::Float(k), &e.ty))
            }
            Builtin::Isdigit
            | Builtin::Isalpha
            | Builtin::Isspace
            | Builtin::Isupper
            | Builtin::Islower
            | Builtin::Isalnum
            | Builtin::Ispunct
            | Builtin::Isxdigit
            | Builtin::Isprint
            | Builtin::Isgraph
            | Builtin::Iscntrl
            | Builtin::Isblank => {
                let c = self.eval(arg(0)?)?.i();
                let (ranges, bit) = b.char_class().expect("a character class");
                let member = ranges.iter().any(|&(lo, hi)| (lo as i64..=hi as i64).contains(&c));
                Ok(Val::I(if member { bit } else { 0 }))
            }
            Builtin::Toupper | Builtin::Tolower => {
                let c = self.eval(arg(0)?)?.i();
                Ok(Val::I(b.map_case(c).expect("a case map")))
            }
            Builtin::Malloc | Builtin::Calloc => {
                let n = if b == Builtin::Malloc {
                    self.eval(arg(0)?)?.i() as u64
                } else {
                    let a = self.eval(arg(0)?)?.i() as u64;
                    let c = self.eval(arg(1)?)?.i() as u64;
                    match a.checked_mul(c) {
                        Some(n) => n,
                        None => return Ok(Val::I(memory::NULL)),
                    }
                };
                if n > 1 << 31 {
                    return Ok(Val::I(memory::NULL));
                }
                let what = if b == Builtin::Malloc { "memory from malloc" } else { "memory from calloc" };
                let id = self.alloc(n, BlockKind::Heap, what, b == Builtin::Calloc, e.span)?;
                Ok(Val::I(memory::ptr(id, 0)))
            }
            Builtin::Free => {
                let a = arg(0)?;
                let p = self.eval(a)?.i();
                if p == memory::NULL {
                    return Ok(Val::I(0));
                }
                let id = memory::block_of(p);
                let text = super::text::expr(self.prog, a);
                match self.mem.blocks.get(id as usize) {
                    Some(blk) if blk.kind == BlockKind::Heap && memory::offset_of(p) == 0 => {
                        if !blk.alive {
                            return err(K::InvalidFree, e.span, format!("`{text}` is freed twice"));
                        }
                        self.mem.release(id);
                        Ok(Val::I(0))
                    }
                    Some(blk) if blk.kind == BlockKind::Heap => err(
                        K::InvalidFree,
                        e.span,
                        format!("`free({text})`: the pointer does not point to the start of the memory from malloc"),
                    ),
                    _ => err(K::InvalidFree, e.span, format!("`free({text})`: the pointer did not come from malloc")),
                }
            }
            Builtin::Exit => {
                let code = self.eval(arg(0)?)?.i() as i32;
                Err(Box::new(Stop::Exit(code)))
            }
            Builtin::Assert => {
                let a = arg(0)?;
                if self.eval(a)?.truthy_pub() {
                    Ok(Val::I(0))
                } else {
                    err(K::AssertionFailed, e.span, format!("assertion `{}` failed", super::text::expr(self.prog, a)))
                }
            }
            Builtin::Assume => {
                let a = arg(0)?;
                if self.eval(a)?.truthy_pub() { Ok(Val::I(0)) } else { Err(Box::new(Stop::AssumeFalse)) }
            }
            Builtin::ReachError => err(K::ReachError, e.span, "`reach_error()` was reached"),
            Builtin::Nondet => self.nondet(e),
        }
    }

    /// The `string.h` functions beyond `strlen`/`strcmp`/`strcpy`/`strcat`, `atoi`/`atol`
    /// and `realloc`, called with at least their arguments. The arguments are evaluated right
    /// to left, as gcc does for any call.
    fn library(&mut self, b: Builtin, e: &'p Expr, args: &'p [Expr]) -> R<Val> {
        let vals = self.eval_args(args)?;
        let v = |i: usize| vals[i].i();
        let name = format!("`{}`", b.c_name());
        // A length argument (`size_t`) as a host count; a huge one fails the range checks.
        let count = |i: usize| usize::try_from(vals[i].i() as u64).unwrap_or(usize::MAX);
        match b {
            Builtin::Strncpy => {
                let (d, s, n) = (v(0), v(1), count(2));
                let mut bytes = self.read_cstr(s, n, &deref_of(&args[1]))?;
                // C's rule: no terminator when `s` has `n` characters or more; else pad to `n`.
                if n > 0 {
                    self.mem.check_range(d, n as u64, true).map_err(|f| self.write_fault(f, &args[0], &name))?;
                }
                bytes.resize(n, 0);
                self.write_bytes(d, &bytes, &args[0], &name)?;
                Ok(Val::I(d))
            }
            Builtin::Strncat => {
                let (d, s, n) = (v(0), v(1), count(2));
                let src = self.read_cstr(s, n, &deref_of(&args[1]))?;
                let start = self.read_cstr(d, usize::MAX, &deref_of(&args[0]))?.len();
                let mut bytes = src;
                bytes.push(0);
                self.write_bytes(memory::ptr_add(d, start as i64), &bytes, &args[0], &name)?;
                Ok(Val::I(d))
            }
            Builtin::Strncmp => {
                let (p, q, n) = (v(0), v(1), count(2));
                let (da, dc) = (deref_of(&args[0]), deref_of(&args[1]));
                for i in 0..n {
                    let i = i as i64;
                    let x = self.mem.load_byte(memory::ptr_add(p, i)).map_err(|f| self.fault(f, &da, false))?;
                    let y = self.mem.load_byte(memory::ptr_add(q, i)).map_err(|f| self.fault(f, &dc, false))?;
                    if x != y || x == 0 {
                        return Ok(Val::I(x as i64 - y as i64));
                    }
                }
                Ok(Val::I(0))
            }
            Builtin::Strchr | Builtin::Strrchr => {
                let (p, c) = (v(0), v(1) as u8);
                let da = deref_of(&args[0]);
                let mut found = None;
                let mut i = 0i64;
                loop {
                    let x = self.mem.load_byte(memory::ptr_add(p, i)).map_err(|f| self.fault(f, &da, false))?;
                    if x == c {
                        found = Some(i);
                        if b == Builtin::Strchr {
                            break;
                        }
                    }
                    // The terminator is part of the string: `strchr(s, '\0')` finds it.
                    if x == 0 {
                        break;
                    }
                    i += 1;
                }
                Ok(Val::I(found.map_or(memory::NULL, |i| memory::ptr_add(p, i))))
            }
            Builtin::Strstr => {
                let (h, n) = (v(0), v(1));
                let hay = self.read_cstr(h, usize::MAX, &deref_of(&args[0]))?;
                let needle = self.read_cstr(n, usize::MAX, &deref_of(&args[1]))?;
                let at = if needle.is_empty() { Some(0) } else { hay.windows(needle.len()).position(|w| w == needle) };
                Ok(Val::I(at.map_or(memory::NULL, |i| memory::ptr_add(h, i as i64))))
            }
            Builtin::Strspn | Builtin::Strcspn => {
                let s = self.read_cstr(v(0), usize::MAX, &deref_of(&args[0]))?;
                let set = self.read_cstr(v(1), usize::MAX, &deref_of(&args[1]))?;
                let inside = b == Builtin::Strspn;
                Ok(Val::I(s.iter().take_while(|c| set.contains(c) == inside).count() as i64))
            }
            Builtin::Strdup => {
                let mut bytes = self.read_cstr(v(0), usize::MAX, &deref_of(&args[0]))?;
                bytes.push(0);
                let id = self.alloc(bytes.len() as u64, BlockKind::Heap, "memory from strdup", false, e.span)?;
                let p = memory::ptr(id, 0);
                self.write_bytes(p, &bytes, &args[0], &name)?;
                Ok(Val::I(p))
            }
            Builtin::Memset => {
                let (d, c, n) = (v(0), v(1) as u8, count(2));
                if n > 0 {
                    self.mem.fill(d, n as u64, c).map_err(|f| self.write_fault(f, &args[0], &name))?;
                }
                Ok(Val::I(d))
            }
            Builtin::Memcpy | Builtin::Memmove => {
                // Bytes are copied with their initialised flags: copying a buffer that is
                // only partly filled is fine, reading the unfilled part of the copy is not.
                // Overlapping ranges are copied as `memmove` does.
                let (d, s, n) = (v(0), v(1), count(2));
                if n > 0 {
                    self.mem.check_range(s, n as u64, false).map_err(|f| self.read_fault(f, &args[1], &name))?;
                    self.mem.check_range(d, n as u64, true).map_err(|f| self.write_fault(f, &args[0], &name))?;
                    self.mem.copy(d, s, n as u64).map_err(|f| self.write_fault(f, &args[0], &name))?;
                }
                Ok(Val::I(d))
            }
            Builtin::Atoi | Builtin::Atol => {
                let x = self.strtol(v(0), &args[0])?;
                Ok(Val::I(if b == Builtin::Atoi { x as i32 as i64 } else { x }))
            }
            _ => self.realloc(e, &args[0], v(0), vals[1].i() as u64),
        }
    }

    /// glibc's `strtol(s, NULL, 10)`: leading white space, an optional sign, then digits up
    /// to the first non-digit; a value beyond `long` saturates to `LONG_MAX`/`LONG_MIN`.
    /// (`atoi` is `(int) strtol(...)`, so an `int` overflow keeps the low 32 bits of that.)
    fn strtol(&self, p: i64, a: &Expr) -> R<i64> {
        let d = deref_of(a);
        let byte = |i: i64| self.mem.load_byte(memory::ptr_add(p, i)).map_err(|f| self.fault(f, &d, false));
        let mut i = 0i64;
        while matches!(byte(i)?, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            i += 1;
        }
        let neg = match byte(i)? {
            b'-' => {
                i += 1;
                true
            }
            b'+' => {
                i += 1;
                false
            }
            _ => false,
        };
        // The magnitude, capped just above what a `long` holds.
        let cap = 1u128 << 64;
        let mut m = 0u128;
        loop {
            let c = byte(i)?;
            if !c.is_ascii_digit() {
                break;
            }
            m = (m * 10 + (c - b'0') as u128).min(cap);
            i += 1;
        }
        Ok(if neg { if m >= 1 << 63 { i64::MIN } else { -(m as i64) } } else { m.min(i64::MAX as u128) as i64 })
    }

    /// `realloc(p, n)` as glibc does it: `NULL` is `malloc(n)`; `n == 0` frees `p` and
    /// returns `NULL`; otherwise a new block holds the first `min(old, n)` bytes (with their
    /// initialised flags) and the old one is freed, so the old pointer is dangling. A size
    /// mend cannot allocate returns `NULL` and leaves `p` as it was.
    fn realloc(&mut self, e: &Expr, a: &Expr, p: i64, n: u64) -> R<Val> {
        const WHAT: &str = "memory from realloc";
        if p == memory::NULL {
            if n > 1 << 31 {
                return Ok(Val::I(memory::NULL));
            }
            let id = self.alloc(n, BlockKind::Heap, WHAT, false, e.span)?;
            return Ok(Val::I(memory::ptr(id, 0)));
        }
        let id = memory::block_of(p);
        let call = super::text::expr(self.prog, e);
        let text = super::text::expr(self.prog, a);
        match self.mem.blocks.get(id as usize) {
            Some(blk) if blk.kind == BlockKind::Heap && memory::offset_of(p) == 0 => {
                if !blk.alive {
                    return err(K::InvalidFree, e.span, format!("`{call}`: `{text}` was already freed"));
                }
            }
            Some(blk) if blk.kind == BlockKind::Heap => {
                return err(
                    K::InvalidFree,
                    e.span,
                    format!("`{call}`: the pointer does not point to the start of the memory from malloc"),
                );
            }
            _ => return err(K::InvalidFree, e.span, format!("`{call}`: the pointer did not come from malloc")),
        }
        if n == 0 {
            self.mem.release(id);
            return Ok(Val::I(memory::NULL));
        }
        if n > 1 << 31 {
            return Ok(Val::I(memory::NULL));
        }
        let new = self.alloc(n, BlockKind::Heap, WHAT, false, e.span)?;
        let keep = self.mem.block_size(id).min(n);
        let q = memory::ptr(new, 0);
        self.mem.copy(q, p, keep).map_err(|f| self.fault(f, &deref_of(a), false))?;
        self.mem.release(id);
        Ok(Val::I(q))
    }

    /// Stores `bytes` at `p`, the destination of `what` given as the argument `a`; the whole
    /// range is checked first, so a write past the end stores nothing.
    fn write_bytes(&mut self, p: i64, bytes: &[u8], a: &Expr, what: &str) -> R<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.mem.check_range(p, bytes.len() as u64, true).map_err(|f| self.write_fault(f, a, what))?;
        for (k, &c) in bytes.iter().enumerate() {
            self.mem.store_byte(memory::ptr_add(p, k as i64), c).map_err(|f| self.write_fault(f, a, what))?;
        }
        Ok(())
    }

    fn nondet(&mut self, e: &Expr) -> R<Val> {
        let conv = match &e.ty {
            Type::Float(FloatKind::Float) => Conv::Float(4),
            Type::Float(FloatKind::Double) => Conv::Float(8),
            Type::Int(t) if t.signed => Conv::Int { base: 10, signed: true },
            _ => Conv::Int { base: 10, signed: false },
        };
        match self.scan_value(conv, usize::MAX) {
            Scanned::Int(v) => Ok(convert(Val::I(v), &Type::Int(IntType::LONG), &e.ty)),
            Scanned::Float(f) => Ok(convert(Val::F(f), &Type::DOUBLE, &e.ty)),
            _ => err(K::InputExhausted, e.span, "`nondet` found no more values in the input"),
        }
    }

    // ----- printf -----

    fn printf(&mut self, e: &'p Expr, args: &'p [Expr], vals: &[Val]) -> R<Val> {
        let Some(fa) = args.first() else { return err(K::BadFormat, e.span, "printf needs a format string") };
        let fmt = self.read_cstr(vals[0].i(), usize::MAX, &deref_of(fa))?;
        let literal = matches!(fa.strip_implicit().kind, ExprKind::Str(_));
        let lit_kind = if literal { ChunkKind::Literal } else { ChunkKind::Value };
        let mut next = 1usize;
        let mut written = 0usize;
        // The directives printed so far: a chunk's place in the format (`OutputChunk::piece`).
        let mut directives = 0u32;
        let mut i = 0usize;
        let mut text = Vec::new();
        while i < fmt.len() {
            let c = fmt[i];
            if c != b'%' {
                text.push(c);
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            let mut spec = Spec::default();
            while i < fmt.len() {
                match fmt[i] {
                    b'-' => spec.left = true,
                    b'+' => spec.plus = true,
                    b' ' => spec.space = true,
                    b'#' => spec.alt = true,
                    b'0' => spec.zero = true,
                    b'\'' => {}
                    _ => break,
                }
                i += 1;
            }
            if i < fmt.len() && fmt[i] == b'*' {
                i += 1;
                let w = self.int_arg(e, args, vals, &mut next, "*")? as i32;
                if w < 0 {
                    spec.left = true;
                    spec.width = w.unsigned_abs() as usize;
                } else {
                    spec.width = w as usize;
                }
            } else {
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    spec.width = spec.width.saturating_mul(10).saturating_add((fmt[i] - b'0') as usize);
                    i += 1;
                }
            }
            if i < fmt.len() && fmt[i] == b'.' {
                i += 1;
                if i < fmt.len() && fmt[i] == b'*' {
                    i += 1;
                    let p = self.int_arg(e, args, vals, &mut next, ".*")? as i32;
                    spec.prec = if p < 0 { None } else { Some(p as usize) };
                } else {
                    let mut p = 0usize;
                    while i < fmt.len() && fmt[i].is_ascii_digit() {
                        p = p.saturating_mul(10).saturating_add((fmt[i] - b'0') as usize);
                        i += 1;
                    }
                    spec.prec = Some(p);
                }
            }
            // Absurd widths and precisions would only exhaust the output limit: cap them.
            spec.width = spec.width.min(MAX_FIELD);
            spec.prec = spec.prec.map(|p| p.min(MAX_FIELD));
            let mut len = 0u8; // 0 none, 1 hh, 2 h, 3 l/ll/j/z/t/L
            while i < fmt.len() {
                match fmt[i] {
                    b'h' => len = if len == 2 { 1 } else { 2 },
                    b'l' | b'j' | b'z' | b't' | b'L' | b'q' => len = 3,
                    _ => break,
                }
                i += 1;
            }
            if i >= fmt.len() {
                // A lone `%` at the end: glibc prints it as is.
                text.extend_from_slice(&fmt[start..]);
                break;
            }
            let conv = fmt[i];
            i += 1;
            if conv == b'%' {
                text.push(b'%');
                continue;
            }
            // Flush the literal text before the value.
            written += text.len();
            self.emit(&text, lit_kind, e.span, directives)?;
            text.clear();
            let piece: Vec<u8> = match conv {
                b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                    let (v, ty) = self.arg(e, args, vals, &mut next, conv)?;
                    if ty.is_float() {
                        return err(
                            K::BadFormat,
                            e.span,
                            format!(
                                "`%{}` in the format expects an integer, but the argument is a `{}`",
                                conv as char,
                                self.prog.type_name(ty)
                            ),
                        );
                    }
                    let v = v.i();
                    if conv == b'c' {
                        pad(&spec, vec![v as u8], false)
                    } else if conv == b'd' || conv == b'i' {
                        let v = match len {
                            0 => v as i32 as i64,
                            1 => v as i8 as i64,
                            2 => v as i16 as i64,
                            _ => v,
                        };
                        fmt_int(&spec, v < 0, v.unsigned_abs(), 10, false, true)
                    } else {
                        let u = match len {
                            0 => v as u32 as u64,
                            1 => v as u8 as u64,
                            2 => v as u16 as u64,
                            _ => v as u64,
                        };
                        let base = match conv {
                            b'o' => 8,
                            b'u' => 10,
                            _ => 16,
                        };
                        fmt_int(&spec, false, u, base, conv == b'X', false)
                    }
                }
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                    let (v, ty) = self.arg(e, args, vals, &mut next, conv)?;
                    if !ty.is_float() {
                        return err(
                            K::BadFormat,
                            e.span,
                            format!(
                                "`%{}` in the format expects a double, but the argument is a `{}`",
                                conv as char,
                                self.prog.type_name(ty)
                            ),
                        );
                    }
                    fmt_float(&spec, conv, v.f())
                }
                b's' => {
                    let (v, ty) = self.arg(e, args, vals, &mut next, conv)?;
                    if !ty.is_pointer() && !matches!(ty, Type::Array(..)) {
                        return err(
                            K::BadFormat,
                            e.span,
                            format!(
                                "`%s` in the format expects a string, but the argument is a `{}`",
                                self.prog.type_name(ty)
                            ),
                        );
                    }
                    let p = v.i();
                    let s = if p == memory::NULL {
                        if spec.prec.is_none_or(|p| p >= 6) { b"(null)".to_vec() } else { Vec::new() }
                    } else {
                        let a = &args[next - 1];
                        self.read_cstr(p, spec.prec.unwrap_or(usize::MAX), &deref_of(a))?
                    };
                    pad(&spec, s, false)
                }
                b'p' => {
                    let (v, _) = self.arg(e, args, vals, &mut next, conv)?;
                    let p = v.i();
                    if p == 0 {
                        pad(&spec, b"(nil)".to_vec(), false)
                    } else {
                        let mut s = Spec { alt: true, ..spec };
                        s.prec = None;
                        fmt_int(&s, false, p as u64, 16, false, false)
                    }
                }
                b'n' => {
                    let (v, _) = self.arg(e, args, vals, &mut next, conv)?;
                    let a = &args[next - 1];
                    let n = written as i64;
                    self.store_mem(v.i(), &Type::INT, Val::I(n), &deref_of(a))?;
                    Vec::new()
                }
                _ => {
                    return err(
                        K::BadFormat,
                        e.span,
                        format!("`%{}` is not a printf conversion mend knows", conv as char),
                    );
                }
            };
            written += piece.len();
            self.emit(&piece, ChunkKind::Value, e.span, directives)?;
            directives += 1;
        }
        written += text.len();
        self.emit(&text, lit_kind, e.span, directives)?;
        Ok(Val::I(written as i64))
    }

    fn arg<'a>(&self, e: &Expr, args: &'a [Expr], vals: &[Val], next: &mut usize, conv: u8) -> R<(Val, &'a Type)> {
        if *next >= args.len() {
            return err(
                K::BadFormat,
                e.span,
                format!("the format has more conversions than arguments (no argument for a `%{}`)", conv as char),
            );
        }
        let r = (vals[*next], &args[*next].ty);
        *next += 1;
        Ok(r)
    }

    fn int_arg(&self, e: &Expr, args: &[Expr], vals: &[Val], next: &mut usize, what: &str) -> R<i64> {
        if *next >= args.len() {
            return err(K::BadFormat, e.span, format!("no argument for the `{what}` in the format"));
        }
        let v = vals[*next].i();
        *next += 1;
        Ok(v)
    }

    // ----- scanf -----

    fn scanf(&mut self, e: &'p Expr, args: &'p [Expr], vals: &[Val]) -> R<Val> {
        let Some(fa) = args.first() else { return err(K::BadFormat, e.span, "scanf needs a format string") };
        let fmt = self.read_cstr(vals[0].i(), usize::MAX, &deref_of(fa))?;
        let mut done: i64 = 0;
        let mut next = 1usize;
        let mut i = 0usize;
        let start_pos = self.pos;
        let mut input_failure = false;
        'outer: while i < fmt.len() {
            let c = fmt[i];
            if is_c_space(c) {
                i += 1;
                self.skip_ws();
                continue;
            }
            if c != b'%' {
                i += 1;
                match self.peek() {
                    None => {
                        input_failure = true;
                        break;
                    }
                    Some(x) if x == c => self.pos += 1,
                    Some(_) => break,
                }
                continue;
            }
            i += 1;
            let mut suppress = false;
            if i < fmt.len() && fmt[i] == b'*' {
                suppress = true;
                i += 1;
            }
            let mut width = 0usize;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                width = width.saturating_mul(10).saturating_add((fmt[i] - b'0') as usize);
                i += 1;
            }
            let width = if width == 0 { usize::MAX } else { width };
            let mut len = 0u8; // 0 none, 1 hh, 2 h, 3 l, 4 ll/L
            while i < fmt.len() {
                match fmt[i] {
                    b'h' => len = if len == 2 { 1 } else { 2 },
                    b'l' => len = if len == 3 { 4 } else { 3 },
                    b'L' | b'q' | b'j' => len = 4,
                    b'z' | b't' => len = 3,
                    _ => break,
                }
                i += 1;
            }
            if i >= fmt.len() {
                break;
            }
            let conv = fmt[i];
            i += 1;
            let int_size = match len {
                0 => 4,
                1 => 1,
                2 => 2,
                _ => 8,
            };
            match conv {
                b'%' => {
                    self.skip_ws();
                    match self.peek() {
                        None => {
                            input_failure = true;
                            break 'outer;
                        }
                        Some(b'%') => self.pos += 1,
                        Some(_) => break 'outer,
                    }
                }
                b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'f' | b'e' | b'g' | b'E' | b'G' | b'a' => {
                    let kind = match conv {
                        b'd' => Conv::Int { base: 10, signed: true },
                        b'i' => Conv::Int { base: 0, signed: true },
                        b'u' => Conv::Int { base: 10, signed: false },
                        b'o' => Conv::Int { base: 8, signed: false },
                        b'x' | b'X' => Conv::Int { base: 16, signed: false },
                        _ => Conv::Float(if len >= 3 { 8 } else { 4 }),
                    };
                    match self.scan_value(kind, width) {
                        Scanned::Eof => {
                            input_failure = true;
                            break 'outer;
                        }
                        Scanned::NoMatch => break 'outer,
                        Scanned::Int(v) => {
                            if !suppress {
                                let (p, a) = self.scan_dest(e, args, vals, &mut next, conv)?;
                                let d = deref_of(a);
                                let ty = Type::Int(match int_size {
                                    1 => IntType::CHAR,
                                    2 => IntType::SHORT,
                                    4 => IntType::INT,
                                    _ => IntType::LONG,
                                });
                                let what = format!("`scanf`'s `%{}`", conv as char);
                                self.store_mem(p, &ty, Val::I(v), &d).map_err(|e| self.rewrite_oob(e, a, &what))?;
                                done += 1;
                            }
                        }
                        Scanned::Float(f) => {
                            if !suppress {
                                let (p, a) = self.scan_dest(e, args, vals, &mut next, conv)?;
                                let d = deref_of(a);
                                let ty = if len >= 3 { Type::DOUBLE } else { Type::Float(FloatKind::Float) };
                                let what = format!("`scanf`'s `%{}{}`", if len >= 3 { "l" } else { "" }, conv as char);
                                self.store_mem(p, &ty, Val::F(f), &d).map_err(|e| self.rewrite_oob(e, a, &what))?;
                                done += 1;
                            }
                        }
                    }
                }
                b'c' => {
                    let w = if width == usize::MAX { 1 } else { width };
                    if self.pos >= self.input.len() {
                        self.input_exhausted = true;
                        input_failure = true;
                        break 'outer;
                    }
                    let take = w.min(self.input.len() - self.pos);
                    let bytes = self.input[self.pos..self.pos + take].to_vec();
                    self.pos += take;
                    if !suppress {
                        let (p, a) = self.scan_dest(e, args, vals, &mut next, conv)?;
                        self.store_bytes(p, &bytes, false, a)?;
                        done += 1;
                    }
                }
                b's' | b'[' => {
                    let set: Option<(bool, Vec<u8>)> = if conv == b'[' {
                        let mut neg = false;
                        if i < fmt.len() && fmt[i] == b'^' {
                            neg = true;
                            i += 1;
                        }
                        let mut set = Vec::new();
                        if i < fmt.len() && fmt[i] == b']' {
                            set.push(b']');
                            i += 1;
                        }
                        while i < fmt.len() && fmt[i] != b']' {
                            if fmt[i] == b'-' && !set.is_empty() && i + 1 < fmt.len() && fmt[i + 1] != b']' {
                                let lo = *set.last().unwrap();
                                let hi = fmt[i + 1];
                                for ch in lo..=hi {
                                    set.push(ch);
                                }
                                i += 2;
                            } else {
                                set.push(fmt[i]);
                                i += 1;
                            }
                        }
                        i += 1; // the `]`
                        Some((neg, set))
                    } else {
                        self.skip_ws();
                        None
                    };
                    if self.pos >= self.input.len() {
                        self.input_exhausted = true;
                        input_failure = true;
                        break 'outer;
                    }
                    let st = self.pos;
                    while self.pos < self.input.len() && self.pos - st < width {
                        let ch = self.input[self.pos];
                        let ok = match &set {
                            None => !is_c_space(ch),
                            Some((neg, s)) => s.contains(&ch) != *neg,
                        };
                        if !ok {
                            break;
                        }
                        self.pos += 1;
                    }
                    if self.pos == st {
                        break 'outer;
                    }
                    let bytes = self.input[st..self.pos].to_vec();
                    if !suppress {
                        let (p, a) = self.scan_dest(e, args, vals, &mut next, conv)?;
                        self.store_bytes(p, &bytes, true, a)?;
                        done += 1;
                    }
                }
                b'n' => {
                    if !suppress {
                        let (p, a) = self.scan_dest(e, args, vals, &mut next, conv)?;
                        let n = (self.pos - start_pos) as i64;
                        self.store_mem(p, &Type::INT, Val::I(n), &deref_of(a))?;
                    }
                }
                _ => {
                    return err(
                        K::BadFormat,
                        e.span,
                        format!("`%{}` is not a scanf conversion mend knows", conv as char),
                    );
                }
            }
        }
        // A read unless it returns EOF: a matching failure (an empty line for `%[^\n]`) was
        // still the read the prompt before it asked for.
        if done > 0 || !input_failure {
            self.out_before_last_read = self.out.len();
        }
        if input_failure && done == 0 {
            return Ok(Val::I(-1));
        }
        Ok(Val::I(done))
    }

    fn scan_dest(&self, e: &Expr, args: &'p [Expr], vals: &[Val], next: &mut usize, conv: u8) -> R<(i64, &'p Expr)> {
        if *next >= args.len() {
            return err(
                K::BadFormat,
                e.span,
                format!("the scanf format has more conversions than arguments (no argument for a `%{}`)", conv as char),
            );
        }
        let a = &args[*next];
        if !a.ty.is_pointer() && !matches!(a.ty, Type::Array(..)) {
            return err(
                K::BadFormat,
                a.span,
                format!("scanf needs the address of a variable here (`&{}`)", super::text::expr(self.prog, a)),
            );
        }
        let p = vals[*next].i();
        *next += 1;
        Ok((p, a))
    }

    fn store_bytes(&mut self, p: i64, bytes: &[u8], nul: bool, a: &Expr) -> R<()> {
        let d = deref_of(a);
        let d = if let ExprKind::Decay(inner) = &a.kind { (**inner).clone() } else { d };
        let it = bytes.iter().copied().chain(if nul { Some(0u8) } else { None });
        for (k, b) in it.enumerate() {
            let _ = &d;
            self.mem.store_byte(memory::ptr_add(p, k as i64), b).map_err(|f| self.write_fault(f, a, "`scanf`"))?;
        }
        Ok(())
    }

    /// A library function writing through pointer argument `a` faulted.
    fn write_fault(&self, f: super::memory::Fault, a: &Expr, what: &str) -> Box<Stop> {
        self.range_fault(f, a, what, true)
    }

    /// A library function reading a range of bytes through pointer argument `a` faulted.
    fn read_fault(&self, f: super::memory::Fault, a: &Expr, what: &str) -> Box<Stop> {
        self.range_fault(f, a, what, false)
    }

    fn range_fault(&self, f: super::memory::Fault, a: &Expr, what: &str, write: bool) -> Box<Stop> {
        if let super::memory::Fault::OutOfBounds { block, block_size, .. } = f {
            let b = &self.mem.blocks[block as usize];
            let target = match b.kind {
                BlockKind::Heap => format!("the {block_size} bytes of {}", b.name),
                BlockKind::Literal => "a string literal".to_string(),
                _ => format!("`{}` ({block_size} bytes)", b.name),
            };
            let verb = if write { "writes" } else { "reads" };
            return Box::new(Stop::Err(crate::spec::interp::RuntimeError {
                kind: K::OutOfBounds,
                span: a.span,
                message: format!("{what} {verb} past the end of {target}"),
            }));
        }
        self.fault(f, &deref_of(a), write)
    }

    fn rewrite_oob(&self, e: Box<Stop>, a: &Expr, what: &str) -> Box<Stop> {
        match *e {
            Stop::Err(ref re) if re.kind == K::OutOfBounds => {
                let t = super::text::expr(self.prog, a);
                Box::new(Stop::Err(crate::spec::interp::RuntimeError {
                    kind: K::OutOfBounds,
                    span: a.span,
                    message: format!(
                        "{what} writes past the end of what `{t}` points to (does the conversion match the variable's type?)"
                    ),
                }))
            }
            _ => e,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.pos < self.input.len() && is_c_space(self.input[self.pos]) {
            self.pos += 1;
        }
    }

    /// Reads one number as glibc's scanf does: leading whitespace skipped, then the longest
    /// prefix that forms a number (consumed characters stay consumed on a failed match).
    fn scan_value(&mut self, conv: Conv, width: usize) -> Scanned {
        self.skip_ws();
        if self.pos >= self.input.len() {
            self.input_exhausted = true;
            return Scanned::Eof;
        }
        let inp = self.input;
        let st = self.pos;
        let lim = if width == usize::MAX { inp.len() } else { (st + width).min(inp.len()) };
        let mut j = st;
        let mut neg = false;
        if j < lim && (inp[j] == b'+' || inp[j] == b'-') {
            neg = inp[j] == b'-';
            j += 1;
        }
        match conv {
            Conv::Int { base, signed } => {
                let mut base = base;
                if (base == 0 || base == 16) && j + 1 < lim && inp[j] == b'0' && (inp[j + 1] | 0x20) == b'x' {
                    if j + 2 < lim && (inp[j + 2] as char).is_ascii_hexdigit() {
                        j += 2;
                        base = 16;
                    } else {
                        // "0x" not followed by a hex digit: the 0 is the number.
                        self.pos = j + 1;
                        return Scanned::Int(0);
                    }
                } else if base == 0 {
                    base = if j < lim && inp[j] == b'0' { 8 } else { 10 };
                }
                let ds = j;
                let mut acc: u128 = 0;
                let mut overflow = false;
                while j < lim {
                    let Some(d) = (inp[j] as char).to_digit(base) else { break };
                    acc = acc * base as u128 + d as u128;
                    if acc > u64::MAX as u128 {
                        overflow = true;
                        acc = u64::MAX as u128 + 1;
                    }
                    j += 1;
                }
                self.pos = j;
                if j == ds {
                    return Scanned::NoMatch;
                }
                // strtol / strtoul semantics (saturating), then the store truncates.
                let v: i64 = if signed {
                    if neg {
                        if overflow || acc > 1u128 << 63 { i64::MIN } else { (acc as i128).wrapping_neg() as i64 }
                    } else if overflow || acc > i64::MAX as u128 {
                        i64::MAX
                    } else {
                        acc as i64
                    }
                } else if overflow {
                    -1 // ULONG_MAX
                } else {
                    let u = acc as u64;
                    (if neg { u.wrapping_neg() } else { u }) as i64
                };
                Scanned::Int(v)
            }
            Conv::Float(_) => {
                let ds = j;
                let rest = &inp[j..lim];
                let lower: Vec<u8> = rest.iter().take(8).map(|c| c.to_ascii_lowercase()).collect();
                if lower.starts_with(b"inf") || lower.starts_with(b"nan") {
                    let n = if lower.starts_with(b"infinity") { 8 } else { 3 };
                    self.pos = j + n;
                    let v = if lower[0] == b'i' { f64::INFINITY } else { f64::NAN };
                    return Scanned::Float(if neg { -v } else { v });
                }
                // glibc's strtod reads hexadecimal floats too: 0x1A, 0x1.8p3.
                if j + 1 < lim
                    && inp[j] == b'0'
                    && (inp[j + 1] | 0x20) == b'x'
                    && j + 2 < lim
                    && (inp[j + 2].is_ascii_hexdigit()
                        || (inp[j + 2] == b'.' && j + 3 < lim && inp[j + 3].is_ascii_hexdigit()))
                {
                    j += 2;
                    let mut m = 0.0f64;
                    let mut exp: i64 = 0;
                    while j < lim && inp[j].is_ascii_hexdigit() {
                        m = m * 16.0 + (inp[j] as char).to_digit(16).unwrap() as f64;
                        j += 1;
                    }
                    if j < lim && inp[j] == b'.' {
                        j += 1;
                        while j < lim && inp[j].is_ascii_hexdigit() {
                            m = m * 16.0 + (inp[j] as char).to_digit(16).unwrap() as f64;
                            exp -= 4;
                            j += 1;
                        }
                    }
                    if j < lim && (inp[j] | 0x20) == b'p' {
                        let mut k = j + 1;
                        let mut eneg = false;
                        if k < lim && (inp[k] == b'+' || inp[k] == b'-') {
                            eneg = inp[k] == b'-';
                            k += 1;
                        }
                        if k < lim && inp[k].is_ascii_digit() {
                            let mut e: i64 = 0;
                            while k < lim && inp[k].is_ascii_digit() {
                                e = (e * 10 + (inp[k] - b'0') as i64).min(100_000);
                                k += 1;
                            }
                            exp += if eneg { -e } else { e };
                            j = k;
                        }
                    }
                    self.pos = j;
                    let v = m * 2f64.powi(exp.clamp(-2000, 2000) as i32);
                    let v = if let Conv::Float(4) = conv { v as f32 as f64 } else { v };
                    return Scanned::Float(if neg { -v } else { v });
                }
                let mut digits = 0;
                while j < lim && inp[j].is_ascii_digit() {
                    j += 1;
                    digits += 1;
                }
                if j < lim && inp[j] == b'.' {
                    j += 1;
                    while j < lim && inp[j].is_ascii_digit() {
                        j += 1;
                        digits += 1;
                    }
                }
                if digits == 0 {
                    self.pos = j;
                    return Scanned::NoMatch;
                }
                if j < lim && (inp[j] | 0x20) == b'e' {
                    let mut k = j + 1;
                    if k < lim && (inp[k] == b'+' || inp[k] == b'-') {
                        k += 1;
                    }
                    if k < lim && inp[k].is_ascii_digit() {
                        while k < lim && inp[k].is_ascii_digit() {
                            k += 1;
                        }
                        j = k;
                    }
                }
                self.pos = j;
                let s = std::str::from_utf8(&inp[ds..j]).unwrap_or("0");
                let s = if s.starts_with('.') { format!("0{s}") } else { s.to_string() };
                let mut v: f64 = s.trim_end_matches('.').parse().unwrap_or(0.0);
                if let Conv::Float(4) = conv {
                    // Parse directly as f32 to avoid double rounding.
                    v = s.trim_end_matches('.').parse::<f32>().unwrap_or(0.0) as f64;
                }
                Scanned::Float(if neg { -v } else { v })
            }
        }
    }
}

impl Val {
    pub fn truthy_pub(self) -> bool {
        match self {
            Val::I(v) => v != 0,
            Val::F(f) => f != 0.0,
            Val::U => false,
        }
    }
}

#[derive(Clone, Copy)]
enum Conv {
    Int { base: u32, signed: bool },
    Float(u8),
}

enum Scanned {
    Eof,
    NoMatch,
    Int(i64),
    Float(f64),
}

/// C's `isspace` in the "C" locale: what `scanf` skips and ends a `%s` word at (the symbolic
/// models' `smt::scan::c_space` is the same set).
pub const C_SPACE: [u8; 6] = [b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r'];

pub fn is_c_space(c: u8) -> bool {
    C_SPACE.contains(&c)
}

/// `*a`, for messages about the memory a pointer argument points to.
fn deref_of(a: &Expr) -> Expr {
    let inner = a.strip_implicit();
    match &inner.kind {
        ExprKind::AddrOf(x) => (**x).clone(),
        _ if matches!(inner.ty, Type::Array(..)) => inner.clone(),
        _ => Expr::new(ExprKind::Deref(Box::new(a.clone())), a.ty.pointee().cloned().unwrap_or(Type::CHAR), a.span),
    }
}

#[derive(Clone, Copy, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(spec: &Spec, body: Vec<u8>, _numeric: bool) -> Vec<u8> {
    if body.len() >= spec.width {
        return body;
    }
    let fill = spec.width - body.len();
    let mut out = Vec::with_capacity(spec.width);
    if spec.left {
        out.extend_from_slice(&body);
        out.resize(spec.width, b' ');
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(&body);
    }
    out
}

/// Pads `prefix` + `digits` to the width: zeros go between them when the `0` flag applies.
fn pad_num(spec: &Spec, prefix: &[u8], digits: &[u8], zero_ok: bool) -> Vec<u8> {
    let len = prefix.len() + digits.len();
    let mut out = Vec::with_capacity(spec.width.max(len));
    if len >= spec.width {
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
    } else if spec.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
        out.resize(spec.width, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(prefix);
        out.resize(spec.width - digits.len(), b'0');
        out.extend_from_slice(digits);
    } else {
        out.resize(spec.width - len, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
    }
    out
}

fn fmt_int(spec: &Spec, neg: bool, mag: u64, base: u32, upper: bool, signed: bool) -> Vec<u8> {
    let mut digits: Vec<u8> = match base {
        8 => format!("{mag:o}").into_bytes(),
        16 if upper => format!("{mag:X}").into_bytes(),
        16 => format!("{mag:x}").into_bytes(),
        _ => mag.to_string().into_bytes(),
    };
    if let Some(p) = spec.prec {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut z = vec![b'0'; p - digits.len()];
            z.extend_from_slice(&digits);
            digits = z;
        }
    }
    let mut prefix: Vec<u8> = Vec::new();
    if signed {
        if neg {
            prefix.push(b'-');
        } else if spec.plus {
            prefix.push(b'+');
        } else if spec.space {
            prefix.push(b' ');
        }
    }
    if spec.alt {
        if base == 8 && digits.first() != Some(&b'0') {
            digits.insert(0, b'0');
        }
        if base == 16 && mag != 0 {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
        }
    }
    pad_num(spec, &prefix, &digits, spec.prec.is_none())
}

/// `%e`-style digits of `x >= 0` with `prec` fraction digits: (mantissa text, exponent).
fn exp_parts(x: f64, prec: usize) -> (String, i32) {
    let s = format!("{x:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (m.to_string(), e.parse().unwrap_or(0))
}

fn exp_suffix(e: i32, upper: bool) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    format!("{}{sign}{:02}", if upper { 'E' } else { 'e' }, e.unsigned_abs())
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

fn fmt_float(spec: &Spec, conv: u8, v: f64) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let x = v.abs();
    let mut prefix = String::new();
    if neg {
        prefix.push('-');
    } else if spec.plus {
        prefix.push('+');
    } else if spec.space {
        prefix.push(' ');
    }
    if !x.is_finite() {
        let body = if x.is_nan() { "nan" } else { "inf" };
        let body = if upper { body.to_uppercase() } else { body.to_string() };
        return pad_num(spec, prefix.as_bytes(), body.as_bytes(), false);
    }
    let prec = spec.prec.unwrap_or(6);
    let body = match conv | 0x20 {
        b'f' => {
            let mut s = format!("{x:.prec$}");
            if spec.alt && prec == 0 {
                s.push('.');
            }
            s
        }
        b'e' => {
            let (mut m, e) = exp_parts(x, prec);
            if spec.alt && prec == 0 {
                m.push('.');
            }
            m + &exp_suffix(e, upper)
        }
        b'g' => {
            let p = if prec == 0 { 1 } else { prec };
            let (_, ex) = exp_parts(x, p - 1);
            if (ex as i64) < p as i64 && ex >= -4 {
                let fp = (p as i64 - 1 - ex as i64) as usize;
                let mut s = format!("{x:.fp$}");
                if !spec.alt {
                    strip_zeros(&mut s);
                } else if !s.contains('.') {
                    s.push('.');
                }
                s
            } else {
                let (mut m, e) = exp_parts(x, p - 1);
                if !spec.alt {
                    strip_zeros(&mut m);
                } else if !m.contains('.') {
                    m.push('.');
                }
                m + &exp_suffix(e, upper)
            }
        }
        _ => {
            // %a: hexadecimal floating point.
            hex_float(x, spec.prec, upper)
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    pad_num(spec, prefix.as_bytes(), body.as_bytes(), true)
}

fn hex_float(x: f64, prec: Option<usize>, _upper: bool) -> String {
    if x == 0.0 {
        return match prec {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".into(),
        };
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    let (lead, e) = if exp == 0 { (0, -1022) } else { (1, exp - 1023) };
    let mut frac = format!("{mant:013x}");
    match prec {
        None => {
            while frac.ends_with('0') {
                frac.pop();
            }
        }
        Some(p) => frac = format!("{frac:0<p$}").chars().take(p).collect(),
    }
    let sign = if e < 0 { '-' } else { '+' };
    if frac.is_empty() { format!("0x{lead}p{sign}{}", e.abs()) } else { format!("0x{lead}.{frac}p{sign}{}", e.abs()) }
}

#[cfg(test)]
pub(super) fn test_fmt_float(width: usize, prec: Option<usize>, conv: u8, v: f64) -> String {
    let spec = Spec { width, prec, ..Default::default() };
    String::from_utf8(fmt_float(&spec, conv, v)).unwrap()
}
