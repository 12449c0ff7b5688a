#!/usr/bin/env bash
# make e2e-upgrade: a rolling upgrade under load (issue 31; docs/operations.md,
# "make e2e-upgrade"), from the previous release UPGRADE_FROM to the working
# tree, on 127.0.0.1:
#
#   build both binaries; a fresh database; the OLD binary's migrate; a tenant
#   made by the old binary and seeded by SQL (E2E_UPGRADE_USERS users with four
#   custom values each); then the Go test program of e2e/ (build tag
#   e2e_upgrade), which starts and stops every learngate process itself and
#   runs a mixed load of four clients through the phases
#   (a) old nodes, (b) the new binary's migrate under load, (c) old and new
#   side by side, (d) old drained and stopped, (e) an old node back (rollback).
#
# It ends with `upgrade: requests=N errors=E max_stall_ms=S` and exits
# non-zero when E > 0 or S > 1000 (issue 31's target: no request fails, no
# tenant stalls over 1 s).
#
# Every process is stopped on exit: the test stops those it started, and
# this script's trap stops any the test left (their pids in $STATE/pids,
# checked against the binary's path). The database is dropped and the Redis
# database emptied; every port is on 127.0.0.1; every wait is bounded.
#
# Environment: UPGRADE_FROM (the previous release, a commit or tag; default
# bb18b49, the Makefile sets it), LEARNGATE_PG_PORT (default 5432),
# LEARNGATE_REDIS_PORT (default 6379), E2E_UPGRADE_BASE_PORT (first of the
# ten ports used, default a free block from 24000), E2E_UPGRADE_USERS (default
# 50000), E2E_UPGRADE_PHASE_SECONDS (load per phase, default 5), E2E_KEEP=1
# (keep .data/e2e-upgrade after a passing run; always kept after a failure).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/local/go/bin"

FROM="${UPGRADE_FROM:-bb18b49}"
PG_PORT="${LEARNGATE_PG_PORT:-5432}"
REDIS_PORT="${LEARNGATE_REDIS_PORT:-6379}"
REDIS_DB=11
USERS="${E2E_UPGRADE_USERS:-50000}"
STATE="$ROOT/.data/e2e-upgrade"
# Old binaries are kept between runs, one per commit (a build takes about 30 s).
BIN_CACHE="$ROOT/.data/e2e-upgrade-bin"
say() { printf 'e2e-upgrade: [%3d s] %s\n' "$SECONDS" "$*"; }
die() { printf 'e2e-upgrade: %s\n' "$*" >&2; exit 1; }

command -v psql >/dev/null 2>&1 || die "psql is missing (make services installs PostgreSQL)"
command -v redis-cli >/dev/null 2>&1 || die "redis-cli is missing (make services installs Redis)"
[[ "$USERS" =~ ^[0-9]+$ && "$USERS" -ge 100 ]] || die "E2E_UPGRADE_USERS must be a number of users, at least 100"
FROM_SHA="$(git rev-parse --verify --quiet "$FROM^{commit}")" || die "UPGRADE_FROM=$FROM is not a commit of this repository"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
block_free() {
	local p
	for p in "$@"; do port_free "$p" || return 1; done
}
BASE="${E2E_UPGRADE_BASE_PORT:-}"
if [[ -z "$BASE" ]]; then
	BASE=24000
	for ((i = 0; i < 40; i++)); do
		block_free $(seq "$BASE" $((BASE + 9))) && break
		BASE=$((BASE + 100))
	done
fi

