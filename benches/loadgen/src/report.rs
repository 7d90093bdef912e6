//! Reports: one row per measurement per endpoint, as an aligned table, CSV or JSON lines.
//! Latencies are in microseconds, rates in samples (calls of the workload) per second.

use std::fmt::Write as _;
use std::time::Duration;

use crate::args::{Format, Mode};
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
}

const COLUMNS: [&str; 15] = [
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
];

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

    /// The values, in [`COLUMNS`] order.
    fn values(&self) -> [String; 15] {
        let measurement = &self.measurement;
        let histogram = &measurement.histogram;
        let (status, detail) = self.status();
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
        ]
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

/// Columns 4 to 12 are numbers; the rest strings.
fn is_numeric_column(index: usize) -> bool {
    (4..=12).contains(&index)
}

fn jsonl(rows: &[Row]) -> String {
    let mut out = String::new();
    for row in rows {
        let fields: Vec<String> = row
            .values()
            .iter()
            .enumerate()
            .map(|(index, value)| {
                let value = if is_numeric_column(index) {
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

/// The table leaves out the server and the detail (listed below it) to stay narrow.
fn table(rows: &[Row]) -> String {
    let shown: Vec<usize> = (0..COLUMNS.len())
        .filter(|index| !matches!(COLUMNS[*index], "server" | "detail"))
        .collect();
    let cells: Vec<Vec<String>> =
        std::iter::once(shown.iter().map(|i| COLUMNS[*i].to_string()).collect())
            .chain(rows.iter().map(|row| {
                let values = row.values();
                shown.iter().map(|i| values[*i].clone()).collect()
            }))
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
                "{} {} x{} on {}: {status}: {detail}",
                row.measurement.workload.name(),
                row.mode.name(),
                row.measurement.connection_count,
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
            "  {} {} x{}: p50 {} vs {} us ({:.1}x lower), {:.0} vs {:.0} calls/s ({:.1}x more)",
            a.workload.name(),
            mine.mode.name(),
            a.connection_count,
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
