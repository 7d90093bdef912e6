//! The catalog operations through the public API: Hive's names, messages,
//! atomicity and persistence across reopen.

use hivestore_engine::keys::{self, TableId};
use hivestore_engine::kv::{KeyRange, MemoryBackend, WriteBatch};
use hivestore_engine::{
    Catalog, Database, Durability, Error, FieldSchema, Store, StoreOptions, Table,
    DEFAULT_DATABASE_DESCRIPTION,
};
use std::sync::Arc;

fn memory_store() -> Store {
    let mut options = StoreOptions::new("file:/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap()
}

fn database(name: &str) -> Database {
    Database {
        name: name.to_string(),
        location_uri: Some(format!("file:/warehouse/{name}.db")),
        ..Database::default()
    }
}

fn table(database: &str, name: &str) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: database.to_string(),
        partition_keys: vec![FieldSchema {
            name: "ds".to_string(),
            type_name: "string".to_string(),
            comment: None,
        }],
        table_type: Some("EXTERNAL_TABLE".to_string()),
        ..Table::default()
    }
}

#[test]
fn first_open_creates_hive_catalog_and_default_database() {
    let store = memory_store();
    let catalog = store.get_catalog("HIVE").unwrap();
    assert_eq!(catalog.location_uri, "file:/warehouse");
    let default = store.get_database("hive", "Default").unwrap();
    assert_eq!(default.location_uri.as_deref(), Some("file:/warehouse"));
    assert_eq!(
        default.description.as_deref(),
        Some(DEFAULT_DATABASE_DESCRIPTION)
    );
    assert_eq!(default.catalog_name, "hive");
    assert_eq!(store.list_catalogs().unwrap(), vec!["hive"]);
    assert_eq!(store.list_databases("hive").unwrap(), vec!["default"]);
}

#[test]
fn names_are_normalised_on_write_and_lookup() {
    let store = memory_store();
    // Hive validates a new name as given, so surrounding blanks are refused on create...
    assert!(matches!(
        store.create_database(database("  Sales ")),
        Err(Error::InvalidObject(message)) if message == "  Sales  is not a valid database name"
    ));
    store.create_database(database("Sales")).unwrap();
    // ...but trimmed and lowercased on every lookup and on the other names of a create.
    let created = store.create_table(table(" SALES", "Orders")).unwrap();
    assert_eq!(
        (created.db_name.as_str(), created.table_name.as_str()),
        ("sales", "orders")
    );
    assert_eq!(created.cat_name, "hive");
    assert!(created.id > 0);
    assert!(created.parameters.contains_key("transient_lastDdlTime"));
    let fetched = store.get_table("Hive", "Sales", "ORDERS").unwrap();
    assert_eq!(fetched, created);
    let view = store.get_table_view("hive", "sales", "orders").unwrap();
    assert_eq!(view.archived().unwrap().table_name.as_str(), "orders");
}

#[test]
fn errors_name_the_object_as_hive_does() {
    let store = memory_store();
    let missing = store.get_database("hive", "nope").unwrap_err();
    assert_eq!(missing, Error::NoSuchObject("database hive.nope".into()));
    let missing = store.get_table("hive", "default", "nope").unwrap_err();
    assert_eq!(
        missing,
        Error::NoSuchObject("hive.default.nope table not found".into())
    );
    store.create_table(table("default", "t")).unwrap();
    let exists = store.create_table(table("default", "T")).unwrap_err();
    assert_eq!(
        exists,
        Error::AlreadyExists("Table hive.default.T already exists".into())
    );
    let exists = store.create_database(database("default")).unwrap_err();
    assert_eq!(
        exists,
        Error::AlreadyExists("Database default already exists".into())
    );
    let invalid = store
        .create_table(table("default", "my-table"))
        .unwrap_err();
    assert_eq!(
        invalid,
        Error::InvalidObject("my-table is not a valid object name".into())
    );
    let refused = store.drop_database("hive", "default", true).unwrap_err();
    assert_eq!(
        refused,
        Error::Refused("Can not drop default database in catalog hive".into())
    );
    let refused = store.drop_catalog("hive").unwrap_err();
    assert_eq!(refused, Error::Refused("Can not drop hive catalog".into()));
    let alter_missing = store
        .alter_table("hive", "default", "nope", table("default", "nope"))
        .unwrap_err();
    assert_eq!(
        alter_missing,
        Error::InvalidOperation("table hive.default.nope doesn't exist".into())
    );
}

