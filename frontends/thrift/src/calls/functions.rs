//! Functions: `create_function`, `get_function`, `get_functions`, `get_functions_req`,
//! `get_all_functions`, `alter_function`, `drop_function`.
//!
//! Hive checks a function's fields in its handler before the store sees it
//! (`validateFunctionInfo`); those checks and their messages are here, the rest (names,
//! databases, duplicates, events) in the engine.

use hivestore_engine::{self as engine, DEFAULT_CATALOG_NAME};
use hivestore_idl::hive_metastore::{
    self as idl, GetAllFunctionsResponse, GetFunctionsRequest, GetFunctionsResponse,
};

use crate::access::{Need, Privilege, Target};
use crate::calls::{catalog_name_or_default, catalog_or_default, normal, parse_database_name};
use crate::convert::{function_to_idl, principal_type_from_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// What `create_function` declares.
const CREATE: &[Declared] = &[
    Declared::AlreadyExists,
    Declared::InvalidObject,
    Declared::Meta,
    Declared::NoSuchObject,
];
/// What `drop_function` and `get_function` declare.
const GET_OR_DROP: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];
/// What `alter_function` declares (Hive turns its `InvalidObjectException`s into
/// `MetaException`).
const ALTER: &[Declared] = &[Declared::Meta];
/// What the listings declare.
const LIST: &[Declared] = &[Declared::Meta];

/// Hive's `validateFunctionInfo` and the conversion to the engine's function. The name is
/// checked in the engine, between the null checks and the class name's, as Hive orders them.
fn function_from_idl(function: idl::Function, what: &str) -> thrift::Result<engine::Function> {
    let meta = |message: &str| exception(Declared::Meta, message);
    let name = function
        .function_name
        .ok_or_else(|| meta("Function name cannot be null."))?;
    let database = function
        .db_name
        .ok_or_else(|| meta("Database name in Function cannot be null."))?;
    engine::validate_function_name(&name).map_err(|error| to_thrift(error, CREATE))?;
    let class_name = function.class_name.ok_or_else(|| {
        exception(
            Declared::InvalidObject,
            "Function class name cannot be null",
        )
    })?;
    let owner_type = match function.owner_type {
        Some(kind) if idl::PrincipalType::ENUM_VALUES.contains(&kind) => {
            principal_type_from_idl(kind)
        }
        _ => return Err(meta("Function owner type cannot be null.")),
    };
    let function_type = match function.function_type {
        Some(idl::FunctionType::JAVA) => engine::FunctionType::Java,
        _ => return Err(meta("Function type cannot be null.")),
    };
    let mut resource_uris = Vec::new();
    for resource in function.resource_uris.unwrap_or_default() {
        let resource_type = match resource.resource_type {
            Some(idl::ResourceType::JAR) => engine::ResourceType::Jar,
            Some(idl::ResourceType::FILE) => engine::ResourceType::File,
            Some(idl::ResourceType::ARCHIVE) => engine::ResourceType::Archive,
            other => {
                let number = other.map_or_else(|| "null".to_string(), |kind| kind.0.to_string());
                return Err(meta(&format!(
                    "{what}: resource type {number} is not JAR, FILE or ARCHIVE"
                )));
            }
        };
        let uri = resource
            .uri
            .ok_or_else(|| meta(&format!("{what}: a resource URI cannot be null")))?;
        resource_uris.push(engine::ResourceUri { resource_type, uri });
    }
    Ok(engine::Function {
        function_name: name,
        db_name: database,
        class_name,
        owner_name: function.owner_name,
        owner_type,
        create_time: 0,
        function_type,
        resource_uris,
        cat_name: function.cat_name.unwrap_or_default(),
    })
}

/// `create_function`.
pub fn create(session: &Session, function: idl::Function) -> thrift::Result<()> {
    let function = function_from_idl(function, "create_function")?;
    let target = Target::Database {
        catalog: &normal(catalog_name_or_default(&function.cat_name)),
        database: &normal(&function.db_name),
    };
    session.authorize(Need::Privilege(Privilege::Create), target)?;
    session
        .store()
        .create_function(function)
        .map(|_| ())
        .map_err(|error| to_thrift(error, CREATE))
}

