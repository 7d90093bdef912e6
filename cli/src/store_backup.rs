//! `hivestore dump`, `restore` and `check`: a stopped store written to a dump, a dump made a
//! new store, a store's integrity checked. The engine does the work (`hivestore_engine::backup`);
//! this parses flags and prints.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use hivestore_engine::backup::{self, Compression, RestoreOptions};
use hivestore_engine::kv::{
    redacted_postgres_url, KvBackend, PostgresBackend, SledBackend, RESERVE_FILE_NAME,
};

/// The page cache offline commands read through: each key is read once, so a big cache would
/// only hold what is not read again.
const OFFLINE_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// The buffer between the dump and its file or pipe.
const STREAM_BUFFER_BYTES: usize = 1024 * 1024;
/// Connections to PostgreSQL an offline command uses: it reads or writes one batch at a time.
const OFFLINE_POSTGRES_CONNECTIONS: usize = 1;

/// Where an offline command finds its store: a data directory (sled), or a PostgreSQL
/// database (`--store postgres://...`), whose one-server lock it takes, so that it never runs
/// beside a server on that database.
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
pub struct StoreArgs {
    /// The data directory of a sled store the server does not hold open (sled locks it; a
    /// served store is backed up by the server itself: `serve --backup-dir`).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// A store on PostgreSQL instead: `postgres://user:password@host:port/database`, the
    /// URL `serve --store` takes.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
}

impl StoreArgs {
    /// The store, as messages name it (a PostgreSQL URL without its password).
    fn shown(&self) -> String {
        match (&self.data_dir, &self.store) {
            (Some(dir), _) => dir.display().to_string(),
            (None, Some(url)) => redacted_postgres_url(url),
            (None, None) => String::new(),
        }
    }
}

/// The arguments of `hivestore dump`.
#[derive(clap::Args)]
pub struct DumpArgs {
    #[command(flatten)]
    pub source: StoreArgs,
    /// Where to write the dump: a file (made, or replaced once complete), or `-` for standard
    /// output.
    #[arg(long)]
    pub out: PathBuf,
    /// Write the blocks uncompressed (default: zstd, level 3).
    #[arg(long)]
    pub no_compression: bool,
}

/// The arguments of `hivestore restore`.
#[derive(clap::Args)]
pub struct RestoreArgs {
    /// The dump to read: a file, or `-` for standard input.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// The new store: a data directory that must not exist or be empty (the store is built
    /// beside it and renamed into place once complete), or a PostgreSQL database whose table
    /// must hold no key (what a failed restore wrote there is deleted again).
    #[command(flatten)]
    pub target: StoreArgs,
    /// Do not compress the new store's log (default: compressed, as `serve` makes stores).
    #[arg(long)]
    pub no_compression: bool,
}

/// The arguments of `hivestore check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub store: StoreArgs,
}

fn open_stopped(dir: &Path) -> Result<SledBackend, String> {
    if !dir.join("db").is_file() {
        return Err(format!("{} holds no store (no file `db`)", dir.display()));
    }
    // The reserve is kept as it is: its size when present, none made when absent.
    let reserve_bytes = std::fs::metadata(dir.join(RESERVE_FILE_NAME)).map_or(0, |m| m.len());
    SledBackend::open_with_reserve(dir, OFFLINE_CACHE_BYTES, reserve_bytes)
        .map_err(|error| format!("cannot open the store in {}: {error}", dir.display()))
}

/// The store `args` names, opened for an offline command.
fn open_offline(args: &StoreArgs) -> Result<Box<dyn KvBackend>, String> {
    match (&args.data_dir, &args.store) {
        (Some(dir), _) => Ok(Box::new(open_stopped(dir)?)),
        (None, Some(url)) => Ok(Box::new(open_postgres(url)?)),
        (None, None) => Err("name the store: --data-dir DIR or --store postgres://...".into()),
    }
}

fn open_postgres(url: &str) -> Result<PostgresBackend, String> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(format!(
            "--store must be a postgres:// URL here (a sled store is named by --data-dir), not {}",
            url.split("://").next().unwrap_or_default()
        ));
    }
    PostgresBackend::connect(url, OFFLINE_POSTGRES_CONNECTIONS).map_err(|error| {
        format!(
            "cannot open the store in {}: {error}",
            redacted_postgres_url(url)
        )
    })
}

fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Dumps the store in `args.data_dir`; a file is written under a temporary name, synced and
/// renamed when complete.
pub fn dump(args: &DumpArgs) -> Result<(), String> {
    let backend = open_offline(&args.source)?;
    let compression = if args.no_compression {
        Compression::None
    } else {
        Compression::Zstd
    };
    let start = Instant::now();
    let summary = if is_stdio(&args.out) {
        let out = BufWriter::with_capacity(STREAM_BUFFER_BYTES, std::io::stdout().lock());
        backup::dump_backend(backend.as_ref(), out, compression)
            .map_err(|error| format!("cannot dump: {error}"))?
            .0
    } else {
        let partial = partial_path(&args.out);
        let file = std::fs::File::create(&partial)
            .map_err(|error| format!("cannot create {}: {error}", partial.display()))?;
        let written = backup::dump_backend(
            backend.as_ref(),
            BufWriter::with_capacity(STREAM_BUFFER_BYTES, file),
            compression,
        )
        .and_then(|(summary, out)| {
            let file = out.into_inner().map_err(|error| {
                hivestore_engine::Error::Storage(format!("cannot write the dump: {error}"))
            })?;
            file.sync_all().map_err(|error| {
                hivestore_engine::Error::Storage(format!("cannot sync the dump: {error}"))
            })?;
            Ok(summary)
        });
        let summary = match written {
            Ok(summary) => summary,
            Err(error) => {
                let _ = std::fs::remove_file(&partial);
                return Err(format!("cannot dump: {error}"));
            }
        };
        std::fs::rename(&partial, &args.out)
            .map_err(|error| format!("cannot rename {}: {error}", partial.display()))?;
        summary
    };
    eprintln!(
        "dumped {} keys, {} bytes of keys and values, into {} bytes in {:.1} s",
        summary.sizes.keys(),
        summary.sizes.live_bytes(),
        summary.dump_bytes,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `out` with `.partial` added: where a dump is written until complete.
fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Restores the dump in `args.input` into the new store `args.target`.
pub fn restore(args: &RestoreArgs) -> Result<(), String> {
    let options = RestoreOptions {
        page_cache_bytes: OFFLINE_CACHE_BYTES,
        compress: !args.no_compression,
    };
    let start = Instant::now();
    let input: Box<dyn Read> = if is_stdio(&args.input) {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(&args.input)
            .map_err(|error| format!("cannot open {}: {error}", args.input.display()))?;
        Box::new(file)
    };
    let input = BufReader::with_capacity(STREAM_BUFFER_BYTES, input);
    let summary = match (&args.target.data_dir, &args.target.store) {
        (Some(dir), _) => backup::restore_into_dir(input, dir, options),
        (None, Some(url)) => backup::restore_into_backend(input, &open_postgres(url)?),
        (None, None) => return Err("name the new store: --data-dir DIR or --store URL".into()),
    }
    .map_err(|error| format!("cannot restore into {}: {error}", args.target.shown()))?;
    eprintln!(
        "restored {} keys, {} bytes of keys and values, from {} bytes of dump (store {}, made by hivestore {}) in {:.1} s",
        summary.sizes.keys(),
        summary.sizes.live_bytes(),
        summary.dump_bytes,
        summary.header.store_uuid,
        summary.header.hivestore_version,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Checks the store `args` names, printing each problem; `Err` if any.
pub fn check(args: &CheckArgs) -> Result<(), String> {
    let backend = open_offline(&args.store)?;
    let start = Instant::now();
    let mut out = std::io::stdout().lock();
    let summary = backup::check_backend(backend.as_ref(), &mut |problem| {
        let _ = writeln!(out, "{}: {}", problem.key, problem.reason);
    })
    .map_err(|error| format!("cannot read the store: {error}"))?;
    eprintln!(
        "checked {} keys, {} bytes, in {:.1} s: {} problems",
        summary.keys,
        summary.bytes,
        start.elapsed().as_secs_f64(),
        summary.problems
    );
    if summary.problems > 0 {
        return Err(format!(
            "{} problems found in {}",
            summary.problems,
            args.store.shown()
        ));
    }
    Ok(())
}
