//! Driving a workload: K threads, each with its own connection, warm up unmeasured, start
//! together, and call until the time budget or the shared call cap runs out. Every sample is
//! timed on its own; the histograms of all connections are merged, and so are the counts of
//! calls, partitions and reply bytes of the measured samples.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use hivestore_idl::fb303::TFacebookServiceSyncClient;
use thrift::{ApplicationErrorKind, Error as ThriftError};

use crate::cpu::thread_cpu_time;
use crate::endpoint::{Client, Endpoint, ReplyBytes};
use crate::error::describe;
use crate::histogram::Histogram;
use crate::workload::{Caller, SampleCount, Target, Workload};

/// How much a measurement may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Measured time, from the common start; warm-up gets as much again at most.
    pub duration: Duration,
    /// Measured samples over all connections.
    pub call_count_max: u64,
    /// Unmeasured samples per connection before the start.
    pub warmup_call_count: u64,
    /// Each connection's pause after each sample, outside the time measured: clients that do
    /// other work between their calls, so that many connections are open and active without
    /// saturating the server.
    pub pause: Duration,
}

/// How a measurement ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every sample succeeded.
    Measured,
    /// The server does not implement a call of the workload (`UNKNOWN_METHOD`); its answer.
    Unsupported(String),
    /// A call failed otherwise; the first failure. Samples before it are still reported.
    Failed(String),
}

/// What one measurement found.
#[derive(Clone)]
pub struct Measurement {
    /// The workload measured.
    pub workload: Workload,
    /// Connections, one thread each.
    pub connection_count: usize,
    /// For a partition workload: the partitions of the table it read (or added).
    pub table_partition_count: Option<u64>,
    /// For a sized hmsbench workload: its `N`.
    pub object_count: Option<u64>,
    /// The latency of every measured sample.
    pub histogram: Histogram,
    /// Thrift calls of the measured samples (a planner sample makes several).
    pub call_count: u64,
    /// Partitions (or partition names) the measured samples' replies held, or added.
    pub partition_count: u64,
    /// Bytes of the measured samples' replies, as read from the socket.
    pub reply_bytes: u64,
    /// CPU time the bench's connection threads spent on the measured samples, where the
    /// system tells it.
    pub client_cpu: Option<Duration>,
    /// Time the server says it spent answering the measured samples, where it tells it
    /// (hivestore's `<method>.server_ns` counters; other metastores have none).
    pub server_time: Option<Duration>,
    /// From the first connection's start to the last one's end.
    pub elapsed: Duration,
    /// How it ended.
    pub outcome: Outcome,
}

impl Measurement {
    /// A measurement that could not start, e.g. because its table could not be set up.
    pub fn not_made(
        workload: Workload,
        connection_count: usize,
        table_partition_count: Option<u64>,
        outcome: Outcome,
    ) -> Measurement {
        Measurement {
            workload,
            connection_count,
            table_partition_count,
            object_count: None,
            histogram: Histogram::default(),
            call_count: 0,
            partition_count: 0,
            reply_bytes: 0,
            client_cpu: Some(Duration::ZERO),
            server_time: None,
            elapsed: Duration::ZERO,
            outcome,
        }
    }

    /// `count` per second of the measurement; zero when it took no time.
    fn per_second(&self, count: u64) -> f64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 {
            count as f64 / seconds
        } else {
            0.0
        }
    }

    /// Samples per second over all connections.
    pub fn samples_per_second(&self) -> f64 {
        self.per_second(self.histogram.count())
    }

    /// Partitions per second over all connections.
    pub fn partitions_per_second(&self) -> f64 {
        self.per_second(self.partition_count)
    }

    /// Reply bytes per second over all connections.
    pub fn reply_bytes_per_second(&self) -> f64 {
        self.per_second(self.reply_bytes)
    }

    /// The mean of `count` over the measured samples; zero without samples.
    fn per_sample(&self, count: u64) -> f64 {
        match self.histogram.count() {
            0 => 0.0,
            samples => count as f64 / samples as f64,
        }
    }

    /// Partitions per sample.
    pub fn partitions_per_sample(&self) -> f64 {
        self.per_sample(self.partition_count)
    }

    /// Reply bytes per sample.
    pub fn reply_bytes_per_sample(&self) -> f64 {
        self.per_sample(self.reply_bytes)
    }

    /// Thrift calls per sample.
    pub fn calls_per_sample(&self) -> f64 {
        self.per_sample(self.call_count)
    }

    /// The bench's own CPU time per sample, if known.
    pub fn client_cpu_per_sample(&self) -> Option<Duration> {
        let samples = u32::try_from(self.histogram.count())
            .ok()
            .filter(|n| *n > 0)?;
        Some(self.client_cpu? / samples)
    }

    /// The server's own time per sample, if it tells it.
    pub fn server_time_per_sample(&self) -> Option<Duration> {
        let samples = u32::try_from(self.histogram.count())
            .ok()
            .filter(|n| *n > 0)?;
        Some(self.server_time? / samples)
    }
}

