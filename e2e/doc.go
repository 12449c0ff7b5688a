// Package e2e proves the deployed topology end to end: Caddy with on-demand
// TLS, two `learngate serve` nodes, PgBouncer in transaction pooling mode,
// a Redis Cluster and separate workers, all started by scripts/e2e.sh
// (`make e2e`). Its tests carry the build tag e2e and read the topology's
// addresses from E2E_* variables the script sets, so `go test ./...` and
// `make test` never run them (docs/operations.md, "make e2e").
//
// Under the build tag e2e_citus the same package proves learngate on a
// Citus cluster (scripts/e2e-citus.sh, `make e2e-citus`, E2EC_* variables;
// deploy/README.md, "The Citus e2e"). Under the build tag e2e_upgrade it
// runs a rolling upgrade from the previous release to the working tree
// under load (scripts/e2e-upgrade.sh, `make e2e-upgrade`, E2EU_* variables;
// docs/operations.md, "make e2e-upgrade"). The helpers of http_test.go are
// built under each tag.
package e2e
