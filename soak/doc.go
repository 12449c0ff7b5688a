// Package soak holds learngate's process-level reliability tests and no
// production code. They build the real binary, run `learngate serve` on
// loopback against real PostgreSQL and Redis, and check what clients see
// while tenants share the node (isolation under load), while its
// dependencies fail (Redis stopped and restarted, PostgreSQL restarted, the
// process killed with SIGKILL in the middle of batch saves), while
// clients without a key flood it (hostile clients) and while clients cut
// their writes off and retry them with an Idempotency-Key (idempotent
// retries).
//
// Every test file has the build tag slow: `make test-slow` (the slow test
// tier, with -race) runs a short version of each scenario, and plain `go
// test ./...` and `make test` leave the package out; `make soak` sets
// LEARNGATE_SOAK=1 for the long versions and prints the results table
// (docs/reliability.md).
package soak
