//! The schema registry: schemas (`ISchema`) per catalog, database and name, and their
//! numbered versions, stored under the database's id so that a database's schemas are one key
//! range and a schema's versions follow it in version order. Hive's messages name a schema
//! and a version as its Thrift `toString` prints `ISchemaName` and
//! `SchemaVersionDescriptor`; [`SchemaName`] writes both.

use std::fmt;

use crate::catalog::lookup::{catalog_or_default, find_database_id};
use crate::error::{Error, Result};
use crate::model::names;
use crate::model::registry::{ISchema, SchemaVersion};
use crate::registry::check_len;
use crate::storage::keys::{self, DatabaseId, SchemaKey};
use crate::storage::kv::KeyRange;
use crate::store::{Store, WriteTxn};

/// The longest schema name accepted, in bytes (Hive's `I_SCHEMA.NAME varchar(256)`).
pub const SCHEMA_NAME_LEN_MAX: usize = 256;

/// A schema as a call names it (Hive's `ISchemaName`), as given; lookups normalise it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaName {
    /// The catalog; `None` means `hive`.
    pub catalog: Option<String>,
    /// The database.
    pub database: Option<String>,
    /// The schema.
    pub schema: Option<String>,
}

impl fmt::Display for SchemaName {
    /// As Thrift's `ISchemaName.toString` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |value: &Option<String>| value.clone().unwrap_or_else(|| "null".to_string());
        write!(
            f,
            "ISchemaName(catName:{}, dbName:{}, schemaName:{})",
            show(&self.catalog),
            show(&self.database),
            show(&self.schema)
        )
    }
}

impl SchemaName {
    /// Version `version` of this schema as Thrift's `SchemaVersionDescriptor.toString`
    /// prints it.
    pub fn describe_version(&self, version: i32) -> String {
        format!("SchemaVersionDescriptor(schema:{self}, version:{version})")
    }

    fn normalized(&self) -> (String, String, String) {
        let catalog = catalog_or_default(self.catalog.as_deref().unwrap_or_default());
        let database = names::normalize(self.database.as_deref().unwrap_or_default());
        let schema = names::normalize(self.schema.as_deref().unwrap_or_default());
        (catalog, database, schema)
    }

    /// The key of the schema, when its database exists.
    fn key(
        &self,
        reader: &dyn crate::storage::kv::KvBackend,
    ) -> Result<Option<(DatabaseId, String)>> {
        let (catalog, database, schema) = self.normalized();
        Ok(find_database_id(reader, &catalog, &database)?.map(|id| (id, schema)))
    }
}

/// A version found by [`Store::find_schemas_by_columns`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundSchemaVersion {
    /// The catalog.
    pub catalog: String,
    /// The database.
    pub database: String,
    /// The schema.
    pub schema: String,
    /// The version.
    pub version: i32,
}

