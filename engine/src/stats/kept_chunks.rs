//! Columns' chunks kept between reads: an aggregation over 10k partitions would
//! otherwise scan and validate 79 stored values per column (a third of its time) on every
//! call, though planners ask the same table again and again.
//!
//! An entry is one column's chunks (statistics, or sketches) for one engine over a range of
//! chunk numbers, owned, read at one version of the table's stripe of the partition sequence
//! lock (`consistent.rs`). Every batch that writes a chunk or a sketch value moves that
//! version (statistics writes rewrite partition records; drops delete partition and slot
//! keys; and the stripe counts chunk and sketch keys themselves), so an entry of the version a
//! read runs at holds what the store holds. A version never comes back, so an entry built
//! from a read that a write overlapped is never matched.
//!
//! Memory is bounded by [`KEPT_BYTE_COUNT_MAX`] over all entries; past it every entry
//! is dropped (they refill on use), as with the kept slots.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::sketch_chunk::DecodedSketchChunk;
use super::stored_chunk::KeptStatsChunk;
use crate::storage::keys::TableId;

/// Bytes of decoded chunks kept over all columns; past it every entry is dropped.
pub(crate) const KEPT_BYTE_COUNT_MAX: usize = 256 << 20;
/// Columns kept; past it every entry is dropped.
pub(crate) const KEPT_COLUMN_COUNT_MAX: usize = 4096;

/// What a column's chunks are: the statistics arrays, or the sketches beside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ChunkKind {
    Statistics,
    Sketches,
}

/// The heap bytes a decoded chunk holds, for the bound on what is kept.
pub(crate) trait HeapSize {
    fn heap_bytes(&self) -> usize;
}

impl HeapSize for KeptStatsChunk {
    fn heap_bytes(&self) -> usize {
        self.kept_bytes()
    }
}

impl HeapSize for DecodedSketchChunk {
    fn heap_bytes(&self) -> usize {
        self.kept_bytes() + super::hll_union::UNION_BYTE_COUNT
    }
}

/// One column's decoded chunks `first..first + chunks.len()`, read at `version`.
pub(crate) struct KeptColumnChunks<T> {
    pub(crate) version: u64,
    pub(crate) first: u32,
    /// Indexed by chunk number minus `first`; `None` where no chunk is stored. Shared, so
    /// that a newer entry can take over the chunks a write left as they were.
    pub(crate) chunks: Vec<Option<Arc<T>>>,
}

impl<T: HeapSize> KeptColumnChunks<T> {
    /// Whether the entry holds chunks `first..=last` as of `version`.
    fn covers(&self, version: u64, (first, last): (u32, u32)) -> bool {
        let end = u64::from(self.first) + self.chunks.len() as u64;
        self.version == version && self.first <= first && u64::from(last) < end
    }

    /// The chunk numbers the entry holds, first and last.
    fn range(&self) -> (u32, u32) {
        let count = u32::try_from(self.chunks.len()).unwrap_or(u32::MAX).max(1);
        (self.first, self.first.saturating_add(count - 1))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let chunks = self.chunks.iter().flatten();
        chunks.map(|chunk| chunk.heap_bytes()).sum::<usize>() + 64 * self.chunks.len()
    }

    /// Whether chunk `number` is in the entry's range (stored or not).
    pub(crate) fn covers_number(&self, number: u32) -> bool {
        number
            .checked_sub(self.first)
            .is_some_and(|index| (index as usize) < self.chunks.len())
    }

    /// The chunk numbered `number`, if stored (and in the entry's range).
    pub(crate) fn chunk(&self, number: u32) -> Option<&T> {
        self.shared(number).map(|chunk| &**chunk)
    }

    /// The chunk numbered `number`, shared, if stored (and in the entry's range).
    pub(crate) fn shared(&self, number: u32) -> Option<&Arc<T>> {
        let index = number.checked_sub(self.first)?;
        self.chunks.get(index as usize)?.as_ref()
    }
}

/// The key of one entry: table, column, engine and which chunks.
type ColumnKey = (TableId, String, String, ChunkKind);

/// Entries of one kind of chunk, and their bytes.
struct Entries<T> {
    columns: HashMap<ColumnKey, (Arc<KeptColumnChunks<T>>, usize)>,
    byte_count: usize,
}

impl<T> Default for Entries<T> {
    fn default() -> Self {
        Entries {
            columns: HashMap::new(),
            byte_count: 0,
        }
    }
}

