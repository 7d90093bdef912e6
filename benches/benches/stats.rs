//! Column statistics from the engine, against the targets (server time, this 2-core
//! machine): `get_aggr_stats_for` over 10k partitions × 50 columns under 10 ms (under 50 ms
//! when every statistic has an HLL sketch, which are then merged);
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

/// The table without sketches, and the one whose every statistic has an HLL sketch.
const PLAIN_TABLE: &str = "events";
const SKETCHED_TABLE: &str = "events_hll";

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

/// Entries of each partition's HLL sketch (sparse, precision 10, as Hive writes small ones).
const SKETCH_ENTRY_COUNT: u32 = 8;

/// A sparse HLL in Hive's bytes: `SKETCH_ENTRY_COUNT` keys of its own for each partition, so
/// that the merge over all partitions turns dense, as a real column's does.
fn hll_sketch(partition: usize) -> Vec<u8> {
    fn varint(bytes: &mut Vec<u8>, value: u64) {
        let mut value = value;
        while value >= 0x80 {
            bytes.push(0x80 | (value & 0x7F) as u8);
            value >>= 7;
        }
        bytes.push(value as u8);
    }
    let mut bytes = b"HLL".to_vec();
    bytes.push(10 << 4);
    varint(&mut bytes, u64::from(SKETCH_ENTRY_COUNT));
    varint(&mut bytes, u64::from(SKETCH_ENTRY_COUNT));
    let first_key = partition as u32 * SKETCH_ENTRY_COUNT;
    // Entries are `key << 6 | run length`, the first whole, the others as deltas.
    let entries: Vec<u64> = (0..SKETCH_ENTRY_COUNT)
        .map(|index| u64::from((first_key + index) << 6 | (1 + index % 4)))
        .collect();
    varint(&mut bytes, entries[0]);
    for pair in entries.windows(2) {
        varint(&mut bytes, pair[1] - pair[0]);
    }
    bytes
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

fn write_batch(store: &Store, table: &str, partitions: std::ops::Range<usize>, columns: usize) {
    let with_sketches = table == SKETCHED_TABLE;
    let writes = partitions
        .map(|partition| {
            let stats = (0..columns)
                .map(|column| {
                    let mut stats = statistics(partition, column);
                    stats.bit_vectors = with_sketches.then(|| hll_sketch(partition));
                    stats
                })
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
        .update_partition_column_statistics("hive", "bench", table, writes, &options)
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
    for name in [PLAIN_TABLE, SKETCHED_TABLE] {
        let table = Table {
            table_name: name.into(),
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
        let options = AddPartitionsOptions::default();
        store
            .add_partitions("hive", "bench", name, partitions, &options)
            .expect("add partitions");
        for start in (0..PARTITION_COUNT).step_by(WRITE_BATCH_LEN) {
            write_batch(&store, name, start..start + WRITE_BATCH_LEN, COLUMN_COUNT);
        }
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
    for (bench_name, table) in [
        ("get_aggr_stats_for/10k_partitions/50_columns", PLAIN_TABLE),
        (
            "get_aggr_stats_for/10k_partitions/50_columns/hll",
            SKETCHED_TABLE,
        ),
    ] {
        group.bench_function(bench_name, |bench| {
            bench.iter(|| {
                let aggregate = store
                    .aggregate_column_statistics("hive", "bench", table, &names, &columns, "hive")
                    .expect("aggregate");
                assert_eq!(aggregate.partitions_found, PARTITION_COUNT as i64);
                black_box(aggregate)
            })
        });
    }
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
                        PLAIN_TABLE,
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
                let partitions = start..start + WRITE_BATCH_LEN;
                write_batch(&store, PLAIN_TABLE, partitions, READ_COLUMN_COUNT);
                start = (start + WRITE_BATCH_LEN) % PARTITION_COUNT;
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench_statistics);
criterion_main!(benches);
