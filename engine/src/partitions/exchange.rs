//! Hive's `exchange_partitions`: moving the partitions that match a partial spec from one
//! table to another of the same schema, metadata and data, as one atomic write.

use std::collections::BTreeMap;

use crate::confinement::Action;
use crate::error::{Error, Result};
use crate::model::partition::Partition;
use crate::model::partition_name::make_partition_name;
use crate::model::table::FieldSchema;
use crate::partitions::descriptors::DescriptorInterner;
use crate::partitions::list::partitions_matching_values;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::{java_list, resolve_table, to_record};
use crate::partitions::write::read_partition;
use crate::storage::keys;
use crate::store::{Store, WriteTxn};
use crate::warehouse::join_location;

/// What `exchange_partitions` moves: the partitions of the source table whose values match
/// `spec` (partition key → value; keys it leaves out match any value).
pub struct PartitionExchange<'a> {
    /// The catalog of both tables (Hive moves no partition across catalogs).
    pub catalog: &'a str,
    /// The table the partitions leave.
    pub source_database: &'a str,
    /// The table the partitions leave.
    pub source_table: &'a str,
    /// The table the partitions join.
    pub dest_database: &'a str,
    /// The table the partitions join.
    pub dest_table: &'a str,
    /// The partial partition spec.
    pub spec: &'a BTreeMap<String, String>,
}

