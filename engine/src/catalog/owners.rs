//! Who owns a database, table or function: what authorization checks ownership against, read
//! in place without decoding the object.

use crate::model::principal::{ArchivedPrincipalType, PrincipalType};
use crate::{Result, Store};

/// An object's owner: a user, group or role name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The principal's name.
    pub name: String,
    /// Whether it names a user, a group or a role.
    pub kind: PrincipalType,
}

fn principal_type(archived: &ArchivedPrincipalType) -> PrincipalType {
    match archived {
        ArchivedPrincipalType::User => PrincipalType::User,
        ArchivedPrincipalType::Role => PrincipalType::Role,
        ArchivedPrincipalType::Group => PrincipalType::Group,
    }
}

impl Store {
    /// The owner of database `catalog.database`, if it has one; an error if it does not exist.
    pub fn database_owner(&self, catalog: &str, database: &str) -> Result<Option<Owner>> {
        let view = self.get_database_view(catalog, database)?;
        let archived = view.archived()?;
        Ok(archived.owner_name.as_ref().map(|name| Owner {
            name: name.as_str().to_string(),
            kind: archived
                .owner_type
                .as_ref()
                .map_or(PrincipalType::User, principal_type),
        }))
    }

    /// The owner of table `catalog.database.table`, if it has one; an error if it does not
    /// exist.
    pub fn table_owner(&self, catalog: &str, database: &str, table: &str) -> Result<Option<Owner>> {
        let view = self.get_table_view(catalog, database, table)?;
        let archived = view.archived()?;
        Ok(archived.owner.as_ref().map(|name| Owner {
            name: name.as_str().to_string(),
            kind: archived
                .owner_type
                .as_ref()
                .map_or(PrincipalType::User, principal_type),
        }))
    }

    /// The owner of function `catalog.database.function`, if it exists and has one.
    pub fn function_owner(
        &self,
        catalog: &str,
        database: &str,
        function: &str,
    ) -> Result<Option<Owner>> {
        let found = self.get_function(catalog, database, function)?;
        Ok(found.and_then(|function| {
            function.owner_name.map(|name| Owner {
                name,
                kind: function.owner_type,
            })
        }))
    }
}
