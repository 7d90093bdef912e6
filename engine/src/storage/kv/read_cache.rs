//! Point reads kept in memory in front of a backend whose reads cross a network
//! (PostgreSQL): a value read once answers again from memory until a batch of this process
//! changes its key. Correct while this process is the store's one writer, which the
//! PostgreSQL backend's server lock and fencing make so, or, on a reader beside that writer,
//! because the reader forgets the keys the writer's change log names before each call
//! ([`KvBackend::forget`], `storage/changes.rs`).
//!
//! Bounded by bytes with two generations: entries go to the young one; when it holds half
//! the budget it becomes the old one (the previous old one is dropped), and a hit in the old
//! one moves the entry back to the young one. What is read often stays; a scan of everything
//! cannot take more than the budget.
//!
//! A read that missed fills the cache only if no batch began meanwhile: each batch bumps a
//! counter before it is applied and again, under the cache's lock, as its keys are
//! forgotten, so a value read from the backend while a batch was applied (old or new, which
//! one is unknown) is never kept, and one kept just before is forgotten. Range scans go to the backend: a listing's keys are many and read in pages.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::{KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp};
use crate::error::Result;

/// What one kept entry costs besides its key and value: the map's slot and the key's
/// allocation.
const ENTRY_OVERHEAD_BYTES: usize = 64;

/// A backend with its point reads kept in memory, up to a budget of bytes.
pub struct ReadCache {
    inner: Arc<dyn KvBackend>,
    budget_bytes: usize,
    kept: Mutex<Generations>,
    /// Raised before and after each batch: a read that missed keeps its value only if it
    /// did not change while the read was made.
    batches: AtomicU64,
}

#[derive(Default)]
struct Generations {
    young: HashMap<Vec<u8>, Option<KvBytes>>,
    young_bytes: usize,
    old: HashMap<Vec<u8>, Option<KvBytes>>,
}

fn entry_bytes(key: &[u8], value: &Option<KvBytes>) -> usize {
    key.len() + value.as_ref().map_or(0, |value| value.len()) + ENTRY_OVERHEAD_BYTES
}

impl Generations {
    fn find(&mut self, key: &[u8], budget_bytes: usize) -> Option<Option<KvBytes>> {
        if let Some(value) = self.young.get(key) {
            return Some(value.clone());
        }
        let (key, value) = self.old.remove_entry(key)?;
        self.keep(key, value.clone(), budget_bytes);
        Some(value)
    }

    fn keep(&mut self, key: Vec<u8>, value: Option<KvBytes>, budget_bytes: usize) {
        let bytes = entry_bytes(&key, &value);
        if bytes > budget_bytes / 2 {
            return;
        }
        self.forget(&key);
        if self.young_bytes + bytes > budget_bytes / 2 {
            self.old = std::mem::take(&mut self.young);
            self.young_bytes = 0;
        }
        self.young_bytes += bytes;
        self.young.insert(key, value);
    }

    fn forget(&mut self, key: &[u8]) {
        if let Some((key, value)) = self.young.remove_entry(key) {
            self.young_bytes -= entry_bytes(&key, &value);
        }
        self.old.remove(key);
    }

    fn clear(&mut self) {
        *self = Generations::default();
    }
}

