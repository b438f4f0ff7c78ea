//! Test cases: every `N.in` with a sibling `N.out` under a directory, recursively.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestCase {
    /// The path below the tests directory without extension, `/`-separated: `blackbox/1`.
    pub name: String,
    pub input: PathBuf,
    pub output: PathBuf,
}

/// Every `N.in` with a sibling `N.out` below `dir` (recursively), sorted naturally by name
/// (`2` before `10`, `blackbox/…` before `whitebox/…`). An `N.in` without its `N.out` is
/// left out (see [`unpaired`]). Unreadable directories are skipped too; a missing `dir` gives
/// an empty list.
pub fn discover(dir: &Path) -> Vec<TestCase> {
    let mut cases = Vec::new();
    walk(dir, dir, &mut cases, &mut Vec::new(), 0);
    cases.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    cases
}

/// The names of the `N.in` below `dir` that have no `N.out`: tests that cannot be run, which
/// the check says so rather than leaving out in silence.
pub fn unpaired(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    walk(dir, dir, &mut Vec::new(), &mut names, 0);
    names.sort_by(|a, b| natural_cmp(a, b));
    names
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<TestCase>, unpaired: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            walk(root, &path, out, unpaired, depth + 1);
        } else if path.extension().is_some_and(|e| e == "in") {
            let output = path.with_extension("out");
            let rel = path.strip_prefix(root).unwrap_or(&path).with_extension("");
            let name = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            if !output.is_file() {
                unpaired.push(name);
                continue;
            }
            out.push(TestCase { name, input: path, output });
        }
    }
}

/// Compares names with runs of digits as numbers: `t2` < `t10`, `a/9` < `a/10` < `b/1`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (&a[..na], &b[..nb]);
                let ta = trim_zeros(da);
                let tb = trim_zeros(db);
                let ord = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb)).then_with(|| na.cmp(&nb));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn natural_order() {
        let mut v = vec!["10", "2", "1", "whitebox/1", "blackbox/10", "blackbox/9", "a02", "a1"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, vec!["1", "2", "10", "a1", "a02", "blackbox/9", "blackbox/10", "whitebox/1"]);
    }

    #[test]
    fn discovers_pairs_recursively() {
        let dir = std::env::temp_dir().join(format!("mend-tests-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (f, body) in [
            ("blackbox/1.in", "1"),
            ("blackbox/1.out", "1"),
            ("blackbox/10.in", "10"),
            ("blackbox/10.out", "10"),
            ("blackbox/2.in", "2"),
            ("blackbox/2.out", "2"),
            ("blackbox/3.in", "no output file"),
            ("whitebox/1.in", "w"),
            ("whitebox/1.out", "w"),
            ("top.in", "t"),
            ("top.out", "t"),
            ("notes.txt", ""),
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        let names: Vec<String> = discover(&dir).into_iter().map(|t| t.name).collect();
        assert_eq!(names, vec!["blackbox/1", "blackbox/2", "blackbox/10", "top", "whitebox/1"]);
        assert!(discover(&dir.join("missing")).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn introclass_layout() {
        if let Some(data) = crate::testing::shared_data("introclass") {
            let cases = discover(&data.join("median/tests"));
            assert_eq!(cases.first().map(|c| c.name.as_str()), Some("blackbox/1"));
            assert!(cases.iter().all(|c| c.output.exists()));
        }
    }
}
