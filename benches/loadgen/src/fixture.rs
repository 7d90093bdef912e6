//! The data a run sets up and removes: one database, created by bench and marked so, with
//! the tables its workloads read and write, among them the partitioned table, grown to each
//! size the partition workloads are measured at. Bench never touches anything else: a
//! database of the same name that lacks the mark makes the run refuse to start.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    ColumnStatistics, Database, FieldSchema, NoSuchObjectException, Partition, SerDeInfo,
    SetPartitionsStatsRequest, StorageDescriptor, TThriftHiveMetastoreSyncClient, Table,
};

use crate::endpoint::{Client, Endpoint};
use crate::error::Error;
use crate::hmsbench::own_database_pattern;
use crate::hmsbench_data::{self, HMSBENCH_FILTER_TABLE, HMSBENCH_TABLE};
use crate::partition_table::{
    add_batch_partition_count, partition, partition_column_stats, partition_column_stats_of,
    partitioned_table, selected_partitions, PARTITIONED_TABLE, STATS_TABLE,
    STATS_TABLE_COLUMN_COUNT,
};
use crate::progress::Progress;
use crate::workload::SharedTable;

/// The database a run uses unless told otherwise.
pub const DEFAULT_DATABASE: &str = "hivestore_bench";
/// The database parameter that marks a database as created by bench.
pub const MARKER_PARAMETER: &str = "hivestore.bench.created_by";
/// Its value.
pub const MARKER_VALUE: &str = "hivestore bench";
/// The owner of everything bench creates.
pub const OWNER: &str = "hivestore-bench";
/// The host name the transactions and locks bench opens are for.
pub const HOSTNAME: &str = "localhost";
/// Columns of every bench table: a typical wide-ish fact table.
pub const COLUMN_COUNT: usize = 20;
/// The column types, cycled through.
pub(crate) const COLUMN_TYPES: [&str; 10] = [
    "bigint",
    "string",
    "int",
    "double",
    "timestamp",
    "decimal(18,2)",
    "boolean",
    "date",
    "array<string>",
    "map<string,int>",
];

/// The name of read-only table `index` (`get_table`, `get_tables`).
pub fn read_table_name(index: usize) -> String {
    format!("bench_table_{index}")
}

/// The table connection `connection` commits to (`pyiceberg_commit`).
pub fn commit_table_name(connection: usize) -> String {
    format!("bench_commit_{connection}")
}

/// The table connection `connection` creates and drops (`create_drop_table`).
pub fn scratch_table_name(connection: usize) -> String {
    format!("bench_scratch_{connection}")
}

/// The names of a bench table's columns, in order.
pub fn column_names() -> Vec<String> {
    (0..COLUMN_COUNT)
        .map(|index| format!("c{index:02}"))
        .collect()
}

/// A bench table as a Hive client creates it: 20 columns, partitioned by `ds`, Parquet, the
/// location left to the server.
pub fn bench_table(database: &str, name: &str) -> Table {
    let cols = column_names()
        .iter()
        .enumerate()
        .map(|(index, name)| column(name, COLUMN_TYPES[index % COLUMN_TYPES.len()]))
        .collect();
    let serde_info = SerDeInfo {
        name: Some(name.to_string()),
        serialization_lib: Some(
            "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe".to_string(),
        ),
        parameters: Some(BTreeMap::from([(
            "serialization.format".to_string(),
            "1".to_string(),
        )])),
        description: None,
        serializer_class: None,
        deserializer_class: None,
        serde_type: None,
    };
    let sd = StorageDescriptor {
        cols: Some(cols),
        location: None,
        input_format: Some(
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat".to_string(),
        ),
        output_format: Some(
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat".to_string(),
        ),
        compressed: Some(false),
        num_buckets: Some(-1),
        serde_info: Some(serde_info),
        bucket_cols: Some(Vec::new()),
        sort_cols: Some(Vec::new()),
        parameters: Some(BTreeMap::new()),
        skewed_info: None,
        stored_as_sub_directories: Some(false),
    };
    Table {
        table_name: Some(name.to_string()),
        db_name: Some(database.to_string()),
        owner: Some(OWNER.to_string()),
        sd: Some(sd),
        partition_keys: Some(vec![column("ds", "string")]),
        parameters: Some(BTreeMap::from([
            ("comment".to_string(), "hivestore bench table".to_string()),
            ("numFiles".to_string(), "0".to_string()),
        ])),
        table_type: Some("MANAGED_TABLE".to_string()),
        ..unset_table()
    }
}

