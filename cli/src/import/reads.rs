//! Reading a metastore the way the import needs it, the same for the source (a Thrift client)
//! and the copy (the handler's `Session`, in process): `verify` reads both sides through this
//! one path, so a difference it prints is a difference in what clients see.
//!
//! Hive 2.3 servers lack catalogs and Hive 4's newer calls; `Dialect` says which calls a side
//! answers, found once per source by asking for its catalogs.

use std::collections::BTreeMap;

use hivestore_idl::handler::Handler;
use hivestore_idl::hive_metastore::{
    AllTableConstraintsRequest, Catalog, ColumnStatisticsObj, Database, ForeignKeysRequest,
    Function, GetCatalogRequest, GetPrincipalsInRoleRequest, HiveObjectPrivilege, HiveObjectRef,
    HiveObjectType, NotificationEvent, NotificationEventRequest, Partition, PartitionsStatsRequest,
    PrimaryKeysRequest, RolePrincipalGrant, SQLAllTableConstraints, TThriftHiveMetastoreSyncClient,
    Table, TableStatsRequest,
};
use hivestore_loadgen::endpoint::Client;
use hivestore_thrift::service::Session;
use thrift::{ApplicationErrorKind, Error as ThriftError};

/// The catalog every Hive 2 object is in, and Hive 4's default.
pub const DEFAULT_CATALOG: &str = "hive";

/// The calls a side is read with, one for one the IDL's: implemented for the Thrift client and
/// for the handler alike by `calls_through!`.
pub trait Calls {
    fn get_catalogs(&mut self) -> thrift::Result<Vec<String>>;
    fn get_catalog(&mut self, name: String) -> thrift::Result<Option<Catalog>>;
    fn get_databases(&mut self, pattern: String) -> thrift::Result<Vec<String>>;
    fn get_database(&mut self, name: String) -> thrift::Result<Database>;
    fn get_all_tables(&mut self, db: String) -> thrift::Result<Vec<String>>;
    fn get_table(&mut self, db: String, table: String) -> thrift::Result<Table>;
    fn get_partition_names(&mut self, db: String, table: String) -> thrift::Result<Vec<String>>;
    fn get_partitions_by_names(
        &mut self,
        db: String,
        table: String,
        names: Vec<String>,
    ) -> thrift::Result<Vec<Partition>>;
    fn get_table_statistics_req(
        &mut self,
        request: TableStatsRequest,
    ) -> thrift::Result<Vec<ColumnStatisticsObj>>;
    fn get_partitions_statistics_req(
        &mut self,
        request: PartitionsStatsRequest,
    ) -> thrift::Result<BTreeMap<String, Vec<ColumnStatisticsObj>>>;
    fn get_functions(&mut self, db: String) -> thrift::Result<Vec<String>>;
    fn get_function(&mut self, db: String, name: String) -> thrift::Result<Function>;
    fn get_all_table_constraints(
        &mut self,
        request: AllTableConstraintsRequest,
    ) -> thrift::Result<SQLAllTableConstraints>;
    fn get_primary_and_foreign_keys(
        &mut self,
        db: String,
        table: String,
    ) -> thrift::Result<SQLAllTableConstraints>;
    fn get_role_names(&mut self) -> thrift::Result<Vec<String>>;
    fn get_principals_in_role(&mut self, role: String) -> thrift::Result<Vec<RolePrincipalGrant>>;
    fn list_privileges(
        &mut self,
        object: HiveObjectRef,
    ) -> thrift::Result<Vec<HiveObjectPrivilege>>;
    fn get_current_notification_event_id(&mut self) -> thrift::Result<i64>;
    fn get_next_notification(
        &mut self,
        last_event: i64,
        max_events: i32,
    ) -> thrift::Result<Vec<NotificationEvent>>;
}

