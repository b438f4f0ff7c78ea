//! `#include`s: a standard name used without its header, and a misspelt header name. gcc
//! rejects both (`EOF` undeclared; `printf` implicitly declared, an error since C99; no such
//! file `studio.h`), and mend used to find "no problems" in such a file.

use tree_sitter::Node;

use crate::ir::{Diagnostic, Guarantee, Repair, Span, TextEdit};

use super::expr::edit_distance;

/// The standard C headers (C89 to C17) and the POSIX ones students include.
const KNOWN: &[&str] = &[
    "assert.h",
    "complex.h",
    "ctype.h",
    "errno.h",
    "fenv.h",
    "float.h",
    "inttypes.h",
    "iso646.h",
    "limits.h",
    "locale.h",
    "math.h",
    "setjmp.h",
    "signal.h",
    "stdalign.h",
    "stdarg.h",
    "stdatomic.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "stdnoreturn.h",
    "string.h",
    "tgmath.h",
    "threads.h",
    "time.h",
    "uchar.h",
    "wchar.h",
    "wctype.h",
    "unistd.h",
    "strings.h",
    "sys/types.h",
    "sys/stat.h",
    "fcntl.h",
    "malloc.h",
];

/// What the file includes, and the diagnostics and fixes found so far.
pub struct Headers {
    included: Vec<String>,
    /// A header mend cannot see (a local `"file.h"`, a library's): it may declare anything,
    /// so no name is reported as missing its header.
    opaque: bool,
    /// Where an `#include` line goes: after the last one, or at the top.
    insert_at: usize,
    /// `insert_at` is at the start of a line.
    at_line_start: bool,
    /// Headers reported missing, with the index of their diagnostic in `diags` and the name
    /// it was reported on.
    reported: Vec<(&'static str, usize, String)>,
    pub diags: Vec<Diagnostic>,
    pub repairs: Vec<Repair>,
}

impl Headers {
    /// Reads the file's `#include`s (top level, and inside `#if` blocks), reporting a
    /// misspelt standard header with its fix.
    pub fn read(root: Node, src: &str) -> Headers {
        let mut h = Headers::empty();
        h.collect(root, src);
        h
    }

    /// A file with no `#include`.
    pub fn empty() -> Headers {
        Headers {
            included: Vec::new(),
            opaque: false,
            insert_at: 0,
            at_line_start: true,
            reported: Vec::new(),
            diags: Vec::new(),
            repairs: Vec::new(),
        }
    }

    fn collect(&mut self, node: Node, src: &str) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "preproc_include" => self.include(child, src),
                "preproc_ifdef" | "preproc_if" | "preproc_else" | "preproc_elif" => {
                    // A conditional include may or may not be there.
                    self.opaque = true;
                    self.collect(child, src);
                }
                _ => {}
            }
        }
    }

    fn include(&mut self, node: Node, src: &str) {
        if node.end_byte() > self.insert_at {
            self.insert_at = node.end_byte();
            self.at_line_start = src[..node.end_byte()].ends_with('\n');
        }
        let Some(path) = node.child_by_field_name("path") else { return };
        let text = &src[path.byte_range()];
        if path.kind() != "system_lib_string" {
            self.opaque = true;
            return;
        }
        let name = text.trim_start_matches('<').trim_end_matches('>').trim();
        if KNOWN.contains(&name) {
            self.included.push(name.to_string());
            return;
        }
        let nearest = KNOWN.iter().map(|k| (edit_distance(name, k), *k)).filter(|(d, _)| *d <= 2).min();
        let Some((_, meant)) = nearest else {
            self.opaque = true; // another library's header
            return;
        };
        let span = Span::new(path.start_byte(), path.end_byte());
        self.diags.push(Diagnostic::error(
            "unknown-header",
            span,
            format!("there is no standard header `<{name}>`; did you mean `<{meant}>`?"),
        ));
        self.repairs.push(Repair {
            reached: Vec::new(),
            title: format!("Replace `<{name}>` with `<{meant}>`"),
            engine: "frontend",
            guarantee: Guarantee::WellTyped,
            edits: vec![TextEdit { span, new_text: format!("<{meant}>") }],
            explanation: format!("Includes the standard header `<{meant}>`."),
            places: Vec::new(),
            details: String::new(),
            fixes: vec![span],
        });
        // Reported once: the names it declares are not reported again.
        self.included.push(meant.to_string());
    }

    /// `name` (used at `span`) is declared in `header`: reports it once per header if the
    /// file does not include it. A constant is then undeclared, an error for every compiler;
    /// a function (`call`) is declared implicitly, which gcc 14 and clang 16 reject and older
    /// compilers only warn about, so it is a warning.
    pub fn require(&mut self, header: &'static str, name: &str, span: Span, call: bool) {
        // Verification builtins (`nondet_int`, `__VERIFIER_assume`) have no header.
        if header.is_empty() || self.opaque || self.included.iter().any(|h| h == header) {
            return;
        }
        if let Some((_, k, first)) = self.reported.iter().find(|(h, _, _)| *h == header) {
            let k = *k;
            // One diagnostic per header; a constant from it makes the file fail everywhere.
            if !call && self.diags[k].severity != crate::ir::Severity::Error {
                self.diags[k].severity = crate::ir::Severity::Error;
                self.diags[k].message =
                    format!("`{first}` and `{name}` come from `<{header}>`, which this file does not include");
            }
            return;
        }
        self.reported.push((header, self.diags.len(), name.to_string()));
        self.diags.push(if call {
            Diagnostic::warning(
                super::MISSING_INCLUDE,
                span,
                format!("`{name}` is declared in `<{header}>`, which this file does not include: recent compilers reject the call"),
            )
        } else {
            Diagnostic::error(
                super::MISSING_INCLUDE,
                span,
                format!("`{name}` comes from `<{header}>`, which this file does not include"),
            )
        });
        let at = Span::new(self.insert_at, self.insert_at);
        let line = if self.at_line_start { format!("#include <{header}>\n") } else { format!("\n#include <{header}>") };
        self.repairs.push(Repair {
            reached: Vec::new(),
            title: format!("Add `#include <{header}>`"),
            engine: "frontend",
            guarantee: Guarantee::WellTyped,
            edits: vec![TextEdit { span: at, new_text: line }],
            explanation: format!("Includes `<{header}>`, where `{name}` is declared."),
            places: Vec::new(),
            details: String::new(),
            fixes: vec![span],
        });
    }
}
