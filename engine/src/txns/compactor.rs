//! The compactor's calls on the queue, as Hive's `CompactionTxnHandler` answers them for
//! HiveServer2's compactor threads: `find_next_compact(2)` hands the oldest initiated
//! request to a worker, `update_compactor_state` records its transaction and highest write
//! id, `set_hadoop_jobid` its job, `mark_compacted` makes it ready for cleaning,
//! `mark_cleaned` moves it to the history as succeeded, and `mark_failed` / `mark_refused`
//! as failed / refused. What leaves the queue is kept as Hive's completed compactions, with
//! Hive's retention per table or partition (`compaction_history.rs`).
//!
//! A worker's transaction that `update_compactor_state` names is recorded as working on
//! the table or partition (Hive's `TXN_COMPONENTS` row), so that, if it aborts, it stays
//! listed as aborted (a reader must not take its base directory for committed) until a
//! cleaner marks the table or partition cleaned past its write id.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::names;
use crate::storage::keys;
use crate::storage::kv::{KeyRange, KvBackend};
use crate::storage::values::{self, stored_value, ValueKind};
use crate::store::Store;
use crate::txns::locks::{now_ms, AcidChanges, AcidState};

use super::compactions::{
    Compaction, CompactionEntry, CompactionQueue, CompactionState, CompactionType,
};
use super::state::TxnStatus;
use super::TxnState;

/// Hive's `metastore.compactor.worker.pool.timeout` (12h): a worker of no pool also takes
/// requests of a pool queued longer ago than this.
pub const COMPACTOR_POOL_TIMEOUT_MS: i64 = 12 * 3600 * 1000;
/// Hive's `hive.compactor.worker.timeout` (1 day): a request a worker took longer ago than
/// this is taken back to `initiated`, as Hive's initiator does (`revokeTimedoutWorkers`);
/// hivestore has no initiator of its own, so the queue's calls do it.
pub const COMPACTOR_WORKER_TIMEOUT_MS: i64 = 24 * 3600 * 1000;
/// The most transactions recorded as working on a table or partition for a compactor.
pub const COMPACTOR_COMPONENT_COUNT_MAX: usize = 100_000;

/// What a worker asks `find_next_compact2` (Hive's `FindNextCompactRequest`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NextCompactionRequest {
    /// The worker's id (Hive's workers send `host-threadid`).
    pub worker_id: Option<String>,
    /// The worker's version.
    pub worker_version: Option<String>,
    /// The pool it serves; none or blank for the default pool.
    pub pool_name: Option<String>,
}

/// What a compactor sends back about a compaction (the fields of Hive's
/// `CompactionInfoStruct` its handlers read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionReport {
    /// The request's id; 0 for one that never was queued.
    pub id: i64,
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// The partition, for a partition's compaction.
    pub partition: Option<String>,
    /// Its type.
    pub compaction_type: CompactionType,
    /// The user it runs as.
    pub run_as: Option<String>,
    /// Its properties.
    pub properties: Vec<(String, String)>,
    /// The worker.
    pub worker_id: Option<String>,
    /// The highest write id it covers (Hive's default 0 when unset).
    pub highest_write_id: i64,
    /// Why it failed or was refused.
    pub error_message: Option<String>,
    /// When it was queued (Hive's default 0 when unset).
    pub enqueued_at_ms: i64,
    /// The pool.
    pub pool_name: Option<String>,
    /// The number of buckets of a rebalance.
    pub number_of_buckets: Option<i32>,
    /// The order of a rebalance.
    pub order_by: Option<String>,
}

impl CompactionReport {
    fn full_name(&self) -> Result<(String, String, Option<String>)> {
        let database = names::normalize(&self.database);
        let table = names::normalize(&self.table);
        if database.is_empty() || table.is_empty() {
            return Err(Error::InvalidInput(
                "a compaction needs a database and a table name".to_string(),
            ));
        }
        Ok((database, table, self.partition.clone()))
    }
}

/// The table or partition a compactor's transaction works on, as stored at
/// `0x27 + ID(txn) + ID(compaction)`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct CompactorComponent {
    pub database: String,
    pub table: String,
    pub partition: Option<String>,
    /// The highest write id the compaction considered.
    pub write_id: u64,
}

stored_value!(CompactorComponent, ValueKind::CompactorComponent);

