#!/usr/bin/env bash
# A private Redis Cluster of three masters (no replicas) on 127.0.0.1, for tests and `make e2e`
# (docs/operations.md, "Redis").
#
#   scripts/redis-cluster.sh start BASE_PORT DIR   masters on BASE_PORT, BASE_PORT+1, BASE_PORT+2; state in DIR
#   scripts/redis-cluster.sh stop BASE_PORT DIR    stop them (only redis-servers started from DIR)
#   scripts/redis-cluster.sh restart-node PORT DIR stop one master and start it again (same data folder)
#
# On success `start` prints the LEARNGATE_REDIS_URL of the cluster:
#   redis+cluster://127.0.0.1:BASE_PORT,127.0.0.1:BASE_PORT+1,127.0.0.1:BASE_PORT+2
# Needs redis-server and redis-cli (Debian's redis-server package; installed with apt-get when
# missing, as root, unless LEARNGATE_NO_APT=1). Exit status: 0 ok, 1 failure, 2 usage, 3 Redis
# is not installed and cannot be.
set -euo pipefail

HOST=127.0.0.1

die() { printf 'redis-cluster.sh: %s\n' "$*" >&2; exit 1; }
usage() { printf 'usage: %s start BASE_PORT DIR | stop BASE_PORT DIR | restart-node PORT DIR\n' "$0" >&2; exit 2; }

is_root() { [[ "$(id -u)" == 0 ]]; }
apt_allowed() { [[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] && is_root && command -v apt-get >/dev/null 2>&1; }

ensure_installed() {
	command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && return 0
	if ! apt_allowed; then
		printf 'redis-cluster.sh: redis-server is not installed and apt-get may not be used (not root, or LEARNGATE_NO_APT=1)\n' >&2
		exit 3
	fi
	printf 'installing redis-server with apt-get ...\n' >&2
	{ apt-get install -y -qq --no-install-recommends redis-server || { apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends redis-server; }; } </dev/null >/dev/null 2>&1 ||
		{ printf 'redis-cluster.sh: apt-get install redis-server failed\n' >&2; exit 3; }
	hash -r
}

ping() { [[ "$(timeout 2 redis-cli -h "$HOST" -p "$1" ping 2>/dev/null </dev/null)" == PONG ]]; }

# start_node PORT DIR: one cluster-enabled redis-server, its files in DIR/PORT.
start_node() {
	local port="$1" dir="$2/$1" i
	mkdir -p "$dir"
	redis-server --port "$port" --bind "$HOST" --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" \
		--cluster-node-timeout 2000 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" \
		--pidfile "$dir/redis.pid" --daemonize yes </dev/null >/dev/null 2>&1 ||
		{ tail -n 20 "$dir/redis.log" >&2 || true; die "redis-server on port $port did not start"; }
	for ((i = 0; i < 50; i++)); do
		ping "$port" && return 0
		sleep 0.1
	done
	tail -n 20 "$dir/redis.log" >&2 || true
	die "redis-server on port $port did not answer within 5s (see $dir/redis.log)"
}

# stop_node PORT DIR: stop the redis-server whose pid file is DIR/PORT/redis.pid.
stop_node() {
	local pidfile="$2/$1/redis.pid" pid i
	[[ -f "$pidfile" ]] || return 0
	pid="$(tr -cd '0-9' <"$pidfile")"
	# Only signal a process that really is a redis-server on that port (the pid file may be stale).
	if [[ -n "$pid" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "redis-server.*:$1"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$pidfile"
}

start() {
	local base="$1" dir="$2" p i
	ensure_installed
	mkdir -p "$dir"
	local ports=("$base" "$((base + 1))" "$((base + 2))")
	for p in "${ports[@]}"; do
		ping "$p" && die "127.0.0.1:$p is already taken"
	done
	for p in "${ports[@]}"; do
		rm -f "$dir/$p/nodes.conf"
		start_node "$p" "$dir"
	done
	redis-cli --cluster create "$HOST:${ports[0]}" "$HOST:${ports[1]}" "$HOST:${ports[2]}" \
		--cluster-replicas 0 --cluster-yes </dev/null >"$dir/create.log" 2>&1 ||
		{ cat "$dir/create.log" >&2; stop "$base" "$dir"; die "redis-cli --cluster create failed"; }
	for ((i = 0; i < 100; i++)); do
		local ok=1
		for p in "${ports[@]}"; do
			[[ "$(redis-cli -h "$HOST" -p "$p" cluster info 2>/dev/null </dev/null | tr -d '\r' | sed -n 's/^cluster_state://p')" == ok ]] || ok=0
		done
		if ((ok)); then
			printf 'redis+cluster://%s:%s,%s:%s,%s:%s\n' "$HOST" "${ports[0]}" "$HOST" "${ports[1]}" "$HOST" "${ports[2]}"
			return 0
		fi
		sleep 0.1
	done
	stop "$base" "$dir"
	die "the cluster did not reach cluster_state:ok within 10s"
}

stop() {
	local base="$1" dir="$2" p
	for p in "$base" "$((base + 1))" "$((base + 2))"; do
		stop_node "$p" "$dir"
	done
}

restart_node() {
	local port="$1" dir="$2"
	[[ -f "$dir/$port/nodes.conf" ]] || die "no cluster node of port $port in $dir"
	stop_node "$port" "$dir"
	start_node "$port" "$dir"
}

[[ $# -eq 3 && "$2" =~ ^[0-9]+$ ]] || usage
case "$1" in
start) start "$2" "$3" ;;
stop) stop "$2" "$3" ;;
restart-node) restart_node "$2" "$3" ;;
*) usage ;;
esac
