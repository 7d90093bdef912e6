//! Hive's `Catalog`: the outermost namespace.

use rkyv::{Archive, Deserialize, Serialize};

use crate::storage::values::{stored_value, ValueKind};

/// Hive's `Catalog`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct Catalog {
    /// The catalog name, normalised.
    pub name: String,
    /// A description.
    pub description: Option<String>,
    /// Where databases without a location of their own are placed.
    pub location_uri: String,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: Option<i32>,
}

stored_value!(Catalog, ValueKind::Catalog);
