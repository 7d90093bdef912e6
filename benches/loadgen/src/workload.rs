//! The workloads: what one measured call (one sample) does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use hivestore_idl::hive_metastore::{
    CheckLockRequest, ColumnStatistics, EnvironmentContext, GetTableRequest, LockComponent,
    LockLevel, LockRequest, LockState, LockType, Partition, PartitionsByExprRequest,
    PartitionsStatsRequest, SetPartitionsStatsRequest, TThriftHiveMetastoreSyncClient, Table,
    UnlockRequest,
};

use crate::encoded_call::EncodedCallConnection;
use crate::endpoint::{Client, Endpoint, ReplyBytes};
use crate::fixture::{
    bench_table, column_names, commit_table_name, read_table_name, scratch_table_name, HOSTNAME,
    OWNER,
};
use crate::hive_expression::{string_range_expression, DEFAULT_PARTITION_NAME};
use crate::hmsbench::HmsbenchCaller;
use crate::partition_table::{
    add_batch_partition_count, all_names, by_names_names, day_string, leading_key_filter,
    name_in_days, partition, partition_column_stats_of, partitioned_table, second_key_filter,
    selected_days, stats_column_names, stats_table_column_names, PARTITIONED_TABLE, STATS_TABLE,
    STATS_TABLE_COLUMN_COUNT, TRINO_BATCH_PARTITION_COUNT,
};

/// Columns whose statistics one `stats_update` sample writes.
pub const STATS_UPDATE_COLUMN_COUNT: usize = 4;

