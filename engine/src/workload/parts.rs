//! What a resource plan holds: triggers, pools, mappings and which triggers apply to which
//! pools. Every change needs the plan disabled (Hive's `editCheck`) and rewrites the plan.

use crate::error::{Error, Result};
use crate::model::names;
use crate::model::workload::{Mapping, PlanStatus, Pool, ResourcePlan, Trigger};
use crate::registry::check_len;
use crate::store::Store;
use crate::workload::plans::require_plan;
use crate::workload::{
    check_name, check_plan_size, is_valid_scheduling_policy, namespace_or_default, parent_path,
    WM_POLICY_LEN_MAX, WM_TEXT_LEN_MAX,
};

/// The entity types a mapping may name (Hive's `MWMMapping.EntityType`).
pub const WM_ENTITY_TYPES: [&str; 3] = ["USER", "GROUP", "APPLICATION"];

/// A pool to create (Hive's `WMPool`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewPool {
    /// The dotted path; its parent must exist.
    pub path: String,
    /// The fraction of the parent's resources.
    pub alloc_fraction: Option<f64>,
    /// The query parallelism.
    pub query_parallelism: Option<i32>,
    /// The scheduling policy.
    pub scheduling_policy: Option<String>,
}

/// What `alter_wm_pool` changes (Hive's `WMNullablePool`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoolChanges {
    /// The new path.
    pub path: Option<String>,
    /// The fraction of the parent's resources.
    pub alloc_fraction: Option<f64>,
    /// The query parallelism.
    pub query_parallelism: Option<i32>,
    /// The scheduling policy; unset with `is_set_scheduling_policy` true unsets it.
    pub scheduling_policy: Option<String>,
    /// Whether the scheduling policy changes.
    pub is_set_scheduling_policy: Option<bool>,
}

/// What `alter_wm_trigger` changes: each field given replaces the stored one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TriggerChanges {
    /// The condition.
    pub trigger_expression: Option<String>,
    /// The action.
    pub action_expression: Option<String>,
    /// Whether it applies to unmanaged queries.
    pub in_unmanaged: Option<bool>,
}

/// Pool `path` of `plan`, looked up lowercased as Hive's `getPool` does.
pub(crate) fn find_pool<'a>(plan: &'a ResourcePlan, path: &str) -> Result<&'a Pool> {
    let path = names::normalize(path);
    plan.pools
        .iter()
        .find(|pool| pool.path == path)
        .ok_or_else(|| Error::NoSuchObject(format!("Cannot find pool: {path}")))
}

fn find_trigger_index(plan: &ResourcePlan, name: &str) -> Result<usize> {
    let name = names::normalize(name);
    plan.triggers
        .iter()
        .position(|trigger| trigger.name == name)
        .ok_or_else(|| Error::NoSuchObject(format!("Cannot find trigger with name: {name}")))
}

fn pool_parent_exists(plan: &ResourcePlan, path: &str) -> bool {
    parent_path(path).is_none_or(|parent| find_pool(plan, parent).is_ok())
}

fn check_policy(policy: Option<&str>) -> Result<()> {
    if !is_valid_scheduling_policy(policy) {
        return Err(Error::InvalidOperation(format!(
            "Invalid scheduling policy {}",
            policy.unwrap_or("null")
        )));
    }
    if let Some(policy) = policy {
        check_len("A scheduling policy", policy, WM_POLICY_LEN_MAX)?;
    }
    Ok(())
}

fn check_texts(trigger: &Trigger) -> Result<()> {
    check_name("A trigger name", &trigger.name)?;
    for text in [&trigger.trigger_expression, &trigger.action_expression]
        .into_iter()
        .flatten()
    {
        check_len("A trigger or action expression", text, WM_TEXT_LEN_MAX)?;
    }
    Ok(())
}

fn parent_missing() -> Error {
    Error::NoSuchObject("Pool path is invalid, the parent does not exist".to_string())
}