/// Writes `Calls` for a type whose field `$field` answers the IDL's methods (a client's take
/// `&mut self`, the handler's `&self`: the same text calls both).
macro_rules! calls_through {
    ($type:ty, $field:tt) => {
        impl Calls for $type {
            fn get_catalogs(&mut self) -> thrift::Result<Vec<String>> {
                Ok(self.$field.get_catalogs()?.names.unwrap_or_default())
            }
            fn get_catalog(&mut self, name: String) -> thrift::Result<Option<Catalog>> {
                let request = GetCatalogRequest { name: Some(name) };
                Ok(self.$field.get_catalog(request)?.catalog)
            }
            fn get_databases(&mut self, pattern: String) -> thrift::Result<Vec<String>> {
                self.$field.get_databases(pattern)
            }
            fn get_database(&mut self, name: String) -> thrift::Result<Database> {
                self.$field.get_database(name)
            }
            fn get_all_tables(&mut self, db: String) -> thrift::Result<Vec<String>> {
                self.$field.get_all_tables(db)
            }
            fn get_table(&mut self, db: String, table: String) -> thrift::Result<Table> {
                self.$field.get_table(db, table)
            }
            fn get_partition_names(
                &mut self,
                db: String,
                table: String,
            ) -> thrift::Result<Vec<String>> {
                self.$field.get_partition_names(db, table, -1)
            }
            fn get_partitions_by_names(
                &mut self,
                db: String,
                table: String,
                names: Vec<String>,
            ) -> thrift::Result<Vec<Partition>> {
                self.$field.get_partitions_by_names(db, table, names)
            }
            fn get_table_statistics_req(
                &mut self,
                request: TableStatsRequest,
            ) -> thrift::Result<Vec<ColumnStatisticsObj>> {
                Ok(self.$field.get_table_statistics_req(request)?.table_stats)
            }
            fn get_partitions_statistics_req(
                &mut self,
                request: PartitionsStatsRequest,
            ) -> thrift::Result<BTreeMap<String, Vec<ColumnStatisticsObj>>> {
                Ok(self
                    .$field
                    .get_partitions_statistics_req(request)?
                    .part_stats)
            }
            fn get_functions(&mut self, db: String) -> thrift::Result<Vec<String>> {
                self.$field.get_functions(db, "*".to_string())
            }
            fn get_function(&mut self, db: String, name: String) -> thrift::Result<Function> {
                self.$field.get_function(db, name)
            }
            fn get_all_table_constraints(
                &mut self,
                request: AllTableConstraintsRequest,
            ) -> thrift::Result<SQLAllTableConstraints> {
                Ok(self
                    .$field
                    .get_all_table_constraints(request)?
                    .all_table_constraints)
            }
            fn get_primary_and_foreign_keys(
                &mut self,
                db: String,
                table: String,
            ) -> thrift::Result<SQLAllTableConstraints> {
                let primary = PrimaryKeysRequest {
                    db_name: db.clone(),
                    tbl_name: table.clone(),
                    cat_name: None,
                    valid_write_id_list: None,
                    table_id: None,
                };
                let foreign = ForeignKeysRequest {
                    parent_db_name: None,
                    parent_tbl_name: None,
                    foreign_db_name: Some(db),
                    foreign_tbl_name: Some(table),
                    cat_name: None,
                    valid_write_id_list: None,
                    table_id: None,
                };
                Ok(SQLAllTableConstraints {
                    primary_keys: Some(self.$field.get_primary_keys(primary)?.primary_keys),
                    foreign_keys: Some(self.$field.get_foreign_keys(foreign)?.foreign_keys),
                    unique_constraints: None,
                    not_null_constraints: None,
                    default_constraints: None,
                    check_constraints: None,
                })
            }
            fn get_role_names(&mut self) -> thrift::Result<Vec<String>> {
                self.$field.get_role_names()
            }
            fn get_principals_in_role(
                &mut self,
                role: String,
            ) -> thrift::Result<Vec<RolePrincipalGrant>> {
                let request = GetPrincipalsInRoleRequest { role_name: role };
                Ok(self
                    .$field
                    .get_principals_in_role(request)?
                    .principal_grants)
            }
            fn list_privileges(
                &mut self,
                object: HiveObjectRef,
            ) -> thrift::Result<Vec<HiveObjectPrivilege>> {
                self.$field.list_privileges(None, None, object)
            }
            fn get_current_notification_event_id(&mut self) -> thrift::Result<i64> {
                Ok(self.$field.get_current_notification_event_id()?.event_id)
            }
            fn get_next_notification(
                &mut self,
                last_event: i64,
                max_events: i32,
            ) -> thrift::Result<Vec<NotificationEvent>> {
                let request = NotificationEventRequest {
                    last_event,
                    max_events: Some(max_events),
                    event_type_skip_list: None,
                    cat_name: None,
                    db_name: None,
                    table_names: None,
                };
                Ok(self.$field.get_next_notification(request)?.events)
            }
        }
    };
}

