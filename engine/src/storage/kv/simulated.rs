//! A backend that fails as a disk does, for tests of what survives: a crash loses every batch
//! applied since the last flush (a `kill -9` keeps the page cache, so it cannot show this), and
//! a full disk fails applies and flushes, after which nothing more is written until the
//! backend is opened again, as sled behaves.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::{KeyRange, KvBackend, KvBytes, MemoryBackend, WriteBatch};
use crate::error::{Error, Result};

/// A disk in memory: what reads see, what a crash keeps, and switches for faults.
#[derive(Debug, Default)]
pub struct SimulatedDisk {
    /// What reads see: the durable state and every batch applied since.
    live: MemoryBackend,
    /// What a crash keeps: the state as of the last successful flush.
    durable: MemoryBackend,
    /// Batches applied since the last successful flush, in order.
    unflushed: Mutex<Vec<WriteBatch>>,
    /// Flushes of anything applied fail while set, as on a full disk (an apply goes to memory,
    /// as sled's does, and succeeds).
    full: AtomicBool,
    /// Set by a flush that failed for want of room; [`KvBackend::writable`] refuses writes
    /// while it is set and the disk is still full, as the sled backend does once it has given
    /// up its reserve.
    short: AtomicBool,
    /// Set by a failure; every later apply and flush fails until [`KvBackend::reopen`].
    failed: AtomicBool,
    flush_count: AtomicU64,
}

impl SimulatedDisk {
    /// An empty disk with room.
    pub fn new() -> Self {
        SimulatedDisk::default()
    }

    /// Makes the disk full (`true`) or gives it room again (`false`).
    pub fn set_full(&self, full: bool) {
        self.full.store(full, Ordering::SeqCst);
    }

    /// Loses every batch applied since the last successful flush, as a power cut does. The
    /// store over this disk must be dropped first and opened again after.
    pub fn crash(&self) {
        let mut unflushed = lock(&self.unflushed);
        self.live
            .copy_from(&self.durable)
            .expect("the simulated disk's maps are never poisoned");
        unflushed.clear();
        self.failed.store(false, Ordering::SeqCst);
    }

    /// How many flushes succeeded.
    pub fn flush_count(&self) -> u64 {
        self.flush_count.load(Ordering::SeqCst)
    }

    /// How many batches a crash now would lose.
    pub fn unflushed_batch_count(&self) -> usize {
        lock(&self.unflushed).len()
    }

    fn refuse_after_failure(&self) -> Result<()> {
        if self.failed.load(Ordering::SeqCst) {
            return Err(Error::Storage(
                "the simulated disk failed earlier and takes nothing until it is opened again"
                    .to_string(),
            ));
        }
        Ok(())
    }

    fn fail_full(&self, doing: &str) -> Error {
        self.failed.store(true, Ordering::SeqCst);
        self.short.store(true, Ordering::SeqCst);
        Error::DiskFull(format!("the simulated disk is full while {doing}"))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl KvBackend for SimulatedDisk {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.live.get(key)
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        self.live.scan(range, entry_count_max)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        self.refuse_after_failure()?;
        let mut unflushed = lock(&self.unflushed);
        self.live.apply(batch.clone())?;
        unflushed.push(batch);
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        self.refuse_after_failure()?;
        let mut unflushed = lock(&self.unflushed);
        if unflushed.is_empty() {
            return Ok(());
        }
        if self.full.load(Ordering::SeqCst) {
            // What was applied stays readable, as sled's does, until the disk is opened again.
            return Err(self.fail_full("flushing"));
        }
        for batch in unflushed.drain(..) {
            self.durable.apply(batch)?;
        }
        self.flush_count.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn reopen(&self) -> Result<()> {
        self.crash();
        Ok(())
    }

    fn writable(&self) -> Result<()> {
        if !self.short.load(Ordering::SeqCst) {
            return Ok(());
        }
        if self.full.load(Ordering::SeqCst) {
            return Err(Error::DiskFull("the simulated disk is full".to_string()));
        }
        self.short.store(false, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &[u8]) -> WriteBatch {
        let mut batch = WriteBatch::new();
        batch.put(key.to_vec(), b"v".to_vec());
        batch
    }

    #[test]
    fn a_crash_keeps_what_was_flushed_and_nothing_after() {
        let disk = SimulatedDisk::new();
        disk.apply(put(b"a")).unwrap();
        disk.flush().unwrap();
        disk.apply(put(b"b")).unwrap();
        assert!(disk.get(b"b").unwrap().is_some());
        assert_eq!(disk.unflushed_batch_count(), 1);
        disk.crash();
        assert!(disk.get(b"a").unwrap().is_some());
        assert!(disk.get(b"b").unwrap().is_none());
    }

    #[test]
    fn a_full_disk_fails_until_reopened_with_room() {
        let disk = SimulatedDisk::new();
        disk.apply(put(b"a")).unwrap();
        disk.set_full(true);
        assert!(matches!(disk.flush(), Err(Error::DiskFull(_))));
        // Applied but not durable: readable until the reopen, like sled.
        assert!(disk.get(b"a").unwrap().is_some());
        assert!(disk.writable().is_err(), "refused while short of room");
        disk.set_full(false);
        assert!(disk.apply(put(b"b")).is_err(), "sticky until reopened");
        disk.reopen().unwrap();
        disk.writable().unwrap();
        assert!(disk.get(b"a").unwrap().is_none());
        disk.apply(put(b"b")).unwrap();
        disk.flush().unwrap();
        disk.crash();
        assert!(disk.get(b"b").unwrap().is_some());
    }
}
