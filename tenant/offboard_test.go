package tenant

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"learngate"
	"learngate/blob"
	"learngate/store"
)

// certificateKey is where a certificate of tenant id is kept (see store's
// certificate jobs): under the tenant's blob prefix.
func certificateKey(id int64, name string) string {
	return store.TenantBlobPrefix(id) + "certificates/" + name + ".pdf"
}

// inS3 reports whether s3 holds key (a GET of its pre-signed URL).
func inS3(t *testing.T, s3 *blob.S3, key string) bool {
	t.Helper()
	raw, err := s3.URL(context.Background(), key, blob.Link{Filename: "c.pdf", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(raw)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// newS3 is an in-process S3 (gofakes3) with a bucket "certs".
func newS3(t *testing.T) *blob.S3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("certs"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	s3, err := blob.NewS3(blob.S3Config{Endpoint: srv.URL, Bucket: "certs", AccessKey: "AKIDEXAMPLE", SecretKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	return s3
}

// TestDeleteRemovesTheTenantsFiles: offboarding removes the tenant's
// certificate files, in a local folder and in S3; another tenant's files,
// and those of a tenant whose id starts with the same digits, stay.
func TestDeleteRemovesTheTenantsFiles(t *testing.T) {
	dir := t.TempDir()
	local, err := blob.NewLocal(dir, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	s3 := newS3(t)
	for name, blobs := range map[string]blob.Store{"local": local, "s3": s3} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r, _, _ := newTestRegistry(t, Options{Blobs: blobs})
			acme, _, err := r.Create(ctx, NewTenantInput{Slug: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			other, _, err := r.Create(ctx, NewTenantInput{Slug: "other"})
			if err != nil {
				t.Fatal(err)
			}
			acmeKeys := []string{certificateKey(acme.ID, "a"), certificateKey(acme.ID, "b")}
			// tenant_<acme id><digit> shares acme's prefix but for the slash.
			keptKeys := []string{certificateKey(other.ID, "c"), certificateKey(acme.ID*10+7, "d")}
			for _, key := range append(append([]string{}, acmeKeys...), keptKeys...) {
				if err := blobs.Put(ctx, key, []byte("%PDF-1.4"), "application/pdf"); err != nil {
					t.Fatal(err)
				}
			}
			exists := func(key string) bool {
				if name == "s3" {
					return inS3(t, s3, key)
				}
				_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
				return err == nil
			}
			if !exists(acmeKeys[0]) {
				t.Fatal("the test file is not stored")
			}
			if err := r.Delete(ctx, "acme"); err != nil {
				t.Fatal(err)
			}
			for _, key := range acmeKeys {
				if exists(key) {
					t.Errorf("%s is still stored after offboarding", key)
				}
			}
			for _, key := range keptKeys {
				if !exists(key) {
					t.Errorf("%s, not acme's, was removed", key)
				}
			}
			if _, err := r.Show(ctx, "other"); err != nil {
				t.Fatalf("other: %v", err)
			}
		})
	}
}

// failingBlobs cannot delete.
type failingBlobs struct{ blob.Store }

func (failingBlobs) DeletePrefix(context.Context, string) error {
	return errors.New("bucket unreachable")
}

// TestDeleteKeepsTheTenantWhenItsFilesStay: files that cannot be removed
// stop the offboarding before the data goes, so it can be run again.
func TestDeleteKeepsTheTenantWhenItsFilesStay(t *testing.T) {
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{Blobs: failingBlobs{}})
	if _, _, err := r.Create(ctx, NewTenantInput{Slug: "acme"}); err != nil {
		t.Fatal(err)
	}
	err := r.Delete(ctx, "acme")
	if err == nil || err.Error() != "remove the files of tenant acme: bucket unreachable" {
		t.Fatalf("Delete = %v", err)
	}
	if tn, err := r.Show(ctx, "acme"); err != nil || tn.Status != learngate.TenantActive {
		t.Fatalf("acme after a failed offboarding: %+v, %v", tn, err)
	}
}
