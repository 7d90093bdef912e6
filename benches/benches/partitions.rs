//! Partition listings from the engine: the number this guards is listing
//! 100k partitions (2 keys, 20 columns) in milliseconds — by name (kept from
//! the last listing, and read again after a write), in full
//! (owned and read in place), and by filter (a leading-key range, which
//! becomes a key-range scan, and a condition on the second key, which is
//! evaluated on every key).
//!
//! The store is sled in a temp dir; writes are not synced (setup speed
//! only: reads do not depend on it).
//!
//! Run: `cargo bench -p hivestore-benches --bench partitions`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AddPartitionsOptions, Database, Durability, FieldSchema, Partition, PartitionSelection,
    StorageDescriptor, Store, StoreOptions, Table,
};

/// The partition counts measured.
const PARTITION_COUNTS: [usize; 2] = [10_000, 100_000];
/// Columns of the table (and of every partition).
const COLUMN_COUNT: usize = 20;
/// Partitions added per batch while setting up.
const SETUP_BATCH_LEN: usize = 10_000;
/// Hours per day: the second key's values.
const HOURS_PER_DAY: usize = 24;

fn column(name: String, type_name: &str) -> FieldSchema {
    FieldSchema {
        name,
        type_name: type_name.to_string(),
        comment: Some("a column".to_string()),
    }
}

/// A valid date for day number `day` (28-day months keep it simple).
fn date(day: usize) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        2000 + day / 336,
        1 + (day / 28) % 12,
        1 + day % 28
    )
}

fn build_store(directory: Option<&std::path::Path>, partition_count: usize) -> Store {
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = match directory {
        Some(directory) => Store::open(directory, options).expect("open the store"),
        None => Store::open_with_backend(Arc::new(MemoryBackend::new()), options)
            .expect("open the store"),
    };
    let database = Database {
        name: "bench".into(),
        ..Database::default()
    };
    store
        .create_database(database)
        .expect("create the database");
    let columns = (0..COLUMN_COUNT)
        .map(|i| column(format!("column_{i}"), "string"))
        .collect();
    let table = Table {
        table_name: "events".into(),
        db_name: "bench".into(),
        sd: Some(StorageDescriptor {
            cols: columns,
            input_format: Some(
                "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat".into(),
            ),
            output_format: Some(
                "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat".into(),
            ),
            num_buckets: -1,
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds".into(), "string"), column("hr".into(), "int")],
        ..Table::default()
    };
    store.create_table(table).expect("create the table");
    let options = AddPartitionsOptions::default();
    for start in (0..partition_count).step_by(SETUP_BATCH_LEN) {
        let end = (start + SETUP_BATCH_LEN).min(partition_count);
        let batch = (start..end)
            .map(|i| Partition {
                values: vec![date(i / HOURS_PER_DAY), (i % HOURS_PER_DAY).to_string()],
                ..Partition::default()
            })
            .collect();
        store
            .add_partitions("hive", "bench", "events", batch, &options)
            .expect("add partitions");
    }
    store
}

/// Adds a partition outside the listed days, or drops it again: one write to the table.
fn toggle_partition(store: &Store, present: bool) {
    let values = vec!["9999-12-31".to_string(), "0".to_string()];
    if present {
        store
            .drop_partition("hive", "bench", "events", &values, false)
            .expect("drop the toggled partition");
    } else {
        let partition = Partition {
            values,
            ..Partition::default()
        };
        let options = AddPartitionsOptions::default();
        store
            .add_partitions("hive", "bench", "events", vec![partition], &options)
            .expect("add the toggled partition");
    }
}

fn bench_listings(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("partitions");
    group.sample_size(10);
    let directory = tempfile::tempdir().expect("temp dir");
    let mut stores = Vec::new();
    for count in PARTITION_COUNTS {
        let path = directory.path().join(count.to_string());
        stores.push((
            format!("sled/{count}"),
            count,
            build_store(Some(&path), count),
        ));
    }
    // The in-memory backend separates the engine's cost from sled's.
    let count = PARTITION_COUNTS[PARTITION_COUNTS.len() - 1];
    stores.push((format!("memory/{count}"), count, build_store(None, count)));
    for (label, count, store) in &stores {
        let (label, count) = (label.as_str(), *count);
        let days = count / HOURS_PER_DAY;
        // About a tenth of the days: a key-range scan.
        let range_filter = format!(
            "ds >= '{}' and ds < '{}'",
            date(days / 2),
            date(days / 2 + days / 10)
        );
        group.bench_with_input(BenchmarkId::new("names", label), &count, |bench, _| {
            bench.iter(|| {
                black_box(
                    store
                        .list_partition_names("hive", "bench", "events", -1)
                        .unwrap(),
                )
            })
        });
        // The first listing after a write: the kept listing is stale and the names are
        // read from the store's keys (the setup's write is not timed).
        let mut toggled = false;
        group.bench_with_input(
            BenchmarkId::new("names_after_write", label),
            &count,
            |bench, _| {
                bench.iter_batched(
                    || {
                        toggle_partition(store, toggled);
                        toggled = !toggled;
                    },
                    |()| {
                        black_box(
                            store
                                .list_partition_names("hive", "bench", "events", -1)
                                .unwrap(),
                        )
                    },
                    criterion::BatchSize::PerIteration,
                )
            },
        );
        group.bench_with_input(BenchmarkId::new("all_owned", label), &count, |bench, _| {
            bench.iter(|| {
                black_box(
                    store
                        .list_partitions("hive", "bench", "events", -1)
                        .unwrap(),
                )
            })
        });
        group.bench_with_input(
            BenchmarkId::new("all_in_place", label),
            &count,
            |bench, _| {
                bench.iter(|| {
                    let views = store
                        .partition_views("hive", "bench", "events", PartitionSelection::All, -1)
                        .unwrap();
                    // As a writer would: each shared descriptor validated
                    // once, each record read in place.
                    let mut location_bytes = 0usize;
                    let mut last_descriptor = None;
                    for view in views.iter() {
                        let view = view.unwrap();
                        let record = view.record();
                        location_bytes += record.location.as_ref().map_or(0, |l| l.len());
                        let descriptor = view.descriptor_id();
                        if descriptor != last_descriptor {
                            black_box(view.descriptor().unwrap());
                            last_descriptor = descriptor;
                        }
                    }
                    black_box(location_bytes)
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("filter_leading_range", label),
            &count,
            |bench, _| {
                bench.iter(|| {
                    black_box(
                        store
                            .list_partitions_by_filter("hive", "bench", "events", &range_filter, -1)
                            .unwrap(),
                    )
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("filter_second_key_names", label),
            &count,
            |bench, _| {
                bench.iter(|| {
                    black_box(
                        store
                            .list_partition_names_by_filter("hive", "bench", "events", "hr = 3", -1)
                            .unwrap(),
                    )
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("count_filter_second_key", label),
            &count,
            |bench, _| {
                bench.iter(|| {
                    black_box(
                        store
                            .get_num_partitions_by_filter("hive", "bench", "events", "hr < 12")
                            .unwrap(),
                    )
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_listings);
criterion_main!(benches);
