//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// httpsOnDemand is property 1: certificates on demand for a tenant host
// and for a custom domain added a moment before, none for a name that is
// no tenant's, and a removed domain that answers no tenant's data.
func (r *e2eRun) httpsOnDemand(t *testing.T, figures *[]string) {
	topo := r.topo
	c := topo.caddyClient("127.0.0.4")

	// The running Caddy has the deployed proxy settings (deploy/Caddyfile).
	checkCaddyConfig(t, topo)

	took, err := topo.handshake(topo.host("alpha"))
	if err != nil {
		t.Fatalf("TLS to %s: %v", topo.host("alpha"), err)
	}
	*figures = append(*figures, "first certificate "+ms(took)+" (tenant host)")
	if a := topo.papi(c, http.MethodGet, "alpha", "/ping", r.alpha.key, nil); a.status != 200 || string(a.body) != `{"organisation":"alpha"}` {
		t.Errorf("ping alpha through Caddy: %s", a)
	}

	custom := "learn.alpha-e2e.example"
	if a := topo.opsCall(0, http.MethodPost, "/ops/v1/tenants/alpha/domains", map[string]string{"domain": custom}); a.status != http.StatusCreated {
		t.Fatalf("add domain: %s", a)
	}
	took, err = topo.handshake(custom)
	if err != nil {
		t.Fatalf("TLS to the custom domain added a moment before: %v", err)
	}
	*figures = append(*figures, "custom domain "+ms(took))
	a := call(c, http.MethodGet, "https://"+custom+"/papi/ping", "", r.alpha.key, nil, nil)
	if a.status != 200 || string(a.body) != `{"organisation":"alpha"}` {
		t.Errorf("ping on the custom domain: %s", a)
	}

	refused := 0
	for _, name := range []string{topo.host("nobody"), "unknown-e2e.example"} {
		if _, err := topo.handshake(name); err == nil {
			t.Errorf("%s names no tenant but got a certificate", name)
		} else {
			refused++
		}
	}
	*figures = append(*figures, fmt.Sprintf("%d of 2 names of no tenant refused a certificate", refused))

	if a := topo.opsCall(1, http.MethodDelete, "/ops/v1/tenants/alpha/domains/"+custom, nil); a.status != http.StatusNoContent {
		t.Fatalf("remove domain: %s", a)
	}
	removed := time.Now()
	var last answer
	for i := 0; i < 100; i++ {
		last = call(c, http.MethodGet, "https://"+custom+"/papi/ping", "", r.alpha.key, nil, nil)
		if last.status == http.StatusNotFound {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if last.status != http.StatusNotFound || string(last.body) != `{"error":"unknown organisation"}` {
		t.Errorf("removed domain still answers: %s", last)
	}
	*figures = append(*figures, "removed domain 404 after "+ms(time.Since(removed)))
	// What Caddy does with the certificate it issued (deploy/README.md):
	// it keeps serving it until it expires; learngate answers no data.
	if _, err := topo.handshake(custom); err == nil {
		*figures = append(*figures, "Caddy keeps the removed domain's certificate (handshake still succeeds)")
	} else {
		*figures = append(*figures, "removed domain's handshake fails: "+err.Error())
	}
}

// summarize writes statuses as runs: "20×401, 1×429".
func summarize(statuses []int) string {
	var parts []string
	for i := 0; i < len(statuses); {
		j := i
		for j < len(statuses) && statuses[j] == statuses[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d×%d", j-i, statuses[i]))
		i = j
	}
	return strings.Join(parts, ", ")
}

// checkCaddyConfig reads the running configuration from Caddy's admin API
// and checks the parts of deploy/Caddyfile the properties rest on.
func checkCaddyConfig(t *testing.T, topo *topology) {
	t.Helper()
	resp, err := http.Get(topo.caddyAdmin + "/config/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var cfg any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("Caddy config: %v", err)
	}
	text := string(b)
	for _, want := range []string{`"uri":"/readyz"`, `"try_duration":2000000000`, `"try_interval":100000000`,
		`"on_demand":true`, `/tls/ask"`, `"Strict-Transport-Security":["max-age=31536000"]`} {
		if !strings.Contains(text, want) {
			t.Errorf("Caddy's running config lacks %s", want)
		}
	}
	if strings.Contains(text, "trusted_proxies") {
		t.Errorf("Caddy trusts some client's X-Forwarded-For (trusted_proxies)")
	}
}

// proxyAndClientAddress is property 2: the right tenant through the proxy,
// the failed-key throttle keyed by the caller's address (not Caddy's), and
// a caller's own X-Forwarded-For not believed.
func (r *e2eRun) proxyAndClientAddress(t *testing.T, figures *[]string) {
	topo := r.topo
	c := topo.caddyClient("127.0.0.4")
	for _, tn := range []tenant{r.alpha, r.beta} {
		want := fmt.Sprintf(`{"organisation":"%s"}`, tn.slug)
		for i := 0; i < 4; i++ { // round robin: both nodes
			if a := topo.papi(c, http.MethodGet, tn.slug, "/ping", tn.key, nil); a.status != 200 || string(a.body) != want {
				t.Errorf("ping %s: %s", tn.slug, a)
			}
		}
	}
	if a := topo.papi(c, http.MethodGet, "beta", "/ping", r.alpha.key, nil); a.status != http.StatusUnauthorized {
		t.Errorf("alpha's key on beta's host: %s", a)
	}

	// Wrong keys from 127.0.0.2, each with a different forged
	// X-Forwarded-For: believed, they would count for as many addresses and
	// never reach the limit (20 a minute). The count is shared (Redis); the
	// block list is each node's own, so each node answers one more 401
	// (the failure that puts the address over) before its 429s: at most
	// 20 + 2 failures answer 401.
	two := topo.caddyClient("127.0.0.2")
	wrong := "lg_" + strings.Repeat("x", 43)
	var statuses []int
	first429 := 0
	for i := 1; i <= 26 && (first429 == 0 || i <= first429+2); i++ {
		a := call(two, http.MethodGet, "https://"+topo.host("alpha")+"/papi/ping", "", wrong, nil,
			map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i)})
		statuses = append(statuses, a.status)
		if a.status == http.StatusTooManyRequests && first429 == 0 {
			first429 = i
		}
	}
	switch {
	case first429 == 0:
		t.Errorf("26 wrong keys from 127.0.0.2 never throttled: %s", summarize(statuses))
	case first429 <= 20 || first429 > 22:
		t.Errorf("first 429 at wrong key %d, want 21 or 22: %s", first429, summarize(statuses))
	default:
		for i, s := range statuses {
			if (i+1 < first429 && s != http.StatusUnauthorized) || (i+1 >= first429 && s != http.StatusTooManyRequests) {
				t.Errorf("wrong keys from 127.0.0.2: %s", summarize(statuses))
				break
			}
		}
	}
	// A valid key from the throttled address still passes.
	if a := call(two, http.MethodGet, "https://"+topo.host("alpha")+"/papi/ping", "", r.alpha.key, nil, nil); a.status != 200 {
		t.Errorf("valid key from the throttled address: %s", a)
	}
	// Another caller behind the same proxy is not throttled: the address
	// counted is the caller's, not Caddy's 127.0.0.1.
	three := topo.caddyClient("127.0.0.3")
	a3 := call(three, http.MethodGet, "https://"+topo.host("alpha")+"/papi/ping", "", wrong, nil, nil)
	if a3.status != http.StatusUnauthorized {
		t.Errorf("wrong key from 127.0.0.3: %s, want 401 (not throttled)", a3)
	}
	*figures = append(*figures, fmt.Sprintf("wrong keys from 127.0.0.2, each with its own forged X-Forwarded-For: %s; then a wrong key from 127.0.0.3: %d",
		summarize(statuses), a3.status))
	// The request log names the caller's address.
	if n, _ := topo.grepLogs(t, `"127.0.0.2"`); n == 0 {
		t.Errorf("no log line names the client address 127.0.0.2")
	}
}