/// A source metastore over one Thrift connection.
pub struct SourceCalls(pub Client);
calls_through!(SourceCalls, 0);

/// The copy, read through the handler in process.
pub struct CopyCalls(pub Session);
calls_through!(CopyCalls, 0);

/// Which calls a side answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Hive 2: one catalog, no `get_all_table_constraints`.
    Hive2,
    /// Hive 3 and 4 (and hivestore): catalogs, every constraint kind.
    Hive4,
}

/// Whether `error` is the server's answer to a method it does not have.
pub fn is_unknown_method(error: &ThriftError) -> bool {
    matches!(error, ThriftError::Application(application)
        if application.kind == ApplicationErrorKind::UnknownMethod)
}

/// Whether `error` says the object asked for does not exist.
pub fn is_no_such_object(error: &ThriftError) -> bool {
    matches!(
        hivestore_thrift::errors::declared_parts(error),
        Some(("NoSuchObjectException", _))
    )
}

/// What went wrong in a call, with the call and its object.
pub fn failed(call: &str, object: &str, error: &ThriftError) -> String {
    format!("{call} {object} failed: {}", describe(error))
}

/// A table's name with its catalog and database.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableName {
    /// The catalog.
    pub catalog: String,
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
}

impl TableName {
    /// The database name as old calls take it: `@catalog#db` outside the default catalog.
    pub fn qualified_database(&self) -> String {
        qualified_database(&self.catalog, &self.database)
    }
}

impl std::fmt::Display for TableName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.catalog == DEFAULT_CATALOG {
            write!(formatter, "{}.{}", self.database, self.table)
        } else {
            write!(
                formatter,
                "{}.{}.{}",
                self.catalog, self.database, self.table
            )
        }
    }
}

/// A database name as Hive 3 and 4's old calls take it, their catalog before it.
pub fn qualified_database(catalog: &str, database: &str) -> String {
    if catalog == DEFAULT_CATALOG {
        database.to_string()
    } else {
        format!("@{catalog}#{database}")
    }
}

/// One side read as the import reads it.
pub struct Side<C: Calls> {
    /// The calls.
    pub calls: C,
    /// Which of them it answers.
    pub dialect: Dialect,
}

impl<C: Calls> Side<C> {
    /// Finds the side's dialect: a server without `get_catalogs` is Hive 2.
    pub fn detect(mut calls: C) -> Result<Side<C>, String> {
        let dialect = match calls.get_catalogs() {
            Ok(_) => Dialect::Hive4,
            Err(error) if is_unknown_method(&error) => Dialect::Hive2,
            Err(error) => return Err(failed("get_catalogs", "", &error)),
        };
        Ok(Side { calls, dialect })
    }

    /// The side's catalogs, whole; Hive 2's one catalog has no record to read.
    pub fn catalogs(&mut self) -> Result<Vec<Catalog>, String> {
        if self.dialect == Dialect::Hive2 {
            return Ok(Vec::new());
        }
        let mut names = self
            .calls
            .get_catalogs()
            .map_err(|error| failed("get_catalogs", "", &error))?;
        names.sort();
        let mut catalogs = Vec::with_capacity(names.len());
        for name in names {
            match self.calls.get_catalog(name.clone()) {
                Ok(Some(catalog)) => catalogs.push(catalog),
                Ok(None) => {}
                Err(error) if is_no_such_object(&error) => {}
                Err(error) => return Err(failed("get_catalog", &name, &error)),
            }
        }
        Ok(catalogs)
    }