/// What a sample does. Every workload touches only the bench database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Workload {
    /// `get_table` of a 20-column table (round robin over the read tables).
    #[value(name = "get_table")]
    GetTable,
    /// `get_table_req`, the Hive 3+ form of the same read.
    #[value(name = "get_table_req")]
    GetTableReq,
    /// `get_all_databases`.
    #[value(name = "get_all_databases")]
    GetAllDatabases,
    /// `get_tables(db, "*")` over the read tables.
    #[value(name = "get_tables")]
    GetTables,
    /// `create_table` then `drop_table(deleteData=true)`: two durable writes.
    #[value(name = "create_drop_table")]
    CreateDropTable,
    /// An Iceberg commit as PyIceberg's HiveCatalog (0.12) makes it: `lock` (an exclusive
    /// table lock outside any transaction; `check_lock` while it waits), `get_table`,
    /// `alter_table_with_environment_context` swapping `metadata_location`, `unlock`. Each
    /// connection commits to its own table, so its lock never waits on another's.
    #[value(name = "pyiceberg_commit")]
    PyicebergCommit,
    /// `add_partitions` of 1,000 new partitions (all N of a smaller table) into a table of the
    /// connection's own; a measurement adds at most N partitions.
    #[value(name = "add_partitions")]
    AddPartitions,
    /// `get_partition_names(max_parts = -1)`: every name of the partitioned table.
    #[value(name = "get_partition_names")]
    GetPartitionNames,
    /// `get_partitions(max_parts = -1)`: every partition.
    #[value(name = "get_partitions")]
    GetPartitions,
    /// `get_partitions_by_filter` on the leading key: a `ds` range of 1% of the days.
    #[value(name = "get_partitions_by_filter_leading_key")]
    GetPartitionsByFilterLeadingKey,
    /// `get_partitions_by_expr` of the same range as Hive 2.3 serialises it.
    #[value(name = "get_partitions_by_expr_leading_key")]
    GetPartitionsByExprLeadingKey,
    /// `get_partitions_by_filter` on the second key: `hr = 7`, 1/24 of the partitions.
    #[value(name = "get_partitions_by_filter_second_key")]
    GetPartitionsByFilterSecondKey,
    /// `get_partitions_by_names` with 10,000 names spread over the table (all, if fewer).
    #[value(name = "get_partitions_by_names")]
    GetPartitionsByNames,
    /// Trino planning a query over 1% of the days: `get_table_req`, `get_partition_names_ps`
    /// with both keys unbound (a range binds no single value), pruning the names itself, then
    /// `get_partitions_by_names` in batches of 100.
    #[value(name = "trino_plan")]
    TrinoPlan,
    /// Spark planning the same query: `get_table`, then `get_partitions_by_filter` with the
    /// `ds` range.
    #[value(name = "spark_plan")]
    SparkPlan,
    /// Hive's cost-based optimiser planning the same query: `get_table`, the partitions of the
    /// `ds` range (`get_partitions_by_expr` with the range as Hive 2.3 serialises it), then
    /// `get_aggr_stats_for` over those partitions of the 10 columns that have statistics.
    #[value(name = "hive_plan")]
    HivePlan,
    /// `get_aggr_stats_for` over every partition of the statistics table and its 5 columns
    /// with statistics (issue 5's side by side with the Java HMS).
    #[value(name = "stats_aggregate")]
    StatsAggregate,
    /// `get_partitions_statistics_req` of every partition of the statistics table and its 5
    /// columns with statistics.
    #[value(name = "stats_partitions")]
    StatsPartitions,
    /// `set_aggr_stats_for` (a `SetPartitionsStatsRequest`, which Hive 2.3 has too) of 1,000
    /// partitions' statistics for the 5 columns (all N of a smaller table), replacing those
    /// the setup wrote, the next 1,000 each sample.
    #[value(name = "stats_write")]
    StatsWrite,
    /// `update_partition_column_statistics` of one partition's statistics for
    /// [`STATS_UPDATE_COLUMN_COUNT`] columns, as `ANALYZE ... PARTITION` writes them, the next
    /// partition of the partitioned table each sample (issue 30's write pattern).
    #[value(name = "stats_update")]
    StatsUpdate,
    /// hmsbench `getNid`: `get_current_notificationEventId`.
    #[value(name = "getNid")]
    GetNid,
    /// hmsbench `listDatabases`: `get_all_databases`.
    #[value(name = "listDatabases")]
    ListDatabases,
    /// hmsbench `getTable`: `get_table_req` of a table partitioned by `d`.
    #[value(name = "getTable")]
    HmsbenchGetTable,
    /// hmsbench `createTable`: `create_table` of an unpartitioned table (dropped after, unmeasured).
    #[value(name = "createTable")]
    CreateTable,
    /// hmsbench `dropTable`: `drop_table` (the table created before, unmeasured).
    #[value(name = "dropTable")]
    DropTable,
    /// hmsbench-style `commitTxn`: `commit_txn` of a transaction opened before, unmeasured.
    #[value(name = "commitTxn")]
    CommitTxn,
    /// hmsbench `listTables.N`: `get_all_tables` of a database of N tables.
    #[value(name = "listTables")]
    ListTables,
    /// hmsbench `dropTableWithPartitions.N`: `drop_table(deleteData = true)` of a table of N partitions.
    #[value(name = "dropTableWithPartitions")]
    DropTableWithPartitions,
    /// hmsbench `dropTableMetaOnlyWithPartitions.N`: the same with `deleteData = false`.
    #[value(name = "dropTableMetaOnlyWithPartitions")]
    DropTableMetaOnlyWithPartitions,
    /// hmsbench `addPartition.N`: N `add_partition` calls, one partition each.
    #[value(name = "addPartition")]
    AddPartition,
    /// hmsbench `addPartitions.N`: one `add_partitions` call of N partitions.
    #[value(name = "addPartitions")]
    HmsbenchAddPartitions,
    /// hmsbench `dropPartition.N`: `get_partition_names`, then N `drop_partition_by_name` calls.
    #[value(name = "dropPartition")]
    DropPartition,
    /// hmsbench `dropPartitions.N`: `get_partition_names`, then one `drop_partitions_req` of the N names.
    #[value(name = "dropPartitions")]
    DropPartitions,
    /// hmsbench `alterPartitions.N`: `get_partitions`, then one `alter_partitions` of the N with a parameter and a column added.
    #[value(name = "alterPartitions")]
    AlterPartitions,
    /// hmsbench `listPartitions.N`: `get_partitions(max_parts = -1)` of N partitions.
    #[value(name = "listPartitions")]
    ListPartitions,
    /// hmsbench `getPartitions.N`: the same call as `listPartitions.N`, kept under its name.
    #[value(name = "getPartitions")]
    HmsbenchGetPartitions,
    /// hmsbench `getPartitionNames.N`: `get_partition_names(max_parts = -1)`.
    #[value(name = "getPartitionNames")]
    HmsbenchGetPartitionNames,
    /// hmsbench `getPartitionsByNames.N`: `get_partitions_by_names` of all N names.
    #[value(name = "getPartitionsByNames")]
    HmsbenchGetPartitionsByNames,
    /// hmsbench `getPartitionsByFilter#simple.N`: `p_b = "b0"` over N partitions.
    #[value(name = "getPartitionsByFilter#simple")]
    GetPartitionsByFilterSimple,
    /// hmsbench `getPartitionsByFilter#multiOr.N`: a four-way OR on `p_b` and `p_c`.
    #[value(name = "getPartitionsByFilter#multiOr")]
    GetPartitionsByFilterMultiOr,
    /// hmsbench `getPartitionsByFilter#multiAnd.N`: all three keys bound.
    #[value(name = "getPartitionsByFilter#multiAnd")]
    GetPartitionsByFilterMultiAnd,
    /// hmsbench `getPartitionsByPs.N`: `get_partitions_ps_with_auth(["a0"])`, which all N match.
    #[value(name = "getPartitionsByPs")]
    GetPartitionsByPs,
    /// hmsbench `getPartitionsStat.N`: `get_partitions_statistics_req` of column `name` over N partitions.
    #[value(name = "getPartitionsStat")]
    GetPartitionsStat,
    /// hmsbench `updatePartitionsStat.N`: N `update_partition_column_statistics` calls.
    #[value(name = "updatePartitionsStat")]
    UpdatePartitionsStat,
    /// hmsbench `renameTable.N`: two `alter_table` renames (there and back) of a table of N partitions.
    #[value(name = "renameTable")]
    RenameTable,
    /// hmsbench `dropDatabase.N`: `drop_database(cascade)` of a database of N tables.
    #[value(name = "dropDatabase")]
    DropDatabase,
    /// hmsbench ACID `openTxn` (N): `open_txns` of N transactions (aborted after, unmeasured).
    #[value(name = "openTxns")]
    OpenTxns,
    /// `abortTxns.N`: `abort_txns` of N transactions opened before.
    #[value(name = "abortTxns")]
    AbortTxns,
    /// hmsbench ACID `lock` (N): one `lock` of N shared-read partition components (10 per table, with a table-level one each) in a transaction opened before.
    #[value(name = "lock")]
    Lock,
    /// hmsbench ACID `getValidWriteIds` (N): `get_valid_write_ids` of N tables.
    #[value(name = "getValidWriteIds")]
    GetValidWriteIds,
    /// hmsbench ACID `allocateTableWriteIds` (N): write ids on one table for N transactions opened before.
    #[value(name = "allocateTableWriteIds")]
    AllocateTableWriteIds,
}

/// bench's own workloads (hmsbench's are [`HMSBENCH_WORKLOADS`]), in report order.
pub const ALL_WORKLOADS: [Workload; 20] = [
    Workload::GetTable,
    Workload::GetTableReq,
    Workload::GetAllDatabases,
    Workload::GetTables,
    Workload::CreateDropTable,
    Workload::PyicebergCommit,
    Workload::AddPartitions,
    Workload::GetPartitionNames,
    Workload::GetPartitions,
    Workload::GetPartitionsByFilterLeadingKey,
    Workload::GetPartitionsByExprLeadingKey,
    Workload::GetPartitionsByFilterSecondKey,
    Workload::GetPartitionsByNames,
    Workload::TrinoPlan,
    Workload::SparkPlan,
    Workload::HivePlan,
    Workload::StatsAggregate,
    Workload::StatsPartitions,
    Workload::StatsWrite,
    Workload::StatsUpdate,
];

