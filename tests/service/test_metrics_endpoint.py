"""The metrics building block on its own: a scrape while Redis is away, a port already taken."""

from __future__ import annotations

import argparse
import socket

import httpx
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from services.bus.keys import Layout
from services.metrics import catalog, endpoint, roles
from tests.service.conftest import free_port


def _errors(kind: str) -> float:
    return catalog.REDIS_ERRORS.labels(kind)._value.get()


def test_given_redis_away_when_scraped_then_the_redis_families_come_back_empty_and_the_error_is_counted() -> None:
    # Given the rules worker's collectors on a Redis that nobody listens on
    client = endpoint.scrape_client(f"redis://127.0.0.1:{free_port()}/0")
    registry = CollectorRegistry()
    for collector in roles.rules_worker(client, Layout(prefix="x", shards=2), [0, 1], {"duplicate": 2}, {0: "t"}):
        registry.register(collector)
    before = _errors("ConnectionError")
    # When Prometheus scrapes
    text = generate_latest(registry).decode()
    # Then the scrape answers: the in-memory families have their samples, the Redis ones none
    samples = [(s.name, s.labels, s.value) for f in text_string_to_metric_families(text) for s in f.samples]
    values = {(name, labels.get("outcome")): value for name, labels, value in samples}
    assert values[("throne_worker_leases_held", None)] == 1
    assert values[("throne_worker_outcomes_total", "duplicate")] == 2
    assert values[("throne_worker_outcomes_total", "fenced")] == 0  # every outcome reported, 0 until it happens
    names = {name for name, _, _ in samples}
    assert "throne_stream_group_pending" not in names and "throne_dead_letters_stored" not in names
    # and the failed reads are counted by kind
    assert _errors("ConnectionError") >= before + 2


def test_given_the_metrics_port_taken_when_a_process_starts_then_it_runs_without_metrics() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = argparse.Namespace(metrics_port=port, metrics_host="127.0.0.1")
        assert endpoint.start(args, "test", registry=CollectorRegistry()) is None


def test_a_metrics_server_serves_its_registry() -> None:
    registry = CollectorRegistry()
    registry.register(roles.gateway(lambda: 3)[0])
    args = argparse.Namespace(metrics_port=free_port(), metrics_host="127.0.0.1")
    port = endpoint.start(args, "test", registry=registry)
    assert port == args.metrics_port
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    assert 'throne_gateway_open_feeds{kind="websocket"} 3.0' in text


def test_given_no_metrics_port_then_no_server() -> None:
    parser = argparse.ArgumentParser()
    endpoint.add_arguments(parser)
    args = parser.parse_args(["--metrics-port", "0"])
    assert endpoint.start(args, "test", registry=CollectorRegistry()) is None
