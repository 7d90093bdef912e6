//! Table reads and writes, named after the numbers they guard.
//!
//! The target of issue "engine and tables": `get_table` over Thrift on loopback with p50 under
//! 50 µs (the Java HMS: 1.6 ms). `get_table_in_50us` holds the whole call through the
//! in-process server and the engine's share of it, owned and zero-copy, on a sled store of
//! 1,000 tables of 20 columns. `create_table_durable_under_1ms` holds a durable (fsynced)
//! create, alone and with group commit under 16 writers.
//!
//! Run: `cargo bench -p hivestore-benches --bench engine_tables`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hivestore_engine::{Database, Durability, Store, StoreOptions, DEFAULT_CATALOG_NAME};
use hivestore_loadgen::endpoint::Endpoint;
use hivestore_loadgen::fixture::{bench_table, read_table_name, Fixture, FixtureShape};
use hivestore_loadgen::workload::{Caller, Target, Workload};
use hivestore_tests::TestServer;
use hivestore_thrift::convert::table_from_idl;

/// Tables in the stores read from.
const TABLE_COUNT: usize = 1000;
/// The database they live in.
const DATABASE: &str = "bench";
/// Concurrent writers of the group-commit bench.
const WRITER_COUNT: u64 = 16;

fn open_store(dir: &tempfile::TempDir, durability: Durability) -> Store {
    let mut options = StoreOptions::new("file:/hivestore-bench-warehouse").metadata_only();
    options.durability = durability;
    let store = Store::open(&dir.path().join("data"), options).expect("open a store");
    let database = Database {
        name: DATABASE.to_string(),
        ..Database::default()
    };
    store
        .create_database(database)
        .expect("create the database");
    store
}

fn engine_table(name: &str) -> hivestore_engine::Table {
    table_from_idl(bench_table(DATABASE, name), DEFAULT_CATALOG_NAME)
}

/// A store of `TABLE_COUNT` tables and their names. Reads do not depend on durability, so the
/// setup skips the fsyncs.
fn read_store(dir: &tempfile::TempDir) -> (Store, Vec<String>) {
    let store = open_store(dir, Durability::Memory);
    let names: Vec<String> = (0..TABLE_COUNT).map(read_table_name).collect();
    for name in &names {
        store
            .create_table(engine_table(name))
            .expect("create a table");
    }
    (store, names)
}

fn get_table_in_50us(criterion: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (store, names) = read_store(&dir);
    let mut group = criterion.benchmark_group("get_table_in_50us");
    group.throughput(Throughput::Elements(1));
    let mut next = names.iter().cycle();
    group.bench_function("engine_owned", |bencher| {
        bencher.iter(|| {
            let name = next.next().expect("cycle");
            black_box(
                store
                    .get_table(DEFAULT_CATALOG_NAME, DATABASE, name)
                    .expect("get"),
            )
        })
    });
    group.bench_function("engine_view", |bencher| {
        bencher.iter(|| {
            let name = next.next().expect("cycle");
            let view = store
                .get_table_view(DEFAULT_CATALOG_NAME, DATABASE, name)
                .expect("get");
            black_box(view.archived().expect("valid").table_name.len())
        })
    });
    thrift_loopback(&mut group);
    group.finish();
}

/// The whole call: the generated Rust client, loopback TCP, the server's detection, decoding,
/// dispatch, the engine, encoding, and back. One connection, buffered binary (Hive's default).
fn thrift_loopback(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let server = TestServer::start();
    let endpoint =
        Endpoint::parse(&format!("thrift://{}", server.addr), false, false).expect("endpoint");
    let mut client = endpoint.connect().expect("connect");
    let shape = FixtureShape {
        read_table_count: TABLE_COUNT,
        commit_table_count: 0,
    };
    let fixture =
        Fixture::set_up(&mut client, &endpoint, "bench", shape).expect("set up the tables");
    let target = Target {
        database: fixture.database().to_string(),
        read_table_count: TABLE_COUNT,
        partition_parameter_count: 0,
        partition_count: None,
        object_count: None,
    };
    let mut caller = Caller::new(Workload::GetTable, &target, 0);
    group.bench_function("thrift_loopback_1_connection", |bencher| {
        bencher.iter(|| caller.call(&mut client).expect("get_table"))
    });
    fixture.tear_down(&mut client).expect("tear down");
}

fn create_table_durable_under_1ms(criterion: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = open_store(&dir, Durability::Flush);
    let next_id = AtomicU64::new(0);
    let create = |store: &Store| {
        let id = next_id.fetch_add(1, Ordering::Relaxed);
        store
            .create_table(engine_table(&format!("created_{id}")))
            .expect("create a table");
    };
    let mut group = criterion.benchmark_group("create_table_durable_under_1ms");
    group.throughput(Throughput::Elements(1));
    group.bench_function("1_writer", |bencher| bencher.iter(|| create(&store)));
    group.bench_function("16_writers_group_commit", |bencher| {
        bencher.iter_custom(|iterations| {
            let per_writer = iterations.div_ceil(WRITER_COUNT);
            let start = Instant::now();
            std::thread::scope(|scope| {
                for _ in 0..WRITER_COUNT {
                    scope.spawn(|| (0..per_writer).for_each(|_| create(&store)));
                }
            });
            // Report the time per create actually made.
            start
                .elapsed()
                .mul_f64(iterations as f64 / (per_writer * WRITER_COUNT) as f64)
        })
    });
    group.finish();
}

fn bounded() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = bounded();
    targets = get_table_in_50us, create_table_durable_under_1ms
}
criterion_main!(benches);
