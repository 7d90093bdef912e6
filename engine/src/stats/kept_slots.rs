//! Partition names resolved to slots, kept per table: an aggregation over 10k partitions
//! would otherwise scan the table's whole slot index and rebuild every partition's name on
//! each call.
//!
//! An entry is valid for one version of the table's stripe of the store's slot versions, a
//! sequence lock moved only by batches that write statistics slot keys (a first statistics
//! write for a partition, a partition dropped or renamed, a table removed: `consistent.rs`,
//! `Store::write`). Statistics rewritten for partitions that already have slots leave it, so
//! an aggregation after such a write does not scan the index again. An entry is kept only if
//! that version did not move during its scan.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::storage::keys::TableId;

/// Slots by partition name. Names are the clients' (any partition they created), so the map
/// hashes with std's randomly keyed SipHash: a fixed hash such as Fx lets a client choose names
/// that all collide and make every index build quadratic.
pub(crate) type SlotsByName = HashMap<Box<str>, u32>;

/// Tables whose slot index is kept; past it every index is dropped (they refill on use).
pub(crate) const KEPT_TABLE_COUNT_MAX: usize = 32;
/// Slots above which a table's index is not kept (its memory would outweigh a scan).
pub(crate) const KEPT_SLOT_COUNT_MAX: usize = 1 << 20;

/// One table's partition names and their slots, at one version of its slot changes.
pub(crate) struct SlotIndex {
    pub(crate) version: u64,
    pub(crate) by_name: SlotsByName,
}

/// The kept slot indexes, shared by every reader of a store.
#[derive(Default)]
pub(crate) struct KeptSlots {
    tables: Mutex<HashMap<TableId, Arc<SlotIndex>>>,
}

impl KeptSlots {
    /// The index of `table` built at slot version `version`, if kept.
    pub(crate) fn get(&self, table: TableId, version: u64) -> Option<Arc<SlotIndex>> {
        let tables = self.tables.lock().ok()?;
        tables
            .get(&table)
            .filter(|index| index.version == version)
            .cloned()
    }

    /// The index of `table` kept at whatever version, to bring up to date
    /// (`slot_index.rs`).
    pub(crate) fn latest(&self, table: TableId) -> Option<Arc<SlotIndex>> {
        let tables = self.tables.lock().ok()?;
        tables.get(&table).cloned()
    }

    /// Keeps `index` for `table`, replacing an older one.
    pub(crate) fn insert(&self, table: TableId, index: Arc<SlotIndex>) {
        if index.by_name.len() > KEPT_SLOT_COUNT_MAX {
            return;
        }
        let Ok(mut tables) = self.tables.lock() else {
            return;
        };
        if tables.len() >= KEPT_TABLE_COUNT_MAX && !tables.contains_key(&table) {
            tables.clear();
        }
        tables.insert(table, index);
    }
}