/// hmsbench's benchmarks (and its ACID ones), by its names: those with a size run at each
/// `--number` (hmsbench's `-N`), the others once.
pub const HMSBENCH_WORKLOADS: [Workload; 31] = [
    Workload::GetNid,
    Workload::ListDatabases,
    Workload::HmsbenchGetTable,
    Workload::CreateTable,
    Workload::DropTable,
    Workload::CommitTxn,
    Workload::ListTables,
    Workload::DropTableWithPartitions,
    Workload::DropTableMetaOnlyWithPartitions,
    Workload::AddPartition,
    Workload::HmsbenchAddPartitions,
    Workload::DropPartition,
    Workload::DropPartitions,
    Workload::AlterPartitions,
    Workload::ListPartitions,
    Workload::HmsbenchGetPartitions,
    Workload::HmsbenchGetPartitionNames,
    Workload::HmsbenchGetPartitionsByNames,
    Workload::GetPartitionsByFilterSimple,
    Workload::GetPartitionsByFilterMultiOr,
    Workload::GetPartitionsByFilterMultiAnd,
    Workload::GetPartitionsByPs,
    Workload::GetPartitionsStat,
    Workload::UpdatePartitionsStat,
    Workload::RenameTable,
    Workload::DropDatabase,
    Workload::OpenTxns,
    Workload::AbortTxns,
    Workload::Lock,
    Workload::GetValidWriteIds,
    Workload::AllocateTableWriteIds,
];

/// hmsbench's benchmarks that take a size (`.N`).
pub const SIZED_HMSBENCH_WORKLOADS: [Workload; 25] = [
    Workload::ListTables,
    Workload::DropTableWithPartitions,
    Workload::DropTableMetaOnlyWithPartitions,
    Workload::AddPartition,
    Workload::HmsbenchAddPartitions,
    Workload::DropPartition,
    Workload::DropPartitions,
    Workload::AlterPartitions,
    Workload::ListPartitions,
    Workload::HmsbenchGetPartitions,
    Workload::HmsbenchGetPartitionNames,
    Workload::HmsbenchGetPartitionsByNames,
    Workload::GetPartitionsByFilterSimple,
    Workload::GetPartitionsByFilterMultiOr,
    Workload::GetPartitionsByFilterMultiAnd,
    Workload::GetPartitionsByPs,
    Workload::GetPartitionsStat,
    Workload::UpdatePartitionsStat,
    Workload::RenameTable,
    Workload::DropDatabase,
    Workload::OpenTxns,
    Workload::AbortTxns,
    Workload::Lock,
    Workload::GetValidWriteIds,
    Workload::AllocateTableWriteIds,
];

/// The workloads measured at each `--partitions` size.
pub const PARTITION_WORKLOADS: [Workload; 14] = [
    Workload::AddPartitions,
    Workload::GetPartitionNames,
    Workload::GetPartitions,
    Workload::GetPartitionsByFilterLeadingKey,
    Workload::GetPartitionsByExprLeadingKey,
    Workload::GetPartitionsByFilterSecondKey,
    Workload::GetPartitionsByNames,
    Workload::TrinoPlan,
    Workload::SparkPlan,
    Workload::HivePlan,
    Workload::StatsAggregate,
    Workload::StatsPartitions,
    Workload::StatsWrite,
    Workload::StatsUpdate,
];

/// The statistics workloads (part of [`PARTITION_WORKLOADS`]): issue 5's side by side.
pub const STATS_WORKLOADS: [Workload; 3] = [
    Workload::StatsAggregate,
    Workload::StatsPartitions,
    Workload::StatsWrite,
];

