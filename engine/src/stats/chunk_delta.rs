//! Chunk deltas: a statistics chunk's *recent slots*, the slots written one partition at a
//! time since the chunk was last written whole, stored as one value beside the chunk
//! (keyspace 0x38, the chunk's key there; value kind 71), so that a write of one partition
//! stages a few hundred bytes per column instead of rewriting its chunk's 128 slots.
//!
//! A write reads a chunk and its delta by two point reads, and replaces the delta whole: no
//! key is made per write and none deleted but at a merge, so sled neither splits nor joins
//! leaves for it (one key per recent slot made it do both, at 2.7 times the instructions of
//! rewriting the chunk: `docs/benchmarks/storage-size.md`). A delta is bounded by
//! `StoreOptions::recent_slot_count_max` slots ([`RECENT_SLOT_COUNT_MAX`] by default) and
//! [`CHUNK_DELTA_BYTES_MAX`] bytes; the write that would pass either, a write that clears a
//! slot (drops) and the first write of a chunk write the chunk merged and delete its delta.
//!
//! Every reader of a chunk reads its delta with it (`chunk_run.rs`) and lays it over the
//! chunk (`packed.rs`): readers see one chunk, as if it had been rewritten.
//!
//! A recent slot's sketch (`bitVectors`) is stored at the slot's own key (flag 4 without 16,
//! the form every reader already reads), and moved into the chunk's sketch value when the
//! delta is merged into its chunk.

use std::sync::Arc;

use rkyv::{Archive, Deserialize, Serialize};

use super::chunk::{StatsChunk, CHUNK_SLOT_COUNT};
use super::packed::{pack, PackedStatsChunk};
use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::KvBytes;
use crate::storage::values::{encode, stored_value, ValueKind, ValueView};

/// Recent slots a chunk's delta may hold before a write merges them into the chunk, by
/// default (`StoreOptions::recent_slot_count_max`). A recent slot costs a reader of its chunk
/// one more entry to lay over the chunk, and every write of the chunk's delta rewrites it; 16
/// keeps that under an eighth of the chunk's slots, while a chunk's rewrite (4.8 KB for a
/// `bigint` column) is shared by 17 writes.
pub const RECENT_SLOT_COUNT_MAX: usize = 16;

/// The most bytes a chunk's delta may take, stored: a write that would store more merges the
/// chunk instead. 16 recent slots of a numeric column take about 1 KB; long decimal bounds
/// (up to 4,000 bytes each) would make a delta that is rewritten whole at every write
/// larger than the chunk it saves rewriting.
pub const CHUNK_DELTA_BYTES_MAX: usize = 4096;

/// The recent slots of one chunk: `slots`' entry `i` is the chunk's offset `offsets[i]`.
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct ChunkDelta {
    /// Strictly ascending, each below [`CHUNK_SLOT_COUNT`].
    pub(crate) offsets: Vec<u8>,
    pub(crate) slots: PackedStatsChunk,
}

stored_value!(ChunkDelta, ValueKind::StatsChunkDelta);

/// `key` (a statistics chunk's key) in the deltas' keyspace: the chunk's delta key.
pub(crate) fn delta_key_of(chunk_key: &[u8]) -> Vec<u8> {
    let mut key = chunk_key.to_vec();
    key[0] = keys::KEYSPACE_STATS_RECENT;
    key
}

/// Why a recent slot stored at a key of its own (value kind 70, keyspace 0x38, the chunk's key
/// and an offset; written by unreleased builds with `--stats-recent-slots` above 0) is refused.
pub(crate) const KIND_70_NOT_READ: &str = "a recent slot stored at a key of its own (value \
     kind 70, unreleased), which this build does not read; a write of its chunk by the build \
     that wrote it, run with --stats-recent-slots 0, merges it into the chunk";

/// Copies offset `from` of `source` to offset `to` of `target`.
fn copy_offset(source: &StatsChunk, from: usize, target: &mut StatsChunk, to: usize) {
    target.grow_to(to + 1);
    target.kinds[to] = source.kinds[from];
    target.flags[to] = source.flags[from];
    target.column_types[to].clone_from(&source.column_types[from]);
    target.last_analyzed[to] = source.last_analyzed[from];
    target.num_nulls[to] = source.num_nulls[from];
    target.num_distinct_values[to] = source.num_distinct_values[from];
    target.lows[to] = source.lows[from];
    target.highs[to] = source.highs[from];
    target.decimal_lows[to].clone_from(&source.decimal_lows[from]);
    target.decimal_highs[to].clone_from(&source.decimal_highs[from]);
    target.max_lengths[to] = source.max_lengths[from];
    target.avg_lengths[to] = source.avg_lengths[from];
    target.num_trues[to] = source.num_trues[from];
    target.num_falses[to] = source.num_falses[from];
}

