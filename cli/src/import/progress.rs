//! The import's progress on standard error: objects copied, partitions and their rate, and an
//! estimate of the time left by the tables still to copy. On a terminal one line is rewritten
//! in place; otherwise (a log) a line is added every `LOG_INTERVAL`.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a terminal's line is rewritten.
const TERMINAL_INTERVAL: Duration = Duration::from_millis(250);
/// How often a line is added to a log.
pub const LOG_INTERVAL: Duration = Duration::from_secs(5);

/// What has been done so far; shared by the copy's threads.
#[derive(Default)]
pub struct Counters {
    /// Catalogs, databases, tables, functions, roles and grants looked at.
    pub objects: AtomicU64,
    /// Of those, the ones written (new or changed).
    pub written: AtomicU64,
    /// Tables whose copy is finished, and how many the source has (known once listed).
    pub tables_done: AtomicU64,
    /// See `tables_done`.
    pub tables_total: AtomicU64,
    /// Partitions looked at, and of those written.
    pub partitions: AtomicU64,
    /// See `partitions`.
    pub partitions_written: AtomicU64,
}

impl Counters {
    /// Adds one object looked at, written or not.
    pub fn object(&self, written: bool) {
        self.objects.fetch_add(1, Ordering::Relaxed);
        if written {
            self.written.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The line that reports the counters after `elapsed`.
    pub fn line(&self, elapsed: Duration) -> String {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let seconds = elapsed.as_secs_f64();
        let partitions = load(&self.partitions);
        let rate = if seconds > 0.0 {
            partitions as f64 / seconds
        } else {
            0.0
        };
        let (done, total) = (load(&self.tables_done), load(&self.tables_total));
        format!(
            "import: {} objects ({} written), tables {done}/{total}, {partitions} partitions \
             ({} written, {rate:.0}/s), {seconds:.0} s, ETA {}",
            load(&self.objects),
            load(&self.written),
            load(&self.partitions_written),
            eta(elapsed, done, total)
        )
    }
}

/// The time left if the tables still to copy take as long as those done did.
pub fn eta(elapsed: Duration, done: u64, total: u64) -> String {
    if done == 0 || total < done {
        return "unknown".to_string();
    }
    let left = elapsed.as_secs_f64() * (total - done) as f64 / done as f64;
    format!("{left:.0} s")
}

/// The thread that prints the counters until stopped.
pub struct Reporter {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Reporter {
    /// Starts printing `counters`.
    pub fn start(counters: Arc<Counters>) -> Reporter {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let terminal = std::io::stderr().is_terminal();
        let interval = if terminal {
            TERMINAL_INTERVAL
        } else {
            LOG_INTERVAL
        };
        let started = Instant::now();
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || loop {
                let (lock, signal) = &*stop;
                let stopped = lock.lock().unwrap_or_else(PoisonError::into_inner);
                let (stopped, _) = signal
                    .wait_timeout(stopped, interval)
                    .unwrap_or_else(PoisonError::into_inner);
                let line = counters.line(started.elapsed());
                let mut stderr = std::io::stderr().lock();
                if *stopped {
                    let _ = writeln!(stderr, "{}{line}", if terminal { "\r" } else { "" });
                    return;
                }
                if terminal {
                    let _ = write!(stderr, "\r{line}\x1b[K");
                } else {
                    let _ = writeln!(stderr, "{line}");
                }
            })
        };
        Reporter {
            stop,
            thread: Some(thread),
        }
    }

    /// Prints the last line and stops.
    pub fn finish(mut self) {
        self.stop_thread();
    }

    fn stop_thread(&mut self) {
        let (lock, signal) = &*self.stop;
        *lock.lock().unwrap_or_else(PoisonError::into_inner) = true;
        signal.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_scales_the_time_taken_by_the_tables_left() {
        assert_eq!(eta(Duration::from_secs(10), 0, 4), "unknown");
        assert_eq!(eta(Duration::from_secs(10), 1, 4), "30 s");
        assert_eq!(eta(Duration::from_secs(10), 4, 4), "0 s");
    }

    #[test]
    fn the_line_counts_objects_tables_and_partitions() {
        let counters = Counters::default();
        counters.object(true);
        counters.object(false);
        counters.tables_total.store(2, Ordering::Relaxed);
        counters.tables_done.store(1, Ordering::Relaxed);
        counters.partitions.store(100, Ordering::Relaxed);
        let line = counters.line(Duration::from_secs(4));
        assert_eq!(
            line,
            "import: 2 objects (1 written), tables 1/2, 100 partitions (0 written, 25/s), \
             4 s, ETA 4 s"
        );
    }
}
