//! Partition listings: all of a table's partitions, by partial values, by filter, by names, and
//! their names. Each call's arguments become a `Listing` in one function, which both paths
//! of a call use: the generic path lists the partitions as IDL structs (`Listing::list`,
//! `Listing::names`); the fast path (`direct::partitions`, `direct::partition_names`) writes
//! the same listing straight to the wire.

use crate::calls::privileges::attach_partition_privileges;
use hivestore_engine::{Error as EngineError, NameListing, PartitionSelection};
use hivestore_idl::hive_metastore::{
    GetPartitionNamesPsRequest, GetPartitionNamesPsResponse, GetPartitionsByFilterRequest,
    GetPartitionsByNamesRequest, GetPartitionsByNamesResult, GetPartitionsPsWithAuthRequest,
    GetPartitionsPsWithAuthResponse, Partition, PartitionSpec, PartitionsRequest,
    PartitionsResponse,
};

use super::partition_specs::SpecTable;
use super::partitions::{limit, throws, to_idl_list, TableName, SELECT};
use super::require_database_name;
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// What a listing call asks the store for: the partitions of `selection` of `table`, at most
/// `max_parts` (below zero: all); a store error becomes the exception of those `declared`.
pub(crate) struct Listing<'a> {
    pub(crate) table: TableName,
    pub(crate) selection: PartitionSelection<'a>,
    pub(crate) max_parts: i32,
    pub(crate) declared: &'static [Declared],
}

impl Listing<'_> {
    pub(crate) fn of(
        table: TableName,
        selection: PartitionSelection<'_>,
        max_parts: i32,
    ) -> Listing<'_> {
        Listing {
            table,
            selection,
            max_parts,
            declared: throws::GET,
        }
    }

    /// The partitions, as IDL structs; refused past the server's partition request limit
    /// ([`Listing::check_limit`]).
    pub(crate) fn list(&self, session: &Session) -> thrift::Result<Vec<Partition>> {
        self.check_limit(session)?;
        let TableName {
            catalog,
            database,
            name,
        } = &self.table;
        let skip_columns = false;
        session
            .store()
            .list_partitions_selected(
                catalog,
                database,
                name,
                self.selection,
                self.max_parts,
                skip_columns,
            )
            .map(to_idl_list)
            .map_err(|error| to_thrift(error, self.declared))
    }

    /// Hive 4's `metastore.limit.partition.request` (`--limit-partition-request`), checked as
    /// its `GetPartitionsHandler` checks it before it fetches whole partitions: a listing by
    /// names asking for more names than the limit, or one that may fetch more than the limit
    /// (`max_parts` below zero or above it) and matches more, is refused. Hive counts a
    /// filter's matches only up to one past the limit, and says so. Name listings are not
    /// limited.
    pub(crate) fn check_limit(&self, session: &Session) -> thrift::Result<()> {
        let Some(limit) = session.settings().limit_partition_request else {
            return Ok(());
        };
        let limit = i64::from(limit);
        let exceeds = |count: i64| count < 0 || count > limit;
        let scanned = match self.selection {
            PartitionSelection::Names(names) => i64::try_from(names.len()).unwrap_or(i64::MAX),
            _ if !exceeds(i64::from(self.max_parts)) => return Ok(()),
            selection => {
                let TableName {
                    catalog,
                    database,
                    name,
                } = &self.table;
                let count = session
                    .store()
                    .count_partitions_selected(catalog, database, name, selection)
                    .map_err(|error| to_thrift(error, self.declared))?;
                let count = i64::try_from(count).unwrap_or(i64::MAX);
                match selection {
                    PartitionSelection::Filter(_) => count.min(limit + 1),
                    _ => count,
                }
            }
        };
        if !exceeds(scanned) {
            return Ok(());
        }
        Err(exception(
            Declared::Meta,
            format!(
                "Number of partitions scanned (={scanned}) on table '{}' exceeds limit (={limit}). \
                 This is controlled on the metastore server by metastore.limit.partition.request.",
                self.table.name
            ),
        ))
    }

    /// The listing, if [`Listing::check_limit`] lets it through.
    pub(crate) fn within_limit(self, session: &Session) -> thrift::Result<Self> {
        self.check_limit(session)?;
        Ok(self)
    }

    /// The partitions' names, in one buffer.
    pub(crate) fn names(&self, session: &Session) -> thrift::Result<NameListing> {
        self.name_listing(session)
            .map_err(|error| to_thrift(error, self.declared))
    }

    /// The partitions' names, or the store's error as it is.
    pub(crate) fn name_listing(&self, session: &Session) -> hivestore_engine::Result<NameListing> {
        let TableName {
            catalog,
            database,
            name,
        } = &self.table;
        session
            .store()
            .partition_names(catalog, database, name, self.selection, self.max_parts)
    }
}

