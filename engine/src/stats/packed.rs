//! The stored form of a chunk of partition statistics (keyspace 0x09, value kind 8): the
//! arrays of [`StatsChunk`] packed so that reading one costs little.
//!
//! - An array that is zero at every offset is stored empty (a `bigint` column has no lengths,
//!   trues, falses or decimals), so a chunk of a numeric column is a third of its unpacked size.
//! - Column types are stored once per distinct type with one index byte per offset, and
//!   decimal bounds as one byte string with end offsets, so the archive holds no per-offset
//!   strings or vectors and validates in constant time instead of once per offset.
//!
//! A chunk read with its delta (`super::chunk_delta`) is the chunk they make, packed here as
//! its next merge will store it.
//!
//! Chunks written before this form (value kind 6, the unpacked [`StatsChunk`]) are read by
//! converting them ([`pack`]); the next write of the chunk stores it packed.

use std::sync::Arc;

use rkyv::{Archive, Deserialize, Serialize};

use super::chunk::StatsChunk;
use super::chunk_delta::overlay;
use super::chunk_run::ChunkEntries;
use crate::error::{Error, Result};
use crate::storage::kv::KvBytes;
use crate::storage::values::{encode, stored_value, ValueKind, ValueView, VALUE_KIND_OFFSET};

/// One column's statistics for up to [`super::CHUNK_SLOT_COUNT`] partitions, packed. `kinds`,
/// `flags`, `type_indexes` and `last_analyzed` have one entry per offset; every other array
/// has as many or none (then it is zero everywhere); `decimal_ends` has two entries per offset
/// (the ends of the low's and the high's unscaled bytes in `decimal_bytes`) or none.
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct PackedStatsChunk {
    pub(crate) kinds: Vec<u8>,
    pub(crate) flags: Vec<u8>,
    pub(crate) type_names: Vec<String>,
    pub(crate) type_indexes: Vec<u8>,
    pub(crate) last_analyzed: Vec<i64>,
    pub(crate) num_nulls: Vec<i64>,
    pub(crate) num_distinct_values: Vec<i64>,
    pub(crate) lows: Vec<i64>,
    pub(crate) highs: Vec<i64>,
    pub(crate) max_lengths: Vec<i64>,
    pub(crate) avg_lengths: Vec<f64>,
    pub(crate) num_trues: Vec<i64>,
    pub(crate) num_falses: Vec<i64>,
    pub(crate) decimal_bytes: Vec<u8>,
    pub(crate) decimal_ends: Vec<u32>,
}

stored_value!(PackedStatsChunk, ValueKind::StatsPackedChunk);

/// `values`, or nothing when every one is zero (`0.0` for doubles, by bits).
fn dense_or_empty<T: Copy + PartialEq + Default>(values: &[T]) -> Vec<T> {
    if values.iter().all(|value| *value == T::default()) {
        Vec::new()
    } else {
        values.to_vec()
    }
}

/// The packed form of `chunk`, whose arrays must have equal lengths.
pub(crate) fn pack(chunk: &StatsChunk) -> PackedStatsChunk {
    let length = chunk.len();
    let mut type_names: Vec<String> = Vec::new();
    let mut type_indexes = Vec::with_capacity(length);
    for column_type in &chunk.column_types {
        let index = match type_names.iter().position(|name| name == column_type) {
            Some(index) => index,
            None => {
                type_names.push(column_type.clone());
                type_names.len() - 1
            }
        };
        // A chunk has at most CHUNK_SLOT_COUNT (128) offsets, so at most 128 types.
        type_indexes.push(u8::try_from(index).expect("at most 128 types per chunk"));
    }
    let has_decimals = chunk
        .decimal_lows
        .iter()
        .chain(&chunk.decimal_highs)
        .any(|bytes| !bytes.is_empty());
    let (mut decimal_bytes, mut decimal_ends) = (Vec::new(), Vec::new());
    if has_decimals {
        for (low, high) in chunk.decimal_lows.iter().zip(&chunk.decimal_highs) {
            for bytes in [low, high] {
                decimal_bytes.extend_from_slice(bytes);
                let end = u32::try_from(decimal_bytes.len()).expect("a chunk under 4 GiB");
                decimal_ends.push(end);
            }
        }
    }
    let avg_lengths = if chunk.avg_lengths.iter().all(|length| length.to_bits() == 0) {
        Vec::new()
    } else {
        chunk.avg_lengths.clone()
    };
    PackedStatsChunk {
        kinds: chunk.kinds.clone(),
        flags: chunk.flags.clone(),
        type_names,
        type_indexes,
        last_analyzed: chunk.last_analyzed.clone(),
        num_nulls: dense_or_empty(&chunk.num_nulls),
        num_distinct_values: dense_or_empty(&chunk.num_distinct_values),
        lows: dense_or_empty(&chunk.lows),
        highs: dense_or_empty(&chunk.highs),
        max_lengths: dense_or_empty(&chunk.max_lengths),
        avg_lengths,
        num_trues: dense_or_empty(&chunk.num_trues),
        num_falses: dense_or_empty(&chunk.num_falses),
        decimal_bytes,
        decimal_ends,
    }
}

