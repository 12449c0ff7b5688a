#!/usr/bin/env bash
# Renders a page in headless Chromium, as a person's browser would:
#
#   scripts/browser-test.sh URL DOM_FILE PNG_FILE [SHOT_URL]
#
# writes the rendered DOM of URL (after the page's scripts ran) to DOM_FILE
# and a 1280x2000 screenshot of SHOT_URL (default URL) to PNG_FILE.
# handlers/docs_browser_test.go calls it for the API reference page (/docs)
# and checks the DOM.
#
# It installs nothing: a browser is chromium, chromium-browser or
# google-chrome on PATH, which `make browser-install`
# (scripts/browser-install.sh) provides on Debian.
#
# Exit status: 0 done; 3 no browser on PATH (printed with SKIP, the caller
# skips the test visibly); anything else a failure.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
	echo "usage: $0 URL DOM_FILE PNG_FILE [SHOT_URL]" >&2
	exit 2
fi
url=$1 dom=$2 png=$3 shot_url=${4:-$1}

skip() { echo "SKIP: $*"; exit 3; }

find_browser() {
	local b
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

browser=$(find_browser) || skip "no chromium, chromium-browser or google-chrome on PATH: run make browser-install (scripts/browser-install.sh)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$png")" "$(dirname "$dom")"

# --virtual-time-budget lets the page's scripts fetch the document and render
# before the DOM is dumped; nothing but the server under test is reached.
run() {
	local profile=$1
	shift
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
		--user-data-dir="$work/$profile" --virtual-time-budget=20000 "$@"
}

if ! run dom --dump-dom "$url" >"$dom" 2>"$work/dom.log"; then
	tail -n 20 "$work/dom.log" >&2
	echo "browser-test.sh: chromium --dump-dom $url failed" >&2
	exit 1
fi
if ! run shot --hide-scrollbars --window-size=1280,2000 --screenshot="$png" "$shot_url" >"$work/shot.log" 2>&1; then
	tail -n 20 "$work/shot.log" >&2
	echo "browser-test.sh: chromium --screenshot $shot_url failed" >&2
	exit 1
fi
echo "browser-test.sh: $(wc -c <"$dom") bytes of DOM, screenshot $png"
