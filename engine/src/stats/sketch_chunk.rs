//! The `bitVectors` of one column's chunk of partitions, stored as one value (keyspace 0x0A,
//! value kind 9) beside the chunk of numbers: merging the sketches of 10k partitions then
//! reads 79 contiguous values per column instead of 10k keys, and writing one partition's
//! sketch rewrites its chunk's sketches only.
//!
//! Sketches written before this form live one key per slot (tag
//! [`super::chunk::SKETCH_TAG_BIT_VECTORS`]); a slot's flags say where its sketch is
//! ([`super::chunk::SKETCH_IN_CHUNK`]), and the next write of the slot moves it here.

use std::sync::{Arc, OnceLock};

use rkyv::{Archive, Deserialize, Serialize};

use super::chunk::CHUNK_SLOT_COUNT;
use super::chunk_cache::{CachedChunks, ColumnChunksKey};
use super::chunk_run::ChunkRun;
use super::hll_union::HllUnion;
use crate::error::{Error, Result};
use crate::keys::{self, TableId};
use crate::kv::KvBackend;
use crate::store::Store;
use crate::values::{stored_value, StoredValue, ValueKind, ValueView};

/// The sketches of one chunk's slots: offset `i`'s bytes are
/// `bytes[ends[i - 1]..ends[i]]` (from 0 for the first). `ends` has one entry per offset up
/// to the highest holding a sketch; an offset without one has an empty range.
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct SketchChunk {
    pub(crate) ends: Vec<u32>,
    pub(crate) bytes: Vec<u8>,
}

stored_value!(SketchChunk, ValueKind::StatsSketchChunk);

impl SketchChunk {
    /// The stored form of one sketch per offset (empty: none); `None` when there is none.
    pub(crate) fn from_sketches(sketches: &[Vec<u8>]) -> Result<Option<SketchChunk>> {
        assert!(sketches.len() <= CHUNK_SLOT_COUNT as usize);
        let Some(length) = sketches.iter().rposition(|bytes| !bytes.is_empty()) else {
            return Ok(None);
        };
        let total: usize = sketches[..=length].iter().map(Vec::len).sum();
        if u32::try_from(total).is_err() {
            return Err(Error::InvalidOperation(format!(
                "the sketches of {} partitions hold {total} bytes, more than {} in one chunk",
                CHUNK_SLOT_COUNT,
                u32::MAX
            )));
        }
        let mut chunk = SketchChunk {
            ends: Vec::with_capacity(length + 1),
            bytes: Vec::with_capacity(total),
        };
        for bytes in &sketches[..=length] {
            chunk.bytes.extend_from_slice(bytes);
            chunk.ends.push(chunk.bytes.len() as u32);
        }
        Ok(Some(chunk))
    }
}

impl SketchChunk {
    /// The sketch at `offset`; empty past the last one. The chunk must be consistent (it
    /// was checked archived).
    pub(crate) fn sketch(&self, offset: usize) -> &[u8] {
        let Some(end) = self.ends.get(offset) else {
            return &[];
        };
        let start = match offset {
            0 => 0,
            _ => self.ends[offset - 1] as usize,
        };
        self.bytes.get(start..*end as usize).unwrap_or_default()
    }
}

impl ArchivedSketchChunk {
    /// Whether the ends fit the bytes; a chunk that fails is corrupt.
    pub(crate) fn is_consistent(&self) -> bool {
        self.ends.len() <= CHUNK_SLOT_COUNT as usize
            && self
                .ends
                .windows(2)
                .all(|pair| pair[0].to_native() <= pair[1].to_native())
            && self
                .ends
                .last()
                .is_none_or(|end| end.to_native() as usize <= self.bytes.len())
    }

    /// The sketch at `offset`; empty past the last one. The chunk must be consistent.
    pub(crate) fn sketch(&self, offset: usize) -> &[u8] {
        let Some(end) = self.ends.get(offset) else {
            return &[];
        };
        let start = match offset {
            0 => 0,
            _ => self.ends[offset - 1].to_native() as usize,
        };
        &self.bytes[start..end.to_native() as usize]
    }

    /// One sketch per offset, for a write that changes some.
    pub(crate) fn to_sketches(&self) -> Vec<Vec<u8>> {
        (0..self.ends.len())
            .map(|offset| self.sketch(offset).to_vec())
            .collect()
    }
}

/// One column's sketch chunks over a range of chunk numbers, read by one range scan.
pub(crate) struct SketchChunks(ChunkRun<SketchChunk>);

impl SketchChunks {
    /// The sketch chunks `first..=last` of `column` for `engine` that are stored.
    pub(crate) fn load(
        reader: &dyn KvBackend,
        table: TableId,
        column: &str,
        engine: &str,
        (first, last): (u32, u32),
    ) -> Result<SketchChunks> {
        let keys = (
            keys::stats_sketch_chunk_key(table, column, engine, first),
            keys::stats_sketch_chunk_key(table, column, engine, last),
        );
        let run = ChunkRun::load(
            reader,
            keys,
            (first, last),
            sketch_chunk_number,
            ValueView::new,
        )?;
        Ok(SketchChunks(run))
    }

