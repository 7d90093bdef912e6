//! A dump written into a new store: block by block, each block one batch, flushed every
//! [`RESTORE_FLUSH_BYTES`], then counted again against the trailer. Into a directory, the
//! store is built beside it and renamed into place only once complete, so that a refused or
//! interrupted restore leaves the target as it was.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::backup::format::{DumpHeader, DumpReader};
use crate::error::{Error, Result};
use crate::storage::kv::{self, KeyRange, KvBackend, SledBackend, WriteBatch};
use crate::storage::size::{measure_live, LiveSize};

/// The bytes restored between two flushes.
pub const RESTORE_FLUSH_BYTES: u64 = 64 * 1024 * 1024;

/// How a restore makes its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestoreOptions {
    /// The sled page cache while restoring, in bytes.
    pub page_cache_bytes: u64,
    /// Whether the new store compresses sled's log (what `serve` would make).
    pub compress: bool,
}

/// What a restore wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreSummary {
    /// The dump's header.
    pub header: DumpHeader,
    /// The keys and bytes per keyspace restored, counted again in the new store.
    pub sizes: LiveSize,
    /// The bytes of the dump read.
    pub dump_bytes: u64,
}

/// Writes the dump in `input` into `backend`, which must hold no key. A restore that fails
/// part way (a refused block, a store that fails) deletes again what it wrote, so that the
/// store is left empty as it was found (as far as the store still takes writes: the error
/// says when it did not).
pub fn restore_into_backend<R: Read>(input: R, backend: &dyn KvBackend) -> Result<RestoreSummary> {
    if let Some(entry) = kv::scan(backend, KeyRange::all(), 1).next() {
        let (key, _) = entry?;
        return Err(Error::InvalidOperation(format!(
            "cannot restore into a store that holds keys (it holds {})",
            crate::error::escape_bytes(&key)
        )));
    }
    let restored = restore_blocks(input, backend);
    if let Err(error) = &restored {
        if let Err(cleanup) = delete_all(backend) {
            return Err(Error::Storage(format!(
                "{error}; what was restored before could not be deleted again: {cleanup}"
            )));
        }
    }
    restored
}

/// Deletes every key of `backend`, a page of keys a batch.
fn delete_all(backend: &dyn KvBackend) -> Result<()> {
    loop {
        let page = backend.scan(&KeyRange::all(), kv::SCAN_PAGE_ENTRY_COUNT_MAX)?;
        if page.is_empty() {
            return backend.flush();
        }
        let mut batch = WriteBatch::new();
        for (key, _) in &page {
            batch.delete(key.to_vec());
        }
        backend.apply(batch)?;
    }
}

fn restore_blocks<R: Read>(input: R, backend: &dyn KvBackend) -> Result<RestoreSummary> {
    let mut reader = DumpReader::open(input)?;
    let mut unflushed_bytes = 0u64;
    while let Some(block) = reader.next_block()? {
        let mut batch = WriteBatch::new();
        for (key, value) in block.entries() {
            batch.put(key, value);
        }
        backend.apply(batch)?;
        unflushed_bytes += block.payload_bytes() as u64;
        if unflushed_bytes >= RESTORE_FLUSH_BYTES {
            backend.flush()?;
            unflushed_bytes = 0;
        }
    }
    backend.flush()?;
    let declared = reader
        .counts()
        .cloned()
        .ok_or_else(|| Error::Internal("a dump read to its end has its counts".to_string()))?;
    let sizes = measure_live(backend)?;
    if sizes != declared {
        return Err(Error::Storage(format!(
            "the restored store holds {} keys and {} bytes where the dump holds {} keys and {} bytes",
            sizes.keys(),
            sizes.live_bytes(),
            declared.keys(),
            declared.live_bytes()
        )));
    }
    Ok(RestoreSummary {
        header: reader.header().clone(),
        sizes,
        dump_bytes: reader.bytes_read(),
    })
}

/// Restores the dump in `input` as a new store in `data_dir`, which must not exist or be an
/// empty directory. The store is built in a directory beside it (`.NAME.restoring-PID`) and
/// renamed to `data_dir` once complete and counted; on any error that directory is removed.
pub fn restore_into_dir<R: Read>(
    input: R,
    data_dir: &Path,
    options: RestoreOptions,
) -> Result<RestoreSummary> {
    check_target(data_dir)?;
    let building = building_dir(data_dir)?;
    std::fs::create_dir(&building)
        .map_err(|error| Error::Storage(format!("cannot make {}: {error}", building.display())))?;
    let restored = restore_built(input, &building, options).and_then(|summary| {
        std::fs::rename(&building, data_dir).map_err(|error| {
            Error::Storage(format!(
                "cannot rename {} to {}: {error}",
                building.display(),
                data_dir.display()
            ))
        })?;
        sync_parent(data_dir)?;
        Ok(summary)
    });
    if restored.is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    restored
}

fn restore_built<R: Read>(input: R, dir: &Path, options: RestoreOptions) -> Result<RestoreSummary> {
    // No disk reserve: the server makes its own when it opens the store.
    let backend = SledBackend::open_with(dir, options.page_cache_bytes, 0, options.compress)?;
    let summary = restore_into_backend(input, &backend)?;
    drop(backend);
    Ok(summary)
}

/// `Err` unless `data_dir` is absent or an empty directory.
fn check_target(data_dir: &Path) -> Result<()> {
    match std::fs::read_dir(data_dir) {
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(Error::InvalidOperation(format!(
                "cannot restore into {}: it is not empty (restore into a new directory)",
                data_dir.display()
            ))),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(Error::InvalidOperation(format!(
            "cannot restore into {}: {error}",
            data_dir.display()
        ))),
    }
}

fn building_dir(data_dir: &Path) -> Result<PathBuf> {
    let name = data_dir
        .file_name()
        .ok_or_else(|| Error::InvalidInput(format!("{} names no directory", data_dir.display())))?;
    let parent = data_dir
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty());
    let building = format!(
        ".{}.restoring-{}",
        name.to_string_lossy(),
        std::process::id()
    );
    Ok(parent.unwrap_or_else(|| Path::new(".")).join(building))
}

/// Makes the rename durable: fsync of the directory holding `path`.
fn sync_parent(path: &Path) -> Result<()> {
    let parent = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty());
    let parent = parent.unwrap_or_else(|| Path::new("."));
    std::fs::File::open(parent)
        .and_then(|dir| dir.sync_all())
        .map_err(|error| Error::Storage(format!("cannot sync {}: {error}", parent.display())))
}
