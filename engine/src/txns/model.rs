//! Hive's transactions and write ids as callers see them.

use rkyv::{Archive, Deserialize, Serialize};

/// The most transactions one `open_txns` call may open (Hive's `hive.txn.max.open.batch`).
pub const OPEN_TXN_BATCH_MAX: u32 = 1000;
/// The most transactions open at once (Hive's `metastore.max.open.txns`).
pub const OPEN_TXN_COUNT_MAX: usize = 100_000;
/// The most transaction ids one `abort_txns`, `allocate_table_write_ids` or heartbeat range
/// may name.
pub const TXN_ID_LIST_LEN_MAX: usize = 100_000;

/// Hive's `TxnType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub enum TxnType {
    /// `DEFAULT`
    #[default]
    Default,
    /// `REPL_CREATED`
    ReplCreated,
    /// `READ_ONLY`
    ReadOnly,
    /// `COMPACTION`
    Compaction,
    /// `MATER_VIEW_REBUILD`
    MaterializedViewRebuild,
    /// `SOFT_DELETE`
    SoftDelete,
    /// `REBALANCE_COMPACTION`
    RebalanceCompaction,
}

/// Where a transaction is; committed transactions are no longer listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum TxnState {
    /// Open: its writes are invisible to others.
    Open,
    /// Aborted, by its client or by a timeout: its writes are invalid for ever.
    Aborted,
}

/// Hive's `OpenTxnRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpenTxnRequest {
    /// How many transactions to open, at least 1.
    pub count: u32,
    /// Who opens them.
    pub user: String,
    /// From where.
    pub hostname: String,
    /// What the client calls itself.
    pub agent_info: Option<String>,
    /// What kind of transactions.
    pub txn_type: TxnType,
}

/// A transaction as `get_open_txns_info` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnSummary {
    /// Its id.
    pub txn_id: u64,
    /// Open or aborted.
    pub state: TxnState,
    /// What kind.
    pub txn_type: TxnType,
    /// Who opened it.
    pub user: String,
    /// From where.
    pub hostname: String,
    /// What the client calls itself.
    pub agent_info: Option<String>,
    /// Heartbeats since the server started.
    pub heartbeat_count: u32,
    /// When it was opened, milliseconds since the epoch.
    pub started_at_ms: i64,
    /// Its last heartbeat, milliseconds since the epoch.
    pub last_heartbeat_ms: i64,
}

/// Every transaction not yet committed, and the highest id handed out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpenTxns {
    /// The highest transaction id handed out; 0 before the first.
    pub high_water_mark: u64,
    /// The open and aborted transactions, by id.
    pub txns: Vec<TxnSummary>,
}

/// The write ids of one table that a reader must not see, as of a transaction snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableValidWriteIds {
    /// `db.table`, normalised.
    pub full_table_name: String,
    /// The highest write id whose transaction is in the snapshot; higher ones are invalid.
    pub high_water_mark: u64,
    /// Write ids at or below the high water mark of open or aborted transactions, ascending.
    pub invalid_write_ids: Vec<u64>,
    /// For each invalid write id, whether its transaction is aborted (else open).
    pub aborted: Vec<bool>,
    /// The lowest invalid write id of an open transaction.
    pub min_open_write_id: Option<u64>,
}
