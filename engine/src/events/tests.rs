//! The notification log on in-memory and sled stores: one event per change, in the change's
//! batch, ids in commit order without gaps or repeats (also across a reopen), filters, counts
//! and the retention cleaner.

use std::sync::Arc;

use super::*;
use crate::error::Error;
use crate::storage::kv::KvBackend;
use crate::storage::kv::MemoryBackend;
use crate::txns::OpenTxnRequest;
use crate::{
    AddPartitionsOptions, Database, DropPartitionsOptions, Durability, FieldSchema, Partition,
    StoreOptions, Table,
};

fn store_over(backend: &Arc<MemoryBackend>) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(backend.clone(), options).unwrap()
}

fn partitioned(name: &str) -> Table {
    let column = |name: &str| FieldSchema {
        name: name.to_string(),
        type_name: "string".to_string(),
        comment: None,
    };
    Table {
        db_name: "db".to_string(),
        table_name: name.to_string(),
        partition_keys: vec![column("ds")],
        sd: Some(crate::StorageDescriptor {
            cols: vec![column("a")],
            ..crate::StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn partition(value: &str) -> Partition {
    Partition {
        values: vec![value.to_string()],
        ..Partition::default()
    }
}

fn kinds(store: &Store, after: u64) -> Vec<(u64, &'static str)> {
    let events = store
        .next_events(after, 1000, &EventFilter::default())
        .unwrap();
    events
        .iter()
        .map(|event| (event.event_id, event.record.kind.hive_name()))
        .collect()
}

#[test]
fn every_change_logs_one_event_in_order() {
    let store = store_over(&Arc::new(MemoryBackend::new()));
    assert_eq!(store.current_event_id().unwrap(), 0);
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database.clone()).unwrap();
    store.alter_database("hive", "db", database).unwrap();
    store.create_table(partitioned("t")).unwrap();
    let options = AddPartitionsOptions::default();
    let parts = vec![partition("1"), partition("2")];
    store
        .add_partitions("hive", "db", "t", parts, &options)
        .unwrap();
    store
        .alter_partition("hive", "db", "t", partition("1"))
        .unwrap();
    let drop = DropPartitionsOptions::default();
    let values = [vec!["1".to_string()], vec!["2".to_string()]];
    store
        .drop_partitions("hive", "db", "t", &values, &drop)
        .unwrap();
    store.drop_database("hive", "db", true).unwrap();
    let expected = [
        "CREATE_DATABASE",
        "ALTER_DATABASE",
        "CREATE_TABLE",
        "ADD_PARTITION",
        "ALTER_PARTITION",
        "DROP_PARTITION",
        "DROP_PARTITION",
        "DROP_TABLE",
        "DROP_DATABASE",
    ];
    let logged = kinds(&store, 0);
    let names: Vec<&str> = logged.iter().map(|(_, name)| *name).collect();
    assert_eq!(names, expected);
    let ids: Vec<u64> = logged.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (1..=expected.len() as u64).collect::<Vec<_>>());
    assert_eq!(store.current_event_id().unwrap(), expected.len() as u64);
    // The batch of two added partitions is one event holding both, as they were.
    let added = &store.next_events(3, 1, &EventFilter::default()).unwrap()[0];
    let EventBody::Partitions { table, after, .. } = &added.record.body else {
        panic!("ADD_PARTITION without partitions: {added:?}");
    };
    let partitions = after.to_partitions(table);
    assert_eq!(partitions.len(), 2);
    assert_eq!(partitions[1].values, vec!["2".to_string()]);
    assert_eq!(partitions[1].location(), Some("/warehouse/db.db/t/ds=2"));
}

#[test]
fn a_failed_change_logs_nothing_and_leaves_no_gap() {
    let store = store_over(&Arc::new(MemoryBackend::new()));
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database.clone()).unwrap();
    assert!(store.create_database(database).is_err());
    store.create_table(partitioned("t")).unwrap();
    assert_eq!(
        kinds(&store, 0),
        vec![(1, "CREATE_DATABASE"), (2, "CREATE_TABLE")]
    );
}

#[test]
fn ids_continue_after_a_reopen() {
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend);
    store
        .open_txns(OpenTxnRequest {
            count: 2,
            ..OpenTxnRequest::default()
        })
        .unwrap();
    store.commit_txn(1).unwrap();
    drop(store);
    let store = store_over(&backend);
    assert_eq!(store.current_event_id().unwrap(), 2);
    store.abort_txn(2).unwrap();
    assert_eq!(
        kinds(&store, 0),
        vec![(1, "OPEN_TXN"), (2, "COMMIT_TXN"), (3, "ABORT_TXN")]
    );
}

