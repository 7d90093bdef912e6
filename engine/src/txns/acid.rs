//! The lock and transaction table in memory ([`AcidState`]), as read from the store, and the
//! one mutex every lock and transaction decision is made under ([`AcidTable`]). The store
//! holds the same locks and transactions; after it went back to its durable state the table
//! is read again.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::locks::state::{HeldLock, LockRecord, LockSpace};
use super::state::{HeldTxn, MinHistory, TxnRecord, TxnSpace, WriteSet};
use crate::error::{Error, Result};
use crate::storage::keys::{self, FIRST_ID};
use crate::storage::kv::{self, KeyRange, KvBackend, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values;
use crate::storage::visibility::Visibility;

/// Hive's default `metastore.txn.timeout`: 300 s.
pub const TXN_TIMEOUT_DEFAULT: Duration = Duration::from_secs(300);

/// The lock and transaction table in memory; the store holds the same.
#[derive(Debug, Default)]
pub(crate) struct AcidState {
    pub(crate) locks: LockSpace,
    pub(crate) txns: TxnSpace,
}

impl AcidState {
    /// Reads every lock and the lock id counter from the store. Every lock counts as
    /// heartbeated now.
    pub(crate) fn load(backend: &dyn KvBackend) -> Result<AcidState> {
        let now = now_ms();
        let mut locks = LockSpace {
            next_lock_id: read_counter(backend, keys::ACID_COUNTER_NEXT_LOCK_ID)?,
            ..LockSpace::default()
        };
        let range = KeyRange::prefix(&keys::lock_prefix());
        for entry in kv::scan(backend, range, SCAN_PAGE_ENTRY_COUNT) {
            let (key, stored) = entry?;
            let lock_id = keys::decode_lock_key(&key)?;
            if lock_id >= locks.next_lock_id {
                let reason = format!("lock {lock_id} at or above the next lock id");
                return Err(Error::corruption(&key, reason));
            }
            let record = values::decode::<LockRecord>(key, stored)?;
            locks.locks.insert(lock_id, HeldLock::new(record, now));
        }
        let txns = load_txns(backend, now)?;
        Ok(AcidState { locks, txns })
    }
}

/// [`AcidState`] under its mutex, with the epoch of the store's [`Visibility`] it was read at.
pub(crate) struct AcidTable {
    state: Mutex<AcidState>,
    epoch: AtomicU64,
}

impl AcidTable {
    /// The table as stored, read at `visibility`'s epoch.
    pub(crate) fn load(backend: &dyn KvBackend, visibility: &Visibility) -> Result<AcidTable> {
        let state = Mutex::new(AcidState::load(backend)?);
        let epoch = AtomicU64::new(visibility.epoch());
        Ok(AcidTable { state, epoch })
    }

    /// The table, under its mutex; read again from `backend` if the store went back to its
    /// durable state (`visibility`'s epoch moved) since it was read.
    pub(crate) fn lock(
        &self,
        backend: &dyn KvBackend,
        visibility: &Visibility,
    ) -> Result<MutexGuard<'_, AcidState>> {
        let mut acid = self
            .state
            .lock()
            .map_err(|_| Error::Internal("the lock table mutex is poisoned".to_string()))?;
        let epoch = visibility.epoch();
        if self.epoch.load(Ordering::SeqCst) != epoch {
            *acid = AcidState::load(backend)?;
            self.epoch.store(epoch, Ordering::SeqCst);
        }
        Ok(acid)
    }
}

/// Reads every transaction not yet committed and the transaction id counter.
fn load_txns(backend: &dyn KvBackend, now: i64) -> Result<TxnSpace> {
    let mut space = TxnSpace {
        next_txn_id: read_counter(backend, keys::ACID_COUNTER_NEXT_TXN_ID)?,
        ..TxnSpace::default()
    };
    let range = KeyRange::prefix(&keys::txn_prefix());
    for entry in kv::scan(backend, range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, stored) = entry?;
        let txn_id = keys::decode_txn_key(&key)?;
        if txn_id >= space.next_txn_id {
            let reason = format!("transaction {txn_id} at or above the next transaction id");
            return Err(Error::corruption(&key, reason));
        }
        let record = values::decode::<TxnRecord>(key, stored)?;
        space.txns.insert(txn_id, HeldTxn::new(record, now));
    }
    let range = KeyRange::prefix(&keys::write_set_prefix());
    for entry in kv::scan(backend, range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, stored) = entry?;
        let txn_id = keys::decode_write_set_key(&key)?;
        space
            .write_sets
            .insert(txn_id, values::decode::<WriteSet>(key, stored)?);
    }
    space.min_history = load_min_history(backend)?;
    let range = KeyRange::prefix(&[keys::KEYSPACE_REPL_TXN_MAP]);
    for entry in kv::scan(backend, range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, stored) = entry?;
        let (policy, source) = keys::decode_repl_txn_map_key(&key)?;
        let target = keys::decode_id_value(&key, &stored)?;
        space.repl_map.insert((policy, source), target);
    }
    Ok(space)
}

/// Reads every stored minimum history entry, by transaction.
fn load_min_history(backend: &dyn KvBackend) -> Result<BTreeMap<u64, MinHistory>> {
    let mut loaded: BTreeMap<u64, MinHistory> = BTreeMap::new();
    let range = KeyRange::prefix(&[keys::KEYSPACE_MIN_HISTORY]);
    for entry in kv::scan(backend, range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, stored) = entry?;
        let (txn_id, database, table) = keys::decode_min_history_key(&key)?;
        let write_id = keys::decode_id_value(&key, &stored)?;
        loaded
            .entry(txn_id)
            .or_default()
            .insert((database, table), write_id);
    }
    Ok(loaded)
}

/// Reads a counter of `KEYSPACE_ACID_COUNTER`; [`FIRST_ID`] when not yet written.
pub(crate) fn read_counter(backend: &dyn KvBackend, name: &str) -> Result<u64> {
    let key = keys::acid_counter_key(name);
    match backend.get(&key)? {
        Some(stored) => {
            let value = keys::decode_id_value(&key, &stored)?;
            if value < FIRST_ID {
                return Err(Error::corruption(
                    &key,
                    format!("counter {value} is below {FIRST_ID}"),
                ));
            }
            Ok(value)
        }
        None => Ok(FIRST_ID),
    }
}

/// Milliseconds since the epoch, as Hive's lock and transaction times.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
