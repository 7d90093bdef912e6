//! Hive's locks: `lock`, `check_lock`, `unlock`, `show_locks`, `heartbeat`.
//!
//! A lock request names components (a database, a table or a partition, each with a
//! [`LockType`]) and is acquired whole or not at all. It is acquired when no earlier lock,
//! held or still waiting, conflicts with it (`compatibility`); otherwise it waits, and the
//! client polls [`Store::check_lock`] until it is acquired. Nothing here ever blocks on
//! another client: a call only looks at the table and answers.
//!
//! Every decision is made under one mutex over the lock table (`AcidState`), and every
//! change is written to the store in one atomic batch before the call answers, so locks
//! survive a restart. A lock outside a transaction that is not heartbeated (by
//! `heartbeat` or `check_lock`) for [`StoreOptions::txn_timeout`](crate::StoreOptions) is
//! released by the next call that looks at the table: a client that disappears never holds a
//! lock for longer than that.

mod compatibility;
mod model;
pub(crate) mod state;

pub use model::{
    DataOperation, LockComponent, LockLevel, LockRequest, LockResponse, LockState, LockStatus,
    LockType, ShowLocksFilter,
};
use state::{component_number, HeldLock, LockRecord, LockSpace};

pub use crate::txns::acid::TXN_TIMEOUT_DEFAULT;
pub(crate) use crate::txns::acid::{now_ms, read_counter, AcidState};

use crate::error::{Error, Result};
use crate::model::names;
use crate::storage::keys;
use crate::store::Store;

/// The most components one lock request may name (Hive has no such bound; hmsbench's
/// `lock.10000` names 11,000, and the message size limit bounds a request anyway).
pub const LOCK_COMPONENT_COUNT_MAX: usize = 100_000;
/// The most locks held or waiting at once; a request beyond it is refused.
pub const LOCK_COUNT_MAX: usize = 100_000;

impl AcidState {
    /// Removes every lock of transaction `txn_id` (on commit or abort).
    pub(crate) fn release_txn_locks(&mut self, txn_id: u64, changes: &mut AcidChanges) {
        let held: Vec<u64> = self
            .locks
            .locks
            .iter()
            .filter(|(_, lock)| lock.record.txn_id == txn_id)
            .map(|(id, _)| *id)
            .collect();
        for lock_id in held {
            self.locks.locks.remove(&lock_id);
            changes.locks_removed.push(lock_id);
        }
    }
}

/// What one call changed in the lock and transaction table, to write in one batch.
#[derive(Default)]
pub(crate) struct AcidChanges {
    /// Locks written again (new or changed).
    pub(crate) locks_written: Vec<u64>,
    /// Locks removed.
    pub(crate) locks_removed: Vec<u64>,
    /// Whether the lock id counter moved.
    pub(crate) lock_counter_moved: bool,
    /// Transactions written again (new or changed).
    pub(crate) txns_written: Vec<u64>,
    /// Transactions removed (committed).
    pub(crate) txns_removed: Vec<u64>,
    /// Whether the transaction id counter moved.
    pub(crate) txn_counter_moved: bool,
    /// Other entries (write id counters and write ids).
    pub(crate) puts: Vec<(Vec<u8>, Vec<u8>)>,
    /// Other entries removed (write sets no longer needed).
    pub(crate) deletes: Vec<Vec<u8>>,
    /// Notification events of the change (opened, committed, aborted transactions, write
    /// ids), logged in its batch.
    pub(crate) events: Vec<crate::events::EventRecord>,
}

impl AcidChanges {
    fn is_empty(&self) -> bool {
        self.locks_written.is_empty()
            && self.locks_removed.is_empty()
            && !self.lock_counter_moved
            && self.txns_written.is_empty()
            && self.txns_removed.is_empty()
            && !self.txn_counter_moved
            && self.puts.is_empty()
            && self.deletes.is_empty()
            && self.events.is_empty()
    }
}

