//! Hive's transactions and table write ids: `open_txns`, `commit_txn`, `abort_txn(s)`,
//! `heartbeat` of a transaction, `get_open_txns(_info)`, `allocate_table_write_ids`,
//! `get_valid_write_ids`, `get_max_allocated_table_write_id`; and Hive's locks ([`locks`]),
//! with which they share one table in memory.
//!
//! Transactions share the lock table's mutex and atomic writes (see [`locks`]): a
//! commit or abort releases the transaction's locks in the same batch. An open transaction
//! that is not heartbeated (`heartbeat`, or `check_lock` of one of its locks) for the
//! timeout is aborted. Committed transactions are removed; aborted ones stay listed (their
//! write ids stay invalid: hivestore runs no compactions that would clean them up).
//!
//! A transaction's updates and deletes (the operation types of its locks) are checked on
//! commit against the transactions that committed after it started, as Hive's `WRITE_SET`:
//! the same table and partition, and one of the two an update, aborts the later committer.
//!
//! Write ids count per table from 1. Each one handed out is stored with its transaction,
//! so that a reader's snapshot of transactions (Hive's `ValidTxnList`) turns into the write
//! ids it must not see.

pub(crate) mod acid;
mod commit_extras;
mod compaction_cleanup;
mod compaction_history;
pub(crate) mod compaction_legacy;
pub(crate) mod compaction_metrics;
pub(crate) mod compactions;
pub(crate) mod compactor;
pub mod locks;
pub(crate) mod materializations;
mod min_history;
mod model;
mod purge;
mod repl_ids;
mod repl_txns;
mod replication;
mod snapshot;
pub(crate) mod state;
mod write_id_list;

use std::collections::BTreeSet;

pub use commit_extras::{CommitExtras, TxnKeyValue, TXN_KEY_PREFIX};
pub use compaction_cleanup::{CompactionAbortOutcome, COMPACTION_ABORTED_MESSAGE};
pub use compaction_history::{
    HISTORY_RETAINED_DID_NOT_INITIATE, HISTORY_RETAINED_FAILED, HISTORY_RETAINED_REFUSED,
    HISTORY_RETAINED_SUCCEEDED, HISTORY_RETENTION_TIMEOUT_MS,
};
pub use compaction_metrics::{
    CompactionMetric, CompactionMetricType, KeptMetric, COMPACTION_METRIC_COUNT_MAX,
};
pub use compactions::{
    BucketLayout, Compaction, CompactionEntry, CompactionResponse, CompactionState, CompactionType,
    ShowCompactFilter, COMPACTION_COUNT_MAX, COMPACTION_STATE_INITIATED, COMPACTION_STATE_REFUSED,
};
pub use compactor::{
    CompactionReport, NextCompactionRequest, COMPACTOR_COMPONENT_COUNT_MAX,
    COMPACTOR_POOL_TIMEOUT_MS, COMPACTOR_WORKER_TIMEOUT_MS,
};
pub use materializations::{
    MaterializationInvalidation, MATERIALIZATION_SOURCE_COUNT_MAX, REBUILD_LOCK_COUNT_MAX,
    UPDATE_DELETE_MARKS_PER_TABLE_MAX,
};
pub use min_history::MIN_HISTORY_TABLE_COUNT_MAX;
pub use model::{
    OpenTxnRequest, OpenTxns, TableValidWriteIds, TxnState, TxnSummary, TxnType,
    OPEN_TXN_BATCH_MAX, OPEN_TXN_COUNT_MAX, TXN_ID_LIST_LEN_MAX,
};
pub use purge::OPEN_TXN_WINDOW_MS;
pub use repl_ids::{
    ReplLastId, REPL_INCOMPATIBLE_PARAMETER, REPL_LAST_ID_PARAMETER,
    REPL_LAST_ID_PARTITION_COUNT_MAX,
};
pub use repl_txns::{ReplRole, REPL_POLICY_LEN_MAX, REPL_TXN_TIMEOUT_MS};
pub use replication::ReplWriteIdState;
use snapshot::TxnSnapshot;
pub(crate) use state::TxnSpace;
use state::{HeldTxn, TableWriteId, TxnRecord, TxnStatus, WriteComponent, WriteSet};
pub(crate) use write_id_list::WriteIdSnapshot;

use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord, WriteEvent, WriteNotification};
use crate::model::names;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values;
use crate::store::Store;
use crate::txns::locks::{
    now_ms, txn_id_text, AcidChanges, AcidState, DataOperation, LockComponent,
};