impl Store {
    /// Hive's `create_ischema`: `schema` in its database (`cat_name` empty means `hive`), its
    /// names normalised. A missing database is `NoSuchObject`, a name taken
    /// `AlreadyExists`.
    pub fn create_schema(&self, schema: ISchema) -> Result<()> {
        let mut schema = schema;
        let (given_database, given_name) = (schema.db_name.clone(), schema.name.clone());
        check_len("schema name", &schema.name, SCHEMA_NAME_LEN_MAX)?;
        schema.cat_name = catalog_or_default(&schema.cat_name);
        schema.db_name = names::normalize(&schema.db_name);
        schema.name = names::normalize(&schema.name);
        if schema.name.is_empty() {
            return Err(Error::Refused("A schema needs a name".to_string()));
        }
        self.write(|txn| {
            let Some(id) = find_database_id(txn.reader(), &schema.cat_name, &schema.db_name)?
            else {
                return Err(Error::NoSuchObject(format!(
                    "There is no database {}.{}",
                    schema.cat_name, schema.db_name
                )));
            };
            let key = keys::schema_key(id, &schema.name);
            if txn.get(&key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Schema with name {given_database}.{given_name} already exists"
                )));
            }
            txn.put_value(key, &schema)
        })
    }

    /// Schema `name`, if it exists.
    pub fn get_schema(&self, name: &SchemaName) -> Result<Option<ISchema>> {
        let Some((id, schema)) = name.key(self.reader())? else {
            return Ok(None);
        };
        match self.view::<ISchema>(&keys::schema_key(id, &schema))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Hive's `alter_ischema`: replaces the compatibility, validation level and evolvability
    /// of schema `name`, and its group and description when `new` has them; its name and
    /// type stay. A missing schema is `NoSuchObject`.
    pub fn alter_schema(&self, name: &SchemaName, new: ISchema) -> Result<ISchema> {
        self.write(|txn| {
            let (key, old) = require_schema(txn, name, || format!("Could not find schema {name}"))?;
            let altered = ISchema {
                compatibility: new.compatibility,
                validation_level: new.validation_level,
                can_evolve: new.can_evolve,
                schema_group: new.schema_group.clone().or(old.schema_group.clone()),
                description: new.description.clone().or(old.description.clone()),
                ..old
            };
            txn.put_value(key, &altered)?;
            Ok(altered)
        })
    }

    /// Hive's `drop_ischema`: a schema with a version is `InvalidOperation`, a missing one
    /// `NoSuchObject`.
    pub fn drop_schema(&self, name: &SchemaName) -> Result<ISchema> {
        self.write(|txn| {
            let missing = || format!("Schema {name} does not exist");
            let (key, schema) = require_schema(txn, name, missing)?;
            let versions = txn.scan(KeyRange::prefix(&key)).nth(1).transpose()?;
            if versions.is_some() {
                return Err(Error::InvalidOperation(format!(
                    "Schema {name} cannot be dropped, it has at least one valid version"
                )));
            }
            txn.delete(key);
            Ok(schema)
        })
    }

    /// Hive's `add_schema_version`: `version` of schema `name`, its column names in lower
    /// case. A missing schema is `NoSuchObject`, a version number taken `AlreadyExists`.
    pub fn add_schema_version(&self, name: &SchemaName, version: SchemaVersion) -> Result<()> {
        let mut version = version;
        for column in &mut version.cols {
            column.name = column.name.to_lowercase();
        }
        self.write(|txn| {
            let (key, schema) = require_schema(txn, name, || format!("No schema named {name}"))?;
            // A version's key is its schema's key and the number.
            let mut version_key = key;
            version_key.extend_from_slice(&keys::schema_version_suffix(version.version));
            if txn.get(&version_key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Schema name {name} version {} already exists",
                    version.version
                )));
            }
            let stored = SchemaVersion {
                cat_name: schema.cat_name,
                db_name: schema.db_name,
                schema_name: schema.name,
                ..version.clone()
            };
            txn.put_value(version_key, &stored)
        })
    }

    /// Version `version` of schema `name`, if both exist.
    pub fn get_schema_version(
        &self,
        name: &SchemaName,
        version: i32,
    ) -> Result<Option<SchemaVersion>> {
        let Some((id, schema)) = name.key(self.reader())? else {
            return Ok(None);
        };
        match self.view::<SchemaVersion>(&keys::schema_version_key(id, &schema, version))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Every version of schema `name`, the latest first (Hive orders them so); none when
    /// the schema does not exist.
    pub fn schema_versions(&self, name: &SchemaName) -> Result<Vec<SchemaVersion>> {
        let Some((id, schema)) = name.key(self.reader())? else {
            return Ok(Vec::new());
        };
        let mut versions = Vec::new();
        for entry in self.scan(KeyRange::prefix(&keys::schema_key(id, &schema))) {
            let (key, _) = entry?;
            if let SchemaKey::Version(..) = keys::decode_schema_key(&key)? {
                if let Some(view) = self.view::<SchemaVersion>(&key)? {
                    versions.push(view.to_owned()?);
                }
            }
        }
        versions.reverse();
        Ok(versions)
    }

    /// Hive's `drop_schema_version`; a missing version is `NoSuchObject`.
    pub fn drop_schema_version(&self, name: &SchemaName, version: i32) -> Result<SchemaVersion> {
        self.write(|txn| {
            let (key, found) = require_version(txn, name, version)?;
            txn.delete(key);
            Ok(found)
        })
    }

    /// Hive's `map_schema_version_to_serde`: version `version` of schema `name` is read with
    /// the SerDe registered as `serde`. Either missing is `NoSuchObject`.
    pub fn map_schema_version_to_serde(
        &self,
        name: &SchemaName,
        version: i32,
        serde: &str,
    ) -> Result<SchemaVersion> {
        self.write(|txn| {
            let (key, found) = require_version(txn, name, version)?;
            let Some(serde_info) = crate::registry::serdes::find_serde(txn, serde)? else {
                return Err(Error::NoSuchObject(format!("No SerDe named {serde}")));
            };
            let altered = SchemaVersion {
                serde: Some(serde_info),
                ..found
            };
            txn.put_value(key, &altered)?;
            Ok(altered)
        })
    }

    /// Hive's `set_schema_version_state`: `state` as Hive numbers `SchemaVersionState`.
    pub fn set_schema_version_state(
        &self,
        name: &SchemaName,
        version: i32,
        state: i32,
    ) -> Result<SchemaVersion> {
        self.write(|txn| {
            let (key, found) = require_version(txn, name, version)?;
            let altered = SchemaVersion { state, ..found };
            txn.put_value(key, &altered)?;
            Ok(altered)
        })
    }

    /// Hive's `get_schemas_by_cols`: the versions with a column named `column` (compared in
    /// lower case), whose comment is `namespace`, of type `type_name` (compared in lower
    /// case), each given condition holding for one column. A query with neither a name nor a
    /// namespace is refused, as Hive refuses it.
    pub fn find_schemas_by_columns(
        &self,
        column: Option<&str>,
        namespace: Option<&str>,
        type_name: Option<&str>,
    ) -> Result<Vec<FoundSchemaVersion>> {
        if column.is_none() && namespace.is_none() {
            return Err(Error::Refused(
                "You must specify column name or column namespace, else your query may be too large"
                    .to_string(),
            ));
        }
        let column = column.map(names::normalize);
        let type_name = type_name.map(names::normalize);
        let mut found = Vec::new();
        for entry in self.scan(KeyRange::prefix(&[keys::KEYSPACE_SCHEMA])) {
            let (key, _) = entry?;
            let SchemaKey::Version(..) = keys::decode_schema_key(&key)? else {
                continue;
            };
            let Some(view) = self.view::<SchemaVersion>(&key)? else {
                continue;
            };
            let version = view.to_owned()?;
            let matches = version.cols.iter().any(|col| {
                column.as_ref().is_none_or(|name| &col.name == name)
                    && namespace.is_none_or(|space| col.comment.as_deref() == Some(space))
                    && type_name.as_ref().is_none_or(|kind| &col.type_name == kind)
            });
            if matches {
                found.push(FoundSchemaVersion {
                    catalog: version.cat_name,
                    database: version.db_name,
                    schema: version.schema_name,
                    version: version.version,
                });
            }
        }
        Ok(found)
    }
}

