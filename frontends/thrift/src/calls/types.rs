//! Hive's old type registry: `create_type`, `get_type`, `drop_type`, `get_type_all`.

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::convert::{fields_from_idl, fields_to_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// What `create_type` declares.
const CREATE: &[Declared] = &[
    Declared::AlreadyExists,
    Declared::InvalidObject,
    Declared::Meta,
];
/// What `get_type` and `drop_type` declare.
const GET_OR_DROP: &[Declared] = &[Declared::Meta, Declared::NoSuchObject];

/// `create_type`: `true` once stored. A missing or invalid name is Hive's
/// `InvalidObjectException` ("Invalid type name").
pub fn create(session: &Session, typedef: idl::Type) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    let Some(name) = typedef.name else {
        return Err(exception(Declared::InvalidObject, "Invalid type name"));
    };
    let typedef = engine::TypeDef {
        name,
        type1: typedef.type1,
        type2: typedef.type2,
        fields: fields_from_idl(typedef.fields),
    };
    session
        .store()
        .create_type(typedef)
        .map(|()| true)
        .map_err(|error| to_thrift(error, CREATE))
}

/// `get_type`: Hive's message quotes the name as asked.
pub fn get(session: &Session, name: String) -> thrift::Result<idl::Type> {
    session.authorize(Need::Anyone, Target::Server)?;
    let found = session
        .store()
        .get_type(&name)
        .map_err(|error| to_thrift(error, GET_OR_DROP))?;
    let Some(typedef) = found else {
        return Err(exception(
            Declared::NoSuchObject,
            format!("Type \"{name}\" not found."),
        ));
    };
    Ok(idl::Type {
        name: Some(typedef.name),
        type1: typedef.type1,
        type2: typedef.type2,
        fields: Some(fields_to_idl(typedef.fields)),
    })
}

/// `drop_type`: `true`, as Hive 4 answers whether or not the type existed.
pub fn drop(session: &Session, name: String) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    session
        .store()
        .drop_type(&name)
        .map_err(|error| to_thrift(error, GET_OR_DROP))
}

/// `get_type_all`: Hive's handler has never implemented it and answers this
/// `MetaException`; so does hivestore.
pub fn all(
    session: &Session,
    _name: String,
) -> thrift::Result<std::collections::BTreeMap<String, idl::Type>> {
    session.authorize(Need::Anyone, Target::Server)?;
    Err(exception(Declared::Meta, "Not yet implemented"))
}
