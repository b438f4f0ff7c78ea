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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            check: CheckOptions::default(),
            debounce: Duration::from_millis(150),
            progress_delay: Duration::from_millis(200),
            max_analysis_bytes: 1 << 20,
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
                "timeout" => secs(v).map(|d| self.check.timeout = Some(d)).is_some(),
                "bound" => v.as_u64().filter(|b| *b >= 1).map(|b| self.check.bound = Some(b.min(u32::MAX as u64) as u32)).is_some(),
                "syntaxDiagnostics" => v.as_bool().map(|b| self.check.syntax_diagnostics = b).is_some(),
                "runTests" => v.as_bool().map(|b| self.check.run_tests = b).is_some(),
                "repairAssertions" => v.as_bool().map(|b| self.check.repair_assertions = b).is_some(),
                "mutationLevel" => v.as_u64().filter(|l| (1..=2).contains(l)).map(|l| self.check.mutation_level = l as u8).is_some(),
                "typedRepairs" => v.as_u64().filter(|n| *n <= 20).map(|n| self.check.typed_repairs = n as usize).is_some(),
                "maxRepairSize" => v.as_u64().filter(|n| (1..=8).contains(n)).map(|n| self.check.max_repair_size = n as usize).is_some(),
                "debounceMs" => v.as_u64().map(|ms| self.debounce = Duration::from_millis(ms)).is_some(),
                "progressDelayMs" => {
                    v.as_u64().map(|ms| self.progress_delay = Duration::from_millis(ms)).is_some()
                }
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
        assert!(s.update(&json!({"mutationLevel": 2, "maxRepairSize": 3, "repairAssertions": false})).is_empty());
        assert!(s.update(&json!({"typedRepairs": 5})).is_empty());
        assert_eq!(s.check.typed_repairs, 5);
        assert_eq!(s.update(&json!({"typedRepairs": 99})).len(), 1, "at most 20");
        assert_eq!((s.check.mutation_level, s.check.max_repair_size, s.check.repair_assertions), (2, 3, false));
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
}
