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
//! Run: `cargo bench -p hivestore-benches --bench stats`; `HIVESTORE_BENCH_RECENT_SLOTS=0`
//! makes every write rewrite its chunks whole, as before recent slots (the "before" figures).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "common/stats_data.rs"]
mod stats_data;

use stats_data::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench_statistics(criterion: &mut Criterion) {
    let directory = tempfile::tempdir().expect("temp dir");
    let store = build_store(directory.path(), PARTITION_COUNT, COLUMN_COUNT);
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
    // Issue 30's ANALYZE after every insert: one partition a write, the next one each time.
    group.throughput(Throughput::Elements(1));
    group.bench_function(
        "update_partition_column_statistics/1_partition/20_columns",
        |bench| {
            let mut next = 0;
            bench.iter(|| {
                write_batch(&store, PLAIN_TABLE, next..next + 1, READ_COLUMN_COUNT);
                next = (next + 1) % PARTITION_COUNT;
            })
        },
    );
    // A planner's read right after such a write: the chunks the write changed are read again
    // (with their deltas), the others are the kept ones.
    group.bench_function(
        "get_aggr_stats_for/10k_partitions/50_columns/after_a_1_partition_write",
        |bench| {
            let mut next = 0;
            bench.iter(|| {
                write_batch(&store, PLAIN_TABLE, next..next + 1, READ_COLUMN_COUNT);
                next = (next + 1) % PARTITION_COUNT;
                let aggregate = store
                    .aggregate_column_statistics(
                        "hive",
                        "bench",
                        PLAIN_TABLE,
                        &names,
                        &columns,
                        "hive",
                    )
                    .expect("aggregate");
                black_box(aggregate)
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench_statistics);
criterion_main!(benches);
