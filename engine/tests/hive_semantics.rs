//! Hive's semantics for databases and tables, with the warehouse in a temp
//! dir: default locations, directories made, moved and deleted, table types,
//! validation messages, alter rules, truncate.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AlterTableOptions, Catalog, Database, DropDatabaseOptions, DropTableOptions, Durability, Error,
    ExpectedParameter, FieldSchema, Filesystem, LocalFilesystem, StorageDescriptor, Store,
    StoreOptions, Table,
};

/// A store over memory whose warehouse root is a fresh temp dir.
fn store_in(warehouse: &Path) -> Store {
    store_with(warehouse, Arc::new(LocalFilesystem))
}

fn store_with(warehouse: &Path, filesystem: Arc<dyn Filesystem>) -> Store {
    let mut options = StoreOptions::new(warehouse.to_string_lossy().to_string());
    options.durability = Durability::Memory;
    options.filesystem = Some(filesystem);
    Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap()
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn table(database: &str, name: &str) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: database.to_string(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id", "bigint"), column("name", "string")],
            num_buckets: -1,
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn external(mut table: Table) -> Table {
    table.table_type = Some("EXTERNAL_TABLE".to_string());
    table.parameters.insert("EXTERNAL".into(), "TRUE".into());
    table
}

fn with_location(mut table: Table, location: &str) -> Table {
    if let Some(sd) = table.sd.as_mut() {
        sd.location = Some(location.to_string());
    }
    table
}

fn database(name: &str) -> Database {
    Database {
        name: name.to_string(),
        ..Database::default()
    }
}

fn location(table: &Table) -> String {
    table.location().unwrap().to_string()
}

#[test]
fn create_database_fills_default_location_and_makes_its_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_database(database("Sales")).unwrap();
    let expected = warehouse.path().join("sales.db");
    assert_eq!(
        created.location_uri.as_deref(),
        Some(expected.to_str().unwrap())
    );
    assert!(expected.is_dir());
    let default = store.get_database("hive", "default").unwrap();
    assert_eq!(
        default.location_uri.as_deref(),
        Some(warehouse.path().to_str().unwrap())
    );
}

#[test]
fn databases_of_other_catalogs_live_under_the_catalog_location() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let catalog_root = warehouse.path().join("other");
    store
        .create_catalog(Catalog {
            name: "other".into(),
            location_uri: format!("file:{}", catalog_root.display()),
            ..Catalog::default()
        })
        .unwrap();
    assert!(catalog_root.is_dir(), "create_catalog makes its directory");
    let mut db = database("db");
    db.catalog_name = "other".into();
    let created = store.create_database(db).unwrap();
    let expected = format!("file:{}/db.db", catalog_root.display());
    assert_eq!(created.location_uri.as_deref(), Some(expected.as_str()));
    assert!(catalog_root.join("db.db").is_dir());
}

#[test]
fn create_table_fills_location_under_its_database_and_makes_the_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    store.create_database(database("db")).unwrap();
    let created = store.create_table(table("db", "Events")).unwrap();
    let expected = warehouse.path().join("db.db").join("events");
    assert_eq!(location(&created), expected.to_str().unwrap());
    assert!(expected.is_dir());
    assert_eq!(created.table_type.as_deref(), Some("MANAGED_TABLE"));
    let in_default = store.create_table(table("default", "t")).unwrap();
    assert_eq!(
        location(&in_default),
        warehouse.path().join("t").to_str().unwrap()
    );
}

#[test]
fn managed_tables_use_the_managed_location_of_their_database() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let managed_root = warehouse.path().join("managed");
    let mut db = database("db");
    db.managed_location_uri = Some(managed_root.to_string_lossy().to_string());
    store.create_database(db).unwrap();
    let managed = store.create_table(table("db", "m")).unwrap();
    // The database's scheme-less managed location was qualified on create, as Hive does.
    let expected = format!("file:{}", managed_root.join("m").to_str().unwrap());
    assert_eq!(location(&managed), expected);
    let outside = store.create_table(external(table("db", "x"))).unwrap();
    let expected = warehouse.path().join("db.db").join("x");
    assert_eq!(location(&outside), expected.to_str().unwrap());
}

