//! The library's partitions, statistics, functions, constraints, transactions, locks and
//! events, with the semantics the Thrift server gives them, over a store on disk.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use hivestore::events::{EventBody, EventFilter, EventKind};
use hivestore::locks::{LockComponent, LockLevel, LockRequest, LockState, LockType};
use hivestore::txns::OpenTxnRequest;
use hivestore::{
    ColumnStatistics, ConstraintKind, ConstraintRow, Database, DropPartitionsOptions, Error,
    FieldSchema, ForeignKeyFilter, Function, Metastore, Partition, ReferencedColumn, Selection,
    StatsKind, StatsValue, StatsWriteOptions, StorageDescriptor, Table,
};

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn open(data: &Path, warehouse: &Path) -> Metastore {
    Metastore::open(data, warehouse.to_string_lossy().to_string()).unwrap()
}

/// `sales.orders (id bigint, amount double) partitioned by (ds string, region string)`.
fn create_orders(metastore: &Metastore) -> Table {
    metastore
        .create_database(Database {
            name: "sales".to_string(),
            ..Database::default()
        })
        .unwrap();
    metastore
        .create_table(Table {
            db_name: "sales".to_string(),
            table_name: "orders".to_string(),
            sd: Some(StorageDescriptor {
                cols: vec![column("id", "bigint"), column("amount", "double")],
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string"), column("region", "string")],
            ..Table::default()
        })
        .unwrap()
}

fn partition(ds: &str, region: &str) -> Partition {
    Partition {
        values: vec![ds.to_string(), region.to_string()],
        ..Partition::default()
    }
}

/// 10 days × 3 regions.
fn add_month(metastore: &Metastore) -> Vec<Partition> {
    let mut partitions = Vec::new();
    for day in 1..=10 {
        for region in ["eu", "us", "apac"] {
            partitions.push(partition(&format!("2024-01-{day:02}"), region));
        }
    }
    metastore
        .add_partitions("hive", "sales", "orders", partitions, false)
        .unwrap()
}

#[test]
fn partitions_are_added_pruned_altered_and_dropped_as_hive_does() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    let table = create_orders(&metastore);
    let added = add_month(&metastore);
    assert_eq!(added.len(), 30);
    let first = &added[0];
    let expected = format!("{}/ds=2024-01-01/region=eu", table.location().unwrap());
    assert_eq!(first.location(), Some(expected.as_str()));
    assert!(Path::new(expected.trim_start_matches("file:")).is_dir());

    // Adding one that exists fails whole; with if_not_exists it is skipped.
    let again = vec![partition("2024-01-01", "eu"), partition("2024-02-01", "eu")];
    let error = metastore
        .add_partitions("hive", "sales", "orders", again.clone(), false)
        .unwrap_err();
    assert!(matches!(error, Error::AlreadyExists(_)), "{error:?}");
    let added = metastore
        .add_partitions("hive", "sales", "orders", again, true)
        .unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].values, ["2024-02-01", "eu"]);

    // Pruning by Hive's filter language, by partial values, by names.
    let names = |selection| {
        metastore
            .partition_names("hive", "sales", "orders", selection, None)
            .unwrap()
    };
    let pruned = names(Selection::Filter(
        "ds >= '2024-01-09' and ds < '2024-02-01' and region <> 'apac'",
    ));
    assert_eq!(
        pruned,
        [
            "ds=2024-01-09/region=eu",
            "ds=2024-01-09/region=us",
            "ds=2024-01-10/region=eu",
            "ds=2024-01-10/region=us",
        ]
    );
    let us = ["".to_string(), "us".to_string()];
    assert_eq!(names(Selection::PartialValues(&us)).len(), 10);
    let by_name = metastore
        .partitions(
            "hive",
            "sales",
            "orders",
            Selection::Names(&["ds=2024-01-03/region=us", "ds=1999-01-01/region=us"]),
            None,
        )
        .unwrap();
    assert_eq!(by_name.len(), 1);
    assert_eq!(by_name[0].values, ["2024-01-03", "us"]);
    let limited = metastore
        .partitions("hive", "sales", "orders", Selection::All, Some(5))
        .unwrap();
    assert_eq!(limited.len(), 5);
    let count = metastore
        .count_partitions("hive", "sales", "orders", "region = 'apac'")
        .unwrap();
    assert_eq!(count, 10);
    let error = metastore
        .partition_names(
            "hive",
            "sales",
            "orders",
            Selection::Filter("ds >>> 1"),
            None,
        )
        .unwrap_err();
    assert!(matches!(error, Error::Refused(_)), "{error:?}");

    // Alter keeps the create time; rename moves the directory of a managed table.
    let mut altered = metastore
        .get_partition_by_name("hive", "sales", "orders", "ds=2024-01-02/region=eu")
        .unwrap();
    altered.parameters.insert("owner".into(), "etl".into());
    metastore
        .alter_partitions("hive", "sales", "orders", vec![altered.clone()])
        .unwrap();
    let read = metastore
        .get_partition("hive", "sales", "orders", &altered.values)
        .unwrap();
    assert_eq!(
        read.parameters.get("owner").map(String::as_str),
        Some("etl")
    );
    assert_eq!(read.create_time, altered.create_time);
    let renamed = metastore
        .rename_partition(
            "hive",
            "sales",
            "orders",
            &altered.values,
            partition("2024-01-02", "emea"),
        )
        .unwrap();
    assert!(renamed
        .location()
        .unwrap()
        .ends_with("ds=2024-01-02/region=emea"));
    let error = metastore
        .get_partition("hive", "sales", "orders", &altered.values)
        .unwrap_err();
    assert!(matches!(error, Error::NoSuchObject(_)), "{error:?}");

    // Drops are all or none.
    let doomed = vec![
        vec!["2024-01-01".to_string(), "eu".to_string()],
        vec!["1999-01-01".to_string(), "eu".to_string()],
    ];
    let options = DropPartitionsOptions {
        delete_data: true,
        if_exists: false,
    };
    metastore
        .drop_partitions("hive", "sales", "orders", &doomed, options)
        .unwrap_err();
    assert_eq!(names(Selection::All).len(), 31);
    let options = DropPartitionsOptions {
        delete_data: true,
        if_exists: true,
    };
    let dropped = metastore
        .drop_partitions("hive", "sales", "orders", &doomed, options)
        .unwrap();
    assert_eq!(dropped.partitions.len(), 1);
    assert!(!Path::new(expected.trim_start_matches("file:")).exists());
    assert_eq!(names(Selection::All).len(), 30);

    // What was written survives a reopen.
    drop(metastore);
    let metastore = open(data.path(), warehouse.path());
    let all = metastore
        .partition_names("hive", "sales", "orders", Selection::All, None)
        .unwrap();
    assert_eq!(all.len(), 30);
    assert!(all.contains(&"ds=2024-01-02/region=emea".to_string()));
}

