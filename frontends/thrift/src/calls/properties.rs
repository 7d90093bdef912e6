//! Hive 4's property store: `set_properties` validates and stores typed properties of the
//! cluster, databases and tables in a namespace (`hms`), `get_properties` selects property
//! maps by name prefix and predicate, answering their properties as text. The rules are the
//! engine's (`hivestore_engine::properties`).

use std::collections::BTreeMap;

use hivestore_engine::PropertyQuery;
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What both calls declare.
const DECLARED: &[Declared] = &[Declared::Meta, Declared::NoSuchObject];

/// `set_properties`: every property set, or none; `true` when they are stored.
pub fn set(session: &Session, request: idl::PropertySetRequest) -> thrift::Result<bool> {
    session.authorize(Need::Admin, Target::Server)?;
    let properties = request.property_map.unwrap_or_default();
    session
        .store()
        .set_properties(&request.name_space, &properties)
        .map_err(|error| to_thrift(error, DECLARED))?;
    Ok(true)
}

/// `get_properties`: the selected maps by name (without the namespace).
pub fn get(
    session: &Session,
    request: idl::PropertyGetRequest,
) -> thrift::Result<idl::PropertyGetResponse> {
    session.authorize(Need::Superuser, Target::Server)?;
    let query = PropertyQuery {
        prefix: request.map_prefix.as_deref(),
        predicate: request.map_predicate.as_deref(),
        selection: request.map_selection.as_deref(),
    };
    let maps: BTreeMap<String, BTreeMap<String, String>> = session
        .store()
        .select_properties(&request.name_space, &query)
        .map_err(|error| to_thrift(error, DECLARED))?;
    Ok(idl::PropertyGetResponse {
        properties: Some(maps),
    })
}
