//go:build slow

package soak

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"learngate/store/storetest"
)

// tenantMarker finds the tenant markers (slugs iso000…iso099) in a body:
// every user name, email, title and code a test writes carries its
// tenant's slug, so an answer naming another tenant leaked its data.
var tenantMarker = regexp.MustCompile(`iso[0-9]{3}`)

// isoTenant is one tenant of the isolation test and what it was told it has.
type isoTenant struct {
	slug, key string

	mu        sync.Mutex
	users     []string // acknowledged user names
	topics    []string // acknowledged topics' enrolment codes
	knowledge int      // acknowledged external knowledge records
	assigned  map[string]bool
	seq       int
}

// next returns a number unique within the tenant.
func (it *isoTenant) next() int {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.seq++
	return it.seq
}

// someUser returns an acknowledged user name, or "".
func (it *isoTenant) someUser(r *rand.Rand) string {
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(it.users) == 0 {
		return ""
	}
	return it.users[r.IntN(len(it.users))]
}

// someTopic returns an acknowledged topic's enrolment code, or "".
func (it *isoTenant) someTopic(r *rand.Rand) string {
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(it.topics) == 0 {
		return ""
	}
	return it.topics[r.IntN(len(it.topics))]
}

func TestIsolationUnderStress(t *testing.T) {
	t.Parallel()
	row := &result{Scenario: "isolation, 100 tenants"}
	results.record(t, row)
	redisSrv := storetest.StartRedisServer(t)
	// A private cluster without fsync: creating a tenant is a schema of
	// tables, and on the shared server (fsync on, shared with every other
	// test) 100 of them took over a minute. Durability is not under test here.
	cluster := startPGCluster(t, false)
	n := startNode(t, nodeOptions{DatabaseURL: cluster.createDatabase("learngate"), RedisURL: "redis://" + redisSrv.Addr() + "/0",
		// Every client is 127.0.0.1 and the test tries keys on other tenants' hosts on purpose.
		Env: []string{"LEARNGATE_AUTH_FAILURES_PER_MINUTE=1000000"}})

	const numTenants = 100
	tenants := make([]*isoTenant, numTenants)
	began := time.Now()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < numTenants; i += 4 {
				slug := fmt.Sprintf("iso%03d", i)
				key, err := n.tryCreateTenant(slug, 1_000_000)
				if err != nil {
					t.Error(err)
					return
				}
				tenants[i] = &isoTenant{slug: slug, key: key, assigned: map[string]bool{}}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d tenants created through the ops API in %v", numTenants, time.Since(began))

	total := pick(2000, 60000)
	var (
		requests atomic.Int64
		failures atomic.Int64
		next     atomic.Int64
	)
	fail := func(format string, args ...any) {
		failures.Add(1)
		t.Errorf(format, args...)
	}
	began = time.Now()
	for w := range 12 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 9))
			for {
				i := int(next.Add(1))
				if i > total || failures.Load() > 20 {
					return
				}
				it := tenants[rnd.IntN(numTenants)]
				requests.Add(1)
				if msg := isoStep(n, it, tenants[(indexOf(it.slug)+1+rnd.IntN(numTenants-1))%numTenants], rnd); msg != "" {
					fail("tenant %s: %s", it.slug, msg)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)

	// Totals: each tenant lists exactly what it was told it saved.
	for _, it := range tenants {
		for path, want := range map[string]int{
			"/papi/users":               len(it.users),
			"/papi/topics":              len(it.topics),
			"/papi/external_knowledges": it.knowledge,
			"/papi/topic_assignments":   len(it.assigned),
		} {
			requests.Add(1)
			r := n.call(it.slug, it.key, http.MethodGet, path+"?per_page=1", "", 30*time.Second)
			var page struct {
				Total int `json:"total_records"`
			}
			if r.Err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &page) != nil {
				fail("tenant %s: GET %s: %s", it.slug, path, r)
				continue
			}
			if page.Total != want {
				fail("tenant %s: GET %s: total_records %d, want %d", it.slug, path, page.Total, want)
			}
		}
	}
	row.Requests, row.Failures = int(requests.Load()), int(failures.Load())
	t.Logf("%d requests over %d tenants in %v (%.0f/s)", row.Requests, numTenants, elapsed, float64(total)/elapsed.Seconds())
	if t.Failed() {
		t.Logf("node log:\n%s", n.log())
	}
}

// indexOf returns the number in a slug isoNNN.
func indexOf(slug string) int {
	var i int
	fmt.Sscanf(slug, "iso%03d", &i)
	return i
}

