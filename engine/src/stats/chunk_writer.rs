//! The chunks one statistics write changes, loaded once and written once: the write's own
//! staged changes are not visible to its reads, so two partitions of one chunk must share it.
//! The same for the chunks' sketch values, loaded only when a sketch moves into or out of one.
//!
//! A chunk is loaded with its recent slots laid over it (`recent_slots.rs`). What the write
//! stages for it: its slots written, each as a recent slot (and its sketch at the slot's own
//! key), while the chunk is stored, would hold at most `StoreOptions::recent_slot_count_max`
//! of them ([`super::RECENT_SLOT_COUNT_MAX`] by default) and
//! the write clears none; otherwise the whole chunk, merged, with its recent slots deleted and
//! their sketches moved into the chunk's sketch value.

use std::collections::{BTreeMap, BTreeSet};

use fxhash::FxHashMap;

use super::chunk::{
    chunk_of, StatsChunk, CHUNK_SLOT_COUNT, HAS_BIT_VECTORS, HAS_HISTOGRAM, SKETCH_IN_CHUNK,
    SKETCH_TAG_BIT_VECTORS, SKETCH_TAG_HISTOGRAM,
};
use super::chunk_run::{ChunkEntries, ChunkRun};
use super::packed::{pack, unpacked_chunk};
use super::recent_slots::{overlay, RecentSlot};
use super::sketch_chunk::{SketchUnionChunk, StoredSketches};
use super::ColumnStatistics;
use crate::error::{Error, Result};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KvBytes;
use crate::store::WriteTxn;

/// A chunk as the write sees it, and what the write changed of it.
#[derive(Default)]
struct WrittenChunk {
    /// The stored chunk with its recent slots laid over it, then the write's changes.
    chunk: StatsChunk,
    /// The stored chunk's flags, without its recent slots: which offsets have their sketch in
    /// the chunk's sketch value.
    stored_flags: Vec<u8>,
    /// The offsets of the chunk's stored recent slots.
    recent: BTreeSet<usize>,
    /// The offsets the write set, each with the sketch it was written with.
    written: BTreeMap<usize, Option<Vec<u8>>>,
    /// Whether the write cleared a slot: the chunk is then merged, so that no recent slot
    /// needs to say that a slot holds nothing.
    cleared: bool,
    /// Whether the chunk's own key holds a value. A chunk is first written whole: slots are
    /// handed out in order, so its first write holds its first offsets and is small.
    stored: bool,
}

impl WrittenChunk {
    fn load(txn: &WriteTxn<'_>, key: Vec<u8>, number: u32) -> Result<WrittenChunk> {
        let keys = (key.clone(), key);
        let run = ChunkRun::load(txn.reader(), keys, (number, number), Ok)?;
        let Some(ChunkEntries { key, value, recent }) = run.into_views().pop().flatten() else {
            return Ok(WrittenChunk::default());
        };
        let is_stored = value.is_some();
        let stored = match value {
            Some(value) => unpacked_chunk(&key, value)?,
            None => StatsChunk::default(),
        };
        Ok(WrittenChunk {
            stored: is_stored,
            stored_flags: stored.flags.clone(),
            recent: recent.iter().map(|(offset, _, _)| *offset).collect(),
            chunk: overlay(stored, recent)?,
            written: BTreeMap::new(),
            cleared: false,
        })
    }

    /// Whether the write stages the whole chunk rather than recent slots, the chunk holding at
    /// most `recent_slot_count_max` of them.
    fn merges(&self, recent_slot_count_max: usize) -> bool {
        let written = self
            .written
            .keys()
            .filter(|offset| !self.recent.contains(offset));
        let recent_after = self.recent.len() + written.count();
        !self.stored || self.cleared || recent_after > recent_slot_count_max
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
            entry.insert(WrittenChunk::load(txn, key, chunk)?);
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
                Some(stored) => {
                    let key = KvBytes::from_shared(std::sync::Arc::from(key.as_slice()));
                    StoredSketches::new(key, stored)?.to_sketches()?
                }
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

    /// Stages every changed chunk (as recent slots or whole) and sketch value; an empty one
    /// is deleted.
    pub(super) fn finish(mut self, txn: &mut WriteTxn<'_>) -> Result<()> {
        for (column, by_number) in std::mem::take(&mut self.chunks) {
            for (number, written) in by_number {
                match written.merges(self.recent_slot_count_max) {
                    true => self.stage_merged(txn, &column, number, written)?,
                    false => self.stage_recent(txn, &column, number, &written)?,
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

    /// Stages the slots the write set in chunk `number` as recent slots, their sketches at
    /// their own keys.
    fn stage_recent(
        &self,
        txn: &mut WriteTxn<'_>,
        column: &str,
        number: u32,
        written: &WrittenChunk,
    ) -> Result<()> {
        for (&offset, sketch) in &written.written {
            let offset_byte = u8::try_from(offset)
                .map_err(|_| Error::Internal("an offset past its chunk".to_string()))?;
            let key =
                keys::stats_recent_slot_key(self.table, column, self.engine, number, offset_byte);
            txn.put_value(key, &RecentSlot::of(&written.chunk, offset))?;
            if let Some(bytes) = sketch {
                let slot = number * CHUNK_SLOT_COUNT + offset_byte as u32;
                let key = self.own_sketch_key(column, slot, SKETCH_TAG_BIT_VECTORS);
                txn.put_raw(key, bytes.clone());
            }
        }
        Ok(())
    }

    /// Stages chunk `number` whole with its recent slots merged into it: their keys deleted,
    /// the sketches written and those of recent slots moved into the chunk's sketch value,
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
        match chunk.is_empty() {
            true => txn.delete(key),
            false => txn.put_value(key, &pack(&chunk))?,
        }
        for offset in recent {
            let offset = u8::try_from(offset)
                .map_err(|_| Error::Internal("an offset past its chunk".to_string()))?;
            let key = keys::stats_recent_slot_key(self.table, column, self.engine, number, offset);
            txn.delete(key);
        }
        Ok(())
    }
}
