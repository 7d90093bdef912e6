//! Every load-generator workload, run once at a tiny size against an in-process hivestore, so
//! that none rots (the partition workloads on a table of 48 partitions); and the rules bench
//! keeps about data it did not create and about calls a server lacks. Nothing here times
//! anything: speed is for the benchmarks.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{ShowLocksRequest, TThriftHiveMetastoreSyncClient};
use hivestore_loadgen::args::Plan;
use hivestore_loadgen::endpoint::Endpoint;
use hivestore_loadgen::fixture::{
    bench_table, is_no_such_object, new_database, MARKER_PARAMETER, MARKER_VALUE,
};
use hivestore_loadgen::report::Row;
use hivestore_loadgen::runner::Outcome;
use hivestore_loadgen::workload::{Target, ALL_WORKLOADS, PARTITION_WORKLOADS};
use hivestore_loadgen::{BenchArgs, Error, Format, Mode, Workload};
use hivestore_tests::TestServer;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TInputProtocol, TMessageIdentifier, TMessageType,
    TOutputProtocol, TType,
};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport};

/// Two days of 24 hours.
const TINY_PARTITION_COUNT: u64 = 48;

/// Samples a measurement of `workload` makes under the tiny cap of 3: `add_partitions` adds
/// the table's size, all 48 partitions in one call.
fn tiny_sample_count(workload: Workload) -> u64 {
    if workload == Workload::AddPartitions {
        1
    } else {
        3
    }
}

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
        partitions: vec![TINY_PARTITION_COUNT],
        number: vec![3],
        params: 0,
        format: Format::Table,
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
            tiny_sample_count(measurement.workload),
            "{step}: the call cap holds"
        );
        let expected_connections = if row.mode == Mode::Latency { 1 } else { 2 };
        assert_eq!(measurement.connection_count, expected_connections, "{step}");
    }
    let mut client = connect(&server);
    let error = client
        .get_database("bench_test".to_string())
        .expect_err("teardown drops the bench database");
    assert!(is_no_such_object(&error), "{error}");
    // pyiceberg_commit unlocks every lock it takes.
    let request = ShowLocksRequest::new(None::<String>, None::<String>, None::<String>, None, None);
    let locks = client.show_locks(request).expect("show_locks");
    assert_eq!(locks.locks.unwrap_or_default(), Vec::new());
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
    for partitions in [0, 10_000_001] {
        let mut args = tiny_args(&server);
        args.partitions = vec![48, partitions];
        let error = Plan::from_args(&args).expect_err("partitions");
        assert!(error.to_string().contains("--partitions"), "{error}");
    }
    let mut args = tiny_args(&server);
    args.uri = "127.0.0.1:9083".to_string();
    assert!(matches!(Plan::from_args(&args), Err(Error::Argument(_))));
}

/// A server that knows no method: it answers every call `UNKNOWN_METHOD`, as Apache's HMS
/// answers a call of a newer IDL, on every connection (the bench opens one to read counters).
fn start_server_that_knows_nothing() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                return;
            };
            std::thread::spawn(move || answer_unknown(stream));
        }
    });
    addr
}

fn answer_unknown(stream: std::net::TcpStream) {
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
}

#[test]
fn a_call_the_server_does_not_know_makes_the_workload_unsupported() {
    let addr = start_server_that_knows_nothing();
    let endpoint = Endpoint::parse(&format!("thrift://{addr}"), false, false).expect("endpoint");
    let budget = hivestore_loadgen::runner::Budget {
        duration: std::time::Duration::from_secs(30),
        call_count_max: 3,
        warmup_call_count: 1,
        pause: std::time::Duration::ZERO,
    };
    let target = Target {
        database: "bench_test".to_string(),
        read_table_count: 1,
        partition_parameter_count: 0,
        partition_count: None,
        object_count: None,
    };
    let measurement = hivestore_loadgen::runner::measure(
        &endpoint,
        &target,
        hivestore_loadgen::Workload::GetTableReq,
        1,
        budget,
    );
    assert_eq!(
        measurement.outcome,
        Outcome::Unsupported("Invalid method name: 'get_table_req'".to_string())
    );
    assert_eq!(measurement.histogram.count(), 0);
    assert_eq!(
        measurement.server_time, None,
        "no server time counters: no figure"
    );
}

/// The partitions a sample of `workload` returns (or adds) on a table of 48 partitions (two
/// days): the leading-key filter and the planners' query select one day, the second-key
/// filter one hour of each day.
fn tiny_partitions_per_call(workload: Workload) -> u64 {
    match workload {
        Workload::GetPartitionsByFilterLeadingKey
        | Workload::GetPartitionsByExprLeadingKey
        | Workload::TrinoPlan
        | Workload::SparkPlan
        | Workload::HivePlan => 24,
        Workload::GetPartitionsByFilterSecondKey => 2,
        Workload::StatsUpdate => 1,
        _ => TINY_PARTITION_COUNT,
    }
}

