use super::packages::NewPackage;
use super::stored::NewStoredProcedure;
use super::*;
use crate::catalog::lookup::find_database_id;
use crate::model::database::{Database, DatabaseType};
use crate::store::Store;
use crate::DropDatabaseOptions;

fn store() -> Store {
    crate::store::memory_store_with_databases(&["db", "other"])
}

fn procedure(database: &str, name: &str, source: &str) -> NewStoredProcedure {
    NewStoredProcedure {
        catalog: Some("hive".into()),
        database: Some(database.into()),
        name: Some(name.into()),
        owner_name: Some("alice".into()),
        source: Some(source.into()),
    }
}

fn package(database: &str, name: &str) -> NewPackage {
    NewPackage {
        catalog: Some("hive".into()),
        database: Some(database.into()),
        name: Some(name.into()),
        owner_name: Some("bob".into()),
        header: Some(format!("CREATE PACKAGE {name} AS ... END")),
        body: Some(format!("CREATE PACKAGE BODY {name} AS ... END")),
    }
}

fn place<'a>(database: &'a str, name: &'a str) -> RoutineName<'a> {
    RoutineName {
        catalog: Some("HIVE"),
        database: Some(database),
        name: Some(name),
    }
}

#[test]
fn procedures_are_created_replaced_listed_and_dropped() {
    let store = store();
    store
        .create_stored_procedure(procedure(" DB ", "Greet", "v1"))
        .unwrap();
    store
        .create_stored_procedure(procedure("db", "add", "a"))
        .unwrap();
    store
        .create_stored_procedure(procedure("other", "zap", "z"))
        .unwrap();
    let read = store
        .get_stored_procedure(place("Db", "Greet"))
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            read.name.as_str(),
            read.db_name.as_str(),
            read.cat_name.as_str()
        ),
        ("Greet", "db", "hive")
    );
    assert_eq!(
        (read.owner_name.as_str(), read.source.as_str()),
        ("alice", "v1")
    );
    assert!(read.create_time > 0);
    // Names are compared as given, as Hive's query compares them.
    assert_eq!(
        store.get_stored_procedure(place("db", "greet")).unwrap(),
        None
    );
    // A second create replaces the source and keeps the create time.
    store
        .create_stored_procedure(procedure("db", "Greet", "v2"))
        .unwrap();
    let replaced = store
        .get_stored_procedure(place("db", "Greet"))
        .unwrap()
        .unwrap();
    assert_eq!(
        (replaced.source.as_str(), replaced.create_time),
        ("v2", read.create_time)
    );
    assert_eq!(
        store
            .list_stored_procedures(Some("hive"), Some("DB"))
            .unwrap(),
        vec!["Greet".to_string(), "add".to_string()]
    );
    assert_eq!(
        store.list_stored_procedures(Some(" Hive"), None).unwrap(),
        vec!["Greet".to_string(), "add".to_string(), "zap".to_string()]
    );
    assert!(store
        .list_stored_procedures(Some("hive"), Some("nope"))
        .unwrap()
        .is_empty());
    assert!(store
        .list_stored_procedures(Some("nope"), None)
        .unwrap()
        .is_empty());
    store.drop_stored_procedure(place("db", "Greet")).unwrap();
    assert_eq!(
        store.get_stored_procedure(place("db", "Greet")).unwrap(),
        None
    );
    // Dropping what is not there is no error, as in Hive.
    store.drop_stored_procedure(place("db", "Greet")).unwrap();
    store.drop_stored_procedure(place("nope", "Greet")).unwrap();
}

#[test]
fn a_procedure_needs_its_database_and_every_required_field() {
    let store = store();
    assert_eq!(
        store
            .create_stored_procedure(procedure("Missing", "p", "s"))
            .unwrap_err(),
        Error::NoSuchObject("There is no database hive.missing".into())
    );
    let mut no_catalog = procedure("db", "p", "s");
    no_catalog.catalog = None;
    assert_eq!(
        store.create_stored_procedure(no_catalog).unwrap_err(),
        Error::NoSuchObject("There is no database null.db".into())
    );
    let mut no_source = procedure("db", "p", "s");
    no_source.source = None;
    assert_eq!(
        store.create_stored_procedure(no_source).unwrap_err(),
        Error::Refused("The stored procedure's source is not set".into())
    );
    let mut no_owner = procedure("db", "p", "s");
    no_owner.owner_name = None;
    assert!(matches!(
        store.create_stored_procedure(no_owner),
        Err(Error::Refused(_))
    ));
    let long_name = "p".repeat(ROUTINE_NAME_LEN_MAX + 1);
    assert!(matches!(
        store.create_stored_procedure(procedure("db", &long_name, "s")),
        Err(Error::Refused(_))
    ));
    let long_source = "s".repeat(ROUTINE_TEXT_BYTES_MAX + 1);
    assert!(matches!(
        store.create_stored_procedure(procedure("db", "p", &long_source)),
        Err(Error::Refused(_))
    ));
    assert!(store
        .list_stored_procedures(Some("hive"), Some("db"))
        .unwrap()
        .is_empty());
}

