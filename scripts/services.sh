#!/usr/bin/env bash
# Development services for learngate: PostgreSQL and Redis on 127.0.0.1.
#
#   scripts/services.sh up        make sure PostgreSQL and Redis answer and poppler-utils (the certificate
#                                 tests' pdftoppm, pdftotext) is installed (idempotent, fast when they are)
#   scripts/services.sh db NAME   create database NAME if it does not exist
#   scripts/services.sh down      stop the private PostgreSQL/Redis started from .data (never system services)
#   scripts/services.sh clean     down, then remove .data
#
# Environment:
#   LEARNGATE_PG_PORT=5432        PostgreSQL port to check/start (other values are handy for testing)
#   LEARNGATE_REDIS_PORT=6379     Redis port to check/start
#   LEARNGATE_NO_APT=1            never install packages with apt-get
#   LEARNGATE_NO_SYSTEM_PG=1      do not try to start the Debian system cluster; go straight to .data
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

HOST=127.0.0.1
PG_PORT="${LEARNGATE_PG_PORT:-5432}"
REDIS_PORT="${LEARNGATE_REDIS_PORT:-6379}"
DATA="$ROOT/.data"
PGDATA_DIR="$DATA/postgres"
PG_LOG="$DATA/postgres.log"
REDIS_PID="$DATA/redis.pid"
REDIS_LOG="$DATA/redis.log"

export DEBIAN_FRONTEND=noninteractive
export PGCONNECT_TIMEOUT="${PGCONNECT_TIMEOUT:-5}"

say() { printf '%s\n' "$*"; }
warn() { printf '%s\n' "$*" >&2; }
die() { printf 'services.sh: %s\n' "$*" >&2; exit 1; }

is_root() { [[ "$(id -u)" == 0 ]]; }

apt_allowed() { [[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] && is_root && command -v apt-get >/dev/null 2>&1; }

apt_install() {
	warn "installing $* with apt-get ..."
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } </dev/null >"$DATA/apt.log" 2>&1 ||
		{ tail -n 20 "$DATA/apt.log" >&2; die "apt-get install $* failed (see $DATA/apt.log)"; }
}

# ---------------------------------------------------------------- PostgreSQL

pg_ready() { pg_isready -q -h "$HOST" -p "$PG_PORT" -t 2 >/dev/null 2>&1; }

pg_can_login() { psql -X -q -h "$HOST" -p "$PG_PORT" -U postgres -d postgres -tAc 'select 1' </dev/null >/dev/null 2>&1; }

# Directory holding initdb/pg_ctl; prefers the major version the data folder was made with.
pg_bindir() {
	local want="" d
	[[ -f "$PGDATA_DIR/PG_VERSION" ]] && want="$(cat "$PGDATA_DIR/PG_VERSION")"
	if [[ -n "$want" && -x "/usr/lib/postgresql/$want/bin/pg_ctl" ]]; then
		echo "/usr/lib/postgresql/$want/bin"
		return
	fi
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
	if [[ -n "$d" && -x "$d/pg_ctl" ]]; then
		echo "$d"
		return
	fi
	if command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v pg_ctl)"
		return
	fi
	if command -v pg_config >/dev/null 2>&1 && [[ -x "$(pg_config --bindir)/pg_ctl" ]]; then
		pg_config --bindir
		return
	fi
	return 1
}

