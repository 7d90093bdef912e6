//! Every load-generator workload, run once at a tiny size against an in-process hivestore, so
//! that none rots; and the rules bench keeps about data it did not create. Nothing here times
//! anything: speed is for the benchmarks.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::TThriftHiveMetastoreSyncClient;
use hivestore_loadgen::args::Plan;
use hivestore_loadgen::endpoint::Endpoint;
use hivestore_loadgen::fixture::{
    bench_table, is_no_such_object, new_database, MARKER_PARAMETER, MARKER_VALUE,
};
use hivestore_loadgen::runner::Outcome;
use hivestore_loadgen::workload::ALL_WORKLOADS;
use hivestore_loadgen::{BenchArgs, Error, Format, Mode};
use hivestore_tests::TestServer;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TInputProtocol, TMessageIdentifier, TMessageType,
    TOutputProtocol, TType,
};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport};

fn tiny_args(server: &TestServer) -> BenchArgs {
    BenchArgs {
        uri: format!("thrift://{}", server.addr),
        framed: false,
        compact: false,
        database: "bench_test".to_string(),
        mode: vec![Mode::Latency, Mode::Throughput],
        connections: vec![2],
        seconds: Some(30.0),
        calls: Some(3),
        warmup: 1,
        workload: ALL_WORKLOADS.to_vec(),
        tables: 2,
        format: Format::Table,
        csv_out: None,
        compare: None,
    }
}

fn connect(server: &TestServer) -> hivestore_loadgen::endpoint::Client {
    Endpoint::parse(&format!("thrift://{}", server.addr), false, false)
        .and_then(|endpoint| endpoint.connect())
        .expect("connect")
}

#[test]
fn every_workload_runs_in_both_modes_and_leaves_nothing_behind() {
    let server = TestServer::start();
    let args = tiny_args(&server);
    let rows = hivestore_loadgen::run_plan(&Plan::from_args(&args).expect("plan")).expect("run");
    assert_eq!(rows.len(), ALL_WORKLOADS.len() * 2);
    for row in &rows {
        let measurement = &row.measurement;
        let step = format!("{} {}", measurement.workload.name(), row.mode.name());
        assert_eq!(measurement.outcome, Outcome::Measured, "{step}");
        assert_eq!(
            measurement.histogram.count(),
            3,
            "{step}: the call cap holds"
        );
        let expected_connections = if row.mode == Mode::Latency { 1 } else { 2 };
        assert_eq!(measurement.connection_count, expected_connections, "{step}");
    }
    let error = connect(&server)
        .get_database("bench_test".to_string())
        .expect_err("teardown drops the bench database");
    assert!(is_no_such_object(&error), "{error}");
}

#[test]
fn every_workload_runs_over_framed_compact() {
    let server = TestServer::start();
    let mut args = tiny_args(&server);
    args.framed = true;
    args.compact = true;
    args.mode = vec![Mode::Latency];
    let rows = hivestore_loadgen::run_plan(&Plan::from_args(&args).expect("plan")).expect("run");
    assert!(rows
        .iter()
        .all(|row| row.measurement.outcome == Outcome::Measured));
}

#[test]
fn a_database_bench_did_not_create_is_refused_and_left_alone() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let theirs = new_database("theirs", BTreeMap::new());
    client.create_database(theirs).expect("create");
    client
        .create_table(bench_table("theirs", "precious"))
        .expect("create table");
    let mut args = tiny_args(&server);
    args.database = "theirs".to_string();
    let error = hivestore_loadgen::run(&args).expect_err("refused");
    assert!(matches!(error, Error::NotOurs { .. }), "{error}");
    assert!(error.to_string().contains("theirs"), "{error}");
    client
        .get_table("theirs".to_string(), "precious".to_string())
        .expect("their table is still there");
}

#[test]
fn a_marked_leftover_database_is_replaced() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let marker = BTreeMap::from([(MARKER_PARAMETER.to_string(), MARKER_VALUE.to_string())]);
    let leftover = new_database("bench_test", marker);
    client.create_database(leftover).expect("create");
    client
        .create_table(bench_table("bench_test", "bench_table_0"))
        .expect("create table");
    let mut args = tiny_args(&server);
    args.workload = vec![hivestore_loadgen::Workload::GetTable];
    args.mode = vec![Mode::Latency];
    hivestore_loadgen::run(&args).expect("a marked leftover does not stop a run");
}

