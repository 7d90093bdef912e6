//! Partitions as last encoded for replies, kept beside a table's kept name listing.
//!
//! A warm listing of whole partitions spends most of its time reading each record from the
//! store, validating it and encoding it (some 8,000 instructions a partition), while the
//! bytes it writes are the same from call to call as long as the table is unchanged. A kept
//! name listing (`name_listing.rs`) is valid for one version of its table's stripe
//! (`consistent.rs`), so bytes kept with it are never stale either: each listed partition's
//! encoding is kept by its index in the names, filled on a miss, and copied on a hit.
//!
//! The engine knows nothing of the bytes: a frontend's encoder makes them, and says by an
//! [`EncodingKey`] what they depend on besides the partition (its encoding kind, the
//! protocol say, and the table's names, which a rename changes without touching any
//! partition key). Encodings of another key are kept apart, and one of an old key is
//! dropped. All kept encodings together take at most [`KEPT_ENCODED_BYTES_MAX`].
//!
//! What many partitions share (their storage descriptor's bytes) is kept once per key, and
//! each partition keeps only its own bytes and where those pieces go
//! (`encoding.rs`): a partition of 20 columns keeps some 270 bytes, not 1.15 KB.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use crate::partitions::encoding::{
    copy_record, EncodedPartition, FreshEncodings, SharedPieces, PIECE_OVERHEAD_BYTES,
};
use crate::partitions::name_listing::PartitionNames;

/// Memory all kept encodings (and name indexes) may take in all, in bytes: the own bytes
/// (some 270 with their splice table) and entry (12) of some 900,000 partitions of 20
/// columns sharing one descriptor. Only what is listed is kept, and what does not fit is
/// encoded again on every call.
pub const KEPT_ENCODED_BYTES_MAX: usize = 256 << 20;

/// Kept bytes are appended to blocks of this capacity, never moved once written.
const BLOCK_BYTES: usize = 1 << 20;

/// Encoding kinds kept per listing (binary and compact protocol, with some room).
const KIND_COUNT_MAX: usize = 4;

/// What an encoding depends on besides the partition itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EncodingKey {
    /// The frontend's kind (see [`crate::PartitionSink::encoding_kind`]).
    pub(crate) kind: u32,
    /// The table's catalog, database and name, as read for the call.
    pub(crate) names: [String; 3],
}

/// Where one partition's bytes are: `len` 0 when not kept.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    block: u32,
    start: u32,
    len: u32,
}

/// The kept encodings of one kind, by index in the listing's names.
pub(crate) struct KindEncodings {
    key: EncodingKey,
    inner: RwLock<Records>,
    budget: Arc<AtomicUsize>,
}

struct Records {
    entries: Vec<Entry>,
    /// Records (`encoding.rs`), at the places the entries say.
    blocks: Vec<Vec<u8>>,
    /// The pieces the records splice, each once.
    pieces: SharedPieces,
    /// Bytes taken from the budget by this kind (entries, blocks and pieces).
    bytes: usize,
}

/// The kept encodings of one kind, read-locked: hits are copied from here.
pub(crate) struct KeptBytes<'k> {
    records: RwLockReadGuard<'k, Records>,
}

impl KeptBytes<'_> {
    /// Whether the encoding of partition `index` is kept.
    pub(crate) fn has(&self, index: u32) -> bool {
        let entry = self.records.entries.get(index as usize);
        entry.is_some_and(|entry| entry.len != 0)
    }

    /// The kept encoding of partition `index`, if any (a record that does not read is
    /// taken for missing, and encoded again).
    pub(crate) fn get(&self, index: u32) -> Option<EncodedPartition<'_>> {
        let entry = self.records.entries.get(index as usize)?;
        if entry.len == 0 {
            return None;
        }
        let block = self.records.blocks.get(entry.block as usize)?;
        let start = entry.start as usize;
        let record = block.get(start..start + entry.len as usize)?;
        EncodedPartition::new(record, &self.records.pieces).ok()
    }
}

/// Takes `bytes` from `budget` if they fit under [`KEPT_ENCODED_BYTES_MAX`].
fn take_budget(budget: &AtomicUsize, bytes: usize) -> bool {
    budget
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |taken| {
            let total = taken.checked_add(bytes)?;
            (total <= KEPT_ENCODED_BYTES_MAX).then_some(total)
        })
        .is_ok()
}