/// Adds the updates and deletes among `components` to the write set of open transaction
/// `txn_id` (Hive records them from the lock request). Answers whether it grew.
pub(crate) fn record_writes(
    txns: &mut TxnSpace,
    txn_id: u64,
    components: &[LockComponent],
) -> bool {
    let Some(txn) = txns.txns.get_mut(&txn_id) else {
        return false;
    };
    let before = txn.record.writes.len();
    for component in components.iter().filter(|c| !c.is_dynamic_partition_write) {
        let is_update = match component.operation {
            Some(DataOperation::Update) => true,
            Some(DataOperation::Delete) => false,
            _ => continue,
        };
        let Some(table) = component.table.clone() else {
            continue;
        };
        let write = WriteComponent {
            database: component.database.clone(),
            table,
            partition: component.partition.clone(),
            is_update,
        };
        if !txn.record.writes.contains(&write) {
            txn.record.writes.push(write);
        }
    }
    txn.record.writes.len() != before
}

/// Hive's write-write conflict: a transaction that committed after `txn_id` started (its
/// commit id at or above `txn_id`) updated or deleted the same table and partition, and one
/// of the two writes is an update. Answers the committed transaction, its write set entry
/// and the committing transaction's conflicting write.
fn find_write_conflict(txns: &TxnSpace, txn_id: u64) -> Option<(u64, u64, WriteComponent, bool)> {
    let writes = &txns.txns.get(&txn_id)?.record.writes;
    for (committed_id, set) in &txns.write_sets {
        if set.commit_id < txn_id || *committed_id == txn_id {
            continue;
        }
        for committed in &set.writes {
            let conflicting = writes.iter().find(|current| {
                current.database == committed.database
                    && current.table == committed.table
                    && current.partition == committed.partition
                    && (current.is_update || committed.is_update)
            });
            if let Some(current) = conflicting {
                return Some((
                    *committed_id,
                    set.commit_id,
                    committed.clone(),
                    current.is_update,
                ));
            }
        }
    }
    None
}

/// Hive's message for a transaction aborted on commit by `conflict` (see
/// [`find_write_conflict`]).
fn write_conflict_message(
    txn_id: u64,
    commit_id: u64,
    conflict: (u64, u64, WriteComponent, bool),
) -> String {
    let (committed_id, committed_commit_id, write, current_is_update) = conflict;
    let mut resource = format!("{}/{}", write.database, write.table);
    if let Some(partition) = &write.partition {
        resource.push('/');
        resource.push_str(partition);
    }
    format!(
        "Aborting [{},{commit_id}] due to a write conflict on {resource} committed by [{},{committed_commit_id}] {}/{}",
        txn_id_text(txn_id),
        txn_id_text(committed_id),
        operation_letter(current_is_update),
        operation_letter(write.is_update)
    )
}

fn operation_letter(is_update: bool) -> char {
    if is_update {
        'u'
    } else {
        'd'
    }
}

/// Hive's errors for a transaction that is not open.
pub(crate) fn require_open(txns: &TxnSpace, txn_id: u64) -> Result<()> {
    let text = txn_id_text(txn_id);
    match txns.status(txn_id) {
        TxnStatus::Open => Ok(()),
        TxnStatus::Aborted => Err(Error::TxnAborted(format!(
            "Transaction {text} already aborted"
        ))),
        TxnStatus::Committed => Err(Error::NoSuchTxn(format!(
            "Transaction {text} is already committed."
        ))),
        TxnStatus::Unknown => Err(Error::NoSuchTxn(format!("No such transaction {text}"))),
    }
}

pub(crate) fn heartbeat(txn: &mut HeldTxn, now: i64) {
    txn.last_heartbeat_ms = now;
    txn.heartbeat_count = txn.heartbeat_count.saturating_add(1);
}

/// Marks an open transaction aborted and releases its locks.
pub(crate) fn abort_in_memory(acid: &mut AcidState, txn_id: u64, changes: &mut AcidChanges) {
    abort_logged(acid, txn_id, changes, true);
}

/// [`abort_in_memory`], with its `ABORT_TXN` event only when `logged` (Hive logs none for a
/// transaction its replication opened on the source, `replPolicy` with type `DEFAULT`).
pub(crate) fn abort_logged(
    acid: &mut AcidState,
    txn_id: u64,
    changes: &mut AcidChanges,
    logged: bool,
) {
    if let Some(txn) = acid.txns.txns.get_mut(&txn_id) {
        txn.record.state = TxnState::Aborted;
        changes.txns_written.push(txn_id);
        if logged {
            let body = EventBody::Txns {
                txn_ids: vec![txn_id],
            };
            changes
                .events
                .push(EventRecord::new(EventKind::AbortTxn, "", "", "", body));
        }
    }
    min_history::forget(&mut acid.txns, txn_id, changes);
    repl_txns::forget_target(&mut acid.txns, txn_id, changes);
    acid.release_txn_locks(txn_id, changes);
}

impl Store {
    /// Hive's `open_txns`: `count` consecutive new transaction ids, at most
    /// [`OPEN_TXN_BATCH_MAX`]: as Hive does, a larger request opens that many and says so only
    /// by the length of the answer.
    pub fn open_txns(&self, request: OpenTxnRequest) -> Result<Vec<u64>> {
        self.open_txns_for(request, None)
    }