#[test]
fn views_get_no_location_and_no_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let mut view = table("default", "v");
    view.table_type = Some("VIRTUAL_VIEW".into());
    view.view_original_text = Some("select 1".into());
    view.view_expanded_text = Some("select 1".into());
    let created = store.create_table(view).unwrap();
    assert_eq!(created.location(), None);
    assert_eq!(created.table_type.as_deref(), Some("VIRTUAL_VIEW"));
    assert_eq!(created.view_original_text.as_deref(), Some("select 1"));
    assert!(!warehouse.path().join("v").exists());
}

#[test]
fn given_locations_stay_as_given_and_remote_ones_are_never_touched() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let plain = warehouse.path().join("elsewhere/t");
    let plain = plain.to_str().unwrap();
    let created = store
        .create_table(with_location(table("default", "p"), plain))
        .unwrap();
    assert_eq!(location(&created), plain);
    assert!(Path::new(plain).is_dir());
    let remote = "s3a://bucket/warehouse/r";
    let created = store
        .create_table(external(with_location(table("default", "r"), remote)))
        .unwrap();
    assert_eq!(location(&created), remote);
    let mut db = database("remote");
    db.location_uri = Some("hdfs://nn:8020/w/remote.db".into());
    let created = store.create_database(db).unwrap();
    assert_eq!(
        created.location_uri.as_deref(),
        Some("hdfs://nn:8020/w/remote.db")
    );
}

#[test]
fn the_external_parameter_reconciles_the_table_type() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let cases: [(&str, Option<&str>, Option<&str>, &str); 6] = [
        ("a", Some("MANAGED_TABLE"), Some("TRUE"), "EXTERNAL_TABLE"),
        ("b", Some("MANAGED_TABLE"), Some("true"), "EXTERNAL_TABLE"),
        ("c", Some("EXTERNAL_TABLE"), None, "MANAGED_TABLE"),
        ("d", Some("EXTERNAL_TABLE"), Some("TRUE"), "EXTERNAL_TABLE"),
        ("e", None, None, "MANAGED_TABLE"),
        ("f", None, Some("TRUE"), "EXTERNAL_TABLE"),
    ];
    for (name, table_type, parameter, expected) in cases {
        let mut created = table("default", name);
        created.table_type = table_type.map(str::to_string);
        if let Some(value) = parameter {
            created.parameters.insert("EXTERNAL".into(), value.into());
        }
        let created = store.create_table(created).unwrap();
        assert_eq!(created.table_type.as_deref(), Some(expected), "{name}");
    }
}

#[test]
fn invalid_tables_fail_with_hive_messages() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let invalid = |table: Table| store.create_table(table).unwrap_err();
    let mut bad_type = table("default", "t");
    bad_type.sd.as_mut().unwrap().cols.push(column("x", "foo"));
    assert_eq!(
        invalid(bad_type),
        Error::InvalidObject("Invalid column type: foo".into())
    );
    let mut bad_nested = table("default", "t");
    bad_nested
        .sd
        .as_mut()
        .unwrap()
        .cols
        .push(column("x", "map<string>"));
    assert_eq!(
        invalid(bad_nested),
        Error::InvalidObject("Invalid column type: map<string>".into())
    );
    let mut bad_key = table("default", "t");
    bad_key.partition_keys.push(column("ds", "dat"));
    assert_eq!(
        invalid(bad_key),
        Error::InvalidObject("Invalid partition column type: dat".into())
    );
    let mut duplicate = table("default", "t");
    duplicate
        .sd
        .as_mut()
        .unwrap()
        .cols
        .push(column("ID", "int"));
    assert_eq!(
        invalid(duplicate),
        Error::InvalidObject("Duplicate column name: id".into())
    );
    assert_eq!(
        invalid(table("default", "bad-name")),
        Error::InvalidObject("bad-name is not a valid object name".into())
    );
    assert_eq!(
        invalid(with_location(table("default", "root"), "file:/")),
        Error::InvalidObject("root location must not be root path".into())
    );
    assert!(store.list_tables("hive", "default").unwrap().is_empty());
    // A partition key that is also a column is refused by Hive's DDL analyser, not the HMS.
    let mut repeated = table("default", "repeated");
    repeated.partition_keys.push(column("name", "string"));
    let created = store.create_table(repeated).unwrap();
    assert_eq!(created.partition_keys[0].name, "name");
}

