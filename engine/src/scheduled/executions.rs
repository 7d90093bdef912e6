//! Executions of scheduled queries: `scheduled_query_poll` hands the most overdue enabled
//! query of a namespace, not already running, to an executor as a new `INITED` execution and
//! moves its next execution on; `scheduled_query_progress` records the executor's reports
//! with Hive's allowed transitions. An execution not heard from within the timeout is
//! `TIMED_OUT`, as Hive's `ScheduledQueryExecutionsMaintTask` marks it (Hive checks once a
//! minute; here every poll of the namespace and every report of the execution checks).

use crate::error::{Error, Result};
use crate::runtime_stats::next_id;
use crate::scheduled::queries::next_execution;
use crate::scheduled::{
    QueryState, ScheduledExecution, ScheduledQuery, SCHEDULED_ERROR_MESSAGE_CHARS_MAX,
    SCHEDULED_EXECUTIONS_COUNT_MAX, SCHEDULED_EXECUTION_MAX_AGE_SECS,
};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store, WriteTxn};

/// The most old executions one poll deletes.
const EXPIRED_DELETES_PER_POLL_MAX: usize = 1_000;

/// What `scheduled_query_poll` hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolledExecution {
    /// The schedule's name.
    pub name: String,
    /// The cluster namespace.
    pub namespace: String,
    /// The new execution's id.
    pub execution_id: u64,
    /// The query, prefixed with `/* schedule: <name> */` as Hive 4 sends it.
    pub query: String,
    /// Who runs it.
    pub user: String,
}

/// An executor's report (Hive's `ScheduledQueryProgressInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionProgress {
    /// The execution.
    pub execution_id: u64,
    /// Its new state.
    pub state: QueryState,
    /// The executor's id of the query.
    pub executor_query_id: Option<String>,
    /// The error, if any.
    pub error_message: Option<String>,
}

/// Hive's `validateStateChange`.
fn is_allowed(from: QueryState, to: QueryState) -> bool {
    match from {
        QueryState::Inited => to != QueryState::Inited,
        QueryState::Executing => matches!(
            to,
            QueryState::Finished | QueryState::Executing | QueryState::Failed
        ),
        _ => false,
    }
}

/// commons-lang's `abbreviate`: at most `max` characters, the last three `...` when cut.
fn abbreviate(message: &str, max: usize) -> String {
    if message.chars().count() <= max {
        return message.to_string();
    }
    let kept: String = message.chars().take(max - 3).collect();
    format!("{kept}...")
}

fn read_execution(txn: &WriteTxn<'_>, id: u64) -> Result<Option<ScheduledExecution>> {
    match txn.view::<ScheduledExecution>(&keys::scheduled_execution_key(id))? {
        Some(view) => Ok(Some(view.to_owned()?)),
        None => Ok(None),
    }
}

/// Ends execution `id` in `state` now, and frees its query for the next poll.
fn end_execution(
    txn: &mut WriteTxn<'_>,
    id: u64,
    execution: &mut ScheduledExecution,
    state: QueryState,
    now: i32,
) -> Result<()> {
    execution.state = state;
    execution.end_time = Some(now);
    execution.last_update_time = None;
    let query_key = keys::scheduled_query_key(&execution.namespace, &execution.name);
    if let Some(view) = txn.view::<ScheduledQuery>(&query_key)? {
        let mut query = view.to_owned()?;
        if query.active_execution == Some(id) {
            query.active_execution = None;
            txn.put_value(query_key, &query)?;
        }
    }
    Ok(())
}

/// Marks execution `id` `TIMED_OUT` when it is running and was last heard from `timeout_secs`
/// or more ago, with Hive's message; answers whether it did.
fn time_out_if_stale(
    txn: &mut WriteTxn<'_>,
    id: u64,
    execution: &mut ScheduledExecution,
    now: i32,
    timeout_secs: u32,
) -> Result<bool> {
    let running = matches!(execution.state, QueryState::Inited | QueryState::Executing);
    let deadline = now.saturating_sub(i32::try_from(timeout_secs).unwrap_or(i32::MAX));
    if !running
        || execution
            .last_update_time
            .is_none_or(|last| last > deadline)
    {
        return Ok(false);
    }
    execution.error_message = Some(format!(
        "Query stuck in: {} state for >{timeout_secs} seconds. Execution timed out.",
        execution.state.name()
    ));
    end_execution(txn, id, execution, QueryState::TimedOut, now)?;
    Ok(true)
}

/// Deletes executions older than Hive's maximum age and past the count bound, oldest first;
/// ids only ever go from the front, so the live ones are one run of ids.
fn prune_executions(txn: &mut WriteTxn<'_>, newest: u64, now: i32) -> Result<()> {
    let expired_before = now.saturating_sub(SCHEDULED_EXECUTION_MAX_AGE_SECS);
    let mut first = None;
    let range = KeyRange::prefix(&[keys::KEYSPACE_SCHEDULED_EXECUTION]);
    for entry in txn.scan(range).take(EXPIRED_DELETES_PER_POLL_MAX) {
        let (key, _) = entry?;
        let id =
            u64::from_be_bytes(key[1..].try_into().map_err(|_| {
                Error::corruption(&key, "a scheduled execution key is not 9 bytes")
            })?);
        let Some(view) = txn.view::<ScheduledExecution>(&key)? else {
            break;
        };
        let archived = view.archived()?;
        let running = matches!(
            view.to_owned()?.state,
            QueryState::Inited | QueryState::Executing
        );
        if running || archived.start_time.to_native() > expired_before {
            break;
        }
        first = Some(id + 1);
    }
    let bound = (newest + 1).saturating_sub(SCHEDULED_EXECUTIONS_COUNT_MAX);
    let first = first.unwrap_or(0).max(bound);
    if first > 0 {
        let start = keys::scheduled_execution_key(0);
        txn.delete_range(KeyRange::between(
            &start,
            &keys::scheduled_execution_key(first),
        ))?;
    }
    Ok(())
}

