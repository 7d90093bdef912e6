//! A store's integrity, checked offline (`hivestore check`): one walk over every key in
//! order. Each key must parse as its keyspace lays keys out (`docs/storage-format.md`); each
//! value must be what the keyspace holds: a header and an rkyv archive that validates as one
//! of the keyspace's value kinds, or a raw value of its length. References must hold: names
//! name stored databases and tables, partitions and statistics belong to stored tables (or
//! to one whose drop is being finished), partitions' shared descriptors exist, event parts
//! belong to an event stored in parts; and every counter stands past every id in use.
//!
//! Memory grows with the count of catalogs, databases and tables and of events stored in
//! parts, never with partitions or statistics.

use std::collections::{BTreeMap, HashMap, HashSet};

use rkyv::util::AlignedVec;

use crate::error::{escape_bytes, Result};
use crate::storage::keys::{self, FIRST_ID};
use crate::storage::kv::{self, KeyRange, KvBackend, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values::{
    StoredValue, COPY_ALIGN, VALUE_FORMAT_VERSION, VALUE_HEADER_LEN, VALUE_KIND_OFFSET,
    VALUE_RESERVED_OFFSET, VALUE_VERSION_OFFSET,
};

/// A problem found: the key (escaped for printing) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key, non-printable bytes escaped.
    pub key: String,
    /// What is wrong there.
    pub reason: String,
}

/// What a check saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckSummary {
    /// The keys checked.
    pub keys: u64,
    /// The bytes of their keys and values.
    pub bytes: u64,
    /// The problems found (each reported as found).
    pub problems: u64,
}

/// Checks every key of `backend`, calling `report` with each problem as it is found.
/// `Err` only when the backend cannot be read.
pub fn check_backend(
    backend: &dyn KvBackend,
    report: &mut dyn FnMut(Problem),
) -> Result<CheckSummary> {
    let mut checker = Checker::default();
    let mut summary = CheckSummary::default();
    for entry in kv::scan(backend, KeyRange::all(), SCAN_PAGE_ENTRY_COUNT) {
        let (key, value) = entry?;
        summary.keys += 1;
        summary.bytes += (key.len() + value.len()) as u64;
        if let Err(reason) = checker.visit(&key, &value) {
            summary.problems += 1;
            report(Problem {
                key: escape_bytes(&key),
                reason,
            });
        }
    }
    for problem in checker.finish() {
        summary.problems += 1;
        report(problem);
    }
    Ok(summary)
}

type Check = std::result::Result<(), String>;

/// What the walk has seen so far that later keys refer to.
#[derive(Default)]
struct Checker {
    next_id: Option<u64>,
    catalogs: HashSet<String>,
    databases: HashSet<u64>,
    /// Database ids named by `0x03` keys, checked once `0x04` was read.
    named_databases: Vec<(Vec<u8>, u64)>,
    /// Table ids and their partition key counts (`None` when the table's value is bad: its
    /// key is there, so what names it is not reported again).
    tables: HashMap<u64, Option<usize>>,
    /// Table ids named by `0x05` keys, with the key and its database's id.
    named_tables: HashMap<u64, (Vec<u8>, u64)>,
    pending_removals: HashSet<u64>,
    /// Tables that partitions or statistics name but that are not stored: the first key
    /// naming each, resolved against pending removals at the end.
    missing_tables: BTreeMap<u64, Vec<u8>>,
    /// The table whose partitions are being walked, and its descriptors.
    partition_table: Option<u64>,
    descriptors: HashSet<u64>,
    /// The table whose slots are being walked, and its next slot.
    slot_table: Option<(u64, Option<u32>)>,
    /// The highest id in use per counter name, with a key holding it.
    highest: HashMap<&'static str, (u64, Vec<u8>)>,
    /// The counters' values.
    counters: HashMap<&'static str, u64>,
    events_in_parts: HashSet<u64>,
}

/// The counters a check compares ids against; "next" counters exceed every id, "last" ones
/// reach it.
const NEXT_OBJECT_ID: &str = "next_id";
const NEXT_EVENT_ID: &str = "next_event_id";
const LAST_RUNTIME_STAT_ID: &str = "last_runtime_stat_id";
const LAST_EXECUTION_ID: &str = "last_execution_id";
const LAST_MASTER_KEY_ID: &str = "last_master_key_id";

