//! Tables: create, get (singly and in batches), fields and schema, alter, drop, listings.

use hivestore_engine::{
    is_transactional, normalize, AlterTableOptions, DropTableOptions, Error as EngineError,
    ExpectedParameter, StatsContext, COLUMN_STATS_ACCURATE,
};
use hivestore_idl::hive_metastore::{
    AlterTableRequest, AlterTableResponse, CreateTableRequest, CreationMetadata, DropTableRequest,
    EnvironmentContext, ExtendedTableInfo, FieldSchema, GetFieldsRequest, GetFieldsResponse,
    GetSchemaRequest, GetSchemaResponse, GetTableRequest, GetTableResult, GetTablesExtRequest,
    GetTablesRequest, GetTablesResult, Table, TableMeta, TruncateTableRequest,
    TruncateTableResponse,
};

use super::partitions::{authorize_table, TableName, ALTER, DELETE, SELECT};
use super::session::meta_conf_bool;
use super::{
    catalog_or_default, context_properties, is_true, parse_database_name, require_database_name,
};
use crate::access::{Need, Privilege, Target};
use crate::convert::{
    creation_metadata_from_idl, fields_to_idl, principal_type_to_idl, table_from_idl, table_to_idl,
};
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::metastore_conf;
use crate::service::Session;

/// `create_table`.
pub fn create(session: &Session, table: Table) -> thrift::Result<()> {
    create_with_context(session, table, EnvironmentContext::default())
}

/// `create_table_with_environment_context`: the context asks nothing of a create.
pub fn create_with_context(
    session: &Session,
    table: Table,
    _context: EnvironmentContext,
) -> thrift::Result<()> {
    let catalog = catalog_or_default(table.cat_name.clone());
    let mut table = table_from_idl(table, &catalog);
    session.authorize(
        Need::Privilege(Privilege::Create),
        Target::Database {
            catalog: &table.cat_name,
            database: &table.db_name,
        },
    )?;
    if table.owner.is_none() {
        table.owner = session.user();
    }
    let database = format!("{}.{}", table.cat_name, table.db_name);
    match session.store().create_table(table) {
        Ok(_) => Ok(()),
        // Hive turns the missing database into InvalidObjectException.
        Err(EngineError::NoSuchObject(_)) => Err(exception(
            Declared::InvalidObject,
            format!("Database {database} doesn't exist."),
        )),
        Err(error) => Err(to_thrift(error, throws::CREATE)),
    }
}

/// `create_table_req`: with constraints, the table and its constraints in one write.
pub fn create_req(session: &Session, request: CreateTableRequest) -> thrift::Result<()> {
    let constraints = super::constraints::TableConstraints {
        primary_keys: request.primary_keys.unwrap_or_default(),
        foreign_keys: request.foreign_keys.unwrap_or_default(),
        unique_constraints: request.unique_constraints.unwrap_or_default(),
        not_null_constraints: request.not_null_constraints.unwrap_or_default(),
        default_constraints: request.default_constraints.unwrap_or_default(),
        check_constraints: request.check_constraints.unwrap_or_default(),
    };
    if constraints.is_empty() {
        return create(session, request.table);
    }
    super::constraints::create_table(session, request.table, constraints)
}

fn get_table(
    session: &Session,
    catalog: &str,
    database: &str,
    name: &str,
) -> thrift::Result<Table> {
    session
        .store()
        .get_table(catalog, database, name)
        .map(table_to_idl)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// The table `get_table` names (the database name may carry its catalog), named (`SELECT`)
/// for both of its paths.
pub(crate) fn get_table_name(
    session: &Session,
    database: &str,
    name: String,
) -> thrift::Result<TableName> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    Ok(table)
}

/// The table `get_table_req` names, named (`SELECT`) for both of its paths.
pub(crate) fn get_req_table_name(
    session: &Session,
    (catalog, database, name): (Option<String>, String, String),
) -> thrift::Result<TableName> {
    let table = TableName::request(catalog, database, name);
    table.authorize(session, SELECT)?;
    Ok(table)
}

/// `get_table`.
pub fn get(session: &Session, database: String, name: String) -> thrift::Result<Table> {
    let table = get_table_name(session, &database, name)?;
    get_table(session, &table.catalog, &table.database, &table.name)
}