impl<T: HeapSize> Entries<T> {
    fn get(
        &self,
        key: &ColumnKey,
        version: u64,
        range: (u32, u32),
    ) -> Option<Arc<KeptColumnChunks<T>>> {
        let (entry, _) = self.columns.get(key)?;
        entry.covers(version, range).then(|| entry.clone())
    }

    /// The entry kept for `key`, whatever its version and range.
    fn any(&self, key: &ColumnKey) -> Option<Arc<KeptColumnChunks<T>>> {
        self.columns.get(key).map(|(entry, _)| entry.clone())
    }

    fn insert(&mut self, key: ColumnKey, entry: Arc<KeptColumnChunks<T>>, byte_count_max: usize) {
        let bytes = entry.heap_bytes();
        if bytes > byte_count_max / 4 {
            // One column this large would push out everything else: not kept.
            return;
        }
        if let Some((kept, _)) = self.columns.get(&key) {
            // A read of a few partitions (a planner's batch) must not push out the whole
            // table's chunks an aggregation keeps, nor a newer version an older one.
            let newer = kept.version > entry.version;
            if newer || (kept.version == entry.version && !entry.covers(kept.version, kept.range()))
            {
                return;
            }
        }
        if let Some((_, replaced)) = self.columns.remove(&key) {
            self.byte_count -= replaced;
        }
        if self.byte_count + bytes > byte_count_max || self.columns.len() >= KEPT_COLUMN_COUNT_MAX {
            self.columns.clear();
            self.byte_count = 0;
        }
        self.byte_count += bytes;
        self.columns.insert(key, (entry, bytes));
    }
}

/// The kept chunks, shared by every reader of a store.
#[derive(Default)]
pub(crate) struct KeptChunks {
    statistics: Mutex<Entries<KeptStatsChunk>>,
    sketches: Mutex<Entries<DecodedSketchChunk>>,
}

/// Which chunks of which column a read wants.
pub(crate) struct ColumnChunksKey<'a> {
    pub(crate) table: TableId,
    pub(crate) column: &'a str,
    pub(crate) engine: &'a str,
    pub(crate) version: u64,
    pub(crate) range: (u32, u32),
}

impl ColumnChunksKey<'_> {
    fn key(&self, kind: ChunkKind) -> ColumnKey {
        (
            self.table,
            self.column.to_string(),
            self.engine.to_string(),
            kind,
        )
    }
}

impl KeptChunks {
    /// The column's statistics chunks covering `wanted`'s range at its version, if kept.
    pub(crate) fn statistics(
        &self,
        wanted: &ColumnChunksKey<'_>,
    ) -> Option<Arc<KeptColumnChunks<KeptStatsChunk>>> {
        let entries = self.statistics.lock().ok()?;
        entries.get(
            &wanted.key(ChunkKind::Statistics),
            wanted.version,
            wanted.range,
        )
    }

    /// The column's statistics chunks kept at any version: a read at a newer one takes over
    /// those whose stored bytes it finds unchanged.
    pub(crate) fn statistics_of_any_version(
        &self,
        wanted: &ColumnChunksKey<'_>,
    ) -> Option<Arc<KeptColumnChunks<KeptStatsChunk>>> {
        let entries = self.statistics.lock().ok()?;
        entries.any(&wanted.key(ChunkKind::Statistics))
    }

    /// Keeps `entry` as the column's statistics chunks, replacing what was kept.
    pub(crate) fn keep_statistics(
        &self,
        wanted: &ColumnChunksKey<'_>,
        entry: Arc<KeptColumnChunks<KeptStatsChunk>>,
    ) {
        if let Ok(mut entries) = self.statistics.lock() {
            let key = wanted.key(ChunkKind::Statistics);
            entries.insert(key, entry, KEPT_BYTE_COUNT_MAX);
        }
    }

    /// The column's sketch chunks covering `wanted`'s range at its version, if kept.
    pub(crate) fn sketches(
        &self,
        wanted: &ColumnChunksKey<'_>,
    ) -> Option<Arc<KeptColumnChunks<DecodedSketchChunk>>> {
        let entries = self.sketches.lock().ok()?;
        entries.get(
            &wanted.key(ChunkKind::Sketches),
            wanted.version,
            wanted.range,
        )
    }

    /// The column's sketch chunks kept at any version: a read at a newer one takes over
    /// those no batch changed since (`chunk_refresh.rs`).
    pub(crate) fn sketches_of_any_version(
        &self,
        wanted: &ColumnChunksKey<'_>,
    ) -> Option<Arc<KeptColumnChunks<DecodedSketchChunk>>> {
        let entries = self.sketches.lock().ok()?;
        entries.any(&wanted.key(ChunkKind::Sketches))
    }

