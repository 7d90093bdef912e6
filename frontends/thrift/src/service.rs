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
use crate::calls::{catalogs, databases, session, tables};
use crate::counters::Counters;

/// The name fb303 `getName` answers.
pub const SERVICE_NAME: &str = "hivestore";
/// The version fb303 `getVersion` answers: hivestore's own.
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every method hivestore implements, by wire name. The rest answer `UNKNOWN_METHOD` whatever
/// their arguments (Hive's client takes that as "older metastore" and falls back where it can).
/// Keep it sorted; the README's compatibility table follows it.
pub const IMPLEMENTED_METHODS: &[&str] = &[
    "aliveSince",
    "alter_catalog",
    "alter_database",
    "alter_database_req",
    "alter_table",
    "alter_table_req",
    "alter_table_with_cascade",
    "alter_table_with_environment_context",
    "create_catalog",
    "create_database",
    "create_database_req",
    "create_table",
    "create_table_req",
    "create_table_with_environment_context",
    "drop_catalog",
    "drop_database",
    "drop_database_req",
    "drop_table",
    "drop_table_req",
    "drop_table_with_environment_context",
    "getCounter",
    "getCounters",
    "getName",
    "getOption",
    "getOptions",
    "getStatus",
    "getStatusDetails",
    "getVersion",
    "get_all_databases",
    "get_all_functions",
    "get_all_tables",
    "get_catalog",
    "get_catalogs",
    "get_config_value",
    "get_database",
    "get_database_req",
    "get_databases",
    "get_fields",
    "get_fields_req",
    "get_fields_with_environment_context",
    "get_schema",
    "get_schema_req",
    "get_schema_with_environment_context",
    "get_table",
    "get_table_meta",
    "get_table_names_by_filter",
    "get_table_objects_by_name",
    "get_table_objects_by_name_req",
    "get_table_req",
    "get_tables",
    "get_tables_by_type",
    "get_tables_ext",
    "reinitialize",
    "setOption",
    "set_ugi",
    "shutdown",
    "truncate_table",
    "truncate_table_req",
];

/// Whether hivestore implements the method with this wire name.
pub fn is_implemented(method: &str) -> bool {
    IMPLEMENTED_METHODS.binary_search(&method).is_ok()
}

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
}

impl ServerState {
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
        }
    }
}

/// One client connection: who it says it is, and the server it talks to.
pub struct Session {
    state: Arc<ServerState>,
    peer: SocketAddr,
    /// The user named by `set_ugi`, if the client sent one.
    user: Mutex<Option<String>>,
}

impl Session {
    /// A session for the client at `peer`.
    pub fn new(state: Arc<ServerState>, peer: SocketAddr) -> Self {
        Session {
            state,
            peer,
            user: Mutex::new(None),
        }
    }

    /// The catalog store.
    pub fn store(&self) -> &Store {
        &self.state.store
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
        Ok(self.state.counters.snapshot())
    }

    fn get_counter(&self, key: String) -> thrift::Result<i64> {
        Ok(self
            .state
            .counters
            .snapshot()
            .get(&key)
            .copied()
            .unwrap_or(0))
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

    /// The Hive 2.3 client sends this one-way call when it closes: it ends the session, never
    /// the server.
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

    fn get_config_value(&self, name: String, default_value: String) -> thrift::Result<String> {
        session::config_value(self, name, default_value)
    }

    fn get_all_functions(&self) -> thrift::Result<idl::GetAllFunctionsResponse> {
        Ok(session::all_functions())
    }

    fn observe(&self, method: &'static str, failed: bool) {
        self.state.counters.record_call(method, failed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::handler::METHODS;

    #[test]
    fn implemented_methods_are_sorted_and_all_in_the_idl() {
        assert!(IMPLEMENTED_METHODS.windows(2).all(|pair| pair[0] < pair[1]));
        for name in IMPLEMENTED_METHODS {
            assert!(
                METHODS.iter().any(|method| method.name == *name),
                "{name} is not in the IDL"
            );
        }
    }
}
