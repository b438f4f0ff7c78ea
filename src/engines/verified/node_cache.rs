//! Node results across runs (Deliver 5b: the server re-checks after every edit, and most edits
//! leave most nodes' repair problems as they were). Keyed by a 128-bit digest of the problem
//! ([`super::Job`]'s `problem_key`): the structural fingerprint of the node's check over all
//! alternatives ([`crate::smt::fingerprint`]), and how they are ranked. A problem too large to
//! fingerprint is solved without the cache. An answer is the chosen alternative per hole (in hole order), or `None`
//! when the space has no repair; timeouts and solver failures are never stored.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Entries kept (oldest dropped first): a node's answer is a few bytes.
const CAPACITY: usize = 4096;

#[derive(Default)]
struct Cache {
    answers: HashMap<u128, Option<Vec<usize>>>,
    order: VecDeque<u128>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

pub fn get(key: u128) -> Option<Option<Vec<usize>>> {
    let guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_ref()?.answers.get(&key).cloned()
}

pub fn put(key: u128, answer: Option<Vec<usize>>) {
    let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = guard.get_or_insert_with(Cache::default);
    if cache.answers.insert(key, answer).is_none() {
        cache.order.push_back(key);
        if cache.order.len() > CAPACITY
            && let Some(old) = cache.order.pop_front()
        {
            cache.answers.remove(&old);
        }
    }
}

/// Forgets every answer (tests that must solve).
#[cfg(test)]
pub fn clear() {
    *CACHE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}
