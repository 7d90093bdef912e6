//! Permanent functions (Hive's `CREATE FUNCTION`) and table constraints (primary, foreign
//! and unique keys, not null, default, check).

use hivestore_engine::{ConstraintKind, ConstraintRow, ForeignKeyFilter, Function, Result, Table};

use crate::Metastore;

impl Metastore {
    /// Creates `function` in its catalog (empty: `hive`) and database, which must exist.
    ///
    /// # Example
    ///
    /// ```
    /// use hivestore::{Function, Metastore, StoreOptions};
    ///
    /// let metastore = Metastore::in_memory(StoreOptions::new("s3a://bucket/warehouse"))?;
    /// metastore.create_function(Function {
    ///     function_name: "To_Upper".into(),
    ///     db_name: "default".into(),
    ///     class_name: "com.example.ToUpper".into(),
    ///     ..Function::default()
    /// })?;
    /// assert_eq!(metastore.list_functions("hive", "default", Some("to_*"))?, vec!["to_upper"]);
    /// let found = metastore.get_function("hive", "default", "TO_UPPER")?.unwrap();
    /// assert_eq!(found.class_name, "com.example.ToUpper");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_function(&self, function: Function) -> Result<Function> {
        self.settled(|store| store.create_function(function))
    }

    /// Function `catalog.database.name`, if there is one.
    pub fn get_function(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
    ) -> Result<Option<Function>> {
        self.settled(|store| store.get_function(catalog, database, name))
    }

    /// The names of the functions of `catalog.database` matching Hive's `pattern` (`None`:
    /// all), ascending.
    pub fn list_functions(
        &self,
        catalog: &str,
        database: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        self.settled(|store| store.list_functions_matching(catalog, database, pattern))
    }

    /// Every function of every database of `catalog` (Hive's `get_all_functions`, which
    /// engines read at start to register them).
    pub fn all_functions(&self, catalog: &str) -> Result<Vec<Function>> {
        self.settled(|store| store.all_functions(catalog))
    }

    /// Replaces function `catalog.database.name` with `function` (which may carry a new
    /// name or database).
    pub fn alter_function(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        function: Function,
    ) -> Result<Function> {
        self.settled(|store| store.alter_function(catalog, database, name, function))
    }

    /// Drops function `catalog.database.name`; returns it as it was.
    pub fn drop_function(&self, catalog: &str, database: &str, name: &str) -> Result<Function> {
        self.settled(|store| store.drop_function(catalog, database, name))
    }

    /// Creates `table` and its `constraints` in one write, with Hive's checks (the columns
    /// exist, one primary key, foreign keys reference a primary or unique key) and Hive's
    /// generated names for constraints given none.
    pub fn create_table_with_constraints(
        &self,
        table: Table,
        constraints: Vec<ConstraintRow>,
    ) -> Result<(Table, Vec<ConstraintRow>)> {
        self.settled(|store| store.create_table_with_constraints(table, constraints))
    }

    /// Adds constraints of one `kind` to existing tables, all or none; returns the rows as
    /// stored (with generated names).
    pub fn add_constraints(
        &self,
        kind: ConstraintKind,
        rows: Vec<ConstraintRow>,
    ) -> Result<Vec<ConstraintRow>> {
        self.settled(|store| store.add_constraints(kind, rows))
    }

    /// The constraints of `kind` declared on table `catalog.database.name`, a row per
    /// column, in key order. Foreign keys are read with [`Metastore::foreign_keys`].
    pub fn table_constraints(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        kind: ConstraintKind,
    ) -> Result<Vec<ConstraintRow>> {
        self.settled(|store| store.table_constraints(catalog, database, name, kind))
    }

    /// The foreign keys `filter` selects: those of a child table, those referencing a
    /// parent table, or both.
    pub fn foreign_keys(&self, filter: &ForeignKeyFilter) -> Result<Vec<ConstraintRow>> {
        self.settled(|store| store.foreign_keys(filter))
    }

    /// Drops constraint `constraint` (every row of it) of table `catalog.database.name`.
    pub fn drop_constraint(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        constraint: &str,
    ) -> Result<()> {
        self.settled(|store| store.drop_constraint(catalog, database, name, constraint))
    }
}
