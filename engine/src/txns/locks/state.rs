//! The lock table in memory: every lock with its heartbeat, and the rule that decides when a
//! waiting lock may be acquired. The store holds the same locks (see `locks/mod.rs`); this
//! is the copy decisions are made on, under one mutex.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use super::compatibility::conflict;
use super::model::LockComponent;
use crate::storage::values::{stored_value, ValueKind};

/// A lock as stored: everything but its heartbeat. A lock's heartbeat is kept in memory
/// only, so that polling and heartbeats cost no write; after a restart every lock counts
/// as heartbeated at the restart, which gives its client a full timeout to come back.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct LockRecord {
    /// The transaction, 0 for none.
    pub txn_id: u64,
    pub user: String,
    pub hostname: String,
    pub agent_info: Option<String>,
    pub components: Vec<LockComponent>,
    /// Set once every component is held; a lock is acquired whole or not at all.
    pub acquired_at_ms: Option<i64>,
}

stored_value!(LockRecord, ValueKind::Lock);

/// A lock in memory.
#[derive(Debug, Clone)]
pub(crate) struct HeldLock {
    pub record: LockRecord,
    pub last_heartbeat_ms: i64,
    pub heartbeat_count: u32,
    /// What kept it waiting at its last check: lock id and component number.
    pub blocked_by: Option<(u64, u64)>,
}

impl HeldLock {
    pub(crate) fn new(record: LockRecord, now_ms: i64) -> Self {
        HeldLock {
            record,
            last_heartbeat_ms: now_ms,
            heartbeat_count: 0,
            blocked_by: None,
        }
    }

    pub(crate) fn is_acquired(&self) -> bool {
        self.record.acquired_at_ms.is_some()
    }
}

/// Every lock, by id. Ids grow; a lower id was asked for earlier.
#[derive(Debug, Default)]
pub(crate) struct LockSpace {
    pub next_lock_id: u64,
    pub locks: BTreeMap<u64, HeldLock>,
}

impl LockSpace {
    /// The first earlier lock, held or waiting, that `lock_id` conflicts with: lock id and
    /// component number. Waiting behind an earlier waiting lock keeps the order of arrival,
    /// so a stream of readers cannot starve a writer. Locks of one transaction never
    /// block each other.
    pub(crate) fn blocker(&self, lock_id: u64) -> Option<(u64, u64)> {
        let lock = self.locks.get(&lock_id)?;
        let own_txn = lock.record.txn_id;
        for (other_id, other) in self.locks.range(..lock_id) {
            if own_txn != 0 && other.record.txn_id == own_txn {
                continue;
            }
            for (index, held) in other.record.components.iter().enumerate() {
                let blocks = lock
                    .record
                    .components
                    .iter()
                    .any(|wanted| conflict(wanted, held));
                if blocks {
                    return Some((*other_id, component_number(index)));
                }
            }
        }
        None
    }

    /// The locks outside transactions whose last heartbeat is more than `timeout_ms` ago.
    pub(crate) fn expired(&self, now_ms: i64, timeout_ms: i64) -> Vec<u64> {
        self.locks
            .iter()
            .filter(|(_, lock)| lock.record.txn_id == 0)
            .filter(|(_, lock)| now_ms.saturating_sub(lock.last_heartbeat_ms) > timeout_ms)
            .map(|(id, _)| *id)
            .collect()
    }
}

/// Hive numbers a lock's components from 1.
pub(crate) fn component_number(index: usize) -> u64 {
    u64::try_from(index).unwrap_or(u64::MAX).saturating_add(1)
}
