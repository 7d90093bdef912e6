//! What a planner embedding hivestore does for a query on a partitioned table: prune the
//! partitions with the query's predicate on the partition keys, then read the statistics of
//! the ones left to cost the scan.
//!
//! Run with `cargo run --release -p hivestore --example prune [PARTITIONS]` (default 100,000).

use std::time::Instant;

use hivestore::{
    ColumnStatistics, Database, FieldSchema, Metastore, Partition, Selection, StatsKind,
    StatsValue, StatsWriteOptions, StorageDescriptor, StoreOptions, Table,
};

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(text) => text.parse()?,
        None => 100_000,
    };
    let data = tempfile::tempdir()?;
    // Locations on an object store are recorded, never touched: no directories are made.
    let options = StoreOptions::new("s3a://bucket/warehouse");
    let metastore = Metastore::open_with_options(data.path(), options)?;
    metastore.create_database(Database {
        name: "web".to_string(),
        ..Database::default()
    })?;
    metastore.create_table(Table {
        db_name: "web".to_string(),
        table_name: "clicks".to_string(),
        sd: Some(StorageDescriptor {
            cols: vec![column("user_id", "bigint"), column("url", "string")],
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds", "string"), column("hr", "int")],
        ..Table::default()
    })?;

    let started = Instant::now();
    let days = count.div_ceil(24);
    let mut partitions = Vec::with_capacity(count);
    for index in 0..count {
        let (day, hour) = (index / 24, index % 24);
        partitions.push(Partition {
            values: vec![format!("day{day:05}"), hour.to_string()],
            ..Partition::default()
        });
        if partitions.len() == 10_000 || index + 1 == count {
            metastore.add_partitions("hive", "web", "clicks", partitions.split_off(0), false)?;
        }
    }
    println!(
        "added {count} partitions ({days} days × 24 hours) in {:?}",
        started.elapsed()
    );

    // WHERE ds >= 'day00060' AND ds < 'day00067' AND hr BETWEEN 9 AND 17: a week's
    // working hours.
    let predicate = "ds >= 'day00060' and ds < 'day00067' and hr >= 9 and hr <= 17";
    let selection = Selection::Filter(predicate);
    let mut names = Vec::new();
    // The first listing of a table scans its keys; the second reads every name and keeps
    // them (valid until the table's next write); later ones prune the kept names, as a
    // planner's repeated queries do.
    for attempt in ["first", "second", "third"] {
        let started = Instant::now();
        names = metastore.partition_names("hive", "web", "clicks", selection, None)?;
        let took = started.elapsed();
        println!("{attempt} pruning: {} partitions in {took:?}", names.len());
    }

    let statistics: Vec<(String, Vec<ColumnStatistics>)> = names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let user_ids = ColumnStatistics {
                num_distinct_values: 1_000 + index as i64,
                low_value: Some(StatsValue::Integer(1)),
                high_value: Some(StatsValue::Integer(1_000_000)),
                ..ColumnStatistics::new("user_id", "bigint", StatsKind::Long)
            };
            (name.clone(), vec![user_ids])
        })
        .collect();
    metastore.update_partition_column_statistics(
        "hive",
        "web",
        "clicks",
        statistics,
        &StatsWriteOptions::default(),
    )?;
    let started = Instant::now();
    let aggregate = metastore.aggregate_column_statistics(
        "hive",
        "web",
        "clicks",
        &names,
        &["user_id".to_string()],
        "hive",
    )?;
    println!(
        "statistics of {} partitions aggregated in {:?}: user_id has ~{} distinct values",
        aggregate.partitions_found,
        started.elapsed(),
        aggregate.stats[0].num_distinct_values
    );
    Ok(())
}
