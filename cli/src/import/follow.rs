//! `--follow`: after the copy, the source's notification log applied to the copy until a
//! signal stops it. Each event names an object; the follower reads that object again from
//! the source and makes the copy's the same (or drops it if gone), rather than parsing the
//! event's message, whose format differs between Hive 2 and 4. After each event the copy's
//! notification id is raised to the event's, so the copy's id is also the follower's
//! position: a restart continues after the last event applied.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hivestore_idl::hive_metastore::NotificationEvent;

use super::copy::{Constraints, Copier};
use super::reads::{failed, Calls, TableName, DEFAULT_CATALOG};

/// The longest wait `--follow-interval-ms` may ask for between polls: a minute.
pub const FOLLOW_INTERVAL_MS_MAX: u64 = 60_000;

/// Checks the follower's two intervals, as `import --follow` and `serve --follow-from` take
/// them.
pub fn check_intervals(interval_ms: u64, grants_interval_secs: u64) -> Result<(), String> {
    if interval_ms > FOLLOW_INTERVAL_MS_MAX {
        return Err(format!(
            "--follow-interval-ms {interval_ms} is out of range: at most {FOLLOW_INTERVAL_MS_MAX}"
        ));
    }
    if grants_interval_secs == 0 {
        return Err("--follow-grants-interval-secs must be at least 1".to_string());
    }
    Ok(())
}

/// How many events one poll reads.
pub const FOLLOW_EVENTS_PER_POLL: i32 = 1_000;
/// How long the follower waits after a poll that found nothing, by default
/// (`--follow-interval-ms`).
pub const FOLLOW_INTERVAL_MS_DEFAULT: u64 = 1_000;
/// How long a sleep between polls lasts at most before the stop flag is looked at again.
pub const STOP_CHECK: Duration = Duration::from_millis(100);
/// How often the follower makes the copy's grants the source's, by default
/// (`--follow-grants-interval-secs`): neither Hive nor hivestore logs an event for a grant.
pub const FOLLOW_GRANTS_INTERVAL_SECS_DEFAULT: u64 = 60;

/// What an event asks of the follower.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Make the copy's catalogs the source's.
    Catalogs,
    /// Make one database's record the source's (dropped if gone).
    Database { catalog: String, database: String },
    /// Make one table the source's, and the database's list of tables (a rename moves one).
    Table(TableName),
    /// Make one database's functions the source's.
    Functions { catalog: String, database: String },
    /// Make roles and global privileges the source's.
    Roles,
    /// Nothing the copy holds (transactions, locks, compactions, write notifications).
    Ignore,
}

/// What `event` asks of the follower, by its type and the names it carries.
pub fn action(event: &NotificationEvent) -> Action {
    let catalog = event
        .cat_name
        .clone()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| DEFAULT_CATALOG.to_string());
    let database = event.db_name.clone().unwrap_or_default();
    let table = event.table_name.clone().unwrap_or_default();
    match event.event_type.as_str() {
        "CREATE_CATALOG" | "ALTER_CATALOG" | "DROP_CATALOG" => Action::Catalogs,
        "CREATE_DATABASE" | "ALTER_DATABASE" | "DROP_DATABASE" if !database.is_empty() => {
            Action::Database { catalog, database }
        }
        "CREATE_FUNCTION" | "DROP_FUNCTION" if !database.is_empty() => {
            Action::Functions { catalog, database }
        }
        "GRANT_ROLE" | "REVOKE_ROLE" | "CREATE_ROLE" | "DROP_ROLE" => Action::Roles,
        "CREATE_TABLE"
        | "ALTER_TABLE"
        | "DROP_TABLE"
        | "ADD_PARTITION"
        | "ALTER_PARTITION"
        | "DROP_PARTITION"
        | "INSERT"
        | "UPDATE_TABLE_COLUMN_STAT"
        | "DELETE_TABLE_COLUMN_STAT"
        | "UPDATE_PARTITION_COLUMN_STAT"
        | "DELETE_PARTITION_COLUMN_STAT"
        | "UPDATE_PARTITION_COLUMN_STAT_BATCH"
        | "ADD_PRIMARYKEY"
        | "ADD_FOREIGNKEY"
        | "ADD_UNIQUECONSTRAINT"
        | "ADD_NOTNULLCONSTRAINT"
        | "ADD_DEFAULTCONSTRAINT"
        | "ADD_CHECKCONSTRAINT"
        | "DROP_CONSTRAINT"
            if !database.is_empty() && !table.is_empty() =>
        {
            Action::Table(TableName {
                catalog,
                database,
                table,
            })
        }
        _ => Action::Ignore,
    }
}

