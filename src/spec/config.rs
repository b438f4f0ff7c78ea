//! `mend.toml`: the assignment file, found by walking up from a C file's directory.
//!
//! ```toml
//! reference = "reference.c"    # the instructor's solution (optional)
//! tests = "tests"              # a directory of N.in / N.out pairs (optional)
//! compare = "values"           # exact | whitespace | values (default: whitespace)
//! entry = "main"               # the function to compare (default: main)
//! timeout_secs = 10            # per-file analysis budget (default: 10)
//! bound = 8                    # loop / recursion bound for bounded proofs (default: 5)
//! frozen = ["print_result"]    # functions a repair must never change (default: none)
//! flags = "-Wall -Werror -ansi" # the course's compiler flags (default: gcc's defaults)
//! ```
//! Paths are relative to the directory of `mend.toml` and must stay inside it (after resolving
//! `..` and symbolic links). Any problem is a [`ConfigError`] with the line and column of the
//! offending key or value; loading never panics. A path that names nothing usable is kept
//! apart ([`Config::problems`]) so the other spec still applies.

use super::compare::Compare;
use crate::syntax::flags::CompilerFlags;
use serde::Deserialize;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "mend.toml";

/// The loop / recursion bound when mend.toml and the options leave it unset.
pub const DEFAULT_BOUND: u32 = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub reference: Option<PathBuf>,
    pub tests: Option<PathBuf>,
    pub compare: Compare,
    pub entry: String,
    pub timeout_secs: u64,
    pub bound: u32,
    pub frozen: Vec<String>,
    /// The course's compiler flags: what the front end reports beyond plain C.
    pub flags: Option<CompilerFlags>,
    /// The directory holding `mend.toml` (canonical).
    pub root: PathBuf,
    /// A `reference` or `tests` that names nothing usable: left unset, and reported, while
    /// the rest of the file (the other of the two) still checks the program.
    pub problems: Vec<ConfigError>,
}

impl Config {
    /// The defaults, for a file with no `mend.toml` (rooted at `root`).
    pub fn default_at(root: PathBuf) -> Config {
        Config {
            reference: None,
            tests: None,
            compare: Compare::Whitespace,
            entry: "main".into(),
            timeout_secs: 10,
            bound: DEFAULT_BOUND,
            frozen: Vec::new(),
            flags: None,
            root,
            problems: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// One-based; 0 when the error is not tied to a place in the file (e.g. unreadable).
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file.display(), self.line, self.column, self.message)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    reference: Option<toml::Spanned<String>>,
    tests: Option<toml::Spanned<String>>,
    compare: Option<toml::Spanned<String>>,
    entry: Option<toml::Spanned<String>>,
    timeout_secs: Option<toml::Spanned<u64>>,
    bound: Option<toml::Spanned<u32>>,
    frozen: Option<Vec<String>>,
    flags: Option<toml::Spanned<String>>,
}

/// Walks up from `c_file`'s directory (or `c_file` itself when it is a directory) to the first
/// `mend.toml`. `Ok(None)` when there is none.
pub fn discover(c_file: &Path) -> Result<Option<Config>, ConfigError> {
    let start =
        if c_file.is_dir() { c_file.to_path_buf() } else { c_file.parent().map(Path::to_path_buf).unwrap_or_default() };
    let start = if start.as_os_str().is_empty() { PathBuf::from(".") } else { start };
    let start = start.canonicalize().unwrap_or(start);
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return load(&candidate).map(Some);
        }
    }
    Ok(None)
}

/// Reads and checks one `mend.toml`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        message: format!("cannot read {}: {e}", path.display()),
    })?;
    let root = path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    parse(&text, path, &root)
}

/// Checks the text of a `mend.toml` found at `file`, with paths relative to `root`.
pub fn parse(text: &str, file: &Path, root: &Path) -> Result<Config, ConfigError> {
    let at = |offset: usize, message: String| {
        let (line, column) = line_col(text, offset);
        ConfigError { file: file.to_path_buf(), line, column, message }
    };
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        at(offset, e.message().trim().to_string())
    })?;
    let root =
        root.canonicalize().map_err(|e| at(0, format!("cannot resolve the directory {}: {e}", root.display())))?;
    let mut config = Config::default_at(root.clone());
    let resolve = |value: &toml::Spanned<String>, key: &str, want_dir: bool| -> Result<PathBuf, ConfigError> {
        let rel = Path::new(value.get_ref());
        let joined = root.join(rel);
        let real = joined.canonicalize().map_err(|_| {
            at(value.span().start, format!("`{key}` names `{}`, which does not exist next to mend.toml", rel.display()))
        })?;
        if !real.starts_with(&root) {
            return Err(at(
                value.span().start,
                format!(
                    "`{key}` must name something inside the directory of mend.toml, and `{}` is outside it",
                    rel.display()
                ),
            ));
        }
        if want_dir && !real.is_dir() {
            return Err(at(value.span().start, format!("`{key}` must name a directory of N.in / N.out files")));
        }
        if !want_dir && !real.is_file() {
            return Err(at(value.span().start, format!("`{key}` must name a C file")));
        }
        Ok(real)
    };
    if let Some(r) = &raw.reference {
        match resolve(r, "reference", false) {
            Ok(path) => config.reference = Some(path),
            Err(e) => config.problems.push(e),
        }
    }
    if let Some(t) = &raw.tests {
        match resolve(t, "tests", true) {
            Ok(path) => config.tests = Some(path),
            Err(e) => config.problems.push(e),
        }
    }
    if let Some(c) = &raw.compare {
        config.compare = Compare::parse(c.get_ref()).ok_or_else(|| {
            at(c.span().start, format!("unknown compare mode `{}`: use `exact`, `whitespace` or `values`", c.get_ref()))
        })?;
    }
    if let Some(e) = raw.entry {
        if !is_c_identifier(e.get_ref()) {
            return Err(at(e.span().start, format!("`entry` must be a C function name, not `{}`", e.get_ref())));
        }
        config.entry = e.into_inner();
    }
    if let Some(t) = raw.timeout_secs {
        if *t.get_ref() == 0 {
            return Err(at(t.span().start, "`timeout_secs` must be at least 1".into()));
        }
        config.timeout_secs = t.into_inner();
    }
    if let Some(b) = raw.bound {
        if *b.get_ref() == 0 {
            return Err(at(b.span().start, "`bound` must be at least 1".into()));
        }
        config.bound = b.into_inner();
    }
    if let Some(f) = raw.frozen {
        config.frozen = f;
    }
    if let Some(f) = raw.flags {
        config.flags = Some(CompilerFlags::parse(f.get_ref()).map_err(|m| at(f.span().start, m))?);
    }
    Ok(config)
}