impl Checker {
    fn visit(&mut self, key: &[u8], value: &[u8]) -> Check {
        let tag = key[0];
        let rest = &key[keys::KEYSPACE_LEN..];
        match tag {
            keys::KEYSPACE_META => self.meta(key, value),
            keys::KEYSPACE_CATALOG => {
                let name = keys::decode_catalog_key(key).map_err(|error| error.to_string())?;
                self.catalogs.insert(name);
                archive(value, &[1])
            }
            keys::KEYSPACE_DATABASE_NAME => {
                let (catalog, _) =
                    keys::decode_database_name_key(key).map_err(|error| error.to_string())?;
                let id = id_value(value)?;
                self.named_databases.push((key.to_vec(), id));
                if !self.catalogs.contains(&catalog) {
                    return Err(format!("its catalog {catalog} does not exist"));
                }
                Ok(())
            }
            keys::KEYSPACE_DATABASE => {
                let id = id_key(rest)?;
                self.databases.insert(id);
                self.object_id(id)?;
                archive(value, &[2])
            }
            keys::KEYSPACE_TABLE_NAME => {
                let (database, _) =
                    keys::decode_table_name_key(key).map_err(|error| error.to_string())?;
                self.named_tables
                    .insert(id_value(value)?, (key.to_vec(), database.0));
                self.database_exists(database.0)
            }
            keys::KEYSPACE_TABLE => self.table(rest, value),
            keys::KEYSPACE_PARTITION => self.partition(key, value),
            keys::KEYSPACE_STATS_SLOT => self.slot(key, value),
            keys::KEYSPACE_STATS_CHUNK
            | keys::KEYSPACE_STATS_RECENT
            | keys::KEYSPACE_STATS_SKETCH
            | keys::KEYSPACE_TABLE_STATS => self.statistics(key, value),
            keys::KEYSPACE_CHANGE => keys::decode_change_key(key)
                .map_err(|error| error.to_string())
                .and_then(|_| archive(value, &[74])),
            keys::KEYSPACE_PENDING_REMOVAL => {
                let table =
                    keys::decode_pending_removal_key(key).map_err(|error| error.to_string())?;
                self.pending_removals.insert(table.0);
                empty(value)
            }
            keys::KEYSPACE_PARTITION_EVENT => components_then(rest, 4, 4).and(raw(value, 4)),
            keys::KEYSPACE_FUNCTION => {
                let (database, _) =
                    keys::decode_function_key(key).map_err(|error| error.to_string())?;
                self.database_exists(database.0)?;
                archive(value, &[13])
            }
            keys::KEYSPACE_CONSTRAINT => self.constraint(key, value),
            _ => self.transactional(key, value),
        }
    }

    fn meta(&mut self, key: &[u8], value: &[u8]) -> Check {
        let (name, after) =
            keys::take_component(&key[1..]).map_err(|error| format!("{error:?}"))?;
        if !after.is_empty() {
            return Err("bytes follow the meta name".to_string());
        }
        match name.as_slice() {
            name if name == keys::META_FORMAT_VERSION.as_bytes() => {
                if value != [crate::store::STORE_FORMAT_VERSION] {
                    return Err(format!(
                        "store format {value:?}; this build reads {}",
                        crate::store::STORE_FORMAT_VERSION
                    ));
                }
                Ok(())
            }
            name if name == keys::META_NEXT_ID.as_bytes() => {
                let next = id_value(value)?;
                if next < FIRST_ID {
                    return Err(format!("next id {next} is below {FIRST_ID}"));
                }
                self.next_id = Some(next);
                self.counters.insert(NEXT_OBJECT_ID, next);
                Ok(())
            }
            name if name == keys::META_DB_UUID.as_bytes() => match std::str::from_utf8(value) {
                Ok(text) if text.len() == crate::store_uuid::UUID_TEXT_LEN => Ok(()),
                _ => Err("the UUID is not 36 characters of text".to_string()),
            },
            name if name == keys::META_CHANGE_VERSION.as_bytes() => id_value(value).map(|_| ()),
            _ => Err("an unknown meta entry".to_string()),
        }
    }

    /// Records that `id` is in use under the object counter.
    fn object_id(&mut self, id: u64) -> Check {
        if id < FIRST_ID {
            return Err(format!("id {id} is below {FIRST_ID}"));
        }
        match self.next_id {
            Some(next) if id < next => Ok(()),
            Some(next) => Err(format!(
                "id {id} is not below the next id to hand out, {next}"
            )),
            None => Err(format!("id {id} is in use but the store has no next id")),
        }
    }

