"""PySpark with Hive support pointed at a metastore under test: one local session a module."""

import os
import shutil
from contextlib import contextmanager

import pytest

# How long Spark's Hive 2.3 client waits for one metastore call.
METASTORE_SOCKET_TIMEOUT_S = 60


def java_available() -> bool:
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


@contextmanager
def spark_session(server, warehouse, scratch, app_name):
    """A local Spark session whose Hive client talks to `server`, with `warehouse` as its
    warehouse directory and everything else of Spark's under `scratch`; skips without Java or
    PySpark."""
    if not java_available():
        pytest.skip("no java for PySpark")
    pyspark_sql = pytest.importorskip("pyspark.sql")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = (
        pyspark_sql.SparkSession.builder.master("local[1]")
        .appName(app_name)
        .config("spark.hadoop.hive.metastore.uris", server.uri)
        .config("spark.hadoop.hive.metastore.client.socket.timeout",
                str(METASTORE_SOCKET_TIMEOUT_S))
        .config("spark.hadoop.hive.metastore.failure.retries", "1")
        .config("spark.hadoop.hive.metastore.connect.retries", "2")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.local.dir", str(scratch))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={scratch}")
        .enableHiveSupport()
        .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
