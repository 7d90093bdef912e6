//! hmsbench's benchmarks as one connection's caller: what each makes before a sample
//! (unmeasured, hmsbench's `pre`), the calls it times, and what it undoes after (`post`).
//! Shapes and names follow Apache's `hmsbench` (see [`crate::hmsbench_data`]); the reads use
//! the tables the run shares between connections, everything else objects of the caller's own,
//! named after a serial number so that no two callers of a run collide.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    AbortTxnsRequest, AllocateTableWriteIdsRequest, CommitTxnRequest, DataOperationType,
    DropPartitionsRequest, FieldSchema, GetTableRequest, GetValidWriteIdsRequest, LockComponent,
    LockLevel, LockRequest, LockType, OpenTxnRequest, PartitionsStatsRequest, RequestPartsSpec,
    TThriftHiveMetastoreSyncClient, Table,
};

use crate::endpoint::Client;
use crate::fixture::{new_database, HOSTNAME, MARKER_PARAMETER, MARKER_VALUE, OWNER};
use crate::hmsbench_data::{
    partition, partition_names, partition_stats, partition_with_parameters, partitioned_table,
    plain_table, tmp_table_name, FILTER_MULTI_AND, FILTER_MULTI_OR, FILTER_SIMPLE,
    HMSBENCH_FILTER_TABLE, HMSBENCH_TABLE, PARTIAL_SPEC, STATS_COLUMN,
};
use crate::partition_table::ADD_BATCH_PARTITION_COUNT_MAX;
use crate::workload::{next_scratch_serial, SampleCount, Workload};

/// Partitions per table of a `lock` request (hmsbench's `nPartitions`).
pub const LOCK_PARTITIONS_PER_TABLE: u64 = 10;
/// The table `allocateTableWriteIds` allocates on (hmsbench's `tmp_table`).
const WRITE_ID_TABLE: &str = "tmp_table";

/// The suffix of the databases of `listTables.N` and `dropDatabase.N`: they hold exactly the
/// caller's N tables, as in hmsbench. Marked as bench's, and removed with the bench database.
pub fn own_database_name(database: &str, serial: u64) -> String {
    format!("{database}_hms{serial}")
}

/// The pattern (`get_databases`) that finds every such database of `database`.
pub fn own_database_pattern(database: &str) -> String {
    format!("{database}_hms*")
}

/// One connection's state for an hmsbench workload.
pub(crate) struct HmsbenchCaller {
    workload: Workload,
    database: String,
    /// hmsbench's `N` (1 for the benchmarks without one).
    size: u64,
    /// The caller's own table or database is named after it.
    serial: u64,
    /// The caller's own table, once created (and, for `renameTable`, as read back).
    table: Option<Table>,
    /// Transactions opened before the sample (or by it), closed after.
    txn_ids: Vec<i64>,
    /// Samples made, for values that change from one to the next.
    sample: u64,
    /// The transaction snapshot `getValidWriteIds` sends.
    valid_txn_list: String,
    /// hmsbench's `--params`: parameters on each partition of the drop-table benchmarks.
    partition_parameter_count: u64,
}

impl HmsbenchCaller {
    pub(crate) fn new(workload: Workload, database: &str, size: u64) -> HmsbenchCaller {
        assert!(workload.is_hmsbench(), "{} is bench's own", workload.name());
        assert!(size > 0, "hmsbench sizes are positive");
        HmsbenchCaller {
            workload,
            database: database.to_string(),
            size,
            serial: next_scratch_serial(),
            table: None,
            txn_ids: Vec::new(),
            sample: 0,
            valid_txn_list: String::new(),
            partition_parameter_count: 0,
        }
    }

    /// Gives each partition the drop-table benchmarks add `count` parameters, as hmsbench's
    /// `--params` does.
    pub(crate) fn with_partition_parameters(mut self, count: u64) -> HmsbenchCaller {
        self.partition_parameter_count = count;
        self
    }

    fn own_table_name(&self) -> String {
        format!("hmsbench_{}", self.serial)
    }

    fn own_database(&self) -> String {
        own_database_name(&self.database, self.serial)
    }

