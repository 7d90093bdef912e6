//! Hive's notification messages (`JSONMessageEncoder`, message format `json-0.2`), rendered
//! from the engine's events when a client reads them.
//!
//! Field names follow Hive 4's `JSON*Message` classes, so that Hive's own deserializer (and
//! anything parsing those messages) reads ours; Thrift objects inside (`tableObjJson`, ...)
//! are Thrift JSON protocol text, as Hive's `MessageBuilder` writes them. Fields Hive fills
//! from its configuration (`server`, `servicePrincipal`) are empty strings here.

use std::collections::BTreeMap;

use hivestore_engine::events::{
    EventBody, EventKind, EventRecord, InsertData, NotificationEvent, PartitionImages, WriteEvent,
};
use hivestore_engine::{make_partition_name, ConstraintRow, Partition, Table};
use hivestore_idl::hive_metastore as idl;

use crate::convert::{
    catalog_to_idl, database_to_idl, function_to_idl, partition_to_idl, table_to_idl,
};
use crate::convert_constraints::{
    to_check_constraints, to_default_constraints, to_foreign_keys, to_not_null_constraints,
    to_primary_keys, to_unique_constraints,
};
use crate::convert_stats::column_stats_to_idl;
use crate::tjson::{push_json_string, to_tjson};

/// The message format Hive 4's default encoder names.
pub const MESSAGE_FORMAT: &str = "json-0.2";

/// A JSON object under construction, fields in the order written.
struct Message {
    text: String,
}

impl Message {
    fn new(event: &EventRecord) -> Self {
        let mut message = Message {
            text: String::from("{"),
        };
        message.string("server", Some(""));
        message.string("servicePrincipal", Some(""));
        message.raw("timestamp", &event.event_time.to_string());
        message
    }

    fn key(&mut self, key: &str) {
        if self.text.len() > 1 {
            self.text.push(',');
        }
        push_json_string(&mut self.text, key);
        self.text.push(':');
    }

    fn raw(&mut self, key: &str, json: &str) {
        self.key(key);
        self.text.push_str(json);
    }

    fn string(&mut self, key: &str, value: Option<&str>) {
        self.key(key);
        match value {
            Some(value) => push_json_string(&mut self.text, value),
            None => self.text.push_str("null"),
        }
    }

    fn strings<S: AsRef<str>>(&mut self, key: &str, values: &[Option<S>]) {
        self.key(key);
        self.text.push('[');
        for (index, value) in values.iter().enumerate() {
            if index > 0 {
                self.text.push(',');
            }
            match value {
                Some(value) => push_json_string(&mut self.text, value.as_ref()),
                None => self.text.push_str("null"),
            }
        }
        self.text.push(']');
    }

    fn numbers(&mut self, key: &str, values: impl IntoIterator<Item = i64>) {
        let values: Vec<String> = values.into_iter().map(|value| value.to_string()).collect();
        self.raw(key, &format!("[{}]", values.join(",")));
    }

    fn map<'a>(&mut self, key: &str, entries: impl IntoIterator<Item = (&'a str, &'a str)>) {
        self.key(key);
        self.text.push_str(&json_map(entries));
    }

    fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

fn json_map<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut text = String::from("{");
    for (index, (key, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        push_json_string(&mut text, key);
        text.push(':');
        push_json_string(&mut text, value);
    }
    text.push('}');
    text
}

/// An event as Hive's `NotificationEvent`, its message rendered.
pub fn to_idl(event: &NotificationEvent) -> thrift::Result<idl::NotificationEvent> {
    let record = &event.record;
    let name = |name: &String| Some(name.clone()).filter(|name| !name.is_empty());
    Ok(idl::NotificationEvent {
        event_id: i64::try_from(event.event_id).unwrap_or(i64::MAX),
        event_time: record.event_time,
        event_type: record.kind.hive_name().to_string(),
        db_name: name(&record.db_name),
        table_name: name(&record.table_name),
        message: render(record)?,
        message_format: Some(MESSAGE_FORMAT.to_string()),
        cat_name: name(&record.catalog_name),
    })
}

fn table_json(table: &Table) -> thrift::Result<String> {
    to_tjson(&table_to_idl(table.clone()))
}

fn partition_json(partition: &Partition) -> thrift::Result<String> {
    to_tjson(&partition_to_idl(partition.clone()))
}

/// Hive's `getPartitionKeyValues`: partition key name to value, in key order.
fn key_values<'a>(table: &'a Table, values: &'a [String]) -> Vec<(&'a str, &'a str)> {
    let keys = table.partition_keys.iter().map(|key| key.name.as_str());
    keys.zip(values.iter().map(String::as_str)).collect()
}

