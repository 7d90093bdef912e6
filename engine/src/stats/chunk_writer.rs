//! The chunks one statistics write changes, loaded once and written once: the write's own
//! staged changes are not visible to its reads, so two partitions of one chunk must share it.
//! The same for the chunks' sketch values, loaded only when a sketch moves into or out of one.
//!
//! A chunk is loaded with its delta laid over it (`chunk_delta.rs`), by two point reads. What
//! the write stages for it: its delta replaced whole, holding the slots the write set with the
//! recent slots it held (their sketches at the slots' own keys), while the chunk is stored,
//! the delta stays within its bounds (`StoreOptions::recent_slot_count_max` slots,
//! [`super::RECENT_SLOT_COUNT_MAX`] by default, and `CHUNK_DELTA_BYTES_MAX` bytes) and the
//! write clears no slot; otherwise the whole chunk, merged, with its delta deleted and the
//! recent slots' sketches moved into the chunk's sketch value.

use std::collections::{BTreeMap, BTreeSet};

use fxhash::FxHashMap;

use super::chunk::{
    chunk_of, StatsChunk, CHUNK_SLOT_COUNT, HAS_BIT_VECTORS, HAS_HISTOGRAM, SKETCH_IN_CHUNK,
    SKETCH_TAG_BIT_VECTORS, SKETCH_TAG_HISTOGRAM,
};
use super::chunk_delta::{delta_key_of, next_delta, shared, RecentSlots};
use super::packed::{pack, unpacked_chunk};
use super::sketch_chunk::{SketchUnionChunk, StoredSketches};
use super::ColumnStatistics;
use crate::error::{Error, Result};
use crate::storage::keys::{self, TableId};
use crate::store::WriteTxn;

/// A chunk as the write sees it, and what the write changed of it.
#[derive(Default)]
struct WrittenChunk {
    /// The stored chunk with its delta laid over it, then the write's changes.
    chunk: StatsChunk,
    /// The stored chunk's flags, without its delta: which offsets have their sketch in the
    /// chunk's sketch value.
    stored_flags: Vec<u8>,
    /// The offsets of the chunk's stored recent slots (its delta's).
    recent: BTreeSet<usize>,
    /// Whether the chunk has a delta stored.
    has_delta: bool,
    /// The offsets the write set, each with the sketch it was written with.
    written: BTreeMap<usize, Option<Vec<u8>>>,
    /// Whether the write cleared a slot: the chunk is then merged, so that no delta needs to
    /// say that a slot holds nothing.
    cleared: bool,
    /// Whether the chunk's own key holds a value. A chunk is first written whole: slots are
    /// handed out in order, so its first write holds its first offsets and is small.
    stored: bool,
}

impl WrittenChunk {
    /// The chunk at `key` and its delta, by two point reads.
    fn load(txn: &WriteTxn<'_>, key: &[u8]) -> Result<WrittenChunk> {
        let value = txn.get(key)?;
        let delta_key = delta_key_of(key);
        let delta = match txn.get(&delta_key)? {
            Some(stored) => Some(RecentSlots::decode(shared(&delta_key), stored)?),
            None => None,
        };
        let stored = match &value {
            Some(value) => unpacked_chunk(key, value.clone())?,
            None => StatsChunk::default(),
        };
        let mut chunk = stored.clone();
        if let Some(delta) = &delta {
            delta.apply_to(&mut chunk);
        }
        Ok(WrittenChunk {
            stored: value.is_some(),
            stored_flags: stored.flags,
            recent: delta
                .as_ref()
                .map(|delta| delta.offsets.iter().copied().collect())
                .unwrap_or_default(),
            has_delta: delta.is_some(),
            chunk,
            written: BTreeMap::new(),
            cleared: false,
        })
    }

