//! What an event holds: its type, the names it concerns, and the objects as they were in
//! the batch that made the change (so that a later drop or alter cannot change what a
//! consumer reads).

use rkyv::{Archive, Deserialize, Serialize};

use crate::model::catalog::Catalog;
use crate::model::constraint::ConstraintRow;
use crate::model::database::Database;
use crate::model::function::Function;
use crate::model::partition::same_shared;
use crate::model::partition::{Partition, PartitionRecord};
use crate::model::table::{StorageDescriptor, Table};
use crate::stats::ColumnStatistics;
use crate::storage::values::{stored_value, ValueKind};

/// Hive's event types (`EventMessage.EventType`) that hivestore emits.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Archive, Serialize, Deserialize,
)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum EventKind {
    /// `CREATE_CATALOG`.
    CreateCatalog = 1,
    /// `ALTER_CATALOG`.
    AlterCatalog = 2,
    /// `DROP_CATALOG`.
    DropCatalog = 3,
    /// `CREATE_DATABASE`.
    CreateDatabase = 4,
    /// `ALTER_DATABASE`.
    AlterDatabase = 5,
    /// `DROP_DATABASE`.
    DropDatabase = 6,
    /// `CREATE_TABLE`.
    CreateTable = 7,
    /// `ALTER_TABLE`.
    AlterTable = 8,
    /// `DROP_TABLE`.
    DropTable = 9,
    /// `ADD_PARTITION`: one event for a batch.
    AddPartition = 10,
    /// `ALTER_PARTITION`: one event per partition.
    AlterPartition = 11,
    /// `DROP_PARTITION`: one event per partition.
    DropPartition = 12,
    /// `INSERT`, from `fire_listener_event`.
    Insert = 13,
    /// `OPEN_TXN`.
    OpenTxn = 14,
    /// `COMMIT_TXN`.
    CommitTxn = 15,
    /// `ABORT_TXN`.
    AbortTxn = 16,
    /// `ALLOC_WRITE_ID`.
    AllocWriteId = 17,
    /// `ACID_WRITE`, from `add_write_notification_log`.
    AcidWrite = 18,
    /// `UPDATE_TABLE_COLUMN_STAT`.
    UpdateTableColumnStat = 19,
    /// `DELETE_TABLE_COLUMN_STAT`.
    DeleteTableColumnStat = 20,
    /// `UPDATE_PARTITION_COLUMN_STAT`.
    UpdatePartitionColumnStat = 21,
    /// `DELETE_PARTITION_COLUMN_STAT`.
    DeletePartitionColumnStat = 22,
    /// `CREATE_FUNCTION`.
    CreateFunction = 23,
    /// `DROP_FUNCTION`.
    DropFunction = 24,
    /// `ADD_PRIMARYKEY`.
    AddPrimaryKey = 25,
    /// `ADD_FOREIGNKEY`.
    AddForeignKey = 26,
    /// `ADD_UNIQUECONSTRAINT`.
    AddUniqueConstraint = 27,
    /// `ADD_NOTNULLCONSTRAINT`.
    AddNotNullConstraint = 28,
    /// `ADD_DEFAULTCONSTRAINT`.
    AddDefaultConstraint = 29,
    /// `ADD_CHECKCONSTRAINT`.
    AddCheckConstraint = 30,
    /// `DROP_CONSTRAINT`.
    DropConstraint = 31,
    /// `COMMIT_COMPACTION`: a compactor's transaction committed (kinds 36-39 belong to the
    /// compactor).
    CommitCompaction = 36,
}

