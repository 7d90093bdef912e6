//! The warehouse: where Hive keeps table data, and the directory work the
//! metastore does there.
//!
//! Hive's metastore touches the filesystem: creating a database or a table
//! makes its directory, dropping a managed table with `deleteData` removes its
//! data, renaming a managed table moves its directory. hivestore does the same
//! for locations on the local filesystem, `file:` URIs and plain absolute
//! paths. Locations on any other filesystem (`hdfs:`, `s3a:`, `s3:`, `gs:`,
//! `abfs:`, ...) and relative paths are recorded in the catalog and never
//! touched: hivestore holds no credentials for them.
//!
//! Every directory made, moved or deleted lies under the store's roots (the warehouse root and
//! the external roots); anything else is refused before anything changes (see
//! `confinement.rs`).
//!
//! The directory operations go through the small [`Filesystem`] trait so that
//! tests can inject failures; [`LocalFilesystem`] is the real one.
//!
//! Ordering with the metadata commit follows Hive: directories are created and
//! moved *before* the commit (and put back if the commit fails), so a failure
//! there fails the call with nothing applied; data is deleted *after* the
//! commit, and a failure there is logged and reported in a
//! [`WarehouseReport`], never undoing the metadata.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::confinement::{Action, KnownPaths, Roots};

/// The directory operations the metastore needs, on local paths.
pub trait Filesystem: Send + Sync + fmt::Debug {
    /// Whether `path` exists (file or directory).
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// Whether `path` is a directory.
    fn is_dir(&self, path: &Path) -> io::Result<bool>;
    /// Creates `path` and its missing parents.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Creates directory `path` alone: `AlreadyExists` when something is there, `NotFound`
    /// when its parent is missing.
    fn create_dir(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }
    /// Removes `path` and everything under it.
    fn remove_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Renames `from` to `to`, which must not exist; creates `to`'s parent.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes everything inside directory `path`, keeping `path`.
    fn remove_dir_contents(&self, path: &Path) -> io::Result<()>;
    /// Removes directory `path` if it is empty; `Ok(false)` when it is not (or is gone).
    fn remove_dir_if_empty(&self, path: &Path) -> io::Result<bool>;
    /// Hive's quick statistics of `path`: its files, recursively, names starting with `_` or
    /// `.` skipped at every level; zeros when `path` does not exist. `Ok(None)` when more
    /// than `entry_count_max` entries would have to be visited.
    fn quick_stats(&self, path: &Path, entry_count_max: usize) -> io::Result<Option<QuickStats>> {
        list_quick_stats(path, entry_count_max)
    }
}

/// What Hive's `populateQuickStats` counts in a directory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuickStats {
    /// Regular files (`numFiles`).
    pub file_count: u64,
    /// Their total length (`totalSize`).
    pub total_size_bytes: u64,
}

/// How many directory entries a listing for quick statistics visits at most; past it the
/// stored statistics stay (a metastore call must not walk an unbounded tree).
pub const QUICK_STATS_ENTRY_COUNT_MAX: usize = 1_000_000;
/// How many directory levels it descends at most.
pub const QUICK_STATS_DEPTH_MAX: usize = 64;

/// Whether Hive's `HIDDEN_FILES_PATH_FILTER` skips an entry of this name.
fn is_hidden(name: &std::ffi::OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"_") || name.starts_with(b".")
}

