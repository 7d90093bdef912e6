//! Catalogs: `create_catalog`, `alter_catalog`, `get_catalog`, `get_catalogs`, `drop_catalog`.

use hivestore_idl::hive_metastore::{
    AlterCatalogRequest, CreateCatalogRequest, DropCatalogRequest, GetCatalogRequest,
    GetCatalogResponse, GetCatalogsResponse,
};

use super::normal;
use crate::access::{Need, Target};
use crate::convert::{catalog_from_idl, catalog_to_idl};
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::service::Session;

fn required_name(name: Option<String>, call: &str) -> thrift::Result<String> {
    name.filter(|name| !name.trim().is_empty()).ok_or_else(|| {
        exception(
            Declared::Meta,
            format!("{call}: a catalog name is required"),
        )
    })
}

/// `create_catalog`.
pub fn create(session: &Session, request: CreateCatalogRequest) -> thrift::Result<()> {
    let catalog = request
        .catalog
        .ok_or_else(|| exception(Declared::InvalidObject, "create_catalog: no catalog given"))?;
    let name = normal(catalog.name.as_deref().unwrap_or_default());
    session.authorize(Need::Admin, Target::Catalog(&name))?;
    session
        .store()
        .create_catalog(catalog_from_idl(catalog))
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::CREATE))
}

/// `alter_catalog`: the catalog keeps its name; description and location may change.
pub fn alter(session: &Session, request: AlterCatalogRequest) -> thrift::Result<()> {
    let name = required_name(request.name, "alter_catalog")?;
    session.authorize(Need::Admin, Target::Catalog(&normal(&name)))?;
    let catalog = request.new_cat.ok_or_else(|| {
        exception(
            Declared::InvalidOperation,
            "alter_catalog: no new catalog given",
        )
    })?;
    session
        .store()
        .alter_catalog(&name, catalog_from_idl(catalog))
        .map(|_| ())
        .map_err(|error| to_thrift(error, throws::ALTER))
}

/// `get_catalog`.
pub fn get(session: &Session, request: GetCatalogRequest) -> thrift::Result<GetCatalogResponse> {
    let name = required_name(request.name, "get_catalog")?;
    session.authorize(Need::Anyone, Target::Catalog(&normal(&name)))?;
    let catalog = session
        .store()
        .get_catalog(&name)
        .map_err(|error| to_thrift(error, throws::GET))?;
    Ok(GetCatalogResponse {
        catalog: Some(catalog_to_idl(catalog)),
    })
}

/// `get_catalogs`: every catalog name, sorted.
pub fn list(session: &Session) -> thrift::Result<GetCatalogsResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let names = session
        .store()
        .list_catalogs()
        .map_err(|error| to_thrift(error, throws::LIST))?;
    Ok(GetCatalogsResponse { names: Some(names) })
}

/// `drop_catalog`: refused for `hive` and for a catalog that still has databases.
pub fn drop_one(session: &Session, request: DropCatalogRequest) -> thrift::Result<()> {
    let name = required_name(request.name, "drop_catalog")?;
    session.authorize(Need::Admin, Target::Catalog(&normal(&name)))?;
    match session.store().drop_catalog(&name) {
        Ok(_) => Ok(()),
        Err(hivestore_engine::Error::NoSuchObject(_)) if request.if_exists == Some(true) => Ok(()),
        Err(error) => Err(to_thrift(error, throws::DROP)),
    }
}
