//! The data of the statistics benches (`stats.rs`, and `stats_profile.rs` that runs one call
//! under a profiler): a table of `bigint` columns whose every partition has statistics, and
//! its twin whose every statistic carries a sparse HLL sketch.

// Each bench uses part of it.
#![allow(dead_code)]

use hivestore_engine::{
    AddPartitionsOptions, ColumnStatistics, Database, Durability, FieldSchema, Partition,
    StatsKind, StatsValue, StatsWriteOptions, StorageDescriptor, Store, StoreOptions, Table,
};

/// The table without sketches, and the one whose every statistic has an HLL sketch.
pub const PLAIN_TABLE: &str = "events";
pub const SKETCHED_TABLE: &str = "events_hll";

/// Partitions of the table.
pub const PARTITION_COUNT: usize = 10_000;
/// Columns of the table, all with statistics in every partition.
pub const COLUMN_COUNT: usize = 50;
/// Partitions and columns read back per `get_partitions_statistics_req`.
pub const READ_PARTITION_COUNT: usize = 1000;
pub const READ_COLUMN_COUNT: usize = 20;
/// Partitions per statistics write while setting up, and per measured write.
pub const WRITE_BATCH_LEN: usize = 500;

pub fn column_name(index: usize) -> String {
    format!("column_{index}")
}

pub fn partition_name(index: usize) -> String {
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
    let mut stats = ColumnStatistics::new(column_name(column), "bigint", StatsKind::Long);
    let base = (partition * 1000 + column) as i64;
    stats.low_value = Some(StatsValue::Integer(base));
    stats.high_value = Some(StatsValue::Integer(base + 500));
    stats.num_nulls = (partition % 13) as i64;
    stats.num_distinct_values = 100 + (partition % 50) as i64;
    stats
}

pub fn write_batch(store: &Store, table: &str, partitions: std::ops::Range<usize>, columns: usize) {
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
        ..StatsWriteOptions::default()
    };
    store
        .update_partition_column_statistics("hive", "bench", table, writes, &options)
        .expect("write statistics");
}

/// Adds partition `index` to `table` and writes its first statistics, `columns` of them.
pub fn add_analysed_partition(store: &Store, table: &str, index: usize, columns: usize) {
    let partition = Partition {
        values: vec![format!("{index:06}")],
        ..Partition::default()
    };
    store
        .add_partitions(
            "hive",
            "bench",
            table,
            vec![partition],
            &AddPartitionsOptions::default(),
        )
        .expect("add a partition");
    write_batch(store, table, index..index + 1, columns);
}

/// A store with both tables, `partition_count` partitions of `column_count` columns each, all
/// with statistics.
pub fn build_store(
    directory: &std::path::Path,
    partition_count: usize,
    column_count: usize,
) -> Store {
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Memory;
    // The figures of a store made before sled's log was compressed, for a before/after.
    options.compress_new_store = std::env::var_os("HIVESTORE_BENCH_UNCOMPRESSED").is_none();
    // HIVESTORE_BENCH_RECENT_SLOTS=0: every write rewrites its chunks, as before recent slots.
    if let Some(count) = std::env::var("HIVESTORE_BENCH_RECENT_SLOTS")
        .ok()
        .and_then(|count| count.parse().ok())
    {
        options.recent_slot_count_max = count;
    }
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
                cols: (0..column_count)
                    .map(|index| column(column_name(index)))
                    .collect(),
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds".into())],
            ..Table::default()
        };
        store.create_table(table).expect("create the table");
        let partitions = (0..partition_count)
            .map(|index| Partition {
                values: vec![format!("{index:06}")],
                ..Partition::default()
            })
            .collect();
        let options = AddPartitionsOptions::default();
        store
            .add_partitions("hive", "bench", name, partitions, &options)
            .expect("add partitions");
        for start in (0..partition_count).step_by(WRITE_BATCH_LEN) {
            let end = (start + WRITE_BATCH_LEN).min(partition_count);
            write_batch(&store, name, start..end, column_count);
        }
    }
    store
}