#[test]
fn drop_non_empty_database_needs_cascade() {
    let store = memory_store();
    store.create_database(database("db1")).unwrap();
    store.create_table(table("db1", "a")).unwrap();
    store.create_table(table("db1", "b")).unwrap();
    let refused = store.drop_database("hive", "db1", false).unwrap_err();
    let message = "Database db1 is not empty. One or more tables exist.";
    assert_eq!(refused, Error::InvalidOperation(message.into()));
    let dropped = store.drop_database("hive", "db1", true).unwrap();
    let names: Vec<_> = dropped
        .tables
        .iter()
        .map(|table| table.table_name.as_str())
        .collect();
    assert_eq!(names, vec!["a", "b"]);
    assert!(matches!(
        store.get_database("hive", "db1"),
        Err(Error::NoSuchObject(_))
    ));
    // Re-creating the database gives it a fresh id: no old table shows up.
    store.create_database(database("db1")).unwrap();
    assert!(store.list_tables("hive", "db1").unwrap().is_empty());
}

#[test]
fn listings_do_not_bleed_into_neighbours_sharing_a_prefix() {
    let store = memory_store();
    for name in ["db1", "db10", "db1_x"] {
        store.create_database(database(name)).unwrap();
    }
    store.create_table(table("db1", "t")).unwrap();
    store.create_table(table("db1", "t_x")).unwrap();
    store.create_table(table("db10", "t")).unwrap();
    assert_eq!(
        store.list_databases("hive").unwrap(),
        vec!["db1", "db10", "db1_x", "default"]
    );
    assert_eq!(store.list_tables("hive", "db1").unwrap(), vec!["t", "t_x"]);
    assert_eq!(store.list_tables("hive", "db10").unwrap(), vec!["t"]);
    let views = store.table_views("hive", "db1").unwrap();
    assert_eq!(views.len(), 2);
}

/// Puts a fake partition entry under a table id, as the partition store will.
fn put_partition(store: &Store, table_id: i64, value: &str) -> Vec<u8> {
    let key = keys::partition_key(TableId(table_id as u64), &[value]);
    let mut batch = WriteBatch::new();
    batch.put(key.clone(), b"partition".to_vec());
    store.backend().apply(batch).unwrap();
    key
}

#[test]
fn rename_moves_only_the_name_index() {
    let store = memory_store();
    store.create_database(database("other")).unwrap();
    let created = store.create_table(table("default", "t")).unwrap();
    let partition = put_partition(&store, created.id, "2024-01-01");
    let mut renamed = created.clone();
    renamed.table_name = "T2".to_string();
    renamed.db_name = "Other".to_string();
    let altered = store.alter_table("hive", "default", "t", renamed).unwrap();
    assert_eq!(
        (altered.db_name.as_str(), altered.table_name.as_str()),
        ("other", "t2")
    );
    assert_eq!(
        (altered.id, altered.create_time),
        (created.id, created.create_time)
    );
    assert!(store.list_tables("hive", "default").unwrap().is_empty());
    assert_eq!(store.get_table("hive", "other", "t2").unwrap(), altered);
    assert!(store.backend().get(&partition).unwrap().is_some());
    // Drop removes the partitions with the table.
    store.drop_table("hive", "other", "t2").unwrap();
    assert!(store.backend().get(&partition).unwrap().is_none());
}

#[test]
fn rename_onto_an_existing_table_or_changing_partition_keys_fails() {
    let store = memory_store();
    store.create_table(table("default", "a")).unwrap();
    store.create_table(table("default", "b")).unwrap();
    let mut onto_b = table("default", "b");
    onto_b.table_name = "b".to_string();
    let error = store
        .alter_table("hive", "default", "a", onto_b)
        .unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation("new table default.b already exists".into())
    );
    let mut new_keys = table("default", "a");
    new_keys.partition_keys.clear();
    let error = store
        .alter_table("hive", "default", "a", new_keys)
        .unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation("partition keys can not be changed.".into())
    );
    let mut other_catalog = table("default", "a");
    other_catalog.cat_name = "spark".to_string();
    assert!(matches!(
        store.alter_table("hive", "default", "a", other_catalog),
        Err(Error::InvalidOperation(_))
    ));
}

