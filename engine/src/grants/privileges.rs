//! Privileges granted, revoked and refreshed with Hive's rules and messages
//! (`ObjectStore.grantPrivileges`, `revokePrivileges`, `refreshPrivileges`), and the reads of
//! `list_privileges` and `get_privilege_set` (`HMSHandler`), answered from the [`GrantsView`].
//!
//! Hive's quirks kept: a privilege names several when comma-separated; a grant on a table,
//! partition or column that does not exist does nothing; granting what the principal holds
//! from the same grantor (and authorizer) is refused; a revoke takes the first matching grant
//! whoever granted it, and once one privilege of a request was found the others need not be.

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::lookup::{find_database_id, normalize_names, table_id_in};
use crate::error::{Error, Result};
use crate::model::grants::{GrantTarget, PrivilegeGrant};
use crate::model::names;
use crate::model::partition_name::{make_partition_name, partition_name_to_values};
use crate::model::principal::PrincipalType;
use crate::model::table::Table;
use crate::partitions::stored::normalize_values;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, read_view, Store, WriteTxn};

use super::{
    check_name_length, principal_type_byte, target_parts, GrantsView, GRANTS_PER_REQUEST_MAX,
    GRANT_NAME_BYTES_MAX, GRANT_OBJECT_NAME_BYTES_MAX,
};

/// What a grant names, as Hive's `HiveObjectRef` does: objects by names, a partition by its
/// values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantObject {
    /// The server.
    Global,
    /// A database.
    Database {
        /// Its catalog (empty: the default).
        catalog: String,
        /// Its name.
        database: String,
    },
    /// A table.
    Table {
        /// Its catalog (empty: the default).
        catalog: String,
        /// Its database.
        database: String,
        /// Its name.
        table: String,
    },
    /// A partition.
    Partition {
        /// Its catalog (empty: the default).
        catalog: String,
        /// Its database.
        database: String,
        /// Its table.
        table: String,
        /// Its values, in partition key order.
        values: Vec<String>,
    },
    /// A column of a table, or of one of its partitions.
    Column {
        /// Its catalog (empty: the default).
        catalog: String,
        /// Its database.
        database: String,
        /// Its table.
        table: String,
        /// The partition's values, for a partition's column.
        values: Option<Vec<String>>,
        /// The column.
        column: String,
    },
}

/// One grant or revoke of a request (Hive's `HiveObjectPrivilege`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantRequest {
    /// What it is on.
    pub object: GrantObject,
    /// Who holds it.
    pub principal_name: String,
    /// A user, a group or a role.
    pub principal_type: PrincipalType,
    /// The privilege, or several separated by commas, as Hive splits them.
    pub privilege: String,
    /// Who grants it.
    pub grantor: Option<String>,
    /// The grantor's type.
    pub grantor_type: Option<PrincipalType>,
    /// Whether the holder may grant it on.
    pub grant_option: bool,
    /// The authorizer making it (Hive 4).
    pub authorizer: Option<String>,
}

/// Which grants `list_privileges` lists, as its `HiveObjectRef` selects them (Hive's
/// `HMSHandler.list_privileges`): a missing database means every object of the kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivilegeFilter {
    /// No object type: every grant, global ones first, then databases', tables',
    /// partitions', table columns', partition columns'.
    Every,
    /// Grants on the server.
    Global,
    /// Grants on a database, or on every database.
    Database {
        /// The catalog (empty: the default).
        catalog: String,
        /// The database; `None`: every database.
        database: Option<String>,
    },
    /// Grants on a table, or on every table.
    Table {
        /// The catalog (empty: the default).
        catalog: String,
        /// The database and table; `None`: every table.
        table: Option<(String, Option<String>)>,
    },
    /// Grants on a partition, or on every partition.
    Partition {
        /// The catalog (empty: the default).
        catalog: String,
        /// The database, table and partition values; `None`: every partition.
        partition: Option<(String, String, Vec<String>)>,
    },
    /// Grants on a column of a table (no values) or of a partition, or on every such column.
    Column {
        /// The catalog (empty: the default).
        catalog: String,
        /// The partition's values, for partition columns.
        values: Option<Vec<String>>,
        /// The database, table and column; `None`: every such column.
        column: Option<(String, String, Option<String>)>,
    },
}

