//! Partitions' shared storage descriptors: everything of a partition's descriptor but its
//! location, interned per table (stored once under `0x07 ID(table) 00 00 ID(descriptor)` and
//! referenced by id from each partition's record), read once per call.
//!
//! A descriptor is stored as the archive of a [`StorageDescriptor`] (location none) under one of
//! two value kinds: 5 when its columns were given (an empty list included), 58 when the client
//! left them unset, which Hive answers as unset. See `docs/storage-format.md` §8.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rkyv::rancor;
use rkyv::util::AlignedVec;

use crate::error::{Error, Result};
use crate::model::partition::same_shared;
use crate::model::table::StorageDescriptor;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{KvBackend, KvBytes};
use crate::storage::values::{self, StoredValue, ValueKind, ValueView, VALUE_KIND_OFFSET};
use crate::store::WriteTxn;

/// How many ids a shared descriptor probes past its hash on collisions.
const DESCRIPTOR_PROBE_COUNT_MAX: u64 = 64;

/// A shared descriptor whose columns the client left unset: a [`StorageDescriptor`] archive
/// (without columns) under its own value kind, so that stores written before it read unchanged.
pub(crate) struct ColumnlessDescriptor(StorageDescriptor);

impl StoredValue for ColumnlessDescriptor {
    type Archived = rkyv::Archived<StorageDescriptor>;
    const KIND: ValueKind = ValueKind::PartitionDescriptorColumnsUnset;

    fn to_archive(&self) -> std::result::Result<AlignedVec, rancor::Error> {
        rkyv::to_bytes::<rancor::Error>(&self.0)
    }

    fn access_archive(bytes: &[u8]) -> std::result::Result<&Self::Archived, rancor::Error> {
        rkyv::access::<Self::Archived, rancor::Error>(bytes)
    }

    fn from_archive(archived: &Self::Archived) -> std::result::Result<Self, rancor::Error> {
        rkyv::deserialize::<StorageDescriptor, rancor::Error>(archived).map(ColumnlessDescriptor)
    }
}

/// A shared descriptor read in place, of either kind.
pub(crate) enum DescriptorView {
    /// Value kind 5: the columns as given.
    Columns(ValueView<StorageDescriptor>),
    /// Value kind 58: the columns unset.
    ColumnsUnset(ValueView<ColumnlessDescriptor>),
}

impl DescriptorView {
    /// Shared descriptor `id` of `table`; a missing one is corruption (a partition names it).
    pub(crate) fn read(reader: &dyn KvBackend, table: TableId, id: u64) -> Result<Self> {
        let key = keys::partition_descriptor_key(table, id);
        let stored = reader.get(&key)?.ok_or_else(|| {
            Error::corruption(&key, "a partition refers to this missing descriptor")
        })?;
        let columns_unset = ValueKind::PartitionDescriptorColumnsUnset as u8;
        let key = KvBytes::from_shared(Arc::from(key));
        if stored.get(VALUE_KIND_OFFSET) == Some(&columns_unset) {
            Ok(DescriptorView::ColumnsUnset(ValueView::new(key, stored)?))
        } else {
            Ok(DescriptorView::Columns(ValueView::new(key, stored)?))
        }
    }

    /// The archived descriptor, validated.
    pub(crate) fn archived(&self) -> Result<&rkyv::Archived<StorageDescriptor>> {
        match self {
            DescriptorView::Columns(view) => view.archived(),
            DescriptorView::ColumnsUnset(view) => view.archived(),
        }
    }

    /// Whether the columns were left unset.
    pub(crate) fn columns_unset(&self) -> bool {
        matches!(self, DescriptorView::ColumnsUnset(_))
    }

    /// The descriptor, owned.
    pub(crate) fn to_owned(&self) -> Result<StorageDescriptor> {
        match self {
            DescriptorView::Columns(view) => view.to_owned(),
            DescriptorView::ColumnsUnset(view) => Ok(StorageDescriptor {
                columns_unset: true,
                ..view.to_owned()?.0
            }),
        }
    }
}

/// Whether the stored value `stored` is a shared descriptor with its columns unset.
pub(crate) fn is_columnless(stored: &[u8]) -> bool {
    stored.get(VALUE_KIND_OFFSET) == Some(&(ValueKind::PartitionDescriptorColumnsUnset as u8))
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

/// The stored bytes of `descriptor` without its location, of the kind its columns say.
fn encode_shared(descriptor: &StorageDescriptor) -> Result<Vec<u8>> {
    let shared = StorageDescriptor {
        location: None,
        ..descriptor.clone()
    };
    if shared.columns_unset {
        let columnless = StorageDescriptor {
            cols: Vec::new(),
            ..shared
        };
        return values::encode(&ColumnlessDescriptor(columnless));
    }
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
        let descriptor = Arc::new(DescriptorView::read(reader, self.table, id)?.to_owned()?);
        self.descriptors.insert(id, descriptor.clone());
        Ok(descriptor)
    }
}

