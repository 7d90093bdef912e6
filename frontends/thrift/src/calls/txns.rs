//! Transactions and write ids: `open_txns`, `commit_txn`, `abort_txn(s)`, `get_open_txns`,
//! `get_open_txns_req`, `get_open_txns_info`, `heartbeat_txn_range`,
//! `get_latest_txnid_in_conflict`, `allocate_table_write_ids`, `get_valid_write_ids`,
//! `get_max_allocated_table_write_id`, `add_dynamic_partitions`, `seed_txn_id`,
//! `seed_write_id`, `repl_tbl_writeid_state`, `add_write_ids_to_min_history`.

use std::collections::BTreeSet;

use hivestore_engine::events::{InsertData, WriteNotification};
use hivestore_engine::locks::DataOperation;
use hivestore_engine::txns::{
    CommitExtras, OpenTxnRequest, OpenTxns, ReplLastId, ReplRole, ReplWriteIdState, TxnKeyValue,
    TxnState, TxnType,
};
use hivestore_engine::Error as EngineError;
use hivestore_idl::hive_metastore as idl;

use super::partitions::{authorize_table, INSERT, SELECT};
use crate::access::{Need, Target};
use crate::errors::{throws, to_thrift, undeclared, Declared};
use crate::service::Session;

/// Names the server for anyone: opening and listing transactions.
fn anyone(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)
}

/// Names the server for an admin: replication's calls.
fn admin(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)
}

/// Names transaction `txn_id` for its owner.
pub(crate) fn authorize_txn(session: &Session, txn_id: i64) -> thrift::Result<()> {
    session.authorize(Need::Owner, Target::Transaction(txn_id))
}

/// Names a table of the default catalog, as the transaction calls name tables (`db.table`
/// without a catalog).
fn authorize_default_table(
    session: &Session,
    need: Need,
    database: &str,
    table: &str,
) -> thrift::Result<()> {
    let catalog = hivestore_engine::DEFAULT_CATALOG_NAME;
    authorize_table(session, need, (catalog, database, table))
}

/// `open_txns`; with `replPolicy`, for replication: `REPL_CREATED` transactions replay the
/// source's `replSrcTxnIds` (see `Store::open_txns_for`).
pub fn open(
    session: &Session,
    request: idl::OpenTxnRequest,
) -> thrift::Result<idl::OpenTxnsResponse> {
    match request.repl_policy {
        Some(_) => admin(session)?,
        None => anyone(session)?,
    }
    let repl = match request.repl_policy {
        Some(policy) => {
            let sources = request
                .repl_src_txn_ids
                .unwrap_or_default()
                .into_iter()
                .map(|source| {
                    u64::try_from(source)
                        .ok()
                        .filter(|source| *source > 0)
                        .ok_or_else(|| {
                            undeclared(format!("open_txns: invalid source transaction id {source}"))
                        })
                })
                .collect::<thrift::Result<Vec<u64>>>()?;
            Some((policy, sources))
        }
        None => None,
    };
    let count = u32::try_from(request.num_txns).map_err(|_| {
        undeclared(format!(
            "open_txns asks for {} transactions",
            request.num_txns
        ))
    })?;
    let request = OpenTxnRequest {
        count,
        user: request.user,
        hostname: request.hostname,
        agent_info: request.agent_info,
        txn_type: txn_type_from_idl(request.txn_type.unwrap_or(idl::TxnType::DEFAULT))?,
    };
    let opened = session
        .store()
        .open_txns_for(request, repl)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::OpenTxnsResponse {
        txn_ids: opened.into_iter().map(wire_id).collect(),
    })
}