/// A table with every field unset. The generated `Default` is no such thing: it fills
/// optional fields with empty strings and zeros, which a server takes as values (Hive: "Can
/// not create a Path from an empty string").
fn unset_table() -> Table {
    Table {
        table_name: None,
        db_name: None,
        owner: None,
        create_time: None,
        last_access_time: None,
        retention: None,
        sd: None,
        partition_keys: None,
        parameters: None,
        view_original_text: None,
        view_expanded_text: None,
        table_type: None,
        privileges: None,
        temporary: None,
        rewrite_enabled: None,
        creation_metadata: None,
        cat_name: None,
        owner_type: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        access_type: None,
        required_read_capabilities: None,
        required_write_capabilities: None,
        id: None,
        file_metadata: None,
        dictionary: None,
        txn_id: None,
    }
}

/// A database as a client creates it: a name, a description, parameters and an owner; the
/// location left to the server.
pub fn new_database(name: &str, parameters: BTreeMap<String, String>) -> Database {
    Database {
        name: Some(name.to_string()),
        description: Some("created by hivestore bench; dropped when the run ends".to_string()),
        location_uri: None,
        parameters: Some(parameters),
        privileges: None,
        owner_name: Some(OWNER.to_string()),
        owner_type: None,
        catalog_name: None,
        create_time: None,
        managed_location_uri: None,
        type_: None,
        connector_name: None,
        remote_dbname: None,
    }
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_name.to_string()),
        comment: None,
    }
}

/// What a run needs in its database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixtureShape {
    /// Read-only tables (`bench_table_<i>`).
    pub read_table_count: usize,
    /// Tables to commit to, one per connection (`bench_commit_<k>`).
    pub commit_table_count: usize,
}

/// The bench database on one endpoint, set up and not yet torn down.
pub struct Fixture {
    endpoint: Endpoint,
    database: String,
    /// Partitions of each shared table created so far.
    partition_counts: BTreeMap<SharedTable, u64>,
    /// The table size each shared table's statistics were last written for.
    stats_sizes: BTreeMap<SharedTable, u64>,
}

fn call_error(endpoint: &Endpoint, call: String) -> impl FnOnce(thrift::Error) -> Error + '_ {
    move |source| Error::Call {
        endpoint: endpoint.uri.clone(),
        call,
        source,
    }
}

/// Whether the error is the declared "no such object" of a metastore.
pub fn is_no_such_object(error: &thrift::Error) -> bool {
    matches!(error, thrift::Error::User(inner) if inner.downcast_ref::<NoSuchObjectException>().is_some())
}

/// The most partitions one `set_aggr_stats_for` call of the setup carries.
const STATS_BATCH_PARTITION_COUNT: u64 = 500;

impl Fixture {
    /// Creates the database (after removing a previous run's leftover, which carries the
    /// mark) and the tables of `shape`. Refuses a database bench did not create.
    pub fn set_up(
        client: &mut Client,
        endpoint: &Endpoint,
        database: &str,
        shape: FixtureShape,
    ) -> Result<Fixture, Error> {
        let fixture = Fixture {
            endpoint: endpoint.clone(),
            database: database.to_string(),
            partition_counts: BTreeMap::new(),
            stats_sizes: BTreeMap::new(),
        };
        if fixture.exists_and_is_ours(client)? {
            tracing::warn!(database, "removing a previous bench run's database");
            fixture.drop_database(client)?;
        }
        fixture.drop_own_databases(client)?;
        let marker = BTreeMap::from([(MARKER_PARAMETER.to_string(), MARKER_VALUE.to_string())]);
        let marked = new_database(database, marker);
        client
            .create_database(marked)
            .map_err(call_error(endpoint, format!("create_database {database}")))?;
        if let Err(error) = fixture.create_tables(client, shape) {
            // Leave nothing half made; the error that stopped the setup is the one to report.
            let _ = fixture.drop_database(client);
            return Err(error);
        }
        Ok(fixture)
    }