/// What a measurement's connections share.
struct Run<'a> {
    endpoint: &'a Endpoint,
    target: &'a Target,
    workload: Workload,
    budget: Budget,
    /// Every connection warmed up (or failed to), and the measuring thread: server counters
    /// are read between this and the start line, so warm-up calls stay out of them.
    warmed_up: Barrier,
    start_line: Barrier,
    issued: AtomicU64,
}

/// One connection's share.
struct ConnectionReport {
    histogram: Histogram,
    count: SampleCount,
    reply_bytes: u64,
    cpu: Option<Duration>,
    span: Option<(Instant, Instant)>,
    outcome: Outcome,
}

impl ConnectionReport {
    fn empty(outcome: Outcome) -> ConnectionReport {
        ConnectionReport {
            histogram: Histogram::default(),
            count: SampleCount::default(),
            reply_bytes: 0,
            cpu: Some(Duration::ZERO),
            span: None,
            outcome,
        }
    }
}

/// Measures `workload` on `target` over `connection_count` connections within `budget`.
pub fn measure(
    endpoint: &Endpoint,
    target: &Target,
    workload: Workload,
    connection_count: usize,
    budget: Budget,
) -> Measurement {
    assert!(connection_count > 0, "a measurement has a connection");
    let run = Run {
        endpoint,
        target,
        workload,
        budget,
        warmed_up: Barrier::new(connection_count + 1),
        start_line: Barrier::new(connection_count + 1),
        issued: AtomicU64::new(0),
    };
    let run = &run;
    // A connection of its own, opened before the others: a failure only loses the figure.
    let mut counters = ServerTime::connect(endpoint);
    let mut server_time_before = None;
    let reports: Vec<ConnectionReport> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..connection_count)
            .map(|connection| scope.spawn(move || drive(run, connection)))
            .collect();
        run.warmed_up.wait();
        server_time_before = counters.as_mut().and_then(ServerTime::read);
        run.start_line.wait();
        threads
            .into_iter()
            .map(|thread| {
                thread.join().unwrap_or_else(|_| {
                    ConnectionReport::empty(Outcome::Failed(
                        "a connection thread panicked".to_string(),
                    ))
                })
            })
            .collect()
    });
    let mut measurement = Measurement::not_made(
        workload,
        connection_count,
        target.partition_count,
        Outcome::Measured,
    );
    measurement.object_count = target.object_count;
    combine(&mut measurement, reports);
    let server_time_after = counters.as_mut().and_then(ServerTime::read);
    measurement.server_time = server_time_before
        .zip(server_time_after)
        .map(|(before, after)| after.saturating_sub(before));
    measurement
}

/// Reads the server's own time over all methods from fb303 `getCounters`: the sum of
/// hivestore's `<method>.server_ns` counters, less the counters calls themselves.
struct ServerTime {
    client: Client,
}

/// The counters' suffix and the method whose time is left out (the readings themselves).
const SERVER_NANOS_SUFFIX: &str = ".server_ns";
const COUNTERS_METHOD: &str = "getCounters";

impl ServerTime {
    fn connect(endpoint: &Endpoint) -> Option<ServerTime> {
        endpoint.connect().ok().map(|client| ServerTime { client })
    }

    /// The total so far; `None` if the server has no such counters or the call failed.
    fn read(&mut self) -> Option<Duration> {
        let counters = self.client.get_counters().ok()?;
        server_nanos(&counters).map(Duration::from_nanos)
    }
}

fn server_nanos(counters: &std::collections::BTreeMap<String, i64>) -> Option<u64> {
    let mut found = false;
    let mut total: u64 = 0;
    for (name, value) in counters {
        let Some(method) = name.strip_suffix(SERVER_NANOS_SUFFIX) else {
            continue;
        };
        found = true;
        if method != COUNTERS_METHOD {
            total = total.saturating_add(u64::try_from(*value).unwrap_or(0));
        }
    }
    found.then_some(total)
}

fn combine(measurement: &mut Measurement, reports: Vec<ConnectionReport>) {
    let mut outcome = Outcome::Measured;
    let mut first_start: Option<Instant> = None;
    let mut last_end: Option<Instant> = None;
    for report in reports {
        measurement.histogram.merge(&report.histogram);
        measurement.call_count += report.count.call_count;
        measurement.partition_count += report.count.partition_count;
        measurement.reply_bytes += report.reply_bytes;
        measurement.client_cpu = measurement.client_cpu.zip(report.cpu).map(|(a, b)| a + b);
        if let Some((start, end)) = report.span {
            first_start = Some(first_start.map_or(start, |first| first.min(start)));
            last_end = Some(last_end.map_or(end, |last| last.max(end)));
        }
        outcome = match (outcome, report.outcome) {
            (Outcome::Measured, other) => other,
            (kept, _) => kept,
        };
    }
    measurement.elapsed = match (first_start, last_end) {
        (Some(start), Some(end)) => end.duration_since(start),
        _ => Duration::ZERO,
    };
    measurement.outcome = outcome;
}

