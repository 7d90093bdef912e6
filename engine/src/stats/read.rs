//! Reading statistics back: a table's, and partitions' by name (Hive's
//! `get_table_statistics_req`, `get_partitions_statistics_req` and their old forms).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use super::chunk::{
    chunk_of, TableStatsRecord, HAS_BIT_VECTORS, HAS_HISTOGRAM, SKETCH_IN_CHUNK,
    SKETCH_TAG_BIT_VECTORS, SKETCH_TAG_HISTOGRAM,
};
use super::chunk_refresh::{refreshed_chunks, ChunkReading};
use super::chunk_run::{ChunkEntries, ChunkRun};
use super::kept_chunks::{ColumnChunksKey, KeptColumnChunks};
use super::packed::{packed_chunk_view, PackedStatsChunk};
use super::sketch_chunk::{DecodedSketchChunk, SketchChunks, StoredSketches};
use super::slot_index::slot_index;
use super::stored_chunk::{KeptStatsChunk, StoredChunk};
use super::write::{normalize_partition_name, resolve_stats_table};
use super::{ColumnStatistics, SmolStr};
use crate::error::Result;
use crate::model::partition_name::{escaped_keys, is_plain};
use crate::partitions::partitioned::values_of_name;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::read_view;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KvBackend;
use crate::storage::values::ValueView;
use crate::store::Store;

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

/// From this many names on, if they are at least an eighth of the table's slots, the table's
/// whole slot index is scanned once instead of one lookup per name: a sequential scan costs
/// less than as many tree descents.
const SLOT_SCAN_NAME_COUNT_MIN: usize = 256;
/// Names per slot of the table above which the slot index is scanned (see above): 1 in 8.
const SLOT_SCAN_SHARE_DIVISOR: usize = 8;

/// `name` with its keys lowercased, borrowed when they already are (the usual case).
fn normalized_name(name: &str) -> Cow<'_, str> {
    if keys_lowercase(name) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(normalize_partition_name(name))
    }
}

/// Whether every key of `name` (what precedes the first `=` of each `/`-separated component)
/// is lowercase: a pass over the bytes, the characters looked at only past ASCII.
fn keys_lowercase(name: &str) -> bool {
    let mut in_key = true;
    for byte in name.bytes() {
        match byte {
            b'/' => in_key = true,
            b'=' => in_key = false,
            _ if !in_key => {}
            _ if byte.is_ascii_uppercase() => return false,
            _ if !byte.is_ascii() => return keys_lowercase_by_char(name),
            _ => {}
        }
    }
    true
}

/// [`keys_lowercase`] character by character, for names with non-ASCII keys.
fn keys_lowercase_by_char(name: &str) -> bool {
    name.split('/').all(|component| {
        let key = component.split_once('=').map_or(component, |(key, _)| key);
        !key.chars().any(char::is_uppercase)
    })
}

/// Requested partitions resolved to slots: (request index, slot). Names that name no
/// partition with statistics are left out. A kept slot index is used while no batch has
/// changed the table's slots since it was scanned (`kept_slots.rs`); a scanned one is kept.
pub(crate) fn resolve_slots(
    store: &Store,
    table: &PartitionedTable,
    names: &[String],
) -> Result<Vec<(usize, u32)>> {
    let reader = store.reader();
    // `None` while a batch changing slots is applied: nothing kept is used or kept then.
    let slot_version = store.stats.slot_versions.stable_version(table.id);
    let mut index = slot_version.and_then(|version| store.stats.slots.get(table.id, version));
    if index.is_none() && names.len() >= SLOT_SCAN_NAME_COUNT_MIN {
        let slot_count = super::slots::slot_count(reader, table.id)?;
        if names.len() * SLOT_SCAN_SHARE_DIVISOR >= slot_count as usize {
            index = Some(slot_index(store, table, slot_version, slot_count)?);
        }
    }
    let mut slots = Vec::with_capacity(names.len());
    if let Some(index) = index {
        for (position, name) in names.iter().enumerate() {
            if let Some(slot) = index.by_name.get(normalized_name(name).as_ref()) {
                slots.push((position, *slot));
            }
        }
        return Ok(slots);
    }
    let escaped_keys = escaped_keys(&table.key_names());
    let mut slot_key = Vec::new();
    for (position, name) in names.iter().enumerate() {
        let name = normalized_name(name);
        if !plain_slot_key(table.id, &escaped_keys, &name, &mut slot_key) {
            let Some(values) = values_of_name(table, &name) else {
                continue;
            };
            slot_key = keys::stats_slot_key(table.id, &values);
        }
        if let Some(stored) = reader.get(&slot_key)? {
            slots.push((position, super::slots::decode_slot(&slot_key, &stored)?));
        }
    }
    Ok(slots)
}

