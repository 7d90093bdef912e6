//! `scheduled_query_maintenance` (create, alter, drop) and `get_scheduled_query`, keyed by
//! the schedule's name and cluster namespace as given.

use crate::error::{Error, Result};
use crate::registry::check_len;
use crate::scheduled::cron::Schedule;
use crate::scheduled::{
    key_ref, ScheduledQuery, SCHEDULED_QUERIES_PER_NAMESPACE_MAX, SCHEDULED_QUERY_NAME_LEN_MAX,
    SCHEDULED_QUERY_TEXT_LEN_MAX,
};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store};

/// What `scheduled_query_maintenance` does (Hive's `ScheduledQueryMaintenanceRequestType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maintenance {
    /// Creates the query.
    Create,
    /// Replaces its fields but its name and namespace.
    Alter,
    /// Drops it.
    Drop,
}

/// A scheduled query as `scheduled_query_maintenance` sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScheduledQueryDefinition {
    /// The schedule's name.
    pub name: String,
    /// The cluster namespace.
    pub namespace: String,
    /// Whether it runs (unset reads as false, as Hive's `isEnabled` does).
    pub enabled: bool,
    /// The Quartz schedule.
    pub schedule: Option<String>,
    /// Who runs it.
    pub user: Option<String>,
    /// The query.
    pub query: Option<String>,
}

/// Hive's `computeNextExecutionTime`: the schedule's next time after now.
pub(crate) fn next_execution(schedule: &str, now: i32) -> Result<i32> {
    let Some(parsed) = Schedule::parse(schedule) else {
        return Err(Error::InvalidInput(format!(
            "Invalid QUARTZ schedule expression: '{schedule}'"
        )));
    };
    parsed
        .next_after(i64::from(now))
        .and_then(|next| i32::try_from(next).ok())
        .ok_or_else(|| Error::InvalidInput(format!("Invalid schedule: {schedule}")))
}

fn required<'a>(value: &'a Option<String>, what: &str) -> Result<&'a str> {
    value
        .as_deref()
        .ok_or_else(|| Error::InvalidInput(format!("A scheduled query's {what} cannot be null")))
}

fn check_definition(definition: &ScheduledQueryDefinition) -> Result<()> {
    let names = [
        ("A schedule name", Some(definition.name.as_str())),
        ("A cluster namespace", Some(definition.namespace.as_str())),
        ("A schedule", definition.schedule.as_deref()),
        ("A user", definition.user.as_deref()),
    ];
    for (what, value) in names {
        if let Some(value) = value {
            check_len(what, value, SCHEDULED_QUERY_NAME_LEN_MAX)
                .map_err(|error| Error::InvalidInput(error.to_string()))?;
        }
    }
    if let Some(query) = &definition.query {
        check_len("A query", query, SCHEDULED_QUERY_TEXT_LEN_MAX)
            .map_err(|error| Error::InvalidInput(error.to_string()))?;
    }
    Ok(())
}

impl Store {
    /// Hive's `scheduled_query_maintenance`: creates, alters or drops a scheduled query; a
    /// created or altered one gets its next execution from its schedule.
    pub fn scheduled_query_maintenance(
        &self,
        kind: Maintenance,
        definition: ScheduledQueryDefinition,
    ) -> Result<()> {
        check_definition(&definition)?;
        let (name, namespace) = (&definition.name, &definition.namespace);
        let key = keys::scheduled_query_key(namespace, name);
        let now = now_seconds();
        self.write(|txn| {
            let existing = match txn.view::<ScheduledQuery>(&key)? {
                Some(view) => Some(view.to_owned()?),
                None => None,
            };
            let missing = || {
                Error::NoSuchObject(format!(
                    "Scheduled query with name: {} doesn't exists.",
                    key_ref(name, namespace)
                ))
            };
            let active_execution = match (kind, &existing) {
                (Maintenance::Create, Some(_)) => {
                    return Err(Error::AlreadyExists(format!(
                        "Scheduled query with name: {} already exists.",
                        key_ref(name, namespace)
                    )))
                }
                (Maintenance::Create, None) => {
                    let prefix = KeyRange::prefix(&keys::scheduled_query_prefix(namespace));
                    let limit = SCHEDULED_QUERIES_PER_NAMESPACE_MAX;
                    if txn.scan(prefix).nth(limit - 1).is_some() {
                        return Err(Error::InvalidInput(format!(
                            "Cluster namespace {namespace} holds {limit} scheduled queries, the \
                             most allowed"
                        )));
                    }
                    None
                }
                (_, None) => return Err(missing()),
                (Maintenance::Drop, Some(_)) => {
                    txn.delete(key.clone());
                    return Ok(());
                }
                (Maintenance::Alter, Some(existing)) => existing.active_execution,
            };
            let schedule = required(&definition.schedule, "schedule")?;
            let query = ScheduledQuery {
                name: name.clone(),
                namespace: namespace.clone(),
                enabled: definition.enabled,
                schedule: schedule.to_string(),
                user: required(&definition.user, "user")?.to_string(),
                query: required(&definition.query, "query")?.to_string(),
                next_execution: Some(next_execution(schedule, now)?),
                active_execution,
            };
            txn.put_value(key.clone(), &query)
        })
    }

    /// Hive's `get_scheduled_query`.
    pub fn scheduled_query(&self, name: &str, namespace: &str) -> Result<ScheduledQuery> {
        match self.view::<ScheduledQuery>(&keys::scheduled_query_key(namespace, name))? {
            Some(view) => view.to_owned(),
            None => Err(Error::NoSuchObject(format!(
                "There is no scheduled query for: {}",
                key_ref(name, namespace)
            ))),
        }
    }
}
