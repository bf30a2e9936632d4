#!/usr/bin/env bash
# A local Redis Cluster of 3 masters (no replicas) on free loopback ports, and throne running on it.
#
#   deploy/cluster.sh start    start the cluster (if not running) and print REDIS_URL=redis+cluster://...
#   deploy/cluster.sh url      print the REDIS_URL of the running cluster
#   deploy/cluster.sh demo     start (if needed), then play one demo game through the streams on it
#   deploy/cluster.sh serve    start (if needed), then run `throne serve` on it in the foreground (Ctrl-C ends it)
#   deploy/cluster.sh status   the cluster's state as redis-cli sees it
#   deploy/cluster.sh stop     stop the three redis-servers started by `start` and delete their data
#
#   eval "$(deploy/cluster.sh start)"; export REDIS_URL   # then any throne command runs on the cluster
#
# Environment: THRONE_CLUSTER_DIR (state: pids, ports, data; default ${TMPDIR:-/tmp}/throne-cluster-$UID),
# THRONE_CLUSTER_PORTS (three ports, comma-separated; default: free ones, each with its bus port +10000 free),
# REDIS_SERVER / REDIS_CLI (binaries), PYTHON (default: the repo's .venv/bin/python, else python3).
# Data live in a temporary directory (AOF on, as in production); `stop` removes it.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
STATE="${THRONE_CLUSTER_DIR:-${TMPDIR:-/tmp}/throne-cluster-$(id -u)}"
REDIS_SERVER="${REDIS_SERVER:-redis-server}"
REDIS_CLI="${REDIS_CLI:-redis-cli}"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi

die() { echo "cluster.sh: $*" >&2; exit 1; }

running() {
  # True when every pid recorded by `start` is alive.
  [[ -f "$STATE/pids" ]] || return 1
  local pid
  while read -r pid; do kill -0 "$pid" 2>/dev/null || return 1; done <"$STATE/pids"
}

ports() { cat "$STATE/ports"; }

url() { echo "redis+cluster://127.0.0.1:$(ports | head -n1)"; }

free_ports() {
  # Three loopback ports that are free, and whose cluster bus ports (+10000) are free too.
  "$PYTHON" - <<'EOF'
import socket

def free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True

found = []
while len(found) < 3:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if port < 55535 and port not in found and free(port + 10000):
        found.append(port)
print("\n".join(map(str, found)))
EOF
}

wait_ok() {
  # Until every node says cluster_state:ok and agrees that all 16384 slots are assigned.
  local port deadline=$((SECONDS + 30))
  for port in $(ports); do
    until "$REDIS_CLI" -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; do
      ((SECONDS < deadline)) || die "node $port: cluster not ok after 30 s"
      sleep 0.1
    done
  done
  until "$REDIS_CLI" --cluster check "127.0.0.1:$(ports | head -n1)" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "cluster check failed after 30 s"
    sleep 0.1
  done
}

start() {
  if running; then url; return 0; fi
  [[ -e "$STATE/pids" ]] && stop >/dev/null 2>&1 || true
  command -v "$REDIS_SERVER" >/dev/null || die "no $REDIS_SERVER on PATH"
  mkdir -p "$STATE"
  local data
  data="$(mktemp -d "${TMPDIR:-/tmp}/throne-cluster-data.XXXXXX")"
  echo "$data" >"$STATE/data"
  if [[ -n "${THRONE_CLUSTER_PORTS:-}" ]]; then tr ',' '\n' <<<"$THRONE_CLUSTER_PORTS" >"$STATE/ports"; else free_ports >"$STATE/ports"; fi
  : >"$STATE/pids"
  local port nodes=()
  for port in $(ports); do
    mkdir -p "$data/$port"
    "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --protected-mode yes --dir "$data/$port" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
      --appendonly yes --appendfsync everysec --save "" --maxmemory-policy noeviction \
      --logfile "$data/$port/redis.log" --daemonize no >/dev/null 2>&1 &
    echo $! >>"$STATE/pids"
    nodes+=("127.0.0.1:$port")
  done
  for port in $(ports); do
    local deadline=$((SECONDS + 10))
    until "$REDIS_CLI" -p "$port" ping >/dev/null 2>&1; do
      ((SECONDS < deadline)) || die "redis-server on port $port did not start (see $data/$port/redis.log)"
      sleep 0.05
    done
  done
  "$REDIS_CLI" --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$data/create.log" 2>&1 ||
    die "cluster create failed (see $data/create.log)"
  wait_ok
  echo "REDIS_URL=$(url)"
}

stop() {
  if [[ -f "$STATE/pids" ]]; then
    local pid
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$STATE/pids"
    while read -r pid; do
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
      kill -9 "$pid" 2>/dev/null || true
    done <"$STATE/pids"
  fi
  if [[ -f "$STATE/data" ]]; then
    local data
    data="$(cat "$STATE/data")"
    # Only ever the directory mktemp made for us.
    [[ "$data" == */throne-cluster-data.* ]] && rm -rf "$data"
  fi
  rm -f "$STATE/pids" "$STATE/ports" "$STATE/data"
  rmdir "$STATE" 2>/dev/null || true
  echo "cluster stopped"
}

case "${1:-}" in
  start) start ;;
  url) running || die "not running (deploy/cluster.sh start)"; echo "REDIS_URL=$(url)" ;;
  demo)
    start >/dev/null
    cd "$ROOT" && REDIS_URL="$(url)" "$PYTHON" -m services.cli demo "${@:2}"
    ;;
  serve)
    start >/dev/null
    echo "throne on REDIS_URL=$(url); Ctrl-C stops the service, 'deploy/cluster.sh stop' the cluster" >&2
    cd "$ROOT" && REDIS_URL="$(url)" exec "$PYTHON" -m services.cli serve "${@:2}"
    ;;
  status)
    running || die "not running"
    "$REDIS_CLI" --cluster check "127.0.0.1:$(ports | head -n1)"
    ;;
  stop) stop ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
