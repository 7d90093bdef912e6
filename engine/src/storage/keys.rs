//! Order-preserving key encoding. The layout is specified byte by byte in
//! `docs/storage-format.md`; the constants here mirror it.
//!
//! Every key starts with one keyspace byte. Names and partition values are
//! *components*: their bytes with `0x00` escaped as `0x00 0xFF`, then the
//! terminator `0x00 0x01`. Because the terminator sorts below every escaped or
//! plain continuation, encoded order equals the order of the component tuples,
//! and the encoding of `db1` is not a prefix of the encoding of `db10`, so a
//! prefix scan never bleeds into a neighbour. Ids are u64 big-endian, which
//! sorts numerically.

use crate::error::{Error, Result};

/// The first id handed out. Ids start above zero so that zero never names an
/// object.
pub(crate) const FIRST_ID: u64 = 1;

/// Engine metadata: format version, id counter. `0x01 + component(name)`.
pub const KEYSPACE_META: u8 = 0x01;
/// Catalogs: `0x02 + component(catalog)` → catalog value.
pub const KEYSPACE_CATALOG: u8 = 0x02;
/// Database name index: `0x03 + component(catalog) + component(database)` →
/// database id (8 bytes, big-endian).
pub const KEYSPACE_DATABASE_NAME: u8 = 0x03;
/// Databases by id: `0x04 + id` → database value.
pub const KEYSPACE_DATABASE: u8 = 0x04;
/// Table name index: `0x05 + database id + component(table)` → table id.
pub const KEYSPACE_TABLE_NAME: u8 = 0x05;
/// Tables by id: `0x06 + id` → table value.
pub const KEYSPACE_TABLE: u8 = 0x06;
/// Partitions: `0x07 + table id + component(value)…` → partition value.
pub const KEYSPACE_PARTITION: u8 = 0x07;
/// Removals left to finish: `0x0C + table id` → empty. A dropped table's
/// partitions are deleted in bounded batches after the drop commits; this
/// marker, written in the drop's batch, lets a restart finish the job.
pub const KEYSPACE_PENDING_REMOVAL: u8 = 0x0C;
/// Partition events (`markPartitionForEvent`): `0x0D`, then the components
/// catalog, database, table and the values joined by `,`, then the event type
/// (i32, big-endian) → the time marked (i32 seconds, BE). Keyed by the names
/// as given, as Hive keeps them: they outlive a dropped table.
pub const KEYSPACE_PARTITION_EVENT: u8 = 0x0D;
/// Functions: `0x0E + database id + component(function)` → function value. Keyed by the
/// database's id, so that a database's functions are one prefix (dropped with it).
pub const KEYSPACE_FUNCTION: u8 = 0x0E;
/// Table constraints, two kinds of keys told apart by the byte after the keyspace:
/// `0x0F 0x01 + parent table id + constraint kind (1 byte) + component(name)` → the
/// constraint, keyed by its parent table as Hive keys `KEY_CONSTRAINTS` (a foreign key's
/// parent is the table it references, so names are unique per parent table, as in Hive);
/// `0x0F 0x02 + table id + parent table id + component(name)` → empty: the foreign keys
/// declared on a table, by the table they reference.
pub const KEYSPACE_CONSTRAINT: u8 = 0x0F;
/// After [`KEYSPACE_CONSTRAINT`]: a constraint by its parent table.
pub const CONSTRAINT_BY_PARENT: u8 = 0x01;
/// After [`KEYSPACE_CONSTRAINT`]: a foreign key by the table it is declared on.
pub const CONSTRAINT_FOREIGN_KEY_BY_CHILD: u8 = 0x02;

// Column statistics (`crate::stats`): keyspaces 0x08 to 0x0B, and 0x38.
/// Partition statistics slots: `0x08 + table id + component(value)…` → slot
/// (u32, big-endian); `0x08 + table id + 0x00 0x00` → the next slot to hand out.
pub const KEYSPACE_STATS_SLOT: u8 = 0x08;
/// Partition statistics, columnar: `0x09 + table id + component(column) +
/// component(engine) + chunk (u32, big-endian)` → statistics chunk value.
pub const KEYSPACE_STATS_CHUNK: u8 = 0x09;
/// Sketches apart from the arrays: `0x0A + table id + component(column) +
/// component(engine) + FF FF FF FF + chunk (u32, big-endian)` → the `bitVectors`
/// of a chunk's slots (a sketch chunk value); `0x0A + table id +
/// component(column) + component(engine) + slot (u32, big-endian) + tag` → raw
/// bytes (histograms, and `bitVectors` written before sketch chunks).
pub const KEYSPACE_STATS_SKETCH: u8 = 0x0A;
/// Deltas of statistics chunks: `0x38 + table id + component(column) + component(engine) +
/// chunk (u32, big-endian)` → the chunk's recent slots, the slots written since the chunk was
/// last written whole (`crate::stats`, chunk deltas). A keyspace of their own, so that making
/// and deleting them never splits or joins sled's leaves of chunks (big values, rewritten and
/// compressed whole at each).
pub const KEYSPACE_STATS_RECENT: u8 = 0x38;
/// Table-level statistics: `0x0B + table id + component(column) +
/// component(engine)` → table column statistics value; `0x0B + table id +
/// 0x00 0x00` → the table's transaction statistics.
pub const KEYSPACE_TABLE_STATS: u8 = 0x0B;

/// The byte that starts an escape or a terminator inside a component.
pub const COMPONENT_ESCAPE: u8 = 0x00;
/// After [`COMPONENT_ESCAPE`]: the component holds a literal `0x00`.
pub const COMPONENT_ESCAPED_ZERO: u8 = 0xFF;
/// After [`COMPONENT_ESCAPE`]: the component ends here.
pub const COMPONENT_END: u8 = 0x01;
/// The length of a component terminator.
pub const COMPONENT_TERMINATOR_LEN: usize = 2;
/// The length of an id in a key.
pub const ID_LEN: usize = std::mem::size_of::<u64>();
/// The length of a keyspace tag.
pub const KEYSPACE_LEN: usize = 1;
/// The length of a key holding only a keyspace and an id.
pub const ID_KEY_LEN: usize = KEYSPACE_LEN + ID_LEN;

/// The meta entry holding the next id to hand out (8 bytes, big-endian).
pub const META_NEXT_ID: &str = "next_id";
/// The meta entry holding the store's format version (1 byte).
pub const META_FORMAT_VERSION: &str = "format_version";
/// The meta entry holding the store's UUID, made once when the store is created
/// (`get_metastore_db_uuid`): its 36-character text.
pub const META_DB_UUID: &str = "db_uuid";
/// The meta entry holding the last version of the change log (8 bytes, big-endian; see
/// [`KEYSPACE_CHANGE`]).
pub const META_CHANGE_VERSION: &str = "change_version";

// The terminator must sort below the escaped zero, and both below any byte a
// name continues with after a literal 0x00 was escaped.
const _: () = assert!(COMPONENT_END < COMPONENT_ESCAPED_ZERO);
const _: () = assert!(COMPONENT_ESCAPE < COMPONENT_END);
const _: () = assert!(ID_KEY_LEN == 9);
// Descriptor keys sort below the smallest component, the empty value.
const _: () = assert!(PARTITION_DESCRIPTOR_MARK[1] < COMPONENT_END);
const _: () =
    assert!(KEYSPACE_META < KEYSPACE_CATALOG && KEYSPACE_CATALOG < KEYSPACE_DATABASE_NAME);
const _: () =
    assert!(KEYSPACE_DATABASE_NAME < KEYSPACE_DATABASE && KEYSPACE_DATABASE < KEYSPACE_TABLE_NAME);
const _: () = assert!(KEYSPACE_TABLE_NAME < KEYSPACE_TABLE && KEYSPACE_TABLE < KEYSPACE_PARTITION);
const _: () = assert!(KEYSPACE_PARTITION < KEYSPACE_STATS_SLOT);
const _: () = assert!(
    KEYSPACE_STATS_SLOT < KEYSPACE_STATS_CHUNK && KEYSPACE_STATS_CHUNK < KEYSPACE_STATS_SKETCH
);
const _: () = assert!(KEYSPACE_STATS_SKETCH < KEYSPACE_TABLE_STATS && KEYSPACE_TABLE_STATS < 0x10);
const _: () = assert!(KEYSPACE_PARTITION_EVENT < KEYSPACE_CONSTRAINT && KEYSPACE_CONSTRAINT < 0x10);
const _: () = assert!(KEYSPACE_PRIVILEGE < KEYSPACE_STATS_RECENT);

/// The surrogate id of a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DatabaseId(pub u64);

/// The surrogate id of a table; Hive's `Table.id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableId(pub u64);

