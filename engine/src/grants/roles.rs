//! Roles and their members: created, dropped, granted and revoked with Hive's rules and
//! messages (`HMSHandler.create_role`, `drop_role`, `grant_role`, `revoke_role`;
//! `ObjectStore.addRole`, `removeRole`, `grantRole`, `revokeRole`).

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::model::grants::{GrantTarget, PrivilegeGrant, Role, RoleMember};
use crate::model::principal::PrincipalType;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store, WriteTxn};

use super::{
    check_name_length, principal_type_byte, ADMIN_ROLE, GRANT_ENTRIES_MAX, GRANT_NAME_BYTES_MAX,
    PUBLIC_ROLE, SQL_AUTHORIZER,
};

/// A role granted to a principal (`grant_role`, `grant_revoke_role`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleGrant {
    /// The role.
    pub role: String,
    /// Who receives it.
    pub principal_name: String,
    /// A user, a group or a role.
    pub principal_type: PrincipalType,
    /// Who grants it.
    pub grantor: Option<String>,
    /// The grantor's type.
    pub grantor_type: Option<PrincipalType>,
    /// Hive's admin option.
    pub grant_option: bool,
}

/// Hive's message for a role that is not there (`ObjectStore.getRole`).
fn no_such_role(role: &str) -> Error {
    Error::NoSuchObject(format!("{role} role can not be found."))
}

/// Creates `admin` (granted `All` on the server, with the grant option) and `public` if
/// missing, as Hive's `createDefaultRoles` does at start.
pub(crate) fn bootstrap_default_roles(txn: &mut WriteTxn<'_>) -> Result<()> {
    let now = now_seconds();
    if txn.get(&keys::role_key(ADMIN_ROLE))?.is_none() {
        put_role(txn, ADMIN_ROLE, Some(ADMIN_ROLE), now)?;
        let grant = PrivilegeGrant {
            target: GrantTarget::Global,
            principal_name: ADMIN_ROLE.to_string(),
            principal_type: PrincipalType::Role,
            privilege: "All".to_string(),
            create_time: now,
            grantor: Some(ADMIN_ROLE.to_string()),
            grantor_type: Some(PrincipalType::Role),
            grant_option: true,
            authorizer: Some(SQL_AUTHORIZER.to_string()),
        };
        super::privileges::put_grant(txn, &grant)?;
    }
    if txn.get(&keys::role_key(PUBLIC_ROLE))?.is_none() {
        put_role(txn, PUBLIC_ROLE, Some(PUBLIC_ROLE), now)?;
    }
    Ok(())
}

fn put_role(txn: &mut WriteTxn<'_>, name: &str, owner: Option<&str>, now: i32) -> Result<()> {
    let role = Role {
        name: name.to_string(),
        create_time: now,
        owner_name: owner.map(str::to_string),
    };
    txn.put_value(keys::role_key(name), &role)
}

fn role_exists(txn: &WriteTxn<'_>, name: &str) -> Result<bool> {
    Ok(txn.get(&keys::role_key(name))?.is_some())
}

/// Every membership in the store; bounded by [`GRANT_ENTRIES_MAX`].
fn all_memberships(txn: &WriteTxn<'_>) -> Result<Vec<RoleMember>> {
    let mut members = Vec::new();
    for entry in txn.scan(KeyRange::prefix(&[keys::KEYSPACE_ROLE_MEMBER])) {
        let (key, _) = entry?;
        if members.len() >= GRANT_ENTRIES_MAX {
            return Err(Error::Refused(format!(
                "the store holds more than {GRANT_ENTRIES_MAX} role memberships"
            )));
        }
        if let Some(view) = txn.view::<RoleMember>(&key)? {
            members.push(view.to_owned()?);
        }
    }
    Ok(members)
}

/// Hive's `isNewRoleAParent`: whether `candidate` is `role` or a role `role` belongs to,
/// however deep.
fn is_role_or_ancestor(memberships: &[RoleMember], candidate: &str, role: &str) -> bool {
    let mut pending = vec![role];
    let mut visited = HashSet::new();
    while let Some(current) = pending.pop() {
        if current == candidate {
            return true;
        }
        if !visited.insert(current) {
            continue;
        }
        let parents = memberships.iter().filter(|member| {
            member.principal_type == PrincipalType::Role && member.principal_name == current
        });
        pending.extend(parents.map(|member| member.role.as_str()));
    }
    false
}

fn member_key(member: &RoleMember) -> Vec<u8> {
    keys::role_member_key(
        &member.role,
        principal_type_byte(member.principal_type),
        &member.principal_name,
    )
}

impl Store {
    /// Hive's `create_role`: role `name`, owned by `owner`. `public` exists implicitly and an
    /// existing role is refused.
    pub fn create_role(&self, name: &str, owner: Option<&str>) -> Result<()> {
        if name == PUBLIC_ROLE {
            return Err(Error::Refused(format!(
                "{PUBLIC_ROLE} role implicitly exists. It can't be created."
            )));
        }
        check_name_length("role name", name, GRANT_NAME_BYTES_MAX)?;
        if let Some(owner) = owner {
            check_name_length("role owner", owner, GRANT_NAME_BYTES_MAX)?;
        }
        self.write(|txn| {
            if role_exists(txn, name)? {
                return Err(Error::InvalidObject(format!("Role {name} already exists.")));
            }
            put_role(txn, name, owner, now_seconds())
        })
    }

