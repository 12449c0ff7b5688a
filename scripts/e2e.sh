#!/usr/bin/env bash
# make e2e: the deployed topology of docs/decisions.md ("Deployment"), run for
# real on 127.0.0.1 and proved by the Go test program in e2e/ (build tag e2e):
#
#   client ─TLS─> Caddy (deploy/Caddyfile, tls internal, on-demand, ask → learngate's ask listener)
#             ─> two `learngate serve` nodes ─> PgBouncer (transaction pooling) ─> PostgreSQL
#   two `learngate worker` processes; a Redis Cluster of three masters for every process.
#
# Every process this script starts is stopped by it (trap on EXIT), by the
# pid it recorded; every port is on 127.0.0.1; every wait is bounded.
# Missing Debian packages (caddy, pgbouncer, redis-server) are installed with
# apt-get unless LEARNGATE_NO_APT=1, which makes a missing one an error.
#
# Environment: LEARNGATE_PG_PORT (PostgreSQL, default 5432), E2E_BASE_PORT
# (first of the ports used, default a free block from 21000), E2E_KEEP=1
# (keep .data/e2e after a run; it is always kept after a failure).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/local/go/bin"

PG_PORT="${LEARNGATE_PG_PORT:-5432}"
STATE="$ROOT/.data/e2e"
say() { printf 'e2e: %s\n' "$*"; }
die() { printf 'e2e: %s\n' "$*" >&2; exit 1; }

