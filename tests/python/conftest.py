"""pytest fixtures: a hivestore server per test module, or an external HMS.

Environment:
  HIVESTORE_BIN  the hivestore binary (default: target/release/hivestore, then
                 target/debug/hivestore, also under $CARGO_TARGET_DIR when that is set)
  HMS_URI        thrift://HOST:PORT of an already running metastore (the Java reference HMS,
                 say) to run the same tests against instead of starting hivestore
  HMS_COMBOS     with HMS_URI: the transport-protocol pairs that metastore speaks, comma
                 separated (default "buffered-binary": Apache's HMS reads strict binary only, and
                 framed or compact only when configured for them)
  HMS_NAME       with HMS_URI: the fb303 getName the tests expect (default: any non-empty)
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hms_helpers import PROTOCOLS, TRANSPORTS, Server  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 30.0
SHUTDOWN_TIMEOUT_S = 15.0
START_ATTEMPTS = 3


def hivestore_binary() -> Path:
    """The binary to test: $HIVESTORE_BIN, else the newest-convention build locations."""
    explicit = os.environ.get("HIVESTORE_BIN")
    if explicit:
        path = Path(explicit).resolve()
        if not path.is_file():
            pytest.fail(f"HIVESTORE_BIN={explicit} is not a file")
        return path
    roots = [REPO_ROOT / "target"]
    if os.environ.get("CARGO_TARGET_DIR"):
        roots.append(Path(os.environ["CARGO_TARGET_DIR"]))
    candidates = [root / profile / "hivestore" for profile in ("release", "debug") for root in roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    pytest.fail("no hivestore binary; build it with `cargo build --release -p hivestore-cli` "
                f"or set HIVESTORE_BIN (looked at {', '.join(map(str, candidates))})")


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


# The directory under which pytest makes every test's temporary directories (set once per
# session): tests keep table data there, so the servers they start take it as an external root.
TEST_TEMP_ROOT = None


@pytest.fixture(scope="session", autouse=True)
def test_temp_root(tmp_path_factory):
    """Records pytest's base temporary directory for `start_hivestore`."""
    global TEST_TEMP_ROOT
    TEST_TEMP_ROOT = tmp_path_factory.getbasetemp()
    return TEST_TEMP_ROOT


def start_hivestore(binary: Path, workdir: Path, extra_args=(), env=None,
                    external_roots=None) -> Server:
    """Start `hivestore serve` on a free port; retries if the port was taken meanwhile.
    `extra_args` go to `serve` (e.g. a short `--txn-timeout-ms`); `env`, when given, is its whole
    environment. Started again on the same `workdir`, it serves the same data directory (that of
    the first attempt). `external_roots` are given as `--external-root`s; by default pytest's
    base temporary directory, where tests keep their tables' data (`()` gives none: the
    warehouse alone)."""
    if external_roots is None:
        external_roots = (TEST_TEMP_ROOT,) if TEST_TEMP_ROOT is not None else ()
    root_args = [argument for root in external_roots
                 for argument in ("--external-root", str(root))]
    for attempt in range(START_ATTEMPTS):
        port = free_loopback_port()
        data_dir, warehouse = workdir / f"data{attempt}", workdir / f"warehouse{attempt}"
        log_path = workdir / f"hivestore{attempt}.log"
        command = [str(binary), "serve", "--listen", f"127.0.0.1:{port}",
                   "--data-dir", str(data_dir), "--warehouse", str(warehouse), *root_args,
                   *extra_args]
        started_s = time.time()
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, cwd=workdir, env=env)
        server = Server("127.0.0.1", port, process=process, log_path=str(log_path),
                        started_s=started_s)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            if port_accepts("127.0.0.1", port):
                return server
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
            process.wait(timeout=SHUTDOWN_TIMEOUT_S)
            pytest.fail(f"hivestore did not open port {port} in {STARTUP_TIMEOUT_S}s; "
                        f"log:\n{server.log_tail()}")
        if "in use" not in server.log_tail().lower():
            pytest.fail(f"hivestore exited with {process.returncode} at start: {command}\n"
                        f"log:\n{server.log_tail()}")
    pytest.fail(f"hivestore could not bind a free port in {START_ATTEMPTS} attempts")


def stop_hivestore(server: Server) -> None:
    """SIGTERM, then the process must exit 0 within SHUTDOWN_TIMEOUT_S."""
    process = server.process
    if process.poll() is not None:
        pytest.fail(f"hivestore had already exited with {process.returncode}; "
                    f"log:\n{server.log_tail()}")
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SHUTDOWN_TIMEOUT_S)
        pytest.fail(f"hivestore did not exit within {SHUTDOWN_TIMEOUT_S}s of SIGTERM; "
                    f"log:\n{server.log_tail()}")
    assert code == 0, f"hivestore exited with {code} on SIGTERM; log:\n{server.log_tail()}"


def external_server(uri: str) -> Server:
    parsed = urlparse(uri)
    if parsed.scheme != "thrift" or not parsed.hostname or not parsed.port:
        pytest.fail(f"HMS_URI must look like thrift://127.0.0.1:9083, got {uri!r}")
    names = os.environ.get("HMS_COMBOS", "buffered-binary")
    combos = set()
    for name in filter(None, (n.strip() for n in names.split(","))):
        transport, _, protocol = name.partition("-")
        if transport not in TRANSPORTS or protocol not in PROTOCOLS:
            pytest.fail(f"HMS_COMBOS entry {name!r} is not TRANSPORT-PROTOCOL "
                        f"with {TRANSPORTS} and {PROTOCOLS}")
        combos.add((transport, protocol))
    if not port_accepts(parsed.hostname, parsed.port):
        pytest.fail(f"nothing accepts connections at HMS_URI={uri}")
    return Server(parsed.hostname, parsed.port, combos=combos)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A running metastore for one test module; hivestore is stopped (and must exit 0) after."""
    uri = os.environ.get("HMS_URI")
    if uri:
        yield external_server(uri)
        return
    running = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("hivestore"))
    try:
        yield running
    finally:
        stop_hivestore(running)


@pytest.fixture(scope="session")
def expected_name():
    """What fb303 getName must return, or None for 'any non-empty string'."""
    if os.environ.get("HMS_URI"):
        return os.environ.get("HMS_NAME")
    from hms_helpers import HIVESTORE_NAME
    return HIVESTORE_NAME


@pytest.fixture(scope="module")
def hive(server):
    """The Hive generation of the server's API: 4 on hivestore, 2 on the Hive 2.3 reference."""
    from hms_helpers import hive_generation
    return hive_generation(server)


@pytest.fixture()
def client(server):
    """A connection through the pyiceberg-vendored client, `set_ugi` sent, closed after."""
    from hms_helpers import connected
    with connected(server) as connection:
        yield connection


@pytest.fixture()
def db(client, request):
    """A fresh database for one test, named after the module's `DB_PREFIX` (default `db`)."""
    from hive_metastore.ttypes import Database
    from hms_helpers import unique_name
    name = unique_name(getattr(request.module, "DB_PREFIX", "db"))
    client.create_database(Database(name=name))
    return name