impl Store {
    /// Runs `edit` on plan `plan_name` of `namespace` when it is disabled, and writes it.
    fn edit_plan<R>(
        &self,
        plan_name: &str,
        namespace: Option<&str>,
        edit: impl FnOnce(&mut ResourcePlan) -> Result<R>,
    ) -> Result<R> {
        let (name, namespace) = (names::normalize(plan_name), namespace_or_default(namespace));
        self.write(|txn| {
            let (key, mut plan) = require_plan(txn, &namespace, &name)?;
            if plan.status != PlanStatus::Disabled {
                return Err(Error::InvalidOperation(
                    "Resource plan must be disabled to edit it.".to_string(),
                ));
            }
            let result = edit(&mut plan)?;
            check_plan_size(&plan)?;
            txn.put_value(key, &plan)?;
            Ok(result)
        })
    }

    /// Hive's `create_wm_trigger`: trigger `trigger` (its name normalised) in plan `plan`.
    pub fn create_wm_trigger(
        &self,
        plan: &str,
        namespace: Option<&str>,
        trigger: Trigger,
    ) -> Result<()> {
        let trigger = Trigger {
            name: names::normalize(&trigger.name),
            ..trigger
        };
        check_texts(&trigger)?;
        self.edit_plan(plan, namespace, |plan| {
            if plan.triggers.iter().any(|other| other.name == trigger.name) {
                return Err(Error::AlreadyExists(
                    "Trigger already exists, use alter: ".to_string(),
                ));
            }
            plan.triggers.push(trigger);
            Ok(())
        })
    }

    /// Hive's `alter_wm_trigger`: the fields `changes` gives replace trigger `name`'s.
    pub fn alter_wm_trigger(
        &self,
        plan: &str,
        namespace: Option<&str>,
        name: &str,
        changes: TriggerChanges,
    ) -> Result<()> {
        self.edit_plan(plan, namespace, |plan| {
            let index = find_trigger_index(plan, name)?;
            let trigger = &mut plan.triggers[index];
            if changes.trigger_expression.is_some() {
                trigger.trigger_expression = changes.trigger_expression;
            }
            if changes.action_expression.is_some() {
                trigger.action_expression = changes.action_expression;
            }
            if let Some(in_unmanaged) = changes.in_unmanaged {
                trigger.in_unmanaged = in_unmanaged;
            }
            check_texts(trigger)
        })
    }

    /// Hive's `drop_wm_trigger`: trigger `name` and its pools' references to it.
    pub fn drop_wm_trigger(&self, plan: &str, namespace: Option<&str>, name: &str) -> Result<()> {
        let name = names::normalize(name);
        self.edit_plan(plan, namespace, |plan| {
            let before = plan.triggers.len();
            plan.triggers.retain(|trigger| trigger.name != name);
            if plan.triggers.len() == before {
                return Err(Error::NoSuchObject(format!(
                    "Cannot delete trigger: {name}"
                )));
            }
            for pool in &mut plan.pools {
                pool.triggers.retain(|trigger| *trigger != name);
            }
            Ok(())
        })
    }

    /// Hive's `get_triggers_for_resourceplan`: the triggers of plan `plan`.
    pub fn wm_triggers(&self, plan: &str, namespace: Option<&str>) -> Result<Vec<Trigger>> {
        Ok(self.resource_plan(plan, namespace)?.triggers)
    }

