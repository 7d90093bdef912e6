//! The store's UUID (`get_metastore_db_uuid`): made once, when the store is created, and kept
//! in its meta entries, so that it names the same store across restarts.

use std::hash::{BuildHasher, Hasher};

use crate::error::{Error, Result};
use crate::storage::keys;
use crate::store::{Store, WriteTxn};

/// The length of a UUID's text: 32 hex digits and 4 dashes.
pub const UUID_TEXT_LEN: usize = 36;

impl Store {
    /// The store's UUID, as Hive's `get_metastore_db_uuid` answers it.
    pub fn metastore_db_uuid(&self) -> Result<String> {
        let key = keys::meta_key(keys::META_DB_UUID);
        let stored = self
            .reader()
            .get(&key)?
            .ok_or_else(|| Error::corruption(&key, "the store has no UUID"))?;
        decode_uuid(&key, &stored)
    }
}

/// Writes a new random UUID within `txn` unless the store has one.
pub(crate) fn bootstrap_uuid(txn: &mut WriteTxn<'_>) -> Result<()> {
    let key = keys::meta_key(keys::META_DB_UUID);
    if txn.get(&key)?.is_none() {
        txn.put_raw(key, format_uuid(random_bytes()).into_bytes());
    }
    Ok(())
}

fn decode_uuid(key: &[u8], stored: &[u8]) -> Result<String> {
    match std::str::from_utf8(stored) {
        Ok(text) if text.len() == UUID_TEXT_LEN => Ok(text.to_string()),
        _ => Err(Error::corruption(
            key,
            "the store's UUID is not 36 characters of text",
        )),
    }
}

/// 16 random bytes: from the operating system's generator, or, where it cannot be read,
/// from the standard library's randomly seeded hasher over the time and process id.
fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    let from_os = std::fs::File::open("/dev/urandom")
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut bytes));
    if from_os.is_err() {
        let seed = std::collections::hash_map::RandomState::new();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        for (half, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut hasher = seed.build_hasher();
            hasher.write_u128(nanos);
            hasher.write_u32(std::process::id());
            hasher.write_usize(half);
            chunk.copy_from_slice(&hasher.finish().to_be_bytes());
        }
    }
    bytes
}

/// `bytes` as a version 4 (random) UUID in its usual text form.
fn format_uuid(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_text() {
        let text = format_uuid([0xFF; 16]);
        assert_eq!(text, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert_eq!(text.len(), UUID_TEXT_LEN);
        assert_ne!(format_uuid(random_bytes()), format_uuid(random_bytes()));
    }

    #[test]
    fn the_uuid_is_made_once_and_kept_across_reopens() {
        use crate::storage::kv::MemoryBackend;
        use crate::{Durability, StoreOptions};
        use std::sync::Arc;
        let open = |backend: &Arc<MemoryBackend>| {
            let mut options = StoreOptions::new("/warehouse").metadata_only();
            options.durability = Durability::Memory;
            Store::open_with_backend(backend.clone(), options).unwrap()
        };
        let backend = Arc::new(MemoryBackend::new());
        let first = open(&backend).metastore_db_uuid().unwrap();
        assert_eq!(first.len(), UUID_TEXT_LEN);
        assert_eq!(&first[14..15], "4");
        assert_eq!(open(&backend).metastore_db_uuid().unwrap(), first);
        let other = open(&Arc::new(MemoryBackend::new()));
        assert_ne!(other.metastore_db_uuid().unwrap(), first);
    }
}
