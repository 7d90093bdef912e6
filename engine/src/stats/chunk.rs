//! The columnar value: one column's statistics for [`CHUNK_SLOT_COUNT`] partitions, as parallel
//! arrays indexed by slot offset, so an aggregation reads numbers in place without building
//! one object per partition.

use rkyv::{Archive, Deserialize, Serialize};

use super::{ColumnStatistics, StatsDecimal, StatsKind, StatsValue};
use crate::storage::values::{stored_value, ValueKind};

/// How many partitions (slots) one chunk holds. 128 keeps a chunk at a few kilobytes, so a
/// write rewrites little, while 10k partitions are 79 chunks per column to scan.
pub const CHUNK_SLOT_COUNT: u32 = 128;

/// Flags of a slot: which optional fields are present.
pub(crate) const HAS_LOW: u8 = 1;
pub(crate) const HAS_HIGH: u8 = 2;
/// The slot has a sketch, stored apart (keyspace 0x0A, see [`SKETCH_IN_CHUNK`]).
pub(crate) const HAS_BIT_VECTORS: u8 = 4;
/// The slot's histogram is stored apart (tag [`SKETCH_TAG_HISTOGRAM`]).
pub(crate) const HAS_HISTOGRAM: u8 = 8;
/// With [`HAS_BIT_VECTORS`]: the sketch is in its chunk's sketch value
/// (`super::sketch_chunk`); without, at the slot's own key (written before sketch chunks).
pub(crate) const SKETCH_IN_CHUNK: u8 = 16;

/// The last byte of a sketch key: what the bytes are.
pub(crate) const SKETCH_TAG_BIT_VECTORS: u8 = 1;
pub(crate) const SKETCH_TAG_HISTOGRAM: u8 = 2;

/// The chunk holding `slot`, and the slot's offset in it.
pub(crate) fn chunk_of(slot: u32) -> (u32, usize) {
    (slot / CHUNK_SLOT_COUNT, (slot % CHUNK_SLOT_COUNT) as usize)
}

/// One column's statistics for up to [`CHUNK_SLOT_COUNT`] partitions, unpacked: the form a
/// write changes, and the stored form of chunks written before the packed one
/// (`super::packed`) and of table-level statistics. Every array has the
/// same length, one past the highest offset written; `kinds[i] == 0` means no statistics.
/// Bounds share `lows`/`highs`: integers as they are, doubles as their IEEE bits, decimals as
/// their scale (the unscaled bytes in `decimal_lows`/`decimal_highs`).
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct StatsChunk {
    pub(crate) kinds: Vec<u8>,
    pub(crate) flags: Vec<u8>,
    pub(crate) column_types: Vec<String>,
    pub(crate) last_analyzed: Vec<i64>,
    pub(crate) num_nulls: Vec<i64>,
    pub(crate) num_distinct_values: Vec<i64>,
    pub(crate) lows: Vec<i64>,
    pub(crate) highs: Vec<i64>,
    pub(crate) decimal_lows: Vec<Vec<u8>>,
    pub(crate) decimal_highs: Vec<Vec<u8>>,
    pub(crate) max_lengths: Vec<i64>,
    pub(crate) avg_lengths: Vec<f64>,
    pub(crate) num_trues: Vec<i64>,
    pub(crate) num_falses: Vec<i64>,
}

/// A column's table-level statistics: a one-slot chunk and its sketches inline.
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct TableStatsRecord {
    pub(crate) row: StatsChunk,
    pub(crate) bit_vectors: Option<Vec<u8>>,
    pub(crate) histogram: Option<Vec<u8>>,
}

stored_value!(StatsChunk, ValueKind::StatsChunk);
stored_value!(TableStatsRecord, ValueKind::TableStats);

fn bound_parts(value: &Option<StatsValue>) -> (i64, Vec<u8>, bool) {
    match value {
        None => (0, Vec::new(), false),
        Some(StatsValue::Integer(value)) => (*value, Vec::new(), true),
        Some(StatsValue::Double(value)) => (value.to_bits() as i64, Vec::new(), true),
        Some(StatsValue::Decimal(decimal)) => {
            (i64::from(decimal.scale), decimal.unscaled.clone(), true)
        }
    }
}

