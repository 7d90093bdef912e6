//! Writing and deleting statistics, and keeping them with their objects: a dropped table or
//! partition takes its statistics along, a renamed partition keeps its slot, a column dropped
//! or retyped loses its statistics. Every change is staged in the caller's write, so it lands
//! in the same atomic batch as the change it follows.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::accurate::{StatsAccuracy, COLUMN_STATS_ACCURATE};
use super::chunk::TableStatsRecord;
use super::chunk_writer::ChunkWriter;
use super::merge::merge;
use super::slots::{find_slot, SlotAllocator};
use super::snapshot::AccuracyWrite;
use super::{ColumnStatistics, StatsWriteOptions};
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord, StoredStatistics, TableImage};
use crate::model::partition::PartitionRecord;
use crate::model::table::Table;
use crate::partitions::partitioned::values_of_name;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::resolve_table;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::{self, KeyRange, KvBackend};
use crate::store::{Store, WriteTxn};

/// Hive's message for statistics of a partition that does not exist.
pub(crate) const NO_SUCH_PARTITION: &str = "Partition for which stats is gathered doesn't exist.";

/// Table `catalog.database.name` for a statistics call; a missing database or table is
/// Hive's `Specified database/table does not exist : db.table`.
pub(crate) fn resolve_stats_table(
    reader: &dyn KvBackend,
    catalog: &str,
    database: &str,
    name: &str,
) -> Result<PartitionedTable> {
    resolve_table(reader, catalog, database, name).map_err(|error| match error {
        Error::NoSuchObject(_) => Error::NoSuchObject(format!(
            "Specified database/table does not exist : {}.{}",
            database.trim().to_lowercase(),
            name.trim().to_lowercase()
        )),
        other => other,
    })
}

/// A partition name with its keys lowercased (values kept), as Hive normalises names in
/// statistics requests: `DS=A/Hr=1` → `ds=A/hr=1`.
pub fn normalize_partition_name(name: &str) -> String {
    let lower_key = |component: &str| match component.split_once('=') {
        Some((key, value)) => format!("{}={value}", key.to_lowercase()),
        None => component.to_string(),
    };
    name.split('/').map(lower_key).collect::<Vec<_>>().join("/")
}

/// Partition `name` of `table` for a statistics write: Hive's errors for names that are no
/// partition name, and for unpartitioned tables.
fn partition_to_write(
    reader: &dyn KvBackend,
    table: &PartitionedTable,
    name: &str,
) -> Result<(Vec<String>, PartitionRecord)> {
    if table.table.partition_keys.is_empty() {
        return Err(Error::Refused(
            "Invalid partition key & values; keys [], values []".to_string(),
        ));
    }
    if crate::partition_name_to_spec(name).is_empty() {
        return Err(Error::Refused(format!("Partition name is invalid. {name}")));
    }
    existing_partition(reader, table, name)?
        .ok_or_else(|| Error::NoSuchObject(NO_SUCH_PARTITION.to_string()))
}

/// The table's data columns, lowercased (partition keys are not among them).
pub(crate) fn data_columns(table: &Table) -> BTreeSet<String> {
    let columns = table.sd.iter().flat_map(|sd| sd.cols.iter());
    columns.map(|column| column.name.to_lowercase()).collect()
}

/// Hive's check that statistics name columns of the table.
pub(crate) fn check_table_columns<'a>(
    table: &Table,
    columns: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    let known = data_columns(table);
    for column in columns {
        if !known.contains(column) {
            return Err(Error::Refused(format!(
                "Column {column} doesn't exist in table {} in database {}",
                table.table_name, table.db_name
            )));
        }
    }
    Ok(())
}

/// Partition `name`'s values, if `name` names a partition of `table` that exists.
pub(crate) fn existing_partition(
    reader: &dyn KvBackend,
    table: &PartitionedTable,
    name: &str,
) -> Result<Option<(Vec<String>, PartitionRecord)>> {
    let Some(values) = values_of_name(table, &normalize_partition_name(name)) else {
        return Ok(None);
    };
    let key = keys::partition_key(table.id, &values);
    match crate::partitions::stored::read_view::<PartitionRecord>(reader, &key)? {
        Some(view) => Ok(Some((values, view.to_owned()?))),
        None => Ok(None),
    }
}

