//! Resource plans: `create_resource_plan` (with Hive's default pool, or a copy of another
//! plan), the reads, `alter_resource_plan` (renames, fields, status switches, replace) and
//! `drop_resource_plan`, as Hive 4's `ObjectStore` does them.

use crate::calendar::DateTime;
use crate::error::{Error, Result};
use crate::model::names;
use crate::model::workload::{PlanStatus, Pool, ResourcePlan};
use crate::storage::keys;
use crate::storage::kv::KeyRange;
use crate::store::{now_seconds, Store, WriteTxn};
use crate::workload::parts::find_pool;
use crate::workload::validate::plan_report;
use crate::workload::{
    check_name, check_plan_size, namespace_or_default, WM_PLANS_PER_NAMESPACE_MAX,
};

/// The path of the pool Hive makes in a new plan.
pub const WM_DEFAULT_POOL_PATH: &str = "default";
/// How many `<plan>_old_<time>_<n>` names a replace tries before it gives up.
const OLD_PLAN_NAME_TRIES_MAX: u32 = 1_000;

/// A plan to create: Hive's `WMResourcePlan` as a client sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewResourcePlan {
    /// The name.
    pub name: String,
    /// The namespace; none means `default`.
    pub namespace: Option<String>,
    /// The query parallelism, when set.
    pub query_parallelism: Option<i32>,
}

/// Hive's `WMNullableResourcePlan`: what `alter_resource_plan` changes. The `is_set_*` flags
/// say whether the field is to change; the field unset with its flag true unsets it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanChanges {
    /// A new name.
    pub name: Option<String>,
    /// A new status.
    pub status: Option<PlanStatus>,
    /// The query parallelism.
    pub query_parallelism: Option<i32>,
    /// Whether the query parallelism changes.
    pub is_set_query_parallelism: Option<bool>,
    /// The default pool's path.
    pub default_pool_path: Option<String>,
    /// Whether the default pool changes.
    pub is_set_default_pool_path: Option<bool>,
    /// The namespace the plan is expected in.
    pub namespace: Option<String>,
}

/// The flags of `alter_resource_plan`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlterPlanFlags {
    /// A disabled plan may be activated (enabled and activated at once).
    pub enable_and_activate: bool,
    /// The active plan may be deactivated.
    pub force_deactivate: bool,
    /// The plan replaces another.
    pub replace: bool,
}

/// Plans changed by one alter, written together.
struct ChangedPlans {
    /// Each plan's key before the alter, and the plan now.
    plans: Vec<(Vec<u8>, ResourcePlan)>,
}

impl ChangedPlans {
    fn write(self, txn: &mut WriteTxn<'_>) -> Result<()> {
        for (old_key, plan) in &self.plans {
            let new_key = keys::resource_plan_key(&plan.namespace, &plan.name);
            let taken_by_other = new_key != *old_key
                && txn.get(&new_key)?.is_some()
                && !self.plans.iter().any(|(key, _)| *key == new_key);
            if taken_by_other {
                return Err(Error::AlreadyExists(
                    "Resource plan name should be unique: ".to_string(),
                ));
            }
        }
        for (old_key, _) in &self.plans {
            txn.delete(old_key.clone());
        }
        for (_, plan) in self.plans {
            check_plan_size(&plan)?;
            txn.put_value(keys::resource_plan_key(&plan.namespace, &plan.name), &plan)?;
        }
        Ok(())
    }
}

/// The plan at `key`, read within `txn`.
pub(crate) fn read_plan(txn: &WriteTxn<'_>, key: &[u8]) -> Result<Option<ResourcePlan>> {
    match txn.view::<ResourcePlan>(key)? {
        Some(view) => Ok(Some(view.to_owned()?)),
        None => Ok(None),
    }
}

/// Hive's message for a plan that is not there.
pub(crate) fn no_plan(name: &str, namespace: &str) -> Error {
    Error::NoSuchObject(format!(
        "There is no resource plan named: {name} in {namespace}"
    ))
}

/// Plan `name` (normalised) of `namespace`, read within `txn`, or Hive's `NoSuchObject`.
pub(crate) fn require_plan(
    txn: &WriteTxn<'_>,
    namespace: &str,
    name: &str,
) -> Result<(Vec<u8>, ResourcePlan)> {
    let key = keys::resource_plan_key(namespace, name);
    match read_plan(txn, &key)? {
        Some(plan) => Ok((key, plan)),
        None => Err(no_plan(name, namespace)),
    }
}

/// The active plan of `namespace`, read within `txn`.
fn active_plan(txn: &WriteTxn<'_>, namespace: &str) -> Result<Option<(Vec<u8>, ResourcePlan)>> {
    for entry in txn.scan(KeyRange::prefix(&keys::resource_plan_prefix(namespace))) {
        let (key, _) = entry?;
        if let Some(plan) = read_plan(txn, &key)? {
            if plan.status == PlanStatus::Active {
                return Ok(Some((key.to_vec(), plan)));
            }
        }
    }
    Ok(None)
}

