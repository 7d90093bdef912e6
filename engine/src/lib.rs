//! hivestore's storage engine: the Hive catalog model over an ordered
//! key-value store.
//!
//! The engine knows nothing of Thrift or sockets; the frontends convert
//! between the wire and the types here. [`Store`] (`store.rs`) is the one
//! entry: it opens a data directory and offers every operation, with Hive's
//! semantics for names (trimmed, lowercased, checked) and Hive's error
//! messages. Every write is one atomic batch, acknowledged only once durable;
//! concurrent writers share fsyncs (group commit). An answer shows only
//! durable state: frontends take a [`ReadMark`] when a call begins and
//! [`Store::settle`] it before answering. The store composes the state its
//! subsystems own; their operations are `impl Store` blocks in their folders.
//!
//! The source stands in folders, a layer or a subsystem each. `storage/`
//! imports nothing above it and `model/` nothing but `storage/`; the
//! subsystems above call one another (a table's drop reaches its partitions
//! and statistics), but no import circle crosses a folder:
//!
//! - `storage/`: the storage core. [`kv`], the [`kv::KvBackend`] trait, the one
//!   seam a backend plugs into, with sled and in-memory backends and a
//!   simulated disk that loses unflushed writes on a crash; [`keys`] and
//!   [`values`], the byte layout (`docs/storage-format.md`), values being rkyv
//!   archives read in place through [`ValueView`]; group commit, read marks,
//!   and the versions that let listings see whole batches.
//! - `model/`: the catalog model as plain data ([`Catalog`], [`Database`],
//!   [`Table`], [`Partition`]) and the rules on values alone: names, partition
//!   names ([`partition_name`]), sizes ([`ValueLimits`]).
//! - [`events`]: the notification log, its events and their id counter.
//! - `catalog/`: catalogs, databases and tables: Hive's default locations
//!   (`<catalog>/<db>.db/<table>`), table types reconciled with `EXTERNAL`,
//!   column types checked against Hive's grammar, `alter_table`'s rules,
//!   `truncate_table`, drops, and listings by Hive's name patterns
//!   ([`NamePattern`]) and table filters ([`TableFilter`]).
//! - `partitions/`: partitions stored with shared descriptors, written,
//!   listed and filtered ([`PartitionFilter`]), keeping a
//!   table's listings and their encodings while it is unchanged.
//! - `constraints/`: table constraints (primary and foreign keys, unique, not-null, default,
//!   check) with Hive's rules, stored under their parent table ([`ConstraintRow`]).
//! - [`stats`]: column statistics, stored columnar, with what is kept of them.
//! - [`txns`]: transactions and write ids, with [`locks`] under them, sharing
//!   one table in memory.
//! - [`warehouse`] and `error.rs`, used by all: the directories Hive's
//!   metastore makes, moves and deletes, on the local filesystem behind the
//!   [`Filesystem`] trait (other filesystems, `s3a:`, `hdfs:`, ..., are
//!   recorded, never touched); and the engine's one error type.
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

pub mod backup;
pub mod calendar;
mod catalog;
mod confinement;
mod connectors;
mod constraints;
mod error;
pub mod events;
pub mod grants;
mod model;
mod partitions;
mod procedures;
pub mod properties;
mod registry;
pub mod replication_metrics;
pub mod runtime_stats;
mod scheduled;
pub mod stats;
mod storage;
mod store;
mod store_uuid;
pub mod tokens;
pub mod txns;
mod usage;
pub mod warehouse;
mod workload;

pub use grants::{GrantObject, GrantRequest, GrantsView, PrivilegeFilter, PrivilegeSet, RoleGrant};
pub use model::partition_name;
pub use storage::changes::CHANGE_LOG_WINDOW;
pub use storage::{keys, kv, size, values};
pub use txns::locks;
pub use usage::{HitsAndMisses, StoreUsage};