# Run a PostgreSQL server binary as the postgres user (they refuse to run as root).
as_pg() {
	if is_root; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# True when the postgres user can create files in dir $1.
pg_can_write() {
	if is_root; then
		runuser -u postgres -- test -w "$1" -a -x "$1" 2>/dev/null
	else
		test -w "$1" -a -x "$1"
	fi
}

# Start the Debian system cluster when its port is the one we want.
try_system_cluster() {
	[[ -n "${LEARNGATE_NO_SYSTEM_PG:-}" && "${LEARNGATE_NO_SYSTEM_PG}" != 0 ]] && return 1
	[[ -d /etc/postgresql ]] || return 1
	command -v pg_ctlcluster >/dev/null 2>&1 || return 1
	local ver port out
	ver="$(ls /etc/postgresql | head -n 1)"
	[[ -n "$ver" && -f "/etc/postgresql/$ver/main/postgresql.conf" ]] || return 1
	port="$(sed -n 's/^[[:space:]]*port[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' "/etc/postgresql/$ver/main/postgresql.conf" | tail -n 1)"
	[[ "${port:-5432}" == "$PG_PORT" ]] || return 1
	if ! out="$(pg_ctlcluster --skip-systemctl-redirect "$ver" main start 2>&1 </dev/null)"; then
		warn "postgres: system cluster $ver/main did not start: ${out//$'\n'/ }"
	fi
	local i
	for ((i = 0; i < 20; i++)); do
		pg_ready && break
		sleep 0.5
	done
	pg_ready || return 1
	# A fresh Debian cluster asks for a password over TCP; the dev setup wants trust on 127.0.0.1.
	if ! pg_can_login; then
		local hba="/etc/postgresql/$ver/main/pg_hba.conf"
		if [[ -w "$hba" ]] && ! grep -q '^# learngate dev: trust 127.0.0.1' "$hba"; then
			warn "postgres: allowing passwordless connections from 127.0.0.1 in $hba (dev machine)"
			local tmp
			tmp="$(mktemp)"
			{
				echo '# learngate dev: trust 127.0.0.1'
				echo 'host all all 127.0.0.1/32 trust'
				cat "$hba"
			} >"$tmp"
			cat "$tmp" >"$hba"
			rm -f "$tmp"
			pg_ctlcluster --skip-systemctl-redirect "$ver" main reload </dev/null >/dev/null 2>&1 || true
			sleep 1
		fi
	fi
	say "postgres: started system cluster $ver/main"
	return 0
}

# The cluster lives in .data/postgres. When the postgres user cannot reach the repository (say it sits
# under /root, mode 700), it lives in /tmp/learngate-pg-HASH/{data,postgres.log} instead and
# .data/postgres points there. Sets PGD (data folder) and PGL (log file) to paths the postgres user can open.
resolve_pg_paths() {
	PGD="$PGDATA_DIR"
	PGL="$PG_LOG"
	if [[ -L "$PGDATA_DIR" ]]; then
		PGD="$(readlink -f "$PGDATA_DIR")"
		PGL="$(dirname "$PGD")/postgres.log"
	fi
}

prepare_pg_dir() {
	[[ -e "$PGDATA_DIR" || -L "$PGDATA_DIR" ]] && return 0
	mkdir -p "$PGDATA_DIR"
	if is_root; then
		chown postgres: "$PGDATA_DIR"
	fi
	chmod 700 "$PGDATA_DIR"
	if pg_can_write "$PGDATA_DIR"; then
		return 0
	fi
	rmdir "$PGDATA_DIR"
	local alt
	alt="${TMPDIR:-/tmp}/learngate-pg-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
	warn "postgres: the postgres user cannot reach $DATA; keeping the cluster in $alt"
	mkdir -p "$alt/data"
	chmod 755 "$alt"
	if is_root; then
		chown postgres: "$alt/data"
	fi
	chmod 700 "$alt/data"
	ln -sfn "$alt/data" "$PGDATA_DIR"
	ln -sfn "$alt/postgres.log" "$PG_LOG"
}

start_private_pg() {
	local bindir
	if ! bindir="$(pg_bindir)"; then
		if apt_allowed; then
			apt_install postgresql
			# The package may have created and started its own cluster.
			if pg_ready; then
				say "postgres: installed and running"
				return 0
			fi
			if try_system_cluster; then
				return 0
			fi
			bindir="$(pg_bindir)" || die "postgres: no PostgreSQL binaries found even after apt-get install postgresql"
		else
			die "postgres: not reachable on $HOST:$PG_PORT and no PostgreSQL binaries (initdb/pg_ctl) found; install postgresql"
		fi
	fi
	if is_root && ! id postgres >/dev/null 2>&1; then
		die "postgres: initdb refuses to run as root and there is no 'postgres' user; create one (useradd -r -m postgres) or run as a normal user"
	fi

	prepare_pg_dir
	resolve_pg_paths

	if [[ ! -f "$PGD/PG_VERSION" ]]; then
		local initlog="$DATA/initdb.log"
		if ! as_pg "$bindir/initdb" -D "$PGD" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
			</dev/null >"$initlog" 2>&1; then
			# Minimal systems may lack the C.UTF-8 locale; initdb wants an empty folder to retry.
			find "$PGD" -mindepth 1 -delete 2>/dev/null || true
			as_pg "$bindir/initdb" -D "$PGD" -U postgres --auth=trust -E UTF8 --no-locale \
				</dev/null >"$initlog" 2>&1 || { tail -n 20 "$initlog" >&2; die "postgres: initdb failed (see $initlog)"; }
		fi
		{
			echo ""
			echo "# learngate dev cluster"
			echo "listen_addresses = '$HOST'"
			echo "port = $PG_PORT"
			echo "unix_socket_directories = '/tmp'"
			echo "fsync = off"
			echo "synchronous_commit = off"
			echo "full_page_writes = off"
			echo "max_connections = 200"
		} >>"$PGD/postgresql.conf"
	fi

	if [[ ! -e "$PGL" ]]; then
		touch "$PGL"
	fi
	if is_root; then
		chown postgres: "$PGL"
	fi
	# Address and port go on the command line too, so LEARNGATE_PG_PORT always wins.
	if ! as_pg "$bindir/pg_ctl" -D "$PGD" -l "$PGL" -w -t 30 \
		-o "-c listen_addresses=$HOST -c port=$PG_PORT -c unix_socket_directories=/tmp" start \
		</dev/null >/dev/null 2>&1; then
		tail -n 20 "$PGL" >&2 || true
		die "postgres: private cluster in .data/postgres did not start on $HOST:$PG_PORT within 30s (see .data/postgres.log)"
	fi
	local i
	for ((i = 0; i < 60; i++)); do
		pg_ready && break
		sleep 0.5
	done
	pg_ready || { tail -n 20 "$PGL" >&2 || true; die "postgres: not ready on $HOST:$PG_PORT after 30s (see .data/postgres.log)"; }
	# Also allow `psql` as root without -U, like on the usual dev machine.
	psql -X -q -h "$HOST" -p "$PG_PORT" -U postgres -d postgres -c \
		"DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'root') THEN CREATE ROLE root SUPERUSER LOGIN; END IF; END \$\$;" \
		</dev/null >/dev/null 2>&1 || true
	say "postgres: started (.data)"
}

pg_up() {
	if pg_ready; then
		say "postgres: already running"
	elif try_system_cluster; then
		:
	else
		start_private_pg
	fi
	pg_can_login || warn "postgres: WARNING: cannot connect to $HOST:$PG_PORT as user postgres without a password"
}

# ---------------------------------------------------------------- Redis

redis_ready() {
	if command -v redis-cli >/dev/null 2>&1; then
		[[ "$(timeout 3 redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null </dev/null)" == PONG ]]
	else
		timeout 3 bash -c '
			exec 3<>"/dev/tcp/$1/$2" || exit 1
			printf "PING\r\n" >&3
			IFS= read -r line <&3 || exit 1
			[[ "$line" == +PONG* ]]' _ "$HOST" "$REDIS_PORT" 2>/dev/null
	fi
}

redis_up() {
	if redis_ready; then
		say "redis: already running"
		return
	fi
	if ! command -v redis-server >/dev/null 2>&1; then
		apt_allowed || die "redis: not reachable on $HOST:$REDIS_PORT and redis-server is not installed (apt-get install redis-server)"
		apt_install redis-server
		hash -r
		command -v redis-server >/dev/null 2>&1 || die "redis: redis-server still missing after apt-get install"
		# The package may have started its own server.
		local i
		for ((i = 0; i < 4; i++)); do
			redis_ready && { say "redis: installed and running"; return; }
			sleep 0.5
		done
	fi
	redis-server --daemonize yes --bind "$HOST" --port "$REDIS_PORT" --save "" --appendonly no \
		--dir "$DATA" --logfile "$REDIS_LOG" --pidfile "$REDIS_PID" </dev/null >/dev/null 2>&1 ||
		{ tail -n 20 "$REDIS_LOG" >&2 || true; die "redis: redis-server failed to start (see .data/redis.log)"; }
	local i
	for ((i = 0; i < 40; i++)); do
		redis_ready && { say "redis: started (.data)"; return; }
		sleep 0.25
	done
	tail -n 20 "$REDIS_LOG" >&2 || true
	die "redis: not answering on $HOST:$REDIS_PORT after 10s (see .data/redis.log)"
}

# ---------------------------------------------------------------- test tools

# The certificate tests rasterise and read back PDFs with poppler-utils
# (pdftoppm, pdftotext). Without apt they skip, saying so (certificate/raster_test.go).
tools_up() {
	command -v pdftoppm >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1 && return 0
	if ! apt_allowed; then
		warn "poppler-utils: pdftoppm/pdftotext missing and apt-get not allowed: the certificate image tests will skip"
		return 0
	fi
	apt_install poppler-utils
	say "poppler-utils: installed"
}

# ---------------------------------------------------------------- down / clean

pg_down() {
	resolve_pg_paths
	[[ -f "$PGD/postmaster.pid" ]] || return 0
	local bindir
	bindir="$(pg_bindir)" || { warn "postgres: cannot find pg_ctl to stop .data/postgres"; return 1; }
	if as_pg "$bindir/pg_ctl" -D "$PGD" -m fast -w -t 30 stop </dev/null >/dev/null 2>&1; then
		say "postgres: stopped (.data)"
	else
		say "postgres: .data cluster was not running"
	fi
}

redis_down() {
	[[ -f "$REDIS_PID" ]] || return 0
	local pid i
	pid="$(tr -cd '0-9' <"$REDIS_PID")"
	# Only signal the process if it really is a redis-server (the pid file may be stale).
	if [[ -n "$pid" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'redis-server'; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 40; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
		say "redis: stopped (.data)"
	fi
	rm -f "$REDIS_PID"
}

down() {
	[[ -d "$DATA" ]] || return 0
	pg_down
	redis_down
}

clean() {
	down
	if [[ -L "$PGDATA_DIR" ]]; then
		local target
		target="$(dirname "$(readlink "$PGDATA_DIR")")"
		if [[ "$(basename "$target")" == learngate-pg-* ]]; then
			rm -rf -- "$target"
		fi
	fi
	rm -rf -- "$DATA"
	say "removed .data"
}

# ---------------------------------------------------------------- db

create_db() {
	local name="$1"
	pg_ready || die "postgres: not reachable on $HOST:$PG_PORT (run scripts/services.sh up)"
	local exists
	exists="$(psql -X -h "$HOST" -p "$PG_PORT" -U postgres -d postgres -tA -v ON_ERROR_STOP=1 -v name="$name" \
		<<<"SELECT 1 FROM pg_database WHERE datname = :'name';")" || die "postgres: cannot query databases as user postgres"
	if [[ "$exists" == 1 ]]; then
		say "postgres: database $name exists"
	else
		createdb -h "$HOST" -p "$PG_PORT" -U postgres "$name" </dev/null || die "postgres: createdb $name failed"
		say "postgres: database $name created"
	fi
}

usage() {
	warn "usage: $0 up | db NAME | down | clean"
	exit 2
}

cmd="${1:-}"
case "$cmd" in
up)
	mkdir -p "$DATA"
	pg_up
	redis_up
	tools_up
	;;
db)
	[[ $# -eq 2 && -n "$2" ]] || usage
	create_db "$2"
	;;
down) down ;;
clean) clean ;;
*) usage ;;
esac