impl Workload {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Workload::GetTable => "get_table",
            Workload::GetTableReq => "get_table_req",
            Workload::GetAllDatabases => "get_all_databases",
            Workload::GetTables => "get_tables",
            Workload::CreateDropTable => "create_drop_table",
            Workload::PyicebergCommit => "pyiceberg_commit",
            Workload::AddPartitions => "add_partitions",
            Workload::GetPartitionNames => "get_partition_names",
            Workload::GetPartitions => "get_partitions",
            Workload::GetPartitionsByFilterLeadingKey => "get_partitions_by_filter_leading_key",
            Workload::GetPartitionsByExprLeadingKey => "get_partitions_by_expr_leading_key",
            Workload::GetPartitionsByFilterSecondKey => "get_partitions_by_filter_second_key",
            Workload::GetPartitionsByNames => "get_partitions_by_names",
            Workload::TrinoPlan => "trino_plan",
            Workload::SparkPlan => "spark_plan",
            Workload::HivePlan => "hive_plan",
            Workload::StatsAggregate => "stats_aggregate",
            Workload::StatsPartitions => "stats_partitions",
            Workload::StatsWrite => "stats_write",
            Workload::StatsUpdate => "stats_update",
            Workload::GetNid => "getNid",
            Workload::ListDatabases => "listDatabases",
            Workload::HmsbenchGetTable => "getTable",
            Workload::CreateTable => "createTable",
            Workload::DropTable => "dropTable",
            Workload::CommitTxn => "commitTxn",
            Workload::ListTables => "listTables",
            Workload::DropTableWithPartitions => "dropTableWithPartitions",
            Workload::DropTableMetaOnlyWithPartitions => "dropTableMetaOnlyWithPartitions",
            Workload::AddPartition => "addPartition",
            Workload::HmsbenchAddPartitions => "addPartitions",
            Workload::DropPartition => "dropPartition",
            Workload::DropPartitions => "dropPartitions",
            Workload::AlterPartitions => "alterPartitions",
            Workload::ListPartitions => "listPartitions",
            Workload::HmsbenchGetPartitions => "getPartitions",
            Workload::HmsbenchGetPartitionNames => "getPartitionNames",
            Workload::HmsbenchGetPartitionsByNames => "getPartitionsByNames",
            Workload::GetPartitionsByFilterSimple => "getPartitionsByFilter#simple",
            Workload::GetPartitionsByFilterMultiOr => "getPartitionsByFilter#multiOr",
            Workload::GetPartitionsByFilterMultiAnd => "getPartitionsByFilter#multiAnd",
            Workload::GetPartitionsByPs => "getPartitionsByPs",
            Workload::GetPartitionsStat => "getPartitionsStat",
            Workload::UpdatePartitionsStat => "updatePartitionsStat",
            Workload::RenameTable => "renameTable",
            Workload::DropDatabase => "dropDatabase",
            Workload::OpenTxns => "openTxns",
            Workload::AbortTxns => "abortTxns",
            Workload::Lock => "lock",
            Workload::GetValidWriteIds => "getValidWriteIds",
            Workload::AllocateTableWriteIds => "allocateTableWriteIds",
        }
    }

    /// Whether a sample writes (and so needs its own tables per connection).
    pub fn writes(self) -> bool {
        matches!(
            self,
            Workload::CreateDropTable | Workload::PyicebergCommit | Workload::AddPartitions
        )
    }

    /// Whether it is measured at each partition count of `--partitions`.
    pub fn is_partitioned(self) -> bool {
        PARTITION_WORKLOADS.contains(&self)
    }

    /// Whether it reads the partitioned table (which must then hold N partitions first). Its
    /// replies are what the loopback limit is measured for.
    pub fn lists_partitions(self) -> bool {
        self.is_partitioned()
            && !matches!(
                self,
                Workload::AddPartitions | Workload::StatsWrite | Workload::StatsUpdate
            )
    }

    /// Whether it is one of hmsbench's benchmarks.
    pub fn is_hmsbench(self) -> bool {
        HMSBENCH_WORKLOADS.contains(&self)
    }

    /// Whether it is measured at each size of `--number` (hmsbench's `.N`).
    pub fn is_sized(self) -> bool {
        SIZED_HMSBENCH_WORKLOADS.contains(&self)
    }

    /// The table shared by every connection that it reads, which the run grows to each size
    /// first; and whether that table's partitions need column statistics.
    pub fn shared_table(self) -> Option<(SharedTable, bool)> {
        match self {
            Workload::TrinoPlan | Workload::HivePlan => Some((SharedTable::Bench, true)),
            Workload::StatsUpdate => Some((SharedTable::Bench, false)),
            _ if STATS_WORKLOADS.contains(&self) => Some((SharedTable::Stats, true)),
            _ if self.lists_partitions() => Some((SharedTable::Bench, false)),
            Workload::GetPartitionsStat => Some((SharedTable::Hmsbench, true)),
            Workload::ListPartitions
            | Workload::HmsbenchGetPartitions
            | Workload::HmsbenchGetPartitionNames
            | Workload::HmsbenchGetPartitionsByNames
            | Workload::UpdatePartitionsStat => Some((SharedTable::Hmsbench, false)),
            Workload::GetPartitionsByFilterSimple
            | Workload::GetPartitionsByFilterMultiOr
            | Workload::GetPartitionsByFilterMultiAnd
            | Workload::GetPartitionsByPs => Some((SharedTable::HmsbenchFilter, false)),
            _ => None,
        }
    }

    /// The name with its size, as hmsbench reports it (`listPartitions.1000`); bench's own
    /// workloads keep their name.
    pub fn benchmark_name(self, size: Option<u64>) -> String {
        match size {
            Some(size) if self.is_sized() => format!("{}.{size}", self.name()),
            _ => self.name().to_string(),
        }
    }
}

/// A table every connection of a measurement reads, set up once per size by the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SharedTable {
    /// bench's own partitioned table (`ds`, `hr`; 20 columns).
    Bench,
    /// The same table under another name, with statistics for 5 columns of every partition.
    Stats,
    /// hmsbench's table partitioned by `d`.
    Hmsbench,
    /// hmsbench's table partitioned by `p_a`, `p_b`, `p_c`.
    HmsbenchFilter,
}

/// What a measurement's calls address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The bench database.
    pub database: String,
    /// Read tables in it (`bench_table_<i>`); at least one.
    pub read_table_count: usize,
    /// hmsbench's `--params`: parameters on each partition of its drop-table benchmarks.
    pub partition_parameter_count: u64,
    /// For a partition workload: the partitions of the partitioned table, and how many an
    /// `add_partitions` measurement adds.
    pub partition_count: Option<u64>,
    /// For a sized hmsbench workload: its `N`.
    pub object_count: Option<u64>,
}

/// What one sample did, besides taking its time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleCount {
    /// Thrift calls made (replies read).
    pub call_count: u64,
    /// Partitions the replies held, or partitions added; names count as partitions.
    pub partition_count: u64,
}

impl SampleCount {
    pub(crate) fn calls(call_count: u64) -> SampleCount {
        SampleCount {
            call_count,
            partition_count: 0,
        }
    }

    fn listed(call_count: u64, partition_count: usize) -> SampleCount {
        SampleCount::counted(call_count, partition_count as u64)
    }

    /// `call_count` calls, which listed (or added, or dropped) `partition_count` partitions.
    pub(crate) fn counted(call_count: u64, partition_count: u64) -> SampleCount {
        SampleCount {
            call_count,
            partition_count,
        }
    }
}

/// Bytes of `add_partitions` requests a caller holds encoded at most (some 330 calls of 1,000
/// partitions): the rest are encoded when these are sent, between samples.
const ENCODED_ADD_BYTES_MAX: usize = 512 * 1024 * 1024;

/// The `add_partitions` requests of one caller: batch `b` adds partitions `b * batch ..` of its
/// table, encoded before the samples send them in order, so that a sample times the call and
/// not the client's encoding (5-7 ms for 1,000 partitions). A measurement sends at most
/// `partition_count / batch` of them (and its warm-up a few more, encoded as needed).
struct EncodedAdds {
    connection: EncodedCallConnection,
    batch_partition_count: u64,
    /// Batches a measurement sends.
    batch_count: u64,
    /// The next batch to encode.
    next_batch: u64,
    encoded: std::collections::VecDeque<Vec<u8>>,
}

