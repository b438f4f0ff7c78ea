//! The interpreter prints the same bytes and exits with the same status as the gcc-compiled
//! program, for every fixture in `fixtures/interp/*.c` with its `.in` input.

mod common;

use std::path::Path;
use std::time::Duration;

#[test]
fn fixtures_agree_with_gcc() {
    if !common::have_gcc() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/interp");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "expected at least 15 fixtures, found {}", cases.len());
    let results = common::parallel(cases, 2, |c| {
        let src = std::fs::read_to_string(&c).unwrap();
        let input = std::fs::read(c.with_extension("in")).unwrap_or_default();
        let bin = common::compile(src.as_bytes()).unwrap_or_else(|| panic!("gcc rejects {}", c.display()));
        let native = common::run_native(&bin, &input, Duration::from_secs(10));
        let (r, has_error) = common::interpret(&src, &input);
        (c, native, r, has_error)
    });
    let mut failures = Vec::new();
    for (c, native, r, has_error) in results {
        let name = c.file_name().unwrap().to_string_lossy().into_owned();
        if has_error {
            failures.push(format!("{name}: the front end reports an error"));
            continue;
        }
        if let Some(e) = &r.error {
            failures.push(format!("{name}: runtime error {:?}: {}", e.kind, e.message));
            continue;
        }
        if r.output != native.stdout {
            failures.push(format!(
                "{name}: output differs\n--- gcc\n{}\n--- interp\n{}",
                String::from_utf8_lossy(&native.stdout),
                String::from_utf8_lossy(&r.output)
            ));
        }
        let code = r.exit_code.map(|c| c & 0xff);
        if code != native.status {
            failures.push(format!("{name}: exit status gcc {:?}, interp {:?}", native.status, code));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
#[ignore = "debug helper: MEND_FILE=path cargo test --test interp_gcc show -- --ignored --nocapture"]
fn show() {
    let f = std::env::var("MEND_FILE").unwrap();
    let src = std::fs::read_to_string(&f).unwrap();
    let input = std::fs::read(Path::new(&f).with_extension("in")).unwrap_or_default();
    let lowered = mend::syntax::lower::lower_source(&src);
    for d in &lowered.diagnostics {
        let line = src[..d.span.start as usize].matches('\n').count() + 1;
        println!("{line}: {:?} {} [{}]", d.severity, d.message, d.code);
    }
    let (r, _) = common::interpret(&src, &input);
    println!("--- output\n{}", String::from_utf8_lossy(&r.output));
    println!("--- exit {:?} error {:?} steps {}", r.exit_code, r.error, r.steps);
}
