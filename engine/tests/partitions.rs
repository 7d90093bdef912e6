//! Partitions through the store: add (one, batch, if-not-exists), get by
//! values and name, listings (all, limit, partial values, names, filter),
//! alter, rename with its directory, drop with data, and what table drops
//! and renames do to partitions. The warehouse is a temp dir.

use std::path::Path;
use std::sync::Arc;

use hivestore_engine::kv::{KeyRange, MemoryBackend};
use hivestore_engine::{
    AddPartitionsOptions, AlterTableOptions, Database, DropPartitionsOptions, DropTableOptions,
    Durability, Error, FieldSchema, LocalFilesystem, Partition, PartitionNameWhitelist,
    PartitionSelection, StorageDescriptor, Store, StoreOptions, Table, DEFAULT_PARTITION_NAME,
};

fn store_in(warehouse: &Path) -> Store {
    let mut options = StoreOptions::new(warehouse.to_string_lossy().to_string());
    options.durability = Durability::Memory;
    options.filesystem = Some(Arc::new(LocalFilesystem));
    Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap()
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn partitioned_table(store: &Store, name: &str) -> Table {
    store
        .create_table(Table {
            table_name: name.to_string(),
            db_name: "db".to_string(),
            sd: Some(StorageDescriptor {
                cols: vec![column("id", "bigint"), column("Payload", "string")],
                num_buckets: -1,
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string"), column("hr", "int")],
            ..Table::default()
        })
        .unwrap()
}

/// A store over `backend` that records locations and never touches a filesystem.
fn metadata_only_store(backend: Arc<MemoryBackend>) -> Store {
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(backend, options).unwrap()
}

fn create_db(store: &Store) {
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
}

fn setup(warehouse: &Path) -> Store {
    let store = store_in(warehouse);
    create_db(&store);
    partitioned_table(&store, "events");
    store
}

fn partition(values: &[&str]) -> Partition {
    Partition {
        values: values.iter().map(|value| value.to_string()).collect(),
        ..Partition::default()
    }
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|value| value.to_string()).collect()
}

fn add(store: &Store, partitions: Vec<Partition>) -> Vec<Partition> {
    let options = AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "events", partitions, &options)
        .unwrap()
}

#[test]
fn add_partition_fills_hive_defaults_and_makes_its_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let mut given = partition(&["2024-01-01", "3"]);
    given.db_name = "DB".to_string();
    given.table_name = "Events".to_string();
    let added = store.add_partition(given).unwrap();
    let expected = warehouse.path().join("db.db/events/ds=2024-01-01/hr=3");
    assert_eq!(added.location(), Some(expected.to_str().unwrap()));
    assert!(expected.is_dir());
    assert!(added.create_time > 0);
    assert!(added.parameters.contains_key("transient_lastDdlTime"));
    let sd = added.sd.as_ref().unwrap();
    assert_eq!(
        sd.cols[1].name, "payload",
        "the table's columns, lowercased"
    );
    let read = store
        .get_partition("hive", "db", "events", &strings(&["2024-01-01", "3"]))
        .unwrap();
    assert_eq!(read, added);
    let by_name = store
        .get_partition_by_name("hive", "db", "events", "ds=2024-01-01/hr=3")
        .unwrap();
    assert_eq!(by_name, added);
    assert_eq!(
        (read.cat_name.as_str(), read.db_name.as_str()),
        ("hive", "db")
    );
}

