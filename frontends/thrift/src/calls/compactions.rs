//! The compaction queue: `compact`, `compact2`, `show_compact`, `submit_for_cleanup`,
//! `get_latest_committed_compaction_info`, `abort_Compactions`. HiveServer2's compactor
//! threads move requests along through the compactor's calls (`compactor.rs`).

use std::collections::BTreeMap;

use hivestore_engine::txns::{
    BucketLayout, Compaction, CompactionEntry, CompactionType, ShowCompactFilter,
};
use hivestore_idl::hive_metastore as idl;

use super::partitions::{authorize_table, ALTER};
use crate::access::{Need, Target};
use crate::errors::{throws, to_thrift, undeclared};
use crate::service::Session;

/// Names the server for an admin: the compaction queue's administration.
fn admin(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)
}

fn compaction_from_idl(request: idl::CompactionRequest) -> thrift::Result<Compaction> {
    Ok(Compaction {
        id: 0,
        database: request.dbname,
        table: request.tablename,
        partition: request.partitionname.filter(|name| !name.is_empty()),
        compaction_type: compaction_type_from_idl(request.type_)?,
        run_as: request.runas,
        properties: request.properties.unwrap_or_default().into_iter().collect(),
        initiator_id: request.initiator_id,
        initiator_version: request.initiator_version,
        pool_name: request.pool_name,
        enqueued_at_ms: 0,
    })
}

/// `compact`: the older form, which answers nothing.
pub fn compact(session: &Session, request: idl::CompactionRequest) -> thrift::Result<()> {
    compact2(session, request).map(drop)
}

/// `compact2`.
pub fn compact2(
    session: &Session,
    request: idl::CompactionRequest,
) -> thrift::Result<idl::CompactionResponse> {
    let layout = BucketLayout {
        number_of_buckets: request.number_of_buckets,
        order_by: request.order_by_clause.clone(),
    };
    let compaction = compaction_from_idl(request)?;
    let table = (
        hivestore_engine::DEFAULT_CATALOG_NAME,
        compaction.database.as_str(),
        compaction.table.as_str(),
    );
    authorize_table(session, ALTER, table)?;
    let response = session
        .store()
        .compact(compaction, layout)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::CompactionResponse {
        // Hive answers -1 for a request it does not queue.
        id: response
            .id
            .map_or(-1, |id| i64::try_from(id).unwrap_or(i64::MAX)),
        state: response.state,
        accepted: response.accepted,
        errormessage: response.error_message,
    })
}

/// `show_compact`.
pub fn show(
    session: &Session,
    request: idl::ShowCompactRequest,
) -> thrift::Result<idl::ShowCompactResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let filter = ShowCompactFilter {
        id: request.id.and_then(|id| u64::try_from(id).ok()),
        database: request.db_name.filter(|name| !name.is_empty()),
        table: request.tb_name.filter(|name| !name.is_empty()),
        partition: request.part_name.filter(|name| !name.is_empty()),
        compaction_type: request.type_.map(compaction_type_from_idl).transpose()?,
        state: request.state.filter(|state| !state.is_empty()),
        pool_name: request.pool_name.filter(|name| !name.is_empty()),
        limit: request
            .limit
            .and_then(|limit| usize::try_from(limit).ok())
            .filter(|limit| *limit > 0),
    };
    let listed = session
        .store()
        .show_compact(&filter)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::ShowCompactResponse {
        compacts: listed.into_iter().map(element).collect(),
    })
}