/// Statistics of one request by column, in column order: a column named once is borrowed from
/// the request (which its event logs as sent), one named more than once is merged in request
/// order. Copying every statistic into a map was a tenth of a write.
fn by_column(sent: &[ColumnStatistics]) -> Vec<Cow<'_, ColumnStatistics>> {
    let mut order: Vec<usize> = (0..sent.len()).collect();
    // Stable: equal columns stay in request order for the merge.
    order.sort_by(|&a, &b| sent[a].column_name.cmp(&sent[b].column_name));
    let mut columns: Vec<Cow<'_, ColumnStatistics>> = Vec::with_capacity(sent.len());
    for index in order {
        let stat = &sent[index];
        match columns.last_mut() {
            Some(last) if last.column_name == stat.column_name => {
                let old = std::mem::replace(last, Cow::Borrowed(stat)).into_owned();
                *last = Cow::Owned(merge(old, stat.clone()));
            }
            _ => columns.push(Cow::Borrowed(stat)),
        }
    }
    columns
}

/// Partitions of one write mostly share their `COLUMN_STATS_ACCURATE` value and the columns
/// written to them, so the value parsed and rewritten for one partition is reused for the next
/// (parsing a 50-column value cost more than writing the partition's statistics).
#[derive(Default)]
struct AccuracyMemo {
    /// The last stored value parsed, and what it says.
    parsed: Option<(Option<String>, StatsAccuracy)>,
    /// The last rewrite: the stored value, the columns marked, the value written.
    rewritten: Option<(Option<String>, Vec<String>, String)>,
}

impl AccuracyMemo {
    /// What the stored value `stored` says is accurate.
    fn parse(&mut self, stored: Option<&str>) -> &StatsAccuracy {
        let parsed = match self.parsed.take() {
            Some((old, accuracy)) if old.as_deref() == stored => (old, accuracy),
            _ => (stored.map(str::to_string), StatsAccuracy::parse(stored)),
        };
        &self.parsed.insert(parsed).1
    }

    /// The stored value `stored` with `columns` marked accurate.
    fn rewrite(&mut self, stored: Option<&str>, columns: &[String]) -> String {
        if let Some((old, marked, value)) = &self.rewritten {
            if old.as_deref() == stored && marked.as_slice() == columns {
                return value.clone();
            }
        }
        let mut accuracy = self.parse(stored).clone();
        accuracy.columns.extend(columns.iter().cloned());
        let value = accuracy.to_json();
        self.rewritten = Some((stored.map(str::to_string), columns.to_vec(), value.clone()));
        value
    }
}

/// Hive's `getMergableCols`: when merging over stored statistics, only the columns the target
/// marks accurate are written.
fn mergeable<'a>(
    mut stats: Vec<Cow<'a, ColumnStatistics>>,
    accuracy: &StatsAccuracy,
    has_stored: bool,
    options: &StatsWriteOptions,
) -> Vec<Cow<'a, ColumnStatistics>> {
    if options.merge && has_stored {
        stats.retain(|stat| accuracy.columns.contains(stat.column_name.as_str()));
    }
    stats
}

