//! Diagnostics as plain data with byte spans; the server and CLI convert spans to positions.

use super::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub severity: Severity,
    /// A stable machine-readable code such as `syntax`, `undeclared`, `test-failed`.
    pub code: &'static str,
    pub message: String,
    pub related: Vec<Related>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic { span, severity, code, message: message.into(), related: Vec::new() }
    }
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, span, message)
    }
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, span, message)
    }
    pub fn info(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Self::new(Severity::Information, code, span, message)
    }
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related { span, message: message.into() });
        self
    }
}
