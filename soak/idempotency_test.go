//go:build slow

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// retryState is what the clients of TestIdempotentRetries were told they
// saved, and how they got there.
type retryState struct {
	mu       sync.Mutex
	users    []string        // acknowledged user names
	assigned map[string]bool // "<user> <code>" pairs sent (acknowledged by the end)
	writes   int             // writes acknowledged

	attempts, cut, busy, replayed atomic.Int64
}

// retryTopics are the enrolment codes of the topics the clients enrol users in.
var retryTopics = []string{"RT-1", "RT-2", "RT-3", "RT-4"}

// TestIdempotentRetries: clients send every write (POST /papi/users,
// batch_save, topic_assignments) with an Idempotency-Key and a client-side
// timeout of 5 to 50 ms, so that many are cut off mid-flight, and retry
// each with the same key and body until it is answered (and one answer in
// three once more, as if it had been lost: that must be a replay). At the end the
// tenant holds exactly one copy of everything written: one user, one
// user.created event and one invitation per user name, one enrolment and
// one topic_enrolment.created event per pair, and every batch answered
// "created 3" (a batch that ran twice would answer "unchanged").
func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	row := &result{Scenario: "idempotent retries"}
	results.record(t, row)
	dbURL := freshDatabase(t)
	n := startNode(t, nodeOptions{DatabaseURL: dbURL})
	key := n.createTenant("acme", 1_000_000)
	setup := []struct{ path, body string }{{"/papi/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["*"]}`}}
	for _, code := range retryTopics {
		setup = append(setup, struct{ path, body string }{"/papi/topics", fmt.Sprintf(`{"title":%q,"enrolment_code":%q}`, code, code)})
	}
	for _, s := range setup {
		if r := n.call("acme", key, http.MethodPost, s.path, s.body, 30*time.Second); r.Err != nil || r.Status != http.StatusCreated {
			t.Fatalf("POST %s: %s", s.path, r)
		}
	}

	st := &retryState{assigned: map[string]bool{}}
	var failures atomic.Int64
	var stop atomic.Bool
	stopLoad := startLoad(8, &stop, func(w int) {
		rnd := rand.New(rand.NewPCG(uint64(w), 18))
		for seq := 0; !stop.Load() && failures.Load() < 20; seq++ {
			if msg := retryStep(n, key, st, rnd, fmt.Sprintf("w%d-%d", w, seq)); msg != "" {
				failures.Add(1)
				t.Error(msg)
			}
		}
	})
	time.Sleep(pick(8*time.Second, 60*time.Second))
	stopLoad()

	users, pairs, problems := checkRetryCopies(t, dbURL, tenantSchema(t, n, "acme"), st)
	for _, p := range problems {
		failures.Add(1)
		t.Error(p)
	}
	row.Requests, row.Failures = int(st.attempts.Load()), int(failures.Load())
	row.Detail = fmt.Sprintf("writes %d (users %d, enrolments %d); cut mid-flight %d, 409 %d, replayed %d",
		st.writes, users, pairs, st.cut.Load(), st.busy.Load(), st.replayed.Load())
	t.Log(row.Detail)
	if st.cut.Load() == 0 || st.replayed.Load() == 0 {
		t.Errorf("no request was cut off (%d) or replayed (%d): the scenario tested nothing", st.cut.Load(), st.replayed.Load())
	}
	if t.Failed() {
		t.Logf("node log:\n%s", n.log())
	}
}

// retryStep makes one write with Idempotency-Key idemKey, retried until
// answered (retryUntilAnswered), and records it; it returns what was
// wrong, or "".
func retryStep(n *node, key string, st *retryState, rnd *rand.Rand, idemKey string) string {
	person := func(i int) (string, string) {
		name := fmt.Sprintf("%s-%d", idemKey, i)
		return name, fmt.Sprintf(`{"user_name":%q,"first_name":"Retry","last_name":"Soak","email":"%s@retry.example"}`, name, name)
	}
	switch op := rnd.IntN(3); op {
	case 0, 1:
		count, path := 1, "/papi/users"
		if op == 1 {
			count, path = 3, "/papi/users/batch_save"
		}
		names, bodies := make([]string, count), make([]string, count)
		for i := range names {
			names[i], bodies[i] = person(i)
		}
		body := strings.Replace(bodies[0], `{`, `{"send_invitation":true,`, 1)
		if op == 1 {
			body = `{"send_invitations":"new","people":[` + strings.Join(bodies, ",") + `]}`
		}
		r, msg := retryUntilAnswered(n, key, st, rnd, path, body, idemKey)
		if msg != "" {
			return msg
		}
		if op == 1 {
			var rep batchReport
			if json.Unmarshal(r.Body, &rep) != nil || rep.Created != 3 || rep.Errors != 0 {
				return fmt.Sprintf("batch %s: %s, want 3 created", idemKey, r)
			}
		}
		st.mu.Lock()
		st.users = append(st.users, names...)
		st.writes++
		st.mu.Unlock()
	case 2:
		st.mu.Lock()
		if len(st.users) == 0 {
			st.mu.Unlock()
			return ""
		}
		user, code := st.users[rnd.IntN(len(st.users))], retryTopics[rnd.IntN(len(retryTopics))]
		pair := user + " " + code
		if st.assigned[pair] {
			st.mu.Unlock()
			return ""
		}
		st.assigned[pair] = true // taken before sending: no other client sends this pair
		st.mu.Unlock()
		if _, msg := retryUntilAnswered(n, key, st, rnd, "/papi/topic_assignments",
			fmt.Sprintf(`{"user_name":%q,"enrolment_code_1":%q}`, user, code), idemKey); msg != "" {
			return msg
		}
		st.mu.Lock()
		st.writes++
		st.mu.Unlock()
	}
	return ""
}

// retryUntilAnswered POSTs body to path with Idempotency-Key idemKey and a
// client timeout of 5 to 50 ms, again after every cut-off or 409, until it
// is answered; after 20 tries the timeout is 30 s. Only 200 is an answer.
// One answer in three is then taken as lost: the same write is sent once
// more and must be the replay of the answer, byte for byte.
func retryUntilAnswered(n *node, key string, st *retryState, rnd *rand.Rand, path, body, idemKey string) (reply, string) {
	for attempt := 1; attempt <= 200; attempt++ {
		timeout := time.Duration(5+rnd.IntN(46)) * time.Millisecond
		if attempt > 20 {
			timeout = 30 * time.Second
		}
		st.attempts.Add(1)
		r := n.keyedCall(key, path, body, idemKey, timeout)
		switch {
		case r.Err != nil:
			st.cut.Add(1)
			continue
		case r.Status == http.StatusConflict:
			st.busy.Add(1)
			time.Sleep(5 * time.Millisecond)
			continue
		case r.Status != http.StatusOK:
			return r, fmt.Sprintf("POST %s (key %s, try %d): %s, want 200", path, idemKey, attempt, r)
		}
		if r.Header.Get("Idempotent-Replayed") == "true" {
			st.replayed.Add(1)
		}
		if got := r.Header.Get("Idempotency-Key"); got != idemKey {
			return r, fmt.Sprintf("POST %s: Idempotency-Key echoed %q, want %q", path, got, idemKey)
		}
		if rnd.IntN(3) == 0 { // the answer is lost on the way back: the client sends the write again
			st.attempts.Add(1)
			again := n.keyedCall(key, path, body, idemKey, 30*time.Second)
			if again.Err != nil || again.Status != r.Status || string(again.Body) != string(r.Body) ||
				again.Header.Get("Idempotent-Replayed") != "true" {
				return r, fmt.Sprintf("POST %s (key %s) again: %s (replayed %q), want the replay of %s",
					path, idemKey, again, again.Header.Get("Idempotent-Replayed"), r)
			}
			st.replayed.Add(1)
		}
		return r, ""
	}
	return reply{}, fmt.Sprintf("POST %s (key %s): no answer in 200 tries", path, idemKey)
}

// keyedCall POSTs body to path of tenant acme with Idempotency-Key idemKey.
func (n *node) keyedCall(key, path, body, idemKey string, timeout time.Duration) reply {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+n.public+path, strings.NewReader(body))
	if err != nil {
		return reply{Err: err}
	}
	req.Host = "acme." + baseDomain
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idemKey)
	return n.do(req)
}

