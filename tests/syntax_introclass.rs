//! Every IntroClass submission and reference parses without a syntax diagnostic (the corpus
//! uses C89 leftovers such as K&R parameters and implicit `int`, which must not be reported).

use std::path::{Path, PathBuf};

fn corpus(root: &Path) -> Vec<PathBuf> {
    mend::testing::course_files(root)
}

#[test]
fn introclass_has_no_syntax_diagnostics() {
    let Some(root) = mend::testing::shared_data("introclass") else { return };
    let files = corpus(&root);
    assert!(files.len() >= 1149, "expected the 1,149 IntroClass files, found {}", files.len());
    let mut bad = Vec::new();
    let mut with_error_nodes = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let src = String::from_utf8_lossy(&bytes);
        let tree = mend::syntax::parse(&src, None);
        with_error_nodes += usize::from(tree.root_node().has_error());
        let (diags, _) = mend::syntax::syntax_diagnostics(&tree, &src);
        for d in diags {
            let line = src[..d.span.start as usize].matches('\n').count() + 1;
            bad.push(format!("{}:{line}: {}", f.display(), d.message));
        }
    }
    eprintln!("{} files, {with_error_nodes} with ERROR/MISSING nodes (C89 shapes)", files.len());
    assert!(bad.is_empty(), "{} diagnostics:\n{}", bad.len(), bad.join("\n"));
}
