//! Every IntroClass submission and reference parses without a syntax diagnostic (the corpus
//! uses C89 leftovers such as K&R parameters and implicit `int`, which must not be reported).

use std::path::{Path, PathBuf};

const DATA: &str = "/work/shared/data/introclass";

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(problems) = std::fs::read_dir(DATA) else { return files };
    for p in problems.flatten() {
        let dir = p.path();
        if !dir.is_dir() {
            continue;
        }
        let reference = dir.join("reference.c");
        if reference.exists() {
            files.push(reference);
        }
        if let Ok(subs) = std::fs::read_dir(dir.join("submissions")) {
            files.extend(subs.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "c")));
        }
    }
    files.sort();
    files
}

#[test]
fn introclass_has_no_syntax_diagnostics() {
    if !Path::new(DATA).exists() {
        eprintln!("skipped: {DATA} not present");
        return;
    }
    let files = corpus();
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