impl EventKind {
    /// Every kind, in discriminant order.
    pub const ALL: [EventKind; 32] = [
        EventKind::CreateCatalog,
        EventKind::AlterCatalog,
        EventKind::DropCatalog,
        EventKind::CreateDatabase,
        EventKind::AlterDatabase,
        EventKind::DropDatabase,
        EventKind::CreateTable,
        EventKind::AlterTable,
        EventKind::DropTable,
        EventKind::AddPartition,
        EventKind::AlterPartition,
        EventKind::DropPartition,
        EventKind::Insert,
        EventKind::OpenTxn,
        EventKind::CommitTxn,
        EventKind::AbortTxn,
        EventKind::AllocWriteId,
        EventKind::AcidWrite,
        EventKind::UpdateTableColumnStat,
        EventKind::DeleteTableColumnStat,
        EventKind::UpdatePartitionColumnStat,
        EventKind::DeletePartitionColumnStat,
        EventKind::CreateFunction,
        EventKind::DropFunction,
        EventKind::AddPrimaryKey,
        EventKind::AddForeignKey,
        EventKind::AddUniqueConstraint,
        EventKind::AddNotNullConstraint,
        EventKind::AddDefaultConstraint,
        EventKind::AddCheckConstraint,
        EventKind::DropConstraint,
        EventKind::CommitCompaction,
    ];

    /// Hive's name of the type, as in `NotificationEvent.eventType`.
    pub fn hive_name(self) -> &'static str {
        match self {
            EventKind::CreateCatalog => "CREATE_CATALOG",
            EventKind::AlterCatalog => "ALTER_CATALOG",
            EventKind::DropCatalog => "DROP_CATALOG",
            EventKind::CreateDatabase => "CREATE_DATABASE",
            EventKind::AlterDatabase => "ALTER_DATABASE",
            EventKind::DropDatabase => "DROP_DATABASE",
            EventKind::CreateTable => "CREATE_TABLE",
            EventKind::AlterTable => "ALTER_TABLE",
            EventKind::DropTable => "DROP_TABLE",
            EventKind::AddPartition => "ADD_PARTITION",
            EventKind::AlterPartition => "ALTER_PARTITION",
            EventKind::DropPartition => "DROP_PARTITION",
            EventKind::Insert => "INSERT",
            EventKind::OpenTxn => "OPEN_TXN",
            EventKind::CommitTxn => "COMMIT_TXN",
            EventKind::AbortTxn => "ABORT_TXN",
            EventKind::AllocWriteId => "ALLOC_WRITE_ID",
            EventKind::AcidWrite => "ACID_WRITE",
            EventKind::UpdateTableColumnStat => "UPDATE_TABLE_COLUMN_STAT",
            EventKind::DeleteTableColumnStat => "DELETE_TABLE_COLUMN_STAT",
            EventKind::UpdatePartitionColumnStat => "UPDATE_PARTITION_COLUMN_STAT",
            EventKind::DeletePartitionColumnStat => "DELETE_PARTITION_COLUMN_STAT",
            EventKind::CreateFunction => "CREATE_FUNCTION",
            EventKind::DropFunction => "DROP_FUNCTION",
            EventKind::AddPrimaryKey => "ADD_PRIMARYKEY",
            EventKind::AddForeignKey => "ADD_FOREIGNKEY",
            EventKind::AddUniqueConstraint => "ADD_UNIQUECONSTRAINT",
            EventKind::AddNotNullConstraint => "ADD_NOTNULLCONSTRAINT",
            EventKind::AddDefaultConstraint => "ADD_DEFAULTCONSTRAINT",
            EventKind::AddCheckConstraint => "ADD_CHECKCONSTRAINT",
            EventKind::DropConstraint => "DROP_CONSTRAINT",
            EventKind::CommitCompaction => "COMMIT_COMPACTION",
        }
    }

    /// The kind Hive names `name` (any case), if hivestore emits it.
    pub fn from_hive_name(name: &str) -> Option<EventKind> {
        let name = name.trim();
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.hive_name().eq_ignore_ascii_case(name))
    }

    fn from_archived(archived: &ArchivedEventKind) -> EventKind {
        // The archived enum mirrors the native one variant for variant.
        let index = EventKind::ALL
            .iter()
            .position(|kind| kind.archived_eq(archived))
            .unwrap_or(0);
        EventKind::ALL[index]
    }

    fn archived_eq(self, archived: &ArchivedEventKind) -> bool {
        use ArchivedEventKind as A;
        matches!(
            (self, archived),
            (EventKind::CreateCatalog, A::CreateCatalog)
                | (EventKind::AlterCatalog, A::AlterCatalog)
                | (EventKind::DropCatalog, A::DropCatalog)
                | (EventKind::CreateDatabase, A::CreateDatabase)
                | (EventKind::AlterDatabase, A::AlterDatabase)
                | (EventKind::DropDatabase, A::DropDatabase)
                | (EventKind::CreateTable, A::CreateTable)
                | (EventKind::AlterTable, A::AlterTable)
                | (EventKind::DropTable, A::DropTable)
                | (EventKind::AddPartition, A::AddPartition)
                | (EventKind::AlterPartition, A::AlterPartition)
                | (EventKind::DropPartition, A::DropPartition)
                | (EventKind::Insert, A::Insert)
                | (EventKind::OpenTxn, A::OpenTxn)
                | (EventKind::CommitTxn, A::CommitTxn)
                | (EventKind::AbortTxn, A::AbortTxn)
                | (EventKind::AllocWriteId, A::AllocWriteId)
                | (EventKind::AcidWrite, A::AcidWrite)
                | (EventKind::UpdateTableColumnStat, A::UpdateTableColumnStat)
                | (EventKind::DeleteTableColumnStat, A::DeleteTableColumnStat)
                | (
                    EventKind::UpdatePartitionColumnStat,
                    A::UpdatePartitionColumnStat
                )
                | (
                    EventKind::DeletePartitionColumnStat,
                    A::DeletePartitionColumnStat
                )
                | (EventKind::CreateFunction, A::CreateFunction)
                | (EventKind::DropFunction, A::DropFunction)
                | (EventKind::AddPrimaryKey, A::AddPrimaryKey)
                | (EventKind::AddForeignKey, A::AddForeignKey)
                | (EventKind::AddUniqueConstraint, A::AddUniqueConstraint)
                | (EventKind::AddNotNullConstraint, A::AddNotNullConstraint)
                | (EventKind::AddDefaultConstraint, A::AddDefaultConstraint)
                | (EventKind::AddCheckConstraint, A::AddCheckConstraint)
                | (EventKind::DropConstraint, A::DropConstraint)
                | (EventKind::CommitCompaction, A::CommitCompaction)
        )
    }
}

