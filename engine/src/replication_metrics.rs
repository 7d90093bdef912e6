//! Hive's replication metrics (`add_replication_metrics`, `get_replication_metrics`): what
//! HiveServer2's replication tasks report about each run of a replication policy, kept per
//! scheduled execution id as Hive 4's `ObjectStore` keeps `REPLICATION_METRICS`.
//!
//! A report for an execution id not yet stored creates its entry (policy, dump execution id,
//! the server's time as its start); a report for a stored one updates it: its metadata and
//! progress when given non-empty, its message format always, never its policy or dump
//! execution id. Entries started more than Hive's `metastore.repl.metrics.max.age` ago are
//! gone (Hive's maintenance task deletes them daily; here every add deletes them and reads
//! skip them), and the store keeps at most [`REPLICATION_METRICS_COUNT_MAX`], dropping the
//! lowest execution ids.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::{stored_value, ValueKind};
use crate::store::{now_seconds, Store};

/// Hive's `metastore.repl.metrics.max.age`: 7 days, in seconds.
pub const REPLICATION_METRICS_MAX_AGE_SECS: i32 = 7 * 24 * 3600;
/// The most entries kept (hivestore's bound); a new entry past it drops the lowest ids.
pub const REPLICATION_METRICS_COUNT_MAX: usize = 20_000;
/// The most metrics one `add_replication_metrics` may carry (Hive's collector sends up to its
/// `hive.repl.metrics.cache.maxsize`, 10,000, at once).
pub const REPLICATION_METRICS_PER_CALL_MAX: usize = 10_000;
/// `REPLICATION_METRICS.RM_POLICY varchar(256)`.
pub const REPLICATION_POLICY_LEN_MAX: usize = 256;
/// `REPLICATION_METRICS.RM_METADATA varchar(4000)`.
pub const REPLICATION_METADATA_LEN_MAX: usize = 4000;
/// `REPLICATION_METRICS.RM_PROGRESS varchar(10000)`.
pub const REPLICATION_PROGRESS_LEN_MAX: usize = 10_000;
/// `REPLICATION_METRICS.MESSAGE_FORMAT varchar(16)`.
pub const REPLICATION_MESSAGE_FORMAT_LEN_MAX: usize = 16;
/// The most bytes of metadata and progress one `get_replication_metrics` answers
/// (hivestore's bound): the entries after the one that reaches it are left out.
pub const REPLICATION_METRICS_REPLY_BYTES_MAX: usize = 64 << 20;

/// Hive's `ReplicationMetrics`, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct ReplicationMetrics {
    /// The scheduled execution the metrics are of: the entry's key.
    pub scheduled_execution_id: i64,
    /// The replication policy (the scheduled query's name).
    pub policy: String,
    /// The execution of the dump the load replays.
    pub dump_execution_id: i64,
    /// The policy's metadata, as HiveServer2 serialised it.
    pub metadata: Option<String>,
    /// Its progress, as HiveServer2 serialised it.
    pub progress: Option<String>,
    /// When the entry was created, seconds since the epoch (Hive's `RM_START_TIME`).
    pub start_time: i32,
    /// How `progress` is encoded (`MESSAGE_FORMAT`).
    pub message_format: Option<String>,
}

stored_value!(ReplicationMetrics, ValueKind::ReplicationMetrics);

/// One report of `add_replication_metrics`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicationMetricsReport {
    /// The scheduled execution id.
    pub scheduled_execution_id: i64,
    /// The policy (kept from the first report of the execution).
    pub policy: String,
    /// The dump execution id (kept from the first report).
    pub dump_execution_id: i64,
    /// New metadata; `None` or empty keeps the stored one.
    pub metadata: Option<String>,
    /// New progress; `None` or empty keeps the stored one.
    pub progress: Option<String>,
    /// The message format, replacing the stored one.
    pub message_format: Option<String>,
}

/// What `get_replication_metrics` asks for, in Hive's order of precedence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplicationMetricsQuery {
    /// Every entry of a policy, highest execution id first (none for an empty name).
    Policy(String),
    /// The entry of one execution (none for a negative id).
    Execution(i64),
}

fn check_len(field: &str, value: Option<&str>, max: usize) -> Result<()> {
    match value {
        Some(value) if value.len() > max => Err(Error::Refused(format!(
            "Replication metrics {field} of {} bytes is longer than the {max} bytes allowed",
            value.len()
        ))),
        _ => Ok(()),
    }
}