#[test]
fn column_names_are_lowercased_and_types_kept_verbatim() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let mut mixed = table("default", "t");
    mixed.sd.as_mut().unwrap().cols = vec![column("Amount", "decimal(10,2)")];
    mixed.partition_keys = vec![column("DS", "varchar(10)")];
    let created = store.create_table(mixed).unwrap();
    assert_eq!(
        created.sd.unwrap().cols[0],
        column("amount", "decimal(10,2)")
    );
    assert_eq!(created.partition_keys[0], column("ds", "varchar(10)"));
}

#[test]
fn drop_table_with_delete_data_removes_a_managed_tables_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(table("default", "m")).unwrap();
    let directory = location(&created);
    std::fs::write(Path::new(&directory).join("part-0"), b"x").unwrap();
    let kept = store.create_table(table("default", "k")).unwrap();
    store.drop_table("hive", "default", "k").unwrap();
    assert!(
        Path::new(&location(&kept)).is_dir(),
        "deleteData=false keeps data"
    );
    let options = DropTableOptions { delete_data: true };
    let dropped = store
        .drop_table_with_options("hive", "default", "m", &options)
        .unwrap();
    assert!(dropped.warehouse.is_clean());
    assert_eq!(dropped.warehouse.removed, vec![directory.clone()]);
    assert!(!Path::new(&directory).exists());
}

#[test]
fn drop_external_table_keeps_its_data_unless_purge_is_set() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let options = DropTableOptions { delete_data: true };
    let kept = store.create_table(external(table("default", "e"))).unwrap();
    store
        .drop_table_with_options("hive", "default", "e", &options)
        .unwrap();
    assert!(Path::new(&location(&kept)).is_dir());
    let mut purged = external(table("default", "p"));
    purged
        .parameters
        .insert("external.table.purge".into(), "True".into());
    let purged = store.create_table(purged).unwrap();
    store
        .drop_table_with_options("hive", "default", "p", &options)
        .unwrap();
    assert!(!Path::new(&location(&purged)).exists());
}

#[test]
fn drop_database_cascade_with_delete_data_removes_tables_and_the_database_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    store.create_database(database("db")).unwrap();
    store.create_table(table("db", "inside")).unwrap();
    let outside = warehouse.path().join("outside/t");
    let outside = outside.to_str().unwrap();
    store
        .create_table(with_location(table("db", "outside"), outside))
        .unwrap();
    let options = DropDatabaseOptions {
        cascade: true,
        delete_data: true,
    };
    let dropped = store
        .drop_database_with_options("hive", "db", &options)
        .unwrap();
    assert!(dropped.warehouse.is_clean(), "{:?}", dropped.warehouse);
    assert_eq!(dropped.tables.len(), 2);
    assert!(!warehouse.path().join("db.db").exists());
    assert!(!Path::new(outside).exists());
    assert!(warehouse.path().is_dir());
}

/// A filesystem that fails the operations named in `failing`.
#[derive(Debug)]
struct FailingFilesystem {
    failing: &'static [&'static str],
}

impl FailingFilesystem {
    fn check(&self, operation: &str) -> io::Result<()> {
        if self.failing.contains(&operation) {
            Err(io::Error::new(io::ErrorKind::PermissionDenied, "injected"))
        } else {
            Ok(())
        }
    }
}

