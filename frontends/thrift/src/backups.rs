//! Online backups: the server dumps its store as of one moment while it serves
//! (`Store::dump_snapshot`), into `--backup-dir`, on request (SIGUSR1, through
//! [`BackupTrigger::request`]) and every `--backup-interval-secs`. A backup is written to a
//! temporary name, synced and renamed, then the oldest beyond `--backup-keep` are deleted.
//! One thread makes them, one at a time; the fb303 counters `backups.*` say how it went.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hivestore_engine::backup::{Compression, SnapshotOptions};
use hivestore_engine::calendar::DateTime;

use crate::service::ServerState;

/// How many backups `--backup-dir` keeps by default.
pub const BACKUP_KEEP_DEFAULT: usize = 7;
/// The memory an online backup may hold for before-images by default, in MiB.
pub const BACKUP_IMAGE_MB_DEFAULT: u64 = 256;
/// The most backups `--backup-keep` may ask for (a listing of the directory is read whole).
pub const BACKUP_KEEP_MAX: usize = 10_000;
/// What a backup's file name starts and ends with; between them its UTC time.
const BACKUP_PREFIX: &str = "hivestore-";
const BACKUP_SUFFIX: &str = ".dump";
/// What a backup being written ends with, until it is renamed.
const PARTIAL_SUFFIX: &str = ".partial";
/// The buffer between the dump and its file.
const BACKUP_BUFFER_BYTES: usize = 1024 * 1024;

/// Where and how often the server backs its store up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSettings {
    /// The directory backups are written into.
    pub dir: PathBuf,
    /// How often a backup is made; `None`: only on request.
    pub interval: Option<Duration>,
    /// How many backups are kept.
    pub keep: usize,
    /// The most bytes of before-images a backup holds.
    pub image_bytes_max: u64,
}

impl BackupSettings {
    /// The settings from the flags' values; `None` without a directory.
    pub fn resolve(
        dir: Option<PathBuf>,
        interval_secs: u64,
        keep: usize,
        image_mb: u64,
    ) -> Result<Option<BackupSettings>, String> {
        let Some(dir) = dir else {
            return Ok(None);
        };
        if !(1..=BACKUP_KEEP_MAX).contains(&keep) {
            return Err(format!(
                "backup_keep must be from 1 to {BACKUP_KEEP_MAX} (it is {keep})"
            ));
        }
        if image_mb == 0 {
            return Err("backup_image_mb must be at least 1".to_string());
        }
        Ok(Some(BackupSettings {
            dir,
            interval: (interval_secs > 0).then(|| Duration::from_secs(interval_secs)),
            keep,
            image_bytes_max: image_mb.saturating_mul(1024 * 1024),
        }))
    }
}

/// Asks the backup thread for a backup now.
#[derive(Default)]
pub struct BackupTrigger {
    requested: Mutex<bool>,
    wake: Condvar,
}

impl BackupTrigger {
    /// Asks for one backup as soon as the one under way (if any) is over.
    pub fn request(&self) {
        if let Ok(mut requested) = self.requested.lock() {
            *requested = true;
            self.wake.notify_one();
        }
    }

    /// Waits for a request, or `interval` (forever when `None`); `true` if one came.
    fn wait(&self, interval: Option<Duration>) -> bool {
        let deadline = interval.map(|interval| Instant::now() + interval);
        let mut requested = self
            .requested
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while !*requested {
            requested = match deadline {
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    let waited = self.wake.wait_timeout(requested, left);
                    waited.unwrap_or_else(PoisonError::into_inner).0
                }
                None => self
                    .wake
                    .wait(requested)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
        *requested = false;
        true
    }
}

/// Starts the backup thread; the trigger asks it for a backup now.
pub fn spawn(
    state: Arc<ServerState>,
    settings: BackupSettings,
) -> Result<Arc<BackupTrigger>, String> {
    std::fs::create_dir_all(&settings.dir).map_err(|error| {
        format!(
            "cannot create the backup directory {}: {error}",
            settings.dir.display()
        )
    })?;
    let trigger = Arc::new(BackupTrigger::default());
    let waiting = Arc::clone(&trigger);
    std::thread::Builder::new()
        .name("backups".to_string())
        .spawn(move || loop {
            waiting.wait(settings.interval);
            back_up_once(&state, &settings);
        })
        .map_err(|error| format!("cannot start the backup thread: {error}"))?;
    Ok(trigger)
}

/// Makes one backup and records it in the counters; keeps the newest `settings.keep`.
pub fn back_up_once(state: &ServerState, settings: &BackupSettings) {
    let start = Instant::now();
    match write_backup(state, settings) {
        Ok((path, bytes)) => {
            let took = start.elapsed();
            tracing::info!(path = %path.display(), bytes, ?took, "backup written");
            state.counters.record_backup(Some(bytes), took);
            if let Err(error) = prune(&settings.dir, settings.keep) {
                tracing::warn!(%error, "cannot delete old backups");
            }
        }
        Err(error) => {
            tracing::error!(%error, "backup failed");
            state.counters.record_backup(None, start.elapsed());
        }
    }
}

fn write_backup(state: &ServerState, settings: &BackupSettings) -> Result<(PathBuf, u64), String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|error| format!("the clock is before 1970: {error}"))?;
    let name = backup_name(now);
    let path = settings.dir.join(&name);
    let partial = settings.dir.join(format!("{name}{PARTIAL_SUFFIX}"));
    let file = std::fs::File::create(&partial)
        .map_err(|error| format!("cannot create {}: {error}", partial.display()))?;
    let options = SnapshotOptions {
        image_bytes_max: settings.image_bytes_max,
        compression: Compression::Zstd,
        ..SnapshotOptions::default()
    };
    let written = state
        .store()
        .dump_snapshot(
            BufWriter::with_capacity(BACKUP_BUFFER_BYTES, file),
            &options,
        )
        .map_err(|error| error.to_string())
        .and_then(|(summary, mut out)| {
            out.flush().map_err(|error| error.to_string())?;
            let file = out.into_inner().map_err(|error| error.to_string())?;
            file.sync_all().map_err(|error| error.to_string())?;
            Ok(summary.dump_bytes)
        });
    let bytes = match written {
        Ok(bytes) => bytes,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    std::fs::rename(&partial, &path)
        .map_err(|error| format!("cannot rename {}: {error}", partial.display()))?;
    std::fs::File::open(&settings.dir)
        .and_then(|dir| dir.sync_all())
        .map_err(|error| format!("cannot sync {}: {error}", settings.dir.display()))?;
    Ok((path, bytes))
}

