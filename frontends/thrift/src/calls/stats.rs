//! Column statistics: write (`update_*_column_statistics` and their `_req` forms,
//! `set_aggr_stats_for`), read (`get_*_column_statistics`, `get_table_statistics_req`,
//! `get_partitions_statistics_req`), aggregate (`get_aggr_stats_for`), delete, and Hive 4's
//! `update_transaction_statistics`.
//!
//! Deliberate differences from Hive 2.3 (each observed against it): a read of a single
//! column without statistics answers `NoSuchObjectException` where Hive 2.3 sends a reply
//! with no result (its client raises `MISSING_RESULT`); an empty statistics list is a no-op
//! where Hive 2.3 fails internally; deletes unmark the columns in `COLUMN_STATS_ACCURATE` as
//! Hive 4 does.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{SystemTime, UNIX_EPOCH};

use hivestore_engine::{
    self as engine, engine_or_default, normalize_partition_name, StatsWriteOptions,
    TransactionStatistics, DEFAULT_STATS_ENGINE,
};
use hivestore_idl::hive_metastore::{
    AggrStats, ColumnStatistics, ColumnStatisticsDesc, ColumnStatisticsObj, PartitionsStatsRequest,
    PartitionsStatsResult, SetPartitionsStatsRequest, SetPartitionsStatsResponse,
    TableStatsRequest, TableStatsResult, UpdateTransactionalStatsRequest,
};

use super::partitions::{authorize_table, SELECT, UPDATE};
use super::{catalog_or_default, require_database_name};
use crate::access::{self, Need};
use crate::convert_stats::{column_stats_from_idl, column_stats_to_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// The exceptions the statistics calls declare, by family.
mod throws {
    use crate::errors::Declared::{self, *};

    /// Writes and deletes.
    pub const WRITE: &[Declared] = &[NoSuchObject, InvalidObject, Meta, InvalidInput];
    /// `get_table_column_statistics`, `get_partition_column_statistics`.
    pub const GET_ONE: &[Declared] = &[NoSuchObject, Meta, InvalidInput, InvalidObject];
    /// `get_table_statistics_req`, `get_partitions_statistics_req`, `get_aggr_stats_for`.
    pub const GET: &[Declared] = &[NoSuchObject, Meta];
    /// `update_transaction_statistics`.
    pub const TRANSACTION: &[Declared] = &[Meta];
}

/// A table as a statistics call names it.
struct Target {
    catalog: String,
    database: String,
    table: String,
}

impl Target {
    fn of(desc: &ColumnStatisticsDesc) -> Target {
        Target {
            catalog: catalog_or_default(desc.cat_name.clone()),
            database: desc.db_name.trim().to_lowercase(),
            table: desc.table_name.trim().to_lowercase(),
        }
    }

    fn old_style(database: &str, table: &str) -> thrift::Result<Target> {
        let (catalog, database) = require_database_name(database)?;
        Ok(Target {
            catalog: catalog.trim().to_lowercase(),
            database: database.trim().to_lowercase(),
            table: table.trim().to_lowercase(),
        })
    }

    fn request(catalog: Option<String>, database: &str, table: &str) -> Target {
        Target {
            catalog: catalog_or_default(catalog).trim().to_lowercase(),
            database: database.trim().to_lowercase(),
            table: table.trim().to_lowercase(),
        }
    }

    /// Names `need` on the table ([`Session::authorize`]).
    fn authorize(&self, session: &Session, need: Need) -> thrift::Result<()> {
        authorize_table(session, need, (&self.catalog, &self.database, &self.table))
    }

    fn same_table(&self, other: &Target) -> bool {
        (&self.catalog, &self.database, &self.table)
            == (&other.catalog, &other.database, &other.table)
    }
}

/// Hive writes its server time as `lastAnalyzed`, whatever the client sent.
fn now_seconds() -> i64 {
    let elapsed = SystemTime::now().duration_since(UNIX_EPOCH);
    elapsed.map_or(0, |elapsed| {
        i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
    })
}

/// The engine of a write: the request's, else the statistics', else `hive`.
fn write_options(
    request_engine: Option<&str>,
    stats_engine: Option<&str>,
    merge: bool,
) -> StatsWriteOptions {
    let request_engine = request_engine.filter(|engine| !engine.trim().is_empty());
    let stats_engine = stats_engine.filter(|engine| !engine.trim().is_empty());
    StatsWriteOptions {
        engine: engine_or_default(request_engine.or(stats_engine)),
        merge,
        last_analyzed: now_seconds(),
        ..StatsWriteOptions::default()
    }
}

/// The write id and snapshot a `SetPartitionsStatsRequest` brings, for transactional tables.
fn with_transaction(
    mut options: StatsWriteOptions,
    write_id: Option<i64>,
    valid_write_ids: Option<String>,
) -> StatsWriteOptions {
    options.write_id = write_id.unwrap_or(-1);
    options.valid_write_ids = valid_write_ids;
    options
}

fn write_table(
    session: &Session,
    stats: ColumnStatistics,
    options: &StatsWriteOptions,
) -> thrift::Result<()> {
    let target = Target::of(&stats.stats_desc);
    target.authorize(session, UPDATE)?;
    let objects = stats
        .stats_obj
        .into_iter()
        .map(column_stats_from_idl)
        .collect();
    session
        .store()
        .update_table_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            objects,
            options,
        )
        .map_err(|error| to_thrift(error, throws::WRITE))
}

