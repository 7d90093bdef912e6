"""Backups with real processes: an online backup while a client writes, restored into a new
store that a server answers from as the first did; `check` passes on it and fails on a damaged
copy; a dump to standard output piped into `restore`.

Goal: the backup promises of docs/backups.md seen from outside: SIGUSR1 makes a consistent
backup while writes go on (a snapshot, not a stop), and dump, restore and check work on files
and pipes.

Method: a server with --backup-dir is filled by the pyiceberg-vendored client (a database, a
partitioned table, PARTITIONS partitions); a writer thread keeps adding partitions to a second
table while SIGUSR1 asks for a backup; the backup is restored into a new directory, a second
server on it lists what the first listed when the backup began (the first table whole, the
second a prefix of what the writer wrote, in order). Bounded: the writer stops after
WRITER_CALLS_MAX calls or WRITER_DEADLINE_S seconds, every wait has a deadline. hivestore only:
skipped under HMS_URI.
"""

import os
import signal
import subprocess
import threading
import time

import pytest
from hive_metastore.ttypes import Database, FieldSchema, Partition

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import connected, make_table, storage_descriptor

PARTITIONS = 500
WRITER_CALLS_MAX = 2000
WRITER_DEADLINE_S = 30.0
BACKUP_DEADLINE_S = 60.0
COMMAND_TIMEOUT_S = 120.0
KEYS = [FieldSchema(name="ds", type="string")]

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="signals and restarts the server: hivestore only")


def partition(table, value):
    return Partition(values=[value], dbName="backup_db", tableName=table,
                     sd=storage_descriptor(None, None), parameters={"n": value})


def fill(server):
    with connected(server) as client:
        client.create_database(Database(name="backup_db", parameters={}))
        for table in ("fixed", "growing"):
            client.create_table(make_table("backup_db", table, partition_keys=KEYS))
        for start in range(0, PARTITIONS, 100):
            client.add_partitions([partition("fixed", f"{index:05}")
                                   for index in range(start, start + 100)])


def wait_for_backups(backup_dir, count):
    deadline = time.monotonic() + BACKUP_DEADLINE_S
    while time.monotonic() < deadline:
        done = sorted(path for path in backup_dir.iterdir() if path.name.endswith(".dump"))
        if len(done) >= count:
            return done
        time.sleep(0.1)
    pytest.fail(f"no backup in {backup_dir} within {BACKUP_DEADLINE_S}s")


def workdir(path):
    path.mkdir(parents=True, exist_ok=True)
    return path


def restored_data_dir(tmp_path):
    """Where a second server's store is restored: the data directory start_hivestore's first
    attempt on workdir `second` serves."""
    return workdir(tmp_path / "second") / "data0"


def run(*args, **kwargs):
    return subprocess.run([str(hivestore_binary()), *args], capture_output=True,
                          timeout=COMMAND_TIMEOUT_S, **kwargs)


def listings(server):
    with connected(server) as client:
        return {table: client.get_partition_names("backup_db", table, -1)
                for table in ("fixed", "growing")}


def test_online_backup_under_writes_restores_to_the_state_at_its_start(tmp_path):
    backup_dir = tmp_path / "backups"
    server = start_hivestore(hivestore_binary(), workdir(tmp_path / "first"),
                             extra_args=["--backup-dir", str(backup_dir), "--backup-keep", "2"])
    try:
        fill(server)
        stop_writing = threading.Event()
        written = []

        def writer():
            with connected(server) as client:
                deadline = time.monotonic() + WRITER_DEADLINE_S
                for index in range(WRITER_CALLS_MAX):
                    if stop_writing.is_set() or time.monotonic() > deadline:
                        return
                    value = f"{index:05}"
                    client.add_partitions([partition("growing", value)])
                    written.append(value)

        thread = threading.Thread(target=writer)
        thread.start()
        while len(written) < 20 and thread.is_alive():
            time.sleep(0.01)
        server.process.send_signal(signal.SIGUSR1)
        backups = wait_for_backups(backup_dir, 1)
        stop_writing.set()
        thread.join(timeout=WRITER_DEADLINE_S)
        assert not thread.is_alive()
        with connected(server) as client:
            counters = client.getCounters()
        assert counters.get("backups.done") == 1, counters
        assert counters.get("backups.last_bytes") == backups[0].stat().st_size
        assert "backups.failed" not in counters
        first = listings(server)
    finally:
        stop_hivestore(server)
    restored_dir = restored_data_dir(tmp_path)
    result = run("restore", "--in", str(backups[0]), "--data-dir", str(restored_dir))
    assert result.returncode == 0, result.stderr.decode()
    result = run("check", "--data-dir", str(restored_dir))
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    second = start_hivestore(hivestore_binary(), tmp_path / "second")
    try:
        restored = listings(second)
    finally:
        stop_hivestore(second)
    assert restored["fixed"] == first["fixed"]
    assert len(restored["fixed"]) == PARTITIONS
    growing = restored["growing"]
    # A snapshot: what the writer had written when the backup began, in order, nothing after.
    assert growing == [f"ds={value}" for value in written[:len(growing)]]
    assert 20 <= len(growing) <= len(first["growing"])


