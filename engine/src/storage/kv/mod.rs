//! The ordered key-value layer the engine stores everything in.
//!
//! [`KvBackend`] is the only thing the catalog code knows about storage: point
//! reads, bounded range scans in key order, atomic batches of puts and
//! deletes, a durable flush, and a way back to the durable state after a
//! failed one. [`SledBackend`] is the embedded default; [`MemoryBackend`] is a
//! `BTreeMap` for tests and model checking; [`SimulatedDisk`] loses what was
//! not flushed when told to crash, and fails flushes on demand. A shared,
//! replicated store (PostgreSQL first) can be added behind the same trait.

mod memory;
#[cfg(feature = "postgres")]
mod postgres_backend;
mod read_cache;
mod simulated;
mod sled_backend;

use std::ops::{Bound, Deref};
use std::sync::Arc;

use crate::error::Result;

pub use memory::MemoryBackend;
#[cfg(feature = "postgres")]
pub use postgres_backend::{
    redacted as redacted_postgres_url, PostgresBackend, ServerLockWait,
    POSTGRES_CONNECTIONS_DEFAULT, POSTGRES_EPOCH_TABLE, POSTGRES_RECONNECT_ATTEMPTS,
    POSTGRES_SERVER_LOCK_WAIT, POSTGRES_STATEMENT_BYTES_MAX, POSTGRES_STATEMENT_ROWS_MAX,
    POSTGRES_TABLE,
};
pub use read_cache::ReadCache;
pub use simulated::SimulatedDisk;
pub use sled_backend::{
    SledBackend, COMPRESSION_LEVEL, DISK_RESERVE_BYTES_DEFAULT, PAGE_CACHE_BYTES_DEFAULT,
    RESERVE_FILE_NAME,
};

/// The most entries one call to [`KvBackend::scan`] may be asked for.
pub const SCAN_PAGE_ENTRY_COUNT_MAX: usize = 4096;
/// How many entries the engine's scans fetch per backend call.
pub(crate) const SCAN_PAGE_ENTRY_COUNT: usize = 1024;

/// Bytes read from a backend: a key or a value.
///
/// Cheap to clone; borrows the backend's buffer where it can (sled's `IVec`),
/// so a listing does not copy every value.
#[derive(Clone)]
pub struct KvBytes(Repr);

#[derive(Clone)]
enum Repr {
    Sled(sled::IVec),
    Shared { buffer: Arc<[u8]>, start: usize },
}

impl KvBytes {
    /// Wraps shared bytes.
    pub fn from_shared(buffer: Arc<[u8]>) -> Self {
        KvBytes(Repr::Shared { buffer, start: 0 })
    }

    /// The bytes of `buffer` from `start` on. Lets tests build values whose
    /// address has any alignment.
    ///
    /// # Panics
    /// If `start > buffer.len()`: a programmer error.
    pub fn from_shared_at(buffer: Arc<[u8]>, start: usize) -> Self {
        assert!(
            start <= buffer.len(),
            "slice start past the end of the buffer"
        );
        KvBytes(Repr::Shared { buffer, start })
    }

    pub(crate) fn from_sled(value: sled::IVec) -> Self {
        KvBytes(Repr::Sled(value))
    }
}

impl Deref for KvBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Sled(value) => value,
            Repr::Shared { buffer, start } => buffer.get(*start..).unwrap_or_default(),
        }
    }
}

impl AsRef<[u8]> for KvBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for KvBytes {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}", crate::error::escape_bytes(self))
    }
}

impl PartialEq for KvBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for KvBytes {}

/// A range of keys, `start` to `end`, each bound inclusive, exclusive or open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    /// The lower bound.
    pub start: Bound<Vec<u8>>,
    /// The upper bound.
    pub end: Bound<Vec<u8>>,
}

impl KeyRange {
    /// Every key.
    pub fn all() -> Self {
        KeyRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// Every key that starts with `prefix`.
    pub fn prefix(prefix: &[u8]) -> Self {
        let end = match prefix_successor(prefix) {
            Some(successor) => Bound::Excluded(successor),
            None => Bound::Unbounded,
        };
        KeyRange {
            start: Bound::Included(prefix.to_vec()),
            end,
        }
    }

    /// The keys from `start` (inclusive) to `end` (exclusive).
    pub fn between(start: &[u8], end: &[u8]) -> Self {
        KeyRange {
            start: Bound::Included(start.to_vec()),
            end: Bound::Excluded(end.to_vec()),
        }
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        let above_start = match &self.start {
            Bound::Included(start) => key >= start.as_slice(),
            Bound::Excluded(start) => key > start.as_slice(),
            Bound::Unbounded => true,
        };
        let below_end = match &self.end {
            Bound::Included(end) => key <= end.as_slice(),
            Bound::Excluded(end) => key < end.as_slice(),
            Bound::Unbounded => true,
        };
        above_start && below_end
    }

    /// Whether the bounds admit no key at all (backends' own range calls
    /// panic on inverted bounds, so this is checked first).
    pub fn is_empty(&self) -> bool {
        use Bound::{Excluded, Included};
        match (&self.start, &self.end) {
            (Included(start), Included(end)) => start > end,
            (Included(start), Excluded(end))
            | (Excluded(start), Included(end))
            | (Excluded(start), Excluded(end)) => start >= end,
            _ => false,
        }
    }

    /// The same range with its start moved just past `key`.
    fn after(&self, key: &[u8]) -> Self {
        KeyRange {
            start: Bound::Excluded(key.to_vec()),
            end: self.end.clone(),
        }
    }
}

/// The smallest key greater than every key starting with `prefix`, or `None`
/// when there is none (the prefix is empty or all `0xFF`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let last_incrementable = prefix.iter().rposition(|byte| *byte != 0xFF)?;
    let mut successor = prefix[..=last_incrementable].to_vec();
    successor[last_incrementable] += 1;
    Some(successor)
}

