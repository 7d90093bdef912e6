"""Hive 2.3's Java HiveMetaStoreClient through the column-statistics calls, against the server.

Goal: the real client Spark embeds writes, reads, aggregates and deletes column statistics as
Hive 2.3 answers them: updateTableColumnStatistics, updatePartitionColumnStatistics,
setPartitionColumnStatistics (set_aggr_stats_for), getTableColumnStatistics,
getPartitionColumnStatistics, getAggrColStatsFor, deletePartitionColumnStatistics,
deleteTableColumnStatistics (tests/java/StatsClient.java says what each step checks).

Method: compile tests/java/StatsClient.java against the jars of the pinned pyspark wheel, run
it once against the fixture's server in a fresh database, then check its PASS/FAIL line for
each step. Its expectations pass on the Java reference HMS 2.3.10 too (HMS_URI). Skips only
when no `java`/`javac` is on PATH; a missing pyspark is a failure.
"""

import pytest

from hms_helpers import unique_name
from java_clients import assert_java_passed, require_hive_client_transport, run_java

STEPS = ["create", "table statistics", "partition statistics", "aggregate", "delete", "drop"]


@pytest.fixture(scope="module")
def java_run(server, tmp_path_factory):
    """Compile and run StatsClient once; returns {step name: output line} and the run's output."""
    require_hive_client_transport(server)
    arguments = [server.host, str(server.port), unique_name("jstats")]
    return run_java("StatsClient", arguments, tmp_path_factory.mktemp("java-statistics"))


@pytest.mark.parametrize("step", STEPS)
def test_java_statistics_step(server, java_run, step):
    assert_java_passed(java_run, step, server)


def test_java_statistics_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