def test_dump_piped_into_restore_and_check_of_a_damaged_store(tmp_path):
    server = start_hivestore(hivestore_binary(), workdir(tmp_path / "first"))
    try:
        fill(server)
        first = listings(server)
    finally:
        stop_hivestore(server)
    data_dir = tmp_path / "first" / "data0"
    restored_dir = restored_data_dir(tmp_path)
    dump = subprocess.Popen([str(hivestore_binary()), "dump", "--data-dir", str(data_dir),
                             "--out", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    restore = run("restore", "--in", "-", "--data-dir", str(restored_dir), stdin=dump.stdout)
    dump.stdout.close()
    assert dump.wait(timeout=COMMAND_TIMEOUT_S) == 0, dump.stderr.read().decode()
    assert restore.returncode == 0, restore.stderr.decode()
    assert run("check", "--data-dir", str(restored_dir)).returncode == 0
    second = start_hivestore(hivestore_binary(), tmp_path / "second")
    try:
        assert listings(second) == first
    finally:
        stop_hivestore(second)
    # A dump file damaged in its middle is refused and leaves no store.
    dump_file = tmp_path / "store.dump"
    assert run("dump", "--data-dir", str(data_dir), "--out", str(dump_file)).returncode == 0
    damaged = bytearray(dump_file.read_bytes())
    damaged[len(damaged) // 2] ^= 0x55
    damaged_file = tmp_path / "damaged.dump"
    damaged_file.write_bytes(bytes(damaged))
    refused = run("restore", "--in", str(damaged_file), "--data-dir", str(tmp_path / "never"))
    assert refused.returncode != 0
    assert b"the dump is refused at block" in refused.stderr, refused.stderr.decode()
    assert not (tmp_path / "never").exists()
    # A store restored from a dump whose table value has another kind: `check` names the key.
    plain_file = tmp_path / "plain.dump"
    assert run("dump", "--data-dir", str(data_dir), "--out", str(plain_file),
               "--no-compression").returncode == 0
    bad_dir = tmp_path / "bad"
    (tmp_path / "retyped.dump").write_bytes(retype_a_table_value(plain_file.read_bytes()))
    assert run("restore", "--in", str(tmp_path / "retyped.dump"),
               "--data-dir", str(bad_dir)).returncode == 0
    bad = run("check", "--data-dir", str(bad_dir))
    assert bad.returncode != 0
    assert b"value kind 4 where this keyspace holds kinds [3]" in bad.stdout, bad.stdout.decode()
    assert b"1 problems" in bad.stderr, bad.stderr.decode()


HEADER_BYTES = 96 + 4
BLOCK_HEADER_BYTES = 21
KEYSPACE_TABLE = 0x06


def crc32c_table():
    table = []
    for index in range(256):
        crc = index
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def retype_a_table_value(dump: bytes) -> bytes:
    """The uncompressed `dump` with its first table value's kind byte set to 4 (a partition
    record's), the block's and the file's checksums made again (docs/backup-format.md)."""
    data = bytearray(dump)
    at = HEADER_BYTES
    while data[at] == ord("B"):
        stored_len = int.from_bytes(data[at + 13:at + 17], "big")
        payload_at = at + BLOCK_HEADER_BYTES
        entry = payload_at
        while entry < payload_at + stored_len:
            key_len = int.from_bytes(data[entry:entry + 4], "big")
            value_at = entry + 4 + key_len + 4
            value_len = int.from_bytes(data[value_at - 4:value_at], "big")
            if data[entry + 4] == KEYSPACE_TABLE:
                data[value_at + 1] = 4
                block_end = payload_at + stored_len
                crc = crc32c(bytes(data[at:at + 17]) + bytes(data[payload_at:block_end]))
                data[at + 17:at + 21] = crc.to_bytes(4, "big")
                data[-4:] = crc32c(bytes(data[:-4])).to_bytes(4, "big")
                return bytes(data)
            entry = value_at + value_len
        at = payload_at + stored_len
    pytest.fail("the dump holds no table value")
