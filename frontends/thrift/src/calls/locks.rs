//! Locks: `lock`, `check_lock`, `unlock`, `show_locks`, `heartbeat`.
//!
//! Iceberg's and PyIceberg's commits take an `EXCLUSIVE` table lock this way, poll
//! `check_lock` while it waits, and `unlock` once the new metadata is in place.

use hivestore_engine::locks::{
    DataOperation, LockComponent, LockLevel, LockRequest, LockResponse, LockState, LockStatus,
    LockType, ShowLocksFilter,
};
use hivestore_engine::Error as EngineError;
use hivestore_idl::hive_metastore as idl;

use super::partitions::authorize_table;
use super::txns::authorize_txn;
use crate::access::{Need, Privilege, Target};
use crate::errors::{throws, to_thrift, undeclared};
use crate::service::Session;

/// `lock`.
pub fn lock(session: &Session, request: idl::LockRequest) -> thrift::Result<idl::LockResponse> {
    let request = lock_request_from_idl(request)?;
    authorize_lock(session, &request)?;
    let response = session
        .store()
        .lock(request)
        .map_err(|error| to_thrift(error, throws::LOCK))?;
    Ok(lock_response_to_idl(response))
}

/// Names what a lock request locks: each component's table (its database for a database
/// lock) once per privilege its lock type needs, and the transaction it joins.
fn authorize_lock(session: &Session, request: &LockRequest) -> thrift::Result<()> {
    let mut named = std::collections::BTreeSet::new();
    for component in &request.components {
        let privilege = match component.lock_type {
            LockType::SharedRead => Privilege::Select,
            LockType::SharedWrite | LockType::ExclusiveWrite => Privilege::Insert,
            LockType::Exclusive => Privilege::Lock,
        };
        let table = component.table.as_deref();
        // The components of one table (its partitions) name it once.
        if !named.insert((privilege, component.database.as_str(), table)) {
            continue;
        }
        let need = Need::Privilege(privilege);
        let catalog = hivestore_engine::DEFAULT_CATALOG_NAME;
        match table {
            Some(table) => authorize_table(session, need, (catalog, &component.database, table))?,
            None => {
                let database = &component.database;
                session.authorize(need, Target::Database { catalog, database })?;
            }
        }
    }
    match request.txn_id {
        Some(txn_id) => authorize_txn(session, wire_id(txn_id)),
        None => Ok(()),
    }
}

/// `check_lock`: also the lock's heartbeat.
pub fn check(
    session: &Session,
    request: idl::CheckLockRequest,
) -> thrift::Result<idl::LockResponse> {
    session.authorize(Need::Owner, Target::Lock(request.lockid))?;
    let lock_id = existing_lock_id(request.lockid)?;
    let response = session
        .store()
        .check_lock(lock_id)
        .map_err(|error| to_thrift(error, throws::CHECK_LOCK))?;
    Ok(lock_response_to_idl(response))
}

/// `unlock`: a lock that is already gone is not an error (Hive 4).
pub fn unlock(session: &Session, request: idl::UnlockRequest) -> thrift::Result<()> {
    session.authorize(Need::Owner, Target::Lock(request.lockid))?;
    let Ok(lock_id) = u64::try_from(request.lockid) else {
        return Ok(());
    };
    session
        .store()
        .unlock(lock_id)
        .map_err(|error| to_thrift(error, throws::UNLOCK))
}

/// `show_locks`, filtered by database, table, partition and transaction.
pub fn show(
    session: &Session,
    request: idl::ShowLocksRequest,
) -> thrift::Result<idl::ShowLocksResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let filter = ShowLocksFilter {
        database: request.dbname,
        table: request.tablename,
        partition: request.partname,
        txn_id: request.txnid.and_then(|txn| u64::try_from(txn).ok()),
    };
    let locks = session
        .store()
        .show_locks(&filter)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::ShowLocksResponse {
        locks: Some(locks.into_iter().map(lock_status_to_idl).collect()),
    })
}

/// `heartbeat`: of the lock, of the transaction, or both, as the request names them (an id
/// of 0 names nothing).
pub fn heartbeat(session: &Session, request: idl::HeartbeatRequest) -> thrift::Result<()> {
    let lock_id = request.lockid.unwrap_or(0);
    let txn_id = request.txnid.unwrap_or(0);
    if lock_id != 0 {
        session.authorize(Need::Owner, Target::Lock(lock_id))?;
    }
    if txn_id != 0 {
        authorize_txn(session, txn_id)?;
    }
    if lock_id != 0 {
        session
            .store()
            .heartbeat_lock(existing_lock_id(lock_id)?)
            .map_err(|error| to_thrift(error, throws::HEARTBEAT))?;
    }
    if txn_id != 0 {
        let txn_id = crate::calls::txns::txn_id_from_wire(txn_id, throws::HEARTBEAT)?;
        session
            .store()
            .heartbeat_txn(txn_id)
            .map_err(|error| to_thrift(error, throws::HEARTBEAT))?;
    }
    Ok(())
}

