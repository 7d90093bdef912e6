//! Column statistics of tables and partitions: written, read, aggregated over partitions
//! as a planner asks for them, deleted.

use std::time::{SystemTime, UNIX_EPOCH};

use hivestore_engine::{
    AggregateStatistics, ColumnStatistics, PartitionStatistics, Result, StatsWriteOptions,
    TableStatistics,
};

use crate::Metastore;

/// `options` with `last_analyzed` set to now when it is unset (0), as the server stamps
/// its own time on what a client writes.
fn stamped(options: &StatsWriteOptions) -> StatsWriteOptions {
    let mut options = options.clone();
    if options.last_analyzed == 0 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        options.last_analyzed = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    }
    options
}

impl Metastore {
    /// Writes the statistics of columns of table `catalog.database.name` for
    /// `options.engine`, and marks them accurate in the table's `COLUMN_STATS_ACCURATE`.
    /// Each column must be one of the table's, of a kind its type allows.
    ///
    /// # Example
    ///
    /// ```
    /// use hivestore::{ColumnStatistics, FieldSchema, Metastore, StatsKind, StatsValue,
    ///     StatsWriteOptions, StorageDescriptor, StoreOptions, Table};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// let column = |name: &str, type_name: &str| FieldSchema {
    ///     name: name.into(), type_name: type_name.into(), comment: None,
    /// };
    /// metastore.create_table(Table {
    ///     db_name: "default".into(),
    ///     table_name: "orders".into(),
    ///     sd: Some(StorageDescriptor { cols: vec![column("id", "bigint")], ..StorageDescriptor::default() }),
    ///     partition_keys: vec![column("ds", "string")],
    ///     ..Table::default()
    /// })?;
    /// let partition = |ds: &str| hivestore::Partition { values: vec![ds.into()], ..Default::default() };
    /// metastore.add_partitions("hive", "default", "orders", vec![partition("a"), partition("b")], false)?;
    ///
    /// let ids = |low: i64, high: i64| ColumnStatistics {
    ///     num_distinct_values: high - low + 1,
    ///     low_value: Some(StatsValue::Integer(low)),
    ///     high_value: Some(StatsValue::Integer(high)),
    ///     ..ColumnStatistics::new("id", "bigint", StatsKind::Long)
    /// };
    /// let options = StatsWriteOptions::default();
    /// metastore.update_partition_column_statistics(
    ///     "hive", "default", "orders",
    ///     vec![("ds=a".into(), vec![ids(1, 10)]), ("ds=b".into(), vec![ids(5, 50)])],
    ///     &options,
    /// )?;
    ///
    /// let names = ["ds=a".to_string(), "ds=b".to_string()];
    /// let found = metastore.aggregate_column_statistics(
    ///     "hive", "default", "orders", &names, &["id".to_string()], "hive",
    /// )?;
    /// assert_eq!(found.partitions_found, 2);
    /// assert_eq!(found.stats[0].low_value, Some(StatsValue::Integer(1)));
    /// assert_eq!(found.stats[0].high_value, Some(StatsValue::Integer(50)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        statistics: Vec<ColumnStatistics>,
        options: &StatsWriteOptions,
    ) -> Result<()> {
        let options = stamped(options);
        self.settled(|store| {
            store.update_table_column_statistics(catalog, database, name, statistics, &options)
        })
    }

    /// Writes the statistics of columns of partitions of table `catalog.database.name`,
    /// each partition named (`k1=v1/k2=v2`) with its columns' statistics, all or none.
    pub fn update_partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<(String, Vec<ColumnStatistics>)>,
        options: &StatsWriteOptions,
    ) -> Result<()> {
        let options = stamped(options);
        self.settled(|store| {
            store.update_partition_column_statistics(catalog, database, name, partitions, &options)
        })
    }

    /// The statistics `engine` wrote for `columns` of table `catalog.database.name`, in the
    /// order asked, leaving out columns without any; with `with_sketches`, the NDV sketches
    /// and histograms too (they are large: leave them out unless merging).
    pub fn table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        columns: &[String],
        engine: &str,
        with_sketches: bool,
    ) -> Result<TableStatistics> {
        self.settled(|store| {
            store.table_column_statistics(catalog, database, name, columns, engine, with_sketches)
        })
    }

    /// The statistics `engine` wrote for `columns` of each named partition of table
    /// `catalog.database.name` that has any.
    #[allow(clippy::too_many_arguments)]
    pub fn partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_names: &[String],
        columns: &[String],
        engine: &str,
        with_sketches: bool,
    ) -> Result<Vec<PartitionStatistics>> {
        self.settled(|store| {
            store.partition_column_statistics(
                catalog,
                database,
                name,
                partition_names,
                columns,
                engine,
                with_sketches,
            )
        })
    }

    /// `columns`' statistics over the named partitions, aggregated as Hive's
    /// `get_aggr_stats_for` does (bounds widened, nulls summed, distinct values merged from
    /// the sketches where every partition has one, extrapolated to partitions without
    /// statistics): what a planner reads to cost a scan of those partitions.
    pub fn aggregate_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_names: &[String],
        columns: &[String],
        engine: &str,
    ) -> Result<AggregateStatistics> {
        self.settled(|store| {
            store.aggregate_column_statistics(
                catalog,
                database,
                name,
                partition_names,
                columns,
                engine,
            )
        })
    }

    /// Deletes `engine`'s statistics of `column` (`None`: every column) of table
    /// `catalog.database.name`.
    pub fn delete_table_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        column: Option<&str>,
        engine: &str,
    ) -> Result<()> {
        self.settled(|store| {
            store.delete_table_column_statistics(catalog, database, name, column, engine)
        })
    }

    /// Deletes `engine`'s statistics of `column` (`None`: every column) of partition
    /// `partition_name` of table `catalog.database.name`.
    pub fn delete_partition_column_statistics(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_name: &str,
        column: Option<&str>,
        engine: &str,
    ) -> Result<()> {
        self.settled(|store| {
            store.delete_partition_column_statistics(
                catalog,
                database,
                name,
                partition_name,
                column,
                engine,
            )
        })
    }
}
