//! The table partitions hang off, as partition operations see it: its id, its keys, the key
//! range of its partitions and a scan of them, and the names of its partitions as Hive writes
//! them. What a table's drop needs of its partitions is here too, below the catalog.

use crate::error::Result;
use crate::model::partition::PartitionRecord;
use crate::model::partition_name::{make_partition_name, partition_name_to_spec};
use crate::model::table::Table;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values::ValueView;
use crate::warehouse::normalize_location;

/// The table partition operations work on.
pub(crate) struct PartitionedTable {
    pub(crate) id: TableId,
    pub(crate) table: Table,
}

impl PartitionedTable {
    /// A table of string partition keys named `keys`, for unit tests.
    #[cfg(test)]
    pub(crate) fn of_string_keys(keys: &[&str]) -> Self {
        let column = |name: &&str| crate::model::table::FieldSchema {
            name: name.to_string(),
            type_name: "string".to_string(),
            comment: None,
        };
        PartitionedTable {
            id: TableId(1),
            table: Table {
                partition_keys: keys.iter().map(column).collect(),
                ..Table::default()
            },
        }
    }

    /// The partition key names, in order.
    pub(crate) fn key_names(&self) -> Vec<&str> {
        let keys = self.table.partition_keys.iter();
        keys.map(|key| key.name.as_str()).collect()
    }

    /// The table's catalog, database and name.
    pub(crate) fn names(&self) -> (&str, &str, &str) {
        let table = &self.table;
        (&table.cat_name, &table.db_name, &table.table_name)
    }

    /// The partition name of `values`.
    pub(crate) fn partition_name<V: AsRef<str>>(&self, values: &[V]) -> String {
        make_partition_name(&self.key_names(), values)
    }

    /// The key range of every partition (descriptors excluded).
    pub(crate) fn all_partitions(&self) -> KeyRange {
        partitions_range(self.id)
    }
}

/// The key range of every partition of `table`, descriptors excluded.
pub(crate) fn partitions_range(table: TableId) -> KeyRange {
    let start = keys::partition_values_start(table);
    let prefix = keys::partition_prefix(table);
    match kv::prefix_successor(&prefix) {
        Some(end) => KeyRange::between(&start, &end),
        None => KeyRange::prefix(&prefix),
    }
}

/// The values of `partition_name` if it names a partition of `table` as
/// Hive writes names: the table's keys, in order, values escaped.
pub(crate) fn values_of_name(
    table: &PartitionedTable,
    partition_name: &str,
) -> Option<Vec<String>> {
    let spec = partition_name_to_spec(partition_name);
    let key_names = table.key_names();
    let same_keys = spec.len() == key_names.len()
        && spec
            .iter()
            .zip(&key_names)
            .all(|((key, _), name)| key == name);
    if !same_keys {
        return None;
    }
    let values: Vec<String> = spec.into_iter().map(|(_, value)| value).collect();
    (make_partition_name(&key_names, &values) == partition_name).then_some(values)
}

/// `slice_plain_values` (`list.rs`) for a name of a listing built from the keys (`push_name_of_key`):
/// every character a value needs escaped was written `%XX`, so a name without `%` holds its
/// values verbatim and only the `k=` prefixes need checking.
pub(crate) fn slice_listed_values<'n>(
    key_parts: &[String],
    name: &'n str,
    values: &mut Vec<&'n str>,
) -> bool {
    values.clear();
    if memchr::memchr(b'%', name.as_bytes()).is_some() {
        return false;
    }
    let mut components = name.split('/');
    for key_part in key_parts {
        let Some(value) = components
            .next()
            .and_then(|component| component.strip_prefix(key_part.as_str()))
        else {
            return false;
        };
        values.push(value);
    }
    components.next().is_none()
}

/// Iterates over the partitions in `range`: key, stored record, values.
pub(crate) fn scan_range(
    reader: &dyn KvBackend,
    range: KeyRange,
) -> impl Iterator<Item = Result<(KvBytes, KvBytes, Vec<String>)>> + '_ {
    kv::scan(reader, range, SCAN_PAGE_ENTRY_COUNT).map(|entry| {
        let (key, stored) = entry?;
        let (_, values) = keys::decode_partition_key(&key)?;
        Ok((key, stored, values))
    })
}

/// The locations of the partitions of `table` that lie outside
/// `table_location` (or all, without one): what Hive deletes one by one when
/// the table is dropped with its data.
pub(crate) fn partition_locations_outside(
    reader: &dyn KvBackend,
    table: TableId,
    table_location: Option<&str>,
) -> Result<Vec<String>> {
    let parent = table_location.map(normalize_location);
    let mut outside = Vec::new();
    for entry in scan_range(reader, partitions_range(table)) {
        let (key, stored, _) = entry?;
        let view = ValueView::<PartitionRecord>::new(key, stored)?;
        let Some(location) = view.archived()?.location.as_ref() else {
            continue;
        };
        let location = location.as_str();
        let inside = parent.is_some_and(|parent| {
            location
                .strip_prefix(parent)
                .is_some_and(|rest| rest.starts_with('/'))
        });
        if !inside {
            outside.push(location.to_string());
        }
    }
    Ok(outside)
}