/// `get_privilege_set`'s answer: grants by user, group and role, each map present as Hive
/// sets it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrivilegeSet {
    /// The user's grants.
    pub users: Option<BTreeMap<String, Vec<PrivilegeGrant>>>,
    /// Each group's grants.
    pub groups: Option<BTreeMap<String, Vec<PrivilegeGrant>>>,
    /// Each role's grants, over the roles the user and groups hold.
    pub roles: Option<BTreeMap<String, Vec<PrivilegeGrant>>>,
}

/// Stages `grant` under its key.
pub(crate) fn put_grant(txn: &mut WriteTxn<'_>, grant: &PrivilegeGrant) -> Result<()> {
    txn.put_value(grant_key(grant), grant)
}

fn grant_key(grant: &PrivilegeGrant) -> Vec<u8> {
    keys::privilege_key(
        &target_parts(&grant.target),
        principal_type_byte(grant.principal_type),
        &grant.principal_name,
        &[
            &grant.privilege,
            grant.grantor.as_deref().unwrap_or(""),
            grant.authorizer.as_deref().unwrap_or(""),
        ],
    )
}

/// The grants in `range`, in key order.
pub(crate) fn grants_in(txn: &WriteTxn<'_>, range: KeyRange) -> Result<Vec<PrivilegeGrant>> {
    let mut grants = Vec::new();
    for entry in txn.scan(range) {
        let (key, _) = entry?;
        if let Some(view) = txn.view::<PrivilegeGrant>(&key)? {
            grants.push(view.to_owned()?);
        }
    }
    Ok(grants)
}

/// One principal's grants on one object.
fn principal_grants(
    txn: &WriteTxn<'_>,
    target: &GrantTarget,
    principal_type: PrincipalType,
    principal: &str,
) -> Result<Vec<PrivilegeGrant>> {
    let prefix = keys::privilege_principal_prefix(
        &target_parts(target),
        principal_type_byte(principal_type),
        principal,
    );
    grants_in(txn, KeyRange::prefix(&prefix))
}

/// Stages the removal of every grant made to the principal, on any object.
pub(crate) fn delete_principal_grants(
    txn: &mut WriteTxn<'_>,
    principal_type: PrincipalType,
    principal: &str,
) -> Result<()> {
    let every = grants_in(txn, KeyRange::prefix(&[keys::KEYSPACE_PRIVILEGE]))?;
    for grant in every {
        if grant.principal_type == principal_type && grant.principal_name == principal {
            txn.delete(grant_key(&grant));
        }
    }
    Ok(())
}

/// Hive's `Warehouse.makePartName` from a caller's values, with its message when their count
/// is not the table's key count.
fn partition_name(table: &Table, values: &[String]) -> Result<String> {
    let keys: Vec<&str> = table
        .partition_keys
        .iter()
        .map(|key| key.name.as_str())
        .collect();
    if keys.len() != values.len() || keys.is_empty() {
        let list = |items: &[&str]| {
            items
                .iter()
                .map(|item| format!("{item}, "))
                .collect::<String>()
        };
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        return Err(Error::Refused(format!(
            "Invalid partition key & values; keys [{}], values [{}]",
            list(&keys),
            list(&values)
        )));
    }
    Ok(make_partition_name(&keys, &normalize_values(values)))
}

/// Whether a grant may change: the partition exists (`Missing::Skip`) or the table must.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// A grant on an object that is not there does nothing (Hive's grant).
    Skip,
    /// A revoke needs the table of a partition or column (Hive's revoke reads it).
    RefuseTable,
}