    /// Keeps `entry` as the column's sketch chunks, replacing what was kept.
    pub(crate) fn keep_sketches(
        &self,
        wanted: &ColumnChunksKey<'_>,
        entry: Arc<KeptColumnChunks<DecodedSketchChunk>>,
    ) {
        if let Ok(mut entries) = self.sketches.lock() {
            let key = wanted.key(ChunkKind::Sketches);
            entries.insert(key, entry, KEPT_BYTE_COUNT_MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sketch_chunk::SketchChunk;
    use super::*;

    fn entry(version: u64, first: u32, count: usize) -> Arc<KeptColumnChunks<DecodedSketchChunk>> {
        let chunk = || SketchChunk {
            ends: vec![3],
            bytes: vec![1, 2, 3],
        };
        Arc::new(KeptColumnChunks {
            version,
            first,
            chunks: (0..count)
                .map(|_| Some(Arc::new(DecodedSketchChunk::from_chunk(&chunk()))))
                .collect(),
        })
    }

    #[test]
    fn an_entry_answers_only_its_version_and_range() {
        // Goal: a kept column answers a read at its version within its chunks, and nothing
        // else (another version, a wider range, another column or engine).
        let kept = KeptChunks::default();
        let wanted = |column, version, range| ColumnChunksKey {
            table: TableId(7),
            column,
            engine: "hive",
            version,
            range,
        };
        kept.keep_sketches(&wanted("c", 4, (2, 5)), entry(4, 2, 4));
        assert!(kept.sketches(&wanted("c", 4, (2, 5))).is_some());
        assert!(kept.sketches(&wanted("c", 4, (3, 4))).is_some());
        assert!(kept.sketches(&wanted("c", 6, (2, 5))).is_none());
        assert!(kept.sketches(&wanted("c", 4, (1, 5))).is_none());
        assert!(kept.sketches(&wanted("c", 4, (2, 6))).is_none());
        assert!(kept.sketches(&wanted("d", 4, (2, 5))).is_none());
        assert!(kept.statistics(&wanted("c", 4, (2, 5))).is_none());
    }

    #[test]
    fn a_narrower_or_older_entry_does_not_replace_a_kept_one() {
        // Goal: reading a few chunks keeps the wider entry of the same version, an older
        // version never replaces a newer one, and a newer version or a wider range does.
        let kept = KeptChunks::default();
        let wanted = |version, range| ColumnChunksKey {
            table: TableId(7),
            column: "c",
            engine: "hive",
            version,
            range,
        };
        kept.keep_sketches(&wanted(4, (0, 9)), entry(4, 0, 10));
        kept.keep_sketches(&wanted(4, (3, 4)), entry(4, 3, 2));
        assert!(kept.sketches(&wanted(4, (0, 9))).is_some());
        kept.keep_sketches(&wanted(2, (0, 9)), entry(2, 0, 10));
        assert!(kept.sketches(&wanted(4, (0, 9))).is_some());
        assert!(kept.sketches(&wanted(2, (0, 9))).is_none());
        kept.keep_sketches(&wanted(6, (3, 4)), entry(6, 3, 2));
        assert!(kept.sketches(&wanted(6, (3, 4))).is_some());
        assert!(kept.sketches(&wanted(4, (0, 9))).is_none());
        kept.keep_sketches(&wanted(6, (0, 20)), entry(6, 0, 21));
        assert!(kept.sketches(&wanted(6, (0, 20))).is_some());
    }

    #[test]
    fn the_kept_chunks_empty_themselves_past_their_bound() {
        // Goal: the bytes kept never pass the bound. Method: a small bound, entries added
        // until it is passed.
        let mut entries = Entries::<DecodedSketchChunk>::default();
        let key = |index: usize| {
            (
                TableId(1),
                format!("c{index}"),
                "hive".to_string(),
                ChunkKind::Sketches,
            )
        };
        let one = entry(0, 0, 10).heap_bytes();
        for index in 0..10 {
            entries.insert(key(index), entry(0, 0, 10), one * 4);
            assert!(entries.byte_count <= one * 4);
        }
        assert!(entries.columns.len() <= 4);
        // Too big for the bound: not kept.
        entries.insert(key(99), entry(0, 0, 40), one * 4);
        assert!(!entries.columns.contains_key(&key(99)));
    }
}
