//! The copy: every object of the source written to the store through the handler's `Session`,
//! so that every Hive rule applies as it does for a client. Each object is read on both sides
//! and written only when missing or different (`compare.rs`), which makes a second run, or a
//! run after an interruption, finish the job without duplicating anything: progress is what
//! the copy holds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hivestore_idl::handler::Handler;
use hivestore_idl::hive_metastore::{
    AddCheckConstraintRequest, AddDefaultConstraintRequest, AddForeignKeyRequest,
    AddNotNullConstraintRequest, AddPrimaryKeyRequest, AddUniqueConstraintRequest,
    ColumnStatistics, ColumnStatisticsDesc, ColumnStatisticsObj, CreateCatalogRequest,
    HiveObjectRef, HiveObjectType, Partition, PrincipalType, PrivilegeBag, Role,
    SQLAllTableConstraints, SetPartitionsStatsRequest, Table,
};
use hivestore_thrift::service::{ServerState, Session};

use super::compare;
use super::progress::Counters;
use super::reads::{
    copy_session, failed, fine_grant_kinds, grant_kinds, object_ref, qualified_database, CopyCalls,
    Dialect, Side, SourceCalls, TableName, STATISTICS_ENGINE,
};

/// How many partitions are read and written per call, by default (`--batch-size`).
pub const PARTITION_BATCH_SIZE_DEFAULT: usize = 500;
/// The most partitions one batch may hold: a batch is held in memory on both sides.
pub const PARTITION_BATCH_SIZE_MAX: usize = 10_000;
/// How many connections to the source partitions are read over, by default (`--connections`).
pub const CONNECTIONS_DEFAULT: usize = 4;
/// The most connections to the source: a source serves other clients meanwhile.
pub const CONNECTIONS_MAX: usize = 64;

/// Which constraints a table's copy writes: foreign keys need their parent table's key, so
/// the import adds them once every table is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraints {
    /// Primary keys, unique, not-null, default and check constraints.
    Own,
    /// Foreign keys.
    Foreign,
    /// Both.
    All,
}

/// Copies a source into the store.
pub struct Copier {
    /// Connections to the source; the first serves everything but partition batches.
    sources: Vec<Mutex<Side<SourceCalls>>>,
    state: Arc<ServerState>,
    /// What has been done.
    pub counters: Arc<Counters>,
    batch_size: usize,
}

impl Copier {
    /// A copier over `sources` (one connection at least) into `state`'s store.
    pub fn new(
        sources: Vec<Side<SourceCalls>>,
        state: Arc<ServerState>,
        batch_size: usize,
    ) -> Copier {
        assert!(
            !sources.is_empty(),
            "a copy needs a connection to its source"
        );
        assert!((1..=PARTITION_BATCH_SIZE_MAX).contains(&batch_size));
        Copier {
            sources: sources.into_iter().map(Mutex::new).collect(),
            state,
            counters: Arc::default(),
            batch_size,
        }
    }

    /// The source's first connection.
    pub fn source(&self) -> MutexGuard<'_, Side<SourceCalls>> {
        self.sources[0]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh session on the copy.
    fn session(&self) -> Session {
        copy_session(&self.state)
    }

    /// The copy, read as the source is.
    pub fn copy_side(&self) -> Side<CopyCalls> {
        Side {
            calls: CopyCalls(self.session()),
            dialect: Dialect::Hive4,
        }
    }

    /// The whole copy; returns the source's event id read before it began, which the copy's
    /// log is raised to.
    pub fn run(&self) -> Result<i64, String> {
        let event_id = self.source().current_event_id()?;
        self.sync_catalogs()?;
        self.sync_roles()?;
        self.sync_privileges(HiveObjectType::GLOBAL, None, None, None)?;
        let catalogs = self.source().catalog_names()?;
        let mut databases = Vec::new();
        for catalog in &catalogs {
            let names = self.source().database_names(catalog)?;
            for database in names {
                let tables = self.source().table_names(catalog, &database)?;
                self.counters
                    .tables_total
                    .fetch_add(tables.len() as u64, Ordering::Relaxed);
                databases.push((catalog.clone(), database));
            }
        }
        for (catalog, database) in &databases {
            self.sync_database(catalog, database, Constraints::Own)?;
        }
        for (catalog, database) in &databases {
            let tables = self.source().table_names(catalog, database)?;
            for table in tables {
                let name = TableName {
                    catalog: catalog.clone(),
                    database: database.clone(),
                    table,
                };
                self.sync_constraints(&name, Constraints::Foreign)?;
            }
        }
        for kind in fine_grant_kinds() {
            self.sync_grants_of_kind(kind)?;
        }
        self.raise_event_id(event_id)?;
        Ok(event_id)
    }

