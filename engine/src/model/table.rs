//! Hive's `Table` and the parts it is made of (storage descriptor, columns, SerDe, skew,
//! creation metadata), with the table types and parameters Hive gives meaning to.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::principal::{PrincipalPrivilegeSet, PrincipalType};
use crate::storage::values::{stored_value, ValueKind};

/// The table parameter Hive keeps the last DDL time in (seconds, decimal).
pub const DDL_TIME_PARAMETER: &str = "transient_lastDdlTime";
/// The table type of views: no location, no directory, and they may change
/// their partition keys and column types.
pub const VIRTUAL_VIEW: &str = "VIRTUAL_VIEW";
/// The table type of tables whose data the metastore owns.
pub const MANAGED_TABLE: &str = "MANAGED_TABLE";
/// The table type of tables whose data the metastore does not own.
pub const EXTERNAL_TABLE: &str = "EXTERNAL_TABLE";
/// The table type of materialized views (stored like managed tables).
pub const MATERIALIZED_VIEW: &str = "MATERIALIZED_VIEW";
/// The table parameter that makes a table external (`TRUE`, any case).
pub const EXTERNAL_PARAMETER: &str = "EXTERNAL";
/// The table parameter that makes dropping an external table delete its
/// data (`true`, any case).
pub const EXTERNAL_TABLE_PURGE_PARAMETER: &str = "external.table.purge";
/// Hive's `FieldSchema`: a column or partition key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct FieldSchema {
    /// The column name.
    pub name: String,
    /// The type, verbatim (`varchar(10)`, `struct<a:int>`).
    pub type_name: String,
    /// A comment.
    pub comment: Option<String>,
}

/// Hive's `SerdeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum SerdeType {
    /// A Hive SerDe class.
    Hive,
    /// A schema registry.
    SchemaRegistry,
}

/// Hive's `SerDeInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SerDeInfo {
    /// The SerDe name.
    pub name: Option<String>,
    /// The SerDe class.
    pub serialization_lib: Option<String>,
    /// SerDe parameters.
    pub parameters: BTreeMap<String, String>,
    /// A description.
    pub description: Option<String>,
    /// The serializer class.
    pub serializer_class: Option<String>,
    /// The deserializer class.
    pub deserializer_class: Option<String>,
    /// The SerDe type.
    pub serde_type: Option<SerdeType>,
}

/// Hive's `Order`: a sort column.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Order {
    /// The column.
    pub col: String,
    /// 1 ascending, 0 descending.
    pub order: i32,
}

/// One entry of `SkewedInfo.skewedColValueLocationMaps`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SkewedValueLocation {
    /// The skewed values.
    pub values: Vec<String>,
    /// Their location.
    pub location: String,
}

/// Hive's `SkewedInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SkewedInfo {
    /// The skewed columns.
    pub skewed_col_names: Vec<String>,
    /// The skewed value tuples.
    pub skewed_col_values: Vec<Vec<String>>,
    /// Value tuple → location.
    pub skewed_col_value_location_maps: Vec<SkewedValueLocation>,
}

/// Hive's `StorageDescriptor`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct StorageDescriptor {
    /// The columns.
    pub cols: Vec<FieldSchema>,
    /// The location; views have none.
    pub location: Option<String>,
    /// The input format class.
    pub input_format: Option<String>,
    /// The output format class.
    pub output_format: Option<String>,
    /// Whether the data is compressed.
    pub compressed: bool,
    /// The bucket count; -1 when not bucketed.
    pub num_buckets: i32,
    /// The SerDe.
    pub serde_info: Option<SerDeInfo>,
    /// The bucketing columns.
    pub bucket_cols: Vec<String>,
    /// The sort columns.
    pub sort_cols: Vec<Order>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// Skew information.
    pub skewed_info: Option<SkewedInfo>,
    /// Whether skewed data is stored in subdirectories.
    pub stored_as_sub_directories: Option<bool>,
    /// Whether the client left the columns unset (Hive's null), as opposed to an empty list;
    /// Hive answers them unset then. Not in the archive: a partition's shared descriptor keeps
    /// it as its value kind (`partitions::descriptors`); a table's always reads as false.
    #[rkyv(with = rkyv::with::Skip)]
    pub columns_unset: bool,
}

/// A table a materialized view reads, and the rows transactions inserted, updated and deleted
/// in it as Hive counts them for the view (Hive 4's `SourceTable`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceTable {
    /// The table; on create only its database and name are read.
    pub table: Table,
    /// Rows inserted.
    pub inserted_count: i64,
    /// Rows updated.
    pub updated_count: i64,
    /// Rows deleted.
    pub deleted_count: i64,
}

