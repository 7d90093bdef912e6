//! Basic statistics, the table and partition parameters `numFiles`, `totalSize`,
//! `numFilesErasureCoded` (the *fast* ones, counted by listing files), `numRows` and
//! `rawDataSize`, and the work Hive 4's metastore does on them when a table or partition is
//! altered or truncated (`HiveAlterHandler`, `MetaStoreServerUtils.requireCalStats`,
//! `updateTableStatsSlow`, `updatePartitionStatsFast`, `updateBasicState`, and the truncate
//! handler's `updateStatsForTruncate`).
//!
//! Two environment-context keys steer that work: `DO_NOT_UPDATE_STATS=true` skips it, and
//! `STATS_GENERATED` (`TASK` or `USER`) says the caller brings statistics of its own, which
//! keeps `BASIC_STATS` accurate (`TASK`) instead of removing `COLUMN_STATS_ACCURATE`.

use std::collections::BTreeMap;

use super::accurate::{StatsAccuracy, COLUMN_STATS_ACCURATE};
use crate::model::partition::Partition;
use crate::model::table::Table;
use crate::store::Store;
use crate::warehouse::QuickStats;

/// Environment-context key (and, on a table, parameter) that turns the metastore's statistics
/// work off for one call.
pub const DO_NOT_UPDATE_STATS: &str = "DO_NOT_UPDATE_STATS";
/// Environment-context key naming who produced the statistics a call carries.
pub const STATS_GENERATED: &str = "STATS_GENERATED";

/// The number of files (`numFiles`).
const NUM_FILES: &str = "numFiles";
/// Their total length in bytes (`totalSize`).
const TOTAL_SIZE: &str = "totalSize";
/// How many are erasure coded (`numFilesErasureCoded`; never, on a local filesystem).
const NUM_ERASURE_CODED_FILES: &str = "numFilesErasureCoded";

/// Hive's `StatsSetupConst.SUPPORTED_STATS`: the basic statistics a truncate resets to `0`.
const SUPPORTED_STATS: [&str; 5] = [
    NUM_FILES,
    "numRows",
    TOTAL_SIZE,
    "rawDataSize",
    NUM_ERASURE_CODED_FILES,
];
/// Hive's `StatsSetupConst.FAST_STATS`: those a listing of the files gives.
const FAST_STATS: [&str; 3] = [NUM_FILES, TOTAL_SIZE, NUM_ERASURE_CODED_FILES];

/// Who produced the statistics an alter carries (`STATS_GENERATED`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatsGenerated {
    /// Not said.
    #[default]
    Unset,
    /// `TASK`: a query's statistics task; its basic statistics are accurate.
    Task,
    /// `USER`: `alter table ... update statistics`.
    User,
}

/// What an alter's environment context says about statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsContext {
    /// `DO_NOT_UPDATE_STATS=true`: do no statistics work.
    pub do_not_update_stats: bool,
    /// `STATS_GENERATED`.
    pub stats_generated: StatsGenerated,
}

impl StatsContext {
    /// The context of `properties`, compared as Hive compares them: exactly `true`, `TASK`,
    /// `USER`.
    pub fn from_properties(properties: &BTreeMap<String, String>) -> StatsContext {
        let stats_generated = match properties.get(STATS_GENERATED).map(String::as_str) {
            Some("TASK") => StatsGenerated::Task,
            Some("USER") => StatsGenerated::User,
            _ => StatsGenerated::Unset,
        };
        StatsContext {
            do_not_update_stats: properties.get(DO_NOT_UPDATE_STATS).map(String::as_str)
                == Some("true"),
            stats_generated,
        }
    }

    /// The context of the metastore's own rewrites (truncate), which do no statistics work.
    pub(crate) fn skipping_stats_work() -> StatsContext {
        StatsContext {
            do_not_update_stats: true,
            stats_generated: StatsGenerated::Unset,
        }
    }
}

/// Hive's `updateBasicState`: a `TASK` marks the basic statistics accurate; anything else
/// removes `COLUMN_STATS_ACCURATE` whole (columns included).
fn update_basic_state(parameters: &mut BTreeMap<String, String>, context: &StatsContext) {
    if context.stats_generated == StatsGenerated::Task {
        let mut accuracy =
            StatsAccuracy::parse(parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str));
        accuracy.basic = true;
        parameters.insert(COLUMN_STATS_ACCURATE.to_string(), accuracy.to_json());
    } else {
        parameters.remove(COLUMN_STATS_ACCURATE);
    }
}

