//! printf/scanf format strings, parsed once for the type checker, the interpreter and the SMT
//! encoding alike.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    None,
    /// `hh`
    Char,
    /// `h`
    Short,
    /// `l`
    Long,
    /// `ll`
    LongLong,
    /// `L` (long double; approximated as double)
    LongDouble,
    /// `z`
    Size,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    None,
    Fixed(u32),
    /// `*`: taken from the argument list (printf) or "assignment suppressed" (scanf width only).
    Star,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// Byte range of the whole `%...` directive within the format string's bytes.
    pub start: usize,
    pub end: usize,
    /// Flags among `-+ #0` (printf) in order of appearance.
    pub flags: String,
    pub width: Count,
    pub precision: Count,
    pub length: Length,
    /// The conversion character: one of `d i u o x X c s f F e E g G a A p n %` or `[` for a
    /// scanf scan set, whose members are in `scanset`.
    pub conv: char,
    /// scanf `%*d`: the value is read but not assigned.
    pub suppress: bool,
    /// scanf `%[...]`: the set text (between the brackets, `^` first when negated).
    pub scanset: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal bytes (with `%%` already turned into `%`).
    Literal(Vec<u8>),
    Directive(Directive),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

/// Parses a printf (`scanf == false`) or scanf format. Unknown conversions are errors with the
/// directive's byte range.
pub fn parse(fmt: &[u8], scanf: bool) -> Result<Vec<Piece>, FormatError> {
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            literal.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if i < fmt.len() && fmt[i] == b'%' {
            literal.push(b'%');
            i += 1;
            continue;
        }
        let mut d = Directive {
            start,
            end: start,
            flags: String::new(),
            width: Count::None,
            precision: Count::None,
            length: Length::None,
            conv: '?',
            suppress: false,
            scanset: String::new(),
        };
        if scanf {
            if i < fmt.len() && fmt[i] == b'*' {
                d.suppress = true;
                i += 1;
            }
        } else {
            while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
                d.flags.push(fmt[i] as char);
                i += 1;
            }
        }
        let (width, next) = count(fmt, i, !scanf);
        d.width = width;
        i = next;
        if !scanf && i < fmt.len() && fmt[i] == b'.' {
            let (p, next) = count(fmt, i + 1, true);
            d.precision = if p == Count::None { Count::Fixed(0) } else { p };
            i = next;
        }
        d.length = match fmt.get(i..i + 2) {
            Some(b"hh") => Length::Char,
            Some(b"ll") => Length::LongLong,
            _ => match fmt.get(i) {
                Some(b'h') => Length::Short,
                Some(b'l') => Length::Long,
                Some(b'L') => Length::LongDouble,
                Some(b'z') | Some(b'j') | Some(b't') => Length::Size,
                _ => Length::None,
            },
        };
        i += match d.length {
            Length::None => 0,
            Length::Char | Length::LongLong => 2,
            _ => 1,
        };
        let Some(&c) = fmt.get(i) else {
            return Err(FormatError {
                start,
                end: fmt.len(),
                message: "the format ends in the middle of a `%` directive".into(),
            });
        };
        i += 1;
        if scanf && c == b'[' {
            let set_start = i;
            if fmt.get(i) == Some(&b'^') {
                i += 1;
            }
            if fmt.get(i) == Some(&b']') {
                i += 1;
            }
            while i < fmt.len() && fmt[i] != b']' {
                i += 1;
            }
            if i >= fmt.len() {
                return Err(FormatError { start, end: fmt.len(), message: "`%[` has no closing `]`".into() });
            }
            d.scanset = String::from_utf8_lossy(&fmt[set_start..i]).into_owned();
            i += 1;
        } else if !b"diuoxXcsfFeEgGaApn".contains(&c) {
            return Err(FormatError {
                start,
                end: i,
                message: format!(
                    "`{}` is not a conversion {} understands",
                    String::from_utf8_lossy(&fmt[start..i]),
                    if scanf { "scanf" } else { "printf" }
                ),
            });
        }
        d.conv = c as char;
        d.end = i;
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Directive(d));
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

