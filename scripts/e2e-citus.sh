#!/usr/bin/env bash
# make e2e-citus: learngate on a Citus cluster with schema-based sharding
# (docs/decisions.md section 20, deploy/README.md "The Citus e2e"), run for real
# on 127.0.0.1 and proved by the Go test program in e2e/ (build tag e2e_citus):
#
#   two `learngate serve` nodes and one `learngate worker` ─> Citus coordinator ─> worker1, worker2
#   one `learngate serve` on the local PostgreSQL (its own database), for figures side by side
#   every process ─> the local Redis, a database number of its own (13 Citus, 12 plain)
#
# The cluster is the script's own (scripts/citus-cluster.sh with CITUS_DIR under
# .data/e2e-citus and ports of a free block), never the one of .data/citus:
# the test stops one of its workers. Citus is built from CITUS_SRC when
# PostgreSQL has none (about 4 minutes on 2 cores).
#
# Every process this script starts is stopped by it (trap on EXIT), by the
# pid it recorded; the cluster is stopped and removed, the plain database
# dropped; every port is on 127.0.0.1; every wait is bounded.
#
# Environment: CITUS_SRC (Citus source tarball), LEARNGATE_PG_PORT (the plain
# PostgreSQL, default 5432), LEARNGATE_REDIS_PORT (default 6379),
# E2E_CITUS_BASE_PORT (first of the ports used, default a free block from
# 22000), E2E_KEEP=1 (keep .data/e2e-citus after a run; always kept after a
# failure, the cluster stopped).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/local/go/bin"

PG_PORT="${LEARNGATE_PG_PORT:-5432}"
REDIS_PORT="${LEARNGATE_REDIS_PORT:-6379}"
REDIS_DB_CITUS=13
REDIS_DB_PLAIN=12
STATE="$ROOT/.data/e2e-citus"
say() { printf 'e2e-citus: [%3d s] %s\n' "$SECONDS" "$*"; }
die() { printf 'e2e-citus: %s\n' "$*" >&2; exit 1; }

# CITUS_SRC may be relative to the repository's root (.ci/run): make it absolute.
if [[ -n "${CITUS_SRC:-}" && -f "$CITUS_SRC" ]]; then
	CITUS_SRC="$(cd "$(dirname "$CITUS_SRC")" && pwd)/$(basename "$CITUS_SRC")"
	export CITUS_SRC
fi
command -v psql >/dev/null 2>&1 || die "psql is missing (make services installs PostgreSQL)"
command -v redis-cli >/dev/null 2>&1 || die "redis-cli is missing (make services installs Redis)"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
block_free() {
	local p
	for p in "$@"; do port_free "$p" || return 1; done
}
BASE="${E2E_CITUS_BASE_PORT:-}"
if [[ -z "$BASE" ]]; then
	BASE=22000
	for ((i = 0; i < 40; i++)); do
		block_free $(seq "$BASE" $((BASE + 19))) && break
		BASE=$((BASE + 100))
	done
fi
CITUS_PORT=$BASE                              # coordinator; workers +1, +2
NODE_PORTS=($((BASE + 10)) $((BASE + 12)))    # Citus serve nodes: http; ops = +1
PLAIN_PORT=$((BASE + 14))                     # plain-PostgreSQL serve node: http; ops = +1

