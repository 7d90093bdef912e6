//! Distinct objects keep distinct directories: partition values, table and database
//! locations that look alike (spaces, case, `%` escapes, `//`, `.`, `..`, unicode forms) are
//! never folded into one directory, so dropping one with its data leaves the other's files.
//! A drop whose directory holds a live partition's or the table's is refused; a failed
//! `add_partitions` leaves no directory behind. The warehouse is a temp dir.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hivestore_engine::kv::{KeyRange, KvBackend, KvBytes, MemoryBackend, WriteBatch};
use hivestore_engine::{
    AddPartitionsOptions, Database, DropDatabaseOptions, DropPartitionsOptions, DropTableOptions,
    Durability, Error, FieldSchema, LocalFilesystem, Partition, StorageDescriptor, Store,
    StoreOptions, Table,
};

/// A backend over memory whose writes or flushes fail while told to.
#[derive(Debug, Default)]
struct FlakyBackend {
    inner: MemoryBackend,
    fail_apply: AtomicBool,
    fail_flush: AtomicBool,
}

fn injected() -> Error {
    Error::Storage("injected failure".to_string())
}

impl KvBackend for FlakyBackend {
    fn get(&self, key: &[u8]) -> hivestore_engine::Result<Option<KvBytes>> {
        self.inner.get(key)
    }
    fn scan(
        &self,
        range: &KeyRange,
        entry_count_max: usize,
    ) -> hivestore_engine::Result<Vec<(KvBytes, KvBytes)>> {
        self.inner.scan(range, entry_count_max)
    }
    fn apply(&self, batch: WriteBatch) -> hivestore_engine::Result<()> {
        if self.fail_apply.load(Ordering::SeqCst) {
            return Err(injected());
        }
        self.inner.apply(batch)
    }
    fn flush(&self) -> hivestore_engine::Result<()> {
        if self.fail_flush.load(Ordering::SeqCst) {
            return Err(injected());
        }
        self.inner.flush()
    }
}

fn store_over(backend: Arc<dyn KvBackend>, warehouse: &Path, durability: Durability) -> Store {
    let mut options = StoreOptions::new(warehouse.to_string_lossy().to_string());
    options.durability = durability;
    options.filesystem = Some(Arc::new(LocalFilesystem));
    Store::open_with_backend(backend, options).unwrap()
}

fn store_in(warehouse: &Path) -> Store {
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(backend, warehouse, Durability::Memory);
    store.create_database(database("db", None)).unwrap();
    store
}

fn database(name: &str, location: Option<String>) -> Database {
    Database {
        name: name.to_string(),
        location_uri: location,
        ..Database::default()
    }
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn table(database: &str, name: &str, keys: &[&str], location: Option<String>) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: database.to_string(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id", "bigint")],
            num_buckets: -1,
            location,
            ..StorageDescriptor::default()
        }),
        partition_keys: keys.iter().map(|key| column(key, "string")).collect(),
        ..Table::default()
    }
}

fn partition(values: &[&str], location: Option<String>) -> Partition {
    let mut partition = Partition {
        values: values.iter().map(|value| value.to_string()).collect(),
        ..Partition::default()
    };
    if let Some(location) = location {
        partition.sd = Some(StorageDescriptor {
            cols: vec![column("id", "bigint")],
            num_buckets: -1,
            location: Some(location),
            ..StorageDescriptor::default()
        });
    }
    partition
}

fn add(store: &Store, table: &str, partition: Partition) -> hivestore_engine::Result<String> {
    let options = AddPartitionsOptions::default();
    let added = store.add_partitions("hive", "db", table, vec![partition], &options)?;
    Ok(added[0].location().unwrap().to_string())
}

fn drop_with_data(store: &Store, table: &str, values: &[&[&str]]) -> hivestore_engine::Result<()> {
    let values: Vec<Vec<String>> = values
        .iter()
        .map(|values| values.iter().map(|value| value.to_string()).collect())
        .collect();
    let options = DropPartitionsOptions {
        delete_data: true,
        if_exists: false,
    };
    let dropped = store.drop_partitions("hive", "db", table, &values, &options)?;
    assert!(dropped.warehouse.is_clean(), "{:?}", dropped.warehouse);
    Ok(())
}

