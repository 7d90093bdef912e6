//! Changes reported by clients rather than made here: inserts (`fire_listener_event`) and the
//! writes of transactions (`add_write_notification_log`), which also feed the transaction's
//! `COMMIT_TXN` event and `get_all_write_event_info`.

use crate::error::{Error, Result};
use crate::model::partition::PartitionRecord;
use crate::partitions::descriptors::KeptDescriptors;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::{assemble, normalize_values, read_view, resolve_table};
use crate::storage::keys;
use crate::storage::kv::{KeyRange, KvBackend};
use crate::storage::values::ValueView;
use crate::store::Store;

use super::model::{EventBody, EventKind, EventRecord, InsertData, PartitionImages, WriteEvent};

/// At most this many inserts are reported by one `fire_listener_event`.
pub const INSERT_EVENT_COUNT_MAX: usize = 10_000;
/// At most this many writes are recorded by one `add_write_notification_log_in_batch`.
pub const WRITE_NOTIFICATION_COUNT_MAX: usize = 10_000;

/// Inserts into one table (or partitions of it), as `fire_listener_event` reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InsertEvent {
    /// The catalog (empty: `hive`).
    pub catalog: String,
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// Each insert, with the partition's values when the table is partitioned.
    pub inserts: Vec<(Option<Vec<String>>, InsertData)>,
}

/// One write of a transaction, as `add_write_notification_log` reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteNotification {
    /// The transaction.
    pub txn_id: u64,
    /// The write id.
    pub write_id: i64,
    /// The catalog (empty: `hive`).
    pub catalog: String,
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// The partition's values, when the write went to a partition.
    pub partition_values: Option<Vec<String>>,
    /// The files.
    pub files: InsertData,
}

/// The table and, with `values`, its existing partition, for an event about them.
fn table_and_partition(
    reader: &dyn KvBackend,
    table: &PartitionedTable,
    values: Option<&Vec<String>>,
) -> Result<Option<PartitionImages>> {
    let Some(values) = values.filter(|values| !values.is_empty()) else {
        return Ok(None);
    };
    let values = normalize_values(values);
    let key = keys::partition_key(table.id, &values);
    let record = read_view::<PartitionRecord>(reader, &key)?;
    let Some(record) = record else {
        return Err(Error::NoSuchObject(format!(
            "Partition {} of table {}.{} not found",
            table.partition_name(&values),
            table.table.db_name,
            table.table.table_name
        )));
    };
    let mut descriptors = KeptDescriptors::new(table.id);
    let partition = assemble(
        reader,
        &mut descriptors,
        &table.table,
        values,
        record.to_owned()?,
        false,
    )?;
    Ok(Some(PartitionImages::of([&partition])))
}

/// Builds the record of `write` from the table and partition as stored now; both must
/// exist. Answers its key in the write-event keyspace and the record.
pub(crate) fn build_write_event(
    reader: &dyn KvBackend,
    write: &WriteNotification,
) -> Result<(Vec<u8>, WriteEvent)> {
    let table = resolve_table(reader, &write.catalog, &write.database, &write.table)?;
    let partition = table_and_partition(reader, &table, write.partition_values.as_ref())?;
    let partition_name = partition
        .as_ref()
        .and_then(|images| images.partitions.first())
        .map(|image| table.partition_name(&image.values));
    let key = keys::write_event_key(
        write.txn_id,
        &table.table.db_name,
        &table.table.table_name,
        partition_name.as_deref().unwrap_or(""),
    );
    let recorded = WriteEvent {
        txn_id: write.txn_id,
        write_id: write.write_id,
        catalog: table.table.cat_name.clone(),
        database: table.table.db_name.clone(),
        table: table.table.table_name.clone(),
        partition: partition_name,
        files: write.files.clone(),
        table_object: table.table,
        partition_object: partition,
    };
    Ok((key, recorded))
}

/// File systems whose files Hive checksums when it records a replayed write (Hadoop's
/// `getFileChecksum`); the others answer none by default, and Hive records none.
const CHECKSUMMED_SCHEMES: [&str; 4] = ["hdfs", "viewfs", "webhdfs", "swebhdfs"];

