//! Databases: create, get, alter, drop (old forms and `_req` forms), and listings.

use hivestore_engine::{DropDatabaseOptions, Error as EngineError};
use hivestore_idl::hive_metastore::{
    AlterDatabaseRequest, CreateDatabaseRequest, Database, DropDatabaseRequest, GetDatabaseRequest,
};

use super::{catalog_or_default, normal, parse_database_name, require_database_name};
use crate::access::{Need, Privilege, Target};
use crate::convert::{database_from_create_request, database_from_idl, database_to_idl};
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::service::Session;

/// `create_database`.
pub fn create(session: &Session, database: Database) -> thrift::Result<()> {
    let catalog = catalog_or_default(database.catalog_name.clone());
    create_database(session, database_from_idl(database, &catalog))
}

/// `create_database_req`.
pub fn create_req(session: &Session, request: CreateDatabaseRequest) -> thrift::Result<()> {
    create_database(session, database_from_create_request(request))
}

fn create_database(
    session: &Session,
    mut database: hivestore_engine::Database,
) -> thrift::Result<()> {
    // Anyone may create a database, and owns what it creates, as in Hive.
    session.authorize(Need::Anyone, Target::Server)?;
    if database.owner_name.is_none() {
        database.owner_name = session.user();
        database
            .owner_type
            .get_or_insert(hivestore_engine::PrincipalType::User);
    }
    session
        .store()
        .create_database(database)
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::CREATE))
}

/// `get_database`: the name may carry its catalog (`@cat#db`).
pub fn get(session: &Session, name: String) -> thrift::Result<Database> {
    let (catalog, database) = require_database_name(&name)?;
    get_database(session, &catalog, &database)
}

/// `get_database_req`.
pub fn get_req(session: &Session, request: GetDatabaseRequest) -> thrift::Result<Database> {
    let name = request.name.ok_or_else(|| {
        exception(
            Declared::Meta,
            "get_database_req: a database name is required",
        )
    })?;
    get_database(session, &catalog_or_default(request.catalog_name), &name)
}

fn get_database(session: &Session, catalog: &str, name: &str) -> thrift::Result<Database> {
    let target = Target::Database {
        catalog: &normal(catalog),
        database: &normal(name),
    };
    session.authorize(Need::Anyone, target)?;
    session
        .store()
        .get_database(catalog, name)
        .map(database_to_idl)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `get_all_databases`: the default catalog's databases, sorted.
pub fn list_all(session: &Session) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .list_databases(hivestore_engine::DEFAULT_CATALOG_NAME)
        .map_err(|error| to_thrift(error, throws::LIST))
}

/// `alter_database`: everything but the name may change.
pub fn alter(session: &Session, name: String, database: Database) -> thrift::Result<()> {
    let (catalog, name) = require_database_name(&name)?;
    alter_database(session, &catalog, &name, database)
}

/// `alter_database_req`.
pub fn alter_req(session: &Session, request: AlterDatabaseRequest) -> thrift::Result<()> {
    let (catalog, name) = match request.new_db.catalog_name.clone() {
        Some(catalog) => (catalog, request.old_db_name),
        None => require_database_name(&request.old_db_name)?,
    };
    alter_database(session, &catalog, &name, request.new_db)
}

fn alter_database(
    session: &Session,
    catalog: &str,
    name: &str,
    database: Database,
) -> thrift::Result<()> {
    let target = Target::Database {
        catalog: &normal(catalog),
        database: &normal(name),
    };
    session.authorize(Need::Privilege(Privilege::Alter), target)?;
    let database = database_from_idl(database, catalog);
    session.authorize_owner_change(target, database.owner_name.as_deref(), database.owner_type)?;
    session
        .store()
        .alter_database(catalog, name, database)
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::ALTER))
}

/// What a drop asks for, whichever form it came in.
struct DropDatabase {
    catalog: String,
    name: String,
    delete_data: bool,
    cascade: bool,
    ignore_unknown: bool,
}

/// `drop_database`.
pub fn drop_one(
    session: &Session,
    name: String,
    delete_data: bool,
    cascade: bool,
) -> thrift::Result<()> {
    let (catalog, name) = require_database_name(&name)?;
    drop_database(
        session,
        DropDatabase {
            catalog,
            name,
            delete_data,
            cascade,
            ignore_unknown: false,
        },
    )
}

/// `drop_database_req`.
pub fn drop_req(session: &Session, request: DropDatabaseRequest) -> thrift::Result<()> {
    let (catalog, name) = match request.catalog_name {
        Some(catalog) => (catalog, request.name),
        None => require_database_name(&request.name)?,
    };
    drop_database(
        session,
        DropDatabase {
            catalog,
            name,
            delete_data: request.delete_data,
            cascade: request.cascade,
            ignore_unknown: request.ignore_unknown_db,
        },
    )
}

fn drop_database(session: &Session, drop: DropDatabase) -> thrift::Result<()> {
    let target = Target::Database {
        catalog: &normal(&drop.catalog),
        database: &normal(&drop.name),
    };
    session.authorize(Need::Privilege(Privilege::Drop), target)?;
    let options = DropDatabaseOptions {
        cascade: drop.cascade,
        delete_data: drop.delete_data,
    };
    let result = session
        .store()
        .drop_database_with_options(&drop.catalog, &drop.name, &options);
    match result {
        Ok(_) => Ok(()),
        Err(EngineError::NoSuchObject(_)) if drop.ignore_unknown => Ok(()),
        Err(error) => Err(to_thrift(error, throws::DROP)),
    }
}

/// `get_databases(pattern)`: Hive's pattern language; the pattern may carry its catalog.
pub fn list_matching(session: &Session, pattern: String) -> thrift::Result<Vec<String>> {
    let (catalog, pattern) = parse_database_name(&pattern)?;
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .list_databases_matching(&catalog, pattern.as_deref())
        .map_err(|error| to_thrift(error, throws::LIST))
}
