//! Listings by Hive's name patterns and table filters.

use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Database, Durability, Error, Store, StoreOptions, Table, TableMeta};

fn store() -> Store {
    let mut options = StoreOptions::new("file:/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap()
}

fn table(database: &str, name: &str, table_type: &str, parameters: &[(&str, &str)]) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: database.to_string(),
        owner: Some("alice".to_string()),
        table_type: Some(table_type.to_string()),
        parameters: parameters
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect(),
        ..Table::default()
    }
}

fn populated() -> Store {
    let store = store();
    for name in ["sales", "sales_eu", "hr"] {
        let database = Database {
            name: name.to_string(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
    }
    let iceberg = [("EXTERNAL", "TRUE"), ("table_type", "ICEBERG")];
    store
        .create_table(table("sales", "orders", "EXTERNAL_TABLE", &iceberg))
        .unwrap();
    let comment = [("comment", "all items")];
    store
        .create_table(table("sales", "items", "MANAGED_TABLE", &comment))
        .unwrap();
    store
        .create_table(table("sales", "v_orders", "VIRTUAL_VIEW", &[]))
        .unwrap();
    store
        .create_table(table("sales_eu", "orders", "MANAGED_TABLE", &[]))
        .unwrap();
    store
}

#[test]
fn database_patterns_use_hive_alternatives_and_wildcards() {
    let store = populated();
    let list = |pattern| store.list_databases_matching("hive", pattern).unwrap();
    assert_eq!(list(None), vec!["default", "hr", "sales", "sales_eu"]);
    assert_eq!(list(Some("*")), vec!["default", "hr", "sales", "sales_eu"]);
    assert_eq!(list(Some("SALES*")), vec!["sales", "sales_eu"]);
    assert_eq!(list(Some("hr|default")), vec!["default", "hr"]);
    assert_eq!(list(Some("sales")), vec!["sales"]);
    assert!(matches!(
        store.list_databases_matching("hive", Some("(")),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn table_patterns_filter_by_name_and_type() {
    let store = populated();
    let list = |pattern, table_type| {
        store
            .list_tables_matching("hive", "Sales", pattern, table_type)
            .unwrap()
    };
    assert_eq!(list(None, None), vec!["items", "orders", "v_orders"]);
    assert_eq!(list(Some("*orders"), None), vec!["orders", "v_orders"]);
    assert_eq!(list(Some(".*"), Some("VIRTUAL_VIEW")), vec!["v_orders"]);
    assert_eq!(list(Some("i*|o*"), Some("MANAGED_TABLE")), vec!["items"]);
    let missing = store
        .list_tables_matching("hive", "nope", None, None)
        .unwrap();
    assert!(missing.is_empty());
}

#[test]
fn table_meta_matches_database_and_table_patterns_and_types() {
    let store = populated();
    let metas = store
        .get_table_meta("hive", Some("sales*"), Some("orders"), &[])
        .unwrap();
    let names: Vec<_> = metas
        .iter()
        .map(|meta| format!("{}.{}", meta.db_name, meta.table_name))
        .collect();
    assert_eq!(names, vec!["sales.orders", "sales_eu.orders"]);
    let managed = store
        .get_table_meta("hive", None, None, &["MANAGED_TABLE".to_string()])
        .unwrap();
    let items = TableMeta {
        db_name: "sales".into(),
        table_name: "items".into(),
        table_type: "MANAGED_TABLE".into(),
        comments: Some("all items".into()),
        owner_name: Some("alice".into()),
        owner_type: None,
        cat_name: "hive".into(),
    };
    assert_eq!(managed[0], items);
    assert_eq!(managed.len(), 2);
}

#[test]
fn table_names_by_filter_serve_iceberg_and_trino() {
    let store = populated();
    let filter = |filter: &str, max| {
        store
            .list_table_names_by_filter("hive", "sales", filter, max)
            .unwrap()
    };
    assert_eq!(
        filter(
            r#"hive_filter_field_params__table_type like "ICEBERG""#,
            None
        ),
        vec!["orders"]
    );
    assert_eq!(
        filter(r#"hive_filter_field_owner__ = "alice""#, Some(2)),
        vec!["items", "orders"]
    );
    assert_eq!(
        filter(
            r#"hive_filter_field_params__comment = "all items" or hive_filter_field_params__table_type = "ICEBERG""#,
            None
        ),
        vec!["items", "orders"]
    );
    let error = store
        .list_table_names_by_filter("hive", "sales", "hive_filter_field_owner__ = 1 or", None)
        .unwrap_err();
    match error {
        Error::InvalidInput(message) => assert!(
            message.contains("\"hive_filter_field_owner__ = 1 or\""),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
}
