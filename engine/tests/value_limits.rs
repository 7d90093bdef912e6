//! Names, parameters, comments and type names over their limits are refused with
//! `InvalidObject` naming the field, the limit and the length, and change nothing; the
//! configurable limits apply as configured.

use std::collections::BTreeMap;
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AddPartitionsOptions, ColumnStatistics, Database, Durability, Error, FieldSchema, Partition,
    StatsDecimal, StatsKind, StatsValue, StatsWriteOptions, StorageDescriptor, Store, StoreOptions,
    Table, ValueLimits,
};

fn store_with(limits: ValueLimits) -> Store {
    let mut options = StoreOptions::new("file:/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.value_limits = limits;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    store
        .create_database(Database {
            name: "db".into(),
            ..Database::default()
        })
        .unwrap();
    store
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn table(name: &str) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: "db".into(),
        sd: Some(StorageDescriptor {
            cols: vec![column("c", "int")],
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds", "string")],
        ..Table::default()
    }
}

fn partition(ds: &str, parameters: BTreeMap<String, String>) -> Partition {
    Partition {
        values: vec![ds.to_string()],
        db_name: "db".into(),
        table_name: "t".into(),
        parameters,
        ..Partition::default()
    }
}

fn invalid_object(error: Error) -> String {
    match error {
        Error::InvalidObject(message) => message,
        other => panic!("expected InvalidObject, got {other:?}"),
    }
}

#[test]
fn a_90_mb_partition_parameter_is_refused_and_nothing_is_added() {
    let store = store_with(ValueLimits::default());
    store.create_table(table("t")).unwrap();
    let huge = BTreeMap::from([("k".to_string(), "v".repeat(90 << 20))]);
    let batch = vec![
        partition("a", BTreeMap::new()),
        partition("b", huge.clone()),
    ];
    let error = store
        .add_partitions("hive", "db", "t", batch, &AddPartitionsOptions::default())
        .unwrap_err();
    assert_eq!(
        invalid_object(error),
        "partition parameter 'k' is 94371840 bytes, longer than the 32672 bytes allowed \
         (setting max_param_value_bytes)"
    );
    assert!(store
        .list_partitions("hive", "db", "t", -1)
        .unwrap()
        .is_empty());

    store
        .add_partitions(
            "hive",
            "db",
            "t",
            vec![partition("a", BTreeMap::new())],
            &AddPartitionsOptions::default(),
        )
        .unwrap();
    let error = store
        .alter_partition("hive", "db", "t", partition("a", huge))
        .unwrap_err();
    assert!(
        format!("{error:?}").contains("partition parameter 'k' is 94371840 bytes"),
        "{error:?}"
    );
    let stored = store
        .get_partition("hive", "db", "t", &["a".into()])
        .unwrap();
    assert!(!stored.parameters.contains_key("k"));
}

#[test]
fn partition_values_and_names_have_hives_widths() {
    let store = store_with(ValueLimits::default());
    store.create_table(table("t")).unwrap();
    let long = "x".repeat(257);
    let error = store
        .add_partitions(
            "hive",
            "db",
            "t",
            vec![partition(&long, BTreeMap::new())],
            &AddPartitionsOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        invalid_object(error),
        "partition value of key 'ds' is 257 bytes, longer than the 256 bytes allowed"
    );
}

#[test]
fn tables_refuse_long_parameters_comments_types_and_column_names() {
    let limits = ValueLimits {
        parameter_value_bytes_max: 10,
        comment_bytes_max: 5,
        type_name_bytes_max: 20,
        ..ValueLimits::default()
    };
    let store = store_with(limits);
    let mut long_parameter = table("t1");
    long_parameter
        .parameters
        .insert("comment".into(), "x".repeat(11));
    let error = store.create_table(long_parameter).unwrap_err();
    assert_eq!(
        invalid_object(error),
        "table parameter 'comment' is 11 bytes, longer than the 10 bytes allowed \
         (setting max_param_value_bytes)"
    );
    let mut long_comment = table("t2");
    long_comment.sd.as_mut().unwrap().cols[0].comment = Some("abcdef".into());
    let error = store.create_table(long_comment).unwrap_err();
    assert_eq!(
        invalid_object(error),
        "column 'c' comment is 6 bytes, longer than the 5 bytes allowed \
         (setting max_comment_bytes)"
    );
    let mut long_type = table("t3");
    long_type.sd.as_mut().unwrap().cols[0].type_name = "struct<a:int,b:string,c:int>".into();
    let error = store.create_table(long_type).unwrap_err();
    assert!(invalid_object(error).starts_with("column 'c' type is 28 bytes, longer than the 20"),);
    let mut long_column = table("t4");
    long_column.sd.as_mut().unwrap().cols[0].name = "c".repeat(768);
    let error = store.create_table(long_column).unwrap_err();
    assert_eq!(
        invalid_object(error),
        "column name is 768 bytes, longer than the 767 bytes allowed"
    );
    assert!(store.list_tables("hive", "db").unwrap().is_empty());

    store.create_table(table("t")).unwrap();
    let mut altered = table("t");
    altered.parameters.insert("k".into(), "y".repeat(11));
    let error = store.alter_table("hive", "db", "t", altered).unwrap_err();
    assert!(
        format!("{error:?}").contains("'k' is 11 bytes"),
        "{error:?}"
    );
    let stored = store.get_table("hive", "db", "t").unwrap();
    assert!(!stored.parameters.contains_key("k"));
}

#[test]
fn databases_refuse_long_names_descriptions_and_parameters() {
    let store = store_with(ValueLimits::default());
    let error = store
        .create_database(Database {
            name: "d".repeat(129),
            ..Database::default()
        })
        .unwrap_err();
    assert_eq!(
        invalid_object(error),
        "database name is 129 bytes, longer than the 128 bytes allowed"
    );
    let error = store
        .create_database(Database {
            name: "d2".into(),
            description: Some("x".repeat(4001)),
            ..Database::default()
        })
        .unwrap_err();
    assert_eq!(
        invalid_object(error),
        "database description is 4001 bytes, longer than the 4000 bytes allowed \
         (setting max_comment_bytes)"
    );
    let error = store
        .create_database(Database {
            name: "d3".into(),
            parameters: BTreeMap::from([("k".repeat(300), String::new())]),
            ..Database::default()
        })
        .unwrap_err();
    assert_eq!(
        invalid_object(error),
        "database parameter key is 300 bytes, longer than the 256 bytes allowed"
    );
    assert_eq!(store.list_databases("hive").unwrap(), vec!["db", "default"]);
}

/// Column statistics: sketches and histograms take the configured bound, the column type,
/// the engine and decimal bounds Hive's widths; a write over any of them stores nothing.
#[test]
fn statistics_refuse_long_sketches_types_engines_and_decimals() {
    let limits = ValueLimits {
        stats_sketch_bytes_max: 100,
        ..ValueLimits::default()
    };
    let store = store_with(limits);
    let mut unpartitioned = table("u");
    unpartitioned.partition_keys.clear();
    unpartitioned
        .sd
        .as_mut()
        .unwrap()
        .cols
        .push(column("d", "decimal(10,2)"));
    store.create_table(unpartitioned).unwrap();
    store.create_table(table("t")).unwrap();
    let options = AddPartitionsOptions::default();
    let added = vec![partition("a", BTreeMap::new())];
    store
        .add_partitions("hive", "db", "t", added, &options)
        .unwrap();
    let sketch = |bytes: usize| {
        let mut stat = ColumnStatistics::new("c", "int", StatsKind::Long);
        stat.bit_vectors = Some(vec![b'x'; bytes]);
        stat
    };
    let histogram = |bytes: usize| {
        let mut stat = ColumnStatistics::new("c", "int", StatsKind::Long);
        stat.histogram = Some(vec![b'x'; bytes]);
        stat
    };
    let long_type = ColumnStatistics::new("c", "i".repeat(129), StatsKind::Long);
    let decimal = |bytes: usize| {
        let mut stat = ColumnStatistics::new("d", "decimal(10,2)", StatsKind::Decimal);
        let unscaled = vec![1; bytes];
        stat.high_value = Some(StatsValue::Decimal(StatsDecimal { unscaled, scale: 2 }));
        stat
    };
    let defaults = StatsWriteOptions::default();
    let long_engine = StatsWriteOptions {
        engine: "e".repeat(129),
        ..StatsWriteOptions::default()
    };
    let refused = [
        (sketch(101), &defaults, "column 'c' statistics bit vector is 101 bytes, longer than the 100 bytes allowed (setting max_stats_sketch_bytes)"),
        (histogram(101), &defaults, "column 'c' statistics histogram is 101 bytes, longer than the 100 bytes allowed (setting max_stats_sketch_bytes)"),
        (long_type, &defaults, "column 'c' statistics type is 129 bytes, longer than the 128 bytes allowed"),
        (decimal(4001), &defaults, "column 'd' statistics decimal bound is 4001 bytes, longer than the 4000 bytes allowed"),
        (sketch(1), &long_engine, "statistics engine is 129 bytes, longer than the 128 bytes allowed"),
    ];
    let read_table = |column: &str| {
        let columns = [column.to_string()];
        let read = store.table_column_statistics("hive", "db", "u", &columns, "hive", true);
        read.unwrap().stats
    };
    let read_partition = || {
        let names = ["ds=a".to_string()];
        let columns = ["c".to_string()];
        let read =
            store.partition_column_statistics("hive", "db", "t", &names, &columns, "hive", true);
        read.unwrap()
    };
    for (stat, options, message) in refused {
        let column = stat.column_name.to_string();
        let error = store
            .update_table_column_statistics("hive", "db", "u", vec![stat.clone()], options)
            .unwrap_err();
        assert_eq!(invalid_object(error), message);
        assert!(read_table(&column).is_empty(), "{message}");
        if column == "c" {
            let partitions = vec![("ds=a".to_string(), vec![stat])];
            let error = store
                .update_partition_column_statistics("hive", "db", "t", partitions, options)
                .unwrap_err();
            assert_eq!(invalid_object(error), message);
            assert!(read_partition().is_empty(), "{message}");
        }
    }
    for stat in [sketch(100), histogram(100), decimal(4000)] {
        let column = stat.column_name.to_string();
        store
            .update_table_column_statistics("hive", "db", "u", vec![stat.clone()], &defaults)
            .unwrap();
        assert_eq!(read_table(&column), vec![stat]);
    }
    let partitions = vec![("ds=a".to_string(), vec![sketch(100)])];
    store
        .update_partition_column_statistics("hive", "db", "t", partitions, &defaults)
        .unwrap();
    assert_eq!(read_partition().len(), 1);
}
