//go:build e2e_citus

package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// moveView is the "move" object of the ops API's move routes.
type moveView struct {
	ID         int64   `json:"id"`
	Tenant     string  `json:"tenant"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	State      string  `json:"state"`
	Error      *string `json:"error"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

// moveLoad is what the load of property 4 saw.
type moveLoad struct {
	mu        sync.Mutex
	reads     int
	readFails []string
	writes    int
	refused   int // 503 with Retry-After, retried
	writeFail []string
	acked     []string
	slowest   time.Duration // the longest a write waited for its acknowledgement, retries included
}

// move is property 4: tenant r.moved moves from worker1 to worker2
// through the ops API while two readers and two writers run (bounded:
// 90 s at most); no read fails, a write is refused only with 503 and
// Retry-After (and then retried with its Idempotency-Key), and every
// acknowledged write is in the tenant's table afterwards.
func (r *citusRun) move(t *testing.T, p *citusProp) {
	topo := r.topo
	tn := r.moved
	if tn.slug == "" {
		t.Fatal("no tenant to move (property 1)")
	}
	from, to := topo.workers[0], topo.workers[1]
	if r.node[tn.slug] != from {
		t.Fatalf("%s is on %s, want %s", tn.slug, r.node[tn.slug], from)
	}
	// Some data to move: 200 users.
	for b := 0; b < 2; b++ {
		var rows []map[string]any
		for k := 0; k < 100; k++ {
			rows = append(rows, newUser(fmt.Sprintf("seed-%d-%d", b, k)))
		}
		if a := topo.papi(b%2, http.MethodPost, tn, "/users/batch_save", map[string]any{"people": rows}); a.status != 200 {
			t.Fatalf("seed %s: %s", tn.slug, a)
		}
	}

	var stop atomic.Bool
	ld := &moveLoad{}
	var wg sync.WaitGroup
	deadline := time.Now().Add(90 * time.Second)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && time.Now().Before(deadline); i++ {
				if w < 2 {
					ld.read(topo, w, tn)
				} else {
					ld.write(topo, w, tn, fmt.Sprintf("mv-%d-%d", w, i))
				}
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()

	time.Sleep(time.Second)
	start := time.Now()
	a := topo.opsCall(topo.ops[0], http.MethodPost, "/ops/v1/tenants/"+tn.slug+"/move", map[string]string{"node": to})
	if a.status == http.StatusNotFound {
		stop.Store(true)
		wg.Wait()
		p.missing(t, "POST /ops/v1/tenants/{slug}/move answers %s", a)
		return
	}
	var out struct {
		Move moveView `json:"move"`
	}
	if a.status != http.StatusAccepted {
		t.Fatalf("POST move: %s, want 202", a)
	}
	a.decode(t, &out)
	loc := fmt.Sprintf("/ops/v1/tenants/%s/moves/%d", tn.slug, out.Move.ID)
	if got := a.header.Get("Location"); got != loc {
		t.Errorf("move Location %q, want %q", got, loc)
	}
	if out.Move.From != from || out.Move.To != to || (out.Move.State != "queued" && out.Move.State != "running") {
		t.Errorf("move: %+v, want from %s to %s, queued or running", out.Move, from, to)
	}
	states := map[string]bool{out.Move.State: true}
	for time.Now().Before(deadline) && out.Move.State != "done" && out.Move.State != "failed" {
		time.Sleep(200 * time.Millisecond)
		a = topo.opsCall(topo.ops[1], http.MethodGet, loc, nil)
		if a.status != 200 {
			t.Fatalf("GET %s: %s", loc, a)
		}
		a.decode(t, &out)
		states[out.Move.State] = true
	}
	took := time.Since(start)
	time.Sleep(time.Second) // the load goes on a moment on the new node
	stop.Store(true)
	wg.Wait()
	if out.Move.State != "done" {
		t.Errorf("move ended %q after %s: %s", out.Move.State, ms(took), a)
	}

	ld.mu.Lock()
	defer ld.mu.Unlock()
	rows := topo.count(t, fmt.Sprintf("SELECT count(*) FROM %s.users WHERE user_name = ANY($1)", tn.schema()), pqArray(ld.acked))
	if rows != len(ld.acked) {
		t.Errorf("%d acknowledged writes, %d rows: %d lost", len(ld.acked), rows, len(ld.acked)-rows)
	}
	for k, f := range ld.readFails {
		if k < 3 {
			t.Errorf("read failed during the move: %s", f)
		}
	}
	for k, f := range ld.writeFail {
		if k < 3 {
			t.Errorf("write failed during the move: %s", f)
		}
	}
	places := topo.placement(t)
	if got := topo.nodeOf(t, places, tn); got != to {
		t.Errorf("after the move Citus places %s on %s, want %s", tn.slug, got, to)
	} else {
		r.node[tn.slug] = to
	}
	if got, ok := topo.databaseNode(t, tn.slug); ok && got != to {
		t.Errorf("after the move database_node is %s, want %s", got, to)
	}
	p.figure("%s %s → %s in %s (states seen %v)", tn.slug, from, to, ms(took), keys(states))
	p.figure("%d reads, %d failed; %d writes acknowledged, %d rows, %d failed; %d refused with 503 + Retry-After and retried; slowest write %s",
		ld.reads, len(ld.readFails), len(ld.acked), rows, len(ld.writeFail), ld.refused, ms(ld.slowest))
}

// read lists a page of users on node w%2; any answer but 200 is a failure.
func (ld *moveLoad) read(topo *citusTopology, w int, tn tenant) {
	a := topo.papi(w%2, http.MethodGet, tn, "/users?per_page=20", nil)
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.reads++
	if a.err != nil || a.status != 200 {
		ld.readFails = append(ld.readFails, a.String())
	}
}

// write creates user name on node w%2 with an Idempotency-Key, and retries
// (at most 20 times) while the answer is 503 with Retry-After, waiting as
// told (at most 2 s a time). Anything else but 200 is a failure.
func (ld *moveLoad) write(topo *citusTopology, w int, tn tenant, name string) {
	key := "mv-" + name
	start := time.Now()
	var a answer
	refused := 0
	for try := 0; try < 20; try++ {
		a = topo.api(topo.nodes[w%2], http.MethodPost, tn.slug, "/papi/users", tn.key, newUser(name), map[string]string{"Idempotency-Key": key})
		ra := a.header.Get("Retry-After")
		if a.status != http.StatusServiceUnavailable || ra == "" {
			break
		}
		refused++
		secs, err := strconv.Atoi(ra)
		if err != nil {
			break
		}
		time.Sleep(min(time.Duration(secs)*time.Second, 2*time.Second))
	}
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.writes++
	ld.refused += refused
	if a.err != nil || a.status != 200 {
		ld.writeFail = append(ld.writeFail, fmt.Sprintf("%s (after %d refusals)", a, refused))
		return
	}
	ld.acked = append(ld.acked, name)
	ld.slowest = max(ld.slowest, time.Since(start))
}

// keys lists a set's members in order.
func keys(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