fn table_fields(message: &mut Message, table: &Table) -> thrift::Result<()> {
    message.string("db", Some(&table.db_name));
    message.string("table", Some(&table.table_name));
    message.string("tableType", table.table_type.as_deref());
    message.string("tableObjJson", Some(&table_json(table)?));
    Ok(())
}

/// The JSON message of `event`.
fn render(event: &EventRecord) -> thrift::Result<String> {
    let mut message = Message::new(event);
    match &event.body {
        EventBody::Empty => {}
        EventBody::Catalog(catalog) => {
            message.string("catalog", Some(&catalog.name));
            let json = to_tjson(&catalog_to_idl(catalog.clone()))?;
            message.string("catalogObjJson", Some(&json));
        }
        EventBody::Database { before, after } => {
            let after_json = to_tjson(&database_to_idl(after.clone()))?;
            match before {
                Some(before) => {
                    message.string("db", Some(&after.name));
                    let before_json = to_tjson(&database_to_idl(before.clone()))?;
                    message.string("dbObjBeforeJson", Some(&before_json));
                    message.string("dbObjAfterJson", Some(&after_json));
                }
                None => {
                    message.string("cat", Some(&after.catalog_name));
                    message.string("db", Some(&after.name));
                    message.string("dbJson", Some(&after_json));
                }
            }
        }
        EventBody::Table {
            before,
            after,
            is_truncate,
        } => match before {
            Some(before) => {
                message.string("db", Some(&before.db_name));
                message.string("table", Some(&before.table_name));
                message.string("tableType", before.table_type.as_deref());
                message.string("tableObjBeforeJson", Some(&table_json(before)?));
                message.string("tableObjAfterJson", Some(&table_json(after)?));
                message.string("isTruncateOp", Some(&is_truncate.to_string()));
                message.raw("writeId", &after.write_id.to_string());
                message.string("locOwner", None);
            }
            None => {
                table_fields(&mut message, after)?;
                if event.kind == EventKind::CreateTable {
                    message.strings::<&str>("files", &[]);
                }
            }
        },
        EventBody::Partitions {
            table,
            before,
            after,
            is_truncate,
        } => render_partitions(
            &mut message,
            event.kind,
            table,
            before.as_ref(),
            after,
            *is_truncate,
        )?,
        EventBody::Insert {
            table,
            partition,
            data,
        } => {
            message.string("cat", Some(&table.cat_name));
            table_fields(&mut message, table)?;
            let partition = partition
                .as_ref()
                .and_then(|p| p.to_partitions(table).pop());
            let partition_json = partition.as_ref().map(partition_json).transpose()?;
            message.string("ptnObjJson", partition_json.as_deref());
            // Hive 2.3's insert message names the partition by its key values instead.
            if let Some(partition) = &partition {
                message.map("partKeyVals", key_values(table, &partition.values));
            }
            message.string("replace", Some(&data.replace.to_string()));
            message.strings("files", &files_of(data));
        }
        EventBody::Txns { txn_ids } => match event.kind {
            EventKind::OpenTxn => {
                message.numbers("txnIds", txn_ids.iter().map(|id| wire(*id)));
            }
            _ => {
                message.raw(
                    "txnid",
                    &txn_ids.first().map_or(0, |id| wire(*id)).to_string(),
                );
            }
        },
        EventBody::Commit { txn_id, writes } => render_commit(&mut message, *txn_id, writes)?,
        EventBody::WriteIds { allocated } => {
            message.string("catName", Some(&event.catalog_name));
            message.string("dbName", Some(&event.db_name));
            message.string("tableName", Some(&event.table_name));
            message.numbers("txnIdList", allocated.iter().map(|(txn, _)| wire(*txn)));
            message.numbers(
                "writeIdList",
                allocated.iter().map(|(_, write)| wire(*write)),
            );
        }
        EventBody::AcidWrite(write) => {
            message.raw("txnid", &wire(write.txn_id).to_string());
            message.raw("writeId", &write.write_id.to_string());
            message.string("database", Some(&write.database));
            message.string("table", Some(&write.table));
            message.string("tableObjJson", Some(&table_json(&write.table_object)?));
            message.string("partition", write.partition.as_deref());
            let partition = write_partition(write);
            let partition_json = partition.as_ref().map(partition_json).transpose()?;
            message.string("partitionObjJson", partition_json.as_deref());
            message.strings("files", &files_of(&write.files));
        }
        EventBody::Statistics {
            table,
            partition_values,
            statistics,
            columns,
            engine,
            parameters,
        } => render_statistics(
            &mut message,
            event.kind,
            table,
            partition_values.as_deref(),
            statistics,
            columns,
            engine,
            parameters,
        )?,
        EventBody::Constraints(rows) => render_constraints(&mut message, event.kind, rows)?,
        EventBody::DropConstraint { name } => {
            message.string("catName", Some(&event.catalog_name));
            message.string("dbName", Some(&event.db_name));
            message.string("tableName", Some(&event.table_name));
            message.string("constraintName", Some(name));
        }
        EventBody::CommitCompaction {
            txn_id,
            compaction_id,
            compaction_type,
            partition,
        } => {
            // Hive's `JSONCommitCompactionMessage`.
            message.raw("txnid", &wire(*txn_id).to_string());
            message.raw("compactionId", &wire(*compaction_id).to_string());
            message.string("type", Some(compaction_type_name(*compaction_type)));
            message.string("dbname", Some(&event.db_name));
            message.string("tableName", Some(&event.table_name));
            message.string("partName", partition.as_deref());
        }
        EventBody::Function(function) => {
            message.string("db", Some(&function.db_name));
            if event.kind == EventKind::DropFunction {
                message.string("functionName", Some(&function.function_name));
            } else {
                let json = to_tjson(&function_to_idl(function.clone()))?;
                message.string("functionObjJson", Some(&json));
            }
        }
        // Reads turn the stored form into `Partitions`; rendered the same if one comes here.
        // Reads hand out events with their stored forms turned readable
        // (`EventRecord::readable`): these never come here.
        EventBody::StoredPartitions(_) | EventBody::StoredStatistics(_) => {
            return Err(crate::errors::undeclared(
                "an event in its stored form reached the message renderer",
            ));
        }
    }
    Ok(message.finish())
}

