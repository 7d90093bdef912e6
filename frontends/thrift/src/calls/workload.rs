//! Workload management: resource plans, their pools, triggers and mappings, as Hive 4's
//! `HMSHandler` and `ObjectStore` answer them (`create_resource_plan` with a `default` pool of
//! `metastore.wm.default.pool.size` queries, or the plan's own parallelism).
//!
//! Where Hive's store throws an exception the call does not declare (an edit of an enabled
//! plan in `create_wm_pool`, a missing plan to copy in `create_resource_plan`), Hive's server
//! answers an internal error; hivestore answers `MetaException` with Hive's message.

use hivestore_engine::{
    self as engine, AlterPlanFlags, NewPool, NewResourcePlan, PlanChanges, PlanStatus, PoolChanges,
    TriggerChanges,
};
use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::convert_workload::{full_plan_to_idl, plan_to_idl, trigger_to_idl};
use crate::errors::{exception, to_thrift, Declared};
use crate::service::Session;

use Declared::{AlreadyExists, InvalidObject, InvalidOperation, Meta, NoSuchObject};

/// Hive's `metastore.wm.default.pool.size`: the parallelism of a new plan's default pool.
pub const WM_DEFAULT_POOL_SIZE: i32 = 4;

/// What the creating calls declare.
const CREATE: &[Declared] = &[AlreadyExists, NoSuchObject, InvalidObject, Meta];
/// What `create_resource_plan` declares.
const CREATE_PLAN: &[Declared] = &[AlreadyExists, InvalidObject, Meta];
/// What the reads and `validate_resource_plan` declare.
const GET: &[Declared] = &[NoSuchObject, Meta];
/// What `get_active_resource_plan` and `get_all_resource_plans` declare.
const LIST: &[Declared] = &[Meta];
/// What the drops and `alter_resource_plan` declare.
const CHANGE: &[Declared] = &[NoSuchObject, InvalidOperation, Meta];
/// What `alter_wm_trigger` declares.
const ALTER_TRIGGER: &[Declared] = &[NoSuchObject, InvalidObject, Meta];

fn required<T>(value: Option<T>, what: &str) -> thrift::Result<T> {
    value.ok_or_else(|| exception(Meta, format!("{what} cannot be null")))
}

fn status_from_idl(status: idl::WMResourcePlanStatus) -> thrift::Result<PlanStatus> {
    PlanStatus::from_number(status.0)
        .ok_or_else(|| exception(InvalidOperation, format!("Invalid status: {}", status.0)))
}

/// `create_resource_plan`: a disabled plan with a default pool, or a copy of `copyFrom`.
pub fn create_resource_plan(
    session: &Session,
    request: idl::WMCreateResourcePlanRequest,
) -> thrift::Result<idl::WMCreateResourcePlanResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let plan = required(request.resource_plan, "resourcePlan")?;
    // Hive's handler sizes the default pool by the plan's parallelism when it has one.
    let default_pool_size = plan.query_parallelism.unwrap_or(WM_DEFAULT_POOL_SIZE);
    let plan = NewResourcePlan {
        name: plan.name,
        namespace: plan.ns,
        query_parallelism: plan.query_parallelism,
    };
    session
        .store()
        .create_resource_plan(plan, request.copy_from.as_deref(), default_pool_size)
        .map_err(|error| to_thrift(error, CREATE_PLAN))?;
    Ok(idl::WMCreateResourcePlanResponse {})
}

/// `get_resource_plan`: the whole plan.
pub fn get_resource_plan(
    session: &Session,
    request: idl::WMGetResourcePlanRequest,
) -> thrift::Result<idl::WMGetResourcePlanResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let name = required(request.resource_plan_name, "resourcePlanName")?;
    let plan = session
        .store()
        .resource_plan(&name, request.ns.as_deref())
        .map_err(|error| to_thrift(error, GET))?;
    Ok(idl::WMGetResourcePlanResponse {
        resource_plan: Some(full_plan_to_idl(plan)),
    })
}

/// `get_active_resource_plan`: the namespace's active plan, unset when there is none.
pub fn get_active_resource_plan(
    session: &Session,
    request: idl::WMGetActiveResourcePlanRequest,
) -> thrift::Result<idl::WMGetActiveResourcePlanResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let plan = session
        .store()
        .active_resource_plan(request.ns.as_deref())
        .map_err(|error| to_thrift(error, LIST))?;
    Ok(idl::WMGetActiveResourcePlanResponse {
        resource_plan: plan.map(full_plan_to_idl),
    })
}

/// `get_all_resource_plans`: the namespace's plans, by name.
pub fn get_all_resource_plans(
    session: &Session,
    request: idl::WMGetAllResourcePlanRequest,
) -> thrift::Result<idl::WMGetAllResourcePlanResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let plans = session
        .store()
        .resource_plans(request.ns.as_deref())
        .map_err(|error| to_thrift(error, LIST))?;
    Ok(idl::WMGetAllResourcePlanResponse {
        resource_plans: Some(plans.iter().map(plan_to_idl).collect()),
    })
}

