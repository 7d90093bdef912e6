//! The embedded default backend, over `sled` 0.34. The only file that knows
//! sled.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock};

use super::{KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT_MAX};
use crate::error::{Error, Result};

/// sled's page cache by default (`StoreOptions::page_cache_bytes`, `--cache-mb`). Names and
/// partitions are kept apart once listed (`name_listing.rs`), so the cache mostly serves the
/// first listing after a write. With a million partitions (2 keys, 20 columns) the whole 1M
/// listing suite peaked at 1.08-1.12 GB of RSS with 256 MiB and 0.94-0.95 GB with 128 MiB
/// (issue 4 wants under 1 GB); the first listings after a write were slower with 128 MiB
/// (`hr = 7` 19 against 12 ms, `trino_plan` 142 against 89 ms), the kept ones as fast.
pub const PAGE_CACHE_BYTES_DEFAULT: u64 = 128 * 1024 * 1024;

/// The room on the store's disk kept free by default (`--disk-reserve-mb`), as a file of that
/// size in the data directory. sled writes when it opens (about 128 KiB for a small store, a
/// snapshot of its page table for a large one), so on a full disk a store whose flush failed
/// could not be opened again to drop the failed batch: deleting this file makes the room.
pub const DISK_RESERVE_BYTES_DEFAULT: u64 = 64 * 1024 * 1024;

/// The reserve file's name in the data directory.
pub const RESERVE_FILE_NAME: &str = "hivestore.reserve";

/// A sled database in a directory; everything lives in its default tree.
///
/// After a failed flush or apply, sled refuses every later write (and some reads) until it is
/// opened again, and what it had applied but not flushed would be readable until then:
/// [`KvBackend::reopen`] closes and opens it, which leaves exactly what is on disk. While the
/// disk is full, writes are refused before they reach sled ([`KvBackend::writable`]) until
/// there is room for the reserve and as much again.
#[derive(Debug)]
pub struct SledBackend {
    /// `None` between closing and opening again, and after an open that failed.
    db: RwLock<Option<sled::Db>>,
    path: PathBuf,
    cache_bytes: u64,
    /// Whether a store created here compresses its log.
    compress_new: bool,
    reserve: Reserve,
}

impl SledBackend {
    /// Opens (creating if missing) the sled database in `path`, with a page cache of about
    /// `cache_bytes` (sled's own accounting), and [`DISK_RESERVE_BYTES_DEFAULT`] kept free.
    pub fn open(path: &Path, cache_bytes: u64) -> Result<Self> {
        SledBackend::open_with_reserve(path, cache_bytes, DISK_RESERVE_BYTES_DEFAULT)
    }

    /// [`SledBackend::open`] keeping `reserve_bytes` free on the disk (0: none; a full disk
    /// then needs room made by hand before the store can drop a failed write).
    pub fn open_with_reserve(path: &Path, cache_bytes: u64, reserve_bytes: u64) -> Result<Self> {
        SledBackend::open_with(path, cache_bytes, reserve_bytes, true)
    }

    /// [`SledBackend::open_with_reserve`], compressing the log of a store it creates when
    /// `compress_new` is set (a store that exists keeps its setting).
    pub fn open_with(
        path: &Path,
        cache_bytes: u64,
        reserve_bytes: u64,
        compress_new: bool,
    ) -> Result<Self> {
        let db = open_db(path, cache_bytes, compress_new)?;
        let reserve = Reserve {
            path: path.join(RESERVE_FILE_NAME),
            bytes: reserve_bytes,
            short: AtomicBool::new(false),
        };
        reserve.fill_at_open();
        Ok(SledBackend {
            db: RwLock::new(Some(db)),
            path: path.to_path_buf(),
            cache_bytes,
            compress_new,
            reserve,
        })
    }

    /// The open database; `Err` when it could not be opened again.
    fn db(&self) -> Result<MappedDb<'_>> {
        let guard = self.db.read().unwrap_or_else(PoisonError::into_inner);
        if guard.is_none() {
            return Err(Error::Unavailable(format!(
                "the store in {} could not be opened again after a failed write; it is retried at the next write",
                self.path.display()
            )));
        }
        Ok(MappedDb(guard))
    }

    /// Gives up the disk reserve when `error` says the disk is full.
    fn note(&self, error: Error) -> Error {
        if matches!(error, Error::DiskFull(_)) && self.reserve.release() {
            tracing::warn!(%error, "the disk is full: gave up the disk reserve; writes are refused until there is room");
        }
        error
    }
}