/// The recent slots of a chunk, decoded: the offsets, and their statistics in that order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RecentSlots {
    pub(crate) offsets: Vec<usize>,
    slots: StatsChunk,
}

impl RecentSlots {
    /// `chunk`'s slots at `offsets` (ascending, each holding statistics).
    pub(crate) fn of(chunk: &StatsChunk, offsets: impl IntoIterator<Item = usize>) -> Self {
        let mut recent = RecentSlots::default();
        for offset in offsets {
            assert!(
                offset < chunk.len() && chunk.kinds[offset] != 0,
                "a recent slot is taken from a written offset"
            );
            copy_offset(chunk, offset, &mut recent.slots, recent.offsets.len());
            recent.offsets.push(offset);
        }
        recent
    }

    /// How many recent slots there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.offsets.len()
    }

    /// The delta stored at `key`, checked: offsets ascending and in a chunk, one per slot, each
    /// slot of a statistics kind.
    pub(crate) fn decode(key: KvBytes, stored: KvBytes) -> Result<RecentSlots> {
        let view = ValueView::<ChunkDelta>::new(key, stored)?;
        let archived = view.archived()?;
        let corrupt = |why: &str| Error::corruption(view.key(), why);
        if !archived.slots.is_consistent() || archived.offsets.len() != archived.slots.len() {
            return Err(corrupt("a chunk delta whose arrays do not fit"));
        }
        let ascending = archived.offsets.windows(2).all(|pair| pair[0] < pair[1]);
        let in_chunk = archived
            .offsets
            .last()
            .is_none_or(|last| u32::from(*last) < CHUNK_SLOT_COUNT);
        if !ascending || !in_chunk {
            return Err(corrupt(
                "a chunk delta's offsets out of order or past its chunk",
            ));
        }
        let kinds_known = archived
            .slots
            .kinds
            .iter()
            .all(|kind| super::StatsKind::from_byte(*kind).is_some());
        if !kinds_known {
            return Err(corrupt("a recent slot of no statistics kind"));
        }
        Ok(RecentSlots {
            offsets: archived
                .offsets
                .iter()
                .map(|offset| usize::from(*offset))
                .collect(),
            slots: archived.slots.unpack(),
        })
    }

    /// The delta's stored bytes.
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let offsets = self
            .offsets
            .iter()
            .map(|offset| u8::try_from(*offset))
            .collect::<std::result::Result<Vec<u8>, _>>()
            .map_err(|_| Error::Internal("a recent slot past its chunk".to_string()))?;
        encode(&ChunkDelta {
            offsets,
            slots: pack(&self.slots),
        })
    }

    /// Lays the recent slots over `chunk`.
    pub(crate) fn apply_to(&self, chunk: &mut StatsChunk) {
        for (index, offset) in self.offsets.iter().enumerate() {
            copy_offset(&self.slots, index, chunk, *offset);
        }
    }
}

/// `chunk` with the delta stored at `key` laid over it.
pub(crate) fn overlay(
    mut chunk: StatsChunk,
    (key, stored): (KvBytes, KvBytes),
) -> Result<StatsChunk> {
    RecentSlots::decode(key, stored)?.apply_to(&mut chunk);
    Ok(chunk)
}

/// The delta a write leaves a chunk, encoded: `chunk`'s slots (the chunk as the write leaves
/// it) at `offsets` (the stored delta's and the write's), or `None` when that would pass
/// `count_max` slots or [`CHUNK_DELTA_BYTES_MAX`] bytes, and the write merges the chunk.
pub(crate) fn next_delta(
    chunk: &StatsChunk,
    offsets: impl IntoIterator<Item = usize>,
    count_max: usize,
) -> Result<Option<Vec<u8>>> {
    let offsets: Vec<usize> = offsets.into_iter().collect();
    if offsets.len() > count_max {
        return Ok(None);
    }
    let stored = RecentSlots::of(chunk, offsets).encode()?;
    Ok((stored.len() <= CHUNK_DELTA_BYTES_MAX).then_some(stored))
}

