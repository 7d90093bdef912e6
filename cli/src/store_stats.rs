//! `hivestore stats`: what a store holds, keyspace by keyspace, and what it takes on disk.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hivestore_engine::kv::{KvBackend, SledBackend, RESERVE_FILE_NAME};
use hivestore_engine::size::{directory_bytes, measure_live, LiveSize};

/// The page cache the count reads through: it reads every key once, so a big cache would
/// only hold what is not read again.
const STATS_CACHE_BYTES: u64 = 32 * 1024 * 1024;

/// The arguments of `hivestore stats`.
#[derive(clap::Args)]
pub struct StatsArgs {
    /// The data directory of a store the server does not hold open (sled locks it).
    #[arg(long)]
    pub data_dir: PathBuf,
}

/// Counts the store in `args.data_dir` and prints the table.
pub fn run(args: &StatsArgs) -> Result<(), String> {
    let dir = &args.data_dir;
    if !dir.join("db").is_file() {
        return Err(format!("{} holds no store (no file `db`)", dir.display()));
    }
    // The reserve is kept as it is: its size when present, none made when absent.
    let reserve_bytes = std::fs::metadata(dir.join(RESERVE_FILE_NAME)).map_or(0, |m| m.len());
    let backend = SledBackend::open_with_reserve(dir, STATS_CACHE_BYTES, reserve_bytes)
        .map_err(|error| format!("cannot open the store in {}: {error}", dir.display()))?;
    let live = measure_live(&backend).map_err(|error| format!("cannot count the keys: {error}"))?;
    let sled_bytes = backend
        .size_on_disk()
        .map_err(|error| format!("cannot measure the store's files: {error}"))?
        .unwrap_or(0);
    drop(backend);
    let dir_bytes = directory_bytes(dir, &[RESERVE_FILE_NAME])
        .map_err(|error| format!("cannot measure {}: {error}", dir.display()))?;
    print!(
        "{}",
        render(&live, sled_bytes, dir_bytes, reserve_bytes, dir)
    );
    Ok(())
}

fn render(
    live: &LiveSize,
    sled_bytes: u64,
    dir_bytes: u64,
    reserve_bytes: u64,
    dir: &Path,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<22} {:>4} {:>12} {:>14} {:>14} {:>14}",
        "keyspace", "tag", "keys", "key bytes", "value bytes", "live bytes"
    );
    for keyspace in &live.keyspaces {
        let _ = writeln!(
            out,
            "{:<22} 0x{:02X} {:>12} {:>14} {:>14} {:>14}",
            keyspace.name(),
            keyspace.tag,
            keyspace.keys,
            keyspace.key_bytes,
            keyspace.value_bytes,
            keyspace.live_bytes()
        );
    }
    let key_bytes: u64 = live.keyspaces.iter().map(|k| k.key_bytes).sum();
    let value_bytes: u64 = live.keyspaces.iter().map(|k| k.value_bytes).sum();
    let _ = writeln!(
        out,
        "{:<22} {:>4} {:>12} {:>14} {:>14} {:>14}",
        "total",
        "",
        live.keys(),
        key_bytes,
        value_bytes,
        live.live_bytes()
    );
    let live_bytes = live.live_bytes().max(1);
    let _ = writeln!(out, "live bytes:              {}", live.live_bytes());
    let _ = writeln!(
        out,
        "sled's files:            {sled_bytes} ({:.2}x live)",
        sled_bytes as f64 / live_bytes as f64
    );
    let _ = writeln!(
        out,
        "data directory:          {dir_bytes} ({:.2}x live; {}, without the disk reserve of {reserve_bytes})",
        dir_bytes as f64 / live_bytes as f64,
        dir.display()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_engine::size::KeyspaceSize;

    #[test]
    fn the_table_names_each_keyspace_and_the_ratio() {
        let live = LiveSize {
            keyspaces: vec![KeyspaceSize {
                tag: 0x07,
                keys: 2,
                key_bytes: 20,
                value_bytes: 80,
            }],
        };
        let text = render(&live, 300, 250, 64, Path::new("/d"));
        assert!(text.contains("PARTITION              0x07"), "{text}");
        assert!(text.contains("live bytes:              100"), "{text}");
        assert!(text.contains("300 (3.00x live)"), "{text}");
        assert!(
            text.contains("250 (2.50x live; /d, without the disk reserve of 64)"),
            "{text}"
        );
    }
}
