//! Column statistics through the store: every kind round-trips at table and partition level,
//! writes are all-or-nothing, statistics follow their objects (drop, rename, alter), and
//! aggregation agrees with a naive fold over per-partition statistics.

use std::sync::Arc;

use hivestore_engine::events::{EventBody, EventFilter, EventKind};
use hivestore_engine::kv::{KeyRange, KvBackend, KvBytes, MemoryBackend, WriteBatch};
use hivestore_engine::{
    keys, AggregateStatistics, ColumnStatistics, CreationMetadata, Database, Durability, Error,
    FieldSchema, Partition, PartitionStatistics, SourceTable, StatsAccuracy, StatsDecimal,
    StatsKind, StatsValue, StatsWriteOptions, StorageDescriptor, Store, StoreOptions, Table,
    TransactionStatistics, COLUMN_STATS_ACCURATE,
};
use proptest::prelude::*;

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn table_columns() -> Vec<FieldSchema> {
    vec![
        column("b", "boolean"),
        column("l", "bigint"),
        column("d", "double"),
        column("s", "string"),
        column("bin", "binary"),
        column("dec", "decimal(10,2)"),
        column("dt", "date"),
        column("ts", "timestamp"),
    ]
}

fn setup() -> Store {
    setup_on(Arc::new(MemoryBackend::new()))
}

fn open_on(backend: Arc<dyn KvBackend>) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(backend, options).unwrap()
}

/// A store on `backend` with database `db`, unpartitioned table `t` and table `p` partitioned
/// by `ds`, each of [`table_columns`].
fn setup_on(backend: Arc<dyn KvBackend>) -> Store {
    let store = open_on(backend);
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    for (name, keys) in [("t", vec![]), ("p", vec![column("ds", "string")])] {
        store
            .create_table(Table {
                table_name: name.to_string(),
                db_name: "db".to_string(),
                sd: Some(StorageDescriptor {
                    cols: table_columns(),
                    ..StorageDescriptor::default()
                }),
                partition_keys: keys,
                ..Table::default()
            })
            .unwrap();
    }
    store
}

fn add_partitions(store: &Store, count: usize) -> Vec<String> {
    let partitions = (0..count)
        .map(|index| Partition {
            values: vec![format!("{index:04}")],
            ..Partition::default()
        })
        .collect();
    store
        .add_partitions("hive", "db", "p", partitions, &Default::default())
        .unwrap();
    (0..count).map(|index| format!("ds={index:04}")).collect()
}

fn options(merge: bool) -> StatsWriteOptions {
    StatsWriteOptions {
        engine: "hive".to_string(),
        merge,
        last_analyzed: 1_700_000_000,
        ..StatsWriteOptions::default()
    }
}

/// One statistics value of every kind, numbers derived from `seed`.
fn every_kind(seed: i64) -> Vec<ColumnStatistics> {
    let mut result = Vec::new();
    let mut boolean = ColumnStatistics::new("b", "boolean", StatsKind::Boolean);
    boolean.num_trues = seed;
    boolean.num_falses = 2 * seed;
    boolean.num_nulls = 1;
    result.push(boolean);
    for (name, type_name, kind) in [
        ("l", "bigint", StatsKind::Long),
        ("dt", "date", StatsKind::Date),
        ("ts", "timestamp", StatsKind::Timestamp),
    ] {
        let mut stats = ColumnStatistics::new(name, type_name, kind);
        stats.low_value = Some(StatsValue::Integer(-seed));
        stats.high_value = Some(StatsValue::Integer(seed * 10));
        stats.num_distinct_values = seed;
        stats.bit_vectors = Some(b"HLL\x00sketch".to_vec());
        stats.histogram = Some(vec![seed as u8; 3]);
        result.push(stats);
    }
    let mut double = ColumnStatistics::new("d", "double", StatsKind::Double);
    double.low_value = Some(StatsValue::Double(-0.5 * seed as f64));
    double.num_distinct_values = 4;
    result.push(double);
    let mut string = ColumnStatistics::new("s", "string", StatsKind::String);
    string.max_length = seed;
    string.avg_length = seed as f64 / 3.0;
    string.num_distinct_values = 9;
    result.push(string);
    let mut binary = ColumnStatistics::new("bin", "binary", StatsKind::Binary);
    binary.max_length = 100;
    binary.avg_length = 7.5;
    result.push(binary);
    let mut decimal = ColumnStatistics::new("dec", "decimal(10,2)", StatsKind::Decimal);
    decimal.low_value = Some(StatsValue::Decimal(StatsDecimal {
        unscaled: vec![0x80, 0x01],
        scale: 2,
    }));
    decimal.high_value = Some(StatsValue::Decimal(StatsDecimal {
        unscaled: vec![0x7F],
        scale: 2,
    }));
    result.push(decimal);
    result
}

fn names(stats: &[ColumnStatistics]) -> Vec<String> {
    stats
        .iter()
        .map(|stat| stat.column_name.to_string())
        .collect()
}

#[test]
fn table_statistics_of_every_kind_round_trip() {
    let store = setup();
    let written = every_kind(5);
    store
        .update_table_column_statistics("hive", "db", "t", written.clone(), &options(false))
        .unwrap();
    let read = store
        .table_column_statistics("hive", "DB", "T", &names(&written), "hive", true)
        .unwrap();
    assert_eq!(read.stats, written);
    assert_eq!(read.last_analyzed, 1_700_000_000);
    let other_engine = store
        .table_column_statistics("hive", "db", "t", &names(&written), "impala", true)
        .unwrap();
    assert!(other_engine.stats.is_empty());
    let table = store.get_table("hive", "db", "t").unwrap();
    let accuracy = StatsAccuracy::parse(
        table
            .parameters
            .get(COLUMN_STATS_ACCURATE)
            .map(String::as_str),
    );
    assert_eq!(accuracy.columns.len(), written.len());
}

#[test]
fn statistics_of_a_missing_column_are_refused() {
    let store = setup();
    let stats = vec![ColumnStatistics::new("nope", "int", StatsKind::Long)];
    let error = store
        .update_table_column_statistics("hive", "db", "t", stats, &options(false))
        .unwrap_err();
    assert_eq!(
        error,
        Error::Refused("Column nope doesn't exist in table t in database db".to_string())
    );
}

