//! A progress line on standard error for long setups (a million partitions take a while on
//! some servers): rewritten in place on a terminal, a line every few seconds in a log, and
//! always a last line with the rate, which is itself worth knowing.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often a terminal's line is rewritten.
const TERMINAL_INTERVAL: Duration = Duration::from_millis(250);
/// How often a line is added to a log.
const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Progress of one setup step towards a known total.
pub struct Progress {
    what: String,
    /// Where the step started: the rate counts from here.
    first: u64,
    total: u64,
    started: Instant,
    shown: Instant,
    terminal: bool,
}

impl Progress {
    /// Starts reporting on `what` (e.g. "adding partitions to db.table on thrift://…"), which
    /// goes from `first` to `total`.
    pub fn start(what: String, first: u64, total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            what,
            first,
            total,
            started: now,
            shown: now,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn line(&self, done: u64) -> String {
        let seconds = self.started.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            done.saturating_sub(self.first) as f64 / seconds
        } else {
            0.0
        };
        format!(
            "{}: {done} of {} ({seconds:.1} s, {rate:.0}/s)",
            self.what, self.total
        )
    }

    /// Reports `done` of the total, if it is time to.
    pub fn update(&mut self, done: u64) {
        let interval = if self.terminal {
            TERMINAL_INTERVAL
        } else {
            LOG_INTERVAL
        };
        // The last line is `finish`'s.
        if done >= self.total || self.shown.elapsed() < interval {
            return;
        }
        self.shown = Instant::now();
        let line = self.line(done);
        let mut stderr = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(stderr, "\r{line}")
        } else {
            writeln!(stderr, "{line}")
        };
        let _ = stderr.flush();
    }

    /// Reports where the step ended.
    pub fn finish(self, done: u64) {
        let line = self.line(done);
        let prefix = if self.terminal { "\r" } else { "" };
        eprintln!("{prefix}{line}");
    }
}