/// Appends `component` to `key`, escaped and terminated.
pub fn push_component(key: &mut Vec<u8>, component: &[u8]) {
    key.reserve(component.len() + COMPONENT_TERMINATOR_LEN);
    for byte in component {
        key.push(*byte);
        if *byte == COMPONENT_ESCAPE {
            key.push(COMPONENT_ESCAPED_ZERO);
        }
    }
    key.push(COMPONENT_ESCAPE);
    key.push(COMPONENT_END);
}

/// Reads one component from the front of `input`: its bytes, and the rest.
pub fn take_component(input: &[u8]) -> Result<(Vec<u8>, &[u8]), KeyError> {
    let mut component = Vec::new();
    let rest = take_component_into(input, &mut component)?;
    Ok((component, rest))
}

/// Appends the leading component of `input`, unescaped, to `out`; returns what follows it.
/// Runs of plain bytes are copied whole (keys are scanned by the million in listings).
pub fn take_component_into<'a>(input: &'a [u8], out: &mut Vec<u8>) -> Result<&'a [u8], KeyError> {
    let mut rest = input;
    loop {
        let Some(escape) = memchr::memchr(COMPONENT_ESCAPE, rest) else {
            return Err(KeyError::UnterminatedComponent);
        };
        out.extend_from_slice(&rest[..escape]);
        match rest.get(escape + 1) {
            Some(&COMPONENT_ESCAPED_ZERO) => out.push(COMPONENT_ESCAPE),
            Some(&COMPONENT_END) => return Ok(&rest[escape + 2..]),
            Some(other) => return Err(KeyError::BadEscape(*other)),
            None => return Err(KeyError::UnterminatedComponent),
        }
        rest = &rest[escape + 2..];
    }
}

fn take_name(input: &[u8]) -> Result<(String, &[u8]), KeyError> {
    let (bytes, rest) = take_component(input)?;
    let name = String::from_utf8(bytes).map_err(|_| KeyError::NotUtf8)?;
    Ok((name, rest))
}

fn take_id(input: &[u8]) -> Result<(u64, &[u8]), KeyError> {
    let bytes: [u8; ID_LEN] = input
        .get(..ID_LEN)
        .and_then(|slice| slice.try_into().ok())
        .ok_or(KeyError::ShortId)?;
    Ok((u64::from_be_bytes(bytes), &input[ID_LEN..]))
}

fn take_keyspace(input: &[u8], keyspace: u8) -> Result<&[u8], KeyError> {
    match input.split_first() {
        Some((first, rest)) if *first == keyspace => Ok(rest),
        Some((first, _)) => Err(KeyError::WrongKeyspace {
            expected: keyspace,
            found: *first,
        }),
        None => Err(KeyError::Empty),
    }
}

fn expect_end(rest: &[u8]) -> Result<(), KeyError> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(KeyError::TrailingBytes(rest.len()))
    }
}

/// Why a stored key could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key is empty.
    #[error("the key is empty")]
    Empty,
    /// The key belongs to another keyspace.
    #[error("keyspace 0x{found:02x} where 0x{expected:02x} was expected")]
    WrongKeyspace {
        /// The keyspace the decoder reads.
        expected: u8,
        /// The keyspace byte found.
        found: u8,
    },
    /// A component has no terminator.
    #[error("a name component has no terminator")]
    UnterminatedComponent,
    /// `0x00` is followed by a byte that is neither escape nor terminator.
    #[error("0x00 followed by 0x{0:02x} inside a name component")]
    BadEscape(u8),
    /// A name is not UTF-8.
    #[error("a name component is not UTF-8")]
    NotUtf8,
    /// An id is shorter than 8 bytes.
    #[error("an id is shorter than {ID_LEN} bytes")]
    ShortId,
    /// Bytes follow the last field.
    #[error("{0} bytes follow the last field")]
    TrailingBytes(usize),
}

impl KeyError {
    /// This error as an [`Error::Corruption`] of `key`.
    pub fn at(self, key: &[u8]) -> Error {
        Error::corruption(key, self.to_string())
    }
}

/// `0x01 + component(name)`.
pub fn meta_key(name: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_META];
    push_component(&mut key, name.as_bytes());
    key
}

/// `0x02 + component(catalog)`.
pub fn catalog_key(catalog: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_CATALOG];
    push_component(&mut key, catalog.as_bytes());
    key
}

/// The prefix of every catalog key.
pub fn catalog_prefix() -> Vec<u8> {
    vec![KEYSPACE_CATALOG]
}