/// One connection: connect, warm up, wait for the others, measure.
fn drive(run: &Run<'_>, connection: usize) -> ConnectionReport {
    let mut caller = Caller::new(run.workload, run.target, connection);
    let prepared = prepare(run, &mut caller);
    // Every connection reaches both lines, prepared or not, so none waits forever.
    run.warmed_up.wait();
    run.start_line.wait();
    let (mut client, reply_bytes) = match prepared {
        Ok(prepared) => prepared,
        Err(outcome) => return ConnectionReport::empty(outcome),
    };
    let reply_bytes_before = reply_bytes.total();
    let cpu_before = thread_cpu_time();
    let mut histogram = Histogram::default();
    let mut count = SampleCount::default();
    let mut outcome = Outcome::Measured;
    let start = Instant::now();
    let deadline = start + run.budget.duration;
    let mut now = start;
    while now < deadline && run.issued.fetch_add(1, Ordering::Relaxed) < run.budget.call_count_max {
        match sample(&mut caller, &mut client) {
            Ok((sample, latency)) => {
                count.call_count += sample.call_count;
                count.partition_count += sample.partition_count;
                histogram.record(latency);
                if !run.budget.pause.is_zero() {
                    std::thread::sleep(run.budget.pause);
                }
            }
            Err(error) => {
                outcome = classify(&error);
                break;
            }
        }
        now = Instant::now();
    }
    // What the caller made outside the bench database goes now; a failure costs no figure.
    if let Err(error) = caller.finish(&mut client) {
        tracing::warn!(workload = run.workload.name(), error = %describe(&error), "cleaning up after a measurement");
    }
    ConnectionReport {
        histogram,
        count,
        reply_bytes: reply_bytes.total() - reply_bytes_before,
        cpu: thread_cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before)),
        span: Some((start, now)),
        outcome,
    }
}

/// One measured sample: what it needs first and what it leaves undone after are outside the
/// time, as in hmsbench (both still count against the measurement's duration).
fn sample(caller: &mut Caller, client: &mut Client) -> thrift::Result<(SampleCount, Duration)> {
    caller.before_sample(client)?;
    let began = Instant::now();
    let count = caller.call(client)?;
    let latency = began.elapsed();
    caller.after_sample(client)?;
    Ok((count, latency))
}

/// Connects, prepares the caller's tables, and makes the unmeasured warm-up samples, within
/// the measured duration again.
fn prepare(run: &Run<'_>, caller: &mut Caller) -> Result<(Client, ReplyBytes), Outcome> {
    let (mut client, reply_bytes) = run
        .endpoint
        .connect_counting()
        .map_err(|error| Outcome::Failed(error.to_string()))?;
    caller
        .prepare(&mut client, run.endpoint, &reply_bytes)
        .map_err(|error| classify(&error))?;
    let deadline = Instant::now() + run.budget.duration;
    for _ in 0..run.budget.warmup_call_count {
        if Instant::now() >= deadline {
            break;
        }
        caller
            .warm_up(&mut client)
            .map_err(|error| classify(&error))?;
    }
    Ok((client, reply_bytes))
}

/// `UNKNOWN_METHOD` ("Invalid method name" from Java's processor) means the server lacks the
/// call; anything else is a failure.
pub(crate) fn classify(error: &ThriftError) -> Outcome {
    match error {
        ThriftError::Application(application)
            if application.kind == ApplicationErrorKind::UnknownMethod =>
        {
            Outcome::Unsupported(application.message.clone())
        }
        other => Outcome::Failed(describe(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift::ApplicationError;

    #[test]
    fn server_time_sums_the_methods_but_not_its_own_readings() {
        let counters = [
            ("get_table.calls", 10),
            ("get_table.server_ns", 5_000),
            ("get_partitions.server_ns", 7_000),
            ("getCounters.server_ns", 900),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        assert_eq!(server_nanos(&counters), Some(12_000));
        let java = [("get_table".to_string(), 3)].into_iter().collect();
        assert_eq!(server_nanos(&java), None, "no such counters: no figure");
    }

    #[test]
    fn unknown_method_is_unsupported_and_anything_else_a_failure() {
        let unknown = ThriftError::Application(ApplicationError::new(
            ApplicationErrorKind::UnknownMethod,
            "Invalid method name: 'get_table_req'",
        ));
        assert_eq!(
            classify(&unknown),
            Outcome::Unsupported("Invalid method name: 'get_table_req'".to_string())
        );
        let internal = ThriftError::Application(ApplicationError::new(
            ApplicationErrorKind::InternalError,
            "boom",
        ));
        assert!(matches!(classify(&internal), Outcome::Failed(_)));
    }
}
