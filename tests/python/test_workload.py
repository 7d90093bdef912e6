"""Workload management through the pyiceberg-vendored Hive 4 client: resource plans with their
pools, triggers and mappings, as Hive 4's ObjectStore keeps them.

Hive 4's rules (ObjectStore.createResourcePlan ... dropWMTriggerToPoolMapping, HMSHandler): a
new plan is DISABLED with a `default` pool of `metastore.wm.default.pool.size` (4) queries, or
the plan's own parallelism; `copyFrom` copies another plan's contents; only a disabled plan is
edited ("Resource plan must be disabled to edit it."); enabling validates (errors refuse it),
activating a disabled plan needs isEnableAndActivate, the active plan leaves only when another
is activated (or isForceDeactivate), one plan per namespace is active, the active plan is not
dropped; a replace gives a plan the name and status of the plan it replaces, which is renamed
`<name>_old_<time>` and disabled; a pool's parent must exist, a renamed pool moves its
children, the default pool, a pool with children or with mappings is not dropped;
validate_resource_plan reports Hive's errors and warnings. Every plan lives in a namespace
(`ns`, `default` when unset); each test uses its own.

Hive 2.3 lacks workload management (Hive 3): every test skips on the reference.
"""

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException, InvalidObjectException, InvalidOperationException, MetaException,
    NoSuchObjectException, WMAlterPoolRequest, WMAlterResourcePlanRequest, WMAlterTriggerRequest,
    WMCreateOrDropTriggerToPoolMappingRequest, WMCreateOrUpdateMappingRequest, WMCreatePoolRequest,
    WMCreateResourcePlanRequest, WMCreateTriggerRequest, WMDropMappingRequest, WMDropPoolRequest,
    WMDropResourcePlanRequest, WMDropTriggerRequest, WMGetActiveResourcePlanRequest,
    WMGetAllResourcePlanRequest, WMGetResourcePlanRequest, WMGetTriggersForResourePlanRequest,
    WMMapping, WMNullablePool, WMNullableResourcePlan, WMPool, WMResourcePlan,
    WMResourcePlanStatus, WMTrigger, WMValidateResourcePlanRequest,
)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_or_skip_on_reference, connected, raises_hms, unique_name

ACTIVE, ENABLED, DISABLED = (WMResourcePlanStatus.ACTIVE, WMResourcePlanStatus.ENABLED,
                             WMResourcePlanStatus.DISABLED)
EDIT_REFUSED = "Resource plan must be disabled to edit it."


@pytest.fixture()
def ns(client, server):
    call_or_skip_on_reference(server, client.get_all_resource_plans,
                              WMGetAllResourcePlanRequest(ns="probe"))
    return unique_name("ns")


def create_plan(client, ns, name, parallelism=None, copy_from=None):
    plan = WMResourcePlan(name=name, queryParallelism=parallelism, ns=ns)
    client.create_resource_plan(WMCreateResourcePlanRequest(resourcePlan=plan, copyFrom=copy_from))


def get_plan(client, ns, name):
    return client.get_resource_plan(WMGetResourcePlanRequest(resourcePlanName=name, ns=ns)).resourcePlan


def alter_plan(client, ns, name, changes, activate=False, force=False, replace=False):
    changes.ns = changes.ns or ns
    request = WMAlterResourcePlanRequest(resourcePlanName=name, resourcePlan=changes,
                                         isEnableAndActivate=activate, isForceDeactivate=force,
                                         isReplace=replace, ns=ns)
    return client.alter_resource_plan(request).fullResourcePlan


def create_pool(client, ns, plan, path, fraction, parallelism, policy=None):
    pool = WMPool(resourcePlanName=plan, poolPath=path, allocFraction=fraction,
                  queryParallelism=parallelism, schedulingPolicy=policy, ns=ns)
    client.create_wm_pool(WMCreatePoolRequest(pool=pool))


def statuses(client, ns):
    plans = client.get_all_resource_plans(WMGetAllResourcePlanRequest(ns=ns)).resourcePlans
    return {plan.name: plan.status for plan in plans}