/// Every compactor component, with its transaction and key.
pub(crate) fn read_components(
    reader: &dyn KvBackend,
) -> Result<Vec<(u64, Vec<u8>, CompactorComponent)>> {
    let range = KeyRange::prefix(&keys::compactor_component_prefix());
    let mut components = Vec::new();
    for entry in crate::storage::kv::scan(reader, range, crate::storage::kv::SCAN_PAGE_ENTRY_COUNT)
    {
        let (key, stored) = entry?;
        let txn_id = key
            .get(1..9)
            .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
            .map(u64::from_be_bytes)
            .ok_or_else(|| Error::Corruption {
                key: format!("{:?}", key.as_ref()),
                reason: "a compactor component key is shorter than its ids".to_string(),
            })?;
        let key_bytes = key.to_vec();
        let component = values::decode::<CompactorComponent>(key, stored)?;
        components.push((txn_id, key_bytes, component));
    }
    Ok(components)
}

/// Hive's text when an update of the queue finds no entry to change.
fn no_row_message() -> String {
    "The update count was 0 which is not the expected. Rolling back.".to_string()
}

/// The queued (not yet completed) entry of `id`, or Hive's "update count" error.
fn queued_entry(queue: &CompactionQueue, id: i64) -> Result<CompactionEntry> {
    u64::try_from(id)
        .ok()
        .and_then(|id| queue.get(id))
        .filter(|entry| entry.state.is_queued())
        .cloned()
        .ok_or_else(|| Error::Refused(no_row_message()))
}

impl Store {
    /// Runs `body` on the compaction queue under the lock table's mutex, and writes what it
    /// changed (queue, transactions, events) in one batch.
    fn with_queue<R>(
        &self,
        body: impl FnOnce(&mut AcidState, &mut CompactionQueue, &mut AcidChanges) -> Result<R>,
    ) -> Result<R> {
        self.with_acid(now_ms(), |acid, changes| {
            let mut queue = CompactionQueue::load(self.reader())?;
            queue.revoke_timed_out_workers(now_ms(), &mut changes.puts)?;
            let result = body(acid, &mut queue, changes)?;
            queue.finish(&mut changes.puts, &mut changes.deletes);
            Ok(result)
        })
    }

    /// Hive's `find_next_compact2`: hands the initiated request of the lowest id to the
    /// worker (`working`, with its id, version and start time), or answers none. A worker
    /// of a pool takes only that pool's requests; one of no pool those of no pool, and any
    /// queued more than [`COMPACTOR_POOL_TIMEOUT_MS`] ago.
    pub fn find_next_compaction(
        &self,
        request: &NextCompactionRequest,
    ) -> Result<Option<CompactionEntry>> {
        let pool = request
            .pool_name
            .as_deref()
            .filter(|pool| !pool.trim().is_empty());
        self.with_queue(|_, queue, changes| {
            let now = now_ms();
            let taken = queue
                .entries
                .iter()
                .filter(|entry| entry.state == CompactionState::Initiated)
                .filter(|entry| match pool {
                    Some(pool) => entry.request.pool_name.as_deref() == Some(pool),
                    None => {
                        entry.request.pool_name.is_none()
                            || entry.request.enqueued_at_ms
                                < now.saturating_sub(COMPACTOR_POOL_TIMEOUT_MS)
                    }
                })
                .min_by_key(|entry| entry.request.id)
                .cloned();
            let Some(mut entry) = taken else {
                return Ok(None);
            };
            entry.state = CompactionState::Working;
            entry.worker_id = request.worker_id.clone();
            entry.worker_version = request.worker_version.clone();
            entry.started_at_ms = Some(now);
            queue.put(&entry, &mut changes.puts)?;
            Ok(Some(entry))
        })
    }