impl Store {
    /// Writes table-level statistics of table `catalog.database.name` for `options.engine`;
    /// Hive's `update_table_column_statistics`. Every column must be a data column of the
    /// table. Marks the columns accurate in `COLUMN_STATS_ACCURATE`.
    pub fn update_table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        stats: Vec<ColumnStatistics>,
        options: &StatsWriteOptions,
    ) -> Result<()> {
        let limits = &self.options().value_limits;
        limits.check_statistics(&options.engine, &stats)?;
        self.write(|txn| {
            let PartitionedTable { id, mut table } =
                resolve_stats_table(txn.reader(), catalog, database, name)?;
            if stats.is_empty() {
                return Ok(());
            }
            let columns = by_column(&stats);
            check_table_columns(&table, columns.iter().map(|stat| stat.column_name.as_str()))?;
            let accuracy_write = AccuracyWrite::new(&table, options)?;
            let mut accuracy = StatsAccuracy::parse(
                table
                    .parameters
                    .get(COLUMN_STATS_ACCURATE)
                    .map(String::as_str),
            );
            let mut stored = BTreeMap::new();
            // Stored statistics matter only to a merge.
            for stat in columns.iter().filter(|_| options.merge) {
                let column = &stat.column_name;
                let key = keys::table_stats_key(id, column, &options.engine);
                if let Some(view) = txn.view::<TableStatsRecord>(&key)? {
                    stored.insert(column.clone(), view.to_owned()?);
                }
            }
            let columns = mergeable(columns, &accuracy, !stored.is_empty(), options);
            for mut stat in columns {
                let column = stat.column_name.to_string();
                if let Some(old) = stored.get(column.as_str()).filter(|_| options.merge) {
                    if let Some(old) = table_record_statistics(old, &column) {
                        stat = Cow::Owned(merge(old, stat.into_owned()));
                    }
                }
                let mut record = TableStatsRecord::default();
                record.row.set(0, &stat, options.last_analyzed);
                record.bit_vectors = stat.bit_vectors.clone();
                record.histogram = stat.histogram.clone();
                txn.put_value(keys::table_stats_key(id, &column, &options.engine), &record)?;
                accuracy.columns.insert(column);
            }
            let (parameters, write_id) = (&mut table.parameters, &mut table.write_id);
            accuracy_write.set(parameters, accuracy.to_json(), write_id)?;
            txn.put_value(keys::table_key(id), &table)?;
            let event =
                StatsEvent::update(&table, None, stats, &options.engine, &table.parameters)?;
            txn.emit(event)?;
            Ok(())
        })
    }

    /// Writes statistics of partitions of table `catalog.database.name` (each by name) for
    /// `options.engine`; Hive's `update_partition_column_statistics` and `set_aggr_stats_for`.
    /// All or nothing: a partition that does not exist fails the whole write. A partition
    /// named twice has its statistics merged. Marks the columns accurate in each partition's
    /// `COLUMN_STATS_ACCURATE`.
    pub fn update_partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<(String, Vec<ColumnStatistics>)>,
        options: &StatsWriteOptions,
    ) -> Result<()> {
        let limits = &self.options().value_limits;
        let written = partitions.iter().flat_map(|(_, stats)| stats);
        limits.check_statistics(&options.engine, written)?;
        self.write(|txn| {
            let table = resolve_stats_table(txn.reader(), catalog, database, name)?;
            let mut requested: BTreeMap<Vec<String>, (PartitionRecord, Vec<ColumnStatistics>)> =
                BTreeMap::new();
            for (partition_name, stats) in partitions {
                let (values, record) = partition_to_write(txn.reader(), &table, &partition_name)?;
                requested
                    .entry(values)
                    .or_insert_with(|| (record, Vec::new()))
                    .1
                    .extend(stats);
            }
            let recent_slot_count_max = self.options().recent_slot_count_max;
            let mut writer = ChunkWriter::new(table.id, &options.engine, recent_slot_count_max);
            let mut slots = SlotAllocator::load(txn, table.id)?;
            let mut memo = AccuracyMemo::default();
            let mut events = PartitionStatsEvents::new(&table.table, &options.engine)?;
            let accuracy_write = AccuracyWrite::new(&table.table, options)?;
            for (values, (mut record, sent)) in requested {
                let columns = by_column(&sent);
                let slot = slots.slot_for(txn, &values)?;
                let mut stored = BTreeMap::new();
                for stat in columns.iter().filter(|_| options.merge) {
                    let column = &stat.column_name;
                    if let Some(old) = writer.stored(txn, column, slot)? {
                        stored.insert(column.clone(), old);
                    }
                }
                let columns = match options.merge {
                    true => {
                        let parameters = &record.parameters;
                        let accuracy =
                            memo.parse(parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str));
                        mergeable(columns, accuracy, !stored.is_empty(), options)
                    }
                    false => columns,
                };
                let mut written = Vec::with_capacity(columns.len());
                for mut stat in columns {
                    if let Some(old) = stored.remove(&stat.column_name).filter(|_| options.merge) {
                        stat = Cow::Owned(merge(old, stat.into_owned()));
                    }
                    writer.set(txn, &stat.column_name, slot, &stat, options.last_analyzed)?;
                    written.push(stat.column_name.to_string());
                }
                let parameters = &record.parameters;
                let accuracy = memo.rewrite(
                    parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str),
                    &written,
                );
                let (parameters, write_id) = (&mut record.parameters, &mut record.write_id);
                accuracy_write.set(parameters, accuracy, write_id)?;
                txn.put_value(keys::partition_key(table.id, &values), &record)?;
                events.emit(txn, values, sent, record.parameters)?;
            }
            slots.finish(txn);
            writer.finish(txn)
        })
    }

    /// Deletes table-level statistics of `column` (every column when `None`) of table
    /// `catalog.database.name` for `engine`; Hive's `delete_table_column_statistics`. A named
    /// column without statistics fails; `None` succeeds even when there are none. Unmarks the
    /// columns in `COLUMN_STATS_ACCURATE` (Hive 4; Hive 2.3 leaves the parameter alone).
    pub fn delete_table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        column: Option<&str>,
        engine: &str,
    ) -> Result<()> {
        self.write(|txn| {
            let PartitionedTable { id, mut table } =
                resolve_table(txn.reader(), catalog, database, name).map_err(
                    |error| match error {
                        Error::NoSuchObject(_) => Error::NoSuchObject(format!(
                            "Table {}  for which stats deletion is requested doesn't exist",
                            name.trim().to_lowercase()
                        )),
                        other => other,
                    },
                )?;
            let columns: Vec<String> = match column {
                Some(column) => vec![column.to_string()],
                None => data_columns(&table).into_iter().collect(),
            };
            let mut deleted = Vec::new();
            for column in columns {
                let key = keys::table_stats_key(id, &column, engine);
                if txn.get(&key)?.is_some() {
                    txn.delete(key);
                    deleted.push(column);
                }
            }
            if let (Some(column), true) = (column, deleted.is_empty()) {
                return Err(Error::NoSuchObject(format!(
                    "Column stats doesn't exist for db={} table={} col={column}",
                    table.db_name, table.table_name
                )));
            }
            if deleted.is_empty() {
                return Ok(());
            }
            unmark_columns(&mut table.parameters, &deleted);
            txn.put_value(keys::table_key(id), &table)?;
            for column in deleted {
                txn.emit(StatsEvent::delete(&table, None, column, engine)?)?;
            }
            Ok(())
        })
    }

    /// Deletes the statistics of `column` (every column when `None`) of partition
    /// `partition_name` for `engine`; Hive's `delete_partition_column_statistics`. A missing
    /// partition fails, and so does a named column without statistics.
    pub fn delete_partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_name: &str,
        column: Option<&str>,
        engine: &str,
    ) -> Result<()> {
        self.write(|txn| {
            let table = resolve_stats_table(txn.reader(), catalog, database, name)?;
            let missing_partition = || {
                Error::NoSuchObject(format!(
                    "Partition {partition_name} for which stats deletion is requested doesn't exist"
                ))
            };
            let (values, mut record) = existing_partition(txn.reader(), &table, partition_name)?
                .ok_or_else(missing_partition)?;
            let columns: Vec<String> = match column {
                Some(column) => vec![column.to_string()],
                None => data_columns(&table.table).into_iter().collect(),
            };
            let slot = find_slot(txn.reader(), table.id, &values)?;
            let recent_slot_count_max = self.options().recent_slot_count_max;
            let mut writer = ChunkWriter::new(table.id, engine, recent_slot_count_max);
            let mut deleted = Vec::new();
            if let Some(slot) = slot {
                for column in columns {
                    if writer.stored(txn, &column, slot)?.is_some() {
                        writer.clear(txn, &column, slot)?;
                        deleted.push(column);
                    }
                }
            }
            if let (Some(column), true) = (column, deleted.is_empty()) {
                return Err(Error::NoSuchObject(format!(
                    "Column stats doesn't exist for db={} table={} partition={partition_name} col={column}",
                    table.table.db_name, table.table.table_name
                )));
            }
            if deleted.is_empty() {
                return Ok(());
            }
            unmark_columns(&mut record.parameters, &deleted);
            txn.put_value(keys::partition_key(table.id, &values), &record)?;
            for column in deleted {
                let partition = Some(values.clone());
                txn.emit(StatsEvent::delete(&table.table, partition, column, engine)?)?;
            }
            writer.finish(txn)
        })
    }
}