/// The catalog name in a catalog key.
pub fn decode_catalog_key(key: &[u8]) -> Result<String> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_CATALOG)?;
        let (catalog, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok(catalog)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x03 + component(catalog)`: the prefix of the catalog's database names.
pub fn database_name_prefix(catalog: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_DATABASE_NAME];
    push_component(&mut key, catalog.as_bytes());
    key
}

/// `0x03 + component(catalog) + component(database)`.
pub fn database_name_key(catalog: &str, database: &str) -> Vec<u8> {
    let mut key = database_name_prefix(catalog);
    push_component(&mut key, database.as_bytes());
    key
}

/// The catalog and database names in a database name key.
pub fn decode_database_name_key(key: &[u8]) -> Result<(String, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_DATABASE_NAME)?;
        let (catalog, rest) = take_name(rest)?;
        let (database, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((catalog, database))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x04 + id`.
pub fn database_key(id: DatabaseId) -> Vec<u8> {
    id_key(KEYSPACE_DATABASE, id.0)
}

/// `0x05 + database id`: the prefix of the database's table names.
pub fn table_name_prefix(database: DatabaseId) -> Vec<u8> {
    id_key(KEYSPACE_TABLE_NAME, database.0)
}

/// `0x05 + database id + component(table)`.
pub fn table_name_key(database: DatabaseId, table: &str) -> Vec<u8> {
    let mut key = table_name_prefix(database);
    push_component(&mut key, table.as_bytes());
    key
}

/// The database id and table name in a table name key.
pub fn decode_table_name_key(key: &[u8]) -> Result<(DatabaseId, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_TABLE_NAME)?;
        let (database, rest) = take_id(rest)?;
        let (table, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((DatabaseId(database), table))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x06 + id`.
pub fn table_key(id: TableId) -> Vec<u8> {
    id_key(KEYSPACE_TABLE, id.0)
}

/// `0x07 + table id`: the prefix of every partition of the table.
pub fn partition_prefix(table: TableId) -> Vec<u8> {
    id_key(KEYSPACE_PARTITION, table.0)
}

/// `0x07 + table id + component(value)…`. With fewer values than the table
/// has partition keys, it is the prefix of the partitions whose leading
/// values are these.
pub fn partition_key<V: AsRef<str>>(table: TableId, values: &[V]) -> Vec<u8> {
    let mut key = partition_prefix(table);
    for value in values {
        push_component(&mut key, value.as_ref().as_bytes());
    }
    key
}

/// The byte pair that starts a partition descriptor key after the table id:
/// `0x00 0x00` never starts a component (whose first two bytes are at least
/// `0x00 0x01`), so descriptors sort before every partition of the table and
/// share its prefix, and dropping the prefix drops both.
pub const PARTITION_DESCRIPTOR_MARK: [u8; 2] = [COMPONENT_ESCAPE, COMPONENT_ESCAPE];

/// `0x07 + table id + 0x00 0x00 + descriptor id`: a storage descriptor
/// shared by partitions of the table.
pub fn partition_descriptor_key(table: TableId, descriptor: u64) -> Vec<u8> {
    let mut key = partition_prefix(table);
    key.extend_from_slice(&PARTITION_DESCRIPTOR_MARK);
    key.extend_from_slice(&descriptor.to_be_bytes());
    key
}

/// The first key of the table's partitions proper: past its descriptors.
pub fn partition_values_start(table: TableId) -> Vec<u8> {
    let mut key = partition_prefix(table);
    key.extend_from_slice(&[COMPONENT_ESCAPE, COMPONENT_END]);
    key
}

/// The table of a partition or partition descriptor key; `None` for any other key.
pub(crate) fn partition_table_id(key: &[u8]) -> Option<u64> {
    let rest = take_keyspace(key, KEYSPACE_PARTITION).ok()?;
    take_id(rest).ok().map(|(table, _)| table)
}

/// The table id of a statistics slot key (an index entry or the counter), if `key` is one.
pub(crate) fn stats_slot_table_id(key: &[u8]) -> Option<u64> {
    if *key.first()? != KEYSPACE_STATS_SLOT {
        return None;
    }
    let rest = take_keyspace(key, KEYSPACE_STATS_SLOT).ok()?;
    take_id(rest).ok().map(|(table, _)| table)
}

/// The table id of a partition statistics key (a slot or the table's slot counter, a chunk,
/// a chunk's delta, a sketch or histogram), if `key` is one.
pub(crate) fn stats_partition_level_table_id(key: &[u8]) -> Option<u64> {
    let keyspace = *key.first()?;
    let partition_level = (KEYSPACE_STATS_SLOT..=KEYSPACE_STATS_SKETCH).contains(&keyspace)
        || keyspace == KEYSPACE_STATS_RECENT;
    if !partition_level {
        return None;
    }
    let rest = take_keyspace(key, keyspace).ok()?;
    take_id(rest).ok().map(|(table, _)| table)
}

/// The table id and partition values in a partition key.
pub fn decode_partition_key(key: &[u8]) -> Result<(TableId, Vec<String>)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_PARTITION)?;
        let (table, mut rest) = take_id(rest)?;
        let mut values = Vec::new();
        while !rest.is_empty() {
            let (value, tail) = take_name(rest)?;
            values.push(value);
            rest = tail;
        }
        Ok((TableId(table), values))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// The encoded values of partition key `key`: the components after its keyspace and table id.
pub(crate) fn partition_key_values(key: &[u8]) -> Result<&[u8]> {
    let values = || {
        let rest = take_keyspace(key, KEYSPACE_PARTITION)?;
        take_id(rest).map(|(_, values)| values)
    };
    values().map_err(|error: KeyError| error.at(key))
}

/// Reads a stored id value (8 bytes, big-endian) found at `key`.
pub fn decode_id_value(key: &[u8], value: &[u8]) -> Result<u64> {
    let (id, rest) = take_id(value).map_err(|error| error.at(key))?;
    expect_end(rest).map_err(|error| error.at(key))?;
    Ok(id)
}

/// A partition event's key; see [`KEYSPACE_PARTITION_EVENT`].
pub fn partition_event_key(
    catalog: &str,
    database: &str,
    table: &str,
    joined_values: &str,
    event_type: i32,
) -> Vec<u8> {
    let mut key = vec![KEYSPACE_PARTITION_EVENT];
    for component in [catalog, database, table, joined_values] {
        push_component(&mut key, component.as_bytes());
    }
    key.extend_from_slice(&event_type.to_be_bytes());
    key
}

/// `0x0E + database id`: the prefix of the database's functions.
pub fn function_prefix(database: DatabaseId) -> Vec<u8> {
    id_key(KEYSPACE_FUNCTION, database.0)
}

/// `0x0E + database id + component(function)`.
pub fn function_key(database: DatabaseId, function: &str) -> Vec<u8> {
    let mut key = function_prefix(database);
    push_component(&mut key, function.as_bytes());
    key
}

/// The database id and function name in a function key.
pub fn decode_function_key(key: &[u8]) -> Result<(DatabaseId, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_FUNCTION)?;
        let (database, rest) = take_id(rest)?;
        let (function, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((DatabaseId(database), function))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x0F 0x01 + parent table id`: the prefix of every constraint whose parent is the table
/// (its own, and the foreign keys that reference it).
pub fn constraint_parent_prefix(parent: TableId) -> Vec<u8> {
    let mut key = vec![KEYSPACE_CONSTRAINT, CONSTRAINT_BY_PARENT];
    key.extend_from_slice(&parent.0.to_be_bytes());
    key
}

/// `0x0F 0x01 + parent table id + kind`: the prefix of the table's constraints of one kind.
pub fn constraint_kind_prefix(parent: TableId, kind: u8) -> Vec<u8> {
    let mut key = constraint_parent_prefix(parent);
    key.push(kind);
    key
}

/// `0x0F 0x01 + parent table id + kind + component(name)`.
pub fn constraint_key(parent: TableId, kind: u8, name: &str) -> Vec<u8> {
    let mut key = constraint_kind_prefix(parent, kind);
    push_component(&mut key, name.as_bytes());
    key
}

/// The parent table, kind and name in a constraint key.
pub fn decode_constraint_key(key: &[u8]) -> Result<(TableId, u8, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_CONSTRAINT)?;
        let rest = take_keyspace(rest, CONSTRAINT_BY_PARENT)?;
        let (parent, rest) = take_id(rest)?;
        let (kind, rest) = rest.split_first().ok_or(KeyError::ShortId)?;
        let (name, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((TableId(parent), *kind, name))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x0F 0x02 + table id`: the prefix of the foreign keys declared on the table.
pub fn foreign_key_child_prefix(child: TableId) -> Vec<u8> {
    let mut key = vec![KEYSPACE_CONSTRAINT, CONSTRAINT_FOREIGN_KEY_BY_CHILD];
    key.extend_from_slice(&child.0.to_be_bytes());
    key
}

/// `0x0F 0x02 + table id + parent table id + component(name)`.
pub fn foreign_key_child_key(child: TableId, parent: TableId, name: &str) -> Vec<u8> {
    let mut key = foreign_key_child_prefix(child);
    key.extend_from_slice(&parent.0.to_be_bytes());
    push_component(&mut key, name.as_bytes());
    key
}

/// The table, parent table and name in a foreign key's child index key.
pub fn decode_foreign_key_child_key(key: &[u8]) -> Result<(TableId, TableId, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_CONSTRAINT)?;
        let rest = take_keyspace(rest, CONSTRAINT_FOREIGN_KEY_BY_CHILD)?;
        let (child, rest) = take_id(rest)?;
        let (parent, rest) = take_id(rest)?;
        let (name, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((TableId(child), TableId(parent), name))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x0C + table id`: the marker of a dropped table whose partitions are
/// still being deleted.
pub fn pending_removal_key(table: TableId) -> Vec<u8> {
    id_key(KEYSPACE_PENDING_REMOVAL, table.0)
}

/// The table a [`pending_removal_key`] names.
pub fn decode_pending_removal_key(key: &[u8]) -> Result<TableId> {
    let decode = || -> std::result::Result<u64, KeyError> {
        let rest = take_keyspace(key, KEYSPACE_PENDING_REMOVAL)?;
        let (id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(id)
    };
    decode().map(TableId).map_err(|error| error.at(key))
}

// ---------------------------------------------------------------------------------------------
// Column statistics keys (keyspaces 0x08 to 0x0B and 0x38, see `crate::stats`).

/// Whether `keyspace` holds column statistics: 0x08 to 0x0B, and 0x38.
pub const fn is_statistics_keyspace(keyspace: u8) -> bool {
    (keyspace >= KEYSPACE_STATS_SLOT && keyspace <= KEYSPACE_TABLE_STATS)
        || keyspace == KEYSPACE_STATS_RECENT
}

/// `0x08 + table id`, `0x09 + table id`, ...: the prefix of one statistics
/// keyspace for one table.
pub fn stats_table_prefix(keyspace: u8, table: TableId) -> Vec<u8> {
    assert!(is_statistics_keyspace(keyspace));
    id_key(keyspace, table.0)
}

/// `0x08 + table id + component(value)…`: a partition's statistics slot.
pub fn stats_slot_key<V: AsRef<str>>(table: TableId, values: &[V]) -> Vec<u8> {
    let mut key = id_key(KEYSPACE_STATS_SLOT, table.0);
    for value in values {
        push_component(&mut key, value.as_ref().as_bytes());
    }
    key
}

/// The partition values in a statistics slot key.
pub fn decode_stats_slot_key(key: &[u8]) -> Result<Vec<String>> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_STATS_SLOT)?;
        let (_, mut rest) = take_id(rest)?;
        let mut values = Vec::new();
        while !rest.is_empty() {
            let (value, tail) = take_name(rest)?;
            values.push(value);
            rest = tail;
        }
        Ok(values)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x08 + table id + 0x00 0x00`: the table's next statistics slot. It sorts
/// before every slot key of the table (see [`PARTITION_DESCRIPTOR_MARK`]).
pub fn stats_slot_counter_key(table: TableId) -> Vec<u8> {
    let mut key = id_key(KEYSPACE_STATS_SLOT, table.0);
    key.extend_from_slice(&PARTITION_DESCRIPTOR_MARK);
    key
}

/// `keyspace + table id + component(column)`: every statistics entry of one
/// column (all engines), in keyspaces 0x09 to 0x0B.
pub fn stats_column_prefix(keyspace: u8, table: TableId, column: &str) -> Vec<u8> {
    let mut key = stats_table_prefix(keyspace, table);
    push_component(&mut key, column.as_bytes());
    key
}

/// `keyspace + table id + component(column) + component(engine)`.
pub fn stats_column_engine_prefix(
    keyspace: u8,
    table: TableId,
    column: &str,
    engine: &str,
) -> Vec<u8> {
    let mut key = stats_column_prefix(keyspace, table, column);
    push_component(&mut key, engine.as_bytes());
    key
}

/// `0x09 + table id + component(column) + component(engine) + chunk`.
pub fn stats_chunk_key(table: TableId, column: &str, engine: &str, chunk: u32) -> Vec<u8> {
    let mut key = stats_column_engine_prefix(KEYSPACE_STATS_CHUNK, table, column, engine);
    key.extend_from_slice(&chunk.to_be_bytes());
    key
}

/// `0x38 + table id + component(column) + component(engine) + chunk`: the chunk's delta, its
/// recent slots (`crate::stats`, chunk deltas).
pub fn stats_chunk_delta_key(table: TableId, column: &str, engine: &str, chunk: u32) -> Vec<u8> {
    let mut key = stats_column_engine_prefix(KEYSPACE_STATS_RECENT, table, column, engine);
    key.extend_from_slice(&chunk.to_be_bytes());
    key
}

/// `0x0A + table id + component(column) + component(engine) + slot + tag`.
pub fn stats_sketch_key(table: TableId, column: &str, engine: &str, slot: u32, tag: u8) -> Vec<u8> {
    let mut key = stats_column_engine_prefix(KEYSPACE_STATS_SKETCH, table, column, engine);
    key.extend_from_slice(&slot.to_be_bytes());
    key.push(tag);
    key
}

/// What a sketch chunk key holds after column and engine, before the chunk:
/// `u32::MAX` as a slot, which is never handed out (the slot counter would
/// overflow), so sketch chunk keys sort after every slot's sketch keys.
pub const STATS_SKETCH_CHUNK_MARK: [u8; 4] = u32::MAX.to_be_bytes();

/// `0x0A + table id + component(column) + component(engine) + FF FF FF FF +
/// chunk`: the `bitVectors` of one chunk's slots.
pub fn stats_sketch_chunk_key(table: TableId, column: &str, engine: &str, chunk: u32) -> Vec<u8> {
    let mut key = stats_column_engine_prefix(KEYSPACE_STATS_SKETCH, table, column, engine);
    key.extend_from_slice(&STATS_SKETCH_CHUNK_MARK);
    key.extend_from_slice(&chunk.to_be_bytes());
    key
}

/// `0x0B + table id + component(column) + component(engine)`.
pub fn table_stats_key(table: TableId, column: &str, engine: &str) -> Vec<u8> {
    stats_column_engine_prefix(KEYSPACE_TABLE_STATS, table, column, engine)
}

/// `0x0B + table id + 0x00 0x00`: the rows transactions inserted, updated and
/// deleted in the table (`update_transaction_statistics`). The mark never starts
/// a column component (see [`PARTITION_DESCRIPTOR_MARK`]), so the key sorts
/// before the table's column statistics and goes with them when the table is
/// dropped; keyed by id, it follows a rename.
pub fn transaction_statistics_key(table: TableId) -> Vec<u8> {
    let mut key = id_key(KEYSPACE_TABLE_STATS, table.0);
    key.extend_from_slice(&PARTITION_DESCRIPTOR_MARK);
    key
}

/// `0x0B + view id + 0x00 0x00 0x01`: the tables a materialized view reads, with their
/// counts. After the view's [`transaction_statistics_key`], before its column statistics; it
/// goes with the view when the view is dropped.
pub fn view_sources_key(view: TableId) -> Vec<u8> {
    let mut key = transaction_statistics_key(view);
    key.push(0x01);
    key
}

/// The column, engine and trailing bytes (chunk, slot + tag, or nothing) of
/// a key in keyspaces 0x09 to 0x0B and 0x38.
pub fn decode_stats_column_key(key: &[u8]) -> Result<(TableId, String, String, &[u8])> {
    let decode = || {
        let rest = match key.split_first() {
            Some((first, rest))
                if (KEYSPACE_STATS_CHUNK..=KEYSPACE_TABLE_STATS).contains(first)
                    || *first == KEYSPACE_STATS_RECENT =>
            {
                rest
            }
            Some((first, _)) => {
                return Err(KeyError::WrongKeyspace {
                    expected: KEYSPACE_STATS_CHUNK,
                    found: *first,
                })
            }
            None => return Err(KeyError::Empty),
        };
        let (table, rest) = take_id(rest)?;
        let (column, rest) = take_name(rest)?;
        let (engine, rest) = take_name(rest)?;
        Ok((TableId(table), column, engine, rest))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

fn id_key(keyspace: u8, id: u64) -> Vec<u8> {
    let mut key = Vec::with_capacity(ID_KEY_LEN);
    key.push(keyspace);
    key.extend_from_slice(&id.to_be_bytes());
    key
}

// Locks and transactions (issue 6) live in keyspaces 0x10-0x1F; statistics take 0x08-0x0B.

/// Locks by id: `0x10 + ID(lock)` → lock value.
pub const KEYSPACE_LOCK: u8 = 0x10;
/// Counters of locks and transactions: `0x11 + component(name)` → u64, big-endian.
pub const KEYSPACE_ACID_COUNTER: u8 = 0x11;
/// Transactions not yet committed: `0x12 + ID(txn)` → transaction value.
pub const KEYSPACE_TXN: u8 = 0x12;
/// Next write id of a table: `0x13 + component(database) + component(table)` → u64, BE.
pub const KEYSPACE_WRITE_ID_COUNTER: u8 = 0x13;
/// Write ids handed out: `0x14 + component(database) + component(table) + ID(write id)` →
/// the transaction id, u64 BE.
pub const KEYSPACE_WRITE_ID: u8 = 0x14;
/// Write sets of committed transactions: `0x15 + ID(txn)` → write set value.
pub const KEYSPACE_WRITE_SET: u8 = 0x15;
/// Queued compaction requests: `0x16 + ID(compaction)` → compaction value.
pub const KEYSPACE_COMPACTION: u8 = 0x16;
/// The counter entry holding the next compaction id.
pub const ACID_COUNTER_NEXT_COMPACTION_ID: &str = "next_compaction_id";
/// The counter entry holding the next lock id.
pub const ACID_COUNTER_NEXT_LOCK_ID: &str = "next_lock_id";
/// The counter entry holding the next transaction id.
pub const ACID_COUNTER_NEXT_TXN_ID: &str = "next_txn_id";

const _: () =
    assert!(KEYSPACE_PARTITION_EVENT < KEYSPACE_FUNCTION && KEYSPACE_FUNCTION < KEYSPACE_LOCK);
const _: () = assert!(KEYSPACE_PARTITION < KEYSPACE_LOCK && KEYSPACE_LOCK < KEYSPACE_ACID_COUNTER);
const _: () =
    assert!(KEYSPACE_ACID_COUNTER < KEYSPACE_TXN && KEYSPACE_TXN < KEYSPACE_WRITE_ID_COUNTER);
const _: () = assert!(
    KEYSPACE_WRITE_ID_COUNTER < KEYSPACE_WRITE_ID && KEYSPACE_WRITE_ID < KEYSPACE_WRITE_SET
);
const _: () = assert!(KEYSPACE_WRITE_SET < KEYSPACE_COMPACTION && KEYSPACE_COMPACTION <= 0x1F);

/// `0x16 + ID(compaction)`.
pub fn compaction_key(compaction_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_COMPACTION, compaction_id)
}

/// The prefix of every compaction key.
pub fn compaction_prefix() -> Vec<u8> {
    vec![KEYSPACE_COMPACTION]
}

/// `0x10 + ID(lock)`.
pub fn lock_key(lock_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_LOCK, lock_id)
}

/// The prefix of every lock key.
pub fn lock_prefix() -> Vec<u8> {
    vec![KEYSPACE_LOCK]
}

/// The lock id in a lock key.
pub fn decode_lock_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_LOCK)?;
        let (lock_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(lock_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x12 + ID(txn)`.
pub fn txn_key(txn_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_TXN, txn_id)
}

/// The prefix of every transaction key.
pub fn txn_prefix() -> Vec<u8> {
    vec![KEYSPACE_TXN]
}

/// The transaction id in a transaction key.
pub fn decode_txn_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_TXN)?;
        let (txn_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(txn_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x15 + ID(txn)`.
pub fn write_set_key(txn_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_WRITE_SET, txn_id)
}

/// The prefix of every write set key.
pub fn write_set_prefix() -> Vec<u8> {
    vec![KEYSPACE_WRITE_SET]
}

/// The transaction id in a write set key.
pub fn decode_write_set_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_WRITE_SET)?;
        let (txn_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(txn_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x13 + component(database) + component(table)`.
pub fn write_id_counter_key(database: &str, table: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_WRITE_ID_COUNTER];
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key
}

/// `0x14 + component(database) + component(table)`: the prefix of a table's write ids.
pub fn write_id_prefix(database: &str, table: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_WRITE_ID];
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key
}

/// `0x14 + component(database) + component(table) + ID(write id)`.
pub fn write_id_key(database: &str, table: &str, write_id: u64) -> Vec<u8> {
    let mut key = write_id_prefix(database, table);
    key.extend_from_slice(&write_id.to_be_bytes());
    key
}

/// The write id at the end of a write id key.
pub fn decode_write_id_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_WRITE_ID)?;
        let (_, rest) = take_name(rest)?;
        let (_, rest) = take_name(rest)?;
        let (write_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(write_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x17 + ID(txn)`: the prefix of an open transaction's minimum history write ids.
pub fn min_history_prefix(txn_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_MIN_HISTORY, txn_id)
}

/// `0x17 + ID(txn) + component(database) + component(table)`.
pub fn min_history_key(txn_id: u64, database: &str, table: &str) -> Vec<u8> {
    let mut key = min_history_prefix(txn_id);
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key
}

/// The transaction, database and table of a minimum history key.
pub fn decode_min_history_key(key: &[u8]) -> Result<(u64, String, String)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_MIN_HISTORY)?;
        let (txn_id, rest) = take_id(rest)?;
        let (database, rest) = take_name(rest)?;
        let (table, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((txn_id, database, table))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x11 + component(name)`.
pub fn acid_counter_key(name: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_ACID_COUNTER];
    push_component(&mut key, name.as_bytes());
    key
}

/// The write ids an open transaction's reader saw as lowest open, per table (Hive's
/// `MIN_HISTORY_WRITE_ID`, from `add_write_ids_to_min_history`): `0x17 + ID(txn) +
/// component(database) + component(table)` → write id, 8 bytes BE. Removed when the
/// transaction commits or aborts.
pub const KEYSPACE_MIN_HISTORY: u8 = 0x17;

// The notification log (`crate::events`): keyspaces 0x18 to 0x1B.

/// Notification events by id: `0x18 + ID(event)` → event value.
pub const KEYSPACE_EVENT: u8 = 0x18;
/// The next event id: the single key `0x19` → u64, big-endian. Written in the batch of
/// every event, so a restart (or a crash) never hands out an id twice.
pub const KEYSPACE_EVENT_COUNTER: u8 = 0x19;
/// Writes of transactions (`add_write_notification_log`): `0x1A + ID(txn) +
/// component(database) + component(table) + component(partition name, empty for none)` →
/// write event value.
pub const KEYSPACE_WRITE_EVENT: u8 = 0x1A;
/// The parts of an event stored in parts (`crate::events::parts`): `0x1B + ID(event) +
/// u32 BE(part index)` → the part's bytes.
pub const KEYSPACE_EVENT_PART: u8 = 0x1B;

const _: () =
    assert!(KEYSPACE_COMPACTION < KEYSPACE_MIN_HISTORY && KEYSPACE_MIN_HISTORY < KEYSPACE_EVENT);
const _: () = assert!(
    KEYSPACE_EVENT < KEYSPACE_EVENT_COUNTER && KEYSPACE_EVENT_COUNTER < KEYSPACE_WRITE_EVENT
);
const _: () = assert!(KEYSPACE_WRITE_EVENT < KEYSPACE_EVENT_PART);

/// `0x18 + ID(event)`.
pub fn event_key(event_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_EVENT, event_id)
}

/// The prefix of every event key.
pub fn event_prefix() -> Vec<u8> {
    vec![KEYSPACE_EVENT]
}

/// `0x1B + ID(event) + u32 BE(index)`: part `index` of an event stored in parts.
pub fn event_part_key(event_id: u64, index: u32) -> Vec<u8> {
    let mut key = id_key(KEYSPACE_EVENT_PART, event_id);
    key.extend_from_slice(&index.to_be_bytes());
    key
}

/// `0x1B + ID(event)`: the prefix of an event's parts.
pub fn event_part_prefix(event_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_EVENT_PART, event_id)
}

/// The event id in an event key.
pub fn decode_event_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_EVENT)?;
        let (event_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(event_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x19`, the key of the next event id.
pub fn event_counter_key() -> Vec<u8> {
    vec![KEYSPACE_EVENT_COUNTER]
}

/// `0x1A + ID(txn)`: the prefix of a transaction's writes.
pub fn write_event_prefix(txn_id: u64) -> Vec<u8> {
    id_key(KEYSPACE_WRITE_EVENT, txn_id)
}

/// `0x1A + ID(txn) + C(database) + C(table) + C(partition)`.
pub fn write_event_key(txn_id: u64, database: &str, table: &str, partition: &str) -> Vec<u8> {
    let mut key = write_event_prefix(txn_id);
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    push_component(&mut key, partition.as_bytes());
    key
}

// The registries Hive keeps beside the catalog: keyspaces 0x1C to 0x1E.

/// Hive's old type registry (`create_type`): `0x1C + C(type name)` → type value. Names are
/// kept as given (trimmed on lookup, as Hive's query does), one registry for the store.
pub const KEYSPACE_TYPE: u8 = 0x1C;
/// The schema registry: `0x1D + ID(database) + C(schema)` → schema value, and after it
/// `0x1D + ID(database) + C(schema) + u32 BE(version, sign bit flipped)` → schema version
/// value. Keyed by the database's id, so a database's schemas are one prefix, and a schema's
/// versions follow it in version order.
pub const KEYSPACE_SCHEMA: u8 = 0x1D;
/// SerDes registered by name (`add_serde`): `0x1E + C(serde name)` → serde value.
pub const KEYSPACE_SERDE: u8 = 0x1E;

const _: () = assert!(KEYSPACE_EVENT_PART < KEYSPACE_TYPE);
const _: () = assert!(KEYSPACE_TYPE < KEYSPACE_SCHEMA && KEYSPACE_SCHEMA < KEYSPACE_SERDE);

// Workload management, runtime statistics and scheduled queries: keyspaces 0x1F to 0x23.

/// Workload management resource plans: `0x1F + C(namespace) + C(plan)` → the plan with its
/// pools, triggers and mappings (one value, so a plan changes in one write). Both names
/// normalised; a namespace's plans are one prefix.
pub const KEYSPACE_RESOURCE_PLAN: u8 = 0x1F;
/// Runtime statistics (`add_runtime_stats`): `0x20 + u64 BE(id)` → entry, ids handed out in
/// arrival order by the counter at `0x23 0x01`.
pub const KEYSPACE_RUNTIME_STAT: u8 = 0x20;
/// Scheduled queries: `0x21 + C(cluster namespace) + C(schedule name)` → scheduled query,
/// names as given (Hive compares them so).
pub const KEYSPACE_SCHEDULED_QUERY: u8 = 0x21;
/// Executions of scheduled queries: `0x22 + u64 BE(execution id)` → execution, ids handed out
/// by the counter at `0x23 0x02`.
pub const KEYSPACE_SCHEDULED_EXECUTION: u8 = 0x22;
/// The counters of the two keyspaces before: `0x23 + one byte naming the counter` → the last
/// id handed out (u64 BE).
pub const KEYSPACE_SCHEDULE_COUNTER: u8 = 0x23;
/// After [`KEYSPACE_SCHEDULE_COUNTER`]: the runtime statistics' ids.
pub const COUNTER_RUNTIME_STAT: u8 = 0x01;
/// After [`KEYSPACE_SCHEDULE_COUNTER`]: the scheduled executions' ids.
pub const COUNTER_SCHEDULED_EXECUTION: u8 = 0x02;

const _: () = assert!(KEYSPACE_SERDE < KEYSPACE_RESOURCE_PLAN);
const _: () = assert!(
    KEYSPACE_RESOURCE_PLAN < KEYSPACE_RUNTIME_STAT
        && KEYSPACE_RUNTIME_STAT < KEYSPACE_SCHEDULED_QUERY
        && KEYSPACE_SCHEDULED_QUERY < KEYSPACE_SCHEDULED_EXECUTION
        && KEYSPACE_SCHEDULED_EXECUTION < KEYSPACE_SCHEDULE_COUNTER
        && KEYSPACE_SCHEDULE_COUNTER <= 0x23
);

/// `0x1F + C(namespace)`: the prefix of a namespace's resource plans.
pub fn resource_plan_prefix(namespace: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_RESOURCE_PLAN];
    push_component(&mut key, namespace.as_bytes());
    key
}

/// `0x1F + C(namespace) + C(plan)`.
pub fn resource_plan_key(namespace: &str, plan: &str) -> Vec<u8> {
    let mut key = resource_plan_prefix(namespace);
    push_component(&mut key, plan.as_bytes());
    key
}

/// `0x20 + u64 BE(id)`.
pub fn runtime_stat_key(id: u64) -> Vec<u8> {
    id_key(KEYSPACE_RUNTIME_STAT, id)
}

/// The id in a runtime statistics key.
pub fn decode_runtime_stat_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_RUNTIME_STAT)?;
        let (id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x21 + C(namespace)`: the prefix of a cluster namespace's scheduled queries.
pub fn scheduled_query_prefix(namespace: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_SCHEDULED_QUERY];
    push_component(&mut key, namespace.as_bytes());
    key
}

/// `0x21 + C(namespace) + C(schedule name)`.
pub fn scheduled_query_key(namespace: &str, name: &str) -> Vec<u8> {
    let mut key = scheduled_query_prefix(namespace);
    push_component(&mut key, name.as_bytes());
    key
}

/// `0x22 + u64 BE(execution id)`.
pub fn scheduled_execution_key(id: u64) -> Vec<u8> {
    id_key(KEYSPACE_SCHEDULED_EXECUTION, id)
}

/// `0x23 + counter`.
pub fn schedule_counter_key(counter: u8) -> Vec<u8> {
    vec![KEYSPACE_SCHEDULE_COUNTER, counter]
}

// The compactor's state beside the compaction queue: keyspaces 0x27 to 0x2A.

/// What a compactor's transaction works on (Hive's `TXN_COMPONENTS` row of
/// `update_compactor_state`): `0x27 + ID(txn) + ID(compaction)` → compactor component value.
/// An aborted transaction that has one stays listed until a cleaner marks the table or
/// partition cleaned up to its write id.
pub const KEYSPACE_COMPACTOR_COMPONENT: u8 = 0x27;
/// Hive's `COMPACTION_METRICS_CACHE`: `0x28 + C(database) + C(table) + metric type (1 byte) +
/// partition` → compaction metric value; the partition is `0x00` for none, else `0x01 +
/// C(partition)`.
pub const KEYSPACE_COMPACTION_METRIC: u8 = 0x28;

const _: () = assert!(KEYSPACE_SERDE < KEYSPACE_COMPACTOR_COMPONENT);
const _: () = assert!(KEYSPACE_COMPACTOR_COMPONENT < KEYSPACE_COMPACTION_METRIC);
const _: () = assert!(KEYSPACE_COMPACTION_METRIC <= 0x2A);

/// `0x27 + ID(txn) + ID(compaction)`.
pub fn compactor_component_key(txn_id: u64, compaction_id: u64) -> Vec<u8> {
    let mut key = id_key(KEYSPACE_COMPACTOR_COMPONENT, txn_id);
    key.extend_from_slice(&compaction_id.to_be_bytes());
    key
}

/// The prefix of every compactor component key.
pub fn compactor_component_prefix() -> Vec<u8> {
    vec![KEYSPACE_COMPACTOR_COMPONENT]
}

/// `0x28 + C(database) + C(table) + metric type`: the prefix of a table's metrics of a type.
pub fn compaction_metric_prefix(database: &str, table: &str, metric_type: u8) -> Vec<u8> {
    let mut key = vec![KEYSPACE_COMPACTION_METRIC];
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key.push(metric_type);
    key
}

/// `0x28 + C(database) + C(table) + metric type + partition`.
pub fn compaction_metric_key(
    database: &str,
    table: &str,
    metric_type: u8,
    partition: Option<&str>,
) -> Vec<u8> {
    let mut key = compaction_metric_prefix(database, table, metric_type);
    match partition {
        None => key.push(0x00),
        Some(name) => {
            key.push(0x01);
            push_component(&mut key, name.as_bytes());
        }
    }
    key
}

// Materialized views' transactional state: keyspace 0x2B.

/// Hive's `MATERIALIZATION_REBUILD_LOCKS` and the update/delete marks of
/// `COMPLETED_TXN_COMPONENTS` (`crate::txns`, `materializations.rs`):
/// `0x2B 0x01 + C(database) + C(view)` → rebuild lock value (kind 24), names as given;
/// `0x2B 0x02 + C(database) + C(table) + ID(write id)` → the id of the transaction that
/// committed that write id and updated or deleted (8 bytes BE), names lowercased;
/// `0x2B 0x03 + C(database) + C(table)` → the highest write id whose mark was forgotten to keep
/// a table's marks within their bound (8 bytes BE).
pub const KEYSPACE_MATERIALIZATION: u8 = 0x2B;
/// [`KEYSPACE_MATERIALIZATION`]'s rebuild locks.
const MATERIALIZATION_REBUILD_LOCK: u8 = 0x01;
/// [`KEYSPACE_MATERIALIZATION`]'s update/delete marks.
const MATERIALIZATION_UPDATE_DELETE: u8 = 0x02;
/// [`KEYSPACE_MATERIALIZATION`]'s forgotten-marks floors.
const MATERIALIZATION_FORGOTTEN: u8 = 0x03;

const _: () = assert!(KEYSPACE_COMPACTION_METRIC < KEYSPACE_MATERIALIZATION);

/// `0x2B 0x01`: the prefix of every rebuild lock.
pub fn rebuild_lock_prefix() -> Vec<u8> {
    vec![KEYSPACE_MATERIALIZATION, MATERIALIZATION_REBUILD_LOCK]
}

/// `0x2B 0x01 + C(database) + C(view)`.
pub fn rebuild_lock_key(database: &str, view: &str) -> Vec<u8> {
    let mut key = rebuild_lock_prefix();
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, view.as_bytes());
    key
}