#[test]
fn existing_partitions_fail_with_hive_messages_unless_if_not_exists() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    add(&store, vec![partition(&["a", "1"])]);
    let mut single = partition(&["a", "1"]);
    single.db_name = "db".into();
    single.table_name = "events".into();
    let error = store.add_partition(single).unwrap_err();
    assert_eq!(
        error,
        Error::AlreadyExists(
            "Partition already exists: Partition(values:[a, 1], dbName:db, tableName:events, \
             catName:hive)"
                .into()
        )
    );
    let options = AddPartitionsOptions::default();
    let batch = vec![partition(&["b", "1"]), partition(&["a", "1"])];
    let error = store
        .add_partitions("hive", "db", "events", batch.clone(), &options)
        .unwrap_err();
    assert!(
        matches!(error, Error::AlreadyExists(ref m) if m.contains("values:[a, 1]")),
        "{error}"
    );
    assert!(
        store
            .get_partition("hive", "db", "events", &strings(&["b", "1"]))
            .is_err(),
        "a failed batch adds nothing"
    );
    let options = AddPartitionsOptions {
        if_not_exists: true,
        ..AddPartitionsOptions::default()
    };
    let added = store
        .add_partitions("hive", "db", "events", batch, &options)
        .unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].values, strings(&["b", "1"]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Goal: the existence check of an add, which walks the batch's keys in order and looks up
    /// the next stored key rather than each key, finds exactly the stored ones, however the
    /// batch interleaves with them. Method: random stored partitions and a random batch over a
    /// small domain (so they overlap, and `hr` values sort as text: 10 before 2); with
    /// `if_not_exists` the new ones come back in request order, without it the error names the
    /// first stored one in request order.
    #[test]
    fn an_add_finds_exactly_the_stored_partitions_of_its_batch(
        stored in proptest::collection::btree_set((0u8..4, 0u8..12), 0..20),
        batch in proptest::collection::vec((0u8..4, 0u8..12), 1..20),
    ) {
        let warehouse = tempfile::tempdir().unwrap();
        let store = setup(warehouse.path());
        let values = |(day, hour): (u8, u8)| vec![format!("d{day}"), hour.to_string()];
        let stored: Vec<Vec<String>> = stored.into_iter().map(values).collect();
        let mut batch: Vec<Vec<String>> = batch.into_iter().map(values).collect();
        let mut seen = std::collections::HashSet::new();
        batch.retain(|values| seen.insert(values.clone()));
        let to_partitions = |list: &[Vec<String>]| -> Vec<Partition> {
            list.iter()
                .map(|values| Partition { values: values.clone(), ..Partition::default() })
                .collect()
        };
        if !stored.is_empty() {
            add(&store, to_partitions(&stored));
        }
        let is_stored = |values: &Vec<String>| stored.contains(values);
        let result = store.add_partitions(
            "hive", "db", "events", to_partitions(&batch), &AddPartitionsOptions::default(),
        );
        match batch.iter().find(|values| is_stored(values)) {
            Some(first) => {
                let message = format!("values:[{}, {}]", first[0], first[1]);
                proptest::prop_assert!(
                    matches!(result, Err(Error::AlreadyExists(ref m)) if m.contains(&message)),
                    "{:?}", result
                );
            }
            None => proptest::prop_assert_eq!(result.unwrap().len(), batch.len()),
        }
        let options = AddPartitionsOptions { if_not_exists: true, ..AddPartitionsOptions::default() };
        let added = store
            .add_partitions("hive", "db", "events", to_partitions(&batch), &options)
            .unwrap();
        let added: Vec<Vec<String>> = added.into_iter().map(|partition| partition.values).collect();
        let expected: Vec<Vec<String>> = if batch.iter().any(&is_stored) {
            batch.iter().filter(|values| !is_stored(values)).cloned().collect()
        } else {
            Vec::new() // the first add took them all
        };
        proptest::prop_assert_eq!(added, expected);
    }
}