/// Writes partition statistics, all of one table, in one atomic batch.
fn write_partitions(
    session: &Session,
    list: Vec<ColumnStatistics>,
    options: &StatsWriteOptions,
) -> thrift::Result<()> {
    let Some(first) = list.first() else {
        return Ok(());
    };
    let target = Target::of(&first.stats_desc);
    target.authorize(session, UPDATE)?;
    let mut partitions = Vec::with_capacity(list.len());
    for stats in list {
        if !target.same_table(&Target::of(&stats.stats_desc)) {
            return Err(exception(
                Declared::InvalidInput,
                format!(
                    "Statistics of one request must all be of table {}.{}, not {}.{}",
                    target.database,
                    target.table,
                    stats.stats_desc.db_name,
                    stats.stats_desc.table_name
                ),
            ));
        }
        let Some(name) = stats.stats_desc.part_name else {
            return Err(exception(Declared::Meta, "Partition name is invalid. null"));
        };
        let objects = stats
            .stats_obj
            .into_iter()
            .map(column_stats_from_idl)
            .collect();
        partitions.push((name, objects));
    }
    session
        .store()
        .update_partition_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            partitions,
            options,
        )
        .map_err(|error| to_thrift(error, throws::WRITE))
}

/// `update_table_column_statistics`.
pub fn update_table(session: &Session, stats: ColumnStatistics) -> thrift::Result<bool> {
    let options = write_options(None, stats.engine.as_deref(), false);
    write_table(session, stats, &options)?;
    Ok(true)
}

/// `update_partition_column_statistics`.
pub fn update_partition(session: &Session, stats: ColumnStatistics) -> thrift::Result<bool> {
    let options = write_options(None, stats.engine.as_deref(), false);
    write_partitions(session, vec![stats], &options)?;
    Ok(true)
}

/// The one statistics object of an `update_*_column_statistics_req`, Hive 4's checks first.
fn single_request(
    request: SetPartitionsStatsRequest,
) -> thrift::Result<(ColumnStatistics, StatsWriteOptions)> {
    if request.need_merge == Some(true) {
        return Err(exception(
            Declared::InvalidInput,
            "Merge is not supported for non-aggregate stats",
        ));
    }
    let count = request.col_stats.len();
    let Some(stats) = request.col_stats.into_iter().next().filter(|_| count == 1) else {
        return Err(exception(
            Declared::InvalidInput,
            "Only one stats object expected",
        ));
    };
    let options = write_options(request.engine.as_deref(), stats.engine.as_deref(), false);
    let options = with_transaction(options, request.write_id, request.valid_write_id_list);
    Ok((stats, options))
}