#[test]
fn a_remote_database_takes_packages_but_no_procedure() {
    let store = store();
    let remote = Database {
        name: "remote".into(),
        database_type: Some(DatabaseType::Remote),
        connector_name: Some("mysql_conn".into()),
        ..Default::default()
    };
    store.create_database(remote).unwrap();
    assert_eq!(
        store
            .create_stored_procedure(procedure("remote", "p", "s"))
            .unwrap_err(),
        Error::Refused("Operation create_stored_procedure not support for REMOTE database".into())
    );
    store.add_package(package("remote", "pkg")).unwrap();
    assert_eq!(
        store.list_packages(Some("hive"), Some("remote")).unwrap(),
        vec!["pkg".to_string()]
    );
}

#[test]
fn packages_are_added_replaced_found_and_dropped() {
    let store = store();
    store.add_package(package("db", "Pkg")).unwrap();
    let found = store.find_package(place("DB", "Pkg")).unwrap().unwrap();
    assert_eq!(
        (found.db_name.as_str(), found.owner_name.as_str()),
        ("db", "bob")
    );
    assert_eq!(found.header, "CREATE PACKAGE Pkg AS ... END");
    let mut replacement = package("db", "Pkg");
    replacement.body = Some("new body".into());
    store.add_package(replacement).unwrap();
    let replaced = store.find_package(place("db", "Pkg")).unwrap().unwrap();
    assert_eq!(replaced.body, "new body");
    assert_eq!(store.find_package(place("db", "pkg")).unwrap(), None);
    assert_eq!(
        store.add_package(package("nope", "x")).unwrap_err(),
        Error::NoSuchObject("There is no database hive.nope".into())
    );
    let mut headless = package("db", "x");
    headless.header = None;
    assert_eq!(
        store.add_package(headless).unwrap_err(),
        Error::Refused("The package's header is not set".into())
    );
    store.drop_package(place("db", "Pkg")).unwrap();
    store.drop_package(place("db", "Pkg")).unwrap();
    assert!(store.list_packages(Some("hive"), None).unwrap().is_empty());
}

/// Fills database `db` with `count` procedures in one write, as that many creates would.
fn fill_procedures(store: &Store, count: usize) {
    let id = find_database_id(store.reader(), "hive", "db")
        .unwrap()
        .unwrap();
    store
        .write(|txn| {
            for index in 0..count {
                let name = format!("p{index}");
                let procedure = StoredProcedure {
                    name: name.clone(),
                    db_name: "db".into(),
                    cat_name: "hive".into(),
                    ..Default::default()
                };
                txn.put_value(keys::procedure_key(id, &name), &procedure)?;
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_database_holds_at_most_its_bound_of_each() {
    let store = store();
    fill_procedures(&store, ROUTINES_PER_DATABASE_MAX - 1);
    store
        .create_stored_procedure(procedure("db", "last", "s"))
        .unwrap();
    assert_eq!(
        store
            .create_stored_procedure(procedure("db", "one_more", "s"))
            .unwrap_err(),
        Error::Refused(format!(
            "A database holds at most {ROUTINES_PER_DATABASE_MAX} stored procedures"
        ))
    );
    // Replacing one is no new one; another database has room of its own.
    store
        .create_stored_procedure(procedure("db", "p0", "s2"))
        .unwrap();
    store
        .create_stored_procedure(procedure("other", "one_more", "s"))
        .unwrap();
    let listed = store
        .list_stored_procedures(Some("hive"), Some("db"))
        .unwrap();
    assert_eq!(listed.len(), ROUTINES_PER_DATABASE_MAX);
    // Packages have a bound of their own.
    store.add_package(package("db", "pkg")).unwrap();
}

#[test]
fn dropping_a_database_refuses_or_takes_its_routines() {
    let store = store();
    store
        .create_stored_procedure(procedure("db", "p", "s"))
        .unwrap();
    let keep = DropDatabaseOptions {
        cascade: false,
        delete_data: false,
    };
    assert_eq!(
        store
            .drop_database_with_options("hive", "db", &keep)
            .unwrap_err(),
        Error::InvalidOperation(
            "Database db is not empty. One or more stored procedures exist.".into()
        )
    );
    store.drop_stored_procedure(place("db", "p")).unwrap();
    store.add_package(package("db", "pkg")).unwrap();
    assert_eq!(
        store
            .drop_database_with_options("hive", "db", &keep)
            .unwrap_err(),
        Error::InvalidOperation("Database db is not empty. One or more packages exist.".into())
    );
    store
        .create_stored_procedure(procedure("db", "p", "s"))
        .unwrap();
    store.drop_database("hive", "db", true).unwrap();
    assert!(store
        .list_stored_procedures(Some("hive"), None)
        .unwrap()
        .is_empty());
    assert!(store.list_packages(Some("hive"), None).unwrap().is_empty());
    // A database made again under the same name starts empty.
    store
        .create_database(Database {
            name: "db".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(store.get_stored_procedure(place("db", "p")).unwrap(), None);
}
