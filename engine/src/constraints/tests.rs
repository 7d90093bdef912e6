//! Constraints on an in-memory store: Hive's rules and messages, names, reads by either end,
//! and the company they keep with tables (rename, drop, drop of a database), events.

use crate::error::Error;
use crate::events::EventFilter;
use crate::{
    ConstraintKind, ConstraintRow, FieldSchema, ForeignKeyFilter, ReferencedColumn, Store, Table,
};

use ConstraintKind::*;

fn store() -> Store {
    crate::store::memory_store_with_databases(&["db", "other"])
}

fn table(db: &str, name: &str, columns: &[(&str, &str)]) -> Table {
    let fields = columns
        .iter()
        .map(|(name, type_name)| FieldSchema {
            name: name.to_string(),
            type_name: type_name.to_string(),
            comment: None,
        })
        .collect();
    Table {
        db_name: db.to_string(),
        table_name: name.to_string(),
        partition_keys: vec![FieldSchema {
            name: "ds".to_string(),
            type_name: "string".to_string(),
            comment: None,
        }],
        sd: Some(crate::StorageDescriptor {
            cols: fields,
            ..crate::StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn row(
    kind: ConstraintKind,
    table: &str,
    column: &str,
    key_seq: i32,
    name: Option<&str>,
) -> ConstraintRow {
    ConstraintRow {
        key_seq,
        name: name.map(str::to_string),
        ..ConstraintRow::new(kind, "db", table, column)
    }
}

fn foreign(
    table: &str,
    column: &str,
    parent: &str,
    parent_column: &str,
    key_seq: i32,
    name: Option<&str>,
) -> ConstraintRow {
    ConstraintRow {
        referenced: Some(ReferencedColumn {
            db_name: "db".to_string(),
            table_name: parent.to_string(),
            column: parent_column.to_string(),
            key_name: None,
        }),
        ..row(ForeignKey, table, column, key_seq, name)
    }
}

/// `dim(id int, code string)` with primary key `pk_dim(id)` and unique `uk_code(code)`;
/// `fact(dim_id int, dim_code string, amount double)`.
fn star() -> Store {
    let store = store();
    store
        .create_table(table("db", "dim", &[("id", "int"), ("code", "string")]))
        .unwrap();
    store
        .create_table(table(
            "db",
            "fact",
            &[
                ("dim_id", "int"),
                ("dim_code", "string"),
                ("amount", "double"),
            ],
        ))
        .unwrap();
    store
        .add_constraints(
            PrimaryKey,
            vec![row(PrimaryKey, "dim", "ID", 1, Some("PK_Dim"))],
        )
        .unwrap();
    store
        .add_constraints(Unique, vec![row(Unique, "dim", "code", 1, Some("uk_code"))])
        .unwrap();
    store
}

fn fk_filter(parent: Option<&str>, foreign: Option<&str>) -> ForeignKeyFilter {
    ForeignKeyFilter {
        catalog: String::new(),
        parent_db: parent.map(|_| "db".to_string()),
        parent_table: parent.map(str::to_string),
        foreign_db: foreign.map(|_| "db".to_string()),
        foreign_table: foreign.map(str::to_string),
    }
}

fn message(error: Error) -> String {
    match error {
        Error::InvalidObject(message) | Error::Refused(message) | Error::NoSuchObject(message) => {
            message
        }
        other => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn keys_round_trip_normalised_with_their_flags() {
    let store = star();
    let pk = store
        .table_constraints("", "DB", "Dim", PrimaryKey)
        .unwrap();
    assert_eq!(pk.len(), 1);
    assert_eq!(pk[0].name.as_deref(), Some("pk_dim"));
    assert_eq!(pk[0].column.as_deref(), Some("id"));
    assert_eq!(
        (pk[0].catalog.as_str(), pk[0].db_name.as_str()),
        ("hive", "db")
    );
    let mut flagged = foreign("fact", "dim_id", "dim", "id", 1, None);
    (flagged.enable, flagged.validate, flagged.rely) = (false, true, true);
    flagged.update_rule = Some(1);
    let added = store.add_constraints(ForeignKey, vec![flagged]).unwrap();
    let generated = added[0].name.clone().unwrap();
    assert!(generated.starts_with("fk_"), "{generated}");
    let read = store.foreign_keys(&fk_filter(None, Some("fact"))).unwrap();
    assert_eq!(read.len(), 1);
    let fk = &read[0];
    assert_eq!(fk.name.as_deref(), Some(generated.as_str()));
    assert_eq!((fk.enable, fk.validate, fk.rely), (false, true, true));
    assert_eq!(fk.update_rule, Some(1));
    let referenced = fk.referenced.as_ref().unwrap();
    assert_eq!(referenced.table_name, "dim");
    assert_eq!(referenced.column, "id");
    assert_eq!(referenced.key_name.as_deref(), Some("pk_dim"));
    // From the parent's end, the same key.
    assert_eq!(
        store.foreign_keys(&fk_filter(Some("dim"), None)).unwrap(),
        read
    );
    assert_eq!(
        store
            .foreign_keys(&fk_filter(Some("dim"), Some("fact")))
            .unwrap(),
        read
    );
    assert!(store
        .foreign_keys(&fk_filter(Some("fact"), None))
        .unwrap()
        .is_empty());
}

#[test]
fn composite_keys_keep_their_key_seq_and_one_generated_name() {
    let store = store();
    store
        .create_table(table("db", "t", &[("a", "int"), ("b", "int")]))
        .unwrap();
    let rows = vec![
        row(PrimaryKey, "t", "b", 2, None),
        row(PrimaryKey, "t", "a", 1, None),
    ];
    // Rows up to the next KEY_SEQ 1 make one key: here the KEY_SEQ 1 row starts a second
    // name, and a table has one primary key.
    let error = store.add_constraints(PrimaryKey, rows).unwrap_err();
    assert_eq!(message(error), " Primary key already exists for: hive.db.t");
    let rows = vec![
        row(PrimaryKey, "t", "a", 1, None),
        row(PrimaryKey, "t", "b", 2, None),
    ];
    let added = store.add_constraints(PrimaryKey, rows).unwrap();
    assert_eq!(added[0].name, added[1].name);
    let read = store
        .table_constraints("hive", "db", "t", PrimaryKey)
        .unwrap();
    let columns: Vec<_> = read
        .iter()
        .map(|r| (r.column.clone().unwrap(), r.key_seq))
        .collect();
    assert_eq!(columns, [("a".to_string(), 1), ("b".to_string(), 2)]);
    let again = vec![row(PrimaryKey, "t", "a", 1, Some("other"))];
    let error = store.add_constraints(PrimaryKey, again).unwrap_err();
    assert_eq!(message(error), " Primary key already exists for: hive.db.t");
}

#[test]
fn hive_refuses_bad_constraints_with_its_messages_and_writes_nothing() {
    let store = star();
    let before = store.current_event_id().unwrap();
    let cases = [
        (
            row(NotNull, "nope", "a", 1, None),
            "Parent table not found: nope",
        ),
        (
            row(NotNull, "dim", "nope", 1, None),
            "Parent column not found: nope",
        ),
        (
            row(Unique, "dim", "id", 1, Some("PK_DIM")),
            "Constraint name already exists: db.dim.pk_dim",
        ),
        (
            foreign("nope", "a", "dim", "id", 1, None),
            "Child table not found: nope",
        ),
        (
            foreign("fact", "dim_id", "nope", "id", 1, None),
            "Parent table not found: nope",
        ),
        (
            foreign("fact", "nope", "dim", "id", 1, None),
            "Child column not found: nope",
        ),
        (
            foreign("fact", "dim_id", "dim", "nope", 1, None),
            "Parent column not found: nope",
        ),
        (
            foreign("fact", "dim_id", "dim", "code", 1, None),
            "Foreign key references code:int; but no corresponding primary key or unique key \
             exists. Possible keys: [code:string;, id:int;]",
        ),
        (
            foreign("fact", "amount", "fact", "amount", 1, None),
            "Trying to define foreign key but there are no primary keys or unique keys for \
             referenced table",
        ),
    ];
    for (bad, expected) in cases {
        let kind = bad.kind;
        let error = store.add_constraints(kind, vec![bad]).unwrap_err();
        assert_eq!(message(error), expected);
    }
    // The name is per parent table: another table may use it.
    store
        .add_constraints(
            NotNull,
            vec![row(NotNull, "fact", "amount", 1, Some("pk_dim"))],
        )
        .unwrap();
    // A foreign key's parent is the table it references: its name may not be one of the
    // referenced table's.
    let clash = foreign("fact", "dim_id", "dim", "id", 1, Some("uk_code"));
    let error = store.add_constraints(ForeignKey, vec![clash]).unwrap_err();
    assert_eq!(
        message(error),
        "Constraint name already exists: db.dim.uk_code"
    );
    let spanning = ConstraintRow {
        catalog: "spark".to_string(),
        ..foreign("fact", "dim_id", "dim", "id", 1, None)
    };
    let rows = vec![foreign("fact", "dim_id", "dim", "id", 1, None), spanning];
    let error = store.add_constraints(ForeignKey, rows).unwrap_err();
    assert_eq!(message(error), "Foreign keys cannot span catalogs");
    assert_eq!(store.current_event_id().unwrap(), before + 1);
    assert!(store
        .foreign_keys(&fk_filter(None, Some("fact")))
        .unwrap()
        .is_empty());
}

#[test]
fn a_foreign_key_may_reference_a_unique_key_and_its_own_table() {
    let store = star();
    store
        .add_constraints(
            ForeignKey,
            vec![foreign(
                "fact",
                "dim_code",
                "dim",
                "code",
                1,
                Some("fk_code"),
            )],
        )
        .unwrap();
    store
        .create_table(table("db", "tree", &[("id", "int"), ("parent", "int")]))
        .unwrap();
    store
        .add_constraints(PrimaryKey, vec![row(PrimaryKey, "tree", "id", 1, None)])
        .unwrap();
    let error = store
        .add_constraints(
            ForeignKey,
            vec![foreign("tree", "id", "tree", "id", 1, None)],
        )
        .unwrap_err();
    assert_eq!(
        message(error),
        "Cannot be both foreign key and primary/unique key on same table: id:int;"
    );
    store
        .add_constraints(
            ForeignKey,
            vec![foreign(
                "tree",
                "parent",
                "tree",
                "id",
                1,
                Some("fk_parent"),
            )],
        )
        .unwrap();
    let read = store
        .foreign_keys(&fk_filter(Some("tree"), Some("tree")))
        .unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].column.as_deref(), Some("parent"));
}

#[test]
fn single_column_kinds_carry_their_values() {
    let store = star();
    let mut default = row(Default, "fact", "amount", 1, None);
    default.value = Some("0.0".to_string());
    let mut check = row(Check, "fact", "amount", 1, Some("positive"));
    check.value = Some("amount >= 0".to_string());
    let mut table_check = row(Check, "fact", "", 1, Some("whole"));
    table_check.column = None;
    table_check.value = Some("dim_id > 0".to_string());
    store.add_constraints(Default, vec![default]).unwrap();
    store
        .add_constraints(Check, vec![check, table_check])
        .unwrap();
    store
        .add_constraints(NotNull, vec![row(NotNull, "fact", "dim_id", 1, None)])
        .unwrap();
    let defaults = store
        .table_constraints("hive", "db", "fact", Default)
        .unwrap();
    assert_eq!(defaults[0].value.as_deref(), Some("0.0"));
    assert!(defaults[0].name.as_deref().unwrap().starts_with("dc_"));
    let checks = store
        .table_constraints("hive", "db", "fact", Check)
        .unwrap();
    let checks: Vec<_> = checks
        .iter()
        .map(|r| {
            (
                r.name.clone().unwrap(),
                r.column.clone(),
                r.value.clone().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        checks,
        [
            (
                "positive".to_string(),
                Some("amount".to_string()),
                "amount >= 0".to_string()
            ),
            ("whole".to_string(), None, "dim_id > 0".to_string()),
        ]
    );
    let not_null = store
        .table_constraints("hive", "db", "fact", NotNull)
        .unwrap();
    assert!(not_null[0].name.as_deref().unwrap().starts_with("nn_"));
    assert!(store
        .table_constraints("hive", "db", "missing", NotNull)
        .unwrap()
        .is_empty());
}

#[test]
fn a_rename_carries_constraints_and_a_drop_takes_them() {
    let store = star();
    store
        .add_constraints(
            ForeignKey,
            vec![foreign("fact", "dim_id", "dim", "id", 1, Some("fk_dim"))],
        )
        .unwrap();
    let mut renamed = store.get_table("hive", "db", "dim").unwrap();
    renamed.table_name = "dimension".to_string();
    renamed.db_name = "other".to_string();
    store.alter_table("hive", "db", "dim", renamed).unwrap();
    let pk = store
        .table_constraints("hive", "other", "dimension", PrimaryKey)
        .unwrap();
    assert_eq!(pk[0].table_name, "dimension");
    let fks = store.foreign_keys(&fk_filter(None, Some("fact"))).unwrap();
    let referenced = fks[0].referenced.as_ref().unwrap();
    assert_eq!(
        (referenced.db_name.as_str(), referenced.table_name.as_str()),
        ("other", "dimension")
    );
    // Dropping the referenced table takes the foreign keys that reference it, as Hive does.
    store.drop_table("hive", "other", "dimension").unwrap();
    assert!(store
        .foreign_keys(&fk_filter(None, Some("fact")))
        .unwrap()
        .is_empty());
    assert!(store
        .foreign_keys(&ForeignKeyFilter::default())
        .unwrap()
        .is_empty());
    // A table made again under the old name starts with none.
    store
        .create_table(table("other", "dimension", &[("id", "int")]))
        .unwrap();
    assert!(store
        .table_constraints("hive", "other", "dimension", PrimaryKey)
        .unwrap()
        .is_empty());
}

#[test]
fn dropping_the_child_or_the_database_takes_the_foreign_keys() {
    let store = star();
    store
        .add_constraints(
            ForeignKey,
            vec![foreign("fact", "dim_id", "dim", "id", 1, Some("fk_dim"))],
        )
        .unwrap();
    store.drop_table("hive", "db", "fact").unwrap();
    assert!(store
        .foreign_keys(&fk_filter(Some("dim"), None))
        .unwrap()
        .is_empty());
    store.drop_database("hive", "db", true).unwrap();
    let everything = store.foreign_keys(&ForeignKeyFilter::default()).unwrap();
    assert!(everything.is_empty());
    let prefix = [crate::keys::KEYSPACE_CONSTRAINT];
    let left = store.scan(crate::kv::KeyRange::prefix(&prefix)).count();
    assert_eq!(left, 0);
}

#[test]
fn drop_constraint_by_name_from_either_end() {
    let store = star();
    store
        .add_constraints(
            ForeignKey,
            vec![foreign("fact", "dim_id", "dim", "id", 1, Some("fk_dim"))],
        )
        .unwrap();
    let error = store
        .drop_constraint("hive", "db", "Fact", "Nope")
        .unwrap_err();
    assert_eq!(
        message(error),
        "The constraint: Nope does not exist for the associated table: db.Fact"
    );
    let error = store
        .drop_constraint("hive", "db", "missing", "fk_dim")
        .unwrap_err();
    assert!(matches!(error, Error::NoSuchObject(_)));
    // The primary key goes even though a foreign key references it; the key stays and
    // names no primary key any more.
    store
        .drop_constraint("hive", "db", "dim", "PK_DIM")
        .unwrap();
    let fks = store.foreign_keys(&fk_filter(None, Some("fact"))).unwrap();
    assert_eq!(fks[0].referenced.as_ref().unwrap().key_name, None);
    store
        .drop_constraint("hive", "db", "fact", "fk_dim")
        .unwrap();
    assert!(store
        .foreign_keys(&fk_filter(None, Some("fact")))
        .unwrap()
        .is_empty());
    let kinds: Vec<_> = store
        .next_events(0, 100, &EventFilter::default())
        .unwrap()
        .iter()
        .map(|event| event.record.kind.hive_name())
        .filter(|name| name.contains("CONSTRAINT") || name.contains("KEY"))
        .collect();
    assert_eq!(
        kinds,
        [
            "ADD_PRIMARYKEY",
            "ADD_UNIQUECONSTRAINT",
            "ADD_FOREIGNKEY",
            "DROP_CONSTRAINT",
            "DROP_CONSTRAINT"
        ]
    );
}

#[test]
fn a_table_is_created_with_its_constraints_in_one_write() {
    let store = star();
    let new = table(
        "db",
        "sales",
        &[("id", "int"), ("dim_id", "int"), ("qty", "int")],
    );
    let mut rows = vec![
        foreign("sales", "dim_id", "dim", "id", 1, None),
        foreign("sales", "id", "sales", "id", 1, None),
        row(PrimaryKey, "sales", "id", 1, None),
        row(NotNull, "sales", "qty", 1, None),
    ];
    // The second foreign key is its own primary key's columns: the whole create fails.
    let before = store.current_event_id().unwrap();
    let error = store
        .create_table_with_constraints(new.clone(), rows.clone())
        .unwrap_err();
    assert!(message(error).starts_with("Cannot be both foreign key"));
    assert!(store.get_table("hive", "db", "sales").is_err());
    assert_eq!(store.current_event_id().unwrap(), before);
    rows.remove(1);
    let (created, added) = store.create_table_with_constraints(new, rows).unwrap();
    assert_eq!(created.table_name, "sales");
    assert_eq!(added.len(), 3);
    assert_eq!(
        store
            .table_constraints("hive", "db", "sales", PrimaryKey)
            .unwrap()
            .len(),
        1
    );
    let events = store
        .next_events(before, 100, &EventFilter::default())
        .unwrap();
    let kinds: Vec<_> = events.iter().map(|e| e.record.kind.hive_name()).collect();
    assert_eq!(
        kinds,
        [
            "CREATE_TABLE",
            "ADD_PRIMARYKEY",
            "ADD_FOREIGNKEY",
            "ADD_NOTNULLCONSTRAINT"
        ]
    );
    // The foreign key's event names the referenced table, as Hive's listener does.
    assert_eq!(events[2].record.table_name, "dim");
}
