//! One column's chunk values (packed statistics chunks, sketch chunks) over a range of chunk
//! numbers: read by one range scan and kept in place, then validated once each.

use crate::error::{Error, Result};
use crate::kv::{self, KeyRange, KvBackend, KvBytes};
use crate::store::SCAN_PAGE_ENTRY_COUNT;

/// The stored values of chunks `first..=last`, indexed by chunk number minus `first`.
pub(crate) struct ChunkRun<V> {
    views: Vec<Option<V>>,
}

impl<V> ChunkRun<V> {
    /// The values stored from key `start` through key `last_key` (the keys of chunks `first`
    /// and `last`); `number` reads a chunk number from a key, `view` wraps a stored value.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        (start, last_key): (Vec<u8>, Vec<u8>),
        (first, last): (u32, u32),
        number: impl Fn(&[u8]) -> Result<u32>,
        view: impl Fn(KvBytes, KvBytes) -> Result<V>,
    ) -> Result<ChunkRun<V>> {
        assert!(first <= last, "a chunk range runs forward");
        let end = kv::prefix_successor(&last_key)
            .ok_or_else(|| Error::Internal("a chunk key has no successor".to_string()))?;
        let mut views: Vec<Option<V>> = Vec::new();
        views.resize_with((last - first) as usize + 1, || None);
        let range = KeyRange::between(&start, &end);
        for entry in kv::scan(reader, range, SCAN_PAGE_ENTRY_COUNT) {
            let (key, value) = entry?;
            let index = number(&key)?
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
