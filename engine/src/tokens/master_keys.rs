//! The token store's master keys, numbered by sequence ids handed out once.

use super::{check_length, MasterKey, MASTER_KEY_BYTES_MAX};
use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{Store, WriteTxn};

/// The last sequence id handed out (zero before the first).
fn last_sequence_id(txn: &WriteTxn<'_>) -> Result<u32> {
    let key = keys::master_key_counter_key();
    match txn.get(&key)? {
        None => Ok(0),
        Some(bytes) => {
            let bytes: [u8; 4] = bytes[..]
                .try_into()
                .map_err(|_| Error::corruption(&key, "the master key counter is not 4 bytes"))?;
            Ok(u32::from_be_bytes(bytes))
        }
    }
}

/// The stored key of the sequence id a client named, when it can name one (Hive's ids are
/// positive `int`s).
fn stored_key(sequence_id: i32) -> Option<Vec<u8>> {
    u32::try_from(sequence_id)
        .ok()
        .filter(|id| *id > 0)
        .map(keys::master_key_key)
}

impl Store {
    /// Hive's `addMasterKey`: stores `key` under the next sequence id, which it answers. Ids
    /// increase and are never given out again, even after the newest key is removed.
    pub fn add_master_key(&self, key: &str) -> Result<i32> {
        check_length("master key", key, MASTER_KEY_BYTES_MAX)?;
        let value = MasterKey {
            key: key.to_owned(),
        };
        self.write(|txn| {
            let last = last_sequence_id(txn)?;
            let id = last
                .checked_add(1)
                .filter(|id| i32::try_from(*id).is_ok())
                .ok_or_else(|| {
                    Error::Refused("Every master key sequence id has been given out".to_string())
                })?;
            txn.put_raw(keys::master_key_counter_key(), id.to_be_bytes().to_vec());
            txn.put_value(keys::master_key_key(id), &value)?;
            Ok(id as i32)
        })
    }

    /// Hive's `updateMasterKey`: replaces the key of `sequence_id`, which must exist.
    pub fn update_master_key(&self, sequence_id: i32, key: &str) -> Result<()> {
        check_length("master key", key, MASTER_KEY_BYTES_MAX)?;
        let missing = || Error::NoSuchObject(format!("No key found with keyId: {sequence_id}"));
        let stored = stored_key(sequence_id).ok_or_else(missing)?;
        let value = MasterKey {
            key: key.to_owned(),
        };
        self.write(|txn| {
            if txn.get(&stored)?.is_none() {
                return Err(missing());
            }
            txn.put_value(stored.clone(), &value)
        })
    }

    /// Hive's `removeMasterKey`: deletes the key of `sequence_id`; says whether there was one.
    pub fn remove_master_key(&self, sequence_id: i32) -> Result<bool> {
        let Some(stored) = stored_key(sequence_id) else {
            return Ok(false);
        };
        self.write(|txn| {
            if txn.get(&stored)?.is_none() {
                return Ok(false);
            }
            txn.delete(stored.clone());
            Ok(true)
        })
    }

    /// The key of `sequence_id`, if stored.
    pub fn master_key(&self, sequence_id: i32) -> Result<Option<String>> {
        let Some(stored) = stored_key(sequence_id) else {
            return Ok(None);
        };
        match self.view::<MasterKey>(&stored)? {
            Some(view) => Ok(Some(view.archived()?.key.as_str().to_owned())),
            None => Ok(None),
        }
    }

    /// Hive's `getMasterKeys`: every stored key with its sequence id, in id order.
    pub fn master_keys(&self) -> Result<Vec<(i32, String)>> {
        let first = keys::master_key_key(1);
        let end = [keys::KEYSPACE_MASTER_KEY + 1];
        let mut found = Vec::new();
        for entry in self.scan(KeyRange::between(&first, &end)) {
            let (key, _) = entry?;
            let id = keys::decode_master_key_key(&key)?;
            let Some(view) = self.view::<MasterKey>(&key)? else {
                continue;
            };
            let id = i32::try_from(id)
                .map_err(|_| Error::corruption(&key, "a master key id above i32::MAX"))?;
            found.push((id, view.archived()?.key.as_str().to_owned()));
        }
        Ok(found)
    }
}
