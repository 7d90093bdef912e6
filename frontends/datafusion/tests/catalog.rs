//! The catalog end to end over a table whose files are on disk: pruning (by the metastore
//! and by DataFusion), the files a scan opens, statistics, errors; over the embedded store
//! and over Thrift (an in-process hivestore server on loopback).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::stats::Precision;
use datafusion::common::ScalarValue;
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;
use hivestore::{
    ColumnStatistics, FieldSchema, Metastore, Partition, StatsKind, StatsValue, StatsWriteOptions,
    StorageDescriptor, StoreOptions, Table,
};
use hivestore_datafusion::{
    EmbeddedSource, HiveCatalog, HiveScanExec, MetadataSource, Pruning, ThriftSource,
};
use parquet::arrow::ArrowWriter;

const PARQUET_INPUT_FORMAT: &str = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat";
const DAYS: [&str; 3] = ["2024-01-01", "2024-01-02", "2024-01-03"];
const HOURS: [i64; 4] = [0, 1, 2, 3];

/// Each partition's file by (day index, hour).
type Files = Vec<((usize, i64), PathBuf)>;
/// Which partitions, by (day index, hour), a predicate holds for.
type Selects = Box<dyn Fn(usize, i64) -> bool>;

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    }
}

/// A metastore in memory whose warehouse is `warehouse`.
fn in_memory(warehouse: &Path) -> Metastore {
    Metastore::in_memory(StoreOptions::new(warehouse.to_string_lossy().to_string())).unwrap()
}

/// The amount written in the file of partition (`day`, `hour`): one distinct value each.
fn amount(day: usize, hour: i64) -> i64 {
    100 * day as i64 + hour
}