fn read_table(
    txn: &WriteTxn<'_>,
    catalog: &str,
    database: &str,
    table: &str,
) -> Result<Option<Table>> {
    match table_id_in(txn.reader(), catalog, database, table)? {
        Some(id) => Ok(read_view::<Table>(txn.reader(), &keys::table_key(id))?
            .map(|view| view.to_owned())
            .transpose()?),
        None => Ok(None),
    }
}

/// The stored target `object` names, or `None` when a grant on it is to do nothing.
fn resolve(
    txn: &WriteTxn<'_>,
    object: &GrantObject,
    missing: Missing,
) -> Result<Option<GrantTarget>> {
    let table_target = |catalog: &str, database: &str, table: &str| {
        let (catalog, database, table) = normalize_names(catalog, database, table);
        (catalog, database, table)
    };
    match object {
        GrantObject::Global => Ok(Some(GrantTarget::Global)),
        GrantObject::Database { catalog, database } => {
            let (catalog, database, _) = table_target(catalog, database, "");
            if find_database_id(txn.reader(), &catalog, &database)?.is_none() {
                return Err(Error::NoSuchObject(format!(
                    "There is no database {catalog}.{database}"
                )));
            }
            Ok(Some(GrantTarget::Database { catalog, database }))
        }
        GrantObject::Table {
            catalog,
            database,
            table,
        } => {
            let (catalog, database, table) = table_target(catalog, database, table);
            let exists = table_id_in(txn.reader(), &catalog, &database, &table)?.is_some();
            let keep = exists || missing == Missing::RefuseTable;
            Ok(keep.then(|| GrantTarget::table(&catalog, &database, &table)))
        }
        GrantObject::Partition {
            catalog,
            database,
            table,
            values,
        } => resolve_in_table(txn, (catalog, database, table), Some(values), None, missing),
        GrantObject::Column {
            catalog,
            database,
            table,
            values,
            column,
        } => resolve_in_table(
            txn,
            (catalog, database, table),
            values.as_ref(),
            Some(column),
            missing,
        ),
    }
}

fn resolve_in_table(
    txn: &WriteTxn<'_>,
    (catalog, database, table): (&String, &String, &String),
    values: Option<&Vec<String>>,
    column: Option<&String>,
    missing: Missing,
) -> Result<Option<GrantTarget>> {
    let (catalog, database, table_name) = normalize_names(catalog, database, table);
    let Some(table) = read_table(txn, &catalog, &database, &table_name)? else {
        return match missing {
            Missing::Skip => Ok(None),
            Missing::RefuseTable => Err(crate::catalog::lookup::table_not_found(
                &catalog,
                &database,
                &table_name,
            )),
        };
    };
    let partition = match values {
        Some(values) => {
            let name = partition_name(&table, values)?;
            let normalized = normalize_values(values);
            let stored = txn.get(&keys::partition_key(
                crate::storage::keys::TableId(u64::try_from(table.id).unwrap_or(0)),
                &normalized,
            ))?;
            if stored.is_none() && missing == Missing::Skip {
                return Ok(None);
            }
            Some(name)
        }
        None => None,
    };
    if let Some(column) = column {
        check_name_length("column name", column, GRANT_OBJECT_NAME_BYTES_MAX)?;
    }
    Ok(Some(GrantTarget::Table {
        catalog,
        database,
        table: table_name,
        partition,
        column: column.map(|column| names::normalize(column)),
    }))
}

/// The privileges of a request, split at commas as Hive splits them.
fn split_privileges(privilege: &str) -> Vec<&str> {
    privilege.split(',').collect()
}

fn check_request(request: &GrantRequest) -> Result<()> {
    check_name_length(
        "principal name",
        &request.principal_name,
        GRANT_NAME_BYTES_MAX,
    )?;
    for privilege in split_privileges(&request.privilege) {
        check_name_length("privilege", privilege, GRANT_NAME_BYTES_MAX)?;
    }
    if let Some(grantor) = &request.grantor {
        check_name_length("grantor", grantor, GRANT_NAME_BYTES_MAX)?;
    }
    if let Some(authorizer) = &request.authorizer {
        check_name_length("authorizer", authorizer, GRANT_NAME_BYTES_MAX)?;
    }
    Ok(())
}

