package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	"learngate/bench/load"
)

// curvePoint is one latency measurement of a scale curve.
type curvePoint struct {
	curve, point string
	users        int
	page         string
	res          load.Result
	totalOK      bool
}

// targetP50 is the bound on any page of GET /papi/users (docs/performance.md,
// "What is measured").
const targetP50Millis = 50

// usersPage measures GET /papi/users?per_page=100&page=page on tgt, one
// request at a time (latency, not throughput), after checking that it
// answers 200 with total_records = users.
func usersPage(ctx context.Context, client *http.Client, o options, tgt target, users, page int) (load.Result, bool, error) {
	path := fmt.Sprintf("/papi/users?per_page=100&page=%d", page)
	status, body, err := fetch(client, tgt.get(path))
	if err != nil {
		return load.Result{}, false, err
	}
	if status != http.StatusOK {
		return load.Result{}, false, fmt.Errorf("%s on %s: %d %.200s", path, tgt.host, status, body)
	}
	var env struct {
		Total int `json:"total_records"`
	}
	_ = json.Unmarshal(body, &env)
	res := load.Run(ctx, client, load.Config{Concurrency: 1, Warmup: o.warmup / 2, Duration: o.curveDuration, Request: tgt.get(path)})
	return res, env.Total == users, nil
}

// roundRobin measures page 1 of GET /papi/users across every tenant of
// tgts in turn, as many tenants' traffic would come, after one request to
// each (the first request of a tenant on a connection loads its schema's
// catalog: a one-off cost, not the steady state measured here).
func roundRobin(ctx context.Context, client *http.Client, o options, tgts []target) load.Result {
	for _, t := range tgts {
		_, _, _ = fetch(client, t.get("/papi/users?per_page=100"))
	}
	var n atomic.Int64
	req := func(int64) (*http.Request, error) {
		t := tgts[int(n.Add(1))%len(tgts)]
		return t.request(http.MethodGet, "/papi/users?per_page=100", nil)
	}
	return load.Run(ctx, client, load.Config{Concurrency: 1, Warmup: o.warmup / 2, Duration: o.curveDuration, Request: req})
}