/// Hive's `CreationMetadata` (materialized views).
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct CreationMetadata {
    /// The view's catalog.
    pub cat_name: String,
    /// The view's database.
    pub db_name: String,
    /// The view's name.
    pub tbl_name: String,
    /// The tables it reads, `db.table`.
    pub tables_used: Vec<String>,
    /// The transaction snapshot it was built at.
    pub valid_txn_list: Option<String>,
    /// When it was built.
    pub materialization_time: Option<i64>,
    /// The tables it reads with their counts. Not part of the table's record: stored apart
    /// (`stats/transactional.rs`), so the archive of a table is as it was; filled by
    /// [`Store::get_table`](crate::Store::get_table) and read by
    /// [`Store::create_table`](crate::Store::create_table).
    #[rkyv(with = rkyv::with::Skip)]
    pub source_tables: Option<Vec<SourceTable>>,
}

/// Hive's `FileMetadata`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct FileMetadata {
    /// The metadata type (1 = Impala).
    pub metadata_type: i8,
    /// The metadata version.
    pub version: i8,
    /// The serialized metadata.
    pub data: Vec<Vec<u8>>,
}

/// Hive's `Table`, as stored. Column statistics live apart.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Table {
    /// The table name, normalised.
    pub table_name: String,
    /// The database name, normalised.
    pub db_name: String,
    /// The owner.
    pub owner: Option<String>,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: i32,
    /// Last access time; stored, never updated.
    pub last_access_time: i32,
    /// Retention.
    pub retention: i32,
    /// The storage descriptor.
    pub sd: Option<StorageDescriptor>,
    /// The partition keys.
    pub partition_keys: Vec<FieldSchema>,
    /// Parameters.
    pub parameters: BTreeMap<String, String>,
    /// A view's original text.
    pub view_original_text: Option<String>,
    /// A view's expanded text.
    pub view_expanded_text: Option<String>,
    /// `MANAGED_TABLE`, `EXTERNAL_TABLE`, `VIRTUAL_VIEW`, `MATERIALIZED_VIEW`.
    pub table_type: Option<String>,
    /// Privileges granted at creation.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// Whether the table is temporary.
    pub temporary: bool,
    /// Whether a materialized view may be used for rewriting.
    pub rewrite_enabled: Option<bool>,
    /// A materialized view's creation metadata.
    pub creation_metadata: Option<CreationMetadata>,
    /// The catalog, normalised; always set on stored tables.
    pub cat_name: String,
    /// The owner's principal type.
    pub owner_type: Option<PrincipalType>,
    /// The ACID write id; -1 when none.
    pub write_id: i64,
    /// The access type granted to the client.
    pub access_type: Option<i8>,
    /// Capabilities a client needs to read.
    pub required_read_capabilities: Option<Vec<String>>,
    /// Capabilities a client needs to write.
    pub required_write_capabilities: Option<Vec<String>>,
    /// The table id, assigned by the store; a caller's value is ignored.
    pub id: i64,
    /// File metadata for some engines.
    pub file_metadata: Option<FileMetadata>,
    /// Hive's `ObjectDictionary`: name → serialized objects.
    pub dictionary: Option<BTreeMap<String, Vec<Vec<u8>>>>,
    /// The transaction that created the table.
    pub txn_id: Option<i64>,
}

stored_value!(Table, ValueKind::Table);

impl Table {
    /// `cat.db.table`, as Hive's messages name a table.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}.{}", self.cat_name, self.db_name, self.table_name)
    }

    /// Whether the table is a view (`VIRTUAL_VIEW`).
    pub fn is_view(&self) -> bool {
        self.table_type.as_deref() == Some(VIRTUAL_VIEW)
    }

    /// Hive's `isExternalTable`: parameter `EXTERNAL` is `TRUE`, any case.
    pub fn is_external(&self) -> bool {
        parameter_is_true(&self.parameters, EXTERNAL_PARAMETER)
    }

    /// Hive's `isExternalTablePurge`: `external.table.purge` is `true`.
    pub fn is_external_table_purge(&self) -> bool {
        parameter_is_true(&self.parameters, EXTERNAL_TABLE_PURGE_PARAMETER)
    }

    /// The storage location, if any.
    pub fn location(&self) -> Option<&str> {
        self.sd.as_ref().and_then(|sd| sd.location.as_deref())
    }
}

fn parameter_is_true(parameters: &BTreeMap<String, String>, key: &str) -> bool {
    parameters
        .get(key)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

/// Hive's `isTransactionalTable`: parameter `transactional` is `true`, any case.
pub fn is_transactional(parameters: &BTreeMap<String, String>) -> bool {
    parameters
        .get("transactional")
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}
