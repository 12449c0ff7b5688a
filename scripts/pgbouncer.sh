#!/usr/bin/env bash
# A private PgBouncer in transaction pooling mode in front of a PostgreSQL,
# for tests and `make e2e` (docs/operations.md, "PgBouncer").
#
#   scripts/pgbouncer.sh start PORT PG_URL [DIR]   run PgBouncer on 127.0.0.1:PORT for the server of PG_URL
#   scripts/pgbouncer.sh stop PORT [DIR]           stop the PgBouncer started with that PORT (and DIR)
#
# PG_URL is a postgres:// URL (user, host and port are read from it; any database name is
# forwarded). DIR holds the configuration, the pid file and the log (default
# ${TMPDIR:-/tmp}/learngate-pgbouncer-PORT). Clients connect to
# postgres://USER@127.0.0.1:PORT/DBNAME?sslmode=disable.
#
# Installs Debian's pgbouncer with apt-get when it is missing (as root, unless LEARNGATE_NO_APT=1).
# Exit status: 0 ok, 1 failure, 2 usage, 3 pgbouncer is not installed and cannot be.
set -euo pipefail

die() { printf 'pgbouncer.sh: %s\n' "$*" >&2; exit 1; }
usage() { printf 'usage: %s start PORT PG_URL [DIR] | stop PORT [DIR]\n' "$0" >&2; exit 2; }

is_root() { [[ "$(id -u)" == 0 ]]; }
apt_allowed() { [[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] && is_root && command -v apt-get >/dev/null 2>&1; }

pgbouncer_bin() {
	command -v pgbouncer 2>/dev/null || { [[ -x /usr/sbin/pgbouncer ]] && echo /usr/sbin/pgbouncer; }
}

ensure_installed() {
	[[ -n "$(pgbouncer_bin)" ]] && return 0
	if ! apt_allowed; then
		printf 'pgbouncer.sh: pgbouncer is not installed and apt-get may not be used (not root, or LEARNGATE_NO_APT=1)\n' >&2
		exit 3
	fi
	printf 'installing pgbouncer with apt-get ...\n' >&2
	local log
	log="$(mktemp)"
	if ! { apt-get install -y -qq --no-install-recommends pgbouncer || { apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends pgbouncer; }; } </dev/null >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		rm -f "$log"
		printf 'pgbouncer.sh: apt-get install pgbouncer failed\n' >&2
		exit 3
	fi
	rm -f "$log"
	# The package starts a system service on port 6432; it is not ours and is left alone.
	[[ -n "$(pgbouncer_bin)" ]] || { printf 'pgbouncer.sh: pgbouncer still missing after apt-get install\n' >&2; exit 3; }
}

# parse_url URL: sets PG_USER, PG_HOST, PG_PORT from postgres://user[:password]@host[:port]/...
parse_url() {
	local re='^postgres(ql)?://([^:@/]+)(:[^@/]*)?@([^:/?]+)(:([0-9]+))?(/.*)?$'
	[[ "$1" =~ $re ]] || die "PG_URL must look like postgres://user@host:port/db, got $1"
	PG_USER="${BASH_REMATCH[2]}"
	PG_HOST="${BASH_REMATCH[4]}"
	PG_PORT="${BASH_REMATCH[6]:-5432}"
}

# listening PORT: true when something accepts connections on 127.0.0.1:PORT.
listening() { timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }

start() {
	local port="$1" url="$2" dir="$3"
	ensure_installed
	parse_url "$url"
	listening "$port" && die "127.0.0.1:$port is already taken"
	mkdir -p "$dir"
	# PgBouncer refuses to run as root: it then runs as the postgres user, who must own DIR.
	local runas=()
	if is_root; then
		id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user for PgBouncer to run as"
		runas=(-u postgres)
	fi
	printf '"%s" ""\n' "$PG_USER" >"$dir/userlist.txt"
	cat >"$dir/pgbouncer.ini" <<EOF
; learngate test PgBouncer (scripts/pgbouncer.sh): transaction pooling, every database forwarded.
[databases]
* = host=$PG_HOST port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
pool_mode = transaction
auth_type = trust
auth_file = $dir/userlist.txt
max_client_conn = 500
default_pool_size = 20
max_db_connections = 40
; lib/pq sends extra_float_digits at start-up, which PgBouncer does not track.
ignore_startup_parameters = extra_float_digits
server_reset_query =
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
admin_users = $PG_USER
EOF
	rm -f "$dir/pgbouncer.pid"
	if is_root; then
		chown -R postgres: "$dir"
	fi
	"$(pgbouncer_bin)" -d "${runas[@]}" "$dir/pgbouncer.ini" </dev/null >"$dir/start.log" 2>&1 ||
		{ cat "$dir/start.log" "$dir/pgbouncer.log" >&2 2>/dev/null || true; die "pgbouncer did not start"; }
	local i
	for ((i = 0; i < 50; i++)); do
		listening "$port" && { printf 'pgbouncer: transaction pooling on 127.0.0.1:%s for %s:%s\n' "$port" "$PG_HOST" "$PG_PORT"; return 0; }
		sleep 0.1
	done
	tail -n 20 "$dir/pgbouncer.log" >&2 || true
	die "pgbouncer is not listening on 127.0.0.1:$port after 5s (see $dir/pgbouncer.log)"
}

stop() {
	local port="$1" dir="$2" pid i
	[[ -f "$dir/pgbouncer.pid" ]] || return 0
	pid="$(tr -cd '0-9' <"$dir/pgbouncer.pid")"
	# Only signal a process that really is this PgBouncer (the pid file may be stale).
	if [[ -n "$pid" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "pgbouncer.*$dir/pgbouncer.ini"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
		printf 'pgbouncer: stopped (port %s)\n' "$port"
	fi
	rm -f "$dir/pgbouncer.pid"
}

cmd="${1:-}"
case "$cmd" in
start)
	[[ $# -ge 3 && $# -le 4 && "$2" =~ ^[0-9]+$ ]] || usage
	start "$2" "$3" "${4:-${TMPDIR:-/tmp}/learngate-pgbouncer-$2}"
	;;
stop)
	[[ $# -ge 2 && $# -le 3 && "$2" =~ ^[0-9]+$ ]] || usage
	stop "$2" "${3:-${TMPDIR:-/tmp}/learngate-pgbouncer-$2}"
	;;
*) usage ;;
esac
