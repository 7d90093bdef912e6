//! The compactor's calls, which HiveServer2's compactor threads (initiator, workers,
//! cleaner) make: `find_next_compact(2)`, `update_compactor_state`,
//! `find_columns_with_stats`, `set_hadoop_jobid`, `mark_compacted`, `mark_cleaned`,
//! `mark_failed`, `mark_refused`, `update_compaction_metrics_data`,
//! `remove_compaction_metrics_data`. hivestore runs no compactions itself; these move the
//! queue as Hive's `CompactionTxnHandler` does.

use hivestore_engine::txns::{
    CompactionEntry, CompactionMetric, CompactionMetricType, CompactionReport,
    NextCompactionRequest,
};
use hivestore_engine::Error as EngineError;
use hivestore_idl::hive_metastore as idl;

use super::compaction_properties;
use super::compactions::{compaction_type_from_idl, compaction_type_to_idl};
use crate::access::{Need, Target};
use crate::errors::{throws, to_thrift, undeclared};
use crate::service::Session;

/// Names the server for an admin: every call of the compactor's.
fn admin(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)
}

/// What Hive's `CompactionInfoStruct` says of `state` in `find_next_compact`'s answer: the
/// request is read before it is marked working, and Hive's `CompactionInfo` leaves its
/// state character unset, so the struct carries one NUL character.
const UNSET_STATE: &str = "\u{0}";