/// A partition as it was: its values, its record and its storage descriptor without the
/// location (which is in the record), as the partition keyspace splits them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PartitionImage {
    /// The values, in key order.
    pub values: Vec<String>,
    /// The stored record.
    pub record: PartitionRecord,
    /// The index of its descriptor in the event's descriptor list, if it has one.
    pub descriptor: Option<u32>,
}

/// Partitions of one table, their shared descriptors stored once per event.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct PartitionImages {
    /// The distinct shared descriptors (locations left out).
    pub descriptors: Vec<StorageDescriptor>,
    /// The partitions.
    pub partitions: Vec<PartitionImage>,
}

impl PartitionImages {
    /// Adds `partition`, sharing its descriptor with an equal one already held.
    pub fn push(&mut self, partition: &Partition) {
        let descriptor = partition.sd.as_ref().map(|sd| {
            // Compared in place: a batch's partitions nearly always share one descriptor, and
            // a copy of its columns per partition cost more than the rest of the event.
            let found = self
                .descriptors
                .iter()
                .position(|held| same_shared(held, sd));
            let index = found.unwrap_or_else(|| {
                let mut shared = sd.clone();
                shared.location = None;
                self.descriptors.push(shared);
                self.descriptors.len() - 1
            });
            u32::try_from(index).unwrap_or(u32::MAX)
        });
        let record = PartitionRecord {
            create_time: partition.create_time,
            last_access_time: partition.last_access_time,
            descriptor_id: None,
            location: partition.location().map(str::to_string),
            parameters: partition.parameters.clone(),
            privileges: partition.privileges.clone(),
            write_id: partition.write_id,
            file_metadata: partition.file_metadata.clone(),
        };
        self.partitions.push(PartitionImage {
            values: partition.values.clone(),
            record,
            descriptor,
        });
    }

