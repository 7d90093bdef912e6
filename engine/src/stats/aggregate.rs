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
//! The fold reads each partition's numbers in place from the column's chunks: nothing is
//! decoded per partition. When several partitions share the least (greatest) value, the
//! first in request order is taken as holding it.

use std::cmp::Ordering;

use super::chunk::{
    chunk_of, SlotView, HAS_BIT_VECTORS, HAS_HIGH, HAS_LOW, SKETCH_IN_CHUNK, SKETCH_TAG_BIT_VECTORS,
};
use super::merge::{compare_values, decimal_from_java_double, value_to_f64};
use super::ndv::SketchMerge;
use super::packed::{double_in, integer_in, ArchivedPackedStatsChunk, ChunkArrays};
use super::read::{chunk_range, normalize_columns, resolve_slots, ColumnChunks};
use super::sketch_chunk::SketchChunks;
use super::write::resolve_stats_table;
use super::{ColumnStatistics, StatsKind, StatsValue};
use crate::error::Result;
use crate::keys::{self, TableId};
use crate::kv::KvBackend;
use crate::partition::PartitionedTable;
use crate::store::Store;

/// Statistics aggregated over partitions.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregateStatistics {
    /// One entry per requested column with statistics in at least one requested partition.
    pub stats: Vec<ColumnStatistics>,
    /// How many requested partitions have statistics for every requested column.
    pub partitions_found: i64,
}

/// The least and greatest value of one statistic, and where in the request they are.
#[derive(Debug, Clone)]
struct Extremes<T> {
    min: T,
    min_index: usize,
    max: T,
    max_index: usize,
}

impl<T: Clone> Extremes<T> {
    fn new(value: T, index: usize) -> Self {
        Extremes {
            min: value.clone(),
            min_index: index,
            max: value,
            max_index: index,
        }
    }

    fn add(&mut self, value: T, index: usize, compare: impl Fn(&T, &T) -> Ordering) {
        if compare(&value, &self.min) == Ordering::Less {
            self.min = value.clone();
            self.min_index = index;
        }
        if compare(&value, &self.max) == Ordering::Greater {
            self.max = value;
            self.max_index = index;
        }
    }
}

fn add_extreme<T: Clone>(
    slot: &mut Option<Extremes<T>>,
    value: T,
    index: usize,
    compare: impl Fn(&T, &T) -> Ordering,
) {
    match slot {
        Some(extremes) => extremes.add(value, index, compare),
        None => *slot = Some(Extremes::new(value, index)),
    }
}

fn integer_order(left: &i64, right: &i64) -> Ordering {
    left.cmp(right)
}

fn double_order(left: &f64, right: &f64) -> Ordering {
    left.total_cmp(right)
}

/// The least low and greatest high of one column, kept in its kind's representation: integers
/// and doubles as read from the arrays (no value built per partition), decimals as values.
enum BoundFold {
    Integer {
        low: Option<Extremes<i64>>,
        high: Option<Extremes<i64>>,
    },
    Double {
        low: Option<Extremes<f64>>,
        high: Option<Extremes<f64>>,
    },
    Decimal {
        low: Option<Extremes<StatsValue>>,
        high: Option<Extremes<StatsValue>>,
    },
}

impl BoundFold {
    fn new(kind: StatsKind) -> Self {
        match kind {
            StatsKind::Double => BoundFold::Double {
                low: None,
                high: None,
            },
            StatsKind::Decimal => BoundFold::Decimal {
                low: None,
                high: None,
            },
            _ => BoundFold::Integer {
                low: None,
                high: None,
            },
        }
    }

