//! The server's authorization settings: whether calls are checked, who is admin, who may act
//! as whom, and where users' groups come from.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::groups::GroupMapping;
use super::proxy::{ProxyList, ProxyUsers};

/// What the server checks of its callers (`--authorization`, `--admin-users`, ...).
#[derive(Debug, Default)]
pub struct AccessPolicy {
    /// Whether each call is checked against the caller's ownership and grants. Off by
    /// default, as in Hive, where the metastore stores grants and leaves checks to clients.
    pub enforce: bool,
    /// Users that may do anything (Hive's `hive.users.in.admin.role`).
    pub admin_users: BTreeSet<String>,
    /// Groups whose members may do anything.
    pub admin_groups: BTreeSet<String>,
    /// Who may act as whom through `set_ugi`.
    pub proxy_users: ProxyUsers,
    /// Users' groups.
    pub groups: GroupMapping,
}

impl AccessPolicy {
    /// Whether `user`, of `groups` and holding `roles`, is an admin: named as one, in an admin
    /// group, or holding the `admin` role.
    pub fn is_admin(&self, user: &str, groups: &[String], roles: &BTreeSet<String>) -> bool {
        self.admin_users.contains(user)
            || groups.iter().any(|group| self.admin_groups.contains(group))
            || roles.contains(ADMIN_ROLE)
    }
}

/// The role whose holders are admins, as Hive names it.
pub const ADMIN_ROLE: &str = "admin";

/// The authorization settings as the configuration gives them (`config.rs`), checked, from
/// which the server's [`AccessPolicy`] is made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessSettings {
    /// `--authorization enforce`.
    pub enforce: bool,
    /// `--admin-users`.
    pub admin_users: BTreeSet<String>,
    /// `--admin-groups`.
    pub admin_groups: BTreeSet<String>,
    /// `--proxy-user-users`, `--proxy-user-groups`, `--proxy-user-hosts`, in order.
    pub proxy_users: ProxyUsers,
    /// `--group-mapping-overrides`.
    pub group_overrides: BTreeMap<String, Vec<String>>,
    /// `--groups-cache-secs`.
    pub groups_cache: Duration,
}

impl AccessSettings {
    /// Reads `--authorization`'s value: `none` or `enforce`, in any case.
    pub fn parse_mode(text: &str) -> Result<bool, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(false),
            "enforce" => Ok(true),
            _ => Err(format!(
                "authorization {text:?} is not one of none, enforce"
            )),
        }
    }

    /// Reads a comma list of names (`--admin-users`).
    pub fn parse_names(text: &str) -> BTreeSet<String> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// Applies `SUPERUSER=ITEM,ITEM` settings of one proxy-user list.
    pub fn add_proxy_settings(
        &mut self,
        list: ProxyList,
        settings: &[String],
    ) -> Result<(), String> {
        for setting in settings {
            self.proxy_users.set(list, setting)?;
        }
        Ok(())
    }

    /// The policy these settings make.
    pub fn policy(&self) -> AccessPolicy {
        AccessPolicy {
            enforce: self.enforce,
            admin_users: self.admin_users.clone(),
            admin_groups: self.admin_groups.clone(),
            proxy_users: self.proxy_users.clone(),
            groups: GroupMapping::new(self.group_overrides.clone(), true, self.groups_cache),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_reads_in_any_case_and_refuses_others() {
        assert_eq!(AccessSettings::parse_mode("NONE"), Ok(false));
        assert_eq!(AccessSettings::parse_mode(" enforce "), Ok(true));
        let error = AccessSettings::parse_mode("strict").unwrap_err();
        assert!(error.contains("none, enforce"), "{error}");
    }

    #[test]
    fn admins_are_named_users_group_members_and_admin_role_holders() {
        let policy = AccessSettings {
            admin_users: AccessSettings::parse_names("root, hive"),
            admin_groups: AccessSettings::parse_names("wheel"),
            ..AccessSettings::default()
        }
        .policy();
        let none = BTreeSet::new();
        assert!(policy.is_admin("hive", &[], &none));
        assert!(policy.is_admin("alice", &["wheel".to_string()], &none));
        assert!(policy.is_admin("bob", &[], &BTreeSet::from([ADMIN_ROLE.to_string()])));
        assert!(!policy.is_admin("bob", &["staff".to_string()], &none));
    }
}