    fn database_exists(&self, id: u64) -> Check {
        if self.databases.contains(&id) {
            Ok(())
        } else {
            Err(format!("its database {id} does not exist"))
        }
    }

    fn table(&mut self, rest: &[u8], value: &[u8]) -> Check {
        let id = id_key(rest)?;
        self.tables.insert(id, None);
        self.object_id(id)?;
        let table = decode::<crate::Table>(value, 3)?;
        self.tables.insert(id, Some(table.partition_keys.len()));
        match self.named_tables.get(&id) {
            Some((_, database)) => self.database_exists(*database),
            None => Err(format!("table {id} has no name in its database")),
        }
    }

    /// A table that a key of another keyspace names must exist, or be being dropped (checked
    /// at the end, as `0x0C` follows).
    fn table_referenced(&mut self, table: u64, key: &[u8]) {
        if !self.tables.contains_key(&table) {
            self.missing_tables
                .entry(table)
                .or_insert_with(|| key.to_vec());
        }
    }

    fn partition(&mut self, key: &[u8], value: &[u8]) -> Check {
        let table = id_key(key.get(1..9).ok_or("shorter than a table id")?)?;
        self.table_referenced(table, key);
        if !self.tables.contains_key(&table) {
            // Reported once for the table at the end; its keys are only read.
            return archive(value, &[4, 5, 58]);
        }
        if self.partition_table != Some(table) {
            self.partition_table = Some(table);
            self.descriptors.clear();
        }
        let after_table = &key[9..];
        if after_table.starts_with(&keys::PARTITION_DESCRIPTOR_MARK) {
            let id = id_key(&after_table[keys::PARTITION_DESCRIPTOR_MARK.len()..])?;
            self.descriptors.insert(id);
            return archive(value, &[5, 58]);
        }
        let (_, values) = keys::decode_partition_key(key).map_err(|error| error.to_string())?;
        let record = decode::<crate::PartitionRecord>(value, 4)?;
        if let Some(&Some(count)) = self.tables.get(&table) {
            if values.len() != count {
                return Err(format!(
                    "{} partition values where its table has {count} partition keys",
                    values.len()
                ));
            }
        }
        match record.descriptor_id {
            Some(descriptor) if !self.descriptors.contains(&descriptor) => {
                Err(format!("its shared descriptor {descriptor} does not exist"))
            }
            _ => Ok(()),
        }
    }

    fn slot(&mut self, key: &[u8], value: &[u8]) -> Check {
        let table = id_key(key.get(1..9).ok_or("shorter than a table id")?)?;
        self.table_referenced(table, key);
        if self.slot_table.map(|(current, _)| current) != Some(table) {
            self.slot_table = Some((table, None));
        }
        let slot =
            u32::from_be_bytes(raw(value, 4).map(|()| [value[0], value[1], value[2], value[3]])?);
        if key[9..] == keys::PARTITION_DESCRIPTOR_MARK {
            self.slot_table = Some((table, Some(slot)));
            return Ok(());
        }
        keys::decode_stats_slot_key(key).map_err(|error| error.to_string())?;
        match self.slot_table {
            Some((_, Some(next))) if slot < next => Ok(()),
            Some((_, Some(next))) => Err(format!(
                "slot {slot} is not below its table's next slot {next}"
            )),
            _ => Err("a slot of a table without a next slot".to_string()),
        }
    }

    fn statistics(&mut self, key: &[u8], value: &[u8]) -> Check {
        let table = id_key(key.get(1..9).ok_or("shorter than a table id")?)?;
        self.table_referenced(table, key);
        if key[0] == keys::KEYSPACE_TABLE_STATS
            && key[9..].starts_with(&keys::PARTITION_DESCRIPTOR_MARK)
        {
            return match &key[11..] {
                [] => archive(value, &[10]),
                [0x01] => archive(value, &[11]),
                _ => Err("an unknown key after the table's mark".to_string()),
            };
        }
        let (_, _, _, rest) =
            keys::decode_stats_column_key(key).map_err(|error| error.to_string())?;
        match key[0] {
            keys::KEYSPACE_STATS_CHUNK if rest.len() == 4 => archive(value, &[6, 8]),
            keys::KEYSPACE_STATS_RECENT if rest.len() == 4 => archive(value, &[71]),
            keys::KEYSPACE_STATS_RECENT if rest.len() == 5 => {
                Err(crate::stats::chunk_delta::KIND_70_NOT_READ.to_string())
            }
            keys::KEYSPACE_TABLE_STATS if rest.is_empty() => archive(value, &[7]),
            keys::KEYSPACE_STATS_SKETCH
                if rest.len() == 8 && rest[..4] == keys::STATS_SKETCH_CHUNK_MARK =>
            {
                archive(value, &[9, 12])
            }
            keys::KEYSPACE_STATS_SKETCH if rest.len() == 5 => Ok(()),
            _ => Err(format!("{} bytes follow the column and engine", rest.len())),
        }
    }

