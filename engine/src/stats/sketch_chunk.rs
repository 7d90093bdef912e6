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
use crate::values::{stored_value, ValueKind, ValueView};

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
}

/// A sketch chunk kept (`chunk_cache.rs`): its stored value itself, shared with the store's
/// reader rather than copied (a first aggregation over 10k partitions × 50 columns would
/// otherwise copy about 10 MiB of sketches into fresh memory, whose pages the kernel must
/// hand out and zero: slower than the merge itself on this machine), its ends decoded, and
/// the union of all its sketches made the first time a merge wants them all.
pub(crate) struct DecodedSketchChunk {
    view: ValueView<SketchChunk>,
    ends: Vec<u32>,
    /// Where the sketches' bytes lie in the view's archive.
    bytes: std::ops::Range<usize>,
    union: OnceLock<Option<HllUnion>>,
}

impl DecodedSketchChunk {
    /// The chunk stored in `view`, validated; ends that do not fit the bytes are corruption.
    pub(crate) fn from_view(view: ValueView<SketchChunk>) -> Result<Self> {
        let archived = view.archived()?;
        if !archived.is_consistent() {
            let reason = "sketch ends that do not fit their bytes";
            return Err(Error::corruption(view.key(), reason));
        }
        let ends = archived.ends.iter().map(|end| end.to_native()).collect();
        let start = archived.bytes.as_ptr() as usize - view.archive().as_ptr() as usize;
        let bytes = start..start + archived.bytes.len();
        Ok(DecodedSketchChunk {
            view,
            ends,
            bytes,
            union: OnceLock::new(),
        })
    }

    /// How many offsets the chunk covers (up to the last holding a sketch).
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The heap bytes the chunk keeps alive: its stored value and its ends.
    pub(crate) fn kept_bytes(&self) -> usize {
        self.view.archive().len() + 4 * self.ends.len()
    }

    /// The sketch at `offset`; empty past the last one.
    pub(crate) fn sketch(&self, offset: usize) -> &[u8] {
        let Some(end) = self.ends.get(offset) else {
            return &[];
        };
        let start = match offset {
            0 => 0,
            _ => self.ends[offset - 1] as usize,
        };
        let bytes = self
            .view
            .archive()
            .get(self.bytes.clone())
            .unwrap_or_default();
        bytes.get(start..*end as usize).unwrap_or_default()
    }

    /// The union of the sketches at every offset, as [`HllUnion::add`] of each in offset
    /// order gives; `None` when an offset has none, or one does not merge as an HLL (FM,
    /// smaller, unreadable): the caller then merges one by one.
    pub(crate) fn hll_union(&self) -> Option<&HllUnion> {
        let union = self.union.get_or_init(|| {
            let mut union = HllUnion::default();
            for offset in 0..self.len() {
                let sketch = self.sketch(offset);
                if sketch.is_empty() || union.add(sketch).is_err() {
                    return None;
                }
            }
            Some(union)
        });
        union.as_ref()
    }
}

/// One column's sketch chunks over `wanted`'s range: the kept ones when the store's cache
/// holds them at `wanted`'s version, else read, validated and kept.
pub(crate) fn decoded_sketch_chunks(
    store: &Store,
    wanted: &ColumnChunksKey<'_>,
) -> Result<Arc<CachedChunks<DecodedSketchChunk>>> {
    if let Some(kept) = store.stats_chunks.sketches(wanted) {
        return Ok(kept);
    }
    let (table, column, engine) = (wanted.table, wanted.column, wanted.engine);
    let loaded = SketchChunks::load(store.reader(), table, column, engine, wanted.range)?;
    let chunks = loaded
        .0
        .into_views()
        .into_iter()
        .map(|view| {
            let chunk = view.map(DecodedSketchChunk::from_view).transpose()?;
            Ok(chunk.map(Arc::new))
        })
        .collect::<Result<_>>()?;
    let entry = Arc::new(CachedChunks {
        version: wanted.version,
        first: wanted.range.0,
        chunks,
    });
    store.stats_chunks.keep_sketches(wanted, entry.clone());
    Ok(entry)
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
impl DecodedSketchChunk {
    /// `chunk` as it would be kept once stored and read back.
    pub(crate) fn from_chunk(chunk: &SketchChunk) -> Self {
        let stored = crate::values::encode(chunk).expect("encode a sketch chunk");
        let key = crate::kv::KvBytes::from_shared(Arc::from(&b"k"[..]));
        let stored = crate::kv::KvBytes::from_shared(Arc::from(stored));
        let view = ValueView::new(key, stored).expect("a view of a sketch chunk");
        DecodedSketchChunk::from_view(view).expect("a consistent sketch chunk")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{encode, StoredValue, VALUE_HEADER_LEN};

    #[test]
    fn a_kept_chunk_reads_its_sketches_in_place() {
        // Goal: the kept form (the stored value, not a copy) answers each offset as the
        // decoded chunk does, including gaps and offsets past the last sketch.
        let sketches = vec![
            b"HLL1".to_vec(),
            Vec::new(),
            b"FM223".to_vec(),
            b"x".to_vec(),
        ];
        let chunk = SketchChunk::from_sketches(&sketches).unwrap().unwrap();
        let kept = DecodedSketchChunk::from_chunk(&chunk);
        assert_eq!(kept.len(), 4);
        for offset in 0..6 {
            let expected = sketches.get(offset).map_or(&[][..], Vec::as_slice);
            assert_eq!(kept.sketch(offset), expected, "offset {offset}");
        }
    }

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
