"""Hive 2.3's Java HiveMetaStoreClient through the primary and foreign key calls.

Goal: the real client Spark embeds creates a table with its primary key
(createTableWithConstraints), reads it back (getPrimaryKeys), adds and reads a foreign key from
either end (addForeignKey, getForeignKeys) and drops both (dropConstraint), as Hive answers
(tests/java/ConstraintsClient.java says what each step checks).

Method: compile tests/java/ConstraintsClient.java against the jars of the pinned pyspark wheel,
run it once against the fixture's server in a fresh database, then check its PASS/FAIL line for
each step. Skips only when no `java`/`javac` is on PATH; a missing pyspark is a failure.
"""

import pytest

from hms_helpers import unique_name
from java_clients import assert_java_passed, require_hive_client_transport, run_java

STEPS = ["create", "primary keys", "foreign keys", "drop constraint", "drop"]


@pytest.fixture(scope="module")
def java_run(server, tmp_path_factory):
    """Compile and run ConstraintsClient once; returns {step name: output line} and the run's output."""
    require_hive_client_transport(server)
    arguments = [server.host, str(server.port), unique_name("jcons")]
    return run_java("ConstraintsClient", arguments, tmp_path_factory.mktemp("java-constraints"))


@pytest.mark.parametrize("step", STEPS)
def test_java_constraints_step(server, java_run, step):
    assert_java_passed(java_run, step, server)


def test_java_constraints_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