fn non_empty(value: &Option<String>) -> Option<&String> {
    value.as_ref().filter(|value| !value.is_empty())
}

impl Store {
    /// Hive's `add_replication_metrics`: creates or updates the entry of each report, all in
    /// one write; a report over a bound refuses the whole call.
    pub fn add_replication_metrics(&self, reports: Vec<ReplicationMetricsReport>) -> Result<()> {
        if reports.len() > REPLICATION_METRICS_PER_CALL_MAX {
            return Err(Error::Refused(format!(
                "add_replication_metrics carries {} metrics; at most \
                 {REPLICATION_METRICS_PER_CALL_MAX} are allowed",
                reports.len()
            )));
        }
        for report in &reports {
            check_len("policy", Some(&report.policy), REPLICATION_POLICY_LEN_MAX)?;
            check_len(
                "metadata",
                report.metadata.as_deref(),
                REPLICATION_METADATA_LEN_MAX,
            )?;
            check_len(
                "progress",
                report.progress.as_deref(),
                REPLICATION_PROGRESS_LEN_MAX,
            )?;
            check_len(
                "message format",
                report.message_format.as_deref(),
                REPLICATION_MESSAGE_FORMAT_LEN_MAX,
            )?;
        }
        let now = now_seconds();
        self.write(|txn| {
            let expired_before = now.saturating_sub(REPLICATION_METRICS_MAX_AGE_SECS);
            let mut live = Vec::new();
            for entry in txn.scan(KeyRange::prefix(&[keys::KEYSPACE_REPLICATION_METRICS])) {
                let (key, _) = entry?;
                let Some(view) = txn.view::<ReplicationMetrics>(&key)? else {
                    continue;
                };
                let expired = view.archived()?.start_time.to_native() <= expired_before;
                live.push((key.to_vec(), expired));
            }
            let expired: Vec<Vec<u8>> = live
                .iter()
                .filter(|(_, expired)| *expired)
                .map(|(key, _)| key.clone())
                .collect();
            let mut kept: Vec<Vec<u8>> = live
                .into_iter()
                .filter(|(_, expired)| !*expired)
                .map(|(key, _)| key)
                .collect();
            for key in expired {
                txn.delete(key);
            }
            let mut merged: std::collections::BTreeMap<Vec<u8>, ReplicationMetrics> =
                std::collections::BTreeMap::new();
            for report in reports {
                let key = keys::replication_metrics_key(report.scheduled_execution_id);
                let stored = match merged.remove(&key) {
                    Some(pending) => Some(pending),
                    None if kept.binary_search(&key).is_ok() => txn
                        .view::<ReplicationMetrics>(&key)?
                        .map(|view| view.to_owned())
                        .transpose()?,
                    None => None,
                };
                let mut entry = stored.unwrap_or_else(|| ReplicationMetrics {
                    scheduled_execution_id: report.scheduled_execution_id,
                    policy: report.policy.clone(),
                    dump_execution_id: report.dump_execution_id,
                    metadata: None,
                    progress: None,
                    start_time: now,
                    message_format: None,
                });
                if let Some(metadata) = non_empty(&report.metadata) {
                    entry.metadata = Some(metadata.clone());
                }
                if let Some(progress) = non_empty(&report.progress) {
                    entry.progress = Some(progress.clone());
                }
                entry.message_format = report.message_format;
                merged.insert(key, entry);
            }
            // Room for the new entries within the count bound: the lowest ids go.
            let new_count = merged
                .keys()
                .filter(|key| kept.binary_search(key).is_err())
                .count();
            let excess = (kept.len() + new_count).saturating_sub(REPLICATION_METRICS_COUNT_MAX);
            for key in kept.drain(..excess.min(kept.len())) {
                merged.remove(&key);
                txn.delete(key);
            }
            for (key, entry) in merged {
                txn.put_value(key, &entry)?;
            }
            Ok(())
        })
    }