# The cluster of a failed run may still be running: stop it before removing its data.
[[ -d "$STATE/cluster" ]] && CITUS_DIR="$STATE/cluster" CITUS_PORT="$CITUS_PORT" scripts/citus-cluster.sh down >/dev/null 2>&1 || true
rm -rf "$STATE"
mkdir -p "$STATE/logs" "$STATE/blobs" "$STATE/blobs-plain"
export CITUS_DIR="$STATE/cluster" CITUS_PORT
PLAIN_DB="learngate_e2ecitus_plain_$$"
PIDS=()
CLEANUP_DONE=""
cleanup() {
	local status=$?
	[[ -n "$CLEANUP_DONE" ]] && return
	CLEANUP_DONE=1
	set +e
	local pid i
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	for pid in "${PIDS[@]}"; do
		for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	cp "$CITUS_DIR"/*.log "$STATE/logs/" 2>/dev/null
	scripts/citus-cluster.sh down >/dev/null 2>&1
	dropdb --if-exists --force -h 127.0.0.1 -p "$PG_PORT" -U postgres "$PLAIN_DB" 2>/dev/null
	redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -n "$REDIS_DB_CITUS" flushdb >/dev/null 2>&1
	redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -n "$REDIS_DB_PLAIN" flushdb >/dev/null 2>&1
	if [[ $status -ne 0 ]]; then
		say "FAILED; logs are in $STATE/logs (the cluster's data in $CITUS_DIR, stopped)"
	elif [[ "${E2E_KEEP:-}" != 1 ]]; then
		rm -rf "$STATE"
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$SECONDS
say "ports from $BASE on 127.0.0.1; state in $STATE"
scripts/services.sh up >/dev/null
say "Citus cluster: coordinator :$CITUS_PORT, workers :$((CITUS_PORT + 1)) and :$((CITUS_PORT + 2))"
scripts/citus-cluster.sh up 2>&1 | tee "$STATE/logs/citus-up.log" | sed 's/^/  /' || die "the Citus cluster did not come up"
CITUS_URL="$(scripts/citus-cluster.sh url)"
say "go build ./cmd/learngate"
go build -o "$STATE/learngate" ./cmd/learngate
LG="$STATE/learngate"

# Redis databases of their own, emptied before and after (rate-limit and cache keys of earlier runs).
for n in "$REDIS_DB_CITUS" "$REDIS_DB_PLAIN"; do
	redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -n "$n" flushdb >/dev/null || die "Redis on :$REDIS_PORT does not answer"
done
createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres "$PLAIN_DB"
PLAIN_URL="postgres://postgres@127.0.0.1:$PG_PORT/$PLAIN_DB?sslmode=disable"

export LEARNGATE_OPS_TOKEN="e2e-citus-ops-token-$$-$RANDOM"
export LEARNGATE_BASE_DOMAINS="e2ec.test"
export LEARNGATE_PUBLIC_SCHEME=http
export LEARNGATE_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_SIGNING_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_WEBHOOK_ALLOW_PRIVATE=true
export LEARNGATE_SSO_ALLOW_PRIVATE=true
export LEARNGATE_MIGRATE_ON_START=false
export LEARNGATE_WORKER=false
export LEARNGATE_LOG_FORMAT=json
unset LEARNGATE_INSECURE_DEV LEARNGATE_S3_ENDPOINT LEARNGATE_DATABASE_DIRECT_URL LEARNGATE_TLS_ASK_ADDR LEARNGATE_TRUSTED_PROXIES

# citus_env and plain_env exec a command with the topology's database, Redis
# and blobs: run them in a subshell, `(citus_env CMD)` or `citus_env CMD &`,
# so that $! is the pid of CMD itself (exec), which the cleanup stops.
citus_env() {
	LEARNGATE_DATABASE_URL="$CITUS_URL" LEARNGATE_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/$REDIS_DB_CITUS" \
		LEARNGATE_BLOB_DIR="$STATE/blobs" exec "$@"
}
plain_env() {
	LEARNGATE_DATABASE_URL="$PLAIN_URL" LEARNGATE_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/$REDIS_DB_PLAIN" \
		LEARNGATE_BLOB_DIR="$STATE/blobs-plain" exec "$@"
}

say "learngate migrate (Citus coordinator, then the plain database)"
(citus_env "$LG" migrate) >"$STATE/logs/migrate-citus.log" 2>&1 || { tail -n 20 "$STATE/logs/migrate-citus.log" >&2; die "migrate (Citus) failed"; }
(plain_env "$LG" migrate) >"$STATE/logs/migrate-plain.log" 2>&1 || { tail -n 20 "$STATE/logs/migrate-plain.log" >&2; die "migrate (plain) failed"; }

NODE_PIDS=()
for n in 0 1; do
	p=${NODE_PORTS[$n]}
	citus_env env LEARNGATE_HTTP_ADDR="127.0.0.1:$p" LEARNGATE_OPS_ADDR="127.0.0.1:$((p + 1))" \
		"$LG" serve >"$STATE/logs/node$((n + 1)).log" 2>&1 &
	PIDS+=($!)
	NODE_PIDS+=($!)
done
citus_env env LEARNGATE_WORKER=true "$LG" worker >"$STATE/logs/worker.log" 2>&1 &
WORKER_PID=$!
PIDS+=($WORKER_PID)
plain_env env LEARNGATE_HTTP_ADDR="127.0.0.1:$PLAIN_PORT" LEARNGATE_OPS_ADDR="127.0.0.1:$((PLAIN_PORT + 1))" \
	"$LG" serve >"$STATE/logs/plain.log" 2>&1 &
PLAIN_PID=$!
PIDS+=($PLAIN_PID)

ready() { [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$1")" == 200 ]]; }
wait_ready() { # wait_ready URL PID LOG
	local i
	for ((i = 0; i < 150; i++)); do
		ready "$1" && return 0
		kill -0 "$2" 2>/dev/null || { tail -n 20 "$3" >&2; die "$(basename "$3" .log) stopped at start"; }
		sleep 0.1
	done
	tail -n 20 "$3" >&2
	die "$(basename "$3" .log) not ready after 15 s"
}
wait_ready "http://127.0.0.1:${NODE_PORTS[0]}/readyz" "${NODE_PIDS[0]}" "$STATE/logs/node1.log"
wait_ready "http://127.0.0.1:${NODE_PORTS[1]}/readyz" "${NODE_PIDS[1]}" "$STATE/logs/node2.log"
wait_ready "http://127.0.0.1:$PLAIN_PORT/readyz" "$PLAIN_PID" "$STATE/logs/plain.log"
kill -0 "$WORKER_PID" 2>/dev/null || { tail -n 20 "$STATE/logs/worker.log" >&2; die "the worker stopped at start"; }

say "up in $((SECONDS - start)) s; running the test program (go test -tags e2e_citus ./e2e/)"
export E2EC_NODES="http://127.0.0.1:${NODE_PORTS[0]},http://127.0.0.1:${NODE_PORTS[1]}"
export E2EC_OPS="http://127.0.0.1:$((NODE_PORTS[0] + 1)),http://127.0.0.1:$((NODE_PORTS[1] + 1))"
export E2EC_PLAIN="http://127.0.0.1:$PLAIN_PORT"
export E2EC_PLAIN_OPS="http://127.0.0.1:$((PLAIN_PORT + 1))"
export E2EC_COORDINATOR_URL="$CITUS_URL"
export E2EC_PLAIN_URL="$PLAIN_URL"
export E2EC_WORKERS="127.0.0.1:$((CITUS_PORT + 1)),127.0.0.1:$((CITUS_PORT + 2))"
export E2EC_CLUSTER_SCRIPT="$ROOT/scripts/citus-cluster.sh"
export E2EC_REPORT="$STATE/report.txt"
status=0
go test -tags e2e_citus -count=1 -timeout 5m -v -run TestCitus ./e2e/ >"$STATE/logs/e2e-citus-test.log" 2>&1 || status=1
grep -E -- '^(--- |\s+--- |ok|FAIL|PASS)|_test.go:[0-9]+:' "$STATE/logs/e2e-citus-test.log" || true
echo
cat "$E2EC_REPORT" 2>/dev/null || echo "(no report: see $STATE/logs/e2e-citus-test.log)"
say "finished in $((SECONDS - start)) s"
exit $status
