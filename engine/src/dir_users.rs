//! Who else uses a directory that a drop with `deleteData` is about to delete: a table whose
//! location lies in it. Such a drop is refused before anything changes, so that one object's
//! drop never deletes another's data (`docs/architecture.md`, the warehouse filesystem).

use std::collections::HashMap;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::keys;
use crate::kv::KeyRange;
use crate::store::WriteTxn;
use crate::table::Table;
use crate::values::ValueView;
use crate::warehouse::{resolved_local_dir, Warehouse};

/// Directories a drop is about to delete, by the path the filesystem resolves them to, each
/// with its location as stored.
pub(crate) struct DoomedDirs<'a> {
    dirs: HashMap<PathBuf, &'a str>,
}

impl<'a> DoomedDirs<'a> {
    /// The directories of `locations` that `warehouse` would delete (local ones).
    pub(crate) fn new(warehouse: &Warehouse, locations: impl IntoIterator<Item = &'a str>) -> Self {
        let dirs = locations
            .into_iter()
            .filter(|location| warehouse.handles(location))
            .filter_map(|location| Some((resolved_local_dir(location)?, location)))
            .collect();
        DoomedDirs { dirs }
    }

    /// The doomed location that is, or holds, the directory of `location`.
    pub(crate) fn holding(&self, location: &str) -> Option<&'a str> {
        let dir = resolved_local_dir(location)?;
        dir.ancestors()
            .find_map(|ancestor| self.dirs.get(ancestor).copied())
    }

    /// Refuses the drop of `dropping` (as named in the message) when a table that stays (not
    /// `is_dropped`) has its directory in a doomed one. Reads every table's record, only when
    /// a directory is to go.
    pub(crate) fn refuse_live_tables(
        &self,
        txn: &WriteTxn<'_>,
        dropping: &str,
        is_dropped: impl Fn(&Table) -> bool,
    ) -> Result<()> {
        if self.dirs.is_empty() {
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
