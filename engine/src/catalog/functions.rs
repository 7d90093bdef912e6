//! Functions: Hive's permanent user-defined functions, stored under their database's id, so
//! that a database's functions are one key range and go with it.

use crate::catalog::lookup::{catalog_or_default, find_database_id, no_such_database};
use crate::catalog::pattern::NamePattern;
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::model::database::{Database, DatabaseType};
use crate::model::function::Function;
use crate::model::names;
use crate::storage::keys::{self, DatabaseId};
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store, WriteTxn};

/// The longest class name accepted, in bytes (Hive's `FUNCS.CLASS_NAME varchar(4000)`).
pub const FUNCTION_CLASS_NAME_LEN_MAX: usize = 4000;
/// The longest resource URI accepted, in bytes (Hive's `FUNC_RU.RESOURCE_URI varchar(4000)`).
pub const RESOURCE_URI_LEN_MAX: usize = 4000;
/// The longest function owner name accepted, in bytes (`FUNCS.OWNER_NAME varchar(128)`).
pub const FUNCTION_OWNER_LEN_MAX: usize = 128;

impl Store {
    /// Hive's `create_function`: `function` in its database (`cat_name` empty means `hive`),
    /// its names normalised and its create time set. A missing database is
    /// `NoSuchObject`, a remote one refused, a name taken `AlreadyExists`; logs
    /// `CREATE_FUNCTION`.
    pub fn create_function(&self, function: Function) -> Result<Function> {
        let mut function = function;
        let given_name = function.function_name.clone();
        names::validate_function_name(&given_name)?;
        check_function_values(&function)?;
        function.cat_name = catalog_or_default(&function.cat_name);
        function.db_name = names::normalize(&function.db_name);
        function.function_name = names::normalize(&function.function_name);
        function.create_time = now_seconds();
        self.write(|txn| {
            let (database_id, database) =
                require_database(txn, &function.cat_name, &function.db_name)?;
            if database.database_type == Some(DatabaseType::Remote) {
                let message = "Operation create_function not support for REMOTE database";
                return Err(Error::Refused(message.to_string()));
            }
            let key = keys::function_key(database_id, &function.function_name);
            if txn.get(&key)?.is_some() {
                return Err(Error::AlreadyExists(format!(
                    "Function {given_name} already exists"
                )));
            }
            txn.put_value(key, &function)?;
            emit_function_event(txn, EventKind::CreateFunction, &function)?;
            Ok(function)
        })
    }

    /// Function `catalog.database.name`, if it exists (names normalised; none when the
    /// database does not exist either).
    pub fn get_function(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
    ) -> Result<Option<Function>> {
        let catalog = catalog_or_default(catalog);
        let (database, name) = (names::normalize(database), names::normalize(name));
        let Some(database_id) = find_database_id(self.reader(), &catalog, &database)? else {
            return Ok(None);
        };
        match self.view::<Function>(&keys::function_key(database_id, &name))? {
            Some(view) => Ok(Some(view.to_owned()?)),
            None => Ok(None),
        }
    }

