"""Hive 2.3's Java client, as Spark embeds it, against the server.

Goal: the generated Java ThriftHiveMetastore.Client (buffered and framed, binary and compact)
and the real HiveMetaStoreClient (set_ugi on open, one-way shutdown on close) work, and an
unimplemented method fails cleanly with UNKNOWN_METHOD without spoiling the connection.

Method: compile tests/java/WireClients.java against the jars of the pinned pyspark wheel,
run it once against the fixture's server, then check its PASS/FAIL line for each part.
Skips only when no `java`/`javac` is on PATH; a missing pyspark is a failure.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hms_helpers import UNIMPLEMENTED_METHOD, args_shape

SOURCE = Path(__file__).resolve().parents[1] / "java" / "WireClients.java"
COMPILE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 300
GENERATED_COMBOS = ["buffered-binary", "buffered-compact", "framed-binary", "framed-compact"]
# The JVM flags the reference HMS start script uses for Hive 2.3 on Java 17.
JAVA_OPENS = [f"--add-opens=java.base/{package}=ALL-UNNAMED"
              for package in ("java.lang", "java.lang.reflect", "java.net", "java.nio",
                              "java.util", "java.util.concurrent", "sun.nio.ch")]
CHECK_NAMES = {
    **{combo: f"generated-client {combo}" for combo in GENERATED_COMBOS},
    "hmsclient-open-close": "HiveMetaStoreClient open, unimplemented call, close",
    "hmsclient-reopen": "HiveMetaStoreClient reopens after close",
}


def pyspark_jars() -> Path:
    try:
        import pyspark
    except ImportError:
        pytest.fail("pyspark (for its Hive 2.3 jars) is not installed: run scripts/test.sh, "
                    "which installs pyspark==4.3.0 into .venv")
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if not any(jars.glob("hive-metastore-*.jar")):
        pytest.fail(f"no hive-metastore jar in {jars}")
    return jars


@pytest.fixture(scope="module")
def java_run(server, expected_name, tmp_path_factory):
    """Compile and run WireClients once; returns {check name: output line}."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no java/javac on PATH: install a JDK (17) to run the Hive 2.3 Java client")
    classpath = f"{pyspark_jars()}/*"
    classes = tmp_path_factory.mktemp("java-classes")
    compiled = subprocess.run(["javac", "-cp", classpath, "-d", str(classes), str(SOURCE)],
                              capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    assert compiled.returncode == 0, f"javac failed:\n{compiled.stdout}\n{compiled.stderr}"

    combos = [c for c in GENERATED_COMBOS if server.supports(*c.split("-", 1))]
    if server.supports("buffered", "binary"):
        combos.append("hmsclient")  # HiveMetaStoreClient's default: TSocket + strict binary
    command = ["java", *JAVA_OPENS, "-cp", f"{classes}{os.pathsep}{classpath}", "WireClients",
               server.host, str(server.port), UNIMPLEMENTED_METHOD, args_shape(),
               expected_name or "-", ",".join(combos)]
    workdir = tmp_path_factory.mktemp("java-run")
    ran = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                         cwd=workdir, stdin=subprocess.DEVNULL)
    lines = {}
    for line in ran.stdout.splitlines():
        for verdict in ("PASS ", "FAIL "):
            if line.startswith(verdict):
                lines[line[len(verdict):].split(":", 1)[0]] = line
    return {"lines": lines, "stdout": ran.stdout, "stderr": ran.stderr, "code": ran.returncode}


@pytest.mark.parametrize("check", list(CHECK_NAMES))
def test_java_client(server, java_run, check):
    if check in GENERATED_COMBOS and not server.supports(*check.split("-", 1)):
        pytest.skip(f"{server.uri} is not configured for {check} (HMS_COMBOS)")
    if check.startswith("hmsclient") and not server.supports("buffered", "binary"):
        pytest.skip(f"{server.uri} does not speak buffered binary (HMS_COMBOS)")
    assert_java_passed(java_run, CHECK_NAMES[check], server)


def assert_java_passed(java_run, name, server):
    """The Java program printed `PASS name`, and the fixture's server still runs."""
    line = java_run["lines"].get(name)
    assert line is not None, (f"no result for '{name}' (java exit {java_run['code']});\n"
                              f"stdout:\n{java_run['stdout'][-6000:]}\n"
                              f"stderr:\n{java_run['stderr'][-3000:]}")
    assert line.startswith("PASS "), f"{line}\nstdout:\n{java_run['stdout'][-6000:]}"
    if server.process is not None:
        server.assert_alive()


def test_java_client_exit_code(java_run):
    assert java_run["code"] == 0, f"stdout:\n{java_run['stdout'][-6000:]}"
