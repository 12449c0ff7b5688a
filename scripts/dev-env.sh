# shellcheck shell=bash
# make run's settings, sourced by scripts/run-dev.sh, scripts/learngate and
# scripts/demo-tenant.sh so that the CLI and `make demo-reset` reach the
# database and services `make run` uses. Every LEARNGATE_* setting here is
# only a default; the caller's environment wins. Expects ROOT (the
# repository) to be set.

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
export LEARNGATE_BLOB_DIR="${LEARNGATE_BLOB_DIR:-$ROOT/.data/blobs}"
export LEARNGATE_SIGNING_KEY="${LEARNGATE_SIGNING_KEY:-dev-signing-key-change-me-0123456789}"
# Webhook secrets are encrypted with the public development key unless LEARNGATE_SECRETS_KEY is set.
export LEARNGATE_INSECURE_DEV="${LEARNGATE_INSECURE_DEV:-true}"

# The binary make run builds, the demo tenant and its key file.
DEV_BIN="$ROOT/.data/bin/learngate"
DEMO_TENANT=demo
DEMO_KEY_FILE="$ROOT/.data/demo.key"
