//! Confinement: the store makes, moves and deletes data only under the warehouse root and its
//! external roots. Each operation aimed elsewhere (a create, an alter to a new location, a
//! rename's move, an exchange, a drop with `deleteData`, a truncate) is refused with a
//! `Refused` error naming the path, and changes nothing: no metadata, no directory. A
//! "foreign" directory with a sentinel file stands for data the server must never touch; a
//! catalog "imported" with locations outside the roots is one written while a root was
//! configured and reopened without it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AddPartitionsOptions, Database, DropDatabaseOptions, DropPartitionsOptions, DropTableOptions,
    Durability, Error, FieldSchema, Partition, PartitionExchange, StorageDescriptor, Store,
    StoreOptions, Table,
};

/// A warehouse, an external root and a foreign directory holding a sentinel, side by side in
/// one temporary directory.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let place = Place {
            dir: tempfile::tempdir().unwrap(),
        };
        for sub in ["warehouse", "external", "foreign"] {
            std::fs::create_dir_all(place.path(sub)).unwrap();
        }
        std::fs::write(place.sentinel(), "keep me").unwrap();
        std::fs::write(place.path("external/kept"), "data").unwrap();
        place
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn uri(&self, sub: &str) -> String {
        format!("file:{}", self.path(sub).display())
    }

    fn sentinel(&self) -> PathBuf {
        self.path("foreign/sentinel")
    }

    /// The foreign directory holds its sentinel and nothing else.
    fn assert_foreign_untouched(&self) {
        let entries: Vec<_> = std::fs::read_dir(self.path("foreign"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(entries, ["sentinel"]);
        assert_eq!(std::fs::read_to_string(self.sentinel()).unwrap(), "keep me");
    }

    fn store(&self, backend: &Arc<MemoryBackend>, external_roots: &[&str]) -> Store {
        let mut options = StoreOptions::new(self.uri("warehouse"));
        options.durability = Durability::Memory;
        options.external_roots = external_roots.iter().map(|root| self.uri(root)).collect();
        Store::open_with_backend(backend.clone(), options).unwrap()
    }
}

fn column(name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: "string".to_string(),
        comment: None,
    }
}

fn table(name: &str, keys: &[&str], location: Option<String>) -> Table {
    Table {
        table_name: name.to_string(),
        db_name: "default".to_string(),
        table_type: Some("MANAGED_TABLE".to_string()),
        sd: Some(StorageDescriptor {
            cols: vec![column("id")],
            num_buckets: -1,
            location,
            ..StorageDescriptor::default()
        }),
        partition_keys: keys.iter().map(|key| column(key)).collect(),
        ..Table::default()
    }
}

fn partition(table: &str, values: &[&str], location: Option<String>) -> Partition {
    Partition {
        db_name: "default".to_string(),
        table_name: table.to_string(),
        values: values.iter().map(|value| value.to_string()).collect(),
        sd: Some(StorageDescriptor {
            cols: vec![column("id")],
            num_buckets: -1,
            location,
            ..StorageDescriptor::default()
        }),
        ..Partition::default()
    }
}

/// The error is a refusal naming `path`.
fn assert_refused<T: std::fmt::Debug>(result: hivestore_engine::Result<T>, path: &Path) -> String {
    match result {
        Err(Error::Refused(message)) => {
            let shown = path.display().to_string();
            assert!(message.contains(&shown), "{message} should name {shown}");
            message
        }
        other => panic!(
            "expected a refusal naming {}, got {other:?}",
            path.display()
        ),
    }
}

fn with_data() -> DropTableOptions {
    DropTableOptions { delete_data: true }
}

#[test]
fn a_create_outside_the_roots_is_refused_and_changes_nothing() {
    let place = Place::new();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &[]);
    let foreign = place.uri("foreign");
    assert_refused(
        store.create_table(table("t", &[], Some(foreign.clone()))),
        &place.path("foreign"),
    );
    assert!(store.get_table("hive", "default", "t").is_err());
    let inside = place.uri("foreign/made");
    assert_refused(
        store.create_table(table("t", &[], Some(inside))),
        &place.path("foreign/made"),
    );
    let database = Database {
        name: "d".to_string(),
        location_uri: Some(place.uri("foreign/d.db")),
        ..Database::default()
    };
    assert_refused(store.create_database(database), &place.path("foreign/d.db"));
    assert!(store.get_database("hive", "d").is_err());
    let external = Table {
        table_type: Some("EXTERNAL_TABLE".to_string()),
        parameters: [("EXTERNAL".to_string(), "TRUE".to_string())].into(),
        ..table("e", &[], Some(foreign))
    };
    assert_refused(store.create_table(external), &place.path("foreign"));
    place.assert_foreign_untouched();
}

