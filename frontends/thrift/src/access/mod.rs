//! What a call does, and to what. Each function of `calls/` names it once, before it acts,
//! with [`Session::authorize`]: the enforcement (`--authorization`) checks it against the
//! caller's ownership and grants, and the audit log records the objects named.

mod check;
pub mod groups;
pub mod policy;
pub mod proxy;

use std::fmt;

pub use policy::{AccessPolicy, AccessSettings};

use crate::service::Session;

/// Hive's privileges (`PrivilegeType`), as grants name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Privilege {
    /// Read the object's metadata, data and statistics.
    Select,
    /// Add data: partitions, write ids.
    Insert,
    /// Change data in place: statistics, write notifications.
    Update,
    /// Remove data: drop partitions, truncate.
    Delete,
    /// Create objects inside (tables in a database, databases in the server).
    Create,
    /// Drop the object.
    Drop,
    /// Change the object's metadata.
    Alter,
    /// Take locks on it.
    Lock,
    /// Hive's index privilege (kept for grants; no call needs it).
    Index,
    /// Every privilege.
    All,
}

impl Privilege {
    /// Every privilege, in Hive's order.
    pub const EVERY: [Privilege; 10] = [
        Privilege::All,
        Privilege::Alter,
        Privilege::Update,
        Privilege::Create,
        Privilege::Drop,
        Privilege::Index,
        Privilege::Lock,
        Privilege::Select,
        Privilege::Insert,
        Privilege::Delete,
    ];

    /// The name grants carry, as Hive spells it.
    pub fn name(self) -> &'static str {
        match self {
            Privilege::Select => "SELECT",
            Privilege::Insert => "INSERT",
            Privilege::Update => "UPDATE",
            Privilege::Delete => "DELETE",
            Privilege::Create => "CREATE",
            Privilege::Drop => "DROP",
            Privilege::Alter => "ALTER",
            Privilege::Lock => "LOCK",
            Privilege::Index => "INDEX",
            Privilege::All => "ALL",
        }
    }

    /// Reads a grant's privilege name in any case.
    pub fn parse(name: &str) -> Option<Privilege> {
        Privilege::EVERY
            .into_iter()
            .find(|privilege| privilege.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl fmt::Display for Privilege {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// What the caller must be or hold for a call on its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Nothing: the call is recorded, never refused (the server's settings, opening a
    /// transaction, reading the notification log's id).
    Anyone,
    /// The privilege, granted on the target or on what holds it (its database, the server),
    /// or ownership of the target.
    Privilege(Privilege),
    /// Ownership of the target (its owner user, a group or role it belongs to), or admin.
    Owner,
    /// Admin: a configured admin user or group, or a holder of the `admin` role.
    Admin,
    /// A superuser: an admin, or a configured proxy user (Hive 4 lets only these read the
    /// notification log, `metastore.event.db.notification.api.auth`).
    Superuser,
    /// The right to grant or revoke the privilege on the target: its owner, an admin, or a
    /// holder of the privilege with the grant option.
    Grant(Privilege),
}

/// The object a call acts on, by name, as Hive's audit log and `HiveObjectRef` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// The server itself: its settings, roles, global grants, the notification log.
    Server,
    /// A catalog.
    Catalog(&'a str),
    /// A database.
    Database {
        /// Its catalog.
        catalog: &'a str,
        /// Its name.
        database: &'a str,
    },
    /// A table or view.
    Table {
        /// Its catalog.
        catalog: &'a str,
        /// Its database.
        database: &'a str,
        /// Its name.
        table: &'a str,
    },
    /// A function.
    Function {
        /// Its catalog.
        catalog: &'a str,
        /// Its database.
        database: &'a str,
        /// Its name.
        function: &'a str,
    },
    /// A role.
    Role(&'a str),
    /// A transaction, by id: its owner is the user that opened it.
    Transaction(i64),
    /// A lock, by id: its owner is the user that took it.
    Lock(i64),
}

/// The most objects one call's audit line names; the rest are counted.
pub const AUDIT_TARGETS_MAX: usize = 16;
/// The most characters of one name an audit line quotes.
pub const AUDIT_NAME_CHARS_MAX: usize = 256;

impl fmt::Display for Target<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |text: &str| -> String {
            if text.chars().count() <= AUDIT_NAME_CHARS_MAX {
                text.to_string()
            } else {
                let prefix: String = text.chars().take(AUDIT_NAME_CHARS_MAX).collect();
                format!("{prefix}...({} chars)", text.chars().count())
            }
        };
        match *self {
            Target::Server => formatter.write_str("server"),
            Target::Catalog(catalog) => write!(formatter, "cat={}", name(catalog)),
            Target::Database { catalog, database } => {
                write!(formatter, "db={}.{}", name(catalog), name(database))
            }
            Target::Table {
                catalog,
                database,
                table,
            } => write!(
                formatter,
                "tbl={}.{}.{}",
                name(catalog),
                name(database),
                name(table)
            ),
            Target::Function {
                catalog,
                database,
                function,
            } => write!(
                formatter,
                "function={}.{}.{}",
                name(catalog),
                name(database),
                name(function)
            ),
            Target::Role(role) => write!(formatter, "role={}", name(role)),
            Target::Transaction(id) => write!(formatter, "txnid={id}"),
            Target::Lock(id) => write!(formatter, "lockid={id}"),
        }
    }
}

impl Target<'_> {
    /// The target as a refusal names it: `table hive.default.t`.
    pub fn describe(&self) -> String {
        match *self {
            Target::Server => "the server".to_string(),
            Target::Catalog(catalog) => format!("catalog {catalog}"),
            Target::Database { catalog, database } => format!("database {catalog}.{database}"),
            Target::Table {
                catalog,
                database,
                table,
            } => format!("table {catalog}.{database}.{table}"),
            Target::Function {
                catalog,
                database,
                function,
            } => format!("function {catalog}.{database}.{function}"),
            Target::Role(role) => format!("role {role}"),
            Target::Transaction(id) => format!("transaction {id}"),
            Target::Lock(id) => format!("lock {id}"),
        }
    }
}

impl Session {
    /// Names what the current call does (`need`) to `target`: records the target for the audit
    /// log and, when the server enforces authorization, refuses the call with a
    /// `MetaException` naming the caller, the privilege and the object unless the caller may.
    /// Call it once per object, after the names are normalised and before anything changes.
    pub fn authorize(&self, need: Need, target: Target<'_>) -> thrift::Result<()> {
        self.record_target(&target);
        self.check_access(need, target)
    }
}