/// A lock id from the wire; a negative one names no lock.
fn existing_lock_id(lock_id: i64) -> thrift::Result<u64> {
    u64::try_from(lock_id).map_err(|_| {
        let message = format!("No such lock lockid:{lock_id}");
        to_thrift(EngineError::NoSuchLock(message), throws::CHECK_LOCK)
    })
}

fn lock_request_from_idl(request: idl::LockRequest) -> thrift::Result<LockRequest> {
    let txn_id = match request.txnid.unwrap_or(0) {
        0 => None,
        txn if txn < 0 => {
            let message = format!("No such transaction txnid:{txn}");
            return Err(to_thrift(EngineError::NoSuchTxn(message), throws::LOCK));
        }
        txn => u64::try_from(txn).ok(),
    };
    let components = request
        .component
        .into_iter()
        .map(lock_component_from_idl)
        .collect::<thrift::Result<Vec<_>>>()?;
    Ok(LockRequest {
        components,
        txn_id,
        user: request.user,
        hostname: request.hostname,
        agent_info: request.agent_info,
    })
}

fn lock_component_from_idl(component: idl::LockComponent) -> thrift::Result<LockComponent> {
    Ok(LockComponent {
        lock_type: lock_type_from_idl(component.type_)?,
        level: lock_level_from_idl(component.level)?,
        database: component.dbname,
        table: component.tablename,
        partition: component.partitionname,
        operation: component
            .operation_type
            .map(data_operation_from_idl)
            .transpose()?,
        is_transactional: component.is_transactional.unwrap_or(false),
        is_dynamic_partition_write: component.is_dynamic_partition_write.unwrap_or(false),
    })
}

fn lock_type_from_idl(lock_type: idl::LockType) -> thrift::Result<LockType> {
    Ok(match lock_type {
        idl::LockType::SHARED_READ => LockType::SharedRead,
        idl::LockType::SHARED_WRITE => LockType::SharedWrite,
        idl::LockType::EXCL_WRITE => LockType::ExclusiveWrite,
        idl::LockType::EXCLUSIVE => LockType::Exclusive,
        other => return Err(undeclared(format!("unknown lock type {}", other.0))),
    })
}

fn lock_type_to_idl(lock_type: LockType) -> idl::LockType {
    match lock_type {
        LockType::SharedRead => idl::LockType::SHARED_READ,
        LockType::SharedWrite => idl::LockType::SHARED_WRITE,
        LockType::ExclusiveWrite => idl::LockType::EXCL_WRITE,
        LockType::Exclusive => idl::LockType::EXCLUSIVE,
    }
}

fn lock_level_from_idl(level: idl::LockLevel) -> thrift::Result<LockLevel> {
    Ok(match level {
        idl::LockLevel::DB => LockLevel::Database,
        idl::LockLevel::TABLE => LockLevel::Table,
        idl::LockLevel::PARTITION => LockLevel::Partition,
        other => return Err(undeclared(format!("unknown lock level {}", other.0))),
    })
}

pub(crate) fn data_operation_from_idl(
    operation: idl::DataOperationType,
) -> thrift::Result<DataOperation> {
    Ok(match operation {
        idl::DataOperationType::SELECT => DataOperation::Select,
        idl::DataOperationType::INSERT => DataOperation::Insert,
        idl::DataOperationType::UPDATE => DataOperation::Update,
        idl::DataOperationType::DELETE => DataOperation::Delete,
        idl::DataOperationType::UNSET => DataOperation::Unset,
        idl::DataOperationType::NO_TXN => DataOperation::NoTxn,
        other => {
            return Err(undeclared(format!(
                "unknown data operation type {}",
                other.0
            )))
        }
    })
}

fn lock_state_to_idl(state: LockState) -> idl::LockState {
    match state {
        LockState::Acquired => idl::LockState::ACQUIRED,
        LockState::Waiting => idl::LockState::WAITING,
    }
}

fn lock_response_to_idl(response: LockResponse) -> idl::LockResponse {
    idl::LockResponse {
        lockid: wire_id(response.lock_id),
        state: lock_state_to_idl(response.state),
        error_message: None,
    }
}

fn lock_status_to_idl(status: LockStatus) -> idl::ShowLocksResponseElement {
    idl::ShowLocksResponseElement {
        lockid: wire_id(status.lock_id),
        dbname: status.database,
        tablename: status.table,
        partname: status.partition,
        state: lock_state_to_idl(status.state),
        type_: lock_type_to_idl(status.lock_type),
        txnid: Some(wire_id(status.txn_id)),
        lastheartbeat: status.last_heartbeat_ms,
        acquiredat: status.acquired_at_ms,
        user: status.user,
        hostname: status.hostname,
        heartbeat_count: Some(i32::try_from(status.heartbeat_count).unwrap_or(i32::MAX)),
        agent_info: status.agent_info,
        blocked_by_ext_id: status.blocked_by.map(|(lock_id, _)| wire_id(lock_id)),
        blocked_by_int_id: status.blocked_by.map(|(_, component)| wire_id(component)),
        lock_id_internal: Some(wire_id(status.component_id)),
    }
}

/// Ids are below 2^63 in practice (one per lock request); saturate rather than wrap.
fn wire_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}