    /// The chunk's next delta, encoded, or `None` when the write stages the whole chunk: the
    /// chunk is not stored yet, a slot was cleared, or the delta would pass its bounds.
    fn next_delta(&self, recent_slot_count_max: usize) -> Result<Option<Vec<u8>>> {
        if !self.stored || self.cleared {
            return Ok(None);
        }
        let offsets: BTreeSet<usize> = self
            .recent
            .iter()
            .chain(self.written.keys())
            .copied()
            .collect();
        next_delta(&self.chunk, offsets, recent_slot_count_max)
    }
}

/// The chunks and sketch values one write changes, by column, then chunk number: looked up by
/// `&str`, so a hit allocates nothing. Fx hashing: SipHash of the column name, three times a
/// statistic, cost more than setting the statistic.
pub(super) struct ChunkWriter<'a> {
    table: TableId,
    engine: &'a str,
    recent_slot_count_max: usize,
    chunks: FxHashMap<String, FxHashMap<u32, WrittenChunk>>,
    sketches: FxHashMap<String, FxHashMap<u32, Vec<Vec<u8>>>>,
}

impl<'a> ChunkWriter<'a> {
    /// A writer of `table`'s chunks for `engine`, each holding at most
    /// `recent_slot_count_max` recent slots.
    pub(super) fn new(table: TableId, engine: &'a str, recent_slot_count_max: usize) -> Self {
        ChunkWriter {
            table,
            engine,
            recent_slot_count_max,
            chunks: FxHashMap::default(),
            sketches: FxHashMap::default(),
        }
    }

    fn chunk(&mut self, txn: &WriteTxn<'_>, column: &str, chunk: u32) -> Result<&mut WrittenChunk> {
        if !self.chunks.contains_key(column) {
            self.chunks.insert(column.to_string(), FxHashMap::default());
        }
        let by_number = self
            .chunks
            .get_mut(column)
            .ok_or_else(|| Error::Internal("a column's chunks are missing".to_string()))?;
        if let std::collections::hash_map::Entry::Vacant(entry) = by_number.entry(chunk) {
            let key = keys::stats_chunk_key(self.table, column, self.engine, chunk);
            entry.insert(WrittenChunk::load(txn, &key)?);
        }
        by_number
            .get_mut(&chunk)
            .ok_or_else(|| Error::Internal("a loaded chunk is missing".to_string()))
    }

    /// Stores `bytes` (empty: none) as the sketch of `offset` in chunk `chunk` of `column`.
    fn set_sketch(
        &mut self,
        txn: &WriteTxn<'_>,
        column: &str,
        (chunk, offset): (u32, usize),
        bytes: &[u8],
    ) -> Result<()> {
        let sketches = self.sketch_chunk(txn, column, chunk)?;
        if sketches.len() <= offset {
            sketches.resize(offset + 1, Vec::new());
        }
        sketches[offset].clear();
        sketches[offset].extend_from_slice(bytes);
        Ok(())
    }

    /// The sketches of chunk `chunk` of `column`, loaded once (empty bytes: none).
    fn sketch_chunk(
        &mut self,
        txn: &WriteTxn<'_>,
        column: &str,
        chunk: u32,
    ) -> Result<&mut Vec<Vec<u8>>> {
        if !self.sketches.contains_key(column) {
            self.sketches
                .insert(column.to_string(), FxHashMap::default());
        }
        let by_number = self
            .sketches
            .get_mut(column)
            .ok_or_else(|| Error::Internal("a column's sketches are missing".to_string()))?;
        if let std::collections::hash_map::Entry::Vacant(entry) = by_number.entry(chunk) {
            let key = keys::stats_sketch_chunk_key(self.table, column, self.engine, chunk);
            let loaded = match txn.get(&key)? {
                Some(stored) => StoredSketches::new(shared(&key), stored)?.to_sketches()?,
                None => Vec::new(),
            };
            entry.insert(loaded);
        }
        by_number
            .get_mut(&chunk)
            .ok_or_else(|| Error::Internal("a loaded sketch chunk is missing".to_string()))
    }