impl EncodedAdds {
    fn new(connection: EncodedCallConnection, partition_count: u64) -> EncodedAdds {
        let batch_partition_count = add_batch_partition_count(partition_count);
        EncodedAdds {
            connection,
            batch_partition_count,
            batch_count: partition_count.div_ceil(batch_partition_count),
            next_batch: 0,
            encoded: std::collections::VecDeque::new(),
        }
    }

    /// Once every encoded request was sent: encodes the next ones into `table`, those left of a
    /// measurement up to [`ENCODED_ADD_BYTES_MAX`] (one at least).
    fn top_up(&mut self, table: &Table) -> thrift::Result<()> {
        if !self.encoded.is_empty() {
            return Ok(());
        }
        let mut bytes = 0;
        loop {
            let first = self.next_batch * self.batch_partition_count;
            let partitions: Vec<Partition> = (first..first + self.batch_partition_count)
                .map(|index| partition(table, index))
                .collect();
            let request = self.connection.encode_add_partitions(&partitions)?;
            bytes += request.len();
            self.encoded.push_back(request);
            self.next_batch += 1;
            if self.next_batch >= self.batch_count || bytes >= ENCODED_ADD_BYTES_MAX {
                return Ok(());
            }
        }
    }

    /// Sends the next encoded request; the partitions added.
    fn send_next(&mut self) -> thrift::Result<i32> {
        let Some(request) = self.encoded.pop_front() else {
            unreachable!("a request is encoded before each sample");
        };
        self.connection.add_partitions(&request)
    }
}

/// Numbers the scratch tables of `add_partitions` callers, so that no two measurements of a
/// run add to the same table.
static SCRATCH_TABLE_SERIAL: AtomicU64 = AtomicU64::new(0);

/// A number no other caller of this process has had: scratch objects are named after it.
pub(crate) fn next_scratch_serial() -> u64 {
    SCRATCH_TABLE_SERIAL.fetch_add(1, Ordering::Relaxed)
}

/// The table an `add_partitions` caller adds to.
pub fn add_table_name(serial: u64) -> String {
    format!("bench_add_{serial}")
}

/// The Iceberg table property holding the current metadata file.
const METADATA_LOCATION: &str = "metadata_location";
/// The Iceberg table property holding the previous one.
const PREVIOUS_METADATA_LOCATION: &str = "previous_metadata_location";

/// One connection's caller of a workload: knows its tables and counts its samples.
pub struct Caller {
    workload: Workload,
    target: Target,
    connection: usize,
    sample: u64,
    /// What the partition workloads send, built once.
    queries: PartitionQueries,
    /// The state of an hmsbench workload.
    hmsbench: Option<HmsbenchCaller>,
}

/// The arguments of the partition workloads' calls, built before the first sample so that
/// samples time the calls, not the making of their arguments (names are still copied into
/// each request, as a client would).
#[derive(Default)]
struct PartitionQueries {
    partition_count: u64,
    leading_key_filter: String,
    /// The same range as Hive's serialised expression.
    leading_key_expression: Vec<u8>,
    second_key_filter: String,
    by_names: Vec<String>,
    first_day: String,
    end_day: String,
    /// The scratch table of `add_partitions`, once prepared.
    add_table: Option<Table>,
    /// The `add_partitions` requests, encoded ahead of the samples that send them.
    add_requests: Option<EncodedAdds>,
    /// Every partition's name, for the statistics reads.
    all_names: Vec<String>,
    /// Every partition's statistics, for `stats_write`.
    all_stats: Vec<ColumnStatistics>,
}

impl PartitionQueries {
    /// `get_partitions_by_expr` of the leading-key range, as Hive's planner asks it.
    fn leading_key_request(&self, database: String, table: String) -> PartitionsByExprRequest {
        PartitionsByExprRequest {
            db_name: database,
            tbl_name: table,
            expr: self.leading_key_expression.clone(),
            default_partition_name: Some(DEFAULT_PARTITION_NAME.to_string()),
            max_parts: Some(-1),
            cat_name: None,
            order: None,
            valid_write_id_list: None,
            id: None,
            skip_column_schema_for_partition: None,
            include_param_key_pattern: None,
            exclude_param_key_pattern: None,
        }
    }

    fn new(workload: Workload, partition_count: u64) -> PartitionQueries {
        let (first, end) = selected_days(partition_count);
        PartitionQueries {
            partition_count,
            leading_key_filter: leading_key_filter(partition_count),
            leading_key_expression: string_range_expression(
                "ds",
                &day_string(first),
                &day_string(end),
            ),
            second_key_filter: second_key_filter(),
            by_names: if workload == Workload::GetPartitionsByNames {
                by_names_names(partition_count)
            } else {
                Vec::new()
            },
            first_day: day_string(first),
            end_day: day_string(end),
            add_table: None,
            add_requests: None,
            all_names: if matches!(
                workload,
                Workload::StatsAggregate | Workload::StatsPartitions
            ) {
                all_names(partition_count)
            } else {
                Vec::new()
            },
            all_stats: Vec::new(),
        }
    }
}

impl Caller {
    /// A caller for connection `connection` of a measurement of `workload` on `target`.
    ///
    /// # Panics
    /// If the target has no read table, or a partition workload has no partition count.
    pub fn new(workload: Workload, target: &Target, connection: usize) -> Caller {
        assert!(
            target.read_table_count > 0,
            "a run has at least one read table"
        );
        let queries = match target.partition_count {
            Some(partition_count) if workload.is_partitioned() => {
                assert!(partition_count > 0, "a partitioned table has a partition");
                PartitionQueries::new(workload, partition_count)
            }
            _ => {
                assert!(
                    !workload.is_partitioned(),
                    "{} needs a size",
                    workload.name()
                );
                PartitionQueries::default()
            }
        };
        let hmsbench = workload.is_hmsbench().then(|| {
            let size = target.object_count.filter(|_| workload.is_sized());
            assert!(
                size.is_some() == workload.is_sized(),
                "{} needs a size, and only it",
                workload.name()
            );
            HmsbenchCaller::new(workload, &target.database, size.unwrap_or(1))
                .with_partition_parameters(target.partition_parameter_count)
        });
        Caller {
            workload,
            target: target.clone(),
            connection,
            sample: 0,
            queries,
            hmsbench,
        }
    }

