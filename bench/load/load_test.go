package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunCountsMeasuredRequestsAndUnexpectedAnswers(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1)%5 == 0 {
			http.Error(w, "nope", http.StatusTeapot)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	get := func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL, nil) }
	res := Run(context.Background(), NewClient(2), Config{Concurrency: 2, Warmup: 20 * time.Millisecond,
		Duration: 100 * time.Millisecond, Request: get})
	if res.Requests < 4 || res.Requests >= int(served.Load()) {
		t.Fatalf("measured %d of %d served: warm-up must be left out, the rest counted", res.Requests, served.Load())
	}
	if res.Errors == 0 || !strings.Contains(res.FirstError, "status 418") {
		t.Errorf("errors = %d (%q), want the 418s counted", res.Errors, res.FirstError)
	}
	if res.P50 <= 0 || res.P99 < res.P50 || res.Elapsed < 100*time.Millisecond || res.RPS() <= 0 {
		t.Errorf("result %+v", res)
	}
}

func TestRunMeasuresRequestsSlowerThanTheDuration(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(60 * time.Millisecond)
	}))
	defer srv.Close()
	get := func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL, nil) }
	res := Run(context.Background(), NewClient(1), Config{Concurrency: 1, Duration: 10 * time.Millisecond, Request: get})
	if res.Requests != 2 || res.P50 < 60*time.Millisecond {
		t.Fatalf("result %+v, want the 2 slow requests measured", res)
	}
}
