//! Partitions: add and append, get, list (all, by partial values, by filter, by names),
//! alter, rename, drop, and the partition-name helpers. Old plain-argument calls and the
//! Hive 3/4 `_req` forms share one function per operation.
//!
//! `get_partitions_by_expr` and its relatives carry a Java-serialised Hive expression that only
//! Hive can read: they stay unimplemented, so Hive's client falls back to
//! `get_partitions_by_filter` or to pruning on its side (`docs/compatibility.md`).

use std::collections::BTreeMap;

use hivestore_engine::{
    partition_name_to_spec, partition_name_to_values, AddPartitionsOptions, AddedPartitions,
    DropPartitionsOptions, Error as EngineError, PartitionExchange, PartitionSelection,
    StatsContext,
};
use hivestore_idl::hive_metastore::{
    AddPartitionsRequest, AddPartitionsResult, AlterPartitionsRequest, AlterPartitionsResponse,
    AppendPartitionsRequest, DropPartitionRequest, DropPartitionsRequest, DropPartitionsResult,
    EnvironmentContext, FieldSchema, GetPartitionRequest, GetPartitionResponse, Partition,
    PartitionEventType, PartitionSpec, PartitionValuesRequest, PartitionValuesResponse,
    PartitionValuesRow, RenamePartitionRequest, RenamePartitionResponse, RequestPartsSpec,
};

use super::partition_expressions;
use super::{catalog_or_default, context_properties, require_database_name, spec_partitions};
use crate::access::{Need, Privilege, Target};
use crate::convert::{partition_from_idl, partition_to_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// What reading a table's metadata, partitions or statistics needs.
pub(crate) const SELECT: Need = Need::Privilege(Privilege::Select);
/// What adding partitions (or write ids) to a table needs.
pub(crate) const INSERT: Need = Need::Privilege(Privilege::Insert);
/// What dropping a table's partitions needs.
pub(crate) const DELETE: Need = Need::Privilege(Privilege::Delete);
/// What changing a table's metadata or its partitions' needs.
pub(crate) const ALTER: Need = Need::Privilege(Privilege::Alter);
/// What writing a table's statistics or write notifications needs.
pub(crate) const UPDATE: Need = Need::Privilege(Privilege::Update);

/// Names `need` on the table `catalog.database.table` ([`Session::authorize`]).
pub(crate) fn authorize_table(
    session: &Session,
    need: Need,
    (catalog, database, table): (&str, &str, &str),
) -> thrift::Result<()> {
    let target = Target::Table {
        catalog,
        database,
        table,
    };
    session.authorize(need, target)
}

/// The exceptions the partition calls declare, by family.
pub(crate) mod throws {
    use crate::errors::Declared::{self, *};

    /// `add_partition*`, `append_partition*`.
    pub const ADD: &[Declared] = &[InvalidObject, AlreadyExists, Meta];
    /// `get_partition*`, listings, `drop_partition*`.
    pub const GET: &[Declared] = &[NoSuchObject, Meta];
    /// `get_partitions_by_names*`.
    pub const BY_NAMES: &[Declared] = &[Meta, NoSuchObject, InvalidObject];
    /// `alter_partition*`, `rename_partition*`.
    pub const ALTER: &[Declared] = &[InvalidOperation, Meta];
    /// The name helpers.
    pub const META: &[Declared] = &[Meta];
    /// `exchange_partition(s)`.
    pub const EXCHANGE: &[Declared] = &[Meta, NoSuchObject, InvalidObject, InvalidInput];
}

/// A table named the way old-style calls name it (`db` or `@cat#db`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableName {
    pub(crate) catalog: String,
    pub(crate) database: String,
    pub(crate) name: String,
}

impl TableName {
    pub(crate) fn old_style(database: &str, name: String) -> thrift::Result<TableName> {
        let (catalog, database) = require_database_name(database)?;
        Ok(TableName {
            catalog,
            database,
            name,
        })
    }

    pub(crate) fn request(catalog: Option<String>, database: String, name: String) -> TableName {
        TableName {
            catalog: catalog_or_default(catalog),
            database,
            name,
        }
    }

    /// Names `need` on this table ([`Session::authorize`]).
    pub(crate) fn authorize(&self, session: &Session, need: Need) -> thrift::Result<()> {
        authorize_table(session, need, (&self.catalog, &self.database, &self.name))
    }
}

