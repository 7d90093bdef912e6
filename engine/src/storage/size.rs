//! What the store holds and what it takes on disk: per keyspace, the keys and the bytes of
//! their keys and values (the live data), and the backend's own files. The first is a scan of
//! every key, so it is taken on demand (`hivestore stats`) or now and then (the server's
//! size counters), never per call.

use crate::error::Result;
use crate::storage::keys;
use crate::storage::kv::{self, KeyRange, KvBackend, SCAN_PAGE_ENTRY_COUNT};

/// One keyspace's live data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyspaceSize {
    /// The keyspace's tag, the first byte of its keys.
    pub tag: u8,
    /// How many keys it holds.
    pub keys: u64,
    /// The bytes of those keys.
    pub key_bytes: u64,
    /// The bytes of their values.
    pub value_bytes: u64,
}

impl KeyspaceSize {
    /// Keys and values together.
    pub fn live_bytes(&self) -> u64 {
        self.key_bytes + self.value_bytes
    }

    /// The constant's name of the keyspace (`STATS_CHUNK`), or `?` for a tag the engine does
    /// not know.
    pub fn name(&self) -> &'static str {
        keyspace_name(self.tag)
    }
}

/// The live data of a whole store, keyspace by keyspace in tag order (only those holding
/// keys).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LiveSize {
    /// The keyspaces holding keys.
    pub keyspaces: Vec<KeyspaceSize>,
}

impl LiveSize {
    /// Keys and values of every keyspace.
    pub fn live_bytes(&self) -> u64 {
        self.keyspaces.iter().map(KeyspaceSize::live_bytes).sum()
    }

    /// How many keys the store holds.
    pub fn keys(&self) -> u64 {
        self.keyspaces.iter().map(|keyspace| keyspace.keys).sum()
    }
}

/// Counts every key of `backend`, in pages (each page one consistent read, the whole not one
/// snapshot: a store being written gives a figure of about then).
pub fn measure_live(backend: &dyn KvBackend) -> Result<LiveSize> {
    let mut by_tag = [KeyspaceSize::default(); 256];
    for entry in kv::scan(backend, KeyRange::all(), SCAN_PAGE_ENTRY_COUNT) {
        let (key, value) = entry?;
        let tag = key.first().copied().unwrap_or(0);
        let keyspace = &mut by_tag[usize::from(tag)];
        keyspace.keys += 1;
        keyspace.key_bytes += key.len() as u64;
        keyspace.value_bytes += value.len() as u64;
    }
    let keyspaces = (0..=u8::MAX)
        .zip(by_tag)
        .filter(|(_, keyspace)| keyspace.keys > 0)
        .map(|(tag, keyspace)| KeyspaceSize { tag, ..keyspace })
        .collect();
    Ok(LiveSize { keyspaces })
}

/// The name of the keyspace `tag`, as its constant in [`keys`] without `KEYSPACE_`.
pub fn keyspace_name(tag: u8) -> &'static str {
    KEYSPACE_NAMES
        .iter()
        .find(|(known, _)| *known == tag)
        .map_or("?", |(_, name)| name)
}