#[test]
fn bad_values_are_refused_with_hive_messages() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let options = AddPartitionsOptions::default();
    let add = |partitions: Vec<Partition>| {
        store
            .add_partitions("hive", "db", "events", partitions, &options)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        add(vec![partition(&["a"])]),
        "Invalid partition key & values; keys [ds, hr, ], values [a, ]"
    );
    assert_eq!(
        add(vec![partition(&[])]),
        "The partition values cannot be null or empty."
    );
    assert_eq!(
        add(vec![partition(&["a", "1"]), partition(&["a", "1"])]),
        "Duplicate partitions in the list: Partition(values:[a, 1], dbName:db, tableName:events, \
         catName:hive)"
    );
    let mut other = partition(&["a", "1"]);
    other.table_name = "other".into();
    assert!(add(vec![other]).starts_with("Partition does not belong to target table db.events: "));
    let whitelist = PartitionNameWhitelist::new("[a-z0-9]*").unwrap();
    let options = AddPartitionsOptions {
        whitelist: Some(&whitelist),
        ..AddPartitionsOptions::default()
    };
    let error = store
        .add_partitions(
            "hive",
            "db",
            "events",
            vec![partition(&["A", "1"])],
            &options,
        )
        .unwrap_err();
    assert!(error
        .to_string()
        .starts_with("Partition value 'A' contains a character"));
    let error = store
        .add_partitions("hive", "db", "nope", vec![partition(&["a", "1"])], &options)
        .unwrap_err();
    assert_eq!(
        error,
        Error::InvalidObject(
            "Unable to add partitions because database or table db.nope does not exist".into()
        )
    );
}

#[test]
fn empty_values_are_the_default_partition() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let added = add(&store, vec![partition(&["", "1"])]);
    assert_eq!(added[0].values[0], DEFAULT_PARTITION_NAME);
    let read = store
        .get_partition("hive", "db", "events", &strings(&["", "1"]))
        .unwrap();
    assert_eq!(read.values, strings(&[DEFAULT_PARTITION_NAME, "1"]));
    let names = store
        .list_partition_names("hive", "db", "events", -1)
        .unwrap();
    assert_eq!(names, vec!["ds=__HIVE_DEFAULT_PARTITION__/hr=1"]);
}

#[test]
fn listings_follow_value_order_limits_and_partial_values() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let values = [
        ["b", "2"],
        ["a", "10"],
        ["a", "9"],
        ["a/b", "1"],
        ["b", "1"],
    ];
    add(&store, values.iter().map(|v| partition(v)).collect());
    let names = store
        .list_partition_names("hive", "db", "events", -1)
        .unwrap();
    assert_eq!(
        names,
        vec![
            "ds=a/hr=10",
            "ds=a/hr=9",
            "ds=a%2Fb/hr=1",
            "ds=b/hr=1",
            "ds=b/hr=2"
        ]
    );
    assert_eq!(
        store
            .list_partitions("hive", "db", "events", 2)
            .unwrap()
            .len(),
        2
    );
    assert!(store
        .list_partitions("hive", "db", "events", 0)
        .unwrap()
        .is_empty());
    let partial = store
        .list_partition_names_ps("hive", "db", "events", &strings(&["", "1"]), -1)
        .unwrap();
    assert_eq!(partial, vec!["ds=a%2Fb/hr=1", "ds=b/hr=1"]);
    let partial = store
        .list_partitions_ps("hive", "db", "events", &strings(&["a"]), -1)
        .unwrap();
    assert_eq!(partial.len(), 2);
    let error = store
        .list_partitions_ps("hive", "db", "events", &strings(&["a", "1", "x"]), -1)
        .unwrap_err();
    assert!(error
        .to_string()
        .starts_with("Incorrect number of partition values"));
    let wanted = strings(&[
        "ds=b/hr=1",
        "ds=nope/hr=1",
        "hr=1/ds=b",
        "ds=a%2Fb/hr=1",
        "ds=b/hr=1",
    ]);
    let by_names = store
        .get_partitions_by_names("hive", "db", "events", &wanted)
        .unwrap();
    let found: Vec<_> = by_names.iter().map(|p| p.values.clone()).collect();
    assert_eq!(found, vec![strings(&["a/b", "1"]), strings(&["b", "1"])]);
}

