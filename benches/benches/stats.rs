//! Column statistics from the engine, against the targets (server time, this 2-core
//! machine): `get_aggr_stats_for` over 10k partitions × 50 columns under 10 ms;
//! `get_partitions_statistics_req` for 1000 partitions × 20 columns under 5 ms; at least 20k
//! partition statistics written per second.
//!
//! The store is sled in a temp dir; writes are not synced (`Durability::Memory`), so the write
//! figure is the engine's cost, not the disk's.
//!
//! The allocator is the server's (mimalloc), so that the figures are the server's time.
//!
//! Run: `cargo bench -p hivestore-benches --bench stats`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hivestore_engine::{
    AddPartitionsOptions, ColumnStatistics, Database, Durability, FieldSchema, Partition,
    StatsKind, StatsValue, StatsWriteOptions, StorageDescriptor, Store, StoreOptions, Table,
};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Partitions of the table.
const PARTITION_COUNT: usize = 10_000;
/// Columns of the table, all with statistics in every partition.
const COLUMN_COUNT: usize = 50;
/// Partitions and columns read back per `get_partitions_statistics_req`.
const READ_PARTITION_COUNT: usize = 1000;
const READ_COLUMN_COUNT: usize = 20;
/// Partitions per statistics write while setting up, and per measured write.
const WRITE_BATCH_LEN: usize = 500;

fn column_name(index: usize) -> String {
    format!("column_{index}")
}

fn partition_name(index: usize) -> String {
    format!("ds={index:06}")
}

fn statistics(partition: usize, column: usize) -> ColumnStatistics {
    let mut stats = ColumnStatistics::new(&column_name(column), "bigint", StatsKind::Long);
    let base = (partition * 1000 + column) as i64;
    stats.low_value = Some(StatsValue::Integer(base));
    stats.high_value = Some(StatsValue::Integer(base + 500));
    stats.num_nulls = (partition % 13) as i64;
    stats.num_distinct_values = 100 + (partition % 50) as i64;
    stats
}

fn write_batch(store: &Store, partitions: std::ops::Range<usize>, columns: usize) {
    let writes = partitions
        .map(|partition| {
            let stats = (0..columns)
                .map(|column| statistics(partition, column))
                .collect();
            (partition_name(partition), stats)
        })
        .collect();
    let options = StatsWriteOptions {
        engine: "hive".to_string(),
        merge: false,
        last_analyzed: 1_700_000_000,
    };
    store
        .update_partition_column_statistics("hive", "bench", "events", writes, &options)
        .expect("write statistics");
}

fn build_store(directory: &std::path::Path) -> Store {
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open(directory, options).expect("open the store");
    let database = Database {
        name: "bench".into(),
        ..Database::default()
    };
    store
        .create_database(database)
        .expect("create the database");
    let column = |name: String| FieldSchema {
        name,
        type_name: "bigint".into(),
        comment: None,
    };
    let table = Table {
        table_name: "events".into(),
        db_name: "bench".into(),
        sd: Some(StorageDescriptor {
            cols: (0..COLUMN_COUNT)
                .map(|index| column(column_name(index)))
                .collect(),
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds".into())],
        ..Table::default()
    };
    store.create_table(table).expect("create the table");
    let partitions = (0..PARTITION_COUNT)
        .map(|index| Partition {
            values: vec![format!("{index:06}")],
            ..Partition::default()
        })
        .collect();
    store
        .add_partitions(
            "hive",
            "bench",
            "events",
            partitions,
            &AddPartitionsOptions::default(),
        )
        .expect("add partitions");
    for start in (0..PARTITION_COUNT).step_by(WRITE_BATCH_LEN) {
        write_batch(&store, start..start + WRITE_BATCH_LEN, COLUMN_COUNT);
    }
    store
}

fn bench_statistics(criterion: &mut Criterion) {
    let directory = tempfile::tempdir().expect("temp dir");
    let store = build_store(directory.path());
    let names: Vec<String> = (0..PARTITION_COUNT).map(partition_name).collect();
    let columns: Vec<String> = (0..COLUMN_COUNT).map(column_name).collect();

    let mut group = criterion.benchmark_group("stats");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("get_aggr_stats_for/10k_partitions/50_columns", |bench| {
        bench.iter(|| {
            let aggregate = store
                .aggregate_column_statistics("hive", "bench", "events", &names, &columns, "hive")
                .expect("aggregate");
            assert_eq!(aggregate.partitions_found, PARTITION_COUNT as i64);
            black_box(aggregate)
        })
    });
    let read_names = &names[..READ_PARTITION_COUNT];
    let read_columns = &columns[..READ_COLUMN_COUNT];
    group.bench_function(
        "get_partitions_statistics_req/1000_partitions/20_columns",
        |bench| {
            bench.iter(|| {
                let found = store
                    .partition_column_statistics(
                        "hive",
                        "bench",
                        "events",
                        read_names,
                        read_columns,
                        "hive",
                        false,
                    )
                    .expect("read");
                assert_eq!(found.len(), READ_PARTITION_COUNT);
                black_box(found)
            })
        },
    );
    group.throughput(Throughput::Elements(WRITE_BATCH_LEN as u64));
    group.bench_function(
        "update_partition_column_statistics/500_partitions/20_columns",
        |bench| {
            let mut start = 0;
            bench.iter(|| {
                write_batch(&store, start..start + WRITE_BATCH_LEN, READ_COLUMN_COUNT);
                start = (start + WRITE_BATCH_LEN) % PARTITION_COUNT;
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench_statistics);
criterion_main!(benches);
