"""SASL PLAIN on the metastore port, as Python clients speak it (thrift_sasl over pure-sasl):
authentication NONE (any password), CUSTOM (a file of hashed passwords, written with
`hivestore passwd`) and LDAP (a bind to a slapd the test starts). The authenticated user owns
what it creates and set_ugi cannot change it; a refused login closes only its connection, the
log saying why and never the password; plain clients are refused when authentication is
required."""

import subprocess
import time

import pytest
from hive_metastore.ttypes import MetaException
from thrift.transport.TTransport import TTransportException

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import open_client, open_sasl_client
from ldap_server import PEOPLE, LdapServer, slapd_installed


def new_database(name):
    from hive_metastore.ttypes import Database
    return Database(name=name, description="made over SASL PLAIN")


def login(server, user, password):
    return open_sasl_client(server, "PLAIN", username=user, password=password)


def assert_refused(server, user, password):
    with pytest.raises(TTransportException):
        client, trans = login(server, user, password)
        try:
            client.get_all_databases()
        finally:
            trans.close()


LOG_WAIT_S = 10


def logged(server, text, before=0):
    """The server's log past `before` characters once it holds `text` (a client sees its
    connection refused before the server writes why)."""
    deadline = time.monotonic() + LOG_WAIT_S
    while True:
        log = server.log_tail(200000)[before:]
        if text in log:
            return log
        assert time.monotonic() < deadline, f"{text!r} not logged:\n{log}"
        time.sleep(0.05)


def assert_owner_is_the_login(server, user, password, database):
    client, trans = login(server, user, password)
    try:
        with pytest.raises(MetaException, match=f"User: {user} is not allowed to impersonate mallory"):
            client.set_ugi("mallory", [])
        client.create_database(new_database(database))
        assert client.get_database(database).ownerName == user
    finally:
        trans.close()


@pytest.fixture(scope="module")
def custom_server(tmp_path_factory):
    binary = hivestore_binary()
    workdir = tmp_path_factory.mktemp("plain-custom")
    lines = []
    for user, password in (("alice", "alice-secret"), ("bob", "bob-secret")):
        hashed = subprocess.run([str(binary), "passwd", user], input=password + "\n",
                                capture_output=True, text=True, timeout=60, check=True)
        lines.append(hashed.stdout.strip())
    passwords = workdir / "passwords"
    passwords.write_text("# users of the test\n" + "\n".join(lines) + "\n")
    server = start_hivestore(binary, workdir, [
        "--authentication", "CUSTOM", "--password-file", str(passwords)])
    yield server
    stop_hivestore(server)


def test_custom_checks_the_hashed_password_and_the_login_owns_what_it_creates(custom_server):
    assert_owner_is_the_login(custom_server, "alice", "alice-secret", "plain_custom_alice")


@pytest.mark.parametrize("user,password", [
    ("alice", "Guess-7319"), ("nobody", "alice-secret"), ("alice", "")])
def test_custom_refuses_a_wrong_password_an_unknown_user_and_an_empty_password(
        custom_server, user, password):
    before = len(custom_server.log_tail(200000))
    assert_refused(custom_server, user, password)
    log = logged(custom_server, "SASL authentication failed", before)
    if password:
        assert password not in log
    client, trans = login(custom_server, "bob", "bob-secret")
    try:
        assert isinstance(client.get_all_databases(), list)
    finally:
        trans.close()


def test_a_plain_client_is_refused_when_authentication_is_required(custom_server):
    client, trans = open_client(custom_server)
    try:
        with pytest.raises(Exception):
            client.get_all_databases()
    finally:
        trans.close()
    logged(custom_server, "requires authentication (metastore.authentication=CUSTOM)")


def test_none_accepts_any_user_and_names_it(tmp_path):
    server = start_hivestore(hivestore_binary(), tmp_path, ["--authentication", "NONE"])
    try:
        assert_owner_is_the_login(server, "carol", "anything", "plain_none_carol")
        assert_refused(server, "carol", "")
    finally:
        stop_hivestore(server)


@pytest.fixture(scope="module")
def ldap(tmp_path_factory):
    if not slapd_installed():
        pytest.fail("slapd is not installed: .ci/run installs it (Debian packages slapd, "
                    "ldap-utils)")
    with LdapServer(tmp_path_factory.mktemp("ldap")) as server:
        yield server


def test_ldap_binds_as_the_user_and_refuses_a_wrong_password(tmp_path, ldap):
    server = start_hivestore(hivestore_binary(), tmp_path, [
        "--authentication", "LDAP", "--ldap-url", ldap.url, "--ldap-base-dn", PEOPLE])
    try:
        assert_owner_is_the_login(server, "alice", LdapServer.USERS["alice"], "plain_ldap_alice")
        assert_refused(server, "alice", LdapServer.USERS["bob"])
        assert_refused(server, "alice*", LdapServer.USERS["alice"])
        assert_refused(server, "nobody", "x")
        client, trans = login(server, "bob", LdapServer.USERS["bob"])
        try:
            assert "plain_ldap_alice" in client.get_all_databases()
        finally:
            trans.close()
    finally:
        stop_hivestore(server)
