# learngate developer targets. See scripts/services.sh for PostgreSQL/Redis handling.

SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)

BIN := .data/bin/learngate

LEARNGATE_PG_PORT ?= 5432
LEARNGATE_REDIS_PORT ?= 6379
LEARNGATE_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:$(LEARNGATE_PG_PORT)/postgres?sslmode=disable
LEARNGATE_TEST_REDIS_URL ?= redis://127.0.0.1:$(LEARNGATE_REDIS_PORT)/0
export LEARNGATE_PG_PORT LEARNGATE_REDIS_PORT LEARNGATE_TEST_DATABASE_URL LEARNGATE_TEST_REDIS_URL

# -race needs cgo and a C compiler; without one the tests still run, without the detector.
RACE ?= $(if $(shell command -v cc 2>/dev/null || command -v gcc 2>/dev/null),-race,)
# -vet=off: go test's own vet pass (a subset of go vet's checks) costs
# about 30 s of CPU on an empty build cache; make lint runs the whole go vet
# over both tiers' files, and .ci/run runs make lint.
TEST_FLAGS ?= $(RACE) -vet=off -count=1 -timeout 40m
# TEST_PARALLEL is make test's concurrency: 8 parallel tests in each test
# binary (go test's default is GOMAXPROCS, 2 here), and three builds or
# test binaries at once (-p 3; the default is 2). The fast tier waits on
# PostgreSQL as much as it computes, so on 2 cores a third binary fills
# the idle time: a whole run left the cores idle 41 s of 184 at -p 2 and
# 8 s of 159 at -p 3. make test-slow keeps go test's defaults: its soak
# and timing tests measure latencies.
TEST_PARALLEL ?= -parallel 8 -p 3
# TEST_PACKAGES lists the longest packages first, so that go test (two test
# binaries at once on 2 cores) starts them first and the short ones fill in
# after; ./... then adds every other package once.
TEST_PACKAGES ?= ./handlers/ ./jobs/ ./store/ ./cmd/... ./...

# Fuzzing time per target for `make fuzz`.
FUZZTIME ?= 20s

.PHONY: run test soak lint build bench bench-check bench-tenants bench-micro fuzz browser browser-install services clean-data e2e

run:
	scripts/run-dev.sh

# make docs-test: the README's quick start and the tour of docs/operations.md,
# read from the Markdown (```sh tour blocks) and run as written against make
# run's server (started when none answers on :8080), each answer shown
# checked (scripts/docs-test.sh, docs/shelldoc). Resets the demo tenant.
.PHONY: docs-test
docs-test: services
	scripts/docs-test.sh

# make demo-reset: delete make run's demo tenant with all its data and create
# it afresh (a new key in .data/demo.key), for the README's quick start and the
# tour of docs/operations.md from the start. A running `make run` picks it up.
.PHONY: demo-reset
demo-reset: services
	scripts/demo-tenant.sh reset

# Tests come in two tiers (docs/operations.md, "Test tiers"); CI (.ci/run)
# runs both, each with -race, so the race detector covers every package:
# make test      the fast tier: every package but ./soak, each test not in a
#                file tagged slow, with -race -parallel 8 -p 3. Migrated
#                databases are copies of a template (store/storetest/
#                pgtemplate) holding two spare tenant schemas. 2 min 39 s
#                on 2 cores with a warm build cache, 4 min 35 s with an
#                empty one; 19 minutes before the tiers.
# make test-slow the slow tier: the tests of the files tagged
#                `//go:build slow` (SLOW_LIST=1 scripts/test-slow.sh lists
#                them): ./soak whole, EXPLAIN tests seeding thousands of rows,
#                page-by-page walks, 200-tenant scale tests, memory and timing
#                samples, bcrypt loops and body corpora of handlers, the
#                browser tests (Chromium), with
#                -race, in handlers, handlers/web, jobs, soak, store, tenant.
#                6 min 58 s on 2 cores (5 min 36 s before the browser
#                tests joined it).
# A build tag, not -short, picks the tier, so the slow tier runs the slow
# tests alone (no fast test runs twice) and plain `go test ./...` stays the
# fast tier; make lint vets both builds.
test: services
	@if [ -z "$(RACE)" ]; then echo "warning: no C compiler found, running tests without -race" >&2; fi
	go test $(TEST_FLAGS) $(TEST_PARALLEL) $(TEST_PACKAGES)

