//! `get_aggr_stats_for`: one column's statistics over many partitions, folded as Hive's
//! metastore does by default (its SQL path, `metastore.stats.ndv.tuner` 0, no density
//! function, sketches not fetched):
//!
//! - when every requested partition has statistics for the column, or fewer than two do:
//!   least low, greatest high, summed nulls, trues and falses, greatest maximum length,
//!   greatest *average* length (Hive takes the maximum, not a weighted mean), greatest NDV,
//!   for integral kinds at most `high - low + 1`;
//! - but when every partition with statistics for the column has a sketch (`bitVectors`) and
//!   no extrapolation is needed, the NDV is that of the sketches merged as Hive's Java
//!   aggregators merge them (`ndv.rs`), as Hive returns it with `metastore.stats.fetch.bitvector`
//!   (not capped by the value range); with extrapolation, sketches are not used (Hive's SQL
//!   path, its default);
//! - otherwise Hive's linear extrapolation over the partitions' positions in the request:
//!   sums scaled by `requested / found` (integer division first, as Hive), lows, highs, NDV
//!   and lengths extended linearly from the partitions holding the least and greatest value
//!   to the borders of the request.
//!
//! The fold (`column_fold.rs`) reads the partitions' numbers in place from the column's
//! stored chunks, kept while the table is unchanged (`kept_chunks.rs`): nothing is built per
//! partition. When several partitions share the least (greatest) value, the one whose
//! statistics were written last (first) is taken as holding it, as Hive on Derby does
//! (`column_fold.rs`).

use super::chunk::{chunk_of, SKETCH_TAG_BIT_VECTORS};
use super::column_fold::{fold_column, runs_of, ColumnsFound, Extremes, FoldBy};
use super::hll_union::UnionRef;
use super::kept_chunks::{ColumnChunksKey, KeptColumnChunks};
use super::merge::{decimal_from_java_double, value_to_f64};
use super::ndv::SketchMerge;
use super::read::decoded_sketch_chunks;
use super::read::{chunk_range, decoded_chunks, normalize_columns, resolve_slots};
use super::sketch_chunk::DecodedSketchChunk;
use super::stored_chunk::KeptStatsChunk;
use super::write::resolve_stats_table;
use super::{ColumnStatistics, StatsValue};
use crate::error::Result;
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys;
use crate::store::Store;

/// Statistics aggregated over partitions.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregateStatistics {
    /// One entry per requested column with statistics in at least one requested partition.
    pub stats: Vec<ColumnStatistics>,
    /// How many requested partitions have statistics for every requested column.
    pub partitions_found: i64,
}

/// Which border a linear extrapolation extends to.
#[derive(Clone, Copy)]
pub(super) enum Aim {
    Min,
    Max,
}

/// Hive's linear extrapolation (`LinearExtrapolatePartStatus`) as a fraction applied to
/// `max - min`, from `min` (Aim::Max) or from `max` (Aim::Min): numerator and denominator.
fn extrapolation_fraction(
    min_index: usize,
    max_index: usize,
    aim: Aim,
    border: usize,
) -> (i128, i128) {
    let (min_index, max_index, border) = (min_index as i128, max_index as i128, border as i128);
    match (aim, min_index < max_index) {
        (Aim::Max, true) => (border - min_index, max_index - min_index),
        (Aim::Max, false) => (min_index, min_index - max_index),
        (Aim::Min, true) => (max_index, max_index - min_index),
        (Aim::Min, false) => (border - max_index, min_index - max_index),
    }
}

pub(super) fn linear_integer(extremes: &Extremes<i64>, aim: Aim, border: usize) -> i64 {
    if extremes.min_index == extremes.max_index {
        return extremes.min;
    }
    let (numerator, denominator) =
        extrapolation_fraction(extremes.min_index, extremes.max_index, aim, border);
    let span = i128::from(extremes.max) - i128::from(extremes.min);
    // Hive multiplies before it divides, in longs.
    let step = span * numerator / denominator;
    let value = match aim {
        Aim::Max => i128::from(extremes.min) + step,
        Aim::Min => i128::from(extremes.max) - step,
    };
    i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX })
}

