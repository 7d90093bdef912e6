//! Hive's rules for resource plans, pools, triggers and mappings.

use super::*;
use crate::model::workload::{Mapping, PlanStatus, Trigger};
use crate::store::{memory_store_with_databases, Store};
use crate::workload::parts::{NewPool, PoolChanges};
use crate::workload::plans::{AlterPlanFlags, NewResourcePlan, PlanChanges};

fn plan(name: &str, parallelism: Option<i32>) -> NewResourcePlan {
    NewResourcePlan {
        name: name.to_string(),
        namespace: None,
        query_parallelism: parallelism,
    }
}

fn pool(path: &str, fraction: f64, parallelism: i32) -> NewPool {
    NewPool {
        path: path.to_string(),
        alloc_fraction: Some(fraction),
        query_parallelism: Some(parallelism),
        scheduling_policy: None,
    }
}

fn status(status: PlanStatus) -> PlanChanges {
    PlanChanges {
        status: Some(status),
        ..PlanChanges::default()
    }
}

fn activate(store: &Store, name: &str) -> Result<Option<ResourcePlan>> {
    let flags = AlterPlanFlags {
        enable_and_activate: true,
        ..AlterPlanFlags::default()
    };
    store.alter_resource_plan(Some(name), None, &status(PlanStatus::Active), flags)
}

#[test]
fn a_new_plan_is_disabled_with_hives_default_pool() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan(" Plan1 ", None), None, 4)
        .unwrap();
    let got = store.resource_plan("PLAN1", Some("DEFAULT")).unwrap();
    assert_eq!(
        (got.name.as_str(), got.namespace.as_str()),
        ("plan1", "default")
    );
    assert_eq!(got.status, PlanStatus::Disabled);
    assert_eq!(got.default_pool_path(), Some("default"));
    assert_eq!(got.pools[0].query_parallelism, 4);
    assert_eq!(
        store.create_resource_plan(plan("plan1", None), None, 4),
        Err(Error::AlreadyExists(
            "Resource plan already exists: ".into()
        ))
    );
    assert_eq!(
        store.create_resource_plan(plan(" ", None), None, 4),
        Err(Error::InvalidObject(
            "Resource name cannot be empty.".into()
        ))
    );
    assert_eq!(
        store.create_resource_plan(plan("p0", Some(0)), None, 4),
        Err(Error::InvalidObject(
            "Query parallelism should be positive.".into()
        ))
    );
    assert_eq!(
        store.resource_plan("nope", None),
        Err(Error::NoSuchObject(
            "There is no resource plan named: nope in default".into()
        ))
    );
}

#[test]
fn enabling_validates_and_one_plan_is_active() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("a", Some(4)), None, 4)
        .unwrap();
    store
        .create_resource_plan(plan("b", None), None, 0)
        .unwrap();
    store.create_wm_pool("b", None, pool("p", 0.5, 2)).unwrap();
    let error = activate(&store, "b").unwrap_err();
    assert_eq!(
        error,
        Error::InvalidOperation(
            "ResourcePlan: b is invalid: [Sum of root children pools' alloc fraction should be \
             1.0 got: 0.5 for pool: ]"
                .into()
        )
    );
    let flags = AlterPlanFlags::default();
    let refused = store.alter_resource_plan(Some("a"), None, &status(PlanStatus::Active), flags);
    assert!(matches!(refused, Err(Error::InvalidOperation(m)) if m.contains("should be enabled")));
    let active = activate(&store, "a").unwrap().unwrap();
    assert_eq!(active.status, PlanStatus::Active);
    // Editing an enabled or active plan is refused.
    let edit = store.create_wm_pool("a", None, pool("x", 0.1, 1));
    assert_eq!(
        edit,
        Err(Error::InvalidOperation(
            "Resource plan must be disabled to edit it.".into()
        ))
    );
    assert_eq!(
        store.drop_resource_plan("a", None),
        Err(Error::Refused("Cannot drop an active resource plan".into()))
    );
    // Activating another enables the old one.
    give_pool_p_everything(&store, "b");
    activate(&store, "b").unwrap().unwrap();
    assert_eq!(
        store.resource_plan("a", None).unwrap().status,
        PlanStatus::Enabled
    );
    assert_eq!(store.active_resource_plan(None).unwrap().unwrap().name, "b");
    let deactivate =
        store.alter_resource_plan(Some("b"), None, &status(PlanStatus::Enabled), flags);
    assert!(matches!(deactivate, Err(Error::InvalidOperation(m)) if m.contains("is active")));
}

fn give_pool_p_everything(store: &Store, plan: &str) {
    let changes = PoolChanges {
        alloc_fraction: Some(1.0),
        ..PoolChanges::default()
    };
    store.alter_wm_pool(plan, None, "p", changes).unwrap();
}

