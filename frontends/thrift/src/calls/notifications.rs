//! The notification log: `get_next_notification`, `get_current_notificationEventId`,
//! `get_notification_events_count`, `fire_listener_event`, `add_write_notification_log`,
//! `add_write_notification_log_in_batch`, `get_all_write_event_info`.

use hivestore_engine::events::{
    EventFilter, InsertData, InsertEvent, WriteNotification, EVENT_READ_COUNT_MAX,
};
use hivestore_idl::hive_metastore as idl;

use super::partitions::{authorize_table, UPDATE};
use crate::access::{Need, Target};
use crate::calls::catalog_or_default;
use crate::errors::{throws, to_thrift, undeclared};
use crate::event_messages;
use crate::service::Session;
use crate::tjson::to_tjson;

/// Names the server for a superuser: reading the notification log, as Hive 4 allows only
/// them (`metastore.event.db.notification.api.auth`).
fn superuser(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Superuser, Target::Server)
}

/// `get_next_notification`: events after `lastEvent`, at most `maxEvents` (every one when
/// unset or not positive, up to the engine's cap), with Hive 4's filters.
pub fn next(
    session: &Session,
    request: idl::NotificationEventRequest,
) -> thrift::Result<idl::NotificationEventResponse> {
    superuser(session)?;
    let last_event = u64::try_from(request.last_event).unwrap_or(0);
    let max_count = match request.max_events {
        Some(max) if max > 0 => usize::try_from(max).unwrap_or(EVENT_READ_COUNT_MAX),
        _ => EVENT_READ_COUNT_MAX,
    };
    let filter = EventFilter {
        skip_types: request.event_type_skip_list.unwrap_or_default(),
        catalog: request.cat_name,
        database: request.db_name,
        tables: request.table_names.unwrap_or_default(),
        to_event_id: None,
    };
    let events = session
        .store()
        .next_events(last_event, max_count, &filter)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    let events = events
        .iter()
        .map(event_messages::to_idl)
        .collect::<thrift::Result<_>>()?;
    Ok(idl::NotificationEventResponse { events })
}

/// `get_current_notificationEventId`.
pub fn current(session: &Session) -> thrift::Result<idl::CurrentNotificationEventId> {
    superuser(session)?;
    let event_id = session
        .store()
        .current_event_id()
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::CurrentNotificationEventId {
        event_id: i64::try_from(event_id).unwrap_or(i64::MAX),
    })
}

/// `get_notification_events_count`: events of a database after `fromEventId` (up to
/// `toEventId`, at most `limit`, when given).
pub fn count(
    session: &Session,
    request: idl::NotificationEventsCountRequest,
) -> thrift::Result<idl::NotificationEventsCountResponse> {
    superuser(session)?;
    let from_event_id = u64::try_from(request.from_event_id).unwrap_or(0);
    let filter = EventFilter {
        skip_types: Vec::new(),
        catalog: Some(catalog_or_default(request.cat_name)),
        database: Some(request.db_name),
        tables: request.table_names.unwrap_or_default(),
        to_event_id: request.to_event_id.and_then(|to| u64::try_from(to).ok()),
    };
    let limit = request.limit.filter(|limit| *limit > 0);
    let limit = limit.and_then(|limit| u64::try_from(limit).ok());
    let events_count = session
        .store()
        .count_events(from_event_id, &filter, limit)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::NotificationEventsCountResponse {
        events_count: i64::try_from(events_count).unwrap_or(i64::MAX),
    })
}

fn insert_data(data: idl::InsertEventRequestData) -> InsertData {
    InsertData {
        replace: data.replace.unwrap_or(false),
        files_added: data.files_added,
        files_added_checksum: data.files_added_checksum.unwrap_or_default(),
        sub_directories: data.sub_directory_list.unwrap_or_default(),
    }
}

