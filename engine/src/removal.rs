//! Deleting a dropped table's partitions (and their statistics) in bounded batches.
//!
//! A drop commits one small batch: the table's name and value go, and a pending-removal marker
//! for its id comes. From then on no lookup reaches its partitions (ids are never reused), so
//! deleting them is housekeeping: done right after the commit, in batches of
//! [`REMOVAL_BATCH_KEY_COUNT`] keys, each its own write, and the marker deleted last. One
//! batch for a million partitions would hold them all in memory and the writer lock for
//! minutes; this way a drop costs the same memory whatever the table's size, and writers to
//! other tables go on between batches. A crash in the middle leaves the marker, and the next
//! open finishes the job.

use std::sync::{Mutex, PoisonError};

use crate::error::Result;
use crate::keys::{self, TableId};
use crate::kv::KeyRange;
use crate::store::{Store, WriteTxn};

/// Keys deleted per write while removing a dropped table's partitions.
pub(crate) const REMOVAL_BATCH_KEY_COUNT: usize = 10_000;

/// Serialises sweeps: a drop that waits here finds its own marker in the sweep it runs next.
#[derive(Default)]
pub(crate) struct Sweeper {
    running: Mutex<()>,
}

/// Stages, in a drop's batch, the removal of table `id`'s partitions.
pub(crate) fn schedule_partition_removal(txn: &mut WriteTxn<'_>, id: TableId) {
    txn.put_raw(keys::pending_removal_key(id), Vec::new());
}

impl Store {
    /// Runs the sweep after a drop committed. The drop stands whatever happens here: a failure
    /// leaves the marker for the next drop or open to finish, and is only logged.
    pub(crate) fn finish_removals(&self) {
        if let Err(error) = self.sweep_pending_removals() {
            tracing::warn!(%error, "deleting a dropped table's partitions failed; the next drop or restart retries");
        }
    }

    /// Deletes the partitions of every dropped table whose removal is pending, batch by batch;
    /// returns how many keys it deleted.
    pub(crate) fn sweep_pending_removals(&self) -> Result<u64> {
        let _running = self
            .sweeper()
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let markers = KeyRange::prefix(&[keys::KEYSPACE_PENDING_REMOVAL]);
        let tables: Vec<TableId> = self
            .scan(markers)
            .map(|entry| entry.and_then(|(key, _)| keys::decode_pending_removal_key(&key)))
            .collect::<Result<_>>()?;
        let mut deleted = 0;
        for table in tables {
            deleted += self.remove_partitions_of_dropped(table)?;
        }
        Ok(deleted)
    }

    /// Deletes a dropped table's partitions and their statistics, the marker last.
    fn remove_partitions_of_dropped(&self, table: TableId) -> Result<u64> {
        let stats = [
            keys::KEYSPACE_STATS_SLOT,
            keys::KEYSPACE_STATS_CHUNK,
            keys::KEYSPACE_STATS_SKETCH,
            keys::KEYSPACE_TABLE_STATS,
        ]
        .map(|keyspace| keys::stats_table_prefix(keyspace, table));
        let mut deleted = 0;
        for prefix in stats {
            deleted += self.remove_range(table, KeyRange::prefix(&prefix), false)?;
        }
        let partitions = KeyRange::prefix(&keys::partition_prefix(table));
        deleted += self.remove_range(table, partitions, true)?;
        Ok(deleted)
    }

    /// Deletes `range` batch by batch; with `last`, the table's marker goes with the final batch.
    fn remove_range(&self, table: TableId, range: KeyRange, last: bool) -> Result<u64> {
        let mut deleted = 0;
        loop {
            let batch = self.write(|txn| {
                let keys: Vec<_> = txn
                    .scan(range.clone())
                    .take(REMOVAL_BATCH_KEY_COUNT)
                    .map(|entry| entry.map(|(key, _)| key))
                    .collect::<Result<_>>()?;
                for key in &keys {
                    txn.delete(key.to_vec());
                }
                if last && keys.len() < REMOVAL_BATCH_KEY_COUNT {
                    txn.delete(keys::pending_removal_key(table));
                }
                Ok(keys.len())
            })?;
            deleted += batch as u64;
            if batch < REMOVAL_BATCH_KEY_COUNT {
                return Ok(deleted);
            }
        }
    }
}
