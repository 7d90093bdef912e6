//! Quickstart: open a metastore in a temporary directory, create a database
//! and a table, list, rename and drop them, and look at what happened in the
//! warehouse.
//!
//! Run with `cargo run -p hivestore --example quickstart`.

use hivestore::{
    AlterTableOptions, Database, DropDatabaseOptions, FieldSchema, Metastore, StorageDescriptor,
    Table,
};

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = tempfile::tempdir()?;
    let warehouse = tempfile::tempdir()?;
    let warehouse_root = warehouse.path().to_string_lossy().to_string();
    let metastore = Metastore::open(data.path(), warehouse_root)?;

    let sales = metastore.create_database(Database {
        name: "Sales".to_string(),
        description: Some("orders and items".to_string()),
        ..Database::default()
    })?;
    println!("database {} at {:?}", sales.name, sales.location_uri);

    let orders = metastore.create_table(Table {
        db_name: "sales".to_string(),
        table_name: "Orders".to_string(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id", "bigint"), column("amount", "decimal(12,2)")],
            num_buckets: -1,
            ..StorageDescriptor::default()
        }),
        partition_keys: vec![column("ds", "string")],
        ..Table::default()
    })?;
    println!(
        "table {} ({:?}) at {:?}",
        orders.qualified_name(),
        orders.table_type,
        orders.location()
    );

    let mut renamed = orders.clone();
    renamed.table_name = "orders_v2".to_string();
    let renamed = metastore.alter_table(
        "hive",
        "sales",
        "orders",
        renamed,
        &AlterTableOptions::default(),
    )?;
    println!(
        "renamed to {} at {:?}",
        renamed.table_name,
        renamed.location()
    );

    println!(
        "tables: {:?}",
        metastore.list_tables("hive", "sales", Some("orders*"))?
    );

    let options = DropDatabaseOptions {
        cascade: true,
        delete_data: true,
    };
    let dropped = metastore.drop_database("hive", "sales", options)?;
    println!(
        "dropped {} with {} table(s); removed {:?}",
        dropped.database.name,
        dropped.tables.len(),
        dropped.warehouse.removed
    );
    assert!(!warehouse.path().join("sales.db").exists());
    Ok(())
}
