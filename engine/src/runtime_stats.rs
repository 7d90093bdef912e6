//! Hive's runtime statistics (`add_runtime_stats`, `get_runtime_stats`): opaque payloads
//! HiveServer2 records after running a query and reads back to plan re-executions. Entries
//! get ids in arrival order and are stamped with the server's time, as Hive's `MRuntimeStat`
//! is; those older than Hive's `metastore.runtime.stats.max.age` are gone, and the store keeps
//! at most [`RUNTIME_STATS_COUNT_MAX`], dropping the oldest. Since both drop only the oldest
//! entries, the live entries are one run of ids.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::{stored_value, ValueKind};
use crate::store::{now_seconds, Store, WriteTxn};

/// Hive's `metastore.runtime.stats.max.age`: entries older than this many seconds are
/// deleted (Hive's cleaner does it hourly; here every add deletes them and reads skip them).
pub const RUNTIME_STATS_MAX_AGE_SECS: i32 = 3 * 24 * 3600;
/// The most entries kept (hivestore's bound); adding one more drops the oldest.
pub const RUNTIME_STATS_COUNT_MAX: u64 = 10_000;
/// The longest payload accepted, in bytes (hivestore's bound).
pub const RUNTIME_STAT_PAYLOAD_BYTES_MAX: usize = 1 << 20;
/// The most payload bytes one `get_runtime_stats` answers (hivestore's bound): the entries
/// after the one that reaches it are left out, as entries past the weight asked are.
pub const RUNTIME_STATS_REPLY_BYTES_MAX: usize = 64 << 20;
/// The most expired entries one add deletes.
const EXPIRED_DELETES_PER_ADD_MAX: usize = 1_000;

/// Hive's `RuntimeStat`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct RuntimeStat {
    /// When the server stored it, in seconds since the epoch.
    pub create_time: i32,
    /// The weight HiveServer2 gave it.
    pub weight: i32,
    /// The serialized statistics.
    pub payload: Vec<u8>,
}

stored_value!(RuntimeStat, ValueKind::RuntimeStat);

fn read_counter(txn: &WriteTxn<'_>, counter: u8) -> Result<u64> {
    let key = keys::schedule_counter_key(counter);
    match txn.get(&key)? {
        None => Ok(0),
        Some(bytes) => {
            let bytes: [u8; 8] = bytes[..]
                .try_into()
                .map_err(|_| Error::corruption(&key, "a counter is not 8 bytes"))?;
            Ok(u64::from_be_bytes(bytes))
        }
    }
}

/// The next id of `counter` (the counters of keyspace `0x23`), written with the batch.
pub(crate) fn next_id(txn: &mut WriteTxn<'_>, counter: u8) -> Result<u64> {
    let id = read_counter(txn, counter)? + 1;
    txn.put_raw(
        keys::schedule_counter_key(counter),
        id.to_be_bytes().to_vec(),
    );
    Ok(id)
}

fn first_id(txn: &WriteTxn<'_>) -> Result<Option<u64>> {
    let range = KeyRange::prefix(&[keys::KEYSPACE_RUNTIME_STAT]);
    match txn.scan(range).next().transpose()? {
        Some((key, _)) => Ok(Some(keys::decode_runtime_stat_key(&key)?)),
        None => Ok(None),
    }
}

impl Store {
    /// Hive's `add_runtime_stats`: stores `payload` with `weight`, stamped with the time now.
    pub fn add_runtime_stat(&self, weight: i32, payload: Vec<u8>) -> Result<()> {
        if payload.len() > RUNTIME_STAT_PAYLOAD_BYTES_MAX {
            return Err(Error::Refused(format!(
                "A runtime statistics payload of {} bytes is longer than the \
                 {RUNTIME_STAT_PAYLOAD_BYTES_MAX} bytes allowed",
                payload.len()
            )));
        }
        let now = now_seconds();
        self.write(|txn| {
            let id = next_id(txn, keys::COUNTER_RUNTIME_STAT)?;
            let expired_before = now.saturating_sub(RUNTIME_STATS_MAX_AGE_SECS);
            let mut first = first_id(txn)?.unwrap_or(id);
            // Expired entries, oldest first.
            let range = KeyRange::prefix(&[keys::KEYSPACE_RUNTIME_STAT]);
            for entry in txn.scan(range).take(EXPIRED_DELETES_PER_ADD_MAX) {
                let (key, _) = entry?;
                let Some(view) = txn.view::<RuntimeStat>(&key)? else {
                    break;
                };
                if view.archived()?.create_time.to_native() > expired_before {
                    break;
                }
                first = keys::decode_runtime_stat_key(&key)? + 1;
            }
            // Room for the new entry within the count bound.
            first = first.max((id + 1).saturating_sub(RUNTIME_STATS_COUNT_MAX));
            let stale =
                KeyRange::between(&keys::runtime_stat_key(0), &keys::runtime_stat_key(first));
            txn.delete_range(stale)?;
            let stat = RuntimeStat {
                create_time: now,
                weight,
                payload: payload.clone(),
            };
            txn.put_value(keys::runtime_stat_key(id), &stat)
        })
    }

