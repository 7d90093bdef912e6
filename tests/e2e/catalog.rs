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
        assert!(again.contains("AlreadyExistsException") && again.contains("already exists"), "{again}");
    }
}

#[test]
fn a_missing_database_is_no_such_object() {
    let server = TestServer::start();
    let mut client = connect(&server);
    let message = user_exception_message(client.get_database("nowhere".into()));
    assert!(message.contains("NoSuchObjectException") && message.contains("nowhere"), "{message}");
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
        .get_table_objects_by_name("db2".into(), names.clone())
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
    assert!(message.contains("NoSuchObjectException") && message.contains("ghost"), "{message}");
    let message = user_exception_message(client.get_fields("default".into(), "ghost".into()));
    assert!(message.contains("UnknownTableException") && message.contains("ghost"), "{message}");
}
