//! Reports: one row per measurement per endpoint, as an aligned table, CSV or JSON lines.
//! Latencies are in microseconds, rates in samples (calls of the workload) per second.
//!
//! Columns are only ever added after the last one, so that consumers reading by position
//! keep working. Those after `detail` are empty (CSV), `null` (JSON) or `-` (table) where
//! they do not apply: the partition counts for workloads without a partitioned table, the
//! loopback limit for workloads that do not list partitions, the bench's own CPU time where
//! the system does not tell it; the table leaves out such a column when no row has it.

use std::fmt::Write as _;
use std::time::Duration;

use crate::args::{Format, Mode};
use crate::loopback::LoopbackRate;
use crate::runner::{Measurement, Outcome};

/// One measurement on one endpoint.
#[derive(Clone)]
pub struct Row {
    /// The endpoint's place in the plan: 0 for the measured one, 1 for `--compare`'s.
    pub endpoint_index: usize,
    /// The endpoint's URI.
    pub endpoint: String,
    /// What the server says it is (fb303 `getName` and `getVersion`).
    pub server: String,
    /// The mode it was measured in.
    pub mode: Mode,
    /// The measurement.
    pub measurement: Measurement,
    /// For a listing: the rate of the same reply bytes through a loopback socket.
    pub loopback: Option<LoopbackRate>,
}

const COLUMN_COUNT: usize = 26;
/// The one string column among the optional ones: hmsbench's name of the measurement.
const BENCHMARK_COLUMN: usize = 24;
/// The first column that may be empty.
const FIRST_OPTIONAL_COLUMN: usize = 15;

const COLUMNS: [&str; COLUMN_COUNT] = [
    "endpoint",
    "server",
    "workload",
    "mode",
    "connections",
    "calls",
    "seconds",
    "calls_per_second",
    "p50_us",
    "p90_us",
    "p99_us",
    "max_us",
    "mean_us",
    "status",
    "detail",
    "table_partitions",
    "partitions_per_call",
    "partitions_per_second",
    "reply_bytes_per_call",
    "reply_bytes_per_second",
    "loopback_bytes_per_second",
    "loopback_ratio",
    "client_cpu_us_per_call",
    "server_us_per_call",
    "benchmark",
    "objects",
];

const _: () = assert!(COLUMN_COUNT > FIRST_OPTIONAL_COLUMN);
const _: () = assert!(BENCHMARK_COLUMN > FIRST_OPTIONAL_COLUMN && BENCHMARK_COLUMN < COLUMN_COUNT);

/// A ratio with three significant digits (0.000476, 0.0312, 0.875), and at least three
/// decimals: a server far from the socket still shows how far.
fn significant(value: f64) -> String {
    let magnitude = if value > 0.0 {
        value.log10().floor() as i32
    } else {
        0
    };
    let decimals = (2 - magnitude).clamp(3, 9) as usize;
    format!("{value:.decimals$}")
}

fn micros(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1e6)
}

impl Row {
    fn status(&self) -> (&'static str, &str) {
        match &self.measurement.outcome {
            Outcome::Measured => ("ok", ""),
            Outcome::Unsupported(message) => ("unsupported", message),
            Outcome::Failed(message) => ("failed", message),
        }
    }

    /// The values, in [`COLUMNS`] order; an empty one does not apply.
    fn values(&self) -> [String; COLUMN_COUNT] {
        let measurement = &self.measurement;
        let histogram = &measurement.histogram;
        let (status, detail) = self.status();
        let measured = histogram.count() > 0;
        let partitioned = measurement.table_partition_count.filter(|_| measured);
        let whole = |value: f64| format!("{value:.0}");
        let reply_bytes_per_second = measurement.reply_bytes_per_second();
        [
            self.endpoint.clone(),
            self.server.clone(),
            measurement.workload.name().to_string(),
            self.mode.name().to_string(),
            measurement.connection_count.to_string(),
            histogram.count().to_string(),
            format!("{:.2}", measurement.elapsed.as_secs_f64()),
            format!("{:.0}", measurement.samples_per_second()),
            micros(histogram.quantile(0.5)),
            micros(histogram.quantile(0.9)),
            micros(histogram.quantile(0.99)),
            micros(histogram.max()),
            micros(histogram.mean()),
            status.to_string(),
            detail.to_string(),
            measurement
                .table_partition_count
                .map_or_else(String::new, |count| count.to_string()),
            partitioned.map_or_else(String::new, |_| whole(measurement.partitions_per_sample())),
            partitioned.map_or_else(String::new, |_| whole(measurement.partitions_per_second())),
            if measured {
                whole(measurement.reply_bytes_per_sample())
            } else {
                String::new()
            },
            if measured {
                whole(reply_bytes_per_second)
            } else {
                String::new()
            },
            self.loopback
                .map_or_else(String::new, |loopback| whole(loopback.bytes_per_second)),
            self.loopback.map_or_else(String::new, |loopback| {
                significant(reply_bytes_per_second / loopback.bytes_per_second.max(1e-9))
            }),
            measurement
                .client_cpu_per_sample()
                .map_or_else(String::new, micros),
            measurement
                .server_time_per_sample()
                .map_or_else(String::new, micros),
            measurement
                .workload
                .benchmark_name(measurement.object_count),
            measurement
                .object_count
                .map_or_else(String::new, |count| count.to_string()),
        ]
    }

