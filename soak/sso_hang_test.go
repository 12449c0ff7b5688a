//go:build slow

package soak

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"learngate/webhook/webhooktest"
)

const (
	// hangTenants are the tenants working beside the one whose identity
	// provider hangs, hangConns the connections of each; the attacker has
	// as many connections as they do together.
	hangTenants = 2
	hangConns   = 3
	// maxHangOpenFiles is the most open files the node may hold.
	maxHangOpenFiles = 1000
	// maxStartWait is the longest a /sso/start may take: the 5 s bound of a
	// call to an identity provider, and some slack for a loaded machine.
	maxStartWait = 7 * time.Second
	// idpFailureMemory is how long the node remembers a failed fetch.
	idpFailureMemory = 30 * time.Second
)

// TestHangingIdentityProvider (issue 27, finding 2) runs two tenants'
// paced mixed load on one node, first alone and then while anonymous
// clients, with as many connections as those tenants together, call GET
// /sso/start as fast as they can on a third tenant whose OIDC issuer
// accepts connections and never answers. The tenants must see no failure,
// every /sso/start must answer (503, the "unavailable" page) within about
// 5 s, the node must stay under 512 MiB resident and 1,000 open files,
// and dial the hanging issuer about once per 30 s (the failure is
// remembered); under LEARNGATE_SOAK=1 the tenants' p99 must stay within
// 2× of the calm phase's.
func TestHangingIdentityProvider(t *testing.T) {
	latencyScenario(t)
	row := &result{Scenario: "hanging identity provider"}
	results.record(t, row)
	issuer := webhooktest.NewHanging(t)
	n := startNode(t, nodeOptions{DatabaseURL: freshDatabase(t), Env: []string{"LEARNGATE_INSECURE_DEV=true"}})
	tenants := make([]*isoTenant, hangTenants)
	hosts := make([]string, hangTenants)
	for i := range tenants {
		slug := fmt.Sprintf("calm%d", i)
		tenants[i] = &isoTenant{slug: slug, key: n.createTenant(slug, hostileTenantLimit), assigned: map[string]bool{}}
		hosts[i] = slug + "." + baseDomain
	}
	n.createTenant("hang", hostileTenantLimit)
	if r := n.opsCall(http.MethodPut, "/ops/v1/tenants/hang/sso", `{"protocol":"oidc","issuer":"http://`+issuer.Addr()+
		`","client_id":"hang-client","client_secret":"hang-secret"}`); r.Err != nil || r.Status != http.StatusOK {
		t.Fatalf("configure the hanging issuer: %s", r)
	}
	calm, attack := pick(3*time.Second, 20*time.Second), pick(8*time.Second, 60*time.Second)

	m := newTenantMeter(hosts)
	n.observe = m.observe
	peakRSS := watchRSS(t, n.cmd.Process.Pid)
	peakFiles := watchOpenFiles(t, n.cmd.Process.Pid)
	stopTenants, failures := pacedTenants(t, n, tenants, hangTenants*hangConns, calm+attack, 27)
	defer stopTenants()
	time.Sleep(calm)

	m.attackAt.Store(time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), attack+maxStartWait)
	defer cancel()
	var (
		attackStop               atomic.Bool
		starts, slow, unexpected atomic.Int64
		longest                  atomic.Int64
	)
	stopAttack := startLoad(hangTenants*hangConns, &attackStop, func(int) {
		tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for !attackStop.Load() && ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+n.public+"/sso/start", nil)
			req.Host = "hang." + baseDomain
			began := time.Now()
			resp, err := client.Do(req)
			took := time.Since(began)
			if err != nil {
				if ctx.Err() == nil {
					unexpected.Add(1)
				}
				continue
			}
			resp.Body.Close()
			starts.Add(1)
			storeMax(&longest, took)
			if took > maxStartWait {
				slow.Add(1)
			}
			if resp.StatusCode != http.StatusServiceUnavailable {
				unexpected.Add(1)
			}
		}
	})
	defer stopAttack()
	time.Sleep(attack)
	stopAttack()
	cancel()
	stopTenants()

	calmP99, attackP99, ratio := m.p99Ratio()
	rss, rssKnown := peakRSS()
	files, filesKnown := peakFiles()
	dials := issuer.Accepted.Load()
	row.Requests, row.Failures = int(m.requests.Load()), int(failures.Load())
	row.Detail = fmt.Sprintf("p99 calm %v attack %v (%.1fx), max RSS %s, max open files %s, %d /sso/start (longest %v), %d dials to the issuer",
		calmP99.Round(time.Millisecond), attackP99.Round(time.Millisecond), ratio, mib(rss, rssKnown), count(files, filesKnown),
		starts.Load(), time.Duration(longest.Load()).Round(time.Millisecond), dials)
	t.Logf("%d tenant requests (%d failed), %s", row.Requests, row.Failures, row.Detail)

	if f := failures.Load(); f > 10 {
		t.Errorf("%d tenant requests failed in all (the first 10 are above)", f)
	}
	if s, u := slow.Load(), unexpected.Load(); s > 0 || u > 0 || starts.Load() == 0 {
		t.Errorf("/sso/start: %d answers, %d slower than %v, %d not 503 or failed", starts.Load(), s, maxStartWait, u)
	}
	if limit := int64(attack/idpFailureMemory) + 2; dials > limit {
		t.Errorf("the node dialled the hanging issuer %d times in %v, want at most %d (failures remembered %v)", dials, attack, limit, idpFailureMemory)
	}
	if rssKnown && rss >= maxHostileRSS {
		t.Errorf("node reached %s resident, want under %s", mib(rss, true), mib(maxHostileRSS, true))
	}
	if filesKnown && files >= maxHangOpenFiles {
		t.Errorf("node held %d open files, want under %d", files, maxHangOpenFiles)
	}
	if calmP99 == 0 || attackP99 == 0 {
		t.Errorf("no successful tenant request in a phase (calm p99 %v, attack p99 %v)", calmP99, attackP99)
	} else if soakMode() && ratio > maxP99Ratio {
		t.Errorf("tenants' p99 beside the hanging provider %v is %.1f× the calm phase's %v, want at most %.0f×", attackP99, ratio, calmP99, maxP99Ratio)
	}
	if t.Failed() {
		t.Logf("node log:\n%s", n.log())
	}
}

// count formats a number, or "unknown".
func count(v int, known bool) string {
	if !known {
		return "unknown"
	}
	return fmt.Sprint(v)
}