pub(super) fn linear_double(extremes: &Extremes<f64>, aim: Aim, border: usize) -> f64 {
    if extremes.min_index == extremes.max_index {
        return extremes.min;
    }
    let (numerator, denominator) =
        extrapolation_fraction(extremes.min_index, extremes.max_index, aim, border);
    let step = (extremes.max - extremes.min) * numerator as f64 / denominator as f64;
    match aim {
        Aim::Max => extremes.min + step,
        Aim::Min => extremes.max - step,
    }
}

pub(super) fn linear_value(extremes: &Extremes<StatsValue>, aim: Aim, border: usize) -> StatsValue {
    match (&extremes.min, &extremes.max) {
        (StatsValue::Integer(min), StatsValue::Integer(max)) => {
            let integers = Extremes {
                min: *min,
                min_index: extremes.min_index,
                min_slot: extremes.min_slot,
                max: *max,
                max_index: extremes.max_index,
                max_slot: extremes.max_slot,
            };
            StatsValue::Integer(linear_integer(&integers, aim, border))
        }
        (min, max) => {
            let doubles = Extremes {
                min: value_to_f64(min),
                min_index: extremes.min_index,
                min_slot: extremes.min_slot,
                max: value_to_f64(max),
                max_index: extremes.max_index,
                max_slot: extremes.max_slot,
            };
            let value = linear_double(&doubles, aim, border);
            match min {
                StatsValue::Decimal(_) => StatsValue::Decimal(decimal_from_java_double(value)),
                _ => StatsValue::Double(value),
            }
        }
    }
}

/// The NDV of the sketches of `slots` (of the column `wanted` names, in its chunk range)
/// merged as Hive merges them; `None` if one is missing or they do not merge. Each slot comes
/// with whether its sketch is in its chunk's sketch value (read once per column, and kept) or
/// at its own key (written before sketch chunks).
fn merged_sketches(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
    slots: &[(u32, bool)],
) -> Result<Option<i64>> {
    let any_in_chunk = slots.iter().any(|(_, in_chunk)| *in_chunk);
    let chunks = match any_in_chunk {
        true => Some(decoded_sketch_chunks(store, wanted)?),
        false => None,
    };
    let mut merge = SketchMerge::default();
    // Hive merges one sketch per requested partition; a name requested twice merges the
    // same sketch twice, which changes nothing.
    let mut position = 0;
    while position < slots.len() {
        let (slot, in_chunk) = slots[position];
        if let (Some(chunks), true) = (&chunks, in_chunk) {
            // A whole chunk's slots in a row: its sketches merged once, and kept.
            if let Some((union, count)) = whole_chunk_union(chunks, &slots[position..]) {
                merge.add_hll_union(union);
                position += count;
                if merge.has_failed() {
                    return Ok(None);
                }
                continue;
            }
            let (chunk, offset) = chunk_of(slot);
            let sketch = chunks
                .chunk(chunk)
                .map_or(&[][..], |chunk| chunk.sketch(offset));
            merge.add(sketch);
        } else {
            let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
            let key = keys::stats_sketch_key(table, column, engine, slot, SKETCH_TAG_BIT_VECTORS);
            match store.reader().get(&key)? {
                Some(bytes) => merge.add(&bytes),
                None => return Ok(None),
            }
        }
        if merge.has_failed() {
            return Ok(None);
        }
        position += 1;
    }
    Ok(merge.estimate())
}

/// When `slots` (slot, sketch in its chunk) start with every offset of one sketch chunk in
/// order, that chunk's union of sketches and how many slots it stands for.
fn whole_chunk_union<'a>(
    chunks: &'a KeptColumnChunks<DecodedSketchChunk>,
    slots: &[(u32, bool)],
) -> Option<(UnionRef<'a>, usize)> {
    let (first, _) = slots.first()?;
    let (number, offset) = chunk_of(*first);
    let chunk = chunks.chunk(number)?;
    let count = chunk.len();
    if offset != 0 || count < 2 || slots.len() < count {
        return None;
    }
    let in_order = slots[..count]
        .iter()
        .zip(*first..)
        .all(|((slot, in_chunk), expected)| *in_chunk && *slot == expected);
    if !in_order {
        return None;
    }
    Some((chunk.hll_union()?, count))
}

