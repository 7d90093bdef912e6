//! Listings by Hive's name patterns and table filters: `get_databases`,
//! `get_tables`, `get_tables_by_type`, `get_table_meta`,
//! `get_table_names_by_filter`.
//!
//! As in Hive, listing the tables of a database that does not exist gives
//! an empty list, not an error.

use crate::catalog::lookup::{catalog_or_default, find_database_id};
use crate::catalog::pattern::NamePattern;
use crate::catalog::table_filter::TableFilter;
use crate::error::Result;
use crate::model::names;
use crate::model::principal::PrincipalType;
use crate::model::table::Table;
use crate::store::Store;

/// Hive's `TableMeta`: what `get_table_meta` returns for a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMeta {
    /// The database.
    pub db_name: String,
    /// The table.
    pub table_name: String,
    /// The table type (`MANAGED_TABLE`, `EXTERNAL_TABLE`, `VIRTUAL_VIEW`, ...).
    pub table_type: String,
    /// The table parameter `comment`.
    pub comments: Option<String>,
    /// The owner.
    pub owner_name: Option<String>,
    /// The owner's principal type.
    pub owner_type: Option<PrincipalType>,
    /// The catalog.
    pub cat_name: String,
}

impl TableMeta {
    fn of(table: &Table) -> Self {
        TableMeta {
            db_name: table.db_name.clone(),
            table_name: table.table_name.clone(),
            table_type: table.table_type.clone().unwrap_or_default(),
            comments: table.parameters.get("comment").cloned(),
            owner_name: table.owner.clone(),
            owner_type: table.owner_type,
            cat_name: table.cat_name.clone(),
        }
    }
}

impl Store {
    /// Hive's `get_databases(pattern)`: the databases of `catalog` whose
    /// name matches `pattern` (see [`NamePattern`]), ascending.
    pub fn list_databases_matching(
        &self,
        catalog: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        let pattern = NamePattern::new(pattern)?;
        let mut names = self.list_databases(&catalog_or_default(catalog))?;
        names.retain(|name| pattern.matches(name));
        Ok(names)
    }

    /// Hive's `get_tables(db, pattern)` and `get_tables_by_type(db, pattern,
    /// type)`: the tables of `catalog.database` whose name matches `pattern`
    /// and, if given, whose type is `table_type`; ascending. A missing
    /// database gives an empty list.
    pub fn list_tables_matching(
        &self,
        catalog: &str,
        database: &str,
        pattern: Option<&str>,
        table_type: Option<&str>,
    ) -> Result<Vec<String>> {
        let pattern = NamePattern::new(pattern)?;
        let Some(table_type) = table_type else {
            // Names only: the name index answers without reading a value.
            let (catalog, database) = (catalog_or_default(catalog), names::normalize(database));
            if find_database_id(self.reader(), &catalog, &database)?.is_none() {
                return Ok(Vec::new());
            }
            let mut names = self.list_tables(&catalog, &database)?;
            names.retain(|name| pattern.matches(name));
            return Ok(names);
        };
        let table_type = Some(table_type);
        let tables = self.tables_matching(catalog, database, &pattern)?;
        Ok(tables
            .into_iter()
            .filter(|table| {
                table_type.is_none_or(|wanted| table.table_type.as_deref() == Some(wanted))
            })
            .map(|table| table.table_name)
            .collect())
    }

    /// Hive's `get_table_meta(db_patterns, tbl_patterns, tbl_types)`: a
    /// [`TableMeta`] for each table whose database and name match the
    /// patterns and whose type is in `table_types` (empty: any), ordered by
    /// database, then name.
    pub fn get_table_meta(
        &self,
        catalog: &str,
        database_pattern: Option<&str>,
        table_pattern: Option<&str>,
        table_types: &[String],
    ) -> Result<Vec<TableMeta>> {
        let catalog = catalog_or_default(catalog);
        let table_pattern = NamePattern::new(table_pattern)?;
        let mut metas = Vec::new();
        for database in self.list_databases_matching(&catalog, database_pattern)? {
            for table in self.tables_matching(&catalog, &database, &table_pattern)? {
                let type_wanted = table_types.is_empty()
                    || table
                        .table_type
                        .as_ref()
                        .is_some_and(|table_type| table_types.contains(table_type));
                if type_wanted {
                    metas.push(TableMeta::of(&table));
                }
            }
        }
        Ok(metas)
    }

    /// Hive 4's `get_materialized_views_for_rewriting` and
    /// `get_all_materialized_view_objects_for_rewriting`: the materialized views of
    /// `catalog.database` (every database of `catalog` when `database` is `None`) with
    /// rewriting enabled, by database, then name. With `whole`, each as [`Store::get_table`]
    /// answers it (its creation metadata's sources filled); otherwise only their names are
    /// meant to be read. A database that does not exist has none, as in Hive.
    pub fn materialized_views_for_rewriting(
        &self,
        catalog: &str,
        database: Option<&str>,
        whole: bool,
    ) -> Result<Vec<Table>> {
        let catalog = catalog_or_default(catalog);
        let databases = match database {
            Some(database) => vec![names::normalize(database)],
            None => self.list_databases(&catalog)?,
        };
        let mut views = Vec::new();
        for database in databases {
            let Some(database_id) = find_database_id(self.reader(), &catalog, &database)? else {
                continue;
            };
            for view in self.table_views_of(database_id)? {
                let archived = view.archived()?;
                let is_view = archived.table_type.as_ref().map(|kind| kind.as_str())
                    == Some(crate::model::table::MATERIALIZED_VIEW);
                if !is_view || archived.rewrite_enabled.as_ref() != Some(&true) {
                    continue;
                }
                let mut table = view.to_owned()?;
                if whole {
                    if let Some(metadata) = &mut table.creation_metadata {
                        let id = crate::storage::keys::TableId(table.id.unsigned_abs());
                        self.fill_view_sources(id, metadata)?;
                    }
                }
                views.push(table);
            }
        }
        Ok(views)
    }

    /// Hive's `get_table_names_by_filter(db, filter, max_tables)`: the names
    /// of the tables of `catalog.database` passing `filter` (see
    /// [`TableFilter`]), ascending, at most `max` of them. A filter that
    /// does not parse is [`crate::Error::InvalidInput`] quoting it.
    pub fn list_table_names_by_filter(
        &self,
        catalog: &str,
        database: &str,
        filter: &str,
        max: Option<usize>,
    ) -> Result<Vec<String>> {
        let filter = TableFilter::parse(filter)?;
        let all = NamePattern::new(None)?;
        Ok(self
            .tables_matching(catalog, database, &all)?
            .into_iter()
            .filter(|table| filter.matches(table))
            .take(max.unwrap_or(usize::MAX))
            .map(|table| table.table_name)
            .collect())
    }

    /// The tables of `catalog.database` whose name matches, by name.
    fn tables_matching(
        &self,
        catalog: &str,
        database: &str,
        pattern: &NamePattern,
    ) -> Result<Vec<Table>> {
        let (catalog, database) = (catalog_or_default(catalog), names::normalize(database));
        let Some(database_id) = find_database_id(self.reader(), &catalog, &database)? else {
            return Ok(Vec::new());
        };
        let mut tables = Vec::new();
        for view in self.table_views_of(database_id)? {
            let name_matches = pattern.matches(view.archived()?.table_name.as_str());
            if name_matches {
                tables.push(view.to_owned()?);
            }
        }
        Ok(tables)
    }
}
