//! SerDes registered by name (`add_serde`, `get_serde`), for schema versions to be mapped to.
//! Names are kept as given, as Hive keeps them.

use crate::error::{Error, Result};
use crate::model::registry::RegisteredSerde;
use crate::model::table::SerDeInfo;
use crate::registry::check_len;
use crate::storage::keys;
use crate::store::{Store, WriteTxn};

/// The longest SerDe name accepted, in bytes (Hive's `SERDES.NAME varchar(128)`).
pub const SERDE_NAME_LEN_MAX: usize = 128;

impl Store {
    /// Hive's `add_serde`: registers `serde` under its name; a name taken is
    /// `AlreadyExists`.
    pub fn add_serde(&self, serde: SerDeInfo) -> Result<()> {
        let Some(name) = serde.name.clone() else {
            return Err(Error::Refused("A SerDe to add needs a name".to_string()));
        };
        check_len("SerDe name", &name, SERDE_NAME_LEN_MAX)?;
        let key = keys::serde_key(&name);
        self.write(|txn| {
            if txn.get(&key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Serde with name {name} already exists"
                )));
            }
            let value = RegisteredSerde {
                serde: serde.clone(),
            };
            txn.put_value(key.clone(), &value)
        })
    }

    /// The SerDe registered as `name`, if any.
    pub fn get_serde(&self, name: &str) -> Result<Option<SerDeInfo>> {
        match self.view::<RegisteredSerde>(&keys::serde_key(name))? {
            Some(view) => Ok(Some(view.to_owned()?.serde)),
            None => Ok(None),
        }
    }
}

/// The SerDe registered as `name`, read within `txn`.
pub(crate) fn find_serde(txn: &WriteTxn<'_>, name: &str) -> Result<Option<SerDeInfo>> {
    match txn.view::<RegisteredSerde>(&keys::serde_key(name))? {
        Some(view) => Ok(Some(view.to_owned()?.serde)),
        None => Ok(None),
    }
}