/// Every keyspace the engine writes, by tag.
const KEYSPACE_NAMES: &[(u8, &str)] = &[
    (keys::KEYSPACE_META, "META"),
    (keys::KEYSPACE_CATALOG, "CATALOG"),
    (keys::KEYSPACE_DATABASE_NAME, "DATABASE_NAME"),
    (keys::KEYSPACE_DATABASE, "DATABASE"),
    (keys::KEYSPACE_TABLE_NAME, "TABLE_NAME"),
    (keys::KEYSPACE_TABLE, "TABLE"),
    (keys::KEYSPACE_PARTITION, "PARTITION"),
    (keys::KEYSPACE_STATS_SLOT, "STATS_SLOT"),
    (keys::KEYSPACE_STATS_CHUNK, "STATS_CHUNK"),
    (keys::KEYSPACE_STATS_SKETCH, "STATS_SKETCH"),
    (keys::KEYSPACE_TABLE_STATS, "TABLE_STATS"),
    (keys::KEYSPACE_PENDING_REMOVAL, "PENDING_REMOVAL"),
    (keys::KEYSPACE_PARTITION_EVENT, "PARTITION_EVENT"),
    (keys::KEYSPACE_FUNCTION, "FUNCTION"),
    (keys::KEYSPACE_CONSTRAINT, "CONSTRAINT"),
    (keys::KEYSPACE_LOCK, "LOCK"),
    (keys::KEYSPACE_ACID_COUNTER, "ACID_COUNTER"),
    (keys::KEYSPACE_TXN, "TXN"),
    (keys::KEYSPACE_WRITE_ID_COUNTER, "WRITE_ID_COUNTER"),
    (keys::KEYSPACE_WRITE_ID, "WRITE_ID"),
    (keys::KEYSPACE_WRITE_SET, "WRITE_SET"),
    (keys::KEYSPACE_COMPACTION, "COMPACTION"),
    (keys::KEYSPACE_MIN_HISTORY, "MIN_HISTORY"),
    (keys::KEYSPACE_EVENT, "EVENT"),
    (keys::KEYSPACE_EVENT_COUNTER, "EVENT_COUNTER"),
    (keys::KEYSPACE_WRITE_EVENT, "WRITE_EVENT"),
    (keys::KEYSPACE_EVENT_PART, "EVENT_PART"),
    (keys::KEYSPACE_TYPE, "TYPE"),
    (keys::KEYSPACE_SCHEMA, "SCHEMA"),
    (keys::KEYSPACE_SERDE, "SERDE"),
    (keys::KEYSPACE_RESOURCE_PLAN, "RESOURCE_PLAN"),
    (keys::KEYSPACE_RUNTIME_STAT, "RUNTIME_STAT"),
    (keys::KEYSPACE_SCHEDULED_QUERY, "SCHEDULED_QUERY"),
    (keys::KEYSPACE_SCHEDULED_EXECUTION, "SCHEDULED_EXECUTION"),
    (keys::KEYSPACE_SCHEDULE_COUNTER, "SCHEDULE_COUNTER"),
    (keys::KEYSPACE_PROCEDURE, "PROCEDURE"),
    (keys::KEYSPACE_PACKAGE, "PACKAGE"),
    (keys::KEYSPACE_DATA_CONNECTOR, "DATA_CONNECTOR"),
    (keys::KEYSPACE_COMPACTOR_COMPONENT, "COMPACTOR_COMPONENT"),
    (keys::KEYSPACE_COMPACTION_METRIC, "COMPACTION_METRIC"),
    (keys::KEYSPACE_MATERIALIZATION, "MATERIALIZATION"),
    (keys::KEYSPACE_REPLICATION_METRICS, "REPLICATION_METRICS"),
    (keys::KEYSPACE_REPL_TXN_MAP, "REPL_TXN_MAP"),
    (keys::KEYSPACE_PROPERTY_MAP, "PROPERTY_MAP"),
    (keys::KEYSPACE_DELEGATION_TOKEN, "DELEGATION_TOKEN"),
    (keys::KEYSPACE_MASTER_KEY, "MASTER_KEY"),
    (keys::KEYSPACE_STATS_RECENT, "STATS_RECENT"),
    (keys::KEYSPACE_CHANGE, "CHANGE"),
];

/// The bytes of the files in `dir` and below (a store's data directory), counted as their
/// lengths; `skip` names files left out (the disk reserve, which is room kept, not data).
pub fn directory_bytes(dir: &std::path::Path, skip: &[&str]) -> std::io::Result<u64> {
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    // Bounded by the directory tree itself; sled's has two levels (the blobs directory).
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let metadata = entry.metadata()?;
            if metadata.is_dir() {
                pending.push(entry.path());
            } else if !skip.iter().any(|name| entry.file_name() == **name) {
                total += metadata.len();
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::{MemoryBackend, WriteBatch};

    #[test]
    fn live_bytes_are_the_keys_and_values_per_keyspace() {
        let backend = MemoryBackend::new();
        let mut batch = WriteBatch::new();
        batch.put(vec![keys::KEYSPACE_PARTITION, 1, 2], vec![0; 10]);
        batch.put(vec![keys::KEYSPACE_PARTITION, 1, 3], vec![0; 5]);
        batch.put(vec![keys::KEYSPACE_EVENT, 9], vec![0; 100]);
        backend.apply(batch).unwrap();
        let size = measure_live(&backend).unwrap();
        let partitions = KeyspaceSize {
            tag: keys::KEYSPACE_PARTITION,
            keys: 2,
            key_bytes: 6,
            value_bytes: 15,
        };
        let events = KeyspaceSize {
            tag: keys::KEYSPACE_EVENT,
            keys: 1,
            key_bytes: 2,
            value_bytes: 100,
        };
        assert_eq!(size.keyspaces, vec![partitions, events]);
        assert_eq!(size.live_bytes(), 123);
        assert_eq!(size.keys(), 3);
        assert_eq!(size.keyspaces[0].name(), "PARTITION");
    }

    #[test]
    fn every_keyspace_name_is_one_tag() {
        let mut tags: Vec<u8> = KEYSPACE_NAMES.iter().map(|(tag, _)| *tag).collect();
        tags.sort_unstable();
        tags.dedup();
        assert_eq!(tags.len(), KEYSPACE_NAMES.len());
        assert_eq!(keyspace_name(0xEE), "?");
    }
}
