//! hivestore as a library: the Hive Metastore catalog in-process, no server.
//!
//! # What it is
//!
//! [`Metastore`] is the catalog of a Hive Metastore — catalogs, databases,
//! tables, partitions, column statistics, functions, constraints, locks and
//! transactions, the notification log — opened from a directory on disk and
//! used through plain method calls, with the semantics a Hive Metastore
//! client expects from the Thrift server:
//!
//! - names are trimmed and lowercased on every write and lookup, and checked
//!   with Hive's rules and messages;
//! - databases and tables get Hive's default locations in the warehouse
//!   (`<warehouse>/<db>.db/<table>`), and their directories are made, moved
//!   on rename and deleted on drop, on the local filesystem (`file:` URIs and
//!   absolute paths; other filesystems are recorded and never touched);
//! - table types are reconciled with the `EXTERNAL` parameter, column types
//!   are validated, `alter_table` applies Hive's rules, including the
//!   compare-and-set Iceberg relies on;
//! - partitions are listed and pruned by Hive's filter language on their
//!   keys ([`Selection`]), as fast as the server lists them;
//! - statistics are aggregated over partitions as `get_aggr_stats_for` does;
//! - every write is atomic and durable when the call returns, writes its
//!   notification events in the same batch, and no answer shows a write a
//!   crash could still take back.
//!
//! The same engine serves hivestore's Thrift server, so a table created here
//! is the table a Spark, Trino or Iceberg client sees through the server
//! opened on the same directory (one process at a time).
//!
//! # What it is not
//!
//! Not a Thrift client: it does not talk to a running metastore. Not a query
//! engine: it stores metadata, never reads or writes table data (besides
//! making and deleting directories as Hive does). One process opens a data
//! directory at a time (sled locks it): an engine beside a running server
//! talks to the server over Thrift instead.
//!
//! # Stability
//!
//! This crate is hivestore's stable API: it changes by deprecating first. The
//! model types ([`Table`], [`Database`], ...) are the engine's, re-exported.
//!
//! # Example
//!
//! ```
//! use hivestore::{Database, FieldSchema, Metastore, StorageDescriptor, Table};
//!
//! let data = tempfile::tempdir()?;
//! let warehouse = tempfile::tempdir()?;
//! let metastore = Metastore::open(data.path(), warehouse.path().to_str().unwrap())?;
//!
//! metastore.create_database(Database { name: "Sales".into(), ..Database::default() })?;
//! let orders = metastore.create_table(Table {
//!     db_name: "sales".into(),
//!     table_name: "Orders".into(),
//!     sd: Some(StorageDescriptor {
//!         cols: vec![FieldSchema { name: "id".into(), type_name: "bigint".into(), comment: None }],
//!         ..StorageDescriptor::default()
//!     }),
//!     ..Table::default()
//! })?;
//! assert_eq!(orders.table_name, "orders");
//! assert_eq!(orders.table_type.as_deref(), Some("MANAGED_TABLE"));
//! assert!(warehouse.path().join("sales.db/orders").is_dir());
//! assert_eq!(metastore.list_tables("hive", "sales", Some("ord*"))?, vec!["orders"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod events;
mod functions;
mod partitions;
mod statistics;
mod transactions;

use std::path::Path;
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::Store;

pub use events::Events;
pub use partitions::Selection;

