package jobs_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/blob"
	"learngate/store"
)

// TestCertificateOfAnOffboardedTenantLeavesNoFile: a certificate stored
// by a worker while its tenant was being offboarded (after the files were
// removed, before its job could be marked complete) is removed when the
// job is worked again and finds the tenant gone; another tenant's file
// stays.
func TestCertificateOfAnOffboardedTenantLeavesNoFile(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	acmeTenant, acme := newTenant(t, db, "acme", "Acme")
	otherTenant, _ := newTenant(t, db, "other", "Other")
	job := requestCertificate(t, acme, learner(t, acme, "ann", "Ann", "Smith"), "Fire safety", time.Now())
	blobs := localBlobs(t)
	otherKey := store.TenantBlobPrefix(otherTenant.ID) + "certificates/kept.pdf"
	for _, key := range []string{job.BlobKey, otherKey} {
		if err := blobs.Put(ctx, key, []byte("%PDF-1.4"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeleteTenant(ctx, acmeTenant.ID); err != nil {
		t.Fatal(err)
	}
	has := func(tenantID int64, key string) bool {
		link := blob.Link{Scheme: "https", Host: "h", TenantID: tenantID, Filename: "c.pdf", Now: time.Now(), TTL: time.Hour}
		raw, err := blobs.URL(ctx, key, link)
		if err != nil {
			t.Fatal(err)
		}
		d, err := blobs.Open(raw[len("https://h"+blob.DownloadPath):], tenantID, time.Now())
		if learngate.IsCode(err, learngate.NotFound) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		d.Body.Close()
		return true
	}
	startWorker(t, jobsConfig(db, blobs, nil))
	waitFor(t, 20*time.Second, "the offboarded tenant's certificate to be removed", func() bool {
		return !has(acmeTenant.ID, job.BlobKey)
	})
	if !has(otherTenant.ID, otherKey) {
		t.Fatal("the other tenant's certificate was removed")
	}
}
