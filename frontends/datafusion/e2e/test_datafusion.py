"""DataFusion over a table Spark wrote through hivestore (crate hivestore-datafusion).

PySpark writes a partitioned Parquet table through a hivestore server; the crate's `query`
example then runs SQL over it with DataFusion, first over Thrift, then over the embedded store
opened on the stopped server's directories. The partitions scanned must be those the
predicate selects: the files the scan opened are compared with the files Spark wrote in those
partitions' directories.

Environment: HIVESTORE_DATAFUSION_QUERY, the example binary (default:
target/release/examples/query, built by `cargo test --release` or `cargo build --release -p
hivestore-datafusion --example query`).
"""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT, hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import unique_name
from spark_sessions import spark_session

# How long one run of the example may take: planning, reading a few files.
QUERY_TIMEOUT_S = 120
DAYS = ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"]
ROWS_PER_DAY = 5


def query_binary() -> Path:
    explicit = os.environ.get("HIVESTORE_DATAFUSION_QUERY")
    roots = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    roots.append(REPO_ROOT / "target")
    candidates = [Path(explicit)] if explicit else [root / "release/examples/query" for root in roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    pytest.fail("no query example; build it with `cargo build --release -p hivestore-datafusion "
                f"--example query` or set HIVESTORE_DATAFUSION_QUERY (looked at {candidates})")


def run_query(source_args, sql):
    """Runs the example; answers the result rows (tuples of text), the partition count of the
    scan and the files it opened."""
    done = subprocess.run([str(query_binary()), *source_args, "--files", sql],
                          capture_output=True, text=True, timeout=QUERY_TIMEOUT_S)
    assert done.returncode == 0, f"query failed: {done.stderr}"
    rows, partitions, opened = [], None, set()
    for line in done.stdout.splitlines():
        if line.startswith("partitions "):
            partitions = int(line.split(" ", 1)[1])
        elif line.startswith("opened "):
            opened.add(Path(line.split(" ", 1)[1]))
        else:
            rows.append(tuple(line.split("\t")))
    return rows, partitions, opened


def data_files(table_dir: Path, days):
    """The Parquet files Spark wrote in the partitions of `days`."""
    files = {path for day in days for path in (table_dir / f"ds={day}").glob("part-*")
             if not path.name.startswith((".", "_"))}
    assert files, f"Spark wrote no files for {days} under {table_dir}"
    return files


def test_datafusion_prunes_a_table_spark_wrote(tmp_path):
    workdir = tmp_path / "hivestore"
    workdir.mkdir()
    server = start_hivestore(hivestore_binary(), workdir)
    db = unique_name("df")
    database_dir = tmp_path / f"{db}.db"
    data = [(day_index * ROWS_PER_DAY + row, f"v{day_index}_{row}", day)
            for day_index, day in enumerate(DAYS) for row in range(ROWS_PER_DAY)]
    try:
        with spark_session(server, tmp_path / "warehouse", tmp_path / "spark",
                           "hivestore-test-datafusion") as spark:
            spark.sql(f"CREATE DATABASE {db} LOCATION '{database_dir}'")
            frame = spark.createDataFrame(data, "id int, v string, ds string")
            frame.write.partitionBy("ds").format("parquet").saveAsTable(f"{db}.events")
            assert spark.sql(f"SHOW PARTITIONS {db}.events").count() == len(DAYS)
        table_dir = database_dir / "events"

        selected = ["2024-01-02", "2024-01-04"]
        sql = (f"SELECT id, v, ds FROM hive.{db}.events "
               f"WHERE ds IN ('{selected[0]}', '{selected[1]}') AND id % 2 = 0 ORDER BY id")
        expected = [(str(i), v, ds) for i, v, ds in data if ds in selected and i % 2 == 0]
        thrift = ["--thrift", f"127.0.0.1:{server.port}"]
        rows, partitions, opened = run_query(thrift, sql)
        assert rows == expected
        assert partitions == len(selected)
        assert opened == data_files(table_dir, selected)

        # A range, a negation and an aggregate: the scan reads the last day only.
        sql = (f"SELECT count(*), min(id) FROM hive.{db}.events "
               f"WHERE ds > '{DAYS[1]}' AND NOT (ds = '{DAYS[2]}')")
        rows, partitions, opened = run_query(thrift, sql)
        last_day = [i for i, _, ds in data if ds == DAYS[3]]
        assert rows == [(str(len(last_day)), str(min(last_day)))]
        assert partitions == 1
        assert opened == data_files(table_dir, [DAYS[3]])

        # Every partition when no predicate is on the key.
        rows, partitions, opened = run_query(
            thrift, f"SELECT count(*) FROM hive.{db}.events WHERE v <> 'x'")
        assert rows == [(str(len(data)),)]
        assert partitions == len(DAYS)
        assert opened == data_files(table_dir, DAYS)
    finally:
        stop_hivestore(server)

    # The embedded store, on the stopped server's directories, prunes the same way.
    # The directories of the attempt that started (see start_hivestore).
    data_dir, warehouse = max(workdir.glob("data*")), max(workdir.glob("warehouse*"))
    embedded = ["--embedded", str(data_dir), str(warehouse)]
    sql = f"SELECT id FROM hive.{db}.events WHERE ds BETWEEN '{DAYS[0]}' AND '{DAYS[1]}' ORDER BY id"
    rows, partitions, opened = run_query(embedded, sql)
    assert rows == [(str(i),) for i, _, ds in data if ds in DAYS[:2]]
    assert partitions == 2
    assert opened == data_files(table_dir, DAYS[:2])


def test_an_unknown_table_is_a_clear_error(tmp_path):
    workdir = tmp_path / "hivestore"
    workdir.mkdir()
    server = start_hivestore(hivestore_binary(), workdir)
    try:
        done = subprocess.run(
            [str(query_binary()), "--thrift", f"127.0.0.1:{server.port}",
             "SELECT * FROM hive.default.no_such_table"],
            capture_output=True, text=True, timeout=QUERY_TIMEOUT_S)
        assert done.returncode != 0
        assert "no_such_table" in done.stderr
    finally:
        stop_hivestore(server)
