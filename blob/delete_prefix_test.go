package blob_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"learngate/blob"
)

// stored reports whether s holds key: the file of a Local store under dir,
// a GET of its pre-signed URL for S3.
func stored(t *testing.T, s blob.Store, dir, key string) bool {
	t.Helper()
	if _, ok := s.(*blob.Local); ok {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}
	raw, err := s.URL(context.Background(), key, blob.Link{Filename: "c.pdf", TTL: time.Minute})
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

// TestDeletePrefix removes a tenant's files, in a folder and in S3, and
// only them: tenant_12 shares tenant_1's first characters and keeps its files.
func TestDeletePrefix(t *testing.T) {
	local, dir := newLocal(t)
	s3, _ := fakeS3(t)
	ctx := context.Background()
	gone := []string{"tenant_1/certificates/a.pdf", "tenant_1/certificates/b.pdf", "tenant_1/other/deep/c.pdf"}
	kept := []string{"tenant_12/certificates/d.pdf", "tenant_2/certificates/e.pdf", "tenant_1.pdf"}
	for name, s := range map[string]blob.Store{"local": local, "s3": s3} {
		t.Run(name, func(t *testing.T) {
			for _, key := range append(append([]string{}, gone...), kept...) {
				if err := s.Put(ctx, key, []byte("%PDF "+key), "application/pdf"); err != nil {
					t.Fatal(err)
				}
				if !stored(t, s, dir, key) {
					t.Fatalf("%s not stored", key)
				}
			}
			if err := s.DeletePrefix(ctx, "tenant_1/"); err != nil {
				t.Fatalf("DeletePrefix: %v", err)
			}
			for _, key := range gone {
				if stored(t, s, dir, key) {
					t.Errorf("%s is still there", key)
				}
			}
			for _, key := range kept {
				if !stored(t, s, dir, key) {
					t.Errorf("%s was removed", key)
				}
			}
			if name == "local" {
				if _, err := os.Stat(filepath.Join(dir, "tenant_1")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the folder tenant_1 is left: %v", err)
				}
			}
			// Nothing left under the prefix: not an error.
			if err := s.DeletePrefix(ctx, "tenant_1/"); err != nil {
				t.Fatalf("DeletePrefix again: %v", err)
			}
			for _, bad := range []string{"", "/", "tenant_1", "../", "tenant_1/../", "/tenant_1/", "tenant_1//"} {
				if err := s.DeletePrefix(ctx, bad); err == nil {
					t.Errorf("DeletePrefix(%q) accepted", bad)
				}
			}
			for _, key := range kept {
				if !stored(t, s, dir, key) {
					t.Errorf("%s was removed by a refused prefix", key)
				}
			}
		})
	}
}
