//! The `hivestore bench` command line and the plan it resolves to, with every bound checked.

use std::path::PathBuf;
use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::error::Error;
use crate::fixture::DEFAULT_DATABASE;
use crate::partition_table::add_batch_partition_count;
use crate::runner::Budget;
use crate::workload::Workload;

/// The most connections a throughput measurement opens (a thread each): enough for a server's
/// default connection cap (1000, Hive's).
pub const CONNECTION_COUNT_MAX: usize = 1000;
/// The longest pause between two calls of a connection, in milliseconds.
const PAUSE_MS_MAX: u64 = 60_000;
/// The longest a measurement may run.
pub const DURATION_SECONDS_MAX: f64 = 3600.0;
/// The most measured samples of one measurement.
pub const CALL_COUNT_MAX: u64 = 100_000_000;
/// The most warm-up samples per connection.
pub const WARMUP_CALL_COUNT_MAX: u64 = 1_000_000;
/// The most read tables a run creates.
pub const READ_TABLE_COUNT_MAX: usize = 10_000;
/// The largest partitioned table a run sets up.
pub const PARTITION_COUNT_MAX: u64 = 10_000_000;
/// The most parameters per partition (`--params`).
pub const PARAMS_MAX: u64 = 1_000;
/// The largest hmsbench size (`--number`).
pub const NUMBER_MAX: u64 = 1_000_000;
/// The longest `--call-timeout`, in seconds: a day.
pub const CALL_TIMEOUT_SECONDS_MAX: u64 = 86_400;

/// Latency mode: samples by default, and the time bound.
const LATENCY_CALL_COUNT_DEFAULT: u64 = 100_000;
const LATENCY_SECONDS_DEFAULT: f64 = 10.0;
/// Throughput mode: the call cap (over all connections) by default, and the time bound.
const THROUGHPUT_CALL_COUNT_DEFAULT: u64 = 1_000_000;
const THROUGHPUT_SECONDS_DEFAULT: f64 = 5.0;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Mode {
    /// One connection, sequential calls: p50/p90/p99/max.
    Latency,
    /// K connections at once, for each K of `--connections`: calls per second.
    Throughput,
}

impl Mode {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Latency => "latency",
            Mode::Throughput => "throughput",
        }
    }
}

/// How the report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// `hivestore bench`: measure the latency and throughput of any Hive Metastore over Thrift.
///
/// Sets up its own database (marked as bench's; a database of that name that bench did not
/// create makes it refuse to run), measures, and drops the database again.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// The metastore to measure: thrift://host:port.
    #[arg(long)]
    pub uri: String,
    /// Framed transport (default: buffered, as Hive's client).
    #[arg(long)]
    pub framed: bool,
    /// Compact protocol (default: binary).
    #[arg(long)]
    pub compact: bool,
    /// The database bench creates, uses and drops.
    #[arg(long, default_value = DEFAULT_DATABASE)]
    pub database: String,
    /// Modes to run, in order (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "latency")]
    pub mode: Vec<Mode>,
    /// Connection counts for throughput mode (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    pub connections: Vec<usize>,
    /// Time bound of one measurement [default: 10 in latency mode, 5 in throughput mode].
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Sample bound of one measurement, over all its connections [default: 100000 in latency
    /// mode, 1000000 in throughput mode].
    #[arg(long)]
    pub calls: Option<u64>,
    /// Unmeasured samples per connection before measuring.
    #[arg(long, default_value_t = 100)]
    pub warmup: u64,
    /// Workloads to run, in order (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "get_table")]
    pub workload: Vec<Workload>,
    /// Read-only tables created for get_table and get_tables.
    #[arg(long, default_value_t = 16)]
    pub tables: usize,
    /// Sizes of the partitioned table for the partition workloads (comma-separated): each
    /// such workload is measured at each size, smallest first, the table growing in between.
    #[arg(long, value_delimiter = ',', default_value = "10000")]
    pub partitions: Vec<u64>,
    /// Sizes of hmsbench's sized benchmarks, its `-N` (comma-separated): the objects a
    /// sample works on (partitions, tables, transactions). Each such workload is measured at
    /// each size, smallest first.
    #[arg(long, short = 'N', value_delimiter = ',', default_value = "100")]
    pub number: Vec<u64>,
    /// hmsbench's `--params`: parameters (`parameter_<i>` = `value_<i>`) on each partition of
    /// `dropTableWithPartitions` and `dropTableMetaOnlyWithPartitions`.
    #[arg(long, default_value_t = 0)]
    pub params: u64,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Also write the report as CSV to this file.
    #[arg(long)]
    pub csv_out: Option<PathBuf>,
    /// A second metastore to run the same suite against, reported side by side.
    #[arg(long)]
    pub compare: Option<String>,
    /// Speak TLS to --uri, trusting the CA certificates of this PEM file.
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
    /// Speak TLS to --compare, trusting the CA certificates of this PEM file.
    #[arg(long)]
    pub compare_tls_ca: Option<PathBuf>,
    /// Make and drop --compare's bench tables through this metastore, for a --compare that
    /// only reads: a `hivestore serve --reader` beside the server that writes its database.
    #[arg(long)]
    pub compare_setup_via: Option<String>,
    /// Seconds one measured call may take before its connection is given up and the
    /// measurement reported failed (setup and teardown calls may take 30 minutes).
    #[arg(long, default_value_t = 60)]
    pub call_timeout: u64,
    /// Milliseconds each connection pauses after each measured call (throughput mode): many
    /// active connections at a rate the server can keep up with, rather than as fast as it
    /// answers.
    #[arg(long, default_value_t = 0)]
    pub pause_ms: u64,
    /// Announce this user with `set_ugi` on every connection, as Hive's client does without
    /// SASL (a server enforcing authorization needs a user; the bench's objects are its).
    #[arg(long)]
    pub user: Option<String>,
    /// Leave the bench database in place after the run (the next run drops it), so that
    /// what the run left in the store can be measured (`hivestore stats`).
    #[arg(long)]
    pub keep_database: bool,
}

