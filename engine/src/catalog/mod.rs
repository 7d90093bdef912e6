//! Catalogs, databases, tables and functions: their operations on the [`crate::Store`] with Hive's
//! semantics (names, default locations, table types, `alter_table`'s rules, drops), the
//! listings by name pattern and table filter, and the directories they make and delete.
//! The types they work on are plain data in `model/`.

pub(crate) mod catalogs;
pub(crate) mod column_type;
pub(crate) mod databases;
pub(crate) mod dir_users;
pub(crate) mod functions;
pub(crate) mod listing;
pub(crate) mod lookup;
pub(crate) mod owners;
pub(crate) mod pattern;
pub(crate) mod removal;
pub(crate) mod sweeper;
pub(crate) mod table_alter;
pub(crate) mod table_filter;
pub(crate) mod table_rules;
pub(crate) mod tables;
pub(crate) mod transactional;