    fn constraint(&mut self, key: &[u8], value: &[u8]) -> Check {
        match key.get(1) {
            Some(&keys::CONSTRAINT_BY_PARENT) => {
                let (parent, _, _) =
                    keys::decode_constraint_key(key).map_err(|error| error.to_string())?;
                self.table_referenced(parent.0, key);
                archive(value, &[14])
            }
            Some(&keys::CONSTRAINT_FOREIGN_KEY_BY_CHILD) => {
                let (child, parent, _) =
                    keys::decode_foreign_key_child_key(key).map_err(|error| error.to_string())?;
                self.table_referenced(child.0, key);
                self.table_referenced(parent.0, key);
                empty(value)
            }
            _ => Err("an unknown constraint key".to_string()),
        }
    }

    /// The keyspaces from `0x10` on: transactions, events, registries, workload, grants.
    fn transactional(&mut self, key: &[u8], value: &[u8]) -> Check {
        let rest = &key[1..];
        match key[0] {
            keys::KEYSPACE_LOCK => self
                .counted(keys::ACID_COUNTER_NEXT_LOCK_ID, id_key(rest)?, key)
                .and(archive(value, &[16])),
            keys::KEYSPACE_ACID_COUNTER => self.acid_counter(rest, value),
            keys::KEYSPACE_TXN => self
                .counted(keys::ACID_COUNTER_NEXT_TXN_ID, id_key(rest)?, key)
                .and(archive(value, &[17])),
            keys::KEYSPACE_WRITE_ID_COUNTER => components_then(rest, 2, 0).and(raw(value, 8)),
            keys::KEYSPACE_WRITE_ID => components_then(rest, 2, 8).and(raw(value, 8)),
            keys::KEYSPACE_WRITE_SET => id_key(rest).and(archive(value, &[18])),
            keys::KEYSPACE_COMPACTION => self
                .counted(keys::ACID_COUNTER_NEXT_COMPACTION_ID, id_key(rest)?, key)
                .and(archive(value, &[19, 20, 21])),
            keys::KEYSPACE_MIN_HISTORY => id_then_components(rest, 2).and(raw(value, 8)),
            keys::KEYSPACE_EVENT => {
                let id = id_key(rest)?;
                self.counted(NEXT_EVENT_ID, id, key)?;
                if value.get(VALUE_KIND_OFFSET) == Some(&34) {
                    self.events_in_parts.insert(id);
                }
                archive(value, &[32, 34])
            }
            keys::KEYSPACE_EVENT_COUNTER => {
                if !rest.is_empty() {
                    return Err("bytes follow the event counter's tag".to_string());
                }
                self.counters.insert(NEXT_EVENT_ID, id_value(value)?);
                Ok(())
            }
            keys::KEYSPACE_WRITE_EVENT => id_then_components(rest, 3).and(archive(value, &[33])),
            keys::KEYSPACE_EVENT_PART => {
                let event = id_key(rest.get(..8).ok_or("shorter than an event id")?)?;
                if rest.len() != 12 {
                    return Err("not an event id and a part index".to_string());
                }
                if !self.events_in_parts.contains(&event) {
                    return Err(format!(
                        "a part of event {event}, which is not stored in parts"
                    ));
                }
                Ok(())
            }
            _ => self.registries(key, value),
        }
    }