#[test]
fn partitions_move_between_tables_of_one_shape() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    let orders = create_orders(&metastore);
    add_month(&metastore);
    let mut archive = orders.clone();
    archive.table_name = "orders_archive".into();
    archive.sd.as_mut().unwrap().location = None;
    metastore.create_table(archive).unwrap();
    let spec = BTreeMap::from([("ds".to_string(), "2024-01-01".to_string())]);
    let moved = metastore
        .exchange_partitions(
            "hive",
            ("sales", "orders"),
            ("sales", "orders_archive"),
            &spec,
        )
        .unwrap();
    assert_eq!(moved.len(), 3);
    let left = metastore
        .count_partitions("hive", "sales", "orders", "ds = '2024-01-01'")
        .unwrap();
    assert_eq!(left, 0);
    let arrived = metastore
        .partition_names("hive", "sales", "orders_archive", Selection::All, None)
        .unwrap();
    assert_eq!(arrived.len(), 3);
}

fn long_stats(column: &str, low: i64, high: i64, nulls: i64) -> ColumnStatistics {
    ColumnStatistics {
        num_nulls: nulls,
        num_distinct_values: high - low + 1,
        low_value: Some(StatsValue::Integer(low)),
        high_value: Some(StatsValue::Integer(high)),
        ..ColumnStatistics::new(column, "bigint", StatsKind::Long)
    }
}

