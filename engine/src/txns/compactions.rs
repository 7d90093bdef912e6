//! Hive's compaction queue: `compact`, `compact2`, `show_compact`.
//!
//! hivestore stores and reports compaction requests, and runs none: there is no compactor.
//! A request stays `initiated` until `abort_Compactions` aborts it; one submitted by
//! `submit_for_cleanup` is `ready for cleaning` (see `compaction_cleanup.rs`). A second
//! request for the same table or partition while one is initiated (or ready for cleaning at
//! the table's current write id) is not accepted, as in Hive.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::names;
use crate::storage::keys;
use crate::storage::kv::{KeyRange, KvBackend};
use crate::storage::values::{self, stored_value, ValueKind, VALUE_HEADER_LEN};
use crate::store::Store;
use crate::txns::locks::now_ms;

/// The state every queued request keeps: hivestore runs no compactions.
pub const COMPACTION_STATE_INITIATED: &str = "initiated";
/// Said of every request in `show_compact`.
pub const COMPACTION_NOT_RUN_NOTE: &str =
    "hivestore records compaction requests but runs no compactions";
/// The most compaction requests kept.
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

/// Where a queued request is (Hive's `CompactionState`, of which hivestore reaches three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum CompactionState {
    /// Queued, waiting for a compactor (which hivestore does not have).
    Initiated,
    /// Compacted elsewhere and handed over for cleaning (`submit_for_cleanup`).
    ReadyForCleaning,
    /// Aborted by `abort_Compactions`.
    Aborted,
}

impl CompactionState {
    /// Hive's name, as `show_compact` reports it.
    pub fn hive_name(self) -> &'static str {
        match self {
            CompactionState::Initiated => COMPACTION_STATE_INITIATED,
            CompactionState::ReadyForCleaning => "ready for cleaning",
            CompactionState::Aborted => "aborted",
        }
    }
}

/// A compaction request as stored, with its state.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct CompactionEntry {
    /// The request.
    pub request: Compaction,
    /// Where it is.
    pub state: CompactionState,
    /// The highest write id it covers (`submit_for_cleanup`).
    pub highest_write_id: Option<u64>,
    /// The transaction that compacted (`submit_for_cleanup`).
    pub txn_id: Option<u64>,
    /// Why it ended, when aborted.
    pub error_message: Option<String>,
    /// When it was aborted, milliseconds since the epoch.
    pub ended_at_ms: Option<i64>,
}

stored_value!(CompactionEntry, ValueKind::CompactionEntry);

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
        }
    }
}

/// What `compact2` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionResponse {
    /// The queued request's id (the earlier one when not accepted).
    pub id: u64,
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

/// The compaction queue as read under the lock table's mutex, with what a change to it
/// writes.
pub(crate) struct CompactionQueue {
    pub entries: Vec<CompactionEntry>,
    pub next_id: u64,
    pub counter_moved: bool,
}

impl CompactionQueue {
    pub(crate) fn load(reader: &dyn KvBackend) -> Result<CompactionQueue> {
        let next_id =
            crate::txns::locks::read_counter(reader, keys::ACID_COUNTER_NEXT_COMPACTION_ID)?;
        Ok(CompactionQueue {
            entries: read_compactions(reader)?,
            next_id,
            counter_moved: false,
        })
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
        entry.request.id = self.next_id;
        entry.request.enqueued_at_ms = now_ms();
        self.next_id += 1;
        self.counter_moved = true;
        self.put(&entry, puts)?;
        self.entries.push(entry.clone());
        Ok(entry)
    }

    /// Adds the id counter to `puts` if requests were queued.
    pub(crate) fn finish(&self, puts: &mut Vec<(Vec<u8>, Vec<u8>)>) {
        if self.counter_moved {
            let key = keys::acid_counter_key(keys::ACID_COUNTER_NEXT_COMPACTION_ID);
            puts.push((key, self.next_id.to_be_bytes().to_vec()));
        }
    }