/// Removes `columns` from a `COLUMN_STATS_ACCURATE` parameter, if there is one.
pub(crate) fn unmark_columns(parameters: &mut BTreeMap<String, String>, columns: &[String]) {
    let Some(value) = parameters.get(COLUMN_STATS_ACCURATE) else {
        return;
    };
    let mut accuracy = StatsAccuracy::parse(Some(value));
    for column in columns {
        accuracy.columns.remove(column);
    }
    parameters.insert(COLUMN_STATS_ACCURATE.to_string(), accuracy.to_json());
}

fn table_record_statistics(record: &TableStatsRecord, column: &str) -> Option<ColumnStatistics> {
    let mut stats = record.row.get(0, column)?;
    stats.bit_vectors = record.bit_vectors.clone();
    stats.histogram = record.histogram.clone();
    Some(stats)
}

// ---------------------------------------------------------------------------------------------
// Statistics following their objects.

/// Stages the removal of the statistics of `columns` of table `table`, every engine: the
/// table-level ones, and the partitions' too when `partition_level`.
pub(crate) fn forget_columns(
    txn: &mut WriteTxn<'_>,
    table: TableId,
    columns: &[String],
    partition_level: bool,
) -> Result<()> {
    let keyspaces: &[u8] = if partition_level {
        &[
            keys::KEYSPACE_STATS_CHUNK,
            keys::KEYSPACE_STATS_RECENT,
            keys::KEYSPACE_STATS_SKETCH,
            keys::KEYSPACE_TABLE_STATS,
        ]
    } else {
        &[keys::KEYSPACE_TABLE_STATS]
    };
    for column in columns {
        for &keyspace in keyspaces {
            let prefix = keys::stats_column_prefix(keyspace, table, column);
            txn.delete_range(KeyRange::prefix(&prefix))?;
        }
    }
    Ok(())
}

