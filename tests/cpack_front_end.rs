//! Every C-Pack submission compiles (with the course's `gcc -Wall -Wextra -Werror -ansi
//! -pedantic`): mend's quick check must report no error on them, beyond the documented gaps
//! in `fixtures/front_end_gaps/cpack.txt` (one `problem/submissions/file.c:line: message`
//! per line). A new error fails the test, and so does a gap that no longer occurs, so the
//! list stays true; `UPDATE_EXPECT=1` rewrites it.

use mend::check::{CheckOptions, quick};
use mend::ir::Severity;

#[test]
fn cpack_submissions_get_no_error_beyond_the_documented_gaps() {
    let Some(root) = mend::testing::shared_data("cpack") else { return };
    let files: Vec<_> =
        mend::testing::course_files(&root).into_iter().filter(|f| !f.ends_with("reference.c")).collect();
    assert!(files.len() > 2000, "expected the whole data set, found {}", files.len());
    let mut found = Vec::new();
    for f in &files {
        let src = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        let report = quick(&mend::syntax::parse(&src, None), &src, &CheckOptions::default());
        for d in report.diagnostics.iter().filter(|d| d.severity == Severity::Error) {
            let line = src[..d.span.start as usize].matches('\n').count() + 1;
            let name = f.strip_prefix(&root).unwrap().display();
            found.push(format!("{name}:{line}: {} [{}]", d.message, d.code));
        }
    }
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/front_end_gaps/cpack.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&list, found.join("\n") + "\n").unwrap();
        return;
    }
    let known: Vec<String> = std::fs::read_to_string(&list).unwrap().lines().map(str::to_string).collect();
    let new: Vec<&String> = found.iter().filter(|e| !known.contains(e)).collect();
    let gone: Vec<&String> = known.iter().filter(|e| !found.contains(e)).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "errors on programs that compile, not in {}:\n{}\ngaps that no longer occur (remove them):\n{}",
        list.display(),
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        gone.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
