//! hivestore as a DataFusion catalog: the databases of a Hive Metastore as schemas, its
//! tables as tables over their files, partitions pruned by the metastore.
//!
//! # What it does
//!
//! [`HiveCatalog`] is a DataFusion [`CatalogProvider`] over a [`MetadataSource`]: the
//! embedded store ([`EmbeddedSource`], a [`hivestore::Metastore`] in this process) or any
//! Hive Metastore over Thrift ([`ThriftSource`]: hivestore's server, Apache Hive 2.3 or 4).
//!
//! - Each database is a schema, each table a [`HiveTable`] whose columns are the table's
//!   data columns then its partition keys, with Hive's types as Arrow's (an unread type,
//!   such as `map<...>`, is an error naming the column).
//! - A scan hands the predicates on partition keys (`=`, `<>`, `<`, `<=`, `>`, `>=`, `IN`,
//!   `BETWEEN`, `AND`, `OR`, `NOT` on literals of the keys' types) to the metastore as
//!   Hive's partition filter, which prunes the partitions; DataFusion applies them again to
//!   the rows (`Inexact`), and keeps every other predicate.
//! - The chosen partitions' files (on the local filesystem) are read as Parquet, partition
//!   values added as columns; [`HiveScanExec`] says which files it reads and opened.
//! - The planner gets row counts from the `numRows` parameters of the table or the chosen
//!   partitions, and nulls, bounds and distinct values from the metastore's column
//!   statistics, aggregated over the chosen partitions.
//!
//! # What it does not (yet)
//!
//! Read CSV, ORC or text tables (ORC has no maintained Rust reader DataFusion uses), files
//! compressed with zstd (the parquet crate's zstd cannot link beside the engine's), files
//! outside the local filesystem, or write.
//!
//! # Blocking
//!
//! The metastore calls block. Where DataFusion's API is async (looking a table up,
//! planning a scan) they run on Tokio's blocking pool (`spawn_blocking`); where it is not
//! (listing schema and table names) they run in place: one short call each.
//!
//! # Example
//!
//! A table in the embedded store, a Parquet file in one of its partitions, a query:
//!
//! ```
//! use std::sync::Arc;
//!
//! use datafusion::arrow::array::{Int64Array, RecordBatch};
//! use datafusion::arrow::datatypes::{DataType, Field, Schema};
//! use datafusion::prelude::SessionContext;
//! use hivestore::{FieldSchema, Metastore, Partition, StorageDescriptor, StoreOptions, Table};
//! use hivestore_datafusion::{EmbeddedSource, HiveCatalog};
//! use parquet::arrow::ArrowWriter;
//!
//! let warehouse = tempfile::tempdir()?;
//! let metastore = Metastore::in_memory(StoreOptions::new(warehouse.path().to_str().unwrap()))?;
//! let column = |name: &str, type_name: &str| FieldSchema {
//!     name: name.into(), type_name: type_name.into(), comment: None,
//! };
//! metastore.create_table(Table {
//!     db_name: "default".into(),
//!     table_name: "orders".into(),
//!     sd: Some(StorageDescriptor {
//!         cols: vec![column("amount", "bigint")],
//!         input_format: Some("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat".into()),
//!         ..StorageDescriptor::default()
//!     }),
//!     partition_keys: vec![column("ds", "string")],
//!     ..Table::default()
//! })?;
//! let days = ["2024-01-01", "2024-01-02"].map(|ds| Partition { values: vec![ds.into()], ..Partition::default() });
//! for (partition, amounts) in metastore
//!     .add_partitions("hive", "default", "orders", days.to_vec(), false)?
//!     .iter()
//!     .zip([vec![10, 20], vec![5]])
//! {
//!     let schema = Arc::new(Schema::new(vec![Field::new("amount", DataType::Int64, false)]));
//!     let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(amounts))])?;
//!     let file = std::fs::File::create(format!("{}/part-0.parquet", partition.location().unwrap()))?;
//!     let mut writer = ArrowWriter::try_new(file, schema, None)?;
//!     writer.write(&batch)?;
//!     writer.close()?;
//! }
//!
//! let context = SessionContext::new();
//! let source = EmbeddedSource::new(Arc::new(metastore));
//! context.register_catalog("hive", Arc::new(HiveCatalog::new(Arc::new(source))));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let batches = runtime.block_on(async {
//!     let query = "SELECT sum(amount) AS total FROM hive.default.orders WHERE ds = '2024-01-01'";
//!     context.sql(query).await?.collect().await
//! })?;
//! let total = batches[0].column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0);
//! assert_eq!(total, 30);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod embedded;
mod filter;
mod scan;
mod source;
mod statistics;
mod table;
mod thrift;
mod types;