fn check_requests(requests: &[GrantRequest]) -> Result<()> {
    let count: usize = requests
        .iter()
        .map(|request| request.privilege.split(',').count())
        .sum();
    if count > GRANTS_PER_REQUEST_MAX {
        return Err(Error::Refused(format!(
            "A request of {count} privileges names more than the {GRANTS_PER_REQUEST_MAX} allowed"
        )));
    }
    requests.iter().try_for_each(check_request)
}

/// Hive's message for a privilege granted already, by the kind of object.
fn already_granted(target: &GrantTarget, privilege: &str, grantor: &str) -> String {
    match target {
        GrantTarget::Global => format!("{privilege} is already granted by {grantor}"),
        GrantTarget::Database { database, .. } => {
            format!("{privilege} is already granted on database {database} by {grantor}")
        }
        GrantTarget::Table { database, table, partition, column, .. } => match (partition, column) {
            (None, None) => format!(
                "{privilege} is already granted on table [{database},{table}] by {grantor}"
            ),
            (Some(partition), None) => format!(
                "{privilege} is already granted on partition [{database},{table},{partition}] by {grantor}"
            ),
            (Some(partition), Some(column)) => format!(
                "{privilege} is already granted on column {column} [{database},{table},{partition}] by {grantor}"
            ),
            (None, Some(column)) => format!(
                "{privilege} is already granted on column {column} [{database},{table}] by {grantor}"
            ),
        },
    }
}

/// Hive's message for a privilege to revoke that is not granted, by the kind of object.
fn not_granted(target: &GrantTarget, privilege: &str) -> String {
    match target {
        GrantTarget::Global => format!("No user grant found for privileges {privilege}"),
        GrantTarget::Database { database, .. } => {
            format!("No database grant found for privileges {privilege} on database {database}")
        }
        GrantTarget::Table {
            database,
            table,
            partition,
            column,
            ..
        } => {
            let partition = partition
                .as_ref()
                .map(|partition| format!(", partition is {partition}"))
                .unwrap_or_default();
            let column = column
                .as_ref()
                .map(|column| format!(", column name = {column}"))
                .unwrap_or_default();
            format!("No grant ({privilege}) found  on table {table}{partition}{column}, database is {database}")
        }
    }
}

/// Whether a revoke of `privilege` matches `granted`: exactly on the server and databases,
/// in any case on tables, partitions and columns (Hive's comparisons).
fn revoke_matches(target: &GrantTarget, granted: &str, privilege: &str) -> bool {
    match target {
        GrantTarget::Global | GrantTarget::Database { .. } => granted == privilege,
        GrantTarget::Table { .. } => granted.eq_ignore_ascii_case(privilege),
    }
}

fn check_role_grantee(txn: &WriteTxn<'_>, request: &GrantRequest) -> Result<()> {
    if request.principal_type == PrincipalType::Role
        && txn.get(&keys::role_key(&request.principal_name))?.is_none()
    {
        return Err(Error::NoSuchObject(format!(
            "Role {} does not exist",
            request.principal_name
        )));
    }
    Ok(())
}

/// Stages the grants of one request, refusing one its principal holds from the same grantor.
fn stage_grant(txn: &mut WriteTxn<'_>, request: &GrantRequest, now: i32) -> Result<()> {
    check_role_grantee(txn, request)?;
    let Some(target) = resolve(txn, &request.object, Missing::Skip)? else {
        return Ok(());
    };
    let grantor = request.grantor.as_deref().unwrap_or("");
    let existing = principal_grants(
        txn,
        &target,
        request.principal_type,
        &request.principal_name,
    )?;
    let held: BTreeSet<&str> = existing
        .iter()
        .filter(|grant| {
            grant
                .grantor
                .as_deref()
                .unwrap_or("")
                .eq_ignore_ascii_case(grantor)
        })
        .filter(|grant| request.authorizer.is_none() || grant.authorizer == request.authorizer)
        .map(|grant| grant.privilege.as_str())
        .collect();
    for privilege in split_privileges(&request.privilege) {
        if held.contains(privilege) {
            return Err(Error::InvalidObject(already_granted(
                &target, privilege, grantor,
            )));
        }
        let grant = PrivilegeGrant {
            target: target.clone(),
            principal_name: request.principal_name.clone(),
            principal_type: request.principal_type,
            privilege: privilege.to_string(),
            create_time: now,
            grantor: request.grantor.clone(),
            grantor_type: request.grantor_type,
            grant_option: request.grant_option,
            authorizer: request.authorizer.clone(),
        };
        put_grant(txn, &grant)?;
    }
    Ok(())
}