/// `get_table_req`.
pub fn get_req(session: &Session, request: GetTableRequest) -> thrift::Result<GetTableResult> {
    let names = (request.cat_name, request.db_name, request.tbl_name);
    let TableName {
        catalog,
        database,
        name,
    } = &get_req_table_name(session, names)?;
    let mut table = get_table(session, catalog, database, name)?;
    // Hive 4 checks an unpartitioned transactional table's statistics against the reader's
    // snapshot, and hides their accurate state from a reader that cannot see them.
    let mut is_stats_compliant = None;
    let unpartitioned = table.partition_keys.as_ref().is_none_or(Vec::is_empty);
    let parameters = table.parameters.as_mut();
    if let (Some(snapshot), Some(parameters)) = (&request.valid_write_id_list, parameters) {
        if unpartitioned && is_transactional(parameters) {
            let visible = session
                .store()
                .table_statistics_visible(catalog, database, name, snapshot)
                .map_err(|error| to_thrift(error, throws::GET))?;
            if !visible {
                parameters.remove(COLUMN_STATS_ACCURATE);
            }
            is_stats_compliant = Some(visible);
        }
    }
    table.is_stats_compliant = is_stats_compliant;
    Ok(GetTableResult {
        table,
        is_stats_compliant,
    })
}

/// Fetches the named tables; names that match no table are silently left out, as Hive does,
/// and a name given twice is answered once. A database that is not named or does not exist
/// is `UnknownDBException`.
fn tables_by_name(
    session: &Session,
    catalog: &str,
    database: &str,
    names: Vec<String>,
) -> thrift::Result<Vec<Table>> {
    if database.is_empty() {
        return Err(exception(Declared::UnknownDb, "DB name is null or empty"));
    }
    // Hive's store answers each table once, however often the request names it.
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    let names: Vec<String> = names
        .into_iter()
        .filter(|name| seen.insert(name.trim().to_lowercase()))
        .collect();
    for name in &names {
        authorize_table(session, SELECT, (catalog, database, name))?;
    }
    let store = session.store();
    if let Err(error) = store.get_database_view(catalog, database) {
        return Err(match error {
            EngineError::NoSuchObject(_) => exception(
                Declared::UnknownDb,
                format!("Could not find database {catalog}.{database}"),
            ),
            other => to_thrift(other, throws::LIST_TABLES),
        });
    }
    let mut tables = Vec::with_capacity(names.len());
    for name in names {
        match store.get_table(catalog, database, &name) {
            Ok(table) => tables.push(table_to_idl(table)),
            Err(EngineError::NoSuchObject(_)) => {}
            Err(error) => return Err(to_thrift(error, throws::LIST_TABLES)),
        }
    }
    Ok(tables)
}

/// `get_table_objects_by_name`. A null name list (`None`) is refused as Hive's handler
/// refuses it, after the database name is checked and before the database is looked up; the
/// handler passes `None` once the generated reader tells an absent list from an empty one.
pub fn get_by_names(
    session: &Session,
    database: String,
    names: impl Into<Option<Vec<String>>>,
) -> thrift::Result<Vec<Table>> {
    let (catalog, database) = require_database_name(&database)?;
    let Some(names) = names.into() else {
        if database.is_empty() {
            return Err(exception(Declared::UnknownDb, "DB name is null or empty"));
        }
        return Err(exception(
            Declared::InvalidOperation,
            format!("{database} cannot find null tables"),
        ));
    };
    tables_by_name(session, &catalog, &database, names)
}

/// `get_table_objects_by_name_req`: without names, every table of the database.
pub fn get_by_names_req(
    session: &Session,
    request: GetTablesRequest,
) -> thrift::Result<GetTablesResult> {
    let catalog = catalog_or_default(request.cat_name);
    let names = match request.tbl_names {
        Some(names) => names,
        None => {
            authorize_database(session, Need::Anyone, &catalog, &request.db_name)?;
            session
                .store()
                .list_tables_matching(
                    &catalog,
                    &request.db_name,
                    request.tables_pattern.as_deref(),
                    None,
                )
                .map_err(|error| to_thrift(error, throws::LIST_TABLES))?
        }
    };
    let tables = tables_by_name(session, &catalog, &request.db_name, names)?;
    Ok(GetTablesResult { tables })
}

