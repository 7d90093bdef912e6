//! Table constraints: the six `add_*` calls, `drop_constraint`, the `get_*` reads, and tables
//! created with their constraints (`create_table_with_constraints`, `create_table_req`).
//!
//! `add_*` and `drop_constraint` declare only `NoSuchObjectException` and `MetaException`;
//! the `InvalidObjectException`s Hive's store raises there (a missing column, a name taken)
//! are not in the IDL, so Hive's Java server turns them into a bare `TApplicationException`.
//! hivestore answers them as `MetaException` with Hive's message.

use hivestore_engine::{ConstraintKind, ConstraintRow, Error as EngineError, ForeignKeyFilter};
use hivestore_idl::hive_metastore::{
    AddCheckConstraintRequest, AddDefaultConstraintRequest, AddForeignKeyRequest,
    AddNotNullConstraintRequest, AddPrimaryKeyRequest, AddUniqueConstraintRequest,
    AllTableConstraintsRequest, AllTableConstraintsResponse, CheckConstraintsRequest,
    CheckConstraintsResponse, DefaultConstraintsRequest, DefaultConstraintsResponse,
    DropConstraintRequest, ForeignKeysRequest, ForeignKeysResponse, NotNullConstraintsRequest,
    NotNullConstraintsResponse, PrimaryKeysRequest, PrimaryKeysResponse, SQLAllTableConstraints,
    SQLCheckConstraint, SQLDefaultConstraint, SQLForeignKey, SQLNotNullConstraint, SQLPrimaryKey,
    SQLUniqueConstraint, Table, UniqueConstraintsRequest, UniqueConstraintsResponse,
};

use super::{catalog_name_or_default, catalog_or_default, normal};
use crate::access::{Need, Privilege, Target};
use crate::convert::table_from_idl;
use crate::convert_constraints as convert;
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::service::Session;

/// What `add_*` and `drop_constraint` declare.
const ADD: &[Declared] = &[Declared::NoSuchObject, Declared::Meta];

fn add(session: &Session, kind: ConstraintKind, rows: Vec<ConstraintRow>) -> thrift::Result<()> {
    authorize_tables(session, Need::Privilege(Privilege::Alter), &rows)?;
    session
        .store()
        .add_constraints(kind, rows)
        .map(|_| ())
        .map_err(|error| to_thrift(error, ADD))
}

/// `add_primary_key`.
pub fn add_primary_key(session: &Session, request: AddPrimaryKeyRequest) -> thrift::Result<()> {
    let rows = convert::primary_keys(request.primary_key_cols);
    add(session, ConstraintKind::PrimaryKey, rows)
}

/// `add_foreign_key`.
pub fn add_foreign_key(session: &Session, request: AddForeignKeyRequest) -> thrift::Result<()> {
    let rows = convert::foreign_keys(request.foreign_key_cols);
    add(session, ConstraintKind::ForeignKey, rows)
}

/// `add_unique_constraint`.
pub fn add_unique_constraint(
    session: &Session,
    request: AddUniqueConstraintRequest,
) -> thrift::Result<()> {
    let rows = convert::unique_constraints(request.unique_constraint_cols);
    add(session, ConstraintKind::Unique, rows)
}

/// `add_not_null_constraint`.
pub fn add_not_null_constraint(
    session: &Session,
    request: AddNotNullConstraintRequest,
) -> thrift::Result<()> {
    let rows = convert::not_null_constraints(request.not_null_constraint_cols);
    add(session, ConstraintKind::NotNull, rows)
}

/// `add_default_constraint`.
pub fn add_default_constraint(
    session: &Session,
    request: AddDefaultConstraintRequest,
) -> thrift::Result<()> {
    let rows = convert::default_constraints(request.default_constraint_cols);
    add(session, ConstraintKind::Default, rows)
}

/// `add_check_constraint`.
pub fn add_check_constraint(
    session: &Session,
    request: AddCheckConstraintRequest,
) -> thrift::Result<()> {
    let rows = convert::check_constraints(request.check_constraint_cols);
    add(session, ConstraintKind::Check, rows)
}

