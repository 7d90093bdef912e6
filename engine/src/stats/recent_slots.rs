//! Recent slots: one slot's statistics written at a key of its own (keyspace 0x38, the chunk's
//! key there and an offset; value kind 70), so that a write of one partition stages about a
//! hundred bytes per column instead of rewriting its chunk's 128 slots. Not beside the chunks:
//! every new key among them made sled split a leaf of chunks, and every merge join one,
//! rewriting and compressing kilobytes of chunks each time.
//!
//! Every reader of a chunk reads it with its recent slots (a range scan of the chunks, then
//! one of their recent slots) and lays them over it (`chunk_run.rs`, `packed.rs`): readers see
//! one chunk, as if it had been rewritten. A write merges a chunk's
//! recent slots into it once the chunk would hold more than [`RECENT_SLOT_COUNT_MAX`] of them
//! (`StoreOptions::recent_slot_count_max`),
//! and whenever it clears a slot (drops), so keyspace 0x38 holds at most that many per
//! chunk and the rewrite of a chunk is shared by that many writes.
//!
//! A recent slot's sketch (`bitVectors`) is stored at the slot's own key (flag 4 without 16,
//! the form every reader already reads), and moved into the chunk's sketch value when the slot
//! is merged into its chunk.

use rkyv::{Archive, Deserialize, Serialize};

use super::chunk::StatsChunk;
use crate::error::{Error, Result};
use crate::storage::kv::KvBytes;
use crate::storage::values::{stored_value, ValueKind, ValueView};

/// Recent slots a chunk may have before a write merges them into it, by default
/// (`StoreOptions::recent_slot_count_max`). A recent slot costs a reader of its chunk one more
/// entry to lay over the chunk; 16 keeps that under an eighth of the chunk's slots, while a
/// chunk's rewrite (4.8 KB for a `bigint` column) is shared by 17 writes.
pub const RECENT_SLOT_COUNT_MAX: usize = 16;

/// The length of a recent slot key's end past its column and engine: the chunk number, then
/// the offset.
pub(crate) const RECENT_SLOT_SUFFIX_LEN: usize = 5;

/// One slot's statistics, the fields of one offset of a [`StatsChunk`].
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct RecentSlot {
    pub(crate) kind: u8,
    pub(crate) flags: u8,
    pub(crate) column_type: String,
    pub(crate) last_analyzed: i64,
    pub(crate) num_nulls: i64,
    pub(crate) num_distinct_values: i64,
    pub(crate) low: i64,
    pub(crate) high: i64,
    pub(crate) decimal_low: Vec<u8>,
    pub(crate) decimal_high: Vec<u8>,
    pub(crate) max_length: i64,
    pub(crate) avg_length: f64,
    pub(crate) num_trues: i64,
    pub(crate) num_falses: i64,
}

stored_value!(RecentSlot, ValueKind::StatsRecentSlot);

impl RecentSlot {
    /// The slot at `offset` of `chunk`, which must hold statistics there.
    pub(crate) fn of(chunk: &StatsChunk, offset: usize) -> RecentSlot {
        assert!(
            offset < chunk.len(),
            "a recent slot is taken from a written offset"
        );
        RecentSlot {
            kind: chunk.kinds[offset],
            flags: chunk.flags[offset],
            column_type: chunk.column_types[offset].clone(),
            last_analyzed: chunk.last_analyzed[offset],
            num_nulls: chunk.num_nulls[offset],
            num_distinct_values: chunk.num_distinct_values[offset],
            low: chunk.lows[offset],
            high: chunk.highs[offset],
            decimal_low: chunk.decimal_lows[offset].clone(),
            decimal_high: chunk.decimal_highs[offset].clone(),
            max_length: chunk.max_lengths[offset],
            avg_length: chunk.avg_lengths[offset],
            num_trues: chunk.num_trues[offset],
            num_falses: chunk.num_falses[offset],
        }
    }

    /// Lays the slot over `chunk` at `offset`; a slot of kind 0 clears it.
    pub(crate) fn apply_to(self, chunk: &mut StatsChunk, offset: usize) {
        if self.kind == 0 {
            chunk.clear(offset);
            return;
        }
        chunk.grow_to(offset + 1);
        chunk.kinds[offset] = self.kind;
        chunk.flags[offset] = self.flags;
        chunk.column_types[offset] = self.column_type;
        chunk.last_analyzed[offset] = self.last_analyzed;
        chunk.num_nulls[offset] = self.num_nulls;
        chunk.num_distinct_values[offset] = self.num_distinct_values;
        chunk.lows[offset] = self.low;
        chunk.highs[offset] = self.high;
        chunk.decimal_lows[offset] = self.decimal_low;
        chunk.decimal_highs[offset] = self.decimal_high;
        chunk.max_lengths[offset] = self.max_length;
        chunk.avg_lengths[offset] = self.avg_length;
        chunk.num_trues[offset] = self.num_trues;
        chunk.num_falses[offset] = self.num_falses;
    }
}

