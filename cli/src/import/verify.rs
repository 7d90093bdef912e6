//! `--verify`: both sides read alike (`reads.rs`), object by object, and every difference
//! printed as `missing`, `extra` or `differs` with the fields (`compare.rs` says which count).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use hivestore_idl::hive_metastore::{HiveObjectRef, HiveObjectType, SQLAllTableConstraints};

use super::compare;
use super::copy::{column_names, partition_key_names};
use super::reads::{fine_grant_kinds, object_ref, Calls, Side, TableName, DEFAULT_CATALOG};

/// Compares two sides; hands each difference to `report` and returns how many there were.
pub struct Verifier<'a, S: Calls, C: Calls> {
    /// The source.
    pub source: &'a mut Side<S>,
    /// The copy.
    pub copy: &'a mut Side<C>,
    /// Partitions compared per read.
    pub batch_size: usize,
    /// Where differences go.
    pub report: &'a mut dyn FnMut(String),
    /// How many were reported.
    pub differences: u64,
}

impl<S: Calls, C: Calls> Verifier<'_, S, C> {
    fn differ(&mut self, line: String) {
        self.differences += 1;
        (self.report)(line);
    }

    /// Reports names in one list and not the other, as `missing` (source only) and `extra`.
    fn names<T: Ord + Debug>(&mut self, what: &str, source: &BTreeSet<T>, copy: &BTreeSet<T>) {
        for name in source.difference(copy) {
            self.differ(format!("missing in copy: {what} {name:?}"));
        }
        for name in copy.difference(source) {
            self.differ(format!("extra in copy: {what} {name:?}"));
        }
    }

    fn fields(&mut self, what: &str, lines: Vec<String>) {
        for line in lines {
            self.differ(format!("differs: {what}: {line}"));
        }
    }

    /// Compares everything; returns how many differences were reported.
    pub fn run(&mut self) -> Result<u64, String> {
        let source: BTreeMap<_, _> = self
            .source
            .catalogs()?
            .into_iter()
            .map(|catalog| (catalog.name.clone(), compare::catalog_record(catalog)))
            .collect();
        let copy: BTreeMap<_, _> = self
            .copy
            .catalogs()?
            .into_iter()
            .map(|catalog| (catalog.name.clone(), compare::catalog_record(catalog)))
            .collect();
        for (name, catalog) in &source {
            // The default catalog's location is the copy's warehouse.
            let default = name.as_deref() == Some(DEFAULT_CATALOG);
            match copy.get(name) {
                None => self.differ(format!("missing in copy: catalog {name:?}")),
                Some(had) if !default && had != catalog => self.differ(format!(
                    "differs: catalog {name:?}: source {catalog:?}, copy {had:?}"
                )),
                Some(_) => {}
            }
        }
        let roles = |roles: Vec<(String, Vec<_>)>| -> BTreeSet<String> {
            roles
                .into_iter()
                .flat_map(|(role, members)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(
                            |member: hivestore_idl::hive_metastore::RolePrincipalGrant| {
                                format!(
                                    "{role} member {:?} {:?}",
                                    member.principal_type, member.principal_name
                                )
                            },
                        )
                        .collect();
                    std::iter::once(role).chain(members)
                })
                .collect()
        };
        let (source_roles, copy_roles) = (roles(self.source.roles()?), roles(self.copy.roles()?));
        self.names("role", &source_roles, &copy_roles);
        self.privileges(HiveObjectType::GLOBAL, None, None, None)?;
        for catalog in self.source.catalog_names()? {
            self.catalog(&catalog)?;
        }
        for kind in fine_grant_kinds() {
            self.grants(kind)?;
        }
        Ok(self.differences)
    }

    fn catalog(&mut self, catalog: &str) -> Result<(), String> {
        let source: BTreeSet<String> = self.source.database_names(catalog)?.into_iter().collect();
        let copy: BTreeSet<String> = self.copy.database_names(catalog)?.into_iter().collect();
        self.names(&format!("database in catalog {catalog}"), &source, &copy);
        for database in source.intersection(&copy) {
            self.database(catalog, database)?;
        }
        Ok(())
    }

    fn database(&mut self, catalog: &str, name: &str) -> Result<(), String> {
        let (Some(source), Some(copy)) = (
            self.source.database(catalog, name)?,
            self.copy.database(catalog, name)?,
        ) else {
            return Ok(());
        };
        let lines =
            compare::database_differences(&compare::database(source), &compare::database(copy));
        self.fields(&format!("database {name}"), lines);
        let source: BTreeMap<_, _> = self
            .source
            .functions(catalog, name)?
            .into_iter()
            .map(|function| (function.function_name.clone(), compare::function(function)))
            .collect();
        let copy: BTreeMap<_, _> = self
            .copy
            .functions(catalog, name)?
            .into_iter()
            .map(|function| (function.function_name.clone(), compare::function(function)))
            .collect();
        let names = |functions: &BTreeMap<Option<String>, _>| -> BTreeSet<Option<String>> {
            functions.keys().cloned().collect()
        };
        self.names(
            &format!("function in {name}"),
            &names(&source),
            &names(&copy),
        );
        for (function, had) in &source {
            if let Some(copied) = copy.get(function) {
                let lines = compare::function_differences(had, copied);
                self.fields(
                    &format!("function {name}.{}", function.as_deref().unwrap_or("")),
                    lines,
                );
            }
        }
        self.privileges(HiveObjectType::DATABASE, Some(catalog), Some(name), None)?;
        let source: BTreeSet<String> = self
            .source
            .table_names(catalog, name)?
            .into_iter()
            .collect();
        let copy: BTreeSet<String> = self.copy.table_names(catalog, name)?.into_iter().collect();
        self.names(&format!("table in {name}"), &source, &copy);
        for table in source.intersection(&copy) {
            self.table(&TableName {
                catalog: catalog.to_string(),
                database: name.to_string(),
                table: table.clone(),
            })?;
        }
        Ok(())
    }

    fn table(&mut self, name: &TableName) -> Result<(), String> {
        let (Some(source), Some(copy)) = (self.source.table(name)?, self.copy.table(name)?) else {
            return Ok(());
        };
        let columns = column_names(&source);
        let keys = partition_key_names(&source);
        let lines = compare::table_differences(&compare::table(source), &compare::table(copy));
        self.fields(&format!("table {name}"), lines);
        let source = compare::statistics(self.source.table_statistics(name, &columns)?);
        let copy = compare::statistics(self.copy.table_statistics(name, &columns)?);
        self.statistics(&format!("table {name}"), &source, &copy);
        let source = self.source.constraints(name)?;
        let copy = self.copy.constraints(name)?;
        let (source, copy) = (constraint_rows(&source), constraint_rows(&copy));
        self.names(&format!("constraint of {name}"), &source, &copy);
        self.privileges(
            HiveObjectType::TABLE,
            Some(&name.catalog),
            Some(&name.database),
            Some(&name.table),
        )?;
        if !keys.is_empty() {
            self.partitions(name, &keys, &columns)?;
        }
        Ok(())
    }

    fn partitions(
        &mut self,
        name: &TableName,
        keys: &[String],
        columns: &[String],
    ) -> Result<(), String> {
        let source: BTreeSet<String> = self.source.partition_names(name)?.into_iter().collect();
        let copy: BTreeSet<String> = self.copy.partition_names(name)?.into_iter().collect();
        self.names(&format!("partition of {name}"), &source, &copy);
        let both: Vec<String> = source.intersection(&copy).cloned().collect();
        for batch in both.chunks(self.batch_size) {
            let source = self.source.partitions(name, keys, batch)?;
            let copy = self.copy.partitions(name, keys, batch)?;
            for (partition, had) in &source {
                if let Some(copied) = copy.get(partition) {
                    let lines = compare::partition_differences(
                        &compare::partition(had.clone()),
                        &compare::partition(copied.clone()),
                    );
                    self.fields(&format!("partition {name} {partition}"), lines);
                }
            }
            let source = self.source.partition_statistics(name, columns, batch)?;
            let copy = self.copy.partition_statistics(name, columns, batch)?;
            for partition in batch {
                let none = Vec::new();
                let had = source.get(partition).unwrap_or(&none);
                let copied = copy.get(partition).unwrap_or(&none);
                self.statistics(&format!("partition {name} {partition}"), had, copied);
            }
        }
        Ok(())
    }

    fn statistics(
        &mut self,
        what: &str,
        source: &[hivestore_idl::hive_metastore::ColumnStatisticsObj],
        copy: &[hivestore_idl::hive_metastore::ColumnStatisticsObj],
    ) {
        let by_column = |columns: &[hivestore_idl::hive_metastore::ColumnStatisticsObj]| {
            columns
                .iter()
                .map(|column| (column.col_name.clone(), format!("{:?}", column.stats_data)))
                .collect::<BTreeMap<_, _>>()
        };
        let (source, copy) = (by_column(source), by_column(copy));
        for (column, had) in &source {
            match copy.get(column) {
                None => self.differ(format!(
                    "missing in copy: statistics of {what} column {column}"
                )),
                Some(copied) if copied != had => self.differ(format!(
                    "differs: statistics of {what} column {column}: source {had}, copy {copied}"
                )),
                Some(_) => {}
            }
        }
        for column in copy.keys().filter(|column| !source.contains_key(*column)) {
            self.differ(format!(
                "extra in copy: statistics of {what} column {column}"
            ));
        }
    }

    fn privileges(
        &mut self,
        object_type: HiveObjectType,
        catalog: Option<&str>,
        database: Option<&str>,
        object: Option<&str>,
    ) -> Result<(), String> {
        self.grants(object_ref(object_type, catalog, database, object))
    }

    /// Compares the grants `object` selects: one object's, or (`grant_kinds`) every object's
    /// of a kind.
    fn grants(&mut self, object: HiveObjectRef) -> Result<(), String> {
        let normalise = |privileges: Vec<_>| -> BTreeSet<String> {
            privileges
                .into_iter()
                .map(|privilege| format!("{:?}", compare::privilege(privilege)))
                .collect()
        };
        let source = normalise(self.source.privileges(object.clone())?);
        let copy = normalise(self.copy.privileges(object)?);
        self.names("privilege", &source, &copy);
        Ok(())
    }
}

/// A table's constraints as comparable rows, each with its kind and its name.
fn constraint_rows(constraints: &SQLAllTableConstraints) -> BTreeSet<String> {
    let mut rows = BTreeSet::new();
    macro_rules! rows_of {
        ($field:ident) => {
            for row in constraints.$field.iter().flatten() {
                let mut row = row.clone();
                row.cat_name = None;
                rows.insert(format!("{} {:?}", stringify!($field), row));
            }
        };
    }
    rows_of!(primary_keys);
    rows_of!(foreign_keys);
    rows_of!(unique_constraints);
    rows_of!(not_null_constraints);
    rows_of!(default_constraints);
    rows_of!(check_constraints);
    rows
}