#[test]
fn filters_select_partitions_and_errors_quote_them() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let values = [
        ["2024-01-01", "1"],
        ["2024-01-02", "10"],
        ["2024-02-01", "9"],
        ["x", "007"],
    ];
    add(&store, values.iter().map(|v| partition(v)).collect());
    let names = |filter: &str| {
        store
            .list_partition_names_by_filter("hive", "db", "events", filter, -1)
            .unwrap()
    };
    assert_eq!(
        names("ds >= '2024-01-02' and ds < '2024-12' and hr > 5"),
        vec!["ds=2024-01-02/hr=10", "ds=2024-02-01/hr=9"]
    );
    assert_eq!(names("hr > 5").len(), 3, "007 is 7");
    assert_eq!(
        names("hr = 7"),
        Vec::<String>::new(),
        "007 is not the text of 7"
    );
    assert_eq!(names("hr < 8").len(), 2, "1 and 007 compare as numbers");
    assert_eq!(names("ds like '2024-01%'").len(), 2);
    assert_eq!(
        names("ds like '.*-01'").len(),
        2,
        "Spark's regular expressions"
    );
    assert_eq!(names("(ds) in ('x', '2024-01-01')").len(), 2);
    assert_eq!(names("").len(), 4);
    let count = store
        .get_num_partitions_by_filter("hive", "db", "events", "hr between 1 and 9")
        .unwrap();
    assert_eq!(count, 3);
    let error = store
        .list_partitions_by_filter("hive", "db", "events", "foo = 1", -1)
        .unwrap_err();
    assert!(
        matches!(&error, Error::Refused(m) if m.contains("Specified key <foo> is not a partitioning key")),
        "{error}"
    );
    let error = store
        .list_partitions_by_filter("hive", "db", "events", "ds = 'a' and", -1)
        .unwrap_err();
    assert!(error.to_string().contains("\"ds = 'a' and\""), "{error}");
    let error = store
        .list_partitions_by_filter("hive", "db", "events", "hr > '5'", -1)
        .unwrap_err();
    assert!(error
        .to_string()
        .contains("Filtering is supported only on partition keys of type string"));
}

#[test]
fn repeated_descriptors_are_stored_once() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let partitions = (0..50)
        .map(|hour| partition(&["d", &hour.to_string()]))
        .collect();
    add(&store, partitions);
    let table = store.get_table("hive", "db", "events").unwrap();
    let mut prefix = vec![0x07];
    prefix.extend_from_slice(&(table.id as u64).to_be_bytes());
    prefix.extend_from_slice(&[0, 0]);
    let descriptors = store
        .backend()
        .scan(&KeyRange::prefix(&prefix), 100)
        .unwrap();
    assert_eq!(descriptors.len(), 1, "50 partitions share one descriptor");
    let views = store
        .partition_views("hive", "db", "events", PartitionSelection::All, -1)
        .unwrap();
    assert_eq!(views.len(), 50);
    let first = views.iter().next().unwrap().unwrap();
    let descriptor = first.descriptor().unwrap().unwrap();
    assert_eq!(descriptor.cols.len(), 2);
    let skipped = store
        .list_partitions_selected("hive", "db", "events", PartitionSelection::All, 1, true)
        .unwrap();
    assert!(skipped[0].sd.as_ref().unwrap().cols.is_empty());
}

#[test]
fn alter_keeps_create_time_and_rejects_missing_partitions() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let added = add(&store, vec![partition(&["a", "1"])]).remove(0);
    let mut changed = added.clone();
    changed.create_time = 1;
    changed.parameters.insert("k".into(), "v".into());
    changed
        .sd
        .as_mut()
        .unwrap()
        .cols
        .push(column("Extra", "int"));
    let altered = store
        .alter_partition("hive", "db", "events", changed)
        .unwrap();
    assert_eq!(altered.create_time, added.create_time);
    let read = store
        .get_partition("hive", "db", "events", &strings(&["a", "1"]))
        .unwrap();
    assert_eq!(read.parameters["k"], "v");
    assert_eq!(read.sd.unwrap().cols[2].name, "extra");
    let error = store
        .alter_partition("hive", "db", "events", partition(&["zz", "1"]))
        .unwrap_err();
    assert!(
        matches!(error, Error::InvalidOperation(ref m) if m.starts_with("alter is not possible"))
    );
}

