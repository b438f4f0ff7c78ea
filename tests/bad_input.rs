//! Bad input never crashes the analysis: random bytes, a 10 MB file, 10,000 levels of
//! nesting, invalid UTF-8, a mend.toml pointing outside its folder. Each gets a clear
//! diagnostic (or none), never a panic, and the analysis returns.

use std::time::Instant;

use mend::cancel::Cancel;
use mend::check::{CheckOptions, check};
use mend::ir::Severity;

fn run(text: &str) -> mend::check::Report {
    // The server runs analysis on tokio's blocking pool, whose threads have 2 MiB stacks:
    // the analysis must fit in that whatever the input.
    let text = text.to_string();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || check(None, &text, &CheckOptions::default(), &Cancel::new()))
        .unwrap()
        .join()
        .expect("check must not panic")
}

#[test]
fn random_bytes() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for round in 0..50 {
        let bytes: Vec<u8> = (0..2000 + round * 37)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let report = run(&text);
        assert!(report.diagnostics.iter().any(|d| d.severity == Severity::Error), "random bytes give an error");
    }
}

#[test]
fn ten_megabyte_file() {
    let mut text = String::from("#include <stdio.h>\n");
    let mut i = 0;
    while text.len() < 10 << 20 {
        text.push_str(&format!("int f{i}(int x) {{ int y = x * {i}; if (y > 3) return y - 1; return y + 2; }}\n"));
        i += 1;
    }
    text.push_str("int main(void) { printf(\"%d\\n\", f1(2)); return 0; }\n");
    let started = Instant::now();
    let report = run(&text);
    assert!(
        report.diagnostics.iter().all(|d| d.severity != Severity::Error),
        "{:?}",
        &report.diagnostics[..3.min(report.diagnostics.len())]
    );
    eprintln!("10 MB file checked in {:?}", started.elapsed());
}

#[test]
fn deeply_nested_expression_and_blocks() {
    let depth = 10_000;
    let expr = format!("int main(void) {{ int x = {}1{}; return x; }}\n", "(".repeat(depth), ")".repeat(depth));
    let report = run(&expr);
    assert!(
        report.diagnostics.iter().any(|d| d.code == "unsupported" && d.message.contains("nested")),
        "{:?}",
        report.diagnostics
    );
    let blocks = format!("int main(void) {{ {} return 0; {} }}\n", "{".repeat(depth), "}".repeat(depth));
    let report = run(&blocks);
    assert!(report.diagnostics.iter().any(|d| d.code == "unsupported" && d.message.contains("nested")));
    let unary = format!("int main(void) {{ int x = 1; return {}x; }}\n", "-".repeat(depth));
    run(&unary);
    let sums = format!("int main(void) {{ int x = 1; return x{}; }}\n", " + x".repeat(depth));
    run(&sums);
}

#[test]
fn mend_toml_outside_its_folder() {
    let dir = std::env::temp_dir().join(format!("mend-bad-toml-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/mend.toml"), "reference = \"../outside.c\"\n").unwrap();
    std::fs::write(dir.join("outside.c"), "int main(void) { return 0; }\n").unwrap();
    let file = dir.join("sub/a.c");
    let text = "int main(void) { return 0; }\n";
    std::fs::write(&file, text).unwrap();
    let report = check(Some(&file), text, &CheckOptions::default(), &Cancel::new());
    let d = report.diagnostics.iter().find(|d| d.code == "mend-toml").expect("a mend.toml diagnostic");
    assert!(d.message.contains("mend.toml:1:13") && d.message.contains("outside"), "{}", d.message);
    std::fs::write(dir.join("sub/mend.toml"), "tests = \"missing\"\n").unwrap();
    let report = check(Some(&file), text, &CheckOptions::default(), &Cancel::new());
    let d = report.diagnostics.iter().find(|d| d.code == "mend-toml").expect("a mend.toml diagnostic");
    assert!(d.message.contains("does not exist"), "{}", d.message);
    std::fs::remove_dir_all(&dir).unwrap();
}
