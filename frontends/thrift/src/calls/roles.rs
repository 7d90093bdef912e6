//! Roles: created, dropped, listed, granted to users, groups and roles, revoked (Hive 4's
//! `HMSHandler`: `create_role`, `drop_role`, `get_role_names`, `grant_role`, `revoke_role`,
//! `grant_revoke_role`, `list_roles`, `get_principals_in_role`,
//! `get_role_grants_for_principal`). Hive reports its store's refusals of these as
//! `MetaException` `"Got exception: <class> <message>"` (`convert_grants::wrapped`).
//!
//! Creating, dropping, granting and revoking a role needs admin (Hive's SQL-standard rules
//! also let a holder of the role with its admin option grant and revoke it; the check is
//! `Need::Admin` on the role). Reads need nothing.

use hivestore_engine::{self as engine, RoleGrant};
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::convert::principal_type_from_idl;
use crate::convert_grants::{member_to_idl, missing, role_to_idl, wrapped};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// A principal type the client sent, `None` for one Hive does not know (an unset enum).
fn known_type(principal_type: idl::PrincipalType) -> Option<engine::PrincipalType> {
    (1..=3)
        .contains(&principal_type.0)
        .then(|| principal_type_from_idl(principal_type))
}

fn store_error(error: engine::Error) -> thrift::Error {
    to_thrift(error, &[Declared::Meta])
}

/// `create_role`: the role as named, owned by the owner the client names.
pub fn create(session: &Session, role: idl::Role) -> thrift::Result<bool> {
    let name = role.role_name.ok_or_else(|| missing("roleName"))?;
    session.authorize(Need::Admin, Target::Role(&name))?;
    session
        .store()
        .create_role(&name, role.owner_name.as_deref())
        .map_err(wrapped)?;
    Ok(true)
}

/// `drop_role`: the role with its memberships and grants; `admin` and `public` stay.
pub fn drop(session: &Session, name: String) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Role(&name))?;
    session.store().drop_role(&name).map_err(wrapped)?;
    Ok(true)
}

/// `get_role_names`: every role, `admin` and `public` included.
pub fn names(session: &Session) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    let view = session.store().grants_view().map_err(store_error)?;
    Ok(view.roles().map(|role| role.name.clone()).collect())
}

fn grant_role(session: &Session, grant: RoleGrant) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Role(&grant.role))?;
    session.store().grant_role(grant).map_err(wrapped)?;
    Ok(true)
}

fn revoke_role(
    session: &Session,
    role: &str,
    principal: &str,
    principal_type: engine::PrincipalType,
    grant_option_only: bool,
) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Role(role))?;
    session
        .store()
        .revoke_role(role, principal, principal_type, grant_option_only)
        .map_err(wrapped)?;
    Ok(true)
}

/// `grant_role` (Hive 2's form).
pub fn grant(
    session: &Session,
    role: String,
    principal_name: String,
    principal_type: idl::PrincipalType,
    grantor: String,
    grantor_type: idl::PrincipalType,
    grant_option: bool,
) -> thrift::Result<bool> {
    let grant = RoleGrant {
        role,
        principal_name,
        principal_type: principal_type_from_idl(principal_type),
        grantor: Some(grantor),
        grantor_type: known_type(grantor_type),
        grant_option,
    };
    grant_role(session, grant)
}

/// `revoke_role` (Hive 2's form): the whole membership.
pub fn revoke(
    session: &Session,
    role: String,
    principal_name: String,
    principal_type: idl::PrincipalType,
) -> thrift::Result<bool> {
    let principal_type = principal_type_from_idl(principal_type);
    revoke_role(session, &role, &principal_name, principal_type, false)
}