/// [`Filesystem::quick_stats`] through `std::fs`. Symbolic links are followed for files and
/// not descended into, so a link cycle cannot loop.
fn list_quick_stats(root: &Path, entry_count_max: usize) -> io::Result<Option<QuickStats>> {
    let metadata = match std::fs::metadata(root) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Some(QuickStats::default()))
        }
        Err(error) => return Err(error),
    };
    let mut totals = QuickStats::default();
    if !metadata.is_dir() {
        totals.file_count = 1;
        totals.total_size_bytes = metadata.len();
        return Ok(Some(totals));
    }
    let mut pending = vec![(root.to_path_buf(), 0_usize)];
    let mut visited = 0_usize;
    while let Some((directory, depth)) = pending.pop() {
        for entry in std::fs::read_dir(&directory)? {
            let entry = entry?;
            visited += 1;
            if visited > entry_count_max || depth >= QUICK_STATS_DEPTH_MAX {
                return Ok(None);
            }
            if is_hidden(&entry.file_name()) {
                continue;
            }
            if entry.file_type()?.is_dir() {
                pending.push((entry.path(), depth + 1));
                continue;
            }
            match std::fs::metadata(entry.path()) {
                Ok(metadata) if metadata.is_file() => {
                    totals.file_count += 1;
                    totals.total_size_bytes += metadata.len();
                }
                // A dangling link, or one to a directory, or an entry gone meanwhile.
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
        }
    }
    Ok(Some(totals))
}

/// The local filesystem, through `std::fs`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFilesystem;

impl Filesystem for LocalFilesystem {
    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }

    fn is_dir(&self, path: &Path) -> io::Result<bool> {
        match std::fs::metadata(path) {
            Ok(metadata) => Ok(metadata.is_dir()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error),
        }
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        match std::fs::remove_dir_all(path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(from, to)
    }

    fn remove_dir_if_empty(&self, path: &Path) -> io::Result<bool> {
        let empty = match std::fs::read_dir(path) {
            Ok(mut entries) => entries.next().is_none(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(error) => return Err(error),
        };
        if empty {
            std::fs::remove_dir(path)?;
        }
        Ok(empty)
    }

    fn remove_dir_contents(&self, path: &Path) -> io::Result<()> {
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }
}

/// What [`Warehouse::make_dirs`] found or did at one location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirState {
    /// Made by this call.
    Made,
    /// A directory there already.
    Existed,
    /// Not touched: not local, or no filesystem.
    Untouched,
}

/// At most this many threads make a batch's directories; each takes a share of them.
const DIR_THREAD_COUNT_MAX: usize = 4;
/// Fewer directories than this a thread are made on the caller's thread.
const DIRS_PER_THREAD_MIN: usize = 64;

/// What happened to the data after a committed metadata change: directories
/// removed, and the failures, which never undo the metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarehouseReport {
    /// Locations whose data was removed.
    pub removed: Vec<String>,
    /// Failures, each naming the location and the reason. Also logged.
    pub errors: Vec<String>,
}

impl WarehouseReport {
    /// Whether every filesystem action succeeded.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }

    fn failed(&mut self, message: String) {
        tracing::error!(%message, "warehouse");
        self.errors.push(message);
    }
}

/// The local path of `location`, if hivestore manages it: a `file:` URI
/// (`file:/p`, `file:///p`, `file://localhost/p`) or an absolute path.
/// Other schemes and relative paths give `None`: recorded, never touched.
///
/// The location is used exactly as stored: nothing is trimmed, decoded or folded, because
/// partition names that differ only there (`x` and `x `, `%` escapes, case, unicode forms)
/// are different partitions and must keep different directories.
pub fn local_path(location: &str) -> Option<PathBuf> {
    if let Some(rest) = location.strip_prefix("file:") {
        let path = match rest.strip_prefix("//") {
            Some(authority_and_path) => {
                let slash = authority_and_path.find('/')?;
                let authority = &authority_and_path[..slash];
                if !authority.is_empty() && authority != "localhost" {
                    return None;
                }
                &authority_and_path[slash..]
            }
            None => rest,
        };
        return path.starts_with('/').then(|| PathBuf::from(path));
    }
    if has_scheme(location) || !location.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(location))
}

/// Whether `location` starts with a URI scheme (`s3a:`, `hdfs:`, ...).
fn has_scheme(location: &str) -> bool {
    let Some(colon) = location.find(':') else {
        return false;
    };
    let scheme = &location[..colon];
    let mut bytes = scheme.bytes();
    matches!(bytes.next(), Some(first) if first.is_ascii_alphabetic())
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
}