/// `get_function(db, name)`: Hive's message names the function by the database as given.
pub fn get(session: &Session, db_name: String, name: String) -> thrift::Result<idl::Function> {
    let (catalog, database) = parse_database_name(&db_name)?;
    let database = database.unwrap_or_default();
    let target = Target::Function {
        catalog: &normal(&catalog),
        database: &normal(&database),
        function: &normal(&name),
    };
    session.authorize(Need::Anyone, target)?;
    let found = session
        .store()
        .get_function(&catalog, &database, &name)
        .map_err(|error| to_thrift(error, GET_OR_DROP))?;
    found.map(function_to_idl).ok_or_else(|| {
        exception(
            Declared::NoSuchObject,
            format!("Function {db_name}.{name} does not exist"),
        )
    })
}

/// `get_functions(db, pattern)`: names, ascending; none for a missing database.
pub fn list(session: &Session, db_name: String, pattern: String) -> thrift::Result<Vec<String>> {
    let (catalog, database) = parse_database_name(&db_name)?;
    let target = Target::Database {
        catalog: &normal(&catalog),
        database: &normal(database.as_deref().unwrap_or_default()),
    };
    session.authorize(Need::Anyone, target)?;
    session
        .store()
        .list_functions_matching(&catalog, &database.unwrap_or_default(), Some(&pattern))
        .map_err(|error| to_thrift(error, LIST))
}

/// `get_functions_req`: names (`returnNames`, the default) or whole functions.
pub fn list_req(
    session: &Session,
    request: GetFunctionsRequest,
) -> thrift::Result<GetFunctionsResponse> {
    let catalog = catalog_or_default(request.catalog_name);
    let target = Target::Database {
        catalog: &normal(&catalog),
        database: &normal(&request.db_name),
    };
    session.authorize(Need::Anyone, target)?;
    let store = session.store();
    let names = store
        .list_functions_matching(&catalog, &request.db_name, request.pattern.as_deref())
        .map_err(|error| to_thrift(error, LIST))?;
    if request.return_names.unwrap_or(true) {
        return Ok(GetFunctionsResponse {
            function_names: Some(names),
            functions: None,
        });
    }
    let mut functions = Vec::with_capacity(names.len());
    for name in names {
        let found = store
            .get_function(&catalog, &request.db_name, &name)
            .map_err(|error| to_thrift(error, LIST))?;
        functions.extend(found.map(function_to_idl));
    }
    Ok(GetFunctionsResponse {
        function_names: None,
        functions: Some(functions),
    })
}

/// `get_all_functions`: every function of catalog `hive`, as Hive answers it.
pub fn all(session: &Session) -> thrift::Result<GetAllFunctionsResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let functions = session
        .store()
        .all_functions(DEFAULT_CATALOG_NAME)
        .map_err(|error| to_thrift(error, LIST))?;
    Ok(GetAllFunctionsResponse {
        functions: Some(functions.into_iter().map(function_to_idl).collect()),
    })
}

/// `alter_function(db, name, new)`: every refusal is a `MetaException`, as Hive's.
pub fn alter(
    session: &Session,
    db_name: String,
    name: String,
    new: idl::Function,
) -> thrift::Result<()> {
    let (catalog, database) = parse_database_name(&db_name)?;
    let database = database.unwrap_or_default();
    let target = Target::Function {
        catalog: &normal(&catalog),
        database: &normal(&database),
        function: &normal(&name),
    };
    session.authorize(Need::Privilege(Privilege::Alter), target)?;
    let new = function_from_idl(new, "alter_function").map_err(as_meta)?;
    session
        .store()
        .alter_function(&catalog, &database, &name, new)
        .map(|_| ())
        .map_err(|error| to_thrift(error, ALTER))
}

/// `drop_function(db, name)`.
pub fn drop(session: &Session, db_name: String, name: String) -> thrift::Result<()> {
    let (catalog, database) = parse_database_name(&db_name)?;
    let database = database.unwrap_or_default();
    let target = Target::Function {
        catalog: &normal(&catalog),
        database: &normal(&database),
        function: &normal(&name),
    };
    session.authorize(Need::Privilege(Privilege::Drop), target)?;
    session
        .store()
        .drop_function(&catalog, &database, &name)
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET_OR_DROP))
}

/// A declared exception as the `MetaException` with its message.
fn as_meta(error: thrift::Error) -> thrift::Error {
    match crate::errors::declared_parts(&error) {
        Some((_, message)) => exception(Declared::Meta, message.unwrap_or_default()),
        None => error,
    }
}
