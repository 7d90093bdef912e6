//! A dump of a served store as of one moment, while writers go on.
//!
//! The dump walks the keys in order, a page at a time, and after each page moves a cursor to
//! the page's last key under the writer lock (every batch is applied under it). From the
//! moment the dump starts, a batch about to change a key past the cursor first saves the
//! key's value as it was (its before-image, `None` for a key that did not exist), once per
//! key. The dump takes a key's before-image when it reaches the key: the old value of a
//! changed key, a deleted key that is gone from the store, nothing for a key created since.
//! So the dump is the state at its start, whatever was written meanwhile. Pages are read
//! without the lock: a key of the page that has no before-image when the cursor passes it
//! was not written since the start, so the page read its value of then; writers wait only for
//! the cursor's move.
//!
//! That state is durable: the dump starts by settling every batch applied before it. The
//! before-images are bounded by [`SnapshotOptions::image_bytes_max`]: past it the dump fails
//! and says so, and writers never wait on it. A store that went back to its durable state
//! during the dump (a failed write) fails the dump too.

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::backup::dump::store_uuid;
use crate::backup::format::{Compression, DumpHeader, DumpSummary, DumpWriter};
use crate::error::{Error, Result};
use crate::storage::kv::{
    KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT,
};
use crate::store::Store;

/// The before-images a dump may hold by default, in bytes of keys and values.
pub const SNAPSHOT_IMAGE_BYTES_MAX_DEFAULT: u64 = 256 * 1024 * 1024;
/// What one before-image costs beyond its key and value: the map's node, counted so that
/// many small images are bounded too.
const IMAGE_OVERHEAD_BYTES: u64 = 64;

/// How a snapshot dump is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// The most bytes of before-images the dump holds; past it the dump fails.
    pub image_bytes_max: u64,
    /// How the dump's blocks are compressed.
    pub compression: Compression,
    /// The keys read per step (1 to the backend's page limit).
    pub page_entry_count: usize,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            image_bytes_max: SNAPSHOT_IMAGE_BYTES_MAX_DEFAULT,
            compression: Compression::Zstd,
            page_entry_count: SCAN_PAGE_ENTRY_COUNT,
        }
    }
}

/// The dump in progress, if any, as the store's writers see it.
#[derive(Default)]
pub(crate) struct Snapshots {
    /// Whether a capture is installed: writers look at the mutex only then.
    active: AtomicBool,
    capture: Mutex<Option<Capture>>,
}

/// Where the dump has got to, and the images saved past it.
struct Capture {
    /// The last key dumped; `None` before the first page.
    cursor: Option<Vec<u8>>,
    /// Every key of the store has been read.
    at_end: bool,
    images: BTreeMap<Vec<u8>, Option<KvBytes>>,
    image_bytes: u64,
    image_bytes_max: u64,
    /// Why the dump cannot go on, once it cannot.
    failure: Option<String>,
}

impl Capture {
    /// Whether the dump has yet to read `key`.
    fn ahead(&self, key: &[u8]) -> bool {
        !self.at_end && self.cursor.as_deref().is_none_or(|cursor| key > cursor)
    }
}

impl Snapshots {
    /// Before `batch` is applied, under the writer lock: saves the before-image of each key it
    /// changes that the dump has yet to read.
    pub(crate) fn save_before(&self, batch: &WriteBatch, backend: &dyn KvBackend) {
        if !self.active.load(Ordering::Acquire) {
            return;
        }
        let mut guard = self
            .capture
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(capture) = guard.as_mut() else {
            return;
        };
        for op in batch.ops() {
            if capture.failure.is_some() {
                return;
            }
            let key = match op {
                WriteOp::Put { key, .. } | WriteOp::Delete { key } => key,
            };
            if !capture.ahead(key) || capture.images.contains_key(key) {
                continue;
            }
            match backend.get(key) {
                Ok(before) => {
                    let value_len = before.as_ref().map_or(0, |value| value.len());
                    capture.image_bytes += (key.len() + value_len) as u64 + IMAGE_OVERHEAD_BYTES;
                    capture.images.insert(key.clone(), before);
                    if capture.image_bytes > capture.image_bytes_max {
                        capture.failure = Some(format!(
                            "writes during the backup changed more than {} bytes of keys it had yet to read (the before-image limit); retry when writes are fewer, or raise the limit",
                            capture.image_bytes_max
                        ));
                        capture.images.clear();
                    }
                }
                Err(error) => {
                    capture.failure =
                        Some(format!("cannot read a key's value before a write: {error}"));
                    capture.images.clear();
                }
            }
        }
    }

