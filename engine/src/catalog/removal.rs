//! Deleting a dropped table's partitions (and their statistics) in bounded batches.
//!
//! A drop commits one small batch: the table's name and value go, and a pending-removal marker
//! for its id comes. From then on no lookup reaches its partitions (ids are never reused), so
//! deleting them is housekeeping: done right after the commit, in batches of
//! [`REMOVAL_BATCH_KEY_COUNT`] keys, each its own write, and the marker deleted with a table's
//! last keys; one batch may finish many small tables. One
//! batch for a million partitions would hold them all in memory and the writer lock for
//! minutes; this way a drop costs the same memory whatever the table's size, and writers to
//! other tables go on between batches. A crash in the middle leaves the marker, and the next
//! open finishes the job.

use std::sync::atomic::Ordering;

use crate::error::Result;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KeyRange;
use crate::store::{Store, WriteTxn};

/// Keys deleted per write while removing a dropped table's partitions.
pub(crate) const REMOVAL_BATCH_KEY_COUNT: usize = 10_000;

/// Stages, in a drop's batch, the removal of table `id`'s partitions.
pub(crate) fn schedule_partition_removal(txn: &mut WriteTxn<'_>, id: TableId) {
    txn.put_raw(keys::pending_removal_key(id), Vec::new());
}

impl Store {
    /// Runs the sweep after a drop committed. The drop stands whatever happens here: a failure
    /// leaves the marker for the next drop or open to finish, and is only logged.
    pub(crate) fn finish_removals(&self) {
        if let Err(error) = self.sweep_pending_removals() {
            self.usage.removal_failures.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(%error, "deleting a dropped table's partitions failed; the next drop or restart retries");
        }
    }

    /// Deletes the partitions of every dropped table whose removal is pending, batch by batch;
    /// returns how many keys it deleted.
    pub(crate) fn sweep_pending_removals(&self) -> Result<u64> {
        let _running = self.sweeper().hold();
        let markers = KeyRange::prefix(&[keys::KEYSPACE_PENDING_REMOVAL]);
        let tables: Vec<TableId> = self
            .scan(markers)
            .map(|entry| entry.and_then(|(key, _)| keys::decode_pending_removal_key(&key)))
            .collect::<Result<_>>()?;
        let mut done = 0;
        let mut deleted = 0;
        // Batches span tables: a database of a thousand small tables is removed in one write,
        // not in a write per table and keyspace, each waiting for its flush.
        while done < tables.len() {
            let batch = self.write(|txn| remove_batch(txn, &tables, &mut done))?;
            self.usage
                .removal_keys_deleted
                .fetch_add(batch, Ordering::Relaxed);
            deleted += batch;
        }
        Ok(deleted)
    }
}

/// The ranges a dropped table's removal deletes: its statistics, then its partitions.
fn ranges_of_dropped(table: TableId) -> [KeyRange; 6] {
    let stats = |keyspace| KeyRange::prefix(&keys::stats_table_prefix(keyspace, table));
    [
        stats(keys::KEYSPACE_STATS_SLOT),
        stats(keys::KEYSPACE_STATS_CHUNK),
        stats(keys::KEYSPACE_STATS_RECENT),
        stats(keys::KEYSPACE_STATS_SKETCH),
        stats(keys::KEYSPACE_TABLE_STATS),
        KeyRange::prefix(&keys::partition_prefix(table)),
    ]
}

/// Stages the deletion of at most [`REMOVAL_BATCH_KEY_COUNT`] keys of `tables[*done..]`, in
/// order; a table whose keys all go in this batch loses its marker in it too and advances
/// `done`. A table cut short is scanned again by the next batch, which finds its emptied
/// ranges empty. Returns the keys deleted, markers not counted.
fn remove_batch(txn: &mut WriteTxn<'_>, tables: &[TableId], done: &mut usize) -> Result<u64> {
    let mut room = REMOVAL_BATCH_KEY_COUNT;
    let mut deleted = 0;
    while let Some(&table) = tables.get(*done) {
        // The marker was read before this write: a drop the store has since gone back on
        // (its flush failed) must not lose its partitions.
        if txn.get(&keys::pending_removal_key(table))?.is_none() {
            *done += 1;
            continue;
        }
        for range in ranges_of_dropped(table) {
            let keys: Vec<_> = txn
                .scan(range)
                .take(room)
                .map(|entry| entry.map(|(key, _)| key))
                .collect::<Result<_>>()?;
            for key in &keys {
                txn.delete(key.to_vec());
            }
            deleted += keys.len() as u64;
            room -= keys.len();
            if room == 0 {
                return Ok(deleted);
            }
        }
        txn.delete(keys::pending_removal_key(table));
        *done += 1;
        // The marker counts too, so that a batch stays bounded however many tables it ends.
        room -= 1;
        if room == 0 {
            break;
        }
    }
    Ok(deleted)
}