    /// What every sample of the caller needs, made once.
    pub(crate) fn prepare(&mut self, client: &mut Client) -> thrift::Result<()> {
        let name = self.own_table_name();
        match self.workload {
            Workload::HmsbenchGetTable
            | Workload::AddPartition
            | Workload::HmsbenchAddPartitions
            | Workload::DropPartition
            | Workload::DropPartitions
            | Workload::AlterPartitions => {
                self.create_own_table(client, partitioned_table(&self.database, &name))
            }
            Workload::RenameTable => {
                self.create_own_table(client, partitioned_table(&self.database, &name))?;
                self.add_own_partitions(client)?;
                self.table = Some(client.get_table(self.database.clone(), name)?);
                Ok(())
            }
            Workload::ListTables => {
                create_database_of_tables(client, &self.own_database(), self.size)
            }
            Workload::GetValidWriteIds => self.read_snapshot(client),
            _ => Ok(()),
        }
    }

    fn create_own_table(&mut self, client: &mut Client, table: Table) -> thrift::Result<()> {
        client.create_table(table.clone())?;
        self.table = Some(table);
        Ok(())
    }

    /// Adds the caller's N partitions to its table, 1,000 per call.
    fn add_own_partitions(&self, client: &mut Client) -> thrift::Result<()> {
        let Some(table) = &self.table else {
            unreachable!("the caller's table is created before its partitions are added");
        };
        // hmsbench gives only the drop-table benchmarks' partitions its `--params`.
        let parameter_count = match self.workload {
            Workload::DropTableWithPartitions | Workload::DropTableMetaOnlyWithPartitions => {
                self.partition_parameter_count
            }
            _ => 0,
        };
        let mut done = 0;
        while done < self.size {
            let end = self.size.min(done + ADD_BATCH_PARTITION_COUNT_MAX);
            let batch = (done..end)
                .map(|index| partition_with_parameters(table, index, parameter_count))
                .collect();
            client.add_partitions(batch)?;
            done = end;
        }
        Ok(())
    }

    /// hmsbench's `pre`: what the next sample consumes.
    pub(crate) fn before_sample(&mut self, client: &mut Client) -> thrift::Result<()> {
        let name = self.own_table_name();
        match self.workload {
            Workload::DropTable => {
                self.create_own_table(client, plain_table(&self.database, &name))
            }
            Workload::DropTableWithPartitions | Workload::DropTableMetaOnlyWithPartitions => {
                self.create_own_table(client, partitioned_table(&self.database, &name))?;
                self.add_own_partitions(client)
            }
            Workload::DropPartition | Workload::DropPartitions | Workload::AlterPartitions => {
                self.add_own_partitions(client)
            }
            Workload::DropDatabase => {
                create_database_of_tables(client, &self.own_database(), self.size)
            }
            Workload::CommitTxn | Workload::Lock => self.open_txns(client, 1),
            Workload::AbortTxns | Workload::AllocateTableWriteIds => {
                self.open_txns(client, self.size)
            }
            _ => Ok(()),
        }
    }

    /// hmsbench's `post`: undoes the sample, so that the next starts from the same state.
    pub(crate) fn after_sample(&mut self, client: &mut Client) -> thrift::Result<()> {
        match self.workload {
            Workload::CreateTable => {
                client.drop_table(self.database.clone(), self.own_table_name(), true)
            }
            Workload::AddPartition
            | Workload::HmsbenchAddPartitions
            | Workload::AlterPartitions => {
                // Dropping the table and making it again drops every partition in one call.
                client.drop_table(self.database.clone(), self.own_table_name(), true)?;
                let table = partitioned_table(&self.database, &self.own_table_name());
                self.create_own_table(client, table)
            }
            Workload::OpenTxns | Workload::Lock | Workload::AllocateTableWriteIds => {
                self.abort_txns(client)
            }
            _ => Ok(()),
        }
    }

    /// Drops what `prepare` made outside the bench database.
    pub(crate) fn finish(&mut self, client: &mut Client) -> thrift::Result<()> {
        if self.workload == Workload::ListTables {
            client.drop_database(self.own_database(), true, true)?;
        }
        Ok(())
    }

    fn open_txns(&mut self, client: &mut Client, count: u64) -> thrift::Result<()> {
        let count = i32::try_from(count).unwrap_or(i32::MAX);
        let request = OpenTxnRequest::new(
            count,
            OWNER.to_string(),
            HOSTNAME.to_string(),
            None,
            None,
            None,
            None,
        );
        self.txn_ids = client.open_txns(request)?.txn_ids;
        Ok(())
    }

    fn abort_txns(&mut self, client: &mut Client) -> thrift::Result<()> {
        let txn_ids = std::mem::take(&mut self.txn_ids);
        if txn_ids.is_empty() {
            return Ok(());
        }
        client.abort_txns(AbortTxnsRequest::new(txn_ids, None))
    }