fn is_c_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// One-based line and column (in characters) of byte `offset`.
fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line as u32, col as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tmp(PathBuf);
    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tmp(name: &str) -> Tmp {
        let dir = std::env::temp_dir().join(format!("mend-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tests/blackbox")).unwrap();
        std::fs::write(dir.join("ref.c"), "int main(void) { return 0; }\n").unwrap();
        Tmp(dir)
    }

    fn check(name: &str, toml: &str) -> Result<Config, ConfigError> {
        let t = tmp(name);
        std::fs::write(t.0.join(FILE_NAME), toml).unwrap();
        let r = load(&t.0.join(FILE_NAME));
        drop(t);
        r
    }

    #[test]
    fn full_config_and_discovery() {
        let t = tmp("full");
        std::fs::write(
            t.0.join(FILE_NAME),
            "reference = \"ref.c\"\ntests = \"tests\"\ncompare = \"values\"\nentry = \"solve\"\ntimeout_secs = 3\nbound = 4\nfrozen = [\"print_result\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(t.0.join("submissions/a")).unwrap();
        let c = discover(&t.0.join("submissions/a/x.c")).unwrap().unwrap();
        let root = t.0.canonicalize().unwrap();
        assert_eq!(c.root, root);
        assert_eq!(c.reference, Some(root.join("ref.c")));
        assert_eq!(c.tests, Some(root.join("tests")));
        assert_eq!(c.compare, Compare::Values);
        assert_eq!(c.entry, "solve");
        assert_eq!((c.timeout_secs, c.bound), (3, 4));
        assert_eq!(c.frozen, vec!["print_result".to_string()]);
    }

    #[test]
    fn defaults_and_no_file() {
        let c = check("defaults", "").unwrap();
        assert_eq!(c.compare, Compare::Whitespace);
        assert_eq!(c.entry, "main");
        assert!(c.reference.is_none() && c.tests.is_none() && c.frozen.is_empty());
        let t = tmp("none");
        // No mend.toml up to the temp dir's root (assuming none there).
        if !std::env::temp_dir().join(FILE_NAME).exists() && !Path::new("/mend.toml").exists() {
            assert_eq!(discover(&t.0.join("x.c")).unwrap(), None);
        }
    }

    #[test]
    fn invalid_toml() {
        let e = check("invalid", "entry = \"main\"\ncompare = \n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.file.ends_with(FILE_NAME));
    }

    #[test]
    fn unknown_key() {
        let e = check("unknown", "entry = \"main\"\nrefrence = \"ref.c\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1), "{e}");
        assert!(e.message.contains("refrence"), "{e}");
    }

    #[test]
    fn wrong_type() {
        let e = check("type", "\n\nbound = \"eight\"\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = check("type2", "frozen = \"f\"\n").unwrap_err();
        assert_eq!(e.line, 1, "{e}");
    }

    #[test]
    fn unknown_compare_mode() {
        let e = check("mode", "compare = \"fuzzy\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 11), "{e}");
        assert!(e.message.contains("fuzzy") && e.message.contains("values"), "{e}");
    }

    /// The one problem of a file whose `reference` or `tests` names nothing usable: the path
    /// is left unset and the rest of the file still applies.
    fn path_problem(name: &str, text: &str) -> ConfigError {
        let c = check(name, text).expect("a bad path is a problem, not a failed load");
        assert!(c.reference.is_none() && c.tests.is_none(), "{c:?}");
        assert_eq!(c.problems.len(), 1, "{c:?}");
        c.problems[0].clone()
    }

    #[test]
    fn missing_path() {
        let e = path_problem("missing", "# comment\nreference = \"nope.c\"\n");
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("does not exist"), "{e}");
        let e = path_problem("notdir", "tests = \"ref.c\"\n");
        assert!(e.message.contains("directory"), "{e}");
    }

    #[test]
    fn path_outside_root() {
        let e = path_problem("outside", "reference = \"../../../../../../../../etc/hostname\"\n");
        assert_eq!(e.line, 1, "{e}");
        assert!(e.message.contains("inside") || e.message.contains("does not exist"), "{e}");
        let e = path_problem("outside2", "tests = \"..\"\n");
        assert!(e.message.contains("inside"), "{e}");
    }

    #[test]
    fn bad_values() {
        assert!(check("entry", "entry = \"my main\"\n").unwrap_err().message.contains("entry"));
        assert!(check("zero", "bound = 0\n").unwrap_err().message.contains("bound"));
        assert!(check("neg", "timeout_secs = -1\n").is_err());
    }
}