    /// The names of the catalogs whose databases are read: Hive 2's is the default.
    pub fn catalog_names(&mut self) -> Result<Vec<String>, String> {
        if self.dialect == Dialect::Hive2 {
            return Ok(vec![DEFAULT_CATALOG.to_string()]);
        }
        let mut names = self
            .calls
            .get_catalogs()
            .map_err(|error| failed("get_catalogs", "", &error))?;
        names.sort();
        Ok(names)
    }

    /// The names of a catalog's databases, sorted.
    pub fn database_names(&mut self, catalog: &str) -> Result<Vec<String>, String> {
        let pattern = qualified_database(catalog, "*");
        let mut names = self
            .calls
            .get_databases(pattern)
            .map_err(|error| failed("get_databases", catalog, &error))?;
        names.sort();
        Ok(names)
    }

    /// A database, or `None` if it is not there.
    pub fn database(&mut self, catalog: &str, name: &str) -> Result<Option<Database>, String> {
        match self.calls.get_database(qualified_database(catalog, name)) {
            Ok(database) => Ok(Some(database)),
            Err(error) if is_no_such_object(&error) => Ok(None),
            Err(error) => Err(failed("get_database", name, &error)),
        }
    }

    /// The names of a database's tables (views included), sorted.
    pub fn table_names(&mut self, catalog: &str, database: &str) -> Result<Vec<String>, String> {
        match self
            .calls
            .get_all_tables(qualified_database(catalog, database))
        {
            Ok(mut names) => {
                names.sort();
                Ok(names)
            }
            Err(error) if is_no_such_object(&error) => Ok(Vec::new()),
            Err(error) => Err(failed("get_all_tables", database, &error)),
        }
    }

    /// A table, or `None` if it is not there.
    pub fn table(&mut self, name: &TableName) -> Result<Option<Table>, String> {
        match self
            .calls
            .get_table(name.qualified_database(), name.table.clone())
        {
            Ok(table) => Ok(Some(table)),
            Err(error) if is_no_such_object(&error) => Ok(None),
            Err(error) => Err(failed("get_table", &name.to_string(), &error)),
        }
    }

    /// A table's partition names, sorted; none if the table is gone.
    pub fn partition_names(&mut self, name: &TableName) -> Result<Vec<String>, String> {
        match self
            .calls
            .get_partition_names(name.qualified_database(), name.table.clone())
        {
            Ok(mut names) => {
                names.sort();
                Ok(names)
            }
            Err(error) if is_no_such_object(&error) => Ok(Vec::new()),
            Err(error) => Err(failed("get_partition_names", &name.to_string(), &error)),
        }
    }

    /// The partitions of `names` that exist, by name.
    pub fn partitions(
        &mut self,
        name: &TableName,
        partition_keys: &[String],
        names: &[String],
    ) -> Result<BTreeMap<String, Partition>, String> {
        let found = match self.calls.get_partitions_by_names(
            name.qualified_database(),
            name.table.clone(),
            names.to_vec(),
        ) {
            Ok(found) => found,
            Err(error) if is_no_such_object(&error) => Vec::new(),
            Err(error) => return Err(failed("get_partitions_by_names", &name.to_string(), &error)),
        };
        Ok(found
            .into_iter()
            .map(|partition| {
                let values = partition.values.clone().unwrap_or_default();
                (partition_name(partition_keys, &values), partition)
            })
            .collect())
    }

    /// A table's column statistics, of `columns`.
    pub fn table_statistics(
        &mut self,
        name: &TableName,
        columns: &[String],
    ) -> Result<Vec<ColumnStatisticsObj>, String> {
        if columns.is_empty() {
            return Ok(Vec::new());
        }
        let request = TableStatsRequest {
            db_name: name.database.clone(),
            tbl_name: name.table.clone(),
            col_names: columns.to_vec(),
            cat_name: self.catalog_field(name),
            valid_write_id_list: None,
            engine: Some(STATISTICS_ENGINE.to_string()),
            id: None,
        };
        match self.calls.get_table_statistics_req(request) {
            Ok(mut statistics) => {
                statistics.sort_by(|a, b| a.col_name.cmp(&b.col_name));
                Ok(statistics)
            }
            Err(error) if is_no_such_object(&error) => Ok(Vec::new()),
            Err(error) => Err(failed(
                "get_table_statistics_req",
                &name.to_string(),
                &error,
            )),
        }
    }

