//! What an alter of a table's columns does to the constraints on them, as Hive 4's store does
//! it (`ObjectStore.alterTable`, `copyMSD`, `removeUnusedColumnDescriptor`).
//!
//! Hive's constraint rows point at a column by its position in a column descriptor. An alter
//! that changes the columns moves each row to the position of an equal column (name, type
//! and comment) in the new list; a row whose column has no equal — dropped, renamed, retyped,
//! or with another comment — stays on the old descriptor, and goes with it when nothing else
//! uses it. Partitions added with the table's columns use the table's descriptor, so while
//! one of them still has the old columns, the rows stay (and read as before). Each column of a
//! constraint is its own row: a two-column key that loses one column keeps the other, with its
//! `KEY_SEQ`. Hivestore keeps constraints by column name, so only the removal is done here.

use std::collections::HashSet;

use crate::error::Result;
use crate::model::constraint::{ConstraintKind, StoredColumn, StoredConstraint};
use crate::model::partition::PartitionRecord;
use crate::model::table::{FieldSchema, StorageDescriptor, Table};
use crate::partitions::descriptors::is_columnless;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::KeyRange;
use crate::store::WriteTxn;

/// Removes, from the constraints on table `id` and the foreign keys it declares, the columns
/// that the alter from `old` to `new` leaves without an equal column, unless a partition of
/// the table still has `old`'s columns.
pub(crate) fn forget_removed_columns(
    txn: &mut WriteTxn<'_>,
    id: TableId,
    old: &Table,
    new: &Table,
) -> Result<()> {
    // Hive moves constraints only when both descriptors have columns.
    let (Some(old_sd), Some(new_sd)) = (old.sd.as_ref(), new.sd.as_ref()) else {
        return Ok(());
    };
    let removed: HashSet<&str> = old_sd
        .cols
        .iter()
        .filter(|column| !new_sd.cols.contains(column))
        .map(|column| column.name.as_str())
        .collect();
    if removed.is_empty() || partitions_use_columns(txn, id, &old_sd.cols)? {
        return Ok(());
    }
    let owned: Vec<_> = txn
        .scan(KeyRange::prefix(&keys::constraint_parent_prefix(id)))
        .collect::<Result<_>>()?;
    for (key, _) in owned {
        let (parent, tag, name) = keys::decode_constraint_key(&key)?;
        prune(txn, (parent, tag, &name), |stored, column| {
            let declared_here = stored.table_id == id.0;
            let own = declared_here && in_set(&removed, column.column.as_deref());
            own || in_set(&removed, column.referenced_column.as_deref())
        })?;
    }
    let declared: Vec<_> = txn
        .scan(KeyRange::prefix(&keys::foreign_key_child_prefix(id)))
        .collect::<Result<_>>()?;
    let foreign_key = ConstraintKind::ForeignKey.tag();
    for (key, _) in declared {
        let (_, parent, name) = keys::decode_foreign_key_child_key(&key)?;
        if parent == id {
            continue; // A key referencing its own table was pruned above.
        }
        prune(txn, (parent, foreign_key, &name), |_, column| {
            in_set(&removed, column.column.as_deref())
        })?;
    }
    Ok(())
}

fn in_set(set: &HashSet<&str>, column: Option<&str>) -> bool {
    column.is_some_and(|column| set.contains(column))
}

/// Drops the columns `gone` picks from constraint (parent, kind tag, name): rewritten with the
/// rest, or removed (with its foreign key index entry) when none is left.
fn prune(
    txn: &mut WriteTxn<'_>,
    (parent, tag, name): (TableId, u8, &str),
    gone: impl Fn(&StoredConstraint, &StoredColumn) -> bool,
) -> Result<()> {
    let key = keys::constraint_key(parent, tag, name);
    let Some(view) = txn.view::<StoredConstraint>(&key)? else {
        return Ok(());
    };
    let mut stored = view.to_owned()?;
    let before = stored.columns.len();
    let kept: Vec<_> = stored
        .columns
        .iter()
        .filter(|column| !gone(&stored, column))
        .cloned()
        .collect();
    if kept.len() == before {
        return Ok(());
    }
    if kept.is_empty() {
        if tag == ConstraintKind::ForeignKey.tag() {
            let child = TableId(stored.table_id);
            txn.delete(keys::foreign_key_child_key(child, parent, name));
        }
        txn.delete(key);
        return Ok(());
    }
    stored.columns = kept;
    txn.put_value(key, &stored)
}