/// Writes into `slot_key` the slot key of partition `name` of `table` when the name is plain:
/// one `key=value` component per partition key, in order, keys and values with nothing
/// escaped (the usual names), whose values are then the components as written. Returns
/// false for any other name, which [`values_of_name`] then reads as Hive does.
fn plain_slot_key(
    table: TableId,
    escaped_keys: &[String],
    name: &str,
    slot_key: &mut Vec<u8>,
) -> bool {
    slot_key.clear();
    slot_key.extend_from_slice(&keys::stats_table_prefix(keys::KEYSPACE_STATS_SLOT, table));
    let mut components = name.split('/');
    for escaped_key in escaped_keys {
        let Some(component) = components.next() else {
            return false;
        };
        let Some(value) = component
            .strip_prefix(escaped_key.as_str())
            .and_then(|rest| rest.strip_prefix('='))
        else {
            return false;
        };
        if !is_plain(escaped_key) || !is_plain(value) {
            return false;
        }
        keys::push_component(slot_key, value.as_bytes());
    }
    components.next().is_none()
}

/// One column's stored chunks over a range of chunk numbers, read by one range scan, kept in
/// place.
pub(crate) struct ColumnChunks(ChunkRun<ValueView<PackedStatsChunk>>);

impl ColumnChunks {
    /// The chunks `first..=last` of `column` for `engine` that are stored.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        table: TableId,
        column: &str,
        engine: &str,
        (first, last): (u32, u32),
    ) -> Result<ColumnChunks> {
        let keys = (
            keys::stats_chunk_key(table, column, engine, first),
            keys::stats_chunk_key(table, column, engine, last),
        );
        let run = ChunkRun::load(reader, keys, (first, last), packed_chunk_view)?;
        Ok(ColumnChunks(run))
    }
}

/// One column's statistics chunks over `wanted`'s range, kept as stored: the kept ones when
/// the store keeps them at `wanted`'s version, else those of the entry kept at an
/// older version that no batch changed since (`chunk_refresh.rs`) and the others read; when
/// the store's record of changes cannot tell, the whole range is read, each chunk taken over
/// from the older entry when its stored bytes are the same (equal bytes hold equal
/// statistics, so nothing stale is kept), else validated.
pub(crate) fn decoded_chunks(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
) -> Result<Arc<KeptColumnChunks<KeptStatsChunk>>> {
    let kept = store.stats.chunks.statistics(wanted);
    store.usage.kept_statistics_chunks.record(kept.is_some());
    if let Some(kept) = kept {
        return Ok(kept);
    }
    let previous = store.stats.chunks.statistics_of_any_version(wanted);
    let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
    let reading = ChunkReading {
        key_of: |number| keys::stats_chunk_key(table, column, engine, number),
        view: packed_chunk_view,
        make: KeptStatsChunk::from_view,
    };
    let refreshed = match &previous {
        Some(previous) => refreshed_chunks(store, wanted, previous, &reading)?,
        None => None,
    };
    let chunks = match refreshed {
        Some(chunks) => chunks,
        None => scanned_chunks(store, wanted, previous.as_deref())?,
    };
    drop(previous);
    let entry = Arc::new(KeptColumnChunks {
        version: wanted.version,
        first: wanted.range.0,
        chunks,
    });
    store.stats.chunks.keep_statistics(wanted, entry.clone());
    Ok(entry)
}

/// The chunks of `wanted`'s range read by one scan, each taken over from `previous` when its
/// stored bytes are the same, else validated.
fn scanned_chunks(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
    previous: Option<&KeptColumnChunks<KeptStatsChunk>>,
) -> Result<Vec<Option<Arc<KeptStatsChunk>>>> {
    let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
    let loaded = ColumnChunks::load(store.reader(), table, column, engine, wanted.range)?;
    let views = loaded.0.into_views();
    let mut chunks = Vec::with_capacity(views.len());
    for (number, view) in (wanted.range.0..).zip(views) {
        let Some(view) = view else {
            chunks.push(None);
            continue;
        };
        let unchanged = previous
            .and_then(|kept| kept.shared(number))
            .filter(|kept| kept.is_stored_as(&view));
        let chunk = match unchanged {
            Some(kept) => kept.clone(),
            None => Arc::new(KeptStatsChunk::from_view(view)?),
        };
        chunks.push(Some(chunk));
    }
    Ok(chunks)
}

