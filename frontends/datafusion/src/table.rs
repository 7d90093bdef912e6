//! A Hive table as a DataFusion table: its schema from the metastore, partitions pruned by
//! the metastore from the predicates on partition keys, files listed from the chosen
//! partitions' locations.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{plan_err, ScalarValue, Statistics};
use datafusion::common::{Column, DFSchema};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use hivestore::make_partition_name;

use crate::blocking;
use crate::filter::{converts, hive_filter, PartitionKey};
use crate::scan::{HiveScanExec, OutputColumn, ScanFile};
use crate::source::{row_count, HivePartitionInfo, HiveTableInfo, MetadataSource};
use crate::statistics::statistics;
use crate::types::{arrow_type, partition_value};

/// The Spark table parameter that names a data source table's format.
const SPARK_PROVIDER: &str = "spark.sql.sources.provider";

/// Who prunes a scan's partitions by the predicates on partition keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pruning {
    /// The metastore, from Hive's partition filter: only the chosen partitions are listed.
    #[default]
    Metastore,
    /// DataFusion: every partition is listed, and the predicates evaluated on their values,
    /// as DataFusion's listing tables prune. For metastores whose filter is weak (Hive's
    /// object store path filters string keys only), and as the baseline of the benchmark.
    DataFusion,
}

/// A Hive table stored as Parquet, read through its metastore.
#[derive(Debug)]
pub struct HiveTable {
    source: Arc<dyn MetadataSource>,
    pruning: Pruning,
    info: HiveTableInfo,
    /// The data columns, then the partition keys.
    schema: SchemaRef,
    keys: Vec<PartitionKey>,
    statistics: Statistics,
}

impl HiveTable {
    /// The table `info` describes, read from `source`; refused when its format or one of its
    /// column types is not read (the error names which). Reads the table's statistics
    /// (blocking) when it is unpartitioned.
    pub fn try_new(source: Arc<dyn MetadataSource>, info: HiveTableInfo) -> Result<Self> {
        let qualified = format!("{}.{}", info.database, info.name);
        if !is_parquet(&info) {
            let stored_as = info.input_format.as_deref().unwrap_or("no input format");
            return plan_err!(
                "table `{qualified}` ({}) is stored as {stored_as}: hivestore-datafusion reads \
                 Parquet tables only",
                info.table_type
            );
        }
        let mut fields = Vec::with_capacity(info.columns.len() + info.partition_keys.len());
        for column in &info.columns {
            fields.push(Field::new(
                &column.name,
                arrow_type(&qualified, column)?,
                true,
            ));
        }
        let mut keys = Vec::with_capacity(info.partition_keys.len());
        for key in &info.partition_keys {
            let data_type = arrow_type(&qualified, key)?;
            fields.push(Field::new(&key.name, data_type.clone(), true));
            keys.push(PartitionKey {
                name: key.name.clone(),
                data_type,
            });
        }
        let schema = Arc::new(Schema::new(fields));
        let summaries = if keys.is_empty() {
            let columns: Vec<String> = info.columns.iter().map(|c| c.name.clone()).collect();
            source.statistics(&info.database, &info.name, None, &columns)?
        } else {
            Vec::new()
        };
        let statistics = statistics(&schema, row_count(&info.parameters), &summaries);
        Ok(HiveTable {
            source,
            pruning: Pruning::default(),
            info,
            schema,
            keys,
            statistics,
        })
    }

    /// The same table, its partitions pruned by `pruning`.
    pub fn with_pruning(self, pruning: Pruning) -> Self {
        HiveTable { pruning, ..self }
    }

    /// What the metastore holds of the table.
    pub fn info(&self) -> &HiveTableInfo {
        &self.info
    }

    /// The partitions a scan with `filters` reads, pruned by the metastore; one entry with
    /// no values (the table's location) when the table is unpartitioned.
    fn chosen_partitions(&self, filters: &[Expr]) -> Result<Vec<HivePartitionInfo>> {
        if self.keys.is_empty() {
            return Ok(vec![HivePartitionInfo {
                values: Vec::new(),
                location: self.info.location.clone(),
                parameters: self.info.parameters.clone(),
            }]);
        }
        let filter = match self.pruning {
            Pruning::Metastore => hive_filter(filters, &self.keys),
            Pruning::DataFusion => None,
        };
        self.source
            .partitions(&self.info.database, &self.info.name, filter.as_deref())
    }

