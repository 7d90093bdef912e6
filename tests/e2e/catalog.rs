//! Catalogs, databases and tables through the generated Rust client over loopback: the round
//! trips, Hive's exceptions, and that optional fields the metastore never stored go out unset.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore::{
    Database, FieldSchema, GetTableRequest, GetTablesRequest, SerDeInfo, StorageDescriptor,
    TThriftHiveMetastoreSyncClient, Table,
};
use hivestore_tests::{client, Client, TestServer, ALL_FORMATS};

fn database(name: &str) -> Database {
    Database {
        name: Some(name.to_string()),
        description: Some("a test database".to_string()),
        location_uri: None,
        parameters: Some(BTreeMap::new()),
        privileges: None,
        owner_name: None,
        owner_type: None,
        catalog_name: None,
        create_time: None,
        managed_location_uri: None,
        type_: None,
        connector_name: None,
        remote_dbname: None,
    }
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_name.to_string()),
        comment: None,
    }
}

fn table(database: &str, name: &str) -> Table {
    let sd = StorageDescriptor {
        cols: Some(vec![column("id", "bigint"), column("Payload", "string")]),
        location: None,
        input_format: Some("org.apache.hadoop.mapred.TextInputFormat".to_string()),
        output_format: Some(
            "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat".to_string(),
        ),
        compressed: Some(false),
        num_buckets: Some(-1),
        serde_info: Some(SerDeInfo {
            name: None,
            serialization_lib: Some(
                "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe".to_string(),
            ),
            parameters: Some(BTreeMap::new()),
            description: None,
            serializer_class: None,
            deserializer_class: None,
            serde_type: None,
        }),
        bucket_cols: Some(Vec::new()),
        sort_cols: Some(Vec::new()),
        parameters: Some(BTreeMap::new()),
        skewed_info: None,
        stored_as_sub_directories: None,
    };
    Table {
        table_name: Some(name.to_string()),
        db_name: Some(database.to_string()),
        owner: None,
        create_time: None,
        last_access_time: None,
        retention: None,
        sd: Some(sd),
        partition_keys: Some(vec![column("ds", "string")]),
        parameters: Some(BTreeMap::new()),
        view_original_text: None,
        view_expanded_text: None,
        table_type: Some("MANAGED_TABLE".to_string()),
        privileges: None,
        temporary: None,
        rewrite_enabled: None,
        creation_metadata: None,
        cat_name: None,
        owner_type: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        access_type: None,
        required_read_capabilities: None,
        required_write_capabilities: None,
        id: None,
        file_metadata: None,
        dictionary: None,
        txn_id: None,
    }
}

/// The declared exception a call failed with, as text naming its type and message.
fn user_exception_message(result: thrift::Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(thrift::Error::User(error)) => format!("{error:?}"),
        other => panic!("expected a declared exception, got {other:?}"),
    }
}

fn connect(server: &TestServer) -> Client {
    let mut client = client(server.addr, ALL_FORMATS[0]);
    client.set_ugi("alice".into(), vec![]).unwrap();
    client
}

#[test]
fn the_default_catalog_and_database_exist_from_the_start() {
    let server = TestServer::start();
    let mut client = connect(&server);
    assert_eq!(
        client.get_all_databases().unwrap(),
        vec!["default".to_string()]
    );
    let default = client.get_database("default".into()).unwrap();
    assert_eq!(default.catalog_name.as_deref(), Some("hive"));
    let catalogs = client.get_catalogs().unwrap();
    assert_eq!(catalogs.names, Some(vec!["hive".to_string()]));
}

#[test]
fn a_database_round_trips_with_its_name_lowercased_and_the_caller_as_owner() {
    let server = TestServer::start();
    for format in ALL_FORMATS {
        let mut client = client(server.addr, format);
        client.set_ugi("alice".into(), vec![]).unwrap();
        let name = format!(
            "Sales_{}{}",
            u8::from(format.compact),
            u8::from(format.framed)
        );
        client.create_database(database(&name)).unwrap();
        let stored = client.get_database(name.to_uppercase()).unwrap();
        assert_eq!(stored.name, Some(name.to_lowercase()));
        assert_eq!(stored.owner_name.as_deref(), Some("alice"));
        assert!(
            stored.location_uri.is_some(),
            "a default location is filled in"
        );
        let again = user_exception_message(client.create_database(database(&name)));
        assert!(
            again.contains("AlreadyExistsException") && again.contains("already exists"),
            "{again}"
        );
    }
}

#[test]
fn a_missing_database_is_no_such_object() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let message = user_exception_message(client.get_database("nowhere".into()));
    assert!(
        message.contains("NoSuchObjectException") && message.contains("nowhere"),
        "{message}"
    );
}

