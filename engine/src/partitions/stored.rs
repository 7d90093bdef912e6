//! Partitions: stored under `table id + encoded values`, so every listing is
//! a range scan in value-tuple order, and reads never decode more than the
//! key unless the caller wants the partition.
//!
//! A partition's storage descriptor is split: its location stays in the
//! partition's [`PartitionRecord`], everything else (columns above all) is
//! interned per table as a shared descriptor (`partitions::descriptors`), stored
//! once and referenced by id. 100k partitions written with the table's columns
//! carry one column list, not 100k. See `docs/storage-format.md` §8.

use std::sync::Arc;

use crate::catalog::lookup::find_database_id;
use crate::catalog::lookup::{
    dangling_table_index, find_table_id, normalize_names, table_not_found,
};
use crate::error::{Error, Result};
use crate::model::partition::{partition_of, Partition, PartitionRecord};
use crate::model::partition_name::DEFAULT_PARTITION_NAME;
use crate::model::table::Table;
use crate::partitions::descriptors::{descriptor_with, DescriptorInterner, KeptDescriptors};
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys;
use crate::storage::kv::{KvBackend, KvBytes};
use crate::storage::values::{StoredValue, ValueView};
use crate::store::WriteTxn;

/// Reads the value at `key` of `reader`, in place.
pub(crate) fn read_view<T: StoredValue>(
    reader: &dyn KvBackend,
    key: &[u8],
) -> Result<Option<ValueView<T>>> {
    match reader.get(key)? {
        Some(stored) => {
            let key = KvBytes::from_shared(Arc::from(key));
            Ok(Some(ValueView::new(key, stored)?))
        }
        None => Ok(None),
    }
}

/// Finds table `catalog.database.name` for a partition call. A missing database is a missing
/// table, as Hive's store reports it (`<db>.<table> table not found`).
pub(crate) fn resolve_table(
    reader: &dyn KvBackend,
    catalog: &str,
    database: &str,
    name: &str,
) -> Result<PartitionedTable> {
    let (catalog, database, name) = normalize_names(catalog, database, name);
    let database_id = find_database_id(reader, &catalog, &database)?
        .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
    let id = find_table_id(reader, database_id, &name)?
        .ok_or_else(|| table_not_found(&catalog, &database, &name))?;
    let table = read_view::<Table>(reader, &keys::table_key(id))?
        .ok_or_else(|| dangling_table_index(database_id, &name, id))?
        .to_owned()?;
    Ok(PartitionedTable { id, table })
}

/// Hive's rule for values given by a caller: an empty value means the
/// default partition (Hive finds partitions by name, and the name of an
/// empty value is the default partition name).
pub(crate) fn normalize_values(values: &[String]) -> Vec<String> {
    let normalize = |value: &String| {
        if value.is_empty() {
            DEFAULT_PARTITION_NAME.to_string()
        } else {
            value.clone()
        }
    };
    values.iter().map(normalize).collect()
}

/// [`normalize_values`] in place.
pub(crate) fn normalize_values_in_place(values: &mut [String]) {
    for value in values.iter_mut().filter(|value| value.is_empty()) {
        *value = DEFAULT_PARTITION_NAME.to_string();
    }
}

/// Hive's `makePartName` check: one value per partition key.
pub(crate) fn check_value_count(table: &PartitionedTable, values: &[String]) -> Result<()> {
    let keys = &table.table.partition_keys;
    if keys.len() == values.len() && !keys.is_empty() {
        return Ok(());
    }
    let mut message = "Invalid partition key & values; keys [".to_string();
    for key in keys {
        message.push_str(&key.name);
        message.push_str(", ");
    }
    message.push_str("], values [");
    for value in values {
        message.push_str(value);
        message.push_str(", ");
    }
    message.push(']');
    Err(Error::Refused(message))
}

/// A partition as Hive's messages show it (Java's text of the Thrift `Partition`), with the
/// fields that identify it.
pub(crate) fn java_partition<V: AsRef<str>>(
    database: &str,
    table: &str,
    catalog: &str,
    values: &[V],
) -> String {
    format!(
        "Partition(values:{}, dbName:{database}, tableName:{table}, catName:{catalog})",
        java_list(values),
    )
}

/// `[a, b]`, as Java prints a list.
pub(crate) fn java_list<V: AsRef<str>>(values: &[V]) -> String {
    let joined: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
    format!("[{}]", joined.join(", "))
}

/// Splits `partition` into its stored record, interning its descriptor.
pub(crate) fn to_record(
    txn: &mut WriteTxn<'_>,
    interner: &mut DescriptorInterner,
    partition: &Partition,
) -> Result<PartitionRecord> {
    let descriptor_id = match &partition.sd {
        Some(sd) => Some(interner.intern(txn, sd)?),
        None => None,
    };
    Ok(PartitionRecord {
        create_time: partition.create_time,
        last_access_time: partition.last_access_time,
        descriptor_id,
        location: partition.location().map(str::to_string),
        parameters: partition.parameters.clone(),
        privileges: partition.privileges.clone(),
        write_id: partition.write_id,
        file_metadata: partition.file_metadata.clone(),
    })
}

/// Builds the partition of `table` with `values` from its stored record.
pub(crate) fn assemble(
    reader: &dyn KvBackend,
    descriptors: &mut KeptDescriptors,
    table: &Table,
    values: Vec<String>,
    record: PartitionRecord,
    skip_columns: bool,
) -> Result<Partition> {
    let shared = match record.descriptor_id {
        Some(id) => Some(descriptors.get(reader, id)?),
        None => None,
    };
    let location = record.location.clone();
    let mut partition = partition_of(table, values, record);
    partition.sd = shared.map(|shared| descriptor_with(&shared, location, skip_columns));
    Ok(partition)
}