#[test]
fn rename_moves_a_managed_partition_and_its_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let added = add(&store, vec![partition(&["a", "1"]), partition(&["b", "1"])]);
    let old_dir = Path::new(added[0].location().unwrap()).to_path_buf();
    std::fs::write(old_dir.join("data"), b"x").unwrap();
    let renamed = store
        .rename_partition(
            "hive",
            "db",
            "events",
            &strings(&["a", "1"]),
            partition(&["c", "2"]),
        )
        .unwrap();
    let new_dir = warehouse.path().join("db.db/events/ds=c/hr=2");
    assert_eq!(renamed.location(), Some(new_dir.to_str().unwrap()));
    assert!(new_dir.join("data").is_file() && !old_dir.exists());
    assert_eq!(renamed.create_time, added[0].create_time);
    assert!(store
        .get_partition("hive", "db", "events", &strings(&["a", "1"]))
        .is_err());
    let error = store
        .rename_partition(
            "hive",
            "db",
            "events",
            &strings(&["c", "2"]),
            partition(&["b", "1"]),
        )
        .unwrap_err();
    assert_eq!(
        error,
        Error::AlreadyExists("Partition already exists:db.events.[b, 1]".into())
    );
    let error = store
        .rename_partition(
            "hive",
            "db",
            "events",
            &strings(&["q", "2"]),
            partition(&["r", "1"]),
        )
        .unwrap_err();
    assert!(matches!(error, Error::InvalidOperation(_)));
}

#[test]
fn drop_partitions_is_atomic_and_deletes_managed_data() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let added = add(&store, vec![partition(&["a", "1"]), partition(&["b", "1"])]);
    let options = DropPartitionsOptions {
        delete_data: true,
        if_exists: false,
    };
    let values = vec![strings(&["a", "1"]), strings(&["zz", "1"])];
    let error = store
        .drop_partitions("hive", "db", "events", &values, &options)
        .unwrap_err();
    assert_eq!(
        error,
        Error::NoSuchObject("Some partitions to drop are missing".into())
    );
    assert_eq!(
        store
            .list_partitions("hive", "db", "events", -1)
            .unwrap()
            .len(),
        2
    );
    let error = store
        .drop_partition("hive", "db", "events", &strings(&["zz", "1"]), false)
        .unwrap_err();
    assert_eq!(
        error,
        Error::NoSuchObject("partition values=[zz, 1]".into())
    );
    let dropped = store
        .drop_partition_by_name("hive", "db", "events", "ds=a/hr=1", true)
        .unwrap();
    assert_eq!(dropped.partitions.len(), 1);
    assert!(dropped.warehouse.is_clean());
    assert!(!Path::new(added[0].location().unwrap()).exists());
    assert!(Path::new(added[1].location().unwrap()).exists());
}

#[test]
fn drop_table_removes_its_partitions_and_their_data() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    let outside = warehouse.path().join("elsewhere/p");
    let mut placed = partition(&["b", "1"]);
    placed.sd = Some(StorageDescriptor {
        location: Some(outside.to_string_lossy().to_string()),
        ..StorageDescriptor::default()
    });
    add(&store, vec![partition(&["a", "1"]), placed]);
    assert!(outside.is_dir());
    let table = store.get_table("hive", "db", "events").unwrap();
    let options = DropTableOptions { delete_data: true };
    store
        .drop_table_with_options("hive", "db", "events", &options)
        .unwrap();
    let mut prefix = vec![0x07];
    prefix.extend_from_slice(&(table.id as u64).to_be_bytes());
    let left = store
        .backend()
        .scan(&KeyRange::prefix(&prefix), 10)
        .unwrap();
    assert!(left.is_empty(), "partitions and descriptors are gone");
    assert!(
        !outside.exists(),
        "partitions outside the table directory are deleted"
    );
    partitioned_table(&store, "events");
    assert!(store
        .list_partitions("hive", "db", "events", -1)
        .unwrap()
        .is_empty());
}