    fn with_capture<R>(&self, body: impl FnOnce(&mut Option<Capture>) -> R) -> R {
        let mut guard = self
            .capture
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        body(&mut guard)
    }

    fn end(&self) {
        self.with_capture(|capture| *capture = None);
        self.active.store(false, Ordering::Release);
    }
}

/// A snapshot dump under way: [`SnapshotDump::step`] until it returns `false`, then
/// [`SnapshotDump::finish`]. Dropping it ends the capture.
pub struct SnapshotDump<'s, W: Write> {
    store: &'s Store,
    writer: Option<DumpWriter<W>>,
    page_entry_count: usize,
    reopens_at_start: u64,
}

impl Store {
    /// Starts a dump of the store as it is now, durable (see `backup/snapshot.rs`); writes go
    /// on meanwhile. One dump at a time.
    pub fn begin_snapshot_dump<W: Write>(
        &self,
        out: W,
        options: &SnapshotOptions,
    ) -> Result<SnapshotDump<'_, W>> {
        let reopens_at_start = self.reopen_count();
        self.under_writer_lock(|| {
            self.snapshots.with_capture(|capture| {
                if capture.is_some() {
                    return Err(Error::InvalidOperation(
                        "a backup is already being made".to_string(),
                    ));
                }
                *capture = Some(Capture {
                    cursor: None,
                    at_end: false,
                    images: BTreeMap::new(),
                    image_bytes: 0,
                    image_bytes_max: options.image_bytes_max,
                    failure: None,
                });
                Ok(())
            })?;
            self.snapshots.active.store(true, Ordering::Release);
            Ok(())
        })?;
        let mut dump = SnapshotDump {
            store: self,
            writer: None,
            page_entry_count: options
                .page_entry_count
                .clamp(1, crate::kv::SCAN_PAGE_ENTRY_COUNT_MAX),
            reopens_at_start,
        };
        // Every batch applied before the capture is durable before the dump reads it.
        self.settle(self.read_mark())?;
        let header = DumpHeader::now(store_uuid(self.reader())?, options.compression);
        dump.writer = Some(DumpWriter::start(out, &header)?);
        Ok(dump)
    }

    /// Dumps the store as it is now to `out` while writes go on, and gives `out` back.
    pub fn dump_snapshot<W: Write>(
        &self,
        out: W,
        options: &SnapshotOptions,
    ) -> Result<(DumpSummary, W)> {
        let mut dump = self.begin_snapshot_dump(out, options)?;
        while dump.step()? {}
        dump.finish()
    }
}

