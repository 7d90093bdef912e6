use super::*;

fn store() -> Store {
    crate::store::memory_store_with_databases(&[])
}

fn spec(name: &str) -> ConnectorSpec {
    ConnectorSpec {
        name: Some(name.into()),
        connector_type: Some("mysql".into()),
        url: Some("jdbc:mysql://db.example:3306".into()),
        description: Some("the orders source".into()),
        parameters: Some(BTreeMap::from([(
            "hive.sql.dbcp.username".into(),
            "u".into(),
        )])),
        owner_name: Some("alice".into()),
        owner_type: None,
    }
}

#[test]
fn connectors_are_created_read_listed_altered_and_dropped() {
    let store = store();
    let created = store.create_data_connector(spec("Orders_Conn")).unwrap();
    assert_eq!(created.name, "orders_conn");
    assert_eq!(created.owner_type, PrincipalType::User);
    assert!(created.create_time > 0);
    store.create_data_connector(spec("a_conn")).unwrap();
    assert_eq!(
        store.get_data_connector("ORDERS_CONN ").unwrap(),
        Some(created.clone())
    );
    assert_eq!(
        store.list_data_connectors().unwrap(),
        vec!["a_conn".to_string(), "orders_conn".to_string()]
    );
    let change = ConnectorSpec {
        name: Some("ignored".into()),
        connector_type: Some("postgres".into()),
        url: Some("jdbc:postgresql://other".into()),
        description: Some("  ".into()),
        parameters: None,
        owner_name: None,
        owner_type: Some(PrincipalType::Role),
    };
    let altered = store.alter_data_connector("Orders_Conn", change).unwrap();
    assert_eq!(altered.name, "orders_conn");
    assert_eq!(altered.connector_type, "mysql");
    assert_eq!(altered.url, "jdbc:postgresql://other");
    assert_eq!(altered.description.as_deref(), Some("the orders source"));
    assert!(altered.parameters.is_empty());
    assert_eq!(
        (altered.owner_name.clone(), altered.owner_type),
        (None, PrincipalType::Role)
    );
    assert_eq!(altered.create_time, created.create_time);
    assert_eq!(
        store.get_data_connector("orders_conn").unwrap(),
        Some(altered)
    );
    store.drop_data_connector("ORDERS_CONN", false).unwrap();
    assert_eq!(store.get_data_connector("orders_conn").unwrap(), None);
    store.drop_data_connector("orders_conn", true).unwrap();
    assert_eq!(
        store.drop_data_connector("Orders_Conn", false).unwrap_err(),
        Error::NoSuchObject("DataConnector Orders_Conn doesn't exist".into())
    );
}

#[test]
fn hive_refusals_in_hive_order() {
    let store = store();
    let mut unnamed = spec("x");
    unnamed.name = None;
    assert_eq!(
        store.create_data_connector(unnamed).unwrap_err(),
        Error::Refused("Data connector name cannot be null.".into())
    );
    store.create_data_connector(spec("taken")).unwrap();
    assert_eq!(
        store.create_data_connector(spec("TAKEN")).unwrap_err(),
        Error::AlreadyExists("DataConnector TAKEN already exists".into())
    );
    assert_eq!(
        store.create_data_connector(spec("no good")).unwrap_err(),
        Error::InvalidObject("no good is not a valid dataconnector name".into())
    );
    let mut untyped = spec("untyped");
    untyped.connector_type = None;
    assert_eq!(
        store.create_data_connector(untyped).unwrap_err(),
        Error::InvalidObject("The data connector's type is not set".into())
    );
    let mut wide = spec("wide");
    wide.description = Some("d".repeat(CONNECTOR_DESCRIPTION_LEN_MAX + 1));
    assert!(matches!(
        store.create_data_connector(wide),
        Err(Error::InvalidObject(_))
    ));
    assert_eq!(
        store
            .alter_data_connector("Missing", spec("m"))
            .unwrap_err(),
        Error::NoSuchObject("Dataconnector named Missing does not exist:null".into())
    );
    let mut no_url = spec("taken");
    no_url.url = None;
    assert_eq!(
        store.alter_data_connector("taken", no_url).unwrap_err(),
        Error::Refused("The data connector's url is not set".into())
    );
    assert_eq!(
        store.require_data_connector("Missing").unwrap_err(),
        Error::NoSuchObject("Dataconnector named Missing does not exist:null".into())
    );
    assert_eq!(
        store.list_data_connectors().unwrap(),
        vec!["taken".to_string()]
    );
}

