//! Driving a workload: K threads, each with its own connection, warm up unmeasured, start
//! together, and call until the time budget or the shared call cap runs out. Every call is
//! timed on its own; the histograms of all connections are merged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use thrift::{ApplicationErrorKind, Error as ThriftError};

use crate::endpoint::{Client, Endpoint};
use crate::error::describe;
use crate::histogram::Histogram;
use crate::workload::{Caller, Workload};

/// How much a measurement may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Measured time, from the common start; warm-up gets as much again at most.
    pub duration: Duration,
    /// Measured samples over all connections.
    pub call_count_max: u64,
    /// Unmeasured samples per connection before the start.
    pub warmup_call_count: u64,
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
    /// The latency of every measured sample.
    pub histogram: Histogram,
    /// From the first connection's start to the last one's end.
    pub elapsed: Duration,
    /// How it ended.
    pub outcome: Outcome,
}

impl Measurement {
    /// Samples per second over all connections.
    pub fn samples_per_second(&self) -> f64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 {
            self.histogram.count() as f64 / seconds
        } else {
            0.0
        }
    }
}

/// What a measurement's connections share.
struct Run<'a> {
    endpoint: &'a Endpoint,
    database: &'a str,
    read_table_count: usize,
    workload: Workload,
    budget: Budget,
    start_line: Barrier,
    issued: AtomicU64,
}

/// One connection's share.
struct ConnectionReport {
    histogram: Histogram,
    span: Option<(Instant, Instant)>,
    outcome: Outcome,
}

/// Measures `workload` over `connection_count` connections within `budget`.
pub fn measure(
    endpoint: &Endpoint,
    database: &str,
    read_table_count: usize,
    workload: Workload,
    connection_count: usize,
    budget: Budget,
) -> Measurement {
    assert!(connection_count > 0, "a measurement has a connection");
    let run = Run {
        endpoint,
        database,
        read_table_count,
        workload,
        budget,
        start_line: Barrier::new(connection_count),
        issued: AtomicU64::new(0),
    };
    let run = &run;
    let reports: Vec<ConnectionReport> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..connection_count)
            .map(|connection| scope.spawn(move || drive(run, connection)))
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread.join().unwrap_or_else(|_| ConnectionReport {
                    histogram: Histogram::default(),
                    span: None,
                    outcome: Outcome::Failed("a connection thread panicked".to_string()),
                })
            })
            .collect()
    });
    combine(workload, connection_count, reports)
}

fn combine(
    workload: Workload,
    connection_count: usize,
    reports: Vec<ConnectionReport>,
) -> Measurement {
    let mut histogram = Histogram::default();
    let mut outcome = Outcome::Measured;
    let mut first_start: Option<Instant> = None;
    let mut last_end: Option<Instant> = None;
    for report in reports {
        histogram.merge(&report.histogram);
        if let Some((start, end)) = report.span {
            first_start = Some(first_start.map_or(start, |first| first.min(start)));
            last_end = Some(last_end.map_or(end, |last| last.max(end)));
        }
        outcome = match (outcome, report.outcome) {
            (Outcome::Measured, other) => other,
            (kept, _) => kept,
        };
    }
    let elapsed = match (first_start, last_end) {
        (Some(start), Some(end)) => end.duration_since(start),
        _ => Duration::ZERO,
    };
    Measurement {
        workload,
        connection_count,
        histogram,
        elapsed,
        outcome,
    }
}

/// One connection: connect, warm up, wait for the others, measure.
fn drive(run: &Run<'_>, connection: usize) -> ConnectionReport {
    let mut caller = Caller::new(run.workload, run.database, run.read_table_count, connection);
    let prepared = prepare(run, &mut caller);
    // Every connection reaches the start line, prepared or not, so none waits forever.
    run.start_line.wait();
    let mut client = match prepared {
        Ok(client) => client,
        Err(outcome) => {
            return ConnectionReport {
                histogram: Histogram::default(),
                span: None,
                outcome,
            }
        }
    };
    let mut histogram = Histogram::default();
    let mut outcome = Outcome::Measured;
    let start = Instant::now();
    let deadline = start + run.budget.duration;
    let mut now = start;
    while now < deadline && run.issued.fetch_add(1, Ordering::Relaxed) < run.budget.call_count_max {
        let began = now;
        let result = caller.call(&mut client);
        now = Instant::now();
        if let Err(error) = result {
            outcome = classify(&error);
            break;
        }
        histogram.record(now.duration_since(began));
    }
    ConnectionReport {
        histogram,
        span: Some((start, now)),
        outcome,
    }
}

/// Connects and makes the unmeasured warm-up samples, within the measured duration again.
fn prepare(run: &Run<'_>, caller: &mut Caller) -> Result<Client, Outcome> {
    let mut client = run
        .endpoint
        .connect()
        .map_err(|error| Outcome::Failed(error.to_string()))?;
    let deadline = Instant::now() + run.budget.duration;
    for _ in 0..run.budget.warmup_call_count {
        if Instant::now() >= deadline {
            break;
        }
        caller.call(&mut client).map_err(|error| classify(&error))?;
    }
    Ok(client)
}

/// `UNKNOWN_METHOD` ("Invalid method name" from Java's processor) means the server lacks the
/// call; anything else is a failure.
fn classify(error: &ThriftError) -> Outcome {
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
