//! The check itself: whether the session's user may do what a call needs to its target, by
//! the policy (admins), ownership (read in place from the store) and grants (the engine's
//! grants view, in memory).

use std::collections::BTreeSet;
use std::sync::Arc;

use hivestore_engine::{
    normalize, Error as EngineError, GrantTarget, GrantsView, Owner, PrincipalType,
};

use super::{Need, Target};
use crate::errors::{exception, Declared};
use crate::service::Session;

/// Who calls: the user, its groups and the roles they hold, and the grants they were read
/// from.
pub(crate) struct Who {
    pub user: String,
    pub groups: Arc<[String]>,
    pub roles: BTreeSet<String>,
    grants: Arc<GrantsView>,
}

impl Who {
    fn is(&self, owner: &Owner) -> bool {
        match owner.kind {
            PrincipalType::User => owner.name == self.user,
            PrincipalType::Group => self.groups.contains(&owner.name),
            PrincipalType::Role => self.roles.contains(&owner.name),
        }
    }
}

impl Session {
    /// Whether the caller may do `need` to `target`: always while the server does not enforce
    /// authorization; otherwise as `docs/security.md` says, refusing with a `MetaException`.
    pub(crate) fn check_access(&self, need: Need, target: Target<'_>) -> thrift::Result<()> {
        let policy = self.access_policy();
        if !policy.enforce || need == Need::Anyone {
            return Ok(());
        }
        let Some(user) = self.user() else {
            return Err(denied(format!(
                "Permission denied: the connection named no user, and {target} needs one \
                 (authenticate, or call set_ugi)",
                target = target.describe()
            )));
        };
        let who = self.who(user)?;
        if policy.is_admin(&who.user, &who.groups, &who.roles) {
            return Ok(());
        }
        let allowed = match need {
            Need::Anyone => true,
            Need::Admin => false,
            Need::Superuser => policy.proxy_users.is_superuser(&who.user),
            Need::Owner => self.owns(&who, target)?,
            Need::Privilege(privilege) => {
                self.granted(&who, target, privilege, false)? || self.owns(&who, target)?
            }
            Need::Grant(privilege) => {
                self.owns(&who, target)? || self.granted(&who, target, privilege, true)?
            }
        };
        if allowed {
            return Ok(());
        }
        let user = &who.user;
        let target = target.describe();
        Err(denied(match need {
            Need::Privilege(privilege) => format!(
                "Permission denied: user [{user}] does not have [{privilege}] privilege on {target}"
            ),
            Need::Owner => format!("Permission denied: user [{user}] does not own {target}"),
            Need::Grant(privilege) => format!(
                "Permission denied: user [{user}] may not grant [{privilege}] on {target}: \
                 it neither owns it nor holds the privilege with the grant option"
            ),
            Need::Superuser => format!(
                "Permission denied: user [{user}] is neither an admin nor a proxy user, which \
                 {target} needs"
            ),
            Need::Admin | Need::Anyone => {
                format!("Permission denied: user [{user}] is not an admin, which {target} needs")
            }
        }))
    }

    /// The caller with its groups and roles.
    fn who(&self, user: String) -> thrift::Result<Who> {
        let groups = self.access_policy().groups.groups(&user);
        let grants = self
            .store()
            .grants_view()
            .map_err(|error| crate::errors::to_thrift(error, &[Declared::Meta]))?;
        let roles = grants.roles_of(&user, &groups);
        Ok(Who {
            user,
            groups,
            roles,
            grants,
        })
    }

    /// Whether `who` owns `target`. Owning a database is not owning its tables (Hive's
    /// `default` is owned by the role `public`, which every user holds). A target that does
    /// not exist passes: the call itself then reports it missing, which tells the caller
    /// nothing a listing would not.
    fn owns(&self, who: &Who, target: Target<'_>) -> thrift::Result<bool> {
        let store = self.store();
        let owned = |found: hivestore_engine::Result<Option<Owner>>| match found {
            Ok(owner) => Ok(Some(owner.is_some_and(|owner| who.is(&owner)))),
            Err(EngineError::NoSuchObject(_)) => Ok(None),
            Err(error) => Err(crate::errors::to_thrift(error, &[Declared::Meta])),
        };
        // A transaction's or lock's owner is the user that opened or took it; one no longer
        // open (or an id out of range) is the call's to report.
        let by_user =
            |found: Option<hivestore_engine::Result<Option<String>>>| match found.transpose() {
                Ok(Some(Some(user))) => Ok(Some(user == who.user)),
                Ok(_) => Ok(None),
                Err(error) => Err(crate::errors::to_thrift(error, &[Declared::Meta])),
            };
        let verdict = match target {
            Target::Server | Target::Catalog(_) | Target::Role(_) => Some(false),
            Target::Database { catalog, database } => {
                owned(store.database_owner(catalog, database))?
            }
            Target::Table {
                catalog,
                database: name,
                table,
            } => owned(store.table_owner(catalog, name, table))?,
            Target::Function {
                catalog,
                database: name,
                function,
            } => owned(store.function_owner(catalog, name, function))?,
            Target::Transaction(id) => {
                by_user(u64::try_from(id).ok().map(|id| store.txn_user(id)))?
            }
            Target::Lock(id) => by_user(u64::try_from(id).ok().map(|id| store.lock_user(id)))?,
        };
        Ok(verdict.unwrap_or(true))
    }
}

fn denied(message: String) -> thrift::Error {
    exception(Declared::Meta, message)
}

impl Session {
    /// Whether `who` was granted `privilege` (or ALL) on `target` or on what holds it: a
    /// table's database, a database's server; a function's grants are its database's.
    fn granted(
        &self,
        who: &Who,
        target: Target<'_>,
        privilege: super::Privilege,
        grant_option: bool,
    ) -> thrift::Result<bool> {
        let object = match target {
            Target::Server => GrantTarget::Global,
            Target::Database { catalog, database }
            | Target::Function {
                catalog, database, ..
            } => GrantTarget::Database {
                catalog: normalize(catalog),
                database: normalize(database),
            },
            Target::Table {
                catalog,
                database,
                table,
            } => GrantTarget::table(&normalize(catalog), &normalize(database), &normalize(table)),
            Target::Catalog(_) | Target::Role(_) | Target::Transaction(_) | Target::Lock(_) => {
                return Ok(false)
            }
        };
        Ok(who.grants.holds(
            &who.user,
            &who.groups,
            &who.roles,
            &object,
            privilege.name(),
            grant_option,
        ))
    }
}

impl Session {
    /// A change of `target`'s owner (a table's or database's) to `owner` of `kind` needs the
    /// target's ownership, whatever else the call needs: ALTER on a table does not let one
    /// give it away or take it. Checked only when authorization is enforced.
    pub(crate) fn authorize_owner_change(
        &self,
        target: Target<'_>,
        owner: Option<&str>,
        kind: Option<PrincipalType>,
    ) -> thrift::Result<()> {
        let Some(owner) = owner else {
            return Ok(());
        };
        if !self.access_policy().enforce {
            return Ok(());
        }
        let store = self.store();
        let stored = match target {
            Target::Table {
                catalog,
                database,
                table,
            } => store.table_owner(catalog, database, table),
            Target::Database { catalog, database } => store.database_owner(catalog, database),
            _ => return Ok(()),
        };
        // A missing object is the call's to report.
        let Ok(stored) = stored else {
            return Ok(());
        };
        let wanted = Owner {
            name: owner.to_string(),
            kind: kind.unwrap_or_default(),
        };
        if stored.as_ref() == Some(&wanted) {
            return Ok(());
        }
        self.check_access(Need::Owner, target)
    }
}