    /// Hive's `get_runtime_stats`: entries newest first, created before `max_create_time`
    /// (when positive), until their weights add up to `max_weight` (no bound when negative).
    pub fn runtime_stats(&self, max_weight: i32, max_create_time: i32) -> Result<Vec<RuntimeStat>> {
        let expired_before = now_seconds().saturating_sub(RUNTIME_STATS_MAX_AGE_SECS);
        let mut found_keys = Vec::new();
        for entry in self.scan(KeyRange::prefix(&[keys::KEYSPACE_RUNTIME_STAT])) {
            let (key, _) = entry?;
            found_keys.push(key);
        }
        let max_weight = if max_weight < 0 {
            i64::MAX
        } else {
            i64::from(max_weight)
        };
        let (mut stats, mut total_weight, mut total_bytes) = (Vec::new(), 0_i64, 0_usize);
        for key in found_keys.iter().rev() {
            let Some(view) = self.view::<RuntimeStat>(key)? else {
                continue;
            };
            let archived = view.archived()?;
            let create_time = archived.create_time.to_native();
            if create_time <= expired_before
                || (max_create_time > 0 && create_time >= max_create_time)
            {
                continue;
            }
            total_bytes += archived.payload.len();
            if !stats.is_empty() && total_bytes > RUNTIME_STATS_REPLY_BYTES_MAX {
                break;
            }
            total_weight += i64::from(archived.weight.to_native());
            stats.push(view.to_owned()?);
            if total_weight >= max_weight {
                break;
            }
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory_store_with_databases;

    #[test]
    fn newest_first_until_the_weight_asked() {
        let store = memory_store_with_databases(&[]);
        for weight in [1, 2, 3] {
            store.add_runtime_stat(weight, vec![weight as u8]).unwrap();
        }
        let weights = |stats: Vec<RuntimeStat>| stats.iter().map(|s| s.weight).collect::<Vec<_>>();
        assert_eq!(weights(store.runtime_stats(-1, 0).unwrap()), [3, 2, 1]);
        assert_eq!(weights(store.runtime_stats(4, 0).unwrap()), [3, 2]);
        assert_eq!(weights(store.runtime_stats(0, 0).unwrap()), [3]);
        assert_eq!(
            weights(store.runtime_stats(-1, 1).unwrap()),
            Vec::<i32>::new()
        );
        let later = now_seconds() + 10;
        assert_eq!(weights(store.runtime_stats(-1, later).unwrap()), [3, 2, 1]);
        let stat = &store.runtime_stats(1, 0).unwrap()[0];
        assert_eq!(stat.payload, [3]);
        assert!((now_seconds() - stat.create_time).abs() <= 2);
    }

    #[test]
    fn the_oldest_go_past_the_count_bound_and_big_payloads_are_refused() {
        let store = memory_store_with_databases(&[]);
        for index in 0..RUNTIME_STATS_COUNT_MAX + 5 {
            store.add_runtime_stat(index as i32, Vec::new()).unwrap();
        }
        let stats = store.runtime_stats(-1, 0).unwrap();
        assert_eq!(stats.len() as u64, RUNTIME_STATS_COUNT_MAX);
        assert_eq!(stats.last().unwrap().weight, 5);
        let big = vec![0; RUNTIME_STAT_PAYLOAD_BYTES_MAX + 1];
        assert!(matches!(
            store.add_runtime_stat(1, big),
            Err(Error::Refused(_))
        ));
    }
}