/// `update_table_column_statistics_req` (Hive 4).
pub fn update_table_req(
    session: &Session,
    request: SetPartitionsStatsRequest,
) -> thrift::Result<SetPartitionsStatsResponse> {
    let (stats, options) = single_request(request)?;
    write_table(session, stats, &options)?;
    Ok(SetPartitionsStatsResponse { result: true })
}

/// `update_partition_column_statistics_req` (Hive 4).
pub fn update_partition_req(
    session: &Session,
    request: SetPartitionsStatsRequest,
) -> thrift::Result<SetPartitionsStatsResponse> {
    let (stats, options) = single_request(request)?;
    write_partitions(session, vec![stats], &options)?;
    Ok(SetPartitionsStatsResponse { result: true })
}

/// `set_aggr_stats_for`: table statistics (exactly one object) or a batch of partitions',
/// merged with what is stored when `needMerge`.
pub fn set_aggr(session: &Session, request: SetPartitionsStatsRequest) -> thrift::Result<bool> {
    let Some(first) = request.col_stats.first() else {
        return Ok(true);
    };
    let merge = request.need_merge == Some(true);
    let options = write_options(request.engine.as_deref(), first.engine.as_deref(), merge);
    let options = with_transaction(options, request.write_id, request.valid_write_id_list);
    if first.stats_desc.is_tbl_level {
        let count = request.col_stats.len();
        if count != 1 {
            return Err(exception(
                Declared::Meta,
                format!(
                    "Expecting only 1 ColumnStatistics for table's column stats, but find {count}"
                ),
            ));
        }
        let stats = request.col_stats.into_iter().next();
        if let Some(stats) = stats {
            write_table(session, stats, &options)?;
        }
        return Ok(true);
    }
    write_partitions(session, request.col_stats, &options)?;
    Ok(true)
}

fn described(
    target: &Target,
    partition_name: Option<String>,
    objects: Vec<ColumnStatisticsObj>,
    last_analyzed: i64,
) -> ColumnStatistics {
    ColumnStatistics {
        stats_desc: ColumnStatisticsDesc {
            is_tbl_level: partition_name.is_none(),
            db_name: target.database.clone(),
            table_name: target.table.clone(),
            part_name: partition_name,
            last_analyzed: Some(last_analyzed),
            cat_name: Some(target.catalog.clone()),
        },
        stats_obj: objects,
        is_stats_compliant: None,
        engine: Some(DEFAULT_STATS_ENGINE.to_string()),
    }
}

/// `get_table_column_statistics`: the `hive` engine's statistics of one column.
pub fn get_table_column(
    session: &Session,
    database: String,
    table: String,
    column: String,
) -> thrift::Result<ColumnStatistics> {
    let target = Target::old_style(&database, &table)?;
    target.authorize(session, SELECT)?;
    let column = column.trim().to_lowercase();
    let found = session
        .store()
        .table_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            std::slice::from_ref(&column),
            DEFAULT_STATS_ENGINE,
            session.settings().stats_fetch_sketches,
        )
        .map_err(|error| to_thrift(error, throws::GET_ONE))?;
    if found.stats.is_empty() {
        return Err(exception(
            Declared::NoSuchObject,
            format!(
                "Column stats doesn't exist for db={} table={} col={column}",
                target.database, target.table
            ),
        ));
    }
    let objects = found.stats.into_iter().map(column_stats_to_idl).collect();
    Ok(described(&target, None, objects, found.last_analyzed))
}

/// `get_partition_column_statistics`: the `hive` engine's statistics of one column of one
/// partition.
pub fn get_partition_column(
    session: &Session,
    database: String,
    table: String,
    partition_name: String,
    column: String,
) -> thrift::Result<ColumnStatistics> {
    let target = Target::old_style(&database, &table)?;
    target.authorize(session, SELECT)?;
    let column = column.trim().to_lowercase();
    let found = session
        .store()
        .partition_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            std::slice::from_ref(&partition_name),
            std::slice::from_ref(&column),
            DEFAULT_STATS_ENGINE,
            session.settings().stats_fetch_sketches,
        )
        .map_err(|error| to_thrift(error, throws::GET_ONE))?;
    let Some(partition) = found.into_iter().next() else {
        return Err(exception(
            Declared::NoSuchObject,
            format!(
                "Column stats doesn't exist for db={} table={} partition={partition_name} col={column}",
                target.database, target.table
            ),
        ));
    };
    let objects = partition
        .stats
        .into_iter()
        .map(column_stats_to_idl)
        .collect();
    Ok(described(
        &target,
        Some(partition.partition_name),
        objects,
        partition.last_analyzed,
    ))
}

