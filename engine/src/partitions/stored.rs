//! Partitions: stored under `table id + encoded values`, so every listing is
//! a range scan in value-tuple order, and reads never decode more than the
//! key unless the caller wants the partition.
//!
//! A partition's storage descriptor is split: its location stays in the
//! partition's [`PartitionRecord`], everything else (columns above all) is
//! interned per table as a shared descriptor, stored once and referenced by
//! id. 100k partitions written with the table's columns carry one column
//! list, not 100k. See `docs/storage-format.md` §8.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::catalog::lookup::find_database_id;
use crate::catalog::lookup::{
    dangling_table_index, find_table_id, normalize_names, table_not_found,
};
use crate::error::{Error, Result};
use crate::model::partition::{partition_of, same_shared, Partition, PartitionRecord};
use crate::model::partition_name::DEFAULT_PARTITION_NAME;
use crate::model::table::{StorageDescriptor, Table};
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{KvBackend, KvBytes};
use crate::storage::values::{self, StoredValue, ValueView};
use crate::store::WriteTxn;

/// How many ids a shared descriptor probes past its hash on collisions.
const DESCRIPTOR_PROBE_COUNT_MAX: u64 = 64;

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

/// A stable 64-bit hash (FNV-1a) of a descriptor's stored bytes: its first
/// candidate id.
fn descriptor_hash(stored: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in stored {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Interns shared descriptors of one table during one write.
pub(crate) struct DescriptorInterner {
    table: TableId,
    /// Stored bytes → id, for descriptors seen in this write.
    known: HashMap<Vec<u8>, u64>,
    /// Ids taken in this write (staged, not yet readable).
    staged: HashSet<u64>,
    /// The last descriptor interned and its id: a batch's partitions mostly share one, and
    /// comparing it (or its pointer) costs far less than encoding it again.
    last: Option<(Arc<StorageDescriptor>, u64)>,
}

impl DescriptorInterner {
    pub(crate) fn new(table: TableId) -> Self {
        DescriptorInterner {
            table,
            known: HashMap::new(),
            staged: HashSet::new(),
            last: None,
        }
    }

    /// The id of `descriptor` (its location ignored), staging it if new.
    pub(crate) fn intern(
        &mut self,
        txn: &mut WriteTxn<'_>,
        descriptor: &StorageDescriptor,
    ) -> Result<u64> {
        if let Some((last, id)) = &self.last {
            if same_shared(last, descriptor) {
                return Ok(*id);
            }
        }
        let id = self.intern_encoded(txn, descriptor)?;
        self.last = Some((Arc::new(descriptor.clone()), id));
        Ok(id)
    }

    /// [`DescriptorInterner::intern`] for a shared descriptor: the previous one is recognised
    /// by its pointer before it is compared.
    pub(crate) fn intern_shared(
        &mut self,
        txn: &mut WriteTxn<'_>,
        descriptor: &Arc<StorageDescriptor>,
    ) -> Result<u64> {
        if let Some((last, id)) = &self.last {
            if Arc::ptr_eq(last, descriptor) || same_shared(last, descriptor) {
                return Ok(*id);
            }
        }
        let id = self.intern_encoded(txn, descriptor)?;
        self.last = Some((descriptor.clone(), id));
        Ok(id)
    }

    fn intern_encoded(
        &mut self,
        txn: &mut WriteTxn<'_>,
        descriptor: &StorageDescriptor,
    ) -> Result<u64> {
        let stored = encode_shared(descriptor)?;
        if let Some(id) = self.known.get(&stored) {
            return Ok(*id);
        }
        let first = descriptor_hash(&stored);
        for probe in 0..DESCRIPTOR_PROBE_COUNT_MAX {
            let id = first.wrapping_add(probe);
            if self.staged.contains(&id) {
                continue;
            }
            let key = keys::partition_descriptor_key(self.table, id);
            match txn.get(&key)? {
                Some(existing) if *existing == *stored => {}
                Some(_) => continue,
                None => {
                    txn.put_raw(key, stored.clone());
                    self.staged.insert(id);
                }
            }
            self.known.insert(stored, id);
            return Ok(id);
        }
        Err(Error::Internal(format!(
            "no free shared descriptor id near {first:#x} for table id {}",
            self.table.0
        )))
    }
}

/// The stored bytes of `descriptor` without its location.
fn encode_shared(descriptor: &StorageDescriptor) -> Result<Vec<u8>> {
    let shared = StorageDescriptor {
        location: None,
        ..descriptor.clone()
    };
    values::encode(&shared)
}

/// Shared descriptors read during one call, deserialised once each.
pub(crate) struct KeptDescriptors {
    table: TableId,
    descriptors: HashMap<u64, Arc<StorageDescriptor>>,
}

impl KeptDescriptors {
    pub(crate) fn new(table: TableId) -> Self {
        KeptDescriptors {
            table,
            descriptors: HashMap::new(),
        }
    }

    /// Shared descriptor `id`.
    pub(crate) fn get(
        &mut self,
        reader: &dyn KvBackend,
        id: u64,
    ) -> Result<Arc<StorageDescriptor>> {
        if let Some(descriptor) = self.descriptors.get(&id) {
            return Ok(descriptor.clone());
        }
        let key = keys::partition_descriptor_key(self.table, id);
        let descriptor = read_view::<StorageDescriptor>(reader, &key)?
            .ok_or_else(|| {
                Error::corruption(&key, "a partition refers to this missing descriptor")
            })?
            .to_owned()?;
        let descriptor = Arc::new(descriptor);
        self.descriptors.insert(id, descriptor.clone());
        Ok(descriptor)
    }
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

/// `shared` with `location`, its columns left out when `skip_columns`.
fn descriptor_with(
    shared: &StorageDescriptor,
    location: Option<String>,
    skip_columns: bool,
) -> StorageDescriptor {
    StorageDescriptor {
        cols: if skip_columns {
            Vec::new()
        } else {
            shared.cols.clone()
        },
        location,
        input_format: shared.input_format.clone(),
        output_format: shared.output_format.clone(),
        compressed: shared.compressed,
        num_buckets: shared.num_buckets,
        serde_info: shared.serde_info.clone(),
        bucket_cols: shared.bucket_cols.clone(),
        sort_cols: shared.sort_cols.clone(),
        parameters: shared.parameters.clone(),
        skewed_info: shared.skewed_info.clone(),
        stored_as_sub_directories: shared.stored_as_sub_directories,
    }
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