    /// The column statistics of partitions `names`, of `columns`, by partition name.
    pub fn partition_statistics(
        &mut self,
        name: &TableName,
        columns: &[String],
        names: &[String],
    ) -> Result<BTreeMap<String, Vec<ColumnStatisticsObj>>, String> {
        if columns.is_empty() || names.is_empty() {
            return Ok(BTreeMap::new());
        }
        let request = PartitionsStatsRequest {
            db_name: name.database.clone(),
            tbl_name: name.table.clone(),
            col_names: columns.to_vec(),
            part_names: names.to_vec(),
            cat_name: self.catalog_field(name),
            valid_write_id_list: None,
            engine: Some(STATISTICS_ENGINE.to_string()),
        };
        match self.calls.get_partitions_statistics_req(request) {
            Ok(mut statistics) => {
                statistics.retain(|_, columns| !columns.is_empty());
                for columns in statistics.values_mut() {
                    columns.sort_by(|a, b| a.col_name.cmp(&b.col_name));
                }
                Ok(statistics)
            }
            Err(error) if is_no_such_object(&error) => Ok(BTreeMap::new()),
            Err(error) => Err(failed(
                "get_partitions_statistics_req",
                &name.to_string(),
                &error,
            )),
        }
    }

    /// A database's functions, sorted by name.
    pub fn functions(&mut self, catalog: &str, database: &str) -> Result<Vec<Function>, String> {
        let qualified = qualified_database(catalog, database);
        let mut names = match self.calls.get_functions(qualified.clone()) {
            Ok(names) => names,
            Err(error) if is_no_such_object(&error) => return Ok(Vec::new()),
            Err(error) => return Err(failed("get_functions", database, &error)),
        };
        names.sort();
        let mut functions = Vec::with_capacity(names.len());
        for name in names {
            match self.calls.get_function(qualified.clone(), name.clone()) {
                Ok(function) => functions.push(function),
                Err(error) if is_no_such_object(&error) => {}
                Err(error) => {
                    return Err(failed(
                        "get_function",
                        &format!("{database}.{name}"),
                        &error,
                    ))
                }
            }
        }
        Ok(functions)
    }

    /// A table's constraints; Hive 2 has primary and foreign keys only.
    pub fn constraints(&mut self, name: &TableName) -> Result<SQLAllTableConstraints, String> {
        let result = match self.dialect {
            Dialect::Hive4 => self
                .calls
                .get_all_table_constraints(AllTableConstraintsRequest {
                    db_name: name.database.clone(),
                    tbl_name: name.table.clone(),
                    cat_name: name.catalog.clone(),
                    valid_write_id_list: None,
                    table_id: None,
                }),
            Dialect::Hive2 => self
                .calls
                .get_primary_and_foreign_keys(name.database.clone(), name.table.clone()),
        };
        match result {
            Ok(constraints) => Ok(constraints),
            Err(error) if is_no_such_object(&error) => Ok(SQLAllTableConstraints::default()),
            Err(error) => Err(failed(
                "get_all_table_constraints",
                &name.to_string(),
                &error,
            )),
        }
    }

    /// Every role with its members, sorted by name.
    pub fn roles(&mut self) -> Result<Vec<(String, Vec<RolePrincipalGrant>)>, String> {
        let mut names = match self.calls.get_role_names() {
            Ok(names) => names,
            // A server without authorization's roles has none to copy.
            Err(error) if is_unknown_method(&error) => return Ok(Vec::new()),
            Err(error) => return Err(failed("get_role_names", "", &error)),
        };
        names.sort();
        let mut roles = Vec::with_capacity(names.len());
        for name in names {
            let mut members = self
                .calls
                .get_principals_in_role(name.clone())
                .map_err(|error| failed("get_principals_in_role", &name, &error))?;
            members.sort_by(|a, b| {
                (&a.principal_name, a.principal_type).cmp(&(&b.principal_name, b.principal_type))
            });
            roles.push((name, members));
        }
        Ok(roles)
    }

