//! Hive's compaction queue: `compact`, `compact2`, `show_compact`.
//!
//! hivestore runs no compactions itself: HiveServer2's compactor threads take requests
//! through the compactor's calls (`compactor.rs`) and move them from `initiated` through
//! `working` and `ready for cleaning` to the history (`succeeded`, `failed`, `refused`,
//! `did not initiate`, `aborted`), as Hive's `CompactionTxnHandler` does. Queue and history
//! are one keyspace, told apart by state. A second request for the same table or partition
//! while one is initiated or working (or ready for cleaning at the table's current write id)
//! is refused, as in Hive.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::names;
use crate::storage::keys;
use crate::storage::kv::{KeyRange, KvBackend};
use crate::storage::values::{self, stored_value, ValueKind, VALUE_HEADER_LEN};
use crate::store::Store;
use crate::txns::locks::now_ms;

use super::compaction_legacy::LegacyCompactionEntry;

/// The state of a request just queued.
pub const COMPACTION_STATE_INITIATED: &str = "initiated";
/// The state `compact2` answers for a request it does not queue (Hive's `REFUSED_RESPONSE`).
pub const COMPACTION_STATE_REFUSED: &str = "refused";
/// The most compaction requests kept, queue and history together.
pub const COMPACTION_COUNT_MAX: usize = 100_000;

/// Hive's `CompactionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum CompactionType {
    /// `MINOR`
    Minor,
    /// `MAJOR`
    Major,
    /// `REBALANCE`
    Rebalance,
    /// `ABORT_TXN_CLEANUP`
    AbortTxnCleanup,
}

/// A queued compaction request.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Compaction {
    /// Its id, from 1; set when queued.
    pub id: u64,
    /// The database, normalised.
    pub database: String,
    /// The table, normalised.
    pub table: String,
    /// The partition name, for a partition's compaction.
    pub partition: Option<String>,
    /// Minor, major, ...
    pub compaction_type: CompactionType,
    /// The user to run it as.
    pub run_as: Option<String>,
    /// Its properties.
    pub properties: Vec<(String, String)>,
    /// Who asked (Hive's initiator id).
    pub initiator_id: Option<String>,
    /// The asker's version.
    pub initiator_version: Option<String>,
    /// The compaction pool.
    pub pool_name: Option<String>,
    /// When it was queued, milliseconds since the epoch; set when queued.
    pub enqueued_at_ms: i64,
}

stored_value!(Compaction, ValueKind::Compaction);

/// Where a request is: Hive's `CompactionState`. The first three are Hive's queue
/// (`COMPACTION_QUEUE`), the others its history (`COMPLETED_COMPACTIONS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum CompactionState {
    /// Queued, waiting for a worker (`find_next_compact`).
    Initiated,
    /// Handed to a worker.
    Working,
    /// Compacted (`mark_compacted`, `submit_for_cleanup`), waiting for a cleaner.
    ReadyForCleaning,
    /// Compacted and cleaned (`mark_cleaned`).
    Succeeded,
    /// Failed in a worker (`mark_failed`).
    Failed,
    /// Failed before it was queued (`mark_failed` of id 0).
    DidNotInitiate,
    /// Refused by a worker (`mark_refused`).
    Refused,
    /// Aborted by `abort_Compactions`.
    Aborted,
}

impl CompactionState {
    /// Hive's name, as `show_compact` reports it.
    pub fn hive_name(self) -> &'static str {
        match self {
            CompactionState::Initiated => COMPACTION_STATE_INITIATED,
            CompactionState::Working => "working",
            CompactionState::ReadyForCleaning => "ready for cleaning",
            CompactionState::Succeeded => "succeeded",
            CompactionState::Failed => "failed",
            CompactionState::DidNotInitiate => "did not initiate",
            CompactionState::Refused => "refused",
            CompactionState::Aborted => "aborted",
        }
    }

    /// Whether it is still in Hive's queue (not yet in its history).
    pub fn is_queued(self) -> bool {
        matches!(
            self,
            CompactionState::Initiated
                | CompactionState::Working
                | CompactionState::ReadyForCleaning
        )
    }
}

