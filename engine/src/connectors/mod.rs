//! Data connectors: Hive 4's named connections to a remote source (`DATACONNECTORS`), which a
//! database of type `REMOTE` names to map that source's databases. The metastore only keeps
//! them; hivestore never connects to a source. One namespace for the store, names lowercased
//! (`0x26`).
//!
//! Hive's rules (HMSHandler, ObjectStore): a name must be given ("Data connector name cannot
//! be null.") and valid, and is stored lowercased; the owner defaults to the caller and its
//! type to `USER`; an alter replaces the URL, parameters and owner and keeps the name, type
//! and create time (and the description, unless a new one is given); a drop does not look
//! for databases that name the connector. Hive logs no notification event for any of it.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::names;
use crate::model::principal::PrincipalType;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::{stored_value, ValueKind};
use crate::store::{now_seconds, Store, WriteTxn};

/// The longest connector name accepted, in bytes (`DATACONNECTORS.NAME varchar(128)`).
pub const CONNECTOR_NAME_LEN_MAX: usize = 128;
/// The longest connector type accepted, in bytes (`DATACONNECTORS.TYPE varchar(128)`).
pub const CONNECTOR_TYPE_LEN_MAX: usize = 128;
/// The longest URL accepted, in bytes (`DATACONNECTORS.URL varchar(4000)`).
pub const CONNECTOR_URL_LEN_MAX: usize = 4000;
/// The longest description accepted, in bytes (`DATACONNECTORS.COMMENT varchar(256)`).
pub const CONNECTOR_DESCRIPTION_LEN_MAX: usize = 256;
/// The longest owner name accepted, in bytes (`DATACONNECTORS.OWNER_NAME varchar(256)`).
pub const CONNECTOR_OWNER_LEN_MAX: usize = 256;
/// The most data connectors a store may hold: what `get_dataconnectors` may list.
pub const DATA_CONNECTORS_MAX: usize = 10_000;

/// Hive's `DataConnector`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct DataConnector {
    /// The name, lowercased.
    pub name: String,
    /// The kind of source (`mysql`, `postgres`, `hiveserver2`, ...), as given.
    pub connector_type: String,
    /// Where the source is.
    pub url: String,
    /// A description.
    pub description: Option<String>,
    /// Parameters (credentials, drivers, ...), as given.
    pub parameters: BTreeMap<String, String>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The owner's principal type.
    pub owner_type: PrincipalType,
    /// Creation time, seconds since the epoch; set on create.
    pub create_time: i32,
}

stored_value!(DataConnector, ValueKind::DataConnector);

/// A connector as a client sends it, to create or to replace one: any field may be unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorSpec {
    /// The name, as given.
    pub name: Option<String>,
    /// The kind of source.
    pub connector_type: Option<String>,
    /// Where the source is.
    pub url: Option<String>,
    /// A description.
    pub description: Option<String>,
    /// Parameters.
    pub parameters: Option<BTreeMap<String, String>>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The owner's principal type.
    pub owner_type: Option<PrincipalType>,
}

/// Hive's message for a connector that `get_dataconnector_req` and `alter_dataconnector`
/// do not find: ObjectStore appends the missing cause, which is always null.
fn not_found(name: &str) -> Error {
    Error::NoSuchObject(format!("Dataconnector named {name} does not exist:null"))
}

/// Refuses `value` when longer than `max` bytes, naming `field`.
fn check_len(field: &str, value: &str, max: usize) -> Result<()> {
    if value.len() > max {
        return Err(Error::InvalidObject(format!(
            "data connector {field} is {} bytes, longer than the {max} bytes allowed",
            value.len()
        )));
    }
    Ok(())
}

/// A field `DATACONNECTORS` declares `NOT NULL`, checked; `error` builds the refusal.
fn required<'a>(
    field: &str,
    value: &'a Option<String>,
    max: usize,
    error: fn(String) -> Error,
) -> Result<&'a str> {
    let Some(value) = value.as_deref() else {
        return Err(error(format!("The data connector's {field} is not set")));
    };
    check_len(field, value, max)?;
    Ok(value)
}

impl Store {
    /// Hive's `create_dataconnector`: `spec` stored under its lowercased name, with the create
    /// time set. In Hive's order: a missing name is refused ("Data connector name cannot be
    /// null."), a taken one `AlreadyExists` (`DataConnector c already exists`), an invalid
    /// one `InvalidObject` (`c is not a valid dataconnector name`); a missing type or
    /// URL, or a value longer than Hive's column, is `InvalidObject`.
    pub fn create_data_connector(&self, spec: ConnectorSpec) -> Result<DataConnector> {
        let Some(given) = spec.name.as_deref() else {
            return Err(Error::Refused("Data connector name cannot be null.".into()));
        };
        let name = names::normalize(given);
        let key = keys::data_connector_key(&name);
        self.write(|txn| {
            if txn.get(&key)?.is_some() {
                let message = format!("DataConnector {given} already exists");
                return Err(Error::AlreadyExists(message));
            }
            names::validate_connector_name(given)?;
            let mut connector = self.connector_from(&spec, name.clone())?;
            connector.create_time = now_seconds();
            check_room(txn)?;
            txn.put_value(key.clone(), &connector)?;
            Ok(connector)
        })
    }