/// The columns of a table; with `with_partition_keys`, followed by its partition keys
/// (`get_schema`). A missing table is `UnknownTableException`, as in Hive.
fn columns(
    session: &Session,
    catalog: &str,
    database: &str,
    name: &str,
    with_partition_keys: bool,
) -> thrift::Result<Vec<FieldSchema>> {
    authorize_table(session, SELECT, (catalog, database, name))?;
    let table =
        session
            .store()
            .get_table(catalog, database, name)
            .map_err(|error| match error {
                EngineError::NoSuchObject(message) => exception(Declared::UnknownTable, message),
                other => to_thrift(other, throws::FIELDS),
            })?;
    let mut fields = table.sd.map(|sd| sd.cols).unwrap_or_default();
    if with_partition_keys {
        fields.extend(table.partition_keys);
    }
    Ok(fields_to_idl(fields))
}

/// `get_fields`.
pub fn fields(
    session: &Session,
    database: String,
    name: String,
) -> thrift::Result<Vec<FieldSchema>> {
    let (catalog, database) = require_database_name(&database)?;
    columns(session, &catalog, &database, &name, false)
}

/// `get_fields_with_environment_context`: the context changes nothing.
pub fn fields_with_context(
    session: &Session,
    database: String,
    name: String,
    _context: EnvironmentContext,
) -> thrift::Result<Vec<FieldSchema>> {
    fields(session, database, name)
}

/// `get_fields_req`.
pub fn fields_req(
    session: &Session,
    request: GetFieldsRequest,
) -> thrift::Result<GetFieldsResponse> {
    let catalog = catalog_or_default(request.cat_name);
    let fields = columns(
        session,
        &catalog,
        &request.db_name,
        &request.tbl_name,
        false,
    )?;
    Ok(GetFieldsResponse { fields })
}

/// `get_schema`: columns, then partition keys.
pub fn schema(
    session: &Session,
    database: String,
    name: String,
) -> thrift::Result<Vec<FieldSchema>> {
    let (catalog, database) = require_database_name(&database)?;
    columns(session, &catalog, &database, &name, true)
}

/// `get_schema_with_environment_context`: the context changes nothing.
pub fn schema_with_context(
    session: &Session,
    database: String,
    name: String,
    _context: EnvironmentContext,
) -> thrift::Result<Vec<FieldSchema>> {
    schema(session, database, name)
}

/// `get_schema_req`.
pub fn schema_req(
    session: &Session,
    request: GetSchemaRequest,
) -> thrift::Result<GetSchemaResponse> {
    let catalog = catalog_or_default(request.cat_name);
    let fields = columns(session, &catalog, &request.db_name, &request.tbl_name, true)?;
    Ok(GetSchemaResponse { fields })
}

