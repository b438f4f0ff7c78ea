//! Client settings (`initializationOptions`, `workspace/didChangeConfiguration`) mapped onto
//! [`CheckOptions`] plus the server's own knobs.
//!
//! Accepted shapes: `{ "mend": { ... } }` or the bare object `{ ... }`. Unknown keys are ignored,
//! a key with a wrong type is ignored with a warning (the previous value stays).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::check::CheckOptions;
use crate::spec::compare::Compare;

#[derive(Clone, Debug)]
pub struct Settings {
    pub check: CheckOptions,
    /// Quiet time after the last edit before analysis starts.
    pub debounce: Duration,
    /// A job running longer than this gets a work-done progress indicator.
    pub progress_delay: Duration,
    /// Files larger than this get syntax diagnostics only (no analysis).
    pub max_analysis_bytes: usize,
    /// `syntaxDiagnostics`: whether mend shows its own syntax and type diagnostics.
    pub syntax_mode: SyntaxMode,
    /// `otherCServer`: the editor runs another C language server (clangd) on the same files.
    pub other_c_server: bool,
}

/// `syntaxDiagnostics`: `"auto"` (default) shows mend's syntax and type diagnostics unless the
/// editor says another C server is attached (`otherCServer: true`); `"on"`/`true` and
/// `"off"`/`false` decide regardless. Repair, test and assertion diagnostics are never hidden.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyntaxMode {
    #[default]
    Auto,
    On,
    Off,
}

impl SyntaxMode {
    fn parse(v: &Value) -> Option<SyntaxMode> {
        match v {
            Value::Bool(true) => Some(SyntaxMode::On),
            Value::Bool(false) => Some(SyntaxMode::Off),
            Value::Null => Some(SyntaxMode::Auto),
            Value::String(s) => match s.as_str() {
                "auto" => Some(SyntaxMode::Auto),
                "on" => Some(SyntaxMode::On),
                "off" => Some(SyntaxMode::Off),
                _ => None,
            },
            _ => None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            check: CheckOptions::default(),
            debounce: Duration::from_millis(150),
            progress_delay: Duration::from_millis(200),
            max_analysis_bytes: 1 << 20,
            syntax_mode: SyntaxMode::Auto,
            other_c_server: false,
        }
    }
}

impl Settings {
    /// Applies the keys present in `value` on top of `self`; returns the keys it could not use.
    pub fn update(&mut self, value: &Value) -> Vec<String> {
        let mut rejected = Vec::new();
        let obj = match value.get("mend") {
            Some(Value::Object(inner)) => inner,
            _ => match value {
                Value::Object(obj) => obj,
                Value::Null => return rejected,
                _ => {
                    rejected.push("settings (not an object)".into());
                    return rejected;
                }
            },
        };
        for (key, v) in obj {
            let ok = match key.as_str() {
                // `null` (an editor setting left empty) means mend.toml's value or the default.
                "timeout" if v.is_null() => {
                    self.check.timeout = None;
                    true
                }
                "bound" if v.is_null() => {
                    self.check.bound = None;
                    true
                }
                "timeout" => secs(v).map(|d| self.check.timeout = Some(d)).is_some(),
                "bound" => v
                    .as_u64()
                    .filter(|b| *b >= 1)
                    .map(|b| self.check.bound = Some(b.min(u32::MAX as u64) as u32))
                    .is_some(),
                "syntaxDiagnostics" => SyntaxMode::parse(v).map(|m| self.syntax_mode = m).is_some(),
                "otherCServer" => v.as_bool().map(|b| self.other_c_server = b).is_some(),
                "hintLevel" => {
                    v.as_str().and_then(crate::check::HintLevel::parse).map(|h| self.check.hint_level = h).is_some()
                }
                "runTests" => v.as_bool().map(|b| self.check.run_tests = b).is_some(),
                "repairAssertions" => v.as_bool().map(|b| self.check.repair_assertions = b).is_some(),
                "repairTests" => v.as_bool().map(|b| self.check.repair_tests = b).is_some(),
                "repairReference" => v.as_bool().map(|b| self.check.repair_reference = b).is_some(),
                "mutationLevel" => {
                    v.as_u64().filter(|l| (1..=2).contains(l)).map(|l| self.check.mutation_level = l as u8).is_some()
                }
                "typedRepairs" => {
                    v.as_u64().filter(|n| *n <= 20).map(|n| self.check.typed_repairs = n as usize).is_some()
                }
                "maxRepairSize" => v
                    .as_u64()
                    .filter(|n| (1..=8).contains(n))
                    .map(|n| self.check.max_repair_size = n as usize)
                    .is_some(),
                "debounceMs" => v.as_u64().map(|ms| self.debounce = Duration::from_millis(ms)).is_some(),
                "progressDelayMs" => v.as_u64().map(|ms| self.progress_delay = Duration::from_millis(ms)).is_some(),
                "maxAnalysisBytes" => v.as_u64().map(|n| self.max_analysis_bytes = n as usize).is_some(),
                "reference" => opt_path(v).map(|p| self.check.reference = p).is_some(),
                "tests" => opt_path(v).map(|p| self.check.tests = p).is_some(),
                "compare" => match v {
                    Value::Null => {
                        self.check.compare = None;
                        true
                    }
                    Value::String(s) => Compare::parse(s).map(|c| self.check.compare = Some(c)).is_some(),
                    _ => false,
                },
                _ => true, // unknown keys are for other versions or other tools
            };
            if !ok {
                rejected.push(format!("{key} = {v}"));
            }
        }
        self.check.syntax_diagnostics = match self.syntax_mode {
            SyntaxMode::Auto => !self.other_c_server,
            SyntaxMode::On => true,
            SyntaxMode::Off => false,
        };
        rejected
    }
}