#[test]
fn a_table_round_trips_and_unset_optional_fields_stay_unset() {
    let server = TestServer::start();
    let mut client = connect(&server);
    client.create_database(database("db1")).unwrap();
    client.create_table(table("db1", "Events")).unwrap();
    let stored = client.get_table("DB1".into(), "events".into()).unwrap();
    assert_eq!(stored.table_name.as_deref(), Some("events"));
    assert_eq!(stored.owner.as_deref(), Some("alice"));
    assert_eq!(stored.cat_name.as_deref(), Some("hive"));
    assert!(stored.id.is_some_and(|id| id > 0));
    assert!(stored.create_time.is_some_and(|time| time > 0));
    let parameters = stored.parameters.clone().unwrap();
    assert!(
        parameters.contains_key("transient_lastDdlTime"),
        "{parameters:?}"
    );
    // Never stored, so never sent (the generated Default would send Some(false) / Some("")).
    assert_eq!(stored.temporary, None);
    assert_eq!(stored.view_original_text, None);
    assert_eq!(stored.privileges, None);
    assert_eq!(stored.col_stats, None);
    assert_eq!(stored.txn_id, None);
    let columns = client.get_fields("db1".into(), "events".into()).unwrap();
    let names: Vec<_> = columns.iter().filter_map(|c| c.name.clone()).collect();
    assert_eq!(
        names,
        vec!["id".to_string(), "payload".to_string()],
        "column names are lowercased"
    );
    let schema = client.get_schema("db1".into(), "events".into()).unwrap();
    assert_eq!(schema.len(), 3, "columns then partition keys");
    let request = GetTableRequest::new(
        "db1".to_string(),
        "events".to_string(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    );
    assert_eq!(client.get_table_req(request).unwrap().table, stored);
}

#[test]
fn batch_table_fetches_leave_out_missing_names() {
    let server = TestServer::start();
    let mut client = connect(&server);
    client.create_database(database("db2")).unwrap();
    client.create_table(table("db2", "a")).unwrap();
    client.create_table(table("db2", "b")).unwrap();
    let names = vec!["a".to_string(), "missing".to_string(), "B".to_string()];
    let tables = client
        .get_table_objects_by_name("db2".into(), Some(names.clone()))
        .unwrap();
    let found: Vec<_> = tables.iter().filter_map(|t| t.table_name.clone()).collect();
    assert_eq!(found, vec!["a".to_string(), "b".to_string()]);
    let request = GetTablesRequest::new(
        "@hive#db2".to_string(),
        names,
        None,
        None,
        None,
        None,
        None,
        None,
    );
    assert!(
        client.get_table_objects_by_name_req(request).is_err(),
        "the _req form takes a plain db name"
    );
    let request =
        GetTablesRequest::new("db2".to_string(), None, None, None, None, None, None, None);
    assert_eq!(
        client
            .get_table_objects_by_name_req(request)
            .unwrap()
            .tables
            .len(),
        2
    );
    assert_eq!(
        client.get_all_tables("@hive#db2".into()).unwrap(),
        vec!["a".to_string(), "b".to_string()]
    );
}

#[test]
fn a_missing_table_is_no_such_object_naming_it() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let message = user_exception_message(client.get_table("default".into(), "ghost".into()));
    assert!(
        message.contains("NoSuchObjectException") && message.contains("ghost"),
        "{message}"
    );
    let message = user_exception_message(client.get_fields("default".into(), "ghost".into()));
    assert!(
        message.contains("UnknownTableException") && message.contains("ghost"),
        "{message}"
    );
}

fn context(pairs: &[(&str, &str)]) -> hivestore_idl::hive_metastore::EnvironmentContext {
    let properties = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    hivestore_idl::hive_metastore::EnvironmentContext {
        properties: Some(properties),
    }
}

#[test]
fn alter_with_an_expected_parameter_is_a_compare_and_set_with_hives_message() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let mut events = table("default", "iceberg_t");
    events.parameters = Some([("metadata_location".to_string(), "s3://m/1".to_string())].into());
    client.create_table(events).unwrap();
    let mut next = client
        .get_table("default".into(), "iceberg_t".into())
        .unwrap();
    next.parameters
        .as_mut()
        .unwrap()
        .insert("metadata_location".into(), "s3://m/2".into());
    let cas = context(&[
        ("expected_parameter_key", "metadata_location"),
        ("expected_parameter_value", "s3://m/1"),
    ]);
    client
        .alter_table_with_environment_context(
            "default".into(),
            "iceberg_t".into(),
            next.clone(),
            cas.clone(),
        )
        .unwrap();
    // The same expectation again: the stored value moved on, so the alter must fail.
    let message = user_exception_message(client.alter_table_with_environment_context(
        "default".into(),
        "iceberg_t".into(),
        next,
        cas,
    ));
    assert!(
        message.contains(
            "The table has been modified. The parameter value for key 'metadata_location' is"
        ),
        "{message}"
    );
    let stored = client
        .get_table("default".into(), "iceberg_t".into())
        .unwrap();
    assert_eq!(stored.parameters.unwrap()["metadata_location"], "s3://m/2");
}