pub(super) fn to_idl_list(partitions: Vec<hivestore_engine::Partition>) -> Vec<Partition> {
    partitions.into_iter().map(partition_to_idl).collect()
}

/// `max_parts` as Hive reads it: below zero means all.
pub(super) fn limit(max_parts: Option<i16>) -> i32 {
    i32::from(max_parts.unwrap_or(-1))
}

// ---------------------------------------------------------------------------------------------
// Adding

/// `add_partition`.
pub fn add(session: &Session, partition: Partition) -> thrift::Result<Partition> {
    add_in_context(session, partition, None)
}

/// `add_partition_with_environment_context`.
pub fn add_with_context(
    session: &Session,
    partition: Partition,
    context: EnvironmentContext,
) -> thrift::Result<Partition> {
    add_in_context(session, partition, Some(context))
}

/// `add_partition` with or without an environment context.
fn add_in_context(
    session: &Session,
    partition: Partition,
    context: Option<EnvironmentContext>,
) -> thrift::Result<Partition> {
    let partition = partition_from_idl(partition, &catalog_or_default(None));
    let table = (
        partition.cat_name.as_str(),
        partition.db_name.as_str(),
        partition.table_name.as_str(),
    );
    authorize_table(session, INSERT, table)?;
    add_one(session, partition, context)
}

/// Adds one partition, the environment context's `STATS_GENERATED` steering its statistics.
fn add_one(
    session: &Session,
    partition: hivestore_engine::Partition,
    context: Option<EnvironmentContext>,
) -> thrift::Result<Partition> {
    let options = AddPartitionsOptions {
        stats_generated: stats_context(context).stats_generated,
        ..AddPartitionsOptions::default()
    };
    session
        .store()
        .add_partition_with_options(partition, &options)
        .map(partition_to_idl)
        .map_err(|error| to_thrift(error, throws::ADD))
}

/// Partitions to add, as either decoder read them off the wire: converted to the engine's, a
/// blank catalog name left empty for the table's.
pub(crate) struct PartitionsToAdd {
    /// The table the request names (`add_partitions_req`); none for the first partition's.
    pub(crate) table: Option<TableName>,
    /// The partitions.
    pub(crate) partitions: Vec<hivestore_engine::NewPartition>,
    /// Skip partitions that exist instead of failing.
    pub(crate) if_not_exists: bool,
}

impl PartitionsToAdd {
    /// The batch of partitions the generated decoder read.
    fn from_idl(table: Option<TableName>, partitions: Vec<Partition>, if_not_exists: bool) -> Self {
        let partitions = partitions
            .into_iter()
            .map(|partition| partition_from_idl(partition, "").into())
            .collect();
        PartitionsToAdd {
            table,
            partitions,
            if_not_exists,
        }
    }
}

/// Adds `batch` to the table it names, or to the first partition's; one atomic write.
pub(crate) fn add_decoded(
    session: &Session,
    batch: PartitionsToAdd,
) -> thrift::Result<AddedPartitions> {
    let mut partitions = batch.partitions;
    let table = match (batch.table, partitions.first()) {
        (Some(table), _) => table,
        (None, Some(first)) => TableName::request(
            Some(first.cat_name.clone()),
            first.db_name.clone(),
            first.table_name.clone(),
        ),
        // No table named, and no partition to name one: nothing to add.
        (None, None) => return Ok(AddedPartitions::default()),
    };
    table.authorize(session, INSERT)?;
    if partitions.is_empty() {
        return Ok(AddedPartitions::default());
    }
    for partition in &mut partitions {
        if partition.cat_name.trim().is_empty() {
            partition.cat_name.clone_from(&table.catalog);
        }
    }
    let options = AddPartitionsOptions {
        if_not_exists: batch.if_not_exists,
        ..AddPartitionsOptions::default()
    };
    session
        .store()
        .add_partition_batch(
            &table.catalog,
            &table.database,
            &table.name,
            partitions,
            &options,
        )
        .map_err(|error| to_thrift(error, throws::ADD))
}

/// `add_partitions`: the count added.
pub fn add_many(session: &Session, partitions: Vec<Partition>) -> thrift::Result<i32> {
    let added = add_decoded(session, PartitionsToAdd::from_idl(None, partitions, false))?;
    Ok(i32::try_from(added.len()).unwrap_or(i32::MAX))
}

