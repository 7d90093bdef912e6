//! One column's chunk values (packed statistics chunks, sketch chunks) over a range of chunk
//! numbers: read by one range scan and kept in place, then validated once each. A statistics
//! chunk's delta (`chunk_delta.rs`) is read with it, by a second scan of the same range in
//! its keyspace (0x38); one chunk is read by two point reads.

use super::chunk_delta::{delta_key_of, shared, KIND_70_NOT_READ};
use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes};

/// The length of a chunk number at the end of a chunk key.
pub(crate) const CHUNK_NUMBER_LEN: usize = 4;

/// The chunk number a key of the scanned column ends with (`column`: the key without it).
/// In the deltas' keyspace, a key with one more byte is a recent slot of the unread kind 70.
fn chunk_entry_number(column: &[u8], key: &[u8]) -> Result<u32> {
    let not_ours = || Error::corruption(key, "not a chunk key of the column scanned");
    let rest = key.strip_prefix(column).ok_or_else(not_ours)?;
    if key[0] == keys::KEYSPACE_STATS_RECENT && rest.len() == CHUNK_NUMBER_LEN + 1 {
        return Err(Error::corruption(key, KIND_70_NOT_READ));
    }
    <[u8; CHUNK_NUMBER_LEN]>::try_from(rest)
        .map(u32::from_be_bytes)
        .map_err(|_| not_ours())
}

/// What is stored for one chunk: its value and its delta (key, value), each if any.
pub(crate) struct ChunkEntries {
    /// The chunk's key.
    pub(crate) key: KvBytes,
    pub(crate) value: Option<KvBytes>,
    pub(crate) delta: Option<(KvBytes, KvBytes)>,
}

impl ChunkEntries {
    fn new(key: &[u8]) -> ChunkEntries {
        ChunkEntries {
            key: shared(key),
            value: None,
            delta: None,
        }
    }

    /// The chunk's value through `view`, for chunks that have no delta (sketch chunks: their
    /// scan reads none).
    pub(crate) fn whole<V>(self, view: impl Fn(KvBytes, KvBytes) -> Result<V>) -> Result<V> {
        assert!(self.delta.is_none(), "only statistics chunks have deltas");
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
    /// and `last`) and, for statistics chunks (keyspace 0x09), the delta of each; `view` makes
    /// what is kept of a chunk's entries. Every key in between is a chunk key of the same
    /// column (they sort between two of them), its number in its last 4 bytes; so is every
    /// delta key of the range, in keyspace 0x38.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        (start, last_key): (Vec<u8>, Vec<u8>),
        (first, last): (u32, u32),
        view: impl Fn(ChunkEntries) -> Result<V>,
    ) -> Result<ChunkRun<V>> {
        assert!(first <= last, "a chunk range runs forward");
        assert!(!start.is_empty(), "a chunk key has a keyspace");
        let with_deltas = start[0] == keys::KEYSPACE_STATS_CHUNK;
        if first == last {
            return Ok(ChunkRun {
                views: vec![Self::load_one(reader, &start, with_deltas)?
                    .map(view)
                    .transpose()?],
            });
        }
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
        for entry in scan_between(reader, &start, &last_key)? {
            let (key, value) = entry?;
            let number = chunk_entry_number(&start[..column_len], &key)?;
            let chunk =
                entries[index_of(&key, number)?].get_or_insert_with(|| ChunkEntries::new(&key));
            chunk.value = Some(value);
        }
        if with_deltas {
            let (start, last_key) = (delta_key_of(&start), delta_key_of(&last_key));
            for entry in scan_between(reader, &start, &last_key)? {
                let (key, value) = entry?;
                let number = chunk_entry_number(&start[..column_len], &key)?;
                let chunk = entries[index_of(&key, number)?].get_or_insert_with(|| {
                    let mut chunk_key = key.to_vec();
                    chunk_key[0] = keys::KEYSPACE_STATS_CHUNK;
                    ChunkEntries::new(&chunk_key)
                });
                chunk.delta = Some((key, value));
            }
        }
        let views = entries
            .into_iter()
            .map(|chunk| chunk.map(&view).transpose())
            .collect::<Result<_>>()?;
        Ok(ChunkRun { views })
    }

    /// The chunk stored at `key` and, `with_delta`, its delta: two point reads.
    fn load_one(
        reader: &dyn KvBackend,
        key: &[u8],
        with_delta: bool,
    ) -> Result<Option<ChunkEntries>> {
        let mut chunk = ChunkEntries::new(key);
        chunk.value = reader.get(key)?;
        if with_delta {
            let delta_key = delta_key_of(key);
            chunk.delta = reader
                .get(&delta_key)?
                .map(|value| (shared(&delta_key), value));
        }
        Ok((chunk.value.is_some() || chunk.delta.is_some()).then_some(chunk))
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