    /// Statistics of a scan of `partitions` for `schema`'s columns: rows when every
    /// partition records them, column statistics aggregated by the metastore.
    fn scan_statistics(
        &self,
        schema: &Schema,
        partitions: &[HivePartitionInfo],
    ) -> Result<Statistics> {
        if self.keys.is_empty() {
            let mut statistics = self.statistics.clone();
            statistics.total_byte_size = datafusion::common::stats::Precision::Absent;
            let indices: Vec<usize> = schema
                .fields()
                .iter()
                .filter_map(|field| self.schema.index_of(field.name()).ok())
                .collect();
            return Ok(statistics.project(Some(&indices)));
        }
        let rows = partitions
            .iter()
            .map(|partition| row_count(&partition.parameters))
            .sum::<Option<u64>>();
        let key_names: Vec<&str> = self.keys.iter().map(|key| key.name.as_str()).collect();
        let columns: Vec<String> = self
            .info
            .columns
            .iter()
            .filter(|column| schema.index_of(&column.name).is_ok())
            .map(|column| column.name.clone())
            .collect();
        let summaries = if partitions.is_empty() || columns.is_empty() {
            Vec::new()
        } else {
            let names: Vec<String> = partitions
                .iter()
                .map(|partition| make_partition_name(&key_names, &partition.values))
                .collect();
            self.source
                .statistics(&self.info.database, &self.info.name, Some(&names), &columns)?
        };
        Ok(statistics(schema, rows, &summaries))
    }

    /// The files of `partitions` with their partition values, listed from the local
    /// filesystem.
    fn files(&self, partitions: &[HivePartitionInfo]) -> Result<Vec<ScanFile>> {
        let mut files = Vec::new();
        for partition in partitions {
            if partition.values.len() != self.keys.len() {
                return plan_err!(
                    "a partition of `{}.{}` has {} values for {} keys",
                    self.info.database,
                    self.info.name,
                    partition.values.len(),
                    self.keys.len()
                );
            }
            let values = self
                .keys
                .iter()
                .zip(&partition.values)
                .map(|(key, value)| partition_value(&key.name, value, &key.data_type))
                .collect::<Result<Vec<ScalarValue>>>()?;
            let Some(location) = partition.location.as_deref() else {
                continue;
            };
            let directory = local_path(location).ok_or_else(|| {
                DataFusionError::Plan(format!(
                    "location {location} of `{}.{}`: hivestore-datafusion reads the local \
                     filesystem only (file: URIs and absolute paths)",
                    self.info.database, self.info.name
                ))
            })?;
            let values = Arc::new(values);
            for path in data_files(&directory)? {
                files.push(ScanFile {
                    path,
                    partition_values: Arc::clone(&values),
                });
            }
        }
        Ok(files)
    }
}

fn is_parquet(info: &HiveTableInfo) -> bool {
    let names = |text: &Option<String>| {
        text.as_deref()
            .is_some_and(|text| text.to_ascii_lowercase().contains("parquet"))
    };
    let spark_parquet = info
        .parameters
        .get(SPARK_PROVIDER)
        .is_some_and(|provider| provider.eq_ignore_ascii_case("parquet"));
    names(&info.input_format) || names(&info.serde) || spark_parquet
}

/// `file:/p`, `file:///p` and `/p` as a local path.
fn local_path(location: &str) -> Option<PathBuf> {
    let path = match location.strip_prefix("file:") {
        Some(rest) => {
            let rest = rest.strip_prefix("//").unwrap_or(rest);
            rest.strip_prefix("localhost").unwrap_or(rest)
        }
        None => location,
    };
    path.starts_with('/').then(|| PathBuf::from(path))
}

/// The data files of a directory, by name: Hive skips names starting with `_` or `.`
/// (`_SUCCESS`, `.crc` files) and subdirectories. A directory that does not exist holds no
/// files, as for Hive.
fn data_files(directory: &std::path::Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(directory) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(DataFusionError::Execution(format!(
                "cannot list {}: {error}",
                directory.display()
            )))
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| {
            DataFusionError::Execution(format!("cannot list {}: {error}", directory.display()))
        })?;
        let name = entry.file_name();
        let hidden = name.to_string_lossy().starts_with(['_', '.']);
        if !hidden && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

