//! Partitions written through a frontend's sink (`Store::write_partitions`) from kept
//! encodings. The goal: a listing answered from kept bytes is always what a listing read
//! from the store answers, before and after every kind of change to the table. Method: a
//! sink whose encoding shows everything a partition reply holds (the table's names, the
//! values, location, parameters, times), compared with the owned partitions of
//! `list_partitions_selected` (which keeps nothing), after each change, each listing made
//! twice (a miss that fills the kept bytes, then hits).

use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{
    AddPartitionsOptions, Database, Durability, EncodedPartition, EncodingOut, FieldSchema,
    Partition, PartitionSelection, PartitionSink, PartitionView, PieceKey, Result,
    StorageDescriptor, Store, StoreOptions, Table,
};

/// Encodes a partition as text; counts the partitions it had to encode.
#[derive(Default)]
struct TextSink {
    kind: u32,
    table: String,
    written: Vec<String>,
    encoded_count: usize,
}

impl PartitionSink for TextSink {
    fn encoding_kind(&self) -> u32 {
        self.kind
    }

    fn begin(&mut self, table: &Table, count: usize) -> Result<()> {
        self.table = format!("{}.{}.{}", table.cat_name, table.db_name, table.table_name);
        self.written = Vec::with_capacity(count);
        Ok(())
    }

    fn encode(&mut self, partition: &PartitionView<'_>, out: EncodingOut<'_>) -> Result<()> {
        self.encoded_count += 1;
        let record = partition.record();
        let parameters: Vec<(&str, &str)> = record
            .parameters
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect();
        let text = format!(
            "{}|{:?}|{:?}|{:?}|{}|",
            self.table,
            partition.values(),
            record.location.as_ref().map(|location| location.as_str()),
            parameters,
            record.create_time.to_native(),
        );
        // The kind is spliced in as a piece shared by every partition, as a descriptor is.
        let (bytes, mut splicer) = out.parts();
        bytes.extend_from_slice(text.as_bytes());
        let kind = self.kind.to_string();
        let key = PieceKey {
            object: u64::from(self.kind),
            part: 0,
        };
        splicer.splice(bytes.len(), key, kind.as_bytes());
        Ok(())
    }

    fn append(&mut self, encoded: &EncodedPartition<'_>) {
        self.written
            .push(String::from_utf8(encoded.to_vec()).expect("the sink writes text"));
    }
}

/// What `TextSink` writes for an owned partition.
fn text_of(partition: &Partition, kind: u32) -> String {
    let parameters: Vec<(&str, &str)> = partition
        .parameters
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect();
    format!(
        "{}.{}.{}|{:?}|{:?}|{:?}|{}|{}",
        partition.cat_name,
        partition.db_name,
        partition.table_name,
        partition.values,
        partition.location(),
        parameters,
        partition.create_time,
        kind,
    )
}

fn column(name: &str, type_name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: type_name.to_string(),
        comment: None,
    }
}

fn partition(ds: &str, hr: &str) -> Partition {
    Partition {
        values: vec![ds.to_string(), hr.to_string()],
        sd: Some(StorageDescriptor {
            location: Some(format!("s3a://b/t/ds={ds}/hr={hr}")),
            cols: vec![column("x", "int")],
            ..StorageDescriptor::default()
        }),
        ..Partition::default()
    }
}

