//! Adding, altering, renaming and dropping partitions, as Hive's
//! `add_partitions`, `alter_partitions`, `rename_partition` and
//! `drop_partitions` do. Each call is one atomic write: a batch is all
//! there or none.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::catalog::lookup::normalize_names;
use crate::confinement::Action;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord, PartitionImages};
use crate::model::partition::{Partition, PartitionRecord};
use crate::model::partition_name::PartitionNameWhitelist;
use crate::model::table::{StorageDescriptor, Table, DDL_TIME_PARAMETER};
use crate::partitions::batch::{added_from_event, AddedPartitions, ImagesBuilder, NewPartition};
use crate::partitions::descriptors::{DescriptorInterner, KeptDescriptors};
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::{
    check_value_count, java_list, java_partition, normalize_values, normalize_values_in_place,
    resolve_table, to_record,
};
use crate::stats::StatsContext;
use crate::storage::keys;
use crate::storage::values::ValueView;
use crate::store::{now_seconds, Store, WriteTxn};
use crate::warehouse::{join_location, normalize_location, DirState, WarehouseReport};

/// The table parameter Hive 4 sets on managed tables it made external; their
/// partitions still move on rename.
pub const TRANSLATED_TO_EXTERNAL_PARAMETER: &str = "TRANSLATED_TO_EXTERNAL";

/// How Hive's `add_partitions` starts its message for a missing table.
const MISSING_TABLE_ON_ADD: &str = "Unable to add partitions because database or table ";

/// Hive's `alter_partition` message for a missing table (`alter_partitions` says "partitions").
const MISSING_TABLE_ON_ALTER: &str =
    "Unable to alter partition because table or database does not exist.";

/// The options of [`Store::add_partitions`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AddPartitionsOptions<'a> {
    /// Skip partitions that exist instead of failing (Hive's
    /// `ifNotExists`).
    pub if_not_exists: bool,
    /// Hive's `metastore.partition.name.whitelist.pattern`, if set.
    pub whitelist: Option<&'a PartitionNameWhitelist>,
    /// The environment context's `STATS_GENERATED`: `TASK` marks the fast statistics listed
    /// at a directory that already existed accurate (`BASIC_STATS`), as Hive's
    /// `updateBasicState`; otherwise `COLUMN_STATS_ACCURATE` is dropped.
    pub stats_generated: crate::stats::StatsGenerated,
}

/// The options of [`Store::drop_partitions`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropPartitionsOptions {
    /// Delete the data of the dropped partitions of a managed table (or of
    /// an external one with `external.table.purge=true`), after the commit.
    pub delete_data: bool,
    /// Skip values that name no partition instead of failing.
    pub if_exists: bool,
}

/// What a drop removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedPartitions {
    /// The partitions as they were.
    pub partitions: Vec<Partition>,
    /// What happened to their data, with `delete_data`.
    pub warehouse: WarehouseReport,
}

/// Whether Hive deletes the data of `table`'s partitions on drop.
fn deletes_data(table: &Table) -> bool {
    !table.is_view() && (!table.is_external() || table.is_external_table_purge())
}

/// Whether Hive moves a partition's data on rename: tables it manages, and
/// those Hive 4 translated to external.
fn moves_data(table: &Table) -> bool {
    let translated = table
        .parameters
        .get(TRANSLATED_TO_EXTERNAL_PARAMETER)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"));
    !table.is_view() && (!table.is_external() || translated)
}

/// [`set_ddl_time_if_absent`] with the time as text, made once for a batch.
fn set_ddl_time_text_if_absent(parameters: &mut BTreeMap<String, String>, now: &str) {
    match parameters.get_mut(DDL_TIME_PARAMETER) {
        Some(ddl_time) if ddl_time == "0" => now.clone_into(ddl_time),
        Some(_) => {}
        None => {
            parameters.insert(DDL_TIME_PARAMETER.to_string(), now.to_string());
        }
    }
}

fn set_ddl_time_if_absent(parameters: &mut BTreeMap<String, String>, now: i32) {
    let ddl_time = parameters
        .entry(DDL_TIME_PARAMETER.to_string())
        .or_insert_with(|| now.to_string());
    if ddl_time == "0" {
        *ddl_time = now.to_string();
    }
}

fn lowercase_columns(sd: &mut StorageDescriptor) {
    for column in &mut sd.cols {
        // Names nearly always arrive in lower-case ASCII: rewritten only when they do not.
        let name = &column.name;
        if !name.is_ascii() || name.bytes().any(|byte| byte.is_ascii_uppercase()) {
            column.name = name.to_lowercase();
        }
    }
}

/// Loads the stored partition at `values`, if any.
pub(crate) fn read_partition(
    txn: &WriteTxn<'_>,
    table: &PartitionedTable,
    values: &[String],
) -> Result<Option<Partition>> {
    let key = keys::partition_key(table.id, values);
    let Some(view) = txn.view::<PartitionRecord>(&key)? else {
        return Ok(None);
    };
    let record = view.to_owned()?;
    let mut descriptors = KeptDescriptors::new(table.id);
    let partition = crate::partitions::stored::assemble(
        txn.reader(),
        &mut descriptors,
        &table.table,
        values.to_vec(),
        record,
        false,
    )?;
    Ok(Some(partition))
}