    /// The images of `partitions`.
    pub fn of<'a>(partitions: impl IntoIterator<Item = &'a Partition>) -> PartitionImages {
        let mut images = PartitionImages::default();
        for partition in partitions {
            images.push(partition);
        }
        images
    }

    /// The partitions again, as members of `table`.
    pub fn to_partitions(&self, table: &Table) -> Vec<Partition> {
        let partitions = self.partitions.iter();
        partitions
            .map(|image| self.to_partition(table, image))
            .collect()
    }

    fn to_partition(&self, table: &Table, image: &PartitionImage) -> Partition {
        let record = image.record.clone();
        let sd = image
            .descriptor
            .and_then(|index| self.descriptors.get(index as usize))
            .map(|shared| StorageDescriptor {
                location: record.location.clone(),
                ..shared.clone()
            });
        Partition {
            sd,
            ..crate::model::partition::partition_of(table, image.values.clone(), record)
        }
    }
}

/// The files of an insert or ACID write (Hive's `InsertEventRequestData`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct InsertData {
    /// Whether the write replaced the data (`INSERT OVERWRITE`).
    pub replace: bool,
    /// The files added.
    pub files_added: Vec<String>,
    /// Their checksums, if given (one per file).
    pub files_added_checksum: Vec<String>,
    /// Their subdirectories, if given.
    pub sub_directories: Vec<String>,
}

/// One write of a transaction to a table or partition, as `add_write_notification_log`
/// recorded it (Hive's `WriteEventInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct WriteEvent {
    /// The transaction.
    pub txn_id: u64,
    /// The write id.
    pub write_id: i64,
    /// The catalog, normalised.
    pub catalog: String,
    /// The database, normalised.
    pub database: String,
    /// The table, normalised.
    pub table: String,
    /// The partition name (`k=v/...`), if the write went to a partition.
    pub partition: Option<String>,
    /// The files written.
    pub files: InsertData,
    /// The table as it was.
    pub table_object: Table,
    /// The partition as it was, if any.
    pub partition_object: Option<PartitionImages>,
}

