//! When each repair reached each guarantee. Against a reference the pipeline publishes a fix
//! that passes the tests first and its proof later (`check::anytime`); every report it
//! publishes, partial or final, passes through [`Levels::stamp`], which keeps per repair (its
//! edits) each new guarantee in order with the time it was reached, so a repair carries its
//! own history (`tested` at 40 ms, `bounded` at 300 ms, `verified` at 900 ms).

use std::sync::Mutex;
use std::time::Instant;

use crate::ir::{Reached, TextEdit};

use super::Report;

pub(crate) struct Levels {
    started: Instant,
    seen: Mutex<Vec<(Vec<TextEdit>, Vec<Reached>)>>,
}

impl Levels {
    pub fn new(started: Instant) -> Levels {
        Levels { started, seen: Mutex::new(Vec::new()) }
    }

    /// Records each repair's guarantee if it is new for that repair, and writes each repair's
    /// history into it.
    pub fn stamp(&self, report: &mut Report) {
        let now = self.started.elapsed().as_millis() as u64;
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for repair in &mut report.repairs {
            // A patch is its edits in any order: a proof's repair lists the changes its title
            // names first, the candidate it proves them in the text's order.
            let patch = in_text_order(&repair.edits);
            let at = match seen.iter().position(|(edits, _)| *edits == patch) {
                Some(at) => at,
                None => {
                    seen.push((patch, Vec::new()));
                    seen.len() - 1
                }
            };
            let history = &mut seen[at].1;
            if history.last().is_none_or(|r| r.guarantee != repair.guarantee) {
                history.push(Reached { guarantee: repair.guarantee.clone(), after_ms: now });
            }
            repair.reached = history.clone();
        }
    }
}

/// A patch as one value: its edits in text order (the same edits in another order are the
/// same patch).
pub(super) fn in_text_order(edits: &[TextEdit]) -> Vec<TextEdit> {
    let mut sorted = edits.to_vec();
    sorted.sort_by(|a, b| (a.span.start, a.span.end, &a.new_text).cmp(&(b.span.start, b.span.end, &b.new_text)));
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Guarantee, Repair, Span};

    fn repair(guarantee: Guarantee) -> Repair {
        Repair {
            title: String::new(),
            engine: "mutation",
            guarantee,
            edits: vec![TextEdit { span: Span::new(1, 2), new_text: "<=".into() }],
            places: Vec::new(),
            explanation: String::new(),
            details: String::new(),
            fixes: Vec::new(),
            reached: Vec::new(),
        }
    }

    #[test]
    fn a_repair_keeps_its_history_across_reports() {
        let levels = Levels::new(Instant::now());
        let mut first = Report { repairs: vec![repair(Guarantee::Tested { tests: 3 })], ..Report::default() };
        levels.stamp(&mut first);
        let mut again = first.clone();
        levels.stamp(&mut again);
        assert_eq!(again.repairs[0].reached.len(), 1, "the same level is recorded once");
        let mut proved = Report { repairs: vec![repair(Guarantee::Verified)], ..Report::default() };
        levels.stamp(&mut proved);
        let levels: Vec<&str> = proved.repairs[0].reached.iter().map(|r| r.guarantee.level()).collect();
        assert_eq!(levels, ["tested", "verified"]);
        assert_eq!(
            proved.repairs[0].first_at_least(Guarantee::Tested { tests: 3 }.strength()),
            Some(proved.repairs[0].reached[0].after_ms)
        );
    }

    #[test]
    fn the_same_edits_in_another_order_are_the_same_repair() {
        let levels = Levels::new(Instant::now());
        let two = |g: Guarantee, flip: bool| {
            let mut r = repair(g);
            r.edits.push(TextEdit { span: Span::new(7, 9), new_text: "double".into() });
            if flip {
                r.edits.reverse();
            }
            Report { repairs: vec![r], ..Report::default() }
        };
        levels.stamp(&mut two(Guarantee::Tested { tests: 3 }, false));
        let mut proved = two(Guarantee::Verified, true);
        levels.stamp(&mut proved);
        let levels: Vec<&str> = proved.repairs[0].reached.iter().map(|r| r.guarantee.level()).collect();
        assert_eq!(levels, ["tested", "verified"]);
    }
}