#[test]
fn partition_statistics_round_trip_and_are_all_or_nothing() {
    let store = setup();
    let partitions = add_partitions(&store, 300);
    let writes: Vec<(String, Vec<ColumnStatistics>)> = partitions
        .iter()
        .enumerate()
        .map(|(index, name)| (name.clone(), every_kind(index as i64 + 1)))
        .collect();
    store
        .update_partition_column_statistics("hive", "db", "p", writes.clone(), &options(false))
        .unwrap();
    let columns = names(&writes[0].1);
    let read = store
        .partition_column_statistics("hive", "db", "p", &partitions, &columns, "hive", true)
        .unwrap();
    assert_eq!(read.len(), 300);
    for (partition, (name, stats)) in read.iter().zip(&writes) {
        assert_eq!(&partition.partition_name, name);
        assert_eq!(&partition.stats, stats);
    }
    // A batch naming a missing partition changes nothing.
    let bad = vec![
        (partitions[0].clone(), every_kind(99)),
        ("ds=missing".to_string(), every_kind(99)),
    ];
    let error = store
        .update_partition_column_statistics("hive", "db", "p", bad, &options(false))
        .unwrap_err();
    assert!(matches!(error, Error::NoSuchObject(_)), "{error}");
    let again = store
        .partition_column_statistics("hive", "db", "p", &partitions[..1], &columns, "hive", true)
        .unwrap();
    assert_eq!(again[0].stats, writes[0].1);
}

#[test]
fn partition_statistics_log_one_event_per_partition_with_its_own_content() {
    let store = setup();
    let partitions = add_partitions(&store, 3);
    let before = store.current_event_id().unwrap();
    // The second partition is named twice: its event carries both entries as sent.
    let writes: Vec<(String, Vec<ColumnStatistics>)> = vec![
        (partitions[0].clone(), every_kind(1)),
        (partitions[1].clone(), every_kind(2)[..2].to_vec()),
        (partitions[2].clone(), every_kind(3)[..1].to_vec()),
        (partitions[1].clone(), every_kind(4)[2..3].to_vec()),
    ];
    store
        .update_partition_column_statistics("hive", "db", "p", writes.clone(), &options(false))
        .unwrap();
    let events = store
        .next_events(before, 100, &EventFilter::default())
        .unwrap();
    assert_eq!(events.len(), 3);
    let table = store.get_table("hive", "db", "p").unwrap();
    let mut second_sent = writes[1].1.clone();
    second_sent.extend(writes[3].1.clone());
    let expected_sent = [writes[0].1.clone(), second_sent, writes[2].1.clone()];
    for (index, event) in events.iter().enumerate() {
        let record = &event.record;
        assert_eq!(record.kind, EventKind::UpdatePartitionColumnStat);
        assert_eq!(
            (record.db_name.as_str(), record.table_name.as_str()),
            ("db", "p")
        );
        let EventBody::Statistics {
            table: logged_table,
            partition_values,
            statistics,
            columns,
            engine,
            parameters,
        } = &record.body
        else {
            panic!("not a statistics body: {:?}", record.body);
        };
        let values = vec![format!("{index:04}")];
        let partition = store.get_partition("hive", "db", "p", &values).unwrap();
        assert_eq!(logged_table, &table);
        assert_eq!(partition_values.as_ref(), Some(&values));
        assert_eq!(statistics, &expected_sent[index]);
        assert!(columns.is_empty());
        assert_eq!(engine, "hive");
        assert_eq!(parameters, &partition.parameters);
        assert!(parameters.contains_key(COLUMN_STATS_ACCURATE));
    }
}

#[test]
fn statistics_follow_partitions_and_tables() {
    let store = setup();
    let partitions = add_partitions(&store, 3);
    let writes = partitions
        .iter()
        .map(|name| (name.clone(), every_kind(2)))
        .collect();
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
        .unwrap();
    let columns = vec!["l".to_string()];
    // Rename keeps them.
    store
        .rename_partition(
            "hive",
            "db",
            "p",
            &["0000".to_string()],
            Partition {
                values: vec!["renamed".to_string()],
                ..Partition::default()
            },
        )
        .unwrap();
    let read = store
        .partition_column_statistics(
            "hive",
            "db",
            "p",
            &["ds=renamed".to_string()],
            &columns,
            "hive",
            true,
        )
        .unwrap();
    assert_eq!(read.len(), 1);
    // Drop removes them; re-adding the partition brings none back.
    store
        .drop_partition("hive", "db", "p", &["0001".to_string()], false)
        .unwrap();
    add_partitions(&store, 2);
    let read = store
        .partition_column_statistics("hive", "db", "p", &partitions, &columns, "hive", true)
        .unwrap();
    assert_eq!(read.len(), 1, "only ds=0002 keeps statistics");
    assert_eq!(read[0].partition_name, "ds=0002");
    // Alter dropping a column drops its table-level statistics; partitions keep their own
    // columns (no cascade), so theirs stay.
    store
        .update_table_column_statistics("hive", "db", "p", every_kind(1), &options(false))
        .unwrap();
    let mut table = store.get_table("hive", "db", "p").unwrap();
    // (The last column: dropping one in the middle shifts types, which Hive refuses.)
    table
        .sd
        .as_mut()
        .unwrap()
        .cols
        .retain(|column| column.name != "ts");
    store.alter_table("hive", "db", "p", table).unwrap();
    let all = names(&every_kind(1));
    let table_level = store
        .table_column_statistics("hive", "db", "p", &all, "hive", true)
        .unwrap();
    assert!(!names(&table_level.stats).contains(&"ts".to_string()));
    assert_eq!(table_level.stats.len(), 7);
    let accuracy = StatsAccuracy::parse(
        store
            .get_table("hive", "db", "p")
            .unwrap()
            .parameters
            .get(COLUMN_STATS_ACCURATE)
            .map(String::as_str),
    );
    assert!(!accuracy.columns.contains("ts"));
    let read = store
        .partition_column_statistics(
            "hive",
            "db",
            "p",
            &["ds=0002".to_string()],
            &all,
            "hive",
            true,
        )
        .unwrap();
    assert_eq!(read[0].stats.len(), 8);
    // Drop table leaves no statistics key behind.
    store.drop_table("hive", "db", "p").unwrap();
    for keyspace in [
        keys::KEYSPACE_STATS_SLOT,
        keys::KEYSPACE_STATS_CHUNK,
        keys::KEYSPACE_STATS_RECENT,
        keys::KEYSPACE_STATS_SKETCH,
        keys::KEYSPACE_TABLE_STATS,
    ] {
        let left =
            hivestore_engine::kv::scan(store.backend().as_ref(), KeyRange::prefix(&[keyspace]), 16)
                .count();
        assert_eq!(left, 0, "keyspace {keyspace:#04x}");
    }
}