    /// The step, for notes: workload, mode, connections, and the table's size.
    fn step(&self) -> String {
        let measurement = &self.measurement;
        let mut step = format!(
            "{} {} x{}",
            measurement.workload.name(),
            self.mode.name(),
            measurement.connection_count
        );
        if let Some(count) = measurement.table_partition_count {
            let _ = write!(step, " @{count} partitions");
        }
        if let Some(count) = measurement.object_count {
            let _ = write!(step, " N={count}");
        }
        step
    }
}

/// Renders `rows` in `format`.
pub fn render(rows: &[Row], format: Format) -> String {
    match format {
        Format::Table => table(rows),
        Format::Csv => csv(rows),
        Format::Jsonl => jsonl(rows),
    }
}

fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

fn csv(rows: &[Row]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for row in rows {
        let fields: Vec<String> = row.values().iter().map(|value| csv_field(value)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn json_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for character in value.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if u32::from(control) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(control));
            }
            other => out.push(other),
        }
    }
    out.push('"');
    out
}

/// Columns 4 to 12 are numbers, and those after `detail` but `benchmark`; the rest strings.
fn is_numeric_column(index: usize) -> bool {
    (4..=12).contains(&index) || (index >= FIRST_OPTIONAL_COLUMN && index != BENCHMARK_COLUMN)
}

fn jsonl(rows: &[Row]) -> String {
    let mut out = String::new();
    for row in rows {
        let fields: Vec<String> = row
            .values()
            .iter()
            .enumerate()
            .map(|(index, value)| {
                let value = if value.is_empty() && index >= FIRST_OPTIONAL_COLUMN {
                    "null".to_string()
                } else if is_numeric_column(index) {
                    value.clone()
                } else {
                    json_string(value)
                };
                format!("{}:{value}", json_string(COLUMNS[index]))
            })
            .collect();
        let _ = writeln!(out, "{{{}}}", fields.join(","));
    }
    out
}

/// The table leaves out the server and the detail (listed below it), and the columns that
/// apply to no row, to stay narrow.
fn table(rows: &[Row]) -> String {
    let values: Vec<[String; COLUMN_COUNT]> = rows.iter().map(Row::values).collect();
    let shown: Vec<usize> = (0..COLUMNS.len())
        .filter(|index| !matches!(COLUMNS[*index], "server" | "detail"))
        .filter(|index| {
            *index < FIRST_OPTIONAL_COLUMN || values.iter().any(|row| !row[*index].is_empty())
        })
        .collect();
    let dash = |value: &String| {
        if value.is_empty() {
            "-".to_string()
        } else {
            value.clone()
        }
    };
    let cells: Vec<Vec<String>> =
        std::iter::once(shown.iter().map(|i| COLUMNS[*i].to_string()).collect())
            .chain(
                values
                    .iter()
                    .map(|row| shown.iter().map(|i| dash(&row[*i])).collect()),
            )
            .collect();
    let widths: Vec<usize> = (0..shown.len())
        .map(|column| {
            cells
                .iter()
                .map(|line| line[column].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in &cells {
        let padded: Vec<String> = line
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, width))| {
                if is_numeric_column(shown[column]) {
                    format!("{cell:>width$}")
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    }
    out.push_str(&notes(rows));
    out.push_str(&comparison(rows));
    out
}

/// The servers measured and the reason for every row that is not `ok`.
fn notes(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut servers_seen: Vec<(&str, &str)> = Vec::new();
    for row in rows {
        let server = (row.endpoint.as_str(), row.server.as_str());
        if !servers_seen.contains(&server) {
            servers_seen.push(server);
            let _ = writeln!(out, "server at {}: {}", server.0, server.1);
        }
    }
    for row in rows {
        let (status, detail) = row.status();
        if !detail.is_empty() {
            let _ = writeln!(
                out,
                "{} on {}: {status}: {detail}",
                row.step(),
                row.endpoint
            );
        }
    }
    out
}

/// With two endpoints: the first against the second, step by step.
fn comparison(rows: &[Row]) -> String {
    let (ours, theirs): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|row| row.endpoint_index == 0);
    let (Some(first), Some(second)) = (ours.first(), theirs.first()) else {
        return String::new();
    };
    let mut out = format!("\n{} against {}:\n", first.endpoint, second.endpoint);
    for (mine, other) in ours.iter().zip(theirs.iter()) {
        let (a, b) = (&mine.measurement, &other.measurement);
        if a.outcome != Outcome::Measured || b.outcome != Outcome::Measured {
            continue;
        }
        let p50 = (a.histogram.quantile(0.5), b.histogram.quantile(0.5));
        let rate = (a.samples_per_second(), b.samples_per_second());
        let _ = writeln!(
            out,
            "  {}: p50 {} vs {} us ({:.1}x lower), {:.0} vs {:.0} calls/s ({:.1}x more)",
            mine.step(),
            micros(p50.0),
            micros(p50.1),
            p50.1.as_secs_f64() / p50.0.as_secs_f64().max(1e-9),
            rate.0,
            rate.1,
            rate.0 / rate.1.max(1e-9),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_keep_three_significant_digits() {
        assert_eq!(significant(0.875), "0.875");
        assert_eq!(significant(0.0314159), "0.0314");
        assert_eq!(significant(0.000476), "0.000476");
        assert_eq!(significant(2.5), "2.500");
        assert_eq!(significant(0.0), "0.000");
    }

    #[test]
    fn the_old_columns_keep_their_places() {
        assert_eq!(COLUMNS[..FIRST_OPTIONAL_COLUMN].last(), Some(&"detail"));
        assert_eq!(COLUMNS[5], "calls");
        assert!(COLUMNS[FIRST_OPTIONAL_COLUMN..]
            .iter()
            .all(|name| !COLUMNS[..FIRST_OPTIONAL_COLUMN].contains(name)));
    }
}