/// `location` as Hive's `Warehouse.getDnsPath` stores it: an absolute path without a scheme
/// is on the default filesystem, the local one, so `/w/db` becomes `file:/w/db` (doubled and
/// trailing slashes dropped, as Hadoop's `Path` does). Locations with a scheme and relative
/// paths are kept as given.
pub fn qualified_location(location: &str) -> String {
    if has_scheme(location) || !location.starts_with('/') {
        return location.to_string();
    }
    let mut path = String::with_capacity(location.len());
    for piece in location.split('/').filter(|piece| !piece.is_empty()) {
        path.push('/');
        path.push_str(piece);
    }
    if path.is_empty() {
        path.push('/');
    }
    format!("file:{path}")
}

/// `base/child`, with exactly one `/` between them.
pub fn join_location(base: &str, child: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), child)
}

/// `location` without trailing slashes (but `/` stays `/`), for comparing. Whitespace is
/// part of the location.
pub(crate) fn normalize_location(location: &str) -> &str {
    let trimmed = location.trim_end_matches('/');
    if trimmed.is_empty() || trimmed.ends_with(':') {
        location
    } else {
        trimmed
    }
}

/// The directory the filesystem resolves `path` to, as far as the path's text tells:
/// `//`, `.` and a trailing `/` dropped, `..` taking back the component before it (symbolic
/// links are not followed). Two locations with the same resolved path are one directory.
pub(crate) fn resolved_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved
}

/// The directory of local `location` as the filesystem resolves it ([`resolved_path`]), or
/// `None` for a location hivestore does not touch.
pub(crate) fn resolved_local_dir(location: &str) -> Option<PathBuf> {
    local_path(location).map(|path| resolved_path(&path))
}

/// Whether `location` names a filesystem root (`/`, `file:/`, `s3a://b/`, `/a/..`).
pub(crate) fn is_root_location(location: &str) -> bool {
    match resolved_local_dir(location) {
        Some(path) => path.parent().is_none(),
        None => {
            let trimmed = location.trim_end_matches('/');
            match trimmed.split_once("://") {
                Some((_, authority)) => !authority.contains('/'),
                None => trimmed.is_empty() || trimmed.ends_with(':'),
            }
        }
    }
}

/// A filesystem action to take back if the metadata commit fails.
#[derive(Debug)]
pub(crate) enum Undo {
    /// Remove a directory the call created.
    RemoveDir(PathBuf),
    /// Remove the directories the call created, in this order (each after those inside it).
    RemoveDirs(Vec<PathBuf>),
    /// Move a directory back from `to` to `from`.
    RenameBack {
        /// Where it was.
        from: PathBuf,
        /// Where it was moved to.
        to: PathBuf,
    },
}

/// The warehouse of a store: its filesystem, or none (metadata only), and the roots it is
/// confined to (see [`crate::confinement`]).
#[derive(Debug, Clone)]
pub(crate) struct Warehouse {
    filesystem: Option<Arc<dyn Filesystem>>,
    roots: Arc<Roots>,
    /// Whether the filesystem is left alone for now ([`crate::Store::set_warehouse_untouched`]).
    untouched: Arc<std::sync::atomic::AtomicBool>,
}