    /// Hive's `open_txns` with `replPolicy`: as [`Store::open_txns`]; with `repl` (policy and
    /// source transaction ids, one a transaction), transactions of type `REPL_CREATED`
    /// replay those of another metastore: each source id is mapped to the transaction opened
    /// for it, and when some of the ids are mapped already the call opens nothing and answers
    /// their transactions, as Hive does. A `DEFAULT` transaction with a policy (opened by
    /// replication on its source) logs no `OPEN_TXN` event.
    pub fn open_txns_for(
        &self,
        mut request: OpenTxnRequest,
        repl: Option<(String, Vec<u64>)>,
    ) -> Result<Vec<u64>> {
        let replayed = repl_txns::check_open(&request, repl.as_ref())?;
        if let Some((policy, sources)) = &replayed {
            let mapped = self.with_acid(now_ms(), |acid, _| {
                Ok(repl_txns::mapped_targets(&acid.txns, policy, sources))
            })?;
            if !mapped.is_empty() {
                return Ok(mapped);
            }
        }
        let logged = !(repl.is_some() && request.txn_type == TxnType::Default);
        if request.count == 0 {
            return Err(Error::InvalidInput(
                "Invalid input for number of txns: 0".to_string(),
            ));
        }
        request.count = request.count.min(OPEN_TXN_BATCH_MAX);
        let now = now_ms();
        self.with_acid(now, |acid, changes| {
            let count = usize::try_from(request.count).unwrap_or(usize::MAX);
            // Hive counts open transactions only; aborted ones stay listed until cleaned, so
            // they are counted only when the cheap bound (all of them) is over the limit.
            if acid.txns.txns.len().saturating_add(count) > OPEN_TXN_COUNT_MAX {
                let open = acid
                    .txns
                    .txns
                    .values()
                    .filter(|txn| txn.record.state == TxnState::Open)
                    .count();
                if open.saturating_add(count) > OPEN_TXN_COUNT_MAX {
                    return Err(Error::Refused(format!(
                        "Maximum allowed number of open transactions ({OPEN_TXN_COUNT_MAX}) has been reached. Current number of open transactions: {open}"
                    )));
                }
            }
            let mut opened = Vec::with_capacity(count);
            for _ in 0..request.count {
                let record = TxnRecord {
                    state: TxnState::Open,
                    txn_type: request.txn_type,
                    user: request.user.clone(),
                    hostname: request.hostname.clone(),
                    agent_info: request.agent_info.clone(),
                    started_at_ms: now,
                    write_ids: Vec::new(),
                    writes: Vec::new(),
                };
                let txn_id = acid.txns.start(record, now);
                changes.txns_written.push(txn_id);
                opened.push(txn_id);
            }
            changes.txn_counter_moved = true;
            if let Some((policy, sources)) = &replayed {
                // Mapped in the same batch: a retry after a lost answer finds them.
                let mapped = repl_txns::mapped_targets(&acid.txns, policy, sources);
                if !mapped.is_empty() {
                    return Err(Error::Refused(format!(
                        "open_txns: source transactions of {policy} were mapped meanwhile"
                    )));
                }
                repl_txns::map(&mut acid.txns, policy, sources, &opened, changes);
            }
            if logged {
                let body = EventBody::Txns {
                    txn_ids: opened.clone(),
                };
                changes
                    .events
                    .push(EventRecord::new(EventKind::OpenTxn, "", "", "", body));
            }
            Ok(opened)
        })
    }

    /// Hive's `commit_txn`: the transaction's writes become valid and its locks go.
    /// Committing a committed transaction again is harmless, as in Hive 4 (a retry).
    pub fn commit_txn(&self, txn_id: u64) -> Result<()> {
        self.commit_txn_with(txn_id, CommitExtras::default())
    }

    /// Hive's `commit_txn` with `writeEventInfos` and `keyValue`: as [`Store::commit_txn`],
    /// and in the batch of the commit each write of `extras` (of this transaction) is recorded
    /// as `add_write_notification_log` records it, with its `ACID_WRITE` event, and the table
    /// parameter of its key/value is set. The tables, partitions and parameter must exist;
    /// otherwise nothing changes and the transaction stays open.
    pub fn commit_txn_with(&self, txn_id: u64, extras: CommitExtras) -> Result<()> {
        self.commit_txn_as(txn_id, extras, &ReplRole::None)
    }