/// `get_table_statistics_req`.
pub fn get_table_req(
    session: &Session,
    request: TableStatsRequest,
) -> thrift::Result<TableStatsResult> {
    let target = Target::request(request.cat_name, &request.db_name, &request.tbl_name);
    target.authorize(session, SELECT)?;
    let engine = engine_or_default(request.engine.as_deref());
    let found = session
        .store()
        .table_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            &request.col_names,
            &engine,
            session.settings().stats_fetch_sketches,
        )
        .map_err(|error| to_thrift(error, throws::GET))?;
    // Hive answers no statistics, rather than flag them, when the snapshot cannot see them.
    if let Some(snapshot) = &request.valid_write_id_list {
        let visible = session
            .store()
            .table_statistics_visible(&target.catalog, &target.database, &target.table, snapshot)
            .map_err(|error| to_thrift(error, throws::GET))?;
        if !visible {
            return Ok(TableStatsResult {
                table_stats: Vec::new(),
                is_stats_compliant: None,
            });
        }
    }
    Ok(TableStatsResult {
        table_stats: found.stats.into_iter().map(column_stats_to_idl).collect(),
        is_stats_compliant: None,
    })
}

/// What `get_partitions_statistics_req` answers, before it is written: the engine's
/// statistics by partition name (the map dedupes and orders the names), partitions without
/// statistics left out. The generic path converts it to the IDL, `direct::stats` writes it
/// straight to the wire.
pub(crate) struct PartitionsStatistics {
    pub by_partition: BTreeMap<String, Vec<engine::ColumnStatistics>>,
    /// `isStatsCompliant`, never set for now.
    pub is_stats_compliant: Option<bool>,
}

/// The engine part of `get_partitions_statistics_req`; its table is named (`SELECT`) here for
/// both of its paths.
pub(crate) fn partitions_statistics(
    session: &Session,
    request: &PartitionsStatsRequest,
) -> thrift::Result<PartitionsStatistics> {
    let target = Target::request(
        request.cat_name.clone(),
        &request.db_name,
        &request.tbl_name,
    );
    target.authorize(session, SELECT)?;
    let engine = engine_or_default(request.engine.as_deref());
    let found = session
        .store()
        .partition_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            &request.part_names,
            &request.col_names,
            &engine,
            session.settings().stats_fetch_sketches,
        )
        .map_err(|error| to_thrift(error, throws::GET))?;
    // Partitions whose statistics the snapshot cannot see are left out, as Hive does.
    let hidden: BTreeSet<String> = hidden_partitions(
        session,
        &target,
        &request.part_names,
        request.valid_write_id_list.as_deref(),
    )?
    .into_iter()
    .collect();
    let mut by_partition = BTreeMap::new();
    for partition in found {
        if !hidden.contains(&partition.partition_name) {
            by_partition.insert(partition.partition_name, partition.stats);
        }
    }
    Ok(PartitionsStatistics {
        by_partition,
        is_stats_compliant: None,
    })
}

/// `get_partitions_statistics_req`.
pub fn get_partitions_req(
    session: &Session,
    request: PartitionsStatsRequest,
) -> thrift::Result<PartitionsStatsResult> {
    let found = partitions_statistics(session, &request)?;
    let part_stats = found
        .by_partition
        .into_iter()
        .map(|(name, stats)| (name, stats.into_iter().map(column_stats_to_idl).collect()))
        .collect();
    Ok(PartitionsStatsResult {
        part_stats,
        is_stats_compliant: found.is_stats_compliant,
    })
}

