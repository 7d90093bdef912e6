"""get_config_value, getMetaConf/setMetaConf and get_metastore_db_uuid through the
pyiceberg-vendored Hive 4 client.

Hive 4's get_config_value (HMSHandler) refuses keys outside hive.*/hdfs.*/mapred.*/metastore.*
with ConfigValSecurityException and answers MetastoreConf.get: the configured value, else the
variable's default (a time as `300s`), by its metastore.* name or its hive.* alias; any other
key answers the caller's default. Hive 2.3 refuses metastore.* keys (it had no MetastoreConf):
those checks are hivestore's (Hive 4's) behaviour and skip on the reference.
"""

import pytest
from hive_metastore.ttypes import (
    ConfigValSecurityException,
    Database,
    FieldSchema,
    InvalidOperationException,
    MetaException,
)

from conftest import start_hivestore, stop_hivestore, hivestore_binary
from hms_helpers import (
    call_or_skip_on_reference, connected, make_table, raises_hms, unique_name,
)


def hivestore_only(server):
    if server.external:
        pytest.skip("Hive 4's keys and hivestore's values; the reference is Hive 2.3")


def test_impala_and_trino_keys(client, server):
    hivestore_only(server)
    assert client.get_config_value("hive.metastore.dml.events", "") == "true"
    assert client.get_config_value("metastore.catalog.default", "") == "hive"
    assert client.get_config_value("hive.metastore.notifications.add.thrift.objects", "") == "true"
    # Trino parses this as a duration; Hive 4 prints the default with its unit.
    assert client.get_config_value("metastore.txn.timeout", "") == "300s"
    assert client.get_config_value("hive.txn.timeout", "") == "300s"


def test_every_name_answers_a_value_or_hives_default(client, server):
    warehouse = client.get_config_value("hive.metastore.warehouse.dir", "x")
    assert warehouse.startswith("file:") or warehouse.startswith("/")
    assert client.get_config_value("hive.exec.default.partition.name", "") == (
        "__HIVE_DEFAULT_PARTITION__")
    assert client.get_config_value("hive.no.such.key", "fallback") == "fallback"
    hivestore_only(server)
    assert client.get_config_value("metastore.warehouse.dir", "") == warehouse
    assert client.get_config_value("metastore.batch.retrieve.max", "") == "300"
    assert client.get_config_value("hive.metastore.batch.retrieve.max", "") == "300"
    assert client.get_config_value("metastore.client.socket.timeout", "") == "600s"
    assert client.get_config_value("metastore.aggregate.stats.cache.fpp", "") == "0.01"
    assert client.get_config_value("metastore.event.db.listener.timetolive", "") == "1d"
    assert client.get_config_value("metastore.try.direct.sql", "") == "true"
    assert client.get_config_value("metastore.no.such.key", "d") == "d"


def test_keys_outside_hives_prefixes_and_secrets_are_refused(client, server):
    for key in ["javax.jdo.option.ConnectionPassword", "fs.s3a.secret.key", "datanucleus.x"]:
        with raises_hms(ConfigValSecurityException,
                        f"For security reasons, the config key {key} cannot be accessed"):
            client.get_config_value(key, "")
    hivestore_only(server)
    # Hive itself answers these (its `unprintables` only keep them out of logs); hivestore
    # never hands out a secret.
    for key in ["hive.metastore.keystore.password", "metastore.truststore.password"]:
        with raises_hms(ConfigValSecurityException, key):
            client.get_config_value(key, "")


def test_meta_conf_is_per_connection(server):
    with connected(server) as first, connected(server) as second:
        assert first.getMetaConf("hive.metastore.try.direct.sql") == "true"
        assert first.getMetaConf("hive.metastore.client.socket.timeout") == "600s"
        first.setMetaConf("hive.metastore.try.direct.sql", "false")
        assert first.getMetaConf("hive.metastore.try.direct.sql") == "false"
        assert second.getMetaConf("hive.metastore.try.direct.sql") == "true"
        with raises_hms(MetaException, "Invalid configuration key hive.metastore.uris"):
            first.getMetaConf("hive.metastore.uris")
        with raises_hms(MetaException, "Invalid configuration key hive.txn.timeout"):
            first.setMetaConf("hive.txn.timeout", "1s")
        with raises_hms(MetaException, "Invalid configuration value 10x for key "
                        "hive.metastore.client.socket.timeout"):
            first.setMetaConf("hive.metastore.client.socket.timeout", "10x")
        first.setMetaConf("hive.metastore.client.socket.timeout", "30s")
        assert first.getMetaConf("hive.metastore.client.socket.timeout") == "30s"