fn require_active(txn: &WriteTxn<'_>, namespace: &str) -> Result<(Vec<u8>, ResourcePlan)> {
    active_plan(txn, namespace)?.ok_or_else(|| {
        Error::NoSuchObject(format!("There is no active resource plan in {namespace}"))
    })
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidOperation(message.into())
}

impl Store {
    /// Hive's `create_resource_plan`: a disabled plan, empty but for a `default` pool of
    /// `default_pool_size` queries (when positive), or a copy of plan `copy_from`'s contents.
    pub fn create_resource_plan(
        &self,
        plan: NewResourcePlan,
        copy_from: Option<&str>,
        default_pool_size: i32,
    ) -> Result<()> {
        let name = names::normalize(&plan.name);
        if name.is_empty() {
            return Err(Error::InvalidObject(
                "Resource name cannot be empty.".to_string(),
            ));
        }
        check_name("A resource plan name", &name)?;
        let namespace = namespace_or_default(plan.namespace.as_deref());
        check_name("A namespace", &namespace)?;
        let query_parallelism = match (copy_from, plan.query_parallelism) {
            (None, Some(parallelism)) if parallelism <= 0 => {
                return Err(Error::InvalidObject(
                    "Query parallelism should be positive.".to_string(),
                ))
            }
            (None, parallelism) => parallelism,
            (Some(_), _) => None,
        };
        self.write(|txn| {
            let mut created = ResourcePlan {
                name: name.clone(),
                namespace: namespace.clone(),
                status: PlanStatus::Disabled,
                query_parallelism,
                default_pool: None,
                pools: Vec::new(),
                triggers: Vec::new(),
                mappings: Vec::new(),
                next_pool_id: 1,
            };
            match copy_from {
                Some(source) => {
                    let key = keys::resource_plan_key(&namespace, &names::normalize(source));
                    let Some(source_plan) = read_plan(txn, &key)? else {
                        return Err(Error::NoSuchObject(format!("{source} in {namespace}")));
                    };
                    created = ResourcePlan {
                        name: name.clone(),
                        namespace: namespace.clone(),
                        status: PlanStatus::Disabled,
                        ..source_plan
                    };
                }
                None if default_pool_size > 0 => {
                    created.pools.push(Pool {
                        id: 1,
                        path: WM_DEFAULT_POOL_PATH.to_string(),
                        alloc_fraction: 1.0,
                        query_parallelism: default_pool_size,
                        scheduling_policy: None,
                        triggers: Vec::new(),
                    });
                    created.default_pool = Some(1);
                    created.next_pool_id = 2;
                }
                None => {}
            }
            let key = keys::resource_plan_key(&namespace, &name);
            if txn.get(&key)?.is_some() {
                return Err(Error::AlreadyExists(
                    "Resource plan already exists: ".to_string(),
                ));
            }
            let prefix = KeyRange::prefix(&keys::resource_plan_prefix(&namespace));
            if txn
                .scan(prefix)
                .nth(WM_PLANS_PER_NAMESPACE_MAX - 1)
                .is_some()
            {
                return Err(Error::InvalidObject(format!(
                    "Namespace {namespace} holds {WM_PLANS_PER_NAMESPACE_MAX} resource plans, \
                     the most allowed"
                )));
            }
            txn.put_value(key, &created)
        })
    }

    /// Hive's `get_resource_plan`: plan `name` of `namespace`, or `NoSuchObject`.
    pub fn resource_plan(&self, name: &str, namespace: Option<&str>) -> Result<ResourcePlan> {
        let (name, namespace) = (names::normalize(name), namespace_or_default(namespace));
        match self.view::<ResourcePlan>(&keys::resource_plan_key(&namespace, &name))? {
            Some(view) => view.to_owned(),
            None => Err(no_plan(&name, &namespace)),
        }
    }

    /// Hive's `get_all_resource_plans`: the plans of `namespace`, by name.
    pub fn resource_plans(&self, namespace: Option<&str>) -> Result<Vec<ResourcePlan>> {
        let namespace = namespace_or_default(namespace);
        let mut plans = Vec::new();
        for entry in self.scan(KeyRange::prefix(&keys::resource_plan_prefix(&namespace))) {
            let (key, _) = entry?;
            if let Some(view) = self.view::<ResourcePlan>(&key)? {
                plans.push(view.to_owned()?);
            }
        }
        Ok(plans)
    }

