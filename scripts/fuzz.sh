#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after another, each for
# FUZZTIME (default 20s). Targets are discovered with `go test -list '^Fuzz'`
# per package, so a new Fuzz function is picked up without editing this file.
# A failing target stops the run; its crasher is written under the package's
# testdata/fuzz/<target>/ by go test, to commit with the fix as a regression
# seed. Usage: scripts/fuzz.sh [package pattern ...] (default ./...).
# PostgreSQL and Redis must be up (make services) for the handlers and store
# targets.
set -euo pipefail

cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-20s}"
# Fuzzing workers; the default leaves the machine usable.
FUZZ_PARALLEL="${FUZZ_PARALLEL:-2}"
patterns=("$@")
[ ${#patterns[@]} -eq 0 ] && patterns=(./...)

total=0
while read -r pkg; do
	targets="$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)"
	for target in $targets; do
		total=$((total + 1))
		echo "== $pkg $target ($FUZZTIME)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZ_PARALLEL" "$pkg"
	done
done < <(go list "${patterns[@]}")
echo "fuzzed $total targets for $FUZZTIME each"