    /// Hive's `create_wm_pool`: a pool under an existing parent, its path kept as given.
    pub fn create_wm_pool(&self, plan: &str, namespace: Option<&str>, pool: NewPool) -> Result<()> {
        check_len("A pool path", &pool.path, WM_TEXT_LEN_MAX)?;
        let (Some(alloc_fraction), Some(query_parallelism)) =
            (pool.alloc_fraction, pool.query_parallelism)
        else {
            return Err(Error::InvalidObject(
                "A pool needs its allocFraction and queryParallelism".to_string(),
            ));
        };
        self.edit_plan(plan, namespace, |plan| {
            if !pool_parent_exists(plan, &pool.path) {
                return Err(parent_missing());
            }
            check_policy(pool.scheduling_policy.as_deref())?;
            if plan.pools.iter().any(|other| other.path == pool.path) {
                return Err(Error::AlreadyExists("Pool already exists: ".to_string()));
            }
            let id = plan.next_pool_id;
            plan.next_pool_id += 1;
            plan.pools.push(Pool {
                id,
                path: pool.path,
                alloc_fraction,
                query_parallelism,
                scheduling_policy: pool.scheduling_policy,
                triggers: Vec::new(),
            });
            Ok(())
        })
    }

    /// Hive's `alter_wm_pool`: pool `path` changed as `changes` says; a new path moves the
    /// pool's descendants with it.
    pub fn alter_wm_pool(
        &self,
        plan: &str,
        namespace: Option<&str>,
        path: &str,
        changes: PoolChanges,
    ) -> Result<()> {
        if let Some(new_path) = &changes.path {
            check_len("A pool path", new_path, WM_TEXT_LEN_MAX)?;
        }
        self.edit_plan(plan, namespace, |plan| {
            let id = find_pool(plan, path)?.id;
            if changes.is_set_scheduling_policy == Some(true) {
                check_policy(changes.scheduling_policy.as_deref())?;
            }
            let old_path = plan.pool_by_id(id).map(|pool| pool.path.clone());
            let old_path = old_path.unwrap_or_default();
            if let Some(new_path) = changes.path.as_ref().filter(|new| **new != old_path) {
                move_pool(plan, &old_path, new_path)?;
            }
            let Some(pool) = plan.pools.iter_mut().find(|pool| pool.id == id) else {
                return Err(Error::Internal(format!("pool {id} vanished")));
            };
            if let Some(fraction) = changes.alloc_fraction {
                pool.alloc_fraction = fraction;
            }
            if let Some(parallelism) = changes.query_parallelism {
                pool.query_parallelism = parallelism;
            }
            if changes.is_set_scheduling_policy == Some(true) {
                pool.scheduling_policy = changes.scheduling_policy;
            }
            Ok(())
        })
    }

    /// Hive's `drop_wm_pool`: a pool that is not the default pool, has no child pools and
    /// no mappings.
    pub fn drop_wm_pool(&self, plan: &str, namespace: Option<&str>, path: &str) -> Result<()> {
        let path = names::normalize(path);
        self.edit_plan(plan, namespace, |plan| {
            if plan.default_pool_path() == Some(path.as_str()) {
                return Err(Error::InvalidOperation(
                    "Cannot drop default pool of a resource plan".to_string(),
                ));
            }
            let child_prefix = format!("{path}.");
            if plan
                .pools
                .iter()
                .any(|pool| pool.path.starts_with(&child_prefix))
            {
                return Err(Error::InvalidOperation(
                    "Cannot drop a pool that has child pools".to_string(),
                ));
            }
            // Hive deletes the pools whose path starts with the one given, and fails unless
            // that is exactly one.
            let matching: Vec<u32> = plan
                .pools
                .iter()
                .filter(|pool| pool.path.starts_with(&path))
                .map(|pool| pool.id)
                .collect();
            let [id] = matching[..] else {
                return Err(Error::NoSuchObject(format!("Cannot delete pool: {path}")));
            };
            if plan.mappings.iter().any(|mapping| mapping.pool == Some(id)) {
                return Err(Error::InvalidOperation(
                    "Please remove all mappings for this pool.".to_string(),
                ));
            }
            plan.pools.retain(|pool| pool.id != id);
            Ok(())
        })
    }

