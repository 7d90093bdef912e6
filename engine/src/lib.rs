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
mod column_type;
mod commit;
mod consistent;
mod database;
mod dir_users;
mod error;
pub mod events;
mod kept_encodings;
mod kept_selection;
pub mod keys;
pub mod kv;
mod listed_columns;
mod listing;
pub mod locks;
mod name_listing;
mod names;
mod partition;
mod partition_batch;
mod partition_encoded;
mod partition_encoding;
mod partition_events;
mod partition_exchange;
mod partition_filter;
mod partition_filter_eval;
mod partition_list;
pub mod partition_name;
mod partition_views;
mod partition_write;
mod pattern;
mod principal;
mod removal;
pub mod stats;
mod store;
mod table;
mod table_alter;
mod table_filter;
mod table_rules;
pub mod txns;
mod value_limits;
pub mod values;
mod visibility;
pub mod warehouse;

pub use catalog::Catalog;
pub use column_type::{is_valid_type, TYPE_FROM_DESERIALIZER};
pub use commit::{CommitCounters, COMMIT_QUEUE_CAPACITY, GATHER_WAIT_MAX, GROUP_TICKET_COUNT_MAX};
pub use database::{
    default_database_location, Database, DatabaseType, DropDatabaseOptions, DroppedDatabase,
};
pub use error::{bounded_message, Error, Result, MESSAGE_BYTES_MAX, QUOTED_BYTES_MAX};
pub use kept_encodings::KEPT_ENCODED_BYTES_MAX;
pub use listing::TableMeta;
pub use name_listing::{NameListing, PartitionNames, KEPT_NAME_BYTES_MAX};
pub use names::{
    normalize, validate_catalog_name, validate_database_name, validate_table_name,
    DATABASE_NAME_LEN_MAX, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_DESCRIPTION,
    DEFAULT_DATABASE_NAME, NAME_LEN_MAX,
};
pub use partition::{ArchivedPartitionRecord, Partition, PartitionRecord};
pub use partition_batch::{AddedPartitions, NewPartition};
pub use partition_encoded::PartitionSink;
pub use partition_encoding::{EncodedPartition, EncodingOut, PieceKey, Splicer};
pub use partition_events::PARTITION_EVENT_LOAD_DONE;
pub use partition_exchange::PartitionExchange;
pub use partition_filter::{
    CompiledFilter, Expression, Literal, Operator, PartitionFilter, FILTER_COMPARISON_COUNT_MAX,
    FILTER_DEPTH_MAX, FILTER_LEN_MAX, FILTER_LIKE_COUNT_MAX,
};
pub use partition_list::PartitionSelection;
pub use partition_name::{
    escape_path_name, make_partition_name, partition_name_has_valid_characters,
    partition_name_to_spec, partition_name_to_values, unescape_path_name, PartitionNameWhitelist,
    DEFAULT_PARTITION_NAME,
};
pub use partition_views::{PartitionIter, PartitionView, PartitionViews};
pub use partition_write::{
    AddPartitionsOptions, DropPartitionsOptions, DroppedPartitions,
    TRANSLATED_TO_EXTERNAL_PARAMETER,
};
pub use pattern::{
    check_pattern_len, NamePattern, SqlLikePattern, PATTERN_COMPILED_BYTES_MAX, PATTERN_LEN_MAX,
    PATTERN_NEST_MAX,
};
pub use principal::{PrincipalPrivilegeSet, PrincipalType, PrivilegeGrantInfo};
pub use stats::{
    engine_or_default, is_transactional, normalize_partition_name, AggregateStatistics,
    ColumnStatistics, PartitionStatistics, PrewarmReport, StatsAccuracy, StatsContext,
    StatsDecimal, StatsGenerated, StatsKind, StatsValue, StatsWriteOptions, TableStatistics,
    TransactionStatistics, COLUMN_STATS_ACCURATE, DEFAULT_STATS_ENGINE, DO_NOT_UPDATE_STATS,
    PREWARM_BYTES_MAX, STATS_GENERATED,
};
pub use store::{Durability, Store, StoreOptions, STORE_FORMAT_VERSION};
pub use table::{
    CreationMetadata, DropTableOptions, DroppedTable, FieldSchema, FileMetadata, Order, SerDeInfo,
    SerdeType, SkewedInfo, SkewedValueLocation, SourceTable, StorageDescriptor, Table,
    DDL_TIME_PARAMETER, EXTERNAL_PARAMETER, EXTERNAL_TABLE, EXTERNAL_TABLE_PURGE_PARAMETER,
    MANAGED_TABLE, MATERIALIZED_VIEW, VIRTUAL_VIEW,
};
pub use table_alter::{AlterTableOptions, ExpectedParameter};
pub use table_filter::{
    TableFilter, FILTER_FIELD_LAST_ACCESS, FILTER_FIELD_OWNER, FILTER_FIELD_PARAMS,
    TABLE_FILTER_LIKE_COUNT_MAX,
};
pub use value_limits::{
    ValueLimits, COLUMN_NAME_LEN_MAX, COMMENT_BYTES_MAX_DEFAULT, LOCATION_LEN_MAX,
    PARAMETER_KEY_LEN_MAX, PARAMETER_VALUE_BYTES_MAX_DEFAULT, PARTITION_KEY_NAME_LEN_MAX,
    PARTITION_NAME_LEN_MAX, PARTITION_VALUE_LEN_MAX, TYPE_NAME_BYTES_MAX_DEFAULT,
};
pub use values::ValueView;
pub use visibility::ReadMark;
pub use warehouse::{Filesystem, LocalFilesystem, QuickStats, WarehouseReport};
