//! Workload management objects between the IDL and the engine: a stored plan becomes Hive's
//! `WMResourcePlan` or `WMFullResourcePlan`, pools named by path as Hive's `fullFromMResourcePlan`
//! writes them (lists left unset when empty, as Hive's `addTo*` leaves them).

use hivestore_engine::{PlanStatus, Pool, ResourcePlan, Trigger};
use hivestore_idl::hive_metastore as idl;
use thrift::OrderedFloat;

/// The IDL's status of `status`.
pub fn status_to_idl(status: PlanStatus) -> idl::WMResourcePlanStatus {
    match status {
        PlanStatus::Active => idl::WMResourcePlanStatus::ACTIVE,
        PlanStatus::Enabled => idl::WMResourcePlanStatus::ENABLED,
        PlanStatus::Disabled => idl::WMResourcePlanStatus::DISABLED,
    }
}

/// The plan alone, as `get_all_resource_plans` lists it.
pub fn plan_to_idl(plan: &ResourcePlan) -> idl::WMResourcePlan {
    idl::WMResourcePlan {
        name: plan.name.clone(),
        status: Some(status_to_idl(plan.status)),
        query_parallelism: plan.query_parallelism,
        default_pool_path: plan.default_pool_path().map(str::to_string),
        ns: Some(plan.namespace.clone()),
    }
}

fn pool_to_idl(plan: &ResourcePlan, pool: &Pool) -> idl::WMPool {
    idl::WMPool {
        resource_plan_name: plan.name.clone(),
        pool_path: pool.path.clone(),
        alloc_fraction: Some(OrderedFloat(pool.alloc_fraction)),
        query_parallelism: Some(pool.query_parallelism),
        scheduling_policy: pool.scheduling_policy.clone(),
        ns: Some(plan.namespace.clone()),
    }
}

/// A trigger of plan `plan_name` in `namespace`.
pub fn trigger_to_idl(plan_name: &str, namespace: &str, trigger: Trigger) -> idl::WMTrigger {
    idl::WMTrigger {
        resource_plan_name: plan_name.to_string(),
        trigger_name: trigger.name,
        trigger_expression: trigger.trigger_expression,
        action_expression: trigger.action_expression,
        is_in_unmanaged: Some(trigger.in_unmanaged),
        ns: Some(namespace.to_string()),
    }
}

fn non_empty<T>(items: Vec<T>) -> Option<Vec<T>> {
    (!items.is_empty()).then_some(items)
}

/// The plan with its pools, triggers, mappings and pool triggers.
pub fn full_plan_to_idl(plan: ResourcePlan) -> idl::WMFullResourcePlan {
    let mut pools: Vec<&Pool> = plan.pools.iter().collect();
    pools.sort_by(|a, b| a.path.cmp(&b.path));
    let pool_triggers = pools
        .iter()
        .flat_map(|pool| {
            pool.triggers.iter().map(|trigger| idl::WMPoolTrigger {
                pool: pool.path.clone(),
                trigger: trigger.clone(),
                ns: None,
            })
        })
        .collect();
    let mappings = plan
        .mappings
        .iter()
        .map(|mapping| idl::WMMapping {
            resource_plan_name: plan.name.clone(),
            entity_type: mapping.entity_type.clone(),
            entity_name: mapping.entity_name.clone(),
            pool_path: mapping
                .pool
                .and_then(|id| plan.pool_by_id(id))
                .map(|pool| pool.path.clone()),
            ordering: Some(mapping.ordering),
            ns: Some(plan.namespace.clone()),
        })
        .collect();
    let triggers = plan
        .triggers
        .iter()
        .map(|trigger| trigger_to_idl(&plan.name, &plan.namespace, trigger.clone()))
        .collect();
    idl::WMFullResourcePlan {
        plan: plan_to_idl(&plan),
        pools: pools.iter().map(|pool| pool_to_idl(&plan, pool)).collect(),
        mappings: non_empty(mappings),
        triggers: non_empty(triggers),
        pool_triggers: non_empty(pool_triggers),
    }
}