impl Store {
    /// Adds `partition` to its table (`cat_name`, `db_name`, `table_name`);
    /// Hive's `add_partition`. See [`Store::add_partitions`].
    pub fn add_partition(&self, partition: Partition) -> Result<Partition> {
        self.add_partition_with_options(partition, &AddPartitionsOptions::default())
    }

    /// [`Store::add_partition`] with `options` (Hive's
    /// `add_partition_with_environment_context`).
    pub fn add_partition_with_options(
        &self,
        partition: Partition,
        options: &AddPartitionsOptions<'_>,
    ) -> Result<Partition> {
        let (catalog, database, name) = (
            partition.cat_name.clone(),
            partition.db_name.clone(),
            partition.table_name.clone(),
        );
        let added = self.add_partitions(&catalog, &database, &name, vec![partition], options);
        added
            .map_err(|error| match error {
                Error::InvalidObject(message) if message.starts_with(MISSING_TABLE_ON_ADD) => {
                    Error::InvalidObject(
                        "Unable to add partition because table or database do not exist"
                            .to_string(),
                    )
                }
                other => other,
            })?
            .pop()
            .ok_or_else(|| Error::Internal("add_partition added nothing".to_string()))
    }

    /// Adds `partitions` to table `catalog.database.name`, all or none;
    /// Hive's `add_partitions_req`. Returns the partitions added (with
    /// `if_not_exists`, existing ones are skipped and not returned).
    ///
    /// - Each partition's database and table names must be the table's (or
    ///   empty); it needs one value per partition key; an empty value is the
    ///   default partition. Values must match the whitelist, if given.
    /// - Without a storage descriptor a partition gets the table's; without
    ///   a location, `<table location>/<partition name>`. Its directory is
    ///   made (local locations), and removed if the write fails.
    /// - `createTime` is now; `transient_lastDdlTime` is set if absent.
    pub fn add_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
        options: &AddPartitionsOptions<'_>,
    ) -> Result<Vec<Partition>> {
        let batch = partitions.into_iter().map(NewPartition::from).collect();
        let added = self.add_partition_batch(catalog, database, name, batch, options)?;
        Ok(added.into_partitions())
    }

    /// [`Store::add_partitions`] of partitions whose shared descriptors come by reference:
    /// what a request decoded off the wire carries.
    pub fn add_partition_batch(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<NewPartition>,
        options: &AddPartitionsOptions<'_>,
    ) -> Result<AddedPartitions> {
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let table =
                resolve_table(txn.reader(), catalog, database, name).map_err(
                    |error| match error {
                        Error::NoSuchObject(_) => {
                            let (_, database, name) = normalize_names(catalog, database, name);
                            Error::InvalidObject(format!(
                                "{MISSING_TABLE_ON_ADD}{database}.{name} does not exist"
                            ))
                        }
                        other => other,
                    },
                )?;
            let limits = &self.options().value_limits;
            let prepared = prepare_batch(&table, partitions, options, limits, txn.event_time())?;
            let prepared = skip_existing(txn, &table, prepared, options.if_not_exists)?;
            let images = self.stage_added(txn, &table, prepared, options.stats_generated)?;
            emit_added(txn, table.table, images)
        })
    }

    /// Stages `partitions`, each under its key (from [`skip_existing`]); returns their images
    /// for the event. `stats_generated` is the caller's `STATS_GENERATED`.
    fn stage_added(
        &self,
        txn: &mut WriteTxn<'_>,
        table: &PartitionedTable,
        partitions: Vec<(Vec<u8>, NewPartition)>,
        stats_generated: crate::stats::StatsGenerated,
    ) -> Result<ImagesBuilder> {
        let mut interner = DescriptorInterner::new(table.id);
        let mut images = ImagesBuilder::default();
        let locations: Vec<Option<&str>> = partitions
            .iter()
            .map(|(_, partition)| partition.location.as_deref())
            .collect();
        let (states, made) = self
            .warehouse()
            .make_dirs(&locations)
            .map_err(Error::Refused)?;
        txn.record_undo(made);
        for ((key, mut partition), state) in partitions.into_iter().zip(states) {
            // Quick statistics only where a directory was there: a new one holds no files.
            if state == DirState::Existed {
                let location = partition.location.as_deref();
                let parameters = &mut partition.parameters;
                crate::stats::update_added_partition_stats(
                    self,
                    &table.table,
                    parameters,
                    location,
                    stats_generated,
                );
            }
            let descriptor_id = match &partition.descriptor {
                Some(shared) => Some(interner.intern_shared(txn, shared)?),
                None => None,
            };
            // Moved, not copied: the record is then the event's image of the partition.
            let record = PartitionRecord {
                create_time: txn.event_time(),
                last_access_time: partition.last_access_time,
                descriptor_id,
                location: partition.location,
                parameters: partition.parameters,
                privileges: partition.privileges,
                write_id: partition.write_id,
                file_metadata: partition.file_metadata,
            };
            let stored = crate::storage::values::encode(&record)?;
            txn.put_raw(key, stored.clone());
            images.push(
                partition.values,
                record,
                stored,
                partition.descriptor.as_ref(),
            );
        }
        Ok(images)
    }

    /// Replaces the partitions of table `catalog.database.name` whose values
    /// those of `partitions` are; Hive's `alter_partitions`. All or none.
    /// The create time is kept; `transient_lastDdlTime` is set if absent
    /// or `0`; a partition given without a storage descriptor or location
    /// keeps its own.
    pub fn alter_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
    ) -> Result<Vec<Partition>> {
        let context = StatsContext::default();
        self.alter_partitions_with_context(catalog, database, name, partitions, &context)
    }

    /// [`Store::alter_partitions`] with what the call's environment context says about
    /// statistics: unless `DO_NOT_UPDATE_STATS`, a partition that lacks fast statistics,
    /// changes them, or comes with `STATS_GENERATED` has them relisted and its
    /// `COLUMN_STATS_ACCURATE` updated, as Hive's alter handler does.
    pub fn alter_partitions_with_context(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
        context: &StatsContext,
    ) -> Result<Vec<Partition>> {
        let how = AlterHow {
            stats: context,
            truncate: false,
        };
        let altered = self.alter_existing_partitions(catalog, database, name, partitions, &how);
        altered.map_err(|error| match error {
            Error::InvalidOperation(message) if message == MISSING_TABLE_ON_ALTER => {
                Error::InvalidOperation(
                    "Unable to alter partitions because table or database does not exist."
                        .to_string(),
                )
            }
            Error::NoSuchObject(message) => Error::InvalidOperation(format!(
                "Alter partition operation failed: NoSuchObjectException(message:{message})"
            )),
            other => other,
        })
    }

    /// [`Store::alter_partitions`]; a missing partition is `NoSuchObject`, which each caller
    /// words as Hive does.
    fn alter_existing_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
        how: &AlterHow<'_>,
    ) -> Result<Vec<Partition>> {
        self.write(|txn| {
            let table = resolve_table(txn.reader(), catalog, database, name)
                .map_err(|_| Error::InvalidOperation(MISSING_TABLE_ON_ALTER.to_string()))?;
            let now = now_seconds();
            let mut interner = DescriptorInterner::new(table.id);
            let mut altered = Vec::with_capacity(partitions.len());
            for partition in partitions {
                let limits = &self.options().value_limits;
                let (old, mut partition) = prepare_altered(txn, &table, limits, partition, now)?;
                self.warehouse()
                    .confine_relocation(old.location(), partition.location())
                    .map_err(Error::Refused)?;
                let stats = how.stats;
                crate::stats::update_partition_stats_on_alter(
                    self,
                    &table.table,
                    &old,
                    &mut partition,
                    stats,
                );
                let record = to_record(txn, &mut interner, &partition)?;
                txn.put_value(keys::partition_key(table.id, &partition.values), &record)?;
                emit_partition_altered(txn, &table.table, &old, &partition, how.truncate)?;
                altered.push(partition);
            }
            Ok(altered)
        })
    }

    /// A truncate's rewrite of its partitions' parameters (Hive's truncate handler calls the
    /// store directly, so no statistics work is done); one `ALTER_PARTITION` event each,
    /// marked as a truncate.
    pub(crate) fn truncate_partition_parameters(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
    ) -> Result<Vec<Partition>> {
        let context = StatsContext::skipping_stats_work();
        let how = AlterHow {
            stats: &context,
            truncate: true,
        };
        self.alter_existing_partitions(catalog, database, name, partitions, &how)
    }

    /// [`Store::alter_partitions`] for one partition; Hive's
    /// `alter_partition`.
    pub fn alter_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition: Partition,
    ) -> Result<Partition> {
        let context = StatsContext::default();
        self.alter_partition_with_context(catalog, database, name, partition, &context)
    }

    /// [`Store::alter_partition`] with what the call's environment context says about
    /// statistics (see [`Store::alter_partitions_with_context`]).
    pub fn alter_partition_with_context(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition: Partition,
        context: &StatsContext,
    ) -> Result<Partition> {
        let how = AlterHow {
            stats: context,
            truncate: false,
        };
        let altered =
            self.alter_existing_partitions(catalog, database, name, vec![partition], &how);
        let mut altered = altered.map_err(|error| match error {
            Error::NoSuchObject(_) => Error::InvalidOperation("alter is not possible".to_string()),
            other => other,
        })?;
        altered
            .pop()
            .ok_or_else(|| Error::Internal("alter_partition altered nothing".to_string()))
    }

    /// Gives partition `old_values` of table `catalog.database.name` the
    /// values of `partition` (and the rest of it); Hive's
    /// `rename_partition`. For managed tables (and those Hive 4 translated
    /// to external) the partition moves to its new default location
    /// `<table location>/<new name>`, directory included; external ones
    /// keep their location.
    pub fn rename_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        old_values: &[String],
        partition: Partition,
    ) -> Result<Partition> {
        if old_values.is_empty() {
            return self.alter_partition(catalog, database, name, partition);
        }
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, |txn| {
            let table = resolve_table(txn.reader(), catalog, database, name).map_err(|_| {
                Error::InvalidOperation(
                    "Unable to alter partition because table or database does not exist."
                        .to_string(),
                )
            })?;
            self.apply_rename(txn, &table, old_values, partition)
        })
    }

    fn apply_rename(
        &self,
        txn: &mut WriteTxn<'_>,
        table: &PartitionedTable,
        old_values: &[String],
        mut partition: Partition,
    ) -> Result<Partition> {
        let old_values = normalize_values(old_values);
        check_value_count(table, &old_values)?;
        partition.values = normalize_values(&partition.values);
        check_value_count(table, &partition.values)?;
        check_partition_values(table, &self.options().value_limits, &partition)?;
        let old = read_partition(txn, table, &old_values)?.ok_or_else(|| {
            Error::InvalidOperation(
                "Unable to rename partition because old partition does not exist".to_string(),
            )
        })?;
        if read_partition(txn, table, &partition.values)?.is_some() {
            return Err(Error::AlreadyExists(format!(
                "Partition already exists:{}.{}.{}",
                table.table.db_name,
                table.table.table_name,
                java_list(&partition.values)
            )));
        }
        fill_names(table, &mut partition);
        partition.create_time = old.create_time;
        set_ddl_time_if_absent(&mut partition.parameters, now_seconds());
        let sd = partition
            .sd
            .get_or_insert_with(|| old.sd.clone().unwrap_or_default());
        lowercase_columns(sd);
        sd.location = old.location().map(str::to_string);
        if let (true, Some(table_location)) = (moves_data(&table.table), table.table.location()) {
            let target = join_location(table_location, &table.partition_name(&partition.values));
            self.move_partition_dir(txn, table, old.location(), &target)?;
            if let Some(sd) = partition.sd.as_mut() {
                sd.location = Some(target);
            }
        }
        txn.delete(keys::partition_key(table.id, &old_values));
        crate::grants::stage_rename_partition_grants(
            txn,
            table.names(),
            &table.partition_name(&old_values),
            &table.partition_name(&partition.values),
        )?;
        crate::stats::move_partition_slot(txn, table.id, &old_values, &partition.values)?;
        let mut interner = DescriptorInterner::new(table.id);
        let record = to_record(txn, &mut interner, &partition)?;
        txn.put_value(keys::partition_key(table.id, &partition.values), &record)?;
        emit_partition_altered(txn, &table.table, &old, &partition, false)?;
        Ok(partition)
    }

    fn move_partition_dir(
        &self,
        txn: &mut WriteTxn<'_>,
        table: &PartitionedTable,
        from: Option<&str>,
        to: &str,
    ) -> Result<()> {
        let Some(from) = from else {
            return Ok(());
        };
        if normalize_location(from) == normalize_location(to) {
            return Ok(());
        }
        self.warehouse()
            .confine_all(Action::Move, [from, to])
            .map_err(Error::Refused)?;
        if self
            .warehouse()
            .exists(to)
            .map_err(Error::InvalidOperation)?
        {
            return Err(Error::InvalidOperation(format!(
                "New location for this partition of {} already exists : {to}",
                table.table.qualified_name()
            )));
        }
        let moved = self.warehouse().move_dir(from, to).map_err(|reason| {
            Error::InvalidOperation(format!(
                "Unable to rename partition of {}: {reason}",
                table.table.qualified_name()
            ))
        })?;
        txn.record_undo(moved);
        Ok(())
    }

    /// Drops partitions `values_list` of table `catalog.database.name`, all
    /// or none; Hive's `drop_partitions_req` by values. With `delete_data`,
    /// once committed, the data of a managed table's (or purgeable external
    /// one's) partitions is deleted; failures are reported, never undoing
    /// the drop.
    pub fn drop_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        values_list: &[Vec<String>],
        options: &DropPartitionsOptions,
    ) -> Result<DroppedPartitions> {
        let (table, partitions) = self.write(|txn| {
            let table = resolve_table(txn.reader(), catalog, database, name)?;
            let mut dropped = Vec::with_capacity(values_list.len());
            let mut seen = HashSet::new();
            for values in values_list {
                let values = normalize_values(values);
                check_value_count(&table, &values)?;
                if !seen.insert(values.clone()) {
                    continue;
                }
                match read_partition(txn, &table, &values)? {
                    Some(partition) => dropped.push(partition),
                    None if options.if_exists => continue,
                    None if values_list.len() == 1 => {
                        return Err(Error::NoSuchObject(format!(
                            "partition values={}",
                            java_list(&values)
                        )))
                    }
                    None => {
                        return Err(Error::NoSuchObject(
                            "Some partitions to drop are missing".to_string(),
                        ))
                    }
                }
                txn.delete(keys::partition_key(table.id, &values));
                let partition_name = table.partition_name(&values);
                crate::grants::stage_drop_partition_grants(txn, table.names(), &partition_name)?;
            }
            if options.delete_data && deletes_data(&table.table) {
                let locations = dropped.iter().filter_map(Partition::location);
                self.warehouse()
                    .confine_all(Action::Delete, locations)
                    .map_err(Error::Refused)?;
                self.check_dirs_unshared(txn, &table, &dropped, &seen)?;
            }
            let dropped_values: Vec<Vec<String>> = dropped
                .iter()
                .map(|partition| partition.values.clone())
                .collect();
            crate::stats::forget_partitions(txn, table.id, &dropped_values)?;
            emit_partitions(txn, EventKind::DropPartition, &table.table, &dropped)?;
            Ok((table, dropped))
        })?;
        let mut warehouse = WarehouseReport::default();
        if options.delete_data && deletes_data(&table.table) {
            let protected: Vec<&str> = [
                Some(self.options().warehouse_root.as_str()),
                table.table.location(),
            ]
            .into_iter()
            .flatten()
            .collect();
            for location in partitions.iter().filter_map(Partition::location) {
                self.warehouse()
                    .remove_dir(location, &protected, &mut warehouse);
                if let Some(root) = table.table.location() {
                    self.warehouse()
                        .remove_empty_parents(location, root, &mut warehouse);
                }
            }
        }
        Ok(DroppedPartitions {
            partitions,
            warehouse,
        })
    }

    /// Refuses a drop with `deleteData` whose directories hold the directory of the table or of
    /// a partition that stays (the same directory, or one inside it, as the filesystem
    /// resolves the paths): deleting them would delete live data. Hive deletes them anyway.
    /// Costs a read of the table's partition locations, only when a directory is to go.
    fn check_dirs_unshared(
        &self,
        txn: &mut WriteTxn<'_>,
        table: &PartitionedTable,
        dropped: &[Partition],
        dropped_values: &HashSet<Vec<String>>,
    ) -> Result<()> {
        let doomed = dropped
            .iter()
            .filter_map(|partition| Some((partition.location()?, partition)));
        let doomed = crate::catalog::dir_users::DoomedDirs::new(self.warehouse(), doomed);
        if doomed.is_empty() {
            return Ok(());
        }
        let keys = &table.table.partition_keys;
        let key_names: Vec<&str> = keys.iter().map(|key| key.name.as_str()).collect();
        let refuse = |partition: &Partition, user: String, used: &str| {
            let name =
                crate::model::partition_name::make_partition_name(&key_names, &partition.values);
            Error::Refused(format!(
                "Refusing to delete the data of partition {name} of {}: its location {} \
                 holds {used}, which {user} uses; nothing was dropped",
                table.table.qualified_name(),
                partition.location().unwrap_or_default()
            ))
        };
        let holder = |location: &str| doomed.holding(location);
        if let Some(location) = table.table.location() {
            if let Some(partition) = holder(location) {
                return Err(refuse(partition, "the table".to_string(), location));
            }
        }
        let range = crate::partitions::partitioned::partitions_range(table.id);
        for entry in crate::partitions::partitioned::scan_range(txn.reader(), range) {
            let (key, stored, values) = entry?;
            if dropped_values.contains(&values) {
                continue;
            }
            let view = ValueView::<PartitionRecord>::new(key, stored)?;
            let Some(location) = view.archived()?.location.as_ref() else {
                continue;
            };
            if let Some(partition) = holder(location.as_str()) {
                let other = crate::model::partition_name::make_partition_name(&key_names, &values);
                let user = format!("partition {other}");
                return Err(refuse(partition, user, location.as_str()));
            }
        }
        Ok(())
    }

    /// Drops partition `values`; Hive's `drop_partition`. See
    /// [`Store::drop_partitions`].
    pub fn drop_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        values: &[String],
        delete_data: bool,
    ) -> Result<DroppedPartitions> {
        let options = DropPartitionsOptions {
            delete_data,
            if_exists: false,
        };
        self.drop_partitions(catalog, database, name, &[values.to_vec()], &options)
    }

    /// Drops partition `partition_name`; Hive's `drop_partition_by_name`.
    pub fn drop_partition_by_name(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_name: &str,
        delete_data: bool,
    ) -> Result<DroppedPartitions> {
        let partition = self.get_partition_by_name(catalog, database, name, partition_name)?;
        self.drop_partition(catalog, database, name, &partition.values, delete_data)
    }
}

