//! Planning time (`SessionContext::sql` to `create_physical_plan`) of a query that selects 1%
//! of a table's partitions (100,000 by default; `HIVESTORE_DF_BENCH_PARTITIONS`): pruned by
//! the metastore's filter, and by DataFusion over a listing of every partition, over the
//! embedded store and over Thrift (an in-process hivestore server on loopback).
//!
//! Run with `cargo bench -p hivestore-datafusion --bench planning`.

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use hivestore::{
    Database, FieldSchema, Metastore, Partition, StorageDescriptor, StoreOptions, Table,
};
use hivestore_datafusion::{
    EmbeddedSource, HiveCatalog, HiveScanExec, MetadataSource, Pruning, ThriftSource,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::Server;
use hivestore_thrift::service::ServerState;

const PARTITIONS_DEFAULT: usize = 100_000;
/// Values of the second key per value of the first: the query's `day < N` selects 1%.
const HOURS: usize = 100;
const ADD_BATCH: usize = 1_000;
const PARQUET_INPUT_FORMAT: &str = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat";

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    }
}

/// A metastore in `data` holding table `bench.events` with `count` partitions
/// (`day`, `hour`), metadata only: their directories are not made, so scans list no files.
fn load(data: &std::path::Path, warehouse: &str, count: usize) -> Metastore {
    let options = StoreOptions::new(warehouse).metadata_only();
    let metastore = Metastore::open_with_options(data, options).expect("open the store");
    metastore
        .create_database(Database {
            name: "bench".into(),
            ..Database::default()
        })
        .expect("create the database");
    metastore
        .create_table(Table {
            db_name: "bench".into(),
            table_name: "events".into(),
            sd: Some(StorageDescriptor {
                cols: vec![column("user_id", "bigint"), column("url", "string")],
                input_format: Some(PARQUET_INPUT_FORMAT.into()),
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("day", "int"), column("hour", "int")],
            ..Table::default()
        })
        .expect("create the table");
    let values: Vec<Vec<String>> = (0..count)
        .map(|index| vec![(index / HOURS).to_string(), (index % HOURS).to_string()])
        .collect();
    for chunk in values.chunks(ADD_BATCH) {
        let partitions = chunk
            .iter()
            .map(|values| Partition {
                values: values.clone(),
                parameters: [("numRows".to_string(), "100".to_string())].into(),
                ..Partition::default()
            })
            .collect();
        metastore
            .add_partitions("hive", "bench", "events", partitions, false)
            .expect("add partitions");
    }
    metastore
}

/// Plans `sql` and answers the partition count of its Hive scan.
async fn plan(context: &SessionContext, sql: &str) -> usize {
    let plan = context
        .sql(sql)
        .await
        .expect("a logical plan")
        .create_physical_plan()
        .await
        .expect("a physical plan");
    scanned_partitions(plan.as_ref()).expect("a Hive scan")
}

fn scanned_partitions(plan: &dyn ExecutionPlan) -> Option<usize> {
    if let Some(scan) = plan.as_any().downcast_ref::<HiveScanExec>() {
        return Some(scan.partition_count());
    }
    plan.children()
        .into_iter()
        .find_map(|child| scanned_partitions(child.as_ref()))
}

fn bench_source(
    criterion: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    name: &str,
    source: Arc<dyn MetadataSource>,
    count: usize,
) {
    let days = (count / HOURS / 100).max(1);
    let sql = format!("SELECT count(*) FROM hive.bench.events WHERE day < {days}");
    let expected = (days * HOURS).min(count);
    let mut group = criterion.benchmark_group(format!("plan_1pct_of_{count}"));
    // Planning over a listing of 100k partitions takes seconds: flat sampling runs ten such
    // plans in all (linear sampling would run 55), so that a run stays within minutes.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for pruning in [Pruning::Metastore, Pruning::DataFusion] {
        let context = SessionContext::new();
        let catalog = HiveCatalog::new(Arc::clone(&source)).with_pruning(pruning);
        context.register_catalog("hive", Arc::new(catalog));
        // Checked once, outside the measurement: both prune to the same partitions.
        assert_eq!(runtime.block_on(plan(&context, &sql)), expected);
        let id = format!(
            "{name}/{}",
            match pruning {
                Pruning::Metastore => "metastore_filter",
                Pruning::DataFusion => "list_all_prune_in_datafusion",
            }
        );
        group.bench_function(id, |bench| {
            bench.iter(|| runtime.block_on(plan(&context, &sql)))
        });
    }
    group.finish();
}

fn planning(criterion: &mut Criterion) {
    let count = std::env::var("HIVESTORE_DF_BENCH_PARTITIONS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(PARTITIONS_DEFAULT);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (data, warehouse) = (dir.path().join("data"), dir.path().join("warehouse"));
    let warehouse = warehouse.to_string_lossy().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");

    let metastore = Arc::new(load(&data, &warehouse, count));
    let embedded: Arc<dyn MetadataSource> = Arc::new(EmbeddedSource::new(Arc::clone(&metastore)));
    bench_source(criterion, &runtime, "embedded", embedded, count);
    drop(metastore);

    // The same directory served over Thrift once the embedded store has let it go.
    let options = StoreOptions::new(warehouse).metadata_only();
    let store = hivestore_engine::Store::open(&data, options).expect("reopen the store");
    let server = Server::bind(
        "127.0.0.1:0",
        Limits::default(),
        Arc::new(ServerState::new(store)),
    )
    .expect("bind a loopback port");
    let address = server.local_addr();
    let stop = server.stop_handle();
    let thread = std::thread::spawn(move || server.run());
    let thrift: Arc<dyn MetadataSource> = Arc::new(ThriftSource::new(&address.to_string()));
    bench_source(criterion, &runtime, "thrift", thrift, count);
    stop.stop();
    let _ = thread.join();
}

criterion_group!(benches, planning);
criterion_main!(benches);