    /// The timed calls of one sample.
    pub(crate) fn call(&mut self, client: &mut Client) -> thrift::Result<SampleCount> {
        self.sample += 1;
        match self.workload {
            Workload::GetNid => client
                .get_current_notification_event_id()
                .map(|_| SampleCount::calls(1)),
            Workload::ListDatabases => client.get_all_databases().map(|_| SampleCount::calls(1)),
            Workload::ListTables => client
                .get_all_tables(self.own_database())
                .map(|_| SampleCount::calls(1)),
            Workload::HmsbenchGetTable => client
                .get_table_req(table_request(&self.database, &self.own_table_name()))
                .map(|_| SampleCount::calls(1)),
            Workload::CreateTable => {
                let table = plain_table(&self.database, &self.own_table_name());
                client.create_table(table).map(|()| SampleCount::calls(1))
            }
            Workload::DropTable | Workload::DropTableWithPartitions => {
                self.drop_own_table(client, true)
            }
            Workload::DropTableMetaOnlyWithPartitions => self.drop_own_table(client, false),
            Workload::RenameTable => self.rename_there_and_back(client),
            Workload::DropDatabase => client
                .drop_database(self.own_database(), true, true)
                .map(|()| SampleCount::calls(1)),
            _ => self.call_partitions(client),
        }
    }

    fn drop_own_table(
        &mut self,
        client: &mut Client,
        delete_data: bool,
    ) -> thrift::Result<SampleCount> {
        self.table = None;
        client
            .drop_table(self.database.clone(), self.own_table_name(), delete_data)
            .map(|()| SampleCount::calls(1))
    }

    /// Renames the table and back. Each request carries the location the table has when it
    /// is sent, as a client that read it would: the server then moves a managed table's
    /// directory (and its partitions' locations) to the new name's default, and back.
    fn rename_there_and_back(&mut self, client: &mut Client) -> thrift::Result<SampleCount> {
        let Some(table) = &self.table else {
            unreachable!("renameTable's table is read back in prepare");
        };
        let name = self.own_table_name();
        let renamed = format!("{name}_renamed");
        let location = table.sd.as_ref().and_then(|sd| sd.location.clone());
        let renamed_location = location.as_deref().and_then(|location| {
            let (parent, _) = location.trim_end_matches('/').rsplit_once('/')?;
            Some(format!("{parent}/{renamed}"))
        });
        let there = Table {
            table_name: Some(renamed.clone()),
            ..table.clone()
        };
        let mut back = table.clone();
        if let Some(sd) = back.sd.as_mut() {
            sd.location = renamed_location;
        }
        client.alter_table(self.database.clone(), name, there)?;
        client.alter_table(self.database.clone(), renamed, back)?;
        Ok(SampleCount::counted(2, self.size))
    }

    /// The samples that add, drop, alter or read partitions.
    fn call_partitions(&mut self, client: &mut Client) -> thrift::Result<SampleCount> {
        let database = self.database.clone();
        let (own, shared, filter) = (
            self.own_table_name(),
            HMSBENCH_TABLE.to_string(),
            HMSBENCH_FILTER_TABLE.to_string(),
        );
        match self.workload {
            Workload::AddPartition => self.add_one_by_one(client),
            Workload::HmsbenchAddPartitions => {
                let Some(table) = &self.table else {
                    unreachable!("addPartitions' table is created in prepare");
                };
                let partitions = (0..self.size)
                    .map(|index| partition(table, index))
                    .collect();
                let added = client.add_partitions(partitions)?;
                Ok(SampleCount::counted(1, u64::try_from(added).unwrap_or(0)))
            }
            Workload::DropPartition => {
                let names = client.get_partition_names(database.clone(), own.clone(), -1)?;
                for name in &names {
                    client.drop_partition_by_name(
                        database.clone(),
                        own.clone(),
                        name.clone(),
                        true,
                    )?;
                }
                Ok(SampleCount::counted(
                    1 + names.len() as u64,
                    names.len() as u64,
                ))
            }
            Workload::DropPartitions => {
                let names = client.get_partition_names(database.clone(), own.clone(), -1)?;
                let count = names.len() as u64;
                let request = drop_partitions_request(&database, &own, names);
                client.drop_partitions_req(request)?;
                Ok(SampleCount::counted(2, count))
            }
            Workload::AlterPartitions => self.alter_partitions(client),
            Workload::ListPartitions | Workload::HmsbenchGetPartitions => {
                client.get_partitions(database, shared, -1).map(listed)
            }
            Workload::HmsbenchGetPartitionNames => {
                client.get_partition_names(database, shared, -1).map(listed)
            }
            Workload::HmsbenchGetPartitionsByNames => client
                .get_partitions_by_names(database, shared, partition_names(self.size))
                .map(listed),
            Workload::GetPartitionsByFilterSimple => client
                .get_partitions_by_filter(database, filter, FILTER_SIMPLE.to_string(), -1)
                .map(listed),
            Workload::GetPartitionsByFilterMultiOr => client
                .get_partitions_by_filter(database, filter, FILTER_MULTI_OR.to_string(), -1)
                .map(listed),
            Workload::GetPartitionsByFilterMultiAnd => client
                .get_partitions_by_filter(database, filter, FILTER_MULTI_AND.to_string(), -1)
                .map(listed),
            Workload::GetPartitionsByPs => client
                .get_partitions_ps_with_auth(
                    database,
                    filter,
                    vec![PARTIAL_SPEC.to_string()],
                    -1,
                    OWNER.to_string(),
                    Vec::new(),
                )
                .map(listed),
            _ => self.call_stats_and_txns(client),
        }
    }