    /// Hive's `get_functions(db, pattern)`: the names of the functions of
    /// `catalog.database` that match `pattern` (see [`NamePattern`]), ascending; none when
    /// the database does not exist.
    pub fn list_functions_matching(
        &self,
        catalog: &str,
        database: &str,
        pattern: Option<&str>,
    ) -> Result<Vec<String>> {
        let pattern = NamePattern::new(pattern)?;
        let catalog = catalog_or_default(catalog);
        let database = names::normalize(database);
        let Some(database_id) = find_database_id(self.reader(), &catalog, &database)? else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for entry in self.scan(KeyRange::prefix(&keys::function_prefix(database_id))) {
            let (key, _) = entry?;
            let (_, name) = keys::decode_function_key(&key)?;
            if pattern.matches(&name) {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// Hive's `get_all_functions`: every function of `catalog`, by database and name.
    pub fn all_functions(&self, catalog: &str) -> Result<Vec<Function>> {
        let catalog = catalog_or_default(catalog);
        let mut functions = Vec::new();
        for database in self.list_databases(&catalog)? {
            let Some(database_id) = find_database_id(self.reader(), &catalog, &database)? else {
                continue;
            };
            for entry in self.scan(KeyRange::prefix(&keys::function_prefix(database_id))) {
                let (key, _) = entry?;
                if let Some(view) = self.view::<Function>(&key)? {
                    functions.push(view.to_owned()?);
                }
            }
        }
        Ok(functions)
    }

    /// Hive's `alter_function`: replaces function `catalog.database.name` with `new`'s name,
    /// database, owner, owner type, class and type; its resource URIs and create time stay.
    /// The new database must exist in the same catalog. Hive logs no event for it.
    pub fn alter_function(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        new: Function,
    ) -> Result<Function> {
        let catalog = catalog_or_default(catalog);
        let (database, name) = (names::normalize(database), names::normalize(name));
        names::validate_function_name(&new.function_name)?;
        check_function_values(&new)?;
        if catalog_or_default(&new.cat_name) != catalog {
            let message = "You cannot move a function between catalogs";
            return Err(Error::InvalidObject(message.to_string()));
        }
        let new_database = names::normalize(&new.db_name);
        let new_name = names::normalize(&new.function_name);
        self.write(|txn| {
            let Some(new_database_id) = find_database_id(txn.reader(), &catalog, &new_database)?
            else {
                return Err(Error::InvalidObject(format!(
                    "Database {} doesn't exist.",
                    new.db_name
                )));
            };
            let old_key = find_database_id(txn.reader(), &catalog, &database)?
                .map(|id| keys::function_key(id, &name));
            let old = match &old_key {
                Some(key) => txn.view::<Function>(key)?,
                None => None,
            };
            let (Some(old_key), Some(old)) = (old_key, old) else {
                return Err(Error::Refused(format!("function {name} doesn't exist")));
            };
            let old = old.to_owned()?;
            let new_key = keys::function_key(new_database_id, &new_name);
            if new_key != old_key {
                if txn.get(&new_key)?.is_some() {
                    return Err(Error::Refused(format!(
                        "Function {new_database}.{new_name} already exists"
                    )));
                }
                txn.delete(old_key);
            }
            let altered = Function {
                function_name: new_name.clone(),
                db_name: new_database.clone(),
                owner_name: new.owner_name,
                owner_type: new.owner_type,
                class_name: new.class_name,
                function_type: new.function_type,
                ..old
            };
            txn.put_value(new_key, &altered)?;
            Ok(altered)
        })
    }

    /// Hive's `drop_function`: removes function `catalog.database.name` and logs
    /// `DROP_FUNCTION`; a missing one is `NoSuchObject` naming it as given.
    pub fn drop_function(&self, catalog: &str, database: &str, name: &str) -> Result<Function> {
        let catalog = catalog_or_default(catalog);
        let normal_database = names::normalize(database);
        let normal_name = names::normalize(name);
        self.write(|txn| {
            let key = find_database_id(txn.reader(), &catalog, &normal_database)?
                .map(|id| keys::function_key(id, &normal_name));
            let found = match &key {
                Some(key) => txn.view::<Function>(key)?,
                None => None,
            };
            let (Some(key), Some(found)) = (key, found) else {
                return Err(Error::NoSuchObject(format!(
                    "Function {name} does not exist"
                )));
            };
            let function = found.to_owned()?;
            txn.delete(key);
            emit_function_event(txn, EventKind::DropFunction, &function)?;
            Ok(function)
        })
    }
}

/// Whether database `id` holds a function.
pub(crate) fn has_functions(txn: &WriteTxn<'_>, id: DatabaseId) -> Result<bool> {
    let range = KeyRange::prefix(&keys::function_prefix(id));
    Ok(txn.scan(range).next().transpose()?.is_some())
}

/// Drops every function of database `id` within `txn`, logging `DROP_FUNCTION` for each, as
/// Hive's `drop_database` with cascade drops them before the tables.
pub(crate) fn drop_all_functions(txn: &mut WriteTxn<'_>, id: DatabaseId) -> Result<Vec<Function>> {
    let range = KeyRange::prefix(&keys::function_prefix(id));
    let mut found = Vec::new();
    for entry in txn.scan(range) {
        let (key, _) = entry?;
        found.push(key.to_vec());
    }
    let mut dropped = Vec::with_capacity(found.len());
    for key in found {
        if let Some(view) = txn.view::<Function>(&key)? {
            let function = view.to_owned()?;
            txn.delete(key);
            emit_function_event(txn, EventKind::DropFunction, &function)?;
            dropped.push(function);
        }
    }
    Ok(dropped)
}

fn emit_function_event(txn: &mut WriteTxn<'_>, kind: EventKind, function: &Function) -> Result<()> {
    let body = EventBody::Function(function.clone());
    let event = EventRecord::new(kind, &function.cat_name, &function.db_name, "", body);
    txn.emit(event).map(|_| ())
}

fn require_database(
    txn: &WriteTxn<'_>,
    catalog: &str,
    database: &str,
) -> Result<(DatabaseId, Database)> {
    let id = find_database_id(txn.reader(), catalog, database)?
        .ok_or_else(|| no_such_database(catalog, database))?;
    let view = txn
        .view::<Database>(&keys::database_key(id))?
        .ok_or_else(|| crate::catalog::lookup::dangling_index(catalog, database, id))?;
    Ok((id, view.to_owned()?))
}

/// Refuses a class name, owner or resource URI longer than Hive's columns hold.
fn check_function_values(function: &Function) -> Result<()> {
    let too_long = |what: &str, value: &str, max: usize| {
        Error::InvalidObject(format!(
            "function {what} is {} bytes, longer than the {max} bytes allowed",
            value.len()
        ))
    };
    if function.class_name.len() > FUNCTION_CLASS_NAME_LEN_MAX {
        let class = &function.class_name;
        return Err(too_long("class name", class, FUNCTION_CLASS_NAME_LEN_MAX));
    }
    if let Some(owner) = &function.owner_name {
        if owner.len() > FUNCTION_OWNER_LEN_MAX {
            return Err(too_long("owner name", owner, FUNCTION_OWNER_LEN_MAX));
        }
    }
    for resource in &function.resource_uris {
        if resource.uri.len() > RESOURCE_URI_LEN_MAX {
            return Err(too_long(
                "resource URI",
                &resource.uri,
                RESOURCE_URI_LEN_MAX,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::EventFilter;
    use crate::model::function::{FunctionType, ResourceType, ResourceUri};
    use crate::model::principal::PrincipalType;
    use crate::Table;

    fn store() -> Store {
        crate::store::memory_store_with_databases(&["db", "other"])
    }

    fn function(database: &str, name: &str) -> Function {
        Function {
            function_name: name.into(),
            db_name: database.into(),
            class_name: "com.example.Upper".into(),
            owner_name: Some("alice".into()),
            owner_type: PrincipalType::User,
            create_time: 0,
            function_type: FunctionType::Java,
            resource_uris: vec![
                ResourceUri {
                    resource_type: ResourceType::Jar,
                    uri: "file:///jars/upper.jar".into(),
                },
                ResourceUri {
                    resource_type: ResourceType::File,
                    uri: "hdfs:///conf/upper.txt".into(),
                },
            ],
            cat_name: String::new(),
        }
    }

    fn event_kinds(store: &Store) -> Vec<EventKind> {
        let events = store.next_events(0, 1000, &EventFilter::default()).unwrap();
        events.into_iter().map(|event| event.record.kind).collect()
    }

    #[test]
    fn created_functions_are_read_listed_and_logged() {
        let store = store();
        let created = store.create_function(function("DB", "My_Upper")).unwrap();
        assert_eq!(created.function_name, "my_upper");
        assert_eq!(created.db_name, "db");
        assert_eq!(created.cat_name, "hive");
        assert!(created.create_time > 0);
        store.create_function(function("db", "lower")).unwrap();
        store.create_function(function("other", "upper2")).unwrap();
        let read = store.get_function("", "db", "MY_UPPER").unwrap().unwrap();
        assert_eq!(read, created);
        assert_eq!(read.resource_uris.len(), 2);
        assert_eq!(store.get_function("hive", "db", "nope").unwrap(), None);
        assert_eq!(store.get_function("hive", "nodb", "lower").unwrap(), None);
        let all = store.list_functions_matching("", "db", None).unwrap();
        assert_eq!(all, ["lower", "my_upper"]);
        let matching = store
            .list_functions_matching("", "db", Some("MY*|x"))
            .unwrap();
        assert_eq!(matching, ["my_upper"]);
        assert!(store
            .list_functions_matching("", "nodb", None)
            .unwrap()
            .is_empty());
        let everywhere = store.all_functions("hive").unwrap();
        let names: Vec<_> = everywhere
            .iter()
            .map(|f| f.function_name.as_str())
            .collect();
        assert_eq!(names, ["lower", "my_upper", "upper2"]);
        let creates = event_kinds(&store);
        let creates = creates
            .iter()
            .filter(|kind| **kind == EventKind::CreateFunction);
        assert_eq!(creates.count(), 3);
    }

    #[test]
    fn bad_creates_change_nothing() {
        let store = store();
        store.create_function(function("db", "f")).unwrap();
        let events = event_kinds(&store).len();
        let error = store.create_function(function("db", "F")).unwrap_err();
        assert_eq!(
            error,
            Error::AlreadyExists("Function F already exists".into())
        );
        let error = store.create_function(function("nodb", "g")).unwrap_err();
        assert_eq!(error, Error::NoSuchObject("database hive.nodb".into()));
        let error = store
            .create_function(function("db", "bad-name"))
            .unwrap_err();
        assert_eq!(
            error,
            Error::InvalidObject("bad-name is not a valid object name".into())
        );
        let mut long = function("db", "g");
        long.class_name = "c".repeat(FUNCTION_CLASS_NAME_LEN_MAX + 1);
        assert!(matches!(
            store.create_function(long),
            Err(Error::InvalidObject(_))
        ));
        let remote = Database {
            name: "remote".into(),
            database_type: Some(DatabaseType::Remote),
            ..Database::default()
        };
        store.create_database(remote).unwrap();
        let error = store.create_function(function("remote", "g")).unwrap_err();
        assert!(matches!(error, Error::Refused(_)));
        assert_eq!(
            event_kinds(&store).len(),
            events + 1,
            "only the remote database"
        );
        assert_eq!(
            store.list_functions_matching("", "db", None).unwrap(),
            ["f"]
        );
    }

    #[test]
    fn alter_renames_across_databases_and_keeps_resources() {
        let store = store();
        let created = store.create_function(function("db", "f")).unwrap();
        let events = event_kinds(&store).len();
        let mut new = function("OTHER", "G");
        new.class_name = "com.example.Other".into();
        new.owner_name = Some("bob".into());
        new.owner_type = PrincipalType::Role;
        new.resource_uris.clear();
        let altered = store.alter_function("", "db", "F", new).unwrap();
        assert_eq!(altered.function_name, "g");
        assert_eq!(altered.db_name, "other");
        assert_eq!(altered.class_name, "com.example.Other");
        assert_eq!(altered.owner_type, PrincipalType::Role);
        assert_eq!(altered.resource_uris, created.resource_uris);
        assert_eq!(altered.create_time, created.create_time);
        assert_eq!(store.get_function("", "db", "f").unwrap(), None);
        assert_eq!(store.get_function("", "other", "g").unwrap(), Some(altered));
        assert_eq!(event_kinds(&store).len(), events, "Hive logs no alter");

        let error = store
            .alter_function("", "db", "missing", function("db", "x"))
            .unwrap_err();
        assert_eq!(
            error,
            Error::Refused("function missing doesn't exist".into())
        );
        let error = store
            .alter_function("", "other", "g", function("nodb", "g"))
            .unwrap_err();
        assert_eq!(
            error,
            Error::InvalidObject("Database nodb doesn't exist.".into())
        );
        store.create_function(function("other", "h")).unwrap();
        let error = store
            .alter_function("", "other", "g", function("other", "h"))
            .unwrap_err();
        assert_eq!(
            error,
            Error::Refused("Function other.h already exists".into())
        );
        let mut elsewhere = function("other", "g");
        elsewhere.cat_name = "spark".into();
        let error = store
            .alter_function("", "other", "g", elsewhere)
            .unwrap_err();
        assert!(matches!(error, Error::InvalidObject(_)));
        assert!(store.get_function("", "other", "g").unwrap().is_some());
    }

    #[test]
    fn drop_removes_and_logs_or_names_the_missing_function() {
        let store = store();
        store.create_function(function("db", "f")).unwrap();
        let dropped = store.drop_function("", "DB", "F").unwrap();
        assert_eq!(dropped.function_name, "f");
        assert_eq!(store.get_function("", "db", "f").unwrap(), None);
        assert_eq!(event_kinds(&store).last(), Some(&EventKind::DropFunction));
        let error = store.drop_function("", "db", "F").unwrap_err();
        assert_eq!(
            error,
            Error::NoSuchObject("Function F does not exist".into())
        );
        let error = store.drop_function("", "nodb", "f").unwrap_err();
        assert_eq!(
            error,
            Error::NoSuchObject("Function f does not exist".into())
        );
    }

    #[test]
    fn a_database_with_functions_drops_only_with_cascade() {
        let store = store();
        store.create_function(function("db", "f")).unwrap();
        store.create_function(function("db", "g")).unwrap();
        let error = store.drop_database("hive", "db", false).unwrap_err();
        assert_eq!(
            error,
            Error::InvalidOperation(
                "Database db is not empty. One or more functions exist.".into()
            )
        );
        assert_eq!(
            store.list_functions_matching("", "db", None).unwrap().len(),
            2
        );
        let table = Table {
            db_name: "db".into(),
            table_name: "t".into(),
            ..Table::default()
        };
        store.create_table(table).unwrap();
        let error = store.drop_database("hive", "db", false).unwrap_err();
        assert!(error.to_string().ends_with("One or more tables exist."));
        let before = event_kinds(&store).len();
        store.drop_database("hive", "db", true).unwrap();
        let kinds = event_kinds(&store)[before..].to_vec();
        assert_eq!(
            kinds,
            [
                EventKind::DropFunction,
                EventKind::DropFunction,
                EventKind::DropTable,
                EventKind::DropDatabase
            ]
        );
        let again = Database {
            name: "db".into(),
            ..Database::default()
        };
        store.create_database(again).unwrap();
        assert!(store
            .list_functions_matching("", "db", None)
            .unwrap()
            .is_empty());
        assert_eq!(store.all_functions("hive").unwrap(), []);
    }
}