def test_create_get_list_and_drop_plans(client, ns):
    create_plan(client, ns, "Daytime")
    plan = get_plan(client, ns, "DAYTIME")
    assert (plan.plan.name, plan.plan.status, plan.plan.ns) == ("daytime", DISABLED, ns)
    assert plan.plan.queryParallelism is None and plan.plan.defaultPoolPath == "default"
    assert [(p.poolPath, p.allocFraction, p.queryParallelism, p.schedulingPolicy)
            for p in plan.pools] == [("default", 1.0, 4, None)]
    assert (plan.mappings, plan.triggers, plan.poolTriggers) == (None, None, None)
    create_plan(client, ns, "night", parallelism=7)
    night = get_plan(client, ns, "night")
    assert night.plan.queryParallelism == 7 and night.pools[0].queryParallelism == 7
    assert statuses(client, ns) == {"daytime": DISABLED, "night": DISABLED}
    # Another namespace sees none of them.
    assert statuses(client, unique_name("ns")) == {}

    with raises_hms(AlreadyExistsException, "Resource plan already exists"):
        create_plan(client, ns, "daytime")
    with raises_hms(InvalidObjectException, "Resource name cannot be empty."):
        create_plan(client, ns, "  ")
    with raises_hms(InvalidObjectException, "Query parallelism should be positive."):
        create_plan(client, ns, "zero", parallelism=0)
    with raises_hms(NoSuchObjectException, f"There is no resource plan named: nope in {ns}"):
        get_plan(client, ns, "nope")
    with raises_hms(MetaException, f"nope in {ns}"):
        create_plan(client, ns, "copy", copy_from="nope")

    client.drop_resource_plan(WMDropResourcePlanRequest(resourcePlanName="night", ns=ns))
    with raises_hms(NoSuchObjectException, "There is no resource plan named: night"):
        client.drop_resource_plan(WMDropResourcePlanRequest(resourcePlanName="night", ns=ns))
    assert list(statuses(client, ns)) == ["daytime"]


def test_status_switches_follow_hive(client, ns):
    create_plan(client, ns, "a", parallelism=4)
    create_plan(client, ns, "b")
    active = client.get_active_resource_plan(WMGetActiveResourcePlanRequest(ns=ns))
    assert active.resourcePlan is None
    with raises_hms(InvalidOperationException,
                    "Resource plan a is disabled and should be enabled before activation"):
        alter_plan(client, ns, "a", WMNullableResourcePlan(status=ACTIVE))
    assert alter_plan(client, ns, "a", WMNullableResourcePlan(status=ENABLED)) is None
    # create_wm_pool declares no InvalidOperationException: Hive's text as a MetaException.
    with raises_hms(MetaException, EDIT_REFUSED):
        create_pool(client, ns, "a", "extra", 0.1, 1)
    full = alter_plan(client, ns, "a", WMNullableResourcePlan(status=ACTIVE))
    assert (full.plan.name, full.plan.status) == ("a", ACTIVE)
    got = client.get_active_resource_plan(WMGetActiveResourcePlanRequest(ns=ns)).resourcePlan
    assert got.plan.name == "a" and [p.poolPath for p in got.pools] == ["default"]
    with raises_hms(MetaException, "Cannot drop an active resource plan"):
        client.drop_resource_plan(WMDropResourcePlanRequest(resourcePlanName="a", ns=ns))
    with raises_hms(InvalidOperationException, "Resource plan a is active; activate another "
                    "plan first, or disable workload management."):
        alter_plan(client, ns, "a", WMNullableResourcePlan(status=DISABLED))
    # Activating b (enabled and activated at once) sends a back to ENABLED.
    full = alter_plan(client, ns, "b", WMNullableResourcePlan(status=ACTIVE), activate=True)
    assert full.plan.status == ACTIVE
    assert statuses(client, ns) == {"a": ENABLED, "b": ACTIVE}
    alter_plan(client, ns, "b", WMNullableResourcePlan(status=DISABLED), force=True)
    assert statuses(client, ns) == {"a": ENABLED, "b": DISABLED}
    with raises_hms(MetaException, "Invalid request; multiple flags are set"):
        alter_plan(client, ns, "b", WMNullableResourcePlan(status=ACTIVE), activate=True,
                   force=True)
    with raises_hms(InvalidOperationException, "Cannot change values during status switch."):
        alter_plan(client, ns, "b", WMNullableResourcePlan(status=ENABLED, queryParallelism=3,
                                                           isSetQueryParallelism=True))