/// The replication role of a commit or abort, as Hive tells it from `replPolicy` and the
/// request's transaction type.
fn repl_role(
    call: &str,
    policy: Option<String>,
    txn_type: Option<idl::TxnType>,
) -> thrift::Result<ReplRole> {
    match (policy, txn_type) {
        (Some(policy), Some(idl::TxnType::REPL_CREATED)) => Ok(ReplRole::Replayed { policy }),
        (None, Some(idl::TxnType::REPL_CREATED)) => Err(to_thrift(
            EngineError::Refused(format!(
                "{call} of a REPL_CREATED transaction needs its replPolicy"
            )),
            throws::COMMIT_TXN,
        )),
        (Some(_), Some(idl::TxnType::DEFAULT)) => Ok(ReplRole::Source),
        _ => Ok(ReplRole::None),
    }
}

/// `commit_txn`. Its `writeEventInfos` are recorded as `add_write_notification_log` does,
/// and its `keyValue` sets a `_meta` table parameter, in the batch of the commit. With
/// `replPolicy` and type `REPL_CREATED` it commits the transaction replaying source
/// transaction `txnid`, its `writeEventInfos` naming the source's files (recorded at this
/// table's location, see `relocate_replayed_write`). `replLastIdInfo` sets `repl.last.id`
/// on its database, table and partitions in the same batch.
pub fn commit(session: &Session, request: idl::CommitTxnRequest) -> thrift::Result<()> {
    let role = repl_role("commit_txn", request.repl_policy, request.txn_type)?;
    let txn_id = txn_id_from_wire(request.txnid, throws::COMMIT_TXN)?;
    authorize_ending(session, &role, request.txnid)?;
    let writes = request
        .write_event_infos
        .unwrap_or_default()
        .into_iter()
        .map(|info| commit_write(txn_id, info))
        .collect();
    let key_value = request.key_value.map(|key_value| TxnKeyValue {
        table_id: key_value.table_id,
        key: key_value.key,
        value: key_value.value,
    });
    let repl_last_id = request.repl_last_id_info.map(|info| ReplLastId {
        catalog: info.catalog,
        database: info.database,
        last_repl_id: info.last_repl_id,
        table: info.table,
        partitions: info.partition_list,
    });
    let extras = CommitExtras {
        writes,
        key_value,
        repl_last_id,
    };
    session
        .store()
        .commit_txn_as(txn_id, extras, &role)
        .map_err(|error| to_thrift(error, throws::COMMIT_TXN))
}

/// Names what a commit or abort of `txn_id` ends: the transaction, for its owner; replaying
/// a source's transaction is replication's, for an admin.
fn authorize_ending(session: &Session, role: &ReplRole, txn_id: i64) -> thrift::Result<()> {
    match role {
        ReplRole::Replayed { .. } => admin(session),
        _ => authorize_txn(session, txn_id),
    }
}

/// A `WriteEventInfo` of a commit as the write it reports: `files` is comma separated, as
/// `get_all_write_event_info` answers it; the table and partition objects are read here.
fn commit_write(txn_id: u64, info: idl::WriteEventInfo) -> WriteNotification {
    let partition_values = info
        .partition
        .filter(|name| !name.is_empty())
        .map(|name| hivestore_engine::partition_name_to_values(&name));
    let files_added = info
        .files
        .split(',')
        .filter(|file| !file.is_empty())
        .map(str::to_string)
        .collect();
    WriteNotification {
        txn_id,
        write_id: info.write_id,
        catalog: hivestore_engine::DEFAULT_CATALOG_NAME.to_string(),
        database: info.database,
        table: info.table,
        partition_values,
        files: InsertData {
            files_added,
            ..InsertData::default()
        },
    }
}

/// `get_latest_txnid_in_conflict`: 0 when nothing conflicts, as Hive answers.
pub fn latest_in_conflict(session: &Session, txn_id: i64) -> thrift::Result<i64> {
    anyone(session)?;
    let Ok(txn_id) = u64::try_from(txn_id) else {
        return Ok(0);
    };
    let latest = session
        .store()
        .latest_txn_id_in_conflict(txn_id)
        .map_err(|error| to_thrift(error, throws::LIST))?;
    Ok(wire_id(latest))
}

