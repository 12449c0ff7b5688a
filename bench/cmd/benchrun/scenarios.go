package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"learngate/bench/load"
)

// target is a server as one tenant sees it.
type target struct {
	base string // http://127.0.0.1:port
	host string // the tenant's host name
	key  string // the tenant's API key ("" for the baseline)
}

// get is a GET of path.
func (t target) get(path string) load.Request {
	return func(int64) (*http.Request, error) { return t.request(http.MethodGet, path, nil) }
}

// post is a POST of path whose body body makes for each request.
func (t target) post(path string, body func() []byte) load.Request {
	return func(int64) (*http.Request, error) { return t.request(http.MethodPost, path, body()) }
}

func (t target) request(method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequest(method, t.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Host = t.host
	if t.key != "" {
		req.Header.Set("Authorization", t.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// scenario is one side-by-side comparison.
type scenario struct {
	name string
	kind string // read: throughput ratio; write: p50 latency ratio; chain: p50 difference
	// concurrency overrides the run's (chain overhead is measured one request at a time).
	concurrency    int
	learngate, bl  load.Request
	learngateCheck load.Request // the identity check's request (fresh names for writes)
	blCheck        load.Request
}

// sideBySide is a scenario's measurement.
type sideBySide struct {
	scenario
	learngate, baseline load.Result
	// mismatch says how the two sides' answers differed; then nothing was measured.
	mismatch string
}

// freshUsers makes batch_save bodies of 100 users with fresh names: prefix
// and a counter of the side (see load.BatchUsers).
func freshUsers(prefix string) func() []byte {
	var n atomic.Int64
	return func() []byte { return load.BatchUsers(prefix, n.Add(1), 100) }
}

// freshKnowledge makes external knowledge batch bodies of 100 records.
func freshKnowledge(users int) func() []byte {
	var n atomic.Int64
	return func() []byte { return load.BatchKnowledge(n.Add(1), 100, users) }
}

// scenarios are the comparisons of docs/performance.md: reads of the big tenant, batch
// writes to the write tenant, the ping chain against a bare gin route.
func scenarios(lgRead, blRead, lgWrite, blWrite target, writeUsers int, runID string) []scenario {
	lgUsers, blUsers := freshUsers("lg-"+runID), freshUsers("bl-"+runID)
	lgCheckUsers, blCheckUsers := freshUsers("lgc-"+runID), freshUsers("blc-"+runID)
	knowledge := freshKnowledge(writeUsers)
	return []scenario{
		{name: "GET /papi/users?per_page=100", kind: "read",
			learngate: lgRead.get("/papi/users?per_page=100"), bl: blRead.get("/papi/users?per_page=100")},
		{name: "GET /papi/topic_assignments?per_page=100", kind: "read",
			learngate: lgRead.get("/papi/topic_assignments?per_page=100"), bl: blRead.get("/papi/topic_assignments?per_page=100")},
		{name: "POST /papi/users/batch_save (100 users)", kind: "write",
			learngate: lgWrite.post("/papi/users/batch_save", lgUsers), bl: blWrite.post("/papi/users/batch_save", blUsers),
			learngateCheck: lgWrite.post("/papi/users/batch_save", lgCheckUsers),
			blCheck:        blWrite.post("/papi/users/batch_save", blCheckUsers)},
		{name: "POST /papi/external_knowledges/batch_save (100 records)", kind: "write",
			learngate: lgWrite.post("/papi/external_knowledges/batch_save", knowledge),
			bl:        blWrite.post("/papi/external_knowledges/batch_save", knowledge)},
		{name: "GET /papi/ping vs bare gin route", kind: "chain", concurrency: 1,
			learngate: lgRead.get("/papi/ping"), bl: blRead.get("/papi/ping")},
	}
}

// fetch sends req once and returns status and body.
func fetch(client *http.Client, req load.Request) (int, []byte, error) {
	r, err := req(0)
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// checkIdentical compares one answer of each side, byte for byte: reads
// and ping exactly; batch writes compare their result bodies, which carry
// no names (the two sides create different, fresh users).
func checkIdentical(client *http.Client, sc scenario) (int, error) {
	lgReq, blReq := sc.learngate, sc.bl
	if sc.learngateCheck != nil {
		lgReq, blReq = sc.learngateCheck, sc.blCheck
	}
	ls, lb, err := fetch(client, lgReq)
	if err != nil {
		return 0, err
	}
	bs, bb, err := fetch(client, blReq)
	if err != nil {
		return 0, err
	}
	if ls != http.StatusOK || bs != http.StatusOK {
		return 0, fmt.Errorf("%s: learngate %d %.200s; baseline %d %.200s", sc.name, ls, lb, bs, bb)
	}
	if !bytes.Equal(lb, bb) {
		return 0, fmt.Errorf("%s: bodies differ (%d and %d bytes):\nlearngate %.400s\nbaseline  %.400s", sc.name, len(lb), len(bb), lb, bb)
	}
	return len(lb), nil
}

// measure runs rounds interleaved: learngate, baseline, learngate, ...
func measure(ctx context.Context, client *http.Client, sc scenario, o options, progress func(string)) sideBySide {
	conc := o.concurrency
	if sc.concurrency > 0 {
		conc = sc.concurrency
	}
	var lg, bl []load.Result
	for r := range o.rounds {
		for _, side := range []struct {
			name string
			req  load.Request
			out  *[]load.Result
		}{{"learngate", sc.learngate, &lg}, {"baseline", sc.bl, &bl}} {
			res := load.Run(ctx, client, load.Config{Concurrency: conc, Warmup: o.warmup, Duration: o.duration, Request: side.req})
			*side.out = append(*side.out, res)
			progress(fmt.Sprintf("  round %d %-9s %7.1f req/s p50 %s p99 %s errors %d", r+1, side.name, res.RPS(),
				ms(res.P50), ms(res.P99), res.Errors))
		}
	}
	return sideBySide{scenario: sc, learngate: load.Merge(lg), baseline: load.Merge(bl)}
}

// verdict is a comparison's ratio, target and outcome.
func (s sideBySide) verdict() (ratio, target string, pass bool) {
	if s.learngate.Errors > 0 || s.baseline.Errors > 0 || s.learngate.Requests == 0 || s.baseline.Requests == 0 {
		return "n/a", "", false
	}
	switch s.kind {
	case "read":
		r := s.learngate.RPS() / s.baseline.RPS()
		return fmt.Sprintf("%.2f× throughput", r), "≥ 0.70×", r >= 0.7
	case "write":
		r := float64(s.learngate.P50) / float64(s.baseline.P50)
		return fmt.Sprintf("%.2f× p50 latency", r), "≤ 1.50×", r <= 1.5
	}
	d := s.learngate.P50 - s.baseline.P50
	return fmt.Sprintf("+%s ms p50", msf(d)), "< 0.2 ms", d < 200*time.Microsecond
}

// ms formats d in milliseconds with two decimals.
func ms(d time.Duration) string { return msf(d) + " ms" }

func msf(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
}
