//! The server-wide budget for bytes of unfinished messages.
//!
//! Each connection reads into a buffer of its own; one that grows for a big message takes the
//! growth from this budget first, and gives it back when the buffer shrinks again. Without it,
//! every connection could hold a message at the size limit at once.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes taken from the budget by all connections' read buffers.
#[derive(Debug, Default)]
pub struct InflightBytes {
    used: AtomicUsize,
}

impl InflightBytes {
    /// Takes `bytes` if the total taken stays within `max`.
    pub fn try_take(&self, bytes: usize, max: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|total| *total <= max)
            })
            .is_ok()
    }

    /// Gives back `bytes` taken before.
    pub fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Bytes taken now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_only_within_the_max_and_gives_back() {
        let budget = InflightBytes::default();
        assert!(budget.try_take(60, 100));
        assert!(!budget.try_take(41, 100));
        assert!(budget.try_take(40, 100));
        budget.give_back(60);
        assert_eq!(budget.used(), 40);
        assert!(!budget.try_take(usize::MAX, usize::MAX));
    }
}
