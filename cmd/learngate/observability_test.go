package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// metricNamePattern finds the metric names a dashboard or a rule uses.
var metricNamePattern = regexp.MustCompile(`\b(?:learngate|river|go|process)_[a-z_]+[a-z]`)

// exposedNames are the metric names of a Prometheus text exposition
// (histograms as their _bucket, _sum and _count series).
func exposedNames(body string) map[string]bool {
	names := map[string]bool{}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			names[line[:i]] = true
		}
	}
	return names
}

// scrape GETs url with the ops token and returns the body of the 200.
func scrape(t *testing.T, h http.Handler, token string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// referencedNames are the metric names deploy/grafana/learngate.json's
// queries (every "expr" and variable "definition") and deploy/prometheus/
// alerts.yml use.
func referencedNames(t *testing.T) (dashboard, rules []string) {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/grafana/learngate.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "definition") {
					dashboard = append(dashboard, metricNamePattern.FindAllString(s, -1)...)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	rulesText, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules = metricNamePattern.FindAllString(string(rulesText), -1)
	slices.Sort(dashboard)
	slices.Sort(rules)
	return slices.Compact(dashboard), slices.Compact(rules)
}

// TestDashboardAndAlertMetricsAreServed: every metric the Grafana dashboard
// and the alert rules name is served by the ops /metrics of `serve` running
// its worker, after one request of tenant acme and one of an unknown host
// and the worker's first webhook maintenance sweep. The request counter
// carries the tenant's slug, and only the tenant the request was for.
func TestDashboardAndAlertMetricsAreServed(t *testing.T) {
	env := startListeners(t, "30s", "120s")
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	mustRun(t, "tenant", "create", "globex")
	srv := newServer(a, a.blobs)
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	ops := srv.OpsRouter()
	for _, r := range []struct {
		host, key string
		status    int
	}{{"acme.learngate.localhost", env.key, 200}, {"nobody.learngate.localhost", "", 404}} {
		req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
		req.Host = r.host
		req.Header.Set("Authorization", r.key)
		rec := httptest.NewRecorder()
		public.ServeHTTP(rec, req)
		if rec.Code != r.status {
			t.Fatalf("%s: %d %s", r.host, rec.Code, rec.Body)
		}
	}
	failPasswordSignIn(t, public, "acme", "acme.learngate.localhost")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runWorker(ctx, a, a.blobs, srv.Metrics.Registry) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	})
	var body string
	for deadline := time.Now().Add(30 * time.Second); ; {
		body = scrape(t, ops, "listener-test-token")
		if strings.Contains(body, "\nlearngate_webhook_delivery_lag_seconds 0\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no webhook maintenance sweep within 30 s; /metrics:\n%s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}

	served := exposedNames(body)
	dashboard, rules := referencedNames(t)
	if len(dashboard) < 10 || len(rules) < 10 {
		t.Fatalf("too few names found: dashboard %v, rules %v", dashboard, rules)
	}
	for _, ref := range []struct {
		file  string
		names []string
	}{{"deploy/grafana/learngate.json", dashboard}, {"deploy/prometheus/alerts.yml", rules}} {
		for _, name := range ref.names {
			if !served[name] {
				t.Errorf("%s names %s, which /metrics does not serve", ref.file, name)
			}
		}
	}
	for _, want := range []string{
		`learngate_http_requests_total{listener="public",route="/papi/ping",status="200",tenant="acme"} 1`,
		`learngate_http_requests_total{listener="public",route="/papi/ping",status="404",tenant=""} 1`,
		`learngate_jobs{kind="deliver_webhooks",state="available"} 0`,
		`learngate_job_failures_total{kind="certificate"} 0`,
		`go_sql_max_open_connections{db_name="learngate"} 25`,
		`learngate_password_failures_total{reason="unknown_user",tenant="acme"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `tenant="globex"`) || strings.Contains(body, `tenant="nobody"`) {
		t.Errorf("/metrics has a series of a tenant no request was for")
	}
}

// TestWorkerMetricsListener: `learngate worker` with
// LEARNGATE_WORKER_METRICS_ADDR serves /healthz to anyone and /metrics (the
// worker's and the pool's metrics, no HTTP ones) only with the ops token.
func TestWorkerMetricsListener(t *testing.T) {
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("LEARNGATE_WORKER_METRICS_ADDR", addr)
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reg := workerRegistry(a)
	if err := serveWorkerMetrics(ctx, a, reg); err == nil || err.Error() !=
		"LEARNGATE_WORKER_METRICS_ADDR is set: LEARNGATE_OPS_TOKEN is required for the ops API and must be at least 12 characters" {
		t.Fatalf("without an ops token: %v", err)
	}
	a.cfg.OpsToken = "worker-metrics-token"
	if err := serveWorkerMetrics(ctx, a, reg); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- runWorker(ctx, a, a.blobs, reg) }()
	t.Cleanup(func() { cancel(); <-done })

	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, c := range []struct {
		path, token string
		status      int
		body        string
	}{
		{"/healthz", "", 200, `{"status":"ok"}`},
		{"/metrics", "", 401, `{"error":"unauthorized"}`},
		{"/metrics", "wrong-token-value", 401, `{"error":"unauthorized"}`},
		{"/ops/v1/tenants", "worker-metrics-token", 404, `{"error":"not found"}`},
	} {
		if status, body := get(c.path, c.token); status != c.status || body != c.body {
			t.Errorf("GET %s: %d %s, want %d %s", c.path, status, body, c.status, c.body)
		}
	}
	status, body := get("/metrics", "worker-metrics-token")
	if status != 200 {
		t.Fatalf("GET /metrics: %d %s", status, body)
	}
	names := exposedNames(body)
	for _, want := range []string{"learngate_jobs", "learngate_job_queue_wait_seconds", "learngate_job_failures_total",
		"go_sql_in_use_connections", "go_goroutines", "process_resident_memory_bytes"} {
		if !names[want] {
			t.Errorf("worker /metrics lacks %s", want)
		}
	}
	if names["learngate_http_requests_total"] {
		t.Errorf("worker /metrics serves the HTTP metrics of an API it does not serve")
	}
}