/// Seconds as a number (fractions allowed), positive and finite.
fn secs(v: &Value) -> Option<Duration> {
    let s = v.as_f64()?;
    (s.is_finite() && s > 0.0 && s < 1e9).then(|| Duration::from_secs_f64(s))
}

fn opt_path(v: &Value) -> Option<Option<PathBuf>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if s.is_empty() => Some(None),
        Value::String(s) => Some(Some(PathBuf::from(s))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrapped_and_bare_shapes() {
        let mut s = Settings::default();
        assert!(s.update(&json!({"mend": {"timeout": 2.5, "bound": 7, "debounceMs": 10}})).is_empty());
        assert_eq!(s.check.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(s.check.bound, Some(7));
        assert_eq!(s.debounce, Duration::from_millis(10));
        assert!(s.update(&json!({"syntaxDiagnostics": false, "runTests": false, "compare": "values"})).is_empty());
        assert!(
            s.update(&json!({"mutationLevel": 2, "maxRepairSize": 3, "repairAssertions": false, "repairTests": false}))
                .is_empty()
        );
        assert!(s.update(&json!({"typedRepairs": 5})).is_empty());
        assert_eq!(s.check.typed_repairs, 5);
        assert_eq!(s.update(&json!({"typedRepairs": 99})).len(), 1, "at most 20");
        assert_eq!((s.check.mutation_level, s.check.max_repair_size, s.check.repair_assertions), (2, 3, false));
        assert!(!s.check.repair_tests);
        assert_eq!(s.update(&json!({"mutationLevel": 3})).len(), 1, "level 3 does not exist");
        assert!(!s.check.syntax_diagnostics);
        assert!(!s.check.run_tests);
        assert_eq!(s.check.compare, Some(Compare::Values));
    }

    #[test]
    fn bad_values_are_rejected_and_keep_the_old_value() {
        let mut s = Settings::default();
        let rejected = s.update(&json!({"timeout": "soon", "bound": -1, "compare": "fuzzy", "other": 1}));
        assert_eq!(rejected.len(), 3);
        assert_eq!(s.check.timeout, None);
        assert_eq!(s.check.bound, None);
        assert_eq!(s.check.compare, None);
    }

    #[test]
    fn syntax_diagnostics_auto_follows_other_c_server() {
        let mut s = Settings::default();
        assert!(s.check.syntax_diagnostics, "alone, mend shows syntax errors");
        assert!(s.update(&json!({"otherCServer": true})).is_empty());
        assert!(!s.check.syntax_diagnostics, "auto + clangd: clangd shows them");
        assert!(s.update(&json!({"syntaxDiagnostics": "on"})).is_empty());
        assert!(s.check.syntax_diagnostics, "on wins over otherCServer");
        assert!(s.update(&json!({"syntaxDiagnostics": "auto", "otherCServer": false})).is_empty());
        assert!(s.check.syntax_diagnostics);
        assert!(s.update(&json!({"syntaxDiagnostics": false})).is_empty());
        assert!(!s.check.syntax_diagnostics, "a bool still works");
        assert_eq!(s.update(&json!({"syntaxDiagnostics": "sometimes", "otherCServer": "yes"})).len(), 2);
        assert_eq!(s.syntax_mode, SyntaxMode::Off, "a bad value keeps the old one");
    }

    #[test]
    fn null_bound_and_timeout_mean_unset_and_unknown_keys_pass() {
        let mut s = Settings::default();
        assert!(s.update(&json!({"bound": 3, "timeout": 4})).is_empty());
        assert!(s.update(&json!({"bound": null, "timeout": null, "hintLevel": "location"})).is_empty());
        assert_eq!((s.check.bound, s.check.timeout), (None, None));
    }
}