    /// Writes `entry` again (a change of state).
    pub(crate) fn put(
        &self,
        entry: &CompactionEntry,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<()> {
        let key = keys::compaction_key(entry.request.id);
        puts.push((key, values::encode(entry)?));
        Ok(())
    }

    /// Hive's `compact2` on this queue: refused (not an error) while a request for the same
    /// table and partition is initiated, or ready for cleaning at the table's
    /// `high_water_mark`.
    pub(crate) fn compact(
        &mut self,
        request: Compaction,
        high_water_mark: u64,
        puts: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<CompactionResponse> {
        let request = normalise_request(request)?;
        let same = self.entries.iter().find(|queued| {
            let pending = match queued.state {
                CompactionState::Initiated => true,
                CompactionState::ReadyForCleaning => {
                    queued.highest_write_id == Some(high_water_mark)
                }
                CompactionState::Aborted => false,
            };
            pending
                && queued.request.database == request.database
                && queued.request.table == request.table
                && queued.request.partition == request.partition
        });
        if let Some(earlier) = same {
            let state = earlier.state.hive_name();
            return Ok(CompactionResponse {
                id: earlier.request.id,
                state: state.to_string(),
                accepted: false,
                error_message: Some(format!(
                    "Compaction is already scheduled with state='{state}' and id={}",
                    earlier.request.id
                )),
            });
        }
        let queued = CompactionEntry::queued(request, CompactionState::Initiated);
        let entry = self.push(queued, puts)?;
        Ok(CompactionResponse {
            id: entry.request.id,
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

/// Every stored request, by id; those written before states existed read as initiated.
fn read_compactions(reader: &dyn KvBackend) -> Result<Vec<CompactionEntry>> {
    let range = KeyRange::prefix(&keys::compaction_prefix());
    let mut entries = Vec::new();
    for entry in crate::storage::kv::scan(reader, range, crate::storage::kv::SCAN_PAGE_ENTRY_COUNT)
    {
        let (key, stored) = entry?;
        let kind = stored.get(1).copied();
        let is_old = stored.len() >= VALUE_HEADER_LEN && kind == Some(ValueKind::Compaction as u8);
        if is_old {
            let request = values::decode::<Compaction>(key, stored)?;
            entries.push(CompactionEntry::queued(request, CompactionState::Initiated));
        } else {
            entries.push(values::decode::<CompactionEntry>(key, stored)?);
        }
    }
    Ok(entries)
}

impl Store {
    /// Hive's `compact2`: queues `request` unless one for the same table and partition is
    /// pending already.
    pub fn compact(&self, request: Compaction) -> Result<CompactionResponse> {
        let request = normalise_request(request)?;
        let _acid = self.acid()?;
        let mut queue = CompactionQueue::load(self.reader())?;
        let high_water_mark = self.table_high_water_mark(&request.database, &request.table)?;
        let mut puts = Vec::new();
        let response = queue.compact(request, high_water_mark, &mut puts)?;
        queue.finish(&mut puts);
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
        let first = store.compact(request("T", None)).unwrap();
        assert_eq!(
            (first.id, first.accepted, first.state.as_str()),
            (1, true, "initiated")
        );
        let again = store.compact(request("t", None)).unwrap();
        assert_eq!((again.id, again.accepted), (1, false));
        let partition = store.compact(request("t", Some("p=1"))).unwrap();
        assert_eq!((partition.id, partition.accepted), (2, true));
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
        assert!(store.compact(request("", None)).is_err());
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
        let blocked = store.compact(request("t", Some("p=9"))).unwrap();
        assert!(blocked.accepted);
    }

    #[test]
    fn only_initiated_requests_abort_and_then_stop_blocking() {
        let store = store();
        let queued = store.compact(request("t", None)).unwrap();
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
        let again = store.compact(request("t", None)).unwrap();
        assert!(again.accepted && again.id > queued.id);
        // Ready for cleaning at the current write id (0) blocks the partition.
        let blocked = store.compact(request("t", Some("p=1"))).unwrap();
        assert_eq!(
            (blocked.accepted, blocked.state.as_str()),
            (false, "ready for cleaning")
        );
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
}
