"""Hive 4's HTTP transport on the metastore port: Python's THttpClient with the generated HMS
client, JWT bearer tokens checked against a JWKS file, HTTPS, and plain Thrift clients on the
same port.

Every token here is made by the test with keys it generates; servers are its own, on loopback.
"""

import base64
import hashlib
import hmac
import http.client
import json
import os
import shutil
import ssl
import time
import uuid

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hive_metastore import ThriftHiveMetastore
from hive_metastore.ttypes import Database
from thrift.protocol import TBinaryProtocol
from thrift.transport import THttpClient, TTransport

from hms_helpers import SOCKET_TIMEOUT_S, make_table, open_client
from test_tls import make_ca, make_leaf

pytestmark = pytest.mark.skipif(bool(os.environ.get("HMS_URI")),
                                reason="starts hivestore servers with JWT settings of their own")

ISSUER = "https://idp.test"
AUDIENCE = "hivestore"
PATH = "metastore"
USER_HEADER = "x-actor-username"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Keys:
    """An RSA and an EC signing key, their JWKS, and a stranger RSA key under the same kid."""

    def __init__(self, directory):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key()))
        ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec.public_key()))
        rsa_jwk.update(kid="rsa1", use="sig")
        ec_jwk.update(kid="ec1", use="sig")
        self.jwks = directory / "jwks.json"
        self.jwks.write_text(json.dumps({"keys": [rsa_jwk, ec_jwk]}))
        self.rsa_public_pem = self.rsa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def claims(self, sub, **overrides):
        now = int(time.time())
        claims = {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 300}
        claims.update(overrides)
        return {name: value for name, value in claims.items() if value is not None}

    def token(self, sub="alice", key=None, kid="rsa1", algorithm="RS256", **overrides):
        return jwt.encode(self.claims(sub, **overrides), key or self.rsa, algorithm=algorithm,
                          headers={"kid": kid})


def hs256_with_public_key(keys: Keys) -> str:
    """The algorithm-confusion forgery: HMAC keyed with the (public) RSA key's PEM."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa1"}).encode())
    payload = b64url(json.dumps(keys.claims("root")).encode())
    signing_input = f"{header}.{payload}".encode()
    signature = hmac.new(keys.rsa_public_pem, signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url(signature)}"


def alg_none(keys: Keys) -> str:
    header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{b64url(json.dumps(keys.claims('root')).encode())}."


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    return Keys(tmp_path_factory.mktemp("jwks"))


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is missing: it makes the test certificates")
    directory = tmp_path_factory.mktemp("http-certs")
    make_ca(directory, "ca")
    make_leaf(directory, "server", "ca", "serverAuth")
    return directory


@pytest.fixture(scope="module")
def jwt_server(tmp_path_factory, keys, certs):
    """JWT on, TLS served beside plain connections (HTTP and HTTPS on one port)."""
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    server = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("jwt-server"), [
        "--authentication", "JWT", "--jwks-file", str(keys.jwks),
        "--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE,
        "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
        "--tls-allow-plain"])
    yield server
    stop_hivestore(server)


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory):
    """JWT off: HTTP callers name themselves with the user header."""
    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    server = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("plain-server"))
    yield server
    stop_hivestore(server)


def http_client(server, headers, scheme="http", context=None):
    host = "localhost" if scheme == "https" else server.host
    trans = THttpClient.THttpClient(f"{scheme}://{host}:{server.port}/{PATH}",
                                    ssl_context=context)
    trans.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
    trans.setCustomHeaders(headers)
    client = ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(trans))
    return client, trans


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def call_body() -> bytes:
    """The bytes of a get_all_databases call, as a POST body."""
    buffer = TTransport.TMemoryBuffer()
    ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(buffer)).send_get_all_databases()
    return buffer.getvalue()


def post(server, headers):
    """POSTs one call with `headers`: status, headers, body."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=SOCKET_TIMEOUT_S)
    try:
        connection.request("POST", f"/{PATH}", body=call_body(),
                           headers={"Content-Type": "application/x-thrift", **headers})
        response = connection.getresponse()
        return response.status, response.msg, response.read()
    finally:
        connection.close()