#[test]
fn a_store_without_event_logging_writes_no_event_and_its_id_only_rises() {
    // An import writes its copy without events, then raises the id to its source's.
    let backend = Arc::new(MemoryBackend::new());
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.log_events = false;
    let store = Store::open_with_backend(backend.clone(), options).unwrap();
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    store.create_table(partitioned("t")).unwrap();
    assert_eq!(kinds(&store, 0), vec![]);
    assert_eq!(store.current_event_id().unwrap(), 0);
    assert_eq!(store.raise_event_id(41).unwrap(), 41);
    assert_eq!(
        store.raise_event_id(7).unwrap(),
        41,
        "the id never goes down"
    );
    assert_eq!(store.current_event_id().unwrap(), 41);
    assert!(store.raise_event_id(u64::MAX).is_err());
    drop(store);
    // A logging store over the same data continues after the raised id.
    let store = store_over(&backend);
    assert_eq!(store.current_event_id().unwrap(), 41);
    store.drop_table("hive", "db", "t").unwrap();
    assert_eq!(kinds(&store, 0), vec![(42, "DROP_TABLE")]);
}

#[test]
fn a_follower_starts_logging_at_cut_over_from_its_raised_id() {
    // A copy that followed a source (no events, id raised per event applied) serves writes of
    // its own after cut-over: their events go on from the source's id.
    let backend = Arc::new(MemoryBackend::new());
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.log_events = false;
    let store = Store::open_with_backend(backend, options).unwrap();
    store.raise_event_id(9).unwrap();
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    assert_eq!(kinds(&store, 0), vec![]);
    assert_eq!(store.start_logging_events().unwrap(), 9);
    store.create_table(partitioned("t")).unwrap();
    assert_eq!(kinds(&store, 0), vec![(10, "CREATE_TABLE")]);
}