impl Warehouse {
    pub(crate) fn new(filesystem: Option<Arc<dyn Filesystem>>, roots: Roots) -> Self {
        Warehouse {
            filesystem,
            roots: Arc::new(roots),
            untouched: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// Leaves the filesystem alone (`true`) or touches it again, from the next change on.
    pub(crate) fn set_untouched(&self, untouched: bool) {
        self.untouched
            .store(untouched, std::sync::atomic::Ordering::Release);
    }

    /// The filesystem, unless there is none or it is left alone for now.
    fn touched_filesystem(&self) -> Option<&dyn Filesystem> {
        if self.untouched.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        self.filesystem.as_deref()
    }

    /// The filesystem and local path for `location`, if hivestore touches it: the path as
    /// the filesystem resolves its text ([`resolved_path`]), which is what is checked and
    /// acted on.
    fn resolve(&self, location: &str) -> Option<(&dyn Filesystem, PathBuf)> {
        let filesystem = self.touched_filesystem()?;
        Some((filesystem, resolved_local_dir(location)?))
    }

    /// Whether hivestore makes, moves and deletes directories at `location`.
    pub(crate) fn handles(&self, location: &str) -> bool {
        self.resolve(location).is_some()
    }

    /// Refuses `action` at `location` unless it lies under a root; locations hivestore does
    /// not touch pass. The message names the location (see [`Roots::check`]).
    pub(crate) fn confine(&self, action: Action, location: &str) -> Result<(), String> {
        self.confine_all(action, [location])
    }

    /// [`Warehouse::confine`] for several locations, all checked before the caller acts.
    pub(crate) fn confine_all<'l>(
        &self,
        action: Action,
        locations: impl IntoIterator<Item = &'l str>,
    ) -> Result<(), String> {
        let mut known = KnownPaths::new();
        for location in locations {
            if let Some((_, path)) = self.resolve(location) {
                self.roots.check(action, location, &path, &mut known)?;
            }
        }
        Ok(())
    }

    /// Refuses an alter that gives an object a new local location outside the roots; a
    /// location kept (the same directory, however written) is not checked, so objects from
    /// before a root was removed can still be altered.
    pub(crate) fn confine_relocation(
        &self,
        old: Option<&str>,
        new: Option<&str>,
    ) -> Result<(), String> {
        let Some(new) = new else {
            return Ok(());
        };
        let kept = old.is_some_and(|old| {
            normalize_location(old) == normalize_location(new)
                || resolved_local_dir(old).is_some_and(|dir| Some(dir) == resolved_local_dir(new))
        });
        if kept {
            return Ok(());
        }
        self.confine(Action::Locate, new)
    }

    /// Hive's `mkdirs` before a create: makes `location` unless it is a
    /// directory already. Returns the undo action when it made one. A location outside the
    /// roots is refused, even when its directory exists.
    pub(crate) fn make_dir(&self, location: &str) -> Result<Option<Undo>, String> {
        let Some((filesystem, path)) = self.resolve(location) else {
            return Ok(None);
        };
        self.confine(Action::Create, location)?;
        let unable = |reason: String| {
            format!("{location} is not a directory or unable to create one: {reason}")
        };
        match filesystem.is_dir(&path) {
            Ok(true) => return Ok(None),
            Ok(false) => {}
            Err(error) => return Err(unable(error.to_string())),
        }
        filesystem
            .create_dir_all(&path)
            .map_err(|error| unable(error.to_string()))?;
        Ok(Some(Undo::RemoveDir(path)))
    }

    /// [`Warehouse::make_dir`] for a batch of locations, telling what each was: each parent is made or found
    /// once for the batch, then each directory is made by one `mkdir` (its answer tells an
    /// existing one), spread over a few threads. On failure whatever was made is removed
    /// again; on success the undo removes every directory made, parents included.
    pub(crate) fn make_dirs(
        &self,
        locations: &[Option<&str>],
    ) -> Result<(Vec<DirState>, Option<Undo>), String> {
        let mut states = vec![DirState::Untouched; locations.len()];
        let Some(filesystem) = self.touched_filesystem() else {
            return Ok((states, None));
        };
        self.confine_all(Action::Create, locations.iter().flatten().copied())?;
        let mut leaves = Vec::new();
        for (index, location) in locations.iter().enumerate() {
            if let Some(path) = location.and_then(resolved_local_dir) {
                leaves.push((index, path));
            }
        }
        let mut made = Vec::new();
        let result = make_parents(filesystem, &leaves, &mut made)
            .and_then(|()| make_leaves(filesystem, &leaves, &mut states, &mut made));
        let undo = (!made.is_empty()).then(|| {
            made.reverse();
            Undo::RemoveDirs(made)
        });
        match result {
            Ok(()) => Ok((states, undo)),
            Err((path, error)) => {
                if let Some(undo) = undo {
                    self.undo(undo);
                }
                let location = locations
                    .iter()
                    .flatten()
                    .find(|location| {
                        resolved_local_dir(location).is_some_and(|leaf| leaf.starts_with(&path))
                    })
                    .map_or_else(
                        || path.display().to_string(),
                        |location| location.to_string(),
                    );
                Err(format!(
                    "{location} is not a directory or unable to create one: {error}"
                ))
            }
        }
    }

    /// Hive's quick statistics of `location`, or none when hivestore does not touch it, or
    /// the listing failed or went past [`QUICK_STATS_ENTRY_COUNT_MAX`] (logged).
    pub(crate) fn quick_stats(&self, location: &str) -> Option<QuickStats> {
        let (filesystem, path) = self.resolve(location)?;
        match filesystem.quick_stats(&path, QUICK_STATS_ENTRY_COUNT_MAX) {
            Ok(Some(totals)) => Some(totals),
            Ok(None) => {
                tracing::warn!(%location, "too many entries to count quick statistics");
                None
            }
            Err(error) => {
                tracing::warn!(%location, %error, "cannot list files for quick statistics");
                None
            }
        }
    }

    /// Whether `location` exists; `false` for locations never touched.
    pub(crate) fn exists(&self, location: &str) -> Result<bool, String> {
        let Some((filesystem, path)) = self.resolve(location) else {
            return Ok(false);
        };
        filesystem
            .exists(&path)
            .map_err(|error| format!("cannot check {location}: {error}"))
    }

    /// Moves `from` to `to` if both are local and `from` exists. Returns the
    /// undo action when it moved something. Either outside the roots is refused.
    pub(crate) fn move_dir(&self, from: &str, to: &str) -> Result<Option<Undo>, String> {
        let (Some((filesystem, source)), Some(target)) =
            (self.resolve(from), resolved_local_dir(to))
        else {
            return Ok(None);
        };
        self.confine_all(Action::Move, [from, to])?;
        match filesystem.exists(&source) {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(error) => return Err(format!("cannot check {from}: {error}")),
        }
        filesystem
            .rename(&source, &target)
            .map_err(|error| format!("cannot move {from} to {to}: {error}"))?;
        Ok(Some(Undo::RenameBack {
            from: source,
            to: target,
        }))
    }

    /// Takes back `undo` after a failed commit; failures are logged.
    pub(crate) fn undo(&self, undo: Undo) {
        let Some(filesystem) = self.filesystem.as_deref() else {
            return;
        };
        let result = match &undo {
            Undo::RemoveDir(path) => filesystem.remove_dir_all(path),
            Undo::RemoveDirs(paths) => paths
                .iter()
                .map(|path| filesystem.remove_dir_all(path))
                .fold(Ok(()), Result::and),
            Undo::RenameBack { from, to } => filesystem.rename(to, from),
        };
        if let Err(error) = result {
            tracing::error!(?undo, %error, "cannot take back a warehouse change after a failed commit");
        }
    }

    /// Removes `location` and its contents after a committed drop, recording
    /// the outcome in `report`. Roots and `protected` locations are refused, and so is a
    /// location outside the roots (the caller checked it before the commit: this catches a
    /// link made since).
    pub(crate) fn remove_dir(
        &self,
        location: &str,
        protected: &[&str],
        report: &mut WarehouseReport,
    ) {
        let Some((filesystem, path)) = self.resolve(location) else {
            return;
        };
        let is_protected = |kept: &&str| match resolved_local_dir(kept) {
            Some(kept) => kept.starts_with(&path),
            None => normalize_location(kept) == normalize_location(location),
        };
        if is_root_location(location) || protected.iter().any(is_protected) {
            report.failed(format!(
                "refusing to delete {location}: it is a filesystem or warehouse root"
            ));
            return;
        }
        if let Err(refusal) = self.confine(Action::Delete, location) {
            report.failed(refusal);
            return;
        }
        match filesystem.remove_dir_all(&path) {
            Ok(()) => report.removed.push(location.to_string()),
            Err(error) => report.failed(format!("cannot delete {location}: {error}")),
        }
    }

    /// Removes the directories between `location` (exclusive) and `root` (exclusive) that
    /// are left empty, innermost first, as Hive does after dropping a partition's data
    /// (`ds=x` goes with its last `hr=y`). Failures are reported, never fatal.
    pub(crate) fn remove_empty_parents(
        &self,
        location: &str,
        root: &str,
        report: &mut WarehouseReport,
    ) {
        let (Some((filesystem, path)), Some(root)) =
            (self.resolve(location), resolved_local_dir(root))
        else {
            return;
        };
        let mut parent = path.parent();
        while let Some(directory) = parent {
            if directory == root || !directory.starts_with(&root) {
                return;
            }
            match filesystem.remove_dir_if_empty(directory) {
                Ok(true) => parent = directory.parent(),
                Ok(false) => return,
                Err(error) => {
                    report.failed(format!("cannot delete {}: {error}", directory.display()));
                    return;
                }
            }
        }
    }

    /// Removes what is inside `location`, keeping the directory; outside the roots, refused.
    pub(crate) fn empty_dir(&self, location: &str) -> Result<(), String> {
        let Some((filesystem, path)) = self.resolve(location) else {
            return Ok(());
        };
        self.confine(Action::Empty, location)?;
        match filesystem.is_dir(&path) {
            Ok(true) => filesystem
                .remove_dir_contents(&path)
                .map_err(|error| format!("cannot delete the files in {location}: {error}")),
            Ok(false) => Ok(()),
            Err(error) => Err(format!("cannot check {location}: {error}")),
        }
    }
}

/// A directory that could not be made, and why.
type MakeFailure = (PathBuf, io::Error);

/// Makes or finds the parent of every leaf, once each; appends what it made to `made`.
fn make_parents(
    filesystem: &dyn Filesystem,
    leaves: &[(usize, PathBuf)],
    made: &mut Vec<PathBuf>,
) -> Result<(), MakeFailure> {
    let mut known = std::collections::HashSet::new();
    for (_, leaf) in leaves {
        if let Some(parent) = leaf.parent() {
            make_parent(filesystem, parent, &mut known, made)?;
        }
    }
    Ok(())
}

/// Makes `directory` and its missing parents unless known to be there, outermost first.
fn make_parent(
    filesystem: &dyn Filesystem,
    directory: &Path,
    known: &mut std::collections::HashSet<PathBuf>,
    made: &mut Vec<PathBuf>,
) -> Result<(), MakeFailure> {
    // The chain of directories not known yet, innermost first.
    let mut missing = Vec::new();
    let mut next = Some(directory);
    while let Some(directory) = next {
        if directory.as_os_str().is_empty() || known.contains(directory) {
            break;
        }
        match filesystem.create_dir(directory) {
            Ok(()) => {
                known.insert(directory.to_path_buf());
                made.push(directory.to_path_buf());
                break;
            }
            // A file there fails the leaf's `mkdir` with a clear error of its own.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                known.insert(directory.to_path_buf());
                break;
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                missing.push(directory);
                next = directory.parent();
            }
            Err(error) => return Err((directory.to_path_buf(), error)),
        }
    }
    for directory in missing.into_iter().rev() {
        match filesystem.create_dir(directory) {
            Ok(()) => made.push(directory.to_path_buf()),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err((directory.to_path_buf(), error)),
        }
        known.insert(directory.to_path_buf());
    }
    Ok(())
}