#[test]
fn dot_dot_and_links_are_resolved_before_the_check() {
    let place = Place::new();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &[]);
    let escape = format!("{}/../foreign/t", place.uri("warehouse"));
    assert_refused(
        store.create_table(table("t", &[], Some(escape))),
        &place.path("foreign/t"),
    );
    std::os::unix::fs::symlink(place.path("foreign"), place.path("warehouse/evil")).unwrap();
    for location in ["warehouse/evil", "warehouse/evil/t"] {
        let message = assert_refused(
            store.create_table(table("t", &[], Some(place.uri(location)))),
            &place.path(location),
        );
        assert!(message.contains("resolves to"), "{message}");
    }
    // A link inside the warehouse to elsewhere in the warehouse is fine.
    std::fs::create_dir_all(place.path("warehouse/real")).unwrap();
    std::os::unix::fs::symlink(place.path("warehouse/real"), place.path("warehouse/alias"))
        .unwrap();
    store
        .create_table(table("ok", &[], Some(place.uri("warehouse/alias/ok"))))
        .unwrap();
    assert!(place.path("warehouse/real/ok").is_dir());
    place.assert_foreign_untouched();
}

#[test]
fn roots_hold_paths_by_whole_components() {
    let place = Place::new();
    std::fs::create_dir_all(place.path("warehouse2")).unwrap();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &[]);
    assert_refused(
        store.create_table(table("t", &[], Some(place.uri("warehouse2/t")))),
        &place.path("warehouse2/t"),
    );
    assert!(!place.path("warehouse2/t").exists());
}

#[test]
fn an_external_root_allows_create_and_drop_with_data_there() {
    let place = Place::new();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &["external"]);
    let location = place.uri("external/t");
    store
        .create_table(table("t", &["p"], Some(location.clone())))
        .unwrap();
    let options = AddPartitionsOptions::default();
    let part = partition("t", &["1"], Some(place.uri("external/elsewhere/p=1")));
    store
        .add_partitions("hive", "default", "t", vec![part], &options)
        .unwrap();
    assert!(place.path("external/elsewhere/p=1").is_dir());
    let dropped = store
        .drop_table_with_options("hive", "default", "t", &with_data())
        .unwrap();
    assert!(dropped.warehouse.is_clean(), "{:?}", dropped.warehouse);
    assert!(!place.path("external/t").exists());
    assert!(!place.path("external/elsewhere/p=1").exists());
    assert!(place.path("external/kept").exists());
}

#[test]
fn partitions_and_alters_outside_the_roots_are_refused() {
    let place = Place::new();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &[]);
    store.create_table(table("t", &["p"], None)).unwrap();
    let options = AddPartitionsOptions::default();
    let batch = vec![
        partition("t", &["1"], None),
        partition("t", &["2"], Some(place.uri("foreign/p=2"))),
    ];
    assert_refused(
        store.add_partitions("hive", "default", "t", batch, &options),
        &place.path("foreign/p=2"),
    );
    assert!(!place.path("warehouse/t/p=1").exists(), "nothing is made");
    let added = store
        .add_partitions(
            "hive",
            "default",
            "t",
            vec![partition("t", &["1"], None)],
            &options,
        )
        .unwrap();
    let mut moved = added[0].clone();
    moved.sd.as_mut().unwrap().location = Some(place.uri("foreign"));
    assert_refused(
        store.alter_partition("hive", "default", "t", moved),
        &place.path("foreign"),
    );
    let mut relocated = store.get_table("hive", "default", "t").unwrap();
    let kept = relocated.clone();
    relocated.sd.as_mut().unwrap().location = Some(place.uri("foreign"));
    assert_refused(
        store.alter_table("hive", "default", "t", relocated),
        &place.path("foreign"),
    );
    assert_eq!(store.get_table("hive", "default", "t").unwrap(), kept);
    let mut database = store.get_database("hive", "default").unwrap();
    database.location_uri = Some(place.uri("foreign"));
    assert_refused(
        store.alter_database("hive", "default", database),
        &place.path("foreign"),
    );
    place.assert_foreign_untouched();
}

/// A table, a partition and a database written with `external` as a root, then the store
/// reopened without it, as a catalog imported with locations outside the roots.
fn imported(place: &Place) -> (Arc<MemoryBackend>, Store) {
    let backend = Arc::new(MemoryBackend::new());
    {
        let store = place.store(&backend, &["external"]);
        let database = Database {
            name: "ext".to_string(),
            location_uri: Some(place.uri("external/ext.db")),
            ..Database::default()
        };
        store.create_database(database).unwrap();
        store
            .create_table(table("t", &["p"], Some(place.uri("external/t"))))
            .unwrap();
        let part = partition("t", &["1"], Some(place.uri("external/outside/p=1")));
        store
            .add_partitions(
                "hive",
                "default",
                "t",
                vec![part],
                &AddPartitionsOptions::default(),
            )
            .unwrap();
        std::fs::write(place.path("external/t/data"), "rows").unwrap();
        for (name, keys) in [("u", &[][..]), ("w", &["p"][..])] {
            let mut in_ext = table(name, keys, None);
            in_ext.db_name = "ext".to_string();
            store.create_table(in_ext).unwrap();
        }
    }
    let store = place.store(&backend, &[]);
    (backend, store)
}