/// `shared` with `location`, its columns left out when `skip_columns`.
pub(crate) fn descriptor_with(
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
        columns_unset: shared.columns_unset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::partition::Partition;
    use crate::model::table::{FieldSchema, Order, SerDeInfo, Table};
    use crate::store::{memory_store_with_databases, Store};
    use crate::{AddPartitionsOptions, PartitionSelection};

    fn column(name: &str) -> FieldSchema {
        FieldSchema {
            name: name.into(),
            type_name: "bigint".into(),
            comment: Some("c".into()),
        }
    }

    /// The archive of a descriptor is the one stores hold: `columns_unset` is not in it.
    #[test]
    fn a_descriptor_archives_as_before_the_unset_columns() {
        let sd = StorageDescriptor {
            cols: vec![column("id")],
            location: None,
            input_format: Some("in".into()),
            output_format: Some("out".into()),
            compressed: false,
            num_buckets: 4,
            serde_info: Some(SerDeInfo {
                name: Some("s".into()),
                serialization_lib: Some("lib".into()),
                ..SerDeInfo::default()
            }),
            bucket_cols: vec!["id".into()],
            sort_cols: vec![Order {
                col: "id".into(),
                order: 1,
            }],
            parameters: [("k".to_string(), "v".to_string())].into_iter().collect(),
            skewed_info: None,
            stored_as_sub_directories: Some(false),
            columns_unset: true,
        };
        // Written by the build before `columns_unset` existed.
        let before =
            "01050000000000006964ffffffffffff626967696e74ffff0100000063ffffffffffffff6964ffff\
            ffffffff6964ffffffffffff01000000000000006bffffffffffffff000000000000000000000000\
            000000000000000000000000000000000000000076ffffffffffffff000000000000000000000000\
            00000000000000000000000000000000000000000100000078ffffff010000000000000000000000\
            0000000001000000696effffffffffff010000006f7574ffffffffff000000000400000001000000\
            0100000073ffffffffffffff010000006c6962ffffffffff01000000000000000000000000000000\
            000000000000000000000000000000000000000000000000000000000000000014ffffff01000000\
            14ffffff0100000018ffffff01000000000000000000000000000000000000000000000000000000\
            0000000001000000";
        let stored = values::encode(&sd).unwrap();
        let hex: String = stored.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(hex, before);
        let key = KvBytes::from_shared(Arc::from(&b"descriptor"[..]));
        let stored = KvBytes::from_shared(Arc::from(stored));
        let read: StorageDescriptor = values::decode(key, stored).unwrap();
        assert!(!read.columns_unset, "a kind-5 descriptor has its columns");
    }

    fn store_with_table() -> Store {
        let store = memory_store_with_databases(&["db"]);
        let table = Table {
            table_name: "t".into(),
            db_name: "db".into(),
            sd: Some(StorageDescriptor {
                cols: vec![column("id")],
                num_buckets: -1,
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![FieldSchema {
                name: "p".into(),
                type_name: "string".into(),
                comment: None,
            }],
            ..Table::default()
        };
        store.create_table(table).unwrap();
        store
    }

    fn partition(value: &str, columns_unset: bool, cols: Vec<FieldSchema>) -> Partition {
        Partition {
            values: vec![value.into()],
            sd: Some(StorageDescriptor {
                cols,
                num_buckets: -1,
                columns_unset,
                ..StorageDescriptor::default()
            }),
            ..Partition::default()
        }
    }

    fn read_back(store: &Store, value: &str) -> StorageDescriptor {
        let values = [value.to_string()];
        let partition = store.get_partition("hive", "db", "t", &values).unwrap();
        partition.sd.unwrap()
    }

    /// Unset columns, an empty list and columns are three descriptors, each read back as
    /// written, owned and in place, and after an alter.
    #[test]
    fn unset_columns_read_back_unset_and_apart_from_an_empty_list() {
        let store = store_with_table();
        let partitions = vec![
            partition("unset", true, Vec::new()),
            partition("empty", false, Vec::new()),
            partition("some", false, vec![column("id")]),
        ];
        let options = AddPartitionsOptions::default();
        store
            .add_partitions("hive", "db", "t", partitions, &options)
            .unwrap();
        let unset = read_back(&store, "unset");
        assert!(unset.columns_unset && unset.cols.is_empty());
        let empty = read_back(&store, "empty");
        assert!(!empty.columns_unset && empty.cols.is_empty());
        assert!(!read_back(&store, "some").columns_unset);
        let views = store
            .partition_views("hive", "db", "t", PartitionSelection::All, -1)
            .unwrap();
        let mut seen: Vec<(String, bool, Option<u64>)> = Vec::new();
        for view in views.iter() {
            let view = view.unwrap();
            assert!(view.descriptor().unwrap().is_some());
            seen.push((
                view.values()[0].clone(),
                view.columns_unset(),
                view.descriptor_id(),
            ));
        }
        let unset_of = |name: &str| seen.iter().find(|(value, ..)| value == name).unwrap().1;
        assert!(unset_of("unset") && !unset_of("empty") && !unset_of("some"));
        let ids: HashSet<_> = seen.iter().map(|(.., id)| *id).collect();
        assert_eq!(ids.len(), 3, "three shared descriptors: {seen:?}");
        // An alter that gives the columns makes them set; one that leaves them unset, unset.
        store
            .alter_partition(
                "hive",
                "db",
                "t",
                partition("unset", false, vec![column("x")]),
            )
            .unwrap();
        let altered = read_back(&store, "unset");
        assert!(!altered.columns_unset && altered.cols.len() == 1);
        store
            .alter_partition("hive", "db", "t", partition("some", true, Vec::new()))
            .unwrap();
        assert!(read_back(&store, "some").columns_unset);
    }
}
