//! One column's chunk values (packed statistics chunks, sketch chunks) over a range of chunk
//! numbers: read by one range scan and kept in place, then validated once each.

use crate::error::{Error, Result};
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes};

/// The length of a chunk number at the end of a chunk key.
pub(crate) const CHUNK_NUMBER_LEN: usize = 4;

/// The number of chunk key `key` of `column` (a chunk key without its number): its last 4
/// bytes, read without decoding the column and engine again.
pub(crate) fn chunk_number_in(column: &[u8], key: &[u8]) -> Result<u32> {
    let number = key
        .strip_prefix(column)
        .and_then(|number| <[u8; CHUNK_NUMBER_LEN]>::try_from(number).ok())
        .ok_or_else(|| Error::corruption(key, "not a chunk key of the column scanned"))?;
    Ok(u32::from_be_bytes(number))
}

/// The stored values of chunks `first..=last`, indexed by chunk number minus `first`.
pub(crate) struct ChunkRun<V> {
    views: Vec<Option<V>>,
}

impl<V> ChunkRun<V> {
    /// The values stored from key `start` through key `last_key` (the keys of chunks `first`
    /// and `last`); `view` wraps a stored value. Every key in between is a chunk key of the
    /// same column (they sort between two of them), its number in its last 4 bytes.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        (start, last_key): (Vec<u8>, Vec<u8>),
        (first, last): (u32, u32),
        view: impl Fn(KvBytes, KvBytes) -> Result<V>,
    ) -> Result<ChunkRun<V>> {
        assert!(first <= last, "a chunk range runs forward");
        let end = kv::prefix_successor(&last_key)
            .ok_or_else(|| Error::Internal("a chunk key has no successor".to_string()))?;
        let column = start
            .get(..start.len().saturating_sub(CHUNK_NUMBER_LEN))
            .unwrap_or_default();
        let mut views: Vec<Option<V>> = Vec::new();
        views.resize_with((last - first) as usize + 1, || None);
        let range = KeyRange::between(&start, &end);
        for entry in kv::scan(reader, range, SCAN_PAGE_ENTRY_COUNT) {
            let (key, value) = entry?;
            let index = chunk_number_in(column, &key)?
                .checked_sub(first)
                .filter(|index| *index <= last - first)
                .ok_or_else(|| Error::corruption(&key, "a chunk outside its scanned range"))?;
            views[index as usize] = Some(view(key, value)?);
        }
        Ok(ChunkRun { views })
    }

    /// The stored values themselves, indexed by chunk number minus the first.
    pub(crate) fn into_views(self) -> Vec<Option<V>> {
        self.views
    }
}