#[test]
fn statistics_are_written_read_aggregated_and_deleted() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    create_orders(&metastore);
    add_month(&metastore);
    let options = StatsWriteOptions::default();
    let written: Vec<(String, Vec<ColumnStatistics>)> = (1..=10)
        .map(|day| {
            let name = format!("ds=2024-01-{day:02}/region=eu");
            (name, vec![long_stats("id", day * 100, day * 100 + 99, day)])
        })
        .collect();
    metastore
        .update_partition_column_statistics("hive", "sales", "orders", written, &options)
        .unwrap();
    metastore
        .update_table_column_statistics(
            "hive",
            "sales",
            "orders",
            vec![long_stats("id", 0, 5000, 3)],
            &options,
        )
        .unwrap();

    let columns = ["id".to_string(), "amount".to_string()];
    let table = metastore
        .table_column_statistics("hive", "sales", "orders", &columns, "hive", false)
        .unwrap();
    assert_eq!(table.stats, vec![long_stats("id", 0, 5000, 3)]);
    assert!(
        table.last_analyzed > 0,
        "stamped with the time of the write"
    );

    let first_three: Vec<String> = (1..=3)
        .map(|day| format!("ds=2024-01-{day:02}/region=eu"))
        .collect();
    let per_partition = metastore
        .partition_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three,
            &columns,
            "hive",
            false,
        )
        .unwrap();
    assert_eq!(per_partition.len(), 3);
    assert_eq!(per_partition[1].stats, vec![long_stats("id", 200, 299, 2)]);

    // Found: the partitions with statistics for every column asked for, as Hive counts.
    let aggregate = metastore
        .aggregate_column_statistics("hive", "sales", "orders", &first_three, &columns, "hive")
        .unwrap();
    assert_eq!(aggregate.partitions_found, 0);
    assert_eq!(aggregate.stats.len(), 1);
    let aggregate = metastore
        .aggregate_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three,
            &columns[..1],
            "hive",
        )
        .unwrap();
    assert_eq!(aggregate.partitions_found, 3);
    let id = &aggregate.stats[0];
    assert_eq!(id.low_value, Some(StatsValue::Integer(100)));
    assert_eq!(id.high_value, Some(StatsValue::Integer(399)));
    assert_eq!(id.num_nulls, 1 + 2 + 3);

    // As in Hive: a table's statistics must name its columns; a partition's must name a
    // partition that exists. Nothing is written on refusal.
    let error = metastore
        .update_table_column_statistics(
            "hive",
            "sales",
            "orders",
            vec![long_stats("nope", 1, 2, 0)],
            &options,
        )
        .unwrap_err();
    assert!(matches!(error, Error::Refused(_)), "{error:?}");
    let error = metastore
        .update_partition_column_statistics(
            "hive",
            "sales",
            "orders",
            vec![
                (first_three[0].clone(), vec![long_stats("id", 7, 7, 0)]),
                (
                    "ds=1999-01-01/region=eu".into(),
                    vec![long_stats("id", 1, 2, 0)],
                ),
            ],
            &options,
        )
        .unwrap_err();
    assert!(matches!(error, Error::NoSuchObject(_)), "{error:?}");
    let unchanged = metastore
        .partition_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three[..1],
            &columns,
            "hive",
            false,
        )
        .unwrap();
    assert_eq!(unchanged[0].stats, vec![long_stats("id", 100, 199, 1)]);

    metastore
        .delete_partition_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three[0],
            None,
            "hive",
        )
        .unwrap();
    let after = metastore
        .partition_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three,
            &columns,
            "hive",
            false,
        )
        .unwrap();
    let names: Vec<&str> = after
        .iter()
        .map(|found| found.partition_name.as_str())
        .collect();
    assert_eq!(names, [&first_three[1], &first_three[2]]);
    // Over all three, the missing partition's bounds are extrapolated, as Hive does.
    let after = metastore
        .aggregate_column_statistics(
            "hive",
            "sales",
            "orders",
            &first_three,
            &columns[..1],
            "hive",
        )
        .unwrap();
    assert_eq!(after.partitions_found, 2);
    assert_eq!(after.stats[0].low_value, Some(StatsValue::Integer(100)));
    assert_eq!(after.stats[0].high_value, Some(StatsValue::Integer(399)));
    metastore
        .delete_table_column_statistics("hive", "sales", "orders", Some("id"), "hive")
        .unwrap();
    let table = metastore
        .table_column_statistics("hive", "sales", "orders", &columns, "hive", false)
        .unwrap();
    assert!(table.stats.is_empty());
}

