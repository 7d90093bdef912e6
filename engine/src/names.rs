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
/// The longest name accepted, in bytes (Hive's `TBLS.TBL_NAME` column
/// holds 256 characters).
pub const NAME_LEN_MAX: usize = 256;

/// Hive's `normalizeIdentifier`: trimmed and lowercased. Applied to catalog,
/// database and table names on every write and every lookup.
pub fn normalize(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Whether `name` matches Hive's `[\w_]+`, plus `/` when `allow_slash`.
fn is_valid_name(name: &str, allow_slash: bool) -> bool {
    !name.is_empty()
        && name.len() <= NAME_LEN_MAX
        && name.bytes().all(|byte| {
            byte.is_ascii_alphanumeric() || byte == b'_' || (allow_slash && byte == b'/')
        })
}

/// Checks a (normalised) catalog name.
pub fn validate_catalog_name(name: &str) -> Result<()> {
    if is_valid_name(name, false) {
        Ok(())
    } else {
        Err(Error::InvalidObject(format!(
            "{name} is not a valid catalog name"
        )))
    }
}

/// Checks a (normalised) database name.
pub fn validate_database_name(name: &str) -> Result<()> {
    if is_valid_name(name, false) {
        Ok(())
    } else {
        Err(Error::InvalidObject(format!(
            "{name} is not a valid database name"
        )))
    }
}

/// Checks a (normalised) table name. `/` is allowed, as Hive does by default
/// (`metastore.support.special.characters.tablename`).
pub fn validate_table_name(name: &str) -> Result<()> {
    if is_valid_name(name, true) {
        Ok(())
    } else {
        Err(Error::InvalidObject(format!(
            "{name} is not a valid object name"
        )))
    }
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
        assert!(validate_database_name(&"x".repeat(NAME_LEN_MAX + 1)).is_err());
    }
}
