//! `translate_table_dryrun`: the table Hive 4 would create for a client's proposal, as its
//! default transformer (`MetastoreDefaultTransformer`, on by default) rewrites it, without
//! creating anything. Hive 4's clients ask it before every CTAS. In the default catalog a
//! managed table that is not transactional becomes an external table that purges its data
//! (`EXTERNAL`, `external.table.purge` and `TRANSLATED_TO_EXTERNAL` set to `TRUE`) at its
//! database's default location unless it has one; transactional tables stay managed, and need
//! the client to declare the capability to write them; tables without a location get their
//! default one. Other catalogs' tables come back as proposed.

use std::collections::BTreeMap;

use hivestore_engine::{
    self as engine, DEFAULT_CATALOG_NAME, EXTERNAL_TABLE, EXTERNAL_TABLE_PURGE_PARAMETER,
    MANAGED_TABLE,
};
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Privilege, Target};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// Hive's `TABLE_IS_TRANSACTIONAL`.
const TRANSACTIONAL: &str = "transactional";
/// Hive's `TABLE_TRANSACTIONAL_PROPERTIES`.
const TRANSACTIONAL_PROPERTIES: &str = "transactional_properties";
/// Hive's `CTAS_LEGACY_CONFIG`: a CTAS that asks for the legacy external translation.
const CTAS_LEGACY: &str = "create_table_as_external";
/// Hive's `HiveMetaHook.EXTERNAL`.
const EXTERNAL: &str = "EXTERNAL";
/// Hive's `HiveMetaHook.TRANSLATED_TO_EXTERNAL`.
const TRANSLATED_TO_EXTERNAL: &str = "TRANSLATED_TO_EXTERNAL";
/// A database parameter that forbids managed tables in it (HIVE-25724).
const EXTERNAL_TABLES_ONLY: &str = "EXTERNAL_TABLES_ONLY";
/// The capabilities a client needs to create a full ACID table, as Hive lists them.
const FULL_ACID_WRITE: [&str; 4] = [
    "HIVEFULLACIDWRITE",
    "HIVEMANAGESTATS",
    "HIVECACHEINVALIDATE",
    "CONNECTORWRITE",
];
/// The capabilities a client needs to create an insert-only table, as Hive lists them.
const INSERT_ONLY_WRITE: [&str; 4] = [
    "HIVEMANAGEDINSERTWRITE",
    "HIVEMANAGESTATS",
    "HIVECACHEINVALIDATE",
    "CONNECTORWRITE",
];

/// What `translate_table_dryrun` declares.
const DECLARED: &[Declared] = &[
    Declared::AlreadyExists,
    Declared::InvalidObject,
    Declared::Meta,
    Declared::NoSuchObject,
];

fn meta(message: impl Into<String>) -> thrift::Error {
    exception(Declared::Meta, message)
}

/// `translate_table_dryrun`.
pub fn translate(
    session: &Session,
    request: idl::CreateTableRequest,
) -> thrift::Result<idl::Table> {
    let mut table = request.table;
    let catalog = table
        .cat_name
        .get_or_insert_with(|| DEFAULT_CATALOG_NAME.to_string())
        .clone();
    // A dry run of a create: what the create itself needs.
    let database = table.db_name.as_deref().unwrap_or_default();
    session.authorize(
        Need::Privilege(Privilege::Create),
        Target::Database {
            catalog: &catalog,
            database,
        },
    )?;
    if !catalog.eq_ignore_ascii_case(DEFAULT_CATALOG_NAME) {
        return Ok(table);
    }
    let name = table.table_name.clone().unwrap_or_default();
    let database_name = table.db_name.clone().unwrap_or_default();
    let database = match session.store().get_database(&catalog, &database_name) {
        Ok(database) => database,
        Err(engine::Error::NoSuchObject(_)) => {
            return Err(meta(format!(
                "Database {database_name} for table {name} could not be found"
            )))
        }
        Err(error) => return Err(to_thrift(error, DECLARED)),
    };
    let capabilities = request.processor_capabilities.unwrap_or_default();
    match table.table_type.as_deref() {
        Some(MANAGED_TABLE) => {
            let parameters = table.parameters.get_or_insert_with(BTreeMap::new);
            let transactional = parameters.get(TRANSACTIONAL).cloned();
            let not_transactional = transactional
                .as_deref()
                .is_none_or(|value| value.eq_ignore_ascii_case("false"));
            let insert_only = parameters
                .get(TRANSACTIONAL_PROPERTIES)
                .is_some_and(|value| value.eq_ignore_ascii_case("insert_only"));
            let ctas_legacy = parameters
                .get(CTAS_LEGACY)
                .is_some_and(|value| value.eq_ignore_ascii_case("true"));
            if not_transactional && (!insert_only || ctas_legacy) {
                translate_to_external(&mut table, &database, &name)?;
            } else {
                check_acid(
                    &mut table,
                    &database,
                    &name,
                    insert_only,
                    &capabilities,
                    session,
                )?;
            }
        }
        Some(EXTERNAL_TABLE) => validate_paths(&mut table, &database, &name, false, session)?,
        _ => {}
    }
    Ok(table)
}

