//! Where a catalog's metadata comes from: the one trait both sources implement, and the few
//! facts of tables, partitions and statistics the catalog reads from them.

use std::collections::BTreeMap;
use std::fmt::Debug;

use datafusion::error::{DataFusionError, Result};

/// A Hive Metastore as the catalog reads it: the embedded store ([`crate::EmbeddedSource`])
/// or any metastore over Thrift ([`crate::ThriftSource`]).
///
/// Every method blocks: the catalog calls them from Tokio's blocking pool
/// (`spawn_blocking`) where DataFusion's API is async, and directly where it is not
/// (listing schema and table names).
pub trait MetadataSource: Debug + Send + Sync + 'static {
    /// The names of every database.
    fn databases(&self) -> Result<Vec<String>>;

    /// The names of every table of `database`.
    fn tables(&self, database: &str) -> Result<Vec<String>>;

    /// Table `database.name`; `None` when there is no such table (or database).
    fn table(&self, database: &str, name: &str) -> Result<Option<HiveTableInfo>>;

    /// The partitions of `database.name` that Hive's partition `filter` selects (`None`:
    /// every partition), in the order of their values.
    fn partitions(
        &self,
        database: &str,
        name: &str,
        filter: Option<&str>,
    ) -> Result<Vec<HivePartitionInfo>>;

    /// The statistics of `columns` of table `database.name`, for those columns that have
    /// any: the table's own when `partitions` is `None` (an unpartitioned table), else
    /// those of the partitions named (`k1=v1/k2=v2`) aggregated as Hive's
    /// `get_aggr_stats_for` does.
    fn statistics(
        &self,
        database: &str,
        name: &str,
        partitions: Option<&[String]>,
        columns: &[String],
    ) -> Result<Vec<ColumnSummary>>;
}

/// A column: its name and Hive type, as the metastore holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiveColumn {
    /// The name, lowercased by the metastore.
    pub name: String,
    /// The Hive type (`bigint`, `decimal(10,2)`, `varchar(20)`, ...).
    pub type_name: String,
}

/// What the catalog reads of a table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HiveTableInfo {
    /// The database.
    pub database: String,
    /// The table.
    pub name: String,
    /// `MANAGED_TABLE`, `EXTERNAL_TABLE`, `VIRTUAL_VIEW`, ...
    pub table_type: String,
    /// The data columns, in order.
    pub columns: Vec<HiveColumn>,
    /// The partition keys, in order.
    pub partition_keys: Vec<HiveColumn>,
    /// The table's location.
    pub location: Option<String>,
    /// The storage descriptor's input format class.
    pub input_format: Option<String>,
    /// The serde's class.
    pub serde: Option<String>,
    /// The table's parameters (`numRows`, `spark.sql.sources.provider`, ...).
    pub parameters: BTreeMap<String, String>,
}

/// What the catalog reads of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HivePartitionInfo {
    /// One value per partition key, in key order.
    pub values: Vec<String>,
    /// The partition's location.
    pub location: Option<String>,
    /// The partition's parameters (`numRows`, ...).
    pub parameters: BTreeMap<String, String>,
}

/// A low or high value of a column's statistics.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsBound {
    /// Integral values; days since the epoch for dates, seconds for timestamps.
    Integer(i64),
    /// Floating values.
    Double(f64),
    /// A decimal: `unscaled × 10^-scale`.
    Decimal {
        /// The unscaled value.
        unscaled: i128,
        /// The scale.
        scale: i16,
    },
}

/// One column's statistics, as a planner uses them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnSummary {
    /// The column, lowercased.
    pub column: String,
    /// Null values.
    pub null_count: Option<u64>,
    /// Distinct values; `None` where the writer records none (booleans, binaries).
    pub distinct_count: Option<u64>,
    /// The low value, if known.
    pub min: Option<StatsBound>,
    /// The high value, if known.
    pub max: Option<StatsBound>,
}

/// The `numRows` parameter Hive and Spark write on tables and partitions, when it is a
/// count: Hive writes `-1` for unknown.
pub(crate) fn row_count(parameters: &BTreeMap<String, String>) -> Option<u64> {
    parameters.get("numRows")?.trim().parse().ok()
}

/// A metastore error as DataFusion carries it.
pub(crate) fn external(error: impl std::error::Error + Send + Sync + 'static) -> DataFusionError {
    DataFusionError::External(Box::new(error))
}