/// Hive's checks and defaults for a batch to add, before touching anything: the partitions
/// that pass, each with its key.
fn prepare_batch(
    table: &PartitionedTable,
    partitions: Vec<NewPartition>,
    options: &AddPartitionsOptions<'_>,
    limits: &crate::model::value_limits::ValueLimits,
    now: i32,
) -> Result<Vec<(Vec<u8>, NewPartition)>> {
    let mut seen = SeenKeys::with_capacity(partitions.len());
    let mut descriptors = SharedDescriptors::default();
    let locations = DefaultLocations::of(&table.table);
    let now_text = now.to_string();
    let mut prepared: Vec<(Vec<u8>, NewPartition)> = Vec::with_capacity(partitions.len());
    for mut partition in partitions {
        check_belongs(table, &partition)?;
        if partition.values.is_empty() {
            return Err(Error::Refused(
                "The partition values cannot be null or empty.".to_string(),
            ));
        }
        normalize_values_in_place(&mut partition.values);
        check_value_count(table, &partition.values)?;
        check_new_partition_values(table, limits, &partition)?;
        if let Some(whitelist) = options.whitelist {
            whitelist.check(&partition.values)?;
        }
        let key = keys::partition_key(table.id, &partition.values);
        let key_hash = SeenKeys::hash(&key);
        if seen.repeats(key_hash, &key, &prepared) {
            return Err(Error::Refused(format!(
                "Duplicate partitions in the list: {}",
                java_partition(
                    &table.table.db_name,
                    &table.table.table_name,
                    &table.table.cat_name,
                    &partition.values,
                )
            )));
        }
        set_ddl_time_text_if_absent(&mut partition.parameters, &now_text);
        fill_descriptor(table, &mut descriptors, &locations, &mut partition)?;
        seen.insert(key_hash, prepared.len());
        prepared.push((key, partition));
    }
    Ok(prepared)
}