    /// Moves the copy's notification id up to the source's `event_id`.
    pub fn raise_event_id(&self, event_id: i64) -> Result<(), String> {
        let event_id = u64::try_from(event_id)
            .map_err(|_| format!("the source's event id {event_id} is negative"))?;
        self.state
            .store()
            .raise_event_id(event_id)
            .map(|_| ())
            .map_err(|error| format!("cannot raise the copy's event id to {event_id}: {error}"))
    }

    /// Catalogs the copy lacks are created; the default catalog is the copy's own (its
    /// location is the copy's warehouse).
    pub fn sync_catalogs(&self) -> Result<(), String> {
        let source = self.source().catalogs()?;
        let copy: BTreeSet<Option<String>> = self
            .copy_side()
            .catalogs()?
            .into_iter()
            .map(|catalog| catalog.name)
            .collect();
        for catalog in source {
            let missing = !copy.contains(&catalog.name);
            if missing {
                let name = catalog.name.clone().unwrap_or_default();
                let request = CreateCatalogRequest {
                    catalog: Some(catalog),
                };
                self.session()
                    .create_catalog(request)
                    .map_err(|error| failed("create_catalog", &name, &error))?;
            }
            self.counters.object(missing);
        }
        Ok(())
    }

    /// Roles the copy lacks are created, and members it lacks granted.
    pub fn sync_roles(&self) -> Result<(), String> {
        let source = self.source().roles()?;
        let copy: BTreeMap<String, Vec<_>> = self.copy_side().roles()?.into_iter().collect();
        let session = self.session();
        for (role, members) in source {
            let present = copy.get(&role);
            if present.is_none() {
                let record = Role {
                    role_name: Some(role.clone()),
                    create_time: None,
                    owner_name: None,
                };
                session
                    .create_role(record)
                    .map_err(|error| failed("create_role", &role, &error))?;
            }
            self.counters.object(present.is_none());
            let had: BTreeSet<(Option<String>, Option<PrincipalType>)> = present
                .into_iter()
                .flatten()
                .map(|grant| (grant.principal_name.clone(), grant.principal_type))
                .collect();
            for member in members {
                if had.contains(&(member.principal_name.clone(), member.principal_type)) {
                    continue;
                }
                let principal = member.principal_name.clone().unwrap_or_default();
                session
                    .grant_role(
                        role.clone(),
                        principal.clone(),
                        member.principal_type.unwrap_or(PrincipalType::USER),
                        member.grantor_name.unwrap_or_default(),
                        member.grantor_principal_type.unwrap_or(PrincipalType::USER),
                        member.grant_option.unwrap_or(false),
                    )
                    .map_err(|error| {
                        failed("grant_role", &format!("{role} to {principal}"), &error)
                    })?;
                self.counters.object(true);
            }
        }
        Ok(())
    }

    /// Privileges granted on one object that the copy lacks are granted.
    pub fn sync_privileges(
        &self,
        object_type: HiveObjectType,
        catalog: Option<&str>,
        database: Option<&str>,
        object: Option<&str>,
    ) -> Result<(), String> {
        let object = object_ref(object_type, catalog, database, object);
        let source = self.source().privileges(object.clone())?;
        if source.is_empty() {
            return Ok(());
        }
        let copy: BTreeSet<_> = self
            .copy_side()
            .privileges(object)?
            .into_iter()
            .map(compare::privilege)
            .collect();
        let missing: Vec<_> = source
            .into_iter()
            .filter(|privilege| !copy.contains(&compare::privilege(privilege.clone())))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let count = missing.len();
        self.session()
            .grant_privileges(PrivilegeBag {
                privileges: Some(missing),
            })
            .map_err(|error| failed("grant_privileges", &format!("{object_type:?}"), &error))?;
        for _ in 0..count {
            self.counters.object(true);
        }
        Ok(())
    }