pub(crate) fn bound_value(kind: StatsKind, number: i64, decimal: &[u8]) -> StatsValue {
    match kind {
        StatsKind::Double => StatsValue::Double(f64::from_bits(number as u64)),
        StatsKind::Decimal => StatsValue::Decimal(StatsDecimal {
            unscaled: decimal.to_vec(),
            scale: i16::try_from(number).unwrap_or_default(),
        }),
        _ => StatsValue::Integer(number),
    }
}

impl StatsChunk {
    /// How many offsets the arrays cover.
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    pub(crate) fn grow_to(&mut self, length: usize) {
        assert!(length <= CHUNK_SLOT_COUNT as usize);
        if self.len() >= length {
            return;
        }
        self.kinds.resize(length, 0);
        self.flags.resize(length, 0);
        self.column_types.resize(length, String::new());
        self.last_analyzed.resize(length, 0);
        self.num_nulls.resize(length, 0);
        self.num_distinct_values.resize(length, 0);
        self.lows.resize(length, 0);
        self.highs.resize(length, 0);
        self.decimal_lows.resize(length, Vec::new());
        self.decimal_highs.resize(length, Vec::new());
        self.max_lengths.resize(length, 0);
        self.avg_lengths.resize(length, 0.0);
        self.num_trues.resize(length, 0);
        self.num_falses.resize(length, 0);
    }

    /// Stores `stats` at `offset`; its sketches are recorded as flags only.
    pub(crate) fn set(&mut self, offset: usize, stats: &ColumnStatistics, last_analyzed: i64) {
        self.grow_to(offset + 1);
        let (low, decimal_low, has_low) = bound_parts(&stats.low_value);
        let (high, decimal_high, has_high) = bound_parts(&stats.high_value);
        let mut flags = 0;
        flags |= if has_low { HAS_LOW } else { 0 };
        flags |= if has_high { HAS_HIGH } else { 0 };
        flags |= if stats.bit_vectors.is_some() {
            HAS_BIT_VECTORS
        } else {
            0
        };
        flags |= if stats.histogram.is_some() {
            HAS_HISTOGRAM
        } else {
            0
        };
        self.kinds[offset] = stats.kind as u8;
        self.flags[offset] = flags;
        self.column_types[offset] = stats.column_type.to_string();
        self.last_analyzed[offset] = last_analyzed;
        self.num_nulls[offset] = stats.num_nulls;
        self.num_distinct_values[offset] = stats.num_distinct_values;
        self.lows[offset] = low;
        self.highs[offset] = high;
        self.decimal_lows[offset] = decimal_low;
        self.decimal_highs[offset] = decimal_high;
        self.max_lengths[offset] = stats.max_length;
        self.avg_lengths[offset] = stats.avg_length;
        self.num_trues[offset] = stats.num_trues;
        self.num_falses[offset] = stats.num_falses;
    }

    /// Removes the statistics at `offset`, shrinking the arrays past the last one left.
    pub(crate) fn clear(&mut self, offset: usize) {
        if offset >= self.len() {
            return;
        }
        let empty = ColumnStatistics::new("", "", StatsKind::Boolean);
        self.set(offset, &empty, 0);
        self.kinds[offset] = 0;
        self.column_types[offset] = String::new();
        let length = self
            .kinds
            .iter()
            .rposition(|kind| *kind != 0)
            .map_or(0, |last| last + 1);
        self.truncate(length);
    }

    fn truncate(&mut self, length: usize) {
        self.kinds.truncate(length);
        self.flags.truncate(length);
        self.column_types.truncate(length);
        self.last_analyzed.truncate(length);
        self.num_nulls.truncate(length);
        self.num_distinct_values.truncate(length);
        self.lows.truncate(length);
        self.highs.truncate(length);
        self.decimal_lows.truncate(length);
        self.decimal_highs.truncate(length);
        self.max_lengths.truncate(length);
        self.avg_lengths.truncate(length);
        self.num_trues.truncate(length);
        self.num_falses.truncate(length);
    }

