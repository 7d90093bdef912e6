//! Hive 4's `TransactionalValidationListener`: the rules for the `transactional` and
//! `transactional_properties` table parameters on create and alter, for tables of catalog
//! `hive`. Refusals are `MetaException`s ([`Error::Refused`]) with Hive's messages.
//!
//! Not checked, unlike Hive: the names of the data files of a table turned full ACID by an
//! alter (Hive lists the directories and refuses files not named as Hive writes them), and no
//! write id is seeded for it. Tables are never made ACID by default (Hive's
//! `metastore.create.as.acid` is off by default).

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::table::{Table, EXTERNAL_TABLE, MANAGED_TABLE};

const TRANSACTIONAL: &str = "transactional";
const TRANSACTIONAL_PROPERTIES: &str = "transactional_properties";
const DEFAULT_PROPERTIES: &str = "default";
const INSERT_ONLY: &str = "insert_only";
/// The only catalog Hive's listener checks.
const CHECKED_CATALOG: &str = "hive";
/// The input and output formats that implement Hive's `AcidInputFormat` and
/// `AcidOutputFormat`: ORC's.
const ACID_INPUT_FORMATS: &[&str] = &["org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"];
const ACID_OUTPUT_FORMATS: &[&str] = &["org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"];

/// Checks and normalises the transactional parameters of a table about to be created:
/// `transactional` may only be `true` (any case, stored `true`) or `false` (dropped, as absent);
/// a transactional table is managed, and stored in an ACID format unless insert-only; its
/// `transactional_properties` default to `default` and are `default` or `insert_only`; a full
/// ACID table is not sorted.
pub(crate) fn check_create(table: &mut Table) -> Result<()> {
    if !checked(table) {
        return Ok(());
    }
    let Some(transactional) = take_any_case(&mut table.parameters, TRANSACTIONAL) else {
        return Ok(());
    };
    if transactional.eq_ignore_ascii_case("false") {
        return Ok(());
    }
    if !transactional.eq_ignore_ascii_case("true") {
        return Err(Error::Refused(format!(
            "'transactional' property of TBLPROPERTIES may only have value 'true': {}",
            qualified(table)
        )));
    }
    let properties = get_any_case(&table.parameters, TRANSACTIONAL_PROPERTIES).cloned();
    let insert_only = properties
        .as_deref()
        .is_some_and(|value| value.eq_ignore_ascii_case(INSERT_ONLY));
    if !insert_only && !conforms_to_acid(table) {
        return Err(not_acid_format(table));
    }
    if table.is_external() || table.table_type.as_deref() == Some(EXTERNAL_TABLE) {
        return Err(external(table));
    }
    table
        .parameters
        .insert(TRANSACTIONAL.to_string(), "true".to_string());
    if properties.is_none() {
        table.parameters.insert(
            TRANSACTIONAL_PROPERTIES.to_string(),
            DEFAULT_PROPERTIES.to_string(),
        );
    }
    normalize_properties(table)?;
    check_not_sorted(table)
}

/// Checks and normalises the transactional parameters of an alter from `old` to `new`: a
/// transactional table stays so (`true` cannot become anything else, unless insert-only) and
/// stays managed; a table made transactional must meet the rules of create; its
/// `transactional_properties` cannot change afterwards.
pub(crate) fn check_alter(old: &Table, new: &mut Table) -> Result<()> {
    if !checked(new) || new.parameters.is_empty() {
        return Ok(());
    }
    let mut transactional = take_any_case(&mut new.parameters, TRANSACTIONAL);
    let properties = get_any_case(&new.parameters, TRANSACTIONAL_PROPERTIES).cloned();
    let old_transactional = get_any_case(&old.parameters, TRANSACTIONAL).cloned();
    let old_properties = get_any_case(&old.parameters, TRANSACTIONAL_PROPERTIES).cloned();
    let old_insert_only = old_properties
        .as_deref()
        .is_some_and(|value| value.eq_ignore_ascii_case(INSERT_ONLY));
    if transactional
        .as_deref()
        .is_some_and(|value| value.eq_ignore_ascii_case("false"))
    {
        transactional = None;
    }
    if let Some(value) = &transactional {
        if old.table_type.as_deref() == Some(MANAGED_TABLE)
            && new.table_type.as_deref() == Some(EXTERNAL_TABLE)
        {
            return Err(Error::Refused(format!(
                "{} cannot be converted to external table as it is transactional table.",
                qualified(new)
            )));
        }
        new.parameters
            .insert(TRANSACTIONAL.to_string(), value.clone());
    }
    let is_true = |value: &Option<String>| {
        value
            .as_deref()
            .is_some_and(|value| value.eq_ignore_ascii_case("true"))
    };
    let mut valid = false;
    let mut properties = properties;
    if is_true(&transactional) && !is_true(&old_transactional) {
        if properties.is_none() {
            new.parameters.insert(
                TRANSACTIONAL_PROPERTIES.to_string(),
                DEFAULT_PROPERTIES.to_string(),
            );
            properties = Some(DEFAULT_PROPERTIES.to_string());
        }
        let full_acid = !properties
            .as_deref()
            .is_some_and(|value| value.eq_ignore_ascii_case(INSERT_ONLY));
        if full_acid && !conforms_to_acid(new) {
            return Err(not_acid_format(new));
        }
        if new.table_type.as_deref() == Some(EXTERNAL_TABLE) {
            return Err(external(new));
        }
        valid = true;
    }
    let unchanged = match (&old_transactional, &transactional) {
        (None, None) => true,
        (Some(old), Some(new)) => old.eq_ignore_ascii_case(new),
        _ => false,
    };
    if !valid && !unchanged && !old_insert_only {
        return Err(Error::Refused(format!(
            "TBLPROPERTIES with 'transactional'='true' cannot be unset: {}",
            qualified(new)
        )));
    }
    if let Some(properties) = &properties {
        if old_transactional.is_none() {
            normalize_properties(new)?;
        } else {
            let same = old_properties
                .as_deref()
                .is_some_and(|old| old.eq_ignore_ascii_case(properties));
            if !same && !old_insert_only {
                return Err(Error::Refused(
                    "TBLPROPERTIES with 'transactional_properties' cannot be altered after the \
                     table is created"
                        .to_string(),
                ));
            }
        }
    }
    check_not_sorted(new)
}

