#!/usr/bin/env bash
# Renders a page in headless Chromium, as a person's browser would:
#
#   scripts/browser-test.sh URL DOM_FILE PNG_FILE [SHOT_URL]
#
# writes the rendered DOM of URL (after the page's scripts ran) to DOM_FILE
# and a 1280x2000 screenshot of SHOT_URL (default URL) to PNG_FILE. handlers/docs_browser_test.go calls it
# for the API reference page (/docs) and checks the DOM; `make test` runs
# that test, so a fresh clone installs what it needs here.
#
# Chromium is Debian's `chromium` package, installed with apt-get when it is
# missing (root only; LEARNGATE_NO_APT=1 forbids it).
#
# Exit status: 0 done; 3 no browser could be had (printed with SKIP, the
# caller skips the test visibly); anything else a failure.
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

if ! browser=$(find_browser); then
	[[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] || skip "no chromium on PATH and LEARNGATE_NO_APT is set"
	[[ "$(id -u)" == 0 ]] || skip "no chromium on PATH, and installing it needs root (apt-get install chromium)"
	command -v apt-get >/dev/null 2>&1 || skip "no chromium on PATH and no apt-get to install it"
	echo "browser-test.sh: installing chromium with apt-get ..." >&2
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	if ! { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
		apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
		tail -n 5 "$log"
		rm -f "$log"
		skip "apt-get install chromium failed (no network to the Debian mirror?)"
	fi
	rm -f "$log"
	browser=$(find_browser) || skip "chromium was installed but is not on PATH"
fi

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