def test_edits_renames_and_replacement(client, ns):
    create_plan(client, ns, "p")
    alter_plan(client, ns, "p", WMNullableResourcePlan(name="Q", queryParallelism=4,
                                                       isSetQueryParallelism=True))
    plan = get_plan(client, ns, "q").plan
    assert (plan.name, plan.queryParallelism) == ("q", 4)
    with raises_hms(InvalidOperationException, "queryParallelism should be positive."):
        alter_plan(client, ns, "q", WMNullableResourcePlan(queryParallelism=-1,
                                                           isSetQueryParallelism=True))
    with raises_hms(InvalidOperationException, "Cannot rename to empty value."):
        alter_plan(client, ns, "q", WMNullableResourcePlan(name=" "))
    with raises_hms(NoSuchObjectException, "Cannot find pool: nope"):
        alter_plan(client, ns, "q", WMNullableResourcePlan(defaultPoolPath="nope",
                                                           isSetDefaultPoolPath=True))
    alter_plan(client, ns, "q", WMNullableResourcePlan(isSetDefaultPoolPath=True))
    assert get_plan(client, ns, "q").plan.defaultPoolPath is None
    with raises_hms(InvalidOperationException, "Cannot change ns; from"):
        alter_plan(client, ns, "q", WMNullableResourcePlan(ns="elsewhere"))
    create_plan(client, ns, "other")
    with raises_hms(MetaException, "Resource plan name should be unique"):
        alter_plan(client, ns, "q", WMNullableResourcePlan(name="other"))

    # Replace the active plan: "other" takes q's name and status, q becomes q_old_<time>.
    alter_plan(client, ns, "q", WMNullableResourcePlan(status=ACTIVE), activate=True)
    full = alter_plan(client, ns, "other", WMNullableResourcePlan(status=ACTIVE), replace=True)
    assert (full.plan.name, full.plan.status) == ("q", ACTIVE)
    now = statuses(client, ns)
    old = [name for name in now if name.startswith("q_old_")]
    assert len(now) == 2 and now["q"] == ACTIVE and now[old[0]] == DISABLED, now
    with raises_hms(InvalidOperationException, "Must specify a name, or the active plan; "
                    "received null, null"):
        alter_plan(client, ns, old[0], WMNullableResourcePlan(), replace=True)
    with raises_hms(InvalidOperationException, "A plan cannot replace itself"):
        alter_plan(client, ns, "q", WMNullableResourcePlan(name="q"), replace=True)
    with raises_hms(InvalidOperationException, "Cannot change values during replace."):
        alter_plan(client, ns, old[0], WMNullableResourcePlan(name="q", queryParallelism=1),
                   replace=True)


def test_validation_errors_and_warnings(client, ns):
    create_plan(client, ns, "v", parallelism=10)

    def validate():
        response = client.validate_resource_plan(
            WMValidateResourcePlanRequest(resourcePlanName="v", ns=ns))
        return response.errors, response.warnings

    # The default pool takes the plan's parallelism: nothing to report.
    assert validate() == ([], [])
    create_pool(client, ns, "v", "bi", 0.5, 4)
    create_pool(client, ns, "v", "bi.etl", 0.7, 1)
    create_pool(client, ns, "v", "bi.adhoc", 0.6, 1)
    errors, warnings = validate()
    assert errors == [
        "Sum of all pools' query parallelism: 16 exceeds resource plan query parallelism: 10",
        "Sum of root children pools' alloc fraction should be 1.0 got: 1.5 for pool: ",
        "Sum of children pools' alloc fraction should be less than 1 got: 1.2999999999999998 "
        "for pool: bi",
    ]
    assert warnings == []
    with raises_hms(InvalidOperationException, "ResourcePlan: v is invalid: [Sum of all pools'"):
        alter_plan(client, ns, "v", WMNullableResourcePlan(status=ENABLED))
    with raises_hms(NoSuchObjectException, "Cannot find resourcePlan: nope in"):
        client.validate_resource_plan(WMValidateResourcePlanRequest(resourcePlanName="nope", ns=ns))