impl Filesystem for FailingFilesystem {
    fn exists(&self, path: &Path) -> io::Result<bool> {
        LocalFilesystem.exists(path)
    }
    fn is_dir(&self, path: &Path) -> io::Result<bool> {
        LocalFilesystem.is_dir(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.check("create")?;
        LocalFilesystem.create_dir_all(path)
    }
    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        self.check("remove")?;
        LocalFilesystem.remove_dir_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check("rename")?;
        LocalFilesystem.rename(from, to)
    }
    fn remove_dir_contents(&self, path: &Path) -> io::Result<()> {
        self.check("empty")?;
        LocalFilesystem.remove_dir_contents(path)
    }
    fn remove_dir_if_empty(&self, path: &Path) -> io::Result<bool> {
        self.check("remove")?;
        LocalFilesystem.remove_dir_if_empty(path)
    }
}

#[test]
fn a_failed_delete_after_the_commit_is_reported_and_the_drop_stands() {
    let warehouse = tempfile::tempdir().unwrap();
    let failing = Arc::new(FailingFilesystem {
        failing: &["remove"],
    });
    let store = store_with(warehouse.path(), failing);
    let created = store.create_table(table("default", "m")).unwrap();
    let options = DropTableOptions { delete_data: true };
    let dropped = store
        .drop_table_with_options("hive", "default", "m", &options)
        .unwrap();
    assert_eq!(dropped.warehouse.errors.len(), 1);
    assert!(dropped.warehouse.errors[0].contains(&location(&created)));
    assert!(matches!(
        store.get_table("hive", "default", "m"),
        Err(Error::NoSuchObject(_))
    ));
}

#[test]
fn a_failed_mkdir_fails_the_create_and_writes_nothing() {
    let warehouse = tempfile::tempdir().unwrap();
    let failing = Arc::new(FailingFilesystem {
        failing: &["create"],
    });
    let store = store_with(warehouse.path(), failing);
    let error = store.create_database(database("db")).unwrap_err();
    let expected = warehouse.path().join("db.db");
    match error {
        Error::Refused(message) => assert!(
            message.starts_with(&format!(
                "{} is not a directory or unable to create one",
                expected.display()
            )),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.list_databases("hive").unwrap(), vec!["default"]);
    assert!(store.create_table(table("default", "t")).is_err());
    assert!(store.list_tables("hive", "default").unwrap().is_empty());
}

#[test]
fn renaming_a_managed_table_moves_its_directory_and_location() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    store.create_database(database("db")).unwrap();
    store.create_database(database("other")).unwrap();
    let created = store.create_table(table("db", "t")).unwrap();
    std::fs::write(Path::new(&location(&created)).join("data"), b"x").unwrap();
    let mut renamed = created.clone();
    renamed.table_name = "u".into();
    let altered = store.alter_table("hive", "db", "t", renamed).unwrap();
    let moved = warehouse.path().join("db.db/u");
    assert_eq!(location(&altered), moved.to_str().unwrap());
    assert!(moved.join("data").is_file());
    assert!(!Path::new(&location(&created)).exists());
    let mut across = altered.clone();
    across.db_name = "other".into();
    let altered = store.alter_table("hive", "db", "u", across).unwrap();
    let moved = warehouse.path().join("other.db/u");
    assert_eq!(location(&altered), moved.to_str().unwrap());
    assert!(moved.join("data").is_file());
    assert_eq!(store.list_tables("hive", "other").unwrap(), vec!["u"]);
    assert!(store.list_tables("hive", "db").unwrap().is_empty());
}

#[test]
fn renaming_keeps_external_and_custom_locations() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(external(table("default", "e"))).unwrap();
    let mut renamed = created.clone();
    renamed.table_name = "e2".into();
    let altered = store.alter_table("hive", "default", "e", renamed).unwrap();
    assert_eq!(location(&altered), location(&created));
    assert!(Path::new(&location(&created)).is_dir());
    let custom = warehouse.path().join("custom/c");
    let custom = custom.to_str().unwrap();
    let created = store
        .create_table(with_location(table("default", "c"), custom))
        .unwrap();
    let mut renamed = created.clone();
    renamed.table_name = "c2".into();
    let altered = store.alter_table("hive", "default", "c", renamed).unwrap();
    assert_eq!(location(&altered), custom);
}

