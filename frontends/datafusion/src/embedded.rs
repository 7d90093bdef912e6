//! The embedded store as a metadata source: `hivestore::Metastore` in this process.

use std::sync::Arc;

use datafusion::error::Result;
use hivestore::{
    ColumnStatistics, Error, Metastore, Partition, Selection, StatsKind, StatsValue, Table,
    DEFAULT_CATALOG_NAME, DEFAULT_STATS_ENGINE,
};

use crate::source::{
    external, ColumnSummary, HiveColumn, HivePartitionInfo, HiveTableInfo, MetadataSource,
    StatsBound,
};

/// The databases of one catalog of an open [`Metastore`].
#[derive(Debug, Clone)]
pub struct EmbeddedSource {
    metastore: Arc<Metastore>,
    catalog: String,
}

impl EmbeddedSource {
    /// The databases of catalog `hive` of `metastore`.
    pub fn new(metastore: Arc<Metastore>) -> Self {
        Self::with_catalog(metastore, DEFAULT_CATALOG_NAME)
    }

    /// The databases of catalog `catalog` of `metastore`.
    pub fn with_catalog(metastore: Arc<Metastore>, catalog: impl Into<String>) -> Self {
        EmbeddedSource {
            metastore,
            catalog: catalog.into(),
        }
    }
}

impl MetadataSource for EmbeddedSource {
    fn databases(&self) -> Result<Vec<String>> {
        self.metastore
            .list_databases(&self.catalog, None)
            .map_err(external)
    }

    fn tables(&self, database: &str) -> Result<Vec<String>> {
        self.metastore
            .list_tables(&self.catalog, database, None)
            .map_err(external)
    }

    fn table(&self, database: &str, name: &str) -> Result<Option<HiveTableInfo>> {
        match self.metastore.get_table(&self.catalog, database, name) {
            Ok(table) => Ok(Some(table_info(table))),
            Err(Error::NoSuchObject(_)) => Ok(None),
            Err(error) => Err(external(error)),
        }
    }

    fn partitions(
        &self,
        database: &str,
        name: &str,
        filter: Option<&str>,
    ) -> Result<Vec<HivePartitionInfo>> {
        let selection = filter.map_or(Selection::All, Selection::Filter);
        let partitions = self
            .metastore
            .partitions(&self.catalog, database, name, selection, None)
            .map_err(external)?;
        Ok(partitions.into_iter().map(partition_info).collect())
    }

    fn statistics(
        &self,
        database: &str,
        name: &str,
        partitions: Option<&[String]>,
        columns: &[String],
    ) -> Result<Vec<ColumnSummary>> {
        let (catalog, engine) = (&self.catalog, DEFAULT_STATS_ENGINE);
        let found = match partitions {
            None => self
                .metastore
                .table_column_statistics(catalog, database, name, columns, engine, false)
                .map(|found| found.stats),
            Some(names) => self
                .metastore
                .aggregate_column_statistics(catalog, database, name, names, columns, engine)
                .map(|found| found.stats),
        };
        Ok(found.map_err(external)?.iter().map(summary).collect())
    }
}

fn columns(fields: &[hivestore::FieldSchema]) -> Vec<HiveColumn> {
    fields
        .iter()
        .map(|field| HiveColumn {
            name: field.name.clone(),
            type_name: field.type_name.clone(),
        })
        .collect()
}

fn table_info(table: Table) -> HiveTableInfo {
    let sd = table.sd.unwrap_or_default();
    HiveTableInfo {
        database: table.db_name,
        name: table.table_name,
        table_type: table.table_type.unwrap_or_default(),
        columns: columns(&sd.cols),
        partition_keys: columns(&table.partition_keys),
        location: sd.location,
        input_format: sd.input_format,
        serde: sd.serde_info.and_then(|serde| serde.serialization_lib),
        parameters: table.parameters,
    }
}

fn partition_info(partition: Partition) -> HivePartitionInfo {
    HivePartitionInfo {
        location: partition.location().map(str::to_string),
        values: partition.values,
        parameters: partition.parameters,
    }
}

fn bound(value: &StatsValue) -> Option<StatsBound> {
    match value {
        StatsValue::Integer(value) => Some(StatsBound::Integer(*value)),
        StatsValue::Double(value) => Some(StatsBound::Double(*value)),
        StatsValue::Decimal(decimal) => Some(StatsBound::Decimal {
            unscaled: crate::statistics::unscaled_from_bytes(&decimal.unscaled)?,
            scale: decimal.scale,
        }),
    }
}

fn summary(statistics: &ColumnStatistics) -> ColumnSummary {
    let counts_distinct = !matches!(statistics.kind, StatsKind::Boolean | StatsKind::Binary);
    ColumnSummary {
        column: statistics.column_name.to_string(),
        null_count: u64::try_from(statistics.num_nulls).ok(),
        distinct_count: counts_distinct
            .then(|| u64::try_from(statistics.num_distinct_values).ok())
            .flatten(),
        min: statistics.low_value.as_ref().and_then(bound),
        max: statistics.high_value.as_ref().and_then(bound),
    }
}
