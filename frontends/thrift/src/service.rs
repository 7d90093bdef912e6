//! The metastore service as one connection sees it: fb303 and the session calls here; the
//! catalog calls in their own modules as they come.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use hivestore_engine::Store;
use hivestore_idl::fb303::FbStatus;
use hivestore_idl::handler::Handler;
use hivestore_idl::hive_metastore as idl;

use crate::calls::tables::AlterTable;
use crate::calls::{
    caches, catalogs, compactions, constraints, databases, functions, locks, notifications,
    partition_listings, partition_specs, partitions, schema_registry, session, stats,
    table_translation, tables, txns, types,
};
use crate::counters::Counters;
use crate::direct::EncodedTables;
use crate::inflight::InflightBytes;

/// The name fb303 `getName` answers.
pub const SERVICE_NAME: &str = "hivestore";
/// The version fb303 `getVersion` answers: hivestore's own.
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// State shared by every connection of one server.
pub struct ServerState {
    /// The catalog.
    store: Store,
    /// When the server started, in seconds since the Unix epoch (fb303 `aliveSince`).
    started_at_seconds: i64,
    /// Call and error counts (fb303 `getCounters`).
    pub counters: Counters,
    /// Options set through fb303 `setOption`; informational only.
    options: Mutex<BTreeMap<String, String>>,
    /// Tables as last encoded for `get_table` (see `direct`).
    encoded_tables: EncodedTables,
    /// Bytes of unfinished requests held by all connections' read buffers.
    pub inflight: Arc<InflightBytes>,
    /// The server's settings that clients may read (`get_config_value`).
    settings: ServerSettings,
}

/// Settings of the server, beside the store's options, that `get_config_value` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerSettings {
    /// How long notification events are kept (`--event-ttl-secs`).
    pub event_ttl: std::time::Duration,
    /// How often expired events are deleted (`--event-clean-interval-secs`).
    pub event_clean_interval: std::time::Duration,
    /// The most partitions one call may fetch whole (`--limit-partition-request`).
    pub limit_partition_request: Option<u32>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            event_ttl: std::time::Duration::from_secs(crate::config::EVENT_TTL_SECS_DEFAULT),
            event_clean_interval: std::time::Duration::from_secs(
                crate::config::EVENT_CLEAN_INTERVAL_SECS_DEFAULT,
            ),
            limit_partition_request: None,
        }
    }
}

impl ServerState {
    /// The catalog.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// State for a server over `store`, starting now.
    pub fn new(store: Store) -> Self {
        let started_at_seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
            });
        ServerState {
            store,
            started_at_seconds,
            counters: Counters::default(),
            options: Mutex::new(BTreeMap::new()),
            encoded_tables: EncodedTables::default(),
            inflight: Arc::default(),
            settings: ServerSettings::default(),
        }
    }

    /// The same state, with `settings`.
    pub fn with_settings(mut self, settings: ServerSettings) -> Self {
        self.settings = settings;
        self
    }
}

/// One client connection: who it says it is, and the server it talks to.
pub struct Session {
    state: Arc<ServerState>,
    peer: SocketAddr,
    /// The user named by `set_ugi`, if the client sent one.
    user: Mutex<Option<String>>,
    /// Values this connection set with `setMetaConf`, by the name it used.
    meta_conf: Mutex<BTreeMap<String, String>>,
}

impl Session {
    /// A session for the client at `peer`.
    pub fn new(state: Arc<ServerState>, peer: SocketAddr) -> Self {
        Session {
            state,
            peer,
            user: Mutex::new(None),
            meta_conf: Mutex::new(BTreeMap::new()),
        }
    }

    /// The server's settings.
    pub fn settings(&self) -> &ServerSettings {
        &self.state.settings
    }

    /// The value this connection set for `key` with `setMetaConf`, if any.
    pub fn meta_conf_override(&self, key: &str) -> Option<String> {
        let overrides = self
            .meta_conf
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        overrides.get(key).cloned()
    }

    /// Sets `key` to `value` for this connection.
    pub fn set_meta_conf_override(&self, key: String, value: String) {
        let mut overrides = self
            .meta_conf
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        overrides.insert(key, value);
    }

    /// The catalog store.
    pub fn store(&self) -> &Store {
        &self.state.store
    }

    /// fb303's counters: the server's, and `store.reopens`, how many times the store went back
    /// to its durable state after a write failed to reach the disk.
    fn counters(&self) -> BTreeMap<String, i64> {
        let mut counters = self.state.counters.snapshot();
        let reopens = self.store().reopen_count();
        if reopens > 0 {
            counters.insert(
                "store.reopens".to_string(),
                i64::try_from(reopens).unwrap_or(i64::MAX),
            );
        }
        counters
    }

    /// Tables as last encoded, shared by the server's connections.
    pub(crate) fn encoded_tables(&self) -> &EncodedTables {
        &self.state.encoded_tables
    }