impl KindEncodings {
    /// The encodings of `key` for a listing of `count` names, or `None` when their entries do
    /// not fit in the budget.
    fn new(key: EncodingKey, count: usize, budget: Arc<AtomicUsize>) -> Option<Self> {
        let bytes = count.checked_mul(std::mem::size_of::<Entry>())?;
        if !take_budget(&budget, bytes) {
            return None;
        }
        let inner = Records {
            entries: vec![Entry::default(); count],
            blocks: Vec::new(),
            pieces: SharedPieces::default(),
            bytes,
        };
        Some(KindEncodings {
            key,
            inner: RwLock::new(inner),
            budget,
        })
    }

    /// The kept bytes, read-locked for as long as the guard lives.
    pub(crate) fn read(&self) -> KeptBytes<'_> {
        let records = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        KeptBytes { records }
    }

    /// Keeps the records `fresh` holds at `ranges` (by partition index), with the pieces
    /// they splice, as far as the budget allows. An index already kept keeps its first
    /// record (the same).
    pub(crate) fn fill(&self, fresh: &FreshEncodings, ranges: &[(u32, Range<usize>)]) {
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        let Records {
            entries,
            blocks,
            pieces,
            bytes,
        } = &mut *inner;
        for (index, range) in ranges {
            let len = range.len();
            let Some(entry) = entries.get_mut(*index as usize) else {
                continue;
            };
            if entry.len != 0 || len == 0 || len > BLOCK_BYTES {
                continue;
            }
            let Ok(record) = fresh.get(range.clone()) else {
                continue;
            };
            let room = blocks
                .last()
                .is_some_and(|block| block.capacity() - block.len() >= len);
            if !room {
                if !take_budget(&self.budget, BLOCK_BYTES) {
                    return;
                }
                *bytes += BLOCK_BYTES;
                blocks.push(Vec::with_capacity(BLOCK_BYTES));
            }
            let block_index = blocks.len() - 1;
            let block = &mut blocks[block_index];
            let start = block.len();
            let map = |piece| keep_piece(pieces, bytes, &self.budget, fresh.pieces(), piece);
            if !copy_record(&record, block, map) {
                continue;
            }
            // Lengths fit: a block is 1 MiB and the listing's length came from a `u32` index.
            *entry = Entry {
                block: block_index as u32,
                start: start as u32,
                len: (block.len() - start) as u32,
            };
        }
    }
}

/// The index in `kept` of piece `piece` of `fresh`, kept now if it was not (and fits in the
/// budget, its bytes counted in `taken`); `None` if it does not fit, or if `kept` holds other
/// bytes under its key.
fn keep_piece(
    kept: &mut SharedPieces,
    taken: &mut usize,
    budget: &AtomicUsize,
    fresh: &SharedPieces,
    piece: u32,
) -> Option<u32> {
    let (key, bytes) = fresh.get(piece)?;
    if let Some(found) = kept.find(key) {
        let (_, kept_bytes) = kept.get(found)?;
        return (kept_bytes == bytes).then_some(found);
    }
    let cost = bytes.len() + PIECE_OVERHEAD_BYTES;
    if !take_budget(budget, cost) {
        return None;
    }
    *taken += cost;
    kept.add(*key, bytes).ok()
}

impl Drop for KindEncodings {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(PoisonError::into_inner);
        self.budget.fetch_sub(inner.bytes, Ordering::SeqCst);
    }
}

/// The names of a kept listing by hash, for `get_partitions_by_names`: open addressing, at
/// most half full, over buckets that hold a name's index in the listing and a tag of its hash
/// (the top [`TAG_BITS`]), so that a probe passes over other names without reading them:
/// each read of a name is a cache miss or two at a million names.
pub(crate) struct NameIndex {
    hasher: RandomState,
    table: Vec<u32>,
    budget: Arc<AtomicUsize>,
}

/// Bits of a bucket that hold the tag; the others hold the name's index.
const TAG_BITS: u32 = 8;
/// The index bits of a bucket.
const POSITION_MASK: u32 = u32::MAX >> TAG_BITS;
/// A bucket holding no name (its index is past any listing indexed).
const EMPTY: u32 = u32::MAX;

// A tag and an index share a bucket; the largest index is reserved for empty buckets.
const _: () = assert!(TAG_BITS > 0 && TAG_BITS < 16);
const _: () = assert!(EMPTY & POSITION_MASK == POSITION_MASK);

/// Where a name's lookup is: its bucket, and the index and tag held there.
#[derive(Clone, Copy)]
struct Probe {
    bucket: usize,
    tag: u32,
    /// The index of the name in the bucket whose tag matched, or [`POSITION_MASK`] when the
    /// probe reached an empty bucket.
    position: u32,
}

