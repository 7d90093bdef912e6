//! Column statistics: Hive's `ColumnStatistics` for tables and partitions, kept per table,
//! column and engine, and aggregated over partitions as Hive's `get_aggr_stats_for` does.
//!
//! # Layout, and why
//!
//! Planners read statistics of one column over many partitions at once (Trino per query,
//! Hive's `get_aggr_stats_for` per column over every partition it scans). So partition
//! statistics are stored columnar: per table, column and engine, arrays over partitions
//! (nulls, distinct values, low, high, lengths, trues and falses), and an aggregation scans a
//! few contiguous values instead of decoding one object per partition.
//!
//! One array per column over *all* partitions would make writing one partition's statistics
//! rewrite every other partition's. The arrays are therefore cut into chunks of
//! [`CHUNK_SLOT_COUNT`] partitions, one key each: a write rewrites one chunk per column
//! (a few kilobytes), a 10k-partition aggregation reads 79 chunks per column in key order.
//!
//! Planners that run `ANALYZE` after every insert write one partition a call, and a chunk per
//! column is still 128 partitions' bytes for one partition's. Such a write stores each
//! column's statistics for its partition as a *recent slot* in the chunk's *delta*, one value
//! beside the chunk holding its recent slots, replaced whole at each write, which every reader
//! reads with the chunk and lays over it; a chunk's delta is merged into it once it would pass
//! `StoreOptions::recent_slot_count_max` slots or its byte bound (`chunk_delta.rs`,
//! `chunk_writer.rs`).
//!
//! A partition gets its place in the arrays, its *slot*, the first time statistics are written
//! for it: a per-table counter hands it out and an index maps partition values to it
//! (keyspace 0x08). The slot never changes, so renaming a partition moves one index entry and
//! no statistics; dropping it clears its slot in each column's chunk. Slots are not reused.
//!
//! Sketches (`bitVectors`) and histograms are kilobytes each and read only when merged or
//! returned, so they live apart (keyspace 0x0A) and never slow a scan of the arrays: the
//! sketches of a chunk's slots as one value beside the chunk (so that merging 10k partitions'
//! sketches reads 79 values per column, decoded straight into one register array), histograms
//! one key per slot. Table-level statistics are one value per column and engine (keyspace
//! 0x0B).
//!
//! Keys put the column before the engine, so that dropping a column's statistics (a column
//! dropped or retyped by `alter_table`) is one range per keyspace whatever the engines.

mod accurate;
mod aggregate;
mod basic;
pub(crate) mod chunk;
mod chunk_changes;
pub(crate) mod chunk_delta;
mod chunk_refresh;
mod chunk_run;
mod chunk_writer;
mod column_fold;
#[cfg(test)]
mod compat_tests;
#[cfg(test)]
mod delta_tests;
mod fm;
mod hll;
mod hll_bias;
mod hll_union;
mod inline_str;
pub(crate) mod kept;
mod kept_chunks;
mod kept_slots;
mod merge;
mod ndv;
pub(crate) mod packed;
mod prewarm;
mod read;
#[cfg(test)]
mod size_tests;
pub(crate) mod sketch_chunk;
mod slot_changes;
mod slot_index;
mod slots;
mod snapshot;
mod stored_chunk;
#[cfg(test)]
mod test_store;
pub(crate) mod transactional;
mod write;

pub use smol_str::SmolStr;

pub use crate::model::table::is_transactional;
pub(crate) use accurate::{json_object, Json};
pub use accurate::{StatsAccuracy, COLUMN_STATS_ACCURATE};
pub use aggregate::AggregateStatistics;
pub use basic::{StatsContext, StatsGenerated, DO_NOT_UPDATE_STATS, STATS_GENERATED};
pub use chunk::CHUNK_SLOT_COUNT;
pub use chunk_delta::{CHUNK_DELTA_BYTES_MAX, RECENT_SLOT_COUNT_MAX};
pub use prewarm::{PrewarmReport, PREWARM_BYTES_MAX};
pub use read::{PartitionStatistics, TableStatistics};
pub use transactional::TransactionStatistics;
pub use write::normalize_partition_name;

pub(crate) use transactional::record_view_sources;

pub(crate) use basic::{
    reset_stats_for_truncate, update_added_partition_stats, update_partition_stats_on_alter,
    update_table_stats_on_alter, update_table_stats_on_create,
};
pub(crate) use write::{forget_altered_columns, forget_partitions, move_partition_slot};

/// The engine statistics belong to when a request names none.
pub const DEFAULT_STATS_ENGINE: &str = "hive";

/// The kind of a column's statistics: the variant of Hive's `ColumnStatisticsData` union.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
#[repr(u8)]
pub enum StatsKind {
    /// `booleanStats`: trues, falses, nulls.
    Boolean = 1,
    /// `longStats`: integral low and high.
    Long = 2,
    /// `doubleStats`: floating low and high.
    Double = 3,
    /// `stringStats`: lengths and distinct values.
    String = 4,
    /// `binaryStats`: lengths.
    Binary = 5,
    /// `decimalStats`: decimal low and high.
    Decimal = 6,
    /// `dateStats`: low and high in days since the epoch.
    Date = 7,
    /// `timestampStats`: low and high in seconds since the epoch.
    Timestamp = 8,
}