    fn create_tables(&self, client: &mut Client, shape: FixtureShape) -> Result<(), Error> {
        let database = &self.database;
        let names = (0..shape.read_table_count)
            .map(read_table_name)
            .chain((0..shape.commit_table_count).map(commit_table_name));
        for name in names {
            let call = format!("create_table {database}.{name}");
            client
                .create_table(bench_table(database, &name))
                .map_err(call_error(&self.endpoint, call))?;
        }
        Ok(())
    }

    /// The database's name.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Partitions of bench's partitioned table, if it was created.
    pub fn partition_count(&self) -> Option<u64> {
        self.shared_partition_count(SharedTable::Bench)
    }

    /// Partitions of a shared table, if it was created.
    pub fn shared_partition_count(&self, shared: SharedTable) -> Option<u64> {
        self.partition_counts.get(&shared).copied()
    }

    /// Grows bench's partitioned table to `partition_count` partitions; see [`Fixture::grow`].
    pub fn grow_partitioned_table(
        &mut self,
        client: &mut Client,
        partition_count: u64,
    ) -> Result<(), Error> {
        self.grow(client, SharedTable::Bench, partition_count)
    }

    /// Grows a shared table (creating it first) to `partition_count` partitions with
    /// `add_partitions` of 1,000 at a time, showing progress on standard error. A table that
    /// is as big already stays as it is. Partial growth stays too, and is counted.
    pub fn grow(
        &mut self,
        client: &mut Client,
        shared: SharedTable,
        partition_count: u64,
    ) -> Result<(), Error> {
        let database = self.database.clone();
        let table = shared_table(&database, shared);
        let name = table.table_name.clone().unwrap_or_default();
        if !self.partition_counts.contains_key(&shared) {
            let call = format!("create_table {database}.{name}");
            client
                .create_table(table.clone())
                .map_err(call_error(&self.endpoint, call))?;
            self.partition_counts.insert(shared, 0);
        }
        let mut done = self.shared_partition_count(shared).unwrap_or(0);
        if done >= partition_count {
            return Ok(());
        }
        let what = format!(
            "adding partitions to {database}.{name} on {}",
            self.endpoint.uri
        );
        let mut progress = Progress::start(what, done, partition_count);
        let batch = add_batch_partition_count(partition_count);
        while done < partition_count {
            let end = partition_count.min(done + batch);
            let partitions = (done..end)
                .map(|index| shared_partition(&table, shared, index))
                .collect();
            let call = format!("add_partitions {database}.{name} [{done}, {end})");
            client
                .add_partitions(partitions)
                .map_err(call_error(&self.endpoint, call))?;
            done = end;
            self.partition_counts.insert(shared, done);
            progress.update(done);
        }
        progress.finish(done);
        Ok(())
    }

    /// Writes the column statistics the workloads on a shared table of `partition_count`
    /// partitions read, with `set_aggr_stats_for`: for bench's table, its 20 columns (those
    /// of a type with statistics) on the partitions the planners select; for the statistics
    /// table, its 5 columns with statistics on every partition; for hmsbench's, column `name`
    /// on every partition. Nothing is written twice for one size.
    pub fn write_stats(
        &mut self,
        client: &mut Client,
        shared: SharedTable,
        partition_count: u64,
    ) -> Result<(), Error> {
        let written = self.stats_sizes.get(&shared).copied();
        if written == Some(partition_count) {
            return Ok(());
        }
        let indexes = match shared {
            SharedTable::Bench => selected_partitions(partition_count),
            // Statistics of a smaller size stay valid for a bigger one.
            _ => written.unwrap_or(0).min(partition_count)..partition_count,
        };
        let database = self.database.clone();
        let mut first = indexes.start;
        while first < indexes.end {
            let end = indexes.end.min(first + STATS_BATCH_PARTITION_COUNT);
            let col_stats = (first..end)
                .filter_map(|index| shared_partition_stats(&database, shared, index))
                .collect();
            let call = format!("set_aggr_stats_for {database} partitions [{first}, {end})");
            let request = SetPartitionsStatsRequest::new(col_stats, None, None, None, None);
            client
                .set_aggr_stats_for(request)
                .map_err(call_error(&self.endpoint, call))?;
            first = end;
        }
        self.stats_sizes.insert(shared, partition_count);
        Ok(())
    }

