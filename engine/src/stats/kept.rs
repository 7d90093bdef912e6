//! What the statistics keep in memory for the store: slot indexes and decoded chunks, kept
//! per version, and the change records that bring a kept one up to date. The store moves them
//! around every batch it applies (`store.rs`).

use super::chunk_changes::ChunkChanges;
use super::kept_chunks::KeptChunks;
use super::kept_slots::KeptSlots;
use super::slot_changes::SlotChanges;
use crate::storage::consistent::{PartitionVersions, Stripes};
use crate::storage::kv::WriteBatch;

/// What the statistics keep and their change records, shared by every reader of a store.
pub(crate) struct KeptStats {
    /// Moved by batches that write statistics slots only (see `kept_slots.rs`).
    pub(crate) slot_versions: PartitionVersions,
    /// Partition names resolved to statistics slots, per version of slot changes.
    pub(crate) slots: KeptSlots,
    /// Which slot keys each batch changed, to bring a kept slot index up to date.
    pub(crate) slot_changes: SlotChanges,
    /// Columns' statistics chunks decoded, per table version.
    pub(crate) chunks: KeptChunks,
    /// Which statistics chunks batches changed, per version.
    pub(crate) changes: ChunkChanges,
}

impl KeptStats {
    /// Nothing kept yet.
    pub(crate) fn new() -> Self {
        KeptStats {
            slot_versions: PartitionVersions::new(),
            slots: KeptSlots::default(),
            slot_changes: SlotChanges::default(),
            chunks: KeptChunks::default(),
            changes: ChunkChanges::default(),
        }
    }

    /// Records what `batch` changes, whose slot stripes are `slot_stripes`: chunks against
    /// `partition_versions`, slots against the slot versions. Called before the stripes move,
    /// so that a reader at their new version finds it.
    pub(crate) fn record(
        &self,
        batch: &WriteBatch,
        partition_versions: &PartitionVersions,
        slot_stripes: Stripes,
    ) {
        self.changes.record(batch, partition_versions);
        if !slot_stripes.is_empty() {
            self.slot_changes.record(batch, &self.slot_versions);
        }
    }

    /// Forgets every change record, as the store goes back to its durable state.
    pub(crate) fn forget_all(&self, partition_versions: &PartitionVersions) {
        self.changes.forget_all(partition_versions);
        self.slot_changes.forget_all(&self.slot_versions);
    }
}