fn count(fmt: &[u8], mut i: usize, allow_star: bool) -> (Count, usize) {
    if allow_star && fmt.get(i) == Some(&b'*') {
        return (Count::Star, i + 1);
    }
    let start = i;
    let mut n: u32 = 0;
    while i < fmt.len() && fmt[i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((fmt[i] - b'0') as u32);
        i += 1;
    }
    if i == start { (Count::None, i) } else { (Count::Fixed(n), i) }
}

impl Directive {
    /// Arguments this directive consumes (printf: `*` width/precision take one each).
    pub fn arg_count(&self, scanf: bool) -> usize {
        if scanf {
            return usize::from(!self.suppress && self.conv != '%');
        }
        let stars = usize::from(self.width == Count::Star) + usize::from(self.precision == Count::Star);
        stars + 1
    }
    pub fn is_integer(&self) -> bool {
        matches!(self.conv, 'd' | 'i' | 'u' | 'o' | 'x' | 'X')
    }
    pub fn is_signed(&self) -> bool {
        matches!(self.conv, 'd' | 'i')
    }
    pub fn is_float(&self) -> bool {
        matches!(self.conv, 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A')
    }
}

/// The format of a `printf` call and the arguments it prints: its literal format and the
/// rest, or, for `printf(c ? "yes\n" : "no\n")` (a choice between two literals without a `%`,
/// and nothing else), `%s` of the choice, which prints the same. `None` for any other format.
pub fn printf_format(args: &[super::Expr]) -> Option<(&[u8], &[super::Expr])> {
    use super::ExprKind;
    match &args.first()?.strip_implicit().kind {
        ExprKind::Str(fmt) => Some((fmt, &args[1..])),
        ExprKind::Cond(_, a, b) if args.len() == 1 => {
            let plain = |e: &super::Expr| matches!(&e.strip_implicit().kind, ExprKind::Str(t) if !t.contains(&b'%'));
            (plain(a) && plain(b)).then_some((b"%s".as_slice(), args))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convs(fmt: &str, scanf: bool) -> Vec<String> {
        parse(fmt.as_bytes(), scanf)
            .unwrap()
            .into_iter()
            .map(|p| match p {
                Piece::Literal(l) => format!("lit:{}", String::from_utf8(l).unwrap()),
                Piece::Directive(d) => format!("{}{}{:?}{:?}{:?}", d.flags, d.conv, d.width, d.precision, d.length),
            })
            .collect()
    }

    #[test]
    fn printf_directives() {
        assert_eq!(
            convs("x=%-5d %.2f%%\n", false),
            ["lit:x=", "-dFixed(5)NoneNone", "lit: ", "fNoneFixed(2)None", "lit:%\n"]
        );
        assert_eq!(convs("%lld%*.*s", false), ["dNoneNoneLongLong", "sStarStarNone"]);
        assert_eq!(convs("%.f", false), ["fNoneFixed(0)None"]);
    }

    #[test]
    fn scanf_directives() {
        let p = parse(b" %d%*c%lf%[^\n]", true).unwrap();
        let ds: Vec<_> = p.iter().filter_map(|p| if let Piece::Directive(d) = p { Some(d) } else { None }).collect();
        assert_eq!(ds.len(), 4);
        assert!(ds[1].suppress && ds[1].arg_count(true) == 0);
        assert_eq!(ds[2].length, Length::Long);
        assert_eq!(ds[3].scanset, "^\n");
    }

    #[test]
    fn bad_conversion_is_an_error_with_its_range() {
        let e = parse(b"ab%Lz", false).unwrap_err();
        assert_eq!((e.start, e.end), (2, 5));
        let e = parse(b"%q", false).unwrap_err();
        assert!(e.message.contains("`%q`"), "{}", e.message);
        assert!(parse(b"50%", false).is_err());
    }
}
