//! The notification log: what a consumer's poll costs, and what logging adds to a write.
//!
//! `next_notification` reads a batch of 1,000 events (`CREATE_TABLE` of 20-column tables) from
//! a sled store, in the engine alone and with Hive's JSON messages rendered as
//! `get_next_notification` does. `add_partitions_1000` adds 1,000 partitions in one call, the
//! write that logs the largest event (every partition as it was), with the log as it is.
//!
//! Run: `cargo bench -p hivestore-benches --bench events`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hivestore_engine::events::EventFilter;
use hivestore_engine::{
    AddPartitionsOptions, Database, Durability, FieldSchema, Partition, Store, StoreOptions,
    DEFAULT_CATALOG_NAME,
};
use hivestore_loadgen::fixture::{bench_table, read_table_name};
use hivestore_thrift::convert::table_from_idl;
use hivestore_thrift::event_messages;

/// Events read per poll.
const EVENT_COUNT: usize = 1000;
/// Partitions added per call.
const PARTITION_COUNT: usize = 1000;
const DATABASE: &str = "bench";

fn open_store(dir: &tempfile::TempDir) -> Store {
    let mut options = StoreOptions::new("file:/hivestore-bench-warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open(&dir.path().join("data"), options).expect("open a store");
    let database = Database {
        name: DATABASE.to_string(),
        ..Database::default()
    };
    store
        .create_database(database)
        .expect("create the database");
    store
}

fn bench_polls(criterion: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = open_store(&dir);
    let first = store.current_event_id().expect("the current event id");
    for index in 0..EVENT_COUNT {
        let table = table_from_idl(
            bench_table(DATABASE, &read_table_name(index)),
            DEFAULT_CATALOG_NAME,
        );
        store.create_table(table).expect("create a table");
    }
    let filter = EventFilter::default();
    let mut group = criterion.benchmark_group("next_notification");
    group.throughput(Throughput::Elements(EVENT_COUNT as u64));
    group.bench_function("engine_1000_events", |bencher| {
        bencher.iter(|| {
            black_box(
                store
                    .next_events(first, EVENT_COUNT, &filter)
                    .expect("read"),
            )
        })
    });
    group.bench_function("rendered_1000_events", |bencher| {
        bencher.iter(|| {
            let events = store
                .next_events(first, EVENT_COUNT, &filter)
                .expect("read");
            let rendered: Vec<_> = events
                .iter()
                .map(|event| event_messages::to_idl(event).expect("render"))
                .collect();
            black_box(rendered)
        })
    });
    group.finish();
}

fn bench_partition_adds(criterion: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = open_store(&dir);
    let mut table = table_from_idl(bench_table(DATABASE, "parts"), DEFAULT_CATALOG_NAME);
    table.partition_keys = vec![FieldSchema {
        name: "ds".to_string(),
        type_name: "string".to_string(),
        comment: None,
    }];
    store.create_table(table).expect("create the table");
    let mut round = 0usize;
    let mut group = criterion.benchmark_group("add_partitions");
    group.throughput(Throughput::Elements(PARTITION_COUNT as u64));
    group.sample_size(20);
    group.bench_function("1000_in_one_call_logged", |bencher| {
        bencher.iter(|| {
            round += 1;
            let partitions: Vec<Partition> = (0..PARTITION_COUNT)
                .map(|index| Partition {
                    values: vec![format!("{round}-{index}")],
                    ..Partition::default()
                })
                .collect();
            let options = AddPartitionsOptions::default();
            store
                .add_partitions(
                    DEFAULT_CATALOG_NAME,
                    DATABASE,
                    "parts",
                    partitions,
                    &options,
                )
                .expect("add partitions")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_polls, bench_partition_adds);
criterion_main!(benches);