/// `add_partitions_pspec`: partition specs listing their partitions, or sharing one storage
/// descriptor among them.
pub fn add_pspec(session: &Session, specs: Vec<PartitionSpec>) -> thrift::Result<i32> {
    let mut partitions = Vec::new();
    for spec in specs {
        partitions.extend(spec_partitions::partitions_of(spec)?);
    }
    add_many(session, partitions)
}

/// `add_partitions_req`.
pub fn add_req(
    session: &Session,
    request: AddPartitionsRequest,
) -> thrift::Result<AddPartitionsResult> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    // Hive answers a list whenever partitions were sent, empty when every one existed (Spark's
    // ADD IF NOT EXISTS iterates it), and none for an empty request.
    let need_result = request.need_result.unwrap_or(true) && !request.parts.is_empty();
    let batch = PartitionsToAdd::from_idl(Some(table), request.parts, request.if_not_exists);
    let added = add_decoded(session, batch)?;
    Ok(add_req_result(added, need_result))
}

/// The result of `add_partitions_req`: the partitions added when `need_result`.
pub(crate) fn add_req_result(added: AddedPartitions, need_result: bool) -> AddPartitionsResult {
    AddPartitionsResult {
        partitions: need_result.then(|| to_idl_list(added.into_partitions())),
        is_stats_compliant: None,
        partition_col_schema: None,
    }
}

/// `append_partition*`: adds the partition of `values` with the table's storage.
fn append_values(
    session: &Session,
    table: TableName,
    values: Vec<String>,
    context: Option<EnvironmentContext>,
) -> thrift::Result<Partition> {
    let partition = hivestore_engine::Partition {
        values,
        db_name: table.database,
        table_name: table.name,
        cat_name: table.catalog,
        write_id: -1,
        ..hivestore_engine::Partition::default()
    };
    add_one(session, partition, context)
}

/// Values of the partition named `name` of `table`, in key order, as Hive parses an
/// `append_partition_by_name` or `get_partition_by_name` name.
fn values_of_name(
    session: &Session,
    table: &TableName,
    name: &str,
    missing: Declared,
) -> thrift::Result<Vec<String>> {
    let stored = session
        .store()
        .get_table(&table.catalog, &table.database, &table.name)
        .map_err(|error| match error {
            EngineError::NoSuchObject(_) => exception(
                missing,
                format!("{}.{} table not found", table.database, table.name),
            ),
            other => to_thrift(other, &[missing, Declared::Meta]),
        })?;
    if name.is_empty() {
        return Err(exception(Declared::Meta, "Partition name is invalid. "));
    }
    let spec: BTreeMap<String, String> = partition_name_to_spec(name).into_iter().collect();
    stored
        .partition_keys
        .iter()
        .map(|key| {
            spec.get(&key.name).cloned().ok_or_else(|| {
                exception(
                    missing,
                    format!("incomplete partition name - missing {}", key.name),
                )
            })
        })
        .collect()
}

/// `append_partition`.
pub fn append(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
) -> thrift::Result<Partition> {
    append_in_context(session, database, name, values, None)
}

/// `append_partition_with_environment_context`.
pub fn append_with_context(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    context: EnvironmentContext,
) -> thrift::Result<Partition> {
    append_in_context(session, database, name, values, Some(context))
}

/// `append_partition` with or without an environment context.
fn append_in_context(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    context: Option<EnvironmentContext>,
) -> thrift::Result<Partition> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, INSERT)?;
    append_values(session, table, values, context)
}

/// `append_partition_by_name`.
pub fn append_by_name(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
) -> thrift::Result<Partition> {
    append_by_name_in_context(session, database, name, partition_name, None)
}

/// `append_partition_by_name_with_environment_context`.
pub fn append_by_name_with_context(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
    context: EnvironmentContext,
) -> thrift::Result<Partition> {
    append_by_name_in_context(session, database, name, partition_name, Some(context))
}

/// `append_partition_by_name` with or without an environment context.
fn append_by_name_in_context(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
    context: Option<EnvironmentContext>,
) -> thrift::Result<Partition> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, INSERT)?;
    let values = values_of_name(session, &table, &partition_name, Declared::InvalidObject)?;
    append_values(session, table, values, context)
}

