//! Principals and privilege grants, as they appear inside databases and
//! tables.

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

/// Hive's `PrincipalType`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Archive,
    Serialize,
    Deserialize,
)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum PrincipalType {
    /// A user (Hive's default owner type).
    #[default]
    User,
    /// A role.
    Role,
    /// A group.
    Group,
}

/// Hive's `PrivilegeGrantInfo`: one privilege granted to a principal.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PrivilegeGrantInfo {
    /// The privilege, e.g. `SELECT`.
    pub privilege: String,
    /// When it was granted, seconds since the epoch.
    pub create_time: i32,
    /// Who granted it.
    pub grantor: String,
    /// The grantor's principal type.
    pub grantor_type: PrincipalType,
    /// Whether the grantee may grant it on.
    pub grant_option: bool,
}

/// Hive's `PrincipalPrivilegeSet`: grants by user, group and role name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PrincipalPrivilegeSet {
    /// User name → grants.
    pub user_privileges: BTreeMap<String, Vec<PrivilegeGrantInfo>>,
    /// Group name → grants.
    pub group_privileges: BTreeMap<String, Vec<PrivilegeGrantInfo>>,
    /// Role name → grants.
    pub role_privileges: BTreeMap<String, Vec<PrivilegeGrantInfo>>,
}
