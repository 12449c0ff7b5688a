#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one after another, each for
# FUZZTIME (default 20s; a count such as 500x works too, as go test's
# -fuzztime). Targets are discovered with `go test -list '^Fuzz'`
# per package, so a new Fuzz function is picked up without editing this file.
# A failing target stops the run; its crasher is written under the package's
# testdata/fuzz/<target>/ by go test, to commit with the fix as a regression
# seed. With FUZZ_REPORT set, one row per target (executions, result) is
# appended to that file, as the soak results table. Usage: scripts/fuzz.sh [package pattern ...] (default ./...).
# PostgreSQL and Redis must be up (make services) for the handlers and store
# targets.
#
# A time budget can fail a target that found nothing: Go's fuzz
# coordinator races its own -fuzztime deadline and reports "context
# deadline exceeded" with no crasher written (golang/go#75804, fixed in Go
# 1.27). When a run fails that way (that message, no "Failing input
# written to", no new file under testdata/fuzz/<target>), the target is run
# again with a count budget (-fuzztime Nx, N the executions the first run
# reached, at least 20), which has no deadline to race, and that run's
# result counts. Any other failure fails at once.
set -euo pipefail

cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-20s}"
# Fuzzing workers; the default leaves the machine usable.
FUZZ_PARALLEL="${FUZZ_PARALLEL:-2}"
patterns=("$@")
[ ${#patterns[@]} -eq 0 ] && patterns=(./...)

total=0
while read -r pkg; do
	# A package whose tests do not build fails the run (its targets would
	# otherwise be skipped without a word).
	if ! list="$(go test -list '^Fuzz' "$pkg" 2>&1)"; then
		echo "== $pkg: the tests do not build, so its fuzz targets cannot run:"
		echo "$list"
		exit 1
	fi
	targets="$(printf '%s\n' "$list" | grep '^Fuzz' || true)"
	for target in $targets; do
		total=$((total + 1))
		echo "== $pkg $target ($FUZZTIME)"
		log="$(mktemp)"
		status=0
		dir="$(go list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$target"
		before="$(find "$dir" -type f 2>/dev/null | wc -l || true)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZ_PARALLEL" "$pkg" 2>&1 | tee "$log" || status=$?
		after="$(find "$dir" -type f 2>/dev/null | wc -l || true)"
		if [ "$status" -ne 0 ] && [ "$after" -eq "$before" ] && grep -q 'context deadline exceeded' "$log" &&
			! grep -q 'Failing input written to' "$log"; then
			execs="$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*' || true)"
			count=$(( ${execs:-0} > 20 ? ${execs:-0} : 20 ))
			echo "== $pkg $target: no crasher written, the coordinator's deadline race (golang/go#75804); again with -fuzztime ${count}x"
			status=0
			go test -run '^$' -fuzz "^${target}\$" -fuzztime "${count}x" -parallel "$FUZZ_PARALLEL" "$pkg" 2>&1 | tee "$log" || status=$?
		fi
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