    fn registries(&mut self, key: &[u8], value: &[u8]) -> Check {
        let rest = &key[1..];
        match key[0] {
            keys::KEYSPACE_TYPE => components_then(rest, 1, 0).and(archive(value, &[15])),
            keys::KEYSPACE_SCHEMA => match id_then_components(rest, 1) {
                Ok(()) => self
                    .database_exists(id_key(&rest[..8])?)
                    .and(archive(value, &[35])),
                Err(_) => {
                    let (head, _) = rest.split_at(rest.len().saturating_sub(4));
                    id_then_components(head, 1)?;
                    self.database_exists(id_key(&rest[..8])?)
                        .and(archive(value, &[36]))
                }
            },
            keys::KEYSPACE_SERDE => components_then(rest, 1, 0).and(archive(value, &[37])),
            keys::KEYSPACE_RESOURCE_PLAN => components_then(rest, 2, 0).and(archive(value, &[40])),
            keys::KEYSPACE_RUNTIME_STAT => self
                .counted(LAST_RUNTIME_STAT_ID, id_key(rest)?, key)
                .and(archive(value, &[41])),
            keys::KEYSPACE_SCHEDULED_QUERY => {
                components_then(rest, 2, 0).and(archive(value, &[42]))
            }
            keys::KEYSPACE_SCHEDULED_EXECUTION => self
                .counted(LAST_EXECUTION_ID, id_key(rest)?, key)
                .and(archive(value, &[43])),
            keys::KEYSPACE_SCHEDULE_COUNTER => {
                let name = match rest {
                    [1] => LAST_RUNTIME_STAT_ID,
                    [2] => LAST_EXECUTION_ID,
                    _ => return Err("an unknown schedule counter".to_string()),
                };
                self.counters.insert(name, id_value(value)?);
                Ok(())
            }
            keys::KEYSPACE_PROCEDURE | keys::KEYSPACE_PACKAGE => {
                id_then_components(rest, 1)?;
                self.database_exists(id_key(&rest[..8])?)?;
                archive(
                    value,
                    if key[0] == keys::KEYSPACE_PROCEDURE {
                        &[50]
                    } else {
                        &[51]
                    },
                )
            }
            keys::KEYSPACE_DATA_CONNECTOR => components_then(rest, 1, 0).and(archive(value, &[52])),
            keys::KEYSPACE_COMPACTOR_COMPONENT => raw(rest, 16).and(archive(value, &[22])),
            keys::KEYSPACE_COMPACTION_METRIC => archive(value, &[23]),
            keys::KEYSPACE_MATERIALIZATION => match rest.first() {
                Some(1) => components_then(&rest[1..], 2, 0).and(archive(value, &[24])),
                Some(2) => components_then(&rest[1..], 2, 8).and(raw(value, 8)),
                Some(3) => components_then(&rest[1..], 2, 0).and(raw(value, 8)),
                _ => Err("an unknown materialization key".to_string()),
            },
            keys::KEYSPACE_REPLICATION_METRICS => raw(rest, 8).and(archive(value, &[56])),
            keys::KEYSPACE_REPL_TXN_MAP => components_then(rest, 1, 8).and(raw(value, 8)),
            keys::KEYSPACE_PROPERTY_MAP => utf8(rest).and(archive(value, &[59])),
            keys::KEYSPACE_DELEGATION_TOKEN => utf8(rest).and(archive(value, &[60])),
            keys::KEYSPACE_MASTER_KEY if rest.is_empty() => {
                raw(value, 4)?;
                let last = u32::from_be_bytes([value[0], value[1], value[2], value[3]]);
                self.counters.insert(LAST_MASTER_KEY_ID, u64::from(last));
                Ok(())
            }
            keys::KEYSPACE_MASTER_KEY => {
                raw(rest, 4)?;
                let id = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
                self.counted(LAST_MASTER_KEY_ID, u64::from(id), key)
                    .and(archive(value, &[61]))
            }
            keys::KEYSPACE_ROLE => components_then(rest, 1, 0).and(archive(value, &[62])),
            keys::KEYSPACE_ROLE_MEMBER => archive(value, &[63]),
            keys::KEYSPACE_PRIVILEGE => archive(value, &[64]),
            tag => Err(format!("keyspace {tag:#04x} is not one this build writes")),
        }
    }

    fn acid_counter(&mut self, rest: &[u8], value: &[u8]) -> Check {
        let (name, after) = keys::take_component(rest).map_err(|error| format!("{error:?}"))?;
        if !after.is_empty() {
            return Err("bytes follow the counter's name".to_string());
        }
        let known = [
            keys::ACID_COUNTER_NEXT_LOCK_ID,
            keys::ACID_COUNTER_NEXT_TXN_ID,
            keys::ACID_COUNTER_NEXT_COMPACTION_ID,
        ];
        let name = known
            .into_iter()
            .find(|known| known.as_bytes() == name)
            .ok_or_else(|| "an unknown transaction counter".to_string())?;
        self.counters.insert(name, id_value(value)?);
        Ok(())
    }

