//! The `bitVectors` of one column's chunk of partitions, stored as one value (keyspace 0x0A,
//! value kind 9) beside the chunk of numbers: merging the sketches of 10k partitions then
//! reads 79 contiguous values per column instead of 10k keys, and writing one partition's
//! sketch rewrites its chunk's sketches only.
//!
//! Since value kind 12 ([`SketchUnionChunk`]) the value also holds the HLL union of its
//! sketches, merged when it is written, so that an aggregation over whole chunks merges one
//! union per chunk instead of 128 sketches; chunks of kind 9 (no union) are still read, their
//! union made the first time it is wanted, and stored with one by their next write.
//!
//! Sketches written before chunks live one key per slot (tag
//! [`super::chunk::SKETCH_TAG_BIT_VECTORS`]); a slot's flags say where its sketch is
//! ([`super::chunk::SKETCH_IN_CHUNK`]), and the next write of the slot moves it here.

use std::ops::Range;
use std::sync::OnceLock;

use rkyv::{Archive, Deserialize, Serialize};

use super::chunk::CHUNK_SLOT_COUNT;
use super::chunk_run::{ChunkEntries, ChunkRun};
use super::hll_union::{ArchivedStoredUnion, HllUnion, StoredUnion, StoredUnionView, UnionRef};
use crate::error::{Error, Result};
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{KvBackend, KvBytes};
use crate::storage::values::{stored_value, ValueKind, ValueView, VALUE_KIND_OFFSET};

/// The sketches of one chunk's slots: offset `i`'s bytes are
/// `bytes[ends[i - 1]..ends[i]]` (from 0 for the first). `ends` has one entry per offset up
/// to the highest holding a sketch; an offset without one has an empty range.
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct SketchChunk {
    pub(crate) ends: Vec<u32>,
    pub(crate) bytes: Vec<u8>,
}

stored_value!(SketchChunk, ValueKind::StatsSketchChunk);

/// A chunk's sketches and their HLL union (value kind 12, the form written now): `union` is
/// every offset's sketch merged in offset order, `None` when an offset has none or one does
/// not merge as an HLL (FM, fewer register bits, unreadable).
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub(crate) struct SketchUnionChunk {
    pub(crate) sketches: SketchChunk,
    pub(crate) union: Option<StoredUnion>,
}

stored_value!(SketchUnionChunk, ValueKind::StatsSketchUnionChunk);

impl SketchUnionChunk {
    /// The stored form of one sketch per offset (empty: none), with their union; `None`
    /// when there is no sketch.
    pub(crate) fn from_sketches(sketches: &[Vec<u8>]) -> Result<Option<SketchUnionChunk>> {
        let Some(chunk) = SketchChunk::from_sketches(sketches)? else {
            return Ok(None);
        };
        let union = union_of((0..chunk.ends.len()).map(|offset| chunk.sketch(offset)));
        Ok(Some(SketchUnionChunk {
            union: union.map(|union| union.to_stored()),
            sketches: chunk,
        }))
    }
}

/// The union of `sketches`, merged in order; `None` when one is missing (empty) or does not
/// merge as an HLL.
fn union_of<'a>(sketches: impl Iterator<Item = &'a [u8]>) -> Option<HllUnion> {
    let mut union = HllUnion::default();
    for sketch in sketches {
        if sketch.is_empty() || union.add(sketch).is_err() {
            return None;
        }
    }
    Some(union)
}

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

    /// The sketch at `offset`; empty past the last one.
    fn sketch(&self, offset: usize) -> &[u8] {
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

/// A stored sketch chunk, of either form.
pub(crate) enum StoredSketches {
    /// Kind 9: the sketches alone.
    Plain(ValueView<SketchChunk>),
    /// Kind 12: the sketches and their union.
    WithUnion(ValueView<SketchUnionChunk>),
}

impl StoredSketches {
    /// The sketch chunk stored at `key`, whichever its form.
    pub(crate) fn new(key: KvBytes, stored: KvBytes) -> Result<Self> {
        let with_union = ValueKind::StatsSketchUnionChunk as u8;
        match stored.get(VALUE_KIND_OFFSET) == Some(&with_union) {
            true => Ok(StoredSketches::WithUnion(ValueView::new(key, stored)?)),
            false => Ok(StoredSketches::Plain(ValueView::new(key, stored)?)),
        }
    }

    fn key(&self) -> &[u8] {
        match self {
            StoredSketches::Plain(view) => view.key(),
            StoredSketches::WithUnion(view) => view.key(),
        }
    }

    /// The stored archive (validated when the chunk was kept).
    fn archive(&self) -> &[u8] {
        match self {
            StoredSketches::Plain(view) => view.archive(),
            StoredSketches::WithUnion(view) => view.archive(),
        }
    }

    /// The sketches, and the union when the form holds one (`None` inside: it holds none).
    fn archived(&self) -> Result<(&ArchivedSketchChunk, Option<Option<&ArchivedStoredUnion>>)> {
        match self {
            StoredSketches::Plain(view) => Ok((view.archived()?, None)),
            StoredSketches::WithUnion(view) => {
                let archived = view.archived()?;
                Ok((&archived.sketches, Some(archived.union.as_ref())))
            }
        }
    }

    /// One sketch per offset, checked, for a write that changes some.
    pub(crate) fn to_sketches(&self) -> Result<Vec<Vec<u8>>> {
        let (sketches, union) = self.archived()?;
        if !sketches.is_consistent() || union.flatten().is_some_and(|union| !union.is_consistent())
        {
            let reason = "a sketch chunk whose ends or union do not fit";
            return Err(Error::corruption(self.key(), reason));
        }
        Ok(sketches.to_sketches())
    }
}

/// One column's sketch chunks over a range of chunk numbers, read by one range scan.
pub(crate) struct SketchChunks(pub(super) ChunkRun<StoredSketches>);

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
        let view = |entries: ChunkEntries| entries.whole(StoredSketches::new);
        let run = ChunkRun::load(reader, keys, (first, last), view)?;
        Ok(SketchChunks(run))
    }
}