/// `0x2B 0x02 + C(database) + C(table)`: the prefix of a table's update/delete marks.
pub fn update_delete_prefix(database: &str, table: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_MATERIALIZATION, MATERIALIZATION_UPDATE_DELETE];
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key
}

/// `0x2B 0x02 + C(database) + C(table) + ID(write id)`.
pub fn update_delete_key(database: &str, table: &str, write_id: u64) -> Vec<u8> {
    let mut key = update_delete_prefix(database, table);
    key.extend_from_slice(&write_id.to_be_bytes());
    key
}

/// The write id at the end of an update/delete mark's key.
pub fn decode_update_delete_key(key: &[u8]) -> Result<u64> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_MATERIALIZATION)?;
        let rest = take_keyspace(rest, MATERIALIZATION_UPDATE_DELETE)?;
        let (_, rest) = take_name(rest)?;
        let (_, rest) = take_name(rest)?;
        let (write_id, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok(write_id)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

// Replication: keyspaces 0x2C and 0x2D.

/// Hive's `REPLICATION_METRICS`: `0x2C + u64 BE(scheduled execution id with its sign bit
/// flipped)` → replication metrics value, so that keys sort as the signed ids do.
pub const KEYSPACE_REPLICATION_METRICS: u8 = 0x2C;
/// Hive's `REPL_TXN_MAP`: `0x2D + C(replication policy) + ID(source transaction)` → the
/// target transaction id (8 bytes BE) a replayed transaction was opened as.
pub const KEYSPACE_REPL_TXN_MAP: u8 = 0x2D;

const _: () = assert!(KEYSPACE_COMPACTION_METRIC < KEYSPACE_REPLICATION_METRICS);
const _: () = assert!(KEYSPACE_REPLICATION_METRICS < KEYSPACE_REPL_TXN_MAP);

// The property store: keyspace 0x2E.

/// Hive's property store (`get_properties`, `set_properties`): `0x2E + map key` → property
/// map value (kind 59). The map key is Hive's: the namespace, then the map name's fragments,
/// joined by `.` (`hms`, `hms.db`, `hms.db.table`), as UTF-8 to the end of the key, so that a
/// prefix of map keys is a prefix of stored keys.
pub const KEYSPACE_PROPERTY_MAP: u8 = 0x2E;

const _: () = assert!(KEYSPACE_REPL_TXN_MAP < KEYSPACE_PROPERTY_MAP);

// Delegation tokens and their master keys: keyspaces 0x30 and 0x31.

/// Hive's token store (`add_token`, `get_token`): `0x30 + token identifier` → token value
/// (kind 60). The identifier is the client's string, as UTF-8 to the end of the key.
pub const KEYSPACE_DELEGATION_TOKEN: u8 = 0x30;
/// Hive's master keys (`add_master_key`): `0x31 + u32 BE(sequence id)` → master key value
/// (kind 61); `0x31` alone → the last sequence id handed out (u32 BE), so that ids are never
/// reused after the newest key is removed.
pub const KEYSPACE_MASTER_KEY: u8 = 0x31;

const _: () = assert!(KEYSPACE_PROPERTY_MAP < KEYSPACE_DELEGATION_TOKEN);
const _: () = assert!(KEYSPACE_DELEGATION_TOKEN < KEYSPACE_MASTER_KEY);

/// `0x30 + identifier`.
pub fn delegation_token_key(identifier: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(KEYSPACE_LEN + identifier.len());
    key.push(KEYSPACE_DELEGATION_TOKEN);
    key.extend_from_slice(identifier.as_bytes());
    key
}

/// The identifier of a `0x30` key.
pub fn decode_delegation_token_key(key: &[u8]) -> Result<String> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_DELEGATION_TOKEN)?;
        std::str::from_utf8(rest)
            .map(str::to_owned)
            .map_err(|_| KeyError::NotUtf8)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x31 + u32 BE(sequence id)`.
pub fn master_key_key(sequence_id: u32) -> Vec<u8> {
    let mut key = Vec::with_capacity(KEYSPACE_LEN + 4);
    key.push(KEYSPACE_MASTER_KEY);
    key.extend_from_slice(&sequence_id.to_be_bytes());
    key
}

/// `0x31`: where the last master key sequence id handed out is kept.
pub fn master_key_counter_key() -> Vec<u8> {
    vec![KEYSPACE_MASTER_KEY]
}

/// The sequence id of a `0x31` key holding a master key.
pub fn decode_master_key_key(key: &[u8]) -> Result<u32> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_MASTER_KEY)?;
        let bytes: [u8; 4] = rest
            .get(..4)
            .and_then(|slice| slice.try_into().ok())
            .ok_or(KeyError::ShortId)?;
        expect_end(&rest[4..])?;
        Ok(u32::from_be_bytes(bytes))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x2E + map key`; with a prefix of a map key, the prefix of the maps it selects.