/// `bytes` as stored bytes.
pub(crate) fn shared(bytes: &[u8]) -> KvBytes {
    KvBytes::from_shared(Arc::from(bytes))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;
    use crate::stats::{ColumnStatistics, StatsDecimal, StatsKind, StatsValue};

    fn long(number: i64) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new("c", "bigint", StatsKind::Long);
        stats.low_value = Some(StatsValue::Integer(-number));
        stats.high_value = Some(StatsValue::Integer(number));
        stats.num_nulls = number % 7;
        stats
    }

    fn decimal(digits: usize) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new("c", "decimal(38,2)", StatsKind::Decimal);
        stats.high_value = Some(StatsValue::Decimal(StatsDecimal {
            unscaled: vec![7; digits],
            scale: 2,
        }));
        stats
    }

    /// The delta of `chunk` at `offsets`, stored then read back.
    fn round_trip(chunk: &StatsChunk, offsets: &BTreeSet<usize>) -> RecentSlots {
        let stored = RecentSlots::of(chunk, offsets.iter().copied())
            .encode()
            .unwrap();
        RecentSlots::decode(shared(b"k"), shared(&stored)).unwrap()
    }

    #[test]
    fn a_delta_laid_over_its_chunk_reads_as_the_slots_written_into_it() {
        // Goal: slots stored in a delta and laid over the chunk give the chunk a write of the
        // slots into it gives, every field and both bound forms.
        let mut base = StatsChunk::default();
        base.set(2, &long(4), 10);
        base.set(90, &long(5), 10);
        let mut written = base.clone();
        written.set(40, &decimal(3), 11);
        written.set(2, &long(8), 12);
        let recent = round_trip(&written, &BTreeSet::from([2, 40]));
        let mut laid = base;
        recent.apply_to(&mut laid);
        assert_eq!(laid, written);
    }

    #[test]
    fn a_delta_whose_offsets_do_not_fit_is_corrupt() {
        let mut chunk = StatsChunk::default();
        chunk.set(3, &long(1), 1);
        chunk.set(5, &long(2), 1);
        let mut delta = ChunkDelta {
            offsets: vec![5, 3],
            slots: pack(&RecentSlots::of(&chunk, [3, 5]).slots),
        };
        let corrupt = |delta: &ChunkDelta| {
            let stored = encode(delta).unwrap();
            matches!(
                RecentSlots::decode(shared(b"k"), shared(&stored)),
                Err(Error::Corruption { .. })
            )
        };
        assert!(corrupt(&delta), "descending offsets");
        delta.offsets = vec![3, 128];
        assert!(corrupt(&delta), "an offset past the chunk");
        delta.offsets = vec![3];
        assert!(corrupt(&delta), "fewer offsets than slots");
        delta.offsets = vec![3, 5];
        delta.slots.kinds[1] = 99;
        assert!(corrupt(&delta), "a slot of no statistics kind");
        delta.slots.kinds[1] = 0;
        assert!(corrupt(&delta), "a slot that says nothing");
    }

    #[test]
    fn a_delta_past_its_byte_bound_merges() {
        // Goal: a delta whose slots hold long decimal bounds is not stored past
        // CHUNK_DELTA_BYTES_MAX, though under its slot count: the write merges instead.
        let mut chunk = StatsChunk::default();
        chunk.set(0, &decimal(1000), 1);
        chunk.set(1, &decimal(1000), 1);
        assert!(next_delta(&chunk, [0, 1], 16).unwrap().is_some());
        for offset in 2..5 {
            chunk.set(offset, &decimal(1000), 1);
        }
        assert_eq!(next_delta(&chunk, 0..5, 16).unwrap(), None);
    }

    fn statistics() -> impl Strategy<Value = ColumnStatistics> {
        prop_oneof![
            (0i64..1_000_000).prop_map(long),
            (0usize..40).prop_map(decimal),
            Just(ColumnStatistics::new("c", "string", StatsKind::String)),
        ]
    }

    proptest! {
        #[test]
        fn a_delta_holds_what_the_writes_left_within_its_bounds(
            stored in proptest::collection::btree_map(0usize..128, statistics(), 0..40),
            writes in proptest::collection::vec((0usize..128, statistics()), 1..24),
            count_max in 0usize..20,
        ) {
            // Goal: the delta after a run of one-slot writes (each replacing a slot already in
            // it, or adding one) holds every slot written once, the last write of each, is
            // `None` exactly when the slots pass the count (or bytes) bound, and laid over the
            // chunk as stored gives the chunk as written. Method: a model chunk written slot
            // by slot beside the delta's offsets.
            let mut base = StatsChunk::default();
            for (offset, stats) in &stored {
                base.set(*offset, stats, 1);
            }
            let mut chunk = base.clone();
            let mut offsets = BTreeSet::new();
            for (step, (offset, stats)) in writes.iter().enumerate() {
                chunk.set(*offset, stats, step as i64 + 2);
                offsets.insert(*offset);
                let next = next_delta(&chunk, offsets.iter().copied(), count_max).unwrap();
                if offsets.len() > count_max {
                    prop_assert_eq!(next, None);
                    return Ok(());
                }
                let Some(stored) = next else {
                    prop_assert!(
                        RecentSlots::of(&chunk, offsets.iter().copied()).encode().unwrap().len()
                            > CHUNK_DELTA_BYTES_MAX
                    );
                    return Ok(());
                };
                prop_assert!(stored.len() <= CHUNK_DELTA_BYTES_MAX);
                let recent = RecentSlots::decode(shared(b"k"), shared(&stored)).unwrap();
                prop_assert_eq!(recent.len(), offsets.len());
                let mut laid = base.clone();
                recent.apply_to(&mut laid);
                prop_assert_eq!(&laid, &chunk);
            }
        }
    }
}
