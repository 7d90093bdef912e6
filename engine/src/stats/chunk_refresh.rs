//! A column's kept chunks brought to a newer version of its table: the chunks no batch changed
//! since they were read are kept as they are (neither scanned nor compared), the others read
//! again. `chunk_changes.rs` tells which changed.

use std::sync::Arc;

use super::chunk_run::{ChunkEntries, ChunkRun, CHUNK_NUMBER_LEN};
use super::kept_chunks::{ColumnChunksKey, HeapSize, KeptColumnChunks};
use crate::error::Result;
use crate::storage::kv::KvBackend;
use crate::store::Store;

/// How a column's chunks are read: their keys, a stored value's view, and the chunk kept
/// from a view.
pub(crate) struct ChunkReading<K, V, M> {
    pub(crate) key_of: K,
    pub(crate) view: V,
    pub(crate) make: M,
}

/// The chunks of `wanted`'s range, `previous`'s where no batch changed them since it was
/// read and read again elsewhere; `None` when the store's record of changes cannot tell
/// (then the caller reads the whole range).
pub(crate) fn refreshed_chunks<T, W, K, V, M>(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
    previous: &KeptColumnChunks<T>,
    reading: &ChunkReading<K, V, M>,
) -> Result<Option<Vec<Option<Arc<T>>>>>
where
    T: HeapSize,
    K: Fn(u32) -> Vec<u8>,
    V: Fn(ChunkEntries) -> Result<W>,
    M: Fn(W) -> Result<T>,
{
    if previous.version > wanted.version {
        return Ok(None);
    }
    let some_key = (reading.key_of)(wanted.range.0);
    let column = &some_key[..some_key.len() - CHUNK_NUMBER_LEN];
    let changes = &store.stats.changes;
    let Some(mut changed) = changes.changed_since(wanted.table, column, previous.version) else {
        return Ok(None);
    };
    changed.sort_unstable();
    let (first, last) = wanted.range;
    let mut chunks = Vec::with_capacity((last - first) as usize + 1);
    let mut missing = Vec::new();
    for number in first..=last {
        let covered = previous.covers_number(number);
        if covered && changed.binary_search(&number).is_err() {
            chunks.push(previous.shared(number).cloned());
        } else {
            chunks.push(None);
            missing.push(number);
        }
    }
    for (number, view) in read_chunks(store.reader(), &missing, reading)? {
        chunks[(number - first) as usize] = Some(Arc::new((reading.make)(view)?));
    }
    Ok(Some(chunks))
}

/// The stored chunks among `numbers` (ascending), by one range scan when they follow each
/// other (a write of a run of partitions), else two point reads each (a chunk and its
/// delta).
fn read_chunks<W, K, V, M>(
    reader: &dyn KvBackend,
    numbers: &[u32],
    reading: &ChunkReading<K, V, M>,
) -> Result<Vec<(u32, W)>>
where
    K: Fn(u32) -> Vec<u8>,
    V: Fn(ChunkEntries) -> Result<W>,
{
    let (Some(&first), Some(&last)) = (numbers.first(), numbers.last()) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::with_capacity(numbers.len());
    let runs: Vec<(u32, u32)> = match (last - first) as usize + 1 == numbers.len() {
        true => vec![(first, last)],
        false => numbers.iter().map(|&number| (number, number)).collect(),
    };
    for (first, last) in runs {
        let keys = ((reading.key_of)(first), (reading.key_of)(last));
        let run = ChunkRun::load(reader, keys, (first, last), &reading.view)?;
        for (number, view) in (first..).zip(run.into_views()) {
            if let Some(view) = view {
                found.push((number, view));
            }
        }
    }
    Ok(found)
}
