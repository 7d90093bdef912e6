//! Confinement: the directories the server makes, moves and deletes data in.
//!
//! A client names locations. Without a rule, a managed table created at any directory the
//! server can write, then dropped with `deleteData`, would delete that directory. hivestore
//! touches local data only under its roots: the warehouse root and the external roots of
//! [`crate::StoreOptions::external_roots`]. Anything else is refused before anything changes.
//! Locations hivestore never touches (`s3a:`, `hdfs:`, ..., see [`crate::warehouse`]) are never
//! refused.
//!
//! A location is checked as the filesystem would resolve it: its text first (`..`, `.`, `//`,
//! see [`crate::warehouse`]'s `resolved_path`), then its symbolic links, through the deepest
//! ancestor that exists, so that a link inside the warehouse pointing elsewhere leads
//! elsewhere. The roots are resolved the same way once, when the store opens, and a root holds
//! a path by whole components (`/data/wh2` is not under `/data/wh`).
//!
//! The check runs just before the action. A link swapped in between is not caught: whoever can
//! write inside the roots is trusted that far.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::warehouse::{local_path, resolved_path};

/// What the server is about to do at a location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Make a directory (create a catalog, database, table or partition).
    Create,
    /// Record a new location in an alter (nothing is made there yet).
    Locate,
    /// Move a directory from or to there (a rename, an exchange).
    Move,
    /// Delete a directory and its data (a drop with `deleteData`).
    Delete,
    /// Delete the files inside a directory (a truncate).
    Empty,
}

impl Action {
    fn verb(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Locate => "use the location",
            Action::Move => "move data at",
            Action::Delete => "delete",
            Action::Empty => "delete the files in",
        }
    }

    fn remedy(self) -> &'static str {
        match self {
            Action::Delete => {
                "add a root with --external-root to let the server delete it, or drop without \
                 deleteData"
            }
            _ => "add a root with --external-root to allow it; nothing was changed",
        }
    }
}

/// Real paths already worked out during one check of several locations, by their text.
pub(crate) type KnownPaths = HashMap<PathBuf, PathBuf>;

/// One root: as configured, and the directory it resolves to.
#[derive(Debug, Clone)]
struct Root {
    given: String,
    real: PathBuf,
}

/// The roots data may be made, moved and deleted under.
#[derive(Debug, Clone, Default)]
pub(crate) struct Roots {
    roots: Vec<Root>,
}

impl Roots {
    /// The warehouse root (when it is local) and the external roots, each resolved. An external
    /// root must be local (an absolute path or a `file:` URI) and resolvable.
    pub(crate) fn open(warehouse_root: &str, external_roots: &[String]) -> Result<Roots, String> {
        let mut roots = Vec::with_capacity(external_roots.len() + 1);
        if let Some(path) = local_path(warehouse_root) {
            roots.push(resolve_root(warehouse_root, &path)?);
        }
        for given in external_roots {
            let path = check_external_root(given)?;
            roots.push(resolve_root(given, &path)?);
        }
        Ok(Roots { roots })
    }

    /// Refuses `action` at `location` (whose local path, resolved as text, is `path`) unless
    /// the directory the filesystem reaches there lies under a root. The error names the
    /// location, the directory it reaches, the roots and what to do.
    pub(crate) fn check(
        &self,
        action: Action,
        location: &str,
        path: &Path,
        known: &mut KnownPaths,
    ) -> Result<(), String> {
        let real = real_path(path, known).map_err(|error| {
            format!(
                "Refusing to {} {location}: cannot resolve {}: {error}; {}",
                action.verb(),
                path.display(),
                action.remedy()
            )
        })?;
        if self.roots.iter().any(|root| real.starts_with(&root.real)) {
            return Ok(());
        }
        let resolves = if real == path {
            String::new()
        } else {
            format!(" (it resolves to {})", real.display())
        };
        Err(format!(
            "Refusing to {} {location}: {}{resolves} is outside the warehouse and the external \
             roots ({}); {}",
            action.verb(),
            path.display(),
            self.describe(),
            action.remedy()
        ))
    }

    /// The roots as configured, for messages.
    fn describe(&self) -> String {
        if self.roots.is_empty() {
            return "none is local".to_string();
        }
        let given: Vec<&str> = self.roots.iter().map(|root| root.given.as_str()).collect();
        given.join(", ")
    }
}

/// Refuses external roots that are not local, without looking at the filesystem.
pub(crate) fn check_external_roots(external_roots: &[String]) -> Result<(), String> {
    external_roots
        .iter()
        .try_for_each(|given| check_external_root(given).map(drop))
}

/// The local path of external root `given`, resolved as text; it must be local.
fn check_external_root(given: &str) -> Result<PathBuf, String> {
    local_path(given).map(|path| resolved_path(&path)).ok_or_else(|| {
        format!("external root {given:?} is not a local directory: give an absolute path or a file: URI")
    })
}

fn resolve_root(given: &str, path: &Path) -> Result<Root, String> {
    let real = real_path(&resolved_path(path), &mut KnownPaths::new())
        .map_err(|error| format!("cannot resolve root {given}: {error}"))?;
    Ok(Root {
        given: given.to_string(),
        real,
    })
}