/// The keys of a batch so far, by hash: a repeat is found without a copy of each key.
struct SeenKeys {
    /// Key hash → index of the first partition with that hash.
    first_by_hash: std::collections::HashMap<u64, usize>,
    /// Whether two different keys shared a hash; from then on, repeats are searched for.
    collided: bool,
}

impl SeenKeys {
    fn with_capacity(count: usize) -> Self {
        SeenKeys {
            first_by_hash: std::collections::HashMap::with_capacity(count),
            collided: false,
        }
    }

    fn hash(key: &[u8]) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut hasher);
        hasher.finish()
    }

    /// Whether `key` (of hash `key_hash`) is the key of a partition of `prepared`.
    fn repeats<T>(&mut self, key_hash: u64, key: &[u8], prepared: &[(Vec<u8>, T)]) -> bool {
        match self.first_by_hash.get(&key_hash) {
            None if !self.collided => false,
            Some(&index) if prepared[index].0 == key => true,
            Some(_) => {
                self.collided = true;
                prepared.iter().any(|(held, _)| held == key)
            }
            None => prepared.iter().any(|(held, _)| held == key),
        }
    }

    fn insert(&mut self, key_hash: u64, index: usize) {
        self.first_by_hash.entry(key_hash).or_insert(index);
    }
}

