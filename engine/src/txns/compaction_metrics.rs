//! Hive's compaction metrics cache (`COMPACTION_METRICS_CACHE`): the delta counts that
//! HiveServer2's compactor threads report per table or partition, kept while at or above the
//! reporter's threshold (`update_compaction_metrics_data`) and dropped by
//! `remove_compaction_metrics_data`. As in Hive's queries, a metric asked for with no
//! partition matches the table's metrics of every partition.

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::names;
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::storage::values::{self, stored_value, ValueKind};
use crate::store::Store;

/// The most metrics kept.
pub const COMPACTION_METRIC_COUNT_MAX: usize = 100_000;

/// Hive's `CompactionMetricsData.MetricType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionMetricType {
    /// `HIVE_ACID_NUM_OBSOLETE_DELTAS`
    NumObsoleteDeltas,
    /// `HIVE_ACID_NUM_DELTAS`
    NumDeltas,
    /// `HIVE_ACID_NUM_SMALL_DELTAS`
    NumSmallDeltas,
}

impl CompactionMetricType {
    fn key_byte(self) -> u8 {
        match self {
            CompactionMetricType::NumObsoleteDeltas => 0,
            CompactionMetricType::NumDeltas => 1,
            CompactionMetricType::NumSmallDeltas => 2,
        }
    }
}

/// A metric as reported (Hive's `CompactionMetricsDataStruct`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionMetric {
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// The partition, if any.
    pub partition: Option<String>,
    /// What is counted.
    pub metric_type: CompactionMetricType,
    /// The count.
    pub value: i32,
    /// The reporter's threshold: a value below it is not kept.
    pub threshold: i32,
}

/// A kept metric: its value and how often it was updated (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct KeptMetric {
    /// The count.
    pub value: i32,
    /// Its version.
    pub version: i32,
}

stored_value!(KeptMetric, ValueKind::CompactionMetric);

fn normalised(database: &str, table: &str) -> Result<(String, String)> {
    let (database, table) = (names::normalize(database), names::normalize(table));
    if database.is_empty() || table.is_empty() {
        return Err(Error::InvalidInput(
            "a compaction metric needs a database and a table name".to_string(),
        ));
    }
    Ok((database, table))
}

impl Store {
    /// The kept metrics of `database.table` of `metric_type` that `partition` matches (all
    /// of the table's for none), with their keys, in key order.
    pub fn compaction_metrics(
        &self,
        database: &str,
        table: &str,
        partition: Option<&str>,
        metric_type: CompactionMetricType,
    ) -> Result<Vec<(Vec<u8>, KeptMetric)>> {
        let (database, table) = normalised(database, table)?;
        let byte = metric_type.key_byte();
        let prefix = match partition {
            Some(name) => keys::compaction_metric_key(&database, &table, byte, Some(name)),
            None => keys::compaction_metric_prefix(&database, &table, byte),
        };
        let mut kept = Vec::new();
        let range = KeyRange::prefix(&prefix);
        for entry in crate::storage::kv::scan(self.reader(), range, 256) {
            let (key, stored) = entry?;
            let exact = partition.is_none() || key.len() == prefix.len();
            if exact {
                let key_bytes = key.to_vec();
                kept.push((key_bytes, values::decode::<KeptMetric>(key, stored)?));
            }
        }
        Ok(kept)
    }

    /// Hive's `update_compaction_metrics_data`: a value at or above its threshold is kept
    /// (version 1 when new, else the kept version plus one, the reporter's version being
    /// ignored as Hive ignores it); one below it removes the kept metric. Answers true, as
    /// Hive does whenever its update touched a row or there was nothing to remove.
    pub fn update_compaction_metric(&self, metric: &CompactionMetric) -> Result<bool> {
        let (database, table) = normalised(&metric.database, &metric.table)?;
        let _acid = self.acid()?;
        let partition = metric.partition.as_deref();
        let kept = self.compaction_metrics(&database, &table, partition, metric.metric_type)?;
        let byte = metric.metric_type.key_byte();
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        if metric.value >= metric.threshold {
            match kept.first() {
                Some((_, previous)) => {
                    let version = previous.version;
                    for (key, _) in kept.iter().filter(|(_, kept)| kept.version == version) {
                        let next = KeptMetric {
                            value: metric.value,
                            version: version.saturating_add(1),
                        };
                        puts.push((key.clone(), values::encode(&next)?));
                    }
                }
                None => {
                    let count = crate::storage::kv::scan(
                        self.reader(),
                        KeyRange::prefix(&[keys::KEYSPACE_COMPACTION_METRIC]),
                        1024,
                    )
                    .take(COMPACTION_METRIC_COUNT_MAX)
                    .count();
                    if count >= COMPACTION_METRIC_COUNT_MAX {
                        return Err(Error::Refused(format!(
                            "{COMPACTION_METRIC_COUNT_MAX} compaction metrics are kept; no more are taken"
                        )));
                    }
                    let key = keys::compaction_metric_key(&database, &table, byte, partition);
                    let new = KeptMetric {
                        value: metric.value,
                        version: 1,
                    };
                    puts.push((key, values::encode(&new)?));
                }
            }
        } else {
            deletes.extend(kept.into_iter().map(|(key, _)| key));
        }
        self.write(|txn| {
            for (key, value) in puts {
                txn.put_raw(key, value);
            }
            for key in deletes {
                txn.delete(key);
            }
            Ok(())
        })?;
        Ok(true)
    }

    /// Hive's `remove_compaction_metrics_data`: removes the kept metrics of `metric_type`
    /// that `partition` matches (every partition's, and the table's, for none).
    pub fn remove_compaction_metrics(
        &self,
        database: &str,
        table: &str,
        partition: Option<&str>,
        metric_type: CompactionMetricType,
    ) -> Result<()> {
        let _acid = self.acid()?;
        let kept = self.compaction_metrics(database, table, partition, metric_type)?;
        if kept.is_empty() {
            return Ok(());
        }
        self.write(|txn| {
            for (key, _) in kept {
                txn.delete(key);
            }
            Ok(())
        })
    }
}