    /// Hive's `update_compactor_state`: the queued request `report.id` is compacted by
    /// transaction `txn_id` up to `report.highest_write_id`, as `report.run_as`; the
    /// transaction is recorded as working on the report's table or partition.
    pub fn update_compactor_state(&self, report: &CompactionReport, txn_id: i64) -> Result<()> {
        let (database, table, partition) = report.full_name()?;
        let write_id = u64::try_from(report.highest_write_id).map_err(|_| {
            Error::InvalidInput(format!(
                "update_compactor_state: the highest write id {} is negative",
                report.highest_write_id
            ))
        })?;
        self.with_queue(|acid, queue, changes| {
            let txn = u64::try_from(txn_id)
                .ok()
                .filter(|txn| acid.txns.status(*txn) != TxnStatus::Unknown)
                .ok_or_else(|| {
                    Error::NoSuchTxn(format!(
                        "update_compactor_state: no transaction {txn_id} was opened"
                    ))
                })?;
            let mut entry = queued_entry(queue, report.id)?;
            entry.highest_write_id = Some(write_id);
            entry.request.run_as = report.run_as.clone();
            entry.txn_id = Some(txn);
            queue.put(&entry, &mut changes.puts)?;
            if acid.txns.status(txn) == TxnStatus::Committed {
                return Ok(());
            }
            let count = read_components(self.reader())?.len();
            if count >= COMPACTOR_COMPONENT_COUNT_MAX {
                return Err(Error::Refused(format!(
                    "{COMPACTOR_COMPONENT_COUNT_MAX} compactor transactions are recorded; no more are taken"
                )));
            }
            let component = CompactorComponent {
                database,
                table,
                partition,
                write_id,
            };
            let key = keys::compactor_component_key(txn, entry.request.id);
            changes.puts.push((key, values::encode(&component)?));
            Ok(())
        })
    }

    /// Hive's `set_hadoop_jobid`: records the job of queued request `id`.
    pub fn set_compaction_job_id(&self, job_id: &str, id: i64) -> Result<()> {
        self.with_queue(|_, queue, changes| {
            let mut entry = queued_entry(queue, id)?;
            entry.hadoop_job_id = Some(job_id.to_string());
            queue.put(&entry, &mut changes.puts)
        })
    }

    /// Hive's `mark_compacted`: queued request `id` is ready for cleaning; its worker id is
    /// cleared.
    pub fn mark_compacted(&self, id: i64) -> Result<()> {
        self.with_queue(|_, queue, changes| {
            let mut entry = queued_entry(queue, id)?;
            entry.state = CompactionState::ReadyForCleaning;
            entry.worker_id = None;
            queue.put(&entry, &mut changes.puts)
        })
    }

    /// Hive's `mark_failed`: queued request `report.id` moves to the history as failed, with
    /// the report's error message; a report of id 0 (the initiator failed before queuing)
    /// is recorded from the report as `did not initiate` under a new id. An id that is not
    /// queued is [`Error::NoSuchObject`] with Hive's text.
    pub fn mark_compaction_failed(&self, report: &CompactionReport) -> Result<()> {
        let state = match report.id {
            0 => CompactionState::DidNotInitiate,
            _ => CompactionState::Failed,
        };
        self.complete_with_status(report, state)
    }

    /// Hive's `mark_refused`: as [`Store::mark_compaction_failed`], as refused.
    pub fn mark_compaction_refused(&self, report: &CompactionReport) -> Result<()> {
        self.complete_with_status(report, CompactionState::Refused)
    }

    /// Hive's `updateStatus`: the queued entry (or, for id 0, the report) moves to the
    /// history in `state`, then the history of its table or partition is purged.
    fn complete_with_status(
        &self,
        report: &CompactionReport,
        state: CompactionState,
    ) -> Result<()> {
        let (database, table, partition) = report.full_name()?;
        self.with_queue(|_, queue, changes| {
            let now = now_ms();
            let queued = u64::try_from(report.id)
                .ok()
                .filter(|id| *id > 0)
                .and_then(|id| queue.get(id))
                .filter(|entry| entry.state.is_queued())
                .cloned();
            if queued.is_none() && queue.entries.len() >= super::compactions::COMPACTION_COUNT_MAX {
                return Err(Error::Refused(format!(
                    "{} compaction requests are kept; no more are taken",
                    super::compactions::COMPACTION_COUNT_MAX
                )));
            }
            let mut entry = match queued {
                Some(entry) => entry,
                None if report.id != 0 => {
                    return Err(Error::NoSuchObject(format!(
                        "No record with CQ_ID={} found in COMPACTION_QUEUE",
                        report.id
                    )))
                }
                None => from_report(report, queue.take_id(), (database, table, partition), now),
            };
            entry.state = state;
            entry.error_message = report.error_message.clone();
            entry.ended_at_ms = Some(now);
            queue.put(&entry, &mut changes.puts)?;
            queue.purge_history_of(&entry.request, now);
            Ok(())
        })
    }