impl NameIndex {
    /// The index of `names`, or `None` when it does not fit in the budget or the listing
    /// has more names than a bucket can count (more than the kept listings' bound holds).
    fn build(names: &PartitionNames, budget: Arc<AtomicUsize>) -> Option<Self> {
        let capacity = names
            .len()
            .checked_mul(2)?
            .max(16)
            .checked_next_power_of_two()?;
        let count = u32::try_from(names.len())
            .ok()
            .filter(|count| *count < POSITION_MASK)?;
        if !take_budget(&budget, capacity * std::mem::size_of::<u32>()) {
            return None;
        }
        let mut index = NameIndex {
            hasher: RandomState::new(),
            table: vec![EMPTY; capacity],
            budget,
        };
        let mask = capacity - 1;
        for position in 0..count {
            let (mut bucket, tag) = index.home(names.get(position as usize));
            while index.table[bucket] != EMPTY {
                bucket = (bucket + 1) & mask;
            }
            index.table[bucket] = (tag << (32 - TAG_BITS)) | position;
        }
        Some(index)
    }

    /// The first bucket of `name`'s probe, and its tag.
    fn home(&self, name: &str) -> (usize, u32) {
        let hash = self.hasher.hash_one(name);
        let tag = (hash >> (64 - TAG_BITS)) as u32;
        ((hash as usize) & (self.table.len() - 1), tag)
    }

    /// The first bucket from `bucket` on that holds a name of tag `tag`, or is empty. At most
    /// half full, the table has an empty bucket to end every probe.
    fn probe(&self, mut bucket: usize, tag: u32) -> Probe {
        let mask = self.table.len() - 1;
        loop {
            let held = self.table[bucket];
            if held == EMPTY {
                let position = POSITION_MASK;
                return Probe {
                    bucket,
                    tag,
                    position,
                };
            }
            if held >> (32 - TAG_BITS) == tag {
                let position = held & POSITION_MASK;
                return Probe {
                    bucket,
                    tag,
                    position,
                };
            }
            bucket = (bucket + 1) & mask;
        }
    }

    /// The index of `name` in `names` (the listing this was built from), if listed.
    #[cfg(test)]
    pub(crate) fn find(&self, names: &PartitionNames, name: &str) -> Option<u32> {
        let (bucket, tag) = self.home(name);
        self.find_from(names, name, self.probe(bucket, tag))
    }

    /// The index of `name`, probing on from `probe` (a bucket of its tag, or empty).
    fn find_from(&self, names: &PartitionNames, name: &str, mut probe: Probe) -> Option<u32> {
        let mask = self.table.len() - 1;
        while probe.position != POSITION_MASK {
            if names.is_at(names.bounds(probe.position as usize), name) {
                return Some(probe.position);
            }
            probe = self.probe((probe.bucket + 1) & mask, probe.tag);
        }
        None
    }

    /// The indexes of the names of `wanted` that are listed, in the order of `wanted`,
    /// appended to `found`.
    ///
    /// At a million names each lookup misses the cache three times (its bucket, the name's
    /// bounds, the name's text), and one after the other they wait for each in turn. So the
    /// names are looked up [`LOOKUP_BATCH`] at a time, one step (hash, probe, bounds,
    /// comparison) for all of them before the next: each step is a loop of loads that do not
    /// depend on each other, which the processor overlaps. The tags keep the probes off the
    /// names; a name whose tag matched another's is probed on as [`NameIndex::find`] does.
    pub(crate) fn find_all(&self, names: &PartitionNames, wanted: &[&str], found: &mut Vec<u32>) {
        let capacity = wanted.len().min(LOOKUP_BATCH);
        let mut homes = Vec::with_capacity(capacity);
        let mut probes = Vec::with_capacity(capacity);
        let mut bounds = Vec::with_capacity(capacity);
        for batch in wanted.chunks(LOOKUP_BATCH) {
            homes.clear();
            homes.extend(batch.iter().map(|name| self.home(name)));
            probes.clear();
            probes.extend(homes.iter().map(|(bucket, tag)| self.probe(*bucket, *tag)));
            bounds.clear();
            bounds.extend(probes.iter().map(|probe| match probe.position {
                POSITION_MASK => (0, 0),
                position => names.bounds(position as usize),
            }));
            for ((name, probe), bounds) in batch.iter().zip(&probes).zip(&bounds) {
                if probe.position == POSITION_MASK {
                    continue;
                }
                if names.is_at(*bounds, name) {
                    found.push(probe.position);
                } else if let Some(position) = self.find_from(names, name, *probe) {
                    found.push(position);
                }
            }
        }
    }
}

