#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after another, each for
# FUZZTIME (default 20s). Targets are discovered with `go test -list '^Fuzz'`
# per package, so a new Fuzz function is picked up without editing this file.
# A failing target stops the run; its crasher is written under the package's
# testdata/fuzz/<target>/ by go test, to commit with the fix as a regression
# seed. With FUZZ_REPORT set, one row per target (executions, result) is
# appended to that file, as the soak results table. Usage: scripts/fuzz.sh [package pattern ...] (default ./...).
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
		log="$(mktemp)"
		status=0
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZ_PARALLEL" "$pkg" 2>&1 | tee "$log" || status=$?
		if [ -n "${FUZZ_REPORT:-}" ]; then
			# One row in the columns of the soak results table (soak/main_test.go).
			execs="$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*' || true)"
			result=PASS
			[ "$status" -ne 0 ] && result=FAIL
			printf '%-34s %9s %9d %12s %10s %s\n' "fuzz ${target}" "${execs:-0}" "$((status != 0))" - - "$result" >>"$FUZZ_REPORT"
		fi
		rm -f "$log"
		[ "$status" -eq 0 ] || exit "$status"
	done
done < <(go list "${patterns[@]}")
echo "fuzzed $total targets for $FUZZTIME each"
