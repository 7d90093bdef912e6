//! The embedded default backend, over `sled` 0.34. The only file that knows
//! sled.

use std::path::Path;

use super::{KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT_MAX};
use crate::error::{Error, Result};

/// sled's page cache by default (`StoreOptions::page_cache_bytes`, `--cache-mb`). Names and
/// partitions are kept apart once listed (`name_listing.rs`), so the cache mostly serves the
/// first listing after a write. With a million partitions (2 keys, 20 columns) the whole 1M
/// listing suite peaked at 1.08-1.12 GB of RSS with 256 MiB and 0.94-0.95 GB with 128 MiB
/// (issue 4 wants under 1 GB); the first listings after a write were slower with 128 MiB
/// (`hr = 7` 19 against 12 ms, `trino_plan` 142 against 89 ms), the kept ones as fast.
pub const PAGE_CACHE_BYTES_DEFAULT: u64 = 128 * 1024 * 1024;

/// A sled database in a directory; everything lives in its default tree.
#[derive(Debug, Clone)]
pub struct SledBackend {
    db: sled::Db,
}

impl SledBackend {
    /// Opens (creating if missing) the sled database in `path`, with a page cache of about
    /// `cache_bytes` (sled's own accounting).
    pub fn open(path: &Path, cache_bytes: u64) -> Result<Self> {
        // sled also flushes on its own every 500 ms; acknowledged writes do
        // not depend on it, since the engine flushes before acknowledging.
        let config = sled::Config::new().path(path).cache_capacity(cache_bytes);
        // A database just dropped in this process keeps its file lock until sled's flusher
        // thread has ended, some milliseconds later: reopening waits for it, for a while.
        let mut waited = std::time::Duration::ZERO;
        loop {
            match config.open() {
                Ok(db) => return Ok(SledBackend { db }),
                Err(sled::Error::Io(error)) if is_lock_held(&error) && waited < LOCK_WAIT_LIMIT => {
                    std::thread::sleep(LOCK_WAIT_STEP);
                    waited += LOCK_WAIT_STEP;
                }
                Err(error) => {
                    return Err(storage_error(error, &format!("opening {}", path.display())))
                }
            }
        }
    }
}

/// Whether an open failed because another handle holds the database's file lock. sled 0.34
/// reports it as an error of kind `Other` whose text names the lock (and the `WouldBlock`
/// beneath), so the kind alone never matches.
fn is_lock_held(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::WouldBlock
        || error.to_string().starts_with("could not acquire lock on")
}

/// How long an open waits for another handle's lock on the database to go, and in what steps.
const LOCK_WAIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);
const LOCK_WAIT_STEP: std::time::Duration = std::time::Duration::from_millis(10);

fn storage_error(error: sled::Error, doing: &str) -> Error {
    match error {
        sled::Error::Corruption { at, .. } => Error::Corruption {
            key: format!("(sled log offset {at:?})"),
            reason: format!("sled found corruption while {doing}"),
        },
        other => Error::Storage(format!("sled failed while {doing}: {other}")),
    }
}

impl KvBackend for SledBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        let value = self
            .db
            .get(key)
            .map_err(|error| storage_error(error, "reading a key"))?;
        Ok(value.map(KvBytes::from_sled))
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        assert!(entry_count_max <= SCAN_PAGE_ENTRY_COUNT_MAX);
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let bounds = (range.start.clone(), range.end.clone());
        let mut entries = Vec::with_capacity(entry_count_max.min(256));
        for entry in self.db.range::<Vec<u8>, _>(bounds).take(entry_count_max) {
            let (key, value) = entry.map_err(|error| storage_error(error, "scanning keys"))?;
            entries.push((KvBytes::from_sled(key), KvBytes::from_sled(value)));
        }
        Ok(entries)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        let mut sled_batch = sled::Batch::default();
        for op in batch.into_ops() {
            match op {
                WriteOp::Put { key, value } => sled_batch.insert(key, value),
                WriteOp::Delete { key } => sled_batch.remove(key),
            }
        }
        self.db
            .apply_batch(sled_batch)
            .map_err(|error| storage_error(error, "applying a batch"))
    }

    fn flush(&self) -> Result<()> {
        self.db
            .flush()
            .map(|_| ())
            .map_err(|error| storage_error(error, "flushing to disk"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_waits_for_a_handle_dropped_meanwhile() {
        // Goal: the wait for the file lock applies to sled's own lock error; before, its kind
        // (`Other`) slipped past the check and a reopen failed at once.
        let dir = tempfile::tempdir().unwrap();
        let first = SledBackend::open(dir.path(), PAGE_CACHE_BYTES_DEFAULT).unwrap();
        let holder = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(first);
        });
        let second = SledBackend::open(dir.path(), PAGE_CACHE_BYTES_DEFAULT);
        holder.join().unwrap();
        assert!(second.is_ok(), "{:?}", second.err());
    }
}
