//! Scheduled queries: `scheduled_query_maintenance`, `get_scheduled_query`,
//! `scheduled_query_poll` and `scheduled_query_progress`, as Hive 4's `ObjectStore` answers
//! them. Executions time out after Hive's default `metastore.scheduled.queries.execution.
//! timeout` (120 s).

use hivestore_engine::{
    ExecutionProgress, Maintenance, QueryState, ScheduledQueryDefinition,
    SCHEDULED_EXECUTION_TIMEOUT_SECS_DEFAULT,
};
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

use Declared::{AlreadyExists, InvalidInput, InvalidOperation, Meta, NoSuchObject};

/// What `scheduled_query_maintenance` declares.
const MAINTENANCE: &[Declared] = &[Meta, NoSuchObject, AlreadyExists, InvalidInput];
/// What `scheduled_query_poll` declares.
const POLL: &[Declared] = &[Meta];
/// What `scheduled_query_progress` declares.
const PROGRESS: &[Declared] = &[Meta, InvalidOperation];
/// What `get_scheduled_query` declares.
const GET: &[Declared] = &[Meta, NoSuchObject];

/// `scheduled_query_maintenance`: creates, alters or drops a scheduled query.
pub fn maintenance(
    session: &Session,
    request: idl::ScheduledQueryMaintenanceRequest,
) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    let kind = match request.type_ {
        idl::ScheduledQueryMaintenanceRequestType::CREATE => Maintenance::Create,
        idl::ScheduledQueryMaintenanceRequestType::ALTER => Maintenance::Alter,
        idl::ScheduledQueryMaintenanceRequestType::DROP => Maintenance::Drop,
        _ => return Err(exception(Meta, "invalid request")),
    };
    let query = request.scheduled_query;
    let definition = ScheduledQueryDefinition {
        name: query.schedule_key.schedule_name,
        namespace: query.schedule_key.cluster_namespace,
        enabled: query.enabled.unwrap_or(false),
        schedule: query.schedule,
        user: query.user,
        query: query.query,
    };
    session
        .store()
        .scheduled_query_maintenance(kind, definition)
        .map_err(|error| to_thrift(error, MAINTENANCE))
}

/// `get_scheduled_query`.
pub fn get(session: &Session, key: idl::ScheduledQueryKey) -> thrift::Result<idl::ScheduledQuery> {
    session.authorize(Need::Anyone, Target::Server)?;
    let query = session
        .store()
        .scheduled_query(&key.schedule_name, &key.cluster_namespace)
        .map_err(|error| to_thrift(error, GET))?;
    Ok(idl::ScheduledQuery {
        schedule_key: idl::ScheduledQueryKey {
            schedule_name: query.name,
            cluster_namespace: query.namespace,
        },
        enabled: Some(query.enabled),
        schedule: Some(query.schedule),
        user: Some(query.user),
        query: Some(query.query),
        next_execution: query.next_execution,
    })
}

/// `scheduled_query_poll`: a due query as a new execution, or an empty response.
pub fn poll(
    session: &Session,
    request: idl::ScheduledQueryPollRequest,
) -> thrift::Result<idl::ScheduledQueryPollResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let polled = session
        .store()
        .scheduled_query_poll(
            &request.cluster_namespace,
            SCHEDULED_EXECUTION_TIMEOUT_SECS_DEFAULT,
        )
        .map_err(|error| to_thrift(error, POLL))?;
    let Some(polled) = polled else {
        return Ok(idl::ScheduledQueryPollResponse {
            schedule_key: None,
            execution_id: None,
            query: None,
            user: None,
        });
    };
    Ok(idl::ScheduledQueryPollResponse {
        schedule_key: Some(idl::ScheduledQueryKey {
            schedule_name: polled.name,
            cluster_namespace: polled.namespace,
        }),
        execution_id: Some(i64::try_from(polled.execution_id).unwrap_or(i64::MAX)),
        query: Some(polled.query),
        user: Some(polled.user),
    })
}

/// `scheduled_query_progress`: an executor's report on an execution.
pub fn progress(session: &Session, info: idl::ScheduledQueryProgressInfo) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)?;
    let Some(state) = QueryState::from_number(info.state.0) else {
        return Err(exception(
            InvalidOperation,
            format!("invalid state: {}", info.state.0),
        ));
    };
    let Ok(execution_id) = u64::try_from(info.scheduled_execution_id) else {
        return Err(exception(
            Meta,
            format!(
                "No scheduled execution has id {}",
                info.scheduled_execution_id
            ),
        ));
    };
    let progress = ExecutionProgress {
        execution_id,
        state,
        executor_query_id: Some(info.executor_query_id),
        error_message: info.error_message,
    };
    session
        .store()
        .scheduled_query_progress(progress, SCHEDULED_EXECUTION_TIMEOUT_SECS_DEFAULT)
        .map_err(|error| to_thrift(error, PROGRESS))
}