    /// Hive's `get_active_resource_plan`: the active plan of `namespace`, if any.
    pub fn active_resource_plan(&self, namespace: Option<&str>) -> Result<Option<ResourcePlan>> {
        let plans = self.resource_plans(namespace)?;
        Ok(plans
            .into_iter()
            .find(|plan| plan.status == PlanStatus::Active))
    }

    /// Hive's `validate_resource_plan`: the errors and warnings of plan `name`.
    pub fn validate_resource_plan(
        &self,
        name: &str,
        namespace: Option<&str>,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let (name, namespace) = (names::normalize(name), namespace_or_default(namespace));
        match self.view::<ResourcePlan>(&keys::resource_plan_key(&namespace, &name))? {
            Some(view) => Ok(plan_report(&view.to_owned()?)),
            None => Err(Error::NoSuchObject(format!(
                "Cannot find resourcePlan: {name} in {namespace}"
            ))),
        }
    }

    /// Hive's `drop_resource_plan`: the plan and everything in it; the active plan is
    /// refused.
    pub fn drop_resource_plan(&self, name: &str, namespace: Option<&str>) -> Result<()> {
        let (name, namespace) = (names::normalize(name), namespace_or_default(namespace));
        self.write(|txn| {
            let (key, plan) = require_plan(txn, &namespace, &name)?;
            if plan.status == PlanStatus::Active {
                return Err(Error::Refused(
                    "Cannot drop an active resource plan".to_string(),
                ));
            }
            txn.delete(key);
            Ok(())
        })
    }

    /// Hive's `alter_resource_plan`: plan `name` (the active one when `None`) changed as
    /// `changes` and `flags` say. Answers the whole plan when it became active.
    pub fn alter_resource_plan(
        &self,
        name: Option<&str>,
        namespace: Option<&str>,
        changes: &PlanChanges,
        flags: AlterPlanFlags,
    ) -> Result<Option<ResourcePlan>> {
        let set_flags = [
            flags.enable_and_activate,
            flags.replace,
            flags.force_deactivate,
        ];
        if set_flags.iter().filter(|flag| **flag).count() > 1 {
            return Err(Error::Refused(
                "Invalid request; multiple flags are set".to_string(),
            ));
        }
        let name = name.map(names::normalize);
        if flags.replace && name.is_none() {
            return Err(invalid("Cannot replace without specifying the source plan"));
        }
        let namespace = namespace_or_default(namespace);
        self.write(|txn| {
            let mut changed = ChangedPlans { plans: Vec::new() };
            let result = if flags.replace {
                alter_replace(txn, name.as_deref(), &namespace, changes, &mut changed)?
            } else {
                alter_simple(
                    txn,
                    name.as_deref(),
                    &namespace,
                    changes,
                    flags,
                    &mut changed,
                )?
            };
            changed.write(txn)?;
            Ok(result)
        })
    }
}

/// Hive's `handleSimpleAlter`: a rename, new fields or a status switch.
fn alter_simple(
    txn: &WriteTxn<'_>,
    name: Option<&str>,
    namespace: &str,
    changes: &PlanChanges,
    flags: AlterPlanFlags,
    changed: &mut ChangedPlans,
) -> Result<Option<ResourcePlan>> {
    let (key, mut plan) = match name {
        None => require_active(txn, namespace)?,
        Some(name) => require_plan(txn, namespace, name)?,
    };
    if name.is_some() && changes.status.is_none() && plan.status != PlanStatus::Disabled {
        return Err(invalid("Resource plan must be disabled to edit it."));
    }
    if let Some(new_namespace) = &changes.namespace {
        if *new_namespace != plan.namespace {
            return Err(invalid(format!(
                "Cannot change ns; from {} to {new_namespace}",
                plan.namespace
            )));
        }
    }
    let has_name_change = changes.name.as_deref().is_some_and(|new| Some(new) != name);
    let edits = changes.is_set_query_parallelism.is_some()
        || changes.is_set_default_pool_path.is_some()
        || has_name_change;
    if edits {
        if changes.status.is_some() {
            return Err(invalid("Cannot change values during status switch."));
        }
        if plan.status != PlanStatus::Disabled {
            return Err(invalid("Resource plan must be disabled to edit it."));
        }
    }
    if let Some(new_name) = &changes.name {
        let new_name = names::normalize(new_name);
        if new_name.is_empty() {
            return Err(invalid("Cannot rename to empty value."));
        }
        check_name("A resource plan name", &new_name)?;
        plan.name = new_name;
    }
    if changes.is_set_query_parallelism == Some(true) {
        plan.query_parallelism = match changes.query_parallelism {
            Some(parallelism) if parallelism <= 0 => {
                return Err(invalid("queryParallelism should be positive."))
            }
            parallelism => parallelism,
        };
    }
    if changes.is_set_default_pool_path == Some(true) {
        plan.default_pool = match &changes.default_pool_path {
            Some(path) => Some(find_pool(&plan, path)?.id),
            None => None,
        };
    }
    let mut result = None;
    if let Some(status) = changes.status {
        let shown = name.unwrap_or("null");
        result = switch_status(txn, shown, &key, &mut plan, status, flags, changed)?;
    }
    changed.plans.push((key, plan));
    Ok(result)
}