    /// Hive's `drop_role`: removes role `name` with its members, its own memberships and every
    /// grant made to it; a role that does not exist is no error (Hive answers `true`).
    /// `admin` and `public` stay.
    pub fn drop_role(&self, name: &str) -> Result<()> {
        if name == ADMIN_ROLE || name == PUBLIC_ROLE {
            return Err(Error::Refused(format!(
                "{PUBLIC_ROLE},{ADMIN_ROLE} roles can't be dropped."
            )));
        }
        if name.len() > GRANT_NAME_BYTES_MAX {
            return Ok(());
        }
        self.write(|txn| {
            if !role_exists(txn, name)? {
                return Ok(());
            }
            txn.delete_range(KeyRange::prefix(&keys::role_member_prefix(name)))?;
            for member in all_memberships(txn)? {
                if member.principal_type == PrincipalType::Role && member.principal_name == name {
                    txn.delete(member_key(&member));
                }
            }
            super::privileges::delete_principal_grants(txn, PrincipalType::Role, name)?;
            txn.delete(keys::role_key(name));
            Ok(())
        })
    }

    /// Hive's `grant_role`, with its checks in its order: not `public`, the role exists, no
    /// cycle (a role granted to itself or to a role it belongs to), not held already, and a
    /// role receiving it exists.
    pub fn grant_role(&self, grant: RoleGrant) -> Result<()> {
        let RoleGrant { role, .. } = &grant;
        if role == PUBLIC_ROLE {
            return Err(Error::Refused(format!(
                "No user can be added to {PUBLIC_ROLE}. Since all users implicitly belong to {PUBLIC_ROLE} role."
            )));
        }
        check_name_length("role name", role, GRANT_NAME_BYTES_MAX)?;
        check_name_length(
            "principal name",
            &grant.principal_name,
            GRANT_NAME_BYTES_MAX,
        )?;
        if let Some(grantor) = &grant.grantor {
            check_name_length("grantor", grantor, GRANT_NAME_BYTES_MAX)?;
        }
        self.write(|txn| {
            if !role_exists(txn, role)? {
                return Err(no_such_role(role));
            }
            let principal = &grant.principal_name;
            let memberships = all_memberships(txn)?;
            if grant.principal_type == PrincipalType::Role
                && is_role_or_ancestor(&memberships, principal, role)
            {
                return Err(Error::Refused(format!(
                    "Cannot grant role {principal} to {role} as {role} already belongs to the role {principal}. (no cycles allowed)"
                )));
            }
            let member = RoleMember {
                role: role.clone(),
                principal_name: principal.clone(),
                principal_type: grant.principal_type,
                grantor: grant.grantor.clone(),
                grantor_type: grant.grantor_type,
                grant_option: grant.grant_option,
                grant_time: now_seconds(),
            };
            let key = member_key(&member);
            if txn.get(&key)?.is_some() {
                return Err(Error::InvalidObject(format!(
                    "Principal {principal} already has the role {role}"
                )));
            }
            if memberships.len() >= GRANT_ENTRIES_MAX {
                return Err(Error::Refused(format!(
                    "the store holds {GRANT_ENTRIES_MAX} role memberships, the most allowed"
                )));
            }
            if grant.principal_type == PrincipalType::Role && !role_exists(txn, principal)? {
                return Err(Error::NoSuchObject(format!("Role {principal} does not exist")));
            }
            txn.put_value(key, &member)
        })
    }

    /// Hive's `revoke_role`: takes role `role` from the principal, or with
    /// `grant_option_only` only its admin option (refused when it has none). Revoking a role
    /// the principal does not hold changes nothing and is no error, as in Hive.
    pub fn revoke_role(
        &self,
        role: &str,
        principal_name: &str,
        principal_type: PrincipalType,
        grant_option_only: bool,
    ) -> Result<()> {
        if role == PUBLIC_ROLE {
            return Err(Error::Refused(format!(
                "{PUBLIC_ROLE} role can't be revoked."
            )));
        }
        if role.len() > GRANT_NAME_BYTES_MAX {
            return Err(no_such_role(role));
        }
        let key = keys::role_member_key(role, principal_type_byte(principal_type), principal_name);
        self.write(|txn| {
            if !role_exists(txn, role)? {
                return Err(no_such_role(role));
            }
            let member = match txn.view::<RoleMember>(&key)? {
                Some(view) => Some(view.to_owned()?),
                None => None,
            };
            match (member, grant_option_only) {
                (Some(mut member), true) if member.grant_option => {
                    member.grant_option = false;
                    txn.put_value(key.clone(), &member)
                }
                (_, true) => Err(Error::Refused(format!(
                    "User {principal_name} does not have grant option with role {role}"
                ))),
                (Some(_), false) => {
                    txn.delete(key.clone());
                    Ok(())
                }
                (None, false) => Ok(()),
            }
        })
    }
}