#[test]
fn renaming_a_managed_table_moves_partition_locations() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = setup(warehouse.path());
    add(&store, vec![partition(&["a", "1"])]);
    let mut table = store.get_table("hive", "db", "events").unwrap();
    table.table_name = "renamed".into();
    if let Some(sd) = table.sd.as_mut() {
        sd.location = None;
    }
    store
        .alter_table_with_options("hive", "db", "events", table, &AlterTableOptions::default())
        .unwrap();
    let moved = store
        .get_partition("hive", "db", "renamed", &strings(&["a", "1"]))
        .unwrap();
    let expected = warehouse.path().join("db.db/renamed/ds=a/hr=1");
    assert_eq!(moved.location(), Some(expected.to_str().unwrap()));
    assert!(expected.is_dir());
    assert_eq!(moved.table_name, "renamed");
}

/// Listings see every batch whole although they scan in pages and writers never wait for
/// them: a writer adds and drops batches larger than a scan page while readers list.
#[test]
fn listings_never_show_part_of_a_batch() {
    const BATCH_LEN: usize = 1500;
    const ROUNDS: usize = 12;
    let warehouse = tempfile::tempdir().unwrap();
    let mut options = StoreOptions::new(warehouse.path().to_string_lossy().to_string());
    options.durability = Durability::Memory;
    options.filesystem = None;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    partitioned_table(&store, "events");
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let mut listings = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) || listings == 0 {
                    let selection = PartitionSelection::All;
                    let names = store
                        .list_partition_names_selected("hive", "db", "events", selection, -1)
                        .unwrap();
                    assert_eq!(names.len() % BATCH_LEN, 0, "a listing saw part of a batch");
                    let views = store
                        .partition_views("hive", "db", "events", selection, -1)
                        .unwrap();
                    assert_eq!(views.len() % BATCH_LEN, 0);
                    listings += 1;
                }
            });
        }
        let options = AddPartitionsOptions::default();
        for round in 0..ROUNDS {
            let batch: Vec<Partition> = (0..BATCH_LEN)
                .map(|item| partition(&[&format!("b{round:02}"), &item.to_string()]))
                .collect();
            store
                .add_partitions("hive", "db", "events", batch, &options)
                .unwrap();
            if round % 2 == 1 {
                let values: Vec<Vec<String>> = (0..BATCH_LEN)
                    .map(|item| strings(&[&format!("b{:02}", round - 1), &item.to_string()]))
                    .collect();
                let drop = DropPartitionsOptions::default();
                store
                    .drop_partitions("hive", "db", "events", &values, &drop)
                    .unwrap();
            }
        }
        done.store(true, std::sync::atomic::Ordering::SeqCst);
    });
}

fn partition_keys_of(store: &Store, table_id: i64) -> usize {
    let prefix =
        hivestore_engine::keys::partition_prefix(hivestore_engine::keys::TableId(table_id as u64));
    hivestore_engine::kv::scan(store.backend().as_ref(), KeyRange::prefix(&prefix), 1_000).count()
}

/// A drop deletes partitions in bounded batches after its commit: a table with more partitions
/// than one batch takes leaves nothing behind, and neither marker nor partitions remain.
#[test]
fn dropping_a_table_larger_than_a_removal_batch_deletes_every_partition() {
    let store = metadata_only_store(Arc::new(MemoryBackend::new()));
    create_db(&store);
    let table = partitioned_table(&store, "events");
    for day in 0..1_050 {
        let batch = (0..24)
            .map(|hour| partition(&[&format!("d{day:04}"), &hour.to_string()]))
            .collect();
        add(&store, batch);
    }
    assert_eq!(
        partition_keys_of(&store, table.id),
        25_200 + 1,
        "and one shared descriptor"
    );
    store.drop_table("hive", "db", "events").unwrap();
    assert_eq!(partition_keys_of(&store, table.id), 0);
    let markers = KeyRange::prefix(&[hivestore_engine::keys::KEYSPACE_PENDING_REMOVAL]);
    assert!(store.backend().scan(&markers, 10).unwrap().is_empty());
}