pub fn property_map_key(map_key: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + map_key.len());
    key.push(KEYSPACE_PROPERTY_MAP);
    key.extend_from_slice(map_key.as_bytes());
    key
}

/// The map key of a `0x2E` key.
pub fn decode_property_map_key(key: &[u8]) -> Result<String> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_PROPERTY_MAP)?;
        std::str::from_utf8(rest)
            .map(str::to_owned)
            .map_err(|_| KeyError::NotUtf8)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x2C + u64 BE(id ^ sign bit)`.
pub fn replication_metrics_key(scheduled_execution_id: i64) -> Vec<u8> {
    id_key(
        KEYSPACE_REPLICATION_METRICS,
        (scheduled_execution_id as u64) ^ (1 << 63),
    )
}

/// `0x2D + C(policy) + ID(source txn)`.
pub fn repl_txn_map_key(policy: &str, source_txn_id: u64) -> Vec<u8> {
    let mut key = vec![KEYSPACE_REPL_TXN_MAP];
    push_component(&mut key, policy.as_bytes());
    key.extend_from_slice(&source_txn_id.to_be_bytes());
    key
}

/// The policy and source transaction id of a `0x2D` key.
pub fn decode_repl_txn_map_key(key: &[u8]) -> Result<(String, u64)> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_REPL_TXN_MAP)?;
        let (policy, rest) = take_name(rest)?;
        let (source, rest) = take_id(rest)?;
        expect_end(rest)?;
        Ok((policy, source))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x2B 0x03 + C(database) + C(table)`.