    /// [`Store::commit_txn_with`] in a replication role: a replayed commit names the source
    /// transaction, resolved through the policy's map (a source id not mapped, or no longer,
    /// commits nothing, as Hive does with a retry), is not checked for write conflicts and
    /// forgets the mapping; a commit of replication on its source logs no `COMMIT_TXN`.
    pub fn commit_txn_as(&self, txn_id: u64, extras: CommitExtras, role: &ReplRole) -> Result<()> {
        let CommitExtras {
            writes,
            key_value,
            repl_last_id,
        } = extras;
        let source_txn_id = txn_id;
        if writes.len() > crate::events::WRITE_NOTIFICATION_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "commit_txn reports {} writes; at most {} are allowed",
                writes.len(),
                crate::events::WRITE_NOTIFICATION_COUNT_MAX
            )));
        }
        self.with_acid(now_ms(), |acid, changes| {
            // As Hive, `replLastIdInfo` is checked first: a database, table or partition it
            // names that does not exist fails even a retried commit.
            let repl_last_id_puts = repl_last_id
                .as_ref()
                .map(|info| self.repl_last_id_puts(info))
                .transpose()?
                .unwrap_or_default();
            let txn_id = match role {
                ReplRole::Replayed { policy } => {
                    let key = (policy.clone(), source_txn_id);
                    let Some(target) = acid.txns.repl_map.get(&key).copied() else {
                        tracing::info!(policy = %policy, source_txn_id, "replayed commit of a source transaction not mapped");
                        return Ok(());
                    };
                    target
                }
                _ => txn_id,
            };
            if let Some(other) = writes.iter().find(|write| write.txn_id != source_txn_id) {
                return Err(Error::InvalidInput(format!(
                    "commit_txn of {} reports a write of {}",
                    txn_id_text(source_txn_id),
                    txn_id_text(other.txn_id)
                )));
            }
            if acid.txns.status(txn_id) == TxnStatus::Committed {
                return Ok(());
            }
            require_open(&acid.txns, txn_id)?;
            let replayed = matches!(role, ReplRole::Replayed { .. });
            let writes = writes
                .iter()
                .cloned()
                .map(|write| {
                    let write = WriteNotification { txn_id, ..write };
                    if replayed {
                        crate::events::relocate_replayed_write(self.reader(), write)
                    } else {
                        Ok(write)
                    }
                })
                .collect::<Result<Vec<WriteNotification>>>()?;
            let commit_id = acid.txns.next_txn_id.saturating_sub(1);
            let conflict = if replayed {
                None
            } else {
                find_write_conflict(&acid.txns, txn_id)
            };
            if let Some(conflict) = conflict {
                let message = write_conflict_message(txn_id, commit_id, conflict);
                tracing::info!(txn_id, %message, "write conflict");
                abort_in_memory(acid, txn_id, changes);
                return Err(Error::TxnAborted(message));
            }
            let table_put = key_value
                .as_ref()
                .map(|key_value| self.key_value_put(txn_id, key_value))
                .transpose()?;
            let writes = self.record_commit_writes(txn_id, &writes, changes)?;
            if let Some(committing) = acid.txns.txns.get(&txn_id) {
                let record = &committing.record;
                if !record.writes.is_empty() {
                    materializations::mark_update_delete(self, txn_id, &record.write_ids, changes)?;
                }
                if record.txn_type == TxnType::MaterializedViewRebuild {
                    materializations::release_rebuild_locks(self, txn_id, changes)?;
                }
            }
            let catalog_puts = repl_ids::with_key_value(
                repl_last_id_puts,
                table_put,
                key_value.as_ref(),
            )?;
            changes.puts.extend(catalog_puts);
            let Some(committed) = acid.txns.txns.remove(&txn_id) else {
                return Ok(());
            };
            changes.txns_removed.push(txn_id);
            min_history::forget(&mut acid.txns, txn_id, changes);
            repl_txns::forget_target(&mut acid.txns, txn_id, changes);
            acid.release_txn_locks(txn_id, changes);
            if *role != ReplRole::Source {
                let body = EventBody::Commit { txn_id, writes };
                changes
                    .events
                    .push(EventRecord::new(EventKind::CommitTxn, "", "", "", body));
            }
            let txn_type = committed.record.txn_type;
            if matches!(txn_type, TxnType::Compaction | TxnType::SoftDelete) {
                let logged = txn_type == TxnType::Compaction;
                self.compaction_committed(txn_id, commit_id, logged, changes)?;
            }
            if !committed.record.writes.is_empty() {
                let set = WriteSet {
                    commit_id,
                    writes: committed.record.writes,
                };
                changes
                    .puts
                    .push((keys::write_set_key(txn_id), values::encode(&set)?));
                acid.txns.write_sets.insert(txn_id, set);
            }
            prune_write_sets(&mut acid.txns, changes);
            Ok(())
        })
    }

    /// Records `writes` of committing transaction `txn_id` in `changes` (entries and their
    /// `ACID_WRITE` events) and answers all its writes, for its `COMMIT_TXN` event.
    fn record_commit_writes(
        &self,
        txn_id: u64,
        writes: &[WriteNotification],
        changes: &mut AcidChanges,
    ) -> Result<Vec<WriteEvent>> {
        let mut all: std::collections::BTreeMap<Vec<u8>, WriteEvent> =
            crate::events::read_write_events(self.reader(), txn_id)?
                .into_iter()
                .map(|write| {
                    let partition = write.partition.as_deref().unwrap_or("");
                    let key =
                        keys::write_event_key(txn_id, &write.database, &write.table, partition);
                    (key, write)
                })
                .collect();
        // Everything is built before `changes` grows: a failed body must leave no event
        // behind (`with_acid` writes the events of a failed body, for its timeouts).
        let mut built = Vec::with_capacity(writes.len());
        for write in writes {
            let (key, recorded) = crate::events::build_write_event(self.reader(), write)?;
            let encoded = values::encode(&recorded)?;
            built.push((key, encoded, recorded));
        }
        for (key, encoded, recorded) in built {
            changes.puts.push((key.clone(), encoded));
            changes
                .events
                .push(crate::events::write_event_record(&recorded));
            all.insert(key, recorded);
        }
        Ok(all.into_values().collect())
    }

    /// Hive's `get_latest_txnid_in_conflict`: the highest id of the transactions that
    /// committed after `txn_id` started and updated or deleted a table or partition that
    /// `txn_id` updates or deletes (its whole table, when it names no partition); 0 when
    /// there is none, or `txn_id` names no open or aborted transaction.
    pub fn latest_txn_id_in_conflict(&self, txn_id: u64) -> Result<u64> {
        self.with_acid(now_ms(), |acid, _| {
            let Some(txn) = acid.txns.txns.get(&txn_id) else {
                return Ok(0);
            };
            let current = &txn.record.writes;
            let overlaps = |committed: &WriteComponent| {
                current.iter().any(|write| {
                    write.database == committed.database
                        && write.table == committed.table
                        && (write.partition.is_none() || write.partition == committed.partition)
                })
            };
            let latest = acid
                .txns
                .write_sets
                .iter()
                .filter(|(_, set)| set.commit_id >= txn_id)
                .filter(|(_, set)| set.writes.iter().any(overlaps))
                .map(|(committed_id, _)| *committed_id)
                .max();
            Ok(latest.unwrap_or(0))
        })
    }

    /// Hive's `abort_txn`: aborting an aborted transaction is harmless; a committed or
    /// unknown one is `NoSuchTxn`.
    pub fn abort_txn(&self, txn_id: u64) -> Result<()> {
        self.abort_txn_as(txn_id, &ReplRole::None)
    }

    /// [`Store::abort_txn`] in a replication role: a replayed abort names the source
    /// transaction, resolved through the policy's map (a source id not mapped aborts nothing,
    /// as Hive does), and forgets the mapping; an abort of replication on its source logs no
    /// `ABORT_TXN`. Any other abort of a transaction that replays a source transaction marks
    /// the database of its policy `repl.incompatible=true`, as Hive does.
    pub fn abort_txn_as(&self, txn_id: u64, role: &ReplRole) -> Result<()> {
        self.with_acid(now_ms(), |acid, changes| {
            let txn_id = match role {
                ReplRole::Replayed { policy } => {
                    let key = (policy.clone(), txn_id);
                    let Some(target) = acid.txns.repl_map.get(&key).copied() else {
                        tracing::info!(policy = %policy, source_txn_id = txn_id, "replayed abort of a source transaction not mapped");
                        return Ok(());
                    };
                    target
                }
                _ => txn_id,
            };
            match acid.txns.status(txn_id) {
                TxnStatus::Open => {
                    if !matches!(role, ReplRole::Replayed { .. }) {
                        let marks = self.repl_incompatible_puts(&acid.txns, &[txn_id])?;
                        changes.puts.extend(marks);
                    }
                    abort_logged(acid, txn_id, changes, *role != ReplRole::Source);
                }
                TxnStatus::Aborted => repl_txns::forget_target(&mut acid.txns, txn_id, changes),
                _ => require_open(&acid.txns, txn_id)?,
            }
            Ok(())
        })
    }

    /// Hive's `abort_txns`: aborts those of `txn_ids` that are open; the others are skipped,
    /// as Hive does (it only logs them). The database of each replayed transaction's policy
    /// is marked `repl.incompatible=true`, as by [`Store::abort_txn_as`].
    pub fn abort_txns(&self, txn_ids: &[u64]) -> Result<()> {
        check_id_list_len(txn_ids.len(), "abort_txns")?;
        self.with_acid(now_ms(), |acid, changes| {
            let open: Vec<u64> = txn_ids
                .iter()
                .copied()
                .filter(|txn_id| acid.txns.status(*txn_id) == TxnStatus::Open)
                .collect();
            let marks = self.repl_incompatible_puts(&acid.txns, &open)?;
            changes.puts.extend(marks);
            for txn_id in txn_ids {
                if acid.txns.status(*txn_id) == TxnStatus::Open {
                    abort_in_memory(acid, *txn_id, changes);
                }
            }
            Ok(())
        })
    }

    /// Hive's `heartbeat` of a transaction.
    pub fn heartbeat_txn(&self, txn_id: u64) -> Result<()> {
        let now = now_ms();
        self.with_acid(now, |acid, _| {
            require_open(&acid.txns, txn_id)?;
            if let Some(txn) = acid.txns.txns.get_mut(&txn_id) {
                heartbeat(txn, now);
            }
            Ok(())
        })
    }

    /// Hive's `heartbeat_txn_range`: heartbeats every open transaction from `min` to `max`;
    /// answers those that are aborted and those that do not exist (or committed).
    pub fn heartbeat_txn_range(&self, min: u64, max: u64) -> Result<(Vec<u64>, Vec<u64>)> {
        let span = max.saturating_sub(min);
        if max >= min && span >= TXN_ID_LIST_LEN_MAX as u64 {
            return Err(Error::InvalidInput(format!(
                "heartbeat_txn_range {min}..{max} names more than {TXN_ID_LIST_LEN_MAX} transactions"
            )));
        }
        let now = now_ms();
        self.with_acid(now, |acid, _| {
            let (mut aborted, mut missing) = (Vec::new(), Vec::new());
            for txn_id in min..=max {
                match acid.txns.status(txn_id) {
                    TxnStatus::Open => {
                        if let Some(txn) = acid.txns.txns.get_mut(&txn_id) {
                            heartbeat(txn, now);
                        }
                    }
                    TxnStatus::Aborted => aborted.push(txn_id),
                    TxnStatus::Committed | TxnStatus::Unknown => missing.push(txn_id),
                }
            }
            Ok((aborted, missing))
        })
    }

    /// The user that opened transaction `txn_id`, while it is not committed; `None` for a
    /// transaction committed or never opened.
    pub fn txn_user(&self, txn_id: u64) -> Result<Option<String>> {
        let acid = self.acid()?;
        Ok(acid
            .txns
            .txns
            .get(&txn_id)
            .map(|held| held.record.user.clone()))
    }

    /// The user that took lock `lock_id`, while it is held or waiting.
    pub fn lock_user(&self, lock_id: u64) -> Result<Option<String>> {
        let acid = self.acid()?;
        Ok(acid
            .locks
            .locks
            .get(&lock_id)
            .map(|held| held.record.user.clone()))
    }

    /// Hive's `get_open_txns_info`: every transaction not committed, by id, of any type but
    /// those in `exclude`.
    pub fn open_txns_info(&self, exclude: &[TxnType]) -> Result<OpenTxns> {
        self.with_acid(now_ms(), |acid, _| {
            let txns = acid
                .txns
                .txns
                .iter()
                .filter(|(_, txn)| !exclude.contains(&txn.record.txn_type))
                .map(|(txn_id, txn)| summary(*txn_id, txn))
                .collect();
            Ok(OpenTxns {
                high_water_mark: acid.txns.next_txn_id.saturating_sub(1),
                txns,
            })
        })
    }

    /// Hive's `allocate_table_write_ids`: a write id on `database.table` for each open
    /// transaction of `txn_ids`, in transaction order; a transaction that has one already
    /// keeps it.
    pub fn allocate_table_write_ids(
        &self,
        database: &str,
        table: &str,
        txn_ids: &[u64],
    ) -> Result<Vec<(u64, u64)>> {
        let (database, table) = normalise_table(database, table)?;
        check_id_list_len(txn_ids.len(), "allocate_table_write_ids")?;
        if txn_ids.is_empty() {
            return Err(Error::InvalidInput(
                "allocate_table_write_ids needs at least one transaction id".to_string(),
            ));
        }
        let ordered: BTreeSet<u64> = txn_ids.iter().copied().collect();
        self.with_acid(now_ms(), |acid, changes| {
            for txn_id in &ordered {
                require_open(&acid.txns, *txn_id)
                    .map_err(|error| allocation_error(error, &database, &table, *txn_id))?;
            }
            let counter_key = keys::write_id_counter_key(&database, &table);
            let mut next_write_id = self.stored_counter(&counter_key)?;
            let mut allocated = Vec::with_capacity(ordered.len());
            let mut newly_allocated = Vec::new();
            for txn_id in &ordered {
                let Some(txn) = acid.txns.txns.get_mut(txn_id) else {
                    continue;
                };
                let existing = txn
                    .record
                    .write_ids
                    .iter()
                    .find(|held| held.database == database && held.table == table);
                if let Some(held) = existing {
                    allocated.push((*txn_id, held.write_id));
                    continue;
                }
                let write_id = next_write_id;
                next_write_id += 1;
                txn.record.write_ids.push(TableWriteId {
                    database: database.clone(),
                    table: table.clone(),
                    write_id,
                });
                changes.txns_written.push(*txn_id);
                let key = keys::write_id_key(&database, &table, write_id);
                changes.puts.push((key, txn_id.to_be_bytes().to_vec()));
                allocated.push((*txn_id, write_id));
                newly_allocated.push((*txn_id, write_id));
            }
            changes
                .puts
                .push((counter_key, next_write_id.to_be_bytes().to_vec()));
            if !newly_allocated.is_empty() {
                let body = EventBody::WriteIds {
                    allocated: newly_allocated,
                };
                let catalog = crate::model::names::DEFAULT_CATALOG_NAME;
                let event =
                    EventRecord::new(EventKind::AllocWriteId, catalog, &database, &table, body);
                changes.events.push(event);
            }
            Ok(allocated)
        })
    }

    /// Hive's `add_dynamic_partitions`: the partitions a dynamic-partition write of open
    /// transaction `txn_id` turned out to touch; updates and deletes among them join its
    /// writes, checked for conflicts on commit.
    pub fn add_dynamic_partitions(
        &self,
        txn_id: u64,
        database: &str,
        table: &str,
        partitions: &[String],
        operation: DataOperation,
    ) -> Result<()> {
        let (database, table) = normalise_table(database, table)?;
        check_id_list_len(partitions.len(), "add_dynamic_partitions")?;
        self.with_acid(now_ms(), |acid, changes| {
            require_open(&acid.txns, txn_id)?;
            let components: Vec<LockComponent> = partitions
                .iter()
                .map(|partition| LockComponent {
                    lock_type: crate::txns::locks::LockType::SharedWrite,
                    level: crate::txns::locks::LockLevel::Partition,
                    database: database.clone(),
                    table: Some(table.clone()),
                    partition: Some(partition.clone()),
                    operation: Some(operation),
                    is_transactional: true,
                    is_dynamic_partition_write: false,
                })
                .collect();
            if record_writes(&mut acid.txns, txn_id, &components) {
                changes.txns_written.push(txn_id);
            }
            Ok(())
        })
    }

    /// Hive's `seed_txn_id`: the next transaction id becomes `seed`, which must be above
    /// every id handed out.
    pub fn seed_txn_id(&self, seed: u64) -> Result<()> {
        self.with_acid(now_ms(), |acid, changes| {
            let high_water_mark = acid.txns.next_txn_id.saturating_sub(1);
            if seed <= high_water_mark {
                return Err(Error::Refused(format!(
                    "Invalid txnId seed {seed}, the highWaterMark is {high_water_mark}"
                )));
            }
            acid.txns.next_txn_id = seed;
            changes.txn_counter_moved = true;
            Ok(())
        })
    }

    /// Hive's `get_max_allocated_table_write_id`: 0 before the first.
    pub fn max_allocated_table_write_id(&self, database: &str, table: &str) -> Result<u64> {
        let (database, table) = normalise_table(database, table)?;
        let _acid = self.acid()?;
        let next = self.stored_counter(&keys::write_id_counter_key(&database, &table))?;
        Ok(next.saturating_sub(1))
    }

    /// Hive's `get_valid_write_ids`: for each `db.table`, the write ids a reader with the
    /// transaction snapshot `valid_txn_list` (Hive's string form; `None`: now) must not see.
    pub fn valid_write_ids(
        &self,
        full_table_names: &[String],
        valid_txn_list: Option<&str>,
    ) -> Result<Vec<TableValidWriteIds>> {
        let given = valid_txn_list.map(TxnSnapshot::parse).transpose()?;
        self.with_acid(now_ms(), |acid, _| {
            let snapshot = match &given {
                Some(snapshot) => snapshot.clone(),
                None => current_snapshot(&acid.txns),
            };
            full_table_names
                .iter()
                .map(|name| self.table_valid_write_ids(name, &snapshot))
                .collect()
        })
    }

    fn table_valid_write_ids(
        &self,
        full_table_name: &str,
        snapshot: &TxnSnapshot,
    ) -> Result<TableValidWriteIds> {
        let Some((database, table)) = full_table_name.split_once('.') else {
            return Err(Error::InvalidInput(format!(
                "{full_table_name} is not a full table name <database>.<table>"
            )));
        };
        let (database, table) = normalise_table(database, table)?;
        let range = KeyRange::prefix(&keys::write_id_prefix(&database, &table));
        let mut allocated = Vec::new();
        for entry in self.scan(range) {
            let (key, value) = entry?;
            let write_id = keys::decode_write_id_key(&key)?;
            let txn_id = keys::decode_id_value(&key, &value)?;
            allocated.push((write_id, txn_id));
        }
        let next_write_id = self.stored_counter(&keys::write_id_counter_key(&database, &table))?;
        let high_water_mark = allocated
            .iter()
            .filter(|(_, txn_id)| *txn_id <= snapshot.high_water_mark)
            .map(|(write_id, _)| *write_id)
            .max()
            .unwrap_or(0)
            .max(highest_unmapped_write_id(&allocated, next_write_id));
        let mut result = TableValidWriteIds {
            full_table_name: format!("{database}.{table}"),
            high_water_mark,
            ..TableValidWriteIds::default()
        };
        for (write_id, txn_id) in allocated {
            if write_id > high_water_mark || snapshot.is_committed(txn_id) {
                continue;
            }
            let aborted = snapshot.aborted.contains(&txn_id);
            if !aborted && result.min_open_write_id.is_none() {
                result.min_open_write_id = Some(write_id);
            }
            result.invalid_write_ids.push(write_id);
            result.aborted.push(aborted);
        }
        Ok(result)
    }

    /// Runs `body` on the lock and transaction table after timeouts, and writes what it
    /// changed (also when it fails: the timeouts it applied stand).
    fn with_acid<R>(
        &self,
        now: i64,
        body: impl FnOnce(&mut AcidState, &mut AcidChanges) -> Result<R>,
    ) -> Result<R> {
        let mut acid = self.acid()?;
        let mut changes = AcidChanges::default();
        self.expire(&mut acid, now, &mut changes);
        match body(&mut acid, &mut changes) {
            Ok(result) => {
                self.persist_acid(&mut acid, &changes)?;
                Ok(result)
            }
            Err(error) => {
                // Only the timeouts are written; a failed body changed nothing else.
                let expired = AcidChanges {
                    locks_removed: changes.locks_removed,
                    txns_written: changes.txns_written,
                    events: changes.events,
                    ..AcidChanges::default()
                };
                self.persist_acid(&mut acid, &expired)?;
                Err(error)
            }
        }
    }

    fn stored_counter(&self, key: &[u8]) -> Result<u64> {
        match self.reader().get(key)? {
            Some(stored) => keys::decode_id_value(key, &stored),
            None => Ok(crate::storage::keys::FIRST_ID),
        }
    }
}

