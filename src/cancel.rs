//! Cooperative cancellation shared by every long-running job: the server cancels the job of an
//! outdated document version; the interpreter polls it, the SMT layer forwards it to Z3.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<Token>);

#[derive(Debug, Default)]
struct Token {
    flag: AtomicBool,
    /// A child token is cancelled with its parent (a search stopped early by its caller still
    /// stops when the whole job is cancelled).
    parent: Option<Cancel>,
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// A token cancelled by its own `cancel` or by this one's.
    pub fn child(&self) -> Cancel {
        Cancel(Arc::new(Token { flag: AtomicBool::new(false), parent: Some(self.clone()) }))
    }

    pub fn cancel(&self) {
        self.0.flag.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.flag.load(Ordering::Relaxed) || self.0.parent.as_ref().is_some_and(Cancel::is_cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::Cancel;

    #[test]
    fn a_child_stops_with_its_parent_not_the_parent_with_the_child() {
        let parent = Cancel::new();
        let (a, b) = (parent.child(), parent.child());
        a.cancel();
        assert!(a.is_cancelled() && !b.is_cancelled() && !parent.is_cancelled());
        parent.cancel();
        assert!(b.is_cancelled());
    }
}