/// The range of chunks holding `slots`, if any.
pub(crate) fn chunk_range(slots: &[(usize, u32)]) -> Option<(u32, u32)> {
    let chunks = slots.iter().map(|(_, slot)| chunk_of(*slot).0);
    let first = chunks.clone().min()?;
    let last = chunks.max()?;
    Some((first, last))
}

/// One column's chunks as read in place (from the first of the range on), and its sketch
/// chunks when sketches are read.
struct ColumnReader<'a> {
    /// The column's name, as every statistics read from it holds it (inline when short).
    column: SmolStr,
    first: u32,
    arrays: Vec<Option<StoredChunk<'a>>>,
    sketches: Option<&'a KeptColumnChunks<DecodedSketchChunk>>,
}

/// Pushes onto `out` the statistics at `slot` read from `column`'s chunks (sketches and
/// histogram only when its sketch chunks are loaded), built in place: a read of 1000
/// partitions builds 20,000 of them. Returns when they were written; `None` (nothing pushed)
/// when the slot holds none.
fn push_slot_statistics(
    reader: &dyn KvBackend,
    table: TableId,
    engine: &str,
    column: &ColumnReader<'_>,
    slot: u32,
    out: &mut Vec<ColumnStatistics>,
) -> Result<Option<i64>> {
    let (number, offset) = chunk_of(slot);
    let index = number.checked_sub(column.first).map(|index| index as usize);
    let Some(chunk) = index.and_then(|index| *column.arrays.get(index)?) else {
        return Ok(None);
    };
    let Some(stats) = chunk.push_statistics_at(offset, &column.column, out) else {
        return Ok(None);
    };
    if let Some(sketches) = column.sketches {
        let flags = chunk.flags.get(offset).copied().unwrap_or_default();
        let own_key = |tag| -> Result<Option<Vec<u8>>> {
            let key = keys::stats_sketch_key(table, &column.column, engine, slot, tag);
            Ok(reader.get(&key)?.map(|bytes| bytes.to_vec()))
        };
        if flags & HAS_BIT_VECTORS != 0 {
            stats.bit_vectors = match flags & SKETCH_IN_CHUNK {
                0 => own_key(SKETCH_TAG_BIT_VECTORS)?,
                _ => Some(
                    sketches
                        .chunk(number)
                        .map_or(&[][..], |chunk| chunk.sketch(offset))
                        .to_vec(),
                ),
            };
        }
        if flags & HAS_HISTOGRAM != 0 {
            stats.histogram = own_key(SKETCH_TAG_HISTOGRAM)?;
        }
    }
    Ok(Some(chunk.last_analyzed.at(offset)))
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
        // Names come lowercased already nearly always: checked, not rebuilt.
        let normalized: Vec<Cow<'_, str>> = partition_names
            .iter()
            .map(|name| normalized_name(name))
            .collect();
        let mut seen = HashSet::with_capacity(normalized.len());
        let mut names = Vec::with_capacity(normalized.len());
        for name in &normalized {
            if seen.insert(name.as_ref()) {
                names.push(name.to_string());
            }
        }
        // Every statistics write of partitions rewrites their records too, so a read that
        // sees partition batches whole sees statistics batches whole.
        self.read_partitions_at_version(table.id, |version| {
            self.read_partitions(version, &table, &names, &columns, engine, with_sketches)
        })
    }

    /// [`Store::partition_column_statistics`] once names and columns are normalised.
    fn read_partitions(
        &self,
        version: u64,
        table: &PartitionedTable,
        names: &[String],
        columns: &[String],
        engine: &str,
        with_sketches: bool,
    ) -> Result<Vec<PartitionStatistics>> {
        let slots = resolve_slots(self, table, names)?;
        let Some(range) = chunk_range(&slots) else {
            return Ok(Vec::new());
        };
        let mut kept = Vec::with_capacity(columns.len());
        for column in columns {
            let wanted = ColumnChunksKey {
                table: table.id,
                column,
                engine,
                version,
                range,
            };
            let sketches = with_sketches.then(|| decoded_sketch_chunks(self, &wanted));
            kept.push((
                column,
                decoded_chunks(self, &wanted)?,
                sketches.transpose()?,
            ));
        }
        // Each chunk's arrays found once, not once per statistic read from it.
        let readers: Vec<ColumnReader<'_>> = kept
            .iter()
            .map(|(column, chunks, sketches)| ColumnReader {
                column: SmolStr::new(column.as_str()),
                first: chunks.first,
                arrays: chunks
                    .chunks
                    .iter()
                    .map(|chunk| chunk.as_deref().map(KeptStatsChunk::arrays))
                    .collect(),
                sketches: sketches.as_deref(),
            })
            .collect();
        let mut result = Vec::new();
        for (index, slot) in slots {
            let mut partition = PartitionStatistics {
                partition_name: names[index].clone(),
                stats: Vec::with_capacity(readers.len()),
                last_analyzed: 0,
            };
            for column in &readers {
                let stats = &mut partition.stats;
                let reader = self.reader();
                if let Some(analyzed) =
                    push_slot_statistics(reader, table.id, engine, column, slot, stats)?
                {
                    partition.last_analyzed = partition.last_analyzed.max(analyzed);
                }
            }
            if !partition.stats.is_empty() {
                result.push(partition);
            }
        }
        Ok(result)
    }
}

