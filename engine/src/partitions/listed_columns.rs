//! A kept name listing's values by key: for each key, every name's value as an id into the
//! key's distinct values. A selection that tests one key (`hr = 7`, Trino's partial values
//! `["", "7"]`) then tests each distinct value once — 24 hours, a few thousand days — instead
//! of slicing and testing every name, and a name's verdict is a lookup.
//!
//! Made on the first such selection of a listing and kept with it (the listing's memory
//! budget counts the ids: `name_listing.rs`).

use std::borrow::Cow;

use fxhash::FxHashMap;

use crate::error::{Error, Result};
use crate::partitions::name_listing::PartitionNames;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::partitioned::{slice_listed_values, values_of_name};

/// One key's values across a listing.
#[derive(Debug)]
pub(crate) struct KeyColumn {
    /// For each name, in listing order, the index of its value in `distinct`.
    pub(crate) ids: Vec<u32>,
    /// The key's distinct values, in order of first appearance.
    pub(crate) distinct: Vec<String>,
}

/// Every key's column of one listing.
#[derive(Debug)]
pub(crate) struct ListedColumns {
    pub(crate) keys: Vec<KeyColumn>,
}

/// Appends `value`'s id to `column`, giving it the next id if `seen` has not seen it.
fn push_value<'n>(
    column: &mut KeyColumn,
    seen: &mut FxHashMap<Cow<'n, str>, u32>,
    value: Cow<'n, str>,
) -> Result<()> {
    let id = match seen.get(value.as_ref()) {
        Some(id) => *id,
        None => {
            let id = u32::try_from(column.distinct.len())
                .map_err(|_| Error::Internal("a listing of more than 2^32 values".to_string()))?;
            column.distinct.push(value.to_string());
            seen.insert(value, id);
            id
        }
    };
    column.ids.push(id);
    Ok(())
}

impl ListedColumns {
    /// The columns of `names`, the full listing of `table` built with `key_parts`.
    pub(crate) fn build(
        table: &PartitionedTable,
        key_parts: &[String],
        names: &PartitionNames,
    ) -> Result<Self> {
        let key_count = key_parts.len();
        let mut seen: Vec<FxHashMap<Cow<'_, str>, u32>> = vec![FxHashMap::default(); key_count];
        let mut keys: Vec<KeyColumn> = (0..key_count)
            .map(|_| KeyColumn {
                ids: Vec::with_capacity(names.len()),
                distinct: Vec::new(),
            })
            .collect();
        let mut sliced: Vec<&str> = Vec::with_capacity(key_count);
        for index in 0..names.len() {
            let name = names.get(index);
            if slice_listed_values(key_parts, name, &mut sliced) {
                for ((value, column), seen) in sliced.iter().zip(&mut keys).zip(&mut seen) {
                    push_value(column, seen, Cow::Borrowed(*value))?;
                }
            } else {
                // A name with an escaped character: its values parsed (and owned).
                let values = values_of_name(table, name).ok_or_else(|| {
                    Error::Internal(format!("a kept partition name {name:?} does not parse"))
                })?;
                for ((value, column), seen) in values.into_iter().zip(&mut keys).zip(&mut seen) {
                    push_value(column, seen, Cow::Owned(value))?;
                }
            }
        }
        Ok(ListedColumns { keys })
    }

    /// Bytes the ids of `name_count` names of `key_count` keys take: what a listing's budget
    /// counts for its columns (the distinct values are at most the names' own bytes, and in
    /// practice a few).
    pub(crate) fn id_bytes(name_count: usize, key_count: usize) -> usize {
        name_count * key_count * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_names_value_is_its_keys_distinct_value_escaped_or_not() {
        let key_parts = vec!["ds=".to_string(), "hr=".to_string()];
        let mut names = PartitionNames::new();
        let listed = ["ds=a/hr=1", "ds=a/hr=2", "ds=a%2Fb/hr=1", "ds=c/hr=2"];
        for name in listed {
            names
                .push_with(|text| {
                    text.push_str(name);
                    Ok(())
                })
                .unwrap();
        }
        let columns = ListedColumns::build(
            &PartitionedTable::of_string_keys(&["ds", "hr"]),
            &key_parts,
            &names,
        )
        .unwrap();
        let [ds, hr] = &columns.keys[..] else {
            panic!("two keys")
        };
        assert_eq!(ds.distinct, ["a", "a/b", "c"]);
        assert_eq!(ds.ids, [0, 0, 1, 2]);
        assert_eq!(hr.distinct, ["1", "2"]);
        assert_eq!(hr.ids, [0, 1, 0, 1]);
    }
}