#[test]
fn catalogs_create_alter_drop() {
    let store = memory_store();
    let catalog = Catalog {
        name: "Spark".to_string(),
        description: None,
        location_uri: "file:/spark".to_string(),
        create_time: None,
    };
    store.create_catalog(catalog.clone()).unwrap();
    assert!(matches!(
        store.create_catalog(catalog.clone()),
        Err(Error::AlreadyExists(_))
    ));
    assert_eq!(store.list_catalogs().unwrap(), vec!["hive", "spark"]);
    let mut described = catalog.clone();
    described.description = Some("spark tables".to_string());
    store.alter_catalog("spark", described).unwrap();
    assert_eq!(
        store.get_catalog("spark").unwrap().description.as_deref(),
        Some("spark tables")
    );
    let mut spark_db = database("db");
    spark_db.catalog_name = "spark".to_string();
    store.create_database(spark_db).unwrap();
    // Like Hive, a new catalog gets its own `default` database at the catalog location.
    assert_eq!(
        store.list_databases("spark").unwrap(),
        vec!["db", "default"]
    );
    let spark_default = store.get_database("spark", "default").unwrap();
    assert_eq!(
        spark_default.location_uri.as_deref(),
        Some(catalog.location_uri.as_str())
    );
    assert!(matches!(
        store.drop_catalog("spark"),
        Err(Error::InvalidOperation(message)) if message.contains("non-default databases")
    ));
    store.drop_database("spark", "db", false).unwrap();
    // With only its default database left, the catalog drops, and the database with it.
    store.drop_catalog("spark").unwrap();
    assert!(store.list_databases("spark").unwrap().is_empty());
    assert!(matches!(
        store.get_catalog("spark"),
        Err(Error::NoSuchObject(_))
    ));
}

#[test]
fn alter_database_keeps_identity() {
    let store = memory_store();
    let created = store.create_database(database("db")).unwrap();
    let mut changed = database("db");
    changed.parameters.insert("k".to_string(), "v".to_string());
    changed.create_time = Some(1);
    let altered = store.alter_database("hive", "DB", changed).unwrap();
    assert_eq!(altered.create_time, created.create_time);
    assert_eq!(
        store.get_database("hive", "db").unwrap().parameters["k"],
        "v"
    );
    assert!(matches!(
        store.alter_database("hive", "db", database("renamed")),
        Err(Error::InvalidOperation(_))
    ));
}

#[test]
fn sled_store_persists_across_reopen_with_monotonic_ids() {
    let dir = tempfile::tempdir().unwrap();
    let first_id = {
        let store = Store::open(
            dir.path(),
            StoreOptions::new("file:/warehouse").metadata_only(),
        )
        .unwrap();
        store.create_table(table("default", "t1")).unwrap().id
    };
    let store = Store::open(
        dir.path(),
        StoreOptions::new("file:/warehouse").metadata_only(),
    )
    .unwrap();
    assert_eq!(
        store.get_table("hive", "default", "t1").unwrap().id,
        first_id
    );
    let second_id = store.create_table(table("default", "t2")).unwrap().id;
    assert!(second_id > first_id);
    let counters = store.commit_counters().unwrap();
    assert!(counters.flush_count() >= 1);
    let all = store.backend().scan(&KeyRange::all(), 100).unwrap();
    assert!(all.iter().all(|(key, _)| !key.is_empty()));
}

#[test]
fn a_failed_check_writes_nothing() {
    let store = memory_store();
    let before = store.backend().scan(&KeyRange::all(), 1000).unwrap();
    assert!(store.create_table(table("missing_db", "t")).is_err());
    assert!(store.drop_database("hive", "missing_db", true).is_err());
    let after = store.backend().scan(&KeyRange::all(), 1000).unwrap();
    assert_eq!(before, after);
}

#[test]
fn store_is_shareable_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
}

#[test]
fn racing_creates_of_one_table_let_exactly_one_win() {
    // Durable sled store, so the racers also go through group commit.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(
        dir.path(),
        StoreOptions::new("file:/warehouse").metadata_only(),
    )
    .unwrap();
    let racer_count = 8;
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..racer_count)
            .map(|racer| {
                let store = &store;
                scope.spawn(move || {
                    let won = store.create_table(table("default", "contested")).is_ok();
                    let own = store
                        .create_table(table("default", &format!("own_{racer}")))
                        .unwrap();
                    (won, own.id)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    assert_eq!(results.iter().filter(|(won, _)| *won).count(), 1);
    let mut ids: Vec<_> = results.iter().map(|(_, id)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), racer_count, "ids must be unique");
    assert_eq!(
        store.list_tables("hive", "default").unwrap().len(),
        racer_count + 1
    );
    let counters = store.commit_counters().unwrap();
    assert!(counters.flush_count() <= counters.ticket_count());
}
