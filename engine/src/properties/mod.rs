//! Hive 4's property store (`org.apache.hadoop.hive.metastore.properties`): typed properties
//! of the cluster, of databases and of tables, kept apart from the catalog and set and
//! selected through `set_properties` and `get_properties`.
//!
//! Hive's model, as hivestore keeps it: a namespace (`hms`, `HMSPropertyManager`) declares
//! three schemas of typed properties. A key is split at each `.` not preceded by `\`; one
//! fragment names a cluster property, two a database's (`db.name`), three or more a table's
//! (`db.table.name`, the fragments past the third joining the map name, the last one the
//! property). The fragments but the last, after the namespace, name the property map the
//! value goes to (`hms.db.table`). A value is validated against its declared type and stored
//! as the type formats it; a key naming no declared property is refused. Maps are selected
//! by a prefix of their name, filtered by a predicate (`predicate.rs`) and answered keyed by
//! their name without the namespace, every declared property with its value or its default,
//! or only the properties of the selection when one is given.
//!
//! Hive declares the `hms` schemas empty and its tests declare properties in-process; a
//! Thrift client cannot declare any. hivestore's `hms` namespace declares the properties
//! Hive's own property tests declare ([`HMS_SCHEMAS`]), with their types and defaults.

pub mod predicate;
pub mod types;

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::{stored_value, ValueKind};
use crate::store::Store;

use predicate::Value;
use types::{CastError, PropertyType};

/// The one namespace declared (`HMSPropertyManager`).
pub const PROPERTY_NAMESPACE_HMS: &str = "hms";
/// The longest property key accepted, in bytes (hivestore's bound).
pub const PROPERTY_KEY_BYTES_MAX: usize = 1024;
/// The longest property value accepted, in bytes (hivestore's bound).
pub const PROPERTY_VALUE_BYTES_MAX: usize = 64 * 1024;
/// The most properties one `set_properties` may set (hivestore's bound).
pub const PROPERTY_SET_ENTRIES_MAX: usize = 10_000;
/// The longest map prefix accepted, in bytes (hivestore's bound).
pub const PROPERTY_PREFIX_BYTES_MAX: usize = 1024;
/// The most names a selection may hold (hivestore's bound).
pub const PROPERTY_SELECTION_MAX: usize = 256;
/// The most maps one `get_properties` answers: a prefix selecting more is refused
/// (hivestore's bound).
pub const PROPERTY_REPLY_MAPS_MAX: usize = 10_000;

/// A schema: the properties of one kind of map, with their types and defaults.
#[derive(Debug)]
pub struct PropertySchema {
    /// Hive's schema name: `cluster`, `database` or `table`.
    pub name: &'static str,
    /// The declared properties: name, type, default (as the type formats it).
    pub properties: &'static [(&'static str, PropertyType, Option<&'static str>)],
}

impl PropertySchema {
    fn declared(&self, name: &str) -> Option<(PropertyType, Option<&'static str>)> {
        self.properties
            .iter()
            .find(|(declared, _, _)| *declared == name)
            .map(|(_, kind, default)| (*kind, *default))
    }
}

/// The `hms` namespace's schemas, cluster, database and table, as Hive's property tests
/// (`HMSTestBase`, `HMSDirectTest`) declare them. The default of `creation date` there is
/// text its `date` type does not read, so it has none, as in Hive.
pub const HMS_SCHEMAS: [PropertySchema; 3] = [
    PropertySchema {
        name: "cluster",
        properties: &[("clstrp0", PropertyType::String, Some("Spark"))],
    },
    PropertySchema {
        name: "database",
        properties: &[("store", PropertyType::String, Some("ORC"))],
    },
    PropertySchema {
        name: "table",
        properties: &[
            ("creation date", PropertyType::Date, None),
            ("fillFactor", PropertyType::Double, Some("0.75")),
            ("id", PropertyType::Integer, None),
            ("maint_operation", PropertyType::MaintenanceOperation, None),
            ("maint_status", PropertyType::MaintenanceStatus, None),
            ("name", PropertyType::String, None),
            ("policy", PropertyType::Json, None),
            ("project", PropertyType::String, Some("Hive")),
            ("someb", PropertyType::Boolean, Some("false")),
            ("uuid", PropertyType::String, None),
        ],
    },
];

/// A stored property map: its properties' values, as their types format them, by name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PropertyMapRecord {
    /// Values by property name.
    pub values: BTreeMap<String, String>,
}

stored_value!(PropertyMapRecord, ValueKind::PropertyMap);