/// `fire_listener_event`: inserts become `INSERT` events, answered with their ids. Refresh
/// events (Impala's) are refused: hivestore has no listener to refresh.
pub fn fire(
    session: &Session,
    request: idl::FireEventRequest,
) -> thrift::Result<idl::FireEventResponse> {
    let (Some(database), Some(table)) = (request.db_name, request.table_name) else {
        return Err(undeclared("fire_listener_event needs dbName and tableName"));
    };
    let catalog = catalog_or_default(request.cat_name);
    authorize_table(session, UPDATE, (&catalog, &database, &table))?;
    let datas = match request.data {
        idl::FireEventRequestData::InsertData(data) => vec![data],
        idl::FireEventRequestData::InsertDatas(datas) => datas,
        idl::FireEventRequestData::RefreshEvent(_) => {
            return Err(undeclared(
                "fire_listener_event with refreshEvent is not supported",
            ))
        }
    };
    let request_values = request.partition_vals.filter(|values| !values.is_empty());
    let inserts = datas
        .into_iter()
        .map(|mut data| {
            let values = data.partition_val.take().or_else(|| request_values.clone());
            (values, insert_data(data))
        })
        .collect();
    let event = InsertEvent {
        catalog,
        database,
        table,
        inserts,
    };
    let event_ids = session
        .store()
        .record_inserts(event)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    let event_ids = event_ids
        .into_iter()
        .map(|id| i64::try_from(id).unwrap_or(i64::MAX));
    Ok(idl::FireEventResponse {
        event_ids: Some(event_ids.collect()),
    })
}

fn write_notification(
    catalog: &str,
    request: idl::WriteNotificationLogRequest,
) -> thrift::Result<WriteNotification> {
    let txn_id = u64::try_from(request.txn_id)
        .map_err(|_| undeclared(format!("transaction id {} is negative", request.txn_id)))?;
    Ok(WriteNotification {
        txn_id,
        write_id: request.write_id,
        catalog: catalog.to_string(),
        database: request.db,
        table: request.table,
        partition_values: request.partition_vals.filter(|values| !values.is_empty()),
        files: insert_data(request.file_info),
    })
}

/// `add_write_notification_log`.
pub fn add_write(
    session: &Session,
    request: idl::WriteNotificationLogRequest,
) -> thrift::Result<idl::WriteNotificationLogResponse> {
    let catalog = hivestore_engine::DEFAULT_CATALOG_NAME;
    authorize_table(session, UPDATE, (catalog, &request.db, &request.table))?;
    let write = write_notification(catalog, request)?;
    session
        .store()
        .record_writes(vec![write])
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::WriteNotificationLogResponse {})
}

/// `add_write_notification_log_in_batch`: the writes of one table, all or none.
pub fn add_writes(
    session: &Session,
    request: idl::WriteNotificationLogBatchRequest,
) -> thrift::Result<idl::WriteNotificationLogBatchResponse> {
    let catalog = catalog_or_default(Some(request.catalog));
    authorize_table(session, UPDATE, (&catalog, &request.db, &request.table))?;
    let writes = request
        .request_list
        .into_iter()
        .map(|mut write| {
            write.db = request.db.clone();
            write.table = request.table.clone();
            write_notification(&catalog, write)
        })
        .collect::<thrift::Result<_>>()?;
    session
        .store()
        .record_writes(writes)
        .map_err(|error| to_thrift(error, throws::NONE))?;
    Ok(idl::WriteNotificationLogBatchResponse {})
}

/// `get_all_write_event_info`.
pub fn write_infos(
    session: &Session,
    request: idl::GetAllWriteEventInfoRequest,
) -> thrift::Result<Vec<idl::WriteEventInfo>> {
    // Replication's read of a transaction's write events: the notification log's rule.
    superuser(session)?;
    let txn_id = u64::try_from(request.txn_id).unwrap_or(0);
    let writes = session
        .store()
        .write_events(
            txn_id,
            request.db_name.as_deref(),
            request.table_name.as_deref(),
        )
        .map_err(|error| to_thrift(error, throws::LIST))?;
    let mut infos = Vec::with_capacity(writes.len());
    for write in writes {
        let table_obj = to_tjson(&crate::convert::table_to_idl(write.table_object.clone()))?;
        let partition = write
            .partition_object
            .as_ref()
            .and_then(|images| images.to_partitions(&write.table_object).pop());
        let partition_obj = partition
            .map(|partition| to_tjson(&crate::convert::partition_to_idl(partition)))
            .transpose()?;
        infos.push(idl::WriteEventInfo {
            write_id: write.write_id,
            database: write.database,
            table: write.table,
            files: write.files.files_added.join(","),
            partition: write.partition,
            table_obj: Some(table_obj),
            partition_obj,
        });
    }
    Ok(infos)
}