#[test]
fn managed_table_directories_follow_create_and_drop_with_delete_data() {
    let server = TestServer::start();
    let mut client = connect(&server);
    client.create_database(database("wh")).unwrap();
    client.create_table(table("wh", "t1")).unwrap();
    let directory = server.dir.path().join("warehouse").join("wh.db").join("t1");
    assert!(
        directory.is_dir(),
        "{} was not created",
        directory.display()
    );
    let location = client
        .get_table("wh".into(), "t1".into())
        .unwrap()
        .sd
        .unwrap()
        .location
        .unwrap();
    assert_eq!(location, format!("file:{}", directory.display()));
    client.drop_table("wh".into(), "t1".into(), true).unwrap();
    assert!(
        !directory.exists(),
        "{} was not deleted",
        directory.display()
    );
    let message = user_exception_message(client.drop_table("wh".into(), "t1".into(), true));
    assert!(message.contains("NoSuchObjectException"), "{message}");
}

#[test]
fn table_listings_follow_hives_patterns_types_and_filters() {
    let server = TestServer::start();
    let mut client = connect(&server);
    for name in ["orders", "order_items", "users"] {
        client.create_table(table("default", name)).unwrap();
    }
    let mut iceberg = table("default", "ice");
    iceberg.parameters = Some([("table_type".to_string(), "ICEBERG".to_string())].into());
    client.create_table(iceberg).unwrap();
    assert_eq!(
        client
            .get_tables("default".into(), "ORDER*|users".into())
            .unwrap(),
        vec![
            "order_items".to_string(),
            "orders".to_string(),
            "users".to_string()
        ]
    );
    assert_eq!(
        client
            .get_tables_by_type("default".into(), "*".into(), "VIRTUAL_VIEW".into())
            .unwrap(),
        Vec::<String>::new()
    );
    let filter = r#"hive_filter_field_params__table_type like "ICEBERG""#;
    assert_eq!(
        client
            .get_table_names_by_filter("default".into(), filter.into(), -1)
            .unwrap(),
        vec!["ice".to_string()]
    );
    let metas = client
        .get_table_meta("def*".into(), "user*".into(), vec![])
        .unwrap();
    assert_eq!(metas.len(), 1);
    assert_eq!(
        (metas[0].table_name.as_str(), metas[0].table_type.as_str()),
        ("users", "MANAGED_TABLE")
    );
    assert_eq!(
        client.get_databases("DEF*".into()).unwrap(),
        vec!["default".to_string()]
    );
}

#[test]
fn renaming_a_table_across_databases_keeps_it_whole() {
    let server = TestServer::start();
    let mut client = connect(&server);
    client.create_database(database("src")).unwrap();
    client.create_database(database("dst")).unwrap();
    client.create_table(table("src", "moving")).unwrap();
    let mut renamed = client.get_table("src".into(), "moving".into()).unwrap();
    let id = renamed.id;
    renamed.db_name = Some("dst".into());
    renamed.table_name = Some("moved".into());
    client
        .alter_table("src".into(), "moving".into(), renamed)
        .unwrap();
    assert!(client.get_table("src".into(), "moving".into()).is_err());
    let moved = client.get_table("dst".into(), "moved".into()).unwrap();
    assert_eq!(moved.id, id, "a rename keeps the table's identity");
    // Hive checks the new name before the old table; aim at a free name.
    let mut again = moved;
    again.table_name = Some("elsewhere".into());
    let message = user_exception_message(client.alter_table("src".into(), "moving".into(), again));
    assert!(
        message.contains("InvalidOperationException") && message.contains("doesn't exist"),
        "{message}"
    );
}

#[test]
fn dropping_a_database_that_holds_tables_needs_cascade() {
    let server = TestServer::start();
    let mut client = connect(&server);
    client.create_database(database("full")).unwrap();
    client.create_table(table("full", "t")).unwrap();
    let message = user_exception_message(client.drop_database("full".into(), true, false));
    assert!(
        message.contains("InvalidOperationException") && message.contains("is not empty"),
        "{message}"
    );
    client.drop_database("full".into(), true, true).unwrap();
    assert!(client.get_table("full".into(), "t".into()).is_err());
    assert!(!server.dir.path().join("warehouse").join("full.db").exists());
}

#[test]
fn config_values_answer_the_warehouse_and_refuse_foreign_keys() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let warehouse = client
        .get_config_value("hive.metastore.warehouse.dir".into(), "x".into())
        .unwrap();
    assert_eq!(
        warehouse,
        format!("file:{}", server.dir.path().join("warehouse").display())
    );
    let message = user_exception_message(
        client.get_config_value("javax.jdo.option.ConnectionPassword".into(), "".into()),
    );
    assert!(message.contains("ConfigValSecurityException"), "{message}");
}