/// Hive's `JSONAdd*Message`s: the list of the rows' Thrift JSON under the kind's key.
fn render_constraints(
    message: &mut Message,
    kind: EventKind,
    rows: &[ConstraintRow],
) -> thrift::Result<()> {
    fn json<T: thrift::protocol::TSerializable>(
        objects: Vec<T>,
    ) -> thrift::Result<Vec<Option<String>>> {
        objects
            .iter()
            .map(|object| to_tjson(object).map(Some))
            .collect()
    }
    let (key, objects) = match kind {
        EventKind::AddPrimaryKey => ("primaryKeyListJson", json(to_primary_keys(rows))?),
        EventKind::AddForeignKey => ("foreignKeyListJson", json(to_foreign_keys(rows))?),
        EventKind::AddUniqueConstraint => (
            "uniqueConstraintListJson",
            json(to_unique_constraints(rows))?,
        ),
        EventKind::AddNotNullConstraint => (
            "notNullConstraintListJson",
            json(to_not_null_constraints(rows))?,
        ),
        EventKind::AddDefaultConstraint => (
            "defaultConstraintListJson",
            json(to_default_constraints(rows))?,
        ),
        _ => ("checkConstraintListJson", json(to_check_constraints(rows))?),
    };
    message.strings(key, &objects);
    Ok(())
}