/// Forgets write sets no transaction can conflict with any more: committed before the
/// oldest open transaction started (every later transaction has a higher id).
fn prune_write_sets(txns: &mut TxnSpace, changes: &mut AcidChanges) {
    let oldest_open = txns
        .txns
        .iter()
        .find(|(_, txn)| txn.record.state == TxnState::Open)
        .map_or(txns.next_txn_id, |(txn_id, _)| *txn_id);
    let stale: Vec<u64> = txns
        .write_sets
        .iter()
        .filter(|(_, set)| set.commit_id < oldest_open)
        .map(|(txn_id, _)| *txn_id)
        .collect();
    for txn_id in stale {
        txns.write_sets.remove(&txn_id);
        changes.deletes.push(keys::write_set_key(txn_id));
    }
}

/// The highest write id below `next_write_id` that no transaction was given: one that
/// `seed_write_id` or `repl_tbl_writeid_state` declared committed before any transaction
/// here (0 when there is none). `allocated` is ascending by write id.
fn highest_unmapped_write_id(allocated: &[(u64, u64)], next_write_id: u64) -> u64 {
    let mut candidate = next_write_id.saturating_sub(1);
    for (write_id, _) in allocated.iter().rev() {
        if *write_id < candidate {
            break;
        }
        if *write_id == candidate {
            candidate -= 1;
        }
    }
    candidate
}

