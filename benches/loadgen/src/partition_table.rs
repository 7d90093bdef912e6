//! The partitioned bench table and what the partition workloads ask of it: its two keys
//! (`ds string`, one value per day from 2000-01-01, then `hr int`, 24 per day), its
//! partitions, their names as Hive builds them, and the filters and name lists the workloads
//! send. Partition `i` of a table is day `i / 24`, hour `i % 24`, so a table of N partitions
//! spans N/24 days, and a table grows by adding partitions `N..M`.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    BooleanColumnStatsData, ColumnStatistics, ColumnStatisticsData, ColumnStatisticsObj,
    DoubleColumnStatsData, FieldSchema, LongColumnStatsData, Partition, StorageDescriptor,
    StringColumnStatsData, Table,
};
use thrift::OrderedFloat;

use crate::fixture::{bench_table, column_names, COLUMN_TYPES};
use crate::hmsbench_data::column_statistics;

/// The table the listing and planner workloads read.
pub const PARTITIONED_TABLE: &str = "bench_partitioned";
/// The table the statistics workloads read and write: bench's table again, with statistics
/// for [`STATS_TABLE_COLUMN_COUNT`] columns of every partition.
pub const STATS_TABLE: &str = "bench_stats";
/// Columns with statistics in [`STATS_TABLE`]: issue 5 quotes the Java HMS on 5.
pub const STATS_TABLE_COLUMN_COUNT: usize = 5;
/// Hours per day: values of the second key.
pub const HOURS_PER_DAY: u64 = 24;
/// The most partitions one `add_partitions` call carries, in setup and in the workload.
pub const ADD_BATCH_PARTITION_COUNT_MAX: u64 = 1000;
/// The most names one `get_partitions_by_names` sample asks for.
pub const BY_NAMES_PARTITION_COUNT_MAX: u64 = 10_000;
/// The names per `get_partitions_by_names` call of a Trino plan
/// (`hive.metastore.partition-batch-size.max`).
pub const TRINO_BATCH_PARTITION_COUNT: usize = 100;
/// The hour the second-key filter selects. With 24 hours a day it selects 1/24 of a table:
/// the second key has too few values for a 1% equality.
pub const SELECTED_HOUR: u64 = 7;
/// The share of days the leading-key filter (and the planners' query) selects: 1%.
const SELECTED_DAY_DIVISOR: u64 = 100;
/// Day 0: 2000-01-01, as days since 1970-01-01.
const FIRST_DAY_SINCE_EPOCH: i64 = 10_957;

/// The table's partition keys, in order.
pub fn partition_keys() -> Vec<FieldSchema> {
    vec![key("ds", "string"), key("hr", "int")]
}

fn key(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_name.to_string()),
        comment: None,
    }
}

/// A table of the bench's 20 columns partitioned by `ds` and `hr`.
pub fn partitioned_table(database: &str, name: &str) -> Table {
    Table {
        partition_keys: Some(partition_keys()),
        ..bench_table(database, name)
    }
}

