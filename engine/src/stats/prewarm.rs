//! Partition statistics read and kept by the store ahead of the first call that wants them.
//!
//! A planner's first `get_aggr_stats_for` after a restart would otherwise read every chunk
//! from sled's log rather than its cache (10k partitions × 50 columns: 25 MB, 23–27 ms by the
//! server's clock where the calls after it take 4–5 ms), and scan the table's slot index. A
//! server prewarms once it has opened the store (Hive's `CachedStore` prewarms at
//! start for the same reason): tables in key order (the order they were made), for each its
//! slot index, then every column's statistics chunks (with their summaries for aggregations,
//! `column_fold.rs`) and sketch chunks over the whole slot range, kept exactly as a read over
//! all partitions keeps them, so that any later read of a subset at the same version is
//! answered from them.
//!
//! Bounded so that it never empties what it fills (the kept chunks and the kept slots each
//! empty themselves past their bound): at most half of the kept chunks' bytes and columns,
//! and half of the kept slots' tables.

use super::chunk::chunk_of;
use super::kept_chunks::{ColumnChunksKey, KEPT_BYTE_COUNT_MAX, KEPT_COLUMN_COUNT_MAX};
use super::kept_slots::{KEPT_SLOT_COUNT_MAX, KEPT_TABLE_COUNT_MAX};
use super::read::decoded_chunks;
use super::read::decoded_sketch_chunks;
use super::slot_index::slot_index;
use super::slots::slot_count;
use crate::error::Result;
use crate::model::table::Table;
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{self, KeyRange};
use crate::store::{read_view, Store};

/// The most a prewarm reads: half of the kept statistics chunks' bound.
pub const PREWARM_BYTES_MAX: usize = KEPT_BYTE_COUNT_MAX / 2;

/// What a prewarm read and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrewarmReport {
    /// Tables whose slot index and chunks (some or all) were read.
    pub tables: usize,
    /// Columns (per engine) whose chunks were read.
    pub columns: usize,
    /// Bytes of the chunks and slot indexes kept.
    pub bytes: usize,
    /// Whether every table's statistics were read; false when a bound stopped it.
    pub complete: bool,
}

/// Where a prewarm stands, against its bounds.
struct Prewarm {
    report: PrewarmReport,
    byte_count_max: usize,
    /// A table's columns were left unread.
    cut: bool,
}

impl Prewarm {
    fn full(&self) -> bool {
        self.report.bytes >= self.byte_count_max || self.report.columns >= KEPT_COLUMN_COUNT_MAX / 2
    }
}

impl Store {
    /// Reads partition statistics for the store to keep, table after table, until
    /// `byte_budget` bytes are kept (at most [`PREWARM_BYTES_MAX`], and bounded further by the
    /// kept statistics' own bounds, see the module docs). Statistics a write changes meanwhile are read
    /// again by the call that wants them, as after any write; a table dropped meanwhile is
    /// skipped.
    pub fn prewarm_statistics(&self, byte_budget: usize) -> Result<PrewarmReport> {
        let mut prewarm = Prewarm {
            report: PrewarmReport::default(),
            byte_count_max: byte_budget.min(PREWARM_BYTES_MAX),
            cut: false,
        };
        let end = [keys::KEYSPACE_STATS_CHUNK + 1];
        let mut cursor = vec![keys::KEYSPACE_STATS_CHUNK];
        loop {
            // The first chunk key from the cursor on names the next table.
            let Some((key, _)) = self
                .reader()
                .scan(&KeyRange::between(&cursor, &end), 1)?
                .pop()
            else {
                prewarm.report.complete = !prewarm.cut;
                return Ok(prewarm.report);
            };
            let (table, _, _, _) = keys::decode_stats_column_key(&key)?;
            if prewarm.full() || prewarm.report.tables >= KEPT_TABLE_COUNT_MAX / 2 {
                return Ok(prewarm.report);
            }
            self.prewarm_table(table, &mut prewarm)?;
            let prefix = keys::stats_table_prefix(keys::KEYSPACE_STATS_CHUNK, table);
            match kv::prefix_successor(&prefix) {
                Some(next) => cursor = next,
                None => {
                    prewarm.report.complete = !prewarm.cut;
                    return Ok(prewarm.report);
                }
            }
        }
    }