/// One measurement to make on every endpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The workload.
    pub workload: Workload,
    /// Latency or throughput.
    pub mode: Mode,
    /// Connections.
    pub connection_count: usize,
    /// For a partition workload: the size of the partitioned table (and of an
    /// `add_partitions` measurement).
    pub partition_count: Option<u64>,
    /// For a sized hmsbench workload: its `N`.
    pub object_count: Option<u64>,
    /// Its bounds.
    pub budget: Budget,
}

/// A checked run: the endpoints, the database, the steps.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The endpoints, the measured one first.
    pub endpoints: Vec<Endpoint>,
    /// The bench database.
    pub database: String,
    /// Read-only tables to create.
    pub read_table_count: usize,
    /// hmsbench's `--params`.
    pub partition_parameter_count: u64,
    /// The measurements, in order.
    pub steps: Vec<Step>,
    /// The report format.
    pub format: Format,
    /// Where a CSV copy goes.
    pub csv_out: Option<PathBuf>,
    /// Whether the bench database stays after the run.
    pub keep_database: bool,
}

fn check<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    low: T,
    high: T,
) -> Result<T, Error> {
    if value < low || value > high {
        return Err(Error::Argument(format!(
            "--{name} {value} is out of range: it must be from {low} to {high}"
        )));
    }
    Ok(value)
}

fn budget(args: &BenchArgs, mode: Mode) -> Result<Budget, Error> {
    let (call_default, seconds_default) = match mode {
        Mode::Latency => (LATENCY_CALL_COUNT_DEFAULT, LATENCY_SECONDS_DEFAULT),
        Mode::Throughput => (THROUGHPUT_CALL_COUNT_DEFAULT, THROUGHPUT_SECONDS_DEFAULT),
    };
    let seconds = args.seconds.unwrap_or(seconds_default);
    let seconds = check("seconds", seconds, 0.001, DURATION_SECONDS_MAX)?;
    Ok(Budget {
        duration: Duration::from_secs_f64(seconds),
        call_count_max: check(
            "calls",
            args.calls.unwrap_or(call_default),
            1,
            CALL_COUNT_MAX,
        )?,
        warmup_call_count: check("warmup", args.warmup, 0, WARMUP_CALL_COUNT_MAX)?,
        pause: Duration::from_millis(check("pause-ms", args.pause_ms, 0, PAUSE_MS_MAX)?),
    })
}