# need CMD PACKAGE: CMD on PATH, installing Debian's PACKAGE when allowed.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [[ "${LEARNGATE_NO_APT:-}" == 1 ]]; then
		die "$1 is missing and LEARNGATE_NO_APT=1 forbids installing it: apt-get install $2"
	fi
	[[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1 ||
		die "$1 is missing and apt-get cannot run here (not root?): install Debian's $2"
	say "installing $2 with apt-get"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2"; } \
		</dev/null >"$ROOT/.data/e2e-apt.log" 2>&1 || { tail -n 20 "$ROOT/.data/e2e-apt.log" >&2; die "apt-get install $2 failed"; }
	hash -r
	command -v "$1" >/dev/null 2>&1 || die "$1 still missing after apt-get install $2"
}

mkdir -p "$ROOT/.data"
need caddy caddy
need pgbouncer pgbouncer
need redis-server redis-server
need redis-cli redis-tools
command -v psql >/dev/null 2>&1 || die "psql is missing (make services installs PostgreSQL)"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
block_free() {
	local p
	for p in "$@"; do port_free "$p" || return 1; done
}
BASE="${E2E_BASE_PORT:-}"
if [[ -z "$BASE" ]]; then
	BASE=21000
	for ((i = 0; i < 40; i++)); do
		# The Redis cluster bus uses port+10000 of each Redis port.
		block_free $(seq "$BASE" $((BASE + 29))) $((BASE + 10010)) $((BASE + 10011)) $((BASE + 10012)) && break
		BASE=$((BASE + 100))
	done
fi
CADDY_HTTPS=$BASE CADDY_HTTP=$((BASE + 1)) CADDY_ADMIN=$((BASE + 2)) CADDY_ASK=$((BASE + 3))
PGB_PORT=$((BASE + 4))
REDIS_BASE=$((BASE + 10))
NODE_PORTS=($((BASE + 20)) $((BASE + 23))) # http; ops = +1, ask = +2

rm -rf "$STATE"
mkdir -p "$STATE/logs" "$STATE/blobs"
DB="learngate_e2e_$$"
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
	scripts/redis-cluster.sh stop "$REDIS_BASE" "$STATE/redis" >/dev/null 2>&1
	scripts/pgbouncer.sh stop "$PGB_PORT" >/dev/null 2>&1
	dropdb --if-exists -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB" 2>/dev/null
	if [[ $status -ne 0 ]]; then
		say "FAILED; logs are in $STATE/logs"
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
go build -o "$STATE/learngate" ./cmd/learngate
LG="$STATE/learngate"

say "PostgreSQL database $DB, PgBouncer (transaction pooling) on :$PGB_PORT"
createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB"
DIRECT_URL="postgres://postgres@127.0.0.1:$PG_PORT/$DB?sslmode=disable"
scripts/pgbouncer.sh start "$PGB_PORT" "$DIRECT_URL" >"$STATE/logs/pgbouncer-start.log" 2>&1 ||
	{ cat "$STATE/logs/pgbouncer-start.log" >&2; die "PgBouncer did not start"; }
POOLED_URL="postgres://postgres@127.0.0.1:$PGB_PORT/$DB?sslmode=disable"

say "Redis Cluster: three masters on :$REDIS_BASE-$((REDIS_BASE + 2))"
scripts/redis-cluster.sh start "$REDIS_BASE" "$STATE/redis" >"$STATE/logs/redis-cluster-start.log" 2>&1 ||
	{ cat "$STATE/logs/redis-cluster-start.log" >&2; die "the Redis Cluster did not start"; }

export LEARNGATE_DATABASE_URL="$POOLED_URL"
export LEARNGATE_DATABASE_DIRECT_URL="$DIRECT_URL"
# E2E_REDIS_URL replaces the cluster URL (to try the harness with another form).
export LEARNGATE_REDIS_URL="${E2E_REDIS_URL:-redis+cluster://127.0.0.1:$REDIS_BASE,127.0.0.1:$((REDIS_BASE + 1)),127.0.0.1:$((REDIS_BASE + 2))}"
export LEARNGATE_OPS_TOKEN="e2e-ops-token-$$-$RANDOM"
export LEARNGATE_BASE_DOMAINS="e2e.test"
export LEARNGATE_PUBLIC_SCHEME=https
export LEARNGATE_TRUSTED_PROXIES=127.0.0.1
export LEARNGATE_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_SIGNING_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_BLOB_DIR="$STATE/blobs"
export LEARNGATE_WEBHOOK_ALLOW_PRIVATE=true
export LEARNGATE_SSO_ALLOW_PRIVATE=true
export LEARNGATE_MIGRATE_ON_START=false
export LEARNGATE_WORKER=false
export LEARNGATE_LOG_FORMAT=json
unset LEARNGATE_INSECURE_DEV LEARNGATE_S3_ENDPOINT

say "learngate migrate (through LEARNGATE_DATABASE_DIRECT_URL)"
"$LG" migrate >"$STATE/logs/migrate.log" 2>&1 || { tail -n 20 "$STATE/logs/migrate.log" >&2; die "migrate failed"; }

NODE_PIDS=()
for n in 0 1; do
	p=${NODE_PORTS[$n]}
	LEARNGATE_HTTP_ADDR="127.0.0.1:$p" LEARNGATE_OPS_ADDR="127.0.0.1:$((p + 1))" \
		LEARNGATE_TLS_ASK_ADDR="127.0.0.1:$((p + 2))" \
		"$LG" serve >"$STATE/logs/node$((n + 1)).log" 2>&1 &
	PIDS+=($!)
	NODE_PIDS+=($!)
done
# Two workers, so that "a periodic job runs once per cluster" is a claim
# about two candidates for River's leadership, not one.
for w in 1 2; do
	LEARNGATE_WORKER=true "$LG" worker >"$STATE/logs/worker$w.log" 2>&1 &
	PIDS+=($!)
done

ready() { [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$1")" == 200 ]]; }
for n in 0 1; do
	p=${NODE_PORTS[$n]}
	for ((i = 0; i < 150; i++)); do
		ready "http://127.0.0.1:$p/readyz" && break
		kill -0 "${NODE_PIDS[$n]}" 2>/dev/null || { tail -n 20 "$STATE/logs/node$((n + 1)).log" >&2; die "node $((n + 1)) stopped at start"; }
		sleep 0.1
	done
	ready "http://127.0.0.1:$p/readyz" || { tail -n 20 "$STATE/logs/node$((n + 1)).log" >&2; die "node $((n + 1)) not ready after 15 s"; }
done

