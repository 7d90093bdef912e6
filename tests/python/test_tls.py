"""TLS on the metastore port (issue 25): `hivestore serve --tls-cert --tls-key`.

Goal: a client speaking TLS (Python's thrift `TSSLSocket`, as a Hive client with
`metastore.use.SSL=true` does) is served in every protocol and transport; the server's
certificate is checked by the client; with TLS on, plain clients are refused as Hive's
TLS-only metastore refuses them (unless `--tls-allow-plain`), with the reason logged; a TLS
client of a server without TLS is refused with a reason; garbage in a handshake and a stalled
handshake cost only their own connection (the latter closed at `--handshake-timeout-secs`);
SIGHUP reloads the certificate for new connections and keeps the old one when the new files are
bad; TLS connections count against the connection cap and make room like plain ones; with
`--tls-client-ca` a client needs a certificate from that CA.

Method: certificates made here with the `openssl` command line (a CA, a server certificate for
127.0.0.1 and localhost, a second one for the reload, another CA the server does not use, a
client certificate); skipped with a message when `openssl` is missing. hivestore only: each
test starts a server of its own. Bounded: every socket has a timeout, every wait a deadline.
"""

import hashlib
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time

import pytest
from hive_metastore.ttypes import Database
from thrift.transport import TSSLSocket

from hms_helpers import ALL_COMBOS, SOCKET_TIMEOUT_S, open_client

HANDSHAKE_TIMEOUT_S = 2
LOG_WAIT_S = 10.0

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="starts hivestore servers with TLS of their own")


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)


def make_ca(directory, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
            "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={name}", cwd=directory)


def make_leaf(directory, name, ca, usage, names="DNS:localhost,IP:127.0.0.1"):
    """A certificate for `name` signed by `ca`; `usage` is serverAuth or clientAuth."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
            f"{name}.csr", "-subj", f"/CN={name}", cwd=directory)
    extensions = directory / f"{name}.ext"
    extensions.write_text(f"subjectAltName={names}\nbasicConstraints=CA:FALSE\n"
                          f"keyUsage=digitalSignature,keyEncipherment\n"
                          f"extendedKeyUsage={usage}\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", extensions.name,
            cwd=directory)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is missing: it makes the test certificates")
    directory = tmp_path_factory.mktemp("certs")
    make_ca(directory, "ca")
    make_ca(directory, "other-ca")
    make_leaf(directory, "server", "ca", "serverAuth")
    make_leaf(directory, "server2", "ca", "serverAuth")
    make_leaf(directory, "client", "ca", "clientAuth", names="DNS:client")
    return directory


@pytest.fixture
def own_server(tmp_path):
    """Starts a hivestore with the given `serve` flags; stopped (exit 0) after the test."""
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    started = []

    def start(*flags):
        started.append(start_hivestore(hivestore_binary(), tmp_path, [str(flag) for flag in flags]))
        return started[-1]

    yield start
    for running in started:
        stop_hivestore(running)


def tls_flags(certs, name="server"):
    return ["--tls-cert", certs / f"{name}.pem", "--tls-key", certs / f"{name}.key",
            "--handshake-timeout-secs", HANDSHAKE_TIMEOUT_S]


def tls_socket(server, ca, client_cert=None):
    context = ssl.create_default_context(cafile=str(ca))
    if client_cert is not None:
        context.load_cert_chain(str(client_cert.with_suffix(".pem")),
                                str(client_cert.with_suffix(".key")))
    sock = TSSLSocket.TSSLSocket(server.host, server.port, ssl_context=context,
                                 server_hostname="localhost")
    sock.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
    return sock


def open_tls_client(server, certs, transport="buffered", protocol="binary", client_cert=None):
    sock = tls_socket(server, certs / "ca.pem", client_cert)
    client, trans = open_client(server, transport, protocol, sock=sock)
    trans.tls_socket = sock
    return client, trans


def served_over_tls(server, certs, **kwargs) -> bool:
    client, trans = open_tls_client(server, certs, **kwargs)
    try:
        return client.get_config_value("metastore.use.SSL", "unset") == "true"
    finally:
        trans.close()


def fingerprint(trans) -> str:
    """SHA-256 of the certificate the server presented on an open TLS transport."""
    return hashlib.sha256(trans.tls_socket.handle.getpeercert(binary_form=True)).hexdigest()


def file_fingerprint(certs, name) -> str:
    der = ssl.PEM_cert_to_DER_cert((certs / f"{name}.pem").read_text())
    return hashlib.sha256(der).hexdigest()


def wait_for_log(server, text, deadline_s=LOG_WAIT_S) -> str:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        with open(server.log_path, "rb") as handle:
            log = handle.read().decode("utf-8", "replace")
        if text in log:
            return log
        time.sleep(0.05)
    pytest.fail(f"{text!r} not logged within {deadline_s} s; log:\n{server.log_tail()}")


def connect_raw(server) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=SOCKET_TIMEOUT_S)
    sock.settimeout(0.5)
    return sock


def closed_within(sock, deadline_s) -> bool:
    """Whether the server closes `sock` within `deadline_s`; whatever it sends (an alert) is
    read and dropped."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            if not sock.recv(65536):
                return True
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