#[test]
fn merge_keeps_accurate_columns_only() {
    let store = setup();
    let partitions = add_partitions(&store, 1);
    let mut first = ColumnStatistics::new("l", "bigint", StatsKind::Long);
    first.low_value = Some(StatsValue::Integer(5));
    first.high_value = Some(StatsValue::Integer(10));
    first.num_nulls = 1;
    let write = |stats: Vec<ColumnStatistics>, merge: bool| {
        store
            .update_partition_column_statistics(
                "hive",
                "db",
                "p",
                vec![(partitions[0].clone(), stats)],
                &options(merge),
            )
            .unwrap()
    };
    write(vec![first.clone()], false);
    let mut second = first.clone();
    second.low_value = Some(StatsValue::Integer(1));
    second.high_value = Some(StatsValue::Integer(7));
    let mut unmarked = ColumnStatistics::new("s", "string", StatsKind::String);
    unmarked.max_length = 3;
    write(vec![second, unmarked], true);
    let read = store
        .partition_column_statistics(
            "hive",
            "db",
            "p",
            &partitions,
            &["l".to_string(), "s".to_string()],
            "hive",
            true,
        )
        .unwrap();
    let stats = &read[0].stats;
    assert_eq!(stats.len(), 1, "s was not accurate, so the merge skips it");
    assert_eq!(stats[0].low_value, Some(StatsValue::Integer(1)));
    assert_eq!(stats[0].high_value, Some(StatsValue::Integer(10)));
    assert_eq!(stats[0].num_nulls, 2);
}

#[test]
fn deletes_remove_statistics_and_fail_when_there_are_none() {
    let store = setup();
    store
        .update_table_column_statistics("hive", "db", "t", every_kind(1), &options(false))
        .unwrap();
    store
        .delete_table_column_statistics("hive", "db", "t", Some("l"), "hive")
        .unwrap();
    let error = store
        .delete_table_column_statistics("hive", "db", "t", Some("l"), "hive")
        .unwrap_err();
    assert!(matches!(error, Error::NoSuchObject(_)), "{error}");
    let left = store
        .table_column_statistics("hive", "db", "t", &names(&every_kind(1)), "hive", true)
        .unwrap();
    assert_eq!(left.stats.len(), 7);
    store
        .delete_table_column_statistics("hive", "db", "t", None, "hive")
        .unwrap();
    // Again, with nothing left: Hive answers true.
    store
        .delete_table_column_statistics("hive", "db", "t", None, "hive")
        .unwrap();
    let table = store.get_table("hive", "db", "t").unwrap();
    assert_eq!(
        table
            .parameters
            .get(COLUMN_STATS_ACCURATE)
            .map(String::as_str),
        Some("{}")
    );
}

/// What a naive fold over per-partition statistics gives when every partition has them.
fn naive_fold(stats: &[ColumnStatistics]) -> (i64, i64, i64, i64, i64) {
    let low = stats
        .iter()
        .filter_map(|stat| match stat.low_value {
            Some(StatsValue::Integer(value)) => Some(value),
            _ => None,
        })
        .min()
        .unwrap();
    let high = stats
        .iter()
        .filter_map(|stat| match stat.high_value {
            Some(StatsValue::Integer(value)) => Some(value),
            _ => None,
        })
        .max()
        .unwrap();
    let nulls = stats.iter().map(|stat| stat.num_nulls).sum();
    let ndv = stats
        .iter()
        .map(|stat| stat.num_distinct_values)
        .max()
        .unwrap();
    let ndv = ndv.min(high - low + 1);
    let max_length = 0;
    (low, high, nulls, ndv, max_length)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn aggregation_equals_a_naive_fold(
        rows in proptest::collection::vec((-1000i64..1000, 0i64..500, 0i64..100, 0i64..300), 1..200),
    ) {
        // Goal: with every requested partition holding statistics, the columnar fold equals a
        // fold over the per-partition values, on the first call and on the next (from the
        // kept chunks). Method: random long statistics per partition.
        let store = setup();
        let partitions = add_partitions(&store, rows.len());
        let stats: Vec<ColumnStatistics> = rows
            .iter()
            .map(|(low, span, nulls, ndv)| {
                let mut stat = ColumnStatistics::new("l", "bigint", StatsKind::Long);
                stat.low_value = Some(StatsValue::Integer(*low));
                stat.high_value = Some(StatsValue::Integer(low + span));
                stat.num_nulls = *nulls;
                stat.num_distinct_values = *ndv;
                stat
            })
            .collect();
        let writes = partitions.iter().cloned().zip(stats.iter().map(|stat| vec![stat.clone()])).collect();
        store.update_partition_column_statistics("hive", "db", "p", writes, &options(false)).unwrap();
        let aggregate = store
            .aggregate_column_statistics("hive", "db", "p", &partitions, &["L".to_string()], "hive")
            .unwrap();
        // Again, from the chunks the first call kept (stored values read in place).
        let kept = store
            .aggregate_column_statistics("hive", "db", "p", &partitions, &["L".to_string()], "hive")
            .unwrap();
        prop_assert_eq!(&kept, &aggregate);
        prop_assert_eq!(aggregate.partitions_found, rows.len() as i64);
        let (low, high, nulls, ndv, _) = naive_fold(&stats);
        let result = &aggregate.stats[0];
        prop_assert_eq!(&result.low_value, &Some(StatsValue::Integer(low)));
        prop_assert_eq!(&result.high_value, &Some(StatsValue::Integer(high)));
        prop_assert_eq!(result.num_nulls, nulls);
        prop_assert_eq!(result.num_distinct_values, ndv);
    }
}

#[test]
fn aggregation_extrapolates_when_some_partitions_lack_statistics() {
    // Goal: Hive's linear extrapolation. Six partitions requested; statistics on positions 1
    // and 3 only, growing by 10 per position.
    let store = setup();
    let partitions = add_partitions(&store, 6);
    let stat = |low: i64, nulls: i64| {
        let mut stat = ColumnStatistics::new("l", "bigint", StatsKind::Long);
        stat.low_value = Some(StatsValue::Integer(low));
        stat.high_value = Some(StatsValue::Integer(low + 5));
        stat.num_nulls = nulls;
        stat.num_distinct_values = 1000;
        vec![stat]
    };
    let writes = vec![
        (partitions[1].clone(), stat(10, 3)),
        (partitions[3].clone(), stat(30, 4)),
    ];
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
        .unwrap();
    let aggregate = store
        .aggregate_column_statistics("hive", "db", "p", &partitions, &["l".to_string()], "hive")
        .unwrap();
    assert_eq!(aggregate.partitions_found, 2);
    let result = &aggregate.stats[0];
    assert_eq!(result.low_value, Some(StatsValue::Integer(0)));
    assert_eq!(result.high_value, Some(StatsValue::Integer(55)));
    assert_eq!(
        result.num_nulls,
        3 * 6,
        "7 / 2 = 3 in integer division, times 6"
    );
    assert_eq!(result.num_distinct_values, 56, "capped at high - low + 1");
}