/// Stages the revokes of one request (or the removal of their grant option).
fn stage_revoke(
    txn: &mut WriteTxn<'_>,
    request: &GrantRequest,
    grant_option_only: bool,
) -> Result<()> {
    if request.privilege.trim().is_empty() {
        return Ok(());
    }
    let Some(target) = resolve(txn, &request.object, Missing::RefuseTable)? else {
        return Ok(());
    };
    let mut existing = principal_grants(
        txn,
        &target,
        request.principal_type,
        &request.principal_name,
    )?;
    let mut found = false;
    for privilege in split_privileges(&request.privilege) {
        let matching = existing
            .iter_mut()
            .find(|grant| revoke_matches(&target, &grant.privilege, privilege));
        match matching {
            Some(grant) => {
                found = true;
                if !grant_option_only {
                    txn.delete(grant_key(grant));
                } else if grant.grant_option {
                    grant.grant_option = false;
                    put_grant(txn, grant)?;
                } else {
                    return Err(Error::Refused(format!(
                        "User {} does not have grant option with privilege {privilege}",
                        request.principal_name
                    )));
                }
            }
            None if !found => return Err(Error::InvalidObject(not_granted(&target, privilege))),
            None => {}
        }
    }
    Ok(())
}

impl Store {
    /// Hive's `grant_privileges`: every request's privileges, in one write.
    pub fn grant_privileges(&self, requests: &[GrantRequest]) -> Result<()> {
        check_requests(requests)?;
        self.write(|txn| {
            let now = now_seconds();
            requests
                .iter()
                .try_for_each(|request| stage_grant(txn, request, now))
        })
    }

    /// Hive's `revoke_privileges`: every request's privileges (or, with `grant_option_only`,
    /// their grant option), in one write.
    pub fn revoke_privileges(
        &self,
        requests: &[GrantRequest],
        grant_option_only: bool,
    ) -> Result<()> {
        check_requests(requests)?;
        self.write(|txn| {
            requests
                .iter()
                .try_for_each(|request| stage_revoke(txn, request, grant_option_only))
        })
    }

    /// Hive 4's `refresh_privileges`: the grants of `authorizer` on `object` (a database, a
    /// table, or with `GrantObject::Column` of an empty column name every column of a table)
    /// become `requests`: those not asked for are revoked, those asked for and missing granted,
    /// those kept keep their create time.
    pub fn refresh_privileges(
        &self,
        object: &GrantObject,
        authorizer: Option<&str>,
        requests: &[GrantRequest],
    ) -> Result<()> {
        check_requests(requests)?;
        self.write(|txn| {
            let existing = refreshed_grants(txn, object, authorizer)?;
            let now = now_seconds();
            let mut wanted = Vec::new();
            for request in requests {
                let Some(target) = resolve(txn, &request.object, Missing::Skip)? else {
                    continue;
                };
                for privilege in split_privileges(&request.privilege) {
                    wanted.push(PrivilegeGrant {
                        target: target.clone(),
                        principal_name: request.principal_name.clone(),
                        principal_type: request.principal_type,
                        privilege: privilege.to_string(),
                        create_time: now,
                        grantor: request.grantor.clone(),
                        grantor_type: request.grantor_type,
                        grant_option: request.grant_option,
                        authorizer: request.authorizer.clone(),
                    });
                }
            }
            let same = |left: &PrivilegeGrant, right: &PrivilegeGrant| {
                PrivilegeGrant {
                    create_time: 0,
                    ..left.clone()
                } == PrivilegeGrant {
                    create_time: 0,
                    ..right.clone()
                }
            };
            for old in &existing {
                if !wanted.iter().any(|new| same(old, new)) {
                    txn.delete(grant_key(old));
                }
            }
            for new in &wanted {
                if !existing.iter().any(|old| same(old, new)) {
                    check_role_grantee_of(txn, new)?;
                    put_grant(txn, new)?;
                }
            }
            Ok(())
        })
    }

