//! Who else uses a directory that a drop with `deleteData` is about to delete: a table whose
//! location lies in it. Such a drop is refused before anything changes, so that one object's
//! drop never deletes another's data (`docs/architecture.md`, the warehouse filesystem).

use std::collections::HashMap;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::model::table::Table;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::ValueView;
use crate::store::WriteTxn;
use crate::warehouse::{resolved_local_dir, Warehouse};

/// Directories a drop is about to delete, by the path the filesystem resolves them to, each
/// with what it belongs to (its location as stored, or the partition).
pub(crate) struct DoomedDirs<V> {
    dirs: HashMap<PathBuf, V>,
}

impl<V: Copy> DoomedDirs<V> {
    /// The directories of `entries`' locations that `warehouse` would delete (local ones).
    pub(crate) fn new<'l>(
        warehouse: &Warehouse,
        entries: impl IntoIterator<Item = (&'l str, V)>,
    ) -> Self {
        let dirs = entries
            .into_iter()
            .filter(|(location, _)| warehouse.handles(location))
            .filter_map(|(location, owner)| Some((resolved_local_dir(location)?, owner)))
            .collect();
        DoomedDirs { dirs }
    }

    /// Whether no directory is to go.
    pub(crate) fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// The owner of the doomed directory that is, or holds, the directory of `location`.
    pub(crate) fn holding(&self, location: &str) -> Option<V> {
        let dir = resolved_local_dir(location)?;
        dir.ancestors()
            .find_map(|ancestor| self.dirs.get(ancestor).copied())
    }
}

impl DoomedDirs<&str> {
    /// Refuses the drop of `dropping` (as named in the message) when a table that stays (not
    /// `is_dropped`) has its directory in a doomed one. Reads every table's record, only when
    /// a directory is to go.
    pub(crate) fn refuse_live_tables(
        &self,
        txn: &WriteTxn<'_>,
        dropping: &str,
        is_dropped: impl Fn(&Table) -> bool,
    ) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        for entry in txn.scan(KeyRange::prefix(&[keys::KEYSPACE_TABLE])) {
            let (key, stored) = entry?;
            let table = ValueView::<Table>::new(key, stored)?.to_owned()?;
            let Some(location) = table.location() else {
                continue;
            };
            let Some(held_by) = self.holding(location) else {
                continue;
            };
            if !is_dropped(&table) {
                return Err(Error::Refused(format!(
                    "Refusing to delete the data of {dropping}: its location {held_by} holds \
                     {location}, which table {} uses; nothing was dropped",
                    table.qualified_name()
                )));
            }
        }
        Ok(())
    }
}