/// Hive's `switchStatus`: the transitions between disabled, enabled and active.
fn switch_status(
    txn: &WriteTxn<'_>,
    name: &str,
    key: &[u8],
    plan: &mut ResourcePlan,
    status: PlanStatus,
    flags: AlterPlanFlags,
    changed: &mut ChangedPlans,
) -> Result<Option<ResourcePlan>> {
    if status == plan.status {
        return Ok(None);
    }
    let activate = match plan.status {
        PlanStatus::Active => {
            if !flags.force_deactivate {
                return Err(invalid(format!(
                    "Resource plan {name} is active; activate another plan first, or disable \
                     workload management."
                )));
            }
            false
        }
        PlanStatus::Disabled => {
            let activate = status == PlanStatus::Active;
            if activate && !flags.enable_and_activate {
                return Err(invalid(format!(
                    "Resource plan {name} is disabled and should be enabled before activation \
                     (or in the same command)"
                )));
            }
            let (errors, _) = plan_report(plan);
            if !errors.is_empty() {
                return Err(invalid(format!(
                    "ResourcePlan: {name} is invalid: [{}]",
                    errors.join(", ")
                )));
            }
            activate
        }
        PlanStatus::Enabled => status == PlanStatus::Active,
    };
    plan.status = status;
    if !activate {
        return Ok(None);
    }
    if let Some((active_key, mut active)) = active_plan(txn, &plan.namespace)? {
        if active_key != key {
            active.status = PlanStatus::Enabled;
            changed.plans.push((active_key, active));
        }
    }
    Ok(Some(plan.clone()))
}

/// Hive's `handleAlterReplace`: plan `name` takes the name and status of the plan it
/// replaces (named, or the active one), which is renamed `<name>_old_<time>` and disabled.
fn alter_replace(
    txn: &WriteTxn<'_>,
    name: Option<&str>,
    namespace: &str,
    changes: &PlanChanges,
    changed: &mut ChangedPlans,
) -> Result<Option<ResourcePlan>> {
    if changes.query_parallelism.is_some() || changes.default_pool_path.is_some() {
        return Err(invalid("Cannot change values during replace."));
    }
    let replacing_specific = changes.name.is_some();
    let replacing_active = changes.status == Some(PlanStatus::Active);
    if replacing_specific == replacing_active {
        return Err(invalid(format!(
            "Must specify a name, or the active plan; received {}, {}",
            changes.name.as_deref().unwrap_or("null"),
            changes.status.map_or("null", PlanStatus::name)
        )));
    }
    let Some(name) = name else {
        return Err(invalid("Invalid replace - no name specified"));
    };
    let (replaced_key, mut replaced) = match &changes.name {
        Some(replaced_name) => require_plan(txn, namespace, &names::normalize(replaced_name))?,
        None => require_active(txn, namespace)?,
    };
    let (key, mut plan) = require_plan(txn, namespace, name)?;
    if replaced.name == plan.name {
        return Err(invalid("A plan cannot replace itself"));
    }
    let new_name = replaced.name.clone();
    replaced.name = old_plan_name(txn, namespace, &new_name)?;
    plan.name = new_name;
    plan.status = replaced.status;
    replaced.status = PlanStatus::Disabled;
    let result = (plan.status == PlanStatus::Active).then(|| plan.clone());
    changed.plans.push((replaced_key, replaced));
    changed.plans.push((key, plan));
    Ok(result)
}

/// Hive's `generateOldPlanName`: `<name>_old_<yyyy_MM_dd_HH_mm_ss>`, then `_1`, `_2`, ...
/// until a name is free (the time in UTC).
fn old_plan_name(txn: &WriteTxn<'_>, namespace: &str, name: &str) -> Result<String> {
    let stamp = DateTime::from_epoch_seconds(i64::from(now_seconds())).underscored();
    for attempt in 0..OLD_PLAN_NAME_TRIES_MAX {
        let candidate = match attempt {
            0 => format!("{name}_old_{stamp}"),
            n => format!("{name}_old_{stamp}_{n}"),
        };
        if txn
            .get(&keys::resource_plan_key(namespace, &candidate))?
            .is_none()
        {
            return Ok(candidate);
        }
    }
    Err(invalid(format!(
        "Found no free name for the replaced plan {name} in {OLD_PLAN_NAME_TRIES_MAX} tries"
    )))
}
