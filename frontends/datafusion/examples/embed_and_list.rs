//! The embedded store as a DataFusion catalog: a partitioned table made with hivestore, a
//! Parquet file in each partition, then the catalog listed and queried.
//!
//! ```sh
//! cargo run --release -p hivestore-datafusion --example embed_and_list
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::catalog::CatalogProvider;
use datafusion::prelude::SessionContext;
use hivestore::{Database, FieldSchema, Metastore, Partition, StorageDescriptor, Table};
use hivestore_datafusion::{EmbeddedSource, HiveCatalog};
use parquet::arrow::ArrowWriter;

const PARQUET_INPUT_FORMAT: &str = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = tempfile::tempdir()?;
    let warehouse = tempfile::tempdir()?;
    let metastore = Metastore::open(data.path(), warehouse.path().to_string_lossy())?;
    metastore.create_database(Database {
        name: "sales".into(),
        ..Database::default()
    })?;
    let column = |name: &str, type_name: &str| FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    };
    metastore.create_table(Table {
        db_name: "sales".into(),
        table_name: "orders".into(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id", "bigint"), column("customer", "string")],
            input_format: Some(PARQUET_INPUT_FORMAT.into()),
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds", "date")],
        ..Table::default()
    })?;
    let days = ["2024-01-01", "2024-01-02", "2024-01-03"];
    let partitions = days.map(|day| Partition {
        values: vec![day.into()],
        ..Partition::default()
    });
    let added = metastore.add_partitions("hive", "sales", "orders", partitions.to_vec(), false)?;
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("customer", DataType::Utf8, false),
    ]));
    for (index, partition) in (0i64..).zip(&added) {
        let ids = Int64Array::from(vec![index * 10, index * 10 + 1]);
        let customers = StringArray::from(vec!["ada", "grace"]);
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![Arc::new(ids), Arc::new(customers)],
        )?;
        let location = partition
            .location()
            .ok_or("a partition without a location")?;
        let file = std::fs::File::create(format!("{location}/part-00000.parquet"))?;
        let mut writer = ArrowWriter::try_new(file, Arc::clone(&schema), None)?;
        writer.write(&batch)?;
        writer.close()?;
    }

    let catalog = HiveCatalog::new(Arc::new(EmbeddedSource::new(Arc::new(metastore))));
    for database in catalog.schema_names() {
        let tables = catalog
            .schema(&database)
            .map(|schema| schema.table_names())
            .unwrap_or_default();
        println!("{database}: {}", tables.join(", "));
    }

    let context = SessionContext::new();
    context.register_catalog("hive", Arc::new(catalog));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let sql = "SELECT ds, count(*) AS orders FROM hive.sales.orders \
               WHERE ds >= DATE '2024-01-02' GROUP BY ds ORDER BY ds";
    println!("{sql}");
    runtime.block_on(async { context.sql(sql).await?.show().await })?;
    Ok(())
}