#[test]
fn aggregation_over_many_partitions_sees_later_writes_drops_and_renames() {
    // Goal: the slot index kept by a large aggregation (at least 256 names) never outlives
    // the partitions it resolved. Method: aggregate, then write, drop and rename, aggregating
    // again after each change.
    let store = setup();
    let names = add_partitions(&store, 300);
    let write = |partition: &str| {
        let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
        stats.num_nulls = 1;
        let writes = vec![(partition.to_string(), vec![stats])];
        store
            .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
            .unwrap();
    };
    for name in &names[..200] {
        write(name);
    }
    let columns = vec!["l".to_string()];
    let found = |names: &[String]| {
        let aggregate = store
            .aggregate_column_statistics("hive", "db", "p", names, &columns, "hive")
            .unwrap();
        (aggregate.partitions_found, aggregate.stats[0].num_nulls)
    };
    assert_eq!(found(&names[..260]).0, 200);
    write(&names[250]);
    assert_eq!(found(&names[..260]).0, 201);
    let dropped = vec![vec!["0007".to_string()]];
    store
        .drop_partitions("hive", "db", "p", &dropped, &Default::default())
        .unwrap();
    assert_eq!(found(&names[..260]).0, 200);
    let renamed = Partition {
        values: vec!["0300".to_string()],
        ..Partition::default()
    };
    store
        .rename_partition("hive", "db", "p", &["0008".to_string()], renamed)
        .unwrap();
    assert_eq!(found(&names[..260]).0, 199);
    let mut with_renamed = names[..260].to_vec();
    with_renamed.push("ds=0300".to_string());
    assert_eq!(found(&with_renamed).0, 200);
}

/// A sparse HLL of precision 10 in Hive's bytes, holding `keys` (each with run length 1).
/// Keys below 16 fall in distinct buckets of Java's map in key order, which Hive writes.
fn sparse_hll(keys: &[u32]) -> Vec<u8> {
    fn varint(bytes: &mut Vec<u8>, value: i64) {
        let mut value = value as u64;
        while value >= 0x80 {
            bytes.push(0x80 | (value & 0x7F) as u8);
            value >>= 7;
        }
        bytes.push(value as u8);
    }
    let mut bytes = b"HLL".to_vec();
    bytes.push(10 << 4);
    varint(&mut bytes, keys.len() as i64);
    varint(&mut bytes, keys.len() as i64);
    let mut previous = 0i64;
    for key in keys {
        let entry = i64::from(key << 6 | 1);
        varint(
            &mut bytes,
            if previous == 0 {
                entry
            } else {
                entry - previous
            },
        );
        previous = entry;
    }
    bytes
}

#[test]
fn aggregation_merges_the_partitions_hll_sketches() {
    // Goal: when every partition has a sketch, the NDV is that of their union (Hive's Java
    // aggregators), not the greatest partition NDV. Method: three partitions whose sketches
    // hold keys {1,2,3}, {3,4} and {5} (NDV 3, 2, 1): the union holds 5, and a sparse HLL
    // estimates 5 by linear counting. A partition without a sketch brings back the max.
    let store = setup();
    let names = add_partitions(&store, 4);
    let key_sets: [&[u32]; 4] = [&[1, 2, 3], &[3, 4], &[5], &[6]];
    let writes = names
        .iter()
        .zip(key_sets)
        .map(|(name, keys)| {
            let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
            stats.low_value = Some(StatsValue::Integer(0));
            stats.high_value = Some(StatsValue::Integer(2));
            stats.num_distinct_values = keys.len() as i64;
            if name != &names[3] {
                stats.bit_vectors = Some(sparse_hll(keys));
            }
            (name.clone(), vec![stats])
        })
        .collect();
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
        .unwrap();
    let columns = vec!["l".to_string()];
    let aggregate = |names: &[String]| {
        store
            .aggregate_column_statistics("hive", "db", "p", names, &columns, "hive")
            .unwrap()
            .stats[0]
            .num_distinct_values
    };
    // Not capped at high - low + 1 = 3: Hive's Java path takes the sketch estimate as it is.
    assert_eq!(aggregate(&names[..3]), 5);
    assert_eq!(aggregate(&names[1..3]), 3);
    assert_eq!(
        aggregate(&names),
        3,
        "one partition lacks a sketch: max NDV, capped"
    );
}

fn transaction_counts(inserted: i64, updated: i64, deleted: i64) -> TransactionStatistics {
    TransactionStatistics {
        inserted_count: inserted,
        updated_count: updated,
        deleted_count: deleted,
    }
}

fn table_id(store: &Store, name: &str) -> i64 {
    store.get_table("hive", "db", name).unwrap().id
}

#[test]
fn transaction_statistics_add_up_and_follow_their_table() {
    // Goal: update_transaction_statistics adds to the table's totals, which stay with its id
    // through a rename and go with a drop. Method: two updates, a rename, a drop.
    let store = setup();
    let id = table_id(&store, "p");
    store
        .update_transaction_statistics(id, transaction_counts(3, 1, 0))
        .unwrap();
    store
        .update_transaction_statistics(id, transaction_counts(2, 0, 5))
        .unwrap();
    assert_eq!(
        store.transaction_statistics(id).unwrap(),
        transaction_counts(5, 1, 5)
    );
    assert_eq!(
        store.transaction_statistics(table_id(&store, "t")).unwrap(),
        transaction_counts(0, 0, 0)
    );
    let mut renamed = store.get_table("hive", "db", "p").unwrap();
    renamed.table_name = "p2".to_string();
    store.alter_table("hive", "db", "p", renamed).unwrap();
    assert_eq!(
        store.transaction_statistics(id).unwrap(),
        transaction_counts(5, 1, 5)
    );
    store.drop_table("hive", "db", "p2").unwrap();
    assert_eq!(
        store.transaction_statistics(id).unwrap(),
        transaction_counts(0, 0, 0)
    );
}

/// A materialized view of `sources` (name and counts), or of `used` names when `sources` is
/// `None`.
fn create_view(
    store: &Store,
    name: &str,
    sources: Option<&[(&str, TransactionStatistics)]>,
    used: &[&str],
) -> hivestore_engine::Result<Table> {
    let source = |(table, counts): &(&str, TransactionStatistics)| SourceTable {
        table: Table {
            db_name: "db".to_string(),
            table_name: table.to_string(),
            ..Table::default()
        },
        inserted_count: counts.inserted_count,
        updated_count: counts.updated_count,
        deleted_count: counts.deleted_count,
    };
    store.create_table(Table {
        table_name: name.to_string(),
        db_name: "db".to_string(),
        table_type: Some(hivestore_engine::MATERIALIZED_VIEW.to_string()),
        view_original_text: Some("select 1".to_string()),
        view_expanded_text: Some("select 1".to_string()),
        sd: Some(StorageDescriptor {
            cols: table_columns(),
            ..StorageDescriptor::default()
        }),
        creation_metadata: Some(CreationMetadata {
            cat_name: "hive".to_string(),
            db_name: "db".to_string(),
            tbl_name: name.to_string(),
            tables_used: used.iter().map(|used| used.to_string()).collect(),
            source_tables: sources.map(|sources| sources.iter().map(source).collect()),
            ..CreationMetadata::default()
        }),
        ..Table::default()
    })
}