pub use hivestore_engine::{
    make_partition_name, partition_name_to_values, AggregateStatistics, ColumnStatistics,
    ConstraintKind, ConstraintRow, DropPartitionsOptions, DroppedPartitions, ForeignKeyFilter,
    Function, FunctionType, Partition, PartitionStatistics, ReferencedColumn, ResourceType,
    ResourceUri, StatsDecimal, StatsKind, StatsValue, StatsWriteOptions, TableStatistics,
    DEFAULT_PARTITION_NAME, DEFAULT_STATS_ENGINE,
};
pub use hivestore_engine::{
    AlterTableOptions, Catalog, CreationMetadata, Database, DatabaseType, DropDatabaseOptions,
    DropTableOptions, DroppedDatabase, DroppedTable, Durability, Error, ExpectedParameter,
    FieldSchema, FileMetadata, Filesystem, LocalFilesystem, Order, PrincipalPrivilegeSet,
    PrincipalType, PrivilegeGrantInfo, Result, SerDeInfo, SerdeType, SkewedInfo,
    SkewedValueLocation, StorageDescriptor, StoreOptions, Table, TableMeta, WarehouseReport,
    DDL_TIME_PARAMETER, DEFAULT_CATALOG_NAME, DEFAULT_DATABASE_NAME, EXTERNAL_PARAMETER,
    EXTERNAL_TABLE, EXTERNAL_TABLE_PURGE_PARAMETER, MANAGED_TABLE, MATERIALIZED_VIEW, VIRTUAL_VIEW,
};

/// Hive's locks: what [`Metastore::lock`] takes and answers.
pub mod locks {
    pub use hivestore_engine::locks::{
        DataOperation, LockComponent, LockLevel, LockRequest, LockResponse, LockState, LockStatus,
        LockType, ShowLocksFilter,
    };
}

/// Hive's transactions: what [`Metastore::open_txns`] takes and its kin answer.
pub mod txns {
    pub use hivestore_engine::txns::{
        OpenTxnRequest, OpenTxns, TableValidWriteIds, TxnState, TxnSummary, TxnType,
    };
}

/// An open metastore: the catalog of a Hive Metastore with Hive's semantics.
///
/// Cheap to share between threads (`&Metastore` is `Send + Sync`); every
/// method is one atomic, durable operation. One process opens a data
/// directory at a time.
pub struct Metastore {
    store: Store,
}

impl std::fmt::Debug for Metastore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Metastore")
            .field("options", self.store.options())
            .finish()
    }
}

impl Metastore {
    /// Opens (creating on first use) the metastore stored in `data_dir`,
    /// with `warehouse` as the warehouse root: the location of catalog
    /// `hive` and database `default`, under which new databases and tables
    /// get their directories. A plain absolute path or a `file:` URI is
    /// managed on the local filesystem; `s3a://...`, `hdfs://...` and other
    /// schemes are recorded only.
    pub fn open(data_dir: impl AsRef<Path>, warehouse: impl Into<String>) -> Result<Self> {
        Self::open_with_options(data_dir, StoreOptions::new(warehouse))
    }

    /// Opens the metastore in `data_dir` with explicit options: durability,
    /// the filesystem (or none, with [`StoreOptions::metadata_only`]), Hive's
    /// column type change check.
    pub fn open_with_options(data_dir: impl AsRef<Path>, options: StoreOptions) -> Result<Self> {
        let store = Store::open(data_dir.as_ref(), options)?;
        Ok(Metastore { store })
    }

