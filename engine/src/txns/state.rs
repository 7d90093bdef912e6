//! Transactions in memory, as stored but for their heartbeats (see `locks/mod.rs` for how
//! the lock and transaction table is kept and written).

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use super::model::{TxnState, TxnType};
use crate::storage::values::{stored_value, ValueKind};

/// Lowest open write ids by `(database, table)`.
pub(crate) type MinHistory = BTreeMap<(String, String), u64>;

/// A write id a transaction was given for a table.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct TableWriteId {
    pub database: String,
    pub table: String,
    pub write_id: u64,
}

/// A transaction not yet committed, as stored. Committed transactions are removed: an id
/// below the counter with no record is committed.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct TxnRecord {
    pub state: TxnState,
    pub txn_type: TxnType,
    pub user: String,
    pub hostname: String,
    pub agent_info: Option<String>,
    pub started_at_ms: i64,
    pub write_ids: Vec<TableWriteId>,
    /// What it updates or deletes, from the operation types of its locks: checked against
    /// transactions that committed meanwhile when it commits.
    pub writes: Vec<WriteComponent>,
}

/// An update or delete of a table or partition by a transaction.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct WriteComponent {
    pub database: String,
    pub table: String,
    pub partition: Option<String>,
    /// `true` for an update, `false` for a delete (two deletes do not conflict).
    pub is_update: bool,
}

/// What a committed transaction updated or deleted (Hive's `WRITE_SET`), kept while an open
/// transaction that started before the commit could still conflict with it.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct WriteSet {
    /// The highest transaction id handed out when it committed.
    pub commit_id: u64,
    pub writes: Vec<WriteComponent>,
}

stored_value!(WriteSet, ValueKind::WriteSet);

stored_value!(TxnRecord, ValueKind::Txn);

/// A transaction in memory.
#[derive(Debug, Clone)]
pub(crate) struct HeldTxn {
    pub record: TxnRecord,
    pub last_heartbeat_ms: i64,
    pub heartbeat_count: u32,
}

impl HeldTxn {
    /// `record` as held from `now`: heartbeated then, never since.
    pub(crate) fn new(record: TxnRecord, now: i64) -> Self {
        HeldTxn {
            record,
            last_heartbeat_ms: now,
            heartbeat_count: 0,
        }
    }
}

/// What an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxnStatus {
    Open,
    Aborted,
    Committed,
    Unknown,
}

/// Every transaction not yet committed, by id.
#[derive(Debug, Default)]
pub(crate) struct TxnSpace {
    pub next_txn_id: u64,
    pub txns: BTreeMap<u64, HeldTxn>,
    /// Write sets of committed transactions, by transaction id.
    pub write_sets: BTreeMap<u64, WriteSet>,
    /// Minimum history write ids of open transactions (`add_write_ids_to_min_history`).
    pub min_history: BTreeMap<u64, MinHistory>,
    /// Replayed transactions (Hive's `REPL_TXN_MAP`): by replication policy and source
    /// transaction id, the transaction opened here for it.
    pub repl_map: BTreeMap<(String, u64), u64>,
}

impl TxnSpace {
    /// Gives `record` the next transaction id and holds it from `now`; answers the id.
    pub(crate) fn start(&mut self, record: TxnRecord, now: i64) -> u64 {
        let txn_id = self.next_txn_id;
        self.next_txn_id += 1;
        self.txns.insert(txn_id, HeldTxn::new(record, now));
        txn_id
    }

    pub(crate) fn status(&self, txn_id: u64) -> TxnStatus {
        match self.txns.get(&txn_id) {
            Some(txn) if txn.record.state == TxnState::Open => TxnStatus::Open,
            Some(_) => TxnStatus::Aborted,
            None if txn_id != 0 && txn_id < self.next_txn_id => TxnStatus::Committed,
            None => TxnStatus::Unknown,
        }
    }

    /// Open transactions whose last heartbeat is more than `timeout_ms` ago; replayed
    /// (`REPL_CREATED`) ones after Hive's `metastore.repl.txn.timeout` instead.
    pub(crate) fn expired(&self, now_ms: i64, timeout_ms: i64) -> Vec<u64> {
        self.txns
            .iter()
            .filter(|(_, txn)| txn.record.state == TxnState::Open)
            .filter(|(_, txn)| {
                let timeout_ms = if txn.record.txn_type == TxnType::ReplCreated {
                    super::REPL_TXN_TIMEOUT_MS
                } else {
                    timeout_ms
                };
                now_ms.saturating_sub(txn.last_heartbeat_ms) > timeout_ms
            })
            .map(|(id, _)| *id)
            .collect()
    }
}