/// `get_all_tables`: every table name of the database, sorted.
pub fn list_all(session: &Session, database: String) -> thrift::Result<Vec<String>> {
    let (catalog, database) = require_database_name(&database)?;
    authorize_database(session, Need::Anyone, &catalog, &database)?;
    session
        .store()
        .list_tables(&catalog, &database)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// The table types Hive 4 knows (its `TableType` enum), spelled exactly.
const TABLE_TYPES: &[&str] = &[
    "MANAGED_TABLE",
    "EXTERNAL_TABLE",
    "VIRTUAL_VIEW",
    "MATERIALIZED_VIEW",
];

/// `get_tables(db, pattern)`: sorted names.
pub fn list_matching(
    session: &Session,
    database: String,
    pattern: String,
) -> thrift::Result<Vec<String>> {
    list_matching_type(session, database, pattern, None)
}

/// `get_tables_by_type(db, pattern, type)`: sorted names. A type Hive does not know fails as
/// Java's `TableType.valueOf` does.
pub fn list_by_type(
    session: &Session,
    database: String,
    pattern: String,
    table_type: String,
) -> thrift::Result<Vec<String>> {
    list_matching_type(session, database, pattern, Some(table_type))
}

fn list_matching_type(
    session: &Session,
    database: String,
    pattern: String,
    table_type: Option<String>,
) -> thrift::Result<Vec<String>> {
    if let Some(unknown) = table_type.as_deref().filter(|t| !TABLE_TYPES.contains(t)) {
        return Err(exception(
            Declared::Meta,
            format!(
                "java.lang.IllegalArgumentException: No enum constant org.apache.hadoop.hive.metastore.TableType.{unknown}"
            ),
        ));
    }
    let (catalog, database) = require_database_name(&database)?;
    authorize_database(session, Need::Anyone, &catalog, &database)?;
    session
        .store()
        .list_tables_matching(&catalog, &database, Some(&pattern), table_type.as_deref())
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `get_table_meta(db_patterns, tbl_patterns, tbl_types)`; the database pattern may carry its
/// catalog.
pub fn meta(
    session: &Session,
    database_pattern: String,
    table_pattern: String,
    table_types: Vec<String>,
) -> thrift::Result<Vec<TableMeta>> {
    let (catalog, database_pattern) = parse_database_name(&database_pattern)?;
    // The databases are a pattern: the server is the object listed.
    session.authorize(Need::Anyone, Target::Server)?;
    let metas = session
        .store()
        .get_table_meta(
            &catalog,
            database_pattern.as_deref(),
            Some(&table_pattern),
            &table_types,
        )
        .map_err(|error| to_thrift(error, throws::LIST))?;
    Ok(metas
        .into_iter()
        .map(|meta| TableMeta {
            db_name: meta.db_name,
            table_name: meta.table_name,
            table_type: meta.table_type,
            comments: meta.comments,
            cat_name: Some(meta.cat_name),
            owner_name: meta.owner_name,
            owner_type: meta.owner_type.map(principal_type_to_idl),
        })
        .collect())
}

/// `GetTablesExtRequest.requestedFields` bit: the access type.
const EXT_ACCESS_TYPE: i32 = 1;
/// `GetTablesExtRequest.requestedFields` bit: the processor capabilities.
const EXT_PROCESSOR_CAPABILITIES: i32 = 2;

/// `get_tables_ext`: the matching tables with the fields the request asks for.
pub fn list_ext(
    session: &Session,
    request: GetTablesExtRequest,
) -> thrift::Result<Vec<ExtendedTableInfo>> {
    authorize_database(session, Need::Anyone, &request.catalog, &request.database)?;
    let store = session.store();
    let names = store
        .list_tables_matching(
            &request.catalog,
            &request.database,
            Some(&request.table_name_pattern),
            None,
        )
        .map_err(|error| to_thrift(error, throws::LIST))?;
    let limit = request
        .limit
        .and_then(|limit| usize::try_from(limit).ok())
        .unwrap_or(usize::MAX);
    let mut infos = Vec::new();
    for name in names.into_iter().take(limit) {
        let table = match store.get_table(&request.catalog, &request.database, &name) {
            Ok(table) => table,
            Err(EngineError::NoSuchObject(_)) => continue,
            Err(error) => return Err(to_thrift(error, throws::LIST)),
        };
        let capabilities = request.requested_fields & EXT_PROCESSOR_CAPABILITIES != 0;
        infos.push(ExtendedTableInfo {
            tbl_name: table.table_name,
            access_type: (request.requested_fields & EXT_ACCESS_TYPE != 0)
                .then(|| table.access_type.map(i32::from))
                .flatten(),
            required_read_capabilities: table.required_read_capabilities.filter(|_| capabilities),
            required_write_capabilities: table.required_write_capabilities.filter(|_| capabilities),
        });
    }
    Ok(infos)
}

/// `get_table_names_by_filter`: Hive's `hive_filter_field_*` filter language; a negative
/// `max_tables` means all.
pub fn names_by_filter(
    session: &Session,
    database: String,
    filter: String,
    max_tables: i16,
) -> thrift::Result<Vec<String>> {
    let (catalog, database) = require_database_name(&database)?;
    authorize_database(session, Need::Anyone, &catalog, &database)?;
    let max = usize::try_from(max_tables).ok();
    session
        .store()
        .list_table_names_by_filter(&catalog, &database, &filter, max)
        .map_err(|error| {
            to_thrift(
                error,
                &[
                    Declared::Meta,
                    Declared::InvalidOperation,
                    Declared::UnknownDb,
                ],
            )
        })
}

/// Environment-context key that asks an alter to push column changes to partitions.
const CASCADE_KEY: &str = "CASCADE";
/// Environment-context keys of Hive 4's compare-and-set on a table parameter.
const EXPECTED_PARAMETER_KEY: &str = "expected_parameter_key";
const EXPECTED_PARAMETER_VALUE: &str = "expected_parameter_value";

/// What an alter asks for, whichever form it came in.
struct AlterTable {
    /// Catalog of the table altered.
    catalog: String,
    /// Database of the table altered.
    database: String,
    /// Name of the table altered.
    name: String,
    /// The table as it is to be.
    table: Table,
    /// Push column changes to the partitions.
    cascade: bool,
    /// Compare-and-set: a parameter the stored table must have.
    expected: Option<(String, String)>,
    /// What the context says about statistics (`DO_NOT_UPDATE_STATS`, `STATS_GENERATED`).
    stats: StatsContext,
}

impl AlterTable {
    /// An alter from an old-style call: the database may carry its catalog; the environment
    /// context may ask for cascade or compare-and-set.
    fn from_call(
        database: &str,
        name: String,
        table: Table,
        context: Option<EnvironmentContext>,
    ) -> thrift::Result<AlterTable> {
        let (catalog, database) = require_database_name(database)?;
        let mut properties = context_properties(context);
        let expected = match (
            properties.remove(EXPECTED_PARAMETER_KEY),
            properties.remove(EXPECTED_PARAMETER_VALUE),
        ) {
            (Some(key), Some(value)) => Some((key, value)),
            _ => None,
        };
        Ok(AlterTable {
            catalog,
            database,
            name,
            table,
            cascade: is_true(properties.get(CASCADE_KEY)),
            expected,
            stats: StatsContext::from_properties(&properties),
        })
    }
}

/// `alter_table`.
pub fn alter(
    session: &Session,
    database: String,
    name: String,
    table: Table,
) -> thrift::Result<()> {
    alter_as(
        session,
        AlterTable::from_call(&database, name, table, None)?,
    )
}

/// `alter_table_with_environment_context`: the context may ask for cascade or
/// compare-and-set.
pub fn alter_with_context(
    session: &Session,
    database: String,
    name: String,
    table: Table,
    context: EnvironmentContext,
) -> thrift::Result<()> {
    alter_as(
        session,
        AlterTable::from_call(&database, name, table, Some(context))?,
    )
}

/// `alter_table_with_cascade`.
pub fn alter_with_cascade(
    session: &Session,
    database: String,
    name: String,
    table: Table,
    cascade: bool,
) -> thrift::Result<()> {
    let mut alter = AlterTable::from_call(&database, name, table, None)?;
    alter.cascade = cascade;
    alter_as(session, alter)
}

/// Every form of alter, once read.
fn alter_as(session: &Session, alter: AlterTable) -> thrift::Result<()> {
    let table = table_from_idl(alter.table, &alter.catalog);
    let altered = (
        alter.catalog.as_str(),
        alter.database.as_str(),
        alter.name.as_str(),
    );
    authorize_table(session, ALTER, altered)?;
    let (catalog, database, name) = altered;
    session.authorize_owner_change(
        Target::Table {
            catalog,
            database,
            table: name,
        },
        table.owner.as_deref(),
        table.owner_type,
    )?;
    if let Some(destination) = renamed_to(&alter.database, &alter.name, &table) {
        let create = Need::Privilege(Privilege::Create);
        authorize_database(session, create, &alter.catalog, &destination)?;
    }
    let options = AlterTableOptions {
        cascade: alter.cascade,
        expected_parameter: alter
            .expected
            .map(|(key, value)| ExpectedParameter { key, value }),
        stats: alter.stats,
        disallow_incompatible_col_type_changes: metastore_conf::find(
            metastore_conf::DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES,
        )
        .and_then(|var| meta_conf_bool(session, var)),
    };
    session
        .store()
        .alter_table_with_options(
            &alter.catalog,
            &alter.database,
            &alter.name,
            table,
            &options,
        )
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::ALTER))
}

