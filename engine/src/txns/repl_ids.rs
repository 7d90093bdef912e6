//! What replication leaves on the catalog through the transaction calls, as Hive 4's
//! `TxnHandler` writes it straight into its parameter tables (no event is logged for it):
//!
//! - `commit_txn` with `replLastIdInfo` sets `repl.last.id` (the id of the last event a
//!   replication load applied) on the database, the table and the partitions it names, in the
//!   batch of the commit;
//! - an abort of a transaction a replication load opened (`REPL_CREATED`, still mapped from
//!   its source transaction) that does not come from the load itself marks the database of
//!   its replication policy `repl.incompatible=true`: later loads must bootstrap again.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::catalog::lookup::{find_database_id, find_table_id};
use crate::error::{Error, Result};
use crate::model::database::Database;
use crate::model::names::{self, DEFAULT_CATALOG_NAME};
use crate::model::partition::PartitionRecord;
use crate::model::table::Table;
use crate::partitions::partitioned::{values_of_name, PartitionedTable};
use crate::partitions::stored::read_view;
use crate::storage::keys;
use crate::storage::kv::KvBytes;
use crate::storage::values;
use crate::store::Store;

use super::{TxnKeyValue, TxnSpace};

/// The parameter a replication load's commit sets (Hive's `ReplConst.REPL_TARGET_TABLE_PROPERTY`).
pub const REPL_LAST_ID_PARAMETER: &str = "repl.last.id";
/// The database parameter an abort outside replay sets (Hive's `ReplConst.REPL_INCOMPATIBLE`).
pub const REPL_INCOMPATIBLE_PARAMETER: &str = "repl.incompatible";
/// The most partitions one `replLastIdInfo` names.
pub const REPL_LAST_ID_PARTITION_COUNT_MAX: usize = 10_000;

/// Hive's `ReplLastIdInfo`: where a replication load's commit records the last event id it
/// applied.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplLastId {
    /// The catalog; `None` (or empty) means `hive`.
    pub catalog: Option<String>,
    /// The database.
    pub database: String,
    /// The event id recorded.
    pub last_repl_id: i64,
    /// The table, if the load was of one.
    pub table: Option<String>,
    /// Partition names (`k=v/...`, as Hive writes them) of the table.
    pub partitions: Option<Vec<String>>,
}

/// Sets `key` to `value` in `parameters`; whether that changed them.
fn set_parameter(parameters: &mut BTreeMap<String, String>, key: &str, value: &str) -> bool {
    if parameters.get(key).map(String::as_str) == Some(value) {
        return false;
    }
    parameters.insert(key.to_string(), value.to_string());
    true
}

