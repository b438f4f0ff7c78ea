//! The resources one solver job may use: a wall-clock deadline and a cancellation token.

use std::time::{Duration, Instant};

use crate::cancel::Cancel;

use super::solver::UnknownReason;

#[derive(Clone, Debug)]
pub struct Budget {
    pub deadline: Instant,
    pub cancel: Cancel,
}

impl Budget {
    /// A budget of `timeout` from now.
    pub fn new(timeout: Duration, cancel: Cancel) -> Budget {
        Budget { deadline: deadline_after(timeout), cancel }
    }

    /// No deadline to speak of (a day); cancellation only.
    pub fn unlimited(cancel: Cancel) -> Budget {
        Budget::new(Duration::from_secs(24 * 3600), cancel)
    }

    /// Time left before the deadline (zero once past it).
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Why no further work may start: cancelled (checked first) or out of time.
    pub fn stop_reason(&self) -> Option<UnknownReason> {
        if self.cancel.is_cancelled() {
            Some(UnknownReason::Cancelled)
        } else if Instant::now() >= self.deadline {
            Some(UnknownReason::Timeout)
        } else {
            None
        }
    }

    pub fn is_exhausted(&self) -> bool {
        self.stop_reason().is_some()
    }

    /// A sub-budget of at most `max` from now, never beyond this budget's deadline, sharing its
    /// cancellation token (for one query of a larger job).
    pub fn sub(&self, max: Duration) -> Budget {
        Budget { deadline: self.deadline.min(deadline_after(max)), cancel: self.cancel.clone() }
    }
}

fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d).unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reason_prefers_cancel() {
        let c = Cancel::new();
        let b = Budget::new(Duration::ZERO, c.clone());
        assert_eq!(b.stop_reason(), Some(UnknownReason::Timeout));
        c.cancel();
        assert_eq!(b.stop_reason(), Some(UnknownReason::Cancelled));
    }

    #[test]
    fn sub_budget_is_capped() {
        let b = Budget::new(Duration::from_millis(50), Cancel::new());
        let s = b.sub(Duration::from_secs(10));
        assert!(s.deadline <= b.deadline);
        let s2 = b.sub(Duration::from_millis(1));
        assert!(s2.deadline < b.deadline);
        assert!(Budget::unlimited(Cancel::new()).remaining() > Duration::from_secs(3600));
        assert!(!b.is_exhausted());
    }
}