fn id_of(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

/// `find_next_compact2`'s answer for `entry`, field for field as Hive's
/// `NextCompactionFunction` fills it.
fn next_to_idl(entry: Option<CompactionEntry>) -> idl::OptionalCompactionInfoStruct {
    let ci = entry.map(|entry| {
        let request = entry.request;
        let properties = (!request.properties.is_empty())
            .then(|| compaction_properties::to_stringable_map(&request.properties));
        idl::CompactionInfoStruct {
            id: id_of(request.id),
            dbname: request.database,
            tablename: request.table,
            partitionname: request.partition,
            type_: compaction_type_to_idl(request.compaction_type),
            runas: None,
            properties,
            toomanyaborts: Some(false),
            state: Some(UNSET_STATE.to_string()),
            worker_id: None,
            start: Some(0),
            highest_write_id: Some(0),
            error_message: None,
            hasoldabort: Some(false),
            enqueue_time: Some(0),
            retry_retention: Some(0),
            poolname: request.pool_name,
            number_of_buckets: Some(entry.number_of_buckets.unwrap_or(0)),
            order_by_clause: entry.order_by,
        }
    });
    idl::OptionalCompactionInfoStruct { ci }
}

/// A worker's `CompactionInfoStruct` as the engine reads it. Hive refuses a state that is
/// not one character (`IllegalStateException`, an internal error on the wire).
fn report_from_idl(cr: idl::CompactionInfoStruct) -> thrift::Result<CompactionReport> {
    if let Some(state) = cr.state.as_deref() {
        if state.chars().count() != 1 {
            return Err(undeclared(format!(
                "State should only be one character but it was set to {state}"
            )));
        }
    }
    let properties = match cr.properties.as_deref() {
        Some(text) => compaction_properties::from_stringable_map(text).map_err(undeclared)?,
        None => Vec::new(),
    };
    Ok(CompactionReport {
        id: cr.id,
        database: cr.dbname,
        table: cr.tablename,
        partition: cr.partitionname,
        compaction_type: compaction_type_from_idl(cr.type_)?,
        run_as: cr.runas,
        properties,
        worker_id: cr.worker_id,
        highest_write_id: cr.highest_write_id.unwrap_or(0),
        error_message: cr.error_message,
        enqueued_at_ms: cr.enqueue_time.unwrap_or(0),
        pool_name: cr.poolname,
        number_of_buckets: cr.number_of_buckets,
        order_by: cr.order_by_clause,
    })
}

/// `find_next_compact`: the older form, by worker id only.
pub fn find_next(
    session: &Session,
    worker_id: String,
) -> thrift::Result<idl::OptionalCompactionInfoStruct> {
    let request = idl::FindNextCompactRequest {
        worker_id: Some(worker_id),
        worker_version: None,
        pool_name: None,
    };
    find_next2(session, request)
}

/// `find_next_compact2`.
pub fn find_next2(
    session: &Session,
    rqst: idl::FindNextCompactRequest,
) -> thrift::Result<idl::OptionalCompactionInfoStruct> {
    admin(session)?;
    let request = NextCompactionRequest {
        worker_id: rqst.worker_id,
        worker_version: rqst.worker_version,
        pool_name: rqst.pool_name,
    };
    let next = session
        .store()
        .find_next_compaction(&request)
        .map_err(|error| to_thrift(error, throws::LIST))?;
    Ok(next_to_idl(next))
}

/// `update_compactor_state`: declares no exception, so a failure is an internal error, as
/// Hive's server answers it.
pub fn update_state(
    session: &Session,
    cr: idl::CompactionInfoStruct,
    txn_id: i64,
) -> thrift::Result<()> {
    admin(session)?;
    let report = report_from_idl(cr)?;
    session
        .store()
        .update_compactor_state(&report, txn_id)
        .map_err(|error| to_thrift(error, throws::NONE))
}

/// `find_columns_with_stats`.
pub fn columns_with_stats(
    session: &Session,
    cr: idl::CompactionInfoStruct,
) -> thrift::Result<Vec<String>> {
    admin(session)?;
    let report = report_from_idl(cr)?;
    session
        .store()
        .columns_with_statistics(&report.database, &report.table, report.partition.as_deref())
        .map_err(|error| to_thrift(error, throws::NONE))
}

/// `set_hadoop_jobid`.
pub fn set_job_id(session: &Session, job_id: String, cq_id: i64) -> thrift::Result<()> {
    admin(session)?;
    session
        .store()
        .set_compaction_job_id(&job_id, cq_id)
        .map_err(|error| to_thrift(error, throws::NONE))
}

/// `mark_compacted`.
pub fn mark_compacted(session: &Session, cr: idl::CompactionInfoStruct) -> thrift::Result<()> {
    admin(session)?;
    session
        .store()
        .mark_compacted(cr.id)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `mark_cleaned`.
pub fn mark_cleaned(session: &Session, cr: idl::CompactionInfoStruct) -> thrift::Result<()> {
    admin(session)?;
    let report = report_from_idl(cr)?;
    session
        .store()
        .mark_cleaned(&report)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// A request that is not queued is Hive's `IllegalStateException`: an internal error.
fn completion_error(error: EngineError) -> thrift::Error {
    match error {
        EngineError::NoSuchObject(message) => undeclared(message),
        other => to_thrift(other, throws::LIST),
    }
}

/// `mark_failed`.
pub fn mark_failed(session: &Session, cr: idl::CompactionInfoStruct) -> thrift::Result<()> {
    admin(session)?;
    let report = report_from_idl(cr)?;
    session
        .store()
        .mark_compaction_failed(&report)
        .map_err(completion_error)
}

/// `mark_refused`.
pub fn mark_refused(session: &Session, cr: idl::CompactionInfoStruct) -> thrift::Result<()> {
    admin(session)?;
    let report = report_from_idl(cr)?;
    session
        .store()
        .mark_compaction_refused(&report)
        .map_err(completion_error)
}

fn metric_type_from_idl(
    kind: idl::CompactionMetricsMetricType,
) -> thrift::Result<CompactionMetricType> {
    Ok(match kind {
        idl::CompactionMetricsMetricType::NUM_OBSOLETE_DELTAS => {
            CompactionMetricType::NumObsoleteDeltas
        }
        idl::CompactionMetricsMetricType::NUM_DELTAS => CompactionMetricType::NumDeltas,
        idl::CompactionMetricsMetricType::NUM_SMALL_DELTAS => CompactionMetricType::NumSmallDeltas,
        // Hive's server reads an unknown enum value as null and fails on the required field.
        other => return Err(undeclared(format!("Unexpected metric type {}", other.0))),
    })
}

/// `update_compaction_metrics_data`.
pub fn update_metrics(
    session: &Session,
    data: idl::CompactionMetricsDataStruct,
) -> thrift::Result<bool> {
    admin(session)?;
    let metric = CompactionMetric {
        database: data.dbname,
        table: data.tblname,
        partition: data.partitionname,
        metric_type: metric_type_from_idl(data.type_)?,
        value: data.metricvalue,
        threshold: data.threshold,
    };
    session
        .store()
        .update_compaction_metric(&metric)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `remove_compaction_metrics_data`.
pub fn remove_metrics(
    session: &Session,
    request: idl::CompactionMetricsDataRequest,
) -> thrift::Result<()> {
    admin(session)?;
    let metric_type = metric_type_from_idl(request.type_)?;
    session
        .store()
        .remove_compaction_metrics(
            &request.db_name,
            &request.tbl_name,
            request.partition_name.as_deref(),
            metric_type,
        )
        .map_err(|error| to_thrift(error, throws::LIST))
}