impl ReadCache {
    /// `inner`'s point reads kept in up to `budget_bytes` of memory (none kept at 0).
    pub fn new(inner: Arc<dyn KvBackend>, budget_bytes: usize) -> ReadCache {
        ReadCache {
            inner,
            budget_bytes,
            kept: Mutex::new(Generations::default()),
            batches: AtomicU64::new(0),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The keys and bytes kept now (for tests and the size check).
    pub fn kept_bytes(&self) -> usize {
        let kept = self.kept();
        kept.young_bytes
            + kept
                .old
                .iter()
                .map(|(key, value)| entry_bytes(key, value))
                .sum::<usize>()
    }
}

fn keys_of(batch: &WriteBatch) -> Vec<Vec<u8>> {
    batch
        .ops()
        .iter()
        .map(|op| match op {
            WriteOp::Put { key, .. } | WriteOp::Delete { key } => key.clone(),
        })
        .collect()
}

impl ReadCache {
    /// Forgets `keys` after a batch changed them, and raises the batch count again under the
    /// same lock a read's check takes (the first raise was before the change).
    fn forget_keys(&self, keys: &[Vec<u8>]) {
        let mut kept = self.kept();
        for key in keys {
            kept.forget(key);
        }
        self.batches.fetch_add(1, Ordering::AcqRel);
    }
}

impl KvBackend for ReadCache {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        if self.budget_bytes == 0 {
            return self.inner.get(key);
        }
        let before = self.batches.load(Ordering::Acquire);
        if let Some(value) = self.kept().find(key, self.budget_bytes) {
            return Ok(value);
        }
        let value = self.inner.get(key)?;
        let mut kept = self.kept();
        if self.batches.load(Ordering::Acquire) == before {
            kept.keep(key.to_vec(), value.clone(), self.budget_bytes);
        }
        Ok(value)
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        self.inner.scan(range, entry_count_max)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        let keys = keys_of(&batch);
        self.batches.fetch_add(1, Ordering::AcqRel);
        let applied = self.inner.apply(batch);
        // Forgotten whether the batch applied or not (a failed one may have).
        self.forget_keys(&keys);
        applied
    }

    fn forget(&self, batch: &WriteBatch) {
        self.batches.fetch_add(1, Ordering::AcqRel);
        self.forget_keys(&keys_of(batch));
    }

    fn flush(&self) -> Result<()> {
        self.inner.flush()
    }

    fn reopen(&self) -> Result<()> {
        self.batches.fetch_add(1, Ordering::AcqRel);
        let reopened = self.inner.reopen();
        let mut kept = self.kept();
        kept.clear();
        self.batches.fetch_add(1, Ordering::AcqRel);
        drop(kept);
        reopened
    }

    fn writable(&self) -> Result<()> {
        self.inner.writable()
    }

    fn size_on_disk(&self) -> Result<Option<u64>> {
        self.inner.size_on_disk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::MemoryBackend;

    fn put(backend: &dyn KvBackend, key: &[u8], value: &[u8]) {
        let mut batch = WriteBatch::new();
        batch.put(key.to_vec(), value.to_vec());
        backend.apply(batch).unwrap();
    }

    fn read(backend: &dyn KvBackend, key: &[u8]) -> Option<Vec<u8>> {
        backend.get(key).unwrap().map(|value| value.to_vec())
    }

    #[test]
    fn reads_answer_as_the_backend_through_puts_and_deletes() {
        // Goal: the cache never answers what the backend would not, over a seeded random
        // sequence of reads and batches on a small key space (so keys are re-read, kept,
        // changed and forgotten), with a budget small enough to turn generations over.
        let memory = Arc::new(MemoryBackend::new());
        let cached = ReadCache::new(memory.clone(), 2_000);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for step in 0..20_000 {
            let key = [b'k', (next() % 40) as u8];
            match next() % 4 {
                0 => put(&cached, &key, &step.to_string().into_bytes()),
                1 => {
                    let mut batch = WriteBatch::new();
                    batch.delete(key.to_vec());
                    cached.apply(batch).unwrap();
                }
                _ => assert_eq!(read(&cached, &key), read(memory.as_ref(), &key), "{step}"),
            }
            assert!(cached.kept_bytes() <= 2_000);
        }
    }

    #[test]
    fn a_read_racing_a_batch_never_keeps_the_value_it_replaced() {
        // Goal: readers that missed while a writer replaced the value never make the cache
        // answer an older value than the backend's once the writer is done.
        let memory = Arc::new(MemoryBackend::new());
        let cached = Arc::new(ReadCache::new(memory.clone(), 1 << 20));
        put(cached.as_ref(), b"k", b"0");
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let cached = Arc::clone(&cached);
                std::thread::spawn(move || {
                    let mut last = 0u32;
                    for _ in 0..20_000 {
                        let seen: u32 = String::from_utf8(read(cached.as_ref(), b"k").unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        assert!(seen >= last, "went back from {last} to {seen}");
                        last = seen;
                    }
                })
            })
            .collect();
        for value in 1..=2_000u32 {
            put(cached.as_ref(), b"k", value.to_string().as_bytes());
        }
        for reader in readers {
            reader.join().unwrap();
        }
        assert_eq!(read(cached.as_ref(), b"k"), Some(b"2000".to_vec()));
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let memory = Arc::new(MemoryBackend::new());
        let cached = ReadCache::new(memory.clone(), 0);
        put(&cached, b"k", b"v");
        assert_eq!(read(&cached, b"k"), Some(b"v".to_vec()));
        assert_eq!(cached.kept_bytes(), 0);
    }
}
