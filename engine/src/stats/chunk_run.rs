//! One column's chunk values (packed statistics chunks, sketch chunks) over a range of chunk
//! numbers: read by one range scan and kept in place, then validated once each. A statistics
//! chunk's recent slots (`recent_slots.rs`) sort between its key and the next chunk's, so the
//! same scan reads them.

use super::recent_slots::{recent_offset, RECENT_SLOT_SUFFIX_LEN};
use crate::error::{Error, Result};
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes};

/// The length of a chunk number at the end of a chunk key.
pub(crate) const CHUNK_NUMBER_LEN: usize = 4;

/// What a key of the scanned column is: a chunk's key, or a recent slot of a chunk.
enum ChunkEntryKey {
    Chunk(u32),
    Recent(u32, usize),
}

/// Reads key `key` of `column` (a chunk key without its number): its last 4 bytes are a chunk
/// number, or its last 5 a chunk number and a recent slot's offset.
fn chunk_entry_key(column: &[u8], key: &[u8]) -> Result<ChunkEntryKey> {
    let not_ours = || Error::corruption(key, "not a chunk key of the column scanned");
    let rest = key.strip_prefix(column).ok_or_else(not_ours)?;
    let number = rest
        .get(..CHUNK_NUMBER_LEN)
        .and_then(|number| <[u8; CHUNK_NUMBER_LEN]>::try_from(number).ok())
        .map(u32::from_be_bytes)
        .ok_or_else(not_ours)?;
    match rest.len() {
        CHUNK_NUMBER_LEN => Ok(ChunkEntryKey::Chunk(number)),
        RECENT_SLOT_SUFFIX_LEN => {
            let offset = recent_offset(rest).ok_or_else(not_ours)?;
            Ok(ChunkEntryKey::Recent(number, offset))
        }
        _ => Err(not_ours()),
    }
}

/// What is stored for one chunk: its value, if any, and its recent slots in offset order
/// (offset, key, value).
pub(crate) struct ChunkEntries {
    /// The chunk's key.
    pub(crate) key: KvBytes,
    pub(crate) value: Option<KvBytes>,
    pub(crate) recent: Vec<(usize, KvBytes, KvBytes)>,
}

impl ChunkEntries {
    fn new(key: &[u8]) -> ChunkEntries {
        ChunkEntries {
            key: KvBytes::from_shared(std::sync::Arc::from(key)),
            value: None,
            recent: Vec::new(),
        }
    }

    /// The chunk's value through `view`, for chunks that have no recent slots (sketch
    /// chunks): a recent slot beside one is corrupt.
    pub(crate) fn whole<V>(self, view: impl Fn(KvBytes, KvBytes) -> Result<V>) -> Result<V> {
        if let Some((_, key, _)) = self.recent.first() {
            return Err(Error::corruption(
                key,
                "a recent slot beside a sketch chunk",
            ));
        }
        let value = self
            .value
            .ok_or_else(|| Error::corruption(&self.key, "a chunk without a value"))?;
        view(self.key, value)
    }
}

/// The stored values of chunks `first..=last`, indexed by chunk number minus `first`.
pub(crate) struct ChunkRun<V> {
    views: Vec<Option<V>>,
}

impl<V> ChunkRun<V> {
    /// The values stored from key `start` through key `last_key` (the keys of chunks `first`
    /// and `last`) and the recent slots of each; `view` makes what is kept of a chunk's
    /// entries. Every key in between is a chunk key of the same column (they sort between two
    /// of them), its number in its last 4 bytes, or a recent slot's key (5 bytes).
    pub(crate) fn load(
        reader: &dyn KvBackend,
        (start, last_key): (Vec<u8>, Vec<u8>),
        (first, last): (u32, u32),
        view: impl Fn(ChunkEntries) -> Result<V>,
    ) -> Result<ChunkRun<V>> {
        assert!(first <= last, "a chunk range runs forward");
        let end = kv::prefix_successor(&last_key)
            .ok_or_else(|| Error::Internal("a chunk key has no successor".to_string()))?;
        let column = start
            .get(..start.len().saturating_sub(CHUNK_NUMBER_LEN))
            .unwrap_or_default();
        let mut entries: Vec<Option<ChunkEntries>> = Vec::new();
        entries.resize_with((last - first) as usize + 1, || None);
        let range = KeyRange::between(&start, &end);
        for entry in kv::scan(reader, range, SCAN_PAGE_ENTRY_COUNT) {
            let (key, value) = entry?;
            let entry_key = chunk_entry_key(column, &key)?;
            let number = match entry_key {
                ChunkEntryKey::Chunk(number) | ChunkEntryKey::Recent(number, _) => number,
            };
            let index = number
                .checked_sub(first)
                .filter(|index| *index <= last - first)
                .ok_or_else(|| Error::corruption(&key, "a chunk outside its scanned range"))?;
            let chunk_key_len = column.len() + CHUNK_NUMBER_LEN;
            let chunk = entries[index as usize]
                .get_or_insert_with(|| ChunkEntries::new(&key[..chunk_key_len]));
            match entry_key {
                ChunkEntryKey::Chunk(_) => chunk.value = Some(value),
                ChunkEntryKey::Recent(_, offset) => chunk.recent.push((offset, key, value)),
            }
        }
        let views = entries
            .into_iter()
            .map(|chunk| chunk.map(&view).transpose())
            .collect::<Result<_>>()?;
        Ok(ChunkRun { views })
    }

    /// The stored values themselves, indexed by chunk number minus the first.
    pub(crate) fn into_views(self) -> Vec<Option<V>> {
        self.views
    }
}