fn store() -> Store {
    let mut options = StoreOptions::new("s3a://b/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    for name in ["db", "db2"] {
        let database = Database {
            name: name.into(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
    }
    store
        .create_table(Table {
            table_name: "t".into(),
            db_name: "db".into(),
            partition_keys: vec![column("ds", "string"), column("hr", "int")],
            sd: Some(StorageDescriptor {
                cols: vec![column("x", "int")],
                ..StorageDescriptor::default()
            }),
            ..Table::default()
        })
        .unwrap();
    let mut partitions = Vec::new();
    for day in 1..=9 {
        for hr in ["0", "1", "10", "2"] {
            partitions.push(partition(&format!("2024-01-0{day}"), hr));
        }
    }
    partitions.push(partition("a/b", "3"));
    add(&store, "db", "t", partitions);
    store
}

fn add(store: &Store, database: &str, table: &str, partitions: Vec<Partition>) {
    let options = AddPartitionsOptions::default();
    store
        .add_partitions("hive", database, table, partitions, &options)
        .unwrap();
}

/// The selections every check lists.
fn selections<'n>(names: &'n [&'n str]) -> Vec<PartitionSelection<'n>> {
    vec![
        PartitionSelection::All,
        PartitionSelection::Filter("ds >= \"2024-01-03\" and ds < \"2024-01-05\""),
        PartitionSelection::Filter("ds = \"2024-01-07\" and hr > 1"),
        PartitionSelection::Filter("hr = 10"),
        PartitionSelection::Filter("ds = \"a/b\" or ds > \"2024-01-08\""),
        PartitionSelection::Names(names),
    ]
}

const PARTIAL: &[&str] = &["2024-01-02", ""];

/// Writes `selection` through a sink of `kind`: what it wrote, and how many it encoded.
fn written(
    store: &Store,
    (database, table): (&str, &str),
    selection: PartitionSelection<'_>,
    max_parts: i32,
    kind: u32,
) -> (Vec<String>, usize) {
    let mut sink = TextSink {
        kind,
        ..TextSink::default()
    };
    let count = store
        .write_partitions("hive", database, table, selection, max_parts, &mut sink)
        .unwrap();
    assert_eq!(count, sink.written.len());
    (sink.written, sink.encoded_count)
}

/// Every selection, twice and in both kinds, against the partitions read from the store.
/// Answers how many partitions the second round encoded (0 when everything was kept).
fn check_listings(store: &Store, (database, table): (&str, &str)) -> usize {
    let wanted = [
        "ds=2024-01-03/hr=10",
        "ds=a%2Fb/hr=3",
        "ds=2024-01-01/hr=0",
        "ds=2024-01-03/hr=10",
        "ds=nope/hr=1",
    ];
    let partial: Vec<String> = PARTIAL.iter().map(|value| value.to_string()).collect();
    let mut all = selections(&wanted);
    all.push(PartitionSelection::PartialValues(&partial));
    // The names kept, as a planner's `get_partition_names` leaves them.
    store
        .list_partition_names("hive", database, table, -1)
        .unwrap();
    let mut encoded_again = 0;
    for round in 0..2 {
        for selection in &all {
            for max_parts in [-1, 3] {
                let expected: Vec<String> = store
                    .list_partitions_selected("hive", database, table, *selection, max_parts, false)
                    .unwrap()
                    .iter()
                    .map(|partition| text_of(partition, 1))
                    .collect();
                let (found, encoded) = written(store, (database, table), *selection, max_parts, 1);
                assert_eq!(found, expected, "{selection:?}, max_parts {max_parts}");
                if round == 1 {
                    encoded_again += encoded;
                }
            }
        }
    }
    encoded_again
}

#[test]
fn kept_listings_equal_listings_read_from_the_store() {
    let store = store();
    assert_eq!(
        check_listings(&store, ("db", "t")),
        0,
        "a warm listing encodes nothing"
    );
}

#[test]
fn adding_dropping_altering_and_renaming_partitions_invalidate_kept_encodings() {
    let store = store();
    check_listings(&store, ("db", "t"));
    add(&store, "db", "t", vec![partition("2024-01-04", "5")]);
    check_listings(&store, ("db", "t"));
    let values = ["2024-01-03".to_string(), "10".to_string()];
    store
        .drop_partition("hive", "db", "t", &values, false)
        .unwrap();
    check_listings(&store, ("db", "t"));
    let mut altered = store
        .get_partition("hive", "db", "t", &["2024-01-04".into(), "1".into()])
        .unwrap();
    altered.parameters.insert("touched".into(), "yes".into());
    if let Some(sd) = altered.sd.as_mut() {
        sd.location = Some("s3a://b/elsewhere".into());
    }
    store.alter_partition("hive", "db", "t", altered).unwrap();
    check_listings(&store, ("db", "t"));
    let old_values = ["2024-01-07".to_string(), "2".to_string()];
    let renamed = partition("2024-01-07", "22");
    store
        .rename_partition("hive", "db", "t", &old_values, renamed)
        .unwrap();
    check_listings(&store, ("db", "t"));
}

#[test]
fn renaming_or_moving_the_table_changes_the_kept_encodings() {
    let store = store();
    check_listings(&store, ("db", "t"));
    let mut table = store.get_table("hive", "db", "t").unwrap();
    table.table_name = "u".into();
    store.alter_table("hive", "db", "t", table).unwrap();
    check_listings(&store, ("db", "u"));
    let mut table = store.get_table("hive", "db", "u").unwrap();
    table.db_name = "db2".into();
    store.alter_table("hive", "db", "u", table).unwrap();
    check_listings(&store, ("db2", "u"));
    // An alter that changes nothing a partition's encoding holds keeps them.
    let mut table = store.get_table("hive", "db2", "u").unwrap();
    table.parameters.insert("comment".into(), "new".into());
    store.alter_table("hive", "db2", "u", table).unwrap();
    let selection = PartitionSelection::All;
    let (_, encoded) = written(&store, ("db2", "u"), selection, -1, 1);
    assert_eq!(encoded, 0);
}

#[test]
fn encodings_of_each_kind_are_kept_apart() {
    let store = store();
    store.list_partition_names("hive", "db", "t", -1).unwrap();
    let selection = PartitionSelection::All;
    let (first, _) = written(&store, ("db", "t"), selection, -1, 0);
    let (other, encoded) = written(&store, ("db", "t"), selection, -1, 7);
    assert_eq!(encoded, other.len(), "a new kind encodes every partition");
    assert!(other.iter().all(|text| text.ends_with("|7")));
    let (again, encoded) = written(&store, ("db", "t"), selection, -1, 0);
    assert_eq!((again, encoded), (first, 0));
}

#[test]
fn without_kept_names_a_second_listing_keeps_them() {
    let store = store();
    let filter = PartitionSelection::Filter("ds = \"2024-01-02\"");
    let (first, encoded) = written(&store, ("db", "t"), filter, -1, 1);
    assert_eq!((first.len(), encoded), (4, 4));
    let (second, _) = written(&store, ("db", "t"), filter, -1, 1);
    let (third, encoded) = written(&store, ("db", "t"), filter, -1, 1);
    assert_eq!((&second, &third), (&first, &first));
    assert_eq!(encoded, 0, "kept after the second listing");
}
