"""Hive 2.3's Java client, as Spark embeds it, against the server.

Goal: the generated Java ThriftHiveMetastore.Client (buffered and framed, binary and compact)
and the real HiveMetaStoreClient (set_ugi on open, one-way shutdown on close) work, and an
unimplemented method fails cleanly with UNKNOWN_METHOD without spoiling the connection.

Method: compile tests/java/WireClients.java against the jars of the pinned pyspark wheel,
run it once against the fixture's server, then check its PASS/FAIL line for each part.
Skips only when no `java`/`javac` is on PATH; a missing pyspark is a failure.
"""

import pytest

from hms_helpers import UNIMPLEMENTED_METHOD, args_shape
from java_clients import assert_java_passed, run_java

GENERATED_COMBOS = ["buffered-binary", "buffered-compact", "framed-binary", "framed-compact"]
CHECK_NAMES = {
    **{combo: f"generated-client {combo}" for combo in GENERATED_COMBOS},
    "hmsclient-open-close": "HiveMetaStoreClient open, unimplemented call, close",
    "hmsclient-reopen": "HiveMetaStoreClient reopens after close",
}


@pytest.fixture(scope="module")
def java_run(server, expected_name, tmp_path_factory):
    """Compile and run WireClients once; returns {check name: output line}."""
    combos = [c for c in GENERATED_COMBOS if server.supports(*c.split("-", 1))]
    if server.supports("buffered", "binary"):
        combos.append("hmsclient")  # HiveMetaStoreClient's default: TSocket + strict binary
    arguments = [server.host, str(server.port), UNIMPLEMENTED_METHOD, args_shape(),
                 expected_name or "-", ",".join(combos)]
    return run_java("WireClients", arguments, tmp_path_factory.mktemp("java-run"))


@pytest.mark.parametrize("check", list(CHECK_NAMES))
def test_java_client(server, java_run, check):
    if check in GENERATED_COMBOS and not server.supports(*check.split("-", 1)):
        pytest.skip(f"{server.uri} is not configured for {check} (HMS_COMBOS)")
    if check.startswith("hmsclient") and not server.supports("buffered", "binary"):
        pytest.skip(f"{server.uri} does not speak buffered binary (HMS_COMBOS)")
    assert_java_passed(java_run, CHECK_NAMES[check], server)


def test_java_client_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