impl Store {
    /// Hive's `lock`: queues `request` and acquires it at once if nothing earlier conflicts.
    /// A lock in a transaction needs the transaction to be open.
    pub fn lock(&self, request: LockRequest) -> Result<LockResponse> {
        let record = normalise_request(request)?;
        let now = now_ms();
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        if record.txn_id != 0 {
            if let Err(error) = crate::txns::require_open(&acid.txns, record.txn_id) {
                self.persist_acid(&mut acid, &changes)?;
                return Err(error);
            }
            if crate::txns::record_writes(&mut acid.txns, record.txn_id, &record.components) {
                changes.txns_written.push(record.txn_id);
            }
        }
        if acid.locks.locks.len() >= LOCK_COUNT_MAX {
            let message = format!("{LOCK_COUNT_MAX} locks are held or waiting; no more are taken");
            return Err(Error::Refused(message));
        }
        let lock_id = acid.locks.next_lock_id;
        acid.locks.next_lock_id += 1;
        changes.lock_counter_moved = true;
        acid.locks.locks.insert(lock_id, HeldLock::new(record, now));
        let state = try_acquire(&mut acid.locks, lock_id, now);
        changes.locks_written.push(lock_id);
        self.persist_acid(&mut acid, &changes)?;
        Ok(LockResponse { lock_id, state })
    }

    /// Hive's `check_lock`: heartbeats the lock and acquires it if nothing earlier conflicts
    /// any more.
    pub fn check_lock(&self, lock_id: u64) -> Result<LockResponse> {
        let now = now_ms();
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        let Some(lock) = acid.locks.locks.get_mut(&lock_id) else {
            self.persist_acid(&mut acid, &changes)?;
            return Err(no_such_lock(lock_id));
        };
        heartbeat(lock, now);
        let txn_id = lock.record.txn_id;
        let was_acquired = lock.is_acquired();
        if let Some(txn) = acid.txns.txns.get_mut(&txn_id) {
            crate::txns::heartbeat(txn, now);
        }
        let state = try_acquire(&mut acid.locks, lock_id, now);
        if !was_acquired && state == LockState::Acquired {
            changes.locks_written.push(lock_id);
        }
        self.persist_acid(&mut acid, &changes)?;
        Ok(LockResponse { lock_id, state })
    }

    /// Hive's `unlock`: releases a lock outside a transaction (or gives up waiting for one
    /// inside). Like Hive 4, releasing a lock that is already gone is not an error.
    pub fn unlock(&self, lock_id: u64) -> Result<()> {
        let now = now_ms();
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        if let Some(lock) = acid.locks.locks.get(&lock_id) {
            let txn_id = lock.record.txn_id;
            if txn_id != 0 && lock.is_acquired() {
                self.persist_acid(&mut acid, &changes)?;
                return Err(Error::TxnOpen(format!(
                    "Unlocking locks associated with transaction not permitted.  Lockid {} is associated with transaction {}",
                    lock_id_text(lock_id),
                    txn_id_text(txn_id)
                )));
            }
            acid.locks.locks.remove(&lock_id);
            changes.locks_removed.push(lock_id);
        }
        self.persist_acid(&mut acid, &changes)
    }

    /// Hive's `heartbeat` of a lock outside a transaction.
    pub fn heartbeat_lock(&self, lock_id: u64) -> Result<()> {
        let now = now_ms();
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        let found = match acid.locks.locks.get_mut(&lock_id) {
            Some(lock) => {
                heartbeat(lock, now);
                true
            }
            None => false,
        };
        self.persist_acid(&mut acid, &changes)?;
        if found {
            Ok(())
        } else {
            Err(Error::NoSuchLock(format!(
                "No such lock: {}",
                lock_id_text(lock_id)
            )))
        }
    }

    /// Hive's `show_locks`: one entry per component of every lock that `filter` matches, by
    /// lock id and component.
    pub fn show_locks(&self, filter: &ShowLocksFilter) -> Result<Vec<LockStatus>> {
        let filter = normalise_filter(filter);
        let now = now_ms();
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        self.persist_acid(&mut acid, &changes)?;
        let mut listed = Vec::new();
        for (lock_id, lock) in &acid.locks.locks {
            if filter.txn_id.is_some_and(|txn| txn != lock.record.txn_id) {
                continue;
            }
            for (index, component) in lock.record.components.iter().enumerate() {
                if matches_filter(&filter, component) {
                    listed.push(status(*lock_id, index, lock, component));
                }
            }
        }
        Ok(listed)
    }

