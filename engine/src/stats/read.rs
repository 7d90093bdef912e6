//! Reading statistics back: a table's, and partitions' by name (Hive's
//! `get_table_statistics_req`, `get_partitions_statistics_req` and their old forms).

use std::collections::{HashMap, HashSet};

use super::chunk::{
    chunk_of, StatsChunk, TableStatsRecord, HAS_BIT_VECTORS, HAS_HISTOGRAM, SKETCH_TAG_BIT_VECTORS,
    SKETCH_TAG_HISTOGRAM,
};
use super::slots::find_slot;
use super::write::{normalize_partition_name, resolve_stats_table};
use super::ColumnStatistics;
use crate::error::{Error, Result};
use crate::keys::{self, TableId};
use crate::kv::KvBackend;
use crate::partition::{read_view, PartitionedTable};
use crate::partition_list::values_of_name;
use crate::store::Store;
use crate::values::ValueView;

/// A table's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct TableStatistics {
    /// One entry per requested column that has statistics, in request order.
    pub stats: Vec<ColumnStatistics>,
    /// When the newest of them was written, seconds since the epoch.
    pub last_analyzed: i64,
}

/// One partition's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionStatistics {
    /// The partition's name as requested, keys lowercased.
    pub partition_name: String,
    /// One entry per requested column that has statistics, in request order.
    pub stats: Vec<ColumnStatistics>,
    /// When the newest of them was written.
    pub last_analyzed: i64,
}

/// Lowercased, duplicates dropped, order kept.
pub(crate) fn normalize_columns(columns: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    let lowered = columns.iter().map(|column| column.trim().to_lowercase());
    lowered
        .filter(|column| seen.insert(column.clone()))
        .collect()
}

/// Requested partitions resolved to slots: (request index, name, slot). Names that name no
/// partition with statistics are left out.
pub(crate) fn resolve_slots(
    reader: &dyn KvBackend,
    table: &PartitionedTable,
    names: &[String],
) -> Result<Vec<(usize, u32)>> {
    let mut slots = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let Some(values) = values_of_name(table, &normalize_partition_name(name)) else {
            continue;
        };
        if let Some(slot) = find_slot(reader, table.id, &values)? {
            slots.push((index, slot));
        }
    }
    Ok(slots)
}

/// Chunks of one column and engine, each read once, validated and kept in place.
pub(crate) struct ChunkReader<'a> {
    reader: &'a dyn KvBackend,
    table: TableId,
    engine: &'a str,
    chunks: HashMap<(usize, u32), Option<ValueView<StatsChunk>>>,
}

impl<'a> ChunkReader<'a> {
    pub(crate) fn new(reader: &'a dyn KvBackend, table: TableId, engine: &'a str) -> Self {
        ChunkReader {
            reader,
            table,
            engine,
            chunks: HashMap::new(),
        }
    }

    /// Chunk `chunk` of column `column` (numbered `column_index` by the caller), if stored.
    pub(crate) fn chunk(
        &mut self,
        column_index: usize,
        column: &str,
        chunk: u32,
    ) -> Result<Option<&ValueView<StatsChunk>>> {
        let entry = (column_index, chunk);
        if !self.chunks.contains_key(&entry) {
            let key = keys::stats_chunk_key(self.table, column, self.engine, chunk);
            let view = read_view::<StatsChunk>(self.reader, &key)?;
            if let Some(view) = &view {
                if !view.archived()?.is_consistent() {
                    return Err(Error::corruption(
                        &key,
                        "statistics arrays of unequal lengths",
                    ));
                }
            }
            self.chunks.insert(entry, view);
        }
        Ok(self.chunks.get(&entry).and_then(Option::as_ref))
    }