#[test]
fn functions_and_constraints_keep_hives_rules() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    create_orders(&metastore);
    let function = Function {
        function_name: "Mask".into(),
        db_name: "sales".into(),
        class_name: "com.example.Mask".into(),
        ..Function::default()
    };
    metastore.create_function(function.clone()).unwrap();
    let error = metastore.create_function(function).unwrap_err();
    assert!(matches!(error, Error::AlreadyExists(_)), "{error:?}");
    assert_eq!(metastore.all_functions("hive").unwrap().len(), 1);
    let mut renamed = metastore
        .get_function("hive", "sales", "mask")
        .unwrap()
        .unwrap();
    renamed.function_name = "mask_v2".into();
    metastore
        .alter_function("hive", "sales", "mask", renamed)
        .unwrap();
    assert_eq!(
        metastore.list_functions("hive", "sales", None).unwrap(),
        ["mask_v2"]
    );
    metastore.drop_function("hive", "sales", "mask_v2").unwrap();
    assert!(metastore
        .get_function("hive", "sales", "mask_v2")
        .unwrap()
        .is_none());

    let customers = Table {
        db_name: "sales".into(),
        table_name: "customers".into(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id", "bigint"), column("name", "string")],
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    };
    let primary = ConstraintRow::new(ConstraintKind::PrimaryKey, "sales", "customers", "id");
    let (_, rows) = metastore
        .create_table_with_constraints(customers, vec![primary])
        .unwrap();
    let key_name = rows[0].name.clone().expect("a generated name");
    let foreign = ConstraintRow {
        name: Some("orders_customer".into()),
        referenced: Some(ReferencedColumn {
            db_name: "sales".into(),
            table_name: "customers".into(),
            column: "id".into(),
            key_name: None,
        }),
        ..ConstraintRow::new(ConstraintKind::ForeignKey, "sales", "orders", "id")
    };
    metastore
        .add_constraints(ConstraintKind::ForeignKey, vec![foreign])
        .unwrap();
    let filter = ForeignKeyFilter {
        parent_db: Some("sales".into()),
        parent_table: Some("customers".into()),
        ..ForeignKeyFilter::default()
    };
    let keys = metastore.foreign_keys(&filter).unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(
        keys[0].referenced.as_ref().unwrap().key_name.as_deref(),
        Some(key_name.as_str())
    );
    // A foreign key to a column with no key is refused.
    let dangling = ConstraintRow {
        referenced: Some(ReferencedColumn {
            db_name: "sales".into(),
            table_name: "customers".into(),
            column: "name".into(),
            key_name: None,
        }),
        ..ConstraintRow::new(ConstraintKind::ForeignKey, "sales", "orders", "amount")
    };
    metastore
        .add_constraints(ConstraintKind::ForeignKey, vec![dangling])
        .unwrap_err();
    metastore
        .drop_constraint("hive", "sales", "orders", "orders_customer")
        .unwrap();
    assert!(metastore.foreign_keys(&filter).unwrap().is_empty());
    let primary = metastore
        .table_constraints("hive", "sales", "customers", ConstraintKind::PrimaryKey)
        .unwrap();
    assert_eq!(primary.len(), 1);
}

fn table_lock(txn_id: Option<u64>, lock_type: LockType) -> LockRequest {
    LockRequest {
        components: vec![LockComponent {
            lock_type,
            level: LockLevel::Table,
            database: "sales".into(),
            table: Some("orders".into()),
            partition: None,
            operation: None,
            is_transactional: false,
            is_dynamic_partition_write: false,
        }],
        txn_id,
        user: "etl".into(),
        hostname: "worker".into(),
        agent_info: None,
    }
}