/// One operation of a [`WriteBatch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteOp {
    /// Set `key` to `value`.
    Put {
        /// The key.
        key: Vec<u8>,
        /// The value.
        value: Vec<u8>,
    },
    /// Remove `key` if present.
    Delete {
        /// The key.
        key: Vec<u8>,
    },
}

/// Puts and deletes applied all together or not at all, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteBatch {
    ops: Vec<WriteOp>,
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        WriteBatch::default()
    }

    /// Adds a put of `value` at `key`.
    pub fn put(&mut self, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        self.ops.push(WriteOp::Put {
            key: key.into(),
            value: value.into(),
        });
    }

    /// Adds a delete of `key`.
    pub fn delete(&mut self, key: impl Into<Vec<u8>>) {
        self.ops.push(WriteOp::Delete { key: key.into() });
    }

    /// The operations, in the order they were added.
    pub fn ops(&self) -> &[WriteOp] {
        &self.ops
    }

    /// How many operations the batch holds.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Consumes the batch into its operations.
    pub fn into_ops(self) -> Vec<WriteOp> {
        self.ops
    }
}

/// An ordered key-value store.
///
/// Keys compare as byte strings. Implementations must be safe to share
/// between threads; the engine serialises its writers itself.
pub trait KvBackend: Send + Sync + 'static {
    /// The value at `key`, if any.
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>>;

    /// Up to `entry_count_max` entries of `range`, in ascending key order.
    ///
    /// `entry_count_max` is at most [`SCAN_PAGE_ENTRY_COUNT_MAX`]; callers page
    /// through longer ranges (see [`scan`]).
    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>>;

    /// Applies every operation of `batch` atomically: after a crash, either
    /// all of them are visible or none is.
    fn apply(&self, batch: WriteBatch) -> Result<()>;

    /// Makes every applied batch durable (fsync). Returns once they are.
    fn flush(&self) -> Result<()>;

    /// Forgets every batch applied since the last successful [`KvBackend::flush`] and reads
    /// the durable state again (sled: the database is closed and opened). The engine calls it
    /// after an apply or a flush failed, holding its writer lock; reads wait meanwhile.
    /// Backends whose applied state is always durable have nothing to do.
    fn reopen(&self) -> Result<()> {
        Ok(())
    }

    /// `Err` ([`crate::Error::DiskFull`]) while a write must not be tried: the disk ran full
    /// and has not yet got back the room a write needs. Checked before every write.
    fn writable(&self) -> Result<()> {
        Ok(())
    }

    /// Forgets what this backend keeps in memory of the keys `batch` changes, a batch
    /// another process applied (see `storage/changes.rs`). Nothing by default: only a
    /// backend that keeps values read ([`ReadCache`]) has anything to forget.
    fn forget(&self, _batch: &WriteBatch) {}

    /// The bytes the backend's files take on disk, by its own count; `None` for a backend
    /// without files.
    fn size_on_disk(&self) -> Result<Option<u64>> {
        Ok(None)
    }
}

/// Iterates over `range` of `backend` in key order, fetching pages of
/// `page_entry_count` entries, so memory stays bounded however long the range.
///
/// Each page is a consistent read of the backend; pages are not one snapshot.
pub fn scan<'a>(backend: &'a dyn KvBackend, range: KeyRange, page_entry_count: usize) -> Scan<'a> {
    Scan {
        backend,
        range: Some(range),
        page: Vec::new().into_iter(),
        page_entry_count: page_entry_count.clamp(1, SCAN_PAGE_ENTRY_COUNT_MAX),
    }
}

/// The iterator of [`scan`].
pub struct Scan<'a> {
    backend: &'a dyn KvBackend,
    /// The part of the range not fetched yet; `None` once exhausted or failed.
    range: Option<KeyRange>,
    page: std::vec::IntoIter<(KvBytes, KvBytes)>,
    page_entry_count: usize,
}

impl Iterator for Scan<'_> {
    type Item = Result<(KvBytes, KvBytes)>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(entry) = self.page.next() {
            return Some(Ok(entry));
        }
        let range = self.range.take()?;
        let page = match self.backend.scan(&range, self.page_entry_count) {
            Ok(page) => page,
            Err(error) => return Some(Err(error)),
        };
        if page.len() == self.page_entry_count {
            if let Some((last_key, _)) = page.last() {
                self.range = Some(range.after(last_key));
            }
        }
        self.page = page.into_iter();
        self.page.next().map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_successor_skips_trailing_ff() {
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(&[1, 0xFF, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xFF]), None);
        assert_eq!(prefix_successor(b""), None);
    }

    #[test]
    fn prefix_range_contains_only_the_prefix() {
        let range = KeyRange::prefix(&[1, 0xFF]);
        assert!(range.contains(&[1, 0xFF]));
        assert!(range.contains(&[1, 0xFF, 0xFF, 3]));
        assert!(!range.contains(&[2]));
        assert!(!range.contains(&[1, 0xFE]));
    }
}
