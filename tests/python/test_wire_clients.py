"""Real Python HMS clients, nobody here wrote them, against the server over loopback.

Goal: every client configuration these libraries offer can talk to the server: fb303 calls,
set_ugi, an unimplemented method that comes back as TApplicationException UNKNOWN_METHOD
naming it, and then further calls on the same connection; a one-way shutdown() neither
stops the server nor spoils the connection.

Method: the Thrift client generated from the Hive 4 IDL that pyiceberg vendors (modules
hive_metastore, fb303) over the thrift 0.25 library in every transport x protocol pair;
then hmsclient and pymetastore through their own APIs, reaching into the generated client
they wrap where their API stops.
"""

import time

import pytest
from fb303 import FacebookService
from fb303.ttypes import fb_status

from hms_helpers import (
    ALL_COMBOS,
    SOCKET_TIMEOUT_S,
    assert_unknown_method,
    call_unimplemented,
    make_stack,
    open_client,
)

USER, GROUPS = "alice", ["analysts", "engineers"]
# Clocks of the test and the server are the same machine's, up to rounding to seconds.
CLOCK_SLACK_S = 5


def counter_name(method: str) -> str:
    return f"{method}.calls"


def check_fb303_sequence(server, expected_name, client, fb303_client=None):
    """The shared call sequence; `client` speaks ThriftHiveMetastore, `fb303_client` fb303.

    Both must share one connection. Counter deltas are checked on hivestore only: other
    metastores count differently (Apache's HMS counts a few methods under bare names).
    """
    fb = fb303_client or client
    before = fb.getCounters() if not server.external else {}

    name = fb.getName()
    assert isinstance(name, str) and name, f"getName returned {name!r}"
    if expected_name is not None:
        assert name == expected_name
    version = fb.getVersion()
    assert isinstance(version, str) and version, f"getVersion returned {version!r}"
    assert fb.getStatus() == fb_status.ALIVE
    assert isinstance(fb.getStatusDetails(), str)
    alive_since = fb.aliveSince()
    assert 0 < alive_since <= time.time() + CLOCK_SLACK_S, f"aliveSince={alive_since}"
    if server.started_s is not None:
        assert alive_since >= server.started_s - CLOCK_SLACK_S, (
            f"aliveSince={alive_since} is before the process started ({server.started_s:.0f})")

    assert client.set_ugi(USER, list(GROUPS)) == GROUPS

    error = call_unimplemented(client)
    assert_unknown_method(error)
    assert fb.getStatus() == fb_status.ALIVE, "the connection must go on after UNKNOWN_METHOD"
    assert fb.getName() == name

    options = fb.getOptions()
    assert isinstance(options, dict)

    after = fb.getCounters()
    assert isinstance(after, dict)
    if not server.external:
        expected_deltas = {"getName": 2, "getVersion": 1, "getStatus": 2, "getStatusDetails": 1,
                           "aliveSince": 1, "set_ugi": 1, "getOptions": 1}
        for method, delta in expected_deltas.items():
            key = counter_name(method)
            got = after.get(key, 0) - before.get(key, 0)
            assert got == delta, (f"counter {key}: {before.get(key)} -> {after.get(key)}, "
                                  f"expected +{delta}; counters: {sorted(after)}")
        key = counter_name("getName")
        assert fb.getCounter(key) == after[key]
        # The server's own time per method, in nanoseconds, grows with every call.
        time_key = "getName.server_ns"
        assert after.get(time_key, 0) > before.get(time_key, 0), (before, after)


def check_oneway_shutdown(server, fb):
    """shutdown() is one-way: no reply is read; the next call on the connection works."""
    fb.shutdown()
    assert fb.getStatus() == fb_status.ALIVE
    server.assert_alive()


def skip_unless_supported(server, transport, protocol):
    if not server.supports(transport, protocol):
        pytest.skip(f"{server.uri} is not configured for {transport} {protocol} (HMS_COMBOS)")


def combo_id(combo):
    return "-".join(combo)