/// Whether `stored` is a chunk in the unpacked form of kind 6.
fn is_unpacked(stored: &[u8]) -> bool {
    stored.get(VALUE_KIND_OFFSET) == Some(&(ValueKind::StatsChunk as u8))
}

/// The unpacked chunk stored (kind 6) at `key`, checked.
fn decode_unpacked(key: &KvBytes, stored: KvBytes) -> Result<StatsChunk> {
    let chunk = ValueView::<StatsChunk>::new(key.clone(), stored)?.to_owned()?;
    if !chunk.is_consistent() {
        return Err(Error::corruption(
            key,
            "statistics arrays of unequal lengths",
        ));
    }
    Ok(chunk)
}

/// A view of the chunk stored at `key`, packed: a chunk of the older unpacked form is
/// converted (and stays so on disk until its next write).
pub(crate) fn packed_view(key: KvBytes, stored: KvBytes) -> Result<ValueView<PackedStatsChunk>> {
    if !is_unpacked(&stored) {
        return ValueView::new(key, stored);
    }
    let packed = encode(&pack(&decode_unpacked(&key, stored)?))?;
    ValueView::new(key, KvBytes::from_shared(Arc::from(packed)))
}

/// A view of a chunk as read with its delta (`super::chunk_delta`): the stored one when it
/// has none, else the chunk the delta makes laid over it, packed as a write would store it.
pub(crate) fn packed_chunk_view(entries: ChunkEntries) -> Result<ValueView<PackedStatsChunk>> {
    let ChunkEntries { key, value, delta } = entries;
    let Some(delta) = delta else {
        let value = value.ok_or_else(|| Error::corruption(&key, "a chunk without a value"))?;
        return packed_view(key, value);
    };
    let base = match value {
        Some(value) => unpacked_chunk(&key, value)?,
        None => StatsChunk::default(),
    };
    let packed = encode(&pack(&overlay(base, delta)?))?;
    ValueView::new(key, KvBytes::from_shared(Arc::from(packed)))
}

/// The chunk stored at `key`, unpacked for a write, whichever its stored form.
pub(crate) fn unpacked_chunk(key: &[u8], stored: KvBytes) -> Result<StatsChunk> {
    let key = KvBytes::from_shared(Arc::from(key));
    if is_unpacked(&stored) {
        return decode_unpacked(&key, stored);
    }
    let view = ValueView::<PackedStatsChunk>::new(key, stored)?;
    let archived = view.archived()?;
    if !archived.is_consistent() {
        return Err(Error::corruption(
            view.key(),
            "packed statistics arrays that do not fit",
        ));
    }
    Ok(archived.unpack())
}

/// An archived `i64` array that may be stored empty (zero everywhere).
fn integer_at(values: &rkyv::vec::ArchivedVec<rkyv::rend::i64_le>, offset: usize) -> i64 {
    values.get(offset).map_or(0, |value| value.to_native())
}

impl ArchivedPackedStatsChunk {
    /// How many offsets the chunk covers.
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether the arrays fit together; a chunk that fails is corrupt. Linear only in the
    /// index bytes and decimal ends, which it must check before they are used.
    pub(crate) fn is_consistent(&self) -> bool {
        let length = self.len();
        let full_or_empty = |other: usize| other == length || other == 0;
        let decimal_ends_fit = self.decimal_ends.is_empty()
            || (self.decimal_ends.len() == 2 * length
                && self
                    .decimal_ends
                    .windows(2)
                    .all(|pair| pair[0].to_native() <= pair[1].to_native())
                && self
                    .decimal_ends
                    .last()
                    .is_none_or(|end| end.to_native() as usize <= self.decimal_bytes.len()));
        let type_count = self.type_names.len();
        length <= super::CHUNK_SLOT_COUNT as usize
            && self.flags.len() == length
            && self.type_indexes.len() == length
            && self.last_analyzed.len() == length
            && self
                .type_indexes
                .iter()
                .all(|index| (*index as usize) < type_count)
            && [
                self.num_nulls.len(),
                self.num_distinct_values.len(),
                self.lows.len(),
                self.highs.len(),
                self.max_lengths.len(),
                self.avg_lengths.len(),
                self.num_trues.len(),
                self.num_falses.len(),
            ]
            .into_iter()
            .all(full_or_empty)
            && decimal_ends_fit
    }

    pub(crate) fn column_type(&self, offset: usize) -> &str {
        self.type_names[self.type_indexes[offset] as usize].as_str()
    }

    pub(crate) fn avg_length_at(&self, offset: usize) -> f64 {
        self.avg_lengths
            .get(offset)
            .map_or(0.0, |length| length.to_native())
    }