    /// The privileges granted on `object` to anyone, sorted.
    pub fn privileges(
        &mut self,
        object: HiveObjectRef,
    ) -> Result<Vec<HiveObjectPrivilege>, String> {
        let described = format!("{object:?}");
        match self.calls.list_privileges(object) {
            Ok(mut privileges) => {
                privileges.sort();
                Ok(privileges)
            }
            Err(error) if is_no_such_object(&error) => Ok(Vec::new()),
            Err(error) => Err(failed("list_privileges", &described, &error)),
        }
    }

    /// The id of the side's last notification event.
    pub fn current_event_id(&mut self) -> Result<i64, String> {
        self.calls
            .get_current_notification_event_id()
            .map_err(|error| failed("get_current_notificationEventId", "", &error))
    }

    /// The catalog as a request's field: none for Hive 2, which would not know it.
    fn catalog_field(&self, name: &TableName) -> Option<String> {
        match self.dialect {
            Dialect::Hive2 => None,
            Dialect::Hive4 => Some(name.catalog.clone()),
        }
    }
}

/// The engine whose statistics are read and written (Hive 4's `engine` field; Hive 2 ignores
/// the field).
pub const STATISTICS_ENGINE: &str = "hive";

/// The object a privilege of kind `object_type` on `database`.`object` is granted on.
pub fn object_ref(
    object_type: HiveObjectType,
    catalog: Option<&str>,
    database: Option<&str>,
    object: Option<&str>,
) -> HiveObjectRef {
    HiveObjectRef {
        object_type: Some(object_type),
        db_name: database.map(str::to_string),
        object_name: object.map(str::to_string),
        part_values: None,
        column_name: None,
        cat_name: catalog.map(str::to_string),
    }
}

/// The references whose grants are read metastore-wide, one call each: every database's,
/// every table's, every partition's, every table column's and every partition column's. Hive
/// (2.3 and 4) and hivestore answer a reference without a database with the grants on every
/// object of its kind, to every principal when none is named; a `COLUMN` reference with
/// partition values (any) selects partition columns, one without them table columns.
pub fn grant_kinds() -> Vec<HiveObjectRef> {
    let every = |object_type, part_values: Option<Vec<String>>| HiveObjectRef {
        object_type: Some(object_type),
        db_name: None,
        object_name: None,
        part_values,
        column_name: None,
        cat_name: None,
    };
    vec![
        every(HiveObjectType::DATABASE, None),
        every(HiveObjectType::TABLE, None),
        every(HiveObjectType::PARTITION, None),
        every(HiveObjectType::COLUMN, None),
        every(HiveObjectType::COLUMN, Some(vec![String::new()])),
    ]
}

/// Of `grant_kinds`, those the per-object reads of the copy and `--verify` do not cover:
/// partitions', table columns' and partition columns'.
pub fn fine_grant_kinds() -> Vec<HiveObjectRef> {
    grant_kinds().split_off(2)
}

/// Hive's partition name: `key=value/...`, keys and values escaped as Hive escapes paths.
pub fn partition_name(keys: &[String], values: &[String]) -> String {
    hivestore_engine::partition_name::make_partition_name(keys, values)
}

/// A `Session` of the handler over `state`, as the import writes and reads the copy.
pub fn copy_session(state: &std::sync::Arc<hivestore_thrift::service::ServerState>) -> Session {
    let peer = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    Session::new(std::sync::Arc::clone(state), peer)
}

/// What a failed call answered, for a person: the exception with its message, or the
/// transport's or protocol's error.
pub fn describe(error: &ThriftError) -> String {
    match error {
        ThriftError::User(exception) => format!("{exception:?}"),
        ThriftError::Application(application) if !application.message.is_empty() => {
            format!("{error}: {}", application.message)
        }
        ThriftError::Transport(transport) if !transport.message.is_empty() => {
            format!("{error}: {}", transport.message)
        }
        other => other.to_string(),
    }
}