say "Caddy on :$CADDY_HTTPS (deploy/Caddyfile with the e2e's global options)"
# The e2e Caddyfile is deploy/Caddyfile itself with local global options
# added at the top of its global block: the sites, the proxy's health checks,
# retries and the on-demand ask are the deployed ones (docs/operations.md).
mkdir -p "$STATE/caddy"
awk -v admin="127.0.0.1:$CADDY_ADMIN" -v http="$CADDY_HTTP" -v https="$CADDY_HTTPS" -v storage="$STATE/caddy/data" '
	!done && /^\{$/ {
		print
		print "\t# e2e only (scripts/e2e.sh): loopback ports, the local CA, nothing installed in the system"
		print "\tadmin " admin
		print "\thttp_port " http
		print "\thttps_port " https
		print "\tdefault_bind 127.0.0.1"
		print "\tlocal_certs"
		print "\tskip_install_trust"
		print "\tstorage file_system " storage
		done = 1
		next
	}
	{ print }' deploy/Caddyfile >"$STATE/caddy/Caddyfile"
grep -q 'local_certs' "$STATE/caddy/Caddyfile" || die "deploy/Caddyfile has no global options block to extend"
export CADDY_ASK_PORT="$CADDY_ASK"
export LEARNGATE_UPSTREAM_1="127.0.0.1:${NODE_PORTS[0]}" LEARNGATE_UPSTREAM_2="127.0.0.1:${NODE_PORTS[1]}"
export LEARNGATE_ASK_1="127.0.0.1:$((NODE_PORTS[0] + 2))" LEARNGATE_ASK_2="127.0.0.1:$((NODE_PORTS[1] + 2))"
HOME="$STATE/caddy" XDG_DATA_HOME="$STATE/caddy/data" XDG_CONFIG_HOME="$STATE/caddy/config" \
	caddy run --config "$STATE/caddy/Caddyfile" --adapter caddyfile >"$STATE/logs/caddy.log" 2>&1 &
CADDY_PID=$!
PIDS+=($CADDY_PID)
for ((i = 0; i < 100; i++)); do
	ready "http://127.0.0.1:$CADDY_ADMIN/config/" && break
	kill -0 "$CADDY_PID" 2>/dev/null || { tail -n 20 "$STATE/logs/caddy.log" >&2; die "Caddy stopped at start"; }
	sleep 0.1
done
ready "http://127.0.0.1:$CADDY_ADMIN/config/" || die "Caddy's admin API does not answer after 10 s"

say "up in $((SECONDS - start)) s; running the e2e test program (go test -tags e2e ./e2e/)"
export E2E_CADDY_ADDR="127.0.0.1:$CADDY_HTTPS"
export E2E_CADDY_ADMIN="http://127.0.0.1:$CADDY_ADMIN"
export E2E_CADDY_ROOT="$STATE/caddy/data/pki/authorities/local/root.crt"
export E2E_NODES="http://127.0.0.1:${NODE_PORTS[0]},http://127.0.0.1:${NODE_PORTS[1]}"
export E2E_OPS="http://127.0.0.1:$((NODE_PORTS[0] + 1)),http://127.0.0.1:$((NODE_PORTS[1] + 1))"
export E2E_ASK="http://127.0.0.1:$((NODE_PORTS[0] + 2)),http://127.0.0.1:$((NODE_PORTS[1] + 2))"
export E2E_NODE_PIDS="${NODE_PIDS[0]},${NODE_PIDS[1]}"
export E2E_LOGS="$STATE/logs"
export E2E_DIRECT_URL="$DIRECT_URL"
export E2E_REDIS_DIR="$STATE/redis"
export E2E_REDIS_ADDRS="127.0.0.1:$REDIS_BASE,127.0.0.1:$((REDIS_BASE + 1)),127.0.0.1:$((REDIS_BASE + 2))"
export E2E_REPORT="$STATE/report.txt"
status=0
go test -tags e2e -count=1 -timeout 4m -v ./e2e/ >"$STATE/logs/e2e-test.log" 2>&1 || status=1
grep -E -- '^(=== RUN|--- |\s+--- |ok|FAIL|PASS)|e2e_test.go|_test.go:[0-9]+:' "$STATE/logs/e2e-test.log" | grep -v '^=== RUN' || true
echo
cat "$E2E_REPORT" 2>/dev/null || echo "(no report: see $STATE/logs/e2e-test.log)"
say "finished in $((SECONDS - start)) s"
exit $status
