//! Stored values: rkyv archives behind an 8-byte header, read zero-copy.
//!
//! A stored value is `header ++ archive`:
//!
//! | offset | length | field                                         |
//! |--------|--------|-----------------------------------------------|
//! | 0      | 1      | format version, [`VALUE_FORMAT_VERSION`]      |
//! | 1      | 1      | value kind, [`ValueKind`]                     |
//! | 2      | 6      | reserved, zero                                |
//! | 8      | rest   | the rkyv 0.8 archive (root at the end)        |
//!
//! The header is 8 bytes so that the archive keeps the 8-byte alignment of
//! the buffer it sits in. rkyv needs aligned bytes; a backend may hand out
//! bytes at any address, so a [`ValueView`] copies them into an aligned
//! buffer when they are not. Every read is validated with bytecheck: bytes
//! that fail are an [`Error::Corruption`] naming the key, never undefined
//! behaviour.

use std::marker::PhantomData;

use rkyv::rancor;
use rkyv::util::AlignedVec;

use crate::error::{Error, Result};
use crate::storage::kv::KvBytes;

/// The format version every value written now carries.
pub const VALUE_FORMAT_VERSION: u8 = 1;
/// The length of the header before the archive.
pub const VALUE_HEADER_LEN: usize = 8;
/// The offset of the format version in the header.
pub const VALUE_VERSION_OFFSET: usize = 0;
/// The offset of the value kind in the header.
pub const VALUE_KIND_OFFSET: usize = VALUE_VERSION_OFFSET + 1;
/// The offset of the reserved bytes in the header.
pub const VALUE_RESERVED_OFFSET: usize = VALUE_KIND_OFFSET + 1;
/// The alignment the archive needs: the largest alignment of any archived
/// field (`i64`, `u64`).
pub const ARCHIVE_ALIGN: usize = 8;
/// The alignment of the buffers values are copied into when misaligned.
pub const COPY_ALIGN: usize = 16;
/// Values at most this long are always copied: a backend may keep short
/// values inline in a handle that moves, so their address is not stable.
pub const INLINE_VALUE_LEN_MAX: usize = 64;

const _: () = assert!(VALUE_RESERVED_OFFSET < VALUE_HEADER_LEN);
const _: () = assert!(VALUE_HEADER_LEN.is_multiple_of(ARCHIVE_ALIGN));
const _: () = assert!(COPY_ALIGN.is_multiple_of(ARCHIVE_ALIGN));

