//! The HMS calls, one module per family. Each function reads like the Hive call it implements:
//! normalise, validate, act, reply. The table in `methods.rs` names the function that answers
//! each method, which takes the session and the method's arguments as the IDL declares them.

pub mod caches;
pub mod catalogs;
pub mod compaction_properties;
pub mod compactions;
pub mod compactor;
pub mod connectors;
pub mod constraints;
pub mod databases;
pub mod delegation_tokens;
pub mod fb303;
pub mod functions;
pub mod locks;
pub mod materialized_views;
pub mod notifications;
pub mod partition_expressions;
pub mod partition_listings;
pub mod partition_specs;
pub mod partitions;
pub mod privileges;
pub mod procedures;
pub mod properties;
pub mod replication;
pub mod roles;
pub mod runtime_stats;
pub mod scheduled_queries;
pub mod schema_registry;
pub mod session;
mod spec_partitions;
pub mod stats;
pub mod table_translation;
pub mod tables;
pub mod txns;
pub mod types;
pub mod workload;

use std::borrow::Cow;
use std::collections::BTreeMap;

use hivestore_engine::DEFAULT_CATALOG_NAME;
use hivestore_idl::hive_metastore::EnvironmentContext;

use crate::errors::{exception, Declared};

/// Marks a database name that carries its catalog: `@<catalog>#<database>`.
const CATALOG_MARKER: char = '@';
/// Separates catalog and database in an encoded name.
const CATALOG_SEPARATOR: char = '#';
/// Stands for the empty database name in an encoded name (`@cat#!`).
const EMPTY_DATABASE_MARKER: &str = "!";

/// A database name as old-style calls send it, split into catalog and database. Hive 3+
/// clients encode the catalog as `@<catalog>#<database>`; `@<catalog>#` names no database
/// (all of the catalog's), `@<catalog>#!` the empty name. Without the marker: catalog `hive`.
pub fn parse_database_name(name: &str) -> thrift::Result<(String, Option<String>)> {
    let Some(encoded) = name.strip_prefix(CATALOG_MARKER) else {
        return Ok((DEFAULT_CATALOG_NAME.to_string(), Some(name.to_string())));
    };
    let Some((catalog, database)) = encoded.split_once(CATALOG_SEPARATOR) else {
        return Err(exception(
            Declared::Meta,
            format!("Database name {name} is prepended with the catalog marker but does not have a catalog separator"),
        ));
    };
    let database = match database {
        "" => None,
        EMPTY_DATABASE_MARKER => Some(String::new()),
        database => Some(database.to_string()),
    };
    Ok((catalog.to_string(), database))
}

/// Like [`parse_database_name`] for calls that need a database.
pub fn require_database_name(name: &str) -> thrift::Result<(String, String)> {
    match parse_database_name(name)? {
        (catalog, Some(database)) => Ok((catalog, database)),
        (catalog, None) => Err(exception(
            Declared::Meta,
            format!("Database name {name} names catalog {catalog} but no database"),
        )),
    }
}

/// The catalog a request names, or the default one.
pub fn catalog_or_default(catalog: Option<String>) -> String {
    catalog
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_CATALOG_NAME.to_string())
}

/// The properties of an environment context, empty when there is none.
pub fn context_properties(context: Option<EnvironmentContext>) -> BTreeMap<String, String> {
    context
        .and_then(|context| context.properties)
        .unwrap_or_default()
}

/// Hive's boolean parsing: `true` in any case is true, anything else false.
pub fn is_true(value: Option<&String>) -> bool {
    value.is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

/// A catalog name as given, `hive` when it is empty (as the engine reads it), unallocated.
pub fn catalog_name_or_default(catalog: &str) -> &str {
    if catalog.trim().is_empty() {
        DEFAULT_CATALOG_NAME
    } else {
        catalog
    }
}

/// A name as the store looks it up (Hive's `normalizeIdentifier`: trimmed, lower-cased), for
/// the target a call names; borrowed when it already is, so naming costs no copy.
pub fn normal(name: &str) -> Cow<'_, str> {
    let trimmed = name.trim();
    if trimmed.chars().any(char::is_uppercase) {
        Cow::Owned(trimmed.to_lowercase())
    } else {
        Cow::Borrowed(trimmed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_names_are_trimmed_and_lower_cased_and_borrowed_when_they_are() {
        assert!(matches!(normal("sales"), Cow::Borrowed("sales")));
        assert!(matches!(normal(" sales "), Cow::Borrowed("sales")));
        assert_eq!(normal(" Sales"), "sales");
        assert_eq!(normal("ÀB"), "àb");
    }

    #[test]
    fn database_names_carry_their_catalog_when_encoded() {
        assert_eq!(
            parse_database_name("db").unwrap(),
            ("hive".into(), Some("db".into()))
        );
        assert_eq!(
            parse_database_name("@spark#db").unwrap(),
            ("spark".into(), Some("db".into()))
        );
        assert_eq!(
            parse_database_name("@spark#").unwrap(),
            ("spark".into(), None)
        );
        assert_eq!(
            parse_database_name("@spark#!").unwrap(),
            ("spark".into(), Some(String::new()))
        );
        assert!(parse_database_name("@spark").is_err());
        assert!(require_database_name("@spark#").is_err());
    }
}
