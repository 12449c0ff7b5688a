#!/usr/bin/env bash
# make clients: proves docs/openapi.yaml with four real client generators,
# none of them patched or told to ignore anything.
#
#  1. TypeScript: openapi-typescript generates .data/clients/ts/schema.d.ts
#     (for openapi-fetch) and @hey-api/openapi-ts the SDK in
#     .data/clients/ts/hey; tsc compiles both smoke tests (clients/ts) against
#     them, each with a misspelt batch row under @ts-expect-error, so a typed
#     row that accepted the typo would fail the compile.
#  2. Go: oapi-codegen generates package lgapi and ogen package ogenapi (go run
#     at pinned versions) in clients/go (a module of its own, gitignored
#     output); go vet, go build of both smoke tests, and clients/go/typocheck,
#     which must not compile (a misspelt batch row in each client).
#  3. A real server: go build ./cmd/learngate, a fresh database, one
#     organisation per client (learngate tenant create), learngate serve on
#     127.0.0.1 with its worker; then each smoke test runs against it: a user,
#     a batch with a row error, a list walked by its Link header, a signed
#     webhook verified.
#
# Every process it starts is stopped, and the database dropped, on exit.
# Environment: LEARNGATE_PG_PORT (default 5432), LEARNGATE_CLIENTS_PORT (the
# server's port; default a free one from 20000 up).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/local/go/bin"

OAPI_CODEGEN=github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
OGEN=github.com/ogen-go/ogen/cmd/ogen@v1.24.0
OUT="$ROOT/.data/clients"
PG_PORT="${LEARNGATE_PG_PORT:-5432}"

start=$SECONDS
# say prints a step with the seconds since the start.
say() { printf 'clients: [%3d s] %s\n' "$((SECONDS - start))" "$*"; }
die() { printf 'clients: %s\n' "$*" >&2; exit 1; }
# generated fails unless a generator made every operation of the document:
# generated <generator> <operations found in its output> <operations wanted>.
generated() {
	[[ "$2" -eq "$3" ]] || die "$1 generated $2 of the document's $3 operations"
	say "$1: $2 of $3 operations generated"
}

command -v npm >/dev/null 2>&1 || die "npm is needed (Node.js tools of tools/package.json)"
BIN="$(scripts/node-tools.sh)"
rm -rf "$OUT"
mkdir -p "$OUT/ts" "$OUT/blobs"

