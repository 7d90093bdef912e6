//! Hive 4's calls for rewriting with, and rebuilding, materialized views (family `Tables`,
//! beside `update_creation_metadata`): `get_all_materialized_view_objects_for_rewriting`,
//! `get_materialized_views_for_rewriting`, `get_materialization_invalidation_info`,
//! `get_lock_materialization_rebuild`, `heartbeat_lock_materialization_rebuild`
//! (HMSHandler, ObjectStore, TxnHandler's materialization functions).
//!
//! Where Hive's handler returns null (`get_materialization_invalidation_info` of a view it
//! cannot judge), its clients raise `TApplicationException` `MISSING_RESULT`,
//! `<method> failed: unknown result`; hivestore answers that, as the procedures' calls do.

use hivestore_engine::DEFAULT_CATALOG_NAME;
use hivestore_idl::hive_metastore::Table;
use hivestore_idl::hive_metastore::{CreationMetadata, LockResponse, LockState, Materialization};
use thrift::{ApplicationError, ApplicationErrorKind};

use super::parse_database_name;
use super::partitions::{authorize_table, SELECT};
use super::txns::authorize_txn;
use crate::access::{Need, Privilege, Target};
use crate::convert::table_to_idl;
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What the listings and `get_materialization_invalidation_info` declare.
const META: &[Declared] = &[Declared::Meta];
/// The lock calls declare nothing: failures are `TApplicationException`s.
const NOTHING: &[Declared] = &[];

/// `get_all_materialized_view_objects_for_rewriting`: every materialized view of the default
/// catalog with rewriting enabled, whole, by database and name.
/// Its views are not known before they are read, so the server is the object named, as for
/// the listings of names across databases.
pub fn all_for_rewriting(session: &Session) -> thrift::Result<Vec<Table>> {
    session.authorize(Need::Anyone, Target::Server)?;
    let views = session
        .store()
        .materialized_views_for_rewriting(DEFAULT_CATALOG_NAME, None, true)
        .map_err(|error| to_thrift(error, META))?;
    Ok(views.into_iter().map(table_to_idl).collect())
}

/// `get_materialized_views_for_rewriting(db)`: the names of the database's materialized views
/// with rewriting enabled; none for a database that does not exist, as in Hive. The name may
/// carry its catalog; `@cat#` names every database of it (Hive 4's null database).
pub fn names_for_rewriting(session: &Session, database: String) -> thrift::Result<Vec<String>> {
    let (catalog, database) = parse_database_name(&database)?;
    match database.as_deref() {
        Some(database) => session.authorize(
            Need::Anyone,
            Target::Database {
                catalog: &catalog,
                database,
            },
        )?,
        None => session.authorize(Need::Anyone, Target::Catalog(&catalog))?,
    }
    let views = session
        .store()
        .materialized_views_for_rewriting(&catalog, database.as_deref(), false)
        .map_err(|error| to_thrift(error, META))?;
    Ok(views.into_iter().map(|view| view.table_name).collect())
}

/// `get_materialization_invalidation_info(creation_metadata, validTxnList)`: whether the
/// view's sources were updated or deleted from, and compacted, since its snapshot, as of the
/// caller's snapshot; Hive's null answer where it cannot say.
pub fn invalidation_info(
    session: &Session,
    metadata: CreationMetadata,
    valid_txn_list: String,
) -> thrift::Result<Materialization> {
    let tables_used: Vec<String> = metadata.tables_used.into_iter().collect();
    // Each source table, by its full name `db.table` (a name without a database names none).
    for full_name in &tables_used {
        if let Some((database, table)) = full_name.split_once('.') {
            authorize_table(session, SELECT, (DEFAULT_CATALOG_NAME, database, table))?;
        }
    }
    let answer = session
        .store()
        .materialization_invalidation_info(
            &tables_used,
            metadata.valid_txn_list.as_deref(),
            Some(valid_txn_list.as_str()),
        )
        .map_err(|error| to_thrift(error, META))?;
    match answer {
        Some(answer) => Ok(Materialization {
            source_tables_update_delete_modified: answer.source_tables_update_delete_modified,
            source_tables_compacted: answer.source_tables_compacted,
        }),
        None => Err(thrift::Error::Application(ApplicationError::new(
            ApplicationErrorKind::MissingResult,
            "get_materialization_invalidation_info failed: unknown result".to_string(),
        ))),
    }
}

/// `get_lock_materialization_rebuild(db, view, txnId)`: `ACQUIRED` when no live rebuild lock
/// is held on the view, `NOT_ACQUIRED` otherwise; the answer's lock id is the transaction's,
/// as Hive answers it.
pub fn lock_rebuild(
    session: &Session,
    database: String,
    view: String,
    txn_id: i64,
) -> thrift::Result<LockResponse> {
    let lock = Need::Privilege(Privilege::Lock);
    authorize_table(session, lock, (DEFAULT_CATALOG_NAME, &database, &view))?;
    authorize_txn(session, txn_id)?;
    let acquired = session
        .store()
        .lock_materialization_rebuild(&database, &view, txn_id)
        .map_err(|error| to_thrift(error, NOTHING))?;
    Ok(LockResponse {
        lockid: txn_id,
        state: if acquired {
            LockState::ACQUIRED
        } else {
            LockState::NOT_ACQUIRED
        },
        error_message: None,
    })
}

/// `heartbeat_lock_materialization_rebuild(db, view, txnId)`: whether the transaction still
/// holds the view's rebuild lock (heartbeated if so).
pub fn heartbeat_rebuild(
    session: &Session,
    database: String,
    view: String,
    txn_id: i64,
) -> thrift::Result<bool> {
    authorize_txn(session, txn_id)?;
    session
        .store()
        .heartbeat_materialization_rebuild_lock(&database, &view, txn_id)
        .map_err(|error| to_thrift(error, NOTHING))
}
