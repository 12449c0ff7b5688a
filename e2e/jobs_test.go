//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// jobsAndWebhooks is property 5: a users batch with enrolments, an
// enrolment, a certificate (job → PDF → download through Caddy) and signed
// webhook deliveries, all through PgBouncer; periodic jobs once per
// cluster; each event delivered once.
func (r *e2eRun) jobsAndWebhooks(t *testing.T, figures *[]string) {
	topo := r.topo
	c := topo.caddyClient("127.0.0.4")
	key := r.alpha.key
	rc := startReceiver(t)

	a := topo.papi(c, http.MethodPost, "alpha", "/webhooks", key, map[string]any{"url": rc.url, "events": []string{"*"}})
	if a.status != http.StatusCreated {
		t.Fatalf("register webhook: %s", a)
	}
	var hook struct {
		Secret string `json:"secret"`
	}
	a.decode(t, &hook)
	secret, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(hook.Secret, "whsec_"))
	if err != nil {
		t.Fatalf("webhook secret %q: %v", hook.Secret, err)
	}
	rc.mu.Lock()
	rc.secret = secret
	rc.mu.Unlock()

	if a := topo.papi(c, http.MethodPost, "alpha", "/topics", key, map[string]any{"title": "Safety", "enrolment_code": "SAFE-1",
		"show_certificate": true}); a.status != http.StatusCreated {
		t.Fatalf("create topic: %s", a)
	}
	const people = 50
	var rows []map[string]any
	for i := 0; i < people; i++ {
		row := newUser(fmt.Sprintf("batch-%d", i))
		row["enrolment_code_1"] = "SAFE-1"
		rows = append(rows, row)
	}
	a = topo.papi(c, http.MethodPost, "alpha", "/users/batch_save", key, map[string]any{"people": rows})
	var batch struct {
		Created, Enrolled, Errors int
	}
	if a.status == 200 {
		a.decode(t, &batch)
	}
	if a.status != 200 || batch.Created != people || batch.Enrolled != people || batch.Errors != 0 {
		t.Fatalf("batch save: %s", a)
	}
	a = topo.papi(c, http.MethodPost, "alpha", "/topic_assignments", key,
		map[string]any{"user_name": "batch-0", "enrolment_code_1": "SAFE-1 COMPLETE"})
	var assigned struct {
		Assignments []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"assignments"`
	}
	if a.status == 200 {
		a.decode(t, &assigned)
	}
	if a.status != 200 || len(assigned.Assignments) != 1 || assigned.Assignments[0].Status != "Conquered" {
		t.Fatalf("complete enrolment: %s", a)
	}

	certStart := time.Now()
	a = topo.papi(c, http.MethodGet, "alpha", fmt.Sprintf("/certificates?topic_assignment_id=%d", assigned.Assignments[0].ID), key, nil)
	var job struct {
		JobID  string `json:"job_id"`
		Status string `json:"status"`
		URL    string `json:"url"`
	}
	if a.status != http.StatusAccepted {
		t.Fatalf("request certificate: %s", a)
	}
	a.decode(t, &job)
	for i := 0; i < 100 && job.Status == "pending"; i++ {
		time.Sleep(200 * time.Millisecond)
		a = topo.papi(c, http.MethodGet, "alpha", "/certificates/status/"+job.JobID, key, nil)
		a.decode(t, &job)
	}
	if job.Status != "complete" || !strings.HasPrefix(job.URL, "https://"+topo.host("alpha")+"/") {
		t.Fatalf("certificate job: %s", a)
	}
	pdf := call(c, http.MethodGet, job.URL, "", "", nil, nil)
	if pdf.status != 200 || !bytes.HasPrefix(pdf.body, []byte("%PDF-")) {
		t.Fatalf("download through Caddy: %d, %d bytes", pdf.status, len(pdf.body))
	}
	*figures = append(*figures, fmt.Sprintf("batch of %d with enrolments; certificate PDF (%d bytes) in %s", people, len(pdf.body), ms(time.Since(certStart))))

	// Every user.created of the batch and the certificate's event arrive;
	// then a little more time for a duplicate to show.
	complete := func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for i := 0; i < people; i++ {
			if !rc.users[fmt.Sprintf("batch-%d", i)] {
				return false
			}
		}
		return rc.types["certificate.completed"] > 0
	}
	for i := 0; i < 150 && !complete(); i++ {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	rc.mu.Lock()
	deliveries, dups := 0, 0
	for _, n := range rc.byID {
		deliveries += n
		if n > 1 {
			dups++
		}
	}
	types := fmt.Sprint(rc.types)
	bad := rc.badSigs
	rc.mu.Unlock()
	if !complete() {
		t.Errorf("not every event arrived: %s", types)
	}
	if dups > 0 || bad > 0 {
		t.Errorf("%d events delivered more than once, %d bad signatures", dups, bad)
	}
	*figures = append(*figures, fmt.Sprintf("%d webhook deliveries, %d events, 0 twice, signatures valid", deliveries, len(rc.byID)))

	// Periodic jobs: one a minute per cluster (two workers compete).
	periodic := []string{"scheduled_activation", "recertify", "webhook_maintenance", "rank_anchors"}
	total := 0
	for _, kind := range periodic {
		n := topo.count(t, "SELECT count(*) FROM river_job WHERE kind = $1", kind)
		close := topo.count(t, `SELECT count(*) FROM river_job a JOIN river_job b ON a.kind = b.kind AND a.id < b.id
			AND abs(extract(epoch FROM b.scheduled_at - a.scheduled_at)) < 50 WHERE a.kind = $1`, kind)
		total += n
		if n == 0 || close > 0 {
			t.Errorf("periodic %s: %d jobs, %d pairs less than 50 s apart (want at least 1, and 0 pairs)", kind, n, close)
		}
	}
	*figures = append(*figures, fmt.Sprintf("%d periodic jobs of %d kinds, none twice in a minute", total, len(periodic)))
}