/// `append_partition_req`: by values, or by name when no values are given.
pub fn append_req(
    session: &Session,
    request: AppendPartitionsRequest,
) -> thrift::Result<Partition> {
    let table = TableName::request(request.catalog_name, request.db_name, request.table_name);
    table.authorize(session, INSERT)?;
    let context = request.environment_context;
    match (request.part_vals, request.name) {
        (Some(values), _) if !values.is_empty() => append_values(session, table, values, context),
        (_, Some(name)) => {
            let values = values_of_name(session, &table, &name, Declared::InvalidObject)?;
            append_values(session, table, values, context)
        }
        _ => Err(exception(
            Declared::Meta,
            "append_partition_req needs the partition's values or its name",
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Getting one

fn get_values(
    session: &Session,
    table: &TableName,
    values: &[String],
) -> thrift::Result<Partition> {
    session
        .store()
        .get_partition(&table.catalog, &table.database, &table.name, values)
        .map(partition_to_idl)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `get_partition`.
pub fn get(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
) -> thrift::Result<Partition> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    get_values(session, &table, &values)
}

/// `get_partition_with_auth`: the partition, with the grants on it of the user, its groups
/// and their roles when its table keeps grants per partition.
pub fn get_with_auth(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    user: String,
    groups: Vec<String>,
) -> thrift::Result<Partition> {
    let mut partition = [get(session, database, name, values)?];
    crate::calls::privileges::attach_partition_privileges(session, &mut partition, &user, &groups)?;
    let [partition] = partition;
    Ok(partition)
}

/// `get_partition_req`.
pub fn get_req(
    session: &Session,
    request: GetPartitionRequest,
) -> thrift::Result<GetPartitionResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, SELECT)?;
    let partition = get_values(session, &table, &request.part_vals)?;
    Ok(GetPartitionResponse { partition })
}

/// `get_partition_by_name`.
pub fn get_by_name(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
) -> thrift::Result<Partition> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    let values = values_of_name(session, &table, &partition_name, Declared::NoSuchObject)?;
    get_values(session, &table, &values)
}

// ---------------------------------------------------------------------------------------------
// Values (the listings are in `partition_listings.rs`)

/// `get_partition_values`: the values of some partition keys over the partitions a filter
/// selects (all without one), distinct unless asked otherwise, ordered by `partitionOrder`
/// (ascending unless asked otherwise; name order without it), at most `maxParts`.
pub fn values(
    session: &Session,
    request: PartitionValuesRequest,
) -> thrift::Result<PartitionValuesResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, SELECT)?;
    let store = session.store();
    let keys = store
        .get_table(&table.catalog, &table.database, &table.name)
        .map_err(|error| to_thrift(error, throws::GET))?
        .partition_keys;
    let position = |field: &FieldSchema| {
        let name = field.name.clone().unwrap_or_default().to_lowercase();
        keys.iter().position(|key| key.name == name).ok_or_else(|| {
            exception(
                Declared::Meta,
                format!(
                    "{name} is not a partition key of {}.{}",
                    table.database, table.name
                ),
            )
        })
    };
    let wanted: Vec<usize> = request
        .partition_keys
        .iter()
        .map(position)
        .collect::<thrift::Result<_>>()?;
    let order: Vec<usize> = request
        .partition_order
        .unwrap_or_default()
        .iter()
        .map(position)
        .collect::<thrift::Result<_>>()?;
    let filter = request.filter.unwrap_or_default();
    let selection = if filter.trim().is_empty() {
        PartitionSelection::All
    } else {
        PartitionSelection::Filter(&filter)
    };
    let views = store
        .partition_views(&table.catalog, &table.database, &table.name, selection, -1)
        .map_err(|error| to_thrift(error, throws::GET))?;
    let mut rows: Vec<(Vec<String>, Vec<String>)> = views
        .values()
        .map(|values| {
            let pick = |positions: &[usize]| -> Vec<String> {
                positions
                    .iter()
                    .map(|index| values[*index].clone())
                    .collect()
            };
            (pick(&order), pick(&wanted))
        })
        .collect();
    if !order.is_empty() {
        rows.sort_by(|left, right| left.0.cmp(&right.0));
        if request.ascending == Some(false) {
            rows.reverse();
        }
    }
    let mut seen = std::collections::HashSet::new();
    let distinct = request.apply_distinct.unwrap_or(true);
    let limit = request
        .max_parts
        .and_then(|max| usize::try_from(max).ok())
        .unwrap_or(usize::MAX);
    let partition_values = rows
        .into_iter()
        .map(|(_, row)| row)
        .filter(|row| !distinct || seen.insert(row.clone()))
        .take(limit)
        .map(|row| PartitionValuesRow { row })
        .collect();
    Ok(PartitionValuesResponse { partition_values })
}