    /// Hive's `get_replication_metrics`: the entries `query` names, highest execution id
    /// first; expired ones are not answered.
    pub fn replication_metrics(
        &self,
        query: &ReplicationMetricsQuery,
    ) -> Result<Vec<ReplicationMetrics>> {
        let expired_before = now_seconds().saturating_sub(REPLICATION_METRICS_MAX_AGE_SECS);
        let live = |entry: &ReplicationMetrics| entry.start_time > expired_before;
        match query {
            ReplicationMetricsQuery::Execution(id) if *id < 0 => Ok(Vec::new()),
            ReplicationMetricsQuery::Execution(id) => {
                let key = keys::replication_metrics_key(*id);
                let found = self
                    .view::<ReplicationMetrics>(&key)?
                    .map(|view| view.to_owned())
                    .transpose()?;
                Ok(found.into_iter().filter(live).collect())
            }
            ReplicationMetricsQuery::Policy(policy) if policy.is_empty() => Ok(Vec::new()),
            ReplicationMetricsQuery::Policy(policy) => {
                let mut found_keys = Vec::new();
                for entry in self.scan(KeyRange::prefix(&[keys::KEYSPACE_REPLICATION_METRICS])) {
                    let (key, _) = entry?;
                    found_keys.push(key);
                }
                let (mut found, mut total_bytes) = (Vec::new(), 0_usize);
                for key in found_keys.iter().rev() {
                    let Some(view) = self.view::<ReplicationMetrics>(key)? else {
                        continue;
                    };
                    let archived = view.archived()?;
                    if archived.policy.as_str() != policy.as_str()
                        || archived.start_time.to_native() <= expired_before
                    {
                        continue;
                    }
                    let entry = view.to_owned()?;
                    total_bytes += entry.metadata.as_ref().map_or(0, String::len)
                        + entry.progress.as_ref().map_or(0, String::len);
                    if !found.is_empty() && total_bytes > REPLICATION_METRICS_REPLY_BYTES_MAX {
                        break;
                    }
                    found.push(entry);
                }
                Ok(found)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory_store_with_databases;

    fn report(id: i64, policy: &str, progress: Option<&str>) -> ReplicationMetricsReport {
        ReplicationMetricsReport {
            scheduled_execution_id: id,
            policy: policy.to_string(),
            dump_execution_id: 1,
            metadata: Some("metadata".to_string()),
            progress: progress.map(str::to_string),
            message_format: None,
        }
    }

    #[test]
    fn replication_metrics_merge_updates_and_list_by_policy() {
        let store = memory_store_with_databases(&[]);
        store
            .add_replication_metrics(vec![
                report(1, "p1", Some("a")),
                report(2, "p1", Some("b")),
                report(-3, "p2", Some("c")),
            ])
            .unwrap();
        let mut update = report(1, "other", Some("a2"));
        update.metadata = Some(String::new());
        update.dump_execution_id = 9;
        store.add_replication_metrics(vec![update]).unwrap();
        let listed = store
            .replication_metrics(&ReplicationMetricsQuery::Policy("p1".into()))
            .unwrap();
        let ids: Vec<i64> = listed.iter().map(|m| m.scheduled_execution_id).collect();
        assert_eq!(ids, vec![2, 1]);
        assert_eq!(listed[1].progress.as_deref(), Some("a2"));
        assert_eq!(listed[1].metadata.as_deref(), Some("metadata"));
        assert_eq!(listed[1].policy, "p1");
        assert_eq!(listed[1].dump_execution_id, 1);
        let negative = store
            .replication_metrics(&ReplicationMetricsQuery::Execution(-3))
            .unwrap();
        assert!(negative.is_empty());
        let p2 = store
            .replication_metrics(&ReplicationMetricsQuery::Policy("p2".into()))
            .unwrap();
        assert_eq!(p2.len(), 1);
        assert_eq!(p2[0].scheduled_execution_id, -3);
    }

    #[test]
    fn replication_metrics_refuse_what_is_over_their_bounds() {
        let store = memory_store_with_databases(&[]);
        let mut long = report(1, "p", Some("x"));
        long.progress = Some("x".repeat(REPLICATION_PROGRESS_LEN_MAX + 1));
        let error = store.add_replication_metrics(vec![long]).unwrap_err();
        assert!(
            error.to_string().contains("progress of 10001 bytes"),
            "{error}"
        );
        let listed = store
            .replication_metrics(&ReplicationMetricsQuery::Execution(1))
            .unwrap();
        assert!(listed.is_empty());
    }
}