impl StatsKind {
    /// The kind stored as `byte`; `None` for 0 (no statistics) and unknown bytes.
    pub fn from_byte(byte: u8) -> Option<StatsKind> {
        use StatsKind::*;
        Some(match byte {
            1 => Boolean,
            2 => Long,
            3 => Double,
            4 => String,
            5 => Binary,
            6 => Decimal,
            7 => Date,
            8 => Timestamp,
            _ => return None,
        })
    }

    /// Whether low and high are integers (`longStats`, `dateStats`, `timestampStats`).
    pub fn has_integer_bounds(self) -> bool {
        matches!(
            self,
            StatsKind::Long | StatsKind::Date | StatsKind::Timestamp
        )
    }
}

/// A decimal as Hive's `Decimal`: the unscaled value as big-endian two's complement bytes.
#[derive(
    Debug, Clone, PartialEq, Eq, Default, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize,
)]
pub struct StatsDecimal {
    /// The unscaled value, big-endian two's complement.
    pub unscaled: Vec<u8>,
    /// The scale: value = unscaled × 10^-scale.
    pub scale: i16,
}

/// A low or high value.
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub enum StatsValue {
    /// Long, date (days) and timestamp (seconds) bounds.
    Integer(i64),
    /// Double bounds.
    Double(f64),
    /// Decimal bounds.
    Decimal(StatsDecimal),
}

/// One column's statistics for a table or a partition: the fields of every
/// `ColumnStatisticsData` variant, flat; [`ColumnStatistics::kind`] says which are meaningful
/// (the others are zero).
#[derive(Debug, Clone, PartialEq, rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct ColumnStatistics {
    /// The column, lowercased. A short string is held inline (`SmolStr`): a read of 1,000
    /// partitions × 20 columns builds 20,000 statistics, and two heap strings each were a
    /// quarter of its time.
    #[rkyv(with = inline_str::AsArchivedString)]
    pub column_name: SmolStr,
    /// The column type as the writer gave it, lowercased; inline when short, as the name.
    #[rkyv(with = inline_str::AsArchivedString)]
    pub column_type: SmolStr,
    /// Which variant.
    pub kind: StatsKind,
    /// Null values.
    pub num_nulls: i64,
    /// Distinct values (`numDVs`); zero for booleans and binaries.
    pub num_distinct_values: i64,
    /// The low value, if known (numeric, decimal, date and timestamp kinds).
    pub low_value: Option<StatsValue>,
    /// The high value, if known.
    pub high_value: Option<StatsValue>,
    /// The longest value (string, binary).
    pub max_length: i64,
    /// The average length (string, binary).
    pub avg_length: f64,
    /// True values (boolean).
    pub num_trues: i64,
    /// False values (boolean).
    pub num_falses: i64,
    /// Hive's NDV sketch (HLL or FM), opaque here.
    pub bit_vectors: Option<Vec<u8>>,
    /// Hive 4's KLL histogram, opaque here.
    pub histogram: Option<Vec<u8>>,
}

impl ColumnStatistics {
    /// Empty statistics of `kind` for `column_name` of `column_type`.
    pub fn new(
        column_name: impl Into<SmolStr>,
        column_type: impl Into<SmolStr>,
        kind: StatsKind,
    ) -> Self {
        ColumnStatistics {
            column_name: column_name.into(),
            column_type: column_type.into(),
            kind,
            num_nulls: 0,
            num_distinct_values: 0,
            low_value: None,
            high_value: None,
            max_length: 0,
            avg_length: 0.0,
            num_trues: 0,
            num_falses: 0,
            bit_vectors: None,
            histogram: None,
        }
    }
}

/// Where statistics are written: which engine's, and whether they merge with those stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsWriteOptions {
    /// The engine (`hive`, `impala`, ...), lowercased.
    pub engine: String,
    /// Hive's `needMerge`: merge with the stored statistics of columns marked accurate.
    pub merge: bool,
    /// When they were computed, seconds since the epoch (Hive writes its server time).
    pub last_analyzed: i64,
    /// The ACID write id of the write (`-1`: none), recorded on a transactional table or
    /// partition whose statistics it writes.
    pub write_id: i64,
    /// The writer's `validWriteIdList`, checked for transactional tables
    /// (`snapshot.rs`).
    pub valid_write_ids: Option<String>,
}

impl Default for StatsWriteOptions {
    fn default() -> Self {
        StatsWriteOptions {
            engine: DEFAULT_STATS_ENGINE.to_string(),
            merge: false,
            last_analyzed: 0,
            write_id: -1,
            valid_write_ids: None,
        }
    }
}

/// The engine a request names, Hive's default when it names none.
pub fn engine_or_default(engine: Option<&str>) -> String {
    match engine.map(str::trim) {
        Some(engine) if !engine.is_empty() => engine.to_lowercase(),
        _ => DEFAULT_STATS_ENGINE.to_string(),
    }
}