/// A read guard of an open database.
struct MappedDb<'a>(std::sync::RwLockReadGuard<'a, Option<sled::Db>>);

impl std::ops::Deref for MappedDb<'_> {
    type Target = sled::Db;

    fn deref(&self) -> &sled::Db {
        self.0.as_ref().expect("checked when the guard was taken")
    }
}

/// Opens sled in `path`, waiting a while for a handle of this process that is closing.
fn open_db(path: &Path, cache_bytes: u64, compress_new: bool) -> Result<sled::Db> {
    // sled also flushes on its own every 500 ms; acknowledged writes do
    // not depend on it, since the engine flushes before acknowledging.
    let config = sled::Config::new()
        .path(path)
        .cache_capacity(cache_bytes)
        .use_compression(compresses(path, compress_new))
        .compression_factor(COMPRESSION_LEVEL);
    // A database just dropped in this process keeps its file lock until sled's flusher
    // thread has ended, some milliseconds later: reopening waits for it, for a while.
    let mut waited = std::time::Duration::ZERO;
    loop {
        match config.open() {
            Ok(db) => return Ok(db),
            Err(sled::Error::Io(error)) if is_lock_held(&error) && waited < LOCK_WAIT_LIMIT => {
                std::thread::sleep(LOCK_WAIT_STEP);
                waited += LOCK_WAIT_STEP;
            }
            Err(error) => return Err(storage_error(error, &format!("opening {}", path.display()))),
        }
    }
}

/// The zstd level of sled's log in stores that compress it: statistics chunks (arrays of
/// small numbers), partitions and events shrink to a fraction, and a write compresses only
/// what it logs. Reads of kept pages do not decompress (sled's cache holds them decoded).
pub const COMPRESSION_LEVEL: i32 = 3;

/// The file sled records its storage parameters in, in the data directory.
const SLED_CONF_FILE_NAME: &str = "conf";

/// Whether the store in `path` compresses its log. sled refuses to open a store with another
/// setting than it was created with, so a store created before compression keeps its
/// uncompressed log (until copied into a new one), and new stores compress when
/// `compress_new` says so.
fn compresses(path: &Path, compress_new: bool) -> bool {
    match std::fs::read(path.join(SLED_CONF_FILE_NAME)) {
        Ok(conf) => recorded_compression(&conf).unwrap_or(compress_new),
        Err(_) => compress_new,
    }
}

/// The `use_compression` line of sled's conf file, if it has one.
fn recorded_compression(conf: &[u8]) -> Option<bool> {
    conf.split(|byte| *byte == b'\n').find_map(|line| {
        let value = line.strip_prefix(b"use_compression: ")?;
        match value {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    })
}

/// The file that keeps room on the disk for reopening the database after it ran full.
#[derive(Debug)]
struct Reserve {
    path: PathBuf,
    bytes: u64,
    /// Set once the disk ran full (and the file was given up); cleared when there is room.
    short: AtomicBool,
}

impl Reserve {
    /// Makes the file at open; a disk too full for it starts the store refusing writes.
    fn fill_at_open(&self) {
        if self.bytes == 0 {
            let _ = std::fs::remove_file(&self.path);
            return;
        }
        if let Err(error) = self.fill() {
            tracing::warn!(%error, path = %self.path.display(), "cannot keep the disk reserve; writes wait for room");
            self.short.store(true, Ordering::SeqCst);
        }
    }

    /// Writes the file at its full size (allocated, so that it holds real blocks).
    fn fill(&self) -> std::io::Result<()> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.path)?;
        let result = fs2::FileExt::allocate(&file, self.bytes).and_then(|()| file.sync_all());
        if result.is_err() {
            drop(file);
            let _ = std::fs::remove_file(&self.path);
        }
        result
    }

    /// Gives the room up, so that sled can open on a full disk; returns whether it had any.
    fn release(&self) -> bool {
        self.short.store(true, Ordering::SeqCst);
        self.bytes > 0 && std::fs::remove_file(&self.path).is_ok()
    }

    /// While short: whether the disk has room for the reserve and as much again, in which
    /// case the reserve is made again and writes may go on.
    fn check(&self, data_dir: &Path) -> Result<()> {
        if !self.short.load(Ordering::SeqCst) {
            return Ok(());
        }
        let available = fs2::available_space(data_dir).unwrap_or(0);
        let wanted = self.bytes.saturating_mul(2).max(DISK_ROOM_MIN_BYTES);
        if available < wanted {
            return Err(Error::DiskFull(format!(
                "{} bytes are free on the disk of {}; writes resume once {wanted} are",
                available,
                data_dir.display()
            )));
        }
        if self.bytes > 0 {
            self.fill().map_err(|error| {
                Error::DiskFull(format!("cannot make the disk reserve again: {error}"))
            })?;
        }
        self.short.store(false, Ordering::SeqCst);
        tracing::info!(available, "the disk has room again; writes resume");
        Ok(())
    }
}

