"""Scheduled queries through the pyiceberg-vendored Hive 4 client: scheduled_query_maintenance,
get_scheduled_query, scheduled_query_poll and scheduled_query_progress as Hive 4's ObjectStore
answers them.

Hive's rules: queries are keyed by schedule name and cluster namespace; CREATE of a taken name
is AlreadyExistsException "Scheduled query with name: n@ns already exists.", ALTER and DROP of a
missing one NoSuchObjectException "... doesn't exists."; the schedule is Quartz cron
("Invalid QUARTZ schedule expression: 's'", "Invalid schedule: s" when it never fires again)
and sets nextExecution; a poll hands out the enabled, due, not running query as a new INITED
execution whose query is prefixed "/* schedule: n */"; progress reports follow Hive's
transitions ("Invalid state change: A=>B"), and an ended execution frees the query.

Hive 2.3 lacks these calls (Hive 4): the tests skip on the reference.
"""

import time

import pytest
from hive_metastore.ttypes import (
    AlreadyExistsException, InvalidInputException, InvalidOperationException, MetaException,
    NoSuchObjectException, QueryState, ScheduledQuery, ScheduledQueryKey,
    ScheduledQueryMaintenanceRequest, ScheduledQueryMaintenanceRequestType,
    ScheduledQueryPollRequest, ScheduledQueryProgressInfo,
)

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_or_skip_on_reference, connected, raises_hms, unique_name

CREATE, ALTER, DROP = (ScheduledQueryMaintenanceRequestType.CREATE,
                       ScheduledQueryMaintenanceRequestType.ALTER,
                       ScheduledQueryMaintenanceRequestType.DROP)
EVERY_SECOND = "* * * * * ?"
POLL_WAIT_S = 5.0


def maintain(client, kind, ns, name, schedule=EVERY_SECOND, enabled=True, query="select 1"):
    scheduled = ScheduledQuery(scheduleKey=ScheduledQueryKey(scheduleName=name,
                                                             clusterNamespace=ns),
                               enabled=enabled, schedule=schedule, user="alice", query=query)
    client.scheduled_query_maintenance(ScheduledQueryMaintenanceRequest(type=kind,
                                                                        scheduledQuery=scheduled))


def get(client, ns, name):
    return client.get_scheduled_query(ScheduledQueryKey(scheduleName=name, clusterNamespace=ns))


def poll_due(client, ns):
    """Polls until a query is handed out: every-second schedules are due within two seconds."""
    deadline = time.monotonic() + POLL_WAIT_S
    while time.monotonic() < deadline:
        response = client.scheduled_query_poll(ScheduledQueryPollRequest(clusterNamespace=ns))
        if response.executionId is not None:
            return response
        time.sleep(0.1)
    raise AssertionError(f"nothing became due in {ns} within {POLL_WAIT_S}s")


def report(client, execution_id, state, error=None):
    client.scheduled_query_progress(ScheduledQueryProgressInfo(
        scheduledExecutionId=execution_id, state=state, executorQueryId="hive_q1",
        errorMessage=error))


@pytest.fixture()
def ns(client, server):
    call_or_skip_on_reference(server, client.scheduled_query_poll,
                              ScheduledQueryPollRequest(clusterNamespace="probe"))
    return unique_name("cluster")


def test_maintenance_and_get(client, ns):
    maintain(client, CREATE, ns, "Hourly", schedule="0 0 * * * ? *")
    got = get(client, ns, "Hourly")
    assert (got.scheduleKey.scheduleName, got.scheduleKey.clusterNamespace) == ("Hourly", ns)
    assert (got.enabled, got.schedule, got.user, got.query) == (
        True, "0 0 * * * ? *", "alice", "select 1")
    assert got.nextExecution > time.time() and got.nextExecution % 3600 == 0
    with raises_hms(AlreadyExistsException,
                    f"Scheduled query with name: Hourly@{ns} already exists."):
        maintain(client, CREATE, ns, "Hourly")
    with raises_hms(InvalidInputException, "Invalid QUARTZ schedule expression: '0 0 * * *'"):
        maintain(client, CREATE, ns, "bad", schedule="0 0 * * *")
    with raises_hms(InvalidInputException, "Invalid schedule: 0 0 0 1 1 ? 2001"):
        maintain(client, CREATE, ns, "past", schedule="0 0 0 1 1 ? 2001")
    with raises_hms(NoSuchObjectException, f"There is no scheduled query for: bad@{ns}"):
        get(client, ns, "bad")

    maintain(client, ALTER, ns, "Hourly", schedule="0 30 2 ? * SUN", enabled=False,
             query="select 2")
    got = get(client, ns, "Hourly")
    assert (got.enabled, got.schedule, got.query) == (False, "0 30 2 ? * SUN", "select 2")
    # Sunday 02:30 UTC: 1970-01-04 was a Sunday.
    assert (got.nextExecution - 3 * 86400 - 9000) % (7 * 86400) == 0
    maintain(client, DROP, ns, "Hourly")
    for kind in (ALTER, DROP):
        with raises_hms(NoSuchObjectException,
                        f"Scheduled query with name: Hourly@{ns} doesn't exists."):
            maintain(client, kind, ns, "Hourly")


def test_poll_and_progress_follow_hive(client, ns):
    empty = client.scheduled_query_poll(ScheduledQueryPollRequest(clusterNamespace=ns))
    assert (empty.scheduleKey, empty.executionId, empty.query) == (None, None, None)
    maintain(client, CREATE, ns, "often", query="insert into t select 1")
    maintain(client, CREATE, ns, "off", enabled=False)
    polled = poll_due(client, ns)
    assert (polled.scheduleKey.scheduleName, polled.user) == ("often", "alice")
    assert polled.query == "/* schedule: often */insert into t select 1"
    # Running: not handed out again; the disabled query never is.
    time.sleep(1.1)
    again = client.scheduled_query_poll(ScheduledQueryPollRequest(clusterNamespace=ns))
    assert again.executionId is None
    execution = polled.executionId
    report(client, execution, QueryState.EXECUTING)
    report(client, execution, QueryState.EXECUTING)
    with raises_hms(InvalidOperationException, "Invalid state change: EXECUTING=>INITED"):
        report(client, execution, QueryState.INITED)
    report(client, execution, QueryState.FINISHED)
    with raises_hms(InvalidOperationException, "Invalid state change: FINISHED=>FAILED"):
        report(client, execution, QueryState.FAILED, error="late")
    # Finished, the query is handed out again, as a new execution.
    second = poll_due(client, ns)
    assert second.executionId > execution
    report(client, second.executionId, QueryState.FAILED, error="boom")
    with raises_hms(MetaException, "No scheduled execution has id 999999999"):
        report(client, 999999999, QueryState.EXECUTING)
    # Another namespace's poll does not see these queries.
    other = client.scheduled_query_poll(ScheduledQueryPollRequest(clusterNamespace=ns + "x"))
    assert other.executionId is None


def test_scheduled_queries_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            maintain(client, CREATE, "c", "kept")
            polled = poll_due(client, "c")
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert get(client, "c", "kept").schedule == EVERY_SECOND
            # The execution is still running: not handed out, and its reports are taken.
            assert client.scheduled_query_poll(
                ScheduledQueryPollRequest(clusterNamespace="c")).executionId is None
            report(client, polled.executionId, QueryState.EXECUTING)
            report(client, polled.executionId, QueryState.FINISHED)
            assert poll_due(client, "c").executionId > polled.executionId
    finally:
        stop_hivestore(again)
