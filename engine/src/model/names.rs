//! Hive's name rules: normalisation and validation of catalog, database and
//! table names.

use crate::error::{Error, Result};

/// The catalog every pre-catalog call means, and the one created on first
/// open.
pub const DEFAULT_CATALOG_NAME: &str = "hive";
/// The database created in the default catalog on first open.
pub const DEFAULT_DATABASE_NAME: &str = "default";
/// The description of the `default` database.
pub const DEFAULT_DATABASE_DESCRIPTION: &str = "Default Hive database";
/// The longest catalog or table name accepted, in bytes (Hive's `CTLGS.NAME` and
/// `TBLS.TBL_NAME` are `varchar(256)`).
pub const NAME_LEN_MAX: usize = 256;
/// The longest database name accepted, in bytes (`DBS.NAME varchar(128)`).
pub const DATABASE_NAME_LEN_MAX: usize = crate::model::value_limits::DATABASE_NAME_LEN_MAX;

/// Hive's `normalizeIdentifier`: trimmed and lowercased. Applied to catalog,
/// database and table names on every write and every lookup.
pub fn normalize(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Checks `name` against Hive's `[\w_]+`, plus `/` when `allow_slash`, and its column's
/// width `max`; `kind` names it in the message ("database", "object").
fn validate_name(kind: &str, name: &str, allow_slash: bool, max: usize) -> Result<()> {
    if name.len() > max {
        return Err(Error::InvalidObject(format!(
            "{kind} name is {} bytes, longer than the {max} bytes allowed",
            name.len()
        )));
    }
    let valid = !name.is_empty()
        && name.bytes().all(|byte| {
            byte.is_ascii_alphanumeric() || byte == b'_' || (allow_slash && byte == b'/')
        });
    if !valid {
        return Err(Error::InvalidObject(format!(
            "{name} is not a valid {kind} name"
        )));
    }
    Ok(())
}

/// Checks a (normalised) catalog name (`CTLGS.NAME varchar(256)`).
pub fn validate_catalog_name(name: &str) -> Result<()> {
    validate_name("catalog", name, false, NAME_LEN_MAX)
}

/// Checks a (normalised) database name (`DBS.NAME varchar(128)`).
pub fn validate_database_name(name: &str) -> Result<()> {
    validate_name("database", name, false, DATABASE_NAME_LEN_MAX)
}

/// The longest function name accepted, in bytes (Hive's `FUNCS.FUNC_NAME varchar(128)`).
pub const FUNCTION_NAME_LEN_MAX: usize = 128;

/// Checks a function name as given: Hive's `[\w_]+`, as `create_function` checks it.
pub fn validate_function_name(name: &str) -> Result<()> {
    validate_name("object", name, false, FUNCTION_NAME_LEN_MAX)
}

/// Checks a data connector name as given, as `create_dataconnector` checks it: Hive's
/// `validateName` with its special characters in names allowed, as for tables
/// (`DATACONNECTORS.NAME varchar(128)`).
pub fn validate_connector_name(name: &str) -> Result<()> {
    validate_name(
        "dataconnector",
        name,
        true,
        crate::connectors::CONNECTOR_NAME_LEN_MAX,
    )
}

/// Checks a (normalised) table name. `/` is allowed, as Hive does by default
/// (`metastore.support.special.characters.tablename`).
pub fn validate_table_name(name: &str) -> Result<()> {
    validate_name("object", name, true, NAME_LEN_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_lowercased() {
        assert_eq!(normalize("  Sales_DB \t"), "sales_db");
    }

    #[test]
    fn hive_name_rules() {
        assert!(validate_table_name("t_1").is_ok());
        assert!(validate_table_name("a/b").is_ok());
        let error = validate_table_name("my-table").unwrap_err();
        assert_eq!(
            error,
            Error::InvalidObject("my-table is not a valid object name".into())
        );
        assert!(validate_database_name("a/b").is_err());
        assert!(validate_database_name("").is_err());
        assert_eq!(
            validate_database_name(&"x".repeat(129)).unwrap_err(),
            Error::InvalidObject(
                "database name is 129 bytes, longer than the 128 bytes allowed".into()
            )
        );
        assert!(validate_database_name(&"x".repeat(128)).is_ok());
        assert!(validate_table_name(&"x".repeat(256)).is_ok());
        assert!(validate_table_name(&"x".repeat(257)).is_err());
        assert!(validate_function_name("my_udf1").is_ok());
        assert_eq!(
            validate_function_name("my-udf").unwrap_err(),
            Error::InvalidObject("my-udf is not a valid object name".into())
        );
        assert!(validate_function_name("a/b").is_err());
        assert!(validate_function_name(&"f".repeat(129)).is_err());
    }
}