fn check_belongs(table: &PartitionedTable, partition: &NewPartition) -> Result<()> {
    // Nearly always empty or exactly the stored (normalised) name: no need to normalise them.
    let same = |given: &str, stored: &str| given.is_empty() || given == stored;
    if same(&partition.db_name, &table.table.db_name)
        && same(&partition.table_name, &table.table.table_name)
    {
        return Ok(());
    }
    let (_, database, name) = normalize_names("", &partition.db_name, &partition.table_name);
    let database_ok = database.is_empty() || database == table.table.db_name;
    let name_ok = name.is_empty() || name == table.table.table_name;
    if database_ok && name_ok {
        return Ok(());
    }
    Err(Error::Refused(format!(
        "Partition does not belong to target table {}.{}: {}",
        table.table.db_name,
        table.table.table_name,
        java_partition(&database, &name, &partition.cat_name, &partition.values)
    )))
}

fn fill_names(table: &PartitionedTable, partition: &mut Partition) {
    partition.cat_name = table.table.cat_name.clone();
    partition.db_name = table.table.db_name.clone();
    partition.table_name = table.table.table_name.clone();
}

/// The shared descriptors of one batch as stored: without location, columns lower-cased. Each
/// is made once per batch: the table's, and the last one given (partitions of one request
/// share theirs).
#[derive(Default)]
struct SharedDescriptors {
    table: Option<Arc<StorageDescriptor>>,
    /// The last descriptor given, and what it is stored as.
    last_given: Option<(Arc<StorageDescriptor>, Arc<StorageDescriptor>)>,
}

