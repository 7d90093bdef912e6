"""Kerberos (SASL GSSAPI) against a throwaway MIT KDC (kdc.py): the mechanism in process with
each QOP, and the checks `hivestore serve` makes of its principal and keytab at start."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from conftest import REPO_ROOT, hivestore_binary, start_hivestore, stop_hivestore  # noqa: E402
from kdc import PACKAGES, REALM, SERVICE, Kdc, missing_tools  # noqa: E402

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
    return ["--kerberos-principal", principal, "--kerberos-host", "localhost",
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
