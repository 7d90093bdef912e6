//! Tables: create, get (singly and in batches), fields and schema, alter, drop, listings.

use hivestore_engine::Error as EngineError;
use hivestore_idl::hive_metastore::{
    CreateTableRequest, EnvironmentContext, FieldSchema, GetFieldsRequest, GetFieldsResponse,
    GetSchemaRequest, GetSchemaResponse, GetTableRequest, GetTableResult, GetTablesRequest,
    GetTablesResult, Table,
};

use super::{catalog_or_default, require_database_name};
use crate::convert::{fields_to_idl, table_from_idl, table_to_idl};
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::service::Session;

/// `create_table` and `create_table_with_environment_context`.
pub fn create(
    session: &Session,
    table: Table,
    _context: Option<EnvironmentContext>,
) -> thrift::Result<()> {
    let catalog = catalog_or_default(table.cat_name.clone());
    let mut table = table_from_idl(table, &catalog);
    if table.owner.is_none() {
        table.owner = session.user();
    }
    session
        .store()
        .create_table(table)
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::CREATE))
}

/// `create_table_req`. Constraints are not stored yet: a request that carries any is refused
/// rather than half-applied.
pub fn create_req(session: &Session, request: CreateTableRequest) -> thrift::Result<()> {
    let constraint_counts = [
        request.primary_keys.as_ref().map_or(0, Vec::len),
        request.foreign_keys.as_ref().map_or(0, Vec::len),
        request.unique_constraints.as_ref().map_or(0, Vec::len),
        request.not_null_constraints.as_ref().map_or(0, Vec::len),
        request.default_constraints.as_ref().map_or(0, Vec::len),
        request.check_constraints.as_ref().map_or(0, Vec::len),
    ];
    if constraint_counts.iter().any(|count| *count > 0) {
        return Err(exception(
            Declared::Meta,
            "hivestore does not store table constraints yet; create the table without them",
        ));
    }
    create(session, request.table, request.env_context)
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

/// `get_table`: the database name may carry its catalog.
pub fn get(session: &Session, database: String, name: String) -> thrift::Result<Table> {
    let (catalog, database) = require_database_name(&database)?;
    get_table(session, &catalog, &database, &name)
}

/// `get_table_req`.
pub fn get_req(session: &Session, request: GetTableRequest) -> thrift::Result<GetTableResult> {
    let catalog = catalog_or_default(request.cat_name);
    let table = get_table(session, &catalog, &request.db_name, &request.tbl_name)?;
    Ok(GetTableResult {
        table,
        is_stats_compliant: None,
    })
}

/// Fetches the named tables; names that match no table are silently left out, as Hive does.
/// A database that does not exist is `UnknownDBException`.
fn tables_by_name(
    session: &Session,
    catalog: &str,
    database: &str,
    names: Vec<String>,
) -> thrift::Result<Vec<Table>> {
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

/// `get_table_objects_by_name`.
pub fn get_by_names(
    session: &Session,
    database: String,
    names: Vec<String>,
) -> thrift::Result<Vec<Table>> {
    let (catalog, database) = require_database_name(&database)?;
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
        None if request.tables_pattern.is_none() => session
            .store()
            .list_tables(&catalog, &request.db_name)
            .map_err(|error| to_thrift(error, throws::LIST_TABLES))?,
        None => {
            return Err(exception(
                Declared::Meta,
                "get_table_objects_by_name_req: table name patterns are not supported yet",
            ))
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

/// `get_fields` and `get_fields_with_environment_context`.
pub fn fields(
    session: &Session,
    database: String,
    name: String,
) -> thrift::Result<Vec<FieldSchema>> {
    let (catalog, database) = require_database_name(&database)?;
    columns(session, &catalog, &database, &name, false)
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

/// `get_schema` and `get_schema_with_environment_context`: columns, then partition keys.
pub fn schema(
    session: &Session,
    database: String,
    name: String,
) -> thrift::Result<Vec<FieldSchema>> {
    let (catalog, database) = require_database_name(&database)?;
    columns(session, &catalog, &database, &name, true)
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
    session
        .store()
        .list_tables(&catalog, &database)
        .map_err(|error| to_thrift(error, throws::LIST))
}