/// The requested partitions whose statistics the request's snapshot cannot see (none
/// without a snapshot).
fn hidden_partitions(
    session: &Session,
    target: &Target,
    names: &[String],
    snapshot: Option<&str>,
) -> thrift::Result<Vec<String>> {
    let Some(snapshot) = snapshot else {
        return Ok(Vec::new());
    };
    session
        .store()
        .partition_statistics_hidden(
            &target.catalog,
            &target.database,
            &target.table,
            names,
            snapshot,
        )
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `get_aggr_stats_for`.
pub fn get_aggr(session: &Session, request: PartitionsStatsRequest) -> thrift::Result<AggrStats> {
    let target = Target::request(request.cat_name, &request.db_name, &request.tbl_name);
    target.authorize(session, SELECT)?;
    let engine = engine_or_default(request.engine.as_deref());
    // Given a snapshot, Hive aggregates only when it sees the statistics of every partition
    // named (and of some partition), else answers none.
    if request.valid_write_id_list.is_some() {
        let snapshot = request.valid_write_id_list.as_deref();
        let hidden = hidden_partitions(session, &target, &request.part_names, snapshot)?;
        if request.part_names.is_empty() || !hidden.is_empty() {
            return Ok(AggrStats {
                col_stats: Vec::new(),
                parts_found: 0,
                is_stats_compliant: None,
            });
        }
    }
    let aggregate = session
        .store()
        .aggregate_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            &request.part_names,
            &request.col_names,
            &engine,
        )
        .map_err(|error| to_thrift(error, throws::GET))?;
    Ok(AggrStats {
        col_stats: aggregate
            .stats
            .into_iter()
            .map(column_stats_to_idl)
            .collect(),
        parts_found: aggregate.partitions_found,
        is_stats_compliant: None,
    })
}

/// A column argument of a delete: empty (Java's `null`) means every column.
fn column_argument(column: &str) -> Option<String> {
    let column = column.trim();
    (!column.is_empty()).then(|| column.to_lowercase())
}

/// `delete_table_column_statistics`.
pub fn delete_table(
    session: &Session,
    database: String,
    table: String,
    column: String,
    engine: String,
) -> thrift::Result<bool> {
    let target = Target::old_style(&database, &table)?;
    target.authorize(session, UPDATE)?;
    let column = column_argument(&column);
    session
        .store()
        .delete_table_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            column.as_deref(),
            &engine_or_default(Some(&engine)),
        )
        .map_err(|error| to_thrift(error, throws::WRITE))?;
    Ok(true)
}

/// `delete_partition_column_statistics`.
pub fn delete_partition(
    session: &Session,
    database: String,
    table: String,
    partition_name: String,
    column: String,
    engine: String,
) -> thrift::Result<bool> {
    let target = Target::old_style(&database, &table)?;
    target.authorize(session, UPDATE)?;
    let column = column_argument(&column);
    let partition_name = normalize_partition_name(&partition_name);
    session
        .store()
        .delete_partition_column_statistics(
            &target.catalog,
            &target.database,
            &target.table,
            &partition_name,
            column.as_deref(),
            &engine_or_default(Some(&engine)),
        )
        .map_err(|error| to_thrift(error, throws::WRITE))?;
    Ok(true)
}

/// `update_transaction_statistics` (Hive 4): the rows a transaction inserted, updated and
/// deleted in the table of id `tableId`, added to its totals. An id of no table changes
/// nothing, as in Hive. The request names its table by id alone, so the server, which holds
/// every table, is the object named.
pub fn update_transaction(
    session: &Session,
    request: UpdateTransactionalStatsRequest,
) -> thrift::Result<()> {
    session.authorize(UPDATE, access::Target::Server)?;
    let change = TransactionStatistics {
        inserted_count: request.insert_count,
        updated_count: request.updated_count,
        deleted_count: request.deleted_count,
    };
    session
        .store()
        .update_transaction_statistics(request.table_id, change)
        .map_err(|error| to_thrift(error, throws::TRANSACTION))
}