/// The objects an event carries; which one depends on its kind.
// One body is built per change and archived at once; boxing would only add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Default, Archive, Serialize, Deserialize)]
pub enum EventBody {
    /// Nothing beyond the names.
    #[default]
    Empty,
    /// A catalog created or dropped.
    Catalog(Catalog),
    /// A database created or dropped (`before` none), or altered.
    Database {
        /// Before an alter.
        before: Option<Database>,
        /// The database (after an alter).
        after: Database,
    },
    /// A table created or dropped (`before` none), or altered.
    Table {
        /// Before an alter.
        before: Option<Table>,
        /// The table (after an alter).
        after: Table,
        /// Whether the alter was a truncate.
        is_truncate: bool,
    },
    /// Partitions added or dropped, or one altered (`before` holds its old self).
    Partitions {
        /// The table.
        table: Table,
        /// The old partitions of an alter, in the order of `after`.
        before: Option<PartitionImages>,
        /// The partitions.
        after: PartitionImages,
        /// Whether the alter was a truncate.
        is_truncate: bool,
    },
    /// An insert reported through `fire_listener_event`.
    Insert {
        /// The table.
        table: Table,
        /// The partition written, if any.
        partition: Option<PartitionImages>,
        /// The files.
        data: InsertData,
    },
    /// Transactions opened or aborted.
    Txns {
        /// Their ids.
        txn_ids: Vec<u64>,
    },
    /// A transaction committed, with the writes recorded for it.
    Commit {
        /// The transaction.
        txn_id: u64,
        /// Its writes.
        writes: Vec<WriteEvent>,
    },
    /// Write ids allocated on a table.
    WriteIds {
        /// (transaction, write id) pairs.
        allocated: Vec<(u64, u64)>,
    },
    /// An ACID write recorded through `add_write_notification_log`.
    AcidWrite(WriteEvent),
    /// Column statistics written or deleted.
    Statistics {
        /// The table.
        table: Table,
        /// The partition's values, for partition statistics.
        partition_values: Option<Vec<String>>,
        /// The statistics as the writer sent them (empty for a delete).
        statistics: Vec<ColumnStatistics>,
        /// The columns deleted (empty for an update).
        columns: Vec<String>,
        /// The engine.
        engine: String,
        /// The table's or partition's parameters after the write.
        parameters: std::collections::BTreeMap<String, String>,
    },
    /// How statistics events are stored since the table image: [`EventBody::Statistics`]
    /// with its table encoded once per write. Never read back: reads turn it into
    /// `Statistics` (`EventRecord::readable`).
    StoredStatistics(StoredStatistics),
    /// How partitions added are stored since `add_partition_batch`: [`EventBody::Partitions`]
    /// with each record as the bytes stored at its key. Never read back: reads turn it into
    /// `Partitions` (`EventRecord::readable`).
    StoredPartitions(StoredPartitions),
    /// A function created or dropped.
    Function(Function),
    /// Constraints added, one row per column, all of the event's kind.
    Constraints(Vec<ConstraintRow>),
    /// A constraint dropped, by name (the table is the event's).
    DropConstraint {
        /// The constraint's name.
        name: String,
    },
    /// A compactor's transaction committed the compaction of a table or partition (the
    /// table is the event's).
    CommitCompaction {
        /// The compactor's transaction.
        txn_id: u64,
        /// The compaction's id.
        compaction_id: u64,
        /// Its type.
        compaction_type: crate::txns::CompactionType,
        /// The partition compacted, if any.
        partition: Option<String>,
    },
}

/// A table encoded once, as the store encodes its table records: the events of one write
/// that all show the table copy its bytes, where archiving and validating its columns again
/// for every partition's event was a fifth of a statistics write.
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct TableImage {
    encoded: Vec<u8>,
}

impl TableImage {
    /// `table`, encoded.
    pub fn of(table: &Table) -> crate::error::Result<Self> {
        Ok(TableImage {
            encoded: crate::storage::values::encode(table)?,
        })
    }

    /// The table back.
    pub fn table(&self) -> crate::error::Result<Table> {
        let key =
            crate::storage::kv::KvBytes::from_shared(std::sync::Arc::from(&b"event table"[..]));
        let stored =
            crate::storage::kv::KvBytes::from_shared(std::sync::Arc::from(self.encoded.as_slice()));
        crate::storage::values::decode(key, stored)
    }
}

/// The stored form of a statistics event: [`EventBody::Statistics`]'s fields, the table as
/// its image.
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct StoredStatistics {
    /// The table.
    pub table: TableImage,
    /// The partition's values, for partition statistics.
    pub partition_values: Option<Vec<String>>,
    /// The statistics as the writer sent them (empty for a delete).
    pub statistics: Vec<ColumnStatistics>,
    /// The columns deleted (empty for an update).
    pub columns: Vec<String>,
    /// The engine.
    pub engine: String,
    /// The table's or partition's parameters after the write.
    pub parameters: std::collections::BTreeMap<String, String>,
}

impl StoredStatistics {
    /// The readable body, [`EventBody::Statistics`].
    pub fn into_body(self) -> crate::error::Result<EventBody> {
        Ok(EventBody::Statistics {
            table: self.table.table()?,
            partition_values: self.partition_values,
            statistics: self.statistics,
            columns: self.columns,
            engine: self.engine,
            parameters: self.parameters,
        })
    }
}