// isoStep sends one random request for tenant it and returns what was
// wrong with the answer, or "". other is another tenant: one step in twelve
// asks for other's user and uses it.key on other's host. A nil other leaves
// that step out, so that every step is exactly one request of it, with its key.
func isoStep(n *node, it, other *isoTenant, rnd *rand.Rand) string {
	call := func(method, path, body string, status int) (reply, string) {
		r := n.call(it.slug, it.key, method, path, body, 30*time.Second)
		if r.Err != nil || r.Status != status {
			return r, fmt.Sprintf("%s %s: %s, want %d", method, path, r, status)
		}
		for _, m := range tenantMarker.FindAllString(string(r.Body), -1) {
			if m != it.slug {
				return r, fmt.Sprintf("%s %s: answer names tenant %s: %s", method, path, m, r)
			}
		}
		return r, ""
	}
	person := func() (string, string) {
		name := fmt.Sprintf("%s-u%d", it.slug, it.next())
		return name, fmt.Sprintf(`{"user_name":%q,"first_name":"Iso","last_name":%q,"email":"%s@%s.example"}`, name, it.slug, name, it.slug)
	}
	user, topic := it.someUser(rnd), it.someTopic(rnd)
	ops := 12
	if other == nil {
		ops = 11
	}
	switch op := rnd.IntN(ops); {
	case op == 0 || user == "":
		name, body := person()
		if _, msg := call(http.MethodPost, "/papi/users", body, http.StatusOK); msg != "" {
			return msg
		}
		it.mu.Lock()
		it.users = append(it.users, name)
		it.mu.Unlock()
	case op == 1:
		names, bodies := make([]string, 5), make([]string, 5)
		for i := range names {
			names[i], bodies[i] = person()
		}
		r, msg := call(http.MethodPost, "/papi/users/batch_save", `{"people":[`+strings.Join(bodies, ",")+`]}`, http.StatusOK)
		if msg != "" {
			return msg
		}
		var rep batchReport
		if json.Unmarshal(r.Body, &rep) != nil || rep.Created != 5 || rep.Errors != 0 {
			return "batch report " + r.String()
		}
		it.mu.Lock()
		it.users = append(it.users, names...)
		it.mu.Unlock()
	case op == 2:
		_, msg := call(http.MethodPut, "/papi/users/"+user, fmt.Sprintf(`{"first_name":"%s-F%d"}`, it.slug, it.next()), http.StatusOK)
		return msg
	case op == 3:
		_, msg := call(http.MethodGet, "/papi/users/"+user, "", http.StatusOK)
		return msg
	case op == 4:
		r, msg := call(http.MethodGet, fmt.Sprintf("/papi/users?per_page=100&page=%d", 1+rnd.IntN(2)), "", http.StatusOK)
		if msg != "" {
			return msg
		}
		return checkRecords(r, it.slug, "user_name", "email")
	case op == 5 || topic == "":
		code := fmt.Sprintf("%s-T%d", it.slug, it.next())
		if _, msg := call(http.MethodPost, "/papi/topics", fmt.Sprintf(`{"title":"%s topic","enrolment_code":%q}`, code, code), http.StatusCreated); msg != "" {
			return msg
		}
		it.mu.Lock()
		it.topics = append(it.topics, code)
		it.mu.Unlock()
	case op == 6:
		r, msg := call(http.MethodGet, "/papi/topics?per_page=100", "", http.StatusOK)
		if msg != "" {
			return msg
		}
		return checkRecords(r, it.slug, "title", "enrolment_code")
	case op == 7:
		// Held for the whole call, so the tenant's count of assignments stays exact.
		it.mu.Lock()
		defer it.mu.Unlock()
		if _, msg := call(http.MethodPost, "/papi/topic_assignments", fmt.Sprintf(`{"user_name":%q,"enrolment_code_1":%q}`, user, topic), http.StatusOK); msg != "" {
			return msg
		}
		it.assigned[user+" "+topic] = true
	case op == 8:
		_, msg := call(http.MethodGet, "/papi/topic_assignments?per_page=100", "", http.StatusOK)
		return msg
	case op == 9:
		body := fmt.Sprintf(`{"user_name":%q,"knowledge_type":1,"title":"%s-ek%d"}`, user, it.slug, it.next())
		if _, msg := call(http.MethodPost, "/papi/external_knowledges", body, http.StatusCreated); msg != "" {
			return msg
		}
		it.mu.Lock()
		it.knowledge++
		it.mu.Unlock()
	case op == 10:
		r, msg := call(http.MethodGet, "/papi/external_knowledges?per_page=100", "", http.StatusOK)
		if msg != "" {
			return msg
		}
		return checkRecords(r, it.slug, "title")
	default:
		// Another tenant's user is not found here; this tenant's key does not open the other's host.
		if u := other.someUser(rnd); u != "" {
			if _, msg := call(http.MethodGet, "/papi/users/"+u, "", http.StatusNotFound); msg != "" {
				return msg
			}
		}
		r := n.call(other.slug, it.key, http.MethodGet, "/papi/users", "", 30*time.Second)
		if r.Err != nil || r.Status != http.StatusUnauthorized {
			return fmt.Sprintf("GET /papi/users on %s's host with %s's key: %s, want 401", other.slug, it.slug, r)
		}
	}
	return ""
}

// checkRecords checks that every record of a list answer has each of
// fields, starting with the tenant's slug.
func checkRecords(r reply, slug string, fields ...string) string {
	var page struct {
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal(r.Body, &page); err != nil {
		return "list answer: " + err.Error()
	}
	for _, rec := range page.Records {
		for _, f := range fields {
			if v, _ := rec[f].(string); !strings.HasPrefix(v, slug) {
				return fmt.Sprintf("record %s = %q, not tenant %s's", f, v, slug)
			}
		}
	}
	return ""
}