/// `drop_constraint`: Hive's message for a name the table has no constraint of, as
/// `NoSuchObjectException` (Hive converts it to an `InvalidObjectException` the IDL does not
/// declare).
pub fn drop(session: &Session, request: DropConstraintRequest) -> thrift::Result<()> {
    let catalog = catalog_or_default(request.cat_name);
    let target = Target::Table {
        catalog: &normal(&catalog),
        database: &normal(&request.dbname),
        table: &normal(&request.tablename),
    };
    session.authorize(Need::Privilege(Privilege::Alter), target)?;
    session
        .store()
        .drop_constraint(
            &catalog,
            &request.dbname,
            &request.tablename,
            &request.constraintname,
        )
        .map_err(|error| to_thrift(error, ADD))
}

/// The constraints a table is created with, by kind as the IDL lists them.
pub struct TableConstraints {
    /// Primary key columns.
    pub primary_keys: Vec<SQLPrimaryKey>,
    /// Foreign key columns.
    pub foreign_keys: Vec<SQLForeignKey>,
    /// Unique constraint columns.
    pub unique_constraints: Vec<SQLUniqueConstraint>,
    /// Not-null constraints.
    pub not_null_constraints: Vec<SQLNotNullConstraint>,
    /// Default constraints.
    pub default_constraints: Vec<SQLDefaultConstraint>,
    /// Check constraints.
    pub check_constraints: Vec<SQLCheckConstraint>,
}

impl TableConstraints {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.primary_keys.is_empty()
            && self.foreign_keys.is_empty()
            && self.unique_constraints.is_empty()
            && self.not_null_constraints.is_empty()
            && self.default_constraints.is_empty()
            && self.check_constraints.is_empty()
    }

    fn into_rows(self) -> Vec<ConstraintRow> {
        let mut rows = convert::primary_keys(self.primary_keys);
        rows.extend(convert::foreign_keys(self.foreign_keys));
        rows.extend(convert::unique_constraints(self.unique_constraints));
        rows.extend(convert::not_null_constraints(self.not_null_constraints));
        rows.extend(convert::default_constraints(self.default_constraints));
        rows.extend(convert::check_constraints(self.check_constraints));
        rows
    }
}

/// `create_table_with_constraints`.
#[allow(clippy::too_many_arguments)] // the IDL's argument list
pub fn create_table_with_constraints(
    session: &Session,
    table: Table,
    primary_keys: Vec<SQLPrimaryKey>,
    foreign_keys: Vec<SQLForeignKey>,
    unique_constraints: Vec<SQLUniqueConstraint>,
    not_null_constraints: Vec<SQLNotNullConstraint>,
    default_constraints: Vec<SQLDefaultConstraint>,
    check_constraints: Vec<SQLCheckConstraint>,
) -> thrift::Result<()> {
    let constraints = TableConstraints {
        primary_keys,
        foreign_keys,
        unique_constraints,
        not_null_constraints,
        default_constraints,
        check_constraints,
    };
    create_table(session, table, constraints)
}

/// `create_table_with_constraints`, and `create_table_req` carrying constraints: the table
/// and its constraints in one write. Constraints without a catalog take the table's, as
/// Hive's handler gives them.
pub fn create_table(
    session: &Session,
    table: Table,
    constraints: TableConstraints,
) -> thrift::Result<()> {
    let catalog = catalog_or_default(table.cat_name.clone());
    let mut table = table_from_idl(table, &catalog);
    let target = Target::Database {
        catalog: &normal(catalog_name_or_default(&table.cat_name)),
        database: &normal(&table.db_name),
    };
    session.authorize(Need::Privilege(Privilege::Create), target)?;
    if table.owner.is_none() {
        table.owner = session.user();
    }
    let mut rows = constraints.into_rows();
    for row in &mut rows {
        if row.catalog.is_empty() {
            row.catalog = table.cat_name.clone();
        }
    }
    let database = format!("{}.{}", table.cat_name, table.db_name);
    match session.store().create_table_with_constraints(table, rows) {
        Ok(_) => Ok(()),
        // Hive turns the missing database into InvalidObjectException.
        Err(EngineError::NoSuchObject(_)) => Err(exception(
            Declared::InvalidObject,
            format!("Database {database} doesn't exist."),
        )),
        Err(error) => Err(to_thrift(error, throws::CREATE)),
    }
}