impl Plan {
    /// Checks the arguments and lays out the steps: for each workload, each mode; the
    /// partition workloads after the others, for each partition count, smallest first.
    pub fn from_args(args: &BenchArgs) -> Result<Plan, Error> {
        let call_timeout = Duration::from_secs(check(
            "call-timeout",
            args.call_timeout,
            1,
            CALL_TIMEOUT_SECONDS_MAX,
        )?);
        let endpoint = |uri: &str, tls_ca: &Option<PathBuf>| {
            Endpoint::parse(uri, args.framed, args.compact).map(|endpoint| {
                let endpoint = endpoint
                    .with_call_timeout(call_timeout)
                    .with_user(args.user.clone());
                match tls_ca {
                    Some(ca) => endpoint.with_tls(ca.clone()),
                    None => endpoint,
                }
            })
        };
        let mut endpoints = vec![endpoint(&args.uri, &args.tls_ca)?];
        match &args.compare {
            Some(other) => {
                let compared = endpoint(other, &args.compare_tls_ca)?;
                endpoints.push(match &args.compare_setup_via {
                    Some(setup) => compared.with_setup(endpoint(setup, &args.compare_tls_ca)?),
                    None => compared,
                });
            }
            None if args.compare_tls_ca.is_some() || args.compare_setup_via.is_some() => {
                return Err(Error::Argument(
                    "--compare-tls-ca and --compare-setup-via need --compare".into(),
                ))
            }
            None => {}
        }
        if args.database.trim().is_empty() {
            return Err(Error::Argument("--database must name a database".into()));
        }
        let read_table_count = check("tables", args.tables, 1, READ_TABLE_COUNT_MAX)?;
        let partition_parameter_count = check("params", args.params, 0, PARAMS_MAX)?;
        for connections in &args.connections {
            check("connections", *connections, 1, CONNECTION_COUNT_MAX)?;
        }
        let mut partition_counts = dedup(&args.partitions);
        partition_counts.sort_unstable();
        for partition_count in &partition_counts {
            check("partitions", *partition_count, 1, PARTITION_COUNT_MAX)?;
        }
        let mut numbers = dedup(&args.number);
        numbers.sort_unstable();
        for number in &numbers {
            check("number", *number, 1, NUMBER_MAX)?;
        }
        let workloads = dedup(&args.workload);
        let (sized, workloads): (Vec<Workload>, Vec<Workload>) = workloads
            .into_iter()
            .partition(|workload| workload.is_sized());
        let (partitioned, unpartitioned): (Vec<Workload>, Vec<Workload>) = workloads
            .into_iter()
            .partition(|workload| workload.is_partitioned());
        let mut steps = Vec::new();
        for workload in unpartitioned {
            steps.extend(workload_steps(args, workload, None, None)?);
        }
        for partition_count in partition_counts {
            for workload in &partitioned {
                steps.extend(workload_steps(
                    args,
                    *workload,
                    Some(partition_count),
                    None,
                )?);
            }
        }
        for number in numbers {
            for workload in &sized {
                steps.extend(workload_steps(args, *workload, None, Some(number))?);
            }
        }
        if steps.is_empty() {
            return Err(Error::Argument(
                "nothing to measure: give --workload and --mode".into(),
            ));
        }
        Ok(Plan {
            endpoints,
            database: args.database.trim().to_lowercase(),
            read_table_count,
            partition_parameter_count,
            steps,
            format: args.format,
            csv_out: args.csv_out.clone(),
            keep_database: args.keep_database,
        })
    }

    /// The most connections any writing step opens: one commit table each.
    pub fn commit_table_count(&self) -> usize {
        self.steps
            .iter()
            .filter(|step| step.workload == Workload::PyicebergCommit)
            .map(|step| step.connection_count)
            .max()
            .unwrap_or(0)
    }
}

/// The steps of one workload (at one partition count): each mode, each connection count.
fn workload_steps(
    args: &BenchArgs,
    workload: Workload,
    partition_count: Option<u64>,
    object_count: Option<u64>,
) -> Result<Vec<Step>, Error> {
    let mut steps = Vec::new();
    for mode in dedup(&args.mode) {
        let mut budget = budget(args, mode)?;
        if let (Workload::AddPartitions, Some(partition_count)) = (workload, partition_count) {
            // A measurement adds the table's size in batches, no more.
            let batch = add_batch_partition_count(partition_count);
            budget.call_count_max = budget.call_count_max.min(partition_count.div_ceil(batch));
        }
        let connection_counts = match mode {
            Mode::Latency => vec![1],
            Mode::Throughput => dedup(&args.connections),
        };
        steps.extend(connection_counts.into_iter().map(|connection_count| Step {
            workload,
            mode,
            connection_count,
            partition_count,
            object_count,
            budget,
        }));
    }
    Ok(steps)
}

/// The distinct values, in first-seen order.
fn dedup<T: PartialEq + Copy>(values: &[T]) -> Vec<T> {
    let mut distinct = Vec::with_capacity(values.len());
    for value in values {
        if !distinct.contains(value) {
            distinct.push(*value);
        }
    }
    distinct
}