@pytest.mark.parametrize("transport,protocol", ALL_COMBOS,
                         ids=[f"{t}-{p}" for t, p in ALL_COMBOS])
def test_every_format_is_served_inside_tls(own_server, certs, transport, protocol):
    server = own_server(*tls_flags(certs))
    client, trans = open_tls_client(server, certs, transport, protocol)
    try:
        name = f"tls_{transport}_{protocol}".replace("-", "_")
        client.create_database(Database(name=name, description="over TLS", parameters={}))
        assert client.get_database(name).description == "over TLS"
        assert name in client.get_all_databases()
        assert client.get_config_value("metastore.use.SSL", "unset") == "true"
        assert client.get_config_value("hive.metastore.use.SSL", "unset") == "true"
    finally:
        trans.close()


def test_a_client_that_trusts_another_ca_refuses_the_server(own_server, certs):
    server = own_server(*tls_flags(certs))
    context = ssl.create_default_context(cafile=str(certs / "other-ca.pem"))
    with socket.create_connection((server.host, server.port), timeout=SOCKET_TIMEOUT_S) as raw:
        with pytest.raises(ssl.SSLCertVerificationError):
            context.wrap_socket(raw, server_hostname="localhost")
    # The thrift client fails the same way, on opening.
    with pytest.raises(Exception):
        open_client(server, sock=tls_socket(server, certs / "other-ca.pem"))
    wait_for_log(server, "TLS handshake failed")
    assert served_over_tls(server, certs)


def test_a_plain_client_of_a_tls_only_server_is_refused_with_the_reason(own_server, certs):
    server = own_server(*tls_flags(certs))
    client, trans = open_client(server)
    try:
        with pytest.raises(Exception):
            client.getStatus()
    finally:
        trans.close()
    wait_for_log(server, "this server serves TLS only (metastore.use.SSL=true)")
    assert served_over_tls(server, certs)


def test_with_allow_plain_both_are_served(own_server, certs):
    server = own_server(*tls_flags(certs), "--tls-allow-plain")
    client, trans = open_client(server)
    try:
        assert client.get_config_value("metastore.use.SSL", "unset") == "true"
    finally:
        trans.close()
    assert served_over_tls(server, certs)


def test_a_tls_client_of_a_plain_server_is_refused_with_the_reason(own_server, certs):
    server = own_server()
    sock = tls_socket(server, certs / "ca.pem")
    with pytest.raises(Exception):
        open_client(server, sock=sock)
    wait_for_log(server, "TLS is not configured on this server: start it with --tls-cert")
    client, trans = open_client(server)
    try:
        assert client.get_config_value("metastore.use.SSL", "unset") == "false"
    finally:
        trans.close()


def test_garbage_in_a_handshake_closes_only_its_connection(own_server, certs):
    server = own_server(*tls_flags(certs))
    active, active_trans = open_tls_client(server, certs)
    try:
        for garbage in (b"\x16\x03\x01\x00\x10" + b"\xff" * 16,
                        b"\x16\x03\x03" + os.urandom(512),
                        b"\x16\x03\x01\x00\x05hello" + b"\x17\x03\x03\x00\x01x"):
            with connect_raw(server) as raw:
                raw.sendall(garbage)
                assert closed_within(raw, 5.0), f"{garbage[:8]!r}... left open"
            assert active.get_all_databases() == ["default"]
        wait_for_log(server, "TLS handshake failed")
    finally:
        active_trans.close()
    assert served_over_tls(server, certs)


def test_a_stalled_handshake_is_closed_at_its_deadline_and_others_are_served(own_server, certs):
    server = own_server(*tls_flags(certs))
    with connect_raw(server) as stalled:
        # The first bytes of a ClientHello, and then nothing.
        stalled.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        started = time.monotonic()
        assert served_over_tls(server, certs)
        assert closed_within(stalled, HANDSHAKE_TIMEOUT_S + 5.0), "a stalled handshake stayed"
        assert time.monotonic() - started >= HANDSHAKE_TIMEOUT_S - 0.5
    log = wait_for_log(server, "handshake_timeout_secs")
    assert "the TLS handshake took over 2 s" in log
    assert served_over_tls(server, certs)