/// A partition added, as its event stores it: its record as the bytes stored at its key (the
/// store's value header and archive), where archiving and validating the record again for
/// the event cost as much as the record itself.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct StoredPartitionImage {
    /// The values, in key order.
    pub values: Vec<String>,
    /// The record's stored bytes.
    pub record: Vec<u8>,
    /// The index of its descriptor in the event's descriptor list, if it has one.
    pub descriptor: Option<u32>,
}

/// The stored form of an add's event: [`EventBody::Partitions`] without `before`, the table as
/// its image, the records as their stored bytes.
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct StoredPartitions {
    /// The table.
    pub table: TableImage,
    /// The distinct shared descriptors (locations left out).
    pub descriptors: Vec<StorageDescriptor>,
    /// The partitions.
    pub partitions: Vec<StoredPartitionImage>,
}

impl StoredPartitions {
    /// The readable body, [`EventBody::Partitions`].
    pub fn into_body(self) -> crate::error::Result<EventBody> {
        let image = |stored: StoredPartitionImage| -> crate::error::Result<PartitionImage> {
            let key = crate::storage::kv::KvBytes::from_shared(std::sync::Arc::from(
                &b"event record"[..],
            ));
            let bytes =
                crate::storage::kv::KvBytes::from_shared(std::sync::Arc::from(stored.record));
            let mut record: PartitionRecord = crate::storage::values::decode(key, bytes)?;
            record.descriptor_id = None;
            Ok(PartitionImage {
                values: stored.values,
                record,
                descriptor: stored.descriptor,
            })
        };
        let partitions = self.partitions.into_iter().map(image);
        Ok(EventBody::Partitions {
            table: self.table.table()?,
            before: None,
            after: PartitionImages {
                descriptors: self.descriptors,
                partitions: partitions.collect::<crate::error::Result<_>>()?,
            },
            is_truncate: false,
        })
    }
}

/// One entry of the notification log (`0x18 ID(event)`).
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct EventRecord {
    /// When the change committed, seconds since the epoch.
    pub event_time: i32,
    /// Its type.
    pub kind: EventKind,
    /// The catalog, normalised; empty for transaction events.
    pub catalog_name: String,
    /// The database, normalised; empty when none.
    pub db_name: String,
    /// The table, normalised; empty when none.
    pub table_name: String,
    /// The objects.
    pub body: EventBody,
}

stored_value!(EventRecord, ValueKind::Event);
stored_value!(WriteEvent, ValueKind::WriteEvent);

impl ArchivedEventRecord {
    /// The kind, without deserialising the record.
    pub fn event_kind(&self) -> EventKind {
        EventKind::from_archived(&self.kind)
    }
}

impl EventRecord {
    /// An event of `kind` about `catalog.db.table` (empty names for none); the time is set
    /// when it is written.
    pub fn new(kind: EventKind, catalog: &str, db: &str, table: &str, body: EventBody) -> Self {
        EventRecord {
            event_time: 0,
            kind,
            catalog_name: catalog.to_string(),
            db_name: db.to_string(),
            table_name: table.to_string(),
            body,
        }
    }

    /// The record as readers see it: a stored form turned into its readable body.
    pub(crate) fn readable(mut self) -> crate::error::Result<Self> {
        self.body = match self.body {
            EventBody::StoredStatistics(stored) => stored.into_body()?,
            EventBody::StoredPartitions(stored) => stored.into_body()?,
            body => body,
        };
        Ok(self)
    }

    /// An event about `table`.
    pub fn of_table(kind: EventKind, table: &Table, body: EventBody) -> Self {
        EventRecord::new(
            kind,
            &table.cat_name,
            &table.db_name,
            &table.table_name,
            body,
        )
    }
}

