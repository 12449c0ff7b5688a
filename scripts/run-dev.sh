#!/usr/bin/env bash
# Run learngate locally: services up, database, build, migrate, demo tenant, serve.
# The settings are scripts/dev-env.sh's: every LEARNGATE_* setting there is only a
# default; the caller's environment wins. scripts/learngate runs the CLI with them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/dev-env.sh
source scripts/dev-env.sh

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
echo "build: go build -o ${DEV_BIN#"$ROOT"/} ./cmd/learngate"
go build -o "$DEV_BIN" ./cmd/learngate

"$DEV_BIN" migrate

# The demo tenant and its API key, kept in .data/demo.key (make demo-reset starts it afresh).
scripts/demo-tenant.sh ensure

exec "$DEV_BIN" serve