/// One column's sketch chunks over `wanted`'s range: the kept ones when the store
/// keeps them at `wanted`'s version, else read, validated and kept.
pub(crate) fn decoded_sketch_chunks(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
) -> Result<Arc<KeptColumnChunks<DecodedSketchChunk>>> {
    let kept = store.stats.chunks.sketches(wanted);
    store.usage.kept_sketch_chunks.record(kept.is_some());
    if let Some(kept) = kept {
        return Ok(kept);
    }
    let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
    // Those of an older version that no batch changed since are kept (`chunk_refresh.rs`).
    let previous = store.stats.chunks.sketches_of_any_version(wanted);
    let reading = ChunkReading {
        key_of: |number| keys::stats_sketch_chunk_key(table, column, engine, number),
        view: |entries: ChunkEntries| entries.whole(StoredSketches::new),
        make: DecodedSketchChunk::from_stored,
    };
    let refreshed = match &previous {
        Some(previous) => refreshed_chunks(store, wanted, previous, &reading)?,
        None => None,
    };
    drop(previous);
    let chunks = match refreshed {
        Some(chunks) => chunks,
        None => {
            let loaded = SketchChunks::load(store.reader(), table, column, engine, wanted.range)?;
            let views = loaded.0.into_views().into_iter();
            let chunks = views.map(|stored| {
                let chunk = stored.map(DecodedSketchChunk::from_stored).transpose()?;
                Ok(chunk.map(Arc::new))
            });
            chunks.collect::<Result<_>>()?
        }
    };
    let entry = Arc::new(KeptColumnChunks {
        version: wanted.version,
        first: wanted.range.0,
        chunks,
    });
    store.stats.chunks.keep_sketches(wanted, entry.clone());
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_name_gives_the_slot_key_hive_parsing_gives() {
        // Goal: the shortcut from a plain name to its slot key agrees with reading the name
        // as Hive does, and leaves every other name to that reading. Method: plain names,
        // escaped ones, and names of other keys, arity or form.
        let table = PartitionedTable::of_string_keys(&["ds", "hr"]);
        let escaped_keys = escaped_keys(&table.key_names());
        let names = [
            ("ds=2024-01-01/hr=3", true),
            ("ds=__HIVE_DEFAULT_PARTITION__/hr=x y", true),
            ("ds=a%2Fb/hr=3", false),
            ("ds=a=b/hr=3", false),
            ("ds=/hr=3", false),
            ("ds=1", false),
            ("ds=1/hr=2/", false),
            ("ds=1/hr=2/x=3", false),
            ("hr=2/ds=1", false),
            ("dsx=1/hr=2", false),
        ];
        let mut slot_key = Vec::new();
        for (name, plain) in names {
            let taken = plain_slot_key(table.id, &escaped_keys, name, &mut slot_key);
            assert_eq!(taken, plain, "{name}");
            if taken {
                let values = values_of_name(&table, name).expect("a name of the table");
                assert_eq!(slot_key, keys::stats_slot_key(table.id, &values), "{name}");
            }
        }
    }
}
