//! HPL/SQL's stored procedures and packages, as Hive 4 keeps them: `create_stored_procedure`
//! and `add_package` create or replace, `get_stored_procedure`, `find_package`, the drops and
//! the listings (HMSHandler, ObjectStore).
//!
//! Hive answers a procedure or package that is not there with no result at all (its handler
//! returns null), which its clients raise as `TApplicationException` `MISSING_RESULT`,
//! `<method> failed: unknown result`; hivestore answers that exception with that text, so a
//! client sees what it sees from Hive.

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;
use thrift::{ApplicationError, ApplicationErrorKind};

use super::{catalog_name_or_default, normal};
use crate::access::{Need, Privilege, Target};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What `create_stored_procedure` declares.
const CREATE_PROCEDURE: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];
/// What `get_stored_procedure` and `find_package` declare.
const GET: &[Declared] = &[Declared::Meta, Declared::NoSuchObject];
/// What the drops, listings and `add_package` declare.
const META: &[Declared] = &[Declared::Meta];

/// Hive's answer for a routine that is not there: a reply without its result.
fn missing_result(method: &str) -> thrift::Error {
    thrift::Error::Application(ApplicationError::new(
        ApplicationErrorKind::MissingResult,
        format!("{method} failed: unknown result"),
    ))
}

/// Names what a call does to database `catalog.database`, or to the whole catalog when it
/// names no database.
fn authorize(
    session: &Session,
    need: Need,
    catalog: Option<&str>,
    database: Option<&str>,
) -> thrift::Result<()> {
    let catalog = normal(catalog_name_or_default(catalog.unwrap_or_default()));
    match database {
        Some(database) => session.authorize(
            need,
            Target::Database {
                catalog: &catalog,
                database: &normal(database),
            },
        ),
        None => session.authorize(need, Target::Catalog(&catalog)),
    }
}

fn place<'a>(catalog: &'a str, database: &'a str, name: &'a str) -> engine::RoutineName<'a> {
    engine::RoutineName {
        catalog: Some(catalog),
        database: Some(database),
        name: Some(name),
    }
}

/// `create_stored_procedure`: stores the procedure, replacing one of the same name.
pub fn create_procedure(session: &Session, procedure: idl::StoredProcedure) -> thrift::Result<()> {
    let need = Need::Privilege(Privilege::Create);
    let (catalog, database) = (procedure.cat_name.as_deref(), procedure.db_name.as_deref());
    authorize(session, need, catalog, database)?;
    let procedure = engine::NewStoredProcedure {
        catalog: procedure.cat_name,
        database: procedure.db_name,
        name: procedure.name,
        owner_name: procedure.owner_name,
        source: procedure.source,
    };
    session
        .store()
        .create_stored_procedure(procedure)
        .map_err(|error| to_thrift(error, CREATE_PROCEDURE))
}

/// `get_stored_procedure`.
pub fn get_procedure(
    session: &Session,
    request: idl::StoredProcedureRequest,
) -> thrift::Result<idl::StoredProcedure> {
    let (catalog, database) = (
        Some(request.cat_name.as_str()),
        Some(request.db_name.as_str()),
    );
    authorize(session, Need::Anyone, catalog, database)?;
    let found = session
        .store()
        .get_stored_procedure(place(
            &request.cat_name,
            &request.db_name,
            &request.proc_name,
        ))
        .map_err(|error| to_thrift(error, GET))?;
    let procedure = found.ok_or_else(|| missing_result("get_stored_procedure"))?;
    Ok(idl::StoredProcedure {
        name: Some(procedure.name),
        db_name: Some(procedure.db_name),
        cat_name: Some(procedure.cat_name),
        owner_name: Some(procedure.owner_name),
        source: Some(procedure.source),
    })
}

/// `drop_stored_procedure`: a procedure that is not there is no error, as in Hive.
pub fn drop_procedure(
    session: &Session,
    request: idl::StoredProcedureRequest,
) -> thrift::Result<()> {
    let need = Need::Privilege(Privilege::Drop);
    let (catalog, database) = (
        Some(request.cat_name.as_str()),
        Some(request.db_name.as_str()),
    );
    authorize(session, need, catalog, database)?;
    session
        .store()
        .drop_stored_procedure(place(
            &request.cat_name,
            &request.db_name,
            &request.proc_name,
        ))
        .map_err(|error| to_thrift(error, META))
}

/// `get_all_stored_procedures`: of one database, or of the whole catalog.
pub fn all_procedures(
    session: &Session,
    request: idl::ListStoredProcedureRequest,
) -> thrift::Result<Vec<String>> {
    let database = request.db_name.as_deref();
    authorize(session, Need::Anyone, Some(&request.cat_name), database)?;
    session
        .store()
        .list_stored_procedures(Some(&request.cat_name), request.db_name.as_deref())
        .map_err(|error| to_thrift(error, META))
}

/// `add_package`: stores the package, replacing one of the same name.
pub fn add_package(session: &Session, request: idl::AddPackageRequest) -> thrift::Result<()> {
    let need = Need::Privilege(Privilege::Create);
    let (catalog, database) = (request.cat_name.as_deref(), request.db_name.as_deref());
    authorize(session, need, catalog, database)?;
    let package = engine::NewPackage {
        catalog: request.cat_name,
        database: request.db_name,
        name: request.package_name,
        owner_name: request.owner_name,
        header: request.header,
        body: request.body,
    };
    session
        .store()
        .add_package(package)
        .map_err(|error| to_thrift(error, META))
}

/// `find_package`.
pub fn find_package(
    session: &Session,
    request: idl::GetPackageRequest,
) -> thrift::Result<idl::Package> {
    let (catalog, database) = (
        Some(request.cat_name.as_str()),
        Some(request.db_name.as_str()),
    );
    authorize(session, Need::Anyone, catalog, database)?;
    let found = session
        .store()
        .find_package(place(
            &request.cat_name,
            &request.db_name,
            &request.package_name,
        ))
        .map_err(|error| to_thrift(error, GET))?;
    let package = found.ok_or_else(|| missing_result("find_package"))?;
    Ok(idl::Package {
        cat_name: Some(package.cat_name),
        db_name: Some(package.db_name),
        package_name: Some(package.name),
        owner_name: Some(package.owner_name),
        header: Some(package.header),
        body: Some(package.body),
    })
}

/// `drop_package`: a package that is not there is no error, as in Hive.
pub fn drop_package(session: &Session, request: idl::DropPackageRequest) -> thrift::Result<()> {
    let need = Need::Privilege(Privilege::Drop);
    let (catalog, database) = (
        Some(request.cat_name.as_str()),
        Some(request.db_name.as_str()),
    );
    authorize(session, need, catalog, database)?;
    session
        .store()
        .drop_package(place(
            &request.cat_name,
            &request.db_name,
            &request.package_name,
        ))
        .map_err(|error| to_thrift(error, META))
}

/// `get_all_packages`: of one database, or of the whole catalog.
pub fn all_packages(
    session: &Session,
    request: idl::ListPackageRequest,
) -> thrift::Result<Vec<String>> {
    let database = request.db_name.as_deref();
    authorize(session, Need::Anyone, Some(&request.cat_name), database)?;
    session
        .store()
        .list_packages(Some(&request.cat_name), request.db_name.as_deref())
        .map_err(|error| to_thrift(error, META))
}
