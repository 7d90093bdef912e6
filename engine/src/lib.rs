//! hivestore's storage engine: the Hive catalog model over an ordered
//! key-value store.
//!
//! The engine knows nothing of Thrift or sockets; the frontends convert
//! between the wire and the types here. What it is:
//!
//! - [`Store`]: opens a data directory and offers catalog, database and table
//!   operations with Hive's semantics for names (trimmed, lowercased, checked)
//!   and Hive's error messages. Every write is one atomic batch, acknowledged
//!   only once durable; concurrent writers share fsyncs (group commit). An
//!   answer shows only durable state: frontends take a [`ReadMark`] when a
//!   call begins and [`Store::settle`] it before answering.
//! - Hive's rules on top: default locations (`<catalog>/<db>.db/<table>`),
//!   table types reconciled with `EXTERNAL`, column types checked against
//!   Hive's grammar, `alter_table`'s rename, type-change and compare-and-set
//!   rules, `truncate_table`, and listings by Hive's name patterns
//!   ([`NamePattern`]) and table filters ([`TableFilter`]).
//! - [`warehouse`]: the directories Hive's metastore makes, moves and
//!   deletes, on the local filesystem behind the [`Filesystem`] trait;
//!   other filesystems (`s3a:`, `hdfs:`, ...) are recorded, never touched.
//! - [`kv`]: the [`kv::KvBackend`] trait under it, with sled and in-memory
//!   backends, and a simulated disk that loses unflushed writes on a crash.
//! - [`keys`] and [`values`]: the byte layout, specified in
//!   `docs/storage-format.md`. Values are rkyv archives, validated and read in
//!   place through [`ValueView`].
//!
//! # Example
//!
//! ```
//! use hivestore_engine::{Store, StoreOptions, Table, Durability};
//!
//! let dir = tempfile::tempdir()?;
//! let mut options = StoreOptions::new("/warehouse").metadata_only();
//! options.durability = Durability::Memory;
//! let store = Store::open(dir.path(), options)?;
//! let table = Table {
//!     table_name: "Events".to_string(),
//!     db_name: "default".to_string(),
//!     ..Table::default()
//! };
//! let created = store.create_table(table)?;
//! assert_eq!(created.table_name, "events");
//! assert_eq!(store.list_tables("hive", "DEFAULT")?, vec!["events".to_string()]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod catalog;
mod error;
pub mod events;
mod model;
mod partitions;
pub mod stats;
mod storage;
mod store;
pub mod txns;
pub mod warehouse;

pub use model::partition_name;
pub use storage::{keys, kv, values};
pub use txns::locks;

pub use catalog::column_type::{is_valid_type, TYPE_FROM_DESERIALIZER};
pub use catalog::databases::{default_database_location, DropDatabaseOptions, DroppedDatabase};
pub use catalog::listing::TableMeta;
pub use catalog::pattern::{
    check_pattern_len, NamePattern, SqlLikePattern, PATTERN_COMPILED_BYTES_MAX, PATTERN_LEN_MAX,
    PATTERN_NEST_MAX,
};
pub use catalog::table_alter::{AlterTableOptions, ExpectedParameter};
pub use catalog::table_filter::{
    TableFilter, FILTER_FIELD_LAST_ACCESS, FILTER_FIELD_OWNER, FILTER_FIELD_PARAMS,
    TABLE_FILTER_LIKE_COUNT_MAX,
};
pub use catalog::tables::{DropTableOptions, DroppedTable};
pub use error::{bounded_message, Error, Result, MESSAGE_BYTES_MAX, QUOTED_BYTES_MAX};
pub use model::names::{
    normalize, validate_catalog_name, validate_database_name, validate_table_name,
    DATABASE_NAME_LEN_MAX, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_DESCRIPTION,
    DEFAULT_DATABASE_NAME, NAME_LEN_MAX,
};
pub use model::partition_name::{
    escape_path_name, make_partition_name, partition_name_has_valid_characters,
    partition_name_to_spec, partition_name_to_values, unescape_path_name, PartitionNameWhitelist,
    DEFAULT_PARTITION_NAME,
};
pub use model::value_limits::{
    ValueLimits, COLUMN_NAME_LEN_MAX, COMMENT_BYTES_MAX_DEFAULT, LOCATION_LEN_MAX,
    PARAMETER_KEY_LEN_MAX, PARAMETER_VALUE_BYTES_MAX_DEFAULT, PARTITION_KEY_NAME_LEN_MAX,
    PARTITION_NAME_LEN_MAX, PARTITION_VALUE_LEN_MAX, TYPE_NAME_BYTES_MAX_DEFAULT,
};
pub use model::{
    ArchivedPartitionRecord, Catalog, CreationMetadata, Database, DatabaseType, FieldSchema,
    FileMetadata, Order, Partition, PartitionRecord, PrincipalPrivilegeSet, PrincipalType,
    PrivilegeGrantInfo, SerDeInfo, SerdeType, SkewedInfo, SkewedValueLocation, SourceTable,
    StorageDescriptor, Table, DDL_TIME_PARAMETER, EXTERNAL_PARAMETER, EXTERNAL_TABLE,
    EXTERNAL_TABLE_PURGE_PARAMETER, MANAGED_TABLE, MATERIALIZED_VIEW, VIRTUAL_VIEW,
};
pub use partitions::batch::{AddedPartitions, NewPartition};
pub use partitions::encoded::PartitionSink;
pub use partitions::encoding::{EncodedPartition, EncodingOut, PieceKey, Splicer};
pub use partitions::event_marks::PARTITION_EVENT_LOAD_DONE;
pub use partitions::exchange::PartitionExchange;
pub use partitions::filter::{
    CompiledFilter, Expression, Literal, Operator, PartitionFilter, FILTER_COMPARISON_COUNT_MAX,
    FILTER_DEPTH_MAX, FILTER_LEN_MAX, FILTER_LIKE_COUNT_MAX,
};
pub use partitions::kept_encodings::KEPT_ENCODED_BYTES_MAX;
pub use partitions::list::PartitionSelection;
pub use partitions::name_listing::{NameListing, PartitionNames, KEPT_NAME_BYTES_MAX};
pub use partitions::views::{PartitionIter, PartitionView, PartitionViews};
pub use partitions::write::{
    AddPartitionsOptions, DropPartitionsOptions, DroppedPartitions,
    TRANSLATED_TO_EXTERNAL_PARAMETER,
};
pub use stats::{
    engine_or_default, is_transactional, normalize_partition_name, AggregateStatistics,
    ColumnStatistics, PartitionStatistics, PrewarmReport, StatsAccuracy, StatsContext,
    StatsDecimal, StatsGenerated, StatsKind, StatsValue, StatsWriteOptions, TableStatistics,
    TransactionStatistics, COLUMN_STATS_ACCURATE, DEFAULT_STATS_ENGINE, DO_NOT_UPDATE_STATS,
    PREWARM_BYTES_MAX, STATS_GENERATED,
};
pub use storage::commit::{
    CommitCounters, COMMIT_QUEUE_CAPACITY, GATHER_WAIT_MAX, GROUP_TICKET_COUNT_MAX,
};
pub use storage::values::ValueView;
pub use storage::visibility::ReadMark;
pub use store::{Durability, Store, StoreOptions, STORE_FORMAT_VERSION};
pub use warehouse::{Filesystem, LocalFilesystem, QuickStats, WarehouseReport};
