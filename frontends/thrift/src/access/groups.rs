//! The groups a user belongs to, found as Hadoop's default group mapping finds them: static
//! overrides first (Hadoop's `hadoop.user.group.static.mapping.overrides`), else the system's
//! answer to `id -Gn USER`, which goes through NSS, so LDAP- and SSSD-backed groups count. An
//! answer is kept for a while, as Hadoop's group cache keeps it, so a check costs no process.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a user's groups are kept, by default (Hadoop's `hadoop.security.groups.cache.secs`).
pub const GROUPS_CACHE_SECS_DEFAULT: u64 = 300;
/// The most users whose groups are kept; past it, the expired ones are dropped, then all.
pub const GROUPS_CACHE_USERS_MAX: usize = 10_000;
/// How long the system may take to name a user's groups before the user counts as having none.
pub const GROUPS_LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);
/// The most bytes of `id`'s answer read; a longer one is cut at the last whole group.
pub const GROUPS_ANSWER_BYTES_MAX: usize = 64 * 1024;
/// How often a lookup polls for `id` to finish.
const LOOKUP_POLL: Duration = Duration::from_millis(5);

/// A user's groups as looked up, and when.
type Looked = (Instant, Arc<[String]>);

/// Where users' groups come from.
pub struct GroupMapping {
    /// Users whose groups are given, not looked up.
    overrides: BTreeMap<String, Arc<[String]>>,
    /// Whether users without an override are looked up in the system.
    system: bool,
    /// How long a looked-up answer is kept.
    ttl: Duration,
    kept: Mutex<HashMap<String, Looked>>,
}

impl Default for GroupMapping {
    fn default() -> Self {
        GroupMapping::new(
            BTreeMap::new(),
            true,
            Duration::from_secs(GROUPS_CACHE_SECS_DEFAULT),
        )
    }
}

impl std::fmt::Debug for GroupMapping {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("GroupMapping")
            .field("overrides", &self.overrides)
            .field("system", &self.system)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl GroupMapping {
    /// A mapping with `overrides`, asking the system for other users when `system` is set,
    /// keeping its answers for `ttl`.
    pub fn new(overrides: BTreeMap<String, Vec<String>>, system: bool, ttl: Duration) -> Self {
        GroupMapping {
            overrides: overrides
                .into_iter()
                .map(|(user, groups)| (user, Arc::from(groups)))
                .collect(),
            system,
            ttl,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// Reads Hadoop's override syntax: `user=group1,group2;user2=;`.
    pub fn parse_overrides(text: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
        let mut overrides = BTreeMap::new();
        for entry in text
            .split(';')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
        {
            let Some((user, groups)) = entry.split_once('=') else {
                return Err(format!(
                    "group mapping override {entry:?} is not USER=GROUP,GROUP (entries separated by ';')"
                ));
            };
            let user = user.trim();
            if user.is_empty() {
                return Err(format!("group mapping override {entry:?} names no user"));
            }
            let groups = groups
                .split(',')
                .map(str::trim)
                .filter(|group| !group.is_empty())
                .map(str::to_string)
                .collect();
            overrides.insert(user.to_string(), groups);
        }
        Ok(overrides)
    }

    /// The groups of `user`, primary group first.
    pub fn groups(&self, user: &str) -> Arc<[String]> {
        if let Some(groups) = self.overrides.get(user) {
            return Arc::clone(groups);
        }
        if !self.system || user.is_empty() {
            return Arc::from(Vec::new());
        }
        let now = Instant::now();
        {
            let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((at, groups)) = kept.get(user) {
                if now.duration_since(*at) < self.ttl {
                    return Arc::clone(groups);
                }
            }
        }
        let groups: Arc<[String]> = Arc::from(system_groups(user));
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= GROUPS_CACHE_USERS_MAX {
            let ttl = self.ttl;
            kept.retain(|_, (at, _)| now.duration_since(*at) < ttl);
            if kept.len() >= GROUPS_CACHE_USERS_MAX {
                kept.clear();
            }
        }
        kept.insert(user.to_string(), (now, Arc::clone(&groups)));
        groups
    }
}

/// `id -Gn USER`'s groups, or none when the user is unknown, `id` fails or takes longer than
/// [`GROUPS_LOOKUP_TIMEOUT`].
fn system_groups(user: &str) -> Vec<String> {
    // A name that `id` could read as an option is nobody's.
    if user.starts_with('-') {
        return Vec::new();
    }
    let spawned = Command::new("id")
        .arg("-Gn")
        .arg(user)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => {
            tracing::warn!(%error, "cannot run `id` to find a user's groups");
            return Vec::new();
        }
    };
    let deadline = Instant::now() + GROUPS_LOOKUP_TIMEOUT;
    let succeeded = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(LOOKUP_POLL),
            Ok(None) => {
                tracing::warn!(user, "`id` took too long naming a user's groups; none used");
                let _ = child.kill();
                let _ = child.wait();
                return Vec::new();
            }
            Err(error) => {
                tracing::warn!(%error, "waiting for `id`");
                return Vec::new();
            }
        }
    };
    let mut answer = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout
            .take(GROUPS_ANSWER_BYTES_MAX as u64)
            .read_to_end(&mut answer);
    }
    if !succeeded {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&answer);
    let mut words: Vec<&str> = text.split_whitespace().collect();
    if answer.len() >= GROUPS_ANSWER_BYTES_MAX {
        words.pop();
    }
    words.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_parse_as_hadoop_writes_them() {
        let overrides = GroupMapping::parse_overrides("alice=etl,admins; bob=;").unwrap();
        assert_eq!(overrides["alice"], vec!["etl", "admins"]);
        assert!(overrides["bob"].is_empty());
        let error = GroupMapping::parse_overrides("alice").unwrap_err();
        assert!(error.contains("USER=GROUP"), "{error}");
        let error = GroupMapping::parse_overrides("=etl").unwrap_err();
        assert!(error.contains("names no user"), "{error}");
    }

    #[test]
    fn an_override_wins_over_the_system() {
        let overrides = GroupMapping::parse_overrides("root=analysts").unwrap();
        let mapping = GroupMapping::new(overrides, true, Duration::from_secs(60));
        assert_eq!(&*mapping.groups("root"), ["analysts".to_string()]);
    }

    #[test]
    fn the_system_names_a_real_users_groups() {
        // Every Unix system has root, in a group named by its primary group id.
        let mapping = GroupMapping::default();
        let groups = mapping.groups("root");
        assert!(!groups.is_empty(), "root has no groups");
        let again = mapping.groups("root");
        assert!(Arc::ptr_eq(&groups, &again), "the answer was not kept");
    }

    #[test]
    fn unknown_and_option_like_users_have_no_groups() {
        let mapping = GroupMapping::default();
        assert!(mapping.groups("no-such-user-hivestore-test").is_empty());
        assert!(mapping.groups("--help").is_empty());
        let off = GroupMapping::new(BTreeMap::new(), false, Duration::from_secs(1));
        assert!(off.groups("root").is_empty());
    }
}