/// Hive's `splitKey`: fragments at each `.` not preceded by `\` (the `\` kept), trailing
/// empty fragments dropped as Java's `split` drops them; the key whole when nothing is left.
pub fn split_key(key: &str) -> Vec<String> {
    let mut fragments = Vec::new();
    let mut current = String::new();
    let mut previous = None;
    for c in key.chars() {
        if c == '.' && previous != Some('\\') {
            fragments.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
        previous = Some(c);
    }
    fragments.push(current);
    while fragments.last().is_some_and(String::is_empty) {
        fragments.pop();
    }
    if fragments.is_empty() {
        fragments.push(key.to_owned());
    }
    fragments
}

/// The schema of a key's fragments: one is the cluster's, two a database's, more a table's.
fn schema_of(fragment_count: usize) -> &'static PropertySchema {
    match fragment_count {
        1 => &HMS_SCHEMAS[0],
        2 => &HMS_SCHEMAS[1],
        _ => &HMS_SCHEMAS[2],
    }
}

/// The map key (`hms.db.table`) and the property name of a key's fragments.
fn map_key_and_property(namespace: &str, fragments: &[String]) -> (String, String) {
    let in_map = fragments.len().saturating_sub(1).min(HMS_SCHEMAS.len());
    let mut map_key = namespace.to_owned();
    for fragment in &fragments[..in_map] {
        map_key.push('.');
        map_key.push_str(fragment);
    }
    (map_key, fragments[in_map..].join("."))
}

/// Hive's `mapName`: the map key without its namespace.
fn map_name(map_key: &str) -> &str {
    match map_key.find('.') {
        Some(dot) if dot > 0 => &map_key[dot + 1..],
        _ => map_key,
    }
}

fn check_namespace(namespace: &str) -> Result<()> {
    if namespace == PROPERTY_NAMESPACE_HMS {
        Ok(())
    } else {
        Err(Error::NoSuchObject(crate::error::bounded_message(format!(
            "no PropertyManager namespace is declared, namespace {namespace}"
        ))))
    }
}

fn too_long(what: &str, length: usize, limit: usize) -> Error {
    Error::Refused(format!(
        "{what} is {length} bytes long, longer than the {limit} bytes allowed"
    ))
}

/// A property's value as a predicate sees it.
fn predicate_value(kind: PropertyType, text: &str) -> Value {
    match kind {
        PropertyType::Boolean => Value::Bool(text == "true"),
        PropertyType::Integer | PropertyType::Long => {
            text.parse().map(Value::Int).unwrap_or(Value::Null)
        }
        PropertyType::Double => types::parse_java_double(text)
            .map(Value::Double)
            .unwrap_or(Value::Null),
        PropertyType::Json => types::parse_json(text)
            .map(|json| Value::from_json(&json))
            .unwrap_or(Value::Null),
        _ => Value::Str(text.to_owned()),
    }
}

/// What `get_properties` asks for.
#[derive(Debug, Clone, Default)]
pub struct PropertyQuery<'a> {
    /// A prefix of the maps' names (all maps when unset or empty).
    pub prefix: Option<&'a str>,
    /// The predicate maps must meet (all maps when unset or empty).
    pub predicate: Option<&'a str>,
    /// The properties to answer (every declared one when unset or empty).
    pub selection: Option<&'a [String]>,
}

impl Store {
    /// Hive's `set_properties`: validates every key and value against the namespace's
    /// schemas and writes the maps they change in one batch; on any refusal nothing is
    /// written.
    pub fn set_properties(
        &self,
        namespace: &str,
        properties: &BTreeMap<String, String>,
    ) -> Result<()> {
        check_namespace(namespace)?;
        if properties.len() > PROPERTY_SET_ENTRIES_MAX {
            return Err(Error::Refused(format!(
                "{} properties are more than the {PROPERTY_SET_ENTRIES_MAX} one call may set",
                properties.len()
            )));
        }
        // Validated values by map key, then property.
        let mut changes: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (key, value) in properties {
            if key.len() > PROPERTY_KEY_BYTES_MAX {
                return Err(too_long(
                    "A property key",
                    key.len(),
                    PROPERTY_KEY_BYTES_MAX,
                ));
            }
            if value.len() > PROPERTY_VALUE_BYTES_MAX {
                return Err(too_long(
                    &format!("The value of property {key}"),
                    value.len(),
                    PROPERTY_VALUE_BYTES_MAX,
                ));
            }
            let fragments = split_key(key);
            let schema = schema_of(fragments.len());
            let (map_key, name) = map_key_and_property(namespace, &fragments);
            let Some((kind, _)) = schema.declared(&name) else {
                return Err(Error::Refused(format!("property {name} is not declared")));
            };
            let canonical = kind.cast(value).map_err(|error| match error {
                CastError::NotOfType => {
                    Error::Refused(format!("property {name}, type {}, {value}", kind.name()))
                }
                CastError::NoEnumConstant(text) => Error::Refused(text),
            })?;
            changes.entry(map_key).or_default().insert(name, canonical);
        }
        if changes.is_empty() {
            return Ok(());
        }
        self.write(|txn| {
            for (map_key, values) in &changes {
                let key = keys::property_map_key(map_key);
                let mut record = match txn.view::<PropertyMapRecord>(&key)? {
                    Some(view) => view.to_owned()?,
                    None => PropertyMapRecord::default(),
                };
                record
                    .values
                    .extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
                txn.put_value(key, &record)?;
            }
            Ok(())
        })
    }