// checkRetryCopies compares the tenant's rows with what the clients were
// told: it returns the numbers of users and enrolments and every problem.
func checkRetryCopies(t *testing.T, dbURL, schema string, st *retryState) (users, pairs int, problems []string) {
	t.Helper()
	db, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", dbURL, err)
	}
	defer db.Close()
	counts := func(q string) map[string]int {
		var rows []struct {
			Name string `db:"name"`
			N    int    `db:"n"`
		}
		if err := db.Select(&rows, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		m := map[string]int{}
		for _, r := range rows {
			m[r.Name] = r.N
		}
		return m
	}
	saved := counts(`SELECT user_name AS name, count(*) AS n FROM ` + schema + `.users GROUP BY 1`)
	created := counts(`SELECT data->>'user_name' AS name, count(*) AS n FROM ` + schema + `.webhook_events
		WHERE type = 'user.created' GROUP BY 1`)
	invited := counts(`SELECT u.user_name AS name, count(*) AS n FROM public.river_job j JOIN ` + schema + `.users u
		ON u.id = (j.args->>'user_id')::bigint WHERE j.kind = 'send_invitation' AND j.args->>'schema' = '` + schema + `' GROUP BY 1`)
	enrolled := counts(`SELECT u.user_name || ' ' || c.code AS name, count(*) AS n FROM ` + schema + `.topic_enrolments e
		JOIN ` + schema + `.users u ON u.id = e.user_id JOIN ` + schema + `.enrolment_codes c ON c.topic_id = e.topic_id GROUP BY 1`)
	enrolEvents := counts(`SELECT (data->'user'->>'user_name') || ' ' || (data->'topic'->>'title') AS name, count(*) AS n FROM ` + schema + `.webhook_events
		WHERE type = 'topic_enrolment.created' GROUP BY 1`)

	st.mu.Lock()
	defer st.mu.Unlock()
	for _, name := range st.users {
		if saved[name] != 1 || created[name] != 1 || invited[name] != 1 {
			problems = append(problems, fmt.Sprintf("user %s: %d rows, %d user.created events, %d invitations; want 1 of each",
				name, saved[name], created[name], invited[name]))
		}
	}
	if len(saved) != len(st.users) {
		problems = append(problems, fmt.Sprintf("%d users saved, %d acknowledged", len(saved), len(st.users)))
	}
	for pair := range st.assigned {
		if enrolled[pair] != 1 || enrolEvents[pair] != 1 {
			problems = append(problems, fmt.Sprintf("enrolment %s: %d rows, %d topic_enrolment.created events; want 1 of each",
				pair, enrolled[pair], enrolEvents[pair]))
		}
	}
	if len(enrolled) != len(st.assigned) {
		problems = append(problems, fmt.Sprintf("%d enrolments saved, %d acknowledged", len(enrolled), len(st.assigned)))
	}
	if len(problems) > 20 {
		problems = append(problems[:20], fmt.Sprintf("... and %d more", len(problems)-20))
	}
	return len(saved), len(enrolled), problems
}