/// What a stored value is; byte 1 of its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ValueKind {
    /// A [`crate::Catalog`].
    Catalog = 1,
    /// A [`crate::Database`].
    Database = 2,
    /// A [`crate::Table`].
    Table = 3,
    /// A [`crate::PartitionRecord`].
    Partition = 4,
    /// A [`crate::StorageDescriptor`] shared by partitions of a table.
    PartitionDescriptor = 5,
    /// A chunk of a column's partition statistics (`crate::stats`).
    StatsChunk = 6,
    /// A column's table-level statistics (`crate::stats`).
    TableStats = 7,
    /// A chunk of a column's partition statistics, packed (`crate::stats`); replaces kind 6.
    StatsPackedChunk = 8,
    /// The `bitVectors` of a chunk's partitions (`crate::stats`).
    StatsSketchChunk = 9,
    /// A table's rows inserted, updated and deleted by transactions (`crate::stats`).
    TransactionStatistics = 10,
    /// The tables a materialized view reads, with their counts (`crate::stats`).
    ViewSources = 11,
    /// A chunk's sketches with their HLL union (`crate::stats`); replaces kind 9.
    StatsSketchUnionChunk = 12,
    /// A [`crate::Function`] of a database.
    Function = 13,
    /// A table constraint (`crate::constraints`).
    Constraint = 14,
    /// A type of Hive's old type registry (`crate::TypeDef`).
    TypeDef = 15,
    /// A lock (`crate::txns::locks`); kinds 16-31 belong to locks and transactions.
    Lock = 16,
    /// A transaction (`crate::txns`).
    Txn = 17,
    /// A committed transaction's write set (`crate::txns`).
    WriteSet = 18,
    /// A queued compaction request (`crate::txns`), as written before requests had states;
    /// read as an initiated [`ValueKind::CompactionEntry`].
    Compaction = 19,
    /// A compaction request with its state (`crate::txns`), as written before workers;
    /// replaces kind 19, replaced by kind 21.
    CompactionEntry = 20,
    /// A compaction request with its state and its worker's progress (`crate::txns`);
    /// replaces kind 20, which is read as this with no worker.
    CompactionRecord = 21,
    /// The table or partition a compactor's transaction works on (`crate::txns`).
    CompactorComponent = 22,
    /// A compaction metric of a table or partition (`crate::txns`).
    CompactionMetric = 23,
    /// A materialized view's rebuild lock (`crate::txns`).
    RebuildLock = 24,
    /// A notification event (`crate::events`); kinds 32-39 belong to the notification log.
    Event = 32,
    /// A transaction's write recorded by `add_write_notification_log` (`crate::events`).
    WriteEvent = 33,
    /// An event stored in parts (`EventParts`): its length and part count
    /// (`crate::events::parts`).
    EventPieces = 34,
    /// A schema of the schema registry (`crate::ISchema`).
    Schema = 35,
    /// A version of a registered schema (`crate::SchemaVersion`).
    SchemaVersion = 36,
    /// A SerDe registered by name (`crate::RegisteredSerde`).
    Serde = 37,
    /// A workload management resource plan with its pools, triggers and mappings
    /// (`crate::ResourcePlan`); kinds 40-49 belong to workload management, runtime statistics
    /// and scheduled queries.
    ResourcePlan = 40,
    /// A runtime statistics entry (`crate::RuntimeStat`).
    RuntimeStat = 41,
    /// A scheduled query (`crate::ScheduledQuery`).
    ScheduledQuery = 42,
    /// An execution of a scheduled query (`crate::ScheduledExecution`).
    ScheduledExecution = 43,
    /// An HPL/SQL stored procedure (`crate::StoredProcedure`); kinds 50-55 belong to
    /// procedures, packages and data connectors.
    StoredProcedure = 50,
    /// An HPL/SQL package (`crate::Package`).
    Package = 51,
    /// A data connector (`crate::DataConnector`).
    DataConnector = 52,
    /// The replication metrics of a scheduled execution (`crate::ReplicationMetrics`);
    /// kinds 56 and 57 belong to replication.
    ReplicationMetrics = 56,
    /// A shared partition descriptor whose columns the client left unset
    /// (`crate::partitions::descriptors`); kind 5 holds those with columns.
    PartitionDescriptorColumnsUnset = 58,
    /// A property map of the property store (`crate::properties`).
    PropertyMap = 59,
    /// A delegation token of the token store (`crate::tokens`); kinds 60 and 61 belong to
    /// delegation tokens.
    DelegationToken = 60,
    /// A master key of the token store (`crate::tokens`).
    MasterKey = 61,
    /// A role (`crate::Role`); kinds 62 to 66 belong to roles and privileges.
    Role = 62,
    /// A principal's membership of a role (`crate::RoleMember`).
    RoleMember = 63,
    /// A privilege granted on an object (`crate::PrivilegeGrant`).
    PrivilegeGrant = 64,
    /// A statistics chunk's delta, its recent slots (`crate::stats`); kinds 70 to 72 belong to
    /// them, 70 (one recent slot a key, unreleased) is no longer read.
    StatsChunkDelta = 71,
    /// The keys one batch changed (`storage/changes.rs`); kinds 74 and 75 belong to the
    /// change log.
    ChangeEntry = 74,
}

/// A type stored as an rkyv archive.
pub trait StoredValue: Sized {
    /// The archived form, read in place.
    type Archived;
    /// The kind written into the header.
    const KIND: ValueKind;
    /// Serialises `self` into an archive.
    fn to_archive(&self) -> std::result::Result<AlignedVec, rancor::Error>;
    /// Validates `bytes` as an archive of `Self` and returns its root.
    fn access_archive(bytes: &[u8]) -> std::result::Result<&Self::Archived, rancor::Error>;
    /// Deserialises an archived value into an owned one.
    fn from_archive(archived: &Self::Archived) -> std::result::Result<Self, rancor::Error>;
}

/// Implements [`StoredValue`] for a type deriving rkyv's traits.
macro_rules! stored_value {
    ($type:ty, $kind:expr) => {
        impl $crate::storage::values::StoredValue for $type {
            type Archived = <$type as rkyv::Archive>::Archived;
            const KIND: $crate::storage::values::ValueKind = $kind;

            fn to_archive(
                &self,
            ) -> std::result::Result<rkyv::util::AlignedVec, rkyv::rancor::Error> {
                rkyv::to_bytes::<rkyv::rancor::Error>(self)
            }

            fn access_archive(
                bytes: &[u8],
            ) -> std::result::Result<&Self::Archived, rkyv::rancor::Error> {
                rkyv::access::<Self::Archived, rkyv::rancor::Error>(bytes)
            }

            fn from_archive(
                archived: &Self::Archived,
            ) -> std::result::Result<Self, rkyv::rancor::Error> {
                rkyv::deserialize::<$type, rkyv::rancor::Error>(archived)
            }
        }
    };
}
pub(crate) use stored_value;

