//! Hive's lock model: what a lock request names, what a lock looks like to `show_locks`.

use rkyv::{Archive, Deserialize, Serialize};

/// Hive's `LockType`, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Archive, Serialize, Deserialize)]
pub enum LockType {
    /// `SHARED_READ`: readers; only `EXCLUSIVE` excludes it.
    SharedRead,
    /// `SHARED_WRITE`: ACID inserts and updates; several may hold it at once.
    SharedWrite,
    /// `EXCL_WRITE`: writers that exclude other writers but not readers.
    ExclusiveWrite,
    /// `EXCLUSIVE`: DDL, and Iceberg's commits; excludes every other lock.
    Exclusive,
}

/// Hive's `LockLevel`: what a component locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum LockLevel {
    /// `DB`: a whole database.
    Database,
    /// `TABLE`: a table and all its partitions.
    Table,
    /// `PARTITION`: one partition.
    Partition,
}

/// Hive's `LockState` as a lock request sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    /// Every component is held.
    Acquired,
    /// An earlier conflicting lock is in the way; the client polls `check_lock`.
    Waiting,
}

/// Hive's `DataOperationType`: why a component is locked (kept for transactions'
/// write sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum DataOperation {
    /// `SELECT`
    Select,
    /// `INSERT`
    Insert,
    /// `UPDATE`
    Update,
    /// `DELETE`
    Delete,
    /// `UNSET`
    Unset,
    /// `NO_TXN`
    NoTxn,
}

/// One thing a lock request locks.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct LockComponent {
    /// How strongly.
    pub lock_type: LockType,
    /// At which level; must agree with which names are given.
    pub level: LockLevel,
    /// The database; normalised (lowercased) when the lock is taken.
    pub database: String,
    /// The table, for table and partition locks; normalised.
    pub table: Option<String>,
    /// The partition name (`ds=2024-01-01/hr=3`), for partition locks; case-sensitive.
    pub partition: Option<String>,
    /// Why, when the client says.
    pub operation: Option<DataOperation>,
    /// Whether the table is transactional, when the client says.
    pub is_transactional: bool,
    /// Whether the partitions written are not known yet (a dynamic-partition write): they
    /// come later through [`Store::add_dynamic_partitions`](crate::Store::add_dynamic_partitions).
    pub is_dynamic_partition_write: bool,
}

/// Hive's `LockRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LockRequest {
    /// What to lock; at least one component, all taken or none.
    pub components: Vec<LockComponent>,
    /// The transaction the lock belongs to; `None` (or Hive's 0) for none.
    pub txn_id: Option<u64>,
    /// Who asks.
    pub user: String,
    /// From where.
    pub hostname: String,
    /// What the client calls itself (Iceberg: `Iceberg-<uuid>`), used to find a lock again.
    pub agent_info: Option<String>,
}

/// Hive's `LockResponse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockResponse {
    /// The lock's id (Hive's external lock id).
    pub lock_id: u64,
    /// Whether it is held.
    pub state: LockState,
}

/// Which locks `show_locks` lists; `None` matches anything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShowLocksFilter {
    /// Only locks on this database.
    pub database: Option<String>,
    /// Only locks on this table.
    pub table: Option<String>,
    /// Only locks on this partition.
    pub partition: Option<String>,
    /// Only locks of this transaction.
    pub txn_id: Option<u64>,
}

/// One component of one lock, as `show_locks` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockStatus {
    /// The lock's id.
    pub lock_id: u64,
    /// The component's number within the lock, from 1 (Hive's internal lock id).
    pub component_id: u64,
    /// The database.
    pub database: String,
    /// The table, unless a database lock.
    pub table: Option<String>,
    /// The partition, for partition locks.
    pub partition: Option<String>,
    /// Held or waiting.
    pub state: LockState,
    /// How strongly.
    pub lock_type: LockType,
    /// The transaction, 0 for none.
    pub txn_id: u64,
    /// Last heartbeat, milliseconds since the epoch; 0 for locks of a transaction (the
    /// transaction is heartbeated instead), as Hive reports.
    pub last_heartbeat_ms: i64,
    /// When it was acquired, milliseconds since the epoch.
    pub acquired_at_ms: Option<i64>,
    /// Who holds it.
    pub user: String,
    /// From where.
    pub hostname: String,
    /// How many heartbeats it has had since the server started.
    pub heartbeat_count: u32,
    /// What the client calls itself.
    pub agent_info: Option<String>,
    /// The lock that kept it waiting at its last check, with the component number.
    pub blocked_by: Option<(u64, u64)>,
}