pub fn forgotten_update_delete_key(database: &str, table: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_MATERIALIZATION, MATERIALIZATION_FORGOTTEN];
    push_component(&mut key, database.as_bytes());
    push_component(&mut key, table.as_bytes());
    key
}

/// `0x1C + C(name)`.
pub fn type_key(name: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_TYPE];
    push_component(&mut key, name.as_bytes());
    key
}

/// `0x1D + ID(database)`: the prefix of a database's schemas and their versions.
pub fn schema_database_prefix(database: DatabaseId) -> Vec<u8> {
    id_key(KEYSPACE_SCHEMA, database.0)
}

/// `0x1D + ID(database) + C(schema)`: the schema's key, and the prefix of its versions.
pub fn schema_key(database: DatabaseId, schema: &str) -> Vec<u8> {
    let mut key = schema_database_prefix(database);
    push_component(&mut key, schema.as_bytes());
    key
}

/// `0x1D + ID(database) + C(schema) + u32 BE(version ^ 0x8000_0000)`: ordered by version,
/// negative versions first.
pub fn schema_version_key(database: DatabaseId, schema: &str, version: i32) -> Vec<u8> {
    let mut key = schema_key(database, schema);
    key.extend_from_slice(&schema_version_suffix(version));
    key
}

/// What follows a schema's key in the key of its version `version`.
pub fn schema_version_suffix(version: i32) -> [u8; 4] {
    ((version as u32) ^ 0x8000_0000).to_be_bytes()
}