#[test]
fn renaming_onto_an_existing_directory_or_name_fails_and_moves_nothing() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(table("default", "t")).unwrap();
    std::fs::create_dir_all(warehouse.path().join("u")).unwrap();
    let mut renamed = created.clone();
    renamed.table_name = "u".into();
    let error = store
        .alter_table("hive", "default", "t", renamed)
        .unwrap_err();
    let message = format!(
        "New location for this table hive.default.u already exists : {}",
        warehouse.path().join("u").display()
    );
    assert_eq!(error, Error::InvalidOperation(message));
    assert!(Path::new(&location(&created)).is_dir());
    store.create_table(table("default", "v")).unwrap();
    let mut onto = created.clone();
    onto.table_name = "V".into();
    let error = store.alter_table("hive", "default", "t", onto).unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation("new table default.v already exists".into())
    );
}

#[test]
fn alter_with_an_expected_parameter_is_a_compare_and_set() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let mut iceberg = external(table("default", "ice"));
    iceberg
        .parameters
        .insert("metadata_location".into(), "s3://b/1.json".into());
    let created = store.create_table(iceberg).unwrap();
    let expect = |value: &str| AlterTableOptions {
        expected_parameter: Some(ExpectedParameter {
            key: "metadata_location".into(),
            value: value.into(),
        }),
        ..AlterTableOptions::default()
    };
    let mut next = created.clone();
    next.parameters
        .insert("metadata_location".into(), "s3://b/2.json".into());
    let altered = store
        .alter_table_with_options(
            "hive",
            "default",
            "ice",
            next.clone(),
            &expect("s3://b/1.json"),
        )
        .unwrap();
    assert_eq!(altered.parameters["metadata_location"], "s3://b/2.json");
    let stale = store
        .alter_table_with_options(
            "hive",
            "default",
            "ice",
            next.clone(),
            &expect("s3://b/1.json"),
        )
        .unwrap_err();
    let message = "The table has been modified. The parameter value for key 'metadata_location' \
                   is 's3://b/2.json'. The expected was value was 's3://b/1.json'";
    assert_eq!(stale, Error::Refused(message.into()));
    let mut unset = next.clone();
    unset.parameters.remove("metadata_location");
    let error = store
        .alter_table_with_options("hive", "default", "ice", unset, &expect("s3://b/2.json"))
        .unwrap_err();
    assert_eq!(
        error,
        Error::Refused("New value for expected key metadata_location is not set".into())
    );
}

#[test]
fn concurrent_compare_and_set_alters_let_exactly_one_win() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let mut base = external(table("default", "ice"));
    base.parameters
        .insert("metadata_location".into(), "v0".into());
    let base = store.create_table(base).unwrap();
    let wins = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|writer| {
                let (store, base) = (&store, base.clone());
                scope.spawn(move || {
                    let mut next = base;
                    next.parameters
                        .insert("metadata_location".into(), format!("v{}", writer + 1));
                    let options = AlterTableOptions {
                        expected_parameter: Some(ExpectedParameter {
                            key: "metadata_location".into(),
                            value: "v0".into(),
                        }),
                        ..AlterTableOptions::default()
                    };
                    store
                        .alter_table_with_options("hive", "default", "ice", next, &options)
                        .is_ok()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .filter(|won| *won)
            .count()
    });
    assert_eq!(wins, 1);
}

