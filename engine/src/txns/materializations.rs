//! Hive 4's transactional calls for materialized views: whether a view's source tables were
//! updated, deleted from or compacted since its snapshot
//! (`get_materialization_invalidation_info`, Hive's `GetMaterializationInvalidationInfoFunction`),
//! and the rebuild lock a view's rebuild holds (`get_lock_materialization_rebuild`,
//! `heartbeat_lock_materialization_rebuild`, Hive's `MATERIALIZATION_REBUILD_LOCKS`).
//!
//! Hive answers the first from `COMPLETED_TXN_COMPONENTS`, whose rows carry a transaction's
//! write id per table and whether the transaction updated or deleted anything
//! (`CTC_UPDATE_DELETE`, one flag for all its rows), and from its compaction queue and
//! history. hivestore keeps the rows that matter, those flagged: when a transaction that
//! recorded updates or deletes (the operation types of its locks, `add_dynamic_partitions`)
//! commits, a mark per table it was given a write id for, under `0x2B 0x02`
//! ([`UPDATE_DELETE_MARKS_PER_TABLE_MAX`] a table, the oldest forgotten beyond it). The
//! compaction queue and history are the engine's own (`compactions.rs`).
//!
//! A rebuild lock is held by a transaction; it goes with that transaction's commit when the
//! transaction is a rebuild (`MATER_VIEW_REBUILD`), and once it was not heartbeated for the
//! transaction timeout and its transaction is no longer open, as Hive's cleaner task removes
//! it. hivestore removes it when it next meets it (acquiring, heartbeating), not on a timer.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use super::compactions::read_compactions;
use super::locks::{now_ms, AcidChanges, AcidState};
use super::snapshot::TxnSnapshot;
use super::state::TableWriteId;
use super::write_id_list::WriteIdSnapshot;
use super::TxnStatus;
use crate::error::{Error, Result};
use crate::model::names::{self, DATABASE_NAME_LEN_MAX, NAME_LEN_MAX};
use crate::storage::keys;
use crate::storage::kv::{KeyRange, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values::{self, stored_value, ValueKind};
use crate::store::Store;

/// The most rebuild locks held at once (Hive keeps one a view being rebuilt).
pub const REBUILD_LOCK_COUNT_MAX: usize = 10_000;
/// The most update/delete marks kept a table; beyond it the oldest are forgotten, and a view
/// whose snapshot predates a forgotten one counts its sources as updated.
pub const UPDATE_DELETE_MARKS_PER_TABLE_MAX: usize = 1_000;
/// The most source tables `get_materialization_invalidation_info` looks at (its
/// `tablesUsed`, and the tables of the view's snapshot).
pub const MATERIALIZATION_SOURCE_COUNT_MAX: usize = 1_000;

/// What `get_materialization_invalidation_info` answers (Hive's `Materialization`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MaterializationInvalidation {
    /// A source table was updated or deleted from since the view's snapshot.
    pub source_tables_update_delete_modified: bool,
    /// A source table was compacted (or has a compaction queued) since the view's snapshot.
    pub source_tables_compacted: bool,
}

/// A rebuild lock, as stored at `0x2B 0x01 + C(database) + C(view)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub(crate) struct RebuildLock {
    /// The transaction that holds it, as the client sent it.
    pub txn_id: i64,
    /// Its last heartbeat (or acquisition), milliseconds since the epoch.
    pub last_heartbeat_ms: i64,
}

stored_value!(RebuildLock, ValueKind::RebuildLock);

/// Hive's `MaterializationSnapshot` as `CreationMetadata.validTxnList` carries it: the
/// `ValidTxnWriteIdList` of the view's native sources, or snapshots of non-native ones.
enum ViewSnapshot {
    /// Each source's write ids, by the full name the snapshot gives.
    Native(BTreeMap<String, WriteIdSnapshot>),
    /// Snapshots of non-native (Iceberg) tables: Hive answers no invalidation info.
    NonNative,
}

