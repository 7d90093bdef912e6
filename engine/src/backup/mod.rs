//! Backups: a store's keys and values written to a portable, checksummed stream and read
//! back (`docs/backup-format.md`), an integrity check of a store, and a consistent dump of a
//! store being written.
//!
//! - `format`: the dump format, byte by byte: [`DumpWriter`] and [`DumpReader`].
//! - `dump`: a dump of a store nobody writes (`hivestore dump`).
//! - `restore`: a dump written into a new store (`hivestore restore`).
//! - `check`: a store's integrity, offline (`hivestore check`).
//! - `snapshot`: the before-images that let a served store dump itself as of one moment
//!   while writers go on ([`crate::Store::dump_snapshot`]).

mod check;
mod dump;
mod format;
mod restore;
pub(crate) mod snapshot;

pub use check::{check_backend, CheckSummary, Problem};
pub use dump::dump_backend;
pub use format::{
    Block, Compression, DumpHeader, DumpReader, DumpSummary, DumpWriter, BLOCK_HEADER_LEN,
    BLOCK_PAYLOAD_BYTES_MAX, DUMP_BLOCK_BYTES, DUMP_FORMAT_VERSION, DUMP_MAGIC, ENTRY_BYTES_MAX,
    HEADER_LEN, ZSTD_LEVEL,
};
pub use restore::{
    restore_into_backend, restore_into_dir, RestoreOptions, RestoreSummary, RESTORE_FLUSH_BYTES,
};
pub use snapshot::{SnapshotOptions, SNAPSHOT_IMAGE_BYTES_MAX_DEFAULT};