/// `hivestore-20261207T183500.123Z.dump`: names sort as their times.
fn backup_name(since_epoch: Duration) -> String {
    let seconds = i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX);
    let time = DateTime::from_epoch_seconds(seconds);
    format!(
        "{BACKUP_PREFIX}{:04}{:02}{:02}T{:02}{:02}{:02}.{:03}Z{BACKUP_SUFFIX}",
        time.year,
        time.month,
        time.day,
        time.hour,
        time.minute,
        time.second,
        since_epoch.subsec_millis()
    )
}

/// Deletes the oldest backups of `dir` beyond the newest `keep`, and backups left partial.
fn prune(dir: &Path, keep: usize) -> std::io::Result<()> {
    let mut backups = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(BACKUP_PREFIX) && name.ends_with(BACKUP_SUFFIX) {
            backups.push(name);
        }
    }
    backups.sort_unstable();
    let excess = backups.len().saturating_sub(keep);
    for name in &backups[..excess] {
        std::fs::remove_file(dir.join(name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_engine as engine;

    #[test]
    fn names_sort_as_their_times() {
        let earlier = backup_name(Duration::from_millis(1_796_668_500_123));
        assert_eq!(earlier, "hivestore-20261207T183500.123Z.dump");
        let later = backup_name(Duration::from_millis(1_796_668_501_000));
        assert!(earlier < later);
    }

    #[test]
    fn settings_refuse_bad_values_and_need_a_directory() {
        assert_eq!(BackupSettings::resolve(None, 60, 3, 10), Ok(None));
        let dir = Some(PathBuf::from("/b"));
        assert!(BackupSettings::resolve(dir.clone(), 0, 0, 10).is_err());
        assert!(BackupSettings::resolve(dir.clone(), 0, 3, 0).is_err());
        let settings = BackupSettings::resolve(dir, 0, 3, 2).unwrap().unwrap();
        assert_eq!(settings.interval, None);
        assert_eq!(settings.image_bytes_max, 2 * 1024 * 1024);
    }

    #[test]
    fn backups_are_written_counted_and_pruned_to_the_newest() {
        // Goal: each backup is a complete file under its time's name, the counters say so,
        // and only the newest `keep` stay.
        let mut options = engine::StoreOptions::new("memory:/warehouse");
        options.durability = engine::Durability::Memory;
        let backend = Arc::new(engine::kv::MemoryBackend::new());
        let store = engine::Store::open_with_backend(backend.clone(), options).unwrap();
        let state = ServerState::new(store);
        let dir = tempfile::tempdir().unwrap();
        let settings = BackupSettings {
            dir: dir.path().to_path_buf(),
            interval: None,
            keep: 2,
            image_bytes_max: 1 << 20,
        };
        for _ in 0..3 {
            back_up_once(&state, &settings);
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().all(|name| name.ends_with(BACKUP_SUFFIX)));
        let counters = state.counters.snapshot();
        assert_eq!(counters.get("backups.done"), Some(&3));
        assert!(!counters.contains_key("backups.failed"));
        let bytes = std::fs::read(dir.path().join(&names[1])).unwrap();
        assert_eq!(
            counters.get("backups.last_bytes"),
            Some(&(bytes.len() as i64))
        );
        let restored = engine::kv::MemoryBackend::new();
        engine::backup::restore_into_backend(bytes.as_slice(), &restored).unwrap();
        let all = engine::kv::KeyRange::all();
        assert_eq!(
            engine::kv::KvBackend::scan(&restored, &all, 4096).unwrap(),
            engine::kv::KvBackend::scan(backend.as_ref(), &all, 4096).unwrap()
        );
    }

    #[test]
    fn a_request_wakes_the_waiting_thread_once() {
        let trigger = BackupTrigger::default();
        assert!(!trigger.wait(Some(Duration::from_millis(1))));
        trigger.request();
        assert!(trigger.wait(Some(Duration::from_secs(5))));
        assert!(!trigger.wait(Some(Duration::from_millis(1))));
    }
}