    /// Releases every lock outside a transaction that timed out, and aborts every open
    /// transaction that timed out (releasing its locks), as Hive's housekeeper does.
    pub(crate) fn expire(&self, acid: &mut AcidState, now: i64, changes: &mut AcidChanges) {
        let timeout_ms = i64::try_from(self.options().txn_timeout.as_millis()).unwrap_or(i64::MAX);
        for lock_id in acid.locks.expired(now, timeout_ms) {
            tracing::info!(
                lock_id,
                timeout_ms,
                "lock timed out without heartbeat; released"
            );
            acid.locks.locks.remove(&lock_id);
            changes.locks_removed.push(lock_id);
        }
        for txn_id in acid.txns.expired(now, timeout_ms) {
            tracing::info!(
                txn_id,
                timeout_ms,
                "transaction timed out without heartbeat; aborted"
            );
            crate::txns::abort_in_memory(acid, txn_id, changes);
        }
    }

    /// Writes `changes` in one atomic batch. If that fails, the table is read back from the
    /// store, so that memory never holds what the store does not.
    pub(crate) fn persist_acid(&self, acid: &mut AcidState, changes: &AcidChanges) -> Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let written = self.write(|txn| {
            for lock_id in &changes.locks_removed {
                txn.delete(keys::lock_key(*lock_id));
            }
            for lock_id in &changes.locks_written {
                if let Some(lock) = acid.locks.locks.get(lock_id) {
                    txn.put_value(keys::lock_key(*lock_id), &lock.record)?;
                }
            }
            if changes.lock_counter_moved {
                let key = keys::acid_counter_key(keys::ACID_COUNTER_NEXT_LOCK_ID);
                txn.put_raw(key, acid.locks.next_lock_id.to_be_bytes().to_vec());
            }
            for txn_id in &changes.txns_removed {
                txn.delete(keys::txn_key(*txn_id));
            }
            for txn_id in &changes.txns_written {
                if let Some(held) = acid.txns.txns.get(txn_id) {
                    txn.put_value(keys::txn_key(*txn_id), &held.record)?;
                }
            }
            if changes.txn_counter_moved {
                let key = keys::acid_counter_key(keys::ACID_COUNTER_NEXT_TXN_ID);
                txn.put_raw(key, acid.txns.next_txn_id.to_be_bytes().to_vec());
            }
            for (key, value) in &changes.puts {
                txn.put_raw(key.clone(), value.clone());
            }
            for key in &changes.deletes {
                txn.delete(key.clone());
            }
            for event in &changes.events {
                txn.emit(event.clone())?;
            }
            Ok(())
        });
        if let Err(error) = written {
            tracing::error!(%error, "lock change not written; reloading the lock table");
            *acid = AcidState::load(self.reader())?;
            return Err(error);
        }
        Ok(())
    }
}

/// Acquires lock `lock_id` if nothing earlier conflicts; records what blocks it otherwise.
fn try_acquire(locks: &mut LockSpace, lock_id: u64, now: i64) -> LockState {
    let blocker = match locks.locks.get(&lock_id) {
        Some(lock) if lock.is_acquired() => return LockState::Acquired,
        Some(_) => locks.blocker(lock_id),
        None => return LockState::Waiting,
    };
    let Some(lock) = locks.locks.get_mut(&lock_id) else {
        return LockState::Waiting;
    };
    lock.blocked_by = blocker;
    if blocker.is_some() {
        return LockState::Waiting;
    }
    lock.record.acquired_at_ms = Some(now);
    LockState::Acquired
}

fn heartbeat(lock: &mut HeldLock, now: i64) {
    lock.last_heartbeat_ms = now;
    lock.heartbeat_count = lock.heartbeat_count.saturating_add(1);
}