/// The offset a recent slot key `key` names, if `key` is one: a key of the chunk keyspace
/// whose end past its column and engine (`rest`) is a chunk number and an offset.
pub(crate) fn recent_offset(rest: &[u8]) -> Option<usize> {
    match rest {
        [_, _, _, _, offset] if u32::from(*offset) < super::CHUNK_SLOT_COUNT => {
            Some(usize::from(*offset))
        }
        _ => None,
    }
}

/// The recent slot stored at `key`, checked.
pub(crate) fn decode_recent(key: KvBytes, stored: KvBytes) -> Result<RecentSlot> {
    let view = ValueView::<RecentSlot>::new(key, stored)?;
    let slot = view.to_owned()?;
    if slot.kind != 0 && super::StatsKind::from_byte(slot.kind).is_none() {
        return Err(Error::corruption(
            view.key(),
            "a recent slot of no statistics kind",
        ));
    }
    Ok(slot)
}

/// `chunk` with `recent` (offset, stored slot) laid over it in order.
pub(crate) fn overlay(
    mut chunk: StatsChunk,
    recent: Vec<(usize, KvBytes, KvBytes)>,
) -> Result<StatsChunk> {
    for (offset, key, stored) in recent {
        decode_recent(key, stored)?.apply_to(&mut chunk, offset);
    }
    Ok(chunk)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::stats::{ColumnStatistics, StatsDecimal, StatsKind, StatsValue};
    use crate::storage::values::encode;

    fn bytes(value: &[u8]) -> KvBytes {
        KvBytes::from_shared(Arc::from(value))
    }

    #[test]
    fn a_recent_slot_laid_over_a_chunk_reads_as_the_slot_written_into_it() {
        // Goal: a slot stored apart and laid over its chunk gives the chunk a write of the
        // slot into the chunk gives, every field and both bound forms. Method: the same
        // statistics set into a copy of a chunk and stored as a recent slot, compared.
        let mut base = StatsChunk::default();
        let mut long = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        long.low_value = Some(StatsValue::Integer(-4));
        base.set(2, &long, 10);
        let mut decimal = ColumnStatistics::new("c", "decimal(9,2)", StatsKind::Decimal);
        decimal.high_value = Some(StatsValue::Decimal(StatsDecimal {
            unscaled: vec![1, 2, 3],
            scale: 2,
        }));
        decimal.num_nulls = 5;
        decimal.bit_vectors = Some(vec![9]);
        let mut written = base.clone();
        written.set(40, &decimal, 11);
        let recent = RecentSlot::of(&written, 40);
        let stored = encode(&recent).unwrap();
        let laid = overlay(base, vec![(40, bytes(b"k"), bytes(&stored))]).unwrap();
        assert_eq!(laid, written);
    }

    #[test]
    fn a_recent_slot_of_kind_zero_clears_its_offset() {
        let mut chunk = StatsChunk::default();
        chunk.set(3, &ColumnStatistics::new("c", "int", StatsKind::Long), 1);
        RecentSlot::default().apply_to(&mut chunk, 3);
        assert!(chunk.is_empty());
        assert_eq!(chunk.len(), 0);
    }

    #[test]
    fn only_a_chunk_number_and_an_offset_in_range_make_a_recent_slot_key() {
        assert_eq!(recent_offset(&[0, 0, 0, 1, 127]), Some(127));
        assert_eq!(recent_offset(&[0, 0, 0, 1, 128]), None);
        assert_eq!(recent_offset(&[0, 0, 0, 1]), None);
        assert_eq!(recent_offset(&[0, 0, 0, 1, 2, 3]), None);
    }

    #[test]
    fn a_recent_slot_of_an_unknown_kind_is_corrupt() {
        let slot = RecentSlot {
            kind: 99,
            ..RecentSlot::default()
        };
        let stored = encode(&slot).unwrap();
        let decoded = decode_recent(bytes(b"k"), bytes(&stored));
        assert!(
            matches!(decoded, Err(Error::Corruption { .. })),
            "{decoded:?}"
        );
    }
}
