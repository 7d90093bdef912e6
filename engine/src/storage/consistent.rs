//! Consistent partition listings without a lock that stalls writers.
//!
//! The backend applies a batch atomically for point reads, but a listing is a scan in pages,
//! and a batch applied between two pages (or in the middle of one) would show a listing half
//! of it. Writers are already serialised (the store's writer lock); around each batch they
//! bump, for every table whose partitions it touches, that table's stripe of a striped
//! sequence lock (odd while applying). A listing reads its stripe before and after its scan
//! and scans again if it moved. After a few failed attempts (a table under a steady stream of
//! writes) it scans once holding the writer lock: writers then wait for that one scan.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::storage::keys::{self, TableId};
use crate::storage::kv::{WriteBatch, WriteOp};

/// Stripes of the sequence lock; tables share a stripe when their ids are equal modulo this,
/// which costs only a needless retry now and then.
pub(crate) const STRIPE_COUNT: usize = 64;
/// Optimistic scans before a listing takes the writer lock.
pub(crate) const OPTIMISTIC_ATTEMPT_COUNT: usize = 8;

/// The striped sequence lock.
pub(crate) struct PartitionVersions {
    stripes: [AtomicU64; STRIPE_COUNT],
}

/// The stripes a batch touches, as a bit set.
#[derive(Clone, Copy, Default)]
pub(crate) struct Stripes(u64);

impl Stripes {
    /// Every stripe: what the store going back to its durable state touches.
    pub(crate) fn all() -> Self {
        Stripes(if STRIPE_COUNT >= 64 {
            u64::MAX
        } else {
            (1u64 << STRIPE_COUNT) - 1
        })
    }

    /// Whether no stripe is touched.
    pub(crate) fn is_empty(&self) -> bool {
        self.0 == 0
    }
}

fn stripe_of(table: u64) -> usize {
    (table % STRIPE_COUNT as u64) as usize
}

/// The stripes of the tables `table_of` finds in the keys `batch` writes.
fn stripes_of(batch: &WriteBatch, table_of: impl Fn(&[u8]) -> Option<u64>) -> Stripes {
    let mut stripes = 0u64;
    for op in batch.ops() {
        let key = match op {
            WriteOp::Put { key, .. } | WriteOp::Delete { key } => key,
        };
        if let Some(table) = table_of(key) {
            stripes |= 1 << stripe_of(table);
        }
    }
    Stripes(stripes)
}

impl PartitionVersions {
    pub(crate) fn new() -> Self {
        PartitionVersions {
            stripes: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// The stripes of the tables whose partitions (or partition descriptors) `batch` writes.
    pub(crate) fn touched_by(batch: &WriteBatch) -> Stripes {
        // Partition statistics keys too: readers keep decoded chunks by these versions
        // (`stats/kept_chunks.rs`).
        stripes_of(batch, |key| {
            keys::partition_table_id(key).or_else(|| keys::stats_partition_level_table_id(key))
        })
    }

    /// The stripes of the tables whose statistics slots `batch` writes (index entries or
    /// counter): a kept slot index (`stats/kept_slots.rs`) holds until one of these, so
    /// statistics writes to partitions that have slots do not drop it.
    pub(crate) fn slots_touched_by(batch: &WriteBatch) -> Stripes {
        stripes_of(batch, keys::stats_slot_table_id)
    }

    /// Marks `stripes` as being written (odd) or written (even again).
    pub(crate) fn bump(&self, stripes: Stripes) {
        for (index, stripe) in self.stripes.iter().enumerate() {
            if stripes.0 & (1 << index) != 0 {
                stripe.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// The stripe `table` shares with others.
    pub(crate) fn stripe_of(table: TableId) -> usize {
        stripe_of(table.0)
    }

    /// The version stripe `stripe` will have once the batch about to be applied has moved it
    /// (twice, see [`PartitionVersions::bump`]). Only writers, under the writer lock, move
    /// stripes, so it holds when asked there before the batch.
    pub(crate) fn version_after_batch(&self, stripe: usize) -> u64 {
        self.stripes[stripe].load(Ordering::SeqCst) + 2
    }

    /// Moves `table`'s stripe as one applied batch does.
    #[cfg(test)]
    pub(crate) fn bump_stripe_twice_for_test(&self, table: TableId) {
        let stripes = Stripes(1 << stripe_of(table.0));
        self.bump(stripes);
        self.bump(stripes);
    }

    /// The version of `table`'s stripe, or `None` while a batch touching it is applied.
    pub(crate) fn stable_version(&self, table: TableId) -> Option<u64> {
        let version = self.stripes[stripe_of(table.0)].load(Ordering::SeqCst);
        version.is_multiple_of(2).then_some(version)
    }

    /// Whether `table`'s stripe still has `version`.
    pub(crate) fn unchanged(&self, table: TableId, version: u64) -> bool {
        self.stripes[stripe_of(table.0)].load(Ordering::SeqCst) == version
    }
}