def test_meta_conf_allows_incompatible_column_changes_per_connection(server):
    """Hive 4's alter_table reads metastore.disallow.incompatible.col.type.changes from the
    connection's configuration: a connection that set it false may change a string column to
    int; another connection, on the server's default (true), may not."""
    hivestore_only(server)
    db = unique_name("conf")
    names = ["metastore.disallow.incompatible.col.type.changes",
             "hive.metastore.disallow.incompatible.col.type.changes"]
    with connected(server) as client:
        client.create_database(Database(name=db))
    # A connection each: Hive reads the metastore.* name before the hive.* one.
    for index, name in enumerate(names):
        with connected(server) as allowed, connected(server) as other:
            table = f"t{index}"
            allowed.create_table(make_table(db, table, columns=[FieldSchema("c", "string", None)]))
            changed = allowed.get_table(db, table)
            changed.sd.cols = [FieldSchema("c", "int", None)]
            with raises_hms(InvalidOperationException, "types incompatible", "c"):
                other.alter_table(db, table, changed)
            allowed.setMetaConf(name, "false")
            assert allowed.getMetaConf(name) == "false"
            with raises_hms(InvalidOperationException, "types incompatible", "c"):
                other.alter_table(db, table, changed)
            allowed.alter_table(db, table, changed)
            assert [c.type for c in other.get_table(db, table).sd.cols] == ["int"]
            allowed.setMetaConf(name, "true")
            changed.sd.cols = [FieldSchema("c", "string", None)]
            allowed.alter_table(db, table, changed)  # int to string is compatible
            changed.sd.cols = [FieldSchema("c", "int", None)]
            with raises_hms(InvalidOperationException, "types incompatible", "c"):
                allowed.alter_table(db, table, changed)


def test_metastore_db_uuid_is_stable(client, server):
    first = call_or_skip_on_reference(server, client.get_metastore_db_uuid)
    assert len(first) == 36 and first.count("-") == 4
    assert client.get_metastore_db_uuid() == first


def test_metastore_db_uuid_survives_a_restart(tmp_path):
    workdir = tmp_path / "uuid"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir)
    with connected(running) as client:
        before = client.get_metastore_db_uuid()
    stop_hivestore(running)
    again = start_hivestore(hivestore_binary(), workdir)
    try:
        with connected(again) as client:
            assert client.get_metastore_db_uuid() == before
    finally:
        stop_hivestore(again)
    fresh = tmp_path / "other"
    fresh.mkdir()
    other = start_hivestore(hivestore_binary(), fresh)
    try:
        with connected(other) as client:
            assert client.get_metastore_db_uuid() != before
    finally:
        stop_hivestore(other)


def test_server_limits_answer_the_servers_own_values(tmp_path):
    """The port, the largest message and the connection cap are the running server's, by
    either name, not Hive's defaults."""
    workdir = tmp_path / "limits"
    workdir.mkdir()
    running = start_hivestore(hivestore_binary(), workdir,
                              ["--max-message-bytes", "5000000", "--max-connections", "37"])
    try:
        with connected(running) as client:
            for key in ["metastore.thrift.port", "hive.metastore.port"]:
                assert client.get_config_value(key, "") == str(running.port)
            for key in ["metastore.server.max.message.size",
                        "hive.metastore.server.max.message.size"]:
                assert client.get_config_value(key, "") == "5000000"
            for key in ["metastore.server.max.threads", "hive.metastore.server.max.threads"]:
                assert client.get_config_value(key, "") == "37"
    finally:
        stop_hivestore(running)