/// Removal batches span tables: a database whose tables hold more partitions than one batch,
/// and many tables with none, leaves no partition and no marker behind, whichever table a
/// batch ends in.
#[test]
fn dropping_a_database_removes_the_partitions_of_all_its_tables() {
    let store = metadata_only_store(Arc::new(MemoryBackend::new()));
    create_db(&store);
    let options = AddPartitionsOptions::default();
    let mut ids = Vec::new();
    for name in ["a", "b", "c"] {
        ids.push(partitioned_table(&store, name).id);
        for day in 0..150 {
            let batch = (0..40)
                .map(|hour| partition(&[&format!("d{day:04}"), &hour.to_string()]))
                .collect();
            store
                .add_partitions("hive", "db", name, batch, &options)
                .unwrap();
        }
    }
    for index in 0..200 {
        ids.push(partitioned_table(&store, &format!("empty_{index}")).id);
    }
    assert_eq!(partition_keys_of(&store, ids[0]), 6_000 + 1);
    store.drop_database("hive", "db", true).unwrap();
    for id in ids {
        assert_eq!(partition_keys_of(&store, id), 0, "table {id}");
    }
    let markers = KeyRange::prefix(&[hivestore_engine::keys::KEYSPACE_PENDING_REMOVAL]);
    assert!(store.backend().scan(&markers, 10).unwrap().is_empty());
}

/// A crash after a drop committed and before its partitions were deleted leaves the marker:
/// the next open deletes them.
#[test]
fn opening_finishes_an_interrupted_partition_removal() {
    use hivestore_engine::keys::{self, TableId};
    use hivestore_engine::kv::{KvBackend, WriteBatch};
    let backend = Arc::new(MemoryBackend::new());
    let store = metadata_only_store(backend.clone());
    create_db(&store);
    let table = partitioned_table(&store, "events");
    add(&store, vec![partition(&["a", "1"]), partition(&["b", "2"])]);
    drop(store);
    // What a drop's own batch commits, without the deletions that follow it.
    let mut batch = WriteBatch::new();
    batch.put(
        keys::pending_removal_key(TableId(table.id as u64)),
        Vec::new(),
    );
    backend.apply(batch).unwrap();
    let reopened = metadata_only_store(backend);
    assert_eq!(partition_keys_of(&reopened, table.id), 0);
}

