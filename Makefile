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
TEST_FLAGS ?= $(RACE) -count=1 -timeout 9m

# Fuzzing time per target for `make fuzz`.
FUZZTIME ?= 20s

.PHONY: run test lint build bench bench-micro fuzz services clean-data

run:
	scripts/run-dev.sh

test: services
	@if [ -z "$(RACE)" ]; then echo "warning: no C compiler found, running tests without -race" >&2; fi
	go test $(TEST_FLAGS) ./...

lint:
	@out="$$(find . -name '*.go' -not -path './.data/*' -not -path './vendor/*' -print0 | xargs -0 -r gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go vet ./...
	@if command -v golangci-lint >/dev/null 2>&1; then echo "golangci-lint run"; golangci-lint run; \
	else echo "golangci-lint not on PATH, skipped"; fi

build:
	@mkdir -p $(dir $(BIN))
	go build -o $(BIN) ./cmd/learngate

# make bench: the side-by-side harness against the real binary and the scale
# curves (docs/performance.md); it prints the tables. BENCH_FLAGS=-quick for
# the smoke dataset. make bench-micro: the Go micro-benchmarks of every
# package (about 15 minutes on 2 cores).
BENCH_FLAGS ?=

bench: services
	go run ./bench/cmd/benchrun $(BENCH_FLAGS)

bench-micro: services
	go test -run '^$$' -bench . -benchmem ./...

# Every Fuzz target of the module, one after another, FUZZTIME each
# (docs/reliability.md, "Bad input"). Crashers land in testdata/fuzz.
fuzz: services
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

services:
	scripts/services.sh up

clean-data:
	scripts/services.sh clean
