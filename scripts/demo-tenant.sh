#!/usr/bin/env bash
# The demo tenant of `make run`, in the database make run uses (scripts/dev-env.sh).
#
#   scripts/demo-tenant.sh ensure   create it with a key in .data/demo.key when missing (make run)
#   scripts/demo-tenant.sh reset    delete it with all its data and create it afresh (make demo-reset)
#
# Both print its URL and key. reset migrates the database first (it must exist: make run makes it)
# and waits, when a server answers on make run's port, until that server knows the new key.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/dev-env.sh
source "$ROOT/scripts/dev-env.sh"

mode="${1:-}"
case "$mode" in ensure | reset) ;; *)
	echo "usage: scripts/demo-tenant.sh ensure|reset" >&2
	exit 2
	;;
esac

if [[ ! -x "$DEV_BIN" ]]; then
	echo "build: go build -o ${DEV_BIN#"$ROOT"/} ./cmd/learngate"
	mkdir -p "$(dirname "$DEV_BIN")"
	(cd "$ROOT" && go build -o "$DEV_BIN" ./cmd/learngate)
fi
mkdir -p "$LEARNGATE_BLOB_DIR"
if [[ "$mode" == reset ]] && ! out="$("$DEV_BIN" migrate 2>&1)"; then
	printf '%s\n' "$out" >&2
	echo "demo-tenant.sh: learngate migrate failed (has make run made the database?)" >&2
	exit 1
fi

create() {
	rm -f "$DEMO_KEY_FILE"
	"$DEV_BIN" tenant create "$DEMO_TENANT" --name Demo --key-out "$DEMO_KEY_FILE" >/dev/null
}

if "$DEV_BIN" tenant show "$DEMO_TENANT" >/dev/null 2>&1; then
	if [[ "$mode" == reset ]]; then
		"$DEV_BIN" tenant delete "$DEMO_TENANT" --confirm "$DEMO_TENANT"
		create
		echo "created tenant $DEMO_TENANT afresh"
	elif [[ ! -s "$DEMO_KEY_FILE" ]]; then
		"$DEV_BIN" key create "$DEMO_TENANT" --key-out "$DEMO_KEY_FILE" >/dev/null
	fi
else
	# A key file left over from an older database belongs to a tenant that is gone.
	create
fi
[[ -s "$DEMO_KEY_FILE" ]] || { echo "demo-tenant.sh: no API key in $DEMO_KEY_FILE" >&2; exit 1; }
API_KEY="$(head -n 1 "$DEMO_KEY_FILE" | tr -d '[:space:]')"

http_port="${LEARNGATE_HTTP_ADDR##*:}"
ops_addr="${LEARNGATE_OPS_ADDR:-127.0.0.1:8081}"
ops_host="${ops_addr%:*}"
ops_port="${ops_addr##*:}"
case "$ops_host" in "" | 0.0.0.0 | "[::]") ops_host=127.0.0.1 ;; esac
base_domain="${LEARNGATE_BASE_DOMAINS:-learngate.localhost}"
base_domain="${base_domain%%,*}"
base_domain="${base_domain// /}"
base_url="${LEARNGATE_PUBLIC_SCHEME}://${DEMO_TENANT}.${base_domain}:${http_port}/papi"

# A running server sees a change made from the shell within about a second.
if [[ "$mode" == reset ]] && curl -s -o /dev/null --max-time 2 "http://127.0.0.1:${http_port}/healthz"; then
	for _ in $(seq 50); do
		code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -H "Host: ${DEMO_TENANT}.${base_domain}" \
			-H "Authorization: $API_KEY" "http://127.0.0.1:${http_port}/papi/ping" || true)"
		[[ "$code" == 200 ]] && break
		sleep 0.1
	done
	[[ "$code" == 200 ]] || echo "demo-tenant.sh: the server on :${http_port} does not take the new key yet (ping: $code)" >&2
fi

cat <<MSG

  learngate (dev)
  Public API : $base_url
  API key    : $API_KEY   (saved in ${DEMO_KEY_FILE#"$ROOT"/})
  Ops API    : http://${ops_host}:${ops_port}/ops/v1   token: $LEARNGATE_OPS_TOKEN

  curl -H "Authorization: $API_KEY" $base_url/ping

MSG
