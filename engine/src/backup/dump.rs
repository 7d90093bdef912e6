//! A dump of a store nobody writes meanwhile (sled locks its directory, so `hivestore dump`
//! runs on a stopped server's store): every key in order, page by page.

use std::io::Write;

use crate::backup::format::{Compression, DumpHeader, DumpSummary, DumpWriter};
use crate::error::Result;
use crate::storage::keys;
use crate::storage::kv::{self, KeyRange, KvBackend, SCAN_PAGE_ENTRY_COUNT};

/// Writes every entry of `backend` to `out` as a dump, and gives `out` back.
pub fn dump_backend<W: Write>(
    backend: &dyn KvBackend,
    out: W,
    compression: Compression,
) -> Result<(DumpSummary, W)> {
    let header = DumpHeader::now(store_uuid(backend)?, compression);
    let mut writer = DumpWriter::start(out, &header)?;
    for entry in kv::scan(backend, KeyRange::all(), SCAN_PAGE_ENTRY_COUNT) {
        let (key, value) = entry?;
        writer.push(&key, &value)?;
    }
    writer.finish()
}

/// The store's UUID as its meta entry holds it, or empty for a store without one.
pub(crate) fn store_uuid(backend: &dyn KvBackend) -> Result<String> {
    let stored = backend.get(&keys::meta_key(keys::META_DB_UUID))?;
    Ok(stored.map_or_else(String::new, |bytes| {
        String::from_utf8_lossy(&bytes).into_owned()
    }))
}