#[test]
fn kept_name_listings_follow_every_change() {
    let store = metadata_only_store(Arc::new(MemoryBackend::new()));
    create_db(&store);
    partitioned_table(&store, "events");
    let names = |max_parts: i32| {
        let listing = store
            .partition_names("hive", "db", "events", PartitionSelection::All, max_parts)
            .unwrap();
        listing.to_vec()
    };
    add(&store, vec![partition(&["b", "1"]), partition(&["a", "2"])]);
    assert_eq!(names(-1), ["ds=a/hr=2", "ds=b/hr=1"]);
    // Kept now: the limit still applies, and a repeated listing is the same.
    assert_eq!(names(1), ["ds=a/hr=2"]);
    assert_eq!(names(-1), ["ds=a/hr=2", "ds=b/hr=1"]);
    add(&store, vec![partition(&["a/x", ""])]);
    assert_eq!(
        names(-1),
        [
            "ds=a/hr=2",
            "ds=a%2Fx/hr=__HIVE_DEFAULT_PARTITION__",
            "ds=b/hr=1"
        ]
    );
    store
        .rename_partition(
            "hive",
            "db",
            "events",
            &strings(&["b", "1"]),
            partition(&["c", "1"]),
        )
        .unwrap();
    assert_eq!(names(-1)[2], "ds=c/hr=1");
    store
        .drop_partition("hive", "db", "events", &strings(&["a", "2"]), false)
        .unwrap();
    assert_eq!(
        names(-1),
        ["ds=a%2Fx/hr=__HIVE_DEFAULT_PARTITION__", "ds=c/hr=1"]
    );
    // Partial values that are all empty match every partition, from the kept listing too.
    let any = strings(&["", ""]);
    let partial = store
        .partition_names(
            "hive",
            "db",
            "events",
            PartitionSelection::PartialValues(&any),
            -1,
        )
        .unwrap();
    assert_eq!(partial.to_vec(), names(-1));
    let too_many = strings(&["", "", ""]);
    let refused = store.partition_names(
        "hive",
        "db",
        "events",
        PartitionSelection::PartialValues(&too_many),
        -1,
    );
    assert!(matches!(refused, Err(Error::Refused(_))), "{refused:?}");
    // A table dropped and made again under the same name starts with no partitions.
    store.drop_table("hive", "db", "events").unwrap();
    partitioned_table(&store, "events");
    assert!(names(-1).is_empty());
}

/// Selections that bound no leading key (a filter on the second key, partial values with the
/// first one empty) are answered from the table's name listing, kept or read: their answers
/// follow every change as a scan's would.
#[test]
fn selections_on_later_keys_follow_every_change() {
    let store = metadata_only_store(Arc::new(MemoryBackend::new()));
    create_db(&store);
    partitioned_table(&store, "events");
    let by_filter = |filter: &str| -> Vec<Vec<String>> {
        let partitions = store
            .list_partitions_by_filter("hive", "db", "events", filter, -1)
            .unwrap();
        let names = store
            .list_partition_names_by_filter("hive", "db", "events", filter, -1)
            .unwrap();
        let count = store
            .get_num_partitions_by_filter("hive", "db", "events", filter)
            .unwrap();
        assert_eq!(names.len(), partitions.len(), "{filter}");
        assert_eq!(count as usize, partitions.len(), "{filter}");
        partitions.into_iter().map(|p| p.values).collect()
    };
    let by_partial = |partial: &[&str]| -> Vec<Vec<String>> {
        store
            .list_partitions_ps("hive", "db", "events", &strings(partial), -1)
            .unwrap()
            .into_iter()
            .map(|p| p.values)
            .collect()
    };
    add(
        &store,
        vec![
            partition(&["b", "1"]),
            partition(&["a", "2"]),
            partition(&["a/x", "1"]),
        ],
    );
    // Not kept yet: this one reads the names from the keys and keeps them.
    assert_eq!(
        by_filter("hr = 1"),
        [strings(&["a/x", "1"]), strings(&["b", "1"])]
    );
    assert_eq!(by_partial(&["", "2"]), [strings(&["a", "2"])]);
    add(&store, vec![partition(&["c", "1"]), partition(&["c", ""])]);
    assert_eq!(
        by_filter("hr = 1"),
        [
            strings(&["a/x", "1"]),
            strings(&["b", "1"]),
            strings(&["c", "1"])
        ]
    );
    assert_eq!(
        by_partial(&["", "__HIVE_DEFAULT_PARTITION__"]),
        [strings(&["c", "__HIVE_DEFAULT_PARTITION__"])]
    );
    store
        .drop_partition("hive", "db", "events", &strings(&["b", "1"]), false)
        .unwrap();
    assert_eq!(
        by_filter("hr = 1"),
        [strings(&["a/x", "1"]), strings(&["c", "1"])]
    );
    // A limit still applies, and the records read are the partitions' own.
    let first = store
        .list_partitions_by_filter("hive", "db", "events", "hr = 1", 1)
        .unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].values, strings(&["a/x", "1"]));
    assert!(first[0].sd.is_some());
}
