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

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hms_helpers import unique_name
from test_java_client import JAVA_OPENS, assert_java_passed, pyspark_jars

SOURCE = Path(__file__).resolve().parents[1] / "java" / "StatsClient.java"
COMPILE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 300
STEPS = ["create", "table statistics", "partition statistics", "aggregate", "delete", "drop"]


@pytest.fixture(scope="module")
def java_run(server, tmp_path_factory):
    """Compile and run StatsClient once; returns {step name: output line} and the run's output."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no java/javac on PATH: install a JDK (17) to run the Hive 2.3 Java client")
    if not server.supports("buffered", "binary"):
        pytest.skip(f"{server.uri} does not speak buffered binary (HMS_COMBOS), "
                    "HiveMetaStoreClient's only transport")
    classpath = f"{pyspark_jars()}/*"
    classes = tmp_path_factory.mktemp("java-stats-classes")
    compiled = subprocess.run(["javac", "-cp", classpath, "-d", str(classes), str(SOURCE)],
                              capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    assert compiled.returncode == 0, f"javac failed:\n{compiled.stdout}\n{compiled.stderr}"
    command = ["java", *JAVA_OPENS, "-cp", f"{classes}{os.pathsep}{classpath}", "StatsClient",
               server.host, str(server.port), unique_name("jstats")]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                         cwd=tmp_path_factory.mktemp("java-stats-run"), stdin=subprocess.DEVNULL)
    lines = {}
    for line in ran.stdout.splitlines():
        for verdict in ("PASS ", "FAIL "):
            if line.startswith(verdict):
                lines[line[len(verdict):].split(":", 1)[0]] = line
    return {"lines": lines, "stdout": ran.stdout, "stderr": ran.stderr, "code": ran.returncode}


@pytest.mark.parametrize("step", STEPS)
def test_java_statistics_step(server, java_run, step):
    assert_java_passed(java_run, step, server)


def test_java_statistics_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