    /// A metastore held in memory, gone when dropped; for tests. Directories
    /// are still made under `warehouse` unless the options say otherwise.
    pub fn in_memory(options: StoreOptions) -> Result<Self> {
        let mut options = options;
        options.durability = Durability::Memory;
        let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options)?;
        Ok(Metastore { store })
    }

    /// The options the metastore was opened with.
    pub fn options(&self) -> &StoreOptions {
        self.store.options()
    }

    /// Creates a catalog; its location is required.
    pub fn create_catalog(&self, catalog: Catalog) -> Result<Catalog> {
        self.settled(|store| store.create_catalog(catalog))
    }

    /// Catalog `name`.
    pub fn get_catalog(&self, name: &str) -> Result<Catalog> {
        self.settled(|store| store.get_catalog(name))
    }

    /// The names of every catalog, ascending.
    pub fn list_catalogs(&self) -> Result<Vec<String>> {
        self.settled(|store| store.list_catalogs())
    }

    /// Drops catalog `name`, which must hold no database; `hive` cannot be
    /// dropped.
    pub fn drop_catalog(&self, name: &str) -> Result<Catalog> {
        self.settled(|store| store.drop_catalog(name))
    }

    /// Creates a database in `database.catalog_name` (empty: `hive`); without
    /// a location it gets `<catalog location>/<name>.db`, and its directory
    /// is made.
    pub fn create_database(&self, database: Database) -> Result<Database> {
        self.settled(|store| store.create_database(database))
    }

    /// Database `catalog.name`.
    pub fn get_database(&self, catalog: &str, name: &str) -> Result<Database> {
        self.settled(|store| store.get_database(catalog, name))
    }

    /// The databases of `catalog` whose name matches Hive's `pattern`
    /// (`|` alternatives, `*` wildcard, case-insensitive; `None`: all),
    /// ascending.
    pub fn list_databases(&self, catalog: &str, pattern: Option<&str>) -> Result<Vec<String>> {
        self.settled(|store| store.list_databases_matching(catalog, pattern))
    }

    /// Replaces database `catalog.name`; name, catalog and create time stay.
    pub fn alter_database(
        &self,
        catalog: &str,
        name: &str,
        database: Database,
    ) -> Result<Database> {
        self.settled(|store| store.alter_database(catalog, name, database))
    }

    /// Drops database `catalog.name`; see [`DropDatabaseOptions`].
    pub fn drop_database(
        &self,
        catalog: &str,
        name: &str,
        options: DropDatabaseOptions,
    ) -> Result<DroppedDatabase> {
        self.settled(|store| store.drop_database_with_options(catalog, name, &options))
    }

    /// Creates `table` in `table.cat_name` (empty: `hive`) and `table.db_name`
    /// with Hive's checks, type reconciliation and default location; returns
    /// it as stored.
    pub fn create_table(&self, table: Table) -> Result<Table> {
        self.settled(|store| store.create_table(table))
    }

    /// Table `catalog.database.name`.
    pub fn get_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        self.settled(|store| store.get_table(catalog, database, name))
    }

    /// The tables of `catalog.database` whose name matches Hive's `pattern`,
    /// ascending.
    pub fn list_tables(
        &self,
        catalog: &str,
        database: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        self.settled(|store| store.list_tables_matching(catalog, database, pattern, None))
    }

    /// The tables of `catalog.database` of type `table_type` whose name
    /// matches `pattern`, ascending.
    pub fn list_tables_by_type(
        &self,
        catalog: &str,
        database: &str,
        pattern: Option<&str>,
        table_type: &str,
    ) -> Result<Vec<String>> {
        self.settled(|store| {
            store.list_tables_matching(catalog, database, pattern, Some(table_type))
        })
    }

    /// Hive's `get_table_meta`: a summary of every table whose database and
    /// name match the patterns and whose type is in `table_types` (empty:
    /// any).
    pub fn table_meta(
        &self,
        catalog: &str,
        database_pattern: Option<&str>,
        table_pattern: Option<&str>,
        table_types: &[String],
    ) -> Result<Vec<TableMeta>> {
        self.settled(|store| {
            store.get_table_meta(catalog, database_pattern, table_pattern, table_types)
        })
    }

    /// Hive's `get_table_names_by_filter`: the tables of `catalog.database`
    /// passing a filter such as
    /// `hive_filter_field_params__table_type like "ICEBERG"`, at most `max`.
    pub fn table_names_by_filter(
        &self,
        catalog: &str,
        database: &str,
        filter: &str,
        max: Option<usize>,
    ) -> Result<Vec<String>> {
        self.settled(|store| store.list_table_names_by_filter(catalog, database, filter, max))
    }

    /// Replaces table `catalog.database.name` with `table` (which may carry a
    /// new name or database), with Hive's alter rules; see
    /// [`AlterTableOptions`] for cascade and compare-and-set.
    ///
    /// # Example
    ///
    /// Iceberg-style optimistic commit: the alter applies only if
    /// `metadata_location` still has the value the writer started from.
    ///
    /// ```
    /// use hivestore::{AlterTableOptions, Error, ExpectedParameter, Metastore, StoreOptions, Table};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// let mut table = Table { db_name: "default".into(), table_name: "ice".into(), ..Table::default() };
    /// table.parameters.insert("EXTERNAL".into(), "TRUE".into());
    /// table.parameters.insert("metadata_location".into(), "v1.json".into());
    /// let table = metastore.create_table(table)?;
    ///
    /// let commit = |from: &str, to: &str| {
    ///     let mut next = table.clone();
    ///     next.parameters.insert("metadata_location".into(), to.into());
    ///     let options = AlterTableOptions {
    ///         expected_parameter: Some(ExpectedParameter {
    ///             key: "metadata_location".into(),
    ///             value: from.into(),
    ///         }),
    ///         ..AlterTableOptions::default()
    ///     };
    ///     metastore.alter_table("hive", "default", "ice", next, &options)
    /// };
    /// commit("v1.json", "v2.json")?;
    /// let lost = commit("v1.json", "v2b.json").unwrap_err();
    /// assert!(matches!(lost, Error::Refused(_)));
    /// assert!(lost.to_string().starts_with(
    ///     "The table has been modified. The parameter value for key 'metadata_location' is"
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn alter_table(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        table: Table,
        options: &AlterTableOptions,
    ) -> Result<Table> {
        self.settled(|store| {
            store.alter_table_with_options(catalog, database, name, table, options)
        })
    }

    /// Drops table `catalog.database.name`; see [`DropTableOptions`].
    pub fn drop_table(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        options: DropTableOptions,
    ) -> Result<DroppedTable> {
        self.settled(|store| store.drop_table_with_options(catalog, database, name, &options))
    }

    /// Deletes the files of managed table `catalog.database.name`, keeping
    /// its directory; external tables are refused.
    pub fn truncate_table(&self, catalog: &str, database: &str, name: &str) -> Result<Table> {
        self.settled(|store| store.truncate_table(catalog, database, name))
    }

    /// Runs `call`, and answers only once what it read is durable (see
    /// [`Store::settle`]): an answer never shows a write that a crash could
    /// still lose.
    pub(crate) fn settled<T>(&self, call: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        let mark = self.store.read_mark();
        let answer = call(&self.store)?;
        self.store.settle(mark)?;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metastore(warehouse: &Path) -> Metastore {
        let options = StoreOptions::new(warehouse.to_string_lossy().to_string());
        Metastore::in_memory(options).unwrap()
    }

    #[test]
    fn the_facade_has_the_engines_semantics() {
        let warehouse = tempfile::tempdir().unwrap();
        let metastore = metastore(warehouse.path());
        let database = Database {
            name: "db".into(),
            ..Database::default()
        };
        metastore.create_database(database).unwrap();
        let table = Table {
            db_name: "DB".into(),
            table_name: "t".into(),
            ..Table::default()
        };
        let created = metastore.create_table(table).unwrap();
        assert!(warehouse.path().join("db.db/t").is_dir());
        let options = DropTableOptions { delete_data: true };
        let dropped = metastore.drop_table("hive", "db", "t", options).unwrap();
        assert_eq!(dropped.table, created);
        assert!(!warehouse.path().join("db.db/t").exists());
        let error = metastore.get_table("hive", "db", "t").unwrap_err();
        assert_eq!(error.to_string(), "hive.db.t table not found");
    }

    #[test]
    fn metastore_is_shareable_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Metastore>();
    }

    /// An error quoting a huge input shows a prefix of it and its length, as the Thrift
    /// server's exceptions do.
    #[test]
    fn errors_quote_a_huge_name_briefly() {
        let warehouse = tempfile::tempdir().unwrap();
        let metastore = metastore(warehouse.path());
        let name = "t".repeat(1 << 20);
        let error = metastore.get_table("hive", "default", &name).unwrap_err();
        let shown = error.to_string();
        assert!(shown.len() < 512, "{} bytes", shown.len());
        assert!(shown.contains("… (1048576 bytes)"), "{shown}");
    }
}
