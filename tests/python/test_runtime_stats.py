"""Runtime statistics through the pyiceberg-vendored Hive 4 client: add_runtime_stats and
get_runtime_stats as Hive 4's ObjectStore answers them (MRuntimeStat, getRuntimeStats).

Hive stamps each entry with the server's time (the client's createTime is ignored) and answers
the newest first, those created before maxCreateTime when it is positive, until their weights
reach maxWeight (the entry that reaches it included; all when maxWeight is negative).

Hive 2.3 lacks both calls (Hive 3): the tests skip on the reference.
"""

import time

import pytest
from hive_metastore.ttypes import GetRuntimeStatsRequest, MetaException, RuntimeStat

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_or_skip_on_reference, connected, raises_hms

PAYLOAD_BYTES_MAX = 1 << 20


def newest(client, max_weight=-1, max_create_time=0):
    return client.get_runtime_stats(GetRuntimeStatsRequest(maxWeight=max_weight,
                                                           maxCreateTime=max_create_time))


def test_newest_first_until_the_weight_asked(client, server):
    call_or_skip_on_reference(server, newest, client)
    before = int(time.time())
    for weight, payload in [(5, b"first"), (7, b"second\x00bytes"), (11, b"third")]:
        client.add_runtime_stats(RuntimeStat(createTime=1, weight=weight, payload=payload))
    got = newest(client)
    assert [(s.weight, s.payload) for s in got[:3]] == [
        (11, b"third"), (7, b"second\x00bytes"), (5, b"first")]
    # The server's time, not the client's createTime.
    assert all(before - 1 <= s.createTime <= time.time() + 1 for s in got[:3])
    # Weights add up until they reach the bound, that entry included.
    assert [s.weight for s in newest(client, max_weight=11)] == [11]
    assert [s.weight for s in newest(client, max_weight=12)] == [11, 7]
    assert [s.weight for s in newest(client, max_weight=0)] == [11]
    # maxCreateTime keeps only what was created before it.
    assert newest(client, max_create_time=before - 5) == []
    assert [s.weight for s in newest(client, max_create_time=int(time.time()) + 5)][:3] == [
        11, 7, 5]


def test_payloads_are_bounded(client, server):
    if server.external:
        pytest.skip("hivestore's own bound")
    with raises_hms(MetaException, "longer than the 1048576 bytes allowed"):
        client.add_runtime_stats(RuntimeStat(weight=1, payload=b"x" * (PAYLOAD_BYTES_MAX + 1)))
    assert all(len(s.payload) <= PAYLOAD_BYTES_MAX for s in newest(client))


def test_runtime_stats_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            client.add_runtime_stats(RuntimeStat(weight=3, payload=b"kept"))
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert [(s.weight, s.payload) for s in newest(client)] == [(3, b"kept")]
    finally:
        stop_hivestore(again)