/// `abort_txn`; with `replPolicy` and type `REPL_CREATED`, of the transaction replaying
/// source transaction `txnid`.
pub fn abort(session: &Session, request: idl::AbortTxnRequest) -> thrift::Result<()> {
    let role = repl_role("abort_txn", request.repl_policy, request.txn_type)?;
    let txn_id = txn_id_from_wire(request.txnid, throws::ABORT_TXN)?;
    authorize_ending(session, &role, request.txnid)?;
    session
        .store()
        .abort_txn_as(txn_id, &role)
        .map_err(|error| to_thrift(error, throws::ABORT_TXN))
}

/// `abort_txns`: ids that name no open transaction are skipped, as Hive does.
pub fn abort_many(session: &Session, request: idl::AbortTxnsRequest) -> thrift::Result<()> {
    for txn_id in request.txn_ids.iter().filter(|txn_id| **txn_id > 0) {
        authorize_txn(session, *txn_id)?;
    }
    let txn_ids: Vec<u64> = request
        .txn_ids
        .into_iter()
        .filter_map(|txn_id| u64::try_from(txn_id).ok())
        .collect();
    session
        .store()
        .abort_txns(&txn_ids)
        .map_err(|error| to_thrift(error, throws::ABORT_TXN))
}

/// `get_open_txns`: every open and aborted transaction, aborted ones flagged in a bit set.
pub fn list_open(session: &Session) -> thrift::Result<idl::GetOpenTxnsResponse> {
    anyone(session)?;
    list_open_excluding(session, &[])
}

/// `get_open_txns_req`: as `get_open_txns`, without the transaction types named.
pub fn list_open_req(
    session: &Session,
    request: idl::GetOpenTxnsRequest,
) -> thrift::Result<idl::GetOpenTxnsResponse> {
    anyone(session)?;
    let exclude = request
        .exclude_txn_types
        .unwrap_or_default()
        .into_iter()
        .map(txn_type_from_idl)
        .collect::<thrift::Result<Vec<_>>>()?;
    list_open_excluding(session, &exclude)
}

fn list_open_excluding(
    session: &Session,
    exclude: &[TxnType],
) -> thrift::Result<idl::GetOpenTxnsResponse> {
    let listed = open_txns(session, exclude)?;
    let aborted: Vec<bool> = listed
        .txns
        .iter()
        .map(|txn| txn.state == TxnState::Aborted)
        .collect();
    let min_open_txn = listed
        .txns
        .iter()
        .find(|txn| txn.state == TxnState::Open)
        .map(|txn| wire_id(txn.txn_id));
    Ok(idl::GetOpenTxnsResponse {
        txn_high_water_mark: wire_id(listed.high_water_mark),
        open_txns: listed.txns.iter().map(|txn| wire_id(txn.txn_id)).collect(),
        min_open_txn,
        aborted_bits: java_bit_set(&aborted),
    })
}

/// `get_open_txns_info`.
pub fn list_open_info(session: &Session) -> thrift::Result<idl::GetOpenTxnsInfoResponse> {
    anyone(session)?;
    let listed = open_txns(session, &[])?;
    let open_txns = listed
        .txns
        .into_iter()
        .map(|txn| idl::TxnInfo {
            id: wire_id(txn.txn_id),
            state: match txn.state {
                TxnState::Open => idl::TxnState::OPEN,
                TxnState::Aborted => idl::TxnState::ABORTED,
            },
            user: txn.user,
            hostname: txn.hostname,
            agent_info: txn.agent_info,
            heartbeat_count: Some(i32::try_from(txn.heartbeat_count).unwrap_or(i32::MAX)),
            meta_info: None,
            started_time: Some(txn.started_at_ms),
            last_heartbeat_time: Some(txn.last_heartbeat_ms),
        })
        .collect();
    Ok(idl::GetOpenTxnsInfoResponse {
        txn_high_water_mark: wire_id(listed.high_water_mark),
        open_txns,
    })
}