    /// The statistics at `offset`, without sketches; `None` when the slot holds none.
    pub(crate) fn get(&self, offset: usize, column_name: &str) -> Option<ColumnStatistics> {
        let kind = StatsKind::from_byte(*self.kinds.get(offset)?)?;
        let flags = self.flags[offset];
        let mut stats = ColumnStatistics::new(column_name, &self.column_types[offset], kind);
        stats.num_nulls = self.num_nulls[offset];
        stats.num_distinct_values = self.num_distinct_values[offset];
        stats.low_value = (flags & HAS_LOW != 0)
            .then(|| bound_value(kind, self.lows[offset], &self.decimal_lows[offset]));
        stats.high_value = (flags & HAS_HIGH != 0)
            .then(|| bound_value(kind, self.highs[offset], &self.decimal_highs[offset]));
        stats.max_length = self.max_lengths[offset];
        stats.avg_length = self.avg_lengths[offset];
        stats.num_trues = self.num_trues[offset];
        stats.num_falses = self.num_falses[offset];
        Some(stats)
    }

    /// Whether every array has the same length, at most [`CHUNK_SLOT_COUNT`]; a chunk that
    /// fails is corrupt.
    pub(crate) fn is_consistent(&self) -> bool {
        let length = self.len();
        [
            self.flags.len(),
            self.column_types.len(),
            self.last_analyzed.len(),
            self.num_nulls.len(),
            self.num_distinct_values.len(),
            self.lows.len(),
            self.highs.len(),
            self.decimal_lows.len(),
            self.decimal_highs.len(),
            self.max_lengths.len(),
            self.avg_lengths.len(),
            self.num_trues.len(),
            self.num_falses.len(),
        ]
        .iter()
        .all(|other| *other == length)
            && length <= CHUNK_SLOT_COUNT as usize
    }

    /// Whether no slot holds statistics.
    pub(crate) fn is_empty(&self) -> bool {
        self.kinds.iter().all(|kind| *kind == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(kind: StatsKind, low: Option<StatsValue>) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new("c", "t", kind);
        stats.num_nulls = 3;
        stats.num_distinct_values = 7;
        stats.high_value = low.clone();
        stats.low_value = low;
        stats.bit_vectors = Some(vec![1, 2]);
        stats
    }

    #[test]
    fn slots_round_trip_through_the_packed_archive() {
        // Goal: what a slot stores reads back from the archived chunk, every bound kind.
        let decimal = StatsValue::Decimal(StatsDecimal {
            unscaled: vec![0xFF, 0x01],
            scale: 2,
        });
        let written = [
            (3, sample(StatsKind::Long, Some(StatsValue::Integer(-5)))),
            (
                0,
                sample(StatsKind::Double, Some(StatsValue::Double(-0.25))),
            ),
            (127, sample(StatsKind::Decimal, Some(decimal))),
            (9, sample(StatsKind::String, None)),
        ];
        let mut chunk = StatsChunk::default();
        for (offset, stats) in &written {
            chunk.set(*offset, stats, 42);
        }
        let kept = super::super::stored_chunk::KeptStatsChunk::from_chunk(&chunk);
        let decoded = kept.arrays();
        for (offset, stats) in &written {
            let mut expected = stats.clone();
            expected.bit_vectors = None;
            assert_eq!(decoded.statistics_at(*offset, "c"), Some(expected));
            assert_eq!(decoded.flags[*offset] & HAS_BIT_VECTORS, HAS_BIT_VECTORS);
            assert_eq!(decoded.last_analyzed.at(*offset), 42);
        }
        assert!(decoded.statistics_at(1, "c").is_none());
    }

    #[test]
    fn clearing_the_last_slots_shrinks_the_chunk() {
        let mut chunk = StatsChunk::default();
        chunk.set(2, &sample(StatsKind::Long, None), 1);
        chunk.set(5, &sample(StatsKind::Long, None), 1);
        chunk.clear(5);
        assert_eq!(chunk.len(), 3);
        chunk.clear(2);
        assert!(chunk.is_empty());
        assert_eq!(chunk.len(), 0);
    }
}
