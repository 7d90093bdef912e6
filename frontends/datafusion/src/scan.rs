//! The scan of a Hive table's chosen files: Parquet read with the parquet crate, data
//! columns matched by name (case-insensitively, as Hive does) and cast to the table's types,
//! partition values added as constant columns.

use std::any::Any;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::common::{ScalarValue, Statistics};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

/// Batches a file reader may have sent ahead of the consumer.
const CHANNEL_BATCHES: usize = 2;

/// A file to read and the values of its partition's keys.
#[derive(Debug, Clone)]
pub(crate) struct ScanFile {
    pub path: PathBuf,
    pub partition_values: Arc<Vec<ScalarValue>>,
}

/// Where a column of the scan's output comes from.
#[derive(Debug, Clone)]
pub(crate) enum OutputColumn {
    /// The data column of this name, read as this type.
    Data(String, DataType),
    /// The partition key at this index.
    Partition(usize),
}

/// Reads the files of a Hive table's chosen partitions: what `TableProvider::scan` of a
/// [`crate::HiveTable`] plans.
#[derive(Debug)]
pub struct HiveScanExec {
    table: String,
    schema: SchemaRef,
    columns: Arc<Vec<OutputColumn>>,
    /// The files, in groups read in parallel.
    groups: Vec<Vec<ScanFile>>,
    partitions: usize,
    statistics: Statistics,
    limit: Option<usize>,
    batch_size: usize,
    properties: Arc<PlanProperties>,
    opened: Arc<Mutex<Vec<PathBuf>>>,
}

impl HiveScanExec {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        table: String,
        schema: SchemaRef,
        columns: Vec<OutputColumn>,
        files: Vec<ScanFile>,
        partitions: usize,
        statistics: Statistics,
        limit: Option<usize>,
        target_partitions: usize,
        batch_size: usize,
    ) -> Self {
        let group_count = target_partitions.clamp(1, files.len().max(1));
        let mut groups = vec![Vec::new(); group_count];
        for (index, file) in files.into_iter().enumerate() {
            groups[index % group_count].push(file);
        }
        let properties = PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(group_count),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        HiveScanExec {
            table,
            schema,
            columns: Arc::new(columns),
            groups,
            partitions,
            statistics,
            limit,
            batch_size: batch_size.max(1),
            properties: Arc::new(properties),
            opened: Arc::default(),
        }
    }

    /// The files the scan reads, in the order of its partitions' values.
    pub fn files(&self) -> Vec<&Path> {
        let mut files: Vec<&Path> = self
            .groups
            .iter()
            .flatten()
            .map(|file| file.path.as_path())
            .collect();
        files.sort();
        files
    }

    /// The files opened so far by executing the plan.
    pub fn opened_files(&self) -> Vec<PathBuf> {
        let mut opened = self
            .opened
            .lock()
            .map(|opened| opened.clone())
            .unwrap_or_default();
        opened.sort();
        opened
    }

    /// How many of the table's partitions the metastore chose.
    pub fn partition_count(&self) -> usize {
        self.partitions
    }
}

impl DisplayAs for HiveScanExec {
    fn fmt_as(&self, format: DisplayFormatType, formatter: &mut fmt::Formatter) -> fmt::Result {
        let files = self.groups.iter().map(Vec::len).sum::<usize>();
        write!(
            formatter,
            "HiveScanExec: table={}, partitions={}, files={files}",
            self.table, self.partitions
        )?;
        if let Some(limit) = self.limit {
            write!(formatter, ", limit={limit}")?;
        }
        if matches!(format, DisplayFormatType::Verbose) {
            let paths: Vec<String> = self
                .files()
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            write!(formatter, ", paths=[{}]", paths.join(", "))?;
        }
        Ok(())
    }
}