/// A compaction request as stored, with its state and what its worker reported.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct CompactionEntry {
    /// The request.
    pub request: Compaction,
    /// Where it is.
    pub state: CompactionState,
    /// The highest write id it covers (`update_compactor_state`, `submit_for_cleanup`).
    pub highest_write_id: Option<u64>,
    /// The transaction that compacts (`update_compactor_state`, `submit_for_cleanup`).
    pub txn_id: Option<u64>,
    /// Why it ended, when it failed, was refused or aborted.
    pub error_message: Option<String>,
    /// When it left the queue, milliseconds since the epoch.
    pub ended_at_ms: Option<i64>,
    /// The request's number of buckets (rebalance compactions).
    pub number_of_buckets: Option<i32>,
    /// The request's order by clause (rebalance compactions).
    pub order_by: Option<String>,
    /// The worker it was handed to.
    pub worker_id: Option<String>,
    /// That worker's version.
    pub worker_version: Option<String>,
    /// When a worker took it, milliseconds since the epoch.
    pub started_at_ms: Option<i64>,
    /// The job that runs it (`set_hadoop_jobid`).
    pub hadoop_job_id: Option<String>,
    /// The highest transaction id handed out when its transaction committed.
    pub next_txn_id: Option<u64>,
    /// When its transaction committed, milliseconds since the epoch.
    pub commit_time_ms: Option<i64>,
}

stored_value!(CompactionEntry, ValueKind::CompactionRecord);

impl CompactionEntry {
    /// A request just queued in `state`.
    pub(crate) fn queued(request: Compaction, state: CompactionState) -> CompactionEntry {
        CompactionEntry {
            request,
            state,
            highest_write_id: None,
            txn_id: None,
            error_message: None,
            ended_at_ms: None,
            number_of_buckets: None,
            order_by: None,
            worker_id: None,
            worker_version: None,
            started_at_ms: None,
            hadoop_job_id: None,
            next_txn_id: None,
            commit_time_ms: None,
        }
    }
}

/// What `compact2` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionResponse {
    /// The queued request's id; none (Hive answers -1) when not accepted.
    pub id: Option<u64>,
    /// Its state.
    pub state: String,
    /// Whether this request was queued.
    pub accepted: bool,
    /// Why not, when not.
    pub error_message: Option<String>,
}

/// Which requests `show_compact` lists; `None` matches any.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShowCompactFilter {
    /// Only this id.
    pub id: Option<u64>,
    /// Only this database.
    pub database: Option<String>,
    /// Only this table.
    pub table: Option<String>,
    /// Only this partition.
    pub partition: Option<String>,
    /// Only this type.
    pub compaction_type: Option<CompactionType>,
    /// Only this state (Hive's name).
    pub state: Option<String>,
    /// Only this pool.
    pub pool_name: Option<String>,
    /// At most this many.
    pub limit: Option<usize>,
}

/// What a rebalance compaction request adds (`numberOfBuckets`, `orderByClause`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BucketLayout {
    /// The number of buckets to rebalance into.
    pub number_of_buckets: Option<i32>,
    /// The order of the rows.
    pub order_by: Option<String>,
}

/// The compaction queue as read under the lock table's mutex, with what a change to it
/// writes.
pub(crate) struct CompactionQueue {
    pub entries: Vec<CompactionEntry>,
    pub next_id: u64,
    pub counter_moved: bool,
    /// Keys of entries removed (history purged).
    pub deletes: Vec<Vec<u8>>,
}

impl CompactionQueue {
    pub(crate) fn load(reader: &dyn KvBackend) -> Result<CompactionQueue> {
        let next_id =
            crate::txns::locks::read_counter(reader, keys::ACID_COUNTER_NEXT_COMPACTION_ID)?;
        Ok(CompactionQueue {
            entries: read_compactions(reader)?,
            next_id,
            counter_moved: false,
            deletes: Vec::new(),
        })
    }

    /// The entry of `id`, if any.
    pub(crate) fn get(&self, id: u64) -> Option<&CompactionEntry> {
        self.entries.iter().find(|entry| entry.request.id == id)
    }