fn open_txns(session: &Session, exclude: &[TxnType]) -> thrift::Result<OpenTxns> {
    session
        .store()
        .open_txns_info(exclude)
        .map_err(|error| to_thrift(error, throws::NONE))
}

/// `heartbeat_txn_range`.
pub fn heartbeat_range(
    session: &Session,
    request: idl::HeartbeatTxnRangeRequest,
) -> thrift::Result<idl::HeartbeatTxnRangeResponse> {
    // Each transaction of the range, when the range is one the engine heartbeats (it refuses
    // a longer one, having done nothing).
    let span = request.max.saturating_sub(request.min.max(1));
    if (0..TXN_ID_LIST_LEN_MAX_I64).contains(&span) {
        for txn_id in request.min.max(1)..=request.max {
            authorize_txn(session, txn_id)?;
        }
    }
    let min = u64::try_from(request.min.max(1)).unwrap_or(1);
    let Ok(max) = u64::try_from(request.max) else {
        return Ok(idl::HeartbeatTxnRangeResponse {
            aborted: BTreeSet::new(),
            nosuch: BTreeSet::new(),
        });
    };
    let (aborted, missing) = session
        .store()
        .heartbeat_txn_range(min, max)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::HeartbeatTxnRangeResponse {
        aborted: aborted.into_iter().map(wire_id).collect(),
        nosuch: missing.into_iter().map(wire_id).collect(),
    })
}

/// `allocate_table_write_ids`; with `replPolicy`, the source's write ids of
/// `srcTxnToWriteIdList` for the transactions replaying them (`txnIds` is then not read, as
/// Hive reads only one of the two).
pub fn allocate_write_ids(
    session: &Session,
    request: idl::AllocateTableWriteIdsRequest,
) -> thrift::Result<idl::AllocateTableWriteIdsResponse> {
    if request.repl_policy.is_some() {
        admin(session)?;
    } else {
        authorize_default_table(session, INSERT, &request.db_name, &request.table_name)?;
        for txn_id in request.txn_ids.iter().flatten() {
            authorize_txn(session, *txn_id)?;
        }
    }
    if let Some(policy) = request.repl_policy {
        let sources = request
            .src_txn_to_write_id_list
            .unwrap_or_default()
            .into_iter()
            .map(
                |pair| match (u64::try_from(pair.txn_id), u64::try_from(pair.write_id)) {
                    (Ok(txn_id), Ok(write_id)) if txn_id > 0 => Ok((txn_id, write_id)),
                    _ => Err(to_thrift(
                        EngineError::Refused(format!(
                        "allocate_table_write_ids: invalid source transaction {} or write id {}",
                        pair.txn_id, pair.write_id
                    )),
                        throws::ALLOCATE_WRITE_IDS,
                    )),
                },
            )
            .collect::<thrift::Result<Vec<_>>>()?;
        let allocated = session
            .store()
            .allocate_replayed_write_ids(&request.db_name, &request.table_name, &policy, &sources)
            .map_err(|error| to_thrift(error, throws::ALLOCATE_WRITE_IDS))?;
        return Ok(write_ids_response(allocated));
    }
    let txn_ids = request
        .txn_ids
        .unwrap_or_default()
        .into_iter()
        .map(|txn_id| txn_id_from_wire(txn_id, throws::ALLOCATE_WRITE_IDS))
        .collect::<thrift::Result<Vec<_>>>()?;
    let allocated = session
        .store()
        .allocate_table_write_ids(&request.db_name, &request.table_name, &txn_ids)
        .map_err(|error| to_thrift(error, throws::ALLOCATE_WRITE_IDS))?;
    Ok(write_ids_response(allocated))
}