/// `grant_revoke_role`: a grant, a revoke, or with `grantOption` on a revoke only the admin
/// option taken away.
pub fn grant_revoke(
    session: &Session,
    request: idl::GrantRevokeRoleRequest,
) -> thrift::Result<idl::GrantRevokeRoleResponse> {
    let role = request.role_name.ok_or_else(|| missing("roleName"))?;
    let principal = request
        .principal_name
        .ok_or_else(|| missing("principalName"))?;
    let principal_type = request
        .principal_type
        .ok_or_else(|| missing("principalType"))?;
    let principal_type = principal_type_from_idl(principal_type);
    let grant_option = request.grant_option.unwrap_or(false);
    let success = match request.request_type {
        Some(idl::GrantRevokeType::GRANT) => {
            let grant = RoleGrant {
                role,
                principal_name: principal,
                principal_type,
                grantor: request.grantor,
                grantor_type: request.grantor_type.and_then(known_type),
                grant_option,
            };
            grant_role(session, grant)?
        }
        Some(idl::GrantRevokeType::REVOKE) => {
            revoke_role(session, &role, &principal, principal_type, grant_option)?
        }
        other => return Err(unknown_request_type(other)),
    };
    Ok(idl::GrantRevokeRoleResponse::new(success))
}

/// Hive's refusal of a request type it does not know.
pub fn unknown_request_type(request_type: Option<idl::GrantRevokeType>) -> thrift::Error {
    let named = match request_type {
        Some(kind) => kind.0.to_string(),
        None => "null".to_string(),
    };
    exception(Declared::Meta, format!("Unknown request type {named}"))
}

/// `list_roles`: the roles the principal holds directly; a user also holds `public`.
pub fn list(
    session: &Session,
    principal_name: String,
    principal_type: idl::PrincipalType,
) -> thrift::Result<Vec<idl::Role>> {
    session.authorize(Need::Anyone, Target::Server)?;
    let principal_type = principal_type_from_idl(principal_type);
    let view = session.store().grants_view().map_err(store_error)?;
    let mut roles: Vec<idl::Role> = view
        .memberships_of(principal_type, &principal_name)
        .iter()
        .filter_map(|member| view.role(&member.role))
        .map(role_to_idl)
        .collect();
    if principal_type == engine::PrincipalType::User {
        // Hive names the implicit membership with a role made up on the spot.
        let public = engine::grants::PUBLIC_ROLE;
        roles.push(idl::Role::new(public.to_string(), 0, public.to_string()));
    }
    Ok(roles)
}

/// `get_principals_in_role`: the role's members (none for a role that does not exist).
pub fn principals_in_role(
    session: &Session,
    request: idl::GetPrincipalsInRoleRequest,
) -> thrift::Result<idl::GetPrincipalsInRoleResponse> {
    session.authorize(Need::Anyone, Target::Role(&request.role_name))?;
    let view = session.store().grants_view().map_err(store_error)?;
    let grants = view
        .members_of(&request.role_name)
        .iter()
        .map(member_to_idl);
    Ok(idl::GetPrincipalsInRoleResponse::new(
        grants.collect::<Vec<_>>(),
    ))
}

/// `get_role_grants_for_principal`: the principal's memberships; a user's with `public`,
/// granted by nobody at time 0.
pub fn role_grants_for_principal(
    session: &Session,
    request: idl::GetRoleGrantsForPrincipalRequest,
) -> thrift::Result<idl::GetRoleGrantsForPrincipalResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let principal_type = principal_type_from_idl(request.principal_type);
    let view = session.store().grants_view().map_err(store_error)?;
    let memberships = view.memberships_of(principal_type, &request.principal_name);
    let mut grants: Vec<idl::RolePrincipalGrant> = memberships.iter().map(member_to_idl).collect();
    if principal_type == engine::PrincipalType::User {
        grants.push(idl::RolePrincipalGrant::new(
            engine::grants::PUBLIC_ROLE.to_string(),
            request.principal_name,
            idl::PrincipalType::USER,
            false,
            0,
            None,
            None,
        ));
    }
    Ok(idl::GetRoleGrantsForPrincipalResponse::new(grants))
}
