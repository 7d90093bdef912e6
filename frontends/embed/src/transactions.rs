//! Hive's transactions and locks: open, commit and abort transactions, allocate write ids,
//! take and release locks with Hive 4's compatibility rules. Nothing waits here: a lock
//! that cannot be granted yet is `Waiting`, and the caller polls [`Metastore::check_lock`].

use hivestore_engine::locks::{LockRequest, LockResponse, LockStatus, ShowLocksFilter};
use hivestore_engine::txns::{OpenTxnRequest, OpenTxns, TableValidWriteIds};
use hivestore_engine::Result;

use crate::Metastore;

impl Metastore {
    /// Opens `request.count` transactions (at most the engine's batch bound, as Hive);
    /// returns their ids, consecutive.
    ///
    /// # Example
    ///
    /// ```
    /// use hivestore::locks::{LockComponent, LockLevel, LockRequest, LockState, LockType};
    /// use hivestore::txns::OpenTxnRequest;
    /// use hivestore::{Metastore, StoreOptions};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// let request = OpenTxnRequest { count: 2, user: "etl".into(), hostname: "worker-1".into(), ..Default::default() };
    /// let txns = metastore.open_txns(request)?;
    /// let table_lock = |txn_id: u64| LockRequest {
    ///     components: vec![LockComponent {
    ///         lock_type: LockType::Exclusive,
    ///         level: LockLevel::Table,
    ///         database: "default".into(),
    ///         table: Some("orders".into()),
    ///         partition: None,
    ///         operation: None,
    ///         is_transactional: false,
    ///         is_dynamic_partition_write: false,
    ///     }],
    ///     txn_id: Some(txn_id),
    ///     user: "etl".into(),
    ///     hostname: "worker-1".into(),
    ///     agent_info: None,
    /// };
    /// let first = metastore.lock(table_lock(txns[0]))?;
    /// assert_eq!(first.state, LockState::Acquired);
    /// let second = metastore.lock(table_lock(txns[1]))?;
    /// assert_eq!(second.state, LockState::Waiting);
    ///
    /// metastore.commit_txn(txns[0])?; // releases its locks
    /// assert_eq!(metastore.check_lock(second.lock_id)?.state, LockState::Acquired);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_txns(&self, request: OpenTxnRequest) -> Result<Vec<u64>> {
        self.settled(|store| store.open_txns(request))
    }

    /// Commits open transaction `txn_id`, releasing its locks; fails if it was aborted
    /// (for example, because it timed out).
    pub fn commit_txn(&self, txn_id: u64) -> Result<()> {
        self.settled(|store| store.commit_txn(txn_id))
    }

    /// Aborts open transaction `txn_id`, releasing its locks.
    pub fn abort_txn(&self, txn_id: u64) -> Result<()> {
        self.settled(|store| store.abort_txn(txn_id))
    }

    /// Keeps transaction `txn_id` from timing out (`StoreOptions`'s transaction timeout,
    /// Hive's `metastore.txn.timeout`).
    pub fn heartbeat_txn(&self, txn_id: u64) -> Result<()> {
        self.settled(|store| store.heartbeat_txn(txn_id))
    }

    /// The transactions neither committed nor forgotten (open or aborted), and the highest
    /// id handed out.
    pub fn open_txns_info(&self) -> Result<OpenTxns> {
        self.settled(|store| store.open_txns_info(&[]))
    }

    /// A write id on `database.table` for each of the open transactions `txn_ids`, as
    /// `(txn_id, write_id)` in transaction order; a transaction that has one keeps it.
    pub fn allocate_table_write_ids(
        &self,
        database: &str,
        table: &str,
        txn_ids: &[u64],
    ) -> Result<Vec<(u64, u64)>> {
        self.settled(|store| store.allocate_table_write_ids(database, table, txn_ids))
    }

    /// For each `db.table` of `full_table_names`, the write ids a reader starting now must
    /// not see (Hive's `get_valid_write_ids`).
    pub fn valid_write_ids(&self, full_table_names: &[String]) -> Result<Vec<TableValidWriteIds>> {
        self.settled(|store| store.valid_write_ids(full_table_names, None))
    }

    /// Queues the locks of `request`, all or none, and acquires them at once if nothing
    /// earlier conflicts; otherwise the answer is `Waiting` and [`Metastore::check_lock`]
    /// tells when they are acquired.
    pub fn lock(&self, request: LockRequest) -> Result<LockResponse> {
        self.settled(|store| store.lock(request))
    }

    /// Lock `lock_id`'s state now, acquiring it if it can be.
    pub fn check_lock(&self, lock_id: u64) -> Result<LockResponse> {
        self.settled(|store| store.check_lock(lock_id))
    }

    /// Releases lock `lock_id`, which must not belong to a transaction (those go with their
    /// commit or abort).
    pub fn unlock(&self, lock_id: u64) -> Result<()> {
        self.settled(|store| store.unlock(lock_id))
    }

    /// Keeps lock `lock_id` (taken outside a transaction) from timing out.
    pub fn heartbeat_lock(&self, lock_id: u64) -> Result<()> {
        self.settled(|store| store.heartbeat_lock(lock_id))
    }

    /// The locks `filter` selects (Hive's `SHOW LOCKS`).
    pub fn show_locks(&self, filter: &ShowLocksFilter) -> Result<Vec<LockStatus>> {
        self.settled(|store| store.show_locks(filter))
    }
}
