//! Table constraints as plain data: one [`ConstraintRow`] per column of a constraint, the
//! shape of Hive's `SQLPrimaryKey`, `SQLForeignKey`, ... rows, and the stored form, one
//! [`StoredConstraint`] per constraint.

use rkyv::{Archive, Deserialize, Serialize};

use crate::storage::values::{stored_value, ValueKind};

/// The six kinds of Hive's table constraints.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Archive, Serialize, Deserialize,
)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum ConstraintKind {
    /// `PRIMARY KEY`: one per table.
    PrimaryKey = 1,
    /// `FOREIGN KEY ... REFERENCES`: its parent is the table it references.
    ForeignKey = 2,
    /// `UNIQUE`.
    Unique = 3,
    /// `NOT NULL`: one column each.
    NotNull = 4,
    /// `DEFAULT value`: one column each.
    Default = 5,
    /// `CHECK (expression)`: one column, or none for a table-level check.
    Check = 6,
}

impl ConstraintKind {
    /// Every kind, in the order Hive's handler logs the events of a table created with
    /// constraints: primary, foreign, unique, not null, check, default.
    pub const EVENT_ORDER: [ConstraintKind; 6] = [
        ConstraintKind::PrimaryKey,
        ConstraintKind::ForeignKey,
        ConstraintKind::Unique,
        ConstraintKind::NotNull,
        ConstraintKind::Check,
        ConstraintKind::Default,
    ];

    /// The byte that names the kind in a constraint key.
    pub fn tag(self) -> u8 {
        self as u8
    }

    /// The kind a key's byte names.
    pub fn from_tag(tag: u8) -> Option<ConstraintKind> {
        ConstraintKind::EVENT_ORDER
            .into_iter()
            .find(|kind| kind.tag() == tag)
    }

    /// The last parameter of Hive's generated names (`generateConstraintName`): default and
    /// check constraints share `dc`.
    pub fn name_suffix(self) -> &'static str {
        match self {
            ConstraintKind::PrimaryKey => "pk",
            ConstraintKind::ForeignKey => "fk",
            ConstraintKind::Unique => "uk",
            ConstraintKind::NotNull => "nn",
            ConstraintKind::Default | ConstraintKind::Check => "dc",
        }
    }

    /// Whether a constraint of this kind spans columns by `KEY_SEQ`; the others are one
    /// column each.
    pub fn has_key_columns(self) -> bool {
        matches!(
            self,
            ConstraintKind::PrimaryKey | ConstraintKind::ForeignKey | ConstraintKind::Unique
        )
    }
}

/// The column a foreign key references.
#[derive(Debug, Clone, PartialEq, Eq, Default, Archive, Serialize, Deserialize)]
pub struct ReferencedColumn {
    /// The referenced (parent) table's database.
    pub db_name: String,
    /// The referenced table.
    pub table_name: String,
    /// The referenced column.
    pub column: String,
    /// On reads, the name of the referenced table's primary key, if it has one (Hive names it
    /// whether the foreign key references the primary key or a unique constraint).
    pub key_name: Option<String>,
}

/// One column of a constraint, as Hive's `SQL*` structs carry it.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct ConstraintRow {
    /// The kind.
    pub kind: ConstraintKind,
    /// The catalog; empty means `hive`.
    pub catalog: String,
    /// The database of the table the constraint is declared on (a foreign key's child).
    pub db_name: String,
    /// That table.
    pub table_name: String,
    /// The column; a check constraint may have none.
    pub column: Option<String>,
    /// The column's position in the key, from 1 (`KEY_SEQ`); 1 for one-column kinds.
    pub key_seq: i32,
    /// The constraint's name; generated when absent on the first column.
    pub name: Option<String>,
    /// For a foreign key, the column it references.
    pub referenced: Option<ReferencedColumn>,
    /// A default constraint's value, a check constraint's expression.
    pub value: Option<String>,
    /// A foreign key's `update_rule`, kept as given.
    pub update_rule: Option<i32>,
    /// A foreign key's `delete_rule`, kept as given.
    pub delete_rule: Option<i32>,
    /// `ENABLE`.
    pub enable: bool,
    /// `VALIDATE`.
    pub validate: bool,
    /// `RELY`.
    pub rely: bool,
}

impl ConstraintRow {
    /// A row of `kind` on `db.table`, column `column`, every other field empty or false.
    pub fn new(kind: ConstraintKind, db_name: &str, table_name: &str, column: &str) -> Self {
        ConstraintRow {
            kind,
            catalog: String::new(),
            db_name: db_name.to_string(),
            table_name: table_name.to_string(),
            column: Some(column.to_string()),
            key_seq: 1,
            name: None,
            referenced: None,
            value: None,
            update_rule: None,
            delete_rule: None,
            enable: false,
            validate: false,
            rely: false,
        }
    }

    /// Hive's `enableValidateRely` bits: 4 enable, 2 validate, 1 rely.
    pub fn flags(&self) -> u8 {
        (u8::from(self.enable) << 2) | (u8::from(self.validate) << 1) | u8::from(self.rely)
    }
}

/// One column of a stored constraint.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct StoredColumn {
    /// `KEY_SEQ`.
    pub key_seq: i32,
    /// The column of the table the constraint is declared on (none: a table-level check).
    pub column: Option<String>,
    /// A foreign key's referenced column.
    pub referenced_column: Option<String>,
    /// A foreign key's update rule.
    pub update_rule: Option<i32>,
    /// A foreign key's delete rule.
    pub delete_rule: Option<i32>,
    /// Hive's `enableValidateRely` bits.
    pub flags: u8,
}

/// A constraint as stored under its parent table (`0x0E 0x01`).
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct StoredConstraint {
    /// The id of the table it is declared on: the parent itself, or a foreign key's child.
    pub table_id: u64,
    /// A default constraint's value, a check constraint's expression.
    pub value: Option<String>,
    /// Its columns, in `KEY_SEQ` order.
    pub columns: Vec<StoredColumn>,
}

stored_value!(StoredConstraint, ValueKind::Constraint);