    /// The unscaled bytes of the decimal low (`high` false) or high at `offset`; empty when
    /// the chunk holds no decimals. The chunk must be consistent.
    pub(crate) fn decimal_at(&self, offset: usize, high: bool) -> &[u8] {
        let index = 2 * offset + usize::from(high);
        let Some(end) = self.decimal_ends.get(index) else {
            return &[];
        };
        let start = match index {
            0 => 0,
            _ => self.decimal_ends[index - 1].to_native() as usize,
        };
        &self.decimal_bytes[start..end.to_native() as usize]
    }

    /// The unpacked chunk, for a write that changes it.
    pub(crate) fn unpack(&self) -> StatsChunk {
        let length = self.len();
        let integers = |values: &rkyv::vec::ArchivedVec<rkyv::rend::i64_le>| -> Vec<i64> {
            (0..length)
                .map(|offset| integer_at(values, offset))
                .collect()
        };
        StatsChunk {
            kinds: self.kinds.to_vec(),
            flags: self.flags.to_vec(),
            column_types: (0..length)
                .map(|offset| self.column_type(offset).to_string())
                .collect(),
            last_analyzed: integers(&self.last_analyzed),
            num_nulls: integers(&self.num_nulls),
            num_distinct_values: integers(&self.num_distinct_values),
            lows: integers(&self.lows),
            highs: integers(&self.highs),
            decimal_lows: (0..length)
                .map(|offset| self.decimal_at(offset, false).to_vec())
                .collect(),
            decimal_highs: (0..length)
                .map(|offset| self.decimal_at(offset, true).to_vec())
                .collect(),
            max_lengths: integers(&self.max_lengths),
            avg_lengths: (0..length)
                .map(|offset| self.avg_length_at(offset))
                .collect(),
            num_trues: integers(&self.num_trues),
            num_falses: integers(&self.num_falses),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::stored_chunk::KeptStatsChunk;
    use crate::stats::{ColumnStatistics, StatsDecimal, StatsKind, StatsValue};
    use crate::storage::values::{encode, StoredValue, VALUE_HEADER_LEN};

    fn round_trip(chunk: &StatsChunk) -> StatsChunk {
        let stored = encode(&pack(chunk)).unwrap();
        let archived = PackedStatsChunk::access_archive(&stored[VALUE_HEADER_LEN..]).unwrap();
        assert!(archived.is_consistent());
        archived.unpack()
    }

    #[test]
    fn packing_keeps_every_field() {
        // Goal: a chunk mixing kinds, types, decimals and empty offsets unpacks unchanged.
        let mut chunk = StatsChunk::default();
        let mut long = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        long.low_value = Some(StatsValue::Integer(-3));
        long.num_nulls = 4;
        chunk.set(0, &long, 7);
        let mut decimal = ColumnStatistics::new("c", "decimal(10,2)", StatsKind::Decimal);
        decimal.high_value = Some(StatsValue::Decimal(StatsDecimal {
            unscaled: vec![0x80, 1],
            scale: 2,
        }));
        chunk.set(5, &decimal, 8);
        let mut string = ColumnStatistics::new("c", "string", StatsKind::String);
        string.avg_length = 2.5;
        string.max_length = 9;
        chunk.set(127, &string, 9);
        assert_eq!(round_trip(&chunk), chunk);
        // Kept in place (as by the kept chunks), every offset reads as it was set.
        let kept = KeptStatsChunk::from_chunk(&chunk);
        for offset in 0..130 {
            let expected = chunk.get(offset, "c");
            assert_eq!(
                kept.arrays().statistics_at(offset, "c"),
                expected,
                "offset {offset}"
            );
        }
    }

    #[test]
    fn chunks_of_the_unpacked_form_are_read_and_rewritten() {
        // Goal: a chunk stored before the packed form (kind 6) reads through both paths.
        let mut chunk = StatsChunk::default();
        let mut long = ColumnStatistics::new("c", "int", StatsKind::Long);
        long.high_value = Some(StatsValue::Integer(99));
        chunk.set(4, &long, 5);
        let stored = encode(&chunk).unwrap();
        assert_eq!(stored[VALUE_KIND_OFFSET], ValueKind::StatsChunk as u8);
        let key = KvBytes::from_shared(Arc::from(&b"chunk key"[..]));
        let as_bytes = || KvBytes::from_shared(Arc::from(stored.as_slice()));
        let view = packed_view(key, as_bytes()).unwrap();
        let kept = KeptStatsChunk::from_view(view).unwrap();
        assert_eq!(kept.arrays().statistics_at(4, "c"), Some(long));
        assert_eq!(unpacked_chunk(b"chunk key", as_bytes()).unwrap(), chunk);
    }

    #[test]
    fn zero_arrays_are_stored_empty() {
        let mut chunk = StatsChunk::default();
        let mut long = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        long.num_distinct_values = 3;
        chunk.set(3, &long, 1);
        let packed = pack(&chunk);
        assert!(packed.max_lengths.is_empty() && packed.decimal_ends.is_empty());
        assert_eq!(packed.type_names, vec![String::new(), "bigint".to_string()]);
        assert_eq!(round_trip(&chunk), chunk);
    }
}