impl ExecutionPlan for HiveScanExec {
    fn name(&self) -> &str {
        "HiveScanExec"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            Err(DataFusionError::Internal(
                "HiveScanExec has no children".into(),
            ))
        }
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let files = self.groups.get(partition).cloned().ok_or_else(|| {
            DataFusionError::Internal(format!("HiveScanExec has no partition {partition}"))
        })?;
        let mut builder =
            RecordBatchReceiverStreamBuilder::new(Arc::clone(&self.schema), CHANNEL_BATCHES);
        let sender = builder.tx();
        let reader = FileReader {
            schema: Arc::clone(&self.schema),
            columns: Arc::clone(&self.columns),
            batch_size: self.batch_size,
            opened: Arc::clone(&self.opened),
        };
        let mut remaining = self.limit.unwrap_or(usize::MAX);
        builder.spawn_blocking(move || {
            for file in &files {
                let keep_going = reader.read(file, &mut |batch| {
                    let batch = if batch.num_rows() > remaining {
                        batch.slice(0, remaining)
                    } else {
                        batch
                    };
                    remaining -= batch.num_rows();
                    // A send fails when the stream was dropped: stop reading.
                    sender.blocking_send(Ok(batch)).is_ok() && remaining > 0
                })?;
                if !keep_going {
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }

    fn partition_statistics(&self, partition: Option<usize>) -> Result<Statistics> {
        Ok(match partition {
            None => self.statistics.clone(),
            Some(_) => Statistics::new_unknown(&self.schema),
        })
    }
}

/// What reading one file needs, moved into the blocking task.
struct FileReader {
    schema: SchemaRef,
    columns: Arc<Vec<OutputColumn>>,
    batch_size: usize,
    opened: Arc<Mutex<Vec<PathBuf>>>,
}

impl FileReader {
    /// Reads `file`, passing each batch to `emit` while it answers true; answers whether
    /// the caller should go on to the next file.
    fn read(&self, file: &ScanFile, emit: &mut dyn FnMut(RecordBatch) -> bool) -> Result<bool> {
        let failed = |error: &dyn fmt::Display| {
            DataFusionError::Execution(format!("cannot read {}: {error}", file.path.display()))
        };
        let handle = File::open(&file.path).map_err(|error| failed(&error))?;
        if let Ok(mut opened) = self.opened.lock() {
            opened.push(file.path.clone());
        }
        let builder = ParquetRecordBatchReaderBuilder::try_new(handle).map_err(|e| failed(&e))?;
        let file_schema = Arc::clone(builder.schema());
        // Each data column's index in the file, by name as Hive matches them.
        let found: Vec<Option<usize>> = self
            .columns
            .iter()
            .map(|column| match column {
                OutputColumn::Data(name, _) => file_schema
                    .fields()
                    .iter()
                    .position(|field| field.name().eq_ignore_ascii_case(name)),
                OutputColumn::Partition(_) => None,
            })
            .collect();
        let mut roots: Vec<usize> = found.iter().flatten().copied().collect();
        roots.sort_unstable();
        roots.dedup();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
        let reader = builder
            .with_projection(mask)
            .with_batch_size(self.batch_size)
            .build()
            .map_err(|error| failed(&error))?;
        for batch in reader {
            let batch = batch.map_err(|error| failed(&error))?;
            let rows = batch.num_rows();
            let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
            for (column, index) in self.columns.iter().zip(&found) {
                let array = match (column, index) {
                    (OutputColumn::Data(_, data_type), Some(index)) => {
                        // The batch holds the chosen roots in file order.
                        let position = roots.binary_search(index).map_err(|_| {
                            DataFusionError::Internal("a projected column is missing".into())
                        })?;
                        let array = batch.column(position);
                        if array.data_type() == data_type {
                            Arc::clone(array)
                        } else {
                            cast(array, data_type).map_err(|error| {
                                failed(&format!(
                                    "column `{}` of type {} cannot be read as {data_type}: \
                                     {error}",
                                    file_schema.field(*index).name(),
                                    array.data_type()
                                ))
                            })?
                        }
                    }
                    // A column the file does not have is null, as for Hive.
                    (OutputColumn::Data(_, data_type), None) => new_null_array(data_type, rows),
                    (OutputColumn::Partition(key), _) => {
                        file.partition_values[*key].to_array_of_size(rows)?
                    }
                };
                arrays.push(array);
            }
            let options = RecordBatchOptions::new().with_row_count(Some(rows));
            let output =
                RecordBatch::try_new_with_options(Arc::clone(&self.schema), arrays, &options)?;
            if !emit(output) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
