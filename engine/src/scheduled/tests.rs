//! Hive's rules for scheduled queries and their executions.

use std::time::Duration;

use super::executions::ExecutionProgress;
use super::queries::{Maintenance, ScheduledQueryDefinition};
use super::*;
use crate::error::Error;
use crate::store::{memory_store_with_databases, now_seconds, Store};

fn definition(name: &str, schedule: &str, enabled: bool) -> ScheduledQueryDefinition {
    ScheduledQueryDefinition {
        name: name.to_string(),
        namespace: "hive".to_string(),
        enabled,
        schedule: Some(schedule.to_string()),
        user: Some("alice".to_string()),
        query: Some("select 1".to_string()),
    }
}

fn report(id: u64, state: QueryState) -> ExecutionProgress {
    ExecutionProgress {
        execution_id: id,
        state,
        executor_query_id: Some("q1".to_string()),
        error_message: None,
    }
}

/// Polls until a query is due: every-second schedules are due within two seconds.
fn poll_due(store: &Store, timeout_secs: u32) -> executions::PolledExecution {
    for _ in 0..30 {
        if let Some(polled) = store.scheduled_query_poll("hive", timeout_secs).unwrap() {
            return polled;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no query became due within 3 s");
}

#[test]
fn maintenance_follows_hive() {
    let store = memory_store_with_databases(&[]);
    store
        .scheduled_query_maintenance(Maintenance::Create, definition("s", "0 0 * * * ?", true))
        .unwrap();
    let got = store.scheduled_query("s", "hive").unwrap();
    let next = got.next_execution.unwrap();
    assert!(next > now_seconds() && next % 3600 == 0, "{next}");
    assert_eq!(
        store
            .scheduled_query_maintenance(Maintenance::Create, definition("s", "0 0 * * * ?", true)),
        Err(Error::AlreadyExists(
            "Scheduled query with name: s@hive already exists.".into()
        ))
    );
    assert_eq!(
        store.scheduled_query_maintenance(Maintenance::Create, definition("t", "bad", true)),
        Err(Error::InvalidInput(
            "Invalid QUARTZ schedule expression: 'bad'".into()
        ))
    );
    assert_eq!(
        store.scheduled_query_maintenance(
            Maintenance::Create,
            definition("t", "0 0 0 1 1 ? 2001", true)
        ),
        Err(Error::InvalidInput(
            "Invalid schedule: 0 0 0 1 1 ? 2001".into()
        ))
    );
    store
        .scheduled_query_maintenance(Maintenance::Alter, definition("s", "0 0 0 * * ?", false))
        .unwrap();
    let got = store.scheduled_query("s", "hive").unwrap();
    assert!(!got.enabled && got.next_execution.unwrap() % 86_400 == 0);
    store
        .scheduled_query_maintenance(Maintenance::Drop, definition("s", "", false))
        .unwrap();
    assert_eq!(
        store.scheduled_query("s", "hive"),
        Err(Error::NoSuchObject(
            "There is no scheduled query for: s@hive".into()
        ))
    );
    assert_eq!(
        store.scheduled_query_maintenance(Maintenance::Alter, definition("s", "0 0 * * * ?", true)),
        Err(Error::NoSuchObject(
            "Scheduled query with name: s@hive doesn't exists.".into()
        ))
    );
}

#[test]
fn executions_move_through_hives_states() {
    let store = memory_store_with_databases(&[]);
    store
        .scheduled_query_maintenance(Maintenance::Create, definition("s", "* * * * * ?", true))
        .unwrap();
    store
        .scheduled_query_maintenance(Maintenance::Create, definition("off", "* * * * * ?", false))
        .unwrap();
    let polled = poll_due(&store, 120);
    assert_eq!((polled.name.as_str(), polled.user.as_str()), ("s", "alice"));
    assert_eq!(polled.query, "/* schedule: s */select 1");
    // While it runs it is not handed out again, and the disabled one never is.
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(store.scheduled_query_poll("hive", 120).unwrap(), None);
    let id = polled.execution_id;
    store
        .scheduled_query_progress(report(id, QueryState::Executing), 120)
        .unwrap();
    assert_eq!(
        store.scheduled_query_progress(report(id, QueryState::Inited), 120),
        Err(Error::InvalidOperation(
            "Invalid state change: EXECUTING=>INITED".into()
        ))
    );
    let mut failed = report(id, QueryState::Failed);
    failed.error_message = Some("x".repeat(5000));
    store.scheduled_query_progress(failed, 120).unwrap();
    let execution = store.scheduled_execution(id).unwrap().unwrap();
    assert_eq!(execution.state, QueryState::Failed);
    assert_eq!(
        execution.error_message.unwrap().len(),
        SCHEDULED_ERROR_MESSAGE_CHARS_MAX
    );
    assert!(execution.end_time.is_some() && execution.last_update_time.is_none());
    assert_eq!(
        store.scheduled_query_progress(report(id, QueryState::Finished), 120),
        Err(Error::InvalidOperation(
            "Invalid state change: FAILED=>FINISHED".into()
        ))
    );
    // Free again: the next poll hands out a new execution.
    assert!(poll_due(&store, 120).execution_id > id);
}

#[test]
fn a_silent_execution_times_out() {
    let store = memory_store_with_databases(&[]);
    store
        .scheduled_query_maintenance(Maintenance::Create, definition("s", "* * * * * ?", true))
        .unwrap();
    let first = poll_due(&store, 1).execution_id;
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(
        store.scheduled_query_progress(report(first, QueryState::Executing), 1),
        Err(Error::InvalidOperation(
            "Invalid state change: TIMED_OUT=>EXECUTING".into()
        ))
    );
    let execution = store.scheduled_execution(first).unwrap().unwrap();
    assert_eq!(execution.state, QueryState::TimedOut);
    assert_eq!(
        execution.error_message.unwrap(),
        "Query stuck in: INITED state for >1 seconds. Execution timed out."
    );
    assert!(poll_due(&store, 1).execution_id > first);
}

#[test]
fn a_namespace_holds_a_bounded_number_of_queries() {
    let store = memory_store_with_databases(&[]);
    for index in 0..SCHEDULED_QUERIES_PER_NAMESPACE_MAX {
        let query = definition(&format!("q{index}"), "0 0 0 * * ?", true);
        store
            .scheduled_query_maintenance(Maintenance::Create, query)
            .unwrap();
    }
    let one_more = definition("one_more", "0 0 0 * * ?", true);
    let error = store
        .scheduled_query_maintenance(Maintenance::Create, one_more)
        .unwrap_err();
    assert!(matches!(error, Error::InvalidInput(m) if m.contains("the most allowed")));
    // Another namespace has room.
    let mut elsewhere = definition("one_more", "0 0 0 * * ?", true);
    elsewhere.namespace = "other".to_string();
    store
        .scheduled_query_maintenance(Maintenance::Create, elsewhere)
        .unwrap();
}