    fn add_one_by_one(&self, client: &mut Client) -> thrift::Result<SampleCount> {
        let Some(table) = &self.table else {
            unreachable!("addPartition's table is created in prepare");
        };
        for index in 0..self.size {
            client.add_partition(partition(table, index))?;
        }
        Ok(SampleCount::counted(self.size, self.size))
    }

    /// hmsbench's `alterPartitions`: every partition gets a parameter and a column more.
    fn alter_partitions(&self, client: &mut Client) -> thrift::Result<SampleCount> {
        let (database, own) = (self.database.clone(), self.own_table_name());
        let mut partitions = client.get_partitions(database.clone(), own.clone(), -1)?;
        for partition in &mut partitions {
            partition
                .parameters
                .get_or_insert_with(BTreeMap::new)
                .insert("hmsbench.altered".to_string(), self.sample.to_string());
            if let Some(cols) = partition.sd.as_mut().and_then(|sd| sd.cols.as_mut()) {
                cols.push(FieldSchema {
                    name: Some("altered".to_string()),
                    type_: Some("string".to_string()),
                    comment: None,
                });
            }
        }
        let count = partitions.len() as u64;
        client.alter_partitions(database, own, partitions)?;
        Ok(SampleCount::counted(2, count))
    }

    /// Statistics and the ACID benchmarks.
    fn call_stats_and_txns(&mut self, client: &mut Client) -> thrift::Result<SampleCount> {
        let database = self.database.clone();
        match self.workload {
            Workload::GetPartitionsStat => {
                let request = PartitionsStatsRequest::new(
                    database,
                    HMSBENCH_TABLE.to_string(),
                    vec![STATS_COLUMN.to_string()],
                    partition_names(self.size),
                    None,
                    None,
                    None,
                );
                let reply = client.get_partitions_statistics_req(request)?;
                Ok(SampleCount::counted(1, reply.part_stats.len() as u64))
            }
            Workload::UpdatePartitionsStat => {
                for index in 0..self.size {
                    let stats = partition_stats(&database, HMSBENCH_TABLE, index);
                    client.update_partition_column_statistics(stats)?;
                }
                Ok(SampleCount::counted(self.size, self.size))
            }
            Workload::OpenTxns => {
                self.open_txns(client, self.size)?;
                Ok(SampleCount::calls(1))
            }
            Workload::CommitTxn => {
                let txn_id = self.txn_ids.pop().unwrap_or(0);
                let request = CommitTxnRequest::new(txn_id, None, None, None, None, None, None);
                client.commit_txn(request).map(|()| SampleCount::calls(1))
            }
            Workload::AbortTxns => self.abort_txns(client).map(|()| SampleCount::calls(1)),
            Workload::Lock => {
                let txn_id = self.txn_ids.first().copied();
                let request = lock_request(&database, self.size, txn_id);
                client.lock(request).map(|_| SampleCount::calls(1))
            }
            Workload::GetValidWriteIds => self.valid_write_ids(client),
            Workload::AllocateTableWriteIds => {
                let request = AllocateTableWriteIdsRequest::new(
                    database,
                    WRITE_ID_TABLE.to_string(),
                    self.txn_ids.clone(),
                    None,
                    None,
                    None,
                );
                client
                    .allocate_table_write_ids(request)
                    .map(|_| SampleCount::calls(1))
            }
            other => unreachable!("{} is not an hmsbench workload", other.name()),
        }
    }