impl<W: Write> SnapshotDump<'_, W> {
    /// Dumps the next page of keys; `false` once every key is dumped.
    pub fn step(&mut self) -> Result<bool> {
        let (page, images, more) = self.read_page()?;
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::Internal("a snapshot dump stepped after it ended".to_string()))?;
        let mut images = images.into_iter().peekable();
        for (key, value) in page {
            while let Some((image_key, _)) = images.peek() {
                if image_key.as_slice() >= &*key {
                    break;
                }
                if let Some((image_key, Some(image))) = images.next() {
                    writer.push(&image_key, &image)?;
                }
            }
            match images.peek() {
                Some((image_key, _)) if image_key.as_slice() == &*key => {
                    if let Some((_, Some(image))) = images.next() {
                        writer.push(&key, &image)?;
                    }
                }
                _ => writer.push(&key, &value)?,
            }
        }
        for (image_key, image) in images {
            if let Some(image) = image {
                writer.push(&image_key, &image)?;
            }
        }
        Ok(more)
    }

    /// The next page of the store, read without locks, and under the writer lock the cursor
    /// moved to its last key and the before-images saved for its range taken out of the
    /// capture; whether keys remain past it. A key of the page without a before-image was not
    /// written since the dump began (a write to a key past the cursor saves one first), so
    /// the page read it as it was then; a key with one is taken from its image.
    #[allow(clippy::type_complexity)]
    fn read_page(
        &self,
    ) -> Result<(
        Vec<(KvBytes, KvBytes)>,
        Vec<(Vec<u8>, Option<KvBytes>)>,
        bool,
    )> {
        let store = self.store;
        let cursor = store.snapshots.with_capture(|capture| {
            let capture = capture
                .as_ref()
                .ok_or_else(|| Error::Internal("a snapshot dump lost its capture".to_string()))?;
            Ok::<_, Error>((capture.at_end, capture.cursor.clone()))
        })?;
        let (at_end, cursor) = cursor;
        if at_end {
            return Ok((Vec::new(), Vec::new(), false));
        }
        let range = KeyRange {
            start: cursor.map_or(Bound::Unbounded, Bound::Excluded),
            end: Bound::Unbounded,
        };
        let page = store.reader().scan(&range, self.page_entry_count)?;
        let more = page.len() == self.page_entry_count;
        let last = page.last().map(|(key, _)| key.to_vec());
        store
            .under_writer_lock(|| {
                store.snapshots.with_capture(|capture| {
                    let capture = capture.as_mut().ok_or_else(|| {
                        Error::Internal("a snapshot dump lost its capture".to_string())
                    })?;
                    if let Some(failure) = &capture.failure {
                        return Err(Error::Unavailable(format!("the backup failed: {failure}")));
                    }
                    let images = match (more, last) {
                        (true, Some(last)) => {
                            let after = capture.images.split_off(&last);
                            let mut upto_last = std::mem::replace(&mut capture.images, after);
                            if let Some(image) = capture.images.remove(&last) {
                                upto_last.insert(last.clone(), image);
                            }
                            capture.cursor = Some(last);
                            upto_last
                        }
                        _ => {
                            capture.at_end = true;
                            std::mem::take(&mut capture.images)
                        }
                    };
                    capture.image_bytes = capture.image_bytes.saturating_sub(
                        images
                            .iter()
                            .map(|(key, value)| image_cost(key, value))
                            .sum(),
                    );
                    Ok((images.into_iter().collect(), more))
                })
            })
            .map(|(images, more)| (page, images, more))
    }

    /// Writes the trailer and gives the stream back; `Err` if the store went back to its
    /// durable state during the dump, which may then hold writes that were lost.
    pub fn finish(mut self) -> Result<(DumpSummary, W)> {
        if self.store.reopen_count() != self.reopens_at_start {
            return Err(Error::Unavailable(
                "the backup failed: a write failed during it and the store went back to its durable state; retry"
                    .to_string(),
            ));
        }
        let writer = self
            .writer
            .take()
            .ok_or_else(|| Error::Internal("a snapshot dump finished twice".to_string()))?;
        writer.finish()
    }
}

fn image_cost(key: &[u8], value: &Option<KvBytes>) -> u64 {
    (key.len() + value.as_ref().map_or(0, |value| value.len())) as u64 + IMAGE_OVERHEAD_BYTES
}

impl<W: Write> Drop for SnapshotDump<'_, W> {
    fn drop(&mut self) {
        self.store.snapshots.end();
    }
}