    fn own_sketch_key(&self, column: &str, slot: u32, tag: u8) -> Vec<u8> {
        keys::stats_sketch_key(self.table, column, self.engine, slot, tag)
    }

    /// The statistics at `slot` with their sketch and histogram, for a merge.
    pub(super) fn stored(
        &mut self,
        txn: &WriteTxn<'_>,
        column: &str,
        slot: u32,
    ) -> Result<Option<ColumnStatistics>> {
        let (chunk_number, offset) = chunk_of(slot);
        let chunk = &self.chunk(txn, column, chunk_number)?.chunk;
        let flags = chunk.flags.get(offset).copied().unwrap_or(0);
        let Some(mut stats) = chunk.get(offset, column) else {
            return Ok(None);
        };
        if flags & SKETCH_IN_CHUNK != 0 {
            let sketches = self.sketch_chunk(txn, column, chunk_number)?;
            stats.bit_vectors = sketches
                .get(offset)
                .filter(|bytes| !bytes.is_empty())
                .cloned();
        } else if flags & HAS_BIT_VECTORS != 0 {
            let key = self.own_sketch_key(column, slot, SKETCH_TAG_BIT_VECTORS);
            stats.bit_vectors = txn.get(&key)?.map(|bytes| bytes.to_vec());
        }
        if flags & HAS_HISTOGRAM != 0 {
            let key = self.own_sketch_key(column, slot, SKETCH_TAG_HISTOGRAM);
            stats.histogram = txn.get(&key)?.map(|bytes| bytes.to_vec());
        }
        Ok(Some(stats))
    }

    /// Sets the statistics at `slot`; where its sketch goes is decided by [`Self::finish`].
    pub(super) fn set(
        &mut self,
        txn: &mut WriteTxn<'_>,
        column: &str,
        slot: u32,
        stats: &ColumnStatistics,
        last_analyzed: i64,
    ) -> Result<()> {
        let (chunk_number, offset) = chunk_of(slot);
        let written = self.chunk(txn, column, chunk_number)?;
        let old_flags = written.chunk.flags.get(offset).copied().unwrap_or(0);
        written.chunk.set(offset, stats, last_analyzed);
        written.written.insert(offset, stats.bit_vectors.clone());
        self.forget_slot_sketch(txn, column, slot, old_flags, stats.histogram.is_some());
        if let Some(histogram) = &stats.histogram {
            let key = self.own_sketch_key(column, slot, SKETCH_TAG_HISTOGRAM);
            txn.put_raw(key, histogram.clone());
        }
        Ok(())
    }

    /// Stages the removal of the slot's own sketch keys its `old_flags` say exist: the
    /// `bitVectors` of a recent slot or of the form before sketch chunks, and the histogram
    /// unless `replaced`.
    fn forget_slot_sketch(
        &self,
        txn: &mut WriteTxn<'_>,
        column: &str,
        slot: u32,
        old_flags: u8,
        replaced: bool,
    ) {
        if old_flags & HAS_BIT_VECTORS != 0 && old_flags & SKETCH_IN_CHUNK == 0 {
            txn.delete(self.own_sketch_key(column, slot, SKETCH_TAG_BIT_VECTORS));
        }
        if old_flags & HAS_HISTOGRAM != 0 && !replaced {
            txn.delete(self.own_sketch_key(column, slot, SKETCH_TAG_HISTOGRAM));
        }
    }

    /// Removes the statistics at `slot`, their sketch and histogram.
    pub(super) fn clear(&mut self, txn: &mut WriteTxn<'_>, column: &str, slot: u32) -> Result<()> {
        let (chunk_number, offset) = chunk_of(slot);
        let written = self.chunk(txn, column, chunk_number)?;
        let old_flags = written.chunk.flags.get(offset).copied().unwrap_or(0);
        written.chunk.clear(offset);
        written.written.remove(&offset);
        written.cleared = true;
        self.forget_slot_sketch(txn, column, slot, old_flags, false);
        Ok(())
    }