@pytest.mark.parametrize("transport,protocol", ALL_COMBOS, ids=map(combo_id, ALL_COMBOS))
def test_generated_client_calls_fb303_and_survives_unknown_method(
        server, expected_name, transport, protocol):
    skip_unless_supported(server, transport, protocol)
    client, trans = open_client(server, transport, protocol)
    try:
        check_fb303_sequence(server, expected_name, client)
        check_oneway_shutdown(server, client)
    finally:
        trans.close()


@pytest.mark.parametrize("transport,protocol", ALL_COMBOS, ids=map(combo_id, ALL_COMBOS))
def test_generated_client_unknown_method_repeated_keeps_connection(server, transport, protocol):
    """Ten unknown calls in a row, each followed by a good one, all on one connection."""
    skip_unless_supported(server, transport, protocol)
    client, trans = open_client(server, transport, protocol)
    try:
        for _ in range(10):
            assert_unknown_method(call_unimplemented(client))
            assert client.getStatus() == fb_status.ALIVE
    finally:
        trans.close()


def test_unimplemented_method_with_omitted_argument_answers_unknown_method(server):
    """A client that passes null for an argument (Java does, where Python passes None) sends
    an empty argument struct. Apache's HMS answers an unknown method without reading the
    arguments; the answer must still be UNKNOWN_METHOD, which Hive's client takes as "older
    metastore" and falls back from, and the connection must go on."""
    client, trans = open_client(server)
    try:
        assert_unknown_method(call_unimplemented(client, omit_arguments=True))
        assert client.getStatus() == fb_status.ALIVE
    finally:
        trans.close()


def test_connection_open_close_without_calls_leaves_server_serving(server):
    """Clients that connect and go away without a byte must not disturb the server."""
    for transport, protocol in ALL_COMBOS:
        if not server.supports(transport, protocol):
            continue
        trans, _ = make_stack(server.host, server.port, transport, protocol)
        trans.open()
        trans.close()
    server.assert_alive()


# ---------------------------------------------------------------- hmsclient 0.1.1

def test_hmsclient_default_connection(server, expected_name):
    """hmsclient's own constructor: TBufferedTransport + TBinaryProtocol to host:port."""
    from hmsclient import hmsclient

    skip_unless_supported(server, "buffered", "binary")
    with hmsclient.HMSClient(host=server.host, port=server.port) as client:
        client._oprot.trans._TBufferedTransport__trans.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
        check_fb303_sequence(server, expected_name, client)
        check_oneway_shutdown(server, client)


@pytest.mark.parametrize("transport,protocol", ALL_COMBOS, ids=map(combo_id, ALL_COMBOS))
def test_hmsclient_with_given_protocol(server, expected_name, transport, protocol):
    """hmsclient also takes a ready protocol (iprot=...): every transport x protocol pair."""
    from hmsclient import hmsclient

    skip_unless_supported(server, transport, protocol)
    _, proto = make_stack(server.host, server.port, transport, protocol)
    client = hmsclient.HMSClient(iprot=proto)
    with client:
        check_fb303_sequence(server, expected_name, client)
        check_oneway_shutdown(server, client)


# ---------------------------------------------------------------- pymetastore 0.4.2

def test_pymetastore_connection(server, expected_name):
    """pymetastore's HMS.create(): its generated client has no fb303, so fb303 goes over a
    FacebookService client on the very same protocol (same connection)."""
    from pymetastore.metastore import HMS

    skip_unless_supported(server, "buffered", "binary")
    with HMS.create(host=server.host, port=server.port) as hms:
        generated = hms.client
        generated._iprot.trans._TBufferedTransport__trans.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
        fb = FacebookService.Client(generated._iprot, generated._oprot)
        check_fb303_sequence(server, expected_name, generated, fb303_client=fb)
        check_oneway_shutdown(server, fb)
        # The generated client's own calls still work after the shutdown on this connection.
        # (Not set_ugi again: Apache's HMS drops a connection that sets its user twice.)
        assert_unknown_method(call_unimplemented(generated))
