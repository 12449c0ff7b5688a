package handlers

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/blob"
	"learngate/store/storetest"
)

// TestOpsDeleteTenantRemovesItsCertificates: a tenant offboarded through
// the ops API loses its certificate files, rendered by the real worker;
// the other tenant's certificate stays and still downloads.
func TestOpsDeleteTenantRemovesItsCertificates(t *testing.T) {
	t.Parallel()
	e := newCertEnv(t)
	ctx := context.Background()
	tokens := map[string]string{}
	ids := map[string]int64{}
	for slug, ct := range map[string]catalogTenant{"acme": e.acme, "other": e.other} {
		user := ct.learner(t, "ann", "Ann", "Lee")
		id := storetest.SeedConqueredEnrolment(t, ct.tdb(t), user, "Fire safety", usersStart.Add(-time.Hour))
		job := ct.getJSON(t, "/papi/certificates?topic_assignment_id="+itoa(id), http.StatusAccepted)
		done := ct.waitStatus(t, job["job_id"].(string))
		link, _ := done["url"].(string)
		_, token, ok := strings.Cut(link, blob.DownloadPath)
		if done["status"] != "complete" || !ok {
			t.Fatalf("%s: certificate job %v", slug, done)
		}
		tokens[slug] = token
		tn, err := e.h.registry.Show(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		ids[slug] = tn.ID
	}
	stored := func(slug string) bool {
		t.Helper()
		d, err := e.h.blobs.Open(tokens[slug], ids[slug], e.clock.Now())
		if learngate.IsCode(err, learngate.NotFound) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		d.Body.Close()
		return true
	}
	if !stored("acme") || !stored("other") {
		t.Fatal("the certificates are not stored")
	}

	opsAssertStatus(t, e.h.opsCall(http.MethodDelete, "/ops/v1/tenants/acme?confirm=acme", ""), http.StatusNoContent)
	if stored("acme") {
		t.Fatal("acme's certificate file is still stored after offboarding")
	}
	if !stored("other") {
		t.Fatal("other's certificate file was removed")
	}
	res, pdf := e.download(e.other.host, "http://"+e.other.host+blob.DownloadPath+tokens["other"])
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatalf("other's download = %d", res.StatusCode)
	}
}