fn checked(table: &Table) -> bool {
    table.cat_name.is_empty() || table.cat_name.eq_ignore_ascii_case(CHECKED_CATALOG)
}

/// `db.table`, as Hive's `Warehouse.getQualifiedName` names a table.
fn qualified(table: &Table) -> String {
    format!("{}.{}", table.db_name, table.table_name)
}

fn not_acid_format(table: &Table) -> Error {
    Error::Refused(format!(
        "The table must be stored using an ACID compliant format (such as ORC): {}",
        qualified(table)
    ))
}

fn external(table: &Table) -> Error {
    Error::Refused(format!(
        "{} cannot be declared transactional because it's an external table",
        qualified(table)
    ))
}

/// Whether the table's input and output formats are ACID capable.
fn conforms_to_acid(table: &Table) -> bool {
    let Some(sd) = table.sd.as_ref() else {
        return false;
    };
    let listed = |format: &Option<String>, formats: &[&str]| {
        format
            .as_deref()
            .is_some_and(|format| formats.contains(&format))
    };
    listed(&sd.input_format, ACID_INPUT_FORMATS) && listed(&sd.output_format, ACID_OUTPUT_FORMATS)
}

/// `transactional_properties` stored lowercased under its own name; only `default` and
/// `insert_only` are known.
fn normalize_properties(table: &mut Table) -> Result<()> {
    let Some(value) = take_any_case(&mut table.parameters, TRANSACTIONAL_PROPERTIES) else {
        return Ok(());
    };
    let value = value.to_lowercase();
    if value != DEFAULT_PROPERTIES && value != INSERT_ONLY {
        return Err(Error::Refused(format!(
            "Invalid transactional properties specified for {} with the error unknown value \
             {value} for transactional_properties",
            qualified(table)
        )));
    }
    table
        .parameters
        .insert(TRANSACTIONAL_PROPERTIES.to_string(), value);
    Ok(())
}

/// A full ACID table cannot be sorted.
fn check_not_sorted(table: &Table) -> Result<()> {
    let transactional = get_any_case(&table.parameters, TRANSACTIONAL)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"));
    let insert_only = get_any_case(&table.parameters, TRANSACTIONAL_PROPERTIES)
        .is_some_and(|value| value.eq_ignore_ascii_case(INSERT_ONLY));
    let sorted = table.sd.as_ref().is_some_and(|sd| !sd.sort_cols.is_empty());
    if transactional && !insert_only && sorted {
        return Err(Error::Refused(format!(
            "Table {} cannot support full ACID functionality since it is sorted.",
            qualified(table)
        )));
    }
    Ok(())
}

/// Removes every key equal to `key` but for case; the value of the last one in key order.
fn take_any_case(parameters: &mut BTreeMap<String, String>, key: &str) -> Option<String> {
    let keys: Vec<String> = parameters
        .keys()
        .filter(|name| name.eq_ignore_ascii_case(key))
        .cloned()
        .collect();
    keys.into_iter()
        .filter_map(|name| parameters.remove(&name))
        .last()
}

fn get_any_case<'a>(parameters: &'a BTreeMap<String, String>, key: &str) -> Option<&'a String> {
    parameters
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(key))
        .map(|(_, value)| value)
}