/// The directory the filesystem reaches at absolute `path` (resolved as text): its symbolic
/// links followed, its missing tail kept as written. An entry that is not a link stands where
/// its parent resolves; a link is canonicalised whole (`std::fs::canonicalize`), so a link
/// that dangles or loops is an error, as is a component that cannot be looked at. `known`
/// keeps what was worked out, for a batch of sibling paths.
pub(crate) fn real_path(path: &Path, known: &mut KnownPaths) -> io::Result<PathBuf> {
    // The entries walked up from `path`, innermost first, until one whose real path is known.
    let mut walked: Vec<&Path> = Vec::new();
    let mut current = path;
    let base = loop {
        if let Some(real) = known.get(current) {
            break real.clone();
        }
        let link = match std::fs::symlink_metadata(current) {
            Ok(metadata) => metadata.file_type().is_symlink(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => false,
            Err(error) => return Err(error),
        };
        if link {
            let real = std::fs::canonicalize(current)?;
            known.insert(current.to_path_buf(), real.clone());
            break real;
        }
        match current.parent() {
            Some(parent) => {
                walked.push(current);
                current = parent;
            }
            None => break current.to_path_buf(),
        }
    };
    let mut real = base;
    for entry in walked.into_iter().rev() {
        if let Some(name) = entry.file_name() {
            real.push(name);
        }
        known.insert(entry.to_path_buf(), real.clone());
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(warehouse: &Path, external: &[&Path]) -> Roots {
        let external: Vec<String> = external
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        Roots::open(&format!("file:{}", warehouse.display()), &external).unwrap()
    }

    fn allowed(roots: &Roots, path: &Path) -> bool {
        let location = path.display().to_string();
        let path = resolved_path(path);
        roots
            .check(Action::Create, &location, &path, &mut KnownPaths::new())
            .is_ok()
    }

    #[test]
    fn paths_under_a_root_are_allowed_and_others_refused_by_whole_components() {
        let dir = tempfile::tempdir().unwrap();
        let warehouse = dir.path().join("wh");
        let external = dir.path().join("ext");
        std::fs::create_dir_all(&warehouse).unwrap();
        let roots = roots(&warehouse, &[&external]);
        assert!(allowed(&roots, &warehouse.join("db.db/t")));
        assert!(allowed(&roots, &warehouse));
        assert!(allowed(&roots, &external.join("not/made/yet")));
        assert!(!allowed(&roots, &dir.path().join("wh2/t")));
        assert!(!allowed(&roots, &dir.path().join("elsewhere")));
        assert!(!allowed(&roots, dir.path()));
    }

    #[test]
    fn dot_dot_is_resolved_before_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let warehouse = dir.path().join("wh");
        std::fs::create_dir_all(&warehouse).unwrap();
        let roots = roots(&warehouse, &[]);
        assert!(!allowed(&roots, &warehouse.join("db.db/../../escape")));
        assert!(!allowed(&roots, &warehouse.join("..")));
        assert!(allowed(&roots, &warehouse.join("db.db/../t")));
        assert!(allowed(&roots, &warehouse.join("./db.db//t/.")));
    }

    #[test]
    fn a_link_inside_a_root_pointing_outside_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let warehouse = dir.path().join("wh");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(warehouse.join("db.db")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, warehouse.join("evil")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone"), warehouse.join("dangling")).unwrap();
        std::os::unix::fs::symlink(warehouse.join("db.db"), warehouse.join("inner")).unwrap();
        let roots = roots(&warehouse, &[]);
        assert!(!allowed(&roots, &warehouse.join("evil")));
        assert!(!allowed(&roots, &warehouse.join("evil/t/p=1")));
        assert!(!allowed(&roots, &warehouse.join("dangling/t")));
        assert!(allowed(&roots, &warehouse.join("inner/t")));
        let location = warehouse.join("evil/t").display().to_string();
        let error = roots
            .check(
                Action::Delete,
                &location,
                &warehouse.join("evil/t"),
                &mut KnownPaths::new(),
            )
            .unwrap_err();
        assert!(error.contains(&location), "{error}");
        assert!(error.contains("resolves to"), "{error}");
        assert!(error.contains("drop without deleteData"), "{error}");
    }

    #[test]
    fn a_root_that_is_a_link_is_resolved_once_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let roots = roots(&link, &[]);
        assert!(allowed(&roots, &real.join("t")));
        assert!(allowed(&roots, &link.join("t")));
    }

    #[test]
    fn external_roots_must_be_local() {
        for given in ["s3a://bucket/data", "relative/dir", "file://otherhost/x"] {
            let error = Roots::open("file:/w", &[given.to_string()]).unwrap_err();
            assert!(error.contains(given), "{error}");
        }
        let remote = Roots::open("s3a://bucket/w", &[]).unwrap();
        let error = remote
            .check(
                Action::Create,
                "/w/t",
                Path::new("/w/t"),
                &mut KnownPaths::new(),
            )
            .unwrap_err();
        assert!(error.contains("none is local"), "{error}");
    }
}
