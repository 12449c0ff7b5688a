//go:build e2e_upgrade

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// upgradeLoad is the mixed load of make e2e-upgrade: clients calling the
// Public API of a tenant over the nodes in rotation (round robin), each
// completed request recorded with the phase it ended in. The test moves
// nodes in and out of the rotation and the phase on; clients stop at stop()
// or after maxCalls each.
type upgradeLoad struct {
	env      *upgradeEnv
	run      string // makes this run's user names unique
	rotation atomic.Pointer[[]*upgradeProc]
	phase    atomic.Int32
	turn     atomic.Uint64
	quit     chan struct{}
	wg       sync.WaitGroup

	mu   sync.Mutex
	done []completion
}

// completion is one finished request: its tenant, kind and node, when it
// ended and in which phase, and why it failed ("" when it did not).
type completion struct {
	tenant  string
	kind    string
	node    string
	phase   int
	at      time.Time
	took    time.Duration
	failure string
}

// maxCalls bounds each client's loop (the stop channel ends it first).
const maxCalls = 200_000

func newUpgradeLoad(env *upgradeEnv) *upgradeLoad {
	return &upgradeLoad{env: env, run: fmt.Sprintf("%x", time.Now().UnixNano()%0xfffffff), quit: make(chan struct{})}
}

// setNodes puts nodes in the rotation, replacing the previous ones.
func (l *upgradeLoad) setNodes(nodes ...*upgradeProc) { l.rotation.Store(&nodes) }

// setPhase makes later completions count for phase i.
func (l *upgradeLoad) setPhase(i int) { l.phase.Store(int32(i)) }

// pick is the next node of the rotation.
func (l *upgradeLoad) pick() *upgradeProc {
	nodes := *l.rotation.Load()
	return nodes[int(l.turn.Add(1)%uint64(len(nodes)))]
}

// client starts one client on tn; full selects the mixed load of the big
// tenant (lists, x- filtered lists, creates, batches of 10, enrolment
// lists), otherwise lists and x- filtered lists only.
func (l *upgradeLoad) client(tn tenant, c int, full bool) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for i := 0; i < maxCalls; i++ {
			select {
			case <-l.quit:
				return
			default:
			}
			l.record(l.do(tn, c, i, full, l.pick()))
		}
	}()
}

// do sends client c's i-th request to node n and judges its answer.
func (l *upgradeLoad) do(tn tenant, c, i int, full bool, n *upgradeProc) completion {
	kind, method, path, body := l.request(c, i, full)
	a := call(directClient, method, n.url+"/papi"+path, l.env.host(tn.slug), tn.key, body, nil)
	failure := judge(kind, a)
	if failure != "" {
		failure = fmt.Sprintf("%s %s on %s: %s", method, strings.SplitN(path, "?", 2)[0], n.name, failure)
	}
	return completion{tenant: tn.slug, kind: kind, node: n.name, at: time.Now(), took: a.took, failure: failure}
}

// record counts c for the current phase.
func (l *upgradeLoad) record(c completion) {
	c.phase = int(l.phase.Load())
	l.mu.Lock()
	l.done = append(l.done, c)
	l.mu.Unlock()
}

// stop ends every client after its request in flight and waits for them.
func (l *upgradeLoad) stop() {
	close(l.quit)
	l.wg.Wait()
}

// completions returns what the clients have recorded so far.
func (l *upgradeLoad) completions() []completion {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]completion(nil), l.done...)
}

// request is client c's i-th request: the five kinds in turn, each client
// starting at another one.
func (l *upgradeLoad) request(c, i int, full bool) (kind, method, path string, body any) {
	k := (c + i) % 5
	if !full {
		k = i % 2
	}
	n := c*7919 + i*104729 // spreads the users and values picked
	switch k {
	case 0:
		return "list", http.MethodGet, fmt.Sprintf("/users?per_page=25&page=%d", 1+i%3), nil
	case 1:
		j := i / 5
		if !full {
			j = (i / 2) % 2 // the small tenant has City and Level only
		}
		return "filtered", http.MethodGet, "/users?" + l.filter(j, n), nil
	case 2:
		name := fmt.Sprintf("uc-%s-%d-%d", l.run, c, i)
		return "create", http.MethodPost, "/users", upgradeUser(name, n)
	case 3:
		people := make([]map[string]any, 0, 10)
		for r := 0; r < 7; r++ {
			row := upgradeUser(fmt.Sprintf("ub-%s-%d-%d-%d", l.run, c, i, r), n+r)
			row["enrolment_code_1"] = "UPG-2"
			people = append(people, row)
		}
		for r := 0; r < 3; r++ {
			seed := 1 + (n+r*211)%l.env.users
			people = append(people, map[string]any{"user_name": fmt.Sprintf("seed%d", seed),
				"X-City": fmt.Sprintf("Town %d", (n+r)%50), "X-Level": fmt.Sprint((n + r) % 100)})
		}
		return "batch", http.MethodPost, "/users/batch_save", map[string]any{"people": people}
	default:
		q := []string{"per_page=25", "per_page=25&topic_id=1",
			fmt.Sprintf("per_page=25&user_name=seed%d", 5*(1+n%(l.env.users/5)))}[i%3]
		return "enrolments", http.MethodGet, "/topic_assignments?" + q, nil
	}
}

// filter is the j-th x- filter: a part of a string value, an exact
// number, an exact date, a list option, in turn.
func (l *upgradeLoad) filter(j, n int) string {
	v := url.Values{"per_page": {"25"}}
	switch j % 4 {
	case 0:
		v.Set("x-City", fmt.Sprintf("city %d", n%500))
	case 1:
		v.Set("x-Level", fmt.Sprint(n%100))
	case 2:
		v.Set("x-Start", time.Date(2020, 1, 1+n%1000, 0, 0, 0, 0, time.UTC).Format("2006-01-02"))
	default:
		v.Set("x-Team", []string{"Blue", "Gold", "Green", "Red"}[n%4])
	}
	return v.Encode()
}

// upgradeUser is a new user's body with a value for each custom field.
func upgradeUser(name string, n int) map[string]any {
	u := newUser(name)
	u["X-City"] = fmt.Sprintf("City %d", n%500)
	u["X-Level"] = fmt.Sprint(n % 100)
	u["X-Start"] = time.Date(2021, 1, 1+n%365, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	u["X-Team"] = []string{"Blue", "Gold", "Green", "Red"}[n%4]
	return u
}

// judge says why an answer is a failure: a transport error, a status
// other than 2xx, or a batch whose answer counts row errors.
func judge(kind string, a answer) string {
	switch {
	case a.err != nil:
		return a.err.Error()
	case a.status < 200 || a.status > 299:
		return clip(a.String())
	case kind == "batch":
		var out struct {
			Errors    int               `json:"errors"`
			ErrorList []json.RawMessage `json:"error_list"`
		}
		if err := json.Unmarshal(a.body, &out); err != nil {
			return "batch answer: " + err.Error()
		}
		if out.Errors > 0 && len(out.ErrorList) > 0 {
			return clip(fmt.Sprintf("%d row errors: %s", out.Errors, out.ErrorList[0]))
		}
		if out.Errors > 0 {
			return fmt.Sprintf("%d row errors", out.Errors)
		}
	}
	return ""
}

// clip shortens a failure for the report.
func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}
