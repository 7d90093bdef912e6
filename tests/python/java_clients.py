"""Hive 2.3's Java clients, from the jars of the pinned pyspark wheel: compile one of
`tests/java/*.java` against them and run it, reading its `PASS name` / `FAIL name: why` lines."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

JAVA_SOURCES = Path(__file__).resolve().parents[1] / "java"
COMPILE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 300
# The JVM flags the reference HMS start script uses for Hive 2.3 on Java 17.
JAVA_OPENS = [f"--add-opens=java.base/{package}=ALL-UNNAMED"
              for package in ("java.lang", "java.lang.reflect", "java.net", "java.nio",
                              "java.util", "java.util.concurrent", "sun.nio.ch")]


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


def require_java():
    """Skips the test when no JDK is on PATH."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no java/javac on PATH: install a JDK (17) to run the Hive 2.3 Java client")


def run_java(main_class, arguments, workdir: Path, timeout=RUN_TIMEOUT_S, jvm_flags=()):
    """Compiles `tests/java/<main_class>.java` into `workdir` and runs it with `arguments` (and
    `jvm_flags` before the class, e.g. system properties);
    returns {"lines": {name: PASS/FAIL line}, "verdicts": [lines in order], "stdout",
    "stderr", "code"}."""
    require_java()
    classpath = f"{pyspark_jars()}/*"
    classes = workdir / "classes"
    source = JAVA_SOURCES / f"{main_class}.java"
    # -sourcepath: javac compiles the classes the program uses from tests/java (ClientSteps).
    compiled = subprocess.run(["javac", "-cp", classpath, "-sourcepath", str(JAVA_SOURCES),
                               "-d", str(classes), str(source)],
                              capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    assert compiled.returncode == 0, f"javac failed:\n{compiled.stdout}\n{compiled.stderr}"
    command = ["java", *JAVA_OPENS, *jvm_flags, "-cp", f"{classes}{os.pathsep}{classpath}",
               main_class, *arguments]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                         cwd=workdir, stdin=subprocess.DEVNULL)
    verdicts = [line for line in ran.stdout.splitlines() if line.startswith(("PASS ", "FAIL "))]
    lines = {line[len("PASS "):].split(":", 1)[0]: line for line in verdicts}
    return {"lines": lines, "verdicts": verdicts, "stdout": ran.stdout, "stderr": ran.stderr,
            "code": ran.returncode}


def require_hive_client_transport(server):
    """Skips unless the server speaks buffered binary, HiveMetaStoreClient's only transport."""
    if not server.supports("buffered", "binary"):
        pytest.skip(f"{server.uri} does not speak buffered binary (HMS_COMBOS), "
                    "HiveMetaStoreClient's only transport")


def assert_java_passed(java_run, name, server):
    """The Java program printed `PASS name`, and the fixture's server still runs."""
    line = java_run["lines"].get(name)
    assert line is not None, (f"no result for '{name}' (java exit {java_run['code']});\n"
                              f"stdout:\n{java_run['stdout'][-6000:]}\n"
                              f"stderr:\n{java_run['stderr'][-3000:]}")
    assert line.startswith("PASS "), f"{line}\nstdout:\n{java_run['stdout'][-6000:]}"
    if server.process is not None:
        server.assert_alive()