    /// Records `id` in use under `counter`, for the end's comparison.
    fn counted(&mut self, counter: &'static str, id: u64, key: &[u8]) -> Check {
        let highest = self.highest.entry(counter).or_insert((0, Vec::new()));
        if id >= highest.0 {
            *highest = (id, key.to_vec());
        }
        Ok(())
    }

    /// The checks that need the whole walk: names point at stored objects, tables named
    /// elsewhere exist, counters stand past the ids in use.
    fn finish(self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |key: &[u8], reason: String| {
            problems.push(Problem {
                key: escape_bytes(key),
                reason,
            })
        };
        for (key, id) in &self.named_databases {
            if !self.databases.contains(id) {
                problem(key, format!("names database {id}, which is not stored"));
            }
        }
        for (id, (key, _)) in &self.named_tables {
            if !self.tables.contains_key(id) {
                problem(key, format!("names table {id}, which is not stored"));
            }
        }
        for (table, key) in &self.missing_tables {
            if !self.pending_removals.contains(table) {
                problem(
                    key,
                    format!("belongs to table {table}, which does not exist"),
                );
            }
        }
        for (counter, (id, key)) in &self.highest {
            let stored = self.counters.get(counter).copied();
            let behind = match stored {
                Some(value) if counter.starts_with("last") => value < *id,
                Some(value) => value <= *id,
                None => true,
            };
            if behind {
                let stored = stored.map_or_else(|| "absent".to_string(), |value| value.to_string());
                problem(
                    key,
                    format!("id {id} is in use but the counter {counter} is {stored}, behind it"),
                );
            }
        }
        problems
    }
}

fn id_key(bytes: &[u8]) -> std::result::Result<u64, String> {
    let id: [u8; 8] = bytes
        .try_into()
        .map_err(|_| format!("{} bytes where an 8-byte id was expected", bytes.len()))?;
    Ok(u64::from_be_bytes(id))
}

fn id_value(value: &[u8]) -> std::result::Result<u64, String> {
    id_key(value).map_err(|reason| format!("the value: {reason}"))
}

fn raw(bytes: &[u8], len: usize) -> Check {
    if bytes.len() == len {
        Ok(())
    } else {
        Err(format!("{} bytes where {len} were expected", bytes.len()))
    }
}

fn empty(value: &[u8]) -> Check {
    raw(value, 0)
}

fn utf8(bytes: &[u8]) -> Check {
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|_| "the key's text is not UTF-8".to_string())
}

/// `count` components, then exactly `tail` bytes.
fn components_then(mut rest: &[u8], count: usize, tail: usize) -> Check {
    for _ in 0..count {
        let (_, after) = keys::take_component(rest).map_err(|error| format!("{error:?}"))?;
        rest = after;
    }
    raw(rest, tail).map_err(|reason| format!("after its names: {reason}"))
}

/// An id, then `count` components and nothing more.
fn id_then_components(rest: &[u8], count: usize) -> Check {
    id_key(rest.get(..8).ok_or("shorter than an id")?)?;
    components_then(&rest[8..], count, 0)
}

/// The value's header: the format version, a kind among `kinds`, zero reserved bytes.
fn header(value: &[u8], kinds: &[u8]) -> std::result::Result<u8, String> {
    if value.len() < VALUE_HEADER_LEN {
        return Err(format!(
            "{} bytes, shorter than the {VALUE_HEADER_LEN}-byte header",
            value.len()
        ));
    }
    if value[VALUE_VERSION_OFFSET] != VALUE_FORMAT_VERSION {
        return Err(format!(
            "value format version {}; this build reads {VALUE_FORMAT_VERSION}",
            value[VALUE_VERSION_OFFSET]
        ));
    }
    let kind = value[VALUE_KIND_OFFSET];
    if !kinds.contains(&kind) {
        return Err(format!(
            "value kind {kind} where this keyspace holds kinds {kinds:?}"
        ));
    }
    if value[VALUE_RESERVED_OFFSET..VALUE_HEADER_LEN]
        .iter()
        .any(|byte| *byte != 0)
    {
        return Err("reserved header bytes are not zero".to_string());
    }
    Ok(kind)
}