fn write_ids_response(allocated: Vec<(u64, u64)>) -> idl::AllocateTableWriteIdsResponse {
    idl::AllocateTableWriteIdsResponse {
        txn_to_write_ids: allocated
            .into_iter()
            .map(|(txn_id, write_id)| idl::TxnToWriteId {
                txn_id: wire_id(txn_id),
                write_id: wire_id(write_id),
            })
            .collect(),
    }
}

/// `get_valid_write_ids`.
pub fn valid_write_ids(
    session: &Session,
    request: idl::GetValidWriteIdsRequest,
) -> thrift::Result<idl::GetValidWriteIdsResponse> {
    // Each table by its full name, `db.table`; a name without its database names no table
    // (the engine refuses it, having read nothing).
    for full_name in &request.full_table_names {
        if let Some((database, table)) = full_name.split_once('.') {
            authorize_default_table(session, SELECT, database, table)?;
        }
    }
    let tables = session
        .store()
        .valid_write_ids(&request.full_table_names, request.valid_txn_list.as_deref())
        .map_err(|error| to_thrift(error, throws::VALID_WRITE_IDS))?;
    Ok(idl::GetValidWriteIdsResponse {
        tbl_valid_write_ids: tables
            .into_iter()
            .map(|table| idl::TableValidWriteIds {
                full_table_name: table.full_table_name,
                write_id_high_water_mark: wire_id(table.high_water_mark),
                invalid_write_ids: table.invalid_write_ids.into_iter().map(wire_id).collect(),
                min_open_write_id: table.min_open_write_id.map(wire_id),
                aborted_bits: java_bit_set(&table.aborted),
            })
            .collect(),
    })
}

/// `get_max_allocated_table_write_id`.
pub fn max_allocated_write_id(
    session: &Session,
    request: idl::MaxAllocatedTableWriteIdRequest,
) -> thrift::Result<idl::MaxAllocatedTableWriteIdResponse> {
    authorize_default_table(session, SELECT, &request.db_name, &request.table_name)?;
    let max = session
        .store()
        .max_allocated_table_write_id(&request.db_name, &request.table_name)
        .map_err(|error| to_thrift(error, throws::LIST))?;
    Ok(idl::MaxAllocatedTableWriteIdResponse {
        max_write_id: wire_id(max),
    })
}

/// `add_dynamic_partitions`: the partitions a dynamic-partition write touched.
pub fn add_dynamic_partitions(
    session: &Session,
    request: idl::AddDynamicPartitions,
) -> thrift::Result<()> {
    let txn_id = txn_id_from_wire(request.txnid, throws::COMMIT_TXN)?;
    authorize_default_table(session, INSERT, &request.dbname, &request.tablename)?;
    authorize_txn(session, request.txnid)?;
    let operation = match request.operation_type {
        Some(operation) => crate::calls::locks::data_operation_from_idl(operation)?,
        None => DataOperation::Unset,
    };
    session
        .store()
        .add_dynamic_partitions(
            txn_id,
            &request.dbname,
            &request.tablename,
            &request.partitionnames,
            operation,
        )
        .map_err(|error| to_thrift(error, throws::COMMIT_TXN))
}

