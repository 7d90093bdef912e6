//! What other writes do to grants, staged in their batch: a dropped database, table or
//! partition takes its grants (and those of all it holds) with it, a renamed table keeps its
//! own under its new name, and a created table's `privileges` become grants (Hive's
//! `ObjectStore.createTable`; Hive stores none for a database's or a partition's).

use crate::error::Result;
use crate::model::grants::{GrantTarget, PrivilegeGrant};
use crate::model::principal::{PrincipalPrivilegeSet, PrincipalType, PrivilegeGrantInfo};
use crate::model::table::Table;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::WriteTxn;

use super::privileges::{grants_in, put_grant};
use super::{check_name_length, GRANT_NAME_BYTES_MAX, SQL_AUTHORIZER};

/// Stages the removal of database `catalog.database`'s grants and its tables'.
pub(crate) fn stage_drop_database_grants(
    txn: &mut WriteTxn<'_>,
    catalog: &str,
    database: &str,
) -> Result<()> {
    txn.delete_range(KeyRange::prefix(&keys::privilege_prefix(&[
        catalog, database,
    ])))
}

/// Stages the removal of a table's grants, with its partitions' and columns'.
pub(crate) fn stage_drop_table_grants(
    txn: &mut WriteTxn<'_>,
    catalog: &str,
    database: &str,
    table: &str,
) -> Result<()> {
    txn.delete_range(KeyRange::prefix(&keys::privilege_prefix(&[
        catalog, database, table,
    ])))
}

/// Stages the removal of a partition's grants, with its columns'.
pub(crate) fn stage_drop_partition_grants(
    txn: &mut WriteTxn<'_>,
    (catalog, database, table): (&str, &str, &str),
    partition: &str,
) -> Result<()> {
    let prefix = keys::privilege_prefix(&[catalog, database, table, partition]);
    txn.delete_range(KeyRange::prefix(&prefix))
}

/// Stages the move of a renamed partition's grants (its columns' too) to its new name.
pub(crate) fn stage_rename_partition_grants(
    txn: &mut WriteTxn<'_>,
    (catalog, database, table): (&str, &str, &str),
    partition: &str,
    new_partition: &str,
) -> Result<()> {
    let range = KeyRange::prefix(&keys::privilege_prefix(&[
        catalog, database, table, partition,
    ]));
    let grants = grants_in(txn, range.clone())?;
    txn.delete_range(range)?;
    for mut grant in grants {
        if let GrantTarget::Table { partition, .. } = &mut grant.target {
            *partition = Some(new_partition.to_string());
        }
        put_grant(txn, &grant)?;
    }
    Ok(())
}

/// Stages the move of a renamed table's grants (its partitions' and columns' too) to its
/// new names.
pub(crate) fn stage_rename_table_grants(
    txn: &mut WriteTxn<'_>,
    (catalog, database, table): (&str, &str, &str),
    (new_catalog, new_database, new_table): (&str, &str, &str),
) -> Result<()> {
    let range = KeyRange::prefix(&keys::privilege_prefix(&[catalog, database, table]));
    let grants = grants_in(txn, range.clone())?;
    txn.delete_range(range)?;
    for mut grant in grants {
        if let GrantTarget::Table {
            catalog,
            database,
            table,
            ..
        } = &mut grant.target
        {
            *catalog = new_catalog.to_string();
            *database = new_database.to_string();
            *table = new_table.to_string();
        }
        put_grant(txn, &grant)?;
    }
    Ok(())
}

/// Stages the grants a created table carries in its `privileges`, made by the `SQL`
/// authorizer at `now`.
pub(crate) fn stage_table_privileges(
    txn: &mut WriteTxn<'_>,
    table: &Table,
    now: i32,
) -> Result<()> {
    let Some(privileges) = &table.privileges else {
        return Ok(());
    };
    let target = GrantTarget::table(&table.cat_name, &table.db_name, &table.table_name);
    for (principal_type, grants) in by_principal_type(privileges) {
        for (principal, infos) in grants {
            check_name_length("principal name", principal, GRANT_NAME_BYTES_MAX)?;
            for info in infos {
                let grant = grant_of(&target, principal, principal_type, info, now)?;
                put_grant(txn, &grant)?;
            }
        }
    }
    Ok(())
}

fn by_principal_type(
    privileges: &PrincipalPrivilegeSet,
) -> [(
    PrincipalType,
    &std::collections::BTreeMap<String, Vec<PrivilegeGrantInfo>>,
); 3] {
    [
        (PrincipalType::User, &privileges.user_privileges),
        (PrincipalType::Group, &privileges.group_privileges),
        (PrincipalType::Role, &privileges.role_privileges),
    ]
}

fn grant_of(
    target: &GrantTarget,
    principal: &str,
    principal_type: PrincipalType,
    info: &PrivilegeGrantInfo,
    now: i32,
) -> Result<PrivilegeGrant> {
    check_name_length("privilege", &info.privilege, GRANT_NAME_BYTES_MAX)?;
    check_name_length("grantor", &info.grantor, GRANT_NAME_BYTES_MAX)?;
    Ok(PrivilegeGrant {
        target: target.clone(),
        principal_name: principal.to_string(),
        principal_type,
        privilege: info.privilege.clone(),
        create_time: now,
        grantor: Some(info.grantor.clone()),
        grantor_type: Some(info.grantor_type),
        grant_option: info.grant_option,
        authorizer: Some(SQL_AUTHORIZER.to_string()),
    })
}
