//! Partitions: add, read, list and prune with Hive's filter language, alter, rename, drop,
//! exchange.

use std::collections::BTreeMap;

use hivestore_engine::{
    AddPartitionsOptions, DropPartitionsOptions, DroppedPartitions, Partition, PartitionExchange,
    PartitionSelection, Result,
};

use crate::Metastore;

/// No bound on how many partitions a listing answers.
const ALL: i32 = -1;

/// How many partitions a listing answers at most: Hive's `max_parts`.
fn max_parts(limit: Option<usize>) -> i32 {
    limit.map_or(ALL, |limit| i32::try_from(limit).unwrap_or(i32::MAX))
}

/// Which partitions of a table a listing selects.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    /// Every partition.
    All,
    /// Values for a prefix of the partition keys, an empty value matching any
    /// (Hive's `get_partitions_ps`).
    PartialValues(&'a [String]),
    /// Hive's filter language, as `get_partitions_by_filter` takes it:
    /// `ds >= '2024-01-01' and hr = 7`, `region like 'eu%'`, `ds in ('a', 'b')`.
    Filter(&'a str),
    /// Partition names (`ds=2024-01-01/hr=7`); names of no partition are skipped
    /// (Hive's `get_partitions_by_names`).
    Names(&'a [&'a str]),
}

impl<'a> Selection<'a> {
    fn engine(self) -> PartitionSelection<'a> {
        match self {
            Selection::All => PartitionSelection::All,
            Selection::PartialValues(values) => PartitionSelection::PartialValues(values),
            Selection::Filter(filter) => PartitionSelection::Filter(filter),
            Selection::Names(names) => PartitionSelection::Names(names),
        }
    }
}

impl Metastore {
    /// Adds `partitions` to table `catalog.database.name`, all or none, and returns them as
    /// stored. A partition without a storage descriptor takes the table's; one without a
    /// location gets `<table location>/<k1=v1/k2=v2>`, whose directory is made. With
    /// `if_not_exists`, partitions already there are skipped (and not returned) instead of
    /// failing the call.
    ///
    /// # Example
    ///
    /// ```
    /// use hivestore::{FieldSchema, Metastore, Partition, Selection, StorageDescriptor, StoreOptions, Table};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// let key = |name: &str| FieldSchema { name: name.into(), type_name: "string".into(), comment: None };
    /// metastore.create_table(Table {
    ///     db_name: "default".into(),
    ///     table_name: "events".into(),
    ///     sd: Some(StorageDescriptor { cols: vec![key("payload")], ..StorageDescriptor::default() }),
    ///     partition_keys: vec![key("ds"), key("region")],
    ///     ..Table::default()
    /// })?;
    /// let partition = |ds: &str, region: &str| Partition {
    ///     values: vec![ds.into(), region.into()],
    ///     ..Partition::default()
    /// };
    /// let added = metastore.add_partitions(
    ///     "hive", "default", "events",
    ///     vec![partition("2024-01-01", "eu"), partition("2024-01-02", "eu"), partition("2024-01-02", "us")],
    ///     false,
    /// )?;
    /// assert_eq!(added[0].location(), Some("s3a://bucket/warehouse/events/ds=2024-01-01/region=eu"));
    ///
    /// let pruned = metastore.partition_names(
    ///     "hive", "default", "events",
    ///     Selection::Filter("ds >= '2024-01-02' and region = 'us'"),
    ///     None,
    /// )?;
    /// assert_eq!(pruned, vec!["ds=2024-01-02/region=us"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
        if_not_exists: bool,
    ) -> Result<Vec<Partition>> {
        let options = AddPartitionsOptions {
            if_not_exists,
            ..AddPartitionsOptions::default()
        };
        self.settled(|store| store.add_partitions(catalog, database, name, partitions, &options))
    }

    /// Partition `values` (one value per partition key, in key order) of table
    /// `catalog.database.name`.
    pub fn get_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        values: &[String],
    ) -> Result<Partition> {
        self.settled(|store| store.get_partition(catalog, database, name, values))
    }

    /// Partition `partition_name` (`k1=v1/k2=v2`, escaped as Hive escapes it) of table
    /// `catalog.database.name`.
    pub fn get_partition_by_name(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_name: &str,
    ) -> Result<Partition> {
        self.settled(|store| store.get_partition_by_name(catalog, database, name, partition_name))
    }

    /// The partitions of table `catalog.database.name` that `selection` selects, at most
    /// `limit`, in the order of their values.
    pub fn partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: Selection<'_>,
        limit: Option<usize>,
    ) -> Result<Vec<Partition>> {
        let (selection, limit) = (selection.engine(), max_parts(limit));
        self.settled(|store| {
            store.list_partitions_selected(catalog, database, name, selection, limit, false)
        })
    }

    /// The names (`k1=v1/k2=v2`) of the partitions of table `catalog.database.name` that
    /// `selection` selects, at most `limit`, in the order of their values. Only keys are
    /// read: the cheapest way to prune.
    pub fn partition_names(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: Selection<'_>,
        limit: Option<usize>,
    ) -> Result<Vec<String>> {
        let (selection, limit) = (selection.engine(), max_parts(limit));
        self.settled(|store| {
            store.list_partition_names_selected(catalog, database, name, selection, limit)
        })
    }

    /// How many partitions of table `catalog.database.name` pass Hive's `filter`.
    pub fn count_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        filter: &str,
    ) -> Result<u64> {
        self.settled(|store| store.get_num_partitions_by_filter(catalog, database, name, filter))
    }

    /// Replaces the partitions of table `catalog.database.name` that `partitions` name by
    /// their values, all or none; their create times stay.
    pub fn alter_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partitions: Vec<Partition>,
    ) -> Result<Vec<Partition>> {
        self.settled(|store| store.alter_partitions(catalog, database, name, partitions))
    }

    /// Gives partition `old_values` of table `catalog.database.name` the values of
    /// `partition`; its directory moves with it when the table is managed and the
    /// partition's location was the default one.
    pub fn rename_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        old_values: &[String],
        partition: Partition,
    ) -> Result<Partition> {
        self.settled(|store| store.rename_partition(catalog, database, name, old_values, partition))
    }

    /// Drops the partitions of table `catalog.database.name` named by their values, all or
    /// none; see [`DropPartitionsOptions`] for deleting their data and for values of no
    /// partition.
    pub fn drop_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        values_list: &[Vec<String>],
        options: DropPartitionsOptions,
    ) -> Result<DroppedPartitions> {
        self.settled(|store| store.drop_partitions(catalog, database, name, values_list, &options))
    }

    /// Moves the partitions of table `catalog.source_database.source_table` matching the
    /// partial `spec` (values of leading keys) to `catalog.dest_database.dest_table`, which
    /// must have the same columns and partition keys and none of those partitions (Hive's
    /// `exchange_partitions`); returns them as they are in the destination.
    pub fn exchange_partitions(
        &self,
        catalog: &str,
        (source_database, source_table): (&str, &str),
        (dest_database, dest_table): (&str, &str),
        spec: &BTreeMap<String, String>,
    ) -> Result<Vec<Partition>> {
        let exchange = PartitionExchange {
            catalog,
            source_database,
            source_table,
            dest_database,
            dest_table,
            spec,
        };
        self.settled(|store| store.exchange_partitions(&exchange))
    }
}
