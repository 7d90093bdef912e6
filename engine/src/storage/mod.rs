//! The storage core: an ordered key-value store and how the catalog is laid out in it.
//!
//! - [`kv`]: the [`kv::KvBackend`] trait, the one seam a backend plugs into, with sled,
//!   in-memory and simulated-disk backends. Nothing outside this folder names a backend's
//!   own types: the store is opened through [`open_disk_backend`].
//! - [`keys`] and [`values`]: the byte layout (`docs/storage-format.md`): order-preserving
//!   keys, and values as rkyv archives read in place.
//! - [`size`]: the live data per keyspace and the bytes on disk.
//! - `commit`: group commit, many writers sharing one flush.
//! - `visibility`: read marks, so that an answer shows only durable state.
//! - `consistent`: per-table versions that let partition listings see whole batches.
//! - `changes`: the change log, what each batch changed, for readers beside the writer.

pub(crate) mod changes;
pub(crate) mod commit;
pub(crate) mod consistent;
pub mod keys;
pub mod kv;
pub mod size;
pub mod values;
pub(crate) mod visibility;

use std::path::Path;
use std::sync::Arc;

use crate::error::Result;

/// The on-disk backend a [`crate::Store`] is opened over, in `data_dir`, with its page cache
/// the room it keeps free on its disk (see [`kv::SledBackend::open_with_reserve`]), and whether
/// a store it creates compresses its log.
pub(crate) fn open_disk_backend(
    data_dir: &Path,
    page_cache_bytes: u64,
    disk_reserve_bytes: u64,
    compress_new: bool,
) -> Result<Arc<dyn kv::KvBackend>> {
    let backend =
        kv::SledBackend::open_with(data_dir, page_cache_bytes, disk_reserve_bytes, compress_new)?;
    Ok(Arc::new(backend))
}