/// `seed_txn_id`: the next transaction id, above every one handed out.
pub fn seed_txn_id(session: &Session, request: idl::SeedTxnIdRequest) -> thrift::Result<()> {
    admin(session)?;
    let seed = u64::try_from(request.seed_txn_id)
        .ok()
        .filter(|seed| *seed > 0)
        .ok_or_else(|| {
            crate::errors::exception(
                Declared::Meta,
                format!("Invalid txnId seed {}", request.seed_txn_id),
            )
        })?;
    session
        .store()
        .seed_txn_id(seed)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `seed_write_id`: write ids of a table that has none continue after the seed.
pub fn seed_write_id(
    session: &Session,
    request: idl::SeedTableWriteIdsRequest,
) -> thrift::Result<()> {
    admin(session)?;
    session
        .store()
        .seed_write_id(&request.db_name, &request.table_name, request.seed_write_id)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `repl_tbl_writeid_state`: a replicated table takes the source's write id state.
pub fn repl_write_id_state(
    session: &Session,
    request: idl::ReplTblWriteIdStateRequest,
) -> thrift::Result<()> {
    admin(session)?;
    let state = ReplWriteIdState {
        valid_write_id_list: request.valid_write_idlist,
        user: request.user,
        hostname: request.host_name,
        database: request.db_name,
        table: request.table_name,
        partitions: request.part_names.unwrap_or_default(),
    };
    session
        .store()
        .repl_tbl_writeid_state(state)
        .map_err(|error| to_thrift(error, throws::NONE))
}

/// `add_write_ids_to_min_history`.
pub fn add_min_history(
    session: &Session,
    txn_id: i64,
    write_ids: std::collections::BTreeMap<String, i64>,
) -> thrift::Result<()> {
    let wire_txn_id = txn_id;
    let txn_id = u64::try_from(txn_id)
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| {
            crate::errors::exception(
                Declared::Meta,
                format!("add_write_ids_to_min_history: no such transaction txnid:{txn_id}"),
            )
        })?;
    authorize_txn(session, wire_txn_id)?;
    let write_ids: Vec<(String, i64)> = write_ids.into_iter().collect();
    session
        .store()
        .add_write_ids_to_min_history(txn_id, &write_ids)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// The engine's limit on the transactions of one range, as the wire's ids count them.
const TXN_ID_LIST_LEN_MAX_I64: i64 = hivestore_engine::txns::TXN_ID_LIST_LEN_MAX as i64;

/// A transaction id from the wire; zero or negative names none.
pub fn txn_id_from_wire(txn_id: i64, declared: &[Declared]) -> thrift::Result<u64> {
    match u64::try_from(txn_id) {
        Ok(txn_id) if txn_id > 0 => Ok(txn_id),
        _ => Err(to_thrift(
            EngineError::NoSuchTxn(format!("No such transaction txnid:{txn_id}")),
            declared,
        )),
    }
}

fn txn_type_from_idl(txn_type: idl::TxnType) -> thrift::Result<TxnType> {
    Ok(match txn_type {
        idl::TxnType::DEFAULT => TxnType::Default,
        idl::TxnType::REPL_CREATED => TxnType::ReplCreated,
        idl::TxnType::READ_ONLY => TxnType::ReadOnly,
        idl::TxnType::COMPACTION => TxnType::Compaction,
        idl::TxnType::MATER_VIEW_REBUILD => TxnType::MaterializedViewRebuild,
        idl::TxnType::SOFT_DELETE => TxnType::SoftDelete,
        idl::TxnType::REBALANCE_COMPACTION => TxnType::RebalanceCompaction,
        other => return Err(undeclared(format!("unknown transaction type {}", other.0))),
    })
}

/// `flags` as Java's `BitSet.toByteArray()`: bit i in byte i / 8 at position i % 8, little
/// endian, trailing zero bytes dropped. Hive's clients read aborted flags this way.
fn java_bit_set(flags: &[bool]) -> Vec<u8> {
    let mut bytes = vec![0u8; flags.len().div_ceil(8)];
    for (index, _) in flags.iter().enumerate().filter(|(_, set)| **set) {
        bytes[index / 8] |= 1 << (index % 8);
    }
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    bytes
}

fn wire_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::java_bit_set;

    #[test]
    fn bit_sets_are_laid_out_as_javas() {
        assert!(java_bit_set(&[]).is_empty());
        assert!(java_bit_set(&[false, false]).is_empty());
        assert_eq!(java_bit_set(&[true, false, true]), vec![0b101]);
        let mut flags = vec![false; 9];
        flags[8] = true;
        assert_eq!(java_bit_set(&flags), vec![0, 1]);
    }
}