    /// Hive's `list_privileges`: the grants `filter` selects, of `principal` when given.
    pub fn list_privileges(
        &self,
        principal: Option<(&str, PrincipalType)>,
        filter: &PrivilegeFilter,
    ) -> Result<Vec<PrivilegeGrant>> {
        let selector = self.selector(filter)?;
        let view = self.grants_view()?;
        let mut grants: Vec<PrivilegeGrant> = view
            .grants()
            .iter()
            .filter(|grant| match principal {
                Some((name, kind)) => grant.principal_name == name && grant.principal_type == kind,
                None => true,
            })
            .filter(|grant| selector.selects(&grant.target))
            .cloned()
            .collect();
        if *filter == PrivilegeFilter::Every {
            grants.sort_by_key(|grant| kind_rank(&grant.target));
        }
        Ok(grants)
    }

    /// Hive's `get_privilege_set`: the grants on `object` itself of `user`, of each of
    /// `groups` and of each role they hold; on the server, only the user's (when it has any)
    /// and the groups' that have any.
    pub fn privilege_set(
        &self,
        object: &GrantObject,
        user: Option<&str>,
        groups: &[String],
    ) -> Result<PrivilegeSet> {
        let target = self.read_target(object)?;
        let view = self.grants_view()?;
        let of = |name: &str, kind: PrincipalType| -> Vec<PrivilegeGrant> {
            view.grants_on(&target)
                .filter(|grant| grant.principal_name == name && grant.principal_type == kind)
                .cloned()
                .collect()
        };
        if target == GrantTarget::Global {
            let users = user
                .map(|user| (user.to_string(), of(user, PrincipalType::User)))
                .filter(|(_, grants)| !grants.is_empty())
                .map(|entry| BTreeMap::from([entry]));
            let groups = (!groups.is_empty()).then(|| {
                groups
                    .iter()
                    .map(|group| (group.clone(), of(group, PrincipalType::Group)))
                    .filter(|(_, grants)| !grants.is_empty())
                    .collect()
            });
            return Ok(PrivilegeSet {
                users,
                groups,
                roles: None,
            });
        }
        let users =
            user.map(|user| BTreeMap::from([(user.to_string(), of(user, PrincipalType::User))]));
        let group_grants = (!groups.is_empty()).then(|| {
            groups
                .iter()
                .map(|group| (group.clone(), of(group, PrincipalType::Group)))
                .collect()
        });
        let held = view.roles_in_hierarchy(user, groups);
        let roles = (!held.is_empty()).then(|| {
            held.iter()
                .map(|role| (role.clone(), of(role, PrincipalType::Role)))
                .collect()
        });
        Ok(PrivilegeSet {
            users,
            groups: group_grants,
            roles,
        })
    }