/// `submit_for_cleanup`: queued as ready for cleaning; always true, as in Hive.
pub fn submit_for_cleanup(
    session: &Session,
    request: idl::CompactionRequest,
    highest_write_id: i64,
    txn_id: i64,
) -> thrift::Result<bool> {
    admin(session)?;
    let compaction = compaction_from_idl(request)?;
    session
        .store()
        .submit_for_cleanup(compaction, highest_write_id, txn_id)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `get_latest_committed_compaction_info`.
pub fn latest_committed(
    session: &Session,
    request: idl::GetLatestCommittedCompactionInfoRequest,
) -> thrift::Result<idl::GetLatestCommittedCompactionInfoResponse> {
    admin(session)?;
    let partitions = request.partitionnames.unwrap_or_default();
    let latest = session
        .store()
        .latest_committed_compactions(
            &request.dbname,
            &request.tablename,
            &partitions,
            request.last_compaction_id,
        )
        .map_err(|error| to_thrift(error, throws::NONE))?;
    let compactions = latest
        .into_iter()
        .map(|entry| idl::CompactionInfoStruct {
            id: i64::try_from(entry.request.id).unwrap_or(i64::MAX),
            dbname: entry.request.database,
            tablename: entry.request.table,
            partitionname: entry.request.partition,
            type_: compaction_type_to_idl(entry.request.compaction_type),
            runas: None,
            properties: None,
            toomanyaborts: None,
            state: None,
            worker_id: None,
            start: None,
            highest_write_id: None,
            error_message: None,
            hasoldabort: None,
            enqueue_time: None,
            retry_retention: None,
            poolname: None,
            number_of_buckets: None,
            order_by_clause: None,
        })
        .collect();
    Ok(idl::GetLatestCommittedCompactionInfoResponse { compactions })
}

/// `abort_Compactions`: an answer per id asked for. The request's `type` and `poolName`
/// select nothing, as in Hive.
pub fn abort(
    session: &Session,
    request: idl::AbortCompactionRequest,
) -> thrift::Result<idl::AbortCompactResponse> {
    admin(session)?;
    let outcomes = session
        .store()
        .abort_compactions(&request.compaction_ids)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    let abortedcompacts: BTreeMap<i64, idl::AbortCompactionResponseElement> = outcomes
        .into_iter()
        .map(|outcome| {
            let element = idl::AbortCompactionResponseElement {
                compaction_id: outcome.id,
                status: Some(outcome.status),
                message: Some(outcome.message),
            };
            (outcome.id, element)
        })
        .collect();
    Ok(idl::AbortCompactResponse { abortedcompacts })
}

fn element(entry: CompactionEntry) -> idl::ShowCompactResponseElement {
    let state = entry.state.hive_name().to_string();
    let compaction = entry.request;
    let id_of = |id: u64| i64::try_from(id).unwrap_or(i64::MAX);
    idl::ShowCompactResponseElement {
        dbname: compaction.database,
        tablename: compaction.table,
        partitionname: compaction.partition,
        type_: compaction_type_to_idl(compaction.compaction_type),
        state,
        workerid: entry.worker_id,
        start: entry.started_at_ms,
        run_as: compaction.run_as,
        hightest_txn_id: None,
        meta_info: None,
        end_time: entry.ended_at_ms,
        hadoop_job_id: entry.hadoop_job_id,
        id: Some(id_of(compaction.id)),
        error_message: entry.error_message,
        enqueue_time: Some(compaction.enqueued_at_ms),
        worker_version: entry.worker_version,
        initiator_id: compaction.initiator_id,
        initiator_version: compaction.initiator_version,
        cleaner_start: None,
        pool_name: compaction.pool_name,
        next_txn_id: entry.next_txn_id.map(id_of),
        txn_id: entry.txn_id.map(id_of),
        commit_time: entry.commit_time_ms,
        hightest_write_id: entry.highest_write_id.map(id_of),
    }
}

/// The engine's compaction type of `kind`.
pub(crate) fn compaction_type_from_idl(
    kind: idl::CompactionType,
) -> thrift::Result<CompactionType> {
    Ok(match kind {
        idl::CompactionType::MINOR => CompactionType::Minor,
        idl::CompactionType::MAJOR => CompactionType::Major,
        idl::CompactionType::REBALANCE => CompactionType::Rebalance,
        idl::CompactionType::ABORT_TXN_CLEANUP => CompactionType::AbortTxnCleanup,
        other => return Err(undeclared(format!("unknown compaction type {}", other.0))),
    })
}

/// The IDL's compaction type of `kind`.
pub(crate) fn compaction_type_to_idl(kind: CompactionType) -> idl::CompactionType {
    match kind {
        CompactionType::Minor => idl::CompactionType::MINOR,
        CompactionType::Major => idl::CompactionType::MAJOR,
        CompactionType::Rebalance => idl::CompactionType::REBALANCE,
        CompactionType::AbortTxnCleanup => idl::CompactionType::ABORT_TXN_CLEANUP,
    }
}
