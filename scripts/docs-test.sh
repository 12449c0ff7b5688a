#!/usr/bin/env bash
# make docs-test: the README's quick start and the tour of docs/operations.md, read from the Markdown
# (```sh tour blocks) and run as written in one bash, against make run's server, each answer shown
# after "# =>" checked (docs/shelldoc, TestDocsTour).
#
# It uses the server already answering on make run's port (LEARNGATE_HTTP_ADDR, default :8080), or starts
# scripts/run-dev.sh (make run, log in .data/docs-test/server.log) and stops it at the end. Before the
# tour it resets the demo tenant (make demo-reset) and offboards the tenants acme and beta that the tour
# makes and offboards (left over when an earlier run failed half way). It needs curl and jq, and
# 127.0.0.1:9999 free (the tour's webhook receiver); jq is installed with apt-get when missing, unless
# LEARNGATE_NO_APT=1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/dev-env.sh
source scripts/dev-env.sh

OUT=.data/docs-test
mkdir -p "$OUT"
port="${LEARNGATE_HTTP_ADDR##*:}"
say() { printf 'docs-test: %s\n' "$*"; }
die() { printf 'docs-test: %s\n' "$*" >&2; exit 1; }
started=$(date +%s)

if ! command -v jq >/dev/null 2>&1; then
	if [[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		say "installing jq with apt-get"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends jq; } \
			</dev/null >"$OUT/apt.log" 2>&1 || die "apt-get install jq failed (see $OUT/apt.log)"
	else
		die "the tour needs jq: apt-get install jq"
	fi
fi
command -v curl >/dev/null 2>&1 || die "the tour needs curl: apt-get install curl"
if (exec 3<>/dev/tcp/127.0.0.1/9999) 2>/dev/null; then
	die "127.0.0.1:9999 is taken: the tour's webhook receiver listens there"
fi

healthy() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:${port}/healthz"; }
server=""
stop_server() {
	if [[ -n "$server" ]]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
}
trap stop_server EXIT

if healthy; then
	say "using the server answering on :${port}"
else
	say "starting make run (scripts/run-dev.sh, log in $OUT/server.log)"
	scripts/run-dev.sh >"$OUT/server.log" 2>&1 &
	server=$!
	for _ in $(seq 600); do
		healthy && break
		kill -0 "$server" 2>/dev/null || { tail -n 30 "$OUT/server.log" >&2; die "make run stopped"; }
		sleep 0.5
	done
	healthy || { tail -n 30 "$OUT/server.log" >&2; die "make run did not answer on :${port} within 5 minutes"; }
fi

for slug in acme beta; do
	if scripts/learngate tenant show "$slug" >/dev/null 2>&1; then
		say "offboarding tenant $slug, left by an earlier run"
		scripts/learngate tenant delete "$slug" --confirm "$slug" >/dev/null
	fi
done
scripts/demo-tenant.sh reset >"$OUT/demo-reset.log" 2>&1 || { cat "$OUT/demo-reset.log" >&2; die "make demo-reset failed"; }

status=0
LEARNGATE_DOCS_TEST=1 go test -count=1 -timeout 10m -run '^TestDocsTour$' -v ./docs/shelldoc/ || status=$?

# The tour says where bob's invitation shows up and what it links to: make run's log, the tenant's /login
# page with the port. Checked when this script started the server (and so has its log).
if [[ -n "$server" ]]; then
	base_domain="${LEARNGATE_BASE_DOMAINS:-learngate.localhost}"
	base_domain="${base_domain%%,*}"
	want="Sign in at ${LEARNGATE_PUBLIC_SCHEME}://demo.${base_domain// /}:${port}/login with your user name: bob"
	for _ in $(seq 20); do
		grep -qF "$want" "$OUT/server.log" && break
		sleep 0.5
	done
	if grep -qF "$want" "$OUT/server.log"; then
		say "the invitation in make run's log: $want"
	else
		say "FAIL: make run's log has no invitation saying \"$want\" ($OUT/server.log)"
		status=1
	fi
fi
say "$(( $(date +%s) - started )) s in all"
exit "$status"
