//! Measures durable commits per second with group commit.
//!
//! Each writer thread creates tables (one atomic, fsynced write each) for a
//! fixed time. Prints commits/s and how many fsyncs they cost.
//!
//! With `NO_FSYNC=1` writes are acknowledged once applied, for comparison.
//!
//! `cargo run --release -p hivestore-engine --example commit_throughput -- [seconds] [writer counts...]`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hivestore_engine::{Durability, Store, StoreOptions, Table};

fn measure(writer_count: usize, duration: Duration) -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut options = StoreOptions::new("file:/warehouse").metadata_only();
    if std::env::var_os("NO_FSYNC").is_some() {
        options.durability = Durability::Memory;
    }
    let store = Store::open(dir.path(), options)?;
    let stop = AtomicBool::new(false);
    let commits = AtomicU64::new(0);
    let flushes_before = store
        .commit_counters()
        .map_or(0, |counters| counters.flush_count());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for writer in 0..writer_count {
            let (store, stop, commits) = (&store, &stop, &commits);
            scope.spawn(move || {
                let mut index = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let table = Table {
                        table_name: format!("w{writer}_t{index}"),
                        db_name: "default".to_string(),
                        ..Table::default()
                    };
                    if let Err(error) = store.create_table(table) {
                        eprintln!("writer {writer}: {error}");
                        return;
                    }
                    commits.fetch_add(1, Ordering::Relaxed);
                    index += 1;
                }
            });
        }
        std::thread::sleep(duration);
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = started.elapsed().as_secs_f64();
    let commit_count = commits.load(Ordering::Relaxed);
    let flushes = store
        .commit_counters()
        .map_or(0, |counters| counters.flush_count())
        - flushes_before;
    println!(
        "{writer_count:>3} writers: {:>8.0} durable commits/s, {:>6.0} fsyncs/s, {:.1} commits per fsync",
        commit_count as f64 / elapsed,
        flushes as f64 / elapsed,
        commit_count as f64 / flushes.max(1) as f64
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut arguments = std::env::args().skip(1);
    let seconds: u64 = arguments.next().map_or(Ok(3), |text| text.parse())?;
    let writer_counts: Vec<usize> = arguments
        .map(|text| text.parse())
        .collect::<Result<_, _>>()?;
    let writer_counts = if writer_counts.is_empty() {
        vec![1, 4, 16, 64]
    } else {
        writer_counts
    };
    for writer_count in writer_counts {
        measure(writer_count, Duration::from_secs(seconds))?;
    }
    Ok(())
}