impl SharedDescriptors {
    fn of_table(&mut self, table: &Table) -> Arc<StorageDescriptor> {
        let shared = self.table.get_or_insert_with(|| {
            let mut sd = table.sd.clone().unwrap_or_default();
            sd.location = None;
            lowercase_columns(&mut sd);
            Arc::new(sd)
        });
        shared.clone()
    }

    fn normalized(&mut self, given: Arc<StorageDescriptor>) -> Arc<StorageDescriptor> {
        if let Some((last, stored)) = &self.last_given {
            if Arc::ptr_eq(last, &given) {
                return stored.clone();
            }
        }
        let stored = if given.location.is_some() || has_upper_case_column(&given) {
            let mut sd = StorageDescriptor::clone(&given);
            sd.location = None;
            lowercase_columns(&mut sd);
            Arc::new(sd)
        } else {
            given.clone()
        };
        self.last_given = Some((given, stored.clone()));
        stored
    }
}

fn has_upper_case_column(sd: &StorageDescriptor) -> bool {
    let upper = |name: &str| !name.is_ascii() || name.bytes().any(|b| b.is_ascii_uppercase());
    sd.cols.iter().any(|column| upper(&column.name))
}

/// The table's descriptor when none is given; the default location when
/// none is given and the table has one.
fn fill_descriptor(
    table: &PartitionedTable,
    descriptors: &mut SharedDescriptors,
    locations: &DefaultLocations,
    partition: &mut NewPartition,
) -> Result<()> {
    let shared = match partition.descriptor.take() {
        Some(given) => descriptors.normalized(given),
        None => descriptors.of_table(&table.table),
    };
    partition.descriptor = Some(shared);
    crate::catalog::databases::clear_blank(&mut partition.location);
    match (&locations.parent, partition.location.is_some()) {
        (Some(_), false) => partition.location = locations.of_values(&partition.values),
        (None, true) if table.table.is_view() => {
            return Err(Error::Refused(
                "Cannot specify location for a view partition".to_string(),
            ))
        }
        _ => {}
    }
    Ok(())
}

