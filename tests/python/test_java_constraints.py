"""Hive 2.3's Java HiveMetaStoreClient through the primary and foreign key calls.

Goal: the real client Spark embeds creates a table with its primary key
(createTableWithConstraints), reads it back (getPrimaryKeys), adds and reads a foreign key from
either end (addForeignKey, getForeignKeys) and drops both (dropConstraint), as Hive answers
(tests/java/ConstraintsClient.java says what each step checks).

Method: compile tests/java/ConstraintsClient.java against the jars of the pinned pyspark wheel,
run it once against the fixture's server in a fresh database, then check its PASS/FAIL line for
each step. Skips only when no `java`/`javac` is on PATH; a missing pyspark is a failure.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hms_helpers import unique_name
from test_java_client import JAVA_OPENS, assert_java_passed, pyspark_jars

SOURCE = Path(__file__).resolve().parents[1] / "java" / "ConstraintsClient.java"
COMPILE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 300
STEPS = ["create", "primary keys", "foreign keys", "drop constraint", "drop"]


@pytest.fixture(scope="module")
def java_run(server, tmp_path_factory):
    """Compile and run ConstraintsClient once; returns {step name: output line} and the run's output."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no java/javac on PATH: install a JDK (17) to run the Hive 2.3 Java client")
    if not server.supports("buffered", "binary"):
        pytest.skip(f"{server.uri} does not speak buffered binary (HMS_COMBOS), "
                    "HiveMetaStoreClient's only transport")
    classpath = f"{pyspark_jars()}/*"
    classes = tmp_path_factory.mktemp("java-constraints-classes")
    compiled = subprocess.run(["javac", "-cp", classpath, "-d", str(classes), str(SOURCE)],
                              capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    assert compiled.returncode == 0, f"javac failed:\n{compiled.stdout}\n{compiled.stderr}"
    command = ["java", *JAVA_OPENS, "-cp", f"{classes}{os.pathsep}{classpath}", "ConstraintsClient",
               server.host, str(server.port), unique_name("jcons")]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                         cwd=tmp_path_factory.mktemp("java-constraints-run"), stdin=subprocess.DEVNULL)
    lines = {}
    for line in ran.stdout.splitlines():
        for verdict in ("PASS ", "FAIL "):
            if line.startswith(verdict):
                lines[line[len(verdict):].split(":", 1)[0]] = line
    return {"lines": lines, "stdout": ran.stdout, "stderr": ran.stderr, "code": ran.returncode}


@pytest.mark.parametrize("step", STEPS)
def test_java_constraints_step(server, java_run, step):
    assert_java_passed(java_run, step, server)


def test_java_constraints_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