/// Checks a request and normalises its names as Hive does (databases and tables lowercased).
fn normalise_request(request: LockRequest) -> Result<LockRecord> {
    if request.components.is_empty() {
        return Err(Error::InvalidInput(
            "a lock request needs at least one component".to_string(),
        ));
    }
    if request.components.len() > LOCK_COMPONENT_COUNT_MAX {
        return Err(Error::InvalidInput(format!(
            "a lock request names {} components; at most {LOCK_COMPONENT_COUNT_MAX} are allowed",
            request.components.len()
        )));
    }
    let components = request
        .components
        .into_iter()
        .map(normalise_component)
        .collect::<Result<Vec<_>>>()?;
    Ok(LockRecord {
        txn_id: request.txn_id.unwrap_or(0),
        user: request.user,
        hostname: request.hostname,
        agent_info: request.agent_info,
        components,
        acquired_at_ms: None,
    })
}

fn normalise_component(component: LockComponent) -> Result<LockComponent> {
    let database = names::normalize(&component.database);
    let table = present(component.table).map(|table| names::normalize(&table));
    let partition = present(component.partition);
    if database.is_empty() {
        return Err(Error::InvalidInput(
            "a lock component needs a database name".to_string(),
        ));
    }
    let level_fits = match component.level {
        LockLevel::Database => table.is_none() && partition.is_none(),
        LockLevel::Table => table.is_some() && partition.is_none(),
        LockLevel::Partition => table.is_some() && partition.is_some(),
    };
    if !level_fits {
        return Err(Error::InvalidInput(format!(
            "a {:?}-level lock component names database {database}, table {}, partition {}",
            component.level,
            table.as_deref().unwrap_or("(none)"),
            partition.as_deref().unwrap_or("(none)")
        )));
    }
    Ok(LockComponent {
        database,
        table,
        partition,
        ..component
    })
}

fn present(name: Option<String>) -> Option<String> {
    name.filter(|name| !name.trim().is_empty())
}

fn normalise_filter(filter: &ShowLocksFilter) -> ShowLocksFilter {
    ShowLocksFilter {
        database: present(filter.database.clone()).map(|name| names::normalize(&name)),
        table: present(filter.table.clone()).map(|name| names::normalize(&name)),
        partition: present(filter.partition.clone()),
        txn_id: filter.txn_id.filter(|txn| *txn != 0),
    }
}

fn matches_filter(filter: &ShowLocksFilter, component: &LockComponent) -> bool {
    let same = |wanted: &Option<String>, actual: &Option<String>| match wanted {
        Some(wanted) => actual.as_ref() == Some(wanted),
        None => true,
    };
    filter
        .database
        .as_ref()
        .is_none_or(|database| *database == component.database)
        && same(&filter.table, &component.table)
        && same(&filter.partition, &component.partition)
}

fn status(lock_id: u64, index: usize, lock: &HeldLock, component: &LockComponent) -> LockStatus {
    let record = &lock.record;
    LockStatus {
        lock_id,
        component_id: component_number(index),
        database: component.database.clone(),
        table: component.table.clone(),
        partition: component.partition.clone(),
        state: if lock.is_acquired() {
            LockState::Acquired
        } else {
            LockState::Waiting
        },
        lock_type: component.lock_type,
        txn_id: record.txn_id,
        last_heartbeat_ms: if record.txn_id == 0 {
            lock.last_heartbeat_ms
        } else {
            0
        },
        acquired_at_ms: record.acquired_at_ms,
        user: record.user.clone(),
        hostname: record.hostname.clone(),
        heartbeat_count: lock.heartbeat_count,
        agent_info: record.agent_info.clone(),
        blocked_by: lock.blocked_by,
    }
}

/// Hive's rendering of a lock id in messages.
fn lock_id_text(lock_id: u64) -> String {
    format!("lockid:{lock_id}")
}

/// Hive's rendering of a transaction id in messages.
pub(crate) fn txn_id_text(txn_id: u64) -> String {
    format!("txnid:{txn_id}")
}

fn no_such_lock(lock_id: u64) -> Error {
    Error::NoSuchLock(format!("No such lock {}", lock_id_text(lock_id)))
}

#[cfg(test)]
mod tests;
