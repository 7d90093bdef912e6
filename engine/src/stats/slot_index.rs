//! A table's slot index by partition name, for resolving many names at once: kept
//! (`kept_slots.rs`), brought up to date from the index kept at an older version and the slot
//! changes recorded since (`slot_changes.rs`), or scanned whole.

use std::sync::Arc;

use super::kept_slots::{SlotIndex, SlotsByName, KEPT_SLOT_COUNT_MAX};
use crate::error::{Error, Result};
use crate::model::partition_name::{escaped_keys, push_escaped};
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys;
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange};
use crate::store::Store;

/// The index of `table` at slot version `version` (`None`: a batch changing slots is being
/// applied, and nothing kept is used or kept), whose slot counter says `slot_count`. Kept
/// when no slot changed while it was made: it then holds the slots of its version whole.
pub(crate) fn slot_index(
    store: &Store,
    table: &PartitionedTable,
    version: Option<u64>,
    slot_count: u32,
) -> Result<Arc<SlotIndex>> {
    let escaped_keys = escaped_keys(&table.key_names());
    let updated = version.and_then(|version| updated(store, table, &escaped_keys, version));
    let by_name = match updated {
        Some(by_name) => by_name,
        None => scan(store, table, &escaped_keys, slot_count)?,
    };
    let index = Arc::new(SlotIndex {
        version: version.unwrap_or(u64::MAX),
        by_name,
    });
    if version.is_some_and(|version| store.stats.slot_versions.unchanged(table.id, version)) {
        store.stats.slots.insert(table.id, index.clone());
    }
    Ok(index)
}

/// The index kept at an older version with the slot changes since applied, if one is kept,
/// the record of changes reaches back to it, and they are fewer than half its slots (past
/// that a scan costs less than copying the index).
fn updated(
    store: &Store,
    table: &PartitionedTable,
    escaped_keys: &[String],
    version: u64,
) -> Option<SlotsByName> {
    let older = store.stats.slots.latest(table.id)?;
    if older.version >= version {
        return None;
    }
    // Copied rather than taken: readers may still hold the older one.
    let mut by_name = older.by_name.clone();
    let (mut name, mut value) = (String::new(), Vec::new());
    let mut whole = true;
    let answered = store.stats.slot_changes.changes_between(
        table.id,
        (older.version, version),
        older.by_name.len() / 2,
        |values, slot| {
            if write_name(values, escaped_keys, &mut name, &mut value).is_err() {
                whole = false; // left to the scan, which reports it
                return;
            }
            match slot {
                Some(slot) => by_name.insert(Box::from(name.as_str()), slot),
                None => by_name.remove(name.as_str()),
            };
        },
    );
    (answered && whole).then_some(by_name)
}

/// The table's whole slot index: one scan. Each name is written straight from its key's
/// components into one string (the keys escaped once), into a map sized for the table's
/// slots: a cold call resolving 10,000 names spent more building this than reading the
/// chunks.
fn scan(
    store: &Store,
    table: &PartitionedTable,
    escaped_keys: &[String],
    slot_count: u32,
) -> Result<SlotsByName> {
    let prefix = keys::stats_table_prefix(keys::KEYSPACE_STATS_SLOT, table.id);
    let counter = keys::stats_slot_counter_key(table.id);
    let capacity = (slot_count as usize).min(KEPT_SLOT_COUNT_MAX);
    let mut by_name = SlotsByName::with_capacity(capacity);
    let (mut name, mut value) = (String::new(), Vec::new());
    let entries = kv::scan(
        store.reader(),
        KeyRange::prefix(&prefix),
        SCAN_PAGE_ENTRY_COUNT,
    );
    for entry in entries {
        let (key, stored) = entry?;
        if key.as_ref() == counter.as_slice() {
            continue;
        }
        let values = key.get(prefix.len()..).unwrap_or_default();
        write_name(values, escaped_keys, &mut name, &mut value)
            .map_err(|reason| Error::corruption(&key, reason))?;
        let slot = super::slots::decode_slot(&key, &stored)?;
        by_name.insert(Box::from(name.as_str()), slot);
    }
    Ok(by_name)
}

/// Writes into `name` the partition name of a slot key's `values` (its components after the
/// table), `value` being room for one decoded value.
fn write_name(
    mut values: &[u8],
    escaped_keys: &[String],
    name: &mut String,
    value: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    const WRONG_ARITY: &str = "a statistics slot of the wrong arity";
    name.clear();
    for (index, escaped_key) in escaped_keys.iter().enumerate() {
        if values.is_empty() {
            return Err(WRONG_ARITY.into());
        }
        value.clear();
        values = keys::take_component_into(values, value).map_err(|error| error.to_string())?;
        let value = std::str::from_utf8(value)
            .map_err(|_| "a partition value that is not UTF-8".to_string())?;
        if index > 0 {
            name.push('/');
        }
        name.push_str(escaped_key);
        name.push('=');
        push_escaped(name, value);
    }
    match values.is_empty() {
        true => Ok(()),
        false => Err(WRONG_ARITY.into()),
    }
}