fn value_of<'a>(header: &[&str], line: &'a [&'a str], column: &str) -> &'a str {
    let index = header
        .iter()
        .position(|name| *name == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    line[index]
}

#[test]
fn partition_workloads_count_partitions_and_bytes_and_measure_the_loopback_limit() {
    let server = TestServer::start();
    let mut args = tiny_args(&server);
    args.workload = PARTITION_WORKLOADS.to_vec();
    args.mode = vec![Mode::Latency];
    let rows = hivestore_loadgen::run_plan(&Plan::from_args(&args).expect("plan")).expect("run");
    assert_eq!(rows.len(), PARTITION_WORKLOADS.len());
    for row in &rows {
        let measurement = &row.measurement;
        let workload = measurement.workload;
        let name = workload.name();
        assert_eq!(measurement.outcome, Outcome::Measured, "{name}");
        assert_eq!(
            measurement.table_partition_count,
            Some(TINY_PARTITION_COUNT)
        );
        let samples = tiny_sample_count(workload);
        assert_eq!(measurement.histogram.count(), samples, "{name}");
        assert_eq!(
            measurement.partition_count,
            samples * tiny_partitions_per_call(workload),
            "{name}: partitions in the replies"
        );
        assert!(measurement.reply_bytes > 0, "{name}: reply bytes counted");
        let listing = workload.lists_partitions();
        assert_eq!(
            listing,
            !matches!(
                workload,
                Workload::AddPartitions | Workload::StatsWrite | Workload::StatsUpdate
            )
        );
        assert_eq!(row.loopback.is_some(), listing, "{name}: loopback limit");
        if let Some(loopback) = row.loopback {
            assert!(loopback.bytes_per_second > 0.0, "{name}");
        }
    }
    let trino = rows
        .iter()
        .find(|row| row.measurement.workload == Workload::TrinoPlan)
        .expect("trino_plan");
    assert_eq!(
        trino.measurement.call_count,
        3 * 4,
        "get_table_req, get_partition_names_ps, one batch of names and its statistics"
    );
    let bigger_names = |rows: &[Row]| {
        rows.iter()
            .filter(|row| row.measurement.workload == Workload::GetPartitionNames)
            .map(|row| row.measurement.partitions_per_sample() as u64)
            .collect::<Vec<_>>()
    };
    let mut args = tiny_args(&server);
    args.workload = vec![Workload::GetPartitionNames];
    args.mode = vec![Mode::Latency];
    args.partitions = vec![48, 24];
    let rows = hivestore_loadgen::run_plan(&Plan::from_args(&args).expect("plan")).expect("run");
    assert_eq!(
        bigger_names(&rows),
        vec![24, 48],
        "the table grows, smallest first"
    );
}

#[test]
fn partition_columns_come_after_the_old_ones_and_are_empty_where_they_do_not_apply() {
    let server = TestServer::start();
    let mut args = tiny_args(&server);
    args.workload = vec![Workload::GetTable, Workload::GetPartitionNames];
    args.mode = vec![Mode::Latency];
    args.format = Format::Csv;
    let csv = hivestore_loadgen::run(&args).expect("csv");
    let lines: Vec<Vec<&str>> = csv.lines().map(|line| line.split(',').collect()).collect();
    let header = &lines[0];
    assert_eq!(
        header[..15].join(","),
        "endpoint,server,workload,mode,connections,calls,seconds,calls_per_second,\
         p50_us,p90_us,p99_us,max_us,mean_us,status,detail",
        "the old columns keep their places"
    );
    let (get_table, names) = (&lines[1], &lines[2]);
    assert_eq!(value_of(header, get_table, "table_partitions"), "");
    assert_eq!(value_of(header, get_table, "loopback_ratio"), "");
    assert_ne!(value_of(header, get_table, "reply_bytes_per_call"), "");
    assert_eq!(value_of(header, names, "table_partitions"), "48");
    assert_eq!(value_of(header, names, "partitions_per_call"), "48");
    let ratio: f64 = value_of(header, names, "loopback_ratio")
        .parse()
        .expect("a ratio");
    assert!(ratio > 0.0, "{ratio}");
    if cfg!(target_os = "linux") {
        assert_ne!(value_of(header, names, "client_cpu_us_per_call"), "");
    }
    let server_us: f64 = value_of(header, get_table, "server_us_per_call")
        .parse()
        .expect("hivestore reports its own time");
    assert!(server_us > 0.0, "{server_us}");
    args.format = Format::Jsonl;
    let lines = hivestore_loadgen::run(&args).expect("jsonl");
    let mut lines = lines.lines();
    let get_table = lines.next().expect("get_table");
    assert!(
        get_table.contains(r#""table_partitions":null"#),
        "{get_table}"
    );
    let names = lines.next().expect("get_partition_names");
    assert!(names.contains(r#""table_partitions":48,"#), "{names}");
    assert!(names.contains(r#""partitions_per_call":48,"#), "{names}");
    args.format = Format::Table;
    args.workload = vec![Workload::GetTable];
    let table = hivestore_loadgen::run(&args).expect("table");
    assert!(
        !table.contains("loopback"),
        "a table without listings has no loopback column:\n{table}"
    );
}

/// A proxy to `upstream` that answers the calls named in `lacking` with `UNKNOWN_METHOD`, as
/// a metastore of an older Hive does, and forwards every other message both ways. Serves
/// connections until the test ends.
fn start_proxy_lacking(upstream: std::net::SocketAddr, lacking: &'static [&'static str]) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            std::thread::spawn(move || {
                let _ = proxy_connection(client, upstream, lacking);
            });
        }
    });
    format!("thrift://{addr}")
}

/// Reads whole messages through a recording reader, so that each can be passed on byte for
/// byte once it is known what it is.
fn proxy_connection(
    client: std::net::TcpStream,
    upstream: std::net::SocketAddr,
    lacking: &[&str],
) -> thrift::Result<()> {
    let server = std::net::TcpStream::connect(upstream)?;
    let (mut to_client, mut to_server) = (client.try_clone()?, server.try_clone()?);
    let (request, reply) = (Recording::default(), Recording::default());
    let mut from_client = TBinaryInputProtocol::new(request.reading(client), true);
    let mut from_server = TBinaryInputProtocol::new(reply.reading(server), true);
    let mut answers = TBinaryOutputProtocol::new(to_client.try_clone()?, true);
    loop {
        let call = from_client.read_message_begin()?;
        from_client.skip(TType::Struct)?;
        from_client.read_message_end()?;
        let request = request.take();
        if lacking.contains(&call.name.as_str()) {
            let message = format!("Invalid method name: '{}'", call.name);
            let error =
                thrift::ApplicationError::new(thrift::ApplicationErrorKind::UnknownMethod, message);
            let reply =
                TMessageIdentifier::new(call.name, TMessageType::Exception, call.sequence_number);
            answers.write_message_begin(&reply)?;
            thrift::Error::write_application_error_to_out_protocol(&error, &mut answers)?;
            answers.write_message_end()?;
            answers.flush()?;
            continue;
        }
        std::io::Write::write_all(&mut to_server, &request)?;
        from_server.read_message_begin()?;
        from_server.skip(TType::Struct)?;
        from_server.read_message_end()?;
        std::io::Write::write_all(&mut to_client, &reply.take())?;
    }
}

/// What a [`RecordingRead`] read, kept until taken.
#[derive(Clone, Default)]
struct Recording(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Recording {
    fn reading(&self, stream: std::net::TcpStream) -> RecordingRead {
        RecordingRead {
            inner: std::io::BufReader::new(stream),
            recording: self.clone(),
        }
    }

    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// A reader that records what it reads.
struct RecordingRead {
    inner: std::io::BufReader<std::net::TcpStream>,
    recording: Recording,
}

impl std::io::Read for RecordingRead {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.recording
            .0
            .borrow_mut()
            .extend_from_slice(&buffer[..read]);
        Ok(read)
    }
}

#[test]
fn a_server_without_the_partition_calls_reports_them_unsupported_and_measures_the_rest() {
    let server = TestServer::start();
    let uri = start_proxy_lacking(server.addr, &["add_partitions", "get_partitions_by_names"]);
    let mut args = tiny_args(&server);
    args.uri = uri;
    args.mode = vec![Mode::Latency];
    args.workload = vec![
        Workload::GetTable,
        Workload::AddPartitions,
        Workload::GetPartitionNames,
        Workload::SparkPlan,
    ];
    let rows = hivestore_loadgen::run_plan(&Plan::from_args(&args).expect("plan"))
        .expect("a run, not a crash");
    for row in &rows {
        let measurement = &row.measurement;
        let name = measurement.workload.name();
        match measurement.workload {
            Workload::GetTable => assert_eq!(measurement.outcome, Outcome::Measured),
            _ => assert_eq!(
                measurement.outcome,
                Outcome::Unsupported("Invalid method name: 'add_partitions'".to_string()),
                "{name}: its own call or the table's setup is missing"
            ),
        }
    }
    let report = hivestore_loadgen::report::render(&rows, Format::Table);
    assert!(report.contains("unsupported"), "{report}");
}
