#!/usr/bin/env bash
# Tenant creation in a database of many tenants against creation in one of
# 10, side by side (docs/performance.md, "Many tenants": "Creation, side by
# side"). The two are created alternately, one at a time, by the real
# `learngate tenant create` (the registry's path: rows, schema and tenant
# migrations under the shared migration lock, record, activation), so any
# other load on the machine weighs on both alike. Each created tenant is
# deleted again at the end (`learngate tenant delete`), so the big
# database keeps exactly the tenants the many-tenants part built.
#
#   bench/creation-ab.sh [PAIRS]        default 20 pairs
#
# Environment: BIG_DB (default learngate_bench_tenants), SMALL_DB (default
# learngate_bench_tenants10, made with 10 tenants when missing), ADMIN_URL
# (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable),
# LG (default .data/bin/learngate-bench, built by make bench-tenants).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PAIRS="${1:-20}"
BIG_DB="${BIG_DB:-learngate_bench_tenants}"
SMALL_DB="${SMALL_DB:-learngate_bench_tenants10}"
ADMIN_URL="${ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
LG="${LG:-.data/bin/learngate-bench}"
[[ -x "$LG" ]] || go build -o "$LG" ./cmd/learngate

url_of() { echo "${ADMIN_URL/\/postgres\?//$1?}"; }
lg() { # lg DB ARGS...: the CLI with the bench's environment on database DB
	local db="$1"
	shift
	LEARNGATE_DATABASE_URL="$(url_of "$db")" LEARNGATE_REDIS_URL=redis://127.0.0.1:6379/14 \
		LEARNGATE_LOG_LEVEL=warn LEARNGATE_BASE_DOMAINS=learngate.localhost \
		LEARNGATE_SECRETS_KEY=YmVuY2gtc2VjcmV0cy1rZXktMDEyMzQ1Njc4OS1hYmNkZWY= "$LG" "$@"
}
count() { psql -X -qAt "$(url_of "$1")" -c "SELECT count(*) FROM public.tenants"; }

if ! psql -X -qAt "$ADMIN_URL" -c "SELECT 1 FROM pg_database WHERE datname = '$SMALL_DB'" | grep -q 1; then
	psql -X -q "$ADMIN_URL" -c "CREATE DATABASE $SMALL_DB"
	lg "$SMALL_DB" migrate >/dev/null
	for i in $(seq 1 10); do lg "$SMALL_DB" tenant create "ab-base-$i" >/dev/null; done
fi
echo "creation side by side: $BIG_DB ($(count "$BIG_DB") tenants) and $SMALL_DB ($(count "$SMALL_DB") tenants), $PAIRS pairs"

ms() { # ms DB SLUG: milliseconds to create SLUG in DB
	local t0 t1
	t0=$(date +%s%N)
	lg "$1" tenant create "$2" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
big=() small=()
for i in $(seq 1 "$PAIRS"); do
	if ((i % 2)); then
		big+=("$(ms "$BIG_DB" "ab-big-$i")") small+=("$(ms "$SMALL_DB" "ab-small-$i")")
	else
		small+=("$(ms "$SMALL_DB" "ab-small-$i")") big+=("$(ms "$BIG_DB" "ab-big-$i")")
	fi
done
for i in $(seq 1 "$PAIRS"); do
	lg "$BIG_DB" tenant delete "ab-big-$i" --confirm "ab-big-$i" >/dev/null
	lg "$SMALL_DB" tenant delete "ab-small-$i" --confirm "ab-small-$i" >/dev/null
done
p50() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
b=$(p50 "${big[@]}") s=$(p50 "${small[@]}")
echo "creation p50: $b ms at $(count "$BIG_DB") tenants, $s ms at $(count "$SMALL_DB"); ratio $(awk -v b="$b" -v s="$s" 'BEGIN {printf "%.2f", b/s}')x"
echo "each (ms), many: ${big[*]}"
echo "each (ms), 10:   ${small[*]}"