#[test]
fn a_store_holds_at_most_its_bound_of_connectors() {
    let store = store();
    store
        .write(|txn| {
            for index in 0..DATA_CONNECTORS_MAX - 1 {
                let name = format!("c{index}");
                let connector = DataConnector {
                    name: name.clone(),
                    ..Default::default()
                };
                txn.put_value(keys::data_connector_key(&name), &connector)?;
            }
            Ok(())
        })
        .unwrap();
    store.create_data_connector(spec("last")).unwrap();
    assert_eq!(
        store.create_data_connector(spec("one_more")).unwrap_err(),
        Error::Refused(format!(
            "A store holds at most {DATA_CONNECTORS_MAX} data connectors"
        ))
    );
    assert_eq!(
        store.list_data_connectors().unwrap().len(),
        DATA_CONNECTORS_MAX
    );
}

#[test]
fn a_dropped_connector_leaves_the_remote_databases_naming_it() {
    let store = store();
    store.create_data_connector(spec("src")).unwrap();
    let remote = crate::model::database::Database {
        name: "mirror".into(),
        database_type: Some(crate::model::database::DatabaseType::Remote),
        connector_name: Some("src".into()),
        remote_database_name: Some("orders".into()),
        ..Default::default()
    };
    store.create_database(remote).unwrap();
    store.drop_data_connector("src", false).unwrap();
    let kept = store.get_database("hive", "mirror").unwrap();
    assert_eq!(kept.connector_name.as_deref(), Some("src"));
}

#[test]
fn a_remote_database_takes_no_table_and_its_drop_is_not_logged() {
    use crate::events::{EventFilter, EventKind};
    let store = store();
    let remote = crate::model::database::Database {
        name: "mirror".into(),
        database_type: Some(crate::model::database::DatabaseType::Remote),
        connector_name: Some("src".into()),
        ..Default::default()
    };
    store.create_database(remote).unwrap();
    let table = crate::Table {
        db_name: "mirror".into(),
        table_name: "t".into(),
        ..crate::Table::default()
    };
    assert_eq!(
        store.create_table(table).unwrap_err(),
        Error::Refused("Create table in REMOTE database mirror is not allowed".into())
    );
    store.drop_database("hive", "mirror", false).unwrap();
    let events = store.next_events(0, 100, &EventFilter::default()).unwrap();
    let kinds: Vec<EventKind> = events.into_iter().map(|event| event.record.kind).collect();
    assert_eq!(kinds, vec![EventKind::CreateDatabase]);
}

#[test]
fn a_remote_database_names_are_bounded() {
    let store = store();
    let remote = crate::model::database::Database {
        name: "mirror".into(),
        database_type: Some(crate::model::database::DatabaseType::Remote),
        connector_name: Some("c".repeat(crate::model::value_limits::REMOTE_NAME_LEN_MAX + 1)),
        ..Default::default()
    };
    assert!(matches!(
        store.create_database(remote),
        Err(Error::InvalidObject(_))
    ));
    assert!(store.get_database("hive", "mirror").is_err());
}

#[test]
fn an_alter_keeps_a_database_type_connector_and_remote_name() {
    use crate::model::database::{Database, DatabaseType};
    let store = store();
    let remote = Database {
        name: "mirror".into(),
        database_type: Some(DatabaseType::Remote),
        connector_name: Some("src".into()),
        remote_database_name: Some("orders".into()),
        ..Default::default()
    };
    store.create_database(remote).unwrap();
    let change = Database {
        name: "mirror".into(),
        description: Some("now described".into()),
        database_type: Some(DatabaseType::Native),
        connector_name: Some("other".into()),
        remote_database_name: None,
        ..Default::default()
    };
    store.alter_database("hive", "mirror", change).unwrap();
    let kept = store.get_database("hive", "mirror").unwrap();
    assert_eq!(kept.description.as_deref(), Some("now described"));
    assert_eq!(kept.database_type, Some(DatabaseType::Remote));
    assert_eq!(kept.connector_name.as_deref(), Some("src"));
    assert_eq!(kept.remote_database_name.as_deref(), Some("orders"));
    store
        .create_database(Database {
            name: "native".into(),
            ..Default::default()
        })
        .unwrap();
    let to_remote = Database {
        name: "native".into(),
        database_type: Some(DatabaseType::Remote),
        connector_name: Some("src".into()),
        ..Default::default()
    };
    store.alter_database("hive", "native", to_remote).unwrap();
    let native = store.get_database("hive", "native").unwrap();
    assert_eq!((native.database_type, native.connector_name), (None, None));
}