/// The view's sources as read back: qualified names and counts, and its `tables_used`.
fn view_sources(store: &Store, view: &str) -> (Vec<(String, TransactionStatistics)>, Vec<String>) {
    let metadata = store
        .get_table("hive", "db", view)
        .unwrap()
        .creation_metadata
        .unwrap();
    let sources = metadata.source_tables.unwrap_or_default();
    let named = sources
        .into_iter()
        .map(|source| {
            let name = format!("{}.{}", source.table.db_name, source.table.table_name);
            let counts = transaction_counts(
                source.inserted_count,
                source.updated_count,
                source.deleted_count,
            );
            (name, counts)
        })
        .collect();
    (named, metadata.tables_used)
}

#[test]
fn a_materialized_views_source_counts_grow_with_its_tables_transactions() {
    // Goal: as Hive's MV_TABLES_USED rows, a view's sources keep the counts it was created
    // with (zeros from tablesUsed alone), grow by update_transaction_statistics of their
    // table from then on, follow a rename, and must exist. Method: views over p and t, updates
    // before and after, a rename, a view of a missing table.
    let store = setup();
    let p = table_id(&store, "p");
    store
        .update_transaction_statistics(p, transaction_counts(50, 0, 0))
        .unwrap();
    create_view(
        &store,
        "mv",
        Some(&[("P", transaction_counts(1, 2, 3))]),
        &[],
    )
    .unwrap();
    create_view(&store, "mv_used", None, &["db.t"]).unwrap();
    assert_eq!(
        view_sources(&store, "mv"),
        (
            vec![("db.p".to_string(), transaction_counts(1, 2, 3))],
            vec!["db.p".to_string()]
        )
    );
    store
        .update_transaction_statistics(p, transaction_counts(4, 1, 0))
        .unwrap();
    store
        .update_transaction_statistics(table_id(&store, "t"), transaction_counts(2, 0, 7))
        .unwrap();
    assert_eq!(
        view_sources(&store, "mv").0,
        vec![("db.p".to_string(), transaction_counts(5, 3, 3))]
    );
    assert_eq!(
        view_sources(&store, "mv_used").0,
        vec![("db.t".to_string(), transaction_counts(2, 0, 7))]
    );
    let mut renamed = store.get_table("hive", "db", "p").unwrap();
    renamed.table_name = "p2".to_string();
    store.alter_table("hive", "db", "p", renamed).unwrap();
    assert_eq!(
        view_sources(&store, "mv"),
        (
            vec![("db.p2".to_string(), transaction_counts(5, 3, 3))],
            vec!["db.p2".to_string()]
        )
    );
    let missing = create_view(&store, "mv_missing", None, &["db.nope"]).unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("Specified catalog.database.table does not exist : hive.db.nope"),
        "{missing}"
    );
    assert!(store.get_table("hive", "db", "mv_missing").is_err());
    // The record of a view is archived as any table's: its sources live apart.
    assert!(store
        .get_table_view("hive", "db", "mv")
        .unwrap()
        .to_owned()
        .unwrap()
        .creation_metadata
        .unwrap()
        .source_tables
        .is_none());
}

#[test]
fn a_rebuilt_materialized_view_takes_its_new_sources() {
    // Goal: update_creation_metadata (a rebuild) replaces a view's sources, snapshot and
    // time; the new counts grow from the table totals at the rebuild; a missing source, a
    // missing view or a table that is not a view is refused and changes nothing.
    let store = setup();
    let (p, t) = (table_id(&store, "p"), table_id(&store, "t"));
    create_view(
        &store,
        "mv",
        Some(&[("p", transaction_counts(1, 0, 0))]),
        &[],
    )
    .unwrap();
    store
        .update_transaction_statistics(t, transaction_counts(9, 9, 9))
        .unwrap();
    let rebuilt = |sources: &[&str]| CreationMetadata {
        cat_name: "ignored".to_string(),
        db_name: "ignored".to_string(),
        tbl_name: "ignored".to_string(),
        tables_used: sources.iter().map(|name| format!("db.{name}")).collect(),
        valid_txn_list: Some("7:9223372036854775807::".to_string()),
        materialization_time: Some(1_700_000_000_000),
        source_tables: None,
    };
    store
        .update_creation_metadata("hive", "DB", "MV", rebuilt(&["t"]))
        .unwrap();
    store
        .update_transaction_statistics(t, transaction_counts(2, 0, 1))
        .unwrap();
    store
        .update_transaction_statistics(p, transaction_counts(5, 0, 0))
        .unwrap();
    assert_eq!(
        view_sources(&store, "mv"),
        (
            vec![("db.t".to_string(), transaction_counts(2, 0, 1))],
            vec!["db.t".to_string()]
        )
    );
    let metadata = store
        .get_table("hive", "db", "mv")
        .unwrap()
        .creation_metadata
        .unwrap();
    assert_eq!(
        (
            metadata.cat_name.as_str(),
            metadata.db_name.as_str(),
            metadata.tbl_name.as_str()
        ),
        ("hive", "db", "mv")
    );
    assert_eq!(
        metadata.valid_txn_list.as_deref(),
        Some("7:9223372036854775807::")
    );
    assert_eq!(metadata.materialization_time, Some(1_700_000_000_000));

    let before = store.get_table("hive", "db", "mv").unwrap();
    let missing_source = store
        .update_creation_metadata("hive", "db", "mv", rebuilt(&["t", "nope"]))
        .unwrap_err();
    assert!(
        missing_source
            .to_string()
            .contains("Specified catalog.database.table does not exist : hive.db.nope"),
        "{missing_source}"
    );
    let not_a_view = store
        .update_creation_metadata("hive", "db", "t", rebuilt(&["p"]))
        .unwrap_err();
    assert!(
        matches!(not_a_view, Error::InvalidOperation(_)),
        "{not_a_view:?}"
    );
    let no_view = store
        .update_creation_metadata("hive", "db", "gone", rebuilt(&["p"]))
        .unwrap_err();
    assert!(matches!(no_view, Error::NoSuchObject(_)), "{no_view:?}");
    assert_eq!(store.get_table("hive", "db", "mv").unwrap(), before);
    assert!(store
        .get_table("hive", "db", "t")
        .unwrap()
        .creation_metadata
        .is_none());
}

#[test]
fn transaction_statistics_of_an_unknown_table_id_change_nothing() {
    // Goal: as Hive's UPDATE of no row, an id of no table is a success that stores nothing.
    let store = setup();
    let before =
        hivestore_engine::kv::scan(store.backend().as_ref(), KeyRange::all(), 1000).count();
    for id in [4242, -7, 0] {
        store
            .update_transaction_statistics(id, transaction_counts(1, 1, 1))
            .unwrap();
        assert_eq!(
            store.transaction_statistics(id).unwrap(),
            transaction_counts(0, 0, 0)
        );
    }
    let after = hivestore_engine::kv::scan(store.backend().as_ref(), KeyRange::all(), 1000).count();
    assert_eq!(before, after);
}