/// Names each table `rows` are declared on, once for each run of rows on the same table.
fn authorize_tables(session: &Session, need: Need, rows: &[ConstraintRow]) -> thrift::Result<()> {
    let mut previous = None;
    for row in rows {
        let table = (
            normal(catalog_name_or_default(&row.catalog)),
            normal(&row.db_name),
            normal(&row.table_name),
        );
        if previous.as_ref() != Some(&table) {
            let target = Target::Table {
                catalog: &table.0,
                database: &table.1,
                table: &table.2,
            };
            session.authorize(need, target)?;
        }
        previous = Some(table);
    }
    Ok(())
}

/// Names the read of table `db.table`'s constraints.
fn authorize_read(
    session: &Session,
    catalog: Option<&str>,
    db: &str,
    table: &str,
) -> thrift::Result<()> {
    let target = Target::Table {
        catalog: &normal(catalog_name_or_default(catalog.unwrap_or_default())),
        database: &normal(db),
        table: &normal(table),
    };
    session.authorize(Need::Privilege(Privilege::Select), target)
}

fn own(
    session: &Session,
    catalog: Option<String>,
    db: &str,
    table: &str,
    kind: ConstraintKind,
) -> thrift::Result<Vec<ConstraintRow>> {
    let catalog = catalog_or_default(catalog);
    session
        .store()
        .table_constraints(&catalog, db, table, kind)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `get_primary_keys`.
pub fn get_primary_keys(
    session: &Session,
    request: PrimaryKeysRequest,
) -> thrift::Result<PrimaryKeysResponse> {
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, request.cat_name.as_deref(), db, table)?;
    let rows = own(
        session,
        request.cat_name.clone(),
        db,
        table,
        ConstraintKind::PrimaryKey,
    )?;
    Ok(PrimaryKeysResponse {
        primary_keys: convert::to_primary_keys(&rows),
    })
}

fn foreign_keys_of(
    session: &Session,
    filter: &ForeignKeyFilter,
) -> thrift::Result<Vec<ConstraintRow>> {
    session
        .store()
        .foreign_keys(filter)
        .map_err(|error| to_thrift(error, throws::GET))
}

/// `get_foreign_keys`: by the referenced (parent) table, the table they are declared on
/// (foreign), or both; a name left out matches any.
pub fn get_foreign_keys(
    session: &Session,
    request: ForeignKeysRequest,
) -> thrift::Result<ForeignKeysResponse> {
    authorize_foreign_keys(session, &request)?;
    let filter = ForeignKeyFilter {
        catalog: catalog_or_default(request.cat_name),
        parent_db: request.parent_db_name,
        parent_table: request.parent_tbl_name,
        foreign_db: request.foreign_db_name,
        foreign_table: request.foreign_tbl_name,
    };
    let rows = foreign_keys_of(session, &filter)?;
    Ok(ForeignKeysResponse {
        foreign_keys: convert::to_foreign_keys(&rows),
    })
}

/// Names the tables a foreign key read selects by: the parent's and the foreign one's, each
/// named (a database alone, its database); the server when it names neither.
fn authorize_foreign_keys(session: &Session, request: &ForeignKeysRequest) -> thrift::Result<()> {
    let need = Need::Privilege(Privilege::Select);
    let catalog = normal(catalog_name_or_default(
        request.cat_name.as_deref().unwrap_or_default(),
    ));
    let sides = [
        (&request.parent_db_name, &request.parent_tbl_name),
        (&request.foreign_db_name, &request.foreign_tbl_name),
    ];
    let mut named = false;
    for (database, table) in sides {
        let Some(database) = database.as_deref() else {
            continue;
        };
        let database = normal(database);
        let table = table.as_deref().map(normal);
        let target = match table.as_deref() {
            Some(table) => Target::Table {
                catalog: &catalog,
                database: &database,
                table,
            },
            None => Target::Database {
                catalog: &catalog,
                database: &database,
            },
        };
        session.authorize(need, target)?;
        named = true;
    }
    if !named {
        session.authorize(need, Target::Server)?;
    }
    Ok(())
}