/// Reads a view's snapshot: Hive's JSON `{"validTxnList": …, "tableSnapshots": …}`, or, when
/// the text is not JSON, a bare `ValidTxnWriteIdList`
/// (`<txn high water mark>$<ValidWriteIdList>$…`).
fn parse_view_snapshot(text: &str) -> Result<ViewSnapshot> {
    let mut write_ids = Some(text.to_string());
    if let Some(fields) = crate::stats::json_object(text) {
        write_ids = None;
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("tableSnapshots", crate::stats::Json::Object(tables)) if !tables.is_empty() => {
                    return Ok(ViewSnapshot::NonNative);
                }
                ("validTxnList", crate::stats::Json::Text(list)) => write_ids = Some(list),
                _ => {}
            }
        }
    }
    let mut tables = BTreeMap::new();
    let Some(write_ids) = write_ids.filter(|list| !list.is_empty()) else {
        return Ok(ViewSnapshot::Native(tables));
    };
    let malformed = |why: &str| {
        let shown: String = write_ids.chars().take(200).collect();
        Error::InvalidInput(format!(
            "The materialized view's validTxnList {shown:?} is malformed: {why}"
        ))
    };
    let mut parts = write_ids.split('$');
    let txn_mark = parts.next().unwrap_or("");
    if txn_mark.trim().parse::<i64>().is_err() {
        return Err(malformed(&format!("{txn_mark:?} is not a transaction id")));
    }
    for part in parts {
        if tables.len() >= MATERIALIZATION_SOURCE_COUNT_MAX {
            return Err(malformed(&format!(
                "it lists more than {MATERIALIZATION_SOURCE_COUNT_MAX} tables"
            )));
        }
        let name = part.split(':').next().unwrap_or("").to_string();
        let snapshot = WriteIdSnapshot::parse(part)?;
        tables.insert(name, snapshot);
    }
    Ok(ViewSnapshot::Native(tables))
}

/// `db.table` split as Hive's `TxnUtils.getDbTableName` splits it, normalised as write ids
/// are stored.
fn split_full_name(full_name: &str) -> Result<(String, String)> {
    match full_name.split_once('.') {
        Some((database, table)) if !database.is_empty() && !table.is_empty() => {
            Ok((names::normalize(database), names::normalize(table)))
        }
        _ => Err(Error::InvalidInput(format!(
            "The materialized view's source table {full_name:?} is not <database>.<table>"
        ))),
    }
}

/// Whether `write_id` was not visible to the view's snapshot of its table.
fn unseen_by(snapshot: &WriteIdSnapshot, write_id: u64) -> bool {
    write_id > snapshot.high_water_mark
        || snapshot.open.binary_search(&write_id).is_ok()
        || snapshot.aborted.binary_search(&write_id).is_ok()
}