/// `YYYY-MM-DD` of day `day` (day 0 is 2000-01-01). Zero-padded four-digit years keep the
/// strings in date order for ten millennia.
pub fn day_string(day: u64) -> String {
    let day = i64::try_from(day).unwrap_or(i64::MAX / 2);
    let (year, month, day_of_month) = civil_from_days(FIRST_DAY_SINCE_EPOCH + day);
    format!("{year:04}-{month:02}-{day_of_month:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`), so that the bench needs no date crate.
fn civil_from_days(days_since_epoch: i64) -> (i64, i64, i64) {
    let shifted = days_since_epoch + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day_of_month = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day_of_month)
}

/// The values (`ds`, `hr`) of partition `index`.
pub fn partition_values(index: u64) -> Vec<String> {
    vec![
        day_string(index / HOURS_PER_DAY),
        (index % HOURS_PER_DAY).to_string(),
    ]
}

/// The name of partition `index` as Hive builds it (`ds=2000-01-01/hr=7`); neither value has
/// a character Hive escapes.
pub fn partition_name(index: u64) -> String {
    format!(
        "ds={}/hr={}",
        day_string(index / HOURS_PER_DAY),
        index % HOURS_PER_DAY
    )
}

/// Partition `index` of `table` as a client adds it: the table's storage descriptor with the
/// location left to the server, and the basic statistics a writer records.
pub fn partition(table: &Table, index: u64) -> Partition {
    let sd = table.sd.clone().map(|sd| StorageDescriptor {
        location: None,
        ..sd
    });
    Partition {
        values: Some(partition_values(index)),
        db_name: table.db_name.clone(),
        table_name: table.table_name.clone(),
        create_time: None,
        last_access_time: None,
        sd,
        parameters: Some(BTreeMap::from([
            ("numFiles".to_string(), "1".to_string()),
            ("numRows".to_string(), (1000 + index % 997).to_string()),
            ("totalSize".to_string(), (65_536 + index % 4093).to_string()),
        ])),
        privileges: None,
        cat_name: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: None,
    }
}

/// Partitions per `add_partitions` call for a table of `partition_count`: 1,000, or all of a
/// smaller table in one.
pub fn add_batch_partition_count(partition_count: u64) -> u64 {
    partition_count.clamp(1, ADD_BATCH_PARTITION_COUNT_MAX)
}

/// The days a table of `partition_count` partitions spans (the last one may be partial).
fn day_count(partition_count: u64) -> u64 {
    partition_count.div_ceil(HOURS_PER_DAY)
}

/// The days `[first, end)` that the leading-key filter and the planners' query select: 1% of
/// the table's days (at least one), from its middle.
pub fn selected_days(partition_count: u64) -> (u64, u64) {
    let days = day_count(partition_count);
    let selected = (days / SELECTED_DAY_DIVISOR).max(1);
    let first = (days - selected) / 2;
    (first, first + selected)
}

/// The partitions `[first, end)` of the selected days: those the planners read, whose column
/// statistics the setup writes.
pub fn selected_partitions(partition_count: u64) -> std::ops::Range<u64> {
    let (first, end) = selected_days(partition_count);
    let first = first * HOURS_PER_DAY;
    first.min(partition_count)..(end * HOURS_PER_DAY).min(partition_count)
}

/// The types whose columns get statistics: those every metastore since Hive 2.3 keeps
/// statistics for.
const STATS_COLUMN_TYPES: [&str; 5] = ["bigint", "int", "string", "double", "boolean"];

/// The columns of bench's table that the setup writes statistics for, in column order.
pub fn stats_column_names() -> Vec<String> {
    column_names()
        .into_iter()
        .zip(COLUMN_TYPES.iter().cycle())
        .filter(|(_, type_name)| STATS_COLUMN_TYPES.contains(type_name))
        .map(|(name, _)| name)
        .collect()
}

/// The columns of [`STATS_TABLE`] with statistics: the first of [`stats_column_names`].
pub fn stats_table_column_names() -> Vec<String> {
    let mut names = stats_column_names();
    names.truncate(STATS_TABLE_COLUMN_COUNT);
    names
}

/// The column statistics of partition `index` of bench's table, as `ANALYZE` writes them: one
/// object per column whose type every metastore since Hive 2.3 keeps statistics for (the
/// integers, strings, doubles and booleans: half of the 20 columns); the others have none.
pub fn partition_column_stats(database: &str, table: &str, index: u64) -> ColumnStatistics {
    partition_column_stats_of(database, table, index, usize::MAX)
}

/// The same, for the first `column_count_max` of those columns only.
pub fn partition_column_stats_of(
    database: &str,
    table: &str,
    index: u64,
    column_count_max: usize,
) -> ColumnStatistics {
    let rows = (1000 + index % 997) as i64;
    let objects = column_names()
        .into_iter()
        .zip(COLUMN_TYPES.iter().cycle())
        .filter(|(_, type_name)| STATS_COLUMN_TYPES.contains(type_name))
        .take(column_count_max)
        .filter_map(|(name, type_name)| {
            let data = match *type_name {
                "bigint" | "int" => ColumnStatisticsData::LongStats(LongColumnStatsData::new(
                    0i64,
                    rows * 10,
                    index as i64 % 5,
                    rows / 2,
                    None,
                    None,
                )),
                "string" => ColumnStatisticsData::StringStats(StringColumnStatsData::new(
                    64,
                    OrderedFloat(17.5),
                    index as i64 % 3,
                    rows / 4,
                    None,
                )),
                "double" => ColumnStatisticsData::DoubleStats(DoubleColumnStatsData::new(
                    OrderedFloat(-1.5),
                    OrderedFloat(rows as f64),
                    0,
                    rows,
                    None,
                    None,
                )),
                "boolean" => ColumnStatisticsData::BooleanStats(BooleanColumnStatsData::new(
                    rows / 3,
                    rows - rows / 3,
                    0,
                    None,
                )),
                _ => return None,
            };
            Some(ColumnStatisticsObj::new(name, type_name.to_string(), data))
        })
        .collect();
    column_statistics(database, table, &partition_name(index), objects)
}

/// The leading-key filter as Spark sends it: `ds >= "…" and ds < "…"`, 1% of the days.
pub fn leading_key_filter(partition_count: u64) -> String {
    let (first, end) = selected_days(partition_count);
    format!(
        "ds >= \"{}\" and ds < \"{}\"",
        day_string(first),
        day_string(end)
    )
}

/// The names of every partition of a table of `partition_count`, in order.
pub fn all_names(partition_count: u64) -> Vec<String> {
    (0..partition_count).map(partition_name).collect()
}

/// The second-key filter: one hour of every day.
pub fn second_key_filter() -> String {
    format!("hr = {SELECTED_HOUR}")
}

/// Whether partition name `name` (`ds=…/hr=…`) falls in the selected days: the pruning a
/// planner does on names it listed.
pub fn name_in_days(name: &str, first_day: &str, end_day: &str) -> bool {
    let ds = name
        .strip_prefix("ds=")
        .and_then(|rest| rest.split('/').next());
    ds.is_some_and(|ds| ds >= first_day && ds < end_day)
}

/// The names a `get_partitions_by_names` sample asks for: 10,000 (or all of a smaller table),
/// spread evenly over the table.
pub fn by_names_names(partition_count: u64) -> Vec<String> {
    let wanted = partition_count.min(BY_NAMES_PARTITION_COUNT_MAX);
    (0..wanted)
        .map(|position| partition_name(position * partition_count / wanted))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_dates_in_order() {
        assert_eq!(day_string(0), "2000-01-01");
        assert_eq!(day_string(59), "2000-02-29");
        assert_eq!(day_string(366), "2001-01-01");
        assert_eq!(day_string(10_000_000 / HOURS_PER_DAY), "3140-10-17");
        let days: Vec<String> = (0..5000).step_by(7).map(day_string).collect();
        assert!(days.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn partitions_are_named_as_hive_names_them() {
        assert_eq!(partition_name(0), "ds=2000-01-01/hr=0");
        assert_eq!(partition_name(24 + 7), "ds=2000-01-02/hr=7");
        assert_eq!(partition_values(31), vec!["2000-01-02", "7"]);
    }

    #[test]
    fn the_leading_key_filter_selects_one_percent_of_the_days() {
        for partition_count in [10_000, 100_000, 1_000_000] {
            let (first, end) = selected_days(partition_count);
            let selected = (0..partition_count)
                .filter(|index| (first..end).contains(&(index / HOURS_PER_DAY)))
                .count() as f64;
            let share = selected / partition_count as f64;
            assert!(
                (0.009..0.011).contains(&share),
                "{partition_count}: {share}"
            );
        }
        assert_eq!(selected_days(48), (0, 1));
        assert_eq!(
            leading_key_filter(48),
            r#"ds >= "2000-01-01" and ds < "2000-01-02""#
        );
        assert!(name_in_days(
            "ds=2000-01-01/hr=3",
            "2000-01-01",
            "2000-01-02"
        ));
        assert!(!name_in_days(
            "ds=2000-01-02/hr=3",
            "2000-01-01",
            "2000-01-02"
        ));
    }

    #[test]
    fn by_names_asks_for_distinct_names_of_the_table() {
        let names = by_names_names(100_000);
        assert_eq!(names.len(), 10_000);
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
        assert_eq!(by_names_names(48).len(), 48);
        assert_eq!(add_batch_partition_count(48), 48);
        assert_eq!(add_batch_partition_count(100_000), 1000);
    }

    #[test]
    fn the_stats_table_has_statistics_for_its_first_five_stats_columns() {
        let names = stats_table_column_names();
        assert_eq!(names.len(), STATS_TABLE_COLUMN_COUNT);
        assert_eq!(names[..], stats_column_names()[..STATS_TABLE_COLUMN_COUNT]);
        let stats = partition_column_stats_of("db", STATS_TABLE, 7, STATS_TABLE_COLUMN_COUNT);
        let columns: Vec<&String> = stats.stats_obj.iter().map(|obj| &obj.col_name).collect();
        assert_eq!(columns, names.iter().collect::<Vec<_>>());
        assert_eq!(
            partition_column_stats("db", PARTITIONED_TABLE, 7)
                .stats_obj
                .len(),
            stats_column_names().len()
        );
    }
}
