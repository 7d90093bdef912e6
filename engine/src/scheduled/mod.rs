//! Hive's scheduled queries: a query HiveServer2 runs on a Quartz schedule, per cluster
//! namespace (`queries.rs`: `scheduled_query_maintenance`, `get_scheduled_query`), and its
//! executions (`executions.rs`: `scheduled_query_poll` hands a due query to an executor,
//! `scheduled_query_progress` records its states), as Hive 4's `ObjectStore` keeps them.
//! Schedules are read by `cron.rs`.

pub(crate) mod cron;
pub(crate) mod executions;
pub(crate) mod queries;

use rkyv::{Archive, Deserialize, Serialize};

use crate::storage::values::{stored_value, ValueKind};

/// Hive's `SCHEDULED_QUERIES.SCHEDULE_NAME`, `CLUSTER_NAMESPACE`, `SCHEDULE` and `USER`
/// width, in bytes.
pub const SCHEDULED_QUERY_NAME_LEN_MAX: usize = 256;
/// The most scheduled queries a cluster namespace may hold (hivestore's bound: a poll reads
/// the namespace's queries).
pub const SCHEDULED_QUERIES_PER_NAMESPACE_MAX: usize = 1_000;
/// Hive's `SCHEDULED_QUERIES.QUERY varchar(4000)`, in bytes.
pub const SCHEDULED_QUERY_TEXT_LEN_MAX: usize = 4000;
/// Hive's `SCHEDULED_EXECUTIONS.ERROR_MESSAGE varchar(2000)`: longer messages are cut (Hive
/// abbreviates them to 1000 characters).
pub const SCHEDULED_ERROR_MESSAGE_CHARS_MAX: usize = 1000;
/// Hive's `metastore.scheduled.queries.execution.timeout` default: an execution not heard
/// from for this long times out.
pub const SCHEDULED_EXECUTION_TIMEOUT_SECS_DEFAULT: u32 = 120;
/// Hive's `metastore.scheduled.queries.execution.max.age`: executions older are deleted.
pub const SCHEDULED_EXECUTION_MAX_AGE_SECS: i32 = 30 * 24 * 3600;
/// The most executions kept (hivestore's bound); a new one drops the oldest.
pub const SCHEDULED_EXECUTIONS_COUNT_MAX: u64 = 100_000;

/// Hive's `QueryState`, numbered as its Thrift enumeration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum QueryState {
    /// Handed to an executor.
    Inited = 0,
    /// Running.
    Executing = 1,
    /// Failed.
    Failed = 2,
    /// Done.
    Finished = 3,
    /// Not heard from within the timeout.
    TimedOut = 4,
    /// Disabled after failures.
    AutoDisabled = 5,
}

impl QueryState {
    /// The state Thrift numbers `number`, if any.
    pub fn from_number(number: i32) -> Option<QueryState> {
        use QueryState::*;
        [Inited, Executing, Failed, Finished, TimedOut, AutoDisabled]
            .into_iter()
            .find(|state| *state as i32 == number)
    }

    /// Hive's name of the state.
    pub fn name(self) -> &'static str {
        match self {
            QueryState::Inited => "INITED",
            QueryState::Executing => "EXECUTING",
            QueryState::Failed => "FAILED",
            QueryState::Finished => "FINISHED",
            QueryState::TimedOut => "TIMED_OUT",
            QueryState::AutoDisabled => "AUTO_DISABLED",
        }
    }
}

/// Hive's `ScheduledQuery`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct ScheduledQuery {
    /// The schedule's name, as given.
    pub name: String,
    /// The cluster namespace, as given.
    pub namespace: String,
    /// Whether it runs.
    pub enabled: bool,
    /// The Quartz schedule.
    pub schedule: String,
    /// Who runs it.
    pub user: String,
    /// The query.
    pub query: String,
    /// When it runs next, in seconds since the epoch.
    pub next_execution: Option<i32>,
    /// The execution running now, if any: the query is not handed out again meanwhile.
    pub active_execution: Option<u64>,
}

stored_value!(ScheduledQuery, ValueKind::ScheduledQuery);

/// Hive's `MScheduledExecution`: one run of a scheduled query.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct ScheduledExecution {
    /// The schedule's name.
    pub name: String,
    /// The cluster namespace.
    pub namespace: String,
    /// The state.
    pub state: QueryState,
    /// The executor's id of the query, once reported.
    pub executor_query_id: Option<String>,
    /// The error reported, if any.
    pub error_message: Option<String>,
    /// When it was handed out.
    pub start_time: i32,
    /// When it ended.
    pub end_time: Option<i32>,
    /// When it was last heard from, while it runs.
    pub last_update_time: Option<i32>,
}

stored_value!(ScheduledExecution, ValueKind::ScheduledExecution);

/// Hive's `scheduledQueryKeyRef`: `<name>@<namespace>`.
pub(crate) fn key_ref(name: &str, namespace: &str) -> String {
    format!("{name}@{namespace}")
}

#[cfg(test)]
mod tests;