/// `get_unique_constraints`.
pub fn get_unique_constraints(
    session: &Session,
    request: UniqueConstraintsRequest,
) -> thrift::Result<UniqueConstraintsResponse> {
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, Some(&request.cat_name), db, table)?;
    let rows = own(
        session,
        Some(request.cat_name.clone()),
        db,
        table,
        ConstraintKind::Unique,
    )?;
    Ok(UniqueConstraintsResponse {
        unique_constraints: convert::to_unique_constraints(&rows),
    })
}

/// `get_not_null_constraints`.
pub fn get_not_null_constraints(
    session: &Session,
    request: NotNullConstraintsRequest,
) -> thrift::Result<NotNullConstraintsResponse> {
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, Some(&request.cat_name), db, table)?;
    let rows = own(
        session,
        Some(request.cat_name.clone()),
        db,
        table,
        ConstraintKind::NotNull,
    )?;
    Ok(NotNullConstraintsResponse {
        not_null_constraints: convert::to_not_null_constraints(&rows),
    })
}

/// `get_default_constraints`.
pub fn get_default_constraints(
    session: &Session,
    request: DefaultConstraintsRequest,
) -> thrift::Result<DefaultConstraintsResponse> {
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, Some(&request.cat_name), db, table)?;
    let rows = own(
        session,
        Some(request.cat_name.clone()),
        db,
        table,
        ConstraintKind::Default,
    )?;
    Ok(DefaultConstraintsResponse {
        default_constraints: convert::to_default_constraints(&rows),
    })
}

/// `get_check_constraints`.
pub fn get_check_constraints(
    session: &Session,
    request: CheckConstraintsRequest,
) -> thrift::Result<CheckConstraintsResponse> {
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, Some(&request.cat_name), db, table)?;
    let rows = own(
        session,
        Some(request.cat_name.clone()),
        db,
        table,
        ConstraintKind::Check,
    )?;
    Ok(CheckConstraintsResponse {
        check_constraints: convert::to_check_constraints(&rows),
    })
}

/// `get_all_table_constraints`: every kind, the foreign keys being those declared on the
/// table, as Hive's store answers.
pub fn get_all(
    session: &Session,
    request: AllTableConstraintsRequest,
) -> thrift::Result<AllTableConstraintsResponse> {
    let catalog = Some(request.cat_name.clone());
    let (db, table) = (&request.db_name, &request.tbl_name);
    authorize_read(session, catalog.as_deref(), db, table)?;
    let of = |kind| own(session, catalog.clone(), db, table, kind);
    let filter = ForeignKeyFilter {
        catalog: catalog_or_default(catalog.clone()),
        foreign_db: Some(db.clone()),
        foreign_table: Some(table.clone()),
        ..ForeignKeyFilter::default()
    };
    let all = SQLAllTableConstraints {
        primary_keys: Some(convert::to_primary_keys(&of(ConstraintKind::PrimaryKey)?)),
        foreign_keys: Some(convert::to_foreign_keys(&foreign_keys_of(
            session, &filter,
        )?)),
        unique_constraints: Some(convert::to_unique_constraints(&of(ConstraintKind::Unique)?)),
        not_null_constraints: Some(convert::to_not_null_constraints(&of(
            ConstraintKind::NotNull,
        )?)),
        default_constraints: Some(convert::to_default_constraints(&of(
            ConstraintKind::Default,
        )?)),
        check_constraints: Some(convert::to_check_constraints(&of(ConstraintKind::Check)?)),
    };
    Ok(AllTableConstraintsResponse {
        all_table_constraints: all,
    })
}