/// `alter_table_req`: the compare-and-set may come in the request fields or the context.
pub fn alter_req(
    session: &Session,
    request: AlterTableRequest,
) -> thrift::Result<AlterTableResponse> {
    let catalog = catalog_or_default(request.cat_name);
    let mut alter_table = AlterTable::from_call(
        &request.db_name,
        request.table_name,
        request.table,
        request.environment_context,
    )?;
    alter_table.catalog = catalog;
    if let (Some(key), Some(value)) = (
        request.expected_parameter_key,
        request.expected_parameter_value,
    ) {
        alter_table.expected = Some((key, value));
    }
    alter_as(session, alter_table)?;
    Ok(AlterTableResponse {})
}

/// `drop_table`.
pub fn drop_one(
    session: &Session,
    database: String,
    name: String,
    delete_data: bool,
) -> thrift::Result<()> {
    let (catalog, database) = require_database_name(&database)?;
    drop_table(session, &catalog, &database, &name, delete_data)
}

/// `drop_table_with_environment_context`: the context asks nothing of a drop.
pub fn drop_with_context(
    session: &Session,
    database: String,
    name: String,
    delete_data: bool,
    _context: EnvironmentContext,
) -> thrift::Result<()> {
    drop_one(session, database, name, delete_data)
}

/// `drop_table_req`.
pub fn drop_req(session: &Session, request: DropTableRequest) -> thrift::Result<()> {
    let catalog = catalog_or_default(request.catalog_name);
    let delete_data = request.delete_data.unwrap_or(false);
    drop_table(
        session,
        &catalog,
        &request.db_name,
        &request.table_name,
        delete_data,
    )
}