// ---------------------------------------------------------------------------------------------
// Altering and renaming

/// What an alter's environment context says about statistics (`DO_NOT_UPDATE_STATS`,
/// `STATS_GENERATED`).
fn stats_context(context: Option<EnvironmentContext>) -> StatsContext {
    StatsContext::from_properties(&context_properties(context))
}

fn alter_batch(
    session: &Session,
    table: TableName,
    partitions: Vec<Partition>,
    context: Option<EnvironmentContext>,
) -> thrift::Result<()> {
    table.authorize(session, ALTER)?;
    let partitions = partitions
        .into_iter()
        .map(|partition| partition_from_idl(partition, &table.catalog))
        .collect();
    let stats = stats_context(context);
    session
        .store()
        .alter_partitions_with_context(
            &table.catalog,
            &table.database,
            &table.name,
            partitions,
            &stats,
        )
        .map(drop)
        .map_err(|error| to_thrift(error, throws::ALTER))
}

/// `alter_partition`.
pub fn alter(
    session: &Session,
    database: String,
    name: String,
    partition: Partition,
) -> thrift::Result<()> {
    alter_in_context(session, database, name, partition, None)
}

/// `alter_partition_with_environment_context`.
pub fn alter_with_context(
    session: &Session,
    database: String,
    name: String,
    partition: Partition,
    context: EnvironmentContext,
) -> thrift::Result<()> {
    alter_in_context(session, database, name, partition, Some(context))
}

/// `alter_partition` with or without an environment context.
fn alter_in_context(
    session: &Session,
    database: String,
    name: String,
    partition: Partition,
    context: Option<EnvironmentContext>,
) -> thrift::Result<()> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, ALTER)?;
    let partition = partition_from_idl(partition, &table.catalog);
    let stats = stats_context(context);
    session
        .store()
        .alter_partition_with_context(
            &table.catalog,
            &table.database,
            &table.name,
            partition,
            &stats,
        )
        .map(drop)
        .map_err(|error| to_thrift(error, throws::ALTER))
}

/// `alter_partitions`.
pub fn alter_many(
    session: &Session,
    database: String,
    name: String,
    partitions: Vec<Partition>,
) -> thrift::Result<()> {
    alter_many_in_context(session, database, name, partitions, None)
}

/// `alter_partitions_with_environment_context`.
pub fn alter_many_with_context(
    session: &Session,
    database: String,
    name: String,
    partitions: Vec<Partition>,
    context: EnvironmentContext,
) -> thrift::Result<()> {
    alter_many_in_context(session, database, name, partitions, Some(context))
}

/// `alter_partitions` with or without an environment context.
fn alter_many_in_context(
    session: &Session,
    database: String,
    name: String,
    partitions: Vec<Partition>,
    context: Option<EnvironmentContext>,
) -> thrift::Result<()> {
    let table = TableName::old_style(&database, name)?;
    alter_batch(session, table, partitions, context)
}

/// `alter_partitions_req`.
pub fn alter_req(
    session: &Session,
    request: AlterPartitionsRequest,
) -> thrift::Result<AlterPartitionsResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.table_name);
    alter_batch(
        session,
        table,
        request.partitions,
        request.environment_context,
    )?;
    Ok(AlterPartitionsResponse {})
}

fn rename_values(
    session: &Session,
    table: TableName,
    old_values: Vec<String>,
    partition: Partition,
) -> thrift::Result<()> {
    table.authorize(session, ALTER)?;
    let partition = partition_from_idl(partition, &table.catalog);
    let store = session.store();
    let renamed = if old_values.is_empty() {
        // Hive treats a rename without old values as an alter of the new partition.
        store.alter_partition(&table.catalog, &table.database, &table.name, partition)
    } else {
        store.rename_partition(
            &table.catalog,
            &table.database,
            &table.name,
            &old_values,
            partition,
        )
    };
    renamed.map(drop).map_err(|error| match error {
        // Hive words a rename onto an existing partition, or of a missing one, as an invalid
        // operation.
        EngineError::AlreadyExists(message) | EngineError::NoSuchObject(message) => {
            exception(Declared::InvalidOperation, message)
        }
        other => to_thrift(other, throws::ALTER),
    })
}

/// `rename_partition`.
pub fn rename(
    session: &Session,
    database: String,
    name: String,
    old_values: Vec<String>,
    partition: Partition,
) -> thrift::Result<()> {
    let table = TableName::old_style(&database, name)?;
    rename_values(session, table, old_values, partition)
}

