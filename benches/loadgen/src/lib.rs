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
//! The partition workloads run at each size of `--partitions`, after the others: the
//! partitioned table ([`partition_table`]) grows to each size in turn, and each listing is
//! followed by a measurement of the [`loopback`] limit for replies of its size, so that a
//! report says how close the server came to the socket.
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
mod cpu;
pub mod encoded_call;
pub mod endpoint;
mod error;
pub mod fixture;
pub mod histogram;
pub mod hive_expression;
pub mod hmsbench;
pub mod hmsbench_data;
pub mod loopback;
pub mod partition_table;
mod progress;
pub mod report;
pub mod runner;
pub mod workload;

use std::collections::BTreeMap;
use std::time::Duration;

use hivestore_idl::fb303::TFacebookServiceSyncClient;

pub use args::{BenchArgs, Format, Mode, Plan};
pub use endpoint::Endpoint;
pub use error::Error;
pub use workload::Workload;

use crate::args::Step;
use crate::endpoint::Client;
use crate::fixture::{Fixture, FixtureShape};
use crate::loopback::{LoopbackRate, Shape};
use crate::report::Row;
use crate::runner::{Measurement, Outcome};
use crate::workload::{SharedTable, Target};

/// The longest a loopback limit is measured for, after each listing.
const LOOPBACK_DURATION_MAX: Duration = Duration::from_secs(1);

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
/// measurements went well, and its failure (a server too slow to drop a big table within
/// [`endpoint::ADMIN_CALL_TIMEOUT`], say) is logged, not allowed to lose them.
fn run_endpoint(
    plan: &Plan,
    endpoint_index: usize,
    endpoint: &Endpoint,
) -> Result<Vec<Row>, Error> {
    let mut admin = endpoint.connect_admin()?;
    let server = describe_server(&mut admin);
    tracing::info!(endpoint = %endpoint.uri, %server, database = %plan.database, "setting up");
    let shape = FixtureShape {
        read_table_count: plan.read_table_count,
        commit_table_count: plan.commit_table_count(),
    };
    let mut fixture = Fixture::set_up(&mut admin, endpoint, &plan.database, shape)?;
    let rows = measure_all(plan, endpoint_index, endpoint, &mut fixture, &server);
    if plan.keep_database {
        tracing::info!(endpoint = %endpoint.uri, database = %plan.database, "keeping the bench database (--keep-database)");
        return Ok(rows);
    }
    tracing::info!(
        endpoint = %endpoint.uri,
        database = %plan.database,
        partitions = fixture.partition_count(),
        "dropping the bench database"
    );
    // A long run may have outlived the admin connection's welcome; use a fresh one.
    let torn_down = endpoint
        .connect_admin()
        .and_then(|mut admin| fixture.tear_down(&mut admin));
    // The measurements stand, however the teardown went; a marked database left behind is
    // removed by the next run.
    if let Err(error) = torn_down {
        tracing::error!(
            endpoint = %endpoint.uri,
            database = %plan.database,
            %error,
            "the bench database could not be dropped; the next run with this --database drops it"
        );
    }
    Ok(rows)
}

fn measure_all(
    plan: &Plan,
    endpoint_index: usize,
    endpoint: &Endpoint,
    fixture: &mut Fixture,
    server: &str,
) -> Vec<Row> {
    // Once a shared table could not be grown, no bigger size of it is tried.
    let mut setup_failures = BTreeMap::new();
    let mut rows = Vec::with_capacity(plan.steps.len());
    for step in &plan.steps {
        tracing::info!(
            endpoint = %endpoint.uri,
            workload = step.workload.name(),
            mode = step.mode.name(),
            connections = step.connection_count,
            partitions = step.partition_count,
            number = step.object_count,
            "measuring"
        );
        let not_ready = prepare_shared_table(endpoint, fixture, step, &mut setup_failures);
        let mut measurement = match not_ready {
            Some(outcome) => Measurement::not_made(
                step.workload,
                step.connection_count,
                step.partition_count,
                outcome,
            ),
            None => {
                let target = Target {
                    database: fixture.database().to_string(),
                    read_table_count: plan.read_table_count,
                    partition_parameter_count: plan.partition_parameter_count,
                    partition_count: step.partition_count,
                    object_count: step.object_count,
                };
                runner::measure(
                    endpoint,
                    &target,
                    step.workload,
                    step.connection_count,
                    step.budget,
                )
            }
        };
        measurement.object_count = step.object_count;
        let loopback = loopback_limit(step, &measurement);
        rows.push(Row {
            endpoint_index,
            endpoint: endpoint.uri.clone(),
            server: server.to_string(),
            mode: step.mode,
            measurement,
            loopback,
        });
    }
    rows
}

/// Grows the shared table the step reads to the step's size, with the column statistics it
/// reads. The outcome of a step that cannot be measured: `unsupported` if the server lacks a
/// setup call, `failed` otherwise.
fn prepare_shared_table(
    endpoint: &Endpoint,
    fixture: &mut Fixture,
    step: &Step,
    setup_failures: &mut BTreeMap<(SharedTable, bool), Outcome>,
) -> Option<Outcome> {
    let (shared, with_stats) = step.workload.shared_table()?;
    let partition_count = step.partition_count.or(step.object_count)?;
    if let Some(failure) = setup_failures.get(&(shared, with_stats)) {
        return Some(failure.clone());
    }
    let grown_enough = fixture.shared_partition_count(shared) >= Some(partition_count);
    let prepared = endpoint.connect_admin().and_then(|mut admin| {
        if !grown_enough {
            fixture.grow(&mut admin, shared, partition_count)?;
        }
        if with_stats {
            fixture.write_stats(&mut admin, shared, partition_count)?;
        }
        Ok(())
    });
    let error = prepared.err()?;
    tracing::warn!(endpoint = %endpoint.uri, %error, "a shared table could not be set up");
    let failure = match &error {
        Error::Call { source, .. } => match runner::classify(source) {
            Outcome::Unsupported(message) => Outcome::Unsupported(message),
            _ => Outcome::Failed(format!("setting up {partition_count} partitions: {error}")),
        },
        _ => Outcome::Failed(format!("setting up {partition_count} partitions: {error}")),
    };
    setup_failures.insert((shared, with_stats), failure.clone());
    Some(failure)
}

/// The loopback limit for a listing's replies, measured right after it: as many bytes per
/// sample in as many replies, over as many connections, within the step's bounds and at
/// most [`LOOPBACK_DURATION_MAX`].
fn loopback_limit(step: &Step, measurement: &Measurement) -> Option<LoopbackRate> {
    if !step.workload.lists_partitions() || measurement.histogram.count() == 0 {
        return None;
    }
    let shape = Shape {
        call_count: (measurement.calls_per_sample().round() as u64)
            .clamp(1, loopback::CALLS_PER_SAMPLE_MAX),
        reply_bytes: measurement.reply_bytes_per_sample().round() as u64,
    };
    if shape.reply_bytes / shape.call_count >= loopback::REPLY_BYTES_MAX {
        return None;
    }
    let duration = step.budget.duration.min(LOOPBACK_DURATION_MAX);
    let rate = loopback::measure(
        shape,
        step.connection_count,
        duration,
        step.budget.call_count_max,
    );
    rate.map_err(|error| tracing::warn!(%error, "the loopback limit could not be measured"))
        .ok()
}

/// fb303's name and version of the server, or `unknown`.
fn describe_server(client: &mut Client) -> String {
    let name = client.get_name().unwrap_or_else(|_| "unknown".to_string());
    let version = client
        .get_version()
        .unwrap_or_else(|_| "unknown".to_string());
    format!("{name} {version}")
}