/// Where a kept chunk's union is.
enum KeptUnion {
    /// Stored with the chunk (kind 12): where its parts lie in the archive.
    Stored {
        registers: Range<usize>,
        sparse_keys: Range<usize>,
        dense: bool,
    },
    /// Stored as none (kind 12): an offset has no sketch or one does not merge.
    None,
    /// Not stored (kind 9): made the first time a merge wants it.
    Built(OnceLock<Option<HllUnion>>),
}

/// Where `slice` lies in `archive`, which holds it.
fn span_of<T>(archive: &[u8], slice: &[T]) -> Range<usize> {
    let start = slice.as_ptr() as usize - archive.as_ptr() as usize;
    start..start + std::mem::size_of_val(slice)
}

/// A sketch chunk kept (`kept_chunks.rs`): its stored value itself, shared with the store's
/// reader rather than copied (a first aggregation over 10k partitions × 50 columns would
/// otherwise copy about 10 MiB of sketches into fresh memory, whose pages the kernel must
/// hand out and zero: slower than the merge itself on this machine), validated once, with
/// where its ends, bytes and union lie in it.
pub(crate) struct DecodedSketchChunk {
    stored: StoredSketches,
    /// The ends (u32 little-endian) and the sketches' bytes, in the stored archive.
    ends: Range<usize>,
    bytes: Range<usize>,
    union: KeptUnion,
}

impl DecodedSketchChunk {
    /// The chunk stored in `stored`, validated; ends that do not fit the bytes, or a union
    /// that does not fit its precision, are corruption.
    pub(crate) fn from_stored(stored: StoredSketches) -> Result<Self> {
        let (archived, union) = stored.archived()?;
        let union_fits = union
            .flatten()
            .is_none_or(ArchivedStoredUnion::is_consistent);
        if !archived.is_consistent() || !union_fits {
            let reason = "a sketch chunk whose ends or union do not fit";
            return Err(Error::corruption(stored.key(), reason));
        }
        let archive = stored.archive();
        let ends = span_of(archive, archived.ends.as_slice());
        let bytes = span_of(archive, archived.bytes.as_slice());
        let union = match union {
            Some(Some(union)) => KeptUnion::Stored {
                registers: span_of(archive, union.registers.as_slice()),
                sparse_keys: span_of(archive, union.sparse_keys.as_slice()),
                dense: union.dense,
            },
            Some(None) => KeptUnion::None,
            None => KeptUnion::Built(OnceLock::new()),
        };
        Ok(DecodedSketchChunk {
            stored,
            ends,
            bytes,
            union,
        })
    }

    /// How many offsets the chunk covers (up to the last holding a sketch).
    pub(crate) fn len(&self) -> usize {
        self.ends.len() / 4
    }

    /// The heap bytes the chunk keeps alive: its stored value.
    pub(crate) fn kept_bytes(&self) -> usize {
        self.stored.archive().len()
    }

    /// The end of the sketch at `offset`.
    fn end(&self, offset: usize) -> Option<usize> {
        let ends = self.stored.archive().get(self.ends.clone())?;
        let bytes = ends.get(offset.checked_mul(4)?..)?.first_chunk::<4>()?;
        Some(u32::from_le_bytes(*bytes) as usize)
    }

    /// The sketch at `offset`; empty past the last one.
    pub(crate) fn sketch(&self, offset: usize) -> &[u8] {
        let Some(end) = self.end(offset) else {
            return &[];
        };
        let start = match offset {
            0 => 0,
            _ => self.end(offset - 1).unwrap_or(0),
        };
        let bytes = self.stored.archive().get(self.bytes.clone());
        bytes
            .unwrap_or_default()
            .get(start..end)
            .unwrap_or_default()
    }