#[test]
fn alter_refuses_incompatible_column_type_changes() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(table("default", "t")).unwrap();
    let mut narrowed = created.clone();
    narrowed.sd.as_mut().unwrap().cols = vec![column("id", "int"), column("name", "string")];
    let error = store
        .alter_table("hive", "default", "t", narrowed.clone())
        .unwrap_err();
    let message = "The following columns have types incompatible with the existing columns in \
                   their respective positions :\nid";
    assert_eq!(error, Error::InvalidOperation(message.into()));
    let mut widened = created.clone();
    widened
        .sd
        .as_mut()
        .unwrap()
        .cols
        .push(column("extra", "int"));
    widened.sd.as_mut().unwrap().cols[0] = column("id", "decimal(30,0)");
    store.alter_table("hive", "default", "t", widened).unwrap();
    let mut options = StoreOptions::new(warehouse.path().to_string_lossy().to_string());
    options.durability = Durability::Memory;
    options.disallow_incompatible_col_type_changes = false;
    let lenient = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    lenient.create_table(table("default", "l")).unwrap();
    narrowed.table_name = "l".into();
    narrowed.sd.as_mut().unwrap().location = None;
    lenient
        .alter_table("hive", "default", "l", narrowed)
        .unwrap();
}

#[test]
fn alter_checks_and_timestamps_follow_hive() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let missing = store
        .alter_table("hive", "default", "nope", table("default", "nope"))
        .unwrap_err();
    assert_eq!(
        missing,
        Error::InvalidOperation("table hive.default.nope doesn't exist".into())
    );
    let created = store.create_table(table("default", "t")).unwrap();
    let mut moved = created.clone();
    moved.cat_name = "spark".into();
    let error = store
        .alter_table("hive", "default", "t", moved)
        .unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation(
            "Tables cannot be moved between catalogs, old cataloghive, new catalog spark".into()
        )
    );
    let mut bad = created.clone();
    bad.sd.as_mut().unwrap().cols.push(column("x", "foo"));
    let error = store.alter_table("hive", "default", "t", bad).unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation("Invalid column type: foo".into())
    );
    let mut kept = created.clone();
    kept.parameters
        .insert("transient_lastDdlTime".into(), "12345".into());
    let altered = store.alter_table("hive", "default", "t", kept).unwrap();
    assert_eq!(altered.parameters["transient_lastDdlTime"], "12345");
    let mut refreshed = created.clone();
    refreshed.parameters = BTreeMap::new();
    let altered = store
        .alter_table("hive", "default", "t", refreshed)
        .unwrap();
    let ddl_time: i64 = altered.parameters["transient_lastDdlTime"].parse().unwrap();
    assert!(ddl_time > 12345);
    assert_eq!(altered.id, created.id);
    assert_eq!(altered.create_time, created.create_time);
    let cascade = AlterTableOptions {
        cascade: true,
        ..AlterTableOptions::default()
    };
    store
        .alter_table_with_options("hive", "default", "t", created, &cascade)
        .unwrap();
}

#[test]
fn truncate_empties_a_managed_tables_directory() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let mut managed = table("default", "m");
    managed.parameters.insert("numFiles".into(), "2".into());
    managed.parameters.insert("numRows".into(), "10".into());
    let created = store.create_table(managed).unwrap();
    let directory = Path::new(&location(&created)).to_path_buf();
    std::fs::write(directory.join("f1"), b"x").unwrap();
    std::fs::create_dir_all(directory.join("sub")).unwrap();
    std::fs::write(directory.join("sub/f2"), b"x").unwrap();
    let truncated = store.truncate_table("hive", "default", "m").unwrap();
    assert!(directory.is_dir());
    assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0);
    assert_eq!(truncated.parameters["numFiles"], "0");
    assert_eq!(truncated.parameters["numRows"], "0");
}

#[test]
fn truncate_refuses_external_tables() {
    let warehouse = tempfile::tempdir().unwrap();
    let store = store_in(warehouse.path());
    let created = store.create_table(external(table("default", "e"))).unwrap();
    std::fs::write(Path::new(&location(&created)).join("f"), b"x").unwrap();
    let error = store.truncate_table("hive", "default", "e").unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation("Cannot truncate non-managed table e.".into())
    );
    assert!(Path::new(&location(&created)).join("f").is_file());
    let missing = store.truncate_table("hive", "default", "nope").unwrap_err();
    assert!(matches!(missing, Error::NoSuchObject(_)));
}
