//! The catalog model as plain data: Hive's catalogs, databases, tables, partitions and table
//! constraints as the engine stores and returns them, and the rules on their values alone
//! (names, partition names, how long a value may be). Nothing here reads the store or logs an
//! event; the behaviour on these types lives in `catalog/`, `partitions/` and `constraints/`.

pub(crate) mod catalog;
pub(crate) mod constraint;
pub(crate) mod database;
pub(crate) mod function;
pub(crate) mod grants;
pub(crate) mod names;
pub(crate) mod partition;
pub mod partition_name;
pub(crate) mod principal;
pub(crate) mod registry;
pub(crate) mod table;
pub(crate) mod value_limits;
pub(crate) mod workload;

pub use catalog::Catalog;
pub use constraint::{ConstraintKind, ConstraintRow, ReferencedColumn};
pub use database::{Database, DatabaseType};
pub use function::{Function, FunctionType, ResourceType, ResourceUri};
pub use grants::{GrantTarget, PrivilegeGrant, Role, RoleMember};
pub use partition::{ArchivedPartitionRecord, Partition, PartitionRecord};
pub use principal::{PrincipalPrivilegeSet, PrincipalType, PrivilegeGrantInfo};
pub use table::{
    CreationMetadata, FieldSchema, FileMetadata, Order, SerDeInfo, SerdeType, SkewedInfo,
    SkewedValueLocation, SourceTable, StorageDescriptor, Table, DDL_TIME_PARAMETER,
    EXTERNAL_PARAMETER, EXTERNAL_TABLE, EXTERNAL_TABLE_PURGE_PARAMETER, MANAGED_TABLE,
    MATERIALIZED_VIEW, VIRTUAL_VIEW,
};
