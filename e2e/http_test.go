//go:build e2e || e2e_citus || e2e_upgrade

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helpers of the test programs (make e2e, make e2e-citus, make
// e2e-upgrade): requests and their answers, a bounded load, the users they
// write.

// tenant is one organisation made for the run through the ops API.
type tenant struct {
	slug string
	id   int64
	key  string
}

// directClient reaches the nodes' own listeners (plain HTTP).
var directClient = &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// answer is one response, or the transport error that replaced it.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
	start  time.Time
	took   time.Duration
}

func (a answer) String() string {
	if a.err != nil {
		return "error: " + a.err.Error()
	}
	return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(a.body))
}

// decode unmarshals the body into v or fails the test.
func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
}

// call sends one request: url is absolute, host (when not empty) replaces
// the Host header, key (when not empty) is the API key, body is JSON.
func call(c *http.Client, method, url, host, key string, body any, header map[string]string) answer {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return answer{err: err}
	}
	if host != "" {
		req.Host = host
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	a := answer{start: time.Now()}
	resp, err := c.Do(req)
	if err != nil {
		a.err, a.took = err, time.Since(a.start)
		return a
	}
	defer resp.Body.Close()
	a.body, a.err = io.ReadAll(resp.Body)
	a.status, a.header, a.took = resp.StatusCode, resp.Header, time.Since(a.start)
	return a
}

// op is one request of a load: its answer, and the user it wrote (if any).
type op struct {
	answer
	wrote string
}

// load runs workers goroutines calling f until dur has passed or each has
// made perWorker calls, and returns every call.
func load(workers int, dur time.Duration, perWorker int, f func(w, i int) op) []op {
	var mu sync.Mutex
	var all []op
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []op
			for i := 0; i < perWorker && time.Now().Before(deadline); i++ {
				mine = append(mine, f(w, i))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all
}

// newUser is the body of POST /papi/users for user name.
func newUser(name string) map[string]any {
	return map[string]any{"user_name": name, "first_name": "E", "last_name": "Two", "email": name + "@e2e.example"}
}

// pqArray formats names as a PostgreSQL text array literal.
func pqArray(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = `"` + n + `"`
	}
	return "{" + strings.Join(quoted, ",") + "}"
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

// createdTenant returns the tenant slug that a 201 of POST /ops/v1/tenants
// answered: its id (from its schema, tenant_<id>) and its API key.
func createdTenant(t *testing.T, slug string, a answer) tenant {
	t.Helper()
	var out struct {
		Tenant struct {
			Schema string `json:"schema"`
		} `json:"tenant"`
		APIKey string `json:"api_key"`
	}
	a.decode(t, &out)
	id, err := strconv.ParseInt(strings.TrimPrefix(out.Tenant.Schema, "tenant_"), 10, 64)
	if err != nil {
		t.Fatalf("tenant %s schema %q: %v", slug, out.Tenant.Schema, err)
	}
	return tenant{slug: slug, id: id, key: out.APIKey}
}
