"""PyIceberg's HiveCatalog end to end (pyiceberg 0.12.0 with pyarrow).

Goal: an Iceberg table lives in hivestore as PyIceberg keeps it in a Hive Metastore: namespace
and table created, every append a commit under an EXCLUSIVE table lock (`lock`, `check_lock`
while WAITING, `alter_table_with_environment_context`, `unlock`), concurrent appends from two
processes all land (the one that loses the race sees the other's commit, reloads and retries),
rename and drop. Data and metadata files go to a `file:` warehouse in a temporary directory.

Method: the catalog is PyIceberg's own `HiveCatalog` pointed at the server; the concurrent
writers are two Python processes started together, each appending batches of distinct values
and retrying a commit that fails on a concurrent change (bounded). Rows are then counted and
compared value by value, and `show_locks` must show no lock left behind. The same file runs
against the Java reference HMS (where locks are its own).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")

from hive_metastore.ttypes import ShowLocksRequest  # noqa: E402
from pyiceberg.catalog.hive import HiveCatalog  # noqa: E402
from pyiceberg.exceptions import NoSuchTableError  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.types import LongType, NestedField, StringType  # noqa: E402

from hms_helpers import connected, unique_name  # noqa: E402

SCHEMA = Schema(
    NestedField(field_id=1, name="id", field_type=LongType(), required=False),
    NestedField(field_id=2, name="writer", field_type=StringType(), required=False),
)
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("writer", pa.string())])
# Quick lock polling so that a waiting commit does not sleep for seconds between checks.
LOCK_PROPERTIES = {"lock-check-min-wait-time": "0.05", "lock-check-max-wait-time": "0.5",
                   "lock-check-retries": "60"}
WRITER_APPEND_COUNT = 5
WRITER_ROWS_PER_APPEND = 10
WRITER_TIMEOUT_S = 300


def catalog_for(server, warehouse: Path) -> HiveCatalog:
    return HiveCatalog("hive", **{"uri": server.uri, "warehouse": f"file://{warehouse}",
                                  **LOCK_PROPERTIES})


def rows(writer: str, start: int, count: int):
    return pa.Table.from_pylist(
        [{"id": start + offset, "writer": writer} for offset in range(count)], schema=ARROW_SCHEMA)


def locks_on(server, db: str):
    with connected(server) as client:
        return client.show_locks(ShowLocksRequest(dbname=db)).locks or []


@pytest.fixture()
def namespace(server, tmp_path):
    """A fresh namespace located in this test's temporary warehouse; dropped afterwards."""
    catalog = catalog_for(server, tmp_path)
    name = unique_name("iceberg")
    catalog.create_namespace(name, {"location": f"file://{tmp_path}/{name}.db"})
    yield catalog, name
    for identifier in catalog.list_tables(name):
        catalog.drop_table(identifier)
    catalog.drop_namespace(name)


def test_create_append_rename_and_drop_a_table(server, namespace):
    catalog, db = namespace
    assert db in [ns[0] for ns in catalog.list_namespaces()]
    table = catalog.create_table((db, "events"), schema=SCHEMA)
    assert table.metadata_location.startswith("file:")
    for batch in range(3):
        table.append(rows("single", batch * 100, 7))
    reloaded = catalog.load_table((db, "events"))
    assert reloaded.scan().to_arrow().num_rows == 21
    assert len(reloaded.metadata.snapshots) == 3
    assert reloaded.metadata_location == table.metadata_location
    assert locks_on(server, db) == [], "every commit released its lock"

    catalog.rename_table((db, "events"), (db, "events_renamed"))
    with pytest.raises(NoSuchTableError):
        catalog.load_table((db, "events"))
    renamed = catalog.load_table((db, "events_renamed"))
    assert sorted(renamed.scan().to_arrow().column("id").to_pylist()) == sorted(
        batch * 100 + offset for batch in range(3) for offset in range(7))
    renamed.append(rows("after-rename", 1000, 1))
    assert catalog.load_table((db, "events_renamed")).scan().to_arrow().num_rows == 22

    catalog.drop_table((db, "events_renamed"))
    assert (db, "events_renamed") not in catalog.list_tables(db)
    with pytest.raises(NoSuchTableError):
        catalog.load_table((db, "events_renamed"))


WRITER_SCRIPT = """
import json, sys, time
sys.path.insert(0, {tests!r})
import pyarrow as pa
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.exceptions import CommitFailedException
catalog = HiveCatalog("hive", **{properties!r})
schema = pa.schema([("id", pa.int64()), ("writer", pa.string())])
writer, base = {writer!r}, {base}
print("ready", flush=True)
sys.stdin.readline()  # start together
retries = 0
for append in range({appends}):
    batch = pa.Table.from_pylist([{{"id": base + append * 1000 + row, "writer": writer}}
                                  for row in range({rows})], schema=schema)
    for attempt in range(50):
        table = catalog.load_table(({db!r}, "shared"))
        try:
            table.append(batch)
            break
        except CommitFailedException:
            retries += 1
    else:
        sys.exit("append " + str(append) + " never committed")
print(json.dumps({{"writer": writer, "retries": retries}}), flush=True)
"""


def start_writer(server, tmp_path, db, writer, base):
    properties = {"uri": server.uri, "warehouse": f"file://{tmp_path}", **LOCK_PROPERTIES}
    script = WRITER_SCRIPT.format(tests=str(Path(__file__).resolve().parent),
                                  properties=properties, writer=writer, base=base,
                                  appends=WRITER_APPEND_COUNT, rows=WRITER_ROWS_PER_APPEND, db=db)
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready", process.stderr.read()
    return process


def test_concurrent_appends_from_two_processes_all_land(server, namespace, tmp_path):
    catalog, db = namespace
    catalog.create_table((db, "shared"), schema=SCHEMA)
    writers = [start_writer(server, tmp_path, db, name, base)
               for name, base in (("alpha", 0), ("beta", 1_000_000))]
    reports = []
    try:
        for process in writers:
            process.stdin.write("go\n")
            process.stdin.flush()
        for process in writers:
            out, err = process.communicate(timeout=WRITER_TIMEOUT_S)
            assert process.returncode == 0, err[-3000:]
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for process in writers:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    table = catalog.load_table((db, "shared"))
    data = table.scan().to_arrow()
    expected = sorted(base + append * 1000 + row
                      for base in (0, 1_000_000)
                      for append in range(WRITER_APPEND_COUNT)
                      for row in range(WRITER_ROWS_PER_APPEND))
    assert sorted(data.column("id").to_pylist()) == expected, reports
    assert len(table.metadata.snapshots) == 2 * WRITER_APPEND_COUNT
    assert locks_on(server, db) == []
