//! One statistics call of the `stats` bench, run a few times without criterion, for
//! instruction counts under callgrind (repeatable while other work loads the machine):
//!
//! ```sh
//! cargo bench -p hivestore-benches --bench stats_profile --no-run
//! STATS_PROFILE_PARTITIONS=10000 valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='*profiled_call*' target/release/deps/stats_profile-<hash> aggr_hll
//! ```
//!
//! Calls: `aggr`, `aggr_hll`, `read`, `write`, `write_one` (one partition's 20 columns, the
//! next partition each run, as the `stats` bench's `1_partition`; without one, nothing runs);
//! `aggr_after_write`
//! and `read_after_write` measure `aggr` or `read` right after an unmeasured `write` (500
//! partitions that already have statistics, of the table both read), each run: the first call
//! after a write, which finds only what the write left kept. `aggr_after_new` and
//! `read_after_new` measure them right after a new partition (past those read) is added and
//! given its first statistics, as a day's partition analysed: a write that hands out a slot.
//! Sizes:
//! `STATS_PROFILE_PARTITIONS` (default 10,000) and `STATS_PROFILE_COLUMNS` (default 50);
//! `STATS_PROFILE_RUNS` repeats (default 1); `STATS_PROFILE_WARM_RUNS` unmeasured runs before
//! them (default 0), so that the measured ones find the store's kept statistics filled.

use std::hint::black_box;

#[path = "common/stats_data.rs"]
mod stats_data;

use stats_data::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The most runs asked for, to keep a mistyped count bounded.
const RUN_COUNT_MAX: usize = 1000;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The measured call; its name is what callgrind's `--toggle-collect` matches.
#[inline(never)]
fn profiled_call(
    store: &hivestore_engine::Store,
    call: &str,
    names: &[String],
    columns: &[String],
) {
    run_call(store, call, names, columns)
}

/// What the calling thread has used so far (`getrusage` of the thread): CPU time, minor page
/// faults, and involuntary context switches (preemptions by other work on the machine), so
/// that a slow wall-clock figure can be told apart from our own cost.
#[derive(Clone, Copy)]
struct ThreadUsage {
    user: std::time::Duration,
    system: std::time::Duration,
    minor_faults: i64,
    preemptions: i64,
}

fn thread_usage() -> Option<ThreadUsage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the pointer it is given, which points
    // at one; RUSAGE_THREAD asks for the calling thread only.
    let result = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) };
    if result != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it filled the struct (zeroed before in any case).
    let usage = unsafe { usage.assume_init() };
    let micros = |time: libc::timeval| time.tv_sec as u64 * 1_000_000 + time.tv_usec as u64;
    Some(ThreadUsage {
        user: std::time::Duration::from_micros(micros(usage.ru_utime)),
        system: std::time::Duration::from_micros(micros(usage.ru_stime)),
        minor_faults: usage.ru_minflt,
        preemptions: usage.ru_nivcsw,
    })
}

/// The process's resident bytes (Linux `/proc/self/statm`, 4 KiB pages), to see how much
/// fresh memory a call made the kernel hand out (and zero).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The partition the next `write_one` writes.
static NEXT_ONE_PARTITION: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The call, measured or not.
fn run_call(store: &hivestore_engine::Store, call: &str, names: &[String], columns: &[String]) {
    match call {
        "aggr" | "aggr_hll" => {
            let table = if call == "aggr" {
                PLAIN_TABLE
            } else {
                SKETCHED_TABLE
            };
            let aggregate = store
                .aggregate_column_statistics("hive", "bench", table, names, columns, "hive")
                .expect("aggregate");
            assert_eq!(aggregate.partitions_found, names.len() as i64);
            black_box(aggregate);
        }
        "read" => {
            let read_names = &names[..READ_PARTITION_COUNT.min(names.len())];
            let read_columns = &columns[..READ_COLUMN_COUNT.min(columns.len())];
            let found = store
                .partition_column_statistics(
                    "hive",
                    "bench",
                    PLAIN_TABLE,
                    read_names,
                    read_columns,
                    "hive",
                    false,
                )
                .expect("read");
            black_box(found);
        }
        "write" => {
            let batch = WRITE_BATCH_LEN.min(names.len());
            write_batch(
                store,
                PLAIN_TABLE,
                0..batch,
                READ_COLUMN_COUNT.min(columns.len()),
            );
        }
        "write_one" => {
            let next = NEXT_ONE_PARTITION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let partition = next % names.len();
            write_batch(
                store,
                PLAIN_TABLE,
                partition..partition + 1,
                READ_COLUMN_COUNT.min(columns.len()),
            );
        }
        other => panic!("unknown call {other}: aggr, aggr_hll, read, write or write_one"),
    }
}

/// What runs, unmeasured, before each measured call.
#[derive(Clone, Copy)]
enum Before {
    /// Statistics rewritten for partitions that have them (`write`).
    Write,
    /// A new partition added and given statistics for the first time.
    NewPartition,
}

fn main() {
    // `cargo bench` passes `--bench`: without a call named, there is nothing to profile.
    let Some(call) = std::env::args().skip(1).find(|arg| !arg.starts_with("--")) else {
        eprintln!("stats_profile: name a call (aggr, aggr_hll, read, write or write_one)");
        return;
    };
    let partition_count = env_count("STATS_PROFILE_PARTITIONS", PARTITION_COUNT);
    let column_count = env_count("STATS_PROFILE_COLUMNS", COLUMN_COUNT);
    let run_count = env_count("STATS_PROFILE_RUNS", 1).min(RUN_COUNT_MAX);
    let warm_run_count = env_count("STATS_PROFILE_WARM_RUNS", 0).min(RUN_COUNT_MAX);
    let directory = tempfile::tempdir().expect("temp dir");
    let store = build_store(directory.path(), partition_count, column_count);
    let names: Vec<String> = (0..partition_count).map(partition_name).collect();
    let columns: Vec<String> = (0..column_count).map(column_name).collect();
    let (measured, before) = if let Some(measured) = call.strip_suffix("_after_write") {
        (measured, Some(Before::Write))
    } else if let Some(measured) = call.strip_suffix("_after_new") {
        (measured, Some(Before::NewPartition))
    } else {
        (call.as_str(), None)
    };
    // Unmeasured runs first, to measure calls that find the store's kept statistics filled.
    for _ in 0..warm_run_count {
        run_call(&store, measured, &names, &columns);
    }
    for run in 0..run_count {
        match before {
            Some(Before::Write) => run_call(&store, "write", &names, &columns),
            Some(Before::NewPartition) => {
                add_analysed_partition(&store, PLAIN_TABLE, partition_count + run, column_count)
            }
            None => {}
        }
        let resident_before = resident_bytes();
        let before = thread_usage();
        let started = std::time::Instant::now();
        profiled_call(&store, measured, &names, &columns);
        let elapsed = started.elapsed();
        let resident_after = resident_bytes();
        let grown = match (resident_before, resident_after) {
            (Some(before), Some(after)) => after.saturating_sub(before) >> 20,
            _ => 0,
        };
        match (before, thread_usage()) {
            (Some(before), Some(after)) => eprintln!(
                "{call}: {elapsed:?} (user {:?}, system {:?}, {} minor faults, resident +{grown} MiB, \
                 preempted {} times)",
                after.user.saturating_sub(before.user),
                after.system.saturating_sub(before.system),
                after.minor_faults - before.minor_faults,
                after.preemptions - before.preemptions
            ),
            _ => eprintln!("{call}: {elapsed:?}"),
        }
    }
}