    /// Drops the databases of a previous run's hmsbench callers (`listTables.N`,
    /// `dropDatabase.N`) that a failure left behind: those that carry the mark.
    fn drop_own_databases(&self, client: &mut Client) -> Result<(), Error> {
        let pattern = own_database_pattern(&self.database);
        let names = client.get_databases(pattern.clone()).map_err(call_error(
            &self.endpoint,
            format!("get_databases {pattern}"),
        ))?;
        for name in names {
            let leftover = Fixture {
                endpoint: self.endpoint.clone(),
                database: name,
                partition_counts: BTreeMap::new(),
                stats_sizes: BTreeMap::new(),
            };
            if leftover.exists_and_is_ours(client).unwrap_or(false) {
                leftover.drop_database(client)?;
            }
        }
        Ok(())
    }

    /// Whether the database exists with bench's mark; an error if it exists without it.
    fn exists_and_is_ours(&self, client: &mut Client) -> Result<bool, Error> {
        let database = match client.get_database(self.database.clone()) {
            Ok(database) => database,
            Err(error) if is_no_such_object(&error) => return Ok(false),
            Err(error) => {
                let call = format!("get_database {}", self.database);
                return Err(call_error(&self.endpoint, call)(error));
            }
        };
        let marked = database
            .parameters
            .as_ref()
            .and_then(|parameters| parameters.get(MARKER_PARAMETER))
            .is_some_and(|value| value == MARKER_VALUE);
        if marked {
            Ok(true)
        } else {
            Err(Error::NotOurs {
                endpoint: self.endpoint.uri.clone(),
                database: self.database.clone(),
            })
        }
    }

    fn drop_database(&self, client: &mut Client) -> Result<(), Error> {
        client
            .drop_database(self.database.clone(), true, true)
            .map_err(call_error(
                &self.endpoint,
                format!("drop_database {} (cascade)", self.database),
            ))
    }

    /// Drops the database with everything in it, after checking it still carries the mark,
    /// and what hmsbench callers left beside it.
    pub fn tear_down(self, client: &mut Client) -> Result<(), Error> {
        if self.exists_and_is_ours(client)? {
            self.drop_database(client)?;
        }
        self.drop_own_databases(client)
    }
}

/// A shared table as created, without partitions.
fn shared_table(database: &str, shared: SharedTable) -> Table {
    match shared {
        SharedTable::Bench => partitioned_table(database, PARTITIONED_TABLE),
        SharedTable::Stats => partitioned_table(database, STATS_TABLE),
        SharedTable::Hmsbench => hmsbench_data::partitioned_table(database, HMSBENCH_TABLE),
        SharedTable::HmsbenchFilter => hmsbench_data::filter_table(database, HMSBENCH_FILTER_TABLE),
    }
}

/// Partition `index` of a shared table.
fn shared_partition(table: &Table, shared: SharedTable, index: u64) -> Partition {
    match shared {
        SharedTable::Bench | SharedTable::Stats => partition(table, index),
        SharedTable::Hmsbench => hmsbench_data::partition(table, index),
        SharedTable::HmsbenchFilter => hmsbench_data::filter_partition(table, index),
    }
}

/// The statistics of partition `index` of a shared table, if it has any.
fn shared_partition_stats(
    database: &str,
    shared: SharedTable,
    index: u64,
) -> Option<ColumnStatistics> {
    match shared {
        SharedTable::Bench => Some(partition_column_stats(database, PARTITIONED_TABLE, index)),
        SharedTable::Stats => Some(partition_column_stats_of(
            database,
            STATS_TABLE,
            index,
            STATS_TABLE_COLUMN_COUNT,
        )),
        SharedTable::Hmsbench => Some(hmsbench_data::partition_stats(
            database,
            HMSBENCH_TABLE,
            index,
        )),
        SharedTable::HmsbenchFilter => None,
    }
}
