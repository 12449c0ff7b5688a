#!/usr/bin/env bash
# Installs the pinned Node tools of tools/package.json (OpenAPI linters,
# client generators, TypeScript) into .data/node-tools with `npm ci`, once
# per version of tools/package-lock.json. Prints the folder of their
# commands (node_modules/.bin). Exit status 3 when npm is not installed.
#
#   scripts/node-tools.sh          install if needed, print the bin folder
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.data/node-tools"

if ! command -v npm >/dev/null 2>&1; then
	echo "node-tools.sh: npm is not installed" >&2
	exit 3
fi

# The lock file's hash marks an install as current.
want="$(sha256sum "$ROOT/tools/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$DIR/.lock-sha256" 2>/dev/null || true)" != "$want" || ! -d "$DIR/node_modules/.bin" ]]; then
	echo "node-tools.sh: npm ci in .data/node-tools (tools/package.json)" >&2
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp "$ROOT/tools/package.json" "$ROOT/tools/package-lock.json" "$DIR/"
	# No install scripts: none of these tools needs one (one would only report telemetry).
	(cd "$DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
	echo "$want" >"$DIR/.lock-sha256"
fi
echo "$DIR/node_modules/.bin"
