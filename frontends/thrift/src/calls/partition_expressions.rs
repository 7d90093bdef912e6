//! The partition calls that take Hive's serialised expressions: `get_partitions_by_expr`,
//! `get_partitions_spec_by_expr`, `get_partition_names_req` and the expressions of
//! `drop_partitions_req`. As Hive's `ObjectStore` does, an expression whose display reads as
//! a filter Hive pushes down is answered by that filter (no unknown partitions); any other is
//! evaluated on the partitions' names (`PartitionPruner`'s way), candidates first narrowed by
//! the filter planning where the expression allows.

use hivestore_engine::{
    partition_name_to_values, CompiledExpression, Error as EngineError, PartitionExpression,
    PartitionSelection,
};
use hivestore_idl::hive_metastore::{
    DropPartitionsExpr, PartitionsByExprRequest, PartitionsByExprResult, PartitionsSpecByExprResult,
};

use super::partition_listings::{borrowed, Listing};
use super::partition_specs::SpecTable;
use super::partitions::{limit, throws, TableName, SELECT};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

/// Hive's `hive.exec.default.partition.name`, used when a request names none.
pub(crate) const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";

/// The expression Hive's client sends for "no filter": one byte, 0xFF.
const EMPTY_EXPRESSION: &[u8] = &[0xff];

/// What an expression selects of a table.
enum Selected {
    /// The filter Hive answers the expression with.
    Filter(String),
    /// The names the expression keeps, and whether it was unknown for some.
    Names {
        names: Vec<String>,
        has_unknown: bool,
    },
}

impl Selected {
    fn has_unknown(&self) -> bool {
        matches!(
            self,
            Selected::Names {
                has_unknown: true,
                ..
            }
        )
    }

    /// The names selected, at most `max_parts` (below zero: all).
    fn names(
        self,
        session: &Session,
        table: TableName,
        max_parts: i32,
    ) -> thrift::Result<Vec<String>> {
        match self {
            Selected::Filter(filter) => {
                let listing = Listing::of(table, PartitionSelection::Filter(&filter), max_parts);
                Ok(listing.names(session)?.to_vec())
            }
            Selected::Names { mut names, .. } => {
                if let Ok(max_parts) = usize::try_from(max_parts) {
                    names.truncate(max_parts);
                }
                Ok(names)
            }
        }
    }

    /// Calls `answer` with the listing of the partitions selected, at most `max_parts`.
    fn with_listing<R>(
        self,
        table: TableName,
        max_parts: i32,
        answer: impl FnOnce(Listing<'_>) -> thrift::Result<R>,
    ) -> thrift::Result<R> {
        match self {
            Selected::Filter(filter) => answer(Listing::of(
                table,
                PartitionSelection::Filter(&filter),
                max_parts,
            )),
            Selected::Names { mut names, .. } => {
                if let Ok(max_parts) = usize::try_from(max_parts) {
                    names.truncate(max_parts);
                }
                let names = borrowed(&names);
                answer(Listing::of(table, PartitionSelection::Names(&names), -1))
            }
        }
    }

    /// The partitions selected, at most `max_parts`, within the server's request limit.
    fn partitions(
        self,
        session: &Session,
        table: TableName,
        max_parts: i32,
    ) -> thrift::Result<(Vec<hivestore_idl::hive_metastore::Partition>, TableName)> {
        self.with_listing(table, max_parts, |listing| {
            Ok((listing.list(session)?, listing.table))
        })
    }
}

/// What `get_partitions_by_expr` answers, for both of its paths: the partitions an
/// expression keeps of a table, and whether it was unknown for some.
pub(crate) struct ExprListing {
    table: TableName,
    selected: Selected,
    max_parts: i32,
}

impl ExprListing {
    /// Decodes and evaluates the expression of `request`.
    pub(crate) fn of(session: &Session, request: &PartitionsByExprRequest) -> thrift::Result<Self> {
        let (table, selected) = select_request(session, request)?;
        Ok(ExprListing {
            table,
            selected,
            max_parts: limit(request.max_parts),
        })
    }

    /// Hive's `hasUnknownPartitions`.
    pub(crate) fn has_unknown(&self) -> bool {
        self.selected.has_unknown()
    }

