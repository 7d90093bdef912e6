"""`serve --follow-from` forwards its clients' writes to the source until cut-over.

Goal: writes through a follower (create_table, add_partitions, alter_table, create_database)
land on the source as the client's user (its set_ugi) and are read from the follower right
after their replies; a write the source refuses (AlreadyExistsException,
NoSuchObjectException) reaches the client as that exception and changes nothing; a compact
client's write goes too; a client that only reads opens no connection to the source; a write
the follower cannot apply is answered once its wait (`--follow-write-wait-ms`) expires, and
counted; after cut-over (SIGUSR2) writes are served by the copy itself and a connection that
had an upstream connection drops it.

Method: a hivestore source (test_import.py's fixture) copied by `hivestore import`, the
follower serving the copy with `--metrics-listen`, its `hivestore_follow_*` metrics read with
prometheus_client's parser; clients are pyiceberg's vendored Hive 4 client. The follow tests
run against hivestore sources only, as test_import.py's do. Every wait is bounded.
"""

import signal
import subprocess

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import free_loopback_port, hivestore_binary, stop_hivestore
from hms_helpers import connected, make_table, open_client
from test_import import (fill_partitions, hivestore_source, import_into,  # noqa: F401
                         metrics_get, serve_copy, wait_until)


def follow_metrics(port):
    """The follower's `hivestore_follow_*` samples by name."""
    status, text = metrics_get(port, "/metrics")
    assert status == 200, text
    return {sample.name: sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples if sample.name.startswith("hivestore_follow_")}


def follower_of(source, tmp_path, *flags):
    """A follower of `source` (filled with database `live`, one table `t0` of 3 partitions)
    serving its copy; returns it and its metrics port."""
    fill_partitions(source, "live", tables=1, partitions=3)
    data_dir, warehouse = tmp_path / "copy", tmp_path / "warehouse"
    done = import_into(source.uri, data_dir, warehouse)
    assert done.returncode == 0, done.stderr[-4000:]
    metrics_port = free_loopback_port()
    follower = serve_copy(tmp_path, data_dir, warehouse, "--follow-from", source.uri,
                          "--metrics-listen", f"127.0.0.1:{metrics_port}", *flags)
    return follower, metrics_port