    /// The chunks validated (each once), indexed by chunk number minus the first.
    pub(crate) fn archived(&self) -> Result<Vec<Option<&ArchivedSketchChunk>>> {
        let consistent = ArchivedSketchChunk::is_consistent;
        self.0
            .archived(consistent, "sketch ends that do not fit their bytes")
    }
}

/// A sketch chunk decoded and kept (`chunk_cache.rs`), with the union of all its sketches
/// made the first time a merge wants them all.
pub(crate) struct DecodedSketchChunk {
    pub(crate) chunk: SketchChunk,
    union: OnceLock<Option<HllUnion>>,
}

impl DecodedSketchChunk {
    pub(crate) fn new(chunk: SketchChunk) -> Self {
        DecodedSketchChunk {
            chunk,
            union: OnceLock::new(),
        }
    }

    /// How many offsets the chunk covers (up to the last holding a sketch).
    pub(crate) fn len(&self) -> usize {
        self.chunk.ends.len()
    }

    /// The union of the sketches at every offset, as [`HllUnion::add`] of each in offset
    /// order gives; `None` when an offset has none, or one does not merge as an HLL (FM,
    /// smaller, unreadable): the caller then merges one by one.
    pub(crate) fn hll_union(&self) -> Option<&HllUnion> {
        let union = self.union.get_or_init(|| {
            let mut union = HllUnion::default();
            for offset in 0..self.len() {
                let sketch = self.chunk.sketch(offset);
                if sketch.is_empty() || union.add(sketch).is_err() {
                    return None;
                }
            }
            Some(union)
        });
        union.as_ref()
    }
}

/// One column's sketch chunks over `wanted`'s range, decoded: the kept ones when the store's
/// cache holds them at `wanted`'s version, else read, decoded and kept.
pub(crate) fn decoded_sketch_chunks(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
) -> Result<Arc<CachedChunks<DecodedSketchChunk>>> {
    if let Some(kept) = store.stats_chunks.sketches(wanted) {
        return Ok(kept);
    }
    let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
    let loaded = SketchChunks::load(store.reader(), table, column, engine, wanted.range)?;
    let archived = loaded.archived()?;
    let chunks = archived
        .iter()
        .map(|chunk| chunk.map(owned_chunk).transpose())
        .collect::<Result<_>>()?;
    let entry = Arc::new(CachedChunks {
        version: wanted.version,
        first: wanted.range.0,
        chunks,
    });
    store.stats_chunks.keep_sketches(wanted, entry.clone());
    Ok(entry)
}

/// `archived`, validated and consistent, deserialised.
fn owned_chunk(archived: &ArchivedSketchChunk) -> Result<DecodedSketchChunk> {
    let chunk = SketchChunk::from_archive(archived).map_err(|error| {
        Error::Internal(format!(
            "a validated sketch chunk does not deserialise: {error}"
        ))
    })?;
    Ok(DecodedSketchChunk::new(chunk))
}

/// The chunk number at the end of a sketch chunk key.
fn sketch_chunk_number(key: &[u8]) -> Result<u32> {
    let (_, _, _, rest) = keys::decode_stats_column_key(key)?;
    let corrupt = || Error::corruption(key, "a sketch chunk key without its mark and number");
    let (mark, number) = rest.split_at_checked(4).ok_or_else(corrupt)?;
    if mark != keys::STATS_SKETCH_CHUNK_MARK {
        return Err(corrupt());
    }
    let number: [u8; 4] = number.try_into().map_err(|_| corrupt())?;
    Ok(u32::from_be_bytes(number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{encode, StoredValue, VALUE_HEADER_LEN};

    #[test]
    fn sketches_round_trip_with_gaps() {
        // Goal: offsets without a sketch read empty, the others read their bytes, and
        // trailing empty offsets are not stored.
        let sketches = vec![b"HLL1".to_vec(), Vec::new(), b"FM22".to_vec(), Vec::new()];
        let chunk = SketchChunk::from_sketches(&sketches).unwrap().unwrap();
        assert_eq!(chunk.ends, vec![4, 4, 8]);
        let stored = encode(&chunk).unwrap();
        let archived = SketchChunk::access_archive(&stored[VALUE_HEADER_LEN..]).unwrap();
        assert!(archived.is_consistent());
        assert_eq!(archived.sketch(0), b"HLL1");
        assert_eq!(archived.sketch(1), b"");
        assert_eq!(archived.sketch(2), b"FM22");
        assert_eq!(archived.sketch(3), b"");
        assert_eq!(archived.to_sketches(), sketches[..3].to_vec());
        assert_eq!(SketchChunk::from_sketches(&[Vec::new()]).unwrap(), None);
    }

    #[test]
    fn ends_past_the_bytes_are_corrupt() {
        let chunk = SketchChunk {
            ends: vec![2, 9],
            bytes: vec![0; 4],
        };
        let stored = encode(&chunk).unwrap();
        let archived = SketchChunk::access_archive(&stored[VALUE_HEADER_LEN..]).unwrap();
        assert!(!archived.is_consistent());
    }
}