/// Encodes `value` as header + archive, and checks that it reads back.
pub fn encode<T: StoredValue>(value: &T) -> Result<Vec<u8>> {
    let archive = value
        .to_archive()
        .map_err(|error| Error::Internal(format!("cannot archive a {:?}: {error}", T::KIND)))?;
    let mut stored = Vec::with_capacity(VALUE_HEADER_LEN + archive.len());
    stored.push(VALUE_FORMAT_VERSION);
    stored.push(T::KIND as u8);
    stored.resize(VALUE_HEADER_LEN, 0);
    stored.extend_from_slice(&archive);
    // Pair the write with the read check: what we store must validate.
    T::access_archive(&archive).map_err(|error| {
        Error::Internal(format!(
            "a fresh {:?} archive fails validation: {error}",
            T::KIND
        ))
    })?;
    Ok(stored)
}

/// Checks the header of a stored value of kind `T` at `key`.
fn check_header<T: StoredValue>(key: &[u8], stored: &[u8]) -> Result<()> {
    if stored.len() < VALUE_HEADER_LEN {
        let reason = format!(
            "{} bytes, shorter than the {VALUE_HEADER_LEN}-byte header",
            stored.len()
        );
        return Err(Error::corruption(key, reason));
    }
    let version = stored[VALUE_VERSION_OFFSET];
    if version != VALUE_FORMAT_VERSION {
        let reason = format!(
            "unknown value format version {version} (this build reads {VALUE_FORMAT_VERSION})"
        );
        return Err(Error::corruption(key, reason));
    }
    let kind = stored[VALUE_KIND_OFFSET];
    if kind != T::KIND as u8 {
        let reason = format!(
            "value kind {kind} where a {:?} ({}) was expected",
            T::KIND,
            T::KIND as u8
        );
        return Err(Error::corruption(key, reason));
    }
    if stored[VALUE_RESERVED_OFFSET..VALUE_HEADER_LEN]
        .iter()
        .any(|byte| *byte != 0)
    {
        return Err(Error::corruption(key, "reserved header bytes are not zero"));
    }
    Ok(())
}

/// Where a view's archive bytes live.
enum ViewBytes {
    /// The backend's bytes, aligned, at a stable address.
    Stored(KvBytes),
    /// A copy of the archive in an aligned buffer.
    Copied(AlignedVec<COPY_ALIGN>),
}

/// A stored value of type `T`, read in place.
///
/// Building one checks the header; [`ValueView::archived`] validates the
/// archive and returns a reference into it without deserialising.
pub struct ValueView<T: StoredValue> {
    key: KvBytes,
    bytes: ViewBytes,
    value_type: PhantomData<fn() -> T>,
}

impl<T: StoredValue> ValueView<T> {
    /// Wraps the stored bytes `stored` read at `key`.
    pub fn new(key: KvBytes, stored: KvBytes) -> Result<Self> {
        check_header::<T>(&key, &stored)?;
        let archive_address = stored.as_ptr() as usize + VALUE_HEADER_LEN;
        let stable = stored.len() > INLINE_VALUE_LEN_MAX;
        let bytes = if stable && archive_address.is_multiple_of(ARCHIVE_ALIGN) {
            ViewBytes::Stored(stored)
        } else {
            let mut copy = AlignedVec::<COPY_ALIGN>::with_capacity(stored.len() - VALUE_HEADER_LEN);
            copy.extend_from_slice(&stored[VALUE_HEADER_LEN..]);
            ViewBytes::Copied(copy)
        };
        Ok(ValueView {
            key,
            bytes,
            value_type: PhantomData,
        })
    }

    /// The key the value was read at.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Whether reading needed a copy into an aligned buffer.
    pub fn was_copied(&self) -> bool {
        matches!(self.bytes, ViewBytes::Copied(_))
    }

    fn archive_bytes(&self) -> &[u8] {
        match &self.bytes {
            ViewBytes::Stored(stored) => stored.get(VALUE_HEADER_LEN..).unwrap_or_default(),
            ViewBytes::Copied(copy) => copy.as_slice(),
        }
    }

    /// The stored archive, unvalidated: for callers that compare it with bytes they validated
    /// before (equal bytes are an equal, valid archive).
    pub fn archive(&self) -> &[u8] {
        self.archive_bytes()
    }

    /// The archived value, validated, in place.
    pub fn archived(&self) -> Result<&T::Archived> {
        T::access_archive(self.archive_bytes()).map_err(|error| {
            Error::corruption(
                &self.key,
                format!("the {:?} archive fails validation: {error}", T::KIND),
            )
        })
    }

    /// The value, deserialised into an owned `T`.
    pub fn to_owned(&self) -> Result<T> {
        let archived = self.archived()?;
        T::from_archive(archived).map_err(|error| {
            Error::corruption(
                &self.key,
                format!("cannot deserialise the {:?}: {error}", T::KIND),
            )
        })
    }
}