#[test]
fn reports_come_as_table_csv_and_json_lines_and_compare_two_endpoints() {
    let server = TestServer::start();
    let dir = tempfile::tempdir().expect("temporary directory");
    let csv_path = dir.path().join("report.csv");
    let mut args = tiny_args(&server);
    args.workload = vec![hivestore_loadgen::Workload::GetTable];
    args.compare = Some(args.uri.clone());
    args.csv_out = Some(csv_path.clone());
    let table = hivestore_loadgen::run(&args).expect("table");
    assert!(table.starts_with("endpoint"), "{table}");
    assert!(
        table.contains(" against "),
        "the comparison follows:\n{table}"
    );
    let csv = std::fs::read_to_string(&csv_path).expect("the CSV copy");
    assert_eq!(csv.lines().count(), 1 + 2 * 2, "{csv}");
    assert!(csv.starts_with("endpoint,server,workload,mode,connections,calls,"));
    args.format = Format::Jsonl;
    args.compare = None;
    args.csv_out = None;
    let lines = hivestore_loadgen::run(&args).expect("jsonl");
    assert_eq!(lines.lines().count(), 2);
    for line in lines.lines() {
        assert!(line.starts_with('{') && line.ends_with('}'), "{line}");
        assert!(line.contains(r#""workload":"get_table""#), "{line}");
        assert!(line.contains(r#""status":"ok""#), "{line}");
    }
}

#[test]
fn bounds_are_checked_before_anything_is_touched() {
    let server = TestServer::start();
    for (field, value) in [
        ("connections", 0usize),
        ("connections", 100_000),
        ("tables", 0),
    ] {
        let mut args = tiny_args(&server);
        match field {
            "connections" => args.connections = vec![value],
            _ => args.tables = value,
        }
        let error = Plan::from_args(&args).expect_err(field);
        assert!(error.to_string().contains(&format!("--{field}")), "{error}");
    }
    let mut args = tiny_args(&server);
    args.uri = "127.0.0.1:9083".to_string();
    assert!(matches!(Plan::from_args(&args), Err(Error::Argument(_))));
}

/// A server that knows no method: it answers every call `UNKNOWN_METHOD`, as Apache's HMS
/// answers a call of a newer IDL. Serves one connection, then stops.
fn start_server_that_knows_nothing() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let reader = stream.try_clone().expect("clone");
        let mut input = TBinaryInputProtocol::new(TBufferedReadTransport::new(reader), true);
        let mut output = TBinaryOutputProtocol::new(TBufferedWriteTransport::new(stream), true);
        while let Ok(call) = input.read_message_begin() {
            if input.skip(TType::Struct).is_err() || input.read_message_end().is_err() {
                return;
            }
            let message = format!("Invalid method name: '{}'", call.name);
            let error =
                thrift::ApplicationError::new(thrift::ApplicationErrorKind::UnknownMethod, message);
            let reply =
                TMessageIdentifier::new(call.name, TMessageType::Exception, call.sequence_number);
            let written = output
                .write_message_begin(&reply)
                .and_then(|()| {
                    thrift::Error::write_application_error_to_out_protocol(&error, &mut output)
                })
                .and_then(|()| output.write_message_end())
                .and_then(|()| output.flush());
            if written.is_err() {
                return;
            }
        }
    });
    addr
}

#[test]
fn a_call_the_server_does_not_know_makes_the_workload_unsupported() {
    let addr = start_server_that_knows_nothing();
    let endpoint = Endpoint::parse(&format!("thrift://{addr}"), false, false).expect("endpoint");
    let budget = hivestore_loadgen::runner::Budget {
        duration: std::time::Duration::from_secs(30),
        call_count_max: 3,
        warmup_call_count: 1,
    };
    let measurement = hivestore_loadgen::runner::measure(
        &endpoint,
        "bench_test",
        1,
        hivestore_loadgen::Workload::GetTableReq,
        1,
        budget,
    );
    assert_eq!(
        measurement.outcome,
        Outcome::Unsupported("Invalid method name: 'get_table_req'".to_string())
    );
    assert_eq!(measurement.histogram.count(), 0);
}