#[test]
fn negative_or_overflowing_transaction_counts_are_refused_and_change_nothing() {
    let store = setup();
    let id = table_id(&store, "t");
    store
        .update_transaction_statistics(id, transaction_counts(i64::MAX, 0, 0))
        .unwrap();
    let negative = store
        .update_transaction_statistics(id, transaction_counts(0, -1, 0))
        .unwrap_err();
    assert!(matches!(negative, Error::Refused(_)), "{negative:?}");
    assert!(
        negative.to_string().contains("updatedCount is -1"),
        "{negative}"
    );
    let overflow = store
        .update_transaction_statistics(id, transaction_counts(1, 1, 0))
        .unwrap_err();
    assert!(overflow.to_string().contains("insertCount"), "{overflow}");
    assert_eq!(
        store.transaction_statistics(id).unwrap(),
        transaction_counts(i64::MAX, 0, 0)
    );
}

/// One change of the kept chunks test below, applied to `store` (whose table `p` has partitions
/// `ds=0000`..`ds=0299`).
fn apply_change(store: &Store, step: usize) {
    let statistics = |partition: usize, shift: i64| {
        let mut long = ColumnStatistics::new("l", "bigint", StatsKind::Long);
        long.low_value = Some(StatsValue::Integer(partition as i64 + shift));
        long.high_value = Some(StatsValue::Integer(partition as i64 * 2 + shift));
        long.num_nulls = 1 + shift;
        long.num_distinct_values = 10;
        long.bit_vectors = Some(sparse_hll(&[partition as u32 % 64, 70]));
        let mut double = ColumnStatistics::new("d", "double", StatsKind::Double);
        double.low_value = Some(StatsValue::Double(-(partition as f64) / 3.0));
        double.high_value = Some(StatsValue::Double(partition as f64 + shift as f64));
        double.num_distinct_values = 5;
        vec![long, double]
    };
    let write = |partitions: &[usize], shift: i64| {
        let writes = partitions
            .iter()
            .map(|partition| (format!("ds={partition:04}"), statistics(*partition, shift)))
            .collect();
        store
            .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
            .unwrap();
    };
    match step {
        0 => write(&(0..300).collect::<Vec<_>>(), 0),
        1 => write(&[5, 140], 7),
        2 => store
            .delete_partition_column_statistics("hive", "db", "p", "ds=0006", Some("l"), "hive")
            .unwrap(),
        3 => {
            store
                .drop_partition("hive", "db", "p", &["0007".to_string()], false)
                .unwrap();
        }
        4 => {
            let renamed = Partition {
                values: vec!["0400".to_string()],
                ..Partition::default()
            };
            store
                .rename_partition("hive", "db", "p", &["0008".to_string()], renamed)
                .unwrap();
        }
        5 => {
            let mut table = store.get_table("hive", "db", "p").unwrap();
            let columns = &mut table.sd.as_mut().unwrap().cols;
            columns.retain(|column| column.name != "ts");
            store.alter_table("hive", "db", "p", table).unwrap();
        }
        6 => {
            let mut table = store.get_table("hive", "db", "p").unwrap();
            store.drop_table("hive", "db", "p").unwrap();
            table.parameters.clear();
            store.create_table(table).unwrap();
            add_partitions(store, 300);
        }

        7 => write(&[1, 2, 3], 2),
        8 => {
            let writes = [140, 260, 299]
                .iter()
                .map(|partition| (format!("ds={partition:04}"), statistics(*partition, 9)))
                .collect();
            store
                .update_partition_column_statistics("hive", "db", "p", writes, &options(true))
                .unwrap();
        }
        9 => {
            let mut table = store.get_table("hive", "db", "p").unwrap();
            let columns = &mut table.sd.as_mut().unwrap().cols;
            let retyped = columns
                .iter_mut()
                .find(|column| column.name == "d")
                .unwrap();
            retyped.type_name = "string".to_string();
            store.alter_table("hive", "db", "p", table).unwrap();
        }
        10 => {
            for (from, to) in [("p", "q"), ("q", "p")] {
                let mut table = store.get_table("hive", "db", from).unwrap();
                table.table_name = to.to_string();
                store.alter_table("hive", "db", from, table).unwrap();
            }
        }
        11 => store
            .delete_partition_column_statistics("hive", "db", "p", "ds=0130", None, "hive")
            .unwrap(),
        12 => {
            store.truncate_table("hive", "db", "p").unwrap();
            for partition in 200..210 {
                let values = [format!("{partition:04}")];
                store
                    .drop_partition("hive", "db", "p", &values, false)
                    .unwrap();
            }
        }
        // Chunks 0 and 2 only, apart: read by a lookup each.
        13 => write(&[0, 256], 5),
        _ => unreachable!("no change {step}"),
    }
}

const KEPT_TEST_CHANGE_COUNT: usize = 14;

#[test]
fn kept_chunks_never_outlive_the_statistics_they_hold() {
    // Goal: the decoded chunks (and slot index) an aggregation or a partition read keeps
    // never answer a later read with statistics that changed: writes (replacing and merged),
    // deletes (of a column, of a partition's every column), partition drops and renames,
    // column alters (dropped, retyped), a table renamed and back, truncated, dropped and made
    // again; after a write, kept chunks it left are reused and the others read, by one scan
    // or one lookup each (`chunk_refresh.rs`). Method: one store aggregates after every change
    // (what it keeps warm, read twice); a fresh store that applies the same changes and reads
    // once is the oracle.
    let mut names: Vec<String> = (0..300).map(|index| format!("ds={index:04}")).collect();
    names.push("ds=0400".to_string());
    let columns = vec!["l".to_string(), "d".to_string()];
    // Partitions read before the aggregation (their chunks kept first, then widened by it)
    // and after it (read from its chunks).
    let read = |store: &Store, names: &[String]| {
        let read_partitions = || {
            store
                .partition_column_statistics(
                    "hive",
                    "db",
                    "p",
                    &names[..20],
                    &columns,
                    "hive",
                    true,
                )
                .unwrap()
        };
        let before = read_partitions();
        let aggregate = store
            .aggregate_column_statistics("hive", "db", "p", names, &columns, "hive")
            .unwrap();
        let partitions = read_partitions();
        assert_eq!(
            before, partitions,
            "partitions read before and after aggregating"
        );
        (aggregate, partitions)
    };
    let warm = setup();
    add_partitions(&warm, 300);
    for step in 0..KEPT_TEST_CHANGE_COUNT {
        apply_change(&warm, step);
        let first = read(&warm, &names);
        assert_eq!(
            read(&warm, &names),
            first,
            "a second read after change {step}"
        );
        // All in slot order (runs), then a partial one (other ranges of chunks).
        assert_eq!(first, read(&warm, &names));
        let partial = read(&warm, &names[130..150]);
        let cold = setup();
        add_partitions(&cold, 300);
        for done in 0..=step {
            apply_change(&cold, done);
        }
        assert_eq!(first, read(&cold, &names), "after change {step}");
        assert_eq!(
            partial,
            read(&cold, &names[130..150]),
            "after change {step}"
        );
    }
}

