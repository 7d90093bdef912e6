//! What the catalog keeps in the store beside its keys: the lock that serialises sweeps of
//! dropped tables' partitions (`removal.rs`).

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Serialises sweeps: a drop that waits here finds its own marker in the sweep it runs next.
#[derive(Default)]
pub(crate) struct Sweeper {
    running: Mutex<()>,
}

impl Sweeper {
    /// Waits for the sweep running, if any; a sweep runs while the guard lives. A poisoned
    /// lock is taken all the same: it guards no data.
    pub(crate) fn hold(&self) -> MutexGuard<'_, ()> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
