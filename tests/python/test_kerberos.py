"""Kerberos (SASL GSSAPI) against a throwaway MIT KDC (kdc.py): the mechanism in process with
each QOP; the checks `hivestore serve` makes of its principal and keytab at start; Python clients
(thrift_sasl over pure-sasl's GSSAPI) with each QOP and the ways a login fails; and the Hive 2.3
Java client with a keytab login, against hivestore and against Apache's Java HMS 2.3.10."""

import os
import socket
import struct
import subprocess
import time
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from conftest import REPO_ROOT, hivestore_binary, start_hivestore, stop_hivestore  # noqa: E402
from kdc import PACKAGES, REALM, SERVICE, Kdc, missing_tools  # noqa: E402
from hive_metastore.ttypes import MetaException  # noqa: E402

CARGO_TEST_TIMEOUT_S = 600
START_FAILURE_TIMEOUT_S = 30


@pytest.fixture(scope="module")
def kdc(tmp_path_factory):
    missing = missing_tools()
    if missing:
        pytest.fail(f"the Kerberos tests need {', '.join(missing)}: apt-get install {PACKAGES}")
    kdc = Kdc(tmp_path_factory.mktemp("kdc")).start()
    yield kdc
    kdc.stop()


def kerberos_args(kdc, principal=f"hive/_HOST@{REALM}", qop="auth"):
    return ["--authentication", "KERBEROS",
            "--kerberos-principal", principal, "--kerberos-host", "localhost",
            "--kerberos-keytab", str(kdc.keytab(SERVICE)), "--sasl-qop", qop]


