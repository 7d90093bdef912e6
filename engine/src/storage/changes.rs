//! The change log: what each batch changed, stored with the batch, so that processes that
//! read a shared backend beside its one writer (reading servers over PostgreSQL) keep what
//! they keep in memory as current as the writer keeps its own.
//!
//! The writer numbers its batches (`version`, from 1) and stages in each one an entry under
//! `0x39 + version` naming every key the batch puts or deletes, with the values its readers'
//! change records decode (statistics slot index entries, a few bytes each), and the version
//! at [`keys::META_CHANGE_VERSION`]. Each batch also deletes the entry
//! [`CHANGE_LOG_WINDOW`] versions older, so the log holds a bounded window. A reader asks
//! for the entries after the last version it saw (one range scan): none means it is
//! current; a gap before the first means the window moved past it, and it forgets
//! everything it keeps, as after a failed write.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::Result;
use crate::storage::keys;
use crate::storage::kv::{self, KeyRange, KvBackend, WriteBatch, WriteOp};
use crate::storage::values::{self, stored_value, ValueKind};

/// How many versions the log keeps: a reader further behind forgets everything it keeps.
pub const CHANGE_LOG_WINDOW: u64 = 4_096;
/// At most this many entries are read by one catch-up; a reader further behind forgets
/// everything instead of replaying them.
pub(crate) const CATCH_UP_ENTRY_COUNT_MAX: usize = 1_024;

/// One key a batch changed.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct ChangedKey {
    pub key: Vec<u8>,
    /// `false`: deleted.
    pub put: bool,
    /// The value put, for the keys whose values readers' change records decode; empty
    /// otherwise.
    pub value: Vec<u8>,
}

/// The keys one batch changed.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct ChangeEntry {
    pub keys: Vec<ChangedKey>,
}

stored_value!(ChangeEntry, ValueKind::ChangeEntry);

/// Whether a reader needs the value put at `key`, not only the key.
fn value_needed(key: &[u8]) -> bool {
    keys::stats_slot_table_id(key).is_some()
}

/// The entry of `batch`.
fn entry_of(batch: &WriteBatch) -> ChangeEntry {
    let keys = batch
        .ops()
        .iter()
        .map(|op| match op {
            WriteOp::Put { key, value } => ChangedKey {
                key: key.clone(),
                put: true,
                value: if value_needed(key) {
                    value.clone()
                } else {
                    Vec::new()
                },
            },
            WriteOp::Delete { key } => ChangedKey {
                key: key.clone(),
                put: false,
                value: Vec::new(),
            },
        })
        .collect();
    ChangeEntry { keys }
}

/// Stages into `batch` its entry as version `version`, the version itself, and the removal
/// of the entry that leaves the window.
pub(crate) fn stage(batch: &mut WriteBatch, version: u64) -> Result<()> {
    let entry = values::encode(&entry_of(batch))?;
    batch.put(keys::change_key(version), entry);
    batch.put(
        keys::meta_key(keys::META_CHANGE_VERSION),
        version.to_be_bytes().to_vec(),
    );
    if version > CHANGE_LOG_WINDOW {
        batch.delete(keys::change_key(version - CHANGE_LOG_WINDOW));
    }
    Ok(())
}

/// The last version written, 0 for a store whose batches were never logged.
pub(crate) fn read_version(backend: &dyn KvBackend) -> Result<u64> {
    let key = keys::meta_key(keys::META_CHANGE_VERSION);
    match backend.get(&key)? {
        Some(stored) => keys::decode_id_value(&key, &stored),
        None => Ok(0),
    }
}

/// What a reader at some version has to do to be current.
pub(crate) enum Since {
    /// Nothing was written after it.
    Current,
    /// These batches were, in order: the keys each changed, as a batch (the values only
    /// where [`value_needed`]), and the version it reaches.
    Batches(Vec<WriteBatch>, u64),
    /// More was written than the log still holds, or than one catch-up replays: forget
    /// everything, then be at this version.
    Lost(u64),
}

/// What was written after `version`.
pub(crate) fn read_since(backend: &dyn KvBackend, version: u64) -> Result<Since> {
    let range = KeyRange {
        start: std::ops::Bound::Included(keys::change_key(version + 1)),
        end: std::ops::Bound::Excluded(vec![keys::KEYSPACE_CHANGE + 1]),
    };
    let mut batches = Vec::new();
    let mut expected = version + 1;
    let mut scan = kv::scan(backend, range, kv::SCAN_PAGE_ENTRY_COUNT);
    for entry in scan.by_ref() {
        let (key, value) = entry?;
        let found = keys::decode_change_key(&key)?;
        if found != expected || batches.len() == CATCH_UP_ENTRY_COUNT_MAX {
            // Behind the window, or too far behind to replay: the newest version is the
            // writer's counter.
            return Ok(Since::Lost(read_version(backend)?.max(found)));
        }
        let mut batch = WriteBatch::new();
        for changed in values::decode::<ChangeEntry>(key, value)?.keys {
            if changed.put {
                batch.put(changed.key, changed.value);
            } else {
                batch.delete(changed.key);
            }
        }
        batches.push(batch);
        expected += 1;
    }
    if batches.is_empty() {
        return Ok(Since::Current);
    }
    Ok(Since::Batches(batches, expected - 1))
}