    /// Removes the entry of `id` (Hive's history purge).
    pub(crate) fn remove(&mut self, id: u64) {
        self.entries.retain(|entry| entry.request.id != id);
        self.deletes.push(keys::compaction_key(id));
    }

    /// A new id, as Hive's `GenerateCompactionQueueIdFunction` hands out.
    pub(crate) fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.counter_moved = true;
        id
    }

    /// Queues `entry` (its request normalised and checked) under a new id.
    pub(crate) fn push(
        &mut self,
        mut entry: CompactionEntry,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<CompactionEntry> {
        if self.entries.len() >= COMPACTION_COUNT_MAX {
            return Err(Error::Refused(format!(
                "{COMPACTION_COUNT_MAX} compaction requests are kept; no more are taken"
            )));
        }
        entry.request.id = self.take_id();
        entry.request.enqueued_at_ms = now_ms();
        self.put(&entry, puts)?;
        self.entries.push(entry.clone());
        Ok(entry)
    }

    /// Adds the id counter to `puts` if requests were queued, and the removed entries to
    /// `deletes`.
    pub(crate) fn finish(
        &mut self,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
        deletes: &mut Vec<Vec<u8>>,
    ) {
        if self.counter_moved {
            let key = keys::acid_counter_key(keys::ACID_COUNTER_NEXT_COMPACTION_ID);
            puts.push((key, self.next_id.to_be_bytes().to_vec()));
        }
        deletes.append(&mut self.deletes);
    }

    /// Writes `entry` again (a change of state), here and in `puts`.
    pub(crate) fn put(
        &mut self,
        entry: &CompactionEntry,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<()> {
        let key = keys::compaction_key(entry.request.id);
        puts.push((key, values::encode(entry)?));
        match self
            .entries
            .iter_mut()
            .find(|kept| kept.request.id == entry.request.id)
        {
            Some(kept) => *kept = entry.clone(),
            None => self.entries.push(entry.clone()),
        }
        Ok(())
    }

    /// Hive's `compact2` on this queue: refused (not an error) while a request for the same
    /// table and partition is initiated or working, or ready for cleaning at the table's
    /// `high_water_mark`.
    pub(crate) fn compact(
        &mut self,
        request: Compaction,
        layout: BucketLayout,
        high_water_mark: u64,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<CompactionResponse> {
        let request = normalise_request(request)?;
        let same = self.entries.iter().find(|queued| {
            let pending = match queued.state {
                CompactionState::Initiated | CompactionState::Working => true,
                CompactionState::ReadyForCleaning => {
                    queued.highest_write_id == Some(high_water_mark)
                }
                _ => false,
            };
            pending
                && queued.request.database == request.database
                && queued.request.table == request.table
                && queued.request.partition == request.partition
        });
        if let Some(earlier) = same {
            let state = earlier.state.hive_name();
            return Ok(CompactionResponse {
                id: None,
                state: COMPACTION_STATE_REFUSED.to_string(),
                accepted: false,
                error_message: Some(format!(
                    "Compaction is already scheduled with state='{state}' and id={}",
                    earlier.request.id
                )),
            });
        }
        let queued = CompactionEntry {
            number_of_buckets: layout.number_of_buckets,
            order_by: layout.order_by,
            ..CompactionEntry::queued(request, CompactionState::Initiated)
        };
        let entry = self.push(queued, puts)?;
        Ok(CompactionResponse {
            id: Some(entry.request.id),
            state: COMPACTION_STATE_INITIATED.to_string(),
            accepted: true,
            error_message: None,
        })
    }
}

/// Whether `asked` names `state` as Hive's `CompactionState.fromString` reads it: any case,
/// words separated by spaces or underscores.
fn state_names_match(asked: &str, state: CompactionState) -> bool {
    asked
        .trim()
        .replace('_', " ")
        .eq_ignore_ascii_case(state.hive_name())
}

/// Normalises the names of `request`; a database and a table are required.
pub(crate) fn normalise_request(mut request: Compaction) -> Result<Compaction> {
    request.database = names::normalize(&request.database);
    request.table = names::normalize(&request.table);
    if request.database.is_empty() || request.table.is_empty() {
        return Err(Error::InvalidInput(
            "a compaction request needs a database and a table name".to_string(),
        ));
    }
    Ok(request)
}

/// Every stored request, by id: those written before states existed (kind 19) read as
/// initiated, those written before workers (kind 20) with no worker.
pub(crate) fn read_compactions(reader: &dyn KvBackend) -> Result<Vec<CompactionEntry>> {
    let range = KeyRange::prefix(&keys::compaction_prefix());
    let mut entries = Vec::new();
    for entry in crate::storage::kv::scan(reader, range, crate::storage::kv::SCAN_PAGE_ENTRY_COUNT)
    {
        let (key, stored) = entry?;
        let kind = match stored.len() >= VALUE_HEADER_LEN {
            true => stored.get(values::VALUE_KIND_OFFSET).copied(),
            false => None,
        };
        if kind == Some(ValueKind::Compaction as u8) {
            let request = values::decode::<Compaction>(key, stored)?;
            entries.push(CompactionEntry::queued(request, CompactionState::Initiated));
        } else if kind == Some(ValueKind::CompactionEntry as u8) {
            let old = values::decode::<LegacyCompactionEntry>(key, stored)?;
            entries.push(old.into());
        } else {
            entries.push(values::decode::<CompactionEntry>(key, stored)?);
        }
    }
    Ok(entries)
}

impl Store {
    /// Hive's `compact2`: queues `request` unless one for the same table and partition is
    /// pending already.
    pub fn compact(&self, request: Compaction, layout: BucketLayout) -> Result<CompactionResponse> {
        let request = normalise_request(request)?;
        let _acid = self.acid()?;
        let mut queue = CompactionQueue::load(self.reader())?;
        let high_water_mark = self.table_high_water_mark(&request.database, &request.table)?;
        let mut puts = Vec::new();
        queue.revoke_timed_out_workers(now_ms(), &mut puts)?;
        let response = queue.compact(request, layout, high_water_mark, &mut puts)?;
        queue.finish(&mut puts, &mut Vec::new());
        self.write_puts(puts)?;
        Ok(response)
    }

    /// Hive's `show_compact`: the requests `filter` matches, by id.
    pub fn show_compact(&self, filter: &ShowCompactFilter) -> Result<Vec<CompactionEntry>> {
        let database = filter.database.as_deref().map(names::normalize);
        let table = filter.table.as_deref().map(names::normalize);
        let matches = |entry: &CompactionEntry| {
            let compaction = &entry.request;
            filter.id.is_none_or(|id| id == compaction.id)
                && database
                    .as_ref()
                    .is_none_or(|name| *name == compaction.database)
                && table.as_ref().is_none_or(|name| *name == compaction.table)
                && filter
                    .partition
                    .as_ref()
                    .is_none_or(|name| Some(name) == compaction.partition.as_ref())
                && filter
                    .compaction_type
                    .is_none_or(|kind| kind == compaction.compaction_type)
                && filter
                    .state
                    .as_deref()
                    .is_none_or(|state| state_names_match(state, entry.state))
                && filter
                    .pool_name
                    .as_ref()
                    .is_none_or(|pool| Some(pool) == compaction.pool_name.as_ref())
        };
        let mut listed: Vec<CompactionEntry> = read_compactions(self.reader())?
            .into_iter()
            .filter(matches)
            .collect();
        if let Some(limit) = filter.limit {
            listed.truncate(limit);
        }
        Ok(listed)
    }

    /// The highest write id handed out on `database.table`, 0 before the first.
    pub(crate) fn table_high_water_mark(&self, database: &str, table: &str) -> Result<u64> {
        let key = keys::write_id_counter_key(database, table);
        match self.reader().get(&key)? {
            Some(stored) => Ok(keys::decode_id_value(&key, &stored)?.saturating_sub(1)),
            None => Ok(0),
        }
    }

    /// Writes `puts` in one batch.
    pub(crate) fn write_puts(&self, puts: Vec<(Vec<u8>, Vec<u8>)>) -> Result<()> {
        if puts.is_empty() {
            return Ok(());
        }
        self.write(|txn| {
            for (key, value) in puts {
                txn.put_raw(key, value);
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Durability, StoreOptions};

    fn request(table: &str, partition: Option<&str>) -> Compaction {
        Compaction {
            id: 0,
            database: "DB".into(),
            table: table.into(),
            partition: partition.map(Into::into),
            compaction_type: CompactionType::Major,
            run_as: None,
            properties: vec![("k".into(), "v".into())],
            initiator_id: None,
            initiator_version: None,
            pool_name: None,
            enqueued_at_ms: 0,
        }
    }

    #[test]
    fn requests_are_queued_once_per_table_or_partition_and_listed() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        let store = Store::open(dir.path(), options).unwrap();
        let first = store
            .compact(request("T", None), BucketLayout::default())
            .unwrap();
        assert_eq!(
            (first.id, first.accepted, first.state.as_str()),
            (Some(1), true, "initiated")
        );
        let again = store
            .compact(request("t", None), BucketLayout::default())
            .unwrap();
        assert_eq!(
            (again.id, again.accepted, again.state.as_str()),
            (None, false, "refused")
        );
        assert_eq!(
            again.error_message.as_deref(),
            Some("Compaction is already scheduled with state='initiated' and id=1")
        );
        let partition = store
            .compact(request("t", Some("p=1")), BucketLayout::default())
            .unwrap();
        assert_eq!((partition.id, partition.accepted), (Some(2), true));
        let listed = store.show_compact(&ShowCompactFilter::default()).unwrap();
        let ids: Vec<u64> = listed.iter().map(|c| c.request.id).collect();
        assert_eq!(ids, vec![1, 2]);
        assert_eq!(listed[0].request.database, "db");
        assert_eq!(listed[0].state, CompactionState::Initiated);
        let filter = ShowCompactFilter {
            partition: Some("p=1".into()),
            ..ShowCompactFilter::default()
        };
        assert_eq!(store.show_compact(&filter).unwrap().len(), 1);
        assert!(store
            .compact(request("", None), BucketLayout::default())
            .is_err());
    }

    fn store() -> Store {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        let backend = std::sync::Arc::new(crate::storage::kv::MemoryBackend::new());
        Store::open_with_backend(backend, options).unwrap()
    }

    #[test]
    fn cleanups_are_ready_for_cleaning_and_the_latest_per_partition_is_reported() {
        let store = store();
        for (partition, highest) in [("p=1", 3), ("p=2", 4), ("p=1", 5)] {
            assert!(store
                .submit_for_cleanup(request("t", Some(partition)), highest, 9)
                .unwrap());
        }
        assert!(store.submit_for_cleanup(request("t", None), -1, 9).is_err());
        let listed = store.show_compact(&ShowCompactFilter::default()).unwrap();
        assert_eq!(listed.len(), 3);
        for asked in ["ready for cleaning", "READY_FOR_CLEANING", "initiated"] {
            let filter = ShowCompactFilter {
                state: Some(asked.into()),
                ..ShowCompactFilter::default()
            };
            let count = store.show_compact(&filter).unwrap().len();
            assert_eq!(count, if asked == "initiated" { 0 } else { 3 }, "{asked}");
        }
        assert!(listed
            .iter()
            .all(|entry| entry.state == CompactionState::ReadyForCleaning));
        assert_eq!(listed[2].highest_write_id, Some(5));
        let ids = |entries: Vec<CompactionEntry>| -> Vec<u64> {
            entries.iter().map(|entry| entry.request.id).collect()
        };
        let latest = store.latest_committed_compactions("DB", "T", &[], None);
        assert_eq!(ids(latest.unwrap()), vec![3, 2]);
        let only = store.latest_committed_compactions("db", "t", &["p=2".into()], None);
        assert_eq!(ids(only.unwrap()), vec![2]);
        let after = store.latest_committed_compactions("db", "t", &[], Some(2));
        assert_eq!(ids(after.unwrap()), vec![3]);
        assert!(store
            .latest_committed_compactions("", "t", &[], None)
            .is_err());
        // A request ready for cleaning at the table's write id blocks a new one.
        let blocked = store
            .compact(request("t", Some("p=9")), BucketLayout::default())
            .unwrap();
        assert!(blocked.accepted);
    }

    #[test]
    fn only_initiated_requests_abort_and_then_stop_blocking() {
        let store = store();
        let queued = store
            .compact(request("t", None), BucketLayout::default())
            .unwrap();
        store
            .submit_for_cleanup(request("t", Some("p=1")), 0, 1)
            .unwrap();
        let outcomes = store.abort_compactions(&[1, 2, 7]).unwrap();
        let statuses: Vec<(&str, &str)> = outcomes
            .iter()
            .map(|o| (o.status.as_str(), o.message.as_str()))
            .collect();
        assert_eq!(
            statuses,
            vec![
                ("Success", "Successfully aborted compaction"),
                (
                    "Error",
                    "Error while aborting compaction as compaction is in state-ready for cleaning"
                ),
                ("Error", "No Such Compaction Id Available"),
            ]
        );
        let listed = store.show_compact(&ShowCompactFilter::default()).unwrap();
        assert_eq!(listed[0].state, CompactionState::Aborted);
        assert!(listed[0].ended_at_ms.is_some());
        let again = store
            .compact(request("t", None), BucketLayout::default())
            .unwrap();
        assert!(again.accepted && again.id > queued.id);
        // Ready for cleaning at the current write id (0) blocks the partition.
        let blocked = store
            .compact(request("t", Some("p=1")), BucketLayout::default())
            .unwrap();
        assert_eq!(
            (blocked.accepted, blocked.state.as_str()),
            (false, "refused")
        );
        let message = blocked.error_message.unwrap();
        assert!(message.contains("state='ready for cleaning'"), "{message}");
    }

    #[test]
    fn requests_stored_before_states_read_as_initiated() {
        let store = store();
        let mut old = request("t", None);
        old = normalise_request(old).unwrap();
        old.id = 1;
        let key = keys::compaction_key(1);
        let value = values::encode(&old).unwrap();
        store
            .write(|txn| {
                txn.put_raw(key, value);
                Ok(())
            })
            .unwrap();
        let listed = store.show_compact(&ShowCompactFilter::default()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].state, CompactionState::Initiated);
        assert_eq!(listed[0].request, old);
        let outcome = store.abort_compactions(&[1]).unwrap();
        assert_eq!(outcome[0].status, "Success");
    }

    #[test]
    fn entries_stored_before_workers_read_with_no_worker() {
        use crate::txns::compaction_legacy::{LegacyCompactionEntry, LegacyCompactionState};
        let store = store();
        let mut old = normalise_request(request("t", Some("p=1"))).unwrap();
        old.id = 4;
        let legacy = LegacyCompactionEntry {
            request: old.clone(),
            state: LegacyCompactionState::ReadyForCleaning,
            highest_write_id: Some(7),
            txn_id: Some(3),
            error_message: None,
            ended_at_ms: None,
        };
        let value = values::encode(&legacy).unwrap();
        assert_eq!(
            value[values::VALUE_KIND_OFFSET],
            ValueKind::CompactionEntry as u8
        );
        store
            .write(|txn| {
                txn.put_raw(keys::compaction_key(4), value);
                Ok(())
            })
            .unwrap();
        let listed = store.show_compact(&ShowCompactFilter::default()).unwrap();
        assert_eq!(listed.len(), 1);
        let entry = &listed[0];
        assert_eq!(
            (entry.state, entry.highest_write_id, entry.txn_id),
            (CompactionState::ReadyForCleaning, Some(7), Some(3))
        );
        assert_eq!((&entry.request, &entry.worker_id), (&old, &None));
        // A change of state rewrites it in the current kind.
        store.mark_compacted(4).unwrap();
        let stored = store
            .reader()
            .get(&keys::compaction_key(4))
            .unwrap()
            .unwrap();
        assert_eq!(
            stored[values::VALUE_KIND_OFFSET],
            ValueKind::CompactionRecord as u8
        );
    }
}
