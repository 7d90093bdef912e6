//! Every hmsbench benchmark (and bench's own workloads, in one optional test) run once at a
//! tiny size: against an in-process hivestore always, so that none rots; against a Java HMS
//! when asked (`HMS_URI=thrift://127.0.0.1:PORT cargo test --release -p hivestore-benches
//! --test hmsbench -- --ignored`). And the column statistics the setup writes for the
//! planners. Nothing here times anything: speed is for the benchmarks.

use hivestore_idl::hive_metastore::{PartitionsStatsRequest, TThriftHiveMetastoreSyncClient};
use hivestore_loadgen::args::Plan;
use hivestore_loadgen::endpoint::Endpoint;
use hivestore_loadgen::fixture::{column_names, is_no_such_object, Fixture, FixtureShape};
use hivestore_loadgen::partition_table::{partition_name, selected_partitions, PARTITIONED_TABLE};
use hivestore_loadgen::report::Row;
use hivestore_loadgen::runner::Outcome;
use hivestore_loadgen::workload::{SharedTable, ALL_WORKLOADS, HMSBENCH_WORKLOADS};
use hivestore_loadgen::{BenchArgs, Format, Mode, Workload};
use hivestore_tests::TestServer;

/// hmsbench's `-N` in these tests: a lock of 13 partitions spans two tables.
const TINY_NUMBER: u64 = 13;

fn tiny_args(uri: String, workload: Vec<Workload>) -> BenchArgs {
    BenchArgs {
        uri,
        framed: false,
        compact: false,
        database: "hmsbench_test".to_string(),
        mode: vec![Mode::Latency],
        connections: vec![2],
        seconds: Some(60.0),
        calls: Some(1),
        warmup: 1,
        workload,
        tables: 2,
        partitions: vec![48],
        number: vec![TINY_NUMBER],
        // The drop-table benchmarks' partitions carry hmsbench's `--params`.
        params: 2,
        format: Format::Csv,
        csv_out: None,
        compare: None,
        tls_ca: None,
        compare_tls_ca: None,
        compare_setup_via: None,
        call_timeout: 60,
        pause_ms: 0,
        keep_database: false,
        user: None,
    }
}

fn run(args: &BenchArgs) -> Vec<Row> {
    hivestore_loadgen::run_plan(&Plan::from_args(args).expect("plan")).expect("a run")
}

/// The partitions one sample of `workload` lists, adds or drops at size `n`, as hmsbench's
/// data makes them: the filter table's partitions are `[a0, b<i>, c<i>]`.
fn partitions_per_sample(workload: Workload, n: u64) -> u64 {
    match workload {
        Workload::GetPartitionsByFilterSimple | Workload::GetPartitionsByFilterMultiAnd => 1,
        Workload::GetPartitionsByFilterMultiOr => 2,
        Workload::AddPartition
        | Workload::HmsbenchAddPartitions
        | Workload::DropPartition
        | Workload::DropPartitions
        | Workload::AlterPartitions
        | Workload::ListPartitions
        | Workload::HmsbenchGetPartitions
        | Workload::HmsbenchGetPartitionNames
        | Workload::HmsbenchGetPartitionsByNames
        | Workload::GetPartitionsByPs
        | Workload::GetPartitionsStat
        | Workload::UpdatePartitionsStat
        | Workload::RenameTable => n,
        _ => 0,
    }
}

fn connect(uri: &str) -> hivestore_loadgen::endpoint::Client {
    Endpoint::parse(uri, false, false)
        .and_then(|endpoint| endpoint.connect())
        .expect("connect")
}