#[test]
fn validation_reports_hives_errors_and_warnings() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("v", Some(10)), None, 0)
        .unwrap();
    assert_eq!(
        store.validate_resource_plan("v", None).unwrap(),
        (
            vec![],
            vec![
        "Sum of all pools' query parallelism: 0 is less than resource plan query parallelism: 10"
            .to_string()
    ]
        )
    );
    store.create_wm_pool("v", None, pool("a", 0.7, 8)).unwrap();
    store
        .create_wm_pool("v", None, pool("a.b", 0.6, 2))
        .unwrap();
    store
        .create_wm_pool("v", None, pool("a.c", 0.6, 3))
        .unwrap();
    let (errors, warnings) = store.validate_resource_plan("v", None).unwrap();
    assert_eq!(
        errors,
        vec![
            "Sum of all pools' query parallelism: 13 exceeds resource plan query parallelism: 10",
            "Sum of root children pools' alloc fraction should be 1.0 got: 0.7 for pool: ",
            "Sum of children pools' alloc fraction should be less than 1 got: 1.2 for pool: a",
        ]
    );
    assert!(warnings.is_empty());
    assert_eq!(java_double(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(java_double(1.0), "1.0");
    assert_eq!(java_double(1e-5), "1.0E-5");
}

#[test]
fn pools_need_parents_and_move_with_them() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("p", None), None, 4)
        .unwrap();
    assert_eq!(
        store.create_wm_pool("p", None, pool("x.y", 0.5, 1)),
        Err(Error::NoSuchObject(
            "Pool path is invalid, the parent does not exist".into()
        ))
    );
    store.create_wm_pool("p", None, pool("x", 0.5, 1)).unwrap();
    store
        .create_wm_pool("p", None, pool("x.y", 0.5, 1))
        .unwrap();
    assert_eq!(
        store.create_wm_pool("p", None, pool("x", 0.5, 1)),
        Err(Error::AlreadyExists("Pool already exists: ".into()))
    );
    let mapping = Mapping {
        entity_type: "user".into(),
        entity_name: "Alice".into(),
        pool: None,
        ordering: 0,
    };
    store
        .create_or_update_wm_mapping("p", None, mapping, Some("x.y"), false)
        .unwrap();
    let trigger = Trigger {
        name: "T1".into(),
        trigger_expression: Some("ELAPSED_TIME > 10".into()),
        action_expression: Some("KILL".into()),
        in_unmanaged: false,
    };
    store.create_wm_trigger("p", None, trigger).unwrap();
    store
        .wm_trigger_to_pool("p", None, "t1", "x.y", false)
        .unwrap();
    let rename = PoolChanges {
        path: Some("z".into()),
        ..PoolChanges::default()
    };
    store.alter_wm_pool("p", None, "x", rename).unwrap();
    let got = store.resource_plan("p", None).unwrap();
    let paths: Vec<_> = got.pools.iter().map(|pool| pool.path.as_str()).collect();
    assert_eq!(paths, ["default", "z", "z.y"]);
    assert_eq!(got.pools[2].triggers, ["t1"]);
    assert_eq!(
        got.pool_by_id(got.mappings[0].pool.unwrap()).unwrap().path,
        "z.y"
    );
    assert_eq!(
        store.drop_wm_pool("p", None, "z"),
        Err(Error::InvalidOperation(
            "Cannot drop a pool that has child pools".into()
        ))
    );
    assert_eq!(
        store.drop_wm_pool("p", None, "z.y"),
        Err(Error::InvalidOperation(
            "Please remove all mappings for this pool.".into()
        ))
    );
    assert_eq!(
        store.drop_wm_pool("p", None, "default"),
        Err(Error::InvalidOperation(
            "Cannot drop default pool of a resource plan".into()
        ))
    );
    store.drop_wm_mapping("p", None, " USER", "alice").unwrap();
    store.drop_wm_pool("p", None, "z.y").unwrap();
    store.drop_wm_trigger("p", None, "t1").unwrap();
    assert_eq!(
        store.drop_wm_trigger("p", None, "t1"),
        Err(Error::NoSuchObject("Cannot delete trigger: t1".into()))
    );
}

#[test]
fn copies_and_replacements_follow_hive() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("base", Some(4)), None, 4)
        .unwrap();
    activate(&store, "base").unwrap();
    store
        .create_resource_plan(plan("next", None), Some("base"), 4)
        .unwrap();
    let copy = store.resource_plan("next", None).unwrap();
    assert_eq!(
        (copy.status, copy.query_parallelism),
        (PlanStatus::Disabled, Some(4))
    );
    assert_eq!(copy.default_pool_path(), Some("default"));
    assert_eq!(
        store.create_resource_plan(plan("x", None), Some("nope"), 4),
        Err(Error::NoSuchObject("nope in default".into()))
    );
    let replace = AlterPlanFlags {
        replace: true,
        ..AlterPlanFlags::default()
    };
    let active = store
        .alter_resource_plan(Some("next"), None, &status(PlanStatus::Active), replace)
        .unwrap()
        .unwrap();
    assert_eq!(
        (active.name.as_str(), active.status),
        ("base", PlanStatus::Active)
    );
    let names: Vec<_> = store
        .resource_plans(None)
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names[1].starts_with("base_old_"), "{names:?}");
    assert_eq!(
        store.alter_resource_plan(Some("base"), None, &PlanChanges::default(), replace),
        Err(Error::InvalidOperation(
            "Must specify a name, or the active plan; received null, null".into()
        ))
    );
}

#[test]
fn plans_are_bounded() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("big", None), None, 0)
        .unwrap();
    for index in 0..WM_POOLS_PER_PLAN_MAX {
        store
            .create_wm_pool("big", None, pool(&format!("p{index}"), 0.001, 1))
            .unwrap();
    }
    let error = store
        .create_wm_pool("big", None, pool("one_more", 0.1, 1))
        .unwrap_err();
    assert!(matches!(error, Error::InvalidObject(m) if m.contains("more than the 1000 allowed")));
}

#[test]
fn trigger_links_are_bounded() {
    let store = memory_store_with_databases(&[]);
    store
        .create_resource_plan(plan("links", None), None, 4)
        .unwrap();
    let mut grown = store.resource_plan("links", None).unwrap();
    grown.pools[0].triggers = (0..=WM_POOL_TRIGGERS_PER_PLAN_MAX)
        .map(|index| format!("t{index}"))
        .collect();
    let error = check_plan_size(&grown).unwrap_err();
    assert!(matches!(error, Error::InvalidObject(m) if m.contains("trigger-to-pool links")));
    grown.pools[0].triggers.pop();
    check_plan_size(&grown).unwrap();
}
