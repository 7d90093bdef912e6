//! Every role, membership and grant in memory ([`GrantsView`]), kept while no batch touches
//! them ([`KeptGrants`]): the store's writes bump a version around each batch that writes a
//! key of keyspaces `0x32` to `0x35`, as a sequence lock, and a view read at an even version
//! that has not moved since is current.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::model::grants::{GrantTarget, PrivilegeGrant, Role, RoleMember};
use crate::model::principal::PrincipalType;
use crate::storage::consistent::OPTIMISTIC_ATTEMPT_COUNT;
use crate::storage::keys;
use crate::storage::kv::{self, KeyRange, KvBackend, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values::{StoredValue, ValueView};
use crate::store::Store;

use super::{GRANT_ENTRIES_MAX, PUBLIC_ROLE};

/// The first keyspace of roles and privileges, and the last (kept for them).
const FIRST_KEYSPACE: u8 = keys::KEYSPACE_ROLE;
const LAST_KEYSPACE: u8 = 0x35;

/// The view the store keeps and the version it was read at.
#[derive(Default)]
pub(crate) struct KeptGrants {
    /// Odd while a batch touching grants is applied; bumped twice per such batch.
    version: AtomicU64,
    kept: Mutex<Option<(u64, Arc<GrantsView>)>>,
}

impl KeptGrants {
    /// Whether `batch` writes a role, a membership or a grant.
    pub(crate) fn touched_by(batch: &WriteBatch) -> bool {
        batch.ops().iter().any(|op| {
            let key = match op {
                WriteOp::Put { key, .. } | WriteOp::Delete { key } => key,
            };
            matches!(key.first(), Some(first) if (FIRST_KEYSPACE..=LAST_KEYSPACE).contains(first))
        })
    }

    /// Marks a batch touching grants as being applied (odd) or applied (even again); also
    /// called twice when the store goes back to its durable state.
    pub(crate) fn bump(&self) {
        self.version.fetch_add(1, Ordering::SeqCst);
    }

    fn current(&self, version: u64) -> Option<Arc<GrantsView>> {
        let kept = self.kept.lock().ok()?;
        match kept.as_ref() {
            Some((kept_version, view)) if *kept_version == version => Some(view.clone()),
            _ => None,
        }
    }

    fn keep(&self, version: u64, view: &Arc<GrantsView>) {
        if let Ok(mut kept) = self.kept.lock() {
            *kept = Some((version, view.clone()));
        }
    }
}

impl Store {
    /// Every role, membership and grant, as of the last batch applied: kept in memory and read
    /// again from the store only after a batch touched them, so that in the steady state this
    /// costs a lock and a reference count. A view read while a batch was applied is read again
    /// (a bounded number of times, then under the writer lock).
    pub fn grants_view(&self) -> Result<Arc<GrantsView>> {
        let kept = &self.grants;
        for _ in 0..OPTIMISTIC_ATTEMPT_COUNT {
            let version = kept.version.load(Ordering::SeqCst);
            if version % 2 == 1 {
                std::thread::yield_now();
                continue;
            }
            if let Some(view) = kept.current(version) {
                return Ok(view);
            }
            let view = Arc::new(GrantsView::read(self.reader())?);
            if kept.version.load(Ordering::SeqCst) == version {
                kept.keep(version, &view);
                return Ok(view);
            }
        }
        self.under_writer_lock(|| self.grants_view_locked())
    }

    /// [`Store::grants_view`] for a caller holding the writer lock: no batch is being applied.
    pub(crate) fn grants_view_locked(&self) -> Result<Arc<GrantsView>> {
        let kept = &self.grants;
        let version = kept.version.load(Ordering::SeqCst);
        if let Some(view) = kept.current(version) {
            return Ok(view);
        }
        let view = Arc::new(GrantsView::read(self.reader())?);
        kept.keep(version, &view);
        Ok(view)
    }
}

/// Roles, memberships and grants at one version of the store, indexed for the reads Hive's
/// calls make and for authorization checks.
#[derive(Debug, Default)]
pub struct GrantsView {
    roles: BTreeMap<String, Role>,
    /// Each role's members, in key order (principal type, then name).
    members: BTreeMap<String, Vec<RoleMember>>,
    /// The roles each principal holds directly, by principal type (user, role, group).
    memberships: [HashMap<String, Vec<RoleMember>>; 3],
    /// Every grant, in key order (object, principal, privilege, grantor, authorizer).
    grants: Vec<PrivilegeGrant>,
    /// Indexes into `grants` by object.
    by_target: HashMap<GrantTarget, Vec<usize>>,
}

fn type_index(principal_type: PrincipalType) -> usize {
    match principal_type {
        PrincipalType::User => 0,
        PrincipalType::Role => 1,
        PrincipalType::Group => 2,
    }
}

fn read_values<T: StoredValue>(
    backend: &dyn KvBackend,
    keyspace: u8,
    count: &mut usize,
) -> Result<Vec<T>> {
    let mut values = Vec::new();
    for entry in kv::scan(
        backend,
        KeyRange::prefix(&[keyspace]),
        SCAN_PAGE_ENTRY_COUNT,
    ) {
        let (key, stored) = entry?;
        *count += 1;
        if *count > GRANT_ENTRIES_MAX {
            return Err(Error::Refused(format!(
                "the store holds more than {GRANT_ENTRIES_MAX} roles, memberships and grants"
            )));
        }
        values.push(ValueView::<T>::new(key, stored)?.to_owned()?);
    }
    Ok(values)
}

impl GrantsView {
    /// Reads every role, membership and grant from `backend`.
    pub(crate) fn read(backend: &dyn KvBackend) -> Result<GrantsView> {
        let mut count = 0;
        let roles: Vec<Role> = read_values(backend, keys::KEYSPACE_ROLE, &mut count)?;
        let members: Vec<RoleMember> =
            read_values(backend, keys::KEYSPACE_ROLE_MEMBER, &mut count)?;
        let grants: Vec<PrivilegeGrant> =
            read_values(backend, keys::KEYSPACE_PRIVILEGE, &mut count)?;
        let mut view = GrantsView {
            roles: roles
                .into_iter()
                .map(|role| (role.name.clone(), role))
                .collect(),
            ..GrantsView::default()
        };
        for member in members {
            view.memberships[type_index(member.principal_type)]
                .entry(member.principal_name.clone())
                .or_default()
                .push(member.clone());
            view.members
                .entry(member.role.clone())
                .or_default()
                .push(member);
        }
        for (index, grant) in grants.iter().enumerate() {
            view.by_target
                .entry(grant.target.clone())
                .or_default()
                .push(index);
        }
        view.grants = grants;
        Ok(view)
    }

    /// How many roles, memberships and grants the view holds.
    pub fn entry_count(&self) -> usize {
        let members: usize = self.members.values().map(Vec::len).sum();
        self.roles.len() + members + self.grants.len()
    }

    /// Every role, by name.
    pub fn roles(&self) -> impl Iterator<Item = &Role> {
        self.roles.values()
    }

    /// Role `name`, if it exists.
    pub fn role(&self, name: &str) -> Option<&Role> {
        self.roles.get(name)
    }

    /// The members of role `name` (none for `public`, which every user holds implicitly).
    pub fn members_of(&self, role: &str) -> &[RoleMember] {
        self.members.get(role).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The roles `principal` holds directly, as its memberships.
    pub fn memberships_of(&self, principal_type: PrincipalType, principal: &str) -> &[RoleMember] {
        self.memberships[type_index(principal_type)]
            .get(principal)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Every grant, in key order.
    pub fn grants(&self) -> &[PrivilegeGrant] {
        &self.grants
    }

    /// The grants on `target` itself.
    pub fn grants_on<'a>(
        &'a self,
        target: &GrantTarget,
    ) -> impl Iterator<Item = &'a PrivilegeGrant> {
        let indexes = self.by_target.get(target).map(Vec::as_slice).unwrap_or(&[]);
        indexes.iter().map(|index| &self.grants[*index])
    }

    /// Every role `user` holds: directly, through `groups`, and through roles granted to those
    /// roles, however deep (each role visited once, so cycles end), plus `public`.
    pub fn roles_of(&self, user: &str, groups: &[String]) -> BTreeSet<String> {
        self.roles_held(Some(user), groups)
    }

    /// The roles `user` (when given, with `public`) and `groups` hold, transitively.
    pub(crate) fn roles_held(&self, user: Option<&str>, groups: &[String]) -> BTreeSet<String> {
        let mut pending: Vec<&str> = Vec::new();
        if let Some(user) = user {
            pending.push(PUBLIC_ROLE);
            let direct = self.memberships_of(PrincipalType::User, user);
            pending.extend(direct.iter().map(|member| member.role.as_str()));
        }
        for group in groups {
            let memberships = self.memberships_of(PrincipalType::Group, group);
            pending.extend(memberships.iter().map(|member| member.role.as_str()));
        }
        let mut held = BTreeSet::new();
        let mut visited: HashSet<&str> = HashSet::new();
        while let Some(role) = pending.pop() {
            if !visited.insert(role) {
                continue;
            }
            held.insert(role.to_string());
            for member in self.memberships_of(PrincipalType::Role, role) {
                pending.push(&member.role);
            }
        }
        held
    }

    /// Whether `user`, one of `groups` or one of `roles` was granted `privilege` (or `ALL`,
    /// in any case) on `object` or on what holds it (a column's partition and table, a
    /// partition's table, a table's database, the server), with the grant option when
    /// `need_grant_option`.
    pub fn holds(
        &self,
        user: &str,
        groups: &[String],
        roles: &BTreeSet<String>,
        object: &GrantTarget,
        privilege: &str,
        need_grant_option: bool,
    ) -> bool {
        let grants_it = |grant: &PrivilegeGrant| {
            let privilege_matches = grant.privilege.eq_ignore_ascii_case(privilege)
                || grant.privilege.eq_ignore_ascii_case("ALL");
            let principal_matches = match grant.principal_type {
                PrincipalType::User => grant.principal_name == user,
                PrincipalType::Group => groups.contains(&grant.principal_name),
                PrincipalType::Role => roles.contains(&grant.principal_name),
            };
            privilege_matches && principal_matches && (grant.grant_option || !need_grant_option)
        };
        let mut target = Some(object.clone());
        while let Some(current) = target {
            if self.grants_on(&current).any(grants_it) {
                return true;
            }
            target = current.parent();
        }
        false
    }
}