/// `alter_resource_plan`: answers the whole plan when it became active.
pub fn alter_resource_plan(
    session: &Session,
    request: idl::WMAlterResourcePlanRequest,
) -> thrift::Result<idl::WMAlterResourcePlanResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let changes = required(request.resource_plan, "resourcePlan")?;
    let changes = PlanChanges {
        name: changes.name,
        status: changes.status.map(status_from_idl).transpose()?,
        query_parallelism: changes.query_parallelism,
        is_set_query_parallelism: changes.is_set_query_parallelism,
        default_pool_path: changes.default_pool_path,
        is_set_default_pool_path: changes.is_set_default_pool_path,
        namespace: changes.ns,
    };
    let flags = AlterPlanFlags {
        enable_and_activate: request.is_enable_and_activate.unwrap_or(false),
        force_deactivate: request.is_force_deactivate.unwrap_or(false),
        replace: request.is_replace.unwrap_or(false),
    };
    let activated = session
        .store()
        .alter_resource_plan(
            request.resource_plan_name.as_deref(),
            request.ns.as_deref(),
            &changes,
            flags,
        )
        .map_err(|error| to_thrift(error, CHANGE))?;
    Ok(idl::WMAlterResourcePlanResponse {
        full_resource_plan: activated.map(full_plan_to_idl),
    })
}

/// `validate_resource_plan`: Hive's errors and warnings.
pub fn validate_resource_plan(
    session: &Session,
    request: idl::WMValidateResourcePlanRequest,
) -> thrift::Result<idl::WMValidateResourcePlanResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let name = required(request.resource_plan_name, "resourcePlanName")?;
    let (errors, warnings) = session
        .store()
        .validate_resource_plan(&name, request.ns.as_deref())
        .map_err(|error| to_thrift(error, GET))?;
    Ok(idl::WMValidateResourcePlanResponse {
        errors: Some(errors),
        warnings: Some(warnings),
    })
}

/// `drop_resource_plan`: anything but the active plan.
pub fn drop_resource_plan(
    session: &Session,
    request: idl::WMDropResourcePlanRequest,
) -> thrift::Result<idl::WMDropResourcePlanResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let name = required(request.resource_plan_name, "resourcePlanName")?;
    session
        .store()
        .drop_resource_plan(&name, request.ns.as_deref())
        .map_err(|error| to_thrift(error, CHANGE))?;
    Ok(idl::WMDropResourcePlanResponse {})
}

/// `create_wm_trigger`.
pub fn create_wm_trigger(
    session: &Session,
    request: idl::WMCreateTriggerRequest,
) -> thrift::Result<idl::WMCreateTriggerResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let trigger = required(request.trigger, "trigger")?;
    let stored = engine::Trigger {
        name: trigger.trigger_name,
        trigger_expression: trigger.trigger_expression,
        action_expression: trigger.action_expression,
        in_unmanaged: trigger.is_in_unmanaged.unwrap_or(false),
    };
    session
        .store()
        .create_wm_trigger(&trigger.resource_plan_name, trigger.ns.as_deref(), stored)
        .map_err(|error| to_thrift(error, CREATE))?;
    Ok(idl::WMCreateTriggerResponse {})
}

/// `alter_wm_trigger`: the expressions and flag given replace the stored ones.
pub fn alter_wm_trigger(
    session: &Session,
    request: idl::WMAlterTriggerRequest,
) -> thrift::Result<idl::WMAlterTriggerResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let trigger = required(request.trigger, "trigger")?;
    let changes = TriggerChanges {
        trigger_expression: trigger.trigger_expression,
        action_expression: trigger.action_expression,
        in_unmanaged: trigger.is_in_unmanaged,
    };
    session
        .store()
        .alter_wm_trigger(
            &trigger.resource_plan_name,
            trigger.ns.as_deref(),
            &trigger.trigger_name,
            changes,
        )
        .map_err(|error| to_thrift(error, ALTER_TRIGGER))?;
    Ok(idl::WMAlterTriggerResponse {})
}

/// `drop_wm_trigger`.
pub fn drop_wm_trigger(
    session: &Session,
    request: idl::WMDropTriggerRequest,
) -> thrift::Result<idl::WMDropTriggerResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let plan = required(request.resource_plan_name, "resourcePlanName")?;
    let trigger = required(request.trigger_name, "triggerName")?;
    session
        .store()
        .drop_wm_trigger(&plan, request.ns.as_deref(), &trigger)
        .map_err(|error| to_thrift(error, CHANGE))?;
    Ok(idl::WMDropTriggerResponse {})
}

/// `get_triggers_for_resourceplan`: each trigger names the plan as the request does.
pub fn get_triggers_for_resourceplan(
    session: &Session,
    request: idl::WMGetTriggersForResourePlanRequest,
) -> thrift::Result<idl::WMGetTriggersForResourePlanResponse> {
    session.authorize(Need::Anyone, Target::Server)?;
    let plan = required(request.resource_plan_name, "resourcePlanName")?;
    let namespace = engine::namespace_or_default(request.ns.as_deref());
    let triggers = session
        .store()
        .wm_triggers(&plan, request.ns.as_deref())
        .map_err(|error| to_thrift(error, GET))?;
    Ok(idl::WMGetTriggersForResourePlanResponse {
        triggers: Some(
            triggers
                .into_iter()
                .map(|trigger| trigger_to_idl(&plan, &namespace, trigger))
                .collect(),
        ),
    })
}

