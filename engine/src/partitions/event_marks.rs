//! Hive's partition events (`markPartitionForEvent`, `isPartitionMarkedForEvent`): a
//! partition named by a full spec is marked with an event type (Hive has one, `LOAD_DONE`),
//! and later asked about. As in Hive, the partition itself need not exist, and marks are
//! kept by the names as given (case and all): they outlive the table. (Hive can expire them;
//! its default never does.)

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::partitions::stored::resolve_table;
use crate::storage::keys;
use crate::store::{now_seconds, Store};

/// Hive's `PartitionEventType.LOAD_DONE`, its only event type.
pub const PARTITION_EVENT_LOAD_DONE: i32 = 1;

impl Store {
    /// Marks the partition `spec` names (a value for every partition key) of table
    /// `catalog.database.name` with `event_type`.
    pub fn mark_partition_for_event(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        spec: &BTreeMap<String, String>,
        event_type: i32,
    ) -> Result<()> {
        self.write(|txn| {
            let key = event_key(txn.reader(), catalog, database, name, spec, event_type)?;
            txn.put_raw(key, now_seconds().to_be_bytes().to_vec());
            Ok(())
        })
    }

    /// Whether the partition `spec` names was marked with `event_type`.
    pub fn is_partition_marked_for_event(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        spec: &BTreeMap<String, String>,
        event_type: i32,
    ) -> Result<bool> {
        let key = event_key(self.reader(), catalog, database, name, spec, event_type)?;
        Ok(self.reader().get(&key)?.is_some())
    }
}

/// The event's key, after Hive's checks: the table exists ([`Error::NoSuchObject`],
/// "Table: t is not found."), the event type is known, and `spec` gives a value for each
/// partition key and no more ([`Error::InvalidInput`], Hive's texts).
fn event_key(
    reader: &dyn crate::storage::kv::KvBackend,
    catalog: &str,
    database: &str,
    name: &str,
    spec: &BTreeMap<String, String>,
    event_type: i32,
) -> Result<Vec<u8>> {
    let table = resolve_table(reader, catalog, database, name).map_err(|error| match error {
        Error::NoSuchObject(_) => Error::NoSuchObject(format!(
            "Table: {} is not found.",
            name.trim().to_lowercase()
        )),
        other => other,
    })?;
    if event_type != PARTITION_EVENT_LOAD_DONE {
        return Err(Error::Refused(format!(
            "Unknown partition event type {event_type}"
        )));
    }
    let partition_keys = &table.table.partition_keys;
    if partition_keys.len() != spec.len() {
        return Err(Error::InvalidInput(format!(
            "Number of partition columns in table: {} doesn't match with number of supplied partition values: {}",
            partition_keys.len(),
            spec.len()
        )));
    }
    let mut values = Vec::with_capacity(partition_keys.len());
    for key in partition_keys {
        let value = spec.get(&key.name).ok_or_else(|| {
            Error::InvalidInput(format!("No value found for partition column: {}", key.name))
        })?;
        values.push(value.as_str());
    }
    // Hive keys its events by the names as the caller spelled them: `T` finds no mark of `t`.
    Ok(keys::partition_event_key(
        catalog,
        database,
        name,
        &values.join(","),
        event_type,
    ))
}
