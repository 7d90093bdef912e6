//! Hive's `Function`: a permanent user-defined function of a database.

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::principal::PrincipalType;
use crate::storage::values::{stored_value, ValueKind};

/// Hive's `FunctionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub enum FunctionType {
    /// A Java class (Hive's only type).
    #[default]
    Java,
}

/// Hive's `ResourceType`: what a function's resource URI names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub enum ResourceType {
    /// A jar added to the class path.
    #[default]
    Jar,
    /// A file.
    File,
    /// An archive.
    Archive,
}

/// Hive's `ResourceUri`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct ResourceUri {
    /// What the URI names.
    pub resource_type: ResourceType,
    /// Where it is, as given.
    pub uri: String,
}

/// Hive's `Function`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Function {
    /// The name, normalised.
    pub function_name: String,
    /// The database, normalised.
    pub db_name: String,
    /// The implementing class.
    pub class_name: String,
    /// The owner.
    pub owner_name: Option<String>,
    /// The owner's principal type.
    pub owner_type: PrincipalType,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: i32,
    /// The function's type.
    pub function_type: FunctionType,
    /// Jars, files and archives the function needs, in the order given.
    pub resource_uris: Vec<ResourceUri>,
    /// The catalog, normalised.
    pub cat_name: String,
}

stored_value!(Function, ValueKind::Function);