/// The names as the engine takes them, borrowed.
pub(crate) fn borrowed(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// Hive refuses an empty partial spec in the old-style calls (its `makePartName` sees no
/// keys and no values).
fn require_values(values: &[String]) -> thrift::Result<()> {
    if values.is_empty() {
        return Err(exception(
            Declared::Meta,
            "Invalid partition key & values; keys [], values []",
        ));
    }
    Ok(())
}

/// `max_parts` of the name listings: Hive answers every name for 0, unlike the other
/// listings.
fn names_limit(max_parts: i32) -> i32 {
    match max_parts {
        0 => -1,
        other => other,
    }
}

// ---------------------------------------------------------------------------------------------
// The listings of the calls with a fast path: each call's arguments read once, here, and its
// table named (`SELECT`) for both paths.

/// `get_partitions(db_name, tbl_name, max_parts)`.
pub(crate) fn all_listing(
    session: &Session,
    database: &str,
    name: String,
    max_parts: i16,
) -> thrift::Result<Listing<'static>> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    Ok(Listing::of(
        table,
        PartitionSelection::All,
        i32::from(max_parts),
    ))
}

/// `get_partitions_req`.
pub(crate) fn all_req_listing(
    session: &Session,
    request: &PartitionsRequest,
) -> thrift::Result<Listing<'static>> {
    let table = TableName::request(
        request.cat_name.clone(),
        request.db_name.clone(),
        request.tbl_name.clone(),
    );
    table.authorize(session, SELECT)?;
    Ok(Listing::of(
        table,
        PartitionSelection::All,
        limit(request.max_parts),
    ))
}

/// `get_partitions_ps` and `get_partition_names_ps(db_name, tbl_name, part_vals, max_parts)`.
pub(crate) fn ps_listing<'a>(
    session: &Session,
    database: &str,
    name: String,
    values: &'a [String],
    max_parts: i16,
) -> thrift::Result<Listing<'a>> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    require_values(values)?;
    let selection = PartitionSelection::PartialValues(values);
    Ok(Listing::of(table, selection, i32::from(max_parts)))
}

/// `get_partitions_by_filter(db_name, tbl_name, filter, max_parts)`.
pub(crate) fn by_filter_listing<'a>(
    session: &Session,
    database: &str,
    name: String,
    filter: &'a str,
    max_parts: i16,
) -> thrift::Result<Listing<'a>> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    let selection = PartitionSelection::Filter(filter);
    Ok(Listing::of(table, selection, i32::from(max_parts)))
}

/// `get_partitions_by_names(db_name, tbl_name, names)`.
pub(crate) fn by_names_listing<'a>(
    session: &Session,
    database: &str,
    name: String,
    names: &'a [&'a str],
) -> thrift::Result<Listing<'a>> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    Ok(Listing {
        declared: throws::BY_NAMES,
        ..Listing::of(table, PartitionSelection::Names(names), -1)
    })
}

/// `get_partitions_by_names_req`, its partitions only: the request's column statistics and
/// file metadata are not answered.
pub(crate) fn by_names_req_listing<'a>(
    session: &Session,
    request: &GetPartitionsByNamesRequest,
    names: &'a [&'a str],
) -> thrift::Result<Listing<'a>> {
    let (catalog, database) = require_database_name(&request.db_name)?;
    let table = TableName {
        catalog,
        database,
        name: request.tbl_name.clone(),
    };
    table.authorize(session, SELECT)?;
    Ok(Listing {
        declared: throws::BY_NAMES,
        ..Listing::of(table, PartitionSelection::Names(names), -1)
    })
}