impl Store {
    /// The writes that set `repl.last.id` as `info` says, for the batch of a commit: the
    /// database's, then the table's, then each partition's. As Hive: a missing database or
    /// table, or names of partitions the table does not have, fail the commit, naming them;
    /// partition names match exactly.
    pub(crate) fn repl_last_id_puts(&self, info: &ReplLastId) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let partitions = info.partitions.as_deref().unwrap_or_default();
        if partitions.len() > REPL_LAST_ID_PARTITION_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "replLastIdInfo names {} partitions; at most {REPL_LAST_ID_PARTITION_COUNT_MAX} are allowed",
                partitions.len()
            )));
        }
        let catalog = info
            .catalog
            .as_deref()
            .map(names::normalize)
            .filter(|catalog| !catalog.is_empty())
            .unwrap_or_else(|| DEFAULT_CATALOG_NAME.to_string());
        let database = names::normalize(&info.database);
        let value = info.last_repl_id.to_string();
        let reader = self.reader();
        let mut puts = Vec::new();
        let Some(database_id) = find_database_id(reader, &catalog, &database)? else {
            return Err(Error::Refused(format!(
                "DB with name {database} does not exist in catalog {catalog}"
            )));
        };
        let database_key = keys::database_key(database_id);
        let mut stored = read_view::<Database>(reader, &database_key)?
            .ok_or_else(|| {
                crate::catalog::lookup::dangling_index(&catalog, &database, database_id)
            })?
            .to_owned()?;
        if set_parameter(&mut stored.parameters, REPL_LAST_ID_PARAMETER, &value) {
            puts.push((database_key, values::encode(&stored)?));
        }
        let Some(table) = info.table.as_deref() else {
            return Ok(puts);
        };
        let table = names::normalize(table);
        let not_found = || {
            Error::Refused(format!(
                "Table with name {table} does not exist in db {catalog}.{database}"
            ))
        };
        let table_id = find_table_id(reader, database_id, &table)?.ok_or_else(not_found)?;
        let table_key = keys::table_key(table_id);
        let mut stored = read_view::<Table>(reader, &table_key)?
            .ok_or_else(not_found)?
            .to_owned()?;
        let partitioned = PartitionedTable {
            id: table_id,
            table: stored.clone(),
        };
        if set_parameter(&mut stored.parameters, REPL_LAST_ID_PARAMETER, &value) {
            puts.push((table_key, values::encode(&stored)?));
        }
        let mut found: BTreeMap<Vec<u8>, PartitionRecord> = BTreeMap::new();
        for name in partitions {
            let Some(values) = values_of_name(&partitioned, name) else {
                continue;
            };
            let key = keys::partition_key(table_id, &values);
            if found.contains_key(&key) {
                continue;
            }
            if let Some(record) = read_view::<PartitionRecord>(reader, &key)? {
                found.insert(key, record.to_owned()?);
            }
        }
        let missing = partitions.len() - found.len();
        if missing != 0 {
            return Err(Error::Refused(format!(
                "{missing} Number of partition among [{}] does not exist in table {catalog}.{database}.{table}",
                partitions.join(", ")
            )));
        }
        for (key, mut record) in found {
            if set_parameter(&mut record.parameters, REPL_LAST_ID_PARAMETER, &value) {
                puts.push((key, values::encode(&record)?));
            }
        }
        Ok(puts)
    }

    /// The writes that mark `repl.incompatible=true` on the database of the replication
    /// policy of each of `txn_ids` that replays a source transaction, before an abort that
    /// does not come from the replication load: as Hive, the database is the policy up to its
    /// first `.`, in catalog `hive`, and one that does not exist fails the abort.
    pub(crate) fn repl_incompatible_puts(
        &self,
        txns: &TxnSpace,
        txn_ids: &[u64],
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        if txns.repl_map.is_empty() {
            return Ok(Vec::new());
        }
        let aborted: BTreeSet<u64> = txn_ids.iter().copied().collect();
        let databases: BTreeSet<String> = txns
            .repl_map
            .iter()
            .filter(|(_, target)| aborted.contains(target))
            .map(|((policy, _), _)| names::normalize(policy.split('.').next().unwrap_or_default()))
            .collect();
        let reader = self.reader();
        let mut puts = Vec::new();
        for database in databases {
            let Some(database_id) = find_database_id(reader, DEFAULT_CATALOG_NAME, &database)?
            else {
                return Err(Error::Refused(format!(
                    "DB with name {database} does not exist in catalog {DEFAULT_CATALOG_NAME}"
                )));
            };
            let key = keys::database_key(database_id);
            let mut stored = read_view::<Database>(reader, &key)?
                .ok_or_else(|| {
                    crate::catalog::lookup::dangling_index(
                        DEFAULT_CATALOG_NAME,
                        &database,
                        database_id,
                    )
                })?
                .to_owned()?;
            if set_parameter(&mut stored.parameters, REPL_INCOMPATIBLE_PARAMETER, "true") {
                puts.push((key, values::encode(&stored)?));
            }
        }
        Ok(puts)
    }
}