/// A managed table that is not transactional, as Hive 4 creates it: external, purged with
/// its drop, at its database's default location unless it has one.
fn translate_to_external(
    table: &mut idl::Table,
    database: &engine::Database,
    name: &str,
) -> thrift::Result<()> {
    table.table_type = Some(EXTERNAL_TABLE.to_string());
    let parameters = table.parameters.get_or_insert_with(BTreeMap::new);
    parameters.remove(TRANSACTIONAL);
    parameters.remove(TRANSACTIONAL_PROPERTIES);
    for key in [
        EXTERNAL,
        EXTERNAL_TABLE_PURGE_PARAMETER,
        TRANSLATED_TO_EXTERNAL,
    ] {
        parameters.insert(key.to_string(), "TRUE".to_string());
    }
    let has_location = table
        .sd
        .as_ref()
        .and_then(|sd| sd.location.as_deref())
        .is_some_and(|location| !location.trim().is_empty());
    if has_location {
        return Ok(());
    }
    let failed = |why: &str| {
        meta(format!(
            "Exception determining external table location:{why}"
        ))
    };
    let location = engine::default_table_location(database, &name.to_lowercase(), false)
        .ok_or_else(|| failed("the database has no location"))?;
    let sd = table
        .sd
        .as_mut()
        .ok_or_else(|| failed("the table has no storage descriptor"))?;
    sd.location = Some(location);
    Ok(())
}

/// A transactional table stays managed: the database must allow it and the client must
/// declare the capability to write it.
fn check_acid(
    table: &mut idl::Table,
    database: &engine::Database,
    name: &str,
    insert_only: bool,
    capabilities: &[String],
    session: &Session,
) -> thrift::Result<()> {
    let external_only = database
        .parameters
        .get(EXTERNAL_TABLES_ONLY)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"));
    if external_only {
        return Err(meta(
            "Creation of ACID table is not allowed when the property 'EXTERNAL_TABLES_ONLY'='TRUE' is set on the database.",
        ));
    }
    if capabilities.is_empty() {
        return Err(meta(
            "Processor has no capabilities, cannot create an ACID table.",
        ));
    }
    validate_paths(table, database, name, true, session)?;
    let (needed, kind) = if insert_only {
        (&INSERT_ONLY_WRITE, "INSERT ACID")
    } else {
        (&FULL_ACID_WRITE, "FULL ACID")
    };
    if capabilities
        .iter()
        .any(|capability| capability == needed[0])
    {
        return Ok(());
    }
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|capability| !capabilities.iter().any(|given| given == capability))
        .collect();
    Err(meta(format!(
        "Processor does not have capabilities to create a {kind} table:[{}]",
        missing.join(", ")
    )))
}

/// Hive's `FileUtils.isSubdirectory`: `child` is `parent` or under it, compared as text.
fn is_subdirectory(parent: &str, child: &str) -> bool {
    let with_slash = |path: &str| {
        if path.ends_with('/') {
            path.to_string()
        } else {
            format!("{path}/")
        }
    };
    with_slash(child).starts_with(&with_slash(parent))
}

/// Hive's `validateTablePaths` with its default configuration: a managed table's location
/// must lie in its database's managed location, or in the warehouse when the database has
/// none; a table without a location gets its default one.
fn validate_paths(
    table: &mut idl::Table,
    database: &engine::Database,
    name: &str,
    managed: bool,
    session: &Session,
) -> thrift::Result<()> {
    let location = table.sd.as_ref().and_then(|sd| sd.location.clone());
    match (&location, managed) {
        (Some(location), true) => {
            if let Some(managed_location) = &database.managed_location_uri {
                if !is_subdirectory(managed_location, location) {
                    return Err(meta(
                        "Illegal location for managed table, it has to be within database's managed location",
                    ));
                }
            } else {
                let root = &session.store().options().warehouse_root;
                if !is_subdirectory(root, location) {
                    return Err(meta(format!(
                        "A managed table's location should be located within managed warehouse root directory or within its database's managedLocationUri. Table {name}'s location is not valid:{location}, managed warehouse:{root}"
                    )));
                }
            }
            Ok(())
        }
        (Some(_), false) => Ok(()),
        (None, _) => {
            let default =
                engine::default_table_location(database, &name.to_lowercase(), managed)
                    .ok_or_else(|| meta(format!("Database of table {name} has no location")))?;
            let sd = table
                .sd
                .as_mut()
                .ok_or_else(|| meta(format!("Table {name} has no storage descriptor")))?;
            sd.location = Some(default);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_subdirectory;

    #[test]
    fn subdirectories_are_compared_as_text() {
        assert!(is_subdirectory("/wh", "/wh/db.db/t"));
        assert!(is_subdirectory("/wh/", "/wh"));
        assert!(!is_subdirectory("/wh", "/wh2/t"));
        assert!(!is_subdirectory("/wh/db", "/other"));
    }
}
