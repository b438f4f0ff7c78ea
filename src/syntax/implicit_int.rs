//! Functions declared or defined without a return type (`main() {…}`, K&R's
//! `main(argc, argv) int argc; char *argv[]; {…}`): C90 reads the missing type as `int`, but
//! tree-sitter's C grammar has no such rule and recovers in shapes that depend on the rest of
//! the file (a call statement, an ERROR node swallowing the next function). They are found
//! here on the tokens, so the check layer can analyse the text with `int ` written in.

use crate::ir::rewrite::Rewrite;
use crate::ir::token_edit::tokens;
use crate::ir::{Span, TextEdit};

/// A function declared or defined at file level with no type before its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImplicitInt {
    /// Where `int ` goes: before the name, or before the `*` of a returned pointer.
    pub insert_at: usize,
    pub name: String,
    pub name_span: Span,
}

impl ImplicitInt {
    /// The edit that writes `int ` in.
    pub fn edit(&self) -> TextEdit {
        TextEdit { span: Span::new(self.insert_at, self.insert_at), new_text: "int ".into() }
    }
}

/// `text` with `int ` written before each function [`find`] finds, and their names (`None`:
/// there are none).
pub fn written_in(text: &str) -> Option<(Rewrite, Vec<String>)> {
    let found = find(text);
    if found.is_empty() {
        return None;
    }
    let names = found.iter().map(|f| f.name.clone()).collect();
    Some((Rewrite::new(text, found.iter().map(ImplicitInt::edit).collect()), names))
}

/// Words that start a declaration: after one of them the type is there.
const DECLARATION_WORDS: &[&str] = &[
    "int", "char", "short", "long", "unsigned", "signed", "float", "double", "void", "_Bool", "bool", "struct",
    "union", "enum", "const", "volatile", "register", "auto", "typedef", "inline", "size_t", "FILE",
];

/// Other keywords, which never name a function.
const KEYWORDS: &[&str] =
    &["if", "else", "for", "while", "do", "switch", "case", "default", "return", "break", "continue", "goto", "sizeof"];

/// Every function of `text` declared or defined at file level without a return type.
pub fn find(text: &str) -> Vec<ImplicitInt> {
    let code = code_only(text);
    let toks: Vec<(usize, &str)> = tokens(&code).into_iter().map(|(a, b)| (a, &code[a..b])).collect();
    let mut found = Vec::new();
    let (mut braces, mut parens) = (0i32, 0i32);
    let mut item_start = true;
    let mut i = 0;
    while i < toks.len() {
        if braces == 0
            && parens == 0
            && item_start
            && let Some(hit) = match_definition(&toks, i)
        {
            found.push(hit);
        }
        let t = toks[i].1;
        item_start = false;
        match t {
            "{" => braces += 1,
            "}" => {
                braces -= 1;
                item_start = braces <= 0;
                braces = braces.max(0);
            }
            "(" => parens += 1,
            ")" => parens = (parens - 1).max(0),
            ";" => item_start = braces == 0 && parens == 0,
            _ => {}
        }
        i += 1;
    }
    found
}

/// `[static|extern] *… NAME ( … )` followed by `{`, by K&R parameter declarations and `{`, or
/// by `;` (a prototype), at token `i`.
fn match_definition(toks: &[(usize, &str)], mut i: usize) -> Option<ImplicitInt> {
    if matches!(toks.get(i)?.1, "static" | "extern") {
        i += 1;
    }
    let insert_at = toks.get(i)?.0;
    while toks.get(i)?.1 == "*" {
        i += 1;
    }
    let (at, name) = *toks.get(i)?;
    if !is_identifier(name) || DECLARATION_WORDS.contains(&name) || KEYWORDS.contains(&name) {
        return None;
    }
    i += 1;
    if toks.get(i)?.1 != "(" {
        return None;
    }
    // The parameter list, to its closing parenthesis.
    let mut depth = 0;
    loop {
        match toks.get(i)?.1 {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "{" | "}" | ";" => return None,
            _ => {}
        }
        i += 1;
    }
    i += 1;
    // K&R parameter declarations, each a declaration word then anything up to its `;`.
    while DECLARATION_WORDS.contains(&toks.get(i)?.1) {
        while toks.get(i)?.1 != ";" {
            if matches!(toks[i].1, "{" | "}") {
                return None;
            }
            i += 1;
        }
        i += 1;
    }
    match toks.get(i)?.1 {
        "{" | ";" => Some(ImplicitInt { insert_at, name: name.to_string(), name_span: Span::new(at, at + name.len()) }),
        _ => None,
    }
}

fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `text` with its comments and preprocessor lines blanked (newlines kept), so byte offsets
/// stay those of `text`.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            let from = i;
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            blank(&mut out, from, i);
            continue;
        }
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let from = i;
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            blank(&mut out, from, i);
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let from = i;
            i += 2;
            while i < b.len() && !(b[i] == b'/' && b[i - 1] == b'*' && i > from + 2) {
                i += 1;
            }
            i = (i + 1).min(b.len());
            blank(&mut out, from, i);
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII, and whole comments or lines at once.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, usize)> {
        find(text).into_iter().map(|h| (h.name, h.insert_at)).collect()
    }

    #[test]
    fn definitions_and_prototypes_without_a_type() {
        assert_eq!(names("main() { return 0; }"), [("main".to_string(), 0)]);
        let knr = "#include <stdio.h>\n/* tcas */\nmain(argc, argv)\nint argc;\nchar *argv[];\n{\n  return 0;\n}\n";
        assert_eq!(names(knr), [("main".to_string(), knr.find("main").unwrap())]);
        let two = "f(x) { return x; }\nstatic *g(p) char *p; { return p; }\nh();\n";
        assert_eq!(
            names(two),
            [
                ("f".to_string(), 0),
                ("g".to_string(), two.find("*g").unwrap()),
                ("h".to_string(), two.find("h()").unwrap())
            ]
        );
    }

    #[test]
    fn typed_functions_calls_and_comments_are_not_matched() {
        let typed = "int main(void) { f(1); { g(); } return 0; }\nunsigned f(x) { return x; }\nT g(void);\n";
        assert!(names(typed).is_empty(), "{:?}", names(typed));
        assert!(names("// main() {\n/* f() { */ int x;\n#define F(x) { x }\n").is_empty());
        assert!(names("int a[] = { f(1) };\nstruct s { int x; } v;\n").is_empty());
    }
}