/// Stages the removal of the table-level statistics of the columns `alter_table` drops or
/// retypes (names compared lowercased, types ignoring case), and unmarks them in `new`'s
/// `COLUMN_STATS_ACCURATE`. Partition-level statistics stay, as in Hive: each partition keeps
/// its own columns unless the alter cascades (which partitions do not take yet).
pub(crate) fn forget_altered_columns(
    txn: &mut WriteTxn<'_>,
    table: TableId,
    old: &Table,
    new: &mut Table,
) -> Result<()> {
    let columns = |table: &Table| -> BTreeMap<String, String> {
        let columns = table.sd.iter().flat_map(|sd| sd.cols.iter());
        let pairs =
            columns.map(|column| (column.name.to_lowercase(), column.type_name.to_lowercase()));
        pairs.collect()
    };
    let new_columns = columns(new);
    let gone: Vec<String> = columns(old)
        .into_iter()
        .filter(|(name, type_name)| new_columns.get(name) != Some(type_name))
        .map(|(name, _)| name)
        .collect();
    if gone.is_empty() {
        return Ok(());
    }
    forget_columns(txn, table, &gone, false)?;
    unmark_columns(&mut new.parameters, &gone);
    Ok(())
}

/// Gives partition `new_values` the slot (and so the statistics) of `old_values`: a rename.
pub(crate) fn move_partition_slot(
    txn: &mut WriteTxn<'_>,
    table: TableId,
    old_values: &[String],
    new_values: &[String],
) -> Result<()> {
    if let Some(slot) = find_slot(txn.reader(), table, old_values)? {
        txn.delete(keys::stats_slot_key(table, old_values));
        txn.put_raw(
            keys::stats_slot_key(table, new_values),
            slot.to_be_bytes().to_vec(),
        );
    }
    Ok(())
}

/// Stages the removal of the statistics of partitions `values_list` of `table`: their slots
/// are cleared in every column's chunk, for every engine.
pub(crate) fn forget_partitions(
    txn: &mut WriteTxn<'_>,
    table: TableId,
    values_list: &[Vec<String>],
) -> Result<()> {
    let mut slots = Vec::new();
    for values in values_list {
        if let Some(slot) = find_slot(txn.reader(), table, values)? {
            txn.delete(keys::stats_slot_key(table, values));
            slots.push(slot);
        }
    }
    if slots.is_empty() {
        return Ok(());
    }
    for (column, engine) in column_engines(txn.reader(), table)? {
        // Clearing a slot merges its chunk whatever the bound.
        let mut writer = ChunkWriter::new(table, &engine, 0);
        for slot in &slots {
            writer.clear(txn, &column, *slot)?;
        }
        writer.finish(txn)?;
    }
    Ok(())
}

/// Every (column, engine) with partition statistics in `table`: one seek per pair, past all
/// of its chunks.
pub(crate) fn column_engines(
    reader: &dyn KvBackend,
    table: TableId,
) -> Result<Vec<(String, String)>> {
    let prefix = keys::stats_table_prefix(keys::KEYSPACE_STATS_CHUNK, table);
    let Some(end) = kv::prefix_successor(&prefix) else {
        return Err(Error::Internal(
            "a table prefix has no successor".to_string(),
        ));
    };
    let mut start = prefix.clone();
    let mut pairs = Vec::new();
    loop {
        let mut scan = kv::scan(reader, KeyRange::between(&start, &end), 1);
        let Some(entry) = scan.next() else {
            return Ok(pairs);
        };
        let (key, _) = entry?;
        let (_, column, engine, _) = keys::decode_stats_column_key(&key)?;
        let pair_prefix =
            keys::stats_column_engine_prefix(keys::KEYSPACE_STATS_CHUNK, table, &column, &engine);
        let next = kv::prefix_successor(&pair_prefix)
            .ok_or_else(|| Error::Internal("a column prefix has no successor".to_string()))?;
        assert!(next > start, "the seek must advance");
        start = next;
        pairs.push((column, engine));
    }
}