/// `rename_partition_req`.
pub fn rename_req(
    session: &Session,
    request: RenamePartitionRequest,
) -> thrift::Result<RenamePartitionResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.table_name);
    rename_values(session, table, request.part_vals, request.new_part)?;
    Ok(RenamePartitionResponse {})
}

// ---------------------------------------------------------------------------------------------
// Dropping

/// `drop_partition`.
pub fn drop_values(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    delete_data: bool,
) -> thrift::Result<bool> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, DELETE)?;
    session
        .store()
        .drop_partition(
            &table.catalog,
            &table.database,
            &table.name,
            &values,
            delete_data,
        )
        .map(|_| true)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `drop_partition_with_environment_context`: the context asks nothing of a drop.
pub fn drop_values_with_context(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    delete_data: bool,
    _context: EnvironmentContext,
) -> thrift::Result<bool> {
    drop_values(session, database, name, values, delete_data)
}

/// `drop_partition_by_name`.
pub fn drop_by_name(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
    delete_data: bool,
) -> thrift::Result<bool> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, DELETE)?;
    let values = values_of_name(session, &table, &partition_name, Declared::NoSuchObject)?;
    session
        .store()
        .drop_partition(
            &table.catalog,
            &table.database,
            &table.name,
            &values,
            delete_data,
        )
        .map(|_| true)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `drop_partition_by_name_with_environment_context`: the context asks nothing of a drop.
pub fn drop_by_name_with_context(
    session: &Session,
    database: String,
    name: String,
    partition_name: String,
    delete_data: bool,
    _context: EnvironmentContext,
) -> thrift::Result<bool> {
    drop_by_name(session, database, name, partition_name, delete_data)
}

/// `drop_partition_req`: by values, or by name when no values are given.
pub fn drop_req(session: &Session, request: DropPartitionRequest) -> thrift::Result<bool> {
    let (catalog, database) = (request.cat_name, request.db_name);
    let delete_data = request.delete_data.unwrap_or(false);
    let database = match catalog.filter(|name| !name.trim().is_empty()) {
        Some(catalog) => format!("@{catalog}#{database}"),
        None => database,
    };
    match (request.part_vals, request.part_name) {
        (Some(values), _) if !values.is_empty() => {
            drop_values(session, database, request.tbl_name, values, delete_data)
        }
        (_, Some(name)) => drop_by_name(session, database, request.tbl_name, name, delete_data),
        _ => Err(exception(
            Declared::Meta,
            "drop_partition_req needs the partition's values or its name",
        )),
    }
}

/// `drop_partitions_req`: by names (expressions are Hive-serialised and not read here).
pub fn drop_many_req(
    session: &Session,
    request: DropPartitionsRequest,
) -> thrift::Result<DropPartitionsResult> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, DELETE)?;
    let if_exists = request.if_exists.unwrap_or(true);
    let names = match request.parts {
        RequestPartsSpec::Names(names) => names,
        RequestPartsSpec::Exprs(expressions) => {
            partition_expressions::names_to_drop(session, &table, &expressions, if_exists)?
        }
    };
    let store = session.store();
    let keys = store
        .get_table(&table.catalog, &table.database, &table.name)
        .map_err(|error| to_thrift(error, throws::GET))?
        .partition_keys;
    let mut values_list = Vec::with_capacity(names.len());
    for name in &names {
        let spec: BTreeMap<String, String> = partition_name_to_spec(name).into_iter().collect();
        let values: Option<Vec<String>> = keys
            .iter()
            .map(|key| spec.get(&key.name).cloned())
            .collect();
        match values {
            Some(values) => values_list.push(values),
            None => {
                return Err(exception(
                    Declared::Meta,
                    format!("Invalid partition name {name}: it does not name every partition key"),
                ))
            }
        }
    }
    let options = DropPartitionsOptions {
        // Hive deletes data only when asked: an unset deleteData is false.
        delete_data: request.delete_data.unwrap_or(false),
        if_exists,
    };
    let dropped = store
        .drop_partitions(
            &table.catalog,
            &table.database,
            &table.name,
            &values_list,
            &options,
        )
        .map_err(|error| to_thrift(error, throws::GET))?;
    let need_result = request.need_result.unwrap_or(true);
    Ok(DropPartitionsResult {
        partitions: need_result.then(|| to_idl_list(dropped.partitions)),
    })
}