fn wire(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

fn files_of(data: &InsertData) -> Vec<Option<String>> {
    data.files_added
        .iter()
        .map(|file| Some(file.clone()))
        .collect()
}

fn write_partition(write: &WriteEvent) -> Option<Partition> {
    let images = write.partition_object.as_ref()?;
    images.to_partitions(&write.table_object).pop()
}

fn render_partitions(
    message: &mut Message,
    kind: EventKind,
    table: &Table,
    before: Option<&PartitionImages>,
    after: &PartitionImages,
    is_truncate: bool,
) -> thrift::Result<()> {
    let partitions = after.to_partitions(table);
    match kind {
        EventKind::AlterPartition => {
            let old = before.and_then(|images| images.to_partitions(table).pop());
            let new = partitions.first();
            message.string("cat", Some(&table.cat_name));
            table_fields(message, table)?;
            message.string("isTruncateOp", Some(&is_truncate.to_string()));
            let write_id = new.map_or(-1, |partition| partition.write_id);
            message.raw("writeId", &write_id.to_string());
            let values = old.as_ref().map(|p| p.values.clone()).unwrap_or_default();
            message.map("keyValues", key_values(table, &values));
            let old_json = old.as_ref().map(partition_json).transpose()?;
            message.string("partitionObjBeforeJson", old_json.as_deref());
            let new_json = new.map(partition_json).transpose()?;
            message.string("partitionObjAfterJson", new_json.as_deref());
        }
        _ => {
            if kind == EventKind::DropPartition {
                message.string("cat", Some(&table.cat_name));
            }
            table_fields(message, table)?;
            let maps: Vec<String> = partitions
                .iter()
                .map(|partition| json_map(key_values(table, &partition.values)))
                .collect();
            message.raw("partitions", &format!("[{}]", maps.join(",")));
            if kind == EventKind::AddPartition {
                let jsons: Vec<Option<String>> = partitions
                    .iter()
                    .map(|partition| partition_json(partition).map(Some))
                    .collect::<thrift::Result<_>>()?;
                message.strings("partitionListJson", &jsons);
                message.raw("partitionFiles", "[]");
                message.string("locOwner", None);
            }
        }
    }
    Ok(())
}

fn render_commit(message: &mut Message, txn_id: u64, writes: &[WriteEvent]) -> thrift::Result<()> {
    message.raw("txnid", &wire(txn_id).to_string());
    if writes.is_empty() {
        for key in [
            "writeIds",
            "databases",
            "tables",
            "partitions",
            "tableObjs",
            "partitionObjs",
            "files",
        ] {
            message.raw(key, "null");
        }
        return Ok(());
    }
    message.numbers("writeIds", writes.iter().map(|write| write.write_id));
    let pick = |field: fn(&WriteEvent) -> Option<String>| -> Vec<Option<String>> {
        writes.iter().map(field).collect()
    };
    message.strings("databases", &pick(|write| Some(write.database.clone())));
    message.strings("tables", &pick(|write| Some(write.table.clone())));
    message.strings("partitions", &pick(|write| write.partition.clone()));
    let tables: Vec<Option<String>> = writes
        .iter()
        .map(|write| table_json(&write.table_object).map(Some))
        .collect::<thrift::Result<_>>()?;
    message.strings("tableObjs", &tables);
    let partitions: Vec<Option<String>> = writes
        .iter()
        .map(|write| {
            write_partition(write)
                .as_ref()
                .map(partition_json)
                .transpose()
        })
        .collect::<thrift::Result<_>>()?;
    message.strings("partitionObjs", &partitions);
    message.strings(
        "files",
        &pick(|write| Some(write.files.files_added.join(","))),
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn render_statistics(
    message: &mut Message,
    kind: EventKind,
    table: &Table,
    partition_values: Option<&[String]>,
    statistics: &[hivestore_engine::ColumnStatistics],
    columns: &[String],
    engine: &str,
    parameters: &BTreeMap<String, String>,
) -> thrift::Result<()> {
    message.string("database", Some(&table.db_name));
    message.string("table", Some(&table.table_name));
    let keys: Vec<&str> = table
        .partition_keys
        .iter()
        .map(|key| key.name.as_str())
        .collect();
    let partition_name = partition_values.map(|values| make_partition_name(&keys, values));
    match kind {
        EventKind::UpdateTableColumnStat | EventKind::UpdatePartitionColumnStat => {
            let stats = idl::ColumnStatistics {
                stats_desc: idl::ColumnStatisticsDesc {
                    is_tbl_level: partition_values.is_none(),
                    db_name: table.db_name.clone(),
                    table_name: table.table_name.clone(),
                    part_name: partition_name,
                    last_analyzed: None,
                    cat_name: Some(table.cat_name.clone()),
                },
                stats_obj: statistics
                    .iter()
                    .cloned()
                    .map(column_stats_to_idl)
                    .collect(),
                is_stats_compliant: None,
                engine: Some(engine.to_string()),
            };
            message.raw("writeId", "-1");
            message.string("validWriteIds", None);
            message.string("colStatsJson", Some(&to_tjson(&stats)?));
            let entries = parameters.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            message.map("parameters", entries);
            if let Some(values) = partition_values {
                let values: Vec<Option<&str>> = values.iter().map(|v| Some(v.as_str())).collect();
                message.strings("partVals", &values);
            }
            message.string("tableObjJson", Some(&table_json(table)?));
        }
        _ => {
            message.string("colName", columns.first().map(String::as_str));
            message.string("engine", Some(engine));
            if let Some(values) = partition_values {
                message.string("partName", partition_name.as_deref());
                let map = json_map(key_values(table, values));
                message.raw("partKeyVals", &map);
            }
        }
    }
    Ok(())
}

/// The name Jackson writes for Hive's `CompactionType` `kind`.
fn compaction_type_name(kind: hivestore_engine::txns::CompactionType) -> &'static str {
    use hivestore_engine::txns::CompactionType;
    match kind {
        CompactionType::Minor => "MINOR",
        CompactionType::Major => "MAJOR",
        CompactionType::Rebalance => "REBALANCE",
        CompactionType::AbortTxnCleanup => "ABORT_TXN_CLEANUP",
    }
}
