"""The audit log (issue 26): `hivestore serve --audit-log FILE [--audit-format json]`.

Goal: a real client's calls (the HMS client pyiceberg vendors) each leave one line in the
file, naming the user it announced with set_ugi, its address, the method and the objects it
named, how it ended (a declared exception by its type and message) and how long it took; the
file holds no terminal escape sequences; the last lines are in the file once the server has
stopped on SIGTERM; after logrotate's rename, SIGHUP makes the server write a new file.

Method: each test starts a hivestore of its own with the flags; hivestore only. Bounded: every
wait has a deadline.
"""

import json
import os
import signal
import time

import pytest
from hive_metastore.ttypes import Database, NoSuchObjectException

from hms_helpers import TEST_USER, connected, make_table, unique_name

WAIT_S = 10.0

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="starts hivestore servers with an audit log of their own")


@pytest.fixture
def own_server(tmp_path):
    """Starts a hivestore with the given `serve` flags; stopped (exit 0) after the test unless
    the test stopped it."""
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    started = []

    def start(*flags):
        started.append(start_hivestore(hivestore_binary(), tmp_path, [str(flag) for flag in flags]))
        return started[-1]

    yield start
    for running in started:
        if running.process.poll() is None:
            stop_hivestore(running)


def text_fields(line):
    """A text line's fields: `time`, then each `key=value`."""
    time_field, *parts = line.split("\t")
    fields = {"time": time_field}
    for part in parts:
        key, _, value = part.partition("=")
        fields[key] = value
    return fields


def read_lines(path):
    data = path.read_bytes()
    assert b"\x1b" not in data, "an escape sequence in the audit log"
    return data.decode("utf-8").splitlines()


def wait_for(predicate, what):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"waited {WAIT_S}s for {what}")


def make_calls(server):
    """set_ugi, a created database read back, a missing one, a table: the database's name."""
    name = unique_name("audit")
    with connected(server) as client:
        client.create_database(Database(name=name))
        client.get_database(name)
        with pytest.raises(NoSuchObjectException):
            client.get_database(f"{name}_missing")
        client.create_table(make_table(name, "t"))
        client.get_table(name, "t")
        client.get_all_databases()
    return name


def test_text_lines_for_each_call_are_in_the_file_once_stopped(own_server, tmp_path):
    from conftest import stop_hivestore

    path = tmp_path / "audit.log"
    server = own_server("--audit-log", path)
    name = make_calls(server)
    stop_hivestore(server)
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    lines = [text_fields(line) for line in read_lines(path)]
    methods = [fields["cmd"].split(" : ")[0] for fields in lines]
    assert methods == ["set_ugi", "create_database", "get_database", "get_database",
                       "create_table", "get_table", "get_all_databases"], lines
    assert lines[1]["cmd"] == "create_database : server"
    assert lines[2]["cmd"] == f"get_database : db=hive.{name}"
    assert lines[3]["cmd"] == f"get_database : db=hive.{name}_missing"
    assert lines[6]["cmd"] == "get_all_databases : server"
    for fields in lines:
        assert fields["ugi"] == TEST_USER
        assert fields["ip"] == "127.0.0.1"
        assert fields["time"].endswith("Z") and len(fields["time"]) == 24
        assert int(fields["duration_us"]) >= 0
    missing = lines[3]
    assert missing["outcome"] == "NoSuchObjectException"
    assert f"{name}_missing" in missing["message"]
    assert all(fields["outcome"] == "ok" for index, fields in enumerate(lines) if index != 3)


def test_json_lines_have_the_same_keys(own_server, tmp_path):
    from conftest import stop_hivestore

    path = tmp_path / "audit.json"
    server = own_server("--audit-log", path, "--audit-format", "json")
    name = make_calls(server)
    stop_hivestore(server)
    objects = [json.loads(line) for line in read_lines(path)]
    assert [entry["cmd"] for entry in objects][:4] == [
        "set_ugi", "create_database", "get_database", "get_database"]
    missing = objects[3]
    assert missing["objects"] == [f"db=hive.{name}_missing"]
    assert missing["outcome"] == "NoSuchObjectException"
    assert set(missing) == {"time", "ugi", "ip", "cmd", "objects", "outcome", "message",
                            "duration_us"}
    assert objects[2]["outcome"] == "ok" and "message" not in objects[2]


def test_sighup_reopens_the_file_after_a_rename(own_server, tmp_path):
    path = tmp_path / "audit.log"
    rotated = tmp_path / "audit.log.1"
    server = own_server("--audit-log", path)
    with connected(server) as client:
        client.get_all_databases()
        wait_for(lambda: path.exists() and "get_all_databases" in path.read_text(),
                 "the first line")
        os.rename(path, rotated)
        server.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "audit log reopened" in server.log_tail(), "the reopen")
        client.get_catalogs()
        wait_for(lambda: path.exists() and "get_catalogs" in path.read_text(),
                 "the line in the new file")
    assert "get_catalogs" not in rotated.read_text()
    assert "get_all_databases" not in path.read_text()