fn listed(store: &Store, table: &str, values: &[&str]) -> bool {
    let values: Vec<String> = values.iter().map(|value| value.to_string()).collect();
    store.get_partition("hive", "db", table, &values).is_ok()
}

/// The directory of a location as the engine writes it: a plain absolute path.
fn dir(location: &str) -> PathBuf {
    PathBuf::from(location.strip_prefix("file:").unwrap_or(location))
}

fn write_marker(location: &str, content: &str) {
    std::fs::write(dir(location).join("data"), content).unwrap();
}

fn marker(location: &str) -> Option<String> {
    std::fs::read_to_string(dir(location).join("data")).ok()
}

/// Pairs of texts that a trim, a case fold, a `%` decoding, a path normalisation or a
/// unicode normalisation would make one.
fn look_alikes() -> Vec<(&'static str, &'static str)> {
    vec![
        ("x", "x "),
        ("x", " x"),
        ("x", "x\t"),
        ("x", "X"),
        ("A", "%41"),
        ("a%2Fb", "a/b"),
        ("a/b", "a//b"),
        ("a/b", "a/./b"),
        ("b", "a/../b"),
        (".", ".."),
        ("x", "x."),
        ("\u{e9}", "e\u{301}"),
    ]
}

#[test]
fn look_alike_partition_values_keep_their_own_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    for (index, (first, second)) in look_alikes().into_iter().enumerate() {
        let name = format!("t{index}");
        store
            .create_table(table("db", &name, &["p"], None))
            .unwrap();
        let kept = add(&store, &name, partition(&[first], None)).unwrap();
        let doomed = add(&store, &name, partition(&[second], None)).unwrap();
        let case = format!("{first:?} and {second:?}");
        assert_ne!(kept, doomed, "{case}");
        assert!(dir(&kept).is_dir() && dir(&doomed).is_dir(), "{case}");
        assert_ne!(
            dir(&kept).canonicalize().unwrap(),
            dir(&doomed).canonicalize().unwrap(),
            "{case}: one directory"
        );
        write_marker(&kept, "kept");
        write_marker(&doomed, "doomed");
        assert_eq!(marker(&kept).as_deref(), Some("kept"), "{case}");

        drop_with_data(&store, &name, &[&[second]]).unwrap();
        assert!(!dir(&doomed).exists(), "{case}");
        assert_eq!(marker(&kept).as_deref(), Some("kept"), "{case}: data lost");
        assert!(listed(&store, &name, &[first]), "{case}");
        assert!(!listed(&store, &name, &[second]), "{case}");
    }
}

#[test]
fn look_alike_values_of_a_middle_key_keep_their_own_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    store
        .create_table(table("db", "t", &["ds", "hr"], None))
        .unwrap();
    let kept = add(&store, "t", partition(&["x", "1"], None)).unwrap();
    let doomed = add(&store, "t", partition(&["x ", "1"], None)).unwrap();
    write_marker(&kept, "kept");
    write_marker(&doomed, "doomed");
    drop_with_data(&store, "t", &[&["x ", "1"]]).unwrap();
    assert_eq!(marker(&kept).as_deref(), Some("kept"));
    assert!(!dir(&doomed).exists());
    assert!(
        !dir(&doomed).parent().unwrap().exists(),
        "the emptied parent goes"
    );
}

#[test]
fn look_alike_table_locations_keep_their_own_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let root = warehouse.path().display().to_string();
    for (index, (first, second)) in look_alikes().into_iter().enumerate() {
        // Locations given as they are: only the path separators of the pair stay paths.
        let kept_location = format!("file:{root}/given{index}/{first}");
        let doomed_location = format!("file:{root}/given{index}/{second}");
        let case = format!("{kept_location:?} and {doomed_location:?}");
        let is_path = |text: &str| text.contains('/') || text == "." || text == "..";
        if is_path(first) || is_path(second) {
            // Path syntax names one directory for the filesystem too (see the refusals).
            continue;
        }
        let kept = store
            .create_table(table("db", &format!("a{index}"), &[], Some(kept_location)))
            .unwrap();
        let doomed = store
            .create_table(table(
                "db",
                &format!("b{index}"),
                &[],
                Some(doomed_location),
            ))
            .unwrap();
        let (kept, doomed) = (kept.location().unwrap(), doomed.location().unwrap());
        write_marker(kept, "kept");
        write_marker(doomed, "doomed");
        assert_eq!(marker(kept).as_deref(), Some("kept"), "{case}");
        let options = DropTableOptions { delete_data: true };
        let dropped = store
            .drop_table_with_options("hive", "db", &format!("b{index}"), &options)
            .unwrap();
        assert!(
            dropped.warehouse.is_clean(),
            "{case}: {:?}",
            dropped.warehouse
        );
        assert!(!dir(doomed).exists(), "{case}");
        assert_eq!(marker(kept).as_deref(), Some("kept"), "{case}: data lost");
    }
}