/// Whether database `id` holds a schema.
pub(crate) fn has_schemas(txn: &WriteTxn<'_>, id: DatabaseId) -> Result<bool> {
    let range = KeyRange::prefix(&keys::schema_database_prefix(id));
    Ok(txn.scan(range).next().transpose()?.is_some())
}

/// Schema `name`'s key and value; `missing` is the message when it does not exist.
fn require_schema(
    txn: &WriteTxn<'_>,
    name: &SchemaName,
    missing: impl Fn() -> String,
) -> Result<(Vec<u8>, ISchema)> {
    if let Some((id, schema)) = name.key(txn.reader())? {
        let key = keys::schema_key(id, &schema);
        if let Some(view) = txn.view::<ISchema>(&key)? {
            return Ok((key, view.to_owned()?));
        }
    }
    Err(Error::NoSuchObject(missing()))
}

/// Version `version` of schema `name`: its key and value, or Hive's `NoSuchObject`.
fn require_version(
    txn: &WriteTxn<'_>,
    name: &SchemaName,
    version: i32,
) -> Result<(Vec<u8>, SchemaVersion)> {
    if let Some((id, schema)) = name.key(txn.reader())? {
        let key = keys::schema_version_key(id, &schema, version);
        if let Some(view) = txn.view::<SchemaVersion>(&key)? {
            return Ok((key, view.to_owned()?));
        }
    }
    Err(Error::NoSuchObject(format!(
        "No schema version {}",
        name.describe_version(version)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::table::{FieldSchema, SerDeInfo};

    fn store() -> Store {
        crate::store::memory_store_with_databases(&["db"])
    }

    fn schema(name: &str) -> ISchema {
        ISchema {
            schema_type: 2,
            name: name.into(),
            cat_name: String::new(),
            db_name: "DB".into(),
            compatibility: 2,
            validation_level: 2,
            can_evolve: true,
            schema_group: Some("g".into()),
            description: None,
        }
    }

    fn name(schema: &str) -> SchemaName {
        SchemaName {
            catalog: Some("hive".into()),
            database: Some("db".into()),
            schema: Some(schema.into()),
        }
    }

    fn version(number: i32, columns: &[(&str, &str, Option<&str>)]) -> SchemaVersion {
        let cols = columns.iter().map(|(name, kind, comment)| FieldSchema {
            name: name.to_string(),
            type_name: kind.to_string(),
            comment: comment.map(str::to_string),
        });
        SchemaVersion {
            version: number,
            created_at: 10,
            cols: cols.collect(),
            ..SchemaVersion::default()
        }
    }

    #[test]
    fn schemas_live_in_their_database() {
        let store = store();
        store.create_schema(schema("Orders")).unwrap();
        let found = store.get_schema(&name("ORDERS")).unwrap().unwrap();
        assert_eq!(
            (found.cat_name.as_str(), found.db_name.as_str()),
            ("hive", "db")
        );
        assert_eq!(found.name, "orders");
        assert_eq!(
            store.create_schema(schema("orders")).unwrap_err(),
            Error::AlreadyExists("Schema with name DB.orders already exists".into())
        );
        let mut lost = schema("x");
        lost.db_name = "nowhere".into();
        assert_eq!(
            store.create_schema(lost).unwrap_err(),
            Error::NoSuchObject("There is no database hive.nowhere".into())
        );
        let new = ISchema {
            compatibility: 4,
            description: Some("d".into()),
            schema_group: None,
            ..schema("ignored")
        };
        let altered = store.alter_schema(&name("orders"), new).unwrap();
        assert_eq!(altered.name, "orders");
        assert_eq!(altered.compatibility, 4);
        assert_eq!(altered.schema_group.as_deref(), Some("g"));
        assert_eq!(altered.description.as_deref(), Some("d"));
        let missing = name("missing");
        assert_eq!(
            store.alter_schema(&missing, schema("m")).unwrap_err(),
            Error::NoSuchObject(
                "Could not find schema ISchemaName(catName:hive, dbName:db, schemaName:missing)"
                    .into()
            )
        );
    }

    #[test]
    fn versions_are_numbered_and_block_the_drop() {
        let store = store();
        store.create_schema(schema("s")).unwrap();
        for number in [2, -1, 10] {
            let v = version(number, &[("Alpha", "int", Some("ns=x"))]);
            store.add_schema_version(&name("s"), v).unwrap();
        }
        let numbers: Vec<i32> = store
            .schema_versions(&name("s"))
            .unwrap()
            .iter()
            .map(|v| v.version)
            .collect();
        assert_eq!(numbers, vec![10, 2, -1]);
        let stored = store.get_schema_version(&name("s"), 2).unwrap().unwrap();
        assert_eq!(stored.cols[0].name, "alpha");
        assert_eq!(stored.schema_name, "s");
        assert!(matches!(
            store.add_schema_version(&name("s"), version(2, &[])),
            Err(Error::AlreadyExists(_))
        ));
        assert!(matches!(
            store.add_schema_version(&name("none"), version(1, &[])),
            Err(Error::NoSuchObject(_))
        ));
        assert!(matches!(
            store.drop_schema(&name("s")),
            Err(Error::InvalidOperation(_))
        ));
        assert!(matches!(
            store.drop_database("hive", "db", true),
            Err(Error::InvalidOperation(_))
        ));
        for number in [2, -1, 10] {
            store.drop_schema_version(&name("s"), number).unwrap();
        }
        assert_eq!(
            store.drop_schema_version(&name("s"), 2).unwrap_err(),
            Error::NoSuchObject(
                "No schema version SchemaVersionDescriptor(schema:ISchemaName(catName:hive, \
                 dbName:db, schemaName:s), version:2)"
                    .into()
            )
        );
        store.drop_schema(&name("s")).unwrap();
        assert_eq!(store.get_schema(&name("s")).unwrap(), None);
        store.drop_database("hive", "db", true).unwrap();
    }

    #[test]
    fn states_serdes_and_column_search() {
        let store = store();
        store.create_schema(schema("a")).unwrap();
        store.create_schema(schema("b")).unwrap();
        let a1 = version(1, &[("alpha", "bigint", None), ("beta", "date", None)]);
        let b1 = version(
            1,
            &[
                ("ALPHA", "smallint", None),
                ("gamma", "string", Some("ns=x")),
            ],
        );
        store.add_schema_version(&name("a"), a1).unwrap();
        store.add_schema_version(&name("b"), b1).unwrap();
        let found = |column, space, kind| {
            store
                .find_schemas_by_columns(column, space, kind)
                .unwrap()
                .into_iter()
                .map(|found| (found.schema, found.version))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            found(Some("Alpha"), None, None),
            vec![("a".into(), 1), ("b".into(), 1)]
        );
        assert_eq!(
            found(Some("alpha"), None, Some("SMALLINT")),
            vec![("b".into(), 1)]
        );
        assert_eq!(found(None, Some("ns=x"), None), vec![("b".into(), 1)]);
        assert!(found(Some("alpha"), Some("ns=x"), None).is_empty());
        assert!(matches!(
            store.find_schemas_by_columns(None, None, Some("int")),
            Err(Error::Refused(_))
        ));

        store.set_schema_version_state(&name("a"), 1, 4).unwrap();
        assert_eq!(
            store
                .get_schema_version(&name("a"), 1)
                .unwrap()
                .unwrap()
                .state,
            4
        );
        assert_eq!(
            store
                .map_schema_version_to_serde(&name("a"), 1, "avro")
                .unwrap_err(),
            Error::NoSuchObject("No SerDe named avro".into())
        );
        let serde = SerDeInfo {
            name: Some("avro".into()),
            serialization_lib: Some("lib".into()),
            ..SerDeInfo::default()
        };
        store.add_serde(serde.clone()).unwrap();
        assert_eq!(
            store.add_serde(serde.clone()).unwrap_err(),
            Error::AlreadyExists("Serde with name avro already exists".into())
        );
        store
            .map_schema_version_to_serde(&name("a"), 1, "avro")
            .unwrap();
        let mapped = store.get_schema_version(&name("a"), 1).unwrap().unwrap();
        assert_eq!(mapped.serde, Some(serde));
        assert!(matches!(
            store.set_schema_version_state(&name("a"), 7, 1),
            Err(Error::NoSuchObject(_))
        ));
    }
}