/// Whether a partition of table `id` has exactly `columns`: Hive's old column descriptor is
/// then still in use. The table's shared descriptors are few and come first under its prefix;
/// its partitions are read only when one of them has these columns.
fn partitions_use_columns(
    txn: &WriteTxn<'_>,
    id: TableId,
    columns: &[FieldSchema],
) -> Result<bool> {
    let descriptor_prefix = keys::partition_descriptor_key(id, 0);
    let descriptor_prefix = &descriptor_prefix[..descriptor_prefix.len() - 8];
    let mut matching = HashSet::new();
    for entry in txn.scan(KeyRange::prefix(&keys::partition_prefix(id))) {
        let (key, value) = entry?;
        if let Some(descriptor_id) = key.strip_prefix(descriptor_prefix) {
            // A descriptor without columns is no column descriptor of Hive's.
            if is_columnless(&value) {
                continue;
            }
            let Some(view) = txn.view::<StorageDescriptor>(&key)? else {
                continue;
            };
            if view.to_owned()?.cols == columns {
                matching.insert(descriptor_id.to_vec());
            }
            continue;
        }
        if matching.is_empty() {
            return Ok(false);
        }
        let Some(view) = txn.view::<PartitionRecord>(&key)? else {
            continue;
        };
        let record = view.to_owned()?;
        let used = record.descriptor_id.map(u64::to_be_bytes);
        if used.is_some_and(|used| matching.contains(&used[..])) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use crate::{
        ConstraintKind, ConstraintRow, FieldSchema, ForeignKeyFilter, Partition, ReferencedColumn,
        StorageDescriptor, Store, Table,
    };

    fn column(name: &str, comment: Option<&str>) -> FieldSchema {
        FieldSchema {
            name: name.to_string(),
            type_name: "int".to_string(),
            comment: comment.map(str::to_string),
        }
    }

    fn descriptor(columns: Vec<FieldSchema>) -> Option<StorageDescriptor> {
        Some(StorageDescriptor {
            cols: columns,
            ..StorageDescriptor::default()
        })
    }

    fn table(name: &str, columns: &[&str]) -> Table {
        Table {
            db_name: "db".to_string(),
            table_name: name.to_string(),
            partition_keys: vec![column("ds", None)],
            sd: descriptor(columns.iter().map(|name| column(name, None)).collect()),
            ..Table::default()
        }
    }

    fn key_row(kind: ConstraintKind, table: &str, column: &str, key_seq: i32) -> ConstraintRow {
        ConstraintRow {
            key_seq,
            name: Some(format!("{}_{table}", kind.name_suffix())),
            ..ConstraintRow::new(kind, "db", table, column)
        }
    }

    fn foreign(column: &str, parent_column: &str, key_seq: i32) -> ConstraintRow {
        ConstraintRow {
            referenced: Some(ReferencedColumn {
                db_name: "db".to_string(),
                table_name: "t".to_string(),
                column: parent_column.to_string(),
                key_name: None,
            }),
            ..key_row(ConstraintKind::ForeignKey, "ch", column, key_seq)
        }
    }

    /// `t(a, b, c)` with primary key (a, c); `ch(x, y)` with a foreign key (x, y) to it.
    fn keyed_tables() -> Store {
        let store = crate::store::memory_store_with_databases(&["db"]);
        store.create_table(table("t", &["a", "b", "c"])).unwrap();
        store.create_table(table("ch", &["x", "y"])).unwrap();
        let primary = vec![
            key_row(ConstraintKind::PrimaryKey, "t", "a", 1),
            key_row(ConstraintKind::PrimaryKey, "t", "c", 2),
        ];
        store
            .add_constraints(ConstraintKind::PrimaryKey, primary)
            .unwrap();
        let foreign_keys = vec![foreign("x", "a", 1), foreign("y", "c", 2)];
        store
            .add_constraints(ConstraintKind::ForeignKey, foreign_keys)
            .unwrap();
        store
    }

    fn alter_columns(store: &Store, name: &str, columns: Vec<FieldSchema>) {
        let mut altered = store.get_table("hive", "db", name).unwrap();
        altered.sd = descriptor(columns);
        store.alter_table("hive", "db", name, altered).unwrap();
    }

    /// (column, KEY_SEQ) of t's primary key, and (column, referenced column) of ch's keys.
    type Keys = (Vec<(String, i32)>, Vec<(String, String)>);

    /// The [`Keys`] of `store`.
    fn keys(store: &Store) -> Keys {
        let primary = store
            .table_constraints("hive", "db", "t", ConstraintKind::PrimaryKey)
            .unwrap();
        let filter = ForeignKeyFilter {
            foreign_db: Some("db".to_string()),
            foreign_table: Some("ch".to_string()),
            ..ForeignKeyFilter::default()
        };
        let foreign = store.foreign_keys(&filter).unwrap();
        (
            primary
                .into_iter()
                .map(|row| (row.column.unwrap(), row.key_seq))
                .collect(),
            foreign
                .into_iter()
                .map(|row| (row.column.unwrap(), row.referenced.unwrap().column))
                .collect(),
        )
    }

    fn owned<const N: usize>(pairs: [(&str, i32); N]) -> Vec<(String, i32)> {
        pairs.map(|(name, seq)| (name.to_string(), seq)).to_vec()
    }

    #[test]
    fn a_dropped_column_leaves_the_constraints_it_was_in() {
        // Goal: as Hive 4's store, dropping c takes c's rows of the primary key and of the
        // foreign key referencing it; a, moved, keeps its rows and KEY_SEQ.
        let store = keyed_tables();
        alter_columns(&store, "t", vec![column("b", None), column("a", None)]);
        let (primary, foreign) = keys(&store);
        assert_eq!(primary, owned([("a", 1)]));
        assert_eq!(foreign, [("x".to_string(), "a".to_string())]);
        // A column whose comment changes is another column to Hive: its rows go too, and a
        // constraint left without columns is gone.
        alter_columns(
            &store,
            "t",
            vec![column("b", None), column("a", Some("new"))],
        );
        assert_eq!(keys(&store), (vec![], vec![]));
    }

    #[test]
    fn a_foreign_key_loses_the_columns_its_own_table_drops() {
        let store = keyed_tables();
        alter_columns(&store, "ch", vec![column("x", None), column("z", None)]);
        let (primary, foreign) = keys(&store);
        assert_eq!(primary, owned([("a", 1), ("c", 2)]));
        assert_eq!(foreign, [("x".to_string(), "a".to_string())]);
    }

    #[test]
    fn constraints_stay_while_a_partition_has_the_old_columns() {
        // Goal: Hive's partitions added with the table's columns share its column descriptor,
        // which then outlives the alter with the constraint rows on it.
        let store = keyed_tables();
        let partition = Partition {
            values: vec!["1".to_string()],
            db_name: "db".to_string(),
            table_name: "t".to_string(),
            sd: descriptor(["a", "b", "c"].map(|name| column(name, None)).to_vec()),
            ..Partition::default()
        };
        store.add_partition(partition).unwrap();
        alter_columns(&store, "t", vec![column("b", None), column("a", None)]);
        let (primary, foreign) = keys(&store);
        assert_eq!(primary, owned([("a", 1), ("c", 2)]));
        assert_eq!(foreign.len(), 2);
    }
}