/// Table `default.orders` (amount bigint, note string; ds string, hr int) with one Parquet
/// file a partition holding two rows, its partitions' `numRows` set; answers the metastore
/// and each partition's file by (day, hour).
fn orders(warehouse: &Path, data: Option<&Path>) -> (Metastore, Files) {
    let metastore = match data {
        Some(data) => {
            let options = StoreOptions::new(warehouse.to_string_lossy().to_string());
            Metastore::open_with_options(data, options).unwrap()
        }
        None => in_memory(warehouse),
    };
    metastore
        .create_table(Table {
            db_name: "default".into(),
            table_name: "orders".into(),
            sd: Some(StorageDescriptor {
                // `note` is in no file: it reads as nulls.
                cols: vec![column("amount", "bigint"), column("note", "string")],
                input_format: Some(PARQUET_INPUT_FORMAT.into()),
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds", "string"), column("hr", "int")],
            ..Table::default()
        })
        .unwrap();
    let mut wanted = Vec::new();
    for (day_index, day) in DAYS.iter().enumerate() {
        for hour in HOURS {
            wanted.push((
                (day_index, hour),
                Partition {
                    values: vec![day.to_string(), hour.to_string()],
                    parameters: [("numRows".to_string(), "2".to_string())].into(),
                    ..Partition::default()
                },
            ));
        }
    }
    let added = metastore
        .add_partitions(
            "hive",
            "default",
            "orders",
            wanted.iter().map(|(_, p)| p.clone()).collect(),
            false,
        )
        .unwrap();
    // The file holds the column in upper case, as some writers do: matched by name regardless.
    let schema = Arc::new(Schema::new(vec![
        Field::new("AMOUNT", DataType::Int64, false),
        Field::new("extra", DataType::Utf8, false),
    ]));
    let mut files = Vec::new();
    for (((day, hour), _), partition) in wanted.iter().zip(&added) {
        let directory = PathBuf::from(partition.location().unwrap());
        std::fs::write(directory.join("_SUCCESS"), b"").unwrap();
        let path = directory.join("part-00000.parquet");
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(Int64Array::from(vec![amount(*day, *hour); 2])),
                Arc::new(StringArray::from(vec!["x", "y"])),
            ],
        )
        .unwrap();
        let mut writer = ArrowWriter::try_new(
            std::fs::File::create(&path).unwrap(),
            Arc::clone(&schema),
            None,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        files.push(((*day, *hour), path));
    }
    (metastore, files)
}

fn context(source: Arc<dyn MetadataSource>, pruning: Pruning) -> SessionContext {
    let context = SessionContext::new();
    let catalog = HiveCatalog::new(source).with_pruning(pruning);
    context.register_catalog("hive", Arc::new(catalog));
    context
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn find_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<&HiveScanExec> {
    if let Some(scan) = plan.as_any().downcast_ref::<HiveScanExec>() {
        return Some(scan);
    }
    plan.children().into_iter().find_map(find_scan)
}

struct Answer {
    batches: Vec<RecordBatch>,
    partitions: usize,
    opened: BTreeSet<PathBuf>,
    plan: Arc<dyn ExecutionPlan>,
}

fn run(
    runtime: &tokio::runtime::Runtime,
    context: &SessionContext,
    sql: &str,
) -> datafusion::error::Result<Answer> {
    runtime.block_on(async {
        let plan = context.sql(sql).await?.create_physical_plan().await?;
        let batches = collect(Arc::clone(&plan), context.task_ctx()).await?;
        let scan = find_scan(&plan).expect("a Hive scan");
        Ok(Answer {
            batches,
            partitions: scan.partition_count(),
            opened: scan.opened_files().into_iter().collect(),
            plan: Arc::clone(&plan),
        })
    })
}

fn int64s(batches: &[RecordBatch], column: usize) -> Vec<i64> {
    let mut values: Vec<i64> = batches
        .iter()
        .flat_map(|batch| {
            let array = batch
                .column(column)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            array.values().to_vec()
        })
        .collect();
    values.sort_unstable();
    values
}

/// The files of the partitions `selected` holds for.
fn files_where(
    files: &[((usize, i64), PathBuf)],
    selected: impl Fn(usize, i64) -> bool,
) -> BTreeSet<PathBuf> {
    files
        .iter()
        .filter(|((day, hour), _)| selected(*day, *hour))
        .map(|(_, path)| path.clone())
        .collect()
}

/// The queries every source and pruning must answer alike: rows, partitions, files opened.
fn check_pruning(source: Arc<dyn MetadataSource>, files: &[((usize, i64), PathBuf)]) {
    let runtime = runtime();
    for pruning in [Pruning::Metastore, Pruning::DataFusion] {
        let context = context(Arc::clone(&source), pruning);
        let cases: [(&str, Selects); 4] = [
            (
                "ds = '2024-01-02' AND hr >= 2",
                Box::new(|day, hour| day == 1 && hour >= 2),
            ),
            (
                "ds IN ('2024-01-01', '2024-01-03') AND NOT (hr BETWEEN 1 AND 2)",
                Box::new(|day, hour| day != 1 && !(1..=2).contains(&hour)),
            ),
            (
                "ds > '2024-01-01' OR hr = 0",
                Box::new(|day, hour| day > 0 || hour == 0),
            ),
            (
                "hr <> 3 AND amount > 100",
                Box::new(|day, hour| hour != 3 && amount(day, hour) > 100),
            ),
        ];
        for (predicate, selected) in cases {
            let sql =
                format!("SELECT amount, note, ds, hr FROM hive.default.orders WHERE {predicate}");
            let answer = run(&runtime, &context, &sql).unwrap();
            let mut expected: Vec<i64> = files
                .iter()
                .filter(|((day, hour), _)| selected(*day, *hour))
                .flat_map(|((day, hour), _)| [amount(*day, *hour); 2])
                .collect();
            expected.sort_unstable();
            assert_eq!(
                int64s(&answer.batches, 0),
                expected,
                "{pruning:?}: {predicate}"
            );
            assert!(answer
                .batches
                .iter()
                .all(|batch| batch.column(1).null_count() == batch.num_rows()));
            // The last case's `amount > 100` is not on a key: only `hr <> 3` prunes.
            let pruned = if predicate.contains("amount") {
                files_where(files, |_, hour| hour != 3)
            } else {
                files_where(files, &selected)
            };
            assert_eq!(answer.opened, pruned, "{pruning:?}: {predicate}");
            assert_eq!(answer.partitions, pruned.len(), "{pruning:?}: {predicate}");
        }
    }
}

#[test]
fn the_embedded_store_prunes_to_the_files_a_predicate_selects() {
    let warehouse = tempfile::tempdir().unwrap();
    let (metastore, files) = orders(warehouse.path(), None);
    check_pruning(Arc::new(EmbeddedSource::new(Arc::new(metastore))), &files);
}

#[test]
fn a_metastore_over_thrift_prunes_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (data, warehouse) = (dir.path().join("data"), dir.path().join("warehouse"));
    let (metastore, files) = orders(&warehouse, Some(&data));
    drop(metastore);
    let options = hivestore_engine::StoreOptions::new(warehouse.to_string_lossy().to_string());
    let store = hivestore_engine::Store::open(&data, options).unwrap();
    let limits = hivestore_thrift::limits::Limits::default();
    let state = Arc::new(hivestore_thrift::service::ServerState::new(store));
    let server = hivestore_thrift::server::Server::bind("127.0.0.1:0", limits, state).unwrap();
    let address = server.local_addr().to_string();
    let stop = server.stop_handle();
    let thread = std::thread::spawn(move || server.run());
    check_pruning(
        Arc::new(ThriftSource::new(&format!("thrift://{address}"))),
        &files,
    );

    // A missing table is a missing table, not a failed call; the connection goes on.
    let runtime = runtime();
    let context = context(Arc::new(ThriftSource::new(&address)), Pruning::Metastore);
    let error = run(&runtime, &context, "SELECT * FROM hive.default.nothing")
        .err()
        .unwrap();
    assert!(error.to_string().contains("nothing"), "{error}");
    stop.stop();
    thread.join().unwrap().unwrap();
}

#[test]
fn a_metastore_that_is_not_there_is_a_clear_error() {
    // A port nothing listens on: bound, then let go.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let context = context(
        Arc::new(ThriftSource::new(&address.to_string())),
        Pruning::Metastore,
    );
    let error = run(&runtime(), &context, "SELECT * FROM hive.default.t")
        .err()
        .unwrap();
    assert!(
        error
            .to_string()
            .contains("cannot connect to the metastore"),
        "{error}"
    );
}

