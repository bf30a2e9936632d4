"""deploy/: the compose file, the image and the Redis config, checked without Docker (not on this machine).

The compose file is parsed as YAML and checked against the repository: every command it runs is a Python
entry point that exists here and answers ``--help``, the rules workers cover every shard exactly once, every
app container agrees on REDIS_URL / THRONE_SHARDS / THRONE_PREFIX, Redis runs deploy/redis.conf with AOF on.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from services.bus.keys import parse_shards
from services.serve import module_exists
from tests.service.conftest import _wait_ping, free_port
from tests.service.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ROLES = {"services.worker", "services.gateway", "services.bots", "services.webhooks", "services.timer", "projections"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


def app_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in compose["services"].items() if svc.get("image", "").startswith("throne")}


def module_of(command: list[str]) -> str:
    assert command[:2] == ["python", "-m"], command
    return command[2]


def test_the_compose_file_has_redis_and_every_role(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert "redis" in services
    roles = {module_of(svc["command"]) for svc in app_services(compose).values()}
    assert roles == ROLES
    assert sum(module_of(s["command"]) == "services.worker" for s in app_services(compose).values()) >= 2


def test_every_command_of_the_compose_file_is_an_entry_point_of_the_repository(compose: dict[str, Any]) -> None:
    missing = sorted({m for s in app_services(compose).values() if not module_exists(m := module_of(s["command"]))})
    assert not missing, f"the compose file runs modules that do not exist: {missing}"


@pytest.mark.parametrize("module", sorted(ROLES))
def test_every_entry_point_answers_help(module: str) -> None:
    if not module_exists(module):
        pytest.fail(f"python -m {module} does not exist")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1000:]
    assert "usage:" in done.stdout


def test_the_rules_workers_cover_every_shard_exactly_once(compose: dict[str, Any]) -> None:
    apps = app_services(compose)
    shard_counts = {int(svc["environment"]["THRONE_SHARDS"]) for svc in apps.values()}
    assert len(shard_counts) == 1
    total = shard_counts.pop()
    covered: list[int] = []
    for svc in apps.values():
        command = svc["command"]
        if module_of(command) == "services.worker":
            covered += parse_shards(command[command.index("--shards") + 1], total)
    assert sorted(covered) == list(range(total))


def test_every_app_container_agrees_on_redis_shards_and_prefix(compose: dict[str, Any]) -> None:
    envs = [svc["environment"] for svc in app_services(compose).values()]
    for key in ("REDIS_URL", "THRONE_SHARDS", "THRONE_PREFIX"):
        assert len({env[key] for env in envs}) == 1, key
    assert envs[0]["REDIS_URL"].startswith("redis://redis:")
    for svc in app_services(compose).values():
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
        assert svc["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}


def test_redis_runs_the_repository_config_with_aof_and_a_volume(compose: dict[str, Any]) -> None:
    redis_svc = compose["services"]["redis"]
    mounts = {m.split(":")[0]: m.split(":")[1] for m in redis_svc["volumes"]}
    assert (DEPLOY / mounts["./redis.conf"].rsplit("/", 1)[-1]).name == "redis.conf"
    assert (DEPLOY / "redis.conf").exists() and mounts["./redis.conf"] in redis_svc["command"]
    assert mounts["redis-data"] == "/data" and "redis-data" in compose["volumes"]
    conf = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", conf, re.M) and re.search(r"^appendfsync everysec$", conf, re.M)
    assert re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    # Inside the compose network only: never published to the host
    assert "ports" not in redis_svc


def test_the_dockerfile_copies_only_what_exists_and_installs_the_package() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    sources = [src for line in text.splitlines() if line.startswith("COPY ") for src in line.split()[1:-1]]
    assert sources and all((ROOT / src).exists() for src in sources), sources
    assert "pip install ." in text and "USER throne" in text
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    for src in sources:
        assert f"!{src}" in ignore or f"!{src}/**" in ignore, src


def test_the_compose_redis_command_starts_a_real_server_with_aof(compose: dict[str, Any], tmp_path: Path) -> None:
    """The compose file's redis command with deploy/redis.conf, run here: the container's / is ``tmp_path``."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("no redis-server")
    svc = compose["services"]["redis"]
    root = tmp_path
    (root / "data").mkdir()  # the volume
    conf_in_container = next(m.split(":")[1] for m in svc["volumes"] if m.startswith("./redis.conf:"))
    argv = [
        str(DEPLOY / "redis.conf") if a == conf_in_container else str(root / a.lstrip("/")) if a == "/data" else a
        for a in svc["command"]
    ]
    port = free_port()
    # 127.0.0.1 instead of the container's 0.0.0.0: the test's server stays on loopback
    argv = [server, *argv[1:], "--port", str(port), "--bind", "127.0.0.1"]
    proc = subprocess.Popen(argv, cwd=root / svc["working_dir"].lstrip("/"), stdout=subprocess.DEVNULL)
    try:
        _wait_ping(lambda: redis.Redis(host="127.0.0.1", port=port))
        r = redis.Redis(host="127.0.0.1", port=port)
        assert r.config_get("appendonly")["appendonly"] == "yes"
        assert r.config_get("dir")["dir"] == str(root / "data")
        r.set("k", "v")
        wait_for(lambda: any((root / "data" / "appendonly").glob("throne.aof*")), seconds=60)
    finally:
        proc.terminate()
        proc.wait(10)


# --- monitoring: Prometheus, its alert rules, the Grafana dashboard ----------------------------------------------

PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset"}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: identifiers that are neither functions, keywords, label names
    (inside braces or grouping clauses) nor strings, durations or numbers."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings (label values, regexes)
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # range durations
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)  # label lists
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word, rest = match.group(), text[match.end() :].lstrip()
        if word in PROMQL_WORDS or rest.startswith("("):  # a keyword or a function
            continue
        if re.fullmatch(r"(?:[0-9.]+)?e[0-9]*|Inf|NaN", word, re.I):
            continue
        names.add(word)
    return names


def test_the_metric_name_check_finds_the_names_and_only_them() -> None:
    expr = 'histogram_quantile(0.99, sum by (le, model) (rate(throne_x_bucket{job=~"a.*"}[5m]))) > 1 and on(job) up'
    assert metric_names(expr) == {"throne_x_bucket", "up"}


def exported() -> set[str]:
    from services.metrics.endpoint import exported_names

    return exported_names() | {"up"}  # (``up``: Prometheus's own, per target)


def test_every_app_container_serves_metrics_inside_the_network_only(compose: dict[str, Any]) -> None:
    for name, svc in app_services(compose).items():
        env = svc["environment"]
        assert env["THRONE_METRICS_PORT"] == "9100", name
        assert env["THRONE_METRICS_HOST"] == "0.0.0.0", name
        assert not any("9100" in str(p) for p in svc.get("ports", [])), name


def test_prometheus_scrapes_every_process_with_the_alert_rules(compose: dict[str, Any]) -> None:
    from projections.store import MODELS

    svc = compose["services"]["prometheus"]
    mounts = {m.split(":")[0]: m.split(":")[1] for m in svc["volumes"]}
    config_in_container = next(a.split("=", 1)[1] for a in svc["command"] if a.startswith("--config.file="))
    assert mounts["./prometheus/prometheus.yml"] == config_in_container
    assert all((DEPLOY / src).exists() for src in mounts if src.startswith("./")), mounts
    assert all(str(p).startswith("127.0.0.1:") for p in svc["ports"])  # the host's loopback only
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert config["rule_files"] == [mounts["./prometheus/alerts.yml"]]
    targets = {t for job in config["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]}
    for name, svc in app_services(compose).items():
        port = int(svc["environment"]["THRONE_METRICS_PORT"])
        # the projections container runs one process per read model, each on the next port
        count = len(MODELS) if module_of(svc["command"]) == "projections" else 1
        assert {f"{name}:{port + i}" for i in range(count)} <= targets, name
    assert all(t.split(":")[0] in app_services(compose) for t in targets)


def test_the_serve_scrape_config_matches_the_ports_throne_serve_gives() -> None:
    from services.bus.keys import Layout
    from services.serve import plan

    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus-serve.yml").read_text())
    targets = {t for job in config["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]}
    ports: set[int] = set()
    for spec in plan(Layout(shards=16), workers=2, metrics_port=9100):
        port = int(spec.args[spec.args.index("--metrics-port") + 1])
        ports |= {port + i for i in range(4)} if spec.module == "projections" else {port}
    assert targets == {f"127.0.0.1:{p}" for p in ports}


def test_the_alert_rules_parse_and_name_only_exported_metrics() -> None:
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    known = exported()
    seen: list[str] = []
    for group in rules["groups"]:
        assert isinstance(group["name"], str) and group["rules"], group
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            assert re.fullmatch(r"[A-Z][A-Za-z0-9]+", rule["alert"]), rule
            assert rule["labels"]["severity"] in {"critical", "warning", "info"}
            assert rule["annotations"]["summary"]
            if "for" in rule:
                assert re.fullmatch(r"\d+[smh]", rule["for"]), rule
            names = metric_names(rule["expr"])
            assert names and names <= known, (rule["alert"], names - known)
            seen.append(rule["alert"])
    assert len(seen) == len(set(seen))
    # The cases the operators asked for: a process down, dead letters, lag, webhook failures, Redis errors
    for needed in ("ThroneProcessDown", "ThroneDeadLettersRising", "ThroneConsumerLag", "ThroneProjectionLag",
                   "ThroneWebhookFailures", "ThroneRedisErrors"):  # fmt: skip
        assert needed in seen


def test_the_grafana_dashboard_parses_and_names_only_exported_metrics(compose: dict[str, Any]) -> None:
    import json

    svc = compose["services"]["grafana"]
    assert "grafana" in svc["profiles"]  # optional
    mounts = {m.split(":")[0]: m.split(":")[1] for m in svc["volumes"]}
    assert all((DEPLOY / src).exists() for src in mounts if src.startswith("./")), mounts
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/throne.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == mounts["./grafana/dashboards"]
    source = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yml").read_text())["datasources"][0]
    assert source["url"] == "http://prometheus:9090"
    dashboard = json.loads((DEPLOY / "grafana/dashboards/throne.json").read_text())
    known = exported()
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert exprs
    for panel in dashboard["panels"]:
        assert all(t["datasource"]["uid"] == source["uid"] for t in panel["targets"]), panel["title"]
    for expr in exprs:
        assert metric_names(expr) <= known, (expr, metric_names(expr) - known)
    # every metric the service exports of its own is on the dashboard
    shown = {n for e in exprs for n in metric_names(e)}
    own = {re.sub(r"_(total|bucket|sum|count)$", "", n) for n in known if n.startswith("throne_")}
    missing = {n for n in own if not any(s.startswith(n) for s in shown)}
    assert missing <= {"throne_worker_outcomes", "throne_projection_stats", "throne_bots_stats"}, missing
