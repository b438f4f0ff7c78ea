//! The standard-library signature table (`stdlib.txt`, data in the repository), parsed once.

use std::sync::OnceLock;

/// The headers the table covers; a file's graph holds the entries of the ones it includes.
pub const HEADERS: &[&str] = &["stdio.h", "stdlib.h", "string.h", "math.h", "ctype.h", "stdbool.h", "limits.h"];

#[derive(Clone, Debug)]
pub enum EntryKind {
    Fn { ret: String, params: Vec<String>, variadic: bool },
    Const { ty: String },
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub header: &'static str,
    pub name: String,
    pub kind: EntryKind,
}

pub fn table() -> &'static [Entry] {
    static TABLE: OnceLock<Vec<Entry>> = OnceLock::new();
    TABLE.get_or_init(|| parse(include_str!("stdlib.txt")))
}

/// Bit `i` set: header `HEADERS[i]` is included.
pub type HeaderSet = u32;

pub const ALL_HEADERS: HeaderSet = (1 << 7) - 1;

/// The table's headers that `text` includes with `#include <...>` or `#include "..."`.
pub fn included_headers(text: &str) -> HeaderSet {
    let mut set = 0;
    for line in crate::syntax::include_lines::include_lines(text) {
        if let Some(i) = HEADERS.iter().position(|h| *h == line.header) {
            set |= 1 << i;
        }
    }
    set
}

pub fn header_bit(header: &str) -> HeaderSet {
    HEADERS.iter().position(|h| *h == header).map(|i| 1 << i).unwrap_or(0)
}

/// The entry called `name` in any header (the front end accepts library calls without their
/// header, so typing an expression must too).
pub fn lookup(name: &str) -> Option<&'static Entry> {
    table().iter().find(|e| e.name == name)
}

/// Whether a call of the library function `name` does more than compute its value from its
/// arguments: input or output (all of `stdio.h`), writing through a pointer argument
/// (`strcpy`, `strtol`'s end pointer, `frexp`'s exponent), allocation, a hidden state
/// (`rand`, `strtok`) or leaving the program. A type repair never brings such a call in
/// where the student wrote none: `scanf("%s", gets(line))` type-checks, but reads a line
/// the program never asked for.
pub fn has_effects(name: &str) -> bool {
    const PURE_STDLIB: &[&str] =
        &["abs", "labs", "llabs", "div", "ldiv", "lldiv", "atof", "atoi", "atol", "atoll", "bsearch", "getenv"];
    const PURE_STRING: &[&str] = &[
        "strlen", "strcmp", "strncmp", "strcoll", "memcmp", "memchr", "strchr", "strrchr", "strcspn", "strspn",
        "strpbrk", "strstr", "strerror",
    ];
    let Some(Entry { header, kind: EntryKind::Fn { params, .. }, .. }) = lookup(name) else { return false };
    match *header {
        "stdio.h" => true,
        "stdlib.h" => !PURE_STDLIB.contains(&name),
        "string.h" => !PURE_STRING.contains(&name),
        // `frexp(x, &e)`, `modf`, `remquo` write their second result through a pointer.
        _ => params.iter().any(|p| p.ends_with('*') && p != "char *"),
    }
}

fn parse(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(cols.len() == 5, "stdlib.txt:{}: expected 5 columns", no + 1);
        let header = HEADERS
            .iter()
            .find(|h| **h == cols[0])
            .copied()
            .unwrap_or_else(|| panic!("stdlib.txt:{}: unknown header", no + 1));
        let kind = match cols[1] {
            "fn" => {
                let mut params: Vec<String> =
                    cols[4].split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
                let variadic = params.last().is_some_and(|p| p == "...");
                if variadic {
                    params.pop();
                }
                EntryKind::Fn { ret: cols[2].to_string(), params, variadic }
            }
            "const" => EntryKind::Const { ty: cols[2].to_string() },
            other => panic!("stdlib.txt:{}: unknown kind {other}", no + 1),
        };
        out.push(Entry { header, name: cols[3].to_string(), kind });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_covers_the_c11_headers() {
        let t = table();
        let count = |h: &str| t.iter().filter(|e| e.header == h).count();
        // C11 7.21 (stdio.h) declares 45 functions; `gets` (C99) is kept for students.
        assert_eq!(t.iter().filter(|e| e.header == "stdio.h" && matches!(e.kind, EntryKind::Fn { .. })).count(), 46);
        assert_eq!(t.iter().filter(|e| e.header == "string.h" && matches!(e.kind, EntryKind::Fn { .. })).count(), 22);
        assert_eq!(t.iter().filter(|e| e.header == "ctype.h").count(), 14);
        assert!(count("math.h") > 180);
        assert!(count("limits.h") == 19);
        for name in ["INT_MAX", "true", "false", "EOF", "NULL", "RAND_MAX", "qsort", "strtok", "fmaf", "llroundl"] {
            assert!(lookup(name).is_some(), "{name}");
        }
        for name in ["gets", "tmpnam", "strcpy", "strtol", "rand", "malloc", "frexp", "printf", "getchar"] {
            assert!(has_effects(name), "{name}");
        }
        for name in ["strlen", "strcmp", "abs", "sqrt", "toupper", "atoi", "nan", "INT_MAX", "my_function"] {
            assert!(!has_effects(name), "{name}");
        }
        assert_eq!(included_headers("#include <stdio.h>\n  # include \"math.h\"\n#include <foo.h>"), 0b1001);
    }
}