rm -rf "$STATE"
mkdir -p "$STATE/logs" "$STATE/blobs" "$STATE/pids" "$BIN_CACHE"
DB="learngate_e2eupg_$$"
CLEANUP_DONE=""
REPORTED=""
cleanup() {
	local status=$?
	[[ -n "$CLEANUP_DONE" ]] && return
	CLEANUP_DONE=1
	set +e
	# Processes the test program started and did not stop (it was killed):
	# only those still running one of this run's two binaries.
	local f pid exe i
	for f in "$STATE"/pids/*; do
		[[ -e "$f" ]] || continue
		pid="$(basename "$f")"
		exe="$(readlink "/proc/$pid/exe" 2>/dev/null)"
		[[ "$exe" == "$STATE/learngate-old" || "$exe" == "$STATE/learngate-new" ]] || continue
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	done
	dropdb --if-exists --force -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB" 2>/dev/null
	redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -n "$REDIS_DB" flushdb >/dev/null 2>&1
	if [[ $status -ne 0 ]]; then
		[[ -n "$REPORTED" ]] || say "FAILED; logs are in $STATE/logs"
	elif [[ "${E2E_KEEP:-}" != 1 ]]; then
		rm -rf "$STATE"
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "from $FROM (${FROM_SHA:0:12}) to the working tree; ports from $BASE on 127.0.0.1; state in $STATE"
scripts/services.sh up >/dev/null

OLD_CACHED="$BIN_CACHE/learngate-$FROM_SHA"
if [[ ! -x "$OLD_CACHED" ]]; then
	say "go build ./cmd/learngate at $FROM (git archive into $STATE/src-old)"
	mkdir -p "$STATE/src-old"
	git archive "$FROM_SHA" | tar -x -C "$STATE/src-old"
	(cd "$STATE/src-old" && go build -o "$OLD_CACHED.tmp" ./cmd/learngate) >"$STATE/logs/build-old.log" 2>&1 ||
		{ tail -n 20 "$STATE/logs/build-old.log" >&2; die "building $FROM failed"; }
	mv "$OLD_CACHED.tmp" "$OLD_CACHED"
	rm -rf "$STATE/src-old"
fi
cp "$OLD_CACHED" "$STATE/learngate-old"
say "go build ./cmd/learngate (working tree)"
go build -o "$STATE/learngate-new" ./cmd/learngate
OLD="$STATE/learngate-old"

redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -n "$REDIS_DB" flushdb >/dev/null || die "Redis on :$REDIS_PORT does not answer"
createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB"
DB_URL="postgres://postgres@127.0.0.1:$PG_PORT/$DB?sslmode=disable"

export LEARNGATE_DATABASE_URL="$DB_URL"
export LEARNGATE_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/$REDIS_DB"
export LEARNGATE_OPS_TOKEN="e2e-upgrade-ops-token-$$-$RANDOM"
export LEARNGATE_BASE_DOMAINS="e2eu.test"
export LEARNGATE_PUBLIC_SCHEME=http
export LEARNGATE_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_SIGNING_KEY="$(head -c 32 /dev/urandom | base64)"
export LEARNGATE_BLOB_DIR="$STATE/blobs"
export LEARNGATE_MIGRATE_ON_START=false
export LEARNGATE_WORKER=false
export LEARNGATE_SHUTDOWN_GRACE=10s
export LEARNGATE_LOG_FORMAT=json
unset LEARNGATE_INSECURE_DEV LEARNGATE_S3_ENDPOINT LEARNGATE_DATABASE_DIRECT_URL LEARNGATE_TLS_ASK_ADDR \
	LEARNGATE_TRUSTED_PROXIES LEARNGATE_HTTP_ADDR LEARNGATE_OPS_ADDR LEARNGATE_WORKER_METRICS_ADDR

say "learngate migrate (old binary)"
"$OLD" migrate >"$STATE/logs/migrate-old.log" 2>&1 || { tail -n 20 "$STATE/logs/migrate-old.log" >&2; die "old migrate failed"; }
SLUG=upg
"$OLD" tenant create "$SLUG" --name "Upgrade e2e" --rate-limit 1000000 --key-out "$STATE/$SLUG.key" \
	>"$STATE/logs/tenant-create.log" 2>&1 || { tail -n 20 "$STATE/logs/tenant-create.log" >&2; die "old tenant create failed"; }
SCHEMA="$(sed -n 's/^created tenant .* (schema \(tenant_[0-9]*\))$/\1/p' "$STATE/logs/tenant-create.log")"
[[ -n "$SCHEMA" ]] || { cat "$STATE/logs/tenant-create.log" >&2; die "no schema in the old binary's tenant create answer"; }

say "seeding $SCHEMA: $USERS users, $((USERS * 4)) custom values, 2 topics, $((USERS / 5)) enrolments (SQL)"
seed_start=$SECONDS
psql -X -q -v ON_ERROR_STOP=1 -v schema="$SCHEMA" -v users="$USERS" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$DB" \
	>"$STATE/logs/seed.log" 2>&1 <<'SQL' || { tail -n 20 "$STATE/logs/seed.log" >&2; die "seeding failed"; }
SET search_path = :"schema";
BEGIN;
-- The four kinds of custom field the x- filters treat differently.
INSERT INTO custom_fields (name, field_type, options) VALUES
    ('City', 'string', '{}'), ('Level', 'number', '{}'), ('Start', 'date', '{}'),
    ('Team', 'list', '{Blue,Gold,Green,Red}');
-- seed1 is the oldest; one second apart, so the list order is fixed.
INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
SELECT 'seed' || i, 'Seed', 'User ' || i, 'seed' || i || '@upgrade.example', 'UTC',
       now() - (:users - i) * interval '1 second', now() - (:users - i) * interval '1 second'
FROM generate_series(1, :users) i;
INSERT INTO user_custom_values (user_id, field_id, value)
SELECT u.id, f.id, CASE f.name
        WHEN 'City' THEN 'City ' || (u.id % 500)
        WHEN 'Level' THEN (u.id % 100)::text
        WHEN 'Start' THEN to_char(date '2020-01-01' + (u.id % 1000)::int, 'YYYY-MM-DD')
        ELSE (ARRAY['Blue', 'Gold', 'Green', 'Red'])[u.id % 4 + 1]
    END
FROM users u CROSS JOIN custom_fields f;
INSERT INTO topics (title) VALUES ('Upgrade one'), ('Upgrade two');
INSERT INTO enrolment_codes (code, topic_id) SELECT 'UPG-' || id, id FROM topics;
INSERT INTO topic_enrolments (user_id, topic_id, enrolled_by)
SELECT u.id, (SELECT min(id) FROM topics), 'api' FROM users u WHERE u.id % 5 = 0;
COMMIT;
ANALYZE;
SQL
values="$(psql -X -qtA -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$DB" -c "SELECT count(*) FROM $SCHEMA.user_custom_values")"
say "seeded in $((SECONDS - seed_start)) s: $values custom values"

say "running the test program (go test -tags e2e_upgrade ./e2e/)"
export E2EU_OLD_BIN="$OLD" E2EU_NEW_BIN="$STATE/learngate-new"
export E2EU_BASE_PORT="$BASE"
export E2EU_LOGS="$STATE/logs" E2EU_PIDS="$STATE/pids" E2EU_REPORT="$STATE/report.txt"
export E2EU_TENANT="$SLUG" E2EU_KEY="$(head -n 1 "$STATE/$SLUG.key" | tr -d '[:space:]')"
export E2EU_USERS="$USERS"
export E2EU_PHASE_SECONDS="${E2E_UPGRADE_PHASE_SECONDS:-5}"
export E2EU_FROM="$FROM"
status=0
go test -tags e2e_upgrade -count=1 -timeout 5m -v -run '^TestUpgrade$' ./e2e/ >"$STATE/logs/e2e-upgrade-test.log" 2>&1 || status=1
grep -E -- '^(--- |\s+--- |ok|FAIL|PASS)|_test.go:[0-9]+:' "$STATE/logs/e2e-upgrade-test.log" || true
say "finished in $SECONDS s"
[[ $status -eq 0 ]] || say "FAILED; logs are in $STATE/logs"
echo
# The report ends with the line `upgrade: requests=N errors=E max_stall_ms=S`.
REPORTED=1
cat "$E2EU_REPORT" 2>/dev/null || { REPORTED=""; echo "(no report: see $STATE/logs/e2e-upgrade-test.log)"; }
exit $status