/// `create_wm_pool`: its parent must exist.
pub fn create_wm_pool(
    session: &Session,
    request: idl::WMCreatePoolRequest,
) -> thrift::Result<idl::WMCreatePoolResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let pool = required(request.pool, "pool")?;
    let new = NewPool {
        path: pool.pool_path,
        alloc_fraction: pool.alloc_fraction.map(|fraction| fraction.0),
        query_parallelism: pool.query_parallelism,
        scheduling_policy: pool.scheduling_policy,
    };
    session
        .store()
        .create_wm_pool(&pool.resource_plan_name, pool.ns.as_deref(), new)
        .map_err(|error| to_thrift(error, CREATE))?;
    Ok(idl::WMCreatePoolResponse {})
}

/// `alter_wm_pool`: `poolPath` names the pool, the pool's own path is its new one.
pub fn alter_wm_pool(
    session: &Session,
    request: idl::WMAlterPoolRequest,
) -> thrift::Result<idl::WMAlterPoolResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let pool = required(request.pool, "pool")?;
    let path = required(request.pool_path, "poolPath")?;
    let changes = PoolChanges {
        path: Some(pool.pool_path),
        alloc_fraction: pool.alloc_fraction.map(|fraction| fraction.0),
        query_parallelism: pool.query_parallelism,
        scheduling_policy: pool.scheduling_policy,
        is_set_scheduling_policy: pool.is_set_scheduling_policy,
    };
    session
        .store()
        .alter_wm_pool(&pool.resource_plan_name, pool.ns.as_deref(), &path, changes)
        .map_err(|error| to_thrift(error, CREATE))?;
    Ok(idl::WMAlterPoolResponse {})
}

/// `drop_wm_pool`.
pub fn drop_wm_pool(
    session: &Session,
    request: idl::WMDropPoolRequest,
) -> thrift::Result<idl::WMDropPoolResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let plan = required(request.resource_plan_name, "resourcePlanName")?;
    let path = required(request.pool_path, "poolPath")?;
    session
        .store()
        .drop_wm_pool(&plan, request.ns.as_deref(), &path)
        .map_err(|error| to_thrift(error, CHANGE))?;
    Ok(idl::WMDropPoolResponse {})
}

/// `create_or_update_wm_mapping`: `update` changes only the pool of an existing mapping.
pub fn create_or_update_wm_mapping(
    session: &Session,
    request: idl::WMCreateOrUpdateMappingRequest,
) -> thrift::Result<idl::WMCreateOrUpdateMappingResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let mapping = required(request.mapping, "mapping")?;
    let stored = engine::Mapping {
        entity_type: mapping.entity_type,
        entity_name: mapping.entity_name,
        pool: None,
        ordering: mapping.ordering.unwrap_or(0),
    };
    session
        .store()
        .create_or_update_wm_mapping(
            &mapping.resource_plan_name,
            mapping.ns.as_deref(),
            stored,
            mapping.pool_path.as_deref(),
            request.update.unwrap_or(false),
        )
        .map_err(|error| to_thrift(error, CREATE))?;
    Ok(idl::WMCreateOrUpdateMappingResponse {})
}

/// `drop_wm_mapping`.
pub fn drop_wm_mapping(
    session: &Session,
    request: idl::WMDropMappingRequest,
) -> thrift::Result<idl::WMDropMappingResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let mapping = required(request.mapping, "mapping")?;
    session
        .store()
        .drop_wm_mapping(
            &mapping.resource_plan_name,
            mapping.ns.as_deref(),
            &mapping.entity_type,
            &mapping.entity_name,
        )
        .map_err(|error| to_thrift(error, CHANGE))?;
    Ok(idl::WMDropMappingResponse {})
}

/// `create_or_drop_wm_trigger_to_pool_mapping`: a trigger applies to a pool, or (`drop`) no
/// longer does.
pub fn create_or_drop_wm_trigger_to_pool_mapping(
    session: &Session,
    request: idl::WMCreateOrDropTriggerToPoolMappingRequest,
) -> thrift::Result<idl::WMCreateOrDropTriggerToPoolMappingResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    let plan = required(request.resource_plan_name, "resourcePlanName")?;
    let trigger = required(request.trigger_name, "triggerName")?;
    let pool = required(request.pool_path, "poolPath")?;
    let drop = request.drop.unwrap_or(false);
    session
        .store()
        .wm_trigger_to_pool(&plan, request.ns.as_deref(), &trigger, &pool, drop)
        .map_err(|error| to_thrift(error, CREATE))?;
    Ok(idl::WMCreateOrDropTriggerToPoolMappingResponse {})
}