#[async_trait]
impl TableProvider for HiveTable {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Inexact: the metastore may select more than a predicate holds for (see filter.rs),
        // and DataFusion applies it again to the rows.
        Ok(filters
            .iter()
            .map(|filter| {
                if converts(filter, &self.keys) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        Some(self.statistics.clone())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = match projection {
            Some(indices) => Arc::new(self.schema.project(indices)?),
            None => Arc::clone(&self.schema),
        };
        let data_columns = self.info.columns.len();
        let columns = schema
            .fields()
            .iter()
            .map(|field| {
                let index = self.schema.index_of(field.name())?;
                Ok(if index < data_columns {
                    OutputColumn::Data(field.name().clone(), field.data_type().clone())
                } else {
                    OutputColumn::Partition(index - data_columns)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (this, owned_filters) = (self.shallow(), filters.to_vec());
        let mut partitions = blocking(move || this.chosen_partitions(&owned_filters)).await?;
        if self.pruning == Pruning::DataFusion {
            partitions = self.prune(state, filters, partitions)?;
        }
        let (this, scan_schema) = (self.shallow(), Arc::clone(&schema));
        let (files, statistics, partitions) = blocking(move || {
            let files = this.files(&partitions)?;
            let statistics = this.scan_statistics(&scan_schema, &partitions)?;
            Ok((files, statistics, partitions.len()))
        })
        .await?;
        let config = state.config();
        Ok(Arc::new(HiveScanExec::new(
            format!("{}.{}", self.info.database, self.info.name),
            schema,
            columns,
            files,
            partitions,
            statistics,
            limit,
            config.target_partitions(),
            config.batch_size(),
        )))
    }
}

impl HiveTable {
    /// A copy to move into a blocking task (what the table holds is small, bar statistics).
    fn shallow(&self) -> HiveTable {
        HiveTable {
            source: Arc::clone(&self.source),
            pruning: self.pruning,
            info: self.info.clone(),
            schema: Arc::clone(&self.schema),
            keys: self.keys.clone(),
            statistics: self.statistics.clone(),
        }
    }
}

impl HiveTable {
    /// The partitions for which every predicate on partition keys in `filters` holds,
    /// evaluated by DataFusion on a batch of their values ([`Pruning::DataFusion`]).
    fn prune(
        &self,
        state: &dyn Session,
        filters: &[Expr],
        partitions: Vec<HivePartitionInfo>,
    ) -> Result<Vec<HivePartitionInfo>> {
        let on_keys: Vec<&Expr> = filters
            .iter()
            .filter(|filter| converts(filter, &self.keys))
            .collect();
        if on_keys.is_empty() || partitions.is_empty() {
            return Ok(partitions);
        }
        let fields: Vec<Field> = self
            .keys
            .iter()
            .map(|key| Field::new(&key.name, key.data_type.clone(), true))
            .collect();
        let key_schema = Arc::new(Schema::new(fields));
        let mut columns = Vec::with_capacity(self.keys.len());
        for (index, key) in self.keys.iter().enumerate() {
            let values = partitions
                .iter()
                .map(|partition| match partition.values.get(index) {
                    Some(value) => partition_value(&key.name, value, &key.data_type),
                    None => plan_err!("a partition has no value for key `{}`", key.name),
                })
                .collect::<Result<Vec<_>>>()?;
            columns.push(ScalarValue::iter_to_array(values)?);
        }
        let batch = RecordBatch::try_new(Arc::clone(&key_schema), columns)?;
        let df_schema = DFSchema::try_from(key_schema.as_ref().clone())?;
        let mut keep = vec![true; partitions.len()];
        for filter in on_keys {
            // The key columns by name alone: the batch has no table qualifier.
            let unqualified = filter
                .clone()
                .transform_up(|expr| match expr {
                    Expr::Column(column) => Ok(Transformed::yes(Expr::Column(
                        Column::new_unqualified(column.name),
                    ))),
                    other => Ok(Transformed::no(other)),
                })?
                .data;
            let predicate = state.create_physical_expr(unqualified, &df_schema)?;
            let answer = predicate.evaluate(&batch)?.into_array(partitions.len())?;
            let answer = answer.as_boolean_opt().ok_or_else(|| {
                DataFusionError::Internal("a predicate did not evaluate to booleans".into())
            })?;
            for (index, kept) in keep.iter_mut().enumerate() {
                *kept &= answer.is_valid(index) && answer.value(index);
            }
        }
        Ok(partitions
            .into_iter()
            .zip(keep)
            .filter_map(|(partition, kept)| kept.then_some(partition))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_on_the_local_filesystem_are_paths() {
        assert_eq!(local_path("file:/w/t"), Some(PathBuf::from("/w/t")));
        assert_eq!(local_path("file:///w/t"), Some(PathBuf::from("/w/t")));
        assert_eq!(local_path("/w/t"), Some(PathBuf::from("/w/t")));
        assert_eq!(local_path("s3a://bucket/w/t"), None);
        assert_eq!(local_path("hdfs://nn/w/t"), None);
    }

    #[test]
    fn hidden_files_and_directories_are_not_data() {
        let directory = tempfile::tempdir().unwrap();
        for name in [
            "part-0.parquet",
            "_SUCCESS",
            ".part-0.parquet.crc",
            "part-1.parquet",
        ] {
            std::fs::write(directory.path().join(name), b"").unwrap();
        }
        std::fs::create_dir(directory.path().join("sub")).unwrap();
        let names: Vec<String> = data_files(directory.path())
            .unwrap()
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(names, ["part-0.parquet", "part-1.parquet"]);
        assert!(data_files(&directory.path().join("missing"))
            .unwrap()
            .is_empty());
    }
}