    /// The target `object` names for a read: names normalised, a partition's name made from
    /// its table's keys (the table must exist for that).
    fn read_target(&self, object: &GrantObject) -> Result<GrantTarget> {
        let (catalog, database, table) = match object {
            GrantObject::Global => return Ok(GrantTarget::Global),
            GrantObject::Database { catalog, database } => {
                let (catalog, database, _) = normalize_names(catalog, database, "");
                return Ok(GrantTarget::Database { catalog, database });
            }
            GrantObject::Table {
                catalog,
                database,
                table,
            }
            | GrantObject::Partition {
                catalog,
                database,
                table,
                ..
            }
            | GrantObject::Column {
                catalog,
                database,
                table,
                ..
            } => normalize_names(catalog, database, table),
        };
        let (values, column) = match object {
            GrantObject::Partition { values, .. } => (Some(values), None),
            GrantObject::Column { values, column, .. } => {
                (values.as_ref(), Some(names::normalize(column)))
            }
            _ => (None, None),
        };
        let partition = match values.filter(|values| !values.is_empty()) {
            Some(values) => Some(self.partition_name_of(&catalog, &database, &table, values)?),
            None => None,
        };
        Ok(GrantTarget::Table {
            catalog,
            database,
            table,
            partition,
            column,
        })
    }

    /// The partition name of `values` in table `catalog.database.table`, which must exist.
    fn partition_name_of(
        &self,
        catalog: &str,
        database: &str,
        table: &str,
        values: &[String],
    ) -> Result<String> {
        let table_value = match table_id_in(self.reader(), catalog, database, table)? {
            Some(id) => self
                .view::<Table>(&keys::table_key(id))?
                .map(|view| view.to_owned())
                .transpose()?,
            None => None,
        };
        let table_value = table_value
            .ok_or_else(|| crate::catalog::lookup::table_not_found(catalog, database, table))?;
        partition_name(&table_value, values)
    }

    fn selector(&self, filter: &PrivilegeFilter) -> Result<Selector> {
        let normalized =
            |catalog: &str, database: &str, table: &str| normalize_names(catalog, database, table);
        Ok(match filter {
            PrivilegeFilter::Every => Selector::Any,
            PrivilegeFilter::Global => Selector::Exactly(GrantTarget::Global),
            PrivilegeFilter::Database { database: None, .. } => Selector::Kind(1),
            PrivilegeFilter::Database {
                catalog,
                database: Some(database),
            } => {
                let (catalog, database, _) = normalized(catalog, database, "");
                Selector::Exactly(GrantTarget::Database { catalog, database })
            }
            PrivilegeFilter::Table { table: None, .. } => Selector::Kind(2),
            PrivilegeFilter::Table {
                catalog,
                table: Some((database, table)),
            } => {
                let table = table.as_deref().ok_or_else(|| {
                    Error::Refused(
                        "A table's privileges were asked for without its name".to_string(),
                    )
                })?;
                let (catalog, database, table) = normalized(catalog, database, table);
                Selector::Exactly(GrantTarget::table(&catalog, &database, &table))
            }
            PrivilegeFilter::Partition {
                partition: None, ..
            } => Selector::Kind(3),
            PrivilegeFilter::Partition {
                catalog,
                partition: Some((database, table, values)),
            } => {
                let object = GrantObject::Partition {
                    catalog: catalog.clone(),
                    database: database.clone(),
                    table: table.clone(),
                    values: values.clone(),
                };
                Selector::Exactly(self.read_target(&object)?)
            }
            PrivilegeFilter::Column {
                values,
                column: None,
                ..
            } => Selector::Kind(
                if values.as_ref().is_some_and(|values| !values.is_empty()) {
                    5
                } else {
                    4
                },
            ),
            PrivilegeFilter::Column {
                catalog,
                values,
                column: Some((database, table, column)),
            } => {
                let column = column.as_deref().ok_or_else(|| {
                    Error::Refused(
                        "A column's privileges were asked for without its name".to_string(),
                    )
                })?;
                let object = GrantObject::Column {
                    catalog: catalog.clone(),
                    database: database.clone(),
                    table: table.clone(),
                    values: values.clone().filter(|values| !values.is_empty()),
                    column: column.to_string(),
                };
                Selector::Exactly(self.read_target(&object)?)
            }
        })
    }
}

fn check_role_grantee_of(txn: &WriteTxn<'_>, grant: &PrivilegeGrant) -> Result<()> {
    if grant.principal_type == PrincipalType::Role
        && txn.get(&keys::role_key(&grant.principal_name))?.is_none()
    {
        return Err(Error::NoSuchObject(format!(
            "Role {} does not exist",
            grant.principal_name
        )));
    }
    Ok(())
}