def test_mechanism_negotiates_each_qop_in_process(kdc):
    env = kdc.client_env("alice")
    env["HIVESTORE_TEST_KEYTAB"] = str(kdc.keytab(SERVICE))
    result = subprocess.run(
        ["cargo", "test", "--release", "-p", "hivestore-thrift", "--lib",
         "negotiates_each_qop_with_a_real_kdc", "--", "--ignored"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=CARGO_TEST_TIMEOUT_S)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "1 passed" in result.stdout, result.stdout[-4000:]


def serve_fails(tmp_path: Path, env: dict, args: list) -> str:
    command = [str(hivestore_binary()), "serve", "--listen", "127.0.0.1:0",
               "--data-dir", str(tmp_path / "data"), "--warehouse", str(tmp_path / "wh"), *args]
    result = subprocess.run(command, env=env, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=START_FAILURE_TIMEOUT_S)
    assert result.returncode != 0, f"serve started: {result.stdout}{result.stderr}"
    return result.stdout + result.stderr


def test_serve_refuses_a_principal_whose_key_is_not_in_the_keytab(kdc, tmp_path):
    output = serve_fails(tmp_path, kdc.server_env(),
                         kerberos_args(kdc, principal=f"nobody/_HOST@{REALM}"))
    assert f"nobody/localhost@{REALM} has no usable key in kerberos_keytab" in output, output


def test_serve_refuses_an_unreadable_keytab(kdc, tmp_path):
    args = kerberos_args(kdc)
    args[args.index("--kerberos-keytab") + 1] = str(tmp_path / "missing.keytab")
    output = serve_fails(tmp_path, kdc.server_env(), args)
    assert "missing.keytab cannot be read" in output, output


def test_serve_refuses_bad_qop_and_rules(kdc, tmp_path):
    output = serve_fails(tmp_path, kdc.server_env(), kerberos_args(kdc, qop="auth,secret"))
    assert '"secret" is not auth, auth-int or auth-conf' in output, output
    output = serve_fails(tmp_path, kdc.server_env(),
                         [*kerberos_args(kdc), "--auth-to-local", "RULE:[1:$2]"])
    assert "past the principal's 1 components" in output, output


def test_serve_starts_with_the_service_key(kdc, tmp_path):
    server = start_hivestore(hivestore_binary(), tmp_path,
                             kerberos_args(kdc, qop="auth-conf,auth-int,auth"),
                             env=kdc.server_env())
    try:
        assert f"hive/localhost@{REALM}" in server.log_tail()
        assert "accepting Kerberos" in server.log_tail()
    finally:
        stop_hivestore(server)


# The Hive 2.3 Java client with a UGI keytab login, against hivestore and against Apache's Java
# HMS 2.3.10 configured for Kerberos the same way: both must pass the same program.
REFERENCE_START = REPO_ROOT.parent / "shared" / "tools" / "reference-hms" / "start.sh"
REFERENCE_START_TIMEOUT_S = 400
REFERENCE_STOP_TIMEOUT_S = 30
# Hadoop's names of the QOPs (hadoop.rpc.protection).
PROTECTIONS = {"auth": "authentication", "auth-int": "integrity", "auth-conf": "privacy"}


def java_kerberos_flags(kdc):
    return [f"-Djava.security.krb5.conf={kdc.krb5_conf}", "-Dsun.security.krb5.disableReferrals=true"]


def run_kerberos_client(kdc, port, workdir, protection, database):
    from java_clients import run_java
    return run_java("KerberosClient",
                    ["localhost", str(port), f"hive/_HOST@{REALM}", f"alice@{REALM}",
                     str(kdc.keytab("alice")), protection, database],
                    workdir, jvm_flags=java_kerberos_flags(kdc))


def assert_all_passed(java_run, renewal_refused=False):
    """Every step passed; `renewal_refused`: but renewal, refused as Hive refuses it (Hadoop's
    secret manager compares the caller's full principal with the renewer the identifier keeps
    as a short name, so a principal with a realm never matches; hivestore compares short
    names)."""
    if renewal_refused:
        line = java_run["lines"].get("renew_delegation_token", "")
        assert line.startswith("FAIL ") and "non-matching renewer" in line, line
    steps = ["login", "connect", "create_database", "drop_database", "get_delegation_token",
             "token_login", "cancel_delegation_token", "close"]
    if not renewal_refused:
        steps.append("renew_delegation_token")
    for name in steps:
        line = java_run["lines"].get(name)
        assert line is not None and line.startswith("PASS "), (
            f"{name}: {line} (java exit {java_run['code']})\nstdout:\n{java_run['stdout'][-6000:]}"
            f"\nstderr:\n{java_run['stderr'][-3000:]}")


def hadoop_xml(properties: dict) -> str:
    rows = "".join(f"  <property><name>{name}</name><value>{value}</value></property>\n"
                   for name, value in properties.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{rows}</configuration>\n'


@pytest.fixture(scope="module")
def reference_hms(kdc, tmp_path_factory):
    """Apache's HMS 2.3.10 (shared/tools/reference-hms/start.sh) under Kerberos: the SASL
    settings go in hivemetastore-site.xml and core-site.xml beside the hive-site.xml the script
    writes (its conf/ is on the classpath), the krb5.conf through JAVA_TOOL_OPTIONS."""
    from conftest import free_loopback_port
    from java_clients import pyspark_jars, require_java
    require_java()
    if not REFERENCE_START.is_file():
        pytest.fail(f"no reference HMS start script at {REFERENCE_START}")
    base = tmp_path_factory.mktemp("reference-hms")
    conf = base / "conf"
    conf.mkdir()
    (conf / "hivemetastore-site.xml").write_text(hadoop_xml({
        "hive.metastore.sasl.enabled": "true",
        "hive.metastore.kerberos.principal": f"{SERVICE}@{REALM}",
        "hive.metastore.kerberos.keytab.file": str(kdc.keytab(SERVICE)),
    }))
    (conf / "core-site.xml").write_text(hadoop_xml({
        "hadoop.security.authentication": "kerberos",
        "hadoop.rpc.protection": "privacy,integrity,authentication",
    }))
    port = free_loopback_port()
    env = kdc.server_env()
    env["PYSPARK_VENV"] = str(Path(pyspark_jars()).parents[4])
    env["JAVA_TOOL_OPTIONS"] = " ".join(java_kerberos_flags(kdc))
    env["HMS_HEAP"] = "512m"
    started = subprocess.run(["bash", str(REFERENCE_START), str(port), str(base)], env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=REFERENCE_START_TIMEOUT_S)
    pid_file = base / "hms.pid"
    try:
        assert started.returncode == 0, f"{started.stdout}{started.stderr}"
        yield port, base
    finally:
        if pid_file.is_file():
            pid = int(pid_file.read_text().strip())
            subprocess.run(["kill", str(pid)], timeout=REFERENCE_STOP_TIMEOUT_S)
            subprocess.run(["bash", "-c", f"for i in $(seq 1 {REFERENCE_STOP_TIMEOUT_S}); do "
                            f"kill -0 {pid} 2>/dev/null || exit 0; sleep 1; done; kill -9 {pid}"],
                           timeout=REFERENCE_STOP_TIMEOUT_S + 5)


@pytest.mark.parametrize("qop", ["auth", "auth-conf"])
def test_hive_java_client_over_kerberos_against_the_reference_hms(kdc, reference_hms, qop,
                                                                   tmp_path):
    port, base = reference_hms
    java_run = run_kerberos_client(kdc, port, tmp_path, PROTECTIONS[qop], f"krb_java_{qop[-4:]}")
    assert_all_passed(java_run, renewal_refused=True)


@pytest.fixture(scope="module")
def kerberized(kdc, tmp_path_factory):
    """hivestore accepting Kerberos with every QOP."""
    server = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("kerberized"),
                             kerberos_args(kdc, qop="auth-conf,auth-int,auth"),
                             env=kdc.server_env())
    yield server
    stop_hivestore(server)


def use_env(monkeypatch, env):
    for name in ("KRB5_CONFIG", "KRB5CCNAME"):
        monkeypatch.setenv(name, env[name])


def gssapi_client(server, qop):
    from hms_helpers import open_sasl_client
    return open_sasl_client(server, "GSSAPI", host="localhost", service="hive",
                            qops=[qop.encode()])


@pytest.mark.parametrize("qop", ["auth", "auth-int", "auth-conf"])
def test_python_client_over_gssapi_with_each_qop_owns_what_it_creates(
        kdc, kerberized, monkeypatch, qop):
    from hive_metastore.ttypes import Database
    use_env(monkeypatch, kdc.client_env("alice"))
    client, trans = gssapi_client(kerberized, qop)
    try:
        name = f"krb_py_{qop.replace('-', '_')}"
        with pytest.raises(MetaException, match="User: alice is not allowed to impersonate mallory"):
            client.set_ugi("mallory", [])
        client.create_database(Database(name=name, description="over Kerberos"))
        assert client.get_database(name).ownerName == "alice"
        # A reply bigger than one wrap token's usual size crosses the layer whole.
        assert name in client.get_all_databases()
    finally:
        trans.close()
    assert f"principal=alice@{REALM}" in kerberized.log_tail(50000)


def test_no_ticket_fails_at_the_client_and_the_server_keeps_serving(kdc, kerberized, monkeypatch):
    from thrift.transport.TTransport import TTransportException
    use_env(monkeypatch, kdc.empty_client_env())
    with pytest.raises((TTransportException, Exception)):
        gssapi_client(kerberized, "auth")
    use_env(monkeypatch, kdc.client_env("bob"))
    client, trans = gssapi_client(kerberized, "auth")
    try:
        assert isinstance(client.get_all_databases(), list)
    finally:
        trans.close()


def test_an_expired_ticket_is_refused(kdc, kerberized, monkeypatch):
    from kdc import SHORT_LIVED_USER
    env = kdc.client_env(SHORT_LIVED_USER)
    use_env(monkeypatch, env)
    time.sleep(6)  # carol's tickets last 4 s; the KDC allows 1 s of skew
    with pytest.raises(Exception):
        client, trans = gssapi_client(kerberized, "auth")
        try:
            client.get_all_databases()
        finally:
            trans.close()


def sasl_frame(status, payload):
    return bytes([status]) + struct.pack(">I", len(payload)) + payload


def test_garbage_after_start_gets_a_bad_frame_and_a_log_line(kerberized):
    with socket.create_connection((kerberized.host, kerberized.port), timeout=10) as sock:
        sock.sendall(sasl_frame(1, b"GSSAPI") + sasl_frame(2, b"\x60\x03garbage"))
        reply = sock.recv(4096)
    assert reply[:1] == b"\x03", reply  # BAD
    assert b"authentication failed" in reply
    deadline = time.monotonic() + 10
    while "SASL authentication failed: GSSAPI" not in kerberized.log_tail(50000):
        assert time.monotonic() < deadline, kerberized.log_tail()
        time.sleep(0.1)


def test_a_plain_client_is_refused_under_kerberos(kerberized):
    from hms_helpers import open_client
    client, trans = open_client(kerberized)
    try:
        with pytest.raises(Exception):
            client.get_all_databases()
    finally:
        trans.close()


@pytest.mark.parametrize("qop", ["auth", "auth-int", "auth-conf"])
def test_hive_java_client_over_kerberos_against_hivestore(kdc, kerberized, qop, tmp_path):
    java_run = run_kerberos_client(kdc, kerberized.port, tmp_path, PROTECTIONS[qop],
                                   f"krb_java_{qop.replace('-', '_')}")
    assert_all_passed(java_run)


def read_vint(data: bytes, at: int):
    """Hadoop's WritableUtils variable-length integer at `at`: (value, next offset)."""
    first = struct.unpack_from(">b", data, at)[0]
    if first >= -112:
        return first, at + 1
    negative = first < -120
    size = (-119 - first) if negative else (-111 - first)
    value = 0
    for byte in data[at + 1:at + size]:
        value = (value << 8) | byte
    return (~value if negative else value), at + size


def token_login(token: str):
    """The DIGEST-MD5 user name and password of a token string, as Hadoop's client makes them:
    the token's identifier and password, each base64."""
    import base64
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    length, at = read_vint(raw, 0)
    identifier = raw[at:at + length]
    length, at = read_vint(raw, at + length)
    password = raw[at:at + length]
    return base64.b64encode(identifier).decode(), base64.b64encode(password).decode()


def test_a_delegation_token_from_a_kerberos_login_logs_in_by_digest_md5(
        kdc, kerberized, monkeypatch):
    from hms_helpers import open_sasl_client
    use_env(monkeypatch, kdc.client_env("alice"))
    client, trans = gssapi_client(kerberized, "auth")
    try:
        token = client.get_delegation_token("alice", "alice")
    finally:
        trans.close()
    user, password = token_login(token)
    client, trans = open_sasl_client(kerberized, "DIGEST-MD5", host="localhost", service="hive",
                                     username=user, password=password)
    try:
        with pytest.raises(MetaException, match="User: alice is not allowed to impersonate mallory"):
            client.set_ugi("mallory", [])
        from hive_metastore.ttypes import Database
        client.create_database(Database(name="krb_token_db", description="by a token"))
        assert client.get_database("krb_token_db").ownerName == "alice"
        # A token login cannot ask for another token: issuing needs Kerberos.
        with pytest.raises(Exception, match="kerberos"):
            client.get_delegation_token("alice", "alice")
    finally:
        trans.close()
    # Cancelled (over Kerberos), the token no longer logs in.
    client, trans = gssapi_client(kerberized, "auth")
    try:
        client.cancel_delegation_token(token)
    finally:
        trans.close()
    with pytest.raises(Exception):
        client, trans = open_sasl_client(kerberized, "DIGEST-MD5", host="localhost",
                                         service="hive", username=user, password=password)
        try:
            client.get_all_databases()
        finally:
            trans.close()