use std::any::Any;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider};
use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result};

pub use embedded::EmbeddedSource;
pub use scan::HiveScanExec;
pub use source::{
    ColumnSummary, HiveColumn, HivePartitionInfo, HiveTableInfo, MetadataSource, StatsBound,
};
pub use table::{HiveTable, Pruning};
pub use thrift::{ThriftSource, CALL_TIMEOUT, CONNECT_TIMEOUT};

/// Runs a blocking metastore call on Tokio's blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|error| DataFusionError::External(Box::new(error)))?
}

/// A Hive Metastore as a DataFusion catalog: its databases are the schemas.
#[derive(Debug, Clone)]
pub struct HiveCatalog {
    source: Arc<dyn MetadataSource>,
    pruning: Pruning,
}

impl HiveCatalog {
    /// The catalog of the metastore `source` reads; partitions pruned by the metastore.
    pub fn new(source: Arc<dyn MetadataSource>) -> Self {
        HiveCatalog {
            source,
            pruning: Pruning::default(),
        }
    }

    /// The same catalog, its tables' partitions pruned by `pruning`.
    pub fn with_pruning(self, pruning: Pruning) -> Self {
        HiveCatalog { pruning, ..self }
    }
}

impl CatalogProvider for HiveCatalog {
    fn as_any(&self) -> &dyn Any {
        self
    }

    /// The databases; none when the metastore cannot be read (the trait has no error).
    fn schema_names(&self) -> Vec<String> {
        self.source.databases().unwrap_or_default()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        // A database's tables are looked up when a query names them: a missing database
        // is a missing table then.
        Some(Arc::new(HiveSchema {
            source: Arc::clone(&self.source),
            database: name.to_string(),
            pruning: self.pruning,
        }))
    }
}

/// A Hive database as a DataFusion schema: its tables.
#[derive(Debug, Clone)]
pub struct HiveSchema {
    source: Arc<dyn MetadataSource>,
    database: String,
    pruning: Pruning,
}

impl HiveSchema {
    /// The tables of `database` in the metastore `source` reads.
    pub fn new(source: Arc<dyn MetadataSource>, database: impl Into<String>) -> Self {
        HiveSchema {
            source,
            database: database.into(),
            pruning: Pruning::default(),
        }
    }
}

#[async_trait]
impl SchemaProvider for HiveSchema {
    fn as_any(&self) -> &dyn Any {
        self
    }

    /// The tables; none when the metastore cannot be read (the trait has no error).
    fn table_names(&self) -> Vec<String> {
        self.source.tables(&self.database).unwrap_or_default()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let (source, database, name, pruning) = (
            Arc::clone(&self.source),
            self.database.clone(),
            name.to_string(),
            self.pruning,
        );
        blocking(move || {
            let Some(info) = source.table(&database, &name)? else {
                return Ok(None);
            };
            let table = HiveTable::try_new(source, info)?.with_pruning(pruning);
            let table: Arc<dyn TableProvider> = Arc::new(table);
            Ok(Some(table))
        })
        .await
    }

    fn table_exist(&self, name: &str) -> bool {
        matches!(self.source.table(&self.database, name), Ok(Some(_)))
    }
}