    /// One table's slot index, then its columns' chunks until `prewarm` is full.
    fn prewarm_table(&self, id: TableId, prewarm: &mut Prewarm) -> Result<()> {
        let reader = self.reader();
        let Some(table) = read_view::<Table>(reader, &keys::table_key(id))? else {
            return Ok(());
        };
        let table = PartitionedTable {
            id,
            table: table.to_owned()?,
        };
        let slots = slot_count(reader, id)?;
        // Versions are odd while a batch is applied: what is read then would never be used.
        let (Some(version), Some(slot_version)) = (
            self.partition_versions.stable_version(id),
            self.stats.slot_versions.stable_version(id),
        ) else {
            return Ok(());
        };
        if slots == 0 {
            return Ok(());
        }
        prewarm.report.tables += 1;
        if slots as usize <= KEPT_SLOT_COUNT_MAX {
            let index = slot_index(self, &table, Some(slot_version), slots)?;
            let name_bytes: usize = index.by_name.keys().map(|name| name.len()).sum();
            // A map entry: the boxed name's pointer and length, the slot, the hash table's slack.
            prewarm.report.bytes += name_bytes + index.by_name.capacity() * 32;
        }
        let range = (0, chunk_of(slots - 1).0);
        let mut cursor = keys::stats_table_prefix(keys::KEYSPACE_STATS_CHUNK, id);
        // A table's chunk keys end before its successor, or else before the next keyspace.
        let end =
            kv::prefix_successor(&cursor).unwrap_or_else(|| vec![keys::KEYSPACE_STATS_CHUNK + 1]);
        loop {
            let Some((key, _)) = reader.scan(&KeyRange::between(&cursor, &end), 1)?.pop() else {
                break;
            };
            if prewarm.full() {
                prewarm.cut = true;
                break;
            }
            let (_, column, engine, _) = keys::decode_stats_column_key(&key)?;
            let wanted = ColumnChunksKey {
                table: id,
                column: &column,
                engine: &engine,
                version,
                range,
            };
            let chunks = decoded_chunks(self, &wanted)?;
            // Found now, not by the first aggregation.
            for chunk in chunks.chunks.iter().flatten() {
                chunk.arrays().summary();
            }
            let sketches = decoded_sketch_chunks(self, &wanted)?;
            prewarm.report.columns += 1;
            prewarm.report.bytes += chunks.heap_bytes() + sketches.heap_bytes();
            let prefix =
                keys::stats_column_engine_prefix(keys::KEYSPACE_STATS_CHUNK, id, &column, &engine);
            match kv::prefix_successor(&prefix) {
                Some(next) => cursor = next,
                None => break,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::stats::test_store::store_with_partitions;
    use crate::stats::{ColumnStatistics, StatsKind, StatsValue, StatsWriteOptions};
    use crate::storage::kv::MemoryBackend;

    const PARTITION_COUNT: usize = 300;

    #[test]
    fn a_prewarm_finds_the_summaries_aggregations_fold_whole_chunks_from() {
        // Goal: after a prewarm, the first aggregation finds each kept chunk's summary made
        // (`column_fold.rs`), not only its bytes. Method: 300 partitions (three chunks) with
        // statistics, a second store on the same data prewarmed, its kept chunks looked at.
        let backend = Arc::new(MemoryBackend::new());
        let writer = store_with_partitions(backend.clone(), PARTITION_COUNT, true);
        let writes = (0..PARTITION_COUNT)
            .map(|index| {
                let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
                stats.low_value = Some(StatsValue::Integer(-(index as i64)));
                stats.high_value = Some(StatsValue::Integer(index as i64));
                (format!("ds={index}"), vec![stats])
            })
            .collect();
        let options = StatsWriteOptions::default();
        writer
            .update_partition_column_statistics("hive", "db", "p", writes, &options)
            .unwrap();
        drop(writer);

        let store = store_with_partitions(backend, PARTITION_COUNT, false);
        let report = store.prewarm_statistics(PREWARM_BYTES_MAX).unwrap();
        assert_eq!((report.tables, report.columns), (1, 1));
        let table =
            crate::partitions::stored::resolve_table(store.reader(), "hive", "db", "p").unwrap();
        let version = store.partition_versions.stable_version(table.id).unwrap();
        let wanted = ColumnChunksKey {
            table: table.id,
            column: "l",
            engine: "hive",
            version,
            range: (0, 2),
        };
        let kept = store
            .stats
            .chunks
            .statistics(&wanted)
            .expect("prewarmed chunks");
        let chunks: Vec<_> = kept.chunks.iter().flatten().collect();
        assert_eq!(chunks.len(), 3);
        assert!(chunks.iter().all(|chunk| chunk.has_summary()));
    }
}
