#!/usr/bin/env bash
# A Citus cluster on 127.0.0.1 for tests (DECISIONS section 20, deploy/README.md
# "Beyond one PostgreSQL"): a coordinator and two workers, each its own
# PostgreSQL cluster under .data/citus, with schema-based sharding on.
#
#   scripts/citus-cluster.sh up      install Citus if missing, make and start the three nodes (idempotent)
#   scripts/citus-cluster.sh down    stop them
#   scripts/citus-cluster.sh clean   down, then remove .data/citus
#   scripts/citus-cluster.sh url     print the coordinator's URL (database learngate_citus)
#   scripts/citus-cluster.sh kill NAME   stop node NAME (coordinator, worker1, worker2) at once (-m immediate)
#   scripts/citus-cluster.sh start NAME  start node NAME again
#
# Environment:
#   CITUS_SRC=path/to/citus-13.0.5.tar.gz   source tarball built when PostgreSQL has no Citus
#   CITUS_PORT=5450                         the coordinator's port; the workers take the next two
#   CITUS_DIR=.data/citus                   where the three nodes' data and logs live
#   LEARNGATE_NO_APT=1                      never install build dependencies with apt-get
#
# Citus (AGPL-3.0) runs as separate database servers; learngate never links it.
# Building it takes about 4 minutes on 2 cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${CITUS_DIR:-$ROOT/.data/citus}"
PORT="${CITUS_PORT:-5450}"
PORTS=("$PORT" "$((PORT + 1))" "$((PORT + 2))")
NAMES=(coordinator worker1 worker2)
DB=learngate_citus