impl Store {
    /// The statistics of `columns` aggregated over partitions `partition_names` of table
    /// `catalog.database.name` for `engine`; Hive's `get_aggr_stats_for`. The order of the
    /// names matters for extrapolation.
    pub fn aggregate_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_names: &[String],
        columns: &[String],
        engine: &str,
    ) -> Result<AggregateStatistics> {
        let table = resolve_stats_table(self.reader(), catalog, database, name)?;
        let columns = normalize_columns(columns);
        if columns.is_empty() || partition_names.is_empty() {
            return Ok(AggregateStatistics {
                stats: Vec::new(),
                partitions_found: 0,
            });
        }
        // Every statistics write of partitions rewrites their records too, so a read that
        // sees partition batches whole sees statistics batches whole.
        self.read_partitions_at_version(table.id, |version| {
            self.fold_partitions(version, &table, partition_names, &columns, engine)
        })
    }

    /// [`Store::aggregate_column_statistics`] once `columns` are normalised and not empty.
    fn fold_partitions(
        &self,
        version: u64,
        table: &PartitionedTable,
        partition_names: &[String],
        columns: &[String],
        engine: &str,
    ) -> Result<AggregateStatistics> {
        let mut result = AggregateStatistics {
            stats: Vec::new(),
            partitions_found: 0,
        };
        let slots = resolve_slots(self, table, partition_names)?;
        let Some(range) = chunk_range(&slots) else {
            return Ok(result);
        };
        // The same for every column, computed once.
        let runs = runs_of(&slots, range.0);
        let mut columns_found = ColumnsFound::new(partition_names.len(), &runs);
        for column in columns {
            let wanted = ColumnChunksKey {
                table: table.id,
                column,
                engine,
                version,
                range,
            };
            let chunks = decoded_chunks(self, &wanted)?;
            let chunk_at = |index: usize| {
                let kept = chunks.chunk(range.0 + index as u32);
                kept.map(KeptStatsChunk::arrays)
            };
            let folded = fold_column(chunk_at, &runs, &mut columns_found, FoldBy::Runs);
            if let Some(accumulator) = folded {
                let requested = partition_names.len();
                let sketch_ndv = match &accumulator.sketched_slots {
                    Some(slots) if accumulator.merges_sketches(requested) => {
                        merged_sketches(self, &wanted, slots)?
                    }
                    _ => None,
                };
                result
                    .stats
                    .push(accumulator.finish(column, requested, sketch_ndv));
            }
        }
        let columns_found = columns_found.by_position(&runs);
        let complete = columns_found
            .iter()
            .filter(|found| **found == columns.len());
        result.partitions_found = i64::try_from(complete.count()).unwrap_or(i64::MAX);
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extremes(min: i64, min_index: usize, max: i64, max_index: usize) -> Extremes<i64> {
        Extremes {
            min,
            min_index,
            min_slot: 0,
            max,
            max_index,
            max_slot: 0,
        }
    }

    #[test]
    fn linear_extrapolation_reaches_the_borders() {
        // Goal: a value growing by 10 per partition, known at positions 1 and 3 of 6
        // (border 5), extends to 50 at the right border and 0 at the left.
        let growing = extremes(10, 1, 30, 3);
        assert_eq!(linear_integer(&growing, Aim::Max, 5), 50);
        assert_eq!(linear_integer(&growing, Aim::Min, 5), 0);
        // Falling: the greatest value sits left of the least.
        let falling = extremes(10, 3, 30, 1);
        assert_eq!(linear_integer(&falling, Aim::Max, 5), 40);
        assert_eq!(linear_integer(&falling, Aim::Min, 5), -10);
        let same = extremes(7, 2, 7, 2);
        assert_eq!(linear_integer(&same, Aim::Max, 5), 7);
    }
}