/// Hive's `populateQuickStats`.
fn put_quick_stats(parameters: &mut BTreeMap<String, String>, quick: QuickStats) {
    parameters.insert(NUM_FILES.to_string(), quick.file_count.to_string());
    parameters.insert(TOTAL_SIZE.to_string(), quick.total_size_bytes.to_string());
    parameters.insert(NUM_ERASURE_CODED_FILES.to_string(), "0".to_string());
}

/// The fast statistics of `location` listed, when hivestore can list it (a local location of
/// a store with a warehouse). Elsewhere the stored values stay.
fn list_quick_stats(store: &Store, location: Option<&str>) -> Option<QuickStats> {
    store.warehouse().quick_stats(location?)
}

/// Hive's statistics work on `alter_table` (not a rename) of an unpartitioned table or view:
/// unless the context or the table's own `DO_NOT_UPDATE_STATS` parameter (removed here, as
/// Hive removes it) says not to, relist the table's files into its fast statistics and update
/// `COLUMN_STATS_ACCURATE` as [`StatsContext::stats_generated`] says.
pub(crate) fn update_table_stats_on_alter(
    store: &Store,
    table: &mut Table,
    context: &StatsContext,
) {
    if context.do_not_update_stats || table.is_view() || !table.partition_keys.is_empty() {
        return;
    }
    if let Some(value) = table.parameters.remove(DO_NOT_UPDATE_STATS) {
        if value.eq_ignore_ascii_case("true") {
            return;
        }
    }
    if let Some(quick) = list_quick_stats(store, table.location()) {
        put_quick_stats(&mut table.parameters, quick);
    }
    update_basic_state(&mut table.parameters, context);
}

/// Hive's statistics work on `create_table` (`updateTableStatsForCreateTable`, then
/// `updateTableStatsSlow` not forced): an unpartitioned table (not a view) whose directory
/// already existed and that brings no fast statistics gets its files listed, and its
/// `COLUMN_STATS_ACCURATE` dropped. A `DO_NOT_UPDATE_STATS` parameter is removed, and when
/// `true` skips that.
pub(crate) fn update_table_stats_on_create(store: &Store, table: &mut Table, made_dir: bool) {
    if table.is_view() || !table.partition_keys.is_empty() {
        return;
    }
    if let Some(value) = table.parameters.remove(DO_NOT_UPDATE_STATS) {
        if value.eq_ignore_ascii_case("true") {
            return;
        }
    }
    if made_dir || has_all_fast_stats(&table.parameters) {
        return;
    }
    if let Some(quick) = list_quick_stats(store, table.location()) {
        put_quick_stats(&mut table.parameters, quick);
        update_basic_state(&mut table.parameters, &StatsContext::default());
    }
}

fn has_all_fast_stats(parameters: &BTreeMap<String, String>) -> bool {
    FAST_STATS.iter().all(|stat| parameters.contains_key(*stat))
}

/// Hive's `isFastStatsSame`: both partitions carry every fast statistic, with equal values
/// (an unparsable value is a difference, where Hive would fail the alter).
fn fast_stats_same(old: &Partition, new: &Partition) -> bool {
    FAST_STATS.iter().all(|stat| {
        let parse = |partition: &Partition| {
            let value = partition.parameters.get(*stat)?;
            value.trim().parse::<i64>().ok()
        };
        matches!((parse(old), parse(new)), (Some(old), Some(new)) if old == new)
    })
}

/// Hive's statistics work on `alter_partition(s)` (`requireCalStats`, then either
/// `updateBasicState` or `updatePartitionStatsFast`): when the context allows it and the new
/// partition lacks fast statistics, changes them, or the context says who generated them,
/// the fast statistics are relisted (unless unchanged, or the table is transactional) and
/// `COLUMN_STATS_ACCURATE` updated.
pub(crate) fn update_partition_stats_on_alter(
    store: &Store,
    table: &Table,
    old: &Partition,
    new: &mut Partition,
    context: &StatsContext,
) {
    if context.do_not_update_stats || table.is_view() {
        return;
    }
    let same = fast_stats_same(old, new);
    let required = !has_all_fast_stats(&new.parameters)
        || context.stats_generated != StatsGenerated::Unset
        || !same;
    if !required {
        return;
    }
    if !same {
        if crate::model::table::is_transactional(&table.parameters) {
            // Hive leaves a transactional table's partitions alone here.
            return;
        }
        if let Some(quick) = list_quick_stats(store, new.location()) {
            put_quick_stats(&mut new.parameters, quick);
        }
    }
    update_basic_state(&mut new.parameters, context);
}

