//! A reader beside the writer (`Store::open_reader`): two stores over one backend, as two
//! servers over one PostgreSQL database are, the writer logging its changes. After
//! `catch_up`, the reader answers as the writer does, whatever it kept before the write
//! (partition listings, statistics chunks, grants, point reads kept by a `ReadCache`), and
//! it refuses to write.

use std::sync::Arc;

use hivestore_engine::kv::{KvBackend, MemoryBackend, ReadCache};
use hivestore_engine::{
    ColumnStatistics, Database, Durability, Error, FieldSchema, Partition, StatsKind,
    StatsWriteOptions, StorageDescriptor, Store, StoreOptions, Table, CHANGE_LOG_WINDOW,
};

fn options() -> StoreOptions {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.change_log = true;
    options
}

/// A writer with database `db` and table `p` partitioned by `ds`, and a reader beside it
/// whose point reads are kept in memory.
fn writer_and_reader() -> (Store, Store) {
    let shared: Arc<dyn KvBackend> = Arc::new(MemoryBackend::new());
    let writer = Store::open_with_backend(shared.clone(), options()).unwrap();
    writer
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    writer
        .create_table(Table {
            table_name: "p".to_string(),
            db_name: "db".to_string(),
            sd: Some(StorageDescriptor {
                cols: vec![column("l", "bigint")],
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string")],
            ..Table::default()
        })
        .unwrap();
    let cached: Arc<dyn KvBackend> = Arc::new(ReadCache::new(shared, 1 << 20));
    let reader = Store::open_reader(cached, options()).unwrap();
    (writer, reader)
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn add(writer: &Store, values: std::ops::Range<usize>) {
    let partitions = values
        .map(|index| Partition {
            values: vec![format!("{index:04}")],
            ..Partition::default()
        })
        .collect();
    writer
        .add_partitions("hive", "db", "p", partitions, &Default::default())
        .unwrap();
}

fn names(store: &Store) -> Vec<String> {
    store.list_partition_names("hive", "db", "p", -1).unwrap()
}

fn write_nulls(writer: &Store, partition: &str, nulls: i64) {
    let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
    stats.num_nulls = nulls;
    let options = StatsWriteOptions {
        engine: "hive".to_string(),
        last_analyzed: 1_700_000_000,
        ..StatsWriteOptions::default()
    };
    writer
        .update_partition_column_statistics(
            "hive",
            "db",
            "p",
            vec![(partition.to_string(), vec![stats])],
            &options,
        )
        .unwrap();
}

fn nulls(store: &Store, partitions: &[String]) -> i64 {
    let columns = vec!["l".to_string()];
    store
        .aggregate_column_statistics("hive", "db", "p", partitions, &columns, "hive")
        .unwrap()
        .stats[0]
        .num_nulls
}

#[test]
fn after_catching_up_the_reader_answers_what_the_writer_wrote() {
    let (writer, reader) = writer_and_reader();
    add(&writer, 0..300);
    reader.catch_up().unwrap();
    // Kept by the reader: the listing, the table (a point read), statistics chunks.
    assert_eq!(names(&reader).len(), 300);
    assert!(!reader
        .get_table("hive", "db", "p")
        .unwrap()
        .parameters
        .contains_key("comment"));
    let all = names(&writer);
    for name in &all {
        write_nulls(&writer, name, 1);
    }
    reader.catch_up().unwrap();
    assert_eq!(nulls(&reader, &all), 300);

    add(&writer, 300..310);
    let mut table = writer.get_table("hive", "db", "p").unwrap();
    table
        .parameters
        .insert("comment".to_string(), "changed".to_string());
    writer.alter_table("hive", "db", "p", table).unwrap();
    write_nulls(&writer, &all[7], 5);
    writer
        .drop_partitions(
            "hive",
            "db",
            "p",
            &[vec!["0008".to_string()]],
            &Default::default(),
        )
        .unwrap();

    reader.catch_up().unwrap();
    assert_eq!(names(&reader), names(&writer));
    assert_eq!(names(&reader).len(), 309);
    assert_eq!(
        reader.get_table("hive", "db", "p").unwrap().parameters["comment"],
        "changed"
    );
    let now = names(&writer);
    assert_eq!(nulls(&reader, &now), nulls(&writer, &now));
    // The partitions with statistics: 299 of one null each, one rewritten to five.
    let analyzed: Vec<String> = now
        .into_iter()
        .filter(|name| name.as_str() < "ds=0300")
        .collect();
    assert_eq!(nulls(&reader, &analyzed), 299 + 4);
}

#[test]
fn a_reader_further_behind_than_the_log_forgets_what_it_kept() {
    let (writer, reader) = writer_and_reader();
    add(&writer, 0..10);
    reader.catch_up().unwrap();
    assert_eq!(names(&reader).len(), 10);
    assert!(reader.get_table("hive", "db", "p").unwrap().owner.is_none());
    // More batches than the log keeps: the reader cannot replay them.
    for index in 0..CHANGE_LOG_WINDOW + 5 {
        let mut table = writer.get_table("hive", "db", "p").unwrap();
        table.owner = Some(format!("owner{index}"));
        writer.alter_table("hive", "db", "p", table).unwrap();
    }
    add(&writer, 10..12);
    reader.catch_up().unwrap();
    assert_eq!(names(&reader).len(), 12);
    assert_eq!(
        reader.get_table("hive", "db", "p").unwrap().owner,
        writer.get_table("hive", "db", "p").unwrap().owner
    );
    // And it goes on replaying from there.
    add(&writer, 12..13);
    reader.catch_up().unwrap();
    assert_eq!(names(&reader).len(), 13);
}

#[test]
fn a_reader_refuses_every_write_and_changes_nothing() {
    let (writer, reader) = writer_and_reader();
    let error = reader
        .create_database(Database {
            name: "other".to_string(),
            ..Database::default()
        })
        .unwrap_err();
    assert!(matches!(error, Error::Refused(_)), "{error:?}");
    assert!(
        error.to_string().contains("writes go to that server"),
        "{error}"
    );
    writer.get_database("hive", "default").unwrap();
    assert!(writer.get_database("hive", "other").is_err());
    assert!(reader.get_database("hive", "other").is_err());
}

#[test]
fn a_reader_needs_a_store_its_writer_created() {
    let empty: Arc<dyn KvBackend> = Arc::new(MemoryBackend::new());
    let error = Store::open_reader(empty, options()).err().expect("refused");
    assert!(
        error.to_string().contains("start its writing server first"),
        "{error}"
    );
}