#[test]
fn a_kept_slot_index_brought_up_to_date_resolves_as_a_scan_would() {
    // Goal: the slot index a large aggregation keeps, and brings up to date from the slot
    // changes recorded since (instead of scanning again), resolves every name to its own
    // partition's statistics: across first statistics, rewrites, drops and renames, on a table
    // of two keys whose values need escaping. Method: a seeded sequence of changes; after each,
    // aggregate over every partition with statistics (each with its own `numNulls`, so a name
    // resolved to another partition's slot changes the sum), and over those plus every name
    // dropped or renamed away (which must resolve to nothing).
    let store = setup();
    store
        .create_table(Table {
            table_name: "q".to_string(),
            db_name: "db".to_string(),
            sd: Some(StorageDescriptor {
                cols: table_columns(),
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string"), column("kind", "string")],
            ..Table::default()
        })
        .unwrap();
    let keys = ["ds", "kind"];
    let odd_values = ["a/b", "x=y", "50%", "c:d", "sp ace", "é", "#h", "plain"];
    let values_of = |index: usize| {
        vec![
            format!("{}{index}", odd_values[index % odd_values.len()]),
            odd_values[(index / 3) % odd_values.len()].to_string(),
        ]
    };
    let name_of = |values: &[String]| hivestore_engine::make_partition_name(&keys, values);
    let add = |index: usize| {
        let partition = Partition {
            values: values_of(index),
            ..Partition::default()
        };
        store
            .add_partitions("hive", "db", "q", vec![partition], &Default::default())
            .unwrap();
    };
    let write = |values: &[String], nulls: i64| {
        let mut stats = ColumnStatistics::new("l", "bigint", StatsKind::Long);
        stats.num_nulls = nulls;
        let writes = vec![(name_of(values), vec![stats])];
        store
            .update_partition_column_statistics("hive", "db", "q", writes, &options(false))
            .unwrap();
    };
    // Live partitions with statistics and their numNulls; names that must resolve to nothing.
    let mut with_stats: std::collections::BTreeMap<Vec<String>, i64> = Default::default();
    let mut without_stats: Vec<Vec<String>> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    let mut next = 0;
    for _ in 0..300 {
        add(next);
        write(&values_of(next), next as i64 + 1);
        with_stats.insert(values_of(next), next as i64 + 1);
        next += 1;
    }
    let columns = vec!["l".to_string()];
    let aggregate = |names: &[String]| {
        let aggregate = store
            .aggregate_column_statistics("hive", "db", "q", names, &columns, "hive")
            .unwrap();
        (aggregate.partitions_found, aggregate.stats[0].num_nulls)
    };
    let check = |with_stats: &std::collections::BTreeMap<Vec<String>, i64>,
                 gone: &[String],
                 step: usize| {
        let names: Vec<String> = with_stats.keys().map(|values| name_of(values)).collect();
        let nulls: i64 = with_stats.values().sum();
        let found = names.len() as i64;
        assert_eq!(aggregate(&names), (found, nulls), "step {step}");
        let with_gone = [names, gone.to_vec()].concat();
        assert_eq!(aggregate(&with_gone).0, found, "step {step}");
    };
    check(&with_stats, &gone, 0);
    let mut seed: u64 = 0x5eed;
    for step in 1..=120 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (seed >> 33) as usize;
        let live: Vec<Vec<String>> = with_stats.keys().cloned().collect();
        let chosen = live[pick % live.len()].clone();
        match pick % 5 {
            // A new partition given its first statistics (a new slot).
            0 => {
                add(next);
                write(&values_of(next), next as i64 + 1);
                with_stats.insert(values_of(next), next as i64 + 1);
                next += 1;
            }
            // Statistics rewritten (no slot changes).
            1 => {
                let nulls = with_stats[&chosen] + 1000;
                write(&chosen, nulls);
                with_stats.insert(chosen, nulls);
            }
            // A partition dropped (its slot key deleted).
            2 => {
                store
                    .drop_partitions(
                        "hive",
                        "db",
                        "q",
                        std::slice::from_ref(&chosen),
                        &Default::default(),
                    )
                    .unwrap();
                with_stats.remove(&chosen);
                gone.push(name_of(&chosen));
            }
            // A partition renamed (its slot key moved, statistics kept).
            3 => {
                let renamed = values_of(next);
                next += 1;
                let partition = Partition {
                    values: renamed.clone(),
                    ..Partition::default()
                };
                store
                    .rename_partition("hive", "db", "q", &chosen, partition)
                    .unwrap();
                let nulls = with_stats.remove(&chosen).unwrap();
                with_stats.insert(renamed, nulls);
                gone.push(name_of(&chosen));
            }
            // A partition without statistics added, then given some.
            _ => {
                add(next);
                without_stats.push(values_of(next));
                next += 1;
                if without_stats.len() > 1 {
                    let values = without_stats.remove(0);
                    write(&values, 7);
                    with_stats.insert(values, 7);
                }
            }
        }
        check(&with_stats, &gone, step);
    }
}

/// A backend that counts the statistics entries (keyspaces 0x08 to 0x0A: slots, chunks,
/// sketches) read through it.
struct StatsReadCount {
    inner: Arc<MemoryBackend>,
    entries: std::sync::atomic::AtomicUsize,
}

impl StatsReadCount {
    /// A store on `backend` whose statistics reads are counted, and the count.
    fn store_over(backend: &Arc<MemoryBackend>) -> (Store, Arc<StatsReadCount>) {
        let counted = Arc::new(StatsReadCount {
            inner: backend.clone(),
            entries: Default::default(),
        });
        (open_on(counted.clone()), counted)
    }

    fn count(&self, key: &[u8]) {
        let statistics = keys::KEYSPACE_STATS_SLOT..=keys::KEYSPACE_STATS_SKETCH;
        if key.first().is_some_and(|keyspace| {
            statistics.contains(keyspace) || *keyspace == keys::KEYSPACE_STATS_RECENT
        }) {
            self.entries
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn take(&self) -> usize {
        self.entries.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

impl KvBackend for StatsReadCount {
    fn get(&self, key: &[u8]) -> hivestore_engine::Result<Option<KvBytes>> {
        let value = self.inner.get(key)?;
        if value.is_some() {
            self.count(key);
        }
        Ok(value)
    }
    fn scan(
        &self,
        range: &KeyRange,
        entry_count_max: usize,
    ) -> hivestore_engine::Result<Vec<(KvBytes, KvBytes)>> {
        let entries = self.inner.scan(range, entry_count_max)?;
        entries.iter().for_each(|(key, _)| self.count(key));
        Ok(entries)
    }
    fn apply(&self, batch: WriteBatch) -> hivestore_engine::Result<()> {
        self.inner.apply(batch)
    }
    fn flush(&self) -> hivestore_engine::Result<()> {
        self.inner.flush()
    }
}

/// Statistics of 300 partitions of `p` in `backend`: `l` with a sketch each, `d` without.
fn partitions_with_statistics(backend: &Arc<MemoryBackend>) -> Vec<String> {
    let store = setup_on(backend.clone());
    let names = add_partitions(&store, 300);
    let writes = names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let mut long = ColumnStatistics::new("l", "bigint", StatsKind::Long);
            long.num_nulls = index as i64;
            long.low_value = Some(StatsValue::Integer(-(index as i64)));
            long.high_value = Some(StatsValue::Integer(index as i64));
            long.num_distinct_values = 2;
            long.bit_vectors = Some(sparse_hll(&[index as u32 % 40, 40 + index as u32 % 7]));
            let mut double = ColumnStatistics::new("d", "double", StatsKind::Double);
            double.num_nulls = 1;
            double.high_value = Some(StatsValue::Double(index as f64 / 2.0));
            (name.clone(), vec![long, double])
        })
        .collect();
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options(false))
        .unwrap();
    names
}

/// What planners read of `p`: aggregations over every partition and over a few, one with
/// sketches merged; the statistics of some partitions.
fn planner_reads(
    store: &Store,
    names: &[String],
) -> (Vec<AggregateStatistics>, Vec<PartitionStatistics>) {
    let columns = vec!["l".to_string(), "d".to_string()];
    let aggregate = |names: &[String]| {
        store
            .aggregate_column_statistics("hive", "db", "p", names, &columns, "hive")
            .unwrap()
    };
    let aggregates = vec![aggregate(names), aggregate(&names[130..150])];
    let partitions = store
        .partition_column_statistics("hive", "db", "p", &names[200..230], &columns, "hive", true)
        .unwrap();
    (aggregates, partitions)
}

#[test]
fn a_prewarmed_store_answers_planners_without_reading_statistics_again() {
    // Goal: after `prewarm_statistics`, as a server runs it at start, the aggregations and
    // partition reads a planner makes read no slot, chunk or sketch from the store, and
    // answer what a store that did not prewarm answers; a write after it is seen. Method:
    // statistics written by one store; a second store on the same data, its reads counted.
    let backend = Arc::new(MemoryBackend::new());
    let names = partitions_with_statistics(&backend);
    let expected = planner_reads(&open_on(backend.clone()), &names);
    let (store, counted) = StatsReadCount::store_over(&backend);
    let report = store.prewarm_statistics(64 << 20).unwrap();
    assert_eq!(
        (report.tables, report.columns, report.complete),
        (1, 2, true)
    );
    assert!(report.bytes > 0, "{report:?}");
    assert!(counted.take() > 0, "the prewarm read the statistics");
    assert_eq!(planner_reads(&store, &names), expected);
    assert_eq!(counted.take(), 0, "statistics read again after the prewarm");

    let mut changed = ColumnStatistics::new("d", "double", StatsKind::Double);
    changed.num_nulls = 1000;
    let writes = vec![(names[140].clone(), vec![changed])];
    store
        .update_partition_column_statistics("hive", "db", "p", writes, &options(true))
        .unwrap();
    let after_write = planner_reads(&open_on(backend.clone()), &names);
    assert_ne!(after_write, expected);
    assert_eq!(planner_reads(&store, &names), after_write);
}

#[test]
fn a_prewarm_stops_at_its_budget() {
    // Goal: the budget bounds what a prewarm reads; with none, the first reads go to the
    // store (so the test above would see them). Method: the same data, a budget of 0 bytes,
    // then of one column's chunks.
    let backend = Arc::new(MemoryBackend::new());
    let names = partitions_with_statistics(&backend);
    let (store, counted) = StatsReadCount::store_over(&backend);
    let report = store.prewarm_statistics(0).unwrap();
    assert_eq!(
        (report.tables, report.columns, report.complete),
        (0, 0, false)
    );
    assert!(
        counted.take() <= 1,
        "at most the key telling that there are statistics"
    );
    planner_reads(&store, &names);
    assert!(
        counted.take() > 0,
        "nothing was prewarmed, so the reads went to the store"
    );

    // A budget is checked before each column, so it is overrun by at most one.
    let slot_index_only = open_on(backend.clone()).prewarm_statistics(1).unwrap();
    assert_eq!(
        (
            slot_index_only.tables,
            slot_index_only.columns,
            slot_index_only.complete
        ),
        (1, 0, false)
    );
    let budget = slot_index_only.bytes + 1;
    let report = open_on(backend.clone()).prewarm_statistics(budget).unwrap();
    assert_eq!(
        (report.tables, report.columns, report.complete),
        (1, 1, false)
    );
}

#[test]
fn a_prewarm_reads_at_most_sixteen_tables_in_the_order_they_were_made() {
    // Goal: the prewarm stops at half the kept slots' tables (16), so that it never makes
    // them empty themselves, and says it did not read everything. Method: 17 partitioned
    // tables with statistics; the first 16 made are read, the 17th is not.
    let backend = Arc::new(MemoryBackend::new());
    let store = setup_on(backend.clone());
    let table_count = 17;
    for table in 0..table_count {
        let name = format!("t{table:02}");
        store
            .create_table(Table {
                table_name: name.clone(),
                db_name: "db".to_string(),
                sd: Some(StorageDescriptor {
                    cols: table_columns(),
                    ..StorageDescriptor::default()
                }),
                partition_keys: vec![column("ds", "string")],
                ..Table::default()
            })
            .unwrap();
        let partition = Partition {
            values: vec!["1".to_string()],
            ..Partition::default()
        };
        store
            .add_partitions("hive", "db", &name, vec![partition], &Default::default())
            .unwrap();
        let writes = vec![(
            "ds=1".to_string(),
            vec![ColumnStatistics::new("l", "bigint", StatsKind::Long)],
        )];
        store
            .update_partition_column_statistics("hive", "db", &name, writes, &options(false))
            .unwrap();
    }
    drop(store);
    let (store, counted) = StatsReadCount::store_over(&backend);
    let report = store.prewarm_statistics(64 << 20).unwrap();
    assert_eq!(
        (report.tables, report.columns, report.complete),
        (16, 16, false)
    );
    let columns = vec!["l".to_string()];
    let names = vec!["ds=1".to_string()];
    for table in 0..table_count {
        counted.take();
        let aggregate = store
            .aggregate_column_statistics(
                "hive",
                "db",
                &format!("t{table:02}"),
                &names,
                &columns,
                "hive",
            )
            .unwrap();
        assert_eq!(aggregate.partitions_found, 1);
        let read = counted.take();
        assert_eq!(
            read == 0,
            table < 16,
            "table {table}: {read} statistics entries read"
        );
    }
}
