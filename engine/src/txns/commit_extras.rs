//! What `commit_txn` may carry besides the transaction id: the writes of the transaction
//! (`writeEventInfos`, recorded as `add_write_notification_log` records them) and a key/value
//! pair (Hive's `CommitTxnKeyValue`): a table parameter whose key starts with `_meta`, set in
//! the batch of the commit, so that it changes if and only if the transaction commits.

use crate::error::{Error, Result};
use crate::events::WriteNotification;
use crate::model::table::Table;
use crate::partitions::stored::read_view;
use crate::storage::keys::{self, TableId};
use crate::storage::values;
use crate::store::Store;
use crate::txns::locks::txn_id_text;

/// The prefix a committed key must have (Hive's `TxnStore.TXN_KEY_START`).
pub const TXN_KEY_PREFIX: &str = "_meta";

/// Hive's `CommitTxnKeyValue`: set parameter `key` of table `table_id` to `value`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TxnKeyValue {
    /// The table's id (`Table.id`).
    pub table_id: i64,
    /// The parameter, which must exist and start with [`TXN_KEY_PREFIX`].
    pub key: String,
    /// Its new value.
    pub value: String,
}

/// What a commit carries besides the transaction id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitExtras {
    /// Writes of the transaction to record (`writeEventInfos`).
    pub writes: Vec<WriteNotification>,
    /// A table parameter to set with the commit (`keyValue`).
    pub key_value: Option<TxnKeyValue>,
    /// Where a replication load records the last event it applied (`replLastIdInfo`).
    pub repl_last_id: Option<super::ReplLastId>,
}

impl Store {
    /// The table value with the parameter of `key_value` set, for the batch of the commit of
    /// `txn_id`. As Hive, the key must start with `_meta` and the table must already have the
    /// parameter (exactly one row updated); otherwise nothing changes.
    pub(crate) fn key_value_put(
        &self,
        txn_id: u64,
        key_value: &TxnKeyValue,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let TxnKeyValue {
            table_id,
            key,
            value,
        } = key_value;
        let described = format!(
            "Error updating key/value with {}, tableId={table_id}, key={key}, value={value}.",
            txn_id_text(txn_id)
        );
        if !key.starts_with(TXN_KEY_PREFIX) {
            return Err(Error::InvalidInput(format!(
                "{described} key should start with {TXN_KEY_PREFIX}."
            )));
        }
        let parameter = std::iter::once((key, value));
        self.options()
            .value_limits
            .check_parameters("table parameter", parameter)
            .map_err(|error| Error::InvalidInput(format!("{described} {error}")))?;
        let table_key = u64::try_from(*table_id)
            .ok()
            .map(|id| keys::table_key(TableId(id)));
        let view = match &table_key {
            Some(table_key) => read_view::<Table>(self.reader(), table_key)?,
            None => None,
        };
        let (Some(table_key), Some(view)) = (table_key, view) else {
            return Err(Error::InvalidInput(format!(
                "{described} No table has id {table_id}."
            )));
        };
        let mut table = view.to_owned()?;
        let Some(parameter) = table.parameters.get_mut(key) else {
            return Err(Error::InvalidInput(format!(
                "{described} Table {}.{} has no parameter {key}.",
                table.db_name, table.table_name
            )));
        };
        parameter.clone_from(value);
        Ok((table_key, values::encode(&table)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txns::OpenTxnRequest;
    use crate::{Database, Durability, StoreOptions};

    fn store_with_table() -> (Store, i64) {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        let backend = std::sync::Arc::new(crate::storage::kv::MemoryBackend::new());
        let store = Store::open_with_backend(backend, options).unwrap();
        let database = Database {
            name: "db".into(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
        let mut table = Table {
            db_name: "db".into(),
            table_name: "t".into(),
            ..Table::default()
        };
        table.parameters.insert("_meta.snapshot".into(), "1".into());
        table.parameters.insert("plain".into(), "p".into());
        let id = store.create_table(table).unwrap().id;
        (store, id)
    }

    fn key_value(table_id: i64, key: &str) -> CommitExtras {
        CommitExtras {
            key_value: Some(TxnKeyValue {
                table_id,
                key: key.into(),
                value: "2".into(),
            }),
            ..CommitExtras::default()
        }
    }

    #[test]
    fn a_committed_key_value_sets_an_existing_meta_parameter_or_nothing() {
        let (store, id) = store_with_table();
        let request = OpenTxnRequest {
            count: 1,
            ..OpenTxnRequest::default()
        };
        let txn_id = store.open_txns(request).unwrap()[0];
        for refused in [
            key_value(id, "plain"),
            key_value(id, "_meta.missing"),
            key_value(id + 100, "_meta.snapshot"),
            key_value(-1, "_meta.snapshot"),
        ] {
            let result = store.commit_txn_with(txn_id, refused);
            assert!(matches!(result, Err(Error::InvalidInput(_))), "{result:?}");
        }
        let unchanged = store.get_table("hive", "db", "t").unwrap();
        assert_eq!(unchanged.parameters["_meta.snapshot"], "1");
        assert_eq!(
            store.open_txns_info(&[]).unwrap().txns.len(),
            1,
            "still open"
        );
        store
            .commit_txn_with(txn_id, key_value(id, "_meta.snapshot"))
            .unwrap();
        let changed = store.get_table("hive", "db", "t").unwrap();
        assert_eq!(changed.parameters["_meta.snapshot"], "2");
        assert_eq!(changed.parameters["plain"], "p");
        assert!(store.open_txns_info(&[]).unwrap().txns.is_empty());
    }
}