#[test]
fn deleting_the_data_of_an_imported_table_outside_the_roots_is_refused() {
    let place = Place::new();
    let (_backend, store) = imported(&place);
    let message = assert_refused(
        store.drop_table_with_options("hive", "default", "t", &with_data()),
        &place.path("external"),
    );
    assert!(message.contains("--external-root"), "{message}");
    assert!(message.contains("without deleteData"), "{message}");
    assert!(store.get_table("hive", "default", "t").is_ok());
    let values = vec![vec!["1".to_string()]];
    let options = DropPartitionsOptions {
        delete_data: true,
        if_exists: false,
    };
    assert_refused(
        store.drop_partitions("hive", "default", "t", &values, &options),
        &place.path("external/outside/p=1"),
    );
    assert_eq!(
        store
            .list_partition_names("hive", "default", "t", -1)
            .unwrap(),
        ["p=1"]
    );
    assert_refused(
        store.truncate_table("hive", "default", "t"),
        &place.path("external/outside/p=1"),
    );
    let cascade = DropDatabaseOptions {
        cascade: true,
        delete_data: true,
    };
    assert_refused(
        store.drop_database_with_options("hive", "ext", &cascade),
        &place.path("external/ext.db"),
    );
    assert!(store.get_table("hive", "ext", "u").is_ok());
    assert!(place.path("external/t/data").exists());
    assert!(place.path("external/outside/p=1").is_dir());
    assert!(place.path("external/ext.db/u").is_dir());
    // Without deleteData a drop is metadata only, and always works.
    store
        .drop_table_with_options("hive", "default", "t", &DropTableOptions::default())
        .unwrap();
    assert!(place.path("external/t/data").exists());
}

#[test]
fn moves_from_or_to_outside_the_roots_are_refused() {
    let place = Place::new();
    let (_backend, store) = imported(&place);
    // A managed table at its default location in a database outside the roots: its rename
    // would move its directory there.
    let mut renamed = store.get_table("hive", "ext", "u").unwrap();
    renamed.table_name = "v".to_string();
    assert_refused(
        store.alter_table("hive", "ext", "u", renamed),
        &place.path("external/ext.db/u"),
    );
    assert!(store.get_table("hive", "ext", "u").is_ok());
    assert!(place.path("external/ext.db/u").is_dir());
    // An exchange from the warehouse into a table outside the roots.
    store.create_table(table("source", &["p"], None)).unwrap();
    store
        .add_partitions(
            "hive",
            "default",
            "source",
            vec![partition("source", &["1"], None)],
            &AddPartitionsOptions::default(),
        )
        .unwrap();
    let spec: BTreeMap<String, String> = [("p".to_string(), "1".to_string())].into();
    let exchange = PartitionExchange {
        catalog: "hive",
        source_database: "default",
        source_table: "source",
        dest_database: "ext",
        dest_table: "w",
        spec: &spec,
    };
    assert_refused(
        store.exchange_partitions(&exchange),
        &place.path("external/ext.db/w/p=1"),
    );
    assert!(place.path("warehouse/source/p=1").is_dir());
    assert!(!place.path("external/ext.db/w/p=1").exists());
    assert_eq!(
        store
            .list_partition_names("hive", "default", "source", -1)
            .unwrap(),
        ["p=1"]
    );
    place.assert_foreign_untouched();
}

#[test]
fn a_metadata_only_store_refuses_nothing_and_remote_locations_pass() {
    let place = Place::new();
    let mut options = StoreOptions::new(place.uri("warehouse")).metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    store
        .create_table(table("t", &[], Some(place.uri("foreign"))))
        .unwrap();
    store
        .drop_table_with_options("hive", "default", "t", &with_data())
        .unwrap();
    let backend = Arc::new(MemoryBackend::new());
    let store = place.store(&backend, &[]);
    let remote = "s3a://bucket/anywhere/t".to_string();
    store.create_table(table("s", &[], Some(remote))).unwrap();
    store
        .drop_table_with_options("hive", "default", "s", &with_data())
        .unwrap();
    place.assert_foreign_untouched();
}

#[test]
fn an_external_root_that_is_not_local_is_refused_at_open() {
    for root in ["s3a://bucket/data", "relative/dir"] {
        let mut options = StoreOptions::new("file:/nowhere");
        options.durability = Durability::Memory;
        options.external_roots = vec![root.to_string()];
        let opened = Store::open_with_backend(Arc::new(MemoryBackend::new()), options);
        match opened {
            Err(Error::InvalidInput(message)) => assert!(message.contains(root), "{message}"),
            Err(other) => panic!("{root}: {other:?}"),
            Ok(_) => panic!("{root}: opened"),
        }
    }
}