#[test]
fn table_and_database_names_differing_in_case_are_one_object() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(table("db", "t", &[], None)).unwrap();
    write_marker(created.location().unwrap(), "kept");
    let again = store.create_table(table("DB", "T", &[], None));
    assert!(matches!(again, Err(Error::AlreadyExists(_))), "{again:?}");
    let again = store.create_database(database("Db", None));
    assert!(matches!(again, Err(Error::AlreadyExists(_))), "{again:?}");
    assert_eq!(marker(created.location().unwrap()).as_deref(), Some("kept"));
}

#[test]
fn look_alike_database_locations_keep_their_own_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let root = warehouse.path().display().to_string();
    for (index, (first, second)) in [
        ("x", "x "),
        ("x", "X"),
        ("A", "%41"),
        ("\u{e9}", "e\u{301}"),
    ]
    .into_iter()
    .enumerate()
    {
        let kept_location = format!("file:{root}/dbs{index}/{first}");
        let doomed_location = format!("file:{root}/dbs{index}/{second}");
        let case = format!("{kept_location:?} and {doomed_location:?}");
        store
            .create_database(database(&format!("a{index}"), Some(kept_location.clone())))
            .unwrap();
        store
            .create_database(database(
                &format!("b{index}"),
                Some(doomed_location.clone()),
            ))
            .unwrap();
        write_marker(&kept_location, "kept");
        write_marker(&doomed_location, "doomed");
        assert_eq!(marker(&kept_location).as_deref(), Some("kept"), "{case}");
        let options = DropDatabaseOptions {
            cascade: true,
            delete_data: true,
        };
        store
            .drop_database_with_options("hive", &format!("b{index}"), &options)
            .unwrap();
        assert!(!dir(&doomed_location).exists(), "{case}");
        assert_eq!(
            marker(&kept_location).as_deref(),
            Some("kept"),
            "{case}: data lost"
        );
    }
}

#[test]
fn a_drop_with_data_that_would_delete_a_live_directory_is_refused() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(table("db", "t", &["p"], None)).unwrap();
    let table_location = created.location().unwrap().to_string();
    let kept = add(&store, "t", partition(&["a"], None)).unwrap();
    write_marker(&kept, "kept");
    // Locations the filesystem resolves to the directory of `p=a`, or to one holding it.
    let sharing = [
        ("b", format!("{table_location}/p=z/../p=a")),
        ("c", format!("{table_location}//p=a")),
        ("d", format!("{table_location}/./p=a/")),
        ("e", format!("file:{table_location}/p=a")),
        ("f", format!("{table_location}/p=a/..")),
        ("g", format!("{table_location}/p=a/../..")),
    ];
    for (value, location) in &sharing {
        add(&store, "t", partition(&[value], Some(location.clone()))).unwrap();
        let refused = drop_with_data(&store, "t", &[&[value]]);
        match &refused {
            Err(Error::Refused(message)) => {
                assert!(message.contains(location.as_str()), "{message}");
                assert!(message.contains(&format!("p={value}")), "{message}");
            }
            other => panic!("{location}: {other:?}"),
        }
        assert!(listed(&store, "t", &[value]), "{location}: nothing dropped");
        assert_eq!(marker(&kept).as_deref(), Some("kept"), "{location}");
    }
    // One holding another's directory: refused until the inner one is gone.
    let outer = format!("{table_location}/sub");
    add(&store, "t", partition(&["h"], Some(outer.clone()))).unwrap();
    let inner = add(
        &store,
        "t",
        partition(&["i"], Some(format!("{outer}/inner"))),
    )
    .unwrap();
    write_marker(&inner, "inner");
    assert!(matches!(
        drop_with_data(&store, "t", &[&["h"]]),
        Err(Error::Refused(_))
    ));
    assert_eq!(marker(&inner).as_deref(), Some("inner"));
    drop_with_data(&store, "t", &[&["i"]]).unwrap();
    drop_with_data(&store, "t", &[&["h"]]).unwrap();
    assert!(!dir(&outer).exists());

    // Without deleteData nothing is deleted, so nothing is refused.
    let options = DropPartitionsOptions::default();
    store
        .drop_partitions("hive", "db", "t", &[vec!["b".to_string()]], &options)
        .unwrap();
    // Dropped together with every partition using the directory, the data may go.
    drop_with_data(&store, "t", &[&["a"], &["c"], &["d"], &["e"]]).unwrap();
    assert!(!dir(&kept).exists());
    assert!(dir(&table_location).is_dir(), "the table's directory stays");
    // The table's own directory is never deleted by a partition's drop.
    for value in ["f", "g"] {
        assert!(matches!(
            drop_with_data(&store, "t", &[&[value]]),
            Err(Error::Refused(_))
        ));
    }
}