/// Without a reserve, the room a full disk must get back before writes are tried again.
const DISK_ROOM_MIN_BYTES: u64 = 4 * 1024 * 1024;

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
        sled::Error::Io(error) if error.kind() == std::io::ErrorKind::StorageFull => {
            Error::DiskFull(format!("sled failed while {doing}: {error}"))
        }
        other => Error::Storage(format!("sled failed while {doing}: {other}")),
    }
}

impl KvBackend for SledBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        let value = self
            .db()?
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
        let db = self.db()?;
        for entry in db.range::<Vec<u8>, _>(bounds).take(entry_count_max) {
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
        self.db()?
            .apply_batch(sled_batch)
            .map_err(|error| self.note(storage_error(error, "applying a batch")))
    }

    fn flush(&self) -> Result<()> {
        self.db()?
            .flush()
            .map(|_| ())
            .map_err(|error| self.note(storage_error(error, "flushing to disk")))
    }

    fn reopen(&self) -> Result<()> {
        let mut db = self.db.write().unwrap_or_else(PoisonError::into_inner);
        // sled holds its file lock until the old handle is gone.
        drop(db.take());
        let reopened = match open_db(&self.path, self.cache_bytes, self.compress_new) {
            Err(Error::DiskFull(first)) if self.reserve.release() => {
                tracing::warn!(error = %first, "the disk is full: gave up the disk reserve to reopen the store");
                open_db(&self.path, self.cache_bytes, self.compress_new)
            }
            other => other,
        };
        *db = Some(reopened.map_err(|error| self.note(error))?);
        Ok(())
    }

    fn writable(&self) -> Result<()> {
        self.reserve.check(&self.path)
    }

    fn size_on_disk(&self) -> Result<Option<u64>> {
        let bytes = self
            .db()?
            .size_on_disk()
            .map_err(|error| storage_error(error, "measuring its files"))?;
        Ok(Some(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_store_compresses_and_an_old_one_keeps_its_setting() {
        // Goal: sled refuses a compression setting other than the one a store was created
        // with, so stores made before compression must still open, uncompressed.
        let new = tempfile::tempdir().unwrap();
        let backend = SledBackend::open_with_reserve(new.path(), 1 << 20, 0).unwrap();
        drop(backend);
        assert!(compresses(new.path(), false));
        let plain = tempfile::tempdir().unwrap();
        drop(SledBackend::open_with(plain.path(), 1 << 20, 0, false).unwrap());
        assert!(!compresses(plain.path(), true));
        let old = tempfile::tempdir().unwrap();
        let db = sled::Config::new().path(old.path()).open().unwrap();
        db.insert(b"k", b"v").unwrap();
        db.flush().unwrap();
        drop(db);
        assert!(!compresses(old.path(), true));
        let backend = SledBackend::open_with_reserve(old.path(), 1 << 20, 0).unwrap();
        assert_eq!(backend.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert!(backend.size_on_disk().unwrap().unwrap() > 0);
    }

    #[test]
    fn the_conf_file_names_the_setting() {
        let conf = b"segment_size: 524288\nuse_compression: false\nversion: 0.34\n\x01\x02";
        assert_eq!(recorded_compression(conf), Some(false));
        assert_eq!(recorded_compression(b"use_compression: true\n"), Some(true));
        assert_eq!(recorded_compression(b"segment_size: 1\n"), None);
    }

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
