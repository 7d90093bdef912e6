//! The data of Apache's `hmsbench`, in its shapes, so that its benchmarks measured here can be
//! set beside its published numbers: a table with one column `name` partitioned by `d`
//! (partitions `d0 .. d{N-1}`, one `add_partitions` call of them all), the filter table
//! partitioned by `p_a`, `p_b`, `p_c` (partition `i` is `[a0, b<i>, c<i>]`), the filters and
//! partial specification it sends, and the `name` column's statistics. Tables and partitions
//! carry no parameters, but for `--params`, which gives the partitions of the drop-table
//! benchmarks that many (hmsbench's default is 0).

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    ColumnStatistics, ColumnStatisticsData, ColumnStatisticsDesc, ColumnStatisticsObj, FieldSchema,
    Partition, StorageDescriptor, StringColumnStatsData, Table,
};
use thrift::OrderedFloat;

use crate::fixture::bench_table;

/// The shared table the listing benchmarks read, grown to each `-N`.
pub const HMSBENCH_TABLE: &str = "hmsbench_table";
/// The shared table of the filter and partial-specification benchmarks.
pub const HMSBENCH_FILTER_TABLE: &str = "hmsbench_filter_table";
/// The one column of hmsbench's tables, whose statistics `getPartitionsStat` reads.
pub const STATS_COLUMN: &str = "name";
/// The names of the tables `listTables.N` and `dropDatabase.N` find in their database.
pub fn tmp_table_name(index: u64) -> String {
    format!("tmp_table_{index}")
}

fn field(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_name.to_string()),
        comment: None,
    }
}

/// A table of hmsbench's shape: one string column, no parameters, partitioned by `keys`.
fn table_with_keys(database: &str, name: &str, keys: &[&str]) -> Table {
    let base = bench_table(database, name);
    let sd = base.sd.map(|sd| StorageDescriptor {
        cols: Some(vec![field(STATS_COLUMN, "string")]),
        ..sd
    });
    Table {
        sd,
        partition_keys: Some(keys.iter().map(|key| field(key, "string")).collect()),
        parameters: Some(BTreeMap::new()),
        ..base
    }
}

/// hmsbench's table: partitioned by `d`.
pub fn partitioned_table(database: &str, name: &str) -> Table {
    table_with_keys(database, name, &["d"])
}

/// hmsbench's filter table: partitioned by `p_a`, `p_b`, `p_c`.
pub fn filter_table(database: &str, name: &str) -> Table {
    table_with_keys(database, name, &["p_a", "p_b", "p_c"])
}

/// hmsbench's unpartitioned table (`createTable`, `dropTable`, the tables of `listTables.N`).
pub fn plain_table(database: &str, name: &str) -> Table {
    table_with_keys(database, name, &[])
}

/// A partition of `table` with `values`, its storage descriptor the table's with the location
/// left to the server (hmsbench sets `<table location>/d=d<i>`, which is the same).
pub fn partition_with_values(table: &Table, values: Vec<String>) -> Partition {
    let sd = table.sd.clone().map(|sd| StorageDescriptor {
        location: None,
        ..sd
    });
    Partition {
        values: Some(values),
        db_name: table.db_name.clone(),
        table_name: table.table_name.clone(),
        create_time: None,
        last_access_time: None,
        sd,
        parameters: Some(BTreeMap::new()),
        privileges: None,
        cat_name: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: None,
    }
}

/// Partition `index` of a `d` table: `d<index>`.
pub fn partition(table: &Table, index: u64) -> Partition {
    partition_with_values(table, vec![format!("d{index}")])
}

/// [`partition`] with `count` parameters `parameter_<i>` = `value_<i>` (hmsbench's
/// `--params`).
pub fn partition_with_parameters(table: &Table, index: u64, count: u64) -> Partition {
    let mut partition = partition(table, index);
    partition.parameters = Some(
        (0..count)
            .map(|i| (format!("parameter_{i}"), format!("value_{i}")))
            .collect(),
    );
    partition
}

/// Its name, `d=d<index>`.
pub fn partition_name(index: u64) -> String {
    format!("d=d{index}")
}

/// The names of partitions `0 .. count` of a `d` table.
pub fn partition_names(count: u64) -> Vec<String> {
    (0..count).map(partition_name).collect()
}

/// Partition `index` of the filter table: `[a0, b<index>, c<index>]`.
pub fn filter_partition(table: &Table, index: u64) -> Partition {
    let values = vec!["a0".to_string(), format!("b{index}"), format!("c{index}")];
    partition_with_values(table, values)
}

/// `getPartitionsByFilter#simple`: one partition.
pub const FILTER_SIMPLE: &str = r#"p_b = "b0""#;
/// `getPartitionsByFilter#multiOr`: a four-way OR on `p_b` and `p_c`, two partitions.
pub const FILTER_MULTI_OR: &str = r#"p_b = "b0" or p_c = "c0" or p_b = "b1" or p_c = "c1""#;
/// `getPartitionsByFilter#multiAnd`: every key bound, one partition.
pub const FILTER_MULTI_AND: &str = r#"p_a = "a0" and p_b = "b0" and p_c = "c0""#;
/// `getPartitionsByPs`: the leading value only, which every partition has.
pub const PARTIAL_SPEC: &str = "a0";

/// The `name` column's statistics of partition `index` of `table` in `database`, as an
/// `ANALYZE` would write them.
pub fn partition_stats(database: &str, table: &str, index: u64) -> ColumnStatistics {
    let data = StringColumnStatsData {
        max_col_len: 32,
        avg_col_len: OrderedFloat(12.5),
        num_nulls: (index % 7) as i64,
        num_d_vs: 100 + (index % 13) as i64,
        bit_vectors: None,
    };
    column_statistics(
        database,
        table,
        &partition_name(index),
        vec![ColumnStatisticsObj::new(
            STATS_COLUMN.to_string(),
            "string".to_string(),
            ColumnStatisticsData::StringStats(data),
        )],
    )
}

/// Statistics of partition `part_name` of `database.table` for the columns of `objects`.
pub fn column_statistics(
    database: &str,
    table: &str,
    part_name: &str,
    objects: Vec<ColumnStatisticsObj>,
) -> ColumnStatistics {
    let desc = ColumnStatisticsDesc::new(
        false,
        database.to_string(),
        table.to_string(),
        part_name.to_string(),
        None,
        None,
    );
    ColumnStatistics::new(desc, objects, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_have_hmsbench_values_and_names() {
        let table = partitioned_table("db", "t");
        assert_eq!(partition(&table, 7).values, Some(vec!["d7".to_string()]));
        assert_eq!(partition_name(7), "d=d7");
        assert_eq!(partition_names(3), vec!["d=d0", "d=d1", "d=d2"]);
        let filter = filter_table("db", "f");
        assert_eq!(filter.partition_keys.as_ref().map(Vec::len), Some(3));
        let values = filter_partition(&filter, 4).values;
        assert_eq!(values, Some(vec!["a0".into(), "b4".into(), "c4".into()]));
        assert_eq!(plain_table("db", "p").partition_keys, Some(Vec::new()));
    }

    #[test]
    fn params_are_named_as_hmsbench_names_them() {
        let table = partitioned_table("db", "t");
        let parameters = partition_with_parameters(&table, 2, 2).parameters.unwrap();
        let expected: BTreeMap<String, String> =
            [("parameter_0", "value_0"), ("parameter_1", "value_1")]
                .into_iter()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect();
        assert_eq!(parameters, expected);
        assert_eq!(
            partition_with_parameters(&table, 2, 0).parameters,
            Some(BTreeMap::new())
        );
    }
}