/// The snapshot of a reader that starts now.
fn current_snapshot(txns: &TxnSpace) -> TxnSnapshot {
    let mut snapshot = TxnSnapshot {
        high_water_mark: txns.next_txn_id.saturating_sub(1),
        ..TxnSnapshot::default()
    };
    for (txn_id, txn) in &txns.txns {
        match txn.record.state {
            TxnState::Open => snapshot.open.insert(*txn_id),
            TxnState::Aborted => snapshot.aborted.insert(*txn_id),
        };
    }
    snapshot
}

fn summary(txn_id: u64, txn: &HeldTxn) -> TxnSummary {
    TxnSummary {
        txn_id,
        state: txn.record.state,
        txn_type: txn.record.txn_type,
        user: txn.record.user.clone(),
        hostname: txn.record.hostname.clone(),
        agent_info: txn.record.agent_info.clone(),
        heartbeat_count: txn.heartbeat_count,
        started_at_ms: txn.record.started_at_ms,
        last_heartbeat_ms: txn.last_heartbeat_ms,
    }
}

fn normalise_table(database: &str, table: &str) -> Result<(String, String)> {
    let (database, table) = (names::normalize(database), names::normalize(table));
    if database.is_empty() || table.is_empty() {
        return Err(Error::InvalidInput(format!(
            "a write id needs a database and a table name, got {database:?}.{table:?}"
        )));
    }
    Ok((database, table))
}

fn check_id_list_len(len: usize, call: &str) -> Result<()> {
    if len > TXN_ID_LIST_LEN_MAX {
        return Err(Error::InvalidInput(format!(
            "{call} names {len} transactions; at most {TXN_ID_LIST_LEN_MAX} are allowed"
        )));
    }
    Ok(())
}

/// Hive's message when a write id cannot go to a transaction that is not open.
fn allocation_error(error: Error, database: &str, table: &str, txn_id: u64) -> Error {
    let text = txn_id_text(txn_id);
    match error {
        Error::TxnAborted(_) => Error::TxnAborted(format!(
            "Write ID allocation on {database}.{table} failed for input txns: [{text}] as the transaction is aborted"
        )),
        Error::NoSuchTxn(_) => Error::NoSuchTxn(format!(
            "Write ID allocation on {database}.{table} failed for input txns: [{text}] as the transaction does not exist or is committed"
        )),
        other => other,
    }
}

#[cfg(test)]
mod compactor_tests;
#[cfg(test)]
mod tests;