/// The grants `refresh_privileges` replaces: `authorizer`'s on the database or table, or on
/// every column of the table.
fn refreshed_grants(
    txn: &WriteTxn<'_>,
    object: &GrantObject,
    authorizer: Option<&str>,
) -> Result<Vec<PrivilegeGrant>> {
    let (parts, columns): (Vec<String>, bool) = match object {
        GrantObject::Database { catalog, database } => {
            let (catalog, database, _) = normalize_names(catalog, database, "");
            (
                vec![
                    catalog,
                    database,
                    String::new(),
                    String::new(),
                    String::new(),
                ],
                false,
            )
        }
        GrantObject::Table {
            catalog,
            database,
            table,
        } => {
            let (catalog, database, table) = normalize_names(catalog, database, table);
            (
                vec![catalog, database, table, String::new(), String::new()],
                false,
            )
        }
        GrantObject::Column {
            catalog,
            database,
            table,
            values: None,
            column,
        } if column.is_empty() => {
            let (catalog, database, table) = normalize_names(catalog, database, table);
            (vec![catalog, database, table, String::new()], true)
        }
        GrantObject::Column { .. } => {
            return Err(Error::Refused("columnName must be null".to_string()));
        }
        other => {
            return Err(Error::Refused(format!(
                "Unexpected object type {}",
                object_type_name(other)
            )))
        }
    };
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let grants = grants_in(txn, KeyRange::prefix(&keys::privilege_prefix(&parts)))?;
    Ok(grants
        .into_iter()
        .filter(|grant| grant.authorizer.as_deref() == authorizer)
        .filter(|grant| match &grant.target {
            GrantTarget::Table { column, .. } => column.is_some() == columns,
            _ => !columns,
        })
        .collect())
}

/// Hive's `HiveObjectType` name of an object.
fn object_type_name(object: &GrantObject) -> &'static str {
    match object {
        GrantObject::Global => "GLOBAL",
        GrantObject::Database { .. } => "DATABASE",
        GrantObject::Table { .. } => "TABLE",
        GrantObject::Partition { .. } => "PARTITION",
        GrantObject::Column { .. } => "COLUMN",
    }
}

/// The order Hive's `getAllPrivileges` lists kinds of object in.
fn kind_rank(target: &GrantTarget) -> u8 {
    match target {
        GrantTarget::Global => 0,
        GrantTarget::Database { .. } => 1,
        GrantTarget::Table {
            partition: None,
            column: None,
            ..
        } => 2,
        GrantTarget::Table {
            partition: Some(_),
            column: None,
            ..
        } => 3,
        GrantTarget::Table {
            partition: None,
            column: Some(_),
            ..
        } => 4,
        GrantTarget::Table {
            partition: Some(_),
            column: Some(_),
            ..
        } => 5,
    }
}

/// Which targets a listing keeps.
enum Selector {
    Any,
    Kind(u8),
    Exactly(GrantTarget),
}

impl Selector {
    fn selects(&self, target: &GrantTarget) -> bool {
        match self {
            Selector::Any => true,
            Selector::Kind(kind) => kind_rank(target) == *kind,
            Selector::Exactly(wanted) => target == wanted,
        }
    }
}

impl GrantTarget {
    /// The values of a partition target's partition name.
    pub fn partition_values(&self) -> Option<Vec<String>> {
        match self {
            GrantTarget::Table {
                partition: Some(name),
                ..
            } => Some(partition_name_to_values(name)),
            _ => None,
        }
    }
}

impl GrantsView {
    /// Hive's `listAllRolesInHierarchy`: the roles `user` (with `public`) and `groups` hold,
    /// with every role those belong to.
    pub fn roles_in_hierarchy(&self, user: Option<&str>, groups: &[String]) -> BTreeSet<String> {
        self.roles_held(user, groups)
    }
}