/// Makes every leaf, its parent being there; fills in its state and appends what it made to
/// `made` (even when another leaf failed).
fn make_leaves(
    filesystem: &dyn Filesystem,
    leaves: &[(usize, PathBuf)],
    states: &mut [DirState],
    made: &mut Vec<PathBuf>,
) -> Result<(), MakeFailure> {
    let thread_count = (leaves.len() / DIRS_PER_THREAD_MIN).clamp(1, DIR_THREAD_COUNT_MAX);
    let outcomes: Vec<(usize, Result<DirState, io::Error>)> = if thread_count == 1 {
        leaves
            .iter()
            .map(|(index, leaf)| (*index, make_leaf(filesystem, leaf)))
            .collect()
    } else {
        let share = leaves.len().div_ceil(thread_count);
        std::thread::scope(|scope| {
            let workers: Vec<_> = leaves
                .chunks(share)
                .map(|group| {
                    scope.spawn(move || {
                        group
                            .iter()
                            .map(|(index, leaf)| (*index, make_leaf(filesystem, leaf)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().expect("a directory maker panicked"))
                .collect()
        })
    };
    let mut failure = None;
    for ((index, outcome), (_, leaf)) in outcomes.into_iter().zip(leaves) {
        match outcome {
            Ok(state) => {
                if state == DirState::Made {
                    made.push(leaf.clone());
                }
                states[index] = state;
            }
            Err(error) => {
                failure.get_or_insert((leaf.clone(), error));
            }
        }
    }
    failure.map_or(Ok(()), Err)
}

/// One `mkdir`; something already there must be a directory.
fn make_leaf(filesystem: &dyn Filesystem, leaf: &Path) -> io::Result<DirState> {
    match filesystem.create_dir(leaf) {
        Ok(()) => Ok(DirState::Made),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            if filesystem.is_dir(leaf)? {
                Ok(DirState::Existed)
            } else {
                Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "a file is there",
                ))
            }
        }
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_are_file_uris_and_absolute_paths() {
        assert_eq!(local_path("/w/db.db"), Some(PathBuf::from("/w/db.db")));
        assert_eq!(local_path("file:/w/t"), Some(PathBuf::from("/w/t")));
        assert_eq!(local_path("file:///w/t"), Some(PathBuf::from("/w/t")));
        assert_eq!(
            local_path("file://localhost/w/t"),
            Some(PathBuf::from("/w/t"))
        );
        for remote in [
            "hdfs://nn:8020/w",
            "s3a://bucket/w",
            "s3://b/w",
            "gs://b/w",
            "abfs://c@a.dfs.core.windows.net/w",
            "file://otherhost/w",
            "relative/path",
            "",
        ] {
            assert_eq!(local_path(remote), None, "{remote}");
        }
    }

    #[test]
    fn locations_are_taken_as_they_are_and_resolved_as_the_filesystem_does() {
        assert_eq!(local_path("file:/w/x "), Some(PathBuf::from("/w/x ")));
        assert_eq!(local_path("/w/%41"), Some(PathBuf::from("/w/%41")));
        assert_eq!(local_path(" /w/x"), None, "relative: a space is part of it");
        for (given, resolved) in [
            ("/w/t//p=a", "/w/t/p=a"),
            ("/w/t/./p=a/", "/w/t/p=a"),
            ("/w/t/p=z/../p=a", "/w/t/p=a"),
            ("/w/t/p=a/..", "/w/t"),
            ("/..", "/"),
            ("/w/t/p=a ", "/w/t/p=a "),
            ("/w/t/p=..", "/w/t/p=.."),
        ] {
            assert_eq!(
                resolved_path(Path::new(given)),
                PathBuf::from(resolved),
                "{given}"
            );
        }
    }

    #[test]
    fn roots_are_recognised() {
        for root in [
            "/",
            "file:/",
            "file:///",
            "s3a://bucket",
            "s3a://bucket/",
            "/w/..",
            "file:/w/./..//",
        ] {
            assert!(is_root_location(root), "{root}");
        }
        for not_root in ["/w", "file:/w", "s3a://bucket/w"] {
            assert!(!is_root_location(not_root), "{not_root}");
        }
    }

    #[test]
    fn locations_join_with_one_slash() {
        assert_eq!(join_location("file:/w/", "db.db"), "file:/w/db.db");
    }

    #[test]
    fn scheme_less_absolute_locations_are_qualified_as_hive_does() {
        assert_eq!(qualified_location("/w/db"), "file:/w/db");
        assert_eq!(qualified_location("//w//db/"), "file:/w/db");
        assert_eq!(qualified_location("/"), "file:/");
        for kept in ["file:/w/db", "file:///w", "s3a://b/w/", "relative/dir"] {
            assert_eq!(qualified_location(kept), kept);
        }
        assert_eq!(join_location("s3a://b/w", "t"), "s3a://b/w/t");
        assert_eq!(normalize_location("/w/t/"), "/w/t");
        assert_eq!(normalize_location("/"), "/");
    }
}
