//! Data connectors: create, get, list, alter and drop, each in Hive 4.0's plain form and its
//! `_req` form (HMSHandler, ObjectStore). Hive's `get_dataconnector_core` refuses an unset
//! name with `MetaException` "Data connector name cannot be null."; its store reports a
//! missing connector as `Dataconnector named c does not exist:null`.

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::convert::{principal_type_from_idl, principal_type_to_idl};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What the creates declare.
const CREATE: &[Declared] = &[
    Declared::AlreadyExists,
    Declared::InvalidObject,
    Declared::Meta,
];
/// What `get_dataconnector_req` and the alters declare.
const GET_OR_ALTER: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];
/// What the drops declare.
const DROP: &[Declared] = &[
    Declared::NoSuchObject,
    Declared::InvalidOperation,
    Declared::Meta,
];
/// What `get_dataconnectors` declares.
const LIST: &[Declared] = &[Declared::Meta];

fn spec_from_idl(connector: idl::DataConnector) -> engine::ConnectorSpec {
    engine::ConnectorSpec {
        name: connector.name,
        connector_type: connector.type_,
        url: connector.url,
        description: connector.description,
        parameters: connector.parameters,
        owner_name: connector.owner_name,
        owner_type: connector.owner_type.map(principal_type_from_idl),
    }
}

fn connector_to_idl(connector: engine::DataConnector) -> idl::DataConnector {
    idl::DataConnector {
        name: Some(connector.name),
        type_: Some(connector.connector_type),
        url: Some(connector.url),
        description: connector.description,
        parameters: Some(connector.parameters),
        owner_name: connector.owner_name,
        owner_type: Some(principal_type_to_idl(connector.owner_type)),
        create_time: Some(connector.create_time),
    }
}

/// `create_dataconnector` (Hive 4.0): the owner, when unset, is the caller, as Hive takes it
/// from the caller's UGI.
pub fn create(session: &Session, connector: idl::DataConnector) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    let mut spec = spec_from_idl(connector);
    if spec.owner_name.is_none() {
        spec.owner_name = session.user();
    }
    session
        .store()
        .create_data_connector(spec)
        .map(|_| ())
        .map_err(|error| to_thrift(error, CREATE))
}

/// `create_dataconnector_req`: as `create_dataconnector`.
pub fn create_req(
    session: &Session,
    request: idl::CreateDataConnectorRequest,
) -> thrift::Result<()> {
    create(session, request.connector)
}

/// `get_dataconnector_req`.
pub fn get_req(
    session: &Session,
    request: idl::GetDataConnectorRequest,
) -> thrift::Result<idl::DataConnector> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .require_data_connector(&request.connector_name)
        .map(connector_to_idl)
        .map_err(|error| to_thrift(error, GET_OR_ALTER))
}

/// `get_dataconnectors`: every name, ascending.
pub fn all(session: &Session) -> thrift::Result<Vec<String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .list_data_connectors()
        .map_err(|error| to_thrift(error, LIST))
}

/// `alter_dataconnector` (Hive 4.0).
pub fn alter(session: &Session, name: String, connector: idl::DataConnector) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    session
        .store()
        .alter_data_connector(&name, spec_from_idl(connector))
        .map(|_| ())
        .map_err(|error| to_thrift(error, GET_OR_ALTER))
}

/// `alter_dataconnector_req`: as `alter_dataconnector`.
pub fn alter_req(session: &Session, request: idl::AlterDataConnectorRequest) -> thrift::Result<()> {
    alter(session, request.connector_name, request.new_connector)
}

/// `drop_dataconnector` (Hive 4.0, whose two flags have no field ids: Hive 4.0's clients
/// send them as -1 and -2). `check_references` is not acted on, as in Hive.
pub fn drop(
    session: &Session,
    _check_references: bool,
    if_not_exists: bool,
    name: String,
) -> thrift::Result<()> {
    drop_named(session, &name, if_not_exists)
}

/// `drop_dataconnector_req`: unset flags are false.
pub fn drop_req(session: &Session, request: idl::DropDataConnectorRequest) -> thrift::Result<()> {
    drop_named(
        session,
        &request.connector_name,
        request.if_not_exists.unwrap_or(false),
    )
}

fn drop_named(session: &Session, name: &str, if_not_exists: bool) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    session
        .store()
        .drop_data_connector(name, if_not_exists)
        .map_err(|error| to_thrift(error, DROP))
}