/// Nothing of the run is left: neither the bench database nor the databases of
/// `listTables.N` and `dropDatabase.N`.
fn assert_nothing_left(uri: &str, database: &str) {
    let mut client = connect(uri);
    let error = client
        .get_database(database.to_string())
        .expect_err("teardown drops the bench database");
    assert!(is_no_such_object(&error), "{error}");
    let left = client
        .get_databases(format!("{database}*"))
        .expect("get_databases");
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn every_hmsbench_benchmark_runs_once_with_its_shape_and_leaves_nothing_behind() {
    let server = TestServer::start();
    let uri = format!("thrift://{}", server.addr);
    let rows = run(&tiny_args(uri.clone(), HMSBENCH_WORKLOADS.to_vec()));
    assert_eq!(rows.len(), HMSBENCH_WORKLOADS.len());
    for row in &rows {
        let measurement = &row.measurement;
        let workload = measurement.workload;
        let name = workload.benchmark_name(measurement.object_count);
        assert_eq!(measurement.outcome, Outcome::Measured, "{name}");
        assert_eq!(
            measurement.histogram.count(),
            1,
            "{name}: the call cap holds"
        );
        assert_eq!(
            measurement.partition_count,
            partitions_per_sample(workload, TINY_NUMBER),
            "{name}: partitions in (or of) the sample"
        );
        let expected_size = workload.is_sized().then_some(TINY_NUMBER);
        assert_eq!(measurement.object_count, expected_size, "{name}");
        if workload.is_sized() {
            assert_eq!(name, format!("{}.{TINY_NUMBER}", workload.name()));
        }
    }
    assert_nothing_left(&uri, "hmsbench_test");
}

#[test]
fn hmsbench_benchmarks_on_several_connections_use_objects_of_their_own() {
    let server = TestServer::start();
    let uri = format!("thrift://{}", server.addr);
    let mut args = tiny_args(uri.clone(), HMSBENCH_WORKLOADS.to_vec());
    args.mode = vec![Mode::Throughput];
    args.calls = Some(4);
    args.number = vec![2, 5];
    let rows = run(&args);
    assert_eq!(
        rows.len(),
        HMSBENCH_WORKLOADS.len() + (HMSBENCH_WORKLOADS.len() - 6)
    );
    for row in &rows {
        let measurement = &row.measurement;
        let name = measurement
            .workload
            .benchmark_name(measurement.object_count);
        assert_eq!(measurement.outcome, Outcome::Measured, "{name}");
        assert_eq!(measurement.histogram.count(), 4, "{name}");
    }
    let sizes: Vec<Option<u64>> = rows
        .iter()
        .filter(|row| row.measurement.workload == Workload::ListPartitions)
        .map(|row| row.measurement.object_count)
        .collect();
    assert_eq!(sizes, vec![Some(2), Some(5)], "each size, smallest first");
    assert_nothing_left(&uri, "hmsbench_test");
}

#[test]
fn hmsbench_rows_carry_their_hmsbench_name_and_size() {
    let server = TestServer::start();
    let mut args = tiny_args(
        format!("thrift://{}", server.addr),
        vec![Workload::ListDatabases, Workload::ListPartitions],
    );
    let csv = hivestore_loadgen::run(&args).expect("csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].ends_with(",benchmark,objects"), "{}", lines[0]);
    assert!(lines[1].ends_with(",listDatabases,"), "{}", lines[1]);
    assert!(lines[2].ends_with(",listPartitions.13,13"), "{}", lines[2]);
    args.format = Format::Jsonl;
    let json = hivestore_loadgen::run(&args).expect("jsonl");
    assert!(
        json.contains(r#""benchmark":"listPartitions.13","objects":13}"#),
        "{json}"
    );
}

#[test]
fn the_planners_table_has_statistics_of_its_twenty_columns_where_they_read() {
    let server = TestServer::start();
    let uri = format!("thrift://{}", server.addr);
    let endpoint = Endpoint::parse(&uri, false, false).expect("endpoint");
    let mut client = endpoint.connect().expect("connect");
    let shape = FixtureShape {
        read_table_count: 1,
        commit_table_count: 0,
    };
    let mut fixture = Fixture::set_up(&mut client, &endpoint, "stats_test", shape).expect("set up");
    let partition_count = 24 * 300;
    fixture
        .grow(&mut client, SharedTable::Bench, partition_count)
        .expect("grow");
    fixture
        .write_stats(&mut client, SharedTable::Bench, partition_count)
        .expect("statistics");
    let selected = selected_partitions(partition_count);
    assert_eq!(selected.end - selected.start, 3 * 24, "1% of 300 days");
    let inside = partition_name(selected.start + 5);
    let outside = partition_name(selected.end + 5);
    let request = PartitionsStatsRequest::new(
        "stats_test".to_string(),
        PARTITIONED_TABLE.to_string(),
        column_names(),
        vec![inside.clone(), outside.clone()],
        None,
        None,
        None,
    );
    let reply = client
        .get_partitions_statistics_req(request)
        .expect("statistics");
    let columns = reply.part_stats.get(&inside).map(Vec::len);
    assert_eq!(columns, Some(10), "ints, strings, doubles and booleans");
    assert!(
        reply.part_stats.get(&outside).is_none_or(Vec::is_empty),
        "partitions no planner reads have none"
    );
    fixture.tear_down(&mut client).expect("tear down");
}

/// Calls Apache's HMS 2.3 does not have: Hive 3's `get_table_req` and write ids.
const NOT_IN_HIVE_2_3: [&str; 4] = [
    "get_table_req",
    "get_valid_write_ids",
    "allocate_table_write_ids",
    "get_partition_names_ps",
];

#[test]
#[ignore = "needs a Java HMS: HMS_URI=thrift://127.0.0.1:PORT (see scripts/bench-vs-java.sh)"]
fn every_workload_runs_against_the_java_hms_or_is_reported_unsupported() {
    let uri = std::env::var("HMS_URI").expect("HMS_URI names the Java HMS to run against");
    let workloads = ALL_WORKLOADS
        .iter()
        .chain(HMSBENCH_WORKLOADS.iter())
        .copied()
        .collect();
    let mut args = tiny_args(uri.clone(), workloads);
    args.number = vec![3];
    let rows = run(&args);
    for row in &rows {
        let measurement = &row.measurement;
        let name = measurement
            .workload
            .benchmark_name(measurement.object_count);
        match &measurement.outcome {
            Outcome::Measured => assert!(measurement.histogram.count() > 0, "{name}"),
            Outcome::Unsupported(message) => assert!(
                NOT_IN_HIVE_2_3.iter().any(|call| message.contains(call)),
                "{name}: only calls Hive 2.3 lacks are unsupported: {message}"
            ),
            Outcome::Failed(message) => panic!("{name} failed: {message}"),
        }
    }
    assert_nothing_left(&uri, "hmsbench_test");
}