    /// Makes every grant the copy's the source's, metastore-wide: global grants the copy lacks
    /// are added, and the grants on databases, tables, partitions and columns made exactly the
    /// source's. Neither Hive nor hivestore logs an event for a grant, so `--follow` calls
    /// this at its own interval.
    pub fn sync_all_grants(&self) -> Result<(), String> {
        self.sync_privileges(HiveObjectType::GLOBAL, None, None, None)?;
        for kind in grant_kinds() {
            self.sync_grants_of_kind(kind)?;
        }
        Ok(())
    }

    /// Makes the copy's grants of one metastore-wide reference (`grant_kinds`) the source's:
    /// those it lacks granted, those the source has not revoked.
    fn sync_grants_of_kind(&self, kind: HiveObjectRef) -> Result<(), String> {
        let source: BTreeMap<_, _> = self
            .source()
            .privileges(kind.clone())?
            .into_iter()
            .map(|privilege| (compare::privilege(privilege.clone()), privilege))
            .collect();
        let mut extra: BTreeMap<_, _> = self
            .copy_side()
            .privileges(kind.clone())?
            .into_iter()
            .map(|privilege| (compare::privilege(privilege.clone()), privilege))
            .collect();
        let mut missing = Vec::new();
        for (normalised, privilege) in source {
            if extra.remove(&normalised).is_none() {
                missing.push(privilege);
            }
        }
        let described = format!("{:?}", kind.object_type);
        let session = self.session();
        if !extra.is_empty() {
            let count = extra.len();
            let privileges = Some(extra.into_values().collect());
            session
                .revoke_privileges(PrivilegeBag { privileges })
                .map_err(|error| failed("revoke_privileges", &described, &error))?;
            (0..count).for_each(|_| self.counters.object(true));
        }
        if !missing.is_empty() {
            let count = missing.len();
            let privileges = Some(missing);
            session
                .grant_privileges(PrivilegeBag { privileges })
                .map_err(|error| failed("grant_privileges", &described, &error))?;
            (0..count).for_each(|_| self.counters.object(true));
        }
        Ok(())
    }