#[test]
fn filters_skip_types_databases_and_tables() {
    let store = store_over(&Arc::new(MemoryBackend::new()));
    for name in ["db", "other"] {
        let database = Database {
            name: name.to_string(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
    }
    store.create_table(partitioned("t")).unwrap();
    store.create_table(partitioned("u")).unwrap();
    let filter = EventFilter {
        database: Some("DB".to_string()),
        ..EventFilter::default()
    };
    let events = store.next_events(0, 100, &filter).unwrap();
    assert_eq!(events.len(), 3);
    let filter = EventFilter {
        database: Some("db".to_string()),
        tables: vec!["u".to_string()],
        skip_types: vec!["create_database".to_string()],
        ..EventFilter::default()
    };
    let events = store.next_events(0, 100, &filter).unwrap();
    let ids: Vec<u64> = events.iter().map(|event| event.event_id).collect();
    assert_eq!(ids, vec![4]);
    assert_eq!(
        store
            .count_events(0, &EventFilter::default(), None)
            .unwrap(),
        4
    );
    assert_eq!(
        store
            .count_events(1, &EventFilter::default(), Some(2))
            .unwrap(),
        2
    );
    let upto = EventFilter {
        to_event_id: Some(3),
        ..EventFilter::default()
    };
    assert_eq!(store.count_events(0, &upto, None).unwrap(), 3);
    assert_eq!(
        store
            .next_events(0, 2, &EventFilter::default())
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn the_cleaner_deletes_old_events_in_bounded_batches() {
    let store = store_over(&Arc::new(MemoryBackend::new()));
    for name in ["a", "b", "c"] {
        let database = Database {
            name: name.to_string(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
    }
    assert_eq!(store.delete_events_before(0, 10).unwrap(), 0);
    let future = crate::store::now_seconds() + 10;
    assert_eq!(store.delete_events_before(future, 2).unwrap(), 2);
    assert_eq!(kinds(&store, 0), vec![(3, "CREATE_DATABASE")]);
    assert_eq!(store.delete_events_before(future, 2).unwrap(), 1);
    // The counter stays: ids never go back after the log empties.
    assert_eq!(store.current_event_id().unwrap(), 3);
    let database = Database {
        name: "d".to_string(),
        ..Database::default()
    };
    store.create_database(database).unwrap();
    assert_eq!(kinds(&store, 0), vec![(4, "CREATE_DATABASE")]);
}

fn store_with_partition() -> Store {
    let store = store_over(&Arc::new(MemoryBackend::new()));
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database).unwrap();
    store.create_table(partitioned("w")).unwrap();
    let options = AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "w", vec![partition("1")], &options)
        .unwrap();
    store
}

fn write(txn_id: u64, values: Option<&str>, file: &str) -> WriteNotification {
    WriteNotification {
        txn_id,
        write_id: 1,
        catalog: String::new(),
        database: "DB".to_string(),
        table: "W".to_string(),
        partition_values: values.map(|value| vec![value.to_string()]),
        files: InsertData {
            files_added: vec![file.to_string()],
            ..InsertData::default()
        },
    }
}

fn open_one(store: &Store) -> u64 {
    let request = OpenTxnRequest {
        count: 1,
        ..OpenTxnRequest::default()
    };
    store.open_txns(request).unwrap()[0]
}

fn commit_with(store: &Store, txn_id: u64, writes: Vec<WriteNotification>) -> Result<()> {
    let extras = crate::txns::CommitExtras {
        writes,
        ..crate::txns::CommitExtras::default()
    };
    store.commit_txn_with(txn_id, extras)
}

#[test]
fn a_commit_records_its_writes_with_their_events_in_its_batch() {
    let store = store_with_partition();
    let txn_id = open_one(&store);
    let start = store.current_event_id().unwrap();
    // A write to a missing partition fails the whole commit: nothing logged, still open.
    let missing = write(txn_id, Some("9"), "f0");
    assert!(matches!(
        commit_with(&store, txn_id, vec![missing]),
        Err(Error::NoSuchObject(_))
    ));
    assert_eq!(store.current_event_id().unwrap(), start);
    assert!(store.write_events(txn_id, None, None).unwrap().is_empty());
    assert!(matches!(
        commit_with(&store, txn_id, vec![write(txn_id + 1, None, "f")]),
        Err(Error::InvalidInput(_))
    ));

    commit_with(&store, txn_id, vec![write(txn_id, Some("1"), "f1")]).unwrap();
    let kinds_logged: Vec<&str> = kinds(&store, start).iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds_logged, vec!["ACID_WRITE", "COMMIT_TXN"]);
    let recorded = store.write_events(txn_id, Some("db"), None).unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].partition.as_deref(), Some("ds=1"));
    let events = store
        .next_events(start, 10, &EventFilter::default())
        .unwrap();
    match &events[1].record.body {
        EventBody::Commit { writes, .. } => assert_eq!(writes, &recorded),
        other => panic!("a commit event carries {other:?}"),
    }
}

#[test]
fn the_cleaner_deletes_writes_with_their_events_unless_replaced() {
    let store = store_with_partition();
    let txn_id = open_one(&store);
    store
        .record_writes(vec![write(txn_id, Some("1"), "first")])
        .unwrap();
    let first_event = store.current_event_id().unwrap();
    store
        .record_writes(vec![write(txn_id, Some("1"), "second")])
        .unwrap();
    store
        .record_writes(vec![write(txn_id, None, "table")])
        .unwrap();
    let future = crate::store::now_seconds() + 10;
    // Up to the first write's event: the stored write of that partition is the second one.
    let up_to_first = usize::try_from(first_event).unwrap();
    assert_eq!(
        store.delete_events_before(future, up_to_first).unwrap(),
        up_to_first
    );
    let left = store.write_events(txn_id, None, None).unwrap();
    let files: Vec<&str> = left
        .iter()
        .map(|w| w.files.files_added[0].as_str())
        .collect();
    assert_eq!(files, vec!["table", "second"]);
    // The rest: both writes go with their events.
    assert_eq!(store.delete_events_before(future, 1000).unwrap(), 2);
    assert!(store.write_events(txn_id, None, None).unwrap().is_empty());
}

/// The keys in the event parts keyspace.
fn part_key_count(backend: &MemoryBackend) -> usize {
    let range = KeyRange::prefix(&[keys::KEYSPACE_EVENT_PART]);
    crate::storage::kv::scan(backend, range, 64).count()
}

#[test]
fn a_big_add_is_logged_in_parts_read_whole_and_deleted_whole() {
    // Goal: an event too long for one value (parts.rs) reads back as the same event through
    // every reader, filters see it, and the cleaner takes its parts with it.
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend);
    let database = Database {
        name: "db".to_string(),
        ..Database::default()
    };
    store.create_database(database).unwrap();
    store.create_table(partitioned("t")).unwrap();
    let parts: Vec<Partition> = (0..300)
        .map(|day| partition(&format!("day-{day:04}")))
        .collect();
    let options = AddPartitionsOptions::default();
    let added = store
        .add_partitions("hive", "db", "t", parts, &options)
        .unwrap();
    assert!(
        part_key_count(&backend) > 1,
        "the add's event is not in pieces"
    );

    let events = store.next_events(0, 10, &EventFilter::default()).unwrap();
    assert_eq!(events.len(), 3);
    let EventBody::Partitions { table, after, .. } = &events[2].record.body else {
        panic!("{:?}", events[2].record.kind);
    };
    assert_eq!(after.to_partitions(table), added);
    let only_t = EventFilter {
        tables: vec!["t".to_string()],
        ..EventFilter::default()
    };
    // The database's event passes a table filter, as in Hive 4.
    assert_eq!(store.count_events(0, &only_t, None).unwrap(), 3);
    let no_adds = EventFilter {
        skip_types: vec!["ADD_PARTITION".to_string()],
        ..EventFilter::default()
    };
    assert_eq!(store.count_events(0, &no_adds, None).unwrap(), 2);

    let future = crate::store::now_seconds() + 10;
    assert_eq!(store.delete_events_before(future, 10).unwrap(), 3);
    assert_eq!(part_key_count(&backend), 0);
    assert!(store
        .next_events(0, 10, &EventFilter::default())
        .unwrap()
        .is_empty());
}

#[test]
fn a_big_event_stored_whole_before_parts_still_reads() {
    // Goal: stores written before events were cut keep reading their long events.
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend);
    let record = EventRecord {
        event_time: 1,
        kind: EventKind::CreateDatabase,
        catalog_name: "hive".to_string(),
        db_name: "db".to_string(),
        table_name: String::new(),
        body: EventBody::Database {
            before: None,
            after: Database {
                name: "db".to_string(),
                description: Some("x".repeat(3 * parts::PART_LEN_MAX)),
                ..Database::default()
            },
        },
    };
    let mut batch = WriteBatch::new();
    batch.put(
        keys::event_key(1),
        crate::storage::values::encode(&record).unwrap(),
    );
    batch.put(keys::event_counter_key(), 2u64.to_be_bytes().to_vec());
    backend.apply(batch).unwrap();
    let store = {
        drop(store);
        store_over(&backend)
    };
    let events = store.next_events(0, 10, &EventFilter::default()).unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].record, record);
    assert_eq!(store.delete_events_before(2, 10).unwrap(), 1);
}