say() { printf 'citus-cluster.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
is_root() { [[ "$(id -u)" == 0 ]]; }
apt_allowed() { [[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] && is_root && command -v apt-get >/dev/null 2>&1; }

bindir() {
	local d
	d="$(pg_config --bindir 2>/dev/null || true)"
	[[ -x "$d/initdb" ]] || d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	[[ -x "$d/initdb" ]] || die "no PostgreSQL server binaries (initdb) found"
	echo "$d"
}

# as_pg runs a command as the postgres user when we are root (initdb refuses root).
as_pg() {
	if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

has_citus() { [[ -f "$(pg_config --pkglibdir 2>/dev/null)/citus.so" ]]; }

install_citus() {
	has_citus && return 0
	[[ -n "${CITUS_SRC:-}" && -f "${CITUS_SRC}" ]] || die "PostgreSQL has no Citus and CITUS_SRC names no source tarball"
	if apt_allowed; then
		say "installing Citus's build dependencies with apt-get ..."
		local pkgs=(postgresql-server-dev-all libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev make gcc)
		apt-get install -y -qq --no-install-recommends "${pkgs[@]}" </dev/null >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" </dev/null >/dev/null; }
	fi
	command -v pg_config >/dev/null || die "pg_config missing: install postgresql-server-dev-<version>"
	local build
	build="$(mktemp -d)"
	say "building Citus from ${CITUS_SRC} in $build (about 4 minutes) ..."
	tar xzf "$CITUS_SRC" -C "$build"
	(cd "$build"/citus-* && ./configure >"$build/configure.log" 2>&1 && make -j2 with_llvm=no >"$build/make.log" 2>&1 &&
		make install with_llvm=no >"$build/install.log" 2>&1) || die "Citus build failed: see $build/*.log"
	rm -rf "$build"
	has_citus || die "Citus still missing after the build"
}

listening() { timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }

psql_at() { # psql_at PORT DB SQL
	psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -d "$2" -tAc "$3"
}

start_node() { # start_node NAME PORT
	local name="$1" port="$2" data="$DIR/$1" bin
	bin="$(bindir)"
	if [[ ! -f "$data/PG_VERSION" ]]; then
		mkdir -p "$data"
		is_root && chown postgres "$DIR" "$data"
		as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust >"$DIR/$name-initdb.log" 2>&1 || die "initdb $name failed"
		cat >>"$data/postgresql.conf" <<-EOF
			port = $port
			listen_addresses = '127.0.0.1'
			unix_socket_directories = '$data'
			shared_preload_libraries = 'citus'
			citus.enable_schema_based_sharding = on
			max_connections = 200
			max_prepared_transactions = 200
			fsync = off
			full_page_writes = off
			# Online moves of a tenant schema (citus_schema_move) use logical replication.
			wal_level = logical
			max_wal_senders = 10
			max_replication_slots = 10
		EOF
	fi
	if ! listening "$port"; then
		as_pg "$bin/pg_ctl" -D "$data" -l "$DIR/$name.log" -w -t 60 start >/dev/null || die "$name did not start: see $DIR/$name.log"
	fi
}

up() {
	install_citus
	mkdir -p "$DIR"
	for i in 0 1 2; do start_node "${NAMES[$i]}" "${PORTS[$i]}"; done
	for p in "${PORTS[@]}"; do
		if [[ -z "$(psql_at "$p" postgres "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]]; then
			psql_at "$p" postgres "CREATE DATABASE $DB"
		fi
		psql_at "$p" "$DB" "CREATE EXTENSION IF NOT EXISTS citus"
	done
	psql_at "${PORTS[0]}" "$DB" "SELECT citus_set_coordinator_host('127.0.0.1', ${PORTS[0]})" >/dev/null
	for p in "${PORTS[1]}" "${PORTS[2]}"; do
		if [[ -z "$(psql_at "${PORTS[0]}" "$DB" "SELECT 1 FROM pg_dist_node WHERE nodeport = $p")" ]]; then
			psql_at "${PORTS[0]}" "$DB" "SELECT citus_add_node('127.0.0.1', $p)" >/dev/null
		fi
	done
	# A cluster made before the setting was added keeps its postgresql.conf.
	for p in "${PORTS[1]}" "${PORTS[2]}"; do
		# Commits are synchronous (the default; fsync stays off): with
		# synchronous_commit = off a tenant move loses the writes of its last
		# moments, and learngate refuses to move (deploy/README.md).
		if [[ "$(psql_at "$p" postgres "SHOW synchronous_commit")" == off ]]; then
			psql_at "$p" postgres "ALTER SYSTEM SET synchronous_commit = on" >/dev/null
			psql_at "$p" postgres "SELECT pg_reload_conf()" >/dev/null
			say "node :$p: synchronous_commit set on (it was off; tenant moves need it)"
		fi
		if [[ "$(psql_at "$p" postgres "SHOW wal_level")" != logical ]]; then
			say "warning: node :$p has wal_level $(psql_at "$p" postgres "SHOW wal_level"); online moves need logical: $0 clean, then up"
		fi
	done
	say "coordinator 127.0.0.1:${PORTS[0]}, workers :${PORTS[1]} and :${PORTS[2]} ($(psql_at "${PORTS[0]}" "$DB" "SELECT extversion FROM pg_extension WHERE extname = 'citus'"))"
}

down() {
	local bin
	bin="$(bindir)"
	for name in "${NAMES[@]}"; do
		[[ -f "$DIR/$name/postmaster.pid" ]] && as_pg "$bin/pg_ctl" -D "$DIR/$name" -m fast -w stop >/dev/null || true
	done
}

port_of() { # port_of NAME
	local i
	for i in 0 1 2; do [[ "${NAMES[$i]}" == "$1" ]] && { echo "${PORTS[$i]}"; return; }; done
	die "no node named '$1' (coordinator, worker1, worker2)"
}

# kill_node stops one node the way a crash would (no checkpoint, clients cut off).
kill_node() {
	port_of "$1" >/dev/null
	[[ -f "$DIR/$1/postmaster.pid" ]] || die "$1 is not running"
	as_pg "$(bindir)/pg_ctl" -D "$DIR/$1" -m immediate -w -t 30 stop >/dev/null
}

case "${1:-}" in
up) up ;;
down) down ;;
clean) down; rm -rf "$DIR" ;;
url) echo "postgres://postgres@127.0.0.1:${PORTS[0]}/$DB?sslmode=disable" ;;
kill) kill_node "${2:-}" ;;
start) start_node "${2:-}" "$(port_of "${2:-}")" ;;
*) printf 'usage: %s up|down|clean|url|kill NAME|start NAME\n' "$0" >&2; exit 2 ;;
esac