pub use catalog::column_type::{is_valid_type, TYPE_FROM_DESERIALIZER};
pub use catalog::databases::{default_database_location, DropDatabaseOptions, DroppedDatabase};
pub use catalog::functions::{
    FUNCTION_CLASS_NAME_LEN_MAX, FUNCTION_OWNER_LEN_MAX, RESOURCE_URI_LEN_MAX,
};
pub use catalog::listing::TableMeta;
pub use catalog::owners::Owner;
pub use catalog::pattern::{
    check_pattern_len, NamePattern, SqlLikePattern, PATTERN_COMPILED_BYTES_MAX, PATTERN_LEN_MAX,
    PATTERN_NEST_MAX,
};
pub use catalog::table_alter::{AlterTableOptions, ExpectedParameter};
pub use catalog::table_filter::{
    TableFilter, FILTER_FIELD_LAST_ACCESS, FILTER_FIELD_OWNER, FILTER_FIELD_PARAMS,
    TABLE_FILTER_LIKE_COUNT_MAX,
};
pub use catalog::table_rules::default_table_location;
pub use catalog::tables::{DropTableOptions, DroppedTable};
pub use connectors::{
    ConnectorSpec, DataConnector, CONNECTOR_DESCRIPTION_LEN_MAX, CONNECTOR_NAME_LEN_MAX,
    CONNECTOR_OWNER_LEN_MAX, CONNECTOR_TYPE_LEN_MAX, CONNECTOR_URL_LEN_MAX, DATA_CONNECTORS_MAX,
};
pub use constraints::read::ForeignKeyFilter;
pub use error::{bounded_message, Error, Result, MESSAGE_BYTES_MAX, QUOTED_BYTES_MAX};
pub use model::names::{
    normalize, validate_catalog_name, validate_database_name, validate_function_name,
    validate_table_name, DATABASE_NAME_LEN_MAX, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_DESCRIPTION,
    DEFAULT_DATABASE_NAME, FUNCTION_NAME_LEN_MAX, NAME_LEN_MAX,
};
pub use model::partition_name::{
    escape_path_name, make_partition_name, partition_name_has_valid_characters,
    partition_name_to_spec, partition_name_to_values, unescape_path_name, PartitionNameWhitelist,
    DEFAULT_PARTITION_NAME,
};
pub use model::registry::{ISchema, RegisteredSerde, SchemaVersion, TypeDef};
pub use model::value_limits::{
    ValueLimits, COLUMN_NAME_LEN_MAX, COMMENT_BYTES_MAX_DEFAULT, LOCATION_LEN_MAX,
    PARAMETER_KEY_LEN_MAX, PARAMETER_VALUE_BYTES_MAX_DEFAULT, PARTITION_KEY_NAME_LEN_MAX,
    PARTITION_NAME_LEN_MAX, PARTITION_VALUE_LEN_MAX, TYPE_NAME_BYTES_MAX_DEFAULT,
};
pub use model::workload::{Mapping, PlanStatus, Pool, ResourcePlan, Trigger};
pub use model::{
    ArchivedPartitionRecord, Catalog, ConstraintKind, ConstraintRow, CreationMetadata, Database,
    DatabaseType, FieldSchema, FileMetadata, Function, FunctionType, GrantTarget, Order, Partition,
    PartitionRecord, PrincipalPrivilegeSet, PrincipalType, PrivilegeGrant, PrivilegeGrantInfo,
    ReferencedColumn, ResourceType, ResourceUri, Role, RoleMember, SerDeInfo, SerdeType,
    SkewedInfo, SkewedValueLocation, SourceTable, StorageDescriptor, Table, DDL_TIME_PARAMETER,
    EXTERNAL_PARAMETER, EXTERNAL_TABLE, EXTERNAL_TABLE_PURGE_PARAMETER, MANAGED_TABLE,
    MATERIALIZED_VIEW, VIRTUAL_VIEW,
};
pub use partitions::batch::{AddedPartitions, NewPartition};
pub use partitions::encoded::PartitionSink;
pub use partitions::encoding::{EncodedPartition, EncodingOut, PieceKey, Splicer};
pub use partitions::event_marks::PARTITION_EVENT_LOAD_DONE;
pub use partitions::exchange::PartitionExchange;
pub use partitions::expr::{
    CompiledExpression, Decimal as ExprDecimal, ExprConstant, ExprFunction, ExprNode,
    PartitionExpression, EXPRESSION_BYTES_MAX, EXPRESSION_CLASS_COUNT_MAX, EXPRESSION_DEPTH_MAX,
    EXPRESSION_OBJECT_COUNT_MAX,
};
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
pub use procedures::packages::NewPackage;
pub use procedures::stored::NewStoredProcedure;
pub use procedures::{
    Package, RoutineName, StoredProcedure, ROUTINES_PER_DATABASE_MAX, ROUTINE_NAME_LEN_MAX,
    ROUTINE_OWNER_LEN_MAX, ROUTINE_TEXT_BYTES_MAX,
};
pub use properties::{
    PropertyQuery, PROPERTY_KEY_BYTES_MAX, PROPERTY_NAMESPACE_HMS, PROPERTY_PREFIX_BYTES_MAX,
    PROPERTY_REPLY_MAPS_MAX, PROPERTY_SELECTION_MAX, PROPERTY_SET_ENTRIES_MAX,
    PROPERTY_VALUE_BYTES_MAX,
};
pub use registry::schemas::{FoundSchemaVersion, SchemaName, SCHEMA_NAME_LEN_MAX};
pub use registry::serdes::SERDE_NAME_LEN_MAX;
pub use registry::types::{is_valid_type_name, TYPE_NAME_LEN_MAX, TYPE_TEXT_LEN_MAX};
pub use replication_metrics::{
    ReplicationMetrics, ReplicationMetricsQuery, ReplicationMetricsReport,
    REPLICATION_MESSAGE_FORMAT_LEN_MAX, REPLICATION_METADATA_LEN_MAX,
    REPLICATION_METRICS_COUNT_MAX, REPLICATION_METRICS_MAX_AGE_SECS,
    REPLICATION_METRICS_PER_CALL_MAX, REPLICATION_METRICS_REPLY_BYTES_MAX,
    REPLICATION_POLICY_LEN_MAX, REPLICATION_PROGRESS_LEN_MAX,
};
pub use runtime_stats::{
    RuntimeStat, RUNTIME_STATS_COUNT_MAX, RUNTIME_STATS_MAX_AGE_SECS,
    RUNTIME_STATS_REPLY_BYTES_MAX, RUNTIME_STAT_PAYLOAD_BYTES_MAX,
};
pub use scheduled::executions::{ExecutionProgress, PolledExecution};
pub use scheduled::queries::{Maintenance, ScheduledQueryDefinition};
pub use scheduled::{
    QueryState, ScheduledExecution, ScheduledQuery, SCHEDULED_ERROR_MESSAGE_CHARS_MAX,
    SCHEDULED_EXECUTIONS_COUNT_MAX, SCHEDULED_EXECUTION_MAX_AGE_SECS,
    SCHEDULED_EXECUTION_TIMEOUT_SECS_DEFAULT, SCHEDULED_QUERIES_PER_NAMESPACE_MAX,
    SCHEDULED_QUERY_NAME_LEN_MAX, SCHEDULED_QUERY_TEXT_LEN_MAX,
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
pub use store_uuid::UUID_TEXT_LEN;
pub use warehouse::{Filesystem, LocalFilesystem, QuickStats, WarehouseReport};
pub use workload::parts::{NewPool, PoolChanges, TriggerChanges, WM_ENTITY_TYPES};
pub use workload::plans::{AlterPlanFlags, NewResourcePlan, PlanChanges, WM_DEFAULT_POOL_PATH};
pub use workload::{
    is_valid_scheduling_policy, java_double, namespace_or_default, WM_DEFAULT_NAMESPACE,
    WM_MAPPINGS_PER_PLAN_MAX, WM_NAME_LEN_MAX, WM_PLANS_PER_NAMESPACE_MAX, WM_POLICY_LEN_MAX,
    WM_POOLS_PER_PLAN_MAX, WM_POOL_TRIGGERS_PER_PLAN_MAX, WM_TEXT_LEN_MAX,
    WM_TRIGGERS_PER_PLAN_MAX,
};