    /// Hive's `mark_cleaned`: the queued request `report.id` moves to the history as
    /// succeeded (an abort cleanup is dropped), with the abort cleanups queued for its table
    /// or partition; then what aborted transactions left on it up to the report's highest
    /// write id is forgotten, so that they are purged, and, for a compaction of the whole
    /// table, its update/delete marks up to that write id (Hive's `COMPLETED_TXN_COMPONENTS`
    /// rows). An id that is not queued changes only the latter, as in Hive.
    pub fn mark_cleaned(&self, report: &CompactionReport) -> Result<()> {
        let (database, table, partition) = report.full_name()?;
        let abort_cleanup = report.compaction_type == CompactionType::AbortTxnCleanup;
        self.with_queue(|acid, queue, changes| {
            let now = now_ms();
            let own = u64::try_from(report.id)
                .ok()
                .and_then(|id| queue.get(id))
                .filter(|entry| entry.state.is_queued())
                .cloned();
            if let Some(mut entry) = own {
                if abort_cleanup {
                    queue.remove(entry.request.id);
                } else {
                    entry.state = CompactionState::Succeeded;
                    entry.ended_at_ms = Some(now);
                    queue.put(&entry, &mut changes.puts)?;
                    queue.purge_history_of(&entry.request, now);
                }
            }
            if !abort_cleanup {
                let retries: Vec<u64> = queue
                    .entries
                    .iter()
                    .filter(|entry| entry.state.is_queued())
                    .filter(|entry| {
                        entry.request.compaction_type == CompactionType::AbortTxnCleanup
                    })
                    .filter(|entry| {
                        entry.request.database == database && entry.request.table == table
                    })
                    .filter(|entry| partition.is_none() || entry.request.partition == partition)
                    .map(|entry| entry.request.id)
                    .collect();
                for id in retries {
                    queue.remove(id);
                }
            }
            let highest = u64::try_from(report.highest_write_id).unwrap_or(0);
            if !abort_cleanup && partition.is_none() {
                super::materializations::forget_cleaned_marks(
                    self, &database, &table, highest, changes,
                )?;
            }
            if highest != 0 {
                let target = (database.as_str(), table.as_str(), partition.as_deref());
                self.forget_aborted_writes(acid, target, highest, changes)?;
            }
            Ok(())
        })
    }

    /// Hive's `removeTxnComponents`: what aborted transactions wrote on the table (or
    /// partition) up to write id `highest` is cleaned. Compactor components go for a table or a
    /// partition; an aborted transaction's write ids and writes on the table go only when the
    /// whole table was cleaned, as hivestore does not record which partitions an insert wrote.
    fn forget_aborted_writes(
        &self,
        acid: &mut AcidState,
        (database, table, partition): (&str, &str, Option<&str>),
        highest: u64,
        changes: &mut AcidChanges,
    ) -> Result<()> {
        for (txn_id, key, component) in read_components(self.reader())? {
            let aborted = acid.txns.status(txn_id) == TxnStatus::Aborted;
            let matches = component.database == database
                && component.table == table
                && (partition.is_none() || component.partition.as_deref() == partition);
            if aborted && matches && component.write_id <= highest {
                changes.deletes.push(key);
            }
        }
        if partition.is_some() {
            return Ok(());
        }
        for (txn_id, held) in acid.txns.txns.iter_mut() {
            let record = &mut held.record;
            if record.state != TxnState::Aborted {
                continue;
            }
            let (before_ids, before_writes) = (record.write_ids.len(), record.writes.len());
            record.write_ids.retain(|written| {
                !(written.database == database
                    && written.table == table
                    && written.write_id <= highest)
            });
            if record.write_ids.len() != before_ids {
                record
                    .writes
                    .retain(|write| !(write.database == database && write.table == table));
            }
            if record.write_ids.len() != before_ids || record.writes.len() != before_writes {
                changes.txns_written.push(*txn_id);
            }
        }
        Ok(())
    }

    /// Hive's commit of a compactor's transaction: the requests it compacted record the
    /// commit (the highest transaction id handed out, and the time), a `COMMIT_COMPACTION`
    /// event is logged after the commit's own when `logged` (a compaction's transaction, not
    /// a soft delete's, as in Hive), and it no longer works on their tables or partitions.
    pub(crate) fn compaction_committed(
        &self,
        txn_id: u64,
        commit_id: u64,
        logged: bool,
        changes: &mut AcidChanges,
    ) -> Result<()> {
        let mut queue = CompactionQueue::load(self.reader())?;
        let compacted: Vec<CompactionEntry> = queue
            .entries
            .iter()
            .filter(|entry| entry.state.is_queued() && entry.txn_id == Some(txn_id))
            .cloned()
            .collect();
        let now = now_ms();
        // Hive logs the first request its query finds for the transaction.
        if let Some(entry) = compacted.first().filter(|_| logged) {
            let request = &entry.request;
            let body = EventBody::CommitCompaction {
                txn_id,
                compaction_id: request.id,
                compaction_type: request.compaction_type,
                partition: request.partition.clone(),
            };
            let catalog = crate::model::names::DEFAULT_CATALOG_NAME;
            let kind = EventKind::CommitCompaction;
            let event = EventRecord::new(kind, catalog, &request.database, &request.table, body);
            changes.events.push(event);
        }
        for mut entry in compacted {
            entry.next_txn_id = Some(commit_id);
            entry.commit_time_ms = Some(now);
            queue.put(&entry, &mut changes.puts)?;
        }
        let prefix = keys::compactor_component_key(txn_id, 0);
        let range = KeyRange::prefix(&prefix[..9]);
        for entry in crate::storage::kv::scan(self.reader(), range, 64) {
            let (key, _) = entry?;
            changes.deletes.push(key.to_vec());
        }
        Ok(())
    }