impl Store {
    /// Hive 4's `get_materialization_invalidation_info`: for a view reading `tables_used`
    /// (`db.table`) as of `view_snapshot` (its `CreationMetadata.validTxnList`), whether a
    /// transaction committed since that snapshot and visible in `valid_txn_list` (the
    /// caller's `ValidTxnList`; none: everything committed) updated or deleted in a source, and
    /// whether a source was compacted since (a completed compaction whose highest write id the
    /// view did not see) or has a compaction queued. `None` where Hive answers none: no
    /// tables used, non-native sources, a source the view's snapshot does not list, or a
    /// source whose lowest open write id moved since the snapshot.
    pub fn materialization_invalidation_info(
        &self,
        tables_used: &[String],
        view_snapshot: Option<&str>,
        valid_txn_list: Option<&str>,
    ) -> Result<Option<MaterializationInvalidation>> {
        if tables_used.len() > MATERIALIZATION_SOURCE_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "The materialized view names {} source tables; at most \
                 {MATERIALIZATION_SOURCE_COUNT_MAX} are allowed",
                tables_used.len()
            )));
        }
        if tables_used.is_empty() {
            return Ok(None);
        }
        let ViewSnapshot::Native(seen) = parse_view_snapshot(view_snapshot.unwrap_or(""))? else {
            return Ok(None);
        };
        let current = match valid_txn_list.filter(|text| !text.is_empty()) {
            Some(text) => TxnSnapshot::parse(text)?,
            None => TxnSnapshot {
                high_water_mark: i64::MAX.unsigned_abs(),
                ..TxnSnapshot::default()
            },
        };
        let mut sources = Vec::with_capacity(tables_used.len());
        for full_name in tables_used {
            let Some(snapshot) = seen.get(full_name) else {
                return Ok(None);
            };
            sources.push((split_full_name(full_name)?, snapshot));
        }
        self.with_acid(now_ms(), |_, _| {
            for ((database, table), snapshot) in &sources {
                let now = self.table_valid_write_ids(&format!("{database}.{table}"), &current)?;
                if now.min_open_write_id != snapshot.min_open {
                    return Ok(None);
                }
            }
            let mut answer = MaterializationInvalidation::default();
            for ((database, table), snapshot) in &sources {
                if self.updated_or_deleted_since(database, table, snapshot, &current)? {
                    answer.source_tables_update_delete_modified = true;
                    break;
                }
            }
            let compactions = read_compactions(self.reader())?;
            answer.source_tables_compacted = sources.iter().any(|((database, table), snapshot)| {
                compactions.iter().any(|entry| {
                    entry.request.database == *database
                        && entry.request.table == *table
                        && (entry.state.is_queued()
                            || entry
                                .highest_write_id
                                .is_some_and(|write_id| unseen_by(snapshot, write_id)))
                })
            });
            Ok(Some(answer))
        })
    }

    /// Whether a transaction visible in `current` that updated or deleted committed a write id
    /// of `database.table` that `snapshot` did not see. A forgotten mark above what the
    /// snapshot saw counts as one.
    fn updated_or_deleted_since(
        &self,
        database: &str,
        table: &str,
        snapshot: &WriteIdSnapshot,
        current: &TxnSnapshot,
    ) -> Result<bool> {
        let forgotten_key = keys::forgotten_update_delete_key(database, table);
        if let Some(stored) = self.reader().get(&forgotten_key)? {
            let forgotten = keys::decode_id_value(&forgotten_key, &stored)?;
            let unseen_forgotten = forgotten > snapshot.high_water_mark
                || snapshot.open.first().is_some_and(|id| *id <= forgotten)
                || snapshot.aborted.first().is_some_and(|id| *id <= forgotten);
            if unseen_forgotten {
                return Ok(true);
            }
        }
        let range = KeyRange::prefix(&keys::update_delete_prefix(database, table));
        for entry in self.scan(range) {
            let (key, value) = entry?;
            let write_id = keys::decode_update_delete_key(&key)?;
            let txn_id = keys::decode_id_value(&key, &value)?;
            if unseen_by(snapshot, write_id) && current.is_committed(txn_id) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Hive's `get_lock_materialization_rebuild`: transaction `txn_id` takes the rebuild lock
    /// of `database.view` (names as given, as Hive keeps them) unless a lock is held on it
    /// already, by any transaction; answers whether it did.
    pub fn lock_materialization_rebuild(
        &self,
        database: &str,
        view: &str,
        txn_id: i64,
    ) -> Result<bool> {
        self.lock_materialization_rebuild_at(database, view, txn_id, now_ms())
    }

    /// [`Store::lock_materialization_rebuild`] at `now` (milliseconds since the epoch) as the
    /// locks' clock; transactions keep the real one.
    pub(crate) fn lock_materialization_rebuild_at(
        &self,
        database: &str,
        view: &str,
        txn_id: i64,
        now: i64,
    ) -> Result<bool> {
        check_rebuild_lock_names(database, view)?;
        let key = keys::rebuild_lock_key(database, view);
        self.with_acid(now_ms(), |acid, changes| {
            if self.held_rebuild_lock(acid, &key, now, changes)?.is_some() {
                return Ok(false);
            }
            self.make_room_for_rebuild_lock(acid, &key, now, changes)?;
            let lock = RebuildLock {
                txn_id,
                last_heartbeat_ms: now,
            };
            changes.puts.push((key, values::encode(&lock)?));
            Ok(true)
        })
    }

    /// Hive's `heartbeat_lock_materialization_rebuild`: whether transaction `txn_id` holds the
    /// rebuild lock of `database.view`; if it does, the lock is heartbeated now.
    pub fn heartbeat_materialization_rebuild_lock(
        &self,
        database: &str,
        view: &str,
        txn_id: i64,
    ) -> Result<bool> {
        self.heartbeat_materialization_rebuild_lock_at(database, view, txn_id, now_ms())
    }

    /// [`Store::heartbeat_materialization_rebuild_lock`] at `now` as the locks' clock.
    pub(crate) fn heartbeat_materialization_rebuild_lock_at(
        &self,
        database: &str,
        view: &str,
        txn_id: i64,
        now: i64,
    ) -> Result<bool> {
        check_rebuild_lock_names(database, view)?;
        let key = keys::rebuild_lock_key(database, view);
        self.with_acid(now_ms(), |acid, changes| {
            let Some(held) = self.held_rebuild_lock(acid, &key, now, changes)? else {
                return Ok(false);
            };
            if held.txn_id != txn_id {
                return Ok(false);
            }
            let lock = RebuildLock {
                txn_id,
                last_heartbeat_ms: now,
            };
            changes.puts.push((key, values::encode(&lock)?));
            Ok(true)
        })
    }

    /// The rebuild lock at `key` if one is held: one that is gone
    /// ([`Store::rebuild_lock_gone`]) is deleted with `changes` and is none.
    fn held_rebuild_lock(
        &self,
        acid: &AcidState,
        key: &[u8],
        now: i64,
        changes: &mut AcidChanges,
    ) -> Result<Option<RebuildLock>> {
        let Some(view) = self.view::<RebuildLock>(key)? else {
            return Ok(None);
        };
        let held = view.to_owned()?;
        if self.rebuild_lock_gone(acid, &held, now) {
            changes.deletes.push(key.to_vec());
            return Ok(None);
        }
        Ok(Some(held))
    }

    /// Whether Hive's cleaner would have removed `lock` by `now`: not heartbeated for the
    /// transaction timeout, and its transaction committed or aborted (any id up to the
    /// highest handed out that is not open; Hive's `isTxnValid || isTxnAborted`).
    fn rebuild_lock_gone(&self, acid: &AcidState, lock: &RebuildLock, now: i64) -> bool {
        let timeout_ms = i64::try_from(self.options().txn_timeout.as_millis()).unwrap_or(i64::MAX);
        if now.saturating_sub(lock.last_heartbeat_ms) <= timeout_ms {
            return false;
        }
        let Ok(txn_id) = u64::try_from(lock.txn_id) else {
            return true;
        };
        txn_id < acid.txns.next_txn_id && acid.txns.status(txn_id) != TxnStatus::Open
    }

    /// Refuses a new rebuild lock when [`REBUILD_LOCK_COUNT_MAX`] are held, after removing
    /// those Hive's cleaner would have removed.
    fn make_room_for_rebuild_lock(
        &self,
        acid: &AcidState,
        key: &[u8],
        now: i64,
        changes: &mut AcidChanges,
    ) -> Result<()> {
        let mut held = 0usize;
        let range = KeyRange::prefix(&keys::rebuild_lock_prefix());
        for entry in crate::storage::kv::scan(self.reader(), range, SCAN_PAGE_ENTRY_COUNT) {
            let (stored_key, stored) = entry?;
            if &stored_key[..] == key {
                continue;
            }
            let lock = values::decode::<RebuildLock>(stored_key.clone(), stored)?;
            if self.rebuild_lock_gone(acid, &lock, now) {
                changes.deletes.push(stored_key.to_vec());
            } else {
                held += 1;
            }
        }
        if held >= REBUILD_LOCK_COUNT_MAX {
            return Err(Error::Refused(format!(
                "{held} materialized view rebuild locks are held; at most \
                 {REBUILD_LOCK_COUNT_MAX} are allowed"
            )));
        }
        Ok(())
    }
}

fn check_rebuild_lock_names(database: &str, view: &str) -> Result<()> {
    for (what, name, max) in [
        ("database", database, DATABASE_NAME_LEN_MAX),
        ("materialized view", view, NAME_LEN_MAX),
    ] {
        if name.len() > max {
            return Err(Error::InvalidInput(format!(
                "The {what} name of a rebuild lock is {} bytes long; at most {max} are allowed",
                name.len()
            )));
        }
    }
    Ok(())
}

/// In the batch committing `txn_id`, which updated or deleted: an update/delete mark for each
/// write id it was given, each table's marks kept within [`UPDATE_DELETE_MARKS_PER_TABLE_MAX`]
/// (the oldest forgotten, the highest of them remembered).
pub(crate) fn mark_update_delete(
    store: &Store,
    txn_id: u64,
    write_ids: &[TableWriteId],
    changes: &mut AcidChanges,
) -> Result<()> {
    for written in write_ids {
        let (database, table) = (&written.database, &written.table);
        let mut marked = Vec::new();
        let range = KeyRange::prefix(&keys::update_delete_prefix(database, table));
        for entry in crate::storage::kv::scan(store.reader(), range, SCAN_PAGE_ENTRY_COUNT) {
            let (key, _) = entry?;
            marked.push(keys::decode_update_delete_key(&key)?);
        }
        let over = (marked.len() + 1).saturating_sub(UPDATE_DELETE_MARKS_PER_TABLE_MAX);
        if over > 0 {
            let forgotten_key = keys::forgotten_update_delete_key(database, table);
            let mut forgotten = match store.reader().get(&forgotten_key)? {
                Some(stored) => keys::decode_id_value(&forgotten_key, &stored)?,
                None => 0,
            };
            for write_id in marked.iter().take(over) {
                changes
                    .deletes
                    .push(keys::update_delete_key(database, table, *write_id));
                forgotten = forgotten.max(*write_id);
            }
            changes
                .puts
                .push((forgotten_key, forgotten.to_be_bytes().to_vec()));
        }
        let key = keys::update_delete_key(database, table, written.write_id);
        changes.puts.push((key, txn_id.to_be_bytes().to_vec()));
    }
    Ok(())
}

/// In the batch of the cleaner's `mark_cleaned` of a compaction of the whole table
/// `database.table`: its update/delete marks up to write id `highest` go (all of them for
/// 0, a request without one), as Hive deletes the table's `COMPLETED_TXN_COMPONENTS` rows
/// there; the record of forgotten marks goes too when they were all at or below `highest`.
/// Views whose snapshot predates the compaction are told so by the compaction history.
pub(crate) fn forget_cleaned_marks(
    store: &Store,
    database: &str,
    table: &str,
    highest: u64,
    changes: &mut AcidChanges,
) -> Result<()> {
    let range = KeyRange::prefix(&keys::update_delete_prefix(database, table));
    for entry in crate::storage::kv::scan(store.reader(), range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, _) = entry?;
        let write_id = keys::decode_update_delete_key(&key)?;
        if highest != 0 && write_id > highest {
            break;
        }
        changes.deletes.push(key.to_vec());
    }
    let forgotten_key = keys::forgotten_update_delete_key(database, table);
    if let Some(stored) = store.reader().get(&forgotten_key)? {
        let forgotten = keys::decode_id_value(&forgotten_key, &stored)?;
        if highest == 0 || forgotten <= highest {
            changes.deletes.push(forgotten_key);
        }
    }
    Ok(())
}