/// Hive's statistics work on `add_partition(s)` (`initializeAddedPartition`, with
/// `updatePartitionStatsFast` not forced): a partition added at a directory that already
/// existed, and that brings no fast statistics of its own, gets them listed, and its
/// `COLUMN_STATS_ACCURATE` dropped, or under `STATS_GENERATED=TASK` its basic statistics
/// marked accurate. A directory the metastore just made holds nothing to count.
pub(crate) fn update_added_partition_stats(
    store: &Store,
    table: &Table,
    parameters: &mut BTreeMap<String, String>,
    location: Option<&str>,
    stats_generated: StatsGenerated,
) {
    if table.is_view() || has_all_fast_stats(parameters) {
        return;
    }
    if let Some(quick) = list_quick_stats(store, location) {
        put_quick_stats(parameters, quick);
        let context = StatsContext {
            do_not_update_stats: false,
            stats_generated,
        };
        update_basic_state(parameters, &context);
    }
}

/// Hive 4's `updateStatsForTruncate`: every basic statistic present becomes `0`, the basic
/// statistics are marked accurate and no column's statistics are (`{"BASIC_STATS":"true"}`).
/// The column statistics themselves stay, unmarked, as in Hive.
pub(crate) fn reset_stats_for_truncate(parameters: &mut BTreeMap<String, String>) {
    for stat in SUPPORTED_STATS {
        if let Some(value) = parameters.get_mut(stat) {
            *value = "0".to_string();
        }
    }
    let mut accuracy =
        StatsAccuracy::parse(parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str));
    accuracy.basic = true;
    accuracy.columns.clear();
    parameters.insert(COLUMN_STATS_ACCURATE.to_string(), accuracy.to_json());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect()
    }

    fn partition(pairs: &[(&str, &str)]) -> Partition {
        Partition {
            parameters: parameters(pairs),
            ..Partition::default()
        }
    }

    #[test]
    fn the_context_is_read_as_hive_compares_it() {
        let context = StatsContext::from_properties(&parameters(&[
            (DO_NOT_UPDATE_STATS, "true"),
            (STATS_GENERATED, "TASK"),
        ]));
        assert!(context.do_not_update_stats);
        assert_eq!(context.stats_generated, StatsGenerated::Task);
        // Hive compares with String.equals: other spellings say nothing.
        let context = StatsContext::from_properties(&parameters(&[
            (DO_NOT_UPDATE_STATS, "TRUE"),
            (STATS_GENERATED, "task"),
        ]));
        assert_eq!(context, StatsContext::default());
    }

    #[test]
    fn truncate_zeroes_present_basic_statistics_and_unmarks_every_column() {
        let mut params = parameters(&[
            ("numRows", "10"),
            ("totalSize", "300"),
            ("owner_note", "x"),
            (COLUMN_STATS_ACCURATE, r#"{"COLUMN_STATS":{"a":"true"}}"#),
        ]);
        reset_stats_for_truncate(&mut params);
        assert_eq!(
            params,
            parameters(&[
                ("numRows", "0"),
                ("totalSize", "0"),
                ("owner_note", "x"),
                (COLUMN_STATS_ACCURATE, r#"{"BASIC_STATS":"true"}"#),
            ])
        );
    }

    #[test]
    fn fast_statistics_are_the_same_only_when_all_three_match() {
        let full = [
            ("numFiles", "2"),
            ("totalSize", "10"),
            ("numFilesErasureCoded", "0"),
        ];
        assert!(fast_stats_same(&partition(&full), &partition(&full)));
        let mut other = full;
        other[1] = ("totalSize", "11");
        assert!(!fast_stats_same(&partition(&full), &partition(&other)));
        assert!(!fast_stats_same(
            &partition(&full[..2]),
            &partition(&full[..2])
        ));
        let garbage = [
            ("numFiles", "x"),
            ("totalSize", "10"),
            ("numFilesErasureCoded", "0"),
        ];
        assert!(!fast_stats_same(&partition(&garbage), &partition(&garbage)));
    }

    #[test]
    fn a_task_keeps_the_accurate_columns_and_anything_else_drops_the_parameter() {
        let accurate = r#"{"COLUMN_STATS":{"a":"true"}}"#;
        let mut params = parameters(&[(COLUMN_STATS_ACCURATE, accurate)]);
        let task = StatsContext {
            stats_generated: StatsGenerated::Task,
            ..StatsContext::default()
        };
        update_basic_state(&mut params, &task);
        assert_eq!(
            params[COLUMN_STATS_ACCURATE],
            r#"{"BASIC_STATS":"true","COLUMN_STATS":{"a":"true"}}"#
        );
        update_basic_state(&mut params, &StatsContext::default());
        assert!(!params.contains_key(COLUMN_STATS_ACCURATE));
    }
}
