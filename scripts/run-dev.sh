#!/usr/bin/env bash
# Run learngate locally: services up, database, build, migrate, demo tenant, serve.
# Every LEARNGATE_* setting below is only a default; the caller's environment wins.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v go >/dev/null 2>&1; then
	export PATH="$PATH:/usr/local/go/bin"
fi

PG_PORT="${LEARNGATE_PG_PORT:-5432}"
REDIS_PORT="${LEARNGATE_REDIS_PORT:-6379}"

export LEARNGATE_DATABASE_URL="${LEARNGATE_DATABASE_URL:-postgres://postgres@127.0.0.1:${PG_PORT}/learngate?sslmode=disable}"
export LEARNGATE_REDIS_URL="${LEARNGATE_REDIS_URL:-redis://127.0.0.1:${REDIS_PORT}/0}"
export LEARNGATE_OPS_TOKEN="${LEARNGATE_OPS_TOKEN:-dev-ops-token}"
export LEARNGATE_PUBLIC_SCHEME="${LEARNGATE_PUBLIC_SCHEME:-http}"
export LEARNGATE_LOG_FORMAT="${LEARNGATE_LOG_FORMAT:-text}"
export LEARNGATE_WEBHOOK_ALLOW_PRIVATE="${LEARNGATE_WEBHOOK_ALLOW_PRIVATE:-true}"
# A local identity provider (on 127.0.0.1, plain http) is allowed.
export LEARNGATE_SSO_ALLOW_PRIVATE="${LEARNGATE_SSO_ALLOW_PRIVATE:-true}"
export LEARNGATE_HTTP_ADDR="${LEARNGATE_HTTP_ADDR:-:8080}"
# Learners' links (invitation emails) name the port the node listens on.
export LEARNGATE_PUBLIC_PORT="${LEARNGATE_PUBLIC_PORT:-${LEARNGATE_HTTP_ADDR##*:}}"
export LEARNGATE_BLOB_DIR="${LEARNGATE_BLOB_DIR:-.data/blobs}"
export LEARNGATE_SIGNING_KEY="${LEARNGATE_SIGNING_KEY:-dev-signing-key-change-me-0123456789}"
# Webhook secrets are encrypted with the public development key unless LEARNGATE_SECRETS_KEY is set.
export LEARNGATE_INSECURE_DEV="${LEARNGATE_INSECURE_DEV:-true}"

BIN=.data/bin/learngate
KEY_FILE=.data/demo.key
TENANT=demo

scripts/services.sh up

# Create the database named in LEARNGATE_DATABASE_URL when it points at the local server.
db_url="$LEARNGATE_DATABASE_URL"
db_name="${db_url%%\?*}"
db_name="${db_name##*/}"
case "$db_url" in
*@127.0.0.1:"$PG_PORT"/* | *@localhost:"$PG_PORT"/* | */127.0.0.1:"$PG_PORT"/* | */localhost:"$PG_PORT"/*)
	scripts/services.sh db "${db_name:-learngate}"
	;;
*)
	echo "postgres: LEARNGATE_DATABASE_URL is not the local server; not creating a database"
	;;
esac

mkdir -p .data/bin "$LEARNGATE_BLOB_DIR"
echo "build: go build -o $BIN ./cmd/learngate"
go build -o "$BIN" ./cmd/learngate

"$BIN" migrate

# Demo tenant and its API key, kept in .data/demo.key.
key_ok() { [[ -s "$KEY_FILE" ]]; }
if "$BIN" tenant show "$TENANT" >/dev/null 2>&1; then
	if ! key_ok; then
		rm -f "$KEY_FILE"
		"$BIN" key create "$TENANT" --key-out "$KEY_FILE" >/dev/null
	fi
else
	# A key file left over from an older database belongs to a tenant that is gone.
	rm -f "$KEY_FILE"
	"$BIN" tenant create "$TENANT" --name Demo --key-out "$KEY_FILE" >/dev/null
fi
key_ok || { echo "run-dev.sh: no API key in $KEY_FILE" >&2; exit 1; }
API_KEY="$(head -n 1 "$KEY_FILE" | tr -d '[:space:]')"

http_port="${LEARNGATE_HTTP_ADDR##*:}"
ops_addr="${LEARNGATE_OPS_ADDR:-127.0.0.1:8081}"
ops_host="${ops_addr%:*}"
ops_port="${ops_addr##*:}"
case "$ops_host" in "" | 0.0.0.0 | "[::]") ops_host=127.0.0.1 ;; esac
base_domain="${LEARNGATE_BASE_DOMAINS:-learngate.localhost}"
base_domain="${base_domain%%,*}"
base_domain="${base_domain// /}"
base_url="${LEARNGATE_PUBLIC_SCHEME}://${TENANT}.${base_domain}:${http_port}/papi"

cat <<EOF

  learngate (dev)
  Public API : $base_url
  API key    : $API_KEY   (saved in $KEY_FILE)
  Ops API    : http://${ops_host}:${ops_port}/ops/v1   token: $LEARNGATE_OPS_TOKEN

  curl -H "Authorization: $API_KEY" $base_url/ping

EOF

exec "$BIN" serve