/// Default partition locations of one table, `<table location>/<partition name>`, with what
/// every one of them repeats made once.
struct DefaultLocations {
    /// `<table location>/`; none when the table has no location.
    parent: Option<String>,
    escaped_keys: Vec<String>,
}

impl DefaultLocations {
    fn of(table: &Table) -> Self {
        let keys: Vec<&str> = table
            .partition_keys
            .iter()
            .map(|key| key.name.as_str())
            .collect();
        DefaultLocations {
            parent: table.location().map(|location| join_location(location, "")),
            escaped_keys: crate::model::partition_name::escaped_keys(&keys),
        }
    }

    /// The default location of `values`, when the table has a location.
    fn of_values(&self, values: &[String]) -> Option<String> {
        let parent = self.parent.as_deref()?;
        let mut location = String::with_capacity(parent.len() + 16 * values.len());
        location.push_str(parent);
        crate::model::partition_name::push_partition_name(
            &mut location,
            &self.escaped_keys,
            values,
        );
        Some(location)
    }
}

/// Drops from `prepared` the partitions that exist; without
/// `if_not_exists`, any existing one fails the batch with Hive 4's message (naming the first
/// in the request's order).
fn skip_existing(
    txn: &WriteTxn<'_>,
    table: &PartitionedTable,
    prepared: Vec<(Vec<u8>, NewPartition)>,
    if_not_exists: bool,
) -> Result<Vec<(Vec<u8>, NewPartition)>> {
    let existing = existing_keys(txn.reader(), &prepared)?;
    if let (Some(first), false) = (existing.iter().position(|exists| *exists), if_not_exists) {
        return Err(Error::AlreadyExists(format!(
            "Partition already exists: {}",
            java_partition(
                &table.table.db_name,
                &table.table.table_name,
                &table.table.cat_name,
                &prepared[first].1.values,
            )
        )));
    }
    let added = prepared.into_iter().zip(existing);
    Ok(added
        .filter(|(_, exists)| !exists)
        .map(|(entry, _)| entry)
        .collect())
}

/// Which keys of `prepared` are stored. Rather than one lookup per key, the keys are walked in
/// order, each lookup finding the first stored key at or after the next one: every key before
/// it is absent. Partitions are mostly added past those stored (new dates), and then a batch
/// of 1,000 costs a few lookups; at worst, one per key, as before.
fn existing_keys<T>(
    reader: &dyn crate::storage::kv::KvBackend,
    prepared: &[(Vec<u8>, T)],
) -> Result<Vec<bool>> {
    let mut existing = vec![false; prepared.len()];
    let mut order: Vec<usize> = (0..prepared.len()).collect();
    order.sort_unstable_by(|a, b| prepared[*a].0.cmp(&prepared[*b].0));
    let Some(&last) = order.last() else {
        return Ok(existing);
    };
    let end = std::ops::Bound::Included(prepared[last].0.clone());
    let mut next = 0;
    // Bounded: every lookup moves `next` on by one at least.
    while next < order.len() {
        let range = crate::storage::kv::KeyRange {
            start: std::ops::Bound::Included(prepared[order[next]].0.clone()),
            end: end.clone(),
        };
        let Some((stored, _)) = reader.scan(&range, 1)?.into_iter().next() else {
            break;
        };
        let stored: &[u8] = &stored;
        while next < order.len() && prepared[order[next]].0.as_slice() < stored {
            next += 1;
        }
        if next < order.len() && prepared[order[next]].0.as_slice() == stored {
            existing[order[next]] = true;
            next += 1;
        }
    }
    Ok(existing)
}

/// Logs an add's partitions (one `ADD_PARTITION` event for the batch, as Hive; none when
/// nothing was added), and hands them back from the event.
fn emit_added(
    txn: &mut WriteTxn<'_>,
    table: Table,
    images: ImagesBuilder,
) -> Result<AddedPartitions> {
    if images.is_empty() {
        return Ok(AddedPartitions::new(table, PartitionImages::default()));
    }
    let (stored, records) = images.finish(&table)?;
    let body = EventBody::StoredPartitions(stored);
    let mut event = EventRecord::of_table(EventKind::AddPartition, &table, body);
    txn.emit_reused(&mut event)?;
    match event.body {
        EventBody::StoredPartitions(stored) => Ok(added_from_event(table, stored, records)),
        _ => Err(Error::Internal(
            "an add's event lost its partitions".to_string(),
        )),
    }
}