/// An event with its id, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationEvent {
    /// The event id: strictly increasing in commit order, never reused.
    pub event_id: u64,
    /// The event.
    pub record: EventRecord,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::KvBytes;
    use std::sync::Arc;

    fn table() -> Table {
        Table {
            cat_name: "hive".to_string(),
            db_name: "db".to_string(),
            table_name: "t".to_string(),
            owner: Some("me".to_string()),
            ..Table::default()
        }
    }

    fn statistics_body(table: Table) -> EventBody {
        EventBody::Statistics {
            table,
            partition_values: Some(vec!["1".to_string()]),
            statistics: Vec::new(),
            columns: vec!["c".to_string()],
            engine: "hive".to_string(),
            parameters: [("k".to_string(), "v".to_string())].into_iter().collect(),
        }
    }

    fn round_trip(record: &EventRecord) -> EventRecord {
        let stored = crate::storage::values::encode(record).unwrap();
        let key = KvBytes::from_shared(Arc::from(&b"event"[..]));
        crate::storage::values::decode::<EventRecord>(key, KvBytes::from_shared(Arc::from(stored)))
            .unwrap()
            .readable()
            .unwrap()
    }

    #[test]
    fn statistics_events_read_the_same_stored_either_way() {
        // Goal: events logged before the table image (a `Statistics` body) and after it (a
        // `StoredStatistics` body) read back as the same `Statistics` event, and the image
        // left the archived layout of every older body as it was.
        let kind = EventKind::DeletePartitionColumnStat;
        let old = EventRecord::of_table(kind, &table(), statistics_body(table()));
        let EventBody::Statistics {
            partition_values,
            statistics,
            columns,
            engine,
            parameters,
            ..
        } = statistics_body(table())
        else {
            unreachable!()
        };
        let stored = StoredStatistics {
            table: TableImage::of(&table()).unwrap(),
            partition_values,
            statistics,
            columns,
            engine,
            parameters,
        };
        let new = EventRecord::of_table(kind, &table(), EventBody::StoredStatistics(stored));
        assert_eq!(round_trip(&old), old);
        assert_eq!(round_trip(&new), old);
        assert_eq!(std::mem::size_of::<ArchivedEventBody>(), 1016);
    }

    #[test]
    fn add_events_read_the_same_stored_either_way() {
        // Goal: an add's event stored with its records as their stored bytes
        // (`StoredPartitions`) reads back as the `Partitions` event logged before it, the
        // records' descriptor ids (kept in the stored bytes) left out as images leave them.
        let record = PartitionRecord {
            create_time: 7,
            location: Some("s3a://b/t/k=v".to_string()),
            parameters: [("p".to_string(), "1".to_string())].into_iter().collect(),
            write_id: -1,
            ..PartitionRecord::default()
        };
        let descriptor = StorageDescriptor {
            input_format: Some("in".to_string()),
            ..StorageDescriptor::default()
        };
        let values = vec!["v".to_string()];
        let old_body = EventBody::Partitions {
            table: table(),
            before: None,
            after: PartitionImages {
                descriptors: vec![descriptor.clone()],
                partitions: vec![PartitionImage {
                    values: values.clone(),
                    record: record.clone(),
                    descriptor: Some(0),
                }],
            },
            is_truncate: false,
        };
        let stored_record = PartitionRecord {
            descriptor_id: Some(42),
            ..record
        };
        let new_body = EventBody::StoredPartitions(StoredPartitions {
            table: TableImage::of(&table()).unwrap(),
            descriptors: vec![descriptor],
            partitions: vec![StoredPartitionImage {
                values,
                record: crate::storage::values::encode(&stored_record).unwrap(),
                descriptor: Some(0),
            }],
        });
        let kind = EventKind::AddPartition;
        let old = EventRecord::of_table(kind, &table(), old_body);
        let new = EventRecord::of_table(kind, &table(), new_body);
        assert_eq!(round_trip(&old), old);
        assert_eq!(round_trip(&new), old);
    }
}