/// The entries under `directory`, recursively, as paths relative to it.
fn entries_under(directory: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![directory.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            found.push(path.strip_prefix(directory).unwrap().to_path_buf());
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    found.sort();
    found
}

/// 100 partitions over 10 days: each day a parent directory of its own.
fn batch_of_100() -> Vec<Partition> {
    let mut batch = Vec::new();
    for day in 0..10 {
        for hour in 0..10 {
            let (day, hour) = (format!("2024-01-{:02}", day + 1), hour.to_string());
            batch.push(partition(&[&day, &hour], None));
        }
    }
    batch
}

#[test]
fn a_batch_failing_partway_leaves_no_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store
        .create_table(table("db", "t", &["ds", "hr"], None))
        .unwrap();
    let table_dir = dir(created.location().unwrap());
    let blocker = warehouse.path().join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let mut batch = batch_of_100();
    batch.push(partition(
        &["2024-02-01", "0"],
        Some(format!("{}/under", blocker.display())),
    ));
    let options = AddPartitionsOptions::default();
    let failed = store.add_partitions("hive", "db", "t", batch, &options);
    match failed {
        Err(Error::Refused(message)) => assert!(message.contains("a-file/under"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(entries_under(&table_dir), Vec::<PathBuf>::new());
    assert!(store
        .list_partition_names("hive", "db", "t", -1)
        .unwrap()
        .is_empty());

    let added = store
        .add_partitions("hive", "db", "t", batch_of_100(), &options)
        .unwrap();
    assert!(added
        .iter()
        .all(|partition| dir(partition.location().unwrap()).is_dir()));
    assert_eq!(entries_under(&table_dir).len(), 110);
}

#[test]
fn a_batch_whose_write_or_flush_fails_leaves_no_directories() {
    let warehouse = tempfile::tempdir().unwrap();
    let backend = Arc::new(FlakyBackend::default());
    let store = store_over(backend.clone(), warehouse.path(), Durability::Flush);
    store.create_database(database("db", None)).unwrap();
    let options = AddPartitionsOptions::default();
    for (name, failing) in [
        ("apply", &backend.fail_apply),
        ("flush", &backend.fail_flush),
    ] {
        let created = store
            .create_table(table("db", name, &["ds", "hr"], None))
            .unwrap();
        let table_dir = dir(created.location().unwrap());
        failing.store(true, Ordering::SeqCst);
        let failed = store.add_partitions("hive", "db", name, batch_of_100(), &options);
        failing.store(false, Ordering::SeqCst);
        assert!(failed.is_err(), "{name}: {failed:?}");
        assert_eq!(entries_under(&table_dir), Vec::<PathBuf>::new(), "{name}");
    }
}

#[test]
fn a_large_batch_makes_every_directory_and_counts_existing_ones() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store
        .create_table(table("db", "t", &["ds", "hr"], None))
        .unwrap();
    let table_dir = dir(created.location().unwrap());
    // A directory there before, with a file: its quick statistics are counted.
    let existing = table_dir.join("ds=d000/hr=0");
    std::fs::create_dir_all(&existing).unwrap();
    std::fs::write(existing.join("part-0"), "12345").unwrap();
    let mut batch = Vec::new();
    for day in 0..50 {
        for hour in 0..24 {
            batch.push(partition(&[&format!("d{day:03}"), &hour.to_string()], None));
        }
    }
    let options = AddPartitionsOptions::default();
    let added = store
        .add_partitions("hive", "db", "t", batch, &options)
        .unwrap();
    assert_eq!(added.len(), 1_200);
    for partition in &added {
        assert!(dir(partition.location().unwrap()).is_dir());
    }
    assert_eq!(entries_under(&table_dir).len(), 1_200 + 50 + 1);
    let first = added
        .iter()
        .find(|partition| partition.values == ["d000", "0"])
        .unwrap();
    assert_eq!(
        first.parameters.get("numFiles").map(String::as_str),
        Some("1")
    );
    assert_eq!(
        first.parameters.get("totalSize").map(String::as_str),
        Some("5")
    );
}

#[test]
fn a_table_or_database_drop_that_would_delete_a_live_tables_directory_is_refused() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let root = warehouse.path().display().to_string();
    let kept_location = format!("file:{root}/shared/x");
    store
        .create_table(table("db", "kept", &[], Some(kept_location.clone())))
        .unwrap();
    write_marker(&kept_location, "kept");
    let with_data = DropTableOptions { delete_data: true };
    for (name, location) in [
        ("dotted", format!("file:{root}/shared/y/../x")),
        ("slashed", format!("{root}//shared/x/")),
        ("parent", format!("file:{root}/shared")),
    ] {
        store
            .create_table(table("db", name, &[], Some(location.clone())))
            .unwrap();
        match store.drop_table_with_options("hive", "db", name, &with_data) {
            Err(Error::Refused(message)) => {
                assert!(message.contains(&location), "{message}");
                assert!(message.contains("hive.db.kept"), "{message}");
            }
            other => panic!("{location}: {other:?}"),
        }
        assert!(store.get_table("hive", "db", name).is_ok(), "{location}");
        assert_eq!(
            marker(&kept_location).as_deref(),
            Some("kept"),
            "{location}"
        );
        store
            .drop_table_with_options("hive", "db", name, &DropTableOptions::default())
            .unwrap();
    }

    // A database whose directory holds a table of another database.
    let database_location = format!("file:{root}/dbs");
    store
        .create_database(database("holder", Some(database_location.clone())))
        .unwrap();
    let inner = format!("{database_location}/t");
    store
        .create_table(table("db", "inner", &[], Some(inner.clone())))
        .unwrap();
    write_marker(&inner, "inner");
    let cascade = DropDatabaseOptions {
        cascade: true,
        delete_data: true,
    };
    match store.drop_database_with_options("hive", "holder", &cascade) {
        Err(Error::Refused(message)) => assert!(message.contains("hive.db.inner"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(store.get_database("hive", "holder").is_ok());
    assert_eq!(marker(&inner).as_deref(), Some("inner"));
    store
        .drop_table_with_options("hive", "db", "inner", &with_data)
        .unwrap();
    store
        .drop_database_with_options("hive", "holder", &cascade)
        .unwrap();
    assert!(!dir(&database_location).exists());
    assert_eq!(marker(&kept_location).as_deref(), Some("kept"));
}

#[test]
fn a_warehouse_left_alone_makes_no_directory_until_touched_again() {
    // A follower records the source's databases without making their directories (the
    // source did), and makes them again once cut over.
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_over(
        Arc::new(MemoryBackend::new()),
        warehouse.path(),
        Durability::Memory,
    );
    store.set_warehouse_untouched(true);
    let followed = warehouse.path().join("followed.db");
    store
        .create_database(database(
            "followed",
            Some(followed.to_string_lossy().to_string()),
        ))
        .unwrap();
    assert!(!followed.exists());
    store.set_warehouse_untouched(false);
    let own = warehouse.path().join("own.db");
    store
        .create_database(database("own", Some(own.to_string_lossy().to_string())))
        .unwrap();
    assert!(own.is_dir());
}