    /// The statistics of `column` at `slot` (sketches and histogram only `with_sketches`),
    /// and when they were written.
    fn statistics(
        &mut self,
        column_index: usize,
        column: &str,
        slot: u32,
        with_sketches: bool,
    ) -> Result<Option<(ColumnStatistics, i64)>> {
        let (chunk, offset) = chunk_of(slot);
        let (table, engine, reader) = (self.table, self.engine, self.reader);
        let Some(view) = self.chunk(column_index, column, chunk)? else {
            return Ok(None);
        };
        let Some(slot_view) = view.archived()?.slot(offset) else {
            return Ok(None);
        };
        let mut stats = slot_view.to_statistics(column);
        let sketch = |tag| -> Result<Option<Vec<u8>>> {
            let key = keys::stats_sketch_key(table, column, engine, slot, tag);
            Ok(reader.get(&key)?.map(|bytes| bytes.to_vec()))
        };
        if with_sketches && slot_view.flags() & HAS_BIT_VECTORS != 0 {
            stats.bit_vectors = sketch(SKETCH_TAG_BIT_VECTORS)?;
        }
        if with_sketches && slot_view.flags() & HAS_HISTOGRAM != 0 {
            stats.histogram = sketch(SKETCH_TAG_HISTOGRAM)?;
        }
        Ok(Some((stats, slot_view.last_analyzed())))
    }
}

impl Store {
    /// The table-level statistics of `columns` of table `catalog.database.name` for `engine`;
    /// columns without statistics (or that the table lacks) are left out, as Hive's direct-SQL
    /// read does. Sketches and histograms come back only `with_sketches` (Hive returns them
    /// only with `metastore.stats.fetch.bitvector` / `.kll`, off by default).
    pub fn table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        columns: &[String],
        engine: &str,
        with_sketches: bool,
    ) -> Result<TableStatistics> {
        let table = resolve_stats_table(self.reader(), catalog, database, name)?;
        let columns = normalize_columns(columns);
        let mut result = TableStatistics {
            stats: Vec::new(),
            last_analyzed: 0,
        };
        for column in columns {
            let key = keys::table_stats_key(table.id, &column, engine);
            let Some(view) = read_view::<TableStatsRecord>(self.reader(), &key)? else {
                continue;
            };
            let record = view.to_owned()?;
            let Some(mut stats) = record.row.get(0, &column) else {
                continue;
            };
            if with_sketches {
                stats.bit_vectors = record.bit_vectors;
                stats.histogram = record.histogram;
            }
            result.last_analyzed = result.last_analyzed.max(record.row.last_analyzed[0]);
            result.stats.push(stats);
        }
        Ok(result)
    }

    /// The statistics of `columns` of partitions `partition_names` of table
    /// `catalog.database.name` for `engine`, in request order; partitions without any (or
    /// that do not exist) are left out. Sketches as in [`Store::table_column_statistics`].
    #[allow(clippy::too_many_arguments)]
    pub fn partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_names: &[String],
        columns: &[String],
        engine: &str,
        with_sketches: bool,
    ) -> Result<Vec<PartitionStatistics>> {
        let table = resolve_stats_table(self.reader(), catalog, database, name)?;
        let columns = normalize_columns(columns);
        let mut seen = HashSet::new();
        let names: Vec<String> = partition_names
            .iter()
            .map(|name| normalize_partition_name(name))
            .filter(|name| seen.insert(name.clone()))
            .collect();
        let slots = resolve_slots(self.reader(), &table, &names)?;
        let mut chunks = ChunkReader::new(self.reader(), table.id, engine);
        let mut result = Vec::new();
        for (index, slot) in slots {
            let mut partition = PartitionStatistics {
                partition_name: names[index].clone(),
                stats: Vec::new(),
                last_analyzed: 0,
            };
            for (column_index, column) in columns.iter().enumerate() {
                if let Some((stats, analyzed)) =
                    chunks.statistics(column_index, column, slot, with_sketches)?
                {
                    partition.last_analyzed = partition.last_analyzed.max(analyzed);
                    partition.stats.push(stats);
                }
            }
            if !partition.stats.is_empty() {
                result.push(partition);
            }
        }
        Ok(result)
    }
}