/// `get_partition_names(db_name, tbl_name, max_parts)`.
pub(crate) fn names_listing(
    session: &Session,
    database: &str,
    name: String,
    max_parts: i16,
) -> thrift::Result<Listing<'static>> {
    let table = TableName::old_style(database, name)?;
    table.authorize(session, SELECT)?;
    let max_parts = names_limit(i32::from(max_parts));
    Ok(Listing::of(table, PartitionSelection::All, max_parts))
}

// ---------------------------------------------------------------------------------------------
// The calls

/// `get_partitions`.
pub fn get_all(
    session: &Session,
    database: String,
    name: String,
    max_parts: i16,
) -> thrift::Result<Vec<Partition>> {
    all_listing(session, &database, name, max_parts)?.list(session)
}

/// `get_partitions_with_auth`: with the grants of `get_partition_with_auth`.
pub fn get_all_with_auth(
    session: &Session,
    database: String,
    name: String,
    max_parts: i16,
    user: String,
    groups: Vec<String>,
) -> thrift::Result<Vec<Partition>> {
    let mut partitions = get_all(session, database, name, max_parts)?;
    attach_partition_privileges(session, &mut partitions, &user, &groups)?;
    Ok(partitions)
}

/// `get_partitions_req`.
pub fn get_all_req(
    session: &Session,
    request: PartitionsRequest,
) -> thrift::Result<PartitionsResponse> {
    let partitions = all_req_listing(session, &request)?.list(session)?;
    Ok(PartitionsResponse { partitions })
}

/// `get_partitions_pspec`: every partition, in Hive's spec form.
pub fn get_all_pspec(
    session: &Session,
    database: String,
    name: String,
    max_parts: i32,
) -> thrift::Result<Vec<PartitionSpec>> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    let listing = Listing::of(table, PartitionSelection::All, max_parts);
    let partitions = listing.list(session)?;
    Ok(SpecTable::load(session, listing.table, throws::GET)?.specs(partitions))
}

/// `get_partition_names`.
pub fn names(
    session: &Session,
    database: String,
    name: String,
    max_parts: i16,
) -> thrift::Result<Vec<String>> {
    Ok(names_listing(session, &database, name, max_parts)?
        .names(session)?
        .to_vec())
}

/// `fetch_partition_names_req`.
pub fn names_req(session: &Session, request: PartitionsRequest) -> thrift::Result<Vec<String>> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, SELECT)?;
    let max_parts = names_limit(limit(request.max_parts));
    let listing = Listing::of(table, PartitionSelection::All, max_parts);
    Ok(listing.names(session)?.to_vec())
}

/// `get_partitions_ps`.
pub fn get_ps(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    max_parts: i16,
) -> thrift::Result<Vec<Partition>> {
    ps_listing(session, &database, name, &values, max_parts)?.list(session)
}

/// `get_partitions_ps_with_auth`: with the grants of `get_partition_with_auth`.
pub fn get_ps_with_auth(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    max_parts: i16,
    user: String,
    groups: Vec<String>,
) -> thrift::Result<Vec<Partition>> {
    let mut partitions = get_ps(session, database, name, values, max_parts)?;
    attach_partition_privileges(session, &mut partitions, &user, &groups)?;
    Ok(partitions)
}

/// `get_partitions_ps_with_auth_req`: by partial values, or by names when names are given.
pub fn get_ps_req(
    session: &Session,
    request: GetPartitionsPsWithAuthRequest,
) -> thrift::Result<GetPartitionsPsWithAuthResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, SELECT)?;
    let max_parts = limit(request.max_parts);
    let mut partitions = match (request.part_names, request.part_vals) {
        (Some(names), _) if !names.is_empty() => {
            let names = borrowed(&names);
            Listing::of(table, PartitionSelection::Names(&names), max_parts).list(session)?
        }
        (_, values) => {
            let values = values.unwrap_or_default();
            let selection = PartitionSelection::PartialValues(&values);
            Listing::of(table, selection, max_parts).list(session)?
        }
    };
    if let Some(user) = &request.user_name {
        let groups = request.group_names.unwrap_or_default();
        attach_partition_privileges(session, &mut partitions, user, &groups)?;
    }
    Ok(GetPartitionsPsWithAuthResponse { partitions })
}