impl Store {
    /// Moves the partitions `exchange` names to the destination table, all or none; returns
    /// them as they now are. Both tables must have the same columns and partition keys (names
    /// and types), and none of the partitions may exist in the destination. Each partition's
    /// location becomes `<destination location>/<partition name>`, and the source directory of
    /// the spec's leading keys (`<source location>/ds=1`) moves to the same place under the
    /// destination, when it exists on a local filesystem.
    pub fn exchange_partitions(&self, exchange: &PartitionExchange<'_>) -> Result<Vec<Partition>> {
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| self.stage_exchange(txn, exchange))
    }

    fn stage_exchange(
        &self,
        txn: &mut WriteTxn<'_>,
        exchange: &PartitionExchange<'_>,
    ) -> Result<Vec<Partition>> {
        let catalog = exchange.catalog;
        let lookup = |database: &str, name: &str, role: &str| {
            resolve_table(txn.reader(), catalog, database, name).map_err(|error| match error {
                Error::NoSuchObject(_) => Error::Refused(format!(
                    "The {role} table {}.{}.{} not found",
                    catalog.trim().to_lowercase(),
                    database.trim().to_lowercase(),
                    name.trim().to_lowercase()
                )),
                other => other,
            })
        };
        let dest = lookup(exchange.dest_database, exchange.dest_table, "destination")?;
        let source = lookup(exchange.source_database, exchange.source_table, "source")?;
        let values: Vec<String> = source
            .table
            .partition_keys
            .iter()
            .map(|key| exchange.spec.get(&key.name).cloned().unwrap_or_default())
            .collect();
        if values.iter().all(String::is_empty) {
            return Err(Error::Refused(format!(
                "Invalid partition key & values; keys {}, values {}",
                java_keys(&source.table.partition_keys),
                java_list(&values)
            )));
        }
        let matching = partitions_matching_values(txn.reader(), &source, &values)?;
        if matching.is_empty() {
            return Err(Error::Refused(format!(
                "No partition is found with the values {} for the table {}",
                java_map(exchange.spec),
                source.table.table_name
            )));
        }
        let source_columns = source.table.sd.as_ref().map(|sd| sd.cols.as_slice());
        let dest_columns = dest.table.sd.as_ref().map(|sd| sd.cols.as_slice());
        if !same_fields(source_columns.unwrap_or(&[]), dest_columns.unwrap_or(&[]))
            || !same_fields(&source.table.partition_keys, &dest.table.partition_keys)
        {
            return Err(Error::Refused(
                "The tables have different schemas. Their partitions cannot be exchanged."
                    .to_string(),
            ));
        }
        for values in &matching {
            if read_partition(txn, &dest, values)?.is_some() {
                return Err(Error::Refused(format!(
                    "The partition {} already exists in the table {}",
                    dest.partition_name(values),
                    dest.table.table_name
                )));
            }
        }
        let mut moved = Vec::with_capacity(matching.len());
        let mut taken = Vec::with_capacity(matching.len());
        let mut interner = DescriptorInterner::new(dest.id);
        for values in matching {
            let Some(mut partition) = read_partition(txn, &source, &values)? else {
                continue;
            };
            taken.push(partition.clone());
            partition.cat_name = dest.table.cat_name.clone();
            partition.db_name = dest.table.db_name.clone();
            partition.table_name = dest.table.table_name.clone();
            if let (Some(sd), Some(location)) = (partition.sd.as_mut(), dest.table.location()) {
                sd.location = Some(join_location(location, &dest.partition_name(&values)));
            }
            let record = to_record(txn, &mut interner, &partition)?;
            txn.put_value(keys::partition_key(dest.id, &values), &record)?;
            txn.delete(keys::partition_key(source.id, &values));
            moved.push(partition);
        }
        self.move_exchanged_data(txn, &source, &dest, &values)?;
        // Hive logs an exchange as partitions added to the destination, dropped from the source.
        use crate::events::EventKind;
        crate::partitions::write::emit_partitions(
            txn,
            EventKind::AddPartition,
            &dest.table,
            &moved,
        )?;
        crate::partitions::write::emit_partitions(
            txn,
            EventKind::DropPartition,
            &source.table,
            &taken,
        )?;
        Ok(moved)
    }

    /// Moves `<source>/<spec path>` to `<destination>/<spec path>`, the spec path naming the
    /// keys the spec gives, as Hive does; nothing to move is no error (Hive's rename then
    /// fails quietly and the metadata moves anyway).
    fn move_exchanged_data(
        &self,
        txn: &mut WriteTxn<'_>,
        source: &PartitionedTable,
        dest: &PartitionedTable,
        values: &[String],
    ) -> Result<()> {
        let (Some(source_root), Some(dest_root)) = (source.table.location(), dest.table.location())
        else {
            return Ok(());
        };
        let (keys, present): (Vec<&str>, Vec<&str>) = source
            .table
            .partition_keys
            .iter()
            .zip(values)
            .filter(|(_, value)| !value.is_empty())
            .map(|(key, value)| (key.name.as_str(), value.as_str()))
            .unzip();
        let spec_path = make_partition_name(&keys, &present);
        let from = join_location(source_root, &spec_path);
        let to = join_location(dest_root, &spec_path);
        if !self.warehouse().exists(&from).map_err(Error::Refused)? {
            return Ok(());
        }
        self.warehouse()
            .confine_all(Action::Move, [from.as_str(), to.as_str()])
            .map_err(Error::Refused)?;
        if let Some((parent, _)) = to.trim_end_matches('/').rsplit_once('/') {
            let made = self.warehouse().make_dir(parent).map_err(Error::Refused)?;
            txn.record_undo(made);
        }
        let moved = self
            .warehouse()
            .move_dir(&from, &to)
            .map_err(Error::Refused)?;
        txn.record_undo(moved);
        Ok(())
    }
}

/// Hive compares the columns' names and types, not their comments.
fn same_fields(left: &[FieldSchema], right: &[FieldSchema]) -> bool {
    left.len() == right.len()
        && left.iter().zip(right).all(|(left, right)| {
            left.name.eq_ignore_ascii_case(&right.name)
                && left.type_name.eq_ignore_ascii_case(&right.type_name)
        })
}

/// A map as Java's `Map.toString` writes it: `{ds=1, hr=2}`.
fn java_map(map: &BTreeMap<String, String>) -> String {
    let entries: Vec<String> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", entries.join(", "))
}

/// Partition keys as Java's `Arrays.toString` of `FieldSchema`s writes them.
fn java_keys(keys: &[FieldSchema]) -> String {
    let entries: Vec<String> = keys
        .iter()
        .map(|key| {
            format!(
                "FieldSchema(name:{}, type:{}, comment:{})",
                key.name,
                key.type_name,
                key.comment.as_deref().unwrap_or("null")
            )
        })
        .collect();
    java_list(&entries)
}