    /// Hive's `create_or_update_wm_mapping`: a new mapping, or (`update`) a new pool for an
    /// existing one.
    pub fn create_or_update_wm_mapping(
        &self,
        plan: &str,
        namespace: Option<&str>,
        mapping: Mapping,
        pool_path: Option<&str>,
        update: bool,
    ) -> Result<()> {
        let entity_type = mapping.entity_type.trim().to_uppercase();
        if !WM_ENTITY_TYPES.contains(&entity_type.as_str()) {
            return Err(Error::InvalidObject(format!(
                "Invalid entity type {}: one of USER, GROUP, APPLICATION",
                mapping.entity_type
            )));
        }
        let entity_name = names::normalize(&mapping.entity_name);
        check_name("A mapping's entity name", &entity_name)?;
        self.edit_plan(plan, namespace, |plan| {
            let pool = match pool_path {
                Some(path) => Some(find_pool(plan, path)?.id),
                None => None,
            };
            let existing = plan
                .mappings
                .iter_mut()
                .find(|other| other.entity_type == entity_type && other.entity_name == entity_name);
            match (existing, update) {
                (Some(existing), true) => existing.pool = pool,
                (None, true) => {
                    return Err(Error::NoSuchObject(format!(
                        "Cannot find mapping: {entity_type} {entity_name}"
                    )))
                }
                (Some(_), false) => {
                    return Err(Error::AlreadyExists(format!(
                        "Mapping already exists: {entity_type} {entity_name}"
                    )))
                }
                (None, false) => plan.mappings.push(Mapping {
                    entity_type,
                    entity_name,
                    pool,
                    ordering: mapping.ordering,
                }),
            }
            Ok(())
        })
    }

    /// Hive's `drop_wm_mapping`.
    pub fn drop_wm_mapping(
        &self,
        plan: &str,
        namespace: Option<&str>,
        entity_type: &str,
        entity_name: &str,
    ) -> Result<()> {
        let entity_type = entity_type.trim().to_uppercase();
        let entity_name = names::normalize(entity_name);
        self.edit_plan(plan, namespace, |plan| {
            let before = plan.mappings.len();
            plan.mappings.retain(|mapping| {
                mapping.entity_type != entity_type || mapping.entity_name != entity_name
            });
            if plan.mappings.len() == before {
                return Err(Error::NoSuchObject("Cannot delete mapping.".to_string()));
            }
            Ok(())
        })
    }

    /// Hive's `create_or_drop_wm_trigger_to_pool_mapping`: trigger `trigger` applies to pool
    /// `pool`, or (`drop`) no longer does.
    pub fn wm_trigger_to_pool(
        &self,
        plan: &str,
        namespace: Option<&str>,
        trigger: &str,
        pool: &str,
        drop: bool,
    ) -> Result<()> {
        self.edit_plan(plan, namespace, |plan| {
            let id = find_pool(plan, pool)?.id;
            let trigger = plan.triggers[find_trigger_index(plan, trigger)?]
                .name
                .clone();
            let Some(pool) = plan.pools.iter_mut().find(|pool| pool.id == id) else {
                return Err(Error::Internal(format!("pool {id} vanished")));
            };
            pool.triggers.retain(|name| *name != trigger);
            if !drop {
                pool.triggers.push(trigger);
            }
            Ok(())
        })
    }
}

/// Hive's `moveDescendents`: pool `old_path`'s descendants follow it to `new_path`, whose
/// parent must exist.
fn move_pool(plan: &mut ResourcePlan, old_path: &str, new_path: &str) -> Result<()> {
    if !pool_parent_exists(plan, new_path) {
        return Err(parent_missing());
    }
    if plan.pools.iter().any(|pool| pool.path == new_path) {
        return Err(Error::AlreadyExists("Pool already exists: ".to_string()));
    }
    let descendant_prefix = format!("{old_path}.");
    for pool in &mut plan.pools {
        if pool.path == old_path {
            pool.path = new_path.to_string();
        } else if let Some(rest) = pool.path.strip_prefix(&descendant_prefix) {
            pool.path = format!("{new_path}.{rest}");
        }
        check_len("A pool path", &pool.path, WM_TEXT_LEN_MAX)?;
    }
    Ok(())
}