impl Store {
    /// Hive's `scheduled_query_poll`: the enabled query of `namespace` due longest ago and
    /// not running, handed out as a new execution; `None` when no query is due.
    pub fn scheduled_query_poll(
        &self,
        namespace: &str,
        timeout_secs: u32,
    ) -> Result<Option<PolledExecution>> {
        let now = now_seconds();
        self.write(|txn| {
            let prefix = KeyRange::prefix(&keys::scheduled_query_prefix(namespace));
            let queries: Vec<_> = txn
                .scan(prefix)
                .map(|entry| entry.map(|(key, _)| key))
                .collect::<Result<_>>()?;
            let mut due: Option<ScheduledQuery> = None;
            for key in queries {
                let Some(view) = txn.view::<ScheduledQuery>(&key)? else {
                    continue;
                };
                let mut query = view.to_owned()?;
                if let Some(id) = query.active_execution {
                    if let Some(mut execution) = read_execution(txn, id)? {
                        if time_out_if_stale(txn, id, &mut execution, now, timeout_secs)? {
                            txn.put_value(keys::scheduled_execution_key(id), &execution)?;
                            query.active_execution = None;
                        }
                    }
                }
                let is_due = query.enabled
                    && query.active_execution.is_none()
                    && query.next_execution.is_some_and(|next| next <= now);
                let earlier = due
                    .as_ref()
                    .is_none_or(|best| query.next_execution < best.next_execution);
                if is_due && earlier {
                    due = Some(query);
                }
            }
            let Some(mut query) = due else {
                return Ok(None);
            };
            let id = next_id(txn, keys::COUNTER_SCHEDULED_EXECUTION)?;
            query.next_execution = next_execution(&query.schedule, now).ok();
            query.active_execution = Some(id);
            let execution = ScheduledExecution {
                name: query.name.clone(),
                namespace: query.namespace.clone(),
                state: QueryState::Inited,
                executor_query_id: None,
                error_message: None,
                start_time: now,
                end_time: None,
                last_update_time: Some(now),
            };
            prune_executions(txn, id, now)?;
            txn.put_value(keys::scheduled_execution_key(id), &execution)?;
            txn.put_value(
                keys::scheduled_query_key(&query.namespace, &query.name),
                &query,
            )?;
            Ok(Some(PolledExecution {
                execution_id: id,
                query: format!("/* schedule: {} */{}", query.name, query.query),
                user: query.user,
                name: query.name,
                namespace: query.namespace,
            }))
        })
    }

    /// Hive's `scheduled_query_progress`: the executor's report on an execution, refused
    /// (`InvalidOperation`) when its state cannot follow the current one.
    pub fn scheduled_query_progress(
        &self,
        progress: ExecutionProgress,
        timeout_secs: u32,
    ) -> Result<()> {
        let now = now_seconds();
        let id = progress.execution_id;
        // A stale execution times out in a write of its own, kept when the report is refused.
        self.write(|txn| {
            if let Some(mut execution) = read_execution(txn, id)? {
                if time_out_if_stale(txn, id, &mut execution, now, timeout_secs)? {
                    txn.put_value(keys::scheduled_execution_key(id), &execution)?;
                }
            }
            Ok(())
        })?;
        self.write(|txn| {
            let Some(mut execution) = read_execution(txn, id)? else {
                return Err(Error::Refused(format!(
                    "No scheduled execution has id {id}"
                )));
            };
            if !is_allowed(execution.state, progress.state) {
                return Err(Error::InvalidOperation(format!(
                    "Invalid state change: {}=>{}",
                    execution.state.name(),
                    progress.state.name()
                )));
            }
            if progress.executor_query_id.is_some() {
                execution.executor_query_id = progress.executor_query_id.clone();
            }
            if let Some(message) = &progress.error_message {
                let message = abbreviate(message, SCHEDULED_ERROR_MESSAGE_CHARS_MAX);
                execution.error_message = Some(message);
            }
            match progress.state {
                QueryState::Inited | QueryState::Executing => {
                    execution.state = progress.state;
                    execution.last_update_time = Some(now);
                }
                QueryState::Failed | QueryState::Finished | QueryState::TimedOut => {
                    end_execution(txn, id, &mut execution, progress.state, now)?;
                }
                QueryState::AutoDisabled => {
                    return Err(Error::InvalidOperation(
                        "invalid state: AUTO_DISABLED".to_string(),
                    ))
                }
            }
            txn.put_value(keys::scheduled_execution_key(id), &execution)
        })
    }

    /// Execution `id`, if kept.
    pub fn scheduled_execution(&self, id: u64) -> Result<Option<ScheduledExecution>> {
        match self.view::<ScheduledExecution>(&keys::scheduled_execution_key(id))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }
}
