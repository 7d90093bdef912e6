//! The schema registry: `create_ischema`, `alter_ischema`, `get_ischema`, `drop_ischema`,
//! `add_schema_version`, `get_schema_version`, `get_schema_latest_version`,
//! `get_schema_all_versions`, `drop_schema_version`, `get_schemas_by_cols`,
//! `map_schema_version_to_serde`, `set_schema_version_state`, `add_serde`, `get_serde`.
//!
//! Hive's `ObjectStore` dereferences the enumerations of a schema without a check, so a
//! missing or unknown one fails there; here it is a `MetaException` that names the field.

use hivestore_engine::{self as engine, SchemaName};
use hivestore_idl::hive_metastore as idl;

use super::{catalog_name_or_default, normal};
use crate::access::{Need, Privilege, Target};
use crate::convert::{fields_from_idl, fields_to_idl, serde_from_idl, serde_to_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// What `create_ischema` and `add_schema_version` declare.
const CREATE: &[Declared] = &[
    Declared::AlreadyExists,
    Declared::NoSuchObject,
    Declared::Meta,
];
/// What the reads, `alter_ischema`, `drop_schema_version` and the version updates declare.
const GET: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];
/// What `drop_ischema` declares.
const DROP: &[Declared] = &[
    Declared::NoSuchObject,
    Declared::InvalidOperation,
    Declared::Meta,
];
/// What `get_schemas_by_cols` declares.
const QUERY: &[Declared] = &[Declared::Meta];
/// What `add_serde` declares.
const ADD_SERDE: &[Declared] = &[Declared::AlreadyExists, Declared::Meta];

fn meta(message: impl Into<String>) -> thrift::Error {
    exception(Declared::Meta, message)
}

/// An enumeration's number when it is one of `known`, else a `MetaException` naming it.
fn known<T: Copy + PartialEq>(
    value: Option<T>,
    known: &[T],
    number: fn(T) -> i32,
    what: &str,
) -> thrift::Result<i32> {
    match value {
        Some(value) if known.contains(&value) => Ok(number(value)),
        Some(value) => Err(meta(format!("{} is not a valid {what}", number(value)))),
        None => Err(meta(format!("{what} cannot be null"))),
    }
}

fn schema_name(name: Option<idl::ISchemaName>) -> thrift::Result<SchemaName> {
    let name = name.ok_or_else(|| meta("The schema's name cannot be null"))?;
    Ok(SchemaName {
        catalog: name.cat_name,
        database: name.db_name,
        schema: name.schema_name,
    })
}

/// Names what a call does to the database schema `name` is in.
fn authorize(session: &Session, need: Need, name: &SchemaName) -> thrift::Result<()> {
    authorize_database(
        session,
        need,
        name.catalog.as_deref().unwrap_or_default(),
        name.database.as_deref().unwrap_or_default(),
    )
}

fn authorize_database(
    session: &Session,
    need: Need,
    catalog: &str,
    database: &str,
) -> thrift::Result<()> {
    let target = Target::Database {
        catalog: &normal(catalog_name_or_default(catalog)),
        database: &normal(database),
    };
    session.authorize(need, target)
}

fn schema_from_idl(schema: idl::ISchema) -> thrift::Result<engine::ISchema> {
    Ok(engine::ISchema {
        schema_type: known(
            schema.schema_type,
            idl::SchemaType::ENUM_VALUES,
            |v| v.0,
            "SchemaType",
        )?,
        name: schema
            .name
            .ok_or_else(|| meta("ISchema name cannot be null"))?,
        cat_name: schema.cat_name.unwrap_or_default(),
        db_name: schema
            .db_name
            .ok_or_else(|| meta("ISchema dbName cannot be null"))?,
        compatibility: compatibility(schema.compatibility)?,
        validation_level: validation(schema.validation_level)?,
        can_evolve: schema.can_evolve.unwrap_or(false),
        schema_group: schema.schema_group,
        description: schema.description,
    })
}

fn compatibility(value: Option<idl::SchemaCompatibility>) -> thrift::Result<i32> {
    let values = idl::SchemaCompatibility::ENUM_VALUES;
    known(value, values, |v| v.0, "SchemaCompatibility")
}

fn validation(value: Option<idl::SchemaValidation>) -> thrift::Result<i32> {
    known(
        value,
        idl::SchemaValidation::ENUM_VALUES,
        |v| v.0,
        "SchemaValidation",
    )
}

fn state(value: Option<idl::SchemaVersionState>) -> thrift::Result<i32> {
    let values = idl::SchemaVersionState::ENUM_VALUES;
    known(value, values, |v| v.0, "SchemaVersionState")
}