/// The value validates as an archive of one of `kinds`.
fn archive(value: &[u8], kinds: &[u8]) -> Check {
    let kind = header(value, kinds)?;
    let validate =
        archive_check(kind).ok_or_else(|| format!("value kind {kind} has no archive check"))?;
    validate(&aligned(value))
}

fn aligned(value: &[u8]) -> AlignedVec<COPY_ALIGN> {
    let mut copy = AlignedVec::<COPY_ALIGN>::with_capacity(value.len() - VALUE_HEADER_LEN);
    copy.extend_from_slice(&value[VALUE_HEADER_LEN..]);
    copy
}

/// The value, validated as kind `kind` and deserialised.
fn decode<T: StoredValue>(value: &[u8], kind: u8) -> std::result::Result<T, String> {
    header(value, &[kind])?;
    let copy = aligned(value);
    let archived = T::access_archive(&copy)
        .map_err(|error| format!("the archive fails validation: {error}"))?;
    T::from_archive(archived).map_err(|error| format!("the archive cannot be read: {error}"))
}

fn valid<T: StoredValue>(archive: &[u8]) -> Check {
    T::access_archive(archive)
        .map(|_| ())
        .map_err(|error| format!("the {:?} archive fails validation: {error}", T::KIND))
}

/// The archive check of each value kind this build writes or reads.
fn archive_check(kind: u8) -> Option<fn(&[u8]) -> Check> {
    use crate::stats::{chunk, chunk_delta, packed, sketch_chunk, transactional};
    use crate::txns::{
        compaction_legacy, compaction_metrics, compactions, compactor, materializations, state,
    };
    let check: fn(&[u8]) -> Check = match kind {
        1 => valid::<crate::Catalog>,
        2 => valid::<crate::Database>,
        3 => valid::<crate::Table>,
        4 => valid::<crate::PartitionRecord>,
        5 => valid::<crate::StorageDescriptor>,
        6 => valid::<chunk::StatsChunk>,
        7 => valid::<chunk::TableStatsRecord>,
        8 => valid::<packed::PackedStatsChunk>,
        9 => valid::<sketch_chunk::SketchChunk>,
        71 => valid::<chunk_delta::ChunkDelta>,
        74 => valid::<crate::storage::changes::ChangeEntry>,
        10 => valid::<transactional::TransactionStatistics>,
        11 => valid::<transactional::ViewSources>,
        12 => valid::<sketch_chunk::SketchUnionChunk>,
        13 => valid::<crate::Function>,
        14 => valid::<crate::model::constraint::StoredConstraint>,
        15 => valid::<crate::TypeDef>,
        16 => valid::<crate::txns::locks::state::LockRecord>,
        17 => valid::<state::TxnRecord>,
        18 => valid::<state::WriteSet>,
        19 => valid::<compactions::Compaction>,
        20 => valid::<compaction_legacy::LegacyCompactionEntry>,
        21 => valid::<compactions::CompactionEntry>,
        22 => valid::<compactor::CompactorComponent>,
        23 => valid::<compaction_metrics::KeptMetric>,
        24 => valid::<materializations::RebuildLock>,
        32 => valid::<crate::events::model::EventRecord>,
        33 => valid::<crate::events::model::WriteEvent>,
        34 => valid::<crate::events::parts::EventParts>,
        35 => valid::<crate::ISchema>,
        36 => valid::<crate::SchemaVersion>,
        37 => valid::<crate::RegisteredSerde>,
        40 => valid::<crate::ResourcePlan>,
        41 => valid::<crate::runtime_stats::RuntimeStat>,
        42 => valid::<crate::scheduled::ScheduledQuery>,
        43 => valid::<crate::scheduled::ScheduledExecution>,
        50 => valid::<crate::procedures::StoredProcedure>,
        51 => valid::<crate::procedures::Package>,
        52 => valid::<crate::DataConnector>,
        56 => valid::<crate::replication_metrics::ReplicationMetrics>,
        58 => valid::<crate::partitions::descriptors::ColumnlessDescriptor>,
        59 => valid::<crate::properties::PropertyMapRecord>,
        60 => valid::<crate::tokens::DelegationToken>,
        61 => valid::<crate::tokens::MasterKey>,
        62 => valid::<crate::Role>,
        63 => valid::<crate::RoleMember>,
        64 => valid::<crate::PrivilegeGrant>,
        _ => return None,
    };
    Some(check)
}