/// How an alter of partitions treats statistics, and whether it is a truncate's rewrite.
struct AlterHow<'a> {
    stats: &'a StatsContext,
    truncate: bool,
}

/// The altered partition, checked against the stored one; and the stored one.
/// Refuses a partition to add whose values, parameters or descriptor are too long.
fn check_new_partition_values(
    table: &PartitionedTable,
    limits: &crate::model::value_limits::ValueLimits,
    partition: &NewPartition,
) -> Result<()> {
    limits.check_partition_values(&table.table.partition_keys, &partition.values)?;
    limits.check_parameters("partition parameter", &partition.parameters)?;
    crate::model::value_limits::check_location("partition", &partition.location)?;
    match &partition.descriptor {
        Some(sd) => limits.check_descriptor("partition", sd),
        None => Ok(()),
    }
}

/// Refuses a partition to store whose values, parameters or descriptor are too long.
fn check_partition_values(
    table: &PartitionedTable,
    limits: &crate::model::value_limits::ValueLimits,
    partition: &Partition,
) -> Result<()> {
    limits.check_partition_values(&table.table.partition_keys, &partition.values)?;
    limits.check_parameters("partition parameter", &partition.parameters)?;
    match &partition.sd {
        Some(sd) => limits.check_descriptor("partition", sd),
        None => Ok(()),
    }
}

fn prepare_altered(
    txn: &WriteTxn<'_>,
    table: &PartitionedTable,
    limits: &crate::model::value_limits::ValueLimits,
    mut partition: Partition,
    now: i32,
) -> Result<(Partition, Partition)> {
    partition.values = normalize_values(&partition.values);
    check_value_count(table, &partition.values)?;
    check_partition_values(table, limits, &partition)?;
    let old = read_partition(txn, table, &partition.values)?.ok_or_else(|| {
        Error::NoSuchObject(format!("partition values={}", java_list(&partition.values)))
    })?;
    fill_names(table, &mut partition);
    partition.create_time = old.create_time;
    set_ddl_time_if_absent(&mut partition.parameters, now);
    match partition.sd.as_mut() {
        Some(sd) => {
            lowercase_columns(sd);
            crate::catalog::databases::clear_blank(&mut sd.location);
            if sd.location.is_none() {
                sd.location = old.location().map(str::to_string);
            }
        }
        None => partition.sd = old.sd.clone(),
    }
    Ok((old, partition))
}

/// Logs the alter of `before` into `after` (Hive: one `ALTER_PARTITION` per partition).
fn emit_partition_altered(
    txn: &mut WriteTxn<'_>,
    table: &Table,
    before: &Partition,
    after: &Partition,
    is_truncate: bool,
) -> Result<()> {
    let body = EventBody::Partitions {
        table: table.clone(),
        before: Some(PartitionImages::of([before])),
        after: PartitionImages::of([after]),
        is_truncate,
    };
    txn.emit(EventRecord::of_table(
        EventKind::AlterPartition,
        table,
        body,
    ))?;
    Ok(())
}

/// Logs `partitions` of `table` added (one event for the batch, as Hive) or dropped (one
/// event each, as Hive's `drop_partitions_req`).
pub(crate) fn emit_partitions(
    txn: &mut WriteTxn<'_>,
    kind: EventKind,
    table: &Table,
    partitions: &[Partition],
) -> Result<()> {
    if partitions.is_empty() {
        return Ok(());
    }
    let batches: Vec<&[Partition]> = match kind {
        EventKind::DropPartition => partitions.chunks(1).collect(),
        _ => vec![partitions],
    };
    for batch in batches {
        let body = EventBody::Partitions {
            table: table.clone(),
            before: None,
            after: PartitionImages::of(batch),
            is_truncate: false,
        };
        txn.emit(EventRecord::of_table(kind, table, body))?;
    }
    Ok(())
}

/// Rewrites the location of every partition of `table` under `from` to lie
/// under `to`: a managed table's directory moved on rename.
pub(crate) fn relocate_partitions(
    txn: &mut WriteTxn<'_>,
    table: keys::TableId,
    from: &str,
    to: &str,
) -> Result<()> {
    let from = normalize_location(from).to_string();
    let to = normalize_location(to).to_string();
    let entries: Vec<_> = crate::partitions::partitioned::scan_range(
        txn.reader(),
        crate::partitions::partitioned::partitions_range(table),
    )
    .collect::<Result<_>>()?;
    for (key, stored, _) in entries {
        let mut record = ValueView::<PartitionRecord>::new(key.clone(), stored)?.to_owned()?;
        let Some(location) = record.location.as_deref() else {
            continue;
        };
        let Some(rest) = location.strip_prefix(from.as_str()) else {
            continue;
        };
        if !rest.starts_with('/') {
            continue;
        }
        record.location = Some(format!("{to}{rest}"));
        txn.put_value(key.to_vec(), &record)?;
    }
    Ok(())
}
