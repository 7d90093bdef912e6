//! Tables as last encoded, so that a table read again unchanged costs a comparison and a copy
//! instead of a validation and an encoding. An entry is reused only when the stored archive is
//! byte for byte the one it was made from, so a changed table never answers stale bytes and
//! nothing has to be invalidated.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::detect::Protocol;

/// How many encodings are kept (about 2.5 KB each for a 20-column table); when full, the
/// entries start over. Hot tables come back at once.
const ENTRY_COUNT_MAX: usize = 4096;

/// A table's archive and its encoding in one protocol.
struct Entry {
    archive: Vec<u8>,
    encoded: Vec<u8>,
}

/// Encoded tables by protocol (binary, compact) and stored key, shared by every connection.
#[derive(Default)]
pub struct EncodedTables {
    entries: Mutex<[HashMap<Vec<u8>, Entry>; 2]>,
}

fn protocol_index(protocol: Protocol) -> usize {
    match protocol {
        Protocol::Binary => 0,
        Protocol::Compact => 1,
    }
}

impl EncodedTables {
    /// Hands `use_encoded` the encoding of the table stored at `key` as `archive`, if one was
    /// made from these very bytes. Returns whether it did.
    pub(crate) fn use_if_current(
        &self,
        key: &[u8],
        protocol: Protocol,
        archive: &[u8],
        use_encoded: impl FnOnce(&[u8]),
    ) -> bool {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries[protocol_index(protocol)].get(key) {
            Some(entry) if entry.archive == archive => {
                use_encoded(&entry.encoded);
                true
            }
            _ => false,
        }
    }

    /// Keeps `encoded`, made from `archive` stored at `key`.
    pub(crate) fn insert(&self, key: &[u8], protocol: Protocol, archive: &[u8], encoded: &[u8]) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entries = &mut entries[protocol_index(protocol)];
        if entries.len() >= ENTRY_COUNT_MAX {
            entries.clear();
        }
        let entry = Entry {
            archive: archive.to_vec(),
            encoded: encoded.to_vec(),
        };
        entries.insert(key.to_vec(), entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current(
        tables: &EncodedTables,
        key: &[u8],
        protocol: Protocol,
        archive: &[u8],
    ) -> Option<Vec<u8>> {
        let mut found = None;
        tables.use_if_current(key, protocol, archive, |bytes| found = Some(bytes.to_vec()));
        found
    }

    #[test]
    fn an_encoding_is_reused_only_for_the_same_bytes_key_and_protocol() {
        let tables = EncodedTables::default();
        tables.insert(b"t1", Protocol::Binary, b"archive", b"binary encoding");
        tables.insert(b"t1", Protocol::Compact, b"archive", b"compact encoding");
        let binary = current(&tables, b"t1", Protocol::Binary, b"archive");
        assert_eq!(binary.as_deref(), Some(&b"binary encoding"[..]));
        let compact = current(&tables, b"t1", Protocol::Compact, b"archive");
        assert_eq!(compact.as_deref(), Some(&b"compact encoding"[..]));
        // The table changed: its stored bytes differ, the old encoding is never used.
        assert_eq!(current(&tables, b"t1", Protocol::Binary, b"archivf"), None);
        assert_eq!(current(&tables, b"t2", Protocol::Binary, b"archive"), None);
        tables.insert(b"t1", Protocol::Binary, b"archivf", b"new encoding");
        let binary = current(&tables, b"t1", Protocol::Binary, b"archivf");
        assert_eq!(binary.as_deref(), Some(&b"new encoding"[..]));
    }

    #[test]
    fn full_kept_encodings_start_over() {
        let tables = EncodedTables::default();
        for index in 0..ENTRY_COUNT_MAX + 1 {
            let key = index.to_be_bytes();
            tables.insert(&key, Protocol::Binary, b"a", b"e");
        }
        let entries = tables.entries.lock().unwrap();
        assert_eq!(entries[0].len(), 1);
    }
}
