//! The workloads: what one measured call (one sample) does.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    EnvironmentContext, GetTableRequest, TThriftHiveMetastoreSyncClient,
};

use crate::endpoint::Client;
use crate::fixture::{bench_table, commit_table_name, read_table_name, scratch_table_name};

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
    /// An Iceberg commit as PyIceberg's HiveCatalog makes it, without its lock: `get_table`,
    /// then `alter_table_with_environment_context` swapping `metadata_location`. Each
    /// connection commits to its own table.
    #[value(name = "pyiceberg_commit")]
    PyicebergCommit,
}

/// Every workload, in report order.
pub const ALL_WORKLOADS: [Workload; 6] = [
    Workload::GetTable,
    Workload::GetTableReq,
    Workload::GetAllDatabases,
    Workload::GetTables,
    Workload::CreateDropTable,
    Workload::PyicebergCommit,
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
        }
    }

    /// Whether a sample writes (and so needs its own tables per connection).
    pub fn writes(self) -> bool {
        matches!(self, Workload::CreateDropTable | Workload::PyicebergCommit)
    }
}

/// The Iceberg table property holding the current metadata file.
const METADATA_LOCATION: &str = "metadata_location";
/// The Iceberg table property holding the previous one.
const PREVIOUS_METADATA_LOCATION: &str = "previous_metadata_location";

/// One connection's caller of a workload: knows its tables and counts its samples.
pub struct Caller {
    workload: Workload,
    database: String,
    read_table_count: usize,
    connection: usize,
    sample: u64,
}

impl Caller {
    /// A caller for connection `connection` of a run over `read_table_count` read tables.
    pub fn new(
        workload: Workload,
        database: &str,
        read_table_count: usize,
        connection: usize,
    ) -> Caller {
        assert!(read_table_count > 0, "a run has at least one read table");
        Caller {
            workload,
            database: database.to_string(),
            read_table_count,
            connection,
            sample: 0,
        }
    }

    /// Makes one sample's calls.
    pub fn call(&mut self, client: &mut Client) -> thrift::Result<()> {
        self.sample += 1;
        let database = self.database.clone();
        match self.workload {
            Workload::GetTable => client.get_table(database, self.next_read_table()).map(drop),
            Workload::GetTableReq => {
                let request = GetTableRequest {
                    db_name: database,
                    tbl_name: self.next_read_table(),
                    capabilities: None,
                    cat_name: None,
                    valid_write_id_list: None,
                    get_column_stats: None,
                    processor_capabilities: None,
                    processor_identifier: None,
                    engine: None,
                    id: None,
                };
                client.get_table_req(request).map(drop)
            }
            Workload::GetAllDatabases => client.get_all_databases().map(drop),
            Workload::GetTables => client.get_tables(database, "*".to_string()).map(drop),
            Workload::CreateDropTable => {
                let name = scratch_table_name(self.connection);
                client.create_table(bench_table(&database, &name))?;
                client.drop_table(database, name, true)
            }
            Workload::PyicebergCommit => self.commit(client, database),
        }
    }

    /// Round robin over the read tables, each connection starting at its own.
    fn next_read_table(&self) -> String {
        let offset = (self.sample as usize).wrapping_add(self.connection);
        read_table_name(offset % self.read_table_count)
    }

    fn commit(&self, client: &mut Client, database: String) -> thrift::Result<()> {
        let name = commit_table_name(self.connection);
        let mut table = client.get_table(database.clone(), name.clone())?;
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
        client.alter_table_with_environment_context(database, name, table, context)
    }
}
