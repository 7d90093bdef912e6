//! What a reply may show: only state that is durable.
//!
//! A writer applies its batch to the backend, where readers can see it at once, and then waits
//! for the group commit's flush. A reader that answered from such a batch before the flush
//! could show a client a table, a partition or an event id that a crash then loses (and an id
//! that is later given to another event). So every answer is *settled* before it is sent
//! ([`crate::Store::settle`]): it waits until every batch applied before it was formed is
//! durable, asking for a flush if none is coming. With no write in flight that is two atomic
//! loads; a read made while writes are in flight waits for their flush (a millisecond or two),
//! as a reader of PostgreSQL or SQLite sees a write only once it has committed.
//!
//! If a flush (or an apply) fails, the batches applied since the last good flush may never
//! reach the disk. The store then goes back to its durable state (the backend reopens,
//! [`crate::storage::kv::KvBackend::reopen`]): those batches are gone for readers at once, their
//! writers were answered with the error, and any answer formed while they were visible fails
//! to settle, because the store's *epoch* moved during its call.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

thread_local! {
    /// The epochs before and after the last write of this thread that failed and made the
    /// store go back: the epoch moved by a call's own failure does not fail its answer.
    static OWN_FAILURE: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
}

/// Sequence numbers of the batches applied, and how far they are durable.
#[derive(Debug, Default)]
pub(crate) struct Visibility {
    /// The last batch whose apply began. Moved under the writer lock before the apply, so
    /// that a reader who sees a batch's effects also sees its number here.
    begun: AtomicU64,
    /// The last batch whose apply returned (under the writer lock, so every batch up to it
    /// has returned).
    applied: AtomicU64,
    /// Every batch up to this one is durable, or was dropped by a reopen.
    durable: AtomicU64,
    /// Moved by every reopen.
    epoch: AtomicU64,
    /// Set by a failed apply or flush, until the store is back at its durable state.
    broken: AtomicBool,
    /// How many times the store went back to its durable state.
    reopen_count: AtomicU64,
}

/// Taken when a call begins, handed to [`crate::Store::settle`] before its answer goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMark {
    epoch: u64,
}

impl Visibility {
    /// A mark for a call beginning now, on the thread that serves it.
    pub(crate) fn mark(&self) -> ReadMark {
        OWN_FAILURE.with(|own| own.set(None));
        ReadMark {
            epoch: self.epoch.load(Ordering::SeqCst),
        }
    }

    /// Numbers the batch about to be applied; call under the writer lock.
    pub(crate) fn begin_apply(&self) -> u64 {
        self.begun.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Records that the apply of batch `sequence` returned; call under the writer lock.
    pub(crate) fn end_apply(&self, sequence: u64) {
        self.applied.store(sequence, Ordering::SeqCst);
    }

    /// The batches a flush starting now will make durable: every one applied so far.
    pub(crate) fn applied(&self) -> u64 {
        self.applied.load(Ordering::SeqCst)
    }

    /// Records a flush that made every batch up to `applied` durable.
    pub(crate) fn flushed(&self, applied: u64) {
        self.durable.fetch_max(applied, Ordering::SeqCst);
    }

    /// Whether every batch whose effects a reader could have seen by now is durable.
    pub(crate) fn all_seen_durable(&self) -> bool {
        self.durable.load(Ordering::SeqCst) >= self.begun.load(Ordering::SeqCst)
    }

    /// Whether a reopen happened since `mark` was taken.
    pub(crate) fn moved_since(&self, mark: ReadMark) -> bool {
        self.epoch.load(Ordering::SeqCst) != mark.epoch
    }

    /// Records that this thread's write, begun at `epoch_at_start`, failed; the epoch may
    /// have moved because of it.
    pub(crate) fn own_write_failed(&self, epoch_at_start: u64) {
        let now = self.epoch();
        OWN_FAILURE.with(|own| own.set(Some((epoch_at_start, now))));
    }

    /// Whether every move of the epoch since `mark` was the doing of this thread's own failed
    /// write (the call then answers with that write's error).
    pub(crate) fn moved_by_own_failure(&self, mark: ReadMark) -> bool {
        let now = self.epoch();
        OWN_FAILURE.with(|own| own.get()) == Some((mark.epoch, now))
    }

    pub(crate) fn set_broken(&self) {
        self.broken.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_broken(&self) -> bool {
        self.broken.load(Ordering::SeqCst)
    }

    /// Starts a reopen: marks taken before it no longer settle. Under the writer lock.
    pub(crate) fn begin_reopen(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Ends a successful reopen: what is readable now is what is on disk. Under the writer
    /// lock, so no apply is in progress.
    pub(crate) fn end_reopen(&self) {
        self.durable
            .fetch_max(self.begun.load(Ordering::SeqCst), Ordering::SeqCst);
        self.broken.store(false, Ordering::SeqCst);
        self.reopen_count.fetch_add(1, Ordering::SeqCst);
    }

    /// The epoch, for state reloaded after a reopen (the lock table).
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    pub(crate) fn reopen_count(&self) -> u64 {
        self.reopen_count.load(Ordering::SeqCst)
    }
}