def test_writes_go_to_the_source_as_the_client_and_are_read_back_at_once(hivestore_source,
                                                                         tmp_path):
    from hive_metastore.ttypes import (AlreadyExistsException, Database, FieldSchema,
                                       NoSuchObjectException, Partition)
    # A long interval: the follower applies a forwarded write because the write asks it to.
    follower, metrics_port = follower_of(hivestore_source, tmp_path,
                                         "--follow-interval-ms", "60000")
    try:
        with connected(follower, user="reader") as reader:
            assert reader.get_all_tables("live") == ["t0"]
            assert len(reader.get_partition_names("live", "t0", -1)) == 3
            reader.get_table("live", "t0")
        metrics = follow_metrics(metrics_port)
        assert metrics["hivestore_follow_upstream_connections"] == 0, metrics
        assert metrics["hivestore_follow_forwarded_calls_total"] == 0, metrics

        with connected(follower, user="alice") as writer:
            keys = [FieldSchema("ds", "string", None)]
            writer.create_table(make_table("live", "made_here", partition_keys=keys))
            made = writer.get_table("live", "made_here")
            assert made.owner == "alice"
            writer.add_partitions([Partition(values=[value], dbName="live",
                                             tableName="made_here", sd=made.sd, parameters={})
                                   for value in ("a", "b")])
            assert writer.get_partition_names("live", "made_here", -1) == ["ds=a", "ds=b"]
            made.parameters["k"] = "v"
            writer.alter_table("live", "made_here", made)
            assert writer.get_table("live", "made_here").parameters["k"] == "v"
            # The notification log is the source's while following.
            forwarded_id = writer.get_current_notificationEventId().eventId

            with connected(hivestore_source) as source:
                on_source = source.get_table("live", "made_here")
                assert on_source.owner == "alice" and on_source.parameters["k"] == "v"
                assert source.get_partition_names("live", "made_here", -1) == ["ds=a", "ds=b"]
                assert source.get_current_notificationEventId().eventId == forwarded_id
                tables_before = sorted(source.get_all_tables("live"))

            # The source's refusals come back as its exceptions, and change nothing.
            with pytest.raises(AlreadyExistsException):
                writer.create_table(make_table("live", "made_here"))
            with pytest.raises(NoSuchObjectException):
                writer.drop_table("live", "never_made", True)
            with connected(hivestore_source) as source:
                assert sorted(source.get_all_tables("live")) == tables_before
            assert sorted(writer.get_all_tables("live")) == tables_before

            metrics = follow_metrics(metrics_port)
            assert metrics["hivestore_follow_upstream_connections"] == 1, metrics
            assert metrics["hivestore_follow_forwarded_calls_total"] >= 6, metrics
            assert metrics["hivestore_follow_forward_errors_total"] == 0, metrics
            assert metrics["hivestore_follow_forward_waits_expired_total"] == 0, metrics

            # A compact, framed client's write is rewritten for the source and answered.
            compact, transport = open_client(follower, "framed", "compact")
            try:
                compact.set_ugi("bob", [])
                compact.create_database(Database(name="by_compact", parameters={}))
                assert compact.get_database("by_compact").ownerName == "bob"
            finally:
                transport.close()

            # Cut-over: the copy serves writes itself; this connection drops its upstream.
            follower.process.send_signal(signal.SIGUSR2)
            wait_until(lambda: follow_metrics(metrics_port)["hivestore_follow_following"] == 0,
                       "the cut-over")
            forwarded = follow_metrics(metrics_port)["hivestore_follow_forwarded_calls_total"]
            writer.create_database(Database(name="after_cut_over", parameters={}))
            assert writer.get_database("after_cut_over").ownerName == "alice"
            metrics = follow_metrics(metrics_port)
            assert metrics["hivestore_follow_upstream_connections"] == 0, metrics
            assert metrics["hivestore_follow_forwarded_calls_total"] == forwarded, metrics
        with connected(hivestore_source) as source:
            assert "after_cut_over" not in source.get_all_databases()
            assert "by_compact" in source.get_all_databases()
    finally:
        stop_hivestore(follower)


def test_a_write_the_follower_cannot_apply_is_answered_when_its_wait_expires(
        hivestore_source, tmp_path):
    from hive_metastore.ttypes import Database
    # The copy refuses parameter values longer than 16 bytes: the source's table below can
    # never be applied, so the follower stays before it.
    follower, metrics_port = follower_of(hivestore_source, tmp_path, "--follow-interval-ms",
                                         "100", "--max-param-value-bytes", "16",
                                         "--follow-write-wait-ms", "300")
    try:
        with connected(hivestore_source) as source:
            source.create_table(make_table("live", "too_long", parameters={"k": "x" * 100}))
        wait_until(lambda: follow_metrics(metrics_port)["hivestore_follow_failing"] == 1,
                   "the follower failing on the source's table")
        with connected(follower, user="alice") as writer:
            writer.create_database(Database(name="made_anyway", parameters={}))
        with connected(hivestore_source) as source:
            assert source.get_database("made_anyway").ownerName == "alice"
        metrics = follow_metrics(metrics_port)
        assert metrics["hivestore_follow_forward_waits_expired_total"] == 1, metrics
        assert metrics["hivestore_follow_forwarded_calls_total"] == 1, metrics
    finally:
        stop_hivestore(follower)


def test_a_write_wait_out_of_range_is_refused(tmp_path):
    command = [str(hivestore_binary()), "serve", "--listen", f"127.0.0.1:{free_loopback_port()}",
               "--data-dir", str(tmp_path / "copy"), "--follow-write-wait-ms", "600001"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    assert refused.returncode == 1
    assert "follow_write_wait_ms 600001 is out of range" in refused.stderr
    assert not (tmp_path / "copy").exists()
