//! The compaction queue: `compact`, `compact2`, `show_compact`. Requests are stored and
//! reported; hivestore runs no compactions, and `show_compact` says so in each entry's
//! `metaInfo`.

use hivestore_engine::txns::{
    Compaction, CompactionType, ShowCompactFilter, COMPACTION_NOT_RUN_NOTE,
};
use hivestore_idl::hive_metastore as idl;

use crate::errors::{throws, to_thrift, undeclared};
use crate::service::Session;

/// `compact2`.
pub fn compact(
    session: &Session,
    request: idl::CompactionRequest,
) -> thrift::Result<idl::CompactionResponse> {
    let compaction = Compaction {
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
    };
    let response = session
        .store()
        .compact(compaction)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::CompactionResponse {
        id: i64::try_from(response.id).unwrap_or(i64::MAX),
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

fn element(compaction: Compaction) -> idl::ShowCompactResponseElement {
    idl::ShowCompactResponseElement {
        dbname: compaction.database,
        tablename: compaction.table,
        partitionname: compaction.partition,
        type_: compaction_type_to_idl(compaction.compaction_type),
        state: hivestore_engine::txns::COMPACTION_STATE_INITIATED.to_string(),
        workerid: None,
        start: None,
        run_as: compaction.run_as,
        hightest_txn_id: None,
        meta_info: Some(COMPACTION_NOT_RUN_NOTE.to_string()),
        end_time: None,
        hadoop_job_id: None,
        id: Some(i64::try_from(compaction.id).unwrap_or(i64::MAX)),
        error_message: None,
        enqueue_time: Some(compaction.enqueued_at_ms),
        worker_version: None,
        initiator_id: compaction.initiator_id,
        initiator_version: compaction.initiator_version,
        cleaner_start: None,
        pool_name: compaction.pool_name,
        next_txn_id: None,
        txn_id: None,
        commit_time: None,
        hightest_write_id: None,
    }
}

fn compaction_type_from_idl(kind: idl::CompactionType) -> thrift::Result<CompactionType> {
    Ok(match kind {
        idl::CompactionType::MINOR => CompactionType::Minor,
        idl::CompactionType::MAJOR => CompactionType::Major,
        idl::CompactionType::REBALANCE => CompactionType::Rebalance,
        idl::CompactionType::ABORT_TXN_CLEANUP => CompactionType::AbortTxnCleanup,
        other => return Err(undeclared(format!("unknown compaction type {}", other.0))),
    })
}

fn compaction_type_to_idl(kind: CompactionType) -> idl::CompactionType {
    match kind {
        CompactionType::Minor => idl::CompactionType::MINOR,
        CompactionType::Major => idl::CompactionType::MAJOR,
        CompactionType::Rebalance => idl::CompactionType::REBALANCE,
        CompactionType::AbortTxnCleanup => idl::CompactionType::ABORT_TXN_CLEANUP,
    }
}