    /// Hive's `find_columns_with_stats`: the columns of `database.table` that have
    /// statistics (of the `hive` engine), of `partition` when given, else of the table; none
    /// for a table that does not exist, as Hive's query finds none.
    pub fn columns_with_statistics(
        &self,
        database: &str,
        table: &str,
        partition: Option<&str>,
    ) -> Result<Vec<String>> {
        let catalog = crate::model::names::DEFAULT_CATALOG_NAME;
        let found = match self.get_table(catalog, database, table) {
            Ok(found) => found,
            Err(Error::NoSuchObject(_)) => return Ok(Vec::new()),
            Err(other) => return Err(other),
        };
        let columns: Vec<String> = found
            .sd
            .map(|sd| sd.cols.into_iter().map(|column| column.name).collect())
            .unwrap_or_default();
        let engine = crate::stats::DEFAULT_STATS_ENGINE;
        let stats = match partition {
            None => {
                self.table_column_statistics(catalog, database, table, &columns, engine, false)?
                    .stats
            }
            Some(name) => self
                .partition_column_statistics(
                    catalog,
                    database,
                    table,
                    &[name.to_string()],
                    &columns,
                    engine,
                    false,
                )?
                .into_iter()
                .flat_map(|partition| partition.stats)
                .collect(),
        };
        Ok(stats
            .into_iter()
            .map(|column| column.column_name.to_string())
            .collect())
    }

    /// The transactions recorded as working for a compactor.
    pub(crate) fn compactor_txns(&self) -> Result<std::collections::BTreeSet<u64>> {
        Ok(read_components(self.reader())?
            .into_iter()
            .map(|(txn_id, _, _)| txn_id)
            .collect())
    }
}

impl CompactionQueue {
    /// Hive's `revokeTimedoutWorkers`: requests working since more than
    /// [`COMPACTOR_WORKER_TIMEOUT_MS`] before `now` are initiated again, with no worker.
    pub(crate) fn revoke_timed_out_workers(
        &mut self,
        now: i64,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<()> {
        let latest_valid_start = now.saturating_sub(COMPACTOR_WORKER_TIMEOUT_MS);
        let stalled: Vec<CompactionEntry> = self
            .entries
            .iter()
            .filter(|entry| entry.state == CompactionState::Working)
            .filter(|entry| entry.started_at_ms.unwrap_or(0) < latest_valid_start)
            .cloned()
            .collect();
        for mut entry in stalled {
            entry.state = CompactionState::Initiated;
            entry.worker_id = None;
            entry.started_at_ms = None;
            self.put(&entry, puts)?;
        }
        Ok(())
    }
}

/// The history entry Hive writes from a report that never was queued.
fn from_report(
    report: &CompactionReport,
    id: u64,
    (database, table, partition): (String, String, Option<String>),
    now: i64,
) -> CompactionEntry {
    let request = Compaction {
        id,
        database,
        table,
        partition,
        compaction_type: report.compaction_type,
        run_as: report.run_as.clone(),
        properties: report.properties.clone(),
        initiator_id: None,
        initiator_version: None,
        pool_name: report.pool_name.clone(),
        enqueued_at_ms: report.enqueued_at_ms,
    };
    CompactionEntry {
        highest_write_id: u64::try_from(report.highest_write_id).ok(),
        number_of_buckets: report.number_of_buckets,
        order_by: report.order_by.clone(),
        worker_id: report.worker_id.clone(),
        started_at_ms: Some(now),
        ..CompactionEntry::queued(request, CompactionState::DidNotInitiate)
    }
}