    /// The user the client named with `set_ugi`, if any.
    pub fn user(&self) -> Option<String> {
        self.user
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn options(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.state
            .options
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Handler for Session {
    fn get_name(&self) -> thrift::Result<String> {
        Ok(SERVICE_NAME.to_string())
    }

    fn get_version(&self) -> thrift::Result<String> {
        Ok(SERVICE_VERSION.to_string())
    }

    fn get_status(&self) -> thrift::Result<FbStatus> {
        Ok(FbStatus::ALIVE)
    }

    fn get_status_details(&self) -> thrift::Result<String> {
        Ok(format!("{SERVICE_NAME} {SERVICE_VERSION} is alive"))
    }

    fn alive_since(&self) -> thrift::Result<i64> {
        Ok(self.state.started_at_seconds)
    }

    fn get_counters(&self) -> thrift::Result<BTreeMap<String, i64>> {
        Ok(self.counters())
    }

    fn get_counter(&self, key: String) -> thrift::Result<i64> {
        Ok(self.counters().get(&key).copied().unwrap_or(0))
    }

    fn set_option(&self, key: String, value: String) -> thrift::Result<()> {
        self.options().insert(key, value);
        Ok(())
    }

    fn get_option(&self, key: String) -> thrift::Result<String> {
        Ok(self.options().get(&key).cloned().unwrap_or_default())
    }

    fn get_options(&self) -> thrift::Result<BTreeMap<String, String>> {
        Ok(self.options().clone())
    }

    /// Hive sends nothing useful here and expects nothing back.
    fn reinitialize(&self) -> thrift::Result<()> {
        Ok(())
    }

    /// The Hive 2.3 client sends this one-way call just before it closes its socket: the
    /// session forgets its user, and the connection stays open (as Apache's HMS keeps it);
    /// never the server.
    fn shutdown(&self) -> thrift::Result<()> {
        tracing::debug!(peer = %self.peer, "client ended its session");
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(())
    }

    /// Records the caller for this connection; like Hive, answers the groups it was given.
    fn set_ugi(&self, user_name: String, group_names: Vec<String>) -> thrift::Result<Vec<String>> {
        tracing::debug!(peer = %self.peer, user = %user_name, "set_ugi");
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = Some(user_name);
        Ok(group_names)
    }

    fn create_catalog(&self, catalog: idl::CreateCatalogRequest) -> thrift::Result<()> {
        catalogs::create(self, catalog)
    }

    fn alter_catalog(&self, rqst: idl::AlterCatalogRequest) -> thrift::Result<()> {
        catalogs::alter(self, rqst)
    }

    fn get_catalog(
        &self,
        cat_name: idl::GetCatalogRequest,
    ) -> thrift::Result<idl::GetCatalogResponse> {
        catalogs::get(self, cat_name)
    }

    fn get_catalogs(&self) -> thrift::Result<idl::GetCatalogsResponse> {
        catalogs::list(self)
    }

    fn drop_catalog(&self, cat_name: idl::DropCatalogRequest) -> thrift::Result<()> {
        catalogs::drop_one(self, cat_name)
    }

    fn create_database(&self, database: idl::Database) -> thrift::Result<()> {
        databases::create(self, database)
    }

    fn create_database_req(&self, request: idl::CreateDatabaseRequest) -> thrift::Result<()> {
        databases::create_req(self, request)
    }

    fn get_database(&self, name: String) -> thrift::Result<idl::Database> {
        databases::get(self, name)
    }

    fn get_database_req(&self, request: idl::GetDatabaseRequest) -> thrift::Result<idl::Database> {
        databases::get_req(self, request)
    }

    fn get_all_databases(&self) -> thrift::Result<Vec<String>> {
        databases::list_all(self)
    }

    fn alter_database(&self, dbname: String, db: idl::Database) -> thrift::Result<()> {
        databases::alter(self, dbname, db)
    }

    fn alter_database_req(&self, alter_db_req: idl::AlterDatabaseRequest) -> thrift::Result<()> {
        databases::alter_req(self, alter_db_req)
    }

    fn drop_database(&self, name: String, delete_data: bool, cascade: bool) -> thrift::Result<()> {
        databases::drop_one(self, name, delete_data, cascade)
    }

    fn drop_database_req(&self, req: idl::DropDatabaseRequest) -> thrift::Result<()> {
        databases::drop_req(self, req)
    }

    fn create_table(&self, tbl: idl::Table) -> thrift::Result<()> {
        tables::create(self, tbl, None)
    }

    fn create_table_with_environment_context(
        &self,
        tbl: idl::Table,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<()> {
        tables::create(self, tbl, Some(environment_context))
    }

    fn create_table_req(&self, request: idl::CreateTableRequest) -> thrift::Result<()> {
        tables::create_req(self, request)
    }

    fn create_table_with_constraints(
        &self,
        tbl: idl::Table,
        primary_keys: Vec<idl::SQLPrimaryKey>,
        foreign_keys: Vec<idl::SQLForeignKey>,
        unique_constraints: Vec<idl::SQLUniqueConstraint>,
        not_null_constraints: Vec<idl::SQLNotNullConstraint>,
        default_constraints: Vec<idl::SQLDefaultConstraint>,
        check_constraints: Vec<idl::SQLCheckConstraint>,
    ) -> thrift::Result<()> {
        let constraints = constraints::TableConstraints {
            primary_keys,
            foreign_keys,
            unique_constraints,
            not_null_constraints,
            default_constraints,
            check_constraints,
        };
        constraints::create_table(self, tbl, constraints)
    }

    fn drop_constraint(&self, req: idl::DropConstraintRequest) -> thrift::Result<()> {
        constraints::drop(self, req)
    }

    fn add_primary_key(&self, req: idl::AddPrimaryKeyRequest) -> thrift::Result<()> {
        constraints::add_primary_key(self, req)
    }

    fn add_foreign_key(&self, req: idl::AddForeignKeyRequest) -> thrift::Result<()> {
        constraints::add_foreign_key(self, req)
    }

    fn add_unique_constraint(&self, req: idl::AddUniqueConstraintRequest) -> thrift::Result<()> {
        constraints::add_unique_constraint(self, req)
    }

    fn add_not_null_constraint(&self, req: idl::AddNotNullConstraintRequest) -> thrift::Result<()> {
        constraints::add_not_null_constraint(self, req)
    }

    fn add_default_constraint(&self, req: idl::AddDefaultConstraintRequest) -> thrift::Result<()> {
        constraints::add_default_constraint(self, req)
    }

    fn add_check_constraint(&self, req: idl::AddCheckConstraintRequest) -> thrift::Result<()> {
        constraints::add_check_constraint(self, req)
    }

    fn get_primary_keys(
        &self,
        request: idl::PrimaryKeysRequest,
    ) -> thrift::Result<idl::PrimaryKeysResponse> {
        constraints::get_primary_keys(self, request)
    }

    fn get_foreign_keys(
        &self,
        request: idl::ForeignKeysRequest,
    ) -> thrift::Result<idl::ForeignKeysResponse> {
        constraints::get_foreign_keys(self, request)
    }

    fn get_unique_constraints(
        &self,
        request: idl::UniqueConstraintsRequest,
    ) -> thrift::Result<idl::UniqueConstraintsResponse> {
        constraints::get_unique_constraints(self, request)
    }

    fn get_not_null_constraints(
        &self,
        request: idl::NotNullConstraintsRequest,
    ) -> thrift::Result<idl::NotNullConstraintsResponse> {
        constraints::get_not_null_constraints(self, request)
    }

    fn get_default_constraints(
        &self,
        request: idl::DefaultConstraintsRequest,
    ) -> thrift::Result<idl::DefaultConstraintsResponse> {
        constraints::get_default_constraints(self, request)
    }

    fn get_check_constraints(
        &self,
        request: idl::CheckConstraintsRequest,
    ) -> thrift::Result<idl::CheckConstraintsResponse> {
        constraints::get_check_constraints(self, request)
    }

    fn get_all_table_constraints(
        &self,
        request: idl::AllTableConstraintsRequest,
    ) -> thrift::Result<idl::AllTableConstraintsResponse> {
        constraints::get_all(self, request)
    }

    fn get_table(&self, dbname: String, tbl_name: String) -> thrift::Result<idl::Table> {
        tables::get(self, dbname, tbl_name)
    }

    fn get_table_req(&self, req: idl::GetTableRequest) -> thrift::Result<idl::GetTableResult> {
        tables::get_req(self, req)
    }

    fn get_table_objects_by_name(
        &self,
        dbname: String,
        tbl_names: Vec<String>,
    ) -> thrift::Result<Vec<idl::Table>> {
        tables::get_by_names(self, dbname, tbl_names)
    }

    fn get_table_objects_by_name_req(
        &self,
        req: idl::GetTablesRequest,
    ) -> thrift::Result<idl::GetTablesResult> {
        tables::get_by_names_req(self, req)
    }

    fn get_fields(
        &self,
        db_name: String,
        table_name: String,
    ) -> thrift::Result<Vec<idl::FieldSchema>> {
        tables::fields(self, db_name, table_name)
    }

    fn get_fields_with_environment_context(
        &self,
        db_name: String,
        table_name: String,
        _environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<Vec<idl::FieldSchema>> {
        tables::fields(self, db_name, table_name)
    }

    fn get_fields_req(&self, req: idl::GetFieldsRequest) -> thrift::Result<idl::GetFieldsResponse> {
        tables::fields_req(self, req)
    }

    fn get_schema(
        &self,
        db_name: String,
        table_name: String,
    ) -> thrift::Result<Vec<idl::FieldSchema>> {
        tables::schema(self, db_name, table_name)
    }

    fn get_schema_with_environment_context(
        &self,
        db_name: String,
        table_name: String,
        _environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<Vec<idl::FieldSchema>> {
        tables::schema(self, db_name, table_name)
    }

    fn get_schema_req(&self, req: idl::GetSchemaRequest) -> thrift::Result<idl::GetSchemaResponse> {
        tables::schema_req(self, req)
    }

    fn get_all_tables(&self, db_name: String) -> thrift::Result<Vec<String>> {
        tables::list_all(self, db_name)
    }

    fn get_databases(&self, pattern: String) -> thrift::Result<Vec<String>> {
        databases::list_matching(self, pattern)
    }

    fn get_tables(&self, db_name: String, pattern: String) -> thrift::Result<Vec<String>> {
        tables::list_matching(self, db_name, pattern, None)
    }

    fn get_tables_by_type(
        &self,
        db_name: String,
        pattern: String,
        table_type: String,
    ) -> thrift::Result<Vec<String>> {
        tables::list_matching(self, db_name, pattern, Some(table_type))
    }

    fn get_table_meta(
        &self,
        db_patterns: String,
        tbl_patterns: String,
        tbl_types: Vec<String>,
    ) -> thrift::Result<Vec<idl::TableMeta>> {
        tables::meta(self, db_patterns, tbl_patterns, tbl_types)
    }

    fn get_tables_ext(
        &self,
        req: idl::GetTablesExtRequest,
    ) -> thrift::Result<Vec<idl::ExtendedTableInfo>> {
        tables::list_ext(self, req)
    }

    fn get_table_names_by_filter(
        &self,
        dbname: String,
        filter: String,
        max_tables: i16,
    ) -> thrift::Result<Vec<String>> {
        tables::names_by_filter(self, dbname, filter, max_tables)
    }

    fn alter_table(
        &self,
        dbname: String,
        tbl_name: String,
        new_tbl: idl::Table,
    ) -> thrift::Result<()> {
        tables::alter(
            self,
            AlterTable::from_call(&dbname, tbl_name, new_tbl, None)?,
        )
    }

    fn alter_table_with_environment_context(
        &self,
        dbname: String,
        tbl_name: String,
        new_tbl: idl::Table,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<()> {
        let alter = AlterTable::from_call(&dbname, tbl_name, new_tbl, Some(environment_context))?;
        tables::alter(self, alter)
    }

    fn alter_table_with_cascade(
        &self,
        dbname: String,
        tbl_name: String,
        new_tbl: idl::Table,
        cascade: bool,
    ) -> thrift::Result<()> {
        let mut alter = AlterTable::from_call(&dbname, tbl_name, new_tbl, None)?;
        alter.cascade = cascade;
        tables::alter(self, alter)
    }

    fn alter_table_req(
        &self,
        req: idl::AlterTableRequest,
    ) -> thrift::Result<idl::AlterTableResponse> {
        tables::alter_req(self, req)
    }

    fn drop_table(&self, dbname: String, name: String, delete_data: bool) -> thrift::Result<()> {
        tables::drop_one(self, dbname, name, delete_data)
    }

    fn drop_table_with_environment_context(
        &self,
        dbname: String,
        name: String,
        delete_data: bool,
        _environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<()> {
        tables::drop_one(self, dbname, name, delete_data)
    }

    fn drop_table_req(&self, drop_table_req: idl::DropTableRequest) -> thrift::Result<()> {
        tables::drop_req(self, drop_table_req)
    }

    fn truncate_table(
        &self,
        db_name: String,
        table_name: String,
        part_names: Vec<String>,
    ) -> thrift::Result<()> {
        tables::truncate(self, db_name, table_name, part_names)
    }

    fn truncate_table_req(
        &self,
        req: idl::TruncateTableRequest,
    ) -> thrift::Result<idl::TruncateTableResponse> {
        tables::truncate_req(self, req)
    }

    fn add_partition(&self, new_part: idl::Partition) -> thrift::Result<idl::Partition> {
        partitions::add(self, new_part, None)
    }

    fn add_partition_with_environment_context(
        &self,
        new_part: idl::Partition,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<idl::Partition> {
        partitions::add(self, new_part, Some(environment_context))
    }

    fn add_partitions(&self, new_parts: Vec<idl::Partition>) -> thrift::Result<i32> {
        partitions::add_many(self, new_parts)
    }

    fn add_partitions_pspec(&self, new_parts: Vec<idl::PartitionSpec>) -> thrift::Result<i32> {
        partitions::add_pspec(self, new_parts)
    }

    fn add_partitions_req(
        &self,
        request: idl::AddPartitionsRequest,
    ) -> thrift::Result<idl::AddPartitionsResult> {
        partitions::add_req(self, request)
    }

    fn append_partition(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
    ) -> thrift::Result<idl::Partition> {
        partitions::append(self, db_name, tbl_name, part_vals, None)
    }

    fn append_partition_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<idl::Partition> {
        partitions::append(
            self,
            db_name,
            tbl_name,
            part_vals,
            Some(environment_context),
        )
    }

    fn append_partition_req(
        &self,
        append_partitions_req: idl::AppendPartitionsRequest,
    ) -> thrift::Result<idl::Partition> {
        partitions::append_req(self, append_partitions_req)
    }

    fn append_partition_by_name(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
    ) -> thrift::Result<idl::Partition> {
        partitions::append_by_name(self, db_name, tbl_name, part_name, None)
    }

    fn append_partition_by_name_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<idl::Partition> {
        partitions::append_by_name(
            self,
            db_name,
            tbl_name,
            part_name,
            Some(environment_context),
        )
    }

    fn drop_partition(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        delete_data: bool,
    ) -> thrift::Result<bool> {
        partitions::drop_values(self, db_name, tbl_name, part_vals, delete_data)
    }

    fn drop_partition_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        delete_data: bool,
        _environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<bool> {
        partitions::drop_values(self, db_name, tbl_name, part_vals, delete_data)
    }

    fn drop_partition_req(
        &self,
        drop_partition_req: idl::DropPartitionRequest,
    ) -> thrift::Result<bool> {
        partitions::drop_req(self, drop_partition_req)
    }

    fn drop_partition_by_name(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
        delete_data: bool,
    ) -> thrift::Result<bool> {
        partitions::drop_by_name(self, db_name, tbl_name, part_name, delete_data)
    }

    fn drop_partition_by_name_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
        delete_data: bool,
        _environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<bool> {
        partitions::drop_by_name(self, db_name, tbl_name, part_name, delete_data)
    }

    fn drop_partitions_req(
        &self,
        req: idl::DropPartitionsRequest,
    ) -> thrift::Result<idl::DropPartitionsResult> {
        partitions::drop_many_req(self, req)
    }

    fn get_partition(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
    ) -> thrift::Result<idl::Partition> {
        partitions::get(self, db_name, tbl_name, part_vals)
    }

    fn get_partition_req(
        &self,
        req: idl::GetPartitionRequest,
    ) -> thrift::Result<idl::GetPartitionResponse> {
        partitions::get_req(self, req)
    }

    fn get_partition_with_auth(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        _user_name: String,
        _group_names: Vec<String>,
    ) -> thrift::Result<idl::Partition> {
        partitions::get(self, db_name, tbl_name, part_vals)
    }

    fn get_partition_by_name(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
    ) -> thrift::Result<idl::Partition> {
        partitions::get_by_name(self, db_name, tbl_name, part_name)
    }

    fn get_partitions(
        &self,
        db_name: String,
        tbl_name: String,
        max_parts: i16,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::get_all(self, db_name, tbl_name, max_parts)
    }

    fn get_partitions_req(
        &self,
        req: idl::PartitionsRequest,
    ) -> thrift::Result<idl::PartitionsResponse> {
        partition_listings::get_all_req(self, req)
    }

    fn get_partitions_with_auth(
        &self,
        db_name: String,
        tbl_name: String,
        max_parts: i16,
        _user_name: String,
        _group_names: Vec<String>,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::get_all(self, db_name, tbl_name, max_parts)
    }

    fn get_partitions_pspec(
        &self,
        db_name: String,
        tbl_name: String,
        max_parts: i32,
    ) -> thrift::Result<Vec<idl::PartitionSpec>> {
        partition_listings::get_all_pspec(self, db_name, tbl_name, max_parts)
    }

    fn get_partition_names(
        &self,
        db_name: String,
        tbl_name: String,
        max_parts: i16,
    ) -> thrift::Result<Vec<String>> {
        partition_listings::names(self, db_name, tbl_name, max_parts)
    }

    fn fetch_partition_names_req(
        &self,
        partition_req: idl::PartitionsRequest,
    ) -> thrift::Result<Vec<String>> {
        partition_listings::names_req(self, partition_req)
    }

    fn get_partition_values(
        &self,
        request: idl::PartitionValuesRequest,
    ) -> thrift::Result<idl::PartitionValuesResponse> {
        partitions::values(self, request)
    }

    fn get_partitions_ps(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        max_parts: i16,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::get_ps(self, db_name, tbl_name, part_vals, max_parts)
    }

    fn get_partitions_ps_with_auth(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        max_parts: i16,
        _user_name: String,
        _group_names: Vec<String>,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::get_ps(self, db_name, tbl_name, part_vals, max_parts)
    }

    fn get_partitions_ps_with_auth_req(
        &self,
        req: idl::GetPartitionsPsWithAuthRequest,
    ) -> thrift::Result<idl::GetPartitionsPsWithAuthResponse> {
        partition_listings::get_ps_req(self, req)
    }

    fn get_partition_names_ps(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        max_parts: i16,
    ) -> thrift::Result<Vec<String>> {
        partition_listings::names_ps(self, db_name, tbl_name, part_vals, max_parts)
    }

    fn get_partition_names_ps_req(
        &self,
        req: idl::GetPartitionNamesPsRequest,
    ) -> thrift::Result<idl::GetPartitionNamesPsResponse> {
        partition_listings::names_ps_req(self, req)
    }

    fn get_partition_names_req(
        &self,
        req: idl::PartitionsByExprRequest,
    ) -> thrift::Result<Vec<String>> {
        partition_listings::names_by_expr(self, req)
    }

    fn get_partitions_by_filter(
        &self,
        db_name: String,
        tbl_name: String,
        filter: String,
        max_parts: i16,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::by_filter(self, db_name, tbl_name, filter, max_parts)
    }

    fn get_partitions_by_filter_req(
        &self,
        req: idl::GetPartitionsByFilterRequest,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::by_filter_req(self, req)
    }

    fn get_part_specs_by_filter(
        &self,
        db_name: String,
        tbl_name: String,
        filter: String,
        max_parts: i32,
    ) -> thrift::Result<Vec<idl::PartitionSpec>> {
        partition_listings::specs_by_filter(self, db_name, tbl_name, filter, max_parts)
    }

    fn exchange_partition(
        &self,
        partition_specs: BTreeMap<String, String>,
        source_db: String,
        source_table_name: String,
        dest_db: String,
        dest_table_name: String,
    ) -> thrift::Result<idl::Partition> {
        partitions::exchange(
            self,
            partition_specs,
            source_db,
            source_table_name,
            dest_db,
            dest_table_name,
        )
    }

    fn exchange_partitions(
        &self,
        partition_specs: BTreeMap<String, String>,
        source_db: String,
        source_table_name: String,
        dest_db: String,
        dest_table_name: String,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partitions::exchange_many(
            self,
            partition_specs,
            source_db,
            source_table_name,
            dest_db,
            dest_table_name,
        )
    }

    fn mark_partition_for_event(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: BTreeMap<String, String>,
        event_type: idl::PartitionEventType,
    ) -> thrift::Result<()> {
        partitions::mark_for_event(self, db_name, tbl_name, part_vals, event_type.0)
    }

    fn is_partition_marked_for_event(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: BTreeMap<String, String>,
        event_type: idl::PartitionEventType,
    ) -> thrift::Result<bool> {
        partitions::is_marked_for_event(self, db_name, tbl_name, part_vals, event_type.0)
    }

    fn get_partitions_with_specs(
        &self,
        request: idl::GetPartitionsRequest,
    ) -> thrift::Result<idl::GetPartitionsResponse> {
        partition_specs::with_specs(self, request)
    }

    fn get_num_partitions_by_filter(
        &self,
        db_name: String,
        tbl_name: String,
        filter: String,
    ) -> thrift::Result<i32> {
        partition_listings::count_by_filter(self, db_name, tbl_name, filter)
    }

    fn get_partitions_by_names(
        &self,
        db_name: String,
        tbl_name: String,
        names: Vec<String>,
    ) -> thrift::Result<Vec<idl::Partition>> {
        partition_listings::by_names(self, db_name, tbl_name, names)
    }

    fn get_partitions_by_names_req(
        &self,
        req: idl::GetPartitionsByNamesRequest,
    ) -> thrift::Result<idl::GetPartitionsByNamesResult> {
        partition_listings::by_names_req(self, req)
    }

    fn alter_partition(
        &self,
        db_name: String,
        tbl_name: String,
        new_part: idl::Partition,
    ) -> thrift::Result<()> {
        partitions::alter(self, db_name, tbl_name, new_part, None)
    }

    fn alter_partition_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        new_part: idl::Partition,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<()> {
        partitions::alter(self, db_name, tbl_name, new_part, Some(environment_context))
    }

    fn alter_partitions(
        &self,
        db_name: String,
        tbl_name: String,
        new_parts: Vec<idl::Partition>,
    ) -> thrift::Result<()> {
        partitions::alter_many(self, db_name, tbl_name, new_parts, None)
    }

    fn alter_partitions_with_environment_context(
        &self,
        db_name: String,
        tbl_name: String,
        new_parts: Vec<idl::Partition>,
        environment_context: idl::EnvironmentContext,
    ) -> thrift::Result<()> {
        partitions::alter_many(
            self,
            db_name,
            tbl_name,
            new_parts,
            Some(environment_context),
        )
    }

    fn alter_partitions_req(
        &self,
        req: idl::AlterPartitionsRequest,
    ) -> thrift::Result<idl::AlterPartitionsResponse> {
        partitions::alter_req(self, req)
    }

    fn rename_partition(
        &self,
        db_name: String,
        tbl_name: String,
        part_vals: Vec<String>,
        new_part: idl::Partition,
    ) -> thrift::Result<()> {
        partitions::rename(self, db_name, tbl_name, part_vals, new_part)
    }

    fn rename_partition_req(
        &self,
        req: idl::RenamePartitionRequest,
    ) -> thrift::Result<idl::RenamePartitionResponse> {
        partitions::rename_req(self, req)
    }

    fn partition_name_has_valid_characters(
        &self,
        part_vals: Vec<String>,
        throw_exception: bool,
    ) -> thrift::Result<bool> {
        partitions::has_valid_characters(part_vals, throw_exception)
    }

    fn partition_name_to_vals(&self, part_name: String) -> thrift::Result<Vec<String>> {
        partitions::name_to_values(part_name)
    }

    fn partition_name_to_spec(
        &self,
        part_name: String,
    ) -> thrift::Result<BTreeMap<String, String>> {
        partitions::name_to_spec(part_name)
    }

    fn get_config_value(&self, name: String, default_value: String) -> thrift::Result<String> {
        session::config_value(self, name, default_value)
    }

    fn get_meta_conf(&self, key: String) -> thrift::Result<String> {
        session::get_meta_conf(self, key)
    }

    fn set_meta_conf(&self, key: String, value: String) -> thrift::Result<()> {
        session::set_meta_conf(self, key, value)
    }

    fn get_metastore_db_uuid(&self) -> thrift::Result<String> {
        session::metastore_db_uuid(self)
    }

    // Functions.

    fn create_function(&self, func: idl::Function) -> thrift::Result<()> {
        functions::create(self, func)
    }

    fn drop_function(&self, db_name: String, func_name: String) -> thrift::Result<()> {
        functions::drop(self, db_name, func_name)
    }

    fn alter_function(
        &self,
        db_name: String,
        func_name: String,
        new_func: idl::Function,
    ) -> thrift::Result<()> {
        functions::alter(self, db_name, func_name, new_func)
    }

    fn get_functions(&self, db_name: String, pattern: String) -> thrift::Result<Vec<String>> {
        functions::list(self, db_name, pattern)
    }

    fn get_functions_req(
        &self,
        request: idl::GetFunctionsRequest,
    ) -> thrift::Result<idl::GetFunctionsResponse> {
        functions::list_req(self, request)
    }

    fn get_function(&self, db_name: String, func_name: String) -> thrift::Result<idl::Function> {
        functions::get(self, db_name, func_name)
    }

    fn get_all_functions(&self) -> thrift::Result<idl::GetAllFunctionsResponse> {
        functions::all(self)
    }

    // Types.

    fn create_type(&self, type_: idl::Type) -> thrift::Result<bool> {
        types::create(self, type_)
    }

    fn get_type(&self, name: String) -> thrift::Result<idl::Type> {
        types::get(self, name)
    }

    fn drop_type(&self, type_: String) -> thrift::Result<bool> {
        types::drop(self, type_)
    }

    fn get_type_all(&self, name: String) -> thrift::Result<BTreeMap<String, idl::Type>> {
        types::all(self, name)
    }

    // Dry-run translation of a table to create.

    fn translate_table_dryrun(
        &self,
        request: idl::CreateTableRequest,
    ) -> thrift::Result<idl::Table> {
        table_translation::translate(self, request)
    }

    // The schema registry.

    fn create_ischema(&self, schema: idl::ISchema) -> thrift::Result<()> {
        schema_registry::create(self, schema)
    }

    fn alter_ischema(&self, rqst: idl::AlterISchemaRequest) -> thrift::Result<()> {
        schema_registry::alter(self, rqst)
    }

    fn get_ischema(&self, name: idl::ISchemaName) -> thrift::Result<idl::ISchema> {
        schema_registry::get(self, name)
    }

    fn drop_ischema(&self, name: idl::ISchemaName) -> thrift::Result<()> {
        schema_registry::drop(self, name)
    }

    fn add_schema_version(&self, schema_version: idl::SchemaVersion) -> thrift::Result<()> {
        schema_registry::add_version(self, schema_version)
    }

    fn get_schema_version(
        &self,
        schema_version: idl::SchemaVersionDescriptor,
    ) -> thrift::Result<idl::SchemaVersion> {
        schema_registry::get_version(self, schema_version)
    }

    fn get_schema_latest_version(
        &self,
        schema_name: idl::ISchemaName,
    ) -> thrift::Result<idl::SchemaVersion> {
        schema_registry::latest_version(self, schema_name)
    }

    fn get_schema_all_versions(
        &self,
        schema_name: idl::ISchemaName,
    ) -> thrift::Result<Vec<idl::SchemaVersion>> {
        schema_registry::all_versions(self, schema_name)
    }

    fn drop_schema_version(
        &self,
        schema_version: idl::SchemaVersionDescriptor,
    ) -> thrift::Result<()> {
        schema_registry::drop_version(self, schema_version)
    }

    fn get_schemas_by_cols(
        &self,
        rqst: idl::FindSchemasByColsRqst,
    ) -> thrift::Result<idl::FindSchemasByColsResp> {
        schema_registry::by_columns(self, rqst)
    }

    fn map_schema_version_to_serde(
        &self,
        rqst: idl::MapSchemaVersionToSerdeRequest,
    ) -> thrift::Result<()> {
        schema_registry::map_to_serde(self, rqst)
    }

    fn set_schema_version_state(
        &self,
        rqst: idl::SetSchemaVersionStateRequest,
    ) -> thrift::Result<()> {
        schema_registry::set_state(self, rqst)
    }

    fn add_serde(&self, serde: idl::SerDeInfo) -> thrift::Result<()> {
        schema_registry::add_serde(self, serde)
    }

    fn get_serde(&self, rqst: idl::GetSerdeRequest) -> thrift::Result<idl::SerDeInfo> {
        schema_registry::get_serde(self, rqst)
    }

    // The file-metadata cache and flushCache.

    fn get_file_metadata_by_expr(
        &self,
        req: idl::GetFileMetadataByExprRequest,
    ) -> thrift::Result<idl::GetFileMetadataByExprResult> {
        caches::get_by_expr(self, req)
    }

    fn get_file_metadata(
        &self,
        req: idl::GetFileMetadataRequest,
    ) -> thrift::Result<idl::GetFileMetadataResult> {
        caches::get(self, req)
    }

    fn put_file_metadata(
        &self,
        req: idl::PutFileMetadataRequest,
    ) -> thrift::Result<idl::PutFileMetadataResult> {
        caches::put(self, req)
    }

    fn clear_file_metadata(
        &self,
        req: idl::ClearFileMetadataRequest,
    ) -> thrift::Result<idl::ClearFileMetadataResult> {
        caches::clear(self, req)
    }

    fn cache_file_metadata(
        &self,
        req: idl::CacheFileMetadataRequest,
    ) -> thrift::Result<idl::CacheFileMetadataResult> {
        caches::cache(self, req)
    }

    fn flush_cache(&self) -> thrift::Result<()> {
        caches::flush(self)
    }

    fn observe(&self, method: &'static str, failed: bool) {
        self.state.counters.record_call(method, failed);
    }

    // Locks (issue 6).

    fn lock(&self, rqst: idl::LockRequest) -> thrift::Result<idl::LockResponse> {
        locks::lock(self, rqst)
    }

    fn check_lock(&self, rqst: idl::CheckLockRequest) -> thrift::Result<idl::LockResponse> {
        locks::check(self, rqst)
    }

    fn unlock(&self, rqst: idl::UnlockRequest) -> thrift::Result<()> {
        locks::unlock(self, rqst)
    }

    fn show_locks(&self, rqst: idl::ShowLocksRequest) -> thrift::Result<idl::ShowLocksResponse> {
        locks::show(self, rqst)
    }

    fn heartbeat(&self, ids: idl::HeartbeatRequest) -> thrift::Result<()> {
        locks::heartbeat(self, ids)
    }

    // Transactions and write ids (issue 6).

    fn open_txns(&self, rqst: idl::OpenTxnRequest) -> thrift::Result<idl::OpenTxnsResponse> {
        txns::open(self, rqst)
    }

    fn commit_txn(&self, rqst: idl::CommitTxnRequest) -> thrift::Result<()> {
        txns::commit(self, rqst)
    }

    fn abort_txn(&self, rqst: idl::AbortTxnRequest) -> thrift::Result<()> {
        txns::abort(self, rqst)
    }

    fn abort_txns(&self, rqst: idl::AbortTxnsRequest) -> thrift::Result<()> {
        txns::abort_many(self, rqst)
    }

    fn get_open_txns(&self) -> thrift::Result<idl::GetOpenTxnsResponse> {
        txns::list_open(self)
    }

    fn get_open_txns_req(
        &self,
        get_open_txns_request: idl::GetOpenTxnsRequest,
    ) -> thrift::Result<idl::GetOpenTxnsResponse> {
        txns::list_open_req(self, get_open_txns_request)
    }

    fn get_open_txns_info(&self) -> thrift::Result<idl::GetOpenTxnsInfoResponse> {
        txns::list_open_info(self)
    }

    // The notification log (issue 6).

    fn get_next_notification(
        &self,
        rqst: idl::NotificationEventRequest,
    ) -> thrift::Result<idl::NotificationEventResponse> {
        notifications::next(self, rqst)
    }

    fn get_current_notification_event_id(&self) -> thrift::Result<idl::CurrentNotificationEventId> {
        notifications::current(self)
    }

    fn get_notification_events_count(
        &self,
        rqst: idl::NotificationEventsCountRequest,
    ) -> thrift::Result<idl::NotificationEventsCountResponse> {
        notifications::count(self, rqst)
    }

    fn fire_listener_event(
        &self,
        rqst: idl::FireEventRequest,
    ) -> thrift::Result<idl::FireEventResponse> {
        notifications::fire(self, rqst)
    }

    fn add_write_notification_log(
        &self,
        rqst: idl::WriteNotificationLogRequest,
    ) -> thrift::Result<idl::WriteNotificationLogResponse> {
        notifications::add_write(self, rqst)
    }

    fn add_write_notification_log_in_batch(
        &self,
        rqst: idl::WriteNotificationLogBatchRequest,
    ) -> thrift::Result<idl::WriteNotificationLogBatchResponse> {
        notifications::add_writes(self, rqst)
    }

    fn get_all_write_event_info(
        &self,
        request: idl::GetAllWriteEventInfoRequest,
    ) -> thrift::Result<Vec<idl::WriteEventInfo>> {
        notifications::write_infos(self, request)
    }

    fn heartbeat_txn_range(
        &self,
        txns: idl::HeartbeatTxnRangeRequest,
    ) -> thrift::Result<idl::HeartbeatTxnRangeResponse> {
        txns::heartbeat_range(self, txns)
    }

    fn allocate_table_write_ids(
        &self,
        rqst: idl::AllocateTableWriteIdsRequest,
    ) -> thrift::Result<idl::AllocateTableWriteIdsResponse> {
        txns::allocate_write_ids(self, rqst)
    }

    fn get_valid_write_ids(
        &self,
        rqst: idl::GetValidWriteIdsRequest,
    ) -> thrift::Result<idl::GetValidWriteIdsResponse> {
        txns::valid_write_ids(self, rqst)
    }

    fn get_max_allocated_table_write_id(
        &self,
        rqst: idl::MaxAllocatedTableWriteIdRequest,
    ) -> thrift::Result<idl::MaxAllocatedTableWriteIdResponse> {
        txns::max_allocated_write_id(self, rqst)
    }

    fn add_dynamic_partitions(&self, rqst: idl::AddDynamicPartitions) -> thrift::Result<()> {
        txns::add_dynamic_partitions(self, rqst)
    }

    fn seed_txn_id(&self, rqst: idl::SeedTxnIdRequest) -> thrift::Result<()> {
        txns::seed_txn_id(self, rqst)
    }

    fn seed_write_id(&self, rqst: idl::SeedTableWriteIdsRequest) -> thrift::Result<()> {
        txns::seed_write_id(self, rqst)
    }

    fn get_latest_txnid_in_conflict(&self, txn_id: i64) -> thrift::Result<i64> {
        txns::latest_in_conflict(self, txn_id)
    }

    fn repl_tbl_writeid_state(&self, rqst: idl::ReplTblWriteIdStateRequest) -> thrift::Result<()> {
        txns::repl_write_id_state(self, rqst)
    }

    fn add_write_ids_to_min_history(
        &self,
        txn_id: i64,
        write_ids: std::collections::BTreeMap<String, i64>,
    ) -> thrift::Result<()> {
        txns::add_min_history(self, txn_id, write_ids)
    }

    // The compaction queue (issue 6): stored and reported, never run.

    fn compact(&self, rqst: idl::CompactionRequest) -> thrift::Result<()> {
        compactions::compact(self, rqst).map(|_| ())
    }

    fn compact2(&self, rqst: idl::CompactionRequest) -> thrift::Result<idl::CompactionResponse> {
        compactions::compact(self, rqst)
    }

    fn show_compact(
        &self,
        rqst: idl::ShowCompactRequest,
    ) -> thrift::Result<idl::ShowCompactResponse> {
        compactions::show(self, rqst)
    }

    fn submit_for_cleanup(
        &self,
        o1: idl::CompactionRequest,
        o2: i64,
        o3: i64,
    ) -> thrift::Result<bool> {
        compactions::submit_for_cleanup(self, o1, o2, o3)
    }

    fn get_latest_committed_compaction_info(
        &self,
        rqst: idl::GetLatestCommittedCompactionInfoRequest,
    ) -> thrift::Result<idl::GetLatestCommittedCompactionInfoResponse> {
        compactions::latest_committed(self, rqst)
    }

    fn abort_compactions(
        &self,
        rqst: idl::AbortCompactionRequest,
    ) -> thrift::Result<idl::AbortCompactResponse> {
        compactions::abort(self, rqst)
    }

    // Column statistics (calls/stats.rs).

    fn update_table_column_statistics(
        &self,
        stats_obj: idl::ColumnStatistics,
    ) -> thrift::Result<bool> {
        stats::update_table(self, stats_obj)
    }

    fn update_partition_column_statistics(
        &self,
        stats_obj: idl::ColumnStatistics,
    ) -> thrift::Result<bool> {
        stats::update_partition(self, stats_obj)
    }

    fn update_table_column_statistics_req(
        &self,
        req: idl::SetPartitionsStatsRequest,
    ) -> thrift::Result<idl::SetPartitionsStatsResponse> {
        stats::update_table_req(self, req)
    }

    fn update_partition_column_statistics_req(
        &self,
        req: idl::SetPartitionsStatsRequest,
    ) -> thrift::Result<idl::SetPartitionsStatsResponse> {
        stats::update_partition_req(self, req)
    }

    fn set_aggr_stats_for(&self, request: idl::SetPartitionsStatsRequest) -> thrift::Result<bool> {
        stats::set_aggr(self, request)
    }

    fn get_table_column_statistics(
        &self,
        db_name: String,
        tbl_name: String,
        col_name: String,
    ) -> thrift::Result<idl::ColumnStatistics> {
        stats::get_table_column(self, db_name, tbl_name, col_name)
    }

    fn get_partition_column_statistics(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
        col_name: String,
    ) -> thrift::Result<idl::ColumnStatistics> {
        stats::get_partition_column(self, db_name, tbl_name, part_name, col_name)
    }

    fn get_table_statistics_req(
        &self,
        request: idl::TableStatsRequest,
    ) -> thrift::Result<idl::TableStatsResult> {
        stats::get_table_req(self, request)
    }

    fn get_partitions_statistics_req(
        &self,
        request: idl::PartitionsStatsRequest,
    ) -> thrift::Result<idl::PartitionsStatsResult> {
        stats::get_partitions_req(self, request)
    }

    fn get_aggr_stats_for(
        &self,
        request: idl::PartitionsStatsRequest,
    ) -> thrift::Result<idl::AggrStats> {
        stats::get_aggr(self, request)
    }

    fn delete_table_column_statistics(
        &self,
        db_name: String,
        tbl_name: String,
        col_name: String,
        engine: String,
    ) -> thrift::Result<bool> {
        stats::delete_table(self, db_name, tbl_name, col_name, engine)
    }

    fn delete_partition_column_statistics(
        &self,
        db_name: String,
        tbl_name: String,
        part_name: String,
        col_name: String,
        engine: String,
    ) -> thrift::Result<bool> {
        stats::delete_partition(self, db_name, tbl_name, part_name, col_name, engine)
    }

    fn update_transaction_statistics(
        &self,
        req: idl::UpdateTransactionalStatsRequest,
    ) -> thrift::Result<()> {
        stats::update_transaction(self, req)
    }

    fn update_creation_metadata(
        &self,
        cat_name: String,
        dbname: String,
        tbl_name: String,
        creation_metadata: idl::CreationMetadata,
    ) -> thrift::Result<()> {
        tables::update_creation_metadata(self, cat_name, dbname, tbl_name, creation_metadata)
    }
}
