//! The load generator behind `hivestore bench`: measures any Hive Metastore — hivestore or
//! Apache's — over Thrift, the same way for both.
//!
//! A run resolves its arguments to a [`Plan`] (every bound checked), then for each endpoint:
//! sets up its own database ([`fixture`]; a database of that name that bench did not create
//! makes it refuse), makes each measurement ([`runner`]: latency on one connection, throughput
//! on K, each bounded in time and calls, after an unmeasured warm-up), drops the database, and
//! reports ([`report`]: table, CSV or JSON lines; two endpoints side by side with `--compare`).
//! A workload whose call the server does not implement is reported `unsupported`.
//!
//! It is not a benchmark of the engine (those are the criterion benches of `hivestore-benches`)
//! and not a correctness test: it counts failures, it does not check answers.
//!
//! ```no_run
//! use clap::Parser;
//! use hivestore_loadgen::BenchArgs;
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     bench: BenchArgs,
//! }
//! let cli = Cli::parse_from(["bench", "--uri", "thrift://127.0.0.1:9083", "--mode", "latency"]);
//! let report = hivestore_loadgen::run(&cli.bench)?;
//! print!("{report}");
//! # Ok::<(), hivestore_loadgen::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod args;
pub mod endpoint;
mod error;
pub mod fixture;
pub mod histogram;
pub mod report;
pub mod runner;
pub mod workload;

use hivestore_idl::fb303::TFacebookServiceSyncClient;

pub use args::{BenchArgs, Format, Mode, Plan};
pub use endpoint::Endpoint;
pub use error::Error;
pub use workload::Workload;

use crate::endpoint::Client;
use crate::fixture::{Fixture, FixtureShape};
use crate::report::Row;

/// Runs the benchmark the arguments describe and returns the report in the chosen format
/// (after writing the CSV copy, if asked for).
pub fn run(args: &BenchArgs) -> Result<String, Error> {
    let plan = Plan::from_args(args)?;
    let rows = run_plan(&plan)?;
    if let Some(path) = &plan.csv_out {
        std::fs::write(path, report::render(&rows, Format::Csv)).map_err(|source| {
            Error::Output {
                target: path.display().to_string(),
                source,
            }
        })?;
    }
    Ok(report::render(&rows, plan.format))
}

/// Runs every step of `plan` on every endpoint, one endpoint after the other.
pub fn run_plan(plan: &Plan) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for (endpoint_index, endpoint) in plan.endpoints.iter().enumerate() {
        rows.extend(run_endpoint(plan, endpoint_index, endpoint)?);
    }
    Ok(rows)
}

/// Sets up, measures, and tears down on one endpoint. Teardown runs whether or not the
/// measurements went well.
fn run_endpoint(
    plan: &Plan,
    endpoint_index: usize,
    endpoint: &Endpoint,
) -> Result<Vec<Row>, Error> {
    let mut admin = endpoint.connect()?;
    let server = describe_server(&mut admin);
    tracing::info!(endpoint = %endpoint.uri, %server, database = %plan.database, "setting up");
    let shape = FixtureShape {
        read_table_count: plan.read_table_count,
        commit_table_count: plan.commit_table_count(),
    };
    let fixture = Fixture::set_up(&mut admin, endpoint, &plan.database, shape)?;
    let rows = measure_all(plan, endpoint_index, endpoint, &fixture, &server);
    // A long run may have outlived the admin connection's welcome; use a fresh one.
    let mut admin = endpoint.connect()?;
    fixture.tear_down(&mut admin)?;
    Ok(rows)
}

fn measure_all(
    plan: &Plan,
    endpoint_index: usize,
    endpoint: &Endpoint,
    fixture: &Fixture,
    server: &str,
) -> Vec<Row> {
    plan.steps
        .iter()
        .map(|step| {
            tracing::info!(
                endpoint = %endpoint.uri,
                workload = step.workload.name(),
                mode = step.mode.name(),
                connections = step.connection_count,
                "measuring"
            );
            let measurement = runner::measure(
                endpoint,
                fixture.database(),
                plan.read_table_count,
                step.workload,
                step.connection_count,
                step.budget,
            );
            Row {
                endpoint_index,
                endpoint: endpoint.uri.clone(),
                server: server.to_string(),
                mode: step.mode,
                measurement,
            }
        })
        .collect()
}

/// fb303's name and version of the server, or `unknown`.
fn describe_server(client: &mut Client) -> String {
    let name = client.get_name().unwrap_or_else(|_| "unknown".to_string());
    let version = client
        .get_version()
        .unwrap_or_else(|_| "unknown".to_string());
    format!("{name} {version}")
}