def unique(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def create_and_read(client):
    """Creates a database without owner and a table in it; returns the database read back and
    the table read back."""
    name = unique("http_db")
    client.create_database(Database(name=name, description="over HTTP"))
    client.create_table(make_table(name, "t"))
    return client.get_database(name), client.get_table(name, "t")


def test_calls_with_a_jwt_are_answered_and_its_subject_owns_what_it_creates(jwt_server, keys):
    client, trans = http_client(jwt_server, bearer(keys.token("alice")))
    try:
        database, table = create_and_read(client)
    finally:
        trans.close()
    assert database.ownerName == "alice"
    assert database.description == "over HTTP"
    assert table.tableName == "t" and table.dbName == database.name
    # An EC key of the JWKS (ES256) names another caller.
    client, trans = http_client(jwt_server, bearer(
        keys.token("bob", key=keys.ec, kid="ec1", algorithm="ES256")))
    try:
        name = unique("http_ec")
        client.create_database(Database(name=name))
        assert client.get_database(name).ownerName == "bob"
    finally:
        trans.close()


BAD_TOKENS = {
    "expired": (lambda keys: keys.token(exp=int(time.time()) - 3600), "expired"),
    "not-yet-valid": (lambda keys: keys.token(nbf=int(time.time()) + 3600), "not yet valid"),
    "wrong-issuer": (lambda keys: keys.token(iss="https://evil.test"), "wrong issuer"),
    "wrong-audience": (lambda keys: keys.token(aud="spark"), "wrong audience"),
    "bad-signature": (lambda keys: keys.token(key=keys.stranger), "bad signature"),
    "alg-none": (alg_none, "alg 'none' is not accepted"),
    "hs256-with-the-public-key": (hs256_with_public_key, "alg 'HS256' is not accepted"),
    "unknown-kid": (lambda keys: keys.token(kid="rsa9"), "unknown kid"),
    "no-exp": (lambda keys: keys.token(exp=None), "no exp claim"),
    "garbage": (lambda keys: "not.a.jwt!", "malformed"),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
def test_each_bad_token_is_refused_with_401_and_the_server_goes_on(jwt_server, keys, case):
    make, why = BAD_TOKENS[case]
    token = make(keys)
    status, headers, body = post(jwt_server, bearer(token))
    assert status == 401, body
    challenge = headers["WWW-Authenticate"]
    assert challenge.startswith('Bearer error="invalid_token"') and why in challenge, challenge
    assert why in body.decode()
    deadline = time.monotonic() + SOCKET_TIMEOUT_S
    while why not in jwt_server.log_tail() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = jwt_server.log_tail(20000)
    assert why in log
    assert token not in log, "the token itself is never logged"
    # The server goes on: a good token is served.
    client, trans = http_client(jwt_server, bearer(keys.token("carol")))
    try:
        assert isinstance(client.get_all_databases(), list)
    finally:
        trans.close()


def test_without_a_bearer_token_the_refusal_is_a_bare_challenge(jwt_server):
    status, headers, body = post(jwt_server, {USER_HEADER: "mallory"})
    assert status == 401
    assert headers["WWW-Authenticate"] == "Bearer"
    assert b"no bearer token" in body


def test_https_with_a_jwt_is_served_on_the_same_port(jwt_server, keys, certs):
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    client, trans = http_client(jwt_server, bearer(keys.token("dave")), scheme="https",
                                context=context)
    try:
        database, _ = create_and_read(client)
        assert client.get_config_value("metastore.use.SSL", "unset") == "true"
    finally:
        trans.close()
    assert database.ownerName == "dave"


def test_with_jwt_off_the_user_header_names_the_caller_and_plain_thrift_is_served(plain_server):
    client, trans = http_client(plain_server, {USER_HEADER: "erin"})
    try:
        database, _ = create_and_read(client)
    finally:
        trans.close()
    assert database.ownerName == "erin"
    status, _, body = post(plain_server, {})
    assert status == 401 and USER_HEADER.encode() in body
    # The same port serves plain Thrift clients, which see what HTTP created.
    for transport in ("buffered", "framed"):
        plain, plain_trans = open_client(plain_server, transport, "binary")
        try:
            assert plain.get_database(database.name).ownerName == "erin"
        finally:
            plain_trans.close()


def test_requests_the_transport_does_not_serve_are_answered_and_closed(plain_server):
    connection = http.client.HTTPConnection(plain_server.host, plain_server.port,
                                            timeout=SOCKET_TIMEOUT_S)
    try:
        connection.request("GET", f"/{PATH}")
        response = connection.getresponse()
        assert (response.status, response.getheader("Allow")) == (405, "POST")
        response.read()
    finally:
        connection.close()
    status, _, _ = post_to(plain_server, "/elsewhere")
    assert status == 404
    plain_server.assert_alive()


def post_to(server, path):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=SOCKET_TIMEOUT_S)
    try:
        connection.request("POST", path, body=call_body(), headers={USER_HEADER: "x"})
        response = connection.getresponse()
        return response.status, response.msg, response.read()
    finally:
        connection.close()