/// `child` resolved against directory `parent`, as Hadoop's `new Path(parent, child)`: a
/// relative child goes below the parent, an absolute one keeps the parent's scheme and
/// authority only.
fn hadoop_child(parent: &str, child: &str) -> String {
    if !child.starts_with('/') {
        return format!("{}/{child}", parent.trim_end_matches('/'));
    }
    let path_start = match parent.find("://") {
        Some(scheme_end) => parent[scheme_end + 3..]
            .find('/')
            .map_or(parent.len(), |slash| scheme_end + 3 + slash),
        None => match parent.find(':') {
            Some(colon) if !parent[..colon].contains('/') => colon + 1,
            _ => 0,
        },
    };
    format!("{}{child}", &parent[..path_start])
}

/// The scheme of `location` (`hdfs` of `hdfs://nn/x`), lowercased; `None` for a bare path.
fn scheme_of(location: &str) -> Option<String> {
    let (scheme, _) = location.split_once(':')?;
    let valid = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

/// A write of a replayed transaction (`commit_txn` of a `REPL_CREATED` transaction) with its
/// files as Hive's `commit_txn` records them: the files name the source's warehouse, each
/// encoded `uri#checksum#cmroot#subdir` as Hive's change manager writes them, and are
/// recorded at this table's (or partition's) location: `<location>/<subdir>/<file name>`,
/// the write replacing the data, with the subdirectories. Hive also records each file's
/// checksum as its file system computes it; hivestore reads no file system, so a location on
/// one that checksums its files (HDFS) is refused; the others give none, as in Hive. The
/// table and partition must exist.
pub(crate) fn relocate_replayed_write(
    reader: &dyn KvBackend,
    write: WriteNotification,
) -> Result<WriteNotification> {
    let table = resolve_table(reader, &write.catalog, &write.database, &write.table)?;
    let root = match write.partition_values.as_ref().filter(|v| !v.is_empty()) {
        Some(values) => {
            let values = normalize_values(values);
            let key = keys::partition_key(table.id, &values);
            let Some(record) = read_view::<PartitionRecord>(reader, &key)? else {
                return Err(Error::NoSuchObject(format!(
                    "Partition {} of table {}.{} not found",
                    table.partition_name(&values),
                    table.table.db_name,
                    table.table.table_name
                )));
            };
            record.to_owned()?.location
        }
        None => table.table.location().map(str::to_string),
    };
    let described = || {
        format!(
            "commit_txn of a REPL_CREATED transaction: the write to {}.{}",
            table.table.db_name, table.table.table_name
        )
    };
    let Some(root) = root.filter(|root| !root.is_empty()) else {
        return Err(Error::Refused(format!(
            "{} has no location to record its files at",
            described()
        )));
    };
    if let Some(scheme) = scheme_of(&root).filter(|s| CHECKSUMMED_SCHEMES.contains(&s.as_str())) {
        return Err(Error::Refused(format!(
            "{} is at {root}, on a {scheme} file system: Hive records the checksum the file system computes for each replayed file, which hivestore does not read; replayed writes are supported at locations of other file systems only",
            described()
        )));
    }
    let mut files = InsertData {
        replace: true,
        ..InsertData::default()
    };
    for encoded in &write.files.files_added {
        let mut parts = encoded.trim().split('#');
        let uri = parts.next().unwrap_or_default();
        let subdir = parts.nth(2).filter(|subdir| !subdir.is_empty());
        let name = uri
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default();
        if name.is_empty() {
            return Err(Error::InvalidInput(format!(
                "{}: {encoded:?} names no file",
                described()
            )));
        }
        let directory = match subdir {
            Some(subdir) => hadoop_child(&root, subdir),
            None => root.clone(),
        };
        let relocated = Some(hadoop_child(&directory, name));
        crate::model::value_limits::check_location("replayed file", &relocated)?;
        files.files_added.extend(relocated);
        files
            .sub_directories
            .push(subdir.unwrap_or_default().to_string());
    }
    if files.sub_directories.iter().all(String::is_empty) {
        files.sub_directories.clear();
    }
    Ok(WriteNotification { files, ..write })
}

/// The `ACID_WRITE` event of a recorded write.
pub(crate) fn write_event_record(recorded: &WriteEvent) -> EventRecord {
    EventRecord::of_table(
        EventKind::AcidWrite,
        &recorded.table_object,
        EventBody::AcidWrite(recorded.clone()),
    )
}

impl Store {
    /// Hive's `fire_listener_event` for inserts: one `INSERT` event each, in one write; the
    /// table (and each partition named) must exist. Returns the event ids.
    pub fn record_inserts(&self, event: InsertEvent) -> Result<Vec<u64>> {
        if event.inserts.len() > INSERT_EVENT_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "fire_listener_event reports {} inserts; at most {INSERT_EVENT_COUNT_MAX} are allowed",
                event.inserts.len()
            )));
        }
        self.write(|txn| {
            let table = resolve_table(txn.reader(), &event.catalog, &event.database, &event.table)?;
            let mut event_ids = Vec::with_capacity(event.inserts.len());
            for (values, data) in &event.inserts {
                let partition = table_and_partition(txn.reader(), &table, values.as_ref())?;
                let body = EventBody::Insert {
                    table: table.table.clone(),
                    partition,
                    data: data.clone(),
                };
                let record = EventRecord::of_table(EventKind::Insert, &table.table, body);
                event_ids.push(txn.emit(record)?);
            }
            Ok(event_ids)
        })
    }

    /// Hive's `add_write_notification_log(_in_batch)`: records each write of a transaction
    /// (a later one for the same table or partition replaces it) with an `ACID_WRITE`
    /// event, in one write. The tables and partitions must exist.
    pub fn record_writes(&self, writes: Vec<WriteNotification>) -> Result<()> {
        if writes.len() > WRITE_NOTIFICATION_COUNT_MAX {
            return Err(Error::InvalidInput(format!(
                "add_write_notification_log_in_batch reports {} writes; at most {WRITE_NOTIFICATION_COUNT_MAX} are allowed",
                writes.len()
            )));
        }
        self.write(|txn| {
            for write in &writes {
                let (key, recorded) = build_write_event(txn.reader(), write)?;
                txn.put_value(key, &recorded)?;
                txn.emit(write_event_record(&recorded))?;
            }
            Ok(())
        })
    }

    /// Hive's `get_all_write_event_info`: the writes recorded for `txn_id`, of `database`
    /// and `table` when given, by database, table and partition.
    pub fn write_events(
        &self,
        txn_id: u64,
        database: Option<&str>,
        table: Option<&str>,
    ) -> Result<Vec<WriteEvent>> {
        let database = database.map(crate::model::names::normalize);
        let table = table.map(crate::model::names::normalize);
        let mut found = Vec::new();
        for write in read_write_events(self.reader(), txn_id)? {
            let database_matches = database.as_ref().is_none_or(|d| *d == write.database);
            let table_matches = table.as_ref().is_none_or(|t| *t == write.table);
            if database_matches && table_matches {
                found.push(write);
            }
        }
        Ok(found)
    }
}