#[test]
fn statistics_of_the_chosen_partitions_reach_the_planner() {
    let warehouse = tempfile::tempdir().unwrap();
    let (metastore, _) = orders(warehouse.path(), None);
    let statistics = |low: i64, high: i64| ColumnStatistics {
        num_nulls: 1,
        num_distinct_values: 2,
        low_value: Some(StatsValue::Integer(low)),
        high_value: Some(StatsValue::Integer(high)),
        ..ColumnStatistics::new("amount", "bigint", StatsKind::Long)
    };
    let partitions = vec![
        ("ds=2024-01-02/hr=0".to_string(), vec![statistics(5, 50)]),
        ("ds=2024-01-02/hr=1".to_string(), vec![statistics(7, 70)]),
        ("ds=2024-01-03/hr=0".to_string(), vec![statistics(1, 1000)]),
    ];
    metastore
        .update_partition_column_statistics(
            "hive",
            "default",
            "orders",
            partitions,
            &StatsWriteOptions::default(),
        )
        .unwrap();
    let context = context(
        Arc::new(EmbeddedSource::new(Arc::new(metastore))),
        Pruning::Metastore,
    );
    let runtime = runtime();
    let plan = runtime
        .block_on(async {
            let sql = "SELECT amount FROM hive.default.orders WHERE ds = '2024-01-02' AND hr < 2";
            context.sql(sql).await?.create_physical_plan().await
        })
        .unwrap();
    let scan = find_scan(&plan).unwrap();
    let statistics = scan.partition_statistics(None).unwrap();
    // Two partitions of numRows 2; bounds widened over them, nulls summed.
    assert_eq!(statistics.num_rows, Precision::Inexact(4));
    let amount = &statistics.column_statistics[0];
    assert_eq!(
        amount.min_value,
        Precision::Inexact(ScalarValue::Int64(Some(5)))
    );
    assert_eq!(
        amount.max_value,
        Precision::Inexact(ScalarValue::Int64(Some(70)))
    );
    assert_eq!(amount.null_count, Precision::Inexact(2));
}

#[test]
fn unread_types_and_formats_are_errors_that_name_them() {
    let warehouse = tempfile::tempdir().unwrap();
    let metastore = in_memory(warehouse.path());
    let table = |name: &str, columns: Vec<FieldSchema>, input_format: &str| Table {
        db_name: "default".into(),
        table_name: name.into(),
        sd: Some(StorageDescriptor {
            cols: columns,
            input_format: Some(input_format.into()),
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    };
    metastore
        .create_table(table(
            "maps",
            vec![column("id", "int"), column("tags", "map<string,int>")],
            PARQUET_INPUT_FORMAT,
        ))
        .unwrap();
    metastore
        .create_table(table(
            "text",
            vec![column("id", "int")],
            "org.apache.hadoop.mapred.TextInputFormat",
        ))
        .unwrap();
    let context = context(
        Arc::new(EmbeddedSource::new(Arc::new(metastore))),
        Pruning::Metastore,
    );
    let runtime = runtime();
    let error = run(&runtime, &context, "SELECT id FROM hive.default.maps")
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("column `tags`") && error.contains("map<string,int>"),
        "{error}"
    );
    let error = run(&runtime, &context, "SELECT id FROM hive.default.text")
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("TextInputFormat") && error.contains("Parquet tables only"),
        "{error}"
    );
}

#[test]
fn an_unpartitioned_table_reads_its_location_and_reports_its_statistics() {
    let warehouse = tempfile::tempdir().unwrap();
    let metastore = in_memory(warehouse.path());
    let mut table = Table {
        db_name: "default".into(),
        table_name: "flat".into(),
        sd: Some(StorageDescriptor {
            cols: vec![column("amount", "bigint")],
            input_format: Some(PARQUET_INPUT_FORMAT.into()),
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    };
    table.parameters.insert("numRows".into(), "3".into());
    let table = metastore.create_table(table).unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new(
        "amount",
        DataType::Int64,
        false,
    )]));
    let path = PathBuf::from(table.location().unwrap()).join("000000_0");
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(&path).unwrap(),
        Arc::clone(&schema),
        None,
    )
    .unwrap();
    let batch =
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![4, 5, 6]))]).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let context = context(
        Arc::new(EmbeddedSource::new(Arc::new(metastore))),
        Pruning::Metastore,
    );
    let answer = run(
        &runtime(),
        &context,
        "SELECT amount FROM hive.default.flat WHERE amount > 4",
    )
    .unwrap();
    assert_eq!(int64s(&answer.batches, 0), [5, 6]);
    assert_eq!(answer.opened, BTreeSet::from([path]));
    let statistics = find_scan(&answer.plan)
        .unwrap()
        .partition_statistics(None)
        .unwrap();
    assert_eq!(statistics.num_rows, Precision::Inexact(3));
}
