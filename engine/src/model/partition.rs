//! Hive's `Partition`, and the record a partition is stored as: its storage descriptor is
//! split, the location kept in the record and the rest shared per table (see
//! `partitions/stored.rs`).

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::principal::PrincipalPrivilegeSet;
use crate::model::table::{FileMetadata, StorageDescriptor, Table};
use crate::storage::values::{stored_value, ValueKind};

/// Hive's `Partition`, as the engine returns it. Column statistics live
/// apart; `isStatsCompliant` is the caller's to compute.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Partition {
    /// One value per partition key, in key order. An empty value is stored
    /// as [`DEFAULT_PARTITION_NAME`](crate::DEFAULT_PARTITION_NAME), the name Hive gives it.
    pub values: Vec<String>,
    /// The database, normalised.
    pub db_name: String,
    /// The table, normalised.
    pub table_name: String,
    /// Creation time, seconds since the epoch; set on add.
    pub create_time: i32,
    /// Last access time; stored, never updated.
    pub last_access_time: i32,
    /// The storage descriptor. On add, none means the table's.
    pub sd: Option<StorageDescriptor>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// Privileges.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// The catalog, normalised.
    pub cat_name: String,
    /// The ACID write id; -1 when none.
    pub write_id: i64,
    /// File metadata for some engines.
    pub file_metadata: Option<FileMetadata>,
}

impl Partition {
    /// The partition's location, if any.
    pub fn location(&self) -> Option<&str> {
        self.sd.as_ref().and_then(|sd| sd.location.as_deref())
    }
}

/// A partition as stored: what is not in its key (values) or its table
/// (names), with its storage descriptor split into a shared part and the
/// location.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PartitionRecord {
    /// Creation time.
    pub create_time: i32,
    /// Last access time.
    pub last_access_time: i32,
    /// The shared descriptor (`0x07 ID(table) 00 00 ID(descriptor)`);
    /// `None` when the partition has no storage descriptor.
    pub descriptor_id: Option<u64>,
    /// The storage descriptor's location.
    pub location: Option<String>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// Privileges.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// The ACID write id.
    pub write_id: i64,
    /// File metadata.
    pub file_metadata: Option<FileMetadata>,
}

stored_value!(PartitionRecord, ValueKind::Partition);
stored_value!(StorageDescriptor, ValueKind::PartitionDescriptor);

/// The partition of `table` with `values` and `record`, without its
/// storage descriptor.
pub(crate) fn partition_of(
    table: &Table,
    values: Vec<String>,
    record: PartitionRecord,
) -> Partition {
    Partition {
        values,
        db_name: table.db_name.clone(),
        table_name: table.table_name.clone(),
        create_time: record.create_time,
        last_access_time: record.last_access_time,
        sd: None,
        parameters: record.parameters,
        privileges: record.privileges,
        cat_name: table.cat_name.clone(),
        write_id: record.write_id,
        file_metadata: record.file_metadata,
    }
}

/// Whether `a` and `b` are the same shared descriptor: equal but for their locations.
pub(crate) fn same_shared(a: &StorageDescriptor, b: &StorageDescriptor) -> bool {
    a.cols == b.cols
        && a.input_format == b.input_format
        && a.output_format == b.output_format
        && a.compressed == b.compressed
        && a.num_buckets == b.num_buckets
        && a.serde_info == b.serde_info
        && a.bucket_cols == b.bucket_cols
        && a.sort_cols == b.sort_cols
        && a.parameters == b.parameters
        && a.skewed_info == b.skewed_info
        && a.stored_as_sub_directories == b.stored_as_sub_directories
        && a.columns_unset == b.columns_unset
}