def test_pools_triggers_and_mappings(client, ns):
    create_plan(client, ns, "p")
    with raises_hms(NoSuchObjectException, "Pool path is invalid, the parent does not exist"):
        create_pool(client, ns, "p", "bi.etl", 0.5, 1)
    create_pool(client, ns, "p", "bi", 0.5, 2, policy="fifo")
    create_pool(client, ns, "p", "bi.etl", 1.0, 1)
    with raises_hms(AlreadyExistsException, "Pool already exists"):
        create_pool(client, ns, "p", "bi", 0.5, 2)
    with raises_hms(MetaException, "Invalid scheduling policy lottery"):
        create_pool(client, ns, "p", "x", 0.5, 2, policy="lottery")

    trigger = WMTrigger(resourcePlanName="p", triggerName="Slow",
                        triggerExpression="ELAPSED_TIME > 30000", actionExpression="KILL", ns=ns)
    client.create_wm_trigger(WMCreateTriggerRequest(trigger=trigger))
    with raises_hms(AlreadyExistsException, "Trigger already exists, use alter"):
        client.create_wm_trigger(WMCreateTriggerRequest(trigger=trigger))
    client.alter_wm_trigger(WMAlterTriggerRequest(trigger=WMTrigger(
        resourcePlanName="p", triggerName="slow", actionExpression="MOVE TO bi",
        isInUnmanaged=True, ns=ns)))
    with raises_hms(NoSuchObjectException, "Cannot find trigger with name: fast"):
        client.alter_wm_trigger(WMAlterTriggerRequest(trigger=WMTrigger(
            resourcePlanName="p", triggerName="fast", ns=ns)))
    triggers = client.get_triggers_for_resourceplan(
        WMGetTriggersForResourePlanRequest(resourcePlanName="p", ns=ns)).triggers
    assert [(t.triggerName, t.triggerExpression, t.actionExpression, t.isInUnmanaged)
            for t in triggers] == [("slow", "ELAPSED_TIME > 30000", "MOVE TO bi", True)]
    client.create_or_drop_wm_trigger_to_pool_mapping(WMCreateOrDropTriggerToPoolMappingRequest(
        resourcePlanName="p", triggerName="slow", poolPath="bi.etl", drop=False, ns=ns))
    with raises_hms(NoSuchObjectException, "Cannot find pool: nope"):
        client.create_or_drop_wm_trigger_to_pool_mapping(
            WMCreateOrDropTriggerToPoolMappingRequest(resourcePlanName="p", triggerName="slow",
                                                      poolPath="nope", drop=False, ns=ns))

    mapping = WMMapping(resourcePlanName="p", entityType="user", entityName="Alice",
                        poolPath="bi.etl", ordering=2, ns=ns)
    client.create_or_update_wm_mapping(WMCreateOrUpdateMappingRequest(mapping=mapping))
    with raises_hms(AlreadyExistsException, "Mapping already exists"):
        client.create_or_update_wm_mapping(WMCreateOrUpdateMappingRequest(mapping=mapping))
    with raises_hms(InvalidObjectException, "Invalid entity type"):
        client.create_or_update_wm_mapping(WMCreateOrUpdateMappingRequest(
            mapping=WMMapping(resourcePlanName="p", entityType="robot", entityName="r", ns=ns)))
    group = WMMapping(resourcePlanName="p", entityType="GROUP", entityName="ops", ns=ns)
    client.create_or_update_wm_mapping(WMCreateOrUpdateMappingRequest(mapping=group))
    group.poolPath = "bi"
    client.create_or_update_wm_mapping(WMCreateOrUpdateMappingRequest(mapping=group, update=True))

    # A renamed pool takes its children, mappings and triggers along.
    client.alter_wm_pool(WMAlterPoolRequest(pool=WMNullablePool(
        resourcePlanName="p", poolPath="sales", queryParallelism=3, ns=ns), poolPath="bi"))
    plan = get_plan(client, ns, "p")
    assert [(p.poolPath, p.queryParallelism, p.schedulingPolicy) for p in plan.pools] == [
        ("default", 4, None), ("sales", 3, "fifo"), ("sales.etl", 1, None)]
    assert sorted((m.entityType, m.entityName, m.poolPath, m.ordering) for m in plan.mappings) == [
        ("GROUP", "ops", "sales", 0), ("USER", "alice", "sales.etl", 2)]
    assert [(t.pool, t.trigger) for t in plan.poolTriggers] == [("sales.etl", "slow")]

    with raises_hms(InvalidOperationException, "Cannot drop a pool that has child pools"):
        client.drop_wm_pool(WMDropPoolRequest(resourcePlanName="p", poolPath="sales", ns=ns))
    with raises_hms(InvalidOperationException, "Cannot drop default pool of a resource plan"):
        client.drop_wm_pool(WMDropPoolRequest(resourcePlanName="p", poolPath="default", ns=ns))
    with raises_hms(InvalidOperationException, "Please remove all mappings for this pool."):
        client.drop_wm_pool(WMDropPoolRequest(resourcePlanName="p", poolPath="sales.etl", ns=ns))
    client.drop_wm_mapping(WMDropMappingRequest(mapping=WMMapping(
        resourcePlanName="p", entityType="USER", entityName="alice", ns=ns)))
    with raises_hms(NoSuchObjectException, "Cannot delete mapping."):
        client.drop_wm_mapping(WMDropMappingRequest(mapping=WMMapping(
            resourcePlanName="p", entityType="USER", entityName="alice", ns=ns)))
    client.create_or_drop_wm_trigger_to_pool_mapping(WMCreateOrDropTriggerToPoolMappingRequest(
        resourcePlanName="p", triggerName="slow", poolPath="sales.etl", drop=True, ns=ns))
    client.drop_wm_pool(WMDropPoolRequest(resourcePlanName="p", poolPath="sales.etl", ns=ns))
    with raises_hms(NoSuchObjectException, "Cannot delete pool: sales.etl"):
        client.drop_wm_pool(WMDropPoolRequest(resourcePlanName="p", poolPath="sales.etl", ns=ns))
    client.drop_wm_trigger(WMDropTriggerRequest(resourcePlanName="p", triggerName="slow", ns=ns))
    with raises_hms(NoSuchObjectException, "Cannot delete trigger: slow"):
        client.drop_wm_trigger(WMDropTriggerRequest(resourcePlanName="p", triggerName="slow",
                                                    ns=ns))

    # A copy carries pools, triggers, mappings; the source is untouched.
    create_plan(client, ns, "copy", copy_from="p")
    copy = get_plan(client, ns, "copy")
    assert copy.plan.status == DISABLED
    assert [p.poolPath for p in copy.pools] == ["default", "sales"]
    assert [(m.entityName, m.poolPath) for m in copy.mappings] == [("ops", "sales")]


def test_plans_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            create_plan(client, "team", "kept")
            create_pool(client, "team", "kept", "etl", 0.0, 1)
            alter_plan(client, "team", "kept", WMNullableResourcePlan(status=ACTIVE),
                       activate=True)
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            active = client.get_active_resource_plan(WMGetActiveResourcePlanRequest(ns="team"))
            plan = active.resourcePlan
            assert (plan.plan.name, plan.plan.status) == ("kept", ACTIVE)
            assert [p.poolPath for p in plan.pools] == ["default", "etl"]
    finally:
        stop_hivestore(again)