    /// Stages every changed chunk (its delta, or the chunk whole) and sketch value; an empty
    /// one is deleted.
    pub(super) fn finish(mut self, txn: &mut WriteTxn<'_>) -> Result<()> {
        for (column, by_number) in std::mem::take(&mut self.chunks) {
            for (number, written) in by_number {
                if written.written.is_empty() && !written.cleared {
                    continue;
                }
                match written.next_delta(self.recent_slot_count_max)? {
                    Some(delta) => self.stage_delta(txn, &column, number, &written, delta),
                    None => self.stage_merged(txn, &column, number, written)?,
                }
            }
        }
        for (column, by_number) in self.sketches {
            for (chunk, sketches) in by_number {
                let key = keys::stats_sketch_chunk_key(self.table, &column, self.engine, chunk);
                match SketchUnionChunk::from_sketches(&sketches)? {
                    Some(value) => txn.put_value(key, &value)?,
                    None => txn.delete(key),
                }
            }
        }
        Ok(())
    }

    /// Stages `delta`, chunk `number`'s delta with the slots the write set, and their sketches
    /// at their own keys.
    fn stage_delta(
        &self,
        txn: &mut WriteTxn<'_>,
        column: &str,
        number: u32,
        written: &WrittenChunk,
        delta: Vec<u8>,
    ) {
        let chunk_key = keys::stats_chunk_key(self.table, column, self.engine, number);
        txn.put_raw(delta_key_of(&chunk_key), delta);
        for (&offset, sketch) in &written.written {
            if let Some(bytes) = sketch {
                let slot = number * CHUNK_SLOT_COUNT + offset as u32;
                let key = self.own_sketch_key(column, slot, SKETCH_TAG_BIT_VECTORS);
                txn.put_raw(key, bytes.clone());
            }
        }
    }

    /// Stages chunk `number` whole with its delta merged into it and deleted, the sketches
    /// written and those of recent slots moved into the chunk's sketch value,
    /// and the sketches of slots that no longer have one there removed from it.
    fn stage_merged(
        &mut self,
        txn: &mut WriteTxn<'_>,
        column: &str,
        number: u32,
        written: WrittenChunk,
    ) -> Result<()> {
        let WrittenChunk {
            mut chunk,
            stored_flags,
            recent,
            has_delta,
            written,
            ..
        } = written;
        for offset in 0..chunk.len() {
            let slot = number * CHUNK_SLOT_COUNT + offset as u32;
            let flags = chunk.flags[offset];
            let sketch = match written.get(&offset) {
                Some(sketch) => sketch.clone(),
                None if recent.contains(&offset)
                    && flags & HAS_BIT_VECTORS != 0
                    && flags & SKETCH_IN_CHUNK == 0 =>
                {
                    let key = self.own_sketch_key(column, slot, SKETCH_TAG_BIT_VECTORS);
                    let moved = txn.get(&key)?.map(|bytes| bytes.to_vec());
                    if moved.is_some() {
                        txn.delete(key);
                    }
                    moved
                }
                None => None,
            };
            if let Some(bytes) = sketch {
                chunk.flags[offset] |= SKETCH_IN_CHUNK;
                self.set_sketch(txn, column, (number, offset), &bytes)?;
            }
        }
        for (offset, stored) in stored_flags.iter().enumerate() {
            let now = chunk.flags.get(offset).copied().unwrap_or(0);
            if stored & SKETCH_IN_CHUNK != 0 && now & SKETCH_IN_CHUNK == 0 {
                self.set_sketch(txn, column, (number, offset), &[])?;
            }
        }
        let key = keys::stats_chunk_key(self.table, column, self.engine, number);
        if has_delta {
            txn.delete(delta_key_of(&key));
        }
        match chunk.is_empty() {
            true => txn.delete(key),
            false => txn.put_value(key, &pack(&chunk))?,
        }
        Ok(())
    }
}