    /// Adds the bounds at `offset` of `chunk` (of kind `kind`, with `flags`).
    #[inline]
    fn add(&mut self, chunk: &ArchivedPackedStatsChunk, at: &SlotAt<'_>, kind: StatsKind) {
        let (arrays, offset, index) = (at.arrays, at.offset, at.index);
        let flags = arrays.flags[offset];
        let (has_low, has_high) = (flags & HAS_LOW != 0, flags & HAS_HIGH != 0);
        match self {
            BoundFold::Integer { low, high } => {
                if has_low {
                    add_extreme(low, integer_in(arrays.lows, offset), index, integer_order);
                }
                if has_high {
                    add_extreme(high, integer_in(arrays.highs, offset), index, integer_order);
                }
            }
            BoundFold::Double { low, high } => {
                let double = |bits: i64| f64::from_bits(bits as u64);
                if has_low {
                    let value = double(integer_in(arrays.lows, offset));
                    add_extreme(low, value, index, double_order);
                }
                if has_high {
                    let value = double(integer_in(arrays.highs, offset));
                    add_extreme(high, value, index, double_order);
                }
            }
            BoundFold::Decimal { low, high } => {
                let slot = SlotView {
                    chunk,
                    offset,
                    kind,
                };
                if let Some(value) = slot.low() {
                    add_extreme(low, value, index, compare_values);
                }
                if let Some(value) = slot.high() {
                    add_extreme(high, value, index, compare_values);
                }
            }
        }
    }

    /// The least low and greatest high, as values.
    fn into_values(self) -> (Option<Extremes<StatsValue>>, Option<Extremes<StatsValue>>) {
        fn to_values<T>(
            extremes: Option<Extremes<T>>,
            value: impl Fn(T) -> StatsValue,
        ) -> Option<Extremes<StatsValue>> {
            extremes.map(|extremes| Extremes {
                min: value(extremes.min),
                min_index: extremes.min_index,
                max: value(extremes.max),
                max_index: extremes.max_index,
            })
        }
        match self {
            BoundFold::Integer { low, high } => (
                to_values(low, StatsValue::Integer),
                to_values(high, StatsValue::Integer),
            ),
            BoundFold::Double { low, high } => (
                to_values(low, StatsValue::Double),
                to_values(high, StatsValue::Double),
            ),
            BoundFold::Decimal { low, high } => (low, high),
        }
    }
}

/// Where one requested partition's statistics are: its chunk's arrays, its offset there, and
/// its position in the request.
struct SlotAt<'a> {
    arrays: &'a ChunkArrays<'a>,
    offset: usize,
    index: usize,
}

/// One column's fold over the requested partitions.
struct Accumulator {
    kind: StatsKind,
    column_type: String,
    count: i64,
    nulls_sum: i64,
    trues_sum: i64,
    falses_sum: i64,
    distinct: Extremes<i64>,
    max_length: Extremes<i64>,
    avg_length: Extremes<f64>,
    bounds: BoundFold,
    /// The slots counted, while every one of them has a sketch (with whether it is in its
    /// chunk's sketch value); `None` once one has none.
    sketched_slots: Option<Vec<(u32, bool)>>,
}

impl Accumulator {
    /// The fold of a column whose first partition with statistics, at request position
    /// `index`, is `slot` (which [`Accumulator::add`] then adds, changing no extreme).
    fn new(slot: &SlotView<'_>, index: usize) -> Self {
        Accumulator {
            kind: slot.kind,
            column_type: slot.column_type().to_string(),
            count: 0,
            nulls_sum: 0,
            trues_sum: 0,
            falses_sum: 0,
            distinct: Extremes::new(slot.num_distinct_values(), index),
            max_length: Extremes::new(slot.max_length(), index),
            avg_length: Extremes::new(slot.avg_length(), index),
            bounds: BoundFold::new(slot.kind),
            sketched_slots: Some(Vec::new()),
        }
    }

    /// Adds the partition `at`, slot `slot_number`. Statistics of another kind than the
    /// first seen (the column was written with two types), or none, are not counted.
    #[inline]
    fn add(&mut self, chunk: &ArchivedPackedStatsChunk, at: &SlotAt<'_>, slot_number: u32) -> bool {
        let (arrays, offset, index) = (at.arrays, at.offset, at.index);
        if arrays.kinds.get(offset) != Some(&(self.kind as u8)) {
            return false;
        }
        self.count += 1;
        let flags = arrays.flags[offset];
        if flags & HAS_BIT_VECTORS == 0 {
            self.sketched_slots = None;
        } else if let Some(sketched) = &mut self.sketched_slots {
            sketched.push((slot_number, flags & SKETCH_IN_CHUNK != 0));
        }
        let nulls = integer_in(arrays.num_nulls, offset);
        self.nulls_sum = self.nulls_sum.saturating_add(nulls);
        let trues = integer_in(arrays.num_trues, offset);
        self.trues_sum = self.trues_sum.saturating_add(trues);
        let falses = integer_in(arrays.num_falses, offset);
        self.falses_sum = self.falses_sum.saturating_add(falses);
        let distinct = integer_in(arrays.num_distinct_values, offset);
        self.distinct.add(distinct, index, integer_order);
        let max_length = integer_in(arrays.max_lengths, offset);
        self.max_length.add(max_length, index, integer_order);
        let avg_length = double_in(arrays.avg_lengths, offset);
        self.avg_length.add(avg_length, index, double_order);
        self.bounds.add(chunk, at, self.kind);
        true
    }

