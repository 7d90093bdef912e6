//! What Hive keeps beside the catalog: its old type registry (`Type`), the schema registry
//! (`ISchema`, `SchemaVersion`) and SerDes registered by name. Enumerations are kept as
//! Hive's Thrift numbers them (`SchemaType`, `SchemaCompatibility`, `SchemaValidation`,
//! `SchemaVersionState`): the registry stores them and never acts on them.

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::table::{FieldSchema, SerDeInfo};
use crate::storage::values::{stored_value, ValueKind};

/// Hive's `Type`: a named type of the old type registry, with its fields.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct TypeDef {
    /// The name, as given.
    pub name: String,
    /// `type1`, as given.
    pub type1: Option<String>,
    /// `type2`, as given.
    pub type2: Option<String>,
    /// The fields, in the order given.
    pub fields: Vec<FieldSchema>,
}

stored_value!(TypeDef, ValueKind::TypeDef);

/// Hive's `ISchema`: a schema of the registry, one per catalog, database and name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct ISchema {
    /// `SchemaType` as Hive numbers it (1 `HIVE`, 2 `AVRO`).
    pub schema_type: i32,
    /// The name, normalised.
    pub name: String,
    /// The catalog, normalised.
    pub cat_name: String,
    /// The database, normalised.
    pub db_name: String,
    /// `SchemaCompatibility` as Hive numbers it.
    pub compatibility: i32,
    /// `SchemaValidation` as Hive numbers it.
    pub validation_level: i32,
    /// Whether the schema may evolve.
    pub can_evolve: bool,
    /// The schema's group.
    pub schema_group: Option<String>,
    /// A description.
    pub description: Option<String>,
}

stored_value!(ISchema, ValueKind::Schema);

/// Hive's `SchemaVersion`: one numbered version of a registered schema.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct SchemaVersion {
    /// The schema's catalog, normalised.
    pub cat_name: String,
    /// The schema's database, normalised.
    pub db_name: String,
    /// The schema's name, normalised.
    pub schema_name: String,
    /// The version number.
    pub version: i32,
    /// When the version was created, as the client gave it.
    pub created_at: i64,
    /// The columns, names in lower case as Hive stores them.
    pub cols: Vec<FieldSchema>,
    /// `SchemaVersionState` as Hive numbers it; 0 when unset.
    pub state: i32,
    /// A description.
    pub description: Option<String>,
    /// The schema's text.
    pub schema_text: Option<String>,
    /// A fingerprint of the text.
    pub fingerprint: Option<String>,
    /// The version's name.
    pub name: Option<String>,
    /// The SerDe the version is read with.
    pub serde: Option<SerDeInfo>,
}

stored_value!(SchemaVersion, ValueKind::SchemaVersion);

/// A SerDe registered by name (`add_serde`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct RegisteredSerde {
    /// The SerDe; its name is its key.
    pub serde: SerDeInfo,
}

stored_value!(RegisteredSerde, ValueKind::Serde);
