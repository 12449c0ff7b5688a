#!/usr/bin/env bash
# Validate the deployment files offline, as far as this machine allows:
#   1. the binary builds as the Dockerfile builds it (static, zone database embedded);
#   2. docker-compose.yml parses and resolves (docker compose, or Debian's docker-compose);
#   3. the Caddyfile is valid and formatted (Debian's caddy);
#   4. the Kubernetes manifests build with kustomize and decode strictly into
#      their k8s.io/api types, with consistent references (deploy/k8scheck);
#   5. the image builds, only where a Docker engine answers.
# Missing Debian packages are installed with apt unless LEARNGATE_NO_APT=1.
# Exit code 0 when every check that could run passed; skipped checks are listed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$PATH:/usr/local/go/bin"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
skipped=()

# need CMD PACKAGE: make CMD available, installing the Debian PACKAGE if allowed.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [[ "${LEARNGATE_NO_APT:-}" != 1 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "installing $2 with apt"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"; } >/dev/null 2>&1 || true
	fi
	command -v "$1" >/dev/null 2>&1
}

echo "== 1. static binary (the Dockerfile's go build)"
CGO_ENABLED=0 go build -trimpath -tags timetzdata -ldflags "-s -w" -o "$TMP/learngate" ./cmd/learngate
settings="$(go version -m "$TMP/learngate")"
grep -q 'CGO_ENABLED=0' <<<"$settings" || { echo "binary not built with CGO_ENABLED=0"; exit 1; }
grep -q -- '-tags=timetzdata' <<<"$settings" || { echo "binary does not embed the zone database"; exit 1; }
if command -v ldd >/dev/null 2>&1 && ldd "$TMP/learngate" 2>&1 | grep -q '=>'; then
	echo "binary is dynamically linked"; exit 1
fi
"$TMP/learngate" --help >/dev/null
echo "ok: static, -tags timetzdata"

echo "== 2. docker-compose.yml"
if docker compose version >/dev/null 2>&1; then
	compose=(docker compose)
elif need docker-compose docker-compose; then
	compose=(docker-compose)
else
	compose=()
fi
if ((${#compose[@]})); then
	"${compose[@]}" --env-file deploy/.env.example -f deploy/docker-compose.yml config >"$TMP/compose.yml"
	for svc in postgres pgbouncer redis migrate learngate-1 learngate-2 worker caddy; do
		grep -q "^  $svc:" "$TMP/compose.yml" || { echo "service $svc missing"; exit 1; }
	done
	echo "ok: ${compose[*]} config"
else
	skipped+=("compose: neither docker compose nor docker-compose")
fi

echo "== 3. Caddyfile"
if need caddy caddy; then
	caddy validate --config deploy/Caddyfile --adapter caddyfile >"$TMP/caddy.log" 2>&1 ||
		{ cat "$TMP/caddy.log"; exit 1; }
	caddy fmt deploy/Caddyfile | diff -u deploy/Caddyfile - || { echo "Caddyfile: run caddy fmt --overwrite deploy/Caddyfile"; exit 1; }
	echo "ok: caddy validate ($(caddy version | cut -d' ' -f1))"
else
	skipped+=("Caddyfile: no caddy")
fi

echo "== 4. Kubernetes manifests"
if command -v kubectl >/dev/null 2>&1; then
	kubectl kustomize deploy/k8s >"$TMP/k8s.yaml"
else
	# Without kustomize: the resources as written (no namespace or image rewrite).
	for f in deploy/k8s/*.yaml; do
		[[ "$(basename "$f")" == kustomization.yaml ]] && continue
		cat "$f"; echo "---"
	done >"$TMP/k8s.yaml"
	skipped+=("kustomize build: no kubectl (manifests checked as written)")
fi
(cd deploy/k8scheck && go run . -) <"$TMP/k8s.yaml"
skipped+=("Kubernetes JSON-schema validation (kubeconform): its schemas are downloaded at run time, not reachable here")

echo "== 5. image"
if docker info >/dev/null 2>&1; then
	docker build -f deploy/Dockerfile -t learngate:validate .
	echo "ok: docker build"
else
	skipped+=("docker build: no Docker engine answers")
fi

echo
if ((${#skipped[@]})); then
	printf 'skipped: %s\n' "${skipped[@]}"
fi
echo "deploy: every check that could run passed"