TS_PID=""
SERVER_PID=""
DB=""
cleanup() {
	local status=$?
	for pid in "$TS_PID" "$SERVER_PID"; do
		if [[ -n "$pid" ]]; then
			# The background TypeScript step is a subshell: its children (node) first.
			pkill -TERM -P "$pid" 2>/dev/null || true
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	if [[ -n "$DB" ]]; then
		dropdb --if-exists -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB" 2>/dev/null || true
		say "server stopped, database $DB dropped"
	fi
	if [[ $status -ne 0 && -s "$OUT/server.log" ]]; then
		echo "clients: FAILED; the server's log ends:" >&2
		tail -n 20 "$OUT/server.log" >&2
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The TypeScript clients are generated and compiled in the background while
# the Go ones are (Node.js takes one core, go build the rest).
say "TypeScript: openapi-typescript and @hey-api/openapi-ts docs/openapi.yaml, tsc (in the background, .data/clients/ts.log)"
cp clients/ts/package.json clients/ts/tsconfig.json clients/ts/openapi-ts.config.mjs clients/ts/*.ts "$OUT/ts/"
ln -s "$ROOT/.data/node-tools/node_modules" "$OUT/ts/node_modules"
# Run from the output folder: openapi-typescript would otherwise apply the
# repository's redocly.yaml, whose exceptions (.redocly.lint-ignore.yaml) it does not read.
(cd "$OUT/ts" &&
	"$BIN/openapi-typescript" "$ROOT/docs/openapi.yaml" -o schema.d.ts --silent &&
	"$BIN/openapi-ts" -f openapi-ts.config.mjs -i "$ROOT/docs/openapi.yaml" --silent &&
	"$BIN/tsc" -p tsconfig.json) >"$OUT/ts.log" 2>&1 &
TS_PID=$!

say "Go: oapi-codegen and ogen docs/openapi.yaml, go vet, go build"
(cd clients/go &&
	go run "$OAPI_CODEGEN" -config oapi-codegen.yaml ../../docs/openapi.yaml &&
	{ go run "$OGEN" --config ogen.yml --target ogenapi --package ogenapi --clean ../../docs/openapi.yaml >"$OUT/ogen.log" 2>&1 ||
		{ cat "$OUT/ogen.log" >&2; exit 1; }; } &&
	go vet ./... &&
	go build -o "$OUT/go-smoke" ./smoke &&
	go build -o "$OUT/ogen-smoke" ./ogensmoke)
say "ogen: $(grep -c WARN "$OUT/ogen.log" || true) warnings in .data/clients/ogen.log (header spelling, patterns on date-times)"

# Every operation generated: the paths' (clients) and the webhooks' (event types, receivers).
PATH_OPS=$(sed -n '/^paths:/,/^webhooks:/p' docs/openapi.yaml | grep -c 'operationId:')
ALL_OPS=$(grep -c 'operationId:' docs/openapi.yaml)
generated "oapi-codegen (request builders, paths and webhooks)" \
	"$(grep -o '^func New[A-Za-z0-9]*Request\(WithBody\)\?(' clients/go/lgapi/lgapi.gen.go | sed 's/WithBody(/(/' | sort -u | wc -l)" "$ALL_OPS"
generated "ogen (client methods, paths)" "$(grep -c '^func (c \*Client) [A-Z][A-Za-z0-9]*(ctx context.Context' clients/go/ogenapi/oas_client_gen.go)" "$PATH_OPS"
generated "ogen (webhook handler methods)" "$(grep -c '^	[A-Z][A-Za-z0-9]*(ctx context.Context, req \*' clients/go/ogenapi/oas_server_gen.go)" "$((ALL_OPS - PATH_OPS))"

say "Go: a misspelt batch row must not compile (clients/go/typocheck)"
if (cd clients/go && go build -tags typocheck ./typocheck) >"$OUT/typocheck.log" 2>&1; then
	die "clients/go/typocheck compiled: a batch row accepted a misspelt field"
fi
for client in lgapi ogenapi; do
	grep -q "unknown field FristName in struct literal of type $client.BatchUserRow" "$OUT/typocheck.log" ||
		{ cat "$OUT/typocheck.log" >&2; die "$client: the misspelt batch row failed for another reason"; }
done

say "server: go build ./cmd/learngate"
go build -o "$OUT/learngate" ./cmd/learngate

if ! wait "$TS_PID"; then
	TS_PID=""
	cat "$OUT/ts.log" >&2
	die "TypeScript: generating or compiling failed"
fi
TS_PID=""
say "TypeScript: both clients generated, the smoke tests compiled"
generated "openapi-typescript (operations, paths and webhooks)" \
	"$(sed -n '/^export interface operations {/,$p' "$OUT/ts/schema.d.ts" | grep -c '^    [A-Za-z0-9]*: {$')" "$ALL_OPS"
generated "@hey-api/openapi-ts (SDK functions, paths)" "$(grep -c '^export const [A-Za-z0-9]* = <ThrowOnError' "$OUT/ts/hey/sdk.gen.ts")" "$PATH_OPS"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT="${LEARNGATE_CLIENTS_PORT:-}"
if [[ -z "$PORT" ]]; then
	PORT=$((20000 + $$ % 20000))
	while ! port_free "$PORT" || ! port_free $((PORT + 1)); do PORT=$((PORT + 2)); done
fi
DB="learngate_clients_$$"

say "database $DB on 127.0.0.1:$PG_PORT"
createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DB"
unset LEARNGATE_REDIS_URL LEARNGATE_SECRETS_KEY
export LEARNGATE_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$DB?sslmode=disable"
export LEARNGATE_HTTP_ADDR="127.0.0.1:$PORT" LEARNGATE_OPS_ADDR="127.0.0.1:$((PORT + 1))"
export LEARNGATE_OPS_TOKEN="clients-smoke-ops-token" LEARNGATE_BASE_DOMAINS="learngate.localhost"
export LEARNGATE_PUBLIC_SCHEME=http LEARNGATE_BLOB_DIR="$OUT/blobs" LEARNGATE_LOG_FORMAT=text
export LEARNGATE_INSECURE_DEV=true LEARNGATE_WEBHOOK_ALLOW_PRIVATE=true LEARNGATE_SSO_ALLOW_PRIVATE=true LEARNGATE_WORKER=true

"$OUT/learngate" migrate >"$OUT/migrate.log" 2>&1 || { cat "$OUT/migrate.log" >&2; die "migrate failed"; }
for org in tsclient heyclient goclient ogenclient; do
	"$OUT/learngate" tenant create "$org" --key-out "$OUT/$org.key" >/dev/null
done

say "server: learngate serve on 127.0.0.1:$PORT"
"$OUT/learngate" serve >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
	if node -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
		"http://127.0.0.1:$PORT/readyz"; then
		break
	fi
	kill -0 "$SERVER_PID" 2>/dev/null || die "the server stopped at start"
	sleep 0.1
done
kill -0 "$SERVER_PID" 2>/dev/null || die "the server stopped at start"

say "TypeScript smoke test (openapi-typescript, openapi-fetch)"
node "$OUT/ts/dist/smoke.js" "http://127.0.0.1:$PORT" tsclient.learngate.localhost "$(head -n 1 "$OUT/tsclient.key")"
say "TypeScript smoke test (@hey-api/openapi-ts)"
node "$OUT/ts/dist/hey-smoke.js" "http://127.0.0.1:$PORT" heyclient.learngate.localhost "$(head -n 1 "$OUT/heyclient.key")"
say "Go smoke test (oapi-codegen)"
"$OUT/go-smoke" -url "http://127.0.0.1:$PORT" -host goclient.learngate.localhost -key "$(head -n 1 "$OUT/goclient.key")"
say "Go smoke test (ogen)"
"$OUT/ogen-smoke" -url "http://127.0.0.1:$PORT" -host ogenclient.learngate.localhost -key "$(head -n 1 "$OUT/ogenclient.key")"
say "the four smoke tests passed"
echo "clients: 4 passed, 0 failed"