/// What a key of keyspace 0x1D names: a schema, or one of its versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaKey {
    /// The schema itself.
    Schema(DatabaseId, String),
    /// A version of the schema.
    Version(DatabaseId, String, i32),
}

/// Decodes a key of keyspace 0x1D.
pub fn decode_schema_key(key: &[u8]) -> Result<SchemaKey> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_SCHEMA)?;
        let (database, rest) = take_id(rest)?;
        let (schema, rest) = take_name(rest)?;
        if rest.is_empty() {
            return Ok(SchemaKey::Schema(DatabaseId(database), schema));
        }
        let bytes: [u8; 4] = rest
            .try_into()
            .map_err(|_| KeyError::TrailingBytes(rest.len()))?;
        let version = (u32::from_be_bytes(bytes) ^ 0x8000_0000) as i32;
        Ok(SchemaKey::Version(DatabaseId(database), schema, version))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// `0x1E + C(name)`.
pub fn serde_key(name: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_SERDE];
    push_component(&mut key, name.as_bytes());
    key
}

// HPL/SQL's stored procedures and packages, and data connectors: keyspaces 0x24 to 0x26.

/// Stored procedures (`create_stored_procedure`): `0x24 + ID(database) + C(name)` → stored
/// procedure value. Keyed by the database's id, so that a database's procedures are one
/// prefix and go with it; names are kept as given, as Hive compares them.
pub const KEYSPACE_PROCEDURE: u8 = 0x24;
/// HPL/SQL packages (`add_package`): `0x25 + ID(database) + C(name)` → package value, keyed
/// as procedures are.
pub const KEYSPACE_PACKAGE: u8 = 0x25;
/// Data connectors (`create_dataconnector`): `0x26 + C(name, lowercased)` → data connector
/// value, one namespace for the store as Hive's `DATACONNECTORS` has.
pub const KEYSPACE_DATA_CONNECTOR: u8 = 0x26;

const _: () = assert!(KEYSPACE_SERDE < KEYSPACE_PROCEDURE);
const _: () = assert!(KEYSPACE_PROCEDURE < KEYSPACE_PACKAGE);
const _: () = assert!(KEYSPACE_PACKAGE < KEYSPACE_DATA_CONNECTOR);

/// `0x24 + ID(database)`: the prefix of a database's stored procedures.
pub fn procedure_prefix(database: DatabaseId) -> Vec<u8> {
    routine_prefix(KEYSPACE_PROCEDURE, database)
}

/// `keyspace + ID(database)`: the prefix of a database's procedures ([`KEYSPACE_PROCEDURE`])
/// or packages ([`KEYSPACE_PACKAGE`]).
pub fn routine_prefix(keyspace: u8, database: DatabaseId) -> Vec<u8> {
    id_key(keyspace, database.0)
}

/// `0x24 + ID(database) + C(name)`.
pub fn procedure_key(database: DatabaseId, name: &str) -> Vec<u8> {
    routine_key(KEYSPACE_PROCEDURE, database, name)
}

/// `keyspace + ID(database) + C(name)`: a procedure ([`KEYSPACE_PROCEDURE`]) or package
/// ([`KEYSPACE_PACKAGE`]).
pub fn routine_key(keyspace: u8, database: DatabaseId, name: &str) -> Vec<u8> {
    let mut key = routine_prefix(keyspace, database);
    push_component(&mut key, name.as_bytes());
    key
}

/// `0x25 + ID(database)`: the prefix of a database's packages.
pub fn package_prefix(database: DatabaseId) -> Vec<u8> {
    routine_prefix(KEYSPACE_PACKAGE, database)
}

/// `0x25 + ID(database) + C(name)`.
pub fn package_key(database: DatabaseId, name: &str) -> Vec<u8> {
    routine_key(KEYSPACE_PACKAGE, database, name)
}

/// `0x26 + C(name)`.
pub fn data_connector_key(name: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_DATA_CONNECTOR];
    push_component(&mut key, name.as_bytes());
    key
}

/// `0x26`: the prefix of every data connector, in name order.
pub fn data_connector_prefix() -> Vec<u8> {
    vec![KEYSPACE_DATA_CONNECTOR]
}

/// The name in a key of keyspace 0x26.
pub fn decode_data_connector_key(key: &[u8]) -> Result<String> {
    let decode = || {
        let rest = take_keyspace(key, KEYSPACE_DATA_CONNECTOR)?;
        let (name, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok(name)
    };
    decode().map_err(|error: KeyError| error.at(key))
}

/// The database id and name in a key of `keyspace`, [`KEYSPACE_PROCEDURE`] or
/// [`KEYSPACE_PACKAGE`] (`+ ID(database) + C(name)`).
pub fn decode_routine_key(keyspace: u8, key: &[u8]) -> Result<(DatabaseId, String)> {
    let decode = || {
        let rest = take_keyspace(key, keyspace)?;
        let (database, rest) = take_id(rest)?;
        let (name, rest) = take_name(rest)?;
        expect_end(rest)?;
        Ok((DatabaseId(database), name))
    };
    decode().map_err(|error: KeyError| error.at(key))
}

// Roles and privileges: keyspaces 0x32 to 0x34 (0x35 kept for them).

/// Hive's `ROLES`: `0x32 + C(role name)` → role value (kind 62); names as given.
pub const KEYSPACE_ROLE: u8 = 0x32;
/// Hive's `ROLE_MAP`: `0x33 + C(role) + principal type (1 byte) + C(principal name)` → role
/// member value (kind 63): a role's members under its prefix.
pub const KEYSPACE_ROLE_MEMBER: u8 = 0x33;
/// Hive's privilege tables: `0x34 + C(catalog) + C(database) + C(table) + C(partition name) +
/// C(column) + principal type (1 byte) + C(principal) + C(privilege) + C(grantor) +
/// C(authorizer)` → privilege grant value (kind 64). An object's absent parts are empty
/// components (a global grant's five are), so that a database's grants and all of its
/// tables' lie under `0x34 + C(catalog) + C(database)`, a table's (with its partitions' and
/// columns') under its three, a partition's (with its columns') under its four.
pub const KEYSPACE_PRIVILEGE: u8 = 0x34;

const _: () = assert!(KEYSPACE_MASTER_KEY < KEYSPACE_ROLE);
const _: () =
    assert!(KEYSPACE_ROLE < KEYSPACE_ROLE_MEMBER && KEYSPACE_ROLE_MEMBER < KEYSPACE_PRIVILEGE);
const _: () = assert!(KEYSPACE_PRIVILEGE < 0x36);

/// `0x32 + C(role)`.
pub fn role_key(role: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_ROLE];
    push_component(&mut key, role.as_bytes());
    key
}