/// In the batch committing rebuild transaction `txn_id`: its rebuild locks go, as Hive's
/// commit deletes them.
pub(crate) fn release_rebuild_locks(
    store: &Store,
    txn_id: u64,
    changes: &mut AcidChanges,
) -> Result<()> {
    let range = KeyRange::prefix(&keys::rebuild_lock_prefix());
    for entry in crate::storage::kv::scan(store.reader(), range, SCAN_PAGE_ENTRY_COUNT) {
        let (key, stored) = entry?;
        let lock = values::decode::<RebuildLock>(key.clone(), stored)?;
        if u64::try_from(lock.txn_id) == Ok(txn_id) {
            changes.deletes.push(key.to_vec());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::storage::kv::MemoryBackend;
    use crate::txns::{OpenTxnRequest, TxnType};
    use crate::{Durability, StoreOptions};

    const TIMEOUT: Duration = Duration::from_secs(300);

    fn store_over(backend: &Arc<MemoryBackend>) -> Store {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        options.txn_timeout = TIMEOUT;
        Store::open_with_backend(backend.clone(), options).unwrap()
    }

    fn open(store: &Store, txn_type: TxnType) -> i64 {
        let opened = store
            .open_txns(OpenTxnRequest {
                count: 1,
                user: "u".into(),
                hostname: "h".into(),
                txn_type,
                ..OpenTxnRequest::default()
            })
            .unwrap();
        i64::try_from(opened[0]).unwrap()
    }

    #[test]
    fn a_rebuild_lock_expires_once_unheartbeated_and_its_transaction_ended() {
        let store = store_over(&Arc::new(MemoryBackend::new()));
        let timeout = i64::try_from(TIMEOUT.as_millis()).unwrap();
        let start = now_ms();
        let holder = open(&store, TxnType::MaterializedViewRebuild);
        let other = open(&store, TxnType::Default);
        assert!(store
            .lock_materialization_rebuild_at("db", "mv", holder, start)
            .unwrap());
        // Past the timeout, but the holder's transaction is open: the lock stays.
        let late = start + timeout + 1;
        assert!(!store
            .lock_materialization_rebuild_at("db", "mv", other, late)
            .unwrap());
        // Heartbeated at `late`, it lives a timeout from there even once its transaction ended.
        assert!(store
            .heartbeat_materialization_rebuild_lock_at("db", "mv", holder, late)
            .unwrap());
        store.abort_txn(u64::try_from(holder).unwrap()).unwrap();
        assert!(!store
            .lock_materialization_rebuild_at("db", "mv", other, late + timeout)
            .unwrap());
        assert!(store
            .lock_materialization_rebuild_at("db", "mv", other, late + timeout + 1)
            .unwrap());
        assert!(!store
            .heartbeat_materialization_rebuild_lock_at("db", "mv", holder, late + timeout + 1)
            .unwrap());
        // An id above every transaction handed out is never cleaned (Hive's isTxnValid).
        assert!(store
            .lock_materialization_rebuild_at("db", "future", 1_000_000, start)
            .unwrap());
        assert!(!store
            .lock_materialization_rebuild_at("db", "future", other, start + 10 * timeout)
            .unwrap());
    }

    #[test]
    fn rebuild_locks_are_bounded_and_survive_a_reopen() {
        let backend = Arc::new(MemoryBackend::new());
        let store = store_over(&backend);
        let txn = open(&store, TxnType::MaterializedViewRebuild);
        let start = now_ms();
        assert!(store
            .lock_materialization_rebuild_at("db", "mv", txn, start)
            .unwrap());
        let long = "v".repeat(NAME_LEN_MAX + 1);
        assert!(matches!(
            store.lock_materialization_rebuild("db", &long, txn),
            Err(Error::InvalidInput(_))
        ));
        drop(store);
        let store = store_over(&backend);
        assert!(!store
            .lock_materialization_rebuild("db", "mv", txn + 1)
            .unwrap());
        assert!(store
            .heartbeat_materialization_rebuild_lock("db", "mv", txn)
            .unwrap());
        store.commit_txn(u64::try_from(txn).unwrap()).unwrap();
        assert!(!store
            .heartbeat_materialization_rebuild_lock("db", "mv", txn)
            .unwrap());
    }

    #[test]
    fn update_delete_marks_are_bounded_per_table() {
        let store = store_over(&Arc::new(MemoryBackend::new()));
        let marks = |store: &Store| -> Vec<u64> {
            store
                .scan(KeyRange::prefix(&keys::update_delete_prefix("db", "t")))
                .map(|entry| keys::decode_update_delete_key(&entry.unwrap().0).unwrap())
                .collect()
        };
        for write_id in 1..=(UPDATE_DELETE_MARKS_PER_TABLE_MAX as u64 + 2) {
            let mut changes = AcidChanges::default();
            let written = [TableWriteId {
                database: "db".into(),
                table: "t".into(),
                write_id,
            }];
            mark_update_delete(&store, 7, &written, &mut changes).unwrap();
            store
                .write(|txn| {
                    for (key, value) in &changes.puts {
                        txn.put_raw(key.clone(), value.clone());
                    }
                    for key in &changes.deletes {
                        txn.delete(key.clone());
                    }
                    Ok(())
                })
                .unwrap();
        }
        let kept = marks(&store);
        assert_eq!(kept.len(), UPDATE_DELETE_MARKS_PER_TABLE_MAX);
        assert_eq!(kept[0], 3);
        let key = keys::forgotten_update_delete_key("db", "t");
        let forgotten = store.reader().get(&key).unwrap().unwrap();
        assert_eq!(keys::decode_id_value(&key, &forgotten).unwrap(), 2);
    }

    #[test]
    fn a_cleaned_compaction_forgets_the_marks_up_to_its_write_id() {
        let store = store_over(&Arc::new(MemoryBackend::new()));
        let apply = |changes: &AcidChanges| {
            store
                .write(|txn| {
                    for (key, value) in &changes.puts {
                        txn.put_raw(key.clone(), value.clone());
                    }
                    for key in &changes.deletes {
                        txn.delete(key.clone());
                    }
                    Ok(())
                })
                .unwrap();
        };
        let marks = |table: &str| -> Vec<u64> {
            store
                .scan(KeyRange::prefix(&keys::update_delete_prefix("db", table)))
                .map(|entry| keys::decode_update_delete_key(&entry.unwrap().0).unwrap())
                .collect()
        };
        for table in ["t", "u"] {
            for write_id in [1, 2, 3, 300] {
                let mut changes = AcidChanges::default();
                let written = [TableWriteId {
                    database: "db".into(),
                    table: table.into(),
                    write_id,
                }];
                mark_update_delete(&store, 7, &written, &mut changes).unwrap();
                apply(&changes);
            }
        }
        let forgotten = keys::forgotten_update_delete_key("db", "t");
        store
            .write(|txn| {
                txn.put_raw(forgotten.clone(), 2u64.to_be_bytes().to_vec());
                Ok(())
            })
            .unwrap();
        let mut changes = AcidChanges::default();
        forget_cleaned_marks(&store, "db", "t", 3, &mut changes).unwrap();
        apply(&changes);
        assert_eq!(marks("t"), [300]);
        assert_eq!(marks("u"), [1, 2, 3, 300]);
        assert!(store.reader().get(&forgotten).unwrap().is_none());
        let mut changes = AcidChanges::default();
        forget_cleaned_marks(&store, "db", "u", 0, &mut changes).unwrap();
        apply(&changes);
        assert!(marks("u").is_empty());
    }

    #[test]
    fn a_views_snapshot_reads_as_json_or_bare() {
        let bare = "12$db.t:5:9223372036854775807::$db.u:3:2:2:";
        let ViewSnapshot::Native(tables) = parse_view_snapshot(bare).unwrap() else {
            panic!("native expected");
        };
        assert_eq!(tables["db.t"].high_water_mark, 5);
        assert_eq!(tables["db.u"].min_open, Some(2));
        let json = format!("{{\"validTxnList\":\"{bare}\",\"tableSnapshots\":null}}");
        let ViewSnapshot::Native(same) = parse_view_snapshot(&json).unwrap() else {
            panic!("native expected");
        };
        assert_eq!(same, tables);
        let iceberg = r#"{"validTxnList":null,"tableSnapshots":{"db.t":{"snapshotId":1}}}"#;
        assert!(matches!(
            parse_view_snapshot(iceberg).unwrap(),
            ViewSnapshot::NonNative
        ));
        for bad in ["x$db.t:1:1::", "3$db.t:y:1::", "3$db.t"] {
            assert!(parse_view_snapshot(bad).is_err(), "{bad}");
        }
        let ViewSnapshot::Native(empty) = parse_view_snapshot("").unwrap() else {
            panic!("native expected");
        };
        assert!(empty.is_empty());
    }
}