    /// `get_valid_write_ids` of N tables, against the snapshot read in `prepare`.
    fn valid_write_ids(&self, client: &mut Client) -> thrift::Result<SampleCount> {
        let names = (0..self.size)
            .map(|index| format!("{}.{}", self.database, tmp_table_name(index)))
            .collect();
        let request = GetValidWriteIdsRequest::new(names, self.valid_txn_list.clone(), None);
        client.get_valid_write_ids(request)?;
        Ok(SampleCount::calls(1))
    }

    /// A transaction snapshot as Hive's client sends it (`<high water mark>:<lowest open>:
    /// <open>:<aborted>`), made by opening and aborting a transaction rather than with
    /// `get_open_txns`, whose reply changed shape after Hive 2.3.
    fn read_snapshot(&mut self, client: &mut Client) -> thrift::Result<()> {
        self.open_txns(client, 1)?;
        let txn_id = self.txn_ids.first().copied().unwrap_or(0);
        self.abort_txns(client)?;
        self.valid_txn_list = format!("{txn_id}:{}::{txn_id}", i64::MAX);
        Ok(())
    }
}

/// One call that listed `items`.
fn listed<T>(items: Vec<T>) -> SampleCount {
    SampleCount::counted(1, items.len() as u64)
}

/// Creates database `name`, marked as bench's, with `count` unpartitioned tables in it.
fn create_database_of_tables(client: &mut Client, name: &str, count: u64) -> thrift::Result<()> {
    let marker = BTreeMap::from([(MARKER_PARAMETER.to_string(), MARKER_VALUE.to_string())]);
    client.create_database(new_database(name, marker))?;
    for index in 0..count {
        client.create_table(plain_table(name, &tmp_table_name(index)))?;
    }
    Ok(())
}

/// `get_table_req` of a table, every optional field unset.
fn table_request(database: &str, table: &str) -> GetTableRequest {
    GetTableRequest {
        db_name: database.to_string(),
        tbl_name: table.to_string(),
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

fn drop_partitions_request(
    database: &str,
    table: &str,
    names: Vec<String>,
) -> DropPartitionsRequest {
    DropPartitionsRequest::new(
        database.to_string(),
        table.to_string(),
        RequestPartsSpec::Names(names),
        true,
        None,
        None,
        None,
        false,
        None,
        None,
    )
}

/// hmsbench's lock: shared reads of `size` partitions, [`LOCK_PARTITIONS_PER_TABLE`] per
/// table, each table with a table-level component too, in transaction `txn_id`.
pub fn lock_request(database: &str, size: u64, txn_id: Option<i64>) -> LockRequest {
    let table_count = size.div_ceil(LOCK_PARTITIONS_PER_TABLE);
    let mut components = Vec::new();
    for table_index in 0..table_count {
        let table = format!("tmp_table_{table_index}");
        let first = table_index * LOCK_PARTITIONS_PER_TABLE;
        let end = size.min(first + LOCK_PARTITIONS_PER_TABLE);
        components.push(shared_read(database, &table, None));
        for index in first..end {
            components.push(shared_read(database, &table, Some(format!("p={index}"))));
        }
    }
    LockRequest::new(
        components,
        txn_id,
        OWNER.to_string(),
        HOSTNAME.to_string(),
        None,
        None,
        None,
        None,
    )
}

fn shared_read(database: &str, table: &str, partition: Option<String>) -> LockComponent {
    let level = if partition.is_some() {
        LockLevel::PARTITION
    } else {
        LockLevel::TABLE
    };
    LockComponent::new(
        LockType::SHARED_READ,
        level,
        database.to_string(),
        table.to_string(),
        partition,
        DataOperationType::SELECT,
        true,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_names_ten_partitions_a_table_and_each_table() {
        let request = lock_request("db", 25, Some(7));
        let tables = request
            .component
            .iter()
            .filter(|component| component.level == LockLevel::TABLE)
            .count();
        assert_eq!(tables, 3);
        assert_eq!(request.component.len(), 25 + 3);
        assert_eq!(request.txnid, Some(7));
    }

    #[test]
    fn own_databases_match_their_pattern() {
        let name = own_database_name("bench", 12);
        assert_eq!(name, "bench_hms12");
        assert!(name.starts_with(own_database_pattern("bench").trim_end_matches('*')));
    }
}