    /// Calls `answer` with the listing of the partitions kept.
    pub(crate) fn with_listing<R>(
        self,
        answer: impl FnOnce(Listing<'_>) -> thrift::Result<R>,
    ) -> thrift::Result<R> {
        self.selected
            .with_listing(self.table, self.max_parts, answer)
    }
}

/// Decodes `bytes` and selects what they keep of `table`.
fn select(
    session: &Session,
    table: &TableName,
    bytes: &[u8],
    default_partition_name: Option<&str>,
) -> thrift::Result<Selected> {
    let keys = session
        .store()
        .get_table(&table.catalog, &table.database, &table.name)
        .map_err(|error| match error {
            // Hive's ObjectStore, looking the table up before the expression.
            EngineError::NoSuchObject(_) => exception(
                Declared::NoSuchObject,
                format!(
                    "Specified database/table does not exist : {}.{}",
                    table.database, table.name
                ),
            ),
            other => to_thrift(other, throws::GET),
        })?
        .partition_keys;
    let expression =
        PartitionExpression::decode(bytes).map_err(|error| to_thrift(error, throws::GET))?;
    let default_name = default_partition_name
        .filter(|name| !name.is_empty())
        .unwrap_or(DEFAULT_PARTITION_NAME);
    let compiled = expression
        .compile(&keys, default_name)
        .map_err(|error| to_thrift(error, throws::GET))?;
    let key_names: Vec<String> = keys.iter().map(|key| key.name.clone()).collect();
    if let Some(filter) = compiled.exact_filter(&key_names) {
        return Ok(Selected::Filter(filter));
    }
    prune(session, table, &compiled, &key_names)
}

/// Evaluates the expression on the names of the candidates it leaves.
fn prune(
    session: &Session,
    table: &TableName,
    compiled: &CompiledExpression,
    key_names: &[String],
) -> thrift::Result<Selected> {
    let candidates = compiled.candidate_filter(key_names);
    let selection = match &candidates {
        Some(filter) => PartitionSelection::Filter(filter),
        None => PartitionSelection::All,
    };
    let listing = Listing::of(table.clone(), selection, -1).names(session)?;
    let mut names = Vec::new();
    let mut has_unknown = false;
    for name in listing.iter() {
        match compiled.evaluate(&partition_name_to_values(name)) {
            Some(false) => {}
            Some(true) => names.push(name.to_string()),
            None => {
                has_unknown = true;
                names.push(name.to_string());
            }
        }
    }
    Ok(Selected::Names { names, has_unknown })
}

/// The table a request names (`SELECT`, for both paths of `get_partitions_by_expr`), and what
/// its expression keeps of it.
fn select_request(
    session: &Session,
    request: &PartitionsByExprRequest,
) -> thrift::Result<(TableName, Selected)> {
    let table = request_table(request);
    table.authorize(session, SELECT)?;
    let selected = select(
        session,
        &table,
        &request.expr,
        request.default_partition_name.as_deref(),
    )?;
    Ok((table, selected))
}

fn request_table(request: &PartitionsByExprRequest) -> TableName {
    TableName::request(
        request.cat_name.clone(),
        request.db_name.clone(),
        request.tbl_name.clone(),
    )
}

/// `get_partitions_by_expr`.
pub fn by_expr(
    session: &Session,
    request: PartitionsByExprRequest,
) -> thrift::Result<PartitionsByExprResult> {
    let listing = ExprListing::of(session, &request)?;
    let has_unknown_partitions = listing.has_unknown();
    let partitions = listing.with_listing(|listing| listing.list(session))?;
    Ok(PartitionsByExprResult {
        partitions,
        has_unknown_partitions,
    })
}

/// `get_partitions_spec_by_expr`: the partitions in spec form, as `get_part_specs_by_filter`
/// answers them.
pub fn specs_by_expr(
    session: &Session,
    request: PartitionsByExprRequest,
) -> thrift::Result<PartitionsSpecByExprResult> {
    let (table, selected) = select_request(session, &request)?;
    let has_unknown_partitions = selected.has_unknown();
    let (partitions, table) = selected.partitions(session, table, limit(request.max_parts))?;
    let partitions_spec = SpecTable::load(session, table, throws::GET)?.specs(partitions);
    Ok(PartitionsSpecByExprResult {
        partitions_spec,
        has_unknown_partitions,
    })
}

/// `get_partition_names_req`: the names an expression keeps (Hive's empty expression keeps
/// every name), at most `maxParts`.
pub fn names_by_expr(
    session: &Session,
    request: PartitionsByExprRequest,
) -> thrift::Result<Vec<String>> {
    let max_parts = limit(request.max_parts);
    if request.expr.is_empty() || request.expr == EMPTY_EXPRESSION {
        let table = request_table(&request);
        table.authorize(session, SELECT)?;
        let listing = Listing::of(table, PartitionSelection::All, max_parts);
        return Ok(listing.names(session)?.to_vec());
    }
    let (table, selected) = select_request(session, &request)?;
    selected.names(session, table, max_parts)
}

/// The names `drop_partitions_req`'s expressions select, as Hive 4's `HMSHandler` takes them:
/// an expression with unknown partitions is refused, and without `ifExists` each expression
/// must select at least one partition (counted over all of them).
pub(crate) fn names_to_drop(
    session: &Session,
    table: &TableName,
    expressions: &[DropPartitionsExpr],
    if_exists: bool,
) -> thrift::Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut selected_count = 0usize;
    for expression in expressions {
        let selected = select(session, table, &expression.expr, None)?;
        if selected.has_unknown() {
            return Err(exception(
                Declared::Meta,
                "Unexpected unknown partitions to drop",
            ));
        }
        let found = selected.names(session, table.clone(), -1)?;
        selected_count += found.len();
        names.extend(found);
    }
    if selected_count < expressions.len() && !if_exists {
        return Err(exception(
            Declared::NoSuchObject,
            "Some partitions to drop are missing",
        ));
    }
    names.sort_unstable();
    names.dedup();
    Ok(names)
}