    /// Makes what the samples need, unmeasured: the scratch table of `add_partitions` and its
    /// requests, encoded, with a connection of their own to `endpoint` (whose replies count in
    /// `reply_bytes`); the tables of an hmsbench workload.
    pub fn prepare(
        &mut self,
        client: &mut Client,
        endpoint: &Endpoint,
        reply_bytes: &ReplyBytes,
    ) -> thrift::Result<()> {
        if let Some(hmsbench) = &mut self.hmsbench {
            return hmsbench.prepare(client);
        }
        if self.workload == Workload::StatsUpdate {
            let database = &self.target.database;
            self.queries.all_stats = (0..self.queries.partition_count)
                .map(|index| {
                    partition_column_stats_of(
                        database,
                        PARTITIONED_TABLE,
                        index,
                        STATS_UPDATE_COLUMN_COUNT,
                    )
                })
                .collect();
        }
        if self.workload == Workload::StatsWrite {
            // Built before the samples, so that they time the calls, not the making of them.
            let database = &self.target.database;
            self.queries.all_stats = (0..self.queries.partition_count)
                .map(|index| {
                    partition_column_stats_of(
                        database,
                        STATS_TABLE,
                        index,
                        STATS_TABLE_COLUMN_COUNT,
                    )
                })
                .collect();
        }
        if self.workload != Workload::AddPartitions {
            return Ok(());
        }
        let serial = next_scratch_serial();
        let table = partitioned_table(&self.target.database, &add_table_name(serial));
        client.create_table(table.clone())?;
        let connection = EncodedCallConnection::connect(endpoint, reply_bytes.clone())
            .map_err(|error| thrift::Error::from(std::io::Error::other(error.to_string())))?;
        let mut requests = EncodedAdds::new(connection, self.queries.partition_count);
        requests.top_up(&table)?;
        self.queries.add_table = Some(table);
        self.queries.add_requests = Some(requests);
        Ok(())
    }

    /// Makes what the next sample needs, unmeasured (hmsbench's `pre`): e.g. the table that
    /// `dropTable` drops.
    pub fn before_sample(&mut self, client: &mut Client) -> thrift::Result<()> {
        if let (Some(requests), Some(table)) =
            (&mut self.queries.add_requests, &self.queries.add_table)
        {
            requests.top_up(table)?;
        }
        match &mut self.hmsbench {
            Some(hmsbench) => hmsbench.before_sample(client),
            None => Ok(()),
        }
    }

    /// Undoes what the sample did, unmeasured (hmsbench's `post`): e.g. drops the table that
    /// `createTable` created.
    pub fn after_sample(&mut self, client: &mut Client) -> thrift::Result<()> {
        match &mut self.hmsbench {
            Some(hmsbench) => hmsbench.after_sample(client),
            None => Ok(()),
        }
    }

    /// Removes what `prepare` made outside the bench database, unmeasured, once the
    /// measurement is over (the database's own content goes with it at teardown).
    pub fn finish(&mut self, client: &mut Client) -> thrift::Result<()> {
        match &mut self.hmsbench {
            Some(hmsbench) => hmsbench.finish(client),
            None => Ok(()),
        }
    }

    /// A whole unmeasured sample: before, call, after (a warm-up).
    pub fn warm_up(&mut self, client: &mut Client) -> thrift::Result<()> {
        self.before_sample(client)?;
        self.call(client)?;
        self.after_sample(client)
    }

    /// Makes one sample's calls.
    pub fn call(&mut self, client: &mut Client) -> thrift::Result<SampleCount> {
        self.sample += 1;
        if let Some(hmsbench) = &mut self.hmsbench {
            return hmsbench.call(client);
        }
        let database = self.target.database.clone();
        match self.workload {
            Workload::GetTable => client
                .get_table(database, self.next_read_table())
                .map(|_| SampleCount::calls(1)),
            Workload::GetTableReq => client
                .get_table_req(table_request(database, self.next_read_table()))
                .map(|_| SampleCount::calls(1)),
            Workload::GetAllDatabases => client.get_all_databases().map(|_| SampleCount::calls(1)),
            Workload::GetTables => client
                .get_tables(database, "*".to_string())
                .map(|_| SampleCount::calls(1)),
            Workload::CreateDropTable => {
                let name = scratch_table_name(self.connection);
                client.create_table(bench_table(&database, &name))?;
                client.drop_table(database, name, true)?;
                Ok(SampleCount::calls(2))
            }
            Workload::PyicebergCommit => self.commit(client, database),
            _ => self.call_partitions(client, database),
        }
    }