.PHONY: test-slow
test-slow: services
	@if [ -z "$(RACE)" ]; then echo "warning: no C compiler found, running tests without -race" >&2; fi
	scripts/test-slow.sh $(TEST_FLAGS)

# soak runs the long reliability scenarios of ./soak (docs/reliability.md)
# and prints their results table; the short versions run in `make test-slow`.
SOAK_REPORT := .data/soak-report.txt
SOAK_TIMEOUT ?= 30m
# SOAK_FUZZ is the fuzz step of `make soak`: every fuzz target for
# SOAK_FUZZTIME, one row per target appended to $(SOAK_REPORT); it fails the
# soak by failing. SOAK_FUZZ=true skips it.
SOAK_FUZZTIME ?= 10s
SOAK_FUZZ ?= FUZZTIME=$(SOAK_FUZZTIME) FUZZ_REPORT="$(CURDIR)/$(SOAK_REPORT)" scripts/fuzz.sh >.data/soak-fuzz.log 2>&1

soak: services
	@mkdir -p .data && rm -f $(SOAK_REPORT)
	@status=0; \
	echo "soak: go test ./soak/ with LEARNGATE_SOAK=1 (log in .data/soak.log)"; \
	LEARNGATE_SOAK=1 LEARNGATE_SOAK_REPORT="$(CURDIR)/$(SOAK_REPORT)" \
		go test -tags slow -count=1 -timeout $(SOAK_TIMEOUT) -v ./soak/ >.data/soak.log 2>&1 || status=1; \
	grep -E -- '^(--- |\s+--- |ok|FAIL)|_test\.go:[0-9]+: [0-9]+ (requests|rounds|tenants)' .data/soak.log || true; \
	$(SOAK_FUZZ) || status=1; \
	echo; echo "soak results"; cat $(SOAK_REPORT) 2>/dev/null || echo "(no report: see .data/soak.log)"; \
	if [ $$status -ne 0 ]; then echo "soak: FAILED (see .data/soak.log)"; fi; \
	exit $$status

lint:
	@out="$$(find . -name '*.go' -not -path './.data/*' -not -path './vendor/*' -print0 | xargs -0 -r gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go vet ./...
	go vet -tags slow ./...
	@if command -v golangci-lint >/dev/null 2>&1; then echo "golangci-lint run"; golangci-lint run; \
	else echo "golangci-lint not on PATH, skipped"; fi

build:
	@mkdir -p $(dir $(BIN))
	go build -o $(BIN) ./cmd/learngate

# make bench: the harness's honesty tests (bench-check), then the
# side-by-side harness against the real binary and the scale curves
# (docs/performance.md); it prints the tables. BENCH_FLAGS=-quick for the
# smoke dataset. The harness is a Go module of its own (bench/go.mod), so
# `make test` and `go vet ./...` of the service leave it out. make
# bench-micro: the Go micro-benchmarks of every package of the service
# (about 15 minutes on 2 cores).
BENCH_FLAGS ?=

bench: bench-check
	cd bench && go run ./cmd/benchrun $(BENCH_FLAGS)

# bench-check: vet and the honesty tests of the bench module (the baseline
# answers learngate's bytes and still runs the store's SQL; datagen counts).
bench-check: services
	cd bench && go vet ./... && go test $(TEST_FLAGS) ./...

# bench-tenants: the many-tenants part alone (docs/performance.md, "Many
# tenants"): tenants built through the ops API up to 10, 100, 1,000 and
# 10,000 in database learngate_bench_tenants, measured at each step. Over an
# hour at 10,000 on a first run, so make bench leaves it out. Smaller steps:
# make bench-tenants BENCH_FLAGS='-tenants 10,100 -quiet-minute 10s'
bench-tenants: services
	cd bench && go run ./cmd/benchrun -only manytenants $(BENCH_FLAGS)

bench-micro: services
	go test -tags slow -run '^$$' -bench . -benchmem ./...