// ---------------------------------------------------------------------------------------------
// Names

/// `partition_name_to_vals`: parts that are not `key=value` are skipped, as Hive skips them.
/// The name helpers read nothing stored: anyone may, and the server is their object.
pub fn name_to_values(session: &Session, name: String) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(partition_name_to_values(&name))
}

/// `partition_name_to_spec`.
pub fn name_to_spec(session: &Session, name: String) -> thrift::Result<BTreeMap<String, String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(partition_name_to_spec(&name).into_iter().collect())
}

/// `partition_name_has_valid_characters`: with no whitelist configured, every value is valid.
pub fn has_valid_characters(
    session: &Session,
    values: Vec<String>,
    throw: bool,
) -> thrift::Result<bool> {
    session.authorize(Need::Anyone, Target::Server)?;
    hivestore_engine::partition_name_has_valid_characters(&values, None, throw)
        .map_err(|error| to_thrift(error, throws::META))
}

// ---------------------------------------------------------------------------------------------
// Exchanging

/// `exchange_partitions`: moves the source table's partitions matching the partial spec
/// `partition_specs` to the destination table; returns them as they now are.
pub fn exchange_many(
    session: &Session,
    partition_specs: BTreeMap<String, String>,
    source_database: String,
    source_table: String,
    dest_database: String,
    dest_table: String,
) -> thrift::Result<Vec<Partition>> {
    let source = TableName::old_style(&source_database, source_table)?;
    let dest = TableName::old_style(&dest_database, dest_table)?;
    if !source
        .catalog
        .trim()
        .eq_ignore_ascii_case(dest.catalog.trim())
    {
        return Err(exception(
            Declared::Meta,
            "You cannot move a partition across catalogs".to_string(),
        ));
    }
    source.authorize(session, DELETE)?;
    dest.authorize(session, INSERT)?;
    let exchange = PartitionExchange {
        catalog: &source.catalog,
        source_database: &source.database,
        source_table: &source.name,
        dest_database: &dest.database,
        dest_table: &dest.name,
        spec: &partition_specs,
    };
    session
        .store()
        .exchange_partitions(&exchange)
        .map(to_idl_list)
        .map_err(|error| to_thrift(error, throws::EXCHANGE))
}

/// `exchange_partition`: as [`exchange_many`]; Hive answers an empty partition, not the moved
/// ones.
pub fn exchange(
    session: &Session,
    partition_specs: BTreeMap<String, String>,
    source_database: String,
    source_table: String,
    dest_database: String,
    dest_table: String,
) -> thrift::Result<Partition> {
    exchange_many(
        session,
        partition_specs,
        source_database,
        source_table,
        dest_database,
        dest_table,
    )?;
    Ok(Partition {
        values: None,
        db_name: None,
        table_name: None,
        create_time: None,
        last_access_time: None,
        sd: None,
        parameters: None,
        privileges: None,
        cat_name: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: None,
    })
}

// ---------------------------------------------------------------------------------------------
// Partition events

/// Engine errors of the partition-event calls as Hive throws them: a missing table is
/// `UnknownTableException`, a spec that does not fit the keys `InvalidPartitionException`.
fn event_error(error: EngineError) -> thrift::Error {
    match error {
        EngineError::NoSuchObject(message) => exception(Declared::UnknownTable, message),
        EngineError::InvalidInput(message) => exception(Declared::InvalidPartition, message),
        other => to_thrift(other, &[Declared::Meta]),
    }
}

/// `markPartitionForEvent`.
pub fn mark_for_event(
    session: &Session,
    database: String,
    name: String,
    spec: BTreeMap<String, String>,
    event_type: PartitionEventType,
) -> thrift::Result<()> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, ALTER)?;
    session
        .store()
        .mark_partition_for_event(
            &table.catalog,
            &table.database,
            &table.name,
            &spec,
            event_type.0,
        )
        .map_err(event_error)
}

/// `isPartitionMarkedForEvent`.
pub fn is_marked_for_event(
    session: &Session,
    database: String,
    name: String,
    spec: BTreeMap<String, String>,
    event_type: PartitionEventType,
) -> thrift::Result<bool> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    session
        .store()
        .is_partition_marked_for_event(
            &table.catalog,
            &table.database,
            &table.name,
            &spec,
            event_type.0,
        )
        .map_err(event_error)
}
