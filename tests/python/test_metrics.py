"""Metrics and health over HTTP (`--metrics-listen`) and JSON logs (`--log-format json`).

Goal: what `/metrics` shows is what real clients did, in a format a Prometheus parser reads;
`/health` and `/ready` answer as documented; bad HTTP requests cost only their connection and
never the metastore port; a JSON log is JSON on every line. Method: a hivestore started with a
metrics port on loopback, calls through the pyiceberg-vendored Hive 4 client, scrapes parsed by
`prometheus_client`'s parser. Every wait is bounded.
"""

import json
import os
import socket
import time

import pytest
from hive_metastore.ttypes import NoSuchObjectException
from prometheus_client.parser import text_string_to_metric_families

from conftest import free_loopback_port, hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import SOCKET_TIMEOUT_S, connected

# The listener's own limits (metrics/listener.rs and limits.rs).
METRICS_CONNECTIONS_MAX = 16
METRICS_HEAD_DEADLINE_S = 5.0
HTTP_HEAD_BYTES_MAX = 64 * 1024
READY_WAIT_S = 30.0


def http(port: int, request: bytes, timeout_s: float = SOCKET_TIMEOUT_S):
    """Sends `request` raw, reads until the server closes; (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed before the whole request went: its answer is still read
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    reply = b"".join(chunks)
    if not reply:
        return None, {}, b""
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("ascii").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, {name.lower(): value for name, value in headers.items()}, body


def get(port: int, path: str):
    return http(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())


def scrape(port: int):
    """`/metrics` parsed: {(sample name, sorted labels): value} and the families by name."""
    status, headers, body = get(port, "/metrics")
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    families = {family.name: family for family in text_string_to_metric_families(body.decode())}
    samples = {}
    for family in families.values():
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples, families


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_ready(port: int) -> None:
    deadline = time.monotonic() + READY_WAIT_S
    while time.monotonic() < deadline:
        status, _, body = get(port, "/ready")
        if status == 200:
            return
        assert status == 503 and body.startswith(b"not ready: "), (status, body)
        time.sleep(0.05)
    pytest.fail(f"not ready within {READY_WAIT_S}s")


@pytest.fixture(scope="module")
def metered(tmp_path_factory):
    """A hivestore with a metrics port; (server, metrics port)."""
    metrics_port = free_loopback_port()
    server = start_hivestore(hivestore_binary(), tmp_path_factory.mktemp("metered"),
                             ["--metrics-listen", f"127.0.0.1:{metrics_port}"])
    try:
        wait_ready(metrics_port)
        yield server, metrics_port
    finally:
        stop_hivestore(server)


def test_calls_errors_latency_bytes_and_connections_move_as_clients_call(metered):
    server, port = metered
    before, _ = scrape(port)
    with connected(server) as client:
        for _ in range(3):
            assert "default" in client.get_all_databases()
        with pytest.raises(NoSuchObjectException):
            client.get_database("no_such_database_for_metrics")
        during, _ = scrape(port)
        assert value(during, "hivestore_connections_open") >= 1
        fb303 = client.getCounters()
    after, families = scrape(port)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("hivestore_calls_total", method="get_all_databases") == 3
    assert moved("hivestore_call_errors_total", method="get_all_databases") == 0
    assert moved("hivestore_calls_total", method="get_database") == 1
    assert moved("hivestore_call_errors_total", method="get_database") == 1
    assert moved("hivestore_calls_total", method="set_ugi") == 1
    assert moved("hivestore_connections_accepted_total") >= 1
    assert moved("hivestore_wire_read_bytes_total") > 0
    assert moved("hivestore_wire_written_bytes_total") > 0
    # One source: fb303's counters and the metrics count the same calls.
    assert fb303["get_all_databases.calls"] == value(
        after, "hivestore_calls_total", method="get_all_databases")

    histogram = families["hivestore_call_duration_seconds"]
    assert histogram.type == "histogram"
    for method in ("get_all_databases", "get_database"):
        buckets = sorted(
            (float(sample.labels["le"]), sample.value) for sample in histogram.samples
            if sample.name.endswith("_bucket") and sample.labels["method"] == method)
        counts = [count for _, count in buckets]
        assert counts == sorted(counts), "cumulative buckets never go down"
        assert buckets[-1][0] == float("inf")
        count = value(after, "hivestore_call_duration_seconds_count", method=method)
        assert buckets[-1][1] == count
        assert count == value(after, "hivestore_calls_total", method=method)
        assert value(after, "hivestore_call_duration_seconds_sum", method=method) > 0

    assert families["hivestore_calls"].type == "counter"
    assert families["hivestore_connections_open"].type == "gauge"
    assert value(after, "hivestore_ready") == 1
    assert value(after, "hivestore_uptime_seconds") > 0
    assert value(after, "hivestore_store_size_on_disk_bytes") > 0
    assert value(after, "hivestore_prewarm_over") == 1
    kinds = {labels for (name, labels) in after if name == "hivestore_kept_hits_total"}
    assert {dict(labels)["kind"] for labels in kinds} == {
        "name_listings", "encodings", "statistics_chunks", "sketch_chunks"}

    # The connection is closed: the gauge comes back down (bounded wait, the poller closes it).
    deadline = time.monotonic() + SOCKET_TIMEOUT_S
    while value(scrape(port)[0], "hivestore_connections_open") >= value(
            during, "hivestore_connections_open"):
        assert time.monotonic() < deadline, "the closed connection is still counted open"
        time.sleep(0.05)


def test_health_ready_and_what_else_is_answered(metered):
    _, port = metered
    assert get(port, "/health")[0::2] == (200, b"alive\n")
    assert get(port, "/ready")[0::2] == (200, b"ready\n")
    status, headers, _ = http(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    assert (status, headers["allow"]) == (405, "GET")
    assert http(port, b"HEAD /ready HTTP/1.1\r\n\r\n")[0] == 405
    assert get(port, "/metrics/x")[0] == 404
    assert get(port, "/")[0] == 404
    assert http(port, b"GET /health HTTP/2.0\r\n\r\n")[0] == 505


def test_bad_http_requests_cost_only_their_connection(metered):
    server, port = metered
    assert http(port, b"\x16\x03\x01 garbage\r\n\r\n")[0] == 400
    huge = b"GET /metrics HTTP/1.1\r\nX-Filler: " + b"a" * (HTTP_HEAD_BYTES_MAX + 1024)
    assert http(port, huge)[0] == 431
    # A slow client dripping its head is closed at the head deadline, unanswered.
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as slow:
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < METRICS_HEAD_DEADLINE_S + 3:
            try:
                slow.sendall(b"G")
                slow.settimeout(0.5)
                if slow.recv(1) == b"":
                    closed = True
                    break
            except socket.timeout:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed, "a dripping head outlived its deadline"
        assert METRICS_HEAD_DEADLINE_S - 1 <= time.monotonic() - started
    with connected(server) as client:
        assert "default" in client.get_all_databases()
    assert get(port, "/health")[0] == 200


def test_connections_over_the_cap_are_closed_and_the_metastore_port_serves(metered):
    server, port = metered
    silent = [socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S)
              for _ in range(METRICS_CONNECTIONS_MAX)]
    try:
        # The listener takes the silent ones up in its own time: until it has taken all of
        # them, a probe may still get a place (and an answer). Once it has, every probe over
        # the cap is closed unanswered.
        deadline = time.monotonic() + METRICS_HEAD_DEADLINE_S
        while True:
            with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as over:
                try:
                    over.sendall(b"GET /health HTTP/1.1\r\n\r\n")
                    answer = over.recv(1)
                except (BrokenPipeError, ConnectionResetError):
                    answer = b""
            if answer == b"":
                break
            assert time.monotonic() < deadline, "a connection over the cap was answered"
            time.sleep(0.05)
        with connected(server) as client:
            assert "default" in client.get_all_databases()
    finally:
        for sock in silent:
            sock.close()
    # Their places come back once they are closed.
    deadline = time.monotonic() + METRICS_HEAD_DEADLINE_S + SOCKET_TIMEOUT_S
    while get(port, "/health")[0] != 200:
        assert time.monotonic() < deadline, "the metrics port did not recover"
        time.sleep(0.1)


def test_json_log_lines_are_json_objects_and_settings_come_from_the_environment(tmp_path):
    metrics_port = free_loopback_port()
    env = dict(os.environ, HIVESTORE_LOG_FORMAT="json",
               HIVESTORE_METRICS_LISTEN=f"127.0.0.1:{metrics_port}")
    server = start_hivestore(hivestore_binary(), tmp_path, env=env)
    try:
        wait_ready(metrics_port)
        with connected(server) as client:
            with pytest.raises(NoSuchObjectException):
                client.get_database("no_such_database_for_logs")
    finally:
        stop_hivestore(server)
    with open(server.log_path, "rb") as log:
        lines = log.read().splitlines()
    assert len(lines) >= 3, lines
    messages = []
    for line in lines:
        assert b"\x1b[" not in line, line
        record = json.loads(line)
        assert {"timestamp", "level", "target", "fields"} <= record.keys(), record
        messages.append(record["fields"].get("message", ""))
    assert "hivestore is serving" in messages
    assert "serving metrics and health over HTTP" in messages
