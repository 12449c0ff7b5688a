#!/usr/bin/env bash
# The slow test tier (make test-slow): the tests that live in files with
# the build tag `slow` (first line `//go:build slow`), and only those, run
# with -tags slow so that they compile. The fast tier (make test) builds
# without the tag, so it never sees them. Which tests are slow is read
# from the files: each top-level Test function of a slow file, per
# package, passed to one `go test` as a -run pattern, so that the fast
# tests of the same packages do not run a second time.
# Usage: scripts/test-slow.sh [go test flags ...] (e.g. -race -count=1).
# With SLOW_LIST=1 it prints the packages and tests and runs nothing.
set -euo pipefail

cd "$(dirname "$0")/.."

declare -A names_by_dir=()
while IFS= read -r file; do
	dir="$(dirname "$file")"
	names="$(grep -o '^func \(Test\|Example\)[A-Za-z0-9_]*' "$file" | sed 's/^func //' | grep -vx TestMain || true)"
	[ -n "$names" ] || continue
	names_by_dir["$dir"]+="$names"$'\n'
done < <(grep -rl --include='*_test.go' -E '^//go:build .*\bslow\b' . | grep -v -e '^./bench/' -e '^./.data/' | sort)

if [ ${#names_by_dir[@]} -eq 0 ]; then
	echo "no slow tests"
	exit 0
fi

# One pattern for every package: ^(A|B|...)$ matches the top-level tests
# and all their subtests. A name that is slow in one package and also a
# fast test's name in another would run that fast test again too; the
# list below shows what runs.
pkgs=()
all=()
for dir in $(printf '%s\n' "${!names_by_dir[@]}" | sort); do
	pkgs+=("$dir/")
	mapfile -t names < <(printf '%s' "${names_by_dir[$dir]}" | sort -u)
	all+=("${names[@]}")
	if [ "${SLOW_LIST:-}" = 1 ]; then
		echo "$dir: ${names[*]}"
	fi
done
[ "${SLOW_LIST:-}" = 1 ] && exit 0
mapfile -t all < <(printf '%s\n' "${all[@]}" | sort -u)
pattern="^($(IFS='|'; echo "${all[*]}"))\$"
echo "slow tier: ${#all[@]} tests in ${#pkgs[@]} packages (SLOW_LIST=1 $0 lists them)"
exec go test -tags slow "$@" -run "$pattern" "${pkgs[@]}"