fn schema_to_idl(schema: engine::ISchema) -> idl::ISchema {
    idl::ISchema {
        schema_type: Some(idl::SchemaType(schema.schema_type)),
        name: Some(schema.name),
        cat_name: Some(schema.cat_name),
        db_name: Some(schema.db_name),
        compatibility: Some(idl::SchemaCompatibility(schema.compatibility)),
        validation_level: Some(idl::SchemaValidation(schema.validation_level)),
        can_evolve: Some(schema.can_evolve),
        schema_group: schema.schema_group,
        description: schema.description,
    }
}

fn version_to_idl(version: engine::SchemaVersion) -> idl::SchemaVersion {
    idl::SchemaVersion {
        schema: Some(idl::ISchemaName {
            cat_name: Some(version.cat_name),
            db_name: Some(version.db_name),
            schema_name: Some(version.schema_name),
        }),
        version: Some(version.version),
        created_at: Some(version.created_at),
        cols: Some(fields_to_idl(version.cols)),
        state: (version.state > 0).then_some(idl::SchemaVersionState(version.state)),
        description: version.description,
        schema_text: version.schema_text,
        fingerprint: version.fingerprint,
        name: version.name,
        ser_de: version.serde.map(serde_to_idl),
    }
}

fn descriptor(
    descriptor: Option<idl::SchemaVersionDescriptor>,
) -> thrift::Result<(SchemaName, i32)> {
    let descriptor = descriptor.ok_or_else(|| meta("The schema version cannot be null"))?;
    Ok((
        schema_name(descriptor.schema)?,
        descriptor.version.unwrap_or(0),
    ))
}

/// `create_ischema`.
pub fn create(session: &Session, schema: idl::ISchema) -> thrift::Result<()> {
    let schema = schema_from_idl(schema)?;
    let need = Need::Privilege(Privilege::Create);
    authorize_database(session, need, &schema.cat_name, &schema.db_name)?;
    session
        .store()
        .create_schema(schema)
        .map_err(|error| to_thrift(error, CREATE))
}

/// `alter_ischema`: compatibility, validation level, evolvability, and group and
/// description when given; name and type stay.
pub fn alter(session: &Session, request: idl::AlterISchemaRequest) -> thrift::Result<()> {
    let name = schema_name(request.name)?;
    authorize(session, Need::Privilege(Privilege::Alter), &name)?;
    let new = request
        .new_schema
        .ok_or_else(|| meta("The new schema cannot be null"))?;
    let new = engine::ISchema {
        compatibility: compatibility(new.compatibility)?,
        validation_level: validation(new.validation_level)?,
        can_evolve: new.can_evolve.unwrap_or(false),
        schema_group: new.schema_group,
        description: new.description,
        ..engine::ISchema::default()
    };
    session
        .store()
        .alter_schema(&name, new)
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET))
}

/// `get_ischema`.
pub fn get(session: &Session, name: idl::ISchemaName) -> thrift::Result<idl::ISchema> {
    let name = schema_name(Some(name))?;
    authorize(session, Need::Anyone, &name)?;
    let found = session
        .store()
        .get_schema(&name)
        .map_err(|error| to_thrift(error, GET))?;
    found.map(schema_to_idl).ok_or_else(|| {
        exception(
            Declared::NoSuchObject,
            format!("No schema named {name} exists"),
        )
    })
}

/// `drop_ischema`: refused while the schema has a version.
pub fn drop(session: &Session, name: idl::ISchemaName) -> thrift::Result<()> {
    let name = schema_name(Some(name))?;
    authorize(session, Need::Privilege(Privilege::Drop), &name)?;
    session
        .store()
        .drop_schema(&name)
        .map(|_| ())
        .map_err(|error| to_thrift(error, DROP))
}

/// `add_schema_version`.
pub fn add_version(session: &Session, version: idl::SchemaVersion) -> thrift::Result<()> {
    let name = schema_name(version.schema)?;
    authorize(session, Need::Privilege(Privilege::Create), &name)?;
    let state = match version.state {
        None => 0,
        given => state(given)?,
    };
    let stored = engine::SchemaVersion {
        version: version.version.unwrap_or(0),
        created_at: version.created_at.unwrap_or(0),
        cols: fields_from_idl(version.cols),
        state,
        description: version.description,
        schema_text: version.schema_text,
        fingerprint: version.fingerprint,
        name: version.name,
        serde: version.ser_de.map(serde_from_idl),
        ..engine::SchemaVersion::default()
    };
    session
        .store()
        .add_schema_version(&name, stored)
        .map_err(|error| to_thrift(error, CREATE))
}