    /// Hive's `get_properties`: the maps whose names start with the prefix and that meet the
    /// predicate, by name without the namespace, with every declared property's value or
    /// default (or the selected properties only); maps left with no value are left out.
    pub fn select_properties(
        &self,
        namespace: &str,
        query: &PropertyQuery<'_>,
    ) -> Result<BTreeMap<String, BTreeMap<String, String>>> {
        check_namespace(namespace)?;
        let prefix = query.prefix.unwrap_or("");
        if prefix.len() > PROPERTY_PREFIX_BYTES_MAX {
            return Err(too_long(
                "The map prefix",
                prefix.len(),
                PROPERTY_PREFIX_BYTES_MAX,
            ));
        }
        let predicate = match query.predicate.filter(|text| !text.trim().is_empty()) {
            Some(text) => Some(predicate::parse(text).map_err(|why| {
                Error::Refused(crate::error::bounded_message(format!(
                    "The predicate is not supported: {why}; predicate: {text}"
                )))
            })?),
            None => None,
        };
        let selection: Vec<&str> = query
            .selection
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        if selection.len() > PROPERTY_SELECTION_MAX {
            return Err(Error::Refused(format!(
                "A selection of {} names is more than the {PROPERTY_SELECTION_MAX} allowed",
                selection.len()
            )));
        }
        for name in &selection {
            if name.len() > PROPERTY_KEY_BYTES_MAX {
                return Err(too_long(
                    "A selected name",
                    name.len(),
                    PROPERTY_KEY_BYTES_MAX,
                ));
            }
            let plain = name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | ' ' | '-'));
            if !plain {
                return Err(Error::Refused(crate::error::bounded_message(format!(
                    "The selection is not supported, only property names are: {name}"
                ))));
            }
        }
        let mut map_key = namespace.to_owned();
        if !prefix.is_empty() {
            map_key.push('.');
            map_key.push_str(prefix);
        }
        let mut answer = BTreeMap::new();
        for entry in self.scan(KeyRange::prefix(&keys::property_map_key(&map_key))) {
            let (key, _) = entry?;
            let stored_key = keys::decode_property_map_key(&key)?;
            let Some(view) = self.view::<PropertyMapRecord>(&key)? else {
                continue;
            };
            let record = view.to_owned()?;
            if record.values.is_empty() {
                continue;
            }
            let schema = schema_of(split_key(&stored_key).len());
            let value_of = |name: &str| -> Option<(PropertyType, String)> {
                let (kind, default) = schema.declared(name)?;
                let text = record
                    .values
                    .get(name)
                    .cloned()
                    .or_else(|| default.map(str::to_owned))?;
                Some((kind, text))
            };
            if let Some(predicate) = &predicate {
                let lookup = |name: &str| match value_of(name) {
                    Some((kind, text)) => predicate_value(kind, &text),
                    None => Value::Null,
                };
                if predicate::evaluate(predicate, &lookup) != Value::Bool(true) {
                    continue;
                }
            }
            let exported: BTreeMap<String, String> = if selection.is_empty() {
                schema
                    .properties
                    .iter()
                    .filter_map(|(name, _, _)| {
                        value_of(name).map(|(_, text)| ((*name).to_owned(), text))
                    })
                    .collect()
            } else {
                selection
                    .iter()
                    .filter_map(|name| value_of(name).map(|(_, text)| ((*name).to_owned(), text)))
                    .collect()
            };
            if exported.is_empty() {
                continue;
            }
            if answer.len() == PROPERTY_REPLY_MAPS_MAX {
                return Err(Error::Refused(format!(
                    "More than {PROPERTY_REPLY_MAPS_MAX} property maps match; give a longer \
                     prefix or a predicate"
                )));
            }
            answer.insert(map_name(&stored_key).to_owned(), exported);
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory_store_with_databases;

    fn set(store: &Store, pairs: &[(&str, &str)]) -> Result<()> {
        let map = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        store.set_properties("hms", &map)
    }

    #[test]
    fn keys_split_as_hive_splits_them() {
        assert_eq!(split_key("a.b.c"), ["a", "b", "c"]);
        assert_eq!(split_key("a\\.b.c"), ["a\\.b", "c"]);
        assert_eq!(split_key("a.b."), ["a", "b"]);
        assert_eq!(split_key(".x"), ["", "x"]);
        assert_eq!(split_key("..."), ["..."]);
        let fragments = split_key("db.t.x.y");
        assert_eq!(
            map_key_and_property("hms", &fragments),
            ("hms.db.t.x".to_owned(), "y".to_owned())
        );
        assert_eq!(map_name("hms.db.t"), "db.t");
        assert_eq!(map_name("hms"), "hms");
    }

    #[test]
    fn set_then_select_by_prefix_predicate_and_selection() {
        let store = memory_store_with_databases(&[]);
        for i in 0..4 {
            let t = format!("db0.table{i}.");
            set(
                &store,
                &[
                    (&format!("{t}id"), &(1000 + i).to_string()),
                    (&format!("{t}fillFactor"), &(100 - i).to_string()),
                    (
                        &format!("{t}someb"),
                        if i % 2 == 0 { "true" } else { "false" },
                    ),
                ],
            )
            .unwrap();
        }
        set(&store, &[("db0.store", "parquet"), ("clstrp0", "Trino")]).unwrap();
        let all = store
            .select_properties("hms", &PropertyQuery::default())
            .unwrap();
        assert_eq!(all.len(), 6);
        assert_eq!(all["hms"]["clstrp0"], "Trino");
        assert_eq!(all["db0"]["store"], "parquet");
        let t0 = &all["db0.table0"];
        assert_eq!(t0["fillFactor"], "100.0");
        assert_eq!(t0["project"], "Hive");
        assert_eq!(t0["id"], "1000");
        assert!(!t0.contains_key("name"));
        let tables = store
            .select_properties(
                "hms",
                &PropertyQuery {
                    prefix: Some("db0.table"),
                    predicate: Some("someb && fillFactor < 100"),
                    selection: Some(&["id".to_owned(), "name".to_owned()]),
                },
            )
            .unwrap();
        assert_eq!(tables.keys().collect::<Vec<_>>(), ["db0.table2"]);
        assert_eq!(
            tables["db0.table2"],
            BTreeMap::from([("id".to_owned(), "1002".to_owned())])
        );
    }

    #[test]
    fn refusals_change_nothing() {
        let store = memory_store_with_databases(&[]);
        let error = set(&store, &[("db.t.id", "1"), ("db.t.nope", "x")]).unwrap_err();
        assert_eq!(error.to_string(), "property nope is not declared");
        let error = set(&store, &[("db.t.id", "one")]).unwrap_err();
        assert_eq!(error.to_string(), "property id, type integer, one");
        assert!(store
            .select_properties("hms", &PropertyQuery::default())
            .unwrap()
            .is_empty());
        assert!(matches!(
            store.set_properties("other", &BTreeMap::new()),
            Err(Error::NoSuchObject(_))
        ));
        let long_key = "k".repeat(PROPERTY_KEY_BYTES_MAX + 1);
        assert!(set(&store, &[(&long_key, "1")]).is_err());
        let long_value = "v".repeat(PROPERTY_VALUE_BYTES_MAX + 1);
        assert!(set(&store, &[("db.t.name", &long_value)]).is_err());
        let many: BTreeMap<String, String> = (0..=PROPERTY_SET_ENTRIES_MAX)
            .map(|i| (format!("db.t{i}.id"), "1".to_owned()))
            .collect();
        assert!(store.set_properties("hms", &many).is_err());
        let selection: Vec<String> = (0..=PROPERTY_SELECTION_MAX)
            .map(|i| i.to_string())
            .collect();
        let query = PropertyQuery {
            selection: Some(&selection),
            ..PropertyQuery::default()
        };
        assert!(store.select_properties("hms", &query).is_err());
    }
}