def test_sighup_reloads_the_certificate_for_new_connections(own_server, certs, tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    for suffix in ("pem", "key"):
        shutil.copy(certs / f"server.{suffix}", live / f"server.{suffix}")
    server = own_server(*tls_flags(live))
    old_client, old_trans = open_tls_client(server, certs)
    try:
        assert fingerprint(old_trans) == file_fingerprint(certs, "server")
        for suffix in ("pem", "key"):
            shutil.copy(certs / f"server2.{suffix}", live / f"server.{suffix}")
        server.process.send_signal(signal.SIGHUP)
        wait_for_log(server, "TLS certificate and key reloaded")
        new_client, new_trans = open_tls_client(server, certs)
        try:
            assert fingerprint(new_trans) == file_fingerprint(certs, "server2")
            assert new_client.get_all_databases() == ["default"]
        finally:
            new_trans.close()
        # The connection opened before goes on with the certificate it was given.
        assert old_client.get_all_databases() == ["default"]
    finally:
        old_trans.close()
    # A bad file: the reload fails, says why, and the certificate in use stays.
    (live / "server.pem").write_text("not a certificate\n")
    server.process.send_signal(signal.SIGHUP)
    log = wait_for_log(server, "TLS certificate and key not reloaded")
    assert "no PEM certificate" in log
    client, trans = open_tls_client(server, certs)
    try:
        assert fingerprint(trans) == file_fingerprint(certs, "server2")
    finally:
        trans.close()


def test_tls_connections_make_room_at_the_connection_cap(own_server, certs):
    server = own_server(*tls_flags(certs), "--max-connections", 2)
    held = [open_tls_client(server, certs) for _ in range(2)]
    try:
        for client, _ in held:
            assert client.get_all_databases() == ["default"]
        assert served_over_tls(server, certs)
        client, trans = open_tls_client(server, certs)
        try:
            assert client.getCounters().get("connections.evicted", 0) >= 1
        finally:
            trans.close()
    finally:
        for _, trans in held:
            trans.close()


def test_with_a_client_ca_a_client_needs_a_certificate_from_it(own_server, certs):
    server = own_server(*tls_flags(certs), "--tls-client-ca", certs / "ca.pem")
    assert served_over_tls(server, certs, client_cert=certs / "client")
    with pytest.raises(Exception):
        client, trans = open_tls_client(server, certs)
        try:
            client.get_all_databases()
        finally:
            trans.close()
    wait_for_log(server, "TLS handshake failed")


def test_missing_or_mismatched_files_stop_the_start_with_a_reason(certs, tmp_path):
    from conftest import hivestore_binary

    cases = [
        (["--tls-cert", certs / "server.pem"], "tls_cert needs tls_key"),
        (["--tls-cert", tmp_path / "missing.pem", "--tls-key", certs / "server.key"],
         "--tls-cert"),
        (["--tls-cert", certs / "server.pem", "--tls-key", certs / "server2.key"], "--tls-key"),
        (["--tls-allow-plain"], "need TLS"),
    ]
    for flags, expected in cases:
        result = subprocess.run(
            [str(hivestore_binary()), "serve", "--listen", "127.0.0.1:0", "--data-dir",
             str(tmp_path / "data"), "--warehouse", str(tmp_path / "wh"),
             *[str(flag) for flag in flags]],
            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        assert result.returncode != 0, flags
        assert expected in result.stderr, (flags, result.stderr)


def test_sasl_plain_inside_tls_with_plain_refused(own_server, certs, tmp_path):
    """TLS and SASL together (Hive's metastore.use.SSL with an authentication mode): the SASL
    negotiation runs inside TLS, a password crosses only encrypted, and a SASL start in the
    clear is refused."""
    import socket
    import struct
    import subprocess
    from conftest import hivestore_binary
    from hms_helpers import open_sasl_client

    hashed = subprocess.run([str(hivestore_binary()), "passwd", "dora"], input="dora-secret\n",
                            capture_output=True, text=True, timeout=60, check=True)
    passwords = tmp_path / "passwords"
    passwords.write_text(hashed.stdout)
    server = own_server(*tls_flags(certs), "--authentication", "CUSTOM",
                        "--password-file", passwords)
    sock = tls_socket(server, certs / "ca.pem")
    client, trans = open_sasl_client(server, "PLAIN", sock=sock, username="dora",
                                     password="dora-secret")
    try:
        from hive_metastore.ttypes import Database
        client.create_database(Database(name="tls_sasl_db", description="", parameters={}))
        assert client.get_database("tls_sasl_db").ownerName == "dora"
    finally:
        trans.close()
    with socket.create_connection((server.host, server.port), timeout=SOCKET_TIMEOUT_S) as raw:
        raw.sendall(b"\x01" + struct.pack(">I", 5) + b"PLAIN")
        assert raw.recv(64) == b"", "a SASL start in the clear is closed unanswered"
