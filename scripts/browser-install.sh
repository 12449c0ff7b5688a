#!/usr/bin/env bash
# Installs the headless browser of the browser test (TestReferencePageInBrowser,
# docs/operations.md "API reference and contract tests"): Debian's `chromium`
# package, with apt-get, when no chromium, chromium-browser or google-chrome
# is on PATH. `make browser-install` runs it; `go test` never installs
# anything (scripts/browser-test.sh skips the test when there is no browser).
#
# Needs root and apt-get; LEARNGATE_NO_APT=1 forbids the install.
# Exit status: 0 a browser is on PATH; 1 none could be installed (the reason
# is printed).
set -euo pipefail

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

fail() { echo "browser-install.sh: $*" >&2; exit 1; }

if browser=$(find_browser); then
	echo "browser-install.sh: $browser is installed"
	exit 0
fi
[[ -z "${LEARNGATE_NO_APT:-}" || "${LEARNGATE_NO_APT}" == 0 ]] || fail "no chromium on PATH and LEARNGATE_NO_APT is set"
[[ "$(id -u)" == 0 ]] || fail "no chromium on PATH, and installing it needs root (sudo apt-get install chromium)"
command -v apt-get >/dev/null 2>&1 || fail "no chromium on PATH and no apt-get to install it"
echo "browser-install.sh: installing chromium with apt-get ..." >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
	apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
	tail -n 5 "$log" >&2
	fail "apt-get install chromium failed (no network to the Debian mirror?)"
fi
browser=$(find_browser) || fail "chromium was installed but is not on PATH"
echo "browser-install.sh: installed $browser"