    /// The union of the sketches at every offset, as [`HllUnion::add`] of each in offset
    /// order gives: stored with the chunk, or made now for a chunk stored without; `None`
    /// when an offset has none, or one does not merge as an HLL (FM, smaller, unreadable):
    /// the caller then merges one by one.
    pub(crate) fn hll_union(&self) -> Option<UnionRef<'_>> {
        match &self.union {
            KeptUnion::Stored {
                registers,
                sparse_keys,
                dense,
            } => {
                let archive = self.stored.archive();
                Some(UnionRef::Stored(StoredUnionView {
                    registers: archive.get(registers.clone())?,
                    sparse_keys: archive.get(sparse_keys.clone())?,
                    dense: *dense,
                }))
            }
            KeptUnion::None => None,
            KeptUnion::Built(built) => {
                let sketches = (0..self.len()).map(|offset| self.sketch(offset));
                let union = built.get_or_init(|| union_of(sketches));
                union.as_ref().map(UnionRef::Built)
            }
        }
    }
}

#[cfg(test)]
impl DecodedSketchChunk {
    /// `chunk` as it would be kept once stored (in the form of kind 9) and read back.
    pub(crate) fn from_chunk(chunk: &SketchChunk) -> Self {
        Self::from_encoded(crate::storage::values::encode(chunk).expect("encode a sketch chunk"))
    }

    /// The chunk kept from the stored value `stored`, of either form.
    pub(crate) fn from_encoded(stored: Vec<u8>) -> Self {
        let key = KvBytes::from_shared(std::sync::Arc::from(&b"k"[..]));
        let stored = KvBytes::from_shared(std::sync::Arc::from(stored));
        let stored = StoredSketches::new(key, stored).expect("a view of a sketch chunk");
        DecodedSketchChunk::from_stored(stored).expect("a consistent sketch chunk")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::storage::values::{encode, StoredValue, VALUE_HEADER_LEN};

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

    /// The estimate of `union` merged alone into an empty one.
    fn estimate_of(union: UnionRef<'_>) -> i64 {
        let mut merged = HllUnion::default();
        merged.merge_union(union);
        merged.estimate()
    }

    #[test]
    fn a_stored_union_merges_as_the_union_made_from_the_sketches() {
        // Goal: the union stored with a chunk (kind 12), read in place, merges as the union
        // made from the chunk's sketches when it is stored without one (kind 9), and as the
        // sketches added one by one; a chunk with a gap or an FM sketch has none in either
        // form. Method: sparse HLL sketches of p = 10 from Hive's writer (`hll.rs`).
        let sketch = |first: u64| {
            let mut hll = crate::stats::hll::Hll::new(10);
            for hash in first..first + 40 {
                hll.add_hash(hash.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            }
            hll.encode().unwrap()
        };
        let sketches: Vec<Vec<u8>> = (0..5).map(|index| sketch(index * 25)).collect();
        let mut one_by_one = HllUnion::default();
        for bytes in &sketches {
            one_by_one.add(bytes).unwrap();
        }
        let with_union = SketchUnionChunk::from_sketches(&sketches).unwrap().unwrap();
        let stored = DecodedSketchChunk::from_encoded(encode(&with_union).unwrap());
        let plain = DecodedSketchChunk::from_chunk(&with_union.sketches);
        assert!(matches!(stored.hll_union(), Some(UnionRef::Stored(_))));
        assert!(matches!(plain.hll_union(), Some(UnionRef::Built(_))));
        let expected = one_by_one.estimate();
        assert_eq!(estimate_of(stored.hll_union().unwrap()), expected);
        assert_eq!(estimate_of(plain.hll_union().unwrap()), expected);
        for offset in 0..6 {
            assert_eq!(
                stored.sketch(offset),
                plain.sketch(offset),
                "offset {offset}"
            );
        }
        for spoiled in [Vec::new(), b"FM\x01\x00\x07\x00\x00\x00".to_vec()] {
            let mut sketches = sketches.clone();
            sketches[2] = spoiled;
            let with_union = SketchUnionChunk::from_sketches(&sketches).unwrap().unwrap();
            assert_eq!(with_union.union, None);
            let stored = DecodedSketchChunk::from_encoded(encode(&with_union).unwrap());
            assert!(stored.hll_union().is_none());
            assert!(DecodedSketchChunk::from_chunk(&with_union.sketches)
                .hll_union()
                .is_none());
        }
    }

    #[test]
    fn a_union_that_does_not_fit_is_corrupt() {
        // Goal: a stored union of the wrong register count, or unsorted keys, is refused
        // when the chunk is read, never merged.
        let sketches = vec![b"HLL1".to_vec()];
        let mut chunk = SketchUnionChunk {
            sketches: SketchChunk::from_sketches(&sketches).unwrap().unwrap(),
            union: Some(HllUnion::default().to_stored()),
        };
        let read = |chunk: &SketchUnionChunk| {
            let key = KvBytes::from_shared(Arc::from(&b"k"[..]));
            let stored = KvBytes::from_shared(Arc::from(encode(chunk).unwrap()));
            DecodedSketchChunk::from_stored(StoredSketches::new(key, stored).unwrap())
        };
        assert!(read(&chunk).is_ok());
        if let Some(union) = &mut chunk.union {
            union.registers.pop();
        }
        assert!(read(&chunk).is_err());
        chunk.union = Some(HllUnion::default().to_stored());
        if let Some(union) = &mut chunk.union {
            union.sparse_keys = vec![9, 3];
        }
        assert!(read(&chunk).is_err());
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
