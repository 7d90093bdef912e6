//! Runs one SQL query with DataFusion over a Hive Metastore's tables, registered as catalog
//! `hive`: over Thrift (`--thrift host:port`) or the embedded store (`--embedded DATA_DIR
//! WAREHOUSE`, the directories of a stopped server). Prints each result row tab-separated,
//! then, with `--files`, how many partitions each Hive scan chose and each file it opened.
//!
//! ```sh
//! cargo run --release -p hivestore-datafusion --example query -- \
//!     --thrift 127.0.0.1:9083 --files "SELECT count(*) FROM hive.sales.orders WHERE ds = '2024-01-01'"
//! ```

use std::process::ExitCode;
use std::sync::Arc;

use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;
use hivestore::Metastore;
use hivestore_datafusion::{
    EmbeddedSource, HiveCatalog, HiveScanExec, MetadataSource, ThriftSource,
};

const USAGE: &str =
    "usage: query (--thrift HOST:PORT | --embedded DATA_DIR WAREHOUSE) [--files] SQL";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("query: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(arguments: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    let mut arguments = arguments.into_iter();
    let mut source: Option<Arc<dyn MetadataSource>> = None;
    let (mut files, mut sql) = (false, None);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--thrift" => {
                let address = arguments.next().ok_or(USAGE)?;
                source = Some(Arc::new(ThriftSource::new(&address)));
            }
            "--embedded" => {
                let (data, warehouse) = (
                    arguments.next().ok_or(USAGE)?,
                    arguments.next().ok_or(USAGE)?,
                );
                let metastore = Metastore::open(data, warehouse)?;
                source = Some(Arc::new(EmbeddedSource::new(Arc::new(metastore))));
            }
            "--files" => files = true,
            _ if sql.is_none() => sql = Some(argument),
            _ => return Err(USAGE.into()),
        }
    }
    let (source, sql) = (source.ok_or(USAGE)?, sql.ok_or(USAGE)?);
    let context = SessionContext::new();
    context.register_catalog("hive", Arc::new(HiveCatalog::new(source)));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let plan = context.sql(&sql).await?.create_physical_plan().await?;
        let batches = collect(Arc::clone(&plan), context.task_ctx()).await?;
        let options = FormatOptions::default().with_null("NULL");
        for batch in &batches {
            let formatters = batch
                .columns()
                .iter()
                .map(|column| ArrayFormatter::try_new(column.as_ref(), &options))
                .collect::<Result<Vec<_>, _>>()?;
            for row in 0..batch.num_rows() {
                let values: Vec<String> = formatters
                    .iter()
                    .map(|f| f.value(row).to_string())
                    .collect();
                println!("{}", values.join("\t"));
            }
        }
        if files {
            print_scans(plan.as_ref());
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}

/// Prints each Hive scan of `plan`: `partitions N`, then `opened PATH` per file it opened.
fn print_scans(plan: &dyn ExecutionPlan) {
    if let Some(scan) = plan.as_any().downcast_ref::<HiveScanExec>() {
        println!("partitions {}", scan.partition_count());
        for path in scan.opened_files() {
            println!("opened {}", path.display());
        }
    }
    for child in plan.children() {
        print_scans(child.as_ref());
    }
}
