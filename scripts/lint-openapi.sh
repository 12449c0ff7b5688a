#!/usr/bin/env bash
# Lints docs/openapi.yaml with Redocly CLI (redocly.yaml, .redocly.lint-ignore.yaml)
# and Spectral (.spectral.yaml), both pinned in tools/package.json. Fails on any
# error and on any Spectral warning. Skipped, with a message, when npm is absent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v npm >/dev/null 2>&1; then
	echo "lint-openapi: npm not on PATH, Redocly and Spectral skipped"
	exit 0
fi
BIN="$(scripts/node-tools.sh)"
# No telemetry, no update check.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

echo "redocly lint docs/openapi.yaml"
# Redocly prints a banner about Node.js versions on stderr; keep only its findings.
"$BIN/redocly" lint docs/openapi.yaml --format=stylish 2>&1 | grep -v -e '║' -e '╔' -e '╚' | grep -v '^[[:space:]]*$'
echo "spectral lint docs/openapi.yaml"
"$BIN/spectral" lint docs/openapi.yaml --ruleset .spectral.yaml --fail-severity=warn