/// `get_partition_names_ps`.
pub fn names_ps(
    session: &Session,
    database: String,
    name: String,
    values: Vec<String>,
    max_parts: i16,
) -> thrift::Result<Vec<String>> {
    let listing = ps_listing(session, &database, name, &values, max_parts)?;
    Ok(listing.names(session)?.to_vec())
}

/// `get_partition_names_ps_req`.
pub fn names_ps_req(
    session: &Session,
    request: GetPartitionNamesPsRequest,
) -> thrift::Result<GetPartitionNamesPsResponse> {
    let table = TableName::request(request.cat_name, request.db_name, request.tbl_name);
    table.authorize(session, SELECT)?;
    let values = request.part_values.unwrap_or_default();
    let selection = PartitionSelection::PartialValues(&values);
    let listing = Listing::of(table, selection, limit(request.max_parts));
    let names = listing.names(session)?.to_vec();
    Ok(GetPartitionNamesPsResponse { names })
}

/// `get_partitions_by_filter`.
pub fn by_filter(
    session: &Session,
    database: String,
    name: String,
    filter: String,
    max_parts: i16,
) -> thrift::Result<Vec<Partition>> {
    by_filter_listing(session, &database, name, &filter, max_parts)?.list(session)
}

/// `get_partitions_by_filter_req`.
pub fn by_filter_req(
    session: &Session,
    request: GetPartitionsByFilterRequest,
) -> thrift::Result<Vec<Partition>> {
    let table = TableName::request(
        request.cat_name,
        request.db_name.unwrap_or_default(),
        request.tbl_name.unwrap_or_default(),
    );
    table.authorize(session, SELECT)?;
    let filter = request.filter.unwrap_or_default();
    let selection = PartitionSelection::Filter(&filter);
    Listing::of(table, selection, limit(request.max_parts)).list(session)
}

/// `get_part_specs_by_filter`.
pub fn specs_by_filter(
    session: &Session,
    database: String,
    name: String,
    filter: String,
    max_parts: i32,
) -> thrift::Result<Vec<PartitionSpec>> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    let listing = Listing::of(table, PartitionSelection::Filter(&filter), max_parts);
    let partitions = listing.list(session)?;
    Ok(SpecTable::load(session, listing.table, throws::GET)?.specs(partitions))
}

/// `get_num_partitions_by_filter`.
pub fn count_by_filter(
    session: &Session,
    database: String,
    name: String,
    filter: String,
) -> thrift::Result<i32> {
    let table = TableName::old_style(&database, name)?;
    table.authorize(session, SELECT)?;
    let count = session
        .store()
        .count_partitions_selected(
            &table.catalog,
            &table.database,
            &table.name,
            PartitionSelection::Filter(&filter),
        )
        .map_err(|error| match error {
            EngineError::NoSuchObject(_) => exception(
                Declared::NoSuchObject,
                format!(
                    "Specified database/table does not exist : {}.{}",
                    table.database, table.name
                ),
            ),
            other => to_thrift(other, throws::GET),
        })?;
    Ok(i32::try_from(count).unwrap_or(i32::MAX))
}

/// `get_partitions_by_names`.
pub fn by_names(
    session: &Session,
    database: String,
    name: String,
    names: Vec<String>,
) -> thrift::Result<Vec<Partition>> {
    let names = borrowed(&names);
    by_names_listing(session, &database, name, &names)?.list(session)
}

/// `get_partitions_by_names_req`.
pub fn by_names_req(
    session: &Session,
    request: GetPartitionsByNamesRequest,
) -> thrift::Result<GetPartitionsByNamesResult> {
    let names = request.names.as_deref().map(borrowed).unwrap_or_default();
    let partitions = by_names_req_listing(session, &request, &names)?.list(session)?;
    Ok(GetPartitionsByNamesResult {
        partitions,
        dictionary: None,
    })
}
