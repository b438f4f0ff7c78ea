//! Every IntroClass program (all compile with gcc) lowers with no error diagnostic and no
//! unsupported construct: the subset covers what these students write.

use std::path::PathBuf;

use mend::ir::Severity;
use mend::syntax::lower::lower_source;

fn introclass_files() -> Vec<PathBuf> {
    mend::testing::shared_data("introclass").map_or_else(Vec::new, |root| mend::testing::course_files(&root))
}

#[test]
fn introclass_lowers_without_errors() {
    let files = introclass_files();
    assert!(files.len() > 1000, "expected the whole data set, found {}", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let src = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        let lowered = lower_source(&src);
        for d in &lowered.diagnostics {
            if d.severity == Severity::Error || d.code == "unsupported" {
                let line = src[..d.span.start as usize].matches('\n').count() + 1;
                problems.push(format!("{}:{}: {} [{}]", f.display(), line, d.message, d.code));
            }
        }
        assert!(lowered.program.func_by_name("main").is_some(), "{}: no main", f.display());
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

#[test]
#[ignore = "prints the warning census; run with --ignored --nocapture"]
fn introclass_warning_census() {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for f in introclass_files() {
        let src = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        for d in lower_source(&src).diagnostics {
            let key: String = d.message.chars().take(60).collect();
            *counts.entry(format!("{:?} {}", d.severity, key)).or_default() += 1;
        }
    }
    for (k, v) in counts {
        println!("{v:5} {k}");
    }
}
