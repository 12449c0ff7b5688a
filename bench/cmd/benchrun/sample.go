package main

import (
	"context"
	"io"
	"net/http"
	"sort"
	"time"

	"learngate/bench/load"
)

// timing is the latency of a bounded series of requests sent one at a time.
type timing struct {
	n        int
	errors   int
	p50, p99 time.Duration
	all      []time.Duration // in the order sent
}

// sample sends req one request at a time, at most max requests and for at
// most bound (but at least three), reading each whole answer; any status
// other than 200 counts as an error.
func sample(ctx context.Context, client *http.Client, req load.Request, max int, bound time.Duration) timing {
	var t timing
	began := time.Now()
	for i := 0; i < max && ctx.Err() == nil && (i < 3 || time.Since(began) < bound); i++ {
		r, err := req(int64(i))
		if err != nil {
			t.errors++
			continue
		}
		sent := time.Now()
		resp, err := client.Do(r)
		if err != nil {
			t.errors++
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t.all = append(t.all, time.Since(sent))
		if resp.StatusCode != http.StatusOK {
			t.errors++
		}
	}
	t.n = len(t.all)
	t.p50, t.p99 = percentiles(t.all)
	return t
}

// percentiles are the nearest-rank p50 and p99 of ds (as bench/load's).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(p float64) time.Duration {
		i := int(float64(len(s))*p+0.5) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return at(0.50), at(0.99)
}