/// The `UPDATE_PARTITION_COLUMN_STAT` events of one partition statistics write: one record,
/// its table encoded once per write, refilled for each partition.
struct PartitionStatsEvents {
    record: EventRecord,
}

impl PartitionStatsEvents {
    fn new(table: &Table, engine: &str) -> Result<Self> {
        let record = StatsEvent::update(
            table,
            Some(Vec::new()),
            Vec::new(),
            engine,
            &BTreeMap::new(),
        )?;
        Ok(PartitionStatsEvents { record })
    }

    /// Logs the statistics `sent` for the partition of `values`, whose parameters are
    /// `parameters` after the write; the same content as [`StatsEvent::update`] gives.
    fn emit(
        &mut self,
        txn: &mut WriteTxn<'_>,
        values: Vec<String>,
        sent: Vec<ColumnStatistics>,
        parameters: BTreeMap<String, String>,
    ) -> Result<()> {
        let EventBody::StoredStatistics(body) = &mut self.record.body else {
            return Err(Error::Internal(
                "a partition statistics event without a statistics body".to_string(),
            ));
        };
        body.partition_values = Some(values);
        body.statistics = sent;
        body.parameters = parameters;
        txn.emit_reused(&mut self.record)?;
        Ok(())
    }
}

/// Builds the notification events of statistics writes.
struct StatsEvent;

impl StatsEvent {
    /// `UPDATE_TABLE_COLUMN_STAT` or, with `partition`, `UPDATE_PARTITION_COLUMN_STAT`.
    fn update(
        table: &Table,
        partition: Option<Vec<String>>,
        statistics: Vec<ColumnStatistics>,
        engine: &str,
        parameters: &BTreeMap<String, String>,
    ) -> Result<EventRecord> {
        let kind = match partition {
            Some(_) => EventKind::UpdatePartitionColumnStat,
            None => EventKind::UpdateTableColumnStat,
        };
        let body = StoredStatistics {
            table: TableImage::of(table)?,
            partition_values: partition,
            statistics,
            columns: Vec::new(),
            engine: engine.to_string(),
            parameters: parameters.clone(),
        };
        Ok(EventRecord::of_table(
            kind,
            table,
            EventBody::StoredStatistics(body),
        ))
    }

    /// `DELETE_TABLE_COLUMN_STAT` or, with `partition`, `DELETE_PARTITION_COLUMN_STAT`.
    fn delete(
        table: &Table,
        partition: Option<Vec<String>>,
        column: String,
        engine: &str,
    ) -> Result<EventRecord> {
        let kind = match partition {
            Some(_) => EventKind::DeletePartitionColumnStat,
            None => EventKind::DeleteTableColumnStat,
        };
        let body = StoredStatistics {
            table: TableImage::of(table)?,
            partition_values: partition,
            statistics: Vec::new(),
            columns: vec![column],
            engine: engine.to_string(),
            parameters: BTreeMap::new(),
        };
        Ok(EventRecord::of_table(
            kind,
            table,
            EventBody::StoredStatistics(body),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{StatsKind, StatsValue};

    fn long(column: &str, nulls: i64, low: i64) -> ColumnStatistics {
        let mut stats = ColumnStatistics::new(column, "bigint", StatsKind::Long);
        stats.num_nulls = nulls;
        stats.low_value = Some(StatsValue::Integer(low));
        stats
    }

    #[test]
    fn columns_come_in_column_order_and_a_column_named_twice_is_merged_in_request_order() {
        let sent = vec![
            long("b", 1, 5),
            long("a", 2, 7),
            long("b", 3, -1),
            long("c", 0, 0),
        ];
        let columns = by_column(&sent);
        let names: Vec<&str> = columns
            .iter()
            .map(|stat| stat.column_name.as_str())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        // Named once: the statistic as sent, not a copy.
        assert!(matches!(&columns[0], Cow::Borrowed(stat) if std::ptr::eq(*stat, &sent[1])));
        assert!(matches!(&columns[2], Cow::Borrowed(stat) if std::ptr::eq(*stat, &sent[3])));
        assert!(matches!(&columns[1], Cow::Owned(_)));
        assert_eq!(*columns[1], merge(sent[0].clone(), sent[2].clone()));
        assert!(by_column(&[]).is_empty());
    }
}