/// The catalog writes of a commit: those of its `replLastIdInfo` and that of its key/value;
/// when both write one table, the key/value's parameter is set on the table as
/// `replLastIdInfo` left it, so that neither is lost.
pub(crate) fn with_key_value(
    mut puts: Vec<(Vec<u8>, Vec<u8>)>,
    table_put: Option<(Vec<u8>, Vec<u8>)>,
    key_value: Option<&TxnKeyValue>,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let Some((key, encoded)) = table_put else {
        return Ok(puts);
    };
    match (
        puts.iter_mut().find(|(written, _)| *written == key),
        key_value,
    ) {
        (Some(written), Some(key_value)) => {
            let mut table: Table = values::decode(
                KvBytes::from_shared(Arc::from(key.as_slice())),
                KvBytes::from_shared(Arc::from(written.1.as_slice())),
            )?;
            table
                .parameters
                .insert(key_value.key.clone(), key_value.value.clone());
            written.1 = values::encode(&table)?;
        }
        _ => puts.push((key, encoded)),
    }
    Ok(puts)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::storage::kv::MemoryBackend;
    use crate::txns::{CommitExtras, OpenTxnRequest, ReplRole, TxnType};
    use crate::{
        AddPartitionsOptions, Database, Durability, FieldSchema, Partition, StoreOptions, Table,
    };

    fn store_over(backend: &Arc<MemoryBackend>) -> Store {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        Store::open_with_backend(backend.clone(), options).unwrap()
    }

    /// Database `db` with table `w` partitioned by `ds`, partitions `ds=1` and `ds=2`.
    fn store_with_partitions(backend: &Arc<MemoryBackend>) -> Store {
        let store = store_over(backend);
        let database = Database {
            name: "db".into(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
        let column = |name: &str| FieldSchema {
            name: name.into(),
            type_name: "string".into(),
            comment: None,
        };
        let table = Table {
            db_name: "db".into(),
            table_name: "w".into(),
            partition_keys: vec![column("ds")],
            sd: Some(crate::StorageDescriptor {
                cols: vec![column("a")],
                ..crate::StorageDescriptor::default()
            }),
            ..Table::default()
        };
        store.create_table(table).unwrap();
        let partitions = ["1", "2"]
            .map(|value| Partition {
                values: vec![value.into()],
                ..Partition::default()
            })
            .to_vec();
        store
            .add_partitions(
                "hive",
                "db",
                "w",
                partitions,
                &AddPartitionsOptions::default(),
            )
            .unwrap();
        store
    }

    fn open_replayed(store: &Store, policy: &str, source: u64) -> u64 {
        let request = OpenTxnRequest {
            count: 1,
            txn_type: TxnType::ReplCreated,
            ..OpenTxnRequest::default()
        };
        store
            .open_txns_for(request, Some((policy.into(), vec![source])))
            .unwrap()[0]
    }

    fn repl_last_id(table: Option<&str>, partitions: &[&str]) -> CommitExtras {
        CommitExtras {
            repl_last_id: Some(ReplLastId {
                database: "DB".into(),
                last_repl_id: 42,
                table: table.map(str::to_string),
                partitions: Some(partitions.iter().map(|name| name.to_string()).collect()),
                ..ReplLastId::default()
            }),
            ..CommitExtras::default()
        }
    }

    fn last_ids(store: &Store) -> [Option<String>; 4] {
        let get =
            |parameters: &BTreeMap<String, String>| parameters.get(REPL_LAST_ID_PARAMETER).cloned();
        let partition = |value: &str| {
            let partition = store
                .get_partition("hive", "db", "w", &[value.to_string()])
                .unwrap();
            get(&partition.parameters)
        };
        [
            get(&store.get_database("hive", "db").unwrap().parameters),
            get(&store.get_table("hive", "db", "w").unwrap().parameters),
            partition("1"),
            partition("2"),
        ]
    }

    #[test]
    fn a_commits_repl_last_id_is_set_with_it_or_not_at_all() {
        let backend = Arc::new(MemoryBackend::new());
        let store = store_with_partitions(&backend);
        let policy = ReplRole::Replayed {
            policy: "db.*".into(),
        };
        let target = open_replayed(&store, "db.*", 7);
        for (refused, message) in [
            (
                repl_last_id(Some("missing"), &[]),
                "Table with name missing does not exist in db hive.db",
            ),
            (
                repl_last_id(Some("w"), &["ds=1", "ds=3", "DS=2"]),
                "2 Number of partition among [ds=1, ds=3, DS=2] does not exist in table hive.db.w",
            ),
        ] {
            match store.commit_txn_as(7, refused, &policy) {
                Err(Error::Refused(text)) => assert_eq!(text, message),
                other => panic!("{other:?}"),
            }
        }
        let mut missing_db = repl_last_id(None, &[]);
        if let Some(info) = missing_db.repl_last_id.as_mut() {
            info.database = "nowhere".into();
        }
        match store.commit_txn_as(7, missing_db, &policy) {
            Err(Error::Refused(text)) => {
                assert_eq!(text, "DB with name nowhere does not exist in catalog hive")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(last_ids(&store), [None, None, None, None]);
        assert_eq!(store.open_txns_info(&[]).unwrap().txns[0].txn_id, target);

        store
            .commit_txn_as(7, repl_last_id(Some("W"), &["ds=2"]), &policy)
            .unwrap();
        let set = Some("42".to_string());
        assert_eq!(
            last_ids(&store),
            [set.clone(), set.clone(), None, set.clone()]
        );
        assert!(store.open_txns_info(&[]).unwrap().txns.is_empty());
        // A retry (the source no longer mapped) sets nothing.
        let mut later = repl_last_id(None, &[]);
        if let Some(info) = later.repl_last_id.as_mut() {
            info.last_repl_id = 43;
        }
        store.commit_txn_as(7, later, &policy).unwrap();
        drop(store);
        let store = store_over(&backend);
        assert_eq!(last_ids(&store), [set.clone(), set.clone(), None, set]);
    }

    #[test]
    fn a_commit_of_repl_last_id_and_a_key_value_on_one_table_keeps_both() {
        let backend = Arc::new(MemoryBackend::new());
        let store = store_with_partitions(&backend);
        let mut table = store.get_table("hive", "db", "w").unwrap();
        table.parameters.insert("_meta.k".into(), "1".into());
        store.alter_table("hive", "db", "w", table.clone()).unwrap();
        let txn = store
            .open_txns(OpenTxnRequest {
                count: 1,
                ..OpenTxnRequest::default()
            })
            .unwrap()[0];
        let mut extras = repl_last_id(Some("w"), &[]);
        extras.key_value = Some(crate::txns::TxnKeyValue {
            table_id: table.id,
            key: "_meta.k".into(),
            value: "2".into(),
        });
        store.commit_txn_with(txn, extras).unwrap();
        let table = store.get_table("hive", "db", "w").unwrap();
        assert_eq!(table.parameters["_meta.k"], "2");
        assert_eq!(table.parameters[REPL_LAST_ID_PARAMETER], "42");
    }

    #[test]
    fn an_abort_outside_replay_marks_the_policys_database_incompatible() {
        let backend = Arc::new(MemoryBackend::new());
        let store = store_with_partitions(&backend);
        let incompatible = |store: &Store| {
            let database = store.get_database("hive", "db").unwrap();
            database
                .parameters
                .get(REPL_INCOMPATIBLE_PARAMETER)
                .cloned()
        };
        // Aborted by the load itself: not marked.
        open_replayed(&store, "db.*", 1);
        let replayed = ReplRole::Replayed {
            policy: "db.*".into(),
        };
        store.abort_txn_as(1, &replayed).unwrap();
        assert_eq!(incompatible(&store), None);
        // A policy whose database does not exist fails the abort; nothing changes.
        let orphan = open_replayed(&store, "gone.*", 2);
        assert!(matches!(store.abort_txn(orphan), Err(Error::Refused(_))));
        assert!(matches!(
            store.abort_txns(&[orphan]),
            Err(Error::Refused(_))
        ));
        let listed = store.open_txns_info(&[]).unwrap().txns;
        assert!(listed
            .iter()
            .any(|txn| txn.txn_id == orphan && txn.state == crate::txns::TxnState::Open));
        // By its own id, or among others: marked.
        let target = open_replayed(&store, "db.*", 3);
        store.abort_txn(target).unwrap();
        assert_eq!(incompatible(&store).as_deref(), Some("true"));
        let mut database = store.get_database("hive", "db").unwrap();
        database.parameters.remove(REPL_INCOMPATIBLE_PARAMETER);
        store.alter_database("hive", "db", database).unwrap();
        let target = open_replayed(&store, "DB.'t1'", 4);
        store.abort_txns(&[target, 999]).unwrap();
        drop(store);
        let store = store_over(&backend);
        assert_eq!(incompatible(&store).as_deref(), Some("true"));
    }
}