fn drop_table(
    session: &Session,
    catalog: &str,
    database: &str,
    name: &str,
    delete_data: bool,
) -> thrift::Result<()> {
    let drop = Need::Privilege(Privilege::Drop);
    authorize_table(session, drop, (catalog, database, name))?;
    let options = DropTableOptions { delete_data };
    let dropped = session
        .store()
        .drop_table_with_options(catalog, database, name, &options)
        .map_err(|error| to_thrift(error, throws::DROP))?;
    if !dropped.warehouse.is_clean() {
        tracing::warn!(table = %format!("{catalog}.{database}.{name}"), errors = ?dropped.warehouse.errors, "table dropped, but its data was not all deleted");
    }
    Ok(())
}

/// `truncate_table` and `truncate_table_req`: the whole table, or the partitions named.
pub fn truncate(
    session: &Session,
    database: String,
    name: String,
    partitions: Vec<String>,
) -> thrift::Result<()> {
    let (catalog, database) = require_database_name(&database)?;
    authorize_table(session, DELETE, (&catalog, &database, &name))?;
    session
        .store()
        .truncate_partitions(&catalog, &database, &name, &partitions)
        .map(|_| ())
        .map_err(|error| to_thrift(error, &[Declared::Meta]))
}

/// `truncate_table_req`.
pub fn truncate_req(
    session: &Session,
    request: TruncateTableRequest,
) -> thrift::Result<TruncateTableResponse> {
    truncate(
        session,
        request.db_name,
        request.table_name,
        request.part_names.unwrap_or_default(),
    )?;
    Ok(TruncateTableResponse {})
}

/// `update_creation_metadata`, sent by Hive when it rebuilds a materialized view: the view's
/// tables used, snapshot and time. A missing view is a `MetaException` (Hive's store fails on
/// it too), a table that is not a materialized view an `InvalidOperationException`.
pub fn update_creation_metadata(
    session: &Session,
    catalog: String,
    database: String,
    name: String,
    metadata: CreationMetadata,
) -> thrift::Result<()> {
    let catalog = catalog_or_default(Some(catalog));
    authorize_table(session, ALTER, (&catalog, &database, &name))?;
    session
        .store()
        .update_creation_metadata(
            &catalog,
            &database,
            &name,
            creation_metadata_from_idl(metadata),
        )
        .map_err(|error| to_thrift(error, throws::CREATION_METADATA))
}

/// Names `need` on the database `catalog.database` ([`Session::authorize`]).
fn authorize_database(
    session: &Session,
    need: Need,
    catalog: &str,
    database: &str,
) -> thrift::Result<()> {
    session.authorize(need, Target::Database { catalog, database })
}

/// The database an alter of `database.name` into `table` moves the table to, when it renames
/// it (a new database or name, as the engine tells a rename).
fn renamed_to(database: &str, name: &str, table: &hivestore_engine::Table) -> Option<String> {
    let new_database = normalize(&table.db_name);
    let new_database = if new_database.is_empty() {
        normalize(database)
    } else {
        new_database
    };
    let new_name = normalize(&table.table_name);
    let renamed = new_database != normalize(database)
        || (!new_name.is_empty() && new_name != normalize(name));
    renamed.then_some(new_database)
}