/// `get_schema_version`: Hive's message runs "exists" into the descriptor, as here.
pub fn get_version(
    session: &Session,
    version: idl::SchemaVersionDescriptor,
) -> thrift::Result<idl::SchemaVersion> {
    let (name, number) = descriptor(Some(version))?;
    authorize(session, Need::Anyone, &name)?;
    let found = session
        .store()
        .get_schema_version(&name, number)
        .map_err(|error| to_thrift(error, GET))?;
    found.map(version_to_idl).ok_or_else(|| {
        let described = name.describe_version(number);
        exception(
            Declared::NoSuchObject,
            format!("No schema version {described}exists"),
        )
    })
}

/// `get_schema_latest_version`.
pub fn latest_version(
    session: &Session,
    name: idl::ISchemaName,
) -> thrift::Result<idl::SchemaVersion> {
    let mut versions = all_versions(session, name)?;
    Ok(versions.swap_remove(0))
}

/// `get_schema_all_versions`: the latest first; none is `NoSuchObjectException`, whether
/// the schema has no version or does not exist.
pub fn all_versions(
    session: &Session,
    name: idl::ISchemaName,
) -> thrift::Result<Vec<idl::SchemaVersion>> {
    let name = schema_name(Some(name))?;
    authorize(session, Need::Anyone, &name)?;
    let versions = session
        .store()
        .schema_versions(&name)
        .map_err(|error| to_thrift(error, GET))?;
    if versions.is_empty() {
        let message = format!("No versions of schema {name}exist");
        return Err(exception(Declared::NoSuchObject, message));
    }
    Ok(versions.into_iter().map(version_to_idl).collect())
}

/// `drop_schema_version`.
pub fn drop_version(
    session: &Session,
    version: idl::SchemaVersionDescriptor,
) -> thrift::Result<()> {
    let (name, number) = descriptor(Some(version))?;
    authorize(session, Need::Privilege(Privilege::Drop), &name)?;
    session
        .store()
        .drop_schema_version(&name, number)
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET))
}

/// `get_schemas_by_cols`.
pub fn by_columns(
    session: &Session,
    request: idl::FindSchemasByColsRqst,
) -> thrift::Result<idl::FindSchemasByColsResp> {
    session.authorize(Need::Anyone, Target::Server)?;
    let found = session
        .store()
        .find_schemas_by_columns(
            request.col_name.as_deref(),
            request.col_namespace.as_deref(),
            request.type_.as_deref(),
        )
        .map_err(|error| to_thrift(error, QUERY))?;
    let descriptors = found.into_iter().map(|found| idl::SchemaVersionDescriptor {
        schema: Some(idl::ISchemaName {
            cat_name: Some(found.catalog),
            db_name: Some(found.database),
            schema_name: Some(found.schema),
        }),
        version: Some(found.version),
    });
    Ok(idl::FindSchemasByColsResp {
        schema_versions: Some(descriptors.collect()),
    })
}

/// `map_schema_version_to_serde`.
pub fn map_to_serde(
    session: &Session,
    request: idl::MapSchemaVersionToSerdeRequest,
) -> thrift::Result<()> {
    let (name, number) = descriptor(request.schema_version)?;
    authorize(session, Need::Privilege(Privilege::Create), &name)?;
    let serde = request
        .serde_name
        .ok_or_else(|| meta("The SerDe name cannot be null"))?;
    session
        .store()
        .map_schema_version_to_serde(&name, number, &serde)
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET))
}

/// `set_schema_version_state`.
pub fn set_state(
    session: &Session,
    request: idl::SetSchemaVersionStateRequest,
) -> thrift::Result<()> {
    let (name, number) = descriptor(request.schema_version)?;
    authorize(session, Need::Privilege(Privilege::Create), &name)?;
    let state = state(request.state)?;
    session
        .store()
        .set_schema_version_state(&name, number, state)
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET))
}

/// `add_serde`.
pub fn add_serde(session: &Session, serde: idl::SerDeInfo) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    if serde.name.is_none() {
        return Err(meta("A SerDe to add needs a name"));
    }
    session
        .store()
        .add_serde(serde_from_idl(serde))
        .map_err(|error| to_thrift(error, ADD_SERDE))
}

/// `get_serde`: Hive's store answers a missing name with this message.
pub fn get_serde(
    session: &Session,
    request: idl::GetSerdeRequest,
) -> thrift::Result<idl::SerDeInfo> {
    session.authorize(Need::Anyone, Target::Server)?;
    let name = request.serde_name.unwrap_or_default();
    let found = session
        .store()
        .get_serde(&name)
        .map_err(|error| to_thrift(error, GET))?;
    found
        .map(serde_to_idl)
        .ok_or_else(|| exception(Declared::NoSuchObject, format!("No SerDe named {name}")))
}
