//go:build e2e_citus

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// resources is property 2: on a tenant of each worker, through a serve
// node each, every kind of resource works: a webhook, a topic and a
// pathway, users (one, and a batch with an enrolment code), an enrolment
// with progress and completion, a pathway enrolment, an Idempotency-Key
// write replayed, lists with filters, SCIM Users and Groups, and a
// certificate to its PDF.
func (r *citusRun) resources(t *testing.T, p *citusProp) {
	for i := range r.onWorker {
		tn := r.onWorker[i]
		if tn.slug == "" {
			t.Fatalf("no tenant on worker %d (property 1)", i+1)
		}
		start := time.Now()
		calls := 0
		ok := t.Run(tn.slug, func(t *testing.T) { calls = r.exercise(t, i, tn) })
		if ok {
			p.figure("%s on %s via node %d: %d requests in %s", tn.slug, r.topo.workers[i], i+1, calls, ms(time.Since(start)))
		}
	}
}

// exercise runs the resources of property 2 on tenant tn (on worker i)
// through serve node i, and returns the number of requests made.
func (r *citusRun) exercise(t *testing.T, i int, tn tenant) int {
	topo := r.topo
	calls := 0
	papi := func(method, path string, body any, want int) answer {
		t.Helper()
		calls++
		a := topo.papi(i, method, tn, path, body)
		if a.status != want {
			t.Fatalf("%s %s: %s, want %d", method, path, a, want)
		}
		return a
	}
	var created struct {
		ID     int64  `json:"id"`
		Secret string `json:"secret"`
	}
	// The webhook first, so that every later change is an event.
	rc := r.hooks[i]
	papi(http.MethodPost, "/webhooks", map[string]any{"url": rc.url, "events": []string{"*"}}, http.StatusCreated).decode(t, &created)
	secret, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Secret, "whsec_"))
	if err != nil {
		t.Fatalf("webhook secret %q: %v", created.Secret, err)
	}
	rc.mu.Lock()
	rc.secret = secret
	rc.mu.Unlock()

	since := time.Now().UTC().Add(-2 * time.Second).Format("2006-01-02T15:04:05")
	papi(http.MethodPost, "/topics", map[string]any{"title": "Safety", "enrolment_code": "SAFE-1", "show_certificate": true}, http.StatusCreated).decode(t, &created)
	topicID := created.ID
	papi(http.MethodPost, "/pathways", map[string]any{"title": "Induction", "enrolment_code": "PATH-1",
		"topics": []map[string]any{{"topic_id": topicID}}}, http.StatusCreated).decode(t, &created)
	pathwayID := created.ID

	papi(http.MethodPost, "/users", newUser("solo"), 200)
	const people = 10
	var rows []map[string]any
	for k := 0; k < people; k++ {
		row := newUser(fmt.Sprintf("b%d", k))
		row["enrolment_code_1"] = "SAFE-1"
		rows = append(rows, row)
	}
	var batch struct{ Created, Enrolled, Errors int }
	papi(http.MethodPost, "/users/batch_save", map[string]any{"people": rows}, 200).decode(t, &batch)
	if batch.Created != people || batch.Enrolled != people || batch.Errors != 0 {
		t.Fatalf("batch save: %+v, want %d created and enrolled", batch, people)
	}

	// Idempotency-Key: the same write twice is one user, the second answer a replay.
	key := fmt.Sprintf("e2ec-%s-%d", tn.slug, time.Now().UnixNano())
	first := topo.api(topo.nodes[i], http.MethodPost, tn.slug, "/papi/users", tn.key, newUser("idem"), map[string]string{"Idempotency-Key": key})
	again := topo.api(topo.nodes[i], http.MethodPost, tn.slug, "/papi/users", tn.key, newUser("idem"), map[string]string{"Idempotency-Key": key})
	calls += 2
	if first.status != 200 || again.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.body, again.body) {
		t.Fatalf("Idempotency-Key: first %s; again %s (Idempotent-Replayed %q)", first, again, again.header.Get("Idempotent-Replayed"))
	}

	// An enrolment with progress, completed; a pathway enrolment.
	var assigned struct {
		Assignments []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"assignments"`
	}
	papi(http.MethodPost, "/topic_assignments", map[string]any{"user_name": "solo", "enrolment_code_1": "SAFE-1"}, 200).decode(t, &assigned)
	if len(assigned.Assignments) != 1 {
		t.Fatalf("enrol solo: %+v", assigned)
	}
	assignment := assigned.Assignments[0].ID
	papi(http.MethodPost, fmt.Sprintf("/topic_assignments/%d/progress", assignment), map[string]any{"status": "Exploring", "minutes": 15}, 200)
	papi(http.MethodPost, "/topic_assignments", map[string]any{"user_name": "solo", "enrolment_code_1": "SAFE-1 COMPLETE"}, 200).decode(t, &assigned)
	if len(assigned.Assignments) != 1 || assigned.Assignments[0].Status != "Conquered" {
		t.Fatalf("complete solo's enrolment: %+v", assigned)
	}
	papi(http.MethodPost, "/topic_assignments", map[string]any{"user_name": "b0", "enrolment_code_1": "PATH-1"}, 200)

	// Lists with filters.
	list := func(path string, want int) {
		t.Helper()
		var env struct {
			Total int `json:"total_records"`
		}
		papi(http.MethodGet, path, nil, 200).decode(t, &env)
		if env.Total != want {
			t.Errorf("GET %s: total_records %d, want %d", path, env.Total, want)
		}
	}
	list("/users?email=idem@e2e.example", 1)
	list("/users?per_page=100&updated_after="+url.QueryEscape(since), people+2)
	list(fmt.Sprintf("/topic_assignments?topic_id=%d&per_page=100", topicID), people+1)
	list("/topic_assignments?user_name=solo", 1)
	list(fmt.Sprintf("/pathway_assignments?pathway_id=%d", pathwayID), 1)
	list("/topics", 1)

	// SCIM: a user, found by a filter; a group with that member.
	scimCall := func(method, path string, body any, want int) answer {
		t.Helper()
		calls++
		a := topo.api(topo.nodes[i], method, tn.slug, "/scim/v2"+path, "Bearer "+tn.key, body, map[string]string{"Content-Type": "application/scim+json"})
		if a.status != want {
			t.Fatalf("SCIM %s %s: %s, want %d", method, path, a, want)
		}
		return a
	}
	var scimUser struct {
		ID string `json:"id"`
	}
	scimCall(http.MethodPost, "/Users", map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"},
		"userName": "scim-1", "name": map[string]string{"givenName": "Sam", "familyName": "Cim"},
		"emails": []map[string]any{{"value": "scim-1@e2e.example", "primary": true}}}, http.StatusCreated).decode(t, &scimUser)
	var found struct {
		Total int `json:"totalResults"`
	}
	scimCall(http.MethodGet, "/Users?filter="+url.QueryEscape(`userName eq "scim-1"`), nil, 200).decode(t, &found)
	if found.Total != 1 {
		t.Errorf("SCIM filter userName eq scim-1: %d results", found.Total)
	}
	var group struct {
		ID      string `json:"id"`
		Members []struct {
			Value string `json:"value"`
		} `json:"members"`
	}
	scimCall(http.MethodPost, "/Groups", map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"},
		"displayName": "Crew", "members": []map[string]string{{"value": scimUser.ID}}}, http.StatusCreated).decode(t, &group)
	scimCall(http.MethodGet, "/Groups/"+group.ID, nil, 200).decode(t, &group)
	if len(group.Members) != 1 || group.Members[0].Value != scimUser.ID {
		t.Errorf("SCIM group members: %+v, want [%s]", group.Members, scimUser.ID)
	}

	// A certificate, from the request to the PDF (made by the worker).
	var job struct {
		JobID  string `json:"job_id"`
		Status string `json:"status"`
		URL    string `json:"url"`
	}
	papi(http.MethodGet, fmt.Sprintf("/certificates?topic_assignment_id=%d", assignment), nil, http.StatusAccepted).decode(t, &job)
	for k := 0; k < 100 && job.Status == "pending"; k++ {
		time.Sleep(200 * time.Millisecond)
		papi(http.MethodGet, "/certificates/status/"+job.JobID, nil, 200).decode(t, &job)
	}
	u, err := url.Parse(job.URL)
	if job.Status != "complete" || err != nil || u.Host != topo.host(tn.slug) {
		t.Fatalf("certificate job: %+v", job)
	}
	calls++
	pdf := topo.api(topo.nodes[i], http.MethodGet, tn.slug, u.RequestURI(), "", nil, nil)
	if pdf.status != 200 || !bytes.HasPrefix(pdf.body, []byte("%PDF-")) {
		t.Fatalf("certificate download: %d, %d bytes", pdf.status, len(pdf.body))
	}

	names := []string{"solo", "idem", "scim-1"}
	for k := 0; k < people; k++ {
		names = append(names, fmt.Sprintf("b%d", k))
	}
	r.users[i] = names
	return calls
}

// webhooksOnce is property 3: every user.created of property 2 and the
// certificate's event arrive at each tenant's receiver, signed, and no
// event twice (a little time is left for a duplicate to show).
func (r *citusRun) webhooksOnce(t *testing.T, p *citusProp) {
	for i, rc := range r.hooks {
		tn := r.onWorker[i]
		if len(r.users[i]) == 0 {
			t.Fatalf("%s: property 2 made no users", tn.slug)
		}
		complete := func() bool {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			for _, u := range r.users[i] {
				if !rc.users[u] {
					return false
				}
			}
			return rc.types["certificate.completed"] > 0
		}
		start := time.Now()
		for k := 0; k < 150 && !complete(); k++ {
			time.Sleep(200 * time.Millisecond)
		}
		waited := time.Since(start)
		time.Sleep(time.Second)
		rc.mu.Lock()
		deliveries, dups := 0, 0
		for _, n := range rc.byID {
			deliveries += n
			if n > 1 {
				dups++
			}
		}
		events, types, bad := len(rc.byID), fmt.Sprint(rc.types), rc.badSigs
		rc.mu.Unlock()
		if !complete() {
			t.Errorf("%s: not every event arrived within 30 s: %s", tn.slug, types)
		}
		if dups > 0 || bad > 0 {
			t.Errorf("%s: %d events delivered more than once, %d bad signatures", tn.slug, dups, bad)
		}
		p.figure("%s (%s): %d events, %d deliveries, 0 twice, signatures valid (all there after %s more)", tn.slug, r.topo.workers[i], events, deliveries, ms(waited))
	}
}
