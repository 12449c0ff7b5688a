//go:build slow

package jobs_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"learngate/store"
)

// The timing test of the certificate worker: it measures latencies, so it
// runs in the slow tier, alone with go test's default parallelism
// (Makefile, make test-slow).

func TestCertificateTimeToComplete(t *testing.T) {
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	startWorker(t, jobsConfig(db, localBlobs(t), nil)) // poll interval 50 ms (startWorker)
	ann := learner(t, acme, "ann", "Ann", "Smith")
	var took []time.Duration
	for i := range 20 {
		start := time.Now()
		job := requestCertificate(t, acme, ann, "Topic "+itoa(int64(i)), start)
		if got := waitFinishedFast(t, acme, job); got.Status != store.CertificateComplete {
			t.Fatalf("job %d = %+v", i, got)
		}
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	median := (took[9] + took[10]) / 2
	t.Logf("request to complete, 20 runs, poll interval 50ms: median %s, min %s, max %s", median, took[0], took[19])
	if median > 3*time.Second {
		t.Fatalf("median %s, want well under 3 s with a 50 ms poll", median)
	}
}

// waitFinishedFast polls the job every 5 ms (for timing).
func waitFinishedFast(t *testing.T, tdb *store.TenantDB, job store.CertificateJob) store.CertificateJob {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		got, err := store.GetCertificateJob(context.Background(), tdb, job.JobID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.CertificatePending {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("job %s still pending after 20 s", job.JobID)
	return store.CertificateJob{}
}