#[test]
fn transactions_and_locks_follow_hives_matrix() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    create_orders(&metastore);
    let request = OpenTxnRequest {
        count: 3,
        user: "etl".into(),
        hostname: "worker".into(),
        ..OpenTxnRequest::default()
    };
    let txns = metastore.open_txns(request).unwrap();
    assert_eq!(txns.len(), 3);
    assert_eq!(txns[1], txns[0] + 1);
    let info = metastore.open_txns_info().unwrap();
    assert_eq!(info.high_water_mark, txns[2]);

    let write_ids = metastore
        .allocate_table_write_ids("sales", "orders", &txns[..2])
        .unwrap();
    assert_eq!(write_ids, vec![(txns[0], 1), (txns[1], 2)]);

    let shared = metastore
        .lock(table_lock(Some(txns[0]), LockType::SharedRead))
        .unwrap();
    assert_eq!(shared.state, LockState::Acquired);
    let exclusive = metastore
        .lock(table_lock(Some(txns[1]), LockType::Exclusive))
        .unwrap();
    assert_eq!(exclusive.state, LockState::Waiting);
    let shown = metastore.show_locks(&Default::default()).unwrap();
    assert_eq!(shown.len(), 2);
    metastore.abort_txn(txns[0]).unwrap();
    assert_eq!(
        metastore.check_lock(exclusive.lock_id).unwrap().state,
        LockState::Acquired
    );
    metastore.commit_txn(txns[1]).unwrap();
    let error = metastore.commit_txn(txns[0]).unwrap_err();
    assert!(matches!(error, Error::TxnAborted(_)), "{error:?}");

    // Write id 1 belongs to an aborted transaction: readers must skip it.
    let valid = metastore
        .valid_write_ids(&["sales.orders".to_string()])
        .unwrap();
    assert_eq!(valid[0].high_water_mark, 2);
    assert_eq!(valid[0].invalid_write_ids, vec![1]);

    let free = metastore
        .lock(table_lock(None, LockType::Exclusive))
        .unwrap();
    assert_eq!(free.state, LockState::Acquired);
    metastore.heartbeat_lock(free.lock_id).unwrap();
    metastore.unlock(free.lock_id).unwrap();
    assert!(metastore
        .show_locks(&Default::default())
        .unwrap()
        .is_empty());
}

#[test]
fn the_event_iterator_waits_for_writes_made_elsewhere() {
    let (data, warehouse) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let metastore = open(data.path(), warehouse.path());
    create_orders(&metastore);
    let start = metastore.current_event_id().unwrap();
    let filter = EventFilter {
        skip_types: vec!["OPEN_TXN".into()],
        ..EventFilter::default()
    };
    let mut events = metastore
        .events(start, filter)
        .poll_interval(Duration::from_millis(5));
    assert!(events.try_next().unwrap().is_none());

    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            let request = OpenTxnRequest {
                count: 1,
                user: "etl".into(),
                hostname: "worker".into(),
                ..OpenTxnRequest::default()
            };
            metastore.open_txns(request).unwrap();
            metastore
                .add_partitions("hive", "sales", "orders", vec![partition("a", "eu")], false)
                .unwrap();
        });
        let event = events
            .next_within(Duration::from_secs(30))
            .unwrap()
            .expect("the partition's event");
        assert_eq!(event.record.kind, EventKind::AddPartition);
        assert_eq!(event.record.table_name, "orders");
        assert!(
            matches!(event.record.body, EventBody::Partitions { .. }),
            "{:?}",
            event.record.body
        );
        assert_eq!(
            event.event_id,
            start + 2,
            "the transaction's event was skipped"
        );
        assert_eq!(events.last_event_id(), start + 2);
    });
    assert!(events
        .next_within(Duration::from_millis(20))
        .unwrap()
        .is_none());

    // The iterator form: a resumed reader sees the same event first.
    let mut resumed = metastore.events(start, EventFilter::default());
    let kinds: Vec<EventKind> = resumed
        .by_ref()
        .take(2)
        .map(|event| event.unwrap().record.kind)
        .collect();
    assert_eq!(kinds, [EventKind::OpenTxn, EventKind::AddPartition]);
}