    /// Whether Hive would merge sketches for the NDV: every partition that has statistics
    /// has a sketch, and no extrapolation (all requested partitions found, or fewer than two).
    fn merges_sketches(&self, requested: usize) -> bool {
        let found = usize::try_from(self.count).unwrap_or(usize::MAX);
        let sketched = self
            .sketched_slots
            .as_ref()
            .is_some_and(|slots| !slots.is_empty());
        sketched && (found >= requested || found < 2)
    }

    /// The statistics folded; `sketch_ndv` is the NDV of the merged sketches, when they
    /// merged (Hive then takes it as it is, without capping it by the value range).
    fn finish(self, column: &str, requested: usize, sketch_ndv: Option<i64>) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new(column, &self.column_type, self.kind);
        let (low, high) = self.bounds.into_values();
        let found = usize::try_from(self.count).unwrap_or(usize::MAX);
        let extrapolate = found >= 2 && found < requested;
        if extrapolate {
            let border = requested - 1;
            let scale = |sum: i64| {
                let scaled = i128::from(sum / self.count) * requested as i128;
                i64::try_from(scaled).unwrap_or(i64::MAX)
            };
            stats.num_nulls = scale(self.nulls_sum);
            stats.num_trues = scale(self.trues_sum);
            stats.num_falses = scale(self.falses_sum);
            stats.num_distinct_values = linear_integer(&self.distinct, Aim::Max, border);
            stats.max_length = linear_integer(&self.max_length, Aim::Max, border);
            stats.avg_length = linear_double(&self.avg_length, Aim::Max, border);
            stats.low_value = low.map(|low| linear_value(&low, Aim::Min, border));
            stats.high_value = high.map(|high| linear_value(&high, Aim::Max, border));
        } else {
            stats.num_nulls = self.nulls_sum;
            stats.num_trues = self.trues_sum;
            stats.num_falses = self.falses_sum;
            stats.num_distinct_values = self.distinct.max;
            stats.max_length = self.max_length.max;
            stats.avg_length = self.avg_length.max;
            stats.low_value = low.map(|low| low.min);
            stats.high_value = high.map(|high| high.max);
        }
        if let Some(ndv) = sketch_ndv {
            stats.num_distinct_values = ndv;
        } else if self.kind.has_integer_bounds() {
            if let (Some(StatsValue::Integer(low)), Some(StatsValue::Integer(high))) =
                (&stats.low_value, &stats.high_value)
            {
                let span = i128::from(*high) - i128::from(*low) + 1;
                if span > 0 && i128::from(stats.num_distinct_values) > span {
                    stats.num_distinct_values = i64::try_from(span).unwrap_or(i64::MAX);
                }
            }
        }
        stats
    }
}

