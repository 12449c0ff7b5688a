#!/usr/bin/env bash
# Validate the deployment files offline, as far as this machine allows:
#   1. the binary builds as the Dockerfile builds it (static, zone database embedded);
#   2. docker-compose.yml parses and resolves (docker compose, or Debian's docker-compose);
#   3. the Caddyfile is valid and formatted (Debian's caddy);
#   4. the Kubernetes manifests build with kustomize and decode strictly into
#      their k8s.io/api types, with consistent references (deploy/k8scheck);
#   5. the alert rules pass promtool check rules and their unit tests
#      (Debian's prometheus), and the Grafana dashboard is valid JSON;
#   6. the image builds: docker build where a Docker engine answers, else
#      podman build (Debian's podman; it builds here, it cannot run the image).
# Missing Debian packages are installed with apt unless LEARNGATE_NO_APT=1
# (apt needs root; without it the check is skipped with a message).
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
	if [[ "${LEARNGATE_NO_APT:-}" != 1 ]] && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
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

echo "== 5. alert rules and dashboard"
if need promtool prometheus; then
	promtool check rules deploy/prometheus/alerts.yml
	promtool test rules deploy/prometheus/alerts_test.yml
	echo "ok: promtool check rules, test rules ($(promtool --version 2>&1 | head -1 | cut -d' ' -f3))"
else
	skipped+=("alert rules: no promtool (Debian's prometheus; LEARNGATE_NO_APT=1 or not root)")
fi
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool deploy/grafana/learngate.json >/dev/null
	echo "ok: deploy/grafana/learngate.json is JSON"
fi
# Every metric they name is served: TestDashboardAndAlertMetricsAreServed (make test).

echo "== 6. image"
build_start=$SECONDS
if docker info >/dev/null 2>&1; then
	docker build -f deploy/Dockerfile -t learngate:validate .
	echo "ok: docker build in $((SECONDS - build_start)) s"
elif need podman podman; then
	# No registry is reachable here, so the golang build stage cannot be
	# pulled: its output is supplied as the named context "build" (the
	# binary of step 1 and the host's CA bundle), which podman uses in place
	# of that stage. The Dockerfile's go build must be step 1's:
	grep -q 'CGO_ENABLED=0 GOOS=linux go build -trimpath -tags timetzdata -ldflags "-s -w"' deploy/Dockerfile ||
		{ echo "deploy/Dockerfile's go build differs from step 1's"; exit 1; }
	ctx="$TMP/build-context"
	mkdir -p "$ctx/out" "$ctx/etc/ssl/certs"
	cp "$TMP/learngate" "$ctx/out/learngate"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/etc/ssl/certs/"
	podman build --network host --build-context build="$ctx" -f deploy/Dockerfile -t localhost/learngate:validate . \
		>"$TMP/podman.log" 2>&1 || { tail -40 "$TMP/podman.log"; exit 1; }
	cfg="$(podman image inspect localhost/learngate:validate --format '{{.Config.User}} {{json .Config.Entrypoint}} {{json .Config.Cmd}}')"
	[[ "$cfg" == '65532:65532 ["/usr/local/bin/learngate"] ["serve"]' ]] || { echo "image config: $cfg"; exit 1; }
	size="$(podman image inspect localhost/learngate:validate --format '{{.Size}}')"
	podman rmi localhost/learngate:validate >/dev/null
	echo "ok: podman build (build stage from step 1) in $((SECONDS - build_start)) s, $((size / 1000000)) MB, user 65532, CMD serve"
	skipped+=("running the image: podman cannot run containers here; the build stage itself (no registry)")
else
	skipped+=("image build: no Docker engine and no podman (LEARNGATE_NO_APT=1 or not root)")
fi

echo
if ((${#skipped[@]})); then
	printf 'skipped: %s\n' "${skipped[@]}"
fi
echo "deploy: every check that could run passed"