    /// Makes the copy's database `catalog`.`name` the source's: the database, its functions,
    /// its tables with their partitions and statistics, and privileges on it; a database gone
    /// from the source is dropped from the copy (its data untouched).
    pub fn sync_database(
        &self,
        catalog: &str,
        name: &str,
        constraints: Constraints,
    ) -> Result<(), String> {
        if !self.sync_database_record(catalog, name)? {
            return Ok(());
        }
        self.sync_functions(catalog, name)?;
        self.sync_privileges(HiveObjectType::DATABASE, Some(catalog), Some(name), None)?;
        let tables = self.source().table_names(catalog, name)?;
        self.drop_extra_tables(catalog, name, &tables)?;
        for table in tables {
            let name = TableName {
                catalog: catalog.to_string(),
                database: name.to_string(),
                table,
            };
            self.sync_table(&name, constraints)?;
            self.counters.tables_done.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Makes the copy's database record the source's, or drops it (cascading, data
    /// untouched) if the source has none; returns whether the source has it.
    pub fn sync_database_record(&self, catalog: &str, name: &str) -> Result<bool, String> {
        let qualified = qualified_database(catalog, name);
        let session = self.session();
        let source = self.source().database(catalog, name)?;
        let copy = self.copy_side().database(catalog, name)?;
        let Some(source) = source else {
            if copy.is_some() {
                session
                    .drop_database(qualified.clone(), false, true)
                    .map_err(|error| failed("drop_database", &qualified, &error))?;
                self.counters.object(true);
            }
            return Ok(false);
        };
        let written = match copy {
            None => {
                session
                    .create_database(source.clone())
                    .map_err(|error| failed("create_database", &qualified, &error))?;
                true
            }
            Some(copy) if compare::database(copy.clone()) != compare::database(source.clone()) => {
                session
                    .alter_database(qualified.clone(), source)
                    .map_err(|error| failed("alter_database", &qualified, &error))?;
                true
            }
            Some(_) => false,
        };
        self.counters.object(written);
        Ok(true)
    }

    /// Drops the copy's tables of a database that are not among the source's `tables`.
    fn drop_extra_tables(
        &self,
        catalog: &str,
        database: &str,
        tables: &[String],
    ) -> Result<(), String> {
        let qualified = qualified_database(catalog, database);
        let kept: BTreeSet<&String> = tables.iter().collect();
        for table in self.copy_side().table_names(catalog, database)? {
            if !kept.contains(&table) {
                self.session()
                    .drop_table(qualified.clone(), table.clone(), false)
                    .map_err(|error| {
                        failed("drop_table", &format!("{qualified}.{table}"), &error)
                    })?;
                self.counters.object(true);
            }
        }
        Ok(())
    }

    /// Makes the copy's list of a database's tables the source's: extra tables dropped,
    /// missing ones copied (a rename on the source does both).
    pub fn sync_table_list(&self, catalog: &str, database: &str) -> Result<(), String> {
        let tables = self.source().table_names(catalog, database)?;
        self.drop_extra_tables(catalog, database, &tables)?;
        let copied: BTreeSet<String> = self
            .copy_side()
            .table_names(catalog, database)?
            .into_iter()
            .collect();
        for table in tables.into_iter().filter(|table| !copied.contains(table)) {
            let name = TableName {
                catalog: catalog.to_string(),
                database: database.to_string(),
                table,
            };
            self.sync_table(&name, Constraints::All)?;
        }
        Ok(())
    }

    /// Makes the copy's functions of a database the source's.
    pub fn sync_functions(&self, catalog: &str, database: &str) -> Result<(), String> {
        let qualified = qualified_database(catalog, database);
        let session = self.session();
        let source = self.source().functions(catalog, database)?;
        let mut copy: BTreeMap<Option<String>, _> = self
            .copy_side()
            .functions(catalog, database)?
            .into_iter()
            .map(|function| (function.function_name.clone(), function))
            .collect();
        for function in source {
            let name = function.function_name.clone().unwrap_or_default();
            let written = match copy.remove(&function.function_name) {
                None => {
                    session
                        .create_function(function)
                        .map_err(|error| failed("create_function", &name, &error))?;
                    true
                }
                Some(had)
                    if compare::function(had.clone()) != compare::function(function.clone()) =>
                {
                    session
                        .alter_function(qualified.clone(), name.clone(), function)
                        .map_err(|error| failed("alter_function", &name, &error))?;
                    true
                }
                Some(_) => false,
            };
            self.counters.object(written);
        }
        for name in copy.into_keys().flatten() {
            session
                .drop_function(qualified.clone(), name.clone())
                .map_err(|error| failed("drop_function", &name, &error))?;
            self.counters.object(true);
        }
        Ok(())
    }

    /// Makes the copy's table the source's: the table, its column statistics, its partitions
    /// with theirs, its constraints and privileges; a table gone from the source is dropped
    /// from the copy (its data untouched).
    pub fn sync_table(&self, name: &TableName, constraints: Constraints) -> Result<(), String> {
        let source = self.source().table(name)?;
        let copy = self.copy_side().table(name)?;
        let Some(source) = source else {
            if copy.is_some() {
                self.session()
                    .drop_table(name.qualified_database(), name.table.clone(), false)
                    .map_err(|error| failed("drop_table", &name.to_string(), &error))?;
                self.counters.object(true);
            }
            return Ok(());
        };
        let written = self.write_table(name, &source, copy)?;
        let columns = column_names(&source);
        let statistics_written = self.sync_table_statistics(name, &columns)?;
        if statistics_written {
            // Statistics move their table's parameters (COLUMN_STATS_ACCURATE): the source's win.
            let copy = self.copy_side().table(name)?;
            self.write_table(name, &source, copy)?;
        }
        self.counters.object(written || statistics_written);
        let keys = partition_key_names(&source);
        if !keys.is_empty() {
            self.sync_partitions(name, &keys, &columns)?;
        }
        self.sync_constraints(name, constraints)?;
        self.sync_privileges(
            HiveObjectType::TABLE,
            Some(&name.catalog),
            Some(&name.database),
            Some(&name.table),
        )
    }

    /// Creates or alters the copy's table unless it equals the source's; returns whether it
    /// wrote. An alter the copy refuses (a change of kind Hive does not alter) becomes a drop
    /// and a create: the partitions are then copied again.
    fn write_table(
        &self,
        name: &TableName,
        source: &Table,
        copy: Option<Table>,
    ) -> Result<bool, String> {
        let session = self.session();
        let Some(copy) = copy else {
            session
                .create_table(source.clone())
                .map_err(|error| failed("create_table", &name.to_string(), &error))?;
            return Ok(true);
        };
        if compare::table(copy) == compare::table(source.clone()) {
            return Ok(false);
        }
        let altered = session.alter_table(
            name.qualified_database(),
            name.table.clone(),
            source.clone(),
        );
        if let Err(refused) = altered {
            tracing::warn!(table = %name, reason = %super::reads::describe(&refused),
                "the copy refused the alter; dropping and creating the table again");
            session
                .drop_table(name.qualified_database(), name.table.clone(), false)
                .map_err(|error| failed("drop_table", &name.to_string(), &error))?;
            session
                .create_table(source.clone())
                .map_err(|error| failed("create_table", &name.to_string(), &error))?;
        }
        Ok(true)
    }

    /// Writes the table's column statistics if the copy's differ; returns whether it wrote.
    fn sync_table_statistics(&self, name: &TableName, columns: &[String]) -> Result<bool, String> {
        let source = self.source().table_statistics(name, columns)?;
        if source.is_empty() {
            return Ok(false);
        }
        let copy = self.copy_side().table_statistics(name, columns)?;
        if compare::statistics(copy) == compare::statistics(source.clone()) {
            return Ok(false);
        }
        let statistics = column_statistics(name, None, source);
        self.session()
            .update_table_column_statistics(statistics)
            .map_err(|error| failed("update_table_column_statistics", &name.to_string(), &error))?;
        Ok(true)
    }

    /// Makes the copy's partitions of a table the source's, in batches of names read and
    /// written by up to one thread per source connection.
    fn sync_partitions(
        &self,
        name: &TableName,
        keys: &[String],
        columns: &[String],
    ) -> Result<(), String> {
        let source = self.source().partition_names(name)?;
        let kept: BTreeSet<&String> = source.iter().collect();
        let session = self.session();
        for extra in self.copy_side().partition_names(name)? {
            if !kept.contains(&extra) {
                session
                    .drop_partition_by_name(
                        name.qualified_database(),
                        name.table.clone(),
                        extra.clone(),
                        false,
                    )
                    .map_err(|error| {
                        failed("drop_partition_by_name", &format!("{name} {extra}"), &error)
                    })?;
                self.counters.object(true);
            }
        }
        let batches: Vec<&[String]> = source.chunks(self.batch_size).collect();
        let next = AtomicUsize::new(0);
        let first_error: Mutex<Option<String>> = Mutex::new(None);
        let workers = self.sources.len().min(batches.len());
        std::thread::scope(|scope| {
            for worker in 0..workers {
                let (batches, next, first_error) = (&batches, &next, &first_error);
                scope.spawn(move || loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(batch) = batches.get(index) else {
                        return;
                    };
                    let done = self.sync_partition_batch(worker, name, keys, columns, batch);
                    if let Err(error) = done {
                        // The other workers stop at their next batch.
                        next.store(batches.len(), Ordering::Relaxed);
                        let mut first = first_error.lock().unwrap_or_else(PoisonError::into_inner);
                        first.get_or_insert(error);
                        return;
                    }
                });
            }
        });
        match first_error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// One batch of partitions: those the copy lacks are added, those that differ altered,
    /// and their column statistics written where they differ.
    fn sync_partition_batch(
        &self,
        worker: usize,
        name: &TableName,
        keys: &[String],
        columns: &[String],
        names: &[String],
    ) -> Result<(), String> {
        let mut source_side = self.sources[worker]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut copy_side = self.copy_side();
        let session = self.session();
        let source = source_side.partitions(name, keys, names)?;
        let copy = copy_side.partitions(name, keys, names)?;
        let (missing, changed) = partitions_to_write(&source, &copy);
        let written = (missing.len() + changed.len()) as u64;
        if !missing.is_empty() {
            session
                .add_partitions(missing)
                .map_err(|error| failed("add_partitions", &name.to_string(), &error))?;
        }
        self.alter_partitions(&session, name, changed)?;
        let source_statistics = source_side.partition_statistics(name, columns, names)?;
        drop(source_side);
        let copy_statistics = copy_side.partition_statistics(name, columns, names)?;
        let stale: Vec<ColumnStatistics> = source_statistics
            .into_iter()
            .filter(|(partition, statistics)| copy_statistics.get(partition) != Some(statistics))
            .map(|(partition, statistics)| column_statistics(name, Some(partition), statistics))
            .collect();
        if !stale.is_empty() {
            let stale_names: Vec<String> = stale
                .iter()
                .filter_map(|statistics| statistics.stats_desc.part_name.clone())
                .collect();
            session
                .set_aggr_stats_for(SetPartitionsStatsRequest {
                    col_stats: stale,
                    need_merge: Some(false),
                    write_id: None,
                    valid_write_id_list: None,
                    engine: Some(STATISTICS_ENGINE.to_string()),
                })
                .map_err(|error| failed("set_aggr_stats_for", &name.to_string(), &error))?;
            // Statistics move their partitions' parameters: the source's win.
            let copy = copy_side.partitions(name, keys, &stale_names)?;
            let (_, changed) = partitions_to_write(&source, &copy);
            self.alter_partitions(&session, name, changed)?;
        }
        self.counters
            .partitions
            .fetch_add(names.len() as u64, Ordering::Relaxed);
        self.counters
            .partitions_written
            .fetch_add(written, Ordering::Relaxed);
        Ok(())
    }

    fn alter_partitions(
        &self,
        session: &Session,
        name: &TableName,
        changed: Vec<Partition>,
    ) -> Result<(), String> {
        if changed.is_empty() {
            return Ok(());
        }
        session
            .alter_partitions(name.qualified_database(), name.table.clone(), changed)
            .map_err(|error| failed("alter_partitions", &name.to_string(), &error))
    }

    /// Adds the constraints of kind `which` that the source's table has and the copy's lacks
    /// (by name).
    pub fn sync_constraints(&self, name: &TableName, which: Constraints) -> Result<(), String> {
        let source = self.source().constraints(name)?;
        if is_empty(&source) {
            return Ok(());
        }
        let copy = self.copy_side().constraints(name)?;
        let session = self.session();
        let add = |call: &str, result: thrift::Result<()>| {
            result.map_err(|error| failed(call, &name.to_string(), &error))
        };
        let own = matches!(which, Constraints::Own | Constraints::All);
        let foreign = matches!(which, Constraints::Foreign | Constraints::All);
        macro_rules! missing {
            ($field:ident, $name:ident) => {{
                let had: BTreeSet<Option<String>> = copy
                    .$field
                    .iter()
                    .flatten()
                    .map(|row| row.$name.clone())
                    .collect();
                let rows: Vec<_> = source
                    .$field
                    .iter()
                    .flatten()
                    .filter(|row| !had.contains(&row.$name))
                    .cloned()
                    .collect();
                rows
            }};
        }
        if own {
            let rows = missing!(primary_keys, pk_name);
            if !rows.is_empty() {
                let request = AddPrimaryKeyRequest {
                    primary_key_cols: rows,
                };
                add("add_primary_key", session.add_primary_key(request))?;
            }
            let rows = missing!(unique_constraints, uk_name);
            if !rows.is_empty() {
                let request = AddUniqueConstraintRequest {
                    unique_constraint_cols: rows,
                };
                add(
                    "add_unique_constraint",
                    session.add_unique_constraint(request),
                )?;
            }
            let rows = missing!(not_null_constraints, nn_name);
            if !rows.is_empty() {
                let request = AddNotNullConstraintRequest {
                    not_null_constraint_cols: rows,
                };
                add(
                    "add_not_null_constraint",
                    session.add_not_null_constraint(request),
                )?;
            }
            let rows = missing!(default_constraints, dc_name);
            if !rows.is_empty() {
                let request = AddDefaultConstraintRequest {
                    default_constraint_cols: rows,
                };
                add(
                    "add_default_constraint",
                    session.add_default_constraint(request),
                )?;
            }
            let rows = missing!(check_constraints, dc_name);
            if !rows.is_empty() {
                let request = AddCheckConstraintRequest {
                    check_constraint_cols: rows,
                };
                add(
                    "add_check_constraint",
                    session.add_check_constraint(request),
                )?;
            }
        }
        if foreign {
            let rows = missing!(foreign_keys, fk_name);
            if !rows.is_empty() {
                let request = AddForeignKeyRequest {
                    foreign_key_cols: rows,
                };
                add("add_foreign_key", session.add_foreign_key(request))?;
            }
        }
        Ok(())
    }
}

/// The partitions of `source` that `copy` lacks, and those whose copy differs.
pub fn partitions_to_write(
    source: &BTreeMap<String, Partition>,
    copy: &BTreeMap<String, Partition>,
) -> (Vec<Partition>, Vec<Partition>) {
    let mut missing = Vec::new();
    let mut changed = Vec::new();
    for (name, partition) in source {
        match copy.get(name) {
            None => missing.push(partition.clone()),
            Some(had)
                if compare::partition(had.clone()) != compare::partition(partition.clone()) =>
            {
                changed.push(partition.clone())
            }
            Some(_) => {}
        }
    }
    (missing, changed)
}

/// The names of a table's columns (its partition keys are not among them).
pub fn column_names(table: &Table) -> Vec<String> {
    table
        .sd
        .iter()
        .flat_map(|sd| sd.cols.iter().flatten())
        .filter_map(|column| column.name.clone())
        .collect()
}

/// The names of a table's partition keys, in order.
pub fn partition_key_names(table: &Table) -> Vec<String> {
    table
        .partition_keys
        .iter()
        .flatten()
        .filter_map(|key| key.name.clone())
        .collect()
}

/// Statistics of a table (`partition` none) or of one of its partitions, to write.
fn column_statistics(
    name: &TableName,
    partition: Option<String>,
    columns: Vec<ColumnStatisticsObj>,
) -> ColumnStatistics {
    ColumnStatistics {
        stats_desc: ColumnStatisticsDesc {
            is_tbl_level: partition.is_none(),
            db_name: name.database.clone(),
            table_name: name.table.clone(),
            part_name: partition,
            last_analyzed: None,
            cat_name: Some(name.catalog.clone()),
        },
        stats_obj: columns,
        is_stats_compliant: None,
        engine: Some(STATISTICS_ENGINE.to_string()),
    }
}

fn is_empty(constraints: &SQLAllTableConstraints) -> bool {
    constraints.primary_keys.as_ref().is_none_or(Vec::is_empty)
        && constraints.foreign_keys.as_ref().is_none_or(Vec::is_empty)
        && constraints
            .unique_constraints
            .as_ref()
            .is_none_or(Vec::is_empty)
        && constraints
            .not_null_constraints
            .as_ref()
            .is_none_or(Vec::is_empty)
        && constraints
            .default_constraints
            .as_ref()
            .is_none_or(Vec::is_empty)
        && constraints
            .check_constraints
            .as_ref()
            .is_none_or(Vec::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(value: &str, create_time: i32, parameter: &str) -> Partition {
        Partition {
            values: Some(vec![value.to_string()]),
            db_name: Some("db".to_string()),
            table_name: Some("t".to_string()),
            create_time: Some(create_time),
            last_access_time: Some(0),
            sd: None,
            parameters: Some(BTreeMap::from([("p".to_string(), parameter.to_string())])),
            privileges: None,
            cat_name: None,
            write_id: None,
            is_stats_compliant: None,
            col_stats: None,
            file_metadata: None,
        }
    }

    fn by_name(partitions: &[Partition]) -> BTreeMap<String, Partition> {
        partitions
            .iter()
            .map(|partition| {
                (
                    format!("ds={}", partition.values.as_ref().unwrap()[0]),
                    partition.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn only_missing_and_changed_partitions_are_written() {
        // The copy's own create time is no change; a parameter is.
        let source = by_name(&[
            partition("1", 10, "a"),
            partition("2", 10, "b"),
            partition("3", 10, "c"),
        ]);
        let copy = by_name(&[partition("1", 99, "a"), partition("2", 10, "changed")]);
        let (missing, changed) = partitions_to_write(&source, &copy);
        assert_eq!(missing, vec![partition("3", 10, "c")]);
        assert_eq!(changed, vec![partition("2", 10, "b")]);
        let (missing, changed) = partitions_to_write(&source, &source);
        assert!(missing.is_empty() && changed.is_empty());
    }
}
