//! One column's chunk values (packed statistics chunks, sketch chunks) over a range of chunk
//! numbers: read by one range scan and kept in place, then validated once each. A statistics
//! chunk's recent slots (`recent_slots.rs`) are read with it, by a second scan of the same
//! range in their keyspace (0x38).

use super::recent_slots::{recent_offset, RECENT_SLOT_SUFFIX_LEN};
use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes};

/// The length of a chunk number at the end of a chunk key.
pub(crate) const CHUNK_NUMBER_LEN: usize = 4;

/// The chunk number a key of the scanned column ends with (`column`: the key without it),
/// and the offset after it when the key is a recent slot's (`suffix_len` 5) rather than a
/// chunk's (4).
fn chunk_entry_key(column: &[u8], key: &[u8], suffix_len: usize) -> Result<(u32, usize)> {
    let not_ours = || Error::corruption(key, "not a chunk key of the column scanned");
    let rest = key.strip_prefix(column).ok_or_else(not_ours)?;
    if rest.len() != suffix_len {
        return Err(not_ours());
    }
    let number = rest
        .get(..CHUNK_NUMBER_LEN)
        .and_then(|number| <[u8; CHUNK_NUMBER_LEN]>::try_from(number).ok())
        .map(u32::from_be_bytes)
        .ok_or_else(not_ours)?;
    match suffix_len {
        RECENT_SLOT_SUFFIX_LEN => Ok((number, recent_offset(rest).ok_or_else(not_ours)?)),
        _ => Ok((number, 0)),
    }
}

/// `key` (a statistics chunk key) in the recent slots' keyspace.
fn in_recent_keyspace(key: &[u8]) -> Vec<u8> {
    let mut recent = key.to_vec();
    recent[0] = keys::KEYSPACE_STATS_RECENT;
    recent
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
    /// chunks: their scan reads none).
    pub(crate) fn whole<V>(self, view: impl Fn(KvBytes, KvBytes) -> Result<V>) -> Result<V> {
        assert!(
            self.recent.is_empty(),
            "only statistics chunks have recent slots"
        );
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
    /// and `last`) and, for statistics chunks (keyspace 0x09), the recent slots of each; `view`
    /// makes what is kept of a chunk's entries. Every key in between is a chunk key of the same
    /// column (they sort between two of them), its number in its last 4 bytes; every recent
    /// slot key of the range ends with a chunk number and an offset.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        (start, last_key): (Vec<u8>, Vec<u8>),
        (first, last): (u32, u32),
        view: impl Fn(ChunkEntries) -> Result<V>,
    ) -> Result<ChunkRun<V>> {
        assert!(first <= last, "a chunk range runs forward");
        assert!(!start.is_empty(), "a chunk key has a keyspace");
        let column_len = start.len().saturating_sub(CHUNK_NUMBER_LEN);
        let mut entries: Vec<Option<ChunkEntries>> = Vec::new();
        entries.resize_with((last - first) as usize + 1, || None);
        let index_of = |key: &[u8], number: u32| {
            number
                .checked_sub(first)
                .filter(|index| *index <= last - first)
                .map(|index| index as usize)
                .ok_or_else(|| Error::corruption(key, "a chunk outside its scanned range"))
        };
        let chunk_column = &start[..column_len];
        for entry in scan_between(reader, &start, &last_key)? {
            let (key, value) = entry?;
            let (number, _) = chunk_entry_key(chunk_column, &key, CHUNK_NUMBER_LEN)?;
            let chunk =
                entries[index_of(&key, number)?].get_or_insert_with(|| ChunkEntries::new(&key));
            chunk.value = Some(value);
        }
        if start[0] == keys::KEYSPACE_STATS_CHUNK {
            let (start, last_key) = (in_recent_keyspace(&start), in_recent_keyspace(&last_key));
            let recent_column = &start[..column_len];
            for entry in scan_between(reader, &start, &last_key)? {
                let (key, value) = entry?;
                let (number, offset) =
                    chunk_entry_key(recent_column, &key, RECENT_SLOT_SUFFIX_LEN)?;
                let chunk = entries[index_of(&key, number)?].get_or_insert_with(|| {
                    let mut chunk_key = key[..column_len + CHUNK_NUMBER_LEN].to_vec();
                    chunk_key[0] = keys::KEYSPACE_STATS_CHUNK;
                    ChunkEntries::new(&chunk_key)
                });
                chunk.recent.push((offset, key, value));
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

/// The entries from key `start` through key `last` and the keys that extend it.
fn scan_between<'a>(
    reader: &'a dyn KvBackend,
    start: &[u8],
    last: &[u8],
) -> Result<impl Iterator<Item = Result<(KvBytes, KvBytes)>> + 'a> {
    let end = kv::prefix_successor(last)
        .ok_or_else(|| Error::Internal("a chunk key has no successor".to_string()))?;
    Ok(kv::scan(
        reader,
        KeyRange::between(start, &end),
        SCAN_PAGE_ENTRY_COUNT,
    ))
}