/// Applies the source's events from the copy's event id on, until `stop` is set; grants,
/// which no event announces, are made the source's every `grants_interval`.
pub fn follow(
    copier: &Copier,
    stop: &AtomicBool,
    interval: Duration,
    grants_interval: Duration,
) -> Result<(), String> {
    let mut last = copier_event_id(copier)?;
    tracing::info!(
        from_event_id = last,
        "following the source's notification log"
    );
    let mut applied: u64 = 0;
    let mut grants_synced = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if grants_synced.elapsed() >= grants_interval {
            copier.sync_all_grants()?;
            grants_synced = Instant::now();
        }
        let (position, count) = poll(copier, last, &|| stop.load(Ordering::Relaxed))?;
        if count == 0 {
            sleep_unless_stopped(interval, stop);
            continue;
        }
        last = position;
        applied += count;
        tracing::info!(applied, last_event_id = last, "applied the source's events");
    }
    tracing::info!(applied, last_event_id = last, "stopped following");
    Ok(())
}

/// One poll: the source's events after `last`, at most `FOLLOW_EVENTS_PER_POLL`, each
/// applied and the copy's event id raised to it, until `stopped` says so. Returns the last
/// event applied and how many were.
pub fn poll(copier: &Copier, last: i64, stopped: &dyn Fn() -> bool) -> Result<(i64, u64), String> {
    let events = copier
        .source()
        .calls
        .get_next_notification(last, FOLLOW_EVENTS_PER_POLL)
        .map_err(|error| failed("get_next_notification", &last.to_string(), &error))?;
    let mut position = last;
    let mut applied = 0;
    for event in events {
        if stopped() {
            break;
        }
        apply(copier, &event)?;
        copier.raise_event_id(event.event_id)?;
        position = event.event_id;
        applied += 1;
    }
    Ok((position, applied))
}

/// The copy's notification id: the last source event applied.
pub fn copier_event_id(copier: &Copier) -> Result<i64, String> {
    let id = copier
        .copy_side()
        .current_event_id()
        .map_err(|error| format!("cannot read the copy's event id: {error}"))?;
    Ok(id)
}

/// Makes the copy's objects that `event` names the source's.
pub fn apply(copier: &Copier, event: &NotificationEvent) -> Result<(), String> {
    match action(event) {
        Action::Catalogs => copier.sync_catalogs(),
        Action::Database { catalog, database } => {
            copier.sync_database_record(&catalog, &database).map(|_| ())
        }
        Action::Functions { catalog, database } => copier.sync_functions(&catalog, &database),
        Action::Roles => copier.sync_roles(),
        Action::Table(name) => {
            copier.sync_table(&name, Constraints::All)?;
            copier.sync_table_list(&name.catalog, &name.database)
        }
        Action::Ignore => Ok(()),
    }
}

fn sleep_unless_stopped(interval: Duration, stop: &AtomicBool) {
    let until = Instant::now() + interval;
    while !stop.load(Ordering::Relaxed) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(STOP_CHECK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(event_type: &str, database: Option<&str>, table: Option<&str>) -> NotificationEvent {
        NotificationEvent {
            event_id: 1,
            event_time: 0,
            event_type: event_type.to_string(),
            db_name: database.map(str::to_string),
            table_name: table.map(str::to_string),
            message: String::new(),
            message_format: None,
            cat_name: None,
        }
    }

    #[test]
    fn table_events_name_their_table_in_the_default_catalog() {
        let expected = Action::Table(TableName {
            catalog: "hive".to_string(),
            database: "db".to_string(),
            table: "t".to_string(),
        });
        for kind in [
            "ADD_PARTITION",
            "ALTER_TABLE",
            "DROP_PARTITION",
            "UPDATE_TABLE_COLUMN_STAT",
        ] {
            assert_eq!(
                action(&event(kind, Some("db"), Some("t"))),
                expected,
                "{kind}"
            );
        }
    }

    #[test]
    fn events_without_their_names_and_transactions_are_ignored() {
        assert_eq!(
            action(&event("ADD_PARTITION", Some("db"), None)),
            Action::Ignore
        );
        assert_eq!(action(&event("OPEN_TXN", None, None)), Action::Ignore);
        assert_eq!(
            action(&event("ACID_WRITE", Some("db"), Some("t"))),
            Action::Ignore
        );
        let mut in_catalog = event("CREATE_DATABASE", Some("db"), None);
        in_catalog.cat_name = Some("spark".to_string());
        assert_eq!(
            action(&in_catalog),
            Action::Database {
                catalog: "spark".to_string(),
                database: "db".to_string()
            }
        );
    }
}
