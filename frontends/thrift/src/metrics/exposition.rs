//! Prometheus's text exposition format (version 0.0.4): `# HELP` and `# TYPE` lines, then one
//! line per sample, label values escaped, histograms as cumulative `_bucket` lines with their
//! `_sum` and `_count`.

use std::fmt::Write;

/// The `Content-Type` of the text this module writes.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A metric family's type, as its `# TYPE` line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (a restart sets it back to 0); its samples end in `_total`.
    Counter,
    /// Goes up and down.
    Gauge,
    /// Observations counted in buckets (`_bucket`, `_sum`, `_count`).
    Histogram,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// A sample's value: counts are written exactly, other values as decimals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A count.
    Count(u64),
    /// A measure (seconds, a ratio).
    Measure(f64),
}

impl From<u64> for Value {
    fn from(count: u64) -> Self {
        Value::Count(count)
    }
}

impl From<f64> for Value {
    fn from(measure: f64) -> Self {
        Value::Measure(measure)
    }
}

/// A histogram's buckets as counted: an upper bound per bucket, and the observations in each
/// (not cumulative), the last being `+Inf`'s, so one more count than bounds.
pub struct Buckets<'a> {
    /// The buckets' upper bounds, increasing.
    pub bounds: &'a [f64],
    /// Observations per bucket: one per bound, then those above the last.
    pub counts: &'a [u64],
    /// The sum of the observations.
    pub sum: f64,
}

/// The text of one exposition, written family by family.
#[derive(Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    /// An empty exposition.
    pub fn new() -> Self {
        Exposition::default()
    }

    /// Starts the family `name` of `kind`, described by `help`.
    ///
    /// # Panics
    ///
    /// When `name` is not a valid metric name (a programmer's error: names are constants).
    pub fn family(&mut self, name: &str, kind: Kind, help: &str) {
        assert!(is_valid_name(name), "not a metric name: {name:?}");
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {}", kind.name());
    }

    /// Writes one sample of `name` with `labels` (names valid, values escaped here).
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl Into<Value>) {
        self.text.push_str(name);
        write_labels(&mut self.text, labels, None);
        self.text.push(' ');
        write_value(&mut self.text, value.into());
        self.text.push('\n');
    }

    /// Writes the samples of histogram `name` with `labels`: a cumulative `_bucket` per bound
    /// and `+Inf`, then `_sum` and `_count`.
    ///
    /// # Panics
    ///
    /// When there is not one count more than bounds.
    pub fn histogram(&mut self, name: &str, labels: &[(&str, &str)], buckets: &Buckets<'_>) {
        assert_eq!(buckets.counts.len(), buckets.bounds.len() + 1);
        let mut cumulative = 0u64;
        let bucket_name = format!("{name}_bucket");
        for (index, count) in buckets.counts.iter().enumerate() {
            cumulative = cumulative.saturating_add(*count);
            let bound = buckets.bounds.get(index).copied().unwrap_or(f64::INFINITY);
            let mut le = String::new();
            write_value(&mut le, Value::Measure(bound));
            self.text.push_str(&bucket_name);
            write_labels(&mut self.text, labels, Some(&le));
            let _ = writeln!(self.text, " {cumulative}");
        }
        self.sample(&format!("{name}_sum"), labels, buckets.sum);
        self.sample(&format!("{name}_count"), labels, cumulative);
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.text
    }
}

/// Whether `name` matches `[a-zA-Z_:][a-zA-Z0-9_:]*`.
fn is_valid_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == ':')
        && characters.all(|rest| rest.is_ascii_alphanumeric() || rest == '_' || rest == ':')
}

/// `{name="value",...}`, with `le` last when given; nothing when there are no labels.
fn write_labels(text: &mut String, labels: &[(&str, &str)], le: Option<&str>) {
    if labels.is_empty() && le.is_none() {
        return;
    }
    text.push('{');
    let all = labels.iter().copied().chain(le.map(|le| ("le", le)));
    for (index, (name, value)) in all.enumerate() {
        debug_assert!(is_valid_name(name) && !name.contains(':'));
        if index > 0 {
            text.push(',');
        }
        text.push_str(name);
        text.push_str("=\"");
        escape_into(text, value, true);
        text.push('"');
    }
    text.push('}');
}

fn write_value(text: &mut String, value: Value) {
    match value {
        Value::Count(count) => {
            let _ = write!(text, "{count}");
        }
        Value::Measure(measure) if measure == f64::INFINITY => text.push_str("+Inf"),
        Value::Measure(measure) if measure == f64::NEG_INFINITY => text.push_str("-Inf"),
        Value::Measure(measure) if measure.is_nan() => text.push_str("NaN"),
        Value::Measure(measure) => {
            let _ = write!(text, "{measure}");
        }
    }
}

fn escape_help(help: &str) -> String {
    let mut escaped = String::with_capacity(help.len());
    escape_into(&mut escaped, help, false);
    escaped
}

/// Escapes `\` and line feeds, and in label values `"` too, as the format asks.
fn escape_into(text: &mut String, raw: &str, quote: bool) {
    for character in raw.chars() {
        match character {
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '"' if quote => text.push_str("\\\""),
            other => text.push(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_open_with_help_and_type_and_samples_escape_label_values() {
        let mut exposition = Exposition::new();
        exposition.family(
            "hivestore_calls_total",
            Kind::Counter,
            "Calls, by \\ method\nok",
        );
        exposition.sample("hivestore_calls_total", &[("method", "a\"b\\c\nd")], 3u64);
        exposition.sample("hivestore_calls_total", &[], 0.5);
        assert_eq!(
            exposition.finish(),
            "# HELP hivestore_calls_total Calls, by \\\\ method\\nok\n\
             # TYPE hivestore_calls_total counter\n\
             hivestore_calls_total{method=\"a\\\"b\\\\c\\nd\"} 3\n\
             hivestore_calls_total 0.5\n"
        );
    }

    #[test]
    fn histogram_buckets_are_cumulative_with_sum_and_count() {
        let mut exposition = Exposition::new();
        exposition.family("h_seconds", Kind::Histogram, "h");
        exposition.histogram(
            "h_seconds",
            &[("method", "m")],
            &Buckets {
                bounds: &[0.00001, 0.5],
                counts: &[2, 0, 3],
                sum: 7.25,
            },
        );
        let text = exposition.finish();
        let samples: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(
            samples,
            [
                "h_seconds_bucket{method=\"m\",le=\"0.00001\"} 2",
                "h_seconds_bucket{method=\"m\",le=\"0.5\"} 2",
                "h_seconds_bucket{method=\"m\",le=\"+Inf\"} 5",
                "h_seconds_sum{method=\"m\"} 7.25",
                "h_seconds_count{method=\"m\"} 5",
            ]
        );
    }

    #[test]
    fn special_values_are_written_as_the_format_names_them() {
        let mut text = String::new();
        for value in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-5, 12.0] {
            write_value(&mut text, Value::Measure(value));
            text.push(' ');
        }
        assert_eq!(text, "+Inf -Inf NaN 0.00001 12 ");
    }

    #[test]
    #[should_panic(expected = "not a metric name")]
    fn a_bad_metric_name_is_a_programming_error() {
        Exposition::new().family("9lives", Kind::Gauge, "no");
    }

    #[test]
    fn metric_names_are_checked_by_the_format_rule() {
        assert!(is_valid_name("hivestore_up"));
        assert!(is_valid_name("_a:b1"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("a-b"));
        assert!(!is_valid_name("é"));
    }
}