    /// Connector `name` (normalised), if it exists.
    pub fn get_data_connector(&self, name: &str) -> Result<Option<DataConnector>> {
        match self.view::<DataConnector>(&keys::data_connector_key(&names::normalize(name)))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Connector `name`, or Hive's `NoSuchObjectException` text naming it as asked.
    pub fn require_data_connector(&self, name: &str) -> Result<DataConnector> {
        self.get_data_connector(name)?
            .ok_or_else(|| not_found(name))
    }

    /// Hive's `get_dataconnectors`: every connector's name, ascending.
    pub fn list_data_connectors(&self) -> Result<Vec<String>> {
        self.scan(KeyRange::prefix(&keys::data_connector_prefix()))
            .map(|entry| entry.and_then(|(key, _)| keys::decode_data_connector_key(&key)))
            .collect()
    }

    /// Hive's `alter_dataconnector`: connector `name` takes `spec`'s URL, parameters, owner
    /// (and owner type and description when given); its name, type and create time stay. A
    /// missing connector is `NoSuchObject`; a missing URL is refused (Hive's store fails on
    /// it and changes nothing).
    pub fn alter_data_connector(&self, name: &str, spec: ConnectorSpec) -> Result<DataConnector> {
        let key = keys::data_connector_key(&names::normalize(name));
        self.write(|txn| {
            let Some(old) = txn.view::<DataConnector>(&key)? else {
                return Err(not_found(name));
            };
            let mut connector = old.to_owned()?;
            let url = required("url", &spec.url, CONNECTOR_URL_LEN_MAX, Error::Refused)?;
            connector.url = url.to_string();
            connector.parameters = spec.parameters.clone().unwrap_or_default();
            connector.owner_name = spec.owner_name.clone();
            if let Some(owner_type) = spec.owner_type {
                connector.owner_type = owner_type;
            }
            if let Some(description) = &spec.description {
                if !description.trim().is_empty() {
                    connector.description = Some(description.clone());
                }
            }
            self.check_connector_values(&connector)?;
            txn.put_value(key.clone(), &connector)?;
            Ok(connector)
        })
    }

    /// Hive's `drop_dataconnector`: removes connector `name`. A missing one is `NoSuchObject`
    /// (`DataConnector c doesn't exist`) unless `if_not_exists`. Databases that name it
    /// keep the name, as in Hive (its `checkReferences` is not acted on).
    pub fn drop_data_connector(&self, name: &str, if_not_exists: bool) -> Result<()> {
        let key = keys::data_connector_key(&names::normalize(name));
        self.write(|txn| {
            if txn.get(&key)?.is_none() {
                if if_not_exists {
                    return Ok(());
                }
                let message = format!("DataConnector {name} doesn't exist");
                return Err(Error::NoSuchObject(message));
            }
            txn.delete(key.clone());
            Ok(())
        })
    }

    /// A new connector named `name` from `spec`, checked (create time unset).
    fn connector_from(&self, spec: &ConnectorSpec, name: String) -> Result<DataConnector> {
        let invalid = Error::InvalidObject;
        let connector_type = required(
            "type",
            &spec.connector_type,
            CONNECTOR_TYPE_LEN_MAX,
            invalid,
        )?;
        let url = required("url", &spec.url, CONNECTOR_URL_LEN_MAX, invalid)?;
        let connector = DataConnector {
            name,
            connector_type: connector_type.to_string(),
            url: url.to_string(),
            description: spec.description.clone(),
            parameters: spec.parameters.clone().unwrap_or_default(),
            owner_name: spec.owner_name.clone(),
            owner_type: spec.owner_type.unwrap_or_default(),
            create_time: 0,
        };
        self.check_connector_values(&connector)?;
        Ok(connector)
    }

    /// Refuses a description, owner or parameters longer than Hive's columns hold.
    fn check_connector_values(&self, connector: &DataConnector) -> Result<()> {
        if let Some(description) = &connector.description {
            check_len("description", description, CONNECTOR_DESCRIPTION_LEN_MAX)?;
        }
        if let Some(owner) = &connector.owner_name {
            check_len("owner name", owner, CONNECTOR_OWNER_LEN_MAX)?;
        }
        let limits = &self.options().value_limits;
        limits.check_parameters("data connector parameter", &connector.parameters)
    }
}

/// Refuses a new connector when the store holds [`DATA_CONNECTORS_MAX`].
fn check_room(txn: &WriteTxn<'_>) -> Result<()> {
    let mut count = 0usize;
    for entry in txn.scan(KeyRange::prefix(&keys::data_connector_prefix())) {
        entry?;
        count += 1;
        if count >= DATA_CONNECTORS_MAX {
            return Err(Error::Refused(format!(
                "A store holds at most {DATA_CONNECTORS_MAX} data connectors"
            )));
        }
    }
    Ok(())
}