/// Names looked up a step at a time by [`NameIndex::find_all`]: enough that a step's loads
/// overlap fully, few enough that its scratch stays in the CPU's first caches.
const LOOKUP_BATCH: usize = 1024;

impl Drop for NameIndex {
    fn drop(&mut self) {
        let bytes = self.table.len() * std::mem::size_of::<u32>();
        self.budget.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// What is kept beside one kept name listing: encodings by kind, and the name index.
pub(crate) struct KeptEncodings {
    kinds: Mutex<Vec<Arc<KindEncodings>>>,
    index: OnceLock<Option<NameIndex>>,
    budget: Arc<AtomicUsize>,
}

impl KeptEncodings {
    pub(crate) fn new(budget: Arc<AtomicUsize>) -> Self {
        KeptEncodings {
            kinds: Mutex::new(Vec::new()),
            index: OnceLock::new(),
            budget,
        }
    }

    /// The encodings of `key` for this listing of `count` names, made if missing (an older
    /// key of the same kind, from before a rename, is dropped); `None` when they do not fit.
    pub(crate) fn kind(&self, key: &EncodingKey, count: usize) -> Option<Arc<KindEncodings>> {
        let mut kinds = self.kinds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = kinds.iter().find(|kind| kind.key == *key) {
            return Some(found.clone());
        }
        kinds.retain(|kind| kind.key.kind != key.kind);
        if kinds.len() >= KIND_COUNT_MAX {
            kinds.remove(0);
        }
        let made = Arc::new(KindEncodings::new(key.clone(), count, self.budget.clone())?);
        kinds.push(made.clone());
        Some(made)
    }

    /// The index of `names` (the listing this is kept with), built on first use; `None`
    /// when it does not fit in the budget.
    pub(crate) fn name_index(&self, names: &PartitionNames) -> Option<&NameIndex> {
        self.index
            .get_or_init(|| NameIndex::build(names, self.budget.clone()))
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partitions::encoding::PieceKey;

    fn key(kind: u32, table: &str) -> EncodingKey {
        EncodingKey {
            kind,
            names: ["hive".into(), "db".into(), table.into()],
        }
    }

    /// Records of `own` bytes, each followed by the piece `shared` of key 1 when given.
    fn fresh(own: &[&[u8]], shared: Option<&[u8]>) -> (FreshEncodings, Vec<Range<usize>>) {
        let mut fresh = FreshEncodings::default();
        let ranges = own
            .iter()
            .map(|own| {
                fresh
                    .record(|out| {
                        let (bytes, mut splicer) = out.parts();
                        bytes.extend_from_slice(own);
                        if let Some(shared) = shared {
                            splicer.splice(bytes.len(), PieceKey { object: 1, part: 0 }, shared);
                        }
                        Ok(())
                    })
                    .unwrap()
            })
            .collect();
        (fresh, ranges)
    }

    fn whole(kept: &KeptBytes<'_>, index: u32) -> Option<Vec<u8>> {
        kept.get(index).map(|encoded| encoded.to_vec())
    }

    #[test]
    fn filled_encodings_are_found_by_index_and_key() {
        let budget = Arc::new(AtomicUsize::new(0));
        let kept = KeptEncodings::new(budget.clone());
        let binary = kept.kind(&key(0, "t"), 3).unwrap();
        let (fresh, ranges) = fresh(&[b"aaa", b"bb"], Some(b"S"));
        binary.fill(&fresh, &[(0, ranges[0].clone()), (2, ranges[1].clone())]);
        let bytes = binary.read();
        assert_eq!(whole(&bytes, 0), Some(b"aaaS".to_vec()));
        assert_eq!(whole(&bytes, 1), None);
        assert!(!bytes.has(1));
        assert_eq!(whole(&bytes, 2), Some(b"bbS".to_vec()));
        assert_eq!(whole(&bytes, 3), None);
        drop(bytes);
        // The same key finds the same encodings; another kind has its own.
        assert!(Arc::ptr_eq(&binary, &kept.kind(&key(0, "t"), 3).unwrap()));
        let compact = kept.kind(&key(1, "t"), 3).unwrap();
        assert_eq!(whole(&compact.read(), 0), None);
        // A renamed table's encodings replace the old ones of the kind.
        let renamed = kept.kind(&key(0, "u"), 3).unwrap();
        assert_eq!(whole(&renamed.read(), 0), None);
        drop((binary, compact, renamed));
        assert!(budget.load(Ordering::SeqCst) > 0);
        drop(kept);
        assert_eq!(budget.load(Ordering::SeqCst), 0, "every byte given back");
    }

    /// A shared piece is kept once however many partitions splice it, and counted once.
    #[test]
    fn shared_pieces_are_kept_and_counted_once() {
        let budget = Arc::new(AtomicUsize::new(0));
        let kept = KeptEncodings::new(budget.clone());
        let kind = kept.kind(&key(0, "t"), 1000).unwrap();
        let entries_bytes = budget.load(Ordering::SeqCst);
        let own: Vec<Vec<u8>> = (0..1000u32).map(|n| n.to_le_bytes().to_vec()).collect();
        let own: Vec<&[u8]> = own.iter().map(Vec::as_slice).collect();
        let shared = vec![7u8; 900];
        let (fresh, ranges) = fresh(&own, Some(&shared));
        let ranges = ranges.into_iter().enumerate();
        let ranges: Vec<_> = ranges.map(|(n, range)| (n as u32, range)).collect();
        kind.fill(&fresh, &ranges);
        let read = kind.read();
        for n in 0..1000u32 {
            let mut expected = n.to_le_bytes().to_vec();
            expected.extend_from_slice(&shared);
            assert_eq!(whole(&read, n), Some(expected));
        }
        assert_eq!(read.records.pieces.pieces_len(), 1);
        // One block for the records (4 own bytes, 8 of splice, 2 of count each), the piece.
        let taken = budget.load(Ordering::SeqCst) - entries_bytes;
        assert_eq!(taken, BLOCK_BYTES + shared.len() + PIECE_OVERHEAD_BYTES);
        assert_eq!(read.records.blocks[0].len(), 1000 * 14);
        drop(read);
        drop((kind, kept));
        assert_eq!(budget.load(Ordering::SeqCst), 0, "every byte given back");
    }

    /// Bytes of a key already kept with other bytes are not kept (the record is encoded
    /// again on the next call) rather than written with the wrong piece.
    #[test]
    fn a_key_kept_with_other_bytes_keeps_nothing() {
        let kept = KeptEncodings::new(Arc::new(AtomicUsize::new(0)));
        let kind = kept.kind(&key(0, "t"), 2).unwrap();
        let (first, ranges) = fresh(&[b"a"], Some(b"old"));
        kind.fill(&first, &[(0, ranges[0].clone())]);
        let (second, ranges) = fresh(&[b"b"], Some(b"new"));
        kind.fill(&second, &[(1, ranges[0].clone())]);
        let read = kind.read();
        assert_eq!(whole(&read, 0), Some(b"aold".to_vec()));
        assert_eq!(whole(&read, 1), None);
    }

    #[test]
    fn encodings_beyond_the_budget_are_not_kept() {
        let budget = Arc::new(AtomicUsize::new(KEPT_ENCODED_BYTES_MAX - 100));
        let kept = KeptEncodings::new(budget.clone());
        let kind = kept.kind(&key(0, "t"), 2).unwrap();
        let (fresh, ranges) = fresh(&[b"abc"], None);
        kind.fill(&fresh, &[(0, ranges[0].clone())]);
        assert_eq!(whole(&kind.read(), 0), None, "no room for a block");
        assert!(
            kept.kind(&key(1, "t"), 100).is_none(),
            "no room for the entries"
        );
    }

    #[test]
    fn the_name_index_finds_every_listed_name_and_no_other() {
        // Enough names that some in one probe share a tag: a tag is 8 bits.
        const LISTED: u32 = 20_000;
        let mut names = PartitionNames::new();
        for day in 0..LISTED {
            names
                .push_with(|text| {
                    text.push_str(&format!("ds={day}/hr=1"));
                    Ok(())
                })
                .unwrap();
        }
        let kept = KeptEncodings::new(Arc::new(AtomicUsize::new(0)));
        let index = kept.name_index(&names).unwrap();
        for day in 0..LISTED {
            assert_eq!(index.find(&names, &format!("ds={day}/hr=1")), Some(day));
        }
        assert_eq!(index.find(&names, &format!("ds={LISTED}/hr=1")), None);
        assert_eq!(index.find(&names, "ds=1/hr=2"), None);
        // Looked up in batches, with names not listed and repeated among them.
        let mut wanted: Vec<String> = (0..LISTED + LISTED / 2)
            .rev()
            .map(|day| format!("ds={day}/hr=1"))
            .collect();
        wanted.push("ds=3/hr=1".into());
        let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
        let mut found = Vec::new();
        index.find_all(&names, &wanted, &mut found);
        let expected: Vec<u32> = (0..LISTED).rev().chain([3]).collect();
        assert_eq!(found, expected);
    }
}
