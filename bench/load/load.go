// Package load drives HTTP load for the benchmark: a fixed number of
// workers, each sending its next request as soon as the previous answer is
// read, over keep-alive connections; a warm-up whose answers are not
// counted; then latency percentiles and throughput over the measured span.
package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Request makes the i-th request of a run (i counts from 0 across all
// workers, so bodies can carry fresh names).
type Request func(i int64) (*http.Request, error)

// Config is one measured run.
type Config struct {
	// Concurrency is the number of workers (and connections).
	Concurrency int
	// Warmup is sent first and not counted; Duration is measured.
	Warmup, Duration time.Duration
	// Request makes each request.
	Request Request
	// Status is the answer expected (default 200); any other is an error.
	Status int
}

// Result is what a run measured.
type Result struct {
	Requests int
	Errors   int
	// FirstError describes the first unexpected answer.
	FirstError string
	Elapsed    time.Duration
	P50, P99   time.Duration
}

// RPS is the measured throughput (successful and failed requests).
func (r Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// NewClient is a keep-alive client with one idle connection per worker.
func NewClient(concurrency int) *http.Client {
	tr := &http.Transport{MaxIdleConns: concurrency * 2, MaxIdleConnsPerHost: concurrency * 2,
		IdleConnTimeout: time.Minute, DisableCompression: true}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// Run sends cfg's load through client and reports the requests sent after
// the warm-up. Sending stops once cfg.Duration has been measured and at
// least two requests per worker were (so that slow requests, longer than
// the duration, are still measured); the elapsed time runs from the end of
// the warm-up to the last measured answer.
func Run(ctx context.Context, client *http.Client, cfg Config) Result {
	if cfg.Status == 0 {
		cfg.Status = http.StatusOK
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		res       Result
		next      int64
		measured  int
		lastDone  time.Time
	)
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	end := measureFrom.Add(cfg.Duration)
	minimum := 2 * cfg.Concurrency
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				sent := time.Now()
				mu.Lock()
				if !sent.Before(end) && measured >= minimum {
					mu.Unlock()
					return
				}
				i := next
				next++
				counted := !sent.Before(measureFrom)
				if counted {
					measured++
				}
				mu.Unlock()
				err := do(client, cfg, i)
				done := time.Now()
				if !counted {
					continue
				}
				mu.Lock()
				latencies = append(latencies, done.Sub(sent))
				if done.After(lastDone) {
					lastDone = done
				}
				if err != nil {
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.Requests = len(latencies)
	res.Elapsed = lastDone.Sub(measureFrom)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	res.P50, res.P99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
	return res
}

// do sends request i and reads the whole answer.
func do(client *http.Client, cfg Config, i int64) error {
	req, err := cfg.Request(i)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != cfg.Status {
		if len(body) > 200 {
			body = body[:200]
		}
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return nil
}

// percentile returns the p-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Merge combines the rounds of one side: requests and errors add up,
// latencies are the median of the rounds' (a robust summary of noisy
// rounds), elapsed adds up.
func Merge(rounds []Result) Result {
	var out Result
	var p50s, p99s []time.Duration
	for _, r := range rounds {
		out.Requests += r.Requests
		out.Errors += r.Errors
		out.Elapsed += r.Elapsed
		if out.FirstError == "" {
			out.FirstError = r.FirstError
		}
		p50s, p99s = append(p50s, r.P50), append(p99s, r.P99)
	}
	sort.Slice(p50s, func(i, j int) bool { return p50s[i] < p50s[j] })
	sort.Slice(p99s, func(i, j int) bool { return p99s[i] < p99s[j] })
	out.P50, out.P99 = percentile(p50s, 0.5), percentile(p99s, 0.5)
	return out
}