# Every Fuzz target of the module, one after another, FUZZTIME each (a
# duration, or a count such as 500x) (docs/reliability.md, "Bad input").
# Crashers land in testdata/fuzz. A target that fails with Go's coordinator
# deadline race (golang/go#75804: "context deadline exceeded", no crasher
# written) is run again with a count budget, which has no deadline, and that
# run's result counts (scripts/fuzz.sh); so does make soak's fuzz step.
fuzz: services
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# browser-install: the headless Chromium of the browser test, with apt-get
# when missing (scripts/browser-install.sh; LEARNGATE_NO_APT=1 forbids it),
# and the npm tools with the axe-core its accessibility checks load
# (scripts/node-tools.sh; without npm those checks are skipped, visibly).
# `make test` installs nothing and skips that test without a browser.
# browser: install, then run the browser test alone.
browser-install:
	scripts/browser-install.sh
	@scripts/node-tools.sh >/dev/null || echo "npm tools not installed: the browser test's axe-core checks are skipped"

browser: browser-install
	go test -tags slow -count=1 -run '^(TestReferencePageInBrowser|TestSignInInBrowser|TestSignInAcrossSitesInBrowser)$$' -v ./handlers/ ./handlers/web/

services:
	scripts/services.sh up

# make e2e: the deployed topology on 127.0.0.1 (Caddy with on-demand TLS,
# two serve nodes, PgBouncer in transaction mode, a Redis Cluster of three
# masters, two workers) and the Go test program of e2e/ (build tag e2e)
# against it; prints the table of the seven properties (scripts/e2e.sh,
# docs/operations.md). Installs caddy and pgbouncer with apt-get when
# missing, unless LEARNGATE_NO_APT=1. A few minutes (docs/operations.md,
# "make e2e": 79 s of start-up and checks, 7 min 10 s in all on a busy machine).
e2e: services
	scripts/e2e.sh

# make e2e-citus: learngate on a Citus cluster of its own (a coordinator and
# two workers under .data/e2e-citus, schema-based sharding), two serve nodes
# and a worker on the coordinator, one serve node on plain PostgreSQL for
# figures side by side, and the Go test program of e2e/ (build tag
# e2e_citus); prints the table of the six properties (scripts/e2e-citus.sh,
# deploy/README.md "The Citus e2e"). Builds Citus from CITUS_SRC when
# PostgreSQL has none (about 4 minutes). About 2 minutes otherwise.
.PHONY: e2e-citus
e2e-citus: services
	scripts/e2e-citus.sh

# make e2e-upgrade: a rolling upgrade under load (issue 31), from the previous
# release UPGRADE_FROM (a commit or tag, built once with git archive and kept
# in .data/e2e-upgrade-bin) to the working tree: a tenant made by the old
# binary and seeded by SQL (50,000 users, 200,000 custom values), two old
# serve nodes and a worker, then the new binary's migrate, new nodes beside
# the old, the old drained and stopped, an old node back (rollback), under a
# mixed load of four clients; the Go test program of e2e/ (build tag
# e2e_upgrade) prints each phase's figures and ends with
# `upgrade: requests=N errors=E max_stall_ms=S`, failing when E > 0 or
# S > 1000 (scripts/e2e-upgrade.sh, docs/operations.md "make e2e-upgrade").
# About a minute (48 to 63 s here), 30 s more on a first run (the old binary's build).
UPGRADE_FROM ?= bb18b49
.PHONY: e2e-upgrade
e2e-upgrade: services
	UPGRADE_FROM=$(UPGRADE_FROM) scripts/e2e-upgrade.sh

# make deploy-check: deploy/validate.sh (the Dockerfile's static build, the
# compose file, the Caddyfile, the Kubernetes manifests, promtool on the alert
# rules, the image built with docker or podman). About 2 minutes; not part of
# `make test`. LEARNGATE_NO_APT=1 skips what it would install.
.PHONY: deploy-check
deploy-check:
	deploy/validate.sh

clean-data:
	scripts/services.sh clean

# make lint also lints docs/openapi.yaml with Redocly and Spectral, pinned in
# tools/package.json and installed into .data/node-tools (skipped without npm).
.PHONY: lint-openapi clients
lint: lint-openapi

lint-openapi:
	scripts/lint-openapi.sh

# make clients: generates four clients from docs/openapi.yaml (TypeScript:
# openapi-typescript + openapi-fetch and @hey-api/openapi-ts; Go:
# oapi-codegen and ogen) into .data/clients and clients/go, compiles them,
# checks that a misspelt batch row compiles in none, and runs a smoke test
# through each against a real server on 127.0.0.1 (scripts/clients.sh,
# docs/operations.md).
clients: services
	scripts/clients.sh
