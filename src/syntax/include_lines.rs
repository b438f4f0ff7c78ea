//! `#include` lines read from the text alone, for the engines that add or look up a header
//! without a syntax tree (the lowering reads them from the tree, `lower/headers.rs`).

/// One `#include` line: where it is in the text (its line break included) and the header's
/// name without `<>` or quotes.
pub struct IncludeLine<'a> {
    pub start: usize,
    pub end: usize,
    pub header: &'a str,
}

/// The `#include` lines of `src`, in order.
pub fn include_lines(src: &str) -> impl Iterator<Item = IncludeLine<'_>> {
    src.split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .filter_map(|(start, line)| {
            let rest = line.trim_start().strip_prefix('#')?;
            let name = rest.trim_start().strip_prefix("include")?;
            let header = name.trim().trim_matches(['<', '>', '"']);
            Some(IncludeLine { start, end: start + line.len(), header })
        })
}

/// The edit that includes `<header>` after the file's last `#include` line (at the top when it
/// has none); `None` when the file includes it already.
pub fn include_edit(src: &str, header: &str) -> Option<crate::ir::TextEdit> {
    let mut after = 0;
    for line in crate::syntax::include_lines::include_lines(src) {
        if line.header == header {
            return None;
        }
        after = line.end;
    }
    // The last include line may end the file without a line break.
    let new_text = if after > 0 && !src[..after].ends_with('\n') {
        format!("\n#include <{header}>")
    } else {
        format!("#include <{header}>\n")
    };
    Some(crate::ir::TextEdit { span: crate::ir::Span::new(after, after), new_text })
}

#[cfg(test)]
mod tests {
    use super::include_lines;

    #[test]
    fn reads_system_and_local_includes_with_their_places() {
        let src = "#include <stdio.h>\n  # include \"mine.h\"\nint x;\n#include<string.h>";
        let got: Vec<_> = include_lines(src).map(|l| (l.start, l.end, l.header)).collect();
        assert_eq!(got, vec![(0, 19, "stdio.h"), (19, 40, "mine.h"), (47, 65, "string.h")]);
    }
}