/// The writes recorded for `txn_id`.
pub(crate) fn read_write_events(
    reader: &dyn crate::storage::kv::KvBackend,
    txn_id: u64,
) -> Result<Vec<WriteEvent>> {
    let range = KeyRange::prefix(&keys::write_event_prefix(txn_id));
    let mut found = Vec::new();
    for entry in crate::storage::kv::scan(reader, range, crate::storage::kv::SCAN_PAGE_ENTRY_COUNT)
    {
        let (key, stored) = entry?;
        found.push(ValueView::<WriteEvent>::new(key, stored)?.to_owned()?);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::{hadoop_child, scheme_of};

    #[test]
    fn replayed_files_resolve_below_a_location_as_hadoops_paths_do() {
        assert_eq!(hadoop_child("file:/w/t/", "delta_1"), "file:/w/t/delta_1");
        assert_eq!(hadoop_child("/w/t", "b0"), "/w/t/b0");
        assert_eq!(
            hadoop_child("s3a://bucket/w/t", "/abs/d"),
            "s3a://bucket/abs/d"
        );
        assert_eq!(hadoop_child("s3a://bucket", "/abs"), "s3a://bucket/abs");
        assert_eq!(hadoop_child("file:/w/t", "/abs"), "file:/abs");
        assert_eq!(hadoop_child("/w/t", "/abs"), "/abs");
        assert_eq!(scheme_of("HDFS://nn:8020/w").as_deref(), Some("hdfs"));
        assert_eq!(scheme_of("/w/t:x"), None);
        assert_eq!(scheme_of("file:/w"), Some("file".to_string()));
    }
}