    /// One sample of a partition workload.
    fn call_partitions(
        &mut self,
        client: &mut Client,
        database: String,
    ) -> thrift::Result<SampleCount> {
        let table = PARTITIONED_TABLE.to_string();
        let queries = &self.queries;
        match self.workload {
            Workload::AddPartitions => self.add_partitions(),
            Workload::GetPartitionNames => client
                .get_partition_names(database, table, -1)
                .map(|names| SampleCount::listed(1, names.len())),
            Workload::GetPartitions => client
                .get_partitions(database, table, -1)
                .map(|partitions| SampleCount::listed(1, partitions.len())),
            Workload::GetPartitionsByFilterLeadingKey => client
                .get_partitions_by_filter(database, table, queries.leading_key_filter.clone(), -1)
                .map(|partitions| SampleCount::listed(1, partitions.len())),
            Workload::GetPartitionsByExprLeadingKey => client
                .get_partitions_by_expr(queries.leading_key_request(database, table))
                .map(|result| SampleCount::listed(1, result.partitions.len())),
            Workload::GetPartitionsByFilterSecondKey => client
                .get_partitions_by_filter(database, table, queries.second_key_filter.clone(), -1)
                .map(|partitions| SampleCount::listed(1, partitions.len())),
            Workload::GetPartitionsByNames => client
                .get_partitions_by_names(database, table, queries.by_names.clone())
                .map(|partitions| SampleCount::listed(1, partitions.len())),
            Workload::TrinoPlan => self.trino_plan(client, database),
            Workload::SparkPlan => {
                client.get_table(database.clone(), table.clone())?;
                let filter = queries.leading_key_filter.clone();
                let partitions = client.get_partitions_by_filter(database, table, filter, -1)?;
                Ok(SampleCount::listed(2, partitions.len()))
            }
            Workload::HivePlan => self.hive_plan(client, database),
            Workload::StatsAggregate => self.stats_aggregate(client, database),
            Workload::StatsPartitions => self.stats_partitions(client, database),
            Workload::StatsWrite => self.stats_write(client),
            Workload::StatsUpdate => self.stats_update(client),
            other => unreachable!("{} is not a partition workload", other.name()),
        }
    }

    /// The next batch of new partitions, sent as encoded before the sample.
    fn add_partitions(&mut self) -> thrift::Result<SampleCount> {
        let Some(requests) = &mut self.queries.add_requests else {
            unreachable!("add_partitions is prepared before its first sample");
        };
        let added = requests.send_next()?;
        Ok(SampleCount::listed(1, usize::try_from(added).unwrap_or(0)))
    }

    /// What Trino's Hive connector asks to plan `WHERE ds >= … AND ds < …`.
    fn trino_plan(&self, client: &mut Client, database: String) -> thrift::Result<SampleCount> {
        let table = PARTITIONED_TABLE.to_string();
        client.get_table_req(table_request(database.clone(), table.clone()))?;
        let unbound = vec![String::new(), String::new()];
        let names = client.get_partition_names_ps(database.clone(), table.clone(), unbound, -1)?;
        let (first_day, end_day) = (&self.queries.first_day, &self.queries.end_day);
        let selected: Vec<String> = names
            .into_iter()
            .filter(|name| name_in_days(name, first_day, end_day))
            .collect();
        let mut count = SampleCount::calls(2);
        for batch in selected.chunks(TRINO_BATCH_PARTITION_COUNT) {
            let partitions =
                client.get_partitions_by_names(database.clone(), table.clone(), batch.to_vec())?;
            // Trino reads the column statistics of the partitions it fetched, batch by batch.
            client.get_partitions_statistics_req(PartitionsStatsRequest {
                db_name: database.clone(),
                tbl_name: table.clone(),
                col_names: column_names(),
                part_names: batch.to_vec(),
                cat_name: None,
                valid_write_id_list: None,
                engine: None,
            })?;
            count.call_count += 2;
            count.partition_count += partitions.len() as u64;
        }
        Ok(count)
    }

    /// What Hive's optimiser asks to plan `WHERE ds >= … AND ds < …` with column statistics.
    fn hive_plan(&self, client: &mut Client, database: String) -> thrift::Result<SampleCount> {
        let table = PARTITIONED_TABLE.to_string();
        client.get_table(database.clone(), table.clone())?;
        let request = self
            .queries
            .leading_key_request(database.clone(), table.clone());
        let partitions = client.get_partitions_by_expr(request)?.partitions;
        let names: Vec<String> = partitions
            .iter()
            .filter_map(|partition| match partition.values.as_deref() {
                Some([ds, hr]) => Some(format!("ds={ds}/hr={hr}")),
                _ => None,
            })
            .collect();
        // Only columns with statistics: Hive counts a partition found only if it has
        // statistics for every requested column.
        let aggregate = client.get_aggr_stats_for(PartitionsStatsRequest {
            db_name: database,
            tbl_name: table,
            col_names: stats_column_names(),
            part_names: names,
            cat_name: None,
            valid_write_id_list: None,
            engine: None,
        })?;
        // Every selected partition has statistics (the setup wrote them): an answer covering
        // fewer is a wrong answer, not a fast one.
        if aggregate.parts_found != partitions.len() as i64 {
            return Err(failed_sample(format!(
                "get_aggr_stats_for found statistics for {} of {} partitions",
                aggregate.parts_found,
                partitions.len()
            )));
        }
        Ok(SampleCount::listed(3, partitions.len()))
    }

    /// The statistics request of every partition of the statistics table and its columns.
    fn all_stats_request(&self, database: String) -> PartitionsStatsRequest {
        PartitionsStatsRequest {
            db_name: database,
            tbl_name: STATS_TABLE.to_string(),
            col_names: stats_table_column_names(),
            part_names: self.queries.all_names.clone(),
            cat_name: None,
            valid_write_id_list: None,
            engine: None,
        }
    }

    /// `get_aggr_stats_for` over every partition; all of them have statistics.
    fn stats_aggregate(
        &self,
        client: &mut Client,
        database: String,
    ) -> thrift::Result<SampleCount> {
        let aggregate = client.get_aggr_stats_for(self.all_stats_request(database))?;
        let expected = self.queries.partition_count;
        let columns = aggregate.col_stats.len();
        if aggregate.parts_found != expected as i64 || columns != STATS_TABLE_COLUMN_COUNT {
            return Err(failed_sample(format!(
                "get_aggr_stats_for found {} of {expected} partitions and {columns} of \
                 {STATS_TABLE_COLUMN_COUNT} columns",
                aggregate.parts_found
            )));
        }
        Ok(SampleCount::counted(1, expected))
    }