/// Which border a linear extrapolation extends to.
#[derive(Clone, Copy)]
enum Aim {
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

fn linear_integer(extremes: &Extremes<i64>, aim: Aim, border: usize) -> i64 {
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

fn linear_double(extremes: &Extremes<f64>, aim: Aim, border: usize) -> f64 {
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

fn linear_value(extremes: &Extremes<StatsValue>, aim: Aim, border: usize) -> StatsValue {
    match (&extremes.min, &extremes.max) {
        (StatsValue::Integer(min), StatsValue::Integer(max)) => {
            let integers = Extremes {
                min: *min,
                min_index: extremes.min_index,
                max: *max,
                max_index: extremes.max_index,
            };
            StatsValue::Integer(linear_integer(&integers, aim, border))
        }
        (min, max) => {
            let doubles = Extremes {
                min: value_to_f64(min),
                min_index: extremes.min_index,
                max: value_to_f64(max),
                max_index: extremes.max_index,
            };
            let value = linear_double(&doubles, aim, border);
            match min {
                StatsValue::Decimal(_) => StatsValue::Decimal(decimal_from_java_double(value)),
                _ => StatsValue::Double(value),
            }
        }
    }
}

/// The NDV of the sketches of `slots` (of `column` for `engine`, in chunks `range`) merged
/// as Hive merges them; `None` if one is missing or they do not merge. Each slot comes with
/// whether its sketch is in its chunk's sketch value (one scan over the range reads them) or
/// at its own key (written before sketch chunks).
fn merged_sketches(
    reader: &dyn KvBackend,
    table: TableId,
    column: &str,
    engine: &str,
    range: (u32, u32),
    slots: &[(u32, bool)],
) -> Result<Option<i64>> {
    let any_in_chunk = slots.iter().any(|(_, in_chunk)| *in_chunk);
    let loaded = match any_in_chunk {
        true => Some(SketchChunks::load(reader, table, column, engine, range)?),
        false => None,
    };
    let archived = loaded.as_ref().map(SketchChunks::archived).transpose()?;
    let mut merge = SketchMerge::default();
    // Hive merges one sketch per requested partition; a name requested twice merges the
    // same sketch twice, which changes nothing.
    for (slot, in_chunk) in slots {
        match (&archived, in_chunk) {
            (Some(chunks), true) => merge.add(chunks.sketch(*slot)),
            _ => {
                let key =
                    keys::stats_sketch_key(table, column, engine, *slot, SKETCH_TAG_BIT_VECTORS);
                match reader.get(&key)? {
                    Some(bytes) => merge.add(&bytes),
                    None => return Ok(None),
                }
            }
        }
        if merge.has_failed() {
            return Ok(None);
        }
    }
    Ok(merge.estimate())
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
        let slots = resolve_slots(self, version, table, partition_names)?;
        let Some(range) = chunk_range(&slots) else {
            return Ok(result);
        };
        let mut columns_found = vec![0usize; partition_names.len()];
        // (request position, chunk index in the range, offset, slot): the same for every
        // column, computed once.
        let positions: Vec<(usize, usize, usize, u32)> = slots
            .iter()
            .map(|&(index, slot)| {
                let (chunk, offset) = chunk_of(slot);
                (index, (chunk - range.0) as usize, offset, slot)
            })
            .collect();
        for column in columns {
            let loaded = ColumnChunks::load(self.reader(), table.id, column, engine, range)?;
            let chunks = loaded.archived()?;
            let arrays: Vec<Option<(&ArchivedPackedStatsChunk, ChunkArrays<'_>)>> = chunks
                .chunks()
                .iter()
                .map(|chunk| chunk.map(|chunk| (chunk, chunk.arrays())))
                .collect();
            let mut accumulator: Option<Accumulator> = None;
            for &(index, chunk_index, offset, slot) in &positions {
                let Some((chunk, chunk_arrays)) = &arrays[chunk_index] else {
                    continue;
                };
                let accumulator = match &mut accumulator {
                    Some(accumulator) => accumulator,
                    None => match chunk.slot(offset) {
                        Some(view) => accumulator.insert(Accumulator::new(&view, index)),
                        None => continue,
                    },
                };
                let at = SlotAt {
                    arrays: chunk_arrays,
                    offset,
                    index,
                };
                if accumulator.add(chunk, &at, slot) {
                    columns_found[index] += 1;
                }
            }
            if let Some(accumulator) = accumulator {
                let requested = partition_names.len();
                let sketch_ndv = match &accumulator.sketched_slots {
                    Some(slots) if accumulator.merges_sketches(requested) => {
                        merged_sketches(self.reader(), table.id, column, engine, range, slots)?
                    }
                    _ => None,
                };
                result
                    .stats
                    .push(accumulator.finish(column, requested, sketch_ndv));
            }
        }
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
            max,
            max_index,
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