/// Decodes the stored bytes at `key` into an owned `T`.
pub fn decode<T: StoredValue>(key: KvBytes, stored: KvBytes) -> Result<T> {
    ValueView::<T>::new(key, stored)?.to_owned()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{FieldSchema, StorageDescriptor, Table};

    fn sample_table() -> Table {
        let column = |name: &str| FieldSchema {
            name: name.to_string(),
            type_name: "string".to_string(),
            comment: None,
        };
        Table {
            table_name: "events".to_string(),
            db_name: "default".to_string(),
            cat_name: "hive".to_string(),
            id: 42,
            write_id: -1,
            sd: Some(StorageDescriptor {
                cols: vec![column("a"), column("b")],
                location: Some("/warehouse/events".to_string()),
                num_buckets: -1,
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("ds")],
            parameters: [("EXTERNAL".to_string(), "TRUE".to_string())].into(),
            ..Table::default()
        }
    }

    /// The stored bytes of `value`, placed at `offset` bytes past a 16-byte
    /// aligned address, so every alignment can be tried.
    fn stored_at_offset(stored: &[u8], offset: usize) -> KvBytes {
        let mut buffer = AlignedVec::<16>::new();
        buffer.extend_from_slice(&vec![0xAA; offset]);
        buffer.extend_from_slice(stored);
        KvBytes::from_shared_at(Arc::from(buffer.as_slice()), offset)
    }

    fn key() -> KvBytes {
        KvBytes::from_shared(Arc::from(&b"k"[..]))
    }

    #[test]
    fn values_round_trip_at_every_alignment() {
        let table = sample_table();
        let stored = encode(&table).unwrap();
        for offset in 0..16 {
            let bytes = stored_at_offset(&stored, offset);
            let aligned =
                (bytes.as_ptr() as usize + VALUE_HEADER_LEN).is_multiple_of(ARCHIVE_ALIGN);
            let view = ValueView::<Table>::new(key(), bytes).unwrap();
            assert_eq!(view.was_copied(), !aligned, "offset {offset}");
            assert_eq!(view.archived().unwrap().table_name.as_str(), "events");
            assert_eq!(view.to_owned().unwrap(), table);
        }
    }

    #[test]
    fn short_values_are_copied_even_when_aligned() {
        let catalog = crate::Catalog {
            name: "c".to_string(),
            ..crate::Catalog::default()
        };
        let stored = encode(&catalog).unwrap();
        assert!(stored.len() <= INLINE_VALUE_LEN_MAX);
        let view = ValueView::<crate::Catalog>::new(key(), stored_at_offset(&stored, 0)).unwrap();
        assert!(view.was_copied());
        assert_eq!(view.to_owned().unwrap(), catalog);
    }

    fn corruption_reason(result: Result<Table>) -> String {
        match result {
            Err(Error::Corruption { key, reason }) => {
                assert_eq!(key, "k");
                reason
            }
            other => panic!("expected corruption, got {other:?}"),
        }
    }

    #[test]
    fn bad_headers_are_corruption() {
        let stored = encode(&sample_table()).unwrap();
        let decode_bytes = |bytes: Vec<u8>| decode::<Table>(key(), stored_at_offset(&bytes, 0));
        let mut wrong_version = stored.clone();
        wrong_version[VALUE_VERSION_OFFSET] = 9;
        assert!(corruption_reason(decode_bytes(wrong_version)).contains("version 9"));
        let mut wrong_kind = stored.clone();
        wrong_kind[VALUE_KIND_OFFSET] = ValueKind::Database as u8;
        assert!(corruption_reason(decode_bytes(wrong_kind)).contains("kind"));
        let mut reserved = stored.clone();
        reserved[VALUE_RESERVED_OFFSET] = 1;
        assert!(corruption_reason(decode_bytes(reserved)).contains("reserved"));
        assert!(corruption_reason(decode_bytes(stored[..3].to_vec())).contains("header"));
    }

    #[test]
    fn damaged_archives_are_corruption_not_undefined_behaviour() {
        let stored = encode(&sample_table()).unwrap();
        // Truncations and single-byte flips anywhere in the archive must
        // either still decode or be reported; never panic.
        for cut in VALUE_HEADER_LEN..stored.len() {
            let result = decode::<Table>(key(), stored_at_offset(&stored[..cut], 0));
            assert!(result.is_err() || cut == stored.len());
        }
        let mut reported = 0;
        for position in VALUE_HEADER_LEN..stored.len() {
            let mut damaged = stored.clone();
            damaged[position] ^= 0xFF;
            if decode::<Table>(key(), stored_at_offset(&damaged, 0)).is_err() {
                reported += 1;
            }
        }
        assert!(reported > 0);
    }
}
