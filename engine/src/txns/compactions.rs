//! Hive's compaction queue: `compact`, `compact2`, `show_compact`.
//!
//! hivestore stores and reports compaction requests, and runs none: there is no compactor.
//! A request stays `initiated`; a second one for the same table or partition while the first
//! is queued is not accepted, as in Hive.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keys;
use crate::kv::KeyRange;
use crate::locks::now_ms;
use crate::names;
use crate::store::Store;
use crate::values::{self, stored_value, ValueKind};

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
    /// Only this state.
    pub state: Option<String>,
    /// Only this pool.
    pub pool_name: Option<String>,
    /// At most this many.
    pub limit: Option<usize>,
}

impl Store {
    /// Hive's `compact2`: queues `request` unless one for the same table and partition is
    /// queued already.
    pub fn compact(&self, request: Compaction) -> Result<CompactionResponse> {
        let mut request = request;
        request.database = names::normalize(&request.database);
        request.table = names::normalize(&request.table);
        if request.database.is_empty() || request.table.is_empty() {
            return Err(Error::InvalidInput(
                "a compaction request needs a database and a table name".to_string(),
            ));
        }
        let _acid = self.acid()?;
        let queued = self.compactions()?;
        let same = queued.iter().find(|queued| {
            queued.database == request.database
                && queued.table == request.table
                && queued.partition == request.partition
        });
        if let Some(earlier) = same {
            return Ok(CompactionResponse {
                id: earlier.id,
                state: COMPACTION_STATE_INITIATED.to_string(),
                accepted: false,
                error_message: Some(format!(
                    "Compaction is already scheduled with state='{COMPACTION_STATE_INITIATED}' and id={}",
                    earlier.id
                )),
            });
        }
        if queued.len() >= COMPACTION_COUNT_MAX {
            return Err(Error::Refused(format!(
                "{COMPACTION_COUNT_MAX} compaction requests are queued; no more are taken"
            )));
        }
        let counter_key = keys::acid_counter_key(keys::ACID_COUNTER_NEXT_COMPACTION_ID);
        let id = crate::locks::read_counter(self.reader(), keys::ACID_COUNTER_NEXT_COMPACTION_ID)?;
        request.id = id;
        request.enqueued_at_ms = now_ms();
        self.write(|txn| {
            txn.put_value(keys::compaction_key(id), &request)?;
            txn.put_raw(counter_key, (id + 1).to_be_bytes().to_vec());
            Ok(())
        })?;
        Ok(CompactionResponse {
            id,
            state: COMPACTION_STATE_INITIATED.to_string(),
            accepted: true,
            error_message: None,
        })
    }

    /// Hive's `show_compact`: the queued requests `filter` matches, by id.
    pub fn show_compact(&self, filter: &ShowCompactFilter) -> Result<Vec<Compaction>> {
        let database = filter.database.as_deref().map(names::normalize);
        let table = filter.table.as_deref().map(names::normalize);
        let matches = |compaction: &Compaction| {
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
                    .is_none_or(|state| state == COMPACTION_STATE_INITIATED)
                && filter
                    .pool_name
                    .as_ref()
                    .is_none_or(|pool| Some(pool) == compaction.pool_name.as_ref())
        };
        let mut listed: Vec<Compaction> = self.compactions()?.into_iter().filter(matches).collect();
        if let Some(limit) = filter.limit {
            listed.truncate(limit);
        }
        Ok(listed)
    }

    fn compactions(&self) -> Result<Vec<Compaction>> {
        let range = KeyRange::prefix(&keys::compaction_prefix());
        self.scan(range)
            .map(|entry| {
                let (key, stored) = entry?;
                values::decode::<Compaction>(key, stored)
            })
            .collect()
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
        assert_eq!(listed.iter().map(|c| c.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(listed[0].database, "db");
        let filter = ShowCompactFilter {
            partition: Some("p=1".into()),
            ..ShowCompactFilter::default()
        };
        assert_eq!(store.show_compact(&filter).unwrap().len(), 1);
        assert!(store.compact(request("", None)).is_err());
    }
}