    /// `get_partitions_statistics_req` of every partition; all of them have statistics.
    fn stats_partitions(
        &self,
        client: &mut Client,
        database: String,
    ) -> thrift::Result<SampleCount> {
        let result = client.get_partitions_statistics_req(self.all_stats_request(database))?;
        let complete = result
            .part_stats
            .values()
            .filter(|objects| objects.len() == STATS_TABLE_COLUMN_COUNT)
            .count();
        let expected = self.queries.partition_count;
        if complete as u64 != expected {
            return Err(failed_sample(format!(
                "get_partitions_statistics_req answered all {STATS_TABLE_COLUMN_COUNT} columns \
                 for {complete} of {expected} partitions"
            )));
        }
        Ok(SampleCount::listed(1, complete))
    }

    /// `set_aggr_stats_for` of the next batch of partitions (wrapping round the table).
    fn stats_write(&self, client: &mut Client) -> thrift::Result<SampleCount> {
        let stats = &self.queries.all_stats;
        let batch = add_batch_partition_count(self.queries.partition_count) as usize;
        let first = ((self.sample - 1) as usize * batch) % stats.len().max(1);
        let col_stats: Vec<ColumnStatistics> = stats
            .iter()
            .cycle()
            .skip(first)
            .take(batch)
            .cloned()
            .collect();
        let request = SetPartitionsStatsRequest::new(col_stats, None, None, None, None);
        if !client.set_aggr_stats_for(request)? {
            return Err(failed_sample(
                "set_aggr_stats_for answered false".to_string(),
            ));
        }
        Ok(SampleCount::counted(1, batch as u64))
    }

    /// One partition's statistics, the next partition each sample (each connection from its
    /// own place).
    fn stats_update(&self, client: &mut Client) -> thrift::Result<SampleCount> {
        let stats = &self.queries.all_stats;
        let index =
            (self.sample as usize - 1).wrapping_add(self.connection * 7919) % stats.len().max(1);
        let Some(partition) = stats.get(index) else {
            return Err(failed_sample(
                "no partition to write statistics of".to_string(),
            ));
        };
        if !client.update_partition_column_statistics(partition.clone())? {
            return Err(failed_sample(
                "update_partition_column_statistics answered false".to_string(),
            ));
        }
        Ok(SampleCount::counted(1, 1))
    }

    /// Round robin over the read tables, each connection starting at its own.
    fn next_read_table(&self) -> String {
        let offset = (self.sample as usize).wrapping_add(self.connection);
        read_table_name(offset % self.target.read_table_count)
    }

    fn commit(&self, client: &mut Client, database: String) -> thrift::Result<SampleCount> {
        let name = commit_table_name(self.connection);
        let (lock_id, lock_calls) = lock_for_commit(client, &database, &name)?;
        let altered = self.alter_for_commit(client, &database, &name);
        // Released whatever the commit did, as PyIceberg does in its `finally`.
        client.unlock(UnlockRequest::new(lock_id))?;
        altered?;
        Ok(SampleCount::calls(lock_calls + 3))
    }

    fn alter_for_commit(
        &self,
        client: &mut Client,
        database: &str,
        name: &str,
    ) -> thrift::Result<()> {
        let mut table = client.get_table(database.to_string(), name.to_string())?;
        let parameters = table.parameters.get_or_insert_with(BTreeMap::new);
        let previous = parameters.remove(METADATA_LOCATION);
        let location = format!(
            "file:/bench/{database}/{name}/metadata/{:05}-{}.metadata.json",
            self.sample, self.connection
        );
        parameters.insert(METADATA_LOCATION.to_string(), location);
        if let Some(previous) = previous {
            parameters.insert(PREVIOUS_METADATA_LOCATION.to_string(), previous);
        }
        let context = EnvironmentContext {
            properties: Some(BTreeMap::from([(
                "DO_NOT_UPDATE_STATS".to_string(),
                "true".to_string(),
            )])),
        };
        client.alter_table_with_environment_context(
            database.to_string(),
            name.to_string(),
            table,
            context,
        )
    }
}

/// The most `check_lock` calls a commit makes while its lock waits (PyIceberg retries a few
/// times, with back-off; here nothing else locks the table, so a wait is an anomaly).
const COMMIT_LOCK_CHECK_COUNT_MAX: u64 = 10;

/// Takes PyIceberg's commit lock on `database.name`; returns its id and the calls it took.
fn lock_for_commit(client: &mut Client, database: &str, name: &str) -> thrift::Result<(i64, u64)> {
    let component = LockComponent::new(
        LockType::EXCLUSIVE,
        LockLevel::TABLE,
        database.to_string(),
        name.to_string(),
        None,
        None,
        true,
        None,
    );
    let request = LockRequest::new(
        vec![component],
        None,
        OWNER.to_string(),
        HOSTNAME.to_string(),
        None,
        None,
        None,
        None,
    );
    let response = client.lock(request)?;
    let (lock_id, mut state, mut calls) = (response.lockid, response.state, 1);
    while state == LockState::WAITING && calls <= COMMIT_LOCK_CHECK_COUNT_MAX {
        std::thread::sleep(std::time::Duration::from_millis(10));
        state = client
            .check_lock(CheckLockRequest::new(lock_id, None, None))?
            .state;
        calls += 1;
    }
    if state != LockState::ACQUIRED {
        // Not left behind: the lock would block the next sample.
        client.unlock(UnlockRequest::new(lock_id))?;
        return Err(failed_sample(format!(
            "the commit lock on {database}.{name} is {state:?} after {calls} calls"
        )));
    }
    Ok((lock_id, calls))
}

/// A sample whose calls all succeeded but whose answers are wrong: it fails its measurement
/// with `message`, as a failed call does.
fn failed_sample(message: String) -> thrift::Error {
    thrift::Error::Application(thrift::ApplicationError::new(
        thrift::ApplicationErrorKind::Unknown,
        message,
    ))
}

/// `get_table_req` of a table, every optional field unset.
fn table_request(database: String, table: String) -> GetTableRequest {
    GetTableRequest {
        db_name: database,
        tbl_name: table,
        capabilities: None,
        cat_name: None,
        valid_write_id_list: None,
        get_column_stats: None,
        processor_capabilities: None,
        processor_identifier: None,
        engine: None,
        id: None,
    }
}