/// `0x33 + C(role)`: the prefix of a role's members.
pub fn role_member_prefix(role: &str) -> Vec<u8> {
    let mut key = vec![KEYSPACE_ROLE_MEMBER];
    push_component(&mut key, role.as_bytes());
    key
}

/// `0x33 + C(role) + principal type + C(principal)`.
pub fn role_member_key(role: &str, principal_type: u8, principal: &str) -> Vec<u8> {
    let mut key = role_member_prefix(role);
    key.push(principal_type);
    push_component(&mut key, principal.as_bytes());
    key
}

/// `0x34` followed by the components given (an object's leading names): the prefix of the
/// grants on that object and on everything it holds.
pub fn privilege_prefix(parts: &[&str]) -> Vec<u8> {
    let mut key = vec![KEYSPACE_PRIVILEGE];
    for part in parts {
        push_component(&mut key, part.as_bytes());
    }
    key
}

/// `0x34 + the object's five components + principal type + C(principal)`: the prefix of one
/// principal's grants on one object.
pub fn privilege_principal_prefix(
    object: &[&str; 5],
    principal_type: u8,
    principal: &str,
) -> Vec<u8> {
    let mut key = privilege_prefix(object);
    key.push(principal_type);
    push_component(&mut key, principal.as_bytes());
    key
}

/// A whole `0x34` key: the principal's prefix + C(privilege) + C(grantor) + C(authorizer).
pub fn privilege_key(
    object: &[&str; 5],
    principal_type: u8,
    principal: &str,
    rest: &[&str; 3],
) -> Vec<u8> {
    let mut key = privilege_principal_prefix(object, principal_type, principal);
    for part in rest {
        push_component(&mut key, part.as_bytes());
    }
    key
}

/// The change log (`storage/changes.rs`): `0x39 + version (u64, big-endian)` → the keys
/// one batch changed (kind 74), kept for a window of versions, written only by stores that
/// others read beside their writer.
pub const KEYSPACE_CHANGE: u8 = 0x39;

const _: () = assert!(KEYSPACE_STATS_RECENT < KEYSPACE_CHANGE);

/// `0x39 + version`.
pub fn change_key(version: u64) -> Vec<u8> {
    let mut key = Vec::with_capacity(ID_KEY_LEN);
    key.push(KEYSPACE_CHANGE);
    key.extend_from_slice(&version.to_be_bytes());
    key
}

/// The version of a change log key.
pub fn decode_change_key(key: &[u8]) -> Result<u64> {
    match key.split_first() {
        Some((&KEYSPACE_CHANGE, rest)) => decode_id_value(key, rest),
        _ => Err(Error::corruption(key, "not a change log key")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::kv::KeyRange;
    use proptest::prelude::*;

    fn component_bytes() -> impl Strategy<Value = Vec<u8>> {
        // Bias toward 0x00, 0x01 and 0xFF, the bytes the escaping is about.
        let byte = prop_oneof![
            Just(0u8),
            Just(1u8),
            Just(0xFFu8),
            Just(b'a'),
            Just(b'b'),
            any::<u8>()
        ];
        proptest::collection::vec(byte, 0..6)
    }

    fn value_tuple() -> impl Strategy<Value = Vec<String>> {
        let value = prop_oneof![Just(String::new()), "[ab\u{0}_1]{0,4}", ".{0,3}"];
        proptest::collection::vec(value, 0..4)
    }

    fn encode_tuple(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut key = Vec::new();
        for part in parts {
            push_component(&mut key, part);
        }
        key
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn encoded_order_is_tuple_order(
            left in proptest::collection::vec(component_bytes(), 0..4),
            right in proptest::collection::vec(component_bytes(), 0..4),
        ) {
            prop_assume!(left.len() == right.len());
            prop_assert_eq!(encode_tuple(&left).cmp(&encode_tuple(&right)), left.cmp(&right));
        }

        #[test]
        fn component_round_trips(parts in proptest::collection::vec(component_bytes(), 0..4)) {
            let encoded = encode_tuple(&parts);
            let mut rest = encoded.as_slice();
            let mut decoded = Vec::new();
            while !rest.is_empty() {
                let (part, tail) = take_component(rest).unwrap();
                decoded.push(part);
                rest = tail;
            }
            prop_assert_eq!(decoded, parts);
        }

        #[test]
        fn partition_key_round_trips(table in any::<u64>(), values in value_tuple()) {
            let key = partition_key(TableId(table), &values);
            prop_assert_eq!(decode_partition_key(&key).unwrap(), (TableId(table), values));
        }

        #[test]
        fn partition_order_is_value_tuple_order(
            left in value_tuple(), right in value_tuple(), table in 0u64..3,
        ) {
            prop_assume!(left.len() == right.len());
            let left_key = partition_key(TableId(table), &left);
            let right_key = partition_key(TableId(table), &right);
            prop_assert_eq!(left_key.cmp(&right_key), left.cmp(&right));
        }

        #[test]
        fn name_prefix_scan_does_not_bleed(
            catalog in "[a-z0-9_]{0,3}", name in "[a-z0-9_\u{0}]{0,4}", other in "[a-z0-9_\u{0}]{0,4}",
        ) {
            let prefix = database_name_prefix(&catalog);
            let range = KeyRange::prefix(&database_name_key(&catalog, &name)[..]);
            let other_key = database_name_key(&catalog, &other);
            prop_assert!(other_key.starts_with(&prefix));
            prop_assert_eq!(range.contains(&other_key), name == other);
            let (decoded_catalog, decoded_name) = decode_database_name_key(&other_key).unwrap();
            prop_assert_eq!((decoded_catalog, decoded_name), (catalog, other));
        }

        #[test]
        fn leading_partition_values_select_only_their_partitions(
            leading in value_tuple(), values in value_tuple(),
        ) {
            let range = KeyRange::prefix(&partition_key(TableId(7), &leading));
            let key = partition_key(TableId(7), &values);
            prop_assert_eq!(range.contains(&key), values.starts_with(&leading));
        }

        #[test]
        fn decoding_garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
            let _ = decode_partition_key(&bytes);
            let _ = decode_table_name_key(&bytes);
            let _ = decode_database_name_key(&bytes);
            let _ = decode_catalog_key(&bytes);
            let _ = decode_stats_column_key(&bytes);
            let _ = decode_stats_slot_key(&bytes);
        }
    }

    #[test]
    fn neighbours_sharing_a_name_prefix_stay_apart() {
        let db1 = KeyRange::prefix(&database_name_key("hive", "db1"));
        assert!(!db1.contains(&database_name_key("hive", "db10")));
        let tables = KeyRange::prefix(&table_name_key(DatabaseId(1), "t"));
        assert!(!tables.contains(&table_name_key(DatabaseId(1), "t_x")));
        let catalog = KeyRange::prefix(&database_name_prefix("hive"));
        assert!(!catalog.contains(&database_name_key("hive2", "default")));
    }

    #[test]
    fn table_ids_sort_numerically() {
        assert!(table_key(TableId(255)) < table_key(TableId(256)));
        assert!(partition_prefix(TableId(1)) < partition_key(TableId(1), &["a"]));
        assert!(partition_key(TableId(1), &["\u{10ffff}"]) < partition_prefix(TableId(2)));
    }

    #[test]
    fn malformed_keys_are_corruption() {
        let error = decode_catalog_key(&[KEYSPACE_CATALOG, b'a', 0x00, 0x07]).unwrap_err();
        assert!(matches!(error, Error::Corruption { .. }), "{error}");
        let error = decode_table_name_key(&[KEYSPACE_TABLE_NAME, 1, 2]).unwrap_err();
        assert!(error.to_string().contains("shorter"), "{error}");
    }
}
